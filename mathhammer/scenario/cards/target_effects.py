"""Reactions' target effects (10.4): a Reaction whose machine-readable effects change the unit as a target
(``unit_keyword`` such as TOUGH (1), DODGE (2), BUFF Evade (1); ``evade_eligible``), on the reacting unit as the target
of every attack of the activation it answers, and only of that activation (the ``react_begin`` and ``react_end``
triggers; in the Combat Phase: the planned ``fight`` entry it is declared on). A unit's Reaction whose effect has a
``within`` (Hallucination: "the targeted Friendly Unit" Within 4") applies instead to that Friendly Unit
(:func:`for_friend`)."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import find, has_impact, inflicted, near_games, protected, target_effects, use_bits
from ..checkview import CardCheck, CheckView, ReactionCheck, too_far, within_now
from ..lookup import TARGET_KINDS, Found
from ..simview import SimView
from ..spec import Activation, Reaction, Scenario
from .damage_reduction import reduction
from .registry import Card, register


class TargetReaction(ReactionCheck):
    """A unit's Reaction for a Friendly Unit Within X of it (Hallucination: "the targeted Friendly Unit")."""

    order = 90

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next(iter(target_effects(a)), None)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        scn, say, a = chk.scn, chk.say, found.ability
        reach = min((x.within for x in target_effects(a) if x.within is not None), default=None)
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
            say(act, f"{at}: name the Friendly Unit {a.name!r} is for: for = one of {', '.join(mine) or 'the targets'}")
        elif act.targets and unit not in act.targets:
            say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
        elif reach is not None and not within_now(scn, chk.world, chk.pos, rx.unit, unit, reach):
            too_far(say, act, at, a, unit, rx.unit, reach, "a Friendly Unit")
        elif act.action == "charge" and not has_impact(scn.units[act.unit]):
            chk.warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")


@register
class TargetEffects(Card):
    kinds = TARGET_KINDS
    reaction_check = TargetReaction

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        self._saved: list[tuple[int, np.ndarray]] = []  # each unit's ``used`` bits before, per switch

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def react_begin(self, act: Activation, trials: np.ndarray) -> None:
        """Switch on, for the activation ``act``, the target effects of the opponent's Reactions answering it."""
        sim, saved = self.sim, self._saved
        for rx in act.react:
            if rx.player == act.player:
                continue  # the Active Player's own units are not attacked in their activation
            found = find(sim.scn, rx.unit, rx.use)
            if found is None or reduction(found.ability) is not None:
                continue  # a Total Damage reduction is its card's (cards/damage_reduction.py)
            effects = target_effects(found.ability)
            if not effects:
                continue
            if any(e.within is not None for e in effects) and not found.card:
                for_friend(sim, act, rx, found, effects, trials, saved)
                continue
            r = sim.uids.index(rx.unit)
            saved.append((r, sim.used[r, trials].copy()))
            sim.used[r, trials] |= use_bits(sim, r, [found.ability.name])

    def react_end(self, trials: np.ndarray) -> None:
        """The activation is over: the target effects end (what the units used before stays)."""
        for r, old in reversed(self._saved):
            self.sim.used[r, trials] = old
        self._saved.clear()


def for_friend(
    sim: SimView,
    act: Activation,
    rx: Reaction,
    found: Found,
    effects: list[Effect],
    trials: np.ndarray,
    saved: list[tuple[int, np.ndarray]],
) -> None:
    """A unit's Reaction whose target effects are for a Friendly Unit Within ``within`` of it (Hallucination: "When
    an Enemy Unit declares a Ranged Attack against a Friendly Unit Within 4\", the targeted Friendly Unit is
    eligible to make an Evade Roll"): switched on for that unit (:func:`protected`: ``for``, or the one planned
    target of the reacting player; the reacting unit itself included) in the games where it is Within that
    distance (both on the table); the others are counted in the skip report."""
    name = protected(sim.scn, act, rx, found)
    if name is None:
        return
    q, r = sim.uids.index(name), sim.uids.index(rx.unit)
    within = min(float(e.within) for e in effects if e.within is not None)
    plain = [e.model_copy(update={"within": None}) for e in effects]
    bit = use_bits(sim, q, [inflicted(sim, found, plain, rx.unit)])
    saved.append((q, sim.used[q, trials].copy()))
    hit = near_games(sim, trials, r, q, within)
    sim.used[q, trials[hit[trials]]] |= bit
    sim.skip(
        act,
        trials.size - int(hit[trials].sum()),
        f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {name} not Within {within:g}\" of it, or one of "
        "them not on the table (10.4)",
    )


# ----------------------------------------------------------------------------------------------------------------------
# HIDDEN given by an ability used on the unit this Round (Path of Shadows: ``unit_keyword`` HIDDEN, part 11).
class TargetEffectsCheck(CardCheck):
    order = 130  # after the Burrowed Status: a BURROWED unit is tagged Burrowed

    @staticmethod
    def hidden(chk: CheckView, unit: str) -> str | None:
        names = [n for (u, n), k in chk.used.items() if u == unit and k > 0]
        hid = any(
            e.kind == "unit_keyword" and e.keyword.upper() == "HIDDEN"
            for n in names
            if (f := find(chk.scn, unit, n)) is not None
            for e in f.ability.effects
        )
        return "Hidden" if hid else None


TargetEffects.plan_check = TargetEffectsCheck
