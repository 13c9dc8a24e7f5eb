"""Grimdark Future on the command line: joined heroes from profiles, ``profiles list/show --system
grimdark``, and ``import-opr`` on a realistic Army Forge list export, all through ``mathhammer.cli.app``.

Hero rule: GF Beginner's Guide v3.4.1, "Hero" ("Heroes with up to Tough(6) may deploy as part of one
multi-model unit ... must use the unit's Defense until all other models have been killed") and seed 002
("Bohater dołączony do oddziału": the hero takes wounds only after the rest of its unit).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.grimdark import Defender, Hero, WeaponGroup, grimdark_exact
from mathhammer.grimdark.opr_import import convert
from mathhammer.grimdark.profiles import find_unit, load_text, load_units, unit_attacker
from mathhammer.grimdark.rules import Rule
from mathhammer.profiles import ProfileError

FIXTURES = Path(__file__).parent / "fixtures" / "opr"
REALISTIC = FIXTURES / "army_forge_list_export.json"


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def one_error(result, field: str) -> str:
    """Exit status 2, exactly one ``error:`` line naming ``field``, no traceback."""
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {field}"), result.stderr
    assert "Traceback" not in result.output
    return errors[0]


# --- joined heroes ------------------------------------------------------------------------------


def test_sample_hero_is_marked() -> None:
    units = load_units()
    assert units["Field Commander"].hero and not units["Saurian Warriors"].hero


def test_hero_true_in_a_profile_and_its_checks(tmp_path: Path) -> None:
    ok = '[units.Boss]\nsource = "t"\nhero = true\nmodels = 1\nquality = 3\ndefense = 3\ntough = 3\npoints = 50\n'
    assert load_text(ok, "ok.toml")["Boss"].hero
    bad = ok.replace("models = 1", "models = 5")
    with pytest.raises(ProfileError, match=r"allowed: a hero \(hero = true or the Hero rule\) of 1 model"):
        load_text(bad, "bad.toml")
    with pytest.raises(ProfileError, match="hero"):
        load_text(ok.replace("hero = true", 'hero = "maybe"'), "bad.toml")


def test_attack_target_with_joined_hero_matches_the_engine() -> None:
    """``TARGET "Unit + Hero"``: the same numbers as a Defender with a joined Hero."""
    result = run("attack", "Robot Warriors", "Saurian Warriors + Field Commander", "--system", "gf", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["loadout"]["target"]["hero"]["unit"] == "Field Commander"
    units = load_units()
    want = grimdark_exact(
        unit_attacker(units["Robot Warriors"], melee=False),
        Defender(5, defense=4, quality=4, hero=Hero(tough=3, defense=3, quality=3)),
    )
    assert np.allclose(out["models_destroyed"]["pmf"], want.models_destroyed[: len(out["models_destroyed"]["pmf"])])
    assert len(out["models_destroyed"]["pmf"]) == 7  # 5 warriors and the hero
    # the hero counts in the starting size: a test is due at 3 of 6 models left
    p = want.models_destroyed
    assert out["morale_test_due"]["p"] == pytest.approx(float(p[3:6].sum()))
    text = run("attack", "Robot Warriors", "Saurian Warriors+Field Commander", "--system", "grimdark")
    assert text.exit_code == 0 and "+ Field Commander (Tough(3), wounded last)" in text.stdout
    assert "Quality 3+" in text.stdout  # the hero takes the morale test on behalf of the unit


def test_target_state_counts_half_strength_against_the_full_unit() -> None:
    """GF v3.5.1 core rules, Morale: "starting size is counted at the beginning of the game": with 3 of the
    5 Saurian Warriors left, one more casualty leaves 2 of 5 (half or less): the test is due then."""
    args = ("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--target-state", "models=3", "--json")
    result = run(*args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    want = grimdark_exact(
        unit_attacker(load_units()["Robot Warriors"], melee=False), Defender(3, defense=4, starting_models=5)
    )
    p = want.models_destroyed
    assert out["morale_test_due"]["p"] == pytest.approx(float(p[1] + p[2]))
    assert float(p[1]) > 0.01  # counted against the 3 left, one casualty (2 of 3) would not be due


def test_morale_outcomes_passed_shaken_routed_on_the_command_line() -> None:
    """GF v3.5.1 core rules, Morale: the test is one Quality test (Saurian Warriors: 4+), a fail is Shaken, a
    test from wounds never Routs; after melee no test from wounds (the melee result decides, not modelled)."""
    args = ("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--target-state", "models=3", "--json")
    out = json.loads(run(*args).stdout)
    due = out["morale_test_due"]["p"]
    assert due > 0.1
    assert out["morale_passed"]["p"] == pytest.approx(due / 2) and out["morale_shaken"]["p"] == pytest.approx(due / 2)
    assert out["morale_routed"]["p"] == 0
    text = run(*args[:-1])
    assert text.exit_code == 0, text.output
    assert "P(Shaken: morale test failed)" in text.stdout and "one test at Quality 4+" in text.stdout
    assert "P(morale test failed" not in text.stdout
    melee = run("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--phase", "melee")
    assert melee.exit_code == 0, melee.output
    assert "melee resolved both ways" in melee.stdout and "the loser" in melee.stdout
    fists = json.loads(run("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--phase", "melee",
                           "--json").stdout)  # fmt: skip
    # [BG 3.4.1] Morale from Melee: only the loser tests (the target when the charger won and it stands)
    won, destroyed = fists["melee_won"]["p"], fists["unit_destroyed"]["p"]
    assert fists["morale_test_due"]["p"] == pytest.approx(won - destroyed) and won > 0.3


def test_hero_is_wounded_last_in_melee_too() -> None:
    """Five Deadly-free wounds at most on 5 Saurians + a Tough(3) hero: the hero is never removed."""
    result = run("attack", "Field Commander", "Saurian Warriors + Field Commander", "--system", "gf", "--phase",
                 "combat", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    pmf = json.loads(result.stdout)["models_destroyed"]["pmf"]
    assert len(pmf) == 7 and pmf[6] == 0.0


@pytest.mark.parametrize(
    ("target", "field", "allowed"),
    [
        ("Saurian Warriors + Long Gunners", "TARGET (the hero after '+')", "a hero unit to join"),
        ("Saurian Warriors + Field Comander", "TARGET (the hero after '+')", "did you mean 'Field Commander'"),
        ("Field Commander + Field Commander", "TARGET (the hero after '+')", "a multi-model unit"),
        ("Saurian Warriors +", "TARGET", "'Unit + Hero' with a hero's name"),
    ],
)
def test_bad_joined_hero_is_one_clear_error(target: str, field: str, allowed: str) -> None:
    line = one_error(run("attack", "Robot Warriors", target, "--system", "gf"), field)
    assert allowed in line


def test_hero_over_tough_6_cannot_join(tmp_path: Path) -> None:
    (tmp_path / "big.toml").write_text(
        '[units."Big Boss"]\nsource = "t"\nhero = true\nmodels = 1\nquality = 3\ndefense = 2\ntough = 9\npoints = 1\n'
    )
    line = one_error(
        run("attack", "Robot Warriors", "Saurian Warriors + Big Boss", "--system", "gf", "--profiles", str(tmp_path)),
        "TARGET (the hero after '+')",
    )
    assert "up to Tough(6)" in line


def test_joined_hero_shoots_with_its_unit_at_its_own_quality() -> None:
    """Core rules, Hero: a hero joined to the attacking unit shoots with its own weapons at its own Quality:
    the unit's wounds plus the hero's alone."""
    from mathhammer.grimdark.profiles import unit_attacker, unit_defender

    both = run("attack", "Saurian Warriors + Field Commander", "Robot Warriors", "--system", "gf", "--json")
    assert both.exit_code == 0, both.output
    out = json.loads(both.stdout)
    assert out["loadout"]["attacker"]["hero"]["unit"] == "Field Commander"
    units = load_units()
    target = unit_defender(find_unit(units, "Robot Warriors"))
    commander = unit_attacker(find_unit(units, "Field Commander"), melee=False)
    saurians = unit_attacker(find_unit(units, "Saurian Warriors"), melee=False)
    assert commander is not None and saurians is not None
    own = WeaponGroup(1, commander.groups[0].weapon, quality=3)
    expected = grimdark_exact(dataclasses.replace(saurians, groups=(*saurians.groups, own)), target).wounds
    at_units = grimdark_exact(dataclasses.replace(saurians, groups=(*saurians.groups, own.__class__(1, own.weapon))),
                              target).wounds  # fmt: skip
    assert out["wounds"]["mean"] == pytest.approx(float(expected @ np.arange(expected.size)), abs=1e-12)
    assert out["wounds"]["mean"] > float(at_units @ np.arange(at_units.size)) + 1e-6  # Quality 3+, not 4+


def test_joined_hero_charges_with_its_unit() -> None:
    """Core rules, Hero: a hero joined to the charging unit strikes with its own weapons at its own Quality
    and is wounded last by the strikes back."""
    args = ("attack", "Saurian Warriors + Field Commander", "Robot Warriors", "--system", "gf", "--melee", "--json")
    alone = json.loads(run(*args[:1], "Saurian Warriors", *args[2:]).stdout)
    joined = run(*args)
    assert joined.exit_code == 0, joined.output
    out = json.loads(joined.stdout)
    assert out["wounds"]["mean"] > alone["wounds"]["mean"]
    assert len(out["attacker_models_destroyed"]["pmf"]) <= 7


def test_compare_against_a_unit_with_its_hero() -> None:
    result = run("compare", "Robot Warriors", "--vs", "Saurian Warriors + Field Commander", "--system", "gf", "--json")
    assert result.exit_code == 0, result.output
    assert "Saurian Warriors + Field Commander" in result.stdout


# --- profiles list / show --system grimdark ------------------------------------------------------


def test_profiles_list_grimdark_text_and_json() -> None:
    text = run("profiles", "list", "--system", "gf")
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines()[0].split()[:3] == ["unit", "models", "Q"]
    assert "Robot Warriors" in text.stdout and "Marine" not in text.stdout
    rows = json.loads(run("profiles", "list", "--system", "grimdark", "--json").stdout)
    by_name = {r["name"]: r for r in rows}
    assert set(by_name) == set(load_units())
    assert by_name["Field Commander"]["hero"] is True and by_name["Swamp Behemoth"]["tough"] == 6
    assert by_name["Robot Warriors"]["weapons"][0] == {
        "name": "Rifle", "count": None, "range": 24, "melee": False, "attacks": 1, "rules": ["AP(1)"],
    }  # fmt: skip


def test_profiles_list_grimdark_reads_user_folders(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        '[units.Mine]\nsource = "t"\nmodels = 2\nquality = 4\ndefense = 4\npoints = 9\n'
    )
    rows = json.loads(run("profiles", "list", "--system", "gf", "--json", "--profiles", str(tmp_path)).stdout)
    assert {"Mine", "Robot Warriors"} <= {r["name"] for r in rows}
    result = run("profiles", "list", "--system", "gf", "--profiles", "/no/such/folder")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_profiles_show_grimdark() -> None:
    text = run("profiles", "show", "field commander", "--system", "opr")
    assert text.exit_code == 0, text.output
    assert (
        text.stdout.startswith("Field Commander [1], hero")
        and "Energy Blade (melee, A3, AP(1), Rending)" in text.stdout
    )
    data = json.loads(run("profiles", "show", "Swamp Behemoth", "--system", "gf", "--json").stdout)
    assert data["rules"] == ["Tough(6)", "Regeneration", "Impact(3)"] and data["sample"] is True


def test_profiles_starcraft_unchanged() -> None:
    rows = json.loads(run("profiles", "list", "--json").stdout)
    assert any(r["name"] == "Marine" for r in rows)
    assert json.loads(run("profiles", "show", "Marine", "--system", "sc", "--json").stdout)["name"] == "Marine"


@pytest.mark.parametrize(
    ("args", "field", "allowed"),
    [
        (["profiles", "list", "--system", "gf", "--race", "zerg"], "--race", "only with --system starcraft"),
        (["profiles", "show", "Robot Warrior", "--system", "gf"], "NAME", "did you mean 'Robot Warriors'"),
        (["profiles", "list", "--system", "warmachine"], "--system", "grimdark"),
        (["profiles", "show", "Marine", "--system", "gf"], "NAME", "a Grimdark Future unit"),
    ],
)
def test_profiles_bad_input(args: list[str], field: str, allowed: str) -> None:
    assert allowed in one_error(run(*args), field)


# --- import-opr on a realistic Army Forge list export ----------------------------------------------


def test_realistic_list_export_converts() -> None:
    """A hand-made list in the shape of an Army Forge share export: ``gameSystem``, ``units`` with
    ``selectionId``/``joinToUnit``/``combined``, base ``cost`` plus ``selectedUpgrades`` option costs, a
    resolved ``loadout`` of ``ArmyBookWeapon``/``ArmyBookItem`` entries whose ``count`` is the number in the
    unit, rules as ``{"name", "rating", "label"}`` with ratings as numbers and strings, and a weapon nested
    in an item's ``content``."""
    data = json.loads(REALISTIC.read_text())
    text, warnings = convert(data, REALISTIC.name)
    units = load_text(text, REALISTIC.name)
    assert list(units) == ["Steel Legionnaires", "Commander Vex", "Scuttler Swarm", "Crawler Tank", "Venom Hunters"]
    legion = units["Steel Legionnaires"]
    assert (legion.models, legion.quality, legion.defense, legion.points) == (10, 4, 4, 200 + 20 + 15 + 25)
    assert [(w.name, w.count, w.attacks) for w in legion.weapons] == [
        ("Arc Rifle", 9, 1), ("CCW", None, 1), ("Heavy Arc Gun", 1, 3),
    ]  # fmt: skip
    assert legion.weapons[2].rules == (Rule("AP", 1), Rule("Blast", 3))
    # Nano-Weave on all 10 models; the one Legion Banner (Banner: "This model and its unit get +1 ...")
    assert set(legion.rules) == {Rule("Regeneration"), Rule("Banner")}
    vex = units["Commander Vex"]
    assert vex.hero and (vex.tough, vex.quality, vex.points) == (3, 3, 115)
    assert [w.name for w in vex.weapons] == ["Gauss Pistol", "Phase Sword", "Wrist Blades"]
    assert vex.weapons[1].melee and vex.weapons[1].rules == (Rule("AP", 2), Rule("Deadly", 3))
    assert (
        '# Commander Vex is joined to Steel Legionnaires in the list: as a target write "Steel Legionnaires + C' in text
    )
    swarm = units["Scuttler Swarm"]
    assert (swarm.models, swarm.points, swarm.weapons[0].count) == (10, 180, None)
    tank = units["Crawler Tank"]
    assert tank.rules == (Rule("Tough", 9), Rule("Impact", 3), Rule("Fear", 2))
    assert tank.weapons[0].attacks == 2  # 2x Twin Lance
    assert units["Venom Hunters"].weapons[0].rules == (Rule("Bane"), Rule("Reliable"))
    listed = data["listPoints"]
    assert sum(u.points for u in units.values()) == listed
    for part in (
        "Scuttler Swarm: a combined unit",
        "rule Self-Repair is not modelled",
        "Twin Lance: 2 weapons on 1 model; written as A2",
    ):
        assert any(part in w for w in warnings), part
    assert not any("rule Slow" in w or "rule Flying" in w for w in warnings)  # movement: cannot change a number
    assert not any("rule Fear" in w for w in warnings)  # GF v3.5 common rules: Fear counts in the melee result
    # Banner ("This model and its unit get +1 to morale test rolls"): the one model's banner is the unit's
    assert not any("Banner" in w for w in warnings)


