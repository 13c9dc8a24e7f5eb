"""GRASS removed per game, read by the Charge, Close Ranks, the Fight and an ability's selection (part 11 GRASS;
7.2.1, 8.7.7, 8.8.1, 10.1; issue 26 point 5).

Part 11 GRASS: "Grass does not block movement but does block Line of Sight ... [it] is immediately removed from the
game"; 7.2.1: "Size 2+ terrain: Models cannot Engage through it" (Grass is Size 2 while it stands). So once a game's
Grass is removed, a Charge may end short of where the Grass stood and still Engage across it, a unit less than 1"
from an enemy across it is Engaged (it cannot Charge, it Closes Ranks and Fights), and an ability's Line of Sight
passes. Each test sets a small board by hand (the Grass band of :mod:`tests.test_scenario_grass`, y 19.9-20.1
across the table) in a few games, with the Grass removed in some of them (``sim.grass.gone``), and reads the
Simulation's own step there: the games without the Grass must answer as the bare board does, the others as the
board with it.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario.cards.selected import Selected
from mathhammer.scenario.check.walk import PlanCheck
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Scenario

from . import test_scenario_grass as tgrass
from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies
from .test_scenario_grass import BLUE, GRASS, RED

#: Kerrigan (Crushing Grip: "Select one Enemy Unit Within 12" ...", Line of Sight needed, 10.1) and the Zerglings
ZERG = army("Kerrigan's Swarm", ("Kerrigan", 1), ("Zergling", 12))
GRIP = "Crushing Grip"
GAMES = np.arange(8)
GONE = [1, 3, 5, 7]  # the games where the Grass band was removed


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("grass2"), RED, BLUE)


def scenario(armies: dict[str, str], rounds: list[dict] | None = None, **over: object) -> Scenario:
    return build(skirmish("grass2", armies=armies, rounds=rounds or [], terrain=[GRASS], **over), "grass2.toml")


def board(scn: Scenario, at: dict[str, tuple[float, float]], games: int = 8) -> Simulation:
    """A Simulation of ``games`` games with the units of ``at`` set there (Leading Model; facing north for red,
    south for blue), every model whole, the others off the table; the Grass removed in the games :data:`GONE`."""
    sim = Simulation(scn, games, seed=5)
    w = sim.world
    for uid, lead in at.items():
        su = scn.units[uid]
        pid = w.place(su, lead, (0.0, -1.0) if su.player == "red" else (0.0, 1.0), ())
        assert pid is not None, uid
        sim.set_pos(w.uids.index(uid), np.arange(games), pid)
    sim.grass.gone[[g for g in GONE if g < games]] = 1
    return sim


def charge_act(scn: Scenario) -> Activation:
    return next(a for a in scn.plan if a.action == "charge")


def charge_plan(target: str) -> list[dict]:
    """A plan holding one Charge of marine-1 at ``target`` (the tests call the Simulation's Charge with it)."""
    return [{"round": 1, "red": {"assault": [{"unit": "marine-1", "action": "charge", "targets": [target]}]}}]


def test_a_charge_ends_engaged_across_removed_grass_only(armies: dict[str, str]) -> None:
    """8.7.7 step 3 (the end "Within the Engagement Range (1") of every declared Charge target"; Engaged, 7.2.1) and
    part 11 GRASS: the Marines' Leading Model at (18, 13.6), roach-1's at (18, 21.1) north of the band. While the Grass
    stands, the Leading Model must end with part of its base past the band (a 5.9" path) to Engage through it;
    where it is gone, Within 1" of the Roach is enough (4.9"). With a Charge Roll of 1 (Speed 4 + 1 = 5") the Charge
    succeeds exactly in the games without the Grass."""
    scn = scenario(armies, charge_plan("roach-1"))
    sim = board(scn, {"marine-1": (18.0, 13.6), "roach-1": (18.0, 21.1)})
    m, r = sim.uids.index("marine-1"), sim.uids.index("roach-1")
    assert sim.units[m].speed == 4
    pos = tuple(int(p) for p in sim.pos[:, 0])
    alive = tuple(int(k) for k in sim.alive[:, 0])
    standing, bare = (
        sim.world.charge_length(pos, alive, "marine-1", ("roach-1",))[0],
        sim.grass.worlds.world_for(1).charge_length(pos, alive, "marine-1", ("roach-1",))[0],
    )
    assert bare < 5.0 < standing < 6.0, (bare, standing)
    rolls = np.ones(sim.T, dtype=np.int64)
    done = sim._charge_games(m, charge_act(scn), GAMES, [r], rolls, np.zeros(sim.T, dtype=np.int64), None, 11)
    assert done.tolist() == GONE
    ends = {g: round(sim.world.placements[int(sim.pos[m, g])].centres[0][1], 2) for g in GAMES.tolist()}
    assert all(ends[g] < 19.0 for g in GONE) and all(ends[g] == 13.6 for g in (0, 2, 4, 6)), ends
    assert sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) == 4


