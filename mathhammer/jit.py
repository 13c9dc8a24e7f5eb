"""Which numba kernels a command runs, whether numba's cache already holds them, and the one-line notice.

A first run compiles the kernels it calls (seconds each); later runs load them from numba's disk cache
(``cache=True``, :mod:`mathhammer.config`). Before a command calls a group of kernels, :func:`announce` looks for
the cache index of each kernel of the group where numba's cache locators put it
(``numba.core.caching``: ``<cache folder>/<module>.<function>-<line>.pyXY.nbi``, the cache folder being
``NUMBA_CACHE_DIR/<folder>_<sha1 of the folder path>``, else the package's ``__pycache__``, else the user's
cache folder), and an index counts only when it was written by this numba for this very source (numba stamps it
with the source file's sha256, stored verbatim in the index). When the kernels missing are estimated to take
longer than :data:`NOTICE_SECONDS` to compile, one line goes to stderr (never stdout: ``--json`` stays clean).

Importing this module imports neither numba nor any kernel module: the check reads a few small files.
The compile times are data (:data:`COMPILE_SECONDS`, from numba's compile events and `benchmarks/bench_firstrun.py`).
"""

from __future__ import annotations

import glob
import hashlib
import os
import sys
from functools import cache, lru_cache
from pathlib import Path

from .config import _writable  # numba's own test of a cache folder (``_CacheLocator.ensure_cache_path``)

PACKAGE = Path(__file__).resolve().parent

#: The kernels numba compiles on its own (the entry points called from Python; their callees are compiled into
#: them), by group: (module path under the package, function).
KERNELS: dict[str, tuple[tuple[str, str], ...]] = {
    "starcraft": (("starcraft/kernels.py", "_run_slot"),),
    "starcraft-parallel": (("starcraft/kernels.py", "run_block"),),
    "grimdark": (("grimdark/engine.py", "_run_slot"),),
    "grimdark-parallel": (("grimdark/engine.py", "_run_block"),),
    "grimdark-melee": (("grimdark/melee_engine.py", "_run_block"),),
    "scenario-check": (("board/cspace.py", "_segments_kernel"), ("scenario/fastnear.py", "_near_kernel")),
    "scenario": (
        ("board/cspace.py", "_segments_kernel"),
        ("scenario/fast.py", "_by_id_kernel"),
        ("scenario/fast.py", "_coded_kernel"),
        ("scenario/fast.py", "_group_kernel"),
        ("scenario/fast.py", "_near_cells_kernel"),
        ("scenario/fast.py", "_near_keys_kernel"),
        ("scenario/fast.py", "_regroup_kernel"),
        ("scenario/fastcontrol.py", "_contest_kernel"),
        ("scenario/fastcontrol.py", "_supply_kernel"),
        ("scenario/fastcontrol.py", "_winners_kernel"),
        ("scenario/fastnear.py", "_near_box_kernel"),
        ("scenario/fastnear.py", "_near_kernel"),
        ("scenario/fastranks.py", "close_ranks_search"),
        ("scenario/fasttables.py", "_intern_kernel"),
        ("scenario/fasttables.py", "_move_kernel"),
        ("scenario/fasttables.py", "_pair_words_kernel"),
        ("scenario/fasttables.py", "_rehash_kernel"),
        ("scenario/sim_state.py", "_apply_kernel"),
        ("scenario/sim_state.py", "_keep_bits"),
        ("scenario/sim_state.py", "_planned_bits"),
        ("scenario/sim_state.py", "_uniforms_kernel"),
    ),
}

#: Seconds to compile each kernel from an empty cache (its first signature) on an idle 2-core machine of this
#: project's kind: numba's compile events timed under load, scaled by the load's factor on whole first runs
#: (``benchmarks/bench_firstrun.py``); the figures are in ``benchmarks/RESULTS.md``.
COMPILE_SECONDS: dict[str, float] = {
    "starcraft/kernels.py:_run_slot": 1.7,
    "starcraft/kernels.py:run_block": 3.0,
    "grimdark/engine.py:_run_slot": 3.0,
    "grimdark/engine.py:_run_block": 4.0,
    "grimdark/melee_engine.py:_run_block": 4.0,
    "board/cspace.py:_segments_kernel": 1.3,
    "scenario/fast.py:_by_id_kernel": 0.7,
    "scenario/fast.py:_coded_kernel": 1.8,
    "scenario/fast.py:_group_kernel": 1.8,
    "scenario/fast.py:_near_cells_kernel": 0.6,
    "scenario/fast.py:_near_keys_kernel": 2.0,
    "scenario/fast.py:_regroup_kernel": 0.3,
    "scenario/fastcontrol.py:_contest_kernel": 0.3,
    "scenario/fastcontrol.py:_supply_kernel": 0.4,
    "scenario/fastcontrol.py:_winners_kernel": 0.5,
    "scenario/fastnear.py:_near_box_kernel": 0.3,
    "scenario/fastnear.py:_near_kernel": 0.6,
    "scenario/fastranks.py:close_ranks_search": 8.3,
    "scenario/fasttables.py:_intern_kernel": 0.5,
    "scenario/fasttables.py:_move_kernel": 0.5,
    "scenario/fasttables.py:_pair_words_kernel": 0.6,
    "scenario/fasttables.py:_rehash_kernel": 0.2,
    "scenario/sim_state.py:_apply_kernel": 0.5,
    "scenario/sim_state.py:_keep_bits": 0.15,
    "scenario/sim_state.py:_planned_bits": 0.4,
    "scenario/sim_state.py:_uniforms_kernel": 0.25,
}

