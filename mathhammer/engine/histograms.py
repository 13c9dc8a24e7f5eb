"""Per-slot histogram rows and the super-block loop: how every game system's Monte Carlo kernels count.

A kernel runs the trials of one slot and adds one to a bin of each of its
histograms in that slot's row; slots are the numba threads, and each row is
padded to whole 64-byte cache lines so two threads never write to one line.
Integer counts add up the same in any order, so the summed rows do not
depend on the number of threads.

>>> h = Histograms({"damage": 3, "models_destroyed": 2}, overflow=True)
>>> h.layout.tolist()
[0, 4, 4, 3]
>>> h.rows[0, [1, 4, 6]] = 5, 5, 0
>>> {k: v.tolist() for k, v in h.counts().items()}
{'damage': [0, 5, 0], 'models_destroyed': [5, 0]}
>>> list(super_blocks(0, 10, 4))
[(0, 4), (4, 4), (8, 2)]
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

import numpy as np


def threads() -> int:
    """numba's thread count: one histogram row each."""
    import numba

    return int(numba.get_num_threads())


class Histograms:
    """One int64 row per slot holding named histograms side by side.

    Args:
        sizes: the number of values of each histogram, in the order the kernel writes them.
        overflow: each histogram gets one more bin, for values past its bound; it must stay
            empty (:meth:`counts` raises otherwise).
        slots: rows (numba's thread count by default).

    Attributes:
        layout: int64 ``[start_0, size_0, start_1, size_1, ...]`` of the histograms in a row
            (sizes with the overflow bin), for the kernels.
        rows: int64 ``[slots, width]``.
    """

    def __init__(self, sizes: Mapping[str, int], overflow: bool = False, slots: int | None = None) -> None:
        self.names = tuple(sizes)
        self.overflow = overflow
        widths = [int(n) + (1 if overflow else 0) for n in sizes.values()]
        offsets = np.concatenate(([0], np.cumsum(widths))).astype(np.int64)
        self.layout = np.array([x for pair in zip(offsets[:-1], widths, strict=True) for x in pair], dtype=np.int64)
        width = -(-int(offsets[-1]) // 8) * 8 + 8  # whole 64-byte lines, and one spare
        self.rows = np.zeros((threads() if slots is None else slots, width), dtype=np.int64)

    def counts(self) -> dict[str, np.ndarray]:
        """The summed int64 histograms by name (overflow bins dropped, after checking they are empty)."""
        total = self.rows.sum(axis=0)
        out = {}
        for i, name in enumerate(self.names):
            start, size = int(self.layout[2 * i]), int(self.layout[2 * i + 1])
            h = total[start : start + size]
            if self.overflow:
                if h[-1]:
                    raise AssertionError(f"engine bug: {h[-1]} trials with the {name} past its bound")
                h = h[:-1]
            out[name] = h
        return out


def super_blocks(first: int, stop: int, block: int, field: str = "trials") -> Iterator[tuple[int, int]]:
    """``(first trial, trials)`` of consecutive blocks of at most ``block`` trials covering ``[first, stop)``:
    memory stays flat however many trials are asked for.

    The blocks are timed (the caller's work on one happens before the next is asked for): the first is
    :data:`~mathhammer.engine.budget.FIRST_BLOCK` trials, each next one about
    :data:`~mathhammer.engine.budget.BLOCK_SECONDS` of work (at most 4 times the last, at most ``block``),
    so Ctrl-C is noticed within about a second. From the second block on, a block of at least half that
    long prices the trials left at its rate; past the budget they are refused
    (:func:`~mathhammer.engine.budget.check_trials_left`, naming ``field``). Counts do not depend on how
    trials are cut into blocks.
    """
    from . import budget

    size = min(block, budget.FIRST_BLOCK)
    timed = False
    while first < stop:
        n = min(size, stop - first)
        start = time.perf_counter()
        yield first, n
        seconds = max(time.perf_counter() - start, 1e-9)
        first += n
        if timed and first < stop and seconds >= budget.BLOCK_SECONDS / 2:  # long enough to give a rate
            budget.check_trials_left(field, stop, stop - first, seconds / n)
        timed = True  # the first block also loads the compiled kernels: its time is no rate
        size = int(min(block, 4 * n, max(budget.FIRST_BLOCK, n * budget.BLOCK_SECONDS / seconds)))
