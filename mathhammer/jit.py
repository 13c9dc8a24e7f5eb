"""Which numba kernels a command runs, whether numba's cache already holds them, and the one-line notice.

A first run compiles the kernels it calls (seconds each); later runs load them from numba's disk cache
(``cache=True``, :mod:`mathhammer.config`). Before a command calls a group of kernels, :func:`announce` looks for
the cache index of each kernel of the group where numba's cache locators put it
(``numba.core.caching``: ``<cache folder>/<module>.<function>-<line>.pyXY.nbi``, the cache folder being
``<root>/<folder>_<sha1 of the folder path>``, the root named by a digest of the kernels' sources under
``NUMBA_CACHE_DIR``, else the package's ``__pycache__``, else the user's cache folder: :mod:`mathhammer.kernelcache`),
and an index counts only when it was written by this numba for this very source (numba stamps it
with the source file's sha256, stored verbatim in the index). When the kernels missing are estimated to take
longer than :data:`NOTICE_SECONDS` to compile, one line goes to stderr (never stdout: ``--json`` stays clean).

Importing this module imports neither numba nor any kernel module: the check reads a few small files.
The compile times are data (:data:`COMPILE_SECONDS`, from numba's compile events and `benchmarks/bench_firstrun.py`).

:func:`compile_ahead` compiles the kernels missing from the cache in several processes at once (one a core), each
process its own kernels for the argument types of :data:`SIGNATURES_FILE`; the caller then loads them from the
cache. ``scenario run`` and ``mathhammer warmup`` use it.
"""

from __future__ import annotations

import glob
import hashlib
import os
import sys
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

PACKAGE = Path(__file__).resolve().parent

