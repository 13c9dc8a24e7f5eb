"""SUMMON (part 11, 9.1.9; ``summon``): Roachling Infestation, Pylon Warp-In, Omega Network, Rapid Ingress. The
Summoned Units come from the scenario (``summoned_by``); Rapid Ingress's leaving is an End of the Round effect
(``cards/end_of_round.py``). The card also keeps a Summoned Unit out of the regular Deploy (9.1.9, the ``admit``
trigger) and has it Activate right after its Parent Unit (the ``activates_next`` trigger). That a Summoned Unit off
the table is not in Reserves is scenario data (``ScenarioUnit.summoned``, read by the end of the game and scoring)."""

from __future__ import annotations

import math

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ...board.ranks import CONTACT
from ...starcraft.schema import Ability, Effect
from ..abilities import far_from_enemies, is_structure
from ..checkview import CardCheck, CheckView, available, in_enemy_zone, need, within_now
from ..lookup import Found, card_abilities, unit_abilities, used_effects
from ..simview import SimView
from ..spec import Activation, Scenario, ScenarioUnit
from ..world import Coord, World
from .registry import Card, register


def summoning(scn: Scenario, su: ScenarioUnit) -> list[Effect]:
    """The ``summon`` effects of the ability that sets the Summoned Unit ``su``."""
    where = scn.units[su.parent] if su.parent else None
    for f in card_abilities(scn, su.player) if where is None else [Found(a) for a in unit_abilities(where)]:
        if f.ability.name == su.summoned_by:
            return [e for e in f.ability.effects if e.kind == "summon"]
    return []


#: SUMMON's Leading Model: the directions from the Parent Unit's Leading Model tried in turn (degrees from the way
#: away from the player's Entry Edge, counter-clockwise)
CONTACT_TURNS = (0, 90, 270, 45, 315, 135, 225, 180)


#: SUMMON's Base-to-Base contact: the bases' edges this far apart, at Base-to-Base contact's limit (``CONTACT``,
#: 0.05") and no nearer than :meth:`World.place` sets two bases (half its ``GAP``)
SUMMON_GAP = CONTACT + EPS / 2


def contact_leads(world: World, pid: int, su: ScenarioUnit, rear: Coord) -> list[Coord]:
    """Where SUMMON may set ``su``'s Leading Model "in Base-to-Base contact with the Parent Unit" (its Leading Model,
    placement ``pid``), in the order tried (:data:`CONTACT_TURNS`): bases :data:`SUMMON_GAP` apart."""
    (x, y), pr = world.placements[pid].centres[0], world._radius(pid)
    gap = pr + su.base_mm / MM_PER_INCH / 2 + SUMMON_GAP
    base = math.atan2(-rear[1], -rear[0])
    return [
        (x + gap * math.cos(base + math.radians(t)), y + gap * math.sin(base + math.radians(t))) for t in CONTACT_TURNS
    ]


def summoned_unit(scn: Scenario, act: Activation, a: Ability) -> str:
    """The Summoned Unit the activation's ability ``a`` sets (spec: one per Parent Unit and ability, one per card
    ability)."""
    return next(
        uid
        for uid, su in scn.units.items()
        if su.summoned_by == a.name and su.player == act.player and su.parent in ("", act.unit)
    )


