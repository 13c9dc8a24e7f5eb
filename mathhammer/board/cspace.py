"""The Leading Model's configuration space, shared by a Charge (:mod:`.charge`, 8.7.7) and a Move's path
(:mod:`.pathing`, 8.5.3): obstacles grown by the base's radius, goal samples, segment tests and ACCESS POINT crossings.

The base is a disc of radius ``r``, so its centre must stay out of every obstacle grown by ``r``. Discs and rounded
corners are grown as circumscribed polygons (:data:`GROW`: every edge at least ``r`` away, at most ``r * (GROW - 1)``
further), so a path never cuts into a base or a wall; the inscribed polygon (never too big) is kept for a start that
already touches one. Segments are tested against the obstacles' boxes and, for a base, its circle, in compiled code
(:func:`_segments_hit`); the goal region's boundary is sampled every :data:`GOAL_STEP` inches
(:func:`_goal_samples`). The reading of the rules (which pieces block a path: :func:`blocks_path`) is in
:mod:`.charge`'s module text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import shapely
from numba import njit
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from ..config import JIT
from .engagement import ENGAGEMENT_RANGE
from .model import Board, Coord, Terrain

#: segments per quarter circle for grown bases and rounded corners.
QUAD_SEGS = 8
#: spacing of the goal-boundary samples, inches.
GOAL_STEP = 0.1
#: at most this many evenly spaced goal-boundary samples (the spacing grows on very long boundaries).
MAX_GOAL_SAMPLES = 600
#: slack when testing a segment against grown obstacles (lets paths graze a corner or edge).
SLACK = 1e-6
#: spacing of the points where the centre may pass an ACCESS POINT given as a segment, inches.
PORTAL_STEP = 0.25
#: spacing of the points where the centre may change elevation over a piece's edge without an ACCESS POINT
#: (``free_climb``: Raptor Strain), inches.
CLIMB_STEP = 1.0


#: the most shapes each of this module's caches keeps (discs, zones, buffers): the same bases recur within a game's
#: board states, far less from one game to the next, so a bounded cache keeps memory flat in the number of games
CACHED = 1 << 13

#: the most Charge goals each of :func:`_zone` and :func:`_zones` keeps: fine polygons (some 260 vertices; unions of
#: them) in GEOS's memory, which at 8,192 and 16,384 held most of a long automatic run's growth (``RESULTS.md``,
#: issue 29 point 6, session 18)
ZONES_CACHED = 1 << 10

#: polygonal buffers are grown by this factor so that every edge is at least the wanted distance away.
GROW = 1.0 / math.cos(math.pi / (4 * QUAD_SEGS))


@lru_cache(maxsize=CACHED)
def _disc(centre: Coord, radius: float, grow: float = GROW) -> Polygon:
    """A polygon around a disc (every edge at least ``radius`` from the centre; inside it when ``grow`` is 1).

    Cached: the same bases recur in every board state of a game (geometries are immutable).
    """
    return Point(centre).buffer(radius * grow, quad_segs=QUAD_SEGS)


def _disc_box(centre: Coord, radius: float, grow: float = GROW) -> tuple[float, float, float, float]:
    """The bounds of :func:`_disc` ``(centre, radius, grow)``, without the polygon: GEOS sets a point's buffer's
    vertices at ``centre + R (cos, sin)`` of each step's angle (``R = radius * grow``), the four on the axes at exactly
    ``centre +- R``, and every other vertex lies between them (a product by a cosine or sine of at most 1 in magnitude
    is at most R in magnitude, rounded alike)."""
    big = radius * grow
    return (centre[0] - big, centre[1] - big, centre[0] + big, centre[1] + big)


_BUFFERS: dict[tuple[int, float, int], tuple[BaseGeometry, BaseGeometry]] = {}


def _buffer(geom: BaseGeometry, distance: float, quad_segs: int = QUAD_SEGS) -> BaseGeometry:
    """``geom.buffer(distance, quad_segs=quad_segs)``, kept for the same geometry object (terrain footprints
    and the cached discs recur in every board state; geometries are immutable)."""
    key = (id(geom), distance, quad_segs)
    hit = _BUFFERS.get(key)
    if hit is None or hit[0] is not geom:
        if len(_BUFFERS) > CACHED:
            _BUFFERS.clear()
        hit = _BUFFERS[key] = (geom, geom.buffer(distance, quad_segs=quad_segs))
    return hit[1]


@lru_cache(maxsize=ZONES_CACHED)
def _zones(discs: tuple[tuple[Coord, float], ...]) -> BaseGeometry:
    """The union of :func:`_zone` of each (centre, radius): where a base centre is Within reach of one of them."""
    return shapely.union_all([_zone(c, radius) for c, radius in discs])


def examined_near(box: Sequence[float], centre: Coord, radius: float, lead_radius: float) -> bool:
    """Can a base of ``radius`` at ``centre`` (a model of a unit other than the charger and the targets)
    change a :func:`charge_distance` answer whose ``examined`` box is ``box``? Only if its shapes (the
    base grown by the Leading Model's radius, and by 1" for an undeclared enemy, as polygons) may meet
    the box.

    >>> examined_near([0, 0, 1, 1], (3.0, 0.5), 0.5, 0.5)
    True
    >>> examined_near([0, 0, 1, 1], (3.2, 0.5), 0.5, 0.5)
    False
    """
    if not all(math.isfinite(v) for v in box):
        return True
    dx = max(box[0] - centre[0], centre[0] - box[2], 0.0)
    dy = max(box[1] - centre[1], centre[1] - box[3], 0.0)
    return math.hypot(dx, dy) <= (radius + lead_radius + ENGAGEMENT_RANGE) * GROW + 0.01


def _boxes_meet(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


@lru_cache(maxsize=ZONES_CACHED)
def _zone(centre: Coord, radius: float) -> Polygon:
    """Where a base centre is Within ``radius`` of ``centre`` (a fine polygon: the goal of a Charge)."""
    return Point(centre).buffer(radius, quad_segs=64)


def blocks_path(piece: Terrain, through: int = 0) -> bool:
    """Is ``piece`` an obstacle to the Leading Model's path (8.5.3 step 1: "cannot move through terrain of Size 2 or
    larger"; GRASS "does not block movement"; Tokens never block)? ``through``: IMPASSABLE pieces (no ACCESS POINT)
    of this Size or less are not (Raptor Strain)."""
    crossed = piece.size <= through and not piece.access_points
    return piece.size >= 2 and not piece.grass and not piece.token and not crossed


def grown_footprint(geom: BaseGeometry, radius: float) -> tuple[BaseGeometry, BaseGeometry]:
    """``geom`` grown by a base ``radius``: circumscribed (every edge at least ``radius`` away) and inscribed."""
    return _buffer(geom, radius * GROW), _buffer(geom, radius)


@njit(**JIT)
def _segments_kernel(a, bs, boxes, circles, slack, grow):  # pragma: no cover - compiled
    n, m = bs.shape[0], boxes.shape[0]
    cap = 64
    ks = np.empty(cap, dtype=np.int64)
    ps = np.empty(cap, dtype=np.int64)
    hs = np.empty(cap, dtype=np.int8)
    c = 0
    for k in range(n):
        bx, by = bs[k, 0], bs[k, 1]
        x0, x1 = min(a[0], bx), max(a[0], bx)
        y0, y1 = min(a[1], by), max(a[1], by)
        abx, aby = bx - a[0], by - a[1]
        n2 = abx * abx + aby * aby
        for p in range(m):
            if boxes[p, 0] > x1 or boxes[p, 2] < x0 or boxes[p, 1] > y1 or boxes[p, 3] < y0:
                continue
            h = np.int8(-1)
            if not np.isnan(circles[p, 0]):
                cx, cy, rad = circles[p, 0], circles[p, 1], circles[p, 2]
                t = ((cx - a[0]) * abx + (cy - a[1]) * aby) / (n2 if n2 > 0 else 1.0)
                t = min(max(t, 0.0), 1.0)
                qx = a[0] + t * abx - cx
                qy = a[1] + t * aby - cy
                d = np.sqrt(qx * qx + qy * qy)
                if d < rad - slack - 1e-9:
                    h = np.int8(1)
                elif d > rad * grow + 1e-9:
                    h = np.int8(0)
            if h == 0:
                continue
            if c == cap:
                cap *= 2
                ks2, ps2, hs2 = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap, np.int8)
                for i in range(c):  # element by element: a slice copy compiles numba's shape-error message
                    ks2[i], ps2[i], hs2[i] = ks[i], ps[i], hs[i]
                ks, ps, hs = ks2, ps2, hs2
            ks[c], ps[c], hs[c] = k, p, h
            c += 1
    return ks[:c].copy(), ps[:c].copy(), hs[:c].copy()


def _segments_hit(
    a: np.ndarray, bs: np.ndarray, boxes: np.ndarray, circles: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (segment ``a``-``bs[k]``, obstacle ``p``) that may meet: their boxes meet (``boxes``: x0, y0, x1,
    y1 per obstacle, touching counts), less those a base's circle decides they do not. Returns ``k``, ``p`` and
    1 (they meet) or -1 (not decided here: not a base, a row of NaN in ``circles``; or the segment passes within
    1e-9" of the band between the polygon's inscribed circle, radius R - SLACK, and its circumscribed one,
    radius R * GROW; the caller asks shapely).

    A base's circle is (x, y, radius R: the polygon :func:`_disc` circumscribes, shrunk by ``SLACK``). Outside
    the band the answer needs no polygon: a segment nearer the centre than R - SLACK crosses the polygon's
    inside, one farther than R * GROW misses it; the margin is far above the rounding of the distance, so the
    answer is the one shapely gives. Disjoint boxes never meet.

    >>> boxes = np.array([[0.0, -1.0, 2.0, 1.0], [5.0, 5.0, 6.0, 6.0]])
    >>> circles = np.array([[1.0, 0.0, 1.0], [np.nan] * 3])
    >>> k, p, hit = _segments_hit(np.array([-1.0, 0.0]), np.array([[3.0, 0.0], [3.0, 3.0], [6.0, 6.0]]), boxes, circles)
    >>> k.tolist(), p.tolist(), hit.tolist()  # through the base; its box only; the square's box
    ([0, 2], [0, 1], [1, -1])
    """
    return _segments_kernel(  # type: ignore[no-any-return]
        np.ascontiguousarray(a, dtype=np.float64),
        np.ascontiguousarray(bs, dtype=np.float64),
        boxes,
        circles,
        SLACK,
        GROW,
    )


def _table(board: Board, inset: float) -> Polygon:
    """Where a base centre of radius ``inset`` may be: the table shrunk by ``inset`` (grown when negative)."""
    w, d = board.width, board.depth
    return Polygon([(inset, inset), (w - inset, inset), (w - inset, d - inset), (inset, d - inset)])


def _off_table(board: Board, r: float) -> list[Polygon]:
    """Four strips along the table edges where a base centre of radius ``r`` may not go (SLACK inside)."""
    return list(_strips(board.width, board.depth, r))


@lru_cache(maxsize=ZONES_CACHED)
def _strips(w: float, d: float, r: float) -> tuple[Polygon, ...]:
    """:func:`_off_table`'s strips, kept per table and radius (a Charge reads them on every board; immutable)."""
    m, k = r - SLACK, 1.0
    return (
        Polygon([(-k, -k), (w + k, -k), (w + k, m), (-k, m)]),
        Polygon([(-k, d - m), (w + k, d - m), (w + k, d + k), (-k, d + k)]),
        Polygon([(-k, -k), (m, -k), (m, d + k), (-k, d + k)]),
        Polygon([(w - m, -k), (w + k, -k), (w + k, d + k), (w - m, d + k)]),
    )


def corner_points(geom: BaseGeometry) -> list[Coord]:
    out: list[Coord] = []
    for poly in getattr(geom, "geoms", [geom]):
        if poly.is_empty or not isinstance(poly, Polygon):
            continue
        for ring in [poly.exterior, *poly.interiors]:
            out.extend((x, y) for x, y in shapely.get_coordinates(ring)[:-1].tolist())  # ring.coords, the same floats
    return out


def _goal_samples(goal: BaseGeometry, sources: list[Coord]) -> list[Coord]:
    out: list[Coord] = []
    if goal.is_empty:
        return out
    boundary = goal.boundary
    length = boundary.length
    if length > 0:
        n = min(MAX_GOAL_SAMPLES, max(8, math.ceil(length / GOAL_STEP)))
        pts = _interpolate(boundary, np.linspace(0, length, n, endpoint=False))
        out.extend((x, y) for x, y in pts.tolist())  # (p.x, p.y) of each, the same floats
    out.extend(corner_points(goal))
    if sources:  # the nearest goal point to each source (shapely.shortest_line, vectorised)
        lines = shapely.shortest_line(shapely.points(np.asarray(sources, dtype=float)), goal)
        ends = shapely.get_coordinates(lines).reshape(-1, 2, 2)[:, 1]
        out.extend((float(x), float(y)) for x, y in ends.tolist())
    return out


def _interpolate(line: BaseGeometry, distances: np.ndarray) -> np.ndarray:
    """The points at ``distances`` (ascending or not, >= 0) along ``line`` (a LineString or MultiLineString), one row
    each: ``shapely.line_interpolate_point``'s, to the bit, in one numpy pass instead of a walk from the start per
    point. GEOS (``LengthIndexedLine.extractPoint``) runs along the segments adding each one's length (``sqrt(dx * dx +
    dy * dy)``) and stops in the first whose running total passes the distance, at ``p0 + (p1 - p0) * frac``, ``frac``
    the distance left over the segment's length (``p0`` where it is 0 or less, ``p1`` where 1 or more); at a part's end
    whose running total equals the distance, that end; past the last, the last point; at 0 or less, the first.
    A test holds the two equal on random lines and rings (tests/test_board_charge.py)."""
    if line.geom_type not in ("LineString", "MultiLineString"):
        return np.asarray(shapely.get_coordinates(shapely.line_interpolate_point(line, distances)), dtype=float)
    parts = shapely.get_parts(line) if line.geom_type == "MultiLineString" else [line]
    coords = [shapely.get_coordinates(g) for g in parts]
    d = np.asarray(distances, dtype=float)
    p0 = np.concatenate([c[:-1] for c in coords])
    p1 = np.concatenate([c[1:] for c in coords])
    if not len(p0):
        return np.repeat(coords[0][:1], d.size, axis=0)
    dx, dy = p1[:, 0] - p0[:, 0], p1[:, 1] - p0[:, 1]
    seg = np.sqrt(dx * dx + dy * dy)
    total = np.cumsum(seg)  # the running totals, added in order as GEOS adds them
    before = np.concatenate([[0.0], total[:-1]])
    k = np.searchsorted(total, d, side="right")  # the first segment whose running total passes the distance
    at = np.minimum(k, seg.size - 1)
    a, b = p0[at], p1[at]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = (d - before[at]) / seg[at]
        out = (b - a) * frac[:, None] + a
    out = np.where((frac <= 0)[:, None], a, np.where((frac >= 1)[:, None], b, out))
    out[k >= seg.size] = coords[-1][-1]
    ends = np.cumsum([len(c) - 1 for c in coords]) - 1  # each part's last segment
    for j in np.flatnonzero(np.isin(d, total[ends])).tolist():
        out[j] = coords[int(np.flatnonzero(total[ends] == d[j])[0])][-1]
    out[d <= 0] = coords[0][0]
    return out


def _outside_each(geoms: np.ndarray, boxes: np.ndarray, points: list[Coord]) -> list[Coord]:
    """The points inside none of ``geoms`` (prepared; ``boxes``: their bounds, one row each): the points not inside
    their union (``not union.contains(Point(p))``), without the union. The same answer wherever the point is not on a
    boundary two of them share (the interior of a union is the union of the interiors, bar such boundaries): a point
    tested here (an obstacle's corner, a goal point) lies off the tight obstacles' boundaries (they are drawn
    :data:`SLACK` inside), and the obstacles and strips overlap rather than share edges."""
    if not points:
        return []
    xy = np.asarray(points, dtype=float)
    x, y = xy[:, 0:1], xy[:, 1:2]
    pi, oi = np.nonzero((x >= boxes[:, 0]) & (x <= boxes[:, 2]) & (y >= boxes[:, 1]) & (y <= boxes[:, 3]))
    inside = np.zeros(len(points), dtype=bool)
    if pi.size:
        inside[pi[shapely.contains_xy(geoms[oi], xy[pi, 0], xy[pi, 1])]] = True
    return [p for p, hit in zip(points, inside.tolist(), strict=True) if not hit]


def _portal_samples(geom: BaseGeometry, step: float = PORTAL_STEP) -> list[Coord]:
    """Where the centre may pass an ACCESS POINT: the point, or points every ``step`` inches along the segment (or
    ring)."""
    if isinstance(geom, Point):
        return [(float(geom.x), float(geom.y))]
    n = max(2, math.ceil(geom.length / step) + 1)
    return [(float(p.x), float(p.y)) for p in shapely.line_interpolate_point(geom, np.linspace(0, geom.length, n))]


def crossings(piece: Terrain, free_climb: bool = False) -> list[Coord]:
    """Where the Leading Model's centre may change level onto or off ``piece``: its ACCESS POINTs (points, or segments
    sampled every :data:`PORTAL_STEP` inches), or with ``free_climb`` (Raptor Strain) its whole edge, sampled every
    :data:`CLIMB_STEP` inches."""
    if free_climb:
        return _portal_samples(piece.polygon.exterior, CLIMB_STEP)
    return [x for geom in piece.access_geometry for x in _portal_samples(geom)]


__all__ = [
    "CLIMB_STEP",
    "GOAL_STEP",
    "GROW",
    "MAX_GOAL_SAMPLES",
    "PORTAL_STEP",
    "QUAD_SEGS",
    "SLACK",
    "blocks_path",
    "corner_points",
    "crossings",
    "examined_near",
    "grown_footprint",
]
