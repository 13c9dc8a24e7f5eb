"""The Leading Model's path for a Move, Run, Disengage or Deploy (rulebook 8.5.3 step 1, 8.5.5, part 11 GRASS).

8.5.3 step 1: "move it up to the Unit's Speed. Measure the actual path travelled. ... The Leading Model cannot
move through terrain of Size 2 or larger. Follow Gap Clearance rules (Part 4.6). The Leading Model cannot change
elevation unless it passes through an ACCESS POINT. ... No part of a base of the Leading Model can move more than
its unit Speed value." GRASS "does not block movement"; FLYING "moves point-to-point" (the caller measures a
Flying unit straight, this module is for Ground units).

:func:`shortest_route` is the length of the shortest way of the Leading Model's centre, the same pathing as a
Charge's (:mod:`mathhammer.board.charge`): the base is a disc of radius ``r``, so the centre stays out of every
path obstacle grown by ``r`` (its corners grown as circumscribed polygons, so a path never cuts into a wall);
the path obstacles are those of :func:`~mathhammer.board.cspace.blocks_path` (Size 2+ pieces, not GRASS, not
Tokens; a piece without an ACCESS POINT of Size ``through`` or less with Raptor Strain), on the playmat every
such piece, on the top of a piece those set on it (the Leading Model stands on the piece, so it is no obstacle),
and the top's edge (the centre stays over the piece, FAQ v1.0 Wobbly Model Syndrome). Gap Clearance (Part 4.6,
not in the rulebook seed): a gap narrower than the base is closed (the grown obstacles overlap), the least any
size category can ask. The path stays on the table (no corner closer than ``r`` to a table edge). The search runs
over a visibility graph: the start, the end, the corners of the grown obstacles and the ACCESS POINT crossings
(:func:`~mathhammer.board.cspace.crossings`, each pass adding the piece's ``height``, as a Charge's), by Dijkstra.

Readings:

* Other units' models are not path obstacles here (8.5.3: "may not pass through Enemy models or Friendly models
  from other Units"): the plan's board states differ game by game in the simulation, and ``scenario check`` reads
  the plan at full strength; the walls are the same in every game. The end is still refused over another base by
  the placement (:meth:`~mathhammer.scenario.world.World.place`).
* A start or an end whose base already touches or overlaps an obstacle (a placement next to a wall, an end the
  placement refuses anyway) ignores that obstacle for its own legs; the placement names an overlapping end.
* An ACCESS POINT lies on its piece's edge, inside the piece's grown footprint on the level below: a leg to it
  may enter that footprint only within one base radius of the point (a notch, as a Charge's path).
* A Deploy (8.5.5: "Set the Leading Model in contact with the player's Entry Edge outside of the battlefield, then
  move it up to the Unit's Speed following standard Move rules (Part 8.5.3). Treat the Entry Edge as a base of a
  Leading Model"): the base starts outside the table touching the Entry Edge, its centre ``r`` beyond it, and no
  part of the base moves more than Speed, so the length of a Deploy is the centre's path from the edge plus ``r``:
  a Leading Model set straight in from the edge ends with its centre at most Speed - ``r`` from it, no part of its
  base farther than Speed. Its first leg leaves the edge at right angles (a shortest path from a line does), and
  must be clear of the obstacles on the playmat (a wall touching the edge is gone round). FAQ v1.0 ("If High
  Ground physically touches the player's Entry Edge, the unit can be deployed directly on that terrain"): the top
  of a piece touching the Entry Edge is entered from the edge without an ACCESS POINT or a climb, the first leg
  then measured as the centre's distance from the edge (plus ``r``), not tested against obstacles.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from .cspace import GROW, QUAD_SEGS, SLACK, blocks_path, corner_points, crossings, grown_footprint
from .model import Board, Coord, Terrain

#: tolerance when comparing positions with the table edges and pieces' tops, inches
EPS = 1e-6


@dataclass(frozen=True)
class Way:
    """A shortest route: its ``length`` (inches, climbs included; ``inf``: no way) and the pieces whose ACCESS POINT
    it passes (``via``, in order)."""

    length: float
    via: tuple[str, ...] = ()


@dataclass
class _Obstacles:
    """The path obstacles of one level: per obstacle the tight polygon a segment may not meet, and its piece."""

    tight: list[BaseGeometry]
    owners: list[str | None]
    corners: list[Coord]
    solid: BaseGeometry = field(default_factory=Polygon)
    #: per corner (its index in ``corners``), which straight segments from it to every corner meet ``solid``
    #: (:meth:`corner_hits`, filled as the searches ask)
    seen: dict[int, np.ndarray] = field(default_factory=dict)
    #: per corner, the lengths of those segments (:meth:`corner_lengths`)
    lengths: dict[int, np.ndarray] = field(default_factory=dict)
    #: per point, which segments from every corner to it meet ``solid`` (:meth:`hits_to`)
    ends: dict[Coord, np.ndarray] = field(default_factory=dict)
    #: per point, which segments from it to every corner meet ``solid``, and their lengths (:meth:`from_point`)
    starts: dict[Coord, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @cached_property
    def rings(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The obstacles' outlines as :func:`~mathhammer.board.fastline.clear` reads them (corners, float64, each ring
        not closed) and the offsets of each, or None where one is not a polygon without holes (:func:`clear_line` then
        reads every line with shapely)."""
        if not all(isinstance(g, Polygon) and not g.is_empty and not g.interiors for g in self.tight):
            return None
        rings = [np.asarray(g.exterior.coords, dtype=np.float64)[:-1] for g in self.tight]
        starts = np.zeros(len(rings) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(r) for r in rings])
        return np.ascontiguousarray(np.concatenate(rings) if rings else np.zeros((0, 2))), starts

    @cached_property
    def corner_xy(self) -> np.ndarray:
        """``corners`` as an array (rows x, y; float64)."""
        return np.asarray(self.corners, dtype=float).reshape(-1, 2)

    def _meets(self, p: Coord | np.ndarray, outward: bool) -> np.ndarray:
        """Per corner: does the segment between the point ``p`` and it meet ``solid`` (``shapely.intersects`` of the
        segment, from ``p`` where ``outward``, else from the corner: as a search's leg runs)? Every corner at once."""
        xy = self.corner_xy
        at = np.broadcast_to(np.asarray(p, dtype=float), xy.shape)
        lines = shapely.linestrings(np.stack([at, xy] if outward else [xy, at], axis=1))
        return np.asarray(shapely.intersects(self.solid, lines), dtype=bool)

    def _lengths(self, p: Coord) -> np.ndarray:
        """Per corner: the length of the segment from the point ``p`` to it (``math.dist``, as a search's legs measure
        it)."""
        return np.asarray([math.dist(p, k) for k in self.corners], dtype=np.float64)

    def corner_lengths(self, c: int) -> np.ndarray:
        """Per corner: the length of the segment from corner ``c`` to it (:meth:`_lengths`), made once per corner."""
        got = self.lengths.get(c)
        if got is None:
            got = self.lengths[c] = self._lengths(self.corners[c])
        return got

    def hits_to(self, p: Coord) -> np.ndarray:
        """Per corner: does the segment from it to the point ``p`` meet ``solid``? The test of a search's leg from a
        corner to its end (:meth:`_meets`), kept per point (a search's end is asked from each corner it reaches; ends
        repeat: a unit's Move points), at most :data:`ENDS_KEPT` points."""
        hit = self.ends.get(p)
        if hit is None:
            if len(self.ends) >= ENDS_KEPT:
                self.ends.clear()
            hit = self.ends[p] = self._meets(p, outward=False)
        return hit

    def from_point(self, p: Coord) -> tuple[np.ndarray, np.ndarray]:
        """Per corner: does the segment from the point ``p`` to it meet ``solid``, and its length (a search's legs
        from its start, :meth:`_meets` and :meth:`_lengths`), kept per point (a unit's Move points repeat), at most
        :data:`ENDS_KEPT` points."""
        hit = self.starts.get(p)
        if hit is None:
            if len(self.starts) >= ENDS_KEPT:
                self.starts.clear()
            hit = self.starts[p] = (self._meets(p, outward=True), self._lengths(p))
        return hit

    def corner_hits(self, c: int) -> np.ndarray:
        """Per corner: does the segment from corner ``c`` to it meet ``solid``? The same test as a search's legs
        (:meth:`_meets`), made once per corner: the corners are the same in every search on this level."""
        hit = self.seen.get(c)
        if hit is None:
            hit = self.seen[c] = self._meets(self.corner_xy[c], outward=True)
        return hit