@register
class Summon(Card):
    kinds = ("summon",)
    order = 40

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: Parent Unit -> the unit it summons (9.1.9, where the scenario names a ``parent``)
        self.child_of = {su.parent: su.id for su in sim.units if su.summoned and su.parent}
        #: per unit: a Summoned Unit (set only by its ability)
        self.summoned = [su.summoned for su in sim.units]

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """A Summoned Unit in the scenario, or an ability used that summons."""
        return any(su.summoned for su in scn.units.values()) or super().present(scn)

    def admit(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        """9.1.9: a Summoned Unit is set only by its ability: its planned Deploy is not made (skip report)."""
        if act.action == "deploy" and self.summoned[u]:
            self.sim.skip(act, trials.size, "a Summoned Unit is not Deployed by the regular rules (9.1.9)")
            return trials[:0]
        return trials

    def activates_next(self, act: Activation) -> str | None:
        """SUMMON: the Summoned Unit is "Activated immediately after its Parent Unit" (where the scenario names it)."""
        return self.child_of.get(act.unit)

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """The units the activation's abilities summon (``summon``), in the games ``fresh``, where the unit is not on
        the battlefield ("If there is no Friendly Pylon on the battlefield"; Roachling Infestation is "Once Per Game")
        and its Supply fits the Available Supply (8.3.2; 9.1.9: "If the Unit's Current Supply Value would cause Total
        Current Supply to exceed the Supply Pool, it cannot be Summoned"). It arrives as a new unit (every model, no
        Damage).

        SUMMON (part 11; no ``within``): "Set the Leading Model of the named Unit in Base-to-Base contact with the
        Parent Unit. Set remaining models In Coherency. Models cannot be set Within the Engagement Range of any Enemy
        Unit. Set an Activation Marker next to the summoned Unit": the Leading Model touching the Parent Unit's Leading
        Model, on the first side of ``contact_leads`` with room, the others behind it; counted as Activated in this
        Phase. With ``within`` (Pylon Warp-In, Omega Network: "anywhere on the GROUND LEVEL of the battlefield more
        than 10\\" away from any Enemy model"; Rapid Ingress: 1"): the Leading Model at the plan's ``summon_to``, no
        model Within ``within`` of an Enemy model. Games where it cannot be set: skip report.
        """
        sim = self.sim
        summons = used_effects(sim.scn, act, "summon")
        if not summons:
            return
        player = sim.units[u].player
        rear = sim.world.rear_of(player)
        for a, e in summons:
            v = sim.uids.index(summoned_unit(sim.scn, act, a))
            games = fresh[sim.pos[v, fresh] < 0]
            sim.skip(act, fresh.size - games.size, f"{sim.uids[v]!r} is on the battlefield already: not summoned")
            games = sim.available(v, act, games)
            if games.size == 0:
                continue
            sim.alive[v, games] = sim.full[v]
            sim.mark[v, games] = 0
            sim.shielded[v, games] = int(sim.shield(sim.units[v]) > 0)
            sim.used[v, games] = 0
            if e.within is None:
                got_l = []
                for (pu, ku), ts in sim.groups(games, [sim.row_pos(u), sim.row_alive(u)]):
                    if pu < 0 or ku <= 0:
                        continue
                    for i, lead in enumerate(contact_leads(sim.world, pu, sim.units[v], rear)):
                        last = i == len(CONTACT_TURNS) - 1
                        set_ = ts[sim.place(v, ts, lead, rear, act, quiet=not last, arriving=True)]
                        got_l.append(set_)
                        ts = np.setdiff1d(ts, set_)
                        if ts.size == 0:
                            break
                got = np.sort(np.concatenate(got_l)) if got_l else games[:0]
                inches = ENGAGEMENT_RANGE
            else:
                assert act.summon_to is not None
                got = games[sim.place(v, games, act.summon_to, rear, act, arriving=True)]
                inches = float(e.within)
            got = far_from_enemies(sim, v, act, got, inches, "not summoned")
            sim.ref_supply[v, got] += sim.supply(v, sim.alive[v, got])
            if e.within is None:
                sim.acted[v, got] = True  # "it cannot be Activated during the Phase in which it was summoned"


# ----------------------------------------------------------------------------------------------------------------------
# SUMMON (part 11, 9.1.9): Pylon Warp-In, Omega Network, Rapid Ingress; Structures.
class SummonCheck(CardCheck):
    @staticmethod
    def activates_next(scn: Scenario, act: Activation) -> str | None:
        """SUMMON: the Summoned Unit is "Activated immediately after its Parent Unit" (9.1.9)."""
        return next((su.id for su in scn.units.values() if su.summoned and su.parent == act.unit), None)

    order = 50
    kinds = ("summon",)

    @staticmethod
    def activation_ok(chk: CheckView, act: Activation) -> bool:
        """The activation of a Summoned Unit (9.1.9): never a Deploy ("Summoned Units cannot be deployed using the
        regular deployment rules"); a Structure never activates; SUMMON: not in the Phase it was summoned in ("Set an
        Activation Marker next to the summoned Unit") and, while the Parent Unit is on the table, planned right after
        the Parent Unit's own activation ("must be Activated immediately after its Parent Unit's activation ends").
        False: no further check of it."""
        scn, say = chk.scn, chk.say
        su = scn.units[act.unit]
        if is_structure(su):
            say(act, f"{act.unit!r} is a Structure: it cannot be Activated in any Phase and performs no action")
            return False
        if not su.summoned:
            return True
        if act.action == "deploy":
            say(act, f"{act.unit!r} is a Summoned Unit: set only by {su.summoned_by!r}, never Deployed (9.1.9)")
            return False
        if chk.summoned_at.get(act.unit) == (act.round, act.phase):
            say(act, f"{act.unit!r} was summoned in this Phase: it cannot be Activated in it (SUMMON, part 11)")
            return False
        if su.parent and su.parent in chk.pos:
            mine = scn.activations(act.round, act.phase, act.player)
            i = mine.index(act)
            if i == 0 or mine[i - 1].unit != su.parent:
                say(
                    act,
                    f"{act.unit!r} is Activated immediately after its Parent Unit {su.parent!r}: plan it right after "
                    f"{su.parent!r}'s activation in this Phase (SUMMON, part 11)",
                )
        return True

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """The units the activation's abilities summon, as :func:`abilities.summon` sets them: not on the battlefield
        already, within the Available Supply (8.3.2), set in Base-to-Base contact with the Parent Unit (SUMMON) or at
        ``summon_to`` (on the GROUND LEVEL, more than ``within`` from any Enemy model), not Within the Engagement Range
        of an Enemy Unit, not Within the opponent's Zone of Influence (8.3.3)."""
        scn, world, say, pos, pool = chk.scn, chk.world, chk.say, chk.pos, chk.pool
        for a, e in used_effects(scn, act, "summon"):
            uid = summoned_unit(scn, act, a)
            su = scn.units[uid]
            if uid in pos:
                say(act, f"use: {a.name!r}: {uid!r} is on the battlefield already (its text)")
                continue
            if pool is not None and need(su) > (left := available(scn, pos, act.player, pool)):
                say(act, f"use: {a.name!r}: {uid!r} needs Supply {need(su)}; Available Supply is {left} (8.3.2)")
                continue
            rear = world.rear_of(act.player)
            if e.within is None:
                if act.unit not in pos:
                    continue  # (named by the other checks)
                leads = contact_leads(world, pos[act.unit], su, rear)
                far = ENGAGEMENT_RANGE
            else:
                if act.summon_to is None:
                    say(act, f"use: {a.name!r} sets {uid!r} anywhere on the battlefield: give summon_to = [x, y]")
                    continue
                leads = [act.summon_to]
                far = float(e.within)
                if world.level_at(act.summon_to) is not None:
                    at = f"({act.summon_to[0]:g}, {act.summon_to[1]:g})"
                    say(
                        act, f"summon_to: {at} is on a terrain piece's top; {a.name!r} sets {uid!r} on the GROUND LEVEL"
                    )
                    continue
            # 8.3.3: an arrival, set out of the opponent's Zone of Influence; a contact side whose Leading Model's
            # point is Within it is passed over as the game passes it (``Movement.place``, quiet)
            zone = world.arrival_zone(act.player)
            placed = [
                p for lead in leads if (p := world.place(su, lead, rear, chk.occupied(uid), arriving=zone)) is not None
            ]
            pid = next((p for p in placed if not in_enemy_zone(world, uid, act.player, p)), None)
            lead = leads[0]
            if pid is None and placed:
                say(act, f"use: {a.name!r}: {uid!r} would be set Within the opponent's Zone of Influence (8.3.3)")
                continue
            if pid is None:
                say(act, f"use: {a.name!r}: no room to set {uid!r} at ({lead[0]:.2f}, {lead[1]:.2f})")
                continue
            near = [u for u in pos if scn.units[u].player != act.player and within_now(scn, world, pos | {uid: pid},
                                                                                          uid, u, far)]  # fmt: skip
            if near:
                say(act, f'use: {a.name!r}: {uid!r} would be set Within {far:g}" of {near[0]!r} (its text)')
                continue
            pos[uid] = pid
            chk.summoned_at[uid] = (act.round, act.phase)
        return False

    @staticmethod
    def reads(chk: CheckView, act: Activation) -> frozenset[str]:
        return frozenset({"summon_to"}) if used_effects(chk.scn, act, "summon") else frozenset()


Summon.plan_check = SummonCheck
