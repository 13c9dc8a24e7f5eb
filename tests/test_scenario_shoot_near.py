"""The enemies near either unit that a Ranged Attack's facts are read with (8.7.3, :meth:`World.facts`), tested for
every placement at once (compiled), against the reading placement by placement it replaced."""

from __future__ import annotations

import numpy as np

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation


def test_the_compiled_facts_test_is_the_placement_by_placement_test() -> None:
    """Shooting._facts_test (placements of an enemy of the shooter near it, or of an enemy of the target near the
    target: World.near at Engagement Range) gives, for every placement of 300 games of each example, the answer of
    ``(player != side and world.near(pu, p)) or (player != tside and world.near(pt, p))``."""
    rng = np.random.default_rng(5)
    for path in builtin_scenarios():
        sim = Simulation(load_scenario(path), 300, 2)
        sim.run()
        world = sim.world
        pids = np.arange(len(world.placements), dtype=np.int64)
        owner = [world.index[world.placements[p].unit] for p in pids.tolist()]
        assert sim.owners().tolist() == owner
        seen = set()
        for _ in range(25):
            pu, pt = (int(p) for p in rng.choice(pids, 2))
            u, t = owner[pu], owner[pt]
            side, tside = sim.units[u].player, sim.units[t].player
            want = [
                (sim.units[owner[p]].player != side and world.near(pu, p))
                or (sim.units[owner[p]].player != tside and world.near(pt, p))
                for p in pids.tolist()
            ]
            test = sim._facts_test(pu, side, pt, t)
            assert test.many(pids).tolist() == want
            assert [test(p) for p in pids[:20].tolist()] == want[:20]
            seen |= set(want)
        assert seen == {True, False}, path
