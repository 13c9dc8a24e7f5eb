"""The numba kernels of ``mathhammer warmup`` compiled at the start of a whole-suite xdist run, in the background.

From an empty ``NUMBA_CACHE_DIR`` (CI, a fresh clone) the kernels were compiled by whichever worker met them first,
one after another in that worker (``test_cli_fuzz[warmup]`` compiled nearly all of them, some 45 CPU seconds),
while the other worker, needing one of them, waited on its lock (``compile_once``) with its core idle. Here the
pytest-xdist controller starts, before the workers, two processes that run ``mathhammer warmup``'s steps split
between them by the compile seconds :data:`mathhammer.jit.COMPILE_SECONDS` lists: both cores compile while the
workers start up and run the tests that need no kernel. The two processes take the same per-kernel locks as the
workers (``compile_once``), so a kernel is still compiled once in all: a worker that needs one being compiled waits
and loads it from the cache; one the worker reached first is loaded by the precompiling process.

Only a run of the whole suite (the README's ``python -m pytest -q``: no paths given, so the ``testpaths``) on at
least two workers, with some kernel not yet in the cache, starts them; ``python -m pytest tests/test_x.py`` does
not; ``MATHHAMMER_TEST_PRECOMPILE=0`` turns it off (to time the suite both ways). What they printed on stderr is
shown at the end of the run if one failed (the tests that use the kernels fail on their own); one still running
when the run ends (``-x``, Ctrl-C) is stopped.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: ``0`` here: no precompiling processes.
ENV = "MATHHAMMER_TEST_PRECOMPILE"
#: The controller's precompiling processes, with the file holding each one's stderr.
KEY = pytest.StashKey[list[tuple[subprocess.Popen[bytes], Path]]]()

CODE = """
import sys
sys.path.insert(0, {root!r})
from pathlib import Path
from tests.plugins import compile_once
compile_once.install(Path({locks!r}))
from mathhammer import jit
from mathhammer.warmup import STEPS
jit.silence()
for what, groups, step in STEPS:
    if what in {names!r}:
        step()
"""


def split(steps: Sequence[tuple[str, float]], parts: int) -> list[list[str]]:
    """The steps' names dealt to ``parts`` processes, longest first to the one with the least seconds so far; each
    process's list in the steps' own order (empty lists dropped)."""
    load = [0.0] * parts
    names: list[set[str]] = [set() for _ in range(parts)]
    for name, seconds in sorted(steps, key=lambda s: -s[1]):
        p = min(range(parts), key=lambda p: (load[p], p))
        names[p].add(name)
        load[p] += seconds
    return [[n for n, _ in steps if n in part] for part in names if part]


def plan(parts: int = 2) -> list[list[str]]:
    """The warmup steps with a kernel missing from the cache, split by their listed compile seconds."""
    from mathhammer import jit
    from mathhammer.warmup import STEPS

    steps = []
    for what, groups, _ in STEPS:
        kernels = {k for g in groups for k in jit.missing(g)}
        if kernels:
            steps.append((what, sum(jit.COMPILE_SECONDS.get(f"{m}:{f}", 1.0) for m, f in kernels)))
    return split(steps, parts)


def start(names: list[str], cache: Path, log: Path) -> subprocess.Popen[bytes]:
    """A process running the warmup steps ``names`` into ``cache``, under the workers' per-kernel locks."""
    code = CODE.format(root=str(ROOT), locks=str(cache / "compile-locks"), names=names)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    with open(log, "wb") as err:
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=err)


def wanted(config: pytest.Config) -> bool:
    """The controller of a whole-suite run on at least two xdist workers, numba compiling."""
    if hasattr(config, "workerinput") or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    if os.environ.get(ENV, "1") == "0":
        return False
    workers = getattr(config.option, "numprocesses", None)
    dist = getattr(config.option, "dist", "no")
    if not isinstance(workers, int) or workers < 2 or dist == "no":
        return False
    return config.args_source == pytest.Config.ArgsSource.TESTPATHS


def begin(config: pytest.Config) -> None:
    """In :func:`wanted` runs, with ``NUMBA_CACHE_DIR`` set: the precompiling processes, one per worker (at most)."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache or not wanted(config):
        return
    procs = []
    for names in plan(min(2, config.option.numprocesses)):
        fd, log = tempfile.mkstemp(prefix="precompile-", suffix=".log", dir=cache)
        os.close(fd)
        procs.append((start(names, Path(cache), Path(log)), Path(log)))
    config.stash[KEY] = procs


def report(config: pytest.Config, terminal: Any) -> None:
    """At the end of the run: a failed precompiling process's stderr."""
    for proc, log in config.stash.get(KEY, []):
        if proc.poll() not in (None, 0):
            terminal.write_sep("-", f"precompiling numba kernels failed (exit {proc.returncode})")
            terminal.write_line(log.read_text(errors="replace")[-4000:])


def end(config: pytest.Config) -> None:
    """Stop a precompiling process still running (the run stopped early)."""
    for proc, _ in config.stash.get(KEY, []):
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
