"""Why, not only who (issue 29 point 4; scenario/tally.py, scenario/players/trace.py): per-unit activations by action
and damage dealt and taken; traces of sampled games that replay to the same game for the same dice (``dice`` of a plan
entry, ``scenario run --game N``); a scripted player's Shoot or Charge at an automatic player's unit, a warning in the
check and skipped by the run where it cannot happen."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.scenario import check_scenario, parallel, simulate
from mathhammer.scenario.loader import load_scenario, parse_scenario
from mathhammer.scenario.lookup import use_bits
from mathhammer.scenario.players.auto import SLOT_BASE
from mathhammer.scenario.players.trace import record, sample, to_toml, trace_data, write_trace
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Scenario, ScenarioError
from mathhammer.scenario.tally import COUNTED, Tally, health_table
from mathhammer.starcraft.loadout import as_target
from tests.autoplay_kit import armies, data, red_deploys

runner = CliRunner()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("trace")


@pytest.fixture(scope="module")
def table(folder: Path) -> dict[str, Any]:
    return data(folder, length=3)


@pytest.fixture(scope="module")
def scn(folder: Path, table: dict[str, Any]) -> Scenario:
    return parse_scenario(table, "two.toml", folder)


#: per unit and game of ``played``: the NON-LETHAL DAMAGE its own abilities dealt it (part 11; Stimpack)
HURT: dict[int, np.ndarray] = {}


@pytest.fixture(scope="module")
def played(scn: Scenario) -> Simulation:
    sim = Simulation(scn, 8, 4)
    hurt = HURT.setdefault(id(sim), np.zeros((sim.U, sim.T), dtype=np.int64))
    apply = sim.activate

    def counted(act: Activation, games: np.ndarray) -> None:
        if act.use:  # the engine's own reading: the games of its first use this Round (cards/on_itself.py)
            u = sim.uids.index(act.unit)
            bits = use_bits(sim, u, act.use)
            live = games[~sim.over[games]]
            fresh = live[(sim.used[u, live] & bits) == 0]
            hurt[u, fresh] += sum(e.value for e in sim.effects(u, bits, "non_lethal_self"))
        apply(act, games)

    sim.activate = counted  # type: ignore[method-assign]
    sim.run()
    return sim


def _hp(sim: Simulation, u: int, alive: np.ndarray, mark: np.ndarray) -> np.ndarray:
    """A naive reading of a unit's Hit Points: the last ``alive`` models of its removal order (the first carries the
    Shield), less the Damage Marker."""
    su = sim.units[u]
    hps = as_target(su.loadout, "assault").model_hp()
    out = np.array([sum(hps[len(hps) - k :]) if k > 0 else 0 for k in alive.tolist()], dtype=np.int64)
    return out - np.where(alive > 0, mark, 0)


def test_damage_taken_is_the_hit_points_lost_and_dealt_is_what_the_enemy_took(played: Simulation) -> None:
    """8.7.4 step 5 / 8.8.1: every Hit Point a unit lost in the games was lost to an attack or to the NON-LETHAL
    DAMAGE of its own abilities (part 11; Stimpack), and each lost to an attack was dealt by an enemy unit: per unit,
    taken = Hit Points at the start - at the end - its own NON-LETHAL DAMAGE (none of these units heals), and the sum
    dealt by a side is the sum taken by the other."""
    sim = played
    tally = sim.tally
    start = [_hp(sim, u, np.array([sim.full[u]]), np.array([0]))[0] for u in range(sim.U)]
    for u in range(sim.U):
        end = _hp(sim, u, sim.alive[u], sim.mark[u])
        assert np.array_equal(tally.taken[u], start[u] - end - HURT[id(sim)][u]), sim.uids[u]
    sides = [[u for u in range(sim.U) if sim.units[u].player == p] for p in ("red", "blue")]
    assert tally.dealt[sides[0]].sum() == tally.taken[sides[1]].sum()
    assert tally.dealt[sides[1]].sum() == tally.taken[sides[0]].sum()
    assert tally.taken.sum() > 0  # the games had attacks: the test compares something


def test_health_table_reads_the_removal_order() -> None:
    """A unit of a 3 HP model (with 1 Shield: 4) and two 2 HP models: the last k models of the removal order."""
    assert health_table([4, 2, 2], 3).tolist() == [0, 2, 4, 8]


def test_the_sums_are_the_bits_of_the_whole_array_sums() -> None:
    """The per-unit sums a block leaves (merged across workers, read by unit_figures) are read one row at a time
    (Tally.sums, no whole-array float copies): the same float64 bits as summing the whole array's float copy, as
    before, at sizes around numpy's pairwise block and a large block's."""
    rng = np.random.default_rng(5)
    for trials in (1, 7, 8192, 8193, 300_001):
        tally = Tally(3, trials, [np.zeros(1, dtype=np.int64)] * 3)
        tally.dealt[:] = rng.integers(0, 97, size=(3, trials)) * (rng.random((3, trials)) < 0.4)
        tally.taken[:] = rng.integers(0, 13, size=(3, trials))
        got = tally.sums()
        for key in ("dealt", "taken"):
            whole = getattr(tally, key).astype(np.float64)
            assert got[key].tobytes() == whole.sum(axis=1).tobytes(), (trials, key)
            assert got[f"{key}2"].tobytes() == (whole * whole).sum(axis=1).tobytes(), (trials, key)
        assert got["dealt2"].sum() > 0


def test_activations_are_counted_by_action(played: Simulation) -> None:
    """Every unit came on (8.5.5 Deploy) once in every game; the counted activations of a unit in a Phase are at most
    one per game and Phase (8.4.1: one activation per unit), and the Combat Phase's fights are counted."""
    sim = played
    acts = sim.tally.acts
    deploy = COUNTED.index("deploy")
    assert acts[:, deploy].tolist() == [sim.T] * sim.U
    length = sim.scn.mission.game_length
    assert (acts.sum(axis=1) <= sim.T * length * 3).all()
    assert acts[:, COUNTED.index("hold")].sum() > 0


