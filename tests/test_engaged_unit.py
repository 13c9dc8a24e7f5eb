"""``World.unit_engaged`` (one unit's own pairs, 7.2.1 ENGAGED) is the reading of ``World.engaged_pairs`` it replaces
where the plan walk asks whether the activated unit is Engaged (8.5.2: an Engaged unit cannot Move or Run; 8.7.7: "An
Unengaged Ground Unit" Charges): in states of units set at random near the menus' Move points, with models left at
random (none, for one unit of each state's twin) and bases set Within 1" of enemies as a Charge sets them, every
unit's answer is whether it is in a pair of the whole board's set, read both before that set is kept and after (its
memo). The near test's answers it keeps (one compiled call for the enemies not yet read) are the test's own, read from
either placement."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import VILE, ZEALOTS
from tests.test_autoplay_moveverdicts import SIX, _scenario, states_at_random


@pytest.mark.parametrize(("card", "red", "blue"), [("Gauntlet", *SIX), ("Frontier", ZEALOTS, VILE)])
def test_unit_engaged_is_in_a_pair_of_engaged_pairs(tmp_path: Path, card: str, red: str, blue: str) -> None:
    scn = _scenario(tmp_path, card, "standard", red, blue)
    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    world = sim.world
    engaged = free = 0
    boards: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for pos, alive, _ in states_at_random(sim, leg, 31, 60, 4.0, 0.2):
        boards.append((tuple(pos), tuple(alive)))
        on = [u for u in range(sim.U) if pos[u] >= 0]
        if on:  # and a unit placed with no model left (off the table for 7.2.1)
            gone = on[len(boards) % len(on)]
            boards.append((tuple(pos), tuple(0 if u == gone else k for u, k in enumerate(alive))))
    for p, a in boards:
        fresh = [world.unit_engaged(p, a, u) for u in range(sim.U)]  # before engaged_pairs keeps this state's set
        pairs = world.engaged_pairs(p, a)
        for u, uid in enumerate(sim.uids):
            want = any(x == uid for x, _ in pairs)
            assert fresh[u] == want, (uid, p, a)
            assert world.unit_engaged(p, a, u) == want, (uid, p, a)  # read through the kept set
            engaged += want
            free += p[u] >= 0 and not want
    assert engaged > 10 and free > 10, (engaged, free)
    # the near test's answers unit_engaged kept for many enemies at once are near()'s, read from either placement
    table = world._near[ENGAGEMENT_RANGE]
    assert len(table) > 20 and any(table.values()) and not all(table.values())
    for key, kept in table.items():
        pa, pb = key >> 32, key & 0xFFFFFFFF
        for a, b in ((pa, pb), (pb, pa)):
            assert bool(world.near_many(a, np.array([b], dtype=np.int64), ENGAGEMENT_RANGE)[0]) == kept, (a, b)