#: :meth:`_Obstacles.hits_to` keeps at most this many points per level (then starts again)
ENDS_KEPT = 1 << 10
_LEVELS: dict[tuple[int, str | None, float, int], tuple[Board, _Obstacles]] = {}
#: a search reads its level's kept corner-to-corner legs (:meth:`_Obstacles.corner_hits`; the tests turn this off to
#: compare with every leg tested afresh)
_KEEP_LEGS = True


def _edge_foot(edge: str, p: Coord, width: float, depth: float) -> Coord:
    return {"south": (p[0], 0.0), "north": (p[0], depth), "west": (0.0, p[1]), "east": (width, p[1])}[edge]


def edge_distance(edge: str, point: Coord, width: float, depth: float) -> float:
    """Distance from a table edge to a point."""
    x, y = point
    return {"south": y, "north": depth - y, "west": x, "east": width - x}[edge]


def _obstacles(board: Board, key: str | None, r: float, through: int) -> _Obstacles:
    """The path obstacles on level ``key`` (None: the playmat) for a base of radius ``r`` (cached per board)."""
    ck = (id(board), key, round(r, 9), through)
    hit = _LEVELS.get(ck)
    if hit is not None and hit[0] is board:
        return hit[1]
    pieces = [t for t in board.terrain if t.stands_on == key] if key is not None else list(board.terrain)
    big: list[BaseGeometry] = []
    tight: list[BaseGeometry] = []
    owners: list[str | None] = []
    for piece in pieces:
        if blocks_path(piece, through):
            b, s = grown_footprint(piece.polygon, r)
            big.append(b)
            tight.append(s.buffer(-SLACK) if r > SLACK else s)
            owners.append(piece.id)
    w, d = board.width, board.depth
    if key is not None:
        top = board.pieces[key].polygon
        fence = Polygon([(-2, -2), (w + 2, -2), (w + 2, d + 2), (-2, d + 2)]).difference(top)
        big.append(fence)
        tight.append(fence.buffer(-SLACK))
        owners.append(None)
    solid = shapely.union_all(tight) if tight else Polygon()
    shapely.prepare(solid)
    for g in tight:
        shapely.prepare(g)
    corners = corner_points(shapely.union_all(big)) if big else []
    corners = [
        c
        for c in corners
        if r - EPS <= c[0] <= w - r + EPS and r - EPS <= c[1] <= d - r + EPS and not solid.contains(Point(c))
    ]
    out = _Obstacles(tight, owners, corners, solid)
    if len(_LEVELS) > 4096:
        _LEVELS.clear()
    _LEVELS[ck] = (board, out)
    return out


