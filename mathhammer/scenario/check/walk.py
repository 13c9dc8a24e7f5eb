"""The plan walk of ``scenario check``: :class:`PlanCheck` walks rounds, phases and activations at full strength."""

from __future__ import annotations

import dataclasses
import math

from ...board.model import EPS
from ...errors import MathhammerError
from ...starcraft.loadout import make_loadout
from ..abilities import (
    Purse,
    choices,
    find,
    needs_tag,
)
from ..spec import PHASES, PLAYERS, Activation
from ..world import CLOSE_RANKS_MOVE
from .common import (
    FAMILIES,
    PHASE_TITLE,
    _again,
    _charge_only,
    _from_reserves,
    _printed_limit,
    _resolved_on_deploy,
    _tactical_mass,
    cost_discount,
)
from .order import merge_walks, phase_order
from .pathing import blocked_line
from .reactions import ReactionChecks


class PlanCheck(ReactionChecks):
    """The walk of a plan: rounds -> phases -> activations, each activation checked as written at full strength
    (the module docstring of :mod:`mathhammer.scenario.check` lists the rules). The walk state is :class:`_State`;
    the checks by concern are the methods of the base classes (moves, attacks, cards, reactions)."""

    #: who holds the First Player Marker where the plan leaves it to the game (0 red, 1 blue; :meth:`run`)
    lean = 0

    def run(self) -> list[str]:
        """Every problem of the plan, one line each (an empty list: the plan is legal as written).

        Each Phase is walked in the game's turn order (:mod:`.order`). Where the First Player Marker's holder differs
        between games (a Round 1 Roll-Off, 8.2.2; the player with fewer Victory Points from Round 2, 8.9.6) the plan is
        walked twice, red holding it in every such Phase, then blue: an activation illegal both ways is an error, one
        illegal one way only a ``warning:`` with that condition (:func:`merge_walks`)."""
        self.walk()
        if not self.guessed:
            return self.problems
        other = type(self)(self.scn, self.grass.worlds.base)  # the board's geometry, read once for both walks
        other.lean = 1
        other.walk()
        return merge_walks(self.problems, other.problems)

    def walk(self) -> None:
        """One walk of the plan, the First Player Marker with :attr:`lean` where the plan leaves it to the game."""
        scn = self.scn
        # Round 1's First Player: the file's, or per game (8.2.2 Roll-Off; "alternate": by game number)
        self.first: int | None = PLAYERS.index(scn.first_player) if scn.first_player in PLAYERS else None
        self.guessed = False  # a Phase walked with ``lean``'s First Player where both players have activations
        for rnd in range(1, scn.mission.game_length + 1):
            self.round(rnd)
            self.first = None  # 8.9.6: the player with fewer Victory Points, a Roll-Off on a tie: per game

    def round(self, rnd: int) -> None:
        """Round ``rnd``: its per-Round state, its Phases, then the End of the Round (8.9.4)."""
        scn, pos = self.scn, self.pos
        self.purses = {p: Purse(scn, p) for p in PLAYERS}  # every card Ready at the start of the Round (8.9.5)
        self.used = {}
        self.taken = set()
        self.deployed = []
        self.ending = []
        self.on_unit = {}
        self.disengaged = {}
        self.pool = scn.mission.supply_pool(rnd)
        self.round_start(rnd)  # each card's plan check (common.FAMILIES), its own per-Round state reset
        for phase in PHASES:
            if phase != "movement":
                self.exposed.update(pos)
            first = self.lean if self.first is None else self.first
            order, after = phase_order(scn, rnd, phase, first)
            if self.first is None:  # the holder differs between games: the walk takes ``lean``'s
                self.guessed = self.guessed or {a.player for a in order} == set(PLAYERS)
                if phase_order(scn, rnd, phase, 1 - first)[1] != after:
                    after = None  # and so does the next Phase's
            self.first = after
            if phase == "combat":  # 8.8.1 step 1: an Engaged unit may make a CLOSE RANKS move of up to 3" first
                for u in {u for pair in self.world.engaged_pairs(*self.state()) for u in pair}:
                    self.loose[u] = self.loose.get(u, 0.0) + CLOSE_RANKS_MOVE
                    self.attacked.add(u)  # 8.8.1: every Engaged unit fights
            acted: dict[str, set[str]] = {p: set() for p in PLAYERS}
            again: dict[str, set[str]] = {p: set() for p in PLAYERS}  # Activation Marker removed by an ability (Orders)
            for act in order:
                self.world = self.grass.update(pos, act)  # part 11 GRASS: without the pieces removed so far
                self.activation(act, acted[act.player], again[act.player])
                if act.action in ("shoot", "charge"):
                    self.attacked.update((*act.targets, *act.then))  # ``then``: a Batch may fire at it
        self._end_of_round()

    def activation(self, act: Activation, acted: set[str], again: set[str]) -> None:
        """One activation of the plan; ``acted``: the player's units activated so far in this Phase, ``again``: those
        whose Activation Marker an ability removed."""
        scn, world, pos, say = self.scn, self.world, self.pos, self.say
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
        if not self.activation_ok(act):
            return
        # abilities
        rx_off = self._reaction_discounts(act, self.purses[player])
        self._use(act, rx_off)
        if act.options and not any(
            (f := find(scn, act.unit, n)) is not None and any(e.option for e in f.ability.effects) for n in act.use
        ):
            say(act, "options: no ability of use offers options (Orders)")
        self._check_select(act)
        self.after_select(act, acted, again)
        self._check_reactions(act)
        p_now, a_now = self.state()
        engaged_now = on and world.unit_engaged(p_now, a_now, world.index[act.unit])
        if self.after_reactions(act, engaged_now):  # the Burrowed Status, an extra Move
            p_now, a_now = self.state()
        self._check_token(act)
        if self.card_checks(act):  # the cards whose effect kinds are used (common.FAMILIES)
            return
        if self.before_action(act, engaged_now):  # PLACE
            p_now, a_now = self.state()
        if self.instead_of_action(act, on, engaged_now):  # Strap In!, Strategic Recall
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
        if act.action in ("shoot", "charge") and act.unit in self.disengaged:
            self._penalty(act, self.disengaged[act.unit])
        if act.action in ("move", "run", "disengage"):
            self._move(act, engaged_now, p_now, a_now)
        elif act.action == "shoot":
            lo_now = self._loadout_now(act.unit)
            hidden = self._hidden_now(act)
            self._check_shoot(act, p_now, a_now, lo_now, hidden)
            self.after_shoot(act)  # the opponent's Lunge
        elif act.action == "charge":
            self._charge(act, p_now, a_now)
        elif act.action == "gather" and not scn.mission.gather_action:
            say(act, f"the Gather Action belongs to Gather the Resources, not {scn.mission.name}")
        elif act.action == "fight":
            foes = {b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit}
            if not foes:
                self.problems.append(
                    f"warning: {scn.file}: {act.where}: {act.unit!r} is not Engaged in the "
                    "plan as written; it fights only in games where it is"
                )

    def _use(self, act: Activation, rx_off: dict[str, int]) -> None:
        """The Active abilities of ``use`` (chapter 10, 10.5)."""
        scn, say = self.scn, self.say
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
            if abil.type == "passive" and not _resolved_on_deploy(abil):
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
            if _again(self.used, act.unit, abil):
                say(
                    act,
                    f"use: {abil.name!r} a second time this Round "
                    "(once per Round per unit unless REPEATABLE, 10.2"
                    + (", however many copies of the card, 10.2" if found.card else "")
                    + ")",
                )
            over = _printed_limit(found, act.unit, player, act.round, act.where, self.once)
            if over:
                say(act, f"use: {over}")
            if not abil.effects:
                self.warn(
                    act,
                    f"use: {abil.name!r} has no modelled effect (no machine-readable effect); "
                    "the simulation ignores it",
                )
            elif msg := _charge_only(scn, act, abil):
                self.warn(act, msg)
            self.use_ok(act, found)  # each card family's (the Burrowed Status)
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
            off = cost_discount(scn, self.world, self.pos, act.unit, found, rx_off, self.taken)
            why = self.purses[player].pay(found, act.options, off)
            if why:
                say(act, f"use: {why}")
            if not found.card:
                try:
                    make_loadout(su.unit, su.models, [u.name for u in su.loadout.upgrades], [abil.name])
                except MathhammerError as exc:
                    say(act, f"use: {exc}")

    def _move(self, act: Activation, engaged_now: bool, p_now: tuple[int, ...], a_now: tuple[int, ...]) -> None:
        """A Move, Run or Disengage (8.5.2-8.5.4)."""
        scn, world, pos, say = self.scn, self.world, self.pos, self.say
        lead = world.placements[pos[act.unit]].centres[0]
        assert act.to is not None
        if act.action == "disengage" and not engaged_now:
            say(act, "the unit is not Engaged: Move instead (8.5.4 Disengage is for an Engaged unit)")
        if act.action != "disengage" and engaged_now:
            engaged = "the unit is Engaged: it cannot Move or Run; Disengage instead (8.5.2, 8.7.1)"
            surely, foes = self.engaged_surely(act.unit)
            if surely:
                say(act, engaged)
            else:  # Engaged only with units casualties may have destroyed, or set apart in some games
                self.if_destroyed(act, engaged, foes)
        if not self._level_ok(act):
            return
        if act.action == "disengage" and engaged_now:
            held = [b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit]
            mass = _tactical_mass(scn, act.unit, held, self.down, self.exposed)
            if mass is not None:
                self.disengaged[act.unit] = mass
        d = math.dist(lead, act.to)
        start_level = world.placements[pos[act.unit]].level
        speed, _ = self._speed_now(act)  # Stimpack: BUFF Speed
        if start_level != act.on:
            self._route_ok(act, lead, start_level, speed)
        elif d > speed + EPS:
            self._too_far(act, f'moves {d:.1f}"; Speed is {speed}" (8.5.3)', d - speed)
        elif blocked_line(world, act, lead):
            self._route_ok(act, lead, start_level, speed)  # 8.5.3: the way around the walls
        rear = world.rear_from(pos[act.unit], act.to, act.headings)
        pid = self._place(act, rear)
        if pid is not None:
            pos[act.unit] = pid
            # the plan sets its Leading Model; the models behind it trail from where the game had set the unit
            # (``rear_from`` its placement): after a Charge's end or CLOSE RANKS, unknown to the walk (:attr:`formed`)
            if self.loose.pop(act.unit, None) is None:
                self.formed.discard(act.unit)
            else:
                self.formed.add(act.unit)
            if act.via is not None and any(fam.after_move(self, act) for fam in FAMILIES):
                del pos[act.unit]  # Omega Network: back to Reserves (8.5.5)

    def _charge(self, act: Activation, p_now: tuple[int, ...], a_now: tuple[int, ...]) -> None:
        """A Charge (8.7.7), and Lightning Dash's second one."""
        state = self.state
        speed, more = self._speed_now(act)
        walls = tuple(c for fam in FAMILIES for c in fam.charge_walls(self, act))  # (Force Field)
        # a second Charge after a successful one (Lightning Dash): the first card's that names one
        dash = next((d for fam in FAMILIES if (d := fam.charge_again(self, act)) is not None), None)
        if self._check_charge(act, p_now, a_now, speed, more, walls) and dash:
            p_now, a_now = state()
            again_at = dataclasses.replace(act, targets=(dash,))
            self._check_charge(again_at, p_now, a_now, speed, 0, walls, dash=True)
