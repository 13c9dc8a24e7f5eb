"""Raptor Strain (Raptor and Kerrigan Swarm Raptor Zerglings; issue 6, point 3): "This Unit can move through
IMPASSABLE TERRAIN of Size 4 or less and change elevation without using ACCESS POINTS."

IMPASSABLE TERRAIN (part 11): "A terrain piece is Impassable if it has no Access Point connecting it to an adjacent
elevation level". Read: such a piece of Size 4 or less is no obstacle to the Charge path (8.7.7 step 2) or the Close
Ranks move; the Leading Model still cannot end over it (8.5.3). The unit changes level anywhere on a piece's edge,
the climb counted as through an ACCESS POINT (8.5.3 "Measure the actual path travelled").
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.board import Board, Model, Terrain, Unit
from mathhammer.board.charge import charge_distance
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import mobility
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies
from .test_scenario_charge_abilities import assert_share

INCH = 25.4


def _wall(size: int, access: bool = False) -> Terrain:
    aps = (((15.0, 8.0),),) if access else ()
    return Terrain("wall", ((14.0, 8.0), (16.0, 8.0), (16.0, 22.0), (14.0, 22.0)), size=size, access_points=aps)


def _board(wall: Terrain) -> Board:
    z = Model("z", 10, 15, base_mm=INCH)
    m = Model("m", 20, 15, base_mm=INCH)
    return Board(36, 30, terrain=(wall,), units=(Unit("Z", "p1", (z,)), Unit("M", "p2", (m,))))


def test_the_card_data() -> None:
    """Both Raptor cards carry the two effects (the card text above)."""
    roster = load_roster()
    for name in ("Raptor (Zergling)", "Kerrigan Swarm Raptor (Zergling)"):
        ab = next(a for a in roster.units[name].card.abilities if a.name == "Raptor Strain")
        assert [(e.kind, e.value) for e in ab.effects] == [("move_through", 4), ("free_climb", 0)]


@pytest.mark.parametrize(("size", "access", "crossed"), [(3, False, True), (4, False, True), (5, False, False),
                                                         (3, True, False)])  # fmt: skip
def test_through_impassable_terrain_of_size_4_or_less(size: int, access: bool, crossed: bool) -> None:
    """A 14" wall between the charger and its target: a Size 3 or 4 piece without an ACCESS POINT (IMPASSABLE) is
    crossed in a straight line (10 - 2 x 0.5 - 1 = 8"); Size 5, or a piece with an ACCESS POINT (not IMPASSABLE),
    is gone round (much longer), as without Raptor Strain."""
    board = _board(_wall(size, access))
    plain = charge_distance(board, "z", ["M"])
    raptor = charge_distance(board, "z", ["M"], through=4)
    assert plain.length > 12
    if crossed:
        assert raptor.length == pytest.approx(8.0, abs=1e-6)
    else:
        assert raptor.length == pytest.approx(plain.length, abs=1e-9)


def test_changes_elevation_without_an_access_point() -> None:
    """A target on a 6" x 10" cliff (Size 3, height 3") whose only ACCESS POINT is on its far face: the plain
    charger walks round to it; with ``free_climb`` the Leading Model climbs the near face, the 3" climb counted."""
    cliff = Terrain(
        "cliff", ((14, 10), (20, 10), (20, 20), (14, 20)), size=3, surface=True, access_points=(((20, 15),),),
        height=3.0,
    )  # fmt: skip
    z = Model("z", 10, 15, base_mm=INCH)
    m = Model("m", 16, 15, base_mm=INCH, stands_on="cliff")
    board = Board(36, 30, terrain=(cliff,), units=(Unit("Z", "p1", (z,)), Unit("M", "p2", (m,))))
    plain = charge_distance(board, "z", ["M"])
    free = charge_distance(board, "z", ["M"], free_climb=True)
    assert plain.climb == 3.0 and free.climb == 3.0
    assert free.levels[-1] == "cliff"
    # straight on: from x = 10 to 2" of the Marine's centre (x = 14, the cliff's edge), 4" + the climb
    assert free.length == pytest.approx(4.0 + 3.0, abs=0.05)
    assert plain.length > free.length + 8


RAPTORS = army("Kerrigan's Swarm", ("Zergling", 12), ("Raptor (Zergling)", 12))
RED = army("Terran Armed Forces", ("Marine", 6))
WALL = {"id": "wall", "footprint": [[10, 17], [26, 17], [26, 19], [10, 19]], "size": 3}


def scenario(tmp_path: Path, charger: str) -> Scenario:
    """The Marines walk to (18, 12); ``charger`` (the Zerglings or the Raptors) to (18, 23), a 16" Size 3 wall
    without an ACCESS POINT between them; in Round 3 it charges the Marines. 8.5.5: the 32 mm bases Deploy 3.3" from
    their Entry Edges (within Speed 4"), so the Marines Move the last 0.7" in Round 3's Movement Phase."""
    rounds = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": charger, "action": "deploy", "to": [18, 32.7]}],
                  "assault": [{"unit": charger, "action": "run", "to": [18, 28.7]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}]},
         "blue": {"movement": [{"unit": charger, "action": "move", "to": [18, 24.7]}]}},
        {"round": 3,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": charger, "action": "move", "to": [18, 23]}],
                  "assault": [{"unit": charger, "action": "charge", "targets": ["marine-1"]}]}},
    ]  # fmt: skip
    data = skirmish("raptor", armies=write_armies(tmp_path, RED, RAPTORS), rounds=rounds, terrain=[WALL])
    return build(data, "raptor.toml")


