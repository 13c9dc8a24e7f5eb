"""The menu of an automatic player: per unit and Phase, a small fixed list of candidate actions, built once from the
board when the game starts (``docs/dev/automatic-players.md``, "Menus, not free coordinates").

An entry (:class:`Entry`) is one action with its absolute board point or its target; :meth:`Entry.activation` makes
the :class:`~mathhammer.scenario.spec.Activation` the engine applies. Which entries are legal in a game's state is
:mod:`.legal`'s question, not the menu's: the menu is the same in every game, so the decisions of many games share it.

Readings (each an approximation a policy lives with; the points are the menu's, the rules' test is :mod:`.legal`):

* Deploy (8.5.5 "move it up to the Unit's Speed" from the Entry Edge; 8.5.3 "No part of a base of the Leading Model
  can move more than its unit Speed value"): the Leading Model's centre at two depths from the player's Entry Edge,
  Speed less its base radius (a margin of :data:`MARGIN`) and half that, on a few lanes across the edge: each
  Mission Marker's coordinate along the edge, the sixths of the edge, and the middles of the gaps between the terrain
  pieces standing in the band the unit can reach. A point whose base would overlap terrain, leave the table or stand
  over a piece's top is left out (the menu holds playmat points only); one that would end Within the opponent's Zone
  of Influence (8.3.3) is pulled back to its edge.
* Move and Run (8.5.3, 8.7.1: the same points): each Mission Marker's contest spots, the Leading Model
  :data:`CONTEST_SPOT` from the marker's centre on the four sides (8.9.1: "At least one model is Within 3\"" with
  Line of Sight; :data:`~mathhammer.scenario.world.CONTEST_RANGE`), and cover spots behind each terrain piece of Size
  2 or more (7.1.1: it blocks Line of Sight) on the side away from the opponent's Entry Edge: behind its middle and
  its two corners; the Deploy lanes carried across the board, a row every Speed from the farthest Deploy depth (a
  unit on a lane reaches the next row in one Move: the way forward to the markers and the enemy); the way round a
  piece a base may not overlap (:func:`round_spots`): the corners of its footprint grown by the base (as a route's,
  below) and points along each grown side at most Speed apart, for each piece within Speed of a cover spot or Deploy
  point that reaches no lane or marker point in one Move (:func:`stuck`), so that a unit there has Moves leading round
  it (8.5.3: the Leading Model goes round terrain of Size 2+; without them the cover spots behind Abandoned Camp's
  ridges and ruins led nowhere and a Roach's Deploy points had no Move point within its 4" Speed: benchmarks/
  RESULTS.md, sessions 12-13, h-stim4, h-stim5; round every piece, a marine of standard_clash had 174 Movement
  entries with Stimpack); where those
  points leave a Mission Marker out of reach (no chain of Moves, each a way round the terrain of at most Speed on an
  empty table, from a Deploy point to one of its contest spots: Frontier's centre marker behind a ridge), a route to
  it: points every Speed along the shortest way round the pieces that block movement (8.5.3 step 1) from the
  nearest Deploy point (:func:`marker_routes`); Hold.
* Shoot (8.7.3) and Charge (8.7.7): one entry per enemy unit (a Charge only at a Ground unit, and only by a Ground
  unit: "Flying Units cannot Charge or be Charged"). Gather where the Mission Card has the action; Fight in the
  Combat Phase; Pass in every Phase (8.2.1).
* Abilities (10.1, 10.5): each Shoot and Charge entry once more with each Active ability of the unit or of its
  player's cards that changes that attack (:func:`attack_abilities`) in ``use``: what it gains is the exact engine's
  answer (:mod:`.features`), what it costs the resources it spends; whether it may be paid in a game is
  :mod:`.spending`'s. A Movement Phase ability whose gain is the Shoot later in the Round (Stimpack: PRECISION on the
  Ranged Weapon and BUFF Speed until the end of the Round, NON-LETHAL DAMAGE on the unit) only where it can change an
  outcome: on the Hold (the unit stops where it stands and shoots) and on the Moves to the markers' contest spots
  (the extra Speed reaches a spot a plain Move does not; the unit stands there and shoots), not on the lanes, cover
  spots, routes and Deploys (the menu stays tens of entries).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from ...board.cspace import GROW
from ...board.model import MM_PER_INCH
from ..lookup import Found, card_abilities, needs_tag
from ..spec import Activation, Scenario, ScenarioUnit
from ..world import World, edge_distance

#: the Leading Model's centre this far short of the farthest a rule allows (inches): a point on the limit is legal
#: only to the rounding of the path measure
MARGIN = 0.1
#: a contest spot: the Leading Model's centre this far from the marker's centre (inches; the contest range is 3")
CONTEST_SPOT = 2.0
#: a cover spot: the Leading Model's base this far behind the piece's footprint (inches)
COVER_GAP = 0.4
#: two lanes closer than this along the edge are one (inches)
LANE_GAP = 1.5
#: a route to a marker goes round a piece's corner this far beyond the base's radius (inches)
ROUTE_CLEAR = 0.15
#: two ways to a marker as long as each other to this many inches are both taken (:func:`_shortest_ways`)
ROUTE_TIE = 1e-6
#: the most ways to one marker taken
ROUTE_WAYS = 8
#: a route point whose base would stand on terrain is tried this much nearer along the way, again and again (inches)
ROUTE_BACK = 0.25
#: the candidate actions of each Phase, in menu order
KINDS = {
    "movement": ("deploy", "move", "hold", "pass"),
    "assault": ("run", "hold", "shoot", "charge", "gather", "pass"),
    "combat": ("fight", "hold", "pass"),
}
#: the attack entries that may carry an Active ability, the Phase each is in, the effect kinds an ability used on it
#: may have (each changes the attack the exact engine reads: the weapons' keywords and Surge, the Charge Roll, IMPACT)
#: and the weapons (their Phase) a ``weapon_keyword`` effect must reach to change it
#: Movement Phase abilities for the Shoot later in the Round (Stimpack) on the menus (:meth:`.features.Features.later`:
#: the gain at a target it may shoot, the price over every enemy attack that can reach it). On since session 13: with
#: them on, ``objective`` against ``objective`` with twice the minerals of the same units (Abandoned Camp, 5 Rounds,
#: 200 games, seeds 52-54) won 74-80% (session 9, h-stim2), 85.5/84.5/81.0% (session 10, h-stim3), 87.5/84.0/82.0%
#: (session 11, h-ways), 90.0/85.5/84.5% with the way round only where a point has no chain of Moves on (session 13,
#: h-stim5), and 89.0/86.5/87.5% (seeds 55-58: 90.5/90.0/90.0/85.0%) with the Moves' formations at 8 headings too
#: (session 13, h-formation): at least the 85% on each seed asked (benchmarks/RESULTS.md). A switch for the tests.
MOVE_ABILITIES = True
#: a Move or Run entry's formation: its rear (8.5.3, towards where the Leading Model stood) rounded to the nearest of
#: this many compass headings (the plan's ``headings``), so a unit's placements after its Moves come from a finite set
#: (the point, the heading and the units near it: docs/dev/compiled-game-loop.md)
HEADINGS = 8

ATTACK_USE = {
    "shoot": ("assault", frozenset({"weapon_keyword", "weapon_surge"}), "assault"),
    "charge": ("assault", frozenset({"charge_roll", "weapon_keyword", "impact_hit", "impact_dice"}), "combat"),
    # a Movement Phase ability whose gain is the Shoot later in the Round (Stimpack: its effects last the Round)
    "move": ("movement", frozenset({"weapon_keyword", "speed", "non_lethal_self"}), "assault"),
}


@dataclass(frozen=True)
class Entry:
    """One candidate action of a unit: ``action``, its Leading Model's point ``to`` (Deploy, Move, Run) or its
    ``target`` (Shoot, Charge); ``label`` says where the point comes from (``lane``, ``marker-1``, ``cover-crate``)."""

    action: str
    to: tuple[float, float] | None = None
    target: str | None = None
    label: str = ""
    #: the Active abilities used in the activation (10.5), paid from the player's Ready cards
    use: tuple[str, ...] = ()
    #: a Move or Run's formation with its rear rounded to the nearest of so many compass headings (the plan's
    #: ``headings``; :data:`HEADINGS`)
    headings: int | None = None
    #: a Shoot's other enemy units, for the Batches that cannot shoot ``target`` (the plan's ``then``: 8.7.3 step 2,
    #: part 11 SIDEARM); its legality is its target's
    then: tuple[str, ...] = ()

    def activation(self, unit: str, player: str, rnd: int, phase: str, where: str = "auto") -> Activation:
        """The activation this entry makes for ``unit`` of ``player`` in Phase ``phase`` of Round ``rnd`` (a Pass
        names no unit)."""
        return Activation(
            where=where,
            round=rnd,
            phase=phase,
            player=player,
            unit="" if self.action == "pass" else unit,
            action=self.action,
            to=self.to,
            targets=() if self.target is None else (self.target,),
            use=self.use,
            headings=self.headings,
            then=self.then,
        )


@dataclass(frozen=True)
class UnitMenu:
    """A unit's entries per Phase (:data:`KINDS` order)."""

    unit: str
    player: str
    phases: dict[str, tuple[Entry, ...]]

    def __getitem__(self, phase: str) -> tuple[Entry, ...]:
        return self.phases[phase]


