"""Simulate a whole scenario: N trials of the plan, round by round (rulebook part 8).

The state of every trial is a few integer arrays (units x trials): models left, Damage Marker,
SHIELDED, placement, Disengage penalty, abilities used; markers' control and state; Victory
Points; the First Player Marker. Each activation is applied to all trials at once, grouped by
the state the step reads: the placements and models left of the units concerned, then only the
placements of the other units near what is read (Close Ranks, the Fighting Ranks, a Ranged
Attack's facts), so each local board state is read once. Every trial carries the id of its whole
placement vector (``board``), and each board id its Engaged pairs (7.2.1, read once per pair of
placements).

Dice come from the engines' contract: an attack on a unit in state (models left, Damage Marker,
SHIELDED) is resolved by :func:`mathhammer.starcraft.exact.exact_states`, the exact joint distribution of
the unit's next state under the 8.7.4 procedure, and each trial draws its outcome from it with a
uniform number. Uniforms, Charge Rolls (1D6), Roll-Offs and Supply Drop markers come from a
counter-based generator keyed by (seed, trial, what is rolled), so a trial's game is the same for
any number of trials, any grouping and any order of evaluation. Sampling a Batch's outcome from
its exact distribution is equivalent in law to rolling its dice; the test suite holds the two
to each other.

Rules applied (the reading where the rules leave room is said in the code):

* 8.2.1 / 8.4.2 / 8.6.2: players alternate activations, the holder of the First Player Marker
  first (policy: the holder chooses to go first); a player whose planned activations are spent
  Passes; the first to Pass takes the First Player Marker for the next Phase.
* 8.3.1 / 8.3.2: Supply Pool = starting Supply + Escalation per Round, unlimited in the final
  Round; a Deploy needs the unit's Current Supply Value <= Available Supply (else it is skipped
  in that trial: the unit stays in Reserves).
* 8.5.2-8.5.5, 8.7.1: Move, Run, Disengage, Deploy set the unit at the planned point (the check
  command validates distances); an Engaged unit cannot Move or Run (it Holds). 8.5.4 Tactical
  Mass: a unit that Disengages cannot Ranged Attack or Charge in the following Assault Phase
  unless its Current Supply Value exceeds the Combined Supply of the enemies it was Engaged with.
* 8.7.3 / 8.7.4: Ranged Attacks weapon by weapon (Batch sequence), each Batch at the first
  planned target still on the table that it may shoot (board facts: range, visibility, Engaged
  restrictions; a HIDDEN or BURROWED target not detected is not Visible beyond 4", part 11);
  "if the target unit is destroyed, shoot the next one instead".
* Part 11 STATUS and BURROWED: the Burrowed Status stays through Cleanup; while BURROWED a unit
  makes no Ranged Attack, Charge or Gather, and a Move, Run or Disengage (Close Ranks in the
  Combat Phase) removes it. Part 11 ON CREEP is read per game from Creep Tumor tokens (7.3).
* 8.7.7: Charge: Speed (+ BUFF Speed of abilities used) + 1D6 (more D6, the highest used, and
  additions: the ``charge_roll`` abilities used and Reactions) against the board's charge
  distance; success sets the unit Engaged at the path's end; IMPACT (X) Y of the unit's abilities
  resolves immediately after a successful Charge (``impact_dice`` and ``impact_hit`` abilities: more
  dice per model, a Modifier to the Impact Hit Roll).
* 8.8.1: in the Combat Phase every Engaged unit fights (planned ``fight`` entries first, then the
  others, alternating), with the models in its Fighting and Supporting Ranks, the dice split
  between the enemy units it is Engaged with by ``[policy] fight_split`` (default
  ``first-target``: all at the first planned one; ``even``; ``weakest``; see :meth:`Simulation.fight`;
  8.8.1 "Declare how Attack Dice are split"); before counting, each makes its CLOSE RANKS move (8.8.1
  step 1) when ``[policy] close_ranks`` is ``always`` (default; the reading is in ``world.py``).
* 8.9.1: mission marker control by Current Supply of contesting units (Flying excluded), ties
  never transfer, sticky; 8.9.2 Victory Points per the Mission Card (``mission.py``); 8.9.3 end
  of game: Special Winning Condition (lead), a player with nothing on the table and nothing in
  Reserves (+10 VP to the survivor), the final Round; 8.9.5 Cleanup (abilities used and their
  effects expire, cards Ready again); 8.9.6 the First Player Marker to the player with fewer VP,
  a Roll-Off on a tie. Every Roll-Off (also 8.2.2 for Round 1) follows ``[policy] roll_off``:
  ``random``, or ``red`` / ``blue`` winning them all.
* Damage Markers persist between Rounds (8.9.5: "Remove all Tokens and Markers except ... Damage
  Markers").
* 8.5.5 UNITS RETURNED TO RESERVES: a unit an ability takes off the table is not Destroyed, its Supply is
  released and it may Deploy again; 9.1.9: a Summoned Unit is set only by its ability and is never in
  Reserves; effects "At the End of the Round" resolve before the Cleanup, the First Player's first (8.9.4,
  the cards' ``end_of_round`` hooks, ``cards/``).
"""

from __future__ import annotations

import dataclasses
import gc
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numba import njit

from ..board.engagement import ENGAGEMENT_RANGE
from ..config import JIT
from ..engine.rng import mix64
from ..starcraft.compiled import attack_key, compile_attack
from ..starcraft.exact import exact_states
from ..starcraft.loadout import Loadout, as_target, attack_batches
from ..starcraft.model import Attack, Batch
from ..starcraft.schema import Ability, Effect
from . import abilities, conditions
from . import mission as missions
from .basics import split_by as _split_by
from .basics import stream as _stream
from .cards import CardSet
from .fast import UNREAD, BoardTable, IdGrouper, PairTable, group_rows, group_state, regroup, supply_matrix
from .spec import PHASES, PLAYERS, Activation, Scenario, ScenarioUnit
from .world import EDGE_REAR, World

_GOLDEN = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


#: :meth:`Simulation._near_cols_by`: above this many boards among the trials, the split runs without a loop
#: over the boards.
_FEW_BOARDS = 8


def _group_of(order: np.ndarray, bounds: np.ndarray, n: int) -> np.ndarray:
    """Per element 0..n-1 of a :func:`group_rows` split (``order``, ``bounds``), the index of its group."""
    out = np.empty(n, dtype=np.int64)
    out[order] = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    return out


@njit(**JIT)
def _uniform(base, t):  # pragma: no cover - compiled
    """The uniform of game number ``t`` in the draw keyed ``base`` (:func:`_draw_base`)."""
    z = mix64(base + np.uint64(t) * np.uint64(0x9E3779B97F4A7C15))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**JIT)
def _uniforms_kernel(base, trials):  # pragma: no cover - compiled
    out = np.empty(trials.size)
    for i in range(trials.size):
        out[i] = _uniform(base, trials[i])
    return out


def uniforms(seed: int, stream: int, trials: np.ndarray) -> np.ndarray:
    """One uniform in [0, 1) per trial for the draw named ``stream``: a function of (seed, stream, trial) only.

    >>> a = uniforms(1, 7, np.arange(5))
    >>> bool(np.all(a[[3, 1]] == uniforms(1, 7, np.array([3, 1]))))
    True
    """
    return np.asarray(_uniforms_kernel(_draw_base(seed, stream), trials.astype(np.int64)))


@njit(**JIT)
def _keep_bits(used, keep, live):  # pragma: no cover - compiled
    """``used[u, t] &= keep[u]`` for every unit and each game of ``live``, in place."""
    for t in live:
        for u in range(used.shape[0]):
            used[u, t] &= keep[u]


@njit(**JIT)
def _planned_bits(alive, pos, planned, on_table, live):  # pragma: no cover - compiled
    """Per game of ``live`` (others 0): bit ``i`` set where unit ``planned[i]`` has models left (and, with
    ``on_table``, is on the table)."""
    out = np.zeros(alive.shape[1], dtype=np.int64)
    for t in live:
        b = 0
        for i in range(planned.size):
            u = planned[i]
            if alive[u, t] > 0 and (not on_table or pos[u, t] >= 0):
                b |= 1 << i
        out[t] = b
    return out


def _draw_base(seed: int, stream: int) -> np.uint64:
    """The key of the draw ``stream`` (:func:`uniforms`)."""
    z = (seed * _GOLDEN + 0x632BE59BD9B4E019) & _MASK
    z ^= (stream * 0xBF58476D1CE4E5B9) & _MASK
    return np.uint64(((z ^ (z >> 31)) * 0x94D049BB133111EB) & _MASK)


@njit(**JIT)
def _apply_kernel(
    order, bounds, arrs, cdfs, starts, costs, base, offset, alive, mark, shielded, flipped
):  # pragma: no cover - compiled
    """Per group ``g`` (games ``order[bounds[g]:bounds[g + 1]]``), each game's outcome drawn from transition ``g``
    (rows ``arrs[starts[g]:]``, cumulative ``cdfs``): the uniform of :func:`uniforms`, numpy's
    ``searchsorted(side="right")`` clipped to the last row. Returns the games whose unit is Destroyed."""
    dead = np.empty(order.size, dtype=np.int64)
    nd = 0
    for g in range(bounds.size - 1):
        lo, n = starts[g], starts[g + 1] - starts[g]
        for i in range(bounds[g], bounds[g + 1]):
            t = order[i]
            u = _uniform(base, t + offset)
            a, b = 0, n  # the first row whose cumulative probability exceeds u
            while a < b:
                mid = (a + b) // 2
                if cdfs[lo + mid] > u:
                    b = mid
                else:
                    a = mid + 1
            pick = lo + min(a, n - 1)
            alive[t] -= arrs[pick, 0]
            mark[t] = arrs[pick, 1]
            shielded[t] = arrs[pick, 2]
            if costs[g] and arrs[pick, 3] == 1:
                flipped[t] = True  # counted as Activated in this Phase
            if alive[t] <= 0:
                mark[t] = 0
                dead[nd] = t
                nd += 1
    return dead[:nd].copy()


class _Test:
    """A test of placements (:meth:`Simulation._near_cols`) read for many at once, ``test.many(pids)`` (compiled);
    ``test(p)``: one placement."""

    __slots__ = ("many",)

    def __init__(self, many: Callable[[np.ndarray], np.ndarray]) -> None:
        self.many = many

    def __call__(self, p: int, _side: str = "") -> bool:
        return bool(self.many(np.array([p], dtype=np.int64))[0])


