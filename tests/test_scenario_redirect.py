"""Hierarch's Stand (Artanis, a Reaction; issue 6, point 3): "When another Friendly Unit Within 8\" is declared as
the target of a Ranged Attack and this Unit is a valid target, redirect the attack to this Unit. This Unit is eligible
to make an Evade Roll against the redirected attack" (10.4: declared at its trigger, the opponent's Ranged Attack).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6))
BLUE = army("Khalai", ("Zealot", 3), ("Artanis", 1))  # Khalai: a Hero slot, 1 PE (Hierarch's Stand costs 1)
STAND = {"unit": "artanis-1", "use": "Hierarch's Stand"}


def plan(artanis_x: float, react: list[dict]) -> list[dict]:
    """The Marines walk to (18, 12), the Zealots to (16, 24) and Artanis to (``artanis_x``, 24); in Round 3 the Marines
    shoot the Zealots (C-14 Rifles, 10.7" away), with ``react`` declared on that activation. 8.5.5: the Marines'
    32 mm base Deploys 3.3" from the Entry Edge, the Zealots' and Artanis's 40 mm 3.2" (within Speed 4"), so Round 2
    brings them to where Round 1 left them before (the old Round 2 is Round 3)."""
    shoot: dict = {"unit": "marine-1", "action": "shoot", "targets": ["zealot-1"]}
    if react:
        shoot["react"] = react
    x = artanis_x
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [16, 32.8]},
                               {"unit": "artanis-1", "action": "deploy", "to": [x, 32.8]}],
                  "assault": [{"unit": "zealot-1", "action": "run", "to": [16, 28.8]},
                              {"unit": "artanis-1", "action": "run", "to": [x, 28.8]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]}]},
         "blue": {"movement": [{"unit": "zealot-1", "action": "move", "to": [16, 28]},
                               {"unit": "artanis-1", "action": "move", "to": [x, 28]}]}},
        {"round": 3,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 12]}], "assault": [shoot]},
         "blue": {"movement": [{"unit": "zealot-1", "action": "move", "to": [16, 24]},
                               {"unit": "artanis-1", "action": "move", "to": [x, 24]}]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, rounds: list[dict]) -> Scenario:
    return build(skirmish("stand", armies=write_armies(tmp_path, RED, BLUE), rounds=rounds), "stand.toml")


def play(scn: Scenario, n: int = 200) -> Simulation:
    sim = Simulation(scn, n, seed=1)
    sim.run()
    return sim


def test_hierarchs_stand_takes_the_attack(tmp_path: Path) -> None:
    """Artanis 4.4" from the Zealots: with the Reaction the Marines' attack hits Artanis in every game (the Zealots
    untouched, Artanis's Shield and Damage Marker hit in some); without it the Zealots lose models in some games."""
    plain = play(scenario(tmp_path, plan(22, [])))
    stand = scenario(tmp_path, plan(22, [STAND]))
    assert errors(stand) == []
    sim = play(stand)
    z, a = sim.uids.index("zealot-1"), sim.uids.index("artanis-1")
    assert (plain.alive[z] < 3).any() and (plain.mark[a] == 0).all()
    assert (sim.alive[z] == 3).all() and (sim.mark[z] == 0).all()
    assert (sim.mark[a] > 0).any() or (sim.shielded[a] == 0).any()


def test_hierarchs_stand_gives_artanis_an_evade_roll(tmp_path: Path, seen: list) -> None:
    """ "This Unit is eligible to make an Evade Roll against the redirected attack": the target the engines get for
    Artanis may Evade."""
    sim = play(scenario(tmp_path, plan(22, [STAND])), 50)
    card = sim.units[sim.uids.index("artanis-1")].unit.card
    hp = card.hp + card.shield  # the engines count the Shield with the HP (8 + 4); a Zealot's differ
    at_artanis = [cb for batches, tc in seen if len(tc.hp) == 1 and int(tc.hp[0]) == hp for cb in batches]
    assert at_artanis and all(bool(cb.evade) for cb in at_artanis)
    assert len(at_artanis) == sum(len(batches) for batches, _ in seen)  # every Batch went to Artanis


def test_hierarchs_stand_too_far(tmp_path: Path) -> None:
    """Artanis at (30, 24), 12" from the Zealots: not triggered in any game (skip report), and the games are those
    without the Reaction; ``scenario check`` says so."""
    stand = scenario(tmp_path, plan(30, [STAND]))
    said = errors(stand)
    assert any("'zealot-1' is not Within 8\" of 'artanis-1'" in p for p in said), said
    sim, plain = play(stand), play(scenario(tmp_path, plan(30, [])))
    assert sum(v for k, v in sim.skipped.items() if "Hierarch's Stand" in k and "not triggered" in k) == 200
    z = sim.uids.index("zealot-1")
    assert np.array_equal(sim.alive[z], plain.alive[z]) and np.array_equal(sim.mark[z], plain.mark[z])


@pytest.mark.parametrize("target", ["artanis-1"])
def test_hierarchs_stand_protects_another_unit(tmp_path: Path, target: str) -> None:
    """ "another Friendly Unit": planned on an attack at Artanis itself, ``scenario check`` asks which unit it
    protects."""
    rounds = plan(22, [STAND])
    rounds[2]["red"]["assault"][0]["targets"] = [target]
    said = errors(scenario(tmp_path, rounds))
    assert any('name the Friendly Unit "Hierarch\'s Stand" answers for' in p for p in said), said
