"""Grimdark Future army lists (issue 25 point 7): mathhammer.grimdark.army and ``army validate --system gf``.

The lists are written here against the built-in sample units of ``profiles/grimdark/samples.toml``
(Robot Warriors 110 pts, Field Commander 90 pts and a hero, Swamp Behemoth 220 pts, Mortar Team
95 pts, Iron Wardens 260 pts); the limits come from ``profiles/rules/grimdark_army_building.toml``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.grimdark.army import GFArmyError, army_rules, check_gf_army, load_gf_army
from mathhammer.grimdark.profiles import GFRoster, load_units

runner = CliRunner()

LEGAL = """
name = "Robot vanguard"
points = 1000

[[units]]
unit = "Robot Warriors + Field Commander"   # 200 pts a copy
count = 2

[[units]]
unit = "Mortar Team"

[[units]]
unit = "Iron Wardens"
"""


@pytest.fixture(scope="module")
def units() -> GFRoster:
    return load_units()


def write(tmp_path: Path, text: str, name: str = "army.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path: Path, units: GFRoster, text: str) -> list[str]:
    return check_gf_army(load_gf_army(write(tmp_path, text)), units).problems


def entries(points: int, *units: tuple[str, int]) -> str:
    lines = [f"points = {points}"]
    for unit, count in units:
        lines += ["[[units]]", f'unit = "{unit}"', f"count = {count}"]
    return "\n".join(lines) + "\n"


def test_rules_come_from_the_data_file() -> None:
    rules = army_rules()
    assert "1 hero per 500pts" in rules.text and "35%" in rules.text
    assert (rules.hero_per_points, rules.copies_base, rules.copies_per_points) == (500, 1, 1000)
    assert (rules.share_percent, rules.unit_per_points) == (35, 200)
    assert rules.version == "3.5.1"


def test_each_limit_is_quoted_from_the_rule_text() -> None:
    """Every limit's text is a piece of the quoted force-organisation text, and its number is in that piece."""
    import tomllib

    from mathhammer.grimdark.army import data_path

    data = tomllib.loads(data_path().read_text(encoding="utf-8"))
    for key in ("heroes", "copies", "share", "units"):
        rule = data["rules"][key]
        assert rule["text"] in data["text"], key
        numbers = [v for k, v in rule.items() if k in ("per_points", "percent")]
        assert numbers and all(str(n) in rule["text"] for n in numbers), key
        assert rule["name"] in data["text"], key  # the name printed with a violation is quoted too
    assert "doesn't go over the agreed total game size" in data["rules"]["points_limit"]["text"]


def test_the_books_worked_example(tmp_path: Path, units: GFRoster) -> None:
    # "When playing a 2000pts game, players may bring max. 4 heroes, max. 3 copies of each unit,
    # no unit worth over 700pts, and max. 10 units in total."
    assert problems(tmp_path, units, entries(2000, ("Robot Warriors + Field Commander", 3), ("Mortar Team", 3))) == []
    four = problems(tmp_path, units, entries(2000, ("Robot Warriors + Field Commander", 3), ("Field Commander", 2)))
    assert any("5 heroes" in p and "at most 4" in p for p in four)
    assert any("5 copies of Field Commander" in p and "at most 3" in p for p in four)
    eleven = entries(2000, ("Robot Warriors", 3), ("Saurian Warriors", 3), ("Mortar Team", 3), ("Long Gunners", 2))
    assert [p for p in problems(tmp_path, units, eleven) if "max. 1 unit per" in p] == [
        "army.toml: 11 units (a joined hero is part of its unit); allowed: at most 10 at 2000 pts; "
        'rule "max. 1 unit per 200pts"'
    ]


