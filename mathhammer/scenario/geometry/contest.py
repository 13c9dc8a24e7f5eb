"""Mission Markers (8.9.1): which units contest a marker, and how near.

Mission Markers (8.9.1): a unit contests a marker only with a model "on the same elevation as the
marker". The markers are set on the battlefield (7.3.2) at the Deployment Card's points, read as on
the playmat (GROUND LEVEL), so a unit on a piece (MID or HIGH GROUND) never contests one.
"""

from __future__ import annotations

import math
from functools import cached_property

from ...board.los import line_of_sight
from ...board.model import EPS, MM_PER_INCH, Board, Model, Unit
from .core import (
    CONTEST_RANGE,
    MARKER_MM,
    BoardState,
)


class Contest(BoardState):
    """Mission Markers (8.9.1): which units contest a marker, and how near."""

    # ---------------------------------------------------------------- markers
    def contests(self, pid: int, alive: int, marker: int) -> bool:
        """8.9.1: at least one model Within 3" of the marker, with LoS to it (the marker Size 0), same elevation.

        8.9.1: "At least one model is Within 3", has LoS to the Marker, and is on the same elevation
        as the marker". The markers are on the playmat (the module text), so a unit standing on a
        piece (MID or HIGH GROUND) does not contest; a placement is always In Coherency (set around
        its Leading Model). Flying and BURROWED units are excluded by the caller.
        """
        return self.first_contesting(pid, marker) < alive

    def first_contesting(self, pid: int, marker: int) -> float:
        """The index of the first model of placement ``pid`` that contests ``marker`` (:meth:`contests`), or
        infinity: each model is read on its own, so the first ``k`` contest when this is below ``k``."""
        key = (pid, marker)
        hit = self._contest.get(key)
        if hit is None:
            hit = self._contest[key] = self.memo.ask(
                lambda: ("contest", self.content(pid), marker), lambda: self._first_contesting(pid, marker)
            )
        return hit

    def _first_contesting(self, pid: int, marker: int) -> float:
        """:meth:`first_contesting`, read."""
        hit = math.inf
        p = self.placements[pid]
        if p.level is not None:  # not on the same elevation as the marker (8.9.1)
            return hit
        su = self.scn.units[p.unit]
        mk = self._marker_models[marker]
        r, mk_r, mk_c = self._radius(pid), mk.radius, mk.centre  # Model.radius, Model.centre
        for i, c in enumerate(p.centres):
            centre = (float(c[0]), float(c[1]))
            apart = math.dist(centre, mk_c)
            if max(0.0, apart - r - mk_r) > CONTEST_RANGE + EPS:  # Model.distance, without building the Model
                continue
            if apart < r + mk_r:
                hit = i  # the model stands on the marker
                break
            m = Model(f"{su.id}.{i + 1}", c[0], c[1], su.base_mm, su.size)
            # a placed model (legal by construction) and the marker, apart: no board_problems pass
            b = Board.trusted(
                self.board.width,
                self.board.depth,
                self.board.terrain,
                (Unit(su.id, su.player, (m,)), Unit("marker", "markers", (mk,))),
            )
            if line_of_sight(b, m, mk).visible:
                hit = i
                break
        return hit

    @cached_property
    def _marker_models(self) -> dict[int, Model]:
        """Each Mission Marker (the Deployment Card's, the first of a number) as a model of Size 0 on its base, by
        number: made once, read by :meth:`_first_contesting` and :meth:`near_marker`."""
        kept: dict[int, Model] = {}
        for m in self.scn.deployment.markers:
            if m.number not in kept:
                kept[m.number] = Model(f"marker-{m.number}", m.x, m.y, MARKER_MM, 0)
        return kept

    def near_marker(self, pid: int, alive: int, marker: int, inches: float) -> bool:
        """Is a live model of placement ``pid`` (its first ``alive``) Within ``inches`` of Mission Marker ``marker``
        (base edge to the marker's edge, horizontally; no Line of Sight or elevation asked: Veteran of Tarsonis)?"""
        key = (pid, marker, inches)
        first = self._near_marker.get(key)
        if first is None:
            p = self.placements[pid]
            su = self.scn.units[p.unit]
            mk = self._marker_models[marker]
            first = next(
                (
                    i
                    for i, c in enumerate(p.centres)
                    if Model(f"{su.id}.{i + 1}", c[0], c[1], su.base_mm, su.size).distance(mk) <= inches + EPS
                ),
                len(p.centres),
            )
            self._near_marker[key] = first
        return first < alive

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
