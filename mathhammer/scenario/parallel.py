"""Games on every core: a pilot run reads the board geometry, forked workers play the rest.

A game's dice depend on (seed, game number) only (:meth:`Simulation.draw`), so splitting the games
into numbered blocks, playing them in any process and putting the blocks back in order gives the
very games of one serial run; the test suite holds the two equal, array for array.

The geometry (placements, Engagement, Charge paths, attack facts) is read once per board state
and cached on the :class:`~mathhammer.scenario.world.World`. The pilot block (the first games)
fills those caches; the workers are forked from it, so they start with the caches in memory and
read only the rare board states the pilot never met. Where ``fork`` is not available (Windows,
macOS' default), or for a few games, everything runs in this process.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .spec import Scenario

#: Fewer games than this run in one process (forking costs ~0.1 s a worker).
PARALLEL_MIN = 40_000
#: The pilot block: this share of the games, at least PILOT_MIN of them.
PILOT_SHARE = 0.05
PILOT_MIN = 10_000


@dataclass
class Games:
    """What a block of games leaves: per-Round snapshots and the per-game end state."""

    snapshots: list[dict[str, np.ndarray]]
    end_round: np.ndarray
    vp: np.ndarray
    instant: np.ndarray
    skipped: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def of(sim: Any) -> Games:
        return Games(sim.snapshots, sim.end_round.copy(), sim.vp.copy(), sim.instant.copy(), dict(sim.skipped))

    @staticmethod
    def join(parts: list[Games]) -> Games:
        """The blocks side by side, in game order."""
        if len(parts) == 1:
            return parts[0]
        snaps = [
            {k: np.concatenate([p.snapshots[r][k] for p in parts], axis=-1) for k in parts[0].snapshots[r]}
            for r in range(len(parts[0].snapshots))
        ]
        skipped: dict[str, int] = {}
        for p in parts:
            for k, v in p.skipped.items():
                skipped[k] = skipped.get(k, 0) + v
        return Games(
            snaps,
            np.concatenate([p.end_round for p in parts]),
            np.concatenate([p.vp for p in parts], axis=-1),
            np.concatenate([p.instant for p in parts]),
            skipped,
        )


_JOB: dict[str, Any] = {}


def _block(span: tuple[int, int]) -> Games:
    from .sim import Simulation

    offset, n = span
    sim = Simulation(_JOB["scn"], n, _JOB["seed"], offset=offset, world=_JOB["world"])
    sim.run()
    return Games.of(sim)


def workers_available() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def play(
    scn: Scenario,
    trials: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> tuple[Games, Any]:
    """Play games ``0 .. trials - 1``; returns them and the pilot's Simulation (units, markers)."""
    from .sim import Simulation

    workers = workers_available() if workers is None else max(1, int(workers))
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers <= 1 or trials < PARALLEL_MIN or not forkable:
        sim = Simulation(scn, trials, seed)
        sim.run(progress)
        return Games.of(sim), sim
    pilot_n = min(trials, max(PILOT_MIN, int(trials * PILOT_SHARE)))
    total = 1 + 4 * workers

    def tick(done: int) -> None:
        if progress is not None:
            progress(done, total)

    pilot = Simulation(scn, pilot_n, seed)
    pilot.run()
    tick(1)
    rest = trials - pilot_n
    edges = np.linspace(pilot_n, trials, 4 * workers + 1).astype(np.int64)
    spans = [(int(a), int(b - a)) for a, b in itertools.pairwise(edges.tolist()) if b > a]
    parts: dict[int, Games] = {}
    if rest > 0:
        _JOB.update(scn=scn, seed=seed, world=pilot.world)
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for i, games in enumerate(pool.imap(_block, spans)):
                    parts[i] = games
                    tick(2 + i)
        finally:
            _JOB.clear()
    return Games.join([Games.of(pilot), *(parts[i] for i in range(len(spans)))]), pilot


__all__ = ["PARALLEL_MIN", "Games", "play", "workers_available"]
