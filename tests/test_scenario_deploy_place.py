"""Deploys by PLACE (issue 6, point 3; part 11 PLACE: "Remove it and set it Wholly Within X\\" of its starting
position"): Burrow Ambush ("When this Unit is nominated to deploy from the Reserves, it may resolve the PLACE (18)
effect from the controlling player's Entry Edge. No model may be set Within 10\\" of any Enemy model"), Rapid
Reinforcements ("... the PLACE (10) effect from another Friendly Unit. No model may be set Within 8\\" of any Enemy
model") and Phase Prism ("... the PLACE (0) effect from another Friendly Unit. That Friendly Unit is removed from the
battlefield and returned to Reserves").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

HYDRAS = army("Kerrigan's Swarm", ("Hydralisk", 2, ["Burrow Ambush"]))
TERRAN = army("Terran Armed Forces", ("Marine", 6))
AMBUSH = "Burrow Ambush"


def scenario(tmp_path: Path, red: str, blue: str, rounds: list[dict], first: str = "red") -> Scenario:
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("placed", armies=write_armies(tmp_path, red, blue), rounds=rounds, mission=mission,
                    first_player=first)  # fmt: skip
    return build(data, "placed.toml")


def deploy(unit: str, to: tuple[float, float], **more: object) -> dict:
    return {"unit": unit, "action": "deploy", "to": list(to), **more}


def movement(scn: Scenario, n: int = 6) -> Simulation:
    """Round 1's Movement Phase of ``n`` games."""
    sim = Simulation(scn, n, seed=2)
    missions.setup(sim)
    sim.round = 1
    sim.ref_supply = sim.current_supply()
    sim.play_phase(1, "movement", np.arange(n))
    return sim


def lead_of(sim: Simulation, unit: str) -> set[tuple[float, float] | None]:
    u = sim.uids.index(unit)
    return {sim.world.placements[p].centres[0] if p >= 0 else None for p in sim.pos[u].tolist()}


def ambush_plan(to: tuple[float, float], marines: tuple[float, float] = (18, 3.3), use: bool = True) -> list[dict]:
    hydras = deploy("hydralisk-1", to, **({"use": [AMBUSH]} if use else {}))
    return [{"round": 1, "red": {"movement": [deploy("marine-1", marines)]}, "blue": {"movement": [hydras]}}]


def test_burrow_ambush_places_far_from_the_entry_edge(tmp_path: Path) -> None:
    """PLACE (18) from the north Entry Edge: the Hydralisks' Leading Model 16" from it, beyond their Speed (8.5.5: a
    Deploy moves the Leading Model up to Speed from the Entry Edge), with no model Within 10" of the Marines."""
    scn = scenario(tmp_path, TERRAN, HYDRAS, ambush_plan((18, 20)))
    assert errors(scn) == []
    assert lead_of(movement(scn), "hydralisk-1") == {(18.0, 20.0)}
    plain = errors(scenario(tmp_path, TERRAN, HYDRAS, ambush_plan((18, 20), use=False)))
    assert len(plain) == 1 and "at most Speed" in plain[0], plain


def test_burrow_ambush_wholly_within_18(tmp_path: Path) -> None:
    """ "Wholly Within" 18" of the Entry Edge: a Leading Model 17.5" from it is not (its base reaches past 18"): an
    error of ``scenario check``, and the unit stays in Reserves in every game (skip report)."""
    scn = scenario(tmp_path, TERRAN, HYDRAS, ambush_plan((18, 36 - 17.5)))
    said = errors(scn)
    assert len(said) == 1 and 'more than 18" from the north Entry Edge' in said[0], said
    sim = movement(scn)
    assert lead_of(sim, "hydralisk-1") == {None}
    assert sum(v for k, v in sim.skipped.items() if "not Wholly Within 18" in k) == 6


