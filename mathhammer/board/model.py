"""The battlefield: terrain pieces, models on round bases, units (rulebook 7.1-7.3, part 11).

Everything is measured top-down in inches (rulebook: LINE OF SIGHT "resolved from a
2D top-down perspective"; ENGAGEMENT RANGE "measured horizontally"). Base diameters
are given in millimetres, as printed on the base, and converted with 25.4 mm = 1".
Distances are base edge to base edge (WITHIN: "any part of its base touches or
crosses into that range").

Instances are immutable and validated on construction; a bad field is an
:class:`~mathhammer.errors.InputError` naming it, and a :class:`Board` whose items
do not fit together (overlapping bases, a base off the table, an unknown
``stands_on``) raises :class:`BoardError` listing every problem.

>>> wall = Terrain("wall", ((10, 10), (10.5, 10), (10.5, 16), (10, 16)), size=2)
>>> marine = Model("m1", x=12, y=13, base_mm=25, size=2)
>>> board = Board(44, 30, terrain=(wall,), units=(Unit("marines", "terran", (marine,)),))
>>> round(board.distance_to_terrain(marine, wall), 3)
1.008
>>> board.effective_size(marine), board.elevation(marine)
(2, 'ground')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from ..errors import InputError, MathhammerError
from .tolerance import EPS as EPS  # (kept apart: compiled kernels read it)

MM_PER_INCH = 25.4


_BOUNDS: dict[int, tuple[BaseGeometry, tuple[float, float, float, float]]] = {}
#: the most geometries :func:`shape_bounds` keeps (memory flat in the number of board states read)
BOUNDS_KEPT = 1 << 13


def shape_bounds(geom: BaseGeometry) -> tuple[float, float, float, float]:
    """``geom.bounds``, kept for the same geometry object (terrain footprints and the cached discs are read in
    every board state; geometries are immutable).

    >>> sq = Polygon([(0, 0), (2, 0), (2, 1), (0, 1)])
    >>> shape_bounds(sq), shape_bounds(sq) is shape_bounds(sq)
    ((0.0, 0.0, 2.0, 1.0), True)
    """
    hit = _BOUNDS.get(id(geom))
    if hit is None or hit[0] is not geom:
        if len(_BOUNDS) > BOUNDS_KEPT:
            _BOUNDS.clear()
        hit = _BOUNDS[id(geom)] = (geom, geom.bounds)
    return hit[1]


#: the largest coordinate accepted, in inches either way (a table is at most 1000" wide; beyond this, geometry
#: libraries overflow).
MAX_COORD = 10_000.0

#: per terrain (by the tuple's identity, the tuple kept with it): each piece's Effective Size by its id
#: (:meth:`Board.terrain_effective_size`) and :meth:`Board.sight_pieces`; at most :data:`TERRAIN_KEPT` terrains
_STACKED: dict[int, tuple[tuple[Terrain, ...], dict[str, int], tuple[tuple[Terrain, int], ...]]] = {}
TERRAIN_KEPT = 64
#: per (footprint by identity, centre): the footprint's distance to the centre (:meth:`Board.distance_to_terrain`)
_DISTANCES: dict[tuple[int, Coord], tuple[BaseGeometry, float]] = {}
DISTANCES_KEPT = 1 << 15

#: the largest terrain or model Size accepted (cards go up to Size 5-6; stacking adds up).
MAX_SIZE = 20

Elevation = Literal["ground", "mid", "high"]
Coord = tuple[float, float]


class BoardError(MathhammerError):
    """One or more problems with a board; ``problems`` holds one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def _coord(field_name: str, value: object) -> Coord:
    try:
        pair: tuple[Any, ...] = tuple(value)  # type: ignore[arg-type]
        out: Coord = (float(pair[0]), float(pair[1]))
        if len(pair) != 2:
            raise ValueError
    except (TypeError, ValueError, IndexError):
        raise InputError(field_name, value, "a point [x, y] in inches") from None
    if not all(math.isfinite(v) and abs(v) <= MAX_COORD for v in out):
        raise InputError(
            field_name, value, f"a point [x, y] of finite numbers of inches from {-MAX_COORD:g} to {MAX_COORD:g}"
        )
    return out


