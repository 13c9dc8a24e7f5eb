"""Tests of the exact engine (mathhammer.starcraft.exact) against hand-computed numbers.

Every test names the rule it checks: rulebook section 8.7.4 (ranged attack
resolution, steps 1-5), 8.7.3 (Batch sequence), part 11 (keywords) and the
official FAQ v1.0. Hand computations are written out in the comments.
"""

from __future__ import annotations

import statistics
import timeit
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer.starcraft import exact
from mathhammer.starcraft.compiled import ALL_VISIBLE, CompiledBatch, compile_attack, damage_bound, marker_bound
from mathhammer.starcraft.exact import batch_dice_pmf, binomial_table, exact_tally
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
from tests.chains import compiled_batches

# ----------------------------------------------------------------------------- helpers


def compiled(weapon: Weapon, target: Target, models: int = 1) -> tuple[tuple[CompiledBatch, ...], object]:
    return compile_attack(Attack((Batch(weapon, models=models),), target))


def dice_pmf(weapon: Weapon, target: Target, models: int = 1) -> np.ndarray:
    batches, _ = compiled(weapon, target, models)
    assert len(batches) == 1
    return batch_dice_pmf(batches[0])


def sure_damage(n: int, damage: int = 1) -> Weapon:
    """A weapon whose Damage Pool holds exactly ``n`` dice against a Light target without Evade.

    PRECISION (n) puts all n dice in the Armour Pool (part 11) and a fixed
    Surge result n moves all of them to the Damage Pool (8.7.4 step 2).
    """
    return Weapon.build(roa=n, hit=2, damage=damage, surge=f"Light:{n}", keywords=[f"PRECISION ({n})"])


def mean(pmf: np.ndarray) -> float:
    return float(np.dot(np.arange(pmf.size), pmf))


def assert_pmf(pmf: np.ndarray, expected: list[float], tol: float = 1e-12) -> None:
    assert abs(pmf.sum() - 1.0) <= 1e-12
    np.testing.assert_allclose(pmf[: len(expected)], expected, rtol=0, atol=tol)
    assert np.all(np.abs(pmf[len(expected) :]) <= tol)


def assert_tally_sums(tally) -> None:
    for h in (tally.damage, tally.models_destroyed, tally.marker, tally.shielded):
        assert abs(h.sum() - 1.0) <= 1e-12
        assert np.all(h >= 0)
    assert tally.trials == 0 and tally.exact


def make_cb(
    n_dice=(1,),
    hit_target=(4,),
    *,
    auto_hits=0,
    precision=0,
    surge=None,
    critical=0,
    dodge=0,
    armour_target=4,
    tough=0,
    evade=False,
    evade_target=6,
    damage=1,
) -> CompiledBatch:
    return CompiledBatch(
        "test",
        np.asarray(n_dice, dtype=np.int64),
        np.asarray(hit_target, dtype=np.int64),
        auto_hits,
        precision,
        surge,
        critical,
        dodge,
        armour_target,
        tough,
        evade,
        evade_target,
        damage,
        0,
        0,
        ALL_VISIBLE,
    )


