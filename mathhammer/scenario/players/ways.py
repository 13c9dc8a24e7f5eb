"""The automatic players' ``marker_moves`` and ``marker_gap`` (:mod:`.features`): how far a point is from contesting
each Mission Marker along the shortest way round the terrain the unit cannot cross (8.5.3,
:mod:`mathhammer.board.ways`), and in Moves, with the unit's next Move read on its own menu.

* The way (:func:`way_lengths`): the length of the Leading Model's shortest way from the point into the marker's
  contest range (8.9.1: Within :data:`~mathhammer.scenario.world.CONTEST_RANGE`), round the terrain; a Flying unit
  moves point-to-point (part 11 FLYING): the straight line. ``marker_gap`` reads it as inches to the marker (the way
  plus the contest range: the straight gap where the straight line is clear).
* The Moves (:func:`marker_ways`): a unit goes only where its menu's Move points are (:mod:`.menu`), so from an end
  point it takes one Move to a Move point of its menu it reaches on the empty table (8.5.3: the way round the terrain
  at most its Speed, :func:`.menu._step_ok`), then the fewest such Moves between its Move points into the contest
  range (:func:`_ahead`, breadth first): 1 + that count. 0 where the point contests the marker already;
  :data:`FAR_MOVES` where no chain of Moves leads there (a corner of the menu the unit cannot leave).

Why so (benchmarks/RESULTS.md, session 11, h-ways; session 12, h-stim4): the straight line through a Size 3 ridge read
a unit behind it as near as one beside it, and a Marine of the doubled list stayed there for its cover (session 10);
the way alone (its Moves from the end point, whole or fractional) ended units in the menu's corners they could not
leave (the way goes on, the menu does not). Session 11 read the next Move on the menu, then the way at the Speed with
the BUFF Speed of Stimpack, in whole Moves: a Move point a short step along the way read as many Moves as the point
it left, so a unit at a cover spot (its 0.25) stayed there, 3 Moves from a marker, the whole game (with the grown
footprints' corners on the menu, twice the minerals with Stimpack fell to 23.5% of 200 games). Counted on the menu, a
Move along the menu's shortest chain is always one Move nearer; the Moves are at the unit's own Speed (a Stimpack
the card may not pay for is not counted on: with it, 82.5% against 85.0%, seed 52).

The ways and the reach of a Move are a function of the board, the unit's base, Speed and Raptor Strain and the points
alone: kept in the World's memo (:mod:`mathhammer.scenario.memo`) by that content (coordinates and numbers), so every
Simulation and every game of a World reads a point's ways once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import shapely

from ...board.fastways import leg_status
from ...board.model import MM_PER_INCH
from ...board.ways import WayGraph
from ..world import CONTEST_RANGE
from .menu import MARGIN, _radius, _step_ok

#: the ``marker_moves`` of a point from which no way leads to a marker
FAR_MOVES = 10
#: the most answers kept per table (memory bounded: cleared past it; these tables outlive a renewed World and an entry
#: with its key takes a few hundred bytes, so a bound reached within some thousands of objective games, a few MB)
MEMO_LIMIT = 1 << 15
#: the most point sets :func:`_interned` keeps (cleared past it: a key then holds its own copy, the answers the same)
INTERNED_LIMIT = 1 << 10
#: a way round the corners this far from a Move's limit decides the Move here (the route's own sum of the same legs
#: differs by rounding only, far less); nearer, the route is asked
DECIDED = 1e-6


def _interned(world: Any, points: np.ndarray) -> bytes:
    """``points.tobytes()``, one object per value in the World (its memo's ``ways:points``, kept with the tables it
    keys): the keys of :func:`way_lengths`, :func:`reached` and :func:`_ahead` hold a point set (a menu's Move points,
    often a kilobyte or more) once, not once per call that added a key, which grew these tables' memory with the games
    (they outlive a renewed World, :data:`~mathhammer.scenario.world.BOARD_TABLES`)."""
    table: dict[bytes, bytes] = world.memo.table("ways:points")
    data = points.tobytes()
    hit = table.get(data)
    if hit is None:
        if len(table) >= INTERNED_LIMIT:
            table.clear()
        hit = table[data] = data
    return hit


def way_lengths(world: Any, unit: str, points: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """Points x markers: the length of unit ``unit``'s Leading Model's shortest way from each point into each
    marker's contest range (inches; inf: none; the module text), from the World's memo."""
    su = world.scn.units[unit]
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    markers = np.asarray(markers, dtype=float).reshape(-1, 2)
    if su.flying:  # FLYING: "moves point-to-point"
        gap = np.hypot(*(points[:, None, :] - markers[None, :, :]).transpose(2, 0, 1))
        return np.asarray(np.maximum(gap - CONTEST_RANGE, 0.0))
    r = su.base_mm / MM_PER_INCH / 2
    through = int(world.mobility[unit][0])
    graphs: dict[tuple[float, int], WayGraph] = world.memo.table("ways:graph")
    graph = graphs.get((r, through))
    if graph is None:
        graph = graphs[(r, through)] = WayGraph(world.board, r, through)
    known: dict[tuple[object, ...], tuple[float, ...]] = world.memo.table("ways:length")
    if len(known) > MEMO_LIMIT:
        known.clear()
    which = _interned(world, markers)
    out = np.empty((len(points), len(markers)))
    missing: dict[tuple[float, float], list[int]] = {}
    for k, (x, y) in enumerate(points.tolist()):
        row = known.get((r, through, which, x, y))
        if row is None:
            missing.setdefault((x, y), []).append(k)
        else:
            out[k] = row
    if missing:  # every point not yet known at once (the graph tests their legs together)
        rows = graph.lengths(np.asarray(list(missing), dtype=float), markers, CONTEST_RANGE)
        for (x, y), ks, row in zip(missing, missing.values(), rows, strict=True):
            known[(r, through, which, x, y)] = tuple(row.tolist())
            out[ks] = row
    return out


def reached(world: Any, unit: str, points: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Points x stops: does one Move of unit ``unit`` on the empty table take its Leading Model from the point to the
    stop (:func:`.menu._step_ok`: the way round the terrain at most its Speed; a stop on the point is no Move)?"""
    su = world.scn.units[unit]
    known: dict[tuple[object, ...], tuple[int, ...]] = world.memo.table("ways:reach")
    if len(known) > MEMO_LIMIT:
        known.clear()
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    stops = np.asarray(stops, dtype=float).reshape(-1, 2)
    out = np.zeros((len(points), len(stops)), dtype=bool)
    which = _interned(world, stops)
    for k, p in enumerate(points.tolist()):
        key = (unit, which, p[0], p[1])
        hit = known.get(key)
        if hit is None:
            gap = np.hypot(*(stops - np.asarray(p)).T)
            near = np.flatnonzero((gap <= su.speed) & (gap > 0.0))
            ok = _steps_ok(world, su, (p[0], p[1]), stops[near])
            hit = known[key] = tuple(int(j) for j, o in zip(near.tolist(), ok, strict=True) if o)
        out[k, list(hit)] = True
    return out


