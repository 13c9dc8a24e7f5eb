"""The Charge Roll and its declaration (8.7.7): ``charge_roll`` (Active abilities used on the Charge: Metabolic Boost
and Charge "roll 2D6 instead of D6 and use the higher", Leap "add 2"; Reactions to the roll: Pneumatized Carapace,
Gravitic Boosters) and ``charger_debuff_speed`` (Concusive Shells: "When an Enemy declares a Charge against a
Friendly Unit Within 8\\", that Enemy gains DEBUFF Speed (2)"), with Restoration's removal of the DEBUFF
(``remove_debuffs``)."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import near_games, reactions
from ..basics import split_by as _split_by
from ..basics import stream as _stream
from ..checkview import CardCheck, CheckView, ReactionCheck, trigger, within_now
from ..lookup import Found, find
from ..spec import Activation, Reaction, Scenario
from .debuffs import restored
from .registry import Card, register


def charge_roll(a: Ability) -> Effect | None:
    """The ``charge_roll`` effect of ``a``: ``value`` added to the Charge Distance, ``dice`` more D6 rolled with
    the highest used (Gravitic Boosters, Pneumatized Carapace; Metabolic Boost, Charge, Leap), or None."""
    return next((e for e in a.effects if e.kind == "charge_roll"), None)


def charger_debuff(a: Ability) -> Effect | None:
    """The ``charger_debuff_speed`` effect of ``a`` (Concusive Shells: "When an Enemy declares a Charge against a
    Friendly Unit Within 8\", that Enemy gains DEBUFF Speed (2)"), or None."""
    return next((e for e in a.effects if e.kind == "charger_debuff_speed"), None)


@register
class ChargeRoll(Card):
    kinds = ("charge_roll",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def charge_roll(self, act: Activation, rolls: np.ndarray, trials: np.ndarray, stream: int) -> None:
        """The charging unit's Charge Roll (8.7.7 step 2) with its Active abilities used and its Reactions to the roll.

        Additions from different named sources add up, and each source's extra dice join the same roll, the highest
        of all used, before anything is added: part 11 MODIFIER, "Modifiers from different named sources are
        cumulative", and the FAQ's IMPACT example. So Metabolic Boost with Pneumatized Carapace is the highest of
        three D6, and Leap with it the higher of two D6, plus 2.
        """
        sim = self.sim
        u = sim.uids.index(act.unit)
        answers: list[tuple[Effect, int]] = []  # Reactions to the roll (10.4), with the stream of their first die
        for rx in act.react:
            if rx.player != act.player or rx.unit != act.unit:
                continue
            found = find(sim.scn, rx.unit, rx.use)
            e = charge_roll(found.ability) if found else None
            if e is not None:
                answers.append((e, _stream(stream, 77)))
        for mask, ts in _split_by(trials, sim.used[u, trials]):
            used = [(e, _stream(stream, 78, i)) for i, e in enumerate(sim.effects(u, mask, "charge_roll"))]
            for e, first in used + answers:
                for k in range(e.dice):
                    more = sim.d6(first if k == 0 else _stream(first, k), ts)
                    rolls[ts] = np.maximum(rolls[ts], more)
            for e, _ in used + answers:
                rolls[ts] += e.value


@register
class ChargeDebuff(Card):
    kinds = ("charger_debuff_speed",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:  # Restoration on a Charge is read (and reported) with it
        return cls.anywhere(scn, ("charger_debuff_speed", "remove_debuffs"))

    def charge_declared(self, act: Activation, trials: np.ndarray) -> np.ndarray:
        """DEBUFF Speed (X) the charging unit gains from the opponent's Reactions to its Charge declaration, per game
        (length ``sim.T``; 0 where none).

        The trigger is read in each game at the moment of the declaration (8.7.7 step 1; 10.4): the reacting unit on
        the table, and a live model of a declared target Within ``within`` inches of one of its live models (bases
        edge to edge, :meth:`World.within`). Where it does not hold, the Reaction is not used (the skip report counts
        those games). DEBUFFs of one name do not add up (FAQ v1.0), so the largest counts; "minimum 0" is the
        caller's (part 11 DEBUFF).
        """
        sim = self.sim
        slow = np.zeros(sim.T, dtype=np.int64)
        targets = [sim.uids.index(t) for t in act.targets]
        for rx, found, eff in reactions(sim.scn, act, False, charger_debuff):
            assert eff.within is not None
            r = sim.uids.index(rx.unit)
            hit = np.zeros(sim.T, dtype=bool)
            for t in targets:
                hit |= near_games(sim, trials, r, t, float(eff.within))
            slow[hit] = np.maximum(slow[hit], eff.value)
            sim.skip(
                act,
                trials.size - int(hit[trials].sum()),
                f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: no declared target Within "
                f'{eff.within:g}" of it, or it is not on the table (10.4)',
            )
        slow[restored(sim, act, trials, slow > 0)] = 0
        return slow


# ----------------------------------------------------------------------------------------------------------------------
# A Friendly Unit's Charge Roll (8.7.7): Pneumatized Carapace, Gravitic Boosters.
class ChargeRollReaction(ReactionCheck):
    order = 10
    match = staticmethod(charge_roll)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if not own or rx.unit != act.unit or act.action != "charge":
            what = "a Friendly Unit's Charge Roll (8.7.7)"
            trigger(chk.say, act, at, found.ability, what, f"the Charge of {rx.unit!r} itself", False)


# An Active ability whose effects all act on a Charge (8.7.7): the Charge Roll of every Charge.
class ChargeRollCheck(CardCheck):
    @staticmethod
    def charge_only(e: Effect) -> str | None:
        return "roll" if e.kind == "charge_roll" else None


ChargeRoll.reaction_check = ChargeRollReaction
ChargeRoll.plan_check = ChargeRollCheck


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
            trigger(chk.say, act, at, a, what, "the opponent's `charge`")
        elif (
            e.within is not None
            and rx.unit in pos
            and not any(t in pos and within_now(scn, world, pos, rx.unit, t, e.within) for t in act.targets)
        ):
            chk.say(
                act,
                f'{at}: no Charge target is Within {e.within:g}" of {rx.unit!r} at this point of the plan '
                f'({a.name!r} answers a Charge against a Friendly Unit Within {e.within:g}", 10.4)',
            )


ChargeDebuff.reaction_check = ChargerDebuffReaction
