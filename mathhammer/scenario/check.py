"""``mathhammer scenario check``: walk the plan at full strength and report every illegal activation.

The walk assumes every planned activation happens as written (every unit at full strength,
every Charge successful), which is the plan the player wrote. Legality that depends on the game's
state is judged per game: a plan illegal in every game is an error, one illegal in some games a
``warning:`` line with the condition (the simulation skips it in those games and reports how often).
Each problem names the round,
the phase, the player and the activation (``rounds[0].red.movement[2]``) and cites the rule:

* Deploy: the unit still in Reserves; its Supply within Available Supply (8.3.2: "A Unit can only
  be fielded if its Current Supply Value is less than or equal to the Available Supply"; a Deploy
  that fits only once casualties freed Supply is a warning, :func:`_supply_ok`); the
  Leading Model within Speed of its Entry Edge (8.5.5); no model Within the opponent's Zone of
  Influence (8.3.3; WITHIN: any part of a base); no abilities from Reserves (8.5.5, FAQ v1.0).
* Move, Run, Disengage: on the table; within Speed (straight line, 8.5.3); not Within 1" of an
  enemy Ground unit (8.5.3); Move and Run only Unengaged (8.5.2, 8.7.1), Disengage only Engaged.
* Levels (``on``; ``world.py``): the Leading Model's point over the top of the piece named by ``on``
  (FAQ v1.0 Wobbly Model Syndrome), or off every piece with a horizontal top without ``on``; every
  model of the unit fits on that top. A Deploy, Move, Run or Disengage onto, off or between pieces
  passes an ACCESS POINT (8.5.3 "The Leading Model cannot change elevation unless it passes through an
  ACCESS POINT"; a piece without one is IMPASSABLE TERRAIN), and its length counts the climb (8.5.3
  "Measure the actual path travelled"): ``World.route``, straight lines on each level plus the
  ``height`` of each piece climbed (a piece without ``height`` is an error).
* Ranged Attack: weapons of the unit; at least one planned target it may shoot (8.7.3 step 1:
  range, visibility, Combat Tag, Engaged restrictions).
* Charge: Ground units (8.7.7 "Flying Units cannot Charge or be Charged"), a reachable end
  position within Speed + 6".
* Abilities (chapter 10, 10.5; ``abilities.py``): an Active ability (``use``) of the unit, its
  upgrades or its player's Faction and Tactical Cards, in its phase, once per Round per unit
  unless REPEATABLE (and within a limit its text starts with: "Once per Game", a card's "Once per
  Round" for the player), its cost paid by Exhausting Ready cards of the resource (excess lost,
  10.5.1); a card's own ability Exhausts that card (10.5.2); a card ability for "a Friendly
  Biological Unit" only for such a unit.
* Reactions (10.4; ``react``): a Reaction of the reacting unit, its upgrades or its player's cards;
  the unit on the table (none from Reserves, FAQ v1.0); at most one per player per Activation;
  once per Round per unit and name unless REPEATABLE; paid from the same Ready cards as the
  Active abilities. A Reaction whose trigger the plan cannot produce is an error (an attack on a
  unit of the Active Player, a Charge Roll of another unit); one whose effect the simulation does
  not model is accepted with a ``warning:`` line.
* One activation per unit and phase (8.4.1, 8.6.1); the Gather Action only in Gather the Resources.
* Conditions (``if`` / ``unless``, :mod:`mathhammer.scenario.conditions`): a conditional activation is
  checked as written, as if it happens; a condition naming an unknown unit or marker is a file error
  (reported when the file is read); one that cannot hold at full strength is not flagged.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable

from ..board.engagement import ENGAGEMENT_RANGE
from ..board.model import EPS, MM_PER_INCH
from ..errors import MathhammerError
from ..starcraft.loadout import Loadout, attack_batches, make_loadout
from ..starcraft.schema import Ability, Effect
from .abilities import (
    CHARGE_KINDS,
    TOKEN_CONTACT,
    TOKEN_RADIUS,
    Found,
    Purse,
    attacker_debuff,
    base_entry,
    burrow_change,
    card_effect,
    charge_roll,
    charger_debuff,
    choices,
    contact_leads,
    counts_for_pool,
    creeping,
    find,
    gives_debuff,
    has_impact,
    is_structure,
    loadout_with,
    needs_tag,
    never_burrowed,
    on_selected_weapons,
    protected,
    recall_base,
    recalled_by,
    recalls_self,
    reduction,
    remover,
    repeatable,
    second_charge,
    select_reach,
    summoned_unit,
    summoning,
    target_effects,
    token_contact_lead,
    unit_abilities,
    unit_effect,
    used_effect,
    used_effects,
)
from .spec import PHASES, PLAYERS, Activation, Reaction, Scenario, ScenarioUnit
from .world import EDGE_REAR, World, edge_distance

#: Reports a problem of one activation.
Say = Callable[[Activation, str], None]

PHASE_TITLE = {"movement": "Movement Phase", "assault": "Assault Phase", "combat": "Combat Phase"}


def _again(used: dict[tuple[str, str], int], unit: str, abil: Ability) -> bool:
    """Count a use of ``abil`` by ``unit`` this Round; True for a second use that is not REPEATABLE (10.2, 10.4)."""
    key = (unit, abil.name)
    used[key] = used.get(key, 0) + 1
    return used[key] > 1 and not repeatable(abil)


def check_scenario(scn: Scenario) -> list[str]:
    """Every problem of the plan, one line each (an empty list: the plan is legal as written)."""
    world = World(scn)
    uids = world.uids
    problems: list[str] = []
    pos: dict[str, int] = {}  # planned placement of each unit on the table

    def say(act: Activation, msg: str) -> None:
        problems.append(
            f"{scn.file}: {act.where} (round {act.round}, {PHASE_TITLE[act.phase]}, {act.player}, "
            f"{act.unit or 'pass'} {act.action}): {msg}"
        )

    def occupied(but: str) -> tuple[int, ...]:
        return tuple(p for u, p in pos.items() if u != but)

    def state() -> tuple[tuple[int, ...], tuple[int, ...]]:
        p = tuple(pos.get(u, -1) for u in uids)
        a = tuple(scn.units[u].models if pos.get(u, -1) >= 0 else 0 for u in uids)
        return p, a

    def why_not(act: Activation, lead: tuple[float, float]) -> str:
        su = scn.units[act.unit]
        r = su.base_mm / MM_PER_INCH / 2
        for other, pid in pos.items():
            o = scn.units[other]
            if o.player == su.player or o.flying or su.flying or other == act.unit:
                continue
            orad = o.base_mm / MM_PER_INCH / 2
            gap = min(math.dist(lead, c) - r - orad for c in world.placements[pid].centres)
            if gap <= ENGAGEMENT_RANGE + EPS:
                return (
                    f'ends Within 1" of enemy unit {other!r} ({max(gap, 0):.2f}"; 8.5.3 "cannot end Within 1" '
                    '(Engagement Range) of an Enemy Ground Unit")'
                )
        if act.on is not None:
            return (
                f"the unit does not fit on the top of {act.on!r}: every model's base centre over it, no base on "
                "another piece or base (FAQ v1.0 Wobbly Model Syndrome; 8.5.3 step 2; world.py: a unit is not "
                "split over two levels)"
            )
        return (
            "the unit cannot be set there (off the table, on terrain, on another base, or no room In Coherency; 8.5.3)"
        )

    def warn(act: Activation, msg: str) -> None:
        problems.append(
            f"warning: {scn.file}: {act.where} (round {act.round}, {PHASE_TITLE[act.phase]}, {act.player}, "
            f"{act.unit or 'pass'} {act.action}): {msg}"
        )

    once: dict[tuple[str, ...], str] = {}  # limits printed on an ability ("Once per Game"): first use
    down: set[str] = set()  # units with the Burrowed Status at this point of the plan (a Status stays, part 11)
    tumors: list[tuple[tuple[float, float], str]] = []  # Creep Tumor tokens set so far (centre, player)
    seen_by: list[tuple[tuple[float, float], str, float]] = []  # detection's Faction Indicators this Round
    summoned_at: dict[str, tuple[int, str]] = {}  # Summoned Units set by the plan: (Round, Phase) they were set in
    # units on the table at the start of an Assault or Combat Phase so far: in some games casualties may have
    # reduced or destroyed them (8.3.2 "Units Destroyed in battle (or reduced by casualties) free up Available Supply")
    exposed: set[str] = set()
    for rnd in range(1, scn.mission.game_length + 1):
        purses = {p: Purse(scn, p) for p in PLAYERS}  # every card Ready at the start of the Round (8.9.5)
        used: dict[tuple[str, str], int] = {}
        taken: set[tuple[str, str]] = set()  # once-per-Round cost reductions used this Round (unit, ability)
        seen_by.clear()  # 8.9.5: the Faction Indicators go at the Cleanup
        deployed: list[tuple[str, str]] = []  # (unit, player) deployed so far this Round
        via_used: dict[str, int] = {}  # per unit whose base is an Entry Edge: Supply (or units) Deployed by it
        ending: list[Activation] = []  # tokens for the End of the Round (Psionic Transfer, Ready for Dust-Off)
        fields_now: list[tuple[tuple[float, float], int]] = []  # Force Fields set this Round: centre, Size limit
        # (table edge, the player who closes it) this Round: Comsat Station, in any activation of the Round (the
        # order of the two players' activations is read per game, 8.2.1)
        closed = [
            (a.edge, a.player)
            for ph in PHASES
            for p in PLAYERS
            for a in scn.activations(rnd, ph, p)
            if a.edge is not None and a.unit and used_effect(scn, a, "edge_block") is not None
        ]
        # 7.3: tokens go at the end of the Round, unless STAY IN PLAY (Living Glob of Tissue)
        tumors[:] = [t for t in tumors if card_effect(scn, t[1], "tokens_stay") is not None]
        on_unit: dict[tuple[str, str], Ability] = {}  # an enemy's ability on a unit's weapons (Optical Flare)
        disengaged: dict[str, tuple[bool, str]] = {}  # units that Disengaged this Round: (never Tactical Mass, why)
        pool = scn.mission.supply_pool(rnd)
        for phase in PHASES:
            if phase != "movement":
                exposed.update(pos)
            for player in PLAYERS:
                acted: set[str] = set()
                again: set[str] = set()  # units whose Activation Marker an ability removed (Orders)
                for act in scn.activations(rnd, phase, player):
                    if act.action == "pass":
                        if act.react:
                            say(act, "react: a Pass triggers no Reaction (10.4: declared at the moment of a trigger)")
                        if act.use:
                            say(
                                act,
                                "use: a Pass activates no unit (8.2.1); an Active ability needs an activated "
                                "unit (10.2)",
                            )
                        continue
                    su = scn.units[act.unit]
                    if act.unit in again:
                        again.discard(act.unit)  # its Activation Marker was removed: it activates again
                    elif act.unit in acted:
                        say(
                            act, f"{act.unit!r} already activated in this phase (8.4.1, 8.6.1: one activation per unit)"
                        )
                    acted.add(act.unit)
                    on = act.unit in pos
                    if not _summoned_act_ok(scn, act, say, pos, summoned_at):
                        continue
                    # abilities
                    rx_off = _reaction_discounts(scn, act, purses[player], say)
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
                                f"use: {abil.name!r} is used in the {abil.phase.title()} Phase, "
                                f"not the {PHASE_TITLE[phase]}",
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
                        over = _printed_limit(found, act.unit, player, rnd, act.where, once)
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
                    if act.options and not any(
                        (f := find(scn, act.unit, n)) is not None and any(e.option for e in f.ability.effects)
                        for n in act.use
                    ):
                        say(act, "options: no ability of use offers options (Orders)")
                    _check_select(scn, world, act, say, pos, on_unit)
                    for name, unit in act.select:
                        found = find(scn, act.unit, name)
                        if found and any(
                            e.kind == "remove_activation" and e.option in act.options for e in found.ability.effects
                        ):
                            if unit in acted:
                                again.add(unit)
                            else:
                                warn(
                                    act,
                                    f"select.{name}: {unit!r} has not activated yet in this Phase: no Activation "
                                    "Marker to remove",
                                )
                    _check_reactions(scn, world, act, say, warn, pos, purses, used, once, taken)
                    p_now, a_now = state()
                    engaged_now = on and any(a == act.unit for a, _ in world.engaged_pairs(p_now, a_now))
                    if not _burrow_ok(scn, act, down, engaged_now):
                        say(
                            act,
                            f"{act.unit!r} is BURROWED at this point of the plan (part 11 BURROWED: it may only "
                            "Deploy, Move, Disengage, Run, Hold or Close Ranks); it loses the Status with Burrow "
                            "again, Nasty Surprise, or a Move, Run or Disengage",
                        )
                    if _extra_move_ok(scn, world, act, say, warn, pos, on and engaged_now, occupied, why_not):
                        p_now, a_now = state()
                    _check_token(scn, world, act, say, warn, pos, tumors)
                    _edge_block(scn, world, act, say)
                    _end_token(scn, world, act, say, pos, ending)
                    _force_field(scn, world, act, say, pos, fields_now)
                    _summon(scn, world, act, say, pos, occupied, pool, summoned_at)
                    if _mass_recall(scn, world, act, say, pos):
                        down.discard(act.unit)
                        continue
                    if act.token_at is not None and (eye := used_effect(scn, act, "detector")) is not None:
                        seen_by.append((act.token_at, act.player, float(eye.within or 0)))
                    if _place_ok(scn, world, act, say, warn, pos, on and engaged_now, occupied, why_not):
                        p_now, a_now = state()
                    if act.action != "deploy" and recalls_self(scn, act):
                        if _recall_ok(scn, act, say, on, on and engaged_now):
                            del pos[act.unit]  # 8.5.5: back in Reserves, it may Deploy again
                            down.discard(act.unit)
                        continue
                    if act.action == "deploy":
                        if on:
                            say(
                                act, f"{act.unit!r} is already on the table (8.5.5: Deploy brings a unit from Reserves)"
                            )
                            continue
                        assert act.to is not None
                        if pool is not None:
                            _supply_ok(scn, act, say, warn, pos, exposed, pool, _need(su))
                        away = used_effect(scn, act, "deploy_edge")
                        placer = used_effect(scn, act, "deploy_place")  # Burrow Ambush, Rapid Reinforcements
                        edge = _deploy_edge_ok(scn, world, act, say, warn, away, deployed, closed)
                        edge = edge or world.edges[player]
                        deployed.append((act.unit, player))
                        reach = su.speed + su.base_mm / MM_PER_INCH / 2
                        d = edge_distance(edge, act.to, scn.board.width, scn.board.depth)
                        if not _level_ok(world, act, say):
                            continue
                        via_rear = _via_ok(scn, world, act, say, pos, via_used) if act.via is not None else None
                        if placer is not None:
                            _place_start(scn, world, act, say, pos, placer)
                        elif act.via is not None:
                            pass  # the distance from the base: _via_ok
                        elif act.on is not None:
                            _route_ok(world, act, say, None, None, reach)
                        elif d > reach + EPS:
                            which = "Entry Edge" if edge == world.edges[player] else "table edge it enters by"
                            say(
                                act,
                                f'the Leading Model ends {d:.1f}" from the {edge} {which}; at most Speed {su.speed}" '
                                "(8.5.5)",
                            )
                        rear = EDGE_REAR[edge] if edge != world.edges[player] else world.rear_of(player)
                        rear = via_rear or rear
                        pid = world.place(su, act.to, rear, occupied(act.unit), on=act.on)
                        far = away or placer
                        if pid is not None and far is not None and far.within is not None:
                            enemies = [u for u in pos if scn.units[u].player != player]
                            if any(
                                _within_now(scn, world, pos | {act.unit: pid}, act.unit, f, far.within) for f in enemies
                            ):
                                say(act, f'ends Within {far.within:g}" of an Enemy model (its ability asks for more)')
                        if pid is not None and placer is not None:
                            _place_end(scn, world, act, say, pos, placer, pid)
                        if _in_enemy_zone(world, act, pid):
                            say(act, "ends Within the opponent's Zone of Influence (8.3.3)")
                        if pid is None:
                            say(act, why_not(act, act.to))
                        else:
                            pos[act.unit] = pid
                        continue
                    if not on:
                        if su.summoned:
                            say(act, f"{act.unit!r} is not on the table: summon it first ({su.summoned_by}, 9.1.9)")
                        else:
                            say(act, f"{act.unit!r} is not on the table yet: Deploy it first (8.5.5)")
                        continue
                    lead = world.placements[pos[act.unit]].centres[0]
                    if act.action in ("shoot", "charge") and act.unit in disengaged:
                        _penalty(scn, act, say, warn, disengaged[act.unit], used, on_unit)
                    if act.action in ("move", "run", "disengage"):
                        assert act.to is not None
                        if act.action == "disengage" and not engaged_now:
                            say(act, "the unit is not Engaged: Move instead (8.5.4 Disengage is for an Engaged unit)")
                        if act.action != "disengage" and engaged_now:
                            say(act, "the unit is Engaged: it cannot Move or Run; Disengage instead (8.5.2, 8.7.1)")
                        if not _level_ok(world, act, say):
                            continue
                        if act.action == "disengage" and engaged_now:
                            held = [b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit]
                            mass = _tactical_mass(scn, act.unit, held, down, exposed)
                            if mass is not None:
                                disengaged[act.unit] = mass
                        d = math.dist(lead, act.to)
                        start_level = world.placements[pos[act.unit]].level
                        speed, _ = _speed_now(scn, world, act, pos, used, on_unit, tumors)  # Stimpack: BUFF Speed
                        if start_level != act.on:
                            _route_ok(world, act, say, lead, start_level, speed)
                        elif d > speed + EPS:
                            say(act, f'moves {d:.1f}"; Speed is {speed}" (8.5.3)')
                        rear = world.rear_from(pos[act.unit], act.to)
                        pid = world.place(su, act.to, rear, occupied(act.unit), on=act.on)
                        if pid is None:
                            say(act, why_not(act, act.to))
                        else:
                            pos[act.unit] = pid
                            if act.via is not None and _contact_recall_ok(scn, world, act, say, pos):
                                del pos[act.unit]  # Omega Network: back to Reserves (8.5.5)
                    elif act.action == "shoot":
                        lo_now = _loadout_now(scn, act.unit, used, on_unit)
                        hidden = _hidden_now(scn, world, act, pos, down, used, seen_by)
                        _check_shoot(scn, world, act, say, p_now, a_now, lo_now, hidden)
                        _lunge_moves(scn, world, act, pos, occupied)
                    elif act.action == "charge":
                        speed, more = _speed_now(scn, world, act, pos, used, on_unit, tumors)
                        size = su.unit.card.size
                        walls = tuple(c for c, top in fields_now if isinstance(size, int) and size <= top)
                        dash = second_charge(scn, act)  # Lightning Dash: a second Charge after a successful one
                        if dash in act.targets or (dash is not None and scn.units[dash].player == act.player):
                            dash = None  # (_dash_target names it)
                        if _check_charge(scn, world, act, say, pos, p_now, a_now, speed, more, walls) and dash:
                            p_now, a_now = state()
                            again_at = dataclasses.replace(act, targets=(dash,))
                            _check_charge(scn, world, again_at, say, pos, p_now, a_now, speed, 0, walls, dash=True)
                    elif act.action == "gather" and scn.mission.scoring != "gather-the-resources":
                        say(act, f"the Gather Action belongs to Gather the Resources, not {scn.mission.name}")
                    elif act.action == "fight":
                        foes = {b for a, b in world.engaged_pairs(p_now, a_now) if a == act.unit}
                        if not foes:
                            problems.append(
                                f"warning: {scn.file}: {act.where}: {act.unit!r} is not Engaged in the plan "
                                "as written; "
                                "it fights only in games where it is"
                            )
        _end_of_round(scn, world, say, warn, pos, ending, pool)
    return problems


_ONCE = re.compile(r"\s*once per (game|round)\b", re.IGNORECASE)


def _printed_limit(found: Found, unit: str, player: str, rnd: int, where: str, once: dict[tuple[str, ...], str]) -> str:
    """Why this use breaks the limit its text starts with ("Once per Game.", "Once per Round, ..."), or "".

    The card sheets override the rulebook (rules README): "Once per Game" spans the game, for the
    unit (its own ability) or for the player (a Faction or Tactical Card's: Terran Tenacity, Mass
    Recall); a card's "Once per Round" binds the player (Advanced Training, which does not Exhaust its
    card), beyond 10.2's once per Round per unit. ``once`` holds the first use of each.
    """
    m = _ONCE.match(found.ability.text)
    if m is None:
        return ""
    span = m.group(1).title()
    if span == "Round" and not found.card:
        return ""  # the unit's own ability: 10.2's once per Round per unit says as much
    who = (player, found.card) if found.card else (unit,)
    key = (*who, found.ability.name, "game" if span == "Game" else f"round {rnd}")
    first = once.setdefault(key, where)
    if first == where:
        return ""
    whose = f"{player}'s {found.card!r}" if found.card else repr(unit)
    return f'{found.ability.name!r} ({whose}) is "Once per {span}" (its text): already used at {first}'


def _from_reserves(su: ScenarioUnit, abil: Ability) -> bool:
    """The unit may use ``abil`` on its Deploy, while still in Reserves.

    8.5.5: "While in Reserves, the Unit keeps all its Active, Passive, and Reaction Abilities, but none of
    them function"; FAQ v1.0: except rules that say they work in Reserves or handle the unit's own
    deployment. Read as: ``abil`` says so of this unit ("When this Unit is nominated to deploy from
    Reserves", "in Reserves"), or another ability of the unit lets it resolve ``abil`` then (Raynor's
    Raider, "Raiders Roll!": "When this Unit is nominated to deploy from Reserves, it may resolve its
    Stimpack ability"). Merely naming Reserves ("... is returned to Reserves") is not enough.
    """
    if any(e.kind in ("deploy_edge", "deploy_place") for e in abil.effects):
        return True  # the Deploy itself (Warp In: "The active GROUND Unit Deploys from any table edge ...")
    own = re.compile(
        r"\b(?:this unit|it) is nominated to deploy from (?:the )?reserves|\b(?:while|when) (?:this unit is )?in "
        r"(?:the )?reserves",
        re.IGNORECASE,
    )
    if own.search(abil.text):
        return True
    lets = re.compile(
        r"nominated to deploy from (?:the )?reserves, it may (?:resolve|use) its " + re.escape(abil.name) + r"\b",
        re.IGNORECASE,
    )
    return any(lets.search(a.text) for a in unit_abilities(su))


def _in_enemy_zone(world: World, act: Activation, pid: int | None) -> bool:
    """8.3.3: a model of the deployed unit is Within the opponent's Zone of Influence.

    ZONE OF INFLUENCE: "Units arriving from Reserves cannot end their deployment Within the opponent's
    Zone of Influence"; WITHIN: "A model is Within a distance if any part of its base touches or crosses
    into that range. A Unit is Within a distance if at least one model in the Unit meets this condition."
    ``pid``: the unit's placement (None: it cannot be set there; then its Leading Model alone).
    """
    assert act.to is not None
    if pid is not None:
        return _pid_in_enemy_zone(world, act.unit, act.player, pid)
    su = world.scn.units[act.unit]
    other = PLAYERS[1 - PLAYERS.index(act.player)]
    edge = world.edges[other]
    r = su.base_mm / MM_PER_INCH / 2
    centres = (act.to,)
    depth = world.scn.deployment.zone_depth
    width, length = world.scn.board.width, world.scn.board.depth
    return any(edge_distance(edge, c, width, length) - r <= depth + EPS for c in centres)


def _pid_in_enemy_zone(world: World, unit: str, player: str, pid: int) -> bool:
    """8.3.3, :func:`_in_enemy_zone` for placement ``pid`` of ``unit`` (of ``player``)."""
    su = world.scn.units[unit]
    edge = world.edges[PLAYERS[1 - PLAYERS.index(player)]]
    r = su.base_mm / MM_PER_INCH / 2
    depth = world.scn.deployment.zone_depth
    width, length = world.scn.board.width, world.scn.board.depth
    return any(edge_distance(edge, c, width, length) - r <= depth + EPS for c in world.placements[pid].centres)


def _level_ok(world: World, act: Activation, say: Say) -> bool:
    """The Leading Model's point is on the planned level: over the top of ``on``, or off every such top."""
    assert act.to is not None
    here = world.level_at(act.to)
    if here == act.on:
        return True
    at = f"({act.to[0]:g}, {act.to[1]:g})"
    if act.on is None:
        say(
            act,
            f"the Leading Model's point {at} is over terrain piece {here!r}, which has a horizontal top: set "
            f'on = "{here}" to stand on it, or end off it (8.5.3: "may not end overlapping terrain")',
        )
    else:
        where = "the playmat" if here is None else f"terrain piece {here!r}"
        say(
            act,
            f"on = {act.on!r}: the Leading Model's point {at} is over {where}, not over the top of {act.on!r} "
            "(FAQ v1.0 Wobbly Model Syndrome: the centre of the base stays over the piece)",
        )
    return False


def _route_ok(
    world: World, act: Activation, say: Say, start: tuple[float, float] | None, start_level: str | None, limit: float
) -> None:
    """A Deploy (``start`` None) or a move that changes level: through ACCESS POINTs, the climb counted (8.5.3)."""
    assert act.to is not None
    su = world.scn.units[act.unit]
    edge = world.edges[act.player]
    rt = world.route(
        start, start_level, act.to, act.on, edge=edge, flying=su.flying, free_climb=world.mobility[act.unit][1]
    )

    def level(lv: str | None) -> str:
        return "the playmat" if lv is None else f"the top of {lv!r}"

    source = f"the {edge} Entry Edge" if start is None else level(start_level)
    if math.isinf(rt.length):
        say(
            act,
            f'no way from {source} to {level(act.on)} through an ACCESS POINT (8.5.3: "The Leading Model cannot '
            'change elevation unless it passes through an ACCESS POINT"; IMPASSABLE TERRAIN: "no Access Point '
            'connecting it to an adjacent elevation level")',
        )
        return
    for piece in rt.no_height:
        say(
            act,
            f"terrain {piece!r}.height: missing; needed to count the climb through its ACCESS POINT "
            '(8.5.3: "Measure the actual path travelled")',
        )
    if rt.no_height:
        return
    if rt.length > limit + EPS:
        via = ", then of ".join(repr(p) for p in rt.via)
        climb = f' through an ACCESS POINT of {via}, climbing {rt.climb:g}"' if rt.via else ""
        if start is None:
            say(
                act,
                f'the Leading Model ends {rt.length:.1f}" from the {edge} Entry Edge along its path{climb}; '
                f'at most Speed {su.speed}" (8.5.5, 8.5.3: "Measure the actual path travelled")',
            )
        else:
            say(
                act,
                f'moves {rt.length:.1f}" from {source} to {level(act.on)}{climb}; Speed is {su.speed}" '
                '(8.5.3: "Measure the actual path travelled")',
            )


def _check_reactions(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    purses: dict[str, Purse],
    used: dict[tuple[str, str], int],
    once: dict[tuple[str, ...], str],
    taken: set[tuple[str, str]],
) -> None:
    """10.4: the Reactions planned in ``act`` (``react``); ``pos``: the units on the table before it; ``taken``: the
    once-per-Round cost reductions used this Round (:func:`cost_discount`)."""
    by_player: dict[str, str] = {}
    for i, rx in enumerate(act.react):
        at = f"react[{i}] ({rx.player}, {rx.unit} {rx.use!r})"
        found = find(scn, rx.unit, rx.use)
        if found is None or found.ability.type != "reaction":
            what = "" if found is None else f" ({rx.use!r} is {found.ability.type.title()})"
            say(
                act,
                f"{at}: not a Reaction of {rx.unit!r}{what}; allowed: a Reaction of {scn.units[rx.unit].unit.name} "
                f"or of {rx.player}'s cards: {', '.join(choices(scn, rx.unit, 'reaction')) or 'none'}",
            )
            continue
        a = found.ability
        if rx.player in by_player:
            say(
                act,
                f"{at}: {rx.player} already resolves {by_player[rx.player]!r} in this Activation: one Reaction per "
                "player per Activation (10.4; FAQ v1.1: REPEATABLE never allows two in one Activation)",
            )
            continue
        by_player[rx.player] = a.name
        if rx.unit not in pos:
            say(act, f"{at}: {rx.unit!r} is in Reserves: a unit in Reserves uses no abilities (10.4, FAQ v1.0)")
            continue
        if a.phase not in (act.phase, "any"):
            say(act, f"{at}: {a.name!r} is used in the {a.phase.title()} Phase, not the {PHASE_TITLE[act.phase]}")
        if _again(used, rx.unit, a):
            say(
                act,
                f"{at}: {a.name!r} a second time this Round for {rx.unit!r} (10.4: once per Round per unit "
                "unless REPEATABLE)",
            )
        over = _printed_limit(found, rx.unit, rx.player, act.round, act.where, once)
        if over:
            say(act, f"{at}: {over}")
        tag = needs_tag(a) if found.card else ""
        if tag and tag not in scn.units[rx.unit].unit.card.combat_tags:
            say(act, f"{at}: {a.name!r} ({found.card}) is for a Friendly {tag} Unit; {rx.unit!r} is not")
        if not any(e.kind == "cost_reduction" for e in a.effects):  # (those: _reaction_discounts, before the use)
            why = purses[rx.player].pay(found, (), cost_discount(scn, world, pos, rx.unit, found, None, taken))
            if why:
                say(act, f"{at}: {why}")
        own = rx.player == act.player

        if charge_roll(a) is not None:
            if not own or rx.unit != act.unit or act.action != "charge":
                _trigger(
                    say, act, at, a, "a Friendly Unit's Charge Roll (8.7.7)", f"the Charge of {rx.unit!r} itself", False
                )
        elif (slow := charger_debuff(a)) is not None:
            if own or act.action != "charge":
                _trigger(
                    say, act, at, a, "an Enemy's Charge declaration against a Friendly Unit", "the opponent's `charge`"
                )
            elif (
                slow.within is not None
                and rx.unit in pos
                and not any(t in pos and _within_now(scn, world, pos, rx.unit, t, slow.within) for t in act.targets)
            ):
                say(
                    act,
                    f'{at}: no Charge target is Within {slow.within:g}" of {rx.unit!r} at this point of the plan '
                    f'({a.name!r} answers a Charge against a Friendly Unit Within {slow.within:g}", 10.4)',
                )
        elif (dbf := attacker_debuff(a)) is not None:
            if own or act.action != "shoot":
                _trigger(say, act, at, a, "an Enemy Unit's Ranged Attack declaration", "the opponent's `shoot`")
            elif dbf.within is not None and not _within_now(scn, world, pos, rx.unit, act.unit, dbf.within):
                _too_far(say, act, at, a, act.unit, rx.unit, dbf.within, "an Enemy Unit")
        elif (rem := remover(a)) is not None:
            theirs = [find(scn, o.unit, o.use) for o in act.react if o.player != rx.player]
            if not own or not any(f is not None and gives_debuff(f.ability) for f in theirs):
                _trigger(
                    say,
                    act,
                    at,
                    a,
                    "a DEBUFF on a Friendly Unit",
                    "that unit's activation, with the opponent's Reaction that gives the DEBUFF (Concusive Shells on "
                    "a charge, Debilitating Saliva on a shot)",
                )
            elif rem.within is not None and not _within_now(scn, world, pos, rx.unit, act.unit, rem.within):
                _too_far(say, act, at, a, act.unit, rx.unit, rem.within, "a Friendly Unit")
        elif (red := reduction(a)) is not None:
            _check_reduction(scn, world, act, say, warn, pos, rx, found, red, at)
        elif (guard := next((e for e in a.effects if e.kind in ("redirect", "lunge")), None)) is not None:
            # Hierarch's Stand, Lunge: the opponent's Ranged Attack at another Friendly Unit Within ``within``
            unit = protected(scn, act, rx, found)
            if own or act.action != "shoot":
                what = "an Enemy Unit's Ranged Attack at another Friendly Unit"
                _trigger(say, act, at, a, what, "the opponent's `shoot`")
            elif unit is None or unit == rx.unit:
                mine = [t for t in act.targets if scn.units[t].player == rx.player and t != rx.unit]
                say(
                    act,
                    f"{at}: name the Friendly Unit {a.name!r} answers for: for = one of {', '.join(mine) or 'none'}",
                )
            elif unit not in act.targets:
                say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
            elif guard.within is not None and not _within_now(scn, world, pos, rx.unit, unit, guard.within):
                _too_far(say, act, at, a, unit, rx.unit, guard.within, "another Friendly Unit")
        elif a.type == "reaction" and any(e.kind == "hits" for e in a.effects):  # Photon Overcharge
            if own or act.action != "deploy" or used_effect(scn, act, "deploy_edge") is None:
                _trigger(
                    say,
                    act,
                    at,
                    a,
                    "an Enemy Unit entering from Reserves other than by its Entry Edge",
                    "the opponent's `deploy` with Warp In, Armed and Ready or Timing Push",
                )
        elif any(e.kind == "heal_after_place" for e in a.effects):
            if not own or rx.unit != act.unit or act.place_to is None:
                _trigger(
                    say, act, at, a, "a Friendly Unit's PLACE effect", f"the activation of {rx.unit!r} with place_to"
                )
        elif target_effects(a):
            # a unit's Reaction for a Friendly Unit Within X of it (Hallucination: "the targeted Friendly Unit")
            reach = min((e.within for e in target_effects(a) if e.within is not None), default=None)
            unit = rx.unit if reach is None or found.card else protected(scn, act, rx, found)
            if own:
                say(
                    act,
                    f"{at}: {a.name!r} answers an attack on {unit or rx.unit!r}; an activation of its own player "
                    "never attacks it (10.4: declared at the moment of its trigger)",
                )
            elif act.action not in ("shoot", "charge", "fight"):
                say(act, f"{at}: {a.name!r} answers an attack; a {act.action} makes none (10.4)")
            elif unit is None:
                mine = [t for t in act.targets if scn.units[t].player == rx.player]
                say(
                    act,
                    f"{at}: name the Friendly Unit {a.name!r} is for: for = one of {', '.join(mine) or 'the targets'}",
                )
            elif act.targets and unit not in act.targets:
                say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
            elif reach is not None and not _within_now(scn, world, pos, rx.unit, unit, reach):
                _too_far(say, act, at, a, unit, rx.unit, reach, "a Friendly Unit")
            elif act.action == "charge" and not has_impact(scn.units[act.unit]):
                warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")
        elif any(e.kind == "cost_reduction" for e in a.effects):
            _discount_trigger(scn, act, say, at, rx, a)
        elif any(e.kind == "second_charge" for e in a.effects):  # Lightning Dash
            _dash_target(scn, act, say, at, rx, a, pos)
        else:
            warn(
                act,
                f"{at}: {a.name!r} has no modelled effect (no machine-readable combat effect); "
                "the simulation ignores it",
            )


def _dash_target(
    scn: Scenario, act: Activation, say: Say, at: str, rx: Reaction, a: Ability, pos: dict[str, int]
) -> None:
    """Lightning Dash ("After this Unit resolves a successful Charge action, it may declare a second Charge action
    against a different Enemy Unit"): planned by the charging unit on its own ``charge``, the second target named in
    ``select``: an Enemy Ground Unit on the table, not a target of the first Charge."""
    if rx.player != act.player or rx.unit != act.unit or act.action != "charge":
        _trigger(say, act, at, a, "this unit's successful Charge (8.7.7)", f"the `charge` of {rx.unit!r} itself", False)
        return
    picked = second_charge(scn, act)
    foes = sorted(
        u for u, su in scn.units.items() if su.player != act.player and not su.flying and u not in act.targets
    )
    if picked is None:
        say(
            act, f"{at}: name the Enemy Unit of the second Charge: select = {{ {a.name!r} = one of {', '.join(foes)} }}"
        )
    elif picked in act.targets or scn.units[picked].player == act.player or scn.units[picked].flying:
        say(
            act,
            f"select.{a.name}: got {picked!r}; allowed: a different Enemy Ground Unit (8.7.7 step 1; its text: "
            f"{a.text!r}): {', '.join(foes) or 'none'}",
        )
    elif picked not in pos:
        say(act, f"select.{a.name}: {picked!r} is not on the table at this point of the plan (8.7.7)")


def _discount_trigger(scn: Scenario, act: Activation, say: Say, at: str, rx: Reaction, a: Ability) -> None:
    """A card Reaction that lowers a cost (Advanced Training: "when a Friendly Support Unit activates a Special
    Ability that costs CP"), planned by the active unit itself on an activation that uses such an ability."""
    su = scn.units[act.unit]
    for e in a.effects:
        if e.kind != "cost_reduction":
            continue
        paid = [
            f.ability.name
            for n in act.use
            if (f := find(scn, act.unit, n)) is not None and f.ability.resource == e.resource and f.ability.cost
        ]
        if rx.player != act.player or rx.unit != act.unit:
            say(
                act, f"{at}: {a.name!r} answers the active unit's own Special Ability: plan it with unit = {act.unit!r}"
            )
        elif e.slot and su.unit.card.army_slot != e.slot:
            say(act, f"{at}: {a.name!r} is for a Friendly {e.slot} Unit; {act.unit!r} is {su.unit.card.army_slot}")
        elif not paid:
            say(act, f"{at}: {a.name!r} answers a Special Ability that costs {e.resource}; this activation uses none")


def _trigger(say: Say, act: Activation, at: str, a: Ability, what: str, where: str, text: bool = True) -> None:
    """Reaction ``a`` (``at``: where it is planned) answers a trigger the activation cannot produce (10.4: a Reaction
    is declared at the moment of its trigger)."""
    quoted = f" (its text: {a.text!r})" if text else ""
    say(act, f"{at}: {a.name!r} answers {what}{quoted}: plan it on {where} (10.4: declared at its trigger)")


def _too_far(say: Say, act: Activation, at: str, a: Ability, unit: str, reacting: str, inches: float, who: str) -> None:
    """Reaction ``a`` answers ``who`` Within ``inches`` of ``reacting``; ``unit`` is not, where the plan has them."""
    say(
        act,
        f'{at}: {unit!r} is not Within {inches:g}" of {reacting!r} at this point of the plan ({a.name!r} answers '
        f'{who} Within {inches:g}", 10.4)',
    )


def _extra_move_ok(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    engaged: bool,
    occupied: Callable[[str], tuple[int, ...]],
    why_not: Callable[[Activation, tuple[float, float]], str],
) -> bool:
    """An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\" Move action") to the
    plan's ``extra_to``, before the action: the unit on the table and Unengaged (8.5.2), at most the ability's
    inches on its level, and a legal end (8.5.3). True where the unit moved (``pos`` updated)."""
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
    return _set_unit(scn, world, act, say, pos, act.extra_to, here.level, occupied, why_not, "extra_to")


def _set_unit(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: dict[str, int],
    to: tuple[float, float],
    level: str | None,
    occupied: Callable[[str], tuple[int, ...]],
    why_not: Callable[[Activation, tuple[float, float]], str],
    field: str,
) -> bool:
    """Set ``act``'s unit with its Leading Model at ``to`` on ``level``, the others behind it (8.5.3), where the plan
    has it (``pos``); a ``field`` error where it cannot be set there. True where it was set."""
    su = scn.units[act.unit]
    pid = world.place(su, to, world.rear_from(pos[act.unit], to), occupied(act.unit), on=level)
    if pid is None:
        say(act, f"{field}: " + why_not(act, to))
        return False
    pos[act.unit] = pid
    return True


def _lunge_moves(
    scn: Scenario, world: World, act: Activation, pos: dict[str, int], occupied: Callable[[str], tuple[int, ...]]
) -> None:
    """The opponent's Lunge after ``act``'s Ranged Attack (``lunge``): the reacting unit's Move Directly Towards the
    attacking unit (:meth:`World.toward`), where the plan has them, so that its later entries are read from there."""
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


def _place_ok(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    engaged: bool,
    occupied: Callable[[str], tuple[int, ...]],
    why_not: Callable[[Activation, tuple[float, float]], str],
) -> bool:
    """PLACE (X) of an ability of ``use`` (Blink, Phase, Ready for Pickup?) to the plan's ``place_to``: the Leading
    Model set Wholly Within X" of where it stands (its centre at most X away; part 11 PLACE), on the playmat, a
    legal end, not Within 1" of an enemy; "instead of performing a standard action" (Ready for Pickup?): the
    activation holds. True where the unit was set (``pos`` updated)."""
    places = [(a, e.value) for a, e in used_effects(scn, act, "place")]
    if act.place_to is None:
        if places and act.action != "deploy":
            warn(act, "use: a PLACE effect with no place_to = [x, y] (where its Leading Model is set): the unit stays")
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
        say(act, f'place_to: {d:.1f}" from the Leading Model; PLACE ({reach}) sets it Wholly Within {reach}" (part 11)')
    return _set_unit(scn, world, act, say, pos, act.place_to, None, occupied, why_not, "place_to")


def _hidden_now(
    scn: Scenario,
    world: World,
    act: Activation,
    pos: dict[str, int],
    down: set[str],
    used: dict[tuple[str, str], int],
    seen_by: list[tuple[tuple[float, float], str, float]],
) -> dict[str, str]:
    """The planned targets of ``act`` HIDDEN at this point of the plan, with their facts tag, as the simulation reads
    them: BURROWED (``down``), or HIDDEN by an ability used on them this Round (Path of Shadows); not where an enemy
    Faction Indicator of detection (``seen_by``) or an enemy unit with Detection is Within its range of them."""
    out: dict[str, str] = {}
    for t in act.targets:
        if t not in pos:
            continue
        tu = scn.units[t]
        names = [n for (u, n), k in used.items() if u == t and k > 0]
        hid = any(
            e.kind == "unit_keyword" and e.keyword.upper() == "HIDDEN"
            for n in names
            if (f := find(scn, t, n)) is not None
            for e in f.ability.effects
        )
        tag = "Burrowed" if t in down else "Hidden" if hid else None
        if tag is None:
            continue
        spotted = any(
            p != tu.player and world.point_gap(pos[t], tu.models, xy, TOKEN_RADIUS) <= inches + EPS
            for xy, p, inches in seen_by
        ) or any(
            su.player != tu.player and d in pos and _within_now(scn, world, pos, d, t, float(e.within or 0))
            for d, su in scn.units.items()
            for a in unit_abilities(su)
            for e in a.effects
            if e.kind == "detector"
        )
        if not spotted:
            out[t] = tag
    return out


def _check_token(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    tumors: list[tuple[tuple[float, float], str]],
) -> None:
    """The Creep Tumor token an ability of ``use`` sets (``creep_tumor``) at the plan's ``token_at``: on the
    battlefield, Within the ability's ``within`` of the player's Entry Edge or of a Creep Tumor the player set earlier
    (Creep Spread), or in Base-to-Base contact with the unit (Spawn Creep Tumor: its base edge at most
    ``TOKEN_CONTACT`` from a model's). Kept in ``tumors``."""
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
            "token_at: no ability of use sets a token (Creep Spread, Excrete Creep, Spawn Creep Tumor, Scanner Sweep, "
            "Surveillance, Oversight Mode, Mass Recall, Psionic Transfer, Ready for Dust-Off, Ventral Sacs, Force "
            "Field)",
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
                f'token_at: ({x:g}, {y:g}) is not Within {e.within:g}" of the {edge} Entry Edge or of a Creep Tumor '
                f"{act.player} set earlier (its text)",
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


_ALREADY = re.compile(r"cannot (?:use this ability|be used) if another Friendly (\w+) Unit has already", re.I)


def _deploy_edge_ok(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    away: Effect | None,
    deployed: list[tuple[str, str]],
    closed: list[tuple[str, str]],
) -> str | None:
    """A deploy by another table edge (``edge``, with Warp In, Armed and Ready or Timing Push: "Deploys from any
    table edge that is not a player's Entry Edge"): the edge named and not an Entry Edge, and no other Friendly
    unit of the kind the text names deployed earlier this Round ("cannot use this ability if another Friendly
    Ground Unit has already Deployed this Round"). The edge it enters by, or None (the player's Entry Edge)."""
    if away is None:
        return None  # (an edge without such an ability: :func:`_edge_block`)
    entry = set(world.edges.values())
    if act.edge is None or act.edge in entry:
        allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
        say(
            act,
            f"edge: got {act.edge!r}; allowed: a table edge that is not a player's Entry Edge: {', '.join(allowed)}",
        )
        return None
    if any(edge == act.edge and p != act.player for edge, p in closed):
        warn(
            act,
            f"edge: an enemy's Comsat Station closes the {act.edge} edge this Round: in the games where it resolves "
            "first (the order of activations, 8.2.1) the unit stays in Reserves",
        )
    for name in act.use:
        found = find(scn, act.unit, name)
        m = _ALREADY.search(found.ability.text) if found else None
        if m is None:
            continue
        tag = m.group(1).title()
        before = [u for u, p in deployed if p == act.player and tag in scn.units[u].unit.card.combat_tags]
        if before:
            say(
                act,
                f"use: {name!r}: another Friendly {tag} Unit ({before[0]}) has already Deployed this Round (its text)",
            )
    return act.edge


def cost_discount(
    scn: Scenario,
    world: World,
    pos: dict[str, int],
    unit: str,
    found: Found,
    rx_off: dict[str, int] | None,
    taken: set[tuple[str, str]],
) -> int:
    """How much less ``unit`` pays for ``found`` at this point of the plan (``cost_reduction`` effects, each "Once per
    Round": recorded in ``taken``), in its resource:

    * the unit's own, with Friendly models near (Psionic Link: "Once per Round, if there are at least 7 Friendly
      models Within 6\" of this Unit, it may resolve its Special Ability with the BM cost reduced by 1"; the models
      of the other Friendly units on the table, at full strength);
    * a Friendly unit's on the table, for a unit Within ``within`` of it (Khalai Ingenuity: "when a Friendly Unit
      Within 4\" of this Pylon uses a Special Ability that costs Psionic Energy");
    * a card Reaction planned on the activation by the unit itself (``rx_off``, :func:`_reaction_discounts`;
      Advanced Training: "when a Friendly Support Unit activates a Special Ability that costs CP, resolve that
      ability with its CP cost reduced by 1"), taken by the first ability paid in that resource.

    The player takes every reduction that applies (each only lowers a cost; never below 0).
    """
    a = found.ability
    if not a.resource or not a.cost or a.cost == "X":
        return 0
    su = scn.units[unit]
    off = 0
    for other, osu in scn.units.items():
        if osu.player != su.player or other not in pos:
            continue
        for ab in unit_abilities(osu):
            for e in ab.effects:
                if e.kind != "cost_reduction" or e.resource != a.resource or (other, ab.name) in taken:
                    continue
                if e.models_near:
                    if other != unit or e.within is None:
                        continue
                    near = sum(
                        world.models_within(pos[f], scn.units[f].models, pos[unit], su.models, float(e.within))
                        for f in pos
                        if f != unit and scn.units[f].player == su.player
                    )
                    if near < e.models_near:
                        continue
                elif e.within is not None and not _within_now(scn, world, pos, other, unit, e.within):
                    continue
                taken.add((other, ab.name))
                off += e.value
    if rx_off is not None:
        off += rx_off.pop(str(a.resource), 0)  # one ability of the activation gets it ("that ability")
    return off


def _reaction_discounts(scn: Scenario, act: Activation, purse: Purse, say: Say) -> dict[str, int]:
    """The cost reductions of card Reactions the active unit plans on its own activation (Advanced Training: "when a
    Friendly Support Unit activates a Special Ability that costs CP, resolve that ability with its CP cost reduced
    by 1 ... Do not Exhaust this card"), per resource. Each is used before the ability is paid: its card must be
    Ready then (10.5.2; FAQ: an Academy Exhausted to pay for something else gives no Advanced Training), and the
    ability's cost may then Exhaust it. :func:`_discount_trigger` names a Reaction planned where it cannot apply."""
    su = scn.units[act.unit]
    off: dict[str, int] = {}
    for i, rx in enumerate(act.react):
        f = find(scn, rx.unit, rx.use) if rx.unit == act.unit and rx.player == act.player else None
        cuts = [e for e in f.ability.effects if e.kind == "cost_reduction"] if f else []
        if not cuts or not all(e.slot in ("", su.unit.card.army_slot) for e in cuts):
            continue
        assert f is not None
        why = purse.pay(f)
        if why:
            say(act, f"react[{i}] ({rx.player}, {rx.unit} {rx.use!r}): {why}")
            continue
        for e in cuts:
            off[e.resource] = off.get(e.resource, 0) + e.value
    return off


def _placer_source(scn: Scenario, act: Activation, placer: Effect) -> tuple[str, str | None]:
    """The name of the ability of ``placer`` (a ``deploy_place`` effect) and the unit it PLACEs from (``select``),
    None for the Entry Edge or a selection the select check names."""
    name = next(a.name for a, e in used_effects(scn, act, "deploy_place") if e is placer)
    picked = next((u for n, u in act.select if n.strip().lower() == name.lower()), None) if placer.select else None
    return name, picked


def _place_start(scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int], placer: Effect) -> None:
    """A Deploy by PLACE, before the unit is set: Phase Prism ("PLACE (0) effect from another Friendly Unit. That
    Friendly Unit is removed from the battlefield and returned to Reserves") sets the Leading Model where the
    selected unit's Leading Model stands (``to`` must be that spot), and that unit leaves the table (8.5.5)."""
    name, picked = _placer_source(scn, act, placer)
    found = find(scn, act.unit, name)
    swap = found is not None and any(e.kind == "to_reserves" and e.select for e in found.ability.effects)
    if not swap or picked is None or picked not in pos:
        return  # (the select check names a unit not on the table)
    assert act.to is not None
    lead = world.placements[pos[picked]].centres[0]
    if math.dist(lead, act.to) > 0.05:
        say(
            act,
            f"to: {name!r} (PLACE (0)) sets {act.unit!r} where {picked!r}'s Leading Model stands at this point of "
            f"the plan: to = [{lead[0]:g}, {lead[1]:g}]",
        )
    del pos[picked]  # returned to Reserves: it may Deploy again


