"""Charge distance and Charge probability (rulebook 8.7.7 Charge, 8.5.3 Move, part 11 GRASS, FLYING).

8.7.7 step 2: "Roll 1D6 and add it to the Unit's Speed. This is the Charge Roll Distance.
Measure along the actual path of travel - bypass impassable obstacles. Follow Gap Clearance
rules (Part 4.6)." Step 3: the Charge succeeds only if the Leading Model can be set "Wholly
Within the Charge Roll Distance of its starting point", "Within the Engagement Range (1") of
every declared Charge target", "Not overlapping other bases or impassable terrain" and "Not
Within the Engagement Range of any Enemy Unit that was not declared as a target".

:func:`charge_distance` is the shortest distance the Leading Model's base centre travels to a
legal end position (every point of the base moves the same distance, so "Wholly Within" the
Charge Roll Distance of the start is the same as the centre travelling at most that far).

Method (configuration space): the base is a disc of radius ``r``, so the centre must stay out
of every obstacle grown by ``r`` (shapely ``buffer``). Path obstacles (8.5.3 step 1):

* terrain of Size 2+ ("The Leading Model cannot move through terrain of Size 2 or larger"),
  except GRASS ("does not block movement") and the pieces the Leading Model stands on; Size 0-1
  pieces and Tokens are passable;
* the bases of Ground models of other units, friendly or enemy ("may pass through Friendly
  models in its own Unit", "may not pass through Enemy models or Friendly models from other
  Units", "Ground models may pass through a Flying model's base");
* the table edge ("The Leading Model's entire base must end on the battlefield"; the path is
  kept on the table too).

The goal region (centre positions that are legal ends) is, per declared unit, the union of the
``1 + r`` buffers of its models' bases (one model per target Unit is nominated; the best one is
taken), intersected across the declared units, minus: every base of another unit grown by ``r``
(no overlap, touching allowed), every non-GRASS terrain footprint grown by ``r`` (Size 0-1: "Cannot
end movement overlapping the terrain's footprint"), the ``1 + r`` zone of every Enemy Ground model
of an undeclared unit, and everything off the table.

Undeclared Flying enemies do not push the end away (they are never Engaged, 7.2.1). The goal
region also keeps the Flying models' bases out (8.5.3: "may not end overlapping ... another
model's base"), although the path may cross them.

By default (``engage=True``) the end must also Engage a model of every declared unit: 7.2.1 "Even
Within 1", a Size 2+ wall between them means they are not Engaged", and a Charge "moves into the
Engagement Range of Enemy Units" to fight them (8.8.1: "attacks Enemy Units it is Engaged with").
``engage=False`` applies only the literal 8.7.7 step 3 "Within the Engagement Range (1")" test.

The shortest path is found with A* (Dijkstra guided by the straight distance to the goal region)
over a visibility graph: the start, the corners of the grown obstacles, and goal points (segments
tested against the boxes of the grown obstacles and the table edges, then exactly: a segment clearly inside
or outside a grown base's circle is decided without its polygon, in compiled code, :func:`_segments_hit`, the
others by shapely). Goal points are an
APPROXIMATION: the goal region's boundary is sampled every :data:`GOAL_STEP` inches (at most
:data:`MAX_GOAL_SAMPLES` points), plus the nearest goal point of the start and of every corner
(which makes the open-table case exact); a true shortest path ending elsewhere on the boundary
(for example where a wall's shadow cuts the goal when ``engage`` is on) may be up to about half
a sample spacing shorter. Discs and rounded terrain corners are grown as circumscribed polygons
(every edge at least ``r`` away, at most ``r * (GROW - 1)``, under 0.5 % of ``r``, further), so the
path never cuts into a base or a wall and is at most a few thousandths of an inch too long around
curved parts. A start already touching a wall or a base (so inside its circumscribed polygon) is
handled by testing the first leg against that obstacle's inscribed polygon.

The Charge Roll and its probability (8.7.7 step 2; split Speed values) are in :mod:`.charge_roll`; the geometry of
the configuration space (grown obstacles, goal samples, segment tests, ACCESS POINT crossings), shared with
Moves (:mod:`.pathing`), is in :mod:`.cspace`; their names stay importable from here.

Elevation and ACCESS POINTs (8.5.3 ELEVATION, part 11 ACCESS POINT, IMPASSABLE TERRAIN, FAQ v1.0).
The text: "The Leading Model cannot change elevation unless it passes through an ACCESS POINT";
"ACCESS POINTS connect different elevation levels. Models change elevation only by moving through an
ACCESS POINT"; IMPASSABLE TERRAIN: "A terrain piece is Impassable if it has no Access Point connecting
it to an adjacent elevation level. Models cannot move through, onto, or across IMPASSABLE TERRAIN";
FAQ v1.0: "Ground Units cannot move directly between unconnected areas of High Ground"; and (Wobbly
Model Syndrome) the centre of a base on a piece stays over the piece. Readings:

* Levels: the playmat, and the top of every piece with ``surface = true``. On the playmat the
  obstacles are the ones above; on a piece's top the centre stays over its footprint, and the
  obstacles are the Size 2+ pieces set on it and the bases of models standing on it. The Leading
  Model leaves a level only through an ACCESS POINT of the piece (which joins its top to the level it
  stands on: the playmat or the piece under it).
* Passing an ACCESS POINT: the centre of the base crosses it (for a segment, any point of it; sampled
  every :data:`PORTAL_STEP` inches); on the level below, the base may overlap the piece only while its
  centre is within one base radius of that point.
* The climb counts. 8.5.3: "Measure the actual path travelled" and "No part of a base of the Leading
  Model can move more than its unit Speed value"; 8.7.7 step 2: "Measure along the actual path of
  travel". Where the rulebook wants a distance measured horizontally it says so (FLYING: "The Leading
  Model moves point-to-point, measuring horizontally"; ENGAGEMENT RANGE: "measured horizontally from a
  top-down perspective, ignoring vertical height (Part 4.1)"), so a Ground model's path includes the
  climb: each pass through an ACCESS POINT of a piece adds the piece's ``height``, up or down (a ladder:
  vertical). Terrain Size is not a length, so ``height`` (inches) is board data; a shortest path that
  climbs a piece without one is REFUSED (:class:`~mathhammer.errors.InputError` naming the piece and
  field) rather than guessed. Part 4.1 (measuring) is not in the rulebook seed: ``count_climb=False``
  measures top-down only, for players who agree so. A sloped RAMP (8.5.3: "Size 1 MID GROUND terrain"
  entered "through the ramp's two ACCESS POINTS") is a Size 1 surface piece with two ACCESS POINTs; its
  climb is counted as vertical too (at most the slope's horizontal length too long).
* Ends: Engaged (``engage``) uses :func:`~mathhammer.board.engagement.engaged` at the end position and
  level, so the 7.2.1 elevation rules apply ("Models on HIGH GROUND cannot Engage models on GROUND
  LEVEL"; MID GROUND only next to the same ACCESS POINT). "Not Within the Engagement Range of any Enemy
  Unit that was not declared" is measured horizontally on every level (ENGAGEMENT RANGE ignores height).

Not modelled: the Part 4.6 Gap Clearance size categories (the text of 4.6 is not in the rulebook
seed; only the base itself must fit through a gap here, the least any category can ask), LARGE (X).

>>> from mathhammer.board.model import Board, Model, Unit
>>> a, b = Model("a", 5, 5, base_mm=25.4), Model("b", 15, 5, base_mm=25.4)
>>> board = Board(44, 30, units=(Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
>>> round(charge_distance(board, "a", ["y"]).length, 3)
8.0
>>> charge_probability(8.0, 6)
0.8333333333333334
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from ..errors import InputError
from .charge_roll import (
    charge_probabilities,
    charge_probability,
    charge_probability_exact,
    speed_values,
)
from .cspace import (
    GROW,
    QUAD_SEGS,
    SLACK,
    _boxes_meet,
    _buffer,
    _disc,
    _disc_box,
    _goal_samples,
    _off_table,
    _outside_each,
    _segments_hit,
    _table,
    _zones,
    blocks_path,
    corner_points,
    crossings,
    grown_footprint,
)
from .engagement import ENGAGEMENT_RANGE, engaged
from .fastways import Pack, pack_each, pair_status
from .model import EPS, Board, Coord, Model, shape_bounds


@dataclass(frozen=True)
class ChargePath:
    """The shortest legal Charge move of the Leading Model's centre.

    Attributes:
        path: the points from the start to the end position, or None when no legal end is reachable.
        length: the path length in inches (``inf`` when unreachable, 0 when already in place), climbs included.
        levels: per point of ``path``, the level of the centre there: None (GROUND LEVEL, on the playmat) or
            the id of the surface piece it is on; an ACCESS POINT shows as two points, one per level.
        climb: the vertical part of ``length`` (the ``height`` of each piece climbed up or down), inches.
    """

    path: tuple[Coord, ...] | None
    length: float
    levels: tuple[str | None, ...] = ()
    climb: float = 0.0

    @property
    def reachable(self) -> bool:
        return self.path is not None

    @property
    def end(self) -> Coord | None:
        return None if self.path is None else self.path[-1]


def _check_charge(board: Board, lead: Model, target_unit_ids: Sequence[str], engaged_ok: bool = False) -> list[str]:
    if isinstance(target_unit_ids, str):
        target_unit_ids = [target_unit_ids]
    targets = list(dict.fromkeys(target_unit_ids))
    if not targets:
        raise InputError("targets", list(target_unit_ids), "at least one declared target unit (8.7.7 step 1)")
    own = board.unit_of(lead)
    if own.flying:
        raise InputError("leading model", lead.id, "a Ground model (FLYING: 'A Flying Unit cannot Charge')")
    for tid in targets:
        unit = board.unit(tid)
        if unit.side == own.side:
            raise InputError("targets", tid, "an Enemy unit (8.7.7: 'moves into the Engagement Range of Enemy Units')")
        if unit.flying:
            raise InputError("targets", tid, "a Ground unit (8.7.7 step 1: 'Flying Units cannot Charge or be Charged')")
    # the enemy units with a model Within 1" of one of the unit's (7.2.1: no pair of the others can be Engaged)
    near = [u for u in board.units if u.side != own.side and not own.apart(u, ENGAGEMENT_RANGE + EPS)]
    if not engaged_ok and any(engaged(board, m, e) for u in near for m in own.models for e in u.models):
        raise InputError("leading model", lead.id, "a model of an Unengaged unit (8.7.7: 'An Unengaged Ground Unit')")
    return targets


@dataclass
class _Level:
    """One level the Leading Model's centre moves on: the playmat (``key`` None) or the top of a surface piece."""

    key: str | None
    #: path obstacles grown by r (circumscribed); None for a base's disc until :attr:`obstacles` is read (a straight
    #: Charge reads only those near its line: :meth:`tight_near`)
    made: list[Polygon | None]
    #: the same grown by r with grow 1 (never too big), for a start touching one; None for a base: its disc, made where
    #: it is read (:meth:`inscribed_of`)
    inscribed: list[Polygon | None]
    owners: list[str | None]  # the terrain piece each obstacle is, or None (a base, the fence)
    goal: BaseGeometry
    zone: tuple[float, float, float, float]  # the box of the goal before the bases are taken out of it
    circles: list[tuple[float, float, float] | None]  # per obstacle, a base's (centre x, y, radius + r)

    @property
    def obstacles(self) -> list[Polygon]:
        """The path obstacles grown by r (circumscribed), every base's disc made."""
        made = self.made
        for i, poly in enumerate(made):
            if poly is None:
                made[i] = self._disc_of(i)
        return made  # type: ignore[return-value]

    def _disc_of(self, i: int) -> Polygon:
        c = self.circles[i]
        assert c is not None
        return _disc((c[0], c[1]), c[2])

    def tight_near(self, box: tuple[float, float, float, float]) -> list[BaseGeometry]:
        """The obstacles shrunk by SLACK (the search's tight ones) whose circumscribed polygon's box meets ``box``, in
        their order: only those can contain a point of ``box`` or cross a segment inside it."""
        out: list[BaseGeometry] = []
        for i, poly in enumerate(self.made):
            c = self.circles[i]
            if poly is None:
                assert c is not None
                if _boxes_meet(_disc_box((c[0], c[1]), c[2]), box):
                    out.append(_buffer(self._disc_of(i), -SLACK))
            elif _boxes_meet(shape_bounds(poly), box):
                out.append(_buffer(poly, -SLACK))
        return out

    def inscribed_of(self, i: int) -> Polygon:
        """Obstacle ``i`` grown by r with grow 1."""
        poly, c = self.inscribed[i], self.circles[i]
        if poly is not None:
            return poly
        assert c is not None
        return _disc((c[0], c[1]), c[2], 1.0)


