"""Army-book rules read as modelled effects (issue 25 point 2), and import warnings in reports (point 8).

Each mapped rule is checked against a value worked out by hand, citing the book text it reads (Army Forge's
army-book exports "GF - <Book> 3.5.0.json", Grimdark Future v3.5.0, as quoted in
``profiles/grimdark/army_rules.toml``). The importer tests use small files written here in the shape Army
Forge writes (a book's units and its top-level ``specialRules``), never a downloaded book.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer.errors import InputError
from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, grimdark_exact
from mathhammer.grimdark.army_rules import load_table, match
from mathhammer.grimdark.compiled import compile_attack
from mathhammer.grimdark.effects import Effect
from mathhammer.grimdark.opr_import import convert
from mathhammer.grimdark.profiles import load_text, unit_attacker, unit_defender
from mathhammer.profiles.loader import ProfileError

from . import test_grimdark_profiles
from .grimdark_naive import naive_tally
from .stats import assert_agree

TABLE = load_table()
FIXTURES = Path(__file__).parent / "fixtures" / "opr"
SAVE, BOOK = FIXTURES / "list_save.json", FIXTURES / "save_book.json"

# the import-opr command, run as tests/test_grimdark_profiles.py runs it
app = test_grimdark_profiles.app
_run = test_grimdark_profiles._run


def effects(name: str) -> tuple[Effect, ...]:
    return TABLE[name.lower().replace(" ", "").replace("-", "")].effects


def p_destroyed(attacker: Attacker, defender: Defender) -> float:
    return float(grimdark_exact(attacker, defender).models_destroyed[1])


def one_die(quality: int, *rules: str, melee: bool = False, fx=(), **kw) -> Attacker:
    return Attacker((WeaponGroup(1, Weapon("w", 1, melee=melee, rules=rules, effects=fx)),), quality, **kw)


# --- each mapped rule, by hand -------------------------------------------------------------------------------


def test_self_repair_robot_legions_ignores_a_wound_on_a_6() -> None:
    """GF v3.5 Robot Legions: Self-Repair: "When a unit where all models have this rule takes wounds, roll one
    die for each. On a 6+ it is ignored." One die at Quality 2+ (hits 5/6) against Defense 6+ (unsaved 5/6),
    the wound kept 5/6: 125/216; Regeneration's 5+ keeps 4/6 (100/216); Rending ignores both (25/36)."""
    sr = effects("Self-Repair")
    assert sr == (Effect("regeneration", 6, rule="Self-Repair"),)
    assert p_destroyed(one_die(2), Defender(1, defense=6, effects=sr)) == pytest.approx(125 / 216, abs=1e-12)
    both = Defender(1, defense=6, rules=("Regeneration",), effects=sr)  # the better roll counts
    assert p_destroyed(one_die(2), both) == pytest.approx(100 / 216, abs=1e-12)
    assert p_destroyed(one_die(2, "Rending"), Defender(1, defense=6, effects=sr)) == pytest.approx(25 / 36, abs=1e-12)
    # a joined hero without Self-Repair: not "a unit where all models have this rule"
    t = compile_attack(one_die(2), Defender(2, defense=6, effects=sr, hero=Hero(2, 4))).target
    assert list(t.regeneration) == [0, 0, 0]
    t = compile_attack(one_die(2), Defender(2, defense=6, effects=sr, hero=Hero(2, 4, effects=sr))).target
    assert list(t.regeneration) == [6, 6, 6]


def test_resistance_alien_hives_ignores_a_wound_on_a_6() -> None:
    """GF v3.5 Alien Hives: Resistance: "When a unit where all models have this rule takes wounds, roll one die for
    each. On a 6+ it is ignored. If the wounds were from a spell, then they are ignored on a 2+ instead." No
    spell here: as Self-Repair, 5/6 x 5/6 x 5/6 = 125/216."""
    res = effects("Resistance")
    assert res == (Effect("regeneration", 6, rule="Resistance"),)
    assert p_destroyed(one_die(2), Defender(1, defense=6, effects=res)) == pytest.approx(125 / 216, abs=1e-12)


