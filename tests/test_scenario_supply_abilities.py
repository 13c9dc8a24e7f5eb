"""Abilities that change a unit's Supply for Mission Markers and Disengage checks (issue 6, point 3): the
``contest_supply`` and ``disengage_supply`` effects (Commander, Additional Supply Depots, Freedom Fighters),
read by 8.9.1 marker control and 8.5.4 Tactical Mass.

Each test sets the board by hand (as ``test_scenario.py``'s marker tests do): marine-1 beside marker 1 at
(9, 10), the Zerglings on its other side, both contesting it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import abilities
from mathhammer.scenario import mission as missions
from mathhammer.scenario.cards import supply as supply_cards
from mathhammer.scenario.sim import Simulation

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Jim Raynor", 1), tactical=("Supply Depot",))  # Hero +1
ZERG = army("Kerrigan's Swarm", ("Zergling", 18))
DEPOTS = "Additional Supply Depots"
DEPLOY = [
    {
        "round": 1,
        # 8.5.5: the bases within Speed 4 of the Entry Edges (32 mm: the centres 3.3" from them)
        "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
        "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [12, 32.7]}]},
    }
]


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("supply"), TERRAN, ZERG)


def board(armies: dict[str, str], trials: int, raynor: tuple[float, float] | None = None) -> Simulation:
    """marine-1 at (9, 11) and zergling-1 (18 models) at (9, 8) around marker 1 (9, 10); Jim Raynor at
    ``raynor``."""
    scn = build(skirmish("supply abilities", armies=armies, rounds=DEPLOY), "supply.toml")
    assert errors(scn) == []
    sim = Simulation(scn, trials, seed=3)
    missions.setup(sim)
    near_red = sim.world.place(scn.units["marine-1"], (9, 11), (0, -1), ())
    near_blue = sim.world.place(scn.units["zergling-1"], (9, 8), (0, 1), (near_red,), ("marine-1",))
    assert near_red is not None and near_blue is not None
    sim.pos[sim.uids.index("marine-1")] = near_red
    sim.pos[sim.uids.index("zergling-1")] = near_blue
    if raynor is not None:
        spot = sim.world.place(scn.units["jim-raynor-1"], raynor, (0, -1), (near_red, near_blue))
        assert spot is not None
        sim.pos[sim.uids.index("jim-raynor-1")] = spot
    sim.sync_board()
    return sim


def marker_1(sim: Simulation) -> int:
    return [m.number for m in sim.scn.deployment.markers].index(1)


def test_supply_effects_are_in_the_profiles(armies: dict[str, str]) -> None:
    """The card texts: Commander "Treat this Unit's Supply characteristic as increased by 1 for Controlling and
    Contesting Mission Markers, completing objectives, and resolving Disengage checks" (Jim Raynor, Kerrigan,
    Artanis); Supply Depot's Additional Supply Depots "improved by 1"; Freedom Fighters "cannot be reduced below
    1" for Friendly Units Within 8"."""
    scn = build(skirmish("supply abilities", armies=armies, rounds=DEPLOY), "supply.toml")
    for unit in ("Jim Raynor", "Kerrigan", "Artanis"):
        card = scn.roster.unit(unit).card
        (commander,) = [a for a in card.abilities if a.name == "Commander"]
        assert [(e.kind, e.value) for e in commander.effects] == [("contest_supply", 1), ("disengage_supply", 1)]
    raynor = scn.roster.unit("Jim Raynor").card
    (ff,) = [a for a in raynor.abilities if a.name == "Freedom Fighters"]
    assert [(e.kind, e.minimum, e.within) for e in ff.effects] == [("contest_supply", 1, 8)]
    (depots,) = scn.roster.card("Supply Depot").abilities
    assert [(e.kind, e.value) for e in depots.effects] == [("contest_supply", 1)]


def test_additional_supply_depots_breaks_a_tie(armies: dict[str, str]) -> None:
    """8.9.1 ("a tie never transfers") + Additional Supply Depots: Marines (6 models: Supply 1) and Zerglings (12:
    Supply 1) tie on marker 1 and nobody takes it; in the games where the Marines used the card this Round
    they count Supply 2 and red controls it."""
    sim = board(armies, 4)
    m = sim.uids.index("marine-1")
    sim.alive[sim.uids.index("zergling-1")] = 12
    bits = abilities.use_bits(sim, m, ["Additional Supply Depots"])
    assert bits
    sim.used[m, [1, 3]] |= bits
    missions.control(sim, np.arange(4))
    assert sim.control[marker_1(sim)].tolist() == [-1, 0, -1, 0]
    supply = supply_cards.contest_supply(sim, sim.current_supply(), np.arange(4))
    assert supply[m].tolist() == [1, 2, 1, 2]
    assert sim.current_supply()[m].tolist() == [1, 1, 1, 1]  # the Current Supply Value itself is unchanged


def test_freedom_fighters_keeps_friendly_supply_at_1(armies: dict[str, str]) -> None:
    """Freedom Fighters: 3 Marines (Supply 0) and 6 Zerglings (Supply 0) tie 0-0 on marker 1 where Jim Raynor is
    more than 8" away; Within 8" of him the Marines count 1 and red controls it. Raynor himself, not Within 3" of
    the marker, contests nothing (his Commander +1 is his own)."""
    far = board(armies, 2, raynor=(30, 4))
    near = board(armies, 2, raynor=(14, 4))
    got = []
    for sim in (far, near):
        m, z, r = (sim.uids.index(u) for u in ("marine-1", "zergling-1", "jim-raynor-1"))
        sim.alive[m] = 3
        sim.alive[z] = 6
        trials = np.arange(2)
        supply = supply_cards.contest_supply(sim, sim.current_supply(), trials)
        assert supply[r].tolist() == [2, 2]  # Commander: Supply 1 + 1
        assert supply[z].tolist() == [0, 0]  # an enemy unit is not lifted
        missions.control(sim, trials)
        got.append((supply[m].tolist(), sim.control[marker_1(sim)].tolist()))
    assert got == [([0, 0], [-1, -1]), ([1, 1], [0, 0])]


def test_commander_counts_for_tactical_mass(armies: dict[str, str]) -> None:
    """8.5.4 Tactical Mass ("Current Supply Value higher than the Combined Supply of the Enemy Units it was
    Engaged with") + Commander ("resolving Disengage checks"): Jim Raynor (Supply 1, counted 2) Disengages from
    12 Zerglings (Supply 1) with Tactical Mass; from 18 (Supply 2) without. The Zerglings Disengaging from him meet
    his 2 and get the penalty, also the 18 (Supply 2)."""
    sim = board(armies, 2)
    scn = sim.scn
    r, z, m = (sim.uids.index(u) for u in ("jim-raynor-1", "zergling-1", "marine-1"))
    sim.pos[m] = -1  # the Marines elsewhere: Raynor at (9, 11) stands where they stood
    raynor = sim.world.place(scn.units["jim-raynor-1"], (9, 11), (0, -1), ())
    zerg = sim.world.place(scn.units["zergling-1"], (9, 8), (0, 1), (raynor,), ("jim-raynor-1",))
    assert raynor is not None and zerg is not None
    sim.pos[r], sim.pos[z] = raynor, zerg
    sim.sync_board()
    sim.alive[z] = [12, 18]
    trials = np.arange(2)
    assert sim.engaged_mask(trials, r).all()
    sim._tactical_mass(r, trials)
    assert sim.penalty[r].tolist() == [False, True]
    sim._tactical_mass(z, trials)
    assert sim.penalty[z].tolist() == [True, True]  # 1 > 2 and 2 > 2 fail (without Commander 2 > 1 would pass)


def test_additional_supply_depots_is_no_longer_a_warning(armies: dict[str, str], tmp_path: Path) -> None:
    """A planned Additional Supply Depots checks clean: it has a modelled effect now."""
    rounds = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 3.3]}]},
            "blue": {},
        },
        {
            "round": 2,
            "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 7.3], "use": [DEPOTS]}]},
            "blue": {},
        },
    ]  # fmt: skip
    scn = build(skirmish("supply abilities", armies=armies, rounds=rounds), "supply.toml")
    assert errors(scn) == []
    assert not any("Additional Supply Depots" in w for w in warnings(scn)), warnings(scn)


def test_tactical_retreat_lifts_the_disengage_penalty(armies: dict[str, str]) -> None:
    """8.5.4: a unit that Disengages without Tactical Mass "cannot make a Ranged Attack or declare a Charge" in the
    following Assault Phase; Terran Armed Forces' Tactical Retreat: "The active Unit ignores the Disengage penalty
    for the remainder of the Round". The Marines (Supply 1) leave 18 Zerglings (Supply 2): barred, except in the
    game where they used the card this Round."""
    sim = board(armies, 2)
    m = sim.uids.index("marine-1")
    trials = np.arange(2)
    assert sim.engaged_mask(trials, m).all()
    sim._tactical_mass(m, trials)
    assert sim.penalty[m].tolist() == [True, True]
    sim.used[m, 1] |= abilities.use_bits(sim, m, ["Tactical Retreat"])
    assert sim._barred(m, trials).tolist() == [True, False]
    sim.cleanup(trials)  # the Round ends: the penalty and the ability with it
    assert sim._barred(m, trials).tolist() == [False, False]


@pytest.mark.parametrize(("facilities", "medics_first"), [(True, False), (True, True), (False, False)])
def test_advanced_medic_facilities_count_0_for_the_supply_pool(
    tmp_path: Path, facilities: bool, medics_first: bool
) -> None:
    """Advanced Medic Facilities: "This Unit's Supply Value counts as 0 when calculating the Supply Pool" (8.3.2:
    Available Supply is the Supply Pool less the Supply of the Friendly Units on the table). With a Supply Pool of
    the Marines' Supply alone, the Medics Deploy after them with the upgrade, and not without it (``scenario check``
    names the shortfall; the simulation leaves them in Reserves); Deployed first, they leave the Marines room."""
    ups = ["Advanced Medic Facilities"] if facilities else []
    red = army("Terran Armed Forces", ("Marine", 6), ("Medic", 3, ups))
    scn0 = build(skirmish("pool", armies=write_armies(tmp_path, red, ZERG)), "pool.toml")
    marines = scn0.units["marine-1"].supply(6)
    assert scn0.units["medic-1"].supply(3) > 0
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [
                    {"unit": "marine-1", "action": "deploy", "to": [9, 3.3]},
                    {"unit": "medic-1", "action": "deploy", "to": [20, 3.3]},
                ][:: -1 if medics_first else 1]
            },
        }
    ]
    mission = {"card": "Hold Position", "starting_supply": marines}
    data = skirmish("pool", armies=write_armies(tmp_path, red, ZERG), rounds=rounds, mission=mission)
    scn = build(data, "pool.toml")
    said = errors(scn)
    assert said == [] if facilities else (len(said) == 1 and "Available Supply is 0" in said[0]), said
    sim = Simulation(scn, 4, seed=1)
    missions.setup(sim)
    sim.round = 1
    sim.play_phase(1, "movement", np.arange(4))
    m = sim.uids.index("medic-1")
    assert (sim.pos[m] >= 0).all() if facilities else (sim.pos[m] < 0).all()
    assert (sim.pos[sim.uids.index("marine-1")] >= 0).all()


def _naive_contest_supply(sim: Simulation, live: np.ndarray) -> np.ndarray:
    """8.9.1's Supply for Controlling read game by game: each unit on the table adds its ``contest_supply`` effects
    for the abilities it used in that game (none used: the passive ones); then every floor (Freedom Fighters) for
    each friendly unit within its range in that game."""
    supply = sim.current_supply()
    floors = []
    for t in live.tolist():
        for u in range(sim.U):
            if sim.pos[u, t] < 0:
                continue
            for e in sim.effects(u, int(sim.used[u, t]), "contest_supply"):
                supply[u, t] += e.value
                if e.minimum:
                    floors.append((u, e, t))
    for r, e, t in floors:
        for q in range(sim.U):
            if sim.units[q].player != sim.units[r].player or (e.within is None and q != r):
                continue
            if abilities.near_games(sim, np.array([t]), r, q, e.within if e.within is not None else 0.0)[t]:
                supply[q, t] = max(supply[q, t], e.minimum)
    return supply


@pytest.mark.parametrize("seed", range(3))
def test_contest_supply_is_the_game_by_game_reading(armies: dict[str, str], seed: int) -> None:
    """``cards.supply.contest_supply`` (each giver's rows read at the games asked) against the naive reading above:
    Commander (Jim Raynor, passive), Additional Supply Depots used in some games, units off the table in others,
    games not asked left as the Current Supply Values."""
    rng = np.random.default_rng(seed)
    n = 64
    sim = board(armies, n, raynor=(14, 12))
    m, jim = sim.uids.index("marine-1"), sim.uids.index("jim-raynor-1")
    sim.used[m, rng.random(n) < 0.5] |= abilities.use_bits(sim, m, [DEPOTS])
    sim.alive[m] = rng.integers(1, 7, n)
    for u in (m, jim):
        sim.pos[u, rng.random(n) < 0.25] = -1
    sim.sync_board()
    live = np.sort(rng.choice(n, 48, replace=False))
    got = supply_cards.contest_supply(sim, sim.current_supply(), live)
    want = _naive_contest_supply(sim, live)
    assert got.tolist() == want.tolist()
    assert (got != sim.current_supply()).sum() > 10  # the effects added in many games
