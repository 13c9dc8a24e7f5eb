"""Numba kernels of the scenario simulation: grouping trials by their state, and counter-based uniforms.

Every step of a scenario is applied to all trials at once, split by the board state they share.
:func:`group_rows` does the split in one pass (a hash table over the rows, exact comparison on a
hash collision), so a step costs O(trials x columns) however many states there are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from ..config import JIT
from ..engine.rng import mix64


@njit(**JIT)
def _order_of_groups(inv, g, items, positions):  # pragma: no cover - compiled
    """Counting sort of the grouping kernels: group after group (0..g-1), in order within one, the items of each
    (``items[i]``, or the position ``i`` with ``positions``) for ``inv[i]`` the group of item ``i``; and each
    group's bounds."""
    n = inv.size
    bounds = np.zeros(g + 1, dtype=np.int64)
    for i in range(n):
        bounds[inv[i] + 1] += 1
    for k in range(g):
        bounds[k + 1] += bounds[k]
    fill = bounds[:g].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = inv[i]
        order[fill[k]] = i if positions else items[i]
        fill[k] += 1
    return order, bounds


@njit(**JIT)
def _one_group(cols, rows, trials):  # pragma: no cover - compiled
    """The grouping kernels' answer where every game has the same columns: the games as given, one group."""
    c = rows.size
    keys1 = np.empty((1, c), dtype=np.int64)
    for j in range(c):
        keys1[0, j] = cols[rows[j], trials[0]]
    bounds1 = np.zeros(2, dtype=np.int64)
    bounds1[1] = trials.size
    return trials.copy(), bounds1, keys1


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
            return _one_group(cols, rows, trials)
    cap = 64  # hash slots; the groups (few) stay below half of it, so the table stays in cache
    table = np.full(cap, -1, dtype=np.int64)
    keys = np.empty((cap // 2, c), dtype=np.int64)
    hashes = np.empty(cap // 2, dtype=np.uint64)
    inv = np.empty(n, dtype=np.int64)
    row = np.empty(c, dtype=np.int64)
    g = 0
    last = -1  # the group of the previous trial: a trial with the same key (runs are common) needs no hashing
    for i in range(n):
        t = trials[i]
        if last >= 0:
            same = True
            for j in range(c):
                if cols[rows[j], t] != keys[last, j]:
                    same = False
                    break
            if same:
                inv[i] = last
                continue
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
                last = g
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
                    last = gid
                    break
            slot = (slot + 1) & mask
    order, bounds = _order_of_groups(inv, g, trials, False)
    return order, bounds, keys[:g].copy()


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
        rows = np.full((cap, self.rows.shape[1]), -1, dtype=np.int64)
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
    top = int(pos[ts].max(initial=-1)) + 1
    if top > firsts.shape[0]:
        grown = np.full((max(top, 2 * firsts.shape[0]), firsts.shape[1]), UNREAD, dtype=np.int64)
        grown[: firsts.shape[0]] = firsts
        firsts = grown
    miss = np.empty(ts.size, dtype=np.int64)
    while True:
        nm = _contest_kernel(pos, alive, used, np.int64(bit), ts, firsts, out, miss)
        if not nm:
            return firsts
        for pid in miss[:nm].tolist():
            for m in range(firsts.shape[1]):
                firsts[pid, m] = read(pid, m)


@njit(**JIT)
def _near_box_kernel(pids, starts, xy, rads, lo0, lo1, hi0, hi1, reach):  # pragma: no cover - compiled
    out = np.zeros(pids.size, dtype=np.bool_)
    for i in range(pids.size):
        p = pids[i]
        lim = reach + rads[p]
        for j in range(starts[p], starts[p + 1]):
            dx = max(max(lo0 - xy[j, 0], xy[j, 0] - hi0), 0.0)
            dy = max(max(lo1 - xy[j, 1], xy[j, 1] - hi1), 0.0)
            if np.hypot(dx, dy) <= lim:
                out[i] = True
                break
    return out


@njit(**JIT)
def _near_kernel(pa, pids, starts, xy, rads, gap):  # pragma: no cover - compiled
    out = np.zeros(pids.size, dtype=np.bool_)
    for i in range(pids.size):
        p = pids[i]
        d = np.inf
        for j in range(starts[pa], starts[pa + 1]):
            for k in range(starts[p], starts[p + 1]):
                dx = xy[j, 0] - xy[k, 0]
                dy = xy[j, 1] - xy[k, 1]
                d = min(d, np.sqrt(dx * dx + dy * dy))
        out[i] = d <= rads[pa] + rads[p] + gap + 0.01
    return out


class Centres:
    """Every placement's model centres packed in one array (rows ``starts[p]`` .. ``starts[p + 1] - 1``) with its base
    radius, appended as placements are made: read by compiled tests of many placements at once.

    >>> c = Centres()
    >>> c.extend([((0.0, 0.0), (1.0, 0.0)), ((5.0, 0.0),)], [0.5, 0.5])
    >>> c.near_box(np.array([0, 1]), np.array([2.0, -1.0]), np.array([3.0, 1.0]), 0.6).tolist()  # 1" to the box
    [True, False]
    >>> c.near(0, np.array([1]), 2.9).tolist(), c.near(0, np.array([1]), 3.0).tolist()  # 4" apart, bases 1"
    ([False], [True])
    """

    def __init__(self) -> None:
        self.xy = np.zeros((256, 2))
        self.starts = np.zeros(257, dtype=np.int64)
        self.rads = np.zeros(256)
        self.n = 0

    def extend(self, centres: Sequence[Sequence[tuple[float, float]]], rads: Sequence[float]) -> None:
        """Append placements ``n``, ``n + 1``, ... (their centres and base radii)."""
        rows = sum(len(c) for c in centres)
        end = int(self.starts[self.n])
        while self.n + len(centres) >= self.rads.size or end + rows > self.xy.shape[0]:
            grow = self.rads.size * 2
            self.rads = np.concatenate([self.rads, np.zeros(grow - self.rads.size)])
            self.starts = np.concatenate([self.starts, np.zeros(grow + 1 - self.starts.size, dtype=np.int64)])
            self.xy = np.concatenate([self.xy, np.zeros((max(self.xy.shape[0], rows), 2))])
        for c, r in zip(centres, rads, strict=True):
            self.xy[end : end + len(c)] = c
            end += len(c)
            self.rads[self.n] = r
            self.n += 1
            self.starts[self.n] = end

    def near_box(self, pids: np.ndarray, lo: np.ndarray, hi: np.ndarray, reach: float) -> np.ndarray:
        """Per placement of ``pids``: a centre within ``reach`` + its radius of the box ``lo``-``hi`` (numpy's
        ``hypot`` of the per-axis gaps, to the last bit)."""
        lo0, lo1, hi0, hi1 = float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])
        args = (self.starts, self.xy, self.rads, lo0, lo1, hi0, hi1, float(reach))
        return _near_box_kernel(np.ascontiguousarray(pids, dtype=np.int64), *args)  # type: ignore[no-any-return]

    def near(self, pa: int, pids: np.ndarray, gap: float) -> np.ndarray:
        """Per placement of ``pids``: could a base of it be within ``gap`` of one of ``pa`` (nearest centres less the
        radii, and 0.01"; numpy's ``sqrt`` of the summed squares, to the last bit)?"""
        args = (self.starts, self.xy, self.rads, float(gap))
        return _near_kernel(int(pa), np.ascontiguousarray(pids, dtype=np.int64), *args)  # type: ignore[no-any-return]


@njit(**JIT)
def _winners_kernel(table, supply, players, live):  # pragma: no cover - compiled
    out = np.full((table.shape[1], table.shape[2]), -1, dtype=np.int64)
    for m in range(table.shape[1]):
        for t in live:
            s0, s1, a0, a1 = 0, 0, False, False
            for u in range(table.shape[0]):
                if table[u, m, t]:
                    if players[u] == 0:
                        s0 += supply[u, t]
                        a0 = True
                    else:
                        s1 += supply[u, t]
                        a1 = True
            if a0 and (not a1 or s0 > s1):
                out[m, t] = 0
            elif a1 and (not a0 or s1 > s0):
                out[m, t] = 1
    return out


def control_winners(table: np.ndarray, supply: np.ndarray, players: np.ndarray, live: np.ndarray) -> np.ndarray:
    """8.9.1 CALCULATE CONTROL, per marker and game of ``live`` (others -1): the player (0, 1) whose contesting units
    (``table[u, m, t]``, unit ``u`` of player ``players[u]``) alone contest it, or whose summed ``supply`` is higher;
    -1 where nobody contests or the sums tie.

    >>> table = np.array([[[True, True, False]], [[True, False, False]]])  # 2 units, 1 marker, 3 games
    >>> control_winners(table, np.array([[2, 2, 2], [2, 2, 2]]), np.array([0, 1]), np.arange(3)).tolist()
    [[-1, 0, -1]]
    """
    live = np.ascontiguousarray(live, dtype=np.int64)
    return _winners_kernel(table, np.ascontiguousarray(supply), players, live)  # type: ignore[no-any-return]


@njit(**JIT)
def _by_id_kernel(ids, trials, marks, tick):  # pragma: no cover - compiled
    n = trials.size
    firsts = np.empty(n, dtype=np.int64)
    inv = np.empty(n, dtype=np.int64)
    g = 0
    for i in range(n):
        b = ids[trials[i]]
        if marks[b, 0] != tick:  # the first trial of this id in the call: a new group, no hashing
            marks[b, 0] = tick
            marks[b, 1] = g
            firsts[g] = b
            g += 1
        inv[i] = marks[b, 1]
    order, bounds = _order_of_groups(inv, g, trials, True)
    return order, bounds, firsts[:g].copy()


class IdGrouper:
    """:func:`group_rows` of one column of small non-negative ids (board ids) without hashing: a group's slot is
    read by the id, from a scratch array kept between calls (each id's last call and its group there; never
    cleared).

    >>> grouper = IdGrouper()
    >>> order, bounds, ids = grouper.split(np.array([5, 2, 5, 7]), np.array([3, 0, 2, 1]), 8)
    >>> order.tolist(), bounds.tolist(), ids.tolist()  # positions in the trials, per id in order of first trial
    ([0, 1, 2, 3], [0, 1, 3, 4], [7, 5, 2])
    """

    __slots__ = ("_marks", "_tick")

    def __init__(self) -> None:
        self._marks = np.zeros((0, 2), dtype=np.int64)
        self._tick = 0

    def split(self, ids: np.ndarray, trials: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split ``trials`` by ``ids[trial]`` (each below ``top``): positions in ``trials`` reordered group by
        group (groups in order of their first trial, trials in order within one), each group's bounds in them,
        each group's id (the same as ``group_rows(ids[trials][None, :], np.arange(trials.size))`` with the keys
        as one column)."""
        if top > self._marks.shape[0]:
            marks = np.zeros((max(top, 2 * self._marks.shape[0], 1024), 2), dtype=np.int64)
            marks[: self._marks.shape[0]] = self._marks
            self._marks = marks
        self._tick += 1
        return _by_id_kernel(ids, np.ascontiguousarray(trials, dtype=np.int64), self._marks, self._tick)  # type: ignore[no-any-return]


@njit(**JIT)
def _regroup_kernel(order, bounds, b_order, b_bounds):  # pragma: no cover - compiled
    out = np.empty(order.size, dtype=np.int64)
    ends = np.empty(b_bounds.size - 1, dtype=np.int64)
    c = 0
    for g in range(b_bounds.size - 1):
        for k in range(b_bounds[g], b_bounds[g + 1]):
            b = b_order[k]
            for i in range(bounds[b], bounds[b + 1]):
                out[c] = order[i]
                c += 1
        ends[g] = c
    return out, ends


def regroup(
    order: np.ndarray, bounds: np.ndarray, b_order: np.ndarray, b_bounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Groups of groups: items split into groups (``order``, ``bounds``), the groups split again (``b_order``,
    ``b_bounds``, indices of groups); returns the items of each outer group (its groups' items, group after
    group in the order of ``b_order``) and each outer group's end.

    >>> out, ends = regroup(np.array([4, 0, 3, 1, 2]), np.array([0, 2, 4, 5]), np.array([0, 2, 1]), np.array([0, 2, 3]))
    >>> out.tolist(), ends.tolist()
    ([4, 0, 2, 3, 1], [3, 5])
    """
    return _regroup_kernel(order, bounds, b_order, b_bounds)  # type: ignore[no-any-return]


#: :func:`group_state` codes of at most this many bits are looked up in a table of every code.
_DIRECT_BITS = 12


#: :func:`group_state` reads the columns row after row where its games are more than this many columns apart on
#: average, game after game otherwise (measurements: ``benchmarks/RESULTS.md``, scenario section).
_SPARSE = 4


@njit(**JIT)
def _widen(bits, r, v):  # pragma: no cover - compiled
    """Widen row ``r``'s field to hold ``v`` (a value + 1; negative: the widest)."""
    if v < 0:
        bits[r] = 63
    else:
        w = bits[r]
        while v >> w != 0:
            w += 1
        bits[r] = w


@njit(**JIT)
def _coded_kernel(cols, rows, trials, bits):  # pragma: no cover - compiled
    c = rows.size
    n = trials.size
    shift = np.empty(c, dtype=np.int64)
    total = 0
    for j in range(c - 1, -1, -1):
        shift[j] = total
        total += bits[rows[j]]
    if total > 62 or n == 0:  # no room in one int64: hash the columns
        return _group_kernel(cols, rows, trials)
    codes = np.empty(n, dtype=np.int64)
    fits = True
    if c > 1 and trials[n - 1] - trials[0] > _SPARSE * n:
        # games far apart (each read a cache miss): row after row, which keeps more reads in flight
        for i in range(n):
            codes[i] = 0
        for j in range(c):
            r = rows[j]
            s = shift[j]
            for i in range(n):
                v = cols[r, trials[i]] + 1
                if v < 0 or v >> bits[r] != 0:  # wider than its row's field: widen it; this call hashes the columns
                    _widen(bits, r, v)
                    fits = False
                elif fits:
                    codes[i] |= v << s
    else:
        for i in range(n):
            t = trials[i]
            code = 0
            for j in range(c):
                r = rows[j]
                v = cols[r, t] + 1
                if v < 0 or v >> bits[r] != 0:  # wider than its row's field: widen it; this call hashes the columns
                    _widen(bits, r, v)
                    fits = False
                elif fits:
                    code |= v << shift[j]
            codes[i] = code
    if not fits:
        return _group_kernel(cols, rows, trials)
    first = codes[0]
    same = True
    for i in range(1, n):
        if codes[i] != first:
            same = False
            break
    if same:  # one group (common): the games as they come
        return _one_group(cols, rows, trials)
    inv = np.empty(n, dtype=np.int64)
    firsts = np.empty(n, dtype=np.int64)
    g = 0
    if total <= _DIRECT_BITS:  # a table of every code
        table = np.full(1 << total, -1, dtype=np.int64)
        for i in range(n):
            k = codes[i]
            gid = table[k]
            if gid < 0:
                gid = table[k] = g
                firsts[g] = trials[i]
                g += 1
            inv[i] = gid
    else:  # a hash table of the codes (one int64 each), runs of one code without hashing
        cap = 64
        table = np.full(cap, -1, dtype=np.int64)
        tkeys = np.empty(cap // 2, dtype=np.int64)
        last = -1
        lastcode = np.int64(-1)
        for i in range(n):
            k = codes[i]
            if k == lastcode:
                inv[i] = last
                continue
            mask = cap - 1
            slot = np.int64(mix64(np.uint64(k)) & np.uint64(mask))
            while True:
                gid = table[slot]
                if gid < 0:
                    if 2 * (g + 1) > cap:
                        cap *= 2
                        mask = cap - 1
                        table = np.full(cap, -1, dtype=np.int64)
                        tk2 = np.empty(cap // 2, dtype=np.int64)
                        for q in range(g):
                            tk2[q] = tkeys[q]
                            s2 = np.int64(mix64(np.uint64(tkeys[q])) & np.uint64(mask))
                            while table[s2] >= 0:
                                s2 = (s2 + 1) & mask
                            table[s2] = q
                        tkeys = tk2
                        slot = np.int64(mix64(np.uint64(k)) & np.uint64(mask))
                        while table[slot] >= 0:
                            slot = (slot + 1) & mask
                    table[slot] = g
                    tkeys[g] = k
                    firsts[g] = trials[i]
                    gid = g
                    g += 1
                    break
                if tkeys[gid] == k:
                    break
                slot = (slot + 1) & mask
            inv[i] = gid
            last = gid
            lastcode = k
    keys = np.empty((g, c), dtype=np.int64)
    for q in range(g):
        t = firsts[q]
        for j in range(c):
            keys[q, j] = cols[rows[j], t]
    order, bounds = _order_of_groups(inv, g, trials, False)
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


def group_state(
    state: np.ndarray, rows: np.ndarray, trials: np.ndarray, bits: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`group_rows` of ``state[rows]`` without copying the rows (``state``: C-contiguous int64).

    With ``bits`` (one per row of ``state``, kept by the caller between calls), each trial's columns are packed
    into one int64 (a field of ``bits[row]`` bits per row, holding the value + 1) and the trials are grouped by
    that code: one read of the columns and no hashing of them. A value that does not fit widens its row's field
    (``bits`` is updated) and that call hashes the columns instead; so do columns needing more than 62 bits. The
    split is the same either way.

    >>> state = np.array([[4, -1, 4, 9], [0, -1, 0, 0]])
    >>> bits = np.ones(2, dtype=np.int64)
    >>> order, bounds, keys = group_state(state, np.array([0, 1]), np.arange(4), bits)  # widens: hashed
    >>> order.tolist(), bounds.tolist(), keys.tolist(), bits.tolist()
    ([0, 2, 1, 3], [0, 2, 3, 4], [[4, 0], [-1, -1], [9, 0]], [4, 1])
    >>> [a.tolist() for a in group_state(state, np.array([0, 1]), np.arange(4), bits)] == [
    ...     order.tolist(), bounds.tolist(), keys.tolist()]  # coded
    True
    """
    trials = np.ascontiguousarray(trials, dtype=np.int64)
    if bits is None:
        return _group_kernel(state, rows, trials)  # type: ignore[no-any-return]
    return _coded_kernel(state, rows, trials, bits)  # type: ignore[no-any-return]


__all__ = [
    "UNREAD",
    "BoardTable",
    "IdGrouper",
    "PairTable",
    "clear_of",
    "contest_rows",
    "group_rows",
    "group_state",
    "near_any",
    "regroup",
    "supply_matrix",
]
