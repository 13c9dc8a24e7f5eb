"""Line of Sight's verdict compiled: is some trace between two round bases free of the blocking pieces (7.1)?

:func:`free_exists` answers :func:`~mathhammer.board.trace.free_trace` ``(...) is not None`` with the same method on
plain arrays (a numba kernel): the features (the two base circles, the obstacle corners in the hull of the two
bases, the points where an obstacle's outline crosses a base circle), the common tangent lines of every pair of
features and the centre line, on each line the shortest piece joining the two bases; the target is Visible when one
piece crosses no obstacle shrunk by the tolerance (``buffer(-EPS)`` in the shapely search). "Crosses the shrunk
obstacle" is read exactly: some point of the piece inside the footprint at least ``EPS`` from every edge (the piece's
stretches inside the footprint, from its crossings of the outline, each split where the distance to an edge passes
``EPS``). The answers are the shapely search's on the golden boards and the deployments' terrain presets
(``tests/test_fastsight.py``); this module serves the attack facts of the simulation (:mod:`.facts`'s ``visible``
argument), the shapely search stays the reference and gives the trace itself.

:func:`sees` is :func:`~mathhammer.board.los.line_of_sight` ``(...).visible`` (HIDDEN, the Elevation Dead Zone and
each piece's rule read as there, the trace by :func:`free_exists`), kept by the terrain, the two models and HIDDEN; for
two models on the playmat, each piece's rule (``los.blocking``: Full and Direct Cover, Close Quarters, Within 1" by the
footprint's distance) and the trace are read in one compiled pass (:func:`_sight_kernel`), the pairs with a Within 1"
gap at its limit left to ``los``.

>>> from mathhammer.board.model import Board, Model, Terrain, Unit
>>> wall = Terrain("wall", ((10, 0), (10.5, 0), (10.5, 30), (10, 30)), size=2)
>>> goliath = Model("goliath", 2, 15, base_mm=50, size=3)
>>> near, far = Model("near", 11.2, 15, size=2), Model("far", 14, 15, size=2)
>>> board = Board(44, 30, (wall,), (Unit("g", "terran", (goliath,)), Unit("m", "zerg", (near, far))))
>>> sees(board, goliath, near), sees(board, goliath, far)
(False, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from .los import CLOSE_QUARTERS, COVER_RANGE, HIDDEN_RANGE, blocking, untraced
from .model import Board, Model, Terrain
from .tolerance import EPS


@njit(**INLINE)
def _hull_gap(px, py, ax, ay, ra, bx, by, rb):  # pragma: no cover - compiled
    """Distance from (px, py) to the convex hull of the two discs (0 inside): the least of ``|p - c(s)| - r(s)``
    over the discs between them (convex in ``s``: a golden-section search)."""
    lo, hi = 0.0, 1.0
    g = 0.5 * (math.sqrt(5.0) - 1.0)
    for _ in range(60):
        s1 = hi - g * (hi - lo)
        s2 = lo + g * (hi - lo)
        f1 = math.hypot(px - ax - s1 * (bx - ax), py - ay - s1 * (by - ay)) - ra - s1 * (rb - ra)
        f2 = math.hypot(px - ax - s2 * (bx - ax), py - ay - s2 * (by - ay)) - ra - s2 * (rb - ra)
        if f1 <= f2:
            hi = s2
        else:
            lo = s1
    best = math.inf
    for s in (0.0, 1.0, 0.5 * (lo + hi)):
        f = math.hypot(px - ax - s * (bx - ax), py - ay - s * (by - ay)) - ra - s * (rb - ra)
        best = min(best, f)
    return max(0.0, best)


@njit(**INLINE)
def _hull_near(px, py, ax, ay, ra, bx, by, rb, limit):  # pragma: no cover - compiled
    """Is :func:`_hull_gap` at most ``limit``? The least of ``|p - c(s)| - r(s)`` read in closed form (at the
    stationary point, where it lies between the discs, and at the two ends), the golden-section search asked only
    where that is within 1e-9 of ``limit`` (the search's answer is within 1e-10 of the least: the same verdict)."""
    dx, dy, dr = bx - ax, by - ay, rb - ra
    qx, qy = px - ax, py - ay
    best = min(math.hypot(qx, qy) - ra, math.hypot(qx - dx, qy - dy) - rb)
    ll = math.hypot(dx, dy)
    if ll > abs(dr):  # neither disc holds the other: the least may lie between them
        ux, uy = dx / ll, dy / ll
        k = -dr / ll  # where the slope is nil: the cosine of the angle from the axis to p - c(s)
        s = ((qx * ux + qy * uy) - k * abs(qx * uy - qy * ux) / math.sqrt(1.0 - k * k)) / ll
        if 0.0 < s < 1.0:
            best = min(best, math.hypot(qx - s * dx, qy - s * dy) - ra - s * dr)
    best = max(0.0, best)  # 0 inside, as the search reads it
    if best > limit + 1e-9:
        return False
    if best < limit - 1e-9:
        return True
    return _hull_gap(px, py, ax, ay, ra, bx, by, rb) <= limit


@njit(**INLINE)
def _depth(px, py, xy, s, n):  # pragma: no cover - compiled
    """Least distance from (px, py) to an edge of the ring ``xy[s : s + n]``."""
    best = math.inf
    for i in range(n):
        x0, y0 = xy[s + i, 0], xy[s + i, 1]
        j = s + (i + 1) % n
        x1, y1 = xy[j, 0], xy[j, 1]
        ex, ey = x1 - x0, y1 - y0
        ll = ex * ex + ey * ey
        w = 0.0 if ll == 0.0 else ((px - x0) * ex + (py - y0) * ey) / ll
        w = min(1.0, max(0.0, w))
        d = math.hypot(px - x0 - w * ex, py - y0 - w * ey)
        best = min(best, d)
    return best


@njit(**INLINE)
def _inside(px, py, xy, s, n):  # pragma: no cover - compiled
    """Even-odd test of (px, py) in the ring ``xy[s : s + n]``."""
    c = False
    j = s + n - 1  # edge (j, i): from a vertex to the next, the ring's closing edge first (no modulo a vertex)
    for i in range(s, s + n):
        x0, y0 = xy[j, 0], xy[j, 1]
        x1, y1 = xy[i, 0], xy[i, 1]
        if (y0 > py) != (y1 > py):
            xc = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
            if px < xc:
                c = not c
        j = i
    return c


@njit(**INLINE)
def _sort_head(ts, m):  # pragma: no cover - compiled
    """Sort ``ts[:m]`` in place (an insertion sort: a few crossings; the values ``np.sort`` gives)."""
    for i in range(1, m):
        t = ts[i]
        j = i - 1
        while j >= 0 and ts[j] > t:
            ts[j + 1] = ts[j]
            j -= 1
        ts[j + 1] = t


@njit(**INLINE)
def _deep_between(x0, y0, dx, dy, u, v, xy, s, n, ts):  # pragma: no cover - compiled
    """Is a point of the piece ``(x0, y0) + t (dx, dy)``, ``u <= t <= v`` (a stretch inside the ring), at least
    ``EPS`` from every edge? Split where the distance to an edge may pass ``EPS`` (each edge's disc ends, its band's
    sides and ends), one point tested a part."""
    mid = 0.5 * (u + v)
    if _depth(x0 + mid * dx, y0 + mid * dy, xy, s, n) >= EPS:
        return True
    m = 0
    ts[m] = u
    m += 1
    ts[m] = v
    m += 1
    aa = dx * dx + dy * dy
    for i in range(n):
        ax, ay = xy[s + i, 0], xy[s + i, 1]
        j = s + (i + 1) % n
        bx, by = xy[j, 0], xy[j, 1]
        # |p(t) - a| = EPS
        fx, fy = x0 - ax, y0 - ay
        bb = 2.0 * (fx * dx + fy * dy)
        cc = fx * fx + fy * fy - EPS * EPS
        if aa > 0.0:
            disc = bb * bb - 4.0 * aa * cc
            if disc >= 0.0:
                root = math.sqrt(disc)
                for t in ((-bb - root) / (2.0 * aa), (-bb + root) / (2.0 * aa)):
                    if u < t < v:
                        ts[m] = t
                        m += 1
        ex, ey = bx - ax, by - ay
        ll = math.hypot(ex, ey)
        if ll == 0.0:
            continue
        ux, uy = ex / ll, ey / ll
        across = -uy * dx + ux * dy
        along = ux * dx + uy * dy
        h0 = -uy * fx + ux * fy
        g0 = ux * fx + uy * fy
        if across != 0.0:
            for t in ((EPS - h0) / across, (-EPS - h0) / across):
                if u < t < v:
                    ts[m] = t
                    m += 1
        if along != 0.0:
            for t in ((0.0 - g0) / along, (ll - g0) / along):
                if u < t < v:
                    ts[m] = t
                    m += 1
    _sort_head(ts, m)
    for k in range(m - 1):
        t = 0.5 * (ts[k] + ts[k + 1])
        if _depth(x0 + t * dx, y0 + t * dy, xy, s, n) >= EPS:
            return True
    return False


@njit(**INLINE)
def _hits(x0, y0, x1, y1, xy, s, n, ts):  # pragma: no cover - compiled
    """Does the segment (x0, y0)-(x1, y1) meet the ring ``xy[s : s + n]`` shrunk by ``EPS``?"""
    dx, dy = x1 - x0, y1 - y0
    ll = dx * dx + dy * dy
    if ll == 0.0:
        return _inside(x0, y0, xy, s, n) and _depth(x0, y0, xy, s, n) >= EPS
    m = 0
    for i in range(n):
        ax, ay = xy[s + i, 0], xy[s + i, 1]
        j = s + (i + 1) % n
        bx, by = xy[j, 0], xy[j, 1]
        sa = dx * (ay - y0) - dy * (ax - x0)
        sb = dx * (by - y0) - dy * (bx - x0)
        if (sa > 0.0) != (sb > 0.0):
            w = sa / (sa - sb)
            px, py = ax + (bx - ax) * w, ay + (by - ay) * w
            ts[m] = ((px - x0) * dx + (py - y0) * dy) / ll
            m += 1
    if m == 0:
        return False
    _sort_head(ts, m)
    for k in range(0, m - 1, 2):
        u, v = max(ts[k], 0.0), min(ts[k + 1], 1.0)
        if u <= v and _deep_between(x0, y0, dx, dy, u, v, xy, s, n, ts[m:]):
            return True
    return False


@njit(**INLINE)
def _edge_circle(p0x, p0y, p1x, p1y, cx, cy, r, fx, fy, fr, nf):  # pragma: no cover - compiled
    """The crossings of the segment p0-p1 with the circle (c, r) appended as point features (``trace._edge_circle``)."""
    dx, dy = p1x - p0x, p1y - p0y
    gx, gy = p0x - cx, p0y - cy
    a = dx * dx + dy * dy
    b = 2 * (gx * dx + gy * dy)
    cc = gx * gx + gy * gy - r * r
    disc = b * b - 4 * a * cc
    if a == 0 or disc < 0:
        return nf
    root = math.sqrt(disc)
    t1, t2 = (-b - root) / (2 * a), (-b + root) / (2 * a)
    if 0 <= t1 <= 1:
        fx[nf], fy[nf], fr[nf] = p0x + t1 * dx, p0y + t1 * dy, 0.0
        nf += 1
    if t2 != t1 and 0 <= t2 <= 1:
        fx[nf], fy[nf], fr[nf] = p0x + t2 * dx, p0y + t2 * dy, 0.0
        nf += 1
    return nf


@njit(**INLINE)
def _line_free(nx, ny, k, ax, ay, ra, bx, by, rb, xy, starts, keep, ts):  # pragma: no cover - compiled
    """The shortest piece of the line ``n . p = k`` joining the two discs (``trace._gap_segments``) crosses no kept
    obstacle (False when the line misses a disc)."""
    fx, fy = nx * k, ny * k
    dx, dy = -ny, nx
    off_a = nx * ax + ny * ay - k
    off_b = nx * bx + ny * by - k
    if abs(off_a) > ra + EPS or abs(off_b) > rb + EPS:
        return False
    half_a = math.sqrt(max(ra * ra - off_a * off_a, 0.0))
    half_b = math.sqrt(max(rb * rb - off_b * off_b, 0.0))
    ta = (ax - fx) * dx + (ay - fy) * dy
    tb = (bx - fx) * dx + (by - fy) * dy
    a_lo, a_hi, b_lo, b_hi = ta - half_a, ta + half_a, tb - half_b, tb + half_b
    if a_hi <= b_lo:
        start, end = a_hi, b_lo
    elif b_hi <= a_lo:
        start, end = a_lo, b_hi
    else:
        start = end = max(a_lo, b_lo)
    x0, y0 = fx + dx * start, fy + dy * start
    x1, y1 = fx + dx * end, fy + dy * end
    for p in range(starts.shape[0] - 1):
        if keep[p] and _hits(x0, y0, x1, y1, xy, starts[p], starts[p + 1] - starts[p], ts):
            return False
    return True


#: the flags of a kernel's helper compiled into it as a call, not inlined, and not cached on its own (the trace in
#: :func:`_sight_kernel`: benchmarks/RESULTS.md, session 46)
_CALLED = {**JIT, "cache": False}


@njit(**_CALLED)
def _free(ax, ay, ra, bx, by, rb, xy, starts):  # pragma: no cover - compiled
    """:func:`free_exists` (the rings near the two bases read, the centre line first, then every tangent line)."""
    n_poly = starts.shape[0] - 1
    pad = 0.01 * max(ra, rb) + 2 * EPS
    lo_x, hi_x = min(ax - ra, bx - rb) - pad, max(ax + ra, bx + rb) + pad
    lo_y, hi_y = min(ay - ra, by - rb) - pad, max(ay + ra, by + rb) + pad
    keep = np.zeros(n_poly, dtype=np.bool_)
    kept = 0
    most = 0
    for p in range(n_poly):
        s, e = starts[p], starts[p + 1]
        most = max(most, e - s)
        x0, y0, x1, y1 = xy[s, 0], xy[s, 1], xy[s, 0], xy[s, 1]
        for i in range(s + 1, e):
            x0, x1 = min(x0, xy[i, 0]), max(x1, xy[i, 0])
            y0, y1 = min(y0, xy[i, 1]), max(y1, xy[i, 1])
        if not (x0 > hi_x or x1 < lo_x or y0 > hi_y or y1 < lo_y):
            keep[p] = True
            kept += 1
    if kept == 0:
        return True
    ts = np.empty(12 * most + 8, dtype=np.float64)
    # the centre line first (``free_trace``'s order)
    d = math.hypot(bx - ax, by - ay)
    if d == 0.0:
        d = 1.0
    nx, ny = -(by - ay) / d, (bx - ax) / d
    if _line_free(nx, ny, nx * ax + ny * ay, ax, ay, ra, bx, by, rb, xy, starts, keep, ts):
        return True
    hpad = 0.01 * max(ra, rb) + EPS
    # a corner farther than ``hpad`` from the two bases' box is farther from their hull: not a feature (the box
    # read first, a margin over the rounding; the hull's gap only for the corners near it)
    h_lo_x, h_hi_x = min(ax - ra, bx - rb), max(ax + ra, bx + rb)
    h_lo_y, h_hi_y = min(ay - ra, by - rb), max(ay + ra, by + rb)
    far = hpad + 1e-6
    cap = 2 + 5 * xy.shape[0]  # the two bases, a corner each, two crossings of each edge with each base
    fx, fy, fr = np.empty(cap), np.empty(cap), np.empty(cap)
    fx[0], fy[0], fr[0] = ax, ay, ra
    fx[1], fy[1], fr[1] = bx, by, rb
    nf = 2
    for p in range(n_poly):
        if not keep[p]:
            continue
        s, e = starts[p], starts[p + 1]
        for i in range(s, e):
            gx = max(h_lo_x - xy[i, 0], 0.0, xy[i, 0] - h_hi_x)
            gy = max(h_lo_y - xy[i, 1], 0.0, xy[i, 1] - h_hi_y)
            if gx > far or gy > far:
                continue
            if _hull_near(xy[i, 0], xy[i, 1], ax, ay, ra, bx, by, rb, hpad):
                fx[nf], fy[nf], fr[nf] = xy[i, 0], xy[i, 1], 0.0
                nf += 1
        for i in range(s, e):
            j = i + 1 if i + 1 < e else s
            nf = _edge_circle(xy[i, 0], xy[i, 1], xy[j, 0], xy[j, 1], ax, ay, ra, fx, fy, fr, nf)
            nf = _edge_circle(xy[i, 0], xy[i, 1], xy[j, 0], xy[j, 1], bx, by, rb, fx, fy, fr, nf)
    signs = np.array([1.0, -1.0])
    for i in range(nf):
        c1x, c1y, r1 = fx[i], fy[i], fr[i]
        for j in range(i + 1, nf):
            c2x, c2y, r2 = fx[j], fy[j], fr[j]
            ddx, ddy = c2x - c1x, c2y - c1y
            dd = math.hypot(ddx, ddy)
            if dd < 1e-12:
                continue
            phi = math.atan2(ddy, ddx)
            for i1 in range(2 if r1 > 0 else 1):
                s1 = signs[i1]
                for i2 in range(2 if r2 > 0 else 1):
                    s2 = signs[i2]
                    m = s2 * r2 - s1 * r1
                    if abs(m) > dd + 1e-12:
                        continue
                    alpha = math.acos(max(-1.0, min(1.0, m / dd)))
                    for w in range(2 if alpha > 1e-12 else 1):
                        t = phi + alpha if w == 0 else phi - alpha
                        tx, ty = math.cos(t), math.sin(t)
                        if _line_free(
                            tx, ty, tx * c1x + ty * c1y - s1 * r1, ax, ay, ra, bx, by, rb, xy, starts, keep, ts
                        ):
                            return True
    return False


@njit(**JIT)
def _centre_free_kernel(pa, pb, xy, starts):  # pragma: no cover - compiled
    """Per pair of discs (rows of ``pa``, of ``pb``: x, y, radius): the shortest piece of their centre line joining
    them crosses no ring of ``xy`` (:func:`_free`'s first line, read against every ring); False where the
    centres coincide."""
    out = np.zeros((pa.shape[0], pb.shape[0]), dtype=np.bool_)
    n_poly = starts.shape[0] - 1
    keep = np.ones(n_poly, dtype=np.bool_)
    most = 0
    for p in range(n_poly):
        most = max(most, starts[p + 1] - starts[p])
    ts = np.empty(12 * most + 8, dtype=np.float64)
    for i in range(pa.shape[0]):
        ax, ay, ra = pa[i, 0], pa[i, 1], pa[i, 2]
        for j in range(pb.shape[0]):
            bx, by, rb = pb[j, 0], pb[j, 1], pb[j, 2]
            d = math.hypot(bx - ax, by - ay)
            if d == 0.0:
                continue
            nx, ny = -(by - ay) / d, (bx - ax) / d
            out[i, j] = _line_free(nx, ny, nx * ax + ny * ay, ax, ay, ra, bx, by, rb, xy, starts, keep, ts)
    return out


def free_exists(
    ca: tuple[float, float], ra: float, cb: tuple[float, float], rb: float, xy: np.ndarray, starts: np.ndarray
) -> bool:
    """:func:`~mathhammer.board.trace.free_trace` ``(ca, ra, cb, rb, polygons) is not None`` for the footprints
    ``xy[starts[p] : starts[p + 1]]`` (corners, float64, each ring not closed).

    >>> sq = np.array([[4.0, -2.0], [5.0, -2.0], [5.0, 2.0], [4.0, 2.0]])
    >>> free_exists((0.0, 0.0), 0.5, (10.0, 0.0), 0.5, sq, np.array([0, 4]))
    False
    >>> free_exists((0.0, 0.0), 0.5, (10.0, 0.0), 0.5, sq * [1.0, 0.1], np.array([0, 4]))
    True
    """
    ax, ay, bx, by, none = float(ca[0]), float(ca[1]), float(cb[0]), float(cb[1]), -math.inf  # every ring blocks
    sizes = np.zeros(starts.shape[0] - 1)
    return (
        _sight_kernel(ax, ay, float(ra), none, bx, by, float(rb), none, False, False, xy, starts, sizes, 1.0, 0.0) == 1
    )


_RINGS: dict[tuple[int, ...], tuple[tuple[Terrain, ...], np.ndarray, np.ndarray]] = {}


def rings(pieces: tuple[Terrain, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The footprints of ``pieces`` as one array of corners (the shapely polygon's exterior, not closed) and the
    offsets of each; kept by the pieces' identities (a board's pieces recur in every trace on it, and hashing a piece
    reads every corner of it), the pieces held with them so that no other object takes one of their ids."""
    key = tuple(map(id, pieces))
    hit = _RINGS.get(key)
    if hit is None:
        rings = [np.asarray(p.polygon.exterior.coords, dtype=np.float64)[:-1] for p in pieces]
        starts = np.zeros(len(rings) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(r) for r in rings])
        xy = np.ascontiguousarray(np.concatenate(rings) if rings else np.zeros((0, 2)))
        if len(_RINGS) > 4096:
            _RINGS.clear()
        hit = _RINGS[key] = (pieces, xy, starts)
    return hit[1], hit[2]


#: :func:`sees` answers per terrain (by the tuple object: hashing a board's terrain costs microseconds, and the
#: boards of a battlefield share one tuple), each by the two models' ids and the target unit's HIDDEN, the models held
#: with the answer (an id read only for the model it was kept for: hashing a model's fields costs a microsecond)
_SEES: dict[int, tuple[tuple[Terrain, ...], dict[tuple[int, int, bool], tuple[Model, Model, bool]]]] = {}
_SEES_MAX = 1 << 13


def sees(board: Board, attacker: Model, target: Model) -> bool:
    """:func:`~mathhammer.board.los.line_of_sight` ``(board, attacker, target).visible``, the trace by
    :func:`free_exists`; kept by the terrain, the two models and the target unit's HIDDEN (as ``line_of_sight``)."""
    terrain = board.terrain
    entry = _SEES.get(id(terrain))
    if entry is None or entry[0] is not terrain:
        if len(_SEES) >= 64:
            _SEES.clear()
        entry = _SEES[id(terrain)] = (terrain, {})
    table = entry[1]
    hidden = board.unit_of(target).hidden
    key = (id(attacker), id(target), hidden)
    hit = table.get(key)
    if hit is not None and hit[0] is attacker and hit[1] is target:
        return hit[2]
    if len(table) >= _SEES_MAX:
        table.clear()
    seen = _sees(board, attacker, target, hidden)
    table[key] = (attacker, target, seen)
    return seen


def sees_many(board: Board, attackers: Sequence[Model], targets: Sequence[Model]) -> list[list[bool]]:
    """Per attacking model (rows) and target model (columns, the models of one unit): True where :func:`sees` is known
    True at once, False where it is not known (the caller asks :func:`sees`). Known: both models at Ground Level on the
    playmat (no Elevation Dead Zone), not the same model, the target unit not HIDDEN beyond 4" of the attacker, and the
    shortest piece of the centre line between the two bases crossing no piece that can block a trace (then none of the
    pieces that block this pair does: :func:`free_exists` finds that piece first, :func:`_free`). Read for every
    pair by one compiled pass."""
    if not attackers or not targets:
        return [[False] * len(targets) for _ in attackers]
    if any(m.stands_on is not None for m in attackers) or any(m.stands_on is not None for m in targets):
        return [[False] * len(targets) for _ in attackers]
    pieces = tuple(p for p, _ in board.sight_pieces())
    pa = np.array([(float(m.x), float(m.y), m.radius) for m in attackers], dtype=np.float64)
    pb = np.array([(float(m.x), float(m.y), m.radius) for m in targets], dtype=np.float64)
    if pieces:
        xy, starts = rings(pieces)
        free = _centre_free_kernel(pa, pb, xy, starts).tolist()
    else:
        free = [[True] * len(targets) for _ in attackers]
    hidden = board.unit_of(targets[0]).hidden
    for row, a in zip(free, attackers, strict=True):
        for j, t in enumerate(targets):
            if row[j] and (a.id == t.id or (hidden and a.distance(t) > HIDDEN_RANGE + EPS)):
                row[j] = False
    return free


@njit(**INLINE)
def _within(px, py, r, xy, s, n, reach, tol):  # pragma: no cover - compiled
    """``Board.within_terrain`` of a base of radius ``r`` at (px, py) and the footprint ``xy[s : s + n]``: 1 where its
    edge is within ``reach`` of it (0 inside it), 0 where not, -1 where the gap is within ``tol`` of ``reach`` (GEOS's
    distance and this one may part in the last bits there: the caller reads it as the walk does)."""
    d = 0.0 if _inside(px, py, xy, s, n) else _depth(px, py, xy, s, n)
    g = d - r - reach
    if abs(g) <= tol:
        return -1
    return 1 if g < 0.0 else 0


@njit(**JIT)
def _sight_kernel(ax, ay, ra, ea, bx, by, rb, eb, flying, close, xy, starts, sizes, reach, tol):  # pragma: no cover
    """``los.blocking``'s pieces of a pair of models on the playmat (Effective Sizes ``ea``, ``eb``; ``flying``: either
    is; ``close``: Within 3" of each other) among the footprints ``xy[starts[p] : starts[p + 1]]`` (the sight pieces,
    Effective Size ``sizes[p]``), then :func:`_free` on them: 1 Visible, 0 not, 2 where a Within 1" test is
    within ``tol`` of its limit (:func:`_within`: the caller reads the pair as :func:`los.blocking` does). With ``ea``
    and ``eb`` at minus infinity every piece blocks (:func:`free_exists`)."""
    n_poly = starts.shape[0] - 1
    block = np.zeros(n_poly, dtype=np.bool_)
    nb, nv = 0, 0
    for p in range(n_poly):
        s, n, size = starts[p], starts[p + 1] - starts[p], sizes[p]
        hit = False
        if not flying and size >= ea and size >= eb:  # 7.1.3 Full Cover
            hit = True
        else:
            wa, wb = -2, -2  # -2: not read (read at most once each, as ``blocking`` reads them)
            if close:  # 7.1.1 Close Quarters: both Within 1" of the piece
                wa = _within(ax, ay, ra, xy, s, n, reach, tol)
                if wa == -1:
                    return 2
                if wa == 1:
                    wb = _within(bx, by, rb, xy, s, n, reach, tol)
                    if wb == -1:
                        return 2
                    if wb == 1:
                        continue
            if size >= ea:
                if wa == -2:
                    wa = _within(ax, ay, ra, xy, s, n, reach, tol)
                    if wa == -1:
                        return 2
                hit = wa == 1
            if not hit and size >= eb:  # 7.1.3 Direct Cover
                if wb == -2:
                    wb = _within(bx, by, rb, xy, s, n, reach, tol)
                    if wb == -1:
                        return 2
                hit = wb == 1
        if hit:
            block[p] = True
            nb += 1
            nv += n
    if nb == 0:
        return 1
    sub = np.empty((nv, 2), dtype=np.float64)
    at = np.zeros(nb + 1, dtype=np.int64)
    k = 0
    for p in range(n_poly):
        if block[p]:
            for i in range(starts[p], starts[p + 1]):
                sub[at[k] + i - starts[p], 0] = xy[i, 0]
                sub[at[k] + i - starts[p], 1] = xy[i, 1]
            at[k + 1] = at[k] + starts[p + 1] - starts[p]
            k += 1
    return 1 if _free(ax, ay, ra, bx, by, rb, sub, at) else 0


#: per terrain (by the tuple object, held with it): the sight pieces' footprints and Effective Sizes as
#: :func:`_sight_kernel` reads them, or None where a footprint has a hole (:func:`_sees` then reads every pair by
#: ``los.blocking``)
_SIGHT: dict[int, tuple[tuple[Terrain, ...], tuple[np.ndarray, np.ndarray, np.ndarray] | None]] = {}
#: a Within 1" gap this close to its limit is read by ``los.blocking`` (GEOS's distance)
SIGHT_TOL = 1e-9


def _sight_arrays(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:data:`_SIGHT`'s entry of the board's terrain, made on its first read."""
    terrain = board.terrain
    kept = _SIGHT.get(id(terrain))
    if kept is None or kept[0] is not terrain:
        if len(_SIGHT) >= 64:
            _SIGHT.clear()
        sized = board.sight_pieces()
        arrays = None
        if all(not p.polygon.interiors for p, _ in sized):
            xy, starts = rings(tuple(p for p, _ in sized))
            arrays = (xy, starts, np.asarray([float(size) for _, size in sized], dtype=np.float64))
        kept = _SIGHT[id(terrain)] = (terrain, arrays)
    return kept[1]


def _sees(board: Board, attacker: Model, target: Model, hidden: bool | None = None) -> bool:
    """``los._trace_sight(...).visible`` (``hidden``: the target unit's HIDDEN, where the caller has read it): for two
    models on the playmat (no Elevation Dead Zone, no piece under either, Effective Size their Size or Flying's
    infinity), not the same, the target not HIDDEN beyond 4", the pieces that block the trace and the trace itself by
    :func:`_sight_kernel`, unless a Within 1" gap is at its limit; else as ``los`` reads them."""
    if attacker.stands_on is None and target.stands_on is None and attacker.id != target.id:
        gap = attacker.distance(target)
        if hidden is None:
            hidden = board.unit_of(target).hidden
        arrays = None if hidden and gap > HIDDEN_RANGE + EPS else _sight_arrays(board)
        if arrays is not None:
            xy, starts, sizes = arrays
            if sizes.size == 0:
                return True
            (ax, ay), (bx, by) = attacker.centre, target.centre
            ea = math.inf if attacker.flying else float(attacker.size)
            eb = math.inf if target.flying else float(target.size)
            got = _sight_kernel(ax, ay, attacker.radius, ea, bx, by, target.radius, eb,
                                attacker.flying or target.flying, gap <= CLOSE_QUARTERS + EPS, xy, starts, sizes,
                                COVER_RANGE + EPS, SIGHT_TOL)  # fmt: skip
            if got < 2:
                return got == 1
    decided = untraced(board, attacker, target)
    if decided is not None:
        return decided.visible
    blocks = tuple(p for p, _ in blocking(board, attacker, target))
    if not blocks:
        return True
    xy, starts = rings(blocks)
    return free_exists(attacker.centre, attacker.radius, target.centre, target.radius, xy, starts)


__all__ = ["free_exists", "rings", "sees", "sees_many"]
