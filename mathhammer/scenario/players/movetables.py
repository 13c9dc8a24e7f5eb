"""The Movement Phase's tables built ahead from the menus (issue 29 point 6, step 2 of
docs/dev/compiled-game-loop.md): per unit, Move/Run/Deploy menu point and heading, the parts of a verdict that do
not depend on the other units, in arrays keyed by small integers (unit index, point index, heading index), the shape
a compiled step loop reads.

Since the automatic players' Moves and Runs carry ``headings`` (:data:`.menu.HEADINGS`: the rear, towards where the
Leading Model stood, rounded to the nearest of 8 compass headings, :meth:`World.rear_from`), a unit's formation at a
menu point on an empty table is one of 8, and a Deploy's one (the rear towards its player's Entry Edge,
:meth:`World.rear_of`). What is kept, each from the World call the engine and the verdicts make (no geometry here):

* ``place[u, p, h]``: the placement id of unit ``u`` with its Leading Model at point ``p`` and its rear heading ``h``,
  no other unit on the table (8.5.3 step 2, "set them In Coherency around the Leading Model": :meth:`World.place`
  with no occupied placement, on the level of the point as the engine's Move asks); :data:`NO_ROOM` where the World
  cannot set it there (off the table, on terrain), :data:`NOT_BUILT` for a point that is no Move or Run point.
* ``near_only[u, p, h]`` (``deploy_near_only[u, p]``): the empty-table placement was found among the spots near the
  Leading Model (:meth:`World.place_near_lead` with no unit gives it, not -1): only the units near the point
  (:meth:`World.lead_test`) can change it; where False, the grid looked farther and any unit in reach of its spots may.
* ``level_ok[u, p]``: the point is on the playmat (:meth:`World.level_at` None: the menus name no ``on``, so a Move
  ending over a terrain top is refused, as :class:`~.moveverdicts.MoveVerdicts` refuses it).
* ``way[u, i, j]``: the length a Move or Run from the Leading Model at point ``i`` to point ``j`` is held to
  (:func:`~.moveverdicts.way_length`: the straight line, or the way round the terrain the unit cannot cross, 8.5.3),
  good for every Speed up to ``reach[u]`` (the most the unit can have, abilities and ON CREEP counted): the move is
  too far at Speed ``s`` exactly where ``way > s + EPS``. Inf where ``j`` is no Move or Run point.
* ``deploy_place[u, p]`` and ``deploy_ok[u, p]``: a Deploy's placement at point ``p`` on an empty table (8.5.5, 8.3.3
  the opponent's Zone of Influence: :meth:`World.place` with ``arriving``) and the plan walk's verdict on the Deploy
  with no other unit on the table (:meth:`Legality.walked <.legal.Legality.walked>`); :data:`NOT_BUILT` for a point
  that is no Deploy point.
* ``entry_point[(u, phase)]``: per entry of the unit's menu in that Phase, its point's index (-1: none).

What the tables leave to the other units (to pair tables or to Python, at a miss): whether the unit is Engaged (8.5.2,
8.7.1), its ON CREEP Speed (the Creep Tumors and the Zerg units' placements), and a formation another unit's base or
Engagement Range changes (:meth:`World.place_near_lead` with the units near the Leading Model). A Move's verdict on an
empty table is :meth:`MoveTables.move_alone`. The tables are the World's answers for the Grass mask 0 (no Grass piece
removed). benchmarks/count_move_tables.py counts how often the steps of random games hit them; tests/test_move_tables.py
holds them to the World and the verdicts.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from ...board.model import EPS
from ..check.moves import speed_of
from ..geometry.core import nearest_heading
from ..world import Coord
from .legal import Legality
from .menu import HEADINGS
from .moveverdicts import bare_loadout, way_length

#: a key the tables hold no answer for (not a point of that kind)
NOT_BUILT = -2
#: the World cannot set the unit there on an empty table
NO_ROOM = -1
#: the kinds of entry whose points the tables cover
MOVE_KINDS = ("move", "run")


@functools.cache
def heading_vectors(headings: int = HEADINGS) -> tuple[Coord, ...]:
    """The unit vectors of the ``headings`` compass headings, index 0 north then clockwise, as
    :func:`~mathhammer.scenario.geometry.core.nearest_heading` gives them (bit-exact)."""
    step = 2 * math.pi / headings
    return tuple(nearest_heading((math.sin(k * step), math.cos(k * step)), headings) for k in range(headings))


def heading_index(rear: Coord, headings: int = HEADINGS) -> int:
    """The index (:func:`heading_vectors`) of the heading nearest to ``rear``; a rear already rounded (an activation
    with ``headings``, :meth:`World.rear_from`; a player's rear, :meth:`World.rear_of`) is its own heading."""
    vectors = heading_vectors(headings)
    v = rear if rear in vectors else nearest_heading(rear, headings)
    return vectors.index(v)


@dataclass
class MoveTables:
    """The tables of the module text for one Simulation's menus on its World (Grass mask 0)."""

    uids: tuple[str, ...]
    headings: tuple[Coord, ...]
    #: per unit, its points (Deploy, Move and Run points, each once): (U, P, 2), NaN past ``counts[u]``
    points: np.ndarray
    counts: np.ndarray
    index: list[dict[Coord, int]]
    is_move: np.ndarray
    is_deploy: np.ndarray
    level_ok: np.ndarray
    place: np.ndarray
    near_only: np.ndarray
    deploy_place: np.ndarray
    deploy_ok: np.ndarray
    deploy_near_only: np.ndarray
    way: np.ndarray
    #: per unit: its Speed with no ability used, off and ON CREEP (the plain entries' verdicts), and the most Speed
    #: the way lengths hold for
    speeds: np.ndarray
    reach: np.ndarray
    entry_point: dict[tuple[int, str], np.ndarray]
    #: per unit: the heading index of its player's rear (a Deploy's; a Move that ends where it began)
    own_rear: np.ndarray
    #: CPU seconds the build took (``time.process_time``), per part
    seconds: dict[str, float]

    def point_of(self, u: int, at: Coord) -> int:
        """The index of unit ``u``'s point ``at``, -1 where it is none of its menu points."""
        return self.index[u].get(at, -1)

    def too_far(self, u: int, i: int, j: int, speed: float) -> bool:
        """8.5.3: is the way from point ``i`` to point ``j`` longer than ``speed`` (at most ``reach[u]``)?"""
        assert speed <= self.reach[u] + EPS
        return bool(self.way[u, i, j] > speed + EPS)

    def move_alone(self, u: int, i: int, j: int, creep: bool = False) -> bool:
        """A plain Move or Run of unit ``u`` from point ``i`` to point ``j`` with no other unit on the table: the
        point on the playmat, the way within the unit's Speed (``creep``: its ON CREEP Speed), the World sets it there
        with the heading of ``i`` seen from ``j`` (the verdict of :class:`~.moveverdicts.MoveVerdicts` on an empty
        table)."""
        h = self.heading_from(u, i, j)
        return (
            bool(self.level_ok[u, j])
            and self.place[u, j, h] >= 0
            and not self.too_far(u, i, j, self.speeds[u, int(creep)])
        )

    def heading_from(self, u: int, i: int, j: int) -> int:
        """The heading of a Move from point ``i`` to point ``j`` (the rear towards ``i`` rounded; ``i == j``: the
        player's rear, as :meth:`World.rear_from` has it, ``own_rear[u]``)."""
        a, b = self.points[u, i], self.points[u, j]
        rear = (float(a[0] - b[0]), float(a[1] - b[1]))
        if not any(rear):
            return int(self.own_rear[u])
        return heading_index(rear, len(self.headings))

    def size(self) -> dict[str, int]:
        """How many keys each table holds (built, not padding)."""
        return {
            "units": len(self.uids),
            "points": int(self.counts.sum()),
            "move points": int(self.is_move.sum()),
            "deploy points": int(self.is_deploy.sum()),
            "placements (unit, point, heading)": int((self.place != NOT_BUILT).sum()),
            "placements with room": int((self.place >= 0).sum()),
            "placements found near the Leading Model": int((self.near_only & (self.place >= 0)).sum()),
            "distinct placement ids": len(set(self.place[self.place >= 0].tolist())),
            "deploys (unit, point)": int((self.deploy_place != NOT_BUILT).sum()),
            "deploys legal alone": int((self.deploy_ok == 1).sum()),
            "deploys found near the Leading Model": int((self.deploy_near_only & (self.deploy_place >= 0)).sum()),
            "ways (unit, from, to)": int(np.isfinite(self.way).sum()),
            "ways within reach": int((self.way <= self.reach[:, None, None] + EPS).sum()),
            "bytes": int(
                sum(a.nbytes for a in (self.points, self.place, self.deploy_place, self.deploy_ok, self.way))
                + self.level_ok.nbytes
            ),
        }


def build_tables(legality: Legality, headings: int = HEADINGS) -> MoveTables:
    """The tables of ``legality``'s menus on its Simulation's World (the module text), built ahead: every Deploy,
    Move and Run point of every unit, every heading, every (from point, to point) pair within the unit's reach."""
    view, menus = legality.view, legality.menus
    world = view.world
    scn = view.scn
    U = view.U
    t0 = time.process_time()
    vectors = heading_vectors(headings)
    H = len(vectors)
    per_unit: list[list[Coord]] = []
    moving: list[set[Coord]] = []
    deploying: list[set[Coord]] = []
    for uid in view.uids:
        menu = menus[uid]
        deploys = [e.to for e in menu["movement"] if e.action == "deploy" and e.to is not None]
        moves = [
            e.to for ph in ("movement", "assault") for e in menu[ph] if e.action in MOVE_KINDS and e.to is not None
        ]
        per_unit.append(list(dict.fromkeys([*deploys, *moves])))
        moving.append(set(moves))
        deploying.append(set(deploys))
    P = max((len(p) for p in per_unit), default=0)
    points = np.full((U, P, 2), np.nan)
    counts = np.asarray([len(p) for p in per_unit], dtype=np.int64)
    index = [{p: k for k, p in enumerate(pts)} for pts in per_unit]
    is_move = np.zeros((U, P), dtype=bool)
    is_deploy = np.zeros((U, P), dtype=bool)
    level_ok = np.zeros((U, P), dtype=bool)
    place = np.full((U, P, H), NOT_BUILT, dtype=np.int64)
    near_only = np.zeros((U, P, H), dtype=bool)
    deploy_near_only = np.zeros((U, P), dtype=bool)
    deploy_place = np.full((U, P), NOT_BUILT, dtype=np.int64)
    deploy_ok = np.full((U, P), NOT_BUILT, dtype=np.int8)
    way = np.full((U, P, P), np.inf)
    speeds = np.zeros((U, 2))
    reach = np.zeros(U)
    own_rear = np.zeros(U, dtype=np.int64)
    seconds = {"points": time.process_time() - t0}

    t0 = time.process_time()
    for u, pts in enumerate(per_unit):
        uid, su = view.uids[u], view.units[u]
        if pts:
            points[u, : len(pts)] = pts
        rear = world.rear_of(su.player)
        own_rear[u] = heading_index(rear, headings)
        zone = world.arrival_zone(su.player)
        for p, at in enumerate(pts):
            level_ok[u, p] = world.level_at(at) is None
            if at in moving[u]:
                is_move[u, p] = True
                for h, v in enumerate(vectors):
                    got = world.place(su, at, v, ())
                    place[u, p, h] = NO_ROOM if got is None else got
                    near_only[u, p, h] = world.place_near_lead(su, at, v, ()) != -1
            if at in deploying[u]:
                is_deploy[u, p] = True
                got = world.place(su, at, rear, (), arriving=zone)
                deploy_place[u, p] = NO_ROOM if got is None else got
                deploy_near_only[u, p] = world.place_near_lead(su, at, rear, (), zone) != -1
        speeds[u] = (
            float(speed_of(su, bare_loadout(scn, uid, False).effects())),
            float(speed_of(su, bare_loadout(scn, uid, True).effects())),
        )
        reach[u] = max(legality._bounds(u)[0], *speeds[u])
    seconds["placements"] = time.process_time() - t0

    t0 = time.process_time()
    n = U
    empty = (*(-1,) * n, *(su.models for su in view.units), 0)  # no unit on the table, full strength, no Grass gone
    for u, uid in enumerate(view.uids):
        for k, e in enumerate(menus[uid]["movement"]):
            if e.action == "deploy" and not e.use and e.to is not None:
                deploy_ok[u, index[u][e.to]] = legality.walked(u, "movement", k, empty)
    seconds["deploy verdicts"] = time.process_time() - t0

    t0 = time.process_time()
    for u, pts in enumerate(per_unit):
        su = view.units[u]
        for i, a in enumerate(pts):
            for j, b in enumerate(pts):
                if b in moving[u]:
                    way[u, i, j] = way_length(world, su, a, b, float(reach[u]))
    seconds["ways"] = time.process_time() - t0

    entry_point = {
        (u, phase): np.asarray([-1 if e.to is None else index[u][e.to] for e in menus[uid][phase]], dtype=np.int64)
        for u, uid in enumerate(view.uids)
        for phase in ("movement", "assault")
    }
    return MoveTables(
        uids=tuple(view.uids),
        headings=vectors,
        points=points,
        counts=counts,
        index=index,
        is_move=is_move,
        is_deploy=is_deploy,
        level_ok=level_ok,
        place=place,
        near_only=near_only,
        deploy_place=deploy_place,
        deploy_ok=deploy_ok,
        deploy_near_only=deploy_near_only,
        way=way,
        speeds=speeds,
        reach=reach,
        entry_point=entry_point,
        own_rear=own_rear,
        seconds=seconds,
    )


__all__ = ["MOVE_KINDS", "NOT_BUILT", "NO_ROOM", "MoveTables", "build_tables", "heading_index", "heading_vectors"]
