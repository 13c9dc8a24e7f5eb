"""The exact engine in O(n) memory (issue 27 point 3): binomial pmfs per pool size, never an (n+1)^2 table.

A naive reference (the engine's former algorithm: a whole Pascal table and (pool+1)^2 matrices) gives the
same pmfs within 1e-12 on random Batches, small pools and pools past ``PASCAL_MAX`` (the mode-outwards path).
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer.dice import SDice
from mathhammer.starcraft import exact
from mathhammer.starcraft.compiled import CompiledBatch, compile_attack
from mathhammer.starcraft.exact import batch_dice_pmf, binomial_pmf, exact_tally
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
from tests.test_exact import make_cb


def naive_table(sixths: int, n: int) -> np.ndarray:
    p, q = sixths / 6.0, (6 - sixths) / 6.0
    table = np.zeros((n + 1, n + 1))
    table[0, 0] = 1.0
    for row in range(1, n + 1):
        prev = table[row - 1, :row]
        table[row, :row] = prev * q
        table[row, 1 : row + 1] += prev * p
    return table


def naive_dice_pmf(cb: CompiledBatch) -> np.ndarray:
    """8.7.4 steps 1-4 with whole tables and (pool+1)^2 matrices (the former engine, kept as the reference)."""
    pool, total = cb.max_pool, cb.total_dice
    succ = np.ones(1)
    for n, t in zip(cb.n_dice.tolist(), cb.hit_target.tolist(), strict=True):
        if n > 0:
            succ = np.convolve(succ, naive_table(7 - int(t), n)[n])
    s = np.arange(total + 1)
    hits = s + np.minimum(cb.precision, total - s) + cb.auto_hits
    p_a = np.bincount(hits, weights=succ, minlength=pool + 1)
    joint = np.zeros((pool + 1, pool + 1))  # [m, r]
    for a in range(pool + 1):
        for sv, ps in enumerate(cb.surge_pmf.tolist()):
            m = max(0, min(sv + cb.critical, a) - cb.dodge)
            joint[m, a - m] += p_a[a] * ps
    fail = naive_table(cb.armour_target - 1, pool)
    if cb.tough > 0:
        tough = np.zeros_like(fail)
        keep = min(cb.tough + 1, pool + 1)
        tough[:, 0] = fail[:, :keep].sum(axis=1)
        tough[:, 1 : pool + 2 - keep] = fail[:, keep:]
        fail = tough
    joint_mf = joint @ fail
    dice = np.zeros(pool + 1)
    for m in range(pool + 1):
        dice[m:] += joint_mf[m, : pool + 1 - m]
    if cb.evade:
        dice = dice @ naive_table(cb.evade_target - 1, pool)
    return dice


@pytest.mark.parametrize("n", [0, 1, 7, 40, 1024, 1025, 3000])
@pytest.mark.parametrize("sixths", [0, 1, 3, 5, 6])
def test_binomial_pmf_matches_the_formula(sixths, n):
    """Both paths (Pascal up to PASCAL_MAX, mode-outwards beyond) give C(n, k) p^k q^(n-k), summing to 1."""
    p = sixths / 6
    k = np.arange(n + 1)
    with np.errstate(divide="ignore"):
        logs = np.array([math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) for j in k])
        logs += k * np.log(p) + (n - k) * np.log(1 - p) if 0 < sixths < 6 else 0
    expected = np.exp(logs) if 0 < sixths < 6 else (k == (n if sixths == 6 else 0)).astype(float)
    got = binomial_pmf(sixths, n)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)
    assert abs(got.sum() - 1.0) <= 1e-13
    assert not got.flags.writeable


def test_pascal_path_is_bit_identical_to_the_former_table():
    for sixths in (1, 2, 4):
        np.testing.assert_array_equal(binomial_pmf(sixths, 300), naive_table(sixths, 300)[300])


batches = st.builds(
    lambda n_dice, hit, auto, precision, surge, critical, dodge, armour, tough, evade, evade_target: make_cb(
        n_dice,
        hit,
        auto_hits=auto,
        precision=precision,
        surge=None if surge is None else SDice.parse(surge),
        critical=critical,
        dodge=dodge,
        armour_target=armour,
        tough=tough,
        evade=evade,
        evade_target=evade_target,
    ),
    st.tuples(st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.integers(2, 6), st.integers(2, 6)),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([None, "1", "D3", "D6+1", "2D3"]),
    st.integers(0, 2),
    st.integers(0, 2),
    st.integers(2, 6),
    st.integers(0, 3),
    st.booleans(),
    st.integers(2, 6),
)


@settings(max_examples=60, deadline=None)
@given(batches)
def test_dice_pmf_equals_the_naive_reference(cb):
    np.testing.assert_allclose(exact._dice_pmf(cb), naive_dice_pmf(cb), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "features",
    [
        {"armour_target": 4},
        {"armour_target": 3, "surge": "D6+1", "critical": 1, "tough": 2, "evade": True, "evade_target": 5},
        {"armour_target": 5, "precision": 3, "dodge": 1, "evade": True, "evade_target": 3},
    ],
)
def test_large_pools_equal_the_naive_reference(features):
    """Pools past PASCAL_MAX (the mode-outwards binomials, the windows at TINY) still agree within 1e-12."""
    features = dict(features)
    surge = features.pop("surge", None)
    cb = make_cb((900, 400), (4, 3), surge=None if surge is None else SDice.parse(surge), **features)
    assert cb.max_pool > exact.PASCAL_MAX
    np.testing.assert_allclose(exact._dice_pmf(cb), naive_dice_pmf(cb), rtol=0, atol=1e-12)


def test_a_thousand_models_at_roa_99_in_little_memory():
    """999 models x RoA 99 (a pool of 98,901 dice; the former table asked for 128 GiB): well under 2 GB."""
    attack = Attack((Batch(Weapon.build(roa=99, hit=4, surge="Light:D3"), models=999),), Target.build(10, 2))
    bs, target = compile_attack(attack)
    exact._PMF_CACHE.clear()
    exact._binomial_pmf.cache_clear()
    tracemalloc.start()
    try:
        tally = exact_tally(bs, target)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, peak
    assert abs(tally.damage.sum() - 1.0) <= 1e-12
    assert tally.models_destroyed[-1] > 1 - 1e-12  # 10 models of 2 HP against ~25,000 Damage
    pmf = batch_dice_pmf(bs[0])
    mean = float(np.arange(pmf.size) @ pmf)
    assert mean == pytest.approx(999 * 99 * 0.5 * 0.5, rel=1e-3)  # hits at 4+, then failed Armour at 4+
