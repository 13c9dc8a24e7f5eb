"""An ability's extra Move (issue 6, point 3): Leg Enhancements ("This Unit performs a 2\" Move action. This does not
count towards its action limit") and Go! Go! Go! ("The active Biological Unit performs a 2\" Move action ..."). The
plan says where it ends (``extra_to``); it comes before the activation's action (8.5.3 Move; 8.5.2: an Engaged
unit cannot Move).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import Placement

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies

PROTOSS = army("Daelaam", ("Zealot", 3, ["Leg Enhancements"]))  # Speed 4; 1 PE a Round from the Faction Card
TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Goliath", 1), tactical=("Barracks", "Supply Depot"))
LEGS = "Leg Enhancements"
GO = "Go! Go! Go!"


def scenario(tmp_path: Path, rounds: list[dict]) -> Scenario:
    armies = write_armies(tmp_path, PROTOSS, TERRAN)
    return build(skirmish("extra", armies=armies, rounds=rounds, first_player="red"), "extra.toml")


def zealot_plan(move: dict) -> list[dict]:
    """The Zealots deploy at (18, 3.2) (8.5.5: their 40 mm base within Speed 4" of the Entry Edge); in Round 2 they
    make ``move``."""
    return [
        {"round": 1, "red": {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [18, 3.2]}]}},
        {"round": 2, "red": {"movement": [{"unit": "zealot-1", **move}]}},
    ]


def lead_ys(scn: Scenario, n: int = 8) -> set[float]:
    sim = Simulation(scn, n, seed=1)
    sim.run()
    z = sim.uids.index("zealot-1")
    return {round(sim.world.placements[p].centres[0][1], 6) for p in sim.pos[z].tolist()}


def test_leg_enhancements_moves_two_inches_before_the_move(tmp_path: Path) -> None:
    """Leg Enhancements to (18, 5.2), then the Move (Speed 4) to (18, 9.2): 6" in one activation, legal with the
    ability and ending there in every game; without the ability the 4" Move from (18, 3.2) cannot reach (18, 9.2)."""
    move = {"action": "move", "to": [18, 9.2], "use": [LEGS], "extra_to": [18, 5.2]}
    scn = scenario(tmp_path, zealot_plan(move))
    assert errors(scn) == []
    assert lead_ys(scn) == {9.2}
    plain = scenario(tmp_path, zealot_plan({"action": "move", "to": [18, 9.2]}))
    assert [p for p in errors(plain) if 'moves 6.0"; Speed is 4"' in p]


def test_the_extra_move_is_checked(tmp_path: Path) -> None:
    """``scenario check``: at most the ability's 2"; ``extra_to`` only with such an ability; the ability without
    ``extra_to`` is a warning (the unit stays); Go! Go! Go! only for a Biological Unit (its text)."""
    said = errors(scenario(tmp_path, zealot_plan({"action": "hold", "use": [LEGS], "extra_to": [18, 6.2]})))
    assert any('extra_to: moves 3.0"; the extra Move is 2"' in p for p in said), said
    said = errors(scenario(tmp_path, zealot_plan({"action": "hold", "extra_to": [18, 5.2]})))
    assert any("extra_to: no ability of use makes an extra Move" in p for p in said), said
    warned = warnings(scenario(tmp_path, zealot_plan({"action": "hold", "use": [LEGS]})))
    assert any("an extra Move with no extra_to" in p for p in warned), warned
    goliath = [
        {"round": 1, "blue": {"movement": [{"unit": "goliath-1", "action": "deploy", "to": [18, 32]}]}},
        {
            "round": 2,
            "blue": {"movement": [{"unit": "goliath-1", "action": "hold", "use": [GO], "extra_to": [18, 30]}]},
        },
    ]
    said = errors(scenario(tmp_path, goliath))
    assert any("'Go! Go! Go!' (Barracks) is for a Biological Unit" in p for p in said), said


@pytest.mark.parametrize("engaged", [False, True])
def test_an_engaged_unit_makes_no_extra_move(tmp_path: Path, engaged: bool) -> None:
    """8.5.2 / 8.7.1: an Engaged unit cannot Move: Go! Go! Go! leaves the Marines where they are in the games where
    they are Engaged with the Zealots (skip report), and moves them 2" where they are not."""
    rounds = [
        {"round": 1, "blue": {"movement": [{"unit": "marine-1", "action": "hold", "use": [GO], "extra_to": [18, 22]}]}}
    ]
    scn = scenario(tmp_path, rounds)
    n = 6
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    world = sim.world
    m = world.place(scn.units["marine-1"], (18, 20), (0, 1), ())
    assert m is not None
    zy = 18.4 if engaged else 14.0  # bases 0.63" and 0.63": 0.26" apart (Engaged) or 4.7"
    world.placements.append(Placement("zealot-1", ((18.0, zy), (16.7, zy), (19.3, zy))))
    sim.pos[sim.uids.index("marine-1")] = m
    sim.pos[sim.uids.index("zealot-1")] = len(world.placements) - 1
    sim.sync_board()
    sim.round = 1
    (act,) = scn.activations(1, "movement", "blue")
    sim.activate(act, np.arange(n))
    u = sim.uids.index("marine-1")
    ys = {round(world.placements[p].centres[0][1], 6) for p in sim.pos[u].tolist()}
    assert ys == ({20.0} if engaged else {22.0})
    assert sum(v for k, v in sim.skipped.items() if "no extra Move" in k) == (n if engaged else 0)


@pytest.mark.parametrize(("use", "ok"), [([], False), (["Stimpack"], True)])
def test_a_move_reads_buff_speed(tmp_path: Path, use: list[str], ok: bool) -> None:
    """Stimpack ("This Unit gains BUFF Speed (3)"): the Marines (Speed 4) Move 7" with it in that activation;
    without it ``scenario check`` refuses the 7" (8.5.3)."""
    rounds = [
        {"round": 1, "blue": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 32]}]}},
        {"round": 2, "blue": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 25], "use": use}]}},
    ]
    said = [p for p in errors(scenario(tmp_path, rounds)) if "moves" in p]
    if ok:
        assert said == []
    else:
        assert len(said) == 1 and 'moves 7.0"; Speed is 4"' in said[0], said
