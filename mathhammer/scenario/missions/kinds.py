"""The scoring kinds of the Mission Cards (``profiles/missions.toml``), one class each, quoting the card.

Readings (from the former ``mission.py``):

* "VPs equal to Enemy Supply destroyed this Round": the drop of each enemy unit's Current Supply Value since the
  start of the Round (or since it was deployed), FAQ v1.0: "Morph and any other drop in Current Supply Value scores
  Victory Points for the opponent".
* "Controlled Mission Marker ... associated with your colour": the players are red and blue, the colours of
  Markers 1 & 3 (Red) and 2 & 4 (Blue); Marker 5 is Neutral (7.3.2).
* Only Activated markers score (Supply Drop: "For each activated Controlled Mission Marker"); a scored Supply Drop
  marker is removed ("and remove it"): no longer controlled.
* Gather the Resources, GATHER ACTION: an Unengaged unit Within 3" of a marker its player Controls that is Neutral
  or of the Opponent's colour: 1 VP. "Within 3"" only (glossary WITHIN: any part of a base): the card asks neither
  the Line of Sight nor the same elevation that contesting asks (8.9.1).
* Divide and Conquer: "If a Unit controls a Mission Marker" is read as: the unit contests a marker its player
  Controls after this Scoring Phase's control step.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from ...board.model import EPS
from .registry import Play, Points, ScoringKind, register

VP = Field(ge=0, le=99)
ROUND = Field(ge=1, le=10)
MARKER = Field(ge=1, le=5)


@register("enemy-supply-destroyed")
class EnemySupplyDestroyed(ScoringKind):
    """Every Mission Card: "Score VPs equal to Enemy Supply destroyed this Round." (read before control, which may
    change the Supply Values: Commander ...)."""

    def before_control(self, play: Play) -> None:
        play.sim.vp += play.destroyed_supply()  # 0 in the games not live: one pass over both rows, not a gather


class HoldPositionPoints(Points):
    own: int = VP  # "Neutral or associated with your colour"
    opponent: int = VP  # "associated with the Opponent colour"


@register("hold-position")
class HoldPosition(ScoringKind):
    """Hold Position: "Gain 1 VP for each Controlled Mission Marker that is Neutral or associated with your colour.
    Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour." (``own``, ``opponent``)"""

    Points = HoldPositionPoints
    points: HoldPositionPoints

    def score(self, play: Play) -> None:
        own, opponent = self.points.own, self.points.opponent
        play.score_held(
            [[opponent if play.colour(m) == ("red", "blue")[1 - p] else own for p in (0, 1)] for m in range(play.sim.M)]
        )


class FrontlinesPoints(Points):
    marker: int = VP  # "for each Controlled Mission Marker"
    gained: int = VP  # "an additional ... if you gained Control of it from the Opponent this Round"


@register("frontlines")
class Frontlines(ScoringKind):
    """Frontlines: "Gain 1 VP for each Controlled Mission Marker. Gain an additional 2 VPs for a Marker if you gained
    Control of it from the Opponent this Round." (``marker``, ``gained``)"""

    Points = FrontlinesPoints
    points: FrontlinesPoints

    def score(self, play: Play) -> None:
        markers = range(play.sim.M)
        play.score_held([[self.points.marker] * 2 for _ in markers], [[self.points.gained] * 2 for _ in markers])


class GatherPoints(Points):
    opponent: int = VP  # "for each Controlled Mission Marker associated with the Opponent colour"
    gather_action: int = VP  # "GATHER ACTION: Gain 1 VP"
    gather_range: float = Field(gt=0, le=36)  # "Within 3""


@register("gather-the-resources")
class GatherTheResources(ScoringKind):
    """Gather the Resources: "Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour."
    ASSAULT PHASE: "If an Unengaged Unit is Within 3" of a Controlled Neutral Mission Marker or associated with the
    Opponent, this unit may perform the Gather Action instead of a standard action. GATHER ACTION: Gain 1 VP."
    (``opponent``, ``gather_action``, ``gather_range``)"""

    Points = GatherPoints
    points: GatherPoints
    gather_action = True

    def score(self, play: Play) -> None:
        opponent = self.points.opponent
        play.score_held(
            [[opponent if play.colour(m) == ("red", "blue")[1 - p] else 0 for p in (0, 1)] for m in range(play.sim.M)]
        )

    def gather(self, play: Play, u: int, trials: np.ndarray) -> None:
        sim = play.sim
        p = play.player(u)
        other = ("red", "blue")[1 - p]
        free = trials[~sim.engaged_mask(trials, u)]
        earned = np.zeros(sim.T, dtype=bool)
        reach = self.points.gather_range + EPS
        for group, gaps in play.marker_gaps(u, free):
            for m, gap in enumerate(gaps):
                if play.colour(m) in ("neutral", other) and gap <= reach:
                    earned[group[(sim.control[m, group] == p) & sim.active[m, group]]] = True
        sim.vp[p, earned] += self.points.gather_action


