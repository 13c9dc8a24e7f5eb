"""The Charge search compiled (8.7.7 steps 2-3): the shortest path of the Leading Model to a legal Charge end.

:func:`~mathhammer.board.charge.charge_distance` (the shapely search) stays the reference and the search of every board
this module does not read; :func:`charge_search` answers the same question on plain arrays, for a board of one level
(no surface piece) and a Leading Model touching no obstacle, and serves the simulation's Charges (its World's search:
:mod:`mathhammer.scenario.geometry.charge`): the automatic players' verdicts, the walk that checks a plan and the
engine that applies a Charge read the same answer.

The method is the shapely search's (configuration space: the Leading Model's centre avoids every obstacle grown by its
radius; a visibility graph of the obstacles' corners and of points of the goal region's edge; A* guided by the
straight distance to the targets' zones), read with circles for the bases instead of GEOS polygons:

* the path obstacles (8.5.3): every Ground base of another unit, a circle of its radius + the Leading Model's (round it,
  :data:`NV` corners of a polygon around that circle); every terrain piece that blocks a path
  (:func:`~.cspace.blocks_path`), the shapely search's grown footprint (circumscribed); the table's edge;
* the goal (8.7.7 step 3, 7.2.1): Within 1" of a model of every target (circles of their radius + 1" + the Leading
  Model's), not overlapping another base, not over a non-GRASS footprint, not Within 1" of an undeclared enemy Ground
  model, on the table; its edge sampled every :data:`~.cspace.GOAL_STEP` along every circle and edge that may bound it,
  with every point where two of them cross (every piece of the goal holds one), the start's nearest point on each and
  each corner's nearest point on each zone;
* a path keeps off the bases' circles and the search's grown footprints, an end :data:`EDGE` further (both legal read
  exactly, and no end lies on an obstacle's edge, where rounding would decide), and an end with a Size 2+ wall
  between it and the targets (7.2.1) is left to the shapely search.

So its lengths are the rules' read with circles, where the shapely search's read polygons around them (up to 0.5% of
the radius further round a base) and sample the goal from other points: the two agree within the search's own
approximation (``tests/test_fastcharge.py``: within :data:`~.cspace.GOAL_STEP`, the mean difference under 0.01").
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np
from numba import njit
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from ..config import INLINE, JIT
from .charge import ChargePath, _check_charge, _engages_all
from .cspace import GOAL_STEP, blocks_path, grown_footprint
from .engagement import ENGAGEMENT_RANGE
from .fastsight import _inside as _ring_holds
from .model import Board, Terrain

#: corners per disc in the visibility graph
NV = 32
#: how far an end keeps off the shapes a path keeps off (the bases' circles, the search's grown footprints), inches: no
#: end lies on an obstacle's edge, where rounding would decide
EDGE = 1e-6
#: a point this near a keep-out circle's edge is on it
TOL = 1e-9
#: a point this near a keep-out ring's edge is on it (far below :data:`EDGE`)
ON_EDGE = 1e-7


@njit(**INLINE)
def _seg_disc(ax, ay, bx, by, cx, cy, r):  # pragma: no cover - compiled
    """Does the segment ab come nearer than ``r`` to (cx, cy)?"""
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0
    if ll > 0.0:
        t = ((cx - ax) * dx + (cy - ay) * dy) / ll
        t = min(1.0, max(0.0, t))
    px, py = ax + t * dx - cx, ay + t * dy - cy
    return px * px + py * py < r * r


@njit(**INLINE)
def _inside(px, py, xy, s, e):  # pragma: no cover - compiled
    """Is (px, py) inside the ring ``xy[s:e]`` (even-odd rule: Line of Sight's test)?"""
    return _ring_holds(px, py, xy, s, e - s)


@njit(**INLINE)
def _zones_box(zones):  # pragma: no cover - compiled
    """The box of the circles ``zones`` (x, y, radius): no goal point lies outside it."""
    zx0, zy0, zx1, zy1 = np.inf, np.inf, -np.inf, -np.inf
    for z in range(zones.shape[0]):
        zx0 = min(zx0, zones[z, 0] - zones[z, 2])
        zy0 = min(zy0, zones[z, 1] - zones[z, 2])
        zx1 = max(zx1, zones[z, 0] + zones[z, 2])
        zy1 = max(zy1, zones[z, 1] + zones[z, 2])
    return zx0, zy0, zx1, zy1


@njit(**INLINE)
def _seg_ring(ax, ay, bx, by, xy, s, e):  # pragma: no cover - compiled
    """Does the segment ab cross the inside of the ring ``xy[s:e]`` (a proper crossing of an edge, or its middle or an
    end inside)?"""
    j = e - 1
    for i in range(s, e):
        x1, y1, x2, y2 = xy[j, 0], xy[j, 1], xy[i, 0], xy[i, 1]
        o1 = (bx - ax) * (y1 - ay) - (by - ay) * (x1 - ax)
        o2 = (bx - ax) * (y2 - ay) - (by - ay) * (x2 - ax)
        o3 = (x2 - x1) * (ay - y1) - (y2 - y1) * (ax - x1)
        o4 = (x2 - x1) * (by - y1) - (y2 - y1) * (bx - x1)
        if ((o1 > 0.0 and o2 < 0.0) or (o1 < 0.0 and o2 > 0.0)) and (
            (o3 > 0.0 and o4 < 0.0) or (o3 < 0.0 and o4 > 0.0)
        ):
            return True
        j = i
    return _inside(0.5 * (ax + bx), 0.5 * (ay + by), xy, s, e) or _inside(ax, ay, xy, s, e) or _inside(bx, by, xy, s, e)


@njit(**INLINE)
def _blocked(ax, ay, bx, by, discs, bxy, bst, bbox):  # pragma: no cover - compiled
    """Does the segment ab meet a disc of ``discs`` (x, y, radius) or a ring of ``bxy`` (offsets ``bst``, boxes
    ``bbox``)?"""
    lx, hx, ly, hy = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
    for k in range(discs.shape[0]):
        cx, cy, r = discs[k, 0], discs[k, 1], discs[k, 2]
        if cx + r < lx or cx - r > hx or cy + r < ly or cy - r > hy:
            continue
        if _seg_disc(ax, ay, bx, by, cx, cy, r):
            return True
    for p in range(bst.size - 1):
        if bbox[p, 2] < lx or bbox[p, 0] > hx or bbox[p, 3] < ly or bbox[p, 1] > hy:
            continue
        if _seg_ring(ax, ay, bx, by, bxy, bst[p], bst[p + 1]):
            return True
    return False


@njit(**INLINE)
def _goal_keep(pts, n, box, zones, zt, nt, excl, exy, exst, exbox):  # pragma: no cover - compiled
    """Per point of ``pts[:n]`` (x, y rows): is it in the goal region, in ``box``, within a zone (x, y, radius) of
    every target ``0..nt-1`` (``zt``: each zone's target), out of every keep-out disc of ``excl`` and ring of ``exy``
    (boxes ``exbox``)? The points are read in one loop here, not one call a point: inlined in a loop, a helper taking
    these arrays cost twice the test's own work (benchmarks/RESULTS.md, session 45)."""
    keep = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        px, py = pts[i, 0], pts[i, 1]
        ok = not (px < box[0] - TOL or px > box[2] + TOL or py < box[1] - TOL or py > box[3] + TOL)
        if ok:
            for t in range(nt):
                hit = False
                for z in range(zones.shape[0]):
                    if zt[z] == t:
                        dx, dy = px - zones[z, 0], py - zones[z, 1]
                        rr = zones[z, 2] + TOL
                        if dx * dx + dy * dy <= rr * rr:
                            hit = True
                            break
                if not hit:
                    ok = False
                    break
        if ok:
            for k in range(excl.shape[0]):
                dx, dy = px - excl[k, 0], py - excl[k, 1]
                rr = excl[k, 2] - TOL
                if rr > 0.0 and dx * dx + dy * dy < rr * rr:
                    ok = False
                    break
        if ok:  # (a point out of a ring's box is out of the ring)
            for p in range(exst.size - 1):
                if (
                    exbox[p, 0] <= px <= exbox[p, 2]
                    and exbox[p, 1] <= py <= exbox[p, 3]
                    and _inside(px, py, exy, exst[p], exst[p + 1])
                    and _off_edge(px, py, exy, exst[p], exst[p + 1])
                ):
                    ok = False
                    break
        keep[i] = ok
    return keep


@njit(**INLINE)
def _ring_gap(px, py, xy, s, e, squared=False):  # pragma: no cover - compiled
    """The distance from (px, py) to the ring ``xy[s:e]``'s edges (``squared``: its square, read without ``hypot``)."""
    best = np.inf
    j = e - 1
    for i in range(s, e):
        ax, ay, bx, by = xy[j, 0], xy[j, 1], xy[i, 0], xy[i, 1]
        dx, dy = bx - ax, by - ay
        ll = dx * dx + dy * dy
        t = 0.0 if ll <= 0.0 else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / ll))
        qx, qy = ax + t * dx - px, ay + t * dy - py
        best = min(best, qx * qx + qy * qy if squared else math.hypot(qx, qy))
        j = i
    return best


