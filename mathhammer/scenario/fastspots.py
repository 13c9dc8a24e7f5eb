"""Numba kernel of a charging unit's spots on the playmat (8.7.7 step 4's Placement priority): the reading of
:meth:`Charges._charge_spots <mathhammer.scenario.geometry.charge.Charges._charge_spots>` in one compiled pass, the
same spots from the same doubles, as far as every model finds a spot in its lists; where a model finds none, the
spots of the models before it (the caller then reads the whole unit in Python, with its fine grid).

The spot lists are laid and ordered as that method lays them (Priority A's ring round each live target model, B's
rings at ``B_GAPS``, Priority C's ring round the models set Within the Engagement Range, the hexagonal grid in the
unit's frame; "nearest the Leading Model" by the rounded distance, side and rear, a stable sort), each spot tested
once against the other bases and the terrain, in the same chunks of 32, and the box of every spot tested grown as
its memo reads it. The terrain is read as ``shapely.distance`` reads a base's centre against the footprints a base
on the playmat may not overlap (the table's edges first, then each footprint near the spot: inside it, or its ring
nearer than the radius and 1e-9); a distance within :data:`~mathhammer.scenario.fastplace.TOL` of that limit is not
decided here (:data:`UNSURE`: the caller reads the spots in Python)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import INLINE, JIT
from .fastplace import TOL, footprints_meet
from .fastranks import grow, round6

#: the answer of :func:`spots` where a spot's terrain test is too near its limit to decide here
UNSURE = -1
#: a chunk of spots tested at once (the Python reading's)
CHUNK = 32


@njit(**INLINE)
def _before(a, b, d, side, ahead):  # pragma: no cover - compiled
    """Does spot ``a`` come before spot ``b``: (distance, lateral, ahead, index) less?"""
    if d[a] != d[b]:
        return d[a] < d[b]
    if side[a] != side[b]:
        return side[a] < side[b]
    if ahead[a] != ahead[b]:
        return ahead[a] < ahead[b]
    return a < b


@njit(**JIT)
def _lay(px, py, lo, hi, lx, ly, bx, by, side_sign):  # pragma: no cover - compiled
    """Order the spots ``px[lo:hi]``, ``py[lo:hi]`` in place nearest the Leading Model at (``lx``, ``ly``) first: by
    the rounded distance, then the rounded lateral (``side_sign`` times ``back`` turned counter-clockwise), then the
    rounded ahead, then the index (``np.lexsort``'s order: a stable sort per key); a merge sort on that order."""
    n = hi - lo
    d = np.empty(n)
    side = np.empty(n)
    ahead = np.empty(n)
    for i in range(n):
        dx, dy = px[lo + i] - lx, py[lo + i] - ly
        d[i] = round6(np.hypot(dx, dy))
        side[i] = round6(side_sign * (dy * bx - dx * by))
        ahead[i] = round6(-(dx * bx + dy * by))
    o = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for a in range(0, n, 2 * width):
            m, b = min(a + width, n), min(a + 2 * width, n)
            i, j, k = a, m, a
            while i < m and j < b:
                if _before(o[j], o[i], d, side, ahead):
                    tmp[k] = o[j]
                    j += 1
                else:
                    tmp[k] = o[i]
                    i += 1
                k += 1
            while i < m:
                tmp[k] = o[i]
                i += 1
                k += 1
            while j < b:
                tmp[k] = o[j]
                j += 1
                k += 1
        o, tmp = tmp, o
        width *= 2
    xs, ys = px[lo:hi].copy(), py[lo:hi].copy()
    for i in range(n):
        px[lo + i], py[lo + i] = xs[o[i]], ys[o[i]]


@njit(**JIT)
def _around(cx, cy, rads, r, gap, ring, px, py, lo):  # pragma: no cover - compiled
    """The ring of spots round each centre (``cx``, ``cy``; ``rads`` their radii), centre + (r + rad + gap) * the
    ring's directions, centre by centre (``around`` of the Python reading), written to ``px``, ``py`` from ``lo``;
    returns the end."""
    k = ring.shape[0]
    for i in range(cx.size):
        reach = r + rads[i] + gap
        for j in range(k):
            px[lo + i * k + j] = cx[i] + reach * ring[j, 0]
            py[lo + i * k + j] = cy[i] + reach * ring[j, 1]
    return lo + cx.size * k


@njit(**INLINE)
def _terrain(x, y, r, edges, boxes, xy, starts, tol):  # pragma: no cover - compiled
    """``Routes._terrain_ok`` of one spot on the playmat: 1 on the table and farther than ``r`` + 1e-9 from every
    footprint (``boxes``; exterior rings ``xy[starts[p]:starts[p + 1]]``), 0 not, -1 a distance within ``tol`` of that
    limit."""
    w, dep, eps = edges[0], edges[1], edges[2]
    if not (x - r >= -eps and y - r >= -eps and x + r <= w + eps and y + r <= dep + eps):
        return 0
    lim = r + 1e-9
    # a footprint's box farther than r (and a margin) from the spot: so is the footprint (the Python reading's box test)
    meets = footprints_meet(x, y, boxes, xy, starts, r + 1e-6, lim, lim, tol)
    return -1 if meets < 0 else 1 - meets


@njit(**JIT)
def _static(x, y, r, oc, orad, oen, tspot, apart, half, eng, edges, boxes, xy, starts, tol):  # pragma: no cover
    """``static_ok`` of the Python reading for one spot: apart from every other base (``apart`` from a live target
    model's own spot, ``half`` from any other), not Within ``eng`` of an enemy Ground base (``oen``), and
    :func:`_terrain`'s test (read only where the bases pass): 1, 0, or -1 unsure."""
    for j in range(oc.shape[0]):
        dx, dy = x - oc[j, 0], y - oc[j, 1]
        g = np.sqrt(dx * dx + dy * dy) - r - orad[j]
        need = apart if tspot[j] else half
        if not g >= need - 1e-12:
            return 0
        if g <= eng and oen[j]:
            return 0
    return _terrain(x, y, r, edges, boxes, xy, starts, tol)


@njit(**JIT)
def _first_free(
    px, py, st, ap, co, wi, lo, hi, nread, lst, setx, sety, nset, wholly, r, limits, bases, terrain, box, tol
):  # pragma: no cover - compiled
    """``first_free`` of the Python reading on list ``lst``, the spots ``lo:hi`` of ``px``, ``py`` in order (``st``
    what is known of :func:`_static` per spot, -1 not read; ``ap``, ``co``, ``wi`` per spot apart from every model
    read, In Coherency with one, Wholly Within 3" of the Leading Model; ``nread[lst]`` the models set read so far):
    the index of the first free spot, -1 none, -2 a terrain test too near its limit."""
    if hi == lo:
        return -1
    _, apart, half, coh, within, eng = limits
    for m in range(nread[lst], nset):
        mx, my = setx[m], sety[m]
        for i in range(lo, hi):
            dx, dy = px[i] - mx, py[i] - my
            d = np.sqrt(dx * dx + dy * dy)
            ap[i] = ap[i] and (d - 2 * r) >= apart
            co[i] = co[i] or d <= coh
            if m == 0:  # the first model read is the Leading Model
                wi[i] = d <= within
    nread[lst] = nset
    oc, orad, oen, tspot = bases
    edges, boxes, xy, starts = terrain
    chunk = np.empty(CHUNK, dtype=np.int64)
    k = 0
    for i in range(lo, hi + 1):
        if i < hi:
            if not (ap[i] and co[i] and (wi[i] or not wholly) and st[i] != 0):
                continue
            chunk[k] = i
            k += 1
            if k < CHUNK:
                continue
        if k == 0:
            continue
        for c in range(k):  # the spots not read yet grow the box, then are read
            s = chunk[c]
            if st[s] < 0:
                grow(box, px[s], py[s])
        for c in range(k):
            s = chunk[c]
            if st[s] < 0:
                v = _static(px[s], py[s], r, oc, orad, oen, tspot, apart, half, eng, edges, boxes, xy, starts, tol)
                if v < 0:
                    return -2
                st[s] = v
        for c in range(k):
            if st[chunk[c]] == 1:
                return chunk[c]
        k = 0
    return -1


@njit(**JIT)
def _spots_kernel(
    lead, back, side_sign, models, r, live, ring, gaps, grid, others, terrain, limits, out, box, tol
):  # pragma: no cover - compiled
    """:func:`spots` (its text): the number of spots in ``out`` (the Leading Model's first; fewer than ``models``
    where a model finds none), -1 unsure."""
    lx, ly = lead
    bx, by = back
    lcx, lcy, lr = live
    touch, eng = limits[0], limits[5]
    oc, orad, oen = others
    # a live target model's own spot is in ``others`` too (every centre of the placement): it may be touched
    tspot = np.zeros(oc.shape[0], dtype=np.bool_)
    for j in range(oc.shape[0]):
        for q in range(lcx.size):
            if np.hypot(oc[j, 0] - lcx[q], oc[j, 1] - lcy[q]) < 1e-9:
                tspot[j] = True
                break
    bases = (oc, orad, oen, tspot)
    lat, fwd = grid
    # the lists, one after the other in one array: 0 Priority A, 1 Priority B, 2 the grid (each laid and ordered on
    # its first read: most charges find every spot in the first); then, per count of the models set Within the
    # Engagement Range (it only grows), Priority C beside them (list 3, laid afresh)
    k = ring.shape[0]
    bounds = np.zeros(5, dtype=np.int64)
    bounds[1] = lcx.size * k
    bounds[2] = bounds[1] + gaps.size * lcx.size * k
    bounds[3] = bounds[2] + lat.size
    bounds[4] = bounds[3] + models * k
    size = bounds[4]
    px, py = np.empty(size), np.empty(size)
    st = np.full(size, -1, dtype=np.int8)
    ap = np.ones(size, dtype=np.bool_)
    co = np.zeros(size, dtype=np.bool_)
    wi = np.zeros(size, dtype=np.bool_)
    built = np.zeros(3, dtype=np.bool_)
    nread = np.zeros(4, dtype=np.int64)
    setx, sety = np.empty(models), np.empty(models)
    setx[0], sety[0] = lx, ly
    nset = 1
    fights = np.zeros(models, dtype=np.bool_)
    nfight_read = 0
    fcount = 0
    fend = bounds[3]
    for _ in range(models - 1):
        found = -1
        wholly = True  # 4.4: Wholly Within the Horizontal Coherency of the Leading Model, or none (removed)
        for t in range(4):  # the lists in the order 0, 1, 3, 2
            lst = t if t < 2 else 5 - t
            lo, hi = bounds[lst], bounds[lst + 1]
            if lst == 3:
                for m in range(nfight_read, nset):
                    for q in range(lcx.size):
                        if np.hypot(lcx[q] - setx[m], lcy[q] - sety[m]) - r - lr[q] <= eng:
                            fights[m] = True
                            break
                nfight_read = nset
                count = 0
                for m in range(nset):
                    if fights[m]:
                        count += 1
                if count == 0:
                    continue
                if count != fcount:  # a new list round the models set Within the Engagement Range
                    c = lo
                    for m in range(nset):
                        if fights[m]:
                            for j in range(k):
                                px[c] = setx[m] + (r + r + touch) * ring[j, 0]
                                py[c] = sety[m] + (r + r + touch) * ring[j, 1]
                                c += 1
                    fend = c
                    _lay(px, py, lo, fend, lx, ly, bx, by, side_sign)
                    st[lo:fend] = -1
                    ap[lo:fend] = True
                    co[lo:fend] = False
                    wi[lo:fend] = False
                    nread[3] = 0
                    fcount = count
                hi = fend
            elif not built[lst]:
                if lst == 0:
                    _around(lcx, lcy, lr, r, touch, ring, px, py, lo)
                elif lst == 1:
                    at = lo
                    for g in gaps:
                        at = _around(lcx, lcy, lr, r, g, ring, px, py, at)
                else:  # the grid laid in the unit's frame (lateral, ahead)
                    for i in range(lat.size):
                        px[lo + i] = lx + lat[i] * -by - fwd[i] * bx
                        py[lo + i] = ly + lat[i] * bx - fwd[i] * by
                _lay(px, py, lo, hi, lx, ly, bx, by, side_sign)
                built[lst] = True
            i = _first_free(
                px, py, st, ap, co, wi, lo, hi, nread, lst, setx, sety, nset, wholly, r, limits, bases, terrain,
                box, tol,
            )  # fmt: skip
            if i == -2:
                return UNSURE
            if i >= 0:
                found = i
                break
        if found < 0:  # the models after it find none either (the same tests on the same models set)
            break
        setx[nset], sety[nset] = px[found], py[found]
        nset += 1
    for m in range(nset):
        out[m, 0], out[m, 1] = setx[m], sety[m]
    return nset


def spots(
    lead: tuple[float, float],
    back: tuple[float, float],
    first: int,
    models: int,
    r: float,
    live: tuple[np.ndarray, np.ndarray],
    others: tuple[np.ndarray, np.ndarray, np.ndarray],
    ring: np.ndarray,
    gaps: tuple[float, ...],
    grid: tuple[np.ndarray, np.ndarray],
    terrain: tuple[np.ndarray, ...],
    limits: tuple[float, float, float, float, float, float],
    box: list[float],
) -> list[tuple[float, float]] | int:
    """The spots of a charging unit of ``models`` models of base radius ``r``, its Leading Model at ``lead``, its rear
    ``back`` (``first``: the side of its frame filled first), as ``Charges._charge_spots`` reads them on the playmat:
    the centres (the Leading Model's first; where a model finds no spot, those set before it), or :data:`UNSURE`.
    ``live``: the live target models' centres (rows) and radii; ``others``: the other bases' centres (rows), radii and
    Enemy Ground flags; ``ring``: the directions of a ring of spots (rows); ``gaps``: Priority
    B's edge gaps; ``grid``: the hexagonal grid's offsets (lateral, ahead);
    ``terrain``: ``Routes._playmat_pack``; ``limits``: Base-to-Base's gap, the gap apart from a target model's spot
    and from any other base, the Coherency reach, the Wholly Within reach, the Engagement Range (each with its margin,
    as the Python reading adds them); ``box`` ([x0, y0, x1, y1]): grown to hold every spot tested against the bases
    (not where the answer is :data:`UNSURE`)."""
    touch, apart, half, coh, within, eng = limits
    lc, lr = live
    oc, orad, oen = others
    lc = np.ascontiguousarray(lc, dtype=np.float64).reshape(-1, 2)
    out = np.empty((models, 2))
    kbox = np.asarray(box, dtype=np.float64)
    got = _spots_kernel(
        (float(lead[0]), float(lead[1])),
        (float(back[0]), float(back[1])),
        float(-first),
        int(models),
        float(r),
        (np.ascontiguousarray(lc[:, 0]), np.ascontiguousarray(lc[:, 1]), np.ascontiguousarray(lr, dtype=np.float64)),
        ring,
        np.asarray(gaps, dtype=np.float64),
        grid,
        (
            np.ascontiguousarray(oc, dtype=np.float64).reshape(-1, 2),
            np.ascontiguousarray(orad, dtype=np.float64),
            np.ascontiguousarray(oen, dtype=np.bool_),
        ),
        terrain,
        (float(touch), float(apart), float(half), float(coh), float(within), float(eng)),
        out,
        kbox,
        TOL,
    )
    if got == UNSURE:
        return UNSURE
    box[:] = kbox.tolist()
    return [(x, y) for x, y in out[:got].tolist()]


__all__ = ["CHUNK", "UNSURE", "spots"]
