"""Scenario simulation (issue 6): file, plan check, rules during play, determinism, engines."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.scenario import ScenarioError, builtin_scenarios, check_scenario, load_scenario, simulate
from mathhammer.scenario import mission as missions
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.sim import Simulation, uniforms
from mathhammer.starcraft.compiled import compile_attack
from mathhammer.starcraft.exact import exact_states
from mathhammer.starcraft.loadout import as_target, attack_batches, make_loadout
from mathhammer.starcraft.model import Attack
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import build, skirmish

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
runner = CliRunner()


def base(**over: object) -> dict:
    """A small Skirmish scenario (Hold Position on Frontier), plan empty."""
    data = skirmish()
    data.update(over)
    return data


def scenario(rounds: list[dict] | None = None, **over: object):
    return build(base(rounds=rounds or [], **over))


def problems(rounds: list[dict], **over: object) -> list[str]:
    return [p for p in check_scenario(scenario(rounds, **over)) if not p.startswith("warning")]


#: 8.5.5: no part of the Leading Model's base ends farther than Speed 4 from the Entry Edge (32 mm bases: the centre
#: at most 3.37" from it)
DEPLOY = {
    "round": 1,
    "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
    "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [12, 32.7]}]},
}


# ----------------------------------------------------------------- the file
def test_mission_cards_come_from_the_catalog() -> None:
    """9.2.1 / 8.3.1: Hold Position (skirmish): Supply 3, Escalation 1, 5 Rounds, unlimited in the last."""
    scn = scenario()
    m = scn.mission
    assert (m.starting_supply, m.supply_escalation, m.game_length, m.instant_win_lead) == (3, 1, 5, 8)
    assert [m.supply_pool(r) for r in range(1, 6)] == [3, 4, 5, 6, None]
    assert scn.board.width == 36 and scn.board.depth == 36


def test_units_are_named_by_card_and_place() -> None:
    scn = scenario()
    assert list(scn.units)[:3] == ["marine-1", "marine-2", "marauder-1"]
    assert scn.units["zergling-2"].player == "blue"
    # Supply Profile (glossary CURRENT SUPPLY VALUE): Zergling 1-6 -> 0, 7-12 -> 1.
    z = scn.units["zergling-1"]
    assert [z.supply(k) for k in (0, 6, 7, 12)] == [0, 0, 1, 1]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"mision": {}}, "unknown key (did you mean 'mission'?)"),
        ({"mission": {"card": "Hold the Line"}}, "mission.card: got 'Hold the Line'; allowed: a Mission Card"),
        ({"first_player": "green"}, "first_player"),
        ({"players": {"red": {"army": "nope.toml"}, "blue": {"army": "nope.toml"}}}, "players.red.army"),
    ],
)
def test_bad_files_name_the_field(change: dict, expected: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(base(**change), "test.toml", ROOT, load_roster())
    assert expected in str(err.value)
    assert str(err.value).startswith("test.toml")


def test_bad_plan_entries_name_round_player_phase() -> None:
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}],
                "assault": [{"unit": "zergling-1", "action": "run", "to": [1, 1]}],
            },
        }
    ]
    with pytest.raises(ScenarioError) as err:
        scenario(rounds)
    text = str(err.value)
    assert "rounds[0].red.movement[0].action: got 'shoot'; allowed in the Movement Phase: deploy, move" in text
    assert "rounds[0].red.assault[0].unit: got 'zergling-1'; allowed: a unit of red" in text


# ----------------------------------------------------------------- the check
def test_a_legal_plan_checks_clean() -> None:
    """8.5.5: the Deploys of :data:`DEPLOY` (the 32 mm bases 3.3" + 0.63" from the Entry Edges) check clean; 0.2"
    farther each (the base 4.1" from the edge) is refused, naming 8.5.5."""
    assert problems([DEPLOY]) == []
    red, blue = DEPLOY["red"]["movement"][0], DEPLOY["blue"]["movement"][0]
    far = {**DEPLOY, "red": {"movement": [{**red, "to": [9, 3.5]}]}, "blue": {"movement": [{**blue, "to": [12, 32.5]}]}}
    found = problems([far])
    assert len(found) == 2 and all("8.5.5" in p and 'base ends 4.1" from the' in p for p in found), found


def test_deploy_over_available_supply() -> None:
    """8.3.2: Available Supply = Supply Pool - Supply on the table; Round 1 pool 3 (4 Marine units of Supply 1 + 1)."""
    red = [
        {"unit": u, "action": "deploy", "to": [x, y]}  # 8.5.5: the base within Speed 4 (Marauders: 50 mm bases)
        for u, x, y in (("marine-1", 5, 3.3), ("marine-2", 13, 3.3), ("marauder-1", 21, 3), ("marauder-2", 29, 3))
    ]
    found = problems([{"round": 1, "red": {"movement": red}}])
    assert len(found) == 1
    assert (
        "rounds[0].red.movement[3]" in found[0]
        and "Available Supply is 0 (Supply Pool 3 - 3 on the table) (8.3.2)" in found[0]
    )


def test_deploy_in_the_final_round_has_no_supply_limit() -> None:
    """8.3.1 Final Round: the Supply Pool becomes unlimited."""
    red = [
        {"unit": u, "action": "deploy", "to": [x, y]}  # 8.5.5: the base within Speed 4 (Marauders: 50 mm bases)
        for u, x, y in (("marine-1", 5, 3.3), ("marine-2", 13, 3.3), ("marauder-1", 21, 3), ("marauder-2", 29, 3))
    ]
    assert problems([{"round": 5, "red": {"movement": red}}]) == []


def test_deploy_too_far_and_in_the_enemy_zone() -> None:
    """8.5.5: Speed from the Entry Edge; 8.3.3: not inside the opponent's Zone of Influence."""
    found = problems([{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 32]}]}}])
    assert any("from the south Entry Edge; at most Speed 4" in p for p in found)
    assert any("Zone of Influence (8.3.3)" in p for p in found)


