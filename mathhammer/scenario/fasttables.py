"""Numba kernels of the scenario simulation: the board table (each distinct placement vector of the units interned
to one board id, moved in many trials in one pass) and the pair table (a yes/no fact of two placements, read once
and kept in a hash table compiled code reads)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from ..config import JIT
from ..engine.rng import mix64


@njit(**JIT)
def _row_hash(arr, i):  # pragma: no cover - compiled
    h = np.uint64(0xCBF29CE484222325)
    for j in range(arr.shape[1]):
        h = (h ^ np.uint64(arr[i, j])) * np.uint64(0x100000001B3)
    return mix64(h)


@njit(**JIT)
def _find_row(arr, hashes, table, n, h):  # pragma: no cover - compiled
    """The id of row ``n`` of ``arr`` (hash ``h``) among rows ``0 .. n - 1`` (-1: not there), and its slot."""
    mask = table.size - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        gid = table[slot]
        if gid < 0:
            return -1, slot
        if hashes[gid] == h:
            same = True
            for j in range(arr.shape[1]):
                if arr[gid, j] != arr[n, j]:
                    same = False
                    break
            if same:
                return gid, slot
        slot = (slot + 1) & mask


@njit(**JIT)
def _intern_kernel(arr, hashes, table, n):  # pragma: no cover - compiled
    """The id of row ``n`` of ``arr`` among rows ``0 .. n - 1``, or ``n`` (inserted: a new row); and whether new."""
    h = _row_hash(arr, n)
    gid, slot = _find_row(arr, hashes, table, n, h)
    if gid >= 0:
        return gid, False
    table[slot] = n
    hashes[n] = h
    return n, True


@njit(**JIT)
def _rehash_kernel(hashes, n, size):  # pragma: no cover - compiled
    table = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    for k in range(n):
        slot = np.int64(hashes[k] & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = k
    return table


@njit(**JIT)
def _move_kernel(board, ts, start, u, pids, arr, hashes, table, n, fresh_new, fresh_old):  # pragma: no cover
    """``board[t]`` for ``t = ts[i]``, ``i >= start``: the id of its board with unit ``u`` placed at ``pids[i]``.
    New rows are appended to ``arr`` at ``n`` (and ``fresh_new``/``fresh_old``); stops where ``arr`` or
    ``fresh_new`` is full. Returns (trials done, boards, fresh)."""
    memo_old = np.full(1024, -1, dtype=np.int64)  # direct-mapped: (old board, placement) -> new board
    memo_pid = np.empty(1024, dtype=np.int64)
    memo_new = np.empty(1024, dtype=np.int64)
    f = 0
    i = start
    while i < ts.size:
        t = ts[i]
        old = board[t]
        pid = pids[i]
        m = (old * 40503 + pid) & 1023
        if memo_old[m] == old and memo_pid[m] == pid:
            board[t] = memo_new[m]
            i += 1
            continue
        if n >= arr.shape[0] or f >= fresh_new.size:
            break
        for j in range(arr.shape[1]):
            arr[n, j] = arr[old, j]
        arr[n, u] = pid
        gid, new = _intern_kernel(arr, hashes, table, n)
        if new:
            fresh_new[f] = n
            fresh_old[f] = old
            f += 1
            n += 1
        memo_old[m] = old
        memo_pid[m] = pid
        memo_new[m] = gid
        board[t] = gid
        i += 1
    return i, n, f


class BoardTable:
    """Board ids: equal placement vectors (one placement id per unit, -1 off the table), one id, interned in a hash
    table read by compiled code (:meth:`move` moves one unit in many trials in one pass).

    >>> tab = BoardTable(2)
    >>> tab.intern((-1, -1)), tab.intern((3, -1)), tab.intern((-1, -1))
    ((0, True), (1, True), (0, False))
    >>> board = np.array([0, 1, 0, 1])
    >>> done = tab.move(board, np.array([0, 1, 3]), 1, np.array([7, 7, 7]))
    >>> board.tolist(), tab.rows[: tab.n].tolist(), done[0].tolist(), done[1].tolist()
    ([2, 3, 0, 3], [[-1, -1], [3, -1], [-1, 7], [3, 7]], [2, 3], [0, 1])
    """

    def __init__(self, units: int) -> None:
        self.rows = np.full((64, units), -1, dtype=np.int64)  # each board id's placements
        self._hashes = np.zeros(64, dtype=np.uint64)
        self._table = np.full(128, -1, dtype=np.int64)
        self.n = 0

    def _grow(self) -> None:
        cap = 2 * self.rows.shape[0]
        # not filled: a row is written before it is interned (intern, _move_kernel), and rows past ``n`` are not
        # boards, so the pages past them are touched only as boards come (a table of a million boards is 96 MB)
        rows = np.empty((cap, self.rows.shape[1]), dtype=np.int64)
        rows[: self.n] = self.rows[: self.n]
        hashes = np.zeros(cap, dtype=np.uint64)
        hashes[: self.n] = self._hashes[: self.n]
        self.rows, self._hashes = rows, hashes
        self._table = _rehash_kernel(self._hashes, self.n, 2 * cap)

    def intern(self, pos: tuple[int, ...]) -> tuple[int, bool]:
        """The id of the placement vector ``pos``, and whether it is new."""
        if self.n >= self.rows.shape[0]:
            self._grow()
        self.rows[self.n] = pos
        gid, new = _intern_kernel(self.rows, self._hashes, self._table, self.n)
        self.n += bool(new)
        return int(gid), bool(new)

    def move(self, board: np.ndarray, ts: np.ndarray, u: int, pids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Set ``board[ts]`` to the ids of their boards with unit ``u`` at placement ``pids`` (one per trial of
        ``ts``); returns the new ids made and the board each was made from."""
        ts = np.ascontiguousarray(ts, dtype=np.int64)
        pids = np.ascontiguousarray(pids, dtype=np.int64)
        news: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        olds: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        i = 0
        while i < ts.size:
            if self.n >= self.rows.shape[0]:
                self._grow()
            room = min(ts.size - i, self.rows.shape[0] - self.n)
            fresh_new, fresh_old = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
            i, self.n, f = _move_kernel(
                board, ts, i, u, pids, self.rows, self._hashes, self._table, self.n, fresh_new, fresh_old
            )
            news.append(fresh_new[:f])
            olds.append(fresh_old[:f])
        if len(news) == 2:
            return news[1], olds[1]
        return np.concatenate(news), np.concatenate(olds)


