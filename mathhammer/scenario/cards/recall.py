"""Mass Recall (``to_reserves`` with a Faction Indicator at ``token_at``): "All Friendly Protoss Units Within 6\\" of
this Faction Indicator are returned to Reserves", before the action (8.5.5 UNITS RETURNED TO RESERVES). The active
unit's own return instead of its action (Strap In!, Strategic Recall) is read by the activation walk."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ..abilities import recalled_by
from ..lookup import plan_tokens, token_gaps
from ..simview import SimView
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class MassRecall(Card):
    kinds = ("to_reserves",)
    order = 70

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: the Faction Indicators the plan sets (centre, player, effect) and the activation setting each
        self.recalls, self.recall_of = plan_tokens(sim.scn, "to_reserves")

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return bool(plan_tokens(scn, "to_reserves")[0])

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """In the games ``fresh``: each Friendly unit of ``recalled_by`` with a live model Within ``within`` of the
        Faction Indicator (its base edge, 7.3) goes back to Reserves (``sim.to_reserves``), Engaged or not; the active
        unit itself may be among them."""
        k = self.recall_of.get(act)
        if k is None:
            return
        sim = self.sim
        xy, _, e = self.recalls[k]
        within = float(e.within or 0)
        for uid in recalled_by(sim.scn, act, e):
            v = sim.uids.index(uid)
            sim.to_reserves(v, fresh[token_gaps(sim, v, fresh, xy) <= within + EPS])
