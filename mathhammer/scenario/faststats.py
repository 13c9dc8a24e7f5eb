"""Numba kernels of a scenario's result: the counts, mean and sample standard deviation of a row of integers (a
unit's models left, Supply, Damage Marker over the games of one Round) in three passes, with the very bits numpy
gives (:func:`summary`); the count of each value of a row (:func:`counts`: who won, the Round a game ended in, a
marker's controller, VP)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT

#: numpy's pairwise summation (``loops_utils.h.src``, ``PW_BLOCKSIZE``): blocks of at most this many values are
#: summed by 8 accumulators, longer runs are halved.
_BLOCK = 128


@njit(**JIT)
def _square(x, i, mean):  # pragma: no cover - compiled
    d = np.float64(x[i]) - mean
    return d * d


@njit(**JIT)
def _block_squares(x, lo, n, mean):  # pragma: no cover - compiled
    """numpy's sum of a run of at most :data:`_BLOCK` values (here the squares of ``x[lo:lo + n] - mean``)."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += _square(x, i, mean)
        return res
    r0 = _square(x, lo, mean)
    r1 = _square(x, lo + 1, mean)
    r2 = _square(x, lo + 2, mean)
    r3 = _square(x, lo + 3, mean)
    r4 = _square(x, lo + 4, mean)
    r5 = _square(x, lo + 5, mean)
    r6 = _square(x, lo + 6, mean)
    r7 = _square(x, lo + 7, mean)
    i = 8
    while i < n - n % 8:
        r0 += _square(x, lo + i, mean)
        r1 += _square(x, lo + i + 1, mean)
        r2 += _square(x, lo + i + 2, mean)
        r3 += _square(x, lo + i + 3, mean)
        r4 += _square(x, lo + i + 4, mean)
        r5 += _square(x, lo + i + 5, mean)
        r6 += _square(x, lo + i + 6, mean)
        r7 += _square(x, lo + i + 7, mean)
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += _square(x, lo + i, mean)
        i += 1
    return res


@njit(**JIT)
def _pairwise_squares(x, n, mean):  # pragma: no cover - compiled
    """The sum of ``(x[i] - mean) ** 2`` over ``x[:n]``, added in numpy's pairwise order (the same additions as
    ``np.add.reduce`` of the float64 squares: ``np.std``'s): a run longer than :data:`_BLOCK` is the sum of its two
    halves (the first a multiple of 8 long). The halving is walked with a stack (numba caches no recursive
    function)."""
    los = np.empty(128, dtype=np.int64)  # runs to sum (depth: about 2 log2(n / _BLOCK))
    ns = np.empty(128, dtype=np.int64)
    joins = np.zeros(128, dtype=np.bool_)  # a run whose two halves are summed: add the last two sums
    sums = np.empty(64, dtype=np.float64)
    top, ns_top = 0, 0
    los[0], ns[0] = 0, n
    top = 1
    while top > 0:
        top -= 1
        lo, m = los[top], ns[top]
        if joins[top]:
            joins[top] = False
            ns_top -= 1
            sums[ns_top - 1] = sums[ns_top - 1] + sums[ns_top]
        elif m <= _BLOCK:
            sums[ns_top] = _block_squares(x, lo, m, mean)
            ns_top += 1
        else:
            half = m // 2
            half -= half % 8
            joins[top] = True  # after both halves (left summed first, then right)
            los[top + 1], ns[top + 1] = lo + half, m - half
            los[top + 2], ns[top + 2] = lo, half
            top += 3
    return sums[0]


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


@njit(**JIT)
def _summary_kernel(x):  # pragma: no cover - compiled
    n = x.size
    lo, counts = _counts_kernel(x)
    if counts.size == 1:  # one value: its exact mean, no deviation
        return lo, counts, np.float64(lo), 0.0
    total = np.int64(0)
    for v in range(counts.size):
        total += counts[v] * (lo + v)
    mean = np.float64(total) / n
    squares = _pairwise_squares(x, n, mean)
    return lo, counts, mean, squares


def counts(x: np.ndarray) -> tuple[int, np.ndarray]:
    """Of a 1-D integer array (at least one value): its lowest value ``lo`` and the count of each value from ``lo``
    (``counts[v - lo]``), in one compiled reading (two passes; one where every value is the same).

    >>> lo, c = counts(np.array([3, 1, 1, 4], dtype=np.int8))
    >>> lo, c.tolist()
    (1, [2, 0, 1, 1])
    """
    lo, found = _counts_kernel(np.ascontiguousarray(x))
    return int(lo), found


def summary(x: np.ndarray) -> tuple[int, np.ndarray, float, float]:
    """Of a 1-D integer array (one value a game; at least one): its lowest value ``lo``, the count of each value
    from ``lo`` (``counts[v - lo]``), its mean and its sample standard deviation (``ddof=1``; 0 for one value), the
    same float64 bits as ``x.astype(float).mean()`` and ``.std(ddof=1)`` (an exact integer sum divided by the count;
    the squared deviations added in numpy's pairwise order).

    >>> lo, counts, mean, sd = summary(np.array([3, 1, 1, 4], dtype=np.int16))
    >>> lo, counts.tolist(), mean, bool(sd == np.array([3.0, 1, 1, 4]).std(ddof=1))
    (1, [2, 0, 1, 1], 2.25, True)
    """
    x = np.ascontiguousarray(x)
    lo, counts, mean, squares = _summary_kernel(x)
    sd = float(np.sqrt(squares / (x.size - 1))) if x.size > 1 else 0.0
    return int(lo), counts, float(mean), sd


__all__ = ["counts", "summary"]
