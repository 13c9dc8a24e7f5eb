"""Alias tables: O(1) draws from small discrete distributions, for any game system's kernels.

:func:`alias_table` and :func:`packed_alias` build Walker's tables in Python;
:func:`alias_draw` (numba, inlined) draws from a packed row;
:func:`binomial_tables` tabulates the successes of ``n`` d6 at each target
number, the count-based sampler's table.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from ..config import INLINE
from ..errors import InputError
from .rng import next_u64

#: Alias table entries: ``threshold << ALIAS_BITS | alias`` (see :func:`alias_draw`).
ALIAS_BITS = 9
ALIAS_MASK = (1 << ALIAS_BITS) - 1

_S11 = np.uint64(11)
_S53 = np.uint64(53)
_LOW53 = np.uint64(2**53 - 1)

__all__ = ["ALIAS_BITS", "ALIAS_MASK", "alias_draw", "alias_table", "binomial_tables", "packed_alias"]


def alias_table(pmf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table of a pmf (Vose's construction): ``(threshold, alias)``.

    Drawing from ``m`` cells with a uniform ``x`` on [0, m): ``j = floor(x)``;
    the result is ``j`` when ``x - j < threshold[j] / 2**53``, else
    ``alias[j]``. Thresholds are int64 (probability x 2**53) for the kernels'
    integer arithmetic; :func:`packed_alias` packs both into one int64.

    >>> threshold, alias = alias_table(np.array([0.25, 0.5, 0.25]))
    >>> (threshold / 2**53).tolist(), alias.tolist()
    ([0.75, 1.0, 0.75], [1, 1, 1])
    """
    m = pmf.size
    scaled = np.asarray(pmf, dtype=np.float64) * m / float(np.sum(pmf))
    prob = np.ones(m)
    alias = np.arange(m, dtype=np.int64)
    small = [i for i in range(m) if scaled[i] < 1.0]
    large = [i for i in range(m) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    # leftovers keep probability 1 (rounding residue)
    return np.round(np.clip(prob, 0.0, 1.0) * 2.0**53).astype(np.int64), alias


def packed_alias(pmf: np.ndarray) -> np.ndarray:
    """:func:`alias_table` packed as the kernels read it: ``threshold << ALIAS_BITS | alias``.

    >>> (packed_alias(np.array([0.5, 0.5])) >> ALIAS_BITS).tolist() == [2**53, 2**53]
    True
    """
    threshold, alias = alias_table(pmf)
    if pmf.size > ALIAS_MASK + 1:
        raise InputError("distribution size", pmf.size, f"at most {ALIAS_MASK + 1} values")
    return (threshold << ALIAS_BITS) | alias


@functools.lru_cache(maxsize=8)
def binomial_tables(n_max: int) -> np.ndarray:
    """Packed alias tables of the successes of ``n`` d6, for target numbers 2..6 and ``n <= n_max``.

    Returns int64 ``[5, n_max + 1, n_max + 1]``: row ``[t - 2, n]`` holds
    :func:`packed_alias` of Binomial(``n``, ``(7 - t) / 6``) in its first
    ``n + 1`` entries. Read-only (cached).

    >>> table = binomial_tables(2)
    >>> (table[2, 2, :3] >> ALIAS_BITS) / 2**53, table[2, 2, :3] & ALIAS_MASK   # 2 dice at 4+: 1/4, 1/2, 1/4
    (array([0.75, 1.  , 0.75]), array([1, 1, 1]))
    """
    size = n_max + 1
    table = np.zeros((5, size, size), dtype=np.int64)
    k = np.arange(size)
    for t in range(2, 7):
        p = (7 - t) / 6.0
        for n in range(size):
            pmf = np.array([math.comb(n, j) for j in range(n + 1)], dtype=np.float64)
            pmf *= p ** k[: n + 1] * (1 - p) ** (n - k[: n + 1])
            table[t - 2, n, : n + 1] = packed_alias(pmf)
    table.flags.writeable = False
    return table


@njit(**INLINE)
def alias_draw(state, gamma, m, table, t, n):
    """A value ``0 .. m - 1`` from the alias table row ``table[t, n, :m]``: ``(state, value)``.

    Walker's alias method in integers. An entry packs the cell's threshold
    (its own probability x 2**53) above ``ALIAS_BITS`` bits of alias. With 53
    random bits ``r`` and ``y = r * m``: cell ``j = y >> 53``; the result is
    ``j`` when ``y mod 2**53`` is below the threshold, else the alias.

    O(1) and branch-free (measurements in ``benchmarks/RESULTS.md``). Rows are
    indexed, never sliced: a slice in the trial loop costs atomic reference counts.
    """
    state, x = next_u64(state, gamma)
    y = (x >> _S11) * np.uint64(m)
    j = np.int64(y >> _S53)
    entry = table[t, n, j]
    other = entry & ALIAS_MASK
    return state, (j if np.int64(y & _LOW53) < (entry >> ALIAS_BITS) else other)
