"""``--policies FILE`` (cli/policyfiles.py, scenario/players/userpolicies.py): a policy of the user's own, named on the
command line (issue 29 point 3: "a user can write a policy as a small Python class registered under a name"; the
weights in data, as the built-in ones). A file's policies play as registered ones do; a bad file is one line naming
it, exit status 2, nothing on stdout and nothing of it left registered."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.scenario.players import policies, userpolicies
from mathhammer.scenario.players.policies import load_weights
from mathhammer.scenario.players.trace import to_toml
from tests.autoplay_kit import data
from tests.test_policies import doc_block

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
runner = CliRunner()
GAME = [
    "game",
    str(ARMIES / "terran_skirmish.toml"),
    str(ARMIES / "zerg_skirmish.toml"),
    "--mission",
    "Hold Position",
    "--deployment",
    "frontier",
    "--seed",
    "2",
    "--workers",
    "1",
]


@pytest.fixture(autouse=True)
def registry() -> Iterator[None]:
    """Each test starts and ends with the built-in policies only (the CLI runs in this process)."""
    before, read, modules = dict(policies.POLICIES), dict(userpolicies._READ), set(sys.modules)
    yield
    policies.POLICIES.clear()
    policies.POLICIES.update(before)
    userpolicies._READ.clear()
    userpolicies._READ.update(read)
    for name in set(sys.modules) - modules:
        if name.startswith("mathhammer_policies_"):
            del sys.modules[name]


def weights_file(path: Path, name: str, weights: dict[str, float]) -> Path:
    path.write_text(f"[{name}]\n" + "".join(f"{k} = {v!r}\n" for k, v in weights.items()))
    return path


def test_a_toml_table_with_objectives_weights_plays_objectives_games(tmp_path: Path) -> None:
    """A table of a --policies file scores as the built-in tables do: objective's weights under another name play
    objective's very games (the same seed, the same JSON but the names)."""
    mine = weights_file(tmp_path / "mine.toml", "markers-first", load_weights()["objective"])
    runs = []
    for extra in (["--red-policy", "markers-first", "--policies", str(mine)], ["--red-policy", "objective"]):
        result = runner.invoke(app, [*GAME, "--trials", "4", "--json", *extra])
        assert result.exit_code == 0, result.output
        runs.append(json.loads(result.stdout))
    assert runs[0]["setup"]["red"]["policy"] == "markers-first"
    assert runs[0]["description"].endswith("markers-first vs random")
    for out in runs:
        del out["setup"], out["description"]
    assert runs[0] == runs[1]


