"""Naive references of the scenario geometry, kept in the tests (issue 26: "Naive references live in ``tests/``").

:func:`close_ranks_search` is the Python reading of the CLOSE RANKS search (8.8.1 step 1; the reading is in
:mod:`mathhammer.scenario.geometry.ranks`) that :func:`mathhammer.scenario.fastranks.close_ranks_search` compiles:
``tests/test_scenario_fastranks.py`` runs both on every Close Ranks computation of the examples and holds them
equal (the same placement or grid fallback, the same box of tested points). Set it on a World with
``world.reference_search = close_ranks_search``
(:attr:`~mathhammer.scenario.geometry.ranks.CloseRanks.reference_search`). Its tie rule (of equally near spots or
Engaged models, which first: :func:`centre_side`, :func:`tie_order`, :func:`nearest_foe`) is written here from the
documented text, not taken from the World's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, shape_bounds
from mathhammer.scenario.fastnear import near_any
from mathhammer.scenario.geometry.ranks import CloseRanksSetting
from mathhammer.scenario.missions.deployments import MIRROR_AXES
from mathhammer.scenario.world import (
    _RING,
    CLOSE_RANKS_MOVE,
    COHERENCY_SLACK,
    GAP,
    Coord,
    _GridFallbackError,
    close_ranks_grid,
    horizontal_coherency,
)

#: Decimals a distance or an offset is rounded to before two are compared (equally near: equal so rounded).
ROUND = 6


def _rounded(x: float) -> float:
    return float(np.round(x, ROUND))


def centre_side(world: Any, at: Coord, back: Coord, player: str) -> int:
    """Which side of a unit's frame comes first among tied spots or Engaged models (docs/scenario.md, the
    ``close_ranks`` row: "the one on the side of the table's centre, then nearer the unit's rear"; on the line
    through ``at`` along the rear, the Placing part's text): +1 the side of ``back`` turned a quarter counter-clockwise,
    -1 the other. The table's centre off that line: its side. On it: the side towards the end of the card's mirror
    line with the smaller x (an upright line: the smaller y); ``back`` along the mirror line: the side of
    ``player``'s own Entry Edge; a rotation, no card, or neither side: -1."""
    left = (-back[1], back[0])
    centre = (world.board.width / 2, world.board.depth / 2)
    towards_centre = (centre[0] - at[0]) * left[0] + (centre[1] - at[1]) * left[1]
    if abs(towards_centre) > 1e-6:
        return 1 if towards_centre > 0 else -1
    axis = MIRROR_AXES.get(str(world.scn.deployment_card.get("symmetry", "")))
    if axis is None:
        return -1
    ends = (axis, (-axis[0], -axis[1]))
    upright = abs(axis[0]) <= 1e-6
    end = min(ends, key=lambda e: e[1]) if upright else min(ends, key=lambda e: e[0])
    towards_end = end[0] * left[0] + end[1] * left[1]
    if abs(towards_end) > 1e-6:
        return 1 if towards_end > 0 else -1
    rear = world.rear_of(player)  # the direction of the player's Entry Edge
    return 1 if rear[0] * left[0] + rear[1] * left[1] > 1e-6 else -1


def tie_order(side: int, origin: Coord, back: Coord, points: list[Coord]) -> list[int]:
    """The indices of ``points`` (tied: equally near) in the order the search takes them: the farthest on the side
    ``side`` (:func:`centre_side`) of ``origin`` first, then the farthest towards the rear ``back``, then the first
    given (offsets from ``origin`` rounded to :data:`ROUND` decimals)."""
    left = (-back[1], back[0])

    def key(k: int) -> tuple[float, float, int]:
        dx, dy = points[k][0] - origin[0], points[k][1] - origin[1]
        sideways = side * (dx * left[0] + dy * left[1])
        rearwards = dx * back[0] + dy * back[1]
        return (_rounded(-sideways), _rounded(-rearwards), k)

    return sorted(range(len(points)), key=key)


def nearest_foe(world: Any, at: Coord, gaps: np.ndarray, foes: np.ndarray, player: str) -> int:
    """The Engaged model the Leading Model at ``at`` moves at: the least edge gap (``gaps``); of equally near ones,
    :func:`tie_order`'s first in the unit's frame, its rear the player's Entry Edge."""
    rounded = [_rounded(float(g)) for g in gaps]
    tied = [k for k, g in enumerate(rounded) if g == min(rounded)]
    rear = world.rear_of(player)
    points = [(float(foes[k][0]), float(foes[k][1])) for k in tied]
    return tied[tie_order(centre_side(world, at, rear, player), at, rear, points)[0]]


def close_ranks_search(world: Any, s: CloseRanksSetting) -> tuple[Coord, list[Coord]] | None:
    """The Leading Model's end and every model's new centre after CLOSE RANKS, or None (no move): the search of
    :meth:`~mathhammer.scenario.geometry.ranks.CloseRanks._close_ranks` read step by step in Python."""
    su, level, r, touch, cent, FC, FR = s.su, s.level, s.r, s.touch, s.cent, s.FC, s.FR
    pinned, movable, reduced, contact, LOB, LOR = s.pinned, s.movable, s.reduced, s.contact, s.LOB, s.LOR
    gaps, foe_gap, free_static, free, passable, seen = s.gaps, s.foe_gap, s.free_static, s.free, s.passable, s.seen
    # the Leading Model: the first non-pinned model that can end closer (3" at most, straight at the nearest
    # Engaged enemy model, up to Base-to-Base contact or where its way is blocked)
    lead_i, lead_to, back = -1, cent[0], (0.0, 0.0)
    for i in movable:
        start = np.asarray(cent[i])
        g0 = gaps(start[None, :], FC, FR)[0]
        j0 = nearest_foe(world, cent[i], g0, FC, su.player)  # ties in the unit's frame
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
            toward = (FC[j0] - start) / d
            lead_i, lead_to, back = i, end, (-float(toward[0]), -float(toward[1]))  # the rear: the way it came
            break
    if lead_i < 0:
        return None
    new: list[Coord | None] = [c if pinned[k] else None for k, c in enumerate(cent)]
    new[lead_i] = lead_to
    walls = world._walls(level)  # Coherency Links: Raptor Strain changes movement, not 4.4

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
    side = centre_side(world, lead_to, back, su.player)  # the spots' ties: this side of the Leading Model's way first

    def pick(
        cands: np.ndarray,
        old: Coord,
        mine: list[Coord],
        static: np.ndarray | tuple[np.ndarray, np.ndarray] | None,
        wholly: bool,
    ) -> Coord | None:
        """The free spot In Coherency (near a model already set and linked to it; ``wholly``: also Wholly Within 3"
        of the Leading Model) nearest ``old``, ties in the unit's frame (the side of the table's centre, then the
        rear); ``static``: :func:`free_static` of ``cands``, where already known, or (values, known) arrays filled
        here where needed (each spot is then tested once however many models look at it)."""
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
        spots = [(float(x), float(y)) for x, y in cands]
        dist = np.round(np.linalg.norm(cands - np.asarray(old), axis=1), ROUND)
        for d in sorted(set(dist.tolist())):
            tied = [c for c, dc in zip(spots, dist.tolist(), strict=True) if dc == d]
            for k in tie_order(side, old, back, tied):  # the side of the Leading Model's frame, from ``old``
                if linked(tied[k]):
                    return tied[k]
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
                pts = close_ranks_grid(lead_to, 2 * r + GAP, back)
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
    assert len(final) == len(cent)
    return lead_to, final
