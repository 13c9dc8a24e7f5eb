"""Where the package's numba kernels are cached: a folder named by a digest of the files numba compiles into them.

numba's own cache is invalidated only when the file of the cached function changes, not when a module it calls,
inlines or reads a constant of does (a stale kernel then fails oddly: ``SystemError ... 'descr' is NULL``). So the
package's kernels are cached in a folder named by a digest of :data:`KERNEL_SOURCES` (:func:`kernel_cache_root`,
under ``NUMBA_CACHE_DIR`` where the user set it): an edit of any of them starts a new, empty folder, and the old
folders are pruned (:func:`prune_cache_folders`).

No kernel reads this module (it is not in :data:`KERNEL_SOURCES`): an edit of it recompiles nothing.
:mod:`mathhammer.config` imports it when a kernel module first reads the flags, :mod:`mathhammer.jit` when it looks
for a cache index.
"""

from __future__ import annotations

import os
from typing import Any


def writable(path: str) -> bool:
    import tempfile  # (only here: most commands never ask)

    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


#: The package's files (paths under it) whose text numba compiles into its kernels: the modules that define kernels
#: (they import numba) and the modules of the names those kernels read (constants, flags, module objects: a kernel
#: reads them as frozen globals), followed to where they are bound. The Python beside the kernels is not here: the
#: simulation's kernels live in ``scenario/fastsim.py``, the battlefield's tolerance in ``board/tolerance.py``.
#: ``tests/test_kernel_cache.py`` derives the list from the sources and holds it to this one.
KERNEL_SOURCES: tuple[str, ...] = (
    "board/cspace.py",
    "board/fastcharge.py",
    "board/fastline.py",
    "board/fastsight.py",
    "board/fastways.py",
    "board/tolerance.py",
    "config.py",
    "engine/alias.py",
    "engine/rng.py",
    "engine/tables.py",
    "grimdark/engine.py",
    "grimdark/melee_engine.py",
    "grimdark/morale.py",
    "scenario/fast.py",
    "scenario/fastcombat.py",
    "scenario/fastcontrol.py",
    "scenario/fastfetch.py",
    "scenario/fastmove.py",
    "scenario/fastnear.py",
    "scenario/fastplace.py",
    "scenario/fastranks.py",
    "scenario/fastsim.py",
    "scenario/fastspots.py",
    "scenario/faststats.py",
    "scenario/fasttables.py",
    "starcraft/kernels.py",
    "starcraft/mcparams.py",
)

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

#: The kernel cache folder's name: this prefix and the digest of :data:`KERNEL_SOURCES`.
CACHE_PREFIX = "mathhammer-"


def sources_digest(package: str) -> str:
    """12 hex digits naming the state of :data:`KERNEL_SOURCES` under ``package``: each file's path and content (a
    touch or a checkout that leaves the text as it was keeps the folder; an edit that keeps the size and the time does
    not keep a stale kernel); a missing file counts as such. Reading the files costs well under a millisecond."""
    import hashlib  # (only here: most commands never ask)

    h = hashlib.sha1()
    for name in KERNEL_SOURCES:
        h.update(f"{name}:".encode())
        try:
            with open(os.path.join(package, name), "rb") as f:
                h.update(hashlib.sha1(f.read()).digest())
        except OSError:
            h.update(b"-")
        h.update(b";")
    return h.hexdigest()[:12]


_digest: list[str] = []  # this process's digest of the package (its sources as first asked)
_roots: dict[str, str | None] = {}  # kernel_cache_root by NUMBA_CACHE_DIR ("": unset)


def kernel_cache_root() -> str | None:
    """Where the package's kernels are cached: ``NUMBA_CACHE_DIR`` (the user's choice) or else the package's
    ``__pycache__`` or else the user's cache folder (numba's own order), then a folder named by
    :func:`sources_digest`; None when none is writable (no caching). A folder found is marked used (its time set to
    now); a folder made new prunes its old siblings (:func:`prune_cache_folders`)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR", "")
    if chosen not in _roots:
        if not _digest:
            _digest.append(sources_digest(PACKAGE_DIR))
        name = CACHE_PREFIX + _digest[0]
        if chosen:
            bases = [chosen]
        else:
            user = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
            bases = [os.path.join(PACKAGE_DIR, "__pycache__"), os.path.join(user, "numba")]
        _roots[chosen] = None
        for base in bases:
            path = os.path.join(base, name)
            made = not os.path.isdir(path)
            if writable(path):
                _roots[chosen] = path
                if made:
                    prune_cache_folders(base, name)
                else:
                    _mark_used(path)
                break
    return _roots[chosen]


def _mark_used(path: str) -> None:
    """Set the folder's time to now: a tree sharing its base keeps it (:func:`prune_cache_folders`)."""
    import contextlib

    with contextlib.suppress(OSError):
        os.utime(path)