def test_the_units_picture_names_each_unit_in_its_players_colour(scn: Scenario) -> None:
    """``units.png``: a unit's name in its player's colour, red red and blue blue, as the other pictures draw them."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from mathhammer.board.plot import NAMED_SIDE_COLOURS
    from mathhammer.cli.board_presets import ZONE_COLOURS
    from mathhammer.scenario.result import PLAYER_COLOURS

    assert PLAYER_COLOURS == NAMED_SIDE_COLOURS == ZONE_COLOURS  # one colour per player in every picture
    result = simulate(scn, trials=2, seed=5, workers=1)
    fig = result.units_figure()
    labels = fig.axes[0].get_yticklabels()
    player = {r["unit"]: r["player"] for r in result.action_rows()}
    assert sorted(t.get_text() for t in labels) == sorted(player)
    assert {t.get_text(): to_hex(t.get_color()) for t in labels} == {u: PLAYER_COLOURS[p] for u, p in player.items()}
    assert {"red", "blue"} == set(player.values())
    plt.close(fig)


def test_the_figures_are_the_same_on_two_workers(monkeypatch: pytest.MonkeyPatch, scn: Scenario) -> None:
    """The blocks' sums add up to the serial run's (a 1-game pilot, two forked blocks)."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "PILOT", 1)
    one = simulate(scn, trials=3, seed=5, workers=1)
    two = simulate(scn, trials=3, seed=5, workers=2)
    assert one.tally.keys() == two.tally.keys()
    for k in one.tally:
        assert np.allclose(one.tally[k], two.tally[k]), k
    rows = one.action_rows()
    assert [r["unit"] for r in rows] == [u["id"] for u in one.units]
    assert rows == two.action_rows()
    out = one.to_dict()
    assert out["unit_actions"] == json.loads(json.dumps(rows))
    assert "activations per game by action" in one.text_report()


