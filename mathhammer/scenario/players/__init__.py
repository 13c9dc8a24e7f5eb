"""Who decides a Phase's activations: the players (8.2.1), and the turn walk between them.

A player answers, for a group of games at its turn in a Round and Phase, which of its units activates next and
how (an :class:`~mathhammer.scenario.spec.Activation`), or that it Passes (``None``). It may answer differently
in different games of the group (an automatic player deciding from each game's state): it returns the games
split by its answer, and the walk goes on in each part on its own. :func:`play_turns` is the walk of 8.2.1:
"players alternate activating units, starting with the player holding the First Player Marker"; a player whose
activations are spent Passes, the other goes on alone, and the first to Pass is named (8.4.2 / 8.6.2: it takes
the First Player Marker). Where a player is automatic, ``Simulation.play_phase`` walks the same way from per-game
cursor arrays (:mod:`.cursor`, issue 29 point 6: the shape a compiled step kernel plugs into); :func:`play_turns`
walks two scripted players' games, stays the reference (``MATHHAMMER_WALK=turns``) and gives the plan's order
(``Simulation.order``).

Today's player is :class:`~mathhammer.scenario.players.scripted.Scripted`, the plan of the scenario file.
Automatic players are the work of issue 29 (``docs/dev/automatic-players.md``).

Reactions (10.4): once a player's activation is chosen and before it is applied, the other player, where it has a
``react(games, act)`` method (an automatic player, :mod:`.reactions`), is asked which Reactions it declares: it gives
the games split by its answer, each part with the activation carrying its Reaction (``react``), applied in turn (each
game in one part: the games are independent). The active player, where it has one, is asked next, on each part: a
Reaction to its own activation whose trigger is what the opponent's Reaction did (Restoration removing the DEBUFF
Concusive Shells gave). A scripted player has none: its Reactions are its plan's. The Combat Phase's fights are not
walked here (every Engaged unit fights, 8.8.1: ``Simulation.combat_phase``); the engine asks the opponent of each
fighting unit the same way (``Simulation.fight_answers``, the fight as :func:`fight_act` writes it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..spec import Activation


@dataclass(frozen=True)
class Turn:
    """A player's answer for the games ``games`` of a group: activate ``act`` (``None``: Pass), then its own
    ``state``; ``again``: the same player activates next (a card has a unit Activate right after this one)."""

    games: np.ndarray
    act: Activation | None
    state: Any  # the player's own (see Player.begin)
    again: bool = False


class Player(Protocol):
    """One side's decisions in a Phase (see the module text)."""

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> Any:
        """The player's state at the start of Phase ``phase`` of Round ``rnd`` for a group of games, where the units
        of index in ``left`` may still activate (``None``: every unit).

        The state must hold everything :meth:`next` reads apart from the games' own state (``left`` included, where
        ``next`` reads it): the cursor's walk (:mod:`.cursor`) joins games of different start groups (another First
        Player or ``left``) whose states are equal (an int state: the same number; another: the same object), and
        asks ``next`` once for them all."""
        ...

    def next(self, games: np.ndarray, state: Any) -> Sequence[Turn]:
        """Its turn in the games ``games``: the games split by its answer (each game in one part)."""
        ...


