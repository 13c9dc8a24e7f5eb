"""Grimdark Future unit profiles (TOML), the Army Forge importer and ``import-opr``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mathhammer.errors import InputError
from mathhammer.grimdark import grimdark_exact
from mathhammer.grimdark.opr_import import convert
from mathhammer.grimdark.profiles import (
    GFUnit,
    builtin_dir,
    find_unit,
    load_text,
    load_units,
    unit_attacker,
    unit_defender,
)
from mathhammer.grimdark.rules import Rule
from mathhammer.profiles import ProfileError

FIXTURES = Path(__file__).parent / "fixtures" / "opr"


def _mean(hist: object) -> float:
    import numpy as np

    h = np.asarray(hist)
    return float(h @ np.arange(len(h)))


# --- the samples -------------------------------------------------------------


def test_samples_load_and_are_marked() -> None:
    units = load_units()
    assert builtin_dir().name == "grimdark"
    assert len(units) >= 8
    assert all(u.sample for u in units.values())
    assert all(u.source.startswith("sample") for u in units.values())
    text = (builtin_dir() / "samples.toml").read_text()
    assert "ILLUSTRATIVE ONLY" in text and "NOT" in text
    robots = units["Robot Warriors"]
    assert (robots.models, robots.quality, robots.defense, robots.tough) == (5, 4, 4, 1)
    rifle = robots.weapons[0]
    assert (rifle.range, rifle.attacks, rifle.rules, rifle.count) == (24, 1, (Rule("AP", 1),), None)
    assert units["Saurian Warriors"].defense == 4


def test_samples_cover_the_varied_units() -> None:
    units = load_units().values()
    assert any(u.tough == 3 and u.models > 1 for u in units)
    assert any(u.tough == 6 and any(r.name == "Regeneration" for r in u.rules) for u in units)
    assert any(any(r.name == "Blast" for w in u.weapons for r in w.rules) for u in units)
    assert any(any(r.name == "Furious" for r in u.rules) for u in units)
    assert any(any(r.name == "Hero" for r in u.rules) for u in units)


def test_find_unit_case_insensitive_and_did_you_mean() -> None:
    units = load_units()
    assert find_unit(units, "  robot   WARRIORS ", "--attacker").name == "Robot Warriors"
    with pytest.raises(InputError) as exc:
        find_unit(units, "Robot Warrior", "--attacker")
    assert exc.value.field == "--attacker"
    assert "did you mean 'Robot Warriors'" in str(exc.value)


# --- the seed's example ------------------------------------------------------


def test_robot_warriors_against_saurians_in_cover_is_1_25() -> None:
    units = load_units()
    attacker = unit_attacker(units["Robot Warriors"], melee=False)
    assert attacker is not None
    assert [(g.models, g.weapon.name) for g in attacker.groups] == [(5, "Rifle")]
    defender = unit_defender(units["Saurian Warriors"], cover=True)
    tally = grimdark_exact(attacker, defender)
    assert _mean(tally.models_destroyed) == pytest.approx(1.25, abs=1e-12)
    assert _mean(tally.wounds) == pytest.approx(1.25, abs=1e-12)


def test_attacker_phases_counts_and_model_rules() -> None:
    units = load_units()
    heavy = unit_attacker(units["Robot Heavy Squad"], melee=False, models=3)
    assert heavy is not None
    assert [(g.models, g.weapon.name) for g in heavy.groups] == [(3, "Carbine"), (1, "Plasma Rifle")]
    assert unit_attacker(units["Mortar Team"], melee=True) is None
    raiders = unit_attacker(units["Frenzied Raiders"], melee=True, charging=True)
    assert raiders is not None and raiders.charging
    assert all(any(r.name == "Furious" for r in g.weapon.rules) for g in raiders.groups)
    gunners = unit_attacker(units["Long Gunners"], melee=False, distance=20)
    assert gunners is not None and gunners.distance == 20
    assert any(r.name == "Relentless" for r in gunners.groups[0].weapon.rules)
    beast = unit_attacker(units["Swamp Behemoth"], melee=True, charging=True)
    assert beast is not None
    assert beast.groups[0].weapon.rules == (Rule("Impact", 3),) and beast.groups[0].models == 1
    tally = grimdark_exact(beast, unit_defender(units["Saurian Warriors"]))
    assert _mean(tally.wounds) > 0
    with pytest.raises(InputError, match="models"):
        unit_attacker(units["Robot Warriors"], melee=False, models=6)


def test_defender_takes_tough_and_regeneration() -> None:
    units = load_units()
    beast = unit_defender(units["Swamp Behemoth"])
    assert (beast.models, beast.tough, beast.defense) == (1, 6, 3)
    assert {r.name for r in beast.rules} == {"Tough", "Regeneration"}
    hero = unit_defender(units["Field Commander"])
    assert hero.tough == 3 and all(r.name != "Hero" for r in hero.rules)
    assert unit_defender(units["Robot Warriors"], models=2).models == 2


# --- broken files ------------------------------------------------------------

BROKEN = """
[units."Robot Warriors"]
source = "test"
models = 5
qualty = 4
quality = 9
defense = "4+"
points = 100
rules = ["Regenration", "Hero"]
weapons = [
  { name = "Rifle", range = 24, attacks = 1, rules = ["AP(1)", "Rendin"] },
  { name = "Claws", range = 0, attacks = 0, rulez = [] },
  { name = "Gun", range = 24, attacks = 1, rules = ["Furious"] },
]

