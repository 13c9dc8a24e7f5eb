"""Numba kernels of the scenario's Mission Markers: Current Supply Values of every unit in every game, which
placements contest a marker (8.9.1), and who controls it (CALCULATE CONTROL)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from ..config import JIT


@njit(**JIT)
def _supply_kernel(pos, alive, table, full, out):  # pragma: no cover - compiled
    u_n, t_n = pos.shape
    for u in range(u_n):
        for t in range(t_n):
            if pos[u, t] >= 0:
                k = min(max(alive[u, t], 0), full[u])
                out[u, t] = table[u, k]
            else:
                out[u, t] = 0
    return out


def supply_matrix(
    pos: np.ndarray, alive: np.ndarray, table: np.ndarray, full: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """Current Supply Value of every unit in every trial: ``table[u, models left]`` on the table, else 0; written
    into ``out`` (an integer array of the same shape, reused: no fresh pages to fault in) where given.

    >>> supply_matrix(np.array([[0, -1, 2]]), np.array([[5, 5, 1]]), np.array([[0, 1, 1, 2, 2, 3]]), np.array([5]))
    array([[3, 0, 1]])
    >>> supply_matrix(np.array([[0, -1]]), np.array([[5, 5]]), np.array([[0, 1, 1, 2, 2, 3]]), np.array([5]),
    ...               out=np.full((1, 2), 7, dtype=np.int16))
    array([[3, 0]], dtype=int16)
    """
    if out is None:
        out = np.empty(pos.shape, dtype=np.int64)
    return _supply_kernel(pos, alive, table, full, out)  # type: ignore[no-any-return]


@njit(**JIT)
def _contest_kernel(pos, alive, used, bit, ts, firsts, out, miss):  # pragma: no cover - compiled
    nm = 0
    for i in range(ts.size):
        t = ts[i]
        pid = pos[t]
        if pid < 0 or used[t] & bit:
            continue
        for m in range(firsts.shape[1]):
            f = firsts[pid, m]
            if f < 0:  # not read: listed once (marked pending), the game is read again on the next pass
                if f == UNREAD:
                    miss[nm] = pid
                    nm += 1
                    firsts[pid, 0] = UNREAD - 1
                break
            if f < alive[t]:
                out[m, t] = True
    return nm


#: :func:`contest_rows`: a placement's first contesting model not yet read.
UNREAD = -2


def contest_rows(
    pos: np.ndarray,
    alive: np.ndarray,
    used: np.ndarray,
    bit: int,
    ts: np.ndarray,
    firsts: np.ndarray,
    out: np.ndarray,
    read: Callable[[int, int], int],
) -> np.ndarray:
    """``out[m, t] = True`` for each game ``t`` of ``ts`` where a unit (its placement ``pos[t]``, ``alive[t]`` models
    left, not on the table where -1) contests marker ``m``: its first contesting model ``firsts[pid, m]`` is one of
    the ``alive[t]`` left. Games with ``used[t] & bit`` (BURROWED) do not contest. ``firsts`` (placements x markers,
    :data:`UNREAD` where not read yet) is filled from ``read(pid, m)`` (a model index, or a number of models or more
    for none) and returned (grown where a placement id lies beyond it).

    >>> firsts = np.full((1, 2), UNREAD, dtype=np.int64)
    >>> out = np.zeros((2, 3), dtype=bool)
    >>> pos, alive, used = np.array([0, 1, -1]), np.array([2, 1, 3]), np.array([0, 0, 0])
    >>> firsts = contest_rows(pos, alive, used, 0, np.arange(3), firsts, out, lambda pid, m: [1, 99][m] + pid)
    >>> out.tolist(), firsts.tolist()  # placement 0: its 2nd model contests marker 0; placement 1: its 3rd
    ([[True, False, False], [False, False, False]], [[1, 99], [2, 100]])
    """
    ts = np.ascontiguousarray(ts, dtype=np.int64)
    top = int(pos.max(initial=-1)) + 1  # every game's placement (no gather of ``ts``): room for those of ``ts``
    if top > firsts.shape[0]:
        grown = np.full((max(top, 2 * firsts.shape[0]), firsts.shape[1]), UNREAD, dtype=np.int64)
        grown[: firsts.shape[0]] = firsts
        firsts = grown
    miss = np.empty(firsts.shape[0], dtype=np.int64)  # a placement is listed once a pass (marked pending)
    while True:
        nm = _contest_kernel(pos, alive, used, np.int64(bit), ts, firsts, out, miss)
        if not nm:
            return firsts
        for pid in miss[:nm].tolist():
            for m in range(firsts.shape[1]):
                firsts[pid, m] = read(pid, m)


#: Games a :func:`_control_kernel` block reads unit by unit (each unit's row read along the block: a few streams
#: of memory at a time, not every unit's four rows at once).
CONTROL_BLOCK = 2048


@njit(**JIT)
def _control_kernel(
    pos, alive, used, bits, contests, ts, firsts, supply, players, removed, control, gained, miss, pending
):  # pragma: no cover - compiled
    n_m = firsts.shape[1]
    block = max(1, min(CONTROL_BLOCK, ts.size))  # a call of a few games allocates for those alone
    sums = np.zeros((2, n_m, block), dtype=np.int64)
    present = np.zeros((2, n_m, block), dtype=np.bool_)
    ready = np.empty(block, dtype=np.bool_)
    nm = 0
    npend = 0
    for start in range(0, ts.size, block):
        nb = min(block, ts.size - start)
        sums[:, :, :nb] = 0
        present[:, :, :nb] = False
        ready[:nb] = True
        for u in range(pos.shape[0]):
            if not contests[u]:
                continue
            p = players[u]
            barred = bits[u]
            for j in range(nb):
                t = ts[start + j]
                pid = pos[u, t]
                if pid < 0 or used[u, t] & barred:
                    continue
                if firsts[pid, 0] < 0:  # not read: listed once (marked pending), the game is read again next pass
                    if firsts[pid, 0] == UNREAD:
                        miss[nm] = pid
                        nm += 1
                        firsts[pid, 0] = UNREAD - 1
                    ready[j] = False
                    continue
                left = alive[u, t]
                value = supply[u, t]
                for m in range(n_m):
                    if firsts[pid, m] < left:
                        sums[p, m, j] += value
                        present[p, m, j] = True
        for j in range(nb):
            t = ts[start + j]
            if not ready[j]:
                pending[npend] = t
                npend += 1
                continue
            for m in range(n_m):
                a0, a1, s0, s1 = present[0, m, j], present[1, m, j], sums[0, m, j], sums[1, m, j]
                w = -1
                if a0 and (not a1 or s0 > s1):
                    w = 0
                elif a1 and (not a0 or s1 > s0):
                    w = 1
                gained[m, t] = False
                if w >= 0 and not removed[m, t]:
                    gained[m, t] = control[m, t] == 1 - w
                    control[m, t] = w
    return nm, npend


def take_control(
    pos: np.ndarray,
    alive: np.ndarray,
    used: np.ndarray,
    bits: np.ndarray,
    contests: np.ndarray,
    ts: np.ndarray,
    firsts: np.ndarray,
    supply: np.ndarray,
    players: np.ndarray,
    removed: np.ndarray,
    control: np.ndarray,
    gained: np.ndarray,
    read: Callable[[int, int], int],
) -> np.ndarray:
    """8.9.1 CALCULATE CONTROL and STICKY CONTROL per marker and game of ``ts``, in place, in one compiled pass (no
    table of who contests). Unit ``u`` (placement ``pos[u, t]``, -1 off the table; ``alive[u, t]`` models left)
    contests marker ``m`` where ``contests[u]`` (not Flying, not a Structure), not ``used[u, t] & bits[u]``
    (BURROWED), and its first contesting model ``firsts[pid, m]`` is one of those left (``firsts`` as in
    :func:`contest_rows`, filled from ``read`` and returned, grown where needed). The player (0, 1) whose contesting
    units (``players[u]``) alone contest the marker, or whose summed ``supply[u, t]`` is higher, takes
    ``control[m, t]`` (``gained[m, t]``: from the other player); where nobody contests or the sums tie, control stays
    (sticky); a ``removed`` marker is not controlled. ``gained`` is cleared in ``ts`` first.

    >>> pos, alive = np.array([[0, 0, -1, 0], [1, -1, -1, -1]]), np.full((2, 4), 2)  # 2 units, 4 games
    >>> used, bits, contests = np.zeros((2, 4), dtype=np.int64), np.zeros(2, dtype=np.int64), np.ones(2, dtype=bool)
    >>> firsts = np.full((0, 1), UNREAD, dtype=np.int64)  # placements 0 and 1 both contest the one marker
    >>> control, gained = np.array([[1, 1, 0, 1]]), np.ones((1, 4), dtype=bool)
    >>> supply, removed = np.full((2, 4), 2), np.array([[False, False, False, True]])
    >>> firsts = take_control(pos, alive, used, bits, contests, np.arange(4), firsts, supply, np.array([0, 1]),
    ...                       removed, control, gained, lambda pid, m: 0)
    >>> control.tolist(), gained.tolist()  # a tie keeps blue; red takes game 1 from blue; game 3's marker is gone
    ([[1, 0, 0, 1]], [[False, True, False, False]])
    """
    ts = np.ascontiguousarray(ts, dtype=np.int64)
    top = int(pos.max(initial=-1)) + 1  # every game's placements: room for those of ``ts``
    if top > firsts.shape[0]:
        grown = np.full((max(top, 2 * firsts.shape[0]), firsts.shape[1]), UNREAD, dtype=np.int64)
        grown[: firsts.shape[0]] = firsts
        firsts = grown
    miss = np.empty(firsts.shape[0], dtype=np.int64)  # a placement is listed once a pass (marked pending)
    pending = np.empty(ts.size, dtype=np.int64)
    while ts.size:
        nm, npend = _control_kernel(
            pos, alive, used, bits, contests, ts, firsts, supply, players, removed, control, gained, miss, pending
        )
        for pid in miss[:nm].tolist():
            for m in range(firsts.shape[1]):
                firsts[pid, m] = read(pid, m)
        ts = pending[:npend].copy()
    return firsts


@njit(**JIT)
def _destroyed_kernel(ref, now, players, live, out):  # pragma: no cover - compiled
    for t in live:
        for u in range(ref.shape[0]):
            drop = ref[u, t] - now[u, t]
            if drop > 0:
                out[1 - players[u], t] += drop


def destroyed_supply(ref: np.ndarray, now: np.ndarray, players: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Per player (0 red, 1 blue) and game: the enemy Supply destroyed, each enemy unit's drop from its reference
    Supply ``ref`` to ``now`` (units x games; no rise counts), in the games ``live`` (0 in the others).

    >>> destroyed_supply(np.array([[4, 4], [3, 0]]), np.array([[1, 5], [0, 2]]), np.array([0, 1]), np.array([0, 1]))
    array([[3, 0],
           [3, 0]])
    """
    out = np.zeros((2, ref.shape[1]), dtype=np.int64)
    live = np.ascontiguousarray(live, dtype=np.int64)
    _destroyed_kernel(ref, np.ascontiguousarray(now, dtype=np.int64), players, live, out)
    return out


