"""The compiled Charge search's goal test (8.7.7 step 3, 7.2.1: within 1" of every target, off every other base and
keep-out footprint; ``mathhammer.board.fastcharge``) held to a plain Python reading of the same rule, to the bit: the
points read in one loop (``_goal_keep``), a ring's edge read on squared distances with ``hypot`` only near the
threshold (``_off_edge``), a ring's box skipping the even-odd test, and the even-odd test itself without a modulo a
vertex (``fastsight._inside``, Line of Sight's). The reference is the kernel's former per-point test, written here in
Python (``math.hypot`` an edge, each edge from a vertex to the next by ``(i + 1) % n``). The cases put points on the
rings' vertices and edges, at ``ON_EDGE`` from an edge and a hair either side, where a read too loose changes an answer
(checked: ``_off_edge`` calling off the edge the points its squares leave to ``hypot`` fails 8 of the 8 cases of
the first two tests; ``_inside`` reading each edge from its second end fails 4 of the 4 seeds of the third)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mathhammer.board.fastcharge import ON_EDGE, TOL, _goal_keep, _off_edge, _ring_gap
from mathhammer.board.fastsight import _inside


def _inside_ref(px: float, py: float, xy: np.ndarray, s: int, n: int) -> bool:
    c = False
    for i in range(n):
        x0, y0 = xy[s + i]
        x1, y1 = xy[s + (i + 1) % n]
        if (y0 > py) != (y1 > py):
            xc = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
            if px < xc:
                c = not c
    return c


def _gap_ref(px: float, py: float, xy: np.ndarray, s: int, e: int) -> float:
    best = math.inf
    j = e - 1
    for i in range(s, e):
        ax, ay, bx, by = xy[j, 0], xy[j, 1], xy[i, 0], xy[i, 1]
        dx, dy = bx - ax, by - ay
        ll = dx * dx + dy * dy
        t = 0.0 if ll <= 0.0 else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / ll))
        best = min(best, math.hypot(ax + t * dx - px, ay + t * dy - py))
        j = i
    return best


def _in_goal_ref(px, py, box, zones, zt, nt, excl, exy, exst) -> bool:  # type: ignore[no-untyped-def]
    if px < box[0] - TOL or px > box[2] + TOL or py < box[1] - TOL or py > box[3] + TOL:
        return False
    for t in range(nt):
        if not any(
            (px - zones[z, 0]) ** 2 + (py - zones[z, 1]) ** 2 <= (zones[z, 2] + TOL) ** 2
            for z in range(zones.shape[0])
            if zt[z] == t
        ):
            return False
    for k in range(excl.shape[0]):
        rr = excl[k, 2] - TOL
        if rr > 0.0 and (px - excl[k, 0]) ** 2 + (py - excl[k, 1]) ** 2 < rr * rr:
            return False
    for p in range(exst.size - 1):
        s, e = int(exst[p]), int(exst[p + 1])
        if _inside_ref(px, py, exy, s, e - s) and _gap_ref(px, py, exy, s, e) > ON_EDGE:
            return False
    return True


def _rings(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Star-shaped rings (some with a concave notch), not closed, as rows and offsets."""
    rows, st = [], [0]
    for _ in range(count):
        c = rng.uniform(4, 16, 2)
        k = int(rng.integers(3, 40))
        a = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.5, 3.0, k)
        rows.append(c + np.c_[r * np.cos(a), r * np.sin(a)])
        st.append(st[-1] + k)
    return np.concatenate(rows), np.asarray(st, dtype=np.int64)


def _edge_points(rng: np.random.Generator, xy: np.ndarray, st: np.ndarray) -> np.ndarray:
    """Points on the rings' vertices and edges, at ON_EDGE from an edge and a hair (1e-8 of it) either side, both
    sides of the edge."""
    out = [xy]
    for p in range(st.size - 1):
        s, e = st[p], st[p + 1]
        for i in range(s, e):
            a, b = xy[i], xy[s + (i + 1 - s) % (e - s)]
            d = b - a
            ll = float(np.hypot(*d))
            if ll == 0.0:
                continue
            nrm = np.array([-d[1], d[0]]) / ll
            t = rng.uniform(0.2, 0.8)
            base = a + t * d
            out.append(base[None, :])
            for f in (1.0, 1.0 - 1e-8, 1.0 + 1e-8, 1.0 - 1e-4, 1.0 + 1e-4, 2.0):
                for side in (1.0, -1.0):
                    out.append((base + side * f * ON_EDGE * nrm)[None, :])
    return np.concatenate(out)


