"""``mathhammer game`` (cli/game.py) and automatic players in scenario files: a game of two shipped army lists, and
the refusals (one line naming the flag or the file's field, exit 2, nothing on stdout)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.errors import InputError
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import policies
from mathhammer.scenario.spec import ScenarioError
from tests.autoplay_kit import armies, data

#: the built-in policies, as a refusal lists them
FOUR = "aggressive, cautious, objective, random"
#: what a policy name may be, as a refusal says it
ALLOWED = "a policy: " + FOUR + ", or auto (random)"

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
runner = CliRunner()


def test_a_game_of_two_shipped_lists_prints_json() -> None:
    result = runner.invoke(
        app,
        [
            "game",
            str(ARMIES / "terran_skirmish.toml"),
            str(ARMIES / "zerg_skirmish.toml"),
            "--mission",
            "Hold Position",
            "--deployment",
            "frontier",
            "--trials",
            "1",
            "--seed",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["trials"] == 1 and out["seed"] == 3
    assert out["scenario"] == "terran_skirmish vs zerg_skirmish"
    assert [r["round"] for r in out["rounds"]] == [1, 2, 3, 4, 5]  # the mission's five Rounds
    assert sum(out["outcome"][k]["p"] for k in ("red", "blue", "draw")) == pytest.approx(1.0)
    assert out["description"] == "Hold Position on Frontier (terrain preset standard), random vs random"
    assert out["setup"] == {  # what was played, the cards by their names ("frontier" asked)
        "red": {"army": str(ARMIES / "terran_skirmish.toml"), "policy": "random"},
        "blue": {"army": str(ARMIES / "zerg_skirmish.toml"), "policy": "random"},
        "mission": "Hold Position",
        "deployment": "Frontier",
        "terrain": "preset:standard",
        "first_player": "roll-off",
    }


def _game(tmp_path: Path, *extra: str) -> list[str]:
    a, b = armies(tmp_path)
    base = ["game", str(a), str(b), "--mission", "Hold Position", "--deployment", "Frontier", "--trials", "1"]
    return [*base, *extra]


def test_the_policy_flags_name_the_built_in_policies() -> None:
    """Issue 29 point 3: ``--red-policy`` and ``--blue-policy`` say which policies there are (the registry's built-in
    names, each once, in the help) and which one is taken unnamed."""
    from mathhammer.cli.game import POLICY_HELP

    assert ", ".join(sorted(policies.POLICIES)) == FOUR  # the built-in ones (a test that registers more removes them)
    for name in FOUR.split(", "):
        assert POLICY_HELP.count(f" {name} (") == 1, name
    out = CliRunner().invoke(app, ["game", "--help"], terminal_width=200).output
    assert "Red's policy: objective (markers first)" in out and "[default: random]" in out


@pytest.mark.parametrize(
    ("extra", "start"),
    [
        (("--red-policy", "best"), "error: --red-policy: got 'best'; allowed: " + ALLOWED),
        (("--blue-policy", ""), "error: --blue-policy: got ''; allowed: " + ALLOWED),
        (("--deployment", "Frontie"), "error: --deployment: got 'Frontie'; allowed: a Deployment Card: "),
        (
            ("--terrain", "hills"),
            "error: --terrain: got 'hills'; allowed: a terrain preset of Frontier: standard, open",
        ),
        (
            ("--terrain", "nowhere.toml"),
            "error: --terrain: got 'nowhere.toml'; allowed: a terrain preset of Frontier: standard, open; or a board "
            "file (TOML with [[terrain]] tables, docs/board.md)",
        ),
        (("--mission", "Hold"), "error: --mission: got 'Hold'; allowed: a Mission Card: "),
        (("--trials", "0"), "error: --trials: got '0'; allowed: a number of games"),
        (("--seed", "x"), "error: --seed: got 'x'"),
        (
            ("--first-player", "both"),
            "error: --first-player: got 'both'; allowed: 'red', 'blue', 'roll-off' or 'alternate'",
        ),
        (  # _game plays one game: half each way needs an even number
            ("--first-player", "alternate"),
            "error: --trials: got '1'; allowed: an even number of games with first_player = \"alternate\"",
        ),
    ],
)
def test_bad_flags_are_one_line_naming_the_flag(tmp_path: Path, extra: tuple[str, ...], start: str) -> None:
    result = runner.invoke(app, _game(tmp_path, *extra))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), lines


def test_a_missing_army_file_names_its_argument(tmp_path: Path) -> None:
    args = _game(tmp_path)
    args[2] = str(tmp_path / "none.toml")
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: ARMY_B: got '{tmp_path / 'none.toml'}'; allowed: an army list TOML file (examples: profiles/armies/)"
    ]


def test_an_army_list_with_no_unit_is_refused(tmp_path: Path) -> None:
    """9.1 sets no least number of units, so the list is valid (``army validate``), but it gives no game: refused as
    a field of its file (the loader's, also for a scenario file's player), not played as a walkover."""
    args = _game(tmp_path)
    empty = tmp_path / "empty.toml"
    empty.write_text('name = "none"\nscale = "Standard"\nfaction = "Terran Armed Forces"\n')
    args[1] = str(empty)
    valid = runner.invoke(app, ["army", "validate", str(empty)])
    assert valid.exit_code == 0 and valid.stdout.strip().endswith("valid")
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "error: empty.toml: units: got none; allowed: at least one unit (a game needs units on both sides)"
    ]


def test_a_file_refuses_an_unknown_policy_and_a_policy_with_rounds(tmp_path: Path) -> None:
    d = data(tmp_path, red="greedy")
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d, "s.toml", tmp_path)
    assert err.value.problems == ["s.toml: players.red.policy: got 'greedy'; allowed: " + ALLOWED]
    d = data(tmp_path)
    d["rounds"] = [{"round": 1, "blue": {"movement": [{"unit": "roach-1", "action": "hold"}]}}]
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d, "s.toml", tmp_path)
    assert err.value.problems == [
        "s.toml: rounds[0].blue: got 1 planned activations; allowed: none for an automatic player "
        '(players.blue.policy = "random": its activations are chosen in play)'
    ]


def test_scenario_check_says_the_automatic_side_is_chosen_in_play(tmp_path: Path) -> None:
    a, b = armies(tmp_path)
    path = tmp_path / "mixed.toml"
    path.write_text(
        f'[mission]\ncard = "Hold Position"\n[deployment]\ncard = "Frontier"\n'
        f'[players.red]\narmy = "{a}"\n[players.blue]\narmy = "{b}"\npolicy = "random"\n'
        '[[rounds]]\nround = 1\nred.movement = [{ unit = "marine-1", action = "deploy", to = [9, 3] }]\n'
    )
    result = runner.invoke(app, ["scenario", "check", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 planned activations; blue: automatic (policy 'random'), chosen in play" in result.stdout


def test_the_registry_refuses_a_taken_name_and_an_unknown_one() -> None:
    with pytest.raises(InputError, match="policy: got 'random'; allowed: a name not yet registered"):

        @policies.policy("random")
        class Other:
            pass

    with pytest.raises(InputError, match=re.escape("players.red.policy: got 'nope'; allowed: " + ALLOWED)):
        policies.make_policy("nope", "players.red.policy")
    with pytest.raises(InputError, match="policy: got 'auto'; allowed: a name other than 'auto'"):

        @policies.policy("auto")
        class Auto:
            pass

    assert "auto" not in policies.POLICIES


def test_policy_auto_is_the_default_policy(tmp_path: Path) -> None:
    """Issue 29 point 1: a scenario file's player with ``policy = "auto"`` (and ``--red-policy auto``) plays with the
    policy ``game`` takes unnamed, random: the same games as naming it."""
    d = data(tmp_path, red="auto", blue="random")
    scn = parse_scenario(d, "s.toml", tmp_path)
    assert scn.policies == {"red": "random", "blue": "random"}
    runs = []
    for red in ("auto", "random"):
        result = runner.invoke(app, [*_game(tmp_path, "--red-policy", red, "--seed", "5", "--trials", "4"), "--json"])
        assert result.exit_code == 0, result.output
        runs.append(json.loads(result.stdout))
    assert runs[0] == runs[1] and runs[0]["setup"]["red"]["policy"] == "random"
    assert "auto" in policies.allowed()


def test_terrain_from_a_board_file(tmp_path: Path) -> None:
    """Issue 29 point 1, ``--terrain FILE|PRESET``: a board file's ``[[terrain]]`` pieces are the game's terrain (its
    units are not read); a bad piece is refused naming the flag and the file, nothing printed on stdout."""
    board = tmp_path / "wall.toml"
    board.write_text(
        '[battlefield]\nwidth = 44\ndepth = 30\n\n[[terrain]]\nid = "wall"\nsize = 3\n'
        "footprint = [[20, 10], [24, 10], [24, 14], [20, 14]]\n"
    )
    result = runner.invoke(app, _game(tmp_path, "--terrain", str(board), "--json", "--workers", "1"))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["trials"] == 1
    from mathhammer.cli.game import terrain_file

    assert [p["id"] for p in terrain_file(str(board), "")] == ["wall"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[terrain]]\nid = "x"\nsize = "big"\n')
    result = runner.invoke(app, _game(tmp_path, "--terrain", str(bad)))
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines and all(line.startswith(f"error: --terrain {bad}: terrain[0].") for line in lines), lines
    assert any("footprint: missing" in line for line in lines)