def build_menus(scn: Scenario, world: World | None = None) -> dict[str, UnitMenu]:
    """Every unit's menu on this scenario's board (the module text): the same scenario, the same menus."""
    world = world if world is not None else World(scn)
    memo: dict[tuple[object, ...], Any] = {}
    return {uid: unit_menu(scn, world, su, memo) for uid, su in scn.units.items()}


def unit_menu(
    scn: Scenario,
    world: World,
    su: ScenarioUnit,
    memo: dict[tuple[object, ...], Any] | None = None,
) -> UnitMenu:
    """One unit's menu (the module text); ``memo``: the marker routes and the points :func:`stuck` leaves of the units
    built before it (the same for units of one player with the same Speed, base and Flying, and for the stuck points
    the same points asked)."""
    enemies = [e for e in scn.units.values() if e.player != su.player]
    spots = move_spots(scn, world, su) + lane_steps(scn, world, su)
    deploy = [] if su.summoned else deploy_spots(scn, world, su)
    need = [p for lab, p in spots if lab.startswith("cover-")] + [p for _, p in deploy]
    key = (su.player, su.speed, su.base_mm, su.flying)
    asked = (*key, "stuck", tuple(need))
    left = None if memo is None else memo.get(asked)
    if left is None:
        left = stuck(world, su, need, spots)
        if memo is not None:
            memo[asked] = left
    need = left
    spots += [(lab, p) for lab, p in round_spots(scn, world, su, need) if p not in {q for _, q in spots}]
    routes = None if memo is None else memo.get(key)
    if routes is None:
        routes = marker_routes(scn, world, su, spots)
        if memo is not None:
            memo[key] = routes
    spots += [(lab, p) for lab, p in routes if p not in {q for _, q in spots}]
    move = [Entry("move", p, label=lab, headings=HEADINGS) for lab, p in spots]
    if MOVE_ABILITIES:
        stand = [e for e in move if e.label.startswith("marker-")] + [Entry("hold")]  # where a unit stops to shoot
        move += [
            Entry(e.action, e.to, label=e.label, use=(a,), headings=e.headings)
            for a in attack_abilities(scn, su, "move")
            for e in stand
        ]
    movement = (*(Entry("deploy", p, label=lab) for lab, p in deploy), *move, Entry("hold"), Entry("pass"))
    assault = [Entry("run", p, label=lab, headings=HEADINGS) for lab, p in spots] + [Entry("hold")]
    # the Batches that cannot shoot the target fire at the first other enemy unit they may (8.7.3 step 2, SIDEARM)
    shots = [Entry("shoot", target=e.id, then=tuple(o.id for o in enemies if o.id != e.id)) for e in enemies]
    assault += shots + [
        Entry("shoot", target=e.target, use=(a,), then=e.then)
        for a in attack_abilities(scn, su, "shoot")
        for e in shots
    ]
    if not su.flying:
        charges = [Entry("charge", target=e.id) for e in enemies if not e.flying]
        assault += charges
        assault += [
            Entry("charge", target=e.target, use=(a,)) for a in attack_abilities(scn, su, "charge") for e in charges
        ]
    if scn.mission.gather_action:
        assault.append(Entry("gather"))
    assault.append(Entry("pass"))
    combat = (Entry("fight"), Entry("hold"), Entry("pass"))
    return UnitMenu(su.id, su.player, {"movement": movement, "assault": tuple(assault), "combat": combat})


