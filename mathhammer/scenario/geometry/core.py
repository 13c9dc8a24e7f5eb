"""The board state shared by the geometry parts: the placements (interned), bases, boards, and the memo.

Every fact is cached by the placements and models left, so each board state is read once (issue 5: geometry
stays out of the Monte Carlo loop); every cache is a table of the World's one memo
(:class:`~mathhammer.scenario.memo.Memo`). Three computations are kept with the box of every point they tested
against the other units' bases (a Charge path, the placement of a charging unit, a Close Ranks move;
:meth:`~mathhammer.scenario.memo.Memo.boxed`): a base farther than its radius + the unit's + 1" from that box
changes none of those tests, so a later board with the same bases near the box gets the same answer without
computing it again.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, cached_property, lru_cache
from typing import Any, TypeVar

import numpy as np
from shapely.geometry.base import BaseGeometry

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH, Board, Model, Terrain, Unit
from .. import fastranks
from ..fastnear import Centres, Span
from ..memo import BoxEntry, Memo, SharedAnswers
from ..spec import ModelsLeft, Scenario, ScenarioUnit

Coord = tuple[float, float]
#: the opponent's Zone of Influence for an arriving unit (8.3.3): the opponent's Entry Edge and the zone's depth
Zone = tuple[str, float]
#: the most discs :meth:`World._blocked` keeps (one per candidate spot and base radius: memory flat in the games)
DISCS_KEPT = 1 << 12
#: the most answers :meth:`World._on_terrain` keeps (per spot, base radius and level: memory flat in the games)
ON_TERRAIN_KEPT = 1 << 16
#: the most levels :meth:`World.level_at` keeps (per point; a board table kept across renewed Worlds: memory flat in
#: the games, which ask it at new points)
LEVELS_KEPT = 1 << 15
#: Gap between neighbouring bases when a unit is set (inches).
GAP = 0.1
#: 8.9.1: "At least one model is Within 3" ... of the marker" (a 32 mm marker, 7.3.2).
CONTEST_RANGE = 3.0
MARKER_MM = 32.0
#: 8.8.1 step 1 CLOSE RANKS: "Choose a Leading Model and move it up to 3\"".
CLOSE_RANKS_MOVE = 3.0
#: Close Ranks sets a model In Coherency as :meth:`World.place` does: at most one base spacing and this
#: many inches from a model of the unit already set, with a Coherency Link to it (:mod:`.ranks`).
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


def nearest_heading(rear: Coord, headings: int) -> Coord:
    """The unit vector of the compass heading nearest to the direction ``rear`` among ``headings`` headings evenly
    spaced from north (a multiple of 4: a symmetry of the table, a reflection or the half-turn, maps the set onto
    itself, so the heading of an image direction is the image heading). North is +y, east +x; the four axis
    headings are exact, and the others bit-exact images of each other: a heading is computed in the first quarter
    (the sine and cosine of a heading of its first half, swapped for its mirror image in the second; the diagonal
    sqrt(1/2) both ways), then turned by quarter turns, which only swap and negate."""
    return _heading(round(math.atan2(rear[0], rear[1]) / (2 * math.pi / headings)) % headings, headings)


@cache
def _heading(k: int, headings: int) -> Coord:
    """:func:`nearest_heading`'s unit vector of the ``k``-th of ``headings`` headings, computed once (a few dozen)."""
    step = 2 * math.pi / headings
    q = headings // 4
    quarter, r = divmod(k, q)
    if r == 0:  # north, east, south, west
        return ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0))[quarter]
    if 2 * r == q:
        x = y = math.sqrt(0.5)
    else:
        x, y = math.sin(min(r, q - r) * step), math.cos(min(r, q - r) * step)
        if 2 * r > q:  # the quarter's second half: the mirror image across its diagonal
            x, y = y, x
    for _ in range(quarter):  # a quarter turn clockwise (north to east)
        x, y = y, -x
    return (x, y)


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

#: The Close Ranks grid fallback: the spots of a hexagonal grid laid in the unit's own frame around the Leading Model
#: (:func:`close_ranks_grid`), at most ``GRID_SPAN`` steps from it (``step``: a base and a gap).
GRID_SPAN = 6