def _clear(obs: _Obstacles, a: Coord, b: Coord, skip: frozenset[int] = frozenset()) -> bool:
    """Does the segment ``a``-``b`` meet no obstacle (but those in ``skip``)?"""
    line = shapely.LineString([a, b]) if a != b else Point(a)
    if not skip:
        return not obs.solid.intersects(line)
    return not any(g.intersects(line) for i, g in enumerate(obs.tight) if i not in skip)


def clear_line(board: Board, start: Coord, end: Coord, level: str | None, r: float, through: int = 0) -> bool:
    """Is the straight move of a base of radius ``r`` from ``start`` to ``end`` on ``level`` clear of the terrain it
    cannot cross (8.5.3; the obstacles a start or end already touches are left out, module text)? Read by
    :func:`~mathhammer.board.fastline.clear` where its answer is sure, else by shapely."""
    obs = _obstacles(board, level, r, through)
    rings = obs.rings
    if rings is not None:
        from .fastline import clear  # imported here: numba only where a line is read

        got = clear(start, end, *rings)
        if got is not None:
            return got
    return _clear(obs, start, end, _touching(obs, start) | _touching(obs, end))


def _touching(obs: _Obstacles, p: Coord) -> frozenset[int]:
    if not obs.solid.contains(Point(p)):
        return frozenset()
    here = Point(p)
    return frozenset(i for i, g in enumerate(obs.tight) if g.contains(here))


