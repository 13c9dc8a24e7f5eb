"""Burrow (part 11 BURROWED, a Status): the abilities that change it as they are used (Burrow: "it gains or loses the
Burrowed Status"; Lie in Wait, Rapid Burrowing: gain; Nasty Surprise: lose; :func:`burrow_change`).

The Status itself is a bit of ``sim.used`` that Cleanup keeps (:data:`BURROWED_STATUS`,
:func:`set_burrowed`, read by the actions: a Move, Run or Disengage ends it, unless Tunneling Claws'
``burrowed_moves``)."""

from __future__ import annotations

import re

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..checkview import CardCheck, CheckView
from ..lookup import Found, find, unit_abilities, unit_effect, use_bits
from ..simview import SimView
from ..spec import Activation, Scenario, ScenarioUnit
from .registry import Card, register

#: part 11 BURROWED, a Status: kept in ``sim.used`` as the bit of an ability standing for it, which Cleanup keeps
#: ("Unless stated otherwise, Statuses aren't removed during the Scoring and Cleanup Phase")
BURROWED_STATUS = "Burrowed (Status)"
_GAINS_OR_LOSES = re.compile(r"gains or loses the Burrowed Status", re.IGNORECASE)


def burrow_change(a: Ability) -> str:
    """How using ``a`` changes the Burrowed Status: ``"toggle"`` (Burrow: "it gains or loses the Burrowed Status"),
    ``"gain"`` (Lie in Wait, Rapid Burrowing: a ``unit_keyword`` BURROWED effect), ``"lose"`` (Nasty Surprise:
    ``lose_status``), or ""."""
    if any(e.kind == "lose_status" and e.keyword == "BURROWED" for e in a.effects):
        return "lose"
    if any(e.kind == "unit_keyword" and e.keyword.upper() == "BURROWED" for e in a.effects):
        return "toggle" if _GAINS_OR_LOSES.search(a.text) else "gain"
    return ""


def status_bit(sim: SimView, u: int) -> int:
    """The bit of ``sim.used`` that holds unit ``u``'s Burrowed Status."""
    if BURROWED_STATUS not in sim.inflicted:
        effect = Effect(kind="unit_keyword", keyword="BURROWED", against="all")
        sim.inflicted[BURROWED_STATUS] = Ability(
            name=BURROWED_STATUS, phase="any", type="passive", text="part 11 BURROWED (a Status)", effects=[effect]
        )
    return use_bits(sim, u, [BURROWED_STATUS])


def burrowed(sim: SimView, u: int, trials: np.ndarray) -> np.ndarray:
    """Per game of ``trials``: has unit ``u`` the Burrowed Status?"""
    if BURROWED_STATUS not in sim.abilities[u]:
        return np.zeros(trials.size, dtype=bool)
    return np.asarray((sim.used[u, trials] & status_bit(sim, u)) != 0)


def never_burrowed(su: ScenarioUnit) -> bool:
    """Can the unit never gain the Burrowed Status (a ``no_status`` BURROWED effect; Underdeveloped Claws: "This Unit
    cannot gain Burrowed Status")?"""
    return any(e.kind == "no_status" and e.keyword == "BURROWED" for a in unit_abilities(su) for e in a.effects)


def set_burrowed(sim: SimView, u: int, games: np.ndarray, on: bool) -> None:
    """Unit ``u`` gains (``on``; never one that cannot, :func:`never_burrowed`) or loses the Burrowed Status in
    ``games``."""
    if on and never_burrowed(sim.units[u]):
        return
    if not on and BURROWED_STATUS not in sim.abilities[u]:
        return
    bit = status_bit(sim, u)
    if on:
        sim.used[u, games] |= bit
    else:
        sim.used[u, games] &= ~bit


