"""Budgets: what a run may cost, estimated before it is paid for, and refused beyond the limit.

Every run whose cost can be estimated is, before the bulk of it starts:

- **Monte Carlo with a number of trials**: the first blocks of the run
  (:func:`~mathhammer.engine.histograms.super_blocks`) measure the rate; beyond
  :func:`budget_seconds` for the trials left, the run stops with the estimate and the
  number of trials that would fit.
- **Monte Carlo in one piece** (a kernel call for all the trials, where a caller has one): pilots before it
  (:func:`check_whole_run`); such a run cannot be stopped by Ctrl-C until it ends. Both systems' engines now
  run in blocks (above).
- **Exact Grimdark Future attacks**: the chain's products (:func:`mathhammer.grimdark.exact.exact_cost`); a melee
  resolved both ways: its chains' products per state and its joint table
  (:func:`mathhammer.grimdark.melee_cost.melee_cost`). An exact report sweep: its cells' estimates summed
  (a system's ``exact_seconds``), on the cores it will use (:func:`check_exact_sweep`).
- **Monte Carlo to a tolerance**: a pilot of ``min_trials / 16`` trials
  (:func:`~mathhammer.engine.adaptive.until`) gives the standard error and the rate; the
  trials needed are ``pilot x (SE / tolerance)^2``.
- **A sweep of cells** (``report``): a pilot of every cell, then the trials and time of the whole sweep
  on the cores it will use (:func:`check_sweep`), before any cell runs: every cell may fit the budget
  while the sweep does not.
- **Profile folders** (:data:`PROFILE_FILES_MAX`, :data:`PROFILE_DIRS_MAX`, :data:`PROFILE_DEPTH_MAX`) and **board
  problems** (:data:`PROBLEMS_SHOWN`) are bounded by their loaders.

The time budget is :data:`BUDGET_SECONDS`, or the environment variable :data:`BUDGET_ENV`
(seconds) when set. Long runs go in blocks of about :data:`BLOCK_SECONDS` each, so Ctrl-C
stops them within about a second (exit 130).

>>> duration(72_000), duration(125), duration(3.2)
('~20 h', '~2 min', '~3 s')
>>> about(4.2e12), about(31_500)
('4e+12', '31,500')
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence

from ..errors import InputError

#: Most seconds one Monte Carlo run may be estimated to take (10 minutes).
BUDGET_SECONDS = 600.0
#: Environment variable that overrides :data:`BUDGET_SECONDS` (a number of seconds).
BUDGET_ENV = "MATHHAMMER_BUDGET_SECONDS"
#: Seconds of work a block of trials aims at: how soon Ctrl-C is noticed.
BLOCK_SECONDS = 0.5
#: Trials of a run's first block (it also loads the compiled kernels, so it is not timed).
FIRST_BLOCK = 1024
#: Runs in one piece (:func:`check_whole_run`) of at most this many trials are not priced.
WHOLE_RUN_UNPRICED = 2**20
#: Most ``.toml`` files a profile folder may hold (a whole disk by mistake: thousands).
PROFILE_FILES_MAX = 500
#: Most folders a profile folder may hold, itself included.
PROFILE_DIRS_MAX = 2000
#: Most folder levels below a profile folder.
PROFILE_DEPTH_MAX = 6
#: Problem lines a board file reports before ``... and N more``.
PROBLEMS_SHOWN = 20

__all__ = [
    "BLOCK_SECONDS",
    "BUDGET_ENV",
    "BUDGET_SECONDS",
    "FIRST_BLOCK",
    "PROBLEMS_SHOWN",
    "PROFILE_DEPTH_MAX",
    "PROFILE_DIRS_MAX",
    "PROFILE_FILES_MAX",
    "WHOLE_RUN_UNPRICED",
    "BudgetError",
    "about",
    "budget_seconds",
    "check_exact_sweep",
    "check_sweep",
    "check_tolerance_run",
    "check_trials_left",
    "check_whole_run",
    "duration",
    "shown_problems",
    "sweep_cost",
]


class BudgetError(InputError):
    """A run refused because its estimated cost is beyond the budget."""


def budget_seconds() -> float:
    """:data:`BUDGET_SECONDS`, or :data:`BUDGET_ENV` when set (a positive number of seconds)."""
    raw = os.environ.get(BUDGET_ENV)
    if raw is None or raw.strip() == "":
        return BUDGET_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise InputError(BUDGET_ENV, raw, "a number of seconds above 0")
    return value


def duration(seconds: float) -> str:
    """A rough length of time for people: ``~3 s``, ``~2 min``, ``~20 h``, ``~12 days``, ``~7 years``."""
    for size, unit in ((365 * 86_400, "years"), (86_400, "days"), (3600, "h"), (60, "min")):
        if seconds >= 2 * size:
            return f"~{seconds / size:.0f} {unit}"
    return f"~{max(1.0, seconds):.0f} s"


def about(n: float) -> str:
    """A count for people: ``31,500``, or ``4e+12`` past a million."""
    return f"{n:.0e}" if n >= 1e6 else f"{round(n):,}"


def _nice_down(x: float) -> int:
    """``x`` rounded down to 1, 2 or 5 x 10^k (at least 1)."""
    if x < 1:
        return 1
    k = 10 ** math.floor(math.log10(x))
    return int(max(m for m in (1, 2, 5, 10) if m * k <= x) * k)


def _nice_up(x: float) -> float:
    """``x`` rounded up to 1, 2 or 5 x 10^k."""
    k = 10.0 ** math.floor(math.log10(x))
    return float(min(m for m in (1, 2, 5, 10) if m * k >= x * (1 - 1e-12)) * k)


def _budget_text(budget: float) -> str:
    return f"the budget is {duration(budget)}, {BUDGET_ENV} to change it"


def check_trials_left(field: str, total: int, left: int, seconds_per_trial: float) -> None:
    """Refuse a run with ``left`` trials to go at the measured rate when they take past the budget.

    >>> check_trials_left("--trials", 10**12, 10**12 - 5000, 1e-6)
    Traceback (most recent call last):
    ...
    mathhammer.engine.budget.BudgetError: --trials: got '1000000000000'; allowed: at most about 500,000,000 \
