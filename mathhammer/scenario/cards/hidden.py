"""HIDDEN (part 11): "A model with the HIDDEN keyword is not Visible to any model more than 4\\" away"; "A BURROWED Unit
has the HIDDEN Status". The units that can be HIDDEN (a ``unit_keyword`` HIDDEN or BURROWED among their abilities and
their player's cards') are named at each Ranged Attack through the ``hiders`` trigger, with the facts tag of each
(:meth:`Hidden.tag`) read per game from its ``sim.used`` bits; an enemy detects them (``cards/detection.py``, the
DETECTED bit) before the tags are read."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..abilities import bit_set
from ..lookup import DETECTED, card_abilities, unit_abilities
from ..simview import SimView
from ..spec import Scenario, ScenarioUnit
from .registry import Card, register

_WORDS = ("HIDDEN", "BURROWED")


def _can_hide(scn: Scenario, su: ScenarioUnit) -> bool:
    return any(
        e.kind == "unit_keyword" and e.keyword.upper() in _WORDS
        for a in unit_abilities(su) + [f.ability for f in card_abilities(scn, su.player)]
        for e in a.effects
    )


@register
class Hidden(Card):
    keyword = "HIDDEN"

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: the units that can be HIDDEN
        self.can_hide = {v for v, su in enumerate(sim.units) if _can_hide(sim.scn, su)}

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return any(_can_hide(scn, su) for su in scn.units.values())

    def hiders(self, units: list[int]) -> dict[int, Callable[[int], str | None]]:
        """Of ``units`` (a Ranged Attack's targets), those that can be HIDDEN, each with :meth:`tag`."""
        return {v: partial(self.tag, v) for v in units if v in self.can_hide}

    def tag(self, t: int, mask: int) -> str | None:
        """The facts tag of unit ``t`` with the ``sim.used`` bits ``mask``: "Burrowed", "Hidden", or None where it is
        neither or an enemy detects it (it loses HIDDEN; BURROWED's own Evade Roll stays, in its target profile)."""
        sim = self.sim
        if not mask or bit_set(sim, t, mask, DETECTED):
            return None
        words = {e.keyword.upper() for e in sim.effects(t, mask, "unit_keyword") if e.against in ("ranged", "all")}
        return "Burrowed" if "BURROWED" in words else "Hidden" if "HIDDEN" in words else None
