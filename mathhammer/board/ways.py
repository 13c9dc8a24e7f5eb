"""The way of a Leading Model to a Mission Marker's contest range round the terrain (issue 29: the automatic players'
``marker_moves``, :mod:`mathhammer.scenario.players.ways`).

8.5.3 step 1: "Measure the actual path travelled. ... The Leading Model cannot move through terrain of Size 2 or
larger. Follow Gap Clearance rules (Part 4.6)." The same pathing as a Move's and a Charge's
(:mod:`~mathhammer.board.pathing`): the Leading Model's centre stays out of the path obstacles grown by its base's
radius (:func:`~mathhammer.board.cspace.blocks_path`: Size 2+ pieces, not GRASS, not Tokens; IMPASSABLE pieces of
Size ``through`` or less crossed with Raptor Strain), on the table; a point that already touches an obstacle (a
placement next to a wall) leaves that obstacle out of its own legs. The goal is a marker's contest range (8.9.1: the
Leading Model Within ``reach`` of the marker): a disc.

:class:`WayGraph` is the visibility graph of one (board, base radius, ``through``): the corners of the grown
obstacles and the straight legs between them that meet none. :meth:`WayGraph.field` is, per marker, each corner's
shortest way to the disc (Dijkstra from the disc: a corner's first guess is its straight leg to the disc's nearest
point where that leg is clear, else to the nearest of :data:`DISC_SAMPLES` points of the disc's edge it sees);
:meth:`WayGraph.lengths` reads a point's way as the least of the same straight guesses and a clear leg to a corner
plus that corner's way. A shortest way round polygons bends only at their corners, and its last leg ends on the
disc's edge: exact but for the disc's samples (where the nearest point of the disc is hidden) and the obstacles'
circumscribed growth (at most ``r * (GROW - 1)``). The legs are tested compiled (:mod:`.fastways`: decided by
orientation signs, the undecided ones by shapely), every point of a call at once, a point's candidate corners (and
disc samples) nearest way first until a clear one: the least over the clear legs without testing those that cannot
be it (the same answers to the bit as testing them all: tests/test_ways_fast.py). :meth:`WayGraph.apart` is a
point-to-point way through the corners (their all-pairs shortest ways, once per graph): the graph
:func:`~mathhammer.board.pathing.shortest_route` searches on a table without tops, summed in another order.

Readings: the ways are on the playmat; a way up or down a piece through its ACCESS POINTs is not read (no preset
has a piece with a top), and a point on a piece's top leaves that piece out of its own legs (it steps off anywhere);
other units' bases are not obstacles (as a Move's path, :mod:`~mathhammer.board.pathing`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .fastways import Pack, least_seen, leg_status, pack
from .model import Board, Coord
from .pathing import _Obstacles, _obstacles

#: points of a contest range's edge a way may end on where the nearest one is hidden
DISC_SAMPLES = 32

#: the obstacles points' legs may not meet: the distinct ones, and per point the index of its own
_Groups = tuple[list[BaseGeometry], np.ndarray]


def settle(dist: np.ndarray, legs: np.ndarray) -> np.ndarray:
    """Dijkstra on the dense graph of the corners' ``legs``, every corner a source at its ``dist`` (in place): each
    corner's shortest way."""
    n = len(dist)
    done = np.zeros(n, dtype=bool)
    for _ in range(n):
        left = np.where(done, math.inf, dist)
        i = int(left.argmin())
        if math.isinf(left[i]):
            break
        done[i] = True
        np.minimum(dist, dist[i] + legs[i], out=dist)
    return dist