def test_move_beyond_speed_and_into_engagement_range() -> None:
    """8.5.3: up to Speed; the Leading Model cannot end Within 1" of an Enemy Ground Unit."""
    rounds = [
        DEPLOY,
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 11.3]}]}},
        {"round": 3, "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [12, 29.2]}]}},
    ]
    found = problems(rounds)
    assert any("rounds[1].red.movement[0]" in p and 'moves 8.0"; Speed is 4"' in p for p in found)
    rounds = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
            "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [9, 32.7]}]},
        },
        {"round": 2, "red": {"assault": [{"unit": "marine-1", "action": "run", "to": [9, 7.3]}]}},
        {"round": 3, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 11.3]}]}},
        {"round": 4, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 15.3]}]}},
        {"round": 4, "blue": {"movement": []}},
    ]
    with pytest.raises(ScenarioError):  # round 4 twice
        scenario(rounds)


def test_move_ending_within_engagement_range_is_an_error() -> None:
    rounds = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
            "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [9, 32.7]}]},
        }
    ]
    # 8.5.5: both bases within Speed 4 of their Entry Edges, each Move 4"; the Leading Models end 5.4" apart
    for y_red, y_blue, r in ((7.3, 28.7, 2), (11.3, 24.7, 3), (15.3, 20.7, 4)):
        rounds.append(
            {
                "round": r,
                "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, y_red]}]},
                "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [9, y_blue]}]},
            }
        )
    assert problems(rounds) == []
    rounds.append({"round": 5, "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [9, 17.2]}]}})
    found = problems(rounds)
    assert any("rounds[4].blue.movement[0]" in p and "ends Within 1\" of enemy unit 'marine-1'" in p for p in found), (
        found
    )


def test_illegal_targets() -> None:
    """8.7.3 step 1: a target out of range or not visible is an error, with the reason."""
    rounds = [
        DEPLOY,
        {"round": 1, "red": {"assault": [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}]}},
    ]
    with pytest.raises(ScenarioError):  # round 1 twice
        scenario(rounds)
    rounds = [
        {
            **DEPLOY,
            "red": {**DEPLOY["red"], "assault": [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}]},
        }
    ]
    found = problems(rounds)
    assert len(found) == 1 and "no planned target can be shot" in found[0] and "Within Range" in found[0]


def test_acting_before_deploying_and_twice() -> None:
    rounds = [
        {"round": 1, "red": {"assault": [{"unit": "marine-1", "action": "run", "to": [9, 8]}]}},
        {
            "round": 2,
            "red": {
                "movement": [
                    {"unit": "marine-1", "action": "deploy", "to": [9, 3.3]},
                    {"unit": "marine-1", "action": "hold"},
                ]
            },
        },
    ]
    found = problems(rounds)
    assert any("not on the table yet: Deploy it first" in p for p in found)
    assert any("already activated in this phase" in p for p in found)


