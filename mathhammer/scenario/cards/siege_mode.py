"""SIEGE MODE (a Status given by a ``unit_keyword`` effect of an ability used this Round; Siege Tank, Liberator):
the unit makes no CLOSE RANKS move (8.8.1 step 1; the ``stays_put`` trigger). SIEGE MODE is in no card data yet, and
the Status is not tracked otherwise. A BURROWED unit does make the move, and loses the Status
(:meth:`~mathhammer.scenario.sim_combat.Combat.fight`)."""

from __future__ import annotations

from ..lookup import card_abilities, unit_abilities
from ..spec import Scenario
from .registry import Card, register

SIEGE_MODE = "SIEGE MODE"


@register
class SiegeMode(Card):
    keyword = SIEGE_MODE

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """An ability of a unit or of a player's cards gives the keyword."""
        abilities = [a for su in scn.units.values() for a in unit_abilities(su)]
        abilities += [f.ability for player in scn.armies for f in card_abilities(scn, player)]
        return any(
            e.kind == "unit_keyword" and str(e.keyword).upper() == SIEGE_MODE for a in abilities for e in a.effects
        )

    def stays_put(self, u: int, mask: int) -> bool:
        """Does an ability of ``mask`` (used this Round) give unit ``u`` SIEGE MODE?"""
        return any(
            e.kind == "unit_keyword" and str(e.keyword).upper() == SIEGE_MODE
            for e in self.sim.loadout(u, mask).effects()
        )
