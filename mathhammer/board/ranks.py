"""Fighting Rank and Supporting Rank (rulebook 8.8.1 step 2, part 11 FIGHTING RANK, SUPPORTING RANK).

8.8.1 step 2: "Fighting Rank: Within the Engagement Range (1") of an Enemy model. Supporting
Rank: In Base-to-Base contact with a Friendly model from the same Unit that is in the Fighting
Rank." Part 11 SUPPORTING RANK adds: "but is not itself Within the Engagement Range of an Enemy
model".

Readings:

* Fighting Rank uses :func:`~mathhammer.board.engagement.engaged` (the model is Engaged with an
  Enemy model: Within 1", both Ground, no Size 2+ wall between them, elevation rules). A model
  Within 1" of an Enemy model it cannot Engage (a wall between, a Flying enemy) is not in the
  Fighting Rank: 8.8.1 is "An Engaged Ground Unit attacks Enemy Units it is Engaged with" and
  "A Flying Unit cannot participate in the Combat Phase".
* Base-to-Base contact: bases touching, edge gap at most :data:`CONTACT` inches (0.05").
* Supporting Rank excludes, as the glossary says, a model Within 1" of an Enemy Ground model even
  when it is not Engaged with it (e.g. across a Size 2+ wall): such a model is in neither rank.
  (Flying enemies are ignored here: they are never Engaged and take no part in the Combat Phase.)
* Supporting Rank is one step (contact with a Fighting Rank model); a model touching only a
  Supporting Rank model is in neither rank.

>>> from mathhammer.board.model import Board, Model, Unit
>>> a, b = Model("a", 5, 5, base_mm=25.4), Model("b", 6, 5, base_mm=25.4)
>>> e = Model("e", 3.5, 5, base_mm=25.4)
>>> board = Board(44, 30, units=(Unit("u", "p1", (a, b)), Unit("v", "p2", (e,))))
>>> fighting_ranks(board, "u").rank
{'a': 'fighting', 'b': 'supporting'}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .engagement import ENGAGEMENT_RANGE, EngagedPairs, engaged
from .model import EPS, Board, Model

#: Base-to-Base contact: the bases' edges at most this many inches apart.
CONTACT = 0.05

Rank = Literal["fighting", "supporting", "none"]


@dataclass(frozen=True)
class Ranks:
    """Per model of the unit: its rank, and for Fighting Rank models the Enemy models it is Engaged with.

    Attributes:
        unit: the unit id.
        rank: model id -> "fighting", "supporting" or "none" (in the unit's model order).
        engaged_with: model id -> the ids of the Enemy models it is Engaged with (Fighting Rank models only).
        supports: model id -> the ids of the Fighting Rank models it touches (Supporting Rank models only).
    """

    unit: str
    rank: dict[str, Rank]
    engaged_with: dict[str, tuple[str, ...]]
    supports: dict[str, tuple[str, ...]]

    @property
    def fighting(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.rank.items() if v == "fighting")

    @property
    def supporting(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.rank.items() if v == "supporting")

    @property
    def attackers(self) -> tuple[str, ...]:
        """Models that may strike (8.8.1 step 2: Fighting Rank and Supporting Rank)."""
        return tuple(k for k, v in self.rank.items() if v != "none")


def fighting_ranks(board: Board, unit_id: str, pairs: EngagedPairs | None = None) -> Ranks:
    """The Fighting Rank and Supporting Rank of every model of the unit (8.8.1 step 2).

    ``pairs``: :func:`engaged` answers kept for the board's terrain (:class:`EngagedPairs`), asked instead of
    tracing again (:func:`ranks_of`).
    """
    unit = board.unit(unit_id)
    enemies = [m for m in board.models if board.unit_of(m).side != unit.side]
    if pairs is not None and pairs.fits(board):
        return ranks_of(unit.id, unit.models, enemies, pairs.models)
    return ranks_of(unit.id, unit.models, enemies, lambda m, e: engaged(board, m, e))


def ranks_of(
    unit_id: str, models: Sequence[Model], enemies: Sequence[Model], is_engaged: Callable[[Model, Model], bool]
) -> Ranks:
    """:func:`fighting_ranks` of a unit with ``models`` among the Enemy models ``enemies`` (every other model of the
    board is of its own side), ``is_engaged(model, enemy)``: :func:`engaged` on the board.

    The Engagement Range is tested first, on the gaps of every model and enemy model computed as
    :meth:`Model.distance` does (the same doubles): ``is_engaged`` is asked only of pairs Within 1".
    """
    engaged_with, supports = _ranked(models, enemies, is_engaged, True)
    rank: dict[str, Rank] = {
        m.id: "fighting" if m.id in engaged_with else "supporting" if m.id in supports else "none" for m in models
    }
    return Ranks(unit_id, rank, engaged_with, supports)


def striker_count(models: Sequence[Model], enemies: Sequence[Model], is_engaged: Callable[[Model, Model], bool]) -> int:
    """``len(ranks_of(unit_id, models, enemies, is_engaged).attackers)``: the models in the Fighting or Supporting
    Rank (8.8.1 step 2), with :func:`ranks_of`'s tests in its order, counted without naming whom they engage or
    touch (each model's tests stop at the first that places it)."""
    engaged_with, supports = _ranked(models, enemies, is_engaged, False)
    return len(engaged_with) + len(supports)


def _ranked(
    models: Sequence[Model], enemies: Sequence[Model], is_engaged: Callable[[Model, Model], bool], every: bool
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The Fighting Rank (model id -> the Enemy models it is Engaged with) and the Supporting Rank (model id -> the
    Fighting Rank models it touches) of :func:`ranks_of`; with ``every`` False each tuple holds the first found only
    (a count needs no more)."""
    foes = [(e, (e.x, e.y), e.radius) for e in enemies]
    within = ENGAGEMENT_RANGE + EPS
    dist = math.dist
    near: list[list[Model]] = []  # per model: the enemy models Within 1" (Model.distance <= 1" + EPS)
    for m in models:
        c, r = (m.x, m.y), m.radius
        near.append([e for e, ec, er in foes if max(0.0, dist(c, ec) - r - er) <= within])
    engaged_with: dict[str, tuple[str, ...]] = {}
    if not any(m.flying for m in models):  # Unit.flying
        for m, close in zip(models, near, strict=True):
            if every:
                hits = tuple(e.id for e in close if is_engaged(m, e))
            else:
                hits = next(((e.id,) for e in close if is_engaged(m, e)), ())
            if hits:
                engaged_with[m.id] = hits
    supports: dict[str, tuple[str, ...]] = {}
    if not engaged_with:
        return engaged_with, supports
    fighting = [f for f in models if f.id in engaged_with]
    for m, close in zip(models, near, strict=True):
        if m.id in engaged_with or any(not e.flying for e in close):
            continue
        if every:
            touching = tuple(f.id for f in fighting if m.distance(f) <= CONTACT)
        else:
            touching = next(((f.id,) for f in fighting if m.distance(f) <= CONTACT), ())
        if touching:
            supports[m.id] = touching
    return engaged_with, supports
