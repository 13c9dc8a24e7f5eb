"""Issue 28 point 2: a first ``scenario run`` compiles its kernels in one process a core (:func:`jit.compile_ahead`).

The kernels missing from numba's cache are shared out among the processes (longest compile first), each process
compiles its own for the argument types of ``mathhammer/kernel_signatures.toml`` and writes their cache files alone;
the run then loads every kernel from the cache. Counted, not timed: which functions numba compiles, which cache
files exist. The one subprocess test compiles the scenario kernels from an empty cache (about 14 s of CPU on 2
processes on an idle 2-core machine, 20-40 s of wall time under load).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mathhammer import jit

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = list(jit.KERNELS["scenario"])


def test_plan_shares_kernels_longest_first_and_gives_no_process_nothing() -> None:
    parts = jit.plan(SCENARIO, 2)
    assert len(parts) == 2
    assert sorted(k for part in parts for k in part) == sorted(SCENARIO)  # each kernel once
    loads = sorted(sum(jit._seconds(k, True) for k in part) for part in parts)  # every signature: compiled ahead
    # longest first to the least loaded: the shares differ by at most the shortest kernel of the larger share
    larger = max(parts, key=lambda part: sum(jit._seconds(k, True) for k in part))
    assert loads[1] - loads[0] <= min(jit._seconds(k, True) for k in larger) + 1e-9
    assert max(SCENARIO, key=lambda k: jit._seconds(k)) in parts[0]  # the longest goes first
    assert jit.plan(SCENARIO, 1) == [sorted(SCENARIO, key=lambda k: (-jit._seconds(k), k))]
    assert len(jit.plan(SCENARIO[:3], 8)) == 3
    assert jit.plan([], 2) == []


def test_the_estimate_is_the_longest_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit, "_load_factor", lambda: 2.0)
    serial = sum(jit._seconds(k) for k in SCENARIO)
    assert jit.estimate(SCENARIO) == pytest.approx(2 * serial)
    shares = [sum(jit._seconds(k, True) for k in part) for part in jit.plan(SCENARIO, 2)]
    assert jit.estimate(SCENARIO, 2) == pytest.approx(2 * max(shares))
    assert serial / 2 <= max(shares) < 0.6 * serial
    supply = ("scenario/fastcontrol.py", "_supply_kernel")  # two signatures, both compiled ahead
    assert jit._seconds(supply, True) == 2 * jit._seconds(supply) == 2 * jit.COMPILE_SECONDS[":".join(supply)]


def test_the_notice_counts_the_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(jit.NOTICE_ENV, "0")
    monkeypatch.setattr(jit, "_load_factor", lambda: 1.0)
    jit.cache_folder.cache_clear()
    try:
        one, two = jit.notice("scenario"), jit.notice("scenario", 2)
        assert one is not None and f"about {round(jit.estimate(SCENARIO))} s" in one
        assert two is not None and f"about {round(jit.estimate(SCENARIO, 2))} s" in two
    finally:
        jit.cache_folder.cache_clear()


def test_the_signature_file_covers_every_kernel_and_reads_back() -> None:
    table = jit.signatures()
    assert set(table) == {f"{m}:{f}" for group in jit.KERNELS.values() for m, f in group}
    for kernel, sigs in table.items():
        assert sigs, kernel
        for text in sigs:
            assert repr(jit.argument_types(text)) == text  # numba's types, read back exactly


def test_the_signature_file_names_no_builtins() -> None:
    with pytest.raises(NameError):
        jit.argument_types("(__import__('os'),)")


def test_one_process_compiles_nothing_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One core or ``--workers 1``: no compile process (the run compiles as it goes); nothing forked, nothing
    written."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    jit.cache_folder.cache_clear()
    try:
        assert jit.compile_ahead(["scenario"], 1) == jit.Ahead(0, 0)
        assert not list(tmp_path.rglob("*.nbi"))
    finally:
        jit.cache_folder.cache_clear()


AHEAD = "from mathhammer import jit; print(tuple(jit.compile_ahead(['scenario'], 2)))"

RUN = """
import json
from pathlib import Path
from numba.core import event
from mathhammer import jit
from mathhammer.scenario import simulate
from mathhammer.scenario.loader import builtin_scenarios

compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        func = ev.data["dispatcher"].py_func
        compiled.append(f"{func.__module__}.{func.__qualname__}")

event.register("numba:compile", Compiles())
for path in builtin_scenarios():
    simulate(Path(path), trials=20, seed=0, workers=1)
import importlib
sigs = {f"{m}:{f}": [repr(s) for s in getattr(importlib.import_module(jit.module_name(m)), f).signatures]
        for m, f in jit.KERNELS["scenario"]}
print(json.dumps({"compiled": sorted(set(compiled)), "signatures": sigs}))
"""


def test_the_kernels_compiled_ahead_load_in_the_run_without_a_compile(tmp_path: Path) -> None:
    """From an empty cache: two processes compile the scenario kernels; only the kernels' own cache files are
    written (the helpers they call are compiled into them, not cached: one writer a file); the built-in scenarios
    then compile nothing of mathhammer, and call each kernel with the argument types of the file."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    ahead = subprocess.run([sys.executable, "-c", AHEAD], env=env, capture_output=True, text=True, timeout=900)
    assert ahead.returncode == 0 and ahead.stderr == "", ahead.stderr
    kernels, processes, cpu = eval(ahead.stdout)
    assert (kernels, processes, len(cpu)) == (len(SCENARIO), 2, 2) and min(cpu) > 0
    indexes = {p.name.split(".")[1].split("-")[0] for p in tmp_path.rglob("*.nbi")}
    assert indexes == {f for _, f in SCENARIO}
    run = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert [name for name in seen["compiled"] if name.startswith("mathhammer.")] == []
    table = jit.signatures()
    # every type a run calls a kernel with was compiled ahead; the file may hold more for a path these short runs
    # do not take (``_by_id_kernel`` is called from Python only by a Move among trials on several boards,
    # ``sim_move._alike``), and a kernel the runs do call has no type they do not use
    for kernel, sigs in seen["signatures"].items():
        assert set(sigs) <= set(table[kernel]), kernel
        assert not sigs or set(sigs) == set(table[kernel]), kernel