def test_tear_custodian_brothers_ap4_against_tough_3_to_9() -> None:
    """GF v3.5 Custodian Brothers: Tear: "Against units where most models have Tough(3) to Tough(9), this weapon
    gets AP(+4)." One die at Quality 4+ (1/2) against Defense 5+: with AP(4) only a natural 6 saves (5/6
    unsaved): 5/12 wounds; against Tough(2) or Tough(10), Defense 5+ saves on 5-6: 1/3."""
    tear = effects("Tear")
    for tough, expected in ((3, Fraction(5, 12)), (9, Fraction(5, 12)), (2, Fraction(1, 3)), (10, Fraction(1, 3))):
        tally = grimdark_exact(one_die(4, fx=tear), Defender(1, defense=5, tough=tough))
        assert float(tally.wounds[1]) == pytest.approx(float(expected), abs=1e-12), tough


def test_melee_slayer_dwarf_guilds_on_melee_weapons_against_tough_3() -> None:
    """GF v3.5 Dwarf Guilds: Melee Slayer: "This model's melee weapons get AP(+2) against units where most
    models have Tough(3) or higher." A unit rule: its melee weapons only, against Tough(3) or more."""
    unit = load_text(
        """[units.Dwarves]
source = "test"
models = 2
quality = 4
defense = 4
points = 50
effects = [{ effect = "ap", value = 2, phase = "melee", tough_min = 3, rule = "Melee Slayer" }]
weapons = [{ name = "Axe", range = 0, attacks = 1, rules = ["AP(1)"] }, { name = "Gun", range = 24, attacks = 1 }]
""",
        "t",
    )["Dwarves"]
    assert unit.effects == effects("Melee Slayer")
    melee, shooting = unit_attacker(unit, melee=True), unit_attacker(unit, melee=False, distance=12)
    assert melee is not None and shooting is not None
    assert compile_attack(melee, Defender(1, tough=3)).groups[0].ap_normal == 3
    assert compile_attack(melee, Defender(1, tough=2)).groups[0].ap_normal == 1
    assert compile_attack(shooting, Defender(1, tough=3)).groups[0].ap_normal == 0


def test_piercing_assault_robot_legions_only_when_charging() -> None:
    """GF v3.5 Robot Legions: Piercing Assault: "This model gets AP(+1) when charging." One melee die at
    Quality 2+ (5/6) against Defense 4+: charging, AP(1), unsaved 2/3: 5/9; else 1/2: 5/12."""
    pa = effects("Piercing Assault")
    charging = one_die(2, melee=True, fx=pa, charging=True)
    assert p_destroyed(charging, Defender(1, defense=4)) == pytest.approx(5 / 9, abs=1e-12)
    assert p_destroyed(one_die(2, melee=True, fx=pa), Defender(1, defense=4)) == pytest.approx(5 / 12, abs=1e-12)


def test_guardian_custodian_brothers_ap_minus_1_from_over_9() -> None:
    """GF v3.5 Custodian Brothers: Guardian: "When units where all models have this rule are shot or charged from
    over 9" away and take hits, those hits count as having AP(-1), to a min. of AP(0)." One AP(1) die at
    Quality 2+ against Defense 4+: from 12", AP(0): 5/6 x 1/2 = 5/12; from 9" (not over 9"), AP(1): 5/9."""
    g = effects("Guardian")
    target = Defender(1, defense=4, effects=g)
    assert p_destroyed(one_die(2, "AP(1)", distance=12.0), target) == pytest.approx(5 / 12, abs=1e-12)
    assert p_destroyed(one_die(2, "AP(1)", distance=9.0), target) == pytest.approx(5 / 9, abs=1e-12)
    # charged from over 9": AP(2) counts as AP(1); in melee without a charge: AP(2)
    charged = one_die(2, "AP(2)", melee=True, charging=True, distance=12.0)
    assert compile_attack(charged, target).groups[0].ap_normal == 1
    assert compile_attack(one_die(2, "AP(2)", melee=True, distance=12.0), target).groups[0].ap_normal == 2
    unknown = compile_attack(one_die(2, "AP(1)"), target)  # no distance: not counted, said so
    assert unknown.groups[0].ap_normal == 1
    assert any("Guardian needs the distance" in w for w in unknown.warnings)


