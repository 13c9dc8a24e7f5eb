"""``fastplace.set_verdicts`` (the Deploy entries an automatic player's menus refuse at once: ``DeployRefusals``)
against a naive reading that tests every base of the state at every spot of the grid. 8.5.3: a base may not be set
overlapping another or closer than the spacing (``apart``), nor Within 1" of an Enemy Ground unit (``eng``); the grid
keeps the unit's models together (a spot farther than one step and 2" from every model set is passed over). The
bases here are set at random about the spots, many at gaps within a hair of ``apart`` and of 1", enemies and friends
alike (a reading that left out a base that could decide a spot, or misread a threshold, changes a verdict: a filter of
the bases by the spots' box without the 1" margin fails 6 of the 6 seeds: the kernel reads such a box, checked).
``fastplace.clear`` (a formation's spots against the other units' bases) likewise: its placements left out by their
discs (a limit without the enemy's 1", or a margin short of the limits, fails 2-4 of the 6 seeds, checked)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS
from mathhammer.scenario.fastnear import Centres
from mathhammer.scenario.fastplace import TOL, clear, set_verdicts
from mathhammer.scenario.geometry.routes import GAP


def _naive(spots, terr, nspots, models, r, step, cs, rs, enemy, starts, apart, eng, tol) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The walk with every base of the state read at every spot: 1 cannot be set, 0 can, -1 a gap too near a
    threshold to say (each gap the centre distance less one radius, then the other)."""
    n_t, n_e = starts.size - 1, spots.shape[0]
    out = np.zeros((n_t, n_e), dtype=np.int8)

    def test(x: float, y: float, lo: int, hi: int, mine: list[tuple[float, float]]) -> int:
        unsure = False
        for j in range(lo, hi):
            g = math.sqrt((x - cs[j, 0]) ** 2 + (y - cs[j, 1]) ** 2) - r - rs[j]
            if g < apart - tol or (enemy[j] and g <= eng - tol):
                return 1
            unsure |= abs(g - apart) <= tol or bool(enemy[j] and abs(g - eng) <= tol)
        for mx, my in mine:
            g = math.sqrt((x - mx) ** 2 + (y - my) ** 2) - r - r
            if g < apart - tol:
                return 1
            unsure |= abs(g - apart) <= tol
        return -1 if unsure else 0

    for t in range(n_t):
        lo, hi = int(starts[t]), int(starts[t + 1])
        for e in range(n_e):
            if not terr[e, 0]:
                out[t, e] = 1
                continue
            x0, y0 = float(spots[e, 0, 0]), float(spots[e, 0, 1])
            v = test(x0, y0, lo, hi, [])
            if v != 0:
                out[t, e] = v
                continue
            mine = [(x0, y0)]
            verdict = 0
            for s in range(1, int(nspots[e])):
                if len(mine) == models:
                    break
                if not terr[e, s]:
                    continue
                x, y = float(spots[e, s, 0]), float(spots[e, s, 1])
                v = test(x, y, lo, hi, mine)
                if v == 1:
                    continue
                if v == -1:
                    verdict = -1
                    break
                near = min(math.sqrt((x - mx) ** 2 + (y - my) ** 2) for mx, my in mine)
                if abs(near - (step + 2.0)) <= tol:
                    verdict = -1
                    break
                if near > step + 2.0:
                    continue
                mine.append((x, y))
            out[t, e] = 1 if verdict == 0 and len(mine) < models else verdict
    return out


