"""Engagement (rulebook 7.2.1, part 11 ENGAGED, ENGAGEMENT RANGE, GROUND LEVEL, MID GROUND, HIGH GROUND).

Two enemy models are Engaged when all of these hold:

* both are Ground ("Ground models Engage only Ground models. Flying models cannot be Engaged
  by any model"; a model without the Flying tag is taken as Ground);
* they are Within 1" (ENGAGEMENT RANGE: "measured horizontally from a top-down perspective");
* terrain does not block: "Size 2+ terrain: Models cannot Engage through it. Even Within 1", a
  Size 2+ wall between them means they are not Engaged." A piece is *between* the models when
  every straight trace from one base to the other passes through Size 2+ pieces (the same exact
  trace search as Line of Sight, :mod:`mathhammer.board.trace`, read compiled by :mod:`.fastsight`);
  own Size counts, not Effective Size; GRASS is Size 2 so it counts too (the text has no GRASS
  exception for Engagement); the pieces either model stands on (and those under them) are never
  between them;
* elevation: "Models on HIGH GROUND cannot Engage models on GROUND LEVEL, and vice versa";
  "Models on MID GROUND can Engage models on HIGH GROUND or GROUND LEVEL only if both models are
  adjacent to the same ACCESS POINT connecting their respective elevations." Read as: an ACCESS
  POINT of a piece in the stack of the higher model (the piece reached through it), with both
  bases Within :data:`ADJACENT` (1") of it. Same elevation (also two different MID GROUND
  pieces, or two HIGH GROUND pieces) is not restricted.

"When any model in a Unit is Engaged, the entire Unit is considered Engaged."

>>> from mathhammer.board.model import Board, Model, Terrain, Unit
>>> wall = Terrain("wall", ((10, 0), (10.3, 0), (10.3, 30), (10, 30)), size=2)
>>> a, b, c = Model("a", 9.5, 5), Model("b", 10.8, 5), Model("c", 9.5, 10)
>>> units = (Unit("u1", "p1", (a,)), Unit("u2", "p2", (b,)), Unit("u3", "p2", (c,)))
>>> engaged(Board(44, 30, (), units), a, b), engaged(Board(44, 30, (wall,), units), a, b)
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .model import EPS, Board, Model

ENGAGEMENT_RANGE = 1.0
#: "adjacent" to an ACCESS POINT: base Within this many inches of it (the rulebook does not define it).
ADJACENT = 1.0


def _access_ok(board: Board, a: Model, b: Model) -> bool:
    ea, eb = board.elevation(a), board.elevation(b)
    if ea == eb:
        return True
    if {ea, eb} == {"high", "ground"}:
        return False
    higher = a if board.surface_height(a) > board.surface_height(b) else b
    for piece in board.stack(higher.stands_on):
        for geom in piece.access_geometry:
            if all(geom.distance(m.base) <= ADJACENT + EPS for m in (a, b)):
                return True
    return False


def engaged(board: Board, a: Model, b: Model, *, enemies_only: bool = True) -> bool:
    """Are models ``a`` and ``b`` Engaged with each other (7.2.1)?"""
    if a.id == b.id or a.flying or b.flying:
        return False
    if enemies_only and board.unit_of(a).side == board.unit_of(b).side:
        return False
    if a.distance(b) > ENGAGEMENT_RANGE + EPS:
        return False
    if not _access_ok(board, a, b):
        return False
    under = {p.id for p in board.stack(a.stands_on)} | {p.id for p in board.stack(b.stands_on)}
    walls = tuple(p for p in board.terrain if p.size >= 2 and p.id not in under)
    if not walls:
        return True
    # free_trace(...) is not None, compiled (fastsight: the same method on plain arrays; held to it in
    # tests/test_fastsight.py, and for Engagement in tests/test_engagement_compiled.py); imported here: numba only
    # where a wall is read
    from .fastsight import free_exists, rings

    xy, starts = rings(walls)
    return free_exists(a.centre, a.radius, b.centre, b.radius, xy, starts)


#: one base as :class:`EngagedPairs` keys it: centre x, y, base diameter (mm), the piece stood on
BaseKey = tuple[float, float, float, "str | None"]


class EngagedPairs:
    """:func:`engaged` of two Ground models of different sides, on boards of one terrain, kept per pair of bases.

    The answer reads only the two bases (centre, diameter, the piece stood on: its stack and ACCESS POINTs) and the
    terrain: never the models' ids, units or sides (once known to differ), nor the other models. So boards that
    differ in the other models ask the same question again; this keeps the answer (the wall trace is the costly
    part) by the two bases. ``terrain``: the pieces of every board it is asked about (:meth:`fits`).

    >>> from mathhammer.board.model import Board, Model, Terrain, Unit
    >>> wall = Terrain("wall", ((10, 0), (10.3, 0), (10.3, 30), (10, 30)), size=2)
    >>> pairs = EngagedPairs(Board(44, 30, (wall,)))
    >>> a, b, c = (9.5, 5, 25.0, None), (10.8, 5, 25.0, None), (9.5, 6, 25.0, None)
    >>> pairs.bases(a, b), pairs.bases(a, c)
    (False, True)
    """

    #: answers kept before the table starts again (far more than the distinct pairs of a scenario run)
    LIMIT = 1 << 16

    def __init__(self, board: Board) -> None:
        self.terrain = board.terrain
        self._board = Board.trusted(board.width, board.depth, board.terrain, ())
        self._hits: dict[tuple[BaseKey, BaseKey], bool] = {}

    def fits(self, board: Board) -> bool:
        """Is ``board``'s terrain the one the answers are for?"""
        return board.terrain is self.terrain or board.terrain == self.terrain

    def models(self, a: Model, b: Model) -> bool:
        """``engaged(board, a, b)`` for ``a`` and ``b`` of different sides on a board that :meth:`fits`."""
        if a.flying or b.flying:
            return False
        if max(0.0, math.dist((a.x, a.y), (b.x, b.y)) - a.radius - b.radius) > ENGAGEMENT_RANGE + EPS:
            return False  # as Model.distance (the same double): not Within 1"
        return self.bases((a.x, a.y, a.base_mm, a.stands_on), (b.x, b.y, b.base_mm, b.stands_on))

    def bases(self, a: BaseKey, b: BaseKey) -> bool:
        """:meth:`models` of two Ground models with these bases."""
        key = (a, b)
        hit = self._hits.get(key)
        if hit is None:
            if len(self._hits) >= self.LIMIT:
                self._hits.clear()
            ma = Model("a", a[0], a[1], a[2], stands_on=a[3])
            mb = Model("b", b[0], b[1], b[2], stands_on=b[3])
            hit = self._hits[key] = engaged(self._board, ma, mb, enemies_only=False)
        return hit


@dataclass(frozen=True)
class Engagement:
    """Engaged model pairs (each once, sorted ids) and the Engaged units."""

    pairs: tuple[tuple[str, str], ...]
    units: frozenset[str]

    def is_engaged(self, unit_id: str) -> bool:
        return unit_id in self.units


def engagement(board: Board) -> Engagement:
    """Every Engaged pair of enemy models on the board, and every Engaged unit."""
    models = list(board.models)
    pairs: list[tuple[str, str]] = []
    units: set[str] = set()
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            if engaged(board, a, b):
                x, y = sorted((a.id, b.id))
                pairs.append((x, y))
                units.add(board.unit_of(a).id)
                units.add(board.unit_of(b).id)
    return Engagement(tuple(sorted(pairs)), frozenset(units))