def test_fortified_dwarf_guilds_ap_minus_1_to_a_min_of_0() -> None:
    """GF v3.5 Dwarf Guilds: Fortified: "When units where all models have this rule take hits, those hits count
    as having AP(-1), to a min. of AP(0)." AP(2) counts as AP(1), AP(0) stays AP(0), a Rending six's AP(4)
    counts as AP(3); a joined hero without it: not all models have it."""
    f = effects("Fortified")
    groups = compile_attack(one_die(4, "AP(2)"), Defender(1, effects=f)).groups
    assert (groups[0].ap_normal, groups[0].ap_six) == (1, 1)
    groups = compile_attack(one_die(4, "Rending"), Defender(1, effects=f)).groups
    assert (groups[0].ap_normal, groups[0].ap_six) == (0, 3)
    assert compile_attack(one_die(4, "AP(2)"), Defender(2, effects=f, hero=Hero(2))).groups[0].ap_normal == 2
    # one AP(1) die at Quality 2+ against Defense 4+: AP(0), 5/6 x 1/2
    assert p_destroyed(one_die(2, "AP(1)"), Defender(1, defense=4, effects=f)) == pytest.approx(5 / 12, abs=1e-12)


def test_naive_reference_agrees_with_exact_on_army_rule_effects() -> None:
    attacker = Attacker(
        (
            WeaponGroup(3, Weapon("Blade", 2, melee=True, rules=("AP(1)", "Destructive"), effects=effects("Tear"))),
            WeaponGroup(2, Weapon("Claw", 2, melee=True, effects=effects("Piercing Assault"))),
        ),
        4,
        charging=True,
        distance=12.0,
    )
    sr = effects("Self-Repair") + effects("Guardian")
    defender = Defender(3, defense=4, tough=3, effects=sr, hero=Hero(3, 3, effects=sr))
    assert_agree(naive_tally(attacker, defender, 8000, seed=5), grimdark_exact(attacker, defender), label="army")


def test_effect_values_are_checked() -> None:
    with pytest.raises(InputError, match=r"regeneration\.value"):
        Effect("regeneration", 7)
    with pytest.raises(InputError, match="effect"):
        Defender(1, effects=({"effect": "heal", "value": 1},))
    with pytest.raises(InputError, match="phase"):
        Effect("ap", 1, phase="charge")


# --- the importer ----------------------------------------------------------------------------------------------

SELF_REPAIR = "When a unit where all models have this rule takes wounds, roll one die for each. On a 6+ it is ignored."
TEAR = "Against units where most models have Tough(3) to Tough(9), this weapon gets AP(+4)."
RAVAGE = "When this model attacks in melee, roll X dice. For each 6+ the target takes one wound."


def book(*rules: dict, unit_rules=(), weapon_rules=()) -> dict:
    """A small army book in Army Forge's export shape: units, and the book's ``specialRules``."""
    return {
        "uid": "testbook",
        "name": "Test Legions",
        "gameSystemSlug": "grimdark-future",
        "units": [
            {
                "id": "u1",
                "name": "Warriors",
                "size": 5,
                "quality": 4,
                "defense": 4,
                "cost": 90,
                "rules": [{"name": "Slow", "label": "Slow"}, *unit_rules],
                "weapons": [
                    {"name": "Gauss Rifle", "count": 5, "range": 24, "attacks": 1, "specialRules": list(weapon_rules)},
                    {"name": "CCW", "count": 5, "range": 0, "attacks": 1, "specialRules": []},
                ],
            }
        ],
        "specialRules": [
            {"id": "a", "name": "Slow", "description": 'Moves -2" when using Advance, and -4” when using Rush.'},
            *rules,
        ],
    }


