"""Special Abilities in a scenario (chapter 10): where they come from, how they are paid, what they do.

A planned ability is found on the unit's card, its upgrades, or one of its player's Faction and
Tactical Cards (10.5: a card's Special Abilities resolve by the standard rules of 10.1-10.4).
Payment (10.5.1, 10.5.2): a cost in CP, BM or PE is paid by Exhausting Ready cards
that give that resource, with the least excess (the excess is lost); an ability printed on a card
is used by Exhausting that card (a copy still Ready), unless its text says "Do not Exhaust this
card" (the card must still be Ready: FAQ, an Academy Exhausted earlier gives no Advanced Training).
Active abilities and Reactions share one set of cards per player per Round.

Reactions (10.4) in a plan: ``react = [{ unit = "marine-1", use = "Infantry Armor" }]`` on an
activation entry. ``unit`` is the unit that uses the Reaction: the unit whose card or upgrade
prints it, or, for a card's Reaction ("a Friendly Unit"), the Friendly Unit it is used for. The
reacting player is the owner of ``unit``. Either player may react to any activation: 10.4 (Reaction
Limit) has the Active Player resolve their Reaction first when both players react to the same
trigger, so the Active Player may answer their own activation (a Charge Roll).

The simulation models these kinds of Reaction (the others are accepted by ``scenario check`` with a
``warning:`` line, "no modelled effect"):

* target effects: a Reaction whose machine-readable effects change the unit as a target
  (``unit_keyword`` such as TOUGH (1), DODGE (2), BUFF Evade (1); ``evade_eligible``). They apply
  to the reacting unit as the target of every attack of the activation it answers, and only of
  that activation (in the Combat Phase: the planned ``fight`` entry it is declared on). This
  project's reading of "for this roll": the Reaction answers the activation's attack on the unit,
  every Batch of it (a Ranged Attack is one action, 8.7.3). A unit's Reaction whose effect has a
  ``within`` (Hallucination: "the targeted Friendly Unit" Within 4") applies instead to that Friendly
  Unit (``for``, or the activation's one planned target of the reacting player), in the games where
  it is Within that distance of the reacting unit.
* Charge Roll (``charge_roll``): "Use after a Friendly Unit rolls a D6 for Charge Distance" (Gravitic
  Boosters: add 1; Pneumatized Carapace: roll an additional D6 and use the higher). The reacting unit
  is the unit that Charges in its own activation. Active abilities used on the Charge act on the same
  roll (Metabolic Boost, Zealot Charge, Leap: ``cards/charge.py``), and ``impact_hit`` /
  ``impact_dice`` ones on its IMPACT (``cards/impact.py``).
* Charge declaration (``charger_debuff_speed``): Concusive Shells, "When an Enemy declares a Charge
  against a Friendly Unit Within 8", that Enemy gains DEBUFF Speed (2)". Planned on the opponent's
  ``charge``; in each game the trigger is read when the Charge is declared (``cards/charge.py``),
  and the Charge Roll Distance is then Speed - 2 (minimum 0, part 11 DEBUFF) + 1D6. The DEBUFF lasts
  "until the End of the Round", but a unit that has Charged makes no other move that reads its Speed
  in that Round (Close Ranks moves 3"), so the Charge is all it changes.
* Ranged Attack declaration (``enemy_weapon_keyword``): Debilitating Saliva, "Use when an Enemy Unit
  Within 8" of this Unit declares a Ranged Attack. Apply DEBUFF Hit (1) to each of that Unit's Ranged
  Weapons". Planned on the opponent's ``shoot``; in each game where the shooter is Within 8" of the
  reacting unit, the shooter's weapons gain the keyword for that activation (``cards/debuffs.py``).
* DEBUFF removal (``remove_debuffs``): Restoration, "Use when a Friendly Unit Within 4" receives a
  DEBUFF. Remove all DEBUFFS from it". Planned by the acting unit's player on its activation where
  the opponent's Reaction gives it a DEBUFF (Concusive Shells, Debilitating Saliva); in each game where
  it received one and is Within 4" of the reacting unit, the DEBUFF goes (``cards/debuffs.py``).
* Total Damage reduction (``reduce_damage``): Life Support, Transfusion, Dae'Uhl, Zealous Round (on the
  unit itself, while it is not Activated in the Phase; where used it counts as Activated). Planned on the
  opponent's attack (``shoot``, ``charge`` with IMPACT, ``fight``) for the Friendly Unit it protects
  (:func:`protected`); in each game the reduction is read at the start of the activation
  (``cards/damage_reduction.py``) and the engines use it once, at the first Batch that deals Damage
  (``Target.damage_reduction``; 8.7.4 step 5 "Apply any Special Skills that reduce the Total Damage").
* The Ranged Attack redirected (``redirect``; Hierarch's Stand: ``cards/redirect.py``), a Move after it
  (``lunge``; Lunge: ``cards/lunge.py``), HEAL after a PLACE (``heal_after_place``; Veil of Shadows), HITS at a
  unit entering by another table edge (a Reaction's ``hits``; Photon Overcharge: ``cards/warp_in.py``).
* A lower cost (``cost_reduction``; Advanced Training): read by ``scenario check`` only.
* A second Charge (``second_charge``; Lightning Dash: ``cards/impact.py``), planned by the charging unit on its own
  ``charge`` with the second target in ``select``: in the games where the first Charge succeeded, a new Charge from
  where it ended, Engaged or not, without IMPACT (``cards/impact.py``, :meth:`Simulation.charge`).

Units on and off the table: returned to Reserves (``to_reserves``: :mod:`.cards.recall`), Deployed by PLACE
(``cards/deploy_place.py``) or through another unit's base (``cards/deploy_via.py``), set At the End of the Round
(``cards/end_of_round.py``), Summoned (``cards/summon.py``; the units come from the scenario, 9.1.9) and given back
Destroyed models (RESPAWN: ``cards/respawn.py``).

States the simulation keeps per game besides the abilities used: the Burrowed Status (a bit of ``sim.used``
that Cleanup keeps, ``cards/burrow.py``), ON CREEP and DETECTED (bits read again before each Charge,
attack and fight by the cards ``cards/creep.py`` and ``cards/detection.py``). The cards in ``cards/`` keep their own
per-game state (Creep Tumors, detection's Faction Indicators, Force Fields, the edges Comsat Station closes, the
tokens waiting for the End of the Round, the units counted as Activated by Zealous Round or Crushing Grip and those
Orders lets activate again, the Deploys through a base this Round).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ..starcraft.model import Weapon
from ..starcraft.schema import Ability, Effect
from .lookup import (
    CHARGE_KINDS,
    CREEP_STATUS,
    DETECTED,
    TARGET_KINDS,
    TOKEN_CONTACT,
    TOKEN_RADIUS,
    ExtraLoadout,
    Found,
    Grant,
    Purse,
    card_abilities,
    choices,
    counts_for_pool,
    find,
    has_impact,
    impact_of,
    loadout_for,
    loadout_with,
    needs_tag,
    plan_tokens,
    repeatable,
    target_effects,
    token_gaps,
    unit_abilities,
    unit_effect,
    use_bits,
    used_effect,
    used_effects,
)
from .simview import SimView
from .spec import Activation, Reaction, Scenario, ScenarioUnit
from .world import Coord


def bit_set(sim: SimView, u: int, mask: int, name: str) -> bool:
    """Is the bit of ``sim.used`` standing for ``name`` (a Status, ON CREEP, DETECTED) set in unit ``u``'s ``mask``?"""
    names = sim.abilities[u]
    return name in names and bool(mask >> names.index(name) & 1)