def test_abilities_cost_once_per_round_and_phase() -> None:
    """10.5.1: pay by Exhausting Ready cards (Terran Armed Forces 1 CP, Barracks none); once per Round per unit."""
    scn = scenario()
    roster = scn.roster
    cp = sum(
        roster.card(n).resource_per_round
        for n in ("Terran Armed Forces", "Barracks")
        if roster.card(n).resource == "CP"
    )
    rounds = [
        DEPLOY,
        {
            "round": 2,
            "red": {
                "movement": [{"unit": "marine-1", "action": "hold", "use": ["Stimpack"]}],
                "assault": [{"unit": "marine-1", "action": "hold", "use": ["Stimpack"]}],
            },
        },
    ]
    found = problems(rounds)
    assert any("'Stimpack' a second time this Round" in p for p in found)
    assert any("is used in the Movement Phase, not the Assault Phase" in p for p in found)
    if cp < 2:
        assert any("costs 1 CP; the Ready cards give 0 CP" in p for p in found)
    found = problems(
        [DEPLOY, {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "hold", "use": ["Slugthrower"]}]}}]
    )
    assert any("is Passive" in p for p in found) or any("allowed: an Active ability" in p for p in found)


def test_gather_only_in_gather_the_resources() -> None:
    found = problems([DEPLOY, {"round": 2, "red": {"assault": [{"unit": "marine-1", "action": "gather"}]}}])
    assert any("the Gather Action belongs to Gather the Resources" in p for p in found)


def test_cli_check_reports_every_problem_exit_2(tmp_path: Path) -> None:
    data = base(rounds=[{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 32]}]}}])
    f = tmp_path / "bad.toml"
    f.write_text(_toml(data))
    res = runner.invoke(app, ["scenario", "check", str(f)])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(lines) == 2 and all("rounds[0].red.movement[0]" in ln for ln in lines)


# ----------------------------------------------------------------- rules during play
def _sim(rounds: list[dict], trials: int = 64, **over: object) -> Simulation:
    sim = Simulation(scenario(rounds, **over), trials, seed=3)
    missions.setup(sim)  # Mission Parameters: "All Mission Markers are Activated"
    return sim


