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


def test_a_local_board_state_is_read_unit_by_unit() -> None:
    """SimState._local_state (the board a rule reads: the units named with their placement and models, the others
    near placed where given, with the models left given or whole) against a unit-by-unit reading."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 10, 1)
    rng = np.random.default_rng(8)
    U = sim.U
    for _ in range(300):
        known = {int(v): (int(rng.integers(0, 50)), int(rng.integers(1, 4))) for v in rng.choice(U, 2, replace=False)}
        units = [v for v in range(U) if v not in known]
        near_pos = tuple(int(p) for p in rng.integers(-1, 40, len(units)))
        left = {v: int(rng.integers(0, 3)) for v in units if rng.random() < 0.3}
        pos, alive = [-1] * U, [0] * U
        for v in range(U):
            if v in known:
                pos[v], alive[v] = known[v]
            else:
                p = near_pos[units.index(v)]
                k = left[v] if v in left else sim.units[v].models
                if p >= 0 and k > 0:
                    pos[v], alive[v] = p, k
        assert sim._local_state(known, units, near_pos, left) == (tuple(pos), tuple(alive))


def test_the_owners_grow_with_the_placements_geometrically() -> None:
    """SimState.owners read after each of 1,000 placements (the placements of a run, again and again, on a stand-in
    world) is the naive per-placement owner (World.index of the placement's unit) every time, and its buffer is
    reallocated a logarithmic number of times (doubling), not once a placement (a copy of them all each time)."""
    from types import SimpleNamespace

    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 50, 3)
    sim.run()
    made = sim.world.placements
    assert len(made) > 1
    world = SimpleNamespace(placements=[], index=sim.world.index)
    sim.world = world  # type: ignore[assignment]
    sim._owners, sim._owned = np.zeros(64, dtype=np.int64), 0
    buffers: list[np.ndarray] = []  # each buffer kept (no id reused)
    first = None
    for i in range(1000):
        world.placements.append(made[(7 * i) % len(made)])
        got = sim.owners()
        if first is None:
            first = got
        if not buffers or sim._owners is not buffers[-1]:
            buffers.append(sim._owners)
        if i % 97 == 0 or i == 999:
            assert got.tolist() == [world.index[p.unit] for p in world.placements]
    assert len(buffers) <= 6  # 64 -> 128 -> ... -> 1024
    assert first is not None and first.tolist() == [world.index[made[0].unit]]
