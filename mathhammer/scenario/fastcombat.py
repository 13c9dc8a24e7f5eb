"""The Combat Phase's split of its games in compiled code: every group of a step at once.

Close Ranks and the striking models (8.8.1 steps 1 and 2, :mod:`mathhammer.scenario.sim_combat`) read each group of
games (the unit's placement and models left, its Engaged enemies') with the other units near: those whose placement
passes the group's own test (near a box, or near the unit's placement). :class:`GroupsNearSplitter` splits the games
of every group by those placements in one pass: each board of a group read once, each placement tested once per
group, with the same tests as :meth:`World.near_box_many <mathhammer.scenario.geometry.core.BoardState.near_box_many>`
and :meth:`World.near_many <mathhammer.scenario.geometry.core.BoardState.near_many>` (the same doubles), and the same
parts in the same order as :meth:`SimState._near_cols_by <mathhammer.scenario.sim_state.SimState._near_cols_by>` of
each group in turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from .fast import NearSplitter, _group_kernel, _order_of_groups, _regroup_kernel
from .fastnear import near_box_one, near_one

#: the test of a group (:class:`GroupsNearSplitter`): every placement near; a base within ``reach`` of a box; a base
#: possibly within ``reach`` of a base of a placement
EVERY, BOX, PLACEMENT = 0, 1, 2


@njit(**INLINE)
def _near_of(mode, box, pa, reach, p, starts, xy, rads):  # pragma: no cover - compiled
    """Does placement ``p`` pass a group's test: ``mode`` :data:`BOX` as :meth:`Centres.near_box
    <mathhammer.scenario.fastnear.Centres.near_box>` (``box``: x0, y0, x1, y1), :data:`PLACEMENT` as
    :meth:`Centres.near <mathhammer.scenario.fastnear.Centres.near>` of placement ``pa`` (``reach``: the gap)?"""
    if mode == BOX:
        return near_box_one(p, starts, xy, rads, box[0], box[1], box[2], box[3], reach)
    if mode == PLACEMENT:
        return near_one(pa, p, starts, xy, rads, reach)
    return True


@njit(**JIT)
def _groups_near_kernel(
    ids, trials, bounds, rows, units, modes, boxes, pas, reaches, starts, xy, rads, bmarks, pmarks, tick
):  # pragma: no cover - compiled
    """:class:`GroupsNearSplitter`: per group ``g`` (``trials[bounds[g]:bounds[g + 1]]``), its boards in order of
    first trial (``bmarks``: each board's last tick and entry), each board's key (``g``, then the placements of
    ``units`` passing the group's test, -1 for the others; ``pmarks``: each placement's last tick and answer), the
    entries grouped by key (in order of first entry) and their trials' positions (board after board)."""
    n = trials.size
    c = units.size
    ent = np.empty(n, dtype=np.int64)
    ent_b = np.empty(n, dtype=np.int64)
    ent_g = np.empty(n, dtype=np.int64)
    e = np.int64(0)
    for g in range(bounds.size - 1):
        tick += 1
        for i in range(bounds[g], bounds[g + 1]):
            b = ids[trials[i]]
            if bmarks[b, 0] != tick:
                bmarks[b, 0] = tick
                bmarks[b, 1] = e
                ent_b[e] = b
                ent_g[e] = g
                e += 1
            ent[i] = bmarks[b, 1]
    cols = np.empty((c + 1, e), dtype=np.int64)
    last = -1
    for k in range(e):
        g = ent_g[k]
        if g != last:  # a new group: its own answers per placement
            tick += 1
            last = g
        cols[0, k] = g
        b = ent_b[k]
        for j in range(c):
            p = rows[b, units[j]]
            if p >= 0 and pmarks[p, 0] != tick:
                pmarks[p, 0] = tick
                pmarks[p, 1] = 1 if _near_of(modes[g], boxes[g], pas[g], reaches[g], p, starts, xy, rads) else 0
            cols[j + 1, k] = p if p >= 0 and pmarks[p, 1] == 1 else -1
    b_order, b_bounds, keys = _group_kernel(cols, np.arange(c + 1), np.arange(e))
    order, e_bounds = _order_of_groups(ent, e, trials, True)
    out, ends = _regroup_kernel(order, e_bounds, b_order, b_bounds)
    return keys, out, ends, tick


class GroupsNearSplitter(NearSplitter):
    """Games split per group and by the placements of some units that pass the group's test (the module text;
    :meth:`split_groups`), with the scratch marks of :class:`~mathhammer.scenario.fast.NearSplitter`.

    >>> rows = np.array([[-1, -1], [3, 5], [4, 6], [3, 6]])  # board id -> its units' placements
    >>> starts, xy, rads = np.array([0, 0, 0, 0, 1, 2, 3, 4]), np.zeros((4, 2)), np.full(7, 0.5)
    >>> xy[:, 0] = [0.0, 9.0, 1.0, 1.5]  # placements 3, 4, 5, 6: one base each, on the x axis
    >>> splitter = GroupsNearSplitter()
    >>> tests = [(BOX, (0.0, -1.0, 0.5, 1.0), -1, 0.2), (PLACEMENT, (0.0, 0.0, 0.0, 0.0), 3, 0.05)]
    >>> keys, out, ends = splitter.split_groups(np.array([1, 2, 3, 1]), np.array([0, 1, 2, 3]), np.array([0, 2, 4]),
    ...     rows, np.array([0, 1]), tests, (starts, xy, rads))
    >>> keys.tolist(), out.tolist(), ends.tolist()  # group 0: 5 is 0.5" from the box, 6 1"; group 1: 5 touches 3
    ([[0, 3, 5], [0, -1, -1], [1, 3, -1], [1, 3, 5]], [0, 1, 2, 3], [1, 2, 3, 4])
    """

    __slots__ = ()

    def split_groups(
        self,
        ids: np.ndarray,
        trials: np.ndarray,
        bounds: np.ndarray,
        rows: np.ndarray,
        units: np.ndarray,
        tests: list[tuple[int, tuple[float, float, float, float], int, float]],
        centres: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split ``trials`` (group after group: group ``g`` is ``trials[bounds[g]:bounds[g + 1]]``, none empty) by
        ``ids[trial]`` (board ids, rows of ``rows``: each board's placements) read at ``units``, a placement kept
        where the group's test (``tests[g]``: mode, box, placement, reach) holds; ``centres``: every placement's
        centres (:class:`~mathhammer.scenario.fastnear.Centres`: ``starts``, ``xy``, ``rads``). Returns the keys
        (a row per part: the group, then one placement or -1 per unit; group after group, in order of first board
        within one), the positions in ``trials`` of each part (its boards' trials, board after board in order of
        first trial) and each part's end."""
        starts, xy, rads = centres
        self._bmarks = self._room(self._bmarks, rows.shape[0])
        self._pmarks = self._room(self._pmarks, starts.size - 1)
        g = len(tests)
        modes = np.fromiter((t[0] for t in tests), dtype=np.int64, count=g)
        boxes = np.array([t[1] for t in tests], dtype=np.float64).reshape(g, 4)
        pas = np.fromiter((t[2] for t in tests), dtype=np.int64, count=g)
        reaches = np.fromiter((t[3] for t in tests), dtype=np.float64, count=g)
        keys, out, ends, self._tick = _groups_near_kernel(
            ids,
            np.ascontiguousarray(trials, dtype=np.int64),
            np.ascontiguousarray(bounds, dtype=np.int64),
            rows,
            np.ascontiguousarray(units, dtype=np.int64),
            modes,
            boxes,
            pas,
            reaches,
            starts,
            xy,
            rads,
            self._bmarks,
            self._pmarks,
            self._tick,
        )
        return keys, out, ends


__all__ = ["BOX", "EVERY", "PLACEMENT", "GroupsNearSplitter"]