def slow_dice_pmf(cb: CompiledBatch) -> dict[int, Fraction]:
    """An independent reading of the 5-step procedure in exact fractions, die by die."""
    six = Fraction(1, 6)

    def bern_sum(dist: dict[int, Fraction], p: Fraction, n: int) -> dict[int, Fraction]:
        for _ in range(n):
            nxt: dict[int, Fraction] = {}
            for k, q in dist.items():
                nxt[k + 1] = nxt.get(k + 1, 0) + q * p
                nxt[k] = nxt.get(k, 0) + q * (1 - p)
            dist = nxt
        return dist

    succ: dict[int, Fraction] = {0: Fraction(1)}
    for n, t in zip(cb.n_dice.tolist(), cb.hit_target.tolist(), strict=True):
        succ = bern_sum(succ, (7 - t) * six, n)
    total = cb.total_dice
    pool: dict[int, Fraction] = {}
    for s, q in succ.items():
        a = s + min(cb.precision, total - s) + cb.auto_hits
        pool[a] = pool.get(a, 0) + q
    if cb.surge is None:
        surge = {0: Fraction(1)}
    else:
        sd = cb.surge
        surge = {sd.bonus: Fraction(1)}
        for _ in range(sd.n):
            nxt: dict[int, Fraction] = {}
            for v, q in surge.items():
                for face in range(1, sd.sides + 1):
                    nxt[v + face] = nxt.get(v + face, 0) + q * Fraction(1, sd.sides)
            surge = nxt
    out: dict[int, Fraction] = {}
    for a, qa in pool.items():
        for s, qs in surge.items():
            moved = max(0, min(s + cb.critical, a) - cb.dodge)
            fails = bern_sum({0: Fraction(1)}, (cb.armour_target - 1) * six, a - moved)
            for f, qf in fails.items():
                d = moved + max(0, f - cb.tough)
                left = bern_sum({0: Fraction(1)}, (cb.evade_target - 1) * six, d) if cb.evade else {d: Fraction(1)}
                for k, qk in left.items():
                    out[k] = out.get(k, 0) + qa * qs * qf * qk
    return out


# ----------------------------------------------------------------------------- binomial table


def test_binomial_table_rows_are_exact_binomials():
    """The Pascal-style table matches C(n, k) p^k (1-p)^(n-k) and rows sum to 1."""
    from math import comb

    table = binomial_table(2, 40)
    for n in (0, 1, 7, 40):
        expected = [comb(n, k) * (2 / 6) ** k * (4 / 6) ** (n - k) for k in range(n + 1)]
        np.testing.assert_allclose(table[n, : n + 1], expected, rtol=1e-12, atol=1e-300)
        assert abs(table[n].sum() - 1.0) <= 1e-13


# ----------------------------------------------------------------------------- 8.7.4 steps 1-5, hand computed


def test_one_die_hit_then_armour_destroys_one_model_at_one_in_four():
    """8.7.4 steps 1, 3, 5: Hit 4+ (1/2) then a failed Armour 4+ roll (1/2) deals the 1 Damage."""
    batches, target = compiled(Weapon.build(roa=1, hit=4), Target.build(1, 1, armour=4))
    assert_pmf(batch_dice_pmf(batches[0]), [0.75, 0.25])
    tally = exact_tally(batches, target)
    assert_pmf(tally.models_destroyed, [0.75, 0.25])
    assert_pmf(tally.damage, [0.75, 0.25])
    assert_pmf(tally.marker, [1.0])
    assert_tally_sums(tally)


def test_precision_moves_a_failed_hit_into_the_armour_pool():
    """Part 11 PRECISION (1): one failed Hit die still goes to the Armour Pool, so only Armour 4+ matters."""
    pmf = dice_pmf(Weapon.build(roa=1, hit=4, keywords=["PRECISION (1)"]), Target.build(armour=4))
    assert_pmf(pmf, [0.5, 0.5])


def test_precision_is_capped_by_failures():
    """Part 11 PRECISION (X): only failed dice move, so 2 dice with PRECISION (5) still give 2 hits, never more.

    Hit 6+ with 2 dice, PRECISION (5), Armour 2+ fails 1/6 per die: D ~ Binomial(2, 1/6).
    """
    pmf = dice_pmf(Weapon.build(roa=2, hit=6, keywords=["PRECISION (5)"]), Target.build(armour=2))
    assert_pmf(pmf, [25 / 36, 10 / 36, 1 / 36])


