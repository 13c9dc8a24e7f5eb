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
circumscribed growth (at most ``r * (GROW - 1)``).

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

from .model import Board, Coord
from .pathing import _Obstacles, _obstacles

#: points of a contest range's edge a way may end on where the nearest one is hidden
DISC_SAMPLES = 32

#: the obstacles points' legs may not meet: the distinct ones, and per point the index of its own
_Groups = tuple[list[BaseGeometry], np.ndarray]


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
    _corner_groups: _Groups | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.obs = _obstacles(self.board, None, self.radius, self.through)
        pts = np.asarray(self.obs.corners, dtype=float).reshape(-1, 2)
        self.corners = pts
        n = len(pts)
        legs = np.full((n, n), math.inf)
        if n:
            i, j = np.triu_indices(n, 1)
            lines = shapely.linestrings(np.stack([pts[i], pts[j]], axis=1))
            clear = ~shapely.intersects(self.obs.solid, lines)
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
        geoms: list[BaseGeometry] = []
        index: dict[int, int] = {}
        of = np.empty(len(points), dtype=np.intp)
        for k, (x, y) in enumerate(points.tolist()):
            g = self._solid((x, y))
            j = index.get(id(g))
            if j is None:
                j = index[id(g)] = len(geoms)
                geoms.append(g)
            of[k] = j
        return geoms, of

    @staticmethod
    def _clear_rows(groups: _Groups, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Per row: is the straight leg from ``starts[i]`` to ``ends[i]`` clear of the obstacles ``groups`` gives
        that row? One test of each group's obstacles against all its legs."""
        geoms, of = groups
        if not len(of):
            return np.zeros(0, dtype=bool)
        lines = shapely.linestrings(np.stack([starts, ends], axis=1))
        if len(geoms) == 1:
            return np.asarray(~shapely.intersects(geoms[0], lines))
        out = np.zeros(len(of), dtype=bool)
        for j, g in enumerate(geoms):
            sel = np.flatnonzero(of == j)
            if sel.size:
                out[sel] = ~shapely.intersects(g, lines[sel])
        return out

    def _clear_grid(self, groups: _Groups, points: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """Points x targets: is the straight leg from each point (its obstacles in ``groups``) to each target
        clear?"""
        k, n = len(points), len(targets)
        who = np.repeat(np.arange(k), n)
        rows = (groups[0], groups[1][who])
        return self._clear_rows(rows, points[who], np.tile(targets, (k, 1))).reshape(k, n)

    def _to_disc(self, groups: _Groups, points: np.ndarray, centre: Coord, reach: float,
                 samples: np.ndarray) -> np.ndarray:  # fmt: skip
        """Per point (its obstacles in ``groups``): the straight way into the disc (``centre``, ``reach``): to its
        nearest point where that leg is clear, else to the nearest of ``samples`` (its edge) the point sees; inf:
        none."""
        out = np.full(len(points), math.inf)
        gap = np.asarray([math.dist((x, y), centre) for x, y in points.tolist()], dtype=float).reshape(-1)
        out[gap <= reach] = 0.0
        far = np.flatnonzero(gap > reach)
        if not far.size:
            return out
        c = np.asarray(centre, dtype=float)
        near = c + (points[far] - c) * (reach / gap[far])[:, None]
        ok = self._clear_rows((groups[0], groups[1][far]), points[far], near)
        out[far[ok]] = gap[far[ok]] - reach
        hidden = far[~ok]
        if hidden.size and len(samples):
            seen = self._clear_grid((groups[0], groups[1][hidden]), points[hidden], samples)
            d = np.hypot(*(samples[None, :, :] - points[hidden][:, None, :]).transpose(2, 0, 1))
            out[hidden] = np.where(seen, d, math.inf).min(axis=1)
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
        n = len(self.corners)
        if self._corner_groups is None:
            self._corner_groups = self._groups(self.corners)
        dist = self._to_disc(self._corner_groups, self.corners, centre, reach, self._samples(centre, reach))
        done = np.zeros(n, dtype=bool)
        for _ in range(n):  # Dijkstra on the dense graph, every corner a source at its straight way
            left = np.where(done, math.inf, dist)
            i = int(left.argmin())
            if math.isinf(left[i]):
                break
            done[i] = True
            np.minimum(dist, dist[i] + self.legs[i], out=dist)
        self._fields[key] = dist
        return dist

    def lengths(self, points: np.ndarray, centres: np.ndarray, reach: float) -> np.ndarray:
        """Points x discs: the length of the shortest way from each point into each disc (``centres``, ``reach``;
        inf: none): the least of its straight way (:meth:`_to_disc`) and a clear leg to a corner plus that corner's
        way (:meth:`field`), every point's legs tested at once."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        centres = np.asarray(centres, dtype=float).reshape(-1, 2)
        out = np.full((len(points), len(centres)), math.inf)
        if not len(points):
            return out
        groups = self._groups(points)
        n = len(self.corners)
        if n:
            seen = self._clear_grid(groups, points, self.corners)
            hop = np.hypot(*(self.corners[None, :, :] - points[:, None, :]).transpose(2, 0, 1))
        for m, (cx, cy) in enumerate(centres.tolist()):
            out[:, m] = self._to_disc(groups, points, (cx, cy), reach, self._samples((cx, cy), reach))
            if n:
                via = np.where(seen, hop + self.field((cx, cy), reach)[None, :], math.inf).min(axis=1)
                np.minimum(out[:, m], via, out=out[:, m])
        return out


__all__ = ["DISC_SAMPLES", "WayGraph"]