class Simulation:
    """The state of ``trials`` games of one scenario and the rules that move it (see the module text)."""

    def __init__(self, scn: Scenario, trials: int, seed: int, offset: int = 0, world: World | None = None) -> None:
        """``trials`` games numbered ``offset`` .. ``offset + trials - 1`` (a game's dice depend on its number
        only); ``world``: a World of the same scenario whose geometry is already read (shared caches)."""
        self.scn = scn
        self.seed = int(seed)
        self.T = int(trials)
        self.offset = int(offset)
        self.world = world if world is not None else World(scn)
        self.uids = self.world.uids
        self.units: list[ScenarioUnit] = [scn.units[u] for u in self.uids]
        self.U = len(self.uids)
        self.M = len(scn.deployment.markers)
        self.marker_numbers = [m.number for m in scn.deployment.markers]
        T, U, M = self.T, self.U, self.M
        self.full = np.array([u.models for u in self.units], dtype=np.int64)
        # One matrix holds the per-unit state the trials are grouped by, so grouping reads rows in place.
        self.state = np.zeros((5 * U + 1, T), dtype=np.int64)
        self.pos = self.state[0:U]  # placement id, -1 in Reserves or Destroyed
        self.alive = self.state[U : 2 * U]  # models left
        self.mark = self.state[2 * U : 3 * U]  # Damage Marker
        self.shielded = self.state[3 * U : 4 * U]  # SHIELDED (0/1)
        self.used = self.state[4 * U : 5 * U]  # bit i: the unit's ability i used this round
        # the id of the whole placement vector (every unit's ``pos``): one column to group by the board
        self.board = self.state[5 * U]
        self._row_bits = np.ones(5 * U + 1, dtype=np.int64)  # per row of state: its field in a packed key (group_state)
        self._boards = BoardTable(U)  # board id -> every unit's placement (a row)
        self._boards.intern((-1,) * U)  # id 0: nothing on the table
        self._by_board = IdGrouper()  # trials split by their board id
        self._by_placement = IdGrouper()  # placement ids listed once
        self.pos[:] = -1
        self.alive[:] = self.full[:, None]
        self.shielded[:] = np.array([self.shield(u) > 0 for u in self.units], dtype=np.int64)[:, None]
        #: Summoned Units (9.1.9): off the table they are not in Reserves; Structures (Pylon, Omega Worm, Point
        #: Defense Drone): never Activated, no Mission Marker contest
        self.summoned = [su.summoned for su in self.units]
        self.child_of = {su.parent: su.id for su in self.units if su.summoned and su.parent}
        self.structure = [abilities.is_structure(su) for su in self.units]
        self.penalty = np.zeros((U, T), dtype=bool)
        self.ref_supply = np.zeros((U, T), dtype=np.int64)
        self.supply_now = np.zeros((U, T), dtype=np.int64)  # scratch: the Current Supply Values while scoring
        self.vp = np.zeros((2, T), dtype=np.int64)
        self.control = np.full((M, T), -1, dtype=np.int64)
        self.gained = np.zeros((M, T), dtype=bool)
        self.active = np.zeros((M, T), dtype=bool)
        self.activated_round = np.zeros((M, T), dtype=np.int64)
        self.removed_marker = np.zeros((M, T), dtype=bool)
        # per placement id and marker: its first model contesting the marker (mission.contest), UNREAD: not read yet
        self.contest_firsts = np.full((0, M), UNREAD, dtype=np.int64)
        self.first = np.zeros(T, dtype=np.int64)
        self.claimed = np.full(T, -1, dtype=np.int64)  # who claimed the First Player Marker in this Phase
        self.over = np.zeros(T, dtype=bool)
        self.end_round = np.zeros(T, dtype=np.int64)
        self.instant = np.zeros(T, dtype=bool)
        self.round = 0
        #: read the groups of a Charge, a Close Ranks and a fight in the order of their content (:meth:`_ordered`),
        #: descending where ``reverse``: set in forked workers sharing answers (parallel.py)
        self.sharing = False
        self.reverse = False
        self.snapshots: list[dict[str, np.ndarray]] = []
        #: per Round, the arrays :meth:`snapshot` writes into (views of the shared result, parallel.py), or None
        self.sink: list[dict[str, np.ndarray]] | None = None
        self.skipped: dict[str, int] = {}
        # unit -> (Total Damage reduction per game, its minimum, its use counts the unit as Activated), while a
        # Reaction of the activation gives one (abilities.reduction_for)
        self.reducing: dict[int, tuple[np.ndarray, int, bool]] = {}
        # per unit and game, in the current Phase: activated; counted as Activated by a Reaction (Zealous Round)
        self.acted = np.zeros((self.U, self.T), dtype=bool)
        self.flipped = np.zeros((self.U, self.T), dtype=bool)
        # ... counted as Activated by an enemy's Active ability (Crushing Grip: abilities.apply_selected)
        self.gripped = np.zeros((self.U, self.T), dtype=bool)
        # ... may activate again, its Activation Marker removed (Orders: abilities.apply_selected)
        self.again = np.zeros((self.U, self.T), dtype=bool)
        self._phase_of_acted: tuple[int, str] = (0, "")  # the Phase ``acted`` and ``again`` are about
        # effects given this Round to a unit another unit's ability selected: (unit, effect, games), until Cleanup
        self.granted: list[abilities.Grant] = []
        self.givers: dict[str, list[int]] = {}  # per effect kind: the units with an ability of it (abilities._givers)
        self._veterans: dict[int, list[Effect]] = {}  # per unit: its armour_near_marker effects (resolve)
        # an enemy Reaction's effect on a unit's weapons, as an ability of that unit (abilities.attacker_debuffs)
        self.inflicted: dict[str, Ability] = {}
        self.abilities = [[a.name for a in abilities.unit_abilities(u)] for u in self.units]
        #: Warp Conduit, Omega Network: per unit whose base is an Entry Edge, the Supply (or units) Deployed by it
        #: this Round, per game
        self.via_used: dict[int, np.ndarray] = {}
        # the abilities that change the Burrowed Status (Burrow, Lie in Wait, Nasty Surprise): no effect of their own
        self.burrowers = {
            a.name
            for su in self.units
            for a in abilities.unit_abilities(su) + [f.ability for f in abilities.card_abilities(scn, su.player)]
            if abilities.burrow_change(a)
        }
        self._loadouts: dict[tuple[int, int], Loadout] = {}
        #: the ability cards in play (cards/), with their per-game state, called at their trigger points
        self.cards = CardSet(self)
        self._transitions: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        # (Batches, target, its abilities, models, Damage Marker, SHIELDED, phase, ...) -> the transition
        self._asked: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._batches: dict[tuple[object, ...], list[Batch]] = {}
        self.ordinal = {act: i for i, act in enumerate(scn.plan)}  # the plan position names a draw
        # Engagement by pairs of enemy units (:meth:`engaged_bits`), read once per board id
        self._enemy_pairs = [
            (u, v) for u in range(U) for v in range(u + 1, U) if self.units[u].player != self.units[v].player
        ]
        words = max(1, -(-len(self._enemy_pairs) // 62))
        # Engaged or not per pair of placements, read by compiled code (set_pos_many): placement ids are a unit's
        # own, so the pair of placements names the pair of units
        self._pair_table = PairTable(self._pair_read)
        self._bits_arr = np.zeros((words, 64), dtype=np.int64)  # engaged_bits of each board id (column)
        self._unit_sel = [[i for i, p in enumerate(self._enemy_pairs) if u in p] for u in range(U)]
        self._unit_bits = []  # per unit: its pairs' bits, one int64 a word
        for u in range(U):
            mask = np.zeros(words, dtype=np.int64)
            for i in self._unit_sel[u]:
                mask[i // 62] |= np.int64(1) << np.int64(i % 62)
            self._unit_bits.append(mask)
        self._bits_pairs: dict[tuple[int, ...], frozenset[tuple[str, str]]] = {}
        # Current Supply Value by models left (the card's Models/Supply brackets), one row a unit
        self._supply_grid = np.zeros((U, int(self.full.max(initial=0)) + 1), dtype=np.int64)
        for u, su in enumerate(self.units):
            if not self.structure[u]:  # Structure: "its Current Supply Value is treated as 0"
                self._supply_grid[u, : su.models + 1] = [su.supply(k) for k in range(su.models + 1)]

    # ------------------------------------------------------------ dice
    def draw(self, stream: int, trials: np.ndarray) -> np.ndarray:
        """One uniform per trial for the draw ``stream``: a function of (seed, stream, game number) only."""
        return uniforms(self.seed, stream, trials + self.offset)

    def d6(self, stream: int, trials: np.ndarray) -> np.ndarray:
        """1D6 per trial (see :meth:`draw`)."""
        return (self.draw(stream, trials) * 6).astype(np.int64) + 1

    # ------------------------------------------------------------ unit facts
    @staticmethod
    def shield(u: ScenarioUnit) -> int:
        return u.unit.card.shield + sum(up.stats.get("shield", 0) for up in u.loadout.upgrades)

    def supply(self, u: int, alive: np.ndarray) -> np.ndarray:
        return self._supply_grid[u][np.clip(alive, 0, self.full[u])]

    def loadout(self, u: int, mask: int) -> Loadout:
        key = (u, int(mask))
        lo = self._loadouts.get(key)
        if lo is None:
            lo = abilities.loadout_for(self, u, int(mask))  # card abilities (10.5) included
            self._loadouts[key] = lo
        return lo

    def effects(self, u: int, mask: int, kind: str) -> list[Any]:
        return [e for e in self.loadout(u, mask).effects() if e.kind == kind]

    # ------------------------------------------------------------ grouping
    # rows of self.state, for grouping
    def row_pos(self, u: int) -> int:
        return u

    def row_alive(self, u: int) -> int:
        return self.U + u

    def row_mark(self, u: int) -> int:
        return 2 * self.U + u

    def row_shielded(self, u: int) -> int:
        return 3 * self.U + u

    def row_used(self, u: int) -> int:
        return 4 * self.U + u

    def row_board(self) -> int:
        return 5 * self.U

    @property
    def _board_arr(self) -> np.ndarray:
        """Each board id's placements (a row; rows past the last id are not boards)."""
        return self._boards.rows

    def board_pos(self, bid: int) -> tuple[int, ...]:
        """The placement vector of board ``bid``."""
        return tuple(self._boards.rows[bid].tolist())

    def _bits_room(self) -> None:
        if self._boards.n > self._bits_arr.shape[1]:
            grown = np.zeros((self._bits_arr.shape[0], 2 * self._boards.n), dtype=np.int64)
            grown[:, : self._bits_arr.shape[1]] = self._bits_arr
            self._bits_arr = grown

    def board_id(self, pos: tuple[int, ...]) -> int:
        """The id of a placement vector (interned: equal vectors, one id; its Engaged pairs read when new)."""
        bid, new = self._boards.intern(pos)
        if new:
            self._bits_room()
            self._bits_arr[:, bid] = self._board_words(pos)
        return bid

    def set_pos(self, u: int, ts: np.ndarray, pid: int) -> None:
        """Place unit ``u`` (or clear it: ``pid`` -1) in trials ``ts``, keeping the board ids."""
        self.set_pos_many(u, [(ts, pid)])

    def set_pos_many(self, u: int, parts: Sequence[tuple[np.ndarray, int]]) -> None:
        """Place unit ``u`` at ``pid`` (-1: clear it) in the trials ``ts`` of each (``ts``, ``pid``) of ``parts``
        (a trial in one part at most), keeping the board ids: a new board made by moving one unit keeps the
        Engaged pairs of the others and re-reads only that unit's."""
        parts = [(ts, pid) for ts, pid in parts if ts.size]
        if not parts:
            return
        ts = np.concatenate([ts for ts, _ in parts])
        pids = np.repeat(np.array([pid for _, pid in parts], dtype=np.int64), [part.size for part, _ in parts])
        new, old = self._boards.move(self.board, ts, u, pids)
        if new.size:
            self._bits_room()
            bits = self._bits_arr[:, old] & ~self._unit_bits[u][:, None]
            # the unit's pairs, per new board: its placement and the other unit's
            sel = self._unit_sel[u]
            first = [self._enemy_pairs[i][0] == u for i in sel]
            others = [b if f else a for (a, b), f in zip((self._enemy_pairs[i] for i in sel), first, strict=True)]
            bits |= self._pair_table.words(self._boards.rows[new], u, others, first, sel, bits.shape[0]).T
            self._bits_arr[:, new] = bits
        self.pos[u, ts] = pids

    def sync_board(self) -> None:
        """Recompute every trial's board id (and so its Engaged pairs) from ``pos`` (after writing ``pos`` other
        than by :meth:`set_pos`)."""
        everyone = np.arange(self.T)
        for key, ts in self.groups(everyone, list(range(self.U))):
            self.board[ts] = self.board_id(key)

    def groups(
        self, trials: np.ndarray, cols: Sequence[np.ndarray | int]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        """Split ``trials`` by ``cols``: rows of :attr:`state` (ints, read in place) or per-trial arrays.

        Groups come in order of their first trial; a trial's game never depends on the grouping.
        """
        if trials.size == 0:
            return
        order, bounds, keys = self._split(trials, cols)
        for g in range(len(keys)):
            yield tuple(keys[g].tolist()), order[bounds[g] : bounds[g + 1]]

    def _ordered(
        self, parts: Iterator[tuple[tuple[int, ...], np.ndarray]], pids: Sequence[int]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        """``parts`` (groups of games; the entries ``pids`` of a key are placement ids), in the order of their keys'
        content where :attr:`sharing` (ascending, or descending where :attr:`reverse`): two forked workers that
        read the states in opposite orders meet the answers the other published
        (:class:`~mathhammer.scenario.shared.SharedAnswers`) instead of computing them at the same time."""
        if not self.sharing:
            return parts
        c, named = self.world.content, frozenset(pids)

        def content(part: tuple[tuple[int, ...], np.ndarray]) -> tuple[int, ...]:
            return tuple(c(v) if i in named else v for i, v in enumerate(part[0]))

        return iter(sorted(parts, key=content, reverse=self.reverse))

    def _split(self, trials: np.ndarray, cols: Sequence[np.ndarray | int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`~mathhammer.scenario.fast.group_rows` of ``trials`` by ``cols`` (rows of :attr:`state`, read in
        place where every one is, or per-trial arrays)."""
        if all(isinstance(c, (int, np.integer)) for c in cols):
            return group_state(self.state, np.asarray(cols, dtype=np.int64), trials, self._row_bits)
        mat = np.stack([self.state[c] if isinstance(c, (int, np.integer)) else np.asarray(c) for c in cols])
        return group_rows(mat, trials)

    def on_table(self) -> np.ndarray:
        """Units on the table (a Destroyed unit's placement is cleared, see :meth:`resolve`)."""
        return self.pos >= 0

    def engaged_bits(self, trials: np.ndarray) -> np.ndarray:
        """Per trial of ``trials`` (columns): bit ``i % 62`` of row ``i // 62`` set where the i-th pair of enemy
        units (:attr:`_enemy_pairs`) is Engaged (7.2.1; :meth:`World.pair_engaged` of the two placements,
        units read whole, as every board the simulation reads holds the units other than those it names the
        models left of): read once per board (:meth:`board_id`)."""
        return self._bits_arr[:, self.board[trials]]

    def _board_words(self, pos: tuple[int, ...]) -> list[int]:
        """:meth:`engaged_bits` of a board, from each pair of placements (read once per pair)."""
        words = [0] * self._bits_arr.shape[0]
        for i in range(len(self._enemy_pairs)):
            u, v = self._enemy_pairs[i]
            pa, pb = pos[u], pos[v]
            if pa >= 0 and pb >= 0 and self._pair_read(pa, pb):
                words[i // 62] |= 1 << (i % 62)
        return words

    def _pair_read(self, pa: int, pb: int) -> bool:
        """Are two enemy units, placed at ``pa`` and ``pb`` (in the order of their pair), Engaged, whole
        (:meth:`World.pair_engaged`, which keeps its answers)?"""
        u = self.world.index[self.world.placements[pa].unit]
        v = self.world.index[self.world.placements[pb].unit]
        return self.world.pair_engaged(pa, int(self.full[u]), pb, int(self.full[v]))

    def _pairs_of(self, words: tuple[int, ...]) -> frozenset[tuple[str, str]]:
        hit = self._bits_pairs.get(words)
        if hit is None:
            out = set()
            for i, (u, v) in enumerate(self._enemy_pairs):
                if words[i // 62] >> (i % 62) & 1:
                    out |= {(self.uids[u], self.uids[v]), (self.uids[v], self.uids[u])}
            hit = self._bits_pairs[words] = frozenset(out)
        return hit

    def engaged_with(self, trials: np.ndarray) -> Iterator[tuple[np.ndarray, frozenset[tuple[str, str]]]]:
        """Trials grouped by the unit pairs Engaged with each other (both orders) in them."""
        if trials.size == 0:
            return
        bits = self.engaged_bits(trials)
        order, bounds, keys = group_rows(bits, np.arange(trials.size))
        for g in range(len(keys)):
            yield trials[order[bounds[g] : bounds[g + 1]]], self._pairs_of(tuple(keys[g].tolist()))

    def engaged_mask(self, trials: np.ndarray, u: int) -> np.ndarray:
        """Per trial of ``trials``: is unit ``u`` Engaged?"""
        return np.asarray(((self.engaged_bits(trials) & self._unit_bits[u][:, None]) != 0).any(axis=0))

    def _near_cols(
        self, trials: np.ndarray, units: Sequence[int], near: Callable[[int], bool]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        """Split ``trials`` by the placements of ``units`` for which ``near(placement)`` holds (-1 for the
        others and for units off the table): the keys (one entry per unit of ``units``) and the indices
        into ``trials`` of each part."""
        return self._near_cols_by(trials, units, near if isinstance(near, _Test) else lambda p, _side: near(p))

    def _local_state(
        self, known: dict[int, tuple[int, int]], units: Sequence[int], near_pos: tuple[int, ...], left: dict[int, int]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A board state (placements, models) with the units ``known`` (unit -> placement, models) and those of
        ``units`` placed in ``near_pos`` (-1: not), with the models ``left`` (whole where not given)."""
        pos, alive = [-1] * self.U, [0] * self.U
        for v, (p, k) in known.items():
            pos[v], alive[v] = p, k
        for v, p in zip(units, near_pos, strict=True):
            k = left.get(v, int(self.full[v]))
            if p >= 0 and k > 0:
                pos[v], alive[v] = p, k
        return tuple(pos), tuple(alive)

    # ------------------------------------------------------------ attacks
    def resolve(
        self,
        batches: Sequence[Batch],
        t: int,
        phase: str,
        trials: np.ndarray,
        stream: int,
        visible: int | None,
        evade: bool,
    ) -> None:
        """Resolve a chain of Batches at unit ``t`` for ``trials`` (all with the same models left)."""
        if not batches or trials.size == 0:
            return
        k = int(self.alive[t, trials[0]])
        cols: list[np.ndarray | int] = [self.row_mark(t), self.row_shielded(t), self.row_used(t)]
        reducing = self.reducing.get(t)
        if reducing is not None:  # a Reaction reduces the Total Damage (Life Support, Transfusion, Dae'Uhl)
            cols.append(reducing[0])
        veteran = self._veterans.get(t)
        if veteran is None:  # Veteran of Tarsonis (a passive upgrade): read once per unit
            veteran = self._veterans[t] = self.effects(t, 0, "armour_near_marker")
        if veteran:
            cols.append(sum(e.value * self._near_marker(t, trials, float(e.within or 0)) for e in veteran))
        chain = tuple(batches)
        order, bounds, keys = self._split(trials, cols)
        tables: list[tuple[np.ndarray, np.ndarray]] = []
        costs = np.zeros(len(keys), dtype=np.bool_)
        for g, group in enumerate(keys.tolist()):
            mark, shielded, tmask = group[:3]
            cut = group[3] if reducing is not None else 0
            better = group[-1] if veteran else 0
            floor = reducing[1] if reducing is not None and cut else 0
            # Zealous Round: its use counts the unit as Activated, so the games must say where it was used
            costly = reducing is not None and reducing[2] and cut > 0
            costs[g] = costly
            asked = (chain, t, tmask, k, mark, shielded, phase, visible, evade, cut, floor, costly, better)
            tr = self._asked.get(asked)
            if tr is None:
                tr = self._asked[asked] = self._transition(*asked)
            tables.append(tr)
        # every group's draw and transition in one pass (a game's draw is its own: the grouping changes nothing)
        arrs = np.concatenate([a for a, _ in tables])
        cdfs = np.concatenate([c for _, c in tables])
        starts = np.cumsum([0] + [len(c) for _, c in tables])
        dead = _apply_kernel(
            order,
            bounds,
            arrs,
            cdfs,
            starts,
            costs,
            _draw_base(self.seed, stream),
            self.offset,
            self.alive[t],
            self.mark[t],
            self.shielded[t],
            self.flipped[t],
        )
        if dead.size:
            self.set_pos(t, dead, -1)

    def _transition(
        self,
        chain: tuple[Batch, ...],
        t: int,
        tmask: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        visible: int | None,
        evade: bool,
        cut: int,
        floor: int,
        costly: bool,
        better: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The exact outcomes of ``chain`` at unit ``t`` (:func:`exact_states`): rows (models lost, Damage Marker,
        SHIELDED, the Reaction used) and their cumulative probabilities."""
        tlo = self.loadout(t, tmask)
        target = as_target(
            tlo, phase, alive=k, marker=mark, shielded=bool(shielded), visible=visible, evade_eligible=evade
        )
        if k < self.full[t]:
            target = dataclasses.replace(target, shield=0, shielded=False)  # the SHIELDED model is gone
        if cut:
            target = dataclasses.replace(target, damage_reduction=cut, reduction_floor=floor)
        if better:  # "its Armour characteristic is increased by 1": one step better, never below 2+
            target = dataclasses.replace(target, armour=max(2, target.armour - better))
        compiled, tc = compile_attack(Attack(chain, target))
        key = (*attack_key(compiled, tc), costly)
        tr = self._transitions.get(key)
        if tr is None:
            states = exact_states(compiled, tc, spent=costly)  # keys end with "used" where costly
            rows = [(st[0], st[1], int(st[2]), int(costly and st[3])) for st in states]
            arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
            cdf = np.cumsum(np.array(list(states.values())))
            cdf /= cdf[-1]
            tr = self._transitions[key] = (arr, cdf)
        return tr

    def _near_marker(self, t: int, trials: np.ndarray, inches: float) -> np.ndarray:
        """Per game (length ``T``, set in ``trials``): unit ``t`` on the table Within ``inches`` of a Mission Marker
        still on the battlefield (:meth:`World.near_marker`; a scored Supply Drop marker is removed)."""
        out = np.zeros(self.T, dtype=np.int64)
        for (pid, k), ts in self.groups(trials, [self.row_pos(t), self.row_alive(t)]):
            if pid < 0 or k <= 0:
                continue
            for m, number in enumerate(self.marker_numbers):
                if self.world.near_marker(pid, k, number, inches):
                    out[ts] |= ~self.removed_marker[m, ts]
        return out

    # ------------------------------------------------------------ actions
    def run(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Play every Round of the games, with Python's cyclic garbage collector paused: the geometry caches hold
        millions of objects that every full collection would walk again (standard_clash.toml, 1,000,000 games in one
        process: 4,718 collections took 1.91 s of 30.0 s; paused, 5 took 0.17 s). The young generations are collected
        after each Round instead, and the collector is left as it was found."""
        was = gc.isenabled()
        gc.disable()
        try:
            self._run(progress)
        finally:
            if was:
                gc.enable()

    def _run(self, progress: Callable[[int, int], None] | None) -> None:
        scn = self.scn
        length = scn.mission.game_length
        everyone = np.arange(self.T)
        if scn.first_player == "roll-off":  # 8.2.2: the Roll-Off winner takes the First Player Marker
            self.first[:] = self.roll_off(_stream(0, 0), everyone)
        else:
            self.first[:] = PLAYERS.index(scn.first_player)
        missions.setup(self)
        for rnd in range(1, length + 1):
            self.round = rnd
            live = everyone[~self.over]
            self.current_supply(out=self.ref_supply)
            missions.start_of_round(self, live)
            for phase in PHASES:
                live = everyone[~self.over]
                if live.size == 0:
                    break
                self.play_phase(rnd, phase, live)
            live = everyone[~self.over]
            missions.score(self, live)
            self.end_checks(live, rnd == length)
            self.cleanup(live)
            self.snapshot()
            gc.collect(1)  # the cycles made this Round (young); the long-lived caches are not walked
            if progress is not None:
                progress(rnd, length)

    def play_phase(self, rnd: int, phase: str, live: np.ndarray) -> None:
        """One Phase of Round ``rnd`` in the games ``live`` (8.4, 8.6, 8.8)."""
        self.acted[:] = False
        self.flipped[:] = False
        self.gripped[:] = False
        self.again[:] = False
        self.claimed[:] = -1
        if phase == "combat":
            self.combat_phase(live)
            return
        # 8.2.1 "A player must Pass if they have no eligible Units left": planned activations of
        # units Destroyed (or, in the Assault Phase, not on the table) at the start of the Phase
        # are dropped, games grouped by which planned units are left and by the First Player
        planned = sorted(
            {self.uids.index(a.unit) for p in PLAYERS for a in self.scn.activations(rnd, phase, p) if a.unit}
        )
        bits = _planned_bits(self.alive, self.pos, np.asarray(planned, dtype=np.int64), phase != "movement", live)
        for (fp, mask), ts in self.groups(live, [self.first, bits]):
            left = {u for i, u in enumerate(planned) if mask >> i & 1}
            order, passer = self.order(rnd, phase, fp, left)
            for act in order:
                self.activate(act, ts)
            if passer is not None:
                # the first to Pass takes the First Player Marker, unless a player claimed it for the rest of the
                # Phase (Terran Tenacity: "No other player may claim the First Player Marker")
                claimed = self.claimed[ts]
                self.first[ts] = np.where(claimed >= 0, claimed, passer)

    def order(self, rnd: int, phase: str, fp: int, left: set[int] | None = None) -> tuple[list[Activation], int | None]:
        """Alternating activations from the First Player; the first player to run out Passes (8.2.1).

        ``left``: the units that may still activate (None: all); the others' entries are dropped, so
        a player with no eligible unit left Passes at once. An activation that uses Bound by the Khala
        (``activate_next``) is followed at once by the selected unit's later activation of the same player,
        before the opponent's next one (where that unit is in ``left``; the order is read once per Phase, so
        a unit destroyed later in the Phase still passes its turn on).
        """
        lists = [list(self.scn.activations(rnd, phase, p)) for p in PLAYERS]
        for i, lst in enumerate(lists):
            cut = next((j for j, a in enumerate(lst) if a.action == "pass"), None)
            if cut is not None:
                lst = lst[:cut]
            if left is not None:
                lst = [a for a in lst if self.uids.index(a.unit) in left]
            lists[i] = lst
        out: list[Activation] = []
        turn, passer = fp, None
        idx = [0, 0]
        done = [False, False]
        while not all(done):
            if done[turn]:
                turn = 1 - turn
                continue
            if idx[turn] >= len(lists[turn]):
                done[turn] = True
                if passer is None:
                    passer = turn
            else:
                act = lists[turn][idx[turn]]
                out.append(act)
                idx[turn] += 1
                nxt = abilities.activates_next(self.scn, act) if act.select else None
                nxt = nxt or self.child_of.get(act.unit)  # SUMMON: "Activated immediately after its Parent Unit"
                if nxt is not None:  # Bound by the Khala: the selected unit's activation comes at once
                    lst = lists[turn]
                    j = next((k for k in range(idx[turn], len(lst)) if lst[k].unit == nxt), None)
                    if j is not None:
                        lst.insert(idx[turn], lst.pop(j))
                        continue
            turn = 1 - turn
        return out, passer

    def skip(self, act: Activation, n: int, why: str) -> None:
        if n:
            key = f"{act.where}: {why}"
            self.skipped[key] = self.skipped.get(key, 0) + n

    def activate(self, act: Activation, trials: np.ndarray) -> None:
        trials = trials[~self.over[trials]]
        u = self.uids.index(act.unit)
        # counted as Activated in this Phase by its own Reaction (Zealous Round) or an enemy's ability (Crushing Grip)
        for counted, why in ((self.flipped, "Zealous Round, 10.4"), (self.gripped, "an enemy's Crushing Grip")):
            gone = counted[u, trials]
            if gone.any():
                self.skip(act, int(gone.sum()), f"the unit counts as Activated in this Phase ({why})")
                trials = trials[~gone]
        if self._phase_of_acted != (self.round, act.phase):  # a new Phase (also when activations are driven one
            self._phase_of_acted = (self.round, act.phase)  # by one, not by play_phase): nobody has activated
            self.acted[:] = False
            self.again[:] = False
        # a second activation in the Phase: only where Orders removed the Activation Marker (once per removal)
        twice = self.acted[u, trials]
        if twice.any():
            ok = twice & self.again[u, trials]
            self.again[u, trials[ok]] = False
            self.skip(act, int((twice & ~ok).sum()), "the unit has already activated in this Phase (8.4.1)")
            trials = trials[~twice | ok]
        self.acted[u, trials] = True
        if act.when or act.unless:  # issue 6 point 1: where a condition fails the unit holds (conditions.py)
            trials = conditions.admit(self, act, trials)
        if trials.size == 0:
            return
        stream = _stream(self.round, PHASES.index(act.phase), self.ordinal[act])
        if self.structure[u]:
            self.skip(act, trials.size, "a Structure cannot be Activated in any Phase")
            return
        if act.action == "deploy" and self.summoned[u]:
            self.skip(act, trials.size, "a Summoned Unit is not Deployed by the regular rules (9.1.9)")
            return
        if act.action == "deploy":
            # an ability a unit may use as it enters (FAQ v1.0: e.g. Raiders Roll!) acts once it is set
            got = self.deploy(u, act, trials)
            self._use(u, act, got)
            for hook in self.cards.after_action:  # the Deploy has ended (Creep Removal)
                hook(u, act, got)
            return
        here = trials[self.pos[u, trials] >= 0]
        self.skip(act, trials.size - here.size, "the unit is destroyed or still in Reserves")
        if here.size == 0:
            return
        for hook in self.cards.begin_activation:  # "When this Unit becomes Activated" (Regeneration)
            hook(u, act, here)
        self._use(u, act, here)
        if act.use:  # an ability used may have returned the active unit itself to Reserves (Mass Recall)
            here = here[self.pos[u, here] >= 0]
        if act.use and abilities.recalls_self(self.scn, act):
            self._recall(u, act, here)  # Strap In!, Strategic Recall: "instead of performing an action"
            return
        if act.extra_to is not None and self.effects(u, abilities.use_bits(self, u, act.use), "extra_move"):
            self._extra_move(u, act, here)
        if act.place_to is not None and self.effects(u, abilities.use_bits(self, u, act.use), "place"):
            self._place_ability(u, act, here)
        if act.action in ("shoot", "charge", "gather"):
            # part 11 BURROWED: "the Unit may only perform Deploy, Move, Disengage, Run, Hold and Close Ranks actions"
            down = abilities.burrowed(self, u, here)
            if down.any():
                self.skip(act, int(down.sum()), "the unit is BURROWED: it may only Move, Run, Disengage or Hold")
                here = here[~down]
        reacted = abilities.react_begin(self, act, here)  # 10.4: Reactions to this activation
        if act.action in ("move", "run", "disengage"):
            self.move(u, act, here)
        elif act.action == "shoot":
            self.shoot(u, act, here, stream)
        elif act.action == "charge":
            self.charge(u, act, here, stream)
        elif act.action == "gather":
            missions.gather(self, u, here)
        elif act.action == "fight":
            self.fight(u, act.targets, here, stream)
        if act.action in ("move", "run", "disengage", "charge"):
            for hook in self.cards.after_action:  # the action has ended (Creep Removal)
                hook(u, act, here)
        elif act.action == "shoot" and act.react:
            abilities.lunges(self, act, here)  # "after the attack is fully resolved" (Lunge)
        abilities.react_end(self, here, reacted)

    def _use(self, u: int, act: Activation, here: np.ndarray) -> None:
        """The activation's Active abilities (``use``): on until Cleanup; NON-LETHAL DAMAGE on the unit itself."""
        if not act.use or here.size == 0:
            return
        bits = abilities.use_bits(self, u, act.use)
        fresh = here[(self.used[u, here] & bits) == 0]
        self.used[u, here] |= bits
        for e in self.effects(u, bits, "non_lethal_self"):
            self.mark[u, fresh] += e.value  # NON-LETHAL DAMAGE on the unit itself (part 11)
        for e in self.effects(u, bits, "heal"):  # HEAL (X) on the unit itself (part 11; Field Repair)
            self.mark[u, fresh] = np.maximum(0, self.mark[u, fresh] - e.value)
        if self.effects(u, bits, "first_player"):  # Terran Tenacity: "Immediately claim the First Player Marker"
            self.first[fresh] = self.claimed[fresh] = PLAYERS.index(self.units[u].player)
        if act.select:
            abilities.apply_selected(self, u, act, here)  # effects for the unit an ability selects
        if self.burrowers:
            abilities.change_burrow(self, u, act, fresh)  # Burrow, Lie in Wait, Nasty Surprise
        for hook in self.cards.use:  # the cards' effects of the abilities used, in their order
            hook(u, act, fresh)
        if abilities.used_effects(self.scn, act, "respawn"):
            self._respawn(u, act, fresh)  # RESPAWN (X): Zergling Reconstitution (ON CREEP where a tumor was just set)

    def available(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray:
        """The games of ``reserve`` where unit ``u``'s Current Supply Value fits the Available Supply (8.3.2: the
        Supply Pool less the Supply of the Friendly Units on the table; unlimited in the final Round); the others are
        counted in the skip report."""
        pool = self.scn.mission.supply_pool(self.round)
        if pool is None:
            return reserve
        su = self.units[u]
        player = PLAYERS.index(su.player)
        # Advanced Medic Facilities: a unit whose Supply "counts as 0 when calculating the Supply Pool"
        own = [
            v
            for v in range(self.U)
            if PLAYERS.index(self.units[v].player) == player and v != u and abilities.counts_for_pool(self.units[v])
        ]
        used = sum((self.supply(v, self.alive[v, reserve]) * (self.pos[v, reserve] >= 0)) for v in own)
        need = self.supply(u, self.alive[u, reserve]) * int(abilities.counts_for_pool(su))
        ok = need <= pool - np.asarray(used)
        self.skip(act, int((~ok).sum()), "not enough Available Supply (8.3.2)")
        return reserve[ok]

    def deploy(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        """8.5.5 Deploy; returns the trials where the unit was set on the table."""
        su = self.units[u]
        reserve = self.available(u, act, trials[(self.pos[u, trials] < 0) & (self.alive[u, trials] > 0)])
        assert act.to is not None
        away = abilities.used_effect(
            self.scn, act, "deploy_edge"
        )  # Warp In: from another table edge, far from the enemy
        if away is not None and act.edge:
            for check in self.cards.before_deploy:  # an edge closed this Round (Comsat Station)
                reserve = check(u, act, reserve)
        placer = abilities.used_effect(self.scn, act, "deploy_place")
        if act.via is not None:  # Warp Conduit, Omega Network: another unit's base as the Entry Edge
            got = abilities.deploy_via(self, u, act, reserve)
        elif placer is not None:  # Burrow Ambush, Rapid Reinforcements, Phase Prism: PLACE as it Deploys
            got = abilities.deploy_placed(self, u, act, reserve, placer)
        else:
            rear = EDGE_REAR[act.edge] if away is not None and act.edge else self.world.rear_of(su.player)
            got = reserve[self.place(u, reserve, act.to, rear, act)]
            if away is not None and act.edge and got.size:
                got = abilities.far_from_enemies(self, u, act, got, float(away.within or 0))
                abilities.entered_elsewhere(self, u, act, got)  # Photon Overcharge
        # Supply destroyed this Round is counted from the units on the table (a unit left in Reserves has none; one
        # returned to Reserves this Round took its Supply off its reference, :meth:`_recall`)
        self.ref_supply[u, got] += self.supply(u, self.alive[u, got])
        return got

    def place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        allowed: tuple[str, ...] = (),
        targets_left: tuple[tuple[str, int], ...] = (),
        quiet: bool = False,
    ) -> np.ndarray:
        """Set unit ``u`` with its Leading Model at ``lead`` (:meth:`World.place`) in ``trials``; which were set
        (``quiet``: no skip report for the others, which the caller tries elsewhere).

        The answer depends on the other units only through the Charge targets' placements and those near
        ``lead`` (:meth:`World.place_test`): the trials are split by those, not by the whole board."""
        su = self.units[u]
        if allowed and not su.flying:
            return self._charge_place(u, trials, lead, rear, act, allowed, targets_left)
        placed = np.zeros(self.T, dtype=bool)
        tgt = [v for v in range(self.U) if v != u and self.uids[v] in allowed]
        rest = [v for v in range(self.U) if v != u and v not in tgt]
        for tkey, ts0 in self.groups(trials, [self.row_pos(t) for t in tgt]) if tgt else [((), trials)]:
            tpos = dict(zip(tgt, tkey, strict=True))
            test = self.world.place_test(su, lead, [p for p in tkey if p >= 0], targets_left)
            # the games of each answer together (many boards near the Leading Model, few answers), set at the end
            # in one pass
            answers: dict[int | None, list[np.ndarray]] = {}
            for near_pos, idx in self._near_cols(ts0, rest, test):
                if tgt:
                    at = tpos | dict(zip(rest, near_pos, strict=True))
                    occupied = tuple(at[v] for v in range(self.U) if v != u and at[v] >= 0)
                else:  # ``rest`` is every other unit, in order
                    occupied = tuple(p for p in near_pos if p >= 0)
                pid = self.world.place(su, lead, rear, occupied, allowed, targets_left=targets_left)
                answers.setdefault(pid, []).append(idx)
            moves: list[tuple[np.ndarray, int]] = []
            for pid, parts in answers.items():
                ts = ts0[parts[0] if len(parts) == 1 else np.concatenate(parts)]
                if pid is None:
                    if not quiet:
                        self.skip(act, ts.size, "no room to set the unit there")
                    continue
                moves.append((ts, pid))
                placed[ts] = True
            self.set_pos_many(u, moves)
        return placed[trials]

    def _charge_place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        allowed: tuple[str, ...],
        targets_left: tuple[tuple[str, int], ...],
    ) -> np.ndarray:
        """:meth:`place` for a charging unit in ``trials``: which were set.

        One trial's board is set (:meth:`World.charge_place`), and the box that setting looked at names the
        units that mattered to it: every other trial with the same placements of those units (the others' bases
        are too far from the box to change a test) gets the same answer. Repeated on the trials left."""
        su = self.units[u]
        placed = np.zeros(trials.size, dtype=bool)
        rest = [v for v in range(self.U) if v != u]
        todo = np.arange(trials.size)
        alike = self._alike(trials, rest)
        moves: list[tuple[np.ndarray, int]] = []  # set at the end, in one pass (the loop reads other trials)
        while todo.size:
            first = int(trials[todo[0]])
            occupied = tuple(p for v, p in enumerate(self.pos[:, first].tolist()) if v != u and p >= 0)
            box = [math.inf, math.inf, -math.inf, -math.inf]
            pid = self.world.charge_place(su, lead, rear, occupied, allowed, targets_left, box=box)
            same = alike(todo, self.world.bases_test(su, box))
            done, todo = todo[same], todo[~same]
            if pid is None:
                self.skip(act, done.size, "no room to set the unit there")
                continue
            moves.append((trials[done], pid))
            placed[done] = True
        self.set_pos_many(u, moves)
        return placed

    def _alike(
        self, trials: np.ndarray, units: Sequence[int]
    ) -> Callable[[np.ndarray, Callable[[int], bool]], np.ndarray]:
        """``same(idx, matters)``: per trial of ``trials[idx]``, are the placements of ``units`` for which
        ``matters`` holds (the others read as off the table) those of the first one? (Each unit's placements in
        ``trials`` are listed once, here.)"""
        # per trial its board (IdGrouper: no hashing, linear in the trials), per board and unit the placement
        if trials.size == 1 or bool((self.board[trials] == self.board[trials[0]]).all()):
            return lambda idx, _matters: np.ones(idx.size, dtype=bool)  # one board (common): every trial alike
        order, bounds, bids = self._by_board.split(self.board, trials, self._boards.n)
        board_of = _group_of(order, bounds, trials.size)
        placed = self._board_arr[bids][:, np.asarray(units, dtype=np.int64)]
        # per unit whose placement differs between the boards (a unit placed alike everywhere never tells games
        # apart): its placements and each board's
        differ = np.flatnonzero((placed != placed[0]).any(axis=0)).tolist()
        rows = [np.unique(placed[:, i], return_inverse=True) for i in differ]

        def same(idx: np.ndarray, matters: Callable[[int], bool]) -> np.ndarray:
            out = np.ones(idx.size, dtype=bool)
            boards = board_of[idx]
            for vals, inv in rows:
                mapped = np.where([p >= 0 and matters(p) for p in vals.tolist()], vals, -1)[inv][boards]
                out &= mapped == mapped[0]
            return out

        return same

    def move(self, u: int, act: Activation, trials: np.ndarray) -> None:
        engaged = self.engaged_mask(trials, u)
        if act.action == "disengage":
            mine = trials[engaged]
            if mine.size:
                self._tactical_mass(u, mine)
            movers = trials
        else:
            self.skip(act, int(engaged.sum()), "the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1)")
            movers = trials[~engaged]
        assert act.to is not None
        # Tunneling Claws: "it may perform the Move and Run actions without losing that Status" (not a Disengage)
        keeps = act.action != "disengage" and bool(self.effects(u, 0, "burrowed_moves"))
        placed = self.move_to(u, movers, act.to, act, moving=not keeps)
        if act.via is not None:  # Omega Network: ends in Base-to-Base contact with the Omega Worm, back to Reserves
            abilities.contact_recall(self, u, act, placed)

    def move_to(
        self, u: int, movers: np.ndarray, to: tuple[float, float], act: Activation, moving: bool = True
    ) -> np.ndarray:
        """Set unit ``u``'s Leading Model at ``to`` in the games ``movers``, the others behind it (8.5.3); which
        were set. ``moving``: a Move, Run or Disengage (not a PLACE), which ends the Burrowed Status."""
        if moving:
            abilities.set_burrowed(self, u, movers, False)  # part 11 BURROWED: a Move, Run or Disengage removes it
        placed = np.zeros(self.T, dtype=bool)
        for pid, ts in self.groups(movers, [self.row_pos(u)]):
            got = self.place(u, ts, to, self.world.rear_from(pid[0], to), act)
            placed[ts[got]] = True
        return movers[placed[movers]]

    def _place_ability(self, u: int, act: Activation, here: np.ndarray) -> None:
        """PLACE (X) (part 11: "Remove it and set it Wholly Within X\" of its starting position ... not moved along a
        path"; Blink, Phase, Ready for Pickup?) to the plan's ``place_to``, before the action; then a Reaction
        that answers it (Veil of Shadows: HEAL (2) on the unit) in the games where it was set."""
        assert act.place_to is not None
        if any(a.text.lower().startswith("if unengaged") for a, _ in abilities.used_effects(self.scn, act, "place")):
            engaged = self.engaged_mask(here, u)  # Leaping Strike: "If Unengaged, resolve the PLACE (6) effect"
            self.skip(act, int(engaged.sum()), "the unit is Engaged: no PLACE (its text: If Unengaged)")
            here = here[~engaged]
        placed = self.move_to(u, here, act.place_to, act, moving=False)
        for rx in act.react:
            found = abilities.find(self.scn, rx.unit, rx.use)
            for e in found.ability.effects if found and rx.unit == act.unit else []:
                if e.kind == "heal_after_place":  # "That Unit immediately resolves the HEAL (2) effect"
                    self.mark[u, placed] = np.maximum(0, self.mark[u, placed] - e.value)

    def _respawn(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """RESPAWN (X) (part 11) in the games ``fresh``: X the largest ``respawn`` effect in force (Zergling
        Reconstitution: "RESPAWN (2) effect, or RESPAWN (3) if the Unit is ON CREEP", read per game); up to X of the
        Destroyed models return, as many as fit without raising the Current Supply Value ("Do not return a model if
        doing so would push the Unit into a higher Supply bracket"), each set in Base-to-Base contact with a model of
        the unit where the board allows (:meth:`World.respawn`). A unit with no model left returns none."""
        for hook in self.cards.before_attack:  # ON CREEP
            hook([u], fresh)
        cols = [self.row_board(), self.row_alive(u), self.row_used(u)]
        short = 0
        for (bid, a, mask), ts in self.groups(fresh, cols):
            pos = self.board_pos(bid)
            if pos[u] < 0 or a <= 0:
                continue
            x = max((e.value for e in self.effects(u, mask, "respawn")), default=0)
            k = min(x, int(self.full[u]) - a)
            now = self._supply_grid[u][a]
            while k > 0 and self._supply_grid[u][a + k] > now:
                k -= 1
            if k == 0:
                continue
            others = tuple(p for v, p in enumerate(pos) if v != u and p >= 0)
            pid, got = self.world.respawn(pos[u], a, k, others)
            short += (k - got) * ts.size
            if got:
                self.set_pos(u, ts, pid)
                self.alive[u, ts] = a + got
        self.skip(act, short, "RESPAWN: a model found no free spot in Base-to-Base contact, not returned")

    def _recall(self, u: int, act: Activation, here: np.ndarray) -> None:
        """Return unit ``u`` to Reserves in the games ``here`` where it is Unengaged (Strap In!, Strategic Recall: "The
        active, Unengaged Ground Unit is returned to Reserves instead of performing an action").

        8.5.5 UNITS RETURNED TO RESERVES: "The Unit is not Destroyed; it has left the battlefield ... the Current
        Supply used by the Unit is released" (Available Supply is read from the units on the table), its Damage
        Marker and its "until the End of the Round" effects stay, and "If the Unit was Activated during the current
        Phase ... it will remain Activated". The Supply it takes off the table is not Supply destroyed this Round
        (its reference drops by as much; a later Deploy adds it back). It loses the Burrowed Status: a Deploy moves
        the unit by the Move rules (8.5.3), which end it (part 11 BURROWED)."""
        if self.units[u].flying:
            self.skip(act, here.size, "the unit is Flying: the ability returns a Ground Unit to Reserves")
            return
        engaged = self.engaged_mask(here, u)
        self.skip(act, int(engaged.sum()), "the unit is Engaged: not returned to Reserves (its text: Unengaged)")
        self.to_reserves(u, here[~engaged])

    def to_reserves(self, u: int, back: np.ndarray) -> None:
        """Unit ``u`` leaves the battlefield for Reserves in the games ``back`` (8.5.5 UNITS RETURNED TO RESERVES, as
        :meth:`_recall` reads it)."""
        if back.size == 0:
            return
        self.ref_supply[u, back] -= self.supply(u, self.alive[u, back])
        abilities.set_burrowed(self, u, back, False)
        self.set_pos(u, back, -1)

    def _extra_move(self, u: int, act: Activation, here: np.ndarray) -> None:
        """An ability's extra Move (``extra_move``: Go! Go! Go!, Leg Enhancements, "performs a 2\" Move action"),
        to the plan's ``extra_to``, before the action; an Engaged unit cannot Move (8.5.2) and stays."""
        assert act.extra_to is not None
        engaged = self.engaged_mask(here, u)
        self.skip(act, int(engaged.sum()), "the unit is Engaged: no extra Move (8.5.2, 8.7.1)")
        self.move_to(u, here[~engaged], act.extra_to, act)

    def _tactical_mass(self, u: int, trials: np.ndarray) -> None:
        """8.5.4: no Ranged Attack or Charge in the next Assault Phase unless Tactical Mass.

        Tactical Mass: Current Supply above the Combined Supply of the enemies it was Engaged with; a Commander
        counts 1 more on either side ("resolving Disengage checks", ``disengage_supply``).
        """
        uid = self.uids[u]
        for ts, pairs in self.engaged_with(trials):
            foes = [self.uids.index(b) for a, b in pairs if a == uid]
            # part 11 BURROWED: "Its Current Supply Value is treated as 0 for Disengage checks"
            combined = sum(
                np.where(abilities.burrowed(self, v, ts), 0, self.supply(v, self.alive[v, ts]))
                + abilities.disengage_supply(self, v)
                for v in foes
            )
            mine = np.where(abilities.burrowed(self, u, ts), 0, self.supply(u, self.alive[u, ts]))
            mine = mine + abilities.disengage_supply(self, u)
            self.penalty[u, ts] = ~(mine > combined)

    def _barred(self, u: int, trials: np.ndarray) -> np.ndarray:
        """Per trial of ``trials``: the Disengage penalty (8.5.4) bars unit ``u``'s Ranged Attack or Charge, unless an
        ability used on it this Round says it "ignores the Disengage penalty" (Tactical Retreat)."""
        barred = self.penalty[u, trials].copy()
        if barred.any():
            hit = trials[barred]
            for mask, ts in _split_by(hit, self.used[u, hit]):
                if self.effects(u, mask, "ignore_disengage_penalty"):
                    barred[np.isin(trials, ts)] = False
        return barred

    def shoot(self, u: int, act: Activation, trials: np.ndarray, stream: int) -> None:
        barred = self._barred(u, trials)
        self.skip(act, int(barred.sum()), "Disengaged without Tactical Mass (8.5.4)")
        trials = trials[~barred]
        targets = [self.uids.index(t) for t in act.targets]
        for hook in self.cards.before_attack:  # ON CREEP for the weapons and the targets (Lurking)
            hook([u, *targets], trials)
        base = self.loadout(u, 0)
        names = list(act.weapons)
        if not names:  # every Assault Phase weapon the unit fires (8.7.3 step 2), in the card's Batch order
            for t in targets:
                names += [b.name for b in attack_batches(base, self.units[t].unit, "assault") if b.name not in names]
        side = self.units[u].player
        # weapon effects at a target an ability of this side selected this Round (Target Lock), per game
        locks: dict[int, np.ndarray] = {}
        for t in targets:
            for bit, games in abilities.locked_by(self, u, t):
                locks.setdefault(t, np.zeros(self.T, dtype=np.int64))[games] |= bit
        # dice taken out of each Batch's Attack Pool at a target (Guardian Shield), per game
        cuts = {t: c for t in targets if (c := abilities.pool_cuts(self, t, trials)) is not None}
        # Point Defense Laser: dice taken out of the first Batch without INSTANT at a target, per game, and its drone
        lasers = abilities.point_defense(self, targets, trials)
        # Hierarch's Stand: an attack at the Friendly Unit it protects goes to the reacting unit, per game
        guards = abilities.redirects(self, act, trials)
        # HIDDEN targets (part 11: not Visible beyond 4"; BURROWED has HIDDEN), per game, unless detected
        hiders = [t for t in dict.fromkeys([*targets, *(g for g, _ in guards.values())]) if abilities.hiding(self, t)]
        for hook in self.cards.before_targeting:  # DETECTED
            hook(hiders, trials)
        for wi, wname in enumerate(names):
            ts_all = trials[(self.alive[u, trials] > 0) & ~self.over[trials]]
            cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
            for t in targets:
                cols += [self.row_pos(t), self.row_alive(t)]
            for g, _ in guards.values():
                cols += [self.row_pos(g), self.row_alive(g), self.row_used(g)]
            cols += [*locks.values(), *cuts.values(), *(self.row_used(t) for t in hiders)]
            cols += [lasers[t][0] for t in lasers]
            for key, ts in self.groups(ts_all, cols):
                pu, a, mask = key[0], key[1], key[2]
                at = 3 + 2 * len(targets)
                guard_state = {t: key[at + 3 * i : at + 3 * i + 3] for i, t in enumerate(guards)}
                extra = key[at + 3 * len(guards) :]
                lock = dict(zip(locks, extra[: len(locks)], strict=True))
                cut = dict(zip(cuts, extra[len(locks) : len(locks) + len(cuts)], strict=True))
                at_hide = len(locks) + len(cuts)
                hide = {
                    t: abilities.hidden_tag(self, t, m)
                    for t, m in zip(hiders, extra[at_hide : at_hide + len(hiders)], strict=True)
                }
                laser = dict(zip(lasers, extra[at_hide + len(hiders) :], strict=True))
                left = ts  # the trials whose Batch has no target yet (the first planned target it may shoot)
                for ti, t in enumerate(targets):
                    pt, k = key[3 + 2 * ti], key[4 + 2 * ti]
                    if k <= 0 or pt < 0 or left.size == 0:
                        continue
                    if t in guards:  # redirected: where the guard is a valid target, the attack goes to it
                        g, games = guards[t]
                        pg, kg, _ = guard_state[t]
                        moved = left[games[left]] if pg >= 0 and kg > 0 else left[:0]
                        hit = self._shoot_at(
                            u, g, pu, a, mask, pg, kg, names, wi, moved, stream, side, lock, cut, hide.get(g)
                        )
                        left = left[~np.isin(left, moved[hit])]
                    zap = (laser[t], lasers[t]) if laser.get(t, 0) else None
                    shot = self._shoot_at(
                        u, t, pu, a, mask, pt, k, names, wi, left, stream, side, lock, cut, hide.get(t), zap
                    )
                    left = left[~shot]
                self.skip(act, left.size, f"{wname}: no planned target it may shoot")

    def _shoot_at(
        self,
        u: int,
        t: int,
        pu: int,
        a: int,
        mask: int,
        pt: int,
        k: int,
        names: list[str],
        wi: int,
        left: np.ndarray,
        stream: int,
        side: str,
        lock: dict[int, int],
        cut: dict[int, int],
        hidden: str | None = None,
        laser: tuple[int, tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> np.ndarray:
        """Weapon ``names[wi]`` of unit ``u`` (placement ``pu``, ``a`` models, abilities ``mask``) at unit ``t``
        (``pt``, ``k`` models) in the games ``left``, where the board facts let it (8.7.3); which games shot. The
        first weapon used is ``names[0]`` (the plan's Batch order: a ``first_weapon`` effect goes to it). ``laser``:
        the dice a Point Defense Laser takes out of the Attack Pool of a weapon without INSTANT, and its state
        (:func:`abilities.point_defense`; spent where such a Batch resolves)."""
        shot = np.zeros(left.size, dtype=bool)
        if left.size == 0:
            return shot
        wname = names[wi]
        tmask = mask | lock.get(t, 0)
        bkey = (u, tmask, t, a, wname, names[0])
        batches = self._batches.get(bkey)  # type: ignore[assignment]
        if batches is None:
            lo = self.loadout(u, tmask)
            batches = self._batches[bkey] = [
                b for b in attack_batches(lo, self.units[t].unit, "assault", alive=a, first=names[0]) if b.name == wname
            ]
        if not batches:
            return shot
        w = batches[0].weapon
        tags = tuple(self.units[t].unit.card.combat_tags) + ((hidden,) if hidden else ())  # not Visible beyond 4"
        # the facts are read with the enemies near either unit (World.facts): split by those
        rest = [v for v in range(self.U) if v not in (u, t)]
        for near_pos, idx in self._near_cols_by(left, rest, self._facts_test(pu, side, pt, t)):
            pos, alive = self._local_state({u: (pu, a), t: (pt, k)}, rest, near_pos, {})
            f = self.world.facts(pos, alive, self.uids[u], self.uids[t], w, tags)
            if not f.eligible:
                continue
            distances = tuple(f.distances[: batches[0].models])
            if not distances:
                continue
            zapped = laser is not None and not abilities.instant(w)
            fewer = cut.get(t, 0) + (laser[0] if laser is not None and zapped else 0)
            batch = Batch(w, models=len(distances), distances=distances, name=wname, fewer=fewer)
            self.resolve([batch], t, "assault", left[idx], _stream(stream, wi), f.removable, f.evade_eligible)
            if laser is not None and zapped:
                abilities.laser_used(self, left[idx], laser[1])
            shot[idx] = True
        return shot

    def _facts_test(self, pu: int, side: str, pt: int, t: int) -> Callable[[int, str], bool]:
        """Does a unit's placement count for :meth:`World.facts` of a Ranged Attack from ``pu`` (player
        ``side``) at unit ``t`` at ``pt``: an enemy of either unit near it (``World._foes_near``)?"""
        tside = self.units[t].player
        return lambda p, player: (
            (player != side and self.world.near(pu, p)) or (player != tside and self.world.near(pt, p))
        )

    def charge(self, u: int, act: Activation, trials: np.ndarray, stream: int) -> None:
        """8.7.7 CHARGE, per board state of the units it reads (:meth:`_charge_games`); then, where the unit's
        Lightning Dash is planned, its second Charge in the games where the first succeeded."""
        su = self.units[u]
        barred = self._barred(u, trials)
        self.skip(act, int(barred.sum()), "Disengaged without Tactical Mass (8.5.4)")
        trials = trials[~barred]
        for hook in self.cards.before_attack:  # "declares a Charge action while ON CREEP" (Malevolent Matriarch)
            hook([u], trials)
        targets = [self.uids.index(t) for t in act.targets]
        rolls = np.zeros(self.T, dtype=np.int64)
        rolls[trials] = self.d6(stream, trials)  # the Charge Roll, 8.7.7 step 2
        abilities.adjust_charge_roll(self, act, rolls, trials, stream)  # abilities used, Reactions (10.4)
        slow = abilities.charge_debuffs(self, act, trials)  # DEBUFF Speed from Reactions to the declaration
        done = self._charge_games(u, act, trials, targets, rolls, slow, abilities.impact_of(su), stream)
        dash = abilities.second_charge(self.scn, act)
        if dash is not None and done.size:
            # Lightning Dash: "After this Unit resolves a successful Charge action, it may declare a second Charge
            # action against a different Enemy Unit, ignoring the restriction on Charging while Engaged. The
            # Devastating Charge ability does not trigger a second time": a new Charge Roll, Speed + 1D6 (the DEBUFF
            # Speed of the declaration lasts the Round); the first target, now not declared, keeps the end out of
            # its Engagement Range (8.7.7 step 3); no IMPACT
            rolls[done] = self.d6(_stream(stream, 61), done)
            self._charge_games(u, act, done, [self.uids.index(dash)], rolls, slow, None, stream, dash=True)

    def _charge_games(
        self,
        u: int,
        act: Activation,
        trials: np.ndarray,
        targets: list[int],
        rolls: np.ndarray,
        slow: np.ndarray,
        imp: tuple[int, int] | None,
        stream: int,
        dash: bool = False,
    ) -> np.ndarray:
        """One Charge of unit ``u`` at ``targets`` in ``trials`` with the Charge Rolls ``rolls`` (per game; ``slow``:
        the DEBUFF Speed), IMPACT ``imp`` after a success; ``dash``: the unit may start Engaged. The games where
        the Charge succeeded and the unit was set.

        The charging unit (placement, models, abilities used) and its targets (placement, models) group the
        trials; the other units enter as :meth:`World.charge_length` reads them: those near the charging unit
        (within the Charge's reach + 2"), whole. They hold every enemy the unit could be Engaged with (7.2.1
        needs Within 1"), so the Engaged test reads them too."""
        su = self.units[u]
        cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
        for t in targets:
            cols += [self.row_pos(t), self.row_alive(t)]
        # tokens on the battlefield it cannot move across, per game (Force Fields)
        wall_card, walls = self.cards.charge_walls(u)
        if walls is not None:
            cols.append(walls)
        rest = [v for v in range(self.U) if v != u and v not in targets]
        top = max(6, int(rolls[trials].max())) if trials.size else 6
        done: list[np.ndarray] = []
        for key, ts0 in self._ordered(self.groups(trials, cols), [0, *(3 + 2 * i for i in range(len(targets)))]):
            pu, a, mask = key[0], key[1], key[2]
            tpos = {t: (key[3 + 2 * i], key[4 + 2 * i]) for i, t in enumerate(targets)}
            alive_targets = [t for t in targets if tpos[t][0] >= 0]
            if not alive_targets:
                self.skip(act, ts0.size, "no planned target on the table")
                continue
            tids = tuple(self.uids[t] for t in alive_targets)
            # an ``on_creep`` BUFF Speed (Speed on Creep, Glial Reconstitution's second) only ON CREEP (the loadout)
            speed = su.speed + sum(e.value for e in self.effects(u, mask, "speed") if not e.on_creep)
            reach = speed + top
            known = {u: (pu, a)} | {t: tpos[t] for t in alive_targets}
            near = self._near_test(pu, reach + ENGAGEMENT_RANGE + 1.0)  # World.charge_length's units
            for near_pos, idx in self._ordered(self._near_cols(ts0, rest, near), range(len(rest))):
                ts = ts0[idx]
                pos, alive = self._local_state(known, rest, near_pos, {})
                if not dash and self._engaged_on(pos, alive, u):
                    self.skip(act, ts.size, "the unit is Engaged: it cannot Charge (8.7.7)")
                    continue
                fields = wall_card.wall_centres(key[-1]) if wall_card is not None else ()
                length, end = self.world.charge_length(
                    pos, alive, self.uids[u], tids, reach, fields=fields, engaged_ok=dash
                )
                ok = ts[np.maximum(speed - slow[ts], 0) + rolls[ts] >= length - 1e-9] if end is not None else ts[:0]
                short = (
                    "the second Charge Roll too short (Lightning Dash, 8.7.7)"
                    if dash
                    else "Charge Roll too short (8.7.7)"
                )
                self.skip(act, ts.size - ok.size, short)
                if ok.size == 0 or end is None:
                    continue
                tx, ty = self.world.placements[tpos[alive_targets[0]][0]].centres[0]
                rear = (end[0] - tx, end[1] - ty)
                left = tuple((self.uids[t], int(tpos[t][1])) for t in alive_targets)
                placed = self.place(u, ok, end, rear, act, tids, left)  # 8.7.7 step 4
                ok = ok[placed]
                done.append(ok)
                if imp is not None and ok.size:  # with its IMPACT abilities (My Life for Aiur, Adrenal Overload)
                    self._impact(u, alive_targets[0], ok, abilities.impact_with(self, u, mask, imp), stream)
        return np.sort(np.concatenate(done)) if done else trials[:0]

    def _engaged_on(self, pos: tuple[int, ...], alive: tuple[int, ...], u: int) -> bool:
        """Is unit ``u`` Engaged (7.2.1) on the board ``pos``/``alive`` (``World.engaged_pairs``, its pairs only)?"""
        if pos[u] < 0 or alive[u] <= 0:
            return False
        side = self.units[u].player
        for v in range(self.U):
            if v == u or pos[v] < 0 or alive[v] <= 0 or self.units[v].player == side:
                continue
            lo, hi = (u, v) if u < v else (v, u)
            if self.world.pair_engaged(pos[lo], alive[lo], pos[hi], alive[hi]):
                return True
        return False

    def _impact(self, u: int, t: int, trials: np.ndarray, imp: tuple[int, int], stream: int) -> None:
        """IMPACT after a successful Charge: its dice at the first target, one per model of the unit in the
        Fighting or Supporting Rank (:meth:`World.strikers`, read with the enemies near the unit, whole)."""
        enemies = [v for v in range(self.U) if v != u and self.units[v].player != self.units[u].player]
        for (pu, k, a), ts in self.groups(trials, [self.row_pos(u), self.row_alive(t), self.row_alive(u)]):
            for near_pos, idx in self._near_cols(ts, enemies, self._near_test(pu, ENGAGEMENT_RANGE + 2.0)):
                pos, alive = self._local_state({u: (pu, a)}, enemies, near_pos, {t: k})
                n = self.world.strikers(pos, alive, self.uids[u])
                if n:
                    self.resolve(
                        [Batch.impact(n, imp[0], imp[1], name="IMPACT")],
                        t,
                        "combat",
                        ts[idx],
                        _stream(stream, 99),
                        None,
                        False,
                    )

    def combat_phase(self, live: np.ndarray) -> None:
        """8.8: every Engaged unit fights, alternating from the First Player.

        The planned ``fight`` entries come first, then the other Engaged units in army order.
        """
        planned = {
            p: [a for a in self.scn.activations(self.round, "combat", p) if a.action == "fight"] for p in PLAYERS
        }
        for fp, ts_fp in enumerate([live[self.first[live] == fp] for fp in (0, 1)]):
            for ts, pairs in self.engaged_with(ts_fp):
                engaged = {a for a, _ in pairs}
                lists: list[list[tuple[str, tuple[str, ...], int]]] = [[], []]
                for pi, p in enumerate(PLAYERS):
                    seen = set()
                    for a in planned[p]:
                        if a.unit in engaged and a.unit not in seen:
                            lists[pi].append((a.unit, a.targets, self.ordinal[a]))
                            seen.add(a.unit)
                    for uid in self.uids:
                        if uid in engaged and uid not in seen and self.scn.units[uid].player == p:
                            lists[pi].append((uid, (), 10_000 + self.uids.index(uid)))
                turn, idx = fp, [0, 0]
                while idx[0] < len(lists[0]) or idx[1] < len(lists[1]):
                    if idx[turn] < len(lists[turn]):
                        uid, targets, ordinal = lists[turn][idx[turn]]
                        idx[turn] += 1
                        u = self.uids.index(uid)
                        here = ts[(self.pos[u, ts] >= 0) & ~self.over[ts]]
                        with abilities.reacting(self, ordinal, here):  # 10.4: Reactions to this fight
                            self.fight(u, targets, here, _stream(self.round, 2, ordinal))
                    turn = 1 - turn

    def fight(self, u: int, targets: Sequence[str], trials: np.ndarray, stream: int) -> None:
        """8.8.1: the Fighting and Supporting Ranks strike the enemy units they are Engaged with.

        The striking models are counted on the board, then split between the Engaged enemy units
        (8.8.1 "Declare how Attack Dice are split between eligible targets before rolling") by
        ``[policy] fight_split``, the enemies ranked planned ``targets`` first, then army order:

        * ``first-target``: every striking model at the first of them;
        * ``even``: the striking models split as evenly as possible over all of them, the earlier
          ones getting the odd models; the first part alone rolls the Surge Dice ("The Surge Die
          cannot be split") and any HITS of the unit's abilities. Every part is declared before
          any is rolled, then resolved in that order, each with its own draw;
        * ``weakest``: every striking model at the one with the fewest models left (ties: rank).

        Before the striking models are counted, ``[policy] close_ranks = "always"`` (the default) makes the
        unit's CLOSE RANKS move (8.8.1 step 1, :meth:`close_ranks`); the models are then counted where it
        left them.
        """
        uid = self.uids[u]
        split = self.scn.policy.fight_split
        down = abilities.burrowed(self, u, trials)
        if down.any():
            # part 11 BURROWED: "The Unit may perform Close Ranks as its first step, which immediately removes the
            # BURROWED status ... If the Unit does not or cannot perform Close Ranks, it does not attack"
            if self.scn.policy.close_ranks == "always":
                abilities.set_burrowed(self, u, trials[down], False)
            else:
                key = f"round {self.round} combat: {uid}: BURROWED and no Close Ranks (policy): it does not attack"
                self.skipped[key] = self.skipped.get(key, 0) + int(down.sum())
                trials = trials[~down]
        if self.scn.policy.close_ranks == "always":
            self.close_ranks(u, trials)  # 8.8.1 step 1, before rolling the dice: may move the unit in some trials
        side = self.units[u].player
        enemies = [v for v in range(self.U) if self.units[v].player != side]
        for hook in self.cards.before_attack:  # ON CREEP where the Close Ranks move left them
            hook([u, *enemies], trials)
        for ts, pairs in self.engaged_with(trials):
            engaged = {b for a, b in pairs if a == uid}
            if not engaged:
                continue
            ranked = [t for t in dict.fromkeys(targets) if t in engaged]
            ranked += sorted((t for t in engaged if t not in ranked), key=self.uids.index)
            foes = [self.uids.index(t) for t in (ranked[:1] if split == "first-target" else ranked)]
            cols: list[np.ndarray | int] = [
                self.row_pos(u),
                self.row_alive(u),
                self.row_used(u),
                *(self.row_alive(t) for t in foes),
            ]
            for gkey, ts1 in self._ordered(self.groups(ts, cols), [0]):
                pu, a, mask, left = gkey[0], gkey[1], gkey[2], gkey[3:]
                if a <= 0:
                    continue
                exact = dict(zip(foes, left, strict=True))
                # 8.8.1 step 2 is read with the enemy units near the unit (World.strikers): split by those
                strikers = np.zeros(ts1.size, dtype=np.int64)
                near_cols = self._near_cols(ts1, enemies, self._near_test(pu, ENGAGEMENT_RANGE + 2.0))
                for near_pos, idx in self._ordered(near_cols, range(len(enemies))):
                    pos, alive = self._local_state({u: (pu, a)}, enemies, near_pos, exact)
                    n = min(self.world.strikers(pos, alive, uid), a)
                    strikers[idx] = n
                for n, ts2 in _split_by(ts1, strikers):
                    if n <= 0:
                        continue
                    self._strike(u, mask, foes, left, n, split, ts2, stream)

    def _strike(
        self,
        u: int,
        mask: int,
        foes: list[int],
        left: tuple[int, ...],
        n: int,
        split: str,
        ts2: np.ndarray,
        stream: int,
    ) -> None:
        """8.8.1 steps 3-4: ``n`` striking models of unit ``u`` attack ``foes`` (models ``left``) in ``ts2``."""
        if split == "even":
            m = len(foes)
            parts = [(t, n // m + (1 if i < n % m else 0)) for i, t in enumerate(foes)]
        elif split == "weakest":
            parts = [(foes[min(range(len(foes)), key=lambda i: (left[i], i))], n)]
        else:
            parts = [(foes[0], n)]
        plan = []  # declared before rolling (8.8.1)
        for i, (t, models) in enumerate(parts):
            if models <= 0:
                continue
            bkey = (u, mask, t, models, "combat", i > 0)
            batches = self._batches.get(bkey)  # type: ignore[assignment]
            if batches is None:
                batches = attack_batches(self.loadout(u, mask), self.units[t].unit, "combat", alive=models)
                if i > 0:  # the Surge Die (and HITS) went with the first part
                    batches = [
                        dataclasses.replace(b, weapon=dataclasses.replace(b.weapon, surge_tags=(), surge_dice=None))
                        for b in batches
                        if b.kind == "weapon"
                    ]
                self._batches[bkey] = batches
            plan.append((t, batches, stream if i == 0 else _stream(stream, i)))
        for t, batches, part_stream in plan:
            self.resolve(batches, t, "combat", ts2, part_stream, None, False)

    def close_ranks(self, u: int, trials: np.ndarray) -> None:
        """8.8.1 step 1 CLOSE RANKS: "An Engaged Ground Unit" presses into the fight before rolling the dice.

        Per board state and models left (the unit's, the Engaged enemy units'), the new placement is
        :meth:`World.close_ranks <mathhammer.scenario.world.World.close_ranks>` (the reading is in
        ``world.py``); the unit is moved with :meth:`set_pos` in those trials. No dice are rolled. A
        Flying unit takes no part in the Combat Phase; a unit with the SIEGE MODE keyword from an
        ability used this Round (``unit_keyword``) does not move (SIEGE MODE is in no card data yet; the
        Status is not tracked otherwise). A BURROWED unit moves and loses the Status (:meth:`fight`).
        """
        if self.units[u].flying:
            return
        uid = self.uids[u]
        moves: list[tuple[np.ndarray, int]] = []
        for ts, pairs in self.engaged_with(trials):
            foes = sorted({self.uids.index(b) for a, b in pairs if a == uid})
            if not foes:
                continue
            cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
            for t in foes:
                cols += [self.row_pos(t), self.row_alive(t)]
            rest = [v for v in range(self.U) if v != u and v not in foes]
            for gkey, ts1 in self._ordered(self.groups(ts, cols), [0, *(3 + 2 * i for i in range(len(foes)))]):
                pu, a, mask = gkey[0], gkey[1], gkey[2]
                if a <= 0 or (mask and self._stays_put(u, mask)):
                    continue
                engaged = tuple((gkey[3 + 2 * i], gkey[4 + 2 * i]) for i in range(len(foes)) if gkey[4 + 2 * i] > 0)
                # the other units on the table matter only near the move (World.close_box): split by those
                lo, hi, reach = self.world.close_box(pu, a, engaged)
                near_cols = self._near_cols(ts1, rest, self._box_test(lo, hi, reach))
                for near_pos, idx in self._ordered(near_cols, range(len(rest))):
                    ts2 = ts1[idx]
                    near = tuple(p for p in near_pos if p >= 0)
                    new = self.world.close_ranks_near(pu, a, engaged, near)
                    if isinstance(new, tuple):  # the grid fallback looks farther: the units near its box
                        glo, ghi = new
                        for gpos, idx3 in self._near_cols(ts2, rest, self._box_test(glo, ghi, reach)):
                            ts3 = ts2[idx3]
                            moved = self.world.close_ranks_grid(pu, a, engaged, tuple(p for p in gpos if p >= 0))
                            if moved != pu:
                                moves.append((ts3, moved))
                    elif new != pu:
                        moves.append((ts2, new))
        self.set_pos_many(u, moves)  # in one pass: the loops read the other units' placements only

    def _near_cols_by(
        self, trials: np.ndarray, units: Sequence[int], near: Callable[[int, str], bool]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        """:meth:`_near_cols` with ``near(placement, the unit's player)``."""
        if not units:
            yield (), np.arange(trials.size)
            return
        if trials.size == 1:  # one game (common: the rarer board states): its board's placements, read directly
            board = self._board_arr[int(self.board[trials[0]])].tolist()
            ps = [board[v] for v in units]
            if isinstance(near, _Test):
                there = [p for p in ps if p >= 0]
                ok = iter(near.many(np.array(there, dtype=np.int64)).tolist() if there else [])
                yield tuple(p if p >= 0 and next(ok) else -1 for p in ps), np.zeros(1, dtype=np.int64)
            else:
                players = [self.units[v].player for v in units]
                yield (
                    tuple(p if p >= 0 and near(p, pl) else -1 for p, pl in zip(ps, players, strict=True)),
                    np.zeros(1, dtype=np.int64),
                )
            return
        # the trials of one board (every unit's placement, ``board``) share the answer: read it per board
        order, bounds, bids = self._by_board.split(self.board, trials, self._boards.n)
        players = [self.units[v].player for v in units]
        if bids.size > _FEW_BOARDS:
            # many boards: the same split without a loop over them. Each placement is tested once; the boards
            # are grouped by the placements kept (in order of first board), then their trials (board after
            # board, as below)
            kept = self._board_arr[bids][:, np.asarray(units)]
            on = kept >= 0
            cells = kept[on]  # each placement once (in order of first cell), no sort
            c_order, c_bounds, pids = self._by_placement.split(cells, np.arange(cells.size), len(self.world.placements))
            if not pids.size:
                flag = np.zeros(0, dtype=bool)
            elif isinstance(near, _Test):  # every placement at once, compiled
                flag = near.many(pids)
            else:  # a placement is its unit's: the unit's player
                world = self.world
                flag = np.asarray(
                    [near(p, self.units[world.index[world.placements[p].unit]].player) for p in pids.tolist()],
                    dtype=bool,
                )
            cell_ok = np.empty(cells.size, dtype=bool)
            cell_ok[c_order] = np.repeat(flag, np.diff(c_bounds))
            ok = np.zeros(kept.shape, dtype=bool)
            ok[on] = cell_ok
            b_order, b_bounds, b_keys = group_rows(np.where(ok, kept, -1).T, np.arange(bids.size))
            idx_all, ends = regroup(order, bounds, b_order, b_bounds)
            for g in range(len(b_keys)):
                yield tuple(b_keys[g].tolist()), idx_all[(ends[g - 1] if g else 0) : ends[g]]
            return
        parts: dict[tuple[int, ...], list[np.ndarray]] = {}
        flags: dict[tuple[int, int], bool] = {}
        boards = self._board_arr[bids].tolist()
        if isinstance(near, _Test):  # every placement at once, compiled
            asked = sorted({(v, b[v]) for b in boards for v in units if b[v] >= 0})
            if asked:
                got = near.many(np.array([p for _, p in asked], dtype=np.int64)).tolist()
                flags = dict(zip(asked, got, strict=True))
        for g in range(bids.size):
            board = boards[g]
            key = []
            for v, player in zip(units, players, strict=True):
                p = board[v]
                if p >= 0:
                    hit = flags.get((v, p))
                    if hit is None:
                        hit = flags[(v, p)] = near(p, player)
                    if not hit:
                        p = -1
                key.append(p)
            parts.setdefault(tuple(key), []).append(order[bounds[g] : bounds[g + 1]])
        for key_t, idx in parts.items():
            yield key_t, idx[0] if len(idx) == 1 else np.concatenate(idx)

    def _near_test(self, pid: int, gap: float) -> _Test:
        """Could a base of a placement be within ``gap`` of one of ``pid`` (:meth:`World.near`)?"""
        world = self.world
        return _Test(lambda ps: world.near_many(pid, ps, gap))

    def _box_test(self, lo: np.ndarray | None, hi: np.ndarray | None, reach: float) -> _Test:
        """Is a placement's base within ``reach`` of the box ``lo``-``hi`` (:meth:`World.near_box_many`)? Every
        placement is, without a box."""
        if lo is None or hi is None:
            return _Test(lambda ps: np.ones(ps.size, dtype=bool))
        world = self.world
        return _Test(lambda ps: world.near_box_many(ps, lo, hi, reach))

    def _stays_put(self, u: int, mask: int) -> bool:
        """SIEGE MODE from the abilities ``mask`` used this Round: no Close Ranks move (a BURROWED unit makes it and
        loses the Status, :meth:`fight`)."""
        return any(
            e.kind == "unit_keyword" and str(e.keyword).upper() == "SIEGE MODE" for e in self.loadout(u, mask).effects()
        )

    # ------------------------------------------------------------ end of round
    def current_supply(self, out: np.ndarray | None = None) -> np.ndarray:
        """Current Supply Value (units x trials): the Models/Supply bracket of the models left, 0 off the table
        (written into ``out`` where given)."""
        return supply_matrix(self.pos, self.alive, self._supply_grid, self.full, out)

    def end_checks(self, live: np.ndarray, final: bool) -> None:
        """8.9.3: Special Winning Condition, a wiped-out army (+10 VP to the survivor), the final Round. The +10 VP is
        given also where a winning VP lead ends the game in the same Round: "The game ends immediately if" lists both,
        and "The surviving player gains +10 VP" whichever else holds."""
        lead = self.scn.mission.instant_win_lead
        diff = self.vp[0, live] - self.vp[1, live]
        instant = np.abs(diff) >= lead
        present = np.zeros((2, self.T), dtype=bool)
        for u in range(self.U):
            p = PLAYERS.index(self.units[u].player)
            present[p] |= (self.alive[u] > 0) & (  # on the table or in Reserves, not Destroyed
                (self.pos[u] >= 0) if self.summoned[u] else True  # a Summoned Unit off the table is in neither
            )
        wiped = ~present[:, live]
        for p in (0, 1):
            gain = wiped[1 - p] & ~wiped[p]
            self.vp[p, live[gain]] += 10
        ended = instant | wiped.any(axis=0)
        self.instant[live[instant]] = True
        if final:
            ended[:] = True
        done = live[ended]
        self.over[done] = True
        self.end_round[done] = self.round

    def roll_off(self, stream: int, trials: np.ndarray) -> np.ndarray:
        """The winner of a Roll-Off (3.2) per trial (0 red, 1 blue), by ``[policy] roll_off``.

        ``random``: a fair Roll-Off drawn from ``stream``; ``red`` / ``blue``: that player wins every one.
        """
        rule = self.scn.policy.roll_off
        if rule != "random":
            return np.full(trials.size, PLAYERS.index(rule), dtype=np.int64)
        return (self.draw(stream, trials) < 0.5).astype(np.int64)

    def cleanup(self, live: np.ndarray) -> None:
        """8.9.5 Cleanup (abilities and their effects expire, cards Ready) and 8.9.6 initiative; first the effects "At
        the End of the Round" (the cards' ``end_of_round``), then the cards' own Cleanup."""
        for hook in self.cards.end_of_round:
            hook(live)
        # part 11 STATUS: "Unless stated otherwise, Statuses aren't removed during the Scoring and Cleanup Phase"
        status = abilities.BURROWED_STATUS
        keep = np.array([abilities.status_bit(self, u) if status in self.abilities[u] else 0 for u in range(self.U)])
        _keep_bits(self.used, keep.astype(np.int64), np.asarray(live, dtype=np.int64))
        for hook in self.cards.cleanup:  # 8.9.5: Tokens and Markers go; "Until the End of the Round" effects end
            hook(live)
        self.via_used.clear()  # Warp Conduit, Omega Network: "Once per Round", "Each Round"
        self.granted.clear()
        self.penalty[:, live] = False
        diff = self.vp[0, live] - self.vp[1, live]
        roll = self.roll_off(_stream(self.round, 9), live)  # 8.9.6: "If tied, conduct a Roll-Off"
        self.first[live] = np.where(diff < 0, 0, np.where(diff > 0, 1, roll))

    def snapshot(self) -> None:
        """The end of a Round, in small integer types (a million games of 12 units: ~90 MB a Round); written into
        this Round's arrays of :attr:`sink` where given (a forked worker's part of the shared result)."""
        rnd = len(self.snapshots)
        into = self.sink[rnd] if self.sink is not None and rnd < len(self.sink) else None
        parts: dict[str, tuple[np.ndarray | None, type]] = {  # None: the Current Supply Values, read into place
            "alive": (self.alive, np.int16),
            "on_table": (self.on_table(), np.bool_),
            "supply": (None, np.int16),
            "marker": (self.mark, np.int16),
            "control": (self.control, np.int8),
            "vp": (self.vp, np.int16),
            "over": (self.over, np.bool_),
        }
        snap: dict[str, np.ndarray] = {}
        for key, (src, dtype) in parts.items():
            if src is None:
                snap[key] = self.current_supply(out=np.empty((self.U, self.T), dtype) if into is None else into[key])
            elif into is None:
                snap[key] = src.astype(dtype)
            else:
                np.copyto(into[key], src, casting="unsafe")
                snap[key] = into[key]
        self.snapshots.append(snap)


__all__ = ["Simulation", "uniforms"]