def test_the_documented_files_play_a_game(tmp_path: Path) -> None:
    """docs/scenario.md's my_policies.toml and markers_only.py, given together: their policies play each other."""
    toml, py = tmp_path / "my_policies.toml", tmp_path / "markers_only.py"
    toml.write_text(doc_block("my_policies.toml"))
    py.write_text(doc_block("markers_only.py"))
    args = ["--red-policy", "markers-only", "--blue-policy", "markers-first", "--policies", str(py)]
    result = runner.invoke(app, [*GAME, "--trials", "2", *args, "--policies", str(toml)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].endswith("markers-only vs markers-first")
    assert load_weights(toml)["markers-first"]["take"] == 8.0


def test_a_scenario_files_player_plays_a_policy_of_a_file(tmp_path: Path) -> None:
    """``policy = "NAME"`` in a scenario file names a --policies file's policy for check and run; without the file
    it is an unknown policy, refused naming the field."""
    mine = weights_file(tmp_path / "mine.toml", "markers-first", {"marker": 2.0, "take": 4.0})
    scenario = tmp_path / "s.toml"
    scenario.write_text(to_toml(data(tmp_path, red="random", blue="markers-first", length=2)))
    checked = runner.invoke(app, ["scenario", "check", str(scenario), "--policies", str(mine)])
    assert checked.exit_code == 0, checked.output
    assert "blue: automatic (policy 'markers-first')" in checked.stdout
    ran = runner.invoke(
        app, ["scenario", "run", str(scenario), "--trials", "2", "--workers", "1", "--policies", str(mine)]
    )
    assert ran.exit_code == 0, ran.output
    policies.POLICIES.pop("markers-first")
    userpolicies._READ.clear()
    refused = runner.invoke(app, ["scenario", "run", str(scenario), "--trials", "2"])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "players.blue.policy: got 'markers-first'" in refused.stderr


BAD = [
    ("x.toml", "[x]\nmarkers = 1\n", "error: --policies x.toml: x.markers: got 'markers'; allowed: a column: "),
    ("x.toml", "[x]\nmarker = true\n", "error: --policies x.toml: x.marker: got 'True'; allowed: a finite number"),
    ("x.toml", "[x\n", "error: --policies x.toml: not valid TOML"),
    ("x.toml", "[objective]\nmarker = 1\n", "error: --policies x.toml: [objective]: got 'objective'; allowed: a name "),
    ("x.toml", "[auto]\nmarker = 1\n", "error: --policies x.toml: [auto]: got 'auto'; allowed: a name other than"),
    ("x.toml", "", "error: --policies: got '{path}'; allowed: a policy file: "),
    ("x.py", "x = 1\n\nraise ValueError('boom')\n", "running it raised ValueError at line 3: boom)"),
    ("x.py", "import sys\nsys.exit(3)\n", "running it raised SystemExit at line 2: 3)"),
    ("x.py", "x = 1\n", "(it registers no policy)"),
    (
        "x.py",
        "from mathhammer.scenario.players.policies import policy\n@policy('objective')\nclass O:\n    pass\n",
        "error: --policies x.py: @policy: got 'objective'; allowed: a name not yet registered",
    ),
    (
        "x.py",
        "from mathhammer.scenario.players.policies import policy\n@policy('lazy')\nclass Lazy:\n    pass\n",
        "error: --policies x.py: Lazy: got 'lazy'; allowed: a policy class with a choose(self, d) method",
    ),
    ("x.txt", "[x]\nmarker = 1\n", "error: --policies: got '{path}'; allowed: a policy file: a .toml of weight"),
    ("x.toml", "[mine]\nmarker = 1\n", "allowed: a file with a policy a player plays (it has mine; they play random)"),
]


@pytest.mark.parametrize(("name", "text", "said"), BAD)
def test_a_bad_policy_file_is_one_line_and_leaves_nothing_registered(
    tmp_path: Path, name: str, text: str, said: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    result = runner.invoke(app, [*GAME, "--trials", "2", "--policies", str(path)])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said.format(path=path) in lines[0], lines
    assert "Traceback" not in result.output
    if "it has mine" not in said:  # refused while read: nothing of it kept (a file not played stays read)
        assert set(policies.POLICIES) == {"aggressive", "cautious", "objective", "random"}


def test_a_missing_file_and_a_module_refused_midway(tmp_path: Path) -> None:
    """A missing file says so; a module that registered a policy and then raised leaves none registered."""
    result = runner.invoke(app, [*GAME, "--trials", "2", "--policies", str(tmp_path / "gone.toml")])
    assert result.exit_code == 2 and "(no such file)" in result.stderr
    half = tmp_path / "half.py"
    half.write_text(
        "from mathhammer.scenario.players.policies import Weighted, policy\n"
        "@policy('half')\nclass Half(Weighted):\n    weights = {'marker': 1.0}\n"
        "raise RuntimeError('late')\n"
    )
    result = runner.invoke(app, [*GAME, "--trials", "2", "--red-policy", "half", "--policies", str(half)])
    assert result.exit_code == 2 and "RuntimeError at line 5: late" in result.stderr
    assert "half" not in policies.POLICIES


def test_a_file_read_twice_in_one_process_gives_its_policies_again(tmp_path: Path) -> None:
    """A notebook or a test runs the command again: the file already read is not refused as taking its own names."""
    mine = weights_file(tmp_path / "mine.toml", "again", {"marker": 1.0})
    for _ in range(2):
        result = runner.invoke(app, [*GAME, "--trials", "1", "--red-policy", "again", "--policies", str(mine)])
        assert result.exit_code == 0, result.output


def test_policies_is_refused_where_no_player_is_automatic(tmp_path: Path) -> None:
    """A scripted scenario plays no policy: ``--policies`` would change nothing."""
    mine = weights_file(tmp_path / "mine.toml", "unused", {"marker": 1.0})
    scripted = ROOT / "profiles" / "scenarios" / "standard_clash.toml"
    result = runner.invoke(app, ["scenario", "check", str(scripted), "--policies", str(mine)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"error: --policies: got '{mine}'; allowed: nothing: the scenario has no automatic player"
    )


def test_a_files_policy_plays_the_same_games_on_forked_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers are forked after the file is read: they play its policy, the same games as one process."""
    from mathhammer.scenario import parallel

    monkeypatch.setattr(parallel, "AUTO_PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "PILOT", 1)
    real, forked = parallel.forks, []
    monkeypatch.setattr(parallel, "forks", lambda *a, **k: forked.append(real(*a, **k)) or forked[-1])
    py = tmp_path / "markers_only.py"
    py.write_text(doc_block("markers_only.py"))
    outs = []
    for workers in ("1", "2"):
        args = [*GAME[:-1], workers, "--trials", "4", "--json", "--red-policy", "markers-only", "--policies", str(py)]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        outs.append(json.loads(result.stdout))
    assert outs[0] == outs[1] and True in forked