def react_begin(sim: SimView, act: Activation, trials: np.ndarray) -> None:
    """10.4: the Reactions answering the activation ``act`` take effect for it (the cards' ``react_begin`` hooks:
    target effects, Total Damage reductions, DEBUFFs on the acting unit) until :func:`react_end`."""
    for hook in sim.cards.react_begin:
        hook(act, trials)


def react_end(sim: SimView, trials: np.ndarray) -> None:
    """The activation is over: the Reactions' effects end (the cards' ``react_end`` hooks)."""
    for hook in sim.cards.react_end:
        hook(trials)


#: effect kinds on the weapons of the Enemy Unit an ability selects, and what each becomes on that unit's own
#: weapons (Optical Flare: DEBUFF Range (4), no LONG RANGE)
ENEMY_WEAPON_KINDS = {"enemy_weapon_keyword": "weapon_keyword", "enemy_weapon_drop": "weapon_drop"}


#: effect kinds an ability gives the Friendly Unit it selects, as that unit's own (Orders)
FRIEND_KINDS = ("weapon_keyword", "ignore_disengage_penalty")
#: effect kinds of a Deploy by PLACE (Rapid Reinforcements, Phase Prism) whose ``select`` names where it starts, not
#: a unit the effect is for (their ``within`` is the distance from Enemy models)
DEPLOY_KINDS = ("deploy_place", "to_reserves", "dust_off")


