"""PLACE (X) (``place``; part 11: "Remove it and set it Wholly Within X\\" of its starting position ... not moved
along a path"; Blink, Phase, Ready for Pickup?) to the plan's ``place_to``, before the action; then a Reaction that
answers it (``heal_after_place``; Veil of Shadows: "That Unit immediately resolves the HEAL (2) effect") in the games
where it was set."""

from __future__ import annotations

import numpy as np

from ..lookup import find, use_bits, used_effects
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class Place(Card):
    kinds = ("place", "heal_after_place")
    order = 90  # after an extra Move

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, ("place",))

    def before_action(self, u: int, act: Activation, here: np.ndarray) -> bool:
        sim = self.sim
        if act.place_to is None or not sim.effects(u, use_bits(sim, u, act.use), "place"):
            return False
        if any(a.text.lower().startswith("if unengaged") for a, _ in used_effects(sim.scn, act, "place")):
            engaged = sim.engaged_mask(here, u)  # Leaping Strike: "If Unengaged, resolve the PLACE (6) effect"
            sim.skip(act, int(engaged.sum()), "the unit is Engaged: no PLACE (its text: If Unengaged)")
            here = here[~engaged]
        placed = sim.move_to(u, here, act.place_to, act, moving=False)
        for rx in act.react:
            found = find(sim.scn, rx.unit, rx.use)
            for e in found.ability.effects if found and rx.unit == act.unit else []:
                if e.kind == "heal_after_place":  # "That Unit immediately resolves the HEAL (2) effect"
                    sim.mark[u, placed] = np.maximum(0, sim.mark[u, placed] - e.value)
        return False
