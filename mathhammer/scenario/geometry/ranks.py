"""CLOSE RANKS (8.8.1 step 1): a unit Engaged presses into the fight."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import shapely

from ...board.engagement import ENGAGEMENT_RANGE, engaged
from ...board.model import EPS, MM_PER_INCH, Board, Model, Unit, shape_bounds
from ...board.ranks import CONTACT
from .. import fastranks
from ..fast import clear_of, near_any
from ..spec import ScenarioUnit
from .core import (
    _RING,
    CLOSE_RANKS_MOVE,
    COHERENCY_SLACK,
    GAP,
    BoardState,
    Coord,
    Placement,
    _bases_near,
    _grid_offsets,
    _GridFallbackError,
    _grow_box,
    close_ranks_grid,
    close_ranks_grid_box,
    horizontal_coherency,
)


class CloseRanks(BoardState):
    """CLOSE RANKS (8.8.1 step 1): a unit Engaged presses into the fight."""

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
        bases: list[tuple[Coord, float, bool, bool]] = []
        for opid in others:
            other = self.scn.units[self.placements[opid].unit]
            rad = self._radius(opid)
            bases += [(c, rad, other.flying, other.player != side) for c in self.placements[opid].centres]
        r = self._radius(pid)
        entries = self._close_memos.setdefault(base, [])
        for box, relevant, kept in entries:
            if _bases_near(bases, box, r) == relevant:
                if isinstance(kept, tuple):
                    raise _GridFallbackError(kept)
                return kept
        found = None
        if self.shared is not None:  # what another forked worker found, by content (placement ids are its own)
            c = self.content
            asked = ("close", c(pid), alive, tuple((c(f), k) for f, k in foes), reduced)
            found = self._shared_entry(asked, lambda box: _bases_near(bases, box, r))
        answer: int | Coord
        if found is not None:
            box, relevant, kept = found
            answer = self._intern(kept) if isinstance(kept, Placement) else kept
        else:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            try:
                answer = self._close_ranks(pid, alive, foes, others, reduced, box)
            except _GridFallbackError as fallback:
                answer = fallback.lead_to
            relevant = _bases_near(bases, box, r)
            if self.shared is not None:
                self.shared.put(asked, (box, relevant, self.placements[answer] if isinstance(answer, int) else answer))
        entries.append((box, relevant, answer))
        if isinstance(answer, tuple):
            raise _GridFallbackError(answer)
        return answer

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
        fc_l: list[Coord] = []
        fr_l: list[float] = []
        for fpid, fk in foes:  # live models of the Engaged enemy units
            fp = self.placements[fpid]
            frad = self.scn.units[fp.unit].base_mm / MM_PER_INCH / 2
            fc_l.extend(fp.centres[:fk])
            fr_l.extend([frad] * len(fp.centres[:fk]))
        oc_l: list[Coord] = []
        or_l: list[float] = []
        ofly: list[bool] = []
        oen: list[bool] = []
        for opid in others:  # other units' bases (every centre, as in ``place``)
            op = self.placements[opid]
            other = self.scn.units[op.unit]
            orad = other.base_mm / MM_PER_INCH / 2
            for c in op.centres:
                oc_l.append(c)
                or_l.append(orad)
                ofly.append(other.flying)
                oen.append(other.player != su.player and not other.flying)
        if not fc_l:
            return pid
        FC, FR = np.asarray(fc_l, dtype=float).reshape(-1, 2), np.asarray(fr_l)
        # every centre of the placements is kept clear (the removed models' too): boards read with a unit at
        # full strength (``Simulation._local_state``) stay legal
        ghosts = [(c, self._radius(fpid)) for fpid, fk in foes for c in self.placements[fpid].centres[fk:]]
        ghosts += [(c, r) for c in p.centres[alive:]]
        GC = np.asarray([c for c, _ in ghosts], dtype=float).reshape(-1, 2)
        GR = np.asarray([g for _, g in ghosts])
        OC, OR = np.asarray(oc_l, dtype=float).reshape(-1, 2), np.asarray(or_l)
        OFLY, OEN = np.asarray(ofly, dtype=bool), np.asarray(oen, dtype=bool)

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

        cent_gaps = gaps(np.asarray(cent, dtype=float).reshape(-1, 2), FC, FR)  # the unit's models x Engaged models
        for c, g in zip(cent, cent_gaps.min(axis=1).tolist(), strict=True):
            foe_gaps[c] = g
        pinned = [foe_gap(c) <= CONTACT + EPS for c in cent]
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
        all_c = np.concatenate([FC, GC, OC]).reshape(-1, 2)
        all_r = np.concatenate([FR, GR, OR]).astype(float)
        all_solid = np.ones(len(all_r), dtype=bool)
        all_enemy = np.concatenate([np.zeros(len(FR) + len(GR), dtype=bool), OEN])
        way_c = np.concatenate([FC, OC]).reshape(-1, 2)
        way_r = np.concatenate([FR, OR]).astype(float)
        way_solid = np.concatenate([np.ones(len(FR), dtype=bool), ~OFLY])
        way_enemy = np.concatenate([np.zeros(len(FR), dtype=bool), OEN])
        ones, zeros = np.ones(alive, dtype=bool), np.zeros(alive, dtype=bool)  # flags for the unit's own bases
        # spots in Base-to-Base contact with the Engaged models; the other Ground units' bases a Link may not cross
        contact = (FC[:, None, :] + (r + FR + touch)[:, None, None] * _RING[None, :, :]).reshape(-1, 2)
        LOB = OC[~OFLY] if OC.size else OC
        LOR = OR[~OFLY] if OC.size else OR

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
                ok &= clear_of(pts, np.asarray(mine, dtype=float), np.full(m, r), r, apart, ones[:m], 0.0, zeros[:m])
            return ok

        def passable(pts: np.ndarray) -> np.ndarray:
            """The Leading Model's base on its way (8.5.3 step 1): no Size 2+ wall, enemy or other unit's model."""
            seen(pts)
            ok = clear_of(pts, way_c, way_r, r, 0.0, way_solid, ENGAGEMENT_RANGE + EPS, way_enemy)
            return ok & self._terrain_ok(pts, r, level, walls_only=True, through=through)

        def search() -> tuple[Coord, list[Coord]] | None:
            """The Python reading of the search (World.compiled_ranks False; fastranks.close_ranks_search compiles
            it): the Leading Model's end and every model's new centre, or None (no move)."""
            # the Leading Model: the first non-pinned model that can end closer (3" at most, straight at the nearest
            # Engaged enemy model, up to Base-to-Base contact or where its way is blocked)
            lead_i, lead_to = -1, cent[0]
            for i in movable:
                start = np.asarray(cent[i])
                g0 = gaps(start[None, :], FC, FR)[0]
                j0 = int(np.argmin(g0))
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
                    lead_i, lead_to = i, end
                    break
            if lead_i < 0:
                return None
            new: list[Coord | None] = [c if pinned[k] else None for k, c in enumerate(cent)]
            new[lead_i] = lead_to
            walls = self._walls(level)  # Coherency Links: Raptor Strain changes movement, not 4.4

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

            def pick(
                cands: np.ndarray,
                old: Coord,
                mine: list[Coord],
                static: np.ndarray | tuple[np.ndarray, np.ndarray] | None,
                wholly: bool,
            ) -> Coord | None:
                """The free spot In Coherency (near a model already set and linked to it; ``wholly``: also
                Wholly Within 3" of the Leading Model) nearest ``old``; ``static``: :func:`free_static` of
                ``cands``, where already known, or (values, known) arrays filled here where needed (each spot
                is then tested once however many models look at it)."""
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
                dist = np.round(np.linalg.norm(cands - np.asarray(old), axis=1), 6)
                for j in np.lexsort((cands[:, 1], cands[:, 0], dist)):
                    c = (float(cands[j, 0]), float(cands[j, 1]))
                    if linked(c):
                        return c
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
                        pts = close_ranks_grid(lead_to, 2 * r + GAP)
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
            assert len(final) == alive
            return lead_to, final

        got = (
            self._close_ranks_compiled(
                su,
                level,
                through,
                r,
                touch,
                apart,
                cent,
                cent_gaps,
                FC,
                FR,
                (all_c, all_r, all_solid, all_enemy),
                (way_c, way_r, way_solid, way_enemy),
                (LOB, LOR),
                contact,
                pinned,
                movable,
                foe_gap,
                reduced,
                box,
            )
            if self.compiled_ranks
            else search()
        )
        if got is None:
            return pid
        lead_to, final = got
        # "Models cannot use this move to Disengage from other Enemy Units"
        if self._engaged_foes(su, final, level, foes) != before:
            return pid
        near = FC[int(np.argmin(gaps(np.asarray([lead_to]), FC, FR)[0]))]
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

    def _close_ranks_compiled(
        self,
        su: ScenarioUnit,
        level: str | None,
        through: int,
        r: float,
        touch: float,
        apart: float,
        cent: list[Coord],
        cent_gaps: np.ndarray,
        fc: np.ndarray,
        fr: np.ndarray,
        solid_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        way_bases: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        link_bases: tuple[np.ndarray, np.ndarray],
        contact: np.ndarray,
        pinned: list[bool],
        movable: list[int],
        foe_gap: Callable[[Coord], float],
        reduced: bool,
        box: list[float] | None,
    ) -> tuple[Coord, list[Coord]] | None:
        """:meth:`_close_ranks`'s search by :func:`fastranks.close_ranks_search` (the same answers as its Python
        reading, ``search``): the Leading Model's end and the new centres, or None (no move); raises
        :class:`_GridFallbackError` as the reading does."""
        # per movable model, in order: its nearest Engaged enemy model, the distance to it and the gap
        lead_j = np.argmin(cent_gaps[movable], axis=1)
        lead_gap = cent_gaps[movable, lead_j]
        lead_d = []
        for i, j0 in zip(movable, lead_j.tolist(), strict=True):
            x = fc[j0] - np.asarray(cent[i])
            lead_d.append(math.sqrt(x.dot(x)))  # np.linalg.norm(x), the same double
        order = sorted(movable, key=lambda i: (round(foe_gap(cent[i]), 6), i))
        lob, lor = link_bases
        if level is not None:
            top_v, top_r, _, _ = self._pack(("top", level), lambda: [self._top(level)])
        else:
            top_v, top_r = np.zeros((0, 2)), np.zeros(1, dtype=np.int64)
        blk = self._pack(("blockers", level), lambda: self._level_blockers(level))
        thr = self._pack(("walls", level, through), lambda: self._walls(level, through))
        walls = self._pack(("walls", level, 0), lambda: self._walls(level))
        seen = np.array([math.inf, math.inf, -math.inf, -math.inf])
        status, _, lx, ly, new = fastranks.close_ranks_search(
            np.asarray(cent, dtype=float).reshape(-1, 2),
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
            (float(self.board.width), float(self.board.depth), EPS, top_v, top_r, level is not None),
            blk,
            thr,
            (*walls, np.ascontiguousarray(lob, dtype=float).reshape(-1, 2), np.ascontiguousarray(lor, dtype=float)),
            2 * r + GAP + COHERENCY_SLACK + EPS,
            horizontal_coherency(su) + EPS,
            _RING,
            2 * r + touch,
            contact,
            np.ascontiguousarray(_grid_offsets(2 * r + GAP)),
            reduced,
            seen,
        )
        if box is not None and seen[0] <= seen[2]:
            _grow_box(box, seen.reshape(2, 2))
        lead_to = (float(lx), float(ly))
        if status == fastranks.GRID:
            raise _GridFallbackError(lead_to)
        if status == fastranks.NO_MOVE:
            return None
        return lead_to, [(float(x), float(y)) for x, y in new.tolist()]

    def _foe_models(self, fpid: int, fk: int) -> list[tuple[Coord, float]]:
        fp = self.placements[fpid]
        frad = self.scn.units[fp.unit].base_mm / MM_PER_INCH / 2
        return [(c, frad) for c in fp.centres[:fk]]

    def _engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        """The units of ``foes`` that a unit with models at ``centres`` is Engaged with (7.2.1)."""
        return self._ask(  # type: ignore[no-any-return]
            lambda: ("engaged", su.id, tuple(centres), level, tuple((self.content(f), k) for f, k in foes)),
            lambda: self._read_engaged_foes(su, centres, level, foes),
        )

    def _read_engaged_foes(
        self, su: ScenarioUnit, centres: list[Coord], level: str | None, foes: tuple[tuple[int, int], ...]
    ) -> frozenset[str]:
        r = su.base_mm / MM_PER_INCH / 2
        mc = np.asarray(centres, dtype=float)
        pairs: list[tuple[Unit, list[tuple[int, int]]]] = []
        need: set[int] = set()
        for fpid, fk in foes:
            fp = self.placements[fpid]
            fu = self.scn.units[fp.unit]
            models = self._models_of(fpid)[:fk]
            if not models:
                continue
            fc = np.asarray(fp.centres[:fk], dtype=float)
            g = np.sqrt(((mc[:, None, :] - fc[None, :, :]) ** 2).sum(axis=2)) - r - self._radius(fpid)
            near = [(int(i), int(j)) for i, j in np.argwhere(g <= ENGAGEMENT_RANGE + 1e-3)]  # may be Within 1"
            pairs.append((Unit(fu.id, fu.player, models), near))
            need |= {i for i, _ in near}
        if not need:
            return frozenset()
        mine = {
            i: Model(f"{su.id}.{i + 1}", centres[i][0], centres[i][1], su.base_mm, su.size, stands_on=level)
            for i in sorted(need)
        }
        units = (Unit(su.id, su.player, tuple(mine.values())), *(u for u, _ in pairs))
        b = Board.trusted(self.board.width, self.board.depth, self.board.terrain, units)
        return frozenset(u.id for u, near in pairs if any(engaged(b, mine[i], u.models[j]) for i, j in near))
