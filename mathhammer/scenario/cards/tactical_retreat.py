"""Tactical Retreat (``ignore_disengage_penalty``; an option of Orders, given to the Friendly Unit it selects: "That
Unit ignores the Disengage penalty"): for the rest of the Round the unit may Ranged Attack and Charge although it
Disengaged without Tactical Mass (8.5.4; the ``lifts_penalty`` trigger). Given to the selected unit as an ability of
its own (``abilities.FRIEND_KINDS``, :func:`~mathhammer.scenario.abilities.on_selected_weapons`)."""

from __future__ import annotations

from ..spec import Scenario
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
