"""Where a scenario's abilities come from and what using one sets: the abilities of a unit and of its player's cards
(10.5), their payment (:class:`Purse`, 10.5.1-10.5.2), the bits of ``sim.used`` they take, a unit's loadout with them
switched on, the effects an activation's abilities use, and the tokens the plan sets (7.3). Shared by the simulation,
the ability cards (``cards/``) and ``scenario check``; no rule of a single card lives here."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..starcraft.keywords import COMBAT_TAGS
from ..starcraft.loadout import Loadout, make_loadout
from ..starcraft.schema import Ability, Effect
from .basics import pay as _pay
from .simview import SimView
from .spec import Activation, Scenario, ScenarioUnit
from .world import Coord

#: part 11 ON CREEP, read per game where it matters (a Charge, an attack): the bit of ``sim.used`` standing for it
CREEP_STATUS = "ON CREEP"
#: a Creep Tumor token's base radius: 32 mm across. The rules give tokens "their own base" but no size; 32 mm is
#: the Mission Markers' (7.3.2), the one token-like size they state
TOKEN_RADIUS = 16 / 25.4
#: Base-to-Base contact for a token set by Spawn Creep Tumor: its edge at most this far from a model's base edge
TOKEN_CONTACT = 0.1
#: an enemy's detection (Scanner Sweep, Surveillance, Oversight Mode, Omega Worm's Detection: "While Enemy Units
#: are Within 6\" of this Faction Indicator, they lose HIDDEN Status"), read per game before a Ranged Attack at the
#: unit: the bit of ``sim.used`` standing for it
DETECTED = "DETECTED"


#: Effects that change a unit as the target of an attack (``as_target``).
TARGET_KINDS = ("unit_keyword", "evade_eligible")
#: Effects of an Active ability that act on the unit's own Charge (``adjust_charge_roll``, ``impact_with``).
CHARGE_KINDS = ("charge_roll", "impact_hit", "impact_dice")
_IMPACT = re.compile(r"IMPACT \((\d+)\) (\d)\+")
#: "a Friendly Biological Unit", "The active, Unengaged Ground Unit": the Combat Tag a card's ability asks for.
_FOR_TAG = re.compile(r"\b(?:Friendly|active),? (?:Unengaged )?(?:Friendly )?([A-Za-z]+) Unit")


@dataclass(frozen=True)
class Found:
    """An ability and where it is printed: ``card`` is "" for the unit card and its upgrades."""

    ability: Ability
    card: str = ""


@dataclass(frozen=True)
class Grant:
    """An effect that unit ``giver``'s ability ``ability`` gave unit ``unit`` (the unit it selected) in ``games``,
    until the end of the Round (:func:`apply_selected`)."""

    unit: int
    effect: Effect
    games: np.ndarray
    giver: int
    ability: Ability


@dataclass(frozen=True)
class ExtraLoadout(Loadout):
    """A unit's loadout in the simulation: with abilities of Faction or Tactical Cards switched on (their effects
    act like the unit's), and without the effects that are for a unit an ability selects (``select``: they go
    to that unit, :func:`apply_selected`)."""

    extra: tuple[Ability, ...] = ()
    #: the unit is ON CREEP: its ``on_creep`` effects apply (part 11 ON CREEP), and only then
    on_creep: bool = False
    #: an enemy detects the unit (Scanner Sweep: "they lose HIDDEN Status"): no HIDDEN keyword. Read here, not in
    #: ``cards/hidden.py`` or ``cards/detection.py``: the loadout the engines read is built in this module, below the
    #: cards (the detection card sets the DETECTED bit the Simulation turns into this flag)
    detected: bool = False

    def abilities(self) -> list[Ability]:
        return super().abilities() + list(self.extra)

    def effects(self) -> list[Effect]:
        out = []
        for e in super().effects():
            if e.select:
                continue
            if self.detected and e.kind == "unit_keyword" and e.keyword.upper() == "HIDDEN":
                continue
            if e.on_creep:
                if not self.on_creep:
                    continue
                e = e.model_copy(update={"on_creep": False})  # in force: the loadout's users need not ask again
            out.append(e)
        return out


def unit_abilities(su: ScenarioUnit) -> list[Ability]:
    return su.abilities


def unit_effect(su: ScenarioUnit, kind: str) -> Effect | None:
    """The first effect of ``kind`` of the unit's abilities (card and upgrades), or None."""
    return next((e for a in su.abilities for e in a.effects if e.kind == kind), None)


