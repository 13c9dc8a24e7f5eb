"""HEAL (X) in a scenario (issue 6, point 3; part 11 HEAL (X): "Remove X points of accumulated Damage from the Unit
(reduce its Damage Marker accordingly). HEAL cannot return Destroyed models"): Medpack (for the Friendly
Biological Unit it selects, X = the Medics Within 4" of it, Stabilizer Medpacks counting one more) and Field
Repair (the active Mechanical Unit, HEAL (2)).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

#: 1 CP; Supply Depot: Elite +1 for the Goliath; Factory: Field Repair
CARDS = ("Supply Depot", "Factory")

ZERG = army("Kerrigan's Swarm", ("Zergling", 12))
MEDPACK = "Medpack"
RED_ONE = army("Terran Armed Forces", ("Marine", 6))


def armies(d: Path, stabilizer: bool) -> dict[str, str]:
    medics = ("Medic", 3, ["Stabilizer Medpacks"] if stabilizer else [])
    terran = army("Terran Armed Forces", ("Marauder", 2), medics, ("Goliath", 1), tactical=CARDS)
    return write_armies(d, terran, ZERG)


def plan(medic_to: tuple[float, float], use: list[str], select: dict[str, str] | None = None) -> list[dict]:
    """Round 1: the Marauders on at (18, 3), the Medics at ``medic_to``. Round 2: the Medics hold and use ``use``
    (on ``select``); the Goliath comes on at (30, 2.4). Round 3: the Goliath holds and uses Field Repair. 8.5.5: each
    base ends within Speed 4" of the Entry Edge (50 mm at 3", the Medics' 32 mm at 3", the Goliath's 80 mm at 2.4")."""
    medic = {"unit": "medic-1", "action": "hold", "use": use}
    if select:
        medic["select"] = select
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marauder-1", "action": "deploy", "to": [18, 3]},
                              {"unit": "medic-1", "action": "deploy", "to": list(medic_to)}]},
         "blue": {}},
        {"round": 2, "red": {"movement": [medic, {"unit": "goliath-1", "action": "deploy", "to": [30, 2.4]}]}},
        {"round": 3, "red": {"movement": [{"unit": "goliath-1", "action": "hold", "use": ["Field Repair"]}]}},
    ]  # fmt: skip


def scenario(a: dict[str, str], rounds: list[dict]) -> Scenario:
    return build(skirmish("heal", armies=a, rounds=rounds), "heal.toml")


def play(sim: Simulation, rnd: int) -> None:
    """Round ``rnd``'s Movement Phase activations of red, in every game."""
    sim.round = rnd
    for act in sim.scn.activations(rnd, "movement", "red"):
        sim.activate(act, np.arange(sim.T))


@pytest.mark.parametrize(("stabilizer", "left"), [(False, 1), (True, 0)])
def test_medpack_heals_one_per_medic_within_4(tmp_path: Path, stabilizer: bool, left: int) -> None:
    """Medpack: HEAL (X), X "the number of models in this Unit that are Within 4\\" of the target Unit": the three
    Medics beside the Marauders (HP 5, Damage Marker 4) heal 3, leaving 1; with Stabilizer Medpacks ("treat it as
    having 1 additional model Within Range") 4, leaving 0. The Goliath's Field Repair heals 2 of its 5 (a Damage
    Marker below its HP 10)."""
    scn = scenario(armies(tmp_path, stabilizer), plan((22, 3), [MEDPACK], {MEDPACK: "marauder-1"}))
    assert errors(scn) == []
    sim = Simulation(scn, 3, seed=1)
    m, me, g = (sim.uids.index(u) for u in ("marauder-1", "medic-1", "goliath-1"))
    play(sim, 1)
    assert sim.world.models_within(int(sim.pos[me, 0]), 3, int(sim.pos[m, 0]), 2, 4.0) == 3
    sim.mark[m] = 4
    play(sim, 2)
    assert sim.mark[m].tolist() == [left] * 3
    assert sim.mark[me].tolist() == [0] * 3  # HEAL never goes below 0 (the Medics had none)
    sim.mark[g] = 5
    play(sim, 3)
    assert sim.mark[g].tolist() == [3] * 3


def test_medpack_is_checked(tmp_path: Path) -> None:
    """Medpack selects "another Friendly Biological Unit Within 4\\"": not the Goliath (Mechanical), not the Medics
    themselves, and only Within 4" at that point of the plan."""
    a = armies(tmp_path, False)
    said = errors(scenario(a, plan((22, 3), [MEDPACK], {MEDPACK: "goliath-1"})))
    assert any("select.Medpack: got 'goliath-1'; allowed: marauder-1" in p for p in said), said
    said = errors(scenario(a, plan((22, 3), [MEDPACK], {MEDPACK: "medic-1"})))
    assert any("select.Medpack: got 'medic-1'" in p for p in said), said
    said = errors(scenario(a, plan((6, 3), [MEDPACK], {MEDPACK: "marauder-1"})))
    assert any("'marauder-1' is not Within 4\" of 'medic-1'" in p for p in said), said


ROACHES = army("Kerrigan's Swarm", ("Roach", 3), tactical=("Spawning Pool",))  # 2 BM: Burrow costs 2


@pytest.mark.parametrize(("burrow_in", "left"), [("movement", 1), ("assault", 3), (None, 3)])
def test_regeneration_heals_a_burrowed_roach_as_it_activates(tmp_path: Path, burrow_in: str | None, left: int) -> None:
    """Roach Regeneration ("When this Unit becomes Activated, if it has the Burrowed Status, resolve the HEAL (2)
    effect"; an Assault Phase ability): Burrowed in the Movement Phase, the Roach (Damage Marker 3) heals 2 as it
    activates in the Assault Phase; Burrowed by that activation itself, it was not Burrowed when it became
    Activated; not Burrowed, nothing."""
    a = write_armies(tmp_path, RED_ONE, ROACHES)
    movement = {"unit": "roach-1", "action": "hold"}
    assault = {"unit": "roach-1", "action": "hold"}
    if burrow_in == "movement":
        movement["use"] = ["Burrow"]
    elif burrow_in == "assault":
        assault["use"] = ["Burrow"]
    rounds = [
        {"round": 1, "red": {}, "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}]}},
        {"round": 2, "red": {}, "blue": {"movement": [movement], "assault": [assault]}},
    ]
    scn = scenario(a, rounds)
    assert errors(scn) == []
    sim = Simulation(scn, 2, seed=1)
    r = sim.uids.index("roach-1")
    sim.round = 1
    for act in scn.activations(1, "movement", "blue"):
        sim.activate(act, np.arange(2))
    sim.mark[r] = 3
    sim.round = 2
    for phase in ("movement", "assault"):
        for act in scn.activations(2, phase, "blue"):
            sim.activate(act, np.arange(2))
    assert sim.mark[r].tolist() == [left, left]
