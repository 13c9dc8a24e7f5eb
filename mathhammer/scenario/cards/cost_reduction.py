"""A lower cost of a Special Ability (``cost_reduction``, in the ability's ``resource``): a unit's own with Friendly
models near (Psionic Link), a Friendly unit's for a unit near it (Khalai Ingenuity), and a card Reaction planned by
the active unit on its own activation (Advanced Training). Each is "Once per Round". Read by ``scenario check`` only
(the plan's purses, 10.5): the simulation pays no costs, so the card has no simulation hooks and is never in play
there."""

from __future__ import annotations

from ...starcraft.schema import Ability, Effect
from ..checkview import CardCheck, CheckView, ReactionCheck, within_now
from ..lookup import Found, Purse, find, unit_abilities
from ..spec import Activation, Reaction, Scenario
from ..world import World
from .registry import Card, register


@register
class CostReduction(Card):
    kinds = ("cost_reduction",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return False  # the simulation pays no costs


# ----------------------------------------------------------------------------------------------------------------------
# The units' own reductions: Psionic Link, Khalai Ingenuity.
class CostReductionCheck(CardCheck):
    @staticmethod
    def cost_off(
        scn: Scenario, world: World, pos: dict[str, int], unit: str, found: Found, taken: set[tuple[str, str]]
    ) -> int:
        """The reductions of the Friendly units on the table for ``unit``'s ``found`` (a cost in a resource), each
        recorded in ``taken`` ("Once per Round"):

        * the unit's own, with Friendly models near (Psionic Link: "Once per Round, if there are at least 7 Friendly
          models Within 6\\" of this Unit, it may resolve its Special Ability with the BM cost reduced by 1"; the
          models of the other Friendly units on the table, at full strength);
        * a Friendly unit's on the table, for a unit Within ``within`` of it (Khalai Ingenuity: "when a Friendly Unit
          Within 4\\" of this Pylon uses a Special Ability that costs Psionic Energy")."""
        a = found.ability
        su = scn.units[unit]
        off = 0
        for other, osu in scn.units.items():
            if osu.player != su.player or other not in pos:
                continue
            for ab in unit_abilities(osu):
                for e in ab.effects:
                    if e.kind != "cost_reduction" or e.resource != a.resource or (other, ab.name) in taken:
                        continue
                    if e.models_near:
                        if other != unit or e.within is None:
                            continue
                        near = sum(
                            world.models_within(pos[f], scn.units[f].models, pos[unit], su.models, float(e.within))
                            for f in pos
                            if f != unit and scn.units[f].player == su.player
                        )
                        if near < e.models_near:
                            continue
                    elif e.within is not None and not within_now(scn, world, pos, other, unit, e.within):
                        continue
                    taken.add((other, ab.name))
                    off += e.value
        return off


# ----------------------------------------------------------------------------------------------------------------------
# Advanced Training: "when a Friendly Support Unit activates a Special Ability that costs CP, resolve that ability with
# its CP cost reduced by 1 ... Do not Exhaust this card".
class CostReductionReaction(ReactionCheck):
    order = 100
    paid_at_use = True

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next((e for e in a.effects if e.kind == "cost_reduction"), None)

    @staticmethod
    def before_use(chk: CheckView, act: Activation, purse: Purse, off: dict[str, int]) -> None:
        """The cost reductions of card Reactions the active unit plans on its own activation, per resource. Each is
        used before the ability is paid: its card must be Ready then (10.5.2; FAQ: an Academy Exhausted to pay for
        something else gives no Advanced Training), and the ability's cost may then Exhaust it. :meth:`check` names a
        Reaction planned where it cannot apply."""
        scn = chk.scn
        su = scn.units[act.unit]
        for i, rx in enumerate(act.react):
            f = find(scn, rx.unit, rx.use) if rx.unit == act.unit and rx.player == act.player else None
            cuts = [e for e in f.ability.effects if e.kind == "cost_reduction"] if f else []
            if not cuts or not all(e.slot in ("", su.unit.card.army_slot) for e in cuts):
                continue
            assert f is not None
            why = purse.pay(f)
            if why:
                chk.say(act, f"react[{i}] ({rx.player}, {rx.unit} {rx.use!r}): {why}")
                continue
            for e in cuts:
                off[e.resource] = off.get(e.resource, 0) + e.value

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        """Planned by the active unit itself on an activation that uses an ability of the resource it lowers."""
        scn, say, a = chk.scn, chk.say, found.ability
        su = scn.units[act.unit]
        for cut in a.effects:
            if cut.kind != "cost_reduction":
                continue
            paid = [
                f.ability.name
                for n in act.use
                if (f := find(scn, act.unit, n)) is not None and f.ability.resource == cut.resource and f.ability.cost
            ]
            if rx.player != act.player or rx.unit != act.unit:
                say(
                    act,
                    f"{at}: {a.name!r} answers the active unit's own Special Ability: plan it with unit = {act.unit!r}",
                )
            elif cut.slot and su.unit.card.army_slot != cut.slot:
                say(
                    act, f"{at}: {a.name!r} is for a Friendly {cut.slot} Unit; {act.unit!r} is {su.unit.card.army_slot}"
                )
            elif not paid:
                say(
                    act,
                    f"{at}: {a.name!r} answers a Special Ability that costs {cut.resource}; this activation uses none",
                )


CostReduction.plan_check = CostReductionCheck
CostReduction.reaction_check = CostReductionReaction
