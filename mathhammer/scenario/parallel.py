"""Games on every core: a pilot run reads the board geometry, forked workers play the rest.

A game's dice depend on (seed, game number) only (:meth:`Simulation.draw`), so splitting the games
into numbered blocks, playing them in any process and putting the blocks back in order gives the
very games of one serial run; the test suite holds the two equal, array for array.

Each worker plays one block (more where a block would exceed :data:`BLOCK_MAX` games, or :data:`AUTO_BLOCK` for
automatic players, whose memory would otherwise grow with the games) and sends back its games' counts
(:class:`~.counts.Counts`, a few kilobytes); where every game is kept (``per_game``), it also writes its games
straight into arrays shared with this process (anonymous shared memory mapped before the fork), so no game's arrays
are pickled back. The Rounds it has played go to a shared counter the progress bar reads. Few blocks: the work of a
block grows with the board states it meets (far slower than with its games), so smaller blocks would meet most of
them again.

The geometry (placements, Engagement, Charge paths, attack facts) is read once per board state
and cached on the :class:`~mathhammer.scenario.world.World`. The pilot block (the first games)
compiles the kernels and fills those caches with the commonest states; the workers are forked from
it, so they start with the caches in memory. The states the pilot never met are read by the workers:
the costliest answers (Charge paths, those read near the Leading Model included, and settings, Close Ranks
moves, Engaged pairs, Fighting Ranks, marker contests) are published, by content, in logs shared by the workers
(:class:`~mathhammer.scenario.memo.SharedAnswers`), and every other worker reads its groups of games in the
opposite order (content-sorted), so the two meet each other's answers instead of computing them at the same
time (the figures are in ``benchmarks/RESULTS.md``, scenario section). Games of two automatic players share
nothing (:func:`_shares`). The rest of the geometry of a new state
is still read once per worker. Where ``fork`` is not available (Windows, macOS' default), or for a few games,
everything runs in this process.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import math
import mmap
import multiprocessing
import os
import pickle
import select
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..jit import cores
from .counts import Counts, winners
from .memo import many_games, release_freed_memory, reuse_freed_memory
from .spec import Scenario, ScenarioError
from .tally import Tally

#: Fewer games than this run in one process (forking costs ~0.1 s a worker).
PARALLEL_MIN = 40_000
#: The same for a scenario with an automatic player (issue 29): its games cost far more each (a decision per
#: activation), so two cores pay from a few tens of games (measurements: ``benchmarks/RESULTS.md``, issue 29).
AUTO_PARALLEL_MIN = 40
#: The pilot block's games. Small: it runs before the workers, on one core, and the workers share the answers
#: they find anyway (:mod:`~mathhammer.scenario.memo`), so every state the pilot reads first is a state the second
#: core waits for (measurements: ``benchmarks/RESULTS.md``, scenario section).
PILOT = 10
#: The most games in one block (it bounds a worker's memory: a peak of about 1.7 GB for 1,000,000 games of 12 units).
#: The work of a block grows with the board states it meets, far slower than with its games: every block splits its
#: games by the states again and reads each state's geometry and transitions afresh, so a worker plays one block where
#: it can (measurements: ``benchmarks/RESULTS.md``, scenario section).
BLOCK_MAX = 1_000_000
#: The most games in one block of a scenario with an automatic player (issue 29 point 6: memory flat in the number of
#: games), unless its policies allow more (:func:`auto_block`): a block's Simulation and players (their memos, the
#: games' arrays) are freed when it ends. A longer block has more games taking each activation together (fewer calls
#: a game: less CPU a game), a shorter one adds fewer answers to its World (figures: ``benchmarks/RESULTS.md``, issue
#: 29 point 6, sessions 17, 23 and 24).
AUTO_BLOCK = 500
#: The most answers (:func:`~.world.answers`) a World of automatic players' games is let grow to: a block is played in
#: the last block's World where that World, growing by as many answers as it grew in the last block, stays within
#: this many, else in a renewed World (:func:`~.world.renewed`: only the answers of the board alone kept). Its answers
#: keep serving (games keep meeting board states other games met) until they would hold too much memory.
WORLD_ANSWERS = 1 << 18
#: The name of the thread that waits for the workers to end once they have answered (:func:`_play`).
REAPER = "scenario workers' reaper"
#: How often (seconds) the progress bar reads the workers' Rounds.
PROGRESS_POLL = 0.25


@dataclass
class Games:
    """What a block of games leaves: its games counted, and where kept, per-Round snapshots and the per-game end
    state (None: not kept, :func:`play`'s ``per_game``)."""

    counts: Counts
    snapshots: list[dict[str, np.ndarray]] | None
    end_round: np.ndarray | None
    vp: np.ndarray | None
    instant: np.ndarray | None
    skipped: dict[str, int] = field(default_factory=dict)
    #: per unit: activations by action, damage dealt and taken, summed over the games (:mod:`.tally`)
    tally: dict[str, np.ndarray] = field(default_factory=dict)

    @staticmethod
    def of(sim: Any, per_game: bool = True) -> Games:
        counts = Counts.of(sim.snapshots, winners(sim.vp), sim.end_round, sim.instant)
        if not per_game:
            return Games(counts, None, None, None, None, dict(sim.skipped), sim.tally.sums())
        return Games(
            counts,
            sim.snapshots,
            sim.end_round.copy(),
            sim.vp.copy(),
            sim.instant.copy(),
            dict(sim.skipped),
            sim.tally.sums(),
        )


_JOB: dict[str, Any] = {}


def _shared(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """A zeroed array in memory shared with the processes forked after it (MAP_SHARED, anonymous)."""
    size = max(1, int(np.prod(shape)) * dtype.itemsize)
    return np.frombuffer(mmap.mmap(-1, size), dtype=dtype, count=int(np.prod(shape))).reshape(shape)


#: What a block returns: its games counted (:class:`~.counts.Counts`), the games skipped by reason, the tally's sums
#: (:meth:`.Tally.sums`) and the Phase walk's step counts (:mod:`.players.cursor`; None: not counted).
_Answer = tuple[Counts, dict[str, int], dict[str, np.ndarray], dict[str, int] | None]


def _blocks(jobs: list[tuple[int, int, int]]) -> dict[int, _Answer]:
    """:func:`_block` of each job in turn, in one forked worker (its caches kept from one block to the next)."""
    return {job[0]: _block(job) for job in jobs}


def _block(job: tuple[int, int, int]) -> _Answer:
    """Play games ``offset .. offset + n - 1`` in worker ``i``, written straight into the shared result; the
    Rounds played so far go to the shared progress counters."""
    from .players import cursor
    from .sim import Simulation

    i, offset, n = job
    done = _JOB["done"]

    def rounds(rnd: int, _length: int) -> None:
        done[i] = rnd

    world = _JOB["world"]
    if _JOB["scn"].policies and _JOB.get("played"):  # a later block of automatic players' games
        world = _JOB["world"] = _next_world(world, _answers(world) - _JOB["answers"], retire=True)
        gc.collect()  # the earlier block's Simulation and players (cycles) freed before this block's are made
        release_freed_memory()  # and their pages handed back: memory flat in the number of blocks
    _JOB["played"] = True
    _JOB["answers"] = _answers(world)  # the World's answers as the block begins: what it adds, :func:`_next_world`
    if world.shared is not None:
        world.shared.start(i % len(world.shared.logs))  # one log per worker: its blocks are played in turn
    sim = Simulation(_JOB["scn"], n, _JOB["seed"], offset=offset, world=world)
    sim.sharing, sim.reverse = world.shared is not None, i % 2 == 1  # meets the other half's shared answers
    out: _Out | None = _JOB["out"]  # None: the games are counted, not kept
    if out is not None:
        sim.sink = out.sink(offset, n)
    cursor.taken()  # the counts this process inherited (the pilot's) or its earlier block's, already returned
    sim.run(rounds)
    games = Games.of(sim, out is not None)
    if out is not None:
        out.put(games, offset)
    return games.counts, games.skipped, games.tally, cursor.taken()


def _shares(scn: Scenario) -> bool:
    """Whether the workers share answers (:class:`~.memo.SharedAnswers`): unless both players are automatic, where
    sharing cost more CPU (the groups sorted by content, the answers pickled) and memory (the logs, the answers read
    from them) than it saved (figures: ``benchmarks/RESULTS.md``, issue 29 point 6, session 18)."""
    return len(scn.policies) < 2


def auto_block(scn: Scenario) -> int:
    """The most games in one block of ``scn``'s automatic players' games: the least ``block_games`` of its policies'
    classes (a policy whose games meet few new board states allows longer blocks: ``random``), :data:`AUTO_BLOCK`
    for a class that sets none."""
    from .players.policies import block_games

    return min(block_games(name, AUTO_BLOCK) for name in scn.policies.values())


def _answers(world: Any) -> int:
    """:func:`.world.answers` of ``world``."""
    from . import world as w

    return w.answers(world)


def _next_world(world: Any, grown: int, retire: bool = False) -> Any:
    """The World of the next block after one played in ``world`` that added ``grown`` answers to it: ``world``
    itself where the next block, adding as many, keeps it within :data:`WORLD_ANSWERS` answers, else a renewed World
    (and with ``retire``, ``world`` emptied: :func:`.world.retire`)."""
    from . import world as w

    if _answers(world) + max(0, grown) <= WORLD_ANSWERS:
        return world
    new = w.renewed(world)
    if retire:
        w.retire(world)
    return new


class _Out:
    """The result arrays of all games, shared with the workers; blocks are written in place."""

    def __init__(self, like: Games, trials: int, shared: bool = True) -> None:
        make = _shared if shared else np.zeros
        assert like.snapshots is not None and like.end_round is not None and like.vp is not None
        assert like.instant is not None  # a block's games kept: per_game
        self.snapshots = [
            {k: make((*a.shape[:-1], trials), a.dtype) for k, a in snap.items()} for snap in like.snapshots
        ]
        self.end_round = make((trials,), like.end_round.dtype)
        self.vp = make((*like.vp.shape[:-1], trials), like.vp.dtype)
        self.instant = make((trials,), like.instant.dtype)

    def games(self, counts: Counts, skipped: dict[str, int], tally: dict[str, np.ndarray]) -> Games:
        """All games: their arrays, with ``counts`` (every block's), ``skipped`` and ``tally``."""
        return Games(counts, self.snapshots, self.end_round, self.vp, self.instant, skipped, tally)

    def sink(self, offset: int, n: int) -> list[dict[str, np.ndarray]]:
        """Views of games ``offset .. offset + n - 1`` of every snapshot array (:attr:`.Simulation.sink`)."""
        return [{k: a[..., offset : offset + n] for k, a in snap.items()} for snap in self.snapshots]

    def put(self, block: Games, offset: int) -> None:
        assert block.snapshots is not None and block.end_round is not None  # a block's games kept: per_game
        end = offset + block.end_round.shape[0]
        for mine, theirs in zip(self.snapshots, block.snapshots, strict=True):
            for k, a in theirs.items():
                part = mine[k][..., offset:end]
                if not np.may_share_memory(part, a):  # not already written in place (Simulation.sink)
                    part[...] = a
        self.end_round[offset:end] = block.end_round
        self.vp[..., offset:end] = block.vp
        self.instant[offset:end] = block.instant


def workers_available() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    return cores()


def forks(scn: Scenario, trials: int, workers: int | None = None, offset: int = 0) -> bool:
    """Does :func:`play` fork workers for these games (else it plays them all in this process)?"""
    workers = workers_available() if workers is None else max(1, int(workers))
    least = AUTO_PARALLEL_MIN if scn.policies else PARALLEL_MIN
    forkable = "fork" in multiprocessing.get_all_start_methods()
    return workers > 1 and trials >= least and forkable and not offset


def play(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    offset: int = 0,
    check: Callable[[], list[str]] | None = None,
    per_game: bool = True,
) -> tuple[Games, Any]:
    """Play games ``0 .. trials - 1``; returns them and the pilot's Simulation (units, markers). ``offset``: play games
    ``offset ..`` instead, in this process (one chosen game: a trace's replay). The run's memory setting
    (:func:`~.memo.many_games`) holds while it plays, in this process and its workers.

    ``per_game``: keep every game's arrays (:class:`Games`); else each block's games are counted
    (:class:`~.counts.Counts`) as it ends and dropped, so memory does not grow with the games.

    ``check``: the plan's errors, found in a forked process while the pilot plays (on the core the workers will
    use, idle until they fork), and raised as a :class:`ScenarioError` before any worker starts; only where the games
    fork (:func:`forks`), else ``check`` is run first."""
    with many_games():
        return _play(scn, trials, seed, progress, workers, offset, check, per_game)


def _raise(problems: list[str]) -> None:
    if problems:
        raise ScenarioError(problems)


class _Beside:
    """``task()`` run in a forked process while this one goes on: :meth:`wait` for its answer (or its exception,
    raised here), or :meth:`cancel` it. The answer comes back pickled through a pipe; the forked process ends with
    ``os._exit`` (none of this process's exit handlers run twice)."""

    def __init__(self, task: Callable[[], Any]) -> None:
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the forked process (its coverage is not collected)
            os.close(read)
            os._exit(_answer(task, write))
        os.close(write)
        self.read: int | None = read
        self.reaped = False

    def wait(self, reap: bool = True) -> Any:
        """The answer (read whole: the process has written it and closed the pipe); ``reap``: and wait for the
        process to end (else :meth:`reap` it later: its memory is freed while this process goes on)."""
        if self.read is None:
            raise RuntimeError("already waited for")
        with os.fdopen(self.read, "rb") as got:
            self.read = None
            data = got.read()
        if reap:
            self.reap()
        if not data:
            raise RuntimeError("a forked process ended without an answer")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value

    def reap(self) -> None:
        """Wait for the process to end (once)."""
        if not self.reaped:
            self.reaped = True
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)

    def cancel(self) -> None:
        """End the process if it has not answered yet, and reap it."""
        if self.read is not None:  # (not answered, so not reaped either)
            os.close(self.read)
            self.read = None
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        self.reap()


def _answer(task: Callable[[], Any], write: int) -> int:  # pragma: no cover - runs in the forked process
    """Run ``task`` and write ``(True, answer)`` or ``(False, exception)`` pickled to ``write``; the exit code."""
    try:
        try:
            answer = pickle.dumps((True, task()))
        except BaseException as exc:  # carried to the parent and raised there
            try:
                answer = pickle.dumps((False, exc))
            except Exception:  # an exception that cannot be pickled: its text
                answer = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(write, "wb") as out:
            out.write(answer)
    except BaseException:  # nothing may escape a forked process
        return 1
    return 0


def _add(skipped: dict[str, int], part: dict[str, int]) -> None:
    """Add a block's games skipped by reason to ``skipped``."""
    for k, v in part.items():
        skipped[k] = skipped.get(k, 0) + v


def _serial(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None,
    offset: int,
    per_game: bool,
) -> tuple[Games, Any]:
    """Play the games in this process: in one Simulation, or for automatic players in blocks of at most
    :data:`AUTO_BLOCK` games, one after the other, in the last block's World or a renewed one (:func:`_next_world`);
    the same games (a game's dice and choices depend on (seed, game number) only). Each block is counted as it ends
    and, unless ``per_game``, dropped. Returns the games and the last block's Simulation."""
    from .sim import Simulation

    most = auto_block(scn) if scn.policies else trials
    starts = list(range(0, trials, most))
    length = scn.mission.game_length
    out: _Out | None = None
    skipped: dict[str, int] = {}
    tally: dict[str, np.ndarray] = {}
    counts: Counts | None = None
    sim: Any = None
    begun = 0
    for b, start in enumerate(starts):
        n = min(most, trials - start)

        def rounds(rnd: int, _length: int, done: int = b * length) -> None:
            if progress is not None:
                progress(done + rnd, length * len(starts))

        world = None if sim is None else _next_world(sim.world, _answers(sim.world) - begun)
        sim = None  # the earlier block's Simulation freed before this one's is made
        gc.collect()
        if b:
            release_freed_memory()  # and its pages handed back: memory flat in the number of blocks
        sim = Simulation(scn, n, seed, offset=offset + start, world=world)
        begun = _answers(sim.world)  # what the block adds to its World: :func:`_next_world`
        if out is not None:
            sim.sink = out.sink(start, n)
        sim.run(rounds)
        games = Games.of(sim, per_game)
        if len(starts) == 1:
            return games, sim
        if per_game:
            if out is None:
                out = _Out(games, trials, shared=False)
            out.put(games, start)
        _add(skipped, games.skipped)
        tally = Tally.merge(tally, games.tally)
        counts = games.counts if counts is None else counts + games.counts
    assert counts is not None
    if out is None:
        return Games(counts, None, None, None, None, skipped, tally), sim
    return out.games(counts, skipped, tally), sim


def _play(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None,
    workers: int | None,
    offset: int,
    check: Callable[[], list[str]] | None = None,
    per_game: bool = True,
) -> tuple[Games, Any]:
    from .players import cursor
    from .sim import Simulation

    if not forks(scn, trials, workers, offset):
        if check is not None:
            _raise(check())
        return _serial(scn, trials, seed, progress, offset, per_game)
    workers = workers_available() if workers is None else max(1, int(workers))
    reuse_freed_memory()  # before the pilot: the workers inherit this process's heap
    pilot_n = min(trials, PILOT)
    # as few blocks as the workers, unless a block would exceed BLOCK_MAX games (AUTO_BLOCK: automatic players)
    most = auto_block(scn) if scn.policies else BLOCK_MAX
    blocks = workers * max(1, math.ceil((trials - pilot_n) / (workers * most)))
    length = scn.mission.game_length
    total = length * (1 + blocks)  # Rounds: the pilot's, then each block's

    def tick(done: int) -> None:
        if progress is not None:
            progress(done, total)

    checked = None
    try:
        pilot = Simulation(scn, pilot_n, seed)  # numba's kernels loaded: the check's process inherits them
        if check is not None:
            checked = _Beside(check)
        pilot.run(lambda rnd, _n: tick(rnd))
    except Exception:
        if check is not None:  # an illegal plan's own errors, before what the pilot met playing it
            _raise(checked.wait() if checked is not None else check())
        raise
    except BaseException:  # interrupted: the check's process ends too
        if checked is not None:
            checked.cancel()
        raise
    if checked is not None:
        _raise(checked.wait())
    first = Games.of(pilot, per_game)
    if pilot_n == trials:
        tick(total)
        return first, pilot
    out = _Out(first, trials) if per_game else None
    if out is not None:
        out.put(first, 0)
    edges = np.linspace(pilot_n, trials, blocks + 1).astype(np.int64)
    jobs = [(i, int(a), int(b - a)) for i, (a, b) in enumerate(itertools.pairwise(edges.tolist())) if b > a]
    done = _shared((blocks,), np.dtype(np.int64))
    skipped = dict(first.skipped)
    tally = first.tally
    counts = first.counts
    if _shares(scn):
        pilot.world.memo.share(min(workers, len(jobs)))  # one log per worker
    _JOB.update(scn=scn, seed=seed, world=pilot.world, out=out, done=done)
    procs: list[_Beside] = []
    try:
        for w in range(min(workers, len(jobs))):  # worker w plays blocks w, w + workers, ... in turn (equal lengths)
            procs.append(_Beside(functools.partial(_blocks, jobs[w::workers])))
        answers: dict[int, _Answer] = {}
        pending, shown = list(procs), -1
        while pending:
            ready, _, _ = select.select([p.read for p in pending if p.read is not None], [], [], PROGRESS_POLL)
            for p in [p for p in pending if p.read in ready]:
                answers.update(p.wait(reap=False))  # the process's memory is freed while this one goes on
                pending.remove(p)
            now = length + int(done.sum())
            if now != shown:
                tick(now)
                shown = now
        for i in sorted(answers):  # merged in the blocks' order, whichever process ended first
            block, part, sums, steps = answers[i]
            counts = counts + block
            _add(skipped, part)
            tally = Tally.merge(tally, sums)
            cursor.add(steps)
    except BaseException:  # a failed or interrupted run: the processes still playing end too
        for p in procs:
            p.cancel()
        raise
    finally:
        _JOB.clear()
        pilot.world.shared = None

    def reap() -> None:
        for p in procs:
            p.reap()

    # not a daemon: this process's exit waits for it, so every worker is reaped (none left a zombie for init, its CPU
    # counted in this process's children's, as ``benchmarks/bench_game.py`` reads it)
    threading.Thread(target=reap, name=REAPER, daemon=False).start()
    tick(total)
    if out is None:
        return Games(counts, None, None, None, None, skipped, tally), pilot
    return out.games(counts, skipped, tally), pilot


__all__ = [
    "AUTO_BLOCK",
    "AUTO_PARALLEL_MIN",
    "PARALLEL_MIN",
    "Games",
    "auto_block",
    "forks",
    "play",
    "workers_available",
]