def _place_end(
    scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int], placer: Effect, pid: int
) -> None:
    """A Deploy by PLACE (X), once set: every model Wholly Within X of the Entry Edge (Burrow Ambush: "PLACE (18)
    effect from the controlling player's Entry Edge") or of the selected Friendly Unit (Rapid Reinforcements)."""
    name, picked = _placer_source(scn, act, placer)
    su = scn.units[act.unit]
    if not placer.select:
        edge = world.edges[su.player]
        if not world.wholly_within_from(pid, su.models, placer.value, edge=edge):
            say(
                act,
                f'a model ends more than {placer.value}" from the {edge} Entry Edge ({name!r}: PLACE ({placer.value}) '
                "sets it Wholly Within)",
            )
    elif placer.value and picked is not None and picked in pos:
        src = (pos[picked], scn.units[picked].models)
        if not world.wholly_within_from(pid, su.models, placer.value, src=src):
            say(
                act,
                f'a model ends more than {placer.value}" from {picked!r} ({name!r}: PLACE ({placer.value}) sets it '
                "Wholly Within)",
            )


def _available(scn: Scenario, pos: dict[str, int], player: str, pool: int) -> int:
    """8.3.2 Available Supply at this point of the plan: the Supply Pool less the Supply of the player's units on the
    table (full strength; a unit whose Supply "counts as 0 when calculating the Supply Pool" counts 0)."""
    return pool - sum(
        scn.units[u].supply(scn.units[u].models)
        for u in pos
        if scn.units[u].player == player and counts_for_pool(scn.units[u])
    )


