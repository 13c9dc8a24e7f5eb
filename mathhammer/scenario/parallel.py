"""Games on every core: a pilot run reads the board geometry, forked workers play the rest.

A game's dice depend on (seed, game number) only (:meth:`Simulation.draw`), so splitting the games
into numbered blocks, playing them in any process and putting the blocks back in order gives the
very games of one serial run; the test suite holds the two equal, array for array.

Each worker plays one block (more where a block would exceed :data:`BLOCK_MAX` games) and writes
its games straight into arrays shared with this process (anonymous shared memory mapped before the
fork), so no result is pickled back; the Rounds it has played go to a shared counter the progress
bar reads. Few blocks: the work of a block grows with the board states it meets (far slower than
with its games), so smaller blocks would meet most of them again.

The geometry (placements, Engagement, Charge paths, attack facts) is read once per board state
and cached on the :class:`~mathhammer.scenario.world.World`. The pilot block (the first games)
compiles the kernels and fills those caches with the commonest states; the workers are forked from
it, so they start with the caches in memory. The states the pilot never met are read by the workers:
the costliest answers (Charge paths, those read near the Leading Model included, and settings, Close Ranks
moves, Engaged pairs, Fighting Ranks, marker contests) are published, by content, in logs shared by the workers
(:class:`~mathhammer.scenario.memo.SharedAnswers`), and every other worker reads its groups of games in the
opposite order (content-sorted), so the two meet each other's answers instead of computing them at the same
time (the figures are in ``benchmarks/RESULTS.md``, scenario section). The rest of the geometry of a new state
is still read once per worker. Where ``fork`` is not available (Windows, macOS' default), or for a few games,
everything runs in this process.
"""

from __future__ import annotations

import itertools
import math
import mmap
import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..jit import cores
from .memo import many_games, reuse_freed_memory
from .spec import Scenario
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
#: How often (seconds) the progress bar reads the workers' Rounds.
PROGRESS_POLL = 0.25


@dataclass
class Games:
    """What a block of games leaves: per-Round snapshots and the per-game end state."""

    snapshots: list[dict[str, np.ndarray]]
    end_round: np.ndarray
    vp: np.ndarray
    instant: np.ndarray
    skipped: dict[str, int] = field(default_factory=dict)
    #: per unit: activations by action, damage dealt and taken, summed over the games (:mod:`.tally`)
    tally: dict[str, np.ndarray] = field(default_factory=dict)

    @staticmethod
    def of(sim: Any) -> Games:
        return Games(
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


def _block(job: tuple[int, int, int]) -> tuple[dict[str, int], dict[str, np.ndarray]]:
    """Play games ``offset .. offset + n - 1`` in worker ``i``, written straight into the shared result; the
    Rounds played so far go to the shared progress counters."""
    from .sim import Simulation

    i, offset, n = job
    done = _JOB["done"]

    def rounds(rnd: int, _length: int) -> None:
        done[i] = rnd

    world = _JOB["world"]
    if world.shared is not None:
        world.shared.start(i)
    sim = Simulation(_JOB["scn"], n, _JOB["seed"], offset=offset, world=world)
    sim.sharing, sim.reverse = True, i % 2 == 1  # meets the shared answers of the other half of the workers
    out: _Out = _JOB["out"]
    sim.sink = [{k: a[..., offset : offset + n] for k, a in snap.items()} for snap in out.games.snapshots]
    sim.run(rounds)
    games = Games.of(sim)
    out.put(games, offset)
    return games.skipped, games.tally


class _Out:
    """The result arrays of all games, shared with the workers; blocks are written in place."""

    def __init__(self, like: Games, trials: int) -> None:
        self.games = Games(
            [{k: _shared((*a.shape[:-1], trials), a.dtype) for k, a in snap.items()} for snap in like.snapshots],
            _shared((trials,), like.end_round.dtype),
            _shared((*like.vp.shape[:-1], trials), like.vp.dtype),
            _shared((trials,), like.instant.dtype),
        )

    def put(self, block: Games, offset: int) -> None:
        end = offset + block.end_round.shape[0]
        for mine, theirs in zip(self.games.snapshots, block.snapshots, strict=True):
            for k, a in theirs.items():
                part = mine[k][..., offset:end]
                if not np.may_share_memory(part, a):  # not already written in place (Simulation.sink)
                    part[...] = a
        self.games.end_round[offset:end] = block.end_round
        self.games.vp[..., offset:end] = block.vp
        self.games.instant[offset:end] = block.instant


def workers_available() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    return cores()


def play(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    offset: int = 0,
) -> tuple[Games, Any]:
    """Play games ``0 .. trials - 1``; returns them and the pilot's Simulation (units, markers). ``offset``: play games
    ``offset ..`` instead, in this process (one chosen game: a trace's replay). The run's memory setting
    (:func:`~.memo.many_games`) holds while it plays, in this process and its workers."""
    with many_games():
        return _play(scn, trials, seed, progress, workers, offset)


def _play(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None,
    workers: int | None,
    offset: int,
) -> tuple[Games, Any]:
    from .sim import Simulation

    workers = workers_available() if workers is None else max(1, int(workers))
    forkable = "fork" in multiprocessing.get_all_start_methods()
    least = AUTO_PARALLEL_MIN if scn.policies else PARALLEL_MIN
    if workers <= 1 or trials < least or not forkable or offset:
        sim = Simulation(scn, trials, seed, offset=offset)
        sim.run(progress)
        return Games.of(sim), sim
    reuse_freed_memory()  # before the pilot: the workers inherit this process's heap
    pilot_n = min(trials, PILOT)
    # as few blocks as the workers, unless a block would exceed BLOCK_MAX games
    blocks = workers * max(1, math.ceil((trials - pilot_n) / (workers * BLOCK_MAX)))
    length = scn.mission.game_length
    total = length * (1 + blocks)  # Rounds: the pilot's, then each block's

    def tick(done: int) -> None:
        if progress is not None:
            progress(done, total)

    pilot = Simulation(scn, pilot_n, seed)
    pilot.run(lambda rnd, _n: tick(rnd))
    first = Games.of(pilot)
    if pilot_n == trials:
        tick(total)
        return first, pilot
    out = _Out(first, trials)
    out.put(first, 0)
    edges = np.linspace(pilot_n, trials, blocks + 1).astype(np.int64)
    jobs = [(i, int(a), int(b - a)) for i, (a, b) in enumerate(itertools.pairwise(edges.tolist())) if b > a]
    done = _shared((blocks,), np.dtype(np.int64))
    skipped = dict(first.skipped)
    tally = first.tally
    pilot.world.memo.share(blocks)
    _JOB.update(scn=scn, seed=seed, world=pilot.world, out=out, done=done)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            result = pool.map_async(_block, jobs, chunksize=1)
            shown = -1
            while not result.ready():
                result.wait(PROGRESS_POLL)
                now = length + int(done.sum())
                if now != shown:
                    tick(now)
                    shown = now
            for part, sums in result.get():
                for k, v in part.items():
                    skipped[k] = skipped.get(k, 0) + v
                tally = Tally.merge(tally, sums)
    finally:
        _JOB.clear()
        pilot.world.shared = None
    tick(total)
    out.games.skipped = skipped
    out.games.tally = tally
    return out.games, pilot


__all__ = ["AUTO_PARALLEL_MIN", "PARALLEL_MIN", "Games", "play", "workers_available"]
