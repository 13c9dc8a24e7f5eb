"""Overlapping bases, found by a sweep along x: O(n log n + pairs checked) in numpy, bounded output.

A board of 5,000 models stacked on one spot has 12.5 million overlapping pairs: they are counted (numpy,
one row of candidates per model), and only the first :data:`~mathhammer.engine.budget.PROBLEMS_SHOWN`
in the models' order are written out, then ``... and N more``.

>>> from mathhammer.board.model import Model
>>> ms = [Model("a", 1, 1), Model("b", 1.5, 1), Model("c", 9, 9), Model("d", 1, 1.2)]
>>> overlap_problems(ms, shown=2)
["model 'a' and model 'b': bases overlap; allowed: touching at most", \
"model 'a' and model 'd': bases overlap; allowed: touching at most", '... and 1 more overlapping pair']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Bases closer than the sum of their radii less this (inches) overlap; touching is allowed.
TOUCH = 1e-6


def overlapping_pairs(centres: np.ndarray, radii: np.ndarray, keep: int) -> tuple[list[tuple[int, int]], int]:
    """``(the first `keep` pairs (i, j), i < j, in index order; how many pairs overlap in all)``.

    Models sorted by x: a model's candidates are the run of models within its reach along x. A first pass
    counts (numpy, no pair is stored); a second, in the models' order, writes out pairs until ``keep``.
    """
    n = len(radii)
    if n < 2:
        return [], 0
    order = np.argsort(centres[:, 0], kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    xs, ys, rs = centres[order, 0], centres[order, 1], radii[order]
    widest = float(rs.max())
    stops = np.searchsorted(xs, xs + rs + widest, side="right")
    starts = np.searchsorted(xs, xs - rs - widest, side="left")

    def hits(a: int, lo: int, hi: int) -> np.ndarray:
        """Sorted positions in ``lo..hi`` whose bases overlap the one at sorted position ``a``."""
        near = np.hypot(xs[lo:hi] - xs[a], ys[lo:hi] - ys[a]) < rs[a] + rs[lo:hi] - TOUCH
        return np.flatnonzero(near) + lo

    total = sum(int(hits(a, a + 1, int(stops[a])).size) for a in range(n - 1) if stops[a] > a + 1)
    pairs: list[tuple[int, int]] = []
    for i in range(n):
        if len(pairs) >= min(keep, total):
            break
        a = int(rank[i])
        others = order[hits(a, int(starts[a]), int(stops[a]))]
        pairs += [(i, int(j)) for j in np.sort(others[others > i])[: keep - len(pairs)]]
    return pairs, total


def overlap_problems(models: Sequence[Any], shown: int | None = None) -> list[str]:
    """One line per pair of ``models`` whose bases overlap (the first ``shown``, then ``... and N more``)."""
    from ..engine.budget import PROBLEMS_SHOWN

    keep = PROBLEMS_SHOWN if shown is None else shown
    centres = np.array([m.centre for m in models], dtype=np.float64).reshape(-1, 2)
    radii = np.array([m.radius for m in models], dtype=np.float64)
    pairs, total = overlapping_pairs(centres, radii, keep)
    lines = [
        f"model {models[i].id!r} and model {models[j].id!r}: bases overlap; allowed: touching at most" for i, j in pairs
    ]
    if total > len(pairs):
        more = total - len(pairs)
        lines.append(f"... and {more:,} more overlapping pair{'s' if more > 1 else ''}")
    return lines
