"""Detection (part 11 HIDDEN): Faction Indicators that detect (``detector`` on an Active ability: Scanner Sweep,
"Set a Faction Indicator anywhere on the battlefield") and units with Detection (``detector`` on the unit: Omega
Worm): "While Enemy Units are Within 6\\" of this Faction Indicator, they lose HIDDEN Status". DETECTED is a bit of
``sim.used`` read again before each Ranged Attack at a unit that can be HIDDEN (``cards/hidden.py``)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ..abilities import mark_near
from ..checkview import CardCheck, CheckView, within_now
from ..lookup import DETECTED, TOKEN_RADIUS, plan_tokens, unit_abilities, used_effect
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


# ----------------------------------------------------------------------------------------------------------------------
# Detection's Faction Indicators: Scanner Sweep, Surveillance, Oversight Mode (gone at the Cleanup, 8.9.5).
class DetectorCheck(CardCheck):
    order = 70
    kinds = ("detector",)

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """8.9.5: the Faction Indicators of the last Round went at its Cleanup."""
        chk.seen_by = []

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        return used_effect(chk.scn, act, "detector") is not None

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        eye = used_effect(chk.scn, act, "detector")
        if act.token_at is not None and eye is not None:
            chk.seen_by.append((act.token_at, act.player, float(eye.within or 0)))
        return False

    @staticmethod
    def detected(chk: CheckView, unit: str) -> bool:
        """An enemy Faction Indicator of detection (``seen_by``: Scanner Sweep, Surveillance, Oversight Mode) or an
        enemy unit with Detection (``detector``) is Within its range of ``unit`` at this point of the plan."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        tu = scn.units[unit]
        return any(
            p != tu.player and world.point_gap(pos[unit], tu.models, xy, TOKEN_RADIUS) <= inches + EPS
            for xy, p, inches in chk.seen_by
        ) or any(
            su.player != tu.player and d in pos and within_now(scn, world, pos, d, unit, float(e.within or 0))
            for d, su in scn.units.items()
            for a in unit_abilities(su)
            for e in a.effects
            if e.kind == "detector"
        )


Detection.plan_check = DetectorCheck