def _lengths(scn: Scenario, charger: str) -> tuple[float, float]:
    """The Charge Distance needed from the plan's spots (every game alike), and on the same board without the wall."""
    sim = Simulation(scn, 1, seed=3)
    for rnd in (1, 2, 3):
        sim.round = rnd
        for phase in ("movement", "assault", "combat") if rnd < 3 else ("movement",):
            sim.first[:] = 0
            sim.play_phase(rnd, phase, np.arange(1))
    pos, alive = tuple(int(p) for p in sim.pos[:, 0]), tuple(int(a) for a in sim.alive[:, 0])
    board = sim.world.board_for(pos, alive)
    bare = Board(board.width, board.depth, units=board.units)
    return sim.world.charge_length(pos, alive, charger, ("marine-1",))[0], sim.world._search(
        bare, charger, ("marine-1",), None
    ).length  # the World's search (compiled on one level) on the board without the wall


def test_the_raptors_charge_over_the_wall(tmp_path: Path) -> None:
    """The Raptors' Charge crosses the wall (the straight distance); the Zerglings' would go round it, out of reach. In
    3,000 games the share of Charge Rolls too short (Speed + 1D6: Zerglings 4, Raptors 5; no ability used) is within
    5 SE of (ceil(L - Speed) - 1) / 6 for each."""
    raptors, lings = scenario(tmp_path, "raptor-1"), scenario(tmp_path, "zergling-1")
    assert errors(raptors) == []
    said = errors(lings)  # round the 16" wall: out of reach
    assert len(said) == 1 and 'cannot reach: needs 18.3", at most Speed 4 + 6 (8.7.7)' in said[0], said
    su = raptors.units["raptor-1"]
    assert mobility(su) == (4, True) and mobility(lings.units["zergling-1"]) == (0, False)
    over, open_table = _lengths(raptors, "raptor-1")
    round_, _ = _lengths(lings, "zergling-1")
    assert over == pytest.approx(open_table, abs=1e-9) and round_ > over + 10
    n = 3000
    for scn, length, speed in ((raptors, over, 5), (lings, round_, 4)):
        need = math.ceil(length - speed - 1e-9)
        sim = Simulation(scn, n, seed=9)
        sim.run()
        short = sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n
        assert_share(short, min(max(need - 1, 0), 6) / 6, n)


def test_scenario_check_lets_raptors_climb_anywhere(tmp_path: Path) -> None:
    """A move onto the top of a piece without an ACCESS POINT: the Zerglings have no way up (8.5.3); the Raptors
    climb its edge (3" + the 1" height + 0.5" on the top, within Speed 5)."""
    block = {"id": "block", "footprint": [[14, 18], [22, 18], [22, 24], [14, 24]], "size": 2, "surface": True,
             "height": 1}  # fmt: skip
    for unit, ok, run in (("zergling-1", False, 28), ("raptor-1", True, 27)):
        rounds = [
            {"round": 1, "blue": {"movement": [{"unit": unit, "action": "deploy", "to": [18, 32]}],
                                  "assault": [{"unit": unit, "action": "run", "to": [18, run]}]}},
            {"round": 2, "blue": {"movement": [{"unit": unit, "action": "move", "to": [18, 23.5], "on": "block"}]}},
        ]  # fmt: skip
        data = skirmish("raptor", armies=write_armies(tmp_path, RED, RAPTORS), rounds=rounds, terrain=[block])
        found = errors(build(data, "raptor.toml"))
        assert (found == []) == ok, found
        if not ok:
            assert any("no way from the playmat" in e for e in found), found


def test_close_ranks_through_the_wall(tmp_path: Path) -> None:
    """8.8.1 step 1 CLOSE RANKS: a unit Engaged by its Leading Model on the south side of a 1" Size 3 wall (no ACCESS
    POINT), eleven models north of it. The Raptors' models move through the wall: every one ends south of it; the
    Zerglings' way is blocked, and seven stay north. (Coherency Links still may not cross the wall, 4.4.)"""
    from mathhammer.scenario.world import Placement, World

    wall = {"id": "wall", "footprint": [[10, 17], [26, 17], [26, 18], [10, 18]], "size": 3}
    scn = build(skirmish("cr", armies=write_armies(tmp_path, RED, RAPTORS), rounds=[], terrain=[wall]), "cr.toml")
    w = World(scn)
    marines = ((22, 14.9), (20.6, 14.9), (23.4, 14.9), (21.3, 13.6), (22.7, 13.6), (24.8, 14.9))
    mar = w._intern(Placement("marine-1", marines))
    rows = [(x, 18.8) for x in (19.0, 20.3, 21.6, 22.9, 24.2)] + [
        (x, 20.1) for x in (19.0, 20.3, 21.6, 22.9, 24.2, 25.5)
    ]
    north = {}
    for uid in ("raptor-1", "zergling-1"):
        pid = w._intern(Placement(uid, ((22.0, 16.2), *rows)))  # the Leading Model 0.04" from the Marines
        new = w.placements[w.close_ranks(pid, 12, ((mar, 6),), ())].centres
        north[uid] = sum(1 for _, y in new if y > 18)
    assert north == {"raptor-1": 0, "zergling-1": 7}
