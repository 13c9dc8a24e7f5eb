"""Which entries of a unit's menu (:mod:`.menu`) are legal in each game's state: a bool mask, games x entries.

The rules are not written again here. An entry is judged by ``scenario check``'s own walk (:class:`~mathhammer.scenario.
check.PlanCheck`, its ``activation``) set to the game's state by an adapter (:class:`_CheckAt`): the placements of
the units on the table (the Simulation's ``pos``, the same placement ids: the check reads the Simulation's World),
their models left (``alive``: Engagement, Line of Sight and range are read on the models left, where the plan check
reads full strength), and the Grass pieces removed in the game (part 11 GRASS: the World without them). So a Deploy
is read by 8.5.5 (from the Entry Edge, at most Speed, 8.3.3 the Zone of Influence, the unit set In Coherency), a Move
or Run by 8.5.2-8.5.3 (not Engaged, the way around the terrain at most Speed, not ending on terrain, on a base or
Within 1" of an enemy), a Ranged Attack by 8.7.3 (a weapon in range of a Visible target, the World's attack facts),
a Charge by 8.7.7 (Ground units; the charge geometry's path at most Speed + 6, the best Charge Roll), each as
``scenario check`` reads it; the check's warnings (the plan "may" fail in some games) are not refusals.

What the Simulation knows per game and the plan check cannot is read from the Simulation
(:class:`~mathhammer.scenario.simview.SimView`):

* 8.3.2 Available Supply of a Deploy (the check reads full strength; ``SimView.supply_fits`` per game);
* 8.4.1 / 8.6.1 one activation per unit and Phase (``acted``): a unit that activated has only Pass left;
* a Fight (8.8.1) only for an Engaged unit (``engaged_mask``: the check only warns);
* a Destroyed unit (``alive`` 0) has only Pass; a unit in Reserves may only Deploy (and Pass).

Not read (the automatic players' menus hold none of it): abilities and Reactions, and the Statuses they set
(BURROWED, the Disengage penalty of 8.5.4, which only a Disengage gives and the menu has none).

Games in the same state (placements, models left, Grass removed) share one answer, memoised per unit, Phase and
state (:meth:`Legality.row`: filled entry by entry, :meth:`Legality.judged`, or whole, :meth:`Legality.mask`); a
state is judged once however many games are in it, and the states of a decision's games are read once
(:meth:`Legality.states`). Shortcuts skip the plan walk for entries the check refuses before reading anything else
(:meth:`Legality.entry`): a unit in Reserves only Deploys and one on the table never does (8.5.5); a Shoot or Charge
target must be on the table (8.7.3, 8.7.7); and, without reading the board, a Move or Run point farther than the most
Speed the unit can have in a straight line (8.5.3: the path is at least that), a Shoot target with no model Within the
longest Range or LONG RANGE of the Batches the check reads (8.7.3 step 1: the least base gap of the models left), a
Charge target whose nearest model is farther than Speed + 6 + the additions beyond the Engagement Range (8.7.7). A
test holds every shortcut to the check's own walk in the states of random games (tests/test_autoplay_legal_fast.py).
The new rows of a decision's states are made together (:meth:`Legality.rows`): a Deploy the World cannot set at its
point (8.5.3 step 2, 8.5.5) is refused for all of them in one compiled pass (:mod:`.placings`), without the walk, and
one it can set is admitted there where its point, length and spots pass the walk's other reads. A
plain Move, Run or Hold (no ability used) is judged without the walk too (:mod:`.moveverdicts`: the same World calls
as the walk's ``_move``, listed there; a test holds every such verdict to the walk's), and so is a plain Charge or
Shoot (:mod:`.attackverdicts`: the walk's ``_check_charge`` and ``_check_shoot`` World calls). A Hold with one
ability no card's check reads (:mod:`.useholds`: Stimpack) has the same verdict in every state of a Round with the unit
on the table: the walk's, read once per entry and Round.
The caller starts each Phase before asking (``Simulation.new_phase``, as ``play_phase`` does), so
``acted`` is about the Phase asked.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import replace
from operator import itemgetter

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE
from ...board.model import EPS, MM_PER_INCH
from ...starcraft.keywords import find
from ...starcraft.loadout import Loadout, attack_batches
from ..abilities import Purse
from ..check import PlanCheck
from ..check.moves import speed_of
from ..grass import Tracker
from ..lookup import loadout_with
from ..simview import SimView
from ..spec import PLAYERS, Activation, Scenario
from ..world import World
from .attackverdicts import AttackVerdicts
from .menu import UnitMenu
from .moveverdicts import MoveVerdicts, bare_loadout
from .placings import DeployRefusals
from .useholds import UseHolds

#: the state-key memo is cleared past this many answers (memory flat in the number of states)
MEMO_LIMIT = 1 << 11
#: :meth:`Legality.first_admitted` asks a plain entry's reading at once (:meth:`MoveVerdicts.judge
#: <.moveverdicts.MoveVerdicts.judge>`, :meth:`AttackVerdicts.judge <.attackverdicts.AttackVerdicts.judge>`), before
#: the rest of :meth:`Legality._walk`; the count scripts that wrap ``_walk`` to see every verdict turn it off (the same
#: verdicts, in the same order)
PLAIN_AT_ONCE = True
#: :meth:`Legality.states`: the distinct states of some games, and each game's index among them
States = tuple[list[tuple[int, ...]], np.ndarray]


class _CheckAt(PlanCheck):
    """``scenario check``'s walk state set to one game's state (the module text): :meth:`problems_of` an activation.
    A Charge's path is searched only as far as it may go (``bounded_charges``), a Ranged Attack's Line of Sight only
    until a Visible target model Within Range is found (``verdicts_only``): the verdicts are the check's."""

    bounded_charges = True
    verdicts_only = True

    def __init__(self, scn: Scenario, world: World) -> None:
        super().__init__(scn)
        self.world = world  # the Simulation's World: the placement ids of ``pos`` are its own
        self.grass = Tracker(world)
        self._base_purses = {p: Purse(scn, p) for p in PLAYERS}
        self._bare: dict[tuple[str, bool], Loadout] = {}  # _loadout_now of a unit no ability was used on
        self._p: tuple[int, ...] = ()
        self._a: tuple[int, ...] = ()
        self.round_start(1)

    def state(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The game's placements and models left (the plan check's own reads full strength)."""
        return self._p, self._a

    def problems_of(self, act: Activation, pos: Sequence[int], alive: Sequence[int], gone: int) -> list[str]:
        """The errors ``scenario check`` finds in ``act`` in the state ``pos``, ``alive`` (per unit, World order),
        ``gone`` (the Grass mask); warnings left out."""
        uids = self.world.uids
        on = [p >= 0 and k > 0 for p, k in zip(pos, alive, strict=True)]
        self._p = tuple(p if o else -1 for p, o in zip(pos, on, strict=True))
        self._a = tuple(k if o else 0 for k, o in zip(alive, on, strict=True))
        self.pos = {u: p for u, p, o in zip(uids, pos, on, strict=True) if o}
        self.problems = []
        self.used, self.taken, self.deployed, self.ending = {}, set(), [], []
        self.on_unit, self.disengaged = {}, {}
        # no printed limit carries over from another walk: the menus offer no ability limited "Once per Game/Round"
        # (menu.attack_abilities), so nothing of this game's past is lost
        self.once = {}
        # the game's state is known: no unit that may be destroyed or set apart (the walk's per-game judgements)
        self.attacked, self.loose, self.formed = set(), {}, set()
        self.purses = {p: self._ready(p) for p in PLAYERS}
        self.pool = None  # 8.3.2 is read per game (SimView.supply_fits)
        tracker = self.grass
        tracker.mask, tracker._seen, tracker._last = gone, dict(self.pos), act  # nothing set since: the mask stands
        self.world = tracker.worlds.world_for(gone)
        self.activation(act, set(), set())
        return [p for p in self.problems if not p.startswith("warning:")]

    def _loadout_now(self, unit: str, on_creep: bool = False) -> Loadout:
        """The walk's ``_loadout_now``; a unit no ability was used on in this walk (``used``, ``on_unit``: the common
        case, each walk starts with none) has its loadout with the cards' Passive abilities only, kept per unit and
        ON CREEP (the same ``loadout_with`` answer, read once)."""
        if any(u == unit and k > 0 for (u, _), k in self.used.items()) or any(u == unit for u, _ in self.on_unit):
            return super()._loadout_now(unit, on_creep)
        key = (unit, on_creep)
        hit = self._bare.get(key)
        if hit is None:
            hit = self._bare[key] = super()._loadout_now(unit, on_creep)
        return hit

    def _ready(self, player: str) -> Purse:
        """``Purse(scn, player)``, every card Ready (8.9.5), its cards read once (``Purse.pay`` sets a new ``ready``
        and never changes the cards)."""
        purse = copy.copy(self._base_purses[player])
        purse.ready = [True] * len(purse.names)
        return purse


class Legality:
    """The legal entries of the units' menus in the games of a Simulation (the module text)."""

    def __init__(self, view: SimView, menus: dict[str, UnitMenu]) -> None:
        self.view = view
        self.menus = menus
        self.check = _CheckAt(view.scn, view.world)
        self.deploys = DeployRefusals(view, menus, self.check.grass.worlds.world_for)
        self.moves = MoveVerdicts(view, menus, self.check)
        self.attacks = AttackVerdicts(view, menus, self.check, self.moves)
        self.holds = UseHolds(view, menus, self.check)
        self._held: dict[tuple[int, str, int, int], bool] = {}  # (unit, Phase, entry, Round) -> the walk's verdict
        self._uses: dict[tuple[int, str, tuple[str, ...], int], bool] = {}  # (unit, Phase, use, Round) -> use_walk's
        # (unit, Phase) -> state -> :meth:`row`; at most MEMO_LIMIT rows in all (``_memo_rows``)
        self._memo: dict[tuple[int, str], dict[tuple[int, ...], np.ndarray]] = {}
        self._memo_rows = 0
        # a new row as the shortcuts leave it, by what they read (:meth:`rows`); at most MEMO_LIMIT kept
        self._firsts: dict[tuple[object, ...], np.ndarray] = {}
        self._menu_points: dict[tuple[int, str], np.ndarray] = {}
        self._holds: dict[tuple[int, str], np.ndarray | None] = {}  # :meth:`_plain_holds`
        self._sum_radii: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self._reaches: dict[tuple[int, int, str], float] = {}
        self._most: dict[int, tuple[float, float]] = {}
        self._speed_caps: dict[tuple[int, str], np.ndarray] = {}
        self._entry_kinds: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self._masks: dict[tuple[int, str], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = {}
        self._aim_reach: dict[tuple[int, str], tuple[list[int], np.ndarray, np.ndarray, np.ndarray] | None] = {}
        self._spans: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}  # per (unit, Phase): _reach_span

    def states(self, games: np.ndarray) -> States:
        """The distinct states of ``games`` (each a tuple: the placements, the models left, the Grass mask) and the
        index of each game's among them: read once per decision, then passed to :meth:`mask` and
        :meth:`EntryLegality.admits <mathhammer.scenario.players.auto.EntryLegality.admits>` for its games."""
        view = self.view
        gone = view.grass.gone[games] if view.grass.gone.size else np.zeros(games.size, dtype=np.int64)
        cols = np.ascontiguousarray(
            np.concatenate([view.pos[:, games], view.alive[:, games], gone[None, :]], axis=0).T, dtype=np.int64
        )
        if games.size == 1:
            return [tuple(cols[0].tolist())], np.zeros(1, dtype=np.int64)
        rows_as_one = cols.view(np.dtype((np.void, 8 * cols.shape[1]))).reshape(-1)  # one value per game's state
        _, first, inv = np.unique(rows_as_one, return_index=True, return_inverse=True)
        return list(map(tuple, cols[first].tolist())), inv.reshape(-1)

    def mask(self, u: int, phase: str, games: np.ndarray, states: States | None = None) -> np.ndarray:
        """Per game of ``games`` (rows) and entry of unit ``u``'s ``phase`` menu (columns): is it legal now?
        ``states``: :meth:`states` of ``games`` where the caller has it."""
        view = self.view
        uid = view.uids[u]
        entries = self.menus[uid][phase]
        out = np.zeros((games.size, len(entries)), dtype=bool)
        kinds = np.asarray([e.action for e in entries])
        out[:, kinds == "pass"] = True
        alive = view.alive[u, games] > 0
        free = alive & ~view.acted[u, games]  # 8.4.1, 8.6.1: one activation per unit and Phase
        if not free.any():
            return out
        table, inv = self.states(games) if states is None else states
        self.rows(u, phase, table)  # the new rows made together
        rows = np.array([self._full_row(u, phase, s) for s in table]) > 0
        out[:, kinds != "pass"] = rows[inv][:, kinds != "pass"]
        if phase == "movement":
            deploy = kinds == "deploy"
            if deploy.any():  # 8.3.2: the Available Supply of each game
                fits = view.supply_fits(u, games)
                out[:, deploy] &= fits[:, None]
        if phase == "combat":
            fight = kinds == "fight"
            if fight.any():  # 8.8.1: an Engaged unit fights
                engaged = view.engaged_mask(games, u)
                out[:, fight] = engaged[:, None]
        out[~free] &= (kinds == "pass")[None, :]
        return out

    def row(self, u: int, phase: str, state: tuple[int, ...]) -> np.ndarray:
        """The answers known so far for unit ``u``'s ``phase`` entries in one state (:meth:`states`): per entry 1
        legal, 0 not, -1 not judged yet (:meth:`judged` fills it). A new row has its Pass entries 1 and the entries a
        shortcut refuses 0 (:meth:`shortcuts`, the whole menu at once; :meth:`rows`: the Deploys that cannot be set).
        Memoised per unit, Phase and state; the memo is cleared past :data:`MEMO_LIMIT` rows (memory flat in the
        number of states)."""
        memo = self._memo.get((u, phase))
        hit = memo.get(state) if memo is not None else None
        return hit if hit is not None else self.rows(u, phase, [state])[0]

    def rows(self, u: int, phase: str, states: Sequence[tuple[int, ...]]) -> list[np.ndarray]:
        """:meth:`row` of each of ``states``; the new rows made together, the Deploy entries that cannot be set
        (:class:`~.placings.DeployRefusals`: no room for the unit at the point, 8.5.3, 8.5.5) refused in one pass over
        their states. A new row starts from a copy of the shortcuts' answer kept by what they read (the unit's and its
        aimed targets' placements and models; 43% of a random game's new rows find it kept)."""
        memo = self._memo.get((u, phase))
        if memo is None:
            memo = self._memo[(u, phase)] = {}
        got = list(map(memo.get, states))
        new = [s for s, r in zip(states, got, strict=True) if r is None]
        if not new:  # every row kept (one pass)
            return got  # type: ignore[return-value]
        new = list(dict.fromkeys(new))
        if self._memo_rows + len(new) > MEMO_LIMIT:
            self._memo.clear()
            memo = self._memo[(u, phase)] = {}
            self._memo_rows = 0
            new = list(dict.fromkeys(states))
            got = [None] * len(states)
        self._memo_rows += len(new)
        made = list(self._made(u, phase, new))
        memo.update(zip(new, made, strict=True))
        fresh_rows = dict(zip(new, made, strict=True))
        return [r if r is not None else fresh_rows[s] for s, r in zip(states, got, strict=True)]

    def _made(self, u: int, phase: str, states: Sequence[tuple[int, ...]]) -> np.ndarray:
        """New rows of ``states`` (rows; not memoised): :meth:`rows`' making of them. Each starts from a copy of the
        shortcuts' answer kept by what they read (the unit's and its aimed targets' placements and models; 43% of a
        random game's new rows find it kept), then the Deploys :meth:`_refuse_deploys` answers."""
        deploys, _, passes, _ = self._kind_masks(u, phase)
        aim = self._aimed_reach(u, phase)
        reads = [u, *(aim[0] if aim is not None else ())]  # the units whose placement and models it reads
        n = self.view.U
        firsts = self._firsts
        if len(firsts) > MEMO_LIMIT:
            firsts.clear()
        # the shortcuts read the unit's and its aimed targets' placements and models alone (:meth:`shortcuts`):
        # the rows of the keys not kept made in one pass
        read = itemgetter(*reads, *(n + v for v in reads))  # two items at least: a tuple
        head = (u, phase)
        keys = [head + read(state) for state in states]
        missing = {}
        for state, key in zip(states, keys, strict=True):
            if key not in firsts and key not in missing:
                missing[key] = state
        if missing:
            fresh = np.where(self.shortcuts_many(u, phase, list(missing.values())), np.int8(0), np.int8(-1))
            fresh[:, passes] = 1
            holds = self._plain_holds(u, phase)
            if holds is not None and not self.check.down:  # a plain Hold of a unit on the table: legal (the walk's)
                on = np.fromiter((s[u] >= 0 and s[n + u] > 0 for s in missing.values()), dtype=bool, count=len(missing))
                fresh[on[:, None] & holds[None, :] & (fresh < 0)] = 1
            firsts.update(zip(missing, fresh, strict=True))
        made = np.array([firsts[key] for key in keys])  # a copy (np.array: stack's rows, faster)
        if phase == "movement" and deploys.any():
            self._refuse_deploys(u, phase, states, made)
        return made

    def _plain_holds(self, u: int, phase: str) -> np.ndarray | None:
        """Per entry of unit ``u``'s ``phase`` menu, read once: a plain Hold (:meth:`MoveVerdicts.plain
        <.moveverdicts.MoveVerdicts.plain>`), whose verdict in a state with the unit on the table is True where the
        walk's Burrowed Status holds no unit (``MoveVerdicts.verdict``; the menus use no ability that sets it, so it
        stays empty): :meth:`rows` sets it so in a new row (None where the menu has none)."""
        key = (u, phase)
        if key not in self._holds:
            plain = [self.moves.plain(u, phase, i) for i in range(len(self.menus[self.view.uids[u]][phase]))]
            mask = np.asarray([p is not None and p[0] == "hold" for p in plain], dtype=bool)
            self._holds[key] = mask if mask.any() else None
        return self._holds[key]

    def _refuse_deploys(self, u: int, phase: str, states: Sequence[tuple[int, ...]], rows: np.ndarray) -> None:
        """Set 0 in ``rows`` (of ``states``) the Deploy entries :class:`~.placings.DeployRefusals` finds refused, and 1
        those it finds admitted (the walk's verdict without the walk: ``DeployRefusals.judged``), in the states with
        unit ``u`` in Reserves (one pass per Grass mask)."""
        n = self.view.U
        groups: dict[int, list[int]] = {}
        for k, s in enumerate(states):
            if s[u] < 0 or s[n + u] <= 0:
                groups.setdefault(int(s[2 * n]), []).append(k)
        for ks in groups.values():
            idx, refused, admitted = self.deploys.judged(u, phase, [states[k] for k in ks])
            # the answered entries of every state at once (a refusal first, as one state at a time read them)
            sub = np.array([rows[k][idx] for k in ks])
            unknown = sub < 0
            sub[refused & unknown] = 0
            sub[admitted & unknown & ~refused] = 1
            for k, got in zip(ks, sub, strict=True):
                rows[k][idx] = got

    def judged(self, u: int, phase: str, index: int, state: tuple[int, ...]) -> bool:
        """:meth:`entry` through the memo of :meth:`row`."""
        r = self.row(u, phase, state)
        if r[index] < 0:
            r[index] = self._walk(u, phase, index, state)
        return bool(r[index])

    def _full_row(self, u: int, phase: str, state: tuple[int, ...]) -> np.ndarray:
        """:meth:`row` with every entry judged."""
        r = self.row(u, phase, state)
        for i in np.flatnonzero(r < 0).tolist():
            r[i] = self._walk(u, phase, i, state)
        return r

    def admits(self, u: int, phase: str, index: int, games: np.ndarray, states: States | None = None) -> np.ndarray:
        """Per game of ``games``: is entry ``index`` of unit ``u``'s ``phase`` menu legal now? One entry at a time: a
        policy that needs one legal entry, not the whole menu's answer, judges only the entries it reaches. The same
        answers as :meth:`mask`'s column (a test holds the two to each other): its state rows and its per-game reads
        (:meth:`game_reads`; Pass always). ``states``: :meth:`states` of ``games`` where the caller has it (read
        once per decision)."""
        view = self.view
        e = self.menus[view.uids[u]][phase][index]
        if e.action == "pass":
            return np.ones(games.size, dtype=bool)
        if games.size == 1:  # one game (the common case once games part): read as scalars
            g = int(games[0])
            if view.alive[u, g] <= 0 or view.acted[u, g]:
                return np.zeros(1, dtype=bool)
            out = np.ones(1, dtype=bool)
        else:
            out = (view.alive[u][games] > 0) & ~view.acted[u][games]
            if not np.count_nonzero(out):
                return out
        if e.action != "fight":  # 8.8.1: a Fight is admitted in any state (an Engaged unit fights: its game's read)
            table, sid = self.states(games) if states is None else states
            if sid.size == 1 or len(table) == 1:  # one state (one game: the common case once games part)
                if not self.judged(u, phase, index, table[int(sid[0])]):
                    return np.zeros(games.size, dtype=bool)
            else:
                ids = sid.tolist()
                seen = sorted(set(ids))  # np.unique's order: the states judged in the same order
                legal = {}
                for s, r in zip(seen, self.rows(u, phase, [table[s] for s in seen]), strict=True):  # new rows together
                    if r[index] < 0:  # :meth:`judged` on the row at hand
                        r[index] = self._walk(u, phase, index, table[s])
                    legal[s] = bool(r[index])
                out &= np.fromiter((legal[s] for s in ids), dtype=bool, count=len(ids))
        if np.count_nonzero(out):  # the reads of each game itself
            out &= self.game_reads(u, phase, index, games)
        return out

    def first_drawn(self, u: int, phase: str, games: np.ndarray, states: States, keys: np.ndarray) -> np.ndarray:
        """Per game of ``games`` (their :meth:`states`): the first entry of unit ``u``'s ``phase`` menu by ``keys``
        (games x entries: the entries in the order of their keys, a stable sort) that :meth:`admits` admits; -1 for
        none (a Pass never). :meth:`open`'s entries first, in that order (an entry it closes is refused: the first
        admitted is the same), then :meth:`first_admitted`, the rows read once for both (``Random.first_legal``'s
        reading where the Decision gives it)."""
        if games.size == 0:
            return np.full(0, -1, dtype=np.int64)
        read = self._read_rows(u, phase, states)
        known, at = read[1], read[2]
        free = (self.view.alive[u][games] > 0) & ~self.view.acted[u][games]
        maybe = (known[at] != 0) & ~self._kind_masks(u, phase)[2][None, :]
        maybe[~free] = False  # a unit Destroyed or activated in the Phase has only Pass (:meth:`open`)
        return self.first_admitted(u, phase, games, states, np.where(maybe, keys, np.inf), maybe, read)

    def _read_rows(self, u: int, phase: str, states: States) -> tuple[list[int], np.ndarray, np.ndarray]:
        """The distinct states of ``states`` (their indices, ascending), their rows as one array (made afresh, as
        :meth:`rows` makes new ones, and not memoised: a random game's decisions ask a unit's rows in a state once,
        13 of 229,854 states asked twice in 2,000 games), and each game's row in it."""
        table, sid = states
        seen = np.unique(sid) if sid.size > 1 else sid
        picked = seen.tolist()
        known = self._made(u, phase, [table[s] for s in picked])
        at = np.searchsorted(seen, sid) if seen.size > 1 else np.zeros(sid.size, dtype=np.int64)
        return picked, known, at

    def first_admitted(
        self,
        u: int,
        phase: str,
        games: np.ndarray,
        states: States,
        keys: np.ndarray,
        maybe: np.ndarray,
        read: tuple[list[int], np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Per game of ``games`` (their :meth:`states`): the first entry of unit ``u``'s ``phase`` menu in the order of
        its row of ``keys`` (the entries by increasing key, ties by index: a stable sort's order; finite where ``maybe``
        leaves the entry open, inf elsewhere) that ``maybe`` leaves open and :meth:`admits` admits; -1 for none.
        :meth:`admits` asked column by column of that order (per column, entry by entry) in one pass: the same
        answers, and the same walks in the same order (per column, by entry then state), without a call per entry (a
        Pass is never admitted). Each column is read as it is reached, for the games still looking: the least key of
        the entries not yet tried (``argmin``: the first of equal keys), instead of sorting every row; ``keys`` is used
        up (its tried entries set to inf). ``read``: :meth:`_read_rows` of ``states`` where the caller has it."""
        n = games.size
        got = np.full(n, -1, dtype=np.int64)
        width = int(np.count_nonzero(maybe, axis=1).max()) if n else 0
        if width == 0:
            return got
        view = self.view
        table = states[0]
        picked, known, at = self._read_rows(u, phase, states) if read is None else read
        kinds, _ = self._kinds(u, phase)
        fight, passes = kinds == "fight", self._kind_masks(u, phase)[2]
        per_game = fight | (kinds == "deploy") | self._paid(u, phase)
        free = (view.alive[u][games] > 0) & ~view.acted[u][games]
        walk, size = self._walk, len(picked)
        moves, attacks, at_once = self.moves, self.attacks, PLAIN_AT_ONCE
        left = keys  # the keys of the entries not yet tried (tried: set to inf, in the caller's array)
        looking = np.ones(n, dtype=bool)  # a game with an entry left to try and none admitted yet
        for col in range(width):
            todo = np.flatnonzero(looking)
            if todo.size == 0:
                break
            if col == 0:
                cand = left.argmin(axis=1)
                least = left[todo, cand]
            else:
                sub = left[todo]
                cand = sub.argmin(axis=1)
                least = sub[np.arange(todo.size), cand]
            left[todo, cand] = np.inf
            # an entry left open has a finite key: the least key inf, the game has none left (a stable sort's later
            # columns, whose entries ``maybe`` closes)
            open_ = np.isfinite(least)
            looking[todo[~open_]] = False
            keep = open_ & free[todo] & ~passes[cand]
            todo, cand = todo[keep], cand[keep]
            if todo.size == 0:
                continue
            rows_at = at[todo]
            verdict = known[rows_at, cand]
            ask = (verdict < 0) & ~fight[cand]
            if np.count_nonzero(ask):  # the (entry, state) pairs not yet judged: by entry, then state
                last = -1
                for code in sorted(set((cand[ask] * size + rows_at[ask]).tolist())):  # np.unique's, in less time
                    e, p = divmod(code, size)
                    if e != last:  # a plain entry's reading, asked of it at once (:meth:`_walk` asks it first)
                        last, mp = e, moves.plain(u, phase, e) if at_once else None
                        ap = attacks.plain(u, phase, e) if at_once and mp is None else None
                    state = table[picked[p]]
                    fast = moves.judge(mp, u, state) if mp is not None else None
                    if fast is None and ap is not None:
                        fast = attacks.judge(ap, u, state, True)
                    # the first admitted: taken
                    known[p, e] = walk(u, phase, e, state, True) if fast is None else fast
                verdict = known[rows_at, cand]
            ok = (verdict > 0) | fight[cand]
            reads = ok & per_game[cand]
            if np.count_nonzero(reads):  # 8.8.1 a Fight, 8.3.2 a Deploy's Supply, 10.5 what pays for ``use``
                for e in sorted(set(cand[reads].tolist())):
                    k = np.flatnonzero(reads & (cand == e))
                    ok[k] = self.game_reads(u, phase, e, games[todo[k]])
            got[todo[ok]] = cand[ok]
            looking[todo[ok]] = False
        return got

    def _paid(self, u: int, phase: str) -> np.ndarray:
        """Per entry of unit ``u``'s ``phase`` menu: read per game by what pays for it (none here:
        :class:`~.auto.EntryLegality`'s Spending)."""
        return np.zeros(len(self.menus[self.view.uids[u]][phase]), dtype=bool)

    def game_reads(self, u: int, phase: str, index: int, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``, where entry ``index``'s state is admitted (a Fight: any state): :meth:`admits`' reads
        of the game itself (8.8.1 a Fight for an Engaged unit; 8.3.2 the Available Supply of a Deploy)."""
        action = self.menus[self.view.uids[u]][phase][index].action
        if action == "fight":
            return self.view.engaged_mask(games, u)
        if action == "deploy":
            return self.view.supply_fits(u, games)
        return np.ones(games.size, dtype=bool)

    def open(self, u: int, phase: str, games: np.ndarray, states: States | None = None) -> np.ndarray:
        """Per game of ``games`` (rows) and entry of unit ``u``'s ``phase`` menu (columns): not yet known to be
        illegal (its state's :meth:`row` not 0; a unit Destroyed or activated in the Phase has only Pass). What
        :meth:`admits` may admit: an entry it is False for, :meth:`admits` refuses, so a policy looking for the first
        legal entry in some order need not ask about it (the per-game reads, 8.3.2 Supply and 8.8.1, are left to
        :meth:`admits`)."""
        view = self.view
        table, sid = self.states(games) if states is None else states
        seen = np.unique(sid) if sid.size > 1 else sid
        rows = np.zeros((len(table), len(self.menus[view.uids[u]][phase])), dtype=bool)
        picked = seen.tolist()
        rows[seen] = np.array(self.rows(u, phase, [table[s] for s in picked])) != 0  # np.array: stack's rows, faster
        out = rows[sid]
        out[~((view.alive[u][games] > 0) & ~view.acted[u][games])] &= self._kind_masks(u, phase)[2][None, :]
        return out

    def entry(self, u: int, phase: str, index: int, state: Sequence[int]) -> bool:
        """Is entry ``index`` of unit ``u``'s ``phase`` menu legal in one state: ``state`` the placements, then the
        models left (per unit, World order), then the Grass mask (:meth:`mask`'s per-game reads left out: 8.3.2
        Supply, a Fight for an Engaged unit, one activation per Phase)? The shortcuts first (the module text), then
        the plan check."""
        if self.menus[self.view.uids[u]][phase][index].action == "pass":
            return True
        return not self.shortcuts(u, phase, state)[index] and self._walk(u, phase, index, state)

    def _walk(self, u: int, phase: str, index: int, state: Sequence[int], taken: bool = False) -> bool:
        """The plan check's answer for entry ``index`` (no shortcut): a plain Move, Run or Hold's read without the
        walk (:class:`~.moveverdicts.MoveVerdicts`: the same verdict), a plain Charge or Shoot's too
        (:class:`~.attackverdicts.AttackVerdicts`), a Hold with an ability no card's check reads by the walk once a
        Round (:class:`~.useholds.UseHolds`: the same verdict in every state), a Move or Run with such an ability by
        that Hold's verdict and the Move's own at the Speed with the ability (:meth:`~.useholds.UseHolds.twin`), a
        Charge or Shoot with such an ability by its activation's walk as a Hold (:meth:`use_walk`) and the attack's own
        reading with the ability used (:meth:`~.useholds.UseHolds.attack_twin`), any other entry's by the walk.
        ``taken``: the entry is taken where admitted (:meth:`first_admitted`: :meth:`AttackVerdicts.verdict
        <.attackverdicts.AttackVerdicts.verdict>`'s)."""
        key = tuple(state)
        fast = self.moves.verdict(u, phase, index, key)
        if fast is None:
            fast = self.attacks.verdict(u, phase, index, key, taken)
        if fast is None and self.holds.applies(u, phase, index, key):
            fast = self._held_walk(u, phase, index, state)
        if fast is None:  # a Move with such an ability: its Hold twin's verdict, then the Move at the Speed with it
            twin = self.holds.twin(u, phase, index)
            if twin is not None and self.holds.applies(u, phase, twin, key):
                held = self._held_walk(u, phase, twin, state)
                fast = self.moves.verdict_used(u, phase, index, key) if held else False
            elif twin is None and self.holds.attack_twin(u, phase, index) and self.holds.usable(u, key):
                # a Charge or Shoot with such an ability: its walk as a Hold, then the attack with the ability used
                held = self.use_walk(u, phase, index, state)
                fast = self.attacks.verdict_used(u, phase, index, key) if held else False
        return self.walked(u, phase, index, state) if fast is None else fast

    def use_walk(self, u: int, phase: str, index: int, state: Sequence[int]) -> bool:
        """The walk's verdict on entry ``index``'s activation as a Hold (its action ``hold``, no target): the part of a
        Charge's or Shoot's verdict its inert ability decides (:meth:`~.useholds.UseHolds.attack_twin`), alike in every
        state of the Round with the unit on the table and not BURROWED; walked in the first state asked and kept per
        (unit, Phase, ability, Round), the entries using it at every target sharing it."""
        view = self.view
        menu = self.menus[view.uids[u]]
        e = menu[phase][index]
        at = (u, phase, e.use, view.round)
        fast = self._uses.get(at)
        if fast is None:
            act = replace(e.activation(menu.unit, menu.player, view.round, phase), action="hold", targets=(), then=())
            fast = self._uses[at] = self._walk_act(act, state)
        return fast

    def _held_walk(self, u: int, phase: str, index: int, state: Sequence[int]) -> bool:
        """The walk's verdict on the Hold entry ``index`` that :class:`~.useholds.UseHolds` finds alike in every state
        of the Round, walked in the first state asked and kept per entry and Round."""
        at = (u, phase, index, self.view.round)
        fast = self._held.get(at)
        if fast is None:
            fast = self._held[at] = self.walked(u, phase, index, state)
        return fast

    def walked(self, u: int, phase: str, index: int, state: Sequence[int]) -> bool:
        """The plan walk's own answer for entry ``index`` (no shortcut, no :class:`~.moveverdicts.MoveVerdicts` or
        :class:`~.attackverdicts.AttackVerdicts`)."""
        view = self.view
        menu = self.menus[view.uids[u]]
        return self._walk_act(menu[phase][index].activation(menu.unit, menu.player, view.round, phase), state)

    def _walk_act(self, act: Activation, state: Sequence[int]) -> bool:
        """The plan walk's answer for ``act`` in ``state`` (:meth:`states`' row): no error."""
        n = self.view.U
        return not self.check.problems_of(act, state[:n], state[n : 2 * n], int(state[2 * n]))

    def _kinds(self, u: int, phase: str) -> tuple[np.ndarray, np.ndarray]:
        """Per entry of unit ``u``'s ``phase`` menu: its action, and its target's unit index (-1: none)."""
        key = (u, phase)
        hit = self._entry_kinds.get(key)
        if hit is None:
            entries = self.menus[self.view.uids[u]][phase]
            uids = self.view.uids
            kinds = np.asarray([e.action for e in entries])
            targets = np.asarray([-1 if e.target is None else uids.index(e.target) for e in entries], dtype=np.int64)
            hit = self._entry_kinds[key] = (kinds, targets)
        return hit

    def shortcuts(self, u: int, phase: str, state: Sequence[int]) -> np.ndarray:
        """Per entry of unit ``u``'s ``phase`` menu in one state (:meth:`entry`'s): refused by a shortcut, without
        the plan walk (the module text): 8.5.5 a unit in Reserves only Deploys and one on the table never does; a Move
        or Run point beyond the most Speed in a straight line (8.5.3); a Shoot or Charge target not on the table or
        beyond the farthest gap its action may reach (8.7.3, 8.7.7). Pass is never refused."""
        return self.shortcuts_many(u, phase, [state])[0]

    def shortcuts_many(self, u: int, phase: str, states: Sequence[Sequence[int]]) -> np.ndarray:
        """:meth:`shortcuts` of each of ``states`` (rows), in one pass: the least gaps to the aimed targets' models
        left read by one compiled call (the placements' centres as the World keeps them, float64), less the two
        base radii (the least base-edge gap: Range and Charges are read on the models left)."""
        n = self.view.U
        st = np.asarray(states, dtype=np.int64).reshape(len(states), -1)
        pu, ku = st[:, u], st[:, n + u]
        on = (pu >= 0) & (ku > 0)
        on_refused, off_refused, _, moves = self._kind_masks(u, phase)
        out = np.where(on[:, None], on_refused[None, :], off_refused[None, :])  # 8.5.5
        rows = np.flatnonzero(on)
        if rows.size == 0:
            return out
        pu, ku = pu[rows], ku[rows]  # the states with the unit on the table
        if moves is not None:  # _beyond: never a point-less entry
            out[rows] |= moves[None, :] & self._beyond(u, phase, pu)
        aim = self._aimed_reach(u, phase)
        if aim is not None:
            # 8.7.3, 8.7.7: a target on the table, within the farthest gap the action may reach
            targets, entries, of, reach = aim
            tcols = np.asarray(targets, dtype=np.int64)
            pt, kt = st[np.ix_(rows, tcols)], st[np.ix_(rows, n + tcols)]
            off = (pt < 0) | (kt <= 0)
            gaps = np.zeros(off.shape)
            r, c = np.nonzero(~off)
            if r.size:  # a gap read only as far as the reaches of its target's entries tell it apart
                radii, (floors, ceils) = self._radii(u, targets)[c], self._reach_span(u, phase)
                d = self.view.world.least_distances(pu[r], ku[r], pt[r, c], kt[r, c], (radii, floors[c], ceils[c]))
                gaps[r, c] = d - radii
            out[np.ix_(rows, entries)] = off[:, of] | (gaps[:, of] > reach[None, :])
        return out

    def _radii(self, u: int, targets: list[int]) -> np.ndarray:
        """Per unit of ``targets``: its base radius and unit ``u``'s summed (inches), read once."""
        key = (u, tuple(targets))
        hit = self._sum_radii.get(key)
        if hit is None:
            units, uids = self.view.scn.units, self.view.uids
            inches = [(units[uids[u]].base_mm + units[uids[t]].base_mm) / MM_PER_INCH / 2 for t in targets]
            hit = self._sum_radii[key] = np.asarray(inches, dtype=float)
        return hit

    def _kind_masks(self, u: int, phase: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Per entry of unit ``u``'s ``phase`` menu, read once: refused on the table by 8.5.5 (a Deploy), refused off
        it (not a Deploy, not a Pass), a Pass, and a Move or Run (None where the menu has neither)."""
        key = (u, phase)
        hit = self._masks.get(key)
        if hit is None:
            kinds, _ = self._kinds(u, phase)
            passes = kinds == "pass"
            moves = (kinds == "move") | (kinds == "run")
            hit = self._masks[key] = (
                kinds == "deploy",
                (kinds != "deploy") & ~passes,
                passes,
                moves if moves.any() else None,
            )
        return hit

    def _aimed_reach(self, u: int, phase: str) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray] | None:
        """The Shoot and Charge entries of unit ``u``'s ``phase`` menu as arrays, read once (None: there are none): the
        targets' unit indices, the entries, per entry its target's place among the targets and the farthest gap its
        action may reach (:meth:`_reach`, read once per target and action); :meth:`shortcuts` reads each target's gap
        once."""
        key = (u, phase)
        if key not in self._aim_reach:
            kinds, aimed = self._kinds(u, phase)
            by: dict[int, dict[str, list[int]]] = {}  # target -> action -> entries
            for i in np.flatnonzero(aimed >= 0).tolist():
                if kinds[i] in ("shoot", "charge"):
                    by.setdefault(int(aimed[i]), {}).setdefault(str(kinds[i]), []).append(i)
            entries: list[int] = []
            of: list[int] = []
            reach: list[float] = []
            for k, (t, actions) in enumerate(by.items()):
                for action, ix in actions.items():
                    entries += ix
                    of += [k] * len(ix)
                    reach += [self._reach(u, t, action)] * len(ix)
            self._aim_reach[key] = (
                (list(by), np.asarray(entries, dtype=np.int64), np.asarray(of, dtype=np.int64), np.asarray(reach))
                if by
                else None
            )
        return self._aim_reach[key]

    def _reach_span(self, u: int, phase: str) -> tuple[np.ndarray, np.ndarray]:
        """Per target of :meth:`_aimed_reach`: the least and the most reach of its entries, read once. A gap at most
        the least is within each of them, one beyond the most beyond each: :meth:`shortcuts_many` tells them apart
        by no more (:meth:`Centres.least_many <mathhammer.scenario.fastnear.Centres.least_many>`' ``floor`` and
        ``ceil``)."""
        key = (u, phase)
        hit = self._spans.get(key)
        if hit is None:
            aim = self._aimed_reach(u, phase)
            assert aim is not None
            least, most = np.full(len(aim[0]), np.inf), np.full(len(aim[0]), -np.inf)
            np.minimum.at(least, aim[2], aim[3])
            np.maximum.at(most, aim[2], aim[3])
            hit = self._spans[key] = (least, most)
        return hit

    def _beyond(self, u: int, phase: str, pids: np.ndarray) -> np.ndarray:
        """Per placement of ``pids`` (rows) and entry of unit ``u``'s ``phase`` menu (columns): a point farther than the
        most Speed the entry's activation can have (:meth:`_entry_speeds`, with or without ON CREEP) in a straight line
        from its Leading Model on that placement. A shortcut, not a rule: the path is at least the straight line, so
        the check refuses such a point without reading the board. Read for every row at once."""
        return self.view.world.beyond_many(pids, self._points(u, phase), self._entry_speeds(u, phase), EPS)

    def _entry_speeds(self, u: int, phase: str) -> np.ndarray:
        """Per entry of unit ``u``'s ``phase`` menu: the most Speed its walk can read (8.5.3), read once. A plain Move
        or Run (:meth:`MoveVerdicts.plain <.moveverdicts.MoveVerdicts.plain>`: no ability used, and each walk starts
        with none used, ``_CheckAt.problems_of``): the larger of its Speeds there (off Creep, ON CREEP); any other
        entry: the most of the unit's (:meth:`_bounds`, every ability its menus use)."""
        key = (u, phase)
        hit = self._speed_caps.get(key)
        if hit is None:
            most = self._bounds(u)[0]
            caps = []
            for i in range(len(self.menus[self.view.uids[u]][phase])):
                plain = self.moves.plain(u, phase, i)
                caps.append(max(plain[4]) if plain is not None and plain[1] is not None else most)
            hit = self._speed_caps[key] = np.asarray(caps, dtype=float)
        return hit

    def _points(self, u: int, phase: str) -> np.ndarray:
        """Per entry of unit ``u``'s ``phase`` menu: its point (inf, inf where it has none), read once."""
        key = (u, phase)
        hit = self._menu_points.get(key)
        if hit is None:
            entries = self.menus[self.view.uids[u]][phase]
            pts = [e.to if e.to is not None else (math.inf, math.inf) for e in entries]
            hit = self._menu_points[key] = np.asarray(pts, dtype=float).reshape(-1, 2)
        return hit

    def _bounds(self, u: int) -> tuple[float, float]:
        """The most Speed unit ``u`` can have in a menu's state, and the most it adds to a Charge (8.7.7): its loadout
        with every ability its menus use on (``Entry.use``: a BUFF Speed among them counts), ON CREEP or not
        (``_CheckAt._speed_now``'s sums)."""
        hit = self._most.get(u)
        if hit is None:
            uid = self.view.uids[u]
            su = self.view.scn.units[uid]
            names = sorted({a for entries in self.menus[uid].phases.values() for e in entries for a in e.use})
            speed = more = 0.0
            for creep in (False, True):
                effects = loadout_with(self.view.scn, uid, names, on_creep=creep).effects()
                speed = max(speed, speed_of(su, effects))
                more = max(more, sum(e.value for e in effects if e.kind == "charge_roll"))
            hit = self._most[u] = (speed, more)
        return hit

    def _reach(self, u: int, t: int, action: str) -> float:
        """The farthest gap (base edge to base edge, inches) at which unit ``u``'s ``action`` at unit ``t`` may be
        legal. A Shoot (8.7.3 step 1): a model contributes only with a target model Within its weapon's Range or LONG
        RANGE, so the longest of the Batches ``scenario check`` reads (no ability used; INDIRECT FIRE ignores Line of
        Sight, not Range). A Charge (8.7.7): the path (the Leading Model's centre, to a point Within 1" of a target
        model) is at least the gap less 1", at most Speed + 6 + its additions."""
        key = (u, t, action)
        hit = self._reaches.get(key)
        if hit is None:
            view = self.view
            if action == "charge":
                speed, more = self._bounds(u)
                hit = speed + 6 + more + ENGAGEMENT_RANGE + EPS
            else:
                lo = bare_loadout(view.scn, view.uids[u], False)  # no ability used (the walk's, read once)
                hit = 0.0
                for b in attack_batches(lo, view.units[t].unit, "assault"):
                    w = b.weapon
                    lr = find(w.keywords, "LONG RANGE")
                    far = math.inf if w.range is None else max(float(w.range), float(lr.value or 0) if lr else 0.0)
                    hit = max(hit, far + EPS)
            self._reaches[key] = hit
        return hit

    def why(self, u: int, phase: str, game: int, index: int) -> list[str]:
        """The plan check's reasons for refusing entry ``index`` of unit ``u``'s ``phase`` menu in game ``game`` (an
        empty list where it finds none: the refusal, if any, is a per-game one, :meth:`mask`)."""
        view = self.view
        menu = self.menus[view.uids[u]]
        act = menu[phase][index].activation(menu.unit, menu.player, view.round, phase)
        gone = int(view.grass.gone[game]) if view.grass.gone.size else 0
        return self.check.problems_of(act, view.pos[:, game].tolist(), view.alive[:, game].tolist(), gone)


__all__ = ["Legality"]
