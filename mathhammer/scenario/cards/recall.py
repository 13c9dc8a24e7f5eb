"""Returned to Reserves (``to_reserves``; 8.5.5 UNITS RETURNED TO RESERVES): Mass Recall (with a Faction Indicator at
``token_at``): "All Friendly Protoss Units Within 6\\" of this Faction Indicator are returned to Reserves", before the
action; and the active unit's own return instead of its action (Strap In!, Strategic Recall: a ``to_reserves`` effect
with neither ``within`` nor ``select``, :func:`recalls_self`)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ...starcraft.schema import Effect
from ..checkview import CardCheck, CheckView
from ..lookup import TOKEN_RADIUS, find, plan_tokens, token_gaps, used_effects
from ..simview import SimView
from ..spec import Activation, Scenario
from .registry import Card, register


def recalls_self(scn: Scenario, act: Activation) -> bool:
    """Does an ability of ``act``'s ``use`` return the active unit itself to Reserves instead of its action (Strap In!,
    Strategic Recall: a ``to_reserves`` effect with neither ``within`` nor ``select``)?"""
    return any(e.within is None and not e.select for _, e in used_effects(scn, act, "to_reserves"))


def recalled_by(scn: Scenario, act: Activation, e: Effect) -> list[str]:
    """The units Mass Recall may return ("All Friendly Protoss Units Within 6\" of this Faction Indicator"): the
    active player's units of the faction its card names (its ``tags``), any of them without a card."""
    found = next((f for n in act.use if (f := find(scn, act.unit, n)) and e in f.ability.effects), None)
    tags = set(scn.roster.card(found.card).tags) if found and found.card else set()
    return [
        uid
        for uid, su in scn.units.items()
        if su.player == act.player and (not tags or tags & set(su.unit.card.faction_tags))
    ]


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


# ----------------------------------------------------------------------------------------------------------------------
# Returned to Reserves (8.5.5): Mass Recall (a Faction Indicator's recall), Strap In!, Strategic Recall.
class ToReservesCheck(CardCheck):
    order = 60
    kinds = ("to_reserves",)

    @staticmethod
    def _recall(chk: CheckView, act: Activation) -> Effect | None:
        """Mass Recall's effect: a ``to_reserves`` with a ``within``."""
        return next((x for _, x in used_effects(chk.scn, act, "to_reserves") if x.within is not None), None)

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        return ToReservesCheck._recall(chk, act) is not None

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """Mass Recall ("Set a Faction Indicator anywhere on the battlefield. All Friendly Protoss Units Within 6\" of
        this Faction Indicator are removed from the battlefield and returned to Reserves"), before the action: the
        units of :func:`recalled_by` on the table with a model Within 6" of ``token_at`` (full strength) leave ``pos``
        (8.5.5). True where the active unit is among them: its action is then an error unless a ``hold``."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        e = ToReservesCheck._recall(chk, act)
        if e is None or act.token_at is None:
            return False
        gone = [
            uid
            for uid in recalled_by(scn, act, e)
            if uid in pos
            and world.point_gap(pos[uid], scn.units[uid].models, act.token_at, TOKEN_RADIUS)
            <= float(e.within or 0) + EPS
        ]
        for uid in gone:
            del pos[uid]
        if act.unit in gone and act.action != "hold":
            chk.say(
                act, f"use: Mass Recall returns {act.unit!r} itself to Reserves before its {act.action}: plan a `hold`"
            )
        if act.unit in gone:
            chk.down.discard(act.unit)
        return act.unit in gone

    @staticmethod
    def instead_of_action(chk: CheckView, act: Activation, on: bool, engaged: bool) -> bool:
        """An ability that returns the unit to Reserves (Strap In!, Strategic Recall: "The active, Unengaged Ground
        Unit is returned to Reserves instead of performing an action"): planned on a ``hold``, for a Ground unit on the
        table and Unengaged at this point of the plan; it then goes back (8.5.5 UNITS RETURNED TO RESERVES: it may
        Deploy again). True: the activation ends (any Deploy aside)."""
        if act.action == "deploy" or not recalls_self(chk.scn, act):
            return False
        if ToReservesCheck._recall_ok(chk, act, on, on and engaged):
            del chk.pos[act.unit]
            chk.down.discard(act.unit)
        return True

    @staticmethod
    def _recall_ok(chk: CheckView, act: Activation, on: bool, engaged: bool) -> bool:
        say = chk.say
        name = next(a.name for a, _ in used_effects(chk.scn, act, "to_reserves"))
        ok = True
        if act.action != "hold":
            say(act, f"use: {name!r} returns the unit to Reserves instead of performing an action: plan it on a `hold`")
            ok = False
        if not on:
            say(act, f"use: {name!r}: {act.unit!r} is not on the table at this point of the plan")
            return False
        if chk.scn.units[act.unit].flying:
            say(act, f"use: {name!r} returns a Ground Unit to Reserves; {act.unit!r} is Flying")
            return False
        if engaged:
            say(act, f"use: {name!r} returns an Unengaged unit to Reserves; {act.unit!r} is Engaged at this point")
            return False
        return ok


MassRecall.plan_check = ToReservesCheck