def test_realistic_list_export_runs_in_attack(tmp_path: Path) -> None:
    out = tmp_path / "army.toml"
    result = run("import-opr", str(REALISTIC), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "warning: Steel Legionnaires: rule Self-Repair is not modelled" in result.stderr
    assert "rule Slow" not in result.stderr  # movement: cannot change a number, not warned about
    profiles = ["--profiles", str(out), "--system", "grimdark", "--json"]
    shot = run("attack", "Crawler Tank", "Steel Legionnaires + Commander Vex", "--range", "20", *profiles)
    assert shot.exit_code == 0, shot.output
    data = json.loads(shot.stdout)
    assert set(data) >= {"engine", "trials", "seed", "wounds", "models_destroyed", "unit_destroyed", "morale_test_due"}
    assert data["loadout"]["target"]["hero"]["unit"] == "Commander Vex"
    units = load_units([out])
    tank = unit_attacker(find_unit(units, "Crawler Tank"), melee=False, distance=20)
    assert tank is not None and [g.weapon.name for g in tank.groups] == ["Twin Lance", "Nova Mortar"]
    melee = run("attack", "Scuttler Swarm", "Crawler Tank", "--phase", "combat", "--charging", *profiles)
    assert melee.exit_code == 0, melee.output
    mc = run("attack", "Venom Hunters", "Scuttler Swarm", "--range", "12", "--trials", "2000", "--seed", "3", *profiles)
    assert mc.exit_code == 0 and json.loads(mc.stdout)["engine"] == "monte-carlo"


def test_army_book_items_null_range_and_two_weapons_on_one_model() -> None:
    """The Army Forge army-book shape: ``weapons`` plus ``items`` (wargear whose ``content`` holds rules),
    ``"range": null`` for melee, and ``"count": 2`` for "2x CCW" on a single model (A2 becomes A4)."""
    book = {
        "uid": "hand-made",
        "units": [
            {
                "id": "h1", "name": "Iron Lord", "size": 1, "cost": 105, "quality": 3, "defense": 3,
                "rules": [{"name": "Hero", "label": "Hero"}, {"name": "Tough", "rating": 6, "label": "Tough(6)"}],
                "items": [
                    {"id": "i1", "name": "Nano Shroud", "type": "ArmyBookItem", "count": 1,
                     "content": [{"name": "Regeneration", "type": "ArmyBookRule"}]},
                    {"id": "i2", "name": "Combat Shield", "type": "ArmyBookItem", "count": 1,
                     "content": [{"name": "Shielded", "type": "ArmyBookRule"}]},
                ],
                "weapons": [
                    {"name": "Lord Blade", "type": "ArmyBookWeapon", "count": 2, "range": None, "attacks": 2,
                     "specialRules": [], "label": "2x Lord Blade (A2)"},
                ],
            }
        ],
    }  # fmt: skip
    text, warnings = convert(book, "book.json")
    lord = load_text(text, "book.json")["Iron Lord"]
    # Shielded (GF v3.5 army books) is modelled: it comes through, unwarned
    assert lord.hero and lord.rules == (Rule("Hero"), Rule("Tough", 6), Rule("Regeneration"), Rule("Shielded"))
    assert [(w.name, w.melee, w.attacks, w.count) for w in lord.weapons] == [("Lord Blade", True, 4, None)]
    assert not any("Shielded" in w for w in warnings)
