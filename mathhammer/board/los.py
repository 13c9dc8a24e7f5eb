"""Line of Sight and Cover (rulebook 7.1, 7.1.1-7.1.4, part 11 LINE OF SIGHT, VISIBLE, HIDDEN).

Per pair of models (attacker, target):

1. HIDDEN (part 11): "A model with the HIDDEN keyword is not Visible to any model more than
   4" away, regardless of Line of Sight." One-way: the hidden model can still see out.
2. Elevation Dead Zone (7.1.1): "If a model on HIGH GROUND (Size 3+) draws Line of Sight to a
   model at GROUND LEVEL that is Within 1" of the base of the same terrain piece, Line of Sight
   is blocked. This applies in both directions". "The same terrain piece" is the piece the
   HIGH GROUND model stands on; with stacking, the bottom piece of its stack (the one with a
   base on the playmat). It does not depend on the trace.
3. Close Quarters (7.1.1): "If both models are Within 1" of the same terrain piece and Within 3"
   of each other, Direct Cover, Elevation Dead Zone do not apply." Read per piece: it switches
   off Direct Cover and the Dead Zone *of that piece*; Full Cover, and Direct Cover from another
   piece only one of them is near, still apply.
4. Each terrain piece is judged alone ("Terrain pieces do not combine their Effective Size or
   proximity"): for this pair it blocks a trace that passes through it when
   - Full Cover: "its Effective Size ... is equal to or greater than the Effective Size of both
     the attacker and the Target" (never with a Flying model, 7.1.4); or
   - Direct Cover: "either the attacker or the target is Within 1" of that terrain ... provided
     the terrain piece's Effective Size is equal to or greater than the Effective Size of the
     model that is Within 1"" (FAQ v1.0: Within 1" of any part of that same piece). A Flying
     model's Effective Size is above every piece, so it never gets Direct Cover itself, but the
     other model still can (7.1.4).
   Pieces either model stands on, and the pieces under them, never block: "The horizontal
   surface a model stands on does not obstruct the top-down trace" (7.1.2). Only pieces of own
   Size 1+ rise between the models (BLOCKING TERRAIN; Tokens are Size 0, 7.3.1). GRASS is an
   ordinary Size 2 piece here.
5. The target is Visible when *some* trace from any part of one base to any part of the other
   passes through none of the blocking pieces (see :mod:`mathhammer.board.trace` for the exact
   geometric search). Line of Sight is mutual, so the result for (a, b) equals (b, a) apart from
   HIDDEN.

>>> from mathhammer.board.model import Board, Model, Terrain, Unit
>>> wall = Terrain("wall", ((10, 0), (10.5, 0), (10.5, 30), (10, 30)), size=2)
>>> goliath = Model("goliath", 2, 15, base_mm=50, size=3)
>>> near, far = Model("near", 11.2, 15, size=2), Model("far", 14, 15, size=2)
>>> board = Board(44, 30, (wall,), (Unit("g", "terran", (goliath,)), Unit("m", "zerg", (near, far))))
>>> line_of_sight(board, goliath, near).rule, line_of_sight(board, goliath, far).visible
('direct-cover', True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .model import EPS, Board, Model, Terrain, Unit
from .trace import free_trace

Rule = Literal["visible", "hidden", "dead-zone", "full-cover", "direct-cover"]

HIDDEN_RANGE = 4.0
CLOSE_QUARTERS = 3.0
COVER_RANGE = 1.0


@dataclass(frozen=True)
class Block:
    """One terrain piece that blocks traces for a pair, and the rule it blocks under."""

    piece: str
    rule: Rule


@dataclass(frozen=True)
class Sight:
    """The Line of Sight from ``attacker`` to ``target``.

    Attributes:
        visible: the target is Visible to the attacker.
        rule: "visible", or the rule that hid it: "hidden", "dead-zone", "full-cover" or
            "direct-cover" (for a trace-blocked pair: Full Cover if any blocking piece in the
            way gives it, else Direct Cover).
        blocks: the pieces that block traces between the two bases (and, for "dead-zone",
            the piece whose foot is the Dead Zone), with their rule.
        trace: an unblocked trace (two points, inches) when visible by the trace, else None.
    """

    attacker: str
    target: str
    visible: bool
    rule: Rule
    blocks: tuple[Block, ...] = ()
    trace: tuple[tuple[float, float], tuple[float, float]] | None = None


def _close_quarters(board: Board, a: Model, b: Model, piece: Terrain) -> bool:
    return (
        a.distance(b) <= CLOSE_QUARTERS + EPS
        and board.within_terrain(a, piece, COVER_RANGE)
        and board.within_terrain(b, piece, COVER_RANGE)
    )


def _dead_zone(board: Board, a: Model, b: Model) -> Terrain | None:
    """The piece whose foot hides one model from the other (7.1.1 Elevation Dead Zone), if any."""
    if a.stands_on is None and b.stands_on is None:
        return None  # both at GROUND LEVEL: neither is on HIGH GROUND
    for high, low in ((a, b), (b, a)):
        if board.elevation(high) != "high" or board.elevation(low) != "ground":
            continue
        foot = board.ground_piece(high)
        if foot is None or not board.within_terrain(low, foot, COVER_RANGE):
            continue
        if _close_quarters(board, a, b, foot):
            continue
        return foot
    return None


def piece_blocks(board: Board, a: Model, b: Model, piece: Terrain) -> Rule | None:
    """The rule under which ``piece`` blocks a trace between ``a`` and ``b`` that passes through it, or None."""
    return next((rule for _, rule in blocking(board, a, b, (piece,))), None)


def blocking(board: Board, a: Model, b: Model, pieces: Iterable[Terrain] | None = None) -> list[tuple[Terrain, Rule]]:
    """The pieces of ``pieces`` (the board's terrain by default) that block a trace between ``a`` and ``b`` passing
    through them, each with its rule (:func:`piece_blocks`, the pair's surfaces, Effective Sizes and distances read
    once)."""
    sized = (
        board.sight_pieces()
        if pieces is None
        else [(p, board.terrain_effective_size(p)) for p in pieces if p.blocks_sight]
    )
    if not sized:
        return []
    under = {p.id for p in board.stack(a.stands_on)} | {p.id for p in board.stack(b.stands_on)}
    ea, eb = board.effective_size(a), board.effective_size(b)
    flying = a.flying or b.flying
    close = a.distance(b) <= CLOSE_QUARTERS + EPS
    out: list[tuple[Terrain, Rule]] = []
    for piece, size in sized:
        if under and piece.id in under:
            continue
        if not flying and size >= ea and size >= eb:
            out.append((piece, "full-cover"))
            continue
        wa = wb = None  # Within 1" of the piece, read at most once each
        if close:  # Close Quarters (7.1.1): both Within 1" of the piece, Within 3" of each other
            wa = board.within_terrain(a, piece, COVER_RANGE)
            wb = board.within_terrain(b, piece, COVER_RANGE) if wa else None
            if wb:
                continue
        by_a = size >= ea and (wa if wa is not None else board.within_terrain(a, piece, COVER_RANGE))
        if by_a or (size >= eb and (wb if wb is not None else board.within_terrain(b, piece, COVER_RANGE))):
            out.append((piece, "direct-cover"))
    return out


#: Sight depends only on the terrain and the two models (and the target unit's HIDDEN status), so
#: boards that share their terrain share traces: a scenario reads many boards of the same table.
_SIGHTS: dict[tuple[object, ...], Sight] = {}
_SIGHTS_MAX = 1 << 13


def line_of_sight(board: Board, attacker: Model, target: Model) -> Sight:
    """Can ``attacker`` see ``target``? See the module text for the rules applied."""
    key = (board.terrain, attacker, target, board.unit_of(target).hidden)
    sight = _SIGHTS.get(key)
    if sight is None:
        if len(_SIGHTS) >= _SIGHTS_MAX:
            _SIGHTS.clear()
        sight = _SIGHTS[key] = _trace_sight(board, attacker, target)
    return sight


def untraced(board: Board, attacker: Model, target: Model) -> Sight | None:
    """The Sight decided without a trace (a model and itself, HIDDEN beyond 4", the Elevation Dead Zone), or None."""
    if attacker.id == target.id:
        return Sight(attacker.id, target.id, True, "visible", trace=(attacker.centre, target.centre))
    if board.unit_of(target).hidden and attacker.distance(target) > HIDDEN_RANGE + EPS:
        return Sight(attacker.id, target.id, False, "hidden")
    foot = _dead_zone(board, attacker, target)
    if foot is not None:
        return Sight(attacker.id, target.id, False, "dead-zone", (Block(foot.id, "dead-zone"),))
    return None


def _trace_sight(board: Board, attacker: Model, target: Model) -> Sight:
    decided = untraced(board, attacker, target)
    if decided is not None:
        return decided
    blocks = [Block(piece.id, rule) for piece, rule in blocking(board, attacker, target)]
    pieces = board.pieces
    trace = free_trace(
        attacker.centre,
        attacker.radius,
        target.centre,
        target.radius,
        [pieces[b.piece].polygon for b in blocks],
    )
    if trace is not None:
        return Sight(attacker.id, target.id, True, "visible", trace=trace)
    hull = attacker.base.union(target.base).convex_hull
    in_way = tuple(b for b in blocks if pieces[b.piece].polygon.intersects(hull))
    rule: Rule = "full-cover" if any(b.rule == "full-cover" for b in in_way) else "direct-cover"
    return Sight(attacker.id, target.id, False, rule, in_way)


@dataclass(frozen=True)
class Visibility:
    """Line of Sight from every attacking model (rows) to every target model (columns)."""

    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    sights: dict[tuple[str, str], Sight]

    def visible(self, attacker: str, target: str) -> bool:
        return self.sights[(attacker, target)].visible

    def matrix(self) -> np.ndarray:
        """Booleans, shape (attackers, targets)."""
        return np.array([[self.sights[(a, t)].visible for t in self.targets] for a in self.attackers], dtype=bool)

    def visible_models(self, attacker: str) -> tuple[str, ...]:
        """The target models ``attacker`` sees."""
        return tuple(t for t in self.targets if self.sights[(attacker, t)].visible)

    def seen_by_any(self) -> tuple[str, ...]:
        """The target models Visible to at least one attacking model (8.7.3 target eligibility, casualties)."""
        return tuple(t for t in self.targets if any(self.sights[(a, t)].visible for a in self.attackers))


def _models(board: Board, who: str | Unit | Iterable[Model] | None, exclude_side: str | None = None) -> list[Model]:
    if who is None:
        return [m for u in board.units if u.side != exclude_side for m in u.models]
    if isinstance(who, Unit):
        return list(who.models)
    if isinstance(who, str):
        units = [u for u in board.units if who in (u.id, u.side)]
        if not units:
            board.unit(who)  # raises InputError naming the ids
        return [m for u in units for m in u.models]
    return list(who)


def visibility(
    board: Board, attackers: str | Unit | Iterable[Model], targets: str | Unit | Iterable[Model] | None = None
) -> Visibility:
    """The visibility matrix between every attacking and every target model.

    ``attackers`` and ``targets`` are a unit id, a side, a :class:`Unit` or models;
    ``targets=None`` means every model of the other sides.
    """
    att = _models(board, attackers)
    sides = {board.unit_of(m).side for m in att}
    tgt = _models(board, targets, exclude_side=next(iter(sides)) if len(sides) == 1 else None)
    sights = {(a.id, t.id): line_of_sight(board, a, t) for a in att for t in tgt}
    return Visibility(tuple(m.id for m in att), tuple(m.id for m in tgt), sights)


__all__ = ["Block", "Sight", "Visibility", "blocking", "line_of_sight", "piece_blocks", "visibility"]