def attack_abilities(scn: Scenario, su: ScenarioUnit, action: str) -> list[str]:
    """The Active abilities (10.1) open to ``su`` that change its ``action`` (``shoot``, ``charge``; ``move``: a Move
    or Hold of the Movement Phase, for the Shoot later in the Round) as the exact engine reads it: the unit's and its
    upgrades', then its player's cards' (10.5), in that order, used in the action's Phase (or any), each effect of a
    kind of :data:`ATTACK_USE` and none selecting a unit or waiting for ON CREEP (a choice the menu does not make), a
    ``weapon_keyword`` reaching one of the unit's weapons of the attack's Phase (for ``move``: at least one, the
    Shoot's gain), a fixed cost (not X), no printed limit ("Once per Game", "Once per Round"), and a card's ability
    only for a unit of the Combat Tag it asks."""
    phase, kinds, weapon_phase = ATTACK_USE[action]
    weapons = {w.name for w in su.unit.card.weapons if w.phase == weapon_phase}
    weapons |= {w.name for up in su.loadout.upgrades for w in up.weapons if w.phase == weapon_phase}
    if not weapons:  # no weapon of the attack's Phase: nothing to change
        return []
    found = [Found(a) for a in su.abilities] + card_abilities(scn, su.player)
    out: list[str] = []
    for f in found:
        a = f.ability
        if a.type != "active" or a.phase not in (phase, "any") or not a.effects or a.cost == "X":
            continue
        if a.text.lower().lstrip().startswith("once per") or any(
            e.kind not in kinds or e.select or e.on_creep for e in a.effects
        ):
            continue
        if f.card and (tag := needs_tag(a)) and tag not in su.unit.card.combat_tags:
            continue
        reach = [e for e in a.effects if e.kind == "weapon_keyword"]
        if action == "move" and not reach:  # a Move's ability is for the Shoot later in the Round
            continue
        if any(not ({f"*{weapon_phase}", "*all"} & set(e.weapons) or weapons & set(e.weapons)) for e in reach):
            continue
        if a.name not in out:
            out.append(a.name)
    return out