def test_a_unit_engaged_across_removed_grass_cannot_charge(armies: dict[str, str]) -> None:
    """8.7.7 ("An Unengaged Ground Unit" Charges) and 7.2.1 / part 11 GRASS: the Marines at (18, 18), roach-1 less than
    1" away across the band: not Engaged while the Grass stands (the Charge at roach-2 goes ahead), Engaged where it
    is gone (the Charge is refused there)."""
    scn = scenario(armies, charge_plan("roach-2"))
    sim = board(scn, {"marine-1": (18.0, 18.0), "roach-1": (18.0, 21.1), "roach-2": (24.0, 16.0)})
    m, z = sim.uids.index("marine-1"), sim.uids.index("roach-2")
    assert sim.engaged_mask(GAMES, m).tolist() == [g in GONE for g in GAMES.tolist()]
    rolls = np.full(sim.T, 6, dtype=np.int64)
    done = sim._charge_games(m, charge_act(scn), GAMES, [z], rolls, np.zeros(sim.T, dtype=np.int64), None, 11)
    assert done.tolist() == [0, 2, 4, 6]
    assert sum(v for k, v in sim.skipped.items() if "the unit is Engaged: it cannot Charge" in k) == 4


def test_close_ranks_across_removed_grass(armies: dict[str, str]) -> None:
    """8.8.1 step 1 CLOSE RANKS ("An Engaged Ground Unit"; "Models cannot use this move to Disengage") and part 11
    GRASS: the Marines Engaged with roach-1 across where the band stood press in, in the games without the Grass
    (their Engagement before and after the move read on that board); where the Grass stands they are not Engaged and
    stay."""
    sim = board(scenario(armies), {"marine-1": (18.0, 18.0), "roach-1": (18.0, 21.1)})
    m = sim.uids.index("marine-1")
    before = int(sim.pos[m, 0])
    sim.close_ranks(m, GAMES)
    moved = [g for g in GAMES.tolist() if int(sim.pos[m, g]) != before]
    assert moved == GONE
    assert sim.engaged_mask(GAMES, m).tolist() == [g in GONE for g in GAMES.tolist()]


def test_the_fighting_ranks_across_removed_grass(armies: dict[str, str]) -> None:
    """8.8.1 step 2 (the Fighting Rank: the models Engaged with an enemy model; 7.2.1 through Size 2 terrain) and
    part 11 GRASS, Close Ranks off (``[policy] close_ranks = "never"``): the Marines strike roach-1 only in the games
    without the Grass, with the models Engaged across where it stood; where it stands none fights."""
    scn = scenario(armies, policy={"close_ranks": "never"})
    sim = board(scn, {"marine-1": (18.0, 18.0), "roach-1": (18.0, 21.1)})
    m = sim.uids.index("marine-1")
    struck: dict[int, int] = {}

    def strike(u: int, mask: int, foes: list[int], left: tuple[int, ...], n: int, split: str, ts2, stream) -> None:
        struck.update(dict.fromkeys(ts2.tolist(), n))

    sim._strike = strike  # type: ignore[method-assign]
    sim.fight(m, ("roach-1",), GAMES, 7)
    assert sorted(struck) == GONE and min(struck.values()) >= 1, struck
    bare = sim.grass.worlds.world_for(1)
    pos = tuple(int(p) for p in sim.pos[:, 1])
    alive = tuple(int(k) for k in sim.alive[:, 1])
    assert bare.strikers(pos, alive, "marine-1") == struck[1] and sim.world.strikers(pos, alive, "marine-1") == 0