@njit(**INLINE)
def _off_edge(px, py, xy, s, e):  # pragma: no cover - compiled
    """Is (px, py) further than :data:`ON_EDGE` from the ring ``xy[s:e]``'s edges (:func:`_ring_gap` > ``ON_EDGE``)?
    Read on the least squared distance, and by ``hypot`` only where that is within a millionth of the threshold's
    square (the squares' rounding is some 1e-16 of it): the same answer, without a ``hypot`` an edge."""
    best = _ring_gap(px, py, xy, s, e, True)
    if best > ON_EDGE * ON_EDGE * (1.0 + 1e-6):
        return True
    if best < ON_EDGE * ON_EDGE * (1.0 - 1e-6):
        return False
    return _ring_gap(px, py, xy, s, e) > ON_EDGE


@njit(**INLINE)
def _circle_x(x1, y1, r1, x2, y2, r2, out, n):  # pragma: no cover - compiled
    """Append to ``out`` (from row ``n``) the points where the two circles cross; the new count."""
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy)
    if d <= 0.0 or d > r1 + r2 or d < abs(r1 - r2):
        return n
    a = (r1 * r1 - r2 * r2 + d * d) / (2.0 * d)
    h = math.sqrt(max(0.0, r1 * r1 - a * a))
    mx, my = x1 + a * dx / d, y1 + a * dy / d
    out[n, 0], out[n, 1] = mx - h * dy / d, my + h * dx / d
    out[n + 1, 0], out[n + 1, 1] = mx + h * dy / d, my - h * dx / d
    return n + 2


