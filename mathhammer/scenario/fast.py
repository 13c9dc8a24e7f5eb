"""Numba kernels of the scenario simulation: grouping trials by their state.

Every step of a scenario is applied to all trials at once, split by the board state they share.
:func:`group_rows` does the split in one pass (a hash table over the rows, exact comparison on a
hash collision), so a step costs O(trials x columns) however many states there are. The other kernels, by concern:
:mod:`.fasttables` (the board and pair tables: placements interned to ids), :mod:`.fastnear` (bases clear of and
near others, for the geometry), :mod:`.fastcontrol` (Current Supply Values, contesting and controlling markers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from ..engine.rng import mix64
from .fastfetch import AHEAD, fetch, fetch2


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
def _order_of_counts(inv, counts, g, trials):  # pragma: no cover - compiled
    """:func:`_order_of_groups` of ``trials`` where each group's size (``counts``) is known: the trials group after
    group, in order within one, and each group's bounds."""
    bounds = np.empty(g + 1, dtype=np.int64)
    bounds[0] = 0
    for k in range(g):
        bounds[k + 1] = bounds[k] + counts[k]
    fill = bounds[:g].copy()
    order = np.empty(inv.size, dtype=np.int64)
    for i in range(inv.size):
        k = inv[i]
        order[fill[k]] = trials[i]
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
    g = np.int64(0)  # not the literal 0: _order_of_groups would compile for Literal[int](0) too
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
                        for j in range(c):  # element by element: a row copy compiles numba's shape-error message
                            keys2[k, j] = keys[k, j]
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
def _by_id_kernel(ids, trials, marks, tick):  # pragma: no cover - compiled
    n = trials.size
    firsts = np.empty(n, dtype=np.int64)
    inv = np.empty(n, dtype=np.int64)
    g = np.int64(0)  # not the literal 0: _order_of_groups would compile for Literal[int](0) too
    last_i = n - 1
    for i in range(min(n, AHEAD)):
        fetch(ids, trials[i])
    for i in range(n):
        # two steps ahead: the id of the game 2 * AHEAD places on, and the marks of the id AHEAD places on (read
        # fetched AHEAD games ago); scattered games and boards, a cache miss each
        fetch(ids, trials[min(i + 2 * AHEAD, last_i)])
        fetch2(marks, ids[trials[min(i + AHEAD, last_i)]], 0)
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


@njit(**JIT)
def _near_cells_kernel(ids, trials, rows, units, bmarks, pmarks, tick):  # pragma: no cover - compiled
    """:class:`NearSplitter` step 1: ``trials`` split by board id (as :func:`_by_id_kernel`), and the placements of
    ``units`` on those boards, each once (in order of first board, then unit; ``pmarks[p, 1]``: its index). Every
    trial on one board (common: half the games split so): found by one read of the ids, the trials as they come."""
    n = trials.size
    b0 = ids[trials[0]] if n else 0
    one = n > 0
    lo = 0
    while lo < n and one:  # blocks of trials, each branch-free: a second board is found in the first blocks
        hi = min(n, lo + 512)
        d = 0
        for i in range(lo, hi):
            d |= ids[trials[i]] ^ b0
        one = d == 0
        lo = hi
    if one:
        order = np.arange(n)
        bounds = np.zeros(2, dtype=np.int64)
        bounds[1] = n
        bids = np.full(1, b0, dtype=np.int64)
    else:
        order, bounds, bids = _by_id_kernel(ids, trials, bmarks, tick)
    c = units.size
    pids = np.empty(bids.size * c, dtype=np.int64)
    m = 0
    last_k = bids.size - 1
    for k in range(bids.size):
        fetch2(rows, bids[min(k + AHEAD, last_k)], 0)  # the board AHEAD places on (boards scattered in the table)
        b = bids[k]
        for j in range(c):
            p = rows[b, units[j]]
            if p >= 0 and pmarks[p, 0] != tick:
                pmarks[p, 0] = tick
                pmarks[p, 1] = m
                pids[m] = p
                m += 1
    return order, bounds, bids, pids[:m].copy()


@njit(**JIT)
def _near_keys_kernel(order, bounds, bids, rows, units, pmarks, flag):  # pragma: no cover - compiled
    """:class:`NearSplitter` step 2: each board's key (the placements of ``units`` whose ``flag`` holds, -1 for the
    others), the boards grouped by key (in order of first board), and their trials' positions (:func:`regroup`)."""
    g = bids.size
    c = units.size
    cols = np.empty((c, g), dtype=np.int64)
    for k in range(g):
        b = bids[k]
        for j in range(c):
            p = rows[b, units[j]]
            cols[j, k] = p if p >= 0 and flag[pmarks[p, 1]] else -1
    b_order, b_bounds, keys = _group_kernel(cols, np.arange(c), np.arange(g))
    out, ends = _regroup_kernel(order, bounds, b_order, b_bounds)
    return out, ends, keys


