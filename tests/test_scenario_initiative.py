"""Abilities that change who activates when (issue 6, point 3): Terran Tenacity ("Once per Game. Immediately claim
the First Player Marker. No other player may claim the First Player Marker for the remainder of this Phase") and
Bound by the Khala ("At the end of the active Unit's Activation, select one other Friendly Unit eligible to Activate
in the current Phase. Immediately Activate that Unit"), against 8.2.1: players alternate activations, "the first
player to Pass takes the First Player Marker" for the next Phase.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6))
ZERG = army("Kerrigan's Swarm", ("Zergling", 12))
TENACITY = "Terran Tenacity"


def scenario(tmp_path: Path, red: str, blue: str, rounds: list[dict]) -> Scenario:
    armies = write_armies(tmp_path, red, blue)
    mission = {"card": "Hold Position", "starting_supply": 12}  # room to deploy every unit in Round 1
    data = skirmish("initiative", armies=armies, rounds=rounds, first_player="red", mission=mission)
    return build(data, "initiative.toml")


def hold(unit: str, **more: object) -> dict:
    return {"unit": unit, "action": "hold", **more}


def tenacity_plan(use: bool) -> list[dict]:
    """Round 1: everyone deploys (the bases within Speed of the Entry Edges, 8.5.5). Round 2, Movement Phase: red
    (First Player) holds with both Marine units, blue with its Zerglings only, so blue runs out first and Passes; the
    first red activation uses Terran Tenacity where ``use``."""
    first = hold("marine-1", use=[TENACITY]) if use else hold("marine-1")
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [10, 3.3]},
                              {"unit": "marine-2", "action": "deploy", "to": [26, 3.3]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [18, 32.7]}]}},
        {"round": 2, "red": {"movement": [first, hold("marine-2")]}, "blue": {"movement": [hold("zergling-1")]}},
    ]  # fmt: skip


@pytest.mark.parametrize(("use", "holder"), [(False, 1), (True, 0)])
def test_terran_tenacity_keeps_the_first_player_marker(tmp_path: Path, use: bool, holder: int) -> None:
    """Blue Passes first in Round 2's Movement Phase and takes the First Player Marker for the Assault Phase
    (8.2.1); after Terran Tenacity red keeps it: "No other player may claim" it for the rest of the Phase."""
    scn = scenario(tmp_path, TERRAN, ZERG, tenacity_plan(use))
    assert errors(scn) == []
    sim = Simulation(scn, 6, seed=1)
    live = np.arange(6)
    sim.first[:] = 0
    sim.round = 1
    sim.play_phase(1, "movement", live)
    sim.round = 2
    sim.play_phase(2, "movement", live)
    assert sim.first.tolist() == [holder] * 6


def test_terran_tenacity_is_once_per_game(tmp_path: Path) -> None:
    """ "Once per Game" (its text): a second use, in a later Round, is an error of ``scenario check``."""
    rounds = tenacity_plan(True)
    rounds.append({"round": 3, "red": {"movement": [hold("marine-2", use=[TENACITY])]}, "blue": {}})
    said = errors(scenario(tmp_path, TERRAN, ZERG, rounds))
    assert len(said) == 1 and '"Once per Game" (its text): already used at rounds[1]' in said[0], said


KHALAI = army("Khalai", ("Zealot", 3), ("Zealot", 3), ("Stalker", 2), tactical=("Gateway",))
KHALA = "Bound by the Khala"


def khala_plan(select: str | None) -> list[dict]:
    """Round 2, Movement Phase, red first: red holds with zealot-1 (using Bound by the Khala on ``select``), then
    stalker-1, then zealot-2; blue with marine-1, then marine-2."""
    z1 = hold("zealot-1", use=[KHALA], select={KHALA: select}) if select else hold("zealot-1")
    return [
        {"round": 1,
         "red": {"movement": [{"unit": u, "action": "deploy", "to": [x, y]}  # 8.5.5: 40 mm 3.2", 80 mm 2.4"
                              for u, x, y in (("zealot-1", 8, 3.2), ("zealot-2", 18, 3.2), ("stalker-1", 28, 2.4))]},
         "blue": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [10, 32.7]},
                               {"unit": "marine-2", "action": "deploy", "to": [26, 32.7]}]}},
        {"round": 2,
         "red": {"movement": [z1, hold("stalker-1"), hold("zealot-2")]},
         "blue": {"movement": [hold("marine-1"), hold("marine-2")]}},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("select", "order", "passer"),
    [
        (None, ["zealot-1", "marine-1", "stalker-1", "marine-2", "zealot-2"], 1),
        ("zealot-2", ["zealot-1", "zealot-2", "marine-1", "stalker-1", "marine-2"], 0),
        ("stalker-1", ["zealot-1", "stalker-1", "marine-1", "zealot-2", "marine-2"], 0),
    ],
)
def test_bound_by_the_khala_activates_the_selected_unit_at_once(
    tmp_path: Path, select: str | None, order: list[str], passer: int
) -> None:
    """8.2.1 alternation, except that the selected unit's activation comes right after the one using the ability,
    before the opponent's next; the rest alternate as before. Without it blue runs out first (after zealot-2's
    activation, at its turn) and takes the First Player Marker; with it red runs out first, at its turn after
    marine-2."""
    scn = scenario(tmp_path, KHALAI, TERRAN, khala_plan(select))
    assert errors(scn) == []
    sim = Simulation(scn, 1, seed=1)
    acts, first_out = sim.order(2, "movement", 0)
    assert [a.unit for a in acts] == order
    assert first_out == passer
    dead = {sim.uids.index(u) for u in ("zealot-1", "stalker-1", "marine-1", "marine-2")}  # zealot-2 destroyed
    acts, _ = sim.order(2, "movement", 0, dead)
    assert [a.unit for a in acts] == [u for u in order if u != "zealot-2"]


def test_bound_by_the_khala_is_checked(tmp_path: Path) -> None:
    """``scenario check``: the selected unit is another Friendly Unit with a planned activation later in the
    Phase."""
    said = errors(scenario(tmp_path, KHALAI, TERRAN, khala_plan("marine-1")))
    assert any("select.Bound by the Khala: got 'marine-1'; allowed: stalker-1, zealot-2" in p for p in said), said
    plan = khala_plan("zealot-2")
    plan[1]["red"]["movement"] = [hold("zealot-2"), plan[1]["red"]["movement"][0]]
    plan[1]["red"]["movement"][1]["unit"] = "zealot-1"
    said = errors(scenario(tmp_path, KHALAI, TERRAN, plan))
    assert any("'zealot-2' has no planned activation later in this Phase" in p for p in said), said
