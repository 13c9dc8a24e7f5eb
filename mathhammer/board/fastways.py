"""The clear legs of :class:`~mathhammer.board.ways.WayGraph` compiled: does a straight leg meet the grown obstacles
(8.5.3 step 1: "The Leading Model cannot move through terrain of Size 2 or larger"), and the least value among the
targets a point's clear legs reach.

A leg meets an area (a polygon, holes and parts as shapely gives them) where it meets one of its rings' edges or lies
inside it. Each test here is decided by the signs of orientations (twice a triangle's area): a sign counts only where
the orientation is more than :data:`TOL` from 0 (far above the rounding of these coordinates: inches on a table), so a
decided leg is the exact answer of shapely's robust predicates for the same coordinates, and a leg too near an edge
to decide (touching it, along it, a hair from it) is left to shapely (``shapely.intersects``, the caller). An edge
whose box the leg's box does not meet is passed by comparisons alone (exact). Inside: the leg meets no edge, so it
lies wholly inside or outside; its start's ray crossings (even-odd over the rings of a part) say which.

:func:`pack` turns a shapely area into the plain arrays the kernels take (its rings' vertices, per ring its first
vertex, per part its first ring and its box). The kernels answer per leg 0 (clear), 1 (meets the area) or 2 (not
decided here). :func:`pack_each` packs many Polygons, one part each, and :func:`pair_status` reads legs against single
parts of them (a Charge's legs against each grown obstacle, :func:`~mathhammer.board.charge.charge_distance`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import shapely
from numba import njit
from shapely.geometry.base import BaseGeometry

from ..config import INLINE, JIT

#: an orientation (square inches) this near 0 gives no sign here: the leg is left to shapely
TOL = 1e-9

#: an area's plain arrays: the rings' vertices (closed), per ring its first vertex (and the end), per part its first
#: ring (and the end), per part its box (min x, min y, max x, max y)
Pack = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def pack(area: BaseGeometry) -> Pack:
    """The plain arrays of ``area`` (a Polygon, a MultiPolygon or empty) for :func:`leg_status`."""
    xy: list[np.ndarray] = []
    rings = [0]
    parts = [0]
    boxes = []
    for part in shapely.get_parts(area).tolist():
        if part.is_empty:
            continue
        for ring in shapely.get_rings(part).tolist():
            c = shapely.get_coordinates(ring)
            xy.append(c)
            rings.append(rings[-1] + len(c))
        parts.append(len(rings) - 1)
        boxes.append(part.bounds)
    coords = np.concatenate(xy) if xy else np.zeros((0, 2))
    return (
        np.ascontiguousarray(coords, dtype=np.float64),
        np.asarray(rings, dtype=np.int64),
        np.asarray(parts, dtype=np.int64),
        np.asarray(boxes, dtype=np.float64).reshape(-1, 4),
    )


@njit(**INLINE)
def _leg(xy, rings, parts, boxes, ax, ay, bx, by):  # pragma: no cover - compiled
    """0 the leg (ax, ay)-(bx, by) is clear of the area, 1 it meets it, 2 not decided (the module text)."""
    unsure = False
    for p in range(len(parts) - 1):
        got = _leg_part(xy, rings, parts, boxes, p, ax, ay, bx, by)
        if got == 1:
            return 1
        if got == 2:
            unsure = True
    return 2 if unsure else 0


@njit(**INLINE)
def _leg_part(xy, rings, parts, boxes, p, ax, ay, bx, by):  # pragma: no cover - compiled
    """:func:`_leg` of part ``p`` of the area alone."""
    lox, hix = min(ax, bx), max(ax, bx)
    loy, hiy = min(ay, by), max(ay, by)
    unsure = False
    if hix < boxes[p, 0] or lox > boxes[p, 2] or hiy < boxes[p, 1] or loy > boxes[p, 3]:
        return 0
    inside = False
    shaky = False
    for r in range(parts[p], parts[p + 1]):
        for v in range(rings[r], rings[r + 1] - 1):
            cx, cy = xy[v, 0], xy[v, 1]
            dx, dy = xy[v + 1, 0], xy[v + 1, 1]
            # the start's ray to +x (even-odd)
            if (cy > ay) != (dy > ay):
                o = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
                if abs(o) <= TOL:
                    shaky = True
                elif (o > 0.0) == (dy > cy):
                    inside = not inside
            if hix < min(cx, dx) or lox > max(cx, dx) or hiy < min(cy, dy) or loy > max(cy, dy):
                continue
            o1 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            o2 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
            if abs(o1) > TOL and abs(o2) > TOL and (o1 > 0.0) == (o2 > 0.0):
                continue  # the edge wholly on one side of the leg's line
            o3 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
            o4 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
            if abs(o3) > TOL and abs(o4) > TOL and (o3 > 0.0) == (o4 > 0.0):
                continue  # the leg wholly on one side of the edge's line
            if abs(o1) > TOL and abs(o2) > TOL and abs(o3) > TOL and abs(o4) > TOL:
                return 1  # a proper crossing
            unsure = True
    if shaky:
        unsure = True
    elif inside:
        return 1
    return 2 if unsure else 0


@njit(**JIT)
def _pairs_kernel(xy, rings, parts, boxes, a, bs, k, p, out):  # pragma: no cover - compiled
    for i in range(len(k)):
        out[i] = _leg_part(xy, rings, parts, boxes, p[i], a[0], a[1], bs[k[i], 0], bs[k[i], 1])


def pack_each(areas: np.ndarray) -> Pack | None:
    """:func:`pack` of ``areas`` (Polygons) with each one part, in order (for :func:`pair_status`); None where one is
    not a Polygon."""
    if not len(areas) or not all(g.geom_type == "Polygon" for g in areas.tolist()):
        return None
    rings, owner = shapely.get_rings(areas, return_index=True)
    coords, which = shapely.get_coordinates(rings, return_index=True)
    ring_starts = np.concatenate([[0], np.cumsum(np.bincount(which, minlength=len(rings)))])
    part_starts = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(areas)))])
    return (
        np.ascontiguousarray(coords, dtype=np.float64),
        ring_starts.astype(np.int64),
        part_starts.astype(np.int64),
        np.ascontiguousarray(shapely.bounds(areas), dtype=np.float64).reshape(-1, 4),
    )


def pair_status(areas: Pack, a: np.ndarray, bs: np.ndarray, k: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per pair ``i``: 0 the leg from ``a`` to ``bs[k[i]]`` is clear of part ``p[i]`` of the packed areas
    (:func:`pack_each`), 1 it meets it, 2 not decided here (the module text).

    >>> two = pack_each(np.array([shapely.box(1.0, 1.0, 2.0, 2.0), shapely.box(4.0, 0.0, 5.0, 1.0)]))
    >>> ends = np.array([[3.0, 2.5], [6.0, 0.5]])
    >>> pair_status(two, np.array([0.0, 0.0]), ends, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])).tolist()
    [1, 0, 0, 1]
    """
    out = np.empty(len(k), dtype=np.int8)
    f8, i8 = np.float64, np.int64
    _pairs_kernel(*areas, np.ascontiguousarray(a, dtype=f8), np.ascontiguousarray(bs, dtype=f8),
                  np.ascontiguousarray(k, dtype=i8), np.ascontiguousarray(p, dtype=i8), out)  # fmt: skip
    return out


