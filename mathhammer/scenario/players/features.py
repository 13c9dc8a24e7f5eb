"""The numbers an automatic player's policy weighs (issue 29, step 5 of ``docs/dev/automatic-players.md``): per game
and entry of a unit's menu (:mod:`.menu`), one row of :data:`COLUMNS`.

Columns (each a reading; the weights of ``profiles/policies.toml`` say how much each counts):

* ``damage``, ``destroy``: the expected enemy Supply the entry's attack destroys and the probability that it destroys
  the target, from the exact engine (:func:`~mathhammer.starcraft.exact.exact_states`) on the attacker's chain against
  the target in its state in that game (models left, Damage Marker, SHIELDED). A Shoot entry: each Ranged Weapon's
  Batch of the models within its Range, at the target or the first of the entry's ``then`` it may shoot, summed over
  the units shot (:mod:`.shotscore`; whether the target may be shot at all is :mod:`.legal`'s answer); a Charge
  entry: the Close Combat Batches that follow it (8.8.1), times the probability that the Charge reaches (below); a
  Fight entry: those at the nearest enemy unit. The attacker's loadout has the entry's abilities on (``use``: a
  weapon's keywords and Surge, 10.1). Memoised per (attacker, models left, target, models left, Damage Marker,
  SHIELDED, phase, abilities): a chain is read once per run.
* The probability that a Charge reaches (8.7.7: Speed + the Charge Roll, a D6, the highest of more with the
  ``charge_roll`` abilities used, Metabolic Boost, plus their additions): the roll at least the least base gap between
  the unit's Leading Model (8.7.7 step 2; the placement's first model, as the engine moves it) and the target's models
  left less 1" (Engagement Range) less the unit's Speed (with its abilities' BUFF Speed). The straight gap is the
  least any path can be (terrain and models in the way are not read): an upper bound.
* ``models``: the expected share of the target's full strength the attack removes (the Current Supply Value drops in
  steps, 8.9.2: an attack that leaves a unit above the step destroys no Supply yet).
* ``threat``: what the enemy could destroy of this unit next Round at the entry's end point: the sum, over the enemy
  units on the table whose Leading Model is within their Speed plus their longest Ranged Weapon's range of the point
  (or Speed + 6 + 1" for those with Close Combat weapons: a Charge; the Speed with the most BUFF Speed a Movement Phase
  ability on their menu gives where their cards pay for it, :meth:`Features._fast`: Stimpack), of the better of their
  two chains' expected share of this unit's models removed (in its state), times its full Supply Value (smooth where
  Supply drops in steps). Line of Sight is not read: the enemy Moves before it shoots next Round, so what it sees from
  where it stands now does not bound what it will see; an upper bound (the menu's cover spots are the Line of Sight
  column).
* ``marker``: the mission's VP per Round for the Mission Marker the end point contests (a ``marker-N`` spot, or a unit
  already standing Within 3" of one and staying: 8.9.1), from the card's points (:func:`marker_worth`), where this
  unit would take it (the player does not Control it now) or keep it (no other unit of the player's has its Leading
  Model Within 3" of it: the one contesting unit; 0 where another one holds it already); ``take``: the same VP where
  the player does not Control that marker now. Who wins a contest (8.9.1, Current Supply) is not read.
* ``deny``: the race to that marker (8.9.1: Sticky Control, the first to contest it takes it): the opponent's VP per
  Round for it (the same card's points, its colour read from the opponent's side), on the rows ``marker`` counts,
  where the opponent Controls it or an enemy unit on the table can reach its contest range by the end of next Round:
  the Leading Model within a Move and a Run (8.5.3, 8.7.1) at its Speed plus the most BUFF Speed its menu's Movement
  Phase abilities give (Stimpack: 3, until the end of the Round), where its cards pay for it with all Ready, plus 3"
  (:meth:`Features._fast`; a straight line: terrain not read, an upper bound). A unit contests it before the enemy
  gets there.
* ``cover``: 1 where the end point is one of the menu's cover spots (behind a Size 2+ piece from the enemy side: 7.1.1
  Line of Sight blocked; a unit standing on one and Holding or Shooting too), else 0.
* ``marker_gap``, ``enemy_gap``: inches from the end point to the nearest Mission Marker the player does not Control
  and no other unit of the player's contests (Leading Model Within 3"; along the way round the terrain, as
  ``marker_moves``: the straight gap where the line is clear), and to the nearest enemy unit on the table (0
  where there is none): the way forward for a unit too far to reach a marker or an enemy this Phase (a negative weight
  draws it on).
* ``marker_moves``: the Moves from the end point to that marker (:mod:`.ways`): one Move to a Move point of the menu,
  then the fewest Moves between the menu's Move points into its contest range (each the way round the terrain the
  unit cannot cross at most its Speed, 8.5.3, the pathing of a Move); :data:`.ways.FAR_MOVES` where no Move leads on:
  a unit does not stay behind a wall the straight line would cross, nor walk into a corner of the menu it cannot
  leave, and a Move along the menu's shortest chain always counts one Move nearer.
* A Move or Hold of the Movement Phase with an ability whose gain is the Shoot later in the Round (Stimpack: PRECISION
  (3) on the C-14 Rifle and BUFF Speed (3) until the end of the Round, NON-LETHAL DAMAGE (2) on the unit, part 11):
  ``damage``, ``destroy``, ``models`` are what the ability adds, less what it costs the unit itself, each in the
  column's own measure, so a policy weighs the gain and the price alike (:meth:`Features.later`). The gain: that Shoot
  with the ability on less without, at the enemy unit whose Leading Model is within the unit's longest Ranged Weapon's
  range of the end point where it adds most (on a Hold, only an enemy unit it may shoot at from where it stands: a
  Ranged Weapon in range of a Visible model, :meth:`Features.seen`; on a Move, Line of Sight is not read: the unit is
  not there yet; the BUFF Speed's reach is the end point itself: a Move only the extra Speed makes legal, :mod:`.legal`,
  scores its marker as any Move). The price: the NON-LETHAL DAMAGE stays on the unit's Damage Marker until an attack
  turns it into casualties (8.7.4 step 5), whichever attack that is, so every enemy attack that can reach the end point
  (``threat``'s reach: one per enemy unit, its chain the one of its two that removes more, the strongest first) resolved
  in turn on the unit with the Marker that much higher, less the same with it as it is (Supply lost, P(destroyed), share
  of its models; the exact distribution of models left, Damage Marker and SHIELDED carried from one attack to the next,
  :meth:`Features.after`); where none can reach it, the single enemy attack (of any enemy unit left, on the table or in
  Reserves) for which the Marker costs most. Its ``marker``, ``take`` and ``deny`` are scaled by one less how much
  more likely those attacks leave the unit without Supply (it contests nothing, 8.9.1). ``threat`` is read as the plain
  entry's (the price is in the columns above, not counted twice); the CP is ``spend``.
* ``spend``: the resources the entry's abilities take from the player's cards this Round (10.5.1, 10.5.2): each
  ability's cost (CP, BM, PE), plus the resource a card gives per Round where the ability is printed on that card
  and Exhausts it. Unspent resources do not carry over (the cards are Readied in the Cleanup, 8.9.5), so the price
  of a use is only what a later use this Round could have bought: a small negative weight here, and in a weighted
  policy the score of the other units' uses it leaves unpaid (:func:`~.policies.forgone`).

Not read (a policy lives with it): the abilities the unit used earlier in the Round (the chains are the units' own
loadouts and the entry's abilities only), the enemy's Reactions, Line of Sight beyond what :mod:`.legal` admits
(range: a Shoot's weapons, :mod:`.shotscore`), and who wins a marker's contest.

The end point of an entry: its point (Deploy, Move, Run), the target's Leading Model (Charge), else the unit's
Leading Model where it stands (Hold, Shoot, Gather, Fight; a unit in Reserves: its Entry Edge's middle).

The rows of a game depend on its state only (placements, models left, Damage Markers, SHIELDED, markers' control) and
are tabulated once per (unit, Phase, state): games in the same state share them (:meth:`Features.table`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import MM_PER_INCH
from ...starcraft.loadout import attack_batches
from ..lookup import Purse, find, use_bits
from ..spec import PLAYERS
from ..world import CONTEST_RANGE
from .fastfeatures import CHARGE_REACH, Ends, Resolver, distances, impact_batches, threat_column
from .legal import MEMO_LIMIT
from .menu import Entry, UnitMenu
from .shotscore import ShotScore
from .ways import EndRows, marker_ways

#: the columns of a feature row, in order
COLUMNS = (
    "damage",
    "destroy",
    "models",
    "threat",
    "marker",
    "take",
    "deny",
    "cover",
    "marker_gap",
    "enemy_gap",
    "marker_moves",
    "spend",
)
#: a column's index in a row
COL = {c: i for i, c in enumerate(COLUMNS)}
#: the columns :meth:`Features.attack` gives, in its order
DAMAGE, MODELS = COL["damage"], COL["models"]
assert COLUMNS[DAMAGE : MODELS + 1] == ("damage", "destroy", "models")
assert COLUMNS[COL["marker"] : COL["deny"] + 1] == ("marker", "take", "deny")
#: an end point this close to a cover spot of the menu is on it (inches: the placement's rounding)
COVER_AT = 0.05


def marker_worth(rules: Any, number: int, colour: str, player: str) -> float:
    """The VP per Round the Mission Card's scoring kinds give ``player`` for Controlling marker ``number`` of
    ``colour`` (``profiles/missions.toml`` points): Hold Position's ``own``/``opponent`` by colour, Frontlines'
    ``marker``, Gather the Resources' ``opponent`` (the opponent's colour only), Divide and Conquer's ``marker_vp``
    for its marker; a kind without a per-marker number (Supply Drop: the Round number) counts 1."""
    theirs = colour == PLAYERS[1 - PLAYERS.index(player)]
    worth = 0.0
    counted = False
    for kind in rules:
        pts = getattr(kind, "points", None)
        if pts is None:
            continue
        fields = type(pts).model_fields
        if "marker_vp" in fields:  # Divide and Conquer: one marker by number
            worth += pts.marker_vp if pts.marker == number else 0
            counted = True
        elif "own" in fields and "opponent" in fields:  # Hold Position
            worth += pts.opponent if theirs else pts.own
            counted = True
        elif "opponent" in fields:  # Gather the Resources
            worth += pts.opponent if theirs else 0
            counted = True
        elif "marker" in fields:  # Frontlines
            worth += pts.marker
            counted = True
    return float(worth) if counted else 1.0


class _Menu(NamedTuple):
    """A menu as :meth:`Features._table` reads it (the same in every state): each entry's point (NaN: none), the
    attack entries (index, action, target's unit index, ``use``), the Charges without a point (index, target), the
    Fights, the Moves and Holds with an ability for the Shoot later in the Round (index, ``use``: Stimpack), the
    ``spend`` column, the cover spots, the marker an entry names (-1: none), the entries a marker counts for (not
    Pass, not Charge)."""

    to: np.ndarray
    attacks: list[tuple[int, str, int, tuple[str, ...], tuple[int, ...]]]
    charges: list[tuple[int, int]]
    fights: list[int]
    laters: list[tuple[int, tuple[str, ...]]]
    spend: np.ndarray
    covers: np.ndarray
    marker: np.ndarray
    counted: np.ndarray
    geo: Ends


class Features(ShotScore):
    """The feature rows of a Simulation's games (the module text); ``sim`` is a
    :class:`~mathhammer.scenario.simview.SimView` with ``control`` and ``scn.mission``."""

    def __init__(self, sim: Any, menus: dict[str, UnitMenu]) -> None:
        self.sim = sim
        self.menus = menus
        self._rows: dict[tuple[object, ...], np.ndarray] = {}
        self._attack: dict[tuple[object, ...], tuple[float, float, float, float]] = {}
        self.shot_memos()
        self._spend: dict[tuple[str, tuple[str, ...]], float] = {}
        self._menus: dict[tuple[int, str], _Menu] = {}
        self._fixed_moves: dict[tuple[int, str], np.ndarray] = {}
        self._way_rows = EndRows()  # the rows of the end points with no menu point of their own
        self._reaches: dict[tuple[object, ...], float] = {}
        self._after: dict[tuple[object, ...], tuple[float, float, float, float]] = {}
        self._later: dict[tuple[object, ...], tuple[np.ndarray, float]] = {}
        self._hurt: dict[tuple[int, tuple[str, ...]], int] = {}
        self._moves_to: dict[tuple[object, ...], dict[tuple[int, int, int], float]] = {}
        self.resolver = Resolver(sim)  # the exact engine's attacks (also the Reactions' answers read it)
        self._leads: dict[int, tuple[float, float]] = {}
        self._threats: dict[tuple[object, ...], tuple[np.ndarray, ...]] = {}
        self._states_of: dict[tuple[object, ...], list[tuple[tuple[int, int, int], float]]] = {}
        world = sim.world
        self.markers = np.asarray([(m.x, m.y) for m in sim.scn.deployment.markers], dtype=float).reshape(-1, 2)
        rules = getattr(sim.scn.mission, "rules", ())
        self.worth = np.asarray(
            [[marker_worth(rules, m.number, m.side, p) for m in sim.scn.deployment.markers] for p in PLAYERS],
            dtype=float,
        ).reshape(2, -1)
        b = sim.scn.board
        mids = {"south": (b.width / 2, 0.0), "north": (b.width / 2, b.depth), "west": (0.0, b.depth / 2)}
        mids["east"] = (b.width, b.depth / 2)
        self.home = [mids[world.edges[p]] for p in PLAYERS]
        self.player = [PLAYERS.index(su.player) for su in sim.units]
        self.reach = [self._reach(u) for u in range(sim.U)]
        self.fast = [self._fast(u) for u in range(sim.U)]
        self.steps = [self._steps(u) for u in range(sim.U)]
        self._rng, self._charge = np.asarray([r for r, _ in self.reach]), np.asarray([c for _, c in self.reach], bool)
        self._fast_a = np.asarray(self.fast, dtype=float)
        #: how far a unit's Leading Model may go by the end of its next Round: a Move and a Run (0: Flying, it contests
        #: nothing, 8.9.1)
        self.dash = [0.0 if su.flying else 2.0 * f for su, f in zip(sim.units, self.fast, strict=True)]

    # ------------------------------------------------------------------ the rows
    def rows(self, u: int, phase: str, games: np.ndarray) -> np.ndarray:
        """Games x entries of unit ``u``'s ``phase`` menu x :data:`COLUMNS`."""
        states, inv = self.states(games)
        tables = np.stack([self.table(u, phase, s) for s in states])
        return tables[inv]

    def states(self, games: np.ndarray) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """The distinct states of ``games`` that the rows read (placements, models left, Damage Markers, SHIELDED,
        markers' control), and each game's index among them."""
        sim = self.sim
        games = np.asarray(games, dtype=np.int64)
        rows = [sim.pos, sim.alive, sim.mark, sim.shielded, sim.control]
        cols = np.ascontiguousarray(np.concatenate([r[:, games] for r in rows], axis=0).T, dtype=np.int64)
        one = cols.view(np.dtype((np.void, 8 * cols.shape[1]))).reshape(-1)
        _, first, inv = np.unique(one, return_index=True, return_inverse=True)
        return [tuple(s) for s in cols[first].tolist()], inv.reshape(-1)

    def table(self, u: int, phase: str, state: tuple[int, ...]) -> np.ndarray:
        """Entries x :data:`COLUMNS` of unit ``u``'s ``phase`` menu in one state (memoised)."""
        key = (u, phase, state)
        hit = self._rows.get(key)
        if hit is None:
            if len(self._rows) > MEMO_LIMIT:
                self._rows.clear()
            hit = self._rows[key] = self._table(u, phase, state)
        return hit

    def _menu(self, u: int, phase: str) -> _Menu:
        """What :meth:`_table` reads of unit ``u``'s ``phase`` menu that is the same in every state (memoised)."""
        key = (u, phase)
        hit = self._menus.get(key)
        if hit is None:
            hit = self._menus[key] = self._read(u, self.menus[self.sim.uids[u]][phase])
        return hit

    def _read(self, u: int, menu: Sequence[Entry]) -> _Menu:
        """:meth:`_menu` of the entries ``menu`` of unit ``u``."""
        sim = self.sim
        to = np.asarray([e.to if e.to is not None else (np.nan, np.nan) for e in menu], dtype=float).reshape(-1, 2)
        target = [sim.uids.index(e.target) if e.target is not None else -1 for e in menu]
        attacks = [
            (i, e.action, target[i], e.use, tuple(sim.uids.index(o) for o in e.then))
            for i, e in enumerate(menu)
            if e.action in ("shoot", "charge") and e.target is not None
        ]
        charges = [
            (i, target[i]) for i, e in enumerate(menu) if e.to is None and e.action == "charge" and target[i] >= 0
        ]
        fights = [i for i, e in enumerate(menu) if e.action == "fight"]
        laters = [(i, e.use) for i, e in enumerate(menu) if e.use and e.action in ("move", "hold")]
        spend = np.zeros(len(menu), dtype=float)
        for i, e in enumerate(menu):
            if e.use:
                spend[i] = self.spend(sim.uids[u], e.use)
        covers = np.asarray([e.to for e in menu if e.to is not None and e.label.startswith("cover-")], dtype=float)
        named = [int(e.label.split("-")[1]) if e.label.startswith("marker-") else None for e in menu]
        marker = np.asarray([-1 if m is None else sim.marker_numbers.index(m) for m in named], dtype=np.int64)
        counted = np.asarray([e.action not in ("pass", "charge") for e in menu], dtype=bool)
        covers = covers.reshape(-1, 2)
        geo = Ends(to, covers, self.markers, COVER_AT)
        return _Menu(to, attacks, charges, fights, laters, spend, covers, marker, counted, geo)

    def table_of(self, u: int, phase: str, state: tuple[int, ...], entries: tuple[Entry, ...]) -> np.ndarray:
        """Entries x :data:`COLUMNS` of ``entries`` of unit ``u`` in ``state`` (:meth:`states`), as if its ``phase``
        menu (a Reaction's Move: :mod:`.reactions`; not memoised)."""
        return self._table(u, phase, state, entries)

    def _table(
        self, u: int, phase: str, state: tuple[int, ...], entries: tuple[Entry, ...] | None = None
    ) -> np.ndarray:
        sim = self.sim
        n = sim.U
        pos, alive = state[:n], state[n : 2 * n]
        mark, shielded, control = state[2 * n : 3 * n], state[3 * n : 4 * n], state[4 * n :]
        p = self.player[u]
        st = self._menu(u, phase) if entries is None else self._read(u, entries)
        size = len(st.to)
        enemies = [v for v in range(n) if self.player[v] != p and pos[v] >= 0 and alive[v] > 0]
        leads = {v: self._lead(v, pos[v]) for v in range(n) if pos[v] >= 0 and alive[v] > 0}
        here = leads.get(u, self.home[p])
        out = np.zeros((size, len(COLUMNS)), dtype=float)
        bare = np.zeros(size, dtype=float)  # the more likely loss of all Supply a Stimpack's damage brings
        # each entry's end point: its point, a Charge's target's Leading Model, else where the unit stands
        ends = st.to.copy()
        ends[st.geo.free] = here
        for i, t in st.charges:
            ends[i] = leads.get(t, here)
        out[:, COL["spend"]] = st.spend
        if u in leads:
            hits, vals = [], []
            for i, action, t, use, then in st.attacks:
                if t in leads:
                    if action == "shoot":  # each weapon in its Range (shotscore)
                        got = self.shot(u, pos, alive, mark, shielded, (t, *then), use)
                    else:  # 8.7.7: the attack follows a Charge that reaches
                        got = self.attack(u, alive[u], t, alive[t], mark[t], shielded[t], "combat", use)
                        r = self.reaches(u, pos[u], alive[u], pos[t], alive[t], use)
                        got = (got[0] * r, got[1] * r, got[2] * r)
                    hits.append(i)
                    vals.append(got)
            if hits:
                out[hits, DAMAGE : MODELS + 1] = vals
            if enemies and st.fights:
                t = min(enemies, key=lambda v: math.dist(here, leads[v]))
                for i in st.fights:
                    out[i, DAMAGE : MODELS + 1] = self.attack(u, alive[u], t, alive[t], mark[t], shielded[t], "combat")
            for i, use in st.laters:  # for the Shoot later this Round (Stimpack)
                end = (float(ends[i, 0]), float(ends[i, 1]))
                seen = None  # a Hold: the enemy units in range it may shoot at from here
                if np.isnan(st.to[i, 0]):
                    near = [v for v in enemies if math.dist(end, leads[v]) <= self.reach[u][0]]
                    seen = self.seen(u, pos, alive, near)
                out[i, DAMAGE : MODELS + 1], bare[i] = self.later(
                    u, end, use, enemies, leads, alive, mark, shielded, seen
                )
        cover, gap = st.geo.at(ends)  # on a cover spot (Hold, Shoot from there too); the distances to the markers
        out[:, COL["cover"]] = cover
        them = st.geo.to(ends, [leads[v] for v in enemies])  # the distances to the enemy units
        # threat at each end point (this unit in its state; the enemies where they stand)
        if alive[u] > 0:
            out[:, COL["threat"]] = self.threat(u, ends, mark[u], enemies, leads, alive, shielded, them)
        # markers: the one each end point contests, and the way to the nearest one not held
        if self.markers.size:
            near = gap.argmin(axis=1)
            within = gap[np.arange(size), near] <= CONTEST_RANGE
            friends = [leads[v] for v in leads if v != u and self.player[v] == p]
            others = np.asarray(
                [any(math.dist(f, m) <= CONTEST_RANGE for f in friends) for m in self.markers.tolist()], dtype=bool
            )
            idx = np.where(st.marker >= 0, st.marker, np.where(within, near, -1))
            rows = np.flatnonzero((idx >= 0) & st.counted)
            at = idx[rows]
            owner = np.asarray(control, dtype=np.int64)[at]
            held = owner == p
            worth = self.worth[p, at]
            # taking it, or keeping it where no other unit of ours stays
            out[rows, COL["marker"]] = np.where(~held | ~others[at], worth, 0.0)
            out[rows, COL["take"]] = np.where(held, 0.0, worth)
            # the race: the opponent's VP for it, where it Controls it or an enemy unit can reach it next Round
            q = 1 - p
            reach = [(leads[v], self.dash[v] + CONTEST_RANGE) for v in enemies]
            raced = np.asarray([any(math.dist(a, m) <= r for a, r in reach) for m in self.markers.tolist()])
            race = (owner == q) | raced.astype(bool)[at]
            out[rows, COL["deny"]] = np.where((~held | ~others[at]) & race, self.worth[q, at], 0.0)
            if st.laters:  # no Supply left, no contest (8.9.1): the NON-LETHAL DAMAGE's price
                out[:, COL["marker"] : COL["deny"] + 1] *= (1.0 - bare)[:, None]
            free = np.asarray([c != p and not o for c, o in zip(control, others.tolist(), strict=True)], dtype=bool)
            if free.any():
                ways = self._ways(u, phase if entries is None else None, st, ends, gap)
                out[:, COL["marker_gap"]] = ways[:, free, 0].min(axis=1)
                out[:, COL["marker_moves"]] = ways[:, free, 1].min(axis=1)
        if enemies:
            out[:, COL["enemy_gap"]] = them.min(axis=1)
        return out

    def threat(
        self,
        u: int,
        ends: np.ndarray,
        mark_u: int,
        enemies: list[int],
        leads: dict[int, tuple[float, float]],
        alive: tuple[int, ...],
        shielded: tuple[int, ...],
        gap: np.ndarray | None = None,
    ) -> np.ndarray:
        """The ``threat`` column at end points ``ends`` of unit ``u`` with Damage Marker ``mark_u`` (module text);
        ``gap``: the end points' distances to the ``enemies`` (:class:`~.fastfeatures.Ends`), None: read here."""
        if gap is None:
            gap = distances(ends, np.asarray([leads[v] for v in enemies], dtype=float).reshape(-1, 2))
        key = (u, alive[u], mark_u, shielded[u], tuple([(v, alive[v]) for v in enemies]))
        hit = self._threats.get(key)  # the enemies' numbers: the same wherever they stand
        if hit is None:
            if len(self._threats) > MEMO_LIMIT:
                self._threats.clear()
            sim = self.sim
            worth = float(sim.supply(u, np.asarray([sim.full[u]]))[0])
            at = [(v, alive[v], u, alive[u], mark_u, shielded[u]) for v in enemies]
            ranged = np.asarray([self.attack(*x, "assault")[2] * worth for x in at], dtype=float)
            melee = np.asarray([self.attack(*x, "combat")[2] * worth for x in at], dtype=float)
            ids = np.asarray(enemies, dtype=np.int64)
            hit = self._threats[key] = (self._rng[ids], self._charge[ids], self._fast_a[ids], ranged, melee)
        return threat_column(gap, *hit)

    def self_damage(self, u: int, use: tuple[str, ...]) -> int:
        """The NON-LETHAL DAMAGE the abilities ``use`` deal unit ``u`` itself (part 11; Stimpack: 2)."""
        hit = self._hurt.get((u, use))
        if hit is None:
            sim = self.sim
            hit = self._hurt[(u, use)] = int(
                sum(e.value for e in sim.effects(u, use_bits(sim, u, use), "non_lethal_self"))
            )
        return hit

    def later(
        self,
        u: int,
        end: tuple[float, float],
        use: tuple[str, ...],
        enemies: list[int],
        leads: dict[int, tuple[float, float]],
        alive: tuple[int, ...],
        mark: tuple[int, ...],
        shielded: tuple[int, ...],
        seen: set[int] | None = None,
    ) -> tuple[np.ndarray, float]:
        """A Move or Hold of unit ``u`` ending at ``end`` with abilities ``use``, for the Shoot later in the Round
        (the module text): its ``damage``, ``destroy``, ``models`` (the most the abilities add to that Shoot at an
        enemy unit in range, less the price of their NON-LETHAL DAMAGE on ``u``), and how much more likely that
        damage leaves ``u`` without Supply (to scale the marker it moves for). ``seen``: the enemy units it may shoot
        at from where it stands (a Hold, :meth:`seen`); None: every one in range (a Move: Line of Sight not read)."""
        rng = self.reach[u][0]
        shot = tuple(v for v in enemies if math.dist(end, leads[v]) <= rng and (seen is None or v in seen))
        hurt = self.self_damage(u, use)
        chain = self.attackers(u, end, enemies, leads, alive, mark[u], shielded[u]) if hurt else ()
        # the answer depends on the end point only through the units it may shoot and the attacks that reach it
        key = (u, use, shot, chain, alive, mark, shielded)
        hit = self._later.get(key)
        if hit is None:
            if len(self._later) > MEMO_LIMIT:
                self._later.clear()
            hit = self._later[key] = self._later_at(u, use, shot, hurt, chain, alive, mark, shielded)
        return hit

    def _later_at(
        self,
        u: int,
        use: tuple[str, ...],
        shot: tuple[int, ...],
        hurt: int,
        chain: tuple[tuple[int, int, str], ...],
        alive: tuple[int, ...],
        mark: tuple[int, ...],
        shielded: tuple[int, ...],
    ) -> tuple[np.ndarray, float]:
        """:meth:`later` where unit ``u`` may shoot the units ``shot`` and suffers ``hurt`` NON-LETHAL DAMAGE, the
        attacks ``chain`` reaching it."""
        gain = np.zeros(3)
        for v in shot:
            on = self.attack(u, alive[u], v, alive[v], mark[v], shielded[v], "assault", use)
            off = self.attack(u, alive[u], v, alive[v], mark[v], shielded[v], "assault")
            more = np.subtract(on, off)
            if more[0] + more[2] > gain[0] + gain[2]:
                gain = more
        if not hurt:
            return gain, 0.0
        if chain:  # every enemy attack that can reach the end point, one after another
            worse = self.after(u, alive[u], mark[u] + hurt, shielded[u], chain)
            now = self.after(u, alive[u], mark[u], shielded[u], chain)
            price = np.subtract(worse, now)
        else:  # none reaches it this Round: the Marker waits for the worst single attack of any enemy left
            price = np.zeros(4)
            later = [v for v in range(self.sim.U) if self.player[v] != self.player[u] and alive[v] > 0]
            for v in later:
                for ph in ("assault", "combat"):
                    worse = self.outcome(v, alive[v], u, alive[u], mark[u] + hurt, shielded[u], ph)
                    now = self.outcome(v, alive[v], u, alive[u], mark[u], shielded[u], ph)
                    price = np.maximum(price, np.subtract(worse, now))
        return gain - price[:3], float(price[3])

    def seen(self, u: int, pos: tuple[int, ...], alive: tuple[int, ...], enemies: list[int]) -> set[int]:
        """The enemy units among ``enemies`` that unit ``u`` may make a Ranged Attack at from where it stands in the
        state (``pos``, ``alive``): a Ranged Weapon of its in range of a Visible model (8.7.3 step 1, the World's attack
        facts, as the Shoot's legality reads them; Grass removed in a game not read)."""
        sim = self.sim
        lo = sim.loadout(u, 0)
        out: set[int] = set()
        for v in enemies:
            tags = tuple(sim.units[v].unit.card.combat_tags)
            batches = attack_batches(lo, sim.units[v].unit, "assault")
            if any(sim.world.eligible(pos, alive, sim.uids[u], sim.uids[v], b.weapon, tags) for b in batches):
                out.add(v)
        return out

    def attackers(
        self,
        u: int,
        end: tuple[float, float],
        enemies: list[int],
        leads: dict[int, tuple[float, float]],
        alive: tuple[int, ...],
        mark_u: int,
        shielded_u: int,
    ) -> tuple[tuple[int, int, str], ...]:
        """The enemy attacks that can reach unit ``u`` at ``end`` before it acts again (``threat``'s reach: Speed plus
        the longest Ranged Weapon's range, or Speed + 7" for a Charge), one per enemy unit: (unit, models left,
        phase), its chain the one of the two that removes the larger expected share of ``u``'s models in its state,
        the strongest first."""
        out: list[tuple[float, int, int, str]] = []
        for v in enemies:
            rng_v, charge = self.reach[v]
            gap = math.dist(end, leads[v])
            speed = self.fast[v]
            best: tuple[float, str] | None = None
            if rng_v and gap <= speed + rng_v:
                best = (self.attack(v, alive[v], u, alive[u], mark_u, shielded_u, "assault")[2], "assault")
            if charge and gap <= speed + CHARGE_REACH:
                melee = self.attack(v, alive[v], u, alive[u], mark_u, shielded_u, "combat")[2]
                if best is None or melee > best[0]:
                    best = (melee, "combat")
            if best is not None:
                out.append((-best[0], v, alive[v], best[1]))
        return tuple((v, a, ph) for _, v, a, ph in sorted(out))

    def after(
        self, t: int, k: int, mark: int, shielded: int, chain: tuple[tuple[int, int, str], ...]
    ) -> tuple[float, float, float, float]:
        """:meth:`outcome`'s four numbers for unit ``t`` (``k`` models left, Damage Marker ``mark``) after every attack
        of ``chain`` (:meth:`attackers`) in turn, each on the state the ones before it leave (the exact distribution
        of models left, Damage Marker and SHIELDED carried from one to the next; memoised)."""
        key = (t, k, mark, shielded, chain)
        hit = self._after.get(key)
        if hit is not None:
            return hit
        if len(self._after) > MEMO_LIMIT:
            self._after.clear()
        dist: dict[tuple[int, int, int], float] = {(k, mark, shielded): 1.0}
        for v, a, ph in chain:
            nxt: dict[tuple[int, int, int], float] = {}
            for (kk, mm, ss), p in dist.items():
                for st, q in self.transition(v, a, t, kk, mm, ss, ph).items():
                    nxt[st] = nxt.get(st, 0.0) + p * q
            dist = nxt
        hit = self._after[key] = self._summary(t, k, dist.items())
        return hit

    def transition(
        self, v: int, a: int, t: int, k: int, mark: int, shielded: int, phase: str
    ) -> dict[tuple[int, int, int], float]:
        """Unit ``t``'s state (models left, Damage Marker, SHIELDED) after unit ``v``'s ``a`` models attack it with
        their ``phase`` chain from ``k`` models left, Damage Marker ``mark``: the exact distribution (memoised)."""
        key = (v, a, t, k, mark, shielded, phase)
        hit = self._moves_to.get(key)
        if hit is not None:
            return hit
        if len(self._moves_to) > MEMO_LIMIT:
            self._moves_to.clear()
        hit = {}
        for st, pr in self._states(v, a, t, k, mark, shielded, phase):
            hit[st] = hit.get(st, 0.0) + pr
        self._moves_to[key] = hit
        return hit

    # ------------------------------------------------------------------ the way to the markers
    def _steps(self, u: int) -> np.ndarray:
        """Unit ``u``'s Move points (its movement menu's)."""
        menu = self.menus[self.sim.uids[u]]["movement"]
        pts = np.asarray(sorted({e.to for e in menu if e.action == "move" and e.to is not None}), dtype=float)
        return pts.reshape(-1, 2)

    def _ways(self, u: int, phase: str | None, st: _Menu, ends: np.ndarray, gap: np.ndarray) -> np.ndarray:
        """:meth:`ways` of the menu's end points: a row depends on its end point alone, so the rows of the entries
        with a point of their own (the same in every state) are read once per menu (``phase``; ``None``: entries
        that are not a menu of the unit's, read each time), the others per state."""
        if phase is None:
            return self.ways(u, ends, gap)
        fixed = ~np.isnan(st.to[:, 0])
        key = (u, phase)
        rows = self._fixed_moves.get(key)
        if rows is None:
            rows = self._fixed_moves[key] = self.ways(u, ends[fixed], gap[fixed])
        out = np.empty((*gap.shape, 2), dtype=float)
        out[fixed] = rows
        if not fixed.all():
            out[~fixed] = self._way_rows.of(u, ends[~fixed], gap[~fixed], self.ways)
        return out

    def ways(self, u: int, ends: np.ndarray, gap: np.ndarray) -> np.ndarray:
        """End points x markers x 2: the inches from each end point to each marker along unit ``u``'s way round the
        terrain, and the Moves between its menu's Move points it needs to contest it (:func:`.ways.marker_ways`; 0: it
        does; at most :data:`.ways.FAR_MOVES`). ``gap``: the straight distances."""
        out = marker_ways(self.sim.world, self.sim.uids[u], ends, self.markers, self.steps[u])
        out[gap <= CONTEST_RANGE] = np.stack([gap, np.zeros_like(gap)], axis=-1)[gap <= CONTEST_RANGE]
        return out

    def moves(self, u: int, ends: np.ndarray, gap: np.ndarray) -> np.ndarray:
        """End points x markers: the Moves of :meth:`ways`."""
        return np.asarray(self.ways(u, ends, gap)[..., 1])

    # ------------------------------------------------------------------ the exact engine
    def attack(
        self,
        u: int,
        a: int,
        t: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        use: tuple[str, ...] = (),
        guard: tuple[int, int, int] = (0, 0, 0),
    ) -> tuple[float, float, float]:
        """Expected Supply of unit ``t`` (``k`` models left, Damage Marker ``mark``) that unit ``u``'s ``a`` models
        destroy with their ``phase`` chain (the abilities ``use`` on), P(``t`` destroyed), and the expected share of
        its full strength removed: the exact distribution (memoised). ``guard``: what a Reaction of ``t``'s player
        gives ``t`` against this attack (:mod:`.reactions`): the bits of ``sim.used`` it switches on ``t`` (TOUGH,
        DODGE: ``cards/target_effects.py``), a Total Damage reduction and its minimum
        (``cards/damage_reduction.py``)."""
        return self.outcome(u, a, t, k, mark, shielded, phase, use, guard)[:3]

    def outcome(
        self,
        u: int,
        a: int,
        t: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        use: tuple[str, ...] = (),
        guard: tuple[int, int, int] = (0, 0, 0),
    ) -> tuple[float, float, float, float]:
        """:meth:`attack`'s three numbers and P(``t`` has no Supply left after the attack: it contests no marker,
        8.9.1) (memoised)."""
        key = (u, a, t, k, mark, shielded, phase, use, guard)
        hit = self._attack.get(key)
        if hit is None:
            hit = self._attack[key] = self._exact(u, a, t, k, mark, shielded, phase, use, guard)
        return hit

    def spend(self, unit: str, use: tuple[str, ...]) -> float:
        """The ``spend`` column of an entry of ``unit`` using ``use`` (the module text)."""
        key = (unit, use)
        hit = self._spend.get(key)
        if hit is None:
            scn = self.sim.scn
            hit = 0.0
            for name in use:
                found = find(scn, unit, name)
                assert found is not None, f"{name!r} is on {unit!r}'s menu: the menu finds it"
                a = found.ability
                hit += float(a.cost) if isinstance(a.cost, int) else 0.0
                if found.card and "do not exhaust this card" not in a.text.lower():
                    hit += float(scn.roster.card(found.card).resource_per_round)
            self._spend[key] = hit
        return hit

    def reaches(self, u: int, pu: int, a: int, pt: int, k: int, use: tuple[str, ...], slow: float = 0.0) -> float:
        """The probability that unit ``u`` (``a`` models left on placement ``pu``), using ``use``, Charges unit on
        placement ``pt`` (``k`` models left) far enough (the module text: an upper bound); ``slow``: its DEBUFF Speed
        (Concusive Shells: Speed - ``slow``, minimum 0, 8.7.7). Memoised: the placements and the loadouts are the
        same in every game."""
        key = (u, pu, a, pt, k, use, slow)
        hit = self._reaches.get(key)
        if hit is None:
            if len(self._reaches) > MEMO_LIMIT:
                self._reaches.clear()
            hit = self._reaches[key] = self._reach_p(u, pu, a, pt, k, use, slow)
        return hit

    def _reach_p(self, u: int, pu: int, a: int, pt: int, k: int, use: tuple[str, ...], slow: float) -> float:
        """:meth:`reaches`, computed."""
        sim = self.sim
        world = sim.world
        # the Leading Model (the placement's first model: the engine's, ``Charges._charge_near``), not the nearest
        mine = np.asarray(world.placements[pu].centres[: min(a, 1)], dtype=float).reshape(-1, 2)
        theirs = np.asarray(world.placements[pt].centres[:k], dtype=float).reshape(-1, 2)
        if not mine.size or not theirs.size:
            return 0.0
        radii = sim.scn.units[world.placements[pu].unit].base_mm + sim.scn.units[world.placements[pt].unit].base_mm
        gap = (
            float(np.hypot(*(mine[:, None, :] - theirs[None, :, :]).transpose(2, 0, 1)).min()) - radii / MM_PER_INCH / 2
        )
        effects = sim.loadout(u, use_bits(sim, u, use) if use else 0).effects()
        speed = sim.units[u].speed + sum(e.value for e in effects if e.kind == "speed")
        if slow:
            speed = max(speed - slow, 0)
        rolls = [e for e in effects if e.kind == "charge_roll"]
        dice = 1 + sum(int(e.dice or 0) for e in rolls)
        need = gap - ENGAGEMENT_RANGE - speed - sum(e.value for e in rolls)
        face = math.ceil(need - 1e-9)  # the least die that reaches
        if face <= 1:
            return 1.0
        if face > 6:
            return 0.0
        return 1.0 - ((face - 1) / 6.0) ** dice

    def _exact(
        self,
        u: int,
        a: int,
        t: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        use: tuple[str, ...] = (),
        guard: tuple[int, int, int] = (0, 0, 0),
    ) -> tuple[float, float, float, float]:
        return self._summary(t, k, self._states(u, a, t, k, mark, shielded, phase, use, guard))

    def _states(
        self,
        u: int,
        a: int,
        t: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        use: tuple[str, ...] = (),
        guard: tuple[int, int, int] = (0, 0, 0),
    ) -> list[tuple[tuple[int, int, int], float]]:
        """Unit ``t``'s states (models left, Damage Marker, SHIELDED; 0, 0 once none is left) after unit ``u``'s ``a``
        models attack it with their ``phase`` chain (the abilities ``use`` on) from ``k`` models left, Damage Marker
        ``mark``, each with its probability, in the exact engine's order (no attack: the state as it is). ``phase``
        "impact": the IMPACT of ``u``'s successful Charge, every one of its ``a`` models striking
        (:func:`impact_batches`). Memoised: :meth:`outcome` and :meth:`transition` ask the same attacks."""
        key = (u, a, t, k, mark, shielded, phase, use, guard)
        hit = self._states_of.get(key)
        if hit is None:
            if len(self._states_of) > MEMO_LIMIT:
                self._states_of.clear()
            hit = self._states_of[key] = self.resolver.states(key)
        return hit

    def _summary(
        self, t: int, k: int, states: Iterable[tuple[tuple[int, int, int], float]]
    ) -> tuple[float, float, float, float]:
        """:meth:`outcome`'s four numbers of unit ``t``, ``k`` models left before, from its ``states`` after (models
        left first in each key, with its probability); a unit with none left before loses nothing."""
        sim = self.sim
        supply = sim.supply(t, np.arange(sim.full[t] + 1))
        bare = float(supply[max(k, 0)] <= 0)
        if k <= 0:
            return 0.0, 0.0, 0.0, bare
        before = float(supply[k])
        damage = destroy = models = gone = 0.0
        for (left, _, _), pr in states:
            damage += pr * (before - float(supply[left]))
            models += pr * (k - left) / float(sim.full[t])
            if left == 0:
                destroy += pr
            if supply[left] <= 0:
                gone += pr
        return damage, destroy, models, gone

    def _reach(self, v: int) -> tuple[float, bool]:
        """Unit ``v``'s longest Ranged Weapon's range (0: none) and whether it has a Close Combat weapon."""
        lo = self.sim.loadout(v, 0)
        me = self.sim.units[v].unit
        ranged = [b.weapon.range or 0.0 for b in attack_batches(lo, me, "assault")]
        melee = attack_batches(lo, me, "combat")
        return (max(ranged) if ranged else 0.0), bool(melee) and not self.sim.units[v].flying

    def _fast(self, v: int) -> float:
        """Unit ``v``'s Speed plus the most BUFF Speed of a Movement Phase ability on its menu that its cards pay for
        when all are Ready (10.5, a new Round; Stimpack: 3, until the end of the Round): how far its Move or Run next
        Round may take it."""
        sim = self.sim
        su = sim.units[v]
        buff = 0.0
        for e in self.menus[sim.uids[v]]["movement"]:
            purse = Purse(sim.scn, su.player)  # every card Ready: a new Round (8.9.5)
            if e.use and not any(purse.pay(find(sim.scn, su.id, n)) for n in e.use):  # type: ignore[arg-type]
                buff = max(buff, float(sum(x.value for x in sim.effects(v, use_bits(sim, v, e.use), "speed"))))
        return su.speed + buff

    def _lead(self, v: int, pid: int) -> tuple[float, float]:
        hit = self._leads.get(pid)  # a placement's Leading Model: the same in every state
        if hit is None:
            c = self.sim.world.placements[pid].centres[0]
            hit = self._leads[pid] = (float(c[0]), float(c[1]))
        return hit


__all__ = ["CHARGE_REACH", "COL", "COLUMNS", "Features", "impact_batches", "marker_worth"]