@njit(**INLINE)
def _seg_circle_x(ax, ay, bx, by, cx, cy, r, out, n):  # pragma: no cover - compiled
    """Append to ``out`` the points where the segment ab crosses the circle; the new count."""
    dx, dy = bx - ax, by - ay
    fx, fy = ax - cx, ay - cy
    a = dx * dx + dy * dy
    if a <= 0.0:
        return n
    b = 2.0 * (fx * dx + fy * dy)
    c = fx * fx + fy * fy - r * r
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return n
    s = math.sqrt(disc)
    for t in ((-b - s) / (2.0 * a), (-b + s) / (2.0 * a)):
        if 0.0 <= t <= 1.0:
            out[n, 0], out[n, 1] = ax + t * dx, ay + t * dy
            n += 1
    return n


@njit(**INLINE)
def _seg_near(ax, ay, bx, by, px, py, out, n):  # pragma: no cover - compiled
    """Append to ``out`` the point of the segment ab nearest (px, py); the new count."""
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll <= 0.0 else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / ll))
    out[n, 0], out[n, 1] = ax + t * dx, ay + t * dy
    return n + 1


@njit(**JIT)
def _goal_points(sx, sy, box, zones, zt, nt, excl, exy, exst, exbox, step):  # pragma: no cover - compiled
    """Points of the goal region's edge (:func:`_goal_keep`): samples every ``step`` along each circle and edge that
    may bound it (the zones, the keep-outs, the rings' edges, ``box``'s edges), every point where two of them cross,
    the rings' and ``box``'s corners, and the nearest point of each to the start (sx, sy)."""
    nc = zones.shape[0] + excl.shape[0]
    circ = np.empty((nc, 3))
    circ[: zones.shape[0]] = zones
    circ[zones.shape[0] :] = excl
    # the edges: the rings', then the box's
    ne = exst[-1] + 4
    edges = np.empty((ne, 4))
    k = 0
    for p in range(exst.size - 1):
        s, e = exst[p], exst[p + 1]
        j = e - 1
        for i in range(s, e):
            edges[k, 0], edges[k, 1], edges[k, 2], edges[k, 3] = exy[j, 0], exy[j, 1], exy[i, 0], exy[i, 1]
            k += 1
            j = i
    x0, y0, x1, y1 = box[0], box[1], box[2], box[3]
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        edges[k + i, 0], edges[k + i, 1], edges[k + i, 2], edges[k + i, 3] = a[0], a[1], b[0], b[1]
    zx0, zy0, zx1, zy1 = _zones_box(zones)
    # how many candidates at most
    cap = 0
    for c in range(nc):
        cap += 4 * max(2, math.ceil(math.pi * circ[c, 2] / (2.0 * step))) + 1
    for e in range(ne):
        cap += math.ceil(math.hypot(edges[e, 2] - edges[e, 0], edges[e, 3] - edges[e, 1]) / step) + 3
    cap += nc * nc * 2 + nc * ne * 2 + 4
    out = np.empty((cap, 2))
    n = 0
    for c in range(nc):
        cx, cy, r = circ[c, 0], circ[c, 1], circ[c, 2]
        if cx + r < zx0 or cx - r > zx1 or cy + r < zy0 or cy - r > zy1 or r <= 0.0:
            continue
        # a multiple of 4: the samples map onto themselves by the table's mirrors (across an axis or a diagonal of a
        # square table, a half turn)
        m = 4 * max(2, math.ceil(math.pi * r / (2.0 * step)))
        ca, sa = math.cos(2.0 * math.pi / m), math.sin(2.0 * math.pi / m)
        ux, uy = r, 0.0
        for _ in range(m):  # round the circle by turns of 2 pi / m (rounding drifts far below TOL's use here)
            out[n, 0], out[n, 1] = cx + ux, cy + uy
            n += 1
            ux, uy = ux * ca - uy * sa, ux * sa + uy * ca
        d = math.hypot(sx - cx, sy - cy)
        if d > 0.0:
            out[n, 0], out[n, 1] = cx + r * (sx - cx) / d, cy + r * (sy - cy) / d
            n += 1
        for c2 in range(c + 1, nc):
            n = _circle_x(cx, cy, r, circ[c2, 0], circ[c2, 1], circ[c2, 2], out, n)
        for e in range(ne):
            ax, ay, bx, by = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            if max(ax, bx) < cx - r or min(ax, bx) > cx + r or max(ay, by) < cy - r or min(ay, by) > cy + r:
                continue
            n = _seg_circle_x(ax, ay, bx, by, cx, cy, r, out, n)
    for e in range(ne):
        ax, ay, bx, by = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        if max(ax, bx) < zx0 or min(ax, bx) > zx1 or max(ay, by) < zy0 or min(ay, by) > zy1:
            continue
        # only the part in the zones' box is sampled
        ll = math.hypot(bx - ax, by - ay)
        m = math.ceil(ll / step)
        for i in range(m + 1):
            t = i / m if m > 0 else 0.0
            px, py = ax + t * (bx - ax), ay + t * (by - ay)
            if zx0 <= px <= zx1 and zy0 <= py <= zy1:
                out[n, 0], out[n, 1] = px, py
                n += 1
        n = _seg_near(ax, ay, bx, by, sx, sy, out, n)
    return out[:n][_goal_keep(out, n, box, zones, zt, nt, excl, exy, exst, exbox)]


