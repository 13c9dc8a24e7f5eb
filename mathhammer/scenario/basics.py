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


def stream(*parts: int) -> int:
    """A 64-bit key of a random stream from whole numbers (order matters)."""
    s = 0
    for p in parts:
        s = (s * 1_000_003 + int(p) + 1) & _MASK
    return s


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
