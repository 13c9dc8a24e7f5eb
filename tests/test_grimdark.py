"""Grimdark Future: rules parsing, the model, and the exact engine against hand-computed numbers.

Seed: /work/shared/rules/seeds/002_2581754eb54f7632.txt (Polish; digest in
/work/shared/rules/README.md, "One Page Rules: Grimdark Future"). Core-rule
wordings are quoted in mathhammer/grimdark/compiled.py.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.grimdark import (
    Attacker,
    Defender,
    Hero,
    Rule,
    Weapon,
    WeaponGroup,
    compile_attack,
    grimdark_exact,
    morale_fail_probability,
    parse_rule,
    parse_rules,
)
from mathhammer.grimdark.compiled import save_mask, unsaved_probability

from .grimdark_naive import naive_tally
from .stats import assert_agree

F = Fraction


def mean(h: np.ndarray) -> float:
    return float(h @ np.arange(h.size))


def attack(attacks=1, quality=4, rules=(), models=1, melee=False, **kw) -> Attacker:
    return Attacker((WeaponGroup(models, Weapon("w", attacks=attacks, melee=melee, rules=rules)),), quality, **kw)


def close(x, y) -> bool:
    return abs(float(x) - float(y)) < 1e-12


# --- rules.py ---------------------------------------------------------------------------------------


def test_rules_parse_text_and_objects():
    got = parse_rules(
        ["AP(1)", {"name": "Blast", "rating": 3}, {"name": "deadly", "rating": "3"}, "Lock On"], "weapon", "r"
    )
    assert got == (Rule("AP", 1), Rule("Blast", 3), Rule("Deadly", 3), Rule("Lock-On"))
    assert parse_rules("AP(2), Rending", "weapon", "r") == (Rule("AP", 2), Rule("Rending"))
    assert parse_rule("Tough(3)", "unit", "r") == Rule("Tough", 3)
    assert str(Rule("Impact", 2)) == "Impact(2)"


def test_unknown_rule_is_an_error_naming_field_rule_and_known_rules():
    with pytest.raises(InputError) as e:
        parse_rules(["AP(1)", "Limited"], "weapon", "weapon.rules")
    assert e.value.field == "weapon.rules[1]"
    assert "Limited" in str(e.value) and "Rending" in str(e.value) and "Blast(X)" in str(e.value)
    with pytest.raises(InputError, match="did you mean 'Rending'"):
        parse_rule("Rendin", "weapon", "rules")
    with pytest.raises(InputError, match="Tough is a unit rule"):
        parse_rule("Tough(3)", "weapon", "rules")


@pytest.mark.parametrize(
    "bad", ["AP", "AP(x)", "AP(-1)", "Rending(2)", {"name": "AP", "rating": 1.5}, {"nom": "AP"}, 7, "Blast(0)"]
)
def test_bad_ratings_are_errors(bad):
    with pytest.raises(InputError):
        parse_rule(bad, "weapon", "rules")


def test_unknown_rule_in_a_weapon_or_defender_is_an_error():
    with pytest.raises(InputError, match="rules"):
        Weapon(rules=("Tear",))
    with pytest.raises(InputError, match="Fear"):
        Defender(models=5, rules=("Fear",))
    with pytest.raises(InputError):
        Weapon(rules=("AP(1)", "AP(2)"))


def test_model_validation_names_fields():
    for make, field in [
        (lambda: Attacker((), 4), "groups"),
        (lambda: attack(quality=7), "quality"),
        (lambda: Defender(models=0), "models"),
        (lambda: Defender(defense=1), "defense"),
        (lambda: Defender(tough=2, rules=("Tough(3)",)), "tough"),
        (lambda: Weapon(attacks=-1), "attacks"),
        (lambda: Weapon(melee=True, rules=("Indirect",)), "rules"),
        (lambda: Weapon(rules=("Impact(2)",)), "rules"),
        (lambda: Hero(defense=9), "hero.defense"),
    ]:
        with pytest.raises(InputError) as e:
            make()
        assert e.value.field == field
    assert Defender(rules=("Tough(3)",)).tough == 3
    assert Weapon(rules=[{"name": "AP", "rating": "2"}]).rules == (Rule("AP", 2),)


# --- the seed's numbers --------------------------------------------------------------------------------


def test_seed_worked_example_robots_against_saurians_in_cover():
    """Seed, "Przykład pełnego ataku strzeleckiego": 5 Robot Warriors, Quality 4+, 24" A1 AP(1), at 5 Saurian
    Warriors with Defense 4+ in ruins; cover +1 and AP(1) cancel, 4+ saves. 5 x 1/2 x 1/2 = 1.25 wounds."""
    robots = Attacker((WeaponGroup(5, Weapon("Rifle", 1, range=24, rules=("AP(1)",))),), quality=4, distance=12)
    tally = grimdark_exact(robots, Defender(models=5, defense=4, cover=True))
    assert close(mean(tally.wounds), 1.25)
    want = [float(F(3, 4) ** (5 - k) * F(1, 4) ** k * [1, 5, 10, 10, 5, 1][k]) for k in range(6)]
    assert np.allclose(tally.models_destroyed, want, atol=1e-15)
    assert close(tally.wounds.sum(), 1.0)


def test_seed_cover_and_ap_add_up():
    """Seed, "Współdziałanie osłony i AP": Defense 4+ in cover against AP(2) saves on 5+."""
    assert save_mask(4, 2, 1) == (1 << 5) | (1 << 6)
    tally = grimdark_exact(attack(quality=2, rules=("AP(2)",)), Defender(5, defense=4, cover=True))
    assert close(mean(tally.wounds), F(5, 6) * F(4, 6))


def test_seed_ap_example_defense_3_against_ap2_needs_5():
    """Seed, "Przebicie pancerza": Defense 3+ with AP(2) needs a natural 5 or 6."""
    assert close(unsaved_probability(3, 2, 0, 0), F(4, 6))


def test_seed_cover_example_defense_4_saves_on_3():
    """Seed, "Osłona": Defense 4+ in cover blocks on a natural 3+; not in melee.

    ("Osłona nie działa podczas walki wręcz."; GF Beginner's Guide v3.4.1, Terrain, Cover: "+1 to Defense
    rolls when blocking hits from shooting attacks".)
    """
    shoot = grimdark_exact(attack(quality=2), Defender(5, defense=4, cover=True))
    melee = grimdark_exact(attack(quality=2, melee=True), Defender(5, defense=4, cover=True))
    assert close(mean(shoot.wounds), F(5, 6) * F(2, 6))
    assert close(mean(melee.wounds), F(5, 6) * F(3, 6))


def test_attacks_are_models_times_a():
    """Seed, "Liczba ataków": 5 models x A2 = 10 dice."""
    assert compile_attack(attack(attacks=2, models=5), Defender(10)).groups[0].attacks == 10
    tally = grimdark_exact(attack(attacks=2, models=5), Defender(20, defense=6))
    assert close(mean(tally.wounds), 10 * F(3, 6) * F(5, 6))


@pytest.mark.parametrize(
    ("quality", "modifier", "p_hit"),
    [
        (4, 0, F(3, 6)),
        (4, 1, F(4, 6)),
        (4, 3, F(4, 6)),
        (4, -1, F(2, 6)),
        (4, -3, F(2, 6)),
        (6, -1, F(1, 6)),
        (2, 1, F(5, 6)),
    ],
)
def test_hit_modifiers_capped_and_natural_rolls(quality, modifier, p_hit):
    """Seed, "Modyfikatory trafienia": the total is at most +1/-1; natural 6 always hits, natural 1 always misses."""
    tally = grimdark_exact(attack(quality=quality, hit_modifier=modifier), Defender(3, defense=6))
    assert close(mean(tally.wounds), p_hit * F(5, 6))


def test_natural_rolls_on_defense():
    """GF Beginner's Guide v3.4.1, "Modifiers": "a roll of 6 always counts as a success and a roll of 1 always
    counts as a fail, regardless of how much it is being modified by" - Defense rolls too (NATURAL_DEFENSE):
    Defense 2+ in cover still fails on a 1; AP(5) on Defense 2+ still saves on a 6."""
    assert close(unsaved_probability(2, 0, 1, 0), F(1, 6))
    assert close(unsaved_probability(2, 5, 0, 0), F(5, 6))


def test_tough_finishes_one_model_before_the_next():
    """Seed, "Modele z zasadą Tough": wounds finish one model first. 3 sure-ish wounds on 2 models of Tough(2)."""
    p = F(5, 6) * F(5, 6)  # Quality 2+, Defense 6+
    tally = grimdark_exact(attack(attacks=3, quality=2), Defender(2, defense=6, tough=2))
    # exactly: 2 or 3 wounds -> 1 model removed (marker 0 or 1); 0-1 wounds -> none
    assert close(tally.models_destroyed[1], 3 * p**2 * (1 - p) + p**3)
    assert close(tally.wounds_on_next[1], 3 * p * (1 - p) ** 2 + p**3)
    assert close(tally.models_destroyed[2], 0)


def test_joined_hero_takes_wounds_last_at_the_units_defense_while_it_stands():
    """Seed, "Bohater dołączony do oddziału": the hero takes wounds only after the rest of the unit; core rules,
    Hero: it "must use the unit's Defense until all other models have been killed" - all blocks of one weapon
    group that starts while the unit's models stand are rolled at the unit's Defense (issue 25 point 5), the
    hero's own Defense only for a group that starts with the hero alone."""
    defender = Defender(1, defense=6, hero=Hero(tough=3, defense=2))
    tally = grimdark_exact(attack(attacks=2, quality=2), defender)
    wound = F(5, 6) * F(5, 6)  # Quality 2+, blocked on 6+ (the unit's Defense) for both hits
    assert close(tally.models_destroyed[1], 1 - (1 - wound) ** 2)
    assert close(tally.wounds_on_next[1], wound * wound)
    assert close(tally.wounds[2], wound * wound)
    assert close(tally.models_destroyed[2], 0)
    # two groups of one attack each: the second starts with the hero alone when the first killed the model
    two = Attacker((WeaponGroup(1, Weapon("a")), WeaponGroup(1, Weapon("b"))), quality=2)
    tally = grimdark_exact(two, defender)
    hero_own = F(5, 6) * F(1, 6)  # blocked on 2+
    assert close(tally.wounds_on_next[1], wound * hero_own)


def test_deadly_does_not_carry_over():
    """Seed, "Broń Deadly": the excess does not pass to the next model; Deadly(3) on Tough(1) kills one a wound."""
    plain = grimdark_exact(attack(attacks=4, quality=2), Defender(5, defense=5))
    deadly = grimdark_exact(attack(attacks=4, quality=2, rules=("Deadly(3)",)), Defender(5, defense=5))
    assert np.allclose(plain.models_destroyed, deadly.models_destroyed, atol=1e-15)
    assert np.allclose(plain.wounds, deadly.wounds, atol=1e-15)  # damage counts the wounds the models took


def test_deadly_multiplies_on_one_tough_model():
    """Deadly(3): one unsaved hit removes a Tough(3) model; a Tough(4) model needs two."""
    p = F(5, 6) * F(4, 6)  # Quality 2+, Defense 5+
    t3 = grimdark_exact(attack(attacks=1, quality=2, rules=("Deadly(3)",)), Defender(1, defense=5, tough=3))
    assert close(t3.models_destroyed[1], p)
    t4 = grimdark_exact(attack(attacks=2, quality=2, rules=("Deadly(3)",)), Defender(1, defense=5, tough=4))
    assert close(t4.models_destroyed[1], p * p)
    assert close(t4.wounds_on_next[3], 2 * p * (1 - p))


def test_blast_capped_by_models_and_ignores_cover():
    """Blast(X): "each hit becomes X hits, at most the number of models in the target", and ignores cover."""
    for cover in (False, True):
        tally = grimdark_exact(attack(quality=2, rules=("Blast(3)",)), Defender(2, defense=6, cover=cover))
        u = F(5, 6)
        want = [F(1, 6) + F(5, 6) * (1 - u) ** 2, F(5, 6) * 2 * u * (1 - u), F(5, 6) * u * u]
        assert np.allclose(tally.models_destroyed, [float(x) for x in want], atol=1e-15)
    many = grimdark_exact(attack(quality=2, rules=("Blast(3)",)), Defender(10, defense=6))
    assert close(mean(many.wounds), F(5, 6) * 3 * F(5, 6))


def test_rending():
    """Rending (v3.5): "on unmodified results of 6 to hit, those hits get AP(+4)" - added to the weapon's AP.

    AP(1) Rending at Defense 2+ in cover: plain hits save on 2+ (fail on a 1); six hits have AP(5) and
    save only on a natural 6 (v3.4.1's "AP(4)" would save on 5+).
    """
    tally = grimdark_exact(attack(quality=4, rules=("AP(1)", "Rending")), Defender(3, defense=2, cover=True))
    assert close(mean(tally.wounds), F(2, 6) * F(1, 6) + F(1, 6) * F(5, 6))
    assert compile_attack(attack(rules=("AP(2)", "Rending")), Defender(3)).groups[0].ap_six == 6


def test_destructive():
    """GF v3.5 common rules: Destructive (Army Forge, "system": "all"): "On unmodified results of 6 to hit,
    those hits get AP(+4)." - like Rending's AP, but Regeneration still applies.

    AP(1) Destructive at Defense 2+ in cover: plain hits fail only on a natural 1, six hits have AP(5)
    and are saved only by a natural 6; Regeneration then ignores a wound on 5+.
    """
    d = Defender(3, defense=2, cover=True, rules=("Regeneration",))
    tally = grimdark_exact(attack(quality=4, rules=("AP(1)", "Destructive")), d)
    assert close(mean(tally.wounds), (F(2, 6) * F(1, 6) + F(1, 6) * F(5, 6)) * F(4, 6))
    assert compile_attack(attack(rules=("AP(2)", "Destructive")), Defender(3)).groups[0].ap_six == 6
    both = compile_attack(attack(rules=("AP(1)", "Destructive", "Rending")), Defender(3)).groups[0]
    assert (both.ap_normal, both.ap_six, both.regeneration) == (1, 9, 0)  # AP(+4) twice adds up


def test_surge():
    """GF v3.5 common rules: Surge (Army Forge, "system": "all"): "On unmodified results of 6 to hit, this
    weapon deals 1 extra hits (only the original hit counts as a 6 for special rules)."

    Quality 6+ Surge Rending against Defense 2+: a six hit has AP(4) and is saved only by a natural 6; its
    extra hit is plain (AP 0, no Rending) and fails only on a natural 1. With Relentless over 9" as well,
    each rule deals its own extra hit (the reading chosen).
    """
    d = Defender(5, defense=2)
    tally = grimdark_exact(attack(quality=6, rules=("Surge", "Rending")), d)
    assert close(mean(tally.wounds), F(1, 6) * (F(5, 6) + F(1, 6)))
    both = grimdark_exact(attack(quality=6, rules=("Surge", "Relentless", "Rending"), distance=12), d)
    assert close(mean(both.wounds), F(1, 6) * (F(5, 6) + 2 * F(1, 6)))
    assert compile_attack(attack(rules=("Surge",)), d).groups[0].extra == 1
    assert compile_attack(attack(rules=("Surge", "Relentless"), distance=12), d).groups[0].extra == 2


def test_shred():
    """GF v3.5 common rules: Shred (Army Forge, "system": "all"): "On unmodified results of 1 to block hits,
    this weapon deals 1 extra wound."

    Quality 6+ (six hits only) against Defense 6+: a Defense 1 deals 2 wounds, 2-5 one, 6 saves. Reading
    chosen: the extra wound is a wound of its own (its own Regeneration roll, Deadly multiplies it, it
    goes on the model next in line).
    """
    d = Defender(3, defense=6)
    shred = attack(quality=6, rules=("Shred",))
    assert close(mean(grimdark_exact(shred, d).wounds), F(1, 6) * (F(4, 6) + 2 * F(1, 6)))
    # Bane: a Defense 6 is re-rolled and the re-roll stands, so a 1 is 1/6 + 1/36
    bane = grimdark_exact(attack(quality=6, rules=("Shred", "Bane")), d)
    assert close(mean(bane.wounds), F(1, 6) * (F(28, 36) + 2 * F(7, 36)))
    # Regeneration rolls for each wound, the extra one too
    regen = grimdark_exact(shred, Defender(3, defense=6, rules=("Regeneration",)))
    assert close(mean(regen.wounds), F(1, 6) * (F(4, 6) + 2 * F(1, 6)) * F(4, 6))
    # the extra wound goes on to the next model: a natural 1 kills two Tough(1) models
    assert close(grimdark_exact(shred, Defender(2, defense=6)).models_destroyed[2], F(1, 36))
    # Deadly(2) on Tough(3): only a natural 1 (2 wounds, then the extra wound's 2, of which 1 is left) kills
    deadly = grimdark_exact(attack(quality=6, rules=("Shred", "Deadly(2)")), Defender(1, defense=6, tough=3))
    assert close(deadly.models_destroyed[1], F(1, 36))
    assert close(mean(deadly.wounds), F(4, 36) * 2 + F(1, 36) * 3)
    assert compile_attack(shred, d).groups[0].shred == 1


def test_unstoppable():
    """GF v3.5 common rules: Unstoppable (Army Forge, "system": "all"): "Ignores Regeneration, and ignores all
    negative modifiers to this weapon."

    Quality 4+ with -1 to hit and Indirect after moving: the negative modifiers are dropped (3/6 hits, not
    2/6), a +1 stays; the target's cover still counts (Defense 6+ in cover saves on 5+: 4/6 unsaved, the
    reading chosen) and Regeneration is ignored.
    """
    d = Defender(3, defense=6, cover=True, rules=("Regeneration",))
    base = dict(quality=4, hit_modifier=-1, moved=True)
    plain = grimdark_exact(attack(rules=("Indirect",), **base), d)
    assert close(mean(plain.wounds), F(2, 6) * F(4, 6) * F(4, 6))
    tally = grimdark_exact(attack(rules=("Indirect", "Unstoppable"), **base), d)
    assert close(mean(tally.wounds), F(3, 6) * F(4, 6))
    plus = grimdark_exact(attack(quality=4, rules=("Unstoppable",), hit_modifier=1), d)
    assert close(mean(plus.wounds), F(4, 6) * F(4, 6))


def test_precise():
    """GF v3.5 common rules: Precise (Army Forge, "system": "all"): "Gets +1 to hit when attacking." - a
    hit modifier like any other, capped at +1/-1 in total; Lock-On/Unstoppable drop only the negative ones.

    Quality 5+ against Defense 6+ (5/6 unsaved): Precise hits on 4+; with +1 already, still 4+ (the cap);
    with -1 (or Indirect after moving), 5+; with -1 and Lock-On, 4+.
    """
    d = Defender(3, defense=6)

    def hits(**kw):
        return mean(grimdark_exact(attack(quality=5, **kw), d).wounds) / (5 / 6)

    assert close(hits(rules=("Precise",)), F(3, 6))
    assert close(hits(rules=("Precise",), hit_modifier=1), F(3, 6))
    assert close(hits(rules=("Precise",), hit_modifier=-1), F(2, 6))
    assert close(hits(rules=("Precise", "Indirect"), moved=True), F(2, 6))
    assert close(hits(rules=("Precise", "Lock-On"), hit_modifier=-1), F(3, 6))


def test_poison():
    """Poison (GF Beginner's Guide v3.4.1): "the target must re-roll unmodified Defense rolls of 6 when
    blocking hits ... a die roll may only be re-rolled once" - every hit of the weapon."""
    tally = grimdark_exact(attack(quality=4, rules=("Poison",)), Defender(3, defense=2))
    unsaved = 1 - (F(4, 6) + F(1, 6) * F(5, 6))  # 2-5 save; a 6 is re-rolled and saves on 2+
    assert close(mean(tally.wounds), F(3, 6) * unsaved)


def test_bane_is_the_v35_name_of_poison():
    """Bane (v3.5): "Ignores Regeneration, and when attacking the target must re-roll unmodified Defense
    results of 6" - the same effect as Poison."""
    d = Defender(3, defense=2, rules=("Regeneration",))
    assert close(
        mean(grimdark_exact(attack(rules=("Bane",)), d).wounds),
        mean(grimdark_exact(attack(rules=("Poison",)), d).wounds),
    )


def test_rending_and_poison_ignore_regeneration():
    """Regeneration: "roll one die for each. On a 5+ it is ignored"; Rending and Poison: "Ignores Regeneration"."""
    base = dict(quality=2)
    d = Defender(3, defense=6, rules=("Regeneration",))
    assert close(mean(grimdark_exact(attack(**base), d).wounds), F(5, 6) * F(5, 6) * F(4, 6))
    assert close(mean(grimdark_exact(attack(rules=("Rending",), **base), d).wounds), F(5, 6) * F(5, 6))
    want = F(5, 6) * (1 - F(1, 6) * F(1, 6))  # every Defense 6 is re-rolled
    assert close(mean(grimdark_exact(attack(rules=("Poison",), **base), d).wounds), want)


def test_regeneration_needs_all_models_including_the_hero():
    """Regeneration: "When a unit where all models have this rule" - a hero without it switches it off."""
    with_hero = Defender(3, defense=6, rules=("Regeneration",), hero=Hero(1, 6))
    assert close(mean(grimdark_exact(attack(quality=2), with_hero).wounds), F(25, 36))
    both = Defender(3, defense=6, rules=("Regeneration",), hero=Hero(1, 6, rules=("Regeneration",)))
    assert close(mean(grimdark_exact(attack(quality=2), both).wounds), F(25, 36) * F(4, 6))


def test_regeneration_before_deadly():
    """Reading chosen: Regeneration is rolled per unsaved hit, before Deadly multiplies it."""
    d = Defender(1, defense=6, tough=3, rules=("Regeneration",))
    tally = grimdark_exact(attack(quality=2, rules=("Deadly(3)",)), d)
    assert close(tally.models_destroyed[1], F(5, 6) * F(5, 6) * F(4, 6))


def test_reliable_is_quality_2_and_still_modified():
    """Reliable (GF Beginner's Guide v3.4.1): "attacks at Quality 2+ with this weapon ... Reliable only
    changes the Quality value, so the roll can still be modified"."""
    plain = grimdark_exact(attack(quality=6, rules=("Reliable",)), Defender(3, defense=6))
    assert close(mean(plain.wounds), F(5, 6) * F(5, 6))
    minus = grimdark_exact(attack(quality=6, hit_modifier=-1, rules=("Reliable",)), Defender(3, defense=6))
    assert close(mean(minus.wounds), F(4, 6) * F(5, 6))  # 2+ with -1: hits on 3+
    plus = grimdark_exact(attack(quality=6, hit_modifier=1, rules=("Reliable",)), Defender(3, defense=6))
    assert close(mean(plus.wounds), F(5, 6) * F(5, 6))  # a natural 1 still misses


def test_joined_hero_takes_morale_tests_with_its_quality():
    """Hero (GF Beginner's Guide v3.4.1): "The hero may take morale tests on behalf of the unit" - the better
    Quality of the two is used; the hero counts in the unit's starting size."""
    from mathhammer.grimdark.morale import morale_quality

    assert morale_quality(Defender(5, quality=5, hero=Hero(3, quality=3))) == 3
    assert morale_quality(Defender(5, quality=3, hero=Hero(3, quality=5))) == 3
    assert morale_quality(Defender(5, quality=4, hero=Hero(3))) == 4
    with pytest.raises(InputError, match=r"hero\.quality"):
        Hero(3, quality=7)


def test_lock_on_ignores_cover_and_negative_modifiers():
    """Lock-On: "Ignores cover and all negative modifiers to hit rolls"."""
    d = Defender(3, defense=4, cover=True)
    tally = grimdark_exact(attack(quality=4, hit_modifier=-1, rules=("Lock-On",)), d)
    assert close(mean(tally.wounds), F(3, 6) * F(3, 6))
    plus = grimdark_exact(attack(quality=4, hit_modifier=1, rules=("Lock-On",)), d)
    assert close(mean(plus.wounds), F(4, 6) * F(3, 6))


def test_indirect_minus_one_after_moving():
    """Indirect: "gets -1 to hit rolls when shooting after moving"; with Lock-On the -1 is ignored."""
    d = Defender(3, defense=6)
    assert close(mean(grimdark_exact(attack(rules=("Indirect",), moved=True), d).wounds), F(2, 6) * F(5, 6))
    assert close(mean(grimdark_exact(attack(rules=("Indirect",), moved=False), d).wounds), F(3, 6) * F(5, 6))
    both = attack(rules=("Indirect", "Lock-On"), moved=True)
    assert close(mean(grimdark_exact(both, d).wounds), F(3, 6) * F(5, 6))


def test_relentless_over_9_inches():
    """Relentless: "... shoots at enemies over 9\" away, unmodified results of 6 to hit deal one extra hit"."""
    d = Defender(5, defense=6)
    far = grimdark_exact(attack(quality=6, rules=("Relentless",), distance=12), d)
    near = grimdark_exact(attack(quality=6, rules=("Relentless",), distance=9), d)
    assert close(mean(far.wounds), F(1, 6) * 2 * F(5, 6))
    assert close(mean(near.wounds), F(1, 6) * F(5, 6))
    unknown = compile_attack(attack(rules=("Relentless",)), d)
    assert unknown.groups[0].extra == 0 and any("Relentless" in w for w in unknown.warnings)


def test_furious_when_charging_in_melee():
    """Furious: "When charging, unmodified results of 6 to hit in melee deal one extra hit"."""
    d = Defender(5, defense=6, cover=True)
    charge = grimdark_exact(attack(quality=6, melee=True, rules=("Furious",), charging=True), d)
    still = grimdark_exact(attack(quality=6, melee=True, rules=("Furious",)), d)
    assert close(mean(charge.wounds), F(1, 6) * 2 * F(5, 6))
    assert close(mean(still.wounds), F(1, 6) * F(5, 6))


def test_impact_after_charging_unless_fatigued():
    """Impact(X): "Roll X dice when attacking after charging, unless fatigued. For each 2+ the target takes one hit"."""
    d = Defender(5, defense=6)
    impact = Weapon("Hooves", attacks=0, melee=True, rules=("Impact(2)",))
    charging = Attacker((WeaponGroup(2, impact),), 4, charging=True)
    assert close(mean(grimdark_exact(charging, d).wounds), 4 * F(5, 6) * F(5, 6))
    tired = Attacker((WeaponGroup(2, impact),), 4, charging=True, fatigued=True)
    assert close(mean(grimdark_exact(tired, d).wounds), 0)
    assert compile_attack(tired, d).warnings


def test_morale_due_at_half_or_below():
    """Seed, "Kiedy wykonuje się test morale?": at half the starting size or below; a destroyed unit takes none."""
    tally = grimdark_exact(attack(attacks=5, quality=2), Defender(5, defense=5))
    p = tally.models_destroyed
    assert close(tally.morale_test_due[1], p[3] + p[4])
    assert close(morale_fail_probability(tally, 4), (p[3] + p[4]) * F(3, 6))
    four = grimdark_exact(attack(attacks=5, quality=2), Defender(4, defense=5))
    assert close(four.morale_test_due[1], four.models_destroyed[2] + four.models_destroyed[3])


def test_morale_single_tough_model_by_wounds():
    """Seed: one Tough model counts its wounds: Tough(3) tests with 1 wound left, Tough(4) with 2 left."""
    t3 = grimdark_exact(attack(attacks=3, quality=2), Defender(1, defense=5, tough=3))
    assert close(t3.morale_test_due[1], t3.wounds_on_next[2])
    t4 = grimdark_exact(attack(attacks=4, quality=2), Defender(1, defense=5, tough=4))
    assert close(t4.morale_test_due[1], t4.wounds_on_next[2] + t4.wounds_on_next[3])


def test_morale_half_strength_against_the_starting_size():
    """GF v3.5.1 core rules, Morale: a test when wounds "leave it with half or less of its starting size
    ... Note that starting size is counted at the beginning of the game". A unit of 5 with 3 left: one
    wound (2 left, 2 <= 5/2) makes a test due; counted against the 3 left it would not (2 > 3/2)."""
    a = attack(attacks=1, quality=2)  # hits on 2+: 5/6; Defense 6+ fails 5/6
    t = grimdark_exact(a, Defender(3, defense=6, starting_models=5))
    assert close(t.morale_test_due[1], F(5, 6) * F(5, 6))
    full = grimdark_exact(a, Defender(3, defense=6))  # a unit of 3 at full strength: 2 left is above half
    assert close(full.morale_test_due[1], 0)
    # the joined hero counts in the starting size: 2 of 4 + hero left, one wound leaves 2 of 5
    hero = grimdark_exact(a, Defender(2, defense=6, starting_models=4, hero=Hero(2, 3)))
    assert close(hero.morale_test_due[1], F(5, 6) * F(5, 6))
    assert Defender(3).starting_models == 3
    with pytest.raises(InputError, match="starting_models"):
        Defender(3, starting_models=2)


def test_morale_test_passed_or_shaken_at_the_quality_with_fearless():
    """GF v3.5.1 core rules, Morale: "take one regular Quality test ... If the test is passed, nothing happens.
    If the test is failed, the unit is Shaken" (a test from wounds never Routs); GF v3.5 common rules,
    Fearless: "When a unit where all models have this rule fails a morale test, roll one die. On a 4+ it
    counts as passed instead." Starting size 5 with 3 left, Quality 3+: one wound (5/6 * 5/6) makes the
    test due; it passes on 3+ (4/6); with Fearless 4/6 + 2/6 * 3/6 = 5/6."""
    a = attack(attacks=1, quality=2)
    due = F(5, 6) * F(5, 6)
    t = grimdark_exact(a, Defender(3, defense=6, quality=3, starting_models=5))
    assert close(t.morale_test_due[1], due)
    assert close(t.morale_passed[1], due * F(4, 6)) and close(t.morale_shaken[1], due * F(2, 6))
    assert close(t.morale_routed[1], 0)
    f = grimdark_exact(a, Defender(3, defense=6, quality=3, starting_models=5, fearless=True))
    assert close(f.morale_passed[1], due * F(5, 6)) and close(f.morale_shaken[1], due * F(1, 6))
    # a joined hero without Fearless: not "a unit where all models have this rule"
    h = grimdark_exact(a, Defender(2, defense=6, quality=3, starting_models=4, fearless=True, hero=Hero(2, 3)))
    assert close(h.morale_shaken[1], due * F(2, 6))
    # a single Tough(6) model: "tough value (for units with a single model)": 3 wounds leave half (3 of 6)
    one = grimdark_exact(attack(attacks=1, quality=2, rules=("Deadly(3)",)), Defender(1, defense=6, tough=6))
    assert close(one.morale_test_due[1], due)
    assert close(one.morale_passed[1], due * F(1, 2)) and close(one.morale_shaken[1], due * F(1, 2))
    for tally in (t, f, h, one):
        assert close(tally.morale_passed.sum(), 1) and close(tally.morale_shaken.sum(), 1)


def test_no_morale_test_from_wounds_after_melee():
    """GF v3.5.1 core rules, Morale: "Units that were in melee don't take morale tests from wounds at the end
    of an activation, but must compare the number of wounds each unit caused instead" (the melee result;
    not modelled): no test is reported after a melee attack, whatever the wounds."""
    claws = attack(attacks=1, models=3, quality=2, melee=True)
    t = grimdark_exact(claws, Defender(3, defense=6))
    assert close(t.models_destroyed[2], 3 * F(25, 36) ** 2 * F(11, 36))  # 1 of 3 left: shooting would test
    assert close(t.morale_test_due[1], 0) and close(t.morale_passed[1], 0) and close(t.morale_shaken[1], 0)


def test_out_of_range_weapon_rolls_nothing_and_warns():
    """Seed, "Zasięg broni": at 25\" a 24\" weapon cannot be used."""
    a = Attacker((WeaponGroup(5, Weapon("Carbine", 1, range=24)),), 4, distance=25)
    compiled = compile_attack(a, Defender(5))
    assert compiled.groups == () and compiled.warnings
    assert close(grimdark_exact(a, Defender(5)).wounds[0], 1)


# --- the per-die reference ------------------------------------------------------------------------------

NAIVE_CASES = {
    "seed_example": (attack(attacks=1, models=5, rules=("AP(1)",)), Defender(5, defense=4, cover=True)),
    "rending_ap_bane_relentless": (
        attack(attacks=2, models=3, rules=("Rending", "AP(1)", "Bane", "Relentless"), distance=12),
        Defender(3, defense=2, tough=2, cover=True),
    ),
    "destructive_regen_hero": (
        attack(attacks=2, models=3, rules=("Destructive", "AP(1)")),
        Defender(3, defense=3, tough=2, rules=("Regeneration",), hero=Hero(2, 4, rules=("Regeneration",))),
    ),
    "surge_relentless_blast_hero": (
        attack(attacks=2, models=3, rules=("Surge", "Relentless", "Blast(2)", "AP(1)"), distance=12),
        Defender(3, defense=4, hero=Hero(2, 3)),
    ),
    "shred_deadly_regen_hero": (
        attack(attacks=2, models=3, quality=3, rules=("Shred", "Deadly(2)", "AP(1)")),
        Defender(2, defense=3, tough=3, rules=("Regeneration",), hero=Hero(2, 5, rules=("Regeneration",))),
    ),
    "shred_bane_blast_surge": (
        attack(attacks=2, models=2, rules=("Shred", "Bane", "Blast(2)", "Surge")),
        Defender(4, defense=2, tough=2),
    ),
    "unstoppable_indirect_regen": (
        attack(attacks=2, models=3, rules=("Unstoppable", "Indirect", "AP(1)"), hit_modifier=-1, moved=True),
        Defender(3, defense=4, cover=True, rules=("Regeneration",), hero=Hero(2, 3, rules=("Regeneration",))),
    ),
    "precise_lock_on_negative": (
        attack(attacks=2, models=3, quality=5, rules=("Precise", "Lock-On", "Indirect"), hit_modifier=-1, moved=True),
        Defender(3, defense=4, tough=2, cover=True),
    ),
    "reliable_modified_poison": (
        attack(attacks=2, models=3, quality=6, rules=("Reliable", "Poison", "Indirect"), moved=True),
        Defender(4, defense=3),
    ),
    "hero_rending_blast": (
        attack(attacks=2, models=3, rules=("Rending", "Blast(2)")),
        Defender(3, defense=5, tough=2, hero=Hero(3, 3)),
    ),
    "poison_deadly_regen": (
        attack(attacks=3, models=2, quality=3, rules=("Poison", "Deadly(2)")),
        Defender(2, defense=4, tough=3, rules=("Regeneration",)),
    ),
    "impact_furious": (
        Attacker(
            (WeaponGroup(3, Weapon("Claws", 2, melee=True, rules=("Impact(1)", "Furious", "AP(1)"))),),
            5,
            charging=True,
        ),
        Defender(4, defense=4, cover=True, hero=Hero(2, 4, rules=("Regeneration",)), rules=("Regeneration",)),
    ),
    # GF v3.5.1 Morale: half strength against the starting size (4 + hero), not the 2 + hero left
    "starting_size_hero": (
        attack(attacks=2, models=2, rules=("AP(1)",)),
        Defender(2, defense=4, starting_models=4, hero=Hero(2, 3)),
    ),
    # GF v3.5.1 Morale, v3.5 Fearless: with warriors left the test is at Quality 3+ without Fearless (the
    # warriors lack it); the hero alone tests at its own 6+ with its Fearless
    "fearless_hero_alone": (
        attack(attacks=3, models=3, quality=2, rules=("AP(2)",)),
        Defender(2, defense=4, quality=3, hero=Hero(3, 4, quality=6, fearless=True)),
    ),
    "fearless_unit_and_hero": (
        attack(attacks=2, models=3, rules=("AP(1)",)),
        Defender(2, defense=4, quality=5, starting_models=3, fearless=True, hero=Hero(2, 4, fearless=True)),
    ),
    "two_groups_single_tough": (
        Attacker(
            (
                WeaponGroup(2, Weapon("Rifle", 2, rules=("Relentless", "Indirect"))),
                WeaponGroup(1, Weapon("Lascannon", 1, rules=("AP(3)", "Deadly(3)", "Lock-On"))),
            ),
            4,
            hit_modifier=-1,
            moved=True,
            distance=18,
        ),
        Defender(1, defense=3, tough=6, cover=True),
    ),
}


@pytest.mark.parametrize("name", sorted(NAIVE_CASES))
def test_naive_reference_agrees_with_exact(name):
    attacker, defender = NAIVE_CASES[name]
    assert_agree(naive_tally(attacker, defender, 6000, seed=7), grimdark_exact(attacker, defender), label=name)


# --- properties of the exact engine -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(NAIVE_CASES))
def test_pmfs_sum_to_one(name):
    tally = grimdark_exact(*NAIVE_CASES[name])
    hists = (tally.wounds, tally.models_destroyed, tally.wounds_on_next, tally.morale_test_due)
    for h in (*hists, tally.morale_passed, tally.morale_shaken, tally.morale_routed):
        assert abs(h.sum() - 1.0) < 1e-12
        assert (h >= -1e-15).all()


def test_blast_cap_is_fixed_when_the_group_starts():
    """Blast(X) "at most the number of models in the target": counted when the weapon group starts (reading chosen).

    Reliable Blast(3), 2 dice, at 3 models of Defense 6+: hits = 3 x Bin(2, 5/6), each unsaved with 5/6.
    """
    from math import comb

    tally = grimdark_exact(attack(attacks=2, quality=2, rules=("Blast(3)", "Reliable")), Defender(3, defense=6))
    u = F(5, 6)
    wiped = F(0)
    for h in range(3):
        p_h = comb(2, h) * F(5, 6) ** h * F(1, 6) ** (2 - h)
        wiped += p_h * sum(comb(3 * h, k) * u**k * (1 - u) ** (3 * h - k) for k in range(3, 3 * h + 1))
    assert close(tally.models_destroyed[3], wiped)


def test_unknown_rule_objects_and_wrong_scope_on_defender():
    with pytest.raises(InputError, match="Limited"):
        Weapon(rules=[{"name": "Limited", "rating": 1}])
    with pytest.raises(InputError, match="Shred without a rating"):  # Shred (v3.5) has no X
        Weapon(rules=[{"name": "Shred", "rating": 1}])
    with pytest.raises(InputError, match="AP is a weapon rule"):
        Defender(rules=("AP(1)",))
    with pytest.raises(InputError, match=r"hero\.rules"):
        Hero(rules=("Fearless",))


def test_shooting_while_charging_and_furious_without_charge_warn():
    d = Defender(5)
    assert any("charging" in w for w in compile_attack(attack(charging=True), d).warnings)
    assert any("Furious" in w for w in compile_attack(attack(melee=True, rules=("Furious",)), d).warnings)
    assert compile_attack(attack(), d).warnings == ()


def test_morale_fail_probability_on_counts_and_quality_check():
    """A Quality test "fails on a roll below Quality": Quality 5+ fails with 4/6."""
    from mathhammer.outcome import Tally

    counts = Tally(400, morale_test_due=np.array([300.0, 100.0]))
    assert close(morale_fail_probability(counts, 5), F(1, 4) * F(4, 6))
    with pytest.raises(InputError):
        morale_fail_probability(counts, 7)


def test_deadly_hits_are_resolved_first() -> None:
    """Grimdark Future v3 Deadly(X): "Hits from Deadly must be resolved first" - a Deadly weapon listed
    second is resolved before the plain one, so its wounds cannot spill (none carry over) past a model
    the plain hits already damaged."""
    from mathhammer.grimdark import compile_attack

    plain = WeaponGroup(1, Weapon("Rifle", attacks=1))
    deadly = WeaponGroup(1, Weapon("Lance", attacks=1, rules=("Deadly(3)",)))
    attack = compile_attack(Attacker((plain, deadly), quality=2), Defender(models=2, defense=6, tough=3))
    assert [g.deadly for g in attack.groups] == [3, 1]
    swapped = compile_attack(Attacker((deadly, plain), quality=2), Defender(models=2, defense=6, tough=3))
    assert [g.deadly for g in swapped.groups] == [3, 1]
    a = grimdark_exact(Attacker((plain, deadly), quality=2), Defender(models=2, defense=6, tough=3))
    b = grimdark_exact(Attacker((deadly, plain), quality=2), Defender(models=2, defense=6, tough=3))
    assert np.allclose(a.models_destroyed, b.models_destroyed) and np.allclose(a.wounds, b.wounds)


def test_deadly_first_naive_agrees_with_exact() -> None:
    """The per-die reference resolves Deadly first too (Deadly(X), v3)."""
    plain = WeaponGroup(3, Weapon("Rifle", attacks=2, rules=("AP(1)",)))
    deadly = WeaponGroup(1, Weapon("Lance", attacks=2, rules=("Deadly(3)",)))
    attacker = Attacker((plain, deadly), quality=3)
    defender = Defender(models=3, defense=5, tough=3)
    assert_agree(naive_tally(attacker, defender, 8000, seed=3), grimdark_exact(attacker, defender), label="deadly")
