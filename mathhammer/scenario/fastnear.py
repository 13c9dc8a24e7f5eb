"""Numba kernels of the scenario geometry: a base clear of others (spacing, Engagement Range), points near others,
and the centres of every placement's bases (:class:`Centres`) for the nearness tests of the World."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from ..config import INLINE, JIT

#: per row, a base radius and the least and most gaps a caller reads the least distance less it against
#: (:meth:`Centres.least_many`); None: the least itself
Span = tuple[np.ndarray, np.ndarray, np.ndarray] | None


@njit(**JIT)
def _clear_kernel(pts, cs, rs, r, apart, solid, eng, enemy):  # pragma: no cover - compiled
    n, m = pts.shape[0], cs.shape[0]
    out = np.ones(n, dtype=np.bool_)
    for i in range(n):
        for j in range(m):
            dx = pts[i, 0] - cs[j, 0]
            dy = pts[i, 1] - cs[j, 1]
            g = np.sqrt(dx * dx + dy * dy) - r - rs[j]
            if (solid[j] and g < apart) or (enemy[j] and g <= eng):
                out[i] = False
                break
    return out


def clear_of(
    pts: np.ndarray,
    cs: np.ndarray,
    rs: np.ndarray,
    r: float,
    apart: float,
    solid: np.ndarray,
    eng: float,
    enemy: np.ndarray,
) -> np.ndarray:
    """Per point of ``pts`` (a base of radius ``r`` centred there): no base ``j`` of ``cs`` (radii ``rs``) with
    ``solid[j]`` nearer than ``apart`` edge to edge, and none with ``enemy[j]`` at ``eng`` or nearer. The edge
    gap is computed as numpy's ``sqrt(((p - c) ** 2).sum()) - r - rs[j]``, to the last bit.

    >>> c, rs = np.array([[0.0, 0.0], [3.0, 0.0]]), np.array([0.5, 0.5])
    >>> solid, enemy = np.ones(2, bool), np.zeros(2, bool)
    >>> clear_of(np.array([[1.5, 0.0], [1.0, 0.0]]), c, rs, 0.5, 0.05, solid, 1.0, enemy)
    array([ True, False])
    >>> clear_of(np.array([[1.5, 0.0]]), c, rs, 0.5, 0.05, solid, 1.0, np.array([False, True]))  # 0.5" from an enemy
    array([False])
    """
    return _clear_kernel(  # type: ignore[no-any-return]
        np.ascontiguousarray(pts, dtype=np.float64), cs, rs, float(r), float(apart), solid, float(eng), enemy
    )


def near_any(pts: np.ndarray, cs: np.ndarray, lim: float) -> np.ndarray:
    """Per point of ``pts``: is a point of ``cs`` at most ``lim`` away (numpy's ``sqrt(((p - c) ** 2).sum())``,
    to the last bit)?

    >>> near_any(np.array([[0.0, 0.0], [9.0, 0.0]]), np.array([[3.0, 4.0]]), 5.0)
    array([ True, False])
    """
    cs = np.ascontiguousarray(cs, dtype=np.float64).reshape(-1, 2)
    m = cs.shape[0]
    # clear_of with radii 0 (the same sqrt, less 0.0 twice: unchanged) and every point an "enemy" within lim
    return ~clear_of(pts, cs, np.zeros(m), 0.0, -np.inf, np.zeros(m, dtype=bool), lim, np.ones(m, dtype=bool))


@njit(**INLINE)
def near_box_one(p, starts, xy, rads, lo0, lo1, hi0, hi1, reach):  # pragma: no cover - compiled
    """Is a centre of placement ``p`` within ``reach`` + its radius of the box ``lo0, lo1``-``hi0, hi1``
    (:meth:`Centres.near_box` of one placement)?"""
    lim = reach + rads[p]
    for j in range(starts[p], starts[p + 1]):
        dx = max(max(lo0 - xy[j, 0], xy[j, 0] - hi0), 0.0)
        dy = max(max(lo1 - xy[j, 1], xy[j, 1] - hi1), 0.0)
        if np.hypot(dx, dy) <= lim:
            return True
    return False


@njit(**INLINE)
def near_one(pa, p, starts, xy, rads, gap):  # pragma: no cover - compiled
    """Could a base of placement ``p`` be within ``gap`` of one of ``pa`` (:meth:`Centres.near` of one placement)?"""
    d = np.inf
    for j in range(starts[pa], starts[pa + 1]):
        for k in range(starts[p], starts[p + 1]):
            dx = xy[j, 0] - xy[k, 0]
            dy = xy[j, 1] - xy[k, 1]
            d = min(d, np.sqrt(dx * dx + dy * dy))
    return d <= rads[pa] + rads[p] + gap + 0.01


@njit(**JIT)
def _near_box_kernel(pids, starts, xy, rads, lo0, lo1, hi0, hi1, reach):  # pragma: no cover - compiled
    out = np.zeros(pids.size, dtype=np.bool_)
    for i in range(pids.size):
        out[i] = near_box_one(pids[i], starts, xy, rads, lo0, lo1, hi0, hi1, reach)
    return out


@njit(**JIT)
def _near_kernel(pa, pids, starts, xy, rads, gap):  # pragma: no cover - compiled
    out = np.zeros(pids.size, dtype=np.bool_)
    for i in range(pids.size):
        out[i] = near_one(pa, pids[i], starts, xy, rads, gap)
    return out


@njit(**JIT)
def _near_pairs_kernel(pairs, starts, xy, rads, gap):  # pragma: no cover - compiled
    out = np.zeros(pairs.shape[0], dtype=np.bool_)
    for i in range(pairs.shape[0]):
        out[i] = near_one(pairs[i, 0], pairs[i, 1], starts, xy, rads, gap)
    return out


@njit(**JIT)
def _least_apart_kernel(pa, ka, pb, kb, starts, xy, discs, rad, floor, ceil):  # pragma: no cover - compiled
    """:meth:`Centres.least_many`: ``hypot`` read only for a pair whose summed squares are not more than the least so
    far's square (with a relative margin of 1e-9, far above ``hypot``'s error): the pairs passed over are farther, so
    the least is the same to the bit. A row's search ends at a distance ``h`` with ``h - rad[i] <= floor[i]`` (its
    answer ``h``, not more than the least's); a row whose two placements' discs (:func:`disc`) are farther apart than
    ``rad[i] + ceil[i]`` with 1e-6 to spare (every pair is) is not searched (its answer inf)."""
    out = np.empty(pa.size)
    for i in range(pa.size):
        d = np.inf
        d2 = np.inf
        if ceil[i] < np.inf:
            disc(pa[i], starts, xy, discs)
            disc(pb[i], starts, xy, discs)
            dx, dy = discs[pa[i], 0] - discs[pb[i], 0], discs[pa[i], 1] - discs[pb[i], 1]
            if np.sqrt(dx * dx + dy * dy) - discs[pa[i], 2] - discs[pb[i], 2] - rad[i] > ceil[i] + 1e-6:
                out[i] = d
                continue
        done = False
        for j in range(starts[pa[i]], min(starts[pa[i]] + ka[i], starts[pa[i] + 1])):
            x0, y0 = xy[j, 0], xy[j, 1]
            for k in range(starts[pb[i]], min(starts[pb[i]] + kb[i], starts[pb[i] + 1])):
                dx, dy = x0 - xy[k, 0], y0 - xy[k, 1]
                if dx * dx + dy * dy > d2:
                    continue
                h = np.hypot(dx, dy)
                if h < d:
                    d = h
                    d2 = h * h * (1.0 + 1e-9)
                    if h - rad[i] <= floor[i]:
                        done = True
                        break
            if done:
                break
        out[i] = d
    return out


@njit(**INLINE)
def disc(p, starts, xy, discs):  # pragma: no cover - compiled
    """The disc round placement ``p``'s centres (their mean, the farthest from it) in row ``p`` of ``discs`` (x, y,
    radius; a negative radius: not made yet), made on its first read: every centre of the placement is in it."""
    if discs[p, 2] < 0.0:
        lo, hi = starts[p], starts[p + 1]
        cx = 0.0
        cy = 0.0
        for j in range(lo, hi):
            cx += xy[j, 0]
            cy += xy[j, 1]
        cx /= hi - lo
        cy /= hi - lo
        far = 0.0
        for j in range(lo, hi):
            far = max(far, np.sqrt((xy[j, 0] - cx) ** 2 + (xy[j, 1] - cy) ** 2))
        discs[p, 0], discs[p, 1], discs[p, 2] = cx, cy, far


@njit(**JIT)
def _beyond_kernel(pids, starts, xy, pts, caps, eps):  # pragma: no cover - compiled
    """:meth:`Centres.beyond_many` (its text): ``hypot`` read only where the summed squares are within a relative 1e-9
    of the limit's square (far above ``hypot``'s error) or not finite; elsewhere they answer alike."""
    out = np.zeros((pids.size, pts.shape[0]), dtype=np.bool_)
    for i in range(pids.size):
        j = starts[pids[i]]
        lx, ly = xy[j, 0], xy[j, 1]
        for e in range(pts.shape[0]):
            dx, dy = pts[e, 0] - lx, pts[e, 1] - ly
            s = dx * dx + dy * dy
            c = caps[e] + eps
            if np.isfinite(s) and s > c * c * (1.0 + 1e-9):
                out[i, e] = True
            elif np.isfinite(s) and s < c * c * (1.0 - 1e-9):
                continue
            else:
                d = np.hypot(dx, dy)
                out[i, e] = d > c and np.isfinite(d)
    return out


class ManyTest:
    """A test of placements read for many at once, ``test.many(pids)`` (compiled), and of one, ``test(p)``
    (``one(p)`` where given, else ``many`` of one): what the Simulation's splits of games by placements read
    (:meth:`~mathhammer.scenario.sim_state.SimState._near_cols`)."""

    __slots__ = ("many", "one")

    def __init__(self, many: Callable[[np.ndarray], np.ndarray], one: Callable[[int], bool] | None = None) -> None:
        self.many = many
        self.one = one

    def __call__(self, p: int, _side: str = "") -> bool:
        if self.one is not None:
            return self.one(p)
        return bool(self.many(np.array([p], dtype=np.int64))[0])


class Centres:
    """Every placement's model centres packed in one array (rows ``starts[p]`` .. ``starts[p + 1] - 1``) with its base
    radius, appended as placements are made: read by compiled tests of many placements at once.

    >>> c = Centres()
    >>> c.extend([((0.0, 0.0), (1.0, 0.0)), ((5.0, 0.0),)], [0.5, 0.5])
    >>> c.near_box(np.array([0, 1]), np.array([2.0, -1.0]), np.array([3.0, 1.0]), 0.6).tolist()  # 1" to the box
    [True, False]
    >>> c.near(0, np.array([1]), 2.9).tolist(), c.near(0, np.array([1]), 3.0).tolist()  # 4" apart, bases 1"
    ([False], [True])
    """

    def __init__(self) -> None:
        self.xy = np.zeros((256, 2))
        self.starts = np.zeros(257, dtype=np.int64)
        self.rads = np.zeros(256)
        #: per placement, a disc holding its centres (x, y, radius), made by the kernels that read it (radius -1: not
        #: yet; ``fastplace.clear``)
        self.discs = np.full((256, 3), -1.0)
        self.n = 0

    def extend(self, centres: Sequence[Sequence[tuple[float, float]]], rads: Sequence[float]) -> None:
        """Append placements ``n``, ``n + 1``, ... (their centres and base radii)."""
        rows = sum(len(c) for c in centres)
        end = int(self.starts[self.n])
        while self.n + len(centres) >= self.rads.size or end + rows > self.xy.shape[0]:
            grow = self.rads.size * 2
            self.discs = np.concatenate([self.discs, np.full((grow - self.rads.size, 3), -1.0)])
            self.rads = np.concatenate([self.rads, np.zeros(grow - self.rads.size)])
            self.starts = np.concatenate([self.starts, np.zeros(grow + 1 - self.starts.size, dtype=np.int64)])
            self.xy = np.concatenate([self.xy, np.zeros((max(self.xy.shape[0], rows), 2))])
        for c, r in zip(centres, rads, strict=True):
            self.xy[end : end + len(c)] = c
            end += len(c)
            self.rads[self.n] = r
            self.n += 1
            self.starts[self.n] = end

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The packed placements' starts, centres and radii (for a kernel reading them)."""
        return self.starts, self.xy, self.rads

    def near_box(self, pids: np.ndarray, lo: np.ndarray, hi: np.ndarray, reach: float) -> np.ndarray:
        """Per placement of ``pids``: a centre within ``reach`` + its radius of the box ``lo``-``hi`` (numpy's
        ``hypot`` of the per-axis gaps, to the last bit)."""
        lo0, lo1, hi0, hi1 = float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])
        args = (self.starts, self.xy, self.rads, lo0, lo1, hi0, hi1, float(reach))
        return _near_box_kernel(np.ascontiguousarray(pids, dtype=np.int64), *args)  # type: ignore[no-any-return]

    def near(self, pa: int, pids: np.ndarray, gap: float) -> np.ndarray:
        """Per placement of ``pids``: could a base of it be within ``gap`` of one of ``pa`` (nearest centres less the
        radii, and 0.01"; numpy's ``sqrt`` of the summed squares, to the last bit)?"""
        args = (self.starts, self.xy, self.rads, float(gap))
        return _near_kernel(int(pa), np.ascontiguousarray(pids, dtype=np.int64), *args)  # type: ignore[no-any-return]

    def near_pairs(self, pairs: np.ndarray, gap: float) -> np.ndarray:
        """:meth:`near` of each pair of placements (rows of ``pairs``, int64): the same answers (the test is symmetric
        to the last bit: the same distances, the radii summed either way).

        >>> c = Centres()
        >>> c.extend([((0.0, 0.0),), ((4.0, 0.0),), ((9.0, 0.0),)], [0.5, 0.5, 0.5])
        >>> c.near_pairs(np.array([[0, 1], [1, 2], [2, 0]]), 3.0).tolist()
        [True, False, False]
        """
        pairs = np.ascontiguousarray(pairs, dtype=np.int64)
        return _near_pairs_kernel(pairs, self.starts, self.xy, self.rads, float(gap))  # type: ignore[no-any-return]

    def least_many(
        self, pa: np.ndarray, ka: np.ndarray, pb: np.ndarray, kb: np.ndarray, span: Span = None
    ) -> np.ndarray:
        """Per row of the four arrays (int64): the least centre distance between the first ``ka`` models of placement
        ``pa`` and the first ``kb`` of ``pb`` (numpy's ``hypot`` of the per-axis differences, to the last bit; inf where
        either has none). With ``span`` = ``(rad, floor, ceil)`` (float64, per row), for a caller that reads the least
        less ``rad`` only against gaps from ``floor`` to ``ceil``: where a pair's distance ``h`` has ``h - rad`` at
        most ``floor``, that distance (not less than the least) stands for the least; where every pair is farther than
        ``rad + ceil`` (the placements' discs tell), inf does.

        >>> c = Centres()
        >>> c.extend([((0.0, 0.0), (9.0, 0.0)), ((3.0, 4.0), (9.0, 1.0))], [0.5, 0.5])
        >>> c.least_many(*(np.array(v, dtype=np.int64) for v in ([0, 0, 0], [2, 1, 1], [1, 1, 1], [2, 2, 0]))).tolist()
        [1.0, 5.0, inf]
        """
        pa, ka, pb, kb = (np.ascontiguousarray(v, dtype=np.int64) for v in (pa, ka, pb, kb))
        if span is None:
            span = (np.zeros(pa.size), np.full(pa.size, -np.inf), np.full(pa.size, np.inf))
        rad, floor, ceil = (np.ascontiguousarray(v, dtype=np.float64) for v in span)
        args = (self.starts, self.xy, self.discs, rad, floor, ceil)
        return _least_apart_kernel(pa, ka, pb, kb, *args)  # type: ignore[no-any-return]

    def beyond_many(self, pids: np.ndarray, pts: np.ndarray, caps: np.ndarray, eps: float) -> np.ndarray:
        """Per placement of ``pids`` (int64; rows) and point of ``pts`` (float64 rows x, y; inf where none; columns):
        is the point farther than ``caps`` (per point) + ``eps`` from the placement's first centre (numpy's ``hypot``
        of the per-axis differences, to the last bit; never for an infinite distance)?

        >>> c = Centres()
        >>> c.extend([((0.0, 0.0), (9.0, 0.0))], [0.5])
        >>> pts = np.array([[3.0, 4.0], [6.0, 8.0], [np.inf, np.inf]])
        >>> c.beyond_many(np.array([0]), pts, np.array([5.0, 5.0, 5.0]), 1e-9).tolist()
        [[False, True, False]]
        """
        pids = np.ascontiguousarray(pids, dtype=np.int64)
        return _beyond_kernel(pids, self.starts, self.xy, pts, caps, float(eps))  # type: ignore[no-any-return]


__all__ = ["Centres", "ManyTest", "Span", "clear_of", "disc", "near_any"]
