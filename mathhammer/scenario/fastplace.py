"""Numba kernel of the automatic players' Deploy verdicts: can a unit be set at each of many (state, entry) pairs, its
Leading Model at the entry's point and the other models on the first free spots of the placement grid (the grid walk
of :meth:`~mathhammer.scenario.geometry.placement.Placing._place_grid`, the other units' bases given per state)?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from .fastnear import disc

if TYPE_CHECKING:
    from .fastnear import Centres

#: a distance this near a threshold of the grid walk is not decided here (the caller asks the World instead)
TOL = 1e-9


@njit(**INLINE)
def _gap(x, y, cx, cy, r, rad, foe, apart, eng, tol):  # pragma: no cover - compiled
    """1 the base of radius ``r`` at (x, y) is nearer the base of radius ``rad`` at (cx, cy) than ``apart`` (an
    enemy's, ``foe``: than ``eng``) by more than ``tol``, -1 a gap within ``tol`` of such a limit, 0 neither; the gap
    computed as ``Routes._blocked`` computes it (the centre distance less one radius, then the other)."""
    dx = x - cx
    dy = y - cy
    g = np.sqrt(dx * dx + dy * dy) - r - rad
    if g < apart - tol or (foe and g <= eng - tol):
        return 1
    if abs(g - apart) <= tol or (foe and abs(g - eng) <= tol):
        return -1
    return 0


@njit(**JIT)
def _packed_test(x, y, r, pids, foe, starts, xy, rads, mine, k, apart, eng, tol):  # pragma: no cover - compiled
    """0 the base of radius ``r`` at (x, y) is clear of the bases of the placements ``pids`` (packed:
    ``xy[starts[p]:starts[p + 1]]``, radius ``rads[p]``; ``foe``: an Enemy Ground unit, per placement, which it may
    not come Within ``eng`` of) and of the first ``k`` of ``mine`` (``apart`` edge to edge), 1 it is not, -1 a gap too
    near a threshold to say; each gap computed as ``Routes._blocked`` computes it (the centre distance less one
    radius, then the other)."""
    unsure = False
    for q in range(pids.size):
        p = pids[q]
        for j in range(starts[p], starts[p + 1]):
            v = _gap(x, y, xy[j, 0], xy[j, 1], r, rads[p], foe[q], apart, eng, tol)
            if v == 1:
                return 1
            if v == -1:
                unsure = True
    for j in range(k):
        dx = x - mine[j, 0]
        dy = y - mine[j, 1]
        g = np.sqrt(dx * dx + dy * dy) - r - r
        if g < apart - tol:
            return 1
        if abs(g - apart) <= tol:
            unsure = True
    return -1 if unsure else 0


@njit(**JIT)
def _clear_kernel(spots, r, pids, foe, starts, xy, rads, discs, apart, eng, tol):  # pragma: no cover - compiled
    """:func:`clear` (its text). A placement whose disc (``discs``: made here on its first read) is farther from the
    spots' box than any limit its bases are read against (by more than ``tol`` and 1e-6) has no gap near a limit:
    left out (every other base read as :func:`_packed_test` reads it; the answer does not depend on the order)."""
    x0, y0 = spots[0, 0], spots[0, 1]
    x1, y1 = x0, y0
    for i in range(1, spots.shape[0]):
        x0, x1 = min(x0, spots[i, 0]), max(x1, spots[i, 0])
        y0, y1 = min(y0, spots[i, 1]), max(y1, spots[i, 1])
    unsure = False
    for q in range(pids.size):
        p = pids[q]
        lo, hi = starts[p], starts[p + 1]
        disc(p, starts, xy, discs)  # the disc round the placement's centres: their mean, the farthest from it
        dx = max(x0 - discs[p, 0], 0.0, discs[p, 0] - x1)
        dy = max(y0 - discs[p, 1], 0.0, discs[p, 1] - y1)
        limit = max(apart, eng) if foe[p] else apart
        if np.sqrt(dx * dx + dy * dy) - discs[p, 2] - r - rads[p] > limit + tol + 1e-6:
            continue
        for i in range(spots.shape[0]):
            for j in range(lo, hi):
                v = _gap(spots[i, 0], spots[i, 1], xy[j, 0], xy[j, 1], r, rads[p], foe[p], apart, eng, tol)
                if v == 1:
                    return 1
                if v == -1:
                    unsure = True
    return 2 if unsure else 0


def clear(
    spots: np.ndarray, r: float, pids: np.ndarray, foe: np.ndarray, packed: Centres, apart: float, eng: float
) -> int:
    """Are the bases of radius ``r`` at ``spots`` clear of every base of the placements ``pids`` (int64; ``foe``: per
    placement made, an Enemy Ground unit's, which it may not come Within ``eng`` of; ``packed``: every placement's
    centres and radii)? 0 every edge gap at least ``apart`` (more than ``eng`` for an enemy), 1 one nearer by more
    than :data:`TOL`, 2 one within :data:`TOL` of its limit (the caller reads those as it reads them); each gap as
    :func:`_packed_test` computes it.

    >>> from mathhammer.scenario.fastnear import Centres
    >>> c = Centres()
    >>> c.extend([((0.0, 0.0), (1.0, 0.0)), ((5.0, 0.0),)], [0.5, 0.5])
    >>> spot, friend, enemy = np.array([[3.0, 0.0]]), np.zeros(2, dtype=bool), np.ones(2, dtype=bool)
    >>> [clear(spot, 0.5, np.array([p]), friend, c, 0.05, 1.0) for p in (0, 1)]
    [0, 0]
    >>> clear(spot, 0.5, np.array([1]), enemy, c, 0.05, 1.0)  # 1" from an enemy: at the limit
    2
    >>> clear(np.array([[4.0, 0.0]]), 0.5, np.array([1]), friend, c, 0.05, 1.0)
    1
    """
    return int(_clear_kernel(spots, r, pids, foe, packed.starts, packed.xy, packed.rads, packed.discs, apart, eng, TOL))


@njit(**INLINE)
def _nearest(x, y, mine, k):  # pragma: no cover - compiled
    """The distance from (x, y) to the nearest of the first ``k`` centres of ``mine`` (the grid's "keep them
    together")."""
    near = np.inf
    for j in range(k):
        dx = x - mine[j, 0]
        dy = y - mine[j, 1]
        near = min(near, np.sqrt(dx * dx + dy * dy))
    return near


@njit(**JIT)
def _set_kernel(spots, terr, nspots, models, r, step, cs, rs, enemy, starts, apart, eng, tol):  # pragma: no cover
    """Per state ``t`` (the bases ``cs[starts[t]:starts[t+1]]``, radii ``rs``, ``enemy``: an Enemy Ground base it may
    not come Within ``eng`` of) and entry ``e`` (its grid spots ``spots[e, :nspots[e]]``, the Leading Model's first;
    ``terr``: the spot on the table and clear of terrain): 1 the unit cannot be set, 0 it can, -1 undecided. Each
    spot reads only the bases whose centres are within reach of its entry's box (first of all the entries' box): a base
    farther than ``r`` + its radius + 1" (``apart`` for a friend) + ``tol`` from every spot changes no test."""
    n_t = starts.size - 1
    n_e = spots.shape[0]
    out = np.zeros((n_t, n_e), dtype=np.int8)
    mine = np.empty((models, 2), dtype=np.float64)
    together = step + 2.0
    one = np.arange(cs.shape[0] + 1)  # each base a placement of its own (_packed_test)
    # each entry's box of spots, and the box of them all
    boxes = np.empty((n_e, 4))
    ux0, uy0, ux1, uy1 = np.inf, np.inf, -np.inf, -np.inf
    for e in range(n_e):
        boxes[e, 0], boxes[e, 1], boxes[e, 2], boxes[e, 3] = np.inf, np.inf, -np.inf, -np.inf
        for s in range(nspots[e]):
            boxes[e, 0], boxes[e, 1] = min(boxes[e, 0], spots[e, s, 0]), min(boxes[e, 1], spots[e, s, 1])
            boxes[e, 2], boxes[e, 3] = max(boxes[e, 2], spots[e, s, 0]), max(boxes[e, 3], spots[e, s, 1])
        ux0, uy0 = min(ux0, boxes[e, 0]), min(uy0, boxes[e, 1])
        ux1, uy1 = max(ux1, boxes[e, 2]), max(uy1, boxes[e, 3])
    close = np.empty(cs.shape[0], dtype=np.int64)  # a state's bases within reach of the entries' box
    reach = np.empty(cs.shape[0])
    sel = np.empty(cs.shape[0], dtype=np.int64)  # an entry's, and their foe flags
    fsel = np.empty(cs.shape[0], dtype=np.bool_)
    for t in range(n_t):
        lo, hi = starts[t], starts[t + 1]
        n_close = 0
        for b in range(lo, hi):
            reach[b] = r + rs[b] + (eng if enemy[b] else apart) + tol + 1e-6
            x, y, far = cs[b, 0], cs[b, 1], reach[b]
            if ux0 - far <= x <= ux1 + far and uy0 - far <= y <= uy1 + far:
                close[n_close] = b
                n_close += 1
        for e in range(n_e):
            if not terr[e, 0]:
                out[t, e] = 1
                continue
            m = 0
            for i in range(n_close):
                b = close[i]
                x, y, far = cs[b, 0], cs[b, 1], reach[b]
                if boxes[e, 0] - far <= x <= boxes[e, 2] + far and boxes[e, 1] - far <= y <= boxes[e, 3] + far:
                    sel[m], fsel[m] = b, enemy[b]
                    m += 1
            bases, foe = sel[:m], fsel[:m]
            x0, y0 = spots[e, 0, 0], spots[e, 0, 1]
            v = _packed_test(x0, y0, r, bases, foe, one, cs, rs, mine, 0, apart, eng, tol)
            if v != 0:
                out[t, e] = v
                continue
            mine[0, 0], mine[0, 1] = x0, y0
            k = 1
            verdict = 0
            for s in range(1, nspots[e]):
                if k == models:
                    break
                if not terr[e, s]:
                    continue
                x, y = spots[e, s, 0], spots[e, s, 1]
                v = _packed_test(x, y, r, bases, foe, one, cs, rs, mine, k, apart, eng, tol)
                if v == 1:
                    continue
                if v == -1:
                    verdict = -1
                    break
                near = _nearest(x, y, mine, k)
                if abs(near - together) <= tol:
                    verdict = -1
                    break
                if near > together:  # keep them together
                    continue
                mine[k, 0], mine[k, 1] = x, y
                k += 1
            if verdict == 0 and k < models:
                verdict = 1
            out[t, e] = verdict
    return out


@njit(**INLINE)
def footprints_meet(x, y, boxes, xy, starts, reach, meet, clear, tol):  # pragma: no cover - compiled
    """Of the footprints whose box (``boxes``) is within ``reach`` of the point (x, y) in each axis (the exterior rings
    ``xy[starts[p]:starts[p + 1]]``, not closed): 1 one holds the point (the crossing test) or is nearer than
    ``meet`` (each edge's nearest point), 0 every one farther than ``clear``, -1 neither by more than ``tol``."""
    unsure = False
    for p in range(boxes.shape[0]):
        if boxes[p, 0] - x > reach or x - boxes[p, 2] > reach or boxes[p, 1] - y > reach or y - boxes[p, 3] > reach:
            continue
        inside = False
        near = np.inf
        j = starts[p + 1] - 1
        for i in range(starts[p], starts[p + 1]):
            ax, ay, bx, by = xy[j, 0], xy[j, 1], xy[i, 0], xy[i, 1]
            if (ay > y) != (by > y) and x < (bx - ax) * (y - ay) / (by - ay) + ax:
                inside = not inside
            dx, dy = bx - ax, by - ay
            t = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy) if dx * dx + dy * dy > 0 else 0.0
            t = min(max(t, 0.0), 1.0)
            ex, ey = ax + t * dx - x, ay + t * dy - y
            near = min(near, np.sqrt(ex * ex + ey * ey))
            j = i
        if inside or near < meet - tol:
            return 1
        if near <= clear + tol:
            unsure = True
    return -1 if unsure else 0


@njit(**JIT)
def _off_terrain(x, y, r, edges, boxes, xy, starts, inner, tol):  # pragma: no cover - compiled
    """``Routes._on_terrain`` on the playmat and the table's edges (``Routes._blocked``'s first tests) of a base of
    radius ``r`` at (x, y): 0 on the table and clear of every footprint (``boxes``, the rings
    ``xy[starts[p]:starts[p + 1]]``), 1 not, -1 too near to say. The base's disc is GEOS's 32-gon of a point's buffer
    (``quad_segs`` 8): within ``r`` of its centre, holding the disc of radius ``inner`` (``r cos(pi / 32)``): a
    footprint nearer than that (or holding the centre) meets it, one farther than ``r`` does not (``tol`` either
    side)."""
    w, d, eps = edges[0], edges[1], edges[2]
    if x - r < -eps or y - r < -eps or x + r > w + eps or y + r > d + eps:
        return 1
    return footprints_meet(x, y, boxes, xy, starts, r, inner, r, tol)


@njit(**JIT)
def _walk_kernel(
    lead, offs, n, beyond, models, r, step, bases, terrain, zone, apart, eng, tol, chosen
):  # pragma: no cover
    """One grid walk of ``Placing._place_grid`` on the playmat with no Charge target (a Move or a Deploy): the
    Leading Model at ``lead``, then the grid's offsets ``offs[:n]`` in order (``beyond``: the grid's next spot is past
    the walk's limit, where it stops), against the other units' bases (``bases``: placements, Enemy Ground flags, the
    packed starts, centres and radii) and the terrain (``terrain``: the table's edges, the footprints' boxes and rings,
    the disc's inner radius; :func:`_off_terrain`) and, for an arriving unit, the opponent's Zone of Influence
    (``zone``: its edge, 0 south, 1 north, 2 west, 3 east, -1 none, and its depth plus EPS; a spot with its base Within
    it is passed over, ``Placing.zone_gap``'s sum to the bit). Returns the models set (their offsets' indices + 1 in
    ``chosen``, 0 the Leading Model), -1 the walk reached the limit (or found too few spots, one Within the zone: the
    Python walk would then look beyond it), -2 no placement, -3 a distance too near a threshold to say."""
    pids, foe, starts, xy, rads = bases
    edges, boxes, rings, ring_starts, inner = terrain
    edge, reach = zone
    zoned = False
    mine = np.empty((models, 2), dtype=np.float64)
    x0, y0 = lead[0], lead[1]
    t = _off_terrain(x0, y0, r, edges, boxes, rings, ring_starts, inner, tol)
    v = _packed_test(x0, y0, r, pids, foe, starts, xy, rads, mine, 0, apart, eng, tol)
    if t == 1 or v == 1:
        return -2
    if t == -1 or v == -1:
        return -3
    mine[0, 0], mine[0, 1] = x0, y0
    chosen[0] = 0
    k = 1
    together = step + 2.0
    for s in range(n):
        if k == models:
            break
        x, y = x0 + offs[s, 0], y0 + offs[s, 1]
        if edge >= 0:  # 8.3.3: Placing.zone_gap(su, zone, (c,)) <= 0
            ed = y if edge == 0 else edges[1] - y if edge == 1 else x if edge == 2 else edges[0] - x
            if ed - r - reach <= 0:
                zoned = True
                continue
        t = _off_terrain(x, y, r, edges, boxes, rings, ring_starts, inner, tol)
        if t == 1:
            continue
        v = _packed_test(x, y, r, pids, foe, starts, xy, rads, mine, k, apart, eng, tol)
        if v == 1:
            continue
        if t == -1 or v == -1:
            return -3
        near = _nearest(x, y, mine, k)
        if abs(near - together) <= tol:
            return -3
        if near > together:  # keep them together
            continue
        mine[k, 0], mine[k, 1] = x, y
        chosen[k] = s + 1
        k += 1
    if k < models:
        return -1 if beyond or zoned else -2
    return k


def set_verdicts(
    spots: np.ndarray,
    terr: np.ndarray,
    nspots: np.ndarray,
    models: int,
    r: float,
    step: float,
    cs: np.ndarray,
    rs: np.ndarray,
    enemy: np.ndarray,
    starts: np.ndarray,
    apart: float,
    eng: float,
) -> np.ndarray:
    """:func:`_set_kernel` (its text) on contiguous arrays: states x entries, int8 (1 cannot be set, 0 can, -1 too
    near a threshold to say)."""
    return _set_kernel(
        np.ascontiguousarray(spots, dtype=np.float64),
        np.ascontiguousarray(terr, dtype=np.bool_),
        np.ascontiguousarray(nspots, dtype=np.int64),
        int(models),
        float(r),
        float(step),
        np.ascontiguousarray(cs, dtype=np.float64).reshape(-1, 2),
        np.ascontiguousarray(rs, dtype=np.float64),
        np.ascontiguousarray(enemy, dtype=np.bool_),
        np.ascontiguousarray(starts, dtype=np.int64),
        float(apart),
        float(eng),
        TOL,
    )


def walk(
    lead: tuple[float, float],
    offs: np.ndarray,
    n: int,
    beyond: bool,
    models: int,
    r: float,
    step: float,
    bases: tuple[np.ndarray, ...],
    terrain: tuple[Any, ...],
    zone: tuple[int, float],
    apart: float,
    eng: float,
) -> tuple[int, np.ndarray]:
    """:func:`_walk_kernel` (its text): (its answer, the spots set: 0 the Leading Model's, ``i + 1`` offset ``i``)."""
    chosen = np.empty(models, dtype=np.int64)
    at = (float(lead[0]), float(lead[1]))
    edge = (int(zone[0]), float(zone[1]))
    args = (int(models), float(r), float(step), bases, terrain, edge, float(apart), float(eng), TOL, chosen)
    got = _walk_kernel(at, offs, int(n), bool(beyond), *args)
    return int(got), chosen


__all__ = ["TOL", "clear", "footprints_meet", "set_verdicts", "walk"]
