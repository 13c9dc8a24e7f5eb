"""Grimdark Future: the Monte Carlo engine against the exact one, properties, determinism across threads.

Seed: /work/shared/rules/seeds/002_2581754eb54f7632.txt; rule wordings quoted in
mathhammer/grimdark/compiled.py. The exact engine is the oracle (STYLE.md, point 3).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer.errors import InputError
from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, grimdark_exact, grimdark_simulate
from mathhammer.grimdark.effects import Effect

from .stats import GF_HISTOGRAMS as HISTOGRAMS
from .stats import assert_agree


def group(models, attacks, *rules, melee=False, range=None):
    return WeaponGroup(models, Weapon("w", attacks, range=range, melee=melee, rules=rules))


# Hand-picked cases, each exercising the rules named in its key.
SELF_REPAIR = Effect("regeneration", 6, rule="Self-Repair")
TEAR = Effect("ap", 4, tough_min=3, tough_max=9, rule="Tear")

CASES = {
    "seed_worked_example": (Attacker((group(5, 1, "AP(1)"),), 4), Defender(5, defense=4, cover=True)),
    "tough_squad": (Attacker((group(5, 3, "AP(1)"),), 3), Defender(3, defense=4, tough=3)),
    "hero_joined": (Attacker((group(6, 2),), 4), Defender(3, defense=5, hero=Hero(tough=3, defense=3))),
    "deadly_vs_tough": (Attacker((group(3, 2, "Deadly(3)", "AP(2)"),), 4), Defender(2, defense=3, tough=4)),
    "blast_capped": (Attacker((group(2, 1, "Blast(3)"),), 4), Defender(2, defense=5, cover=True)),
    "rending_regen": (
        Attacker((group(4, 2, "Rending"),), 4),
        Defender(3, defense=3, tough=2, rules=("Regeneration",)),
    ),
    "poison_reliable": (Attacker((group(4, 2, "Poison", "Reliable"),), 5), Defender(6, defense=2)),
    "relentless_indirect_moved": (
        Attacker((group(3, 2, "Relentless", "Indirect"),), 4, moved=True, distance=20),
        Defender(5, defense=5, cover=True),
    ),
    "lock_on_negative_modifier": (
        Attacker((group(2, 2, "Lock-On", "AP(1)"),), 4, hit_modifier=-1),
        Defender(1, defense=4, tough=6, cover=True),
    ),
    "furious_impact_charge": (
        Attacker((group(3, 2, "Furious", "Impact(1)", melee=True),), 4, charging=True),
        Defender(5, defense=5, cover=True, hero=Hero(2, 4)),
    ),
    "two_groups_regen_hero": (
        Attacker((group(5, 1, "AP(1)"), group(1, 1, "Blast(3)", "AP(1)")), 4),
        Defender(4, defense=4, rules=("Regeneration",), hero=Hero(3, 3, rules=("Regeneration",))),
    ),
    "single_monster_morale": (Attacker((group(5, 2, "AP(2)"),), 3), Defender(1, defense=3, tough=6)),
    # v3.5 Rending AP(+4) on an AP weapon, Bane on every hit (extra Relentless hits included), Blast
    "rending_ap_bane_relentless_blast": (
        Attacker((group(3, 2, "Rending", "AP(1)", "Bane", "Relentless", "Blast(2)"),), 4, distance=12),
        Defender(4, defense=2, tough=2, rules=("Regeneration",)),
    ),
    # GF v3.5 Destructive: six hits get AP(+4), Regeneration still rolled
    "destructive_regen": (
        Attacker((group(4, 2, "Destructive", "AP(1)"),), 4),
        Defender(3, defense=3, tough=2, rules=("Regeneration",)),
    ),
    # GF v3.5 Surge: one extra plain hit per 6, on top of Furious' (2 extra hits); Destructive six hits
    "surge_furious_destructive": (
        Attacker((group(3, 2, "Surge", "Furious", "Destructive", melee=True),), 4, charging=True),
        Defender(4, defense=4, tough=2),
    ),
    # GF v3.5 Shred: a Defense natural 1 deals one extra wound (its own Regeneration roll), hero last
    "shred_regen_hero": (
        Attacker((group(4, 2, "Shred", "AP(1)"),), 4),
        Defender(3, defense=3, tough=2, rules=("Regeneration",), hero=Hero(3, 4, rules=("Regeneration",))),
    ),
    # Shred with Deadly: the extra wound is multiplied too, on the model next in line
    "shred_deadly_bane": (
        Attacker((group(3, 2, "Shred", "Deadly(2)", "Bane"),), 3),
        Defender(2, defense=2, tough=3),
    ),
    # GF v3.5 Unstoppable: negative hit modifiers dropped, Regeneration ignored, cover kept
    "unstoppable_negative_modifier_regen": (
        Attacker((group(3, 2, "Unstoppable", "Indirect"),), 4, hit_modifier=-1, moved=True),
        Defender(4, defense=4, tough=2, cover=True, rules=("Regeneration",)),
    ),
    # GF v3.5 Precise: +1 to hit, with -1 to hit and Indirect after moving (capped total -1)
    "precise_indirect_moved": (
        Attacker((group(4, 2, "Precise", "Indirect", "AP(1)"),), 5, hit_modifier=-1, moved=True),
        Defender(4, defense=4, cover=True, hero=Hero(2, 3)),
    ),
    # GF v3.5.1 Morale: 3 left of a unit of 6, half strength counted against the 6
    "starting_size_wounded_unit": (Attacker((group(3, 1, "AP(1)"),), 4), Defender(3, defense=5, starting_models=6)),
    # GF v3.5 Fearless with Quality 5+: a failed morale test passes on a 4+ (the test rolled after the attack)
    "fearless_single_tough": (
        Attacker((group(3, 2, "AP(1)"),), 4),
        Defender(1, defense=4, tough=6, quality=5, fearless=True),
    ),
    # army rules read as effects: Self-Repair (GF v3.5 Robot Legions: "On a 6+ it is ignored") on a unit whose
    # hero has it too; Tear (GF v3.5 Custodian Brothers: AP(+4) against Tough(3) to Tough(9))
    "self_repair_tear": (
        Attacker((WeaponGroup(3, Weapon("w", 2, rules=("AP(1)", "Destructive"), effects=(TEAR,))),), 4),
        Defender(3, defense=3, tough=3, effects=(SELF_REPAIR,), hero=Hero(3, 4, effects=(SELF_REPAIR,))),
    ),
    # Guardian (GF v3.5 Custodian Brothers): shot from over 9", hits count as AP(-1), to a min. of AP(0)
    "guardian_far": (
        Attacker((group(4, 2, "AP(1)", "Destructive"),), 4, distance=12.0),
        Defender(4, defense=4, tough=2, effects=(Effect("ap_reduction", 1, over=9, rule="Guardian"),)),
    ),
    # GF v3.5 Stealth and Artillery (target, both sides), +1 and -1 kept apart, Lock-On on one group only
    "stealth_artillery_lock_on": (
        Attacker(
            (group(3, 2, "AP(1)"), group(1, 2, "Lock-On", "Blast(2)")),
            4,
            hit_modifiers=(1, -1),
            distance=12,
            rules=("Artillery",),
        ),
        Defender(4, defense=4, rules=("Stealth", "Artillery"), hero=Hero(2, 3, rules=("Stealth", "Artillery"))),
    ),
    # GF v3.5 Entrenched (not moved) and Shielded with a hero who lacks Shielded
    "entrenched_shielded_hero": (
        Attacker((group(4, 2, "AP(1)", "Relentless"),), 3, distance=18, hit_modifiers=(1,)),
        Defender(3, defense=3, tough=2, cover=True, rules=("Entrenched", "Shielded"), hero=Hero(2, 4)),
    ),
    # GF v3.5 Thrust when charging, Versatile Attack's AP(+1) picked by the exact engine
    "thrust_versatile_auto": (
        Attacker((group(3, 2, "Thrust", "Rending", melee=True),), 4, charging=True, rules=("Versatile Attack",)),
        Defender(3, defense=3, tough=2, rules=("Shielded", "Regeneration")),
    ),
    # GF v3.5 Takedown: one picked model as a unit of 1 (its own Defense, no carry-over), resolved first
    "takedown_tough_hero_then_rifles": (
        Attacker((group(3, 2, "AP(1)"), group(2, 2, "Takedown", "Shred", "Deadly(2)")), 3),
        Defender(3, defense=3, tough=3, rules=("Regeneration",), hero=Hero(2, 5, rules=("Regeneration",))),
    ),
    # GF v3.5 Sniper: Quality 2+, Blast capped at 1, the picked model's own Shielded and Stealth
    "sniper_blast_shielded_stealth": (
        Attacker((group(2, 2, "Sniper", "Blast(2)", "Relentless"),), 5, distance=18),
        Defender(3, defense=4, rules=("Shielded", "Stealth"), hero=Hero(2, 3)),
    ),
    # GF v3.5 Slayer: AP(+2) against most models Tough(3)+ (the hero counted)
    "slayer_tough_units": (
        Attacker((group(3, 2, "AP(1)"),), 3, rules=("Slayer",)),
        Defender(3, defense=2, tough=3, cover=True, hero=Hero(2, 3)),
    ),
    # core rules, Hero: a hero joined to the attacker shoots at its own Quality (WeaponGroup.quality)
    "attacker_hero_own_quality": (
        Attacker((group(4, 1, "AP(1)"), WeaponGroup(1, Weapon("w", 2, rules=("Deadly(2)",)), quality=2)), 5),
        Defender(3, defense=4, tough=2),
    ),
    # GF v3.5 common rules: Sniper picking the joined hero (snipe="hero"), then the rest of the attack
    "sniper_picks_the_hero": (
        Attacker((group(3, 2, "AP(1)", "Blast(2)"), group(2, 2, "Sniper", "Shred")), 4, snipe="hero"),
        Defender(3, defense=4, tough=2, rules=("Regeneration",), hero=Hero(3, 3, rules=("Shielded",))),
    ),
    # Reliable is Quality 2+ and still modified (Indirect after moving: -1)
    "reliable_modified_poison": (
        Attacker((group(3, 2, "Reliable", "Poison", "Indirect"),), 6, moved=True),
        Defender(4, defense=3, cover=True),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_monte_carlo_agrees_with_exact(name):
    attacker, defender = CASES[name]
    seed = sorted(CASES).index(name) + 100
    assert_agree(
        grimdark_simulate(attacker, defender, 200_000, seed=seed), grimdark_exact(attacker, defender), label=name
    )


def test_seed_worked_example_mean_by_monte_carlo():
    """Seed worked example: 1.25 wounds expected; 400k trials put the mean within 5 SE of it."""
    attacker, defender = CASES["seed_worked_example"]
    tally = grimdark_simulate(attacker, defender, 400_000, seed=3)
    mean = float(tally.wounds @ np.arange(tally.wounds.size)) / tally.trials
    se = np.sqrt(5 * 0.25 * 0.75 / tally.trials)
    assert abs(mean - 1.25) < 5 * se


def test_same_seed_same_tally_and_bad_arguments():
    attacker, defender = CASES["hero_joined"]
    a = grimdark_simulate(attacker, defender, 10_000, seed=5)
    b = grimdark_simulate(attacker, defender, 10_000, seed=5)
    c = grimdark_simulate(attacker, defender, 10_000, seed=6)
    for h in HISTOGRAMS:
        assert np.array_equal(getattr(a, h), getattr(b, h))
    assert not np.array_equal(a.wounds, c.wounds)
    for kwargs, field in [({"trials": 0}, "trials"), ({"trials": 10, "seed": -1}, "seed"), ({"trials": 1.5}, "trials")]:
        with pytest.raises(InputError) as e:
            grimdark_simulate(attacker, defender, **kwargs)
        assert e.value.field == field


# --- hypothesis -------------------------------------------------------------------------------------------

WEAPON_RULES = st.lists(
    st.sampled_from(
        [
            "AP(1)",
            "AP(2)",
            "Rending",
            "Destructive",
            "Poison",
            "Reliable",
            "Lock-On",
            "Indirect",
            "Relentless",
            "Surge",
            "Shred",
            "Unstoppable",
            "Precise",
            "Deadly(2)",
            "Blast(2)",
            "Thrust",
            "Lance",
            "Furious",
            "Takedown",
            "Sniper",
        ]
    ),
    max_size=3,
    unique_by=lambda r: r.split("(")[0],
)

#: Unit rules of the target that change hit rolls or Defense (GF v3.5: Stealth, Artillery, Entrenched, Shielded).
TARGET_RULES = st.lists(st.sampled_from(["Regeneration", "Stealth", "Artillery", "Entrenched", "Shielded"]),
                        max_size=2, unique=True).map(tuple)  # fmt: skip
SHOOTING_ONLY = {"Lock-On", "Indirect", "Relentless", "Sniper"}
MELEE_ONLY = {"Thrust", "Lance", "Furious"}


#: Army-book rules read as generic effects (mathhammer.grimdark.effects), from the books' own texts
#: (GF v3.5 Custodian Brothers: Tear, Guardian; Dwarf Guilds: Melee Slayer, Fortified; Robot Legions:
#: Self-Repair, Piercing Assault).
WEAPON_EFFECTS = st.lists(
    st.sampled_from(
        [
            Effect("ap", 4, tough_min=3, tough_max=9, rule="Tear"),
            Effect("ap", 2, phase="shooting", tough_min=2, rule="Shooting Slayer"),
            Effect("ap", 1, over=9, rule="Far AP"),
        ]
    ),
    max_size=2,
    unique=True,
)
TARGET_EFFECTS = st.sampled_from(
    [
        (),
        (Effect("regeneration", 6, rule="Self-Repair"),),
        (Effect("ap_reduction", 1, rule="Fortified"),),
        (Effect("ap_reduction", 1, over=9, rule="Guardian"), Effect("regeneration", 4, rule="Test Regen")),
    ]
)


@st.composite
def attacks(draw, max_attacks=4):
    melee = draw(st.booleans())
    rules = tuple(r for r in draw(WEAPON_RULES) if r not in (SHOOTING_ONLY if melee else MELEE_ONLY))
    effects = draw(WEAPON_EFFECTS)
    n_groups = draw(st.integers(1, 2))
    groups = tuple(
        WeaponGroup(
            draw(st.integers(1, 3)),
            Weapon(
                "w",
                draw(st.integers(0, max_attacks)),
                melee=melee,
                rules=rules if g == 0 else (),
                effects=effects if g == 0 else (),
            ),
        )
        for g in range(n_groups)
    )
    attacker = Attacker(
        groups,
        draw(st.integers(2, 6)),
        hit_modifier=draw(st.integers(-2, 2)),
        moved=draw(st.booleans()),
        distance=draw(st.sampled_from([None, 6.0, 12.0])),
        charging=draw(st.booleans()),
        hit_modifiers=tuple(draw(st.lists(st.integers(-1, 1), max_size=2))),
        rules=draw(st.sampled_from([(), ("Artillery",), ("Versatile Attack",), ("Slayer",)])),
        versatile=draw(st.sampled_from([None, "ap", "hit"])),
    )
    unit_rules = draw(TARGET_RULES)
    hero_rules = draw(st.sampled_from([(), unit_rules]))
    hero = draw(
        st.none() | st.builds(Hero, st.integers(1, 3), st.integers(2, 6), st.just(hero_rules), effects=TARGET_EFFECTS)
    )
    defender = Defender(
        draw(st.integers(1, 4)),
        defense=draw(st.integers(2, 6)),
        tough=draw(st.integers(1, 4)),
        cover=draw(st.booleans()),
        rules=unit_rules,
        hero=hero,
        effects=draw(TARGET_EFFECTS),
        moved=draw(st.booleans()),
    )
    if hero is not None:  # Takedown/Sniper may pick the joined hero (GF v3.5 common rules)
        attacker = dataclasses.replace(attacker, snipe=draw(st.sampled_from([None, "hero"])))
    return attacker, defender


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(attacks(), st.integers(0, 2**32))
def test_property_monte_carlo_agrees_with_exact(case, seed):
    attacker, defender = case
    assert_agree(grimdark_simulate(attacker, defender, 20_000, seed=seed), grimdark_exact(attacker, defender))


def _dominates(more: np.ndarray, less: np.ndarray) -> bool:
    """``more`` is stochastically at least ``less``: its CDF is nowhere above."""
    n = max(more.size, less.size)
    a, b = np.zeros(n), np.zeros(n)
    a[: more.size], b[: less.size] = more, less
    return bool(np.all(np.cumsum(a) <= np.cumsum(b) + 1e-12))


@settings(max_examples=60, deadline=None)
@given(attacks())
def test_property_pmfs_sum_to_one(case):
    tally = grimdark_exact(*case)
    for h in HISTOGRAMS:
        assert abs(getattr(tally, h).sum() - 1.0) < 1e-12


def _like_the_unit(attacker: Attacker, defender: Defender) -> Defender:
    """The target with its joined hero made like the unit's models (the unit's Defense, rules and effects;
    its own Tough kept) when a second weapon group follows the first: see the property below."""
    if defender.hero is None or len(attacker.groups) < 2:
        return defender
    hero = dataclasses.replace(defender.hero, defense=defender.defense, rules=defender.rules, effects=defender.effects)
    return dataclasses.replace(defender, hero=hero)


@settings(max_examples=60, deadline=None)
@given(attacks(), st.integers(1, 3))
def test_property_more_attacks_never_fewer_wounds(case, more):
    """More attacks in the first weapon group never give fewer wounds or fewer models destroyed
    (stochastic dominance), when nothing about the joined hero can switch in between two groups.

    With a joined hero whose Defense, rules or effects differ from the unit's and a second weapon group, the
    property is false by the rules, so the hero is made like the unit's models there (:func:`_like_the_unit`):

    - GF v3.5 common rules, Takedown/Sniper: "may pick any model in the target unit as its individual target,
      which is resolved as if it was a unit of [1] ... must be resolved before other weapons"; with
      ``snipe="hero"`` one more Takedown attack may kill the hero first, and a rule of "units where all
      models have this rule" that the hero lacks (Shielded, GF v3.5 army books: "+1 to defense rolls";
      Regeneration; army-book effects) then holds for the unit's models left, so the other groups' hits
      wound them less (:func:`test_takedown_killing_a_hero_without_shielded_gives_the_unit_shielded`).
    - Hero [BG 3.4.1]: it "must use the unit's Defense until all other models have been killed"; blocks are
      rolled per weapon group ([BG 3.4.1] Roll to Block, as mathhammer/grimdark/compiled.py reads it), so the
      more wounds the first group deals, the likelier the second starts with the hero alone at its own
      (perhaps better) Defense
      (:func:`test_second_group_blocked_at_the_heros_own_defense_once_the_unit_is_gone`).
    """
    attacker, defender = case
    defender = _like_the_unit(attacker, defender)
    attacker = dataclasses.replace(attacker, versatile=attacker.versatile or "ap")  # the same pick on both sides
    g = attacker.groups[0]
    bigger = WeaponGroup(g.models, dataclasses.replace(g.weapon, attacks=g.weapon.attacks + more))
    stronger = dataclasses.replace(attacker, groups=(bigger, *attacker.groups[1:]))
    base, plus = grimdark_exact(attacker, defender), grimdark_exact(stronger, defender)
    assert _dominates(plus.wounds, base.wounds)
    assert _dominates(plus.models_destroyed, base.models_destroyed)


def _cdf_at(pmf: np.ndarray, k: int) -> float:
    return float(pmf[: k + 1].sum())


def test_takedown_killing_a_hero_without_shielded_gives_the_unit_shielded():
    """GF v3.5 common rules: Takedown; Shielded (GF v3.5 army books): "Units where all models have this rule
    get +1 to defense rolls". The case hypothesis found: one Takedown attack more at a joined hero without
    Shielded makes P(wounds <= 1) larger, since once the hero is killed the unit's model left has Shielded.

    By hand, Quality 2+ (hits 5/6); the Takedown (AP(2)) at the hero alone, Defense 2+: blocked on 4+, killed
    with k = 5/6 * 1/2. The rifles' 8 attacks (AP(1)): the hero standing, the unit's Defense 2+ without
    Shielded, blocked on 3+: a wound with w = 5/6 * 1/3 each on the unit's model, then the hero (Tough(1)
    each); the hero killed, Defense 2+ with Shielded blocked on 2+: a wound with s = 5/6 * 1/6 each."""
    rifles = group(2, 4, "AP(1)")
    base = Attacker((group(1, 0, "AP(2)", "Takedown"), rifles), 2, snipe="hero")
    plus = Attacker((group(1, 1, "AP(2)", "Takedown"), rifles), 2, snipe="hero")
    defender = Defender(1, defense=2, rules=("Shielded",), hero=Hero(1, 2))
    k, w, s = Fraction(5, 12), Fraction(5, 18), Fraction(5, 36)
    none, one = (1 - w) ** 8, 8 * w * (1 - w) ** 7  # no wound, one wound of the 8 rifle attacks
    want_base = [none, one, 1 - none - one]
    want_plus = [(1 - k) * none, k * (1 - s) ** 8 + (1 - k) * one]
    want_plus.append(1 - sum(want_plus))
    got_base, got_plus = grimdark_exact(base, defender), grimdark_exact(plus, defender)
    for got, want in ((got_base, want_base), (got_plus, want_plus)):
        np.testing.assert_allclose(got.wounds, [float(p) for p in want], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.models_destroyed, got.wounds, rtol=0, atol=1e-12)  # Tough(1) models
    # 0.30201 > 0.30179: not dominating, by the rules
    assert _cdf_at(got_plus.wounds, 1) == pytest.approx(0.30201, abs=1e-5)
    assert _cdf_at(got_base.wounds, 1) == pytest.approx(0.30179, abs=1e-5)
    assert not _dominates(got_plus.wounds, got_base.wounds)
    for attacker in (base, plus):
        assert_agree(grimdark_simulate(attacker, defender, 200_000, seed=26), grimdark_exact(attacker, defender))
    # the hero with Shielded too: nothing switches when it dies, and one more attack dominates again
    shielded = dataclasses.replace(defender, hero=Hero(1, 2, rules=("Shielded",)))
    assert _dominates(grimdark_exact(plus, shielded).wounds, grimdark_exact(base, shielded).wounds)


def test_second_group_blocked_at_the_heros_own_defense_once_the_unit_is_gone():
    """Hero [BG 3.4.1]: "must use the unit's Defense until all other models have been killed"; blocks are
    rolled per weapon group. One attack more in the first group may kill the unit's last model (Defense 6+),
    and the second group then starts with the hero alone at its own Defense 2+: P(wounds <= 1) grows.

    By hand, Quality 2+ (hits 5/6): at Defense 6+ a wound with u = 5/6 * 5/6, at 2+ with h = 5/6 * 1/6."""
    second = group(1, 2)
    base = Attacker((group(1, 0), second), 2)
    plus = Attacker((group(1, 1), second), 2)
    defender = Defender(1, defense=6, hero=Hero(1, 2))
    u, h = Fraction(25, 36), Fraction(5, 36)
    want_base = [(1 - u) ** 2, 2 * u * (1 - u), u**2]  # the second group's 2 attacks at the unit's Defense
    # the first attack wounds (u): the second group at the hero alone; else (1 - u) as the base case
    want_plus = [(1 - u) * p for p in want_base]
    want_plus[1] += u * (1 - h) ** 2
    want_plus[2] += u * (1 - (1 - h) ** 2)
    got_base, got_plus = grimdark_exact(base, defender), grimdark_exact(plus, defender)
    np.testing.assert_allclose(got_base.wounds, [float(p) for p in want_base], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_plus.wounds, [float(p) for p in want_plus], rtol=0, atol=1e-12)
    assert _cdf_at(got_plus.wounds, 1) == pytest.approx(0.67314, abs=1e-5)
    assert _cdf_at(got_base.wounds, 1) == pytest.approx(0.51775, abs=1e-5)
    assert not _dominates(got_plus.wounds, got_base.wounds)
    for attacker in (base, plus):
        assert_agree(grimdark_simulate(attacker, defender, 200_000, seed=27), grimdark_exact(attacker, defender))
    # the hero at the unit's Defense: one more attack dominates again
    alike = dataclasses.replace(defender, hero=Hero(1, 6))
    assert _dominates(grimdark_exact(plus, alike).wounds, grimdark_exact(base, alike).wounds)


@settings(max_examples=60, deadline=None)
@given(attacks())
def test_property_better_defense_never_more_wounds(case):
    attacker, defender = case
    if defender.defense == 2:
        return
    attacker = dataclasses.replace(attacker, versatile=attacker.versatile or "ap")  # the same pick on both sides
    better = dataclasses.replace(defender, defense=defender.defense - 1)
    worse_tally, better_tally = grimdark_exact(attacker, defender), grimdark_exact(attacker, better)
    assert _dominates(worse_tally.wounds, better_tally.wounds)
    assert _dominates(worse_tally.models_destroyed, better_tally.models_destroyed)


# --- determinism across thread counts ------------------------------------------------------------------------

_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {root!r})
    import numba
    from tests.test_grimdark_mc import CASES
    from mathhammer.grimdark import grimdark_simulate
    runs = []
    for threads in (1, 2):  # one process (one start-up, kernels loaded once), the thread pool set for each run
        numba.set_num_threads(threads)
        out = {{"threads": numba.get_num_threads()}}
        for name in ("hero_joined", "two_groups_regen_hero"):
            t = grimdark_simulate(*CASES[name], 50_001, seed=11)
            hists = ("wounds", "models_destroyed", "wounds_on_next", "morale_test_due")
            out[name] = [getattr(t, h).tolist() for h in hists]
        runs.append(out)
    print(json.dumps(runs))
    """
)


def _run_on_one_and_two_threads() -> list[dict]:
    env = dict(os.environ, NUMBA_NUM_THREADS="2")  # the pool's size; each run sets how many of it it uses
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(root=root)], env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_same_tally_on_one_and_two_threads():
    one, two = _run_on_one_and_two_threads()
    assert (one.pop("threads"), two.pop("threads")) == (1, 2)
    assert one == two
    here = grimdark_simulate(*CASES["hero_joined"], 50_001, seed=11)
    assert one["hero_joined"] == [getattr(here, h).tolist() for h in HISTOGRAMS]


def test_importing_grimdark_does_not_import_numba():
    code = "import sys, mathhammer.grimdark; print('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
