"""An automatic player (issue 29): at its turn, in each game, one activation among the legal entries of its units'
menus, picked by a named policy (:mod:`.policies`); the games are split by the pick, one Turn per activation, and a
game where none of its units has a legal entry Passes (8.2.1 "A player must Pass if they have no eligible Units
left").

The units asked are those that may still activate in the Phase: not Destroyed, not activated in it (the engine's
``acted``) nor counted as Activated in it (its cards' state: Zealous Round's own Reaction, an enemy's Crushing Grip,
``Simulation.cards.counted_as_activated``), not a Structure (never Activated), on the table in the Assault Phase (a
unit in Reserves may only Deploy, in the Movement Phase); which of their entries are legal is
:class:`~.legal.Legality`'s answer per game state.

Dice and draws. An activation's dice come from its ordinal (``Simulation.ordinal``; a planned one's is its place in the
plan): an automatic activation's is its slot, :func:`slot` (the player, and how many activations that player made
before it in the Phase of that game), outside the plan's range. The policy's uniforms are the game's own, keyed by
(Round, Phase, slot, draw) under :data:`TAG`, so a game's choices depend on (seed, game number, Round, Phase, slot)
and its state only: the same games for any grouping and any number of workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..basics import draw_base
from ..basics import stream as _stream
from ..fastsim import _uniforms_rows_kernel
from ..spec import PHASES, PLAYERS, Activation
from . import Turn
from .legal import Legality, States
from .menu import UnitMenu
from .menucache import menus_for
from .policies import SHUFFLE, Decision, make_policy
from .reactions import Reactions, activated
from .spending import Spending

#: the first slot ordinal of the automatic activations (a plan's ordinals are its positions, far below)
SLOT_BASE = 1_000_000
#: the slots of one player in one Phase
SLOTS = 10_000
#: the first part of the key of a policy's draws (not a Round: no dice stream of the engine starts with it)
TAG = 29_000_029
#: the draw keys kept (:meth:`Auto.next`) past this many runs are dropped (memory flat in games)
BASES_LIMIT = 1 << 14
#: the activations kept (:meth:`Auto.activation`) past this many are dropped
ACTS_LIMIT = 1 << 14


def draw_bases(seed: int, streams: list[int]) -> np.ndarray:
    """The keys of the draws ``streams`` (:func:`~mathhammer.scenario.basics.draw_base`), for :func:`uniforms_at`."""
    return np.asarray([draw_base(seed, s) for s in streams], dtype=np.uint64)


def uniforms_at(bases: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """Row ``k``: the uniforms of the draw keyed ``bases[k]`` (:func:`draw_bases`) for game numbers ``trials`` (the
    engine's own uniform of each, :func:`~mathhammer.scenario.fastsim._uniform`, in one compiled pass)."""
    return _uniforms_rows_kernel(  # type: ignore[no-any-return]
        np.ascontiguousarray(bases, dtype=np.uint64), np.ascontiguousarray(trials, dtype=np.int64)
    )


def uniforms_of(seed: int, streams: list[int], trials: np.ndarray) -> np.ndarray:
    """:func:`~mathhammer.scenario.sim_state.uniforms` of several draws at once: row ``k`` the uniforms of draw
    ``streams[k]`` for game numbers ``trials`` (the same numbers: a test holds the two to each other)."""
    return uniforms_at(draw_bases(seed, streams), trials)


def slot(player: int, k: int) -> int:
    """The ordinal of the ``k``-th activation (0-based) of player ``player`` (0 red, 1 blue) in a Phase."""
    return SLOT_BASE + player * SLOTS + k


class EntryLegality(Legality):
    """:class:`~.legal.Legality` with what the game's Ready cards pay for: an entry with abilities in ``use`` is legal
    in a game only where :class:`~.spending.Spending` can pay for them there (10.2, 10.5; the plan check's answer per
    state reads every card Ready). ``mask`` and ``admits`` (one entry at a time) give the same answers column by
    column (a test holds the two to each other)."""

    spending: Spending | None = None

    def mask(self, u: int, phase: str, games: np.ndarray, states: States | None = None) -> np.ndarray:
        out = super().mask(u, phase, games, states)
        if self.spending is not None:
            for i, e in enumerate(self.menus[self.view.uids[u]][phase]):
                if e.use and out[:, i].any():
                    out[:, i] &= self.spending.affords(u, e.use, games)
        return out

    def _paid(self, u: int, phase: str) -> np.ndarray:
        return np.asarray([bool(e.use) for e in self.menus[self.view.uids[u]][phase]]) & (self.spending is not None)

    def game_reads(self, u: int, phase: str, index: int, games: np.ndarray) -> np.ndarray:
        out = super().game_reads(u, phase, index, games)
        e = self.menus[self.view.uids[u]][phase][index]
        if e.use and self.spending is not None and out.any():  # 10.2, 10.5: paid from this game's Ready cards
            out &= self.spending.affords(u, e.use, games)
        return out


class Auto:
    """The automatic player ``player`` of Simulation ``sim``, choosing by the policy named ``name`` (its state: how
    many activations it made in the Phase, the same in every game of a group)."""

    def __init__(self, sim: Any, player: str, name: str) -> None:
        self.sim = sim
        self.player = player
        self.pi = PLAYERS.index(player)
        self.policy = make_policy(name, f"players.{player}.policy")
        self.units = [u for u, su in enumerate(sim.units) if su.player == player and not sim.structure[u]]
        self._menus: dict[str, UnitMenu] | None = None
        self._legal: EntryLegality | None = None
        self._features: Any = None  # features.Features, built at the first decision that reads it
        self.rnd = 0
        self.phase = "movement"
        self._bases: dict[tuple[object, ...], np.ndarray] = {}  # draw_bases of a run of draws, by its key
        self._acts: dict[tuple[int, str, int, int, int], Activation] = {}  # :meth:`activation`'s, by its key
        self.spending = Spending(sim, player)  # the cards Exhausted this Round in each game (abilities used)
        # 10.4, to the opponent's activations; a Reaction that costs its unit's activation reads its menu's legality
        self.reactions = Reactions(sim, player, self.spending, self.features, self.entries)

    @property
    def legality(self) -> EntryLegality:
        """The menus and their legality, built at the first decision (the board's reads of every menu point)."""
        if self._legal is None:
            self._menus = menus_for(self.sim.scn, self.sim.world)  # kept by the scenario's content (menucache)
            self._legal = EntryLegality(self.sim, self._menus)
            self._legal.spending = self.spending
        return self._legal

    def features(self) -> Any:
        """The :class:`~.features.Features` of the player's decisions, built at the first that reads it."""
        if self._features is None:
            from .features import Features

            self.legality  # noqa: B018 (builds the menus)
            assert self._menus is not None
            self._features = Features(self.sim, self._menus)
        return self._features

    def entries(self, u: int, phase: str, games: np.ndarray) -> np.ndarray:
        """Games x entries of unit ``u``'s ``phase`` menu: legal there now (Pass never: :meth:`next`'s own mask)."""
        mask = self.legality.mask(u, phase, games)
        assert self._menus is not None
        mask[:, [e.action == "pass" for e in self._menus[self.sim.uids[u]][phase]]] = False
        return mask

    def react(self, games: np.ndarray, act: Activation) -> list[tuple[np.ndarray, Activation]]:
        """Activation ``act`` (the opponent's, or the player's own carrying the opponent's Reactions) is about to be
        applied in ``games``: the games split by the Reaction the player declares to it (10.4; :mod:`.reactions`),
        each with the activation carrying it."""
        return self.reactions.answer(np.asarray(games, dtype=np.int64), act, self.rnd, self.policy)

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
        self.rnd, self.phase = rnd, phase
        self.spending.begin(rnd)
        return 0

    def next(self, games: np.ndarray, state: int) -> list[Turn]:
        sim, phase, k = self.sim, self.phase, state
        games = np.asarray(games, dtype=np.int64)
        out: list[Turn] = []
        over = sim.over[games]
        if over.any():  # an ended game plays no more
            out.append(Turn(games[over], None, k))
            games = games[~over]
        if games.size == 0:
            return out or [Turn(games, None, k)]
        units = self.units
        idx = np.asarray(units, dtype=np.int64)
        # not activated, nor counted as Activated in this Phase (Zealous Round, Crushing Grip)
        free = sim.alive[idx][:, games] > 0
        for j, u in enumerate(units):
            free[j] &= ~activated(sim, u, games)
        if phase != "movement":
            free &= sim.pos[idx][:, games] >= 0
        leg = self.legality
        menus = self._menus
        assert menus is not None
        key = (TAG, self.rnd, PHASES.index(phase), slot(self.pi, k))
        table, sid = leg.states(games)  # no activation within a decision: the games' states stand

        def legal(j: int, rows: np.ndarray) -> np.ndarray:
            mask = leg.mask(units[j], phase, games[rows], (table, sid[rows]))
            mask[:, [e.action == "pass" for e in menus[sim.uids[units[j]]][phase]]] = False
            return mask

        def admits(j: int, e: int, rows: np.ndarray) -> np.ndarray:
            if menus[sim.uids[units[j]]][phase][e].action == "pass":
                return np.zeros(rows.size, dtype=bool)
            return leg.admits(units[j], phase, e, games[rows], (table, sid[rows]))

        blocks: dict[tuple[int, bytes], np.ndarray] = {}

        def run_of(i: int) -> tuple[int, int]:
            # a policy reads its draws in runs (one per unit, one per entry of a menu: policies.SHUFFLE): (first, size)
            lo, size = (1, len(units)) if i < SHUFFLE else ((i // SHUFFLE) * SHUFFLE, 0)
            if i >= SHUFFLE and i // SHUFFLE - 1 < len(units):
                size = len(menus[sim.uids[units[i // SHUFFLE - 1]]][phase])
            return lo, size

        def block(lo: int, size: int, rows: np.ndarray) -> np.ndarray:
            # the run's uniforms drawn at once, the same numbers as sim.draw's one by one
            run = (lo, rows.tobytes())
            got = blocks.get(run)
            if got is None:
                bases = self._bases.get((key, lo, size))
                if bases is None:
                    if len(self._bases) > BASES_LIMIT:
                        self._bases.clear()
                    bases = self._bases[(key, lo, size)] = draw_bases(
                        sim.seed, [_stream(*key, lo + k) for k in range(size)]
                    )
                got = blocks[run] = uniforms_at(bases, games[rows] + sim.offset)
            return got

        def draw(i: int, rows: np.ndarray) -> np.ndarray:
            lo, size = run_of(i)
            if not lo <= i < lo + size:
                return np.asarray(sim.draw(_stream(*key, i), games[rows]))
            return block(lo, size, rows)[i - lo]

        def draws(i: int, size: int, rows: np.ndarray) -> np.ndarray:
            lo, whole = run_of(i)
            if lo == i and whole == size:
                return block(lo, size, rows)
            return np.stack([draw(i + k, rows) for k in range(size)]) if size else np.zeros((0, rows.size))

        def open_(j: int, rows: np.ndarray) -> np.ndarray:
            mask = leg.open(units[j], phase, games[rows], (table, sid[rows]))
            mask[:, [e.action == "pass" for e in menus[sim.uids[units[j]]][phase]]] = False
            return mask

        def first(j: int, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
            return leg.first_drawn(units[j], phase, games[rows], (table, sid[rows]), keys)

        def features(j: int, rows: np.ndarray) -> np.ndarray:
            return self.features().rows(units[j], phase, games[rows])

        decision = Decision(
            games,
            units,
            free.T,
            legal,
            admits,
            lambda j: menus[sim.uids[units[j]]][phase],
            draw,
            features,
            draws=draws,
            open=open_,
            spare=lambda rows: self.spending.spare(games[rows]),
            first=first,
        )
        leg.moves.taking((games, table, sid))
        try:
            unit, entry = self.policy.choose(decision)
        finally:
            leg.moves.taking(None)
        none = unit < 0
        if none.any():
            out.append(Turn(games[none], None, k))
        picks = np.stack([unit, entry])[:, ~none]
        if picks.shape[1]:
            if picks.shape[1] == 1:  # one game (the common case once games part): no grouping to do
                pairs, inverse = picks, np.zeros(1, dtype=np.int64)
            else:
                # np.unique(picks, axis=1)'s pairs and order: (unit, entry) read as one number, entry < m
                m = int(picks[1].max()) + 1
                codes, inverse = np.unique(picks[0] * m + picks[1], return_inverse=True)
                pairs, inverse = np.stack([codes // m, codes % m]), inverse.reshape(-1)
            chosen = games[~none]
            for c in range(pairs.shape[1]):
                j, e = int(pairs[0, c]), int(pairs[1, c])
                act = self.activation(j, e, k)
                self.spending.pay(units[j], act.use, chosen[inverse == c])  # 10.5.1: Exhaust the cards
                out.append(Turn(chosen[inverse == c], act, k + 1))
        return out

    def activation(self, j: int, e: int, k: int) -> Activation:
        """The Activation of entry ``e`` of unit ``units[j]``'s menu as the player's ``k``-th of the Phase, its dice
        keyed by its slot."""
        key = (self.rnd, self.phase, self.units[j], e, k)
        act = self._acts.get(key)
        if act is None:  # kept: the same fields, the same Activation and ordinal (``sim.ordinal`` is never reset)
            sim = self.sim
            uid = sim.uids[self.units[j]]
            assert self._menus is not None
            entry = self._menus[uid][self.phase][e]
            # the slot names the activation (its dice's key), the unit and action what the skip report says of it
            where = f"r{self.rnd}.{self.player}.{self.phase}.auto[{k}] ({uid} {entry.action})"
            act = entry.activation(uid, self.player, self.rnd, self.phase, where=where)
            sim.ordinal[act] = slot(self.pi, k)
            if len(self._acts) >= ACTS_LIMIT:
                self._acts.clear()
            self._acts[key] = act
        return act


__all__ = ["SLOTS", "SLOT_BASE", "TAG", "Auto", "EntryLegality", "slot"]