def test_import_maps_an_army_rule_onto_the_profile() -> None:
    data = book(
        {"id": "b", "name": "Self-Repair", "description": SELF_REPAIR, "hasRating": False},
        {"id": "c", "name": "Tear", "description": TEAR, "hasRating": False},
        {"id": "d", "name": "Rending in Melee", "description": "This model gets Rending in melee."},
        unit_rules=({"name": "Self-Repair", "label": "Self-Repair"}, {"name": "Rending in Melee"}),
        weapon_rules=({"name": "Tear", "label": "Tear"},),
    )
    text, warnings = convert(data, "book.json")
    assert warnings == []
    unit = load_text(text, "out.toml")["Warriors"]
    assert unit.effects == (Effect("regeneration", 6, rule="Self-Repair"),)
    rifle, ccw = unit.weapons
    assert rifle.effects == (Effect("ap", 4, tough_min=3, tough_max=9, rule="Tear"),)
    assert [str(r) for r in ccw.rules] == ["Rending"] and [str(r) for r in rifle.rules] == []
    assert unit_defender(unit).effects == unit.effects


def test_import_warns_an_unmapped_army_rule_with_its_text() -> None:
    data = book(
        {"id": "b", "name": "Ravage", "description": RAVAGE, "hasRating": True},
        {"id": "c", "name": "Self-Repair", "description": "When this unit takes wounds, roll one die. On a 4+ ..."},
        unit_rules=({"name": "Ravage", "rating": 4, "label": "Ravage(4)"}, {"name": "Self-Repair"}),
    )
    text, warnings = convert(data, "book.json")
    assert f'Warriors: rule Ravage(4) is not modelled by mathhammer; left out (Ravage: "{RAVAGE}")' in warnings
    # the same name with another text is not mapped: warned with the book's text
    other = [w for w in warnings if "Self-Repair" in w]
    assert len(other) == 1 and "On a 4+ ..." in other[0] and "maps another text" in other[0]
    unit = load_text(text, "out.toml")["Warriors"]
    assert unit.effects == () and unit.warnings == tuple(warnings)


def test_granted_weapon_rules_go_on_the_weapons_of_their_phase() -> None:
    """GF v3.5 Alien Hives: Bane in Melee: "This model gets Bane in melee."; Dwarf Guilds: Surge when Shooting:
    "This model gets Surge when shooting." Each rule goes on the weapons of its phase only."""
    data = book(
        {"name": "Bane in Melee", "description": "This model gets Bane in melee."},
        {"name": "Surge when Shooting", "description": "This model gets Surge when shooting."},
        unit_rules=({"name": "Bane in Melee"}, {"name": "Surge when Shooting"}),
    )
    text, warnings = convert(data, "book.json")
    assert warnings == []
    rifle, ccw = load_text(text, "out.toml")["Warriors"].weapons
    assert [str(r) for r in rifle.rules] == ["Surge"] and [str(r) for r in ccw.rules] == ["Bane"]


def test_book_rules_read_since_the_first_books() -> None:
    """GF v3.5.0 War Disciples: Warbound, "Enemies that roll to block hits from this model's weapons take 1 extra
    wound for each unmodified result of 1 that they roll." (Shred on every weapon); Human Inquisition: Brutal
    Fighter, "When in melee, unmodified results of 6 to hit deal 1 extra hit ..." (Surge in melee); Orc
    Marauders: Protected (Regeneration on a 6+); Blessed Sisters: Piercing Hunter, AP(+1) shooting from over 9"."""
    texts = {n: TABLE[n.lower().replace(" ", "")].text for n in ("Warbound", "Brutal Fighter", "Protected")}
    hunter = TABLE["piercinghunter"].text
    data = book(
        *({"name": n, "description": t} for n, t in texts.items()),
        {"name": "Piercing Hunter", "description": hunter},
        unit_rules=tuple({"name": n} for n in (*texts, "Piercing Hunter")),
    )
    text, warnings = convert(data, "book.json")
    assert warnings == []
    unit = load_text(text, "out.toml")["Warriors"]
    assert unit.effects == (
        Effect("regeneration", 6, rule="Protected"),
        Effect("ap", 1, phase="shooting", over=9, rule="Piercing Hunter"),
    )
    rifle, ccw = unit.weapons
    assert [str(r) for r in rifle.rules] == ["Shred"] and [str(r) for r in ccw.rules] == ["Shred", "Surge"]