def close_ranks_grid(lead_to: Coord, step: float, back: Coord) -> np.ndarray:
    """The spots of the Close Ranks grid fallback around the Leading Model at ``lead_to`` (rows): the hexagonal grid of
    :func:`_grid_frame` laid in the unit's frame, ``back`` (a unit vector: the rear) and the lateral (``back`` turned
    90 degrees counter-clockwise), as :meth:`~.placement.Placing._grid_order` lays a formation. The same spots on both
    sides of the unit: a symmetry of the table maps the grid at one Leading Model onto the grid at its image with the
    image rear (``tests/test_mirror_map.py``)."""
    frame = _grid_frame(step)
    lat, fwd = frame[:, 0], frame[:, 1]
    bx, by = back
    # each coordinate as fastranks.close_ranks_search computes it (the same doubles)
    return np.stack([lead_to[0] + lat * -by - fwd * bx, lead_to[1] + lat * bx - fwd * by], axis=1)


@lru_cache(maxsize=64)
def _grid_frame(step: float) -> np.ndarray:
    """:func:`close_ranks_grid` in the unit's frame: (lateral, how far ahead) of each spot, the Leading Model's own
    (0, 0) among them: ``step * (a + b / 2, b * sqrt(3) / 2)`` for a, b and a + b in -GRID_SPAN..GRID_SPAN (a
    hexagon, the same on both sides of the unit)."""
    span = range(-GRID_SPAN, GRID_SPAN + 1)
    out = np.asarray(
        [(step * (a + 0.5 * b), step * (math.sqrt(3) / 2) * b) for a in span for b in span if abs(a + b) <= GRID_SPAN]
    )
    out.setflags(write=False)
    return out


def close_ranks_grid_box(lead_to: Coord, step: float) -> tuple[np.ndarray, np.ndarray]:
    """A box holding every spot of :func:`close_ranks_grid` whatever the unit's rear: ``GRID_SPAN`` steps (the
    hexagon's outer radius) each way from the Leading Model, and 0.01" more."""
    half = step * GRID_SPAN + 0.01
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


def player_rows(scn: Scenario) -> dict[str, int]:
    """Per player: its row of :class:`FoeRows` (1, 2, ... in the units' order; row 0 is a Flying unit's)."""
    return {p: k + 1 for k, p in enumerate(dict.fromkeys(su.player for su in scn.units.values()))}


class FoeRows:
    """Per row (a player's, or row 0: a Flying unit's) and placement made so far: is it an Enemy Ground unit's to that
    player (:meth:`Routes._packed_bases <.routes.Routes._packed_bases>`)? ``n`` placements filled."""

    def __init__(self, rows: int) -> None:
        self.table = np.zeros((rows, 256), dtype=bool)
        self.n = 0