def test_alternating_activations_and_passing() -> None:
    """8.2.1: alternate from the First Player; the first to run out Passes and takes the marker (8.4.2)."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [
                    {"unit": "marine-1", "action": "deploy", "to": [5, 3.3]},
                    {"unit": "marine-2", "action": "deploy", "to": [13, 3.3]},
                ]
            },
            "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [12, 32.7]}]},
        }
    ]
    sim = _sim(rounds)
    order, passer = sim.order(1, "movement", 0)
    assert [a.unit for a in order] == ["marine-1", "zergling-1", "marine-2"] and passer == 1
    order, passer = sim.order(1, "movement", 1)
    assert [a.unit for a in order] == ["zergling-1", "marine-1", "marine-2"] and passer == 1


def test_supply_destroyed_scores_and_markers_from_round_two() -> None:
    """Hold Position: VP = enemy Supply destroyed this Round; markers score only from Round 2."""
    sim = _sim([DEPLOY])
    sim.round = 1
    trials = np.arange(sim.T)
    for act in sim.scn.activations(1, "movement", "red") + sim.scn.activations(1, "movement", "blue"):
        sim.activate(act, trials)
    z = sim.uids.index("zergling-1")
    sim.ref_supply[z] = 1
    sim.alive[z, :10] = 6  # Supply 1 -> 0
    missions.score(sim, trials)
    assert sim.vp[0, :10].tolist() == [1] * 10 and sim.vp[0, 10:].sum() == 0
    assert sim.vp[1].sum() == 0


def test_marker_control_sticky_and_ties() -> None:
    """8.9.1: higher contesting Supply controls; a tie never transfers; control stays when the units leave."""
    sim = _sim([DEPLOY], trials=4)
    scn = sim.scn
    m1 = [m.number for m in scn.deployment.markers].index(1)
    red = sim.uids.index("marine-1")
    blue = sim.uids.index("zergling-1")
    near_red = sim.world.place(scn.units["marine-1"], (9, 11), (0, -1), ())
    near_blue = sim.world.place(scn.units["zergling-1"], (9, 8), (0, 1), (near_red,), ("marine-1",))
    assert near_red is not None and near_blue is not None
    sim.pos[red] = near_red
    sim.pos[blue] = near_blue
    sim.sync_board()
    trials = np.arange(4)
    sim.alive[blue] = [12, 6, 12, 12]  # Supply 1, 0, 1, 1
    sim.alive[red] = [6, 6, 3, 6]  # Supply 1, 1, 0, 1
    sim.control[m1] = [-1, -1, -1, 1]
    missions.control(sim, trials)
    # trial 0: tie 1-1 from nobody -> stays nobody; 1: red 1 > 0; 2: blue 1 > 0; 3: tie, blue keeps it
    assert sim.control[m1].tolist() == [-1, 0, 1, 1]
    sim.pos[blue] = -1  # blue leaves: red alone (even at Supply 0) takes trial 2 back
    sim.sync_board()
    sim.alive[red] = [6, 6, 3, 6]
    missions.control(sim, trials)
    assert sim.control[m1].tolist() == [0, 0, 0, 0]
    sim.pos[red] = -1  # everyone leaves: sticky
    sim.sync_board()
    missions.control(sim, trials)
    assert sim.control[m1].tolist() == [0, 0, 0, 0]


def test_instant_win_and_wipe_out() -> None:
    """8.9.3: a lead of 8+ (Skirmish Hold Position) ends the game; a wiped-out army gives +10 VP."""
    sim = _sim([DEPLOY], trials=3)
    trials = np.arange(3)
    sim.round = 2
    sim.vp[0] = [8, 0, 0]
    blue = [u for u in range(sim.U) if sim.units[u].player == "blue"]
    sim.alive[blue, 1] = 0
    sim.end_checks(trials, final=False)
    assert sim.over.tolist() == [True, True, False]
    assert sim.vp[0].tolist() == [8, 10, 0]
    assert sim.instant.tolist() == [True, False, False]


def test_wipe_out_bonus_also_with_a_winning_lead() -> None:
    """8.9.3 End of Game Check: "The game ends immediately if: [...] A player has no models on the battlefield and no
    Units in Reserves. The surviving player gains +10 VP." Red leads by 8 (Skirmish Hold Position's lead) in the Round
    the Zerglings, blue's only unit, are Destroyed: the lead ends the game and red still gains the +10 VP."""
    sim = _sim([DEPLOY], trials=2)
    sim.round = 2
    sim.vp[0] = [8, 8]
    blue = [u for u in range(sim.U) if sim.units[u].player == "blue"]
    sim.alive[blue, 0] = 0  # game 0: blue wiped out; game 1: only the lead
    sim.end_checks(np.arange(2), final=False)
    assert sim.over.tolist() == [True, True]
    assert sim.instant.tolist() == [True, True]
    assert sim.vp[0].tolist() == [18, 8]
    assert sim.vp[1].tolist() == [0, 0]


def test_initiative_to_fewer_vp() -> None:
    """8.9.6: the First Player Marker goes to the player with fewer VP; a Roll-Off on a tie."""
    sim = _sim([DEPLOY], trials=200)
    sim.vp[0, :100] = 3
    sim.round = 1
    sim.cleanup(np.arange(200))
    assert set(sim.first[:100].tolist()) == {1}
    assert 0.3 < sim.first[100:].mean() < 0.7


def test_frontlines_gain_bonus() -> None:
    """Frontlines: 1 VP per controlled marker, 2 more if gained from the Opponent this Round."""
    sim = _sim([DEPLOY], trials=2, mission={"card": "Frontlines"})
    sim.round = 2
    m = 0
    sim.control[m] = [1, 1]
    red = sim.uids.index("marine-1")
    sim.pos[red] = sim.world.place(sim.units[red], (9, 11), (0, -1), ())
    sim.sync_board()
    sim.alive[red] = [6, 0]
    missions.score(sim, np.arange(2))
    assert sim.control[m].tolist() == [0, 1]
    assert sim.vp[0, 0] - 0 >= 3  # marker 1 taken from blue: 1 + 2


# ----------------------------------------------------------------- simulation
def test_same_seed_same_games_and_prefix() -> None:
    scn = load_scenario(builtin_scenarios()[0])
    a = simulate(scn, trials=300, seed=5)
    b = simulate(scn, trials=300, seed=5)
    c = simulate(scn, trials=150, seed=5)
    d = simulate(scn, trials=300, seed=6)
    assert np.array_equal(a.rounds[-1]["vp"], b.rounds[-1]["vp"])
    assert np.array_equal(a.rounds[-1]["vp"][:, :150], c.rounds[-1]["vp"])
    assert np.array_equal(a.rounds[-1]["alive"][:, :150], c.rounds[-1]["alive"])
    assert not np.array_equal(a.rounds[-1]["vp"], d.rounds[-1]["vp"])


