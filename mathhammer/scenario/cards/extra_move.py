"""An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\\" Move action"), to the
plan's ``extra_to``, before the action; an Engaged unit cannot Move (8.5.2) and stays."""

from __future__ import annotations

import numpy as np

from ..lookup import use_bits
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class ExtraMove(Card):
    kinds = ("extra_move",)
    order = 80  # after a return to Reserves instead of the action (Strap In!), before PLACE

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def before_action(self, u: int, act: Activation, here: np.ndarray) -> bool:
        sim = self.sim
        if act.extra_to is None or not sim.effects(u, use_bits(sim, u, act.use), "extra_move"):
            return False
        engaged = sim.engaged_mask(here, u)
        sim.skip(act, int(engaged.sum()), "the unit is Engaged: no extra Move (8.5.2, 8.7.1)")
        movers = here[~engaged]
        old = sim.grass.start(sim.pos, u, movers)  # part 11 GRASS: a Move through or onto Grass removes it
        sim.move_to(u, movers, act.extra_to, act)
        sim.grass.end(sim.pos, sim.alive, u, old, act, sim.units[u].flying)
        return False