def polygon_problem(points: Sequence[Coord]) -> str | None:
    """Why ``points`` is not a usable footprint, or None.

    >>> polygon_problem([(0, 0), (1, 0), (1, 1)]) is None
    True
    >>> polygon_problem([(0, 0), (1, 1), (1, 0), (0, 1)])
    'the outline crosses itself (Self-intersection[0.5 0.5])'
    >>> polygon_problem([(0, 0), (float("nan"), 0), (1, 1)])
    'corners [x, y] of finite numbers of inches from -10000 to 10000'
    """
    if len(points) < 3:
        return "at least 3 corners [x, y]"
    if not all(math.isfinite(v) and abs(v) <= MAX_COORD for p in points for v in p):
        return f"corners [x, y] of finite numbers of inches from {-MAX_COORD:g} to {MAX_COORD:g}"
    poly = Polygon(points)
    if not poly.is_valid:
        return f"the outline crosses itself ({shapely.is_valid_reason(poly)})"
    if poly.area <= EPS:
        return "an outline with a positive area (not all corners on one line)"
    return None


@dataclass(frozen=True)
class Terrain:
    """A terrain piece (7.1, 7.3.1 for tokens).

    Attributes:
        id: unique name on the board.
        footprint: corners of the top-down outline, inches (its "physical base or
            outermost edges viewed from above"; gaps and windows inside block, 7.1).
        size: the terrain Size (0 for tokens and flat pieces).
        surface: models can stand on it (its top is a horizontal surface).
        stands_on: id of the piece this one is set on (stacking, 7.1.2), or None.
        access_points: ACCESS POINTs on this piece, each one point or a segment
            (a tuple of one or two [x, y]).
        grass: the GRASS keyword (Size 2 for Line of Sight, no effect on movement).
        token: a Token (7.3.1): Size 0, never blocks.
        height: the physical height of the piece's top above what it stands on, inches, or None.
            Terrain Size is not a length; a Charge that climbs through an ACCESS POINT of a piece
            needs it (8.5.3 "Measure the actual path travelled", :mod:`mathhammer.board.charge`).
    """

    id: str
    footprint: tuple[Coord, ...]
    size: int = 0
    surface: bool = False
    stands_on: str | None = None
    access_points: tuple[tuple[Coord, ...], ...] = ()
    grass: bool = False
    token: bool = False
    height: float | None = None

    def __post_init__(self) -> None:
        where = f"terrain {self.id!r}"
        if self.height is not None and (
            isinstance(self.height, bool)
            or not isinstance(self.height, int | float)
            or not math.isfinite(self.height)
            or not 0 <= self.height <= 100
        ):
            raise InputError(f"{where}.height", self.height, "the height of the piece's top in inches, 0 to 100")
        if not isinstance(self.id, str) or not self.id.strip():
            raise InputError("terrain.id", self.id, "a non-empty name")
        pts = tuple(_coord(f"{where}.footprint", p) for p in self.footprint)
        problem = polygon_problem(pts)
        if problem:
            raise InputError(f"{where}.footprint", list(self.footprint), problem)
        object.__setattr__(self, "footprint", pts)
        if isinstance(self.size, bool) or not isinstance(self.size, int) or not 0 <= self.size <= MAX_SIZE:
            raise InputError(f"{where}.size", self.size, f"a whole number from 0 to {MAX_SIZE}")
        if self.grass and self.size != 2:
            raise InputError(f"{where}.size", self.size, "2 for GRASS (part 11: 'A terrain piece with a Size of 2')")
        if self.token and self.size != 0:
            raise InputError(f"{where}.size", self.size, "0 for a Token (7.3.1: 'Treat them as Terrain (Size 0)')")
        aps = []
        for i, ap in enumerate(self.access_points):
            ap_pts = tuple(_coord(f"{where}.access_points[{i}]", p) for p in ap)
            if len(ap_pts) not in (1, 2):
                raise InputError(f"{where}.access_points[{i}]", list(ap), "one point [x, y] or a segment of two")
            aps.append(ap_pts)
        object.__setattr__(self, "access_points", tuple(aps))

    @cached_property
    def polygon(self) -> Polygon:
        """The footprint as a shapely polygon."""
        return Polygon(self.footprint)

    @cached_property
    def access_geometry(self) -> tuple[BaseGeometry, ...]:
        return tuple(Point(ap[0]) if len(ap) == 1 else LineString(ap) for ap in self.access_points)

    @property
    def blocks_sight(self) -> bool:
        """Can this piece ever block a trace? Only pieces that rise: own Size 1+, not a Token (7.1.2, 7.3.1)."""
        return self.size >= 1 and not self.token


