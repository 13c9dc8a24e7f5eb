"""Games on several processes are the games of one process (issue 6 point 4: deterministic per seed).

``mathhammer.scenario.parallel`` plays a pilot block, then forks workers for numbered blocks of
the rest; a game's dice depend on (seed, game number) only, so every array of the result must be
equal to the serial run's, whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario, parallel, simulate

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="workers are forked (serial elsewhere)"
)


@pytest.mark.parametrize(("workers", "block_max"), [(2, 250_000), (3, 250_000), (2, 200)])
def test_workers_play_the_same_games(monkeypatch: pytest.MonkeyPatch, workers: int, block_max: int) -> None:
    """One block per worker, or (``block_max`` 200) three per worker."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(parallel, "PILOT", 150)
    monkeypatch.setattr(parallel, "BLOCK_MAX", block_max)
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "hold_position_crossing.toml"))
    one = simulate(scn, trials=1100, seed=5, workers=1)
    seen: list[tuple[int, int]] = []
    many = simulate(scn, trials=1100, seed=5, workers=workers, progress=lambda d, t: seen.append((d, t)))
    assert len(one.rounds) == len(many.rounds)
    for a, b in zip(one.rounds, many.rounds, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
    assert np.array_equal(one.end_round, many.end_round)
    assert np.array_equal(one.winner, many.winner)
    assert one.skipped == many.skipped
    assert seen[-1][0] == seen[-1][1]  # the progress bar reaches its end
    blocks = workers * -(-(1100 - 150) // (workers * block_max))
    assert seen[-1][1] == 5 * (1 + blocks)  # Rounds: the pilot's and each block's


def test_few_games_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork(*_a: object) -> None:
        raise AssertionError("forked for a small run")

    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    scn = load_scenario(builtin_scenarios()[0])
    res = simulate(scn, trials=300, seed=1, workers=2)
    assert res.trials == 300
