"""Alias tables: O(1) draws from small discrete distributions, for any game system's kernels.

:func:`alias_draw` (numba, inlined) draws from a packed row. The tables are built in Python by
:mod:`mathhammer.engine.alias` (no numba there; re-exported here): :func:`alias_table` and
:func:`packed_alias`, and :func:`binomial_tables`, the successes of ``n`` d6 at each target number (the
count-based sampler's table).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import INLINE
from .alias import ALIAS_BITS, ALIAS_MASK, alias_table, binomial_tables, packed_alias
from .rng import next_u64

_S11 = np.uint64(11)
_S53 = np.uint64(53)
_LOW53 = np.uint64(2**53 - 1)

__all__ = ["ALIAS_BITS", "ALIAS_MASK", "alias_draw", "alias_table", "binomial_tables", "packed_alias"]


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
