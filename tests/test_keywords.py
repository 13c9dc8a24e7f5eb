"""Card syntax: keywords, Combat Tags, S Dice and the typed model refuse bad input."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer import Batch, InputError, Target, Weapon
from mathhammer.dice import SDice, clamp_target, success_mask
from mathhammer.starcraft.compiled import compile_batch, expand
from mathhammer.starcraft.keywords import COMBAT_TAGS, Keyword, parse_keyword, parse_keywords


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PRECISION (2)", Keyword("PRECISION", 2)),
        ("precision(2)", Keyword("PRECISION", 2)),
        ("CRITICAL HIT (1)", Keyword("CRITICAL HIT", 1)),
        ("ANTI-EVADE (2)", Keyword("ANTI-EVADE", 2)),
        ('LONG RANGE (18")', Keyword("LONG RANGE", 18)),
        ("LONG RANGE (16)", Keyword("LONG RANGE", 16)),
        ('BURST FIRE 8" (3)', Keyword("BURST FIRE", 3, extra=8)),
        ("PIERCE Armoured (3)", Keyword("PIERCE", 3, tag="Armoured")),
        ("PIERCE [Light] (2)", Keyword("PIERCE", 2, tag="Light")),
        ("HITS 3 (1)", Keyword("HITS", 3, extra=1)),
        ("IMPACT (3) 4+", Keyword("IMPACT", 3, extra=4)),
        ("LOCKED IN (6)", Keyword("LOCKED IN", 6)),
        ("CONCENTRATED FIRE (1)", Keyword("CONCENTRATED FIRE", 1)),
        ("NON-LETHAL DAMAGE (2)", Keyword("NON-LETHAL DAMAGE", 2)),
        ("BUFF Hit (1)", Keyword("BUFF", 1, tag="Hit")),
        ("DEBUFF RoA (1)", Keyword("DEBUFF", 1, tag="RoA")),
        ("SIDEARM", Keyword("SIDEARM")),
        ("INDIRECT FIRE", Keyword("INDIRECT FIRE")),
    ],
)
def test_weapon_keywords_in_card_syntax(text: str, expected: Keyword) -> None:
    """Part 11 keyword glossary, written as on the card sheets (e.g. Goliath 'LONG RANGE (18")')."""
    assert parse_keyword(text, "weapon") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TOUGH (1)", Keyword("TOUGH", 1)),
        ("DODGE (2)", Keyword("DODGE", 2)),
        ("HIDDEN", Keyword("HIDDEN")),
        ("BURROWED", Keyword("BURROWED")),
        ("BUFF Armour (1)", Keyword("BUFF", 1, tag="Armour")),
        ("DEBUFF Evade (1)", Keyword("DEBUFF", 1, tag="Evade")),
    ],
)
def test_target_keywords(text: str, expected: Keyword) -> None:
    assert parse_keyword(text, "target") == expected


@pytest.mark.parametrize(
    ("text", "scope", "needle"),
    [
        ("PRECISON (1)", "weapon", "did you mean 'PRECISION (X)'"),
        ("PRECISION (x)", "weapon", "PRECISION is written 'PRECISION (X)'"),
        ("PRECISION", "weapon", "PRECISION is written"),
        ("CRITICAL HITS (1)", "weapon", "did you mean 'CRITICAL HIT (X)'"),
        ("TOUGH (1)", "weapon", "keyword of the target"),
        ("PRECISION (1)", "target", "keyword of the weapon"),
        ("PIERCE Heroic (2)", "weapon", "Combat Tags"),
        ("BUFF Armour (1)", "weapon", "BUFF/DEBUFF on an attacker"),
        ("BUFF Hit (1)", "target", "BUFF/DEBUFF on a target"),
        ("IMPACT (2) 7+", "weapon", "Y from 2 to 6"),
        ("FURIOUS", "weapon", "allowed: one of"),
    ],
)
def test_bad_keywords_are_refused_with_advice(text: str, scope: str, needle: str) -> None:
    with pytest.raises(InputError) as err:
        parse_keyword(text, scope, "--keyword")
    assert needle in str(err.value)
    assert str(err.value).startswith(f"--keyword: got {text!r}")


def test_keywords_do_not_stack_highest_wins() -> None:
    """Part 11 MODIFIER: the same keyword twice does not add up; the highest value is kept."""
    kws = parse_keywords(["PRECISION (1)", "PRECISION (3)", "PIERCE Light (2)", "PIERCE Armoured (3)"], "weapon", "k")
    assert sorted(map(str, kws)) == ["PIERCE Armoured (3)", "PIERCE Light (2)", "PRECISION (3)"]


def test_combat_tags_are_the_seven_type_tags() -> None:
    """Part 11 COMBAT TAGS: Armoured, Biological, Light, Mechanical, Psionic, Flying, Ground."""
    assert set(COMBAT_TAGS) == {"Armoured", "Biological", "Light", "Mechanical", "Psionic", "Flying", "Ground"}
    t = Target.build(tags="armored, light ,GROUND")  # the card sheets print ARMORED once
    assert t.tags == ("Armoured", "Light", "Ground")


@pytest.mark.parametrize("text", ["D", "3D", "D0", "D1", "Dx", "D3+", "D3-1", "2D3+1+1", "", "51", "D6*2"])
def test_malformed_s_dice(text: str) -> None:
    with pytest.raises(InputError, match="NdM"):
        SDice.parse(text)


@pytest.mark.parametrize(
    ("text", "mean", "support"),
    [("D3", 2.0, (1, 3)), ("D3+1", 3.0, (2, 4)), ("D6", 3.5, (1, 6)), ("2D3+1", 5.0, (3, 7)), ("4", 4.0, (4, 4))],
)
def test_s_dice_distributions(text: str, mean: float, support: tuple[int, int]) -> None:
    pmf = SDice.parse(text).pmf()
    assert abs(pmf.sum() - 1) < 1e-15
    assert abs(np.dot(np.arange(pmf.size), pmf) - mean) < 1e-12
    nz = np.flatnonzero(pmf)
    assert (nz[0], nz[-1]) == support


def test_target_numbers_clamp_2_to_6() -> None:
    """Part 11 MODIFIER: never below 2+ or above 6+; natural 1 fails, natural 6 succeeds (3.6)."""
    assert [clamp_target(t) for t in (0, 1, 2, 6, 7, 9)] == [2, 2, 2, 6, 6, 6]
    assert success_mask(1) == success_mask(2) == 0b1111100
    assert success_mask(8) == success_mask(6) == 0b1000000


def test_compile_folds_modifiers() -> None:
    """BUFF/DEBUFF (part 11), LONG RANGE groups (part 11), PIERCE, ANTI-EVADE, clamping."""
    w = Weapon.build(
        roa=2,
        hit=4,
        damage=1,
        range=12,
        keywords=['LONG RANGE (18")', 'BURST FIRE 6" (1)', "BUFF Hit (1)", "PIERCE Armoured (3)", "ANTI-EVADE (2)"],
    )
    t = Target.build(3, 2, armour=3, evade=5, tags="Armoured", keywords=["DEBUFF Armour (1)"], evade_eligible=True)
    cb = compile_batch(Batch(w, models=4, distances=(3.0, 10.0, 15.0, 30.0)), t)
    # 3": BURST FIRE, 3 dice at 3+; 10": 2 dice at 3+; 15": LONG RANGE, 2 dice at 4+; 30": out of range
    assert dict(zip(cb.hit_target.tolist(), cb.n_dice.tolist(), strict=True)) == {3: 5, 4: 2}
    assert cb.damage == 3 and cb.armour_target == 4 and cb.evade_target == 6 and cb.evade


def test_expand_hits_and_impact() -> None:
    """HITS X (Y) and IMPACT (X) Y are damage sources of their own (part 11)."""
    w = Weapon.build(roa=1, hit=4, keywords=["HITS 3 (2)", "IMPACT (2) 5+"])
    parts = expand(Batch(w, models=4))
    assert [p.kind for p in parts] == ["hits", "impact", "weapon"]
    t = Target.build(5, 1)
    hits, impact, _ = (compile_batch(p, t) for p in parts)
    assert hits.auto_hits == 3 and hits.damage == 2 and hits.total_dice == 0 and hits.surge is None
    assert impact.total_dice == 8 and impact.hit_target.tolist() == [5] and impact.damage == 1


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Weapon.build(roa=-1), "roa"),
        (lambda: Weapon.build(hit=7), "hit"),
        (lambda: Weapon.build(damage=0), "damage"),
        (lambda: Target.build(0, 1), "models"),
        (lambda: Target.build(1, 0), "hp"),
        (lambda: Target.build(1, 1, armour=1), "armour"),
        (lambda: Target.build(1, 1, removal_order="random"), "removal_order"),
        (lambda: Batch(Weapon(), models=2, distances=(1.0,)), "distances"),
    ],
)
def test_model_validation_names_the_field(build, field: str) -> None:
    with pytest.raises(InputError) as err:
        build()
    assert err.value.field == field
