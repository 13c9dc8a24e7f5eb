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

    def after_attack(self, u: int, act: Activation, trials: np.ndarray) -> None:
        """The opponent's Lunges after ``act``'s Ranged Attack, in the games where the protected unit (``for``, else the
        activation's one planned target of that player) is Within ``within`` of the reacting unit, both on the table,
        and the reacting unit is Unengaged. The Move: straight at the attacking unit's nearest live model,
        the maximum possible distance (FAQ v1.0): at most its Speed, short of its Engagement Range, as far along its
        way as the unit can be set with the game's other units where they stand (:meth:`World.toward_end`), set as a
        Move is; the games where it cannot move are in the skip report."""
        sim = self.sim
        for rx, found, e, p in guarding(sim, act, "lunge"):
            h, q = sim.uids.index(rx.unit), sim.uids.index(p)
            near = near_games(sim, trials, h, q, float(e.within or 0))[trials] & ~sim.engaged_mask(trials, h)
            games = trials[near]
            sim.skip(
                act,
                trials.size - games.size,
                f"{rx.unit}'s Reaction {found.ability.name!r} not triggered: {p} not Within {e.within:g}\" of it, one "
                "of them not on the table, or it is Engaged (10.4)",
            )
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
            su, others = scn.units[rx.unit], occupied(rx.unit)
            to = world.toward_end(pos[rx.unit], su.models, pos[act.unit], scn.units[act.unit].models, su.speed, others)
            if to is None:
                continue
            pid = world.place(su, to, world.rear_from(pos[rx.unit], to), others)
            if pid is not None:
                pos[rx.unit] = pid


Lunge.plan_check = LungeCheck
