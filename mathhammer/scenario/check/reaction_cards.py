"""The Reaction checks of each card or effect family (10.4), one class per family (:class:`ReactionCheck`) in
:data:`REACTION_FAMILIES`: :class:`~.reactions.ReactionChecks` checks what every Reaction shares (whose, once, paid),
then hands the Reaction to the first family whose :meth:`ReactionCheck.match` reads an effect of it, and never names
a card or an effect kind."""

from __future__ import annotations

from ...starcraft.schema import Ability, Effect
from ..abilities import (
    Found,
    Purse,
    find,
    used_effect,
)
from ..cards import reaction_checks
from ..cards.charge import charge_roll, charger_debuff
from ..checkview import CheckView, ReactionCheck
from ..checkview import trigger as _trigger
from ..spec import Activation, Reaction
from .common import _within_now


def _first(a: Ability, *kinds: str) -> Effect | None:
    return next((e for e in a.effects if e.kind in kinds), None)


# ----------------------------------------------------------------------------------------------------------------------
# A Friendly Unit's Charge Roll (8.7.7).
class ChargeRollReaction(ReactionCheck):
    order = 10
    match = staticmethod(charge_roll)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if not own or rx.unit != act.unit or act.action != "charge":
            what = "a Friendly Unit's Charge Roll (8.7.7)"
            _trigger(chk.say, act, at, found.ability, what, f"the Charge of {rx.unit!r} itself", False)


# ----------------------------------------------------------------------------------------------------------------------
# An Enemy's Charge declaration against a Friendly Unit (Concussive Shells).
class ChargerDebuffReaction(ReactionCheck):
    order = 20
    match = staticmethod(charger_debuff)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        scn, world, pos, a = chk.scn, chk.world, chk.pos, found.ability
        if own or act.action != "charge":
            what = "an Enemy's Charge declaration against a Friendly Unit"
            _trigger(chk.say, act, at, a, what, "the opponent's `charge`")
        elif (
            e.within is not None
            and rx.unit in pos
            and not any(t in pos and _within_now(scn, world, pos, rx.unit, t, e.within) for t in act.targets)
        ):
            chk.say(
                act,
                f'{at}: no Charge target is Within {e.within:g}" of {rx.unit!r} at this point of the plan '
                f'({a.name!r} answers a Charge against a Friendly Unit Within {e.within:g}", 10.4)',
            )


# ----------------------------------------------------------------------------------------------------------------------
# Photon Overcharge: hits on an Enemy Unit entering from Reserves other than by its Entry Edge.
class EntryHitsReaction(ReactionCheck):
    order = 70

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return _first(a, "hits") if a.type == "reaction" else None

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if own or act.action != "deploy" or used_effect(chk.scn, act, "deploy_edge") is None:
            _trigger(
                chk.say,
                act,
                at,
                found.ability,
                "an Enemy Unit entering from Reserves other than by its Entry Edge",
                "the opponent's `deploy` with Warp In, Armed and Ready or Timing Push",
            )


# ----------------------------------------------------------------------------------------------------------------------
# A heal after a Friendly Unit's PLACE effect.
class HealAfterPlaceReaction(ReactionCheck):
    order = 80

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return _first(a, "heal_after_place")

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if not own or rx.unit != act.unit or act.place_to is None:
            where = f"the activation of {rx.unit!r} with place_to"
            _trigger(chk.say, act, at, found.ability, "a Friendly Unit's PLACE effect", where)


# ----------------------------------------------------------------------------------------------------------------------
# Advanced Training: "when a Friendly Support Unit activates a Special Ability that costs CP, resolve that ability with
# its CP cost reduced by 1 ... Do not Exhaust this card".
class CostReductionReaction(ReactionCheck):
    order = 100
    paid_at_use = True

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return _first(a, "cost_reduction")

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


#: The Reaction families, in the order they are tried (the first whose ``match`` reads an effect checks the Reaction):
#: these and the cards' (:func:`~..cards.reaction_checks`), by their ``order``.
REACTION_FAMILIES: tuple[type[ReactionCheck], ...] = tuple(
    sorted(
        (
            ChargeRollReaction,
            ChargerDebuffReaction,
            EntryHitsReaction,
            HealAfterPlaceReaction,
            CostReductionReaction,
            *reaction_checks(),
        ),
        key=lambda f: f.order,
    )
)