def _level(board: Board, lead: Model, targets: Sequence[str], key: str | None, through: int = 0) -> _Level:
    """Path obstacles and the goal region (legal end positions of the centre) on one level; ``through``: IMPASSABLE
    pieces (no ACCESS POINT) of this Size or less are no path obstacle (Raptor Strain). The bases' discs are made only
    where read: those whose boxes meet the goal's to take them out of it, the path's when :attr:`_Level.obstacles` is
    read."""
    r = lead.radius
    own = board.unit_of(lead)
    path: list[tuple[Polygon | None, Polygon | None, str | None]] = []
    circles: list[tuple[float, float, float] | None] = []
    # ends kept off: a polygon, or a base's disc as (centre, radius) (8.5.3, "may not end overlapping"), in order
    end_polys: list[BaseGeometry | tuple[Coord, float]] = []
    near_enemy: list[tuple[Coord, float]] = []  # (centre, radius) of each disc

    region: BaseGeometry = _table(board, r)
    pieces = [t for t in board.terrain if t.stands_on == key] if key is not None else list(board.terrain)
    for piece in pieces:
        big, small = grown_footprint(piece.polygon, r)
        if blocks_path(piece, through):
            path.append((big, small, piece.id))
            circles.append(None)
        if not piece.grass:
            end_polys.append(big)
    if key is not None:
        top = board.pieces[key].polygon
        region = region.intersection(top)  # FAQ v1.0 (Wobbly Model Syndrome): the centre stays over the piece
        w, d, k = board.width, board.depth, 2.0
        fence = Polygon([(-k, -k), (w + k, -k), (w + k, d + k), (-k, d + k)]).difference(top)
        path.append((fence, fence, None))
        circles.append(None)
    for m in board.models:
        unit = board.unit_of(m)
        if unit.id == own.id:
            continue
        same_level = m.stands_on == key or key is None
        if same_level or m.flying:
            end_polys.append((m.centre, m.radius + r))  # 8.5.3: "may not end overlapping ... another model's base"
        if not m.flying and same_level:
            path.append((None, None, None))  # its disc and inscribed disc: made where they are read
            circles.append((m.centre[0], m.centre[1], m.radius + r))
        if not m.flying and unit.side != own.side and unit.id not in targets:
            # ENGAGEMENT RANGE is "measured horizontally ... ignoring vertical height": every level
            near_enemy.append((m.centre, m.radius + ENGAGEMENT_RANGE + r))
    goal: BaseGeometry = region
    for tid in targets:
        discs = tuple((m.centre, m.radius + ENGAGEMENT_RANGE + r) for m in board.unit(tid).models)
        goal = goal.intersection(_zones(discs))
    # only the shapes whose boxes meet the goal's can take anything from it
    zone = goal.bounds if not goal.is_empty else (0.0, 0.0, -1.0, -1.0)
    near = [
        g if isinstance(g, BaseGeometry) else _disc(*g)
        for g in end_polys
        if _boxes_meet(shape_bounds(g) if isinstance(g, BaseGeometry) else _disc_box(*g), zone)
    ]
    near += [_disc(c, rad) for c, rad in near_enemy if _boxes_meet(_disc_box(c, rad), zone)]  # made where they meet
    if near:
        goal = goal.difference(shapely.union_all(near))
    return _Level(key, [p[0] for p in path], [p[1] for p in path], [p[2] for p in path], goal, zone, circles)


