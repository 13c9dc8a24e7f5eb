"""What the CLI fuzz (tests/test_cli_fuzz.py) found when run longer with random seeds (issue 27 point 2: "the error
names a flag or file that exists in the command"; point 4: "Each message names the flag, argument or file field as
the user wrote it"): an empty army FILE was read as '.', the current folder, and named so."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

runner = CliRunner()


@pytest.mark.parametrize("blank", ["", " "])
@pytest.mark.parametrize("system", ["starcraft", "gf"])
def test_army_validate_names_an_empty_file_argument(blank: str, system: str) -> None:
    r = runner.invoke(app, ["army", "validate", blank, "--system", system])
    assert r.exit_code == 2 and r.stderr == f"error: FILE: got {blank!r}; allowed: a file path\n", r.stderr


@pytest.mark.parametrize("system", ["starcraft", "gf"])
def test_report_names_an_empty_army_argument(tmp_path, system: str) -> None:
    r = runner.invoke(app, ["report", "", "other.toml", "--system", system, "--out", str(tmp_path / "R")])
    assert r.exit_code == 2, r.stderr
    assert r.stderr == "error: ARMY_A ARMY_B: got ''; allowed: a file path (two army files)\n"
    assert list(tmp_path.iterdir()) == []