class NearSplitter:
    """Trials split by the placements of some units that pass a test, read per board (two compiled passes around
    the test): the split of :meth:`SimState._near_cols_by <mathhammer.scenario.sim_state.SimState._near_cols_by>`.

    >>> rows = np.array([[-1, -1, -1], [3, 5, 0], [4, 6, 1], [3, 5, 2]])  # board id -> its units' placements
    >>> splitter = NearSplitter()
    >>> ids = np.array([1, 2, 3, 1, 3])  # each trial's board
    >>> keys, out, ends = splitter.split(ids, np.arange(5), rows, np.array([0, 1]), lambda ps: ps != 6, 7)
    >>> keys.tolist(), out.tolist(), ends.tolist()  # boards 1 and 3 read the same (3, 5); placement 6 fails
    ([[3, 5], [4, -1]], [0, 3, 2, 4, 1], [4, 5])
    """

    __slots__ = ("_bmarks", "_pmarks", "_tick")

    def __init__(self) -> None:
        self._bmarks = np.zeros((0, 2), dtype=np.int64)
        self._pmarks = np.zeros((0, 2), dtype=np.int64)
        self._tick = 0

    @staticmethod
    def _room(marks: np.ndarray, top: int) -> np.ndarray:
        if top <= marks.shape[0]:
            return marks
        grown = np.zeros((max(top, 2 * marks.shape[0], 1024), 2), dtype=np.int64)
        grown[: marks.shape[0]] = marks
        return grown

    def split(
        self,
        ids: np.ndarray,
        trials: np.ndarray,
        rows: np.ndarray,
        units: np.ndarray,
        test: Callable[[np.ndarray], np.ndarray],
        places: int,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split ``trials`` (non-empty) by ``ids[trial]`` (board ids, rows of ``rows``: each board's placements, ids
        below ``places``) read at ``units``, a placement kept where ``test(placements)`` holds (-1 otherwise and off
        the table). Returns the keys (a row per group, in order of first board), the positions in ``trials`` of
        each group (its boards' trials, board after board in order of first trial), and each group's end."""
        self._bmarks = self._room(self._bmarks, rows.shape[0])
        self._pmarks = self._room(self._pmarks, places)
        self._tick += 1
        order, bounds, bids, pids = _near_cells_kernel(ids, trials, rows, units, self._bmarks, self._pmarks, self._tick)
        flag = np.asarray(test(pids), dtype=np.bool_) if pids.size else np.zeros(0, dtype=np.bool_)
        out, ends, keys = _near_keys_kernel(order, bounds, bids, rows, units, self._pmarks, flag)
        return keys, out, ends


#: :func:`group_state` codes of at most this many bits are looked up in a table of every code; so are codes of at
#: most ``_TABLE_BITS`` where the games are at least as many as the table's entries.
_DIRECT_BITS = 12
_TABLE_BITS = 16


#: :func:`group_state` packs every row, without first reading which vary, where it has this many rows or more and
#: its games are close together (measurements: ``benchmarks/RESULTS.md``, issue 26 session 9).
_MANY_ROWS = 6


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
def _varying_rows(cols, rows, trials, bits):  # pragma: no cover - compiled
    """The rows of ``rows`` whose value is not the same in every game of ``trials`` (non-empty), read row after row
    in blocks of games (each block branch-free, so it vectorises; a row that varies is found in its first blocks);
    a constant row's field is widened to hold its one value."""
    n = trials.size
    t0 = trials[0]
    vary = np.empty(rows.size, dtype=np.int64)
    nv = 0
    for j in range(rows.size):
        r = rows[j]
        f = cols[r, t0]
        d = 0
        lo = 0
        while lo < n and d == 0:
            hi = min(n, lo + 512)
            for i in range(lo, hi):
                d |= cols[r, trials[i]] ^ f
            lo = hi
        if d != 0:
            vary[nv] = r
            nv += 1
        elif f + 1 < 0 or (f + 1) >> bits[r] != 0:
            _widen(bits, r, f + 1)
    return vary[:nv]


@njit(**JIT)
def _table_codes(codes, trials, inv, counts, firsts, total):  # pragma: no cover - compiled
    """:func:`_hash_codes` of codes below ``1 << total``, by a table of every code."""
    table = np.full(1 << total, -1, dtype=np.int64)
    g = np.int64(0)
    for i in range(codes.size):
        k = codes[i]
        gid = table[k]
        if gid < 0:
            gid = table[k] = g
            firsts[g] = trials[i]
            g += 1
        inv[i] = gid
        counts[gid] += 1
    return g


@njit(**JIT)
def _hash_codes(codes, trials, inv, counts, firsts):  # pragma: no cover - compiled
    """Group the games by their codes (a hash table of the codes, one int64 each; runs of one code without
    hashing): each game's group ``inv``, each group's size ``counts`` and first game ``firsts``; returns the
    number of groups."""
    cap = 64
    table = np.full(cap, -1, dtype=np.int64)
    tkeys = np.empty(cap // 2, dtype=np.int64)
    g = np.int64(0)
    last = -1
    lastcode = np.int64(-1)
    for i in range(codes.size):
        k = codes[i]
        if k == lastcode:
            inv[i] = last
            counts[last] += 1
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
        counts[gid] += 1
        last = gid
        lastcode = k
    return g


@njit(**JIT)
def _not_coded(c):  # pragma: no cover - compiled
    """:func:`_coded_kernel`'s answer where the keys are not packed: the caller hashes the columns."""
    return False, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty((0, c), dtype=np.int64)


@njit(**INLINE)
def _code_of(cols, vary, width, shift, t):  # pragma: no cover - compiled
    """Game ``t``'s packed key (each row of ``vary``: its value + 1 in ``width`` bits at ``shift``), and non-zero
    where a value does not fit its field."""
    code = 0
    over = 0
    for j in range(vary.size):
        v = cols[vary[j], t] + 1
        over |= v >> width[j]
        code |= v << shift[j]
    return code, over


@njit(**JIT)
def _finish(cols, rows, trials, inv, counts, firsts, g):  # pragma: no cover - compiled
    """The grouping kernels' answer from each trial's group ``inv``, each group's size and first trial: (True, the
    trials group after group, the bounds, each group's key read at its first trial)."""
    keys = np.empty((g, rows.size), dtype=np.int64)
    for q in range(g):
        t = firsts[q]
        for j in range(rows.size):
            keys[q, j] = cols[rows[j], t]
    order, bounds = _order_of_counts(inv, counts, g, trials)
    return True, order, bounds, keys


@njit(**JIT)
def _one_row_hashed(cols, rows, r, trials):  # pragma: no cover - compiled
    """:func:`_coded_kernel`'s answer where only row ``r`` varies among ``trials``: its values hashed as they are
    (any int64, no field)."""
    n = trials.size
    codes = np.empty(n, dtype=np.int64)
    for i in range(n):
        codes[i] = cols[r, trials[i]]
    inv = np.empty(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    firsts = np.empty(n, dtype=np.int64)
    g = _hash_codes(codes, trials, inv, counts, firsts)
    return _finish(cols, rows, trials, inv, counts, firsts, g)


@njit(**JIT)
def _coded_kernel(cols, rows, trials, bits):  # pragma: no cover - compiled
    c = rows.size
    n = trials.size
    if n == 0:
        return _not_coded(c)
    if c >= _MANY_ROWS and trials[n - 1] - trials[0] <= _SPARSE * n:
        vary = rows.copy()  # many rows of games close together: the reads to find the constant ones cost more
    else:
        vary = _varying_rows(cols, rows, trials, bits)
    nv = vary.size
    if nv == 0:  # one group (common): the games as they come
        order1, bounds1, keys1 = _one_group(cols, rows, trials)
        return True, order1, bounds1, keys1
    # only the rows that vary are packed: a constant row is every group's
    shift = np.empty(nv, dtype=np.int64)
    width = np.empty(nv, dtype=np.int64)
    total = 0
    for j in range(nv - 1, -1, -1):
        shift[j] = total
        width[j] = bits[vary[j]]
        total += width[j]
    if total > 62:  # no room in one int64: one row's values hashed as they are, or the columns hashed (the caller)
        if nv == 1:
            return _one_row_hashed(cols, rows, vary[0], trials)
        return _not_coded(c)
    room = min(n, 1 << total)
    inv = np.empty(n, dtype=np.int64)
    counts = np.zeros(room, dtype=np.int64)
    firsts = np.empty(room, dtype=np.int64)
    g = np.int64(0)  # not the literal 0
    over = 0  # non-zero: a value wider than its row's field (or below -1)
    # a table of every code where it is small, or small beside the games; hashed codes otherwise
    direct = total <= _DIRECT_BITS or (total <= _TABLE_BITS and 1 << total <= n)
    scattered = nv > 1 and trials[n - 1] - trials[0] > _SPARSE * n
    if direct and not scattered:  # one pass: each game's code and its group
        table = np.full(1 << total, -1, dtype=np.int64)
        for i in range(n):
            t = trials[i]
            code, over = _code_of(cols, vary, width, shift, t)
            if over != 0:
                break
            gid = table[code]
            if gid < 0:
                gid = table[code] = g
                firsts[g] = t
                g += 1
            inv[i] = gid
            counts[gid] += 1
    else:
        codes = np.zeros(n, dtype=np.int64)
        if scattered:  # games far apart (each read a cache miss): row after row, which keeps more reads in flight
            for j in range(nv):
                r = vary[j]
                s = shift[j]
                w = width[j]
                for i in range(n):
                    v = cols[r, trials[i]] + 1
                    over |= v >> w
                    codes[i] |= v << s
        else:
            for i in range(n):
                code, wide = _code_of(cols, vary, width, shift, trials[i])
                over |= wide
                codes[i] = code
        if over == 0:
            if direct:
                g = _table_codes(codes, trials, inv, counts, firsts, total)
            else:
                g = _hash_codes(codes, trials, inv, counts, firsts)
    if over != 0:  # widen the fields that are too narrow; this call hashes the columns
        for j in range(nv):
            r = vary[j]
            for i in range(n):
                v = cols[r, trials[i]] + 1
                if v < 0 or v >> bits[r] != 0:
                    _widen(bits, r, v)
        if nv == 1:  # one row: its values hashed as they are
            return _one_row_hashed(cols, rows, vary[0], trials)
        return _not_coded(c)
    return _finish(cols, rows, trials, inv, counts, firsts, g)


def _widths(cols: np.ndarray) -> np.ndarray:
    """Per row of ``cols``, the field a packed key needs for it (:func:`group_state`'s ``bits``: every value + 1
    fits; 63 where a value is below -1)."""
    if cols.shape[1] == 0:
        return np.ones(cols.shape[0], dtype=np.int64)
    wide = [
        63 if lo < -1 else max(1, (hi + 1).bit_length())
        for lo, hi in zip(cols.min(axis=1).tolist(), cols.max(axis=1).tolist(), strict=True)
    ]
    return np.array(wide, dtype=np.int64)


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
    trials = np.ascontiguousarray(trials, dtype=np.int64)
    # packed as group_state packs, each row's field as wide as its widest value (one row that varies: hashed as it is)
    coded, order, bounds, keys = _coded_kernel(cols, rows, trials, _widths(cols))  # coded: the widths fit
    if not coded:
        return _group_kernel(cols, rows, trials)  # type: ignore[no-any-return]
    return order, bounds, keys


def group_state(
    state: np.ndarray, rows: np.ndarray, trials: np.ndarray, bits: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`group_rows` of ``state[rows]`` without copying the rows (``state``: C-contiguous int64).

    With ``bits`` (one per row of ``state``, kept by the caller between calls), the rows are first read for the
    ones that vary among the trials (none: one group, no more reads); the columns of those are packed into one
    int64 per trial (a field of ``bits[row]`` bits per row, holding the value + 1) and the trials are grouped by
    that code (at most :data:`_DIRECT_BITS` bits: in the same pass, by a table of every code), no hashing of the
    columns. A value that does not fit widens its row's field (``bits`` is updated) and the call packs again with
    the wider fields; varying columns needing more than 62 bits are hashed. The split is the same either way.

    >>> state = np.array([[4, -1, 4, 9], [0, -1, 0, 0]])
    >>> bits = np.ones(2, dtype=np.int64)
    >>> order, bounds, keys = group_state(state, np.array([0, 1]), np.arange(4), bits)  # widens: packed again
    >>> order.tolist(), bounds.tolist(), keys.tolist(), bits.tolist()
    ([0, 2, 1, 3], [0, 2, 3, 4], [[4, 0], [-1, -1], [9, 0]], [4, 1])
    >>> [a.tolist() for a in group_state(state, np.array([0, 1]), np.arange(4), bits)] == [
    ...     order.tolist(), bounds.tolist(), keys.tolist()]  # coded
    True
    """
    trials = np.ascontiguousarray(trials, dtype=np.int64)
    if bits is None:
        return _group_kernel(state, rows, trials)  # type: ignore[no-any-return]
    before = bits.copy()
    coded, order, bounds, keys = _coded_kernel(state, rows, trials, bits)
    if not coded and not np.array_equal(bits, before):  # a value wider than its field: packed again, widened
        coded, order, bounds, keys = _coded_kernel(state, rows, trials, bits)
    if not coded:  # more than 62 bits: hashed
        return _group_kernel(state, rows, trials)  # type: ignore[no-any-return]
    return order, bounds, keys


__all__ = ["IdGrouper", "NearSplitter", "group_rows", "group_state", "regroup"]