@pytest.mark.parametrize("seed", range(4))
def test_goal_keep_is_the_per_point_goal_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    exy, exst = _rings(rng, 4)
    zones = np.c_[rng.uniform(3, 17, (6, 2)), rng.uniform(1.5, 4.0, 6)]
    zt = np.array([0, 0, 0, 1, 1, 1], dtype=np.int64)
    excl = np.c_[rng.uniform(3, 17, (8, 2)), rng.uniform(0.2, 2.0, 8)]
    excl[0, 2] = TOL / 2  # a keep-out thinner than the tolerance keeps nothing out
    box = np.array([2.0, 2.5, 18.0, 17.5])
    exbox = np.array(
        [
            [exy[s:e, 0].min(), exy[s:e, 1].min(), exy[s:e, 0].max(), exy[s:e, 1].max()]
            for s, e in itertools.pairwise(exst)
        ]
    )
    pts = np.concatenate([_edge_points(rng, exy, exst), rng.uniform(0, 20, (3000, 2))])
    # points on a zone's circle and a keep-out's, and on the box's edge
    a = rng.uniform(0, 2 * np.pi, 200)
    pts = np.concatenate(
        [
            pts,
            zones[1, :2] + zones[1, 2] * np.c_[np.cos(a), np.sin(a)],
            excl[2, :2] + excl[2, 2] * np.c_[np.cos(a), np.sin(a)],
            np.c_[np.full(50, box[2]), rng.uniform(box[1], box[3], 50)],
        ]
    )
    for nt in (1, 2):
        got = _goal_keep(pts, pts.shape[0], box, zones, zt, nt, excl, exy, exst, exbox)
        want = np.array([_in_goal_ref(x, y, box, zones, zt, nt, excl, exy, exst) for x, y in pts])
        assert np.array_equal(got, want)
        assert 100 < want.sum() < want.size - 100  # both answers, many times
        # the points read are pts[:n] only
        assert np.array_equal(_goal_keep(pts, 700, box, zones, zt, nt, excl, exy, exst, exbox), want[:700])


@pytest.mark.parametrize("seed", range(4))
def test_off_edge_is_the_hypot_gap_past_on_edge(seed: int) -> None:
    rng = np.random.default_rng(seed)
    xy, st = _rings(rng, 6)
    pts = _edge_points(rng, xy, st)
    near = 0
    for p in range(st.size - 1):
        s, e = int(st[p]), int(st[p + 1])
        for x, y in pts:
            want = _gap_ref(x, y, xy, s, e) > ON_EDGE
            assert _off_edge(x, y, xy, s, e) == want
            assert (_ring_gap(x, y, xy, s, e) > ON_EDGE) == want
            near += abs(_gap_ref(x, y, xy, s, e) - ON_EDGE) < 1e-12
    assert near > 50  # points in the band the squares leave to hypot


@pytest.mark.parametrize("seed", range(4))
def test_even_odd_inside_without_the_modulo(seed: int) -> None:
    rng = np.random.default_rng(seed)
    xy, st = _rings(rng, 6)
    # the vertices' own rows (a horizontal through a vertex), the edges, random points
    pts = np.concatenate([xy, _edge_points(rng, xy, st), rng.uniform(0, 20, (2000, 2))])
    pts = np.concatenate([pts, np.c_[rng.uniform(0, 20, xy.shape[0]), xy[:, 1]]])
    # points on the edges' own lines, as rounding puts them (where the order of an edge's ends decides)
    nxt = np.concatenate([np.roll(xy[s:e], -1, axis=0) for s, e in itertools.pairwise(st)])
    t = rng.uniform(0, 1, (xy.shape[0], 20, 1))
    pts = np.concatenate([pts, (xy[:, None, :] + t * (nxt - xy)[:, None, :]).reshape(-1, 2)])
    hits = 0
    for p in range(st.size - 1):
        s, n = int(st[p]), int(st[p + 1] - st[p])
        for x, y in pts:
            want = _inside_ref(x, y, xy, s, n)
            assert _inside(x, y, xy, s, n) == want
            hits += want
    assert hits > 200
