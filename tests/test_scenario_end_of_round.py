"""Effects "At the End of the Round" (issue 6, point 3), resolved before the Cleanup (8.9.5): Psionic Transfer (Adept:
"Set a Shade token Wholly Within 12\\" of any model in this Unit. At the End of the Round, the controlling player may
set all models of this Unit in Coherency, treating the Shade token as the Leading Model"), Ready for Dust-Off
(Dropship) and Ventral Sacs (Overlord): "Set a Faction Indicator anywhere on the battlefield more than 10\\" away from
any Enemy model. At the End of the Round, the controlling player may Deploy one Ground Unit from Reserves in
base-to-base contact with this Faction Indicator".
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mathhammer.scenario import mission as missions
from mathhammer.scenario.abilities import TOKEN_CONTACT, TOKEN_RADIUS
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

ADEPTS = army("Daelaam", ("Adept", 4), ("Zealot", 3))
TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Dropship",))
ZERG = army("Kerrigan's Swarm", ("Zergling", 12))


def scenario(tmp_path: Path, red: str, rounds: list[dict]) -> Scenario:
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("end", armies=write_armies(tmp_path, red, ZERG), rounds=rounds, mission=mission)
    return build(data, "end.toml")


def deploy(unit: str, x: float, y: float) -> dict:
    return {"unit": unit, "action": "deploy", "to": [x, y]}


def two_rounds(scn: Scenario, n: int) -> Simulation:
    """Rounds 1 and 2 (every Phase) of ``n`` games, red first, with Round 1's Cleanup; Round 2 stops before its
    Cleanup."""
    sim = Simulation(scn, n, seed=3)
    missions.setup(sim)
    for rnd in (1, 2):
        sim.round = rnd
        sim.ref_supply = sim.current_supply()
        for phase in ("movement", "assault", "combat"):
            sim.first[:] = 0
            sim.play_phase(rnd, phase, np.arange(n))
        if rnd == 1:
            sim.cleanup(np.arange(n))
    return sim


def lead_of(sim: Simulation, unit: str) -> set[tuple[float, float] | None]:
    u = sim.uids.index(unit)
    return {sim.world.placements[p].centres[0] if p >= 0 else None for p in sim.pos[u].tolist()}


def transfer_plan(shade: tuple[float, float]) -> list[dict]:
    hold = {"unit": "adept-1", "action": "hold", "use": ["Psionic Transfer"], "token_at": list(shade)}
    return [
        {"round": 1, "red": {"movement": [deploy("adept-1", 10, 4)]}},
        {"round": 2, "red": {"movement": [hold]}},
        {"round": 3, "red": {"movement": [{"unit": "adept-1", "action": "move", "to": [10, 16]}]}},
    ]


def test_psionic_transfer_sets_the_unit_at_the_shade(tmp_path: Path) -> None:
    """The Shade at (10, 14), 10" from the Adepts: at the End of Round 2 their Leading Model stands there (before it,
    where it was); ``scenario check`` reads them there in Round 3 (a 2" Move from the Shade, not 12" from (10, 4))."""
    scn = scenario(tmp_path, ADEPTS, transfer_plan((10, 14)))
    assert errors(scn) == []
    sim = two_rounds(scn, 4)
    assert lead_of(sim, "adept-1") == {(10.0, 4.0)}
    sim.cleanup(np.arange(4))
    assert lead_of(sim, "adept-1") == {(10.0, 14.0)}


def test_psionic_transfer_shade_wholly_within_12(tmp_path: Path) -> None:
    """ "Wholly Within 12\\"": the Shade at (10, 17.5) is not (its base reaches past 12" of the nearest Adept): an
    error, and the Adepts stay (skip report)."""
    scn = scenario(tmp_path, ADEPTS, transfer_plan((10, 17.5))[:2])
    said = errors(scn)
    assert len(said) == 1 and 'the Shade token is not Wholly Within 12" of a model' in said[0], said
    sim = two_rounds(scn, 4)
    sim.cleanup(np.arange(4))
    assert lead_of(sim, "adept-1") == {(10.0, 4.0)}
    assert sum(v for k, v in sim.skipped.items() if "not Wholly Within 12" in k) == 4


def dust_off_plan(zerglings: bool) -> list[dict]:
    hold = {"unit": "marine-1", "action": "hold", "use": ["Ready for Dust-Off"], "token_at": [18, 20],
            "select": {"Ready for Dust-Off": "marine-2"}}  # fmt: skip
    rounds = [
        {"round": 1, "red": {"movement": [deploy("marine-1", 10, 3.3)]}},
        {"round": 2, "red": {"movement": [hold]}},
    ]
    if zerglings:  # 32 mm bases within Speed 4" of the Entry Edge (8.5.5): centres 3.3" from it
        rounds[0]["blue"] = {"movement": [deploy("zergling-1", 18, 32.7)], "assault": [
            {"unit": "zergling-1", "action": "run", "to": [18, 28.7]}]}  # fmt: skip
    return rounds


def test_ready_for_dust_off_deploys_at_the_indicator(tmp_path: Path) -> None:
    """At the End of Round 2 marine-2 Deploys from Reserves with its Leading Model touching the Faction Indicator at
    (18, 20), on the side of the south Entry Edge."""
    scn = scenario(tmp_path, TERRAN, dust_off_plan(False))
    assert errors(scn) == []
    sim = two_rounds(scn, 4)
    assert lead_of(sim, "marine-2") == {None}
    sim.cleanup(np.arange(4))
    ((x, y),) = lead_of(sim, "marine-2")
    r = scn.units["marine-2"].base_mm / 25.4 / 2
    assert x == 18.0 and math.isclose(20 - y - TOKEN_RADIUS - r, TOKEN_CONTACT / 2)


def test_ready_for_dust_off_not_within_10_of_an_enemy(tmp_path: Path) -> None:
    """ "more than 10\\" away from any Enemy model": with the Zerglings run to (18, 28.7) the Indicator at (18, 20) is
    too near; an error, and marine-2 stays in Reserves (skip report)."""
    scn = scenario(tmp_path, TERRAN, dust_off_plan(True))
    said = errors(scn)
    assert len(said) == 1 and 'more than 10" from any Enemy model' in said[0], said
    sim = two_rounds(scn, 4)
    sim.cleanup(np.arange(4))
    assert lead_of(sim, "marine-2") == {None}
    assert sum(v for k, v in sim.skipped.items() if "Faction Indicator would be Within 10" in k) == 4


DROPS_RED = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6), tactical=("Dropship",))
DROPS_BLUE = army("Kerrigan's Swarm", ("Zergling", 12), ("Zergling", 12), tactical=("Overlord", "Accelerating Creep"))


def both_drops_plan(red_at: tuple[float, float], blue_at: tuple[float, float]) -> list[dict]:
    """Round 2: red sets Ready for Dust-Off's Faction Indicator at ``red_at`` (marine-2), then blue Ventral Sacs' at
    ``blue_at`` (zergling-2): in plan order, red's End of the Round effect comes first."""
    red = {"unit": "marine-1", "action": "hold", "use": ["Ready for Dust-Off"], "token_at": list(red_at),
           "select": {"Ready for Dust-Off": "marine-2"}}  # fmt: skip
    blue = {"unit": "zergling-1", "action": "hold", "use": ["Ventral Sacs"], "token_at": list(blue_at),
            "select": {"Ventral Sacs": "zergling-2"}}  # fmt: skip
    return [
        {"round": 1, "red": {"movement": [deploy("marine-1", 6, 3.3)]},
         "blue": {"movement": [deploy("zergling-1", 30, 32.7)]}},
        {"round": 2, "red": {"movement": [red]}, "blue": {"movement": [blue]}},
    ]  # fmt: skip


