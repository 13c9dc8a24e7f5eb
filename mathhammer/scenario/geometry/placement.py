"""Placement and casualty order: a unit's models set around its Leading Model (8.5.3 step 2, 8.7.5).

Positions are *placements*: a unit's Leading Model at the planned point and the other models
set In Coherency around it (8.5.3 step 2: "Pick up all remaining models and set them In
Coherency around the Leading Model"), on one level: the playmat (GROUND LEVEL) or the top of one
terrain piece with a horizontal surface (the plan's ``on``; part 11 ELEVATION LEVEL). How the
models are set:

* models are set on a hexagonal grid of their base spacing (bases 0.1" apart), nearest to the
  Leading Model first, behind it (away from where it moves, or from the charged unit) before in
  front of it, of two spots as good the one on the side of the table's centre first; the grid and
  its ties are laid in the unit's own frame (its rear and that turned 90 degrees), so a symmetry
  of the table maps a formation onto the formation at the image point (``Placing._grid_order``);
  never off the table, over another unit's base (on any level: bases are compared
  top-down, as the board layer does), or Within 1" of an enemy Ground unit (except the declared
  targets of a Charge, 8.7.7 step 4; ENGAGEMENT RANGE is "measured horizontally", so on any level).
* A charging unit is set by 8.7.7 step 4's Placement priority instead (:mod:`.charge`).
* On the playmat: never over a terrain footprint ("may not end overlapping terrain").
* On a piece (``Placement.level``, the models' ``stands_on``): every model of the unit on the same
  piece, each base centre over the piece's top (FAQ v1.0, Wobbly Model Syndrome: "the centre of the
  base must stay over the High Ground piece", the base may overhang its edge a little), and no base
  over another piece's footprint, except the pieces under it (a piece set on the top is an obstacle
  like a wall on the playmat). Reading: a unit that does not fit on the top in this way is not
  placed there (the activation is refused) -- the FAQ lets models be set onto High Ground "through
  Coherency and an ACCESS POINT", but a unit split over two levels is not modelled.
* The level of a point: the plan names it (``on``); where a caller does not (the simulation, a
  Charge's end), it is the highest piece with a horizontal top whose footprint holds the point,
  else the playmat (:meth:`World.level_at`): a base centre over any other footprint could not stand
  there anyway. ``scenario check`` holds ``on`` to the same level, so the two always agree.

Casualties: the survivors of a unit with ``k`` models left are the first ``k`` centres of its
placement, so the order of the centres is the defender's choice that the rules leave open
(8.7.4 step 5: "The defending player removes models"). The number of models an attack may remove
still follows visibility (8.7.4 step 5). The order is the scenario's ``[policy] casualties``:

* ``keep-leader`` (default): the models set last go first (the farthest from the Leading Model,
  those set in front of it after those beside and behind it); the Leading Model goes last.
* ``keep-front``: the rearmost models go first, measured along the unit's facing (the way it moved
  or charged; for a Deploy, away from its Entry Edge), so the unit keeps the models nearest the
  front: the enemy it charged, the marker it moved to. The Leading Model still goes last (the plan
  measures Moves and Charges from it).

8.7.5 (Removing Models from Engaged Units) overrides the policy for a unit set Engaged (a Charge:
the only way a plan sets a unit Within 1" of an enemy). Reading: the casualties go in its strict
priority order, Priority 1 (models not Within the Engagement Range of any Enemy Unit) first, then
Priority 2 (Within the Engagement Range, not in Base-to-Base contact), then Priority 3 (Base-to-Base,
bases at most ``CONTACT`` = 0.05" apart); the policy orders the models within a tier. "cannot choose a
model if removing it would cause the Unit to stop being Engaged with a specific Enemy Unit":
the Leading Model (set Engaged with every declared target, 8.7.7 step 3) and, for an Enemy Unit
it is not Engaged with, that unit's best-placed Engaged model are removed last. The order is fixed
when the unit is set: a unit that is charged keeps the order it was set with (its casualties do
not look at where the charger stands), and walls between models are not looked at here.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ...board.ranks import CONTACT
from ..fastnear import ManyTest, clear_of
from ..fastranks import lateral_first
from ..missions.deployments import MIRROR_AXES
from ..spec import PLAYERS, ScenarioUnit
from .core import (
    _RING,
    AUTO,
    COHERENCY_SLACK,
    EDGE_REAR,
    GAP,
    PLACE_NEAR,
    Coord,
    Placement,
    Zone,
    _Auto,
    edge_distance,
    nearest_heading,
)
from .facts import Facts
from .routes import UNSURE

#: how many answers :meth:`Placing.place_among` keeps (a verdict's answer is read again by its activation once the
#: decision is taken: a decision of 10,000 random games asks thousands)
AMONG_LIMIT = 1 << 15
#: how many spots round each model set :meth:`Placing._chain` tries (every 15 degrees, in the unit's frame)
CHAIN_TURNS = 24
#: how much farther than a base spacing from a model set :meth:`Placing._chain` tries (up to COHERENCY_SLACK: the
#: grid's "keep them together")
CHAIN_REACH = (0.0, COHERENCY_SLACK / 2, COHERENCY_SLACK)


def hexagon(rings: int, step: float) -> list[tuple[float, float]]:
    """The spots of a hexagonal grid of ``rings`` rings round the centre (left out), ``step`` apart, in the unit's
    frame: (lateral, how far ahead), row by row (the same on both sides of the unit: a card that swaps the players maps
    it onto itself). The formations' grid (:func:`_frame_order`) and a Charge's last tier (``geometry/charge.py``)."""
    return [
        (step * (i + 0.5 * j), step * (math.sqrt(3) / 2) * j)
        for i in range(-rings, rings + 1)
        for j in range(-rings, rings + 1)
        if (i, j) != (0, 0) and abs(i + j) <= rings
    ]


@functools.lru_cache(maxsize=1024)
def _frame_order(models: int, step: float, first: int) -> tuple[tuple[float, float], ...]:
    """The spots of :meth:`Placing._grid_order` in its order, in the unit's frame: (lateral, how far ahead) of each. The
    order reads only the frame (not the direction of ``back``), so it is sorted once per (models, spacing, side)."""
    cands: list[tuple[tuple[float, float, float], tuple[float, float]]] = []
    for lat, fwd in hexagon(math.ceil(math.sqrt(models)) + 3, step):
        score = math.hypot(lat, fwd) + 0.6 * max(0.0, fwd)
        tie = (round(score, 6), round(-first * lat, 6), round(fwd, 6))
        cands.append((tie, (lat, fwd)))
    cands.sort(key=lambda c: c[0])
    return tuple(d for _, d in cands)


@functools.lru_cache(maxsize=256)
def near_limit(models: int, base_mm: float) -> float:
    """How far from its Leading Model :meth:`Placing.place` first looks for spots with only the units near it, for a
    unit of ``models`` models on bases of ``base_mm``: PLACE_NEAR, or where the grid's spot for the last model (with
    nothing in the way) lies farther, that spot's distance and one more spacing (a unit of large bases or many models
    would else always look beyond, and read every unit in the grid's reach). Any limit gives the same placements
    (:meth:`Placing._place_grid`: -1 past it, and the units within it, its radius and 1" read first)."""
    step = 2 * (base_mm / MM_PER_INCH / 2) + GAP
    spots = _frame_order(models, step, 1)
    last = math.hypot(*spots[min(models - 1, len(spots) - 1)]) if models > 1 else 0.0
    return max(PLACE_NEAR, last + step)


class Placing(Facts):
    """Placement and casualty order: a unit's models set around its Leading Model (8.5.3 step 2, 8.7.5)."""

    def place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...] = (),
        on: str | _Auto | None = AUTO,
        targets_left: tuple[tuple[str, int], ...] = (),
        arriving: Zone | None = None,
    ) -> int | None:
        """Set ``su`` with its Leading Model at ``lead``; ``rear`` points away from the front.

        ``occupied``: placement ids of the other units on the table. ``on``: the level every model
        stands on, a piece id with a horizontal top or None (the playmat); by default the level of
        ``lead`` (:meth:`level_at`). Returns a placement id, or None when the unit cannot stand there
        (off the table, on terrain, on a base, Within 1" of an enemy Ground unit that is not an
        allowed Charge target; on a piece: a centre not over its top, or not every model fits on it).

        With ``allowed_enemies`` (the declared Charge targets) the other models are set by 8.7.7
        step 4's Placement priority (:meth:`_charge_spots`); ``targets_left``: models left of those
        targets (unit id, count), full strength where not given.

        ``arriving``: the unit arrives from Reserves (a Deploy by any way, a summons, a token's Deploy), and this is
        the opponent's Zone of Influence (:meth:`arrival_zone`): the other models are never set on a spot Within it
        (8.3.3: "cannot end its arrival during that Activation inside the opponent's Zone of Influence"; Deploy: "Set
        the rest of the Unit In Coherency"), as they are never set Within 1" of an enemy. The Leading Model's point
        is the plan's: where it is Within the zone no formation helps, and the caller refuses the arrival
        (:meth:`zone_gap`).
        """
        assert arriving is None or not allowed_enemies, "a Charge is no arrival"
        asked = (su.set_key, lead, rear, occupied, allowed_enemies, on, targets_left, arriving)  # the arguments
        hit = self._placed.get(asked, -2)
        if hit != -2:
            return hit
        hit = self._placed[asked] = self._place(su, lead, rear, occupied, allowed_enemies, on, targets_left, arriving)
        return hit

    def arrival_zone(self, player: str) -> Zone:
        """The opponent's Zone of Influence for a unit of ``player`` arriving from Reserves (8.3.3): the opponent's
        Entry Edge and the zone's depth (9.2.1, the card's ``zone_depth``); :meth:`place`'s ``arriving``."""
        return (self.edges[PLAYERS[1 - PLAYERS.index(player)]], float(self.scn.deployment.zone_depth))

    def zone_gap(self, su: ScenarioUnit, zone: Zone, centres: Sequence[Coord]) -> float:
        """How far the nearest base of ``su`` at ``centres`` stands outside ``zone`` (:meth:`arrival_zone`), less
        EPS: at most 0 where a base is Within it (WITHIN: "any part of its base touches or crosses into that range";
        8.3.3). The one reading of the zone: the formation's spots, the engine's, the check's and the players'."""
        edge, depth = zone
        r = su.base_mm / MM_PER_INCH / 2
        width, length = self.board.width, self.board.depth
        return min(edge_distance(edge, c, width, length) for c in centres) - r - (depth + EPS)

    def _place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        on: str | _Auto | None,
        targets_left: tuple[tuple[str, int], ...],
        arriving: Zone | None = None,
    ) -> int | None:
        """:meth:`place`, kept under its rounded arguments."""
        level = self.level_at(lead) if on is AUTO else on
        assert not isinstance(level, _Auto)
        if level is not None and level not in self.surfaces:
            raise ValueError(f"level {level!r}: not a terrain piece with a horizontal top (surface = true)")
        key = (
            su.set_key,
            round(lead[0], 4),
            round(lead[1], 4),
            round(rear[0], 3),
            round(rear[1], 3),
            occupied,
            allowed_enemies,
            level,
            targets_left,
            arriving,
        )
        if key in self._place_cache:
            return self._place_cache[key]
        r = su.base_mm / MM_PER_INCH / 2
        if not allowed_enemies:
            # first with the units near the Leading Model only: the answer holds for every board with the
            # same units there, unless the grid had to look beyond near_limit (then: the units in reach of
            # every spot it may look at, below)
            small = self._lead_near(su, lead, occupied)
            hit = self._placed_near(su, key, lead, rear, small, level, arriving)
            if hit != -1:
                self._place_cache[key] = hit
                return hit
        near = self._near_lead(su, lead, r, occupied, allowed_enemies, dict(targets_left))
        if near != occupied:  # the same answer as with every unit (the far ones cannot touch a spot looked at)
            near_key = (*key[:5], near, *key[6:])
            hit = self._place_cache.get(near_key, -2)
            if hit == -2:
                hit = self._place_cache[near_key] = self.place(
                    su, lead, rear, near, allowed_enemies, level, targets_left, arriving
                )
            self._place_cache[key] = hit
            return hit
        if not allowed_enemies or su.flying:  # a Move or a Deploy (a Flying unit cannot Charge, 8.7.7)
            moved = self._place_cache[key] = self._place_grid(
                su, lead, rear, occupied, level, math.inf, allowed_enemies, arriving
            )
            return moved
        charged = self._place_cache[key] = self.charge_place(
            su, lead, rear, occupied, allowed_enemies, targets_left, level
        )
        return charged

    def place_near_lead(
        self, su: ScenarioUnit, lead: Coord, rear: Coord, occupied: tuple[int, ...], arriving: Zone | None = None
    ) -> int | None:
        """:meth:`place` of ``su`` at ``lead`` on its level, no Charge targets, read on the placements of ``occupied``
        near the Leading Model (:meth:`lead_test`): the answer for every board with those placements there; -1 where
        it needs the others too (the grid looked beyond :func:`near_limit`): then :meth:`place` with them."""
        small = self._lead_near(su, lead, occupied)
        level = self.level_at(lead)
        if level is not None and level not in self.surfaces:
            raise ValueError(f"level {level!r}: not a terrain piece with a horizontal top (surface = true)")
        key = (su.set_key, round(lead[0], 4), round(lead[1], 4), round(rear[0], 3), round(rear[1], 3))
        return self._placed_near(su, key, lead, rear, small, level, arriving)

    def place_among(self, su: ScenarioUnit, lead: Coord, rear: Coord, occupied: tuple[int, ...]) -> int | None:
        """:meth:`place` of ``su`` at ``lead`` with every other unit's placement ``occupied``, no Charge targets, not
        arriving: :meth:`place_near_lead`, else :meth:`place`; the last :data:`AMONG_LIMIT` kept by the exact arguments
        (an automatic player's Move verdict, then the Move in that game, ask the same). On the playmat, the empty
        table's placement where no base of any of them blocks its spots (:meth:`_bare_holds` read on them all: then
        none near the Leading Model blocks one either), and none where one blocks the Leading Model's (the grid's
        first test)."""
        key = (su.set_key, lead, rear, occupied)
        hit = self._among.get(key, -2)
        if hit == -2:
            if self.level_at(lead) is None:
                hit = self._bare_holds(su, lead, rear, occupied, None, None)
                if hit == -2 and self._lead_blocked(su, lead, occupied):
                    hit = None
            if hit == -2:
                hit = self.place_near_lead(su, lead, rear, occupied)
            if hit == -1:
                hit = self.place(su, lead, rear, occupied)
            if len(self._among) >= AMONG_LIMIT:
                self._among.clear()
            self._among[key] = hit
        return hit

    def _placed_near(
        self,
        su: ScenarioUnit,
        key: tuple[object, ...],
        lead: Coord,
        rear: Coord,
        small: tuple[int, ...],
        level: str | None,
        arriving: Zone | None = None,
    ) -> int | None:
        """The grid placement up to :func:`near_limit` with the units ``small`` near the Leading Model (kept under the
        rounded arguments ``key``: unit, lead, rear), -1 where it looked beyond."""
        small_key = (*key[:5], small, level, arriving)
        hit = self._place_near.get(small_key, -2)
        if hit == -2:
            hit = self._bare_holds(su, lead, rear, small, level, arriving)
            if hit == -2:
                limit = near_limit(su.models, su.base_mm)
                hit = self._place_grid(su, lead, rear, small, level, limit, (), arriving)
            self._place_near[small_key] = hit
        return hit

    def _bare_holds(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        small: tuple[int, ...],
        level: str | None,
        arriving: Zone | None,
    ) -> int | None:
        """:meth:`_place_grid` up to :func:`near_limit` with the units ``small``, where the answer with none of them
        (kept per exact arguments) is a placement none of whose spots a base of ``small`` blocks; -2 where it cannot
        tell. Sound: the grid takes its spots greedily, and a spot it took with no unit there is taken again where no
        base blocks it (:meth:`Routes._blocked <.routes.Routes._blocked>`: closer than ``GAP / 2``, or an enemy Ground
        base Within 1"), since every spot it passed over is passed over again (blocked by the board or by the
        unit's own spots, the same ones); no spot is then Within 1" of an enemy, so the casualty order is the same
        (8.7.5 reads none). The gaps are read as :meth:`_blocked` reads them (``math.dist``) where numpy's are
        within 1e-9 of a limit."""
        key = (su.set_key, lead, rear, level, arriving)
        bare = self._bare_near.get(key, -2)
        if bare == -2:
            limit = near_limit(su.models, su.base_mm)
            bare = self._bare_near[key] = self._place_grid(su, lead, rear, (), level, limit, (), arriving)
        if not small or bare is None or bare < 0:
            return bare if not small else -2
        status = self._clear_of(su, small, self._centres(bare))
        if status == 2:  # a gap within 1e-9 of its limit: every gap read as _blocked reads it
            r, apart, near = su.base_mm / MM_PER_INCH / 2, GAP / 2, ENGAGEMENT_RANGE + EPS
            others, _ = self._others_foes(su, small, ())
            centres = self.placements[bare].centres
            for oc, orad, enemy in others:
                for c in centres:
                    gap = math.dist(c, oc) - r - orad
                    if gap < apart or (enemy and gap <= near):
                        return -2
            return bare
        return bare if status == 0 else -2

    def lead_test(self, su: ScenarioUnit, lead: Coord) -> ManyTest:
        """Has a placement a base within :func:`near_limit` (+ the radius, 1" and a margin) of the Leading Model at
        ``lead`` (the units :meth:`place` reads first, without Charge targets, :meth:`place_near_lead`)? A placement
        that fails it changes no answer of :meth:`place_near_lead`: the caller may pass only the placements that
        pass."""
        at = np.asarray(lead, dtype=float)
        reach = self._lead_reach_of(su)
        return ManyTest(lambda pids: self.near_box_many(pids, at, at, reach), self._near_lead_test(su, lead))

    def _near_lead_test(self, su: ScenarioUnit, lead: Coord) -> Callable[[int], bool]:
        """:meth:`lead_test` of one placement (the World's own reading, kept per placement)."""
        at = np.asarray(lead, dtype=float)
        reach = self._lead_reach_of(su)
        key = ("lead", lead, reach)
        return lambda pid: self.near_box(key, pid, at, at, reach)

    def _lead_near(self, su: ScenarioUnit, lead: Coord, occupied: tuple[int, ...]) -> tuple[int, ...]:
        """The placements of ``occupied`` that pass :meth:`lead_test` at ``lead``, in order: read at once
        (:meth:`near_box_many`, compiled: the same answers as :meth:`near_box`'s)."""
        if not occupied:
            return ()
        at = np.asarray(lead, dtype=float)
        keep = self.near_box_many(np.asarray(occupied, dtype=np.int64), at, at, self._lead_reach_of(su))
        return tuple(pid for pid, k in zip(occupied, keep.tolist(), strict=True) if k)

    @staticmethod
    def _lead_reach_of(su: ScenarioUnit) -> float:
        """How far from the Leading Model a base may change :meth:`place_near_lead`'s answer: :func:`near_limit`, the
        radius, 1" and a margin (:meth:`lead_test`)."""
        return near_limit(su.models, su.base_mm) + su.base_mm / MM_PER_INCH / 2 + ENGAGEMENT_RANGE + 0.01

    def charge_place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        targets_left: tuple[tuple[str, int], ...] = (),
        level: str | _Auto | None = AUTO,
        box: list[float] | None = None,
    ) -> int | None:
        """A charging unit set by 8.7.7 step 4's Placement priority: the Charge part gives it
        (:meth:`~mathhammer.scenario.geometry.charge.Charges.charge_place`)."""
        raise NotImplementedError

    def bases_test(self, su: ScenarioUnit, box: list[float]) -> Callable[[int], bool]:
        """Has a placement a base that can change a test of a base of ``su`` at a point of ``box`` (an overlap, an
        enemy Within 1"; :func:`_bases_near`, with a margin)?"""
        reach = self._bases_reach(su)
        lo, hi = np.asarray(box[:2], dtype=float), np.asarray(box[2:], dtype=float)
        key = ("bases", tuple(box), reach)
        return lambda pid: self.near_box(key, pid, lo, hi, reach)

    def bases_many(self, su: ScenarioUnit, box: list[float]) -> Callable[[np.ndarray], np.ndarray]:
        """:meth:`bases_test` of many placements at once (compiled, :meth:`near_box_many`: the same answers)."""
        reach = self._bases_reach(su)
        lo, hi = np.asarray(box[:2], dtype=float), np.asarray(box[2:], dtype=float)
        return lambda pids: self.near_box_many(pids, lo, hi, reach)

    @staticmethod
    def _bases_reach(su: ScenarioUnit) -> float:
        """How far from a box a base of ``su`` set in it reaches: its radius, 1" and a margin (:meth:`bases_test`)."""
        return su.base_mm / MM_PER_INCH / 2 + ENGAGEMENT_RANGE + 0.02

    def _others_foes(
        self, su: ScenarioUnit, occupied: tuple[int, ...], allowed_enemies: tuple[str, ...]
    ) -> tuple[list[tuple[Coord, float, bool]], list[tuple[str, Coord, float]]]:
        """The bases of ``occupied`` (centre, radius, an enemy it may not come Within 1" of) and the enemy
        Ground models ``su`` may be set Engaged with (8.7.5)."""
        others: list[tuple[Coord, float, bool]] = []
        foes: list[tuple[str, Coord, float]] = []
        for pid in occupied:
            p = self.placements[pid]
            other = self.scn.units[p.unit]
            ground_foe = other.player != su.player and not other.flying and not su.flying
            enemy = ground_foe and p.unit not in allowed_enemies
            orad = other.base_mm / MM_PER_INCH / 2
            others.extend((c, orad, enemy) for c in p.centres)
            if ground_foe:
                foes.extend((p.unit, c, orad) for c in p.centres)
        return others, foes

    def _place_grid(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        level: str | None,
        limit: float,
        allowed_enemies: tuple[str, ...] = (),
        arriving: Zone | None = None,
    ) -> int | None:
        """:meth:`place` for a Move or a Deploy: the Leading Model at ``lead``, the others at the first free
        spots of the grid around it (:meth:`_grid_order`), kept together, an arriving unit's (``arriving``) never
        Within the opponent's Zone of Influence (:meth:`zone_gap`). -1 when the next spot to look
        at is farther than ``limit`` from ``lead`` (no spot farther was looked at: a base that far from
        every spot looked at, less both radii and 1", changed nothing)."""
        r = su.base_mm / MM_PER_INCH / 2
        step = 2 * r + GAP
        norm = math.hypot(*rear) or 1.0
        back = (rear[0] / norm, rear[1] / norm)
        # compiled, the same answer (without a limit it never stops short: -1 is then an arriving unit's grid with too
        # few spots out of the zone, whose chain below is the Python walk's)
        if not allowed_enemies and level is None:
            order = self._grid_order(su.models, step, back, lead, su.player)
            walked = self._walk_grid(su, lead, order, occupied, limit, arriving)
            if isinstance(walked, list):
                return self._intern(Placement(su.id, tuple(self._casualty_order(walked, back, r, [])), None))
            if walked != UNSURE and (walked != -1 or limit != math.inf):
                return walked
        others, foes = self._others_foes(su, occupied, allowed_enemies)
        if self._blocked(lead, r, others, True, level):
            return None
        centres = [lead]
        mine: list[tuple[Coord, float, bool]] = [(lead, r, False)]
        zoned = False  # a spot looked at was Within the zone
        for dx, dy in self._grid_order(su.models, step, back, lead, su.player):
            if len(centres) == su.models:
                break
            if math.hypot(dx, dy) > limit:
                return -1
            c = (lead[0] + dx, lead[1] + dy)
            if arriving is not None and self.zone_gap(su, arriving, (c,)) <= 0:  # 8.3.3
                zoned = True
                continue
            if self._blocked(c, r, others + mine, True, level):
                continue
            if min(math.dist(c, m[0]) for m in mine) > step + 2.0:  # keep them together
                continue
            centres.append(c)
            mine.append((c, r, False))
        if len(centres) < su.models and zoned and arriving is not None:
            if limit != math.inf:
                return -1  # the chain below may look anywhere: read with every unit
            centres = self._chain(su, lead, back, others, level, arriving)
        if len(centres) < su.models:
            return None
        centres = self._casualty_order(centres, back, r, foes)
        return self._intern(Placement(su.id, tuple(centres), level))

    def _chain(
        self,
        su: ScenarioUnit,
        lead: Coord,
        back: Coord,
        others: list[tuple[Coord, float, bool]],
        level: str | None,
        arriving: Zone,
    ) -> list[Coord]:
        """An arriving unit's formation where the grid's spots out of the zone do not hold it (8.3.3: the player sets
        the rest of the unit In Coherency anywhere legal; Deploy: "Set the rest of the Unit In Coherency"): each next
        model on one of :data:`CHAIN_TURNS` directions from a model set, a base spacing and up to COHERENCY_SLACK more
        away (:data:`CHAIN_REACH`: the grid's reading of In Coherency), the best by the grid's score in the
        unit's frame (nearest the Leading Model, a spot ahead of it scored its distance plus 0.6 times how far ahead;
        ties: the side :meth:`_lateral_first` names, then the nearer the rear), never blocked, never Within the zone,
        never farther from the Leading Model than the grid's spots (so :meth:`_lead_reach` holds). The centres set
        (fewer than the unit's models where no spot is left)."""
        r = su.base_mm / MM_PER_INCH / 2
        step = 2 * r + GAP
        first = self._lateral_first(lead, back, su.player)
        most = (math.ceil(math.sqrt(su.models)) + 3) * step + EPS  # the grid's farthest spot (:func:`hexagon`)
        bx, by = back
        lx, ly = -by, bx
        turns = [(math.cos(2 * math.pi * k / CHAIN_TURNS), math.sin(2 * math.pi * k / CHAIN_TURNS)) for k in
                 range(CHAIN_TURNS)]  # fmt: skip
        centres = [lead]
        mine: list[tuple[Coord, float, bool]] = [(lead, r, False)]
        while len(centres) < su.models:
            best: tuple[tuple[float, float, float], Coord] | None = None
            for m, (cl, cf), more in itertools.product(centres, turns, CHAIN_REACH):  # the frame: (lateral, ahead)
                c = (m[0] + (step + more) * (cl * lx - cf * bx), m[1] + (step + more) * (cl * ly - cf * by))
                lat = (c[0] - lead[0]) * lx + (c[1] - lead[1]) * ly
                fwd = -((c[0] - lead[0]) * bx + (c[1] - lead[1]) * by)
                score = math.hypot(lat, fwd) + 0.6 * max(0.0, fwd)
                tie = (round(score, 6), round(-first * lat, 6), round(fwd, 6))
                if (best is not None and tie >= best[0]) or math.dist(c, lead) > most:
                    continue
                if self.zone_gap(su, arriving, (c,)) <= 0 or self._blocked(c, r, others + mine, True, level):
                    continue
                best = (tie, c)
            if best is None:
                break
            centres.append(best[1])
            mine.append((best[1], r, False))
        return centres

    def _grid_order(self, models: int, step: float, back: Coord, lead: Coord, player: str) -> list[Coord]:
        """The offsets from the Leading Model at ``lead`` of the hexagonal grid :meth:`place` tries, in its order.

        The grid is laid in the unit's own frame: ``back`` (a unit vector, towards where the models go: the rear) and
        the lateral (``back`` turned 90 degrees counter-clockwise: east for a rear to the south), its spots within
        ``ceil(sqrt(models)) + 3`` steps of the Leading Model (a hexagon, the same on both sides). Nearest first, a
        spot ahead of the Leading Model (against ``back``) scored its distance plus 0.6 times how far ahead it is;
        ties: the side of the table's centre first (:meth:`_lateral_first`), then the nearer to the rear. Every
        test is of the frame, so a symmetry of the table (a rotation or a reflection keeping its centre) maps one
        unit's formation onto the formation of a unit at the image point with the image rear (``player``'s: the
        other player's there). Read once per (models, spacing, direction, side)."""
        first = self._lateral_first(lead, back, player)
        key = (models, step, back, first)
        hit = self._grid_orders.get(key)
        if hit is None:
            bx, by = back
            lx, ly = -by, bx
            hit = self._grid_orders[key] = [
                (lat * lx - fwd * bx, lat * ly - fwd * by) for lat, fwd in _frame_order(models, step, first)
            ]
        return hit

    def _lateral_first(self, lead: Coord, back: Coord, player: str) -> int:
        """The side of the unit's frame :meth:`_grid_order` fills first among tied spots: +1 the lateral (``back``
        turned 90 degrees counter-clockwise), -1 its opposite. The side of the table's centre; a Leading Model on the
        centre line along ``back``: on a card that mirrors, the side towards the end of its mirror line with the
        smaller x (an upright line: the smaller y); on the mirror line itself, ``back`` along it (a unit there is
        its own image, so a rule of the frame alone cannot map it onto the other player's): the side of ``player``'s
        own Entry Edge (the card swaps the players, so it maps that side onto the other player's); else (a rotation
        or no card) -1, the unit's own left-hand side (``back`` turned clockwise), which a rotation maps."""
        return lateral_first(lead[0], lead[1], back[0], back[1], (*self._table_frame, *self.rear_of(player)))

    @functools.cached_property
    def _table_frame(self) -> tuple[float, float, float, float]:
        """What :meth:`_lateral_first` reads of the table: its centre, and the direction of the card's mirror line
        ((0, 0) for a rotation or no card); the compiled Close Ranks search reads the same."""
        ax, ay = MIRROR_AXES.get(str(self.scn.deployment_card.get("symmetry", "")), (0.0, 0.0))
        return (self.board.width / 2, self.board.depth / 2, float(ax), float(ay))

    def _near_lead(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        occupied: tuple[int, ...],
        allowed: tuple[str, ...],
        left: dict[str, int],
    ) -> tuple[int, ...]:
        """The placements of ``occupied`` that can matter to :meth:`place` at ``lead``: the Charge targets,
        and the units with a centre within reach of a spot :meth:`place` or :meth:`_charge_spots` looks at
        (:meth:`_lead_reach`)."""
        reach = self._lead_reach(su, lead, r, [pid for pid in occupied if self.placements[pid].unit in allowed], left)
        if not occupied:
            return ()
        at = np.asarray(lead, dtype=float)
        near = self.near_box_many(np.asarray(occupied, dtype=np.int64), at, at, reach).tolist()
        return tuple(pid for pid, k in zip(occupied, near, strict=True) if k or self.placements[pid].unit in allowed)

    def _lead_reach(
        self, su: ScenarioUnit, lead: Coord, r: float, target_pids: Sequence[int], left: dict[str, int]
    ) -> float:
        """How far from ``lead`` (less its radius) a base can matter to :meth:`place` with the Charge targets at
        ``target_pids`` (their models ``left``).

        Every spot looked at is within ``ext`` of ``lead``: the grid (at most 1.75 x rings x spacing away),
        or, for a Charge, the rings around the targets' live models and around the unit's models Within 1"
        of them (a target's model + its radius + 3 radii + 1" + contact). A base farther than ``ext`` +
        both radii + 1" from ``lead`` touches no such spot and is not Within 1" of one.
        """
        step = 2 * r + GAP
        ext = 1.75 * (math.ceil(math.sqrt(su.models)) + 3) * step
        for pid in target_pids:
            p = self.placements[pid]
            k = left.get(p.unit, len(p.centres))
            oc = self._centres(pid)[:k]
            if oc.size:
                far = float(np.hypot(oc[:, 0] - lead[0], oc[:, 1] - lead[1]).max())
                ext = max(ext, far + self._radius(pid) + 3 * r + ENGAGEMENT_RANGE + CONTACT)
        return ext + r + ENGAGEMENT_RANGE + 0.01

    def place_test(
        self,
        su: ScenarioUnit,
        lead: Coord,
        target_pids: Sequence[int] = (),
        targets_left: tuple[tuple[str, int], ...] = (),
    ) -> ManyTest:
        """Can another unit's placement (not a Charge target's) change :meth:`place` of ``su`` at ``lead``, with
        the targets at ``target_pids``? A placement that fails this test is one :meth:`place` leaves out both
        ways it reduces ``occupied`` (the units near the Leading Model, :meth:`_near_lead`), so ``place`` gives the
        same answer with or without it: the caller may pass only the placements that pass."""
        r = su.base_mm / MM_PER_INCH / 2
        at = np.asarray(lead, dtype=float)
        # within the wider of the two reaches: the units :meth:`_near_lead` reads and those :meth:`lead_test` does
        reach = max(self._lead_reach(su, lead, r, target_pids, dict(targets_left)), self._lead_reach_of(su))
        key = ("lead", lead, reach)
        return ManyTest(
            lambda pids: self.near_box_many(pids, at, at, reach), lambda pid: self.near_box(key, pid, at, at, reach)
        )

    def _casualty_order(
        self, centres: list[Coord], back: Coord, r: float, foes: list[tuple[str, Coord, float]]
    ) -> list[Coord]:
        """The survivors' order (the module text): the ``casualties`` policy, then 8.7.5 for an Engaged unit."""
        lead, rest = centres[0], centres[1:]
        if self.casualties == "keep-front":

            def ahead(c: Coord) -> float:
                return -((c[0] - lead[0]) * back[0] + (c[1] - lead[1]) * back[1])

            # ties keep the grid's order (the unit's own frame, :meth:`_grid_order`), not the table's x and y
            rest = sorted(rest, key=lambda c: (-round(ahead(c), 6), round(math.dist(c, lead), 6)))
        order = [lead, *rest]
        if not foes:
            return order
        tiers: list[int] = []
        reach: list[set[str]] = []  # the Enemy Units each model is Within the Engagement Range of
        for c in order:
            near: set[str] = set()
            tier = 1
            for fid, fc, frad in foes:
                gap = math.dist(c, fc) - r - frad
                if gap <= ENGAGEMENT_RANGE + EPS:
                    near.add(fid)
                    tier = max(tier, 3 if gap <= CONTACT + EPS else 2)
            tiers.append(tier)
            reach.append(near)
        if not any(reach):
            return order
        keep = [0]  # the Leading Model last
        covered = set(reach[0])
        for fid in dict.fromkeys(f for f, _, _ in foes):
            if fid in covered:
                continue
            cands = [i for i in range(1, len(order)) if fid in reach[i] and i not in keep]
            if cands:
                best = min(cands, key=lambda i: (-tiers[i], i))
                keep.append(best)
                covered |= reach[best]
        rest_idx = sorted((i for i in range(len(order)) if i not in keep), key=lambda i: (-tiers[i], i))
        return [order[i] for i in keep + rest_idx]

    def respawn(self, pid: int, alive: int, k: int, others: tuple[int, ...]) -> tuple[int, int]:
        """RESPAWN (part 11): "Return up to X Destroyed models to this Unit ... Set each returned model in
        Base-to-Base contact with an existing model in the Unit. Returned models cannot be set Within the Engagement
        Range of any Enemy Unit. If a model cannot be set legally, it cannot be returned."

        ``pid``/``alive``: the unit (its first ``alive`` centres live); ``k``: the models to return; ``others``:
        the other units' placements on the table (every centre an obstacle, as in :meth:`place`). Each returned
        model goes to the first free spot, in the order of the live models and of 36 directions around each (in the
        unit's own frame, :meth:`_ring_order`), in Base-to-Base contact with a model of the unit (bases 0.025"
        apart, as Close Ranks sets them): on the table (on the unit's level), clear of terrain it may not overlap,
        of every other base (in a game a placement holds its models left only, ``SimState.trim``) and more than 1" from
        every Enemy Ground model. Returns (the new placement: the live models, the returned ones, the spots of the
        others removed; the number returned).
        """
        key = (pid, alive, k, others)
        hit = self._respawns.get(key)
        if hit is not None:
            return hit
        p = self.placements[pid]
        su = self.scn.units[p.unit]
        r = self._radius(pid)
        cent = list(p.centres[:alive])
        ghosts = list(p.centres[alive:])
        cs: list[Coord] = [*cent, *ghosts]
        rs: list[float] = [r] * len(cs)
        enemy: list[bool] = [False] * len(cs)
        for opid in others:
            other = self.scn.units[self.placements[opid].unit]
            orad = self._radius(opid)
            for c in self.placements[opid].centres:
                cs.append(c)
                rs.append(orad)
                enemy.append(other.player != su.player and not other.flying)
        all_c = np.asarray(cs, dtype=float).reshape(-1, 2)
        all_r = np.asarray(rs, dtype=float)
        solid = np.ones(len(rs), dtype=bool)
        foe = np.asarray(enemy, dtype=bool)
        ring = self._ring_order(cent[0], self.rear_of(su.player), su.player)
        touch, apart = CONTACT / 2, CONTACT / 2 - 1e-3
        cands = (np.asarray(cent, dtype=float)[:, None, :] + (2 * r + touch) * ring[None, :, :]).reshape(-1, 2)
        free = clear_of(cands, all_c, all_r, r, apart, solid, ENGAGEMENT_RANGE + EPS, foe)
        idx = np.flatnonzero(free)
        if idx.size:
            free[idx] = self._terrain_ok(cands[idx], r, p.level)
        new: list[Coord] = []
        for j in np.flatnonzero(free):
            if len(new) == k:
                break
            c = (float(cands[j, 0]), float(cands[j, 1]))
            if all(math.dist(c, m) - 2 * r >= apart for m in new):
                new.append(c)
        if not new:
            hit = (pid, 0)
        else:
            placement = Placement(p.unit, (*cent, *new, *ghosts[len(new) :]), p.level)
            hit = (self._intern(placement), len(new))
        self._respawns[key] = hit
        return hit

    def _ring_order(self, lead: Coord, back: Coord, player: str) -> np.ndarray:
        """The 36 directions of the ring (``_RING``) in the unit's own frame: towards ``back`` (its player's rear)
        first, then turning away from it, of each pair the one on the side of the table's centre first
        (:meth:`_lateral_first`, as :meth:`_grid_order` breaks its ties). Every test is of the frame, so a symmetry of
        the table maps the order at one Leading Model onto the order at its image with the image rear."""
        first = self._lateral_first(lead, back, player)
        bx, by = back
        dot = np.round(_RING[:, 0] * bx + _RING[:, 1] * by, 6)
        side = np.round(-first * (_RING[:, 1] * bx - _RING[:, 0] * by), 6)  # -first * the lateral component
        return _RING[np.lexsort((side, -dot))]

    def wholly_within_from(
        self, pid: int, alive: int, inches: float, edge: str | None = None, src: tuple[int, int] | None = None
    ) -> bool:
        """PLACE (X) from a starting position (part 11 PLACE: "set it Wholly Within X\" of its starting position"):
        is every base of the first ``alive`` models of placement ``pid`` Wholly Within ``inches`` of the table edge
        ``edge`` (Burrow Ambush: "from the controlling player's Entry Edge") or of a model of ``src`` (placement,
        models left; Rapid Reinforcements: "from another Friendly Unit", its nearest base edge)?"""
        r = self._radius(pid)
        cs = self.placements[pid].centres[:alive]
        if edge is not None:
            w, d = self.board.width, self.board.depth
            return all(edge_distance(edge, c, w, d) + r <= inches + EPS for c in cs)
        assert src is not None
        sc, sr = self.placements[src[0]].centres[: src[1]], self._radius(src[0])
        return bool(sc) and all(min(math.dist(c, s) for s in sc) - sr + r <= inches + EPS for c in cs)

    def rear_from(self, pid: int, to: Coord, headings: int | None = None) -> Coord:
        """Where the other models go when the unit of placement ``pid`` is set with its Leading Model at ``to``
        (8.5.3: behind it, towards where its Leading Model stood; its player's Entry Edge where that is ``to``);
        with ``headings`` (a plan's, :data:`~mathhammer.scenario.spec.HEADINGS`) that direction rounded to the nearest
        of so many compass headings (:func:`nearest_heading`), kept (the last :data:`AMONG_LIMIT` answers)."""
        key = (pid, to, headings)
        hit = self._rears.get(key)
        if hit is None:
            old = self.placements[pid].centres[0]
            rear = (old[0] - to[0], old[1] - to[1])
            if not any(rear):
                hit = self.rear_of(self.scn.units[self.placements[pid].unit].player)
            else:
                hit = rear if headings is None else nearest_heading(rear, headings)
            if len(self._rears) >= AMONG_LIMIT:
                self._rears.clear()
            self._rears[key] = hit
        return hit

    def rear_of(self, player: str) -> Coord:
        """The direction of the player's own Entry Edge (models are set behind their Leading Model)."""
        return EDGE_REAR[self.edges[player]]
