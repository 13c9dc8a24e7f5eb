"""Deploying by another table edge (issue 6, point 3): Warp In (Warp Gate: "The active GROUND Unit Deploys from any
table edge that is not a player's Entry Edge. This deployment must end more than 10\" away from any Enemy model. The
controlling player cannot use this ability if another Friendly Ground Unit has already Deployed this Round"), Armed
and Ready, Timing Push; and the Reaction to it, Photon Overcharge (Overcharged Nexus: "Use when an Enemy Unit enters
the battlefield from Reserves via a location other than its own Entry Edge. That Unit immediately suffers HITS 3
(1)").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies

PROTOSS = army("Daelaam", ("Zealot", 3), ("Stalker", 2), tactical=("Warp Gate", "Overcharged Nexus"))
TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Barracks (Proxy)",))
WARP = {"unit": "zealot-1", "action": "deploy", "to": [34, 18], "use": ["Warp In"], "edge": "east"}


def scenario(tmp_path: Path, red: list[dict], blue: list[dict], rounds: int = 1) -> Scenario:
    """Red (Protoss) enters from the south, blue (Terran) from the north; ``red`` and ``blue``: their Movement Phase
    of Round ``rounds`` (earlier Rounds empty)."""
    plan = [{"round": r, "red": {}, "blue": {}} for r in range(1, rounds)]
    plan.append({"round": rounds, "red": {"movement": red}, "blue": {"movement": blue}})
    data = skirmish("edge", armies=write_armies(tmp_path, PROTOSS, TERRAN), rounds=plan, first_player="red")
    return build(data, "edge.toml")


def lead_of(sim: Simulation, unit: str) -> set[tuple[float, float] | None]:
    u = sim.uids.index(unit)
    return {sim.world.placements[p].centres[0] if p >= 0 else None for p in sim.pos[u].tolist()}


def test_warp_in_deploys_by_the_east_edge(tmp_path: Path) -> None:
    """The Zealots enter by the east edge (not an Entry Edge) to (34, 18), their Leading Model's base 2.8" from it
    (8.5.5: it starts outside the table), in every game; without Warp In that deploy is 18.8" from the south Entry
    Edge, an error."""
    scn = scenario(tmp_path, [WARP], [])
    assert errors(scn) == []
    sim = Simulation(scn, 8, seed=1)
    sim.run()
    assert lead_of(sim, "zealot-1") == {(34.0, 18.0)}
    plain = scenario(tmp_path, [{k: v for k, v in WARP.items() if k not in ("use", "edge")}], [])
    assert any('base ends 18.8" from the south Entry Edge' in p for p in errors(plain))


def test_warp_in_is_checked(tmp_path: Path) -> None:
    """An Entry Edge is no such edge; a deploy ending Within 10" of an Enemy model, or after another Friendly Ground
    Unit Deployed this Round, breaks its text; ``edge`` needs the ability."""
    said = errors(scenario(tmp_path, [WARP | {"edge": "north"}], []))
    assert any(
        "edge: got 'north'; allowed: a table edge that is not a player's Entry Edge: east, west" in p for p in said
    )
    plan = [
        {"round": 1, "red": {}, "blue": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [30, 32.7]}]}},
        {"round": 2, "red": {"movement": [WARP | {"to": [34, 22]}]}, "blue": {}},
    ]
    data = skirmish("edge", armies=write_armies(tmp_path, PROTOSS, TERRAN), rounds=plan, first_player="red")
    said = errors(build(data, "edge.toml"))
    assert any('ends Within 10" of an Enemy model' in p for p in said), said
    stalkers = {"unit": "stalker-1", "action": "deploy", "to": [10, 2.4]}
    said = errors(scenario(tmp_path, [stalkers, WARP], []))
    assert any("another Friendly Ground Unit (stalker-1) has already Deployed this Round" in p for p in said), said
    said = errors(scenario(tmp_path, [{k: v for k, v in WARP.items() if k != "use"}], []))
    assert any("edge: only with an ability that Deploys from another table edge" in p for p in said), said


def test_warp_in_far_from_the_enemy_in_each_game(tmp_path: Path) -> None:
    """In the games where the enemy stands Within 10" of the spot when the Zealots arrive, they stay in Reserves
    (skip report): the Marines run to (30, 24) in Round 1, the Zealots Warp In to (34, 30) in Round 2."""
    plan = [
        {"round": 1, "red": {}, "blue": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [30, 32.7]}]}},
        {"round": 2, "red": {"movement": [WARP | {"to": [34, 22]}]}, "blue": {}},
    ]
    data = skirmish("edge", armies=write_armies(tmp_path, PROTOSS, TERRAN), rounds=plan, first_player="red")
    sim = Simulation(build(data, "edge.toml"), 6, seed=1)
    sim.run()
    assert lead_of(sim, "zealot-1") == {None}
    assert sum(v for k, v in sim.skipped.items() if "of an Enemy model: not allowed (its text)" in k) == 6


def test_photon_overcharge_hits_the_unit_entering_elsewhere(tmp_path: Path) -> None:
    """Armed and Ready brings the Marines in by the west edge; the Protoss answer with Photon Overcharge: HITS 3 (1)
    at them in every game (the Marines, 6 models of 1 HP, lose some in some games); by their Entry Edge it answers
    nothing (``scenario check``: an error)."""
    stalkers = [{"unit": "stalker-1", "action": "deploy", "to": [18, 2.4]}]
    overcharge = [{"unit": "stalker-1", "use": "Photon Overcharge"}]
    armed = {"unit": "marine-1", "action": "deploy", "to": [2, 20], "use": ["Armed and Ready"], "edge": "west"}
    rounds = [
        {"round": 1, "red": {"movement": stalkers}, "blue": {}},
        {"round": 2, "red": {}, "blue": {"movement": [armed | {"react": overcharge}]}},
    ]
    data = skirmish("edge", armies=write_armies(tmp_path, PROTOSS, TERRAN), rounds=rounds, first_player="red")
    scn = build(data, "edge.toml")
    assert errors(scn) == []
    sim = Simulation(scn, 200, seed=1)
    sim.run()
    m = sim.uids.index("marine-1")
    assert (sim.snapshots[1]["alive"][m] < 6).any()
    plain = [dict(r) for r in rounds]
    plain[1] = {"round": 2, "red": {}, "blue": {"movement": [
        {"unit": "marine-1", "action": "deploy", "to": [18, 32.7], "react": overcharge}]}}  # fmt: skip
    said = errors(build(skirmish("edge", armies=write_armies(tmp_path, PROTOSS, TERRAN), rounds=plain), "e.toml"))
    assert any("'Photon Overcharge' answers an Enemy Unit entering from Reserves" in p for p in said), said


def test_comsat_station_closes_an_edge_to_enemy_deploys(tmp_path: Path) -> None:
    """Comsat Station (Orbital Command): "Select one table edge that is not a player's Entry Edge. Until the End of the
    Round, Enemy Units cannot Deploy from that edge": blue closes the east edge in Round 2, so red's Warp In by it
    after that in the Round leaves the Zealots in Reserves in every game (skip report; ``scenario check`` warns, as
    the order of the two players' activations is read per game); in Round 3 the edge is open again (``scenario
    check``, which reads them on the table from Round 2, names that deploy)."""
    terran = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Orbital Command",))
    comsat = {"unit": "marine-1", "action": "deploy", "to": [18, 32.7]}
    # the closing activation first: blue is first player in Round 2, red Warps In after it
    plan = [
        {"round": 1, "blue": {"movement": [comsat]}},
        {"round": 2, "blue": {"movement": [{"unit": "marine-1", "action": "hold", "use": ["Comsat Station"],
                                            "edge": "east"}]},
         "red": {"movement": [WARP]}},
        {"round": 3, "red": {"movement": [WARP]}},
    ]  # fmt: skip
    data = skirmish("comsat", armies=write_armies(tmp_path, PROTOSS, terran), rounds=plan, first_player="blue")
    scn = build(data, "comsat.toml")
    said = errors(scn)
    assert len(said) == 1 and "'zealot-1' is already on the table" in said[0] and "rounds[2]" in said[0], said
    told = warnings(scn)
    assert len(told) == 1 and "an enemy's Comsat Station closes the east edge this Round" in told[0], told
    assert "rounds[1].red" in told[0]
    sim = Simulation(scn, 6, seed=1)
    missions.setup(sim)
    for rnd in (1, 2):
        sim.round = rnd
        sim.first[:] = 1  # blue activates first (in Round 1 red, with nothing to do, Passed first: 8.2.1)
        sim.play_phase(rnd, "movement", np.arange(6))
    assert lead_of(sim, "zealot-1") == {None}
    assert sum(v for k, v in sim.skipped.items() if "the east edge is closed to Deploys this Round" in k) == 6
    sim.cleanup(np.arange(6))
    sim.round = 3
    sim.first[:] = 0
    sim.play_phase(3, "movement", np.arange(6))
    assert lead_of(sim, "zealot-1") == {(34.0, 18.0)}


def test_comsat_station_names_an_edge_that_is_not_an_entry_edge(tmp_path: Path) -> None:
    """Its ``edge`` must be a table edge that is not a player's Entry Edge."""
    terran = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Orbital Command",))
    for edge in (None, "north"):
        hold = {"unit": "marine-1", "action": "hold", "use": ["Comsat Station"]} | ({"edge": edge} if edge else {})
        plan = [
            {"round": 1, "blue": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 32.7]}]}},
            {"round": 2, "blue": {"movement": [hold]}},
        ]
        data = skirmish("comsat", armies=write_armies(tmp_path, PROTOSS, terran), rounds=plan)
        said = errors(build(data, "comsat.toml"))
        assert len(said) == 1 and "the table edge Comsat Station closes" in said[0] and "east, west" in said[0], said
