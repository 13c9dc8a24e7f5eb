"""Alias tables without numba: Walker's tables built in Python, and the alias draw on numpy arrays.

:func:`alias_table` and :func:`packed_alias` build Walker's tables;
:func:`binomial_tables` tabulates the successes of ``n`` d6 at each target
number, the count-based sampler's table; :func:`alias_draws` is
:func:`~mathhammer.engine.tables.alias_draw` (the numba kernels' draw) on an
array of random words, one per trial. Importing this module imports no numba.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import InputError

#: Alias table entries: ``threshold << ALIAS_BITS | alias`` (see :func:`alias_draws`).
ALIAS_BITS = 9
ALIAS_MASK = (1 << ALIAS_BITS) - 1

__all__ = ["ALIAS_BITS", "ALIAS_MASK", "alias_draws", "alias_table", "binomial_tables", "packed_alias"]


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


_S11 = np.uint64(11)
_S53 = np.uint64(53)
_LOW53 = np.uint64(2**53 - 1)


def alias_draws(
    x: np.ndarray, m: np.ndarray | int, rows: np.ndarray, cells: np.ndarray | int | None = None
) -> np.ndarray:
    """Values ``0 .. m - 1`` drawn from packed alias rows by the random words ``x`` (uint64): int64.

    ``rows`` is the 2-D table whose row ``cells`` (an index per word, or one for all; None: ``rows`` is a
    single row) holds the packed entries; ``m`` the row's size (an int, or an int64 array per word). The same
    integer arithmetic as :func:`~mathhammer.engine.tables.alias_draw`, so a word gives the value the kernels
    give.

    >>> row = packed_alias(np.array([0.5, 0.5]))
    >>> alias_draws(np.array([0, 2**63, 2**64 - 1], dtype=np.uint64), 2, row).tolist()
    [0, 1, 1]
    """
    y = x >> _S11
    y *= m.view(np.uint64) if isinstance(m, np.ndarray) else np.uint64(m)  # sizes >= 1: the same bits
    j = (y >> _S53).view(np.int64)
    entry = rows.take(j if cells is None else j + np.multiply(cells, rows.shape[1]))
    y &= _LOW53
    return np.where(y.view(np.int64) < (entry >> ALIAS_BITS), j, entry & ALIAS_MASK)