def in_force(e: Effect, options: Sequence[str]) -> bool:
    """Is effect ``e`` in force with the plan's ``options`` (an option's effect only where it is chosen)?"""
    return not e.option or e.option in options


def on_selected_weapons(found: Found, giver: str, options: Sequence[str] = ()) -> Ability | None:
    """An ability standing, on the unit ``found`` selects, for its effects on that unit's own weapons and actions, or
    None where it has none: an Enemy Unit's (Optical Flare: "apply DEBUFF Range (4) to that Unit's Ranged Weapons.
    That Unit cannot benefit from LONG RANGE"), a Friendly Unit's (Orders, the ``options`` chosen: "That Unit's
    first used weapon gains the CRITICAL HIT (2)", "ignores the Disengage penalty"). ``giver``: the unit using it
    (named in the ability's name)."""
    effects = []
    for e in found.ability.effects:
        if not e.select or not in_force(e, options):
            continue
        if e.kind in ENEMY_WEAPON_KINDS:
            kind = ENEMY_WEAPON_KINDS[e.kind]
        elif e.select == "friendly" and e.kind in FRIEND_KINDS:
            kind = e.kind
        else:
            continue
        effects.append(e.model_copy(update={"kind": kind, "select": "", "within": None, "vs_tags": [], "option": ""}))
    if not effects:
        return None
    name = f"{found.ability.name} (from {giver}{': ' + ', '.join(options) if options else ''})"
    return Ability(name=name, phase="any", type="passive", text=found.ability.text, effects=effects)


def reactions(
    scn: Scenario, act: Activation, own: bool, effect: Callable[[Ability], Effect | None]
) -> Iterator[tuple[Reaction, Found, Effect]]:
    """The Reactions of ``act`` declared by the active player (``own``) or by the opponent, each with its ability and
    its effect ``effect`` picks (those with a ``within``; the others are left out)."""
    for rx in act.react:
        if (rx.player == act.player) != own:
            continue
        found = find(scn, rx.unit, rx.use)
        eff = effect(found.ability) if found else None
        if found is not None and eff is not None and eff.within is not None:
            yield rx, found, eff


def _pair_games(
    sim: SimView, trials: np.ndarray, r: int, q: int, test: Callable[[int, int, int, int], bool]
) -> np.ndarray:
    """Per game (length ``sim.T``, set only in ``trials``): units ``r`` and ``q`` both on the table and
    ``test(placement of r, its models left, placement of q, its models left)``, read once per board of the two."""
    hit = np.zeros(sim.T, dtype=bool)
    for (pr, kr, pq, kq), ts in sim.groups(
        trials, [sim.row_pos(r), sim.row_alive(r), sim.row_pos(q), sim.row_alive(q)]
    ):
        hit[ts] = pr >= 0 and kr > 0 and pq >= 0 and kq > 0 and test(pr, kr, pq, kq)
    return hit


def near_games(sim: SimView, trials: np.ndarray, r: int, q: int, inches: float) -> np.ndarray:
    """:func:`_pair_games`: a live model of ``q`` Within ``inches`` of a live model of ``r`` (bases edge to edge; a
    unit is Within any distance of itself)."""
    return _pair_games(sim, trials, r, q, lambda pr, kr, pq, kq: q == r or sim.world.within(pr, kr, pq, kq, inches))


def _givers(sim: SimView, kind: str) -> list[int]:
    """The units that have an ability with an effect of ``kind`` (their card's, upgrades' or their player's
    cards'), read once per simulation."""
    hit = sim.givers.get(kind)
    if hit is None:
        hit = sim.givers[kind] = [
            u
            for u, su in enumerate(sim.units)
            if any(
                e.kind == kind
                for a in unit_abilities(su) + [f.ability for f in card_abilities(sim.scn, su.player)]
                for e in a.effects
            )
        ]
    return hit


#: effect kinds a selected Enemy Unit gives the attacks made at it (Target Lock)
WEAPON_KINDS = ("weapon_keyword", "weapon_s_dice", "weapon_surge")


