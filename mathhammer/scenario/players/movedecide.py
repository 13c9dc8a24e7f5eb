"""A plain Move or Run verdict decided from arrays with the other units, for many games at once (issue 29 point 6,
step 2 of docs/dev/compiled-game-loop.md): the tables built ahead (:mod:`.movetables`) answer the unit's own parts,
small per-placement tables filled lazily from the World's own tests answer the other units' parts, and what neither
can answer is a MISS (Python, :class:`~.moveverdicts.MoveVerdicts` or the walk, gives it).

:class:`MoveDecider.decide` gives per game ADMIT, REFUSE or MISS for entry ``index`` of unit ``u``'s menu, from the
placements and models left of every unit in each game (:meth:`Legality.states <.legal.Legality.states>`' columns).
It reads what :meth:`MoveVerdicts.verdict <.moveverdicts.MoveVerdicts.verdict>` reads (8.5.2-8.5.3), a verdict refused
where any of these holds and admitted where none does:

* the point over a terrain top: ``level_ok[u, j]`` of the tables;
* Engaged (8.5.2, 8.7.1: an Engaged unit cannot Move or Run): per enemy unit on the table, the World's
  ``pair_engaged`` of the two placements and models left, in the order :meth:`MoveVerdicts.engaged
  <.moveverdicts.MoveVerdicts.engaged>` asks it, kept per (placement, models, placement, models) code;
* too far (8.5.3): ``way[u, i, j]`` against the unit's Speed; where the Speed off Creep and ON CREEP give different
  answers, ON CREEP is the cards' ``on_creep`` hooks (:meth:`MoveVerdicts.on_creep
  <.moveverdicts.MoveVerdicts.on_creep>`) read on the unit's placement and the Sources of Creep's (``creep_source``)
  and the plan's Creep Tumors, all the hooks read, kept per those placement ids and Tumors;
* no room: the empty-table placement ``place[u, j, h]`` (``h`` the heading :meth:`World.rear_from` gives) is none
  (another unit's base takes room, never gives it), or is there and no other unit's base can block one of its spots
  (:meth:`World.bases_many` of the box of its centres, kept per formation and placement id: the grid takes its spots
  greedily in order, so with no spot it took blocked it takes the same ones, near the Leading Model or beyond). A
  base that can block one makes the verdict a MISS (:data:`MISS_FRIEND`, :data:`MISS_FOE`) unless another part
  refuses it. ``formation=False`` reads the grid's reach instead, coarser (every placement passing
  :meth:`World.lead_test` of the point where the tables found the formation near the Leading Model, ``near_only``,
  or :meth:`World.place_test` where the grid looked farther: :data:`MISS_WIDE_FRIEND`, :data:`MISS_WIDE_FOE`).

Per game, a MISS too where the tables hold no key or another World holds the game: the unit off the table, its
Leading Model on none of its menu points (:data:`MISS_OFF_MENU`: Close Ranks, a Charge, a Lunge), on a terrain top
(:data:`MISS_LEVEL`: a route between levels, the walk's), a Grass piece removed (:data:`MISS_GRASS`: the tables are
mask 0's), the unit BURROWED (:data:`MISS_DOWN`); for every game, an entry MoveVerdicts leaves to the walk
(:data:`MISS_NOT_PLAIN`: an ability used, a Structure, a Summoned Unit, no ``headings``).

benchmarks/count_move_decide.py holds it to the walk's answer on every Move/Run verdict of random games;
tests/test_move_decide.py on a few.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...board.model import EPS
from ..lookup import unit_abilities
from ..world import World
from .legal import Legality
from .movetables import MOVE_KINDS, MoveTables, heading_index

#: the verdicts of :meth:`MoveDecider.decide`
ADMIT, REFUSE, MISS = 1, 0, -1
#: why a game's verdict is a MISS (:meth:`MoveDecider.decide`'s second array; 0: decided)
DECIDED = 0
MISS_NOT_PLAIN = 1
MISS_OFF = 2  # the unit off the table (the shortcuts refuse it; never asked of the verdicts)
MISS_GRASS = 3
MISS_DOWN = 4
MISS_OFF_MENU = 5
MISS_LEVEL = 6
MISS_FRIEND = 8
MISS_FOE = 9
MISS_WIDE_FRIEND = 10
MISS_WIDE_FOE = 11
#: the classes' names (the counter's)
MISS_NAMES = {
    MISS_NOT_PLAIN: "not a plain entry (the walk's)",
    MISS_OFF: "unit off the table",
    MISS_GRASS: "Grass removed (another World)",
    MISS_DOWN: "unit BURROWED (the walk's)",
    MISS_OFF_MENU: "Leading Model off the menu points",
    MISS_LEVEL: "Leading Model on a terrain top",
    MISS_FRIEND: "a friendly unit's placement in the formation's reach",
    MISS_FOE: "an enemy unit's placement in the formation's reach",
    MISS_WIDE_FRIEND: "a friendly unit's placement in the reach of a formation wider than the near test",
    MISS_WIDE_FOE: "an enemy unit's placement in the reach of a formation wider than the near test",
}
#: the pair codes: a placement id and a models count packed in one int64 each side
_K = 1 << 8
_P = 1 << 22


class MoveDecider:
    """Plain Move/Run verdicts from the tables and lazily filled per-placement tables (the module text), for one
    Legality (its World, menus and MoveVerdicts)."""

    def __init__(self, tables: MoveTables, legality: Legality, formation: bool = True) -> None:
        view = legality.view
        self.formation = formation
        self.tables = tables
        self.legality = legality
        self.moves = legality.moves
        self.world: World = view.world
        self.U = view.U
        self.uids = tuple(view.uids)
        players = [su.player for su in view.units]
        self.side = np.asarray([players.index(p) for p in players], dtype=np.int64)  # first unit of the same player
        self.sources = np.asarray(
            [
                v
                for v, su in enumerate(view.units)
                if any(e.kind == "creep_source" for a in unit_abilities(su) for e in a.effects)
            ],
            dtype=np.int64,
        )
        self._foes = [np.flatnonzero(self.side != self.side[u]) for u in range(self.U)]
        self._others = [
            (np.delete(np.arange(self.U), u), np.delete(self.side == self.side[u], u)) for u in range(self.U)
        ]
        self._entry: dict[tuple[int, str, int], tuple[int, tuple[float, float], int] | None] = {}
        self._point: list[dict[int, int]] = [{} for _ in range(self.U)]  # unit -> placement id -> point index
        self._level: dict[int, bool] = {}  # placement id -> its Leading Model on a terrain top
        self._heading: dict[tuple[int, int, int], int] = {}  # (unit, placement id, to point) -> heading index
        self._pairs: dict[int, bool] = {}  # pair code -> Engaged
        self._creep: dict[tuple[object, ...], bool] = {}  # (unit, the Creep Tumors, its and the sources' pids)
        self._reach: dict[tuple[int, int, bool], dict[int, bool]] = {}  # (unit, point, wide) -> pid -> in reach
        self._tests: dict[tuple[int, int, bool], Callable[[int], bool]] = {}
        self._touch: dict[tuple[int, int, int], tuple[dict[int, bool], Callable[[np.ndarray], np.ndarray]]] = {}

    def entry(self, u: int, phase: str, index: int) -> tuple[int, tuple[float, float], int] | None:
        """Entry ``index`` of unit ``u``'s ``phase`` menu as decided here: its point's index, its point and its
        ``headings``; None where MoveVerdicts leaves it to the walk (not plain) or it is no Move or Run."""
        key = (u, phase, index)
        if key in self._entry:
            return self._entry[key]
        hit = None
        plain = self.moves.plain(u, phase, index)
        if plain is not None and plain[0] in MOVE_KINDS and plain[1] is not None and plain[5] is not None:
            j = int(self.tables.entry_point[(u, phase)][index])
            if j >= 0 and self.tables.is_move[u, j]:
                hit = (j, plain[1], int(plain[5]))
        self._entry[key] = hit
        return hit

    def decide(
        self,
        u: int,
        phase: str,
        index: int,
        pos: np.ndarray,
        alive: np.ndarray,
        gone: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per game (rows of ``pos`` and ``alive``: every unit's placement id and models left, World order; ``gone``
        the Grass mask, 0 where not given): ADMIT, REFUSE or MISS for entry ``index`` of unit ``u``'s ``phase`` menu,
        and why a MISS (:data:`MISS_NAMES`; :data:`DECIDED` where it is not)."""
        G = pos.shape[0]
        why = np.zeros(G, dtype=np.int8)
        out = np.full(G, MISS, dtype=np.int8)
        ent = self.entry(u, phase, index)
        if ent is None:
            why[:] = MISS_NOT_PLAIN
            return out, why
        j, to, headings = ent
        tb = self.tables
        p = np.where((pos >= 0) & (alive > 0), pos, -1).astype(np.int64)
        a = np.where(p >= 0, alive, 0).astype(np.int64)
        assert p.max(initial=0) < _P and a.max(initial=0) < _K, "a placement id or models count past the pair codes"
        own = p[:, u]
        live = own >= 0
        why[~live] = MISS_OFF
        if gone is not None:
            bad = live & (gone != 0)
            why[bad] = MISS_GRASS
            live &= ~bad
        if self.uids[u] in self.moves.check.down:
            why[live] = MISS_DOWN
            live[:] = False
        if not live.any():
            return out, why
        # the unit's own placement: its point index and level, the heading to the entry's point
        pids, inv = np.unique(own[live], return_inverse=True)
        i_of = np.empty(pids.size, dtype=np.int64)
        h_of = np.zeros(pids.size, dtype=np.int64)
        lev_of = np.zeros(pids.size, dtype=bool)
        for k, pid in enumerate(pids.tolist()):
            i_of[k], lev_of[k] = self._own(u, pid)
            if i_of[k] >= 0 and not lev_of[k]:
                h_of[k] = self._head(u, pid, j, to, headings)
        g = np.flatnonzero(live)
        i, h, lev = i_of[inv], h_of[inv], lev_of[inv]
        off = i < 0
        why[g[off]] = MISS_OFF_MENU
        why[g[~off & lev]] = MISS_LEVEL
        keep = ~off & ~lev
        g, i, h = g[keep], i[keep], h[keep]
        if g.size == 0:
            return out, why
        if not tb.level_ok[u, j]:  # the menus name no ``on``: a point over a terrain top is refused
            out[g] = REFUSE
            return out, why
        refuse = tb.place[u, j, h] < 0  # no room on an empty table: none with more bases
        refuse |= self._engaged(u, p[g], a[g])
        way = tb.way[u, i, j]
        s0, s1 = float(tb.speeds[u, 0]), float(tb.speeds[u, 1])
        far0, far1 = way > s0 + EPS, way > s1 + EPS
        unknown = far0 != far1
        if unknown.any():  # the Speed the walk reads
            far0[unknown] = np.where(self._on_creep(u, p[g][unknown]), far1[unknown], far0[unknown])
        refuse |= far0
        friend, foe = self._touching(u, j, h, p[g]) if self.formation else self._in_reach(u, j, h, p[g])
        out[g[refuse]] = REFUSE
        open_ = ~refuse & (why[g] == DECIDED)
        wide = ~tb.near_only[u, j, h] & (not self.formation)
        why[g[open_ & foe]] = MISS_FOE
        why[g[open_ & friend & ~foe]] = MISS_FRIEND
        why[g[open_ & foe & wide]] = MISS_WIDE_FOE
        why[g[open_ & friend & ~foe & wide]] = MISS_WIDE_FRIEND
        out[g[open_ & ~friend & ~foe]] = ADMIT
        why[g[refuse]] = DECIDED
        return out, why

    def _own(self, u: int, pid: int) -> tuple[int, bool]:
        """The point index of placement ``pid``'s Leading Model among unit ``u``'s (-1: none), and whether it stands on
        a terrain top."""
        lev = self._level.get(pid)
        if lev is None:
            lev = self._level[pid] = self.world.placements[pid].level is not None
        i = self._point[u].get(pid)
        if i is None:
            i = self._point[u][pid] = self.tables.point_of(u, self.world.placements[pid].centres[0])
        return i, lev

    def _head(self, u: int, pid: int, j: int, to: tuple[float, float], headings: int) -> int:
        """The heading index of the rear :meth:`World.rear_from` gives a Move from placement ``pid`` to ``to``."""
        key = (u, pid, j)
        h = self._heading.get(key)
        if h is None:
            h = self._heading[key] = heading_index(self.world.rear_from(pid, to, headings), len(self.tables.headings))
        return h

    def _engaged(self, u: int, p: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Per game: is unit ``u`` Engaged with an enemy unit (:meth:`MoveVerdicts.engaged`'s pairs, each asked in its
        order: the unit first of the two in World order)?"""
        foes = self._foes[u]
        if foes.size == 0:
            return np.zeros(p.shape[0], dtype=bool)
        pv, kv = p[:, foes], a[:, foes]
        on = (pv >= 0) & (kv > 0)
        pu, ku = p[:, u : u + 1], a[:, u : u + 1]
        later = (foes > u)[None, :]  # the unit first of the two in World order
        pa, ka = np.where(later, pu, pv), np.where(later, ku, kv)
        pb, kb = np.where(later, pv, pu), np.where(later, kv, ku)
        codes = ((pa * _K + ka) * _P + pb) * _K + kb
        got = np.zeros(on.shape, dtype=bool)
        if on.any():
            seen, inv = np.unique(codes[on], return_inverse=True)
            hits = np.empty(seen.size, dtype=bool)
            pairs, world = self._pairs, self.world
            for k, code in enumerate(seen.tolist()):
                hit = pairs.get(code)
                if hit is None:
                    rest, k2 = divmod(code, _K)
                    rest, p2 = divmod(rest, _P)
                    p1, k1 = divmod(rest, _K)
                    hit = pairs[code] = world.pair_engaged(p1, k1, p2, k2)
                hits[k] = hit
            got[on] = hits[inv.reshape(-1)]
        return np.asarray(got.any(axis=1), dtype=bool)

    def _on_creep(self, u: int, p: np.ndarray) -> np.ndarray:
        """Per game: is unit ``u`` ON CREEP (the cards' hooks, :meth:`MoveVerdicts.on_creep`)? The hooks read the
        unit's placement, the Sources of Creep's and the plan's Creep Tumors alone: the answer is kept per those."""
        tumors = tuple(self.moves.check.tumors)
        cols = np.concatenate([[u], self.sources]).astype(np.int64)
        keys = p[:, cols]
        seen, inv = np.unique(keys, axis=0, return_inverse=True)
        got = np.empty(seen.shape[0], dtype=bool)
        for k, row in enumerate(seen.tolist()):
            key = (u, tumors, *row)
            hit = self._creep.get(key)
            if hit is None:
                only = [-1] * self.U
                for v, pv in zip(cols.tolist(), row, strict=True):
                    only[v] = pv
                hit = self._creep[key] = self.moves.on_creep(self.world, self.uids[u], tuple(only))
            got[k] = hit
        return got[inv.reshape(-1)]

    def _touching(self, u: int, j: int, h: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per game: has a friendly (an enemy) unit a base that can block a spot of the empty-table formation
        ``place[u, j, h]`` (:meth:`World.bases_many` of the box of its centres: an overlap, an enemy Within 1")? Where
        none has, the grid (greedy in its spots' order: a spot it passed over stays passed over with more bases, and
        the spots it took stay free) sets the same centres with the other units there, near the Leading Model or
        beyond: the verdict is the empty table's. Only a formation with room is asked."""
        G = p.shape[0]
        friend = np.zeros(G, dtype=bool)
        foe = np.zeros(G, dtype=bool)
        others, mine = self._others[u]
        for hh in np.unique(h).tolist():
            rows = np.flatnonzero(h == hh)
            pid = int(self.tables.place[u, j, hh])
            if pid < 0:
                continue
            vals = p[rows][:, others]
            seen, inv = np.unique(vals, return_inverse=True)
            hit = self._touch_of(u, j, hh, pid, seen)
            inside = hit[inv.reshape(vals.shape)]
            friend[rows] = inside[:, mine].any(axis=1)
            foe[rows] = inside[:, ~mine].any(axis=1)
        return friend, foe

    def _touch_of(self, u: int, j: int, h: int, pid: int, pids: np.ndarray) -> np.ndarray:
        """Per placement id of ``pids`` (-1: off the table, never): :meth:`_touching`'s test of unit ``u``'s
        formation ``pid`` (at point ``j``, heading ``h``), kept per (unit, point, heading) and placement id."""
        key = (u, j, h)
        got = self._touch.get(key)
        if got is None:
            c = np.asarray(self.world.placements[pid].centres, dtype=float)
            box = [float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max())]
            got = self._touch[key] = ({}, self.world.bases_many(self.legality.view.units[u], box))
        memo, test = got
        out = np.zeros(pids.size, dtype=bool)
        new = [pv for pv in pids.tolist() if pv >= 0 and pv not in memo]
        if new:
            for pv, hit in zip(new, test(np.asarray(new, dtype=np.int64)).tolist(), strict=True):
                memo[pv] = bool(hit)
        for k, pv in enumerate(pids.tolist()):
            if pv >= 0:
                out[k] = memo[pv]
        return out

    def _in_reach(self, u: int, j: int, h: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per game: has a friendly (an enemy) unit a placement that can change the placement of unit ``u`` at point
        ``j`` with heading ``h``: :meth:`World.lead_test` where the tables found it near the Leading Model,
        :meth:`World.place_test` where the grid looked farther?"""
        G = p.shape[0]
        friend = np.zeros(G, dtype=bool)
        foe = np.zeros(G, dtype=bool)
        wide = ~self.tables.near_only[u, j, h]
        for w in (False, True):
            rows = np.flatnonzero(wide == w)
            if rows.size == 0:
                continue
            sub = p[rows]
            others, mine = self._others[u]
            vals = sub[:, others]
            seen, inv = np.unique(vals, return_inverse=True)
            hit = self._reach_of(u, j, w, seen)
            inside = hit[inv.reshape(vals.shape)]
            friend[rows] = inside[:, mine].any(axis=1)
            foe[rows] = inside[:, ~mine].any(axis=1)
        return friend, foe

    def _reach_of(self, u: int, j: int, wide: bool, pids: np.ndarray) -> np.ndarray:
        """Per placement id of ``pids`` (-1: off the table, never in reach): does it pass the reach test of unit ``u``
        at point ``j`` (``wide``: :meth:`World.place_test`, else :meth:`World.lead_test`)?"""
        key = (u, j, wide)
        memo = self._reach.get(key)
        if memo is None:
            memo = self._reach[key] = {}
            su = self.legality.view.units[u]
            at = self.tables.index[u]
            to = next(c for c, k in at.items() if k == j)
            self._tests[key] = self.world.place_test(su, to) if wide else self.world.lead_test(su, to)
        test = self._tests[key]
        out = np.zeros(pids.size, dtype=bool)
        for k, pid in enumerate(pids.tolist()):
            if pid < 0:
                continue
            hit = memo.get(pid)
            if hit is None:
                hit = memo[pid] = bool(test(pid))
            out[k] = hit
        return out


__all__ = [
    "ADMIT",
    "DECIDED",
    "MISS",
    "MISS_DOWN",
    "MISS_FOE",
    "MISS_FRIEND",
    "MISS_GRASS",
    "MISS_LEVEL",
    "MISS_NAMES",
    "MISS_NOT_PLAIN",
    "MISS_OFF",
    "MISS_OFF_MENU",
    "MISS_WIDE_FOE",
    "MISS_WIDE_FRIEND",
    "REFUSE",
    "MoveDecider",
]