def _engages_all(board: Board, lead: Model, point: Coord, level: str | None, targets: Sequence[str]) -> bool:
    """Would the Leading Model at ``point`` on ``level`` be Engaged with a model of every target unit (7.2.1:
    no Size 2+ wall between, the elevation rules with ACCESS POINTs)?"""
    ghost = Model(lead.id + "\x00", point[0], point[1], base_mm=lead.base_mm, size=lead.size, stands_on=level)
    return all(any(engaged(board, ghost, m, enemies_only=False) for m in board.unit(tid).models) for tid in targets)


#: The path search tests only the moves that may come in under its bound (the tests turn this off to compare).
_BOUNDED = True
#: A start farther than this from the goal region is not in it grown by 1e-9 (:func:`charge_distance`'s test of a
#: Leading Model already in place), far above the rounding of that buffer.
_NEAR_GOAL = 1e-6


class _Nodes:
    """The search's nodes, one list per field (node ``i``: ``level[i]``, ``xy[i]``, ``goal[i]``); ``repl[i]``: obstacle
    index on the level -> the (tight) geometry to test instead, for segments touching node ``i`` (few nodes have one).
    """

    def __init__(self) -> None:
        self.level: list[str | None] = []
        self.xy: list[Coord] = []
        self.goal: list[bool] = []
        self.repl: dict[int, dict[int, BaseGeometry]] = {}

    def __len__(self) -> int:
        return len(self.xy)

    def add(self, level: str | None, xy: Coord, repl: dict[int, BaseGeometry] | None = None) -> None:
        if repl:
            self.repl[len(self.xy)] = repl
        self.level.append(level)
        self.xy.append(xy)
        self.goal.append(False)

    def extend(self, level: str | None, points: list[Coord], goal: bool = False) -> None:
        self.level.extend([level] * len(points))
        self.xy.extend(points)
        self.goal.extend([goal] * len(points))


