"""Units standing on terrain in a scenario (issue 6, "board (terrain as in the board issue)").

A plan's ``on = "<terrain id>"`` sets a unit on the top of a piece (``mathhammer/scenario/world.py``);
``scenario check`` holds the move to the ACCESS POINTs and counts the climb (8.5.3); the board
layer then reads elevation, Engagement, Line of Sight and HIGH GROUND Cover from the models'
``stands_on``. Each test builds its small scenario here and cites the rule it exercises.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.board.model import Board, Model, board_problems
from mathhammer.cli import app
from mathhammer.scenario import ScenarioError, check_scenario, simulate
from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import CONTEST_RANGE, MARKER_MM
from mathhammer.starcraft.loadout import attack_batches
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import build, skirmish
from .scenario_kit import errors as kit_errors

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
ROSTER = load_roster()
runner = CliRunner()

#: HIGH GROUND (Size 3) near the red Entry Edge, 0.5" tall, one ACCESS POINT on its west side at (14, 4).
MESA = {
    "id": "mesa",
    "footprint": [[14, 3], [20, 3], [20, 8], [14, 8]],
    "size": 3,
    "surface": True,
    "height": 0.5,
    "access_points": [[[14, 4]]],
}
#: a piece with a top and no ACCESS POINT: IMPASSABLE TERRAIN.
ROCK = {"id": "rock", "footprint": [[26, 6], [30, 6], [30, 10], [26, 10]], "size": 3, "surface": True, "height": 1.0}
#: a wall: no horizontal top.
WALL = {"id": "wall", "footprint": [[4, 14], [4.5, 14], [4.5, 18], [4, 18]], "size": 2}
#: too small for six Marines (32 mm bases).
CRATE = {
    "id": "crate",
    "footprint": [[6, 3], [8, 3], [8, 5], [6, 5]],
    "size": 1,
    "surface": True,
    "height": 0.5,
    "access_points": [[[6, 4]]],
}


def base(terrain: list[dict], rounds: list[dict]) -> dict:
    """A Skirmish scenario (Hold Position on Frontier, 36" x 36"), Marker 1 on the playmat at (12, 6)."""
    markers = [{"number": 1, "x": 12, "y": 6}, {"number": 2, "x": 9, "y": 26}]
    return skirmish("elevation test", markers, terrain=terrain, rounds=rounds)


def scenario(terrain: list[dict], rounds: list[dict]):
    return build(base(terrain, rounds), "elev.toml")


def errors(terrain: list[dict], rounds: list[dict]) -> list[str]:
    return kit_errors(scenario(terrain, rounds))


def act(unit: str, action: str, to: list[float], on: str | None = None) -> dict:
    out: dict = {"unit": unit, "action": action, "to": to}
    if on is not None:
        out["on"] = on
    return out


#: Marines enter at (12.5, 3) and Run onto the mesa: 1.80" to the ACCESS POINT, 0.5" climb, 1.41" on top.
ONTO_MESA = [
    {
        "round": 1,
        "red": {
            "movement": [act("marine-1", "deploy", [12.5, 3])],
            "assault": [act("marine-1", "run", [15, 5], "mesa")],
        },
    }
]


def _played(terrain: list[dict], rounds: list[dict], trials: int = 8) -> Simulation:
    """The plan's Round 1 Movement and Assault activations of both players, run by the simulation."""
    sim = Simulation(scenario(terrain, rounds), trials, seed=1)
    missions.setup(sim)
    sim.round = 1
    every = np.arange(trials)
    for phase in ("movement", "assault"):
        for player in ("red", "blue"):
            for a in sim.scn.activations(1, phase, player):
                sim.activate(a, every)
    return sim


def _when_shot(scn: Scenario) -> tuple[Simulation, tuple[int, ...]]:
    """One game played, and the units' placements when the first attack is resolved (before its casualties leave the
    table)."""
    sim = Simulation(scn, 1, seed=1)
    shot: list[tuple[int, ...]] = []
    resolve = sim.resolve

    def spy(*a: Any, **k: Any) -> None:
        shot.append(_state(sim)[0])
        resolve(*a, **k)

    sim.resolve = spy  # type: ignore[method-assign]
    sim.run()
    return sim, shot[0]


