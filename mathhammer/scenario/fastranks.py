"""Close Ranks (8.8.1 step 1) in compiled code: the Leading Model's move and the setting of the other models.

:meth:`World._close_ranks <mathhammer.scenario.world.World._close_ranks>` reads the unit, the Engaged models and
the other bases, and checks the Engaged units before and after; the search in between runs here, step by step as
its Python reading (``World._close_ranks_search``, kept as the reference the tests compare with): the same spots
in the same order, the same tests. Distances between centres are computed with the same operations as numpy's
(so the same doubles). Terrain is tested on the pieces' polygons packed into arrays (:func:`pack`): a base is off
a piece when its centre is farther than its radius (plus 1e-9") from the polygon, a Coherency Link crosses a wall
when the segment meets the polygon (its inside or its edges), as shapely decides them; only a point at a
distance within rounding of the limit could be read differently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from ..config import JIT

#: Flags of these kernels: no C-callable wrapper (nothing takes their address; numba makes one per kernel otherwise).
_JIT = {**JIT, "no_cfunc_wrapper": True}
#: Flags of the helpers called from one place only: inlined in numba's IR there, so numba compiles no kernel of their
#: own (each kernel compiled is optimised again, with every kernel it calls, in each kernel calling it).
_INLINE = {**_JIT, "inline": "always"}

#: status of :func:`close_ranks_search`
NO_MOVE, MOVED, GRID = 0, 1, 2


def pack(polys: Sequence[BaseGeometry]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Polygons as arrays: vertices (rows, each ring without its closing point), ring starts into them (one more
    than the rings), each polygon's first ring (one more than the polygons), and each polygon's box (x0, y0, x1,
    y1). A MultiPolygon's parts count as one polygon.

    >>> verts, rings, first, boxes = pack([Polygon([(0, 0), (2, 0), (2, 1), (0, 1)])])
    >>> verts.tolist(), rings.tolist(), first.tolist(), boxes.tolist()
    ([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]], [0, 4], [0, 1], [[0.0, 0.0, 2.0, 1.0]])
    """
    verts: list[tuple[float, float]] = []
    rings = [0]
    first = [0]
    boxes = []
    for poly in polys:
        parts = list(poly.geoms) if isinstance(poly, MultiPolygon) else [poly]
        for part in parts:
            if not isinstance(part, Polygon) or part.is_empty:
                continue
            for ring in [part.exterior, *part.interiors]:
                coords = list(ring.coords)[:-1]
                verts.extend((float(x), float(y)) for x, y in coords)
                rings.append(len(verts))
        first.append(len(rings) - 1)
        boxes.append(
            [float(v) for v in poly.bounds] if not poly.is_empty else [math.inf, math.inf, -math.inf, -math.inf]
        )
    return (
        np.asarray(verts, dtype=np.float64).reshape(-1, 2),
        np.asarray(rings, dtype=np.int64),
        np.asarray(first, dtype=np.int64),
        np.asarray(boxes, dtype=np.float64).reshape(-1, 4),
    )


@njit(**_JIT)
def _pt_dist(px, py, ax, ay):  # pragma: no cover - compiled
    dx = px - ax
    dy = py - ay
    return np.sqrt(dx * dx + dy * dy)


@njit(**_INLINE)
def _seg_dist(px, py, ax, ay, bx, by):  # pragma: no cover - compiled
    """Point to segment, as GEOS computes it (Distance::pointToSegment)."""
    if ax == bx and ay == by:
        return _pt_dist(px, py, ax, ay)
    len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
    r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
    if r <= 0.0:
        return _pt_dist(px, py, ax, ay)
    if r >= 1.0:
        return _pt_dist(px, py, bx, by)
    s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
    return abs(s) * np.sqrt(len2)


@njit(**_JIT)
def _inside(px, py, verts, rings, r0, r1):  # pragma: no cover - compiled
    """Even-odd rule over the rings r0..r1-1 (a polygon's exterior and holes)."""
    c = False
    for k in range(r0, r1):
        a, b = rings[k], rings[k + 1]
        j = b - 1
        for i in range(a, b):
            xi, yi, xj, yj = verts[i, 0], verts[i, 1], verts[j, 0], verts[j, 1]
            if (yi > py) != (yj > py) and px < (xj - xi) * (py - yi) / (yj - yi) + xi:
                c = not c
            j = i
    return c


