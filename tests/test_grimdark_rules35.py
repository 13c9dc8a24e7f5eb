"""Grimdark Future v3.5 rules that change hit rolls, AP and Defense: the exact engine against hand computations,
and the per-die reference (tests/grimdark_naive.py) against the exact engine.

Texts: profiles/rules/grimdark_common_rules.toml (verbatim, with their sources), quoted in
mathhammer/grimdark/compiled.py.
"""

from __future__ import annotations

import pytest

from mathhammer.errors import InputError
from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, compile_attack, grimdark_exact
from mathhammer.grimdark.exact import versatile_choice

from .grimdark_naive import naive_tally
from .stats import assert_agree
from .test_grimdark import F, attack, close, mean


def wounds(attacker: Attacker, defender: Defender) -> float:
    return mean(grimdark_exact(attacker, defender).wounds)


def test_hit_modifiers_kept_apart_for_lock_on():
    """Lock-On (GF Beginner's Guide v3.4.1): "Ignores cover and all negative modifiers to hit rolls" - with a
    +1 and a -1 kept apart, Lock-On drops the -1 only: Quality 4+ hits on 3+ (4/6), not on 4+ (3/6) as the
    net 0 would. Defense 6+ (5/6 unsaved)."""
    d = Defender(3, defense=6)
    assert close(wounds(attack(hit_modifiers=(1, -1)), d), F(3, 6) * F(5, 6))
    assert close(wounds(attack(rules=("Lock-On",), hit_modifiers=(1, -1)), d), F(4, 6) * F(5, 6))
    assert close(wounds(attack(rules=("Unstoppable",), hit_modifiers=(1, -1)), d), F(4, 6) * F(5, 6))
    # hit_modifier is one entry more
    assert close(wounds(attack(rules=("Lock-On",), hit_modifier=1, hit_modifiers=(-1,)), d), F(4, 6) * F(5, 6))
    with pytest.raises(InputError) as e:
        attack(hit_modifiers=(1, "x"))
    assert e.value.field == "hit_modifiers[1]"


def test_stealth():
    """GF v3.5 common rules: Stealth: "When units where all models have this rule are shot from over 9\" away,
    enemy units get -1 to hit rolls."

    Quality 4+ against Defense 6+ (5/6 unsaved): from 12" hits on 5+ (2/6); from 6", or in melee, on 4+
    (3/6); a joined hero without Stealth: no effect; Lock-On drops it; distance unknown: no effect, warned.
    """
    d = Defender(3, defense=6, rules=("Stealth",))
    assert close(wounds(attack(distance=12), d), F(2, 6) * F(5, 6))
    assert close(wounds(attack(distance=6), d), F(3, 6) * F(5, 6))
    assert close(wounds(attack(distance=12, melee=True), d), F(3, 6) * F(5, 6))
    lacking = Defender(3, defense=6, rules=("Stealth",), hero=Hero(1, 6))
    assert close(wounds(attack(distance=12), lacking), F(3, 6) * F(5, 6))
    with_hero = Defender(3, defense=6, rules=("Stealth",), hero=Hero(1, 6, rules=("Stealth",)))
    assert close(wounds(attack(distance=12), with_hero), F(2, 6) * F(5, 6))
    assert close(wounds(attack(distance=12, rules=("Lock-On",)), d), F(3, 6) * F(5, 6))
    unknown = compile_attack(attack(), d)
    assert faces(unknown.groups[0].hit_mask) == 3
    assert any("Stealth" in w and "distance" in w for w in unknown.warnings)


def faces(mask: int) -> int:
    return bin(mask).count("1")


def test_artillery():
    """GF v3.5 common rules: Artillery: "When this model shoots at enemies over 9\" away, it gets +1 to hit
    rolls. When enemy units shoot at this model from over 9\" away, they get -2 to hit rolls."

    Attacker's: Quality 4+ from 12" hits on 3+ (4/6), from 6" on 4+. Target's: with +1 to hit already, the
    -2 brings the total to -1 (5+, 2/6) where Stealth's -1 would leave 0 (4+). Defense 6+ (5/6 unsaved).
    """
    d = Defender(1, defense=6, tough=3)
    gun = Attacker((WeaponGroup(1, Weapon("Gun")),), 4, distance=12, rules=("Artillery",))
    assert close(wounds(gun, d), F(4, 6) * F(5, 6))
    near = Attacker((WeaponGroup(1, Weapon("Gun")),), 4, distance=6, rules=("Artillery",))
    assert close(wounds(near, d), F(3, 6) * F(5, 6))
    target = Defender(1, defense=6, tough=3, rules=("Artillery",))
    assert close(wounds(attack(distance=12, hit_modifiers=(1,)), target), F(2, 6) * F(5, 6))
    stealth = Defender(1, defense=6, tough=3, rules=("Stealth",))
    assert close(wounds(attack(distance=12, hit_modifiers=(1,)), stealth), F(3, 6) * F(5, 6))
    assert close(wounds(attack(distance=8, hit_modifiers=(1,)), target), F(4, 6) * F(5, 6))