#: Days a kernel cache folder of another state of the sources is kept unused: when a new ``mathhammer-<digest>``
#: folder is made, its siblings last used before are deleted (README, "A first run says when it compiles").
CACHE_KEEP_DAYS: float = 7.0

#: Most kernel cache folders of other states of the sources kept beside the new one (about 6 MB each), the most
#: recently used first: the others are deleted then, however recently used (README, "A first run says when it
#: compiles").
CACHE_KEEP_FOLDERS: int = 8


def prune_cache_folders(base: str, keep: str, now: float | None = None) -> list[str]:
    """Delete the kernel cache folders of ``base`` (``mathhammer-`` and 12 hex digits: another state of the sources)
    other than ``keep`` last used more than :data:`CACHE_KEEP_DAYS` days ago, and all but the
    :data:`CACHE_KEEP_FOLDERS` most recently used (the later name first among equal times). A folder's last use is its
    own modification time: set when it is made, and by every run that finds it (:func:`kernel_cache_root` marks it),
    so a tree sharing ``NUMBA_CACHE_DIR`` that ran within those days keeps its own; what is inside is not read (a
    compile writes there only in a run that made or marked the folder). Never fails: a folder that cannot be read or
    deleted is left (an OSError is not raised). Returns the names deleted, sorted."""
    import re
    import shutil
    import time

    pattern = re.compile(re.escape(CACHE_PREFIX) + "[0-9a-f]{12}")
    limit = (time.time() if now is None else now) - CACHE_KEEP_DAYS * 86400.0
    try:
        with os.scandir(base) as entries:
            others = [
                e.path
                for e in entries
                if e.name != keep and pattern.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []
    used: list[tuple[float, str]] = []
    for path in others:
        try:
            used.append((os.stat(path, follow_symlinks=False).st_mtime, path))
        except OSError:
            continue
    used.sort(reverse=True)
    gone = []
    for rank, (when, path) in enumerate(used):
        if rank < CACHE_KEEP_FOLDERS and when >= limit:
            continue
        try:
            shutil.rmtree(path)
        except OSError:
            continue
        gone.append(os.path.basename(path))
    return sorted(gone)


def kernel_cache_folder(source: str) -> str | None:
    """The folder of the cache of the kernels of ``source`` (a .py path of the package): numba's sub-folder for the
    file's folder (``<folder>_<sha1 of its path>``, as its locators name it) under :func:`kernel_cache_root`; None
    outside the package or when nothing is writable."""
    import hashlib

    folder = os.path.dirname(os.path.abspath(source))
    try:
        inside = os.path.commonpath([folder, PACKAGE_DIR]) == PACKAGE_DIR
    except ValueError:  # another drive (Windows): not the package's; numba's own locators go on
        inside = False
    if not inside:
        return None
    root = kernel_cache_root()
    if root is None:
        return None
    return os.path.join(root, "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()]))


def use_kernel_folders() -> None:
    """Make numba cache the package's kernels in :func:`kernel_cache_folder` (a cache locator tried before numba's
    own, for the package's files only: anything else is cached where numba puts it)."""
    from numba.core import caching

    if any(getattr(c, "_mathhammer", False) for c in caching.CacheImpl._locator_classes):
        return

    class KernelLocator(caching.UserProvidedCacheLocator):
        _mathhammer = True

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = kernel_cache_folder(py_file)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if kernel_cache_folder(py_file) is None:
                return None
            return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)

    caching.CacheImpl._locator_classes.insert(0, KernelLocator)


def cache_available() -> bool:
    """True when numba will find a writable cache folder for this package's kernels."""
    return kernel_cache_root() is not None
