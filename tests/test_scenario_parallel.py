"""Games on several processes are the games of one process (issue 6 point 4: deterministic per seed).

``mathhammer.scenario.parallel`` plays a pilot block, then forks workers for numbered blocks of
the rest; a game's dice depend on (seed, game number) only, so every array of the result must be
equal to the serial run's, whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario, parallel, simulate
from tests.scenario_kit import assert_same_games

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


def _clash() -> object:
    return load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))


def test_shared_answers_give_the_same_games() -> None:
    """A block that takes the Charge and Close Ranks answers another block published (by content: its own World
    numbers the placements in another order) plays the games it would have played alone."""
    from mathhammer.scenario.memo import SharedAnswers
    from mathhammer.scenario.sim import Simulation

    scn = _clash()
    # 600 games: about 8,600 answers published and 6,700 read by the second block (2,000 games: 14,000 and 10,800)
    alone = Simulation(scn, 600, 3)
    alone.run()
    shared = SharedAnswers(2)
    first = Simulation(scn, 600, 3)
    first.world.shared, first.sharing = shared, True
    shared.start(0)
    first.run()
    second = Simulation(scn, 600, 3)  # a World of its own: other placement ids
    second.world.shared, second.sharing, second.reverse = shared, True, True
    shared.start(1)
    second.run()
    assert shared.published()[0] > 100
    assert shared.hits()[1] > 100  # it read answers (nearly every one: the same games)
    assert shared.published()[1] < shared.published()[0] // 4
    pl1, pl2 = alone.world.placements, second.world.placements
    assert [p for p in pl1] != [p for p in pl2]  # the ids differ ...
    for a, b in zip(alone.snapshots, second.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    where = [[pl1[p] if p >= 0 else None for p in row] for row in alone.pos.tolist()]
    assert where == [[pl2[p] if p >= 0 else None for p in row] for row in second.pos.tolist()]  # ... not the games


def test_forked_workers_share_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two forked workers on standard_clash.toml: each publishes answers and takes some from the other; the games
    are the serial run's."""
    from mathhammer.scenario import memo as shared_mod

    made: list[shared_mod.SharedAnswers] = []
    init = shared_mod.SharedAnswers.__init__

    def keep(self: shared_mod.SharedAnswers, *a: object, **k: object) -> None:
        init(self, *a, **k)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(shared_mod.SharedAnswers, "__init__", keep)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(parallel, "PILOT", 50)
    scn = _clash()
    # 1,000 games: each worker publishes thousands of answers and reads hundreds to thousands of the other's
    one = simulate(scn, trials=1000, seed=4, workers=1)
    many = simulate(scn, trials=1000, seed=4, workers=2)
    assert_same_games(one, many)
    (shared,) = made
    assert min(shared.published()) > 0 and sum(shared.hits()) > 0


def test_a_record_not_yet_whole_is_read_later() -> None:
    """A reader that sees a log's header before the record it covers (weakly ordered memory) leaves the record
    for its next reading: its bytes are checked against the digest written with it."""
    from mathhammer.scenario.memo import _HEADER, _RECORD, SharedAnswers

    shared = SharedAnswers(2, size=4096)
    shared.start(0)
    shared.put(("close", 7), ((1.0, 2.0), None))
    log = shared.logs[0]
    at = _HEADER.size + _RECORD.size + 3  # a byte inside the pickled answer, not yet written
    kept = log[at]
    log[at] = kept ^ 0xFF
    shared.start(1)
    assert shared.get(("close", 7)) == []
    log[at] = kept  # now whole
    assert shared.get(("close", 7)) == [((1.0, 2.0), None)]


def test_a_run_on_every_core_keeps_freed_memory_for_reuse() -> None:
    """``memo.reuse_freed_memory`` (called by ``parallel.play``) sets glibc's heap (the forked workers inherit it)
    through ``mallopt``: True on glibc Linux, and again (the settings are not a toggle); the workers' games are the
    serial run's (the tests above run with it set)."""
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc only")
    from mathhammer.scenario import memo

    assert parallel.reuse_freed_memory is memo.reuse_freed_memory  # the run on every core calls it
    assert memo.reuse_freed_memory() is True
    assert memo.reuse_freed_memory() is True


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_plays_without_numpys_huge_page_advice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workers: int
) -> None:
    """``memo.many_games`` (issue 26 point 6): numpy's huge-page advice is off while ``parallel.play`` plays, in this
    process and in every forked worker, and as it was found afterwards; the games are those played with it on."""
    from contextlib import nullcontext

    from mathhammer.scenario import memo
    from mathhammer.scenario.sim import Simulation

    found = memo.huge_pages(True)
    if found is None:
        pytest.skip("this numpy has no huge-page switch")
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(parallel, "PILOT", 150)
    log = tmp_path / "advice"
    run = Simulation.run

    def noted(sim: Simulation, progress: object = None) -> None:
        was = memo.huge_pages(False)
        memo.huge_pages(bool(was))
        with open(log, "a") as f:  # a forked worker's note too
            f.write(f"{was}\n")
        run(sim, progress)  # type: ignore[arg-type]

    monkeypatch.setattr(Simulation, "run", noted)
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "hold_position_crossing.toml"))
    try:
        off = simulate(scn, trials=1100, seed=5, workers=workers)
        assert memo.huge_pages(True) is True  # as it was found
        notes = log.read_text().split()
        assert notes == ["False"] * (1 if workers == 1 else 1 + workers)  # the pilot and each worker
        monkeypatch.setattr(parallel, "many_games", nullcontext)  # the advice left on
        on = simulate(scn, trials=1100, seed=5, workers=workers)
        assert_same_games(off, on)
        assert log.read_text().split()[len(notes) :] == ["True"] * len(notes)
    finally:
        memo.huge_pages(found)