#: A compile estimated longer than this (seconds) is announced on stderr; the environment variable
#: ``MATHHAMMER_COMPILE_NOTICE`` (seconds) overrides it (0: announce every compile; a large number: never).
NOTICE_SECONDS: float = 2.0
NOTICE_ENV = "MATHHAMMER_COMPILE_NOTICE"

#: What the notice calls each group's kernels.
WHAT: dict[str, str] = {
    "starcraft": "Monte Carlo kernels",
    "starcraft-parallel": "parallel Monte Carlo kernels",
    "grimdark": "Monte Carlo kernels",
    "grimdark-parallel": "parallel Monte Carlo kernels",
    "grimdark-melee": "Monte Carlo melee kernels",
    "scenario-check": "battlefield kernels",
    "scenario": "scenario kernels",
}

_announced: set[str] = set()


@cache
def cache_folder(source: str) -> str | None:
    """Where numba keeps the cache of the kernels of ``source`` (a .py path), as its locators choose it; None
    when numba caches nothing (no writable folder)."""
    folder = os.path.dirname(os.path.abspath(source))
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        sub = "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])
        path = os.path.join(chosen, sub)
        return path if _writable(path) else None
    intree = os.path.join(folder, "__pycache__")
    if _writable(intree):
        return intree
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    sub = "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])
    user = os.path.join(base, "numba", sub)
    return user if _writable(user) else None


@cache
def _stamp(source: str) -> bytes:
    with open(source, "rb") as f:
        return hashlib.sha256(f.read()).digest()


@lru_cache(maxsize=1)
def _numba_version() -> bytes:
    """The installed numba's version, read from its ``_version.py`` (no import, no metadata scan); b"" if unknown."""
    import importlib.util
    import re

    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return b""
    try:
        text = Path(next(iter(spec.submodule_search_locations)), "_version.py").read_text()
    except OSError:
        return b""
    found = re.search(r'"version": "([^"]+)"', text)
    return found.group(1).encode() if found else b""


def cached(module: str, function: str) -> bool:
    """Does numba's cache hold ``function`` of ``module`` (a path under the package) for this source and this
    numba? (It may hold it for other argument types only: then numba still compiles.)"""
    source = str(PACKAGE / module)
    folder = cache_folder(source)
    if folder is None:
        return False
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    name = f"{Path(module).stem}.{function}-*.{tag}.nbi"
    stamp, ver = _stamp(source), _numba_version()
    for index in glob.glob(os.path.join(glob.escape(folder), name)):
        try:
            with open(index, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if ver in data[:64] and stamp in data:
            return True
    return False


def missing(group: str) -> list[tuple[str, str]]:
    """The kernels of ``group`` that numba will compile (not in its cache)."""
    return [k for k in KERNELS[group] if not cached(*k)]


def _load_factor() -> float:
    """How much slower than idle a compile runs now: the 1-minute load average per core, at least 1."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (AttributeError, OSError):  # pragma: no cover - no load average (Windows)
        return 1.0


def estimate(kernels: list[tuple[str, str]]) -> float:
    """Seconds to compile ``kernels`` (:data:`COMPILE_SECONDS`, longer on a busy machine)."""
    return sum(COMPILE_SECONDS.get(f"{m}:{f}", 1.0) for m, f in kernels) * _load_factor()


def _threshold() -> float:
    try:
        return float(os.environ.get(NOTICE_ENV, NOTICE_SECONDS))
    except ValueError:
        return NOTICE_SECONDS


def notice(group: str) -> str | None:
    """The line announcing the compile of ``group``'s kernels, or None when it is estimated short (or off)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None
    kernels = missing(group)
    seconds = estimate(kernels)
    if not kernels or seconds <= _threshold():
        return None
    return (
        f"note: compiling the {WHAT[group]} once, about {max(1, round(seconds))} s "
        "(a first run only; `mathhammer warmup` compiles every kernel ahead)"
    )


def announce(group: str) -> None:
    """Print :func:`notice` for ``group`` on stderr, once a process, before its kernels are first called."""
    if group in _announced:
        return
    _announced.add(group)
    line = notice(group)
    if line is not None:
        print(line, file=sys.stderr, flush=True)


def silence() -> None:
    """No notice from this process (``mathhammer warmup`` says what it compiles itself)."""
    _announced.update(KERNELS)


__all__ = [
    "COMPILE_SECONDS",
    "KERNELS",
    "NOTICE_SECONDS",
    "announce",
    "cached",
    "estimate",
    "missing",
    "notice",
    "silence",
]
