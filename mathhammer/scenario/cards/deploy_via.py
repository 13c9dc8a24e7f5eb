"""Another unit's base as an Entry Edge (``entry_base``; Warp Conduit, Omega Network: the plan's ``via`` on a
``deploy``), and Omega Network's return to Reserves from Base-to-Base contact (``recall_contact``; the plan's ``via``
on a ``move``, ``run`` or ``disengage``). The Deploys through a base this Round are ``sim.via_used`` ("Once per
Round"; emptied at Cleanup)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS, MM_PER_INCH
from ..abilities import base_entry, recall_base
from ..lookup import TOKEN_CONTACT, unit_effect
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class DeployVia(Card):
    kinds = ("entry_base", "recall_contact")
    order = 10  # before the other ways to Deploy

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return any(act.via is not None for act in scn.plan)

    def deploy(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray | None:
        """Deploy unit ``u`` through the base of the plan's ``via`` (an ``entry_base`` effect: Warp Conduit, Omega
        Network) in ``games``: which were set (None: no ``via``). Per game: that unit on the table, the Round's limit
        not reached ("Once per Round ... a Ground Unit"; "Friendly Units with a combined Supply cost of 2 or less"),
        the Leading Model at the plan's ``to`` at most Speed from its base (8.5.5, as from an Entry Edge), the others
        set towards it. Other games: skip report; the unit stays in Reserves."""
        sim = self.sim
        if act.via is None:
            return None
        assert act.via is not None and act.to is not None
        su = sim.units[u]
        q = sim.uids.index(act.via)
        e = unit_effect(sim.units[q], "entry_base")
        if e is None or (e.vs_tags and not set(e.vs_tags) & set(su.unit.card.combat_tags)):
            sim.skip(act, games.size, f"{act.via!r}'s base is no Entry Edge for this unit (its text)")
            return games[:0]
        there = games[(sim.pos[q, games] >= 0) & (sim.alive[q, games] > 0)]
        sim.skip(act, games.size - there.size, f"{act.via!r} is not on the battlefield: no Deploy by its base")
        used = sim.via_used.setdefault(q, np.zeros(sim.T, dtype=np.int64))
        need = sim.supply(u, sim.alive[u, there]) if e.value else np.ones(there.size, dtype=np.int64)
        ok = used[there] + need <= (e.value or 1)
        sim.skip(act, int((~ok).sum()), f"{act.via!r}'s Entry Edge has let its limit Deploy this Round (its text)")
        there = there[ok]
        r = su.base_mm / MM_PER_INCH / 2
        got_l: list[np.ndarray] = []
        for (pq, kq), ts in sim.groups(there, [sim.row_pos(q), sim.row_alive(q)]):
            d, back = base_entry(sim.world, pq, kq, act.to)
            if d + r > su.speed + EPS:  # 8.5.5: the Leading Model starts outside the base (its card: the Entry Edge)
                sim.skip(act, ts.size, f"the Leading Model ends more than Speed from {act.via!r}'s base (8.5.5)")
                continue
            got_l.append(ts[sim.place(u, ts, act.to, back or sim.world.rear_of(su.player), act)])
        got = np.sort(np.concatenate(got_l)) if got_l else games[:0]
        used[got] += sim.supply(u, sim.alive[u, got]) if e.value else 1
        return got

    def moved(self, u: int, act: Activation, games: np.ndarray) -> None:
        """Omega Network's return (the plan's ``via`` on a ``move``, ``run`` or ``disengage``): in the games
        ``games`` (where unit ``u`` was set with its Leading Model at ``act.to``), those where that model's base is in
        Base-to-Base contact with a live model of ``via`` (edges at most :data:`TOKEN_CONTACT` apart) return the unit
        to Reserves (8.5.5, ``sim.to_reserves``); the others are counted in the skip report."""
        sim = self.sim
        if act.via is None:
            return
        assert act.via is not None and act.to is not None
        q = sim.uids.index(act.via)
        if recall_base(sim.scn, act.via) is None:
            sim.skip(act, games.size, f"{act.via!r} returns no unit to Reserves (its abilities)")
            return
        r = sim.units[u].base_mm / MM_PER_INCH / 2
        back: list[np.ndarray] = []
        for (pq, kq), ts in sim.groups(games, [sim.row_pos(q), sim.row_alive(q)]):
            if pq >= 0 and kq > 0 and sim.world.point_gap(pq, kq, act.to, r) <= TOKEN_CONTACT + 1e-9:
                back.append(ts)
        there = np.sort(np.concatenate(back)) if back else games[:0]
        sim.skip(
            act, games.size - there.size, f"not in Base-to-Base contact with {act.via!r}: not returned to Reserves"
        )
        sim.to_reserves(u, there)
