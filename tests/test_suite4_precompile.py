"""Issue 28 point 3: warmup's kernels compiled in the background at the start of a whole-suite xdist run
(tests/plugins/precompile.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mathhammer import jit

from .plugins import compile_once, precompile

WHOLE = pytest.Config.ArgsSource.TESTPATHS


def test_steps_are_split_longest_first_to_the_least_loaded_process() -> None:
    steps = [("a", 1.7), ("b", 3.0), ("c", 3.0), ("d", 4.0), ("e", 4.0), ("scen", 21.3)]
    # scen (21.3) to the first, then d, e, b, c, a (15.7 s in all) to the second, each list in the steps' order
    assert precompile.split(steps, 2) == [["scen"], ["a", "b", "c", "d", "e"]]
    assert precompile.split([("a", 5.0), ("b", 4.0), ("c", 3.0), ("d", 2.0)], 2) == [["a", "d"], ["b", "c"]]
    assert precompile.split([("a", 1.0)], 2) == [["a"]]  # no empty process
    assert precompile.split([], 2) == []


def _config(workers: Any = 2, dist: str = "worksteal", source: Any = WHOLE, worker: bool = False) -> Any:
    config = SimpleNamespace(option=SimpleNamespace(numprocesses=workers, dist=dist), args_source=source)
    if worker:
        config.workerinput = {"workerid": "gw0"}
    return config


def test_only_the_controller_of_a_whole_suite_run_on_several_workers_precompiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.delenv(precompile.ENV, raising=False)
    assert precompile.wanted(_config())
    assert not precompile.wanted(_config(source=pytest.Config.ArgsSource.ARGS))  # python -m pytest tests/test_x.py
    assert not precompile.wanted(_config(workers=0))  # -n 0
    assert not precompile.wanted(_config(workers=1))
    assert not precompile.wanted(_config(workers=None))  # -p no:xdist
    assert not precompile.wanted(_config(dist="no"))
    assert not precompile.wanted(_config(worker=True))
    monkeypatch.setenv(precompile.ENV, "0")  # off, to time the suite both ways
    assert not precompile.wanted(_config())
    monkeypatch.setenv(precompile.ENV, "1")
    assert precompile.wanted(_config())
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert not precompile.wanted(_config())


def test_nothing_is_planned_when_every_kernel_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit, "missing", lambda group: [])
    assert precompile.plan() == []
    monkeypatch.setattr(jit, "missing", lambda group: list(jit.KERNELS[group]) if group == "grimdark-melee" else [])
    from mathhammer.warmup import STEPS

    assert precompile.plan() == [[what for what, groups, _ in STEPS if "grimdark-melee" in groups]]


def test_a_precompiling_process_fills_the_cache_under_the_workers_locks(tmp_path: Path) -> None:
    """A real process for one cheap step (the StarCraft single-thread kernel: 2-5 s of compile): the kernel is in
    the cache afterwards, where jit looks, and it was compiled under its compile_once lock (the lock file left)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    proc = precompile.start(["StarCraft TMG Monte Carlo, single thread"], cache, tmp_path / "log")
    assert proc.wait(timeout=600) == 0, (tmp_path / "log").read_text()
    module, function = jit.KERNELS["starcraft"][0]
    key = "mathhammer." + module.removesuffix(".py").replace("/", ".") + "." + function
    assert compile_once._lock_path(cache / "compile-locks", key).exists()
    code = "from mathhammer import jit; print(jit.missing('starcraft'), jit.missing('grimdark'))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == f"[] {list(jit.KERNELS['grimdark'])}"  # that step's kernel only
