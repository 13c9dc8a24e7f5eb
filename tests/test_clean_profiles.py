"""``scenario check`` and ``scenario run`` read the cards of ``--profiles DIR`` like every command that reads
cards (issue 28 point 7): a scenario whose army uses a card found only in DIR is accepted with the flag and
refused without it, in one line naming the unit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "tests" / "fixtures" / "profiles" / "sample.toml"  # "Test Marine": in no built-in file

ARMY = """name = "custom red"
scale = "Skirmish"
faction = "Terran Armed Forces"
tactical = []

[[units]]
unit = "Test Marine"
models = 6
upgrades = []
"""

SCENARIO = """name = "custom card"
first_player = "red"
rounds = []

[mission]
card = "Hold Position"

[deployment]
card = "Frontier"
entry_edges = {{ red = "south", blue = "north" }}
markers = [{{ number = 1, x = 9, y = 10 }}, {{ number = 2, x = 9, y = 26 }}, {{ number = 5, x = 18, y = 18 }}]

[players.red]
army = "red.toml"

[players.blue]
army = {blue}
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    cards = tmp_path / "cards"
    cards.mkdir()
    shutil.copy(CARD, cards / "sample.toml")
    (tmp_path / "red.toml").write_text(ARMY)
    blue = json.dumps(str(ROOT / "profiles" / "armies" / "zerg_skirmish.toml"))
    (tmp_path / "scn.toml").write_text(SCENARIO.format(blue=blue))
    return tmp_path / "scn.toml", cards


@pytest.mark.parametrize("command", [["check"], ["run", "--trials", "5", "--json", "--workers", "1"]])
def test_scenario_reads_the_cards_of_profiles(files: tuple[Path, Path], command: list[str]) -> None:
    scn, cards = files
    refused = runner.invoke(app, ["scenario", command[0], str(scn), *command[1:]])
    assert refused.exit_code == 2 and refused.stdout == ""
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Test Marine" in lines[0], refused.stderr
    assert "Traceback" not in refused.stderr

    ok = runner.invoke(app, ["scenario", command[0], str(scn), *command[1:], "--profiles", str(cards)])
    assert ok.exit_code == 0, ok.stderr
    if command[0] == "check":
        assert ok.stdout.startswith("ok: custom card:")
    else:
        units = json.loads(ok.stdout)["rounds"][0]["units"]
        assert [u["card"] for u in units if u["player"] == "red"] == ["Test Marine"]


def test_scenario_profiles_refuses_an_empty_or_missing_folder(files: tuple[Path, Path], tmp_path: Path) -> None:
    scn, _ = files
    for folder in ("", str(tmp_path / "nowhere")):
        r = runner.invoke(app, ["scenario", "check", str(scn), "--profiles", folder])
        assert r.exit_code == 2 and r.stdout == ""
        assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr, r.stderr
