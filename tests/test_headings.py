"""A plan's ``headings`` on a move or run: the formation's rear (8.5.3 step 2, "Pick up all remaining models and set
them In Coherency around the Leading Model": behind it, towards where it stood) rounded to the nearest of so many
compass headings, so the automatic players' formations come from a finite set (issue 29 point 6,
docs/dev/compiled-game-loop.md). The engine, the plan check's walk and the automatic players' MoveVerdicts read the
same rear (``World.rear_from``); a plan without it is played as before."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from mathhammer.scenario import ScenarioError
from mathhammer.scenario import mission as missions
from mathhammer.scenario.geometry.core import nearest_heading
from mathhammer.scenario.players import menu
from mathhammer.scenario.players.trace import entry
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import HEADINGS

from .scenario_kit import build, errors, skirmish


def test_nearest_heading_rounds_to_the_compass() -> None:
    """16 headings: a rear a little north of east is east (exact), one 30 degrees from north is NNE (22.5 degrees);
    4 headings: the diagonal between north and east ties, and every symmetry of a table maps the tie as the rest."""
    assert nearest_heading((1.0, 0.1), 16) == (1.0, 0.0)
    x, y = nearest_heading((math.sin(math.radians(30)), math.cos(math.radians(30))), 16)
    assert math.isclose(math.degrees(math.atan2(x, y)), 22.5)
    assert nearest_heading((-3.0, -0.2), 8) == (-1.0, 0.0)
    assert nearest_heading((1.0, 1.0), 4) == (0.0, 1.0)
    assert nearest_heading((-1.0, 1.0), 4) == (0.0, 1.0)  # its N-S mirror image: north's image, north
    assert nearest_heading((1.0, -1.0), 4) == (0.0, -1.0)  # its E-W mirror image: south
    assert nearest_heading((-1.0, -1.0), 4) == (0.0, -1.0)  # the half-turn: south


@pytest.mark.parametrize("n", HEADINGS)
def test_the_tables_symmetries_map_headings_onto_headings(n: int) -> None:
    """Each heading is the nearest of the ``n`` to the direction (no other is nearer), and a reflection across
    either axis or the half-turn (every deployment card's symmetry: tests/test_menus_mirror.py) maps the heading
    of a direction onto the heading of its image, bit for bit; so does the reflection across a diagonal (x and y
    swapped: the mirror-antidiagonal card's, with both signs changed)."""
    rng = random.Random(7)
    maps = ((-1, 1), (1, -1), (-1, -1))
    for _ in range(2000):
        a = rng.uniform(-math.pi, math.pi)
        v = (math.sin(a) * rng.uniform(0.1, 30), math.cos(a) * rng.uniform(0.1, 30))
        h = nearest_heading(v, n)
        assert math.isclose(math.hypot(*h), 1.0)
        gap = math.acos(max(-1.0, min(1.0, (h[0] * v[0] + h[1] * v[1]) / math.hypot(*v))))
        assert gap <= math.pi / n + 1e-9
        for sx, sy in maps:
            assert nearest_heading((sx * v[0], sy * v[1]), n) == (sx * h[0], sy * h[1])
        assert nearest_heading((-v[1], -v[0]), n) == (-h[1], -h[0])


def _plan(headings: int | None, to: list[float]) -> list[dict]:
    move: dict = {"unit": "marine-1", "action": "move", "to": to}
    if headings is not None:
        move["headings"] = headings
    return [
        {"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [12.5, 3.0]}]}},
        {"round": 2, "red": {"movement": [move]}},
    ]


def _moved(headings: int | None, to: list[float]) -> tuple[Simulation, int]:
    scn = build(skirmish("headings", rounds=_plan(headings, to)))
    assert errors(scn) == []
    sim = Simulation(scn, 4, seed=1)
    missions.setup(sim)
    every = np.arange(4)
    for rnd in (1, 2):
        sim.round = rnd
        for a in sim.scn.activations(rnd, "movement", "red"):
            sim.activate(a, every)
    u = sim.uids.index("marine-1")
    pids = set(sim.pos[u].tolist())
    assert len(pids) == 1
    return sim, pids.pop()


def test_a_move_with_headings_sets_the_formation_on_the_rounded_rear() -> None:
    """8.5.3 step 2: a Marine squad Deployed at (12.5, 3) Moves 4" to the north-east, (15.3, 5.8) (its rear
    towards (12.5, 3): 225 degrees). With ``headings = 4`` the models are set as with the rear due south or west
    (the nearest of the four; half-even ties: south), without it as with the rear the way it came; the Leading Model
    is at the point both ways."""
    to = (15.3, 5.8)
    plain, p0 = _moved(None, list(to))
    four, p4 = _moved(4, list(to))
    world = plain.world
    su = plain.scn.units["marine-1"]
    came = (12.5 - to[0], 3.0 - to[1])
    assert world.placements[p0].centres == world.placements[world.place(su, to, came, ())].centres  # type: ignore[index]
    rounded = nearest_heading(came, 4)
    assert rounded in ((0.0, -1.0), (-1.0, 0.0))
    want = four.world.place(su, to, rounded, ())
    assert want is not None and four.world.placements[p4].centres == four.world.placements[want].centres
    assert four.world.placements[p4].centres != world.placements[p0].centres  # the formation did change
    assert four.world.placements[p4].centres[0] == to


def test_the_walk_reads_the_same_rear() -> None:
    """``scenario check``'s walk sets the unit where the engine does (8.5.3): a Move after the rounded one, of a
    Speed measured from the Leading Model, is judged on the rounded formation (no problem either way here), and the
    walk's placement after it is the engine's."""
    from mathhammer.scenario.check.walk import PlanCheck

    scn = build(skirmish("headings", rounds=_plan(16, [15.3, 5.8])))
    chk = PlanCheck(scn)
    assert chk.run() == []
    sim, pid = _moved(16, [15.3, 5.8])
    assert chk.world.placements[chk.pos["marine-1"]].centres == sim.world.placements[pid].centres


@pytest.mark.parametrize(
    ("action", "value", "refused"),
    [("move", 5, True), ("move", 0, True), ("run", 16, False), ("charge", 16, True), ("deploy", 8, True)],
)
def test_a_bad_headings_is_a_file_error(action: str, value: int, refused: bool) -> None:
    """``headings`` only on a move or run (the rear of a formation that trails from where the Leading Model stood,
    8.5.3), one of 4, 8, 16, 32; one line naming the field, the value and what is allowed."""
    act: dict = {"unit": "marine-1", "action": action, "headings": value}
    phase = "assault" if action in ("run", "charge") else "movement"
    if action == "charge":
        act["targets"] = ["zergling-1"]
    else:
        act["to"] = [12.5, 4.0]
    rounds = [{"round": 1, "red": {phase: [act]}}]
    if not refused:
        scn = build(skirmish("headings", rounds=rounds))
        assert scn.plan[0].headings == value
        return
    with pytest.raises(ScenarioError) as exc:
        build(skirmish("headings", rounds=rounds))
    want = f"rounds[0].red.{phase}[0].headings: got {value}; allowed only on move, run"
    assert want in str(exc.value) and "one of 4, 8, 16, 32" in str(exc.value)


def test_the_automatic_players_moves_carry_headings() -> None:
    """The menus' Move and Run entries carry ``headings`` (menu.HEADINGS), their activations too, and a trace writes
    it (so a traced game replays the same formations); the others carry none."""
    scn = build(skirmish("headings"))
    from mathhammer.scenario.world import World

    menus = menu.build_menus(scn, World(scn))
    m = menus["marine-1"]
    for phase in ("movement", "assault"):
        for e in m[phase]:
            assert e.headings == (menu.HEADINGS if e.action in ("move", "run") else None), e
    mv = next(e for e in m["movement"] if e.action == "move")
    act = mv.activation("marine-1", "red", 1, "movement")
    assert act.headings == menu.HEADINGS and entry(act, 3)["headings"] == menu.HEADINGS
    dep = next(e for e in m["movement"] if e.action == "deploy")
    assert "headings" not in entry(dep.activation("marine-1", "red", 1, "movement"), 3)