def _supply_ok(
    scn: Scenario, act: Activation, say: Say, warn: Say, pos: dict[str, int], exposed: set[str], pool: int, need: int
) -> None:
    """8.3.2 for a Deploy needing ``need`` Supply. At full strength the Available Supply is the Supply Pool less the
    Supply of the player's units on the table; "Units Destroyed in battle (or reduced by casualties) free up Available
    Supply for new arrivals", so a Deploy over it is legal in the games where casualties freed enough first. It is an
    error only where no game can free enough: the Supply of the player's units that stood on the table in an Assault
    or Combat Phase so far (``exposed``: the only ones casualties can have reduced) is too small. Otherwise a
    ``warning:`` with the condition; the simulation reads the Available Supply per game and skips the Deploy in the
    other games (``Simulation.available``, the skip report)."""
    left = _available(scn, pos, act.player, pool)
    if need <= left:
        return
    free = sum(_need(scn.units[u]) for u in pos if u in exposed and scn.units[u].player == act.player)
    if need > left + free:
        say(
            act,
            f"needs Supply {need}; Available Supply is {left} (Supply Pool {pool} - {pool - left} on the table) "
            "(8.3.2)",
        )
        return
    warn(
        act,
        f"needs Supply {need}; Available Supply at full strength is {left} (Supply Pool {pool} - {pool - left} on the "
        f"table): it fits only if casualties first free at least {need - left} Supply of {act.player}'s units on the "
        'table (8.3.2: "Units Destroyed in battle (or reduced by casualties) free up Available Supply"); the '
        "simulation skips the Deploy in the other games",
    )