def test_watchborn_is_versatile_attack_under_another_name() -> None:
    """GF v3.5.0 Watch Brothers: Watchborn has Versatile Attack's text word for word (a unit grant in the built-in
    table): the unit gets the modelled unit rule Versatile Attack."""
    text = TABLE["watchborn"].text
    data = book({"name": "Watchborn", "description": text}, unit_rules=({"name": "Watchborn", "label": "Watchborn"},))
    out, warnings = convert(data, "book.json")
    assert warnings == []
    unit = load_text(out, "out.toml")["Warriors"]
    assert [str(r) for r in unit.rules] == ["Versatile Attack"] and unit.effects == ()


def test_list_save_reads_the_book_rules_given_with_book(app, tmp_path: Path) -> None:
    """A list save's units take the army rules of the --book they come from (its specialRules)."""
    data = json.loads(BOOK.read_text())
    data["specialRules"] = [{"id": "sr", "name": "Self-Repair", "description": SELF_REPAIR}]
    data["units"][0]["rules"].append({"id": "sr", "name": "Self-Repair", "label": "Self-Repair"})
    book_file, out = tmp_path / "save_book.json", tmp_path / "army.toml"
    book_file.write_text(json.dumps(data))
    result = _run(app, str(SAVE), "--book", str(book_file), "--out", str(out))
    assert result.exit_code == 0, result.output
    squad = load_text(out.read_text(), "army.toml")["Alpha Squad"]
    assert squad.effects == (Effect("regeneration", 6, rule="Self-Repair"),)


def test_a_new_table_entry_needs_no_code(tmp_path: Path) -> None:
    """A rule of a book the built-in table does not know is mapped by a data entry in a table file."""
    table = tmp_path / "army_rules.toml"
    table.write_text(
        """[rules."Iron Skin"]
text = 'Units where all models have this rule ignore wounds on a 4+.'
source = "a test book"
effects = [{ effect = "regeneration", value = 4 }]
"""
    )
    data = book(
        {"name": "Iron Skin", "description": "Units where all models have this rule ignore wounds on a 4+."},
        unit_rules=({"name": "Iron Skin"},),
    )
    _, warnings = convert(data, "book.json")
    assert any("Iron Skin" in w for w in warnings)  # the built-in table does not know it
    text, warnings = convert(data, "book.json", table=table)
    assert warnings == []
    unit = load_text(text, "out.toml")["Warriors"]
    assert unit.effects == (Effect("regeneration", 4, rule="Iron Skin"),)
    assert match(load_table(table), "iron skin", "Units where all  models have this rule ignore wounds on a 4+.")


UNIT_GRANTS = """[rules."Warded"]
text = 'Units where all models have this rule get +1 to defense rolls.'
source = "a test book"
unit_grants = [{ rule = "Shielded" }]

[rules."Dread"]
text = 'This model gets Fear(1).'
source = "a test book"
unit_grants = [{ rule = "Fear", rating = 1 }, { rule = "Fearless" }]
"""


def test_a_unit_grant_reaches_the_profile(tmp_path: Path) -> None:
    """An entry's ``unit_grants`` are written on the unit's rules (a rated one with its rating), read there
    as the modelled unit rules they are; a rule the unit already has is not written twice."""
    table = tmp_path / "army_rules.toml"
    table.write_text(UNIT_GRANTS)
    data = book(
        {"name": "Warded", "description": "Units where all models have this rule get +1 to defense rolls."},
        {"name": "Dread", "description": "This model gets Fear(1)."},
        unit_rules=({"name": "Warded"}, {"name": "Dread"}, {"name": "Fearless", "label": "Fearless"}),
    )
    text, warnings = convert(data, "book.json", table=table)
    assert warnings == []
    unit = load_text(text, "out.toml")["Warriors"]
    assert [str(r) for r in unit.rules] == ["Fearless", "Shielded", "Fear(1)"]
    assert unit_defender(unit).fearless
    assert "Shielded" in [str(r) for r in unit_defender(unit).rules]


