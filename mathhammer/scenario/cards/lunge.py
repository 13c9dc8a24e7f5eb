"""Lunge (``lunge``, a Reaction): "When another Friendly Unit Within 10\\" is the target of a Ranged Attack, after the
attack is fully resolved, this Unit, if Unengaged, may perform a Move action Directly Towards the attacking Unit"."""

from __future__ import annotations

import numpy as np

from ..abilities import guarding, near_games
from ..checkview import CardCheck, CheckView
from ..lookup import find
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class Lunge(Card):
    kinds = ("lunge",)
    #: the last Ranged Attack's Lunges: where each reacting unit's trigger held as it was declared (:meth:`react_begin`)
    held: tuple[Activation, dict[str, np.ndarray]] | None = None

    @classmethod
    def present(cls, scn: Scenario) -> bool:  # a Reaction: planned in ``react``, not ``use``; or an automatic player's
        if scn.policies and cls.anywhere(scn, cls.kinds):  # (players/reactions.py declares it in play)
            return True
        return any(
            e.kind == "lunge"
            for act in scn.plan
            for rx in act.react
            if (found := find(scn, rx.unit, rx.use)) is not None
            for e in found.ability.effects
        )

    def react_begin(self, act: Activation, trials: np.ndarray) -> None:
        """The Lunges' trigger, read as the attack is declared (10.4: "When another Friendly Unit Within 10\" is the
        target of a Ranged Attack"): the games where the protected unit (``for``, else the activation's one planned
        target of that player) is Within ``within`` of the reacting unit, both on the table, kept for
        :meth:`after_attack` (the attack may destroy the protected unit; the Move still follows)."""
        if act.action != "shoot" or not act.react:
            return
        sim, held = self.sim, {}
        for rx, _, e, p in guarding(sim, act, "lunge"):
            h, q = sim.uids.index(rx.unit), sim.uids.index(p)
            mask = np.zeros(sim.T, dtype=bool)
            mask[trials[near_games(sim, trials, h, q, float(e.within or 0))[trials]]] = True
            held[rx.unit] = mask
        self.held = (act, held)

    def after_attack(self, u: int, act: Activation, trials: np.ndarray) -> None:
        """The opponent's Lunges after ``act``'s Ranged Attack, in the games where the trigger held as the attack was
        declared (:meth:`react_begin`) and the reacting unit, still on the table, is Unengaged ("if Unengaged", read
        now). The Move: straight at the attacking unit's nearest live model, the maximum possible distance (FAQ v1.0):
        at most its Speed, short of its Engagement Range, as far along its way as the unit can be set with the game's
        other units where they stand (:meth:`World.toward_end`), set as a Move is; the games where it cannot move are
        in the skip report."""
        sim = self.sim
        kept = self.held
        held = kept[1] if kept is not None and kept[0] is act else {}
        for rx, found, e, p in guarding(sim, act, "lunge"):
            h = sim.uids.index(rx.unit)
            mask = held.get(rx.unit)
            fired = trials[mask[trials]] if mask is not None else trials[:0]
            name = f"{rx.unit}'s Reaction {found.ability.name!r}"
            why = f'not Within {e.within:g}" of it, or one of them not on the table, as the attack was declared (10.4)'
            sim.skip(act, trials.size - fired.size, f"{name} not triggered: {p} {why}")
            here = fired[(sim.pos[h, fired] >= 0) & (sim.alive[h, fired] > 0)]
            sim.skip(act, fired.size - here.size, f"{name}: {rx.unit} destroyed by the attack")
            engaged = sim.engaged_mask(here, h)
            games = here[~engaged]
            sim.skip(act, here.size - games.size, f'{name}: {rx.unit} Engaged after the attack ("if Unengaged")')
            speed, stuck = float(sim.units[h].speed), 0
            rows = [sim.row_pos(v) for v in range(sim.U)]  # the other units' placements: the way and the end
            for key, ts in sim.groups(games, [*rows, sim.row_alive(h), sim.row_alive(u)]):
                ph, pu, kh, ku = key[h], key[u], key[-2], key[-1]
                occupied = tuple(p for v, p in enumerate(key[: sim.U]) if v != h and p >= 0)
                to = sim.world.toward_end(ph, kh, pu, ku, speed, occupied) if pu >= 0 and ku > 0 else None
                if to is None:
                    stuck += ts.size
                else:
                    sim.move_to(h, ts, to, act)
            sim.skip(act, stuck, f"{rx.unit}'s {found.ability.name!r}: no point Directly Towards {act.unit} it can "
                     "move to and be set at (8.5.3, FAQ v1.0)")  # fmt: skip


# ----------------------------------------------------------------------------------------------------------------------
# Lunge: the reacting unit's Move Directly Towards the attacking unit after its Ranged Attack.
class LungeCheck(CardCheck):
    order = 110
    kinds = ("lunge",)

    @staticmethod
    def after_shoot(chk: CheckView, act: Activation) -> None:
        """The opponent's Lunge after ``act``'s Ranged Attack (``lunge``): the reacting unit's Move Directly Towards the
        attacking unit (:meth:`World.toward_end`), where the plan has them, so that its later entries are read from
        there."""
        scn, world, pos, occupied = chk.scn, chk.world, chk.pos, chk.occupied
        for rx in act.react:
            found = find(scn, rx.unit, rx.use) if rx.player != act.player else None
            if found is None or rx.unit not in pos or act.unit not in pos:
                continue
            if not any(e.kind == "lunge" for e in found.ability.effects):
                continue
            su, others = chk.as_set(rx.unit), occupied(rx.unit)  # the models left (the walk's state)
            to = world.toward_end(pos[rx.unit], su.models, pos[act.unit], chk.as_set(act.unit).models, su.speed, others)
            if to is None:
                continue
            pid = world.place(su, to, world.rear_from(pos[rx.unit], to), others)
            if pid is not None:
                pos[rx.unit] = pid


Lunge.plan_check = LungeCheck
