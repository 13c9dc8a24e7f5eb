"""RESPAWN (issue 6, point 3; part 11 RESPAWN (X): "Return up to X Destroyed models to this Unit. The return cannot
increase the Unit's Current Supply Value ... Set each returned model in Base-to-Base contact with an existing model in
the Unit. Returned models cannot be set Within the Engagement Range of any Enemy Unit. If a model cannot be set
legally, it cannot be returned"), from Zergling Reconstitution (Swarmling): "Resolve the RESPAWN (2) effect, or
RESPAWN (3) if the Unit is ON CREEP".
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.ranks import CONTACT
from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6))
RECON = "Zergling Reconstitution"


def scenario(tmp_path: Path, use: list[str], token: tuple[float, float] | None = None) -> Scenario:
    zerg = army("Kerrigan's Swarm", ("Swarmling (Zergling)", 18), tactical=("Hatchery", "Accelerating Creep"))
    hold: dict = {"unit": "swarmling-1", "action": "hold", "use": use}
    if token is not None:
        hold["token_at"] = list(token)
    rounds = [
        # 8.5.5: the 32 mm base within Speed 4" of the north Entry Edge
        {"round": 1, "blue": {"movement": [{"unit": "swarmling-1", "action": "deploy", "to": [18, 32.7]}]}},
        {"round": 2, "blue": {"movement": [hold]}},
    ]
    data = skirmish("respawn", armies=write_armies(tmp_path, TERRAN, zerg), rounds=rounds)
    return build(data, "respawn.toml")


def play(scn: Scenario, left: list[int]) -> Simulation:
    """Round 1's Movement Phase, then ``left`` models in each game, then Round 2's Movement Phase."""
    n = len(left)
    sim = Simulation(scn, n, seed=4)
    missions.setup(sim)
    sim.round = 1
    sim.play_phase(1, "movement", np.arange(n))
    u = sim.uids.index("swarmling-1")
    sim.alive[u] = left
    sim.round = 2
    sim.play_phase(2, "movement", np.arange(n))
    return sim


@pytest.mark.parametrize(("creep", "x"), [(False, 2), (True, 3)])
def test_zergling_reconstitution_returns_models(tmp_path: Path, creep: bool, x: int) -> None:
    """RESPAWN (2), or (3) ON CREEP (a Creep Tumor set by Creep Spread Within 6" in the same activation): 10 models
    left -> 10 + X; 17 left -> 18 (only one was Destroyed); 6 left -> 6, as a seventh would raise the Current Supply
    Value from 0 to 1 (Models 1-6: Supply 0, 7-18: Supply 1)."""
    use = ["Creep Spread", RECON] if creep else [RECON]
    scn = scenario(tmp_path, use, (18, 34) if creep else None)
    assert errors(scn) == []
    sim = play(scn, [10, 10, 17, 6])
    u = sim.uids.index("swarmling-1")
    assert sim.alive[u].tolist() == [10 + x, 10 + x, 18, 6]
    assert [sim.supply(u, np.asarray([a]))[0] for a in (6, 7)] == [0, 1]


def test_returned_models_touch_the_unit_and_no_base(tmp_path: Path) -> None:
    """Each returned model in Base-to-Base contact with a model of the unit (centres 2r + 0.025" apart, as Close
    Ranks sets them), overlapping no base; the live models stay where they were."""
    scn = scenario(tmp_path, [RECON])
    sim = play(scn, [10])
    u = sim.uids.index("swarmling-1")
    p = sim.world.placements[int(sim.pos[u, 0])]
    r = scn.units["swarmling-1"].base_mm / 25.4 / 2
    live, back = p.centres[:10], p.centres[10:12]
    assert len(p.centres) == 18
    for c in back:
        assert any(abs(math.dist(c, m) - (2 * r + CONTACT / 2)) < 1e-9 for m in live), c
    alive = p.centres[:12]
    assert min(math.dist(a, b) for i, a in enumerate(alive) for b in alive[i + 1 :]) >= 2 * r
    before = Simulation(scn, 1, seed=4)
    missions.setup(before)
    before.round = 1
    before.play_phase(1, "movement", np.arange(1))
    assert before.world.placements[int(before.pos[u, 0])].centres[:10] == live


def test_no_model_returns_within_1_inch_of_an_enemy(tmp_path: Path) -> None:
    """ "Returned models cannot be set Within the Engagement Range of any Enemy Unit": with Marines ringing the two
    live Zerglings 0.6" away (game 0) no spot in Base-to-Base contact is more than 1" from them, and none returns
    (skip report); with the Marines far (game 1) both return."""
    from mathhammer.scenario.world import Placement

    scn = scenario(tmp_path, [RECON])
    n = 2
    sim = Simulation(scn, n, seed=1)
    missions.setup(sim)
    world = sim.world
    u, m = sim.uids.index("swarmling-1"), sim.uids.index("marine-1")
    r = scn.units["swarmling-1"].base_mm / 25.4 / 2
    rm = scn.units["marine-1"].base_mm / 25.4 / 2
    zerg = ((18.0, 20.0), (18.0 + 2 * r + 0.05, 20.0))
    world.placements.append(Placement("swarmling-1", zerg + tuple((5.0 + 2 * i, 30.0) for i in range(16))))
    sim.pos[u] = len(world.placements) - 1
    sim.alive[u] = 2
    cx, cy = (zerg[0][0] + zerg[1][0]) / 2, 20.0
    ring = 2 * r + 0.6 + rm
    marines = tuple((cx + ring * math.cos(a), cy + ring * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 6, False))
    far = tuple((6.0 + 1.5 * i, 5.0) for i in range(6))
    for game, where in enumerate((marines, far)):
        world.placements.append(Placement("marine-1", where))
        sim.pos[m, game] = len(world.placements) - 1
    sim.sync_board()
    sim.round = 2
    (act,) = scn.activations(2, "movement", "blue")
    sim.activate(act, np.arange(n))
    assert sim.alive[u].tolist() == [2, 4]
    assert sum(v for k, v in sim.skipped.items() if "RESPAWN: a model found no free spot" in k) == 2
    back = world.placements[int(sim.pos[u, 1])].centres[2:4]
    assert min(math.dist(c, q) - r - rm for c in back for q in marines) <= ENGAGEMENT_RANGE  # blocked in game 0
