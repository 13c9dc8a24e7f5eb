"""Routes and levels: the level of a point, a Leading Model's way between levels (8.5.3, part 11).

Moves between levels (:meth:`World.route`, for ``scenario check``): 8.5.3 "The Leading Model cannot
change elevation unless it passes through an ACCESS POINT" and "Measure the actual path travelled".
Reading (the Charge's pathing, :mod:`mathhammer.board.pathing`): the Leading Model's centre goes
round the terrain it cannot cross on each level (Size 2+ but GRASS and Tokens, Gap Clearance; other
units' bases are not looked at) and changes level only by passing an ACCESS POINT of the piece it climbs or
leaves (a point, or a segment sampled every ``PORTAL_STEP``), from there onto the nearest point of
the piece's top; each pass adds the piece's ``height`` (the climb counts, as in
:mod:`mathhammer.board.charge`; a piece without a ``height`` is refused, not guessed). A piece
without ACCESS POINTs is IMPASSABLE TERRAIN (part 11): no route onto or off it, but for a unit with Raptor
Strain ("change elevation without using ACCESS POINTS"), which climbs anywhere on a piece's edge. A Deploy starts
outside the table touching the Entry Edge (8.5.5), its length the centre's path plus the base radius; FAQ v1.0:
"If High Ground physically touches the player's Entry Edge, the unit can be deployed directly on that terrain",
read as: the top of a piece whose footprint touches the Entry Edge is entered from the edge without an ACCESS
POINT or a climb. A Flying unit "ignores elevation. It does not use Access Points" and "moves point-to-point,
measuring horizontally".
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH, Terrain, shape_bounds
from ...board.pathing import shortest_route
from .. import fastplace
from ..spec import ScenarioUnit
from .core import (
    DISCS_KEPT,
    GAP,
    LEVELS_KEPT,
    ON_TERRAIN_KEPT,
    BoardState,
    Coord,
    Route,
    Zone,
    edge_distance,
    player_rows,
)

#: :meth:`Routes._walk_grid` could not say (a distance within ``fastplace.TOL`` of a threshold): the Python walk's
UNSURE = -3
#: the disc of a base as :meth:`Routes._base_disc` makes it: a point's buffer of so many segments a quarter circle
QUAD_SEGS = 8
#: the Entry Edges as ``fastplace._walk_kernel`` numbers them (:func:`~.core.edge_distance`'s)
EDGES = ("south", "north", "west", "east")


class Routes(BoardState):
    """Routes and levels: the level of a point, a Leading Model's way between levels (8.5.3, part 11)."""

    # ---------------------------------------------------------------- levels
    @cached_property
    def surfaces(self) -> dict[str, Terrain]:
        """The pieces a model can stand on (a horizontal top, ``surface = true``)."""
        return {t.id: t for t in self.board.terrain if t.surface}

    def level_at(self, point: Coord) -> str | None:
        """The highest piece with a horizontal top whose footprint holds ``point``, or None (the playmat); kept per
        point rounded, at most :data:`LEVELS_KEPT` answers; None at once on a board with no such piece (the
        deployments' terrain presets have none)."""
        if not self.surfaces:
            return None
        key = (round(point[0], 6), round(point[1], 6))
        if key in self._levels:
            return self._levels[key]
        if len(self._levels) >= LEVELS_KEPT:
            self._levels.clear()
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
            hit = self._blockers[level] = [
                t.polygon for t in self.board.terrain if not t.token and not t.grass and t.id not in under
            ]  # part 11 GRASS: a model may end on Grass (which is then removed, grass.py)
            for g in hit:
                shapely.prepare(g)
        return hit

    def _blocker_boxes(self, level: str | None) -> list[tuple[float, float, float, float, BaseGeometry]]:
        """:meth:`_level_blockers`, each with its box first (``x0, y0, x1, y1, footprint``)."""
        hit = self._boxes.get(level)
        if hit is None:
            hit = self._boxes[level] = [(*shape_bounds(g), g) for g in self._level_blockers(level)]
        return hit

    def _base_disc(self, centre: Coord, r: float) -> BaseGeometry:
        """The disc :meth:`_blocked` tests against the terrain (a base of radius ``r`` at ``centre``), kept: the
        same candidate spots recur in every placement near them (at most :data:`DISCS_KEPT`)."""
        key = (centre, r)
        hit = self._discs.get(key)
        if hit is None:
            if len(self._discs) >= DISCS_KEPT:
                self._discs.clear()
            hit = self._discs[key] = Point(centre).buffer(r, quad_segs=QUAD_SEGS)
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
        radius: float = 0.0,
        through: int = 0,
    ) -> Route:
        """The shortest way of the Leading Model's centre from ``start`` to ``end`` (the module text).

        ``start`` None: a Deploy from the Entry Edge ``edge`` (8.5.5; the length is then the centre's path from
        the edge plus ``radius``, the Leading Model's base radius: it starts outside the table, and no part of
        its base moves more than Speed).
        :func:`~mathhammer.board.pathing.shortest_route` goes round the terrain a base of ``radius`` cannot cross
        (8.5.3; ``through``: Raptor Strain).
        Levels change only through ACCESS POINTs (8.5.3), each adding the piece's ``height``; with ``free_climb``
        (Raptor Strain: "change elevation without using ACCESS POINTS") anywhere on a piece's edge, sampled every
        :data:`~mathhammer.board.cspace.CLIMB_STEP` inches.
        """
        key = (start, start_level, end, end_level, edge, flying, free_climb, radius, through)
        hit = self._routes.get(key)
        if hit is None:  # a function of the arguments and the board alone: kept (a Deploy's or a move's ends repeat)
            if len(self._routes) > 1 << 16:
                self._routes.clear()
            hit = self._routes[key] = self._route(
                start, start_level, end, end_level, edge, flying, free_climb, radius, through
            )
        return hit

    @cached_property
    def _routes(self) -> dict[tuple[object, ...], Route]:
        """:meth:`route` by its arguments (memory bounded: cleared past 65,536 answers)."""
        return {}

    def _route(
        self,
        start: Coord | None,
        start_level: str | None,
        end: Coord,
        end_level: str | None,
        edge: str | None,
        flying: bool,
        free_climb: bool,
        radius: float,
        through: int,
    ) -> Route:
        """:meth:`route`, computed."""
        w, d = self.board.width, self.board.depth
        if flying:  # FLYING: "ignores elevation", "moves point-to-point, measuring horizontally"
            if start is None:
                return Route(edge_distance(edge or "south", end, w, d) + radius)
            return Route(math.dist(start, end))
        way = shortest_route(self.board, start, start_level, end, end_level, radius=radius, edge=edge or "south",
                             edge_offset=radius, through=through, free_climb=free_climb)  # fmt: skip
        if math.isinf(way.length):
            return Route(math.inf)
        via = way.via
        climb = sum(self.board.pieces[p].height or 0.0 for p in via)
        no_height = tuple(dict.fromkeys(p for p in via if self.board.pieces[p].height is None))
        return Route(way.length, climb, via, no_height)

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
        if self._on_terrain(centre, r, level):
            return True
        apart, near = GAP / 2, ENGAGEMENT_RANGE + EPS
        dist = math.dist
        for oc, orad, enemy in others:
            gap = dist(centre, oc) - r - orad
            if gap < apart:
                return True
            if enemy and enemy_free and gap <= near:
                return True
        return False

    def _on_terrain(self, centre: Coord, r: float, level: str | None) -> bool:
        """:meth:`_blocked`'s reading of the board alone: a base of radius ``r`` at ``centre`` on ``level`` off its
        piece's top (FAQ v1.0, Wobbly Model Syndrome: the centre stays over the piece) or meeting a piece it may not
        stand on; kept per (centre, radius, level), at most :data:`ON_TERRAIN_KEPT` answers."""
        key = (centre, r, level)
        kept = self._terrain_answers
        hit = kept.get(key)
        if hit is None:
            hit = False
            if level is not None and not self._top(level).contains(Point(centre)):
                hit = True
            else:
                x, y = centre
                # only pieces whose box meets the disc's box can meet the disc (its polygon lies in that box)
                near = [
                    poly
                    for x0, y0, x1, y1, poly in self._blocker_boxes(level)
                    if x0 <= x + r and x - r <= x1 and y0 <= y + r and y - r <= y1
                ]
                if near:
                    disc = self._base_disc(centre, r)
                    hit = any(poly.intersects(disc) for poly in near)
            if len(kept) >= ON_TERRAIN_KEPT:
                kept.clear()
            kept[key] = hit
        return hit

    def _walk_grid(
        self,
        su: ScenarioUnit,
        lead: Coord,
        order: list[Coord],
        occupied: tuple[int, ...],
        limit: float,
        arriving: Zone | None,
    ) -> list[Coord] | int | None:
        """``Placing._place_grid`` on the playmat with no Charge target and a ``limit`` (inf: none; a Move or a Deploy)
        by the compiled walk (``fastplace._walk_kernel``, the same answer): the grid offsets ``order`` walked from
        ``lead`` against the table's edges and the footprints (:meth:`_playmat_pack`; the base's disc is GEOS's
        32-gon of a point's buffer, :meth:`_base_disc`: a footprint nearer than ``r cos(pi / 32)`` or holding the
        centre meets it, one farther than ``r`` does not), the bases of ``occupied`` (``GAP / 2``; an enemy Ground
        base Within 1", 8.7.7), the models set (kept together) and an arriving unit's zone (8.3.3, :meth:`zone_gap`'s
        sum). Returns the centres set (no spot Within 1" of an enemy: the casualty order reads none, 8.7.5), -1 past
        the limit (or an arriving unit's grid with too few spots out of the zone: the Python walk then chains the
        rest), None no placement, or :data:`UNSURE` (a distance within ``fastplace.TOL`` of a threshold, or
        footprints not plain polygons): then the Python walk."""
        terrain = self._playmat_pack()
        if terrain is None:
            return UNSURE
        r = su.base_mm / MM_PER_INCH / 2
        offs, n, beyond = self._grid_offsets(order, limit)
        bases = self._packed_bases(su, occupied)
        zone = (-1, 0.0) if arriving is None else (EDGES.index(arriving[0]), arriving[1] + EPS)
        inner = r * math.cos(math.pi / (4 * QUAD_SEGS))
        args = (su.models, r, 2 * r + GAP, bases, (*terrain, inner), zone, GAP / 2, ENGAGEMENT_RANGE + EPS)
        got, chosen = fastplace.walk(lead, offs, n, beyond, *args)
        if got < 0:
            return None if got == -2 else got
        return [
            lead if i == 0 else (lead[0] + order[i - 1][0], lead[1] + order[i - 1][1]) for i in chosen[:got].tolist()
        ]

    def _packed_bases(self, su: ScenarioUnit, occupied: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        """The bases of the placements ``occupied`` as ``fastplace``'s base test reads them against unit ``su``: the
        placements, whether each is an Enemy Ground unit it may not come Within 1" of (8.7.7; neither Flying), and the
        packed starts, centres and radii of every placement. The last answer is kept for the same ``occupied`` object
        (:meth:`Placing.place_among <.placement.Placing.place_among>` reads it twice)."""
        last = self._last_bases
        if last is not None and last[0] is occupied and last[1] is su:
            occ, flags = last[2], last[3]
        else:
            occ = np.asarray(occupied, dtype=np.int64)
            flags = self._foe_rows()[0 if su.flying else self._player_rows[su.player]][occ]
            self._last_bases = (occupied, su, occ, flags)
        return (occ, flags, *self._centres_packed().arrays())

    @cached_property
    def _player_rows(self) -> dict[str, int]:
        """Per player: its row of :meth:`_foe_rows` (row 0 is a Flying unit's, none Enemy Ground to it)."""
        return player_rows(self.scn)

    def _foe_rows(self) -> np.ndarray:
        """Per row of :attr:`_player_rows` and placement made so far: is it an Enemy Ground unit's (8.7.7; a Flying
        unit's is no one's)? Filled for the new placements as they are made."""
        foes, n = self._foes, len(self.placements)
        if foes.n < n:
            table = foes.table
            if table.shape[1] < n:
                grow = np.zeros((table.shape[0], max(n, table.shape[1])), dtype=bool)
                table = foes.table = np.concatenate([table, grow], axis=1)
            rows = self._player_rows
            for p in range(foes.n, n):
                unit = self.scn.units[self.placements[p].unit]
                if not unit.flying:
                    mine = rows[unit.player]
                    for row in rows.values():
                        table[row, p] = row != mine
            foes.n = n
        return foes.table

    def _lead_blocked(self, su: ScenarioUnit, lead: Coord, occupied: tuple[int, ...]) -> bool:
        """Is the Leading Model's spot at ``lead`` surely blocked by a base of ``occupied`` (8.5.3, 8.7.7: the compiled
        walk's base test, a gap more than its tolerance past the limit)? Then the grid sets no model there."""
        return self._clear_of(su, occupied, np.asarray([lead], dtype=np.float64)) == 1

    def _clear_of(self, su: ScenarioUnit, occupied: tuple[int, ...], spots: np.ndarray) -> int:
        """:func:`fastplace.clear <mathhammer.scenario.fastplace.clear>` of ``su``'s bases at ``spots`` (float64, C
        order) against the bases of the placements ``occupied``, read as :meth:`_packed_bases` gives them to the walk
        (an Enemy Ground base Within 1", 8.7.7; ``GAP / 2`` from any other, 8.5.3)."""
        last = self._last_occ
        if last is not None and last[0] is occupied:
            occ = last[1]
        else:
            occ = np.fromiter(occupied, dtype=np.int64, count=len(occupied))
            self._last_occ = (occupied, occ)
        made = len(self.placements)  # the packed centres and the foe rows hold every placement made (most calls)
        packed = self._packed if self._packed.n == made else self._centres_packed()
        rows = self._foes.table if self._foes.n == made else self._foe_rows()
        foe = rows[0 if su.flying else self._player_rows[su.player]]
        return fastplace.clear(spots, su.base_mm / MM_PER_INCH / 2, occ, foe, packed, GAP / 2, ENGAGEMENT_RANGE + EPS)

    def _grid_offsets(self, order: list[Coord], limit: float) -> tuple[np.ndarray, int, bool]:
        """The grid offsets ``order`` as an array, how many come before the first farther than ``limit`` from the
        Leading Model (``math.hypot``, as the Python walk reads it), and whether there is one; kept per order and
        limit."""
        kept: dict[int, tuple[list[Coord], np.ndarray, dict[float, tuple[int, bool]]]] = self.memo.table("grid_offsets")
        hit = kept.get(id(order))
        if hit is None or hit[0] is not order:
            hit = kept[id(order)] = (order, np.asarray(order, dtype=np.float64).reshape(-1, 2), {})
        cut = hit[2].get(limit)
        if cut is None:
            n = next((i for i, (dx, dy) in enumerate(order) if math.hypot(dx, dy) > limit), len(order))
            cut = hit[2][limit] = (n, n < len(order))
        return hit[1], cut[0], cut[1]

    def _playmat_pack(self) -> tuple[np.ndarray, ...] | None:
        """The table's edges (width, depth, EPS) and the footprints a base on the playmat may not overlap
        (:meth:`_blocker_boxes`: their boxes, their exterior rings packed, each ring's start), read once; None where
        one is not a polygon without holes."""
        kept: dict[str, tuple[np.ndarray, ...] | None] = self.memo.table("playmat_pack")
        if "playmat" not in kept:
            pieces = self._blocker_boxes(None)
            plain = all(g.geom_type == "Polygon" and not g.interiors for *_, g in pieces)
            rings = [np.asarray(g.exterior.coords, dtype=np.float64)[:-1] for *_, g in pieces] if plain else []
            starts = np.zeros(len(rings) + 1, dtype=np.int64)
            starts[1:] = np.cumsum([len(c) for c in rings])
            edges = np.asarray([self.board.width, self.board.depth, EPS], dtype=np.float64)
            boxes = np.asarray([b[:4] for b in pieces], dtype=np.float64).reshape(-1, 4)
            xy = np.ascontiguousarray(np.concatenate(rings) if rings else np.zeros((0, 2)))
            kept["playmat"] = (edges, boxes, xy, starts) if plain else None
        return kept["playmat"]

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