def test_end_of_round_effects_first_player_first(tmp_path: Path) -> None:
    """8.9.4 Resolve End of the Round Effects: "The holder of the First Player Marker resolves their first." Red's
    Indicator at (18, 22) Deploys marine-2 on its south side, blue's just south of it Deploys zergling-2 on its north
    side: both Leading Models would stand on the same spot, so only the effect resolved first Deploys its unit. The
    plan sets red's first; in the games where blue holds the First Player Marker, blue's resolves first."""
    data = skirmish(
        "end",
        armies=write_armies(tmp_path, DROPS_RED, DROPS_BLUE),
        rounds=[],
        mission={"card": "Hold Position", "starting_supply": 20},
    )
    probe = build(data, "end.toml")
    half_m = probe.units["marine-2"].base_mm / 25.4 / 2
    half_z = probe.units["zergling-2"].base_mm / 25.4 / 2
    red_at = (18.0, 22.0)
    spot = red_at[1] - TOKEN_RADIUS - half_m - TOKEN_CONTACT / 2  # marine-2's Leading Model (y)
    blue_at = (18.0, spot - TOKEN_RADIUS - half_z - TOKEN_CONTACT / 2)
    data["rounds"] = both_drops_plan(red_at, blue_at)
    scn = build(data, "end.toml")
    sim = two_rounds(scn, 4)
    sim.first[:] = [0, 1, 0, 1]  # the First Player Marker: red, blue, red, blue
    sim.cleanup(np.arange(4))
    marines = sim.pos[sim.uids.index("marine-2")] >= 0
    zerglings = sim.pos[sim.uids.index("zergling-2")] >= 0
    assert marines.tolist() == [True, False, True, False]
    assert zerglings.tolist() == [False, True, False, True]