@dataclass
class _N:
    level: str | None
    xy: Coord
    skip: frozenset[int] = frozenset()  # obstacles this node's legs leave out (it touches them)
    notch: dict[int, BaseGeometry] = field(default_factory=dict)  # obstacle -> its shape less an ACCESS POINT notch


def shortest_route(
    board: Board,
    start: Coord | None,
    start_level: str | None,
    end: Coord,
    end_level: str | None,
    *,
    radius: float,
    edge: str = "south",
    edge_offset: float = 0.0,
    through: int = 0,
    free_climb: bool = False,
) -> Way:
    """The shortest way of a Ground Leading Model's centre (base radius ``radius``) from ``start`` on ``start_level``
    to ``end`` on ``end_level`` around the terrain it cannot cross, through ACCESS POINTs between levels, each pass
    adding the piece's ``height`` (0 where it has none: the caller names those); ``start`` None: a Deploy from the
    Entry Edge ``edge`` onto the playmat or the top of a piece touching the edge (FAQ v1.0), its length the
    centre's path plus ``edge_offset`` (8.5.5: the base radius, module text). ``through``, ``free_climb``: Raptor
    Strain."""
    r = radius
    w, d = board.width, board.depth
    obs = {k: _obstacles(board, k, r, through) for k in [None, *(t.id for t in board.terrain if t.surface)]}
    tops = {t.id for t in board.terrain if t.surface and _touches(t, edge, w, d)} if start is None else set()
    entry = {None} | tops
    if end_level not in obs or (start is not None and start_level not in obs):
        return Way(math.inf)
    # one level, nothing in the way: the straight line (a Deploy: at right angles from the edge)
    if start is None and end_level is None:
        if _clear(obs[None], _edge_foot(edge, end, w, d), end, _touching(obs[None], end)):
            return Way(edge_distance(edge, end, w, d) + edge_offset)
    elif start is not None and start_level == end_level and clear_line(board, start, end, end_level, r, through):
        return Way(math.dist(start, end))
    nodes: list[_N] = [_N(start_level, start or end), _N(end_level, end)]
    for i in (0, 1):
        if i == 0 and start is None:
            continue
        nodes[i].skip = _touching(obs[nodes[i].level], nodes[i].xy)
    links: dict[int, list[tuple[int, float, str]]] = {}
    for piece in board.terrain:
        if not piece.surface or piece.stands_on not in obs:
            continue
        _add_crossings(nodes, links, obs[piece.stands_on], piece, r, free_climb)
    first: dict[str | None, int] = {}  # per level: the node index of its first corner (its corners follow in order)
    for key, o in obs.items():
        first[key] = len(nodes)
        nodes.extend(_N(key, c) for c in o.corners)
    xy = np.array([n.xy for n in nodes], dtype=float)
    by_level: dict[str | None, np.ndarray] = {
        k: np.array([i for i, n in enumerate(nodes) if n.level == k], dtype=int) for k in obs
    }

    def legs(i: int, js: np.ndarray) -> list[tuple[int, float]]:
        """The straight moves from node i to the nodes js (same level) that meet no obstacle."""
        if i == 0 and start is None:
            out = []
            for j in js.tolist():
                n = nodes[j]
                if n.level not in entry:
                    continue
                if n.level is None and not _leg_ok(obs[None], _N(None, _edge_foot(edge, n.xy, w, d)), n):
                    continue
                out.append((j, edge_distance(edge, n.xy, w, d) + edge_offset))
            return out
        o = obs[nodes[i].level]
        plain = [j for j in js.tolist() if not nodes[j].skip and not nodes[j].notch]
        out = []
        if not nodes[i].skip and not nodes[i].notch and plain:
            lo = first[nodes[i].level]
            hit = np.zeros(len(plain), dtype=bool)
            at = np.asarray(plain, dtype=np.int64)
            corner = (at >= lo) & (at < lo + len(o.corners))  # corner to corner: the level's own answer, kept
            if _KEEP_LEGS and lo <= i < lo + len(o.corners) and corner.any():
                hit[corner] = o.corner_hits(i - lo)[at[corner] - lo]
                fresh = np.flatnonzero(~corner)
            else:
                fresh = np.arange(len(plain))
            if fresh.size:
                ends = xy[at[fresh]]
                lines = shapely.linestrings(np.stack([np.broadcast_to(xy[i], ends.shape), ends], axis=1))
                hit[fresh] = shapely.intersects(o.solid, lines)
            out = [(j, math.dist(nodes[i].xy, nodes[j].xy)) for j, h in zip(plain, hit.tolist(), strict=True) if not h]
            rest = [j for j in js.tolist() if nodes[j].skip or nodes[j].notch]
        else:
            rest = js.tolist()
        out += [(j, math.dist(nodes[i].xy, nodes[j].xy)) for j in rest if _leg_ok(o, nodes[i], nodes[j])]
        return out

    def corner_legs(i: int, js: np.ndarray) -> tuple[list[tuple[int, float]], np.ndarray, np.ndarray]:
        """:func:`legs` from node ``i``, a corner its level keeps or the start (neither a skip nor a notch), in two
        parts: the legs to the nodes of ``js`` that are not corners (as :func:`legs` finds them; a corner's to the end
        from :meth:`_Obstacles.hits_to`), and to the corners as arrays (the corners' indices and lengths, from the
        level's kept hits and lengths: corners are neither skips nor notches)."""
        lvl = nodes[i].level
        lo, o = first[lvl], obs[lvl]
        split = int(np.searchsorted(js, lo))  # a level's other nodes come before its corners
        at, head = js[split:], js[:split]
        hits, lengths = o.from_point(nodes[i].xy) if i == 0 else (o.corner_hits(i - lo), o.corner_lengths(i - lo))
        keep = ~hits[at - lo]
        out: list[tuple[int, float]] = []
        if i > 0 and head.size and head[0] == 1 and plain[1]:  # to the end: its legs from every corner at once, kept
            if not o.hits_to(end)[i - lo]:
                out.append((1, math.dist(nodes[i].xy, end)))
            head = head[1:]
        return out + legs(i, head), at[keep], lengths[at - lo][keep]

    dist = [math.inf] * len(nodes)
    prev: list[tuple[int, str | None]] = [(-1, None)] * len(nodes)
    dist[0] = 0.0
    done = np.zeros(len(nodes), dtype=bool)
    plain = np.fromiter((not n.skip and not n.notch for n in nodes), dtype=bool, count=len(nodes))
    heap = [(0.0, 0)]
    while heap:
        dd, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        if i == 1:
            break
        steps: list[tuple[int, float, str | None]] = []
        if i == 0 and start is None:
            todo = np.flatnonzero(~done)
            steps += [(j, c, None) for j, c in legs(0, todo)]
        else:
            lvl = nodes[i].level
            same = by_level[lvl]
            js = same[~done[same]]
            if _KEEP_LEGS and plain[i] and (i == 0 or first[lvl] <= i < first[lvl] + len(obs[lvl].corners)):
                # a corner's legs to the corners as arrays: each relaxed as the loop below relaxes it (the same
                # sums and tests, in any order: each node once, and the heap pops by (length, node) alone)
                others, to, lengths = corner_legs(i, js)
                steps += [(j, c, None) for j, c in others]
                ahead = dd + lengths
                better = ahead < np.asarray(dist)[to] - 1e-12
                for j, c in zip(to[better].tolist(), ahead[better].tolist(), strict=True):
                    dist[j] = c
                    prev[j] = (i, None)
                    heapq.heappush(heap, (c, j))
            else:
                steps += [(j, c, None) for j, c in legs(i, js)]
        steps += [(j, c, p) for j, c, p in links.get(i, ()) if not done[j]]
        for j, c, p in steps:
            if dd + c < dist[j] - 1e-12:
                dist[j] = dd + c
                prev[j] = (i, p)
                heapq.heappush(heap, (dist[j], j))
    if math.isinf(dist[1]):
        return Way(math.inf)
    via: list[str] = []
    node = 1
    while node > 0:
        node, passed = prev[node]
        if passed is not None:
            via.append(passed)
    return Way(dist[1], tuple(reversed(via)))