def test_a_traced_game_replays_to_the_same_game(
    folder: Path, table: dict[str, Any], scn: Scenario, played: Simulation
) -> None:
    """Each of the 8 games, written as a trace (both players scripted, each entry with its ``dice``), read back and
    played as the same game number of the same seed: the very game, Round by Round, array for array."""
    sim = played
    voids = 0
    for g in range(sim.T):
        game = record(Simulation(scn, 1, 4, offset=g, world=sim.world))  # the batch's World: its menus built
        # an automatic activation's slot; a Combat Phase fight its engine's number (every fight written, in order)
        assert all(step.dice >= SLOT_BASE or step.act.phase == "combat" for step in game.steps)
        voids += sum(bool(step.void) for step in game.steps)
        path = folder / f"game-{g}.toml"
        write_trace(table, game, 4, path, "test")
        trace = load_scenario(path)
        assert trace.policies == {}
        assert all(a.dice is not None for a in trace.plan)
        again = Simulation(trace, 1, 4, offset=g)
        again.run()
        for a, b in zip(sim.snapshots, again.snapshots, strict=True):
            for k in a:
                assert np.array_equal(a[k][..., g], b[k][..., 0]), (g, k)
        assert np.array_equal(sim.tally.taken[:, g], again.tally.taken[:, 0])
    assert voids > 0  # some declared actions did nothing and were written as Holds (the replay is still the game)


def test_without_its_dice_a_trace_plays_another_game(
    folder: Path, table: dict[str, Any], scn: Scenario, played: Simulation
) -> None:
    """The mutation the ``dice`` field guards against: the same plans keyed by their positions roll other dice, and
    some game comes out otherwise."""
    differs = False
    for g in range(played.T):
        game = record(Simulation(scn, 1, 4, offset=g, world=played.world))
        d = trace_data(table, game)
        for r in d["rounds"]:
            for side in ("red", "blue"):
                for acts in r.get(side, {}).values():
                    for a in acts:
                        a.pop("dice")
        plain = Simulation(parse_scenario(d, "plain.toml", folder), 1, 4, offset=g)
        plain.run()
        if any(
            not np.array_equal(a[k][..., g], b[k][..., 0])
            for a, b in zip(played.snapshots, plain.snapshots, strict=True)
            for k in a
        ):
            differs = True
            break
    assert differs


def test_dice_on_every_entry_or_none_and_never_twice(folder: Path, table: dict[str, Any]) -> None:
    d = dict(table)
    d["players"] = {p: {"army": v["army"]} for p, v in table["players"].items()}
    d["rounds"] = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3], "dice": 7}]},
            "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [30, 30]}]},
        }
    ]
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d, "s.toml", folder)
    assert err.value.problems == [
        "s.toml: rounds[0].blue.movement[0].dice: missing; allowed: dice on every plan entry or on none"
    ]
    d["rounds"][0]["blue"]["movement"][0]["dice"] = 7
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d, "s.toml", folder)
    assert err.value.problems == [
        "s.toml: rounds[0].blue.movement[0].dice: got 7; allowed: a number not used by rounds[0].red.movement[0]"
    ]


def test_to_toml_round_trips_a_scenario_table(table: dict[str, Any]) -> None:
    d = dict(table)
    d["rounds"] = [
        {
            "round": 1,
            "red": {"movement": [{"#": "a comment", "unit": "marine-1", "action": "deploy", "to": [9.5, 3.0]}]},
        }
    ]
    back = tomllib.loads(to_toml(d, "head\nline"))
    want = json.loads(json.dumps(d))
    want["rounds"][0]["red"]["movement"][0].pop("#")
    assert back == want