def _need(su: ScenarioUnit) -> int:
    """The Supply a unit needs to arrive (8.3.2): its Current Supply Value at full strength, 0 for a Structure or a
    unit that counts 0 for the Supply Pool (Advanced Medic Facilities)."""
    return 0 if is_structure(su) or not counts_for_pool(su) else su.supply(su.models)


def entry_base_of(scn: Scenario, unit: str) -> Effect | None:
    """The ``entry_base`` effect of ``unit`` (its base counts as an Entry Edge: Warp Conduit, Omega Network)."""
    return unit_effect(scn.units[unit], "entry_base")


def _via_ok(
    scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int], via_used: dict[str, int]
) -> tuple[float, float] | None:
    """A deploy through the base of ``via`` (Warp Conduit: "Once per Round, the controlling player may deploy a Ground
    Unit from Reserves using this Pylon base as the Entry Edge"; Omega Network: "Each Round, Friendly Units with a
    combined Supply cost of 2 or less may be Deployed via this Entry Edge"): that unit on the table with such an
    effect, the unit of the kind it names, within its Round's limit, the Leading Model at most Speed from the base
    (8.5.5, as from an Entry Edge). The direction the other models are set in (towards the base), or None."""
    assert act.via is not None and act.to is not None
    su = scn.units[act.unit]
    e = entry_base_of(scn, act.via)
    if e is None:
        say(act, f"via: {act.via!r}'s base does not count as an Entry Edge (Warp Conduit, Omega Network)")
        return None
    if act.via not in pos:
        say(act, f"via: {act.via!r} is not on the battlefield at this point of the plan")
        return None
    if e.vs_tags and not set(e.vs_tags) & set(su.unit.card.combat_tags):
        say(act, f"via: {act.via!r} lets a {'/'.join(e.vs_tags)} Unit Deploy; {act.unit!r} is not one")
    need = su.supply(su.models) if e.value else 1
    used = via_used.get(act.via, 0)
    if used + need > (e.value or 1):
        what = f"a combined Supply of {e.value}" if e.value else "one unit"
        say(act, f"via: {act.via!r} lets {what} Deploy each Round; {used} already (its text)")
    via_used[act.via] = used + need
    d, back = base_entry(world, pos[act.via], scn.units[act.via].models, act.to)
    reach = su.speed + su.base_mm / MM_PER_INCH / 2
    if d > reach + EPS:
        say(act, f'the Leading Model ends {d:.1f}" from {act.via!r}\'s base; at most Speed {su.speed}" (8.5.5)')
    return back