def _state(sim: Simulation, trial: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    pos = tuple(int(p) for p in sim.pos[:, trial])
    alive = tuple(int(k) if p >= 0 else 0 for p, k in zip(pos, sim.alive[:, trial], strict=True))
    return pos, alive


# ----------------------------------------------------------------- standing on a piece
@pytest.mark.parametrize(("size", "level"), [(3, "high"), (1, "mid")])
def test_a_unit_run_onto_a_piece_stands_on_it(size: int, level: str) -> None:
    """8.5.3 ELEVATION: "HIGH GROUND: Standing on horizontal terrain of Size 3 or larger", MID GROUND Size 1-2.

    The plan is legal (the way passes the ACCESS POINT, 3.7" with the climb); in the simulation every
    model of the unit stands on the piece, its centre over the top (FAQ v1.0 Wobbly Model Syndrome),
    and the board state is legal for the board layer.
    """
    terrain = [dict(MESA, size=size)]
    assert errors(terrain, ONTO_MESA) == []
    sim = _played(terrain, ONTO_MESA)
    pos, alive = _state(sim)
    placement = sim.world.placements[pos[sim.uids.index("marine-1")]]
    assert placement.level == "mesa" and len(placement.centres) == 6
    b = sim.world.board_for(pos, alive)
    marines = b.unit("marine-1").models
    assert all(m.stands_on == "mesa" for m in marines)
    assert [b.elevation(m) for m in marines] == [level] * 6
    assert board_problems(Board(b.width, b.depth, b.terrain, b.units)) == []


def test_a_unit_deployed_onto_a_piece_touching_its_entry_edge() -> None:
    """8.5.5 Deploy; FAQ v1.0: "If High Ground physically touches the player's Entry Edge, the unit can be
    deployed directly on that terrain" (no ACCESS POINT needed, no climb)."""
    ledge = {"id": "ledge", "footprint": [[14, 28], [22, 28], [22, 36], [14, 36]], "size": 3, "surface": True}
    rounds = [{"round": 1, "blue": {"movement": [act("zergling-1", "deploy", [18, 32.7], "ledge")]}}]
    assert errors([ledge], rounds) == []
    sim = _played([ledge], rounds)
    pos, alive = _state(sim)
    b = sim.world.board_for(pos, alive)
    assert [b.elevation(m) for m in b.unit("zergling-1").models] == ["high"] * 12


def test_high_ground_does_not_contest_a_marker_on_the_ground() -> None:
    """8.9.1: a Unit contests only if "At least one model is Within 3", has LoS to the Marker, and is on the
    same elevation as the marker": the marker is on the playmat, the Marines on the mesa are Within 3"."""
    sim = _played([MESA], ONTO_MESA)
    world = sim.world
    pos, _ = _state(sim)
    up = pos[sim.uids.index("marine-1")]
    marker = Model("marker", 12, 6, MARKER_MM, 0)
    r = world.scn.units["marine-1"].base_mm / 25.4 / 2
    near = [c for c in world.placements[up].centres if math.dist(c, marker.centre) - r - marker.radius <= CONTEST_RANGE]
    assert near, 'the test needs a model Within 3" of the marker'
    assert not world.contests(up, 6, 1)
    # the same unit on the playmat at the foot of the mesa, as near the marker, does contest it
    down = world.place(world.scn.units["marine-1"], (12, 3.2), (0.0, -1.0), ())
    assert down is not None and world.placements[down].level is None
    assert world.contests(down, 6, 1)


# ----------------------------------------------------------------- the way onto and off a piece
def test_a_move_onto_a_piece_without_an_access_point_is_an_error() -> None:
    """8.5.3: "The Leading Model cannot change elevation unless it passes through an ACCESS POINT";
    IMPASSABLE TERRAIN: "no Access Point connecting it to an adjacent elevation level"."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [act("marine-1", "deploy", [24, 3.3])],
                "assault": [act("marine-1", "run", [27, 7.5], "rock")],
            },
        }
    ]
    found = errors([MESA, ROCK], rounds)
    assert len(found) == 1
    assert "rounds[0].red.assault[0] (round 1, Assault Phase, red, marine-1 run)" in found[0]
    assert "no way from the playmat to the top of 'rock' through an ACCESS POINT" in found[0]
    assert "8.5.3" in found[0] and "IMPASSABLE TERRAIN" in found[0]


def test_the_climb_counts_towards_speed() -> None:
    """8.5.3: "Measure the actual path travelled": to the ACCESS POINT round the mesa's corner (the base touches
    the mesa only within one radius of the ACCESS POINT, as a Charge's path) + 0.5" climb + 1.98" on top is
    4.4" > Speed 4, although the straight line (3.76") and the way without the climb fit."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [act("marine-1", "deploy", [12.5, 3])],
                "assault": [act("marine-1", "run", [15.4, 5.4], "mesa")],
            },
        }
    ]
    assert math.dist((12.5, 3), (15.4, 5.4)) < 4
    found = errors([MESA], rounds)
    assert len(found) == 1
    assert "rounds[0].red.assault[0]" in found[0]
    assert "moves 4.4\" from the playmat to the top of 'mesa' through an ACCESS POINT of 'mesa'" in found[0]
    assert 'climbing 0.5"; Speed is 4"' in found[0] and "8.5.3" in found[0]
    # a piece 0 tall: the same way fits
    assert errors([dict(MESA, height=0.0)], rounds) == []