#: :func:`card_abilities` per scenario (by id, the scenario kept so an id is not reused while it stands) and player;
#: cleared past :data:`CARD_ABILITIES_KEPT` scenarios
_CARD_ABILITIES: dict[tuple[int, str], tuple[Scenario, list[Found]]] = {}
CARD_ABILITIES_KEPT = 64


def card_abilities(scn: Scenario, player: str) -> list[Found]:
    """The abilities of a player's Faction Card and Tactical (and Creep) Cards, in army order, each once (read once
    per scenario and player; callers do not change the list)."""
    key = (id(scn), player)
    hit = _CARD_ABILITIES.get(key)
    if hit is None or hit[0] is not scn:
        if len(_CARD_ABILITIES) >= CARD_ABILITIES_KEPT:
            _CARD_ABILITIES.clear()
        hit = _CARD_ABILITIES[key] = (scn, _card_abilities(scn, player))
    return hit[1]


#: :func:`unit_effects` per scenario (by id, the scenario kept as above) and effect kind
_UNIT_EFFECTS: dict[tuple[int, str], tuple[Scenario, tuple[tuple[str, Effect], ...]]] = {}


def unit_effects(scn: Scenario, kind: str) -> tuple[tuple[str, Effect], ...]:
    """Every (unit id, effect) of ``kind`` among the units' own abilities (card and upgrades: :func:`unit_abilities`),
    in the scenario's unit order, then ability and effect order; read once per scenario and kind (a hook asked at each
    Move's verdict need not walk every unit's abilities)."""
    key = (id(scn), kind)
    hit = _UNIT_EFFECTS.get(key)
    if hit is None or hit[0] is not scn:
        if len(_UNIT_EFFECTS) >= CARD_ABILITIES_KEPT:
            _UNIT_EFFECTS.clear()
        found = tuple(
            (d, e) for d, su in scn.units.items() for a in unit_abilities(su) for e in a.effects if e.kind == kind
        )
        hit = _UNIT_EFFECTS[key] = (scn, found)
    return hit[1]


def _card_abilities(scn: Scenario, player: str) -> list[Found]:
    army = scn.armies[player]
    out: list[Found] = []
    seen: set[str] = set()
    for name in [army.faction, *army.tactical]:
        card = scn.roster.card(name)
        for a in card.abilities:
            if a.name.lower() not in seen:
                seen.add(a.name.lower())
                out.append(Found(a, name))
    return out


def find(scn: Scenario, unit: str, name: str) -> Found | None:
    """The ability ``name`` of ``unit``: its card, its upgrades, then its player's cards."""
    su = scn.units[unit]
    key = name.strip().lower()
    for a in unit_abilities(su):
        if a.name.lower() == key:
            return Found(a)
    return next((f for f in card_abilities(scn, su.player) if f.ability.name.lower() == key), None)


def choices(scn: Scenario, unit: str, kind: str) -> list[str]:
    """Names of the ``kind`` ("active" or "reaction") abilities open to ``unit``, for messages."""
    su = scn.units[unit]
    names = [a.name for a in unit_abilities(su) if a.type == kind]
    names += [f"{f.ability.name} ({f.card})" for f in card_abilities(scn, su.player) if f.ability.type == kind]
    return names


def impact_of(su: ScenarioUnit) -> tuple[int, int] | None:
    """IMPACT (X) Y+ that the unit resolves after a successful Charge (8.7.7, its abilities' text), or None."""
    for a in unit_abilities(su):
        m = _IMPACT.search(a.text)
        if m and "Charge" in a.text:
            return int(m.group(1)), int(m.group(2))
    return None


def has_impact(su: ScenarioUnit) -> bool:
    """The unit resolves IMPACT after a successful Charge (as the simulation reads it: :func:`impact_of`)."""
    return impact_of(su) is not None


def needs_tag(a: Ability) -> str:
    """The Combat Tag a card's ability asks of its unit ("a Friendly Biological Unit"), or ""."""
    m = _FOR_TAG.search(a.text)
    if m is None:
        return ""
    tag = m.group(1).title()
    return tag if tag in COMBAT_TAGS else ""