@njit(**JIT)
def _bound_kernel(
    sx, sy, bound, discs, bxy, bst, bbox, cxy, box, zones, zt, nt, excl, exy, exst, step
):  # pragma: no cover - compiled
    """The shortest path from (sx, sy) to the goal region (:func:`_goal_keep`) avoiding the discs ``discs`` and the
    rings of ``bxy``: its length (inf: none up to ``bound``; -1: the start inside an obstacle), its points, and
    whether its end is the nearest goal point of all. Nodes: the start, :data:`NV` corners round each disc, the
    points ``cxy`` (the rings' corners, just outside them), the goal points (:func:`_goal_points`), all in ``box``."""
    # only the keep-outs meeting the zones' box can bound the goal
    zx0, zy0, zx1, zy1 = _zones_box(zones)
    keep = np.zeros(excl.shape[0], dtype=np.bool_)
    for e in range(excl.shape[0]):
        cx, cy, r = excl[e, 0], excl[e, 1], excl[e, 2]
        keep[e] = not (cx + r < zx0 or cx - r > zx1 or cy + r < zy0 or cy - r > zy1)
    excl = excl[keep]
    nr = exst.size - 1
    rbox = np.empty((nr, 4))
    rkeep = np.zeros(nr, dtype=np.bool_)
    total = 0
    for p in range(nr):
        seg = exy[exst[p] : exst[p + 1]]
        rbox[p, 0], rbox[p, 1] = seg[:, 0].min(), seg[:, 1].min()
        rbox[p, 2], rbox[p, 3] = seg[:, 0].max(), seg[:, 1].max()
        rkeep[p] = not (rbox[p, 2] < zx0 or rbox[p, 0] > zx1 or rbox[p, 3] < zy0 or rbox[p, 1] > zy1)
        if rkeep[p]:
            total += exst[p + 1] - exst[p]
    kxy = np.empty((total, 2))
    kst = np.zeros(int(rkeep.sum()) + 1, dtype=np.int64)
    q = 0
    for p in range(nr):
        if rkeep[p]:
            n0 = kst[q]
            kxy[n0 : n0 + exst[p + 1] - exst[p]] = exy[exst[p] : exst[p + 1]]
            kst[q + 1] = n0 + exst[p + 1] - exst[p]
            q += 1
    exy, exst, exbox = kxy, kst, rbox[rkeep]
    # a start inside an obstacle (touching it, read with rounding): -1, the shapely search's (it reads the first leg
    # on the inscribed polygon)
    for d in range(discs.shape[0]):
        dx, dy = sx - discs[d, 0], sy - discs[d, 1]
        if dx * dx + dy * dy < discs[d, 2] * discs[d, 2]:
            return -1.0, np.empty((0, 2)), False
    for p in range(bst.size - 1):
        if _inside(sx, sy, bxy, bst[p], bst[p + 1]):
            return -1.0, np.empty((0, 2)), False
    way = np.empty((1, 2))
    way[0, 0], way[0, 1] = sx, sy
    if _goal_keep(way, 1, box, zones, zt, nt, excl, exy, exst, exbox)[0]:
        return 0.0, way, True
    goal = _goal_points(sx, sy, box, zones, zt, nt, excl, exy, exst, exbox, step)
    # the nodes are read alike whatever ``bound`` (a shorter bound only leaves out nodes no path up to it passes)
    k = discs.shape[0]
    cap = 1 + k * NV + cxy.shape[0] + goal.shape[0]
    xy = np.empty((cap, 2))
    is_goal = np.zeros(cap, dtype=np.bool_)
    xy[0, 0], xy[0, 1] = sx, sy
    n = 1
    grow = 1.0 / math.cos(math.pi / NV) * (1.0 + 1e-9)
    for d in range(k):
        cx, cy, r = discs[d, 0], discs[d, 1], discs[d, 2] * grow
        meets = not (cx + r < zx0 or cx - r > zx1 or cy + r < zy0 or cy - r > zy1)
        if math.hypot(cx - sx, cy - sy) - r > bound and not meets:
            continue
        for i in range(NV):
            a = 2.0 * math.pi * i / NV
            xy[n, 0], xy[n, 1] = cx + r * math.cos(a), cy + r * math.sin(a)
            n += 1
    for i in range(cxy.shape[0]):
        xy[n] = cxy[i]
        n += 1
    corners_end = n
    for i in range(goal.shape[0]):
        xy[n] = goal[i]
        is_goal[n] = True
        n += 1
    # the nodes clear of every obstacle and on the table; those a path up to ``bound`` may reach
    clear = np.zeros(n, dtype=np.bool_)
    live = np.zeros(n, dtype=np.bool_)
    clear[0] = live[0] = True
    for i in range(1, n):
        px, py = xy[i, 0], xy[i, 1]
        if px < box[0] - TOL or px > box[2] + TOL or py < box[1] - TOL or py > box[3] + TOL:
            continue
        far = math.hypot(px - sx, py - sy) > bound
        inner = px >= zx0 and px <= zx1 and py >= zy0 and py <= zy1
        if far and not (i < corners_end and inner):
            continue
        ok = True
        if i < corners_end:
            for d in range(k):
                dx, dy = px - discs[d, 0], py - discs[d, 1]
                if dx * dx + dy * dy < discs[d, 2] * discs[d, 2]:
                    ok = False
                    break
            if ok:
                for p in range(bst.size - 1):  # a point out of a ring's box is out of the ring
                    if (
                        bbox[p, 0] <= px <= bbox[p, 2]
                        and bbox[p, 1] <= py <= bbox[p, 3]
                        and _inside(px, py, bxy, bst[p], bst[p + 1])
                    ):
                        ok = False
                        break
        clear[i] = ok
        live[i] = ok and not far
    # each clear corner's nearest point on each zone circle (corners in the zones' box), where it is a goal point: the
    # end of a path round that corner (as the search's nearest goal point of every corner)
    extra = np.empty((max(0, corners_end - 1) * zones.shape[0], 2))
    ne = 0
    for i in range(1, corners_end):
        px, py = xy[i, 0], xy[i, 1]
        if not clear[i] or px < zx0 or px > zx1 or py < zy0 or py > zy1:
            continue
        for z in range(zones.shape[0]):
            cx, cy, rz = zones[z, 0], zones[z, 1], zones[z, 2]
            d = math.hypot(px - cx, py - cy)
            if d <= rz:
                continue
            qx, qy = cx + rz * (px - cx) / d, cy + rz * (py - cy) / d
            if math.hypot(qx - sx, qy - sy) <= bound:
                extra[ne, 0], extra[ne, 1] = qx, qy
                ne += 1
    extra = extra[:ne][_goal_keep(extra, ne, box, zones, zt, nt, excl, exy, exst, exbox)]
    ne = extra.shape[0]
    idx = np.flatnonzero(live)
    m = idx.size + ne
    pts = np.empty((m, 2))
    pts[: idx.size] = xy[idx]
    pts[idx.size :] = extra[:ne]
    goal_at = np.ones(m, dtype=np.bool_)
    goal_at[: idx.size] = is_goal[idx]
    # the A* estimate: the straight distance to the zones of the farthest target; a node with no path up to ``bound``
    # through it (the straight line to it and its estimate longer) is left out
    h = np.zeros(m)
    for i in range(m):
        worst = 0.0
        for t in range(nt):
            best = np.inf
            for z in range(zones.shape[0]):
                if zt[z] == t:
                    best = min(best, math.hypot(pts[i, 0] - zones[z, 0], pts[i, 1] - zones[z, 1]) - zones[z, 2])
            worst = max(worst, best)
        h[i] = max(0.0, worst - 1e-9)
    useful = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        useful[i] = i == 0 or math.hypot(pts[i, 0] - sx, pts[i, 1] - sy) + h[i] <= bound + 1e-9
    pts, goal_at, h = pts[useful], goal_at[useful], h[useful]
    m = pts.shape[0]
    dist = np.full(m, np.inf)
    done = np.zeros(m, dtype=np.bool_)
    prev = np.full(m, -1, dtype=np.int64)
    dist[0] = 0.0
    heap = [(h[0], 0)]
    best_f = bound + 1e-9
    while len(heap) > 0:
        f, i = heapq.heappop(heap)
        if done[i]:
            continue
        if f > bound + 1e-9:
            break
        done[i] = True
        if goal_at[i]:
            hops = 1
            j = i
            while prev[j] >= 0:
                hops += 1
                j = prev[j]
            way = np.empty((hops, 2))
            j = i
            for q in range(hops - 1, -1, -1):
                way[q] = pts[j]
                j = prev[j]
            # the end is the nearest goal point of all (no path to another is shorter): the answer reads no model
            # off the box of the start and the zones
            nearest = True
            for q in range(m):
                if goal_at[q] and math.hypot(pts[q, 0] - sx, pts[q, 1] - sy) < dist[i] - 1e-12:
                    nearest = False
                    break
            return dist[i], way, nearest
        ax, ay, di = pts[i, 0], pts[i, 1], dist[i]
        for j in range(m):
            if done[j]:
                continue
            step_ij = math.hypot(pts[j, 0] - ax, pts[j, 1] - ay)
            nd = di + step_ij
            if nd >= dist[j] or nd + h[j] > best_f:
                continue
            if _blocked(ax, ay, pts[j, 0], pts[j, 1], discs, bxy, bst, bbox):
                continue
            dist[j] = nd
            prev[j] = i
            heapq.heappush(heap, (nd + h[j], j))
            if goal_at[j] and nd < best_f:
                best_f = nd
    return np.inf, np.empty((0, 2)), False


