"""Numba kernels of the scenario's unit placement: the Available Supply test of a Deploy (8.3.2), one pass over the
games instead of a numpy pass per unit."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT


@njit(**JIT)
def _fits_kernel(pos, alive, table, full, own, u, need_counts, pool, reserve, out):  # pragma: no cover - compiled
    for i in range(reserve.size):
        t = reserve[i]
        used = 0
        for j in range(own.size):
            v = own[j]
            if pos[v, t] >= 0:
                used += table[v, min(max(alive[v, t], 0), full[v])]
        need = table[u, min(max(alive[u, t], 0), full[u])] if need_counts else 0
        out[i] = need <= pool - used
    return out


def supply_fits(
    pos: np.ndarray,
    alive: np.ndarray,
    table: np.ndarray,
    full: np.ndarray,
    own: list[int],
    u: int,
    need_counts: bool,
    pool: int,
    reserve: np.ndarray,
) -> np.ndarray:
    """Per game of ``reserve``: unit ``u``'s Current Supply Value (``table[u, models left]``, 0 unless
    ``need_counts``) is at most ``pool`` less the Current Supply Values of the units ``own`` on the table
    (``pos`` >= 0) in that game.

    >>> pos, alive = np.array([[0, -1], [-1, -1]]), np.array([[2, 2], [1, 1]])
    >>> table, full = np.array([[0, 1, 2], [0, 2, 2]]), np.array([2, 2])
    >>> supply_fits(pos, alive, table, full, [0], 1, True, 3, np.array([0, 1])).tolist()
    [False, True]
    >>> supply_fits(pos, alive, table, full, [0], 1, False, 2, np.array([1, 0])).tolist()
    [True, True]
    """
    out = np.empty(reserve.size, dtype=np.bool_)
    return _fits_kernel(  # type: ignore[no-any-return]
        pos,
        alive,
        table,
        np.ascontiguousarray(full, dtype=np.int64),
        np.asarray(own, dtype=np.int64),
        u,
        need_counts,
        pool,
        np.ascontiguousarray(reserve, dtype=np.int64),
        out,
    )


__all__ = ["supply_fits"]
