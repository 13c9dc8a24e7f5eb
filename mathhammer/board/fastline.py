"""A straight move's clearance compiled: does the segment between two centres meet a path obstacle it does not start
or end inside (8.5.3 step 1, :func:`~mathhammer.board.pathing.clear_line`)?

:func:`clear` reads the obstacles' outlines (polygons without holes, each ring not closed) with plain floating point
(a numba kernel) where the answer cannot depend on the last bits: every gap between the segment's ends and an
outline, and between the outline's corners and the segment, is more than :data:`TOL`, and no corner is within
:data:`TOL` of the segment's line nor an end of the edges' lines (the crossings then read by the orientations'
signs). Then an end is inside an obstacle by the even-odd rule, the segment meets an obstacle it is outside of at
both ends exactly where it crosses one of its edges, and the obstacles an end is inside are left out, as
``clear_line`` leaves out those a start or end touches (``pathing._touching``: ``contains``). Elsewhere it answers
None and the caller asks shapely (``tests/test_fastline.py`` holds the two to each other).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from .fastsight import _inside  # even-odd test of a point in a ring (a point more than TOL from every edge)

#: a gap this small (inches) is left to shapely (GEOS's arithmetic and this one may part in the last bits)
TOL = 1e-9


@njit(**INLINE)
def _gap(px, py, x0, y0, x1, y1):  # pragma: no cover - compiled
    """Distance from (px, py) to the segment (x0, y0)-(x1, y1)."""
    ex, ey = x1 - x0, y1 - y0
    ll = ex * ex + ey * ey
    w = 0.0 if ll == 0.0 else ((px - x0) * ex + (py - y0) * ey) / ll
    w = min(1.0, max(0.0, w))
    return math.hypot(px - x0 - w * ex, py - y0 - w * ey)


@njit(**INLINE)
def _side(ax, ay, bx, by, cx, cy):  # pragma: no cover - compiled
    """Twice the signed area of (a, b, c): positive where c is left of a -> b."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(**JIT)
def _clear_kernel(ax, ay, bx, by, xy, starts, tol):  # pragma: no cover - compiled
    """:func:`clear`: 1 clear, 0 not, 2 where a gap or a side is within ``tol`` (the caller asks shapely)."""
    la = math.hypot(bx - ax, by - ay)
    lo_x, hi_x, lo_y, hi_y = min(ax, bx) - 2 * tol, max(ax, bx) + 2 * tol, min(ay, by) - 2 * tol, max(ay, by) + 2 * tol
    for p in range(starts.shape[0] - 1):
        s, e = starts[p], starts[p + 1]
        x0, y0, x1, y1 = xy[s, 0], xy[s, 1], xy[s, 0], xy[s, 1]
        for i in range(s + 1, e):
            x0, x1 = min(x0, xy[i, 0]), max(x1, xy[i, 0])
            y0, y1 = min(y0, xy[i, 1]), max(y1, xy[i, 1])
        if x0 > hi_x or x1 < lo_x or y0 > hi_y or y1 < lo_y:
            continue  # the boxes apart by more than 2 tol: every gap is more than tol, both ends outside
        crossed = False
        j = e - 1
        for i in range(s, e):
            x0, y0, x1, y1 = xy[j, 0], xy[j, 1], xy[i, 0], xy[i, 1]
            j = i
            if min(_gap(ax, ay, x0, y0, x1, y1), _gap(bx, by, x0, y0, x1, y1)) <= tol:
                return 2
            if la == 0.0:
                continue
            if min(_gap(x0, y0, ax, ay, bx, by), _gap(x1, y1, ax, ay, bx, by)) <= tol:
                return 2
            o0, o1 = _side(ax, ay, bx, by, x0, y0), _side(ax, ay, bx, by, x1, y1)
            le = math.hypot(x1 - x0, y1 - y0)
            o2, o3 = _side(x0, y0, x1, y1, ax, ay), _side(x0, y0, x1, y1, bx, by)
            if min(abs(o0), abs(o1)) <= tol * la or min(abs(o2), abs(o3)) <= tol * le:
                return 2  # a corner near the segment's line or an end near the edge's: the signs below not sure
            if (o0 > 0.0) != (o1 > 0.0) and (o2 > 0.0) != (o3 > 0.0):
                crossed = True
        if _inside(ax, ay, xy, s, e - s) or _inside(bx, by, xy, s, e - s):
            continue  # an end inside the obstacle: left out (``_touching``)
        if crossed:
            return 0
    return 1


def clear(a: tuple[float, float], b: tuple[float, float], xy: np.ndarray, starts: np.ndarray) -> bool | None:
    """Does the segment ``a``-``b`` meet none of the obstacles ``xy[starts[p] : starts[p + 1]]`` (corners, float64,
    each ring not closed, no holes) but those ``a`` or ``b`` is inside? None where a gap is within :data:`TOL` (the
    module text).

    >>> sq = np.array([[4.0, -2.0], [5.0, -2.0], [5.0, 2.0], [4.0, 2.0]])
    >>> at = np.array([0, 4])
    >>> clear((0.0, 0.0), (10.0, 0.0), sq, at), clear((0.0, 0.0), (10.0, 10.0), sq, at)
    (False, True)
    >>> clear((4.5, 0.0), (10.0, 0.0), sq, at), clear((0.0, 0.0), (4.0, 0.0), sq, at)
    (True, None)
    """
    got = _clear_kernel(float(a[0]), float(a[1]), float(b[0]), float(b[1]), xy, starts, TOL)
    return None if got == 2 else got == 1


__all__ = ["TOL", "clear"]
