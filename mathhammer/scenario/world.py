"""The scenario's battlefield: where each unit's models stand, and the facts read off the board.

Positions are *placements*: a unit's Leading Model at the planned point and the other models
set In Coherency around it (8.5.3 step 2: "Pick up all remaining models and set them In
Coherency around the Leading Model"), on one level: the playmat (GROUND LEVEL) or the top of one
terrain piece with a horizontal surface (the plan's ``on``; part 11 ELEVATION LEVEL). How the
models are set:

* models are set on a hexagonal grid of their base spacing (bases 0.1" apart), nearest to the
  Leading Model first, behind it (away from where it moves, or from the charged unit) before in
  front of it; never off the table, over another unit's base (on any level: bases are compared
  top-down, as the board layer does), or Within 1" of an enemy Ground unit (except the declared
  targets of a Charge, 8.7.7 step 4; ENGAGEMENT RANGE is "measured horizontally", so on any level).
* A charging unit is set by 8.7.7 step 4's Placement priority instead (:meth:`World._charge_spots`):
  each model in Base-to-Base contact with a live model of a declared target wherever there is room
  (Priority A), else Within 1" of one (Priority B), else beside a model of the unit that is (its
  Supporting Rank) or on the grid nearest the Leading Model (Priority C). The removed models' spots
  of the targets stay clear (as everywhere: boards read at full strength stay legal), so a target
  with few models left inside a ring of removed ones may leave little room to touch it. The
  models are set Wholly Within 3" of the Leading Model (4.4) where there is room; a model that finds
  no spot so is set by the same priorities without the 3" (4.4 would remove it as a casualty; not
  modelled). The Leading Model stays where the Charge path ended (Within 1" of every target), not moved on into
  Base-to-Base contact where the Charge Roll would allow ("Set it in Base-to-Base contact with the
  Charge target(s) if possible"): that would make a placement per Charge Roll.
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

CLOSE RANKS (8.8.1 step 1, :meth:`World.close_ranks`; ``[policy] close_ranks``): "Before rolling the dice,
the Unit may press into the fight". Reading:

* Models in Base-to-Base contact (bases at most ``CONTACT`` = 0.05" apart) with a model of an Engaged
  enemy unit stay ("physically pinned"); if every model is pinned, nothing moves.
* The Leading Model is the first other model (placement order) that can end closer to the Engaged units:
  it moves straight towards the nearest live model of those units, at most 3", stopping in Base-to-Base
  contact (bases 0.025" apart) or at the last free spot before its way is blocked (8.5.3: off the table
  or its level's top, a Size 2+ wall other than GRASS, an enemy model, another unit's Ground model, or
  Within 1" of an enemy Ground unit it is not Engaged with). It passes through its own unit's models.
* The other models that are not pinned are picked up and set one at a time, nearest to the Engaged
  units first: at the free spot nearest its old one in Base-to-Base contact with a live Engaged enemy
  model; else (a model not already Within 1" of an enemy) in Base-to-Base contact with a model of the
  unit set Within the Engagement Range; else at its old spot; else at the nearest free spot of a
  hexagonal grid around the Leading Model. If a model finds no spot, nothing moves.
* In Coherency, as :meth:`World.place` reads it: a spot at most one base spacing + 2" from a model of
  the unit already set, with a Coherency Link to it (4.4: the line crosses no Size 2+ wall and no other
  unit's Ground model; it may cross the Engaged enemy models), and Wholly Within 3" of the Leading
  Model (4.4: "set each remaining model one at a time, Wholly Within 3" of the Leading Model"; one
  base size, so centres at most 3" apart). A model that finds no such spot in any of the steps above
  is set by the same steps without the 3" (4.4 would remove it as a casualty: "Any model that cannot
  find a legal position maintaining the Coherency Link is immediately removed"; not modelled).
* A free spot: on the table, over the placement's level (``Placement.level`` is kept) and off the
  footprints a base there may not overlap (as ``place``), overlapping no base (every centre of the
  other placements and of the Engaged units, removed models included, so that boards read at full
  strength stay legal), and not Within 1" of an enemy Ground unit that is not Engaged ("cannot bring
  the Unit into Engagement with new Enemy Units").
* "Models cannot use this move to Disengage": if the unit would no longer be Engaged (7.2.1) with
  every unit it was Engaged with, nothing moves.
* The new placement's order follows the casualty policy and 8.7.5's tiers as ``place`` does (the
  unit's own order kept, the facing away from the nearest enemy model); its removed models keep their
  old centres at the end.

Mission Markers (8.9.1): a unit contests a marker only with a model "on the same elevation as the
marker". The markers are set on the battlefield (7.3.2) at the Deployment Card's points, read as on
the playmat (GROUND LEVEL), so a unit on a piece (MID or HIGH GROUND) never contests one.

Moves between levels (:meth:`World.route`, for ``scenario check``): 8.5.3 "The Leading Model cannot
change elevation unless it passes through an ACCESS POINT" and "Measure the actual path travelled".
Reading (simpler than the Charge's path search, :mod:`mathhammer.board.charge`): the Leading Model's
centre goes in straight lines on each level (walls and bases on the way are not looked at, as for a
Move on one level) and changes level only by passing an ACCESS POINT of the piece it climbs or
leaves (a point, or a segment sampled every ``PORTAL_STEP``), from there onto the nearest point of
the piece's top; each pass adds the piece's ``height`` (the climb counts, as in
:mod:`mathhammer.board.charge`; a piece without a ``height`` is refused, not guessed). A piece
without ACCESS POINTs is IMPASSABLE TERRAIN (part 11): no route onto or off it, but for a unit with Raptor
Strain ("change elevation without using ACCESS POINTS"), which climbs anywhere on a piece's edge. A Deploy starts at
the Entry Edge (8.5.5); FAQ v1.0: "If High Ground physically touches the player's Entry Edge, the
unit can be deployed directly on that terrain", read as: the top of a piece whose footprint touches
the Entry Edge is entered from the edge without an ACCESS POINT or a climb. A Flying unit "ignores
elevation. It does not use Access Points" and "moves point-to-point, measuring horizontally".

Every fact is cached by the placements and models left, so each board state is read once
(issue 5: geometry stays out of the Monte Carlo loop). Three computations are also kept with the
box of every point they tested against the other units' bases (a Charge path, the placement of a
charging unit, a Close Ranks move): a base farther than its radius + the unit's + 1" from that box
changes none of those tests, so a later board with the same bases near the box gets the same
answer without computing it again. A Charge is read first on the models near the Leading Model, for
paths up to 1, 2, 3, 4, 6 and 8 inches in turn (``World._charge_local``): a path that short stays near
its start, so its answer is kept under the content of those models alone, which many more board states
share.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, lru_cache, partial
from typing import Any, TypeVar

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from ..board.charge import ChargePath, charge_distance, crossings, examined_near
from ..board.engagement import ENGAGEMENT_RANGE, engaged
from ..board.facts import AttackFacts, weapon_facts
from ..board.los import line_of_sight
from ..board.model import EPS, MM_PER_INCH, Board, Model, Terrain, Unit, shape_bounds
from ..board.ranks import CONTACT, fighting_ranks
from ..starcraft.loadout import indomitable
from ..starcraft.model import Weapon
from . import fastranks
from .fast import Centres, clear_of, near_any
from .shared import SharedAnswers
from .spec import Scenario, ScenarioUnit

Coord = tuple[float, float]
#: Gap between neighbouring bases when a unit is set (inches).
GAP = 0.1
#: 8.9.1: "At least one model is Within 3" ... of the marker" (a 32 mm marker, 7.3.2).
CONTEST_RANGE = 3.0
MARKER_MM = 32.0
#: 8.8.1 step 1 CLOSE RANKS: "Choose a Leading Model and move it up to 3\"".
CLOSE_RANKS_MOVE = 3.0
#: Close Ranks sets a model In Coherency as :meth:`World.place` does: at most one base spacing and this
#: many inches from a model of the unit already set, with a Coherency Link to it (the module text).
COHERENCY_SLACK = 2.0
#: 4.4: "set each remaining model one at a time, Wholly Within 3" of the Leading Model" (one base size per
#: unit, so a centre at most this far from the Leading Model's).
WHOLLY_WITHIN = 3.0
#: 8.7.7 step 4 Priority B: the edge gaps (inches) at which spots Within the Engagement Range of a target
#: model are tried, 36 directions each.
B_GAPS = (0.25, 0.5, 0.75, 0.99)


#: :meth:`World.charge_length` reads a Charge on the models near the Leading Model first, for paths up to each of
#: these lengths (inches) in turn, before the whole board (:meth:`World._charge_local`).
CHARGE_STEPS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)


@dataclass(frozen=True)
class Placement:
    """A unit's models set on the table: centres in removal order reversed (the Leading Model first).

    ``level``: the id of the terrain piece every model stands on (its ``stands_on``), or None on the
    playmat (GROUND LEVEL).
    """

    unit: str
    centres: tuple[Coord, ...]
    level: str | None = None


class _Auto(Enum):
    AUTO = 0


#: ``World.place(on=AUTO)``: the level of the Leading Model's point (:meth:`World.level_at`).
AUTO = _Auto.AUTO


@dataclass(frozen=True)
class Route:
    """The Leading Model's way between two points on two levels (:meth:`World.route`).

    Attributes:
        length: inches travelled, climbs included (``inf``: no way, e.g. IMPASSABLE TERRAIN).
        climb: the part of ``length`` that is climbing (the ``height`` of each piece passed).
        via: the pieces whose ACCESS POINT is passed, in order.
        no_height: the pieces passed that have no ``height`` (the climb cannot be counted).
    """

    length: float
    climb: float = 0.0
    via: tuple[str, ...] = ()
    no_height: tuple[str, ...] = ()


#: a Force Field token's base (Force Field, Solid-Field Projectors): taken as 32 mm across, as every token here (the
#: rules give tokens "their own base" but no size; 32 mm is the Mission Markers')
FIELD_RADIUS = 16 / MM_PER_INCH


def force_field_piece(centre: Coord, i: int) -> Terrain:
    """A Force Field token as the Charge path search reads it: "Units of Size 2 or lower cannot move across Force
    Fields", a Size 2 footprint (a 24-gon round its base) that a Leading Model cannot move through (8.5.3)."""
    x, y = centre
    corners = tuple(
        (x + FIELD_RADIUS * math.cos(2 * math.pi * k / 24), y + FIELD_RADIUS * math.sin(2 * math.pi * k / 24))
        for k in range(24)
    )
    return Terrain(f"force-field-{i}", corners, size=2)


def horizontal_coherency(su: ScenarioUnit) -> float:
    """4.4: how far from the Leading Model the other models are set ("Wholly Within 3\" of the Leading Model", read
    as :data:`WHOLLY_WITHIN` between centres); a ``coherency`` effect sets it (Squadron: "This Unit's Horizontal
    Coherency is 4\"")."""
    found = [e.value for a in su.abilities for e in a.effects if e.kind == "coherency"]
    return float(max(found)) if found else WHOLLY_WITHIN


def mobility(su: ScenarioUnit) -> tuple[int, bool]:
    """How the unit moves across terrain: the Size of IMPASSABLE TERRAIN it moves through (0: none) and whether it
    changes elevation without ACCESS POINTS (Raptor Strain: ``move_through`` 4 and ``free_climb``)."""
    effects = [e for a in su.abilities for e in a.effects]
    through = max((e.value for e in effects if e.kind == "move_through"), default=0)
    return int(through), any(e.kind == "free_climb" for e in effects)


def _edge_point(edge: str, x: float, y: float, width: float, depth: float) -> Coord:
    return {"south": (x, 0.0), "north": (x, depth), "west": (0.0, y), "east": (width, y)}[edge]


#: the direction of each table edge from the middle (a deployed unit's models are set behind its Leading Model)
EDGE_REAR: dict[str, Coord] = {"south": (0.0, -1.0), "north": (0.0, 1.0), "west": (-1.0, 0.0), "east": (1.0, 0.0)}


def edge_distance(edge: str, point: Coord, width: float, depth: float) -> float:
    """Distance from a player's Entry Edge to a point (8.5.5)."""
    x, y = point
    return {"south": y, "north": depth - y, "west": x, "east": width - x}[edge]


class _GridFallbackError(Exception):
    """:meth:`World._close_ranks` reached its grid fallback with only the near units given; ``lead_to``:
    where its Leading Model ends (the grid is laid around it)."""

    def __init__(self, lead_to: Coord) -> None:
        super().__init__(lead_to)
        self.lead_to = lead_to


#: How far from its Leading Model :meth:`World.place` first looks for spots with only the units near it.
PLACE_NEAR = 3.5

#: The Close Ranks grid fallback: spots ``lead_to + step * (a + b / 2, b * sqrt(3) / 2)`` for a, b in
#: -GRID_SPAN..GRID_SPAN (``step``: a base and a gap).
GRID_SPAN = 6


def close_ranks_grid(lead_to: Coord, step: float) -> np.ndarray:
    """The spots of the Close Ranks grid fallback around the Leading Model (a hexagonal grid, rows)."""
    return np.asarray(lead_to, dtype=float) + _grid_offsets(step)


@lru_cache(maxsize=64)
def _grid_offsets(step: float) -> np.ndarray:
    """:func:`close_ranks_grid` less the Leading Model's centre (each coordinate its centre's + this)."""
    span = range(-GRID_SPAN, GRID_SPAN + 1)
    out = np.asarray([(step * (a + 0.5 * b), step * (math.sqrt(3) / 2) * b) for a in span for b in span])
    out.setflags(write=False)
    return out


