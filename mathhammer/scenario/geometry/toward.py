"""A Move Directly Towards a unit (Lunge, 10.4): where it ends.

Lunge: "this Unit, if Unengaged, may perform a Move action Directly Towards the attacking Unit". FAQ v1.0 (the Polish
FAQ text, seeds/000): "W przypadku ruchu Directly Towards lub Directly Away Leading Model musi natomiast wykorzystać
maksymalny możliwy dystans ruchu w odpowiednim kierunku" (in a Directly Towards or Directly Away move the Leading Model
must use the maximum possible distance in that direction). Reading (:meth:`Toward.toward_end`):

* The direction: straight at the nearest live model of the unit moved towards (:meth:`~.facts.Facts.toward`); the
  distance at most the unit's Speed and short of Within 1" of that model (8.5.3: a Move "cannot end Within 1\"
  (Engagement Range) of an Enemy Ground Unit").
* Its way (8.5.3 step 1): the Leading Model's base along the line stays on the table (on a piece: its centre over the
  piece's top), passes through no terrain of Size 2 or larger but GRASS (IMPASSABLE TERRAIN of its Size or less with
  Raptor Strain) and through no base of another unit's Ground model ("may not pass through Enemy models or Friendly
  models from other Units"; every centre of their placements, as :meth:`~.placement.Placing.place` reads them; a
  Ground model passes through a Flying model's base, and a Flying unit "ignores all terrain and models between the
  start and end"). The first blocked point of the line ends the way.
* The maximum possible distance: the farthest point of the way, tried every :data:`TOWARD_STEP` (0.1) inches back from
  the full distance, where the unit can be set with every other unit where it stands
  (:meth:`~.placement.Placing.place_among`, as :meth:`~.placement.Placing.place`: the Leading Model on no base or
  terrain it may not end on, not Within 1" of an Enemy Ground Unit, the others set In Coherency) on the level it
  started on (8.5.3: a level changes only through an ACCESS POINT, which a straight line does not seek). None where
  no such point is farther than :data:`~mathhammer.board.model.EPS` (a Move of 0" is no Move: FAQ v1.0).
* GRASS the way crosses is not removed (part 11 GRASS; the Lunge's way is not the activation's, which ``grass.py``
  follows).

Before session 56 the move went the full distance or nowhere: in 500 games of the issue 29 lists (``objective`` against
``aggressive``) 958 of 1,330 Lunges found "no room" at the full distance (on terrain 315, on a friendly unit's base
about 350) and did not move.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ...board.cspace import GOAL_STEP
from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS
from ..fastnear import clear_of
from .core import GAP, Coord
from .placement import AMONG_LIMIT, Placing

#: the step between the points of the way a Directly Towards move tries back from its full distance, inches: the
#: Charge search's goal step (``board.cspace.GOAL_STEP``), finer than a player measures (1/8")
TOWARD_STEP = GOAL_STEP
#: how far inside :meth:`~.placement.Placing.place`'s limits an end must be for :meth:`Toward.toward_end` to leave it
#: out without asking (a gap to another base, to an enemy's 1"), inches
MARGIN = 1e-6
#: the same for the terrain: more than the most by which a base's 32-gon falls inside its circle (r (1 - cos(pi/32)),
#: under 0.01" for a 100 mm base)
DISC_MARGIN = 0.02


class Toward(Placing):
    """A Move Directly Towards a unit: where the Leading Model ends (the module text)."""

    def toward_end(
        self, pid: int, alive: int, qid: int, kq: int, inches: float, occupied: tuple[int, ...]
    ) -> Coord | None:
        """Where the Leading Model of placement ``pid`` (its first ``alive`` models) ends a Move Directly Towards the
        nearest live model of placement ``qid`` (its first ``kq``), at most ``inches``, with the other units at
        ``occupied`` (placement ids): the farthest point of its way where the unit can be set, or None (the module
        text). Where the full distance is open, its end is :meth:`~.facts.Facts.toward`'s, to the bit."""
        key = (pid, alive, qid, kq, inches, occupied)
        kept = self._toward_ends
        if key in kept:
            return kept[key]
        if len(kept) >= AMONG_LIMIT:
            kept.clear()
        hit = kept[key] = self._toward_end(pid, alive, qid, kq, inches, occupied)
        return hit

    @cached_property
    def _toward_ends(self) -> dict[tuple[object, ...], Coord | None]:
        """:meth:`toward_end` by its arguments (an automatic player's score of a Lunge and the engine's Lunge in that
        game ask the same; the last :data:`~.placement.AMONG_LIMIT`)."""
        return self.memo.table("toward")

    def _toward_end(
        self, pid: int, alive: int, qid: int, kq: int, inches: float, occupied: tuple[int, ...]
    ) -> Coord | None:
        """:meth:`toward_end`, computed."""
        p = self.placements[pid]
        su = self.models_left(self.scn.units[p.unit], alive)  # its models left are set (``Movement.place``)
        for end in self._toward_spots(pid, alive, qid, kq, inches, occupied):
            if (
                self.level_at(end) == p.level
                and self.place_among(su, end, self.rear_from(pid, end), occupied) is not None
            ):
                return end
        return None

    def _toward_spots(
        self, pid: int, alive: int, qid: int, kq: int, inches: float, occupied: tuple[int, ...]
    ) -> list[Coord]:
        """The points of the way (every :data:`TOWARD_STEP`, the farthest first) where :meth:`place` may set the
        Leading Model: the others it surely refuses left out."""
        full = self.toward(pid, alive, qid, kq, inches)
        if full is None:
            return []
        p = self.placements[pid]
        su = self.scn.units[p.unit]
        lead, r, level = p.centres[0], self._radius(pid), p.level
        d = math.dist(lead, full)
        n = max(1, math.ceil(d / TOWARD_STEP - 1e-9))
        frac = np.arange(1, n + 1, dtype=np.float64) / n
        pts = np.asarray(lead) + frac[:, None] * (np.asarray(full) - np.asarray(lead))[None, :]
        cs, rs, flying, foe = self._other_bases(su.player, occupied)
        if su.flying:  # "ignores all terrain and models between the start and end"
            stop = n
        else:
            way = self._terrain_ok(pts, r, level, walls_only=True, through=self.mobility[p.unit][0])
            if rs.size and way.any():  # 8.5.3 step 1: through no base of another unit's Ground model
                way &= clear_of(pts, cs, rs, r, 0.0, ~flying, 0.0, np.zeros(rs.size, dtype=bool))
            stop = int(np.argmin(way)) if not way.all() else n
        # the ends :meth:`place` surely refuses, left out before it is asked: the Leading Model on another base or
        # Within 1" of an Enemy Ground Unit (``GAP / 2`` and 1" less a margin), or on terrain (its radius less the
        # margin by which ``place``'s polygon disc falls short of the circle)
        ends = np.flatnonzero(frac[:stop] * d > EPS)
        if ends.size and rs.size:
            grounded = np.zeros(rs.size, dtype=bool) if su.flying else foe & ~flying
            solid = np.ones(rs.size, dtype=bool)
            near = ENGAGEMENT_RANGE + EPS - MARGIN
            ends = ends[clear_of(pts[ends], cs, rs, r, GAP / 2 - MARGIN, solid, near, grounded)]
        if ends.size:
            ends = ends[self._terrain_ok(pts[ends], r - DISC_MARGIN, level)]
        return [full if k == n - 1 else (float(pts[k, 0]), float(pts[k, 1])) for k in ends[::-1].tolist()]

    def _other_bases(
        self, player: str, occupied: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every base of the placements ``occupied`` (every centre, as :meth:`place` reads them): centres, radii, and
        per base whether its unit is Flying and an enemy of ``player``."""
        if not occupied:
            empty = np.zeros(0, dtype=bool)
            return np.zeros((0, 2)), np.zeros(0), empty, empty
        units = [self.scn.units[self.placements[q].unit] for q in occupied]
        counts = [len(self.placements[q].centres) for q in occupied]
        cs = np.concatenate([self._centres(q) for q in occupied])
        rs = np.repeat([self._radius(q) for q in occupied], counts)
        flying = np.repeat([u.flying for u in units], counts)
        foe = np.repeat([u.player != player for u in units], counts)
        return cs, rs, flying, foe