class DivideAndConquerPoints(Points):
    quarter: int = VP  # "Gain 1 VP for each quarter where your Total Current Supply is higher"
    controller_supply: int = Field(ge=0, le=99)  # "that Unit is worth 1 extra Supply for controlling quarters"
    marker: int = MARKER  # "Controlling Mission Marker 5"
    marker_vp: int = VP  # "Gain 2 VP for Controlling Mission Marker 5"


@register("divide-and-conquer")
class DivideAndConquer(ScoringKind):
    """Divide and Conquer: "Calculate Total Current Supply in each battlefield quarter. Gain 1 VP for each quarter
    where your Total Current Supply is higher than the Opponent's. Only Units Wholly Within a quarter contribute
    their Supply to this check. If a Unit controls a Mission Marker, that Unit is worth 1 extra Supply for
    controlling quarters. Gain 2 VP for Controlling Mission Marker 5." (``quarter``, ``controller_supply``,
    ``marker``, ``marker_vp``)"""

    Points = DivideAndConquerPoints
    points: DivideAndConquerPoints

    def score(self, play: Play) -> None:
        sim = play.sim
        for m, p, mine in play.holders():
            if sim.marker_numbers[m] == self.points.marker:
                sim.vp[p, mine] += self.points.marker_vp
        supply = play.objective_supply()  # "completing objectives": Commander ...
        totals = np.zeros((2, 4, sim.T), dtype=np.int64)
        for u in range(sim.U):
            p = play.player(u)
            controls = np.zeros(sim.T, dtype=bool)
            for m in range(sim.M):
                controls |= play.table[u, m] & (sim.control[m] == p)
            for q, group in play.quarter_groups(u):
                totals[p, q, group] += supply[u, group] + self.points.controller_supply * controls[group]
        for p in (0, 1):
            wins = (totals[p] > totals[1 - p]).sum(axis=0)
            sim.vp[p, play.live] += self.points.quarter * wins[play.live]


class SupplyDropPoints(Points):
    activation_rounds: list[Annotated[int, ROUND]] = Field(max_length=10)  # "START OF THE ROUND (1-4)"
    activation_markers: list[Annotated[int, MARKER]] = Field(min_length=1, max_length=5)  # "Marker (1-4)"
    auto_round: int | None = Field(default=None, ge=1, le=10)  # "START OF THE ROUND 5"
    auto_marker: int | None = Field(default=None, ge=1, le=5)  # "Mission Marker 5 is automatically Activated"

    @model_validator(mode="after")
    def _both(self) -> SupplyDropPoints:
        if (self.auto_round is None) != (self.auto_marker is None):
            raise ValueError("auto_round and auto_marker both, or neither")
        return self


@register("supply-drop")
class SupplyDrop(ScoringKind):
    """Supply Drop: "START OF THE ROUND (1-4): Randomly determine one Deactivated Mission Marker (1-4) and flip it
    to its Activated side. START OF THE ROUND 5: Mission Marker 5 is automatically Activated." (Skirmish: "START OF
    THE ROUND (2-4): ... (1,2,5)".) "For each activated Controlled Mission Marker, gain VPs equal to the Game Round
    number in which that Mission Marker was Activated and remove it." (``activation_rounds``,
    ``activation_markers``, ``auto_round``, ``auto_marker``; the VP are the Round number, no card number)"""

    Points = SupplyDropPoints
    points: SupplyDropPoints

    def start_of_round(self, play: Play) -> None:
        sim, live, rnd = play.sim, play.live, play.round
        if live.size == 0:
            return
        idx = [i for i, n in enumerate(sim.marker_numbers) if n in self.points.activation_markers]
        if rnd in self.points.activation_rounds and idx:
            u = play.draw(7)
            dormant = np.stack([~sim.active[i, live] & ~sim.removed_marker[i, live] for i in idx])
            count = dormant.sum(axis=0)
            choice = (u * np.maximum(count, 1)).astype(np.int64)
            rank = np.cumsum(dormant, axis=0) - 1
            for j, i in enumerate(idx):
                hit = dormant[j] & (rank[j] == choice) & (count > 0)
                sim.active[i, live[hit]] = True
                sim.activated_round[i, live[hit]] = rnd
        if rnd == self.points.auto_round:
            for i, n in enumerate(sim.marker_numbers):
                if n == self.points.auto_marker:
                    fresh = live[~sim.active[i, live] & ~sim.removed_marker[i, live]]
                    sim.active[i, fresh] = True
                    sim.activated_round[i, fresh] = rnd

    def score(self, play: Play) -> None:
        sim = play.sim
        for m, p, mine in play.holders():
            scored = mine[sim.active[m, mine]]
            sim.vp[p, scored] += sim.activated_round[m, scored]
            sim.active[m, scored] = False
            sim.removed_marker[m, scored] = True
            sim.control[m, scored] = -1


__all__ = [
    "DivideAndConquer",
    "EnemySupplyDestroyed",
    "Frontlines",
    "GatherTheResources",
    "HoldPosition",
    "SupplyDrop",
]