def test_moving_off_a_piece_goes_back_through_the_access_point() -> None:
    """8.5.3: leaving the top is a change of elevation too: back through the ACCESS POINT, climb counted."""
    down_ok = [*ONTO_MESA, {"round": 2, "red": {"movement": [act("marine-1", "move", [13, 5])]}}]
    assert errors([MESA], down_ok) == []  # 1.41" + 0.5" + 1.41"
    too_far = [*ONTO_MESA, {"round": 2, "red": {"movement": [act("marine-1", "move", [12, 7])]}}]
    found = errors([MESA], too_far)
    assert len(found) == 1 and "rounds[1].red.movement[0]" in found[0]
    assert "from the top of 'mesa' to the playmat" in found[0]


def test_the_point_must_be_over_the_named_piece() -> None:
    """FAQ v1.0 Wobbly Model Syndrome: the centre of the base stays over the piece; 8.5.3: "may not end
    overlapping terrain" (a point over a piece's top without ``on``)."""
    off = [{"round": 1, "red": {"movement": [act("marine-1", "deploy", [12.5, 3], "mesa")]}}]
    found = errors([MESA], off)
    assert len(found) == 1 and "on = 'mesa': the Leading Model's point (12.5, 3) is over the playmat" in found[0]
    unnamed = [{"round": 1, "red": {"movement": [act("marine-1", "deploy", [12.5, 3])]}}]
    unnamed[0]["red"]["assault"] = [act("marine-1", "run", [14.5, 4])]
    found = errors([MESA], unnamed)
    assert len(found) == 1 and "is over terrain piece 'mesa'" in found[0] and 'set on = "mesa"' in found[0]


