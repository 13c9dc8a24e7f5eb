"""The compiled Available Supply test of a Deploy (8.3.2, ``fastmove.supply_fits``) and the Engaged test of a Move
(7.2.1, 8.5.2: ``fastmove.engaged_in``, ``SimState.engaged_mask``) against naive loops."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.fastmove import add_supply, engaged_in, in_reserve, supply_fits
from mathhammer.scenario.sim import Simulation


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


@pytest.mark.parametrize("words", [1, 3])
def test_engaged_in_is_a_naive_read_of_each_games_board(words: int) -> None:
    """A game's unit is Engaged where its board's words share a bit with the unit's pairs (7.2.1)."""
    rng = np.random.default_rng(words)
    boards, games = 300, 2000
    bits = np.where(rng.random((words, boards)) < 0.5, 0, rng.integers(0, 1 << 62, (words, boards)))
    board = rng.integers(0, boards, games)
    trials = np.sort(rng.choice(games, 900, replace=False))
    for mask in (np.zeros(words, np.int64), rng.integers(0, 1 << 62, words), np.full(words, 1 << 61)):
        naive = [any(int(bits[w, board[t]]) & int(mask[w]) for w in range(words)) for t in trials.tolist()]
        assert engaged_in(bits, board, trials, mask).tolist() == naive
    assert 0 < sum(engaged_in(bits, board, trials, bits[:, 0].copy()).tolist()) < trials.size


def test_engaged_mask_is_the_engaged_pairs_of_the_unit() -> None:
    """`SimState.engaged_mask` (one compiled pass) is, in every game after whole games, whether any Engaged pair of
    `engaged_bits` (7.2.1) holds the unit, read pair by pair."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 400, 5)
    sim.run()
    games = np.arange(0, 400, 3)
    words = sim.engaged_bits(games)
    hits = 0
    for u in range(sim.U):
        naive = [
            any(words[i // 62, k] >> (i % 62) & 1 for i, pair in enumerate(sim._enemy_pairs) if u in pair)
            for k in range(games.size)
        ]
        got = sim.engaged_mask(games, u).tolist()
        assert got == naive
        hits += sum(got)
    assert hits > 0


def test_reserve_and_supply_reference_are_the_numpy_readings_8_5_5() -> None:
    """A Deploy's games (8.5.5: the unit in Reserves, off the table with models left) and the Supply reference it
    adds (its Current Supply Value by models left, clipped to its brackets) equal the numpy expressions they
    replace, in the games' order."""
    rng = np.random.default_rng(9)
    games = 3000
    pos = np.where(rng.random(games) < 0.5, -1, rng.integers(0, 40, games))
    alive = rng.integers(-1, 8, games)
    trials = rng.permutation(games)[:2000]
    want = trials[(pos[trials] < 0) & (alive[trials] > 0)]
    got = in_reserve(pos, alive, trials)
    assert got.tolist() == want.tolist() and 0 < got.size < trials.size
    grid, full = np.array([0, 1, 1, 3, 4, 6]), 5
    ref = rng.integers(0, 9, games)
    naive = ref.copy()
    naive[got] += grid[np.clip(alive[got], 0, full)]
    add_supply(ref, alive, grid, full, got)
    assert ref.tolist() == naive.tolist()
