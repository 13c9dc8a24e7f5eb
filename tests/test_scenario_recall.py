"""Abilities that return a unit to Reserves (issue 6, point 3): Strap In! (Dropship) and Strategic Recall (Nexus):
"The active, Unengaged Ground Unit is returned to Reserves instead of performing an action", read with 8.5.5 UNITS
RETURNED TO RESERVES: "The Unit is not Destroyed; it has left the battlefield ... the Current Supply used by the Unit
is released, and the Available Supply is recalculated from that moment onwards ... The Damage recorded by the Damage
Marker ... remains with the Unit. When the Unit is redeployed, it will carry the same Damage."
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Dropship",))
ZERG = army("Kerrigan's Swarm", ("Zergling", 12))
STRAP = "Strap In!"


def scenario(tmp_path: Path, rounds: list[dict], supply: int = 12, red: str = TERRAN) -> Scenario:
    mission = {"card": "Hold Position", "starting_supply": supply, "supply_escalation": 0}
    data = skirmish("recall", armies=write_armies(tmp_path, red, ZERG), rounds=rounds, mission=mission)
    return build(data, "recall.toml")


def deploy(unit: str, x: float, y: float = 3.3) -> dict:
    """A Deploy at (``x``, ``y``); 3.3" from the south Entry Edge by default: a 32 mm base within Speed 4" (8.5.5)."""
    return {"unit": unit, "action": "deploy", "to": [x, y]}


def recall(unit: str, action: str = "hold") -> dict:
    return {"unit": unit, "action": action, "use": [STRAP]}


def play(scn: Scenario, n: int, until: int) -> Simulation:
    """Rounds 1..``until`` of ``n`` games, without scoring or Cleanup (the Phases only)."""
    sim = Simulation(scn, n, seed=3)
    live = np.arange(n)
    missions.setup(sim)
    for rnd in range(1, until + 1):
        sim.round = rnd
        sim.ref_supply = sim.current_supply()
        for phase in ("movement", "assault", "combat"):
            sim.play_phase(rnd, phase, live)
    return sim


def test_strap_in_returns_the_unit_and_keeps_its_damage(tmp_path: Path) -> None:
    """8.5.5: off the table after Strap In!, not Destroyed (no Supply destroyed this Round), the Damage Marker kept
    when it Deploys again in a later Round."""
    rounds = [
        {"round": 1, "red": {"movement": [deploy("marine-1", 10)]}},
        {"round": 2, "red": {"movement": [recall("marine-1")]}},
        {"round": 3, "red": {"movement": [deploy("marine-1", 20)]}},
    ]
    scn = scenario(tmp_path, rounds)
    assert errors(scn) == []
    n = 8
    u = 0
    sim = play(scn, n, 1)
    assert sim.uids[u] == "marine-1" and (sim.pos[u] >= 0).all()
    sim.mark[u] = 1
    sim.round = 2
    sim.ref_supply = sim.current_supply()
    sim.play_phase(2, "movement", np.arange(n))
    assert (sim.pos[u] < 0).all() and (sim.alive[u] == 6).all()
    assert missions._destroyed_supply(sim, np.arange(n)).tolist() == [[0] * n, [0] * n]
    sim.round = 3
    sim.ref_supply = sim.current_supply()
    sim.play_phase(3, "movement", np.arange(n))
    assert (sim.pos[u] >= 0).all() and sim.mark[u].tolist() == [1] * n
    assert {sim.world.placements[p].centres[0] for p in sim.pos[u].tolist()} == {(20.0, 3.3)}


def test_recall_releases_available_supply(tmp_path: Path) -> None:
    """8.5.5: "the Current Supply used by the Unit is released, and the Available Supply is recalculated from that
    moment onwards" (8.3.2): with a Supply Pool of one Marine unit, the second deploys in the Round the first is
    returned, and not without the return."""
    for strap, second_on in ((True, True), (False, False)):
        first = recall("marine-1") if strap else {"unit": "marine-1", "action": "hold"}
        rounds = [
            {"round": 1, "red": {"movement": [deploy("marine-1", 10)]}},
            {"round": 2, "red": {"movement": [first, deploy("marine-2", 26)]}},
        ]
        supply = Simulation(scenario(tmp_path, []), 1, 1).supply(0, np.asarray([6]))[0]
        scn = scenario(tmp_path, rounds, supply=int(supply))
        sim = play(scn, 4, 2)
        assert (sim.pos[1] >= 0).all() if second_on else (sim.pos[1] < 0).all(), strap
        assert (sim.pos[0] < 0).all() == strap


def test_engaged_unit_is_not_returned(tmp_path: Path) -> None:
    """ "The active, Unengaged Ground Unit": an Engaged Marine unit stays on the table (skip report), an
    Unengaged one goes."""
    from mathhammer.scenario.world import Placement

    rounds = [{"round": 1, "red": {"movement": [recall("marine-1")]}}]
    scn = scenario(tmp_path, rounds)
    n = 4
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    world = sim.world
    m, z = sim.uids.index("marine-1"), sim.uids.index("zergling-1")
    pid = world.place(scn.units["marine-1"], (18, 10), (0, -1), ())
    assert pid is not None
    sim.pos[m] = pid
    r = world._radius(pid) * 2
    for games, y in ((slice(0, 2), 10 + r + 0.3), (slice(2, 4), 10 + r + 5.0)):  # Engaged in games 0 and 1 only
        world.placements.append(Placement("zergling-1", tuple((18.0 + 1.1 * i, y) for i in range(-6, 6))))
        sim.pos[z, games] = len(world.placements) - 1
    sim.sync_board()
    assert sim.engaged_mask(np.arange(n), m).tolist() == [True, True, False, False]
    sim.round = 1
    (act,) = scn.activations(1, "movement", "red")
    sim.activate(act, np.arange(n))
    assert (sim.pos[m] >= 0).tolist() == [True, True, False, False]
    assert sum(v for k, v in sim.skipped.items() if "not returned to Reserves (its text: Unengaged)" in k) == 2


def test_check_recall_plans(tmp_path: Path) -> None:
    """``scenario check``: Strap In! stands instead of an action (planned on a ``hold``), for a unit on the table;
    after it the unit Deploys again (8.5.5), and a Move of it before that is an error."""
    bad = [
        {"round": 1, "red": {"movement": [deploy("marine-1", 10)]}},
        {"round": 2, "red": {"movement": [recall("marine-1", "move") | {"to": [10, 7.3]}, recall("marine-2")]}},
    ]
    said = errors(scenario(tmp_path, bad))
    assert any("plan it on a `hold`" in s for s in said), said
    assert any("'marine-2' is not on the table at this point of the plan" in s for s in said), said
    later = [
        {"round": 1, "red": {"movement": [deploy("marine-1", 10)]}},
        {"round": 2, "red": {"movement": [recall("marine-1")]}},
        {"round": 3, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [10, 7.3]}]}},
    ]
    said = errors(scenario(tmp_path, later))
    assert len(said) == 1 and "is not on the table yet: Deploy it first" in said[0], said


PROTOSS = army("Daelaam", ("Zealot", 3), ("Zealot", 3), ("Stalker", 2), tactical=("Gateway", "Forge"))


def mass_recall_plan(action: dict) -> list[dict]:
    """8.5.5: the Zealots' 40 mm bases Deploy 3.2" from the Entry Edge, the Stalkers' 80 mm 2.4" (within Speed 4");
    the Indicator 0.8" south of where it stood before, as the Zealots."""
    return [
        {"round": 1, "red": {"movement": [deploy("zealot-1", 10, 3.2), deploy("zealot-2", 26, 3.2),
                                          deploy("stalker-1", 14, 2.4)]}},
        {"round": 2, "red": {"movement": [action | {"use": ["Mass Recall"], "token_at": [10, 8.2]}]}},
    ]  # fmt: skip