def test_surge_matching_one_die():
    """8.7.4 step 2: a matching Surge (D3 >= 1) moves the only hit straight to the Damage Pool.

    1 die Hit 2+, Armour 2+: with Surge P(D=1) = 5/6; without (non-matching tag) 5/6 * 1/6.
    """
    weapon = Weapon.build(roa=1, hit=2, surge="Light:D3")
    assert_pmf(dice_pmf(weapon, Target.build(armour=2, tags="Light")), [1 / 6, 5 / 6])
    assert_pmf(dice_pmf(weapon, Target.build(armour=2, tags="Armoured")), [1 - 5 / 36, 5 / 36])


def test_surge_d3_three_dice_hand_computed_mean():
    """8.7.4 step 2, Surge D3 matching, 3 dice Hit 2+, Armour 2+, no Evade.

    A ~ Binomial(3, 5/6); moved = min(S, A); D = moved + Binomial(A - moved, 1/6), so
    E[D] = E[A]/6 + 5/6 E[min(S, A)], with E[min(S, A)] = P(A>=1) + 2/3 P(A>=2) + 1/3 P(A>=3)
    = (215 + 400/3 + 125/3)/216 = 65/36 and E[A] = 5/2: E[D] = 15/36 + 325/216 = 415/216.
    D = 0 only when A = 0: 1/216.
    """
    weapon = Weapon.build(roa=3, hit=2, surge="Light:D3")
    pmf = dice_pmf(weapon, Target.build(armour=2, tags="Light"))
    assert abs(mean(pmf) - 415 / 216) <= 1e-12
    assert abs(pmf[0] - 1 / 216) <= 1e-15
    # P(D=3): A=3 (125/216) and then S=3 (1/3), or S=2 and the last armour roll fails (1/3 * 1/6),
    # or S=1 and both fail (1/3 * 1/36); A=2 or less cannot reach 3.
    assert abs(pmf[3] - 125 / 216 * (1 / 3 + 1 / 18 + 1 / 108)) <= 1e-15
    # Non-matching tag: Surge is ignored, D ~ Binomial(3, 5/6 * 1/6).
    plain = dice_pmf(weapon, Target.build(armour=2, tags="Biological"))
    assert abs(mean(plain) - 3 * 5 / 36) <= 1e-12


def test_critical_hit_moves_a_hit_without_surge():
    """Part 11 CRITICAL HIT (1): 1 die Hit 4+, Armour 2+: the hit always reaches the Damage Pool (1/2),
    against 1/2 * 1/6 without the keyword."""
    target = Target.build(armour=2)
    assert_pmf(dice_pmf(Weapon.build(roa=1, hit=4, keywords=["CRITICAL HIT (1)"]), target), [0.5, 0.5])
    assert_pmf(dice_pmf(Weapon.build(roa=1, hit=4), target), [11 / 12, 1 / 12])


def test_dodge_reduces_the_combined_number_moved():
    """8.7.4 step 2 with part 11 DODGE (X), this project's reading: the combined Surge + CRITICAL HIT total.

    3 sure hits (PRECISION (3)), Surge fixed 2 and CRITICAL HIT (1) against DODGE (1):
    moved = min(2 + 1, 3) - 1 = 2, one die rolls Armour 2+ (fails 1/6): D = 2 + Bernoulli(1/6).
    (Reducing each source on its own would move 1 + 0 and give D = 1 + Binomial(2, 1/6).)
    """
    weapon = Weapon.build(roa=3, hit=4, surge="Light:2", keywords=["PRECISION (3)", "CRITICAL HIT (1)"])
    target = Target.build(armour=2, tags="Light", keywords=["DODGE (1)"])
    assert_pmf(dice_pmf(weapon, target), [0, 0, 5 / 6, 1 / 6])


def test_dodge_never_below_zero():
    """Part 11 DODGE (X): the dice moved never go negative; DODGE (3) against CRITICAL HIT (1) moves none.

    2 sure hits then Armour 4+: D ~ Binomial(2, 1/2).
    """
    weapon = Weapon.build(roa=2, hit=4, keywords=["PRECISION (2)", "CRITICAL HIT (1)"])
    target = Target.build(armour=4, keywords=["DODGE (3)"])
    assert_pmf(dice_pmf(weapon, target), [0.25, 0.5, 0.25])


