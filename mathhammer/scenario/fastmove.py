"""Numba kernels of the scenario's unit placement: the Available Supply test of a Deploy (8.3.2), one pass over the
games instead of a numpy pass per unit, and its games in Reserves and Supply reference; whether a unit is Engaged
(7.2.1) in each game, read off its board's pairs (a Move, Run or Disengage, 8.5.2-8.5.4)."""

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


@njit(**JIT)
def _engaged_kernel(bits, board, trials, mask, out):  # pragma: no cover - compiled
    for i in range(trials.size):
        b = board[trials[i]]
        hit = False
        for w in range(mask.size):
            if bits[w, b] & mask[w]:
                hit = True
                break
        out[i] = hit
    return out


def engaged_in(bits: np.ndarray, board: np.ndarray, trials: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per game of ``trials``: has its board (``board[t]``) a bit of ``mask`` set in its words (``bits``: a column
    per board id, one int64 a word)? One pass, for ``(bits[:, board[trials]] & mask[:, None] != 0).any(axis=0)``.

    >>> bits = np.array([[0b01, 0b10, 0b00]])  # boards 0-2: pair 0 Engaged on board 0, pair 1 on board 1
    >>> engaged_in(bits, np.array([2, 0, 1]), np.array([0, 1, 2]), np.array([0b10])).tolist()
    [False, False, True]
    """
    out = np.empty(trials.size, dtype=np.bool_)
    return _engaged_kernel(  # type: ignore[no-any-return]
        bits, board, np.ascontiguousarray(trials, dtype=np.int64), mask, out
    )


@njit(**JIT)
def _reserve_kernel(pos, alive, trials, out):  # pragma: no cover - compiled
    n = 0
    for i in range(trials.size):
        t = trials[i]
        if pos[t] < 0 and alive[t] > 0:
            out[n] = t
            n += 1
    return n


def in_reserve(pos: np.ndarray, alive: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """The games of ``trials`` where a unit (its placements ``pos``, models left ``alive``: one per game) is off
    the table with models left: ``trials[(pos[trials] < 0) & (alive[trials] > 0)]`` in one pass.

    >>> in_reserve(np.array([-1, 3, -1, -1]), np.array([2, 2, 0, 1]), np.array([3, 0, 1, 2])).tolist()
    [3, 0]
    """
    trials = np.ascontiguousarray(trials, dtype=np.int64)
    out = np.empty(trials.size, dtype=np.int64)
    return out[: _reserve_kernel(pos, alive, trials, out)]


@njit(**JIT)
def _add_supply_kernel(ref, alive, grid, full, games):  # pragma: no cover - compiled
    for i in range(games.size):
        t = games[i]
        ref[t] += grid[min(max(alive[t], 0), full)]


def add_supply(ref: np.ndarray, alive: np.ndarray, grid: np.ndarray, full: int, games: np.ndarray) -> None:
    """``ref[games] += grid[clip(alive[games], 0, full)]`` (a unit's Current Supply Value by models left, added to
    its reference in each game of ``games``, none twice) in one pass.

    >>> ref = np.zeros(3, dtype=np.int64)
    >>> add_supply(ref, np.array([1, 5, 2]), np.array([0, 1, 3]), 2, np.array([2, 1]))
    >>> ref.tolist()
    [0, 3, 3]
    """
    _add_supply_kernel(ref, alive, grid, int(full), np.ascontiguousarray(games, dtype=np.int64))


__all__ = ["add_supply", "engaged_in", "in_reserve", "supply_fits"]