def test_sample_spreads_the_games() -> None:
    assert sample(10, 3) == [0, 4, 9]
    assert sample(2, 5) == [0, 1]
    assert sample(100, 1) == [0]


# ------------------------------------------------------------------ scripted at automatic
def _mixed(folder: Path) -> dict[str, Any]:
    """Red scripted: its two Deploys, then a Shoot and a Charge at blue's (random) units."""
    d = red_deploys(folder)
    d["rounds"][0]["red"]["assault"] = [
        {"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]},
        {"unit": "marauder-1", "action": "charge", "targets": ["roach-1"]},
    ]
    return d


def test_a_scripted_shot_or_charge_at_an_automatic_unit_is_a_warning_and_skipped_where_illegal(folder: Path) -> None:
    """Issue 29 point 1: the plan cannot know where an automatic player's unit stands, so the check warns with the
    condition (8.7.3 step 1 / 8.7.7: where a planned target may be shot / reached) and the run shoots and charges in
    the games where it can, and counts the others in its skip report."""
    scn = parse_scenario(_mixed(folder), "mixed.toml", folder)
    problems = check_scenario(scn)
    assert len(problems) == 2 and all(p.startswith("warning: mixed.toml: rounds[0].red.assault[") for p in problems)
    assert "targets ['zergling-1'] belong to the automatic player blue (policy 'random')" in problems[0]
    assert "skips the shoot in the other games" in problems[0]
    assert "skips the charge in the other games" in problems[1]
    result = simulate(scn, trials=12, seed=3, workers=1)
    skipped = result.skipped
    shot = sum(v for k, v in skipped.items() if k.startswith("rounds[0].red.assault[0]"))
    charged = sum(v for k, v in skipped.items() if k.startswith("rounds[0].red.assault[1]"))
    assert 0 < shot <= 12 and 0 < charged <= 12
    rows = {r["unit"]: r for r in result.action_rows()}
    assert rows["marine-1"]["activations"]["shoot"] == 1.0  # activated for it in every game, skipped in some


def test_the_check_still_refuses_a_shot_at_a_scripted_unit_not_on_the_table(folder: Path) -> None:
    """Mutation guard: only the automatic player's units are waived; a scripted target not on the table stays an
    error."""
    d = _mixed(folder)
    d["players"]["blue"].pop("policy")
    scn = parse_scenario(d, "both.toml", folder)
    problems = [p for p in check_scenario(scn) if not p.startswith("warning")]
    assert any("zergling-1: not on the table at this point of the plan" in p for p in problems)


# ------------------------------------------------------------------ the command line
def test_game_plot_and_trace_then_scenario_run_game_replays_it(tmp_path: Path) -> None:
    a, b = armies(tmp_path)
    plots, traces = tmp_path / "plots", tmp_path / "traces"
    args = ["game", str(a), str(b), "--mission", "Hold Position", "--deployment", "Frontier", "--trials", "3"]
    args += ["--seed", "7", "--workers", "1", "--plot", str(plots), "--trace", "2", "--trace-dir", str(traces)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in plots.iterdir()) == ["markers.png", "units.png", "vp.png"]
    names = sorted(p.name for p in traces.iterdir())
    assert "game-0.toml" in names and "game-2.toml" in names
    assert [n for n in names if n.endswith(".png")] == [f"game-0-round-{r}.png" for r in range(1, 6)]
    assert "activations per game by action" in result.stdout
    assert result.stdout.splitlines()[1] == "  Hold Position on Frontier (terrain preset standard), random vs random"
    whole = runner.invoke(app, [*args[:-6], "--json"])
    assert whole.exit_code == 0, whole.output
    trace = traces / "game-2.toml"
    assert "--seed 7 --game 2" in trace.read_text()
    one = runner.invoke(app, ["scenario", "run", str(trace), "--seed", "7", "--game", "2", "--json"])
    assert one.exit_code == 0, one.stderr  # the check walks the game's turn order (tests/test_check_order.py)
    got = json.loads(one.stdout)
    assert got["game"] == 2 and got["trials"] == 1
    sim = Simulation(load_scenario(trace), 1, 7, offset=2)
    sim.run()
    assert [v["vp_mean"] for v in got["rounds"][-1]["vp"]] == sim.vp[:, 0].tolist()


def test_scenario_run_plots_units_where_a_player_is_automatic(tmp_path: Path) -> None:
    """docs/scenario.md, Why, not only who: a scenario file with an automatic player reports each unit's actions and
    damage, and ``--plot`` draws them (units.png) as ``game`` does; a scripted file's report has no such table and
    its pictures stay vp.png and markers.png."""
    from mathhammer.scenario.loader import builtin_scenarios

    scenario = tmp_path / "s.toml"
    scenario.write_text(to_toml(data(tmp_path, red="random", blue="random", length=2)))
    plots = tmp_path / "plots"
    result = runner.invoke(
        app, ["scenario", "run", str(scenario), "--trials", "2", "--workers", "1", "--plot", str(plots)]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in plots.iterdir()) == ["markers.png", "units.png", "vp.png"]
    assert f"plots: {plots / 'vp.png'}, {plots / 'markers.png'}, {plots / 'units.png'}" in result.stdout
    scripted = tmp_path / "scripted"
    args = ["scenario", "run", str(builtin_scenarios()[0]), "--trials", "2", "--plot", str(scripted)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in scripted.iterdir()) == ["markers.png", "vp.png"]


def _game_args(tmp_path: Path, *extra: str) -> list[str]:
    a, b = armies(tmp_path)
    args = ["game", str(a), str(b), "--mission", "Hold Position", "--deployment", "Frontier", "--trials", "3"]
    return [*args, "--seed", "7", "--workers", "1", *extra]


def _left(folder: Path) -> list[str]:
    """What a run left in ``folder`` besides the army lists of :func:`armies`."""
    return sorted(p.name for p in folder.iterdir() if p.suffix != ".toml")


def test_a_trace_folder_that_cannot_be_written_is_refused_before_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Honest interfaces: --trace-dir is written through one transaction begun before the games (as --plot is), so a
    folder that cannot be written is one error line naming the flag, with exit status 2, no report printed and
    nothing written (it came after the whole run and its report, as a traceback)."""
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", "journal")  # the transaction's first write: the journal
    monkeypatch.setenv("MATHHAMMER_FAULT", "eacces")
    traces = tmp_path / "traces"
    result = runner.invoke(app, _game_args(tmp_path, "--trace", "2", "--trace-dir", str(traces)))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: --trace-dir: got '{traces}'; allowed: a folder you may write to, or a new one in an existing folder "
        "(Permission denied)"
    ]
    assert _left(tmp_path) == []


def test_a_failed_trace_write_leaves_no_trace_and_no_plots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk full while the trace files are written: exit status 1, one error line, and neither the traces nor the
    plots (one run's outputs, all or nothing)."""
    # the second trace file (a new plots folder is written in one step, ``write:0``; the traces' existing folder file
    # by file)
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", "write:1")
    monkeypatch.setenv("MATHHAMMER_FAULT", "enospc")
    plots, traces = tmp_path / "plots", tmp_path / "traces"
    traces.mkdir()
    result = runner.invoke(app, _game_args(tmp_path, "--plot", str(plots), "--trace", "2", "--trace-dir", str(traces)))
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --trace-dir: got '{traces / 'game-2.toml'}'"), lines
    assert "No space left on device; nothing was written" in lines[0]
    assert _left(tmp_path) == ["traces"] and list(traces.iterdir()) == []


def test_traces_in_an_existing_folder_replace_their_files_only(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "keep.txt").write_text("mine")
    (traces / "game-0.toml").write_text("old")
    result = runner.invoke(app, _game_args(tmp_path, "--trace", "2", "--trace-dir", str(traces)))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in traces.iterdir())
    assert names[-3:] == ["game-0.toml", "game-2.toml", "keep.txt"]
    assert all(n.startswith("game-0-round-") for n in names[:-3]) and names[:-3]
    assert (traces / "keep.txt").read_text() == "mine"
    assert "--seed 7 --game 0" in (traces / "game-0.toml").read_text()
    listed = [line.strip() for line in result.stdout.splitlines() if line.startswith("  " + str(traces))]
    assert sorted(Path(p).name for p in listed) == names[:-1]