def test_burrow_ambush_not_within_10_of_an_enemy(tmp_path: Path) -> None:
    """ "No model may be set Within 10\\" of any Enemy model": with the Marines run up to 9.5" away the Hydralisks stay
    in Reserves (an error of ``scenario check``; the simulation's skip report). 8.5.5: the Marines Deploy 3.3" from
    the Entry Edge (32 mm base within Speed 4"), Run to (18, 7.3) and Move the 0.7" on to (18, 8) in Round 2; the
    Hydralisks Deploy in Round 3."""
    rounds = [
        {"round": 1, "red": {"movement": [deploy("marine-1", (18, 3.3))],
                             "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]}},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]}]}},
        {"round": 3, "blue": {"movement": [deploy("hydralisk-1", (18, 20), use=[AMBUSH])]}},
    ]  # fmt: skip
    scn = scenario(tmp_path, TERRAN, HYDRAS, rounds)
    said = errors(scn)
    assert len(said) == 1 and 'Within 10" of an Enemy model' in said[0], said
    sim = Simulation(scn, 6, seed=2)
    missions.setup(sim)
    for rnd, phase in ((1, "movement"), (1, "assault"), (2, "movement"), (3, "movement")):
        sim.round = rnd
        sim.play_phase(rnd, phase, np.arange(6))
    assert lead_of(sim, "marine-1") == {(18.0, 8.0)}
    assert lead_of(sim, "hydralisk-1") == {None}
    assert sum(v for k, v in sim.skipped.items() if 'Within 10" of an Enemy model' in k) == 6


RAIDERS = army("Raynor's Raiders", ("Marine", 6), ("Raynor's Raider (Marine)", 6))
RAPID = "Rapid Reinforcements"


def test_rapid_reinforcements_places_from_a_friendly_unit(tmp_path: Path) -> None:
    """PLACE (10) from the selected Friendly Unit (on the table): 9" ahead of the Marines, far beyond Speed from the
    Entry Edge; 12" ahead is not Wholly Within 10" of them (an error; left in Reserves in the simulation). The Marines
    Deploy 3.3" from the Entry Edge (8.5.5: their 32 mm base within Speed 4")."""
    zerg = army("Kerrigan's Swarm", ("Zergling", 12))
    for ahead, ok in ((9.0, True), (12.0, False)):
        raider = deploy("raynor-s-raider-1", (18, 3.3 + ahead), use=[RAPID], select={RAPID: "marine-1"})
        rounds = [{"round": 1, "red": {"movement": [deploy("marine-1", (18, 3.3)), raider]}}]
        scn = scenario(tmp_path, RAIDERS, zerg, rounds)
        assert "raynor-s-raider-1" in scn.units, list(scn.units)
        said = errors(scn)
        assert said == [] if ok else (len(said) == 1 and "more than 10\" from 'marine-1'" in said[0]), said
        assert lead_of(movement(scn), "raynor-s-raider-1") == ({(18.0, 3.3 + ahead)} if ok else {None})


def test_rapid_reinforcements_needs_the_unit_on_the_table(tmp_path: Path) -> None:
    """The selected unit must be on the table (10.1): before marine-1 deploys it is an error, and the simulation
    leaves the Raiders in Reserves."""
    zerg = army("Kerrigan's Swarm", ("Zergling", 12))
    raider = deploy("raynor-s-raider-1", (18, 18), use=[RAPID], select={RAPID: "marine-1"})
    rounds = [{"round": 1, "red": {"movement": [raider, deploy("marine-1", (18, 4))]}}]
    scn = scenario(tmp_path, RAIDERS, zerg, rounds)
    said = errors(scn)
    assert any("'marine-1' is not on the table" in s for s in said), said
    sim = movement(scn)
    assert lead_of(sim, "raynor-s-raider-1") == {None}
    assert sum(v for k, v in sim.skipped.items() if "is not on the table (its PLACE starts there)" in k) == 6


def test_phase_prism_takes_the_place_of_a_friendly_unit(tmp_path: Path) -> None:
    """Phase Prism: Artanis is set where the Zealots' Leading Model stood, and the Zealots are returned to Reserves
    (8.5.5: not Destroyed; they may Deploy again). ``to`` elsewhere is an error. The Zealots Deploy 3.2" from the
    Entry Edge (8.5.5: their 40 mm base within Speed 4")."""
    protoss = army("Daelaam", ("Zealot", 3), ("Artanis", 1), tactical=("Power Field",))
    zerg = army("Kerrigan's Swarm", ("Zergling", 12))
    for to, ok in (((18, 3.2), True), ((18, 8), False)):
        prism = deploy("artanis-1", to, use=["Phase Prism"], select={"Phase Prism": "zealot-1"})
        rounds = [
            {"round": 1, "red": {"movement": [deploy("zealot-1", (18, 3.2))]}},
            {"round": 2, "red": {"movement": [prism]}},
            {"round": 3, "red": {"movement": [deploy("zealot-1", (8, 3.2))]}},
        ]
        scn = scenario(tmp_path, protoss, zerg, rounds)
        said = errors(scn)
        assert said == [] if ok else (len(said) == 1 and "to = [18, 3.2]" in said[0]), said
        if not ok:
            continue
        sim = movement(scn)
        sim.round = 2
        sim.ref_supply = sim.current_supply()
        sim.play_phase(2, "movement", np.arange(6))
        assert lead_of(sim, "artanis-1") == {(18.0, 3.2)} and lead_of(sim, "zealot-1") == {None}
        assert missions._destroyed_supply(sim, np.arange(6)).tolist() == [[0] * 6, [0] * 6]
        sim.round = 3
        sim.play_phase(3, "movement", np.arange(6))
        assert lead_of(sim, "zealot-1") == {(8.0, 3.2)}
