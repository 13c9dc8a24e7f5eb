"""Charge geometry: the Charge path's length (8.7.7 steps 2-3) and the charging unit's Placement priority (step 4).

Set by the rules of :mod:`.placement` but for this:

* A charging unit is set by 8.7.7 step 4's Placement priority instead (:meth:`World._charge_spots`):
  each model in Base-to-Base contact with a live model of a declared target wherever there is room
  (Priority A), else Within 1" of one (Priority B), else beside a model of the unit that is (its
  Supporting Rank) or on the grid nearest the Leading Model (Priority C). A removed model is off the table (each
  unit's placement holds its models left only, ``SimState.trim``): its spot is free. The Leading Model stands where
  the Charge path ended as the path reads the bases (:meth:`Charges._lead_free`, 8.7.7 step 3): touching another base,
  or over a target's removed model. The models are set Wholly Within 3" of the Leading Model (4.4; 4" for a
  Squadron), by those priorities, else on a fine grid Within the 3" (:meth:`Charges._charge_spots`), and a model that
  finds no spot so is removed as a casualty (4.4), with every model after it (:meth:`Charges.charge_place`). The
  Leading Model stays where the Charge path ended (Within 1" of every target), not moved on into Base-to-Base contact
  where the Charge Roll would allow ("Set it in Base-to-Base contact with the Charge target(s) if possible"): that
  would make a placement per Charge Roll.
* Spots equally near the Leading Model are taken in the unit's own frame (its rear: towards where the Leading Model
  stood), the side of the table's centre first, then the nearer the rear, and the grid of Priority C is laid in that
  frame, as :meth:`~.placement.Placing._grid_order` lays a formation: the rules say which spots are legal, not which
  of equal ones is taken, and a table's symmetry (a card that swaps the players) then maps one unit's models onto
  those of a unit charging at the image point (tests/test_mirror_map.py). Before (session 11) ties went by the
  table's x then y and the grid along the table's x.

A Charge is read first on the models near the Leading Model, for paths up to 1, 2, 3, 4, 6 and 8 inches in
turn (:meth:`Charges._charge_local`, :data:`CHARGE_STEPS`): a path that short stays near its start, so its answer
is kept under the content of those models alone, which many more board states share.

On a board of one level the path is searched compiled (:func:`~mathhammer.board.fastcharge.charge_search`: the bases
read as circles; within the shapely search's own approximation of it, tests/test_fastcharge.py), else, and where it
leaves the answer to it, by :func:`~mathhammer.board.charge.charge_distance`: the automatic players' verdicts, the walk
and the engine read the same answer (:meth:`Charges._search`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import numpy as np

from ...board.charge import ChargePath, charge_distance
from ...board.cspace import examined_near
from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH, Board, Unit
from ...board.ranks import CONTACT
from .. import fastspots
from ..spec import ScenarioUnit
from .core import (
    _RING,
    AUTO,
    B_GAPS,
    CHARGE_STEPS,
    COHERENCY_SLACK,
    GAP,
    Coord,
    Placement,
    _Auto,
    _bases_near,
    _grow_box,
    _join_box,
    cell_slack,
    fine_arrays,
    fine_cells,
    force_field_piece,
    horizontal_coherency,
)
from .placement import Placing, hexagon

#: a charging unit's spots on the playmat are read compiled (:mod:`~mathhammer.scenario.fastspots`; the tests turn this
#: Read the fine grid by cells first (``core.cell_slack``; the tests compare it with the spots read one by one)
CELLS = True

#: off to compare with the Python reading)
SPOTS_COMPILED = True

#: a Charge on a board of one level is searched compiled (:func:`~mathhammer.board.fastcharge.charge_search`; the
#: tests turn this off to compare with the shapely search)
COMPILED = True


@lru_cache(maxsize=256)
def _hexagon_arrays(rings: int, step: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.placement.hexagon` as two arrays (lateral, ahead), kept per (rings, step)."""
    spots = np.asarray(hexagon(rings, step), dtype=float).reshape(-1, 2)
    lat, fwd = np.ascontiguousarray(spots[:, 0]), np.ascontiguousarray(spots[:, 1])
    lat.flags.writeable = fwd.flags.writeable = False
    return lat, fwd


