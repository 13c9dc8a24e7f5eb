"""Validated profiles kept between calls, keyed by the contents of everything they were made from.

Validating the built-in cards (pydantic) is most of what a command such as
``mathhammer profiles list`` does; the result depends only on the bytes of the
profile files and on the code that reads them. So a system's loader asks
:func:`key` for a digest of those (each file's path and bytes, the source of the
modules that validate them, mathhammer's, Python's and pydantic's versions),
:func:`load` for what was kept under it, and :func:`store` to keep a new one.

The cache folder is ``$MATHHAMMER_CACHE_DIR``, else ``$XDG_CACHE_HOME/mathhammer``,
else ``~/.cache/mathhammer``; ``MATHHAMMER_CACHE_DIR=off`` switches the cache off.
Entries are written atomically (a temporary file renamed), and a cache that cannot
be read or written is skipped without a word: it only ever saves time.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> k = key("demo", [], [], folder=folder)
>>> load(k, folder=folder) is None
True
>>> store(k, {"cards": 3}, folder=folder)
True
>>> load(k, folder=folder)
{'cards': 3}
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The environment variable that names the cache folder (``off``: no cache).
ENV_VAR = "MATHHAMMER_CACHE_DIR"

#: Entries kept per kind: the oldest beyond this are removed when a new one is written.
KEEP = 8

#: Raised in the cache format's own changes (an old entry is then never read).
FORMAT = 2


def cache_dir() -> Path | None:
    """The cache folder (not created here); None when switched off with ``MATHHAMMER_CACHE_DIR=off``."""
    given = os.environ.get(ENV_VAR, "").strip()
    if given:
        return None if given.lower() in ("off", "0", "no", "none") else Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "mathhammer"


def _source(name: str) -> str | None:
    """The file of module ``name``, found without importing it when it is not loaded (a cached roster of plain
    cards is read without the pydantic schema that made it)."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return getattr(loaded, "__file__", None)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return None if spec is None else spec.origin


def _hash() -> Any:
    """A new BLAKE2b hash, from CPython's own ``_blake2`` when it is there: ``hashlib`` loads OpenSSL's libcrypto
    at its import, which a command reading the cache needs for nothing else (``hashlib.blake2b`` is that same
    ``_blake2`` code; BLAKE2b also hashes the files in a third of SHA-256's instructions)."""
    if "hashlib" not in sys.modules:
        with contextlib.suppress(ImportError):
            from _blake2 import blake2b

            return blake2b()
    import hashlib

    return hashlib.blake2b()


def key(kind: str, files: Sequence[Path], code: Sequence[str], folder: Path | None = None) -> str | None:
    """The digest of an entry of ``kind`` made from ``files`` (each one's resolved path and bytes) by the
    modules ``code`` (their source bytes, loaded or not), with the versions of mathhammer and Python and
    pydantic's version file (read, not imported); None when a file cannot be read (then nothing is cached)
    or the cache is off. ``folder``: the cache folder, for tests."""
    if (folder or cache_dir()) is None:
        return None
    version = getattr(sys.modules.get("mathhammer"), "__version__", "")
    h = _hash()
    for part in (f"mathhammer-cache {FORMAT}", kind, version, sys.version):
        h.update(part.encode() + b"\0")
    try:
        for name in code:
            source = _source(name)
            if source is None:
                return None
            h.update(name.encode() + b"\0" + Path(source).read_bytes() + b"\0")
        pydantic = _source("pydantic")
        if pydantic is not None:  # pydantic's version (its version.py), without importing it
            h.update(b"pydantic\0" + (Path(pydantic).parent / "version.py").read_bytes() + b"\0")
        for path in files:
            h.update(str(Path(path).resolve()).encode() + b"\0" + Path(path).read_bytes() + b"\0")
    except OSError:
        return None
    return f"{kind}-{h.hexdigest()[:40]}"


def _entry(digest: str, folder: Path | None) -> Path | None:
    base = folder or cache_dir()
    return None if base is None else base / f"{digest}.pickle"


def load(digest: str | None, folder: Path | None = None) -> Any:
    """What was stored under ``digest``; None when there is nothing (or it cannot be read)."""
    path = None if digest is None else _entry(digest, folder)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except Exception:  # a missing, truncated or stale entry is a miss, never an error
        return None


def store(digest: str | None, value: Any, folder: Path | None = None) -> bool:
    """Keep ``value`` under ``digest`` (written to a temporary file, then renamed into place); False when the
    cache is off or cannot be written. Older entries of the same kind beyond :data:`KEEP` are removed."""
    path = None if digest is None else _entry(digest, folder)
    if path is None or digest is None:
        return False
    import tempfile  # (only to write: a hit reads alone)

    tmp = None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: entries are pickles
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pickle", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        tmp = None
    except Exception:  # a read-only or full disk, an unpicklable value: no cache, no error
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _prune(path, digest.rsplit("-", 1)[0])
    return True


def _prune(kept: Path, kind: str) -> None:
    """Remove the entries of ``kind`` but the :data:`KEEP` newest (``kept``, just written, among them)."""
    try:
        entries = [p for p in kept.parent.glob(f"{kind}-*.pickle") if p.stem.rsplit("-", 1)[0] == kind]
        entries.sort(key=lambda p: (p == kept, p.stat().st_mtime), reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