@dataclass
class WayGraph:
    """The visibility graph of a board's playmat for a base of radius ``radius`` (the module text)."""

    board: Board
    radius: float
    through: int = 0
    obs: _Obstacles = field(init=False)
    corners: np.ndarray = field(init=False)
    legs: np.ndarray = field(init=False)
    _fields: dict[tuple[float, float, float], np.ndarray] = field(init=False, default_factory=dict)
    _solids: dict[frozenset[int], BaseGeometry] = field(init=False, default_factory=dict)
    _rims: dict[tuple[float, float, float], np.ndarray] = field(init=False, default_factory=dict)
    _packs: dict[int, tuple[BaseGeometry, Pack]] = field(init=False, default_factory=dict)
    _corner_groups: _Groups | None = field(init=False, default=None)
    _pairs: np.ndarray | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.obs = _obstacles(self.board, None, self.radius, self.through)
        pts = np.asarray(self.obs.corners, dtype=float).reshape(-1, 2)
        self.corners = pts
        n = len(pts)
        legs = np.full((n, n), math.inf)
        if n:
            i, j = np.triu_indices(n, 1)
            clear = self._clear_rows(([self.obs.solid], np.zeros(len(i), dtype=np.intp)), pts[i], pts[j])
            d = np.hypot(*(pts[i] - pts[j]).T)
            legs[i[clear], j[clear]] = d[clear]
            legs[j[clear], i[clear]] = d[clear]
        self.legs = legs

    # ------------------------------------------------------------------ clear legs
    def _solid(self, p: Coord) -> BaseGeometry:
        """The obstacles a leg from ``p`` may not meet: all but those ``p`` already touches (module text)."""
        obs = self.obs
        if not obs.solid.contains(shapely.Point(p)):
            return obs.solid
        here = shapely.Point(p)
        skip = frozenset(i for i, g in enumerate(obs.tight) if g.contains(here))
        hit = self._solids.get(skip)
        if hit is None:
            rest = [g for i, g in enumerate(obs.tight) if i not in skip]
            hit = self._solids[skip] = shapely.union_all(rest) if rest else shapely.Polygon()
            shapely.prepare(hit)
        return hit

    def _groups(self, points: np.ndarray) -> _Groups:
        """The obstacles the legs of each row of ``points`` may not meet (:meth:`_solid`): the distinct ones, and
        per row the index of its own."""
        of = np.zeros(len(points), dtype=np.intp)
        solid = self.obs.solid
        if not len(points) or not shapely.contains_xy(solid, points[:, 0], points[:, 1]).any():
            return [solid], of
        geoms: list[BaseGeometry] = [solid]
        index = {id(solid): 0}
        for k, (x, y) in enumerate(points.tolist()):
            g = self._solid((x, y))
            j = index.get(id(g))
            if j is None:
                j = index[id(g)] = len(geoms)
                geoms.append(g)
            of[k] = j
        return geoms, of

    def _pack(self, area: BaseGeometry) -> Pack:
        """:func:`.fastways.pack` of one of the graph's obstacle sets (kept)."""
        hit = self._packs.get(id(area))
        if hit is None or hit[0] is not area:
            hit = self._packs[id(area)] = (area, pack(area))
        return hit[1]

    def _clear_rows(self, groups: _Groups, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Per row: is the straight leg from ``starts[i]`` to ``ends[i]`` clear of the obstacles ``groups`` gives
        that row? (:func:`.fastways.leg_status`; the legs it leaves undecided, by shapely.)"""
        geoms, of = groups
        out = np.zeros(len(of), dtype=bool)
        legs = np.concatenate([starts, ends], axis=1).reshape(-1, 4)
        for j, g in enumerate(geoms):
            sel = np.flatnonzero(of == j) if len(geoms) > 1 else np.arange(len(of))
            if not sel.size:
                continue
            status = leg_status(self._pack(g), legs[sel])
            left = np.flatnonzero(status == 2)
            if left.size:
                status[left] = shapely.intersects(g, shapely.linestrings(legs[sel[left]].reshape(-1, 2, 2)))
            out[sel] = status == 0
        return out

    def _least(self, groups: _Groups, points: np.ndarray, who: np.ndarray, targets: np.ndarray,
               values: np.ndarray, bound: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """Per row ``i`` of ``values`` (a value per target): the least of ``bound[i]`` and the values of the targets
        whose straight leg from the point ``who[i]`` of ``points`` (its obstacles in ``groups``) is clear: the
        targets tried in the order of their values until a clear one or one at least the bound (the least of a set,
        without testing the legs that cannot be it; each leg tested once for all rows of its point:
        :func:`.fastways.least_seen`, the legs it leaves undecided by shapely). ``order``: the rows' targets in
        this order instead (``values`` in it too), the first clear one taken."""
        out = np.array(bound, dtype=float)
        if not len(who) or not len(targets):
            return out
        if order is None:
            order = np.argsort(values, axis=1, kind="stable")
            values = np.take_along_axis(values, order, axis=1)
        geoms, of = groups
        for j, g in enumerate(geoms):
            rows = np.flatnonzero(of[who] == j) if len(geoms) > 1 else np.arange(len(who))
            if not rows.size:
                continue
            seen = np.full((len(points), len(targets)), -1, dtype=np.int8)

            def ask(p: np.ndarray, t: np.ndarray, g: BaseGeometry = g) -> np.ndarray:
                lines = shapely.linestrings(np.stack([points[p], targets[t]], axis=1))
                return np.asarray(~shapely.intersects(g, lines))

            out[rows] = least_seen(
                self._pack(g), points, who[rows], targets, order[rows], values[rows], out[rows], seen, ask
            )
        return out

    def _to_disc(self, groups: _Groups, points: np.ndarray, centres: np.ndarray, reach: float) -> np.ndarray:
        """Points (their obstacles in ``groups``) x discs (``centres``, ``reach``): the straight way into the disc:
        to its nearest point where that leg is clear, else to the nearest of its :meth:`_samples` (its edge) the
        point sees; inf: none."""
        k, m = len(points), len(centres)
        out = np.full((k, m), math.inf)
        cs = centres.tolist()
        gap = np.asarray([math.dist((x, y), (cx, cy)) for x, y in points.tolist() for cx, cy in cs], dtype=float)
        gap = gap.reshape(k, m)
        out[gap <= reach] = 0.0
        fp, fj = np.nonzero(gap > reach)
        f = len(fp)
        if not f:
            return out
        g = gap[fp, fj]
        near = centres[fj] + (points[fp] - centres[fj]) * (reach / g)[:, None]
        rims = [self._samples((cx, cy), reach) for cx, cy in cs]
        counts = np.asarray([len(r) for r in rims], dtype=np.intp)
        first = f + np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        wide = int(counts.max(initial=0))
        rim = np.zeros((m, wide, 2))
        for j, r in enumerate(rims):
            rim[j, : len(r)] = r
        d = np.hypot(*(rim[fj] - points[fp][:, None, :]).transpose(2, 0, 1)).reshape(f, wide)
        d[np.arange(wide)[None, :] >= counts[fj][:, None]] = math.inf  # past a disc's own samples: none
        # each row: its own nearest point of the disc first, then the disc's samples nearest first; the first clear
        by = np.argsort(d, axis=1, kind="stable")
        order = np.concatenate([np.arange(f)[:, None], first[fj][:, None] + by], axis=1)
        order = np.minimum(order, f + int(counts.sum()) - 1) if wide else order  # (the padding is never tried)
        values = np.concatenate([(g - reach)[:, None], np.take_along_axis(d, by, axis=1)], axis=1)
        targets = np.concatenate([near, *rims]).reshape(-1, 2)
        out[fp, fj] = self._least(groups, points, fp, targets, values, np.full(f, math.inf), order)
        return out

    def _samples(self, centre: Coord, reach: float) -> np.ndarray:
        """:data:`DISC_SAMPLES` points of the disc's edge (a hair inside it), those clear of the obstacles and on
        the table (kept per disc)."""
        key = (float(centre[0]), float(centre[1]), float(reach))
        hit = self._rims.get(key)
        if hit is not None:
            return hit
        a = np.linspace(0.0, 2.0 * math.pi, DISC_SAMPLES, endpoint=False)
        rr = reach * (1.0 - 1e-9)
        pts = np.stack([centre[0] + rr * np.cos(a), centre[1] + rr * np.sin(a)], axis=1)
        r, w, d = self.radius, self.board.width, self.board.depth
        inside = (pts[:, 0] >= r) & (pts[:, 0] <= w - r) & (pts[:, 1] >= r) & (pts[:, 1] <= d - r)
        free = ~shapely.contains_xy(self.obs.solid, pts[:, 0], pts[:, 1])
        hit = self._rims[key] = np.asarray(pts[inside & free])
        return hit

    # ------------------------------------------------------------------ the ways
    def field(self, centre: Coord, reach: float) -> np.ndarray:
        """Per corner: the length of its shortest way into the disc (``centre``, ``reach``) (inf: none; kept)."""
        key = (float(centre[0]), float(centre[1]), float(reach))
        hit = self._fields.get(key)
        if hit is not None:
            return hit
        if self._corner_groups is None:
            self._corner_groups = self._groups(self.corners)
        dist = self._to_disc(self._corner_groups, self.corners, np.asarray([key[:2]]), reach)[:, 0]
        self._fields[key] = settle(dist, self.legs)
        return dist

    def lengths(self, points: np.ndarray, centres: np.ndarray, reach: float) -> np.ndarray:
        """Points x discs: the length of the shortest way from each point into each disc (``centres``, ``reach``;
        inf: none): the least of its straight way (:meth:`_to_disc`) and a clear leg to a corner plus that corner's
        way (:meth:`field`), the corners tried nearest way first (:meth:`_least`)."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        centres = np.asarray(centres, dtype=float).reshape(-1, 2)
        k, m, n = len(points), len(centres), len(self.corners)
        out = np.full((k, m), math.inf)
        if not k:
            return out
        groups = self._groups(points)
        out = self._to_disc(groups, points, centres, reach)
        if n and m:
            hop = np.hypot(*(self.corners[None, :, :] - points[:, None, :]).transpose(2, 0, 1))
            fields = np.stack([self.field((cx, cy), reach) for cx, cy in centres.tolist()])
            via = (hop[:, None, :] + fields[None, :, :]).reshape(k * m, n)  # a leg to a corner, then its way
            out = self._least(groups, points, np.repeat(np.arange(k), m), self.corners, via, out.reshape(-1))
        return out.reshape(k, m)

    def apart(self, a: Coord, ends: np.ndarray) -> np.ndarray:
        """Per row of ``ends``: the length of the shortest way from ``a`` to it through the corners (a leg to a
        corner, the corners' shortest ways between them, a leg on; inf: none), for points that touch no obstacle:
        the graph :func:`~mathhammer.board.pathing.shortest_route` searches on a table without tops, but for the
        straight leg (the caller's), its sums in another order (equal but for rounding)."""
        if self._pairs is None:  # every corner's shortest way to every other (Floyd-Warshall, once per graph)
            d = self.legs.copy()
            np.fill_diagonal(d, 0.0)
            for c in range(len(d)):
                np.minimum(d, d[:, c, None] + d[None, c, :], out=d)
            self._pairs = d
        ends = np.asarray(ends, dtype=float).reshape(-1, 2)
        n = len(self.corners)
        if not n or not len(ends):
            return np.full(len(ends), math.inf)
        pts = np.concatenate([np.asarray(a, dtype=float).reshape(1, 2), ends])
        k = len(pts)
        who = np.repeat(np.arange(k), n)
        seen = self._clear_rows(
            ([self.obs.solid], np.zeros(k * n, dtype=np.intp)), pts[who], np.tile(self.corners, (k, 1))
        )
        hop = np.hypot(*(self.corners[None, :, :] - pts[:, None, :]).transpose(2, 0, 1))
        hop[~seen.reshape(k, n)] = math.inf
        out_of_a = (hop[0][:, None] + self._pairs).min(axis=0)  # to each corner
        return np.asarray((out_of_a[None, :] + hop[1:]).min(axis=1))


__all__ = ["DISC_SAMPLES", "WayGraph"]
