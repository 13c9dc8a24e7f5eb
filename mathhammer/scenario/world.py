"""The scenario's battlefield: where each unit's models stand, and the facts read off the board.

Positions are *placements*: a unit's Leading Model at the planned point and the other models
set In Coherency around it (8.5.3 step 2: "Pick up all remaining models and set them In
Coherency around the Leading Model"), on the playmat (GROUND LEVEL; the plan cannot stand a
unit on terrain yet). The setting policy, ``keep-leader``, is:

* models are set on a hexagonal grid of their base spacing (bases 0.1" apart), nearest to the
  Leading Model first, behind it (away from where it moves, or from the charged unit) before in
  front of it; never off the table, over a terrain footprint ("may not end overlapping terrain"),
  over another unit's base, or Within 1" of an enemy Ground unit (except the declared targets of
  a Charge, 8.7.7 step 4);
* casualties are the models set last: the survivors of a unit with ``k`` models left are the
  first ``k`` of its placement, the Leading Model last to go. This is the defender's choice the
  rules leave open (8.7.4 step 5 "The defending player removes models"); it keeps the models
  in Base-to-Base contact, as 8.7.5 asks of Engaged units. The number of models that an attack
  may remove still follows visibility (8.7.4 step 5).

Every fact is cached by the placements and models left, so each board state is read once
(issue 5: geometry stays out of the Monte Carlo loop).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from shapely.geometry import Point

from ..board.charge import charge_distance
from ..board.engagement import ENGAGEMENT_RANGE, engaged
from ..board.facts import AttackFacts, weapon_facts
from ..board.los import line_of_sight
from ..board.model import EPS, MM_PER_INCH, Board, Model, Unit
from ..board.ranks import fighting_ranks
from ..starcraft.model import Weapon
from .spec import Scenario, ScenarioUnit

Coord = tuple[float, float]
#: Gap between neighbouring bases when a unit is set (inches).
GAP = 0.1
#: 8.9.1: "At least one model is Within 3" ... of the marker" (a 32 mm marker, 7.3.2).
CONTEST_RANGE = 3.0
MARKER_MM = 32.0


@dataclass(frozen=True)
class Placement:
    """A unit's models set on the table: centres in removal order reversed (the Leading Model first)."""

    unit: str
    centres: tuple[Coord, ...]


def _edge_point(edge: str, x: float, y: float, width: float, depth: float) -> Coord:
    return {"south": (x, 0.0), "north": (x, depth), "west": (0.0, y), "east": (width, y)}[edge]


def edge_distance(edge: str, point: Coord, width: float, depth: float) -> float:
    """Distance from a player's Entry Edge to a point (8.5.5)."""
    x, y = point
    return {"south": y, "north": depth - y, "west": x, "east": width - x}[edge]