def shortest_path(
    start: tuple[float, float],
    bound: float,
    discs: np.ndarray,
    rings: list[np.ndarray],
    corner_rings: list[np.ndarray],
    box: tuple[float, float, float, float],
    zones: np.ndarray,
    zone_target: np.ndarray,
    targets: int,
    keep_out: np.ndarray,
    keep_out_rings: list[np.ndarray],
    step: float = GOAL_STEP,
) -> tuple[float, tuple[tuple[float, float], ...] | None, bool]:
    """:func:`_bound_kernel` on Python's shapes: ``rings`` the path obstacles' outlines (x, y rows, not closed),
    ``corner_rings`` the points round each just outside it, ``keep_out_rings`` the goal's keep-out outlines. The
    length (inf: no path up to ``bound``), the path (None: none) and whether its end is the nearest goal point of
    all."""
    packed = _pack(rings, corner_rings, keep_out_rings)
    return _search(start, bound, discs, packed, box, zones, zone_target, targets, keep_out, step)


#: the obstacle rings as :func:`_bound_kernel` reads them: the path rings' rows and offsets, their boxes, the corner
#: points, the keep-out rings' rows and offsets
_Packed = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _pack(rings: list[np.ndarray], corner_rings: list[np.ndarray], keep_out_rings: list[np.ndarray]) -> _Packed:
    """:data:`_Packed` of :func:`shortest_path`'s rings."""
    bxy, bst = _flat(rings)
    bbox = np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 0].max(), r[:, 1].max()] for r in rings]).reshape(-1, 4)
    cxy = np.concatenate(corner_rings) if corner_rings else np.empty((0, 2))
    exy, exst = _flat(keep_out_rings)
    return bxy, bst, bbox, np.ascontiguousarray(cxy, dtype=np.float64).reshape(-1, 2), exy, exst


