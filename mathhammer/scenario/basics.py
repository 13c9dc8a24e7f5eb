"""Small pieces several scenario modules share, kept below them so that none imports another in a cycle:
the key of a random stream, splitting games by a value, and paying a cost with Ready cards (10.5.1).

>>> stream(1, 2) == stream(1, 2) != stream(2, 1)
True
>>> [(k, v.tolist()) for k, v in split_by(np.array([10, 11, 12, 13]), np.array([5, 7, 5, 7]))]
[(5, [10, 12]), (7, [11, 13])]
>>> pay([("a", 1), ("b", 2), ("c", 3)], [True, True, True], 3)
[2]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from .fast import group_rows

_MASK = (1 << 64) - 1
#: the golden-ratio step of the draws: of the seed in a draw's key, of the game number in its uniforms
GOLDEN = 0x9E3779B97F4A7C15


def stream(*parts: int) -> int:
    """A 64-bit key of a random stream from whole numbers (order matters)."""
    s = 0
    for p in parts:
        s = (s * 1_000_003 + int(p) + 1) & _MASK
    return s


def draw_base(seed: int, stream: int) -> np.uint64:
    """The key of the draw ``stream`` of a Simulation seeded ``seed`` (``sim_state.uniforms``)."""
    z = (seed * GOLDEN + 0x632BE59BD9B4E019) & _MASK
    z ^= (stream * 0xBF58476D1CE4E5B9) & _MASK
    return np.uint64(((z ^ (z >> 31)) * 0x94D049BB133111EB) & _MASK)


def split_by(trials: np.ndarray, values: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``trials`` split by ``values`` (one per trial), in order of first appearance, order kept within."""
    order, bounds, keys = group_rows(values[None, :], np.arange(trials.size))
    for g in range(len(keys)):
        yield int(keys[g, 0]), trials[order[bounds[g] : bounds[g + 1]]]


def pay(cards: list[tuple[str, int]], ready: list[bool], cost: int) -> list[int] | None:
    """Indices of Ready cards to Exhaust for ``cost`` with the least excess (10.5.1), or None."""
    best: tuple[int, int, list[int]] | None = None
    idx = [i for i, ok in enumerate(ready) if ok]
    for n in range(1, len(idx) + 1):
        for combo in itertools.combinations(idx, n):
            total = sum(cards[i][1] for i in combo)
            if total >= cost and (best is None or (total - cost, n) < (best[0], best[1])):
                best = (total - cost, n, list(combo))
    return None if best is None else best[2]
