"""Reaction checks of the plan walk (10.4): triggers, costs and discounts, damage reductions."""

from __future__ import annotations

from ..abilities import (
    Purse,
    choices,
    find,
    needs_tag,
)
from ..cards import reaction_checks
from ..checkview import ReactionCheck
from ..spec import Activation
from .cards import CardChecks
from .common import (
    PHASE_TITLE,
    _again,
    _printed_limit,
    cost_discount,
)

#: The registered cards' Reaction checks (``Card.reaction_check``), in the order they are tried (ascending ``order``;
#: the first whose ``match`` reads an effect of a Reaction checks it).
REACTION_FAMILIES: tuple[type[ReactionCheck], ...] = tuple(sorted(reaction_checks(), key=lambda f: f.order))


class ReactionChecks(CardChecks):
    """Reaction checks of the plan walk (10.4): methods of :class:`~.walk.PlanCheck`."""

    def _check_reactions(self, act: Activation) -> None:
        """10.4: the Reactions planned in ``act`` (``react``); ``pos``: the units on the table before it; ``taken``: the
        once-per-Round cost reductions used this Round (:func:`cost_discount`)."""
        scn, say = self.scn, self.say
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
            if rx.unit not in self.pos:
                say(act, f"{at}: {rx.unit!r} is in Reserves: a unit in Reserves uses no abilities (10.4, FAQ v1.0)")
                continue
            if a.phase not in (act.phase, "any"):
                say(act, f"{at}: {a.name!r} is used in the {a.phase.title()} Phase, not the {PHASE_TITLE[act.phase]}")
            if _again(self.used, rx.unit, a):
                say(
                    act,
                    f"{at}: {a.name!r} a second time this Round for {rx.unit!r} (10.4: once per Round per unit "
                    "unless REPEATABLE)",
                )
            over = _printed_limit(found, rx.unit, rx.player, act.round, act.where, self.once)
            if over:
                say(act, f"{at}: {over}")
            tag = needs_tag(a) if found.card else ""
            if tag and tag not in scn.units[rx.unit].unit.card.combat_tags:
                say(act, f"{at}: {a.name!r} ({found.card}) is for a Friendly {tag} Unit; {rx.unit!r} is not")
            if not any(f.paid_at_use and f.match(a) is not None for f in REACTION_FAMILIES):  # (else: before the use)
                off = cost_discount(scn, self.world, self.pos, rx.unit, found, None, self.taken)
                why = self.purses[rx.player].pay(found, (), off)
                if why:
                    say(act, f"{at}: {why}")
            own = rx.player == act.player

            fam = next((f for f in REACTION_FAMILIES if f.match(a) is not None), None)
            if fam is None:
                self.warn(
                    act,
                    f"{at}: {a.name!r} has no modelled effect (no machine-readable combat effect); "
                    "the simulation ignores it",
                )
                continue
            e = fam.match(a)
            assert e is not None
            fam.check(self, act, rx, found, at, own, e)

    def _reaction_discounts(self, act: Activation, purse: Purse) -> dict[str, int]:
        """The cost reductions per resource of the Reactions the active unit plans on its own activation, used before
        its Active abilities are paid (each card's :meth:`~..checkview.ReactionCheck.before_use`)."""
        off: dict[str, int] = {}
        for fam in REACTION_FAMILIES:
            fam.before_use(self, act, purse, off)
        return off
