"""Total Damage reduction Reactions (``reduce_damage``; 8.7.4 step 5 "Apply any Special Skills that reduce the Total
Damage"): Life Support, Transfusion, Dae'Uhl, Zealous Round (on the unit itself, while it is not Activated in the
Phase; where used it counts as Activated). Planned on the opponent's attack (``shoot``, ``charge`` with IMPACT,
``fight``) for the Friendly Unit it protects (:func:`~..abilities.protected`); in each game the reduction is read at
the start of the activation (:func:`reduction_for`, the ``react_begin`` trigger) and the engines use it once, at the
first Batch that deals Damage (``Target.damage_reduction``; the ``damage_reduction`` trigger of each chain of Batches
resolved). Zealous Round's "count this Unit as Activated in this Phase" is this card's per-game state
(:attr:`DamageReduction.counted`), read by the order of activations through the ``counts_activated`` trigger and
cleared by ``begin_phase``."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Ability, Effect
from ..abilities import find, has_impact, protected, unit_abilities
from ..checkview import CheckView, ReactionCheck, too_far, within_now
from ..lookup import Found
from ..simview import SimView
from ..spec import Activation, Reaction, Scenario
from .registry import Card, register


def reduction(a: Ability) -> Effect | None:
    """The ``reduce_damage`` effect of ``a`` (Life Support, Transfusion, Dae'Uhl), or None."""
    return next((e for e in a.effects if e.kind == "reduce_damage"), None)


class ReductionReaction(ReactionCheck):
    """The plan check of a Reaction reducing the Total Damage of a Friendly Unit (10.4)."""

    order = 50
    match = staticmethod(reduction)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        """10.4 + 8.7.4 step 5: a Reaction reducing the Total Damage of a Friendly Unit the activation attacks."""
        scn, say, a = chk.scn, chk.say, found.ability
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
        if e.costs_activation and rx.for_unit not in ("", rx.unit):
            say(act, f"{at}: {a.name!r} protects {rx.unit!r} itself (its text: this Unit), not {rx.for_unit!r}")
            return
        if act.targets and unit not in act.targets:
            say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
            return
        if not found.card and unit == rx.unit and not e.costs_activation:
            say(act, f"{at}: {a.name!r} protects another Friendly Unit (its text), not {rx.unit!r} itself")
            return
        tags = scn.units[unit].unit.card.combat_tags
        if e.vs_tags and not set(e.vs_tags) & set(tags):
            say(act, f"{at}: {a.name!r} is for a Friendly {' or '.join(e.vs_tags)} Unit; {unit!r} is not")
            return
        if e.within is not None and not within_now(scn, chk.world, chk.pos, rx.unit, unit, e.within):
            too_far(say, act, at, a, unit, rx.unit, e.within, "a Friendly Unit that suffers Damage")
            return
        if act.action == "charge" and not has_impact(scn.units[act.unit]):
            chk.warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")


@register
class DamageReduction(Card):
    kinds = ("reduce_damage",)
    reaction_check = ReductionReaction

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        # protected unit -> (Total Damage reduction per game, its minimum, its use counts the unit as Activated),
        # while a Reaction of the activation gives one
        self.reducing: dict[int, tuple[np.ndarray, int, np.ndarray | None]] = {}
        #: per unit and game, in the current Phase: counted as Activated by its own Reaction (Zealous Round, 10.4),
        #: set by the engines where the reduction was used (:meth:`Simulation.resolve`)
        self.counted = np.zeros((sim.U, sim.T), dtype=bool)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def react_begin(self, act: Activation, trials: np.ndarray) -> None:
        """The opponent's ``reduce_damage`` Reactions to ``act``: each protected unit's reduction
        (:func:`reduction_for`)."""
        sim = self.sim
        for rx in act.react:
            if rx.player == act.player:
                continue  # the Active Player's own units are not attacked in their activation
            found = find(sim.scn, rx.unit, rx.use)
            if found is None or reduction(found.ability) is None:
                continue
            p = protected(sim.scn, act, rx, found)
            if p is not None:
                q = sim.uids.index(p)
                amount, floor, costs = reduction_for(sim, act, rx, found, q, trials, self.counted)
                self.reducing[q] = (amount, floor, self.counted[q] if costs else None)

    def react_end(self, trials: np.ndarray) -> None:
        self.reducing.clear()

    def damage_reduction(self, t: int) -> tuple[np.ndarray, int, np.ndarray | None] | None:
        return self.reducing.get(t)

    def begin_phase(self) -> None:
        self.counted[:] = False

    def counted_as_activated(self, u: int, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: has unit ``u`` used Zealous Round in this Phase (it counts as Activated)?"""
        return self.counted[u, games]

    def counts_activated(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        """The games of ``trials`` where unit ``u`` has not used Zealous Round in this Phase (10.4: "count this Unit
        as Activated in this Phase"); the others are counted in the skip report."""
        gone = self.counted_as_activated(u, trials)
        if not gone.any():
            return trials
        self.sim.skip(act, int(gone.sum()), "the unit counts as Activated in this Phase (Zealous Round, 10.4)")
        return trials[~gone]


def reduction_for(
    sim: SimView, act: Activation, rx: Reaction, found: Found, q: int, trials: np.ndarray, counted: np.ndarray
) -> tuple[np.ndarray, int, bool]:
    """Per game (an array of length ``sim.T``): the Total Damage reduction unit ``q`` has against the activation's
    attack; and its minimum (8.7.4 step 5; used once, at the first Batch that deals Damage: the engines).

    The trigger is read per game, at the start of the activation (neither unit moves in an enemy activation):
    the reacting unit and unit ``q`` on the table, ``q`` Within ``within`` of the reacting unit where the text
    says so ("suffers Damage Within 4\""); with ``per_model`` (Life Support) the reduction is ``value`` for each
    live model of the reacting unit Within ``within`` of ``q`` (none: not triggered), and ``per_model_bonus``
    models more (Stabilizer Medpacks). With ``costs_activation`` (Zealous Round: "When this Unit is not
    Activated ... count this Unit as Activated in this Phase"), only where the unit has not activated in this
    Phase (``counted``: the units counted as Activated by it already, per game); the third value says so, and
    :meth:`Simulation.resolve` then counts the unit as Activated in the games where the reduction was used (its
    activation later in the Phase does not happen). Games without the
    trigger get 0 and are counted in the skip report.
    """
    eff = reduction(found.ability)
    assert eff is not None
    amount = np.zeros(sim.T, dtype=np.int64)
    r = sim.uids.index(rx.unit)
    # Stabilizer Medpacks: "treat it as having 1 additional model Within Range" (the unit's passive upgrades)
    bonus = sum(e.value for a in unit_abilities(sim.units[r]) for e in a.effects if e.kind == "per_model_bonus")
    missed = 0
    cols: list[np.ndarray | int] = [sim.row_pos(r), sim.row_alive(r), sim.row_pos(q), sim.row_alive(q)]
    cols.append((sim.acted[q] | counted[q]).astype(np.int64) if eff.costs_activation else np.zeros(sim.T, np.int64))
    for (pr, kr, pq, kq, done), ts in sim.groups(trials, cols):
        value = 0
        if pr >= 0 and kr > 0 and pq >= 0 and kq > 0 and not done:
            if eff.per_model and eff.within is not None:
                n = sim.world.models_within(pr, kr, pq, kq, float(eff.within))
                value = eff.value * (n + bonus if n else 0)
            elif eff.within is None or r == q or sim.world.within(pr, kr, pq, kq, float(eff.within)):
                value = eff.value
        amount[ts] = value
        if value == 0:
            missed += ts.size
    why = f"{rx.unit} or {sim.uids[q]} not on the table"
    if eff.within is not None:
        why += f', or no model Within {eff.within:g}" of the other'
    if eff.costs_activation:
        why += ", or it is Activated in this Phase already"
    sim.skip(act, missed, f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {why} (10.4)")
    return amount, eff.minimum, eff.costs_activation