def test_tough_turns_failed_armour_rolls_into_successes():
    """8.7.4 step 3 with part 11 TOUGH (1): 2 sure hits, Armour 4+; D = max(0, Binomial(2, 1/2) - 1)."""
    weapon = Weapon.build(roa=2, hit=4, keywords=["PRECISION (2)"])
    assert_pmf(dice_pmf(weapon, Target.build(armour=4, keywords=["TOUGH (1)"])), [0.75, 0.25])
    # TOUGH larger than the pool: nothing gets through.
    assert_pmf(dice_pmf(weapon, Target.build(armour=4, keywords=["TOUGH (5)"])), [1.0])


def test_tough_does_not_touch_surge_moved_dice():
    """8.7.4 steps 2-3: dice moved by Surge skip the Armour Rolls, so TOUGH cannot save them."""
    weapon = sure_damage(2)
    assert_pmf(dice_pmf(weapon, Target.build(armour=2, tags="Light", keywords=["TOUGH (2)"])), [0, 0, 1.0])


def test_evade_rolls_against_surge_dice():
    """8.7.4 step 4 and FAQ v1.0 (Evade works against Surge): a Surge-moved die is still evaded on 4+."""
    target = Target.build(armour=2, evade=4, tags="Light", evade_eligible=True)
    assert_pmf(dice_pmf(sure_damage(1), target), [0.5, 0.5])
    # Without Evade eligibility the die always lands.
    assert_pmf(dice_pmf(sure_damage(1), Target.build(armour=2, evade=4, tags="Light")), [0, 1.0])


def test_evade_target_clamps_to_six():
    """Part 11 MODIFIER / ANTI-EVADE: Evade 6+ with ANTI-EVADE (1) would be 7+, clamped to 6+;
    a natural 6 still evades, so the die lands with 5/6."""
    weapon = Weapon.build(roa=1, hit=2, surge="Light:1", keywords=["PRECISION (1)", "ANTI-EVADE (1)"])
    target = Target.build(armour=2, evade=6, tags="Light", evade_eligible=True)
    assert_pmf(dice_pmf(weapon, target), [1 / 6, 5 / 6])


def test_hit_target_clamps_to_two():
    """Part 11 MODIFIER: BUFF Hit (5) on Hit 4+ clamps to 2+ (a natural 1 always fails).

    1 die, Armour 2+: P(D=1) = 5/6 * 1/6.
    """
    pmf = dice_pmf(Weapon.build(roa=1, hit=4, keywords=["BUFF Hit (5)"]), Target.build(armour=2))
    assert_pmf(pmf, [1 - 5 / 36, 5 / 36])


def test_hits_keyword_dice_skip_the_hit_roll():
    """Part 11 HITS X (Y): X dice straight into the Armour Pool, Damage Y, as a Batch of its own.

    HITS 2 (3) against Armour 4+: dice ~ Binomial(2, 1/2), Damage 3 each.
    """
    weapon = Weapon.build(roa=0, hit=4, keywords=["HITS 2 (3)"])
    batches, target = compiled(weapon, Target.build(3, 3, armour=4))
    assert len(batches) == 1
    assert_pmf(batch_dice_pmf(batches[0]), [0.25, 0.5, 0.25])
    tally = exact_tally(batches, target)
    assert_pmf(tally.damage, [0.25, 0, 0, 0.5, 0, 0, 0.25])
    assert_pmf(tally.models_destroyed, [0.25, 0.5, 0.25, 0])