def _contact_recall_ok(scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int]) -> bool:
    """Omega Network's return (``via`` on a ``move``, ``run`` or ``disengage``: "If a Friendly Leading model finishes a
    Move, Disengage, or Run action in base-to-base contact with the Omega Worm, the controlling player may remove that
    Unit from the battlefield and return it to Reserves"): ``via`` has the ability and is on the table, and the Leading
    Model ends in Base-to-Base contact with one of its models (edges at most ``TOKEN_CONTACT`` apart). Whether the
    unit leaves the table."""
    assert act.via is not None and act.to is not None
    if recall_base(scn, act.via) is None:
        ok = sorted(u for u in scn.units if scn.units[u].player == act.player and recall_base(scn, u) is not None)
        say(
            act,
            f"via: {act.via!r} returns no unit to Reserves; allowed on a {act.action}: a Friendly unit with Omega "
            f"Network: {', '.join(ok) or 'none in the army'}",
        )
        return False
    if act.via not in pos:
        say(act, f"via: {act.via!r} is not on the battlefield at this point of the plan")
        return False
    r = scn.units[act.unit].base_mm / MM_PER_INCH / 2
    gap = world.point_gap(pos[act.via], scn.units[act.via].models, act.to, r)
    if gap > TOKEN_CONTACT + EPS:
        say(
            act,
            f"via: the Leading Model's base ends {gap:.2f}\" from {act.via!r}'s; Base-to-Base contact returns the unit "
            f'to Reserves (Omega Network; at most {TOKEN_CONTACT:g}" apart)',
        )
        return False
    return True


