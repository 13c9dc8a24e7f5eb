"""GRASS destroyed by the passage of war (part 11 GRASS; 8.5.3 TERRAIN INTERACTIONS; issue 26 point 5).

Part 11 GRASS: "Grass does not block movement but does block Line of Sight ... If a Leading Model's path of travel
passes through or any model of a Unit ends on a Grass terrain piece during any movement action (Move, Deploy, Run,
Charge, Disengage or Close Ranks), that Grass terrain piece is immediately removed from the game. It does not return
during Cleanup & Refresh ... A Flying Unit moving over Grass does not destroy the Grass terrain piece ... If any model
of a Flying Unit ends on a Grass terrain piece, it is removed as normal." (``mathhammer/scenario/grass.py``)

The board: a Grass band across the table (y 20.5-22) between the Marines at (18, 12) and the Roaches at (18, 24),
so the Marines' Ranged Attack is blocked (Line of Sight, 7.1) while the Grass stands.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mathhammer.scenario import mission as missions
from mathhammer.scenario.check.walk import PlanCheck
from mathhammer.scenario.grass import Grass, Worlds
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import World

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6))
BLUE = army("Kerrigan's Swarm", ("Roach", 3), ("Roach", 3))
#: a thin Grass band across the table, between the Marines (18, 12) and the Roaches of roach-1 (18, 24); roach-2 crosses
#: it from (30, 21.1) to (30, 17.1) (its models set beside and behind the Leading Model end clear of it)
BAND = [[0, 19.9], [36, 19.9], [36, 20.1], [0, 20.1]]
GRASS = {"id": "grass", "footprint": BAND, "size": 2, "grass": True}
#: a Size 2 wall where the Grass is: roach-2 cannot move through it (8.5.3)
WALL = {"id": "grass", "footprint": BAND, "size": 2}
SHOT = "rounds[2].red.assault[0]: C-14 Rifle: no planned target it may shoot"
AGAIN = "rounds[3].red.assault[0]: C-14 Rifle: no planned target it may shoot"


def plan(cross: bool) -> list[dict]:
    """Marines to (18, 12), roach-1 to (18, 24), roach-2 to (30, 21.1) by Round 2; with ``cross``, roach-2 Moves south
    across the Grass to (30, 17.1) in Round 3's Movement Phase (its path passes through it, no model ends on it). The
    Marines shoot roach-1 in the Assault Phases of Rounds 3 and 4. 8.5.5: the Marines Deploy 3.3" and roach-1 3" from
    their Entry Edges (bases within Speed 4"), each Running the 0.7" / 1" on in Round 2's Assault Phase, so both end
    where they did."""
    shoot = {"assault": [{"unit": "marine-1", "action": "shoot", "targets": ["roach-1"]}]}
    r3: dict = {"round": 3, "red": shoot}
    if cross:
        r3["blue"] = {"movement": [{"unit": "roach-2", "action": "move", "to": [30, 17.1]}]}
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]},
                               {"unit": "roach-2", "action": "deploy", "to": [30, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]},
                              {"unit": "roach-2", "action": "run", "to": [30, 29.1]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]},
                               {"unit": "roach-2", "action": "move", "to": [30, 25.1]}],
                  "assault": [{"unit": "roach-2", "action": "run", "to": [30, 21.1]},
                              {"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        r3,
        {"round": 4, "red": shoot},
    ]  # fmt: skip


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("grass"), RED, BLUE)


def scenario(armies: dict[str, str], cross: bool, piece: dict = GRASS):
    return build(skirmish("grass", armies=armies, rounds=plan(cross), terrain=[piece]), "grass.toml")


def played(armies: dict[str, str], cross: bool) -> Simulation:
    sim = Simulation(scenario(armies, cross), 16, seed=3)
    sim.run()
    return sim


def test_grass_blocks_line_of_sight_until_a_unit_moves_through_it(armies: dict[str, str]) -> None:
    """Part 11 GRASS: "does block Line of Sight": no game's shot while it stands; roach-2's Move across it
    ("a Leading Model's path of travel passes through") removes it, and the Marines shoot in every game, in Round 3
    and again in Round 4 ("It does not return during Cleanup & Refresh")."""
    still = played(armies, cross=False)
    assert still.skipped.get(SHOT) == 16 and still.skipped.get(AGAIN) == 16
    assert not still.grass.gone.any()
    gone = played(armies, cross=True)
    assert SHOT not in gone.skipped and AGAIN not in gone.skipped, gone.skipped
    assert (gone.grass.gone == 1).all()
    assert (gone.alive[gone.uids.index("roach-1")] < 3).any()  # the shots were resolved


def test_scenario_check_sees_the_grass_gone(armies: dict[str, str]) -> None:
    """``scenario check`` walks the plan as the simulation does (8.7.3 target eligibility after part 11 GRASS):
    the shot is refused while the Grass stands, allowed once the planned Move crossed it."""
    said = errors(scenario(armies, cross=False))
    assert len(said) == 2 and all("no planned target can be shot" in s for s in said), said
    assert errors(scenario(armies, cross=True)) == []


def test_a_wall_is_not_grass(armies: dict[str, str]) -> None:
    """8.5.3: a Size 2 piece without GRASS "cannot move through" and stays: the shot stays blocked (so the test above
    passes because the piece is Grass)."""
    said = errors(scenario(armies, cross=True, piece=WALL))
    assert any("no planned target can be shot" in s for s in said), said


def test_ending_on_grass_and_flying_over_it(armies: dict[str, str]) -> None:
    """Part 11 GRASS: a model that "ends on a Grass terrain piece" removes it; "A Flying Unit moving over Grass does
    not destroy the Grass terrain piece" (its path does not count), but "If any model of a Flying Unit ends on a
    Grass terrain piece, it is removed as normal". No Flying card of the roster Moves (the one Flying card is a
    Structure), so this reads :class:`~mathhammer.scenario.grass.Grass` on the scenario's placements."""
    scn = scenario(armies, cross=False)
    world = World(scn)
    su = scn.units["roach-2"]
    north = world.place(su, (30.0, 21.1), (0.0, 1.0), ())
    south = world.place(su, (30.0, 17.1), (0.0, 1.0), ())
    on_it = world.place(su, (30.0, 20.0), (0.0, 1.0), ())  # a model may end on Grass: it blocks no movement
    assert None not in (north, south, on_it)
    assert north is not None and south is not None and on_it is not None
    worlds = Worlds(world)
    assert worlds.removed_by(north, south, 3, None, path=True) == 1  # the path passes through it
    assert worlds.removed_by(north, south, 3, None, path=False) == 0  # a Flying unit passes above it
    assert worlds.removed_by(north, on_it, 3, None, path=False) == 1  # ends on it, Flying or not
    assert worlds.removed_by(north, north, 3, None, path=True) == 0
    # per game: the games where the unit moved, and only those
    grass = Grass(SimpleNamespace(world=world, T=4))  # type: ignore[arg-type]
    pos = np.full((len(world.uids), 4), -1, dtype=np.int64)
    alive = np.full((len(world.uids), 4), 3, dtype=np.int64)
    z = world.uids.index("roach-2")
    pos[z] = north
    before = grass.start(pos, z, np.arange(4))
    pos[z, [1, 3]] = [south, on_it]
    grass.end(pos, alive, z, before, None, flying=True)  # Flying (ends only)
    assert grass.gone.tolist() == [0, 0, 0, 1]


