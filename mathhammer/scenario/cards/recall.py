"""Returned to Reserves (``to_reserves``; 8.5.5 UNITS RETURNED TO RESERVES): Mass Recall (with a Faction Indicator at
``token_at``): "All Friendly Protoss Units Within 6\\" of this Faction Indicator are returned to Reserves", before the
action; and the active unit's own return instead of its action (Strap In!, Strategic Recall: a ``to_reserves`` effect
with neither ``within`` nor ``select``, :func:`recalls_self`)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ..abilities import recalled_by, recalls_self
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
        return bool(plan_tokens(scn, "to_reserves")[0]) or any(recalls_self(scn, act) for act in scn.plan if act.use)

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

    def before_action(self, u: int, act: Activation, here: np.ndarray) -> bool:
        """Return unit ``u`` to Reserves in the games ``here`` where it is Unengaged (Strap In!, Strategic Recall: "The
        active, Unengaged Ground Unit is returned to Reserves instead of performing an action"): the activation ends.

        8.5.5 UNITS RETURNED TO RESERVES: "The Unit is not Destroyed; it has left the battlefield ... the Current
        Supply used by the Unit is released" (Available Supply is read from the units on the table), its Damage
        Marker and its "until the End of the Round" effects stay, and "If the Unit was Activated during the current
        Phase ... it will remain Activated". The Supply it takes off the table is not Supply destroyed this Round
        (its reference drops by as much; a later Deploy adds it back). It loses the Burrowed Status: a Deploy moves
        the unit by the Move rules (8.5.3), which end it (part 11 BURROWED): ``sim.to_reserves``."""
        if not act.use or not recalls_self(self.sim.scn, act):
            return False
        sim = self.sim
        if sim.units[u].flying:
            sim.skip(act, here.size, "the unit is Flying: the ability returns a Ground Unit to Reserves")
            return True
        engaged = sim.engaged_mask(here, u)
        sim.skip(act, int(engaged.sum()), "the unit is Engaged: not returned to Reserves (its text: Unengaged)")
        sim.to_reserves(u, here[~engaged])
        return True