@dataclass(frozen=True)
class Model:
    """A model on a round base.

    Attributes:
        id: unique name on the board.
        x, y: centre of the base, inches.
        base_mm: base diameter in millimetres (25, 32, 40, 50, 60 ...).
        size: the model's Size characteristic.
        stands_on: id of the terrain piece it stands on, or None (on the playmat).
        flying: the Flying Combat Tag (otherwise Ground).
    """

    id: str
    x: float
    y: float
    base_mm: float = 25.0
    size: int = 1
    stands_on: str | None = None
    flying: bool = False

    def __post_init__(self) -> None:
        where = f"model {self.id!r}"
        if not isinstance(self.id, str) or not self.id.strip():
            raise InputError("model.id", self.id, "a non-empty name")
        for name in ("x", "y"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise InputError(f"{where}.{name}", value, "a finite number of inches")
        if isinstance(self.base_mm, bool) or not isinstance(self.base_mm, int | float) or not 0 < self.base_mm <= 500:
            raise InputError(f"{where}.base_mm", self.base_mm, "a base diameter in mm, above 0 and at most 500")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or not 0 <= self.size <= MAX_SIZE:
            raise InputError(f"{where}.size", self.size, f"a whole number from 0 to {MAX_SIZE}")

    @cached_property
    def radius(self) -> float:
        """Base radius in inches (read once: the fields are frozen)."""
        return self.base_mm / MM_PER_INCH / 2

    @property
    def centre(self) -> Coord:
        return (float(self.x), float(self.y))

    @cached_property
    def base(self) -> Polygon:
        """The base as a polygon (64 segments per quarter; exact distances use :attr:`centre` and :attr:`radius`)."""
        return Point(self.centre).buffer(self.radius, quad_segs=64)

    def distance(self, other: Model) -> float:
        """Base edge to base edge, inches (0 when touching or overlapping)."""
        gap = math.dist((self.x, self.y), (other.x, other.y)) - self.radius - other.radius  # math.dist: as float(x)
        return max(0.0, gap)


@dataclass(frozen=True)
class Unit:
    """A unit: its models, an id and the side (player) it belongs to.

    Attributes:
        hidden: the HIDDEN status (part 11): not Visible to models more than 4" away.
    """

    id: str
    side: str
    models: tuple[Model, ...]
    hidden: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise InputError("unit.id", self.id, "a non-empty name")
        if not isinstance(self.side, str) or not self.side.strip():
            raise InputError(f"unit {self.id!r}.side", self.side, "a non-empty side (player) name")
        object.__setattr__(self, "models", tuple(self.models))
        if not self.models:
            raise InputError(f"unit {self.id!r}.models", [], "at least one model")

    @property
    def flying(self) -> bool:
        return any(m.flying for m in self.models)

    @cached_property
    def box(self) -> tuple[float, float, float, float]:
        """The box (x0, y0, x1, y1) holding every model's base (read once: the fields are frozen): no base of another
        unit is nearer than the gap between the two boxes."""
        ms = self.models
        return (
            min(m.x - m.radius for m in ms),
            min(m.y - m.radius for m in ms),
            max(m.x + m.radius for m in ms),
            max(m.y + m.radius for m in ms),
        )

    def apart(self, other: Unit, reach: float) -> bool:
        """Is every model of this unit more than ``reach`` from every model of ``other`` (:meth:`Model.distance`), read
        on the two boxes (a margin of 1e-9 over the rounding)? False where it cannot tell."""
        a, b = self.box, other.box
        return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3]) > reach + 1e-9