def locked_by(sim: SimView, u: int, t: int) -> list[tuple[int, np.ndarray]]:
    """The weapon effects unit ``u`` gets against enemy ``t`` from an ability of its side that selected ``t`` this
    Round (Target Lock: "Whenever a Friendly Goliath Unit targets that enemy with an Autocannon, that weapon
    gains ..."): (the bit of ``sim.used`` standing for them, the games), for an attacker of the same unit type as
    the unit that used it (the card the ability is printed on).

    Stays here: the grants are the Simulation's (``sim.granted``, any selecting ability's) and the weapon kinds no
    one card's; the Ranged Attack (``sim_shoot``, which imports no card) reads it."""
    out = []
    me = sim.units[u]
    for grant in sim.granted:
        if grant.unit != t or grant.effect.kind not in WEAPON_KINDS:
            continue
        g = sim.units[grant.giver]
        if g.player != me.player or g.unit.name != me.unit.name:
            continue
        plain = grant.effect.model_copy(update={"select": "", "within": None})
        k = grant.ability.effects.index(grant.effect)  # one name per effect of the ability
        name = inflicted(sim, Found(grant.ability), [plain], f"{g.id}, at {sim.uids[t]}, effect {k + 1}")
        out.append((use_bits(sim, u, [name]), grant.games))
    return out


def instant(w: Weapon) -> bool:
    """Has the weapon INSTANT (part 11)?"""
    return any(k.name == "INSTANT" for k in w.keywords)


def inflicted(sim: SimView, found: Found, effects: list[Effect], source: str) -> str:
    """The name of an ability standing, on another unit, for ``effects`` of a Reaction of ``source`` (an enemy's
    DEBUFF on its weapons, ``cards/debuffs.py``; a Friendly Unit's Evade eligibility), kept in ``sim.inflicted`` for
    :func:`loadout_for`."""
    name = f"{found.ability.name} (from {source})"
    if name not in sim.inflicted:
        sim.inflicted[name] = Ability(name=name, phase="any", type="passive", text=found.ability.text, effects=effects)
    return name


def protected(scn: Scenario, act: Activation, rx: Reaction, found: Found) -> str | None:
    """The Friendly Unit whose Total Damage a ``reduce_damage`` Reaction reduces: the plan's ``for``; else, for a
    Faction or Tactical Card's Reaction ("When a Friendly Unit receives Damage"), ``unit`` (the unit it is used
    for); else (a unit's own card: "another Friendly ... Unit") the activation's one planned target of the
    reacting player. None where that is not one unit (``scenario check`` asks for ``for``).

    Shared by the Reaction cards that answer for another unit (``cards/damage_reduction.py``, ``redirect.py``,
    ``lunge.py``, ``target_effects.py``).
    """
    # Zealous Round: "this Unit" (``costs_activation``: a field of ``reduce_damage`` effects only, read by
    # cards/damage_reduction.py)
    if any(e.costs_activation for e in found.ability.effects):
        return rx.unit
    if rx.for_unit:
        return rx.for_unit
    if found.card:
        return rx.unit
    mine = [t for t in act.targets if scn.units[t].player == rx.player]
    return mine[0] if len(mine) == 1 else None


def guarding(sim: SimView, act: Activation, kind: str) -> Iterator[tuple[Reaction, Found, Effect, str]]:
    """The opponent's Reactions to ``act`` with an effect of ``kind`` and a ``within`` for another Friendly Unit they
    answer for (Hierarch's Stand, Lunge): (the Reaction, its ability, the effect, that unit: ``for``, else the
    activation's one planned target of the reacting player)."""
    for rx in act.react:
        found = find(sim.scn, rx.unit, rx.use) if rx.player != act.player else None
        e = next((e for e in found.ability.effects if e.kind == kind), None) if found else None
        if found is None or e is None or e.within is None:
            continue
        p = protected(sim.scn, act, rx, found)
        if p is not None and p != rx.unit:
            yield rx, found, e, p


def far_from_enemies(
    sim: SimView, u: int, act: Activation, games: np.ndarray, inches: float, left: str = "left in Reserves"
) -> np.ndarray:
    """The games of ``games`` where unit ``u``, just deployed, has no live model Within ``inches`` of an Enemy model
    ("This deployment must end more than 10\" away from any Enemy model"); in the others it goes back to Reserves
    (skip report)."""
    near = np.zeros(sim.T, dtype=bool)
    for v in range(sim.U):
        if sim.units[v].player != sim.units[u].player:
            near |= near_games(sim, games, u, v, inches)
    bad = games[near[games]]
    if bad.size:
        sim.set_pos(u, bad, -1)
        sim.skip(act, bad.size, f'set Within {inches:g}" of an Enemy model: not allowed (its text), {left}')
    return games[~near[games]]


