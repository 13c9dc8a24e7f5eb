"""Conditional activations (issue 6 point 1): the ``if`` / ``unless`` lists of a plan entry.

Issue 6 point 1 asks for "a plan: per round and phase, the activations in order ... with optional
conditions ('if the target unit is destroyed, shoot the next one instead')". The grammar and its
meaning are in ``mathhammer/scenario/conditions.py`` and ``profiles/scenarios/README.md``
("Conditions"). Each test steps a small game by hand, so the per-trial state at the moment a
conditional activation comes up is known exactly, and compares the activation's effect with that
state and with a twin plan without the condition (the draws are keyed by trial and plan position,
so the twin's game is the same game wherever the condition holds).
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.scenario import ScenarioError, simulate
from mathhammer.scenario import mission as missions
from mathhammer.scenario.conditions import Condition, holds, parse_condition
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Scenario
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import build, errors, skirmish

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
ROSTER = load_roster()
runner = CliRunner()
T = 2000


def base(rounds: list[dict]) -> dict:
    """A Skirmish scenario (Hold Position on Frontier, 36" x 36"): Terran patrol (red, south) vs Zerg vanguard."""
    return skirmish("conditions test", rounds=rounds)


def scenario(rounds: list[dict]) -> Scenario:
    return build(base(rounds))


def without_conditions(rounds: list[dict]) -> list[dict]:
    """The twin plan: the same entries, every ``if`` / ``unless`` removed."""
    twin = copy.deepcopy(rounds)
    for rnd in twin:
        for player in ("red", "blue"):
            for entries in rnd.get(player, {}).values():
                for e in entries:
                    e.pop("if", None)
                    e.pop("unless", None)
    return twin


def start(scn: Scenario, trials: int = T, seed: int = 3) -> Simulation:
    sim = Simulation(scn, trials, seed)
    missions.setup(sim)  # Mission Parameters: "All Mission Markers are Activated"
    return sim


def play(sim: Simulation, rnd: int, phase: str, fp: int, stop: str | None = None) -> Activation | None:
    """Activate the phase's plan in alternation order (8.2.1) from player ``fp``, in every trial.

    With ``stop``, stop before the first activation of that unit and return it (not activated).
    """
    sim.round = rnd
    everyone = np.arange(sim.T)
    order, _ = sim.order(rnd, phase, fp)
    for act in order:
        if act.unit == stop:
            return act
        sim.activate(act, everyone)
    return None


def skipped(sim: Simulation, act: Activation, why: str) -> int:
    return sum(n for k, n in sim.skipped.items() if k.startswith(act.where + ":") and why in k)


# Marines walk north, Zerglings south; both pairs end 12.5" apart (in Marine range 12") after Round 2. (8.5.5: the
# Deploys end with the bases within Speed 4 of the Entry Edges, the centres 3.3" from them, so the pairs need the
# Round 2 Runs to get that close, and the shots come in Round 3.)
ROUND1 = {
    "round": 1,
    "red": {
        "movement": [
            {"unit": "marine-1", "action": "deploy", "to": [14, 3.3]},
            {"unit": "marine-2", "action": "deploy", "to": [22, 3.3]},
        ],
        "assault": [
            {"unit": "marine-1", "action": "run", "to": [14, 7.3]},
            {"unit": "marine-2", "action": "run", "to": [22, 7.3]},
        ],
    },
    "blue": {
        "movement": [
            {"unit": "zergling-1", "action": "deploy", "to": [14, 32.7]},
            {"unit": "zergling-2", "action": "deploy", "to": [22, 32.7]},
        ],
        "assault": [
            {"unit": "zergling-1", "action": "run", "to": [14, 28.7]},
            {"unit": "zergling-2", "action": "run", "to": [22, 28.7]},
        ],
    },
}
ROUND2_APPROACH = {
    "round": 2,
    "red": {
        "movement": [
            {"unit": "marine-1", "action": "move", "to": [14, 11.3]},
            {"unit": "marine-2", "action": "move", "to": [22, 11.3]},
        ],
        "assault": [
            {"unit": "marine-1", "action": "run", "to": [14, 12]},
            {"unit": "marine-2", "action": "run", "to": [22, 12]},
        ],
    },
    "blue": {
        "movement": [
            {"unit": "zergling-1", "action": "move", "to": [14, 24.7]},
            {"unit": "zergling-2", "action": "move", "to": [22, 24.7]},
        ],
        "assault": [
            {"unit": "zergling-1", "action": "run", "to": [14, 24.5]},
            {"unit": "zergling-2", "action": "run", "to": [22, 24.5]},
        ],
    },
}


def shooting_plan() -> list[dict]:
    """marine-1 shoots zergling-1 in Round 3; then marine-2 shoots zergling-2 only if zergling-1 is destroyed."""
    r3 = {"round": 3, "red": {"assault": [
        {"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]},
        {"unit": "marine-2", "action": "shoot", "targets": ["zergling-2"], "if": ["zergling-1 destroyed"]},
    ]}}  # fmt: skip
    return [copy.deepcopy(ROUND1), copy.deepcopy(ROUND2_APPROACH), r3]


def test_a_conditional_shot_happens_exactly_where_its_condition_holds() -> None:
    """Issue 6 point 1 (8.7.3 target eligibility, 8.7.4): marine-2 shoots zergling-2 only in the trials
    where marine-1's shot just destroyed zergling-1; there it is the unconditional twin's shot, elsewhere
    zergling-2 is untouched and the trial is counted as skipped with the condition."""
    rounds = shooting_plan()
    scn, twin_scn = scenario(rounds), scenario(without_conditions(rounds))
    assert errors(scn) == [] and errors(twin_scn) == []  # checked as written: the shot assumed to happen
    sim, twin = start(scn), start(twin_scn)
    z1, z2 = sim.uids.index("zergling-1"), sim.uids.index("zergling-2")
    for s in (sim, twin):
        play(s, 1, "movement", 0)
        play(s, 1, "assault", 0)
        play(s, 2, "movement", 0)
        play(s, 2, "assault", 0)
        s.alive[z1, ::2] = 1  # one Zergling left in half the trials: marine-1's shot often destroys it
    act = play(sim, 3, "assault", 0, stop="marine-2")
    twin_act = play(twin, 3, "assault", 0, stop="marine-2")
    assert act is not None and twin_act is not None
    assert np.array_equal(sim.state, twin.state)  # the same games up to the conditional activation
    destroyed = sim.alive[z1] <= 0  # the exact per-trial state when marine-2's activation comes up
    assert 0 < destroyed.sum() < T
    before = sim.state.copy()
    everyone = np.arange(T)
    sim.activate(act, everyone)
    twin.activate(twin_act, everyone)
    rows = [sim.row_alive(z2), sim.row_mark(z2), sim.row_shielded(z2)]
    assert np.array_equal(sim.state[rows][:, destroyed], twin.state[rows][:, destroyed])
    assert np.array_equal(sim.state[:, ~destroyed], before[:, ~destroyed])
    assert (sim.alive[z2, destroyed] < 12).any()  # it did shoot somewhere
    assert (twin.alive[z2, ~destroyed] < 12).any()  # and the twin shot where the condition failed
    assert skipped(sim, act, "if 'zergling-1 destroyed' does not hold") == (~destroyed).sum()


def charge_plan() -> list[dict]:
    """zergling-2 charges marine-1 (about half succeed); zergling-1 charges it only if it is still Unengaged."""
    r1 = copy.deepcopy(ROUND1)
    r1["red"]["movement"][1]["to"] = [26, 3.3]
    r1["red"]["assault"][1]["to"] = [26, 7.3]
    r1["blue"]["movement"][0]["to"] = [10, 32.7]
    r1["blue"]["movement"][1]["to"] = [18, 32.7]
    r1["blue"]["assault"][0]["to"] = [10, 28.7]
    r1["blue"]["assault"][1]["to"] = [18, 28.7]
    # the Charges start from the same offsets as before the Deploys were kept within Speed (8.5.5): marine-1 at
    # (14, 15.2), the Zerglings 0.7" nearer their edge, at (10, 24.7) and (18, 24.7)
    r2 = {
        "round": 2,
        "red": {
            "movement": [
                {"unit": "marine-1", "action": "move", "to": [14, 11.3]},
                {"unit": "marine-2", "action": "move", "to": [26, 11.3]},
            ],
            "assault": [{"unit": "marine-1", "action": "run", "to": [14, 15.2]}],
        },
        "blue": {
            "movement": [
                {"unit": "zergling-1", "action": "move", "to": [10, 24.7]},
                {"unit": "zergling-2", "action": "move", "to": [18, 24.7]},
            ],
            "assault": [
                {"unit": "zergling-2", "action": "charge", "targets": ["marine-1"]},
                {"unit": "zergling-1", "action": "charge", "targets": ["marine-1"], "if": ["marine-1 unengaged"]},
            ],
        },
    }
    return [r1, r2]


def test_a_charge_only_at_an_unengaged_target() -> None:
    """Issue 6 point 1 (8.7.7 Charge, 7.2.1 Engaged): zergling-1 charges marine-1 only in the trials where
    zergling-2's Charge failed, so marine-1 is still Unengaged when zergling-1's activation comes up."""
    rounds = charge_plan()
    scn, twin_scn = scenario(rounds), scenario(without_conditions(rounds))
    assert errors(scn) == []
    sim, twin = start(scn), start(twin_scn)
    for s in (sim, twin):
        play(s, 1, "movement", 0)
        play(s, 1, "assault", 0)
        play(s, 2, "movement", 0)
    act = play(sim, 2, "assault", 0, stop="zergling-1")
    twin_act = play(twin, 2, "assault", 0, stop="zergling-1")
    assert act is not None and twin_act is not None
    everyone = np.arange(T)
    m1, z1 = sim.uids.index("marine-1"), sim.uids.index("zergling-1")
    engaged = sim.engaged_mask(everyone, m1)
    assert 0.2 < engaged.mean() < 0.8
    before = sim.pos[z1].copy()
    sim.activate(act, everyone)
    twin.activate(twin_act, everyone)
    assert np.array_equal(sim.pos[z1, engaged], before[engaged])  # held

    def where(s: Simulation, games: np.ndarray) -> list[object]:  # placements by content (each World its own ids)
        return [s.world.placements[int(p)] if p >= 0 else None for p in s.pos[z1, games]]

    assert where(sim, ~engaged) == where(twin, ~engaged)  # the twin's Charge, roll for roll
    assert (sim.pos[z1, ~engaged] != before[~engaged]).any()  # some of those Charges succeeded
    # and the twin charged where it held (8.7.7: around zergling-2's models, so some Charges fail)
    tried = skipped(twin, twin_act, "Charge Roll too short (8.7.7)") + skipped(
        twin, twin_act, "no room to set the unit there"
    )
    assert tried + int((twin.pos[z1] != before).sum()) == T
    assert skipped(twin, twin_act, "if 'marine-1 unengaged' does not hold") == 0
    assert skipped(sim, act, "if 'marine-1 unengaged' does not hold") == engaged.sum()


def _moved(sim: Simulation, act: Activation, setup: dict[str, np.ndarray]) -> np.ndarray:
    """Activate ``act`` (a Move of marine-1 in Round 2) after setting the per-trial state; where it moved."""
    for name, value in setup.items():
        getattr(sim, name)[...] = value
    u = sim.uids.index(act.unit)
    before = sim.pos[u].copy()
    sim.activate(act, np.arange(sim.T))
    return np.asarray(sim.pos[u] != before)


def _marine_move(cond: dict) -> tuple[Simulation, Activation]:
    rounds = [
        {"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]}},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 7.3], **cond}]}},
    ]
    scn = scenario(rounds)
    assert errors(scn) == []
    sim = start(scn, trials=6)
    play(sim, 1, "movement", 0)
    act = scn.activations(2, "movement", "red")[0]
    sim.round = 2
    return sim, act


def test_marker_conditions_read_control() -> None:
    """Issue 6 point 1, 8.9.1 control: "marker N red|blue|uncontrolled" reads who Controls the marker
    in that trial (-1 nobody, 0 red, 1 blue); ``unless`` negates."""
    control = np.array([-1, 0, 1, -1, 0, 1])
    m = [1, 2, 5].index(5)
    for cond, expected in (
        ({"if": ["marker 5 red"]}, control == 0),
        ({"if": ["marker 5 blue"]}, control == 1),
        ({"if": ["marker 5 uncontrolled"]}, control == -1),
        ({"unless": ["marker 5 red"]}, control != 0),
    ):
        sim, act = _marine_move(cond)
        ctl = sim.control.copy()
        ctl[m] = control
        assert _moved(sim, act, {"control": ctl}).tolist() == expected.tolist(), cond
        assert sum(sim.skipped.values()) == (~expected).sum()


def test_vp_conditions() -> None:
    """Issue 6 point 1 (8.9.2 Victory Points): "red ahead", "red behind", "blue ahead", "vp tied"."""
    vp = np.array([[0, 1, 2, 3, 0, 5], [1, 1, 1, 0, 0, 6]])
    for cond, expected in (
        ({"if": ["red behind"]}, vp[0] < vp[1]),
        ({"if": ["red ahead"]}, vp[0] > vp[1]),
        ({"if": ["blue ahead"]}, vp[1] > vp[0]),
        ({"if": ["blue behind"]}, vp[1] < vp[0]),
        ({"if": ["vp tied"]}, vp[0] == vp[1]),
        ({"if": ["red behind"], "unless": ["vp tied"]}, vp[0] < vp[1]),
        ({"if": ["red ahead", "blue behind"]}, vp[0] > vp[1]),
    ):
        sim, act = _marine_move(cond)
        assert _moved(sim, act, {"vp": vp}).tolist() == expected.tolist(), cond


def test_unit_conditions_on_the_exact_state() -> None:
    """Issue 6 point 1: destroyed, on table, in reserves, engaged, unengaged, per trial."""
    rounds = charge_plan()
    scn = scenario(rounds)
    sim = start(scn, trials=400)
    for ph in ("movement", "assault"):
        play(sim, 1, ph, 0)
    play(sim, 2, "movement", 0)
    play(sim, 2, "assault", 0)
    everyone = np.arange(sim.T)
    units = {k: v.player for k, v in scn.units.items()}
    m1, mar = sim.uids.index("marine-1"), sim.uids.index("marauder-1")
    sim.alive[m1, :50] = 0  # destroyed in the first 50 trials
    sim.pos[m1, :50] = -1
    sim.sync_board()
    on = sim.pos[m1] >= 0
    engaged = np.zeros(sim.T, dtype=bool)
    engaged[on] = sim.engaged_mask(everyone[on], m1)
    assert engaged.any() and (on & ~engaged).any()

    def read(text: str) -> list[bool]:
        cond = parse_condition(text, units, [1, 2, 5])
        assert isinstance(cond, Condition)
        return holds(sim, cond, everyone).tolist()

    assert read("marine-1 destroyed") == (~on).tolist()
    assert read("marine-1 on table") == on.tolist()
    assert read("marine-1 in reserves") == [False] * sim.T
    assert read("marine-1 engaged") == engaged.tolist()
    assert read("marine-1 unengaged") == (on & ~engaged).tolist()
    assert sim.pos[mar].max() < 0
    assert read("marauder-1 in reserves") == [True] * sim.T  # never deployed
    assert read("marauder-1 destroyed") == read("marauder-1 on table") == [False] * sim.T
    assert read("marauder-1 engaged") == read("marauder-1 unengaged") == [False] * sim.T


def test_a_skipped_activation_holds_its_place_in_the_alternation() -> None:
    """8.2.1 / 8.4.2 with issue 6 point 1: the order of activations is the plan's whatever the conditions;
    a failed condition is a Hold, so the opponent gets no extra activation and nobody Passes early."""
    rounds = charge_plan()
    scn, twin = scenario(rounds), scenario(without_conditions(rounds))
    sim, other = start(scn), start(twin)
    for fp in (0, 1):
        order, passer = sim.order(2, "assault", fp)
        twin_order, twin_passer = other.order(2, "assault", fp)
        assert [(a.unit, a.action) for a in order] == [(a.unit, a.action) for a in twin_order]
        assert passer == twin_passer


def test_a_conditional_deploy_and_a_whole_game() -> None:
    """Issue 6 point 1: reinforcements "if marine-1 destroyed"; the whole game runs, the skips are reported."""
    rounds = shooting_plan()
    rounds.append(
        {
            "round": 4,
            "red": {
                "movement": [{"unit": "medic-1", "action": "deploy", "to": [18, 3.3], "if": ["zergling-1 destroyed"]}]
            },
            "blue": {"assault": [{"unit": "zergling-2", "action": "run", "to": [22, 22], "unless": ["red behind"]}]},
        }
    )
    scn = scenario(rounds)
    assert errors(scn) == []
    res = simulate(scn, trials=300, seed=4)
    assert any("rounds[2].red.assault[1]: if 'zergling-1 destroyed' does not hold" in k for k in res.skipped)
    ids = [u["id"] for u in res.units]
    medic, z1 = ids.index("medic-1"), ids.index("zergling-1")
    # nothing attacks zergling-1 after Round 3: the Medic comes exactly where it was destroyed by then
    destroyed = res.rounds[2]["alive"][z1] == 0
    assert 0 < destroyed.sum() < 300
    assert res.rounds[3]["on_table"][medic].tolist() == destroyed.tolist()
    why = "if 'zergling-1 destroyed' does not hold: the unit holds (a conditional activation)"
    assert res.skipped[f"rounds[3].red.movement[0]: {why}"] == (~destroyed).sum()


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"if": ["zergling-1 dead"]},
            'rounds[1].red.assault[0].if[0]: got \'zergling-1 dead\'; allowed: "UNIT destroyed", "UNIT on table"',
        ),
        (
            {"if": ["marine-1 on table", "zergling-9 destroyed"]},
            "rounds[1].red.assault[0].if[1]: got 'zergling-9 destroyed'; allowed: UNIT destroyed with UNIT a unit id",
        ),
        (
            {"unless": ["marker 3 red"]},
            "rounds[1].red.assault[0].unless[0]: got 'marker 3 red'; allowed: a marker of the deployment: marker 1, "
            "marker 2, marker 5",
        ),
        (
            {"if": ["marker 5 green"]},
            "rounds[1].red.assault[0].if[0]: got 'marker 5 green'; allowed: marker 5 red | blue | uncontrolled",
        ),
        ({"if": ["marker 5 not red"]}, "to negate one, list it in `unless`"),
        ({"if": ["red winning"]}, "rounds[1].red.assault[0].if[0]: got 'red winning'"),
        ({"if": "vp tied"}, "rounds[1].red.assault[0].if: got 'vp tied'; allowed: a valid list"),
        ({"if": [3]}, "rounds[1].red.assault[0].if[0]: got 3; allowed: a valid string"),
        ({"iff": ["vp tied"]}, "rounds[1].red.assault[0].iff: unknown key (did you mean 'if'?)"),
    ],
)
def test_bad_conditions_name_the_field(entry: dict, expected: str) -> None:
    """Issue 6 point 1: every malformed condition is a file error naming the field, the value, the allowed forms."""
    rounds = [
        {"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]}},
        {"round": 2, "red": {"assault": [{"unit": "marine-1", "action": "hold", **entry}]}},
    ]
    with pytest.raises(ScenarioError) as err:
        scenario(rounds)
    assert expected in str(err.value), str(err.value)
    assert all(line.startswith("test.toml: ") for line in err.value.problems)


def test_conditions_only_on_movement_and_assault_activations() -> None:
    """8.8.1: every Engaged unit fights, so a Combat Phase entry takes no condition; a pass is no activation."""
    rounds = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
            "blue": {
                "movement": [{"action": "pass", "if": ["vp tied"]}],
                "combat": [{"unit": "zergling-1", "action": "fight", "unless": ["marine-1 destroyed"]}],
            },
        }
    ]
    with pytest.raises(ScenarioError) as err:
        scenario(rounds)
    text = str(err.value)
    assert "rounds[0].blue.movement[0].if: got ['vp tied']; allowed: conditions on a Movement or Assault" in text
    assert "rounds[0].blue.combat[0].unless: got ['marine-1 destroyed']" in text


CLI_FILE = """\
name = "conditions"
first_player = "red"
[mission]
card = "Hold Position"
[deployment]
card = "Frontier"
entry_edges = {{ red = "south", blue = "north" }}
markers = [{{ number = 1, x = 9, y = 10 }}, {{ number = 5, x = 18, y = 18 }}]
[players.red]
army = "{red}"
[players.blue]
army = "{blue}"
[[rounds]]
round = 1
red.movement = [{{ unit = "marine-1", action = "deploy", to = [9, 3.3] }}]
[[rounds]]
round = 2
red.assault = [{{ unit = "marine-1", action = "hold", if = [{cond}] }}]
"""


@pytest.mark.parametrize(
    ("cond", "code", "expected"),
    [
        ('"marine-1 unengaged", "marker 1 red"', 0, "ok: conditions"),
        ('"marine-1 engagd"', 2, "error: bad.toml: rounds[1].red.assault[0].if[0]: got 'marine-1 engagd'; allowed:"),
        ('"marker 2 red"', 2, "error: bad.toml: rounds[1].red.assault[0].if[0]: got 'marker 2 red'; allowed: a marker"),
    ],
)
def test_cli_check_conditions(tmp_path: Path, cond: str, code: int, expected: str) -> None:
    """Issue 6 point 1: ``scenario check`` accepts good conditions, and exits 2 naming the bad one's field."""
    f = tmp_path / "bad.toml"
    f.write_text(CLI_FILE.format(red=ARMIES / "terran_skirmish.toml", blue=ARMIES / "zerg_skirmish.toml", cond=cond))
    res = runner.invoke(app, ["scenario", "check", str(f)])
    assert res.exit_code == code, res.output
    assert expected in res.output and "Traceback" not in res.output
