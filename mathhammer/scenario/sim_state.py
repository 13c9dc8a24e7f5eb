"""The state of a scenario's simulation: per-unit arrays of games, dice, grouping games by what a step
reads, Engaged pairs per board (see :mod:`mathhammer.scenario.sim`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..board.engagement import ENGAGEMENT_RANGE
from ..starcraft.loadout import Loadout, as_target
from ..starcraft.model import Batch
from ..starcraft.schema import Ability
from . import abilities
from .basics import draw_base as _draw_base
from .cards import CardSet
from .cards.registry import status_changers
from .fast import IdGrouper, NearSplitter, group_rows, group_state
from .fastcontrol import UNREAD, supply_matrix
from .fastmove import engaged_in
from .fastnear import ManyTest as _Test
from .fastsim import _uniforms_kernel
from .fasttables import BoardTable, PairTable
from .grass import Grass
from .spec import Activation, Scenario, ScenarioUnit
from .tally import Tally, health_table
from .world import World


def _group_of(order: np.ndarray, bounds: np.ndarray, n: int) -> np.ndarray:
    """Per element 0..n-1 of a :func:`group_rows` split (``order``, ``bounds``), the index of its group."""
    out = np.empty(n, dtype=np.int64)
    out[order] = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    return out


def uniforms(seed: int, stream: int, trials: np.ndarray) -> np.ndarray:
    """One uniform in [0, 1) per trial for the draw named ``stream``: a function of (seed, stream, trial) only.

    >>> a = uniforms(1, 7, np.arange(5))
    >>> bool(np.all(a[[3, 1]] == uniforms(1, 7, np.array([3, 1]))))
    True
    """
    return np.asarray(_uniforms_kernel(_draw_base(seed, stream), trials.astype(np.int64)))


class SimState:
    """The per-game state of one scenario's games (arrays of units x games), their dice, and the grouping of
    games by the state a step reads."""

    if TYPE_CHECKING:  # the rules in the other parts of Simulation that these parts call (sim_move, sim_shoot)

        def resolve(
            self,
            batches: Sequence[Batch],
            t: int,
            phase: str,
            trials: np.ndarray,
            stream: int,
            visible: int | None,
            evade: bool,
            by: int = -1,
        ) -> None: ...
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
            moves: list[tuple[np.ndarray, int]] | None = None,
            arriving: bool = False,
        ) -> np.ndarray: ...
        def move_to(
            self,
            u: int,
            movers: np.ndarray,
            to: tuple[float, float],
            act: Activation,
            moving: bool = True,
            headings: int | None = None,
        ) -> np.ndarray: ...
        def to_reserves(self, u: int, back: np.ndarray) -> None: ...
        def available(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray: ...
        def supply_fits(self, u: int, reserve: np.ndarray) -> np.ndarray: ...
        def _barred(self, u: int, trials: np.ndarray) -> np.ndarray: ...
        def fight_answers(
            self,
            uid: str,
            pairs: Collection[tuple[str, str]],
            ordinal: int,
            planned: Activation | None,
            here: np.ndarray,
        ) -> list[tuple[np.ndarray, Activation | None]]: ...

    def __init__(self, scn: Scenario, trials: int, seed: int, offset: int = 0, world: World | None = None) -> None:
        """``trials`` games numbered ``offset`` .. ``offset + trials - 1`` (a game's dice depend on its number
        only); ``world``: a World of the same scenario whose geometry is already read (shared caches)."""
        self.scn = scn
        self.seed = int(seed)
        self.T = int(trials)
        self.offset = int(offset)
        self.world = world if world is not None else World(scn)
        self.grass = Grass(self)  # part 11 GRASS: the pieces removed per game (grass.py)
        self.uids = self.world.uids
        self.units: list[ScenarioUnit] = [scn.units[u] for u in self.uids]
        self.U = len(self.uids)
        self.M = len(scn.deployment.markers)
        self.marker_numbers = [m.number for m in scn.deployment.markers]
        T, U, M = self.T, self.U, self.M
        self.full = np.array([u.models for u in self.units], dtype=np.int64)
        self._full_list: list[int] = self.full.tolist()  # the same, read one unit at a time (_local_state)
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
        self._near_split = NearSplitter()  # trials split by the placements near (_near_cols_by)
        # each placement id's unit (:meth:`owners`), the first ``_owned`` of a buffer that doubles as they come
        self._owners, self._owned = np.zeros(64, dtype=np.int64), 0
        self.pos[:] = -1
        self.alive[:] = self.full[:, None]
        self.shielded[:] = np.array([self.shield(u) > 0 for u in self.units], dtype=np.int64)[:, None]
        #: Summoned Units (9.1.9): off the table they are not in Reserves; Structures (Pylon, Omega Worm, Point
        #: Defense Drone): never Activated, no Mission Marker contest
        self.summoned = [su.summoned for su in self.units]
        self.structure = [abilities.is_structure(su) for su in self.units]
        self.penalty = np.zeros((U, T), dtype=bool)
        self.ref_supply = np.zeros((U, T), dtype=np.int64)
        self.supply_now = np.zeros((U, T), dtype=np.int64)  # scratch: the Current Supply Values while scoring
        self.contesting = np.zeros((U, M, T), dtype=bool)  # scratch: the contest table while scoring (mission.contest)
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
        self.round: int = 0
        #: read the groups of a Charge, a Close Ranks and a fight in the order of their content (:meth:`_ordered`),
        #: descending where ``reverse``: set in forked workers sharing answers (parallel.py)
        self.sharing = False
        self.reverse = False
        self.snapshots: list[dict[str, np.ndarray]] = []
        #: per Round, the arrays :meth:`snapshot` writes into (views of the shared result, parallel.py), or None
        self.sink: list[dict[str, np.ndarray]] | None = None
        self.skipped: dict[str, int] = {}
        # per unit and game, in the current Phase: activated (counted as Activated otherwise, or allowed a second
        # activation: the cards' state, read through the counts_activated and activate_again triggers)
        self.acted = np.zeros((self.U, self.T), dtype=bool)
        self._phase_of_acted: tuple[int, str] = (0, "")  # the Phase ``acted`` is about
        # effects given this Round to a unit another unit's ability selected: (unit, effect, games), until Cleanup
        self.granted: list[abilities.Grant] = []
        self.givers: dict[str, list[int]] = {}  # per effect kind: the units with an ability of it (abilities._givers)
        # an enemy Reaction's effect on a unit's weapons, as an ability of that unit (cards/debuffs.py)
        self.inflicted: dict[str, Ability] = {}
        self.abilities = [[a.name for a in abilities.unit_abilities(u)] for u in self.units]
        # the abilities that change a Status by their text (Burrow, Lie in Wait, Nasty Surprise): no effect of their own
        self.burrowers = status_changers(
            [
                a
                for su in self.units
                for a in abilities.unit_abilities(su) + [f.ability for f in abilities.card_abilities(scn, su.player)]
            ]
        )
        self._loadouts: dict[tuple[int, int], Loadout] = {}
        self._effects: dict[tuple[int, int, str], list[Any]] = {}  # :meth:`effects`
        #: the ability cards in play (cards/), with their per-game state, called at their trigger points
        self.cards = CardSet(self)
        self._transitions: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        # (Batches, target, its abilities, models, Damage Marker, SHIELDED, phase, ...) -> the transition
        self._asked: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        # (Batches, target, models, phase, Visible, evade, reduction's minimum, counted) -> its transitions by key
        self._draws: dict[tuple[object, ...], Any] = {}
        self._batches: dict[tuple[object, ...], list[Batch]] = {}
        # (unit, its targets) -> the weapons a Shoot naming none fires (8.7.3 step 2; the unit's own loadout)
        self._fired: dict[tuple[int, tuple[int, ...]], list[str]] = {}
        # the plan position names a draw, or the entry's own ``dice`` (a trace's slot, players/trace.py)
        self.ordinal = {act: i if act.dice is None else act.dice for i, act in enumerate(scn.plan)}
        # Engagement by pairs of enemy units (:meth:`engaged_bits`), read once per board id
        self._enemy_pairs = [
            (u, v) for u in range(U) for v in range(u + 1, U) if self.units[u].player != self.units[v].player
        ]
        words = max(1, -(-len(self._enemy_pairs) // 62))
        # Engaged or not per pair of placements, read by compiled code (set_pos_many): placement ids are a unit's
        # own, so the pair of placements names the pair of units
        self._pair_table = PairTable(self._pairs_read, self._pairs_near)
        self._bits_arr = np.zeros((words, 64), dtype=np.int64)  # engaged_bits of each board id (column)
        self._unit_sel = [[i for i, p in enumerate(self._enemy_pairs) if u in p] for u in range(U)]
        # per unit, its pairs as :meth:`set_pos_many` reads them: the other unit, the unit first of the two, the pair
        self._unit_pairs = [
            (
                np.asarray([b if a == u else a for a, b in (self._enemy_pairs[i] for i in sel)], dtype=np.int64),
                np.asarray([self._enemy_pairs[i][0] == u for i in sel], dtype=np.bool_),
                np.asarray(sel, dtype=np.int64),
            )
            for u, sel in enumerate(self._unit_sel)
        ]
        self._unit_bits = []  # per unit: its pairs' bits, one int64 a word
        for u in range(U):
            mask = np.zeros(words, dtype=np.int64)
            for i in self._unit_sel[u]:
                mask[i // 62] |= np.int64(1) << np.int64(i % 62)
            self._unit_bits.append(mask)
        self._unit_keep = [~mask for mask in self._unit_bits]  # per unit: the bits of the other units' pairs
        self._unit_ints = [mask.tolist() for mask in self._unit_bits]  # the same as Python ints (:meth:`engaged_one`)
        self._bits_pairs: dict[tuple[int, ...], frozenset[tuple[str, str]]] = {}
        # Current Supply Value by models left (the card's Models/Supply brackets), one row a unit
        self._supply_grid = np.zeros((U, int(self.full.max(initial=0)) + 1), dtype=np.int64)
        for u, su in enumerate(self.units):
            if not self.structure[u]:  # Structure: "its Current Supply Value is treated as 0"
                self._supply_grid[u, : su.models + 1] = [su.supply(k) for k in range(su.models + 1)]
        #: per unit: activations by action, damage dealt and taken (issue 29 point 4, :mod:`.tally`)
        self.tally = Tally(
            U, T, [health_table(as_target(su.loadout, "assault").model_hp(), su.models) for su in self.units]
        )

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
        """The effects of kind ``kind`` of unit ``u``'s :meth:`loadout` with the abilities ``mask`` (kept per those,
        as the loadout is: the callers only read the list)."""
        key = (u, mask, kind)
        hit = self._effects.get(key)
        if hit is None:
            hit = self._effects[key] = [e for e in self.loadout(u, mask).effects() if e.kind == kind]
        return hit

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

    def trim(self, u: int, games: np.ndarray) -> None:
        """Unit ``u``'s placement in ``games`` reduced to its models left (8.7.4 step 5: "The defending player removes
        models"; a removed model is off the table): the bases removed are no obstacle to any later placement, path
        or test. Called where models are removed (an attack's casualties, a failed Disengage)."""
        if games.size == 0:
            return
        p, k = self.pos[u, games], self.alive[u, games]
        on = p >= 0
        short = on & (k < self.world.sizes()[np.where(on, p, 0)])
        if not short.any():
            return
        g, key = games[short], p[short] * 65536 + k[short]
        uniq, inv = np.unique(key, return_inverse=True)
        parts = [(g[inv == i], self.world.trimmed(q >> 16, q & 65535)) for i, q in enumerate(uniq.tolist())]
        self.set_pos_many(u, parts)

    def set_pos(self, u: int, ts: np.ndarray, pid: int) -> None:
        """Place unit ``u`` (or clear it: ``pid`` -1) in trials ``ts``, keeping the board ids."""
        self.set_pos_many(u, [(ts, pid)])

    def set_pos_many(self, u: int, parts: Sequence[tuple[np.ndarray, int]]) -> None:
        """Place unit ``u`` at ``pid`` (-1: clear it) in the trials ``ts`` of each (``ts``, ``pid``) of ``parts``
        (a trial in one part at most), keeping the board ids: a new board made by moving one unit keeps the
        Engaged pairs of the others and re-reads only that unit's."""
        if len(parts) == 1:  # the common case: one placement
            ts, pid = parts[0]
            if not ts.size:
                return
            pids = np.full(ts.size, pid, dtype=np.int64)
        else:
            chunks: list[np.ndarray] = []
            placed: list[int] = []
            sizes: list[int] = []
            for part, pid in parts:  # one pass over the parts (a Close Ranks sets thousands)
                if part.size:
                    chunks.append(part)
                    placed.append(pid)
                    sizes.append(part.size)
            if not chunks:
                return
            ts = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
            pids = np.repeat(np.array(placed, dtype=np.int64), sizes)
        new, old = self._boards.move(self.board, ts, u, pids, self.pos[u])  # ``pos[u, ts] = pids`` in the pass
        if new.size:
            self._bits_room()
            # each new board's words: its old board's without the unit's pairs, then the unit's pairs on the new board
            others, first, sel = self._unit_pairs[u]
            keep = self._unit_keep[u]
            self._pair_table.set_words(self._bits_arr, self._boards.rows, new, old, u, others, first, sel, keep)

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
        (:class:`~mathhammer.scenario.memo.SharedAnswers`) instead of computing them at the same time."""
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
        units (:attr:`_enemy_pairs`) is Engaged (7.2.1; :meth:`World.pair_engaged` of the two placements): read once
        per board (:meth:`board_id`). A placement holds its models left only (:meth:`trim`; 8.7.4 step 5: a removed
        model Engages nobody), so the units whole are their models left: before session 58 the pairs of a unit short
        of its models were read again on its models left."""
        bits = self._bits_arr[:, self.board[trials]]
        if self.grass.on:  # part 11 GRASS: Engaged across the pieces removed in a game (grass.py)
            bits = self.grass.engaged(bits, trials, self.board, lambda b, w: self._board_words(self.board_pos(b), w))
        return bits

    def _board_words(self, pos: tuple[int, ...], world: World | None = None) -> list[int]:
        """:meth:`engaged_bits` of a board, from each pair of placements (read once per pair)."""
        words = [0] * self._bits_arr.shape[0]
        for i in range(len(self._enemy_pairs)):
            u, v = self._enemy_pairs[i]
            pa, pb = pos[u], pos[v]
            if pa >= 0 and pb >= 0 and self._pair_read(pa, pb, world):
                words[i // 62] |= 1 << (i % 62)
        return words

    def _pair_read(self, pa: int, pb: int, world: World | None = None) -> bool:
        """Are two enemy units, placed at ``pa`` and ``pb`` (in the order of their pair), Engaged, whole
        (:meth:`World.pair_engaged`, which keeps its answers)?"""
        world = self.world if world is None else world  # part 11 GRASS: a World without removed pieces (grass.py)
        u = world.index[world.placements[pa].unit]
        v = world.index[world.placements[pb].unit]
        return world.pair_engaged(pa, int(self.full[u]), pb, int(self.full[v]))

    def _pairs_near(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """What :class:`PairTable` reads :meth:`World.near` at Engagement Range by (:meth:`World.pair_engaged`'s first
        test, :meth:`_pairs_read`'s too): every placement's centres packed and the gap."""
        return (*self.world.centres_arrays(), float(ENGAGEMENT_RANGE))

    def _pairs_read(self, pairs: np.ndarray) -> np.ndarray:
        """:meth:`_pair_read` of each pair of placements (rows pa, pb). :meth:`World.pair_engaged` is False where
        the two are not near (its first test, :meth:`World.near` at Engagement Range): that test is read for every
        pair in one compiled pass (:meth:`World.near_pairs`), and only the pairs near are read one by one."""
        got = np.zeros(pairs.shape[0], dtype=bool)
        near = self.world.near_pairs(pairs, ENGAGEMENT_RANGE)
        if not near.any():  # the common case: no pair near
            return got
        for i in np.flatnonzero(near).tolist():
            got[i] = self._pair_read(int(pairs[i, 0]), int(pairs[i, 1]))
        return got

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
        """Per trial of ``trials``: is unit ``u`` Engaged (on the models left: :meth:`engaged_bits`)?"""
        if self.grass.on:
            return np.asarray(((self.engaged_bits(trials) & self._unit_bits[u][:, None]) != 0).any(axis=0))
        got = engaged_in(self._bits_arr, self.board, trials, self._unit_bits[u])  # whole: one compiled pass
        sel = np.flatnonzero(got)
        if sel.size:  # read again on the models left where Engaged whole (it can only be fewer)
            got[sel] = ((self.engaged_bits(trials[sel]) & self._unit_bits[u][:, None]) != 0).any(axis=0)
        return got

    def engaged_one(self, t: int, u: int) -> bool:
        """:meth:`engaged_mask` of game ``t`` alone: its board's words read in Python where they hold none of unit
        ``u``'s pairs (no pair Engaged whole: none on the models left either), else :meth:`engaged_mask`."""
        if not self.grass.on:
            b = int(self.board[t])
            if not any(w & m for w, m in zip(self._bits_arr[:, b].tolist(), self._unit_ints[u], strict=True)):
                return False
        return bool(self.engaged_mask(np.array([t], dtype=np.int64), u)[0])

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
        full = self._full_list
        for v, p in zip(units, near_pos, strict=True):
            if p >= 0:
                k = left.get(v, full[v]) if left else full[v]
                if k > 0:
                    pos[v], alive[v] = p, k
        return tuple(pos), tuple(alive)

    def skip(self, act: Activation, n: int, why: str) -> None:
        if n:
            key = f"{act.where}: {why}"
            self.skipped[key] = self.skipped.get(key, 0) + n

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
        # the trials of one board (every unit's placement, ``board``) share the answer: read per board, each
        # placement tested once, the boards grouped by the placements kept (in order of first board), then their
        # trials (board after board), in two compiled passes around the test
        if isinstance(near, _Test):  # every placement at once, compiled
            test = near.many
        else:  # a placement is its unit's: the unit's player
            world = self.world

            def test(pids: np.ndarray) -> np.ndarray:
                return np.asarray(
                    [near(p, self.units[world.index[world.placements[p].unit]].player) for p in pids.tolist()],
                    dtype=bool,
                )

        keys, idx_all, ends = self._near_split.split(
            self.board,
            np.ascontiguousarray(trials, dtype=np.int64),
            self._board_arr,
            np.asarray(units, dtype=np.int64),
            test,
            len(self.world.placements),
        )
        for g, key in enumerate(keys.tolist()):
            yield tuple(key), idx_all[(ends[g - 1] if g else 0) : ends[g]]

    def owners(self) -> np.ndarray:
        """Each placement id's unit (index), for every placement made so far (a view: read it, do not keep it)."""
        world, have = self.world, self._owned
        n = len(world.placements)
        if have < n:
            if n > self._owners.size:  # doubled: each placement copied O(1) times in all
                grown = np.zeros(max(n, 2 * self._owners.size), dtype=np.int64)
                grown[:have] = self._owners[:have]
                self._owners = grown
            self._owners[have:n] = [world.index[world.placements[p].unit] for p in range(have, n)]
            self._owned = n
        return self._owners[:n]

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

    # ------------------------------------------------------------ end of round
    def current_supply(self, out: np.ndarray | None = None) -> np.ndarray:
        """Current Supply Value (units x trials): the Models/Supply bracket of the models left, 0 off the table
        (written into ``out`` where given)."""
        return supply_matrix(self.pos, self.alive, self._supply_grid, self.full, out)


__all__ = ["SimState", "uniforms"]