def _radius(su: ScenarioUnit) -> float:
    return su.base_mm / MM_PER_INCH / 2


def _keep(
    world: World, su: ScenarioUnit, named: list[tuple[str, tuple[float, float]]]
) -> list[tuple[str, tuple[float, float]]]:
    """The points of ``named`` where the Leading Model's base stands on the playmat (on the table, no terrain
    footprint overlapped, not over a piece's top), rounded to 0.01", the first of each point kept."""
    if not named:
        return []
    pts = np.round(np.asarray([p for _, p in named], dtype=float), 2)
    ok = world._terrain_ok(pts, _radius(su), None)  # the placement's own test of a base on terrain (routes.py)
    out: list[tuple[str, tuple[float, float]]] = []
    seen: set[tuple[float, float]] = set()
    for (label, _), p, good in zip(named, pts.tolist(), ok.tolist(), strict=True):
        pt = (float(p[0]), float(p[1]))
        if good and pt not in seen and world.level_at(pt) is None:
            seen.add(pt)
            out.append((label, pt))
    return out


def _along(edge: str) -> int:
    """The coordinate (0: x, 1: y) that runs along a table edge."""
    return 0 if edge in ("south", "north") else 1


def _point(edge: str, along: float, depth: float, width: float, length: float) -> tuple[float, float]:
    """The point ``depth`` inches in from table edge ``edge``, at ``along`` on the coordinate along it."""
    return {
        "south": (along, depth),
        "north": (along, length - depth),
        "west": (depth, along),
        "east": (width - depth, along),
    }[edge]