@register
class Burrow(Card):
    #: Nasty Surprise's ``lose_status``, Underdeveloped Claws' ``no_status``, Tunneling Claws' ``burrowed_moves`` (read
    #: by ``set_burrowed`` and the Move); Burrow and Lie in Wait change it by their text and ``unit_keyword`` BURROWED
    kinds = ("lose_status", "no_status", "burrowed_moves")
    order = 5  # after the effects on the unit itself, before the others (ON CREEP reads the Status)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """Always: the Status may be set by other means (a Deploy by Burrow Ambush's rules, a test); its ``use`` hook
        reads the abilities that change it (``sim.burrowers``) only where there are some."""
        return True

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """The activation's abilities that change the unit's Burrowed Status, in the games ``fresh`` (first use this
        Round). Gaining it asks the unit to be Unengaged (Burrow: "If this Unit is Unengaged"; Lie in Wait: "The
        active, Unengaged Ground Unit"): in the games where it is Engaged nothing changes (skip report)."""
        sim = self.sim
        if not sim.burrowers:
            return
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

    @classmethod
    def status_changer(cls, a: Ability) -> bool:
        """Burrow, Lie in Wait, Rapid Burrowing, Nasty Surprise (:func:`burrow_change`): no keyword of their own, the
        Status gives it."""
        return bool(burrow_change(a))

    def end_status(self, u: int, games: np.ndarray) -> None:
        """Part 11 BURROWED: a Move, Run or Disengage removes it (Tunneling Claws' ``keeps_status`` aside), and so does
        a return to Reserves."""
        set_burrowed(self.sim, u, games, False)

    def supply_for_mass(self, u: int, trials: np.ndarray, supply: np.ndarray) -> np.ndarray:
        """Part 11 BURROWED: "Its Current Supply Value is treated as 0 for Disengage checks" (8.5.4 Tactical Mass)."""
        return np.where(burrowed(self.sim, u, trials), 0, supply)

    def before_fight(self, u: int, trials: np.ndarray) -> np.ndarray:
        """Part 11 BURROWED: "The Unit may perform Close Ranks as its first step, which immediately removes the
        BURROWED status ... If the Unit does not or cannot perform Close Ranks, it does not attack": with ``[policy]
        close_ranks = "always"`` the Status goes, otherwise the unit does not attack where it has it (skip report)."""
        sim = self.sim
        down = burrowed(sim, u, trials)
        if not down.any():
            return trials
        if sim.scn.policy.close_ranks == "always":
            set_burrowed(sim, u, trials[down], False)
            return trials
        key = f"round {sim.round} combat: {sim.uids[u]}: BURROWED and no Close Ranks (policy): it does not attack"
        sim.skipped[key] = sim.skipped.get(key, 0) + int(down.sum())
        return trials[~down]

    def kept_bits(self, u: int) -> int:
        """Part 11 STATUS: "Unless stated otherwise, Statuses aren't removed during the Scoring and Cleanup Phase": the
        Burrowed Status bit of unit ``u`` (0 where it never had it)."""
        return status_bit(self.sim, u) if BURROWED_STATUS in self.sim.abilities[u] else 0

    def no_contest_bits(self, u: int) -> int:
        """Part 11 BURROWED: the unit "cannot Control or Contest Mission Markers": the Burrowed Status bit of unit
        ``u`` (0 where it never had it)."""
        return self.kept_bits(u)

    def keeps_status(self, u: int, act: Activation) -> bool:
        """Tunneling Claws (``burrowed_moves``): "it may perform the Move and Run actions without losing that
        Status"."""
        return bool(self.sim.effects(u, 0, "burrowed_moves"))

    def may_act(self, u: int, act: Activation, here: np.ndarray) -> np.ndarray:
        """Part 11 BURROWED: "the Unit may only perform Deploy, Move, Disengage, Run, Hold and Close Ranks actions": no
        Ranged Attack, Charge or Gather in the games where unit ``u`` has the Status (skip report)."""
        if act.action not in ("shoot", "charge", "gather"):
            return here
        down = burrowed(self.sim, u, here)
        if down.any():
            self.sim.skip(act, int(down.sum()), "the unit is BURROWED: it may only Move, Run, Disengage or Hold")
            here = here[~down]
        return here


# ----------------------------------------------------------------------------------------------------------------------
# The Burrowed Status (part 11 BURROWED): Burrow, Lie in Wait, Rapid Burrowing, Nasty Surprise, Tunneling Claws,
# Underdeveloped Claws.
class BurrowCheck(CardCheck):
    order = 80

    @staticmethod
    def use_ok(chk: CheckView, act: Activation, found: Found) -> None:
        abil, su = found.ability, chk.scn.units[act.unit]
        if burrow_change(abil) in ("gain", "toggle") and never_burrowed(su):
            chk.say(act, f"use: {abil.name!r}: {act.unit!r} cannot gain the Burrowed Status (its card)")

    @staticmethod
    def after_reactions(chk: CheckView, act: Activation, engaged: bool) -> bool:
        """Follow the Burrowed Status through the plan (``down``): the activation's abilities that change it (Burrow
        gains or loses it where the unit is Unengaged, Nasty Surprise removes it), then its action (a Move, Run or
        Disengage removes it; in the Combat Phase, Close Ranks does, where the policy makes it). An error where the
        action is one a BURROWED unit cannot perform (a Ranged Attack, a Charge, a Gather; an Engaged BURROWED unit
        still fights, without attacking where the policy makes no Close Ranks)."""
        scn, down = chk.scn, chk.down
        for name in act.use:
            found = find(scn, act.unit, name)
            how = burrow_change(found.ability) if found else ""
            if how == "lose" or (how == "toggle" and not engaged and act.unit in down):
                down.discard(act.unit)
            elif how and not engaged and not never_burrowed(scn.units[act.unit]):
                down.add(act.unit)
        if act.unit not in down:
            return False
        tunnels = unit_effect(scn.units[act.unit], "burrowed_moves") is not None
        if (act.action in ("move", "run") and not tunnels) or act.action == "disengage":
            down.discard(act.unit)  # Tunneling Claws: "Move and Run actions without losing that Status"
        elif act.action == "fight" and scn.policy.close_ranks == "always":
            down.discard(act.unit)
        if act.action in ("shoot", "charge", "gather"):
            chk.say(
                act,
                f"{act.unit!r} is BURROWED at this point of the plan (part 11 BURROWED: it may only "
                "Deploy, Move, Disengage, Run, Hold or Close Ranks); it loses the Status with Burrow "
                "again, Nasty Surprise, or a Move, Run or Disengage",
            )
        return False

    @staticmethod
    def hidden(chk: CheckView, unit: str) -> str | None:
        """A BURROWED unit (``down``) is HIDDEN (part 11 BURROWED)."""
        return "Burrowed" if unit in chk.down else None


Burrow.plan_check = BurrowCheck
