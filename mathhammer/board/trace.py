"""Is there a straight trace from any part of one round base to any part of another that avoids some obstacles?

Rulebook 7.1 (LINE OF SIGHT): "trace an imaginary straight line from any part of the
acting model's base to any part of the target model's base". Whether a piece blocks
does not depend on which trace is drawn, only on *whether the trace passes through it*;
so per pair of models the question is geometric: given the blocking footprints
(open polygons: touching an edge or a corner is not passing through), does some segment
joining disc A and disc B miss all of them?

Method (exact up to the 1e-7" tolerance, no sampling):
if a free segment exists, it can be slid and turned, staying free, until it rests against
two "features" -- the two base circles, the obstacle corners, and the points where an
obstacle's outline crosses a base circle (a point is a circle of radius 0). So it is enough
to test the common tangent lines of every pair of features (2 to 4 lines per pair); on each
line the shortest piece joining the two bases (between the chords cut by the bases) is the
trace tested, since any longer trace on that line contains it. Only corners inside the
convex hull of the two bases matter (every trace lies in the hull). The lines are tested in
one vectorised shapely call against the obstacles shrunk by the tolerance.

>>> from shapely.geometry import box
>>> free_trace((0, 0), 0.5, (10, 0), 0.5, [box(4, -0.2, 5, 0.2)]) is not None
True
>>> free_trace((0, 0), 0.5, (10, 0), 0.5, [box(4, -2, 5, 2)]) is None
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from .model import EPS, shape_bounds

Coord = tuple[float, float]


def _tangents(c1: Coord, r1: float, c2: Coord, r2: float) -> list[tuple[float, float, float]]:
    """Common tangent lines ``n . p = k`` (n a unit normal) of two circles (radius 0: a point)."""
    dx, dy = c2[0] - c1[0], c2[1] - c1[1]
    d = math.hypot(dx, dy)
    if d < 1e-12:
        return []
    phi = math.atan2(dy, dx)
    out = []
    for s1 in (1.0, -1.0) if r1 > 0 else (1.0,):
        for s2 in (1.0, -1.0) if r2 > 0 else (1.0,):
            m = s2 * r2 - s1 * r1
            if abs(m) > d + 1e-12:
                continue
            alpha = math.acos(max(-1.0, min(1.0, m / d)))
            for t in (phi + alpha, phi - alpha) if alpha > 1e-12 else (phi,):
                nx, ny = math.cos(t), math.sin(t)
                out.append((nx, ny, nx * c1[0] + ny * c1[1] - s1 * r1))
    return out


def _gap_segments(lines: np.ndarray, ca: Coord, ra: float, cb: Coord, rb: float) -> np.ndarray:
    """For lines (nx, ny, k): the shortest piece of each line joining the two discs, as (N, 2, 2); NaN if it misses."""
    n = lines[:, :2]
    k = lines[:, 2]
    direction = np.stack([-n[:, 1], n[:, 0]], axis=1)
    foot = n * k[:, None]
    out = np.full((len(lines), 2, 2), np.nan)

    def chord(c: Coord, r: float) -> tuple[np.ndarray, np.ndarray]:
        c_arr = np.asarray(c)
        off = n @ c_arr - k
        half = np.sqrt(np.clip(r * r - off * off, 0.0, None))
        half[np.abs(off) > r + EPS] = np.nan
        centre_t = (c_arr - foot) * direction
        t = centre_t.sum(axis=1)
        return t - half, t + half

    a_lo, a_hi = chord(ca, ra)
    b_lo, b_hi = chord(cb, rb)
    ok = ~(np.isnan(a_lo) | np.isnan(b_lo))
    # A before B along the direction: from A's far end a_hi to B's near end b_lo; B before A: a_lo to b_hi.
    forward = a_hi <= b_lo
    backward = b_hi <= a_lo
    common = np.maximum(a_lo, b_lo)  # the chords overlap: a zero-length trace
    start = np.where(forward, a_hi, np.where(backward, a_lo, common))
    end = np.where(forward, b_lo, np.where(backward, b_hi, common))
    p0 = foot + direction * start[:, None]
    p1 = foot + direction * end[:, None]
    out[ok, 0] = p0[ok]
    out[ok, 1] = p1[ok]
    return out


def free_trace(ca: Coord, ra: float, cb: Coord, rb: float, obstacles: Sequence[Polygon]) -> tuple[Coord, Coord] | None:
    """A segment from disc (ca, ra) to disc (cb, rb) crossing no obstacle's interior, or None if every one does."""
    if not obstacles:
        return (ca, cb)
    # a piece whose bounding box misses the two discs' box (padded as the hull below) cannot block
    pad = 0.01 * max(ra, rb) + 2 * EPS
    lo_x, hi_x = min(ca[0] - ra, cb[0] - rb) - pad, max(ca[0] + ra, cb[0] + rb) + pad
    lo_y, hi_y = min(ca[1] - ra, cb[1] - rb) - pad, max(ca[1] + ra, cb[1] + rb) + pad
    obstacles = [
        o
        for o, (x0, y0, x1, y1) in ((o, shape_bounds(o)) for o in obstacles)
        if not (x0 > hi_x or x1 < lo_x or y0 > hi_y or y1 < lo_y)
    ]
    if not obstacles:
        return (ca, cb)
    # the polygonal circles are inscribed: pad the hull so that it covers the true hull of the two discs
    hull = shapely.union(Point(ca).buffer(ra, quad_segs=32), Point(cb).buffer(rb, quad_segs=32)).convex_hull
    hull = hull.buffer(0.01 * max(ra, rb) + EPS)
    solid = [o.buffer(-EPS) for o in obstacles]
    solid = [o for o in solid if not o.is_empty and o.intersects(hull)]
    if not solid:
        return (ca, cb)
    blocker = shapely.union_all(solid)
    points: list[Coord] = []
    for o in obstacles:
        for ring in [o.exterior, *o.interiors]:
            coords = list(ring.coords)
            points.extend((x, y) for x, y in coords[:-1] if hull.covers(Point(x, y)))
            for p0, p1 in itertools.pairwise(coords):
                points.extend(_edge_circle(p0, p1, ca, ra))
                points.extend(_edge_circle(p0, p1, cb, rb))
    features: list[tuple[Coord, float]] = [(ca, ra), (cb, rb), *((p, 0.0) for p in points)]
    nx, ny = _unit_normal(ca, cb)
    lines: list[tuple[float, float, float]] = [(nx, ny, nx * ca[0] + ny * ca[1])]  # the centre line first
    for i, (c1, r1) in enumerate(features):
        for c2, r2 in features[i + 1 :]:
            lines.extend(_tangents(c1, r1, c2, r2))
    segs = _gap_segments(np.asarray(lines, dtype=float), ca, ra, cb, rb)
    segs = segs[~np.isnan(segs[:, 0, 0])]
    if len(segs) == 0:
        return None
    geoms = shapely.linestrings(segs)
    hits = shapely.intersects(geoms, blocker)
    free = np.flatnonzero(~hits)
    if len(free) == 0:
        return None
    (x0, y0), (x1, y1) = segs[free[0]]
    return ((float(x0), float(y0)), (float(x1), float(y1)))


def _edge_circle(p0: Coord, p1: Coord, c: Coord, r: float) -> list[Coord]:
    """Exact crossings of the segment p0-p1 with the circle (c, r)."""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    fx, fy = p0[0] - c[0], p0[1] - c[1]
    a = dx * dx + dy * dy
    b = 2 * (fx * dx + fy * dy)
    cc = fx * fx + fy * fy - r * r
    disc = b * b - 4 * a * cc
    if a == 0 or disc < 0:
        return []
    root = math.sqrt(disc)
    return [(p0[0] + t * dx, p0[1] + t * dy) for t in {(-b - root) / (2 * a), (-b + root) / (2 * a)} if 0 <= t <= 1]


def _unit_normal(a: Coord, b: Coord) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    return (-dy / d, dx / d)
