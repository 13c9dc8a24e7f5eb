"""The Grimdark Future exact engine priced before it runs (issue 27 point 3: "Every run whose cost can be estimated
(exact table sizes, ...) is estimated before it starts; beyond a documented budget it is refused with the estimate
and what to change"): :func:`mathhammer.grimdark.exact.exact_cost` and :func:`check_exact_cost`."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mathhammer.engine import budget
from mathhammer.engine.budget import BudgetError
from mathhammer.grimdark.compiled import compile_attack
from mathhammer.grimdark.exact import EXACT_MEMORY_MAX, exact_cost, grimdark_exact
from mathhammer.grimdark.model import Attacker, Defender, Weapon, WeaponGroup


def _attack(models: int, attacks: int, rules: tuple[str, ...] = ()) -> Attacker:
    return Attacker((WeaponGroup(models, Weapon(attacks=attacks, rules=rules)),), quality=4)


def test_the_estimate_grows_with_the_states_and_the_dice() -> None:
    small = exact_cost(compile_attack(_attack(10, 2), Defender(models=10, defense=4)))
    more_dice = exact_cost(compile_attack(_attack(100, 2), Defender(models=10, defense=4)))
    more_states = exact_cost(compile_attack(_attack(10, 2), Defender(models=100, defense=4, tough=3)))
    assert small[0] < more_dice[0] and small[0] < more_states[0]
    assert small[1] == more_dice[1] < more_states[1]  # memory: the states only
    assert small[0] < 0.01  # the everyday sizes cost nothing to check


def test_the_largest_unit_fits_the_memory_budget() -> None:
    """A target holds at most 4,000 wounds (the models' own check), so the chain's matrices stay under
    :data:`EXACT_MEMORY_MAX`; the time is what a large attack is refused for."""
    _, size = exact_cost(compile_attack(_attack(999, 10), Defender(models=400, defense=4, tough=10)))
    assert 0.5 * 2**30 < size < EXACT_MEMORY_MAX


def test_a_run_past_the_time_budget_is_refused_and_within_it_runs(monkeypatch) -> None:
    attacker, target = _attack(200, 10), Defender(models=100, defense=4, tough=3)
    seconds, _ = exact_cost(compile_attack(attacker, target))
    monkeypatch.setenv(budget.BUDGET_ENV, str(seconds / 2))
    with pytest.raises(BudgetError, match="needs about"):
        grimdark_exact(attacker, target)
    monkeypatch.setenv(budget.BUDGET_ENV, str(seconds * 2))
    assert grimdark_exact(attacker, target).wounds.sum() == pytest.approx(1.0)


def test_the_cli_refuses_with_one_line_and_exit_2() -> None:
    cmd = [sys.executable, "-m", "mathhammer", "attack", "--system", "gf", "--models", "999", "--attacks", "10"]
    cmd += ["--target-models", "400", "--target-tough", "10", "--json"]  # estimated at about 2 min
    env = {**os.environ, budget.BUDGET_ENV: "60"}
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, env=env)
    assert time.perf_counter() - start < 60  # refused, not run
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --exact: got 'this attack'")