here (or a tolerance instead) (needs ~12 days here; the budget is ~10 min, MATHHAMMER_BUDGET_SECONDS to change it)
    """
    budget = budget_seconds()
    seconds = left * seconds_per_trial
    if seconds <= budget:
        return
    fits = _nice_down(budget / max(seconds_per_trial, 1e-12))
    raise BudgetError(
        field,
        total,
        f"at most about {fits:,} here (or a tolerance instead)",
        f"needs {duration(seconds)} here; {_budget_text(budget)}",
    )


def check_tolerance_run(field: str, tolerance: float, pilot: int, error: float, seconds: float) -> None:
    """Refuse a run to a standard error ``tolerance`` when a pilot of ``pilot`` trials (standard error
    ``error``, ``seconds`` long) says it would take past the budget.

    The trials needed are ``pilot x (error / tolerance)^2`` (the standard error falls as 1/sqrt(trials)).
    (A run that fits the budget but needs more than its largest number of trials stops there, as documented.)

    >>> check_tolerance_run("--tolerance", 1e-6, 6250, 0.02, 0.5)
    Traceback (most recent call last):
    ...
    mathhammer.engine.budget.BudgetError: --tolerance: got '1e-06'; allowed: at least 0.001 here, or a number \
of trials (needs about 2e+12 trials, ~6 years here; the budget is ~10 min, MATHHAMMER_BUDGET_SECONDS to change it)
    """
    if error <= tolerance or pilot <= 0:
        return
    budget = budget_seconds()
    per_trial = max(seconds, 1e-9) / pilot
    needed = pilot * (error / tolerance) ** 2
    cost = needed * per_trial
    if cost <= budget:
        return
    reachable = _nice_up(error * math.sqrt(pilot / (budget / per_trial)))
    raise BudgetError(
        field,
        tolerance,
        f"at least {reachable:g} here, or a number of trials",
        f"needs about {about(needed)} trials, {duration(cost)} here; {_budget_text(budget)}",
    )


def check_whole_run(run_to: Callable[[int], object], trials: int, field: str = "trials") -> None:
    """Price a run of ``trials`` that goes in one piece (no blocks to time, so no way to stop it midway):
    pilots of 8x more trials each until one lasts :data:`BLOCK_SECONDS` / 2, then
    :func:`check_trials_left`. Runs of at most :data:`WHOLE_RUN_UNPRICED` trials are not priced; the
    pilots stop at 1/16 of the run, so they cost at most a few tenths of a second or 1/8 of it.
    """
    if trials <= WHOLE_RUN_UNPRICED:
        return
    run_to(FIRST_BLOCK)  # loads the compiled kernels: its time is no rate
    n = FIRST_BLOCK
    while 8 * n <= trials // 16:
        n *= 8
        start = time.perf_counter()
        run_to(n)
        seconds = time.perf_counter() - start
        if seconds >= BLOCK_SECONDS / 2:
            check_trials_left(field, trials, trials, seconds / n)
            return


def sweep_cost(
    pilots: Sequence[tuple[int, float, float]], value: float, bounds: tuple[int, int] | None = None
) -> tuple[float, float]:
    """The trials and serial seconds of a sweep whose cells' pilots are ``pilots`` (trials, standard error,
    seconds of each): ``value`` trials a cell, or with ``bounds`` (least, most trials of a run) a run of
    each cell to a standard error ``value``, ``pilot x (error / value)^2`` trials within the bounds.

    >>> sweep_cost([(1000, 0.02, 0.01), (1000, 0.0, 0.01)], 0.001, (10_000, 10**9))
    (410000.0, 4.1)
    >>> sweep_cost([(1000, 0.02, 0.02)] * 2, 5000)
    (10000.0, 0.2)
    """
    trials = seconds = 0.0
    for n, error, secs in pilots:
        need = float(value) if bounds is None else float(min(bounds[1], max(bounds[0], n * (error / value) ** 2)))
        trials += need
        seconds += need * max(secs, 1e-9) / n
    return trials, seconds


def check_sweep(
    field: str,
    value: float,
    pilots: Sequence[tuple[int, float, float]],
    cores: int,
    bounds: tuple[int, int] | None = None,
) -> None:
    """Refuse a sweep (``value`` trials a cell, or with ``bounds`` a tolerance: see :func:`sweep_cost`)
    whose cells' ``pilots`` say it would take past the budget on ``cores`` cores; the message says which
    tolerance or number of trials would fit (the other flag is ``field`` with ``tolerance`` and
    ``trials`` swapped).

    >>> check_sweep("--tolerance", 1e-6, [(6250, 0.006, 0.004)] * 120, 2, (100_000, 10**9))
    Traceback (most recent call last):
    ...
    mathhammer.engine.budget.BudgetError: --tolerance: got '1e-06'; allowed: at least 0.0002 for this sweep, \