@njit(**_JIT)
def _boundary_dist(px, py, verts, rings, r0, r1):  # pragma: no cover - compiled
    best = np.inf
    for k in range(r0, r1):
        a, b = rings[k], rings[k + 1]
        j = b - 1
        for i in range(a, b):
            d = _seg_dist(px, py, verts[j, 0], verts[j, 1], verts[i, 0], verts[i, 1])
            if d < best:
                best = d
            j = i
    return best


@njit(**_INLINE)
def _poly_dist(px, py, verts, rings, r0, r1):  # pragma: no cover - compiled
    """shapely.distance(polygon, point): 0 inside, else to the nearest edge."""
    if _inside(px, py, verts, rings, r0, r1):
        return 0.0
    return _boundary_dist(px, py, verts, rings, r0, r1)


@njit(**_INLINE)
def _contains(px, py, verts, rings, r0, r1):  # pragma: no cover - compiled
    """shapely.contains_xy: inside, not on the boundary."""
    return _inside(px, py, verts, rings, r0, r1) and _boundary_dist(px, py, verts, rings, r0, r1) > 0.0


@njit(**_JIT)
def _orient(ax, ay, bx, by, cx, cy):  # pragma: no cover - compiled
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(**_JIT)
def _on(ax, ay, bx, by, cx, cy):  # pragma: no cover - compiled
    return min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)


@njit(**_INLINE)
def _segs_meet(ax, ay, bx, by, cx, cy, dx, dy):  # pragma: no cover - compiled
    d1 = _orient(cx, cy, dx, dy, ax, ay)
    d2 = _orient(cx, cy, dx, dy, bx, by)
    d3 = _orient(ax, ay, bx, by, cx, cy)
    d4 = _orient(ax, ay, bx, by, dx, dy)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True
    if d1 == 0 and _on(cx, cy, dx, dy, ax, ay):
        return True
    if d2 == 0 and _on(cx, cy, dx, dy, bx, by):
        return True
    if d3 == 0 and _on(ax, ay, bx, by, cx, cy):
        return True
    return d4 == 0 and _on(ax, ay, bx, by, dx, dy)


@njit(**_INLINE)
def _seg_meets_poly(ax, ay, bx, by, verts, rings, r0, r1):  # pragma: no cover - compiled
    """polygon.intersects(segment): an end inside, or an edge met."""
    if _inside(ax, ay, verts, rings, r0, r1):
        return True
    for k in range(r0, r1):
        a, b = rings[k], rings[k + 1]
        j = b - 1
        for i in range(a, b):
            if _segs_meet(ax, ay, bx, by, verts[j, 0], verts[j, 1], verts[i, 0], verts[i, 1]):
                return True
            j = i
    return False


@njit(**_INLINE)
def _off(px, py, r, ground, polys):  # pragma: no cover - compiled
    """World._terrain_ok for one point: on the table, over the level's top (``ground``: table width and depth,
    EPS, the top's polygon and whether there is one), off the polygons ``polys`` (more than r + 1e-9 from each)."""
    width, depth, eps, top_v, top_r, has_top = ground
    v, rg, first, boxes = polys
    if not (px - r >= -eps and py - r >= -eps and px + r <= width + eps and py + r <= depth + eps):
        return False
    if has_top and not _contains(px, py, top_v, top_r, np.int64(0), top_r.size - 1):
        return False
    lim = r + 1e-6
    for p in range(boxes.shape[0]):
        if boxes[p, 0] - px > lim or px - boxes[p, 2] > lim or boxes[p, 1] - py > lim or py - boxes[p, 3] > lim:
            continue  # the box farther than r + 1e-6 on an axis: so is the polygon
        if _poly_dist(px, py, v, rg, first[p], first[p + 1]) <= r + 1e-9:
            return False
    return True


