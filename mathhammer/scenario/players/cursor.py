"""The Phase walk held as per-game cursor arrays (issue 29 point 6, step 1 of ``docs/dev/compiled-game-loop.md``).

:func:`~mathhammer.scenario.players.play_turns` walks a Phase (8.2.1) as a tree of nodes, each a group of games with
its turn, players' states, done flags and first to Pass, joined again per level by a dict. Here the same walk is held
per game in a :class:`Cursor` (int arrays over the games: whose turn, each player's done flag and state, the first to
Pass, the games whose walk is over), and :func:`walk` drives it: at each step the games are first offered to
:func:`steps` (the compiled step kernel of step 2 and later: today it steps none), then the games it could not step
(the escapes: all of them today) are grouped by their cursor, the player whose turn it is asked once per group
(``Player.next``) and its answers applied as :func:`~mathhammer.scenario.players.play_turns` applies them (the
activation with the Reactions declared to it, or the Pass), and the cursors moved on.

A player's state is held as an int: an int state as itself (an automatic player's slot count ``k``: the number of
activations it made in the Phase, which keys its draws and dice), any other (a scripted player's
:class:`~.scripted.Planned`) as a negative code naming the object, and games join where their cursors are equal (equal
numbers, or the same object), whatever group they started in: unlike play_turns, which walks each start group (First
Player, units ``left``) apart, the cursor joins games of different start groups once their cursors meet. That is sound
because a state holds everything ``next`` reads apart from the games' own state (the rule :meth:`Player.begin
<mathhammer.scenario.players.Player.begin>` states: an int state in particular, ``left`` included where ``next``
reads it), and each game's answers depend on that game alone, so the games are the same however they are grouped (a
test plays both walks and compares every game's activations in order).

Counts (for steps 2 to 7: how many steps of each kind a game takes): where :data:`counts` is a dict (the environment
variable ``MATHHAMMER_STEP_COUNTS=1`` turns it on at the first Phase walked, :func:`switches`, and the counts are
written as one JSON line to stderr at exit; forked workers return theirs with their games, added to the parent's:
:func:`taken`, :func:`add`), each applied step adds its games under its kind: the action (``hold``,
``deploy``, ``move``, ``run``, ``shoot``, ``charge``, ``gather``, ...), ``pass``, ``abilities`` (an activation that
uses one), ``reactions`` (an activation a Reaction was declared to), ``fight`` (the Combat Phase's fights, counted by
``Simulation.combat_phase``), and ``calls`` (player decisions asked, one per group), ``escapes`` (games stepped by the
escape path) and ``kernel`` (games stepped by :func:`steps`).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...errors import InputError
from ..spec import Activation
from . import Player, Turn, apply_turn

#: the step counts by kind, or None (off; see the module text)
counts: dict[str, int] | None = None


def count(kind: str, games: int) -> None:
    """Add ``games`` games to the step count of ``kind`` (where counting is on)."""
    if counts is not None and games:
        counts[kind] = counts.get(kind, 0) + games


def taken() -> dict[str, int] | None:
    """The counts so far (None: counting is off), counting afresh from here: a forked worker takes the counts it
    inherited before its block and its block's after, returned with its games
    (:func:`~mathhammer.scenario.parallel.play` adds them to this process's with :func:`add`)."""
    if counts is None:
        return None
    got = dict(counts)
    counts.clear()
    return got


def add(part: dict[str, int] | None) -> None:
    """Add a worker's counts ``part`` (:func:`taken`) to this process's (where counting is on)."""
    for kind, games in (part or {}).items():
        count(kind, games)


def _write_counts() -> None:  # pragma: no cover (at exit, under the environment switch)
    if counts:
        sys.stderr.write(json.dumps({"step_counts": dict(sorted(counts.items()))}) + "\n")


def switches(scripted: bool) -> bool:
    """Read the environment's switches and say whether a Phase is walked by the nodes
    (:func:`~mathhammer.scenario.players.play_turns`) rather than by :func:`walk`: ``MATHHAMMER_WALK`` unset (or
    empty) chooses the nodes where both players are ``scripted`` (their games never split: the nodes walk them as one
    group, no per-game work; :func:`walk` cost 1.2-1.4x the CPU of the shipped scenarios at 200,000 games), the
    cursor's walk otherwise; ``turns`` the nodes always (the reference, for the tests and for bisecting), ``cursor``
    the cursor's always. ``MATHHAMMER_STEP_COUNTS``: ``1`` turns the counts on (written at exit), ``0`` or unset leaves
    them as they are. Another value of either is refused."""
    global counts
    on = os.environ.get("MATHHAMMER_STEP_COUNTS", "")
    if on not in ("", "0", "1"):
        raise InputError("MATHHAMMER_STEP_COUNTS", on, "1 (count the steps, written to stderr at exit) or 0")
    if on == "1" and counts is None:
        counts = {}
        atexit.register(_write_counts)
    how = os.environ.get("MATHHAMMER_WALK", "")
    if how not in ("", "cursor", "turns"):
        raise InputError("MATHHAMMER_WALK", how, "turns (play_turns' walk, the reference) or cursor (per-game cursors)")
    return how == "turns" or (how == "" and scripted)


class Cursor:
    """The walk of one Phase in the games ``games`` (sorted game numbers; position ``i`` of every array is game
    ``games[i]``): ``turn`` whose turn it is (0 red, 1 blue), ``done[p]`` player ``p`` has Passed, ``state[p]`` player
    ``p``'s state (an int state as itself, another as a negative code: :meth:`code`), ``passer`` the first to Pass
    (-1: nobody yet), ``over`` the game's walk is over (both have Passed)."""

    def __init__(self, games: np.ndarray, turn: np.ndarray, state: np.ndarray) -> None:
        n = games.size
        self.games = games
        self.turn = turn
        self.state = state
        self.done = np.zeros((2, n), dtype=bool)
        self.passer = np.full(n, -1, dtype=np.int64)
        self.over = np.zeros(n, dtype=bool)
        self._objects: list[list[Any]] = [[], []]
        self._codes: list[dict[int, int]] = [{}, {}]

    @classmethod
    def start(
        cls, players: Sequence[Player], rnd: int, phase: str, starts: Sequence[tuple[np.ndarray, int, set[int] | None]]
    ) -> Cursor:
        """The cursor at the start of the Phase for groups ``starts`` of (games, First Player, units ``left``): each
        player's :meth:`Player.begin` once per group, as :func:`play_turns` calls it."""
        games = np.concatenate([g for g, _, _ in starts]).astype(np.int64)
        turn = np.concatenate([np.full(g.size, f, dtype=np.int64) for g, f, _ in starts])
        cur = cls(games, turn, np.zeros((2, games.size), dtype=np.int64))
        at = 0
        for g, _, left in starts:
            for p, player in enumerate(players):
                cur.state[p, at : at + g.size] = cur.code(p, player.begin(rnd, phase, left))
            at += g.size
        order = np.argsort(games, kind="stable")
        cur.games, cur.turn, cur.state = games[order], turn[order], cur.state[:, order]
        return cur

    def code(self, p: int, state: Any) -> int:
        """Player ``p``'s state ``state`` as an int: a non-negative int as itself, another as a negative code (the same
        object, the same code)."""
        if type(state) is int and state >= 0:
            return state
        got = self._codes[p].get(id(state))
        if got is None:
            self._objects[p].append(state)  # held: its id stays its own while the cursor lives
            got = self._codes[p][id(state)] = -len(self._objects[p])
        return got

    def value(self, p: int, code: int) -> Any:
        """Player ``p``'s state of code ``code`` (:meth:`code`)."""
        return code if code >= 0 else self._objects[p][-code - 1]

    def settle(self) -> np.ndarray:
        """Where the player whose turn it is has Passed and the other has not, the turn goes to the other; where both
        have, the walk is over. Returns the positions still walking."""
        live = np.flatnonzero(~self.over)
        done = self.done[:, live]
        both = done[0] & done[1]
        flip = done[self.turn[live], np.arange(live.size)] & ~both
        self.turn[live[flip]] ^= 1
        self.over[live[both]] = True
        return live[~both]

    def groups(self, at: np.ndarray) -> list[np.ndarray]:
        """The positions ``at`` split by their cursor (turn, done, first to Pass, both states), each part in
        increasing order, the parts in the order of their cursors (none where ``at`` is empty)."""
        if at.size < 2:
            return [at] if at.size else []
        key = ((self.turn[at] * 2 + self.done[0, at]) * 2 + self.done[1, at]) * 3 + self.passer[at] + 1
        cols = np.vstack([key, self.state[:, at]])
        if bool((cols == cols[:, :1]).all()):
            return [at]
        order = np.lexsort(cols[::-1])  # by key, then state 0, then state 1; stable: each part keeps at's order
        ranked = cols[:, order]
        cuts = np.flatnonzero((ranked[:, 1:] != ranked[:, :-1]).any(axis=0)) + 1
        return np.split(at[order], cuts)


def steps(cursor: Cursor, at: np.ndarray) -> np.ndarray:
    """Take what steps a compiled kernel can for the games at positions ``at`` of ``cursor`` (step 2 and later of the
    plan: moving their cursors and the Simulation's arrays); returns the positions it could not step, for the escape
    path. Today it takes none."""
    return at


def walk(
    players: Sequence[Player],
    rnd: int,
    phase: str,
    starts: Sequence[tuple[np.ndarray, int, set[int] | None]],
    activate: Callable[[Activation, np.ndarray], None],
) -> tuple[np.ndarray, np.ndarray]:
    """Walk Phase ``phase`` of Round ``rnd`` in the games of ``starts`` (groups of games, First Player, units left) as
    :func:`~mathhammer.scenario.players.play_turns` does, from per-game cursors (the module text); returns the games
    (sorted) and, per game, the player who Passed first (-1: nobody did)."""
    cur = Cursor.start(players, rnd, phase, starts)
    while True:
        live = cur.settle()
        if live.size == 0:
            break
        escapes = steps(cur, live)
        count("kernel", live.size - escapes.size)
        count("escapes", escapes.size)
        for at in cur.groups(escapes):
            first = at[0]
            turn = int(cur.turn[first])
            games = cur.games[at]
            count("calls", 1)
            for part in players[turn].next(games, cur.value(turn, int(cur.state[turn, first]))):
                if part.games.size == 0:
                    continue
                where = at[np.searchsorted(games, part.games)]
                _step(cur, part, turn, where, activate, players)
    return cur.games, cur.passer


def _step(
    cur: Cursor,
    part: Turn,
    turn: int,
    where: np.ndarray,
    activate: Callable[[Activation, np.ndarray], None],
    players: Sequence[Player],
) -> None:
    """Apply player ``turn``'s answer ``part`` in the games at positions ``where`` and move their cursors on."""
    if part.act is None:
        count("pass", where.size)
        cur.done[turn, where] = True
        cur.passer[where] = np.where(cur.passer[where] < 0, turn, cur.passer[where])
    else:
        if counts is not None:
            count(part.act.action, where.size)
            count("abilities", where.size if part.act.use else 0)
            apply_turn(part, turn, _counting(part.act, activate), players)
        else:
            apply_turn(part, turn, activate, players)
    cur.state[turn, where] = cur.code(turn, part.state)
    if not part.again:
        cur.turn[where] = 1 - turn


def _counting(
    act: Activation, activate: Callable[[Activation, np.ndarray], None]
) -> Callable[[Activation, np.ndarray], None]:
    """``activate`` counting the games where the activation applied carries a Reaction ``act`` did not."""

    def counted(applied: Activation, games: np.ndarray) -> None:
        if applied.react != act.react:
            count("reactions", games.size)
        activate(applied, games)

    return counted


__all__ = ["Cursor", "add", "count", "counts", "steps", "switches", "taken", "walk"]
