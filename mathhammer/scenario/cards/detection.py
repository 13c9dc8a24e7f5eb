"""Detection (part 11 HIDDEN): Faction Indicators that detect (``detector`` on an Active ability: Scanner Sweep,
"Set a Faction Indicator anywhere on the battlefield") and units with Detection (``detector`` on the unit: Omega
Worm): "While Enemy Units are Within 6\\" of this Faction Indicator, they lose HIDDEN Status". DETECTED is a bit of
``sim.used`` read again before each Ranged Attack at a unit that can be HIDDEN (``cards/hidden.py``)."""

from __future__ import annotations

import numpy as np

from ..abilities import mark_near
from ..lookup import DETECTED, plan_tokens, unit_abilities
from ..simview import SimView
from ..spec import Activation, Scenario, ScenarioUnit
from .registry import Card, register


def _detectors(units: list[ScenarioUnit]) -> list[int]:
    return [u for u, su in enumerate(units) if any(e.kind == "detector" for a in unit_abilities(su) for e in a.effects)]


@register
class Detection(Card):
    kinds = ("detector",)
    order = 20

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: the Faction Indicators the plan sets (centre, player, effect) and the activation setting each
        self.indicators, self.indicator_of = plan_tokens(sim.scn, "detector")
        #: per indicator and game: on the battlefield (until the Cleanup)
        self.indicator = np.zeros((len(self.indicators), sim.T), dtype=bool)
        self.detector_units = _detectors(sim.units)

    @classmethod
    def present(cls, scn: Scenario) -> bool:  # HIDDEN is lost only where detection can be
        return bool(plan_tokens(scn, "detector")[0] or _detectors(list(scn.units.values())))

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        k = self.indicator_of.get(act)
        if k is not None:
            self.indicator[k, fresh] = True  # Scanner Sweep: "Set a Faction Indicator anywhere on the battlefield"

    def before_targeting(self, units: list[int], trials: np.ndarray) -> None:
        """Set the DETECTED bit of each unit of ``units`` (those that can be HIDDEN) in ``trials``: a live model
        Within ``within`` of an enemy Faction Indicator on the battlefield in that game (measured to its base edge,
        32 mm across) or of a live model of an enemy unit with Detection."""
        if trials.size == 0:
            return
        sim = self.sim
        for v in units:
            side = sim.units[v].player
            marks = [
                (self.indicator[k], xy, float(e.within or 0))
                for k, (xy, player, e) in enumerate(self.indicators)
                if player != side
            ]
            finders = [
                (d, float(e.within or 0))
                for d in self.detector_units
                if sim.units[d].player != side
                for e in sim.effects(d, 0, "detector")
            ]
            mark_near(sim, v, trials, DETECTED, marks, finders)

    def cleanup(self, live: np.ndarray) -> None:
        self.indicator[:, live] = False  # 8.9.5: Tokens and Markers go (a Faction Indicator among them)
