"""Effects of an Active ability on the unit using it, as it is used (the games of its first use this Round):
NON-LETHAL DAMAGE on itself (``non_lethal_self``, part 11), HEAL (X) on itself (``heal``, part 11; Field Repair)
and Terran Tenacity's First Player Marker (``first_player``: "Immediately claim the First Player Marker. No other
player may claim the First Player Marker" this Phase: ``sim.claimed``, read where a player Passes)."""

from __future__ import annotations

import numpy as np

from ..checkview import CardCheck
from ..lookup import find, use_bits
from ..spec import PLAYERS, Activation, Scenario
from .registry import Card, register


@register
class OnItself(Card):
    kinds = ("non_lethal_self", "heal", "first_player")
    order = 0  # before every other effect of the abilities used

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        sim = self.sim
        bits = use_bits(sim, u, act.use)
        for e in sim.effects(u, bits, "non_lethal_self"):
            sim.mark[u, fresh] += e.value  # NON-LETHAL DAMAGE on the unit itself (part 11)
        for e in sim.effects(u, bits, "heal"):  # HEAL (X) on the unit itself (part 11; Field Repair)
            sim.mark[u, fresh] = np.maximum(0, sim.mark[u, fresh] - e.value)
        if sim.effects(u, bits, "first_player"):  # Terran Tenacity: "Immediately claim the First Player Marker"
            sim.first[fresh] = sim.claimed[fresh] = PLAYERS.index(sim.units[u].player)


class OnItselfCheck(CardCheck):
    """The walk's turn order: Terran Tenacity claims the First Player Marker for the rest of the Phase."""

    @staticmethod
    def claims_first(scn: Scenario, act: Activation) -> bool:
        return any(
            (f := find(scn, act.unit, name)) is not None and any(e.kind == "first_player" for e in f.ability.effects)
            for name in act.use
        )


OnItself.plan_check = OnItselfCheck