def test_trace_and_plots_into_one_new_folder_is_refused(tmp_path: Path) -> None:
    both = tmp_path / "out"
    result = runner.invoke(app, _game_args(tmp_path, "--plot", str(both), "--trace", "2", "--trace-dir", str(both)))
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: --trace-dir: got '{both}'; allowed: a folder other than --plot's new one, or an existing folder"
    )
    both.mkdir()  # an existing one takes both
    result = runner.invoke(app, _game_args(tmp_path, "--plot", str(both), "--trace", "2", "--trace-dir", str(both)))
    assert result.exit_code == 0, result.output
    assert {"vp.png", "game-0.toml", "game-2.toml"} <= {p.name for p in both.iterdir()}


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (
            ["--game", "1", "--trials", "5"],
            "error: --trials: got '5'; allowed: nothing: --game N plays one chosen game",
        ),
        (["--game", "-1"], "error: --game: got '-1'; allowed: a game number, 0 or more"),
        (["--trace", "2"], "error: --trace: got '2'; allowed: only for a scenario with an automatic player"),
        (["--trace-dir", "x"], "error: --trace-dir: got 'x'; allowed: only with --trace K"),
    ],
)
def test_run_refuses_flags_it_does_not_use(tmp_path: Path, extra: list[str], line: str) -> None:
    from mathhammer.scenario.loader import builtin_scenarios

    result = runner.invoke(app, ["scenario", "run", str(builtin_scenarios()[0]), *extra])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), lines


