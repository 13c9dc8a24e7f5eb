"""Numba kernels of the scenario simulation: the board table (each distinct placement vector of the units interned
to one board id, moved in many trials in one pass) and the pair table (a yes/no fact of two placements, read once
and kept in a hash table compiled code reads)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from ..config import JIT
from ..engine.rng import mix64
from .fastfetch import AHEAD, fetch
from .fastnear import near_one


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
def _move_kernel(board, placed, ts, start, u, pids, arr, hashes, table, n, fresh_new, fresh_old):  # pragma: no cover
    """``board[t]`` for ``t = ts[i]``, ``i >= start``: the id of its board with unit ``u`` placed at ``pids[i]``
    (written to ``placed[t]`` too). New rows are appended to ``arr`` at ``n`` (and ``fresh_new``/``fresh_old``);
    stops where ``arr`` or ``fresh_new`` is full. Returns (trials done, boards, fresh)."""
    # direct-mapped: (old board, placement) -> new board (a hint only: a miss interns again, with the same id); as
    # small as the trials to set allow, up to 1024
    size = 16
    while size < 1024 and size < ts.size - start:
        size *= 2
    mask = size - 1
    memo_old = np.full(size, -1, dtype=np.int64)
    memo_pid = np.empty(size, dtype=np.int64)
    memo_new = np.empty(size, dtype=np.int64)
    f = 0
    i = start
    last_i = ts.size - 1
    while i < ts.size:
        tn = ts[min(i + AHEAD, last_i)]  # the game AHEAD places on fetched now (scattered games: overlapped misses)
        fetch(board, tn)
        fetch(placed, tn)
        t = ts[i]
        old = board[t]
        pid = pids[i]
        m = (old * 40503 + pid) & mask
        if memo_old[m] == old and memo_pid[m] == pid:
            board[t] = memo_new[m]
            placed[t] = pid
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
        placed[t] = pid
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

    def move(
        self, board: np.ndarray, ts: np.ndarray, u: int, pids: np.ndarray, placed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Set ``board[ts]`` to the ids of their boards with unit ``u`` at placement ``pids`` (one per trial of
        ``ts``; ``placed[ts]`` to ``pids`` too, where given: the unit's placements, in the same pass); returns the
        new ids made and the board each was made from."""
        placed = np.empty(board.size, dtype=np.int64) if placed is None else placed
        ts = np.ascontiguousarray(ts, dtype=np.int64)
        pids = np.ascontiguousarray(pids, dtype=np.int64)
        if self.n + ts.size <= self.rows.shape[0]:  # the common case: room for every new board, one pass
            fresh_new, fresh_old = np.empty(ts.size, dtype=np.int64), np.empty(ts.size, dtype=np.int64)
            _, self.n, f = _move_kernel(
                board, placed, ts, 0, u, pids, self.rows, self._hashes, self._table, self.n, fresh_new, fresh_old
            )
            return fresh_new[:f], fresh_old[:f]
        news: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        olds: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        i = 0
        while i < ts.size:
            if self.n >= self.rows.shape[0]:
                self._grow()
            room = min(ts.size - i, self.rows.shape[0] - self.n)
            fresh_new, fresh_old = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
            i, self.n, f = _move_kernel(
                board, placed, ts, i, u, pids, self.rows, self._hashes, self._table, self.n, fresh_new, fresh_old
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
def _put_kernel(keys, vals, pairs, got):  # pragma: no cover - compiled
    """Put each pair of ``pairs`` (rows pa, pb; none in ``keys`` yet, none twice) with its answer ``got``."""
    for i in range(pairs.shape[0]):
        slot = _pair_slot(keys, pairs[i, 0], pairs[i, 1])
        keys[slot, 0], keys[slot, 1] = pairs[i, 0], pairs[i, 1]
        vals[slot] = got[i]


@njit(**JIT)
def _pair_words_kernel(
    rows, new, old, u, others, firsts, bits, keys, vals, out, keep, miss, starts, xy, rads, gap
):  # pragma: no cover - compiled
    """Per board ``b = new[k]`` (a row of ``rows``): column ``b`` of ``out`` (words x boards) set to column ``old[k]``'s
    words with the bits of ``keep`` only (0 where ``old[k] < 0``), and the Engaged bits of unit ``u``'s pairs on board
    ``b`` (pair q: unit ``others[q]``, ``u`` first where ``firsts[q]``, bit ``bits[q]``) read from the table
    (``keys``, ``vals``). A pair of placements not in it whose bases are not near (:func:`.fastnear.near_one` of the
    placements ``starts``, ``xy``, ``rads`` at ``gap``; none where ``starts`` is empty) is False; the others go to
    ``miss`` (rows pa, pb, each once, in order of first sight), and their bits are left 0. Returns how many missed.
    ``old`` never names a column of ``new``."""
    nm = 0
    seen = np.full((64, 2), -1, dtype=np.int64)  # the pairs missed so far, hashed as ``keys``: each listed once
    for k in range(new.size):
        b = new[k]
        for w in range(out.shape[0]):
            out[w, b] = out[w, old[k]] & keep[w] if old[k] >= 0 else 0
        pid = rows[b, u]
        if pid < 0:
            continue
        for q in range(others.size):
            other = rows[b, others[q]]
            if other < 0:
                continue
            pa, pb = (pid, other) if firsts[q] else (other, pid)
            slot = _pair_slot(keys, pa, pb)
            if keys[slot, 0] == -1:
                if starts.size and not near_one(pa, pb, starts, xy, rads, gap):
                    continue
                s = _pair_slot(seen, pa, pb)
                if seen[s, 0] == -1:
                    seen[s, 0], seen[s, 1] = pa, pb
                    miss[nm, 0], miss[nm, 1] = pa, pb
                    nm += 1
                    if 2 * nm > seen.shape[0]:  # half full: twice the size, the misses put again
                        seen = np.full((2 * seen.shape[0], 2), -1, dtype=np.int64)
                        for m in range(nm):
                            s = _pair_slot(seen, miss[m, 0], miss[m, 1])
                            seen[s, 0], seen[s, 1] = miss[m, 0], miss[m, 1]
            elif vals[slot]:
                out[bits[q] // 62, b] |= np.int64(1) << np.int64(bits[q] % 62)
    return nm


#: no nearness test (:class:`PairTable` without ``near``): empty packed placements
_NO_NEAR = (np.zeros(0, dtype=np.int64), np.zeros((0, 2)), np.zeros(0), 0.0)


class PairTable:
    """Whether two enemy units' placements are Engaged, per pair of placement ids, in a hash table read by compiled
    code (:meth:`words`); the answers come from the caller (``read``: pairs, rows pa, pb, to one bool each), each
    pair asked once. ``near``, where given, gives the placements packed (:meth:`.fastnear.Centres.arrays`) and the
    gap beyond which two are never Engaged: a pair not near is False at once, neither asked nor kept.

    >>> tab = PairTable(lambda pairs: pairs.sum(axis=1) == 5)
    >>> rows = np.array([[2, 3, -1], [2, 4, 0], [-1, 3, 3]])  # boards: unit 0 Engaged with unit 1 where 2 + 3
    >>> tab.words(rows, 0, [1, 2], [True, True], [0, 1], 1).tolist()
    [[1], [0], [0]]
    """

    def __init__(
        self,
        read: Callable[[np.ndarray], np.ndarray],
        near: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray, float]] | None = None,
    ) -> None:
        self._read = read
        self._near = near
        self._keys = np.full((1024, 2), -1, dtype=np.int64)
        self._vals = np.zeros(1024, dtype=np.bool_)
        self._n = 0

    def _put(self, pairs: np.ndarray, got: np.ndarray) -> None:
        """Put the new ``pairs`` (rows pa, pb, each once) with their answers, the table kept at most half full."""
        size = self._keys.shape[0]
        while 2 * (self._n + pairs.shape[0]) > size:
            size *= 2
        if size > self._keys.shape[0]:
            kept = self._keys[:, 0] != -1
            old = np.ascontiguousarray(self._keys[kept]), np.ascontiguousarray(self._vals[kept])
            self._keys = np.full((size, 2), -1, dtype=np.int64)
            self._vals = np.zeros(size, dtype=np.bool_)
            _put_kernel(self._keys, self._vals, *old)
        _put_kernel(self._keys, self._vals, pairs, np.ascontiguousarray(got, dtype=np.bool_))
        self._n += pairs.shape[0]

    def set_words(
        self,
        out: np.ndarray,
        rows: np.ndarray,
        new: np.ndarray,
        old: np.ndarray,
        u: int,
        others: np.ndarray,
        firsts: np.ndarray,
        bits: np.ndarray,
        keep: np.ndarray,
    ) -> None:
        """Column ``new[k]`` of ``out`` (int64, words x boards), for each ``k``: column ``old[k]``'s words with the bits
        of ``keep`` only (none where ``old[k]`` is -1), and the Engaged bits of unit ``u``'s pairs on board ``new[k]``
        (a row of ``rows``, every unit's placement): pair q with unit ``others[q]`` (``u`` its first unit where
        ``firsts[q]``) is bit ``bits[q]`` (word ``bits[q] // 62``). The pairs not yet read are read first, each once.
        ``old`` names no column of ``new``; the arrays are C-contiguous, int64 (``firsts`` bool). One compiled pass
        (two where a pair was not read yet)."""
        miss = np.empty((new.size * others.size, 2), dtype=np.int64)
        near = _NO_NEAR if self._near is None else self._near()
        args = (rows, new, old, u, others, firsts, bits, self._keys, self._vals, out, keep, miss, *near)
        nm = _pair_words_kernel(*args)
        if nm:
            pairs = np.ascontiguousarray(miss[:nm])
            self._put(pairs, self._read(pairs))  # may grow the table: its new arrays read below
            keys, vals = self._keys, self._vals
            _pair_words_kernel(rows, new, old, u, others, firsts, bits, keys, vals, out, keep, miss, *near)

    def words(
        self,
        rows: np.ndarray,
        u: int,
        others: Sequence[int] | np.ndarray,
        firsts: Sequence[bool] | np.ndarray,
        bits: Sequence[int] | np.ndarray,
        n_words: int,
    ) -> np.ndarray:
        """Per board (row of ``rows``, every unit's placement), the Engaged bits of unit ``u``'s pairs: pair k with
        unit ``others[k]`` (``u`` its first unit where ``firsts[k]``) is bit ``bits[k]`` (word ``bits[k] // 62``):
        :meth:`set_words` of each row from none."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        n = rows.shape[0]
        out = np.zeros((n_words, n), dtype=np.int64)
        sets = (np.asarray(others, dtype=np.int64), np.asarray(firsts, dtype=np.bool_), np.asarray(bits, np.int64))
        self.set_words(out, rows, np.arange(n), np.full(n, -1), u, *sets, np.zeros(n_words, dtype=np.int64))
        return np.ascontiguousarray(out.T)


__all__ = ["BoardTable", "PairTable"]