def test_a_unit_that_does_not_fit_on_the_piece_is_refused() -> None:
    """world.py reading: every model on the same top (centres over it); six Marines do not fit on a 2" crate."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [act("marine-1", "deploy", [4.5, 3])],
                "assault": [act("marine-1", "run", [7, 4], "crate")],
            },
        }
    ]
    found = errors([CRATE], rounds)
    assert len(found) == 1 and "does not fit on the top of 'crate'" in found[0]


# ----------------------------------------------------------------- HIGH GROUND Cover in play
def _perch(size: int) -> dict:
    return {"id": "perch", "footprint": [[14, 28], [22, 28], [22, 36], [14, 36]], "size": size, "surface": True}


SHOOT_UP = [
    {
        "round": 1,
        "red": {"movement": [act("marine-2", "deploy", [18, 3.3])], "assault": [act("marine-2", "run", [18, 7.3])]},
        "blue": {"movement": [act("zergling-1", "deploy", [18, 32.7], "perch")]},
    },
    {
        "round": 2,
        "red": {"movement": [act("marine-2", "move", [18, 11.3])], "assault": [act("marine-2", "run", [18, 15.3])]},
    },
    {
        "round": 3,
        "red": {
            "movement": [act("marine-2", "move", [18, 19.3])],
            "assault": [{"unit": "marine-2", "action": "shoot", "targets": ["zergling-1"]}],
        },
    },
]


def test_high_ground_evade_in_a_simulated_ranged_attack() -> None:
    """7.1.3 High Ground Cover: "If all models of a Unit are standing on HIGH GROUND (Size 3 or larger
    terrain) ... the Unit becomes eligible to make an Evade Roll against all Ranged Attacks originating
    from a lower elevation". The Zerglings on a Size 3 perch lose fewer models to the Marines on the
    playmat than on the same piece at Size 2 (MID GROUND, no Evade); the board facts differ only there."""
    facts = {}
    means = {}
    for size in (3, 2):
        scn = scenario([_perch(size)], SHOOT_UP)
        assert [p for p in check_scenario(scn) if not p.startswith("warning")] == []
        sim, pos = _when_shot(scn)
        world = sim.world
        alive = tuple(scn.units[u].models if p >= 0 else 0 for u, p in zip(world.uids, pos, strict=True))
        lings = scn.units["zergling-1"].unit
        batch = next(b for b in attack_batches(scn.units["marine-2"].loadout, lings, "assault"))
        facts[size] = world.facts(pos, alive, "marine-2", "zergling-1", batch.weapon, tuple(lings.card.combat_tags))
        res = simulate(scn, trials=20000, seed=5)
        z = [u["id"] for u in res.units].index("zergling-1")
        lost = 12 - np.asarray(res.rounds[2]["alive"][z], dtype=float)
        means[size] = (lost.mean(), lost.std() / math.sqrt(lost.size))
    assert facts[3].eligible and facts[2].eligible
    assert "high-ground" in facts[3].evade_reasons and "high-ground" not in facts[2].evade_reasons
    assert facts[3].models == facts[2].models and facts[3].removable_models == facts[2].removable_models
    (m3, s3), (m2, s2) = means[3], means[2]
    assert m2 - m3 > 5 * math.hypot(s2, s3), means


# ----------------------------------------------------------------- the file
def test_a_bad_on_is_a_file_error() -> None:
    """An unknown id, a piece without a horizontal top, or ``on`` on an action that does not end anywhere."""
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [act("marine-1", "deploy", [12.5, 3], "wall")],
                "assault": [act("marine-1", "run", [15, 5], "nope")],
            },
            "blue": {"assault": [{"unit": "roach-1", "action": "shoot", "targets": ["marine-1"], "on": "mesa"}]},
        }
    ]
    with pytest.raises(ScenarioError) as exc:
        scenario([MESA, ROCK, WALL], rounds)
    text = str(exc.value)
    assert "rounds[0].red.movement[0].on: got 'wall' (no horizontal top); allowed: a terrain piece with surface" in text
    assert "rounds[0].red.assault[0].on: got 'nope' (unknown terrain id)" in text and ": mesa, rock" in text
    assert "rounds[0].blue.assault[0].on: got 'mesa'; allowed only on deploy, move, run, disengage" in text


def test_cli_rejects_a_bad_on_with_exit_2(tmp_path: Path) -> None:
    """``mathhammer scenario check``: a bad ``on`` is a file error naming the field and the allowed ids."""
    text = f"""
name = "bad on"
first_player = "red"
[mission]
card = "Hold Position"
[deployment]
card = "Frontier"
entry_edges = {{ red = "south", blue = "north" }}
markers = [{{ number = 1, x = 12, y = 6 }}]
[[terrain]]
id = "mesa"
footprint = [[14, 3], [20, 3], [20, 8], [14, 8]]
size = 3
surface = true
height = 0.5
access_points = [[[14, 4]]]
[players.red]
army = "{(ARMIES / "terran_skirmish.toml").as_posix()}"
[players.blue]
army = "{(ARMIES / "zerg_skirmish.toml").as_posix()}"
[[rounds]]
round = 1
red.movement = [{{ unit = "marine-1", action = "deploy", to = [12.5, 3], on = "mesaa" }}]
"""
    f = tmp_path / "bad_on.toml"
    f.write_text(text)
    res = runner.invoke(app, ["scenario", "check", str(f)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert "rounds[0].red.movement[0].on: got 'mesaa' (unknown terrain id)" in res.output
    assert "allowed: a terrain piece with surface = true: mesa" in res.output
