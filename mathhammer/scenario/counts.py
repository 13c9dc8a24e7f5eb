"""A run's games as counts: how many games end each Round with each value of each result row (a unit's models left,
Supply, Damage Marker, on the table; a marker's controller; a player's VP; the game over), who won, the Round the
game ended in, a Special Winning Condition.

Every figure of a :class:`~.result.ScenarioResult` (a probability, a mean and its standard error, a distribution) is
read from these counts, so a run need not keep its games: the blocks of an automatic players' run are counted as they
end and dropped (:func:`mathhammer.scenario.parallel.play` with ``per_game=False``), and its memory stays flat in the
number of games. Counts add exactly, so the figures do not depend on how the games were split into blocks or workers.

>>> h = Hist.of(np.array([[3, 1, 1, 4], [0, 0, 0, 0]], dtype=np.int16))
>>> h.row(0), h.row(1)
({1: 2, 3: 1, 4: 1}, {0: 4})
>>> (h + Hist.of(np.array([[5], [-1]], dtype=np.int16))).row(1)
{-1: 1, 0: 4}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..jit import cores

#: :meth:`Counts.of` reads its rows on threads (the compiled count releases the GIL) from this many values in all;
#: fewer are read in turn.
THREADED_VALUES = 1 << 22
#: The keys of a Round's snapshot (:meth:`.Simulation.snapshot <mathhammer.scenario.sim_round>`), each counted.
KEYS = ("alive", "on_table", "supply", "marker", "control", "vp", "over")


def _row_counts(x: np.ndarray) -> tuple[int, np.ndarray]:
    """One row's lowest value and the count of each value from it (:func:`~.faststats.counts`; booleans as 0/1)."""
    from .faststats import counts  # numba: compiled where a result is counted, not where one is imported

    x = np.ascontiguousarray(x)
    if x.dtype == np.bool_:
        x = x.view(np.int8)
    elif x.dtype not in (np.int8, np.int16, np.int64):
        x = x.astype(np.int64)
    return counts(x)


def _read(rows: list[np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """:func:`_row_counts` of each row, in order; on up to 4 threads where there are many values (a forked run's
    summary is otherwise the only work on one core)."""
    threads = min(cores(), 4)
    if threads < 2 or len(rows) < 2 or sum(x.size for x in rows) < THREADED_VALUES:
        return [_row_counts(x) for x in rows]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(_row_counts, rows))


@dataclass(frozen=True)
class Hist:
    """Counts of the values of some rows over the same games: ``counts[i, v - lo]`` games have value ``v`` in row
    ``i``."""

    lo: int
    counts: np.ndarray  # int64, rows x width

    @staticmethod
    def of(x: np.ndarray) -> Hist:
        """The counts of each row of ``x`` (rows x games; one row: games)."""
        x2 = x.reshape(1, -1) if x.ndim == 1 else x
        return Hist.join(_read(list(x2)), x2.shape[0])

    @staticmethod
    def join(read: Sequence[tuple[int, np.ndarray]], rows: int) -> Hist:
        """The rows read by :func:`_row_counts` as one :class:`Hist` (``rows`` rows: none read, none counted)."""
        if not read:
            return Hist(0, np.zeros((rows, 0), dtype=np.int64))
        lo = min(low for low, _ in read)
        width = max(low + c.size for low, c in read) - lo
        out = np.zeros((len(read), width), dtype=np.int64)
        for i, (low, c) in enumerate(read):
            out[i, low - lo : low - lo + c.size] = c
        return Hist(lo, out)

    def __add__(self, other: Hist) -> Hist:
        if not other.counts.shape[1]:
            return self
        if not self.counts.shape[1]:
            return other
        lo = min(self.lo, other.lo)
        width = max(self.lo + self.counts.shape[1], other.lo + other.counts.shape[1]) - lo
        out = np.zeros((self.counts.shape[0], width), dtype=np.int64)
        for h in (self, other):
            out[:, h.lo - lo : h.lo - lo + h.counts.shape[1]] += h.counts
        return Hist(lo, out)

    def row(self, i: int = 0) -> dict[int, int]:
        """Row ``i``'s count of each value that occurs, ascending."""
        c = self.counts[i]
        at = np.flatnonzero(c)
        return dict(zip((at + self.lo).tolist(), c[at].tolist(), strict=True))


def mean_se(found: dict[int, int]) -> tuple[float, float]:
    """The mean of the games' values counted in ``found`` (value -> games) and its standard error
    ``sd / sqrt(n)`` (``sd`` with ``n - 1``; 0 for one game): the mean is the exact integer sum over ``n`` (numpy's
    ``mean`` of the values gives the same bits), the squared deviations are added exactly (:func:`math.fsum`)."""
    n = sum(found.values())
    mean = sum(v * c for v, c in found.items()) / n
    if n < 2:
        return mean, 0.0
    squares = math.fsum(c * (v - mean) ** 2 for v, c in found.items())
    return mean, math.sqrt(squares / (n - 1)) / math.sqrt(n)


def winners(vp: np.ndarray) -> np.ndarray:
    """Per game: 0 red won, 1 blue won, -1 a draw, from the VP at the end (2 x games)."""
    return np.where(vp[0] > vp[1], 0, np.where(vp[1] > vp[0], 1, -1))


@dataclass(frozen=True)
class Counts:
    """A run's games counted: per Round (after its Scoring Phase) a :class:`Hist` of each snapshot key
    (:data:`KEYS`), and the winner (0 red, 1 blue, -1 draw), the Round the game ended in and a Special Winning
    Condition (0/1) over the games."""

    games: int
    rounds: tuple[dict[str, Hist], ...]
    winner: Hist
    end_round: Hist
    instant: Hist

    @staticmethod
    def of(
        rounds: Sequence[dict[str, np.ndarray]], winner: np.ndarray, end_round: np.ndarray, instant: np.ndarray
    ) -> Counts:
        """The counts of games given as arrays (per Round a snapshot, then one value a game each)."""
        arrays = [snap[k] for snap in rounds for k in KEYS] + [winner, end_round, instant]
        as_rows = [a.reshape(1, -1) if a.ndim == 1 else a for a in arrays]
        read = iter(_read([row for a in as_rows for row in a]))
        hists = [Hist.join([next(read) for _ in range(a.shape[0])], a.shape[0]) for a in as_rows]
        *per_round, win, end, inst = hists
        return Counts(
            int(winner.shape[0]),
            tuple(
                dict(zip(KEYS, per_round[r * len(KEYS) : (r + 1) * len(KEYS)], strict=True)) for r in range(len(rounds))
            ),
            win,
            end,
            inst,
        )

    def __add__(self, other: Counts) -> Counts:
        """Both runs' games counted together (the same scenario: the same Rounds and rows)."""
        return Counts(
            self.games + other.games,
            tuple({k: a[k] + b[k] for k in KEYS} for a, b in zip(self.rounds, other.rounds, strict=True)),
            self.winner + other.winner,
            self.end_round + other.end_round,
            self.instant + other.instant,
        )

    def share(self, hist: Hist, value: int, row: int = 0) -> tuple[float, float]:
        """The share of the games with ``value`` in ``hist``'s row and its standard error ``sqrt(p (1 - p) / n)``."""
        n = self.games
        i = value - hist.lo
        count = int(hist.counts[row, i]) if 0 <= i < hist.counts.shape[1] else 0
        p = count / n if n else 0.0
        return p, math.sqrt(max(p * (1 - p), 0.0) / n) if n else 0.0


__all__ = ["KEYS", "Counts", "Hist", "mean_se", "winners"]