def test_the_board_without_the_removed_grass(armies: dict[str, str]) -> None:
    """The World a game reads once its Grass is gone: the same placements (ids), the board without the piece; mask
    0 is the scenario's own World (a board without Grass pays nothing)."""
    world = World(scn := scenario(armies, cross=False))
    worlds = Worlds(world)
    assert worlds.world_for(0) is world
    bare = worlds.world_for(1)
    assert bare is worlds.world_for(1) and [t.id for t in bare.board.terrain] == []
    assert bare.placements is world.placements and [t.id for t in world.board.terrain] == ["grass"]
    assert not Simulation(build(skirmish("bare", armies=armies, rounds=[]), "b.toml"), 8, 1).grass.on
    assert scn.board.terrain[0].grass


def test_more_pieces_than_a_mask_holds_are_refused(tmp_path: Path, armies: dict[str, str]) -> None:
    """One bit per Grass piece of the board (an int64 per game): more than 62 pieces are refused, not misread."""
    pieces = [
        {"id": f"g{i}", "footprint": [[i * 0.5, 30], [i * 0.5 + 0.4, 30], [i * 0.5 + 0.4, 30.4], [i * 0.5, 30.4]]}
        | {"size": 2, "grass": True}
        for i in range(63)
    ]
    scn = build(skirmish("many", armies=armies, rounds=[], terrain=pieces), "m.toml")
    with pytest.raises(Exception, match="at most 62 GRASS"):
        Worlds(World(scn))