def _summoned_act_ok(
    scn: Scenario, act: Activation, say: Say, pos: dict[str, int], summoned_at: dict[str, tuple[int, str]]
) -> bool:
    """The activation of a Summoned Unit (9.1.9): never a Deploy ("Summoned Units cannot be deployed using the regular
    deployment rules"); a Structure never activates; SUMMON: not in the Phase it was summoned in ("Set an Activation
    Marker next to the summoned Unit") and, while the Parent Unit is on the table, planned right after the Parent
    Unit's own activation ("must be Activated immediately after its Parent Unit's activation ends"). False: no
    further check of it."""
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
            say(act, f"{act.unit!r} is Activated immediately after its Parent Unit {su.parent!r}: plan it right after "
                f"{su.parent!r}'s activation in this Phase (SUMMON, part 11)")  # fmt: skip
    return True


def _summon(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: dict[str, int],
    occupied: Callable[[str], tuple[int, ...]],
    pool: int | None,
    summoned_at: dict[str, tuple[int, str]],
) -> None:
    """The units the activation's abilities summon, as :func:`abilities.summon` sets them: not on the battlefield
    already, within the Available Supply (8.3.2), set in Base-to-Base contact with the Parent Unit (SUMMON) or at
    ``summon_to`` (on the GROUND LEVEL, more than ``within`` from any Enemy model), not Within the Engagement Range
    of an Enemy Unit, not Within the opponent's Zone of Influence (8.3.3)."""
    found = used_effects(scn, act, "summon")
    if not found:
        if act.summon_to is not None:
            say(act, "summon_to: no ability of use sets a unit anywhere (Pylon Warp-In, Omega Network, Rapid Ingress)")
        return
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
                say(act, f"summon_to: {at} is on a terrain piece's top; {a.name!r} sets {uid!r} on the GROUND LEVEL")
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