def close_ranks_grid_box(lead_to: Coord, step: float) -> tuple[np.ndarray, np.ndarray]:
    """A box holding every spot of :func:`close_ranks_grid`: ``1.5 * GRID_SPAN`` steps across and
    ``sqrt(3) / 2 * GRID_SPAN`` up or down of the Leading Model, and 0.01" more."""
    half = step * np.array([1.5 * GRID_SPAN, math.sqrt(3) / 2 * GRID_SPAN]) + 0.01
    return np.asarray(lead_to) - half, np.asarray(lead_to) + half


#: The 36 directions in which spots in Base-to-Base contact are tried (unit vectors, rows)
_ANGLES = np.linspace(0.0, 2 * math.pi, 36, endpoint=False)
_RING = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)


def _grow_box(box: list[float], pts: np.ndarray) -> None:
    """Grow ``box`` ([x0, y0, x1, y1]) to hold the points ``pts`` (rows)."""
    if pts.size:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        box[:] = [min(box[0], lo[0]), min(box[1], lo[1]), max(box[2], hi[0]), max(box[3], hi[1])]


def _join_box(box: list[float] | None, other: list[float]) -> None:
    """Grow ``box`` (if any) to hold the box ``other`` (nothing if ``other`` holds no point)."""
    if box is not None and other[0] <= other[2] and other[1] <= other[3]:
        box[:] = [min(box[0], other[0]), min(box[1], other[1]), max(box[2], other[2]), max(box[3], other[3])]


_Base = TypeVar("_Base", bound=tuple[Any, ...])


def _bases_near(bases: list[_Base], box: list[float], r: float) -> frozenset[_Base]:
    """The ``bases`` (tuples starting with centre and radius) that can change a test of a base of radius ``r``
    at a point of ``box`` ([x0, y0, x1, y1]): centre within their radius + ``r`` + 1" (and a margin) of it
    (an overlap, or an enemy Within the Engagement Range)."""
    x0, y0, x1, y1 = box
    out = []
    for b in bases:
        (x, y), rad = b[0], b[1]
        dx, dy = x0 - x, y0 - y  # max(x0 - x, x - x1, 0.0), the same in y, without the calls
        if x - x1 > dx:
            dx = x - x1
        if y - y1 > dy:
            dy = y - y1
        dx = dx if dx > 0.0 else 0.0
        dy = dy if dy > 0.0 else 0.0
        if (dx == 0.0 and dy == 0.0) or math.hypot(dx, dy) <= r + rad + ENGAGEMENT_RANGE + 0.01:
            out.append(b)
    return frozenset(out)


_SpotsEntry = tuple[list[float], frozenset[tuple[Coord, float, bool]], list[Coord] | None]


_ChargeEntry = tuple[list[float], frozenset[tuple[int, int, int]], tuple[float, Coord | None]]


_CloseEntry = tuple[list[float], frozenset[tuple[Coord, float, bool, bool]], "int | Coord"]


