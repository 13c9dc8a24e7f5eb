"""GRASS destroyed by the passage of war (part 11 GRASS; 8.5.3 TERRAIN INTERACTIONS), per game.

Part 11 GRASS: "If a Leading Model's path of travel passes through or any model of a Unit ends on a Grass terrain
piece during any movement action (Move, Deploy, Run, Charge, Disengage or Close Ranks), that Grass terrain piece
is immediately removed from the game. It does not return during Cleanup & Refresh and cannot be replaced by any
means. A Flying Unit moving over Grass does not destroy the Grass terrain piece. ... If any model of a Flying Unit
ends on a Grass terrain piece, it is removed as normal."

Reading:

* The removed pieces are per-game state: one bit per Grass piece of the board (board order), in an ``int64`` per
  game (:attr:`Grass.gone`); a board has at most :data:`MAX_PIECES` Grass pieces (more are refused). Nothing puts a
  bit back: Cleanup & Refresh does not touch it.
* The movement actions are the ones the text lists: Move, Run, Disengage, Deploy, Charge, Close Ranks, and an
  ability's extra Move ("performs a 2\\" Move action"). A PLACE (part 11: "not moved along a path"), a RESPAWN and
  a Deploy through another unit's base (Warp Conduit, Omega Network: ``via``) are not a path of travel: only
  the models they set on a piece remove it where that happens within one of the actions above.
* "ends on": a live model's base overlaps the piece's footprint (touching is not overlapping). A base may end
  there: Grass "does not block movement", and its text foresees a model ending on it.
* "path of travel": the Leading Model's base swept along the straight segment from its centre before the action
  to its centre after (the scenario measures Moves in straight lines); a Deploy starts at the nearest point of the
  Entry Edge it enters by (8.5.5); a Charge is read on the same straight segment (its path search avoids walls, not
  Grass, so the straight line is the path unless a wall stands between). Close Ranks sets its models around a
  Leading Model the placement does not name: only the ends count there. A Flying unit's path never removes a
  piece (it passes above); its ends do.
* A piece counts only for models on the level it stands on (``stands_on``: the playmat or a piece's top).

What reads the board without the removed pieces: the Ranged Attack facts (Line of Sight, cover, 8.7.3) in the
simulation and in ``scenario check``, through a :class:`~mathhammer.scenario.world.World` built on the board
without them (:meth:`Worlds.world_for`, one per distinct mask, kept in the scenario World's memo so every
Simulation of it reuses them; mask 0 is the scenario's own World, so a board without Grass pays nothing). The
Simulation's other readers split their games the same way (:meth:`Grass.by_world`): a Charge (8.7.7: the unit's
Engaged test, its path and its end, which must Engage every target, 7.2.1; the other models' spots of step 4 read
no Grass: a base may end on it and the tiers are distances), a Close Ranks move (8.8.1 step 1: the unit's Engagement
before and after, the spots), the Fighting Ranks of a Fight and of IMPACT (8.8.1 step 2, ``World.strikers``), and
the Line of Sight of an ability's selection (10.1, ``cards/selected.py``).

The derived Worlds and the memo (:mod:`mathhammer.scenario.memo`): a derived World has its own
:class:`~mathhammer.scenario.memo.Memo` (:meth:`Memo.derive <mathhammer.scenario.memo.Memo.derive>`) whose
``variant`` is the mask, so every terrain answer (facts, Engagement, Line of Sight, levels, Charge paths, Close
Ranks, placements) is its own table, and an answer shared with the other forked workers is keyed by the mask as
well as by the question's content. Only the tables about placements themselves (:data:`PLACEMENT_TABLES`: ids,
content digests, radii, models, centres) and the placement list are shared, so a placement id means the same
placement in every World of the scenario.

Engagement (7.2.1: Grass is Size 2 terrain while it stands, "Models cannot Engage through it"): the simulation's
Engaged pairs of a game with pieces removed are read again on its World (:meth:`Grass.engaged`, per board id and
mask), so every reader of ``engaged_with`` / ``engaged_mask`` (Close Ranks' choice of foes, Fight, Disengage) sees
them. Mission Marker contest (8.9.1, Line of Sight to the marker) is read per mask (:meth:`Grass.contest_parts`).
``scenario check`` reads every activation on the World of the pieces its plan removed so far (:class:`Tracker`).

Reading of a Charge that crosses Grass: the pieces removed before the Charge are gone for it; a piece its own path
crosses is removed once the unit is set (:meth:`Grass.end`), so it still stands for that Charge's end (the
Engagement of its end is read with it). ``scenario check`` reads the same things on :class:`Tracker`'s World (a
Charge, a Fight's Engagement; it judges neither a Close Ranks move nor an ability's Line of Sight at all).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cached_property, partial
from typing import TYPE_CHECKING, Protocol

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from ..board.model import MM_PER_INCH, Board
from ..errors import InputError
from .fastcontrol import UNREAD
from .world import World, _edge_point

if TYPE_CHECKING:
    from .spec import Activation

#: Grass pieces one board may hold (bits of an int64 mask)
MAX_PIECES = 62
#: the memo tables (:class:`~mathhammer.scenario.memo.Memo`) about placements only, not terrain: shared by the Worlds
#: of one scenario (one placement id, one placement, in all of them); every other table is each World's own
PLACEMENT_TABLES = frozenset({"pid", "contents", "radii", "models", "centre_arrays", "centre_boxes"})
#: World attributes shared as they are (the placements, their packed centres, the scenario's own data)
_SHARED = frozenset(
    {"scn", "casualties", "uids", "index", "mobility", "placements", "_packed", "_foes", "_last_bases", "_last_occ"}
)


def grass_pieces(world: World) -> list[int]:
    """Indices in ``world.board.terrain`` of the Grass pieces (bit i of a mask: the i-th of them)."""
    found = [i for i, t in enumerate(world.board.terrain) if t.grass]
    if len(found) > MAX_PIECES:
        raise InputError("board.terrain", len(found), f"at most {MAX_PIECES} GRASS pieces on one board")
    return found


def _derive(base: World, mask: int, pieces: list[int]) -> World:
    """``base`` without the Grass pieces of ``mask``: its own memo for every terrain answer (keyed apart by the mask
    where answers are shared between workers), the placements shared."""
    gone = {pieces[i] for i in range(len(pieces)) if mask >> i & 1}
    w = World.__new__(World)
    memo = base.memo.derive(("grass", mask), PLACEMENT_TABLES)
    tables = {id(t): name for name, t in base.memo.tables.items()}
    for name, value in base.__dict__.items():
        if isinstance(getattr(World, name, None), cached_property):
            continue  # read again on this board (surfaces, edges, ...)
        if name in _SHARED:
            setattr(w, name, value)
        elif id(value) in tables:
            setattr(w, name, memo.table(tables[id(value)]))
        elif name == "memo":
            w.memo = memo
        elif name == "board":
            terrain = tuple(t for i, t in enumerate(base.board.terrain) if i not in gone)
            w.board = Board.trusted(base.board.width, base.board.depth, terrain, base.board.units)
        else:  # an attribute this module does not know: refuse rather than share a terrain answer by mistake
            raise TypeError(f"grass: World attribute {name!r} is neither a memo table nor known to be shared")
    return w


class Worlds:
    """The Worlds of one scenario per removed-Grass mask (mask 0: ``base`` itself), made on first need."""

    def __init__(self, base: World) -> None:
        self.base = base
        self.pieces = grass_pieces(base)
        # kept in the base World's memo: every Simulation of the World (a pilot, forked workers) reuses them
        self._by_mask: dict[int, World] = base.memo.table("grass:worlds")
        self._by_mask[0] = base
        self._hits: dict[tuple[object, ...], int] = base.memo.table("grass:removed")

    def world_for(self, mask: int) -> World:
        w = self._by_mask.get(mask)
        if w is None:
            w = self._by_mask[mask] = _derive(self.base, mask, self.pieces)
        elif w.memo.shared is not self.base.memo.shared:  # shared with workers after it was made (parallel.play)
            w.memo.shared = self.base.memo.shared
        return w

    def removed_by(self, old: int, new: int, alive: int, edge: str | None, path: bool) -> int:
        """The Grass bits a unit set at placement ``new`` (its first ``alive`` models) removes, coming from placement
        ``old`` (-1: a Deploy from the table edge ``edge``; None edge: no path); ``path``: its Leading Model's path
        counts (not Flying, not Close Ranks)."""
        key = (old, new, alive, edge, path)
        hit = self._hits.get(key)
        if hit is None:
            hit = self._hits[key] = self._removed_by(old, new, alive, edge, path)
        return hit

    def _removed_by(self, old: int, new: int, alive: int, edge: str | None, path: bool) -> int:
        w = self.base
        to = w.placements[new]
        su = w.scn.units[to.unit]
        r = su.base_mm / MM_PER_INCH / 2
        lead = to.centres[0]
        seg: LineString | None = None
        levels = {to.level}
        if path and old >= 0:
            start = w.placements[old]
            levels.add(start.level)
            if start.centres[0] != lead:
                seg = LineString([start.centres[0], lead])
        elif path and edge is not None:
            seg = LineString([_edge_point(edge, lead[0], lead[1], w.board.width, w.board.depth), lead])
        bits = 0
        ends = [Point(c) for c in to.centres[:alive]]
        for i, ti in enumerate(self.pieces):
            piece = w.board.terrain[ti]
            if piece.stands_on not in levels:
                continue
            poly = piece.polygon
            on_it = piece.stands_on == to.level and any(shapely.distance(poly, p) < r - 1e-9 for p in ends)
            if on_it or (seg is not None and shapely.distance(poly, seg) < r - 1e-9):
                bits |= 1 << i
        return bits


class _Owner(Protocol):
    """What :class:`Grass` reads of its Simulation: the World (which a caller may replace) and the number of games."""

    world: World
    T: int
    contest_firsts: np.ndarray


class Grass:
    """A Simulation's Grass: per game, the pieces removed (:attr:`gone`), and the World each game reads."""

    def __init__(self, owner: _Owner) -> None:
        self.owner = owner
        self.worlds = Worlds(owner.world)
        self.on = bool(self.worlds.pieces)  # a board without Grass: every call below returns at once
        self.gone = np.zeros(owner.T if self.on else 0, dtype=np.int64)
        self._words: dict[tuple[int, int], np.ndarray] = {}  # engaged(): (board id, mask) -> its Engaged pairs
        self._firsts: dict[int, np.ndarray] = {}  # contest_parts(): per mask, its table of first contesting models

    def _worlds(self) -> Worlds:
        """:attr:`worlds` of the owner's World (a caller may replace a Simulation's World; the bits name pieces, not
        placements, so they stay valid)."""
        if self.owner.world is not self.worlds.base:
            self.worlds = Worlds(self.owner.world)
        return self.worlds

    def world_for(self, mask: int) -> World:
        """The World without the pieces of removed-Grass mask ``mask`` (0: the owner's own)."""
        return self._worlds().world_for(mask)

    def start(self, pos: np.ndarray, u: int, games: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Before a movement action of unit ``u`` in ``games`` (``pos``: the Simulation's placement rows)."""
        if not self.on or games.size == 0:
            return None
        return games, pos[u, games].copy()

    def end(
        self,
        pos: np.ndarray,
        alive: np.ndarray,
        u: int,
        before: tuple[np.ndarray, np.ndarray] | None,
        act: Activation | None,
        flying: bool,
    ) -> None:
        """After it: the pieces removed in the games where the unit was set (``act`` None: Close Ranks, ends only;
        a Deploy enters by the plan's ``edge`` or its player's Entry Edge, 8.5.5)."""
        if before is None:
            return
        games, old = before
        new = pos[u, games]
        moved = (new >= 0) & (new != old)
        if not moved.any():
            return
        games, old, new, k = games[moved], old[moved], new[moved], alive[u, games[moved]]
        path = act is not None and not flying
        edge = None
        if act is not None and act.action == "deploy" and act.via is None:  # via: through another unit's base
            edge = act.edge or self.worlds.base.edges[act.player]
        keys = np.stack([old, new, k])
        uniq, inv = np.unique(keys, axis=1, return_inverse=True)
        bits = np.array(
            [self._worlds().removed_by(int(o), int(n), int(a), edge, path) for o, n, a in uniq.T.tolist()],
            dtype=np.int64,
        )
        self.gone[games] |= bits[inv.reshape(-1)]

    def split(
        self, games: np.ndarray, groups: Iterable[tuple[tuple[int, ...], np.ndarray]]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray, World]]:
        """Each group (its key, indices into ``games``) split by the removed Grass, with the World to read it on
        (the owner's where none is removed)."""
        worlds = self._worlds()
        for key, idx in groups:
            if not self.on:
                yield key, idx, worlds.base
                continue
            masks = self.gone[games[idx]]
            for m in np.unique(masks).tolist():
                yield key, idx[masks == m], self.worlds.world_for(int(m))

    def by_world(self, games: np.ndarray) -> Iterator[tuple[np.ndarray | None, World]]:
        """``games`` split by the Grass removed in them: per removed-Grass mask, the indices into ``games`` of its
        games (None: all of them, the common case of a board without Grass or a phase before any is removed) and
        the World to read them on (the owner's where none is removed)."""
        worlds = self._worlds()
        if not self.on or games.size == 0:
            yield None, worlds.base
            return
        masks = self.gone[games]
        if not masks.any():
            yield None, worlds.base
            return
        for m in np.unique(masks).tolist():
            yield np.flatnonzero(masks == m), worlds.world_for(int(m))

    def engaged(
        self,
        bits: np.ndarray,
        games: np.ndarray,
        boards: np.ndarray,
        words: Callable[[int, World], list[int]],
    ) -> np.ndarray:
        """The Engaged pairs (``bits``: a column per game of ``games``, read on the scenario's board) read again on
        the board without the removed Grass in the games where some is removed (7.2.1: Size 2+ terrain between two
        models keeps them from Engaging, and Grass is Size 2 while it stands): ``words(board id, World)`` reads a
        board's columns on a World; kept per board id and mask (``boards``: each game's board id)."""
        masks = self.gone[games]
        sel = np.flatnonzero(masks)
        if sel.size == 0:
            return bits
        bits = bits.copy()
        keys = np.stack([boards[games[sel]], masks[sel]])
        uniq, inv = np.unique(keys, axis=1, return_inverse=True)
        inv = inv.reshape(-1)
        for j, (bid, m) in enumerate(uniq.T.tolist()):
            col = self._words.get((bid, m))
            if col is None:
                col = self._words[(bid, m)] = np.asarray(words(bid, self._worlds().world_for(m)), dtype=np.int64)
            bits[:, sel[inv == j]] = col[:, None]
        return bits

    def contest_parts(
        self, games: np.ndarray, firsts: np.ndarray
    ) -> Iterator[tuple[World, np.ndarray, np.ndarray, Callable[[np.ndarray], None]]]:
        """Mission Marker contest (8.9.1: Line of Sight to the marker) per removed-Grass mask: the World, its games
        of ``games``, its table of first contesting models (``firsts``: the owner's, for the scenario's own World)
        and where to keep that table once grown (``owner.contest_firsts`` for mask 0)."""
        owner = self.owner
        masks = self.gone[games] if self.on else None
        if masks is None or not masks.any():
            yield self._worlds().base, games, firsts, partial(setattr, owner, "contest_firsts")
            return
        for m in np.unique(masks).tolist():
            part = games[masks == m]
            if m == 0:
                yield self._worlds().base, part, owner.contest_firsts, partial(setattr, owner, "contest_firsts")
            else:
                table = self._firsts.get(m)
                if table is None:
                    table = np.full((0, firsts.shape[1]), UNREAD, dtype=np.int64)
                yield self._worlds().world_for(m), part, table, partial(self._firsts.__setitem__, m)


class Tracker:
    """``scenario check``'s Grass: the plan walked at full strength, one mask (the pieces the plan removed)."""

    def __init__(self, world: World) -> None:
        self.worlds = Worlds(world)
        self.mask = 0
        self._seen: dict[str, int] = {}
        self._last: Activation | None = None

    def update(self, pos: dict[str, int], act: Activation) -> World:
        """Read the units set since the last call (by the activation then read: ``_last``); the World now."""
        if self.worlds.pieces:
            last = self._last
            w = self.worlds.base
            for uid, new in pos.items():
                old = self._seen.get(uid, -1)
                if new == old or new < 0:
                    continue
                su = w.scn.units[uid]
                moving = last is not None and last.unit == uid and last.action != "shoot"
                edge = None
                if old < 0 and last is not None and last.via is None:
                    edge = last.edge or w.edges[su.player]
                path = moving and not su.flying and last is not None and last.action != "fight"
                self.mask |= self.worlds.removed_by(old, new, su.models, edge, path)
            self._seen = dict(pos)
        self._last = act
        return self.worlds.world_for(self.mask)


__all__ = ["MAX_PIECES", "Grass", "Tracker", "Worlds", "grass_pieces"]