def _steps_ok(world: Any, su: Any, a: tuple[float, float], ends: np.ndarray) -> list[bool]:
    """:func:`.menu._step_ok` from ``a`` to each of ``ends``. Where neither end touches an obstacle: a straight leg
    clear of them (:func:`~mathhammer.board.fastways.leg_status`, decided) is the way
    (:func:`~mathhammer.board.pathing.shortest_route`'s first answer), so the Move is its length at most Speed less
    the menu's margin; on a table without tops (no ACCESS POINT to pass), a blocked leg's way is the corners' graph
    the route searches (:meth:`~mathhammer.board.ways.WayGraph.apart`), its length read here where it is more than
    :data:`DECIDED` from Speed less the margin (the two sums differ only by rounding). The others (and a Flying
    unit's, point-to-point) as :func:`.menu._step_ok` reads them."""
    if not len(ends):
        return []
    r = _radius(su)
    if su.flying:
        return [_step_ok(world, su, a, (b[0], b[1])) for b in ends.tolist()]
    graphs: dict[tuple[float, int], WayGraph] = world.memo.table("ways:graph")
    graph = graphs.get((r, 0))
    if graph is None:  # the obstacles of a Move's path (no Raptor Strain: as _step_ok)
        graph = graphs[(r, 0)] = WayGraph(world.board, r, 0)
    solid = graph.obs.solid
    if solid.contains(shapely.Point(a)):
        return [_step_ok(world, su, a, (b[0], b[1])) for b in ends.tolist()]
    legs = np.concatenate([np.broadcast_to(np.asarray(a), ends.shape), ends], axis=1)
    status = leg_status(graph._pack(solid), legs)
    clear = status == 0
    free = np.asarray([not solid.contains(shapely.Point(b)) for b in ends.tolist()], dtype=bool)
    limit = su.speed - MARGIN
    flat = not any(t.surface for t in world.board.terrain)
    round_ = np.flatnonzero(free & (status == 1)) if flat else np.zeros(0, dtype=np.intp)  # blocked, decided
    ways = dict(zip(round_.tolist(), graph.apart(a, ends[round_]).tolist(), strict=True))
    out = []
    for j, b in enumerate(ends.tolist()):
        gap = math.dist(a, (b[0], b[1]))
        way = gap if clear[j] and free[j] else ways.get(j, math.nan)
        if gap > su.speed:
            out.append(False)
        elif clear[j] and free[j]:
            out.append(gap <= limit)
        elif abs(way - limit) > DECIDED:  # inf: no way (nan: not read here)
            out.append(way < limit)
        else:
            out.append(_step_ok(world, su, a, (b[0], b[1])))
    return out


