"""Effects of an Active ability on the unit it selects (10.1; the plan's ``select``): Orders (a second activation,
``remove_activation``; effects on the unit's own weapons and actions), Crushing Grip (``counts_activated``), Target
Lock (weapon effects for attacks at the selected enemy, ``sim.granted``, read by
:func:`~mathhammer.scenario.abilities.locked_by`), Domineering Presence (``contest_supply``, ``sim.granted``), HEAL
given to the selected unit (Medpack), and Bound by the Khala (``activate_next``: the selected unit Activates next,
:meth:`Selected.activates_next`, read by the Simulation's order of activations).

Per game and unit, in the current Phase, the card holds who counts as Activated by Crushing Grip
(:attr:`Selected.gripped`) and who may activate once more, its Activation Marker removed by Orders
(:attr:`Selected.again`); the Simulation reads them through the ``counts_activated`` and ``activate_again``
triggers, and ``begin_phase`` clears them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import (
    DEPLOY_KINDS,
    ENEMY_WEAPON_KINDS,
    FRIEND_KINDS,
    _pair_games,
    in_force,
    near_games,
    on_selected_weapons,
    select_reach,
)
from ..checkview import CardCheck, CheckView
from ..lookup import Grant, find, use_bits
from ..simview import SimView
from ..spec import Activation, Scenario
from .registry import Card, register


def heal(sim: SimView, u: int, q: int, games: np.ndarray, e: Effect) -> None:
    """HEAL (X) on unit ``q`` (part 11: "Remove X points of accumulated Damage from the Unit (reduce its Damage
    Marker accordingly). HEAL cannot return Destroyed models"); with ``per_model`` X is ``value`` for each model of
    unit ``u`` Within ``within`` of ``q`` (Medpack), counting ``per_model_bonus`` more (Stabilizer Medpacks)."""
    if not e.per_model:
        sim.mark[q, games] = np.maximum(0, sim.mark[q, games] - e.value)
        return
    assert e.within is not None
    bonus = sum(b.value for b in sim.effects(u, 0, "per_model_bonus"))
    for (pu, ku, pq, kq), ts in sim.groups(games, [sim.row_pos(u), sim.row_alive(u), sim.row_pos(q), sim.row_alive(q)]):
        n = sim.world.models_within(pu, ku, pq, kq, float(e.within)) if pu >= 0 and pq >= 0 else 0
        if n:
            sim.mark[q, ts] = np.maximum(0, sim.mark[q, ts] - e.value * (n + bonus))


@register
class Selected(Card):
    kinds = ("remove_activation", "counts_activated", "activate_next")

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: per unit and game, in the current Phase: counted as Activated by an enemy's ability (Crushing Grip)
        self.gripped = np.zeros((sim.U, sim.T), dtype=bool)
        #: ... may activate again, its Activation Marker removed (Orders)
        self.again = np.zeros((sim.U, sim.T), dtype=bool)

    def begin_phase(self) -> None:
        self.gripped[:] = False
        self.again[:] = False

    def counted_as_activated(self, u: int, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: does an enemy's Crushing Grip count unit ``u`` as Activated in this Phase?"""
        return self.gripped[u, games]

    def counts_activated(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        """The games of ``trials`` where no enemy's Crushing Grip counts unit ``u`` as Activated in this Phase (the
        others: skip report)."""
        gone = self.counted_as_activated(u, trials)
        if not gone.any():
            return trials
        self.sim.skip(act, int(gone.sum()), "the unit counts as Activated in this Phase (an enemy's Crushing Grip)")
        return trials[~gone]

    def activate_again(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray:
        """Per game of ``games`` (unit ``u`` has activated in this Phase there): may it activate once more, Orders
        having removed its Activation Marker? Each removal allows one more activation (spent here)."""
        ok = self.again[u, games]
        self.again[u, games[ok]] = False
        return ok

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return any(act.select for act in scn.plan)

    def select(self, u: int, act: Activation, here: np.ndarray) -> None:
        """The effects of the activation's Active abilities on the unit each selects (10.1; the plan's ``select``).

        In each game of ``here`` where the selected unit is on the table, Within ``within`` of unit ``u`` and, unless
        the text says "Line of Sight is not required", in its Line of Sight (10.1: "The target is in range and in
        Line of Sight"), the effect applies; the other games are counted in the skip report. ``counts_activated``
        (Crushing Grip: "That Unit counts as Activated in this Phase") takes away the unit's activation in this
        Phase where it has not activated yet; the others last until the end of the Round (``sim.granted``, 10.2):
        ``contest_supply`` for a Friendly Unit (Domineering Presence), weapon effects for attacks at an enemy
        (Target Lock: ``abilities.locked_by``), effects on the selected unit's own weapons and actions (Optical
        Flare, Orders: :func:`on_selected_weapons`, switched on in ``sim.used`` like an ability used on it), a second
        activation in the Phase (Orders' ``remove_activation``, where the unit has activated). Effects of an option
        (Orders) only where the plan's ``options`` chose it. The range is :func:`select_reach` (A-13: 16").
        """
        sim = self.sim
        for name, picked in act.select:
            found = find(sim.scn, act.unit, name)
            effects = (
                [
                    e
                    for e in found.ability.effects
                    if e.select and e.kind not in ("activate_next", *DEPLOY_KINDS) and in_force(e, act.options)
                ]
                if found
                else []
            )
            if found is None or not effects:
                continue  # (Bound by the Khala changes the order of activations: Simulation.order)
            q = sim.uids.index(picked)
            reach, sight = select_reach(sim.scn, act.unit, found.ability)
            ok = near_games(sim, here, u, q, reach)
            if sight:
                for sel, world in sim.grass.by_world(here):  # 7.1 Line of Sight, without the Grass removed (part 11)
                    part = here if sel is None else here[sel]
                    ok[part] &= _pair_games(sim, part, u, q, world.in_sight)[part]
            games = here[ok[here]]
            if games.size < here.size:
                sim.skip(
                    act,
                    here.size - games.size,
                    f'{name!r} not resolved: {picked!r} not on the table Within {reach:g}"'
                    + (" and in Line of Sight" if sight else "")
                    + " (10.1)",
                )
            weapons = on_selected_weapons(found, act.unit, act.options)
            if weapons is not None:  # until the End of the Round: on the unit's weapons like an ability used on it
                sim.inflicted.setdefault(weapons.name, weapons)
                sim.used[q, games] |= use_bits(sim, q, [weapons.name])
            for e in effects:
                if e.kind in ENEMY_WEAPON_KINDS or (e.select == "friendly" and e.kind in FRIEND_KINDS):
                    continue
                if e.kind == "remove_activation":  # Orders: "Remove the Activation Marker from that Unit"
                    self.again[q, games[sim.acted[q, games]]] = True
                elif e.kind == "counts_activated":
                    self.gripped[q, games[~sim.acted[q, games]]] = True
                elif e.kind == "heal":
                    heal(sim, u, q, games, e)
                else:
                    sim.granted.append(Grant(q, e, games, u, found.ability))

    def activates_next(self, act: Activation) -> str | None:
        """The unit an ability of ``act`` selects to Activate next (``activate_next``; Bound by the Khala: "At the end
        of the active Unit's Activation, select one other Friendly Unit eligible to Activate in the current Phase.
        Immediately Activate that Unit"), or None: the plan check's reading (:meth:`SelectedCheck.activates_next`)."""
        return SelectedCheck.activates_next(self.sim.scn, act)


# ----------------------------------------------------------------------------------------------------------------------
# Bound by the Khala (``activate_next``: "the selected unit is Activated at once", a later activation of this
# Phase) and Orders (``remove_activation``: an option that removes the selected unit's Activation Marker).
class SelectedCheck(CardCheck):
    order = 120
    kinds = ("activate_next", "remove_activation")

    @staticmethod
    def activates_next(scn: Scenario, act: Activation) -> str | None:
        """Bound by the Khala: the unit selected by an ability of ``act`` with an ``activate_next`` effect."""
        for name, chosen in act.select:
            found = find(scn, act.unit, name)
            if found is not None and any(e.kind == "activate_next" for e in found.ability.effects):
                return chosen
        return None

    @staticmethod
    def picked(chk: CheckView, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
        if not any(e.kind == "activate_next" for e in picks):
            return False
        later = list(chk.scn.activations(act.round, act.phase, act.player))
        rest = later[later.index(act) + 1 :]
        cut = next((i for i, x in enumerate(rest) if x.action == "pass"), len(rest))
        if not any(x.unit == unit for x in rest[:cut]):
            chk.say(
                act,
                f"select.{a.name}: {unit!r} has no planned activation later in this Phase (the unit Activated "
                "at once: plan it after this one)",
            )
        return True

    @staticmethod
    def after_select(chk: CheckView, act: Activation, acted: set[str], again: set[str]) -> None:
        for name, unit in act.select:
            found = find(chk.scn, act.unit, name)
            if found and any(e.kind == "remove_activation" and e.option in act.options for e in found.ability.effects):
                if unit in acted:
                    again.add(unit)
                else:
                    chk.warn(
                        act,
                        f"select.{name}: {unit!r} has not activated yet in this Phase: no Activation Marker to remove",
                    )


Selected.plan_check = SelectedCheck
