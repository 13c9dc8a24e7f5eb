"""Monte Carlo runs priced before they are paid for, and stopped by Ctrl-C (issue 27 point 3)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.engine import budget
from mathhammer.engine.adaptive import until
from mathhammer.engine.budget import BudgetError
from mathhammer.engine.histograms import super_blocks
from tests.signals import AS_FROM_A_TERMINAL

runner = CliRunner()


def refused(args: list[str], flag: str) -> str:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    # a first run's compile notice (one "note:" line, before the work starts) may precede the refusal
    lines = [line for line in r.stderr.strip().splitlines() if not line.startswith("note: compiling")]
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}: got "), r.stderr
    assert "needs" in lines[0] and budget.BUDGET_ENV in lines[0] and r.stdout == ""
    return lines[0]


def test_trials_past_the_budget_are_refused_with_the_estimate():
    runner.invoke(app, ["attack", "--trials", "1000"])  # the kernels compiled first: the refusal is what is timed
    start = time.perf_counter()
    line = refused(["attack", "--trials", "274877906944"], "--trials")
    assert "at most about" in line
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize("system", [[], ["--system", "gf"]])
def test_a_tolerance_past_the_budget_is_refused_with_the_trials_it_needs(system):
    line = refused(["attack", *system, "--tolerance", "0.000001"], "--tolerance")
    assert "trials" in line and "at least" in line


def test_the_budget_is_overridable(monkeypatch):
    monkeypatch.setenv(budget.BUDGET_ENV, "1e9")
    assert budget.budget_seconds() == 1e9
    monkeypatch.setenv(budget.BUDGET_ENV, "soon")
    with pytest.raises(budget.InputError, match=budget.BUDGET_ENV):
        budget.budget_seconds()
    monkeypatch.delenv(budget.BUDGET_ENV)
    assert budget.budget_seconds() == budget.BUDGET_SECONDS


def test_blocks_cover_the_range_and_grow(monkeypatch):
    monkeypatch.setattr(budget, "FIRST_BLOCK", 4)
    seen = list(super_blocks(3, 1000, 64))
    assert seen[0] == (3, 4)
    assert sum(n for _, n in seen) == 997 and all(a + n == b for (a, n), (b, _) in itertools.pairwise(seen))
    assert max(n for _, n in seen) == 64


def test_slow_blocks_are_priced_and_refused(monkeypatch):
    monkeypatch.setenv(budget.BUDGET_ENV, "1")
    monkeypatch.setattr(budget, "FIRST_BLOCK", 10)
    monkeypatch.setattr(budget, "BLOCK_SECONDS", 0.05)
    done = 0
    with pytest.raises(BudgetError, match=r"^trials: got '100000'.*at most about"):
        for _, n in super_blocks(0, 100_000, 10):
            time.sleep(0.05)  # 5 ms a trial: 100,000 trials need ~8 min
            done += n
    assert done == 20  # the first block (untimed) and one priced block


def _sleeping_run(seen: list[int]):
    """A run to ``n`` trials that takes 1 us a trial and notes ``n`` in ``seen``."""

    def run_to(n: int) -> int:
        seen.append(n)
        time.sleep(n * 1e-6)
        return n

    return run_to


def test_a_pilot_prices_the_tolerance_and_leaves_the_result_alone(monkeypatch):
    seen: list[int] = []
    run_to = _sleeping_run(seen)

    def error(n: int) -> float:
        return 1 / n**0.5

    assert until(run_to, error, 0.001, min_trials=16_000, max_trials=10**9) == 1_024_000
    assert seen[:2] == [256, 1000] and seen[2:] == [16_000 * 2**k for k in range(7)]
    monkeypatch.setenv(budget.BUDGET_ENV, "5")
    with pytest.raises(BudgetError, match=r"tolerance: got '1e-05'.*needs about 1e\+10 trials"):
        until(run_to, error, 1e-5, min_trials=16_000, max_trials=10**12)


GF_LONG_RUN = ["--system", "gf", "--models", "200", "--attacks", "10", "--target-models", "500"]


@pytest.mark.parametrize("system", [[], GF_LONG_RUN], ids=["starcraft", "grimdark"])
def test_ctrl_c_stops_a_long_run_within_a_second(system: list[str]):
    """Both systems' Monte Carlo runs go in timed blocks: SIGINT stops them within about a second, exit 130."""
    env = {**os.environ, budget.BUDGET_ENV: "1e9"}
    # the kernels compiled first (a fresh numba cache under load: tens of seconds of LLVM, which no signal cuts short)
    warm = [sys.executable, "-m", "mathhammer", "attack", *system, "--trials", "100000", "--json"]
    subprocess.run(warm, env=env, capture_output=True, check=True, timeout=600)
    cmd = [sys.executable, "-c", AS_FROM_A_TERMINAL, "attack", *system, "--trials", "100000000000"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(8)  # startup, kernels loaded, blocks at full size
        assert proc.poll() is None
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.perf_counter() - sent
    finally:
        proc.kill()
        proc.communicate()  # its pipes closed here, not reported unclosed during a later test
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and out == b""
    assert took < 2.0  # about a second (blocks of BLOCK_SECONDS), with room for a loaded machine


def test_a_run_is_priced_again_at_each_check(monkeypatch):
    """A pilot that saw no rare event (standard error 0) is no licence: the first check prices the run."""
    seen: list[int] = []
    run_to = _sleeping_run(seen)

    def error(n: int) -> float:
        return 0.0 if n <= 1000 else 1e-2 / n**0.5

    monkeypatch.setenv(budget.BUDGET_ENV, "5")
    with pytest.raises(BudgetError, match=r"tolerance: got '1e-07'.*needs about 1e\+10 trials"):
        until(run_to, error, 1e-7, min_trials=16_000, max_trials=10**12)
    assert seen == [256, 1000, 16_000]


def test_a_run_in_one_piece_is_priced_by_pilots(monkeypatch):
    seen: list[int] = []

    def run_to(n: int) -> int:
        seen.append(n)
        time.sleep(n * 2e-6)
        return n

    budget.check_whole_run(run_to, budget.WHOLE_RUN_UNPRICED)  # small runs: no pilot
    assert seen == []
    monkeypatch.setenv(budget.BUDGET_ENV, "10")
    with pytest.raises(BudgetError, match=r"^trials: got '100000000'; allowed: at most about [0-9,]+ here"):
        budget.check_whole_run(run_to, 10**8)  # 2 us a trial: 200 s
    assert seen[0] == budget.FIRST_BLOCK and seen[-1] * 2e-6 >= budget.BLOCK_SECONDS / 2
    seen.clear()
    budget.check_whole_run(run_to, 2 * 10**6)  # 4 s: fits; pilots stop at 1/16 of the run
    assert sum(seen[1:]) <= 2 * 10**6 // 16


def test_grimdark_trials_past_the_budget_are_refused():
    line = refused(["attack", "--system", "gf", "--trials", "274877906944"], "--trials")
    assert "at most about" in line
