"""The per-card checks of the plan walk, one class per card or effect family (:class:`CardCheck`), registered in
:data:`FAMILIES` by the effect kinds they answer for; :class:`~.cards.CardChecks` calls their hooks at the walk's
trigger points, so the walk never names a card or an effect kind. Each class moves whole into its card's plug-in
module (its class and its line of :data:`FAMILIES`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS
from ...starcraft.schema import Ability, Effect
from ..abilities import (
    TOKEN_CONTACT,
    TOKEN_RADIUS,
    Found,
    card_effect,
    contact_leads,
    find,
    is_structure,
    recalled_by,
    recalls_self,
    summoned_unit,
    unit_effect,
    used_effect,
    used_effects,
)
from ..cards.burrow import burrow_change, never_burrowed
from ..spec import PHASES, PLAYERS, Activation
from ..world import edge_distance
from .attacks import AttackChecks
from .common import (
    _available,
    _need,
    _pid_in_enemy_zone,
    _State,
    _within_now,
)


class CardCheck:
    """One card or effect family's checks: the effect ``kinds`` it registers for and its hooks at the walk's trigger
    points, each given the walk state ``chk`` (:class:`~.common._State`). Every hook is optional (the defaults do
    nothing); :class:`CardChecks` calls them for every family of :data:`FAMILIES`, ``on_use`` only where ``act`` uses
    one of ``kinds``. A family moves whole into a card's plug-in module: its class and one line of :data:`FAMILIES`."""

    kinds: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def used(cls, chk: _State, act: Activation) -> bool:
        """An ability of ``act``'s ``use`` has an effect of one of ``kinds``."""
        return any(used_effect(chk.scn, act, k) is not None for k in cls.kinds)

    @staticmethod
    def round_start(chk: _State, rnd: int) -> None:
        """Start of Round ``rnd``, after the per-Round state is reset."""

    @staticmethod
    def activation_ok(chk: _State, act: Activation) -> bool:
        """Start of an activation, before its abilities: False ends the check of ``act``."""
        return True

    @staticmethod
    def use_ok(chk: _State, act: Activation, found: Found) -> None:
        """One Active ability of ``use`` (after the chapter 10 checks of the walk)."""

    @staticmethod
    def picked(chk: _State, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
        """``select`` names ``unit`` for ``a`` (its effects that select: ``picks``; the side and tags are checked):
        True where this family has checked the pick (10.1's range and table checks are then skipped)."""
        return False

    @staticmethod
    def after_select(chk: _State, act: Activation, acted: set[str], again: set[str]) -> None:
        """After the ``select`` checks; ``acted``, ``again``: as :meth:`~.walk.PlanCheck.activation`."""

    @staticmethod
    def after_reactions(chk: AttackChecks, act: Activation, engaged: bool) -> bool:
        """Every activation, after its Reactions (``engaged``: the unit is Engaged at this point of the plan): True
        where it moved a unit."""
        return False

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        """An ability of ``use`` sets a token or Faction Indicator (at ``token_at``)."""
        return False

    @staticmethod
    def token(chk: _State, act: Activation, xy: tuple[float, float]) -> None:
        """The token of ``act`` at ``xy``, on the battlefield (:meth:`sets_token` is True)."""

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        """``act`` uses one of ``kinds``, before its action: True ends the activation."""
        return False

    @staticmethod
    def before_action(chk: AttackChecks, act: Activation, engaged: bool) -> bool:
        """Every activation not ended by ``on_use``, before its action: True where it moved a unit."""
        return False

    @staticmethod
    def after_shoot(chk: AttackChecks, act: Activation) -> None:
        """After the checks of a Ranged Attack."""

    @staticmethod
    def instead_of_action(chk: _State, act: Activation, on: bool, engaged: bool) -> bool:
        """Before the action (``on``: the unit is on the table; ``engaged``: Engaged): True where an ability replaces
        the action (the activation ends there)."""
        return False


# ----------------------------------------------------------------------------------------------------------------------
# Creep Tumor tokens: Creep Spread, Excrete Creep, Spawn Creep Tumor; Living Glob of Tissue's STAY IN PLAY (7.3).
class CreepTumorCheck(CardCheck):
    kinds = ("creep_tumor",)

    @staticmethod
    def round_start(chk: _State, rnd: int) -> None:
        """7.3: tokens go at the end of the Round, unless STAY IN PLAY (Living Glob of Tissue)."""
        chk.tumors[:] = [t for t in chk.tumors if card_effect(chk.scn, t[1], "tokens_stay") is not None]

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        return used_effect(chk.scn, act, "creep_tumor") is not None

    @staticmethod
    def token(chk: _State, act: Activation, xy: tuple[float, float]) -> None:
        """The Creep Tumor token an ability of ``use`` sets (``creep_tumor``) at ``xy``: Within the ability's
        ``within`` of the player's Entry Edge or of a Creep Tumor the player set earlier (Creep Spread), or in
        Base-to-Base contact with the unit (Spawn Creep Tumor: its base edge at most ``TOKEN_CONTACT`` from a
        model's). Kept in ``tumors``."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        e = used_effect(scn, act, "creep_tumor")
        assert e is not None
        x, y = xy
        if e.within is not None:
            edge = world.edges[act.player]
            near_edge = edge_distance(edge, (x, y), scn.board.width, scn.board.depth) - TOKEN_RADIUS <= e.within + EPS
            near_tumor = any(
                p == act.player and math.dist(c, (x, y)) - 2 * TOKEN_RADIUS <= e.within + EPS for c, p in chk.tumors
            )
            if not (near_edge or near_tumor):
                say(
                    act,
                    f'token_at: ({x:g}, {y:g}) is not Within {e.within:g}" of the {edge} Entry Edge or of a Creep '
                    f"Tumor {act.player} set earlier (its text)",
                )
                return
        elif act.unit in pos:
            gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, (x, y), TOKEN_RADIUS)
            if gap > TOKEN_CONTACT:
                say(
                    act,
                    f'token_at: the token is {gap:.2f}" from {act.unit!r}; Base-to-Base contact is at most '
                    f'{TOKEN_CONTACT}" (its text: "in base-to-base contact with this Unit")',
                )
                return
        chk.tumors.append(((x, y), act.player))


# ----------------------------------------------------------------------------------------------------------------------
# Comsat Station: "Select one table edge that is not a player's Entry Edge. Until the End of the Round, Enemy Units
# cannot Deploy from that edge".
class EdgeBlockCheck(CardCheck):
    kinds = ("edge_block",)

    @staticmethod
    def round_start(chk: _State, rnd: int) -> None:
        """(table edge, the player who closes it) this Round, in any activation of the Round (the order of the two
        players' activations is read per game, 8.2.1); the enemy's Deploys by it: ``MoveChecks._deploy_edge_ok``."""
        scn = chk.scn
        chk.closed = [
            (a.edge, a.player)
            for ph in PHASES
            for p in PLAYERS
            for a in scn.activations(rnd, ph, p)
            if a.edge is not None and a.unit and used_effect(scn, a, "edge_block") is not None
        ]

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        """The plan's ``edge`` names the closed edge. An ``edge`` without such an ability:
        :meth:`CardChecks._stray_fields`."""
        entry = set(chk.world.edges.values())
        allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
        if act.edge is None or act.edge in entry:
            chk.say(
                act,
                f"edge: got {act.edge!r}; allowed: the table edge Comsat Station closes, not a player's Entry Edge: "
                f"{', '.join(allowed)}",
            )
        return False


# ----------------------------------------------------------------------------------------------------------------------
# Tokens for the End of the Round: Psionic Transfer's Shade, Ready for Dust-Off's and Ventral Sacs' Faction Indicator.
class EndTokenCheck(CardCheck):
    kinds = ("shade", "dust_off")

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        return used_effect(chk.scn, act, "shade") is not None or used_effect(chk.scn, act, "dust_off") is not None

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        """A token for the End of the Round at ``token_at`` (kept in ``ending``): Psionic Transfer's Shade "Wholly
        Within 12\" of any model in this Unit", Ready for Dust-Off's and Ventral Sacs' Faction Indicator "more than
        10\" away from any Enemy model" (at this point of the plan, full strength)."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        shade, drop = used_effect(scn, act, "shade"), used_effect(scn, act, "dust_off")
        if act.token_at is None or (shade is None and drop is None):
            return False
        xy = act.token_at
        if shade is not None:
            if act.unit not in pos:
                return False  # (named by the other checks)
            gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
            if gap + 2 * TOKEN_RADIUS > float(shade.within or 0) + EPS:
                say(act, f'token_at: the Shade token is not Wholly Within {shade.within:g}" of a model of {act.unit!r}')
                return False
        else:
            assert drop is not None
            for uid, pid in pos.items():
                if scn.units[uid].player != act.player:
                    gap = world.point_gap(pid, scn.units[uid].models, xy, TOKEN_RADIUS)
                    if gap <= float(drop.within or 0) + EPS:
                        say(
                            act,
                            f'token_at: the Faction Indicator is {gap:.1f}" from {uid!r}; more than {drop.within:g}" '
                            "from any Enemy model (its text)",
                        )
                        return False
        chk.ending.append(act)
        return False

    @staticmethod
    def picked(chk: _State, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
        """Ready for Dust-Off selects a unit in Reserves, Deployed at the End of the Round: a Ground Unit."""
        if not any(e.kind == "dust_off" for e in picks):
            return False
        su = chk.scn.units[unit]
        if "Ground" not in su.unit.card.combat_tags or su.flying:
            chk.say(act, f"select.{a.name}: {unit!r} is not a Ground Unit (its text: Deploy one Ground Unit)")
        return True


# ----------------------------------------------------------------------------------------------------------------------
# Force Field, Solid-Field Projectors.
class ForceFieldCheck(CardCheck):
    kinds = ("force_field",)

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        return used_effect(chk.scn, act, "force_field") is not None

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        """ "Set a Force Field token Within 8\" in an unoccupied space": ``token_at`` Within ``within`` of the unit and
        overlapping no base at this point of the plan (full strength). Kept in ``fields_now`` for the Round's Charges
        (with the Size of the units it stops)."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        e = used_effect(scn, act, "force_field")
        if e is None or act.token_at is None or act.unit not in pos:
            return False
        xy = act.token_at
        gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
        if gap > float(e.within or 0) + EPS:
            chk.say(act, f'token_at: the Force Field is {gap:.1f}" from {act.unit!r}; Within {e.within:g}" (its text)')
            return False
        on = [u for u, p in pos.items() if world.point_gap(p, scn.units[u].models, xy, TOKEN_RADIUS) < 0]
        if on:
            chk.say(
                act, f"token_at: the Force Field would overlap {on[0]!r}: it is set in an unoccupied space (its text)"
            )
            return False
        chk.fields_now.append((xy, e.value))
        return False


# ----------------------------------------------------------------------------------------------------------------------
# SUMMON (part 11, 9.1.9): Pylon Warp-In, Omega Network, Rapid Ingress; Structures.
class SummonCheck(CardCheck):
    kinds = ("summon",)

    @staticmethod
    def activation_ok(chk: _State, act: Activation) -> bool:
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
    def on_use(chk: _State, act: Activation) -> bool:
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
            if pool is not None and _need(su) > (left := _available(scn, pos, act.player, pool)):
                say(act, f"use: {a.name!r}: {uid!r} needs Supply {_need(su)}; Available Supply is {left} (8.3.2)")
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
            pid = next((p for lead in leads if (p := world.place(su, lead, rear, chk.occupied(uid))) is not None), None)
            lead = leads[0]
            if pid is None:
                say(act, f"use: {a.name!r}: no room to set {uid!r} at ({lead[0]:.2f}, {lead[1]:.2f})")
                continue
            near = [u for u in pos if scn.units[u].player != act.player and _within_now(scn, world, pos | {uid: pid},
                                                                                          uid, u, far)]  # fmt: skip
            if near:
                say(act, f'use: {a.name!r}: {uid!r} would be set Within {far:g}" of {near[0]!r} (its text)')
                continue
            if _pid_in_enemy_zone(world, uid, act.player, pid):
                say(act, f"use: {a.name!r}: {uid!r} would be set Within the opponent's Zone of Influence (8.3.3)")
            pos[uid] = pid
            chk.summoned_at[uid] = (act.round, act.phase)
        return False


# ----------------------------------------------------------------------------------------------------------------------
# Returned to Reserves (8.5.5): Mass Recall (a Faction Indicator's recall), Strap In!, Strategic Recall.
class ToReservesCheck(CardCheck):
    kinds = ("to_reserves",)

    @staticmethod
    def _recall(chk: _State, act: Activation) -> Effect | None:
        """Mass Recall's effect: a ``to_reserves`` with a ``within``."""
        return next((x for _, x in used_effects(chk.scn, act, "to_reserves") if x.within is not None), None)

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        return ToReservesCheck._recall(chk, act) is not None

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        """Mass Recall ("Set a Faction Indicator anywhere on the battlefield. All Friendly Protoss Units Within 6\" of
        this Faction Indicator are removed from the battlefield and returned to Reserves"), before the action: the
        units of :func:`recalled_by` on the table with a model Within 6" of ``token_at`` (full strength) leave ``pos``
        (8.5.5). True where the active unit is among them: its action is then an error unless a ``hold``."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        e = ToReservesCheck._recall(chk, act)
        if e is None or act.token_at is None:
            return False
        gone = [
            uid
            for uid in recalled_by(scn, act, e)
            if uid in pos
            and world.point_gap(pos[uid], scn.units[uid].models, act.token_at, TOKEN_RADIUS)
            <= float(e.within or 0) + EPS
        ]
        for uid in gone:
            del pos[uid]
        if act.unit in gone and act.action != "hold":
            chk.say(
                act, f"use: Mass Recall returns {act.unit!r} itself to Reserves before its {act.action}: plan a `hold`"
            )
        if act.unit in gone:
            chk.down.discard(act.unit)
        return act.unit in gone

    @staticmethod
    def instead_of_action(chk: _State, act: Activation, on: bool, engaged: bool) -> bool:
        """An ability that returns the unit to Reserves (Strap In!, Strategic Recall: "The active, Unengaged Ground
        Unit is returned to Reserves instead of performing an action"): planned on a ``hold``, for a Ground unit on the
        table and Unengaged at this point of the plan; it then goes back (8.5.5 UNITS RETURNED TO RESERVES: it may
        Deploy again). True: the activation ends (any Deploy aside)."""
        if act.action == "deploy" or not recalls_self(chk.scn, act):
            return False
        if ToReservesCheck._recall_ok(chk, act, on, on and engaged):
            del chk.pos[act.unit]
            chk.down.discard(act.unit)
        return True

    @staticmethod
    def _recall_ok(chk: _State, act: Activation, on: bool, engaged: bool) -> bool:
        say = chk.say
        name = next(a.name for a, _ in used_effects(chk.scn, act, "to_reserves"))
        ok = True
        if act.action != "hold":
            say(act, f"use: {name!r} returns the unit to Reserves instead of performing an action: plan it on a `hold`")
            ok = False
        if not on:
            say(act, f"use: {name!r}: {act.unit!r} is not on the table at this point of the plan")
            return False
        if chk.scn.units[act.unit].flying:
            say(act, f"use: {name!r} returns a Ground Unit to Reserves; {act.unit!r} is Flying")
            return False
        if engaged:
            say(act, f"use: {name!r} returns an Unengaged unit to Reserves; {act.unit!r} is Engaged at this point")
            return False
        return ok


# ----------------------------------------------------------------------------------------------------------------------
# Detection's Faction Indicators: Scanner Sweep, Surveillance, Oversight Mode (gone at the Cleanup, 8.9.5).
class DetectorCheck(CardCheck):
    kinds = ("detector",)

    @staticmethod
    def sets_token(chk: _State, act: Activation) -> bool:
        return used_effect(chk.scn, act, "detector") is not None

    @staticmethod
    def on_use(chk: _State, act: Activation) -> bool:
        eye = used_effect(chk.scn, act, "detector")
        if act.token_at is not None and eye is not None:
            chk.seen_by.append((act.token_at, act.player, float(eye.within or 0)))
        return False


# ----------------------------------------------------------------------------------------------------------------------
# The Burrowed Status (part 11 BURROWED): Burrow, Lie in Wait, Rapid Burrowing, Nasty Surprise, Tunneling Claws,
# Underdeveloped Claws.
class BurrowCheck(CardCheck):
    @staticmethod
    def use_ok(chk: _State, act: Activation, found: Found) -> None:
        abil, su = found.ability, chk.scn.units[act.unit]
        if burrow_change(abil) in ("gain", "toggle") and never_burrowed(su):
            chk.say(act, f"use: {abil.name!r}: {act.unit!r} cannot gain the Burrowed Status (its card)")

    @staticmethod
    def after_reactions(chk: AttackChecks, act: Activation, engaged: bool) -> bool:
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


# ----------------------------------------------------------------------------------------------------------------------
# Bound by the Khala: "the selected unit is Activated at once" (a later activation of this Phase).
class ActivateNextCheck(CardCheck):
    kinds = ("activate_next",)

    @staticmethod
    def picked(chk: _State, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
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


# ----------------------------------------------------------------------------------------------------------------------
# Orders: an option that removes the selected unit's Activation Marker (it activates again in this Phase).
class RemoveActivationCheck(CardCheck):
    kinds = ("remove_activation",)

    @staticmethod
    def after_select(chk: _State, act: Activation, acted: set[str], again: set[str]) -> None:
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


# ----------------------------------------------------------------------------------------------------------------------
# An extra Move before the action: Go! Go! Go!, Leg Enhancements (``extra_to``).
class ExtraMoveCheck(CardCheck):
    kinds = ("extra_move",)

    @staticmethod
    def after_reactions(chk: AttackChecks, act: Activation, engaged: bool) -> bool:
        """An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\" Move action") to the
        plan's ``extra_to``, before the action: the unit on the table and Unengaged (8.5.2), at most the ability's
        inches on its level, and a legal end (8.5.3). True where the unit moved (``pos`` updated)."""
        scn, world, say, warn, pos = chk.scn, chk.world, chk.say, chk.warn, chk.pos
        inches = [e.value for _, e in used_effects(scn, act, "extra_move")]
        if act.extra_to is None:
            if inches and act.action != "deploy":
                warn(act, "use: an extra Move with no extra_to = [x, y] (where its Leading Model ends): the unit stays")
            return False
        if not inches:
            say(act, "extra_to: no ability of use makes an extra Move (Go! Go! Go!, Leg Enhancements)")
            return False
        if act.unit not in pos:
            return False  # a deploy or a unit not on the table: named by the other checks
        if engaged:
            say(act, "extra_to: the unit is Engaged: it cannot Move (8.5.2, 8.7.1)")
            return False
        here = world.placements[pos[act.unit]]
        d = math.dist(here.centres[0], act.extra_to)
        if d > max(inches) + EPS:
            say(act, f'extra_to: moves {d:.1f}"; the extra Move is {max(inches)}" (its text)')
        return chk._set_unit(act, act.extra_to, here.level, "extra_to")


# ----------------------------------------------------------------------------------------------------------------------
# PLACE (X), part 11: Blink, Phase, Ready for Pickup? (``place_to``).
class PlaceCheck(CardCheck):
    kinds = ("place",)

    @staticmethod
    def before_action(chk: AttackChecks, act: Activation, engaged: bool) -> bool:
        """PLACE (X) of an ability of ``use`` (Blink, Phase, Ready for Pickup?) to the plan's ``place_to``: the Leading
        Model set Wholly Within X" of where it stands (its centre at most X away; part 11 PLACE), on the playmat, a
        legal end, not Within 1" of an enemy; "instead of performing a standard action" (Ready for Pickup?): the
        activation holds. True where the unit was set (``pos`` updated)."""
        scn, world, say, warn, pos = chk.scn, chk.world, chk.say, chk.warn, chk.pos
        places = [(a, e.value) for a, e in used_effects(scn, act, "place")]
        if act.place_to is None:
            if places and act.action != "deploy":
                warn(
                    act,
                    "use: a PLACE effect with no place_to = [x, y] (where its Leading Model is set): the unit stays",
                )
            return False
        if not places:
            say(act, "place_to: no ability of use resolves a PLACE effect (Blink, Phase, Ready for Pickup?)")
            return False
        for a, _ in places:
            if "instead of performing a standard action" in a.text.lower() and act.action != "hold":
                say(act, f"{a.name!r} resolves instead of a standard action (its text): the action must be hold")
            if a.text.lower().startswith("if unengaged") and engaged:
                say(act, f"place_to: the unit is Engaged; {a.name!r} resolves its PLACE only If Unengaged (its text)")
                return False
        if act.unit not in pos:
            return False
        reach = max(v for _, v in places)
        d = math.dist(world.placements[pos[act.unit]].centres[0], act.place_to)
        if d > reach + EPS:
            say(
                act,
                f'place_to: {d:.1f}" from the Leading Model; PLACE ({reach}) sets it Wholly Within {reach}" (part 11)',
            )
        return chk._set_unit(act, act.place_to, None, "place_to")


# ----------------------------------------------------------------------------------------------------------------------
# Lunge: the reacting unit's Move Directly Towards the attacking unit after its Ranged Attack.
class LungeCheck(CardCheck):
    kinds = ("lunge",)

    @staticmethod
    def after_shoot(chk: AttackChecks, act: Activation) -> None:
        """The opponent's Lunge after ``act``'s Ranged Attack (``lunge``): the reacting unit's Move Directly Towards the
        attacking unit (:meth:`World.toward`), where the plan has them, so that its later entries are read from
        there."""
        scn, world, pos, occupied = chk.scn, chk.world, chk.pos, chk.occupied
        for rx in act.react:
            found = find(scn, rx.unit, rx.use) if rx.player != act.player else None
            if found is None or rx.unit not in pos or act.unit not in pos:
                continue
            if not any(e.kind == "lunge" for e in found.ability.effects):
                continue
            su = scn.units[rx.unit]
            to = world.toward(pos[rx.unit], su.models, pos[act.unit], scn.units[act.unit].models, su.speed)
            if to is None:
                continue
            pid = world.place(su, to, world.rear_from(pos[rx.unit], to), occupied(rx.unit))
            if pid is not None:
                pos[rx.unit] = pid


#: The card and effect families, in the order their hooks run (``on_use``: Comsat Station's edge, the End of the Round
#: tokens, Force Field, summons, Mass Recall, then detection, as the plan walk always did).
FAMILIES: tuple[type[CardCheck], ...] = (
    CreepTumorCheck,
    EdgeBlockCheck,
    EndTokenCheck,
    ForceFieldCheck,
    SummonCheck,
    ToReservesCheck,
    DetectorCheck,
    BurrowCheck,
    ExtraMoveCheck,
    PlaceCheck,
    LungeCheck,
    ActivateNextCheck,
    RemoveActivationCheck,
)
