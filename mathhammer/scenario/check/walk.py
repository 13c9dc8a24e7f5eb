"""The plan walk of ``scenario check``: :class:`PlanCheck` walks rounds, phases and activations at full strength."""

from __future__ import annotations

import dataclasses
import math

from ...board.model import EPS, MM_PER_INCH
from ...errors import MathhammerError
from ...starcraft.loadout import make_loadout
from ..abilities import (
    CHARGE_KINDS,
    Purse,
    burrow_change,
    card_effect,
    choices,
    find,
    has_impact,
    needs_tag,
    never_burrowed,
    recalls_self,
    second_charge,
    used_effect,
)
from ..spec import PHASES, PLAYERS, Activation
from ..world import EDGE_REAR, edge_distance
from .common import (
    PHASE_TITLE,
    _again,
    _from_reserves,
    _in_enemy_zone,
    _need,
    _printed_limit,
    _tactical_mass,
    _within_now,
    cost_discount,
)
from .reactions import ReactionChecks


class PlanCheck(ReactionChecks):
    """The walk of a plan: rounds -> phases -> activations, each activation checked as written at full strength
    (the module docstring of :mod:`mathhammer.scenario.check` lists the rules). The walk state is :class:`_State`;
    the checks by concern are the methods of the base classes (moves, attacks, cards, reactions)."""

    def run(self) -> list[str]:
        """Every problem of the plan, one line each (an empty list: the plan is legal as written)."""
        for rnd in range(1, self.scn.mission.game_length + 1):
            self.round(rnd)
        return self.problems

    def round(self, rnd: int) -> None:
        """Round ``rnd``: its per-Round state, its Phases, then the End of the Round (8.9.4)."""
        scn, pos = self.scn, self.pos
        self.purses = {p: Purse(scn, p) for p in PLAYERS}  # every card Ready at the start of the Round (8.9.5)
        self.used = {}
        self.taken = set()
        self.seen_by.clear()  # 8.9.5: the Faction Indicators go at the Cleanup
        self.deployed = []
        self.via_used = {}
        self.ending = []
        self.fields_now = []
        # (table edge, the player who closes it) this Round: Comsat Station, in any activation of the Round (the
        # order of the two players' activations is read per game, 8.2.1)
        self.closed = [
            (a.edge, a.player)
            for ph in PHASES
            for p in PLAYERS
            for a in scn.activations(rnd, ph, p)
            if a.edge is not None and a.unit and used_effect(scn, a, "edge_block") is not None
        ]
        # 7.3: tokens go at the end of the Round, unless STAY IN PLAY (Living Glob of Tissue)
        self.tumors[:] = [t for t in self.tumors if card_effect(scn, t[1], "tokens_stay") is not None]
        self.on_unit = {}
        self.disengaged = {}
        self.pool = scn.mission.supply_pool(rnd)
        for phase in PHASES:
            if phase != "movement":
                self.exposed.update(pos)
            for player in PLAYERS:
                acted: set[str] = set()
                again: set[str] = set()  # units whose Activation Marker an ability removed (Orders)
                for act in scn.activations(rnd, phase, player):
                    self.activation(act, acted, again)
        self._end_of_round()

    def activation(self, act: Activation, acted: set[str], again: set[str]) -> None:
        """One activation of the plan; ``acted``: the player's units activated so far in this Phase, ``again``: those
        whose Activation Marker an ability removed."""
        scn, world, pos, say, warn, state, purses, seen_by, down, disengaged, problems = (
            self.scn,
            self.world,
            self.pos,
            self.say,
            self.warn,
            self.state,
            self.purses,
            self.seen_by,
            self.down,
            self.disengaged,
            self.problems,
        )
        player = act.player
        if act.action == "pass":
            if act.react:
                say(act, "react: a Pass triggers no Reaction (10.4: declared at the moment of a trigger)")
            if act.use:
                say(
                    act,
                    "use: a Pass activates no unit (8.2.1); an Active ability needs an activated unit (10.2)",
                )
            return
        su = scn.units[act.unit]
        if act.unit in again:
            again.discard(act.unit)  # its Activation Marker was removed: it activates again
        elif act.unit in acted:
            say(act, f"{act.unit!r} already activated in this phase (8.4.1, 8.6.1: one activation per unit)")
        acted.add(act.unit)
        on = act.unit in pos
        if not self._summoned_act_ok(act):
            return
        # abilities
        rx_off = self._reaction_discounts(act, purses[player])
        self._use(act, rx_off)
        if act.options and not any(
            (f := find(scn, act.unit, n)) is not None and any(e.option for e in f.ability.effects) for n in act.use
        ):
            say(act, "options: no ability of use offers options (Orders)")
        self._check_select(act)
        for name, unit in act.select:
            found = find(scn, act.unit, name)
            if found and any(e.kind == "remove_activation" and e.option in act.options for e in found.ability.effects):
                if unit in acted:
                    again.add(unit)
                else:
                    warn(
                        act,
                        f"select.{name}: {unit!r} has not activated yet in this Phase: no Activation Marker to remove",
                    )
        self._check_reactions(act)
        p_now, a_now = state()
        engaged_now = on and any(a == act.unit for a, _ in world.engaged_pairs(p_now, a_now))
        if not self._burrow_ok(act, engaged_now):
            say(
                act,
                f"{act.unit!r} is BURROWED at this point of the plan (part 11 BURROWED: it may only "
                "Deploy, Move, Disengage, Run, Hold or Close Ranks); it loses the Status with Burrow "
                "again, Nasty Surprise, or a Move, Run or Disengage",
            )
        if self._extra_move_ok(act, on and engaged_now):
            p_now, a_now = state()
        self._check_token(act)
        if self.card_checks(act):  # the per-card checks of the effect kinds used (cards.CARD_CHECKS)
            down.discard(act.unit)
            return
        if act.token_at is not None and (eye := used_effect(scn, act, "detector")) is not None:
            seen_by.append((act.token_at, act.player, float(eye.within or 0)))
        if self._place_ok(act, on and engaged_now):
            p_now, a_now = state()
        if act.action != "deploy" and recalls_self(scn, act):
            if self._recall_ok(act, on, on and engaged_now):
                del pos[act.unit]  # 8.5.5: back in Reserves, it may Deploy again
                down.discard(act.unit)
            return
        if act.action == "deploy":
            self._deploy(act, on)
            return
        if not on:
            if su.summoned:
                say(act, f"{act.unit!r} is not on the table: summon it first ({su.summoned_by}, 9.1.9)")
            else:
                say(act, f"{act.unit!r} is not on the table yet: Deploy it first (8.5.5)")
            return
        if act.action in ("shoot", "charge") and act.unit in disengaged:
            self._penalty(act, disengaged[act.unit])
        if act.action in ("move", "run", "disengage"):
            self._move(act, engaged_now, p_now, a_now)
        elif act.action == "shoot":
            lo_now = self._loadout_now(act.unit)
            hidden = self._hidden_now(act)
            self._check_shoot(act, p_now, a_now, lo_now, hidden)
            self._lunge_moves(act)
        elif act.action == "charge":
            self._charge(act, p_now, a_now)
        elif act.action == "gather" and not scn.mission.gather_action:
            say(act, f"the Gather Action belongs to Gather the Resources, not {scn.mission.name}")
        elif act.action == "fight":
            foes = {b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit}
            if not foes:
                problems.append(
                    f"warning: {scn.file}: {act.where}: {act.unit!r} is not Engaged in the "
                    "plan as written; it fights only in games where it is"
                )

    def _use(self, act: Activation, rx_off: dict[str, int]) -> None:
        """The Active abilities of ``use`` (chapter 10, 10.5)."""
        scn, world, pos, say, warn, purses, used, once, taken = (
            self.scn,
            self.world,
            self.pos,
            self.say,
            self.warn,
            self.purses,
            self.used,
            self.once,
            self.taken,
        )
        su, player, phase = scn.units[act.unit], act.player, act.phase
        for name in act.use:
            found = find(scn, act.unit, name)
            if found is None:
                say(
                    act,
                    f"use: got {name!r}; allowed: an Active ability of {su.unit.name} or of "
                    f"{player}'s cards: {', '.join(choices(scn, act.unit, 'active')) or 'none'}",
                )
                continue
            abil = found.ability
            if abil.type == "passive" and not any(e.kind == "deploy_place" for e in abil.effects):
                say(act, f"use: {abil.name!r} is Passive: always in effect, never used (2.7.2)")
                continue
            if abil.type == "passive" and act.action != "deploy":
                say(act, f"use: {abil.name!r} is resolved as the unit Deploys (its text): plan a `deploy`")
            if abil.type == "reaction":
                say(
                    act,
                    f"use: {abil.name!r} is a Reaction (2.7.3, 10.4): plan it in the `react` list of "
                    "the activation it answers",
                )
                continue
            if abil.phase not in (phase, "any"):
                say(
                    act,
                    f"use: {abil.name!r} is used in the {abil.phase.title()} Phase, not the {PHASE_TITLE[phase]}",
                )
            if act.action == "deploy" and not _from_reserves(su, abil):
                say(act, f"use: {abil.name!r}: a unit in Reserves uses no abilities (8.5.5, FAQ v1.0)")
            if _again(used, act.unit, abil):
                say(
                    act,
                    f"use: {abil.name!r} a second time this Round "
                    "(once per Round per unit unless REPEATABLE, 10.2"
                    + (", however many copies of the card, 10.2" if found.card else "")
                    + ")",
                )
            over = _printed_limit(found, act.unit, player, act.round, act.where, once)
            if over:
                say(act, f"use: {over}")
            if not abil.effects:
                warn(
                    act,
                    f"use: {abil.name!r} has no modelled effect (no machine-readable effect); "
                    "the simulation ignores it",
                )
            elif all(e.kind in CHARGE_KINDS for e in abil.effects):
                if act.action != "charge":
                    warn(
                        act,
                        f"use: {abil.name!r} acts on a Charge (8.7.7); this {act.action} makes none, "
                        "so the simulation ignores it",
                    )
                elif all(e.kind != "charge_roll" for e in abil.effects) and not has_impact(su):
                    warn(
                        act,
                        f"use: {abil.name!r} changes IMPACT; {act.unit!r} resolves none after a Charge, "
                        "so the simulation ignores it",
                    )
            if burrow_change(abil) in ("gain", "toggle") and never_burrowed(su):
                say(act, f"use: {abil.name!r}: {act.unit!r} cannot gain the Burrowed Status (its card)")
            tag = needs_tag(abil) if found.card else ""
            if tag and tag not in su.unit.card.combat_tags:
                say(act, f"use: {abil.name!r} ({found.card}) is for a {tag} Unit; {act.unit!r} is not")
            priced = {e.option: e.option_cost for e in abil.effects if e.option}
            if priced and not act.options:
                say(
                    act,
                    f"use: {abil.name!r} applies one of its options: name them, options = [...] (allowed: "
                    + ", ".join(f"{o!r} ({c} {abil.resource})" for o, c in priced.items())
                    + ")",
                )
            for o in act.options if priced else ():
                if o not in priced:
                    say(act, f"options: got {o!r}; allowed: {', '.join(map(repr, priced))} ({abil.name})")
            off = cost_discount(scn, world, pos, act.unit, found, rx_off, taken)
            why = purses[player].pay(found, act.options, off)
            if why:
                say(act, f"use: {why}")
            if not found.card:
                try:
                    make_loadout(su.unit, su.models, [u.name for u in su.loadout.upgrades], [abil.name])
                except MathhammerError as exc:
                    say(act, f"use: {exc}")

    def _deploy(self, act: Activation, on: bool) -> None:
        """8.5.5 Deploy (8.3.2, 8.3.3)."""
        scn, world, pos, say = self.scn, self.world, self.pos, self.say
        occupied, why_not, deployed = self.occupied, self.why_not, self.deployed
        su, player = scn.units[act.unit], act.player
        if on:
            say(act, f"{act.unit!r} is already on the table (8.5.5: Deploy brings a unit from Reserves)")
            return
        assert act.to is not None
        self._supply_ok(act, _need(su))
        away = used_effect(scn, act, "deploy_edge")
        placer = used_effect(scn, act, "deploy_place")  # Burrow Ambush, Rapid Reinforcements
        edge = self._deploy_edge_ok(act, away)
        edge = edge or world.edges[player]
        deployed.append((act.unit, player))
        reach = su.speed + su.base_mm / MM_PER_INCH / 2
        d = edge_distance(edge, act.to, scn.board.width, scn.board.depth)
        if not self._level_ok(act):
            return
        via_rear = self._via_ok(act) if act.via is not None else None
        if placer is not None:
            self._place_start(act, placer)
        elif act.via is not None:
            pass  # the distance from the base: _via_ok
        elif act.on is not None:
            self._route_ok(act, None, None, reach)
        elif d > reach + EPS:
            which = "Entry Edge" if edge == world.edges[player] else "table edge it enters by"
            say(
                act,
                f'the Leading Model ends {d:.1f}" from the {edge} {which}; at most Speed {su.speed}" (8.5.5)',
            )
        rear = EDGE_REAR[edge] if edge != world.edges[player] else world.rear_of(player)
        rear = via_rear or rear
        pid = world.place(su, act.to, rear, occupied(act.unit), on=act.on)
        far = away or placer
        if pid is not None and far is not None and far.within is not None:
            enemies = [u for u in pos if scn.units[u].player != player]
            if any(_within_now(scn, world, pos | {act.unit: pid}, act.unit, f, far.within) for f in enemies):
                say(act, f'ends Within {far.within:g}" of an Enemy model (its ability asks for more)')
        if pid is not None and placer is not None:
            self._place_end(act, placer, pid)
        if _in_enemy_zone(world, act, pid):
            say(act, "ends Within the opponent's Zone of Influence (8.3.3)")
        if pid is None:
            say(act, why_not(act, act.to))
        else:
            pos[act.unit] = pid
        return

    def _move(self, act: Activation, engaged_now: bool, p_now: tuple[int, ...], a_now: tuple[int, ...]) -> None:
        """A Move, Run or Disengage (8.5.2-8.5.4)."""
        scn, world, pos, say, occupied, why_not, down, exposed, disengaged = (
            self.scn,
            self.world,
            self.pos,
            self.say,
            self.occupied,
            self.why_not,
            self.down,
            self.exposed,
            self.disengaged,
        )
        su = scn.units[act.unit]
        lead = world.placements[pos[act.unit]].centres[0]
        assert act.to is not None
        if act.action == "disengage" and not engaged_now:
            say(act, "the unit is not Engaged: Move instead (8.5.4 Disengage is for an Engaged unit)")
        if act.action != "disengage" and engaged_now:
            say(act, "the unit is Engaged: it cannot Move or Run; Disengage instead (8.5.2, 8.7.1)")
        if not self._level_ok(act):
            return
        if act.action == "disengage" and engaged_now:
            held = [b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit]
            mass = _tactical_mass(scn, act.unit, held, down, exposed)
            if mass is not None:
                disengaged[act.unit] = mass
        d = math.dist(lead, act.to)
        start_level = world.placements[pos[act.unit]].level
        speed, _ = self._speed_now(act)  # Stimpack: BUFF Speed
        if start_level != act.on:
            self._route_ok(act, lead, start_level, speed)
        elif d > speed + EPS:
            say(act, f'moves {d:.1f}"; Speed is {speed}" (8.5.3)')
        rear = world.rear_from(pos[act.unit], act.to)
        pid = world.place(su, act.to, rear, occupied(act.unit), on=act.on)
        if pid is None:
            say(act, why_not(act, act.to))
        else:
            pos[act.unit] = pid
            if act.via is not None and self._contact_recall_ok(act):
                del pos[act.unit]  # Omega Network: back to Reserves (8.5.5)

    def _charge(self, act: Activation, p_now: tuple[int, ...], a_now: tuple[int, ...]) -> None:
        """A Charge (8.7.7), and Lightning Dash's second one."""
        scn, state, fields_now = self.scn, self.state, self.fields_now
        su = scn.units[act.unit]
        speed, more = self._speed_now(act)
        size = su.unit.card.size
        walls = tuple(c for c, top in fields_now if isinstance(size, int) and size <= top)
        dash = second_charge(scn, act)  # Lightning Dash: a second Charge after a successful one
        if dash in act.targets or (dash is not None and scn.units[dash].player == act.player):
            dash = None  # (_dash_target names it)
        if self._check_charge(act, p_now, a_now, speed, more, walls) and dash:
            p_now, a_now = state()
            again_at = dataclasses.replace(act, targets=(dash,))
            self._check_charge(again_at, p_now, a_now, speed, 0, walls, dash=True)