or --trials N (needs about 1e+11 trials in 120 cells, ~11 h here; the budget is ~10 min, MATHHAMMER_BUDGET_SECONDS \
to change it)
    >>> check_sweep("--trials", 10**9, [(6250, 0.006, 0.004)] * 120, 2)
    Traceback (most recent call last):
    ...
    mathhammer.engine.budget.BudgetError: --trials: got '1000000000'; allowed: at most about 10,000,000 for this \
sweep, or --tolerance E (needs about 1e+11 trials in 120 cells, ~11 h here; the budget is ~10 min, \
MATHHAMMER_BUDGET_SECONDS to change it)
    >>> check_sweep("--trials", 10**6, [(6250, 0.006, 0.004)] * 120, 2)  # ~6 min: fits
    """
    budget = budget_seconds()
    cores = max(1, cores)
    trials, seconds = sweep_cost(pilots, value, bounds)
    if seconds / cores <= budget:
        return
    per_cell = sum(max(secs, 1e-9) / n for n, _error, secs in pilots)  # seconds of one trial in every cell
    most = _nice_down(budget * cores / per_cell)
    if bounds is None:
        other = field.replace("trials", "tolerance")
        allowed = f"at most about {most:,} for this sweep, or {other} E"
    else:
        other = field.replace("tolerance", "trials")
        low, high = value, max(value, *(error for _n, error, _secs in pilots))
        if sweep_cost(pilots, high, bounds)[1] / cores > budget:  # even the least trials a cell are too many
            allowed = f"none for this sweep here, or {other} N with N at most about {most:,}"
        else:
            for _ in range(60):  # the smallest tolerance that fits, by bisection (the cost falls as it grows)
                mid = math.sqrt(low * high)
                low, high = (low, mid) if sweep_cost(pilots, mid, bounds)[1] / cores <= budget else (mid, high)
            allowed = f"at least {_nice_up(high):g} for this sweep, or {other} N"
    hint = f"needs about {about(trials)} trials in {len(pilots):,} cells, {duration(seconds / cores)} here"
    raise BudgetError(field, value, allowed, f"{hint}; {_budget_text(budget)}")


def check_exact_sweep(seconds: float, cells: int, cores: int, field: str = "--exact") -> None:
    """Refuse an exact sweep of ``cells`` cells whose runs are estimated at ``seconds`` in all (their systems'
    estimates from table sizes) when it would take past the budget on ``cores`` cores.

    >>> check_exact_sweep(14400.0, 150, 2)
    Traceback (most recent call last):
    ...
    mathhammer.engine.budget.BudgetError: --exact: got 'this sweep'; allowed: an exact sweep within the budget; \
for this one --trials N or --tolerance E (Monte Carlo), or fewer or smaller units (needs about ~2 h in 150 cells \
here; the budget is ~10 min, MATHHAMMER_BUDGET_SECONDS to change it)
    >>> check_exact_sweep(900.0, 150, 2)  # ~8 min on 2 cores: fits
    """
    budget = budget_seconds()
    wall = seconds / max(1, cores)
    if wall <= budget:
        return
    raise BudgetError(
        field,
        "this sweep",
        "an exact sweep within the budget; for this one --trials N or --tolerance E (Monte Carlo), or fewer or "
        "smaller units",
        f"needs about {duration(wall)} in {cells:,} cells here; {_budget_text(budget)}",
    )


def shown_problems(problems: list[str], shown: int = PROBLEMS_SHOWN) -> list[str]:
    """At most ``shown`` problem lines, then ``... and N more`` (a last line is kept rather than replaced).

    >>> shown_problems([f"p{i}" for i in range(5)], 2)
    ['p0', 'p1', '... and 3 more']
    >>> shown_problems(["p0", "p1", "... and 9 more pairs"], 2)
    ['p0', 'p1', '... and 9 more pairs']
    """
    if len(problems) <= shown + 1:
        return problems
    return [*problems[:shown], f"... and {len(problems) - shown:,} more"]
