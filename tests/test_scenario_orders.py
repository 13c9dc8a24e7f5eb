"""Orders (Jim Raynor; issue 6, point 3): "[X CP] REPEATABLE. Select another Friendly Biological Unit Within 8\", spend
CP and apply one of the following effects: 1 CP: That Unit's first used weapon gains the CRITICAL HIT (2). 1 CP: That
Unit ignores the Disengage penalty for the remainder of the Round. 2 CP: Remove the Activation Marker from that
Unit." A plan names the options (``options``); the cost X is their sum (10.5.1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

# 3 CP a Round: the Faction Card, Supply Depot and Barracks
RAIDERS = army("Raynor's Raiders", ("Marine", 6), ("Jim Raynor", 1), tactical=("Supply Depot", "Barracks"))
ZERG = army("Kerrigan's Swarm", ("Roach", 3))
ORDERS = "Orders"


def orders(options: list[str], unit: str = "marine-1") -> dict:
    return {"unit": "jim-raynor-1", "action": "hold", "use": [ORDERS], "select": {ORDERS: unit}, "options": options}


def plan(movement: list[dict], shoot: bool = False) -> list[dict]:
    """Red first. The Marines come to (18, 8), Raynor to (22, 4); the Roaches to (18, 24). In Round 3's Movement
    Phase red makes ``movement``; with ``shoot`` the Marines shoot the Roaches in the Assault Phase. 8.5.5: the
    Marines' 32 mm base Deploys 3.3" and the Roaches' 50 mm 33" from their Entry Edges (within Speed 4"), so Round 2
    brings them the rest of the way to (18, 8) and (18, 24) (Round 2 of the old plan is now Round 3)."""
    r3: dict = {"movement": movement}
    if shoot:
        r3["assault"] = [{"unit": "marine-1", "action": "shoot", "targets": ["roach-1"]}]
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]},
                              {"unit": "jim-raynor-1", "action": "deploy", "to": [22, 4]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}]}},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        {"round": 3, "red": r3},
    ]  # fmt: skip


def scenario(tmp_path: Path, rounds: list[dict]) -> Scenario:
    armies = write_armies(tmp_path, RAIDERS, ZERG)
    return build(skirmish("orders", armies=armies, rounds=rounds, first_player="red"), "orders.toml")


def test_orders_options_are_in_the_profile() -> None:
    from mathhammer.starcraft.roster import load_roster

    (a,) = [a for a in load_roster().unit("Jim Raynor").card.abilities if a.name == ORDERS]
    assert [(e.option, e.option_cost, e.kind, e.select, e.within) for e in a.effects] == [
        ("critical hit", 1, "weapon_keyword", "friendly", 8),
        ("disengage", 1, "ignore_disengage_penalty", "friendly", 8),
        ("activate again", 2, "remove_activation", "friendly", 8),
    ]


@pytest.mark.parametrize(("options", "critical"), [(["critical hit"], 2), (["disengage"], 0)])
def test_critical_hit_order(tmp_path: Path, seen: list, options: list[str], critical: int) -> None:
    """The "critical hit" option: the Marines' first weapon (their C-14 Rifles) reaches the engines with CRITICAL HIT
    (2); the "disengage" option gives none."""
    scn = scenario(tmp_path, plan([orders(options), {"unit": "marine-1", "action": "move", "to": [18, 12]}], True))
    assert errors(scn) == []
    Simulation(scn, 40, seed=3).run()
    assert {int(cb.critical) for batches, _ in seen for cb in batches} == {critical}


def test_disengage_order_lifts_the_penalty(tmp_path: Path) -> None:
    """The "disengage" option: "That Unit ignores the Disengage penalty for the remainder of the Round" (8.5.4)."""
    scn = scenario(tmp_path, plan([orders(["disengage"])]))
    n = 4
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    everyone = np.arange(n)
    for rnd in (1, 2):
        sim.round = rnd
        for act in scn.activations(rnd, "movement", "red"):
            sim.activate(act, everyone)
    m = sim.uids.index("marine-1")
    sim.penalty[m] = True
    assert sim._barred(m, everyone).all()
    sim.round = 3
    (act,) = scn.activations(3, "movement", "red")
    sim.activate(act, everyone)
    assert not sim._barred(m, everyone).any()


def test_activate_again_order(tmp_path: Path) -> None:
    """The "activate again" option (2 CP): the Marines, already Activated, Move a second time in the Phase; without
    it the second Move is an error of ``scenario check`` and is not made in any game."""
    first = {"unit": "marine-1", "action": "move", "to": [18, 11]}
    second = {"unit": "marine-1", "action": "move", "to": [18, 14]}
    ends = {}
    for options in (["activate again"], ["critical hit"]):
        scn = scenario(tmp_path, plan([first, orders(options), second]))
        said = errors(scn)
        assert said == [] if "activate again" in options else any("already activated" in p for p in said), said
        sim = Simulation(scn, 10, seed=1)
        sim.run()
        m = sim.uids.index("marine-1")
        ends[options[0]] = {sim.world.placements[p].centres[0] for p in sim.pos[m].tolist()}
    assert ends == {"activate again": {(18.0, 14.0)}, "critical hit": {(18.0, 11.0)}}


def test_orders_are_checked(tmp_path: Path) -> None:
    """The options are named and paid: none given, an unknown one, or more CP than the Ready cards give (3) are
    errors; the Friendly Unit is Biological."""
    said = errors(scenario(tmp_path, plan([orders([])])))
    assert any("applies one of its options: name them" in p for p in said), said
    said = errors(scenario(tmp_path, plan([orders(["charge!"])])))
    assert any("options: got 'charge!'" in p for p in said), said
    said = errors(scenario(tmp_path, plan([orders(["critical hit", "disengage", "activate again"])])))
    assert any("'Orders' costs 4 CP; the Ready cards give 3 CP" in p for p in said), said
    assert errors(scenario(tmp_path, plan([orders(["critical hit", "activate again"])]))) == []
