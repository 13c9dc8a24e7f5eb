"""Adaptive stopping, the same rule for every game system: Monte Carlo until a standard error is small enough.

The standard errors are checked at ``min_trials``, then at every doubling
(capped at ``max_trials``), so a result depends on the seed and the
arguments only, and equals a fixed-trials run at the count where it stopped.

>>> seen = []
>>> def run_to(n):
...     seen.append(n)
...     return n
>>> until(run_to, lambda n: 1 / n, 0.001, min_trials=100, max_trials=10_000)
1600
>>> seen
[100, 200, 400, 800, 1600]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Trials of the first call of a run to a tolerance (loading the compiled kernels, untimed).
PILOT_MIN = 256


def until(
    run_to: Callable[[int], T],
    standard_error: Callable[[T], float],
    tolerance: float,
    min_trials: int,
    max_trials: int,
    field: str = "tolerance",
) -> T:
    """Call ``run_to(n)`` for ``n = min_trials, 2 min_trials, ...`` (capped at ``max_trials``) until
    ``standard_error`` of its answer is at most ``tolerance``, or ``max_trials`` is reached; the last answer.

    Before that, when ``min_trials >= 16 x``:data:`PILOT_MIN`, a pilot (``run_to(PILOT_MIN)`` to load the
    kernels, then ``run_to(min_trials // 16)``, timed) estimates the trials and seconds the tolerance needs;
    past the budget the run is refused naming ``field``
    (:func:`~mathhammer.engine.budget.check_tolerance_run`); so is every check that finds the tolerance
    not yet met, priced with the time since the pilot. The pilot's answers are never returned, so the
    result is the same with or without it.
    """
    from .budget import check_tolerance_run

    priced = min_trials // 16 >= PILOT_MIN
    start = time.perf_counter()
    if priced:
        run_to(PILOT_MIN)
        start = time.perf_counter()
        pilot = min_trials // 16
        check_tolerance_run(field, tolerance, pilot, standard_error(run_to(pilot)), time.perf_counter() - start)
    n = min_trials
    while True:
        state = run_to(n)
        error = standard_error(state)
        if error <= tolerance or n >= max_trials:
            return state
        if priced:  # priced again with the time so far (a pilot that saw no rare event says nothing)
            check_tolerance_run(field, tolerance, n, error, time.perf_counter() - start)
        n = min(2 * n, max_trials)