def test_entrenched():
    """GF v3.5 common rules: Entrenched: "As long as a unit where all models have this rule hasn't moved during
    the round, enemy units shooting at it from over 9\" away get -2 to hit rolls."

    With +1 to hit already (Quality 4+, Defense 6+): -2 makes the total -1 (5+, 2/6); a target that moved
    this round: +1 (3+, 4/6)."""
    d = Defender(3, defense=6, rules=("Entrenched",))
    assert close(wounds(attack(distance=12, hit_modifiers=(1,)), d), F(2, 6) * F(5, 6))
    moved = Defender(3, defense=6, rules=("Entrenched",), moved=True)
    assert close(wounds(attack(distance=12, hit_modifiers=(1,)), moved), F(4, 6) * F(5, 6))


def test_shielded():
    """GF v3.5 army books: Shielded: "Units where all models have this rule get +1 to defense rolls."

    Defense 4+ against AP(0): saved on 3+ (2/6 unsaved) instead of 4+; in melee too; with cover, on 2+
    (1/6); a joined hero without it: the unit's models are not Shielded, the hero alone with it is.
    Quality 2+ (5/6 hits).
    """
    d = Defender(3, defense=4, rules=("Shielded",))
    assert close(wounds(attack(quality=2), d), F(5, 6) * F(2, 6))
    assert close(wounds(attack(quality=2, melee=True), d), F(5, 6) * F(2, 6))
    covered = Defender(3, defense=4, rules=("Shielded",), cover=True)
    assert close(wounds(attack(quality=2), covered), F(5, 6) * F(1, 6))
    mixed = Defender(3, defense=4, rules=("Shielded",), hero=Hero(2, 4))
    assert close(wounds(attack(quality=2), mixed), F(5, 6) * F(3, 6))
    hero_only = compile_attack(attack(), Defender(2, defense=4, hero=Hero(2, 4, rules=("Shielded",)))).target
    assert hero_only.defense.tolist() == [4, 4, 3]


@pytest.mark.parametrize("rule", ["Thrust", "Lance"])
def test_thrust_and_lance(rule):
    """GF v3.5 common rules: Thrust (and Lance, GF Beginner's Guide v3.4.1, the same words): "When charging,
    gets +1 to hit rolls and AP(+1) in melee."

    Quality 4+ against Defense 4+: charging, hits on 3+ (4/6) and AP(1) saves on 5+ (4/6 unsaved): 16/36;
    not charging: 3/6 x 3/6, with a warning; on a shooting weapon: refused."""
    d = Defender(3, defense=4)
    assert close(wounds(attack(rules=(rule,), melee=True, charging=True), d), F(16, 36))
    calm = compile_attack(attack(rules=(rule,), melee=True), d)
    assert any(rule in w and "charging" in w for w in calm.warnings)
    assert close(wounds(attack(rules=(rule,), melee=True), d), F(9, 36))
    with pytest.raises(InputError):
        Weapon("Gun", rules=(rule,))


def test_versatile_attack():
    """GF v3.5 army books: Versatile Attack: "When this unit is activated, pick one effect: until the end of
    the activation all models with this rule in it either get AP(+1) when attacking, or get +1 to hit rolls
    when attacking."

    Quality 5+ against Defense 4+: AP(+1) gives 2/6 x 4/6 = 8/36, +1 to hit 3/6 x 3/6 = 9/36; with no
    choice given, +1 to hit is picked (more expected wounds) and said. Quality 3+ against Defense 3+: AP(+1)
    (4/6 x 3/6) beats +1 to hit (5/6 x 2/6)."""
    d = Defender(3, defense=4)
    assert close(wounds(attack(quality=5, versatile="ap"), d), F(8, 36))
    assert close(wounds(attack(quality=5, versatile="hit"), d), F(9, 36))
    chosen = Attacker((WeaponGroup(1, Weapon("w")),), 5, rules=("Versatile Attack",))
    notes: list[str] = []
    assert versatile_choice(chosen, d, notes).versatile == "hit"
    assert any("Versatile Attack: +1 to hit picked" in w for w in notes)
    assert close(wounds(chosen, d), F(9, 36))
    other = Attacker((WeaponGroup(1, Weapon("w")),), 3, rules=("Versatile Attack",))
    assert close(wounds(other, Defender(3, defense=3)), F(4, 6) * F(3, 6))
    with pytest.raises(InputError) as e:
        attack(versatile="both")
    assert e.value.field == "versatile"


