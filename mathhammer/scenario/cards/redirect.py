"""Hierarch's Stand (``redirect``, a Reaction): "When another Friendly Unit Within 8\\" is declared as the target of a
Ranged Attack and this Unit is a valid target, redirect the attack to this Unit". Read at the declaration of the
Ranged Attack (the ``redirect`` trigger); "a valid target" is read per Batch, at the attack (``sim_shoot``)."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import guarding, near_games, protected
from ..checkview import CheckView, ReactionCheck, too_far, trigger, within_now
from ..lookup import Found
from ..spec import Activation, Reaction, Scenario
from .registry import Card, register


class RedirectReaction(ReactionCheck):
    """The plan check of Hierarch's Stand and Lunge (10.4): the opponent's Ranged Attack at another Friendly Unit
    Within ``within`` of the reacting unit."""

    order = 60

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next((e for e in a.effects if e.kind in ("redirect", "lunge")), None)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        scn, say, a = chk.scn, chk.say, found.ability
        unit = protected(scn, act, rx, found)
        if own or act.action != "shoot":
            what = "an Enemy Unit's Ranged Attack at another Friendly Unit"
            trigger(say, act, at, a, what, "the opponent's `shoot`")
        elif unit is None or unit == rx.unit:
            mine = [t for t in act.targets if scn.units[t].player == rx.player and t != rx.unit]
            say(act, f"{at}: name the Friendly Unit {a.name!r} answers for: for = one of {', '.join(mine) or 'none'}")
        elif unit not in act.targets:
            say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
        elif e.within is not None and not within_now(scn, chk.world, chk.pos, rx.unit, unit, e.within):
            too_far(say, act, at, a, unit, rx.unit, e.within, "another Friendly Unit")


@register
class HierarchsStand(Card):
    kinds = ("redirect",)
    reaction_check = RedirectReaction

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def redirect(self, act: Activation, trials: np.ndarray) -> dict[int, tuple[int, np.ndarray]]:
        """The opponent's Reactions to ``act``'s Ranged Attack that take it on themselves: protected unit -> (the
        reacting unit, per game (length ``sim.T``): both on the table and Within ``within``). The protected unit is
        the plan's ``for``, else the activation's one planned target of the reacting player (:func:`guarding`)."""
        sim = self.sim
        out: dict[int, tuple[int, np.ndarray]] = {}
        if act.action != "shoot":
            return out
        for rx, found, e, p in guarding(sim, act, "redirect"):
            g, q = sim.uids.index(rx.unit), sim.uids.index(p)
            games = near_games(sim, trials, g, q, float(e.within or 0))
            sim.skip(
                act,
                trials.size - int(games[trials].sum()),
                f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {p} not Within {e.within:g}\" of it, or "
                "one of them not on the table (10.4)",
            )
            out[q] = (g, games)
        return out
