"""Lifting 8.5.4's Disengage penalty (``ignore_disengage_penalty``; Tactical Retreat: the unit "ignores the Disengage
penalty", so it may perform a Ranged Attack or Charge in the Assault Phase after a Disengage without Tactical Mass).
Its plan check answers the walk's question (:meth:`~..checkview.CardCheck.lifts_penalty`); the simulation reads the
effect in the unit's loadout this Round (``sim_move``), so the card has no simulation hook and is never in play."""

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
        return False  # no simulation hook (see the module docstring)


class TacticalRetreatCheck(CardCheck):
    order = 170

    @staticmethod
    def lifts_penalty(chk: CheckView, act: Activation, effects: Sequence[Effect]) -> bool:
        return any(e.kind == "ignore_disengage_penalty" for e in effects)


TacticalRetreat.plan_check = TacticalRetreatCheck
