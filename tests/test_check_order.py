"""``scenario check`` walks each Phase in the game's turn order (``check/order.py``): 8.2.1 "players alternate
activating units, starting with the player holding the First Player Marker", the first to Pass takes it for the next
Phase (8.4.2, 8.6.2), Bound by the Khala's "Immediately Activate that Unit"; where the holder differs between games
(a Round 1 Roll-Off, 8.2.2; 8.9.6 "Award the First Player Marker to the player with fewer Victory Points") the plan is
walked with each player holding it, and what is illegal one way only is a warning with that condition."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer.scenario.check.order import merge_walks, phase_order
from mathhammer.scenario.loader import builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PHASES, Scenario

from .scenario_kit import build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies
from .test_scenario_initiative import KHALAI, TERRAN, ZERG, khala_plan, scenario, tenacity_plan


def _same_order(scn: Scenario) -> None:
    sim = Simulation(scn, 1, seed=1)
    for rnd in range(1, scn.mission.game_length + 1):
        for phase in PHASES[:2]:
            for first in (0, 1):
                mine, after = phase_order(scn, rnd, phase, first)
                theirs, passer = sim.order(rnd, phase, first)
                assert [a.where for a in mine if a.action != "pass"] == [a.where for a in theirs], (rnd, phase)
                assert after == passer, (rnd, phase, first)


@pytest.mark.parametrize("path", builtin_scenarios(), ids=lambda p: p.stem)
def test_the_walk_order_is_the_simulations_for_the_shipped_scenarios(path: Path) -> None:
    """8.2.1, 8.4.2: the check's order of a Phase and its next First Player are ``Simulation.order``'s."""
    _same_order(load_scenario(path))


@pytest.mark.parametrize("select", [None, "zealot-2", "stalker-1"])
def test_the_walk_order_follows_bound_by_the_khala(tmp_path: Path, select: str | None) -> None:
    """Bound by the Khala: the selected unit Activates at once, before the opponent's next activation (8.2.1)."""
    _same_order(scenario(tmp_path, KHALAI, TERRAN, khala_plan(select)))


@pytest.mark.parametrize(("use", "holder"), [(False, 1), (True, 0)])
def test_terran_tenacity_keeps_the_marker_in_the_walk(tmp_path: Path, use: bool, holder: int) -> None:
    """Blue Passes first and takes the First Player Marker (8.2.1), unless red claimed it (Terran Tenacity: "No other
    player may claim the First Player Marker")."""
    scn = scenario(tmp_path, TERRAN, ZERG, tenacity_plan(use))
    assert phase_order(scn, 2, "movement", 0)[1] == holder


def _shot_plan(red_holds: int, first: str) -> dict:
    """Red's Marines at the south edge, blue's Zerglings coming from the north; in Round 3's Assault Phase the
    Zerglings Run (4", 8.5.3) into the Rifle's 12" and marine-1 shoots them. Round 3's Movement Phase: red activates
    ``red_holds`` units, blue one. Round 1's First Player: ``first``."""
    deploy = [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]},
              {"unit": "marine-2", "action": "deploy", "to": [26, 3.3]}]  # fmt: skip
    holds = [{"unit": u, "action": "hold"} for u in ("marine-1", "marine-2")[:red_holds]]
    rounds = [
        {"round": 1, "red": {"movement": deploy},
         "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [18, 32.7]}]}},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [18, 28.7]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 25.7]}]}},
        {"round": 3, "red": {"movement": holds,
                             "assault": [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [18, 23.7]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 19.7]}]}},
    ]  # fmt: skip
    return {"rounds": rounds, "first_player": first}


def _shot(tmp_path: Path, red_holds: int, first: str = "red") -> Scenario:
    armies = write_armies(tmp_path, TERRAN, ZERG)
    mission = {"card": "Hold Position", "starting_supply": 12}
    return build(skirmish("order", armies=armies, mission=mission, **_shot_plan(red_holds, first)), "order.toml")


def test_a_shot_at_a_unit_that_ran_first_in_turn_order_is_legal(tmp_path: Path) -> None:
    """Round 3: red holds with two units, blue moves one, so blue runs out and Passes first whoever starts (8.2.1)
    and takes the First Player Marker for the Assault Phase (8.4.2): the Zerglings Run into range before marine-1
    shoots. Red's activations walked before blue's, the shot was refused (out of Range, 8.7.3 step 1)."""
    scn = _shot(tmp_path, 2)
    assert errors(scn) == []
    assert not [w for w in warnings(scn) if "marine-1 shoot" in w]


def test_a_shot_legal_for_one_first_player_only_is_a_warning_with_the_condition(tmp_path: Path) -> None:
    """Round 3: one activation each in the Movement Phase, so the First Player (8.9.6: fewer Victory Points, per game)
    runs out first and keeps the marker for the Assault Phase (8.4.2): where red holds it, marine-1 shoots before
    the Zerglings Run, out of Range (8.7.3 step 1); where blue does, after. A warning naming the condition."""
    scn = _shot(tmp_path, 1)
    assert errors(scn) == []
    said = [w for w in warnings(scn) if "marine-1 shoot" in w]
    assert len(said) == 1 and "Within Range" in said[0], said
    assert "only where red holds the First Player Marker" in said[0]


def test_merge_walks_errors_both_ways_stay_errors() -> None:
    red = ["f: rounds[1].red.assault[0] (round 2, Assault Phase, red, a shoot): x", "warning: f: w"]
    blue = ["f: rounds[1].red.assault[0] (round 2, Assault Phase, red, a shoot): y", "warning: f: w",
            "f: rounds[2].blue.movement[0] (round 3, Movement Phase, blue, b move): z"]  # fmt: skip
    out = merge_walks(red, blue)
    assert out[:2] == [red[0], "warning: f: w"]
    assert len(out) == 3 and out[2].startswith("warning: f: rounds[2]") and "only where blue holds" in out[2]