def test_damage_multiplies_dice():
    """8.7.4 step 5: Damage = dice in the Damage Pool x Damage; 1 die Damage 3 against a 2 HP model
    removes it and the extra 1 is the new Damage Marker (the unit still has a second model)."""
    batches, target = compiled(sure_damage(1, damage=3), Target.build(2, 2, armour=4, tags="Light"))
    tally = exact_tally(batches, target)
    assert_pmf(tally.models_destroyed, [0, 1.0, 0])
    assert_pmf(tally.marker, [0, 1.0])
    assert_pmf(tally.damage, [0, 0, 0, 1.0])
    assert tally.damage.size == damage_bound(batches) + 1 == 4
    assert tally.marker.size == marker_bound(batches, target) + 1


# ----------------------------------------------------------------------------- Shield (FAQ v1.0)


@pytest.mark.parametrize(
    ("dealt", "removed", "marker", "shielded"),
    [(3, 0, 3, True), (4, 0, 4, False), (6, 0, 6, False), (7, 1, 0, False), (11, 2, 0, False)],
)
def test_zealot_shield_numbers(dealt, removed, marker, shielded):
    """FAQ v1.0 Shield: a Zealot (4 HP + Shield 3) takes 7 to remove; SHIELDED is lost at Total Damage 4, not 3.

    Two Zealots: 11 damage removes both (7 + 4).
    """
    batches, target = compiled(sure_damage(dealt), Target.build(2, 4, shield=3, armour=3, tags="Light"))
    tally = exact_tally(batches, target)
    assert tally.models_destroyed[removed] == pytest.approx(1.0, abs=1e-12)
    assert tally.marker[marker] == pytest.approx(1.0, abs=1e-12)
    assert tally.shielded[int(shielded)] == pytest.approx(1.0, abs=1e-12)
    assert_tally_sums(tally)


# ----------------------------------------------------------------------------- chains (8.7.3)


def test_chain_carries_the_damage_marker():
    """8.7.3 Batch sequence: two Batches of 1 sure damage each against one 2 HP model: the first leaves
    a Damage Marker of 1, the second adds to it and removes the model."""
    attack = Attack(
        (Batch(sure_damage(1)), Batch(sure_damage(1))),
        Target.build(1, 2, armour=4, tags="Light"),
    )
    batches, target = compile_attack(attack)
    tally = exact_tally(batches, target)
    assert_pmf(tally.models_destroyed, [0, 1.0])
    assert_pmf(tally.damage, [0, 0, 1.0])
    # One Batch alone leaves the marker at 1.
    one = exact_tally(batches[:1], target)
    assert_pmf(one.models_destroyed, [1.0, 0])
    assert_pmf(one.marker, [0, 1.0])


def test_chain_of_random_batches_hand_computed():
    """8.7.3 with 8.7.4: two Batches of 1 die Hit 4+ Armour 4+ (1 damage each with 1/4) against one 2 HP model.

    Destroyed only if both land: 1/16. Marker 1 if exactly one lands: 2 * 1/4 * 3/4 = 6/16.
    """
    weapon = Weapon.build(roa=1, hit=4)
    batches, target = compile_attack(Attack((Batch(weapon), Batch(weapon)), Target.build(1, 2, armour=4)))
    tally = exact_tally(batches, target)
    assert_pmf(tally.models_destroyed, [15 / 16, 1 / 16])
    assert_pmf(tally.marker, [10 / 16, 6 / 16])
    assert_pmf(tally.damage, [9 / 16, 6 / 16, 1 / 16])
    assert_tally_sums(tally)


def test_chain_after_the_unit_is_gone():
    """8.7.3/8.7.4 step 5: once every model is removed the rest is discarded, and a destroyed unit is no
    longer a target: the later Batches of the chain are not resolved against it and deal no Damage."""
    attack = Attack((Batch(sure_damage(3)), Batch(sure_damage(2))), Target.build(1, 2, armour=4, tags="Light"))
    batches, target = compile_attack(attack)
    tally = exact_tally(batches, target)
    assert_pmf(tally.models_destroyed, [0, 1.0])
    assert_pmf(tally.marker, [1.0])
    assert tally.damage[3] == pytest.approx(1.0, abs=1e-12)


# ----------------------------------------------------------------------------- the reference Batch


