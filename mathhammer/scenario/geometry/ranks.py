"""CLOSE RANKS (8.8.1 step 1): a unit Engaged presses into the fight.

CLOSE RANKS (8.8.1 step 1, :meth:`World.close_ranks`; ``[policy] close_ranks``): "Before rolling the dice,
the Unit may press into the fight". Reading:

* Models in Base-to-Base contact (bases at most ``CONTACT`` = 0.05" apart) with a model of an Engaged
  enemy unit stay ("physically pinned"); if every model is pinned, nothing moves.
* The Leading Model is the first other model (placement order) that can end closer to the Engaged units:
  it moves straight towards the nearest live model of those units (:meth:`CloseRanks._nearest_foe`: of equally near
  ones, the one on the side of the table's centre in the frame of its player's rear), at most 3", stopping in
  Base-to-Base contact (bases 0.025" apart) or at the last free spot before its way is blocked (8.5.3: off the
  table or its level's top, a Size 2+ wall other than GRASS, an enemy model, another unit's Ground model, or
  Within 1" of an enemy Ground unit it is not Engaged with). It passes through its own unit's models.
* The other models that are not pinned are picked up and set one at a time, nearest to the Engaged
  units first: at the free spot nearest its old one in Base-to-Base contact with a live Engaged enemy
  model; else (a model not already Within 1" of an enemy) in Base-to-Base contact with a model of the
  unit set Within the Engagement Range; else at its old spot; else at the nearest free spot of a
  hexagonal grid around the Leading Model. If a model finds no spot, nothing moves.
* Ties in the unit's own frame (its rear: the way the Leading Model came): of spots equally near a model's old spot,
  the one on the side of the table's centre first, then the nearer the rear (:meth:`Placing._lateral_first`, as
  :meth:`Placing._grid_order` lays a formation), and the grid is a hexagon laid in that frame
  (:func:`.core.close_ranks_grid`). The rules say which spots are legal, not which of equal ones is taken; so a
  symmetry of the table that swaps the players maps a Close Ranks onto the one at the image (before session 12: the
  table's x then y, the grid along the table's x; tests/test_mirror_map.py).
* In Coherency, as :meth:`World.place` reads it: a spot at most one base spacing + 2" from a model of
  the unit already set, with a Coherency Link to it (4.4: the line crosses no Size 2+ wall and no other
  unit's Ground model; it may cross the Engaged enemy models), and Wholly Within 3" of the Leading
  Model (4.4: "set each remaining model one at a time, Wholly Within 3" of the Leading Model"; one
  base size, so centres at most 3" apart). A model that finds no such spot in any of the steps above
  is set by the same steps without the 3" (4.4 would remove it as a casualty: "Any model that cannot
  find a legal position maintaining the Coherency Link is immediately removed"; not modelled).
* A free spot: on the table, over the placement's level (``Placement.level`` is kept) and off the
  footprints a base there may not overlap (as ``place``), overlapping no base (every centre of the
  other placements and of the Engaged units: their models left, as the simulation keeps each placement to
  them, ``SimState.trim``), and not Within 1" of an enemy Ground unit that is not Engaged ("cannot bring
  the Unit into Engagement with new Enemy Units").
* "Models cannot use this move to Disengage": if the unit would no longer be Engaged (7.2.1) with
  every unit it was Engaged with, nothing moves.
* The new placement's order follows the casualty policy and 8.7.5's tiers as ``place`` does (the
  unit's own order kept, the facing away from the nearest enemy model); its removed models keep their
  old centres at the end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ...board.ranks import CONTACT
from .. import fastranks
from ..fastnear import clear_of
from ..spec import ScenarioUnit
from .core import (
    _RING,
    CLOSE_RANKS_MOVE,
    COHERENCY_SLACK,
    GAP,
    Coord,
    Placement,
    _bases_near,
    _grid_frame,
    _GridFallbackError,
    _grow_box,
    close_ranks_grid_box,
    horizontal_coherency,
)
from .placement import Placing

#: no level's top (a unit on the table): the vertices and ring starts :func:`fastranks.close_ranks_search` reads
_NO_TOP = (np.zeros((0, 2)), np.zeros(1, dtype=np.int64))


def _gaps_from(c: Coord, fc: np.ndarray, fr: np.ndarray, r: float) -> np.ndarray:
    """The edge gaps from a base of radius ``r`` at ``c`` to the bases ``fc``/``fr``, computed as ``gaps`` in
    :meth:`CloseRanks._close_ranks` does (the same doubles: the squares summed in order, one sqrt)."""
    x, y = c
    out = np.empty(len(fr))
    for j, ((fx, fy), rad) in enumerate(zip(fc.tolist(), fr.tolist(), strict=True)):
        dx, dy = x - fx, y - fy
        out[j] = math.sqrt(dx * dx + dy * dy) - r - rad
    return out


@dataclass(frozen=True)
class CloseRanksSetting:
    """What the Close Ranks search reads (:meth:`CloseRanks._close_ranks`): the unit (``su``, its ``level``, base
    radius ``r``, live centres ``cent``, ``pinned`` and ``movable`` models), the Engaged models (``FC``/``FR``),
    the spots in Base-to-Base contact with them (``contact``), the other Ground bases a Coherency Link may not cross
    (``LOB``/``LOR``), and the tests of a spot (``gaps``, ``foe_gap``, ``free_static``, ``free``, ``passable``;
    ``seen`` grows the box examined). ``reduced``: only the near units given (the grid fallback raises)."""

    su: ScenarioUnit
    level: str | None
    r: float
    touch: float
    apart: float
    cent: list[Coord]
    FC: np.ndarray
    FR: np.ndarray
    pinned: list[bool]
    movable: list[int]
    reduced: bool
    contact: np.ndarray
    LOB: np.ndarray
    LOR: np.ndarray
    gaps: Callable[..., np.ndarray]
    foe_gap: Callable[[Coord], float]
    free_static: Callable[[np.ndarray], np.ndarray]
    free: Callable[..., np.ndarray]
    passable: Callable[[np.ndarray], np.ndarray]
    seen: Callable[[np.ndarray], None]


class CloseRanks(Placing):
    """CLOSE RANKS (8.8.1 step 1): a unit Engaged presses into the fight."""

    #: A search to use instead of the compiled one (:func:`fastranks.close_ranks_search`): the tests set the naive
    #: Python reading (``tests/scenario_naive.py``) to compare the two; it takes the World and a
    #: :class:`CloseRanksSetting` and returns the Leading Model's end and every model's new centre, or None.
    reference_search: Callable[[Any, CloseRanksSetting], tuple[Coord, list[Coord]] | None] | None = None

    def close_ranks(
        self,
        pid: int,
        alive: int,
        foes: tuple[tuple[int, int], ...],
        others: tuple[int, ...],
    ) -> int:
        """8.8.1 step 1 CLOSE RANKS: the unit's placement after pressing into the fight (the module text).

        ``pid``/``alive``: the unit (its first ``alive`` centres); ``foes``: the placements and models
        left of the Enemy Units it is Engaged with; ``others``: placements of the other units on the
        table (every centre an obstacle, as in :meth:`place`; an enemy Ground unit there must not come
        Within 1"). Returns a new placement id, or ``pid`` when nothing can move.
        """
        lo, hi, reach = self.close_box(pid, alive, foes)
        near = others if lo is None or hi is None else self._near_box(others, lo, hi, reach)
        hit = self.close_ranks_near(pid, alive, foes, near)
        if isinstance(hit, tuple):
            glo, ghi = hit
            hit = self.close_ranks_grid(pid, alive, foes, self._near_box(others, glo, ghi, reach))
        return hit

    def close_ranks_near(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], near: tuple[int, ...]
    ) -> int | tuple[np.ndarray, np.ndarray]:
        """:meth:`close_ranks` with ``near`` the other units near :meth:`close_box` (in their order).

        Returns the new placement id, or, where the move reaches its hexagonal-grid fallback (which
        looks farther), the box that also holds the grid: the caller then asks
        :meth:`close_ranks_grid` with the units near that box (within the same reach). Everything
        before the grid is as with ``near``; the box is convex, so every Coherency Link between two
        spots in it stays in it.
        """
        key = (pid, alive, foes, near)
        hit = self._close.get(key)
        if hit is None:
            try:
                hit = self._close_memo(pid, alive, foes, near, True)
            except _GridFallbackError as fallback:
                lo, hi, _ = self.close_box(pid, alive, foes)
                assert lo is not None and hi is not None
                glo, ghi = close_ranks_grid_box(fallback.lead_to, 2 * self._radius(pid) + GAP)
                hit = -1
                self._close_lead[key] = (np.minimum(lo, glo), np.maximum(hi, ghi))
            self._close[key] = hit
        return self._close_lead[key] if hit < 0 else hit

    def close_ranks_grid(self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], near: tuple[int, ...]) -> int:
        """:meth:`close_ranks` where it reaches the grid, ``near``: the units near the box
        :meth:`close_ranks_near` returned."""
        key = (pid, alive, foes, near)
        hit = self._close_grid.get(key)
        if hit is None:
            hit = self._close_grid[key] = self._close_memo(pid, alive, foes, near, False)
        return hit

    def _close_memo(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...], others: tuple[int, ...], reduced: bool
    ) -> int:
        """:meth:`_close_ranks`, kept with the box of every spot, path point and Coherency Link it tested
        against the other units' bases.

        The other bases enter only those tests, and a base farther than its radius + the unit's + 1" from
        the box cannot change one. So a second call with the same unit, models left, Engaged units and
        mode, whose other bases near that box are the same, makes every test the same, step by step,
        and ends the same (the same placement, or the same grid fallback).
        """
        base = (pid, alive, foes, reduced)
        side = self.scn.units[self.placements[pid].unit].player
        table = self.memo.table("close_bases")  # the other bases, per (placements, side)
        bases: list[tuple[Coord, float, bool, bool]] | None = table.get((others, side))
        if bases is None:
            bases = table[others, side] = []
            for opid in others:
                other = self.scn.units[self.placements[opid].unit]
                rad = self._radius(opid)
                bases += [(c, rad, other.flying, other.player != side) for c in self.placements[opid].centres]
        r = self._radius(pid)
        c = self.content

        def compute() -> tuple[list[float], int | Coord]:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            try:
                return box, self._close_ranks(pid, alive, foes, others, reduced, box)
            except _GridFallbackError as fallback:
                return box, fallback.lead_to

        def by_content() -> tuple[object, ...]:  # placement ids are each process's own: a new one goes as its Placement
            return (c(pid), alive, tuple((c(f), k) for f, k in foes), reduced)

        _, answer = self.memo.boxed(
            "box:close",
            base,
            lambda box: _bases_near(bases, box, r),
            compute,
            by_content,
            to_shared=lambda a: self.placements[a] if isinstance(a, int) else a,
            from_shared=lambda kept: self._intern(kept) if isinstance(kept, Placement) else kept,
        )
        if isinstance(answer, tuple):
            raise _GridFallbackError(answer)
        return answer  # type: ignore[no-any-return]

    def close_box(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...]
    ) -> tuple[np.ndarray | None, np.ndarray | None, float]:
        """:meth:`_close_box`, cached."""
        key = (pid, alive, foes)
        hit = self._close_boxes.get(key)
        if hit is None:
            hit = self._close_boxes[key] = self._close_box(pid, alive, foes)
        return hit

    def _close_box(
        self, pid: int, alive: int, foes: tuple[tuple[int, int], ...]
    ) -> tuple[np.ndarray | None, np.ndarray | None, float]:
        """The box holding every spot :meth:`_close_ranks` looks at short of its grid fallback, and the
        reach (less a base's radius) from it within which another unit's base can matter.

        Every such spot (the Leading Model's path, Base-to-Base rings around the Engaged models and
        around the unit's models Within 1" of them, old spots) has its centre in the box of the unit's
        and the Engaged models' centres grown by ``grow``; a base elsewhere can touch such a spot, a
        path or a Coherency Link, or be Within 1" of one, only if its centre is within
        ``r + its radius + 1"`` of that box. The cache keys keep only these units.
        """
        p = self.placements[pid]
        r = self._radius(pid)
        pts = list(p.centres[:alive])
        fr = 0.0
        for fpid, fk in foes:
            pts.extend(self.placements[fpid].centres[:fk])
            fr = max(fr, self._radius(fpid))
        reach = r + ENGAGEMENT_RANGE + 0.01
        if not pts:
            return None, None, reach
        xy = np.asarray(pts, dtype=float)
        grow = max(CLOSE_RANKS_MOVE, fr + 3 * r + ENGAGEMENT_RANGE + CONTACT) + 0.01
        return xy.min(axis=0) - grow, xy.max(axis=0) + grow, reach

    def _close_ranks(
        self,
        pid: int,
        alive: int,
        foes: tuple[tuple[int, int], ...],
        others: tuple[int, ...],
        reduced: bool,
        box: list[float] | None = None,
    ) -> int:
        """:meth:`close_ranks` uncached; ``reduced``: ``others`` holds only the near ones (raises
        :class:`_GridFallbackError` where the grid fallback is reached); ``box`` ([x0, y0, x1, y1]): grown
        to hold every point and Coherency Link tested against the bases of ``others``."""

        def seen(pts: np.ndarray) -> None:
            if box is not None:
                _grow_box(box, pts)

        p = self.placements[pid]
        su = self.scn.units[p.unit]
        if su.flying or alive <= 0:
            return pid
        level = p.level
        through = self.mobility[p.unit][0]  # Raptor Strain: through IMPASSABLE TERRAIN of Size 4 or less
        r = su.base_mm / MM_PER_INCH / 2
        touch = CONTACT / 2  # a spot set in Base-to-Base contact: bases 0.025" apart
        apart = CONTACT / 2 - 1e-3  # no two bases closer than this (never overlapping)
        cent: list[Coord] = list(p.centres[:alive])
        # live models of the Engaged enemy units, and any other centre of their placements (none in a game: the
        # simulation keeps each placement to its models left, ``SimState.trim``); the other units' bases (every
        # centre, as in ``place``)
        FC, FR, _, _ = self._close_foes(foes)
        if not FC.shape[0]:
            return pid
        _, _, _, _, LOB, LOR = self._close_others(others, su.player)

        def gaps(pts: np.ndarray, cs: np.ndarray, rs: np.ndarray | float) -> np.ndarray:
            """Edge gaps, points x bases."""
            if cs.size == 0:
                return np.full((pts.shape[0], 0), np.inf)
            return np.sqrt(((pts[:, None, :] - cs[None, :, :]) ** 2).sum(axis=2)) - r - rs

        foe_gaps: dict[Coord, float] = {}

        def foe_gap(c: Coord) -> float:
            hit = foe_gaps.get(c)
            if hit is None:
                hit = foe_gaps[c] = float(gaps(np.asarray([c]), FC, FR).min())
            return hit

        carr = self._centres(pid)[:alive]
        cent_gaps = gaps(carr, FC, FR)  # the unit's models x Engaged models
        mins = cent_gaps.min(axis=1).tolist()
        for c, g in zip(cent, mins, strict=True):
            foe_gaps[c] = g
        pinned = [g <= CONTACT + EPS for g in mins]  # foe_gap(c) of each model
        movable = [i for i in range(alive) if not pinned[i]]
        if not movable:
            return pid
        before = self._engaged_before.get((pid, alive, foes))
        if before is None:
            before = self._engaged_before[(pid, alive, foes)] = self._engaged_foes(su, cent, level, foes)
        if not before:
            return pid

        # every base a spot must keep ``apart`` from (the Engaged models, the removed ones', the other units'), and
        # those of enemies it must not come Within 1" of; for the Leading Model's way, those it may not cross
        # (each base is tested on its own: their order does not matter)
        (all_c, all_r, all_solid, all_enemy), way, contact = self._close_way(foes, others, su.player, r, touch)
        way_c, way_r, way_solid, way_enemy = way
        gone = len(p.centres) - alive
        if gone:  # the unit's removed models
            all_c = np.concatenate([all_c, self._centres(pid)[alive:]])
            all_r = np.concatenate([all_r, np.full(gone, r)])
            all_solid = np.ones(len(all_r), dtype=bool)
            all_enemy = np.concatenate([all_enemy, np.zeros(gone, dtype=bool)])

        def free_static(pts: np.ndarray) -> np.ndarray:
            """Legal end spots as far as the other units and the terrain go: on the table/level, off terrain,
            on no other base, not Within 1" of a new enemy (the unit's own models: :func:`free`)."""
            seen(pts)
            ok = clear_of(pts, all_c, all_r, r, apart, all_solid, ENGAGEMENT_RANGE + EPS, all_enemy)
            idx = np.flatnonzero(ok)
            if idx.size:
                ok[idx] = self._terrain_ok(pts[idx], r, level)
            return ok

        def free(pts: np.ndarray, mine: list[Coord], static: np.ndarray | None = None) -> np.ndarray:
            """Legal end spots: :func:`free_static` (``static``: already known) and on none of ``mine``."""
            ok = free_static(pts) if static is None else static.copy()
            if mine and ok.any():
                m = len(mine)
                ones, zeros = np.ones(m, dtype=bool), np.zeros(m, dtype=bool)  # flags for the unit's own bases
                ok &= clear_of(pts, np.asarray(mine, dtype=float), np.full(m, r), r, apart, ones, 0.0, zeros)
            return ok

        def passable(pts: np.ndarray) -> np.ndarray:
            """The Leading Model's base on its way (8.5.3 step 1): no Size 2+ wall, enemy or other unit's model."""
            seen(pts)
            ok = clear_of(pts, way_c, way_r, r, 0.0, way_solid, ENGAGEMENT_RANGE + EPS, way_enemy)
            return ok & self._terrain_ok(pts, r, level, walls_only=True, through=through)

        got = (
            self._close_ranks_compiled(
                su,
                level,
                through,
                r,
                touch,
                apart,
                cent,
                carr,
                cent_gaps,
                mins,
                FC,
                FR,
                (all_c, all_r, all_solid, all_enemy),
                (way_c, way_r, way_solid, way_enemy),
                (LOB, LOR),
                contact,
                pinned,
                movable,
                reduced,
                box,
            )
            if self.reference_search is None
            else self.reference_search(
                self,
                CloseRanksSetting(
                    su=su,
                    level=level,
                    r=r,
                    touch=touch,
                    apart=apart,
                    cent=cent,
                    FC=FC,
                    FR=FR,
                    pinned=pinned,
                    movable=movable,
                    reduced=reduced,
                    contact=contact,
                    LOB=LOB,
                    LOR=LOR,
                    gaps=gaps,
                    foe_gap=foe_gap,
                    free_static=free_static,
                    free=free,
                    passable=passable,
                    seen=seen,
                ),
            )
        )
        if got is None:
            return pid
        lead_to, final = got
        # "Models cannot use this move to Disengage from other Enemy Units"
        if self._engaged_foes(su, final, level, foes) != before:
            return pid
        near = FC[self._nearest_foe(lead_to, _gaps_from(lead_to, FC, FR, r), FC, su.player)]
        away = (lead_to[0] - float(near[0]), lead_to[1] - float(near[1]))
        norm = math.hypot(*away) or 1.0
        fm = [(self.placements[fpid].unit, c, fr) for (fpid, fk) in foes for c, fr in self._foe_models(fpid, fk)]
        order = self._casualty_order(final, (away[0] / norm, away[1] / norm), r, fm)
        placement = Placement(su.id, (*order, *p.centres[alive:]), level)
        result = self._pid.get(placement)
        if result is None:
            self.placements.append(placement)
            result = self._pid[placement] = len(self.placements) - 1
        return result

    def _nearest_foe(self, c: Coord, g: np.ndarray, fc: np.ndarray, player: str) -> int:
        """Which of the Engaged models ``fc`` (edge gaps ``g`` from a model at ``c``) is the nearest: the least gap
        (to 6 decimals); ties in the unit's frame (its rear: ``player``'s Entry Edge), the side of the table's
        centre first (:meth:`_lateral_first`), then the nearer the rear, then the first. A symmetry of the table
        that swaps the players maps the model taken at one unit onto the one taken at its image (a tie went to the
        first in the placement's order, which the symmetry does not map)."""
        d = np.round(g, 6)
        near = np.flatnonzero(d == d.min())
        if near.size == 1:
            return int(near[0])
        bx, by = self.rear_of(player)
        first = self._lateral_first(c, (bx, by), player)
        dx, dy = fc[near, 0] - c[0], fc[near, 1] - c[1]
        side = np.round(-first * (dy * bx - dx * by), 6)
        ahead = np.round(-(dx * bx + dy * by), 6)
        return int(near[np.lexsort((ahead, side))[0]])

    def _close_foes(self, foes: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Of the Engaged units ``foes`` (placement, models left), kept: their live models' centres and radii, then
        their removed models' (in the order of ``foes``, each placement's models in order)."""
        table = self.memo.table("close_foes")
        hit = table.get(foes)
        if hit is None:
            rads = np.asarray([self._radius(fpid) for fpid, _ in foes], dtype=float)
            live = [min(fk, len(self.placements[fpid].centres)) for fpid, fk in foes]
            gone = [len(self.placements[fpid].centres) - k for (fpid, _), k in zip(foes, live, strict=True)]
            hit = table[foes] = (
                np.concatenate([np.zeros((0, 2)), *(self._centres(fpid)[:fk] for fpid, fk in foes)]),
                np.repeat(rads, live),
                np.concatenate([np.zeros((0, 2)), *(self._centres(fpid)[fk:] for fpid, fk in foes)]),
                np.repeat(rads, gone),
            )
        return hit  # type: ignore[no-any-return]

    def _close_others(
        self, others: tuple[int, ...], player: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Of the other units' placements ``others`` (every centre, in order), kept: centres, radii, Flying, an enemy
        Ground unit of ``player``'s; and the Ground ones' centres and radii (those a Coherency Link may not cross)."""
        table = self.memo.table("close_others")
        hit = table.get((others, player))
        if hit is None:
            units = [self.scn.units[self.placements[opid].unit] for opid in others]
            n = [len(self.placements[opid].centres) for opid in others]
            oc = np.concatenate([np.zeros((0, 2)), *(self._centres(opid) for opid in others)])
            orad = np.repeat(np.asarray([self._radius(opid) for opid in others], dtype=float), n)
            ofly = np.repeat(np.asarray([u.flying for u in units], dtype=bool), n)
            oen = np.repeat(np.asarray([u.player != player and not u.flying for u in units], dtype=bool), n)
            lob = oc[~ofly] if oc.size else oc
            lor = orad[~ofly] if oc.size else orad
            hit = table[others, player] = (oc, orad, ofly, oen, lob, lor)
        return hit  # type: ignore[no-any-return]

    def _close_way(
        self, foes: tuple[tuple[int, int], ...], others: tuple[int, ...], player: str, r: float, touch: float
    ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], np.ndarray]:
        """Kept: the bases a spot of :meth:`_close_ranks` must keep apart from but the unit's own removed models (the
        Engaged models, their removed ones, the other units'; centres, radii, solid, enemy), those the Leading
        Model's way may not cross (the Engaged models and the other units'), and the spots in Base-to-Base contact
        with the Engaged models."""
        table = self.memo.table("close_way")
        key = (foes, others, player, r, touch)
        hit = table.get(key)
        if hit is None:
            FC, FR, FGC, FGR = self._close_foes(foes)
            OC, OR, OFLY, OEN, _, _ = self._close_others(others, player)
            n = len(FR) + len(FGR)
            hit = table[key] = (
                (
                    np.concatenate([FC, FGC, OC]),
                    np.concatenate([FR, FGR, OR]),
                    np.ones(n + len(OR), dtype=bool),
                    np.concatenate([np.zeros(n, dtype=bool), OEN]),
                ),
                (
                    np.concatenate([FC, OC]),
                    np.concatenate([FR, OR]),
                    np.concatenate([np.ones(len(FR), dtype=bool), ~OFLY]),
                    np.concatenate([np.zeros(len(FR), dtype=bool), OEN]),
                ),
                (FC[:, None, :] + (r + FR + touch)[:, None, None] * _RING[None, :, :]).reshape(-1, 2),
            )
        return hit  # type: ignore[no-any-return]

    def _close_ranks_compiled(
        self,
        su: ScenarioUnit,
        level: str | None,
        through: int,
        r: float,
        touch: float,
        apart: float,
        cent: list[Coord],
        carr: np.ndarray,
        cent_gaps: np.ndarray,
        mins: list[float],
        fc: np.ndarray,
        fr: np.ndarray,
        solid_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        way_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        link_bases: tuple[np.ndarray, np.ndarray],
        contact: np.ndarray,
        pinned: list[bool],
        movable: list[int],
        reduced: bool,
        box: list[float] | None,
    ) -> tuple[Coord, list[Coord]] | None:
        """:meth:`_close_ranks`'s search by :func:`fastranks.close_ranks_search` (the same answers as its Python
        reading, ``search``): the Leading Model's end and the new centres, or None (no move); raises
        :class:`_GridFallbackError` as the reading does. ``carr``: ``cent`` as an array; ``mins``: each model's gap to
        the nearest Engaged model (its row of ``cent_gaps``' least)."""
        # per movable model, in order: its nearest Engaged enemy model, the distance to it and the gap
        lead_j = np.asarray([self._nearest_foe(cent[i], cent_gaps[i], fc, su.player) for i in movable], dtype=np.int64)
        lead_gap = cent_gaps[movable, lead_j]
        lead_d = []
        for i, j0 in zip(movable, lead_j.tolist(), strict=True):
            x = fc[j0] - carr[i]
            lead_d.append(math.sqrt(x.dot(x)))  # np.linalg.norm(x), the same double
        order = sorted(movable, key=lambda i: (round(mins[i], 6), i))
        lob, lor = link_bases
        ground, blk, thr, walls = self._close_terrain(level, through)
        seen = np.array([math.inf, math.inf, -math.inf, -math.inf])
        status, _, lx, ly, new = fastranks.close_ranks_search(
            carr,
            np.asarray(pinned, dtype=bool),
            np.asarray(movable, dtype=np.int64),
            lead_j.astype(np.int64),
            np.asarray(lead_d, dtype=float),
            np.ascontiguousarray(lead_gap, dtype=float),
            np.asarray(order, dtype=np.int64),
            r,
            touch,
            apart,
            ENGAGEMENT_RANGE + EPS,
            CLOSE_RANKS_MOVE,
            fc,
            fr,
            solid_bases,
            way_bases,
            ground,
            blk,
            thr,
            (*walls, np.ascontiguousarray(lob, dtype=float).reshape(-1, 2), np.ascontiguousarray(lor, dtype=float)),
            2 * r + GAP + COHERENCY_SLACK + EPS,
            self._coherency_lim[su.id],
            _RING,
            2 * r + touch,
            contact,
            _grid_frame(2 * r + GAP),
            (*self._table_frame, *self.rear_of(su.player)),
            reduced,
            seen,
        )
        if box is not None and seen[0] <= seen[2]:  # as _grow_box(box, seen.reshape(2, 2)): x0 <= x1, y0 <= y1
            x0, y0, x1, y1 = seen
            box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        lead_to = (float(lx), float(ly))
        if status == fastranks.GRID:
            raise _GridFallbackError(lead_to)
        if status == fastranks.NO_MOVE:
            return None
        return lead_to, [(float(x), float(y)) for x, y in new.tolist()]

    def _close_terrain(self, level: str | None, through: int) -> tuple[tuple[Any, ...], Any, Any, Any]:
        """What :func:`fastranks.close_ranks_search` reads of the terrain on ``level`` (``through``: Raptor Strain's
        Size), kept: the table and the level's top, the pieces a base may not end on, those the Leading Model may
        not move through, and the walls a Coherency Link may not cross (:func:`fastranks.pack` of each)."""
        table = self.memo.table("close_terrain")
        hit = table.get((level, through))
        if hit is None:
            if level is not None:
                top_v, top_r, _, _ = self._pack(("top", level), lambda: [self._top(level)])
            else:
                top_v, top_r = _NO_TOP
            hit = table[level, through] = (
                (float(self.board.width), float(self.board.depth), EPS, top_v, top_r, level is not None),
                self._pack(("blockers", level), lambda: self._level_blockers(level)),
                self._pack(("walls", level, through), lambda: self._walls(level, through)),
                self._pack(("walls", level, 0), lambda: self._walls(level)),
            )
        return hit  # type: ignore[no-any-return]

    def near_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every placement made so far, packed for compiled nearness tests (the arrays of
        :class:`~mathhammer.scenario.fastnear.Centres`: ``starts``, ``xy``, ``rads``): what
        :class:`~mathhammer.scenario.fastcombat.GroupsNearSplitter` reads."""
        packed = self._centres_packed()
        return packed.starts, packed.xy, packed.rads

    @cached_property
    def _coherency_lim(self) -> dict[str, float]:
        """Per unit: :func:`horizontal_coherency` + EPS, the Wholly Within reach of its Close Ranks."""
        return {su.id: horizontal_coherency(su) + EPS for su in self.scn.units.values()}

    def _foe_models(self, fpid: int, fk: int) -> list[tuple[Coord, float]]:
        fp = self.placements[fpid]
        frad = self.scn.units[fp.unit].base_mm / MM_PER_INCH / 2
        return [(c, frad) for c in fp.centres[:fk]]

    def _engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        """The units of ``foes`` that a unit with models at ``centres`` is Engaged with (7.2.1)."""
        return self.memo.ask(  # type: ignore[no-any-return]
            lambda: ("engaged", su.id, tuple(centres), level, tuple((self.content(f), k) for f, k in foes)),
            lambda: self._read_engaged_foes(su, centres, level, foes),
        )

    def _read_engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        """:meth:`_engaged_foes` read: per Engaged unit, a pair of models Within 1" (the gap as
        :meth:`~mathhammer.board.model.Model.distance` computes it) asked of :func:`engaged` through the answers kept
        by the two bases (:meth:`_engaged_memo`: the same answers, no board built)."""
        r = su.base_mm / MM_PER_INCH / 2
        within = ENGAGEMENT_RANGE + EPS
        pairs = self._engaged_memo
        out: list[str] = []
        for fpid, fk in foes:
            fp = self.placements[fpid]
            fu = self.scn.units[fp.unit]
            if fk <= 0 or fu.flying or fu.player == su.player:
                continue  # no model left, or never Engaged (7.2.1: Flying; enemies only)
            fr = self._radius(fpid)
            hit = any(
                max(0.0, math.dist(c, f) - r - fr) <= within
                and pairs.bases((c[0], c[1], su.base_mm, level), (f[0], f[1], fu.base_mm, fp.level))
                for c in centres
                for f in fp.centres[:fk]
            )
            if hit:
                out.append(fu.id)
        return frozenset(out)
