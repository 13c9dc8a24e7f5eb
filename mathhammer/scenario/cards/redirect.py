"""Hierarch's Stand (``redirect``, a Reaction): "When another Friendly Unit Within 8\\" is declared as the target of a
Ranged Attack and this Unit is a valid target, redirect the attack to this Unit". Read at the declaration of the
Ranged Attack (the ``redirect`` trigger); "a valid target" is read per Batch, at the attack (``sim_shoot``)."""

from __future__ import annotations

import numpy as np

from ..abilities import guarding, near_games
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class HierarchsStand(Card):
    kinds = ("redirect",)

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