def repeatable(a: Ability) -> bool:
    return "REPEATABLE" in a.text.upper()


def target_effects(a: Ability) -> list[Effect]:
    """The machine-readable effects of ``a`` that change its unit as a target."""
    return [e for e in a.effects if e.kind in TARGET_KINDS]


class Purse:
    """A player's Faction and Tactical Cards in one Round: Ready or Exhausted (10.5.2)."""

    def __init__(self, scn: Scenario, player: str) -> None:
        army = scn.armies[player]
        self.names: list[str] = [army.faction, *army.tactical]
        self.cards: list[tuple[str, int]] = []
        for name in self.names:
            card = scn.roster.card(name)
            self.cards.append((card.resource, int(card.resource_per_round)))
        self.ready = [True] * len(self.names)

    def pay(self, found: Found, options: Sequence[str] = (), discount: int = 0) -> str:
        """Exhaust the cards for ``found`` (its own card, then its cost, less ``discount``, never below 0: the cost
        reductions of :func:`cost_discount`; a cost X is the sum of the ``options`` chosen, Orders); "" or why it
        cannot be paid."""

        a = found.ability
        ready = list(self.ready)
        if found.card:
            # 10.5.2: only a Ready card's abilities are used, also one that says "Do not Exhaust this card"
            # (FAQ: an Academy Exhausted to pay for something else gives no Advanced Training)
            copy = next((i for i, n in enumerate(self.names) if n == found.card and ready[i]), None)
            if copy is None:
                return (
                    f"{a.name!r} is printed on {found.card!r}, Exhausted earlier this Round (10.5.2: an Exhausted "
                    "card's abilities cannot be used until it is Readied in the Cleanup)"
                )
            if "do not exhaust this card" not in a.text.lower():
                ready[copy] = False
        cost = a.cost
        if cost == "X":
            priced = {e.option: e.option_cost for e in a.effects if e.option}
            if not priced:
                return f"{a.name!r} costs X: plans need a fixed cost"
            cost = sum(priced.get(o, 0) for o in options)
        cost = max(0, int(cost) - discount)
        if cost:
            mine = [i for i, c in enumerate(self.cards) if c[0] == a.resource]
            got = _pay([self.cards[i] for i in mine], [ready[i] for i in mine], int(cost))
            if got is None:
                have = sum(self.cards[i][1] for i in mine if ready[i])
                return (
                    f"{a.name!r} costs {cost} {a.resource}; the Ready cards give {have} {a.resource} "
                    "(10.5.1: Exhaust Ready cards; a card Exhausted earlier this Round gives nothing)"
                )
            for j in got:
                ready[mine[j]] = False
        self.ready = ready
        return ""


# ------------------------------------------------------------------ simulation hooks
def counts_for_pool(su: ScenarioUnit) -> bool:
    """Does the unit's Supply Value count when calculating the Supply Pool (8.3.2 Available Supply)? Not for a unit
    with a ``pool_free`` effect (Advanced Medic Facilities: "This Unit's Supply Value counts as 0 when calculating
    the Supply Pool").

    ``pool_free`` has no card of its own: the Deploy (``sim_move``, which imports no card) and ``checkview`` (which the
    cards import) read it here."""
    return unit_effect(su, "pool_free") is None


def use_bits(sim: SimView, u: int, names: Sequence[str]) -> int:
    """The bits of ``sim.used`` for abilities ``names`` of unit ``u`` (card abilities get bits after the unit's)."""
    known = sim.abilities[u]
    bits = 0
    for name in names:
        key = name.strip().lower()
        i = next((i for i, n in enumerate(known) if n.lower() == key), None)
        if i is None:
            found = find(sim.scn, sim.uids[u], name)
            known.append(found.ability.name if found else name)
            i = len(known) - 1
        bits |= 1 << i
    return bits