# --- the per-die reference --------------------------------------------------------------------------------

NAIVE_CASES = {
    "stealth_hero_lock_on_other_group": (
        Attacker(
            (
                WeaponGroup(3, Weapon("Rifle", 2, rules=("AP(1)",))),
                WeaponGroup(1, Weapon("Missile", 2, rules=("Lock-On", "AP(2)"))),
            ),
            4,
            hit_modifiers=(1, -1),
            distance=12,
        ),
        Defender(3, defense=4, rules=("Stealth",), hero=Hero(2, 3, rules=("Stealth",))),
    ),
    "artillery_both_sides_entrenched": (
        Attacker((WeaponGroup(2, Weapon("Gun", 3, rules=("Blast(2)",))),), 3, distance=18, rules=("Artillery",)),
        Defender(3, defense=4, tough=2, rules=("Artillery", "Entrenched")),
    ),
    "shielded_hero_regen_cover": (
        attack(attacks=2, models=3, rules=("AP(1)",)),
        Defender(3, defense=3, cover=True, rules=("Shielded", "Regeneration"), hero=Hero(2, 4, rules=("Shielded",))),
    ),
    "thrust_versatile_hit_charge": (
        attack(attacks=2, models=3, quality=5, rules=("Thrust", "Rending"), melee=True, charging=True, versatile="hit"),
        Defender(3, defense=3, tough=2, rules=("Shielded",)),
    ),
    "slayer_tough_hero_rending": (
        Attacker((WeaponGroup(3, Weapon("Axe", 2, melee=True, rules=("Rending",))),), 4, rules=("Slayer",)),
        Defender(2, defense=3, tough=3, hero=Hero(1, 2)),
    ),
    "lance_versatile_ap_furious": (
        attack(attacks=2, models=3, rules=("Lance", "Furious"), melee=True, charging=True, versatile="ap"),
        Defender(4, defense=4, hero=Hero(2, 3)),
    ),
}


@pytest.mark.parametrize("name", sorted(NAIVE_CASES))
def test_naive_reference_agrees_with_exact(name):
    attacker, defender = NAIVE_CASES[name]
    assert_agree(naive_tally(attacker, defender, 6000, seed=11), grimdark_exact(attacker, defender), label=name)


def test_profile_unit_rules_reach_attacker_and_defender():
    """GF v3.5 common rules: Stealth, Artillery, Entrenched; army books: Shielded, Versatile Attack - written on a
    profile, they reach the Attacker (Artillery, Versatile Attack) and the Defender and its joined Hero (the
    target's), so that a unit with Stealth and a hero without it is not Stealthy."""
    from mathhammer.grimdark.profiles import join_hero, load_text, unit_attacker, unit_defender

    units = load_text(
        """
[units.Rangers]
source = "test"
models = 5
quality = 4
defense = 4
points = 100
rules = ["Stealth", "Shielded", "Artillery", "Versatile Attack", "Entrenched"]
weapons = [{ name = "Rifle", range = 24, attacks = 1 }]

[units.Captain]
source = "test"
models = 1
quality = 3
defense = 4
tough = 3
points = 50
rules = ["Hero", "Shielded"]
""",
        "t.toml",
    )
    rangers, captain = units["Rangers"], units["Captain"]
    attacker = unit_attacker(rangers, melee=False, distance=12)
    assert attacker is not None
    assert [r.name for r in attacker.rules] == ["Artillery", "Versatile Attack"]
    defender = unit_defender(rangers, hero=join_hero(rangers, captain, "hero"))
    assert [r.name for r in defender.rules] == ["Stealth", "Shielded", "Artillery", "Entrenched"]
    assert defender.hero is not None and [r.name for r in defender.hero.rules] == ["Shielded"]
    # Quality 4+ with Artillery's +1 over 9" (3+) and +1 to hit picked by Versatile Attack: capped at +1, so
    # AP(+1) is picked (Defense 4+ Shielded saves on 3+; AP(1) on 4+): 5 x 4/6 x 3/6; the hero lacks Stealth,
    # Artillery and Entrenched, so the target's -1/-2/-2 do not apply; Shielded applies to all (the hero has it)
    assert abs(wounds(attacker, defender) - 5 * 4 / 6 * 3 / 6) < 1e-12