@njit(**_INLINE)
def _clear(px, py, r, apart, eng, bases):  # pragma: no cover - compiled
    """fastnear.clear_of for one point (``bases``: centres, radii, solid, enemy)."""
    cs, rs, solid, enemy = bases
    for j in range(cs.shape[0]):
        dx = px - cs[j, 0]
        dy = py - cs[j, 1]
        g = np.sqrt(dx * dx + dy * dy) - r - rs[j]
        if (solid[j] and g < apart) or (enemy[j] and g <= eng):
            return False
    return True


@njit(**_JIT)
def _free(px, py, r, apart, eng, bases, ground, blk):  # pragma: no cover - compiled
    """free_static of World._close_ranks for one point: clear of the other bases and of the terrain."""
    return _clear(px, py, r, apart, eng, bases) and _off(px, py, r, ground, blk)


@njit(**_JIT)
def grow(box, x, y):  # pragma: no cover - compiled
    """Grow ``box`` ([x0, y0, x1, y1]) to hold the point (x, y)."""
    box[0] = min(box[0], x)
    box[1] = min(box[1], y)
    box[2] = max(box[2], x)
    box[3] = max(box[3], y)


@njit(**_INLINE)
def round6(x):  # pragma: no cover - compiled
    """np.round(x, 6): scaled, rounded half to even, scaled back."""
    return np.rint(x * 1e6) / 1e6


@njit(**_JIT)
def _foe_gap(px, py, r, fc, fr):  # pragma: no cover - compiled
    best = np.inf
    for j in range(fc.shape[0]):
        g = _pt_dist(px, py, fc[j, 0], fc[j, 1]) - r - fr[j]
        if g < best:
            best = g
    return best