def play_turns(
    players: Sequence[Player],
    rnd: int,
    phase: str,
    first: int,
    left: set[int] | None,
    games: np.ndarray,
    activate: Callable[[Activation, np.ndarray], None],
) -> list[tuple[np.ndarray, int | None]]:
    """Walk Phase ``phase`` of Round ``rnd`` in ``games`` from player ``first`` (8.2.1), calling ``activate`` for each
    activation in turn; returns the games split by the player who Passed first (``None``: nobody did).

    The walk goes in lock step: one step is one answer of the player whose turn it is, in every group of games; the
    groups that a player's answers split are joined again where they stand at the same point of the Phase (the same
    turn, the same players' states, the same players done and the same first to Pass), so a player decides once per
    step for all the games there (:meth:`Player.next` on the whole group), not once per game. Each game's answers
    depend on that game alone, so joining changes no game (only the order in which different games' activations are
    applied, which touch different games)."""
    out: list[tuple[np.ndarray, int | None]] = []
    level: list[_Node] = [(games, first, [p.begin(rnd, phase, left) for p in players], (False, False), None)]
    while level:
        following: list[_Node] = []
        for games, turn, states, done, passer in _join(level):
            if done[turn] and not all(done):
                turn = 1 - turn
            if all(done):
                out.append((games, passer))
                continue
            for part in players[turn].next(games, states[turn]):
                st = list(states)
                st[turn] = part.state
                dn, ps = _after(part, turn, list(done), passer, activate, players)
                following.append((part.games, turn if part.again else 1 - turn, st, (dn[0], dn[1]), ps))
        level = following
    return out


#: a group of games at one point of a Phase's walk: (games, whose turn, the players' states, done, first to Pass)
_Node = tuple[np.ndarray, int, list[Any], tuple[bool, bool], int | None]


def _join(level: list[_Node]) -> list[_Node]:
    """The groups of ``level`` joined where they stand at the same point (:func:`play_turns`): the same turn, done and
    first to Pass, and players' states that are equal numbers (an automatic player's count) or the same object."""
    if len(level) < 2:
        return level
    groups: dict[tuple[object, ...], list[_Node]] = {}
    for node in level:
        _, turn, states, done, passer = node
        key = (turn, done, passer, *(s if isinstance(s, int) else ("id", id(s)) for s in states))
        groups.setdefault(key, []).append(node)
    out: list[_Node] = []
    for nodes in groups.values():
        if len(nodes) == 1:
            out.append(nodes[0])
        else:
            _, turn, states, done, passer = nodes[0]
            out.append((np.sort(np.concatenate([n[0] for n in nodes])), turn, states, done, passer))
    return out


def _after(
    part: Turn,
    turn: int,
    done: list[bool],
    passer: int | None,
    activate: Callable[[Activation, np.ndarray], None],
    players: Sequence[Player],
) -> tuple[list[bool], int | None]:
    """Apply one answer: the activation with the Reactions the other player declares to it, then those the active
    player declares to what they gave it (the module text), or the Pass (the first to Pass is named)."""
    if part.act is None:
        done[turn] = True
        if passer is None:
            passer = turn
        return done, passer
    apply_turn(part, turn, activate, players)
    return done, passer


def apply_turn(
    part: Turn, turn: int, activate: Callable[[Activation, np.ndarray], None], players: Sequence[Player]
) -> None:
    """Apply player ``turn``'s activation ``part.act`` in ``part.games``: the Reactions the other player declares to
    it, then those the active player declares to what they gave it (the module text), each part applied in turn."""
    assert part.act is not None
    theirs, mine = (getattr(players[i], "react", None) for i in (1 - turn, turn))
    if part.games.size == 0 or (theirs is None and mine is None):
        activate(part.act, part.games)
        return
    for games, act in theirs(part.games, part.act) if theirs is not None else [(part.games, part.act)]:
        for again, answered in mine(games, act) if mine is not None and games.size else [(games, act)]:
            activate(answered, again)


def fight_act(rnd: int, player: str, uid: str, foes: tuple[str, ...], planned: Activation | None) -> Activation:
    """The Combat Phase ``fight`` (8.8.1) of unit ``uid`` of ``player`` in Round ``rnd`` as an activation, as the
    opponent's Reactions are asked about it and a trace writes it: the plan's entry ``planned``, else one whose target
    is the one enemy unit it is Engaged with (``foes``; none where it is Engaged with more: the fight's split is the
    scenario's ``fight_split``, and a Reaction is asked about one target only)."""
    if planned is not None:
        return planned
    return Activation("combat", rnd, "combat", player, uid, "fight", targets=foes if len(foes) == 1 else ())


__all__ = ["Player", "Turn", "apply_turn", "fight_act", "play_turns"]