@njit(**JIT)
def _held_kernel(control, gained, live, points, bonus, vp):  # pragma: no cover - compiled
    for m in range(control.shape[0]):
        for t in live:
            p = control[m, t]
            if p >= 0:
                vp[p, t] += points[m, p] + (bonus[m, p] if gained[m, t] else 0)


def score_held(
    control: np.ndarray, gained: np.ndarray, live: np.ndarray, points: np.ndarray, bonus: np.ndarray, vp: np.ndarray
) -> None:
    """Per marker ``m`` and game of ``live`` whose Controller is player ``p`` (``control[m, t]``, -1 nobody): ``vp[p,
    t] += points[m, p]``, and ``bonus[m, p]`` more where ``gained[m, t]`` (control taken from the other player this
    Round), in place.

    >>> vp = np.zeros((2, 3), dtype=np.int64)
    >>> control, gained = np.array([[0, 1, -1], [1, 1, 0]]), np.array([[True, False, False], [False, True, False]])
    >>> score_held(control, gained, np.arange(3), np.array([[1, 2], [1, 1]]), np.array([[2, 2], [2, 2]]), vp)
    >>> vp.tolist()
    [[3, 0, 1], [1, 5, 0]]
    """
    live = np.ascontiguousarray(live, dtype=np.int64)
    _held_kernel(control, gained, live, np.asarray(points, dtype=np.int64), np.asarray(bonus, dtype=np.int64), vp)


__all__ = ["UNREAD", "contest_rows", "destroyed_supply", "score_held", "supply_matrix", "take_control"]
