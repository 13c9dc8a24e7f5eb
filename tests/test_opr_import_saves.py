"""``import-opr`` on Army Forge list saves (``--book``) and on files of other game systems (``--force``).

The fixtures are hand-made in the shapes Army Forge writes (``tests/fixtures/opr/list_save.json``,
``save_book.json``, ``firefight_book.json``); no unit in them is army-book data.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import typer

from mathhammer.grimdark.opr_saves import game_system, is_list_save, resolve_save
from mathhammer.grimdark.profiles import load_text, load_units

from . import test_grimdark_profiles

FIXTURES = Path(__file__).parent / "fixtures" / "opr"
SAVE = FIXTURES / "list_save.json"
BOOK = FIXTURES / "save_book.json"
FIREFIGHT = FIXTURES / "firefight_book.json"


# the import-opr command under test, and how it is run: as tests/test_grimdark_profiles.py has them
app = test_grimdark_profiles.app
_run = test_grimdark_profiles._run


def _errors(result: object) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]  # type: ignore[attr-defined]


def test_list_save_without_book_exits_2_naming_what_to_give(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "army.toml"
    result = _run(app, str(SAVE), "--out", str(out))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert line.startswith(f"error: {SAVE}: an Army Forge list save of army book ID hand-made-book-01")
    assert "--book BOOK.json" in line and "Traceback" not in result.output
    assert os.listdir(tmp_path) == []


def test_list_save_with_book_units_upgrades_points_and_joined_hero(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "army.toml"
    result = _run(app, str(SAVE), "--book", str(BOOK), "--out", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    units = load_text(text, "army.toml")
    assert set(units) == {"Alpha Squad", "Test Captain"}
    # the book's cost for this unit (costs[unitId]) is used, not the option's generic cost
    assert "points = 130" in text and "points = 75" in text
    assert "# List 'Test Strike Group': 205 points" in text and "add up to 205" in text
    assert "# Sources: list_save.json (Army Forge list save), save_book.json" in text
    squad = text.split('[units."Alpha Squad"]')[1].split("[units.")[0]
    assert '{ name = "Test Rifle", count = 4, range = 24, attacks = 1, rules = ["AP(1)"] }' in squad
    assert '{ name = "Heavy Test Gun", count = 1, range = 24, attacks = 3, rules = ["AP(1)", "Blast(3)"] }' in squad
    assert '{ name = "Test Grenades", range = 6, attacks = 1, rules = ["Blast(3)"] }' in squad  # on all 5 models
    assert 'rules = ["Hero", "Tough(3)", "Regeneration"]' in text  # the captain's chosen item
    assert '# Test Captain is joined to Alpha Squad in the list: as a target write "Alpha Squad + Test Captain"' in text
    assert set(load_units([out], builtin=False)) == {"Alpha Squad", "Test Captain"}


def test_missing_unit_and_upgrade_are_warnings() -> None:
    save = json.loads(SAVE.read_text())
    book = json.loads(BOOK.read_text())
    save["list"]["units"].append({"id": "u-gone", "armyId": "hand-made-book-01", "selectionId": "sel-x"})
    save["list"]["units"][0]["selectedUpgrades"].append({"instanceId": "i9", "upgradeId": "S-gone", "optionId": "O-x"})
    save["list"]["units"][1]["selectedUpgrades"].append(
        {"instanceId": "i8", "upgradeId": "S-hero", "optionId": "O-gone"}
    )
    units, warnings = resolve_save(save, {"hand-made-book-01": book})
    assert [u.get("customName") or u["name"] for u in units] == ["Alpha Squad", "Test Captain"]
    assert any("unit id 'u-gone'" in w and "not in army book" in w and "left out" in w for w in warnings)
    assert any(w.startswith("Alpha Squad: upgrade S-gone") and "not counted" in w for w in warnings)
    assert any(w.startswith("Test Captain: option O-gone") and "not counted" in w for w in warnings)
    assert units[0]["cost"] == 130 and units[1]["cost"] == 75


def test_missing_unit_warning_on_the_command_line(app: typer.Typer, tmp_path: Path) -> None:
    save = json.loads(SAVE.read_text())
    save["list"]["units"].append({"id": "u-gone", "armyId": "hand-made-book-01", "selectionId": "sel-x"})
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save))
    result = _run(app, str(path), "--book", str(BOOK))
    assert result.exit_code == 0, result.output
    assert "warning: list.units[2] (unit id 'u-gone'" in result.stderr


def test_book_of_another_id_exits_2(app: typer.Typer) -> None:
    result = _run(app, str(SAVE), "--book", str(FIXTURES / "army_book.json"))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "hand-made-book-01" in line and "--book BOOK.json" in line


def test_book_without_a_list_save_is_refused(app: typer.Typer) -> None:
    result = _run(app, str(BOOK), "--book", str(BOOK))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "not an Army Forge list save" in line


def test_firefight_file_refused_then_forced(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "ff.toml"
    result = _run(app, str(FIREFIGHT), "--out", str(out))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert str(FIREFIGHT) in line and "Grimdark Future: Firefight" in line and "--force" in line
    assert not out.exists()
    forced = _run(app, str(FIREFIGHT), "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert set(load_text(out.read_text(), "ff.toml")) == {"Test Ganger"}
    assert "imported as Grimdark Future (--force)" in forced.stderr


def test_firefight_list_save_refused(app: typer.Typer, tmp_path: Path) -> None:
    save = json.loads(SAVE.read_text())
    save["gameSystem"] = save["list"]["gameSystem"] = "gff"
    path = tmp_path / "ff_save.json"
    path.write_text(json.dumps(save))
    result = _run(app, str(path), "--book", str(BOOK))
    assert result.exit_code == 2 and "Firefight" in _errors(result)[0]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"gameSystem": "gf"}, "gf"),
        ({"gameSystem": "aof"}, "aof"),
        ({"gameSystemId": 5, "gameSystemSlug": "age-of-fantasy-skirmish"}, "aofs"),
        ({"gameSystemSlug": "age-of-fantasy-regiments"}, "aofr"),
        ({"gameSystemId": 2}, "gf"),
    ],
)
def test_game_system(data: dict[str, object], code: str) -> None:
    found = game_system(data)
    assert found is not None and found[0] == code


def test_existing_exports_are_not_list_saves() -> None:
    for name in ("army_book.json", "army_forge_list_export.json", "list_export.json", "string_rules.json"):
        assert not is_list_save(json.loads((FIXTURES / name).read_text()))
    assert is_list_save(json.loads(SAVE.read_text()))
    no_version = copy.deepcopy(json.loads(SAVE.read_text()))
    del no_version["saveVersion"]
    assert is_list_save(no_version)


def test_combined_unit_in_a_list_save_is_one_unit(app: typer.Typer, tmp_path: Path) -> None:
    save = json.loads(SAVE.read_text())
    save["list"]["units"][0]["combined"] = True
    save["list"]["units"].append(
        {
            "id": "u-troop",
            "armyId": "hand-made-book-01",
            "selectionId": "sel-b",
            "selectedUpgrades": [],
            "combined": True,
            "joinToUnit": "sel-a",
        }
    )
    save["listPoints"] = 305
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save))
    out = tmp_path / "army.toml"
    result = _run(app, str(path), "--book", str(BOOK), "--out", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    squad = text.split('[units."Alpha Squad"]')[1].split("[units.")[0]
    assert "models = 10" in squad and "points = 230" in squad
    assert '{ name = "Test Rifle", count = 9, range = 24, attacks = 1, rules = ["AP(1)"] }' in squad
    assert "# List 'Test Strike Group': 305 points" in text
    assert set(load_text(text, "army.toml")) == {"Alpha Squad", "Test Captain"}
