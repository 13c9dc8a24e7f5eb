"""Reaction checks of the plan walk (10.4): triggers, costs and discounts, damage reductions."""

from __future__ import annotations

from ...starcraft.schema import Ability, Effect
from ..abilities import (
    Found,
    Purse,
    attacker_debuff,
    charge_roll,
    charger_debuff,
    choices,
    find,
    gives_debuff,
    has_impact,
    needs_tag,
    protected,
    reduction,
    remover,
    target_effects,
    used_effect,
)
from ..spec import Activation, Reaction
from .cards import CardChecks
from .common import (
    PHASE_TITLE,
    _again,
    _printed_limit,
    _too_far,
    _trigger,
    _within_now,
    cost_discount,
)


class ReactionChecks(CardChecks):
    """Reaction checks of the plan walk (10.4): methods of :class:`~.walk.PlanCheck`."""

    def _check_reactions(self, act: Activation) -> None:
        """10.4: the Reactions planned in ``act`` (``react``); ``pos``: the units on the table before it; ``taken``: the
        once-per-Round cost reductions used this Round (:func:`cost_discount`)."""
        scn, world, say, warn, pos, purses, used, once, taken = (
            self.scn,
            self.world,
            self.say,
            self.warn,
            self.pos,
            self.purses,
            self.used,
            self.once,
            self.taken,
        )
        by_player: dict[str, str] = {}
        for i, rx in enumerate(act.react):
            at = f"react[{i}] ({rx.player}, {rx.unit} {rx.use!r})"
            found = find(scn, rx.unit, rx.use)
            if found is None or found.ability.type != "reaction":
                what = "" if found is None else f" ({rx.use!r} is {found.ability.type.title()})"
                say(
                    act,
                    f"{at}: not a Reaction of {rx.unit!r}{what}; allowed: a Reaction of {scn.units[rx.unit].unit.name} "
                    f"or of {rx.player}'s cards: {', '.join(choices(scn, rx.unit, 'reaction')) or 'none'}",
                )
                continue
            a = found.ability
            if rx.player in by_player:
                say(
                    act,
                    f"{at}: {rx.player} already resolves {by_player[rx.player]!r} in this Activation: one Reaction per "
                    "player per Activation (10.4; FAQ v1.1: REPEATABLE never allows two in one Activation)",
                )
                continue
            by_player[rx.player] = a.name
            if rx.unit not in pos:
                say(act, f"{at}: {rx.unit!r} is in Reserves: a unit in Reserves uses no abilities (10.4, FAQ v1.0)")
                continue
            if a.phase not in (act.phase, "any"):
                say(act, f"{at}: {a.name!r} is used in the {a.phase.title()} Phase, not the {PHASE_TITLE[act.phase]}")
            if _again(used, rx.unit, a):
                say(
                    act,
                    f"{at}: {a.name!r} a second time this Round for {rx.unit!r} (10.4: once per Round per unit "
                    "unless REPEATABLE)",
                )
            over = _printed_limit(found, rx.unit, rx.player, act.round, act.where, once)
            if over:
                say(act, f"{at}: {over}")
            tag = needs_tag(a) if found.card else ""
            if tag and tag not in scn.units[rx.unit].unit.card.combat_tags:
                say(act, f"{at}: {a.name!r} ({found.card}) is for a Friendly {tag} Unit; {rx.unit!r} is not")
            if not any(e.kind == "cost_reduction" for e in a.effects):  # (those: _reaction_discounts, before the use)
                why = purses[rx.player].pay(found, (), cost_discount(scn, world, pos, rx.unit, found, None, taken))
                if why:
                    say(act, f"{at}: {why}")
            own = rx.player == act.player

            if charge_roll(a) is not None:
                if not own or rx.unit != act.unit or act.action != "charge":
                    _trigger(
                        say,
                        act,
                        at,
                        a,
                        "a Friendly Unit's Charge Roll (8.7.7)",
                        f"the Charge of {rx.unit!r} itself",
                        False,
                    )
            elif (slow := charger_debuff(a)) is not None:
                if own or act.action != "charge":
                    _trigger(
                        say,
                        act,
                        at,
                        a,
                        "an Enemy's Charge declaration against a Friendly Unit",
                        "the opponent's `charge`",
                    )
                elif (
                    slow.within is not None
                    and rx.unit in pos
                    and not any(t in pos and _within_now(scn, world, pos, rx.unit, t, slow.within) for t in act.targets)
                ):
                    say(
                        act,
                        f'{at}: no Charge target is Within {slow.within:g}" of {rx.unit!r} at this point of the plan '
                        f'({a.name!r} answers a Charge against a Friendly Unit Within {slow.within:g}", 10.4)',
                    )
            elif (dbf := attacker_debuff(a)) is not None:
                if own or act.action != "shoot":
                    _trigger(say, act, at, a, "an Enemy Unit's Ranged Attack declaration", "the opponent's `shoot`")
                elif dbf.within is not None and not _within_now(scn, world, pos, rx.unit, act.unit, dbf.within):
                    _too_far(say, act, at, a, act.unit, rx.unit, dbf.within, "an Enemy Unit")
            elif (rem := remover(a)) is not None:
                theirs = [find(scn, o.unit, o.use) for o in act.react if o.player != rx.player]
                if not own or not any(f is not None and gives_debuff(f.ability) for f in theirs):
                    _trigger(
                        say,
                        act,
                        at,
                        a,
                        "a DEBUFF on a Friendly Unit",
                        "that unit's activation, with the opponent's Reaction that gives the DEBUFF "
                        "(Concusive Shells on a charge, Debilitating Saliva on a shot)",
                    )
                elif rem.within is not None and not _within_now(scn, world, pos, rx.unit, act.unit, rem.within):
                    _too_far(say, act, at, a, act.unit, rx.unit, rem.within, "a Friendly Unit")
            elif (red := reduction(a)) is not None:
                self._check_reduction(act, rx, found, red, at)
            elif (guard := next((e for e in a.effects if e.kind in ("redirect", "lunge")), None)) is not None:
                # Hierarch's Stand, Lunge: the opponent's Ranged Attack at another Friendly Unit Within ``within``
                unit = protected(scn, act, rx, found)
                if own or act.action != "shoot":
                    what = "an Enemy Unit's Ranged Attack at another Friendly Unit"
                    _trigger(say, act, at, a, what, "the opponent's `shoot`")
                elif unit is None or unit == rx.unit:
                    mine = [t for t in act.targets if scn.units[t].player == rx.player and t != rx.unit]
                    say(
                        act,
                        f"{at}: name the Friendly Unit {a.name!r} answers for: for = one of "
                        f"{', '.join(mine) or 'none'}",
                    )
                elif unit not in act.targets:
                    say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
                elif guard.within is not None and not _within_now(scn, world, pos, rx.unit, unit, guard.within):
                    _too_far(say, act, at, a, unit, rx.unit, guard.within, "another Friendly Unit")
            elif a.type == "reaction" and any(e.kind == "hits" for e in a.effects):  # Photon Overcharge
                if own or act.action != "deploy" or used_effect(scn, act, "deploy_edge") is None:
                    _trigger(
                        say,
                        act,
                        at,
                        a,
                        "an Enemy Unit entering from Reserves other than by its Entry Edge",
                        "the opponent's `deploy` with Warp In, Armed and Ready or Timing Push",
                    )
            elif any(e.kind == "heal_after_place" for e in a.effects):
                if not own or rx.unit != act.unit or act.place_to is None:
                    _trigger(
                        say,
                        act,
                        at,
                        a,
                        "a Friendly Unit's PLACE effect",
                        f"the activation of {rx.unit!r} with place_to",
                    )
            elif target_effects(a):
                # a unit's Reaction for a Friendly Unit Within X of it (Hallucination: "the targeted Friendly Unit")
                reach = min((e.within for e in target_effects(a) if e.within is not None), default=None)
                unit = rx.unit if reach is None or found.card else protected(scn, act, rx, found)
                if own:
                    say(
                        act,
                        f"{at}: {a.name!r} answers an attack on {unit or rx.unit!r}; an activation of its own player "
                        "never attacks it (10.4: declared at the moment of its trigger)",
                    )
                elif act.action not in ("shoot", "charge", "fight"):
                    say(act, f"{at}: {a.name!r} answers an attack; a {act.action} makes none (10.4)")
                elif unit is None:
                    mine = [t for t in act.targets if scn.units[t].player == rx.player]
                    say(
                        act,
                        f"{at}: name the Friendly Unit {a.name!r} is for: for = one of "
                        f"{', '.join(mine) or 'the targets'}",
                    )
                elif act.targets and unit not in act.targets:
                    say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
                elif reach is not None and not _within_now(scn, world, pos, rx.unit, unit, reach):
                    _too_far(say, act, at, a, unit, rx.unit, reach, "a Friendly Unit")
                elif act.action == "charge" and not has_impact(scn.units[act.unit]):
                    warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")
            elif any(e.kind == "cost_reduction" for e in a.effects):
                self._discount_trigger(act, at, rx, a)
            elif any(e.kind == "second_charge" for e in a.effects):  # Lightning Dash
                self._dash_target(act, at, rx, a)
            else:
                warn(
                    act,
                    f"{at}: {a.name!r} has no modelled effect (no machine-readable combat effect); "
                    "the simulation ignores it",
                )

    def _discount_trigger(self, act: Activation, at: str, rx: Reaction, a: Ability) -> None:
        """A card Reaction that lowers a cost (Advanced Training: "when a Friendly Support Unit activates a Special
        Ability that costs CP"), planned by the active unit itself on an activation that uses such an ability."""
        scn, say = self.scn, self.say
        su = scn.units[act.unit]
        for e in a.effects:
            if e.kind != "cost_reduction":
                continue
            paid = [
                f.ability.name
                for n in act.use
                if (f := find(scn, act.unit, n)) is not None and f.ability.resource == e.resource and f.ability.cost
            ]
            if rx.player != act.player or rx.unit != act.unit:
                say(
                    act,
                    f"{at}: {a.name!r} answers the active unit's own Special Ability: plan it with unit = {act.unit!r}",
                )
            elif e.slot and su.unit.card.army_slot != e.slot:
                say(act, f"{at}: {a.name!r} is for a Friendly {e.slot} Unit; {act.unit!r} is {su.unit.card.army_slot}")
            elif not paid:
                say(
                    act,
                    f"{at}: {a.name!r} answers a Special Ability that costs {e.resource}; this activation uses none",
                )

    def _reaction_discounts(self, act: Activation, purse: Purse) -> dict[str, int]:
        """The cost reductions of card Reactions the active unit plans on its own activation (Advanced Training: "when a
        Friendly Support Unit activates a Special Ability that costs CP, resolve that ability with its CP cost reduced
        by 1 ... Do not Exhaust this card"), per resource. Each is used before the ability is paid: its card must be
        Ready then (10.5.2; FAQ: an Academy Exhausted to pay for something else gives no Advanced Training), and the
        ability's cost may then Exhaust it. :func:`_discount_trigger` names a Reaction planned where it cannot apply."""
        scn, say = self.scn, self.say
        su = scn.units[act.unit]
        off: dict[str, int] = {}
        for i, rx in enumerate(act.react):
            f = find(scn, rx.unit, rx.use) if rx.unit == act.unit and rx.player == act.player else None
            cuts = [e for e in f.ability.effects if e.kind == "cost_reduction"] if f else []
            if not cuts or not all(e.slot in ("", su.unit.card.army_slot) for e in cuts):
                continue
            assert f is not None
            why = purse.pay(f)
            if why:
                say(act, f"react[{i}] ({rx.player}, {rx.unit} {rx.use!r}): {why}")
                continue
            for e in cuts:
                off[e.resource] = off.get(e.resource, 0) + e.value
        return off

    def _check_reduction(self, act: Activation, rx: Reaction, found: Found, red: Effect, at: str) -> None:
        """10.4 + 8.7.4 step 5: a Reaction reducing the Total Damage of a Friendly Unit the activation attacks."""
        scn, world, say, warn, pos = self.scn, self.world, self.say, self.warn, self.pos
        a = found.ability
        if rx.player == act.player:
            say(
                act, f"{at}: {a.name!r} answers Damage to a Friendly Unit; its own player's activation never attacks it"
            )
            return
        if act.action not in ("shoot", "charge", "fight"):
            say(act, f"{at}: {a.name!r} answers Damage from an attack; a {act.action} makes none (10.4)")
            return
        unit = protected(scn, act, rx, found)
        mine = [t for t in act.targets if scn.units[t].player == rx.player]
        if unit is None:
            say(
                act,
                f"{at}: name the Friendly Unit {a.name!r} protects: for = one of {', '.join(mine) or 'the targets'} "
                "(its text: another Friendly Unit)",
            )
            return
        if red.costs_activation and rx.for_unit not in ("", rx.unit):
            say(act, f"{at}: {a.name!r} protects {rx.unit!r} itself (its text: this Unit), not {rx.for_unit!r}")
            return
        if act.targets and unit not in act.targets:
            say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
            return
        if not found.card and unit == rx.unit and not red.costs_activation:
            say(act, f"{at}: {a.name!r} protects another Friendly Unit (its text), not {rx.unit!r} itself")
            return

        tags = scn.units[unit].unit.card.combat_tags
        if red.vs_tags and not set(red.vs_tags) & set(tags):
            say(act, f"{at}: {a.name!r} is for a Friendly {' or '.join(red.vs_tags)} Unit; {unit!r} is not")
            return
        if red.within is not None and not _within_now(scn, world, pos, rx.unit, unit, red.within):
            _too_far(say, act, at, a, unit, rx.unit, red.within, "a Friendly Unit that suffers Damage")
            return
        if act.action == "charge" and not has_impact(scn.units[act.unit]):
            warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")
