"""A report's Monte Carlo sweep is priced as a whole before any cell runs (issue 27, point 3): every cell may
fit the budget while the sweep does not."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.engine.budget import BUDGET_ENV, BudgetError, check_sweep, sweep_cost
from mathhammer.errors import InputError
from mathhammer.report import execute, plan, sweep
from mathhammer.report import runner as runner_module
from mathhammer.report.runner import _options
from tests.test_report import (
    ARMIES,
    DAELAAM,
    RECORDED_SC_2000_SEED_5,
    RECORDED_SC_TOLERANCE,
    TERRAN,
    _assert_recorded,
    _cells_of,
)

#: 85 cells (29 that can destroy their target): at --tolerance 0.0001 about 18 s on one core here, no cell over
#: about 2 s: each cell passes its own price under a budget of 5 s, the sweep does not.
ZERG_SIX = ARMIES / "zerg_six.toml"


def _report(tmp_path, *flags: str):
    return CliRunner().invoke(app, ["report", str(TERRAN), str(ZERG_SIX), "--out", str(tmp_path / "R"), *flags])


def _counted_runs(monkeypatch) -> list:
    """The options of every cell the report computes from now on (the pilots' included)."""
    runs: list = []
    compute = runner_module.compute

    def counted(cell, options):
        runs.append(options)
        return compute(cell, options)

    monkeypatch.setattr(runner_module, "compute", counted)
    return runs


@pytest.mark.parametrize(
    ("flags", "start"),
    [
        # the pilots' measured speed decides which of the two answers fits (both are the budget's, doctested in
        # engine/budget.py): on a loaded machine even the pilots' own tolerance is past 5 s, so no tolerance fits
        (
            ["--tolerance", "0.0001"],
            r"error: --tolerance: got '0\.0001'; allowed: (at least [0-9.e-]+ for this sweep, or --trials N "
            r"|none for this sweep here, or --trials N with N at most about [0-9,]+ )\(needs about ",
        ),
        (
            ["--trials", "20000000"],
            r"error: --trials: got '20000000'; allowed: at most about [0-9,]+ for this sweep, or --tolerance E "
            r"\(needs about ",
        ),
    ],
)
def test_a_sweep_past_the_budget_is_refused_before_it_runs(tmp_path, monkeypatch, flags, start) -> None:
    monkeypatch.setenv(BUDGET_ENV, "5")
    runs = _counted_runs(monkeypatch)
    result = _report(tmp_path, *flags, "--serial")
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.match(start, lines[0]), lines  # the whole sweep's price, not one cell's
    assert " cells, " in lines[0] and BUDGET_ENV in lines[0]
    assert "Traceback" not in result.output and result.stdout == ""
    assert runs and all(o.tolerance is None and o.trials <= 100_000 for o in runs)  # the pilots only, no cell ran
    assert list(tmp_path.iterdir()) == []  # no report folder, no hidden temporary


def test_the_refusal_comes_before_any_cell_runs(monkeypatch) -> None:
    monkeypatch.setenv(BUDGET_ENV, "20")
    runs = _counted_runs(monkeypatch)
    with pytest.raises(BudgetError) as refused:
        sweep(TERRAN, DAELAAM, tolerance=1e-6, scheduler="serial")
    assert refused.value.field == "tolerance"  # the Python argument's name
    message = str(refused.value)
    assert "allowed: at least " in message and "for this sweep, or trials N (needs about " in message
    assert runs and all(o.tolerance is None and o.trials <= 100_000 for o in runs)  # pilots only
    with pytest.raises(BudgetError, match=r"^--trials: .* or --tolerance E "):
        execute(plan([TERRAN, DAELAAM]).cells, _options(10**9, None, 0), "serial", names={"trials": "--trials"})


def test_a_sweep_that_fits_is_priced_and_unchanged(monkeypatch) -> None:
    """The pilots are forced (every sweep is piloted) and change no figure: the recorded ones of test_report."""
    monkeypatch.setattr(runner_module, "UNPILOTED_TRIALS_PER_SECOND", 1e-9)
    priced = []
    price = runner_module.price
    monkeypatch.setattr(runner_module, "price", lambda *a: priced.append(price(*a)) or priced[-1])
    p = plan([TERRAN, DAELAAM])
    cells = _cells_of(p, RECORDED_SC_2000_SEED_5)
    figures, _ = execute(cells, _options(2000, None, 5), "serial")
    _assert_recorded({(c.side, c.phase, c.attacker.label, c.target.label): figures[c.key] for c in cells},
                     RECORDED_SC_2000_SEED_5)  # fmt: skip
    cells = _cells_of(plan([ARMIES / "zerg_skirmish.toml", TERRAN]), RECORDED_SC_TOLERANCE)
    figures, _ = execute(cells, _options(None, 0.0004, 9), "serial")
    _assert_recorded({(c.side, c.phase, c.attacker.label, c.target.label): figures[c.key] for c in cells},
                     RECORDED_SC_TOLERANCE)  # fmt: skip
    assert len(priced) == 2 and all(x is not None and x.seconds > 0 for x in priced)
    assert {p[0] for p in priced[0].pilots} == {2000}  # a pilot is never more than the run
    assert {p[0] for p in priced[1].pilots} <= {6250, 100_000}


def test_a_short_sweep_is_not_piloted(monkeypatch) -> None:
    def no_pilot(*_args):
        raise AssertionError("piloted")

    monkeypatch.setattr(runner_module, "pilots", no_pilot)
    figures, where = execute(plan([TERRAN, DAELAAM]).cells[:4], _options(1000, None, 0), "serial")
    assert where == "serial" and figures


def test_a_cells_own_refusal_names_the_flag(tmp_path, monkeypatch) -> None:
    import mathhammer.report

    def refused(*_args, **_kwargs):
        raise BudgetError("tolerance", 1e-6, "at least 0.001 here, or a number of trials")

    monkeypatch.setattr(mathhammer.report, "sweep", refused)
    result = _report(tmp_path, "--tolerance", "0.000001")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --tolerance: got '1e-06'; allowed: at least 0.001")
    assert list(tmp_path.iterdir()) == []


def test_check_sweep_prices_cores_and_bounds(monkeypatch) -> None:
    monkeypatch.setenv(BUDGET_ENV, "10")
    cells = [(1000, 0.01, 0.01)] * 10  # 1e-5 s a trial; tolerance 1e-3: 100,000 trials, 1 s a cell
    assert sweep_cost(cells, 1e-3, (1000, 10**9)) == pytest.approx((1e6, 10.0))
    check_sweep("tolerance", 1e-3, cells, 1, (1000, 10**9))  # 10 s: fits
    fits = r"at least 0\.001 for this sweep, or trials N \(needs about 4e\+06 trials in 10 cells, ~40 s"
    with pytest.raises(BudgetError, match=fits):
        check_sweep("tolerance", 5e-4, cells, 1, (1000, 10**9))  # 40 s on one core
    check_sweep("tolerance", 5e-4, cells, 4, (1000, 10**9))  # 10 s on four
    none = r"allowed: none for this sweep here, or trials N with N at most about 100,000 "
    with pytest.raises(BudgetError, match=none):
        check_sweep("tolerance", 5e-4, cells, 1, (10**6, 10**9))  # even the least trials a cell do not fit
    with pytest.raises(BudgetError, match=r"allowed: at most about 100,000 for this sweep, or tolerance E"):
        check_sweep("trials", 200_000, cells, 1)
    with pytest.raises(InputError, match=BUDGET_ENV):
        monkeypatch.setenv(BUDGET_ENV, "-1")
        check_sweep("trials", 1, cells, 1)


def test_a_cell_past_its_own_price_is_refused_up_front(monkeypatch) -> None:
    """A sweep that fits with its cells capped is still refused before it runs when one cell would refuse
    itself (its own price counts every trial it needs, as its run would find later)."""
    monkeypatch.setenv(BUDGET_ENV, "10")
    priced = object.__new__(runner_module._Price)
    priced.field, priced.value, priced.bounds = "--tolerance", 1e-4, (1000, 10**6)
    priced.pilots = [(1000, 0.01, 0.01)]  # 1e7 trials needed, 10**6 run: 10 s priced, 100 s its own
    with pytest.raises(BudgetError, match=r"^--tolerance: got '0\.0001'; allowed: at least 0\.0005 here"):
        priced.check(1)
    priced.bounds, priced.value, priced.field = None, 10**6, "--trials"  # 10 s: fits both ways
    priced.check(1)
