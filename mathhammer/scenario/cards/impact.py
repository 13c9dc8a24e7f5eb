"""IMPACT (part 11: "resolves immediately after a successful Charge") as abilities change it (``impact_dice``, My Life
for Aiur: "each eligible model generates 1 additional IMPACT die"; ``impact_hit``, Adrenal Overload, Extended Claws: a
+X Modifier to the Impact Hit Roll), and Lightning Dash (``second_charge``: "After this Unit resolves a successful
Charge action, it may declare a second Charge action against a different Enemy Unit, ignoring the restriction on
Charging while Engaged. The Devastating Charge ability does not trigger a second time")."""

from __future__ import annotations

from ...starcraft.schema import Ability, Effect
from ..checkview import CardCheck, CheckView, ReactionCheck, trigger
from ..lookup import Found, find
from ..simview import SimView
from ..spec import Activation, Reaction, Scenario
from .registry import Card, register


def second_charge(scn: Scenario, act: Activation) -> str | None:
    """Lightning Dash (``second_charge``): the Enemy Unit the second Charge declares (the plan's ``select``), where
    the charging unit itself plans the Reaction on its ``charge``; else None."""
    if act.action != "charge":
        return None
    for rx in act.react:
        if rx.player != act.player or rx.unit != act.unit:
            continue
        found = find(scn, rx.unit, rx.use)
        if found is not None and any(e.kind == "second_charge" for e in found.ability.effects):
            return next((u for n, u in act.select if n.strip().lower() == rx.use.strip().lower()), None)
    return None


@register
class ImpactModifiers(Card):
    kinds = ("impact_dice", "impact_hit")

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def impact(self, u: int, mask: int, imp: tuple[int, int]) -> tuple[int, int]:
        return impact_with(self.sim, u, mask, imp)


def impact_with(sim: SimView, u: int, mask: int, imp: tuple[int, int]) -> tuple[int, int]:
    """IMPACT (X) Y+ (``imp``) as unit ``u`` resolves it with the abilities of ``mask`` (and its passive ones):
    ``impact_dice`` adds dice per eligible model, ``impact_hit`` is a +X Modifier to the Impact Hit Roll.

    Modifiers from different named sources add up (FAQ: Malignant Creep, Evolution Chamber and Adrenal Overload
    give +3 together), and a Target Number is never modified below 2+ (part 11 MODIFIER). An ``on_creep`` effect
    (Malevolent Matriarch) is in ``mask``'s loadout only where the unit was ON CREEP as it declared the Charge.
    """
    dice, hit = imp
    for e in sim.effects(u, mask, "impact_dice"):
        dice += e.value
    for e in sim.effects(u, mask, "impact_hit"):
        if not e.on_creep:
            hit -= e.value
    return dice, max(2, hit)


class SecondChargeReaction(ReactionCheck):
    """The plan check of Lightning Dash (10.4)."""

    order = 110

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next((e for e in a.effects if e.kind == "second_charge"), None)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        """Planned by the charging unit on its own ``charge``, the second target named in ``select``: an Enemy Ground
        Unit on the table, not a target of the first Charge."""
        scn, say, a = chk.scn, chk.say, found.ability
        if rx.player != act.player or rx.unit != act.unit or act.action != "charge":
            what, where = "this unit's successful Charge (8.7.7)", f"the `charge` of {rx.unit!r} itself"
            trigger(say, act, at, a, what, where, False)
            return
        picked = second_charge(scn, act)
        foes = sorted(
            u for u, su in scn.units.items() if su.player != act.player and not su.flying and u not in act.targets
        )
        if picked is None:
            say(
                act,
                f"{at}: name the Enemy Unit of the second Charge: select = {{ {a.name!r} = one of {', '.join(foes)} }}",
            )
        elif picked in act.targets or scn.units[picked].player == act.player or scn.units[picked].flying:
            say(
                act,
                f"select.{a.name}: got {picked!r}; allowed: a different Enemy Ground Unit (8.7.7 step 1; its text: "
                f"{a.text!r}): {', '.join(foes) or 'none'}",
            )
        elif picked not in chk.pos:
            say(act, f"select.{a.name}: {picked!r} is not on the table at this point of the plan (8.7.7)")


@register
class LightningDash(Card):
    kinds = ("second_charge",)
    reaction_check = SecondChargeReaction

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def charge_again(self, act: Activation) -> int | None:
        """The unit of the second Charge (:func:`second_charge`: the plan's ``select``), or None."""
        dash = second_charge(self.sim.scn, act)
        return None if dash is None else self.sim.uids.index(dash)


# An Active ability whose effects all change IMPACT (8.7.7: resolved after a successful Charge, by a unit with IMPACT).
class ImpactModifiersCheck(CardCheck):
    @staticmethod
    def charge_only(e: Effect) -> str | None:
        return "impact" if e.kind in ImpactModifiers.kinds else None


ImpactModifiers.plan_check = ImpactModifiersCheck


# Lightning Dash's second Charge, as the plan walk follows a successful Charge (8.7.7).
class LightningDashCheck(CardCheck):
    @staticmethod
    def charge_again(chk: CheckView, act: Activation) -> str | None:
        """The Enemy unit of the second Charge (:func:`~..abilities.second_charge`: the plan's ``select``), or None
        where there is none or it is a target of the first Charge or a Friendly unit (:class:`SecondChargeReaction`
        names those)."""
        dash = second_charge(chk.scn, act)
        if dash in act.targets or (dash is not None and chk.scn.units[dash].player == act.player):
            return None
        return dash


LightningDash.plan_check = LightningDashCheck
