"""An exact report sweep priced as a whole before any cell runs (issue 27 point 3): its cells' estimates from table
sizes (Grimdark Future's ``exact_seconds``: :func:`mathhammer.grimdark.exact.exact_cost`,
:func:`mathhammer.grimdark.melee_cost.melee_cost`) summed, on the cores it will use
(:func:`mathhammer.engine.budget.check_exact_sweep`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.engine.budget import BUDGET_ENV, BudgetError
from mathhammer.report import runner


def _roster_cells(system: str) -> list:
    p = runner.plan(roster=True, system=system)
    return list({c.key: c for c in p.cells if c.compiled is not None}.values())


def test_the_grimdark_roster_is_priced_and_starcraft_is_not() -> None:
    seconds = runner.exact_seconds(_roster_cells("gf"))
    assert seconds is not None and 0.1 < seconds < 60  # about 4.4 s estimated; the sweep takes about 4.3 s
    assert runner.exact_seconds(_roster_cells("starcraft")) is None  # its exact runs take milliseconds


def test_an_exact_sweep_past_the_budget_is_refused_before_any_cell_runs(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv(BUDGET_ENV, "0.01")
    runs: list[object] = []
    monkeypatch.setattr(runner, "compute", lambda cell, opts: runs.append(cell))
    with pytest.raises(BudgetError, match="this sweep") as refused:
        runner.sweep(roster=True, system="gf", scheduler="serial")
    assert runs == [] and "cells here" in str(refused.value) and "--trials N" in str(refused.value)
    r = CliRunner().invoke(app, ["report", "--roster", "--system", "gf", "--out", str(tmp_path / "R")])
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert r.stderr.startswith("error: --exact: got 'this sweep'; allowed: an exact sweep within the budget")
    assert len(r.stderr.splitlines()) == 1 and runs == [] and list(tmp_path.iterdir()) == []
