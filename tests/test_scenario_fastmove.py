"""The compiled Available Supply test of a Deploy (8.3.2, ``fastmove.supply_fits``) against a naive loop."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario.fastmove import supply_fits


def _naive(pos, alive, table, full, own, u, counts, pool, reserve):
    """8.3.2: the unit fits where its Current Supply Value is at most the Supply Pool less the Current Supply of the
    Friendly Units on the table (each unit's value read off its Models/Supply bracket, models left clipped)."""
    out = []
    for t in reserve.tolist():
        used = sum(int(table[v, min(max(alive[v, t], 0), full[v])]) for v in own if pos[v, t] >= 0)
        need = int(table[u, min(max(alive[u, t], 0), full[u])]) if counts else 0
        out.append(need <= pool - used)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_supply_fits_is_the_naive_sum_8_3_2(seed: int) -> None:
    rng = np.random.default_rng(seed)
    units, games = 6, 400
    full = rng.integers(1, 6, units)
    table = np.zeros((units, 6), dtype=np.int64)
    for v in range(units):
        table[v, : full[v] + 1] = np.sort(rng.integers(0, 5, full[v] + 1))
    pos = np.where(rng.random((units, games)) < 0.4, -1, rng.integers(0, 50, (units, games)))
    alive = rng.integers(-1, 7, (units, games))  # out-of-range model counts are clipped, as ``SimState.supply`` does
    reserve = np.sort(rng.choice(games, 150, replace=False))
    for u in range(units):
        own = [v for v in range(units) if v != u and rng.random() < 0.7]
        for counts in (True, False):
            for pool in (0, 4, 9):
                got = supply_fits(pos, alive, table, full, own, u, counts, pool, reserve).tolist()
                assert got == _naive(pos, alive, table, full, own, u, counts, pool, reserve)
