"""Round 1's First Player with automatic players (8.2.2 "The winner of the Roll-Off chooses who takes the First
Player Marker"; 8.2.1 "players alternate activating units, starting with the player holding the First Player
Marker") and ``first_player = "alternate"``: Round 1's First Player by game number (even red, odd blue), half the
games each way, for a mirror match's test (issue 29 point 5).

Why a swap of Round 1's First Player may change no game (the note of benchmarks/RESULTS.md, session 6): an automatic
activation's dice and draws are keyed by its slot (the player and its count in the Phase, ``players/auto.py``), not by
its place in the Phase, and 8.9.6 gives Round 2's Marker by VP or a Roll-Off of its own stream; where no choice of
Round 1 reads the other side's units (both deploy out of reach), the same games follow. The tests below hold that the
Marker does reach the walk: who activates first, and a game where the order is seen by the choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.scenario import simulate
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario
from tests.autoplay_kit import data


def scenario(folder: Path, first: str, length: int = 1, **kw: Any) -> Scenario:
    d = data(folder, length=length, **kw)
    d["first_player"] = first
    return parse_scenario(d, "first.toml", folder)


def first_movers(scn: Scenario, games: int, seed: int, offset: int = 0) -> tuple[np.ndarray, list[Activation]]:
    """Per game, the player (0 red, 1 blue) of the first activation of Round 1's Movement Phase; and every
    activation of that Phase in game 0, in order."""
    sim = Simulation(scn, games, seed, offset=offset)
    apply = sim.activate
    who = np.full(games, -1, dtype=np.int64)
    order: list[Activation] = []

    def spy(act: Activation, trials: np.ndarray) -> None:
        if sim.round == 1 and act.phase == "movement":
            fresh = trials[who[trials] < 0]
            who[fresh] = PLAYERS.index(act.player)
            if 0 in trials:
                order.append(act)
        apply(act, trials)

    sim.activate = spy  # type: ignore[method-assign]
    sim.run()
    return who, order


@pytest.mark.parametrize("first", ["red", "blue"])
def test_the_first_player_activates_first_in_round_one(tmp_path: Path, first: str) -> None:
    """8.2.2 / 8.2.1 with two automatic players: the player named First Player makes Round 1's first activation in
    every game, and the two players alternate from it."""
    who, order = first_movers(scenario(tmp_path, first), 6, 5)
    assert (who == PLAYERS.index(first)).all(), who
    assert [a.player for a in order[:4]] == [first, *(p for p in PLAYERS if p != first)] * 2


def test_a_roll_off_gives_round_one_to_either_player(tmp_path: Path) -> None:
    """8.2.2 ``first_player = "roll-off"`` (``[policy] roll_off = "random"``): 40 games, each player first in some."""
    who, _ = first_movers(scenario(tmp_path, "roll-off"), 40, 6)
    assert 0 < who.sum() < 40, who


def test_alternate_gives_even_games_to_red_and_odd_games_to_blue(tmp_path: Path) -> None:
    """``first_player = "alternate"``: game number g (its number, not its place in the run: ``--game N`` replays it)
    has red first when g is even, blue when odd."""
    scn = scenario(tmp_path, "alternate")
    who, _ = first_movers(scn, 6, 7)
    assert who.tolist() == [0, 1, 0, 1, 0, 1]
    alone, _ = first_movers(scn, 2, 7, offset=3)  # games 3 and 4
    assert alone.tolist() == [1, 0]


def test_the_first_player_is_seen_by_the_choices(tmp_path: Path) -> None:
    """Not a label only: with red scripted to deploy in Round 1 and blue automatic (objective), blue's Deploys see
    red's units when red goes first, and the games differ from those where blue goes first in some game (20 games of
    2 Rounds, the same seed)."""
    from tests.autoplay_kit import red_deploys

    vps = []
    for first in ("red", "blue"):
        d = red_deploys(tmp_path, length=2)
        d["first_player"] = first
        d["players"]["blue"]["policy"] = "objective"
        sim = Simulation(parse_scenario(d, "first.toml", tmp_path), 20, 8)
        sim.run()
        vps.append(np.stack([sim.pos, sim.alive]).copy())
    assert not np.array_equal(vps[0], vps[1])


def test_alternate_needs_an_even_number_of_games(tmp_path: Path) -> None:
    """Half the games each way: an odd ``--trials`` is refused in one line naming it, before any game; one chosen game
    (``--game N``) is allowed (its number decides)."""
    scn = scenario(tmp_path, "alternate")
    with pytest.raises(InputError) as err:
        simulate(scn, trials=3, seed=1, workers=1)
    assert str(err.value).startswith("--trials: got '3'; allowed: an even number of games") and "\n" not in str(
        err.value
    )
    res = simulate(scn, trials=1, seed=1, workers=1, game=3)
    assert res.trials == 1