def is_structure(su: ScenarioUnit) -> bool:
    """Has the unit Structure ("This Unit cannot be Activated in any Phase and cannot perform actions. Additionally,
    its Current Supply Value is treated as 0, and it can never Control or Contest Mission Markers")?

    Not in ``cards/structure.py``: read by the Simulation's state (``sim.structure``), by ``checkview`` (which the
    cards import: importing a card there would make a cycle) and by the Summon card."""
    return unit_effect(su, "structure") is not None


@contextmanager
def reacting(sim: SimView, act: Activation | None, trials: np.ndarray) -> Iterator[None]:
    """The Reactions of plan entry ``act`` (none for an unplanned fight: ``None``) act while the block runs."""
    if act is not None:
        react_begin(sim, act, trials)
    try:
        yield
    finally:
        react_end(sim, trials)


#: with the names of :mod:`.lookup` they re-export (scenario check and the tests import them from here)
def select_reach(scn: Scenario, unit: str, a: Ability) -> tuple[float, bool]:
    """The range ability ``a`` of ``unit`` selects in (its ``select`` effects' ``within``; a ``select_range`` of the
    unit's abilities naming it: A-13 Flash Grenade Launcher, "Increase the Optical Flare special ability's Range to
    16\"") and whether Line of Sight is needed (10.1)."""
    picks = [e for e in a.effects if e.select and e.within is not None and e.kind not in DEPLOY_KINDS]
    if not picks:
        return float("inf"), False  # no range (Bound by the Khala)
    reach = min(float(e.within) for e in picks if e.within is not None)
    for other in unit_abilities(scn.units[unit]):
        for e in other.effects:
            if e.kind == "select_range" and e.ability.strip().lower() == a.name.strip().lower():
                reach = float(e.value)
    return reach, any(e.line_of_sight for e in picks)


__all__ = [
    "CHARGE_KINDS",
    "CREEP_STATUS",
    "DETECTED",
    "TARGET_KINDS",
    "TOKEN_CONTACT",
    "TOKEN_RADIUS",
    "ExtraLoadout",
    "Found",
    "Grant",
    "Purse",
    "card_abilities",
    "choices",
    "counts_for_pool",
    "find",
    "has_impact",
    "impact_of",
    "loadout_for",
    "loadout_with",
    "needs_tag",
    "plan_tokens",
    "protected",
    "react_begin",
    "react_end",
    "reacting",
    "repeatable",
    "select_reach",
    "target_effects",
    "token_gaps",
    "unit_abilities",
    "unit_effect",
    "use_bits",
    "used_effect",
    "used_effects",
]


# ------------------------------------------------------------------ creep (part 11 ON CREEP, 7.3 Tokens)


def card_effect(scn: Scenario, player: str, kind: str) -> Effect | None:
    """An effect of ``kind`` on ``player``'s Faction, Tactical or Creep Cards (Creep Removal, Living Glob of
    Tissue), or None."""
    for f in card_abilities(scn, player):
        for e in f.ability.effects:
            if e.kind == kind:
                return e
    return None


def mark_near(
    sim: SimView,
    v: int,
    trials: np.ndarray,
    name: str,
    tokens: Sequence[tuple[np.ndarray, Coord, float]],
    units: Sequence[tuple[int, float]],
) -> None:
    """Set unit ``v``'s bit ``name`` of ``sim.used`` in ``trials`` where a live model of it is Within the given inches
    of a token on the battlefield in that game (its row of games, its centre; measured to its base edge) or of a
    live model of one of ``units``, and clear it elsewhere (ON CREEP, DETECTED).

    Shared by two cards (``cards/creep.py``, ``cards/detection.py``), so neither owns it.
    """
    cols: list[np.ndarray | int] = [sim.row_pos(v), sim.row_alive(v)]
    cols += [row.astype(np.int64) for row, _, _ in tokens]
    for d, _ in units:
        cols += [sim.row_pos(d), sim.row_alive(d)]
    bit = use_bits(sim, v, [name])
    for key, ts in sim.groups(trials, cols):
        pv, kv = key[0], key[1]
        near = False
        if pv >= 0 and kv > 0:
            near = any(
                key[2 + i] and sim.world.point_gap(pv, kv, xy, TOKEN_RADIUS) <= inches + 1e-9
                for i, (_, xy, inches) in enumerate(tokens)
            )
            at = 2 + len(tokens)
            for i, (d, inches) in enumerate(units):
                pd, kd = key[at + 2 * i], key[at + 2 * i + 1]
                if not near and pd >= 0 and kd > 0 and d != v:
                    near = sim.world.within(pd, kd, pv, kv, inches)
        if near:
            sim.used[v, ts] |= bit
        else:
            sim.used[v, ts] &= ~bit