# --- Takedown and Sniper ------------------------------------------------------------------------------------


def test_takedown():
    """GF v3.5 common rules: Takedown: "This model may pick any model in the target unit as its individual target,
    which is resolved as if it was a unit of [1]. Takedown attacks must be resolved before other weapons."

    Quality 2+ (5/6) against Defense 6+ (5/6 unsaved), 4 attacks: on a unit of 3 one-wound models only the picked
    model can die, 1 - (11/36)^4; on Tough(3) models the picked one takes min(X, 3) of X ~ Bin(4, 25/36)
    unsaved hits; with Blast(3) each hit is one hit (a unit of 1)."""
    p = F(25, 36)
    t = grimdark_exact(attack(attacks=4, quality=2, rules=("Takedown",)), Defender(3, defense=6))
    assert close(t.models_destroyed[1], 1 - (1 - p) ** 4) and close(t.models_destroyed[2], 0)
    blast = grimdark_exact(attack(attacks=4, quality=2, rules=("Takedown", "Blast(3)")), Defender(3, defense=6))
    assert close(mean(blast.wounds), 1 - (1 - p) ** 4)
    tough = grimdark_exact(attack(attacks=4, quality=2, rules=("Takedown",)), Defender(2, defense=6, tough=3))
    binom = [(1 - p) ** 4, 4 * p * (1 - p) ** 3, 6 * p**2 * (1 - p) ** 2, 4 * p**3 * (1 - p), p**4]
    assert close(mean(tough.wounds), sum(min(k, 3) * binom[k] for k in range(5)))
    # resolved before the other weapons, even when listed after them
    two = Attacker((WeaponGroup(1, Weapon("Rifle")), WeaponGroup(1, Weapon("Knife", rules=("Takedown",)))), 4)
    assert [g.label for g in compile_attack(two, Defender(3)).groups] == ["Knife", "Rifle"]


def test_sniper():
    """GF v3.5 common rules: Sniper: "Shoots at Quality 2+, and each model with Sniper may pick any model in the
    target unit as its individual target, which is resolved as if it was a unit of 1. Sniper shooting must be
    resolved before other weapons."

    Quality 5 shoots at 2+ (5/6); a unit of Defense 5+ with a joined hero of Defense 2+: the picked model of the
    unit blocks at its own 5+ (4/6 unsaved): 5/6 x 4/6 for one shot; a joined hero without Stealth does not
    cancel the unit's Stealth for the picked model (from 12": 3+, 4/6). Picking a hero that is not there is
    refused."""
    d = Defender(3, defense=5, hero=Hero(2, 2))
    assert close(wounds(attack(quality=5, rules=("Sniper",)), d), F(5, 6) * F(4, 6))
    notes = compile_attack(attack(quality=5, rules=("Sniper",)), d).warnings
    assert any("a model of the unit picked" in w for w in notes)
    stealth = Defender(3, defense=5, rules=("Stealth",), hero=Hero(2, 2))
    assert close(wounds(attack(quality=5, rules=("Sniper",), distance=12), stealth), F(4, 6) * F(4, 6))
    with pytest.raises(InputError) as e:
        compile_attack(attack(rules=("Sniper",), snipe="hero"), Defender(3, defense=5))
    assert (e.value.field, e.value.value) == ("snipe", "hero") and "model" in e.value.allowed


