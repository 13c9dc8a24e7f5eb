"""Structure (``structure``; Pylon, Omega Worm, Point Defense Drone): "This Unit cannot be Activated in any Phase and
cannot perform actions. Additionally, its Current Supply Value is treated as 0, and it can never Control or Contest
Mission Markers". The Supply and the Mission Markers are read from ``sim.structure`` (sim_state, mission.py); this
card refuses its activations."""

from __future__ import annotations

import numpy as np

from ..spec import Activation, Scenario
from .registry import Card, register


@register
class Structure(Card):
    kinds = ("structure",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def admit(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        if not self.sim.structure[u]:
            return trials
        self.sim.skip(act, trials.size, "a Structure cannot be Activated in any Phase")
        return trials[:0]