def test_crushing_grip_line_of_sight_across_removed_grass(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """10.1 ("The target is in range and in Line of Sight") and part 11 GRASS ("does block Line of Sight" while it
    stands): Kerrigan at (12, 24) selects marine-1 at (18, 16), Within 12", across the band: Crushing Grip ("That Unit
    counts as Activated in this Phase") resolves in the games without the Grass only; the others are reported."""
    paths = write_armies(tmp_path, RED, ZERG)
    use = {"unit": "kerrigan-1", "action": "hold", "use": [GRIP], "select": {GRIP: "marine-1"}}
    scn = scenario(paths, [{"round": 1, "blue": {"movement": [use]}}])
    sim = board(scn, {"marine-1": (18.0, 16.0), "kerrigan-1": (12.0, 24.0)})
    k, m = sim.uids.index("kerrigan-1"), sim.uids.index("marine-1")
    pk, pm = int(sim.pos[k, 0]), int(sim.pos[m, 0])
    assert sim.world.within(pk, 1, pm, 6, 12) and not sim.world.in_sight(pk, 1, pm, 6)
    assert sim.grass.worlds.world_for(1).in_sight(pk, 1, pm, 6)
    act = next(a for a in scn.plan if a.use)
    sim.round, sim.phase = 1, "movement"
    for select in sim.cards.select:
        select(k, act, GAMES)
    gripped = next(c for c in sim.cards if isinstance(c, Selected)).gripped  # the card's state (cards/selected.py)
    assert np.flatnonzero(gripped[m]).tolist() == GONE
    assert sum(v for key, v in sim.skipped.items() if "'Crushing Grip' not resolved" in key) == 4


def charge_rounds(cross: bool) -> list[dict]:
    """The Marines to (18, 8.6) and roach-1 to (18, 21.1), north of the band, by Round 2 (as in
    :mod:`tests.test_scenario_grass`); with ``cross``, roach-2 Moves across the band at x = 30 in Round 3's Movement
    Phase. The Marines Charge roach-1 in Round 3's Assault Phase."""
    rounds = tgrass.plan(cross)[:3]
    rounds[1]["red"] = {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8.6]}]}
    rounds[2]["red"] = {"assault": [{"unit": "marine-1", "action": "charge", "targets": ["roach-1"]}]}
    for step in rounds[1]["blue"]["assault"]:  # roach-1 Runs on from (18, 25) to (18, 21.1), 3.9" (not to (18, 24))
        if step["unit"] == "roach-1":
            step["to"] = [18, 21.1]
    return rounds


def test_scenario_check_charges_on_the_board_without_the_removed_grass(armies: dict[str, str]) -> None:
    """``scenario check`` walks the plan on the board without the pieces the plan removed so far (part 11 GRASS,
    :class:`~mathhammer.scenario.grass.Tracker`), for a Charge too (8.7.7 with 7.2.1): from (18, 8.6) the Marines need
    a 10.9" path to Engage roach-1 through the standing band, more than Speed 4 + 6 (refused), and 9.9" once roach-2's
    Move has crossed it (accepted)."""
    said = errors(scenario(armies, charge_rounds(cross=False)))
    assert len(said) == 1 and 'cannot reach: needs 10.9"' in said[0] and "(8.7.7)" in said[0], said
    walk = PlanCheck(scenario(armies, charge_rounds(cross=True)))
    assert walk.run() == []
    assert walk.grass.mask == 1 and walk.world.board.terrain == ()
