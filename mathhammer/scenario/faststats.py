"""The numba kernel of a scenario's result: the count of each value of a row of integers (:func:`counts`: a unit's
models left, Supply or Damage Marker, a marker's controller, VP, over the games of one Round; who won, the Round a game
ended in), which :mod:`~mathhammer.scenario.counts` keeps."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT


@njit(**JIT)
def _counts_kernel(x):  # pragma: no cover - compiled
    n = x.size
    lo = np.int64(x[0])
    hi = lo
    for i in range(1, n):
        v = np.int64(x[i])
        lo = min(lo, v)  # no branch: the values come in no order
        hi = max(hi, v)
    if lo == hi:  # one value (a unit untouched in a Round: most rows): its count, read in one pass
        return lo, np.full(1, n, dtype=np.int64)
    width = hi - lo + 1
    # four tables of counts, filled in turn: a run of one value (common) does not wait on its own last increment
    four = np.zeros((4, width), dtype=np.int64)
    end = n - n % 4
    for i in range(0, end, 4):
        four[0, np.int64(x[i]) - lo] += 1
        four[1, np.int64(x[i + 1]) - lo] += 1
        four[2, np.int64(x[i + 2]) - lo] += 1
        four[3, np.int64(x[i + 3]) - lo] += 1
    for i in range(end, n):
        four[0, np.int64(x[i]) - lo] += 1
    return lo, four[0] + four[1] + four[2] + four[3]


def counts(x: np.ndarray) -> tuple[int, np.ndarray]:
    """Of a 1-D integer array (at least one value): its lowest value ``lo`` and the count of each value from ``lo``
    (``counts[v - lo]``), in one compiled reading (two passes; one where every value is the same).

    >>> lo, c = counts(np.array([3, 1, 1, 4], dtype=np.int8))
    >>> lo, c.tolist()
    (1, [2, 0, 1, 1])
    """
    lo, found = _counts_kernel(np.ascontiguousarray(x))
    return int(lo), found


__all__ = ["counts"]
