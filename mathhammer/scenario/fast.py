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
    # one group (common: every game in the same state): found by reading, no hashing
    uniform = True
    if n > 0:
        t0 = trials[0]
        for i in range(1, n):
            t = trials[i]
            for j in range(c):
                if cols[rows[j], t] != cols[rows[j], t0]:
                    uniform = False
                    break
            if not uniform:
                break
        if uniform:
            keys1 = np.empty((1, c), dtype=np.int64)
            for j in range(c):
                keys1[0, j] = cols[rows[j], t0]
            bounds1 = np.zeros(2, dtype=np.int64)
            bounds1[1] = n
            return trials.copy(), bounds1, keys1
    cap = 64  # hash slots; the groups (few) stay below half of it, so the table stays in cache
    table = np.full(cap, -1, dtype=np.int64)
    keys = np.empty((cap // 2, c), dtype=np.int64)
    hashes = np.empty(cap // 2, dtype=np.uint64)
    inv = np.empty(n, dtype=np.int64)
    row = np.empty(c, dtype=np.int64)
    g = 0
    for i in range(n):
        t = trials[i]
        h = np.uint64(0xCBF29CE484222325)
        for j in range(c):
            v = cols[rows[j], t]
            row[j] = v
            h = (h ^ np.uint64(v)) * np.uint64(0x100000001B3)
        h = mix64(h)
        mask = cap - 1
        slot = np.int64(h & np.uint64(mask))
        while True:
            gid = table[slot]
            if gid < 0:
                if 2 * (g + 1) > cap:  # grow: double the slots and the key rows, re-insert by hash
                    cap *= 2
                    mask = cap - 1
                    table = np.full(cap, -1, dtype=np.int64)
                    keys2 = np.empty((cap // 2, c), dtype=np.int64)
                    hashes2 = np.empty(cap // 2, dtype=np.uint64)
                    for k in range(g):
                        keys2[k] = keys[k]
                        hashes2[k] = hashes[k]
                        s2 = np.int64(hashes[k] & np.uint64(mask))
                        while table[s2] >= 0:
                            s2 = (s2 + 1) & mask
                        table[s2] = k
                    keys = keys2
                    hashes = hashes2
                    slot = np.int64(h & np.uint64(mask))
                    while table[slot] >= 0:
                        slot = (slot + 1) & mask
                table[slot] = g
                for j in range(c):
                    keys[g, j] = row[j]
                hashes[g] = h
                inv[i] = g
                g += 1
                break
            if hashes[gid] == h:
                same = True
                for j in range(c):
                    if keys[gid, j] != row[j]:
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
    return order, bounds, keys[:g].copy()


@njit(**JIT)
def _supply_kernel(pos, alive, table, full):  # pragma: no cover - compiled
    u_n, t_n = pos.shape
    out = np.zeros((u_n, t_n), dtype=np.int64)
    for u in range(u_n):
        for t in range(t_n):
            if pos[u, t] >= 0:
                k = min(max(alive[u, t], 0), full[u])
                out[u, t] = table[u, k]
    return out


@njit(**JIT)
def _clear_kernel(pts, cs, rs, r, apart, solid, eng, enemy):  # pragma: no cover - compiled
    n, m = pts.shape[0], cs.shape[0]
    out = np.ones(n, dtype=np.bool_)
    for i in range(n):
        for j in range(m):
            dx = pts[i, 0] - cs[j, 0]
            dy = pts[i, 1] - cs[j, 1]
            g = np.sqrt(dx * dx + dy * dy) - r - rs[j]
            if (solid[j] and g < apart) or (enemy[j] and g <= eng):
                out[i] = False
                break
    return out


def clear_of(
    pts: np.ndarray,
    cs: np.ndarray,
    rs: np.ndarray,
    r: float,
    apart: float,
    solid: np.ndarray,
    eng: float,
    enemy: np.ndarray,
) -> np.ndarray:
    """Per point of ``pts`` (a base of radius ``r`` centred there): no base ``j`` of ``cs`` (radii ``rs``) with
    ``solid[j]`` nearer than ``apart`` edge to edge, and none with ``enemy[j]`` at ``eng`` or nearer. The edge
    gap is computed as numpy's ``sqrt(((p - c) ** 2).sum()) - r - rs[j]``, to the last bit.

    >>> c, rs = np.array([[0.0, 0.0], [3.0, 0.0]]), np.array([0.5, 0.5])
    >>> solid, enemy = np.ones(2, bool), np.zeros(2, bool)
    >>> clear_of(np.array([[1.5, 0.0], [1.0, 0.0]]), c, rs, 0.5, 0.05, solid, 1.0, enemy)
    array([ True, False])
    >>> clear_of(np.array([[1.5, 0.0]]), c, rs, 0.5, 0.05, solid, 1.0, np.array([False, True]))  # 0.5" from an enemy
    array([False])
    """
    return _clear_kernel(  # type: ignore[no-any-return]
        np.ascontiguousarray(pts, dtype=np.float64), cs, rs, float(r), float(apart), solid, float(eng), enemy
    )


def near_any(pts: np.ndarray, cs: np.ndarray, lim: float) -> np.ndarray:
    """Per point of ``pts``: is a point of ``cs`` at most ``lim`` away (numpy's ``sqrt(((p - c) ** 2).sum())``,
    to the last bit)?

    >>> near_any(np.array([[0.0, 0.0], [9.0, 0.0]]), np.array([[3.0, 4.0]]), 5.0)
    array([ True, False])
    """
    cs = np.ascontiguousarray(cs, dtype=np.float64).reshape(-1, 2)
    m = cs.shape[0]
    # clear_of with radii 0 (the same sqrt, less 0.0 twice: unchanged) and every point an "enemy" within lim
    return ~clear_of(pts, cs, np.zeros(m), 0.0, -np.inf, np.zeros(m, dtype=bool), lim, np.ones(m, dtype=bool))


def supply_matrix(pos: np.ndarray, alive: np.ndarray, table: np.ndarray, full: np.ndarray) -> np.ndarray:
    """Current Supply Value of every unit in every trial: ``table[u, models left]`` on the table, else 0.

    >>> supply_matrix(np.array([[0, -1, 2]]), np.array([[5, 5, 1]]), np.array([[0, 1, 1, 2, 2, 3]]), np.array([5]))
    array([[3, 0, 1]])
    """
    return _supply_kernel(pos, alive, table, full)  # type: ignore[no-any-return]


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


__all__ = ["clear_of", "group_rows", "group_state", "near_any", "supply_matrix"]