class World:
    """Placements and board facts for one scenario, cached."""

    def __init__(self, scn: Scenario) -> None:
        self.scn = scn
        self.board = scn.board
        #: ``[policy] casualties``: the order of every placement (the module text); fixed per World,
        #: so the placement cache needs no policy in its key.
        self.casualties = scn.policy.casualties
        self.uids = list(scn.units)
        self._radii: dict[str, float] = {}  # per unit: its base radius (_radius)
        self.index = {u: i for i, u in enumerate(self.uids)}
        #: per unit, :func:`mobility` (Raptor Strain)
        self.mobility = {u: mobility(su) for u, su in scn.units.items()}
        self.placements: list[Placement] = []
        #: answers of costly geometry shared with the other forked workers (parallel.play), or None
        self.shared: SharedAnswers | None = None
        self._contents: dict[int, int] = {}
        self._packed = Centres()  # every placement's centres, for the compiled near tests (near_many, near_box_many)
        self._place_cache: dict[tuple[object, ...], int | None] = {}
        self._placed: dict[tuple[object, ...], int | None] = {}  # place(): its arguments as given -> the answer
        self._boards: dict[tuple[object, ...], Board] = {}
        self._models: dict[int, tuple[Model, ...]] = {}
        self._contest: dict[tuple[int, int], float] = {}
        self._facts: dict[tuple[object, ...], object] = {}
        self._charges: dict[tuple[object, ...], tuple[float, Coord | None]] = {}
        # _charge_local: (charger, its Leading Model, the step, the models near it by content, ...) -> the answer
        self._local_charges: dict[tuple[object, ...], tuple[float, Coord | None]] = {}
        self._near: dict[tuple[int, int, float], bool] = {}
        self._within: dict[tuple[int, int, int, int, float], int] = {}
        self._sight: dict[tuple[int, int, int, int], bool] = {}
        self._near_marker: dict[tuple[int, int, float], int] = {}
        self._pid: dict[Placement, int] = {}
        self._pairs: dict[tuple[int, int, int, int], bool] = {}
        self._pair_sets: dict[tuple[tuple[int, ...], tuple[int, ...]], frozenset[tuple[str, str]]] = {}
        self._centre_boxes: dict[int, tuple[float, float, float, float, float]] = {}
        self._strikers: dict[tuple[object, ...], int] = {}
        self._blockers: dict[str | None, list[BaseGeometry]] = {}
        self._tops: dict[str, BaseGeometry] = {}
        self._levels: dict[Coord, str | None] = {}
        self._close: dict[tuple[object, ...], int] = {}
        self._close_lead: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        # _charge_spots_memo: (unit, Leading Model, ...) -> [(box, the other bases near it, the spots)]
        self._spots_memo: dict[tuple[object, ...], list[_SpotsEntry]] = {}
        # _charge_memo: (charger, targets, reach) -> [(box examined, other units near it, the answer)]
        self._charge_entries: dict[tuple[object, ...], list[_ChargeEntry]] = {}
        # _close_memo: (unit's placement, models left, Engaged units, mode) -> [(box, bases near it, answer)]
        self._close_memos: dict[tuple[object, ...], list[_CloseEntry]] = {}
        self._engaged_before: dict[tuple[object, ...], frozenset[str]] = {}
        self._close_boxes: dict[tuple[object, ...], tuple[np.ndarray | None, np.ndarray | None, float]] = {}
        self._near_boxes: dict[tuple[object, int], bool] = {}
        self._close_grid: dict[tuple[object, ...], int] = {}
        self._grid_orders: dict[tuple[int, float, Coord], list[Coord]] = {}
        self._place_near: dict[tuple[object, ...], int | None] = {}
        self._centre_arrays: dict[int, np.ndarray] = {}
        self._respawns: dict[tuple[object, ...], tuple[int, int]] = {}
        #: Close Ranks' search in compiled code (fastranks); False: its Python reading (the tests compare the two)
        self.compiled_ranks = True
        self._packs: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    # ---------------------------------------------------------------- levels
    @cached_property
    def surfaces(self) -> dict[str, Terrain]:
        """The pieces a model can stand on (a horizontal top, ``surface = true``)."""
        return {t.id: t for t in self.board.terrain if t.surface}

    def level_at(self, point: Coord) -> str | None:
        """The highest piece with a horizontal top whose footprint holds ``point``, or None (the playmat)."""
        key = (round(point[0], 6), round(point[1], 6))
        if key in self._levels:
            return self._levels[key]
        best: str | None = None
        depth = 0
        here = Point(point)
        for t in self.surfaces.values():
            if self._top(t.id).contains(here):
                d = len(self.board.stack(t.id))
                if d > depth:
                    best, depth = t.id, d
        self._levels[key] = best
        return best

    def _level_blockers(self, level: str | None) -> list[BaseGeometry]:
        """Footprints a base on ``level`` may not overlap: every piece but the Tokens and those under it."""
        hit = self._blockers.get(level)
        if hit is None:
            under = {p.id for p in self.board.stack(level)}
            hit = self._blockers[level] = [t.polygon for t in self.board.terrain if not t.token and t.id not in under]
            for g in hit:
                shapely.prepare(g)
        return hit

    def _top(self, level: str) -> BaseGeometry:
        """Where a base centre on the piece ``level`` may be: over its footprint."""
        hit = self._tops.get(level)
        if hit is None:
            hit = self._tops[level] = self.board.pieces[level].polygon.buffer(EPS)
            shapely.prepare(hit)
        return hit

    # ---------------------------------------------------------------- moves between levels
    def route(
        self,
        start: Coord | None,
        start_level: str | None,
        end: Coord,
        end_level: str | None,
        *,
        edge: str | None = None,
        flying: bool = False,
        free_climb: bool = False,
    ) -> Route:
        """The shortest way of the Leading Model's centre from ``start`` to ``end`` (the module text).

        ``start`` None: a Deploy from the Entry Edge ``edge`` (8.5.5; the length is then the
        distance of ``end`` from the edge plus the climbs, as ``scenario check`` measures a Deploy).
        Levels change only through ACCESS POINTs (8.5.3), each adding the piece's ``height``; with ``free_climb``
        (Raptor Strain: "change elevation without using ACCESS POINTS") anywhere on a piece's edge, sampled every
        :data:`~mathhammer.board.charge.CLIMB_STEP` inches.
        """
        w, d = self.board.width, self.board.depth
        if flying:  # FLYING: "ignores elevation", "moves point-to-point, measuring horizontally"
            if start is None:
                return Route(edge_distance(edge or "south", end, w, d))
            return Route(math.dist(start, end))
        # nodes: (level, point); 0 the start (a Deploy: the Entry Edge), 1 the end
        nodes: list[tuple[str | None, Coord]] = [(start_level, start or end), (end_level, end)]
        links: dict[int, list[tuple[int, float, str]]] = {}
        for piece in self.surfaces.values():
            for x in crossings(piece, free_climb):
                up = nearest_points(piece.polygon, Point(x))[0]
                up_xy = (float(up.x), float(up.y))
                lo, hi = len(nodes), len(nodes) + 1
                nodes.append((piece.stands_on, x))
                nodes.append((piece.id, up_xy))
                cost = math.dist(x, up_xy) + (piece.height or 0.0)
                links.setdefault(lo, []).append((hi, cost, piece.id))
                links.setdefault(hi, []).append((lo, cost, piece.id))
        # a Deploy enters the playmat, or (FAQ v1.0) the top of a piece touching the Entry Edge
        entry: set[str | None] = {None}
        if start is None:
            line = {
                "south": ((0.0, 0.0), (w, 0.0)),
                "north": ((0.0, d), (w, d)),
                "west": ((0.0, 0.0), (0.0, d)),
                "east": ((w, 0.0), (w, d)),
            }[edge or "south"]
            edge_line = shapely.LineString(line)
            entry |= {t.id for t in self.surfaces.values() if t.polygon.distance(edge_line) <= EPS}

        def leg(i: int, j: int) -> float | None:
            """A straight move from node i to node j on one level, or None."""
            if i == 0 and start is None:
                return edge_distance(edge or "south", nodes[j][1], w, d) if nodes[j][0] in entry else None
            if nodes[i][0] != nodes[j][0]:
                return None
            return math.dist(nodes[i][1], nodes[j][1])

        dist = [math.inf] * len(nodes)
        prev: list[tuple[int, str | None]] = [(-1, None)] * len(nodes)
        dist[0] = 0.0
        heap = [(0.0, 0)]
        done = [False] * len(nodes)
        while heap:
            dd, i = heapq.heappop(heap)
            if done[i]:
                continue
            done[i] = True
            if i == 1:
                break
            steps: list[tuple[int, float, str | None]] = [
                (j, c, None) for j in range(1, len(nodes)) if not done[j] and (c := leg(i, j)) is not None
            ]
            steps += [(j, c, p) for j, c, p in links.get(i, ()) if not done[j]]
            for j, c, p in steps:
                if dd + c < dist[j] - 1e-12:
                    dist[j] = dd + c
                    prev[j] = (i, p)
                    heapq.heappush(heap, (dist[j], j))
        if math.isinf(dist[1]):
            return Route(math.inf)
        via: list[str] = []
        k = 1
        while k > 0:
            k, p = prev[k]
            if p is not None:
                via.append(p)
        via.reverse()
        climb = sum(self.board.pieces[p].height or 0.0 for p in via)
        no_height = tuple(dict.fromkeys(p for p in via if self.board.pieces[p].height is None))
        return Route(dist[1], climb, tuple(via), no_height)

    # ---------------------------------------------------------------- placing
    def _blocked(
        self,
        centre: Coord,
        r: float,
        others: list[tuple[Coord, float, bool]],
        enemy_free: bool,
        level: str | None = None,
    ) -> bool:
        b = self.board
        x, y = centre
        if x - r < -EPS or y - r < -EPS or x + r > b.width + EPS or y + r > b.depth + EPS:
            return True
        if level is not None and not self._top(level).contains(Point(centre)):
            return True  # FAQ v1.0 (Wobbly Model Syndrome): the centre stays over the piece
        # only pieces whose box meets the disc's box can meet the disc (its polygon lies in that box)
        near = []
        for poly in self._level_blockers(level):
            x0, y0, x1, y1 = shape_bounds(poly)
            if x0 <= x + r and x - r <= x1 and y0 <= y + r and y - r <= y1:
                near.append(poly)
        if near:
            disc = Point(centre).buffer(r, quad_segs=8)
            if any(poly.intersects(disc) for poly in near):
                return True
        for (ox, oy), orad, enemy in others:
            gap = math.dist(centre, (ox, oy)) - r - orad
            if gap < GAP / 2:
                return True
            if enemy and enemy_free and gap <= ENGAGEMENT_RANGE + EPS:
                return True
        return False

    def place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...] = (),
        on: str | _Auto | None = AUTO,
        targets_left: tuple[tuple[str, int], ...] = (),
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
        """
        asked = (su.id, lead, rear, occupied, allowed_enemies, on, targets_left)  # the arguments as given
        hit = self._placed.get(asked, -2)
        if hit != -2:
            return hit
        hit = self._placed[asked] = self._place(su, lead, rear, occupied, allowed_enemies, on, targets_left)
        return hit

    def _place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        on: str | _Auto | None,
        targets_left: tuple[tuple[str, int], ...],
    ) -> int | None:
        """:meth:`place`, kept under its rounded arguments."""
        level = self.level_at(lead) if on is AUTO else on
        assert not isinstance(level, _Auto)
        if level is not None and level not in self.surfaces:
            raise ValueError(f"level {level!r}: not a terrain piece with a horizontal top (surface = true)")
        key = (
            su.id,
            round(lead[0], 4),
            round(lead[1], 4),
            round(rear[0], 3),
            round(rear[1], 3),
            occupied,
            allowed_enemies,
            level,
            targets_left,
        )
        if key in self._place_cache:
            return self._place_cache[key]
        r = su.base_mm / MM_PER_INCH / 2
        if not allowed_enemies:
            # first with the units near the Leading Model only: the answer holds for every board with the
            # same units there, unless the grid had to look beyond PLACE_NEAR (then: the units in reach of
            # every spot it may look at, below)
            at = np.asarray(lead, dtype=float)
            reach = PLACE_NEAR + r + ENGAGEMENT_RANGE + 0.01
            small = tuple(pid for pid in occupied if self.near_box(("lead", lead, reach), pid, at, at, reach))
            small_key = (*key[:5], small, level)
            hit = self._place_near.get(small_key, -2)
            if hit == -2:
                hit = self._place_near[small_key] = self._place_grid(su, lead, rear, small, level, PLACE_NEAR)
            if hit != -1:
                self._place_cache[key] = hit
                return hit
        near = self._near_lead(su, lead, r, occupied, allowed_enemies, dict(targets_left))
        if near != occupied:  # the same answer as with every unit (the far ones cannot touch a spot looked at)
            near_key = (*key[:5], near, *key[6:])
            hit = self._place_cache.get(near_key, -2)
            if hit == -2:
                hit = self._place_cache[near_key] = self.place(
                    su, lead, rear, near, allowed_enemies, level, targets_left
                )
            self._place_cache[key] = hit
            return hit
        if not allowed_enemies or su.flying:  # a Move or a Deploy (a Flying unit cannot Charge, 8.7.7)
            moved = self._place_cache[key] = self._place_grid(
                su, lead, rear, occupied, level, math.inf, allowed_enemies
            )
            return moved
        charged = self._place_cache[key] = self.charge_place(
            su, lead, rear, occupied, allowed_enemies, targets_left, level
        )
        return charged

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
        """:meth:`place` for a charging unit (8.7.7 step 4), with ``occupied`` as given (not reduced, not cached).

        ``box`` ([x0, y0, x1, y1]): grown to hold the Leading Model and every spot tested against the other
        bases. The answer depends on those bases only through the ones within their radius + the unit's
        radius + 1" of that box (:meth:`bases_test`): the test of the Leading Model's spot, each spot's test
        (:meth:`_charge_spots`), and 8.7.5's tiers (an enemy Within 1" of a spot set) read no others.
        """
        level = self.level_at(lead) if level is AUTO else level
        assert not isinstance(level, _Auto)
        r = su.base_mm / MM_PER_INCH / 2
        if box is not None:
            _grow_box(box, np.asarray([lead], dtype=float))
        others, foes = self._others_foes(su, occupied, allowed_enemies)
        result: int | None = None
        if not self._blocked(lead, r, others, True, level):
            left = dict(targets_left)
            live = [
                (c, self._radius(pid))
                for pid in occupied
                if self.placements[pid].unit in allowed_enemies
                for c in self.placements[pid].centres[
                    : left.get(self.placements[pid].unit, len(self.placements[pid].centres))
                ]
            ]
            spots = self._charge_spots_memo(su, lead, r, level, others, live, box)
            if spots is not None:
                norm = math.hypot(*rear) or 1.0
                # 8.7.5's tiers against the targets' live models (the order is fixed here, see the module text)
                here = {c for c, _ in live}
                live_foes = [f for f in foes if f[0] not in allowed_enemies or f[1] in here]
                spots = self._casualty_order(spots, (rear[0] / norm, rear[1] / norm), r, live_foes)
                result = self._intern(Placement(su.id, tuple(spots), level))
        return result

    def bases_test(self, su: ScenarioUnit, box: list[float]) -> Callable[[int], bool]:
        """Has a placement a base that can change a test of a base of ``su`` at a point of ``box`` (an overlap, an
        enemy Within 1"; :func:`_bases_near`, with a margin)?"""
        reach = su.base_mm / MM_PER_INCH / 2 + ENGAGEMENT_RANGE + 0.02
        lo, hi = np.asarray(box[:2], dtype=float), np.asarray(box[2:], dtype=float)
        key = ("bases", tuple(box), reach)
        return lambda pid: self.near_box(key, pid, lo, hi, reach)

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
    ) -> int | None:
        """:meth:`place` for a Move or a Deploy: the Leading Model at ``lead``, the others at the first free
        spots of the grid around it (:meth:`_grid_order`), kept together. -1 when the next spot to look
        at is farther than ``limit`` from ``lead`` (no spot farther was looked at: a base that far from
        every spot looked at, less both radii and 1", changed nothing)."""
        r = su.base_mm / MM_PER_INCH / 2
        others, foes = self._others_foes(su, occupied, allowed_enemies)
        if self._blocked(lead, r, others, True, level):
            return None
        step = 2 * r + GAP
        norm = math.hypot(*rear) or 1.0
        back = (rear[0] / norm, rear[1] / norm)
        centres = [lead]
        mine: list[tuple[Coord, float, bool]] = [(lead, r, False)]
        for dx, dy in self._grid_order(su.models, step, back):
            if len(centres) == su.models:
                break
            if math.hypot(dx, dy) > limit:
                return -1
            c = (lead[0] + dx, lead[1] + dy)
            if self._blocked(c, r, others + mine, True, level):
                continue
            if min(math.dist(c, m[0]) for m in mine) > step + 2.0:  # keep them together
                continue
            centres.append(c)
            mine.append((c, r, False))
        if len(centres) < su.models:
            return None
        centres = self._casualty_order(centres, back, r, foes)
        return self._intern(Placement(su.id, tuple(centres), level))

    def _grid_order(self, models: int, step: float, back: Coord) -> list[Coord]:
        """The offsets from the Leading Model of the hexagonal grid :meth:`place` tries, in its order:
        nearest first, a spot ahead of the Leading Model (against ``back``) scored its distance plus 0.6
        times how far ahead it is, ties by x then y (the order of the spots themselves, as one Leading
        Model is added to every offset). The same for every Leading Model, so read once per (models,
        spacing, direction)."""
        key = (models, step, back)
        hit = self._grid_orders.get(key)
        if hit is None:
            cands: list[tuple[float, Coord]] = []
            rings = math.ceil(math.sqrt(models)) + 3
            for i in range(-rings, rings + 1):
                for j in range(-rings, rings + 1):
                    if i == 0 and j == 0:
                        continue
                    dx = step * (i + 0.5 * j)
                    dy = step * (math.sqrt(3) / 2) * j
                    dist = math.hypot(dx, dy)
                    ahead = -(dx * back[0] + dy * back[1])
                    cands.append((dist + 0.6 * max(0.0, ahead) / step * step, (dx, dy)))
            cands.sort(key=lambda c: (round(c[0], 6), c[1]))
            hit = self._grid_orders[key] = [d for _, d in cands]
        return hit

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
        at = np.asarray(lead, dtype=float)
        box = ("lead", lead, reach)
        return tuple(
            pid for pid in occupied if self.placements[pid].unit in allowed or self.near_box(box, pid, at, at, reach)
        )

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
    ) -> Callable[[int], bool]:
        """Can another unit's placement (not a Charge target's) change :meth:`place` of ``su`` at ``lead``, with
        the targets at ``target_pids``? A placement that fails this test is one :meth:`place` leaves out both
        ways it reduces ``occupied`` (the units near the Leading Model, :meth:`_near_lead`), so ``place`` gives the
        same answer with or without it: the caller may pass only the placements that pass."""
        r = su.base_mm / MM_PER_INCH / 2
        at = np.asarray(lead, dtype=float)
        reach = self._lead_reach(su, lead, r, target_pids, dict(targets_left))
        small = PLACE_NEAR + r + ENGAGEMENT_RANGE + 0.01
        big_key, small_key = ("lead", lead, reach), ("lead", lead, small)
        return lambda pid: self.near_box(big_key, pid, at, at, reach) or self.near_box(small_key, pid, at, at, small)

    def _intern(self, placement: Placement) -> int:
        """The id of ``placement``: the same models in the same places get one id, one board state."""
        result = self._pid.get(placement)
        if result is None:
            self.placements.append(placement)
            result = self._pid[placement] = len(self.placements) - 1
        return result

    def content(self, pid: int) -> int:
        """A 128-bit digest of placement ``pid``'s content (unit, centres, level): the same in every process, where
        ids are each process's own (:class:`~mathhammer.scenario.shared.SharedAnswers`); -1 for no placement."""
        if pid < 0:
            return -1
        hit = self._contents.get(pid)
        if hit is None:
            hit = self._contents[pid] = int.from_bytes(
                hashlib.blake2b(repr(self.placements[pid]).encode(), digest_size=16).digest(), "little"
            )
        return hit

    def _ask(self, question: Callable[[], tuple[object, ...]], compute: Callable[[], Any]) -> Any:
        """``compute()``, or the answer another forked worker published for ``question()`` (the question by content:
        :meth:`content` for placements; read only where answers are shared), publishing a computed one
        (:class:`~mathhammer.scenario.shared.SharedAnswers`; for answers that are a function of the question alone)."""
        shared = self.shared
        if shared is None:
            return compute()
        asked = question()
        found = shared.get(asked)
        if found:
            shared.hit()
            return found[0]
        answer = compute()
        shared.put(asked, answer)
        return answer

    def _shared_entry(
        self, asked: tuple[object, ...], near: Callable[[list[float]], Any], content: Callable[[Any], Any] = lambda x: x
    ) -> tuple[list[float], Any, Any] | None:
        """An answer another forked worker published for ``asked`` with the box it examined, taken where the bases
        near that box here (``near(box)``, compared as ``content(...)``, what the other published) are the ones it
        found: the rule of the local box memos. Returns (box, the bases near it here, the answer), or None."""
        shared = self.shared
        if shared is not None:
            for box, there, answer in shared.get(asked):
                here = near(box)
                if content(here) == there:
                    shared.hit()
                    return box, here, answer
        return None

    def _charge_spots_memo(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        level: str | None,
        others: list[tuple[Coord, float, bool]],
        live: list[tuple[Coord, float]],
        seen: list[float] | None = None,
    ) -> list[Coord] | None:
        """:meth:`_charge_spots`, kept with the box of every spot it tested against the other bases.

        The other bases enter only the test of a spot, and a base farther than its radius + ``r`` + 1"
        from a spot cannot change that test. So a second call with the same unit, Leading Model, level
        and target models, whose other bases within that reach of the first call's box are the same,
        tests every spot the first one tested with the same answer, step by step, and ends the same.
        ``seen``: grown to hold the box of the entry used.
        """
        asked = (su.id, lead, r, level, tuple(live))  # coordinates only: the same question in every process
        entries = self._spots_memo.setdefault(asked, [])
        read: dict[tuple[float, ...], frozenset[tuple[Coord, float, bool]]] = {}  # mostly one box: read it once
        for box, relevant, result in entries:
            key = tuple(box)
            here = read.get(key)
            if here is None:
                here = read[key] = _bases_near(others, box, r)
            if here == relevant:
                _join_box(seen, box)
                return result
        found = self._shared_entry(("spots", *asked), lambda box: _bases_near(others, box, r))
        if found is not None:  # what another forked worker found
            box, relevant, result = found
        else:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            result = self._charge_spots(su, lead, r, level, others, live, box)
            relevant = _bases_near(others, box, r)
            if self.shared is not None:
                self.shared.put(("spots", *asked), (box, relevant, result))
        entries.append((box, relevant, result))
        _join_box(seen, box)
        return result  # type: ignore[no-any-return]

    def _charge_spots(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        level: str | None,
        others: list[tuple[Coord, float, bool]],
        live: list[tuple[Coord, float]],
        box: list[float] | None = None,
    ) -> list[Coord] | None:
        """8.7.7 step 4: where the other models of a charging unit are set, the Leading Model at ``lead``.

        "Set remaining models In Coherency ... None may end Within the Engagement Range of a Unit not
        declared as a target. Placement priority: Priority A: Base-to-Base contact with declared
        target models (whenever physically possible). Priority B: Within the Engagement Range of
        targets (if Base-to-Base is impossible). Priority C: As close as possible to the Leading
        Model to maintain Coherency." Reading, one model at a time (the unit's order):

        * A: the free spot in Base-to-Base contact (bases 0.025" apart) with a live model of a target,
          nearest the Leading Model;
        * B: else a free spot with its base 0.25", 0.5", 0.75" or 0.99" from one (``B_GAPS``), nearest the
          Leading Model;
        * C: else a free spot in Base-to-Base contact with a model of the unit already set Within the
          Engagement Range (its Supporting Rank, 8.8.1 step 2), nearest the Leading Model; else the
          free spot of the hexagonal grid around the Leading Model (spacing: base + 0.1") nearest it.

        Each step looks first at the spots Wholly Within 3" of the Leading Model (4.4); a model that
        finds none there anywhere is set by the same steps without the 3".

        A free spot is on the table (over the level's top), off the footprints a base there may not
        overlap, at least 0.05" from every other base (0.025" from a target model or the unit's
        own), not Within 1" of an enemy Ground unit that is not a target, and In Coherency as
        :meth:`place` reads it (centre at most a base spacing + 2" from a model already set).
        ``live``: centres and radii of the targets' live models. None if a model finds no spot.
        ``box`` ([x0, y0, x1, y1]): grown to hold every spot tested against ``others``.
        """
        touch = CONTACT / 2
        apart = CONTACT / 2 - 1e-3
        step = 2 * r + GAP
        OC = np.asarray([c for c, _, _ in others], dtype=float).reshape(-1, 2)
        OR = np.asarray([g for _, g, _ in others], dtype=float)
        OEN = np.asarray([e for _, _, e in others], dtype=bool)
        LC = np.asarray([c for c, _ in live], dtype=float).reshape(-1, 2)
        LR = np.asarray([g for _, g in live], dtype=float)
        # a live target model's own spot is in ``others`` too (every centre of the placement): it may be touched
        target_spot = np.zeros(len(others), dtype=bool)
        if LC.size and OC.size:
            target_spot = (np.hypot(*(OC[:, None, :] - LC[None, :, :]).transpose(2, 0, 1)) < 1e-9).any(axis=1)
        ring = _RING
        rings = math.ceil(math.sqrt(su.models)) + 3

        def around(cs: np.ndarray, rs: np.ndarray | float, gap: float) -> np.ndarray:
            if cs.size == 0:
                return np.zeros((0, 2))
            rr = np.broadcast_to(np.asarray(rs, dtype=float), (cs.shape[0],))
            return (cs[:, None, :] + (r + rr + gap)[:, None, None] * ring[None, :, :]).reshape(-1, 2)

        def by_lead(pts: np.ndarray) -> np.ndarray:
            d = np.round(np.hypot(pts[:, 0] - lead[0], pts[:, 1] - lead[1]), 6)
            return pts[np.lexsort((pts[:, 1], pts[:, 0], d))]

        def static_ok(pts: np.ndarray) -> np.ndarray:
            ok = np.ones(pts.shape[0], dtype=bool)
            if box is not None:
                _grow_box(box, pts)
            if OC.size:
                g = np.sqrt(((pts[:, None, :] - OC[None, :, :]) ** 2).sum(axis=2)) - r - OR[None, :]
                need = np.where(target_spot, apart, GAP / 2)
                ok &= (g >= need[None, :] - 1e-12).all(axis=1)
                ok &= ~((g <= ENGAGEMENT_RANGE + EPS) & OEN[None, :]).any(axis=1)
            idx = np.flatnonzero(ok)
            if idx.size:
                ok[idx] = self._terrain_ok(pts[idx], r, level)
            return ok

        grid = np.asarray(
            [
                (lead[0] + step * (i + 0.5 * j), lead[1] + step * (math.sqrt(3) / 2) * j)
                for i in range(-rings, rings + 1)
                for j in range(-rings, rings + 1)
                if (i, j) != (0, 0)
            ]
        )
        tiers = [around(LC, LR, touch), np.vstack([around(LC, LR, g) for g in B_GAPS])]
        tiers = [by_lead(t) for t in tiers]
        grid = by_lead(grid)
        # static_ok per spot, read lazily in order (-1: not read yet): most spots are never looked at
        known = [np.full(t.shape[0], -1, dtype=np.int8) for t in (*tiers, grid)]
        set_: list[Coord] = [lead]
        within_lead = horizontal_coherency(su)

        def first_free(pts: np.ndarray, st: np.ndarray | None, wholly: bool) -> Coord | None:
            """The first spot of ``pts`` (in order) that is free and In Coherency with the models set
            (``wholly``: also Wholly Within 3" of the Leading Model); ``st``: what is known of
            ``static_ok`` there (updated)."""
            if pts.size == 0:
                return None
            if st is None:
                st = np.full(pts.shape[0], -1, dtype=np.int8)
            mine = np.asarray(set_, dtype=float)
            d = np.sqrt(((pts[:, None, :] - mine[None, :, :]) ** 2).sum(axis=2))
            ok = ((d - 2 * r) >= apart).all(axis=1) & (d <= step + COHERENCY_SLACK + EPS).any(axis=1)
            if wholly:
                ok &= d[:, 0] <= within_lead + EPS  # set_[0] is the Leading Model
            idx = np.flatnonzero(ok & (st != 0))
            for at in range(0, idx.size, 32):
                chunk = idx[at : at + 32]
                todo = chunk[st[chunk] < 0]
                if todo.size:
                    st[todo] = static_ok(pts[todo])
                good = chunk[st[chunk] == 1]
                if good.size:
                    return (float(pts[good[0], 0]), float(pts[good[0], 1]))
            return None

        def next_spot(wholly: bool) -> Coord | None:
            spot = first_free(tiers[0], known[0], wholly) or first_free(tiers[1], known[1], wholly)
            if spot is None:
                fighting = [
                    m
                    for m in set_
                    if LC.size and (np.hypot(LC[:, 0] - m[0], LC[:, 1] - m[1]) - r - LR <= ENGAGEMENT_RANGE + EPS).any()
                ]
                if fighting:
                    c = by_lead(around(np.asarray(fighting, dtype=float), r, touch))
                    spot = first_free(c, None, wholly)
            if spot is None:
                spot = first_free(grid, known[2], wholly)
            return spot

        for _ in range(su.models - 1):
            spot = next_spot(True) or next_spot(False)  # 4.4's 3" where there is room (the module text)
            if spot is None:
                return None
            set_.append(spot)
        return set_

    def _casualty_order(
        self, centres: list[Coord], back: Coord, r: float, foes: list[tuple[str, Coord, float]]
    ) -> list[Coord]:
        """The survivors' order (the module text): the ``casualties`` policy, then 8.7.5 for an Engaged unit."""
        lead, rest = centres[0], centres[1:]
        if self.casualties == "keep-front":

            def ahead(c: Coord) -> float:
                return -((c[0] - lead[0]) * back[0] + (c[1] - lead[1]) * back[1])

            rest = sorted(rest, key=lambda c: (-round(ahead(c), 6), round(math.dist(c, lead), 6), c))
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

    # ---------------------------------------------------------------- Close Ranks (8.8.1 step 1)
    def _walls(self, level: str | None, through: int = 0) -> list[BaseGeometry]:
        """Footprints the Leading Model cannot move through on ``level`` (8.5.3: Size 2+, GRASS excepted; ``through``:
        but IMPASSABLE TERRAIN of this Size or less, Raptor Strain)."""
        under = {p.id for p in self.board.stack(level)}
        return [
            t.polygon
            for t in self.board.terrain
            if t.size >= 2
            and not t.grass
            and not t.token
            and t.id not in under
            and not (t.size <= through and not t.access_points)
        ]

    def close_ranks(
        self,
        pid: int,
        alive: int,
        foes: tuple[tuple[int, int], ...],
        others: tuple[int, ...],
    ) -> int:
        """8.8.1 step 1 CLOSE RANKS: the unit's placement after pressing into the fight (the module text).

        ``pid``/``alive``: the unit (its first ``alive`` centres); ``foes``: the placements and models
        left of the Enemy Units it is Engaged with; ``others``: placements of the other units on the
        table (every centre an obstacle, as in :meth:`place`; an enemy Ground unit there must not come
        Within 1"). Returns a new placement id, or ``pid`` when nothing can move.
        """
        lo, hi, reach = self.close_box(pid, alive, foes)
        near = others if lo is None or hi is None else self._near_box(others, lo, hi, reach)
        hit = self.close_ranks_near(pid, alive, foes, near)
        if isinstance(hit, tuple):
            glo, ghi = hit
            hit = self.close_ranks_grid(pid, alive, foes, self._near_box(others, glo, ghi, reach))
        return hit

    def close_ranks_near(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], near: tuple[int, ...]
    ) -> int | tuple[np.ndarray, np.ndarray]:
        """:meth:`close_ranks` with ``near`` the other units near :meth:`close_box` (in their order).

        Returns the new placement id, or, where the move reaches its hexagonal-grid fallback (which
        looks farther), the box that also holds the grid: the caller then asks
        :meth:`close_ranks_grid` with the units near that box (within the same reach). Everything
        before the grid is as with ``near``; the box is convex, so every Coherency Link between two
        spots in it stays in it.
        """
        key = (pid, alive, foes, near)
        hit = self._close.get(key)
        if hit is None:
            try:
                hit = self._close_memo(pid, alive, foes, near, True)
            except _GridFallbackError as fallback:
                lo, hi, _ = self.close_box(pid, alive, foes)
                assert lo is not None and hi is not None
                glo, ghi = close_ranks_grid_box(fallback.lead_to, 2 * self._radius(pid) + GAP)
                hit = -1
                self._close_lead[key] = (np.minimum(lo, glo), np.maximum(hi, ghi))
            self._close[key] = hit
        return self._close_lead[key] if hit < 0 else hit

    def close_ranks_grid(self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], near: tuple[int, ...]) -> int:
        """:meth:`close_ranks` where it reaches the grid, ``near``: the units near the box
        :meth:`close_ranks_near` returned."""
        key = (pid, alive, foes, near)
        hit = self._close_grid.get(key)
        if hit is None:
            hit = self._close_grid[key] = self._close_memo(pid, alive, foes, near, False)
        return hit

    def _close_memo(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], others: tuple[int, ...], reduced: bool
    ) -> int:
        """:meth:`_close_ranks`, kept with the box of every spot, path point and Coherency Link it tested
        against the other units' bases.

        The other bases enter only those tests, and a base farther than its radius + the unit's + 1" from
        the box cannot change one. So a second call with the same unit, models left, Engaged units and
        mode, whose other bases near that box are the same, makes every test the same, step by step,
        and ends the same (the same placement, or the same grid fallback).
        """
        base = (pid, alive, foes, reduced)
        side = self.scn.units[self.placements[pid].unit].player
        bases: list[tuple[Coord, float, bool, bool]] = []
        for opid in others:
            other = self.scn.units[self.placements[opid].unit]
            rad = self._radius(opid)
            bases += [(c, rad, other.flying, other.player != side) for c in self.placements[opid].centres]
        r = self._radius(pid)
        entries = self._close_memos.setdefault(base, [])
        for box, relevant, kept in entries:
            if _bases_near(bases, box, r) == relevant:
                if isinstance(kept, tuple):
                    raise _GridFallbackError(kept)
                return kept
        found = None
        if self.shared is not None:  # what another forked worker found, by content (placement ids are its own)
            c = self.content
            asked = ("close", c(pid), alive, tuple((c(f), k) for f, k in foes), reduced)
            found = self._shared_entry(asked, lambda box: _bases_near(bases, box, r))
        answer: int | Coord
        if found is not None:
            box, relevant, kept = found
            answer = self._intern(kept) if isinstance(kept, Placement) else kept
        else:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            try:
                answer = self._close_ranks(pid, alive, foes, others, reduced, box)
            except _GridFallbackError as fallback:
                answer = fallback.lead_to
            relevant = _bases_near(bases, box, r)
            if self.shared is not None:
                self.shared.put(asked, (box, relevant, self.placements[answer] if isinstance(answer, int) else answer))
        entries.append((box, relevant, answer))
        if isinstance(answer, tuple):
            raise _GridFallbackError(answer)
        return answer

    def close_box(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...]
    ) -> tuple[np.ndarray | None, np.ndarray | None, float]:
        """:meth:`_close_box`, cached."""
        key = (pid, alive, foes)
        hit = self._close_boxes.get(key)
        if hit is None:
            hit = self._close_boxes[key] = self._close_box(pid, alive, foes)
        return hit

    def near_box(self, key: object, pid: int, lo: np.ndarray, hi: np.ndarray, reach: float) -> bool:
        """``pid in self._near_box((pid,), lo, hi, reach)``, cached under ``key`` (naming the box and reach)."""
        k = (key, pid)
        hit = self._near_boxes.get(k)
        if hit is None:
            if len(self._near_boxes) > 1 << 20:
                self._near_boxes.clear()
            hit = self._near_boxes[k] = bool(self._near_box((pid,), lo, hi, reach))
        return hit

    def _close_box(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...]
    ) -> tuple[np.ndarray | None, np.ndarray | None, float]:
        """The box holding every spot :meth:`_close_ranks` looks at short of its grid fallback, and the
        reach (less a base's radius) from it within which another unit's base can matter.

        Every such spot (the Leading Model's path, Base-to-Base rings around the Engaged models and
        around the unit's models Within 1" of them, old spots) has its centre in the box of the unit's
        and the Engaged models' centres grown by ``grow``; a base elsewhere can touch such a spot, a
        path or a Coherency Link, or be Within 1" of one, only if its centre is within
        ``r + its radius + 1"`` of that box. The cache keys keep only these units.
        """
        p = self.placements[pid]
        r = self._radius(pid)
        pts = list(p.centres[:alive])
        fr = 0.0
        for fpid, fk in foes:
            pts.extend(self.placements[fpid].centres[:fk])
            fr = max(fr, self._radius(fpid))
        reach = r + ENGAGEMENT_RANGE + 0.01
        if not pts:
            return None, None, reach
        xy = np.asarray(pts, dtype=float)
        grow = max(CLOSE_RANKS_MOVE, fr + 3 * r + ENGAGEMENT_RANGE + CONTACT) + 0.01
        return xy.min(axis=0) - grow, xy.max(axis=0) + grow, reach

    def _near_box(self, pids: tuple[int, ...], lo: np.ndarray, hi: np.ndarray, reach: float) -> tuple[int, ...]:
        """The placements of ``pids`` with a base within ``reach`` (centre distance less its radius) of the
        box ``lo``-``hi``, in order."""
        keep = []
        lx, ly, hx, hy = float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])
        for pid in pids:
            box = self._centre_boxes.get(pid)
            if box is None:
                c = self._centres(pid)
                box = self._centre_boxes[pid] = (
                    float(c[:, 0].min()),
                    float(c[:, 1].min()),
                    float(c[:, 0].max()),
                    float(c[:, 1].max()),
                    self._radius(pid),
                )
            # the box of the centres is farther than ``reach`` from ``lo``-``hi``: so is every centre
            dx = max(lx - box[2], box[0] - hx, 0.0)
            dy = max(ly - box[3], box[1] - hy, 0.0)
            if dx * dx + dy * dy > (reach + box[4] + 1e-9) ** 2:
                continue
            oc = self._centres(pid)
            d = np.maximum(np.maximum(lo - oc, oc - hi), 0.0)
            if (np.hypot(d[:, 0], d[:, 1]) <= reach + self._radius(pid)).any():
                keep.append(pid)
        return tuple(keep)

    def _centres(self, pid: int) -> np.ndarray:
        hit = self._centre_arrays.get(pid)
        if hit is None:
            hit = self._centre_arrays[pid] = np.asarray(self.placements[pid].centres, dtype=float).reshape(-1, 2)
        return hit

    def _terrain_ok(
        self, pts: np.ndarray, r: float, level: str | None, walls_only: bool = False, through: int = 0
    ) -> np.ndarray:
        """Per point (rows of ``pts``): a base of radius ``r`` there is on the table and (on ``level``) centred
        over the piece's top, and clear of the footprints it may not overlap (``walls_only``: only those
        the Leading Model cannot move through, :meth:`_walls` with ``through``)."""
        b = self.board
        x, y = pts[:, 0], pts[:, 1]
        ok = (x - r >= -EPS) & (y - r >= -EPS) & (x + r <= b.width + EPS) & (y + r <= b.depth + EPS)
        if not ok.any():
            return ok
        if level is not None:
            ok &= shapely.contains_xy(self._top(level), x, y)
        geo: np.ndarray | None = None
        plo, phi = pts.min(axis=0), pts.max(axis=0)
        for poly in self._walls(level, through) if walls_only else self._level_blockers(level):
            x0, y0, x1, y1 = shape_bounds(poly)
            # the footprint's box farther than r from the points' box: no point is within r of it
            if x0 - phi[0] > r + 1e-6 or plo[0] - x1 > r + 1e-6 or y0 - phi[1] > r + 1e-6 or plo[1] - y1 > r + 1e-6:
                continue
            if geo is None:
                geo = shapely.points(pts)
            ok &= shapely.distance(poly, geo) > r + 1e-9
        return ok

    def _close_ranks(
        self,
        pid: int,
        alive: int,
        foes: tuple[tuple[int, int], ...],
        others: tuple[int, ...],
        reduced: bool,
        box: list[float] | None = None,
    ) -> int:
        """:meth:`close_ranks` uncached; ``reduced``: ``others`` holds only the near ones (raises
        :class:`_GridFallbackError` where the grid fallback is reached); ``box`` ([x0, y0, x1, y1]): grown
        to hold every point and Coherency Link tested against the bases of ``others``."""

        def seen(pts: np.ndarray) -> None:
            if box is not None:
                _grow_box(box, pts)

        p = self.placements[pid]
        su = self.scn.units[p.unit]
        if su.flying or alive <= 0:
            return pid
        level = p.level
        through = self.mobility[p.unit][0]  # Raptor Strain: through IMPASSABLE TERRAIN of Size 4 or less
        r = su.base_mm / MM_PER_INCH / 2
        touch = CONTACT / 2  # a spot set in Base-to-Base contact: bases 0.025" apart
        apart = CONTACT / 2 - 1e-3  # no two bases closer than this (never overlapping)
        cent: list[Coord] = list(p.centres[:alive])
        fc_l: list[Coord] = []
        fr_l: list[float] = []
        for fpid, fk in foes:  # live models of the Engaged enemy units
            fp = self.placements[fpid]
            frad = self.scn.units[fp.unit].base_mm / MM_PER_INCH / 2
            fc_l.extend(fp.centres[:fk])
            fr_l.extend([frad] * len(fp.centres[:fk]))
        oc_l: list[Coord] = []
        or_l: list[float] = []
        ofly: list[bool] = []
        oen: list[bool] = []
        for opid in others:  # other units' bases (every centre, as in ``place``)
            op = self.placements[opid]
            other = self.scn.units[op.unit]
            orad = other.base_mm / MM_PER_INCH / 2
            for c in op.centres:
                oc_l.append(c)
                or_l.append(orad)
                ofly.append(other.flying)
                oen.append(other.player != su.player and not other.flying)
        if not fc_l:
            return pid
        FC, FR = np.asarray(fc_l, dtype=float).reshape(-1, 2), np.asarray(fr_l)
        # every centre of the placements is kept clear (the removed models' too): boards read with a unit at
        # full strength (``Simulation._local_state``) stay legal
        ghosts = [(c, self._radius(fpid)) for fpid, fk in foes for c in self.placements[fpid].centres[fk:]]
        ghosts += [(c, r) for c in p.centres[alive:]]
        GC = np.asarray([c for c, _ in ghosts], dtype=float).reshape(-1, 2)
        GR = np.asarray([g for _, g in ghosts])
        OC, OR = np.asarray(oc_l, dtype=float).reshape(-1, 2), np.asarray(or_l)
        OFLY, OEN = np.asarray(ofly, dtype=bool), np.asarray(oen, dtype=bool)

        def gaps(pts: np.ndarray, cs: np.ndarray, rs: np.ndarray | float) -> np.ndarray:
            """Edge gaps, points x bases."""
            if cs.size == 0:
                return np.full((pts.shape[0], 0), np.inf)
            return np.sqrt(((pts[:, None, :] - cs[None, :, :]) ** 2).sum(axis=2)) - r - rs

        foe_gaps: dict[Coord, float] = {}

        def foe_gap(c: Coord) -> float:
            hit = foe_gaps.get(c)
            if hit is None:
                hit = foe_gaps[c] = float(gaps(np.asarray([c]), FC, FR).min())
            return hit

        cent_gaps = gaps(np.asarray(cent, dtype=float).reshape(-1, 2), FC, FR)  # the unit's models x Engaged models
        for c, g in zip(cent, cent_gaps.min(axis=1).tolist(), strict=True):
            foe_gaps[c] = g
        pinned = [foe_gap(c) <= CONTACT + EPS for c in cent]
        movable = [i for i in range(alive) if not pinned[i]]
        if not movable:
            return pid
        before = self._engaged_before.get((pid, alive, foes))
        if before is None:
            before = self._engaged_before[(pid, alive, foes)] = self._engaged_foes(su, cent, level, foes)
        if not before:
            return pid

        # every base a spot must keep ``apart`` from (the Engaged models, the removed ones', the other units'), and
        # those of enemies it must not come Within 1" of; for the Leading Model's way, those it may not cross
        all_c = np.concatenate([FC, GC, OC]).reshape(-1, 2)
        all_r = np.concatenate([FR, GR, OR]).astype(float)
        all_solid = np.ones(len(all_r), dtype=bool)
        all_enemy = np.concatenate([np.zeros(len(FR) + len(GR), dtype=bool), OEN])
        way_c = np.concatenate([FC, OC]).reshape(-1, 2)
        way_r = np.concatenate([FR, OR]).astype(float)
        way_solid = np.concatenate([np.ones(len(FR), dtype=bool), ~OFLY])
        way_enemy = np.concatenate([np.zeros(len(FR), dtype=bool), OEN])
        ones, zeros = np.ones(alive, dtype=bool), np.zeros(alive, dtype=bool)  # flags for the unit's own bases
        # spots in Base-to-Base contact with the Engaged models; the other Ground units' bases a Link may not cross
        contact = (FC[:, None, :] + (r + FR + touch)[:, None, None] * _RING[None, :, :]).reshape(-1, 2)
        LOB = OC[~OFLY] if OC.size else OC
        LOR = OR[~OFLY] if OC.size else OR

        def free_static(pts: np.ndarray) -> np.ndarray:
            """Legal end spots as far as the other units and the terrain go: on the table/level, off terrain,
            on no other base, not Within 1" of a new enemy (the unit's own models: :func:`free`)."""
            seen(pts)
            ok = clear_of(pts, all_c, all_r, r, apart, all_solid, ENGAGEMENT_RANGE + EPS, all_enemy)
            idx = np.flatnonzero(ok)
            if idx.size:
                ok[idx] = self._terrain_ok(pts[idx], r, level)
            return ok

        def free(pts: np.ndarray, mine: list[Coord], static: np.ndarray | None = None) -> np.ndarray:
            """Legal end spots: :func:`free_static` (``static``: already known) and on none of ``mine``."""
            ok = free_static(pts) if static is None else static.copy()
            if mine and ok.any():
                m = len(mine)
                ok &= clear_of(pts, np.asarray(mine, dtype=float), np.full(m, r), r, apart, ones[:m], 0.0, zeros[:m])
            return ok

        def passable(pts: np.ndarray) -> np.ndarray:
            """The Leading Model's base on its way (8.5.3 step 1): no Size 2+ wall, enemy or other unit's model."""
            seen(pts)
            ok = clear_of(pts, way_c, way_r, r, 0.0, way_solid, ENGAGEMENT_RANGE + EPS, way_enemy)
            return ok & self._terrain_ok(pts, r, level, walls_only=True, through=through)

        def search() -> tuple[Coord, list[Coord]] | None:
            """The Python reading of the search (World.compiled_ranks False; fastranks.close_ranks_search compiles
            it): the Leading Model's end and every model's new centre, or None (no move)."""
            # the Leading Model: the first non-pinned model that can end closer (3" at most, straight at the nearest
            # Engaged enemy model, up to Base-to-Base contact or where its way is blocked)
            lead_i, lead_to = -1, cent[0]
            for i in movable:
                start = np.asarray(cent[i])
                g0 = gaps(start[None, :], FC, FR)[0]
                j0 = int(np.argmin(g0))
                d = float(np.linalg.norm(FC[j0] - start))
                reach = min(CLOSE_RANKS_MOVE, float(g0[j0]) - touch)
                if reach <= 1e-6 or d <= 0:
                    continue
                steps = max(1, math.ceil(reach / 0.05))
                s = reach * np.arange(1, steps + 1) / steps
                path = start[None, :] + s[:, None] * ((FC[j0] - start) / d)[None, :]
                way = passable(path)
                stop = int(np.argmin(way)) if not way.all() else steps  # samples before the first blocked one
                if stop == 0:
                    continue
                # it passes through its own unit's models (8.5.3); the others are picked up and set after it (not
                # pinned)
                rest = [m for k, m in enumerate(cent) if k != i and pinned[k]]
                ends = np.flatnonzero(free(path[:stop], rest))
                if ends.size == 0:
                    continue
                end = (float(path[ends[-1], 0]), float(path[ends[-1], 1]))
                if foe_gap(end) < float(g0[j0]) - 1e-6:
                    lead_i, lead_to = i, end
                    break
            if lead_i < 0:
                return None
            new: list[Coord | None] = [c if pinned[k] else None for k, c in enumerate(cent)]
            new[lead_i] = lead_to
            walls = self._walls(level)  # Coherency Links: Raptor Strain changes movement, not 4.4

            reach_set = 2 * r + GAP + COHERENCY_SLACK
            within_lead = horizontal_coherency(su)  # 4.4's 3" (Squadron: 4")

            def near_set(pts: np.ndarray) -> np.ndarray:
                """Within ``reach_set`` (centres) of a model of the unit already set (``place``'s "keep them
                together")."""
                return near_any(pts, np.asarray([m for m in new if m is not None], dtype=float), reach_set + EPS)

            def linked(c: Coord) -> bool:
                """4.4 Coherency Link from ``c`` to a model of the unit already set: no Size 2+ wall, no other unit's
                model on the line (it may pass through the Engaged enemy models)."""
                for m in new:
                    if m is None or math.dist(c, m) > reach_set + EPS:
                        continue
                    seen(np.asarray([c, m], dtype=float))
                    sx0, sx1 = min(c[0], m[0]), max(c[0], m[0])
                    sy0, sy1 = min(c[1], m[1]), max(c[1], m[1])
                    near_walls = [
                        w
                        for w, (x0, y0, x1, y1) in ((w, shape_bounds(w)) for w in walls)
                        if x0 <= sx1 + 1e-9 and sx0 <= x1 + 1e-9 and y0 <= sy1 + 1e-9 and sy0 <= y1 + 1e-9
                    ]
                    if near_walls:
                        seg = shapely.LineString([c, m])
                        if any(w.intersects(seg) for w in near_walls):
                            continue
                    if LOB.size:
                        a, b = np.asarray(c), np.asarray(m)
                        ab = b - a
                        t = np.clip(((LOB - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
                        if (np.linalg.norm(LOB - (a + t[:, None] * ab), axis=1) < LOR - 1e-6).any():
                            continue
                    return True
                return False

            ring = _RING

            def pick(
                cands: np.ndarray,
                old: Coord,
                mine: list[Coord],
                static: np.ndarray | tuple[np.ndarray, np.ndarray] | None,
                wholly: bool,
            ) -> Coord | None:
                """The free spot In Coherency (near a model already set and linked to it; ``wholly``: also
                Wholly Within 3" of the Leading Model) nearest ``old``; ``static``: :func:`free_static` of
                ``cands``, where already known, or (values, known) arrays filled here where needed (each spot
                is then tested once however many models look at it)."""
                if cands.size == 0:
                    return None
                keep = near_set(cands)
                if wholly:
                    keep &= np.hypot(cands[:, 0] - lead_to[0], cands[:, 1] - lead_to[1]) <= within_lead + EPS
                if isinstance(static, tuple):
                    values, known = static
                    todo = keep & ~known
                    if todo.any():
                        values[todo] = free_static(cands[todo])
                        known |= todo
                    static = values
                cands = cands[keep]
                if cands.size == 0:
                    return None
                cands = cands[free(cands, mine, None if static is None else static[keep])]
                dist = np.round(np.linalg.norm(cands - np.asarray(old), axis=1), 6)
                for j in np.lexsort((cands[:, 1], cands[:, 0], dist)):
                    c = (float(cands[j, 0]), float(cands[j, 1]))
                    if linked(c):
                        return c
                return None

            rest_idx = sorted((i for i in movable if i != lead_i), key=lambda i: (round(foe_gap(cent[i]), 6), i))
            contact_ok: np.ndarray | None = None  # free_static(contact), read once when first needed
            # the grid fallback's spots, and free_static of each (values, known), read where first needed
            grid: list[np.ndarray] = [np.zeros((0, 2)), np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)]

            def spot_for(old: Coord, mine: list[Coord], wholly: bool) -> Coord | None:
                nonlocal contact_ok
                # Base-to-Base contact with an Engaged enemy model wherever possible
                if contact_ok is None:
                    contact_ok = free_static(contact)
                placed = pick(contact, old, mine, contact_ok, wholly)
                if placed is None and foe_gap(old) > ENGAGEMENT_RANGE + EPS:
                    # else Base-to-Base contact with a model of the unit Within the Engagement Range (a model already
                    # Within it is in the Fighting Rank and keeps its spot)
                    fighting = [m for m in new if m is not None and foe_gap(m) <= ENGAGEMENT_RANGE + EPS]
                    if fighting:
                        fa = np.asarray(fighting, dtype=float)
                        ring2 = (fa[:, None, :] + (2 * r + touch) * ring[None, :, :]).reshape(-1, 2)
                        placed = pick(ring2, old, mine, None, wholly)
                if placed is None:
                    here = np.asarray([old])
                    if (
                        (not wholly or math.dist(old, lead_to) <= within_lead + EPS)
                        and near_set(here)[0]
                        and free(here, mine)[0]
                        and linked(old)
                    ):
                        return old
                    if reduced:
                        raise _GridFallbackError(lead_to)
                    if grid[0].size == 0:
                        pts = close_ranks_grid(lead_to, 2 * r + GAP)
                        grid[:] = [pts, np.zeros(len(pts), dtype=bool), np.zeros(len(pts), dtype=bool)]
                    placed = pick(grid[0], old, mine, (grid[1], grid[2]), wholly)
                return placed

            for i in rest_idx:
                old = cent[i]
                mine = [m for m in new if m is not None]  # the models set so far (the others are picked up, 8.5.3)
                placed = spot_for(old, mine, True) or spot_for(old, mine, False)  # 4.4's 3" where there is room
                if placed is None:
                    return None
                new[i] = placed
            final = [c for c in new if c is not None]
            assert len(final) == alive
            return lead_to, final

        got = (
            self._close_ranks_compiled(
                su,
                level,
                through,
                r,
                touch,
                apart,
                cent,
                cent_gaps,
                FC,
                FR,
                (all_c, all_r, all_solid, all_enemy),
                (way_c, way_r, way_solid, way_enemy),
                (LOB, LOR),
                contact,
                pinned,
                movable,
                foe_gap,
                reduced,
                box,
            )
            if self.compiled_ranks
            else search()
        )
        if got is None:
            return pid
        lead_to, final = got
        # "Models cannot use this move to Disengage from other Enemy Units"
        if self._engaged_foes(su, final, level, foes) != before:
            return pid
        near = FC[int(np.argmin(gaps(np.asarray([lead_to]), FC, FR)[0]))]
        away = (lead_to[0] - float(near[0]), lead_to[1] - float(near[1]))
        norm = math.hypot(*away) or 1.0
        fm = [(self.placements[fpid].unit, c, fr) for (fpid, fk) in foes for c, fr in self._foe_models(fpid, fk)]
        order = self._casualty_order(final, (away[0] / norm, away[1] / norm), r, fm)
        placement = Placement(su.id, (*order, *p.centres[alive:]), level)
        result = self._pid.get(placement)
        if result is None:
            self.placements.append(placement)
            result = self._pid[placement] = len(self.placements) - 1
        return result

    def _pack(self, key: tuple[object, ...], polys: Callable[[], Sequence[BaseGeometry]]) -> tuple[np.ndarray, ...]:
        """:func:`fastranks.pack` of the polygons ``polys()``, kept under ``key``."""
        hit = self._packs.get(key)
        if hit is None:
            hit = self._packs[key] = fastranks.pack(polys())
        return hit

    def _close_ranks_compiled(
        self,
        su: ScenarioUnit,
        level: str | None,
        through: int,
        r: float,
        touch: float,
        apart: float,
        cent: list[Coord],
        cent_gaps: np.ndarray,
        fc: np.ndarray,
        fr: np.ndarray,
        solid_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        way_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        link_bases: tuple[np.ndarray, np.ndarray],
        contact: np.ndarray,
        pinned: list[bool],
        movable: list[int],
        foe_gap: Callable[[Coord], float],
        reduced: bool,
        box: list[float] | None,
    ) -> tuple[Coord, list[Coord]] | None:
        """:meth:`_close_ranks`'s search by :func:`fastranks.close_ranks_search` (the same answers as its Python
        reading, ``search``): the Leading Model's end and the new centres, or None (no move); raises
        :class:`_GridFallbackError` as the reading does."""
        # per movable model, in order: its nearest Engaged enemy model, the distance to it and the gap
        lead_j = np.argmin(cent_gaps[movable], axis=1)
        lead_gap = cent_gaps[movable, lead_j]
        lead_d = []
        for i, j0 in zip(movable, lead_j.tolist(), strict=True):
            x = fc[j0] - np.asarray(cent[i])
            lead_d.append(math.sqrt(x.dot(x)))  # np.linalg.norm(x), the same double
        order = sorted(movable, key=lambda i: (round(foe_gap(cent[i]), 6), i))
        lob, lor = link_bases
        if level is not None:
            top_v, top_r, _, _ = self._pack(("top", level), lambda: [self._top(level)])
        else:
            top_v, top_r = np.zeros((0, 2)), np.zeros(1, dtype=np.int64)
        blk = self._pack(("blockers", level), lambda: self._level_blockers(level))
        thr = self._pack(("walls", level, through), lambda: self._walls(level, through))
        walls = self._pack(("walls", level, 0), lambda: self._walls(level))
        seen = np.array([math.inf, math.inf, -math.inf, -math.inf])
        status, _, lx, ly, new = fastranks.close_ranks_search(
            np.asarray(cent, dtype=float).reshape(-1, 2),
            np.asarray(pinned, dtype=bool),
            np.asarray(movable, dtype=np.int64),
            lead_j.astype(np.int64),
            np.asarray(lead_d, dtype=float),
            np.ascontiguousarray(lead_gap, dtype=float),
            np.asarray(order, dtype=np.int64),
            r,
            touch,
            apart,
            ENGAGEMENT_RANGE + EPS,
            CLOSE_RANKS_MOVE,
            fc,
            fr,
            solid_bases,
            way_bases,
            (float(self.board.width), float(self.board.depth), EPS, top_v, top_r, level is not None),
            blk,
            thr,
            (*walls, np.ascontiguousarray(lob, dtype=float).reshape(-1, 2), np.ascontiguousarray(lor, dtype=float)),
            2 * r + GAP + COHERENCY_SLACK + EPS,
            horizontal_coherency(su) + EPS,
            _RING,
            2 * r + touch,
            contact,
            np.ascontiguousarray(_grid_offsets(2 * r + GAP)),
            reduced,
            seen,
        )
        if box is not None and seen[0] <= seen[2]:
            _grow_box(box, seen.reshape(2, 2))
        lead_to = (float(lx), float(ly))
        if status == fastranks.GRID:
            raise _GridFallbackError(lead_to)
        if status == fastranks.NO_MOVE:
            return None
        return lead_to, [(float(x), float(y)) for x, y in new.tolist()]

    def _foe_models(self, fpid: int, fk: int) -> list[tuple[Coord, float]]:
        fp = self.placements[fpid]
        frad = self.scn.units[fp.unit].base_mm / MM_PER_INCH / 2
        return [(c, frad) for c in fp.centres[:fk]]

    def _engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        """The units of ``foes`` that a unit with models at ``centres`` is Engaged with (7.2.1)."""
        return self._ask(  # type: ignore[no-any-return]
            lambda: ("engaged", su.id, tuple(centres), level, tuple((self.content(f), k) for f, k in foes)),
            lambda: self._read_engaged_foes(su, centres, level, foes),
        )

    def _read_engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        r = su.base_mm / MM_PER_INCH / 2
        mc = np.asarray(centres, dtype=float)
        pairs: list[tuple[Unit, list[tuple[int, int]]]] = []
        need: set[int] = set()
        for fpid, fk in foes:
            fp = self.placements[fpid]
            fu = self.scn.units[fp.unit]
            models = self._models_of(fpid)[:fk]
            if not models:
                continue
            fc = np.asarray(fp.centres[:fk], dtype=float)
            g = np.sqrt(((mc[:, None, :] - fc[None, :, :]) ** 2).sum(axis=2)) - r - self._radius(fpid)
            near = [(int(i), int(j)) for i, j in np.argwhere(g <= ENGAGEMENT_RANGE + 1e-3)]  # may be Within 1"
            pairs.append((Unit(fu.id, fu.player, models), near))
            need |= {i for i, _ in near}
        if not need:
            return frozenset()
        mine = {
            i: Model(f"{su.id}.{i + 1}", centres[i][0], centres[i][1], su.base_mm, su.size, stands_on=level)
            for i in sorted(need)
        }
        units = (Unit(su.id, su.player, tuple(mine.values())), *(u for u, _ in pairs))
        b = Board.trusted(self.board.width, self.board.depth, self.board.terrain, units)
        return frozenset(u.id for u, near in pairs if any(engaged(b, mine[i], u.models[j]) for i, j in near))

    # ---------------------------------------------------------------- boards
    def board_for(self, pos: tuple[int, ...], alive: tuple[int, ...], fields: tuple[Coord, ...] = ()) -> Board:
        """The battlefield with every unit on the table (``pos[u] >= 0``) and its first ``alive[u]`` models; with
        ``fields``, a Force Field token at each centre (:func:`force_field_piece`)."""
        key = (pos, alive, fields)
        b = self._boards.get(key)
        if b is None:
            units = []
            for u, (pid, k) in enumerate(zip(pos, alive, strict=True)):
                if pid < 0 or k <= 0:
                    continue
                su = self.scn.units[self.uids[u]]
                units.append(Unit(su.id, su.player, self._models_of(pid)[:k]))
            # placements are legal by construction (``place``): no board_problems pass per board state
            terrain = self.board.terrain + tuple(force_field_piece(c, i) for i, c in enumerate(fields))
            b = Board.trusted(self.board.width, self.board.depth, terrain, tuple(units))
            if len(self._boards) > 4096:
                self._boards.clear()
            self._boards[key] = b
        return b

    def _models_of(self, pid: int) -> tuple[Model, ...]:
        """One Model object per model of a placement: its shapes are built once."""
        models = self._models.get(pid)
        if models is None:
            su = self.scn.units[self.placements[pid].unit]
            models = self._models[pid] = tuple(
                Model(
                    f"{su.id}.{i + 1}",
                    x,
                    y,
                    su.base_mm,
                    su.size,
                    stands_on=self.placements[pid].level,
                    flying=su.flying,
                )
                for i, (x, y) in enumerate(self.placements[pid].centres)
            )
        return models

    # ------------------------------------------------ reduced boards (geometry stays local)
    def _radius(self, pid: int) -> float:
        """The base radius of placement ``pid``'s models (per unit, read once)."""
        unit = self.placements[pid].unit
        r = self._radii.get(unit)
        if r is None:
            r = self._radii[unit] = self.scn.units[unit].base_mm / MM_PER_INCH / 2
        return r

    def _centres_packed(self) -> Centres:
        """:attr:`_packed` holding every placement made so far."""
        packed = self._packed
        if packed.n < len(self.placements):
            new = range(packed.n, len(self.placements))
            packed.extend([self.placements[p].centres for p in new], [self._radius(p) for p in new])
        return packed

    def near_many(self, pa: int, pids: np.ndarray, gap: float) -> np.ndarray:
        """:meth:`near` of ``pa`` and each placement of ``pids`` (compiled, the same answers)."""
        return self._centres_packed().near(pa, pids, gap)

    def near_box_many(self, pids: np.ndarray, lo: np.ndarray, hi: np.ndarray, reach: float) -> np.ndarray:
        """Per placement of ``pids``: is it in :meth:`_near_box` (compiled, the same answers)?"""
        return self._centres_packed().near_box(pids, lo, hi, reach)

    def near(self, pa: int, pb: int, gap: float = ENGAGEMENT_RANGE) -> bool:
        """Could a model of placement ``pa`` be within ``gap`` of one of ``pb`` (bases edge to edge)?

        A cheap superset test on the whole placements: units that fail it cannot be Engaged with
        each other (7.2.1 needs Within 1"), so the geometry below never looks at them.
        """
        key = (pa, pb, round(gap, 6)) if pa <= pb else (pb, pa, round(gap, 6))
        hit = self._near.get(key)
        if hit is None:
            a, b = self._centres(pa), self._centres(pb)
            d = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)).min()
            hit = self._near[key] = bool(d <= self._radius(pa) + self._radius(pb) + gap + 0.01)
        return hit

    def within(self, pa: int, ka: int, pb: int, kb: int, inches: float) -> bool:
        """Is a live model of placement ``pa`` (its first ``ka`` centres) Within ``inches`` of a live model of
        ``pb`` (its first ``kb``): the closest points of the two bases, measured horizontally (as the
        Engagement Range, 7.2.1)?

        >>> from mathhammer.scenario import builtin_scenarios, load_scenario
        >>> w = World(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")))
        >>> su = w.scn.units[w.uids[0]]
        >>> a = w.place(su, (10.0, 10.0), (0.0, -1.0), ())
        >>> b = w.place(su, (10.0, 20.0), (0.0, -1.0), ())
        >>> gap = float(np.hypot(*np.subtract(w.placements[b].centres[0], w.placements[a].centres[0])))
        >>> gap -= 2 * w._radius(a)  # the two Leading Models' bases, edge to edge
        >>> w.within(a, 1, b, 1, gap + 0.01), w.within(a, 1, b, 1, gap - 0.01)
        (True, False)
        """
        return self.models_within(pa, ka, pb, kb, inches) > 0

    def toward(self, pid: int, alive: int, qid: int, kq: int, inches: float) -> Coord | None:
        """Where the Leading Model of placement ``pid`` ends moving Directly Towards the nearest live model of
        placement ``qid`` (its first ``kq``): at most ``inches``, and short of Within 1" of it (8.5.3: a Move
        "cannot end Within 1\" (Engagement Range) of an Enemy Ground Unit"); None where it cannot move closer."""
        lead = self.placements[pid].centres[0]
        targets = self.placements[qid].centres[:kq]
        if alive <= 0 or not targets:
            return None
        aim = min(targets, key=lambda c: math.dist(lead, c))
        d = math.dist(lead, aim)
        gap = d - self._radius(pid) - self._radius(qid)
        step = min(float(inches), gap - ENGAGEMENT_RANGE - GAP)
        if step <= EPS or d <= 0:
            return None
        return (lead[0] + (aim[0] - lead[0]) * step / d, lead[1] + (aim[1] - lead[1]) * step / d)

    def point_gap(self, pid: int, alive: int, point: Coord, radius: float) -> float:
        """The least gap, edge to edge, between a live model of placement ``pid`` (its first ``alive`` centres) and
        a base of ``radius`` centred at ``point`` (a token: "Always measure to the closest base edge of a Token",
        7.3); inf where none is left."""
        centres = self.placements[pid].centres[:alive]
        if not centres:
            return math.inf
        r = self._radius(pid)
        return min(math.dist(c, point) for c in centres) - r - radius

    def in_sight(self, pa: int, ka: int, pb: int, kb: int) -> bool:
        """Does a live model of placement ``pa`` (its first ``ka``) have Line of Sight (7.1) to a live model of
        ``pb`` (its first ``kb``)? Terrain blocks it, models never do: the two units alone on the table."""
        key = (pa, ka, pb, kb)
        hit = self._sight.get(key)
        if hit is None:
            a, b = self.placements[pa].unit, self.placements[pb].unit
            pos = tuple(pa if u == a else pb if u == b else -1 for u in self.uids)
            alive = tuple(ka if u == a else kb if u == b else 0 for u in self.uids)
            board = self.board_for(pos, alive)
            hit = any(
                line_of_sight(board, x, y).visible for x in self._models_of(pa)[:ka] for y in self._models_of(pb)[:kb]
            )
            self._sight[key] = hit
        return hit

    def models_within(self, pa: int, ka: int, pb: int, kb: int, inches: float) -> int:
        """How many live models of placement ``pa`` (its first ``ka``) are Within ``inches`` of a live model of
        ``pb`` (its first ``kb``), bases edge to edge (Life Support: "each model in this Unit that is Within 4\"
        of the damaged Unit")."""
        key = (pa, ka, pb, kb, inches)
        hit = self._within.get(key)
        if hit is None:
            a, b = self._centres(pa)[:ka], self._centres(pb)[:kb]
            if a.size == 0 or b.size == 0:
                hit = 0
            else:
                d = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
                hit = int((d - self._radius(pa) - self._radius(pb) <= inches + EPS).sum())
            self._within[key] = hit
        return hit

    def _sub(
        self, pos: tuple[int, ...], alive: tuple[int, ...], keep: set[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The board state with only the units ``keep`` on the table."""
        return (
            tuple(p if u in keep else -1 for u, p in enumerate(pos)),
            tuple(k if u in keep else 0 for u, k in enumerate(alive)),
        )

    def _foes_near(
        self, pos: tuple[int, ...], alive: tuple[int, ...], u: int, gap: float = ENGAGEMENT_RANGE
    ) -> set[int]:
        side = self.scn.units[self.uids[u]].player
        return {
            v
            for v, p in enumerate(pos)
            if p >= 0
            and alive[v] > 0
            and v != u
            and self.scn.units[self.uids[v]].player != side
            and self.near(pos[u], p, gap)
        }

    def engaged_pairs(self, pos: tuple[int, ...], alive: tuple[int, ...]) -> frozenset[tuple[str, str]]:
        """Unit pairs (a, b) Engaged with each other (7.2.1), both orders.

        Engagement of two units depends on their models and the terrain only, so each pair is read
        once, on a board holding the two of them.
        """
        state = (pos, alive)
        known = self._pair_sets.get(state)
        if known is not None:
            return known
        out: set[tuple[str, str]] = set()
        on = [u for u, p in enumerate(pos) if p >= 0 and alive[u] > 0]
        for i, u in enumerate(on):
            for v in on[i + 1 :]:
                if self.scn.units[self.uids[u]].player == self.scn.units[self.uids[v]].player:
                    continue
                if self.pair_engaged(pos[u], alive[u], pos[v], alive[v]):
                    out.add((self.uids[u], self.uids[v]))
                    out.add((self.uids[v], self.uids[u]))
        if len(self._pair_sets) > 65536:
            self._pair_sets.clear()
        known = self._pair_sets[state] = frozenset(out)
        return known

    def pair_engaged(self, pa: int, ka: int, pb: int, kb: int) -> bool:
        """Are the first ``ka`` models of placement ``pa`` and the first ``kb`` of ``pb`` (enemy units)
        Engaged with each other (7.2.1)? Read on a board holding the two of them."""
        if not self.near(pa, pb):
            return False
        key = (pa, ka, pb, kb)
        hit = self._pairs.get(key)
        if hit is None:

            def read() -> bool:
                ua = self.placements[pa].unit
                ub = self.placements[pb].unit
                pos = tuple(pa if uid == ua else pb if uid == ub else -1 for uid in self.uids)
                alive = tuple(ka if uid == ua else kb if uid == ub else 0 for uid in self.uids)
                b = self.board_for(pos, alive)
                return any(engaged(b, ma, mb) for ma in b.unit(ua).models for mb in b.unit(ub).models)

            hit = self._pairs[key] = self._ask(lambda: ("pair", self.content(pa), ka, self.content(pb), kb), read)
        return hit

    def strikers(self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        """Models in the Fighting or Supporting Rank (8.8.1 step 2), read with the enemies near the unit."""
        u = self.index[uid]
        sub = self._sub(pos, alive, {u} | self._foes_near(pos, alive, u, ENGAGEMENT_RANGE + 2.0))
        key = (sub, uid)
        hit = self._strikers.get(key)
        if hit is None:
            hit = self._strikers[key] = self._ask(
                lambda: ("strikers", tuple(self.content(p) for p in sub[0]), sub[1], uid),
                lambda: len(fighting_ranks(self.board_for(*sub), uid).attackers),
            )
        return hit

    def charge_length(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float | None = None,
        fields: tuple[Coord, ...] = (),
        engaged_ok: bool = False,
    ) -> tuple[float, Coord | None]:
        """8.7.7: the distance the Leading Model must travel to Engage every declared target, and where it ends;
        ``fields``: the centres of the Force Field tokens the charging unit cannot move across (the caller reads
        its Size); ``engaged_ok``: the unit may start Engaged (Lightning Dash's second Charge; the caller has
        checked the unit is Unengaged otherwise).

        With ``reach`` (the longest Charge the caller will compare against), units too far away to
        touch any path of that length are left off the board: a path of length <= ``reach`` stays
        within ``reach`` of the Leading Model, so the answer is the same whenever it is <= ``reach``,
        and above ``reach`` whenever the true one is.
        """
        bound = 0.0
        if reach is not None:
            u = self.index[uid]
            # a lower bound: the Leading Model must come Within 1" of a model of every target (7.2.1)
            lead = self.placements[pos[u]].centres[0]
            r = self._radius(pos[u])
            bound = max(
                min(math.dist(lead, c) for c in self.placements[pos[self.index[t]]].centres[: alive[self.index[t]]])
                - r
                - self._radius(pos[self.index[t]])
                - ENGAGEMENT_RANGE
                for t in targets
            )
            if bound > reach + 1e-6:
                return bound, None  # out of reach whatever the path: no board needed
            keep = {u} | {self.index[t] for t in targets}
            keep |= {
                v
                for v, p in enumerate(pos)
                if p >= 0 and alive[v] > 0 and v not in keep and self.near(pos[u], p, reach + ENGAGEMENT_RANGE + 1.0)
            }
            pos, alive = self._sub(pos, alive, keep)
            # the other models of the charging unit are no obstacle to its Leading Model (charge._level)
            # and the caller has checked that the unit is Unengaged (or it may start so): the Leading Model alone
            # stands for it
            alive = (*alive[:u], 1, *alive[u + 1 :])
        key = (pos, alive, uid, targets, reach, fields, engaged_ok)
        hit = self._charges.get(key)
        if hit is None:
            if reach is not None:
                hit = self._charge_local(pos, alive, uid, targets, reach, fields, engaged_ok, bound)
            if hit is None:  # no reach, or no answer near the Leading Model: the whole board
                hit = self._charge_memo(pos, alive, uid, targets, reach, fields, engaged_ok)
            self._charges[key] = hit
        return hit

    def _charge_local(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float,
        fields: tuple[Coord, ...],
        engaged_ok: bool,
        bound: float,
    ) -> tuple[float, Coord | None] | None:
        """:func:`charge_distance` read on the models near the Leading Model: for each step ``rho`` of
        :data:`CHARGE_STEPS` below ``reach`` (from the lower bound ``bound`` up), the board holding the Leading Model
        and only the models of other units whose shapes may meet the box ``rho`` around it
        (:func:`~mathhammer.board.charge.examined_near`), searched for paths up to ``rho``; the first answer of at
        most ``rho`` is the answer. None: none is (the caller reads the whole board).

        A path of length ``rho`` or less stays within ``rho`` of its start, and only models whose shapes meet that
        box can block it, end it (8.5.3: no overlap, 8.7.7 step 3: not Within 1" of an undeclared enemy) or be
        Engaged at its end: such a path is a shortest path on the whole board too. The box holds far fewer models
        than the whole board, so many board states share its answer: it is kept under the content of those models
        (unit, level, centres in order), shared with the other forked workers alike, and it is a function of that
        content alone (the same in every process and order). The search samples the goal's edge and the obstacles'
        corners, so its answer on the smaller board could in principle differ from the whole board's in the last
        bits where the goal's nearest point is hidden; it did not once: the 1,545 Charges of a 1,000,000-game run
        of ``standard_clash.toml`` and 3,000 random boards (1,975 answers within the step) gave the whole board's
        answer bit for bit, and the tests hold the two equal.
        """
        u = self.index[uid]
        start = self.placements[pos[u]]
        lead = start.centres[0]
        for rho in CHARGE_STEPS:
            if rho >= reach:
                return None
            if rho < bound:
                continue  # no path this short reaches every target
            near = self.models_near_lead(pos, alive, u, rho, targets)
            if near is None:
                continue  # a target with no model near: no path of this length
            asked = (
                "charge-local",
                uid,
                lead,
                start.level,
                rho,
                targets,
                fields,
                engaged_ok,
                tuple(
                    (self.uids[v], self.placements[p].level, tuple(self.placements[p].centres[i] for i in idx))
                    for v, p, idx in near
                ),
            )
            hit = self._local_charges.get(asked)
            if hit is None:
                compute = partial(self._charge_near, pos[u], uid, targets, rho, near, fields, engaged_ok)
                hit = self._local_charges[asked] = self._ask(partial(tuple, asked), compute)
            if hit[0] <= rho:
                return hit
        return None

    def models_near_lead(
        self, pos: tuple[int, ...], alive: tuple[int, ...], u: int, rho: float, targets: tuple[str, ...] = ()
    ) -> list[tuple[int, int, tuple[int, ...]]] | None:
        """The live models of the units other than ``u`` whose shapes may meet the box ``rho`` around ``u``'s Leading
        Model (:func:`~mathhammer.board.charge.examined_near`): (unit, placement, model indices) in unit order; None
        where a unit of ``targets`` has none."""
        lead = self.placements[pos[u]].centres[0]
        r = self._radius(pos[u])
        box = [lead[0] - rho, lead[1] - rho, lead[0] + rho, lead[1] + rho]
        out: list[tuple[int, int, tuple[int, ...]]] = []
        for v, p in enumerate(pos):
            if p < 0 or v == u:
                continue
            rad = self._radius(p)
            idx = tuple(
                i for i, c in enumerate(self.placements[p].centres[: alive[v]]) if examined_near(box, c, rad, r)
            )
            if idx:
                out.append((v, p, idx))
            elif self.uids[v] in targets:
                return None
        return out

    def _charge_near(
        self,
        pid: int,
        uid: str,
        targets: tuple[str, ...],
        rho: float,
        near: list[tuple[int, int, tuple[int, ...]]],
        fields: tuple[Coord, ...],
        engaged_ok: bool,
    ) -> tuple[float, Coord | None]:
        """:func:`charge_distance` up to ``rho`` on the board of the Leading Model of placement ``pid`` and the models
        ``near`` ((unit, placement, model indices)), in the order of :meth:`board_for`."""
        u = self.index[uid]
        chosen = {v: (p, idx) for v, p, idx in near}
        units = []
        for v, su_id in enumerate(self.uids):
            su = self.scn.units[su_id]
            if v == u:
                units.append(Unit(su.id, su.player, self._models_of(pid)[:1]))
            elif v in chosen:
                p, idx = chosen[v]
                models = self._models_of(p)
                units.append(Unit(su.id, su.player, tuple(models[i] for i in idx)))
        terrain = self.board.terrain + tuple(force_field_piece(c, i) for i, c in enumerate(fields))
        board = Board.trusted(self.board.width, self.board.depth, terrain, tuple(units))
        path = self._search(board, uid, targets, rho, engaged_ok)
        return path.length, path.end

    def _search(
        self,
        board: Board,
        uid: str,
        targets: tuple[str, ...],
        reach: float | None,
        engaged_ok: bool = False,
        examined: list[float] | None = None,
    ) -> ChargePath:
        """:func:`charge_distance` of ``uid``'s Leading Model on ``board``, with the unit's way of moving (Raptor
        Strain: ``mobility``)."""
        through, free_climb = self.mobility[uid]
        return charge_distance(
            board,
            f"{uid}.1",
            list(targets),
            max_length=reach,
            examined=examined,
            engaged_ok=engaged_ok,
            through=through,
            free_climb=free_climb,
        )

    def _charge_memo(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float | None,
        fields: tuple[Coord, ...] = (),
        engaged_ok: bool = False,
    ) -> tuple[float, Coord | None]:
        """:func:`charge_distance` on the board ``pos``/``alive`` (and Force Fields ``fields``), kept with the box it
        examined.

        The answer depends on the other units' models only through those whose shapes meet that box
        (``charge_distance``'s ``examined``): a second board with the same charger, targets and reach,
        and the same other units (placement and models left) with a model near the box, has the same
        answer. A model is near when its centre is within its radius + the Leading Model's + 1" (grown
        as the polygons are, and a margin) of the box.
        """
        u = self.index[uid]
        tset = {self.index[t] for t in targets}
        base = (
            uid,
            pos[u],
            alive[u],
            tuple((pos[t], alive[t]) for t in sorted(tset)),
            targets,
            reach,
            fields,
            engaged_ok,
        )
        rest = [
            (v, pos[v], alive[v]) for v in range(len(pos)) if pos[v] >= 0 and alive[v] > 0 and v != u and v not in tset
        ]
        r = self._radius(pos[u])
        entries = self._charge_entries.setdefault(base, [])
        read: dict[tuple[float, ...], frozenset[tuple[int, int, int]]] = {}  # mostly one box: read it once
        for box, relevant, answer in entries:
            key = tuple(box)
            here = read.get(key)
            if here is None:
                here = read[key] = self._units_near(rest, box, r)
            if here == relevant:
                return answer
        c = self.content

        def named(units: frozenset[tuple[int, int, int]]) -> frozenset[tuple[int, int, int]]:
            return frozenset((v, c(p), k) for v, p, k in units)

        if self.shared is not None:  # what another forked worker found, by content (placement ids are its own)
            asked = (uid, c(pos[u]), alive[u], tuple((c(pos[t]), alive[t]) for t in sorted(tset)), *base[4:])
            found = self._shared_entry(asked, lambda box: self._units_near(rest, box, r), named)
            if found is not None:
                entries.append(found)
                return found[2]  # type: ignore[no-any-return]
        box = [0.0, 0.0, 0.0, 0.0]
        path = self._search(self.board_for(pos, alive, fields), uid, targets, reach, engaged_ok, box)
        answer = (path.length, path.end)
        relevant = self._units_near(rest, box, r)
        entries.append((box, relevant, answer))
        if self.shared is not None:
            self.shared.put(asked, (box, named(relevant), answer))
        return answer

    def _units_near(
        self, units: list[tuple[int, int, int]], box: list[float], r: float
    ) -> frozenset[tuple[int, int, int]]:
        """The (unit, placement, models) of ``units`` with a live model that may change a Charge whose examined
        box is ``box`` (:func:`~mathhammer.board.charge.examined_near`; ``r``: the Leading Model's radius)."""
        out = []
        for v, pid, k in units:
            rad = self._radius(pid)
            if any(examined_near(box, c, rad, r) for c in self.placements[pid].centres[:k]):
                out.append((v, pid, k))
        return frozenset(out)

    def facts(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, tid: str, weapon: Weapon, tags: tuple[str, ...]
    ) -> AttackFacts:
        """:func:`~mathhammer.board.facts.attack_facts` for one weapon, cached by board state."""
        u, t = self.index[uid], self.index[tid]
        # Engaged restrictions and casualty tiers (8.7.3, 8.7.5) need the enemies near either; models never block LoS
        keep = {u, t} | self._foes_near(pos, alive, u) | self._foes_near(pos, alive, t)
        pos, alive = self._sub(pos, alive, keep)
        key = (pos, alive, uid, tid, weapon, tags)
        hit = self._facts.get(key)
        if hit is None:
            both = (uid in self._indomitable, tid in self._indomitable)
            hit = weapon_facts(self.board_for(pos, alive), uid, tid, weapon, tags, both)
            if len(self._facts) > 65536:
                self._facts.clear()
            self._facts[key] = hit
        return hit  # type: ignore[return-value]

    @cached_property
    def _indomitable(self) -> frozenset[str]:
        """The units with Indomitable, a passive of the card or upgrades
        (:func:`~mathhammer.starcraft.loadout.indomitable`)."""
        return frozenset(uid for uid, su in self.scn.units.items() if indomitable(su.loadout))

    # ---------------------------------------------------------------- markers
    def contests(self, pid: int, alive: int, marker: int) -> bool:
        """8.9.1: at least one model Within 3" of the marker, with LoS to it (the marker Size 0), same elevation.

        8.9.1: "At least one model is Within 3", has LoS to the Marker, and is on the same elevation
        as the marker". The markers are on the playmat (the module text), so a unit standing on a
        piece (MID or HIGH GROUND) does not contest; a placement is always In Coherency (set around
        its Leading Model). Flying and BURROWED units are excluded by the caller.
        """
        return self.first_contesting(pid, marker) < alive

    def first_contesting(self, pid: int, marker: int) -> float:
        """The index of the first model of placement ``pid`` that contests ``marker`` (:meth:`contests`), or
        infinity: each model is read on its own, so the first ``k`` contest when this is below ``k``."""
        key = (pid, marker)
        hit = self._contest.get(key)
        if hit is None:
            hit = self._contest[key] = self._ask(
                lambda: ("contest", self.content(pid), marker), lambda: self._first_contesting(pid, marker)
            )
        return hit

    def _first_contesting(self, pid: int, marker: int) -> float:
        """:meth:`first_contesting`, read."""
        hit = math.inf
        p = self.placements[pid]
        if p.level is not None:  # not on the same elevation as the marker (8.9.1)
            return hit
        su = self.scn.units[p.unit]
        spec = next(m for m in self.scn.deployment.markers if m.number == marker)
        mk = Model(f"marker-{marker}", spec.x, spec.y, MARKER_MM, 0)
        r, mk_r, mk_c = self._radius(pid), mk.radius, mk.centre  # Model.radius, Model.centre
        for i, c in enumerate(p.centres):
            centre = (float(c[0]), float(c[1]))
            apart = math.dist(centre, mk_c)
            if max(0.0, apart - r - mk_r) > CONTEST_RANGE + EPS:  # Model.distance, without building the Model
                continue
            if apart < r + mk_r:
                hit = i  # the model stands on the marker
                break
            m = Model(f"{su.id}.{i + 1}", c[0], c[1], su.base_mm, su.size)
            # a placed model (legal by construction) and the marker, apart: no board_problems pass
            b = Board.trusted(
                self.board.width,
                self.board.depth,
                self.board.terrain,
                (Unit(su.id, su.player, (m,)), Unit("marker", "markers", (mk,))),
            )
            if line_of_sight(b, m, mk).visible:
                hit = i
                break
        return hit

    def near_marker(self, pid: int, alive: int, marker: int, inches: float) -> bool:
        """Is a live model of placement ``pid`` (its first ``alive``) Within ``inches`` of Mission Marker ``marker``
        (base edge to the marker's edge, horizontally; no Line of Sight or elevation asked: Veteran of Tarsonis)?"""
        key = (pid, marker, inches)
        first = self._near_marker.get(key)
        if first is None:
            p = self.placements[pid]
            su = self.scn.units[p.unit]
            spec = next(m for m in self.scn.deployment.markers if m.number == marker)
            mk = Model(f"marker-{marker}", spec.x, spec.y, MARKER_MM, 0)
            first = next(
                (
                    i
                    for i, c in enumerate(p.centres)
                    if Model(f"{su.id}.{i + 1}", c[0], c[1], su.base_mm, su.size).distance(mk) <= inches + EPS
                ),
                len(p.centres),
            )
            self._near_marker[key] = first
        return first < alive

    def wholly_within(self, pid: int, alive: int) -> int | None:
        """The battlefield quarter (0-3) the unit's models are Wholly Within, or None (Divide and Conquer)."""
        p = self.placements[pid]
        su = self.scn.units[p.unit]
        r = su.base_mm / MM_PER_INCH / 2
        hx, hy = self.board.width / 2, self.board.depth / 2
        quarters = set()
        for x, y in p.centres[:alive]:
            if abs(x - hx) < r or abs(y - hy) < r:
                return None
            quarters.add((x > hx) + 2 * (y > hy))
        return quarters.pop() if len(quarters) == 1 else None

    @cached_property
    def edges(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.scn.deployment.entry_edges.items()}

    def respawn(self, pid: int, alive: int, k: int, others: tuple[int, ...]) -> tuple[int, int]:
        """RESPAWN (part 11): "Return up to X Destroyed models to this Unit ... Set each returned model in
        Base-to-Base contact with an existing model in the Unit. Returned models cannot be set Within the Engagement
        Range of any Enemy Unit. If a model cannot be set legally, it cannot be returned."

        ``pid``/``alive``: the unit (its first ``alive`` centres live); ``k``: the models to return; ``others``:
        the other units' placements on the table (every centre an obstacle, as in :meth:`place`). Each returned
        model goes to the first free spot, in the order of the live models and of 36 directions around each (the
        first due east, then counter-clockwise), in Base-to-Base contact with a model of the unit (bases 0.025"
        apart, as Close Ranks sets them): on the table (on the unit's level), clear of terrain it may not overlap,
        of every other base (the removed models' spots too, as every placement keeps them) and more than 1" from
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
        ring = _RING
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

    def rear_from(self, pid: int, to: Coord) -> Coord:
        """Where the other models go when the unit of placement ``pid`` is set with its Leading Model at ``to``
        (8.5.3: behind it, towards where its Leading Model stood; its player's Entry Edge where that is ``to``)."""
        old = self.placements[pid].centres[0]
        rear = (old[0] - to[0], old[1] - to[1])
        return rear if any(rear) else self.rear_of(self.scn.units[self.placements[pid].unit].player)

    def rear_of(self, player: str) -> Coord:
        """The direction of the player's own Entry Edge (models are set behind their Leading Model)."""
        return EDGE_REAR[self.edges[player]]


__all__ = ["AUTO", "CONTEST_RANGE", "Placement", "Route", "World", "edge_distance"]