[units.Beast]
source = "test"
models = 1
quality = 4
defense = 4
points = 10
tough = 3
rules = ["Tough(6)"]
"""


def test_every_problem_of_a_broken_file_at_once(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text(BROKEN)
    (tmp_path / "bad.toml").write_text("units = [")
    with pytest.raises(ProfileError) as exc:
        load_units([tmp_path])
    problems = exc.value.problems
    text = "\n".join(problems)
    assert "broken.toml: units.\"Robot Warriors\".qualty: unknown key (did you mean 'quality'?)" in problems
    assert (
        'broken.toml: units."Robot Warriors".quality: got 9; allowed: a target number from 2 to 6 (4 or "4+" means 4+)'
        in problems
    )
    assert any(
        p.startswith("broken.toml: units.\"Robot Warriors\".rules[0]: got 'Regenration'; allowed: a unit rule")
        and "did you mean 'Regeneration'" in p
        for p in problems
    )
    assert any(
        p.startswith("broken.toml: units.\"Robot Warriors\".weapons[0].rules[1]: got 'Rendin'")
        and "did you mean 'Rending'" in p
        for p in problems
    )
    assert any(".weapons[1].attacks: got 0" in p for p in problems)
    assert any(".weapons[1].rulez: unknown key (did you mean 'rules'?)" in p for p in problems)
    assert "bad.toml: not valid TOML" in text
    assert len(problems) >= 6


def test_cross_field_problems(tmp_path: Path) -> None:
    cases = {
        "a.toml": ('rules = ["Tough(6)"]\ntough = 3', "tough = 6"),
        "b.toml": ('weapons = [{ name = "Gun", range = 24, attacks = 1, rules = ["Furious"] }]', "melee weapons"),
        "c.toml": ('weapons = [{ name = "Gun", count = 9, range = 24, attacks = 1 }]', "at most the unit's 5"),
        "d.toml": ('rules = ["AP(1)"]', "AP is a weapon rule"),
        "e.toml": ('rules = ["Hero(2)"]', "Hero without a rating"),
    }
    base = 'source = "t"\nmodels = 5\nquality = 4\ndefense = 4\npoints = 1\n'
    for name, (body, expected) in cases.items():
        with pytest.raises(ProfileError) as exc:
            load_text(f"[units.X]\n{base}{body}\n", name)
        assert any(p.startswith(f"{name}: units.X") and expected in p for p in exc.value.problems), exc.value.problems


def test_user_folder_overrides_and_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        '[units."Robot Warriors"]\nsource = "mine"\nmodels = 10\nquality = "3+"\ndefense = 4\npoints = 1\n'
        'rules = [{ name = "Tough", rating = "2" }]\n'
    )
    units = load_units([tmp_path])
    assert units["Robot Warriors"].models == 10 and units["Robot Warriors"].quality == 3
    assert units["Robot Warriors"].tough == 2
    assert "Saurian Warriors" in units
    with pytest.raises(ProfileError, match="no such file or folder"):
        load_units([tmp_path / "nope"])
    assert isinstance(next(iter(load_units([tmp_path], builtin=False).values())), GFUnit)


# --- the importer ------------------------------------------------------------


def _convert(name: str) -> tuple[dict[str, GFUnit], list[str]]:
    data = json.loads((FIXTURES / name).read_text())
    text, warnings = convert(data, name)
    return load_text(text, name), warnings


def test_import_army_book_shape() -> None:
    units, warnings = _convert("army_book.json")
    assert list(units) == ["Test Troopers", "Test Captain", "Test Beast"]
    troopers = units["Test Troopers"]
    assert (troopers.models, troopers.quality, troopers.defense, troopers.points) == (10, 4, 5, 100)
    assert troopers.weapons[0].rules == (Rule("AP", 1),) and troopers.weapons[1].range == 0
    assert units["Test Captain"].tough == 3 and Rule("Hero") in units["Test Captain"].rules
    beast = units["Test Beast"]
    # GF v3.5 common rules: Fear(X) counts in the melee result: it comes through on the unit
    assert beast.rules == (Rule("Tough", 6), Rule("Regeneration"), Rule("Impact", 3), Rule("Fear", 2))
    assert not any("rule Fear" in w for w in warnings)
    # GF v3.5 common rules: Sniper is modelled: it comes through on the weapon, unwarned
    assert units["Test Captain"].weapons[0].rules == (Rule("Sniper"),)
    assert not any("rule Sniper" in w for w in warnings)
    # GF v3.5 common rules: Fearless is modelled (morale): it comes through on the unit, unwarned
    assert Rule("Fearless") in troopers.rules and not any("rule Fearless" in w for w in warnings)
    assert not any("rule Scout" in w for w in warnings)  # deployment: cannot change a number, not warned about
    assert all(not u.sample and "army_book.json" in u.source for u in units.values())


def test_import_list_export_shape() -> None:
    units, warnings = _convert("list_export.json")
    assert list(units) == ["Raiders Alpha", "Test Raiders"]
    alpha = units["Raiders Alpha"]
    assert [(w.name, w.count) for w in alpha.weapons] == [("Test Blade", 4), ("Test Flamer", 1)]
    assert alpha.weapons[1].rules == (Rule("Blast", 3), Rule("Reliable"))
    assert alpha.rules == (Rule("Furious"),)  # the banner's Regeneration is carried by one model only
    assert any("rule Regeneration of item Test Banner is carried by 1 of 5 models" in w for w in warnings)
    assert any("Bad Shot is not modelled" in w for w in warnings)
    assert any("Test Aura is not modelled" in w for w in warnings)
    assert any("modifies another rule" in w for w in warnings)
    # Army Forge's count is the number of weapons: 7 guns on 5 models (Furious, a melee rule, left out)
    assert [(w.name, w.count, w.attacks) for w in units["Test Raiders"].weapons[1:]] == [
        ("Test Gun", None, 1),
        ("Test Gun", 2, 1),
    ]
    assert any("Test Gun: 7 weapons on 5 models" in w for w in warnings)
    assert any("Test Gun: rule Furious does not apply" in w for w in warnings)
    assert any(w.startswith("Broken Unit: quality 9") and "left out" in w for w in warnings)


def test_import_text_rules_shape() -> None:
    units, warnings = _convert("string_rules.json")
    walkers = units["Text Walkers"]
    assert (walkers.models, walkers.quality, walkers.defense, walkers.points, walkers.tough) == (3, 4, 3, 150, 3)
    # Shred (GF v3.5) is modelled: it comes through; so does the unit's Stealth (GF v3.5 common rules: Stealth)
    assert Rule("Stealth") in walkers.rules
    assert walkers.weapons[0].rules == (Rule("AP", 2), Rule("Lock-On"), Rule("Shred"))
    assert walkers.weapons[1].rules == (Rule("AP", 1), Rule("Rending")) and walkers.weapons[1].range == 0
    assert units["Text Scouts"].defense == 6
    assert not any("Shred" in w or "Stealth" in w for w in warnings)
    expected = ["'AP(x)' cannot be read"]
    for part in expected:
        assert any(part in w for w in warnings), part
    assert not any("Strider" in w or "rule Scout" in w for w in warnings)  # movement, deployment: not warned about


def test_import_other_shapes_and_names() -> None:
    unit = {"name": 'Odd "Name".', "size": 2, "quality": 4, "defense": 4, "cost": 5}
    text, warnings = convert({"units": [unit, unit, "junk"]}, "x.json")
    units = load_text(text, "x.json")
    assert list(units) == ['Odd "Name".', 'Odd "Name". (2)']
    assert any("the same name again" in w for w in warnings)
    assert any("units[2]: not a unit object" in w for w in warnings)
    text, _ = convert({"name": "Solo", "size": 1, "quality": "3+", "defense": "2+", "rules": "Tough(9)"}, "solo.json")
    assert load_text(text, "solo.json")["Solo"].tough == 9
    text, _ = convert({"units": {"By Key": {"size": 3, "quality": 4, "defense": 4}}}, "map.json")
    assert load_text(text, "map.json")["By Key"].models == 3
    with pytest.raises(InputError):
        convert({"nothing": 1}, "empty.json")
    text, warnings = convert([], "none.json")
    assert load_text(text, "none.json") == {} and warnings == []


# --- the command -------------------------------------------------------------


@pytest.fixture()
def app() -> typer.Typer:
    from mathhammer.cli.import_opr import register

    root = typer.Typer(pretty_exceptions_enable=False)
    register(root)

    @root.callback()
    def _root() -> None:
        """test root"""

    return root


def _run(app: typer.Typer, *args: str) -> object:
    return CliRunner().invoke(app, ["import-opr", *args])


def test_cli_prints_toml_and_warnings(app: typer.Typer) -> None:
    result = _run(app, str(FIXTURES / "army_book.json"))
    assert result.exit_code == 0, result.output
    assert load_text(result.stdout, "out.toml").keys() == {"Test Troopers", "Test Captain", "Test Beast"}
    assert "warning: Test Beast: rule Odd Gift is not modelled" in result.stderr  # a rule the data does not know


def test_cli_writes_out_and_json(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "army.toml"
    result = _run(app, str(FIXTURES / "list_export.json"), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["units"] == ["Raiders Alpha", "Test Raiders"] and payload["out"] == str(out)
    assert payload["warnings"] and "warning: " in result.stderr
    assert set(load_units([out], builtin=False)) == {"Raiders Alpha", "Test Raiders"}
    assert sorted(os.listdir(tmp_path)) == ["army.toml"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "an existing Army Forge JSON export"),
        ("{not json", "valid JSON"),
        (b"\xff\xfe\x00", "UTF-8"),
        ('"just text"', "an Army Forge export"),
        ('{"other": []}', "an Army Forge export"),
    ],
)
def test_cli_bad_input(app: typer.Typer, tmp_path: Path, content: str | bytes | None, expected: str) -> None:
    src = tmp_path / "in.json"
    if isinstance(content, bytes):
        src.write_bytes(content)
    elif content is not None:
        src.write_text(content)
    out = tmp_path / "out.toml"
    result = _run(app, str(src), "--out", str(out))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


def test_cli_unwritable_out(app: typer.Typer, tmp_path: Path) -> None:
    for out in (tmp_path / "missing" / "x.toml", tmp_path):
        result = _run(app, str(FIXTURES / "army_book.json"), "--out", str(out))
        assert result.exit_code == 2
        errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and errors[0].startswith("error: --out:"), result.stderr
        assert "Traceback" not in result.output
    assert sorted(os.listdir(tmp_path)) == []


def test_cli_out_replaces_existing_file(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "army.toml"
    out.write_text("old")
    assert _run(app, str(FIXTURES / "string_rules.json"), "--out", str(out)).exit_code == 0
    assert "Text Walkers" in load_units([out], builtin=False)


def test_wired_into_the_app_when_registered() -> None:
    import mathhammer.cli as cli

    names = {c.name for c in cli.app.registered_commands}
    if "import-opr" not in names:
        pytest.skip("import-opr is not wired into mathhammer.cli.app yet")
    result = CliRunner().invoke(cli.app, ["import-opr", str(FIXTURES / "army_book.json")])
    assert result.exit_code == 0


# --- robustness --------------------------------------------------------------

_scalar = st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=True) | st.text(max_size=8)
_rule = st.fixed_dictionaries({"name": st.sampled_from(["AP", "Tough", "Hero", "Blast", "Furious", "Odd", ""])}).map(
    dict
) | st.sampled_from(["AP(1)", "Tough(x)", "Impact(2)", "Relentless", "((", "Blast(3)"])
_weapon = st.fixed_dictionaries(
    {},
    optional={
        "name": _scalar,
        "count": _scalar,
        "attacks": _scalar,
        "range": _scalar,
        "specialRules": st.lists(_rule | _scalar, max_size=3),
        "content": st.lists(_rule | _scalar, max_size=2),
    },
)
_unit = st.fixed_dictionaries(
    {},
    optional={
        "name": _scalar,
        "customName": _scalar,
        "size": _scalar,
        "quality": _scalar | st.sampled_from(["4+", "2+", "7+"]),
        "defense": _scalar | st.sampled_from(["3+", "6+"]),
        "cost": _scalar,
        "rules": st.lists(_rule | _scalar, max_size=3) | _scalar,
        "loadout": st.lists(_weapon | _scalar, max_size=3) | _scalar,
        "equipment": st.lists(_weapon, max_size=2),
        "weapons": st.lists(_weapon, max_size=2),
        "items": st.lists(_weapon | _scalar, max_size=2) | _scalar,
        "selectedUpgrades": st.lists(
            st.fixed_dictionaries({"option": st.fixed_dictionaries({}, optional={"cost": _scalar})}) | _scalar,
            max_size=2,
        )
        | _scalar,
        "selectionId": st.sampled_from(["s1", "s2"]) | _scalar,
        "joinToUnit": st.sampled_from(["s1", "s2"]) | _scalar,
        "combined": st.booleans() | _scalar,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_unit | _scalar, max_size=4))
def test_convert_never_breaks(units: list[object]) -> None:
    text, warnings = convert(units, "fuzz.json")
    load_text(text, "fuzz.json")
    assert all(isinstance(w, str) for w in warnings)


def test_fearless_on_a_profile_reaches_the_morale_test() -> None:
    """GF v3.5 common rules, Fearless: "When a unit where all models have this rule fails a morale test, roll
    one die. On a 4+ it counts as passed instead." Written on a profile, it makes the target Fearless."""
    from dataclasses import replace

    from mathhammer.grimdark.profiles import unit_defender

    text = (
        '[units."Brave Few"]\nsource = "a test unit"\nmodels = 5\nquality = 4\ndefense = 5\npoints = 50\n'
        'rules = ["Fearless"]\n'
    )
    unit = load_text(text, "brave.toml")["Brave Few"]
    assert unit.rules == (Rule("Fearless"),)
    assert unit_defender(unit).fearless and not unit_defender(replace(unit, rules=())).fearless