@njit(**JIT)
def _legs_kernel(xy, rings, parts, boxes, legs, out):  # pragma: no cover - compiled
    for i in range(len(legs)):
        out[i] = _leg(xy, rings, parts, boxes, legs[i, 0], legs[i, 1], legs[i, 2], legs[i, 3])


def leg_status(area: Pack, legs: np.ndarray) -> np.ndarray:
    """Per row ``(ax, ay, bx, by)`` of ``legs``: 0 the leg is clear of the packed area, 1 it meets it, 2 not decided
    here (the module text).

    >>> square = pack(shapely.box(1.0, 1.0, 2.0, 2.0))
    >>> leg_status(square, np.array([[0.0, 0.0, 3.0, 2.5], [0.0, 0.0, 3.0, 0.5], [1.2, 1.5, 1.8, 1.5],
    ...                              [0.0, 1.0, 3.0, 1.0]])).tolist()
    [1, 0, 1, 2]
    """
    legs = np.ascontiguousarray(legs, dtype=np.float64).reshape(-1, 4)
    out = np.empty(len(legs), dtype=np.int8)
    _legs_kernel(area[0], area[1], area[2], area[3], legs, out)
    return out


@njit(**JIT)
def _least_kernel(
    xy, rings, parts, boxes, points, who, targets, order, vals, bound, seen, out, pending
):  # pragma: no cover
    n = vals.shape[1]
    for i in range(len(who)):
        if pending[i] == 0:
            continue
        pending[i] = 0
        p = who[i]
        ax, ay = points[p, 0], points[p, 1]
        for j in range(n):
            v = vals[i, j]
            if v >= bound[i]:
                break
            t = order[i, j]
            s = seen[p, t]
            if s < 0:
                s = _leg(xy, rings, parts, boxes, ax, ay, targets[t, 0], targets[t, 1])
                seen[p, t] = s
            if s == 2:  # not decided: the caller asks shapely, then this row again
                pending[i] = 1
                break
            if s == 0:
                out[i] = v
                break


def least_seen(area: Pack, points: np.ndarray, who: np.ndarray, targets: np.ndarray, order: np.ndarray,
               vals: np.ndarray, bound: np.ndarray, seen: np.ndarray,
               ask: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:  # fmt: skip
    """Per row ``i``: the first of ``vals[i]`` (the values of the targets ``order[i]``, in that order) below
    ``bound[i]`` whose target's leg from the point ``who[i]`` of ``points`` is clear of the area, else ``bound[i]``;
    ``seen`` (points x targets, -1 unknown, 0 clear, 1 meets, 2 not decided) keeps each leg's answer for the other rows
    of its point; ``ask(p, t)`` (arrays of points and targets) answers the legs the kernel leaves, as booleans (clear).
    """
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    out = bound.copy()
    pending = np.ones(len(who), dtype=np.int8)
    f8, i8 = np.float64, np.int64
    args = (*area, np.ascontiguousarray(points, dtype=f8), np.ascontiguousarray(who, dtype=i8),
            np.ascontiguousarray(targets, dtype=f8), np.ascontiguousarray(order, dtype=i8),
            np.ascontiguousarray(vals, dtype=f8), bound, seen, out, pending)  # fmt: skip
    while True:
        _least_kernel(*args)
        if not pending.any():
            return out
        p, t = np.nonzero(seen == 2)
        seen[p, t] = np.where(ask(p, t), 0, 1)


__all__ = ["TOL", "Pack", "least_seen", "leg_status", "pack", "pack_each", "pair_status"]
