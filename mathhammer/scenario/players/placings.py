"""The Deploy entries of a menu that cannot be set, for many game states in one pass (issue 29 point 6).

A Deploy (8.5.5) sets the unit with its Leading Model at the entry's point and the other models behind it, towards the
player's Entry Edge (8.5.3 step 2: "set them In Coherency around the Leading Model"): the World's placement
(:meth:`~mathhammer.scenario.geometry.placement.Placing.place`) refuses it off the table, on terrain, over another
base or Within 1" of an Enemy Ground unit (8.5.3: "cannot end Within 1" (Engagement Range) of an Enemy Ground Unit"),
and the plan walk refuses a Deploy whose Leading Model's point is over a terrain top (it would have to name ``on``;
the menus name none) or that the World cannot set. Both read only the board and the other units' bases, so
:class:`DeployRefusals` answers every (state, Deploy entry) pair of a unit at once: the grid spots and the terrain under
them read once per entry and Grass mask (a game's state changes neither), the bases of each state passed to one
compiled grid walk (:func:`~mathhammer.scenario.fastplace.set_verdicts`). Where a gap is too near a threshold of that
walk to decide, nothing is said (the plan walk judges the entry). A test holds these refusals to the plan walk's and to
``World.place`` in the states of random games of every preset (tests/test_autoplay_placings.py).

Only the entries the plan walk sets in this way are answered: a Deploy using no ability (an ability may name another
edge, a base to deploy through or a PLACE effect: Warp In, Warp Conduit, Burrow Ambush), of a unit in Reserves. Where
the World can set the unit and its point, length and every spot a model may take pass the walk's other reads of such a
Deploy (:meth:`DeployRefusals.clear`), the entry is admitted without the walk too (:meth:`DeployRefusals.judged`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ..abilities import is_structure
from ..check.pathing import deploy_length
from ..checkview import zone_gap
from ..fastplace import set_verdicts
from ..geometry.core import GAP
from ..simview import SimView
from ..world import World
from .menu import UnitMenu

#: per (unit, Phase, Grass mask): the Deploy entries answered, their grid spots, the terrain verdict of each spot,
#: the spot count, the entries refused whatever the bases (a point over a terrain top), and the entries with a spot
#: Within the opponent's Zone of Influence (where the grid fails, the World sets the unit otherwise: ``Placing._chain``)
_Spots = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class DeployRefusals:
    """Which Deploy entries of a unit's menu the plan walk refuses for want of room, in many states at once (the module
    text)."""

    def __init__(self, view: SimView, menus: dict[str, UnitMenu], world_for: Callable[[int], World]) -> None:
        self.view = view
        self.menus = menus
        self.world_for = world_for  # Grass mask -> World (``grass.Worlds.world_for``)
        self._spots: dict[tuple[int, str, int], _Spots] = {}
        self._clear: dict[tuple[int, str, int], np.ndarray] = {}

    def entries(self, u: int, phase: str) -> np.ndarray:
        """The indices of unit ``u``'s ``phase`` entries answered here: Deploys using no ability."""
        uid = self.view.uids[u]
        return np.asarray(
            [i for i, e in enumerate(self.menus[uid][phase]) if e.action == "deploy" and not e.use and e.to],
            dtype=np.int64,
        )

    def _grid(self, u: int, phase: str, gone: int) -> _Spots:
        """The answered entries of unit ``u`` and, per entry, the spots ``_place_grid`` looks at in order (the Leading
        Model's point first), whether a base of the unit there is on the table, clear of terrain and (but the Leading
        Model's) out of the opponent's Zone of Influence (8.3.3: ``World.place`` with ``arriving``), how many spots,
        whether the point is over a terrain top (the walk's level check refuses it), and whether a spot is Within the
        zone (then a refusal of the grid is left to the walk: the World chains the models, ``Placing._chain``)."""
        key = (u, phase, gone)
        hit = self._spots.get(key)
        if hit is not None:
            return hit
        view = self.view
        uid = view.uids[u]
        su = view.scn.units[uid]
        world = self.world_for(gone)
        idx = self.entries(u, phase)
        entries = self.menus[uid][phase]
        r = su.base_mm / MM_PER_INCH / 2
        step = 2 * r + GAP
        rear = world.rear_of(su.player)
        norm = math.hypot(*rear) or 1.0
        back = (rear[0] / norm, rear[1] / norm)
        zone = world.arrival_zone(su.player)
        lists: list[list[tuple[float, float]]] = []
        over = np.zeros(idx.size, dtype=bool)
        for k, i in enumerate(idx.tolist()):
            lead = entries[i].to
            assert lead is not None
            over[k] = world.level_at(lead) is not None
            offsets = world._grid_order(su.models, step, back, lead, su.player)
            lists.append([lead, *((lead[0] + dx, lead[1] + dy) for dx, dy in offsets)])
        most = max((len(s) for s in lists), default=1)
        spots = np.zeros((idx.size, most, 2), dtype=float)
        terr = np.zeros((idx.size, most), dtype=bool)
        counts = np.zeros(idx.size, dtype=np.int64)
        zoned = np.zeros(idx.size, dtype=bool)
        for k, pts in enumerate(lists):
            counts[k] = len(pts)
            spots[k, : len(pts)] = pts
            # 8.3.3: an arriving unit's models are never set Within the opponent's Zone of Influence (``World.place``
            # with ``arriving``: a spot there is blocked like terrain; the Leading Model's point is read by ``clear``)
            out = [j > 0 and world.zone_gap(su, zone, (c,)) <= 0 for j, c in enumerate(pts)]
            zoned[k] = any(out)
            terr[k, : len(pts)] = [
                not o and not world._blocked(c, r, [], True, None) for o, c in zip(out, pts, strict=True)
            ]
        hit = self._spots[key] = (idx, spots, terr, counts, over, zoned)
        return hit

    def judged(
        self, u: int, phase: str, states: Sequence[tuple[int, ...]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the answered entries' indices, per state and answered entry: does the plan walk refuse it for want of
        room; and does the plan walk admit it: the World can set the unit there, and :meth:`clear` holds).
        ``states``: :meth:`Legality.states <mathhammer.scenario.players.legal.Legality.states>`' rows (the
        placements, the models left, the Grass mask), all with unit ``u`` off the table and the same Grass mask. The
        walk's other reads of such a Deploy (``_deploy``, no ability used: the cards' hooks read ``use``; 8.3.2 is
        read per game, not here) are the point's level, the Deploy's length and the Zone of Influence of its Leading
        Model's point, all in :meth:`clear` (the other models' spots Within the zone are blocked, :meth:`_grid`)."""
        idx, out, over = self._set(u, phase, states)
        gone = int(states[0][2 * self.view.U])
        return idx, (out == 1) | over[None, :], (out == 0) & self.clear(u, phase, gone)[None, :]

    def clear(self, u: int, phase: str, gone: int) -> np.ndarray:
        """Per answered entry of unit ``u`` (:meth:`entries`) with Grass mask ``gone``: a Deploy the walk admits
        wherever the World can set it, whatever the bases: its point not over a terrain top (8.5.3), its length from
        the Entry Edge (``deploy_length``, round the terrain) at most Speed (8.5.5), and its Leading Model's point out
        of the opponent's Zone of Influence (8.3.3, ``zone_gap``: the other models are set out of it, the grid's spots
        Within it blocked in :meth:`_grid`). A unit that is a Structure or a Summoned Unit has none (the walk's Summon
        hooks)."""
        hit = self._clear.get((u, phase, gone))
        if hit is None:
            hit = self._clear[(u, phase, gone)] = self._clear_of(u, phase, gone)
        return hit

    def _clear_of(self, u: int, phase: str, gone: int) -> np.ndarray:
        """:meth:`clear`, read afresh."""
        su = self.view.scn.units[self.view.uids[u]]
        idx, _, _, _, over, _ = self._grid(u, phase, gone)
        hit = np.zeros(idx.size, dtype=bool)
        if not su.summoned and not is_structure(su):
            uid, world = su.id, self.world_for(gone)
            menu = self.menus[uid]
            edge = world.edges[su.player]
            for k, i in enumerate(idx.tolist()):
                act = menu[phase][i].activation(uid, su.player, 1, phase)
                hit[k] = (
                    not over[k]
                    and deploy_length(world, act, edge) <= su.speed + EPS
                    and act.to is not None
                    and zone_gap(world, su, su.player, (act.to,)) > 0
                )
        return hit

    def _set(self, u: int, phase: str, states: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The answered entries' indices, per state and entry the compiled walk's answer (1 cannot be set, 0 can, -1
        undecided), and per entry: is the point over a terrain top."""
        view = self.view
        n = view.U
        gone = int(states[0][2 * n])
        idx, spots, terr, counts, over, zoned = self._grid(u, phase, gone)
        if idx.size == 0:
            return idx, np.zeros((len(states), 0), dtype=np.int8), over
        scn, world = view.scn, view.world
        su = scn.units[view.uids[u]]
        # per other unit: its base radius and whether it is an enemy the unit may not come Within 1" of
        units = [scn.units[uid] for uid in view.uids]
        rad = np.asarray([o.base_mm / MM_PER_INCH / 2 for o in units])
        foe = np.asarray([o.player != su.player and not o.flying and not su.flying for o in units], dtype=bool)
        st = np.asarray(states, dtype=np.int64).reshape(len(states), -1)
        on = (st[:, :n] >= 0) & (st[:, n : 2 * n] > 0)
        on[:, u] = False
        at, v = np.nonzero(on)  # per state, the units in World order: every centre of each, state after state
        cs, k = world.centres_many(st[at, v])
        starts = np.zeros(len(states) + 1, dtype=np.int64)
        np.cumsum(np.bincount(at, weights=k, minlength=len(states)).astype(np.int64), out=starts[1:])
        out = set_verdicts(
            spots,
            terr,
            counts,
            su.models,
            su.base_mm / MM_PER_INCH / 2,
            2 * (su.base_mm / MM_PER_INCH / 2) + GAP,
            cs,
            np.repeat(rad[v], k),
            np.repeat(foe[v], k),
            starts,
            GAP / 2,
            ENGAGEMENT_RANGE + EPS,
        )
        # 8.3.3: where the grid out of the zone fails, the World chains the models (``Placing._chain``): the walk's
        out[(out == 1) & zoned[None, :]] = -1
        return idx, out, over


__all__ = ["DeployRefusals"]
