"""The compiled reads behind an automatic player's shortcuts (``Legality.shortcuts_many``: 8.5.3 a Move or Run point
beyond the most Speed in a straight line; 8.7.3, 8.7.7 a target beyond the farthest gap its action may reach) against
plain numpy readings, to the bit: ``Centres.least_many`` (the least centre distance between the models left of two
placements) and ``Centres.beyond_many`` (a menu point farther than a Speed from the Leading Model). Both kernels skip
``hypot`` where the summed squares already answer; the cases put distances within a hair of the answer's limit (a
nearest pair read after one a hair farther, points at the Speed + 1e-9 and a hair either side), where a skip read too
loosely changes an answer (checked: ``least_many`` skipping pairs within 0.1% of the least so far fails 4 of the 4
seeds; ``beyond_many`` calling True a point within 1e-9 below the limit fails 4, comparing the squares with no margin
fails 3)."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario.fastnear import Centres

EPS = 1e-9


def _centres(rng: np.random.Generator, placements: int) -> tuple[Centres, list[np.ndarray]]:
    c = Centres()
    sets = []
    for _ in range(placements):
        k = int(rng.integers(1, 7))
        lead = rng.uniform(0, 44, 2)
        pts = lead + rng.uniform(-3, 3, (k, 2))
        sets.append(pts)
    c.extend([[tuple(p) for p in s] for s in sets], [0.5] * placements)
    return c, sets


@pytest.mark.parametrize("seed", range(4))
def test_least_many_is_the_least_hypot_of_the_models_left(seed: int) -> None:
    rng = np.random.default_rng(seed)
    c, sets = _centres(rng, 40)
    # near ties: a placement whose first model is a hair (1e-6") farther from placement 0's first model than its
    # second: the least is read at the second
    d0 = float(np.hypot(*(sets[1][0] - sets[0][0])))
    a = rng.uniform(0, 2 * np.pi)
    far = sets[0][0] + (d0 + 1e-6) * np.array([np.cos(a), np.sin(a)])
    c.extend([[tuple(far), tuple(sets[1][0])]], [0.5])
    sets.append(np.array([far, sets[1][0]]))
    n = len(sets)
    pa, pb = rng.integers(0, n, 500), rng.integers(0, n, 500)
    pa[:5], pb[:5] = 0, n - 1
    ka = np.array([rng.integers(0, len(sets[p]) + 1) for p in pa])
    kb = np.array([rng.integers(0, len(sets[p]) + 1) for p in pb])
    ka[:5], kb[:5] = 1, 2
    got = c.least_many(pa, ka, pb, kb)
    want = np.full(pa.size, np.inf)
    for i, (x, y, m, k) in enumerate(zip(pa, pb, ka, kb, strict=True)):
        if m and k:
            A, B = sets[x][:m], sets[y][:k]
            want[i] = np.hypot(A[:, None, 0] - B[None, :, 0], A[:, None, 1] - B[None, :, 1]).min()
    assert np.array_equal(got, want)
    assert np.isinf(want).any() and np.isfinite(want).sum() > 200


@pytest.mark.parametrize("seed", range(4))
def test_least_many_read_between_a_floor_and_a_ceiling_tells_every_reach_between_as_the_least(seed: int) -> None:
    """``least_many`` with ``rad``, ``floor`` and ``ceil`` (``Legality.shortcuts_many``: 8.7.3 a Shoot, 8.7.7 a Charge
    target beyond the farthest gap its entries may reach, its gap read against their reaches only): every reach from
    the floor to the ceiling finds the answer less ``rad`` beyond it exactly where the least's is, on rows whose least
    gap is a hair either side of the floor or the ceiling (so both shortcuts are taken and passed up by a hair)."""
    rng = np.random.default_rng(seed)
    c, sets = _centres(rng, 40)
    n = 600
    pa, pb = rng.integers(0, 40, n), rng.integers(0, 40, n)
    ka = np.array([rng.integers(1, len(sets[p]) + 1) for p in pa])
    kb = np.array([rng.integers(1, len(sets[p]) + 1) for p in pb])
    least = c.least_many(pa, ka, pb, kb)
    rad = rng.uniform(0.3, 1.5, n)
    gap = least - rad
    hair = rng.choice([-1e-9, -1e-12, 0.0, 1e-12, 1e-9, 0.5, -0.5, 3.0, -3.0, -8.0], (n, 2))
    floor = gap + hair[:, 0] - rng.uniform(0, 2, n) * (rng.random(n) < 0.3)
    ceil = np.maximum(floor, gap + hair[:, 1] + rng.uniform(0, 2, n) * (rng.random(n) < 0.3))
    got = c.least_many(pa, ka, pb, kb, (rad, floor, ceil))
    for i in range(n):
        reaches = {floor[i], ceil[i], (floor[i] + ceil[i]) / 2}
        reaches |= {float(np.clip(gap[i] + h, floor[i], ceil[i])) for h in (-1e-12, 0.0, 1e-12)}
        for reach in reaches:
            assert (got[i] - rad[i] > reach) == (gap[i] > reach), (i, reach)
    cut_short = np.isfinite(got) & (got > least)
    left_out = np.isinf(got) & np.isfinite(least)
    assert cut_short.sum() > 20 and left_out.sum() > 20 and (got == least).sum() > 100


@pytest.mark.parametrize("seed", range(4))
def test_beyond_many_is_numpys_hypot_against_the_speed(seed: int) -> None:
    rng = np.random.default_rng(seed)
    c, sets = _centres(rng, 30)
    pids = rng.integers(0, 30, 60).astype(np.int64)
    pts = rng.uniform(0, 44, (80, 2))
    pts[rng.random(80) < 0.1] = np.inf  # entries with no point
    caps = rng.choice([4.0, 6.0, 7.5, 12.0], 80)
    at_limit = 0
    for _ in range(40):  # points at the Speed from a Leading Model, either side of it by a hair or on it
        e, i = int(rng.integers(80)), int(rng.integers(60))
        if not np.isfinite(pts[e, 0]):
            continue
        a = rng.uniform(0, 2 * np.pi)
        r = caps[e] + EPS + float(rng.choice([-1e-15, 0.0, 1e-15, 2e-9]))
        pts[e] = sets[pids[i]][0] + r * np.array([np.cos(a), np.sin(a)])
        at_limit += 1
    got = c.beyond_many(pids, pts, caps, EPS)
    lead = np.array([sets[p][0] for p in pids])
    d = np.hypot(pts[None, :, 0] - lead[:, :1], pts[None, :, 1] - lead[:, 1:])
    want = (d > caps[None, :] + EPS) & np.isfinite(d)
    assert np.array_equal(got, want)
    assert at_limit > 20 and want.any() and (~want).any()
