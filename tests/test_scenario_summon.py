"""Summoned Units (issue 6, point 3; 9.1.9: "They are not included in the Army List ... not in Reserves at the start
of the game ... deployed only when a Special Ability, such as SUMMON, specifically puts them on the battlefield"):
SUMMON (part 11) by Roachling Infestation (Corpser), the structures set "anywhere" by Pylon Warp-In (Khalai) and Omega
Network (Kerrigan's Swarm), the Point Defense Drone of Rapid Ingress (Raynor's Raiders: "Remove this Unit at the End of
the Round"), and Structure ("This Unit cannot be Activated in any Phase and cannot perform actions. Additionally, its
Current Supply Value is treated as 0, and it can never Control or Contest Mission Markers").
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mathhammer.board.model import EPS
from mathhammer.board.ranks import CONTACT
from mathhammer.scenario import mission as missions
from mathhammer.scenario.cards import burrow
from mathhammer.scenario.cards.summon import SUMMON_GAP
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6))
CORPSER = army("Kerrigan's Swarm", ("Corpser (Roach)", 3), ("Zergling", 12), tactical=("Hatchery",))
INFEST = "Roachling Infestation"


def scenario(tmp_path: Path, red: str, blue: str, rounds: list[dict], first: str = "red") -> Scenario:
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("summon", armies=write_armies(tmp_path, red, blue), rounds=rounds, mission=mission,
                    first_player=first)  # fmt: skip
    return build(data, "summon.toml")


def deploy(unit: str, x: float, y: float) -> dict:
    return {"unit": unit, "action": "deploy", "to": [x, y]}


def hold(unit: str, **more: object) -> dict:
    return {"unit": unit, "action": "hold", **more}


def play(scn: Scenario, n: int, phases: list[tuple[int, str]], first: int = 0) -> Simulation:
    sim = Simulation(scn, n, seed=2)
    missions.setup(sim)
    for rnd, phase in phases:
        sim.round = rnd
        sim.first[:] = first
        sim.play_phase(rnd, phase, np.arange(n))
    return sim


def lead_of(sim: Simulation, unit: str) -> set[tuple[float, float] | None]:
    u = sim.uids.index(unit)
    return {sim.world.placements[p].centres[0] if p >= 0 else None for p in sim.pos[u].tolist()}


#: 8.5.5: the Corpsers' 50 mm base within Speed 4 of the north Entry Edge (the centre 3" from it)
CORPSER_Y = 33


def infest_plan(**assault: object) -> list[dict]:
    return [
        {"round": 1, "blue": {"movement": [deploy("corpser-1", 18, CORPSER_Y)]}},
        {"round": 2, "blue": {"movement": [hold("corpser-1", use=[INFEST])], **assault}},
    ]


def test_roachling_infestation_summons_in_contact_with_the_parent(tmp_path: Path) -> None:
    """SUMMON (Roachling): the scenario has a Summoned Unit ``roachling-1`` (not in the Army List); the Corpser's
    ability sets its Leading Model in Base-to-Base contact with the Corpsers' Leading Model (on the side of the north
    Entry Edge), all 3 models; in the Assault Phase it activates right after its Parent Unit."""
    plan = infest_plan(assault=[hold("corpser-1"), hold("roachling-1")])
    scn = scenario(tmp_path, TERRAN, CORPSER, plan)
    assert scn.units["roachling-1"].summoned and scn.units["roachling-1"].parent == "corpser-1"
    assert errors(scn) == []
    sim = play(scn, 4, [(1, "movement"), (2, "movement")], first=1)
    ((x, y),) = lead_of(sim, "roachling-1")
    rc, rr = scn.units["corpser-1"].base_mm / 25.4 / 2, scn.units["roachling-1"].base_mm / 25.4 / 2
    assert (x, y) == (18.0, CORPSER_Y - (rc + rr + SUMMON_GAP)) and 0 <= SUMMON_GAP - CONTACT <= EPS
    assert sim.alive[sim.uids.index("roachling-1")].tolist() == [3] * 4


def test_summoned_unit_rules_in_scenario_check(tmp_path: Path) -> None:
    """Part 11 SUMMON: "it cannot be Activated during the Phase in which it was summoned"; "In subsequent Phases,
    this Unit must be Activated immediately after its Parent Unit's activation ends"; 9.1.9: never Deployed; a second
    Roachling Infestation is "Once Per Game"."""
    same_phase = infest_plan()
    same_phase[1]["blue"]["movement"].append(hold("roachling-1"))
    said = errors(scenario(tmp_path, TERRAN, CORPSER, same_phase))
    assert len(said) == 1 and "was summoned in this Phase: it cannot be Activated in it" in said[0], said
    apart = infest_plan(assault=[hold("roachling-1"), hold("corpser-1")])
    said = errors(scenario(tmp_path, TERRAN, CORPSER, apart))
    assert len(said) == 1 and "plan it right after 'corpser-1'" in said[0], said
    deployed = infest_plan()
    deployed[0]["blue"]["movement"].append(deploy("roachling-1", 10, 32.7))
    said = errors(scenario(tmp_path, TERRAN, CORPSER, deployed))
    assert any("a Summoned Unit: set only by 'Roachling Infestation', never Deployed" in s for s in said), said
    again = infest_plan()
    again.append({"round": 3, "blue": {"movement": [hold("corpser-1", use=[INFEST])]}})
    said = errors(scenario(tmp_path, TERRAN, CORPSER, again))
    assert any('is "Once per Game" (its text)' in s for s in said), said


def test_a_summoned_unit_off_the_table_is_not_in_reserves(tmp_path: Path) -> None:
    """9.1.9: Summoned Units "are not in Reserves": with the Corpsers and Zerglings Destroyed and the Roachlings never
    summoned, blue has nothing on the battlefield and nothing in Reserves, and red gains 10 VP (8.9.3)."""
    scn = scenario(tmp_path, TERRAN, CORPSER, infest_plan())
    sim = Simulation(scn, 2, seed=1)
    for uid in ("corpser-1", "zergling-1"):
        sim.alive[sim.uids.index(uid)] = 0
    sim.round = 1
    sim.end_checks(np.arange(2), False)
    assert sim.vp[0].tolist() == [10, 10] and sim.over.all()


KHALAI = army("Khalai", ("Zealot", 3), ("Stalker", 2), tactical=("Gateway",))
WARP_IN = "Pylon Warp-In"


def test_pylon_warp_in_sets_a_structure(tmp_path: Path) -> None:
    """Pylon Warp-In: "set a Friendly Pylon Unit anywhere on the GROUND LEVEL of the battlefield more than 10\\" away
    from any Enemy model": at ``summon_to`` in every game. A Pylon on a marker contests nothing (Structure), and a
    plan activating it is an error."""
    markers = [{"number": 1, "x": 18, "y": 18}]
    plan = [
        {"round": 1, "red": {"movement": [deploy("zealot-1", 10, 3.2)]}},
        {"round": 2, "red": {"movement": [hold("zealot-1", use=[WARP_IN], summon_to=[18, 18])]}},
    ]
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("pylon", markers=markers, armies=write_armies(tmp_path, KHALAI, CORPSER), rounds=plan,
                    mission=mission)  # fmt: skip
    scn = build(data, "pylon.toml")
    assert errors(scn) == []
    sim = play(scn, 4, [(1, "movement"), (2, "movement")])
    assert lead_of(sim, "pylon-1") == {(18.0, 18.0)}
    p = sim.uids.index("pylon-1")
    assert sim.world.contests(int(sim.pos[p, 0]), 1, 1)  # a model stands Within 3" of the marker ...
    assert not missions.contest(sim, np.arange(4))[p].any()  # ... and the Structure contests nothing
    plan.append({"round": 3, "red": {"movement": [hold("pylon-1")]}})
    said = errors(build(data, "pylon.toml"))
    assert len(said) == 1 and "'pylon-1' is a Structure: it cannot be Activated" in said[0], said


def test_pylon_warp_in_far_from_enemies_and_once_on_the_table(tmp_path: Path) -> None:
    """More than 10" from any Enemy model, and only "If there is no Friendly Pylon on the battlefield": both errors of
    ``scenario check``; the simulation sets nothing there (skip report)."""
    plan = [
        {"round": 1, "red": {"movement": [deploy("zealot-1", 10, 3.2)]},
         "blue": {"movement": [deploy("zergling-1", 18, 32.7)]}},
        {"round": 2, "red": {"movement": [hold("zealot-1", use=[WARP_IN], summon_to=[18, 24])]}},
    ]  # fmt: skip
    said = errors(scenario(tmp_path, KHALAI, CORPSER, plan))
    assert any("Pylon Warp-In': 'pylon-1' would be set Within 10\" of 'zergling-1'" in s for s in said), said
    plan[1]["red"]["movement"][0]["summon_to"] = [18, 12]
    plan.append({"round": 3, "red": {"movement": [hold("zealot-1", use=[WARP_IN], summon_to=[26, 12])]}})
    said = errors(scenario(tmp_path, KHALAI, CORPSER, plan))
    assert len(said) == 1 and "'pylon-1' is on the battlefield already" in said[0], said


RAIDERS = army("Raynor's Raiders", ("Marine", 6), ("Raynor's Raider (Marine)", 6))


def test_rapid_ingress_drone_leaves_at_the_end_of_the_round(tmp_path: Path) -> None:
    """Rapid Ingress: the Point Defense Drone at ``summon_to`` (more than 1" from any Enemy model); "Remove this Unit
    at the End of the Round": gone after the Cleanup, not Destroyed (no Supply destroyed), and set again the next
    Round."""
    ingress = hold("marine-1", use=["Rapid Ingress"], summon_to=[20, 20])
    plan = [
        {"round": 1, "red": {"movement": [deploy("marine-1", 10, 3.3)]}},
        {"round": 2, "red": {"movement": [ingress]}},
        {"round": 3, "red": {"movement": [ingress | {"summon_to": [24, 20]}]}},
    ]
    scn = scenario(tmp_path, RAIDERS, CORPSER, plan)
    assert errors(scn) == []
    sim = play(scn, 3, [(1, "movement")])
    sim.cleanup(np.arange(3))
    sim.round = 2
    sim.ref_supply = sim.current_supply()
    sim.play_phase(2, "movement", np.arange(3))
    assert lead_of(sim, "point-defense-drone-1") == {(20.0, 20.0)}
    sim.cleanup(np.arange(3))
    assert lead_of(sim, "point-defense-drone-1") == {None}
    assert missions._destroyed_supply(sim, np.arange(3)).tolist() == [[0] * 3, [0] * 3]
    sim.round = 3
    sim.play_phase(3, "movement", np.arange(3))
    assert lead_of(sim, "point-defense-drone-1") == {(24.0, 20.0)}


def test_omega_network_sets_the_omega_worm_a_source_of_creep(tmp_path: Path) -> None:
    """Omega Network (Kerrigan's Swarm): the Omega Worm at ``summon_to``; its Source of Creep ("A Friendly or Enemy
    Ground Zerg Unit Within 6\\" of this Unit, counts as being ON CREEP") then puts the Zerglings beside it ON
    CREEP."""
    from mathhammer.scenario import abilities

    plan = [
        {"round": 1, "blue": {"movement": [deploy("zergling-1", 18, 32.7), hold("corpser-1")]}},
        {"round": 2, "blue": {"movement": [hold("zergling-1", use=["Omega Network"], summon_to=[18, 27])]}},
    ]
    scn = scenario(tmp_path, TERRAN, CORPSER, plan)
    assert [e for e in errors(scn) if "corpser-1" not in e] == []
    sim = play(scn, 2, [(1, "movement"), (2, "movement")], first=1)
    assert lead_of(sim, "omega-worm-1") == {(18.0, 27.0)}
    z = sim.uids.index("zergling-1")
    for hook in sim.cards.before_attack:  # the ON CREEP of the Creep card (the Omega Worm a Source of Creep)
        hook([z], np.arange(2))
    assert any(type(c).__name__ == "Creep" for c in sim.cards)
    assert all(abilities.bit_set(sim, z, int(m), abilities.CREEP_STATUS) for m in sim.used[z])
    assert math.isclose(sim.supply(sim.uids.index("omega-worm-1"), np.asarray([1]))[0], 0)


def test_the_plan_walk_reads_the_omega_worm_a_source_of_creep(tmp_path: Path) -> None:
    """The walk's ON CREEP (``CreepTumorCheck.on_creep``, read by the Move checks and the automatic players' Move
    verdicts; ``CREEP_FAMILIES``) with the Omega Worm set: "A Friendly or Enemy Ground Zerg Unit Within 6\\" of this
    Unit, counts as being ON CREEP" (Omega Worm, Source of Creep): the Zerglings whose nearest base is 5.9" from its
    base are ON CREEP, 6.1" away or with the Worm off the table they are not; the Sources are read from the scenario's
    units once (``lookup.unit_effects``: the same as every unit's abilities walked)."""
    from types import SimpleNamespace

    from mathhammer.scenario.check.common import CREEP_FAMILIES
    from mathhammer.scenario.lookup import unit_abilities, unit_effects

    plan = [
        {"round": 1, "blue": {"movement": [deploy("zergling-1", 18, 32.7), hold("corpser-1")]}},
        {"round": 2, "blue": {"movement": [hold("zergling-1", use=["Omega Network"], summon_to=[18, 27])]}},
    ]
    scn = scenario(tmp_path, TERRAN, CORPSER, plan)
    walked = [(d, e) for d, su in scn.units.items() for a in unit_abilities(su) for e in a.effects]
    assert unit_effects(scn, "creep_source") == tuple((d, e) for d, e in walked if e.kind == "creep_source") != ()
    assert unit_effects(scn, "creep_source") is unit_effects(scn, "creep_source")  # read once
    sim = play(scn, 1, [(1, "movement"), (2, "movement")], first=1)
    world = sim.world
    worm = int(sim.pos[sim.uids.index("omega-worm-1"), 0])
    wr = scn.units["omega-worm-1"].base_mm / 25.4 / 2
    ling = scn.units["zergling-1"]
    lr = ling.base_mm / 25.4 / 2
    got = {}
    for gap in (5.9, 6.1):
        x = 18.0 + wr + lr + gap
        for _ in range(20):  # the Leading Model moved until the nearest base of the unit is ``gap`` from the Worm's
            at = world.place(ling, (x, 30.0), world.rear_of("blue"), (worm,))
            assert at is not None
            near = min(math.dist(c, (18.0, 27.0)) for c in world.placements[at].centres) - wr - lr
            x += gap - near
        assert math.isclose(near, gap, abs_tol=0.01), near
        for pos in ({"omega-worm-1": worm, "zergling-1": at}, {"zergling-1": at}):
            chk = SimpleNamespace(scn=scn, world=world, pos=pos, tumors=[])
            got[gap, len(pos)] = any(fam.on_creep(chk, "zergling-1") for fam in CREEP_FAMILIES)
    assert got == {(5.9, 2): True, (5.9, 1): False, (6.1, 2): False, (6.1, 1): False}, got


def test_underdeveloped_claws_never_burrowed(tmp_path: Path) -> None:
    """Underdeveloped Claws (Roachling): "This Unit cannot gain Burrowed Status": Lie in Wait ("The active, Unengaged
    Ground Unit gains the Burrowed Status") on the Roachlings is an error, and leaves them unburrowed in every game;
    on the Corpsers it burrows them."""

    plan = infest_plan()
    plan.append({"round": 3, "blue": {"movement": [hold("corpser-1", use=["Lie in Wait"]),
                                                   hold("roachling-1", use=["Lie in Wait"])]}})  # fmt: skip
    scn = scenario(tmp_path, TERRAN, CORPSER, plan)
    said = errors(scn)
    assert any("'roachling-1' cannot gain the Burrowed Status" in s for s in said), said
    sim = play(scn, 3, [(1, "movement"), (2, "movement"), (3, "movement")], first=1)
    r, c = sim.uids.index("roachling-1"), sim.uids.index("corpser-1")
    assert (sim.pos[r] >= 0).all()
    assert not burrow.burrowed(sim, r, np.arange(3)).any() and burrow.burrowed(sim, c, np.arange(3)).all()


def test_warp_conduit_deploys_by_the_pylon(tmp_path: Path) -> None:
    """Warp Conduit (Pylon): "Once per Round, the controlling player may deploy a Ground Unit from Reserves using this
    Pylon base as the Entry Edge": the Stalkers enter by the Pylon at (18, 18), beyond Speed from the south Entry
    Edge; a second unit by it in the Round is an error and stays in Reserves. 8.5.5 ("Set the Leading Model in contact
    with the player's Entry Edge outside of the battlefield, then move it up to the Unit's Speed"), the Pylon's base
    being the Entry Edge: no part of the Leading Model's base ends farther than Speed 4 from the Pylon's base, so
    (18, 21.3) (3.3") is legal and (18, 23) (5.0"; the centre 3.4" from the base, legal while the limit was Speed +
    the base radius) is not, in the check and in the simulation."""
    plan = [
        {"round": 1, "red": {"movement": [deploy("zealot-1", 10, 3.2)]}},
        {"round": 2, "red": {"movement": [hold("zealot-1", use=[WARP_IN], summon_to=[18, 18])]}},
        {"round": 3, "red": {"movement": [
            {"unit": "stalker-1", "action": "deploy", "to": [18, 21.3], "via": "pylon-1"}]}},
    ]  # fmt: skip
    scn = scenario(tmp_path, KHALAI, CORPSER, plan)
    assert errors(scn) == []
    sim = play(scn, 3, [(1, "movement"), (2, "movement"), (3, "movement")])
    assert lead_of(sim, "stalker-1") == {(18.0, 21.3)}
    twice = army("Khalai", ("Zealot", 3), ("Stalker", 2), ("Zealot", 3), tactical=("Gateway",))
    plan[2]["red"]["movement"].append({"unit": "zealot-2", "action": "deploy", "to": [14.6, 16.6], "via": "pylon-1"})
    scn = scenario(tmp_path, twice, CORPSER, plan)
    said = errors(scn)
    assert len(said) == 1 and "'pylon-1' lets one unit Deploy each Round" in said[0], said
    sim = play(scn, 3, [(1, "movement"), (2, "movement"), (3, "movement")])
    assert lead_of(sim, "zealot-2") == {None}
    for to in ([26, 26], [18, 23]):
        far = [*plan[:2], {"round": 3, "red": {"movement": [
            {"unit": "stalker-1", "action": "deploy", "to": to, "via": "pylon-1"}]}}]  # fmt: skip
        said = errors(scenario(tmp_path, KHALAI, CORPSER, far))
        assert len(said) == 1 and "from 'pylon-1''s base; at most Speed 4\" (8.5.5" in said[0], said
    said = errors(scenario(tmp_path, KHALAI, CORPSER, far))
    assert 'base ends 5.0" from' in said[0], said
    sim = play(scenario(tmp_path, KHALAI, CORPSER, far), 3, [(1, "movement"), (2, "movement"), (3, "movement")])
    assert lead_of(sim, "stalker-1") == {None}  # deploy_via: beyond Speed, it stays in Reserves


def test_khalai_ingenuity_near_the_pylon(tmp_path: Path) -> None:
    """Khalai Ingenuity (Pylon): "Once per Round, when a Friendly Unit Within 4\\" of this Pylon uses a Special Ability
    that costs Psionic Energy, that ability's PE cost is reduced by 1": the Zealots' Charge (1 PE) costs 0 beside the
    Pylon, 1 away from it, and only once in the Round."""
    from mathhammer.scenario.abilities import find
    from mathhammer.scenario.check import cost_discount
    from mathhammer.scenario.world import World

    plan = [{"round": 1, "red": {"movement": [deploy("zealot-1", 10, 3.2),
                                              hold("zealot-1", use=[WARP_IN], summon_to=[18, 18])]}}]  # fmt: skip
    scn = scenario(tmp_path, KHALAI, CORPSER, plan)
    world = World(scn)
    charge = find(scn, "zealot-1", "Charge")
    assert charge is not None and charge.ability.cost == 1 and charge.ability.resource == "PE"
    pylon = world.place(scn.units["pylon-1"], (18, 18), world.rear_of("red"), ())
    assert pylon is not None
    for at, off in (((18, 22), 1), ((18, 26), 0)):
        z = world.place(scn.units["zealot-1"], at, world.rear_of("red"), (pylon,))
        assert z is not None
        taken: set[tuple[str, str]] = set()
        pos = {"pylon-1": pylon, "zealot-1": z}
        assert cost_discount(scn, world, pos, "zealot-1", charge, None, taken) == off
        assert cost_discount(scn, world, pos, "zealot-1", charge, None, taken) == 0  # "Once per Round"


def omega_plan(gap: float, worm_r: float, ling_r: float, action: str = "move") -> list[dict]:
    """The Zerglings set the Omega Worm at (18, 27) in Round 2 and, in Round 3, end a ``action`` with the Leading
    Model's base ``gap`` from the Worm's, planned to go back to Reserves by it (``via``)."""
    y = 27 + worm_r + ling_r + gap
    act = {"unit": "zergling-1", "action": action, "to": [18, y], "via": "omega-worm-1"}
    return [
        {"round": 1, "blue": {"movement": [deploy("zergling-1", 18, 32.7)]}},
        {"round": 2, "blue": {"movement": [hold("zergling-1", use=["Omega Network"], summon_to=[18, 27])]}},
        {"round": 3, "blue": {"assault" if action == "run" else "movement": [act]}},
    ]  # fmt: skip


def test_omega_network_returns_a_unit_in_contact_to_reserves(tmp_path: Path) -> None:
    """Omega Network: "If a Friendly Leading model finishes a Move, Disengage, or Run action in base-to-base contact
    with the Omega Worm, the controlling player may remove that Unit from the battlefield and return it to Reserves"
    (8.5.5: not Destroyed, its Supply released): planned with ``via`` on the move. In contact (0.07" apart) the
    Zerglings leave the table in every game, no Supply destroyed; 1" away it is an error, and they stay."""
    scn = scenario(tmp_path, TERRAN, CORPSER, omega_plan(0.07, 0.0, 0.0))
    wr = scn.units["omega-worm-1"].base_mm / 25.4 / 2
    lr = scn.units["zergling-1"].base_mm / 25.4 / 2
    phases = [(1, "movement"), (2, "movement"), (3, "movement"), (3, "assault")]
    for action in ("move", "run"):
        scn = scenario(tmp_path, TERRAN, CORPSER, omega_plan(0.07, wr, lr, action))
        assert errors(scn) == []
        sim = play(scn, 4, phases, first=1)
        z = sim.uids.index("zergling-1")
        assert lead_of(sim, "zergling-1") == {None} and sim.alive[z].tolist() == [12] * 4
        assert sim.ref_supply[z].tolist() == [0] * 4  # released, not destroyed
    far = scenario(tmp_path, TERRAN, CORPSER, omega_plan(1.0, wr, lr))
    said = errors(far)
    assert len(said) == 1 and "Base-to-Base contact returns the unit to Reserves" in said[0], said
    sim = play(far, 4, phases, first=1)
    assert None not in lead_of(sim, "zergling-1")
    assert sum(v for k, v in sim.skipped.items() if "not in Base-to-Base contact with 'omega-worm-1'" in k) == 4


def test_via_names_an_omega_worm_on_a_move(tmp_path: Path) -> None:
    """``via`` on a move names a Friendly unit with Omega Network's return (a Corpser has none); on a shoot it is
    refused when the file is read."""
    import pytest

    from mathhammer.scenario.spec import ScenarioError

    units = scenario(tmp_path, TERRAN, CORPSER, omega_plan(0.07, 0.0, 0.0)).units
    wr, lr = (units[u].base_mm / 25.4 / 2 for u in ("omega-worm-1", "zergling-1"))
    plan = omega_plan(0.07, wr, lr)
    plan[2]["blue"]["movement"][0]["via"] = "corpser-1"
    said = errors(scenario(tmp_path, TERRAN, CORPSER, [*plan[:2], plan[2]]))
    assert any("via: 'corpser-1' returns no unit to Reserves" in s for s in said), said
    plan[2]["blue"]["movement"] = []
    plan[2]["blue"]["assault"] = [
        {"unit": "zergling-1", "action": "shoot", "targets": ["marine-1"], "via": "omega-worm-1"}
    ]
    with pytest.raises(ScenarioError, match="via: on a shoot; allowed on a deploy"):
        scenario(tmp_path, TERRAN, CORPSER, plan)
