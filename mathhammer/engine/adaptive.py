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

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def until(
    run_to: Callable[[int], T],
    standard_error: Callable[[T], float],
    tolerance: float,
    min_trials: int,
    max_trials: int,
) -> T:
    """Call ``run_to(n)`` for ``n = min_trials, 2 min_trials, ...`` (capped at ``max_trials``) until
    ``standard_error`` of its answer is at most ``tolerance``, or ``max_trials`` is reached; the last answer."""
    n = min_trials
    while True:
        state = run_to(n)
        if standard_error(state) <= tolerance or n >= max_trials:
            return state
        n = min(2 * n, max_trials)