def test_derived_worlds_keep_their_terrain_answers_apart(armies: dict[str, str]) -> None:
    """Part 11 GRASS, the memo (issue 26 point 3: content-keyed): a World without the removed Grass answers Line of
    Sight in its own tables and under its own shared key (the mask), never from the scenario World's answer with the
    Grass standing; placement ids are shared (one id, one placement, in both)."""
    world = World(scenario(armies, cross=False))
    shared = world.memo.share(2)
    worlds = Worlds(world)
    bare = worlds.world_for(1)
    assert bare.memo.variant == ("grass", 1) and world.memo.variant is None
    assert bare.memo.shared is shared
    assert bare.memo.table("pid") is world.memo.table("pid") and bare._pid is world._pid
    assert bare.memo.table("facts") is not world.memo.table("facts") and bare._facts is bare.memo.table("facts")
    assert bare._pairs is not world._pairs and bare._blockers is not world._blockers
    # one worker publishes the answer read without the Grass; another reads it for that board only
    asked = ("sight", 1, 2)
    shared.start(0)
    assert bare.memo.ask(lambda: asked, lambda: "clear") == "clear"
    shared.start(1)
    assert world.memo.ask(lambda: asked, lambda: "blocked") == "blocked"  # not the Grass-less board's answer
    assert bare.memo.ask(lambda: asked, lambda: "unread") == "clear"
    marine, roach = (scn := world.scn).units["marine-1"], scn.units["roach-1"]
    pm = world.place(marine, (18.0, 12.0), (0.0, -1.0), ())
    pr = bare.place(roach, (18.0, 24.0), (0.0, 1.0), ())
    assert pm is not None and pr is not None and world.placements[pr] == bare.placements[pr]


def _across(armies: dict[str, str]) -> tuple[Simulation, int, int]:
    """4 games: the Marines' Leading Model at (18, 18) south of the Grass band, roach-1's at (18, 21.1) north of it
    (bases less than 1" apart, the band between), every model whole; the Grass removed in games 1 and 3."""
    scn = scenario(armies, cross=False)
    sim = Simulation(scn, 4, seed=1)
    w = sim.world
    m, r = w.uids.index("marine-1"), w.uids.index("roach-1")
    pm = w.place(scn.units["marine-1"], (18.0, 18.0), (0.0, -1.0), ())
    pr = w.place(scn.units["roach-1"], (18.0, 21.1), (0.0, 1.0), ())
    assert pm is not None and pr is not None
    sim.set_pos(m, np.arange(4), pm)
    sim.set_pos(r, np.arange(4), pr)
    sim.grass.gone[[1, 3]] = 1
    return sim, m, r


def test_engaged_across_removed_grass_only(armies: dict[str, str]) -> None:
    """7.2.1 ENGAGEMENT RANGE: "Size 2+ terrain: Models cannot Engage through it", and Grass is Size 2 terrain while
    it stands; part 11 GRASS: once a game's Grass is "removed from the game", the two units less than 1" apart across
    where it stood are Engaged in that game (and so Close Ranks and Fight read them Engaged there), not in the
    others."""
    sim, m, _ = _across(armies)
    games = np.arange(4)
    assert sim.engaged_mask(games, m).tolist() == [False, True, False, True]
    pairs = {tuple(ts.tolist()): ps for ts, ps in sim.engaged_with(games)}
    assert pairs == {(0, 2): frozenset(), (1, 3): frozenset({("marine-1", "roach-1"), ("roach-1", "marine-1")})}


def test_marker_contested_across_removed_grass_only(armies: dict[str, str]) -> None:
    """8.9.1: a model contests a Mission Marker Within 3" "and in Line of Sight" of it; part 11 GRASS "does block Line
    of Sight" while it stands. roach-1's models are Within 3" of marker 5 at (18, 18) across the band: it contests
    the marker in the games where the Grass is gone (1 and 3) only."""
    sim, _, r = _across(armies)
    five = sim.marker_numbers.index(5)
    out = missions.contest(sim, np.arange(4))
    assert out[r, five].tolist() == [False, True, False, True]
    assert missions.contest(sim, np.array([0, 2]))[r, five].tolist() == [False] * 4  # Grass standing: none


def test_scenario_check_reads_the_board_without_the_removed_grass(armies: dict[str, str]) -> None:
    """7.2.1 / part 11 GRASS in ``scenario check``: once the plan's Move has crossed the Grass, every later read of the
    walk (Engagement, Line of Sight) is on the board without it: the Marines and roach-1 less than 1" apart across
    where it stood read Engaged there, as in the simulation's games without it, and not on the scenario's board."""
    scn = scenario(armies, cross=True)
    walk = PlanCheck(scn)
    assert walk.run() == []
    assert walk.grass.mask == 1 and walk.world.board.terrain == ()
    w = walk.world  # its placements are the scenario World's (the same ids)
    pm = w.place(scn.units["marine-1"], (18.0, 18.0), (0.0, -1.0), ())
    pr = w.place(scn.units["roach-1"], (18.0, 21.1), (0.0, 1.0), ())
    assert pm is not None and pr is not None
    p_now = tuple(pm if u == "marine-1" else pr if u == "roach-1" else -1 for u in w.uids)
    a_now = tuple(scn.units[u].models for u in w.uids)
    pair = ("marine-1", "roach-1")
    assert pair in walk.world.engaged_pairs(p_now, a_now)
    assert pair not in walk.grass.worlds.base.engaged_pairs(p_now, a_now)