def lanes(scn: Scenario, edge: str, reach: float) -> list[float]:
    """The lanes across Entry Edge ``edge`` (coordinates along it): the markers', the sixths of the edge, and the
    middles of the gaps between the pieces of Size 1+ standing within ``reach`` of the edge; sorted, one per
    :data:`LANE_GAP`."""
    b = scn.board
    axis = _along(edge)
    span = b.width if axis == 0 else b.depth
    found = [m.x if axis == 0 else m.y for m in scn.deployment.markers]
    found += [span * k / 6 for k in range(1, 6)]
    cuts: list[tuple[float, float]] = []
    for t in b.terrain:
        if t.token or t.size < 1:
            continue
        near = min(edge_distance(edge, c, b.width, b.depth) for c in t.footprint)
        if near <= reach:
            vals = [c[axis] for c in t.footprint]
            cuts.append((min(vals), max(vals)))
    cuts.sort()
    edge_at = 0.0
    for lo, hi in cuts:
        if lo > edge_at:
            found.append((edge_at + lo) / 2)
        edge_at = max(edge_at, hi)
    if cuts and edge_at < span:
        found.append((edge_at + span) / 2)
    out: list[float] = []
    for v in sorted(round(v, 2) for v in found):
        if not out or v - out[-1] >= LANE_GAP:
            out.append(v)
    return out


def deploy_spots(scn: Scenario, world: World, su: ScenarioUnit) -> list[tuple[str, tuple[float, float]]]:
    """The Deploy points of ``su`` (the module text): per lane, the Leading Model at Speed less its radius from the
    player's Entry Edge (not Within the opponent's Zone of Influence) and at half that."""
    b = scn.board
    edge = world.edges[su.player]
    r = _radius(su)
    across = b.depth if _along(edge) == 0 else b.width
    near, most = r + 0.01, su.speed - r  # the base on the table; no part of it farther than Speed
    far = min(most - MARGIN, across - scn.deployment.zone_depth - r - MARGIN)
    if far < near <= most:  # a large base at a low Speed: the middle of the little room there is
        far = (near + most) / 2
    depths = [] if far < near else [round(far, 2)]
    if depths and far - max(near, far / 2) >= LANE_GAP / 3:
        depths.insert(0, round(max(near, far / 2), 2))
    named = [
        ("lane", _point(edge, lane, depth, b.width, b.depth)) for depth in depths for lane in lanes(scn, edge, su.speed)
    ]
    return _keep(world, su, named)


def lane_steps(scn: Scenario, world: World, su: ScenarioUnit) -> list[tuple[str, tuple[float, float]]]:
    """The Deploy lanes carried across the board (the module text): from the farthest Deploy depth, a row every
    Speed (less :data:`MARGIN`), so a unit on a lane reaches the next row in one Move."""
    b = scn.board
    edge = world.edges[su.player]
    r = _radius(su)
    across = b.depth if _along(edge) == 0 else b.width
    step = su.speed - 2 * MARGIN
    deploys = deploy_spots(scn, world, su)
    if step <= 0 or not deploys:
        return []
    far = max(edge_distance(edge, p, b.width, b.depth) for _, p in deploys)
    rows = [far + k * step for k in range(1, int((across - r - far) / step) + 1)]
    named = [
        ("lane-step", _point(edge, lane, d, b.width, b.depth)) for d in rows for lane in lanes(scn, edge, su.speed)
    ]
    return _keep(world, su, named)