def charge_distance(
    board: Board,
    leading_model_id: str,
    target_unit_ids: Sequence[str],
    *,
    engage: bool = True,
    count_climb: bool = True,
    max_length: float | None = None,
    examined: list[float] | None = None,
    engaged_ok: bool = False,
    through: int = 0,
    free_climb: bool = False,
) -> ChargePath:
    """The shortest distance the Leading Model must travel to a legal Charge end position (8.7.7).

    With ``engage`` (the default) the end must also Engage a model of every declared unit: no Size 2+
    piece (GRASS included) between them, and the 7.2.1 elevation rules (7.2.1: "Even Within 1", a Size 2+
    wall between them means they are not Engaged"; "Models on HIGH GROUND cannot Engage models on GROUND
    LEVEL"; 8.7.7: the Unit "moves into the Engagement Range of Enemy Units" to fight). ``engage=False``
    asks only for the literal 8.7.7 step 3 test, Within 1" measured horizontally.

    The Leading Model changes level only through an ACCESS POINT (8.5.3), and the climb counts: each
    pass through an ACCESS POINT of a piece adds the piece's ``height`` (module text). ``count_climb=False``
    measures top-down only (for players who agree so).

    ``max_length``: only paths up to this long are wanted (the longest Charge Distance the caller
    will compare against). Points farther than that from the start are left out of the search, and
    a charge needing more returns no path (length ``inf``); any path up to ``max_length`` is found
    exactly as without it.

    ``engaged_ok``: the charging unit may start Engaged (Lightning Dash: "a second Charge action against a
    different Enemy Unit, ignoring the restriction on Charging while Engaged"); the units it is Engaged with and
    does not declare still keep the end out of their Engagement Range (8.7.7 step 3).

    Raptor Strain ("This Unit can move through IMPASSABLE TERRAIN of Size 4 or less and change elevation without
    using ACCESS POINTS"): ``through`` (4): a piece without an ACCESS POINT (IMPASSABLE TERRAIN, part 11) of this
    Size or less is no path obstacle (the centre still cannot end over it); ``free_climb``: the Leading Model may
    change level anywhere on a surface piece's edge (sampled every :data:`CLIMB_STEP` inches), the climb counted as
    through an ACCESS POINT.

    ``examined`` ([x0, y0, x1, y1], filled in): a box such that the answer depends on the models of
    units other than the charger and the targets only through those whose shapes (a base grown by the
    Leading Model's radius and 1") meet it: the goal's box and the straight line where the answer is
    one, the whole plane where the path search ran (``inf`` bounds).

    Raises:
        InputError: an unknown id, a Flying charger or target ("Flying Units cannot Charge or be
            Charged"), a target of the charger's own side, a charger whose unit is Engaged (unless
            ``engaged_ok``), or a shortest path that climbs through an ACCESS POINT of a piece without a
            ``height``.
    """
    lead = board.model(leading_model_id)
    targets = _check_charge(board, lead, target_unit_ids, engaged_ok)
    start = lead.centre
    r = lead.radius
    keys: list[str | None] = [None] + [t.id for t in board.terrain if t.surface]
    levels = {k: _level(board, lead, targets, k, through) for k in keys}
    seen = examined if examined is not None else [0.0, 0.0, 0.0, 0.0]
    # one level: the goal reads the shapes meeting its box, and a straight answer runs from the start to a
    # point of the goal, so the box with the start holds it too
    if len(keys) == 1:
        z0, w0, z1, w1 = levels[None].zone
        seen[:] = [min(z0, start[0]), min(w0, start[1]), max(z1, start[0]), max(w1, start[1])]
    else:
        seen[:] = [-math.inf, -math.inf, math.inf, math.inf]
    if all(lv.goal.is_empty for lv in levels.values()):
        return ChargePath(None, math.inf)
    home = levels[lead.stands_on]
    # the goal grown by 1e-9 lies within 1e-9 of it (the buffer is read only where the start is that near: a far start
    # is outside it whatever its polygon, and the distance costs a fraction of the buffer of a goal of many vertices)
    if (
        shapely.distance(home.goal, Point(start)) <= _NEAR_GOAL
        and home.goal.buffer(1e-9).contains(Point(start))
        and (not engage or _engages_all(board, lead, start, lead.stands_on, targets))
    ):
        return ChargePath((start,), 0.0, (lead.stands_on,))

    strips = _off_table(board, r)
    if len(keys) == 1:  # one level: a straight move to the nearest end, where nothing is in the way
        straight = _straight_charge(board, lead, targets, home, strips, engage, max_length)
        if straight is not None:
            return straight
        seen[:] = [-math.inf, -math.inf, math.inf, math.inf]  # the search looks everywhere
    tight = {k: [_buffer(p, -SLACK) for p in lv.obstacles] for k, lv in levels.items()}
    geoms = {k: np.asarray([*tight[k], *strips], dtype=object) for k in keys}
    for arr in geoms.values():
        shapely.prepare(arr)  # the exact test in free() runs on prepared obstacles
    # the bases among them: (x, y, radius + r) per row, NaN for the terrain and the strips (see free())
    circ = {
        k: np.array([c if c is not None else (math.nan,) * 3 for c in lv.circles] + [(math.nan,) * 3] * len(strips))
        for k, lv in levels.items()
    }
    boxes = {k: np.ascontiguousarray(shapely.bounds(geoms[k]), dtype=np.float64).reshape(-1, 4) for k in keys}

    def outside(k: str | None, points: list[Coord]) -> list[Coord]:
        """The points on level ``k`` inside no tight obstacle or strip (``geoms[k]``)."""
        return _outside_each(geoms[k], boxes[k], points)

    # the start may touch a wall or a base (then it lies inside that circumscribed polygon): segments from it
    # are tested against the inscribed polygon of such an obstacle instead
    start_point = Point(start)
    start_repl = {
        i: home.inscribed_of(i).buffer(-SLACK) for i, big in enumerate(tight[home.key]) if big.contains(start_point)
    }
    nodes = _Nodes()
    nodes.add(home.key, start, start_repl)
    # ACCESS POINTs: a pair of nodes (the level below, the top of the piece) and the cost of passing
    links: dict[int, list[tuple[int, float, float, str | None]]] = {}
    for piece in board.terrain:
        if not piece.surface or not (piece.access_points or free_climb):
            continue
        below = levels[piece.stands_on]
        owned = [i for i, o in enumerate(below.owners) if o == piece.id]
        climb = 0.0 if not count_climb else (piece.height if piece.height is not None else 0.0)
        unknown = piece.id if count_climb and piece.height is None else None
        for x in crossings(piece, free_climb):
            up = nearest_points(piece.polygon, Point(x))[0]
            up_xy = (float(up.x), float(up.y))
            # the base may overlap the piece only while its centre is within one radius of the ACCESS POINT
            notch = Point(x).buffer(r * GROW, quad_segs=QUAD_SEGS)
            repl = {i: below.obstacles[i].difference(notch).buffer(-SLACK) for i in owned}
            lo, hi = len(nodes), len(nodes) + 1
            nodes.add(below.key, x, repl)
            nodes.add(piece.id, up_xy)
            # where a straight approach enters the notch: points just outside it
            for a in np.linspace(0, 2 * math.pi, 16, endpoint=False).tolist():
                c = (x[0] + 1.02 * r * GROW * math.cos(a), x[1] + 1.02 * r * GROW * math.sin(a))
                if outside(below.key, [c]):
                    nodes.add(below.key, c)
            step = math.dist(x, up_xy)
            links.setdefault(lo, []).append((hi, step, climb, unknown))
            links.setdefault(hi, []).append((lo, step, climb, unknown))
    for k in keys:
        corners = corner_points(shapely.union_all(levels[k].obstacles))
        nodes.extend(k, outside(k, corners))
    for k in keys:
        sources = [c for c, lv in zip(nodes.xy, nodes.level, strict=True) if lv == k]
        nodes.extend(k, outside(k, _goal_samples(levels[k].goal, sources)), goal=True)

    xy = np.array(nodes.xy)
    level_of = nodes.level
    by_level = {k: np.array([i for i, lv in enumerate(level_of) if lv == k], dtype=int) for k in keys}
    is_special = np.zeros(len(nodes), dtype=bool)  # nodes with their own obstacle geometry
    is_special[list(nodes.repl)] = True
    no_repl: dict[int, BaseGeometry] = {}

    packs: dict[str | None, Pack | None] = {}  # per level, its obstacles' plain arrays (fastways.pack_each)

    def free(i: int, js: np.ndarray) -> np.ndarray:
        """Which straight moves from node i to the nodes js (same level) cross no obstacle."""
        k_idx, p_idx, hit = _segments_hit(xy[i], xy[js], boxes[level_of[i]], circ[level_of[i]])
        todo = np.flatnonzero(hit < 0)
        if todo.size:  # the pairs not decided: their orientations (fastways: the answer shapely gives, where decided)
            lv = level_of[i]
            if lv not in packs:
                packs[lv] = pack_each(geoms[lv])
            packed = packs[lv]
            if packed is not None:
                status = pair_status(packed, xy[i], xy[js], k_idx[todo], p_idx[todo])
                sure = status < 2
                hit[todo[sure]] = status[sure]
                todo = todo[~sure]
        if todo.size:  # the exact test of the pairs still not decided: shapely
            lines = shapely.linestrings(np.stack([np.broadcast_to(xy[i], (todo.size, 2)), xy[js[k_idx[todo]]]], axis=1))
            hit[todo] = shapely.intersects(geoms[level_of[i]][p_idx[todo]], lines)
        hit = hit.astype(bool)
        k_idx, p_idx = k_idx[hit], p_idx[hit]
        out = np.ones(len(js), dtype=bool)
        n_obs = len(tight[level_of[i]])
        # a pair blocks, unless an end node has its own geometry for that obstacle (repl): tested below
        own = (p_idx < n_obs) & (is_special[i] | is_special[js[k_idx]])
        out[k_idx[~own]] = False
        k_idx, p_idx = k_idx[own], p_idx[own]
        for k, p in zip(k_idx.tolist(), p_idx.tolist(), strict=True):
            if not out[k]:
                continue
            j = int(js[k])
            ri = nodes.repl.get(i, no_repl).get(p)
            rj = nodes.repl.get(j, no_repl).get(p)
            if p >= n_obs or (ri is None and rj is None):
                out[k] = False
                continue
            geom = ri if rj is None else rj if ri is None else ri.intersection(rj)
            if shapely.LineString([xy[i], xy[j]]).intersects(geom):
                out[k] = False
        return out

    goals_all = shapely.union_all([lv.goal for lv in levels.values() if not lv.goal.is_empty])
    dist = [math.inf] * len(nodes)
    prev: list[tuple[int, float, str | None]] = [(-1, 0.0, None)] * len(nodes)
    dist[0] = 0.0
    done = np.zeros(len(nodes), dtype=bool)
    limit = math.inf if max_length is None else float(max_length) + 1e-9
    if max_length is not None:  # a point farther than max_length in a straight line is farther along any path
        done |= np.hypot(xy[:, 0] - start[0], xy[:, 1] - start[1]) > limit
        done[0] = False
    # the A* estimate (straight distance to the goal region), read for the nodes the search may reach only
    h_arr = np.full(len(nodes), math.inf)
    reach = np.flatnonzero(~done)
    h_arr[reach] = shapely.distance(shapely.points(xy[reach]), goals_all)
    h = h_arr.tolist()
    heap = [(h[0], 0)]
    is_goal = nodes.goal
    ends_ok: dict[int, bool] = {}  # per goal node: is it an end (Engaging every target, if asked)?

    def ends(j: int) -> bool:
        ok = ends_ok.get(j)
        if ok is None:
            ok = ends_ok[j] = not engage or _engages_all(board, lead, nodes.xy[j], level_of[j], targets)
        return ok

    # the estimate (dist + h) of a queued end, or the limit: the search ends before it pops anything above it, so a
    # move whose estimate exceeds it can neither be on the answer's path nor change what is popped before the answer
    bound = [limit]

    def relax(i: int, d: float, j: int, step: float, climb: float = 0.0, unknown: str | None = None) -> None:
        if d + step + climb < dist[j] - 1e-12:
            dist[j] = d + step + climb
            prev[j] = (i, climb, unknown)
            f = dist[j] + h[j]
            heapq.heappush(heap, (f, j))
            if is_goal[j] and f < bound[0] and ends(j):
                bound[0] = f

    while heap:
        _, i = heapq.heappop(heap)
        if done[i]:
            continue
        d = dist[i]
        if d + h[i] > limit:  # A*: every path left is longer than max_length
            break
        done[i] = True
        if is_goal[i]:  # the first goal point popped (and Engaging, if asked) is the nearest
            if not ends(i):
                continue
            return _result(nodes, prev, i, d)
        for j, step, climb, unknown in links.get(i, ()):
            if not done[j]:
                relax(i, d, j, step, climb, unknown)
        same = by_level[level_of[i]]
        todo = same[~done[same]]
        if len(todo) == 0:
            continue
        # only the moves that may come in under the bound (a margin far above rounding): the others would queue
        # estimates above it (free() and the steps are per node, so the answer is the same)
        if _BOUNDED:
            far = np.hypot(xy[todo, 0] - xy[i, 0], xy[todo, 1] - xy[i, 1])
            todo = todo[(d + far) + h_arr[todo] <= bound[0] + 1e-9]
            if len(todo) == 0:
                continue
        seen = todo[free(i, todo)]
        steps = np.hypot(xy[seen, 0] - xy[i, 0], xy[seen, 1] - xy[i, 1])
        for j, step in zip(seen.tolist(), steps.tolist(), strict=True):
            relax(i, d, j, step)
    return ChargePath(None, math.inf)


