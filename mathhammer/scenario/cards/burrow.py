"""Burrow (part 11 BURROWED, a Status): the abilities that change it as they are used (Burrow: "it gains or loses the
Burrowed Status"; Lie in Wait, Rapid Burrowing: gain; Nasty Surprise: lose; :func:`~..abilities.burrow_change`).

The Status itself is a bit of ``sim.used`` that Cleanup keeps (:data:`~..abilities.BURROWED_STATUS`,
:func:`~..abilities.set_burrowed`, read by the actions: a Move, Run or Disengage ends it, unless Tunneling Claws'
``burrowed_moves``)."""

from __future__ import annotations

import numpy as np

from ..abilities import burrow_change, burrowed, set_burrowed
from ..lookup import card_abilities, find, unit_abilities
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class Burrow(Card):
    #: Nasty Surprise's ``lose_status``, Underdeveloped Claws' ``no_status``, Tunneling Claws' ``burrowed_moves`` (read
    #: by ``set_burrowed`` and the Move); Burrow and Lie in Wait change it by their text and ``unit_keyword`` BURROWED
    kinds = ("lose_status", "no_status", "burrowed_moves")
    order = 5  # after the effects on the unit itself, before the others (ON CREEP reads the Status)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """An ability of a unit or of a player's cards changes the Status (``sim.burrowers``)."""
        abilities = [a for su in scn.units.values() for a in unit_abilities(su)]
        abilities += [f.ability for player in scn.armies for f in card_abilities(scn, player)]
        return any(burrow_change(a) for a in abilities)

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """The activation's abilities that change the unit's Burrowed Status, in the games ``fresh`` (first use this
        Round). Gaining it asks the unit to be Unengaged (Burrow: "If this Unit is Unengaged"; Lie in Wait: "The
        active, Unengaged Ground Unit"): in the games where it is Engaged nothing changes (skip report)."""
        sim = self.sim
        for name in act.use:
            found = find(sim.scn, act.unit, name)
            how = burrow_change(found.ability) if found else ""
            if not how or fresh.size == 0:
                continue
            if how == "lose":
                set_burrowed(sim, u, fresh, False)
                continue
            engaged = sim.engaged_mask(fresh, u)
            sim.skip(act, int(engaged.sum()), f"{name!r}: the unit is Engaged (its text asks for an Unengaged Unit)")
            free = fresh[~engaged]
            if how == "gain":
                set_burrowed(sim, u, free, True)
            else:
                now = burrowed(sim, u, free)
                set_burrowed(sim, u, free[~now], True)
                set_burrowed(sim, u, free[now], False)
