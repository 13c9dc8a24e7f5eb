"""One test per rule and keyword of the StarCraft TMG attack pipeline.

Each test states the section or FAQ ruling it checks, compares the exact
engine with hand-computed answers, and checks the die-by-die reference
(``tests/naive.py``, written from the rules) against the exact engine with a
G-test at a fixed seed.

Cases are designed to have small analytic answers. Two tricks make dice
certain (a natural 1 always fails, so no roll is ever certain by itself):

- ``certain(n)``: ``n`` dice at Hit 6+ with ``PRECISION (n)`` (every die ends
  in the Armour Pool) and ``CRITICAL HIT (n)`` (every die skips Armour): the
  Damage Pool holds exactly ``n`` dice (before Evade).
- ``TOUGH (n)`` on the target turns every failed Armour Roll into a success,
  so only dice moved by Surge or CRITICAL HIT do damage.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.outcome import Tally
from mathhammer.starcraft.compiled import compile_attack
from mathhammer.starcraft.exact import exact_tally
from mathhammer.starcraft.keywords import parse_keywords
from mathhammer.starcraft.model import Attack, Batch, ModelGroup, Target, Weapon
from tests.naive import naive_tally
from tests.stats import assert_agree

NAIVE_TRIALS = 10_000


# --------------------------------------------------------------------------- helpers


def exact(attack: Attack) -> Tally:
    return exact_tally(*compile_attack(attack))


def naive_agrees(attack: Attack, seed: int = 12345, trials: int = NAIVE_TRIALS) -> None:
    """The die-by-die reference agrees with the exact engine (G-test, means within 5 SE)."""
    assert_agree(naive_tally(attack, trials, seed), exact(attack), label="naive vs exact")


def p(target_number: int) -> float:
    """Probability that a d6 meets a target number (already clamped)."""
    return (7 - target_number) / 6


def binom(n: int, q: float) -> np.ndarray:
    return np.array([comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)])


def pmf_of(values: dict[int, float]) -> np.ndarray:
    out = np.zeros(max(values) + 1)
    for k, v in values.items():
        out[k] += v
    return out


def assert_pmf(actual: np.ndarray, expected: np.ndarray | dict[int, float], tol: float = 1e-12) -> None:
    exp = pmf_of(expected) if isinstance(expected, dict) else np.asarray(expected, dtype=float)
    n = max(actual.size, exp.size)
    a = np.zeros(n)
    a[: actual.size] = actual
    e = np.zeros(n)
    e[: exp.size] = exp
    np.testing.assert_allclose(a, e, atol=tol, rtol=0)


def certain(n: int, damage: int = 1, keywords: tuple[str, ...] = (), name: str = "certain") -> Weapon:
    """A weapon whose single model puts exactly ``n`` dice in the Damage Pool (see module docstring)."""
    return Weapon.build(
        name, roa=n, hit=6, damage=damage, keywords=[f"PRECISION ({n})", f"CRITICAL HIT ({n})", *keywords]
    )


def one(weapon: Weapon, models: int = 1, **kw: object) -> tuple[Batch, ...]:
    return (Batch(weapon, models=models, **kw),)  # type: ignore[arg-type]


def outcome(attack: Attack) -> tuple[int, int, int]:
    """(models destroyed, marker, shielded) of an attack whose outcome is certain."""
    t = exact(attack)
    for name in ("models_destroyed", "marker", "shielded"):
        hist = getattr(t, name)
        assert np.isclose(hist.max(), 1.0, atol=1e-12), f"{name} is not certain: {hist}"
    return int(t.models_destroyed.argmax()), int(t.marker.argmax()), int(t.shielded.argmax())


# Armour 6+ fails 5/6 of the time: a plain die does damage with probability P(hit) * 5/6.
PLAIN = Target.build(10, 1, armour=6)
FAIL6 = 5 / 6


# --------------------------------------------------------------------------- 8.7.4 step 1: Attack Pool


def test_attack_dice_are_roa_times_models() -> None:
    """8.7.4 step 1: "For each attacking model ... add dice equal to the weapon's RoA"."""
    attack = Attack(one(Weapon.build(roa=3, hit=4), models=2), PLAIN)
    assert_pmf(exact(attack).damage, binom(6, p(4) * FAIL6))
    naive_agrees(attack)


def test_burst_fire_adds_roa_within_y() -> None:
    """Part 11 BURST FIRE Y" (X): +X RoA for a model Within Y" of the target."""
    w = Weapon.build(roa=1, hit=4, range=12, keywords=['BURST FIRE 6" (2)'])
    attack = Attack((Batch(w, models=2, distances=(3.0, 10.0)),), PLAIN)
    assert_pmf(exact(attack).damage, binom(3 + 1, p(4) * FAIL6))
    naive_agrees(attack)


@pytest.mark.parametrize("stationary, dice", [(True, 3), (False, 1)])
def test_locked_in_only_against_stationary(stationary: bool, dice: int) -> None:
    """Part 11 LOCKED IN (X): +X RoA if the target Unit has Stationary Status."""
    w = Weapon.build(roa=1, hit=4, keywords=["LOCKED IN (2)"])
    target = Target.build(10, 1, armour=6, stationary=stationary)
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, binom(dice, p(4) * FAIL6))
    naive_agrees(attack)


@pytest.mark.parametrize(
    "keywords, dice",
    [(["BUFF RoA (1)"], 3), (["DEBUFF RoA (1)"], 1), (["DEBUFF RoA (5)"], 0), (["BUFF RoA (2)", "DEBUFF RoA (1)"], 3)],
)
def test_buff_debuff_roa(keywords: list[str], dice: int) -> None:
    """Part 11 BUFF/DEBUFF [Characteristic] (X): a value characteristic +X / -X (minimum 0)."""
    attack = Attack(one(Weapon.build(roa=2, hit=4, keywords=keywords)), PLAIN)
    assert_pmf(exact(attack).damage, binom(dice, p(4) * FAIL6))
    naive_agrees(attack)


@pytest.mark.parametrize(
    "hit, keywords, effective",
    [
        (4, ["BUFF Hit (1)"], 3),
        (4, ["DEBUFF Hit (1)"], 5),
        (4, ["BUFF Hit (1)", "DEBUFF Hit (1)"], 4),  # different named sources add up (part 11 MODIFIER)
        (2, ["BUFF Hit (2)"], 2),  # never below 2+: a natural 1 still fails
        (6, ["DEBUFF Hit (3)"], 6),  # never above 6+: a natural 6 still succeeds
        (2, ["DEBUFF Hit (9)"], 6),
    ],
)
def test_buff_debuff_hit_and_clamping(hit: int, keywords: list[str], effective: int) -> None:
    """Part 11 BUFF/DEBUFF on a Target Number; part 11 MODIFIER and 3.6: clamped to 2+..6+."""
    attack = Attack(one(Weapon.build(roa=4, hit=hit, keywords=keywords)), PLAIN)
    assert_pmf(exact(attack).damage, binom(4, p(effective) * FAIL6))
    naive_agrees(attack)


def test_long_range_two_groups_and_out_of_range() -> None:
    """Part 11 LONG RANGE (X): beyond Range but Within X": -1 to Hit, rolled as its own group;
    8.7.3 step 1: a model with no target model Within Range adds no dice."""
    w = Weapon.build(roa=2, hit=4, range=12, keywords=['LONG RANGE (24")'])
    attack = Attack((Batch(w, models=3, distances=(6.0, 18.0, 30.0)),), PLAIN)
    expected = np.convolve(binom(2, p(4) * FAIL6), binom(2, p(5) * FAIL6))
    assert_pmf(exact(attack).damage, expected)
    naive_agrees(attack)


@pytest.mark.parametrize(
    ("fewer", "by", "normal", "long"),
    [
        (0, "defender", 2, 2),
        (1, "defender", 1, 2),
        (2, "defender", 0, 2),
        (3, "defender", 0, 1),
        (9, "defender", 0, 0),
        (1, "attacker", 2, 1),
        (2, "attacker", 2, 0),
        (3, "attacker", 1, 0),
    ],
)
def test_fewer_dice_in_the_attack_pool(fewer: int, by: str, normal: int, long: int) -> None:
    """8.7.3 REMOVING DICE: "When a Special Ability reduces the number of dice within a Batch, the player controlling
    the Unit resolving that ability chooses which dice are removed." Guardian Shield ("All Ranged Attacks targeting a
    Friendly Unit Within 4" ... are made with 1 fewer die in the Attack Pool", ``Batch.fewer``) is the defender's: it
    takes out the dice most likely to hurt it, the 4+ dice before LONG RANGE's 5+ ones. An ability of the attacking
    side (``fewer_by="attacker"``) would take out the 5+ dice first."""
    w = Weapon.build(roa=2, hit=4, range=12, keywords=['LONG RANGE (24")'])
    attack = Attack((Batch(w, models=2, distances=(6.0, 18.0), fewer=fewer, fewer_by=by),), PLAIN)
    expected = np.convolve(binom(normal, p(4) * FAIL6), binom(long, p(5) * FAIL6))
    assert_pmf(exact(attack).damage, expected)
    naive_agrees(attack)


def test_removing_dice_defaults_to_the_defender() -> None:
    """8.7.3 REMOVING DICE: Guardian Shield and Point Defense Laser are the target side's abilities, so a Batch's
    ``fewer`` dice are the defender's choice unless said otherwise: one die taken out of a 4+ die and a 5+ die
    leaves the 5+ die (P(damage) = 2/6 x 5/6), not the 4+ die (3/6 x 5/6) as when the attacker chose."""
    w = Weapon.build(roa=1, hit=4, range=12, keywords=['LONG RANGE (24")'])
    attack = Attack((Batch(w, models=2, distances=(6.0, 18.0), fewer=1),), PLAIN)
    assert exact(attack).damage[1] == pytest.approx(2 / 6 * 5 / 6)
    mine = Attack((Batch(w, models=2, distances=(6.0, 18.0), fewer=1, fewer_by="attacker"),), PLAIN)
    assert exact(mine).damage[1] == pytest.approx(3 / 6 * 5 / 6)
    with pytest.raises(InputError):
        Batch(w, fewer=1, fewer_by="nobody")


def test_out_of_range_without_long_range() -> None:
    """8.7.3 step 1: "Only models Within Range ... contribute dice to the Attack Roll"."""
    w = Weapon.build(roa=1, hit=4, range=12)
    attack = Attack((Batch.at(w, 3, 12.0), Batch(w, models=2, distances=(12.5, 40.0))), PLAIN)
    assert_pmf(exact(attack).damage, binom(3, p(4) * FAIL6))
    naive_agrees(attack)


def test_long_range_and_debuff_hit_clamp_at_six() -> None:
    """Part 11 MODIFIER: LONG RANGE -1 and DEBUFF Hit add up, but the Hit never goes above 6+."""
    w = Weapon.build(roa=1, hit=5, range=10, keywords=['LONG RANGE (20")', "DEBUFF Hit (2)"])
    attack = Attack((Batch(w, models=2, distances=(5.0, 15.0)),), PLAIN)
    assert_pmf(exact(attack).damage, binom(2, p(6) * FAIL6))
    naive_agrees(attack)


# --------------------------------------------------------------------------- PRECISION and Surge (step 2)


@pytest.mark.parametrize("precision, expected", [(1, {1: 1.0}), (0, {0: 5 / 6, 1: 1 / 6})])
def test_precision_counts_for_surge(precision: int, expected: dict[int, float]) -> None:
    """Part 11 PRECISION (X): failed dice moved to the Armour Pool count as hits "for all purposes,
    including Surge". One die at 6+ with PRECISION (1) is always in the pool; Surge D3 moves it."""
    kws = [f"PRECISION ({precision})"] if precision else []
    w = Weapon.build(roa=1, hit=6, surge="Light:D3", keywords=kws)
    target = Target.build(1, 1, armour=2, tags="Light", keywords=["TOUGH (1)"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, expected)
    naive_agrees(attack)


@pytest.mark.parametrize(
    "surge, tags, expected",
    [
        ("Light:D3", "Light,Biological", {1: 1.0}),  # matches: bypasses Armour
        ("Light:D3", "Armoured", {0: 0.5, 1: 0.5}),  # no match: "the Surge Die result is ignored"
        ("Light,Armoured:D3", "Armoured", {1: 1.0}),  # any one of several Surge Types
    ],
)
def test_surge_only_with_matching_combat_tag(surge: str, tags: str, expected: dict[int, float]) -> None:
    """8.7.4 step 2: "Check if the target Unit's Combat Tag matches the weapon's Surge Type"."""
    w = Weapon.build(roa=1, hit=6, surge=surge, keywords=["PRECISION (1)"])
    attack = Attack(one(w), Target.build(1, 1, armour=4, tags=tags))
    assert_pmf(exact(attack).damage, expected)
    naive_agrees(attack)


SDICE = {
    "D3": {1: 1 / 3, 2: 1 / 3, 3: 1 / 3},
    "D3+1": {2: 1 / 3, 3: 1 / 3, 4: 1 / 3},
    "D6": {k: 1 / 6 for k in range(1, 7)},
    "2D3+1": {3: 1 / 9, 4: 2 / 9, 5: 3 / 9, 6: 2 / 9, 7: 1 / 9},
    "2": {2: 1.0},  # a fixed Surge result (8.7.6: a template's Surge result = affected models)
}


@pytest.mark.parametrize("dice", list(SDICE))
def test_surge_dice_distribution(dice: str) -> None:
    """8.7.4 step 1-2: one Surge Die per Batch; its result moves that many dice past Armour.
    8 dice certain in the Armour Pool (PRECISION (8)), TOUGH (8) saves everything else: Damage = S."""
    w = Weapon.build(roa=8, hit=6, surge=f"Light:{dice}", keywords=["PRECISION (8)"])
    target = Target.build(10, 1, armour=2, tags="Light", keywords=["TOUGH (8)"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, SDICE[dice])
    naive_agrees(attack)


def test_surge_never_moves_more_than_the_pool() -> None:
    """8.7.4 step 2: "Surge can never move more dice than are currently in the Armour Pool"."""
    w = Weapon.build(roa=2, hit=6, surge="Light:D6", keywords=["PRECISION (2)"])
    target = Target.build(10, 1, armour=2, tags="Light", keywords=["TOUGH (2)"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, {1: 1 / 6, 2: 5 / 6})
    naive_agrees(attack)


def test_surge_once_per_batch_not_per_model() -> None:
    """FAQ v1.0: PRECISION, Surge and CRITICAL HIT act on the whole Batch, never per model."""
    w = Weapon.build(roa=2, hit=6, surge="Light:D3", keywords=["PRECISION (1)", "CRITICAL HIT (1)"])
    target = Target.build(10, 1, armour=2, tags="Light", keywords=["TOUGH (9)"])
    attack = Attack(one(w, models=4), target)
    # 8 dice at 6+: H ~ Bin(8, 1/6) hits; PRECISION (1) makes A = H + 1 (8 when every die hit);
    # Surge D3 + CRITICAL HIT (1) then move min(S + 1, A); TOUGH saves the rest.
    t = exact(attack)
    expected = np.zeros(9)
    for h, ph in enumerate(binom(8, 1 / 6)):
        a = min(h + 1, 8)
        for s in (1, 2, 3):
            expected[min(s + 1, a)] += ph / 3
    assert_pmf(t.damage, expected)
    naive_agrees(attack)


@pytest.mark.parametrize("critical, pool, moved", [(2, 3, 2), (5, 3, 3)])
def test_critical_hit(critical: int, pool: int, moved: int) -> None:
    """Part 11 CRITICAL HIT (X): move X dice from the Armour Pool to the Damage Pool, never more than it holds."""
    w = Weapon.build(roa=pool, hit=6, keywords=[f"PRECISION ({pool})", f"CRITICAL HIT ({critical})"])
    target = Target.build(10, 1, armour=2, keywords=[f"TOUGH ({pool})"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, {moved: 1.0})
    naive_agrees(attack)


def test_surge_then_critical_hit_share_the_pool() -> None:
    """8.7.4 step 2 then part 11 CRITICAL HIT: CRITICAL HIT moves up to X of what Surge left."""
    w = Weapon.build(roa=3, hit=6, surge="Light:D3", keywords=["PRECISION (3)", "CRITICAL HIT (1)"])
    target = Target.build(10, 1, armour=2, tags="Light", keywords=["TOUGH (3)"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, {2: 1 / 3, 3: 2 / 3})
    naive_agrees(attack)


@pytest.mark.parametrize(
    "dodge, expected",
    [
        (1, {1: 1 / 3, 2: 1 / 3, 3: 1 / 3}),  # Surge D3 + CRITICAL HIT (1) - 1 = S
        (2, {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}),  # combined reading: S + 1 - 2 = S - 1 (0, 1, 2)
        (9, {0: 1.0}),  # minimum 0
    ],
)
def test_dodge_reduces_surge_and_critical_combined(dodge: int, expected: dict[int, float]) -> None:
    """Part 11 DODGE (X): reduce the dice moved by Surge or CRITICAL HIT by X (minimum 0), in the
    Resolve Surge step; this project's reading: once, from their combined number."""
    w = Weapon.build(roa=6, hit=6, surge="Light:D3", keywords=["PRECISION (6)", "CRITICAL HIT (1)"])
    target = Target.build(10, 1, armour=2, tags="Light", keywords=[f"DODGE ({dodge})", "TOUGH (6)"])
    attack = Attack(one(w), target)
    assert_pmf(exact(attack).damage, expected)
    naive_agrees(attack)


# --------------------------------------------------------------------------- Armour (step 3)


@pytest.mark.parametrize(
    "keywords, armour, expected",
    [
        ([], 4, binom(2, 0.5)),
        (["TOUGH (1)"], 4, {0: 3 / 4, 1: 1 / 4}),  # up to 1 failure becomes a success
        (["BUFF Armour (1)"], 4, binom(2, 1 - p(3))),
        (["DEBUFF Armour (1)"], 4, binom(2, 1 - p(5))),
        (["BUFF Armour (3)"], 3, binom(2, 1 - p(2))),  # never below 2+: a natural 1 still fails
    ],
)
def test_armour_rolls_tough_and_modifiers(keywords: list[str], armour: int, expected: object) -> None:
    """8.7.4 step 3 (Armour Rolls), part 11 TOUGH (X), BUFF/DEBUFF Armour, MODIFIER clamp."""
    w = Weapon.build(roa=2, hit=6, keywords=["PRECISION (2)"])
    attack = Attack(one(w), Target.build(10, 1, armour=armour, keywords=keywords))
    assert_pmf(exact(attack).damage, expected)  # type: ignore[arg-type]
    naive_agrees(attack)


# --------------------------------------------------------------------------- Evade (step 4)


@pytest.mark.parametrize(
    "target_kw, batch_evade, eligible",
    [
        ({}, None, False),  # no Evade unless something grants it
        ({"evade_eligible": True}, None, True),  # e.g. Engaged and shot at, HIGH GROUND
        ({"keywords": ["HIDDEN"]}, None, True),  # part 11 HIDDEN: Evade against every attack
        ({"keywords": ["BURROWED"]}, None, True),  # part 11 BURROWED
        ({"keywords": ["HIDDEN"]}, False, False),  # Batch override
        ({}, True, True),
    ],
)
def test_evade_eligibility_and_evade_against_surge(target_kw: dict, batch_evade: bool | None, eligible: bool) -> None:
    """8.7.4 step 4: Evade only if eligible; it rolls the whole Damage Pool, dice moved by Surge or
    CRITICAL HIT included (FAQ v1.0: Evade works against Surge)."""
    target = Target.build(10, 1, armour=2, evade=4, **target_kw)
    attack = Attack(one(certain(2), evade=batch_evade), target)
    assert_pmf(exact(attack).damage, binom(2, 0.5) if eligible else {2: 1.0})
    naive_agrees(attack)


@pytest.mark.parametrize(
    "evade, weapon_kw, target_kw, effective",
    [
        (4, ["ANTI-EVADE (1)"], [], 5),
        (4, ["ANTI-EVADE (5)"], [], 6),  # FAQ v1.0: ANTI-EVADE cannot take the Evade Roll away (6+)
        (4, [], ["BUFF Evade (1)"], 3),
        (3, ["ANTI-EVADE (1)"], ["DEBUFF Evade (1)"], 5),
        (2, [], ["BUFF Evade (2)"], 2),  # never below 2+
    ],
)
def test_anti_evade_and_evade_modifiers(evade: int, weapon_kw: list, target_kw: list, effective: int) -> None:
    """Part 11 ANTI-EVADE (X): -X to the Evade Roll; part 11 MODIFIER: clamped to 2+..6+."""
    target = Target.build(10, 1, armour=2, evade=evade, keywords=target_kw, evade_eligible=True)
    attack = Attack(one(certain(3, keywords=tuple(weapon_kw))), target)
    assert_pmf(exact(attack).damage, binom(3, 1 - p(effective)))
    naive_agrees(attack)


# --------------------------------------------------------------------------- Damage (step 5)


@pytest.mark.parametrize("tags, damage", [("Armoured", 3), ("Light", 1)])
def test_pierce_sets_damage_against_its_tag(tags: str, damage: int) -> None:
    """Part 11 PIERCE [TAG] X: "treat this weapon's Damage characteristic as X" against that tag."""
    attack = Attack(one(certain(2, keywords=("PIERCE Armoured (3)",))), Target.build(10, 5, tags=tags))
    assert_pmf(exact(attack).damage, {2 * damage: 1.0})
    naive_agrees(attack)


def test_hits_x_y() -> None:
    """Part 11 HITS X (Y): X dice straight into the Armour Pool, Damage Y, no Surge, no PRECISION or
    CRITICAL HIT of the weapon."""
    w = Weapon.build(roa=0, surge="Light:D3", keywords=["HITS 2 (3)", "CRITICAL HIT (2)"])
    attack = Attack(one(w), Target.build(10, 1, armour=4, tags="Light"))
    assert_pmf(exact(attack).damage, {0: 1 / 4, 3: 1 / 2, 6: 1 / 4})
    naive_agrees(attack)
    assert_pmf(exact(Attack((Batch.hits(2, 3),), Target.build(10, 1, armour=4))).damage, {0: 0.25, 3: 0.5, 6: 0.25})


def test_hits_before_the_weapon_and_tough() -> None:
    """Part 11 HITS X (Y) with the weapon's own dice: HITS resolves as its own Batch first; TOUGH applies."""
    w = Weapon.build(roa=1, hit=4, damage=2, keywords=["HITS 1 (1)"])
    attack = Attack(one(w), Target.build(10, 1, armour=4, keywords=["TOUGH (1)"]))
    assert_pmf(exact(attack).damage, {0: 1.0})  # each Batch has at most one failed Armour Roll
    naive_agrees(attack)


def test_impact() -> None:
    """Part 11 IMPACT (X) Y: X Impact Dice per model, each >= Y puts a die in the Armour Pool, Damage 1."""
    w = Weapon.build(roa=0, damage=3, keywords=["IMPACT (2) 4+"])
    attack = Attack(one(w, models=3), Target.build(10, 1, armour=4))
    assert_pmf(exact(attack).damage, binom(6, p(4) * p(4)))
    naive_agrees(attack)
    direct = Attack((Batch.impact(3, 2, 4),), Target.build(10, 1, armour=4))
    assert_pmf(exact(direct).damage, binom(6, p(4) * p(4)))


def test_hidden_is_immune_to_impact() -> None:
    """Part 11 HIDDEN: "A HIDDEN Unit is immune to the IMPACT keyword" (BURROWED has HIDDEN)."""
    w = Weapon.build(roa=0, keywords=["IMPACT (2) 4+"])
    attack = Attack(one(w, models=3), Target.build(10, 1, armour=4, keywords=["HIDDEN"]))
    assert_pmf(naive_tally(attack, 200, 1).damage / 200, {0: 1.0})
    assert_pmf(exact(attack).damage, {0: 1.0})


def test_non_lethal_damage() -> None:
    """Part 11 NON-LETHAL DAMAGE (X): added to the Damage Marker, no model removed even beyond HP;
    later standard Damage uses the combined Total Damage."""
    nonlethal = Weapon.build("stun", roa=0, keywords=["NON-LETHAL DAMAGE (3)"])
    target = Target.build(3, 2, armour=2)
    assert outcome(Attack(one(nonlethal), target)) == (0, 3, 0)
    assert exact(Attack(one(nonlethal), target)).damage[0] == 1.0  # not counted as Damage dealt
    chain = Attack((*one(nonlethal), *one(certain(1))), target)
    assert outcome(chain) == (2, 0, 0)  # 3 + 1 = 4: two 2-HP models
    with_dice = Attack(one(certain(1, keywords=("NON-LETHAL DAMAGE (1)",))), target)
    assert outcome(with_dice) == (1, 0, 0)  # its own non-lethal part lands first: 1 + 1 = 2
    naive_agrees(chain)
    naive_agrees(with_dice)


@pytest.mark.parametrize("cf, removed", [(0, 3), (1, 1), (2, 2)])
def test_concentrated_fire(cf: int, removed: int) -> None:
    """Part 11 CONCENTRATED FIRE (X): no more than X models removed; the rest is discarded, no marker."""
    kws = (f"CONCENTRATED FIRE ({cf})",) if cf else ()
    attack = Attack(one(certain(7, keywords=kws)), Target.build(5, 2))
    assert outcome(attack) == (removed, 1 if not cf else 0, 0)
    naive_agrees(attack)


@pytest.mark.parametrize(
    "target_visible, batch_visible, hp, dice, result",
    [
        (2, None, 1, 3, (2, 0)),  # at most 2 removed, the third point is discarded
        (None, 1, 1, 3, (1, 0)),  # Batch.visible
        (2, None, 2, 5, (2, 0)),  # all Visible models Destroyed: 1 left over is lost
        (None, None, 2, 5, (2, 1)),  # otherwise it stays on the Damage Marker
        (3, None, 2, 5, (2, 1)),  # a Visible model survives: the marker is kept
    ],
)
def test_visible_limit_and_discard(target_visible, batch_visible, hp, dice, result) -> None:
    """8.7.4 step 5: never more models than are Visible; "If all Visible models are Destroyed, discard
    remaining Total Damage"."""
    target = Target.build(5, hp, visible=target_visible)
    attack = Attack(one(certain(dice), visible=batch_visible), target)
    assert outcome(attack)[:2] == result
    naive_agrees(attack)


@pytest.mark.parametrize(
    "target_visible, first_visible, second_visible, result",
    [
        (2, None, None, (2, 0)),  # 2 Visible models, both removed by the first Batch: none left
        (3, None, None, (3, 0)),  # the second Batch may remove the one Visible model left
        (None, 2, 3, (3, 0)),  # Batch.visible also counts from the start of the chain
        (None, None, None, (4, 0)),
    ],
)
def test_visible_models_are_used_up_along_a_chain(target_visible, first_visible, second_visible, result) -> None:
    """8.7.4 step 5: "remove one Visible model"; a Unit with 2 Visible models has none left after
    losing 2, so a later Batch of the chain cannot remove a third (8.7.3 step 1)."""
    target = Target.build(5, 1, visible=target_visible)
    attack = Attack((*one(certain(2), visible=first_visible), *one(certain(2), visible=second_visible)), target)
    assert outcome(attack)[:2] == result
    naive_agrees(attack)


@pytest.mark.parametrize(
    "dice, result",
    [
        (3, (0, 3, 1)),  # FAQ v1.0: Shield 3 is not lost at 3 Total Damage
        (4, (0, 4, 0)),  # ... but at 4 (exceeds the Shield value)
        (6, (0, 6, 0)),
        (7, (1, 0, 0)),  # FAQ v1.0: a Zealot (4 HP + Shield 3) takes 7 to remove
        (11, (2, 0, 0)),
    ],
)
def test_shield_zealot(dice: int, result: tuple[int, int, int]) -> None:
    """Part 11 SHIELDED and FAQ v1.0: Shield adds to the first model's HP; SHIELDED is lost when Total
    Damage exceeds Shield or the first model is removed."""
    attack = Attack(one(certain(dice)), Target.build(2, 4, shield=3, name="Zealots"))
    assert outcome(attack) == result
    naive_agrees(attack)


def test_shield_lost_across_a_chain_and_with_marker() -> None:
    """Part 11 SHIELDED: Total Damage includes the Damage Marker; lost status never comes back."""
    target = Target.build(2, 4, shield=3)
    chain = Attack((*one(certain(2)), *one(certain(2))), target)
    assert outcome(chain) == (0, 4, 0)
    marked = Target.build(2, 4, shield=3, marker=3)
    assert outcome(Attack(one(certain(1)), marked)) == (0, 4, 0)
    assert exact(Attack(one(certain(1)), Target.build(2, 4, shield=3, shielded=False))).shielded[1] == 0.0
    naive_agrees(chain)


def test_damage_marker_carried() -> None:
    """8.7.4 step 5: add previously accumulated Damage (the Damage Marker) to the Total Damage."""
    attack = Attack(one(certain(1)), Target.build(2, 3, marker=2))
    assert outcome(attack) == (1, 0, 0)
    naive_agrees(attack)


@pytest.mark.parametrize(
    "order, result",
    [("listed", (0, 3)), ("most-hp-first", (0, 3)), ("fewest-hp-first", (2, 1))],
)
def test_heterogeneous_models_and_removal_order(order: str, result: tuple[int, int]) -> None:
    """8.7.4 step 5: remove model by model while Total Damage >= the next model's HP (defender's order)."""
    groups = (ModelGroup(1, 5, "sergeant"), ModelGroup(2, 1, "trooper"))
    target = Target.build(groups=groups, removal_order=order)
    attack = Attack(one(certain(3)), target)
    assert outcome(attack)[:2] == result
    naive_agrees(attack)


def test_chain_shares_casualty_state() -> None:
    """8.7.3 Batch sequence: each Batch is resolved fully; the next sees the casualties and marker."""
    target = Target.build(2, 2)
    attack = Attack((*one(certain(1, name="a")), *one(certain(1, name="b"))), target)
    assert outcome(attack) == (1, 0, 0)
    assert outcome(Attack(one(certain(1)), target)) == (0, 1, 0)
    naive_agrees(attack)


def test_no_batch_against_a_destroyed_unit() -> None:
    """8.7.3 step 1: a Destroyed unit is no longer a valid target: later Batches of the chain deal no
    Damage and leave no marker; the excess of the destroying Batch is lost (8.7.4 step 5)."""
    attack = Attack((*one(certain(3)), *one(certain(1, keywords=("NON-LETHAL DAMAGE (2)",)))), Target.build(2, 1))
    assert outcome(attack) == (2, 0, 0)
    assert_pmf(exact(attack).damage, {3: 1.0})
    naive_agrees(attack)


def test_zero_damage_dice_still_resolve_casualties() -> None:
    """8.7.4 step 5: "If there are no dice left in the Damage Pool, ignore this phase" - with dice left
    but Damage 0 (DEBUFF Damage, minimum 0), Total Damage is the marker, which removes models."""
    stun = Weapon.build("stun", roa=0, keywords=["NON-LETHAL DAMAGE (2)"])
    blunt = certain(1, keywords=("DEBUFF Damage (1)",))
    attack = Attack((*one(stun), *one(blunt)), Target.build(3, 2))
    assert naive_tally(attack, 100, 1).models_destroyed[1] == 100
    assert outcome(attack) == (1, 0, 0)


# --------------------------------------------------------------------------- keywords do not stack


@pytest.mark.parametrize(
    "doubled, single, scope",
    [
        (["PRECISION (1)", "PRECISION (2)"], ["PRECISION (2)"], "weapon"),
        (["CRITICAL HIT (2)", "CRITICAL HIT (1)"], ["CRITICAL HIT (2)"], "weapon"),
        (["BUFF Hit (1)", "BUFF Hit (2)"], ["BUFF Hit (2)"], "weapon"),
        (["TOUGH (1)", "TOUGH (2)"], ["TOUGH (2)"], "target"),
        (["DODGE (2)", "DODGE (1)"], ["DODGE (2)"], "target"),
    ],
)
def test_keywords_do_not_stack(doubled: list[str], single: list[str], scope: str) -> None:
    """Part 1 keywords: "Keywords do not stack ... use only the highest value"; FAQ v1.0: BUFFs of the
    same characteristic do not stack."""
    assert parse_keywords(doubled, scope, "k") == parse_keywords(single, scope, "k")

    def make(kws: list[str]) -> Attack:
        wk = kws if scope == "weapon" else []
        tk = kws if scope == "target" else []
        w = Weapon.build(roa=4, hit=5, surge="Light:D3", keywords=wk)
        return Attack(one(w), Target.build(4, 1, armour=4, tags="Light", keywords=tk))

    a, b = exact(make(doubled)), exact(make(single))
    assert_pmf(a.damage, b.damage, tol=1e-15)
    naive_agrees(make(doubled))
