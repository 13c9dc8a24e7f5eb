"""PLACE (X) abilities (issue 6, point 3): part 11 PLACE, "Choose a Leading Model. Remove it and set it Wholly Within
X\" of its starting position ... The Leading Model is removed and set directly, not moved along a path. However, they
must end in a legal position". Blink (Stalker, PLACE (6)), Phase (Warp Prism, PLACE (3)), Ready for Pickup? (Raynor's
Raiders, PLACE (12), "instead of performing a standard action"), and the Reaction to it, Veil of Shadows (Twilight
Council: "Use after a Friendly Unit resolves a PLACE effect. That Unit immediately resolves the HEAL (2) effect").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies

PROTOSS = army("Daelaam", ("Stalker", 2), tactical=("Twilight Council",))  # 1 PE a Round: Blink costs 1
ZERG = army("Kerrigan's Swarm", ("Roach", 3))
VEIL = {"unit": "stalker-1", "use": "Veil of Shadows"}


def plan(hold: dict) -> list[dict]:
    """Blue first. The Stalkers come to (18, 4), the Roaches to (18, 24); in Round 3's Movement Phase the
    Stalkers make ``hold`` (their Blink), then shoot the Roaches (Particle Disruptors, Range 12). 8.5.5: the Stalkers'
    80 mm base Deploys 2.4" and the Roaches' 50 mm 33" from their Entry Edges (within Speed 4"), so Round 2 brings
    them the rest of the way (the old Round 2 is Round 3)."""
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "stalker-1", "action": "deploy", "to": [18, 2.4]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "stalker-1", "action": "move", "to": [18, 4]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        {"round": 3,
         "red": {"movement": [{"unit": "stalker-1", "action": "hold", **hold}],
                 "assault": [{"unit": "stalker-1", "action": "shoot", "targets": ["roach-1"]}]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, rounds: list[dict], red: str = PROTOSS) -> Scenario:
    armies = write_armies(tmp_path, red, ZERG)
    return build(skirmish("place", armies=armies, rounds=rounds, first_player="blue"), "place.toml")


def test_blink_sets_the_stalkers_six_inches_on(tmp_path: Path) -> None:
    """From (18, 4) the Roaches, 17.4" away, are out of Range 12; Blinked to (18, 10) (PLACE (6)) the Stalkers
    shoot them in every game. Without Blink the shot is an error of ``scenario check`` and lost in every game."""
    n = 20
    lost = {}
    for blink in (False, True):
        scn = scenario(tmp_path, plan({"use": ["Blink"], "place_to": [18, 10]} if blink else {}))
        said = errors(scn)
        assert said == [] if blink else len(said) == 1 and "no planned target can be shot" in said[0], said
        sim = Simulation(scn, n, seed=1)
        sim.run()
        s = sim.uids.index("stalker-1")
        assert {sim.world.placements[p].centres[0] for p in sim.pos[s].tolist()} == {(18.0, 10.0 if blink else 4.0)}
        lost[blink] = sum(v for k, v in sim.skipped.items() if "no planned target it may shoot" in k)
    assert lost == {False: n, True: 0}


def test_place_is_checked(tmp_path: Path) -> None:
    """``scenario check``: Wholly Within X" (the Leading Model's centre at most 6" away for Blink); ``place_to`` only
    with a PLACE ability; the ability without ``place_to`` is a warning; Ready for Pickup? "resolves instead of
    performing a standard action": the activation must hold."""
    said = errors(scenario(tmp_path, plan({"use": ["Blink"], "place_to": [18, 11]})))
    assert any('place_to: 7.0" from the Leading Model; PLACE (6)' in p for p in said), said
    said = errors(scenario(tmp_path, plan({"place_to": [18, 10]})))
    assert any("place_to: no ability of use resolves a PLACE effect" in p for p in said), said
    warned = warnings(scenario(tmp_path, plan({"use": ["Blink"]})))
    assert any("a PLACE effect with no place_to" in p for p in warned), warned
    raiders = army("Raynor's Raiders", ("Marine", 6))
    pickup = {"unit": "marine-1", "action": "move", "to": [18, 8], "use": ["Ready for Pickup?"], "place_to": [18, 14]}
    rounds = [
        {"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 4]}]}},
        {"round": 2, "red": {"movement": [pickup]}},
    ]
    said = errors(scenario(tmp_path, rounds, raiders))
    assert any("resolves instead of a standard action (its text): the action must be hold" in p for p in said), said


@pytest.mark.parametrize("veil", [False, True])
def test_veil_of_shadows_heals_after_a_place(tmp_path: Path, veil: bool) -> None:
    """Veil of Shadows on the Stalkers' Blink: HEAL (2) (part 11: the Damage Marker goes down by 2, never below 0)
    where they were set; without it the marker stays."""
    hold: dict = {"use": ["Blink"], "place_to": [18, 10]}
    if veil:
        hold["react"] = [VEIL]
    scn = scenario(tmp_path, plan(hold))
    assert errors(scn) == []
    n = 4
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    s = sim.uids.index("stalker-1")
    for rnd in (1, 2):  # the Deploy, then the Move to (18, 4)
        sim.round = rnd
        (act,) = scn.activations(rnd, "movement", "red")
        sim.activate(act, np.arange(n))
    sim.mark[s] = 3
    sim.round = 3
    (blink,) = scn.activations(3, "movement", "red")
    sim.activate(blink, np.arange(n))
    assert sim.mark[s].tolist() == [1 if veil else 3] * n


def test_leaping_strike_only_if_unengaged(tmp_path: Path) -> None:
    """Leaping Strike (Kerrigan): "If Unengaged, resolve the PLACE (6) effect": Kerrigan is set 5" on where she is
    Unengaged, stays where she is Engaged (skip report)."""
    from mathhammer.scenario.world import Placement

    zerg = army("Kerrigan's Swarm", ("Kerrigan", 1))
    terran = army("Terran Armed Forces", ("Marine", 6))
    leap = {"unit": "kerrigan-1", "action": "hold", "use": ["Leaping Strike"], "place_to": [18, 25]}
    rounds = [{"round": 1, "blue": {"movement": [leap]}}]
    scn = build(skirmish("leap", armies=write_armies(tmp_path, terran, zerg), rounds=rounds), "leap.toml")
    n = 4
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    world = sim.world
    k, m = sim.uids.index("kerrigan-1"), sim.uids.index("marine-1")
    pid = world.place(scn.units["kerrigan-1"], (18, 30), (0, 1), ())
    assert pid is not None
    sim.pos[k] = pid
    r = world._radius(pid) + 32 / 25.4 / 2
    for games, y in ((slice(0, 2), 30 + r + 0.4), (slice(2, 4), 30 + r + 4.0)):  # Engaged in games 0 and 1 only
        world.placements.append(Placement("marine-1", tuple((x, y) for x in (18.0, 16.7, 19.3, 15.4, 20.6, 14.1))))
        sim.pos[m, games] = len(world.placements) - 1
    sim.sync_board()
    assert sim.engaged_mask(np.arange(n), k).tolist() == [True, True, False, False]
    sim.round = 1
    (act,) = scn.activations(1, "movement", "blue")
    sim.activate(act, np.arange(n))
    ys = [world.placements[p].centres[0][1] for p in sim.pos[k].tolist()]
    assert ys == [30.0, 30.0, 25.0, 25.0]
    assert sum(v for key, v in sim.skipped.items() if "no PLACE (its text: If Unengaged)" in key) == 2