def _straight_charge(
    board: Board,
    lead: Model,
    targets: Sequence[str],
    home: _Level,
    strips: Sequence[Polygon],
    engage: bool,
    max_length: float | None,
) -> ChargePath | None:
    """On a board of one level, the answer of :func:`charge_distance`'s search where it is a straight line
    (None: search).

    The nearest point of the goal region is a goal node of the search (its ``shortest_line`` end from
    the start); no path can be shorter than the straight line to it, so when that line crosses none
    of the search's obstacles (the tight obstacles and off-table ``strips``), the start touches none of them
    and the end Engages every target, the search ends there with that length (A*: every other node's
    estimate is at least as long). Beyond ``max_length``: no path. Only the obstacles whose boxes meet the line's
    box are made and read (:meth:`_Level.tight_near`): no other can contain its ends or cross it. The same shapely
    calls as the search, so the same numbers, except where a vertex of the goal lies within rounding of that end: the
    search may then end at the vertex instead, some 1e-14 inches away (a tie the search breaks by the last
    bit of the lengths; the tests hold the two within 1e-9).
    """
    start = lead.centre
    xy0 = shapely.points(np.asarray([start], dtype=float))
    goals_all = shapely.union_all([home.goal])
    limit = math.inf if max_length is None else float(max_length) + 1e-9
    if float(shapely.distance(xy0, goals_all)[0]) > limit:
        return ChargePath(None, math.inf)  # the search stops at once: even a straight line is too long
    ends = shapely.get_coordinates(shapely.shortest_line(xy0, home.goal)).reshape(-1, 2, 2)[:, 1]
    end = (float(ends[0, 0]), float(ends[0, 1]))
    step = float(np.hypot(end[0] - start[0], end[1] - start[1]))
    if step > limit:
        return None
    box = (min(start[0], end[0]), min(start[1], end[1]), max(start[0], end[0]), max(start[1], end[1]))
    near = [*home.tight_near(box), *(p for p in strips if _boxes_meet(shape_bounds(p), box))]
    if near:
        geoms = np.asarray(near, dtype=object)
        shapely.prepare(geoms)
        if shapely.contains_xy(geoms, start[0], start[1]).any():
            return None  # the start touches a wall or a base: the search tests its segments differently
        if shapely.contains_xy(geoms, end[0], end[1]).any():
            return None
        line = shapely.linestrings(np.asarray([[start, end]], dtype=float))
        if shapely.intersects(geoms, line[0]).any():
            return None
    if engage and not _engages_all(board, lead, end, home.key, targets):
        return None
    return ChargePath((start, end), step, (home.key, home.key), 0.0)


