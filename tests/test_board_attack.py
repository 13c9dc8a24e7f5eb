"""`mathhammer attack ... --board FILE`: the board's facts feed the engine (issue 5 item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

runner = CliRunner()
WALL = str(Path(__file__).parent / "golden" / "board" / "goliath_marines_wall.toml")
ARGS = ["attack", "Goliath", "Marine", "--board", WALL, "--attacker-unit", "goliath", "--target-unit", "marines"]


def test_only_visible_models_in_range_roll_and_only_visible_ones_die() -> None:
    """8.7.3 step 1 (models Within Range of a Visible target model roll) and FAQ v1.0 (only models Visible to
    an attacking model may be removed): behind the Size 2 wall two of five Marines are hidden by Direct Cover
    (7.1), so at most three can die; the 8\" Underbelly Machine Gun has no target in range at 12.5\"."""
    res = runner.invoke(app, [*ARGS, "--target-state", "models=5", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    board = out["loadout"]["board"]
    assert board["models_rolling"] == {"Autocannon": 1} and board["removable"] == 3
    assert any("Underbelly Machine Gun" in r for r in board["refusals"])
    pmf = out["models_destroyed"]["pmf"]
    assert len(pmf) == 6 and pmf[4] == 0 and pmf[5] == 0 and pmf[3] > 0
    free = json.loads(runner.invoke(app, [*ARGS[:3], "--target-state", "models=5", "--range", "12", "--json"]).stdout)
    assert free["models_destroyed"]["pmf"][4] > 0  # without the board, all five are removable


@pytest.mark.parametrize(
    ("extra", "start"),
    [
        (["--attacker-unit", "goliath"], "error: --board"),
        (["--target-unit", "nobody"], "error: "),
        (["--range", "12"], "error: --board"),
        (["--phase", "combat"], "error: --board"),
    ],
)
def test_board_bad_input(extra: list[str], start: str) -> None:
    args = ARGS if extra[0] != "--attacker-unit" else ["attack", "Goliath", "Marine", "--board", WALL]
    res = runner.invoke(app, [*args, *extra])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(start) and "Traceback" not in res.output


def test_indomitable_on_a_board() -> None:
    """Goliath Indomitable ("While Engaged, this Unit may target and be targeted by Unengaged Enemy Units ... the
    defending Unit gains an Evade Roll"): standing for the Engaged "zealots" of the board, the Goliath shoots the
    Unengaged Marines, which gain an Evade Roll; a Marine unit in the same spot may not (8.7.3 step 1)."""
    engaged = str(Path(__file__).parent / "golden" / "board" / "facts_engaged.toml")
    where = ["--board", engaged, "--attacker-unit", "zealots", "--target-unit", "marines", "--json"]
    res = runner.invoke(app, ["attack", "Goliath", "Marine", *where])
    assert res.exit_code == 0, res.output
    board = json.loads(res.stdout)["loadout"]["board"]
    assert board["models_rolling"] == {"Autocannon": 1} and board["evade_reasons"] == ["indomitable"]
    plain = runner.invoke(app, ["attack", "Marine", "Marine", *where])
    assert plain.exit_code == 2 and "may only target the units it is Engaged with" in plain.output