class World:
    """Placements and board facts for one scenario, cached."""

    def __init__(self, scn: Scenario) -> None:
        self.scn = scn
        self.board = scn.board
        self.uids = list(scn.units)
        self.index = {u: i for i, u in enumerate(self.uids)}
        self.placements: list[Placement] = []
        self._place_cache: dict[tuple[object, ...], int | None] = {}
        self._boards: dict[tuple[object, ...], Board] = {}
        self._contest: dict[tuple[int, int, int], bool] = {}
        self._facts: dict[tuple[object, ...], object] = {}
        self._charges: dict[tuple[object, ...], tuple[float, Coord | None]] = {}

    # ---------------------------------------------------------------- placing
    def _blocked(self, centre: Coord, r: float, others: list[tuple[Coord, float, bool]], enemy_free: bool) -> bool:
        b = self.board
        x, y = centre
        if x - r < -EPS or y - r < -EPS or x + r > b.width + EPS or y + r > b.depth + EPS:
            return True
        disc = Point(centre).buffer(r, quad_segs=8)
        for piece in b.terrain:
            if piece.token:
                continue
            if piece.polygon.intersects(disc):
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
    ) -> int | None:
        """Set ``su`` with its Leading Model at ``lead``; ``rear`` points away from the front.

        ``occupied``: placement ids of the other units on the table. Returns a placement id, or
        None when the Leading Model cannot stand there (off the table, on terrain, on a base,
        Within 1" of an enemy Ground unit that is not an allowed Charge target).
        """
        key = (
            su.id,
            round(lead[0], 4),
            round(lead[1], 4),
            round(rear[0], 3),
            round(rear[1], 3),
            occupied,
            allowed_enemies,
        )
        if key in self._place_cache:
            return self._place_cache[key]
        r = su.base_mm / MM_PER_INCH / 2
        others: list[tuple[Coord, float, bool]] = []
        for pid in occupied:
            p = self.placements[pid]
            other = self.scn.units[p.unit]
            enemy = other.player != su.player and not other.flying and not su.flying and p.unit not in allowed_enemies
            orad = other.base_mm / MM_PER_INCH / 2
            others.extend((c, orad, enemy) for c in p.centres)
        result: int | None = None
        if not self._blocked(lead, r, others, True):
            step = 2 * r + GAP
            norm = math.hypot(*rear) or 1.0
            back = (rear[0] / norm, rear[1] / norm)
            cands: list[tuple[float, Coord]] = []
            rings = math.ceil(math.sqrt(su.models)) + 3
            for i in range(-rings, rings + 1):
                for j in range(-rings, rings + 1):
                    if i == 0 and j == 0:
                        continue
                    dx = step * (i + 0.5 * j)
                    dy = step * (math.sqrt(3) / 2) * j
                    dist = math.hypot(dx, dy)
                    ahead = -(dx * back[0] + dy * back[1])
                    cands.append((dist + 0.6 * max(0.0, ahead) / step * step, (lead[0] + dx, lead[1] + dy)))
            cands.sort(key=lambda c: (round(c[0], 6), c[1]))
            centres = [lead]
            mine: list[tuple[Coord, float, bool]] = [(lead, r, False)]
            for _, c in cands:
                if len(centres) == su.models:
                    break
                if self._blocked(c, r, others + mine, True):
                    continue
                if min(math.dist(c, m[0]) for m in mine) > step + 2.0:  # keep them together
                    continue
                centres.append(c)
                mine.append((c, r, False))
            if len(centres) == su.models:
                self.placements.append(Placement(su.id, tuple(centres)))
                result = len(self.placements) - 1
        self._place_cache[key] = result
        return result

    # ---------------------------------------------------------------- boards
    def board_for(self, pos: tuple[int, ...], alive: tuple[int, ...]) -> Board:
        """The battlefield with every unit on the table (``pos[u] >= 0``) and its first ``alive[u]`` models."""
        key = (pos, alive)
        b = self._boards.get(key)
        if b is None:
            units = []
            for u, (pid, k) in enumerate(zip(pos, alive, strict=True)):
                if pid < 0 or k <= 0:
                    continue
                su = self.scn.units[self.uids[u]]
                p = self.placements[pid]
                models = tuple(
                    Model(f"{su.id}.{i + 1}", x, y, su.base_mm, su.size, flying=su.flying)
                    for i, (x, y) in enumerate(p.centres[:k])
                )
                units.append(Unit(su.id, su.player, models))
            b = Board(self.board.width, self.board.depth, self.board.terrain, tuple(units))
            if len(self._boards) > 4096:
                self._boards.clear()
            self._boards[key] = b
        return b

    def engaged_pairs(self, pos: tuple[int, ...], alive: tuple[int, ...]) -> frozenset[tuple[str, str]]:
        """Unit pairs (a, b) Engaged with each other (7.2.1), both orders."""
        b = self.board_for(pos, alive)
        out: set[tuple[str, str]] = set()
        units = b.units
        for i, ua in enumerate(units):
            for ub in units[i + 1 :]:
                if ua.side == ub.side:
                    continue
                if any(engaged(b, ma, mb) for ma in ua.models for mb in ub.models):
                    out.add((ua.id, ub.id))
                    out.add((ub.id, ua.id))
        return frozenset(out)

    def strikers(self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        """Models in the Fighting or Supporting Rank (8.8.1 step 2)."""
        return len(fighting_ranks(self.board_for(pos, alive), uid).attackers)

    def charge_length(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, targets: tuple[str, ...]
    ) -> tuple[float, Coord | None]:
        """8.7.7: the distance the Leading Model must travel to Engage every declared target, and where it ends."""
        key = (pos, alive, uid, targets)
        hit = self._charges.get(key)
        if hit is None:
            path = charge_distance(self.board_for(pos, alive), f"{uid}.1", list(targets))
            hit = self._charges[key] = (path.length, path.end)
        return hit

    def facts(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, tid: str, weapon: Weapon, tags: tuple[str, ...]
    ) -> AttackFacts:
        """:func:`~mathhammer.board.facts.attack_facts` for one weapon, cached by board state."""
        key = (pos, alive, uid, tid, weapon, tags)
        hit = self._facts.get(key)
        if hit is None:
            hit = weapon_facts(self.board_for(pos, alive), uid, tid, weapon, tags)
            if len(self._facts) > 65536:
                self._facts.clear()
            self._facts[key] = hit
        return hit  # type: ignore[return-value]

    # ---------------------------------------------------------------- markers
    def contests(self, pid: int, alive: int, marker: int) -> bool:
        """8.9.1: at least one model Within 3" of the marker, with LoS to it (the marker Size 0), same elevation.

        Every placement stands on the playmat, like the markers, so elevation always matches; a
        placement is always In Coherency (set around its Leading Model). Flying and BURROWED units
        are excluded by the caller.
        """
        key = (pid, alive, marker)
        hit = self._contest.get(key)
        if hit is None:
            hit = False
            p = self.placements[pid]
            su = self.scn.units[p.unit]
            spec = next(m for m in self.scn.deployment.markers if m.number == marker)
            mk = Model(f"marker-{marker}", spec.x, spec.y, MARKER_MM, 0)
            for i, c in enumerate(p.centres[:alive]):
                m = Model(f"{su.id}.{i + 1}", c[0], c[1], su.base_mm, su.size)
                if m.distance(mk) > CONTEST_RANGE + EPS:
                    continue
                if math.dist(m.centre, mk.centre) < m.radius + mk.radius:
                    hit = True  # the model stands on the marker
                    break
                b = Board(
                    self.board.width,
                    self.board.depth,
                    self.board.terrain,
                    (Unit(su.id, su.player, (m,)), Unit("marker", "markers", (mk,))),
                )
                if line_of_sight(b, m, mk).visible:
                    hit = True
                    break
            self._contest[key] = hit
        return hit

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

    def in_enemy_zone(self, player: str, point: Coord) -> bool:
        """8.3.3: a point inside the opponent's Zone of Influence (6" from their Entry Edge, 9.2.1)."""
        other = "blue" if player == "red" else "red"
        edge = self.edges[other]
        return edge_distance(edge, point, self.board.width, self.board.depth) < self.scn.deployment.zone_depth - EPS

    def rear_of(self, player: str) -> Coord:
        """The direction of the player's own Entry Edge (models are set behind their Leading Model)."""
        return {"south": (0.0, -1.0), "north": (0.0, 1.0), "west": (-1.0, 0.0), "east": (1.0, 0.0)}[self.edges[player]]


__all__ = ["CONTEST_RANGE", "Placement", "World", "edge_distance"]