class BoardState:
    """The board state shared by the geometry parts: the placements (interned), bases, boards and caches."""

    def __init__(self, scn: Scenario) -> None:
        self.scn = scn
        self.board = scn.board
        #: ``[policy] casualties``: the order of every placement (:mod:`.placement`); fixed per World,
        #: so the placement cache needs no policy in its key.
        self.casualties = scn.policy.casualties
        self.uids = list(scn.units)
        #: every answer of the geometry (its tables and box memos), shared with the other forked workers where
        #: :attr:`shared` is set (:mod:`mathhammer.scenario.memo`)
        self.memo = memo = Memo()
        #: the box memos (:meth:`Memo.boxed`): the placement of a charging unit, a Charge path, a Close Ranks move
        self._spots_memo: dict[tuple[object, ...], list[BoxEntry]] = memo.table("box:spots")
        self._charge_entries: dict[tuple[object, ...], list[BoxEntry]] = memo.table("box:charge")
        self._close_memos: dict[tuple[object, ...], list[BoxEntry]] = memo.table("box:close")
        self._radii: dict[str, float] = memo.table("radii")  # per unit: its base radius (_radius)
        self.index = {u: i for i, u in enumerate(self.uids)}
        #: per unit, :func:`mobility` (Raptor Strain)
        self.mobility = {u: mobility(su) for u, su in scn.units.items()}
        self.placements: list[Placement] = []
        self._contents: dict[int, int] = memo.table("contents")
        self._packed = Centres()  # every placement's centres, for the compiled near tests (near_many, near_box_many)
        #: per player (row 1 + its index; row 0: a Flying unit's) and placement: is it an Enemy Ground unit's
        #: (:meth:`Routes._foe_rows <.routes.Routes._foe_rows>` fills it as placements are made)
        self._foes = FoeRows(len(player_rows(scn)) + 1)
        #: the last :meth:`Routes._packed_bases <.routes.Routes._packed_bases>` read: its ``occupied`` and unit, the
        #: placements and flags
        self._last_bases: tuple[tuple[int, ...], object, np.ndarray, np.ndarray] | None = None
        self._last_occ: tuple[tuple[int, ...], np.ndarray] | None = None  # Routes._clear_of: the last placements read
        self._place_cache: dict[tuple[object, ...], int | None] = memo.table("place_cache")
        self._placed: dict[tuple[object, ...], int | None] = memo.table(
            "placed"
        )  # place(): its arguments as given -> the answer
        self._boards: dict[tuple[object, ...], Board] = memo.table("boards")
        self._models: dict[int, tuple[Model, ...]] = memo.table("models")
        self._contest: dict[tuple[int, int], float] = memo.table("contest")
        self._facts: dict[tuple[object, ...], object] = memo.table("facts")
        self._charges: dict[tuple[object, ...], tuple[float, Coord | None]] = memo.table("charges")
        # _charge_local: (charger, its Leading Model, the step, the models near it by content, ...) -> the answer
        self._local_charges: dict[tuple[object, ...], tuple[float, Coord | None]] = memo.table("local_charges")
        #: near(): per gap asked (and per gap rounded to 6 places), the answers by the two placement ids (packed)
        self._near: dict[object, dict[int, bool]] = memo.table("near")
        self._within: dict[tuple[int, int, int, int, float], int] = memo.table("within")
        self._sight: dict[tuple[int, int, int, int], bool] = memo.table("sight")
        self._near_marker: dict[tuple[int, int, float], int] = memo.table("near_marker")
        self._pid: dict[Placement, int] = memo.table("pid")
        self._pairs: dict[tuple[int, int, int, int], bool] = memo.table("pairs")
        self._pair_sets: dict[tuple[tuple[int, ...], tuple[int, ...]], frozenset[tuple[str, str]]] = memo.table(
            "pair_sets"
        )
        self._centre_boxes: dict[int, tuple[float, float, float, float, float]] = memo.table("centre_boxes")
        self._strikers: dict[tuple[object, ...], int] = memo.table("strikers")
        self._blockers: dict[str | None, list[BaseGeometry]] = memo.table("blockers")
        self._boxes: dict[str | None, list[tuple[float, float, float, float, BaseGeometry]]] = memo.table(
            "blocker_boxes"
        )
        self._discs: dict[tuple[Coord, float], BaseGeometry] = memo.table("discs")
        self._terrain_answers: dict[tuple[Coord, float, str | None], bool] = memo.table("on_terrain")
        self._tops: dict[str, BaseGeometry] = memo.table("tops")
        self._levels: dict[Coord, str | None] = memo.table("levels")
        self._close: dict[tuple[object, ...], int] = memo.table("close")
        self._close_lead: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = memo.table("close_lead")
        self._engaged_before: dict[tuple[object, ...], frozenset[str]] = memo.table("engaged_before")
        self._close_boxes: dict[tuple[object, ...], tuple[np.ndarray | None, np.ndarray | None, float]] = memo.table(
            "close_boxes"
        )
        self._near_boxes: dict[tuple[object, int], bool] = memo.table("near_boxes")
        self._close_grid: dict[tuple[object, ...], int] = memo.table("close_grid")
        self._grid_orders: dict[tuple[int, float, Coord, int], list[Coord]] = memo.table("grid_orders")
        self._place_near: dict[tuple[object, ...], int | None] = memo.table("place_near")
        self._bare_near: dict[tuple[object, ...], int | None] = memo.table("bare_near")
        self._among: dict[tuple[object, ...], int | None] = memo.table("place_among")  # at most AMONG_LIMIT
        self._rears: dict[tuple[int, Coord, int | None], Coord] = memo.table("rears")  # at most AMONG_LIMIT
        self._centre_arrays: dict[int, np.ndarray] = memo.table("centre_arrays")
        self._respawns: dict[tuple[object, ...], tuple[int, int]] = memo.table("respawns")
        self._packs: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = memo.table(
            "packs"
        )

    def _intern(self, placement: Placement) -> int:
        """The id of ``placement``: the same models in the same places get one id, one board state."""
        result = self._pid.get(placement)
        if result is None:
            self.placements.append(placement)
            result = self._pid[placement] = len(self.placements) - 1
        return result

    def content(self, pid: int) -> int:
        """A 128-bit digest of placement ``pid``'s content (unit, centres, level): the same in every process, where
        ids are each process's own (:class:`~mathhammer.scenario.memo.SharedAnswers`); -1 for no placement."""
        if pid < 0:
            return -1
        hit = self._contents.get(pid)
        if hit is None:
            hit = self._contents[pid] = int.from_bytes(
                hashlib.blake2b(repr(self.placements[pid]).encode(), digest_size=16).digest(), "little"
            )
        return hit

    @property
    def shared(self) -> SharedAnswers | None:
        """The answers shared with the other forked workers (:meth:`Memo.share`, parallel.play), or None."""
        return self.memo.shared

    @shared.setter
    def shared(self, value: SharedAnswers | None) -> None:
        self.memo.shared = value

    def near_box(self, key: object, pid: int, lo: np.ndarray, hi: np.ndarray, reach: float) -> bool:
        """``pid in self._near_box((pid,), lo, hi, reach)``, cached under ``key`` (naming the box and reach)."""
        k = (key, pid)
        hit = self._near_boxes.get(k)
        if hit is None:
            if len(self._near_boxes) > 1 << 20:
                self._near_boxes.clear()
            hit = self._near_boxes[k] = bool(self._near_box((pid,), lo, hi, reach))
        return hit

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

    def models_left(self, su: ScenarioUnit, left: int) -> ScenarioUnit:
        """``su`` as a Move, Run or Deploy sets it with ``left`` models on the table (:class:`ModelsLeft`; ``su``
        itself at full strength): the formation holds the models left only."""
        if left >= su.models or left <= 0:
            return su
        hit = self._left_units.get((su.id, left))
        if hit is None:
            hit = ModelsLeft(su.id, su.player, su.loadout, su.summoned_by, su.parent, left)
            self._left_units[su.id, left] = hit
        return hit

    @cached_property
    def _left_units(self) -> dict[tuple[str, int], ScenarioUnit]:
        return {}

    def trimmed(self, pid: int, left: int) -> int:
        """Placement ``pid`` with its first ``left`` models only (the models left: the others removed, 8.7.4 step 5,
        are off the table and nobody's obstacle), interned."""
        p = self.placements[pid]
        return self._intern(Placement(p.unit, p.centres[:left], p.level)) if left < len(p.centres) else pid

    def sizes(self) -> np.ndarray:
        """Per placement id: its number of models (centres), for every placement made so far."""
        have = self._sizes
        n = len(self.placements)
        if have.size < n:
            more = np.fromiter((len(p.centres) for p in self.placements[have.size :]), dtype=np.int64)
            have = self._sizes = np.concatenate([have, more])
        return have

    @cached_property
    def _sizes(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)

    def _centres(self, pid: int) -> np.ndarray:
        hit = self._centre_arrays.get(pid)
        if hit is None:
            hit = self._centre_arrays[pid] = np.asarray(self.placements[pid].centres, dtype=float).reshape(-1, 2)
        return hit

    def _pack(self, key: tuple[object, ...], polys: Callable[[], Sequence[BaseGeometry]]) -> tuple[np.ndarray, ...]:
        """:func:`fastranks.pack` of the polygons ``polys()``, kept under ``key``."""
        hit = self._packs.get(key)
        if hit is None:
            hit = self._packs[key] = fastranks.pack(polys())
        return hit

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

    def centres_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every placement made so far, packed (:meth:`Centres.arrays`: starts, centres, radii), for compiled code
        reading :meth:`near` as :func:`~mathhammer.scenario.fastnear.near_one` does."""
        return self._centres_packed().arrays()

    def near_pairs(self, pairs: np.ndarray, gap: float) -> np.ndarray:
        """:meth:`near` of each pair of placements (rows of ``pairs``; compiled, the same answers)."""
        return self._centres_packed().near_pairs(pairs, gap)

    def centres_many(self, pids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every centre of each placement of ``pids`` (int64), one after the other (rows x, y: :meth:`_centres` of
        each, concatenated), and each placement's count."""
        starts, xy, _ = self._centres_packed().arrays()
        lo = starts[pids]
        counts = starts[pids + 1] - lo
        # the rows of each placement: lo, lo + 1, ... (its offset in the concatenation taken away)
        at = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
        return xy[at], counts

    def beyond_many(self, pids: np.ndarray, pts: np.ndarray, caps: np.ndarray, eps: float) -> np.ndarray:
        """Per placement of ``pids`` (rows) and point of ``pts`` (columns; inf where none): is the point farther than
        ``caps`` (per point) + ``eps`` from the placement's Leading Model (compiled, :meth:`Centres.beyond_many`)?"""
        return self._centres_packed().beyond_many(pids, pts, caps, eps)

    def least_distances(
        self, pa: np.ndarray, ka: np.ndarray, pb: np.ndarray, kb: np.ndarray, span: Span = None
    ) -> np.ndarray:
        """Per row: the least centre distance between the first ``ka`` models of placement ``pa`` and the first ``kb``
        of ``pb`` (int64 arrays; compiled, :meth:`Centres.least_many`, read as far as its ``span`` asks)."""
        return self._centres_packed().least_many(pa, ka, pb, kb, span)

    def near_box_many(self, pids: np.ndarray, lo: np.ndarray, hi: np.ndarray, reach: float) -> np.ndarray:
        """Per placement of ``pids``: is it in :meth:`_near_box` (compiled, the same answers)?"""
        return self._centres_packed().near_box(pids, lo, hi, reach)

    @cached_property
    def edges(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.scn.deployment.entry_edges.items()}