#: The kernels numba compiles on its own (the entry points called from Python; their callees are compiled into
#: them), by group: (module path under the package, function).
KERNELS: dict[str, tuple[tuple[str, str], ...]] = {
    "starcraft": (("starcraft/kernels.py", "_run_slot"),),
    "starcraft-parallel": (("starcraft/kernels.py", "run_block"),),
    "grimdark": (("grimdark/engine.py", "_run_slot"),),
    "grimdark-parallel": (("grimdark/engine.py", "_run_block"),),
    "grimdark-melee": (("grimdark/melee_engine.py", "_run_block"),),
    "scenario-check": (
        ("board/cspace.py", "_segments_kernel"),
        ("board/fastcharge.py", "_bound_kernel"),
        ("board/fastways.py", "_pairs_kernel"),
        ("board/fastsight.py", "_centre_free_kernel"),
        ("board/fastsight.py", "_sight_kernel"),
        ("board/fastline.py", "_clear_kernel"),
        ("scenario/fastnear.py", "_near_kernel"),
    ),
    "scenario": (
        ("board/cspace.py", "_segments_kernel"),
        ("board/fastcharge.py", "_bound_kernel"),
        ("board/fastsight.py", "_centre_free_kernel"),
        ("board/fastsight.py", "_sight_kernel"),
        ("board/fastline.py", "_clear_kernel"),
        ("board/fastways.py", "_legs_kernel"),
        ("board/fastways.py", "_least_kernel"),
        ("board/fastways.py", "_pairs_kernel"),
        ("scenario/fast.py", "_by_id_kernel"),
        ("scenario/fast.py", "_coded_kernel"),
        ("scenario/fast.py", "_group_kernel"),
        ("scenario/fast.py", "_near_cells_kernel"),
        ("scenario/fast.py", "_near_keys_kernel"),
        ("scenario/fastcombat.py", "_groups_near_kernel"),
        ("scenario/fastcontrol.py", "_contest_kernel"),
        ("scenario/fastcontrol.py", "_supply_kernel"),
        ("scenario/fastcontrol.py", "_control_kernel"),
        ("scenario/fastcontrol.py", "_destroyed_kernel"),
        ("scenario/fastcontrol.py", "_held_kernel"),
        ("scenario/faststats.py", "_counts_kernel"),
        ("scenario/fastmove.py", "_fits_kernel"),
        ("scenario/fastmove.py", "_engaged_kernel"),
        ("scenario/fastmove.py", "_reserve_kernel"),
        ("scenario/fastmove.py", "_add_supply_kernel"),
        ("scenario/fastnear.py", "_near_box_kernel"),
        ("scenario/fastnear.py", "_near_kernel"),
        ("scenario/fastnear.py", "_near_pairs_kernel"),
        ("scenario/fastnear.py", "_least_apart_kernel"),
        ("scenario/fastnear.py", "_beyond_kernel"),
        ("scenario/fastplace.py", "_set_kernel"),
        ("scenario/fastplace.py", "_walk_kernel"),
        ("scenario/fastplace.py", "_clear_kernel"),
        ("scenario/fastspots.py", "_spots_kernel"),
        ("scenario/fastranks.py", "close_ranks_search"),
        ("scenario/fasttables.py", "_intern_kernel"),
        ("scenario/fasttables.py", "_move_kernel"),
        ("scenario/fasttables.py", "_pair_words_kernel"),
        ("scenario/fasttables.py", "_put_kernel"),
        ("scenario/fasttables.py", "_rehash_kernel"),
        ("scenario/fastsim.py", "_apply_kernel"),
        ("scenario/fastsim.py", "_enter_kernel"),
        ("scenario/fastsim.py", "_live_kernel"),
        ("scenario/fastsim.py", "_placed_kernel"),
        ("scenario/fastsim.py", "_keep_bits"),
        ("scenario/fastsim.py", "_planned_bits"),
        ("scenario/fastsim.py", "_uniforms_kernel"),
        ("scenario/fastsim.py", "_uniforms_rows_kernel"),
        ("scenario/fastsim.py", "_end_kernel"),
        ("scenario/fasttables.py", "_pair_slot"),  # called from Python too
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
    "board/fastcharge.py:_bound_kernel": 12.4,
    "board/fastsight.py:_centre_free_kernel": 4.0,
    "board/fastsight.py:_sight_kernel": 8.6,
    "board/fastline.py:_clear_kernel": 0.8,
    "board/fastways.py:_legs_kernel": 0.6,
    "board/fastways.py:_least_kernel": 0.6,
    "board/fastways.py:_pairs_kernel": 0.6,
    "scenario/fast.py:_by_id_kernel": 0.7,
    "scenario/fast.py:_coded_kernel": 1.8,
    "scenario/fast.py:_group_kernel": 1.8,
    "scenario/fast.py:_near_cells_kernel": 0.6,
    "scenario/fast.py:_near_keys_kernel": 2.0,
    "scenario/fastcombat.py:_groups_near_kernel": 2.0,
    "scenario/fastcontrol.py:_contest_kernel": 0.3,
    "scenario/fastcontrol.py:_supply_kernel": 0.4,
    "scenario/fastcontrol.py:_control_kernel": 0.6,
    "scenario/fastcontrol.py:_destroyed_kernel": 0.2,
    "scenario/fastcontrol.py:_held_kernel": 0.2,
    "scenario/faststats.py:_counts_kernel": 0.3,
    "scenario/fastmove.py:_fits_kernel": 0.3,
    "scenario/fastmove.py:_engaged_kernel": 0.2,
    "scenario/fastmove.py:_reserve_kernel": 0.15,
    "scenario/fastmove.py:_add_supply_kernel": 0.15,
    "scenario/fastnear.py:_near_box_kernel": 0.3,
    "scenario/fastnear.py:_near_kernel": 0.6,
    "scenario/fastnear.py:_near_pairs_kernel": 0.6,
    "scenario/fastnear.py:_least_apart_kernel": 0.3,
    "scenario/fastnear.py:_beyond_kernel": 0.3,
    "scenario/fastplace.py:_set_kernel": 1.0,
    "scenario/fastplace.py:_walk_kernel": 1.0,
    "scenario/fastplace.py:_clear_kernel": 0.3,
    "scenario/fastspots.py:_spots_kernel": 2.2,
    "scenario/fastranks.py:close_ranks_search": 8.3,
    "scenario/fasttables.py:_intern_kernel": 0.5,
    "scenario/fasttables.py:_move_kernel": 0.5,
    "scenario/fasttables.py:_pair_words_kernel": 0.6,
    "scenario/fasttables.py:_put_kernel": 0.2,
    "scenario/fasttables.py:_rehash_kernel": 0.2,
    "scenario/fastsim.py:_apply_kernel": 0.5,
    "scenario/fastsim.py:_enter_kernel": 0.15,
    "scenario/fastsim.py:_live_kernel": 0.15,
    "scenario/fastsim.py:_placed_kernel": 0.15,
    "scenario/fastsim.py:_keep_bits": 0.15,
    "scenario/fastsim.py:_planned_bits": 0.4,
    "scenario/fastsim.py:_uniforms_kernel": 0.25,
    "scenario/fastsim.py:_uniforms_rows_kernel": 0.2,
    "scenario/fastsim.py:_end_kernel": 0.2,
    "scenario/fasttables.py:_pair_slot": 0.15,
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
    """Where numba keeps the cache of the kernels of ``source`` (a .py path of the package): the folder
    :mod:`mathhammer.kernelcache`'s cache locator gives it (under a digest of the kernels' sources); None when numba
    caches nothing (no writable folder: numba's test, ``ensure_cache_path``)."""
    from .kernelcache import kernel_cache_folder, writable

    path = kernel_cache_folder(source)
    return path if path is not None and writable(path) else None


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


def _marker(module: str, function: str) -> tuple[str, bytes] | None:
    """Where :func:`announce` notes that the compile of ``function`` of ``module`` was announced (a file beside its
    cache), and what it writes there (this source's stamp and this numba's version); None where numba caches
    nothing."""
    source = str(PACKAGE / module)
    folder = cache_folder(source)
    if folder is None:
        return None
    return os.path.join(folder, f"{Path(module).stem}.{function}.announced"), _stamp(source) + _numba_version()


def announced(module: str, function: str) -> bool:
    """Was the compile of this kernel (this source, this numba) announced by an earlier run (:func:`announce`)? A
    run that announces a group compiles only the kernels its games call: the others stay missing, and a later
    run that calls one compiles it without a new notice (a few seconds), rather than every run repeating a
    notice of a compile it does not make."""
    mark = _marker(module, function)
    if mark is None:
        return False
    try:
        with open(mark[0], "rb") as f:
            return f.read() == mark[1]
    except OSError:
        return False


def _note_announced(kernels: list[tuple[str, str]]) -> None:
    """Write the :func:`announced` marker of each of ``kernels`` (silently skipped where the folder refuses it)."""
    for module, function in kernels:
        mark = _marker(module, function)
        if mark is not None:
            try:
                with open(mark[0], "wb") as f:
                    f.write(mark[1])
            except OSError:
                pass


def _load_factor() -> float:
    """How much slower than idle a compile runs now: the 1-minute load average per core, at least 1."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (AttributeError, OSError):  # pragma: no cover - no load average (Windows)
        return 1.0


def _seconds(kernel: tuple[str, str], every: bool = False) -> float:
    """:data:`COMPILE_SECONDS` of a kernel: its first signature, or (``every``) all those of :data:`SIGNATURES_FILE`,
    as :func:`compile_ahead` compiles them."""
    one = COMPILE_SECONDS.get(f"{kernel[0]}:{kernel[1]}", 1.0)
    return one * max(1, len(signatures().get(f"{kernel[0]}:{kernel[1]}", ()))) if every else one


def plan(kernels: Iterable[tuple[str, str]], processes: int) -> list[list[tuple[str, str]]]:
    """``kernels`` shared out among at most ``processes`` processes, the longest compile first to the least loaded
    (:data:`COMPILE_SECONDS`; with more than one process, for every signature); no process gets nothing."""
    every = processes > 1
    parts: list[list[tuple[str, str]]] = [[] for _ in range(max(1, processes))]
    loads = [0.0] * len(parts)
    for kernel in sorted(set(kernels), key=lambda k: (-_seconds(k, every), k)):
        i = loads.index(min(loads))
        parts[i].append(kernel)
        loads[i] += _seconds(kernel, every)
    return [p for p in parts if p]


def estimate(kernels: list[tuple[str, str]], processes: int = 1) -> float:
    """Seconds to compile ``kernels`` in ``processes`` processes at once (the longest share of :func:`plan`;
    :data:`COMPILE_SECONDS`, longer on a busy machine)."""
    shares = (sum(_seconds(k, processes > 1) for k in part) for part in plan(kernels, processes))
    return max(shares, default=0.0) * _load_factor()


def _threshold() -> float:
    try:
        return float(os.environ.get(NOTICE_ENV, NOTICE_SECONDS))
    except ValueError:
        return NOTICE_SECONDS


def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def notice(group: str, processes: int = 1) -> str | None:
    """The line announcing the compile of ``group``'s kernels missing from numba's cache and not
    :func:`announced` by an earlier run (in ``processes`` processes at once, as :func:`compile_ahead` shares them out),
    or None when it is estimated short (or off)."""
    if _jit_disabled():
        return None
    kernels = [k for k in missing(group) if not announced(*k)]
    seconds = estimate(kernels, processes)
    if not kernels or seconds <= _threshold():
        return None
    return (
        f"note: compiling the {WHAT[group]} once, about {max(1, round(seconds))} s "
        "(a first run only; `mathhammer warmup` compiles every kernel ahead)"
    )


def announce(group: str, processes: int = 1) -> None:
    """Print :func:`notice` for ``group`` on stderr, once a process, before its kernels are first called."""
    if group in _announced:
        return
    _announced.add(group)
    line = notice(group, processes)
    if line is not None:
        print(line, file=sys.stderr, flush=True)
        _note_announced(missing(group))  # said once: a later run repeats it only for a new source or numba


def silence() -> None:
    """No notice from this process (``mathhammer warmup`` says what it compiles itself)."""
    _announced.update(KERNELS)


#: The argument types each kernel is compiled for (numba's type reprs; the kernels of :data:`KERNELS`).
SIGNATURES_FILE = PACKAGE / "kernel_signatures.toml"


@cache
def signatures() -> dict[str, tuple[str, ...]]:
    """``{"module:function": (signature, ...)}`` from :data:`SIGNATURES_FILE`."""
    import tomllib

    with open(SIGNATURES_FILE, "rb") as f:
        table = tomllib.load(f)["signatures"]
    return {k: tuple(v) for k, v in table.items()}


def argument_types(text: str) -> tuple[Any, ...]:
    """A signature of :data:`SIGNATURES_FILE` as numba types: its repr evaluated among numba's types alone."""
    from numba.core import types

    return tuple(eval(text, {"__builtins__": {}}, dict(vars(types))))  # our own data file; no builtins


def cores() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Ahead(NamedTuple):
    """What :func:`compile_ahead` did: kernels compiled (and cached), in how many processes, and the CPU seconds
    of each process."""

    kernels: int
    processes: int
    cpu: tuple[float, ...] = ()


def _forkable() -> bool:
    """Can this process fork compile processes safely? (``fork`` exists and numba has started no threads: a
    forked copy of a thread pool deadlocks.)"""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return not getattr(parallel, "_is_initialized", False)


def compile_ahead(groups: Iterable[str], processes: int | None = None) -> Ahead:
    """Compile the kernels of ``groups`` missing from numba's cache in up to ``processes`` forked processes at
    once (default: every core), each its own share of :func:`plan`, for the argument types of
    :data:`SIGNATURES_FILE`; numba's cache then holds them and this process loads them when it first calls them.

    Each cache file has one writer: a process writes the cache of its own kernels only (the helpers they call
    are compiled into them, and not cached, in each process that needs them). With one process to use (one core,
    ``--workers 1``), or where forking is not safe, nothing is done: the run compiles its kernels as it goes.
    A process that fails leaves its kernels to be compiled as they are called.
    """
    if _jit_disabled():
        return Ahead(0, 0)
    known = signatures()
    kernels = [k for g in dict.fromkeys(groups) for k in missing(g) if f"{k[0]}:{k[1]}" in known]
    parts = plan(kernels, cores() if processes is None else processes)
    if len(parts) < 2 or not _forkable():
        return Ahead(0, 0)
    import multiprocessing
    import resource

    context = multiprocessing.get_context("fork")
    procs = [context.Process(target=_compile_part, args=(part,), daemon=True) for part in parts]
    cpu = []
    try:
        for proc in procs:
            proc.start()
        for proc in procs:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc.join()  # reaped now: the children's usage grows by this process's alone
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join()
    done = sum(len(part) for part, proc in zip(parts, procs, strict=True) if proc.exitcode == 0)
    return Ahead(done, len(parts), tuple(cpu))


def module_name(path: str) -> str:
    """The module of a kernel's path under the package (``scenario/fast.py`` -> ``mathhammer.scenario.fast``)."""
    return "mathhammer." + path.removesuffix(".py").replace("/", ".")


def _compile_part(part: list[tuple[str, str]]) -> None:
    """In a compile process: compile the kernels of ``part`` for their signatures; theirs are the only cache files
    this process writes. Exits with status 1, silently, on any failure (the run compiles them as it goes)."""
    try:
        import importlib

        from numba.core.caching import NullCache
        from numba.core.dispatcher import Dispatcher

        mine = [getattr(importlib.import_module(module_name(m)), f) for m, f in part]
        own = {id(d) for d in mine}
        for name, module in list(sys.modules.items()):
            if name.startswith("mathhammer.") and module is not None:
                for value in list(vars(module).values()):
                    if isinstance(value, Dispatcher) and id(value) not in own:
                        value._cache = NullCache()  # type: ignore[attr-defined]
        for (m, f), dispatcher in zip(part, mine, strict=True):
            for text in signatures()[f"{m}:{f}"]:
                dispatcher.compile(argument_types(text))
    except BaseException:
        sys.exit(1)


__all__ = [
    "COMPILE_SECONDS",
    "KERNELS",
    "NOTICE_SECONDS",
    "SIGNATURES_FILE",
    "Ahead",
    "announce",
    "announced",
    "cached",
    "compile_ahead",
    "cores",
    "estimate",
    "missing",
    "module_name",
    "notice",
    "plan",
    "signatures",
    "silence",
]
