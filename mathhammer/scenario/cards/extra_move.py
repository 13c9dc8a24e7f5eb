"""An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\\" Move action"), to the
plan's ``extra_to``, before the action; an Engaged unit cannot Move (8.5.2) and stays."""

from __future__ import annotations

import math

import numpy as np

from ...board.model import EPS
from ..checkview import CardCheck, CheckView
from ..lookup import use_bits, used_effects
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


# ----------------------------------------------------------------------------------------------------------------------
# An extra Move before the action: Go! Go! Go!, Leg Enhancements (``extra_to``).
class ExtraMoveCheck(CardCheck):
    order = 90
    kinds = ("extra_move",)

    @staticmethod
    def after_reactions(chk: CheckView, act: Activation, engaged: bool) -> bool:
        """An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\" Move action") to the
        plan's ``extra_to``, before the action: the unit on the table and Unengaged (8.5.2), at most the ability's
        inches on its level, and a legal end (8.5.3). True where the unit moved (``pos`` updated)."""
        scn, world, say, warn, pos = chk.scn, chk.world, chk.say, chk.warn, chk.pos
        inches = [e.value for _, e in used_effects(scn, act, "extra_move")]
        if act.extra_to is None:
            if inches and act.action != "deploy":
                warn(act, "use: an extra Move with no extra_to = [x, y] (where its Leading Model ends): the unit stays")
            return False
        if not inches:
            say(act, "extra_to: no ability of use makes an extra Move (Go! Go! Go!, Leg Enhancements)")
            return False
        if act.unit not in pos:
            return False  # a deploy or a unit not on the table: named by the other checks
        if engaged:
            say(act, "extra_to: the unit is Engaged: it cannot Move (8.5.2, 8.7.1)")
            return False
        here = world.placements[pos[act.unit]]
        d = math.dist(here.centres[0], act.extra_to)
        if d > max(inches) + EPS:
            say(act, f'extra_to: moves {d:.1f}"; the extra Move is {max(inches)}" (its text)')
        return chk.set_unit(act, act.extra_to, here.level, "extra_to")


ExtraMove.plan_check = ExtraMoveCheck
