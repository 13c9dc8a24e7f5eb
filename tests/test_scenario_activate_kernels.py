"""The compiled passes of ``Simulation.activate`` (fastsim.py) against the numpy readings they replaced: the
games not over, every game's unit marked activated in the Phase (8.4.1) with the games where it already was, the
games where the unit is on the table."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("seed", range(4))
def test_activate_kernels_are_numpys(seed: int) -> None:
    from mathhammer.scenario.fastsim import _enter_kernel, _live_kernel, _placed_kernel

    rng = np.random.default_rng(seed)
    T = 500
    for size in (0, 1, 37, 300):
        trials = np.sort(rng.choice(T, size, replace=False)).astype(np.int64)
        over = rng.random(T) < 0.3
        assert _live_kernel(trials, over).tolist() == trials[~over[trials]].tolist()
        pos = rng.integers(-1, 4, T).astype(np.int64)
        assert _placed_kernel(trials, pos).tolist() == trials[pos[trials] >= 0].tolist()
        acted = rng.random(T) < 0.2
        want = acted.copy()
        twice = np.flatnonzero(acted[trials])
        want[trials] = True
        got = _enter_kernel(trials, acted)
        assert got.tolist() == twice.tolist() and acted.tolist() == want.tolist()
        assert size < 300 or got.size > 16  # many games activated already