def _search(
    start: tuple[float, float],
    bound: float,
    discs: np.ndarray,
    packed: _Packed,
    box: tuple[float, float, float, float],
    zones: np.ndarray,
    zone_target: np.ndarray,
    targets: int,
    keep_out: np.ndarray,
    step: float,
) -> tuple[float, tuple[tuple[float, float], ...] | None, bool]:
    """:func:`shortest_path` with its rings packed (:func:`_pack`)."""
    bxy, bst, bbox, cxy, exy, exst = packed
    length, way, nearest = _bound_kernel(
        float(start[0]),
        float(start[1]),
        float(bound),
        np.ascontiguousarray(discs, dtype=np.float64).reshape(-1, 3),
        bxy,
        bst,
        bbox,
        cxy,
        np.asarray(box, dtype=np.float64),
        np.ascontiguousarray(zones, dtype=np.float64).reshape(-1, 3),
        np.asarray(zone_target, dtype=np.int64),
        int(targets),
        np.ascontiguousarray(keep_out, dtype=np.float64).reshape(-1, 3),
        exy,
        exst,
        float(step),
    )
    if not math.isfinite(length) or length < 0.0:
        return float(length), None, False
    return float(length), tuple((float(x), float(y)) for x, y in way.tolist()), bool(nearest)