def reference(surge: str) -> tuple[tuple[CompiledBatch, ...], object]:
    """10 dice Hit 4+, PRECISION (1), Surge matching, CRITICAL HIT (1), Damage 2, against 5 models of
    2 HP with Shield 2, Armour 4+, TOUGH (1), Evade 5+ (evade eligible)."""
    weapon = Weapon.build(
        "ref", roa=10, hit=4, damage=2, surge=f"Light:{surge}", keywords=["PRECISION (1)", "CRITICAL HIT (1)"]
    )
    target = Target.build(5, 2, shield=2, armour=4, evade=5, tags="Light", keywords=["TOUGH (1)"], evade_eligible=True)
    return compile_attack(Attack((Batch(weapon, models=1),), target))


def test_reference_batch_d6_variant_matches_prototype():
    """8.7.4 steps 1-5 end to end; an earlier prototype (one d6 Surge Die) measured: damage dice after
    Evade mean 3.037 and models destroyed 12.6/23.8/27.9/21.1/10.6/3.9 %."""
    batches, target = reference("D6")
    pmf = batch_dice_pmf(batches[0])
    assert mean(pmf) == pytest.approx(3.037, abs=1e-3)
    tally = exact_tally(batches, target)
    np.testing.assert_allclose(tally.models_destroyed * 100, [12.6, 23.8, 27.9, 21.1, 10.6, 3.9], atol=0.1)
    assert_tally_sums(tally)
    # Damage 2 per die: only even damage values occur.
    assert np.all(tally.damage[1::2] == 0)


def test_reference_batch_d3_matches_fraction_reading():
    """The reference Batch as specified (Surge D3): the numpy engine equals an exact-fraction reading."""
    batches, target = reference("D3")
    pmf = batch_dice_pmf(batches[0])
    slow = slow_dice_pmf(batches[0])
    np.testing.assert_allclose(pmf, [float(slow.get(k, 0)) for k in range(pmf.size)], rtol=1e-12, atol=1e-15)
    assert mean(pmf) == pytest.approx(2.478586, abs=1e-6)
    tally = exact_tally(batches, target)
    assert_tally_sums(tally)
    # SHIELDED (Shield 2, first model 4 HP) survives exactly when no model is removed: Damage is even,
    # so the marker is 0 or 2 and never exceeds the Shield.
    assert tally.shielded[1] == pytest.approx(tally.models_destroyed[0], abs=1e-15)


def test_reference_batch_against_die_by_die_simulation():
    """8.7.4 steps 1-4 simulated die by die (numpy, seeded) agree with the exact pmf within 5 sigma."""
    batches, _ = reference("D3")
    cb = batches[0]
    rng = np.random.default_rng(20261129)
    n = 200_000
    rolls = rng.integers(1, 7, size=(n, 10))
    hits = (rolls >= 4).sum(axis=1)
    hits += np.minimum(1, 10 - hits)  # PRECISION (1)
    surge = rng.integers(1, 4, size=n)
    moved = np.maximum(0, np.minimum(surge + 1, hits) - 0)  # CRITICAL HIT (1), no DODGE
    left = hits - moved
    armour = rng.integers(1, 7, size=(n, 10))
    fails = ((armour < 4) & (np.arange(10) < left[:, None])).sum(axis=1)
    dice = moved + np.maximum(0, fails - 1)  # TOUGH (1)
    evade = rng.integers(1, 7, size=(n, 11))
    dice = ((evade < 5) & (np.arange(11) < dice[:, None])).sum(axis=1)  # Evade 5+
    freq = np.bincount(dice, minlength=cb.max_pool + 1) / n
    pmf = batch_dice_pmf(cb)
    sigma = np.sqrt(pmf * (1 - pmf) / n)
    assert np.all(np.abs(freq - pmf) <= 5 * sigma + 1e-9)