def move_spots(scn: Scenario, world: World, su: ScenarioUnit) -> list[tuple[str, tuple[float, float]]]:
    """The Move and Run points of ``su`` (the module text): the markers' contest spots, then the cover spots."""
    b = scn.board
    enemy_edge = world.edges["blue" if su.player == "red" else "red"]
    ax, ay = {"south": (0.0, -1.0), "north": (0.0, 1.0), "west": (-1.0, 0.0), "east": (1.0, 0.0)}[enemy_edge]
    named: list[tuple[str, tuple[float, float]]] = []
    for m in sorted(scn.deployment.markers, key=lambda m: m.number):
        for dx, dy in ((-ax, -ay), (ay, -ax), (-ay, ax), (ax, ay)):  # own side first, the flanks, the enemy side
            named.append((f"marker-{m.number}", (m.x + CONTEST_SPOT * dx, m.y + CONTEST_SPOT * dy)))
    r = _radius(su)
    for t in b.terrain:
        if t.token or t.size < 2:
            continue
        xs = [c[0] for c in t.footprint]
        ys = [c[1] for c in t.footprint]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        half_w, half_d = (max(xs) - min(xs)) / 2, (max(ys) - min(ys)) / 2
        back = (half_d if ay else half_w) + r + COVER_GAP  # behind: away from the opponent's edge
        side = half_w if ay else half_d  # along the piece's face
        bx, by = cx - ax * back, cy - ay * back
        for k in (0.0, -1.0, 1.0):
            named.append((f"cover-{t.id}", (bx + k * side * abs(ay), by + k * side * abs(ax))))
    return _keep(world, su, named)


def stuck(
    world: World, su: ScenarioUnit, points: list[tuple[float, float]], spots: list[tuple[str, tuple[float, float]]]
) -> list[tuple[float, float]]:
    """Those of ``points`` from which no chain of Moves between ``spots`` (each :func:`_step_ok`, on an empty table)
    leads to a Mission Marker's contest spot: the cover spots and Deploy points the lanes and the markers' spots leave
    without a way on (:func:`_reached` back from the contest spots)."""
    every = list(dict.fromkeys([p for _, p in spots] + points))
    seen = _reached(world, su, [p for lab, p in spots if lab.startswith("marker-")], every, back=True)
    return [p for p in points if p not in seen]