def _flat(rings: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rings as one array of rows and their offsets."""
    if not rings:
        return np.empty((0, 2)), np.zeros(1, dtype=np.int64)
    st = np.zeros(len(rings) + 1, dtype=np.int64)
    st[1:] = np.cumsum([len(r) for r in rings])
    return np.ascontiguousarray(np.concatenate(rings), dtype=np.float64), st


#: per (piece, radius, through): the piece's rings (:func:`_piece`), kept with the piece (its id is then not reused)
_PIECES: dict[
    tuple[int, float, int], tuple[object, tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None] | None]
] = {}


#: per terrain (by the tuple object, held with it), radius and through: :func:`_terrain_packed`'s answer
_TERRAIN: dict[tuple[int, float, int], tuple[object, _Packed | None]] = {}


def _terrain_packed(board: Board, r: float, through: int) -> _Packed | None:
    """The rings of the board's pieces (:func:`_piece`) packed (:func:`_pack`), kept per terrain (every board of a
    battlefield shares its terrain); None where a piece's shape is not a plain polygon."""
    terrain = board.terrain
    key = (id(terrain), r, through)
    hit = _TERRAIN.get(key)
    if hit is None or hit[0] is not terrain:
        pieces = [_piece(t, r, through) for t in terrain]
        got = None
        if all(p is not None for p in pieces):
            ps = [p for p in pieces if p is not None]
            got = _pack(
                [p[0] for p in ps if p[0] is not None],
                [p[1] for p in ps if p[1] is not None],
                [p[2] for p in ps if p[2] is not None],
            )
        if len(_TERRAIN) > 4096:
            _TERRAIN.clear()
        hit = _TERRAIN[key] = (terrain, got)
    return hit[1]


def _piece(
    piece: Terrain, r: float, through: int
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None] | None:
    """The piece's path obstacle ring, its corner ring (just outside it) and its keep-out ring for a Leading Model of
    radius ``r`` (None where the piece is not one: :func:`~.cspace.blocks_path`, GRASS): the search's circumscribed
    grown footprint, that grown by twice :data:`EDGE`, and by :data:`EDGE`; None where a shape is not a plain
    polygon."""
    key = (id(piece), r, through)
    hit = _PIECES.get(key)
    if hit is None or hit[0] is not piece:
        big, _ = grown_footprint(piece.polygon, r)
        # the path keeps out of the search's footprint, an end EDGE further, a corner further still (never on either)
        out, corner = big.buffer(EDGE, join_style="mitre"), big.buffer(2 * EDGE, join_style="mitre")
        rings = _ring(big), _ring(corner), _ring(out)
        got = None
        if all(x is not None for x in rings):
            blocks = blocks_path(piece, through)
            got = (rings[0] if blocks else None, rings[1] if blocks else None, None if piece.grass else rings[2])
        if len(_PIECES) > 4096:
            _PIECES.clear()
        hit = _PIECES[key] = (piece, got)
    return hit[1]