def test_mass_recall_returns_the_units_near_its_faction_indicator(tmp_path: Path) -> None:
    """Mass Recall (Daelaam): "Set a Faction Indicator anywhere on the battlefield. All Friendly Protoss Units Within
    6\\" of this Faction Indicator are removed from the battlefield and returned to Reserves": with the Indicator at
    (10, 8.2), the Zealots at (10, 3.2) (the active unit) and the Stalkers at (14, 2.4) go back, the Zealots at
    (26, 3.2) stay; none is Destroyed (8.5.5)."""
    scn = scenario(tmp_path, mass_recall_plan({"unit": "zealot-1", "action": "hold"}), red=PROTOSS)
    assert errors(scn) == []
    sim = play(scn, 4, 1)
    sim.round = 2
    sim.ref_supply = sim.current_supply()
    sim.play_phase(2, "movement", np.arange(4))
    on = {uid: bool((sim.pos[sim.uids.index(uid)] >= 0).all()) for uid in ("zealot-1", "zealot-2", "stalker-1")}
    assert on == {"zealot-1": False, "zealot-2": True, "stalker-1": False}
    assert missions._destroyed_supply(sim, np.arange(4)).tolist() == [[0] * 4, [0] * 4]


def test_mass_recall_of_the_active_unit_before_a_move_is_an_error(tmp_path: Path) -> None:
    """The ability resolves before the action; the active unit, returned, cannot Move afterwards."""
    move = {"unit": "zealot-1", "action": "move", "to": [10, 6.2]}
    said = errors(scenario(tmp_path, mass_recall_plan(move), red=PROTOSS))
    assert len(said) == 1 and "Mass Recall returns 'zealot-1' itself to Reserves before its move" in said[0], said
    far = {"unit": "zealot-2", "action": "move", "to": [26, 6.2]}
    assert errors(scenario(tmp_path, mass_recall_plan(far), red=PROTOSS)) == []
