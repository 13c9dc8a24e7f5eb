"""The turn walk between players (8.2.1), :func:`mathhammer.scenario.players.play_turns`.

8.2.1: "Players alternate activating units, starting with the player holding the First Player Marker"; "A player
must Pass if they have no eligible Units left"; 8.4.2 / 8.6.2: the first player to Pass takes the First Player
Marker. The scripted player's order is also held by tests/test_scenario*.py (``sim.order``); here the walk itself,
with players that answer differently in different games (what an automatic player does, issue 29).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mathhammer.scenario.players import Turn, play_turns
from mathhammer.scenario.spec import Activation


def act(unit: str) -> Activation:
    return Activation(where=unit, round=1, phase="movement", player="red", unit=unit, action="move", to=(0.0, 0.0))


@dataclass
class Listed:
    """Activates its units in order, then Passes."""

    units: list[str]

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
        return 0

    def next(self, games: np.ndarray, state: int) -> list[Turn]:
        if state >= len(self.units):
            return [Turn(games, None, state)]
        return [Turn(games, act(self.units[state]), state + 1)]


class EvenOdd:
    """In even games activates "e1" then Passes; in odd games Passes at once (``odd``: none): the games split at its
    first turn."""

    odd: str | None = None

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
        return 0

    def next(self, games: np.ndarray, state: int) -> list[Turn]:
        if state == 1:
            return [Turn(games, None, 1)]
        even, odd = games[games % 2 == 0], games[games % 2 == 1]
        return [Turn(even, act("e1"), 1), Turn(odd, None if self.odd is None else act(self.odd), 1)]


def walk(players, first, games):
    calls: list[tuple[str, list[int]]] = []
    parts = play_turns(players, 1, "movement", first, None, games, lambda a, g: calls.append((a.unit, g.tolist())))
    return calls, [(g.tolist(), p) for g, p in parts]


def test_players_alternate_from_the_first_player_and_the_first_to_run_out_passes() -> None:
    """8.2.1: alternate from the First Player; the one who runs out first Passes (is named), the other goes on."""
    games = np.arange(3)
    calls, parts = walk([Listed(["r1", "r2"]), Listed(["b1", "b2", "b3"])], 1, games)
    assert [u for u, _ in calls] == ["b1", "r1", "b2", "r2", "b3"]
    assert parts == [([0, 1, 2], 0)]  # red ran out first (after r2, at its turn following b3)
    calls, parts = walk([Listed(["r1", "r2", "r3"]), Listed(["b1"])], 0, games)
    assert [u for u, _ in calls] == ["r1", "b1", "r2", "r3"]
    assert parts == [([0, 1, 2], 1)]


def test_a_player_with_nothing_to_activate_passes_at_once() -> None:
    calls, parts = walk([Listed([]), Listed(["b1"])], 0, np.arange(2))
    assert [u for u, _ in calls] == ["b1"]
    assert parts == [([0, 1], 0)]


def per_game(calls: list[tuple[str, list[int]]], games: np.ndarray) -> dict[int, list[str]]:
    """Each game's activations in the order they were applied to it (the walk may interleave different games')."""
    return {g: [u for u, gs in calls if g in gs] for g in games.tolist()}


def test_games_split_by_a_players_answer_go_on_each_alone() -> None:
    """A player answering differently per game (issue 29's automatic players): each part of the games walks on with
    its own turn state, and the first to Pass is named per part."""
    games = np.arange(5)
    calls, parts = walk([EvenOdd(), Listed(["b1", "b2"])], 0, games)
    # even games: e1, b1, (red passes), b2 -> red passed first; odd games: (red passes), b1, b2 -> red passed first
    assert per_game(calls, games) == {0: ["e1", "b1", "b2"], 1: ["b1", "b2"], 2: ["e1", "b1", "b2"], 3: ["b1", "b2"],
                                      4: ["e1", "b1", "b2"]}  # fmt: skip
    assert sorted(parts) == [([0, 2, 4], 0), ([1, 3], 0)]
    # blue first: b1 in every game; then in even games red activates e1 and blue, out of activations, Passes first;
    # in odd games red Passes first
    calls, parts = walk([EvenOdd(), Listed(["b1"])], 1, games)
    assert calls[0] == ("b1", [0, 1, 2, 3, 4])
    assert per_game(calls, games) == {0: ["b1", "e1"], 1: ["b1"], 2: ["b1", "e1"], 3: ["b1"], 4: ["b1", "e1"]}
    assert sorted(parts) == [([0, 2, 4], 1), ([1, 3], 0)]


class EvenOddBoth(EvenOdd):
    """Activates "e1" in even games and "o1" in odd ones (its count 1 in both), then Passes."""

    odd = "o1"


def test_parts_at_the_same_point_are_joined_again() -> None:
    """Games split by a player's answers stand at the same point after it (the same turn, the same players' states):
    the opponent answers once for all of them (a decision per step, not per game), and each game plays as alone."""
    games = np.arange(5)
    calls, parts = walk([EvenOddBoth(), Listed(["b1", "b2"])], 0, games)
    assert ("b1", [0, 1, 2, 3, 4]) in calls and ("b2", [0, 1, 2, 3, 4]) in calls
    assert per_game(calls, games) == {g: ["e1" if g % 2 == 0 else "o1", "b1", "b2"] for g in range(5)}
    assert parts == [([0, 1, 2, 3, 4], 0)]


class Twice:
    """Activates "k1" with ``again`` (a card has the next unit Activate at once), then "k2", then Passes."""

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
        return 0

    def next(self, games: np.ndarray, state: int) -> list[Turn]:
        if state == 0:
            return [Turn(games, act("k1"), 1, again=True)]
        if state == 1:
            return [Turn(games, act("k2"), 2)]
        return [Turn(games, None, 2)]


def test_again_keeps_the_turn() -> None:
    """Bound by the Khala: "Immediately Activate that Unit": the same player activates next, before the opponent."""
    calls, _ = walk([Twice(), Listed(["b1", "b2"])], 0, np.arange(1))
    assert [u for u, _ in calls] == ["k1", "k2", "b1", "b2"]