def test_reference_batch_is_fast():
    """At most 1 ms for one exact Batch (the dice pmf, uncached) of the reference Batch, warm."""
    batches, target = reference("D3")
    cb = batches[0]
    exact._dice_pmf(cb)
    times = timeit.repeat(lambda: exact._dice_pmf(cb), number=1, repeat=200)
    assert statistics.median(times) < 1e-3
    times = timeit.repeat(lambda: exact_tally(batches, target), number=1, repeat=200)
    assert statistics.median(times) < 1e-3


# ----------------------------------------------------------------------------- cache


def test_identical_batches_share_the_cached_pmf():
    """Identical CompiledBatch keys give the same (read-only) pmf object."""
    first, _ = reference("D3")
    second, _ = reference("D3")
    assert first[0] is not second[0]
    a = batch_dice_pmf(first[0])
    assert batch_dice_pmf(second[0]) is a
    assert not a.flags.writeable


def test_buff_hit_equals_better_hit_target():
    """Part 11 BUFF Hit (1): Hit 4+ with BUFF Hit (1) is exactly Hit 3+."""
    target = Target.build(4, 2, armour=4, evade=5, evade_eligible=True)
    buffed = compiled(Weapon.build(roa=6, hit=4, keywords=["BUFF Hit (1)"]), target, models=2)
    plain = compiled(Weapon.build(roa=6, hit=3), target, models=2)
    exact._PMF_CACHE.clear()
    a = batch_dice_pmf(buffed[0][0])
    exact._PMF_CACHE.clear()
    b = batch_dice_pmf(plain[0][0])
    assert a is not b
    assert np.array_equal(a, b)
    ta, tb = exact_tally(*buffed), exact_tally(*plain)
    for x, y in zip(
        (ta.damage, ta.models_destroyed, ta.marker, ta.shielded),
        (tb.damage, tb.models_destroyed, tb.marker, tb.shielded),
        strict=True,
    ):
        assert np.array_equal(x, y)


# ----------------------------------------------------------------------------- properties


def mean_damage(cb: CompiledBatch) -> float:
    return mean(batch_dice_pmf(cb)) * cb.damage


