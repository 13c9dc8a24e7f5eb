"""Profiles: loading, validation messages, user folders, and `mathhammer profiles`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.profiles import ProfileError
from mathhammer.profiles.loader import builtin_dir
from mathhammer.starcraft.roster import load_roster

FIXTURE = Path(__file__).parent / "fixtures" / "profiles"
SAMPLE = (FIXTURE / "sample.toml").read_text()
runner = CliRunner()


def broken(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    text = SAMPLE
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "broken.toml").write_text(text)
    return folder


def test_sample_fixture_loads() -> None:
    roster = load_roster([FIXTURE], builtin=False)
    assert sorted(roster.units) == ["Test Marine", "Test Zergling"]
    marine = roster.unit("test marine")
    assert marine.card.weapons[0].name == "C-14 Rifle"
    assert marine.source.startswith("tests: a hand-made sample")


def test_every_problem_reported_at_once_with_file_and_path(tmp_path: Path) -> None:
    folder = broken(
        tmp_path,
        ("hit = 3\n", "hit = 9\n"),
        ("keywords = []\n", "wepons = []\n"),
        ('"PRECISION (3)"', '"PRECISON (3)"'),
        ('combat_tags = ["Biological", "Light", "Ground"]', 'combat_tags = ["Biological", "Heroic"]'),
    )
    with pytest.raises(ProfileError) as err:
        load_roster([folder], builtin=False)
    problems = err.value.problems
    assert len(problems) >= 4, problems
    text = "\n".join(problems)
    assert 'broken.toml: units."Test Marine".weapons[0].hit: got 9; allowed: less than or equal to 6' in text
    assert "weapons[0].wepons: unknown key (did you mean 'weapons'?)" in text
    assert "did you mean 'PRECISION (X)'?" in text
    assert "'Heroic' is not a Combat Tag" in text


def test_broken_toml_and_non_text(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text("[units\n")
    (tmp_path / "b.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ProfileError) as err:
        load_roster([tmp_path], builtin=False)
    assert any(p.startswith("a.toml: not valid TOML") for p in err.value.problems)
    assert any(p.startswith("b.toml: not a UTF-8 text file") for p in err.value.problems)


def test_consistency_checks(tmp_path: Path) -> None:
    folder = broken(
        tmp_path,
        ('cost = { "6" = 10, "9" = 10 }', 'cost = { "6" = 10, "8" = 10 }'),
        ('replaces = "C-14 Rifle"', 'replaces = "C-15 Rifle"'),
    )
    with pytest.raises(ProfileError) as err:
        load_roster([folder], builtin=False)
    text = "\n".join(err.value.problems)
    assert "costs for ['8'] models" in text


def test_unknown_unit_did_you_mean() -> None:
    roster = load_roster([FIXTURE], builtin=False)
    with pytest.raises(Exception, match="did you mean 'Test Marine'"):
        roster.unit("Test Marin")


def test_user_folder_overrides_builtin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user folder extends the built-ins; a unit of the same name replaces the built-in one (issue 3)."""
    text = SAMPLE.replace('[units."Test Marine"]', "[units.Marine]").replace('units."Test Marine".', "units.Marine.")
    text = text.replace("hp = 2\n", "hp = 5\n", 1)
    (tmp_path / "mine.toml").write_text(text)
    builtin = load_roster()
    assert builtin.unit("Marine").card.hp == 2
    monkeypatch.setenv("MATHHAMMER_PROFILES", str(tmp_path))
    mine = load_roster()
    assert mine.unit("Marine").card.hp == 5
    assert len(mine.units) == len(builtin.units) + 1  # Test Zergling added
    monkeypatch.delenv("MATHHAMMER_PROFILES")
    assert load_roster([tmp_path]).unit("Marine").card.hp == 5


def test_builtin_roster_is_complete() -> None:
    """Issue 3: all 26 unit cards of the three card sheets, each with its source."""
    roster = load_roster()
    assert len(roster.units) == 26, sorted(roster.units)
    assert {u.race for u in roster.units.values()} == {"terran", "zerg", "protoss"}
    for unit in roster.units.values():
        assert "Card-Sheets" in unit.source and "1.04.26" in unit.source
    assert len(roster.factions) == 6
    assert (builtin_dir() / "starcraft" / "terran.toml").is_file()


def test_cli_profiles_list_and_show() -> None:
    res = runner.invoke(app, ["profiles", "list"])
    assert res.exit_code == 0, res.output
    assert "Marine" in res.stdout and "Zergling" in res.stdout and "Zealot" in res.stdout
    res = runner.invoke(app, ["profiles", "list", "--json", "--race", "protoss"])
    rows = json.loads(res.stdout)
    assert rows and all(r["race"] == "protoss" for r in rows)
    res = runner.invoke(app, ["profiles", "show", "marine"])
    assert res.exit_code == 0, res.output
    assert "C-14 Rifle" in res.stdout and "AGG-12" in res.stdout and "source:" in res.stdout
    res = runner.invoke(app, ["profiles", "show", "Marine", "--json"])
    assert json.loads(res.stdout)["hp"] == 2


def test_cli_profiles_errors() -> None:
    res = runner.invoke(app, ["profiles", "show", "Marnie"])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: NAME: got 'Marnie'") and "did you mean 'Marine'" in res.stderr
    res = runner.invoke(app, ["profiles", "list", "--race", "eldar"])
    assert res.exit_code == 2 and "--race" in res.stderr


def test_cli_profiles_validate(tmp_path: Path) -> None:
    res = runner.invoke(app, ["profiles", "validate", str(FIXTURE)])
    assert res.exit_code == 0, res.output
    assert "ok: 1 files, 2 units" in res.stdout
    folder = broken(tmp_path, ("hit = 3\n", "hit = 9\n"), ("keywords = []\n", "wepons = []\n"))
    res = runner.invoke(app, ["profiles", "validate", str(folder)])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("error: broken.toml: ") for line in lines)
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["profiles", "validate", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "no such folder" in res.stderr


def test_wheel_ships_the_cards_and_finds_them(tmp_path: Path) -> None:
    """`pip install .` (the README's first command) installs the cards inside the package, and they load from there."""
    import subprocess
    import sys
    import zipfile

    root = Path(__file__).resolve().parents[1]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(root),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("mathhammer-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(site)
    for race in ("terran", "zerg", "protoss"):
        assert f"mathhammer/builtin_profiles/starcraft/{race}.toml" in names
    assert "mathhammer/builtin_profiles/rules/grimdark_common_rules.toml" in names  # Grimdark Future rules data
    code = (
        "from mathhammer.starcraft.roster import load_roster; from mathhammer.profiles.loader import builtin_dir; "
        "print(len(load_roster().units), builtin_dir())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    count, where = out.stdout.split()
    assert count == "26" and where.startswith(str(site))
    code = "from mathhammer.grimdark.common_rules import data_path, load; print(len(load()), data_path())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    count, where = out.stdout.split()
    assert int(count) >= 40 and where.startswith(str(site))