def _touches(piece: Terrain, edge: str, w: float, d: float) -> bool:
    """Does the footprint of ``piece`` touch the table edge ``edge``?"""
    line = {
        "south": ((0.0, 0.0), (w, 0.0)),
        "north": ((0.0, d), (w, d)),
        "west": ((0.0, 0.0), (0.0, d)),
        "east": ((w, 0.0), (w, d)),
    }[edge]
    return bool(piece.polygon.distance(shapely.LineString(line)) <= EPS)


def _leg_ok(o: _Obstacles, a: _N, b: _N) -> bool:
    """A straight leg between two nodes of one level, each leaving out what it touches, an ACCESS POINT's notch."""
    line = shapely.LineString([a.xy, b.xy]) if a.xy != b.xy else Point(a.xy)
    for i, g in enumerate(o.tight):
        if i in a.skip or i in b.skip:
            continue
        ga, gb = a.notch.get(i), b.notch.get(i)
        if ga is not None and gb is not None:
            geom = ga.intersection(gb)
        else:
            geom = ga if ga is not None else gb if gb is not None else g
        if geom.intersects(line):
            return False
    return True


def _add_crossings(
    nodes: list[_N],
    links: dict[int, list[tuple[int, float, str]]],
    below: _Obstacles,
    piece: Terrain,
    r: float,
    free_climb: bool,
) -> None:
    """The ACCESS POINT crossings of ``piece``: a node on the level below (its own obstacle notched there), a node
    on the top, linked both ways at the cost of the step onto the top plus the piece's ``height``; and points just
    outside the notch, where a straight approach enters it (as a Charge's path)."""
    owned = [i for i, o in enumerate(below.owners) if o == piece.id]
    for x in crossings(piece, free_climb):
        up = nearest_points(piece.polygon, Point(x))[0]
        up_xy = (float(up.x), float(up.y))
        notch = Point(x).buffer(r * GROW, quad_segs=QUAD_SEGS)
        lo, hi = len(nodes), len(nodes) + 1
        nodes.append(_N(piece.stands_on, x, notch={i: below.tight[i].difference(notch) for i in owned}))
        nodes.append(_N(piece.id, up_xy))
        if owned:
            for a in np.linspace(0, 2 * math.pi, 16, endpoint=False).tolist():
                c = (x[0] + 1.02 * r * GROW * math.cos(a), x[1] + 1.02 * r * GROW * math.sin(a))
                if not below.solid.contains(Point(c)):
                    nodes.append(_N(piece.stands_on, c))
        cost = math.dist(x, up_xy) + (piece.height or 0.0)
        links.setdefault(lo, []).append((hi, cost, piece.id))
        links.setdefault(hi, []).append((lo, cost, piece.id))