@pytest.mark.parametrize("seed", range(6))
def test_set_verdicts_read_the_bases_near_each_entry_as_all_of_them(seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = 0.5 + 0.5 * rng.random()  # the deploying unit's base radius
    step = 2 * r + GAP
    models = int(rng.integers(3, 8))
    n_e, width = 12, 10
    spots = np.zeros((n_e, width, 2))
    nspots = rng.integers(models, width + 1, size=n_e)
    for e in range(n_e):  # each entry: a Leading Model's point and a grid of spots behind it
        x0, y0 = rng.uniform(5, 40), rng.uniform(5, 25)
        spots[e, 0] = (x0, y0)
        for s in range(1, width):  # rows of three behind the Leading Model, one step apart
            spots[e, s] = (x0 + step * ((s - 1) % 3 - 1), y0 - step * ((s - 1) // 3 + 1))
    terr = rng.random((n_e, width)) > 0.1
    cs_rows: list[tuple[float, float]] = []
    rs_list: list[float] = []
    foe: list[bool] = []
    starts = [0]
    near_threshold = 0
    for _ in range(25):  # states
        for _ in range(int(rng.integers(0, 14))):
            e, s = int(rng.integers(n_e)), int(rng.integers(width))
            rad = float(rng.choice([0.5, 0.63, 0.98, 1.57]))
            enemy = bool(rng.random() < 0.5)
            # a gap edge to edge from the spot: past 1", within a hair of 1" or of the spacing, or anywhere near
            pick = rng.random()
            if pick < 0.3:
                gap = ENGAGEMENT_RANGE + EPS + float(rng.choice([-1e-3, 1e-3, 0.2, 0.9]))
            elif pick < 0.5:
                gap = GAP / 2 + float(rng.choice([-1e-3, 1e-3]))
            else:
                gap = float(rng.uniform(0, 6))
            a = rng.uniform(0, 2 * math.pi)
            d = r + rad + gap
            cs_rows.append((spots[e, s, 0] + d * math.cos(a), spots[e, s, 1] + d * math.sin(a)))
            rs_list.append(rad)
            foe.append(enemy)
            near_threshold += 0.9 < gap < 2.1
        starts.append(len(cs_rows))
    cs = np.asarray(cs_rows, dtype=float).reshape(-1, 2)
    args = (spots, terr, nspots, models, r, step, cs, np.asarray(rs_list), np.asarray(foe, dtype=bool))
    more = (np.asarray(starts, dtype=np.int64), GAP / 2, ENGAGEMENT_RANGE + EPS)
    got = set_verdicts(*args, *more)
    want = _naive(*args, *more, TOL)
    assert np.array_equal(got, want)
    assert near_threshold > 10 and len({int(v) for v in want.ravel()}) >= 2, (near_threshold, np.unique(want))


def _naive_clear(spots: np.ndarray, r: float, pids: list[int], foe: np.ndarray, packed: Centres) -> int:
    """``fastplace.clear`` with every base of every placement read at every spot: 1 a gap past a limit by more than
    ``TOL``, else 2 one within ``TOL`` of it, else 0."""
    starts, xy, rads = packed.arrays()
    apart, eng, unsure = GAP / 2, ENGAGEMENT_RANGE + EPS, False
    for p in pids:
        for x, y in spots.tolist():
            for j in range(int(starts[p]), int(starts[p + 1])):
                g = math.sqrt((x - xy[j, 0]) ** 2 + (y - xy[j, 1]) ** 2) - r - rads[p]
                if g < apart - TOL or (foe[p] and g <= eng - TOL):
                    return 1
                unsure |= abs(g - apart) <= TOL or bool(foe[p] and abs(g - eng) <= TOL)
    return 2 if unsure else 0


@pytest.mark.parametrize("seed", range(6))
def test_clear_leaves_out_only_placements_that_cannot_decide(seed: int) -> None:
    """``fastplace.clear`` (the formation's spots against the bases of the other units, 8.5.3 and 8.7.7) == every base
    read at every spot, with placements of 1-10 models about the spots, many at gaps within a hair of ``GAP / 2`` and
    of 1" (a placement whose disc is far from the spots is left out: one left out that could decide a spot changes an
    answer); each answer occurs."""
    rng = np.random.default_rng(seed)
    seen = {0: 0, 1: 0, 2: 0}
    for _ in range(300):
        packed = Centres()
        r = float(rng.choice([0.3, 0.5, 0.8]))
        spots = rng.uniform(10, 14, size=(int(rng.integers(1, 8)), 2))
        placements, rads = [], []
        for _ in range(int(rng.integers(1, 12))):
            orad = float(rng.choice([0.3, 0.5, 0.8]))
            centre = spots[rng.integers(spots.shape[0])]
            models = []
            for _ in range(int(rng.integers(1, 11))):
                angle = rng.uniform(0, 2 * math.pi)
                limit = float(rng.choice([GAP / 2, ENGAGEMENT_RANGE + EPS, 3.0, 9.0]))
                d = r + orad + limit + float(rng.choice([0.0, TOL / 2, -TOL / 2, 2 * TOL, rng.uniform(-1, 4)]))
                models.append((float(centre[0] + d * math.cos(angle)), float(centre[1] + d * math.sin(angle))))
            placements.append(tuple(models))
            rads.append(orad)
        packed.extend(placements, rads)
        foe = rng.random(len(placements)) < 0.5
        pids = [int(p) for p in rng.permutation(len(placements))[: int(rng.integers(1, len(placements) + 1))]]
        want = _naive_clear(spots, r, pids, foe, packed)
        got = clear(
            np.ascontiguousarray(spots),
            r,
            np.asarray(pids, dtype=np.int64),
            foe,
            packed,
            GAP / 2,
            ENGAGEMENT_RANGE + EPS,
        )
        assert got == want
        seen[want] += 1
    assert min(seen.values()) > 10, seen
