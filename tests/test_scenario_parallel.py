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

    monkeypatch.setattr(parallel, "_Beside", no_fork)
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


# ------------------------------------------------- the plan check beside the pilot (issue 26 point 6)
def _errors_in(monkeypatch: pytest.MonkeyPatch, found: object) -> None:
    """``check_scenario`` as ``simulate`` calls it, replaced by ``found`` (a function of the scenario); every kernel
    taken as in numba's cache (``simulate`` checks beside the pilot only then), whichever this process compiled so
    far: a kernel missing is compiled where the pilot first calls it."""
    import mathhammer.scenario as scenario_pkg
    from mathhammer import jit

    monkeypatch.setattr(scenario_pkg, "check_scenario", found)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(jit, "missing", lambda _group: [])


def _forked_pids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process ids of every ``parallel._Beside`` forked from now on (the plan check's, the workers')."""
    forked: list[int] = []
    init = parallel._Beside.__init__

    def keep(self: parallel._Beside, task: object) -> None:
        init(self, task)  # type: ignore[arg-type]
        forked.append(self.pid)

    monkeypatch.setattr(parallel._Beside, "__init__", keep)
    return forked


def _no_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_games(*_a: object) -> None:
        raise AssertionError("workers forked for an illegal plan")

    monkeypatch.setattr(parallel, "_blocks", no_games)


def test_a_forked_run_checks_the_plan_in_another_process_and_raises_its_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The plan's errors (not its warnings) raise ``ScenarioError`` before any worker is forked, found by a process
    forked beside the pilot; a legal plan plays the serial run's games."""
    import os

    from mathhammer.scenario import ScenarioError

    def found(_scn: object) -> list[str]:
        (tmp_path / "pid").write_text(str(os.getpid()))
        return ["warning: x.toml: round 1: a warning", "x.toml: round 2: red: an error"]

    _errors_in(monkeypatch, found)
    _no_workers(monkeypatch)
    with pytest.raises(ScenarioError) as err:
        simulate(_clash(), trials=400, seed=2, workers=2)
    assert str(err.value) == "x.toml: round 2: red: an error"
    assert int((tmp_path / "pid").read_text()) != os.getpid()


def test_a_legal_plan_checked_beside_the_pilot_plays_the_same_games(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from mathhammer.scenario import check_scenario

    def found(scn: object) -> list[str]:
        (tmp_path / "pid").write_text(str(os.getpid()))
        return check_scenario(scn)  # type: ignore[arg-type]

    scn = _clash()
    one = simulate(scn, trials=400, seed=2, workers=1)
    _errors_in(monkeypatch, found)
    monkeypatch.setattr(parallel, "PILOT", 40)
    many = simulate(scn, trials=400, seed=2, workers=2)
    assert_same_games(one, many)
    assert int((tmp_path / "pid").read_text()) != os.getpid()


def test_with_kernels_to_compile_the_plan_is_checked_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A kernel missing from numba's cache: the plan is checked in this process before anything is compiled."""
    import os

    from mathhammer import jit
    from mathhammer.scenario import ScenarioError

    def found(_scn: object) -> list[str]:
        (tmp_path / "pid").write_text(str(os.getpid()))
        return ["x.toml: an error"]

    def no_compile(*_a: object) -> None:
        raise AssertionError("compiled before the check")

    _errors_in(monkeypatch, found)
    monkeypatch.setattr(jit, "missing", lambda _group: [("scenario/fast.py", "_group_kernel")])
    monkeypatch.setattr(jit, "compile_ahead", no_compile)
    with pytest.raises(ScenarioError):
        simulate(_clash(), trials=400, seed=2, workers=2)
    assert int((tmp_path / "pid").read_text()) == os.getpid()


def test_the_checks_errors_come_before_what_the_pilot_met(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pilot that fails on an illegal plan reports the plan's errors, not its own; on a legal plan, its own."""
    from mathhammer.scenario import ScenarioError
    from mathhammer.scenario.sim import Simulation

    def broken(*_a: object, **_k: object) -> None:
        raise RuntimeError("the pilot met something")

    monkeypatch.setattr(Simulation, "run", broken)
    _errors_in(monkeypatch, lambda _scn: ["x.toml: an error"])
    _no_workers(monkeypatch)
    with pytest.raises(ScenarioError, match=r"x\.toml: an error"):
        simulate(_clash(), trials=400, seed=2, workers=2)
    _errors_in(monkeypatch, lambda _scn: ["warning: only a warning"])
    with pytest.raises(RuntimeError, match="the pilot met something"):
        simulate(_clash(), trials=400, seed=2, workers=2)


def test_the_checks_own_failure_is_raised_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(_scn: object) -> list[str]:
        raise ValueError("the check failed")

    _errors_in(monkeypatch, failing)
    _no_workers(monkeypatch)
    with pytest.raises(ValueError, match="the check failed"):
        simulate(_clash(), trials=400, seed=2, workers=2)


def test_an_interrupted_pilot_ends_the_checks_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during the pilot: the check's process is killed and reaped (no process left behind, no wait for it)."""
    import os
    import time

    from mathhammer.scenario.sim import Simulation

    def slow(_scn: object) -> list[str]:
        time.sleep(60)
        return []

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    forked = _forked_pids(monkeypatch)
    monkeypatch.setattr(Simulation, "run", interrupted)
    _errors_in(monkeypatch, slow)
    _no_workers(monkeypatch)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        simulate(_clash(), trials=400, seed=2, workers=2)
    assert time.monotonic() - start < 30
    (pid,) = forked
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped: no process left behind


def test_a_failing_worker_fails_the_run_and_leaves_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's exception is raised here; the other workers are ended and reaped."""
    import os
    import time

    forked = _forked_pids(monkeypatch)

    def blocks(jobs: list[tuple[int, int, int]]) -> dict[int, object]:
        if jobs[0][0] == 0:
            raise ValueError("worker 0 failed")
        time.sleep(60)
        return {}

    monkeypatch.setattr(parallel, "_blocks", blocks)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    start = time.monotonic()
    with pytest.raises(ValueError, match="worker 0 failed"):
        simulate(_clash(), trials=400, seed=2, workers=2)
    assert time.monotonic() - start < 30
    assert len(forked) >= 2  # the workers (and the plan check's process where it runs beside the pilot)
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_blocks_beyond_the_workers_play_in_turn_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six blocks on two workers (each plays three, in one process): the serial run's games, its tally."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(parallel, "PILOT", 20)
    monkeypatch.setattr(parallel, "BLOCK_MAX", 70)
    scn = _clash()
    one = simulate(scn, trials=400, seed=6, workers=1)
    many = simulate(scn, trials=400, seed=6, workers=2)
    assert_same_games(one, many)
    assert one.tally.keys() == many.tally.keys()
    for k in one.tally:
        assert np.array_equal(one.tally[k], many.tally[k]), k


def test_the_workers_are_reaped_before_this_process_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers that answered are reaped by a thread that is not a daemon: the interpreter's exit waits for it, so
    no worker is left a zombie at exit and every worker's CPU is counted in this process's children's (what
    ``benchmarks/bench_game.py`` reads)."""
    import os
    import threading

    started: list[threading.Thread] = []

    class Kept(threading.Thread):
        def start(self) -> None:
            started.append(self)
            super().start()

    forked = _forked_pids(monkeypatch)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 100)
    monkeypatch.setattr(parallel.threading, "Thread", Kept)
    simulate(_clash(), trials=400, seed=2, workers=2)
    (reaper,) = [t for t in started if t.name == parallel.REAPER]
    assert not reaper.daemon
    reaper.join()
    assert len(forked) >= 2
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
