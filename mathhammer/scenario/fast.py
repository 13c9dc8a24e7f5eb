"""Numba kernels of the scenario simulation: grouping trials by their state, and counter-based uniforms.

Every step of a scenario is applied to all trials at once, split by the board state they share.
:func:`group_rows` does the split in one pass (a hash table over the rows, exact comparison on a
hash collision), so a step costs O(trials x columns) however many states there are.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.config import JIT
from ..engine.rng import mix64


@njit(**JIT)
def _group_kernel(cols, rows, trials):  # pragma: no cover - compiled
    c = rows.size
    n = trials.size
    size = 16
    while size < 2 * n:
        size <<= 1
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    reps = np.empty(n, dtype=np.int64)
    inv = np.empty(n, dtype=np.int64)
    g = 0
    for i in range(n):
        t = trials[i]
        h = np.uint64(0x9E3779B97F4A7C15)
        for j in range(c):
            h = mix64(h ^ np.uint64(cols[rows[j], t] + 0x7F4A7C15))
        slot = np.int64(h & np.uint64(mask))
        while True:
            gid = table[slot]
            if gid < 0:
                table[slot] = g
                reps[g] = t
                inv[i] = g
                g += 1
                break
            r = reps[gid]
            same = True
            for j in range(c):
                if cols[rows[j], r] != cols[rows[j], t]:
                    same = False
                    break
            if same:
                inv[i] = gid
                break
            slot = (slot + 1) & mask
    bounds = np.zeros(g + 1, dtype=np.int64)
    for i in range(n):
        bounds[inv[i] + 1] += 1
    for k in range(g):
        bounds[k + 1] += bounds[k]
    fill = bounds[:g].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = inv[i]
        order[fill[k]] = trials[i]
        fill[k] += 1
    keys = np.empty((g, c), dtype=np.int64)
    for k in range(g):
        for j in range(c):
            keys[k, j] = cols[rows[j], reps[k]]
    return order, bounds, keys


def group_rows(cols: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split ``trials`` by the columns ``cols[:, trial]``.

    Returns (trials reordered group by group, each group's bounds in it, each group's key). Groups
    come in order of their first trial; trials keep their order within a group.

    >>> cols = np.array([[1, 2, 1, 2, 3], [0, 0, 0, 0, 0]])
    >>> order, bounds, keys = group_rows(cols, np.arange(5))
    >>> order.tolist(), bounds.tolist(), keys[:, 0].tolist()
    ([0, 2, 1, 3, 4], [0, 2, 4, 5], [1, 2, 3])
    """
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    rows = np.arange(cols.shape[0], dtype=np.int64)
    return _group_kernel(cols, rows, np.ascontiguousarray(trials, dtype=np.int64))  # type: ignore[no-any-return]


def group_state(state: np.ndarray, rows: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`group_rows` of ``state[rows]`` without copying the rows (``state``: C-contiguous int64)."""
    return _group_kernel(state, rows, np.ascontiguousarray(trials, dtype=np.int64))  # type: ignore[no-any-return]


__all__ = ["group_rows", "group_state"]
