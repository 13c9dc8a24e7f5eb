"""The Burrowed Status (part 11 BURROWED and STATUS; issue 6, points 2 and 3): Burrow ("If this Unit is Unengaged,
it gains or loses the Burrowed Status"), Nasty Surprise ("The active Ground Unit loses the Burrowed Status"), and
what the Status does in play.

Part 11 BURROWED: "While BURROWED, the Unit may only perform Deploy, Move, Disengage, Run, Hold and Close Ranks
actions. Performing any of these (except Hold) immediately removes the BURROWED status"; "Its Current Supply Value
is treated as 0 for Disengage checks"; "If a BURROWED Unit is Engaged at the start of the Combat Phase, it must be
Activated but cannot perform a Close Combat Attack in its BURROWED state. The Unit may perform Close Ranks as its
first step, which immediately removes the BURROWED status ... If the Unit does not or cannot perform Close Ranks, it
does not attack". STATUS: "Unless stated otherwise, Statuses aren't removed during the Scoring and Cleanup Phase".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import mission as missions
from mathhammer.scenario.cards import burrow
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import Placement

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

# 3 BM a Round (faction, Spawning Pool, Roach Warren): Burrow costs 2; Nasty Surprise (Roach Warren) 0
ROACHES = army("Kerrigan's Swarm", ("Roach", 3), tactical=("Spawning Pool", "Roach Warren"))
MARINES = army("Terran Armed Forces", ("Marine", 6))
N = 12


def hold(use: list[str] | None = None) -> dict:
    return {"unit": "roach-1", "action": "hold", "use": use or []}


def scenario(tmp_path: Path, rounds: list[dict], **over: object) -> Scenario:
    armies = write_armies(tmp_path, MARINES, ROACHES)
    return build(skirmish("burrow", armies=armies, rounds=rounds, first_player="blue", **over), "burrow.toml")


def sim_at(scn: Scenario, roach: tuple[float, float], marine_y: float) -> Simulation:
    """The scenario's games with the Roaches led from ``roach`` (set north of it) and the six Marines in a row along
    y = ``marine_y`` from x = 14.1 to 20.6 (set directly: they may stand Within 1" of the Roaches, Engaged)."""
    sim = Simulation(scn, N, seed=2)
    missions.setup(sim)
    world = sim.world
    pid = world.place(scn.units["roach-1"], roach, (0, 1), ())
    assert pid is not None
    xs = (18.0, 16.7, 19.3, 15.4, 20.6, 14.1)
    world.placements.append(Placement("marine-1", tuple((x, marine_y) for x in xs)))
    sim.pos[sim.uids.index("roach-1")] = pid
    sim.pos[sim.uids.index("marine-1")] = len(world.placements) - 1
    sim.sync_board()
    return sim


def play(sim: Simulation, rnd: int, phases: tuple[str, ...] = ("movement", "assault")) -> None:
    sim.round = rnd
    for phase in phases:
        sim.acted[:] = False
        for act in sim.scn.activations(rnd, phase, "blue"):
            sim.activate(act, np.arange(N))


def down(sim: Simulation) -> list[bool]:
    return burrow.burrowed(sim, sim.uids.index("roach-1"), np.arange(N)).tolist()


def test_the_status_stays_through_cleanup_and_burrow_toggles_it(tmp_path: Path) -> None:
    """Burrow in Round 1: BURROWED (the keyword, so Evade and HIDDEN, in its target profile) and still so after the
    Cleanup; Burrow again in Round 2: no longer."""
    rounds = [
        {"round": 1, "blue": {"movement": [hold(["Burrow"])]}},
        {"round": 2, "blue": {"movement": [hold(["Burrow"])]}},
    ]
    sim = sim_at(scenario(tmp_path, rounds), (18, 24), 6)
    r = sim.uids.index("roach-1")
    play(sim, 1)
    assert down(sim) == [True] * N
    sim.cleanup(np.arange(N))
    assert down(sim) == [True] * N
    keywords = {e.keyword for e in sim.loadout(r, int(sim.used[r, 0])).effects() if e.kind == "unit_keyword"}
    assert keywords == {"BURROWED"}
    assert int(sim.used[r, 0]) == burrow.status_bit(sim, r)  # Burrow's own use is gone with the Round
    play(sim, 2)
    assert down(sim) == [False] * N
    assert not [e for e in sim.loadout(r, int(sim.used[r, 0])).effects() if e.keyword == "BURROWED"]


@pytest.mark.parametrize(("nasty", "shots"), [(False, 0), (True, N)])
def test_a_burrowed_unit_shoots_only_once_it_loses_the_status(tmp_path: Path, nasty: bool, shots: int) -> None:
    """BURROWED in the Movement Phase, the Roaches' Ranged Attack at the Marines 5" away is refused in every game;
    with Nasty Surprise used in that activation they lose the Status first and shoot in every game."""
    shoot = {"unit": "roach-1", "action": "shoot", "targets": ["marine-1"], "use": ["Nasty Surprise"] if nasty else []}
    rounds = [{"round": 1, "blue": {"movement": [hold(["Burrow"])], "assault": [shoot]}}]
    sim = sim_at(scenario(tmp_path, rounds), (18, 18), 11)
    play(sim, 1)
    refused = sum(v for k, v in sim.skipped.items() if "the unit is BURROWED" in k)
    assert refused == N - shots
    assert down(sim) == [not nasty] * N
    m = sim.uids.index("marine-1")
    assert (sim.alive[m] < 6).any() == nasty  # 3 Roaches' Acid Saliva at Marines: some damage in 12 games


def test_a_move_removes_the_status(tmp_path: Path) -> None:
    """A Move (and so a Run or a Disengage) removes the Status; a Hold keeps it."""
    rounds = [
        {"round": 1, "blue": {"movement": [hold(["Burrow"])], "assault": [hold()]}},
        {"round": 2, "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 22]}]}},
    ]
    sim = sim_at(scenario(tmp_path, rounds), (18, 24), 6)
    play(sim, 1)
    assert down(sim) == [True] * N
    play(sim, 2)
    assert down(sim) == [False] * N


def test_burrow_needs_the_unit_unengaged(tmp_path: Path) -> None:
    """Burrow: "If this Unit is Unengaged": Engaged with the Marines, the Roaches stay as they are (skip report)."""
    rounds = [{"round": 1, "blue": {"movement": [hold(["Burrow"])]}}]
    sim = sim_at(scenario(tmp_path, rounds), (18, 14), 12)
    assert sim.engaged_mask(np.arange(N), sim.uids.index("roach-1")).all()
    play(sim, 1)
    assert down(sim) == [False] * N
    assert sum(v for k, v in sim.skipped.items() if "'Burrow': the unit is Engaged" in k) == N


def test_a_burrowed_unit_counts_no_supply_in_a_disengage_check(tmp_path: Path) -> None:
    """8.5.4 Tactical Mass: the Marines (6 models, Supply 1) Disengage from the Roaches (3 models, Supply 1): 1 is
    not above 1, so they are penalised; with the Roaches BURROWED (Supply 0 for Disengage checks) they are not."""
    sim = sim_at(scenario(tmp_path, []), (18, 14), 12)
    m, r = sim.uids.index("marine-1"), sim.uids.index("roach-1")
    games = np.arange(N)
    burrow.set_burrowed(sim, r, games[: N // 2], True)
    sim._tactical_mass(m, games)
    assert sim.penalty[m].tolist() == [False] * (N // 2) + [True] * (N // 2)


@pytest.mark.parametrize("close_ranks", ["always", "never"])
def test_an_engaged_burrowed_unit_attacks_only_after_close_ranks(tmp_path: Path, close_ranks: str) -> None:
    """In the Combat Phase the BURROWED Roaches, Engaged with the Marines, make their Close Ranks move (the default
    policy), lose the Status and attack; without Close Ranks (``close_ranks = "never"``) they keep it and do not
    attack (the Marines are untouched in every game)."""
    scn = scenario(tmp_path, [], policy={"close_ranks": close_ranks})
    sim = sim_at(scn, (18, 14), 12)
    r, m = sim.uids.index("roach-1"), sim.uids.index("marine-1")
    games = np.arange(N)
    burrow.set_burrowed(sim, r, games, True)
    sim.round = 1
    sim.fight(r, ("marine-1",), games, 77)
    attacked = close_ranks == "always"
    assert down(sim) == [not attacked] * N
    assert (sim.alive[m] < 6).any() == attacked
    assert sum(v for k, v in sim.skipped.items() if "BURROWED and no Close Ranks" in k) == (0 if attacked else N)


def test_scenario_check_follows_the_status(tmp_path: Path) -> None:
    """``scenario check``: a Ranged Attack or Charge planned while the unit is BURROWED is an error naming the
    Status; Nasty Surprise, Burrow again or a Move before it clears it."""
    deploy = {"round": 1, "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 32]}]}}

    def said(r2: dict, r3: dict | None = None) -> list[str]:
        rounds = [deploy, {"round": 2, "blue": r2}] + ([{"round": 3, "blue": r3}] if r3 else [])
        return [p for p in errors(scenario(tmp_path, rounds)) if "is BURROWED" in p]

    shoot = {"unit": "roach-1", "action": "shoot", "targets": ["marine-1"]}
    assert len(said({"movement": [hold(["Burrow"])], "assault": [shoot]})) == 1
    assert said({"movement": [hold(["Burrow"])], "assault": [shoot | {"use": ["Nasty Surprise"]}]}) == []
    assert said({"movement": [hold()], "assault": [shoot]}) == []
    charge = {"unit": "roach-1", "action": "charge", "targets": ["marine-1"]}
    assert len(said({"movement": [hold(["Burrow"])]}, {"assault": [charge]})) == 1  # the Status stays: Round 3
    moved = {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 29]}], "assault": [charge]}
    assert said({"movement": [hold(["Burrow"])]}, moved) == []
    assert said({"movement": [hold(["Burrow"])]}, {"movement": [hold(["Burrow"])], "assault": [charge]}) == []


def test_tunneling_claws_keep_the_status_on_a_move(tmp_path: Path) -> None:
    """Tunneling Claws (Roach upgrade): "While this Unit has the Burrowed Status, it may perform the Move and Run
    actions without losing that Status" (a Disengage still removes it); ``scenario check`` follows it."""
    tunneling = army("Kerrigan's Swarm", ("Roach", 3, ["Tunneling Claws"]), tactical=("Spawning Pool", "Roach Warren"))
    armies = write_armies(tmp_path, MARINES, tunneling)
    rounds = [
        {"round": 1, "blue": {"movement": [hold(["Burrow"])], "assault": [hold()]}},
        {"round": 2, "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 22]}],
                              "assault": [{"unit": "roach-1", "action": "shoot", "targets": ["marine-1"]}]}},
    ]  # fmt: skip
    scn = build(skirmish("burrow", armies=armies, rounds=rounds, first_player="blue"), "burrow.toml")
    sim = sim_at(scn, (18, 24), 6)
    play(sim, 1)
    play(sim, 2, ("movement",))
    assert down(sim) == [True] * N
    deploy = {"round": 1, "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 32]}]}}
    plan = [deploy, {"round": 2, "blue": {"movement": [hold(["Burrow"])]}}, dict(rounds[1], round=3)]
    said = [p for p in errors(build(skirmish("b", armies=armies, rounds=plan), "b.toml")) if "is BURROWED" in p]
    assert len(said) == 1 and "round 3, Assault Phase" in said[0], said
