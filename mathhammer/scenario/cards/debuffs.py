"""DEBUFFs a Reaction gives the acting unit, and their removal: Debilitating Saliva (``enemy_weapon_keyword`` without
``select``, a Reaction: "Use when an Enemy Unit Within 8\" of this Unit declares a Ranged Attack. Apply DEBUFF Hit
(1) to each of that Unit's Ranged Weapons"), switched on for the activation it answers (the ``react_begin`` and
``react_end`` triggers), and the plan checks of it and of Restoration (``remove_debuffs``: "Use when a Friendly Unit
Within 4\" receives a DEBUFF. Remove all DEBUFFS from it"; read in the simulation by
:func:`restored`, which Concusive Shells' DEBUFF in ``cards/charge.py`` reads too)."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import find, inflicted, near_games, reactions, use_bits
from ..checkview import CheckView, ReactionCheck, too_far, trigger, within_now
from ..lookup import Found
from ..simview import SimView
from ..spec import Activation, Reaction, Scenario
from .registry import Card, register


def attacker_debuff(a: Ability) -> Effect | None:
    """The ``enemy_weapon_keyword`` effect of ``a`` (Debilitating Saliva: "Use when an Enemy Unit Within 8\" of this
    Unit declares a Ranged Attack. Apply DEBUFF Hit (1) to each of that Unit's Ranged Weapons"), or None."""
    return next((e for e in a.effects if e.kind == "enemy_weapon_keyword" and not e.select), None)


def remover(a: Ability) -> Effect | None:
    """The ``remove_debuffs`` effect of ``a`` (Restoration: "Use when a Friendly Unit Within 4\" receives a DEBUFF.
    Remove all DEBUFFS from it"), or None."""
    return next((e for e in a.effects if e.kind == "remove_debuffs"), None)


class AttackerDebuffReaction(ReactionCheck):
    """An Enemy Unit's Ranged Attack declaration (Debilitating Saliva, Optical Flare's kin)."""

    order = 30
    match = staticmethod(attacker_debuff)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        a = found.ability
        if own or act.action != "shoot":
            trigger(chk.say, act, at, a, "an Enemy Unit's Ranged Attack declaration", "the opponent's `shoot`")
        elif e.within is not None and not within_now(chk.scn, chk.world, chk.pos, rx.unit, act.unit, e.within):
            too_far(chk.say, act, at, a, act.unit, rx.unit, e.within, "an Enemy Unit")


class DebuffRemoverReaction(ReactionCheck):
    """A DEBUFF on a Friendly Unit removed (Restoration)."""

    order = 40
    match = staticmethod(remover)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        scn, a = chk.scn, found.ability
        theirs = [find(scn, o.unit, o.use) for o in act.react if o.player != rx.player]
        if not own or not any(f is not None and gives_debuff(f.ability) for f in theirs):
            trigger(
                chk.say,
                act,
                at,
                a,
                "a DEBUFF on a Friendly Unit",
                "that unit's activation, with the opponent's Reaction that gives the DEBUFF "
                "(Concusive Shells on a charge, Debilitating Saliva on a shot)",
            )
        elif e.within is not None and not within_now(scn, chk.world, chk.pos, rx.unit, act.unit, e.within):
            too_far(chk.say, act, at, a, act.unit, rx.unit, e.within, "a Friendly Unit")


def gives_debuff(a: Ability) -> bool:
    """Does Reaction ``a`` give the acting unit a DEBUFF: Debilitating Saliva (:func:`attacker_debuff`), Concusive
    Shells (``charger_debuff_speed``, read here by its kind: its card, ``cards/charge.py``, imports :func:`restored`
    from this module, so this one cannot import its ``charger_debuff``)?"""
    return any(e.kind == "charger_debuff_speed" for e in a.effects) or attacker_debuff(a) is not None


def restored(sim: SimView, act: Activation, trials: np.ndarray, debuffed: np.ndarray) -> np.ndarray:
    """Per game (length ``sim.T``): does the active player's Reaction remove the DEBUFFs the acting unit just
    received (``remove_debuffs``: Restoration, "Use when a Friendly Unit Within 4\" receives a DEBUFF. Remove all
    DEBUFFS from it")? ``debuffed``: the games where the opponent's Reaction gave it one.

    The trigger is read per game: the acting unit received a DEBUFF, and has a live model Within ``within`` of a
    live model of the reacting unit (both on the table); other games are counted in the skip report. Its trigger
    is the DEBUFF, not the declaration the opponent answered, so the two players' Reactions do not compete for
    one trigger (10.4): the DEBUFF comes first, and goes.
    """
    out = np.zeros(sim.T, dtype=bool)
    u = sim.uids.index(act.unit)
    for rx, found, eff in reactions(sim.scn, act, True, remover):
        assert eff.within is not None
        hit = debuffed & near_games(sim, trials, sim.uids.index(rx.unit), u, float(eff.within))
        out |= hit
        sim.skip(
            act,
            trials.size - int(hit[trials].sum()),
            f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {act.unit} received no DEBUFF, or is not "
            f'Within {eff.within:g}" of it (10.4)',
        )
    return out


@register
class DebuffRemoval(Card):
    kinds = ("remove_debuffs",)
    reaction_check = DebuffRemoverReaction

    @classmethod
    def present(cls, scn: Scenario) -> bool:  # its simulation is the giver's (restored): only its check is here
        return False


@register
class AttackerDebuff(Card):
    kinds = ("enemy_weapon_keyword",)
    reaction_check = AttackerDebuffReaction

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        self._saved: list[tuple[int, np.ndarray]] = []  # the acting unit's ``used`` bits before, per switch

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def react_begin(self, act: Activation, trials: np.ndarray) -> None:
        attacker_debuffs(self.sim, act, trials, self._saved)

    def react_end(self, trials: np.ndarray) -> None:
        for r, old in reversed(self._saved):
            self.sim.used[r, trials] = old
        self._saved.clear()


def attacker_debuffs(sim: SimView, act: Activation, trials: np.ndarray, saved: list[tuple[int, np.ndarray]]) -> None:
    """The opponent's Reactions to the acting unit's Ranged Attack declaration (``enemy_weapon_keyword``), switched
    on for this activation in the games where the trigger holds: the acting unit Within ``within`` of a live model
    of the reacting unit (bases edge to edge), both on the table. Part 11 DEBUFF lasts "until the End of the Round";
    a unit makes one Ranged Attack a Round, so the activation is all it changes. Games without the trigger are
    counted in the skip report."""
    if act.action != "shoot":
        return
    u = sim.uids.index(act.unit)
    for rx, found, eff in reactions(sim.scn, act, False, attacker_debuff):
        assert eff.within is not None
        weapons = [Effect(kind="weapon_keyword", keyword=eff.keyword, weapons=list(eff.weapons))]
        bit = use_bits(sim, u, [inflicted(sim, found, weapons, rx.unit)])
        saved.append((u, sim.used[u, trials].copy()))
        hit = near_games(sim, trials, sim.uids.index(rx.unit), u, float(eff.within))
        kept = trials[hit[trials] & ~restored(sim, act, trials, hit)[trials]]
        sim.used[u, kept] |= bit
        sim.skip(
            act,
            trials.size - int(hit[trials].sum()),
            f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {act.unit} not Within {eff.within:g}\" of "
            "it, or one of them not on the table (10.4)",
        )