@dataclass(frozen=True)
class Board:
    """A battlefield of ``width`` x ``depth`` inches with terrain and units.

    Raises:
        BoardError: every problem at once (duplicate ids, unknown or cyclic
            ``stands_on``, a base off the table or overlapping another base, a
            model standing on a piece that has no horizontal top, a model whose
            centre is not over the piece it stands on).
    """

    width: float
    depth: float
    terrain: tuple[Terrain, ...] = ()
    units: tuple[Unit, ...] = ()
    _unit_of: dict[str, Unit] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("width", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1000:
                raise InputError(f"battlefield.{name}", value, "a size in inches, above 0 and at most 1000")
        object.__setattr__(self, "terrain", tuple(self.terrain))
        object.__setattr__(self, "units", tuple(self.units))
        for unit in self.units:
            for m in unit.models:
                self._unit_of[m.id] = unit
        problems = board_problems(self)
        if problems:
            raise BoardError(problems)

    @classmethod
    def trusted(cls, width: float, depth: float, terrain: tuple[Terrain, ...], units: tuple[Unit, ...]) -> Board:
        """A board from parts already known to be legal, built without the :func:`board_problems` pass.

        For callers that set models by rules that keep them legal (the scenario simulation places
        units off terrain, on the table and apart, then reads thousands of boards made of those
        placements); the test suite holds such boards to :func:`board_problems`.
        """
        b = object.__new__(cls)
        object.__setattr__(b, "width", width)
        object.__setattr__(b, "depth", depth)
        object.__setattr__(b, "terrain", tuple(terrain))
        object.__setattr__(b, "units", tuple(units))
        object.__setattr__(b, "_unit_of", {m.id: u for u in b.units for m in u.models})
        return b

    # -- look-ups -------------------------------------------------------------------------------
    @cached_property
    def pieces(self) -> dict[str, Terrain]:
        return {t.id: t for t in self.terrain}

    @property
    def models(self) -> Iterator[Model]:
        for unit in self.units:
            yield from unit.models

    def model(self, model_id: str) -> Model:
        for m in self.models:
            if m.id == model_id:
                return m
        raise InputError("model", model_id, "a model id of the board: " + ", ".join(m.id for m in self.models))

    def unit(self, unit_id: str) -> Unit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise InputError("unit", unit_id, "a unit id of the board: " + ", ".join(u.id for u in self.units))

    def unit_of(self, model: Model) -> Unit:
        return self._unit_of[model.id]

    # -- elevation ------------------------------------------------------------------------------
    def stack(self, piece_id: str | None) -> tuple[Terrain, ...]:
        """The piece and every piece under it, top first."""
        out: list[Terrain] = []
        while piece_id is not None and piece_id in self.pieces and len(out) <= len(self.terrain):
            piece = self.pieces[piece_id]
            out.append(piece)
            piece_id = piece.stands_on
        return tuple(out)

    def terrain_effective_size(self, piece: Terrain) -> int:
        """Own Size plus the Size of everything it is set on (7.1.2 Stacking Terrain); read once per terrain (every
        board of a scenario's table shares its terrain)."""
        return self._stacked()[1].get(piece.id, 0)  # read by its id on this board, as :meth:`stack` reads it

    def sight_pieces(self) -> tuple[tuple[Terrain, int], ...]:
        """The pieces that can block a trace (:attr:`Terrain.blocks_sight`), in board order, each with its Effective
        Size (:meth:`terrain_effective_size`); read once per terrain (Line of Sight reads them for every model pair)."""
        return self._stacked()[2]

    def _stacked(self) -> tuple[tuple[Terrain, ...], dict[str, int], tuple[tuple[Terrain, int], ...]]:
        """The terrain's :data:`_STACKED` entry, made on its first read."""
        terrain = self.terrain
        kept = _STACKED.get(id(terrain))
        if kept is None or kept[0] is not terrain:
            if len(_STACKED) >= TERRAIN_KEPT:
                _STACKED.clear()
            sizes = {t.id: sum(p.size for p in self.stack(t.id)) for t in terrain}
            sight = tuple((p, sizes[p.id]) for p in terrain if p.blocks_sight)
            kept = _STACKED[id(terrain)] = (terrain, sizes, sight)
        return kept

    def surface_height(self, model: Model) -> int:
        """Sum of the Sizes under the model's base (0 on the playmat)."""
        return sum(p.size for p in self.stack(model.stands_on))

    def effective_size(self, model: Model) -> float:
        """Model Size plus the terrain stood on (7.1.2); ``inf`` for Flying (7.1.4: "higher than ... any terrain")."""
        if model.flying:
            return math.inf
        return model.size + self.surface_height(model)

    def elevation(self, model: Model) -> Elevation:
        """GROUND LEVEL, MID GROUND (Size 1-2) or HIGH GROUND (Size 3+), by the total height stood on (part 11).

        A Flying model uses its physical position too (2.4 note: "A Flying Unit standing on the
        playmat is at GROUND LEVEL"); the Flying rules that ignore elevation are applied by the callers.
        """
        height = self.surface_height(model)
        if model.stands_on is None:
            return "ground"
        return "high" if height >= 3 else "mid"

    def ground_piece(self, model: Model) -> Terrain | None:
        """The bottom piece of the stack the model stands on (the one whose foot is on the playmat)."""
        stack = self.stack(model.stands_on)
        return stack[-1] if stack else None

    # -- distances ------------------------------------------------------------------------------
    def distance_to_terrain(self, model: Model, piece: Terrain) -> float:
        """Base edge to the nearest part of the footprint, inches (0 if touching or over it). The footprint's
        distance to a centre is kept (at most :data:`DISTANCES_KEPT`): a model's is read against each model of another
        unit (Line of Sight's cover, 7.1.1), and the same models stand in many boards."""
        poly, centre = piece.polygon, model.centre
        key = (id(poly), centre)
        kept = _DISTANCES.get(key)
        if kept is None or kept[0] is not poly:
            if len(_DISTANCES) >= DISTANCES_KEPT:
                _DISTANCES.clear()
            kept = _DISTANCES[key] = (poly, poly.distance(Point(centre)))
        return max(0.0, kept[1] - model.radius)

    def within_terrain(self, model: Model, piece: Terrain, inches: float = 1.0) -> bool:
        """WITHIN ``inches`` of any part of the piece (FAQ v1.0: any part of the same piece counts)."""
        return self.distance_to_terrain(model, piece) <= inches + EPS


def board_problems(board: Board) -> list[str]:
    """Every reason the board's items do not fit together, one line each (empty: fine)."""
    problems: list[str] = []
    for kind, ids in (
        ("terrain", [t.id for t in board.terrain]),
        ("unit", [u.id for u in board.units]),
        ("model", [m.id for m in board.models]),
    ):
        twice = sorted(i for i, n in Counter(ids).items() if n > 1)
        problems.extend(f"{kind} {i!r}: id used twice; allowed: unique {kind} ids" for i in twice)
    pieces = {t.id: t for t in board.terrain}
    table = Polygon([(0, 0), (board.width, 0), (board.width, board.depth), (0, board.depth)])
    for t in board.terrain:
        if t.stands_on is not None:
            if t.stands_on not in pieces:
                problems.append(f"terrain {t.id!r}.stands_on: got {t.stands_on!r}; allowed: a terrain id")
                continue
            below = pieces[t.stands_on]
            if not below.surface:
                problems.append(
                    f"terrain {t.id!r}.stands_on: got {t.stands_on!r}; allowed: a piece with surface = true"
                )
            chain: list[str] = [t.id]
            pid: str | None = t.stands_on
            while pid is not None and pid in pieces:
                if pid in chain:
                    problems.append(f"terrain {t.id!r}.stands_on: pieces stand on each other in a loop")
                    break
                chain.append(pid)
                pid = pieces[pid].stands_on
            if not t.polygon.representative_point().within(below.polygon):
                problems.append(f"terrain {t.id!r}: not over the piece it stands on ({t.stands_on!r})")
        if not t.polygon.within(table.buffer(EPS)):
            problems.append(f"terrain {t.id!r}.footprint: extends off the {board.width:g}x{board.depth:g} table")
    models = list(board.models)
    edge = table.buffer(1e-6)
    for m in models:
        where = f"model {m.id!r}"
        if not m.base.within(edge):
            problems.append(f'{where}: base off the table (centre ({m.x:g}, {m.y:g}), radius {m.radius:.3f}")')
        if m.stands_on is not None:
            piece = pieces.get(m.stands_on)
            if piece is None:
                problems.append(f"{where}.stands_on: got {m.stands_on!r}; allowed: a terrain id")
            elif not piece.surface:
                problems.append(f"{where}.stands_on: got {m.stands_on!r}; allowed: a piece with surface = true")
            elif not Point(m.centre).within(piece.polygon.buffer(EPS)):
                # FAQ v1.0 (Wobbly Model Syndrome): the centre of the base must stay over the High Ground piece.
                problems.append(f"{where}: centre not over the piece it stands on ({m.stands_on!r})")
    from .overlaps import overlap_problems  # a sweep, not every pair: 5,000 models stacked are 12.5M pairs

    problems.extend(overlap_problems(models))
    return problems
