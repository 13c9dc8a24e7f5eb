"""The naive reference of :class:`mathhammer.board.ways.WayGraph` (issue 29 point 6, h-ways2): the visibility
graph's ways as they were computed before the batched clear-leg tests (c405050), one point, one marker and one leg
test at a time; tests/test_ways_fast.py holds the batched graph equal to it to the bit."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from mathhammer.board.model import Board, Coord
from mathhammer.board.pathing import _Obstacles, _obstacles
from mathhammer.board.ways import DISC_SAMPLES, WayGraph, settle


@dataclass
class NaiveWayGraph:
    """The visibility graph of a board's playmat for a base of radius ``radius``: mathhammer/board/ways.py's
    WayGraph as it was at c405050, each point and each marker one at a time (the reference)."""

    board: Board
    radius: float
    through: int = 0
    obs: _Obstacles = field(init=False)
    corners: np.ndarray = field(init=False)
    legs: np.ndarray = field(init=False)
    _fields: dict[tuple[float, float, float], np.ndarray] = field(init=False, default_factory=dict)
    _solids: dict[frozenset[int], BaseGeometry] = field(init=False, default_factory=dict)

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
    #: the obstacles a leg from a point may not meet (all but those it touches): unchanged since c405050
    _solid = WayGraph._solid

    def _clear(self, p: Coord, targets: np.ndarray) -> np.ndarray:
        """Per row of ``targets``: is the straight leg from ``p`` to it clear?"""
        if not len(targets):
            return np.zeros(0, dtype=bool)
        lines = shapely.linestrings(np.stack([np.broadcast_to(np.asarray(p, float), targets.shape), targets], axis=1))
        return ~shapely.intersects(self._solid(p), lines)

    def _to_disc(self, p: Coord, centre: Coord, reach: float, samples: np.ndarray) -> float:
        """The straight way from ``p`` into the disc (``centre``, ``reach``): to its nearest point where that leg is
        clear, else to the nearest of ``samples`` (its edge) that ``p`` sees; inf: none."""
        gap = math.dist(p, centre)
        if gap <= reach:
            return 0.0
        near = np.asarray(centre) + (np.asarray(p) - np.asarray(centre)) * (reach / gap)
        if self._clear(p, near[None, :])[0]:
            return gap - reach
        if not len(samples):
            return math.inf
        ok = self._clear(p, samples)
        return float(np.hypot(*(samples[ok] - np.asarray(p)).T).min()) if ok.any() else math.inf

    def _samples(self, centre: Coord, reach: float) -> np.ndarray:
        """:data:`DISC_SAMPLES` points of the disc's edge (a hair inside it), those clear of the obstacles and on
        the table."""
        a = np.linspace(0.0, 2.0 * math.pi, DISC_SAMPLES, endpoint=False)
        rr = reach * (1.0 - 1e-9)
        pts = np.stack([centre[0] + rr * np.cos(a), centre[1] + rr * np.sin(a)], axis=1)
        r, w, d = self.radius, self.board.width, self.board.depth
        inside = (pts[:, 0] >= r) & (pts[:, 0] <= w - r) & (pts[:, 1] >= r) & (pts[:, 1] <= d - r)
        free = ~shapely.contains_xy(self.obs.solid, pts[:, 0], pts[:, 1])
        return np.asarray(pts[inside & free])

    # ------------------------------------------------------------------ the ways
    def field(self, centre: Coord, reach: float) -> np.ndarray:
        """Per corner: the length of its shortest way into the disc (``centre``, ``reach``) (inf: none; kept)."""
        key = (float(centre[0]), float(centre[1]), float(reach))
        hit = self._fields.get(key)
        if hit is not None:
            return hit
        samples = self._samples(centre, reach)
        n = len(self.corners)
        dist = np.asarray([self._to_disc(tuple(c), centre, reach, samples) for c in self.corners.tolist()])
        dist = dist.reshape(n)
        settle(dist, self.legs)  # unchanged since c405050
        self._fields[key] = dist
        return dist

    def lengths(self, points: np.ndarray, centres: np.ndarray, reach: float) -> np.ndarray:
        """Points x discs: the length of the shortest way from each point into each disc (``centres``, ``reach``;
        inf: none)."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        centres = np.asarray(centres, dtype=float).reshape(-1, 2)
        out = np.full((len(points), len(centres)), math.inf)
        fields = [self.field((float(c[0]), float(c[1])), reach) for c in centres.tolist()]
        samples = [self._samples((float(c[0]), float(c[1])), reach) for c in centres.tolist()]
        for k, p in enumerate(points.tolist()):
            pt = (float(p[0]), float(p[1]))
            seen = self._clear(pt, self.corners)
            hop = np.hypot(*(self.corners[seen] - np.asarray(pt)).T)
            for m, c in enumerate(centres.tolist()):
                best = self._to_disc(pt, (c[0], c[1]), reach, samples[m])
                if hop.size:
                    best = min(best, float((hop + fields[m][seen]).min()))
                out[k, m] = best
        return out