def test_sniper_picks_the_joined_hero():
    """GF v3.5 common rules: Sniper: "each model with Sniper may pick any model in the target unit as its
    individual target, which is resolved as if it was a unit of 1. Sniper shooting must be resolved before
    other weapons." `snipe="hero"`: a Tough(2) hero at Defense 3+ (its own) with two Sniper shots (2+, 5/6 to
    hit; 2/6 unsaved): each shot wounds it with 5/18; then three rifles at Quality 4+ against Defense 6+
    models wound the unit's 3 models first, the hero's earlier wounds kept on it."""
    sniper = WeaponGroup(1, Weapon("Long Rifle", 2, rules=("Sniper",)))
    rifles = WeaponGroup(3, Weapon("Rifle", 1))
    d = Defender(3, defense=6, hero=Hero(2, 3))
    t = grimdark_exact(Attacker((rifles, sniper), 4, snipe="hero"), d)
    p = F(5, 18)
    hero = [(1 - p) ** 2, 2 * p * (1 - p), p * p]  # the hero's wounds from the snipers
    assert close(t.hero_wounds[2], hero[2]) and close(t.hero_wounds[1], hero[1])  # 3 rifles never reach it
    q = F(1, 2) * F(5, 6)  # a rifle wounds a unit model
    assert close(mean(t.wounds), 3 * q + 2 * p)
    # killed, the hero counts among the models removed
    assert close(t.models_destroyed[4], hero[2] * q**3)
    assert close(t.models_destroyed[3], hero[2] * 3 * q**2 * (1 - q) + (1 - hero[2]) * q**3)
    # the hero next in line carries the snipers' wounds: P(marker 1) = P(3 rifle wounds) x P(hero 1 wound)
    assert close(t.wounds_on_next[1], q**3 * hero[1])
    # the snipers pick the hero whatever the order the weapons are listed in
    again = grimdark_exact(Attacker((sniper, rifles), 4, snipe="hero"), d)
    assert close(mean(again.wounds), mean(t.wounds))
    with pytest.raises(InputError):
        Weapon("Knife", melee=True, rules=("Sniper",))


SNIPE_CASES = {
    "takedown_tough_shred_then_rifles": (
        Attacker(
            (
                WeaponGroup(3, Weapon("Rifle", 2, rules=("AP(1)",))),
                WeaponGroup(2, Weapon("Knife", 2, rules=("Takedown", "Shred", "Deadly(2)"))),
            ),
            3,
        ),
        Defender(3, defense=3, tough=3, rules=("Regeneration",), hero=Hero(2, 5, rules=("Regeneration",))),
    ),
    "sniper_blast_relentless_shielded_hero": (
        Attacker(
            (WeaponGroup(2, Weapon("Long Rifle", 2, rules=("Sniper", "Blast(2)", "Relentless", "AP(1)"))),),
            5,
            distance=18,
        ),
        Defender(3, defense=4, rules=("Shielded", "Stealth"), hero=Hero(2, 3)),
    ),
    "sniper_picks_the_hero_then_rifles": (
        Attacker(
            (
                WeaponGroup(4, Weapon("Rifle", 2, rules=("AP(1)",))),
                WeaponGroup(2, Weapon("Long Rifle", 2, rules=("Sniper", "Deadly(2)"))),
            ),
            4,
            snipe="hero",
        ),
        Defender(3, defense=4, rules=("Shielded", "Regeneration"), hero=Hero(3, 3, rules=("Regeneration",))),
    ),
    "two_snipers_one_model_each": (
        Attacker(
            (
                WeaponGroup(1, Weapon("Sniper A", 3, rules=("Sniper",))),
                WeaponGroup(1, Weapon("Takedown B", 2, melee=False, rules=("Takedown", "Surge"))),
            ),
            4,
        ),
        Defender(4, defense=5, tough=2),
    ),
}


@pytest.mark.parametrize("name", sorted(SNIPE_CASES))
def test_snipe_naive_reference_agrees_with_exact(name):
    attacker, defender = SNIPE_CASES[name]
    assert_agree(naive_tally(attacker, defender, 6000, seed=13), grimdark_exact(attacker, defender), label=name)


def test_slayer():
    """GF v3.5 army books: Slayer: "This model's weapons get AP(+2) against units where most models have Tough(3)
    or higher."

    Quality 2+ (5/6) against Defense 4+: Tough(3) models block at 6+ with AP(2) (5/6 unsaved) instead of 4+
    (3/6); against one-wound models no change; a unit of 1 Tough(1) model with a Tough(3) hero: half, not
    most (3/6); of 1 Tough(3) model with a Tough(1) hero: half again."""
    slayer = Attacker((WeaponGroup(1, Weapon("Axe", melee=True)),), 2, rules=("Slayer",))
    assert close(wounds(slayer, Defender(2, defense=4, tough=3)), F(5, 6) * F(5, 6))
    assert close(wounds(slayer, Defender(2, defense=4)), F(5, 6) * F(3, 6))
    assert close(wounds(slayer, Defender(1, defense=4, hero=Hero(3, 4))), F(5, 6) * F(3, 6))
    assert close(wounds(slayer, Defender(2, defense=4, tough=3, hero=Hero(1, 4))), F(5, 6) * F(5, 6))