def _force_field(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: dict[str, int],
    fields_now: list[tuple[tuple[float, float], int]],
) -> None:
    """Force Field, Solid-Field Projectors: "Set a Force Field token Within 8\" in an unoccupied space": ``token_at``
    Within ``within`` of the unit and overlapping no base at this point of the plan (full strength). Kept in
    ``fields_now`` for the Round's Charges (with the Size of the units it stops)."""
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


def _end_token(
    scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int], ending: list[Activation]
) -> None:
    """A token for the End of the Round at ``token_at`` (kept in ``ending``): Psionic Transfer's Shade "Wholly Within
    12\" of any model in this Unit", Ready for Dust-Off's and Ventral Sacs' Faction Indicator "more than 10\" away
    from any Enemy model" (at this point of the plan, full strength)."""
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
                    say(act, f'token_at: the Faction Indicator is {gap:.1f}" from {uid!r}; more than {drop.within:g}" '
                        "from any Enemy model (its text)")  # fmt: skip
                    return
    ending.append(act)


def _end_of_round(
    scn: Scenario,
    world: World,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    ending: list[Activation],
    pool: int | None,
) -> None:
    """The End of the Round (8.9.4): "The holder of the First Player Marker resolves their first. If a player has
    multiple "End of the Round" effects to resolve, that player chooses the order": a player's own in plan order
    (Rapid Ingress's removals first, then the tokens of ``ending``), as the simulation (``abilities.end_of_round``).
    Who holds the Marker is read per game, so where both players have effects the round is walked with each
    player first: a problem in both orders is an error, one in a single order a warning naming that order. The
    plan goes on from the walk with ``scn.first_player`` (red on a roll-off) first; ``ending`` is emptied."""
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


def _collect(out: list[tuple[Activation, str]]) -> Say:
    """A :data:`Say` that keeps the problems in ``out``."""

    def say(act: Activation, msg: str) -> None:
        out.append((act, msg))

    return say


def _leaving(scn: Scenario, pos: dict[str, int], player: str) -> list[str]:
    """The units of ``player`` Rapid Ingress removes at the End of the Round: "Remove this Unit at the End of the
    Round"."""
    return [
        uid
        for uid, su in scn.units.items()
        if uid in pos
        and su.player == player
        and su.summoned
        and any(e.kind == "summon" and e.leaves for e in summoning(scn, su))
    ]


def _end_of_round_player(
    scn: Scenario,
    world: World,
    say: Say,
    pos: dict[str, int],
    ending: list[Activation],
    pool: int | None,
    player: str,
) -> None:
    """``player``'s End of the Round effects (:func:`_end_of_round`) on the placements ``pos``: Rapid Ingress removes
    its units; Psionic Transfer sets the unit with its Leading Model at the Shade; Ready for Dust-Off and Ventral Sacs
    Deploy the selected unit, in Reserves, touching the Faction Indicator on the side of the player's Entry Edge
    (Available Supply, 8.3.2; not Within the opponent's Zone of Influence, 8.3.3)."""

    def occupied(but: str) -> tuple[int, ...]:
        return tuple(p for u, p in pos.items() if u != but)

    for uid in _leaving(scn, pos, player):
        del pos[uid]
    for act in ending:
        if act.player != player:
            continue
        assert act.token_at is not None
        xy = act.token_at
        if used_effect(scn, act, "shade") is not None:
            if act.unit in pos:
                su = scn.units[act.unit]
                pid = world.place(su, xy, world.rear_from(pos[act.unit], xy), occupied(act.unit))
                if pid is None:
                    say(act, f"token_at: at the End of the Round {act.unit!r} finds no room around the Shade token")
                else:
                    pos[act.unit] = pid
            continue
        name = next(a.name for a, _ in used_effects(scn, act, "dust_off"))
        picked = next((u for n, u in act.select if n.strip().lower() == name.lower()), None)
        if picked is None:
            continue  # (the select check names it)
        su = scn.units[picked]
        if picked in pos:
            say(act, f"select.{name}: {picked!r} is on the table at the End of the Round: it Deploys from Reserves")
            continue
        if pool is not None and _need(su) > (left := _available(scn, pos, act.player, pool)):
            say(act, f"select.{name}: {picked!r} needs Supply {_need(su)} at the End of the Round; Available Supply "
                f"is {left} (8.3.2)")  # fmt: skip
            continue
        rear = world.rear_of(act.player)
        pid = world.place(su, token_contact_lead(xy, su, rear), rear, occupied(picked))
        if pid is None:
            say(act, f"select.{name}: {picked!r} finds no room touching the Faction Indicator at the End of the Round")
            continue
        if _pid_in_enemy_zone(world, picked, act.player, pid):
            say(act, f"select.{name}: {picked!r} would end Within the opponent's Zone of Influence (8.3.3)")
        pos[picked] = pid


def _mass_recall(scn: Scenario, world: World, act: Activation, say: Say, pos: dict[str, int]) -> bool:
    """Mass Recall ("Set a Faction Indicator anywhere on the battlefield. All Friendly Protoss Units Within 6\" of this
    Faction Indicator are removed from the battlefield and returned to Reserves"), before the action: the units of
    :func:`recalled_by` on the table with a model Within 6" of ``token_at`` (full strength) leave ``pos`` (8.5.5).
    True where the active unit is among them: its action is then an error unless a ``hold``."""
    e = next((x for _, x in used_effects(scn, act, "to_reserves") if x.within is not None), None)
    if e is None or act.token_at is None:
        return False
    gone = [
        uid
        for uid in recalled_by(scn, act, e)
        if uid in pos
        and world.point_gap(pos[uid], scn.units[uid].models, act.token_at, TOKEN_RADIUS) <= float(e.within or 0) + EPS
    ]
    for uid in gone:
        del pos[uid]
    if act.unit in gone and act.action != "hold":
        say(act, f"use: Mass Recall returns {act.unit!r} itself to Reserves before its {act.action}: plan a `hold`")
    return act.unit in gone


def _recall_ok(scn: Scenario, act: Activation, say: Say, on: bool, engaged: bool) -> bool:
    """An ability that returns the unit to Reserves (Strap In!, Strategic Recall: "The active, Unengaged Ground Unit
    is returned to Reserves instead of performing an action"): planned on a ``hold``, for a Ground unit on the table
    and Unengaged at this point of the plan. True: it goes back (8.5.5 UNITS RETURNED TO RESERVES)."""
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


def _edge_block(scn: Scenario, world: World, act: Activation, say: Say) -> None:
    """Comsat Station ("Select one table edge that is not a player's Entry Edge. Until the End of the Round, Enemy
    Units cannot Deploy from that edge"): the plan's ``edge`` names it (the enemy's Deploys by it: a warning of
    :func:`_deploy_edge_ok`). An ``edge`` on an activation with neither such an ability nor a Deploy by another table
    edge is an error."""
    if used_effect(scn, act, "edge_block") is None:
        if act.edge is not None and (act.action != "deploy" or used_effect(scn, act, "deploy_edge") is None):
            say(
                act,
                "edge: only with an ability that Deploys from another table edge (Warp In, Armed and Ready) or closes "
                "one (Comsat Station)",
            )
        return
    entry = set(world.edges.values())
    allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
    if act.edge is None or act.edge in entry:
        say(
            act,
            f"edge: got {act.edge!r}; allowed: the table edge Comsat Station closes, not a player's Entry Edge: "
            f"{', '.join(allowed)}",
        )
        return


def _burrow_ok(scn: Scenario, act: Activation, down: set[str], engaged: bool) -> bool:
    """Follow the Burrowed Status through the plan (``down``): the activation's abilities that change it (Burrow
    gains or loses it where the unit is Unengaged, Nasty Surprise removes it), then its action (a Move, Run or
    Disengage removes it; in the Combat Phase, Close Ranks does, where the policy makes it). False: the action is
    one a BURROWED unit cannot perform (a Ranged Attack, a Charge, a Gather; an Engaged BURROWED unit still fights,
    without attacking where the policy makes no Close Ranks)."""
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


def _check_select(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: dict[str, int],
    on_unit: dict[tuple[str, str], Ability],
) -> None:
    """10.1: an Active ability of ``use`` that selects a unit ("Select one Enemy Unit Within 12\"") names it in
    ``select``: a unit of the side its text asks for, on the table and Within range at this point of the plan.
    Its effects on the selected unit's weapons (Optical Flare) go into ``on_unit`` for the unit's shots."""
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
        ok = sorted(u for u, su in scn.units.items() if (su.player == mine) == (side == "friendly") and u != act.unit)
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


def _within_now(scn: Scenario, world: World, pos: dict[str, int], a: str, b: str, inches: float) -> bool:
    """Are units ``a`` and ``b`` Within ``inches`` at this point of the plan (full strength, bases edge to edge)?
    True where either is not on the table (another check names that) or they are one unit."""
    if a == b or a not in pos or b not in pos:
        return True
    return world.within(pos[a], scn.units[a].models, pos[b], scn.units[b].models, float(inches))


