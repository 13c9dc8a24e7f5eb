"""Deploy by PLACE (``deploy_place``): Burrow Ambush, Rapid Reinforcements, Phase Prism (8.5.5; part 11 PLACE)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..abilities import far_from_enemies
from ..lookup import find, used_effect
from ..simview import SimView
from ..spec import Activation, Scenario
from .registry import Card, register


def _fit_games(sim: SimView, u: int, games: np.ndarray, test: Callable[[int, int], bool]) -> np.ndarray:
    """Per game of ``games`` (a bool array in their order): ``test`` (placement, models left) of unit ``u`` there,
    read once per placement."""
    ok = np.zeros(sim.T, dtype=bool)
    for (p, k), ts in sim.groups(games, [sim.row_pos(u), sim.row_alive(u)]):
        ok[ts] = p >= 0 and test(p, k)
    return ok[games]


@register
class DeployPlace(Card):
    kinds = ("deploy_place",)
    order = 20  # after a Deploy through a base

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def deploy(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray | None:
        """Deploy unit ``u`` by PLACE (the activation's ``deploy_place``) in ``games`` (in Reserves, Available Supply
        checked): which were set (None: the activation uses no ``deploy_place``).

        Burrow Ambush ("it may resolve the PLACE (18) effect from the controlling player's Entry Edge. No model may be
        set Within 10\" of any Enemy model"), Rapid Reinforcements ("PLACE (10) effect from another Friendly Unit. No
        model may be set Within 8\" ..."): the Leading Model at the plan's ``to``, every model Wholly Within ``value``
        of the Entry Edge or of the unit the plan selects (on the table), and none Within ``within`` of an Enemy model
        (:func:`far_from_enemies`); a game where that fails leaves the unit in Reserves (skip report). Phase Prism
        ("PLACE (0) effect from another Friendly Unit. That Friendly Unit is removed from the battlefield and returned
        to Reserves"; a ``to_reserves`` effect with ``select``): that unit goes back to Reserves (8.5.5, as
        :mod:`.cards.recall`) and the Leading Model is set where its Leading Model stood; where it cannot be set
        there, the other unit stays.
        """
        sim = self.sim
        e = used_effect(sim.scn, act, "deploy_place")
        if e is None:
            return None
        su = sim.units[u]
        world = sim.world
        rear = world.rear_of(su.player)
        found = next(f for n in act.use if (f := find(sim.scn, act.unit, n)) and e in f.ability.effects)
        name = found.ability.name
        assert act.to is not None
        if not e.select:
            got = games[sim.place(u, games, act.to, rear, act)]
            edge = world.edges[su.player]
            fit = _fit_games(sim, u, got, lambda p, k: world.wholly_within_from(p, k, e.value, edge=edge))
        else:
            picked = next(unit for n, unit in act.select if n.strip().lower() == name.lower())
            q = sim.uids.index(picked)
            there = games[(sim.pos[q, games] >= 0) & (sim.alive[q, games] > 0)]
            sim.skip(act, games.size - there.size, f"{name!r}: {picked!r} is not on the table (its PLACE starts there)")
            swap = any(x.kind == "to_reserves" and x.select for x in found.ability.effects)
            got_l: list[np.ndarray] = []
            fit_l: list[np.ndarray] = []
            for (pq, kq), ts in sim.groups(there, [sim.row_pos(q), sim.row_alive(q)]):
                if swap:  # the other unit leaves first: its Leading Model's spot is where Artanis is set
                    sim.ref_supply[q, ts] -= sim.supply(q, sim.alive[q, ts])
                    sim.set_pos(q, ts, -1)
                    set_ = ts[sim.place(u, ts, world.placements[pq].centres[0], rear, act)]
                    back = np.setdiff1d(ts, set_)
                    if back.size:  # no room for Artanis there: the other unit stays
                        sim.ref_supply[q, back] += sim.supply(q, sim.alive[q, back])
                        sim.set_pos(q, back, pq)
                    got_l.append(set_)
                    fit_l.append(np.ones(set_.size, dtype=bool))
                    continue
                set_ = ts[sim.place(u, ts, act.to, rear, act)]
                got_l.append(set_)

                def near_src(p: int, k: int, src: tuple[int, int] = (pq, kq)) -> bool:
                    return world.wholly_within_from(p, k, e.value, src=src)

                fit_l.append(_fit_games(sim, u, set_, near_src))
            got = np.concatenate(got_l) if got_l else games[:0]
            fit = np.concatenate(fit_l) if fit_l else np.zeros(0, dtype=bool)
        bad = got[~fit]
        if bad.size:
            sim.set_pos(u, bad, -1)
            where = "of the Entry Edge" if not e.select else "of the selected unit"
            sim.skip(act, bad.size, f'{name!r}: a model not Wholly Within {e.value}" {where} (PLACE), left in Reserves')
        got = got[fit]
        if e.within is not None and got.size:
            got = far_from_enemies(sim, u, act, got, float(e.within))
        return np.sort(got)
