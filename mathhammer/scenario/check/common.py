"""Shared pieces of ``scenario check``: the walk state (:class:`_State`) and the pure helpers the checks share."""

from __future__ import annotations

import math
import re

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ...starcraft.schema import Ability
from ..abilities import (
    Found,
    Purse,
    has_impact,
    loadout_with,
    repeatable,
    unit_abilities,
)
from ..cards import plan_checks
from ..checkview import CardCheck, Say, zone_gap
from ..grass import Tracker
from ..spec import Activation, Scenario, ScenarioUnit
from ..world import World

#: The registered cards' plan checks (``Card.plan_check``), in the order their hooks run (``on_use``: Comsat Station's
#: edge, the End of the Round tokens, Force Field, summons, Mass Recall, then detection; ``CardCheck.order``).
FAMILIES = tuple(plan_checks())
#: Those of :data:`FAMILIES` whose ``on_creep`` is their own (``CardCheck.on_creep`` says no unit is ON CREEP): the
#: ones a reading of ON CREEP asks, in the same order
CREEP_FAMILIES = tuple(fam for fam in FAMILIES if fam.on_creep is not CardCheck.on_creep)

PHASE_TITLE = {"movement": "Movement Phase", "assault": "Assault Phase", "combat": "Combat Phase"}


class _State:
    """The state of the plan walk (:class:`~.walk.PlanCheck`) at the activation being checked: the planned placement
    of each unit, the Statuses, tokens and limits so far, and this Round's purses and uses; how a problem is said."""

    def __init__(self, scn: Scenario, world: World | None = None) -> None:
        """``world``: a World of ``scn`` whose geometry an earlier walk has read (its answers are functions of the
        board alone, so a second walk reads them again instead of computing them)."""
        self.scn = scn
        self.world = World(scn) if world is None else world
        self.grass = Tracker(self.world)  # part 11 GRASS: the pieces the plan has removed so far (grass.py)
        self.problems: list[str] = []
        self.pos: dict[str, int] = {}  # planned placement of each unit on the table
        self.once: dict[tuple[str, ...], str] = {}  # limits printed on an ability ("Once per Game"): first use
        # units with the Burrowed Status at this point of the plan (a Status stays, part 11)
        self.down: set[str] = set()
        self.tumors: list[tuple[tuple[float, float], str]] = []  # Creep Tumor tokens set so far (centre, player)
        self.seen_by: list[tuple[tuple[float, float], str, float]] = []  # detection's Faction Indicators this Round
        self.summoned_at: dict[str, tuple[int, str]] = {}  # Summoned Units set by the plan: (Round, Phase) set in
        # units on the table at the start of an Assault or Combat Phase so far: in some games casualties may have
        # reduced or destroyed them (8.3.2 "Units Destroyed in battle (or reduced by casualties) free up Available
        # Supply")
        self.exposed: set[str] = set()
        # units the plan attacks so far (a Shoot's or Charge's targets, Engaged at the start of a Combat Phase): the
        # only ones casualties may have destroyed for the per-game judgements of moves and attacks (:meth:`spared`)
        self.attacked: set[str] = set()
        # units the game sets, not the plan (the Leading Model's end after a Charge, 8.7.7; a CLOSE RANKS move, 8.8.1
        # step 1): how far (inches) their Leading Model may stand from the walk's full-strength placement in some games
        self.loose: dict[str, float] = {}
        # units the plan moved from a placement the game set (:attr:`loose`): their Leading Model is the plan's, the
        # models behind it trail from where the game had the unit (8.5.3), so they may stand otherwise in some games
        self.formed: set[str] = set()
        # this Round (:meth:`~.walk.PlanCheck.round`)
        self.pool: int | None = None
        self.purses: dict[str, Purse] = {}
        self.used: dict[tuple[str, str], int] = {}
        self.taken: set[tuple[str, str]] = set()  # once-per-Round cost reductions used this Round (unit, ability)
        self.deployed: list[tuple[str, str]] = []  # (unit, player) deployed so far this Round
        self.via_used: dict[str, int] = {}  # per unit whose base is an Entry Edge: Supply (or units) Deployed by it
        self.ending: list[Activation] = []  # tokens for the End of the Round (Psionic Transfer, Ready for Dust-Off)
        self.fields_now: list[tuple[tuple[float, float], int]] = []  # Force Fields set this Round: centre, Size limit
        self.closed: list[tuple[str, str]] = []  # (table edge, the player who closes it) this Round: Comsat Station
        self.on_unit: dict[tuple[str, str], Ability] = {}  # an enemy's ability on a unit's weapons (Optical Flare)
        # units that Disengaged this Round: (never Tactical Mass, why)
        self.disengaged: dict[str, tuple[bool, str]] = {}

    def say(self, act: Activation, msg: str) -> None:
        self.problems.append(
            f"{self.scn.file}: {act.where} (round {act.round}, {PHASE_TITLE[act.phase]}, {act.player}, "
            f"{act.unit or 'pass'} {act.action}): {msg}"
        )

    def warn(self, act: Activation, msg: str) -> None:
        self.problems.append(
            f"warning: {self.scn.file}: {act.where} (round {act.round}, {PHASE_TITLE[act.phase]}, {act.player}, "
            f"{act.unit or 'pass'} {act.action}): {msg}"
        )

    def occupied(self, but: str) -> tuple[int, ...]:
        return tuple(p for u, p in self.pos.items() if u != but)

    def as_set(self, unit: str) -> ScenarioUnit:
        """``unit`` as a Move, Run or Deploy sets it in the walk's state: its models left only
        (:meth:`World.models_left`; the plan check's own state is at full strength)."""
        return self.world.models_left(self.scn.units[unit], self.state()[1][self.world.index[unit]])

    def state(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        p = tuple(self.pos.get(u, -1) for u in self.world.uids)
        a = tuple(self.scn.units[u].models if self.pos.get(u, -1) >= 0 else 0 for u in self.world.uids)
        return p, a

    def spared(self, keep: tuple[str, ...]) -> tuple[list[str], tuple[int, ...], tuple[int, ...]]:
        """The units on the table that casualties may have destroyed in some games (:attr:`attacked` so far), but
        ``keep``; and the walk's state with them off the table."""
        gone = sorted(u for u in self.pos if u in self.attacked and u not in keep)
        return gone, *self.without(gone)

    def engaged_surely(self, unit: str) -> tuple[bool, list[str]]:
        """Is ``unit`` Engaged (7.2.1) in every game where it is at this point of the plan, and the enemies it is
        Engaged with at the walk's placements. Not where those enemies may have been destroyed (``exposed``), nor
        where the game sets the Leading Model of the unit or of the enemy (:attr:`loose`: it may stand apart)."""
        p, a = self.state()
        foes = [b for x, b in self.world.engaged_pairs(p, a) if x == unit]
        _, p_s, a_s = self.spared((unit,))
        left = [b for x, b in self.world.engaged_pairs(p_s, a_s) if x == unit]
        return bool(left) and unit not in self.loose and any(b not in self.loose for b in left), foes

    def without(self, units: list[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The walk's state with ``units`` off the table."""
        p, a = self.state()
        off = {self.world.uids.index(u) for u in units}
        return (
            tuple(-1 if i in off else x for i, x in enumerate(p)),
            tuple(0 if i in off else x for i, x in enumerate(a)),
        )

    def if_destroyed(self, act: Activation, problem: str, gone: list[str]) -> None:
        """``problem`` of ``act`` holds at full strength only, the units ``gone`` on the table: a ``warning:`` with the
        condition (the games where casualties destroyed them first, 8.7.5 / 8.8.1 step 4)."""
        names = ", ".join(map(repr, sorted(gone)))
        loose = sorted(u for u in {act.unit, *gone} if u in self.loose)
        where = (
            f" or the game set {', '.join(map(repr, loose))} apart (a Charge's end, 8.7.7; CLOSE RANKS, 8.8.1 step 1)"
            if loose
            else ""
        )
        self.warn(
            act,
            f"{problem} at the walk's full-strength placements; legal only in games where casualties first destroyed "
            f"{names} (8.7.5: destroyed models are removed){where}; the simulation skips it in the other games",
        )

    def near(self, pid: int, units: list[str]) -> list[str]:
        """Those of ``units`` with a base Within 1" of a model of placement ``pid`` (7.2.1 Engagement Range)."""
        world, scn = self.world, self.scn
        mine = world.placements[pid]
        r = scn.units[mine.unit].base_mm / MM_PER_INCH / 2
        out = []
        for u in units:
            o = scn.units[u].base_mm / MM_PER_INCH / 2
            theirs = world.placements[self.pos[u]].centres
            if any(math.dist(c, d) - r - o <= ENGAGEMENT_RANGE + EPS for c in mine.centres for d in theirs):
                out.append(u)
        return out or units

    def loose_by(self, units: tuple[str, ...]) -> float:
        """How far the game may have set ``units``' Leading Models from the walk's placements (:attr:`loose`)."""
        return sum(self.loose.get(u, 0.0) for u in units)

    def why_not(self, act: Activation, lead: tuple[float, float]) -> str:
        scn, world = self.scn, self.world
        su = scn.units[act.unit]
        r = su.base_mm / MM_PER_INCH / 2
        for other, pid in self.pos.items():
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


def _again(used: dict[tuple[str, str], int], unit: str, abil: Ability) -> bool:
    """Count a use of ``abil`` by ``unit`` this Round; True for a second use that is not REPEATABLE (10.2, 10.4)."""
    key = (unit, abil.name)
    used[key] = used.get(key, 0) + 1
    return used[key] > 1 and not repeatable(abil)


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
    if any(fam.deploys(abil) for fam in FAMILIES):
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
    centres = (act.to,) if pid is None else world.placements[pid].centres
    return zone_gap(world, world.scn.units[act.unit], act.player, centres) <= 0


def _resolved_on_deploy(abil: Ability) -> bool:
    """A Passive ability planned in ``use``: resolved as the unit Deploys (Burrow Ambush, Rapid Reinforcements: a card
    whose ``passive_on_deploy`` Passive ability :meth:`~..checkview.CardCheck.deploys`)."""
    return any(fam.passive_on_deploy and fam.deploys(abil) for fam in FAMILIES)


def _charge_only(scn: Scenario, act: Activation, abil: Ability) -> str:
    """The warning for an ability used whose effects all act on a Charge only (8.7.7: a Charge Roll or IMPACT, each
    card's :meth:`~..checkview.CardCheck.charge_only`) where the simulation ignores it (no Charge; IMPACT changed for
    a unit that resolves none), or ""."""
    steps = [next((s for fam in FAMILIES if (s := fam.charge_only(e)) is not None), None) for e in abil.effects]
    if not steps or None in steps:
        return ""
    if act.action != "charge":
        return (
            f"use: {abil.name!r} acts on a Charge (8.7.7); this {act.action} makes none, so the simulation ignores it"
        )
    if "roll" not in steps and not has_impact(scn.units[act.unit]):
        return (
            f"use: {abil.name!r} changes IMPACT; {act.unit!r} resolves none after a Charge, so the simulation "
            "ignores it"
        )
    return ""


_ALREADY = re.compile(r"cannot (?:use this ability|be used) if another Friendly (\w+) Unit has already", re.I)


def cost_discount(
    scn: Scenario,
    world: World,
    pos: dict[str, int],
    unit: str,
    found: Found,
    rx_off: dict[str, int] | None,
    taken: set[tuple[str, str]],
) -> int:
    """How much less ``unit`` pays for ``found`` at this point of the plan, in its resource: the reductions of the
    Friendly units on the table (each card's :meth:`~..checkview.CardCheck.cost_off`: Psionic Link, Khalai Ingenuity;
    each "Once per Round": recorded in ``taken``), and a card Reaction planned on the activation by the unit itself
    (``rx_off``, :meth:`~.reactions.ReactionChecks._reaction_discounts`; Advanced Training: "when a Friendly Support
    Unit activates a Special Ability that costs CP, resolve that ability with its CP cost reduced by 1"), taken by the
    first ability paid in that resource.

    The player takes every reduction that applies (each only lowers a cost; never below 0).
    """
    a = found.ability
    if not a.resource or not a.cost or a.cost == "X":
        return 0
    off = sum(fam.cost_off(scn, world, pos, unit, found, taken) for fam in FAMILIES)
    if rx_off is not None:
        off += rx_off.pop(str(a.resource), 0)  # one ability of the activation gets it ("that ability")
    return off


def _collect(out: list[tuple[Activation, str]]) -> Say:
    """A :data:`Say` that keeps the problems in ``out``."""

    def say(act: Activation, msg: str) -> None:
        out.append((act, msg))

    return say


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
            f"its Supply for Disengage checks ({mine}) can never exceed the "
            f"Combined Supply of {names} ({least} at least)"
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
