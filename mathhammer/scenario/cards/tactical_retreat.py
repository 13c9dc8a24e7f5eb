"""Lifting 8.5.4's Disengage penalty (``ignore_disengage_penalty``; Tactical Retreat, an option of Orders given to the
Friendly Unit it selects: the unit "ignores the Disengage penalty", so it may perform a Ranged Attack or Charge in the
Assault Phase after a Disengage without Tactical Mass). The simulation asks the card through the ``lifts_penalty``
trigger (the effect among the abilities used on the unit this Round); its plan check answers the walk's question
(:meth:`~..checkview.CardCheck.lifts_penalty`). Given to the selected unit as an ability of its own
(``abilities.FRIEND_KINDS``, :func:`~mathhammer.scenario.abilities.on_selected_weapons`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...starcraft.schema import Effect
from ..checkview import CardCheck, CheckView
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class TacticalRetreat(Card):
    kinds = ("ignore_disengage_penalty",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def lifts_penalty(self, u: int, mask: int) -> bool:
        """Has an ability of ``mask`` (used on unit ``u`` this Round) the effect?"""
        return bool(self.sim.effects(u, mask, "ignore_disengage_penalty"))


class TacticalRetreatCheck(CardCheck):
    order = 170

    @staticmethod
    def lifts_penalty(chk: CheckView, act: Activation, effects: Sequence[Effect]) -> bool:
        return any(e.kind == "ignore_disengage_penalty" for e in effects)


TacticalRetreat.plan_check = TacticalRetreatCheck