def test_a_unit_grant_under_another_text_is_warned(tmp_path: Path) -> None:
    """The same name with another text is not mapped: left out and warned with the book's text; on a weapon,
    a unit grant is warned as not a weapon's."""
    table = tmp_path / "army_rules.toml"
    table.write_text(UNIT_GRANTS)
    other = "Units where all models have this rule get +1 to defense rolls in melee."
    data = book({"name": "Warded", "description": other}, unit_rules=({"name": "Warded"},))
    text, warnings = convert(data, "book.json", table=table)
    assert warnings == [
        f'Warriors: rule Warded is not modelled by mathhammer; left out (Warded: "{other}"); '
        "army_rules.toml maps another text under this name"
    ]
    assert load_text(text, "out.toml")["Warriors"].rules == ()
    data = book({"name": "Dread", "description": "This model gets Fear(1)."}, weapon_rules=({"name": "Dread"},))
    _, warnings = convert(data, "book.json", table=table)
    weapon = "Warriors: weapon Gauss Rifle"
    assert warnings == [f"{weapon}: rule Dread (unit rules Fear(1), Fearless) is not a weapon's; left out"]


@pytest.mark.parametrize(
    "grant",
    [
        '{ rule = "Rending" }',  # a weapon rule
        '{ rule = "Tough", rating = 3 }',  # the profile's wounds
        '{ rule = "Fear" }',  # no rating
        '{ rule = "Fear", rating = 0 }',
        '{ rule = "Shielded", rating = 1 }',  # a rating it has not
        '{ rule = "Shielded", phase = "melee" }',
    ],
)
def test_unit_grants_are_checked(tmp_path: Path, grant: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[rules.X]\ntext = "t"\nsource = "s"\nunit_grants = [{grant}]\n')
    with pytest.raises(ProfileError) as exc:
        load_table(bad)
    assert len(exc.value.problems) == 1 and "unit_grants" in exc.value.problems[0]


def test_table_problems_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[rules.X]\ntext = "t"\nsource = "s"\neffects = [{ effect = "heal", value = 1 }]\n'
                   '[rules.Y]\ntext = "t"\nsource = "s"\ngrants = [{ rule = "AP" }]\n')  # fmt: skip
    with pytest.raises(ProfileError) as exc:
        load_table(bad)
    assert len(exc.value.problems) == 2


def test_every_built_in_entry_cites_its_book_text() -> None:
    names = {e.name for e in TABLE.values()}
    assert {"Self-Repair", "Guardian", "Tear", "Melee Slayer", "Fortified", "Resistance", "Bane in Melee"} <= names
    for entry in TABLE.values():
        assert "3.5.0" in entry.source and "b397e958e2c420883816af1be1dde7f60f083afd" in entry.source
        assert entry.effects or entry.grants or entry.unit_grants


# --- import warnings reach the report (point 8) ---------------------------------------------------------------


def test_report_carries_the_import_warnings(tmp_path: Path) -> None:
    from mathhammer.report import sweep

    data = book(
        {"id": "b", "name": "Ravage", "description": RAVAGE, "hasRating": True},
        unit_rules=({"name": "Ravage", "rating": 4, "label": "Ravage(4)"},),
    )
    src = tmp_path / "book.json"
    src.write_text(json.dumps(data))
    text, warnings = convert(data, src.name)
    assert warnings
    a, b = tmp_path / "mine.toml", tmp_path / "theirs.toml"
    a.write_text(text)
    b.write_text(text)
    df = sweep(a, b, system="grimdark", trials=200, seed=1)
    carried = df.attrs["report"]["warnings"]
    assert f"mine.toml: {warnings[0]}" in carried and f"theirs.toml: {warnings[0]}" in carried


def test_a_mapped_army_rule_on_an_item_of_some_models_is_named_as_carried() -> None:
    """A unit rule needs "a unit where all models have this rule": Self-Repair (GF v3.5 Robot Legions) on an
    item carried by 1 of 5 models is left out, and the warning says why (not "not modelled")."""
    data = book({"id": "s", "name": "Self-Repair", "description": SELF_REPAIR})
    data["units"][0]["items"] = [
        {"name": "Repair Kit", "type": "ArmyBookItem", "count": 1,
         "content": [{"type": "ArmyBookRule", "name": "Self-Repair", "label": "Self-Repair"}]},
    ]  # fmt: skip
    text, warnings = convert(data, "book.json")
    assert "Warriors: rule Self-Repair of item Repair Kit is carried by 1 of 5 models; left out" in warnings
    assert (
        not any("Self-Repair is not modelled" in w for w in warnings) and "Self-Repair" not in text.split("warnings")[0]
    )
