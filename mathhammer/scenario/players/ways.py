"""The automatic players' ``marker_moves`` and ``marker_gap`` (:mod:`.features`): how far a point is from contesting
each Mission Marker along the shortest way round the terrain the unit cannot cross (8.5.3,
:mod:`mathhammer.board.ways`), and in Moves, with the unit's next Move read on its own menu.

* The way (:func:`way_lengths`): the length of the Leading Model's shortest way from the point into the marker's
  contest range (8.9.1: Within :data:`~mathhammer.scenario.world.CONTEST_RANGE`), round the terrain; a Flying unit
  moves point-to-point (part 11 FLYING): the straight line. ``marker_gap`` reads it as inches to the marker (the way
  plus the contest range: the straight gap where the straight line is clear).
* The Moves (:func:`marker_ways`): a unit goes only where its menu's Move points are (:mod:`.menu`), so from an end
  point it first takes one Move to a Move point of its menu it reaches on the empty table (8.5.3: the way round the
  terrain at most its Speed, :func:`.menu._step_ok`) from which a chain of such Moves leads into the contest range
  (:func:`onward`), then the way from there at its Speed with the BUFF Speed of a Movement Phase ability its cards pay
  for: 1 + the least such way over Speed, rounded up to whole Moves. 0 where the point contests the marker already;
  :data:`FAR_MOVES` where no such Move point is in reach (a corner of the menu the unit cannot leave: the cover spots
  behind Abandoned Camp's ridges and ruins, a Deploy point with no Move point within Speed).

Why so (benchmarks/RESULTS.md, session 11, h-ways): the straight line through a Size 3 ridge read a unit behind it as
near as one beside it, and a Marine of the doubled list stayed there for its cover (session 10); the way alone (its
Moves from the end point, whole or fractional) ends units in the menu's corners they cannot leave (the ridge's and
the ruins' cover spots, Deploy points with no Move point near: the way goes on, the menu does not) and, rounded up,
at a cover spot one short step from the menu's route (the 0.25 of ``cover`` against a tie); the next Move read on the
menu and only onward Move points counted avoids both; fractional Moves (without rounding) played the doubled list
worse (91% against 95% of 200 games, seed 53).

The ways and the reach of a Move are a function of the board, the unit's base, Speed and Raptor Strain and the points
alone: kept in the World's memo (:mod:`mathhammer.scenario.memo`) by that content (coordinates and numbers), so every
Simulation and every game of a World reads a point's ways once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...board.model import MM_PER_INCH
from ...board.ways import WayGraph
from ..world import CONTEST_RANGE
from .menu import _step_ok

#: the ``marker_moves`` of a point from which no way leads to a marker
FAR_MOVES = 10
#: the most answers kept per table (memory bounded: cleared past it)
MEMO_LIMIT = 1 << 18


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
    known: dict[tuple[object, ...], float] = world.memo.table("ways:length")
    if len(known) > MEMO_LIMIT:
        known.clear()
    keys = [tuple(m) for m in markers.tolist()]
    out = np.empty((len(points), len(markers)))
    for k, p in enumerate(points.tolist()):
        row = [known.get((r, through, p[0], p[1], *m)) for m in keys]
        if any(v is None for v in row):
            row = graph.lengths(np.asarray([p]), markers, CONTEST_RANGE)[0].tolist()
            for m, v in zip(keys, row, strict=True):
                known[(r, through, p[0], p[1], *m)] = v
        out[k] = row
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
    which = stops.tobytes()
    for k, p in enumerate(points.tolist()):
        key = (unit, which, p[0], p[1])
        hit = known.get(key)
        if hit is None:
            gap = np.hypot(*(stops - np.asarray(p)).T)
            near = np.flatnonzero((gap <= su.speed) & (gap > 0.0))
            hit = known[key] = tuple(
                int(j) for j in near.tolist() if _step_ok(world, su, (p[0], p[1]), (stops[j, 0], stops[j, 1]))
            )
        out[k, list(hit)] = True
    return out


def onward(world: Any, unit: str, stops: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """Stops x markers: does a chain of Moves of unit ``unit`` between its Move points ``stops`` (each
    :func:`reached`) lead from the stop into the marker's contest range (a stop Within it: itself)?"""
    stops = np.asarray(stops, dtype=float).reshape(-1, 2)
    markers = np.asarray(markers, dtype=float).reshape(-1, 2)
    known: dict[tuple[object, ...], np.ndarray] = world.memo.table("ways:onward")
    key = (unit, stops.tobytes(), markers.tobytes())
    hit = known.get(key)
    if hit is None:
        step = reached(world, unit, stops, stops)
        hit = np.hypot(*(stops[:, None, :] - markers[None, :, :]).transpose(2, 0, 1)) <= CONTEST_RANGE
        for m in range(len(markers)):
            while True:
                more = step[:, hit[:, m]].any(axis=1) & ~hit[:, m]
                if not more.any():
                    break
                hit[more, m] = True
        known[key] = hit
    return hit


def _ahead(world: Any, unit: str, speed: float, stops: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """Stops x markers: the Moves at ``speed`` of the way from each stop into each marker's contest range where a
    chain of Moves between the stops leads there (:func:`onward`), else inf (kept in the World's memo)."""
    known: dict[tuple[object, ...], np.ndarray] = world.memo.table("ways:ahead")
    key = (unit, speed, stops.tobytes(), markers.tobytes())
    hit = known.get(key)
    if hit is None:
        on = (
            way_lengths(world, unit, stops, markers) / speed
            if speed > 0
            else np.full((len(stops), len(markers)), math.inf)
        )
        hit = known[key] = np.where(onward(world, unit, stops, markers), on, math.inf)
    return hit


def marker_ways(
    world: Any, unit: str, speed: float, points: np.ndarray, markers: np.ndarray, stops: np.ndarray
) -> np.ndarray:
    """Points x markers x 2: the inches from each point to each marker along unit ``unit``'s way (the way into the
    contest range plus :data:`~mathhammer.scenario.world.CONTEST_RANGE`: the straight gap where the straight line is
    clear or the point contests it already; the straight gap where no way leads there), and its Moves at ``speed``
    through one of its Move points ``stops`` (the module text)."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    markers = np.asarray(markers, dtype=float).reshape(-1, 2)
    stops = np.asarray(stops, dtype=float).reshape(-1, 2)
    gap = np.hypot(*(points[:, None, :] - markers[None, :, :]).transpose(2, 0, 1))
    ways = way_lengths(world, unit, points, markers)
    out = np.empty((*gap.shape, 2))
    out[..., 0] = np.where((ways <= 0.0) | np.isinf(ways), gap, ways + CONTEST_RANGE)
    ahead = _ahead(world, unit, speed, stops, markers)
    step = reached(world, unit, points, stops)
    for m in range(len(markers)):
        best = np.where(step, ahead[None, :, m], math.inf).min(axis=1, initial=math.inf)
        out[:, m, 1] = np.minimum(np.ceil(1.0 + best - 1e-9), FAR_MOVES)
    out[..., 1][ways <= 0.0] = 0.0
    return out


__all__ = ["FAR_MOVES", "marker_ways", "onward", "reached", "way_lengths"]