@njit(**_JIT)
def close_ranks_search(  # pragma: no cover - compiled
    cent,
    pinned,
    lead_order,
    lead_j,
    lead_d,
    lead_gap,
    rest_order,
    r,
    touch,
    apart,
    eng,
    move,
    fc,
    fr,
    bases,
    way,
    ground,
    blk,
    thr,
    links,
    reach_lim,
    within_lim,
    ring,
    ring2_scale,
    contact,
    grid_frame,
    table,
    reduced,
    box,
):
    """The search of World._close_ranks after its setup (the module text): returns (status, Leading Model, its end
    x and y, the new centres in the models' order); ``box`` is grown with every point tested against other bases.

    Ties among spots equally near a model's old spot, and the grid fallback (``grid_frame``: its spots in the unit's
    frame, core._grid_frame), go by the unit's own frame: its rear the way the Leading Model came, the side of the
    table's centre first (:func:`_lateral_first`; ``table``: the table's centre, its mirror line's direction and
    the player's rear).

    ``eng``: the Engagement Range + EPS; ``bases``/``way``: the bases a spot / the Leading Model's way must keep
    clear of (centres, radii, solid, enemy); ``ground``: the table and the level's top; ``blk``/``thr``: the pieces
    a base may not end on / the Leading Model may not move through; ``links``: the walls and the other bases a
    Coherency Link may not cross (:func:`_linked`)."""
    n = cent.shape[0]
    new = np.empty((n, 2))
    isset = np.zeros(n, dtype=np.bool_)
    # ---- the Leading Model: the first non-pinned model that can end closer, straight at the nearest enemy model
    lead_i = -1
    lx, ly = cent[0, 0], cent[0, 1]
    bx, by = 0.0, 0.0
    for q in range(lead_order.size):
        i = lead_order[q]
        sx, sy = cent[i, 0], cent[i, 1]
        j0 = lead_j[q]
        d = lead_d[q]
        reach = min(move, lead_gap[q] - touch)
        if reach <= 1e-6 or d <= 0:
            continue
        steps = max(1, math.ceil(reach / 0.05))
        ux, uy = (fc[j0, 0] - sx) / d, (fc[j0, 1] - sy) / d
        path = np.empty((steps, 2))
        for k in range(steps):
            s = reach * float(k + 1) / steps
            path[k, 0] = sx + s * ux
            path[k, 1] = sy + s * uy
            grow(box, path[k, 0], path[k, 1])
        stop = steps
        for k in range(steps):  # its way: no wall, no enemy or other unit's model (8.5.3 step 1)
            if not _free(path[k, 0], path[k, 1], r, 0.0, eng, way, ground, thr):
                stop = k
                break
        if stop == 0:
            continue
        last = -1
        for k in range(stop):
            px, py = path[k, 0], path[k, 1]
            ok = _free(px, py, r, apart, eng, bases, ground, blk)
            if ok:
                for m in range(n):  # the pinned models (the others are picked up)
                    if m != i and pinned[m] and _pt_dist(px, py, cent[m, 0], cent[m, 1]) - r - r < apart:
                        ok = False
                        break
            if ok:
                last = k
        if last < 0:
            continue
        ex, ey = path[last, 0], path[last, 1]
        if _foe_gap(ex, ey, r, fc, fr) < lead_gap[q] - 1e-6:
            lead_i, lx, ly = i, ex, ey
            bx, by = -ux, -uy  # the unit's rear: the way its Leading Model came
            break
    if lead_i < 0:
        return NO_MOVE, -1, lx, ly, new
    for m in range(n):
        if pinned[m]:
            new[m, 0], new[m, 1] = cent[m, 0], cent[m, 1]
            isset[m] = True
    new[lead_i, 0], new[lead_i, 1] = lx, ly
    isset[lead_i] = True
    nc = contact.shape[0]
    contact_ok = np.zeros(nc, dtype=np.bool_)
    contact_known = np.zeros(nc, dtype=np.bool_)
    contact_seen = nc == 0
    ng = grid_frame.shape[0]
    grid = np.empty((ng, 2))
    for g in range(ng):  # laid in the unit's frame (core.close_ranks_grid: the same doubles)
        grid[g, 0] = lx + grid_frame[g, 0] * -by - grid_frame[g, 1] * bx
        grid[g, 1] = ly + grid_frame[g, 0] * bx - grid_frame[g, 1] * by
    grid_val = np.zeros(ng, dtype=np.bool_)
    grid_known = np.zeros(ng, dtype=np.bool_)
    first = float(_lateral_first(lx, ly, bx, by, table))
    scalars = (lx, ly, r, apart, eng, reach_lim, within_lim, bx, by, first)
    for q in range(rest_order.size):
        i = rest_order[q]
        if i == lead_i:
            continue
        ox, oy = cent[i, 0], cent[i, 1]
        placed = False
        px_out, py_out = 0.0, 0.0
        for wholly_k in range(2):  # 4.4's 3" (Wholly Within) where there is room
            wholly = wholly_k == 0
            # ---- Base-to-Base contact with an Engaged enemy model (every spot in the box at the first look; each
            # tested once, where :func:`_pick` first keeps it: the test is of the spot alone, so the same answer)
            if not contact_seen:
                for c in range(nc):
                    grow(box, contact[c, 0], contact[c, 1])
                contact_seen = True
            found, px_out, py_out = _pick(
                contact, contact_ok, contact_known, ox, oy, new, isset, wholly, scalars, bases, ground, blk, links, box
            )
            if not found and _foe_gap(ox, oy, r, fc, fr) > eng:
                # Base-to-Base contact with a model of the unit Within the Engagement Range
                nf = 0
                for m in range(n):
                    if isset[m] and _foe_gap(new[m, 0], new[m, 1], r, fc, fr) <= eng:
                        nf += 1
                if nf:
                    nr = ring.shape[0]
                    ring2 = np.empty((nf * nr, 2))
                    f = 0
                    for m in range(n):
                        if isset[m] and _foe_gap(new[m, 0], new[m, 1], r, fc, fr) <= eng:
                            for k in range(nr):
                                ring2[f * nr + k, 0] = new[m, 0] + ring2_scale * ring[k, 0]
                                ring2[f * nr + k, 1] = new[m, 1] + ring2_scale * ring[k, 1]
                            f += 1
                    unknown = np.zeros(nf * nr, dtype=np.bool_)
                    found, px_out, py_out = _pick(
                        ring2, unknown.copy(), unknown, ox, oy, new, isset, wholly, scalars, bases, ground, blk,
                        links, box,
                    )  # fmt: skip
            if not found:
                # its own spot, where it is In Coherency there
                near = (not wholly or math.hypot(ox - lx, oy - ly) <= within_lim) and _near_set(
                    ox, oy, new, isset, reach_lim
                )
                if near:
                    grow(box, ox, oy)
                    ok = _free(ox, oy, r, apart, eng, bases, ground, blk) and _clear_mine(ox, oy, new, isset, r, apart)
                    if ok and _linked(ox, oy, new, isset, reach_lim, links, box):
                        found, px_out, py_out = True, ox, oy
                if not found:
                    if reduced:
                        return GRID, lead_i, lx, ly, new
                    found, px_out, py_out = _pick(
                        grid, grid_val, grid_known, ox, oy, new, isset, wholly, scalars, bases, ground, blk, links, box
                    )
            if found:
                placed = True
                break
        if not placed:
            return NO_MOVE, lead_i, lx, ly, new
        new[i, 0], new[i, 1] = px_out, py_out
        isset[i] = True
    return MOVED, lead_i, lx, ly, new


