"""Issue 27: a folder of non-profile TOML files prints a bounded error, not one line per problem; a blank
file name is shown as the user wrote it, not as ``.``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.engine.budget import PROBLEMS_SHOWN

FIXTURES = Path(__file__).parent / "fixtures" / "opr"
EXPORT = FIXTURES / "army_forge_list_export.json"
SAVE = FIXTURES / "list_save.json"


def _errors(result: object) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]  # type: ignore[attr-defined]


@pytest.mark.parametrize("system", ["starcraft", "grimdark"])
def test_a_folder_of_other_toml_files_prints_a_capped_error(tmp_path: Path, system: str) -> None:
    for i in range(60):
        (tmp_path / f"f{i:02}.toml").write_text("foo = 1\n")
    r = CliRunner().invoke(app, ["profiles", "list", "--system", system, "--profiles", str(tmp_path)])
    lines = _errors(r)
    assert r.exit_code == 2, r.output
    assert len(lines) == PROBLEMS_SHOWN + 1, lines
    assert all(line.startswith("error: f") for line in lines[:PROBLEMS_SHOWN]), lines
    more = lines[-1].removeprefix("error: ... and ").removesuffix(f" more problems in {tmp_path}")
    assert more.isdigit() and int(more) > 0, lines[-1]
    assert r.stdout == ""


def test_a_few_problems_are_all_shown(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"f{i}.toml").write_text("foo = 1\n")
    r = CliRunner().invoke(app, ["profiles", "list", "--system", "gf", "--profiles", str(tmp_path)])
    assert r.exit_code == 2
    assert len(_errors(r)) == 3 and "more problems" not in r.stderr


def test_capping_is_per_folder(tmp_path: Path) -> None:
    """Each folder gets its own bounded block: a good folder's problems are not hidden by a bad one's."""
    bad, few = tmp_path / "bad", tmp_path / "few"
    bad.mkdir()
    few.mkdir()
    for i in range(40):
        (bad / f"b{i:02}.toml").write_text("foo = 1\n")
    (few / "x.toml").write_text("foo = 1\n")
    r = CliRunner().invoke(app, ["profiles", "list", "--system", "gf", "--profiles", str(bad), "--profiles", str(few)])
    lines = _errors(r)
    assert r.exit_code == 2
    assert lines[PROBLEMS_SHOWN] == f"error: ... and {40 - PROBLEMS_SHOWN} more problems in {bad}"
    assert lines[PROBLEMS_SHOWN + 1 :] == ["error: x.toml: foo: unknown key"], lines


@pytest.mark.parametrize(
    ("args", "field", "shown"),
    [
        ([""], "FILE", "''"),
        ([" "], "FILE", "' '"),
        ([str(EXPORT), "--out", ""], "--out", "''"),
        ([str(SAVE), "--book", ""], "--book", "''"),
    ],
    ids=["file", "file-blank", "out", "book"],
)
def test_import_opr_names_a_blank_file_as_written(tmp_path: Path, args: list[str], field: str, shown: str) -> None:
    r = CliRunner().invoke(app, ["import-opr", *args])
    assert r.exit_code == 2, r.output
    assert _errors(r) == [f"error: {field}: got {shown}; allowed: " + _errors(r)[0].split("; allowed: ", 1)[1]]
    assert r.stdout == ""


def test_import_opr_shows_a_folder_as_written(tmp_path: Path) -> None:
    given = f"{tmp_path}/"
    r = CliRunner().invoke(app, ["import-opr", given])
    assert r.exit_code == 2
    assert _errors(r) == [f"error: FILE: got {given!r}; allowed: a file, not a folder"]
