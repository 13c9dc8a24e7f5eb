"""Point Defense Laser (Point Defense Drone, set by Rapid Ingress): "When another Friendly Unit Within 4\\" is targeted
by a Ranged Attack without the INSTANT keyword, remove up to 2 dice from the Attack Pool. Then remove this Unit from
the battlefield" (issue 6, point 3). Read per game at the attack: the first Batch without INSTANT at the protected
unit loses 2 dice (8.7.4 step 1: each Batch builds its own Attack Pool), and the drone leaves (not Destroyed).
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

RAIDERS = army("Raynor's Raiders", ("Marine", 6), ("Raynor's Raider (Marine)", 6))
STALKERS = army("Daelaam", ("Stalker", 2), ("Zealot", 3), tactical=("Nexus", "Forge"))


def scenario(tmp_path: Path, drone_at: tuple[float, float] | None, pride: bool = False) -> Scenario:
    """Round 3: the Marines at (18, 12) (their drone at ``drone_at``, by Rapid Ingress), the Stalkers at (18, 22)
    shoot them (with Ancient Pride: their first weapon gains INSTANT). 8.5.5: the Marines' 32 mm base Deploys 3.3"
    and the Stalkers' 80 mm 33.6" from their Entry Edges (within Speed 4"), so Round 2 brings them to (18, 8) and
    (18, 28), where Round 1 left them before (the old Round 2 is Round 3)."""
    move = {"unit": "marine-1", "action": "move", "to": [18, 12]}
    if drone_at is not None:  # Rapid Ingress, a Movement Phase ability, before the Move
        move |= {"use": ["Rapid Ingress"], "summon_to": list(drone_at)}
    shoot = {"unit": "stalker-1", "action": "shoot", "targets": ["marine-1"]}
    if pride:
        shoot["use"] = ["Ancient Pride"]
    rounds = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "stalker-1", "action": "deploy", "to": [18, 33.6]}],
                  "assault": [{"unit": "stalker-1", "action": "run", "to": [18, 29.6]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]}]},
         "blue": {"movement": [{"unit": "stalker-1", "action": "move", "to": [18, 28]}]}},
        {"round": 3,
         "red": {"movement": [move]},
         "blue": {"movement": [{"unit": "stalker-1", "action": "move", "to": [18, 24]}],
                  "assault": [shoot]}},
    ]  # fmt: skip
    return build(skirmish("laser", armies=write_armies(tmp_path, RAIDERS, STALKERS), rounds=rounds), "laser.toml")


def play(scn: Scenario, n: int) -> Simulation:
    sim = Simulation(scn, n, seed=6)
    missions.setup(sim)
    for rnd in (1, 2, 3):
        sim.round = rnd
        sim.ref_supply = sim.current_supply()
        for phase in ("movement", "assault"):
            sim.first[:] = 0  # red first: the drone is set before the Stalkers shoot
            sim.play_phase(rnd, phase, np.arange(n))
    return sim


def test_the_laser_takes_two_dice_and_the_drone_leaves(tmp_path: Path) -> None:
    """With the drone 2.7" from the Marines, the Stalkers' Particle Disruptors (RoA 4 a model, 2 models) roll 6 dice
    instead of 8: the Marines keep more models on average (by more than 5 SE), and the drone is gone after the
    attack in every game."""
    with_drone, without = scenario(tmp_path, (18, 16)), scenario(tmp_path, None)
    assert errors(with_drone) == [] and errors(without) == []
    n = 4000
    sim, plain = play(with_drone, n), play(without, n)
    m, d = sim.uids.index("marine-1"), sim.uids.index("point-defense-drone-1")
    assert (sim.pos[d] < 0).all()
    left, base = sim.alive[m].astype(float), plain.alive[m].astype(float)
    assert left.mean() > base.mean() + 5 * np.sqrt((left.var() + base.var()) / n), (left.mean(), base.mean())


@pytest.mark.parametrize(("drone_at", "pride", "stays"), [((18, 20.5), False, True), ((18, 16), True, True)])
def test_no_laser_beyond_4_inches_or_at_an_instant_weapon(
    tmp_path: Path, drone_at: tuple[float, float], pride: bool, stays: bool
) -> None:
    """ "Within 4\\"": a drone 7" from the Marines does nothing; "without the INSTANT keyword": with Ancient Pride
    ("The active Unit's first Weapon used gains INSTANT") the Stalkers' attack keeps its dice and the drone stays."""
    scn = scenario(tmp_path, drone_at, pride)
    assert errors(scn) == []
    n = 400
    sim, plain = play(scn, n), play(scenario(tmp_path, None, pride), n)
    d = sim.uids.index("point-defense-drone-1")
    assert (sim.pos[d] >= 0).all() == stays
    m = sim.uids.index("marine-1")
    assert np.array_equal(sim.alive[m], plain.alive[m])  # the same draws, the same pools
