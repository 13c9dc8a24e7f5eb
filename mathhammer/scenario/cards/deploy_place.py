"""Deploy by PLACE (``deploy_place``): Burrow Ambush, Rapid Reinforcements, Phase Prism (8.5.5; part 11 PLACE)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import far_from_enemies
from ..checkview import CardCheck, CheckView
from ..lookup import find, used_effect, used_effects
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
            got = games[sim.place(u, games, act.to, rear, act, arriving=True)]
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
                    set_ = ts[sim.place(u, ts, world.placements[pq].centres[0], rear, act, arriving=True)]
                    back = np.setdiff1d(ts, set_)
                    if back.size:  # no room for Artanis there: the other unit stays
                        sim.ref_supply[q, back] += sim.supply(q, sim.alive[q, back])
                        sim.set_pos(q, back, pq)
                    got_l.append(set_)
                    fit_l.append(np.ones(set_.size, dtype=bool))
                    continue
                set_ = ts[sim.place(u, ts, act.to, rear, act, arriving=True)]
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


# ----------------------------------------------------------------------------------------------------------------------
# A Deploy by PLACE (part 11 PLACE, 8.5.5): Burrow Ambush, Rapid Reinforcements, Phase Prism (``deploy_place``).
class DeployPlaceCheck(CardCheck):
    order = 150
    passive_on_deploy = True  # Burrow Ambush, Rapid Reinforcements: Passive, resolved as the unit Deploys

    @staticmethod
    def keep_away(chk: CheckView, act: Activation) -> float | None:
        placer = used_effect(chk.scn, act, "deploy_place")
        return None if placer is None or placer.within is None else float(placer.within)

    @staticmethod
    def _source(chk: CheckView, act: Activation, placer: Effect) -> tuple[str, str | None]:
        """The name of the ability of ``placer`` (a ``deploy_place`` effect) and the unit it PLACEs from (``select``),
        None for the Entry Edge or a selection the select check names."""
        name = next(a.name for a, e in used_effects(chk.scn, act, "deploy_place") if e is placer)
        picked = next((u for n, u in act.select if n.strip().lower() == name.lower()), None) if placer.select else None
        return name, picked

    @staticmethod
    def deploy_start(chk: CheckView, act: Activation) -> bool:
        """A Deploy by PLACE, before the unit is set: Phase Prism ("PLACE (0) effect from another Friendly Unit. That
        Friendly Unit is removed from the battlefield and returned to Reserves") sets the Leading Model where the
        selected unit's Leading Model stands (``to`` must be that spot), and that unit leaves the table (8.5.5)."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        placer = used_effect(scn, act, "deploy_place")
        if placer is None:
            return False
        name, picked = DeployPlaceCheck._source(chk, act, placer)
        found = find(scn, act.unit, name)
        swap = found is not None and any(e.kind == "to_reserves" and e.select for e in found.ability.effects)
        if not swap or picked is None or picked not in pos:
            return True  # (the select check names a unit not on the table)
        assert act.to is not None
        lead = world.placements[pos[picked]].centres[0]
        if math.dist(lead, act.to) > 0.05:
            chk.say(
                act,
                f"to: {name!r} (PLACE (0)) sets {act.unit!r} where {picked!r}'s Leading Model stands at this point of "
                f"the plan: to = [{lead[0]:g}, {lead[1]:g}]",
            )
        del pos[picked]  # returned to Reserves: it may Deploy again
        return True

    @staticmethod
    def deploy_end(chk: CheckView, act: Activation, pid: int) -> None:
        """A Deploy by PLACE (X), once set: every model Wholly Within X of the Entry Edge (Burrow Ambush: "PLACE (18)
        effect from the controlling player's Entry Edge") or of the selected Friendly Unit (Rapid Reinforcements)."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        placer = used_effect(scn, act, "deploy_place")
        if placer is None:
            return
        name, picked = DeployPlaceCheck._source(chk, act, placer)
        su = scn.units[act.unit]
        if not placer.select:
            edge = world.edges[su.player]
            if not world.wholly_within_from(pid, su.models, placer.value, edge=edge):
                say(
                    act,
                    f'a model ends more than {placer.value}" from the {edge} Entry Edge ({name!r}: PLACE '
                    f"({placer.value}) "
                    "sets it Wholly Within)",
                )
        elif placer.value and picked is not None and picked in pos:
            src = (pos[picked], scn.units[picked].models)
            if not world.wholly_within_from(pid, su.models, placer.value, src=src):
                say(
                    act,
                    f'a model ends more than {placer.value}" from {picked!r} ({name!r}: PLACE ({placer.value}) sets it '
                    "Wholly Within)",
                )

    @staticmethod
    def deploys(a: Ability) -> bool:
        return any(e.kind == "deploy_place" for e in a.effects)


DeployPlace.plan_check = DeployPlaceCheck