def _check_reduction(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    warn: Say,
    pos: dict[str, int],
    rx: Reaction,
    found: Found,
    red: Effect,
    at: str,
) -> None:
    """10.4 + 8.7.4 step 5: a Reaction reducing the Total Damage of a Friendly Unit the activation attacks."""
    a = found.ability
    if rx.player == act.player:
        say(act, f"{at}: {a.name!r} answers Damage to a Friendly Unit; its own player's activation never attacks it")
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
    if red.costs_activation and rx.for_unit not in ("", rx.unit):
        say(act, f"{at}: {a.name!r} protects {rx.unit!r} itself (its text: this Unit), not {rx.for_unit!r}")
        return
    if act.targets and unit not in act.targets:
        say(act, f"{at}: {unit!r} is not a planned target of this activation (10.4)")
        return
    if not found.card and unit == rx.unit and not red.costs_activation:
        say(act, f"{at}: {a.name!r} protects another Friendly Unit (its text), not {rx.unit!r} itself")
        return

    tags = scn.units[unit].unit.card.combat_tags
    if red.vs_tags and not set(red.vs_tags) & set(tags):
        say(act, f"{at}: {a.name!r} is for a Friendly {' or '.join(red.vs_tags)} Unit; {unit!r} is not")
        return
    if red.within is not None and not _within_now(scn, world, pos, rx.unit, unit, red.within):
        _too_far(say, act, at, a, unit, rx.unit, red.within, "a Friendly Unit that suffers Damage")
        return
    if act.action == "charge" and not has_impact(scn.units[act.unit]):
        warn(act, f"{at}: no modelled effect: a Charge without IMPACT makes no attack")


def _mass(scn: Scenario, unit: str, down: set[str], models: int | None = None) -> int:
    """A unit's Supply for Disengage checks (8.5.4): its Current Supply Value with ``models`` (full strength without)
    plus its ``disengage_supply`` (Commander); 0 while Burrowed (part 11 BURROWED: "Its Current Supply Value is
    treated as 0 for Disengage checks")."""
    su = scn.units[unit]
    bonus = sum(e.value for e in loadout_with(scn, unit, [], {}).effects() if e.kind == "disengage_supply")
    return 0 if unit in down else su.supply(su.models if models is None else models) + bonus


def _tactical_mass(
    scn: Scenario, unit: str, foes: list[str], down: set[str], exposed: set[str]
) -> tuple[bool, str] | None:
    """8.5.4 Tactical Mass of ``unit`` Disengaging from ``foes``, judged over the games: "A Unit that Disengages
    cannot perform Ranged Attack or Charge in the following Assault Phase - unless its Current Supply Value is greater
    than the Combined Supply of all enemies it was Engaged with". Casualties only lower a Supply: the unit's own is
    at most its full-strength value; an enemy unit that stood on the table in an Assault or Combat Phase (``exposed``)
    may be destroyed (then it is not Engaged), the others are at full strength. None: Tactical Mass in every game;
    (True, why): in no game; (False, condition): in some games only."""
    mine = _mass(scn, unit, down)
    combined = sum(_mass(scn, f, down) for f in foes)
    least = sum(_mass(scn, f, down) for f in foes if f not in exposed)
    names = ", ".join(map(repr, foes))
    if mine <= least:
        return True, (
            f"its Supply for Disengage checks ({mine}) can never exceed the Combined Supply of {names} ({least} at "
            "least)"
        )
    if mine <= combined:
        return False, (
            f"only in games where casualties first cut the Combined Supply of {names} ({combined} at full strength) "
            f"below its own ({mine} at full strength)"
        )
    low = _mass(scn, unit, down, 1)
    if unit in exposed and low <= combined:
        return False, (
            f"only in games where its own casualties leave its Supply ({mine} at full strength) above the Combined "
            f"Supply of {names} ({combined} at full strength)"
        )
    return None


def _penalty(
    scn: Scenario,
    act: Activation,
    say: Say,
    warn: Say,
    mass: tuple[bool, str],
    used: dict[tuple[str, str], int],
    on_unit: dict[tuple[str, str], Ability],
) -> None:
    """8.5.4 Disengage penalty on a Ranged Attack or Charge of ``act``'s unit after it Disengaged this Round
    (:func:`_tactical_mass`), unless an ability used on it "ignores the Disengage penalty" (Tactical Retreat)."""
    if any(e.kind == "ignore_disengage_penalty" for e in _loadout_now(scn, act.unit, used, on_unit).effects()):
        return
    never, why = mass
    rule = '8.5.4: "cannot perform Ranged Attack or Charge in the following Assault Phase" without Tactical Mass'
    if never:
        say(act, f"{act.unit!r} Disengaged this Round and has no Tactical Mass: {why} ({rule})")
    else:
        warn(
            act,
            f"{act.unit!r} Disengaged this Round: it has Tactical Mass {why} ({rule}); the simulation skips the "
            f"{act.action} in the other games",
        )


def _loadout_now(
    scn: Scenario,
    unit: str,
    used: dict[tuple[str, str], int],
    on_unit: dict[tuple[str, str], Ability],
    on_creep: bool = False,
) -> Loadout:
    """``unit``'s loadout with the Active abilities used on it so far this Round (``used``; cards' too: Weapons of
    the Firstborn's BUFF Range) and an enemy's on its weapons (``on_unit``: Optical Flare's DEBUFF Range), as the
    simulation shoots with it (10.2: effects last until the end of the Round)."""
    names = [n for (u, n), k in used.items() if u == unit and k > 0]
    found = [f for f in (find(scn, unit, n) for n in names) if f is not None and f.ability.type == "active"]
    enemy = {n: a for (u, n), a in on_unit.items() if u == unit}
    return loadout_with(scn, unit, [f.ability.name for f in found] + list(enemy), enemy, on_creep=on_creep)


def _speed_now(
    scn: Scenario,
    world: World,
    act: Activation,
    pos: dict[str, int],
    used: dict[tuple[str, str], int],
    on_unit: dict[tuple[str, str], Ability],
    tumors: list[tuple[tuple[float, float], str]],
) -> tuple[int, int]:
    """``act``'s unit's Speed at this point of the plan (BUFF Speed of the abilities used on it this Round: Stimpack,
    Glial Reconstitution; ON CREEP ones where a Creep Tumor of the plan or a Source of Creep is Within 6\" of it), and
    the additions to its Charge Distance (Leap: ``charge_roll`` ``value``)."""
    su = scn.units[act.unit]
    creep = False
    if creeping(su) and act.unit in pos:
        creep = any(world.point_gap(pos[act.unit], su.models, xy, TOKEN_RADIUS) <= 6 + EPS for xy, _ in tumors) or any(
            d in pos and _within_now(scn, world, pos, d, act.unit, float(e.within or 0))
            for d, other in scn.units.items()
            for a in unit_abilities(other)
            for e in a.effects
            if e.kind == "creep_source"
        )
    effects = _loadout_now(scn, act.unit, used, on_unit, creep).effects()
    speed = su.speed + sum(e.value for e in effects if e.kind == "speed" and not e.on_creep)
    return speed, sum(e.value for e in effects if e.kind == "charge_roll")


def _check_shoot(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: tuple[int, ...],
    alive: tuple[int, ...],
    lo: Loadout | None = None,
    hidden: dict[str, str] | None = None,
) -> None:
    """8.7.3: the planned shot has a target it may shoot at this point of the plan; ``hidden``: the targets HIDDEN or
    BURROWED then, not detected (their facts tag: not Visible beyond 4", part 11)."""
    su = scn.units[act.unit]
    lo = su.loadout if lo is None else lo
    names = [w.name for w in su.unit.card.weapons] + [w.name for up in su.loadout.upgrades for w in up.weapons]
    for w in act.weapons:
        if w not in names:
            say(act, f"weapons: got {w!r}; allowed: weapons of {su.unit.name}: {', '.join(names)}")
            return
    reasons: list[str] = []
    for t in act.targets:
        tu = scn.units[t]
        if alive[world.uids.index(t)] <= 0:
            reasons.append(f"{t}: not on the table at this point of the plan")
            continue
        for b in attack_batches(lo, tu.unit, "assault", first=act.weapons[0] if act.weapons else None):
            if act.weapons and b.name not in act.weapons:
                continue
            tags = tuple(tu.unit.card.combat_tags) + ((hidden[t],) if hidden and t in hidden else ())
            f = world.facts(pos, alive, act.unit, t, b.weapon, tags)
            if f.eligible:
                return
            reasons.extend(f"{t} with {b.name}: {r}" for r in f.refusals)
        if not attack_batches(lo, tu.unit, "assault"):
            reasons.append(f"{t}: no Assault Phase weapon of {su.unit.name} may target it (8.7.3 step 1, Combat Tag)")
    say(act, "no planned target can be shot: " + "; ".join(reasons))


def _check_charge(
    scn: Scenario,
    world: World,
    act: Activation,
    say: Say,
    pos: dict[str, int],
    p_now: tuple[int, ...],
    a_now: tuple[int, ...],
    speed: int | None = None,
    more: int = 0,
    fields: tuple[tuple[float, float], ...] = (),
    dash: bool = False,
) -> bool:
    """8.7.7: the Charge can reach its targets at all: at most Speed (``speed``: with BUFF Speed) + 6 + the
    additions of the abilities used (``more``: Leap); ``fields``: the Force Fields it cannot move across;
    ``dash``: Lightning Dash's second Charge, from an Engaged start. Whether the unit was set at the end."""
    su = scn.units[act.unit]
    label = "Lightning Dash's second Charge: " if dash else ""
    speed = su.speed if speed is None else speed
    if su.flying:
        say(act, "a Flying unit cannot Charge (8.7.7)")
        return False
    bad = [t for t in act.targets if scn.units[t].flying or t not in pos]
    if bad:
        say(act, f"{label}targets {bad}: Charge targets must be Ground units on the table (8.7.7)")
        return False
    try:
        length, end = world.charge_length(p_now, a_now, act.unit, act.targets, fields=fields, engaged_ok=dash)
    except MathhammerError as exc:
        say(act, f"{label}{exc}")
        return False
    if end is None or length > speed + 6 + more + EPS:
        shown = "no legal end position" if end is None else f'{length:.1f}"'
        plus = f" + {more}" if more else ""
        say(act, f"{label}cannot reach: needs {shown}, at most Speed {speed} + 6{plus} (8.7.7)")
        return False
    tx, ty = world.placements[pos[act.targets[0]]].centres[0]
    pid = world.place(
        su, end, (end[0] - tx, end[1] - ty), tuple(p for u, p in pos.items() if u != act.unit), act.targets
    )
    if pid is not None:
        pos[act.unit] = pid
    return pid is not None


__all__ = ["check_scenario"]