#: The step of the square grid a model is looked for on, Wholly Within the Horizontal Coherency of the Leading Model,
#: where the spot lists find it no spot there (4.4: a model that finds none is removed as a casualty)
FINE = 0.02


#: The cells the fine grid is read by first, inches: a fine spot is at most ``COARSE / sqrt(2)`` from its cell's centre
COARSE = 0.1


def cell_slack(r: float) -> float:
    """How much nearer a base or terrain a cell's centre may be than a free fine spot of the cell, for a base of
    radius ``r``: half the cell's diagonal, and the most by which the base's 32-gon (the terrain test's disc) falls
    inside its circle, ``r (1 - cos(pi / 32))``, with a margin."""
    return COARSE / math.sqrt(2) + r * (1 - math.cos(math.pi / 32)) + 1e-6


@lru_cache(maxsize=16)
def fine_cells(reach: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per spot of :func:`fine_arrays` its cell of :data:`COARSE` (an index), and the cells' centres (lateral, ahead),
    kept per reach."""
    lat, fwd = fine_arrays(reach)
    cells, inv = np.unique(
        np.stack([np.rint(lat / COARSE), np.rint(fwd / COARSE)], axis=1), axis=0, return_inverse=True
    )
    clat, cfwd = np.ascontiguousarray(cells[:, 0] * COARSE), np.ascontiguousarray(cells[:, 1] * COARSE)
    return np.ascontiguousarray(inv.ravel()), clat, cfwd


@lru_cache(maxsize=16)
def fine_arrays(reach: float) -> tuple[np.ndarray, np.ndarray]:
    """The square grid of :data:`FINE` within ``reach`` of its centre (lateral, ahead), kept per reach."""
    k = np.arange(-math.floor(reach / FINE), math.floor(reach / FINE) + 1) * FINE
    lat, fwd = (a.ravel() for a in np.meshgrid(k, k))
    inside = np.hypot(lat, fwd) <= reach + EPS
    lat, fwd = np.ascontiguousarray(lat[inside]), np.ascontiguousarray(fwd[inside])
    lat.flags.writeable = fwd.flags.writeable = False
    return lat, fwd
