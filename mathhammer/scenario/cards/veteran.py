"""Veteran of Tarsonis (``armour_near_marker``, a Marauder upgrade): "While this Unit is Within 3\\" of a Mission
Marker, its Armour characteristic is increased by 1", read per game when the unit is attacked (the ``armour``
trigger: one step better, never below 2+, as profiles/notes/terran.md reads "increased")."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Effect
from ..simview import SimView
from ..spec import Scenario
from .registry import Card, register


@register
class VeteranOfTarsonis(Card):
    kinds = ("armour_near_marker",)

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        self._effects: dict[int, list[Effect]] = {}  # per unit: its armour_near_marker effects, read once

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def armour(self, t: int, trials: np.ndarray) -> np.ndarray | None:
        """Per game (length ``sim.T``, set in ``trials``): the steps unit ``t``'s Armour is better (None: it has no
        such effect)."""
        sim = self.sim
        veteran = self._effects.get(t)
        if veteran is None:
            veteran = self._effects[t] = sim.effects(t, 0, "armour_near_marker")
        if not veteran:
            return None
        steps = np.zeros(sim.T, dtype=np.int64)
        for e in veteran:
            steps += e.value * near_marker(sim, t, trials, float(e.within or 0))
        return steps


def near_marker(sim: SimView, t: int, trials: np.ndarray, inches: float) -> np.ndarray:
    """Per game (length ``sim.T``, set in ``trials``): unit ``t`` on the table Within ``inches`` of a Mission Marker
    still on the battlefield (:meth:`World.near_marker`; a scored Supply Drop marker is removed)."""
    out = np.zeros(sim.T, dtype=np.int64)
    for (pid, k), ts in sim.groups(trials, [sim.row_pos(t), sim.row_alive(t)]):
        if pid < 0 or k <= 0:
            continue
        for m, number in enumerate(sim.marker_numbers):
            if sim.world.near_marker(pid, k, number, inches):
                out[ts] |= ~sim.removed_marker[m, ts]
    return out
