"""Per-card checks of the plan walk: tokens and Faction Indicators, Force Field, summons, End of the Round effects
(8.9.4), recalls to Reserves, Comsat Station's closed edge, the Burrowed Status, selections. The checks an activation's
used effect kinds call are in :data:`CARD_CHECKS` (one entry per kind)."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS
from ..abilities import (
    TOKEN_CONTACT,
    TOKEN_RADIUS,
    burrow_change,
    contact_leads,
    find,
    is_structure,
    never_burrowed,
    on_selected_weapons,
    recalled_by,
    select_reach,
    summoned_unit,
    unit_effect,
    used_effect,
    used_effects,
)
from ..spec import PLAYERS, Activation
from ..world import edge_distance
from .attacks import AttackChecks
from .common import (
    _available,
    _collect,
    _end_of_round_player,
    _leaving,
    _need,
    _pid_in_enemy_zone,
    _within_now,
)


class CardChecks(AttackChecks):
    """Per-card checks of the plan walk: methods of :class:`~.walk.PlanCheck`."""

    def _check_token(self, act: Activation) -> None:
        """The Creep Tumor token an ability of ``use`` sets (``creep_tumor``) at the plan's ``token_at``: on the
        battlefield, Within the ability's ``within`` of the player's Entry Edge or of a Creep Tumor the player set
        earlier (Creep Spread), or in Base-to-Base contact with the unit (Spawn Creep Tumor: its base edge at most
        ``TOKEN_CONTACT`` from a model's). Kept in ``tumors``."""
        scn, world, say, warn, pos, tumors = self.scn, self.world, self.say, self.warn, self.pos, self.tumors
        e = used_effect(scn, act, "creep_tumor")
        # a Faction Indicator (Scanner Sweep, Mass Recall, Ready for Dust-Off) or a Shade: anywhere on the battlefield
        # (:func:`_end_token` reads where the last two may go)
        marker = (
            used_effect(scn, act, "detector")
            or used_effect(scn, act, "shade")
            or used_effect(scn, act, "dust_off")
            or used_effect(scn, act, "force_field")
            or next((x for _, x in used_effects(scn, act, "to_reserves") if x.within is not None), None)
        )
        if act.token_at is None:
            if e is not None or marker is not None:
                warn(act, "use: the ability sets a token or Faction Indicator: give token_at = [x, y] (its centre)")
            return
        if e is None and marker is None:
            say(
                act,
                "token_at: no ability of use sets a token (Creep Spread, Excrete Creep, Spawn "
                "Creep Tumor, Scanner Sweep, Surveillance, Oversight Mode, Mass Recall, Psionic "
                "Transfer, Ready for Dust-Off, Ventral Sacs, Force Field)",
            )
            return
        x, y = act.token_at
        w, d = scn.board.width, scn.board.depth
        if not (TOKEN_RADIUS <= x <= w - TOKEN_RADIUS and TOKEN_RADIUS <= y <= d - TOKEN_RADIUS):
            say(act, f'token_at: ({x:g}, {y:g}) puts the token off the battlefield ({w:g}" x {d:g}")')
            return
        if e is None:
            return
        if e.within is not None:
            edge = world.edges[act.player]
            near_edge = edge_distance(edge, (x, y), w, d) - TOKEN_RADIUS <= e.within + EPS
            near_tumor = any(
                p == act.player and math.dist(c, (x, y)) - 2 * TOKEN_RADIUS <= e.within + EPS for c, p in tumors
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
        tumors.append(((x, y), act.player))

    def _summoned_act_ok(self, act: Activation) -> bool:
        """The activation of a Summoned Unit (9.1.9): never a Deploy ("Summoned Units cannot be deployed using the
        regular deployment rules"); a Structure never activates; SUMMON: not in the Phase it was summoned in ("Set an
        Activation Marker next to the summoned Unit") and, while the Parent Unit is on the table, planned right after
        the Parent Unit's own activation ("must be Activated immediately after its Parent Unit's activation ends").
        False: no further check of it."""
        scn, say, pos, summoned_at = self.scn, self.say, self.pos, self.summoned_at
        su = scn.units[act.unit]
        if is_structure(su):
            say(act, f"{act.unit!r} is a Structure: it cannot be Activated in any Phase and performs no action")
            return False
        if not su.summoned:
            return True
        if act.action == "deploy":
            say(act, f"{act.unit!r} is a Summoned Unit: set only by {su.summoned_by!r}, never Deployed (9.1.9)")
            return False
        if summoned_at.get(act.unit) == (act.round, act.phase):
            say(act, f"{act.unit!r} was summoned in this Phase: it cannot be Activated in it (SUMMON, part 11)")
            return False
        if su.parent and su.parent in pos:
            mine = scn.activations(act.round, act.phase, act.player)
            i = mine.index(act)
            if i == 0 or mine[i - 1].unit != su.parent:
                say(
                    act,
                    f"{act.unit!r} is Activated immediately after its Parent Unit {su.parent!r}: plan it right after "
                    f"{su.parent!r}'s activation in this Phase (SUMMON, part 11)",
                )
        return True

    def _summon(self, act: Activation) -> None:
        """The units the activation's abilities summon, as :func:`abilities.summon` sets them: not on the battlefield
        already, within the Available Supply (8.3.2), set in Base-to-Base contact with the Parent Unit (SUMMON) or at
        ``summon_to`` (on the GROUND LEVEL, more than ``within`` from any Enemy model), not Within the Engagement Range
        of an Enemy Unit, not Within the opponent's Zone of Influence (8.3.3)."""
        scn, world, say, pos, occupied, pool, summoned_at = (
            self.scn,
            self.world,
            self.say,
            self.pos,
            self.occupied,
            self.pool,
            self.summoned_at,
        )
        found = used_effects(scn, act, "summon")
        for a, e in found:
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
            pid = next((p for lead in leads if (p := world.place(su, lead, rear, occupied(uid))) is not None), None)
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
            summoned_at[uid] = (act.round, act.phase)

    def _force_field(self, act: Activation) -> None:
        """Force Field, Solid-Field Projectors: "Set a Force Field token Within 8\" in an unoccupied space":
        ``token_at`` Within ``within`` of the unit and overlapping no base at this point of the plan (full strength).
        Kept in ``fields_now`` for the Round's Charges (with the Size of the units it stops)."""
        scn, world, say, pos, fields_now = self.scn, self.world, self.say, self.pos, self.fields_now
        e = used_effect(scn, act, "force_field")
        if e is None or act.token_at is None or act.unit not in pos:
            return
        xy = act.token_at
        gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
        if gap > float(e.within or 0) + EPS:
            say(act, f'token_at: the Force Field is {gap:.1f}" from {act.unit!r}; Within {e.within:g}" (its text)')
            return
        on = [u for u, p in pos.items() if world.point_gap(p, scn.units[u].models, xy, TOKEN_RADIUS) < 0]
        if on:
            say(act, f"token_at: the Force Field would overlap {on[0]!r}: it is set in an unoccupied space (its text)")
            return
        fields_now.append((xy, e.value))

    def _end_token(self, act: Activation) -> None:
        """A token for the End of the Round at ``token_at`` (kept in ``ending``): Psionic Transfer's Shade "Wholly
        Within 12\" of any model in this Unit", Ready for Dust-Off's and Ventral Sacs' Faction Indicator "more than 10\"
        away from any Enemy model" (at this point of the plan, full strength)."""
        scn, world, say, pos, ending = self.scn, self.world, self.say, self.pos, self.ending
        shade, drop = used_effect(scn, act, "shade"), used_effect(scn, act, "dust_off")
        if act.token_at is None or (shade is None and drop is None):
            return
        xy = act.token_at
        if shade is not None:
            if act.unit not in pos:
                return  # (named by the other checks)
            gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
            if gap + 2 * TOKEN_RADIUS > float(shade.within or 0) + EPS:
                say(act, f'token_at: the Shade token is not Wholly Within {shade.within:g}" of a model of {act.unit!r}')
                return
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
                        return
        ending.append(act)

    def _end_of_round(self) -> None:
        """The End of the Round (8.9.4): "The holder of the First Player Marker resolves their first. If a player has
        multiple "End of the Round" effects to resolve, that player chooses the order": a player's own in plan order
        (Rapid Ingress's removals first, then the tokens of ``ending``), as the simulation (``abilities.end_of_round``).
        Who holds the Marker is read per game, so where both players have effects the round is walked with each
        player first: a problem in both orders is an error, one in a single order a warning naming that order. The
        plan goes on from the walk with ``scn.first_player`` (red on a roll-off) first; ``ending`` is emptied."""
        scn, world, say, warn, pos, ending, pool = (
            self.scn,
            self.world,
            self.say,
            self.warn,
            self.pos,
            self.ending,
            self.pool,
        )
        has = {p for p in PLAYERS if any(a.player == p for a in ending) or any(_leaving(scn, pos, p))}
        first = scn.first_player if scn.first_player in PLAYERS else PLAYERS[0]
        orders = [(first, *(p for p in PLAYERS if p != first))]
        if len(has) > 1:
            orders.append(tuple(reversed(orders[0])))
        found: list[list[tuple[Activation, str]]] = []
        walked: list[dict[str, int]] = []
        for order in orders:
            now = dict(pos)
            out: list[tuple[Activation, str]] = []
            for player in order:
                _end_of_round_player(scn, world, _collect(out), now, ending, pool, player)
            found.append(out)
            walked.append(now)
        for act, msg in found[0]:
            if len(found) == 1 or (act, msg) in found[1]:
                say(act, msg)
            else:
                warn(act, f"{msg} (when {orders[0][0]} holds the First Player Marker and resolves first, 8.9.4)")
        if len(found) > 1:
            for act, msg in found[1]:
                if (act, msg) not in found[0]:
                    warn(act, f"{msg} (when {orders[1][0]} holds the First Player Marker and resolves first, 8.9.4)")
        after = walked[0]
        pos.clear()
        pos.update(after)
        ending.clear()

    def _mass_recall(self, act: Activation) -> bool:
        """Mass Recall ("Set a Faction Indicator anywhere on the battlefield. All Friendly Protoss Units Within 6\" of
        this Faction Indicator are removed from the battlefield and returned to Reserves"), before the action: the units
        of :func:`recalled_by` on the table with a model Within 6" of ``token_at`` (full strength) leave ``pos``
        (8.5.5). True where the active unit is among them: its action is then an error unless a ``hold``."""
        scn, world, say, pos = self.scn, self.world, self.say, self.pos
        e = next((x for _, x in used_effects(scn, act, "to_reserves") if x.within is not None), None)
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
            say(act, f"use: Mass Recall returns {act.unit!r} itself to Reserves before its {act.action}: plan a `hold`")
        return act.unit in gone

    def _recall_ok(self, act: Activation, on: bool, engaged: bool) -> bool:
        """An ability that returns the unit to Reserves (Strap In!, Strategic Recall: "The active, Unengaged Ground Unit
        is returned to Reserves instead of performing an action"): planned on a ``hold``, for a Ground unit on the table
        and Unengaged at this point of the plan. True: it goes back (8.5.5 UNITS RETURNED TO RESERVES)."""
        scn, say = self.scn, self.say
        name = next(a.name for a, _ in used_effects(scn, act, "to_reserves"))
        ok = True
        if act.action != "hold":
            say(act, f"use: {name!r} returns the unit to Reserves instead of performing an action: plan it on a `hold`")
            ok = False
        if not on:
            say(act, f"use: {name!r}: {act.unit!r} is not on the table at this point of the plan")
            return False
        if scn.units[act.unit].flying:
            say(act, f"use: {name!r} returns a Ground Unit to Reserves; {act.unit!r} is Flying")
            return False
        if engaged:
            say(act, f"use: {name!r} returns an Unengaged unit to Reserves; {act.unit!r} is Engaged at this point")
            return False
        return ok

    def _edge_block(self, act: Activation) -> None:
        """Comsat Station ("Select one table edge that is not a player's Entry Edge. Until the End of the Round, Enemy
        Units cannot Deploy from that edge"): the plan's ``edge`` names it (the enemy's Deploys by it: a warning of
        :meth:`_deploy_edge_ok`). An ``edge`` without such an ability: :meth:`_stray_fields`."""
        world, say = self.world, self.say
        entry = set(world.edges.values())
        allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
        if act.edge is None or act.edge in entry:
            say(
                act,
                f"edge: got {act.edge!r}; allowed: the table edge Comsat Station closes, not a player's Entry Edge: "
                f"{', '.join(allowed)}",
            )
            return

    def _burrow_ok(self, act: Activation, engaged: bool) -> bool:
        """Follow the Burrowed Status through the plan (``down``): the activation's abilities that change it (Burrow
        gains or loses it where the unit is Unengaged, Nasty Surprise removes it), then its action (a Move, Run or
        Disengage removes it; in the Combat Phase, Close Ranks does, where the policy makes it). False: the action is
        one a BURROWED unit cannot perform (a Ranged Attack, a Charge, a Gather; an Engaged BURROWED unit still fights,
        without attacking where the policy makes no Close Ranks)."""
        scn, down = self.scn, self.down
        for name in act.use:
            found = find(scn, act.unit, name)
            how = burrow_change(found.ability) if found else ""
            if how == "lose" or (how == "toggle" and not engaged and act.unit in down):
                down.discard(act.unit)
            elif how and not engaged and not never_burrowed(scn.units[act.unit]):
                down.add(act.unit)
        if act.unit not in down:
            return True
        tunnels = unit_effect(scn.units[act.unit], "burrowed_moves") is not None
        if (act.action in ("move", "run") and not tunnels) or act.action == "disengage":
            down.discard(act.unit)  # Tunneling Claws: "Move and Run actions without losing that Status"
        elif act.action == "fight" and scn.policy.close_ranks == "always":
            down.discard(act.unit)
        return act.action not in ("shoot", "charge", "gather")

    def _check_select(self, act: Activation) -> None:
        """10.1: an Active ability of ``use`` that selects a unit ("Select one Enemy Unit Within 12\"") names it in
        ``select``: a unit of the side its text asks for, on the table and Within range at this point of the plan.
        Its effects on the selected unit's weapons (Optical Flare) go into ``on_unit`` for the unit's shots."""
        scn, world, say, pos, on_unit = self.scn, self.world, self.say, self.pos, self.on_unit
        chosen = dict(act.select)
        for name in act.use:
            found = find(scn, act.unit, name)
            if found is None:
                continue  # the use check names it
            a = found.ability
            picks = [e for e in a.effects if e.select]
            unit = next((u for n, u in chosen.items() if n.strip().lower() == name.strip().lower()), None)
            if not picks:
                if unit is not None:
                    say(act, f"select: {a.name!r} selects no unit (its modelled effects are for {act.unit!r} itself)")
                continue
            side = picks[0].select
            mine = scn.units[act.unit].player
            ok = sorted(
                u for u, su in scn.units.items() if (su.player == mine) == (side == "friendly") and u != act.unit
            )
            if unit is None:
                say(
                    act,
                    f"select: {a.name!r} selects a{'n' if side == 'enemy' else ''} {side.title()} Unit (its text: "
                    f"{a.text!r}); name it: select = {{ {a.name!r} = one of {', '.join(ok) or 'none'} }}",
                )
                continue
            tags = {t for e in picks for t in e.vs_tags}
            if tags:  # "Select another Friendly Biological Unit"
                ok = [u for u in ok if tags & set(scn.units[u].unit.card.combat_tags)]
            if unit not in ok:
                say(act, f"select.{a.name}: got {unit!r}; allowed: {', '.join(ok) or 'none'} (its text: {a.text!r})")
                continue
            if any(e.kind == "dust_off" for e in picks):  # a unit in Reserves, Deployed at the End of the Round
                if "Ground" not in scn.units[unit].unit.card.combat_tags or scn.units[unit].flying:
                    say(act, f"select.{a.name}: {unit!r} is not a Ground Unit (its text: Deploy one Ground Unit)")
                continue
            if any(e.kind == "activate_next" for e in picks):  # Bound by the Khala: a later activation of this Phase
                later = list(scn.activations(act.round, act.phase, act.player))
                rest = later[later.index(act) + 1 :]
                cut = next((i for i, x in enumerate(rest) if x.action == "pass"), len(rest))
                if not any(x.unit == unit for x in rest[:cut]):
                    say(
                        act,
                        f"select.{a.name}: {unit!r} has no planned activation later in this Phase (the unit Activated "
                        "at once: plan it after this one)",
                    )
                continue
            if unit not in pos:
                say(act, f"select.{a.name}: {unit!r} is not on the table at this point of the plan (10.1)")
                continue
            reach, _ = select_reach(scn, act.unit, a)
            if act.unit in pos and not _within_now(scn, world, pos, act.unit, unit, reach):
                say(
                    act,
                    f'select.{a.name}: {unit!r} is not Within {reach:g}" of {act.unit!r} at this point of the plan '
                    "(10.1: the target is in range)",
                )
                continue
            weapons = on_selected_weapons(found, act.unit, act.options)
            if weapons is not None:
                on_unit[(unit, weapons.name)] = weapons

    def _stray_fields(self, act: Activation) -> None:
        """Fields of the plan that only a card's effect reads, given without one: ``edge`` (Comsat Station, or a
        Deploy by another table edge) and ``summon_to`` (a summon)."""
        scn, say = self.scn, self.say
        if (
            used_effect(scn, act, "edge_block") is None
            and act.edge is not None
            and (act.action != "deploy" or used_effect(scn, act, "deploy_edge") is None)
        ):
            say(
                act,
                "edge: only with an ability that Deploys from another table edge (Warp In, Armed and Ready) or "
                "closes one (Comsat Station)",
            )
        if act.summon_to is not None and not used_effects(scn, act, "summon"):
            say(act, "summon_to: no ability of use sets a unit anywhere (Pylon Warp-In, Omega Network, Rapid Ingress)")

    def card_checks(self, act: Activation) -> bool:
        """The per-card checks of the effect kinds ``act``'s abilities use (:data:`CARD_CHECKS`), in table order,
        each once. True where one ends the activation (Mass Recall returned the unit itself to Reserves)."""
        self._stray_fields(act)
        done: set[CardCheck] = set()
        stop = False
        for kind, check in CARD_CHECKS.items():
            if check in done or used_effect(self.scn, act, kind) is None:
                continue
            done.add(check)
            stop = bool(check(self, act)) or stop
        return stop


#: A per-card check of one activation: True where it ends the activation.
CardCheck = Callable[[CardChecks, Activation], "bool | None"]

# ----------------------------------------------------------------------------------------------------------------------
# The per-card checks by effect kind, called by :meth:`CardChecks.card_checks` for the kinds an activation's abilities
# use, in this order. One entry per card or effect family: each can move with its card into a plug-in module (one
# registration line) without touching the walk.
CARD_CHECKS: dict[str, CardCheck] = {
    "edge_block": CardChecks._edge_block,  # Comsat Station
    "shade": CardChecks._end_token,  # Psionic Transfer
    "dust_off": CardChecks._end_token,  # Ready for Dust-Off, Ventral Sacs
    "force_field": CardChecks._force_field,  # Force Field
    "summon": CardChecks._summon,  # SUMMON: Pylon Warp-In, Omega Network, Rapid Ingress
    "to_reserves": CardChecks._mass_recall,  # Mass Recall (a Faction Indicator's recall)
}