def test_a_legal_list(tmp_path: Path, units: GFRoster) -> None:
    report = check_gf_army(load_gf_army(write(tmp_path, LEGAL)), units)
    assert report.valid and report.problems == []
    assert (report.points, report.units, report.heroes) == (755, 4, 2)
    result = runner.invoke(app, ["army", "validate", str(tmp_path / "army.toml"), "--system", "gf"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: Robot vanguard (army.toml): 755/1000 pts, 4 units, 2 heroes")


def test_points_limit(tmp_path: Path, units: GFRoster) -> None:
    at_limit = entries(400, ("Robot Warriors", 1), ("Mortar Team", 1))  # 205 pts
    assert problems(tmp_path, units, at_limit) == []
    over = entries(600, ("Robot Warriors", 1), ("Mortar Team", 1), ("Iron Wardens", 1), ("Saurian Warriors", 1))
    # 110 + 95 + 260 + 85 = 550 pts at 600: fine on points; at 540 over by 10
    assert all("Points limit" not in p for p in problems(tmp_path, units, over))
    over = over.replace("points = 600", "points = 540")
    found = problems(tmp_path, units, over)
    assert found[0] == 'army.toml: 550 pts; allowed: at most the points limit 540; rule "Points limit"'


def test_heroes_per_size(tmp_path: Path, units: GFRoster) -> None:
    found = problems(tmp_path, units, entries(999, ("Robot Warriors + Field Commander", 1), ("Field Commander", 1)))
    assert found == [
        "army.toml: 2 heroes (units[0] Field Commander, units[1] Field Commander); allowed: at most 1 at 999 pts; "
        'rule "1 hero per 500pts"',
        "army.toml: 2 copies of Field Commander (units[0], units[1]); allowed: at most 1 at 999 pts; "
        'rule "1+X copies of the same unit, where X is 1 per 1000pts"',
    ]


def test_copies_of_a_unit(tmp_path: Path, units: GFRoster) -> None:
    found = problems(tmp_path, units, entries(1500, ("Saurian Warriors", 2), ("Saurian Warriors", 1)))
    assert found == [
        "army.toml: 3 copies of Saurian Warriors (units[0] x2, units[1]); allowed: at most 2 at 1500 pts; "
        'rule "1+X copies of the same unit, where X is 1 per 1000pts"'
    ]


def test_share_of_points_in_one_unit(tmp_path: Path, units: GFRoster) -> None:
    found = problems(tmp_path, units, entries(600, ("Swamp Behemoth", 1)))
    assert found == [
        "army.toml: units[0] Swamp Behemoth: worth 220 pts, over 35% of 600 pts (210 pts); "
        'rule "No single unit may be worth over 35% of total points"'
    ]
    # a joined hero's points are part of its unit's worth: 110 + 90 = 200 > 35% of 560 = 196
    found = problems(tmp_path, units, entries(560, ("Robot Warriors + Field Commander", 1)))
    assert found == [
        "army.toml: units[0] Robot Warriors + Field Commander: worth 200 pts, over 35% of 560 pts (196 pts); "
        'rule "No single unit may be worth over 35% of total points"'
    ]
    assert problems(tmp_path, units, entries(572, ("Robot Warriors + Field Commander", 1))) == []


def test_every_violation_is_listed_by_the_cli(tmp_path: Path) -> None:
    path = write(tmp_path, entries(500, ("Swamp Behemoth", 2), ("Field Commander", 2)))
    result = runner.invoke(app, ["army", "validate", str(path), "--system", "gf"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert all(line.startswith("error: army.toml: ") and 'rule "' in line for line in lines)
    rules = {line.split('rule "')[1] for line in lines}
    assert rules == {
        'Points limit"',
        '1 hero per 500pts"',
        '1+X copies of the same unit, where X is 1 per 1000pts"',
        'No single unit may be worth over 35% of total points"',
        'max. 1 unit per 200pts"',
    }
    result = runner.invoke(app, ["army", "validate", str(path), "--system", "gf", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout.splitlines()[0])["valid"] is False


def test_unknown_unit_did_you_mean(tmp_path: Path, units: GFRoster) -> None:
    found = problems(tmp_path, units, entries(1000, ("Robot Warrior", 1), ("Robot Warriors + Field Comander", 1)))
    assert found[0].startswith("army.toml: units[0].unit: got 'Robot Warrior'; allowed: a Grimdark Future unit")
    assert "did you mean 'Robot Warriors'" in found[0]
    assert found[1].startswith("army.toml: units[1].unit: got 'Field Comander'") and "Field Commander" in found[1]


def test_a_hero_joins_only_a_multi_model_unit(tmp_path: Path, units: GFRoster) -> None:
    found = problems(tmp_path, units, entries(1000, ("Robot Warriors + Mortar Team", 1)))
    assert found[0].startswith("army.toml: units[0].unit: got 'Mortar Team'; allowed: a hero unit to join")


def test_unknown_keys_name_file_and_path(tmp_path: Path) -> None:
    with pytest.raises(GFArmyError) as err:
        load_gf_army(write(tmp_path, 'points = 1000\nlimit = 3\n[[units]]\nunit = "Mortar Team"\ncopies = 2\n'))
    assert len(err.value.problems) == 2
    assert any(p.startswith("army.toml: units[0].copies: unknown key") for p in err.value.problems)
    assert any(p.startswith("army.toml: limit: unknown key") for p in err.value.problems)
    result = runner.invoke(app, ["army", "validate", str(tmp_path / "army.toml"), "--system", "gf"])
    assert result.exit_code == 2 and "units[0].copies: unknown key" in result.output


def test_profiles_folder_units(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "units.toml").write_text(
        '[units."Test Squad"]\nmodels = 5\nquality = 4\ndefense = 4\npoints = 400\nsource = "test"\n',
        encoding="utf-8",
    )
    path = write(tmp_path, entries(1000, ("Test Squad", 1)))
    result = runner.invoke(app, ["army", "validate", str(path), "--system", "gf"])
    assert result.exit_code == 2 and "got 'Test Squad'" in result.output
    result = runner.invoke(app, ["army", "validate", str(path), "--system", "gf", "--profiles", str(folder)])
    assert result.exit_code == 2
    assert "units[0] Test Squad: worth 400 pts, over 35% of 1000 pts (350 pts)" in result.output


def test_starcraft_stays_the_default() -> None:
    example = Path(__file__).resolve().parents[1] / "profiles" / "armies" / "terran_six.toml"
    result = runner.invoke(app, ["army", "validate", str(example)])
    assert result.exit_code == 0 and result.output.strip().endswith("valid")
    result = runner.invoke(app, ["army", "validate", str(example), "--system", "sc"])
    assert result.exit_code == 0
    result = runner.invoke(app, ["army", "validate", str(example), "--system", "warhammer"])
    assert result.exit_code == 2 and "--system" in result.output