def round_spots(
    scn: Scenario, world: World, su: ScenarioUnit, need: list[tuple[float, float]]
) -> list[tuple[str, tuple[float, float]]]:
    """The Move points round the terrain (the module text): per piece a base may not overlap (every piece but the
    Tokens and GRASS, :meth:`World._level_blockers`), its footprint grown as a route's (:func:`marker_routes`: the
    path obstacles' growth and :data:`ROUTE_CLEAR`), each corner and points along each side at most Speed (less
    twice :data:`MARGIN`) apart, where the Leading Model's base stands on the playmat, for the pieces within Speed of
    a point of ``need`` (:func:`stuck`: the points a unit must find its way on from; the others' ways go by the
    lanes, and the menu stays tens of entries); none for a Flying unit (it moves point-to-point, part 11)."""
    if su.flying or not need:
        return []
    grow = _radius(su) * GROW + 1e-6 + ROUTE_CLEAR
    step = su.speed - 2 * MARGIN
    named: list[tuple[str, tuple[float, float]]] = []
    for t in scn.board.terrain:
        if t.token or t.grass:
            continue
        ring = list(t.polygon.buffer(grow, join_style="mitre").exterior.coords)
        for (ax, ay), (bx, by) in itertools.pairwise(ring):
            n = max(1, math.ceil(math.hypot(bx - ax, by - ay) / step)) if step > 0 else 1
            named += [(f"round-{t.id}", (ax + k / n * (bx - ax), ay + k / n * (by - ay))) for k in range(n)]
    if not named:
        return []
    at = np.asarray([p for _, p in named], dtype=float)
    near = np.hypot(*(at[:, None, :] - np.asarray(need, dtype=float)[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    return _keep(world, su, [x for x, d in zip(named, near.tolist(), strict=True) if d <= su.speed])


def _step_ok(world: World, su: ScenarioUnit, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Can the unit's Leading Model go from ``a`` to ``b`` in one Move on an empty table (8.5.3: the way round the
    terrain at most Speed)?"""
    if math.dist(a, b) > su.speed:
        return False
    r = _radius(su)
    return world.route(a, None, b, None, flying=su.flying, radius=r).length <= su.speed - MARGIN


def _reached(
    world: World,
    su: ScenarioUnit,
    starts: list[tuple[float, float]],
    points: list[tuple[float, float]],
    back: bool = False,
) -> set[tuple[float, float]]:
    """``starts`` and those of ``points`` the unit reaches from them by a chain of Moves between ``points`` (each
    :func:`_step_ok`, on an empty table; breadth first); ``back``: those from which it reaches one of ``starts``.
    A point joins where one Move links it with a point of the last level: only those within Speed are asked (the
    nearest first: the likeliest)."""
    seen = set(starts)
    frontier = list(dict.fromkeys(starts))
    within = su.speed + 1e-6  # _step_ok's own test of the distance decides; this only spares the calls beyond it
    while frontier:
        rest = [p for p in points if p not in seen]
        if not rest:
            break
        gap = np.hypot(*(np.asarray(rest)[:, None, :] - np.asarray(frontier)[None, :, :]).transpose(2, 0, 1))
        nxt = []
        for p, row in zip(rest, gap, strict=True):
            near = np.flatnonzero(row <= within)
            for j in near[np.argsort(row[near], kind="stable")].tolist():
                if _step_ok(world, su, p, frontier[j]) if back else _step_ok(world, su, frontier[j], p):
                    nxt.append(p)
                    break
        seen.update(nxt)
        frontier = nxt
    return seen


def unreached_markers(
    scn: Scenario, world: World, su: ScenarioUnit, spots: list[tuple[str, tuple[float, float]]]
) -> list[int]:
    """The Mission Markers (numbers) none of whose contest spots among ``spots`` the unit reaches from its Deploy
    points by Moves between ``spots`` (:func:`_reached`)."""
    starts = [p for _, p in deploy_spots(scn, world, su)]
    seen = _reached(world, su, starts, list(dict.fromkeys(p for _, p in spots)))
    reached = {lab for lab, p in spots if p in seen}
    return [
        m.number for m in sorted(scn.deployment.markers, key=lambda m: m.number) if f"marker-{m.number}" not in reached
    ]


def _shortest_ways(
    nodes: list[tuple[float, float]], starts: int, ends: set[int], clear: Callable[[int, int], bool]
) -> list[list[tuple[float, float]]]:
    """Every shortest polyline (to :data:`ROUTE_TIE`, at most :data:`ROUTE_WAYS`) from one of the first ``starts`` of
    ``nodes`` to one of ``ends`` through ``nodes``, a leg where ``clear`` (Dijkstra on the visibility graph): all of
    the tied ones, so that the card's symmetry maps one player's ways onto the other's (no tie broken by the order
    of the points); [] where there is none."""
    n = len(nodes)
    dist = [math.inf] * n
    prev: list[list[int]] = [[] for _ in range(n)]
    heap = [(0.0, i) for i in range(starts)]
    for i in range(starts):
        dist[i] = 0.0
    done = [False] * n
    while heap:
        d, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        for j in range(n):
            if j == i or done[j]:
                continue
            nd = d + math.dist(nodes[i], nodes[j])
            if nd > dist[j] + ROUTE_TIE or not clear(i, j):
                continue
            if nd < dist[j] - ROUTE_TIE:
                dist[j], prev[j] = nd, [i]
                heapq.heappush(heap, (nd, j))
            else:
                prev[j].append(i)
    best = min((dist[e] for e in ends), default=math.inf)
    if math.isinf(best):
        return []
    ways: list[list[tuple[float, float]]] = []

    def back(k: int, tail: list[int]) -> None:
        if len(ways) >= ROUTE_WAYS:
            return
        if not prev[k]:
            ways.append([nodes[m] for m in reversed([*tail, k])])
            return
        for q in prev[k]:
            back(q, [*tail, k])

    for e in sorted(ends):
        if dist[e] <= best + ROUTE_TIE:
            back(e, [])
    return ways


def marker_routes(
    scn: Scenario, world: World, su: ScenarioUnit, spots: list[tuple[str, tuple[float, float]]]
) -> list[tuple[str, tuple[float, float]]]:
    """The points of a route to each Mission Marker that ``spots`` leave out of reach (:func:`unreached_markers`):
    the shortest way from one of the unit's Deploy points to one of the marker's contest spots round the terrain
    footprints a base may not stand on (a Size 1 crater too: a point every Speed must be on the playmat; through the
    corners of the footprints grown by the base's radius and :data:`ROUTE_CLEAR`), a point every Speed (less twice
    :data:`MARGIN`) along it; a point whose base would stand on terrain is moved nearer by :data:`ROUTE_BACK` until
    it stands on the playmat (a Move along the way is at most its length: each step stays within Speed)."""
    missing = unreached_markers(scn, world, su, spots)
    if not missing:
        return []
    r = _radius(su)
    starts = [p for _, p in deploy_spots(scn, world, su)]
    walls = [] if su.flying else list(world._level_blockers(None))  # the footprints a base may not overlap
    reach = r * GROW + 1e-6  # the way's clearance: the path obstacles' own circumscribed growth (cspace)
    corners: list[tuple[str, tuple[float, float]]] = []
    for poly in walls:
        grown = poly.buffer(reach + ROUTE_CLEAR, join_style="mitre")
        corners += [("corner", (float(x), float(y))) for x, y in list(grown.exterior.coords)[:-1]]
    via = [p for _, p in _keep(world, su, corners)]
    step = su.speed - 2 * MARGIN
    out: list[tuple[str, tuple[float, float]]] = []
    for number in missing:
        ends = [p for lab, p in spots if lab == f"marker-{number}"]
        nodes = starts + via + ends
        first_end = len(starts) + len(via)

        def clear(i: int, j: int, nodes: list[tuple[float, float]] = nodes) -> bool:
            line = shapely.LineString([nodes[i], nodes[j]])
            return all(shapely.distance(poly, line) > reach for poly in walls)

        for way in _shortest_ways(nodes, len(starts), set(range(first_end, len(nodes))), clear):
            out += [(f"route-{number}", p) for p in _along_way(world, su, way, step)]
    return out


def _along_way(
    world: World, su: ScenarioUnit, way: list[tuple[float, float]], step: float
) -> list[tuple[float, float]]:
    """Points along the polyline ``way`` every ``step`` (or nearer, :data:`ROUTE_BACK` at a time, where a base would
    stand on terrain), short of its end; [] where a point finds no place before the last one."""
    if len(way) < 2 or step <= 0:
        return []
    legs = [math.dist(a, b) for a, b in itertools.pairwise(way)]
    total = sum(legs)

    def at(s: float) -> tuple[float, float]:
        for k, n in enumerate(legs):
            if s <= n or k == len(legs) - 1:
                a, b = way[k], way[k + 1]
                f = 0.0 if n == 0 else min(s / n, 1.0)
                return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
            s -= n
        return way[-1]

    out: list[tuple[float, float]] = []
    last = 0.0
    while total - last > step:
        s = last + step
        while s > last:
            kept = _keep(world, su, [("route", at(s))])
            if kept:
                out.append(kept[0][1])
                break
            s -= ROUTE_BACK
        else:
            return []
        last = s
    return out


__all__ = [
    "ATTACK_USE",
    "KINDS",
    "Entry",
    "UnitMenu",
    "attack_abilities",
    "build_menus",
    "deploy_spots",
    "lane_steps",
    "lanes",
    "marker_routes",
    "move_spots",
    "unit_menu",
    "unreached_markers",
]