class Charges(Placing):
    """Charge geometry: the Charge path's length and the charging unit's Placement priority (8.7.7)."""

    def charge_place(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        targets_left: tuple[tuple[str, int], ...] = (),
        level: str | _Auto | None = AUTO,
        box: list[float] | None = None,
    ) -> int | None:
        """:meth:`place` for a charging unit (8.7.7 step 4), with ``occupied`` as given (not reduced, not cached).

        ``box`` ([x0, y0, x1, y1]): grown to hold the Leading Model and every spot tested against the other
        bases. The answer depends on those bases only through the ones within their radius + the unit's
        radius + 1" of that box (:meth:`bases_test`): the test of the Leading Model's spot, each spot's test
        (:meth:`_charge_spots`), and 8.7.5's tiers (an enemy Within 1" of a spot set) read no others.

        None where the Leading Model cannot stand at ``lead`` (:meth:`_lead_free`). Where a model finds no spot, the
        placement holds the models set before it: fewer centres than the unit has models (4.4: "Any model that cannot
        find a legal position maintaining the Coherency Link is immediately removed as a casualty"; the engine removes
        the live models it lacks in each game, :meth:`Simulation._charge_place`). Before session 57 the answer was None
        there: the whole unit stayed where it was ("no room to set the unit there"), at full strength or not.
        """
        level = self.level_at(lead) if level is AUTO else level
        assert not isinstance(level, _Auto)
        r = su.base_mm / MM_PER_INCH / 2
        if box is not None:
            _grow_box(box, np.asarray([lead], dtype=float))
        others, foes = self._others_foes(su, occupied, allowed_enemies)
        result: int | None = None
        left = dict(targets_left)
        if self._lead_free(su, lead, r, occupied, allowed_enemies, left, level):
            live = [
                (c, self._radius(pid))
                for pid in occupied
                if self.placements[pid].unit in allowed_enemies
                for c in self.placements[pid].centres[
                    : left.get(self.placements[pid].unit, len(self.placements[pid].centres))
                ]
            ]
            norm = math.hypot(*rear)
            back = (rear[0] / norm, rear[1] / norm) if norm else self.rear_of(su.player)
            spots = self._charge_spots_memo(su, lead, r, level, others, live, back, box)
            # 8.7.5's tiers against the targets' live models (the order is fixed here, see :mod:`.placement`)
            here = {c for c, _ in live}
            live_foes = [f for f in foes if f[0] not in allowed_enemies or f[1] in here]
            spots = self._casualty_order(spots, back, r, live_foes)
            result = self._intern(Placement(su.id, tuple(spots), level))
        return result

    def _lead_free(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        left: dict[str, int],
        level: str | None,
    ) -> bool:
        """May the charging unit's Leading Model stand at ``lead``, where the Charge path ended (8.7.7 step 3: "Not
        overlapping other bases or impassable terrain. Not Within the Engagement Range of any Enemy Unit that was not
        declared as a target")? As the path reads the bases: touching one is no overlap (step 4: "Set it in
        Base-to-Base contact with the Charge target(s) if possible"), and a declared target's removed models (its
        first ``left`` centres are its live ones) are not on the table. The other models keep ``GAP / 2`` from every
        base (:meth:`_charge_spots`). Before session 56 the Leading Model kept ``GAP / 2`` from every base, the
        targets' removed ones included, so a quarter of the automatic players' Charges that reached found "no room"."""
        if self._blocked(lead, r, [], True, level):  # off the table or its level, on terrain
            return False
        near = ENGAGEMENT_RANGE + EPS
        for pid in occupied:
            p = self.placements[pid]
            other = self.scn.units[p.unit]
            target = p.unit in allowed_enemies
            enemy = not target and other.player != su.player and not other.flying and not su.flying
            orad = self._radius(pid)
            for c in p.centres[: left.get(p.unit, len(p.centres))] if target else p.centres:
                gap = math.dist(lead, c) - r - orad
                if gap < -EPS or (enemy and gap <= near):
                    return False
        return True

    def charge_place_kept(
        self,
        su: ScenarioUnit,
        lead: Coord,
        rear: Coord,
        occupied: tuple[int, ...],
        allowed_enemies: tuple[str, ...],
        targets_left: tuple[tuple[str, int], ...] = (),
    ) -> tuple[int | None, list[float]]:
        """:meth:`charge_place` and its box, kept with the other bases near that box.

        The answer depends on the bases of ``occupied`` other than the targets' only through those that may change a
        test at a point of the box (:meth:`bases_test`, the reading :meth:`charge_place` names): a second call with
        the same unit, Leading Model, rear, targets (placements, models left) and level, and the same such bases near
        the first call's box, has the same answer, and that box. So it is also shared with the other forked workers
        by content (placement ids are each process's own: a new placement goes as its Placement)."""
        targets = tuple(p for p in occupied if self.placements[p].unit in allowed_enemies)
        asked = (su.id, lead, rear, allowed_enemies, targets_left, targets)
        c = self.content

        def near(box: list[float]) -> tuple[int, ...]:
            test = self.bases_test(su, box)
            return tuple(p for p in occupied if p not in targets and test(p))

        def compute() -> tuple[list[float], int | None]:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            return box, self.charge_place(su, lead, rear, occupied, allowed_enemies, targets_left, box=box)

        box, pid = self.memo.boxed(
            "box:charge-place",
            asked,
            near,
            compute,
            lambda: (*asked[:5], tuple(c(p) for p in targets)),
            content=lambda pids: tuple(c(p) for p in pids),
            to_shared=lambda a: None if a is None else self.placements[a],
            from_shared=lambda kept: None if kept is None else self._intern(kept),
        )
        return pid, box  # type: ignore[no-any-return]

    def _charge_spots_memo(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        level: str | None,
        others: list[tuple[Coord, float, bool]],
        live: list[tuple[Coord, float]],
        back: Coord,
        seen: list[float] | None = None,
    ) -> list[Coord]:
        """:meth:`_charge_spots`, kept with the box of every spot it tested against the other bases.

        The other bases enter only the test of a spot, and a base farther than its radius + ``r`` + 1"
        from a spot cannot change that test. So a second call with the same unit, Leading Model, level
        and target models, whose other bases within that reach of the first call's box are the same,
        tests every spot the first one tested with the same answer, step by step, and ends the same.
        ``seen``: grown to hold the box of the entry used.
        """
        asked = (su.id, lead, r, level, tuple(live), back)  # coordinates only: the same question in every process

        def compute() -> tuple[list[float], list[Coord]]:
            box = [math.inf, math.inf, -math.inf, -math.inf]
            return box, self._charge_spots(su, lead, r, level, others, live, back, box)

        box, result = self.memo.boxed(
            "box:spots", asked, lambda box: _bases_near(others, box, r), compute, shared_key=lambda: asked
        )
        _join_box(seen, box)
        return result  # type: ignore[no-any-return]

    def _charge_spots(
        self,
        su: ScenarioUnit,
        lead: Coord,
        r: float,
        level: str | None,
        others: list[tuple[Coord, float, bool]],
        live: list[tuple[Coord, float]],
        back: Coord,
        box: list[float] | None = None,
    ) -> list[Coord]:
        """8.7.7 step 4: where the other models of a charging unit are set, the Leading Model at ``lead``.

        "Set remaining models In Coherency ... None may end Within the Engagement Range of a Unit not
        declared as a target. Placement priority: Priority A: Base-to-Base contact with declared
        target models (whenever physically possible). Priority B: Within the Engagement Range of
        targets (if Base-to-Base is impossible). Priority C: As close as possible to the Leading
        Model to maintain Coherency." Reading, one model at a time (the unit's order):

        * A: the free spot in Base-to-Base contact (bases 0.025" apart) with a live model of a target,
          nearest the Leading Model;
        * B: else a free spot with its base 0.25", 0.5", 0.75" or 0.99" from one (``B_GAPS``), nearest the
          Leading Model;
        * C: else a free spot in Base-to-Base contact with a model of the unit already set Within the
          Engagement Range (its Supporting Rank, 8.8.1 step 2), nearest the Leading Model; else the
          free spot of the hexagonal grid around the Leading Model (spacing: base + 0.1"; laid in the unit's frame,
          a hexagon of ``ceil(sqrt(models)) + 3`` rings) nearest it.

        Each step takes only spots Wholly Within 3" of the Leading Model (4.4: "set each remaining model one at a
        time, Wholly Within 3" of the Leading Model"; the unit's Horizontal Coherency, 4" for a Squadron). A model
        that finds none in those lists takes the free spot nearest the Leading Model on a square grid of
        :data:`FINE` (0.02") laid in the unit's frame Wholly Within it (the lists' spots are few: a gap between other
        bases and terrain can hold a model that none of them falls in); one that finds none there is removed as a
        casualty (4.4: "Any model that cannot find a legal position maintaining the Coherency Link is immediately
        removed as a casualty"), and so is every model after it. Before session 58 such a model was set by the same
        steps beyond the 3" (in 17% of the weighted players' Charges).

        A free spot is on the table (over the level's top), off the footprints a base there may not
        overlap, at least 0.05" from every other base (0.025" from a target model or the unit's
        own), not Within 1" of an enemy Ground unit that is not a target, and In Coherency as
        :meth:`place` reads it (centre at most a base spacing + 2" from a model already set).
        ``live``: centres and radii of the targets' live models; ``back``: the unit's rear (a unit vector): "nearest"
        ties and the grid are read in its frame (the module text). Where a model finds no spot, the spots of the
        models set before it (4.4: the others are removed as casualties, :meth:`charge_place`).
        ``box`` ([x0, y0, x1, y1]): grown to hold every spot tested against ``others``.

        On the playmat the same reading runs compiled (:func:`fastspots.spots
        <mathhammer.scenario.fastspots.spots>`: the same spots and box) where every model finds a spot in the lists,
        the reading below kept for the other Charges, a level and a terrain test too near its limit to say there.
        """
        touch = CONTACT / 2
        apart = CONTACT / 2 - 1e-3
        step = 2 * r + GAP
        OC = np.asarray([c for c, _, _ in others], dtype=float).reshape(-1, 2)
        OR = np.asarray([g for _, g, _ in others], dtype=float)
        OEN = np.asarray([e for _, _, e in others], dtype=bool)
        LC = np.asarray([c for c, _ in live], dtype=float).reshape(-1, 2)
        LR = np.asarray([g for _, g in live], dtype=float)
        terrain = self._playmat_pack() if level is None and SPOTS_COMPILED else None
        if terrain is not None:  # on the playmat: the same reading compiled, unless a terrain test is too near to say
            first = self._lateral_first(lead, back, su.player)
            limits = (touch, apart, GAP / 2, step + COHERENCY_SLACK + EPS, horizontal_coherency(su) + EPS)
            got = fastspots.spots(
                lead,
                back,
                first,
                su.models,
                r,
                (LC, LR),
                (OC, OR, OEN),
                _RING,
                B_GAPS,
                _hexagon_arrays(math.ceil(math.sqrt(su.models)) + 3, step),
                terrain,
                (*limits, ENGAGEMENT_RANGE + EPS),
                box if box is not None else [math.inf, math.inf, -math.inf, -math.inf],
            )
            if got != fastspots.UNSURE and len(got) == su.models:  # type: ignore[arg-type]
                return got  # type: ignore[return-value]
        # a live target model's own spot is in ``others`` too (every centre of the placement): it may be touched
        target_spot = np.zeros(len(others), dtype=bool)
        if LC.size and OC.size:
            target_spot = (np.hypot(*(OC[:, None, :] - LC[None, :, :]).transpose(2, 0, 1)) < 1e-9).any(axis=1)
        ring = _RING
        rings = math.ceil(math.sqrt(su.models)) + 3

        def around(cs: np.ndarray, rs: np.ndarray | float, gap: float) -> np.ndarray:
            if cs.size == 0:
                return np.zeros((0, 2))
            rr = np.broadcast_to(np.asarray(rs, dtype=float), (cs.shape[0],))
            return (cs[:, None, :] + (r + rr + gap)[:, None, None] * ring[None, :, :]).reshape(-1, 2)

        bx, by = back
        first = self._lateral_first(lead, back, su.player)

        def by_lead(pts: np.ndarray) -> np.ndarray:
            dx, dy = pts[:, 0] - lead[0], pts[:, 1] - lead[1]
            d = np.round(np.hypot(dx, dy), 6)
            # ties in the unit's own frame (as :meth:`_grid_order`): the side of the table's centre, then the rear
            side = np.round(-first * (dy * bx - dx * by), 6)  # -first * the lateral (``back`` turned counter-clockwise)
            ahead = np.round(-(dx * bx + dy * by), 6)
            return pts[np.lexsort((ahead, side, d))]

        def static_ok(pts: np.ndarray, sel: Any = slice(None), slack: float = 0.0) -> np.ndarray:
            # ``sel``: the other bases it may meet; ``slack``: every test eased by so much (a cell's centre, below)
            ok = np.ones(pts.shape[0], dtype=bool)
            if box is not None and not slack:
                _grow_box(box, pts)
            oc, orr = OC[sel], OR[sel]
            if oc.size:
                dx, dy = pts[:, 0, None] - oc[None, :, 0], pts[:, 1, None] - oc[None, :, 1]
                g = np.sqrt(dx * dx + dy * dy) - r - orr[None, :] + slack  # as ``((pts - OC) ** 2).sum(axis=2)``
                need = np.where(target_spot[sel], apart, GAP / 2)
                ok &= (g >= need[None, :] - 1e-12).all(axis=1)
                ok &= ~((g <= ENGAGEMENT_RANGE + EPS) & OEN[sel][None, :]).any(axis=1)
            idx = np.flatnonzero(ok)
            if idx.size:
                ok[idx] = self._terrain_ok(pts[idx], r - slack, level)
            return ok

        # the spot lists (the tiers', the grid's, the fine grid's), each made and ordered on its first read (most
        # charges find every spot in the first tier) with static_ok per spot, read lazily in order (-1: not read yet)
        lists: list[tuple[np.ndarray, np.ndarray] | None] = [None, None, None, None]

        def kept(k: int) -> tuple[np.ndarray, np.ndarray]:
            hit = lists[k]
            if hit is None and k == 3:  # the fine grid in the unit's frame: its spots static_ok admits, in order
                lat, fwd = fine_arrays(within_lead)
                pts = np.stack([lead[0] + lat * -by - fwd * bx, lead[1] + lat * bx - fwd * by], axis=1)
                far = within_lead + r + OR + ENGAGEMENT_RANGE + 2 * EPS  # no base farther meets a test of the grid
                sel = np.hypot(OC[:, 0] - lead[0], OC[:, 1] - lead[1]) <= far
                if box is not None:
                    _grow_box(box, pts)
                # a spot too near a model already set stays so (models are only added): left out before the tests
                cand = np.arange(pts.shape[0])
                if CELLS:
                    for mx, my in set_:
                        dx, dy = pts[cand, 0] - mx, pts[cand, 1] - my
                        cand = cand[(np.sqrt(dx * dx + dy * dy) - 2 * r) >= apart]
                if level is None and CELLS and cand.size:  # the cells first: a cell whose centre fails every
                    # test eased by cell_slack holds no spot that passes them (each a distance's threshold)
                    inv, clat, cfwd = fine_cells(within_lead)
                    cpts = np.stack([lead[0] + clat * -by - cfwd * bx, lead[1] + clat * bx - cfwd * by], axis=1)
                    cells = np.zeros(clat.size, dtype=bool)
                    cells[np.unique(inv[cand])] = True
                    cells[cells] = static_ok(cpts[cells], sel, cell_slack(r))
                    cand = cand[cells[inv[cand]]]
                ok = np.zeros(pts.shape[0], dtype=bool)
                for i in range(0, cand.size, 8192):
                    ok[cand[i : i + 8192]] = static_ok(pts[cand[i : i + 8192]], sel)
                pts = by_lead(pts[ok])
                hit = lists[k] = (pts, np.ones(pts.shape[0], dtype=np.int8))
            if hit is None:
                if k == 0:
                    pts = around(LC, LR, touch)
                elif k == 1:
                    pts = np.vstack([around(LC, LR, g) for g in B_GAPS])
                else:  # the grid laid in the unit's frame (lateral, ahead), a hexagon (the same on both sides), as
                    lat, fwd = _hexagon_arrays(rings, step)  # :meth:`_grid_order` lays it
                    pts = np.stack([lead[0] + lat * -by - fwd * bx, lead[1] + lat * bx - fwd * by], axis=1)
                pts = by_lead(pts)
                hit = lists[k] = (pts, np.full(pts.shape[0], -1, dtype=np.int8))
            return hit

        set_: list[Coord] = [lead]
        within_lead = horizontal_coherency(su)

        # per kept spot list (the tiers', the grid's: by its ``known`` array): the models set read so far, and per spot
        # whether it is apart from each of them, In Coherency with one, Wholly Within 3" of the Leading Model
        seen: dict[int, list[Any]] = {}

        def first_free(pts: np.ndarray, st: np.ndarray | None, wholly: bool) -> Coord | None:
            """The first spot of ``pts`` (in order) that is free and In Coherency with the models set
            (``wholly``: also Wholly Within 3" of the Leading Model); ``st``: what is known of
            ``static_ok`` there (updated)."""
            if pts.size == 0:
                return None
            # a kept list (``st`` given) is read on the models set since its last read; a new one on them all
            fresh: list[Any] = [0, True, False, None]
            read = seen.setdefault(id(st), fresh) if st is not None else fresh
            if st is None:
                st = np.full(pts.shape[0], -1, dtype=np.int8)
            xs, ys = pts[:, 0], pts[:, 1]
            for mx, my in set_[read[0] :]:
                dx, dy = xs - mx, ys - my
                d = np.sqrt(dx * dx + dy * dy)  # the sum of the two squares, as ``((pts - m) ** 2).sum(axis=1)``
                read[1] = read[1] & ((d - 2 * r) >= apart)
                read[2] = read[2] | (d <= step + COHERENCY_SLACK + EPS)
                if read[3] is None:  # set_[0] is the Leading Model
                    read[3] = d <= within_lead + EPS
            read[0] = len(set_)
            ok = read[1] & read[2]
            if wholly:
                ok = ok & read[3]
            idx = np.flatnonzero(ok & (st != 0))
            for at in range(0, idx.size, 32):
                chunk = idx[at : at + 32]
                todo = chunk[st[chunk] < 0]
                if todo.size:
                    st[todo] = static_ok(pts[todo])
                good = chunk[st[chunk] == 1]
                if good.size:
                    return (float(pts[good[0], 0]), float(pts[good[0], 1]))
            return None

        # Priority C's spots round the models set Within the Engagement Range: per model set, is it (read once); the
        # list kept per count of such models (they only grow), its static_ok known per spot carried to the next list
        fights: list[bool] = []
        fight_lists: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        fight_ok: dict[tuple[float, float], int] = {}

        def fighting_list() -> tuple[np.ndarray, np.ndarray] | None:
            for m in set_[len(fights) :]:
                near = LC.size and (np.hypot(LC[:, 0] - m[0], LC[:, 1] - m[1]) - r - LR <= ENGAGEMENT_RANGE + EPS).any()
                fights.append(bool(near))
            fighting = [m for m, f in zip(set_, fights, strict=True) if f]
            if not fighting:
                return None
            hit = fight_lists.get(len(fighting))
            if hit is None:
                if fight_lists:  # what the last list read of static_ok (it holds every earlier list's spots)
                    pts, st = fight_lists[max(fight_lists)]
                    for k in np.flatnonzero(st >= 0).tolist():
                        fight_ok[(float(pts[k, 0]), float(pts[k, 1]))] = int(st[k])
                c = by_lead(around(np.asarray(fighting, dtype=float), r, touch))
                known = [fight_ok.get((x, y), -1) for x, y in c.tolist()]
                hit = fight_lists[len(fighting)] = (c, np.asarray(known, dtype=np.int8))
            return hit

        def next_spot() -> Coord | None:  # Priority A, B, C beside the models fighting, C on the grid
            spot = first_free(*kept(0), True) or first_free(*kept(1), True)
            if spot is None:
                fight = fighting_list()
                if fight is not None:
                    spot = first_free(*fight, True)
            if spot is None:
                spot = first_free(*kept(2), True)
            return spot

        for _ in range(su.models - 1):
            # 4.4: Wholly Within the Horizontal Coherency: the lists, else the fine grid (the module text)
            spot = next_spot() or first_free(*kept(3), True)
            if spot is None:  # 4.4: removed as a casualty, and so are the models after it (the same tests find none)
                break
            set_.append(spot)
        return set_

    def charge_length(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float | None = None,
        fields: tuple[Coord, ...] = (),
        engaged_ok: bool = False,
    ) -> tuple[float, Coord | None]:
        """8.7.7: the distance the Leading Model must travel to Engage every declared target, and where it ends;
        ``fields``: the centres of the Force Field tokens the charging unit cannot move across (the caller reads
        its Size); ``engaged_ok``: the unit may start Engaged (Lightning Dash's second Charge; the caller has
        checked the unit is Unengaged otherwise).

        With ``reach`` (the longest Charge the caller will compare against), units too far away to
        touch any path of that length are left off the board: a path of length <= ``reach`` stays
        within ``reach`` of the Leading Model, so the answer is the same whenever it is <= ``reach``,
        and above ``reach`` whenever the true one is.
        """
        bound = 0.0
        if reach is not None:
            u = self.index[uid]
            # a lower bound: the Leading Model must come Within 1" of a model of every target (7.2.1)
            lead = self.placements[pos[u]].centres[0]
            r = self._radius(pos[u])
            bound = max(
                min(math.dist(lead, c) for c in self.placements[pos[self.index[t]]].centres[: alive[self.index[t]]])
                - r
                - self._radius(pos[self.index[t]])
                - ENGAGEMENT_RANGE
                for t in targets
            )
            if bound > reach + 1e-6:
                return bound, None  # out of reach whatever the path: no board needed
            keep = {u} | {self.index[t] for t in targets}
            keep |= {
                v
                for v, p in enumerate(pos)
                if p >= 0 and alive[v] > 0 and v not in keep and self.near(pos[u], p, reach + ENGAGEMENT_RANGE + 1.0)
            }
            pos, alive = self._sub(pos, alive, keep)
            # the other models of the charging unit are no obstacle to its Leading Model (charge._level)
            # and the caller has checked that the unit is Unengaged (or it may start so): the Leading Model alone
            # stands for it
            alive = (*alive[:u], 1, *alive[u + 1 :])
        key = (pos, alive, uid, targets, reach, fields, engaged_ok)
        hit = self._charges.get(key)
        if hit is None:
            if reach is not None:
                hit = self._charge_local(pos, alive, uid, targets, reach, fields, engaged_ok, bound)
            if hit is None:  # no reach, or no answer near the Leading Model: the whole board
                hit = self._charge_memo(pos, alive, uid, targets, reach, fields, engaged_ok)
            self._charges[key] = hit
        return hit

    def _charge_local(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float,
        fields: tuple[Coord, ...],
        engaged_ok: bool,
        bound: float,
    ) -> tuple[float, Coord | None] | None:
        """:func:`charge_distance` read on the models near the Leading Model: for each step ``rho`` of
        :data:`CHARGE_STEPS` below ``reach`` (from the lower bound ``bound`` up), the board holding the Leading Model
        and only the models of other units whose shapes may meet the box ``rho`` around it
        (:func:`~mathhammer.board.cspace.examined_near`), searched for paths up to ``rho``; the first answer of at
        most ``rho`` is the answer. None: none is (the caller reads the whole board).

        A path of length ``rho`` or less stays within ``rho`` of its start, and only models whose shapes meet that
        box can block it, end it (8.5.3: no overlap, 8.7.7 step 3: not Within 1" of an undeclared enemy) or be
        Engaged at its end: such a path is a shortest path on the whole board too. The box holds far fewer models
        than the whole board, so many board states share its answer: it is kept under the content of those models
        (unit, level, centres in order), shared with the other forked workers alike, and it is a function of that
        content alone (the same in every process and order). The search samples the goal's edge from its ring's
        start (:func:`~mathhammer.board.cspace._goal_samples`), so where a target model off the smaller board joins
        its goal disc to a near one's, the whole board samples another ring and its answer may differ by part of a
        sample spacing: the same approximation (:mod:`mathhammer.board.charge`), both legal ends. That is rare: the
        1,545 Charges of a 1,000,000-game run of ``standard_clash.toml`` and 9,000 random boards (3,295 answers
        within the step) gave the whole board's answer bit for bit; Hypothesis found one that does not (0.0147"
        nearer), and the tests hold the two equal or within half a spacing, the local end a legal one.
        """
        u = self.index[uid]
        start = self.placements[pos[u]]
        lead = start.centres[0]
        for rho in CHARGE_STEPS:
            if rho >= reach:
                return None
            if rho < bound:
                continue  # no path this short reaches every target
            near = self.models_near_lead(pos, alive, u, rho, targets)
            if near is None:
                continue  # a target with no model near: no path of this length
            asked = (
                "charge-local",
                uid,
                lead,
                start.level,
                rho,
                targets,
                fields,
                engaged_ok,
                tuple(
                    (self.uids[v], self.placements[p].level, tuple(self.placements[p].centres[i] for i in idx))
                    for v, p, idx in near
                ),
            )
            hit = self._local_charges.get(asked)
            if hit is None:
                compute = partial(self._charge_near, pos[u], uid, targets, rho, near, fields, engaged_ok)
                hit = self._local_charges[asked] = self.memo.ask(partial(tuple, asked), compute)
            if hit[0] <= rho:
                return hit
        return None

    def models_near_lead(
        self, pos: tuple[int, ...], alive: tuple[int, ...], u: int, rho: float, targets: tuple[str, ...] = ()
    ) -> list[tuple[int, int, tuple[int, ...]]] | None:
        """The live models of the units other than ``u`` whose shapes may meet the box ``rho`` around ``u``'s Leading
        Model (:func:`~mathhammer.board.cspace.examined_near`): (unit, placement, model indices) in unit order; None
        where a unit of ``targets`` has none."""
        pu = pos[u]
        kept = self.memo.table("near_lead")  # per (the Leading Model's placement, placement, rho): every model near
        out: list[tuple[int, int, tuple[int, ...]]] = []
        for v, p in enumerate(pos):
            if p < 0 or v == u:
                continue
            every = kept.get((pu, p, rho))
            if every is None:
                lead = self.placements[pu].centres[0]
                r, rad = self._radius(pu), self._radius(p)
                box = [lead[0] - rho, lead[1] - rho, lead[0] + rho, lead[1] + rho]
                every = kept[pu, p, rho] = tuple(
                    i for i, c in enumerate(self.placements[p].centres) if examined_near(box, c, rad, r)
                )
            k = alive[v]  # the live models: the first ``k``
            idx = every if not every or every[-1] < k else tuple(i for i in every if i < k)
            if idx:
                out.append((v, p, idx))
            elif self.uids[v] in targets:
                return None
        return out

    def _charge_near(
        self,
        pid: int,
        uid: str,
        targets: tuple[str, ...],
        rho: float,
        near: list[tuple[int, int, tuple[int, ...]]],
        fields: tuple[Coord, ...],
        engaged_ok: bool,
    ) -> tuple[float, Coord | None]:
        """:func:`charge_distance` up to ``rho`` on the board of the Leading Model of placement ``pid`` and the models
        ``near`` ((unit, placement, model indices)), in the order of :meth:`board_for`."""
        u = self.index[uid]
        chosen = {v: (p, idx) for v, p, idx in near}
        units = []
        for v, su_id in enumerate(self.uids):
            su = self.scn.units[su_id]
            if v == u:
                units.append(Unit(su.id, su.player, self._models_of(pid)[:1]))
            elif v in chosen:
                p, idx = chosen[v]
                models = self._models_of(p)
                units.append(Unit(su.id, su.player, tuple(models[i] for i in idx)))
        terrain = self.board.terrain + tuple(force_field_piece(c, i) for i, c in enumerate(fields))
        board = Board.trusted(self.board.width, self.board.depth, terrain, tuple(units))
        path = self._search(board, uid, targets, rho, engaged_ok)
        return path.length, path.end

    def _search(
        self,
        board: Board,
        uid: str,
        targets: tuple[str, ...],
        reach: float | None,
        engaged_ok: bool = False,
        examined: list[float] | None = None,
    ) -> ChargePath:
        """:func:`charge_distance` of ``uid``'s Leading Model on ``board``, with the unit's way of moving (Raptor
        Strain: ``mobility``): compiled where :data:`COMPILED` and it reads the board (one level, an Unengaged start
        touching no obstacle, an end Engaging every target), else the shapely search."""
        through, free_climb = self.mobility[uid]
        if COMPILED and not engaged_ok:
            from ...board.fastcharge import charge_search

            fast = charge_search(board, f"{uid}.1", list(targets), max_length=reach, through=through, examined=examined)
            if fast is not None:
                return fast
        return charge_distance(
            board,
            f"{uid}.1",
            list(targets),
            max_length=reach,
            examined=examined,
            engaged_ok=engaged_ok,
            through=through,
            free_climb=free_climb,
        )

    def _charge_memo(
        self,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        uid: str,
        targets: tuple[str, ...],
        reach: float | None,
        fields: tuple[Coord, ...] = (),
        engaged_ok: bool = False,
    ) -> tuple[float, Coord | None]:
        """:func:`charge_distance` on the board ``pos``/``alive`` (and Force Fields ``fields``), kept with the box it
        examined.

        The answer depends on the other units' models only through those whose shapes meet that box
        (``charge_distance``'s ``examined``): a second board with the same charger, targets and reach,
        and the same other units (placement and models left) with a model near the box, has the same
        answer. A model is near when its centre is within its radius + the Leading Model's + 1" (grown
        as the polygons are, and a margin) of the box.
        """
        u = self.index[uid]
        tset = {self.index[t] for t in targets}
        base = (
            uid,
            pos[u],
            alive[u],
            tuple((pos[t], alive[t]) for t in sorted(tset)),
            targets,
            reach,
            fields,
            engaged_ok,
        )
        rest = [
            (v, pos[v], alive[v]) for v in range(len(pos)) if pos[v] >= 0 and alive[v] > 0 and v != u and v not in tset
        ]
        r = self._radius(pos[u])
        c = self.content

        def named(units: frozenset[tuple[int, int, int]]) -> frozenset[tuple[int, int, int]]:
            return frozenset((v, c(p), k) for v, p, k in units)

        def compute() -> tuple[list[float], tuple[float, Coord | None]]:
            known = self._other_reach(base, near)  # the same Charge searched at another reach
            if known is not None:
                return known
            box = [0.0, 0.0, 0.0, 0.0]
            path = self._search(self.board_for(pos, alive, fields), uid, targets, reach, engaged_ok, box)
            return box, (path.length, path.end)

        def by_content() -> tuple[object, ...]:  # placement ids are each process's own
            return (uid, c(pos[u]), alive[u], tuple((c(pos[t]), alive[t]) for t in sorted(tset)), *base[4:])

        near = partial(self._units_near, rest, r=r)
        _, answer = self.memo.boxed("box:charge", base, near, compute, by_content, content=named)
        return answer  # type: ignore[no-any-return]

    def _other_reach(
        self, base: tuple[object, ...], near: Callable[[list[float]], object]
    ) -> tuple[list[float], tuple[float, Coord | None]] | None:
        """:meth:`_charge_memo`'s search (its examined box and answer) read from a search of the same question with
        another ``reach`` (``base[5]``), kept under ``box:charge`` with the other units near its box as here; None: none
        answers. Asked only where ``box:charge`` has no answer at this reach: the answer found is kept under it with
        the same box (the answer depends on the units near that box alone, as the other's).

        The plan walk asks a Charge with ``reach`` Speed + 6 + EPS, the game the same Charge with Speed + its highest
        roll: the same search, but for ``max_length``. :func:`charge_distance` with ``max_length`` ``R`` finds the
        path of the search without it whenever that is at most ``R`` long, and none otherwise: the points left out
        (farther than ``R`` in a straight line) and the moves not tried (estimate above the bound) are all above the
        answer's length, so they never come before it. So an answer of length at most both reaches is each one's,
        and no path within a reach is no path within a shorter one."""
        asked = (*base[:5], *base[6:])
        reaches: list[float | None] = self.memo.table("charge-reaches").setdefault(asked, [])
        reach = base[5]
        assert reach is None or isinstance(reach, float | int)
        mine = math.inf if reach is None else reach
        kept = self.memo.table("box:charge")
        for other in reaches:
            if other == reach:
                continue
            theirs = math.inf if other is None else other
            for box, relevant, answer in kept.get((*base[:5], other, *base[6:]), ()):
                length, end = answer
                if (length <= min(mine, theirs) if end is not None else theirs >= mine) and near(box) == relevant:
                    return box, answer
        if reach not in reaches:
            reaches.append(reach)
        return None

    def _units_near(
        self, units: list[tuple[int, int, int]], box: list[float], r: float
    ) -> frozenset[tuple[int, int, int]]:
        """The (unit, placement, models) of ``units`` with a live model that may change a Charge whose examined
        box is ``box`` (:func:`~mathhammer.board.cspace.examined_near`; ``r``: the Leading Model's radius)."""
        out = []
        for v, pid, k in units:
            rad = self._radius(pid)
            if any(examined_near(box, c, rad, r) for c in self.placements[pid].centres[:k]):
                out.append((v, pid, k))
        return frozenset(out)