def loadout_with(
    scn: Scenario,
    unit: str,
    names: Sequence[str],
    inflicted: dict[str, Ability] | None = None,
    on_creep: bool = False,
    detected: bool = False,
) -> ExtraLoadout:
    """``unit``'s loadout with the abilities ``names`` switched on: its own (card, upgrades), its player's cards'
    (10.5), and abilities standing for an enemy's effect on it (``inflicted``: :func:`inflicted`). Its player's
    cards' Passive abilities with effects are always on, for a unit with the Combat Tag they ask for (Speed on
    Creep, Malevolent Matriarch: "the active Friendly Zerg Unit"); ``on_creep``: the unit is ON CREEP."""
    su = scn.units[unit]
    own = {a.name.lower() for a in unit_abilities(su)}
    base = su.loadout
    lo = make_loadout(base.unit, base.models, [x.name for x in base.upgrades], [n for n in names if n.lower() in own])
    extra = []
    for n in names:
        if n.lower() not in own:
            found = find(scn, unit, n)
            if found is not None:
                extra.append(found.ability)
            elif inflicted and n in inflicted:  # an enemy's Reaction on this unit's weapons (attacker_debuffs)
                extra.append(inflicted[n])
    tags = set(su.unit.card.combat_tags)
    for f in card_abilities(scn, su.player):
        a = f.ability
        if a.type == "passive" and a.effects and a not in extra and (not needs_tag(a) or needs_tag(a) in tags):
            extra.append(a)
    return ExtraLoadout(lo.unit, lo.models, lo.upgrades, lo.use, lo.minerals, tuple(extra), on_creep, detected)


def loadout_for(sim: SimView, u: int, mask: int) -> Loadout:
    """Unit ``u``'s loadout with the abilities of ``mask`` switched on, card abilities included. An ability that
    changes the Burrowed Status (Burrow) gives no keyword itself: the Status does (:data:`BURROWED_STATUS`)."""
    chosen = [n for i, n in enumerate(sim.abilities[u]) if mask >> i & 1 and n not in sim.burrowers]
    creep, seen = CREEP_STATUS in chosen, DETECTED in chosen
    return loadout_with(sim.scn, sim.uids[u], chosen, sim.inflicted, on_creep=creep, detected=seen)


def used_effects(scn: Scenario, act: Activation, kind: str) -> list[tuple[Ability, Effect]]:
    """(ability, effect) for each effect of ``kind`` of the abilities of ``act``'s ``use``."""
    return [
        (found.ability, e)
        for n in act.use
        if (found := find(scn, act.unit, n)) is not None
        for e in found.ability.effects
        if e.kind == kind
    ]


def used_effect(scn: Scenario, act: Activation, kind: str) -> Effect | None:
    """The first effect of ``kind`` of the abilities of ``act``'s ``use``, or None: ``creep_tumor`` (Creep Spread,
    Spawn Creep Tumor), ``detector`` (Scanner Sweep), ``deploy_edge`` (Warp In: "Deploys from any table edge that is
    not a player's Entry Edge ... more than 10\" away from any Enemy model")."""
    return next((e for _, e in used_effects(scn, act, kind)), None)


def plan_tokens(
    scn: Scenario, kind: str
) -> tuple[list[tuple[tuple[float, float], str, Effect]], dict[Activation, int]]:
    """The tokens the plan sets with an ability's effect of ``kind`` at ``token_at`` (Creep Tumors, detection's
    Faction Indicators): (centre, player, effect) in plan order, and the index of each setting activation's."""
    tokens: list[tuple[tuple[float, float], str, Effect]] = []
    of: dict[Activation, int] = {}
    for act in scn.plan:
        eff = used_effect(scn, act, kind) if act.token_at is not None else None
        if eff is not None and act.token_at is not None:
            of[act] = len(tokens)
            tokens.append((act.token_at, act.player, eff))
    return tokens, of


def token_gaps(sim: SimView, u: int, games: np.ndarray, xy: Coord) -> np.ndarray:
    """Per game of ``games`` (in their order): the least gap, edge to edge, between a live model of unit ``u`` and a
    token centred at ``xy`` (:meth:`World.point_gap`; 7.3 "measure to the closest base edge of a Token"), ``inf``
    where the unit is not on the table; read once per placement."""
    out = np.full(sim.T, math.inf)
    for (p, k), ts in sim.groups(games, [sim.row_pos(u), sim.row_alive(u)]):
        if p >= 0 and k > 0:
            out[ts] = sim.world.point_gap(p, k, xy, TOKEN_RADIUS)
    return out[games]
