"""The fill of :class:`~.movedecide.MoveDecider`'s misses for another unit's base on the formation (issue 29 point 6,
step 2 of docs/dev/compiled-game-loop.md): where ``decide`` gives :data:`~.movedecide.MISS_FRIEND` or
:data:`~.movedecide.MISS_FOE`, Python places the unit with the units whose bases can block a spot of the empty-table
formation (the World's own ``place_near_lead`` / ``place``, as :meth:`MoveVerdicts.verdict
<.moveverdicts.MoveVerdicts.verdict>` and the engine call them) and keeps the answer in a table keyed by (unit, point,
heading, those units' placement ids). The key holds for a game when no other unit's base can block a spot of the
filled formation (:meth:`World.bases_many` of its box, the test ``decide`` makes of the empty table's): the grid takes
its spots greedily in order, so more bases leave it the same spots. Where one can, it joins the key and the fill is
made again (up to :data:`ROUNDS` times); past that the game stays a MISS (:data:`MISS_FILL`).

:meth:`FilledDecider.decide` gives per game the verdict, why a MISS, and the placement id of an ADMIT (the tables'
empty-table one or the filled one): the placement the engine sets where the Move or Run is applied.
benchmarks/count_move_masks.py counts it on random games; tests/test_move_fill.py holds it to the walk.
"""

from __future__ import annotations

import numpy as np

from .movedecide import ADMIT, DECIDED, MISS, MISS_FOE, MISS_FRIEND, REFUSE, MoveDecider

#: fills made again with the units blocking the last one, at most
ROUNDS = 3
#: why a MISS: the fill's units did not settle within :data:`ROUNDS`
MISS_FILL = 12


class FilledDecider:
    """:class:`~.movedecide.MoveDecider` with its friendly/enemy-base misses filled (the module text)."""

    def __init__(self, dec: MoveDecider) -> None:
        self.dec = dec
        self.world = dec.world
        #: (unit, point, heading index, ((unit, placement id), ...)) -> the placement id (-1: no room)
        self.fills: dict[tuple[object, ...], int] = {}
        self.placements = 0  # the World placements the fill asked
        self._blocks: dict[int, object] = {}  # filled placement id -> its bases test

    def decide(
        self,
        u: int,
        phase: str,
        index: int,
        pos: np.ndarray,
        alive: np.ndarray,
        gone: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per game: ADMIT, REFUSE or MISS, why a MISS (0: decided), and an ADMIT's placement id (-1 elsewhere)."""
        dec = self.dec
        out, why = dec.decide(u, phase, index, pos, alive, gone)
        out, why = out.copy(), why.copy()
        pid = np.full(out.size, -1, dtype=np.int64)
        want = np.flatnonzero((out == ADMIT) | ((out == MISS) & ((why == MISS_FRIEND) | (why == MISS_FOE))))
        if want.size == 0:
            return out, why, pid
        ent = dec.entry(u, phase, index)
        assert ent is not None
        j, to, headings = ent
        p = np.where((pos >= 0) & (alive > 0), pos, -1).astype(np.int64)
        su = dec.legality.view.units[u]
        for g in want.tolist():
            own = int(p[g, u])
            h = dec._head(u, own, j, to, headings)
            empty = int(dec.tables.place[u, j, h])
            if out[g] == ADMIT:
                pid[g] = empty
                continue
            rear = self.world.rear_from(own, to, headings)
            got = self._fill(u, j, h, su, to, rear, empty, p[g])
            if got is None:
                why[g] = MISS_FILL
            elif got < 0:
                out[g], why[g] = REFUSE, DECIDED
            else:
                out[g], why[g], pid[g] = ADMIT, DECIDED, got
        return out, why, pid

    def _fill(
        self,
        u: int,
        j: int,
        h: int,
        su: object,
        to: tuple[float, float],
        rear: tuple[float, float],
        empty: int,
        row: np.ndarray,
    ) -> int | None:
        """The placement id of unit ``u`` at point ``j``, heading ``h``, with the other units of ``row`` (-1: no
        room; None: not settled)."""
        others = [v for v in range(self.dec.U) if v != u and row[v] >= 0]
        at = empty
        near: list[int] = []
        for _ in range(ROUNDS):
            hits = self._blocking(u, at, [int(row[v]) for v in others])
            add = [v for v, hit in zip(others, hits, strict=True) if hit and v not in near]
            if not add:
                return at
            near = sorted(near + add)
            key = (u, j, h, tuple((v, int(row[v])) for v in near))
            got = self.fills.get(key)
            if got is None:
                occupied = tuple(int(row[v]) for v in near)
                self.placements += 1
                placed = self.world.place_near_lead(su, to, rear, occupied)  # type: ignore[arg-type]
                if placed == -1:
                    placed = self.world.place(su, to, rear, occupied, on=None)  # type: ignore[arg-type]
                got = self.fills[key] = -1 if placed is None else int(placed)
            if got < 0:
                return -1  # another unit's base takes room, never gives it
            at = got
        hits = self._blocking(u, at, [int(row[v]) for v in others])
        if not any(hit and v not in near for v, hit in zip(others, hits, strict=True)):
            return at
        return None

    def _blocking(self, u: int, at: int, pids: list[int]) -> list[bool]:
        """Per placement id of ``pids``: can its base block a spot of unit ``u``'s formation ``at`` (the test
        ``decide`` makes of the empty table's formation)?"""
        test = self._blocks.get(at)
        if test is None:
            c = np.asarray(self.world.placements[at].centres, dtype=float)
            box = [float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max())]
            test = self._blocks[at] = self.world.bases_many(self.dec.legality.view.units[u], box)
        if not pids:
            return []
        return [bool(x) for x in test(np.asarray(pids, dtype=np.int64)).tolist()]  # type: ignore[operator]


__all__ = ["MISS_FILL", "ROUNDS", "FilledDecider"]