@njit(**JIT)
def _pair_slot(keys, pa, pb):  # pragma: no cover - compiled
    """The slot of (pa, pb) in the open-addressing table ``keys`` (rows (pa, pb), -1 empty): its own or the empty one
    where it would go."""
    mask = keys.shape[0] - 1
    h = mix64((np.uint64(pa) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(pb))
    slot = np.int64(h & np.uint64(mask))
    while keys[slot, 0] != -1 and (keys[slot, 0] != pa or keys[slot, 1] != pb):
        slot = (slot + 1) & mask
    return slot


@njit(**JIT)
def _pair_words_kernel(rows, u, others, firsts, bits, keys, vals, words, miss):  # pragma: no cover - compiled
    """Per row of ``rows`` (boards), the words of the Engaged pairs of unit ``u`` (pair k: unit ``others[k]``, ``u``
    first where ``firsts[k]``, bit ``bits[k]``) read from the table (``keys``, ``vals``); the pairs of placements not
    in it go to ``miss`` (rows pa, pb, deduplicated), and their bits are left 0. Returns how many missed."""
    nm = 0
    for k in range(rows.shape[0]):
        pid = rows[k, u]
        if pid < 0:
            continue
        for q in range(others.size):
            other = rows[k, others[q]]
            if other < 0:
                continue
            pa, pb = (pid, other) if firsts[q] else (other, pid)
            slot = _pair_slot(keys, pa, pb)
            if keys[slot, 0] == -1:
                seen = False
                for m in range(nm):
                    if miss[m, 0] == pa and miss[m, 1] == pb:
                        seen = True
                        break
                if not seen:
                    miss[nm, 0], miss[nm, 1] = pa, pb
                    nm += 1
            elif vals[slot]:
                words[k, bits[q] // 62] |= np.int64(1) << np.int64(bits[q] % 62)
    return nm


class PairTable:
    """Whether two enemy units' placements are Engaged, per pair of placement ids, in a hash table read by compiled
    code (:meth:`words`); the answers come from the caller (``read``), each asked once.

    >>> tab = PairTable(lambda pa, pb: pa + pb == 5)
    >>> rows = np.array([[2, 3, -1], [2, 4, 0], [-1, 3, 3]])  # boards: unit 0 Engaged with unit 1 where 2 + 3
    >>> tab.words(rows, 0, [1, 2], [True, True], [0, 1], 1).tolist()
    [[1], [0], [0]]
    """

    def __init__(self, read: Callable[[int, int], bool]) -> None:
        self._read = read
        self._keys = np.full((1024, 2), -1, dtype=np.int64)
        self._vals = np.zeros(1024, dtype=np.bool_)
        self._n = 0

    def _put(self, pa: int, pb: int, v: bool) -> None:
        if 2 * (self._n + 1) > self._keys.shape[0]:
            old = self._keys[self._keys[:, 0] != -1], self._vals[self._keys[:, 0] != -1]
            self._keys = np.full((2 * self._keys.shape[0], 2), -1, dtype=np.int64)
            self._vals = np.zeros(self._keys.shape[0], dtype=np.bool_)
            for (a, b), w in zip(old[0].tolist(), old[1].tolist(), strict=True):
                slot = _pair_slot(self._keys, a, b)
                self._keys[slot] = a, b
                self._vals[slot] = w
        slot = _pair_slot(self._keys, pa, pb)
        self._keys[slot] = pa, pb
        self._vals[slot] = v
        self._n += 1

    def words(
        self, rows: np.ndarray, u: int, others: Sequence[int], firsts: Sequence[bool], bits: Sequence[int], n_words: int
    ) -> np.ndarray:
        """Per board (row of ``rows``, every unit's placement), the Engaged bits of unit ``u``'s pairs: pair k with
        unit ``others[k]`` (``u`` its first unit where ``firsts[k]``) is bit ``bits[k]`` (word ``bits[k] // 62``)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        args = (np.asarray(others, dtype=np.int64), np.asarray(firsts, dtype=np.bool_), np.asarray(bits, np.int64))
        words = np.zeros((rows.shape[0], n_words), dtype=np.int64)
        miss = np.empty((rows.shape[0] * len(others), 2), dtype=np.int64)
        nm = _pair_words_kernel(rows, u, *args, self._keys, self._vals, words, miss)
        if nm:
            for pa, pb in miss[:nm].tolist():
                self._put(pa, pb, bool(self._read(pa, pb)))
            words[:] = 0
            _pair_words_kernel(rows, u, *args, self._keys, self._vals, words, miss)
        return words


__all__ = ["BoardTable", "PairTable"]