def lateral_first(lx: float, ly: float, bx: float, by: float, table: tuple[float, ...]) -> int:
    """+1 or -1, the side of a unit's frame (Leading Model at ``(lx, ly)``, rear ``(bx, by)``) whose spots go first
    among tied ones (the reading is :meth:`~.geometry.placement.Placing._lateral_first`'s, which calls it): the side
    of the table's centre; on the centre line, towards the smaller end of the mirror line; on the mirror line, along
    it, the side of the player's Entry Edge; else -1. ``table``: the centre's x and y, the mirror line's direction
    ((0, 0) for none), the player's rear. Plain Python, compiled as :func:`_lateral_first` for the search."""
    cx, cy, ax, ay, rx, ry = table
    latx, laty = -by, bx
    off = (cx - lx) * latx + (cy - ly) * laty
    if abs(off) > 1e-6:
        return 1 if off > 0 else -1
    along = ax * latx + ay * laty
    if along < -1e-6:
        return 1
    if along > 1e-6 or (ax == 0.0 and ay == 0.0):
        return -1
    return 1 if rx * latx + ry * laty > 1e-6 else -1


#: :func:`lateral_first` compiled (inlined in :func:`close_ranks_search`)
_lateral_first = njit(**_INLINE)(lateral_first)


@njit(**_JIT)
def _near_set(px, py, new, isset, reach_lim):  # pragma: no cover - compiled
    for m in range(new.shape[0]):  # noqa: SIM110 - a loop: compiled code
        if isset[m] and _pt_dist(px, py, new[m, 0], new[m, 1]) <= reach_lim:
            return True
    return False


@njit(**_JIT)
def _clear_mine(px, py, new, isset, r, apart):  # pragma: no cover - compiled
    for m in range(new.shape[0]):  # noqa: SIM110 - a loop: compiled code
        if isset[m] and _pt_dist(px, py, new[m, 0], new[m, 1]) - r - r < apart:
            return False
    return True