def _result(nodes: _Nodes, prev: list[tuple[int, float, str | None]], last: int, length: float) -> ChargePath:
    path: list[Coord] = []
    levels: list[str | None] = []
    climb = 0.0
    unknown: list[str] = []
    k = last
    while k != -1:
        path.append(nodes.xy[k])
        levels.append(nodes.level[k])
        k, c, u = prev[k]
        climb += c
        if u is not None:
            unknown.append(u)
    if unknown:
        piece = unknown[-1]
        raise InputError(
            f"terrain {piece!r}.height",
            None,
            "the height of the piece's top in inches: the shortest Charge path climbs through its ACCESS POINT "
            "and the climb is part of 'the actual path travelled' (8.5.3, 8.7.7 step 2); or count_climb=False",
        )
    return ChargePath(tuple(reversed(path)), length, tuple(reversed(levels)), climb)


def charge_probability_for(
    board: Board, leading_model_id: str, target_unit_ids: Sequence[str], speed: int, *, engage: bool = True
) -> float:
    """The chance the Leading Model's Charge at the declared units succeeds (0 when no legal end is reachable)."""
    path = charge_distance(board, leading_model_id, target_unit_ids, engage=engage)
    return charge_probability(path.length, speed)


__all__ = [
    "ChargePath",
    "charge_distance",
    "charge_probabilities",
    "charge_probability",
    "charge_probability_exact",
    "charge_probability_for",
    "speed_values",
]
