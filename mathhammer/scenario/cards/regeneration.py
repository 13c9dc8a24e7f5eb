"""Regeneration (``heal_when_burrowed``, a passive ability): "When this Unit becomes Activated, if it has the
Burrowed Status, resolve the HEAL (2) effect"."""

from __future__ import annotations

import numpy as np

from ..lookup import unit_abilities
from ..spec import Activation, Scenario
from .burrow import burrowed
from .registry import Card, register


@register
class Regeneration(Card):
    kinds = ("heal_when_burrowed",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        units = scn.units.values()
        return any(e.kind == "heal_when_burrowed" for su in units for a in unit_abilities(su) for e in a.effects)

    def begin_activation(self, u: int, act: Activation, here: np.ndarray) -> None:
        """In the games of ``here`` where unit ``u`` has the Burrowed Status as it becomes Activated (before the
        activation's own ``use``), HEAL (X): X the sum of its passive abilities' of this Phase or any Phase."""
        sim = self.sim
        value = sum(
            e.value
            for a in unit_abilities(sim.units[u])
            if a.type == "passive" and a.phase in (act.phase, "any")
            for e in a.effects
            if e.kind == "heal_when_burrowed"
        )
        if not value or here.size == 0:
            return
        ts = here[burrowed(sim, u, here)]
        sim.mark[u, ts] = np.maximum(0, sim.mark[u, ts] - value)
