"""8.7.7 step 4: the charging unit's placement (``World.charge_place_kept``) is shared with the other forked workers by
content, as the Charge and Close Ranks answers are: a block that takes the placements another block published sets
its charging units where it would have set them alone (the same games), and computes few of them itself."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.geometry.charge import Charges
from mathhammer.scenario.memo import SharedAnswers
from mathhammer.scenario.sim import Simulation


def test_a_block_reads_the_charge_placements_another_published(monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[int] = []
    place = Charges.charge_place

    def count(self: Charges, *a: object, **k: object) -> int | None:
        computed.append(1)
        return place(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Charges, "charge_place", count)
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))
    alone = Simulation(scn, 600, 3)
    alone.run()
    n_alone = len(computed)
    shared = SharedAnswers(2)
    first = Simulation(scn, 600, 3)
    first.world.shared, first.sharing = shared, True
    shared.start(0)
    first.run()
    computed.clear()
    second = Simulation(scn, 600, 3)  # a World of its own: other placement ids
    second.world.shared, second.sharing, second.reverse = shared, True, True
    shared.start(1)
    second.run()
    assert n_alone > 20
    assert len(computed) < n_alone // 4  # the same games: nearly every placement read from the first block's
    for a, b in zip(alone.snapshots, second.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    pl1, pl2 = alone.world.placements, second.world.placements
    where = [[pl1[p] if p >= 0 else None for p in row] for row in alone.pos.tolist()]
    assert where == [[pl2[p] if p >= 0 else None for p in row] for row in second.pos.tolist()]