def test_game_refuses_more_traces_than_games_and_names_one_game_so(tmp_path: Path) -> None:
    """``--trace K`` samples K of the games: more than ``--trials`` is refused (it would trace fewer than asked); a
    run of one game says "1 game"."""
    result = runner.invoke(app, _game_args(tmp_path, "--trace", "4"))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == "error: --trace: got '4'; allowed: a number of games to trace, at most --trials (3)\n"
    one = [*_game_args(tmp_path)]
    one[one.index("--trials") + 1] = "1"
    result = runner.invoke(app, one)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "red_two vs blue_two (game): 1 game, seed 7"


def test_a_mixed_game_traces_and_replays_too(folder: Path) -> None:
    """A scripted red (its planned entries keep their plan positions as dice) and a random blue (slots): each of 4
    games written as a trace replays to the same game."""
    d = _mixed(folder)
    scn = parse_scenario(d, "mixed.toml", folder)
    many = Simulation(scn, 4, 6)
    many.run()
    for g in range(4):
        game = record(Simulation(scn, 1, 6, offset=g, world=many.world))
        assert {s.dice for s in game.steps if s.act.player == "red"} <= set(range(len(scn.plan)))
        path = folder / f"mixed-{g}.toml"
        write_trace(d, game, 6, path, "test")
        again = Simulation(load_scenario(path), 1, 6, offset=g)
        again.run()
        for a, b in zip(many.snapshots, again.snapshots, strict=True):
            for k in a:
                assert np.array_equal(a[k][..., g], b[k][..., 0]), (g, k)