@njit(**_JIT)
def _linked(cx, cy, new, isset, reach_lim, links, box):  # pragma: no cover - compiled
    """A 4.4 Coherency Link from (cx, cy) to a model already set: no wall, no other unit's model on the line
    (``links``: the walls' polygons, and the other Ground units' centres and radii)."""
    wall_v, wall_r, wall_first, wall_box, lob, lor = links
    for m in range(new.shape[0]):
        if not isset[m]:
            continue
        mx, my = new[m, 0], new[m, 1]
        if math.hypot(cx - mx, cy - my) > reach_lim:
            continue
        grow(box, cx, cy)
        grow(box, mx, my)
        sx0, sx1 = min(cx, mx), max(cx, mx)
        sy0, sy1 = min(cy, my), max(cy, my)
        blocked = False
        for w in range(wall_box.shape[0]):
            x0, y0, x1, y1 = wall_box[w, 0], wall_box[w, 1], wall_box[w, 2], wall_box[w, 3]
            near = x0 <= sx1 + 1e-9 and sx0 <= x1 + 1e-9 and y0 <= sy1 + 1e-9 and sy0 <= y1 + 1e-9
            if near and _seg_meets_poly(cx, cy, mx, my, wall_v, wall_r, wall_first[w], wall_first[w + 1]):
                blocked = True
                break
        if blocked:
            continue
        if lob.shape[0]:
            abx, aby = mx - cx, my - cy
            n2 = max(abx * abx + aby * aby, 1e-12)
            for k in range(lob.shape[0]):
                t = ((lob[k, 0] - cx) * abx + (lob[k, 1] - cy) * aby) / n2
                t = min(max(t, 0.0), 1.0)
                qx = lob[k, 0] - (cx + t * abx)
                qy = lob[k, 1] - (cy + t * aby)
                if np.sqrt(qx * qx + qy * qy) < lor[k] - 1e-6:
                    blocked = True
                    break
        if blocked:
            continue
        return True
    return False


@njit(**_JIT)
def _pick(
    cands, values, known, ox, oy, new, isset, wholly, scalars, bases, ground, blk, links, box
):  # pragma: no cover
    """World._close_ranks's pick: the free spot In Coherency nearest (ox, oy), ties in the unit's frame: the side
    of the table's centre first, then the nearer the rear (as core.close_ranks_grid's reference reads them).
    ``values``: the static test (:func:`_free`) of each spot where ``known``; the others kept In Coherency are tested
    here, and kept. ``scalars``: the Leading Model's end, the base radius, the gap between bases, the Engagement
    Range + EPS, the keep-together and Wholly Within reaches, the unit's rear and the side first
    (:func:`_lateral_first`)."""
    lx, ly, r, apart, eng, reach_lim, within_lim, bx, by, first = scalars
    n = cands.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    for c in range(n):
        k = _near_set(cands[c, 0], cands[c, 1], new, isset, reach_lim)
        if k and wholly:
            k = math.hypot(cands[c, 0] - lx, cands[c, 1] - ly) <= within_lim
        keep[c] = k
    for c in range(n):
        if keep[c] and not known[c]:
            grow(box, cands[c, 0], cands[c, 1])
    for c in range(n):
        if keep[c] and not known[c]:
            values[c] = _free(cands[c, 0], cands[c, 1], r, apart, eng, bases, ground, blk)
            known[c] = True
    m = 0
    for c in range(n):
        if keep[c]:
            m += 1
    if m == 0:
        return False, 0.0, 0.0
    idx = np.empty(m, dtype=np.int64)
    dist = np.empty(m)
    side = np.empty(m)
    ahead = np.empty(m)
    f = 0
    for c in range(n):
        if keep[c] and values[c] and _clear_mine(cands[c, 0], cands[c, 1], new, isset, r, apart):
            idx[f] = c
            dist[f] = round6(_pt_dist(cands[c, 0], cands[c, 1], ox, oy))
            dx, dy = cands[c, 0] - ox, cands[c, 1] - oy
            side[f] = round6(-first * (dy * bx - dx * by))  # -first * the lateral offset
            ahead[f] = round6(-(dx * bx + dy * by))
            f += 1
    used = np.zeros(f, dtype=np.bool_)
    for _ in range(f):
        best = -1
        for k in range(f):
            if used[k]:
                continue
            if best < 0:
                best = k
                continue
            if dist[k] < dist[best] or (
                dist[k] == dist[best] and (side[k] < side[best] or (side[k] == side[best] and ahead[k] < ahead[best]))
            ):
                best = k
        used[best] = True
        c = idx[best]
        if _linked(cands[c, 0], cands[c, 1], new, isset, reach_lim, links, box):
            return True, cands[c, 0], cands[c, 1]
    return False, 0.0, 0.0


__all__ = ["GRID", "MOVED", "NO_MOVE", "close_ranks_search", "grow", "lateral_first", "pack", "round6"]