def test_uniforms_depend_on_trial_not_batch() -> None:
    u = uniforms(9, 123, np.arange(1000))
    assert np.array_equal(u[::-1][:10], uniforms(9, 123, np.arange(999, 989, -1)))
    assert abs(u.mean() - 0.5) < 0.05
    assert stats.kstest(uniforms(9, 5, np.arange(20000)), "uniform").pvalue > 1e-4


def test_one_attack_matches_the_exact_engine() -> None:
    """A single Ranged Attack in a game: the models left follow exact_states of the same Batch (G-test). The Leading
    Models end at (18, 12) and (18, 24.5) as they always did; with the Deploys within Speed of the Entry Edges
    (8.5.5) that takes the Runs of Round 2, so the shot is in Round 3."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [{"unit": "marine-2", "action": "deploy", "to": [18, 3.3]}],
                "assault": [{"unit": "marine-2", "action": "run", "to": [18, 7.3]}],
            },
            "blue": {
                "movement": [{"unit": "zergling-1", "action": "deploy", "to": [18, 32.7]}],
                "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 28.7]}],
            },
        },
        {
            "round": 2,
            "red": {
                "movement": [{"unit": "marine-2", "action": "move", "to": [18, 11.3]}],
                "assault": [{"unit": "marine-2", "action": "run", "to": [18, 12]}],
            },
            "blue": {
                "movement": [{"unit": "zergling-1", "action": "move", "to": [18, 24.7]}],
                "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 24.5]}],
            },
        },
        {"round": 3, "red": {"assault": [{"unit": "marine-2", "action": "shoot", "targets": ["zergling-1"]}]}},
    ]
    scn = scenario(rounds)
    assert problems(rounds) == []
    n = 20000
    res = simulate(scn, trials=n, seed=11)
    z = [u["id"] for u in res.units].index("zergling-1")
    alive = res.rounds[2]["alive"][z]
    roster = scn.roster
    lo = make_loadout(roster.unit("Marine"), 6)
    tgt = roster.unit("Zergling")
    batches = attack_batches(lo, tgt, "assault", distance=10.0)
    target = as_target(make_loadout(tgt, 12), "assault")
    compiled, tc = compile_attack(Attack(tuple(batches), target))
    states = exact_states(compiled, tc)
    expected = np.zeros(13)
    for (removed, _, _), p in states.items():
        expected[12 - removed] += p
    observed = np.bincount(alive, minlength=13)
    keep = expected * n >= 5
    g = 2 * np.sum(observed[keep] * np.log(np.where(observed[keep] > 0, observed[keep] / (expected[keep] * n), 1)))
    p = stats.chi2.sf(g, keep.sum() - 1)
    assert p > 1e-6, (observed, expected * n)
    mean = (alive).mean()
    se = alive.std() / np.sqrt(n)
    assert abs(mean - (expected * np.arange(13)).sum()) < 5 * se


@pytest.mark.parametrize("path", builtin_scenarios(), ids=lambda p: p.name)
def test_builtin_scenarios_check_and_run(path: Path) -> None:
    """Issue 6 item 6: each example scenario is legal and simulates; probabilities add up."""
    scn = load_scenario(path)
    assert [p for p in check_scenario(scn) if not p.startswith("warning")] == []
    res = simulate(scn, trials=200, seed=2)
    assert abs(sum(v["p"] for v in res.outcome().values()) - 1) < 1e-12
    assert abs(sum(res.end_rounds().values()) - 1) < 1e-12
    frame = res.vp_frame()
    assert list(frame.columns[:4]) == ["round", "player", "vp_mean", "vp_se"]
    assert len(res.markers_frame()) == len(res.rounds) * len(res.markers)
    vp = res.rounds[-1]["vp"]
    assert (np.diff(np.stack([r["vp"] for r in res.rounds]), axis=0) >= 0).all()  # VP never decrease
    assert vp.max() > 0


def test_cli_run_json_and_plots(tmp_path: Path) -> None:
    path = builtin_scenarios()[0]
    out = tmp_path / "plots"
    res = runner.invoke(
        app, ["scenario", "run", str(path), "--trials", "100", "--seed", "1", "--json", "--plot", str(out)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert set(data) >= {"outcome", "end_round", "vp", "rounds", "trials", "seed"}
    assert data["trials"] == 100 and len(data["rounds"]) == 5
    assert sorted(p.name for p in out.iterdir()) == ["markers.png", "vp.png"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mathhammer-")]


def test_the_pictures_have_one_tick_per_round() -> None:
    """VP and marker control are read at the end of each Round: the x axis is the Rounds, 1 to 5, no fractions."""
    import matplotlib.pyplot as plt

    res = simulate(load_scenario(builtin_scenarios()[0]), trials=50, seed=1)
    figures = res.figures()
    assert sorted(figures) == ["markers.png", "vp.png"]
    by_round = [ax for fig in figures.values() for ax in fig.axes if ax.get_xlabel() == "round"]
    assert len(by_round) == 1 + len(res.markers)  # the VP's and one per marker
    for ax in by_round:
        assert list(ax.get_xticks()) == [1, 2, 3, 4, 5]
    for fig in figures.values():
        plt.close(fig)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--trials", "0"], "--trials: got '0'"),
        (["--seed", "x"], "--seed"),
        (["--plot", "/nonexistent-dir/x"], "--plot"),
        (["--workers", "0"], "--workers: got '0'"),
    ],
)
def test_cli_run_bad_flags(args: list[str], expected: str) -> None:
    res = runner.invoke(app, ["scenario", "run", str(builtin_scenarios()[0]), *args])
    assert res.exit_code == 2
    assert expected in res.output and "Traceback" not in res.output


def test_cli_missing_file() -> None:
    res = runner.invoke(app, ["scenario", "check", "no-such-scenario.toml"])
    assert res.exit_code == 2 and "no such file" in res.output


def _toml(data: dict) -> str:
    """A tiny TOML writer for the test files (tables, arrays of tables, inline values)."""

    def value(v: object) -> str:
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list | tuple):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return str(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for k, v in data.items():
        if isinstance(v, dict):
            lines.append(f"[{k}]")
            lines += [f"{a} = {value(b)}" for a, b in v.items()]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)
    return text


@pytest.mark.parametrize("enabled", [True, False])
def test_a_run_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    """Simulation.run pauses the cyclic collector (the caches are long-lived) and restores it, even on an error."""
    import gc

    from mathhammer.scenario.sim import Simulation

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        seen: list[bool] = []
        sim = Simulation(load_scenario(builtin_scenarios()[0]), 20, 1)
        sim.run(lambda _r, _n: seen.append(gc.isenabled()))
        assert seen and not any(seen)  # paused during the Rounds
        assert gc.isenabled() == enabled

        def boom(_r: int, _n: int) -> None:
            raise RuntimeError("stop")

        with pytest.raises(RuntimeError):
            Simulation(load_scenario(builtin_scenarios()[0]), 20, 1).run(boom)
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_run_freezes_each_rounds_objects_and_puts_them_back() -> None:
    """Simulation.run moves the objects each Round made out of the collector's generations (``gc.freeze``: the
    caches are not walked again) and puts them back at the end; a caller's own frozen objects stay frozen (the run
    collects the young generations after each Round instead)."""
    import gc

    from mathhammer.scenario.sim import Simulation

    assert gc.get_freeze_count() == 0
    frozen: list[int] = []
    Simulation(load_scenario(builtin_scenarios()[0]), 20, 1).run(lambda _r, _n: frozen.append(gc.get_freeze_count()))
    assert frozen and all(n > 0 for n in frozen)  # after each Round
    assert gc.get_freeze_count() == 0  # put back
    gc.freeze()  # another caller's
    try:
        mine = gc.get_freeze_count()
        seen: list[int] = []
        Simulation(load_scenario(builtin_scenarios()[0]), 20, 1).run(lambda _r, _n: seen.append(gc.get_freeze_count()))
        assert seen == [mine] * len(seen) and seen
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()


def test_a_units_effects_of_a_kind_are_its_loadouts() -> None:
    """``Simulation.effects`` (kept per unit, abilities and kind) gives the effects of that kind of the unit's loadout
    with those abilities (the naive reading), asked once or again, for every unit and kind of the built-in scenarios."""
    kinds_seen = 0
    for path in builtin_scenarios():
        sim = Simulation(load_scenario(path), 2, 1)
        for u in range(sim.U):
            every = sim.loadout(u, 0).effects()
            for kind in {e.kind for e in every} | {"no such kind"}:
                want = [e for e in every if e.kind == kind]
                assert sim.effects(u, 0, kind) == want
                assert sim.effects(u, 0, kind) == want
                kinds_seen += bool(want)
    assert kinds_seen > 10