@settings(max_examples=150, deadline=None)
@given(compiled_batches())
def test_pmf_equals_fraction_reading_and_sums_to_one(cb):
    """8.7.4 steps 1-4: the vectorised engine equals a die-by-die reading in exact fractions."""
    pmf = batch_dice_pmf(cb)
    assert pmf.size == cb.max_pool + 1
    assert abs(pmf.sum() - 1.0) <= 1e-12
    assert np.all(pmf >= 0)
    slow = slow_dice_pmf(cb)
    np.testing.assert_allclose(pmf, [float(slow.get(k, 0)) for k in range(pmf.size)], rtol=1e-11, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(compiled_batches(), st.integers(0, 2))
def test_more_dice_never_lowers_mean_damage(cb, group):
    """8.7.4 step 1: one more die in the Attack Pool never lowers the mean Damage."""
    group = group % cb.n_dice.size
    more = cb.n_dice.copy()
    more[group] += 1
    assert mean_damage(replace(cb, n_dice=more)) >= mean_damage(cb) - 1e-12


@settings(max_examples=100, deadline=None)
@given(compiled_batches())
def test_better_armour_never_raises_mean_damage(cb):
    """8.7.4 step 3: a lower Armour target (better armour) never raises the mean Damage."""
    if cb.armour_target > 2:
        assert mean_damage(replace(cb, armour_target=cb.armour_target - 1)) <= mean_damage(cb) + 1e-12


@settings(max_examples=100, deadline=None)
@given(compiled_batches())
def test_tough_and_dodge_never_raise_mean_damage(cb):
    """Part 11 TOUGH (X) and DODGE (X): one more point of either never raises the mean Damage."""
    base = mean_damage(cb)
    assert mean_damage(replace(cb, tough=cb.tough + 1)) <= base + 1e-12
    assert mean_damage(replace(cb, dodge=cb.dodge + 1)) <= base + 1e-12


@settings(max_examples=60, deadline=None)
@given(
    st.lists(compiled_batches(), min_size=1, max_size=3),
    st.lists(st.integers(1, 4), min_size=1, max_size=4),
    st.integers(0, 3),
    st.integers(0, 3),
)
def test_tally_histograms_sum_to_one(batches, hps, shield, marker):
    """8.7.3 chains: every histogram of the Tally sums to 1 within 1e-12 and has the contract's length."""
    from mathhammer.starcraft.compiled import CompiledTarget

    hp = np.array(hps, dtype=np.int64)
    hp[0] += shield
    target = CompiledTarget(hp=hp, shield=shield, marker=marker, shielded=shield > 0 and marker <= shield)
    tally = exact_tally(batches, target)
    assert_tally_sums(tally)
    assert tally.damage.size == damage_bound(batches) + 1
    assert tally.models_destroyed.size == hp.size + 1
    assert tally.marker.size == marker_bound(batches, target) + 1
    assert tally.shielded.size == 2
    expected = sum(mean_damage(cb) for cb in batches)
    if damage_bound(batches) + marker + sum(cb.nonlethal for cb in batches) < int(hp.sum()):
        # the unit cannot be destroyed, so every Batch is resolved: means add up
        assert mean(tally.damage) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    else:
        # Batches after the unit is destroyed deal nothing
        assert mean(tally.damage) <= expected + 1e-12


# ----------------------------------------------------------------------------- Total Damage reduction


def test_total_damage_reduction_is_used_once_at_the_first_damaging_batch() -> None:
    """8.7.4 step 5 "Apply any Special Skills that reduce the Total Damage" + 10.4 (one Reaction, declared at
    its trigger): a reduction of 2 (Transfusion) on a 1-model unit of 5 HP, Armour 6+, hit by HITS 1 (3) twice.

    Each Batch puts its die in the Damage Pool with p = 5/6 (only a 6 saves) and deals 3.
    - both deal Damage (25/36): 3 - 2 = 1 on the marker, then 3 + 1 = 4 < 5: marker 4 (reduced twice: 2);
    - one of them (10/36): 3 - 2 = 1, marker 1 (the Reaction waits for the first Batch that deals Damage);
    - neither (1/36): marker 0. Without the reduction both kill it (3 + 3 >= 5).
    """
    target = Target.build(1, 5, armour=6, damage_reduction=2)
    chain = (Batch.hits(1, 3), Batch.hits(1, 3))
    got = exact.exact_states(*compile_attack(Attack(chain, target)))
    want = {(0, 0, False): Fraction(1, 36), (0, 1, False): Fraction(10, 36), (0, 4, False): Fraction(25, 36)}
    assert got.keys() == want.keys()
    for k, p in want.items():
        assert got[k] == pytest.approx(float(p), abs=1e-12)
    plain = exact.exact_states(*compile_attack(Attack(chain, replace(target, damage_reduction=0))))
    assert plain[(1, 0, False)] == pytest.approx(25 / 36, abs=1e-12)


def test_total_damage_reduction_floor() -> None:
    """Dae'Uhl: "reduce the Total Damage by 2 (to a minimum of 1)": HITS 1 (2) on 2 HP, Armour 6+: 2 - 2 would be
    0, the minimum makes it 1 (marker 1, p = 5/6); a Total Damage of 1 is not reduced at all."""
    target = Target.build(1, 2, armour=6, damage_reduction=2, reduction_floor=1)
    got = exact.exact_states(*compile_attack(Attack((Batch.hits(1, 2),), target)))
    assert got == pytest.approx({(0, 0, False): 1 / 6, (0, 1, False): 5 / 6})
    got = exact.exact_states(*compile_attack(Attack((Batch.hits(1, 1),), target)))
    assert got == pytest.approx({(0, 0, False): 1 / 6, (0, 1, False): 5 / 6})
