"""Veteran of Tarsonis (Marauder upgrade: "While this Unit is Within 3\" of a Mission Marker, its Armour
characteristic is increased by 1"; issue 6, point 3): the ``armour_near_marker`` effect, read per game when
the unit is attacked (one step better, never below 2+, as profiles/notes/terran.md reads "increased")."""

from __future__ import annotations

from typing import Any

import pytest

from mathhammer.scenario.sim import Simulation

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marauder", 2, ["Veteran of Tarsonis"]))
ZERG = army("Kerrigan's Swarm", ("Roach", 3))


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("veteran"), TERRAN, ZERG)


def plan(marauder: tuple[float, float]) -> list[dict]:
    """The Marauders walk to ``marauder`` by Round 2; the Roach walks to (14, 17) and shoots them in Round 3 (both
    deploy with their 50 mm bases within Speed 4" of the Entry Edge, 8.5.5: centres 3" from it)."""
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marauder-1", "action": "deploy", "to": [marauder[0], 3]}],
                 "assault": [{"unit": "marauder-1", "action": "run", "to": [marauder[0], (3 + marauder[1]) / 2]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [14, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [14, 29]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marauder-1", "action": "move", "to": list(marauder)}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [14, 25]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [14, 21]}]}},
        {"round": 3, "red": {},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [14, 17]}],
                  "assault": [{"unit": "roach-1", "action": "shoot", "targets": ["marauder-1"]}]}},
    ]  # fmt: skip


def armour_seen(armies: dict[str, str], marauder: tuple[float, float], seen: list[tuple[Any, Any]]) -> set[int]:
    scn = build(skirmish("veteran", armies=armies, rounds=plan(marauder)), "veteran.toml")
    assert errors(scn) == []
    seen.clear()
    sim = Simulation(scn, 200, seed=9)
    sim.run()
    shots = [cb for batches, _ in seen for cb in batches if cb.label.startswith("Acid Saliva")]
    assert shots, sim.skipped
    return {int(cb.armour_target) for cb in shots}


def test_veteran_of_tarsonis_near_a_marker(armies: dict[str, str], seen: list[tuple[Any, Any]]) -> None:
    """Marker 1 is at (9, 10): Marauders (Armour 4+) at (10, 11) are Within 3" of it (from a deploy 3" from the
    Entry Edge, 8.5.5, two 4" steps reach y = 11, not 12 as before) and roll Armour at 3+; at
    (17, 8), 6.6" from it and 8.4" from marker 5, at 4+."""
    assert armour_seen(armies, (10, 11), seen) == {3}
    assert armour_seen(armies, (17, 8), seen) == {4}