def _ahead(world: Any, unit: str, stops: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """Stops x markers: the fewest Moves of unit ``unit`` between its Move points ``stops`` (each :func:`reached`)
    from each stop to one Within the marker's contest range (0: the stop is), inf where no chain of Moves leads there
    (breadth first; kept in the World's memo)."""
    known: dict[tuple[object, ...], np.ndarray] = world.memo.table("ways:ahead")
    key = (unit, _interned(world, stops), _interned(world, markers))
    hit = known.get(key)
    if hit is None:
        step = reached(world, unit, stops, stops)
        near = np.hypot(*(stops[:, None, :] - markers[None, :, :]).transpose(2, 0, 1)) <= CONTEST_RANGE
        hit = np.where(near, 0.0, math.inf)
        for m in range(len(markers)):
            while True:
                on = np.where(step, hit[None, :, m], math.inf).min(axis=1, initial=math.inf)
                more = np.minimum(hit[:, m], on + 1)
                if np.array_equal(more, hit[:, m]):
                    break
                hit[:, m] = more
        known[key] = hit
    return hit


def marker_ways(world: Any, unit: str, points: np.ndarray, markers: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Points x markers x 2: the inches from each point to each marker along unit ``unit``'s way (the way into the
    contest range plus :data:`~mathhammer.scenario.world.CONTEST_RANGE`: the straight gap where the straight line is
    clear or the point contests it already; the straight gap where no way leads there), and its Moves through its
    Move points ``stops`` (the module text)."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    markers = np.asarray(markers, dtype=float).reshape(-1, 2)
    stops = np.asarray(stops, dtype=float).reshape(-1, 2)
    gap = np.hypot(*(points[:, None, :] - markers[None, :, :]).transpose(2, 0, 1))
    ways = way_lengths(world, unit, points, markers)
    out = np.empty((*gap.shape, 2))
    out[..., 0] = np.where((ways <= 0.0) | np.isinf(ways), gap, ways + CONTEST_RANGE)
    ahead = _ahead(world, unit, stops, markers)
    step = reached(world, unit, points, stops)
    for m in range(len(markers)):
        best = np.where(step, ahead[None, :, m], math.inf).min(axis=1, initial=math.inf)
        out[:, m, 1] = np.minimum(1.0 + best, FAR_MOVES)
    out[..., 1][ways <= 0.0] = 0.0
    return out


class EndRows:
    """Rows of a function of end points (``Features.ways``: a row per end point, a function of that point alone, the
    straight gaps ``gap`` being the point's to the markers), kept per (unit, end point): the end points without a menu
    point of their own (where the unit stands, a Charge's target's Leading Model) recur from state to state. At most
    :data:`MEMO_LIMIT` rows (cleared past it)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[int, float, float], np.ndarray] = {}

    def of(
        self, u: int, ends: np.ndarray, gap: np.ndarray, rows: Callable[[int, np.ndarray, np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """``rows(u, ends, gap)``, each row read once per (``u``, end point)."""
        kept = self.kept
        keys = [(u, x, y) for x, y in ends.tolist()]
        out = np.empty((*gap.shape, 2), dtype=float)
        todo = []
        for i, key in enumerate(keys):
            row = kept.get(key)
            if row is None:
                todo.append(i)
            else:
                out[i] = row
        if todo:
            first = list({keys[i]: i for i in reversed(todo)}.values())  # an end point asked twice is read once
            got = rows(u, ends[first], gap[first])
            if len(kept) + len(first) > MEMO_LIMIT:
                kept.clear()
            for j, i in enumerate(first):
                kept[keys[i]] = got[j]
            for i in todo:
                out[i] = kept[keys[i]]
        return out


__all__ = ["FAR_MOVES", "EndRows", "marker_ways", "reached", "way_lengths"]