def _ring(geom: BaseGeometry) -> np.ndarray | None:
    """The exterior of a polygon without holes as rows (not closed); None for any other shape."""
    if not isinstance(geom, Polygon) or geom.is_empty or len(geom.interiors):
        return None
    return np.asarray(geom.exterior.coords, dtype=np.float64)[:-1]


def charge_search(
    board: Board,
    leading_model_id: str,
    target_unit_ids: Sequence[str],
    *,
    max_length: float | None = None,
    through: int = 0,
    examined: list[float] | None = None,
) -> ChargePath | None:
    """:func:`~.charge.charge_distance` ``(board, leading_model_id, target_unit_ids, max_length=..., through=...)``
    compiled (the module text), on a board of one level (no surface piece), for a Leading Model touching no obstacle;
    None where it does not apply, or where its end does not Engage every target (a Size 2+ wall between, 7.2.1): the
    caller asks the shapely search. ``examined`` as the search's: a box outside which no other model changes the
    answer (a path up to ``max_length`` stays within it of the start; the goal's keep-outs count in the zones' box)."""
    if any(t.surface for t in board.terrain):
        return None
    lead = board.model(leading_model_id)
    targets = _check_charge(board, lead, target_unit_ids, False)
    r, start = lead.radius, lead.centre
    own = board.unit_of(lead)
    rows: list[tuple[float, float, float]] = []
    kinds: list[int] = []
    order = list(targets)
    for unit in board.units:
        if unit.id == own.id:
            continue
        k = order.index(unit.id) if unit.id in order else -2 if unit.side == own.side else -3
        for m in unit.models:
            if m.stands_on is not None:
                return None
            rows.append((m.x, m.y, m.radius))
            kinds.append(-1 if m.flying else k)
    bases = np.asarray(rows, dtype=np.float64).reshape(-1, 3)
    kind = np.asarray(kinds, dtype=np.int64)
    ground = kind != -1
    grown = bases[:, 2] + r + EDGE  # an end keeps EDGE off another base, a path only off the base itself
    path = np.column_stack([bases[ground, :2], bases[ground, 2] + r])
    packed = _terrain_packed(board, r, through)
    if packed is None:
        return None
    foe = kind == -3
    aimed = kind >= 0
    zones = np.column_stack([bases[aimed, :2], bases[aimed, 2] + ENGAGEMENT_RANGE + r - EDGE])
    keep = np.concatenate(
        [
            np.column_stack([bases[:, :2], grown]),
            np.column_stack([bases[foe, :2], bases[foe, 2] + ENGAGEMENT_RANGE + r + EDGE]),
        ]
    )
    inset = r + EDGE
    bound = math.inf if max_length is None else float(max_length) + 1e-9
    box = (inset, inset, board.width - inset, board.depth - inset)
    length, way, nearest = _search(start, bound, path, packed, box, zones, kind[aimed], len(order), keep, GOAL_STEP)
    if examined is not None:
        z0, z1 = zones[:, :2].min(axis=0) - zones[:, 2].max(), zones[:, :2].max(axis=0) + zones[:, 2].max()
        if nearest:  # no path to another goal point is shorter: models off the start's and zones' box change nothing
            examined[:] = [min(start[0], z0[0]), min(start[1], z0[1]), max(start[0], z1[0]), max(start[1], z1[1])]
        elif math.isinf(bound):
            examined[:] = [-math.inf, -math.inf, math.inf, math.inf]
        else:  # a path up to the bound stays within it of the start; the goal's keep-outs count in the zones' box
            examined[:] = [
                min(start[0] - bound, z0[0]),
                min(start[1] - bound, z0[1]),
                max(start[0] + bound, z1[0]),
                max(start[1] + bound, z1[1]),
            ]
        examined[:] = [float(v) for v in examined]
    if length < 0.0:
        return None  # the start touches an obstacle
    if way is None:
        return ChargePath(None, math.inf)
    if not _engages_all(board, lead, way[-1], None, targets):
        return None
    way = (start, *way[1:])  # the start as given
    return ChargePath(way, length, (None,) * len(way), 0.0)


__all__ = ["EDGE", "NV", "charge_search", "shortest_path"]
