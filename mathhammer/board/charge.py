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
tested with a shapely ``STRtree`` of the grown obstacles and the table edges). Goal points are an
APPROXIMATION: the goal region's boundary is sampled every :data:`GOAL_STEP` inches (at most
:data:`MAX_GOAL_SAMPLES` points), plus the nearest goal point of the start and of every corner
(which makes the open-table case exact); a true shortest path ending elsewhere on the boundary
(for example where a wall's shadow cuts the goal when ``engage`` is on) may be up to about half
a sample spacing shorter. Discs and rounded terrain corners are grown as circumscribed polygons
(every edge at least ``r`` away, at most ``r * (GROW - 1)``, under 0.5 % of ``r``, further), so the
path never cuts into a base or a wall and is at most a few thousandths of an inch too long around
curved parts. A start already touching a wall or a base (so inside its circumscribed polygon) is
handled by testing the first leg against that obstacle's inscribed polygon.

The Charge Roll (8.7.7 step 2): "Roll 1D6 and add it to the Unit's Speed. This is the Charge Roll
Distance" (Abathur's TIP: "The Charge Roll is your Speed plus 1D6"). :func:`charge_probability` is
P(Speed + 1D6 >= distance). Which number of a split Speed value ("4/7") is "the Unit's Speed" is
set in Part 5.1 (8.5.3: "see Part 5.1 for split Speed values"), which is not in the rulebook seed;
8.7.7 names no Run or Charge value, so ``speed`` is a single number chosen by the caller, and the
second number of a split value is NOT assumed to be the Charge value.

Not modelled: elevation and ACCESS POINTS (the Leading Model is taken to move on one level; a
piece it stands on is ignored), the Part 4.6 Gap Clearance size categories (the text of 4.6 is
not in the rulebook seed; only the base itself must fit through a gap here), LARGE (X).

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
from fractions import Fraction

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from ..errors import InputError
from .engagement import ENGAGEMENT_RANGE, engaged
from .model import EPS, Board, Coord, Model
from .trace import free_trace

#: segments per quarter circle for grown bases and rounded corners.
QUAD_SEGS = 8
#: spacing of the goal-boundary samples, inches.
GOAL_STEP = 0.1
#: at most this many evenly spaced goal-boundary samples (the spacing grows on very long boundaries).
MAX_GOAL_SAMPLES = 600
#: slack when testing a segment against grown obstacles (lets paths graze a corner or edge).
SLACK = 1e-6


@dataclass(frozen=True)
class ChargePath:
    """The shortest legal Charge move of the Leading Model's centre.

    Attributes:
        path: the points from the start to the end position, or None when no legal end is reachable.
        length: the path length in inches (``inf`` when unreachable, 0 when already in place).
    """

    path: tuple[Coord, ...] | None
    length: float

    @property
    def reachable(self) -> bool:
        return self.path is not None

    @property
    def end(self) -> Coord | None:
        return None if self.path is None else self.path[-1]


#: polygonal buffers are grown by this factor so that every edge is at least the wanted distance away.
GROW = 1.0 / math.cos(math.pi / (4 * QUAD_SEGS))


def _disc(centre: Coord, radius: float, grow: float = GROW) -> Polygon:
    """A polygon around a disc (every edge at least ``radius`` from the centre; inside it when ``grow`` is 1)."""
    return Point(centre).buffer(radius * grow, quad_segs=QUAD_SEGS)


def _check_charge(board: Board, lead: Model, target_unit_ids: Sequence[str]) -> list[str]:
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
    enemies = [m for m in board.models if board.unit_of(m).side != own.side]
    if any(engaged(board, m, e) for m in own.models for e in enemies):
        raise InputError("leading model", lead.id, "a model of an Unengaged unit (8.7.7: 'An Unengaged Ground Unit')")
    return targets


def _obstacles(
    board: Board, lead: Model, targets: Sequence[str], grow: float = GROW
) -> tuple[list[Polygon], BaseGeometry]:
    """(the path obstacles grown by r, the goal region); ``grow`` 1 gives inscribed polygons (never too big)."""
    r = lead.radius
    own = board.unit_of(lead)
    under = {p.id for p in board.stack(lead.stands_on)}
    path_polys: list[Polygon] = []
    end_polys: list[BaseGeometry] = []
    for piece in board.terrain:
        if piece.id in under:
            continue
        grown = piece.polygon.buffer(r * grow, quad_segs=QUAD_SEGS)
        if piece.size >= 2 and not piece.grass and not piece.token:
            path_polys.append(grown)
        if not piece.grass:
            end_polys.append(grown)
    near_enemy: list[BaseGeometry] = []
    for m in board.models:
        unit = board.unit_of(m)
        if unit.id == own.id:
            continue
        disc = _disc(m.centre, m.radius + r, grow)
        end_polys.append(disc)
        if not m.flying:
            path_polys.append(disc)
            if unit.side != own.side and unit.id not in targets:
                near_enemy.append(_disc(m.centre, m.radius + ENGAGEMENT_RANGE + r))
    goal: BaseGeometry = _table(board, r)
    for tid in targets:
        zone = shapely.union_all(
            [Point(m.centre).buffer(m.radius + ENGAGEMENT_RANGE + r, quad_segs=64) for m in board.unit(tid).models]
        )
        goal = goal.intersection(zone)
    blocked = shapely.union_all(end_polys + near_enemy) if end_polys or near_enemy else Polygon()
    goal = goal.difference(blocked)
    return path_polys, goal


def _table(board: Board, inset: float) -> Polygon:
    """Where a base centre of radius ``inset`` may be: the table shrunk by ``inset`` (grown when negative)."""
    w, d = board.width, board.depth
    return Polygon([(inset, inset), (w - inset, inset), (w - inset, d - inset), (inset, d - inset)])


def _off_table(board: Board, r: float) -> list[Polygon]:
    """Four strips along the table edges where a base centre of radius ``r`` may not go (SLACK inside)."""
    w, d, m, k = board.width, board.depth, r - SLACK, 1.0
    return [
        Polygon([(-k, -k), (w + k, -k), (w + k, m), (-k, m)]),
        Polygon([(-k, d - m), (w + k, d - m), (w + k, d + k), (-k, d + k)]),
        Polygon([(-k, -k), (m, -k), (m, d + k), (-k, d + k)]),
        Polygon([(w - m, -k), (w + k, -k), (w + k, d + k), (w - m, d + k)]),
    ]


def _corners(geom: BaseGeometry) -> list[Coord]:
    out: list[Coord] = []
    for poly in getattr(geom, "geoms", [geom]):
        if poly.is_empty or not isinstance(poly, Polygon):
            continue
        for ring in [poly.exterior, *poly.interiors]:
            out.extend((float(x), float(y)) for x, y in list(ring.coords)[:-1])
    return out


def _goal_samples(goal: BaseGeometry, sources: list[Coord]) -> list[Coord]:
    out: list[Coord] = []
    boundary = goal.boundary
    length = boundary.length
    if length > 0:
        n = min(MAX_GOAL_SAMPLES, max(8, math.ceil(length / GOAL_STEP)))
        pts = shapely.line_interpolate_point(boundary, np.linspace(0, length, n, endpoint=False))
        out.extend((float(p.x), float(p.y)) for p in pts)
    out.extend(_corners(goal))
    for s in sources:
        near = nearest_points(Point(s), goal)[1]
        out.append((float(near.x), float(near.y)))
    return out


def _engages_all(board: Board, lead: Model, point: Coord, targets: Sequence[str]) -> bool:
    """Would the Leading Model at ``point`` be Engaged with a model of every target unit (no Size 2+ wall between)?"""
    under = {p.id for p in board.stack(lead.stands_on)}
    for tid in targets:
        ok = False
        for m in board.unit(tid).models:
            if math.dist(point, m.centre) - lead.radius - m.radius > ENGAGEMENT_RANGE + EPS:
                continue
            skip = under | {p.id for p in board.stack(m.stands_on)}
            walls = [p.polygon for p in board.terrain if p.size >= 2 and p.id not in skip]
            if free_trace(point, lead.radius, m.centre, m.radius, walls) is not None:
                ok = True
                break
        if not ok:
            return False
    return True


def charge_distance(
    board: Board, leading_model_id: str, target_unit_ids: Sequence[str], *, engage: bool = True
) -> ChargePath:
    """The shortest distance the Leading Model must travel to a legal Charge end position (8.7.7).

    With ``engage`` (the default) the end must also Engage a model of every declared unit: no Size 2+
    piece (GRASS included) between them (7.2.1: "Even Within 1", a Size 2+ wall between them means
    they are not Engaged"; 8.7.7: the Unit "moves into the Engagement Range of Enemy Units" to fight).
    ``engage=False`` asks only for the literal 8.7.7 step 3 test, Within 1".

    Raises:
        InputError: an unknown id, a Flying charger or target ("Flying Units cannot Charge or be
            Charged"), a target of the charger's own side, or a charger whose unit is Engaged.
    """
    lead = board.model(leading_model_id)
    targets = _check_charge(board, lead, target_unit_ids)
    path_polys, goal = _obstacles(board, lead, targets)
    walls = shapely.union_all(path_polys) if path_polys else Polygon()
    start = lead.centre
    if goal.is_empty:
        return ChargePath(None, math.inf)
    if goal.buffer(1e-9).contains(Point(start)) and (not engage or _engages_all(board, lead, start, targets)):
        return ChargePath((start,), 0.0)
    r = lead.radius
    # segments are tested against obstacles shrunk by SLACK, and kept on the table
    tight = [p.buffer(-SLACK) for p in path_polys]
    # the start may touch a wall or a base (then it lies inside that circumscribed polygon): segments from the
    # start are tested against the inscribed polygon of such an obstacle instead
    inscribed = [p.buffer(-SLACK) for p in _obstacles(board, lead, targets, grow=1.0)[0]]
    start_point = Point(start)
    start_tight = [ins if big.contains(start_point) else big for big, ins in zip(tight, inscribed, strict=True)]
    strips = _off_table(board, r)
    tree = shapely.STRtree([*tight, *strips])
    start_tree = shapely.STRtree([*start_tight, *strips])
    solid = shapely.union_all([*tight, *strips])
    shapely.prepare(solid)
    corners = [c for c in _corners(walls) if not solid.contains(Point(c))]
    nodes: list[Coord] = [start, *corners]
    goals = [g for g in _goal_samples(goal, nodes) if not solid.contains(Point(g))]
    n_nodes = len(nodes)
    points = nodes + goals
    xy = np.array(points)

    def visible(i: int, js: np.ndarray) -> np.ndarray:
        lines = shapely.linestrings(np.stack([np.broadcast_to(xy[i], (len(js), 2)), xy[js]], axis=1))
        hit = (start_tree if i == 0 else tree).query(lines, predicate="intersects")[0]
        free = np.ones(len(js), dtype=bool)
        free[hit] = False
        return free

    # A*: the straight distance to the goal region never overestimates what is left (and is consistent)
    h = shapely.distance(shapely.points(xy), goal).tolist()
    dist = [math.inf] * len(points)
    prev = [-1] * len(points)
    dist[0] = 0.0
    heap = [(h[0], 0)]
    done = np.zeros(len(points), dtype=bool)
    everything = np.arange(len(points))
    while heap:
        _, i = heapq.heappop(heap)
        if done[i]:
            continue
        d = dist[i]
        done[i] = True
        if i >= n_nodes:  # the first goal point popped (and Engaging, if asked) is the nearest
            if engage and not _engages_all(board, lead, points[i], targets):
                continue
            path: list[Coord] = []
            k = i
            while k != -1:
                path.append(points[k])
                k = prev[k]
            return ChargePath(tuple(reversed(path)), d)
        todo = everything[~done]
        if len(todo) == 0:
            continue
        seen = todo[visible(i, todo)]
        steps = np.hypot(xy[seen, 0] - xy[i, 0], xy[seen, 1] - xy[i, 1])
        for j, step in zip(seen.tolist(), steps.tolist(), strict=True):
            if d + step < dist[j] - 1e-12:
                dist[j] = d + step
                prev[j] = i
                heapq.heappush(heap, (d + step + h[j], j))
    return ChargePath(None, math.inf)


def _check_speed(speed: int) -> int:
    if isinstance(speed, bool) or not isinstance(speed, int) or speed < 0:
        raise InputError("speed", speed, "the Unit's Speed, a whole number of inches, 0 or more")
    return speed


def charge_probability_exact(distance: float, speed: int) -> Fraction:
    """P(Speed + 1D6 >= distance) as a fraction (8.7.7 step 2: "Roll 1D6 and add it to the Unit's Speed").

    >>> charge_probability_exact(9, 6)
    Fraction(2, 3)
    """
    speed = _check_speed(speed)
    if isinstance(distance, bool) or not isinstance(distance, int | float) or math.isnan(distance) or distance < 0:
        raise InputError("distance", distance, "a distance in inches, 0 or more (inf when unreachable)")
    need = distance - speed  # the die must show at least this
    if need <= 1:
        return Fraction(1)
    if need > 6:
        return Fraction(0)
    return Fraction(6 - math.ceil(need - 1e-9) + 1, 6)


def charge_probability(distance: float, speed: int) -> float:
    """P(Speed + 1D6 >= distance): the chance a Charge Roll Distance covers ``distance`` inches (8.7.7)."""
    return float(charge_probability_exact(distance, speed))


def charge_probability_for(
    board: Board, leading_model_id: str, target_unit_ids: Sequence[str], speed: int, *, engage: bool = True
) -> float:
    """The chance the Leading Model's Charge at the declared units succeeds (0 when no legal end is reachable)."""
    path = charge_distance(board, leading_model_id, target_unit_ids, engage=engage)
    return charge_probability(path.length, speed)


__all__ = [
    "GOAL_STEP",
    "ChargePath",
    "charge_distance",
    "charge_probability",
    "charge_probability_exact",
    "charge_probability_for",
]