def test_a_round_picture_draws_the_moves_shots_and_charges_carried_out(scn: Scenario) -> None:
    """Per Round of a traced game: one ``move`` arrow per Move, Run or Disengage that moved the Leading Model, one
    ``shoot`` line per enemy unit a Shoot's Batches struck and one ``charge`` line per Charge carried out (not the
    void ones, written as Holds), the markers."""
    from matplotlib.colors import to_hex

    from mathhammer.scenario.players.trace import round_figure

    seen = 0
    for g in range(4):
        sim = Simulation(scn, 1, 4, offset=g)
        game = record(sim)
        for r in range(1, len(game.rounds) + 1):
            fig = round_figure(scn, game, sim.world, r)
            board = sim.world.board_for(*game.rounds[r - 1])
            gids = [t.get_gid() for t in fig.axes[0].texts] + [p.get_gid() for p in fig.axes[0].patches]
            steps = [s for s in game.steps if s.act.round == r and not s.void]
            moves = [
                s
                for s in steps
                if s.act.action in ("move", "run", "disengage")
                and s.before >= 0
                and sim.world.placements[s.before].centres[0] != sim.world.placements[s.after].centres[0]
            ]
            assert gids.count("move") == len(moves)
            # a Shoot: a line to each enemy unit its Batches struck (its ``then`` too); a Charge: to its target
            foes = [[t for t in s.struck if scn.units[sim.uids[t]].player != s.act.player] for s in steps]
            assert gids.count("shoot") == sum(
                max(1, len(f)) for s, f in zip(steps, foes, strict=True) if s.act.action == "shoot"
            )
            assert gids.count("charge") == sum(s.act.action == "charge" for s in steps)
            assert gids.count("marker") == len(scn.deployment.markers)
            # each player's models and lines in its own colour, red red and blue blue (as the scenario's plots)
            arrows = [to_hex(t.arrow_patch.get_edgecolor()) for t in fig.axes[0].texts if t.get_gid() == "move"]
            for player, colour in (("red", "#d62728"), ("blue", "#1f77b4")):
                assert arrows.count(colour) == sum(s.act.player == player for s in moves)
                own = {f"model:{m.id}" for u in board.units if u.side == player for m in u.models}
                fills = {to_hex(p.get_facecolor()) for p in fig.axes[0].patches if p.get_gid() in own}
                assert fills == ({colour} if own else set()), (player, fills)
            seen += len(moves)
    assert seen > 0


def test_scenario_run_of_a_file_with_an_automatic_player_writes_traces(tmp_path: Path) -> None:
    """``scenario run FILE --trace K`` of a file mixing a scripted red and a random blue: the trace files name their
    replay, read the same armies from another folder, and the sampled games replay (the JSON on stdout is whole)."""
    d = _mixed(tmp_path)
    d["players"]["red"]["army"] = "red_two.toml"  # relative to the file: the trace makes it absolute
    d["players"]["blue"]["army"] = "blue_two.toml"
    file = tmp_path / "mixed.toml"
    file.write_text(to_toml(d))
    out = tmp_path / "sub" / "t"
    (tmp_path / "sub").mkdir()
    args = ["scenario", "run", str(file), "--trials", "3", "--seed", "2", "--workers", "1", "--json"]
    result = runner.invoke(app, [*args, "--trace", "2", "--trace-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert "unit_actions" in json.loads(result.stdout)
    assert sorted(p.name for p in out.glob("*.toml")) == ["game-0.toml", "game-2.toml"]
    text = (out / "game-2.toml").read_text()
    assert text.startswith("# Trace of game 2 of seed 2 (scenario run mixed.toml)")
    trace = load_scenario(out / "game-2.toml")
    assert trace.policies == {} and {u.player for u in trace.units.values()} == {"red", "blue"}
    many = Simulation(parse_scenario(d, "mixed.toml", tmp_path), 3, 2)
    many.run()
    again = Simulation(trace, 1, 2, offset=2)
    again.run()
    assert np.array_equal(many.vp[:, 2], again.vp[:, 0])
    assert np.array_equal(many.alive[:, 2], again.alive[:, 0])
