"""8.5.4 Disengage (issue 26, point 5): models that cannot end outside the Engagement Range are Destroyed; the
Disengage fails where the Leading Model cannot.

8.5.4: "Move it following the standard Move rules (Part 8.5.3). Any individual model that cannot end its movement
strictly outside the Engagement Range of all Enemy Units is immediately removed and considered Destroyed. Other models
in the Unit that successfully clear the Engagement Range remain unaffected ... If the Leading Model itself cannot end
its movement outside the Engagement Range of all Enemy Units, the Disengage fails. The Unit does not move, the Leading
Model is removed, and the Unit's activation ends." Each game reads its own board (the enemies stand differently from
game to game).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario import disengage
from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import Placement

from .scenario_kit import army, build, skirmish
from .test_scenario_abilities import write_armies

ROACHES = army("Kerrigan's Swarm", ("Roach", 3))
MARINES = army("Terran Armed Forces", ("Marine", 6))
N = 12
HALF = N // 2
START = (18.0, 14.0)  # the Roaches' Leading Model; the others are set north of it
POCKET = (26.0, 24.0)  # a destination ringed by Marines: room for the Leading Model alone outside 1"


def scenario(tmp_path: Path, to: tuple[float, float]) -> Scenario:
    armies = write_armies(tmp_path, MARINES, ROACHES)
    plan = {"round": 1, "blue": {"movement": [{"unit": "roach-1", "action": "disengage", "to": list(to)}]}}
    return build(skirmish("disengage", armies=armies, rounds=[plan], first_player="blue"), "disengage.toml")


def radii(scn: Scenario) -> tuple[float, float]:
    return (scn.units["roach-1"].base_mm / MM_PER_INCH / 2, scn.units["marine-1"].base_mm / MM_PER_INCH / 2)


def marines_ringing(scn: Scenario, centre: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """One Marine 2" south of the Roaches' Leading Model (Engaged with it), five in a ring around ``centre`` at
    1.3" plus both radii (the Leading Model's base there is 1.3" from each, outside the Engagement Range)."""
    rr, rm = radii(scn)
    d = rr + rm + 1.3
    ring = tuple(
        (centre[0] + d * math.cos(2 * math.pi * i / 5), centre[1] + d * math.sin(2 * math.pi * i / 5)) for i in range(5)
    )
    return ((START[0], START[1] - 2.0), *ring)


def sim_with(scn: Scenario, marines: list[tuple[tuple[float, float], ...]]) -> Simulation:
    """The games with the Roaches at START and the Marines at ``marines[0]`` in the first half of the games,
    ``marines[-1]`` in the second (set directly: Within 1" of the Roaches, Engaged)."""
    sim = Simulation(scn, N, seed=2)
    missions.setup(sim)
    world = sim.world
    pid = world.place(scn.units["roach-1"], START, (0, 1), ())
    assert pid is not None
    ids = []
    for centres in marines:
        world.placements.append(Placement("marine-1", centres))
        ids.append(len(world.placements) - 1)
    r, m = sim.uids.index("roach-1"), sim.uids.index("marine-1")
    sim.pos[r] = pid
    sim.pos[m, :HALF] = ids[0]
    sim.pos[m, HALF:] = ids[-1]
    sim.sync_board()
    assert sim.engaged_mask(np.arange(N), r).all()
    return sim


def play(sim: Simulation) -> None:
    sim.round = 1
    sim.acted[:] = False
    for act in sim.scn.activations(1, "movement", "blue"):
        sim.activate(act, np.arange(N))


def skipped(sim: Simulation, reason: str) -> int:
    return sum(v for k, v in sim.skipped.items() if k.endswith(reason))


def test_the_leading_model_within_engagement_range_fails_the_disengage(tmp_path: Path) -> None:
    """8.5.4 "If the Leading Model itself cannot end its movement outside the Engagement Range of all Enemy Units,
    the Disengage fails. The Unit does not move, the Leading Model is removed": the destination 6" north; in the first
    half of the games a Marine stands 0.5" from it (the Disengage fails: the Roaches stay, 2 models left), in the
    second half none does (the Roaches are set there, all 3)."""
    to = (18.0, 20.0)
    scn = scenario(tmp_path, to)
    rr, rm = radii(scn)
    south = [(START[0] + 1.1 * i, START[1] - 2.0) for i in range(6)]  # a row 2" south: Engaged with the Roaches
    near = (to[0] + rr + rm + 0.5, to[1])  # a Marine 0.5" from the destination's base
    sim = sim_with(scn, [(*south[:5], near), tuple(south)])
    r = sim.uids.index("roach-1")
    before = sim.pos[r].copy()
    play(sim)
    assert sim.alive[r].tolist() == [2] * HALF + [3] * HALF
    for g in range(HALF):  # "The Unit does not move": the two models left stand where they stood, the other removed
        assert sim.world.placements[int(sim.pos[r, g])].centres == sim.world.placements[int(before[g])].centres[:2]
    assert (sim.pos[r, HALF:] != before[HALF:]).all()
    assert sim.world.placements[int(sim.pos[r, N - 1])].centres[0] == to
    assert skipped(sim, disengage.FAILED) == HALF
    assert skipped(sim, disengage.LOST) == 0


def test_models_that_cannot_clear_the_engagement_range_are_destroyed(tmp_path: Path) -> None:
    """8.5.4 "Any individual model that cannot end its movement strictly outside the Engagement Range of all Enemy
    Units is immediately removed and considered Destroyed. Other models ... remain unaffected": at POCKET, ringed by
    five Marines 1.3" from the Leading Model's base, there is room for the three Roaches' bases but only the Leading
    Model's spot is outside 1" of every Marine: 2 Roaches are Destroyed, the Leading Model stands there (first half).
    With the Marines elsewhere (second half) all three are set, none lost."""
    scn = scenario(tmp_path, POCKET)
    far = tuple((START[0] + 1.1 * i, START[1] - 2.0) for i in range(6))
    sim = sim_with(scn, [marines_ringing(scn, POCKET), far])
    r = sim.uids.index("roach-1")
    sim.current_supply(out=sim.ref_supply)  # the Round's reference: Supply destroyed is read against it
    play(sim)
    assert sim.alive[r].tolist() == [1] * HALF + [3] * HALF
    assert (sim.pos[r] >= 0).all()
    for g in (0, N - 1):
        placement = sim.world.placements[int(sim.pos[r, g])]
        assert placement.centres[0] == POCKET
        rr, rm = radii(scn)
        marines = sim.world.placements[int(sim.pos[sim.uids.index("marine-1"), g])].centres
        gaps = [math.dist(c, m) - rr - rm for c in placement.centres[: sim.alive[r, g]] for m in marines]
        assert min(gaps) > ENGAGEMENT_RANGE  # every model left stands strictly outside the Engagement Range
    assert skipped(sim, disengage.LOST) == HALF
    assert skipped(sim, disengage.FAILED) == 0
    # the Roaches' Supply lost is scored for red as any Supply destroyed ("VPs equal to Enemy Supply destroyed")
    lost = sim.ref_supply[r] - sim.supply(r, sim.alive[r])
    red = missions._destroyed_supply(sim, np.arange(N))[0]
    assert red.tolist() == lost.tolist()
    assert (lost[:HALF] > 0).all() and (lost[HALF:] == 0).all()


def test_the_pocket_is_room_enough_when_the_engagement_range_is_ignored(tmp_path: Path) -> None:
    """The geometry the previous test reads (:func:`disengage.clear_spots`): with the five Marines around POCKET, all
    three Roaches fit when only overlapping bases are refused, one when Within 1" of a Marine is refused too."""
    scn = scenario(tmp_path, POCKET)
    sim = sim_with(scn, [marines_ringing(scn, POCKET)])
    _, rm = radii(scn)
    others = [(c, rm, True) for c in marines_ringing(scn, POCKET)]
    su = scn.units["roach-1"]
    assert len(disengage.clear_spots(sim.world, su, POCKET, (0, 1), others, 3, enemy_free=False)) == 3
    assert len(disengage.clear_spots(sim.world, su, POCKET, (0, 1), others, 3, enemy_free=True)) == 1
