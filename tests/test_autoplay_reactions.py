"""Reactions (10.4) an automatic player declares to its opponent's activations (issue 29 point 2;
scenario/players/reactions.py, the hook in players.play_turns): legal per game (the trigger, Within, once per Round
per unit, paid from the game's Ready cards, 10.5.1), scored by the policy's weights over what the Reaction changes, a
uniform choice for ``random``, applied by the engine as a plan's ``react`` is, and written in traces that ``scenario
check`` accepts and ``scenario run --game N`` replays."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import Turn, play_turns
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.policies import Random
from mathhammer.scenario.players.trace import record
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import data, place, replays

#: the Leading Models of the hand-made state (the Frontier preset's free ground, tests/autoplay_kit.py lists): the
#: Marines, the Marauders 5" off them (Concusive Shells: Within 8"), the Zerglings at 10" (a Charge that reaches 5 in
#: 6 times, 3 in 6 with DEBUFF Speed (2)) or at 6" (it reaches with either), the Marauders far off (18")
MARINE, MARAUDER, FAR_OFF, LONG, SHORT = (6.0, 8.0), (11.0, 4.0), (30.0, 4.0), (6.0, 18.0), (6.0, 14.0)
SHELLS = Reaction("marauder-1", "Concusive Shells", "red")


def _sim(folder: Path, red: str, games: int) -> tuple[Simulation, Auto]:
    scn = parse_scenario(data(folder, red=red, blue="random"), "two.toml", folder)
    sim = Simulation(scn, games, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    auto.begin(2, "assault", None)
    sim.round = 2
    return sim, auto


def _charge(sim: Simulation, dice: int = 7) -> Activation:
    act = Activation("test", 2, "assault", "blue", "zergling-1", "charge", targets=("marine-1",))
    sim.ordinal[act] = dice
    return act


def _state(sim: Simulation, games: np.ndarray, marauder: tuple[float, float], zerglings: tuple[float, float]) -> None:
    m = place(sim, "marine-1", MARINE, games, ())
    r = place(sim, "marauder-1", marauder, games, (m,))
    place(sim, "zergling-1", zerglings, games, (m, r))


def test_concusive_shells_is_declared_where_it_pays_and_never_where_illegal_or_unpaid(tmp_path: Path) -> None:
    """10.4: a Zergling Charge at the Marines (8.7.7: Speed 4 + 1D6). ``cautious`` (threat -2, spend -0.05) declares
    Concusive Shells (1 CP; "When an Enemy declares a Charge against a Friendly Unit Within 8\\", that Enemy gains
    DEBUFF Speed (2)") where the Charge is long (it saves a third of the chance that the Zerglings' Close Combat attack
    happens); not where the Charge reaches either way (the price, nothing saved), not where the Marauders stand 18"
    off (no trigger), not where the game's Ready cards are Exhausted (10.5.1: unpaid), and a second time in the Round
    in no game (10.4: once per Round per unit); a new Round allows it again."""
    sim, auto = _sim(tmp_path, "cautious", 4)
    games = np.arange(4)
    _state(sim, games[[0, 2]], MARAUDER, LONG)
    _state(sim, games[[1]], FAR_OFF, LONG)
    _state(sim, games[[3]], MARAUDER, SHORT)
    auto.spending.out[2] = (1 << len(auto.spending.purse.names)) - 1  # every card Exhausted in game 2
    act = _charge(sim)
    parts = auto.react(games, act)
    said = {int(g): a.react for gs, a in parts for g in gs}
    assert said == {0: (SHELLS,), 1: (), 2: (), 3: ()}
    assert all(sim.ordinal[a] == sim.ordinal[act] for _, a in parts)  # the same dice as declared
    assert auto.spending.out[0] != 0 and auto.spending.out[[1, 3]].tolist() == [0, 0]  # game 0 paid its CP
    auto.spending.out[:] = 0
    assert {int(g): a.react for gs, a in auto.react(games, act) for g in gs}[0] == ()  # once per Round
    auto.begin(3, "assault", None)
    assert {int(g): a.react for gs, a in auto.react(games, act) for g in gs}[0] == (SHELLS,)  # a new Round


def test_the_score_is_the_supply_the_debuff_saves_less_its_price(tmp_path: Path) -> None:
    """The row of Concusive Shells: ``threat`` = -(P(reach) - P(reach with DEBUFF Speed (2))) x the expected share of
    the Marines the Zerglings' Close Combat attack removes x the Marines' Supply (the exact engine, Features.attack),
    ``spend`` 1 (1 CP); against the listing of the rolls: 5 in 6 against 3 in 6 at 10", 1 against 1 at 6"."""
    sim, auto = _sim(tmp_path, "cautious", 2)
    _state(sim, np.array([0]), MARAUDER, LONG)
    _state(sim, np.array([1]), MARAUDER, SHORT)
    feats = auto.features()
    z, m = sim.uids.index("zergling-1"), sim.uids.index("marine-1")
    share = feats.attack(z, 12, m, 6, 0, 0, "combat")[2]
    worth = float(sim.supply(m, np.asarray([6]))[0])
    states, inv = feats.states(np.arange(2))
    o = auto.reactions.options[0]
    act = _charge(sim)
    long, short = (auto.reactions._row(o, act, states[inv[g]]) for g in (0, 1))
    assert long[COL["threat"]] == pytest.approx(-(5 / 6 - 3 / 6) * share * worth)
    assert short[COL["threat"]] == pytest.approx(0.0)
    assert long[COL["spend"]] == short[COL["spend"]] == 1.0
    assert share > 0.3  # twelve Zerglings in Close Combat: worth saving


@pytest.mark.parametrize("policy", ["objective", "aggressive", "cautious"])
def test_a_weighted_policy_declares_exactly_where_its_score_is_above_zero(tmp_path: Path, policy: str) -> None:
    """Not reacting scores 0: each built-in policy declares Concusive Shells at the long Charge exactly where its
    weights make the row's score positive (objective: 0.25 x 0.23 > 0.05; aggressive: 0.05 x 0.23 < 0.05)."""
    sim, auto = _sim(tmp_path, policy, 1)
    _state(sim, np.array([0]), MARAUDER, LONG)
    act = _charge(sim)
    states, _ = auto.features().states(np.array([0]))
    score = float(auto.reactions._row(auto.reactions.options[0], act, states[0]) @ auto.policy.w)  # type: ignore[attr-defined]
    ((_, answered),) = auto.react(np.array([0]), act)
    assert bool(answered.react) == (score > 0), score
    assert {"objective": True, "aggressive": False, "cautious": True}[policy] == (score > 0)


def test_random_declares_a_legal_reaction_half_the_time(tmp_path: Path) -> None:
    """``random``: uniformly among not reacting and the one legal Reaction, by the game's own draw: in 2,000 games of
    the same state about half (within 5 SE), and the same games whatever the grouping (game by game)."""
    n = 2000
    sim, auto = _sim(tmp_path, "random", n)
    games = np.arange(n)
    _state(sim, games, MARAUDER, LONG)
    act = _charge(sim)
    said = np.zeros(n, dtype=bool)
    for gs, a in auto.react(games, act):
        said[gs] = bool(a.react)
    se = math.sqrt(0.25 / n)
    assert abs(said.mean() - 0.5) <= 5 * se, said.mean()
    auto.reactions.taken[:] = False
    auto.spending.out[:] = 0
    for g in range(0, n, 97):  # one game at a time: the same answer
        ((_, a),) = auto.react(np.array([g]), act)
        assert bool(a.react) == said[g]
    assert Random.react(lambda: np.zeros((3, 2, 1)), np.zeros((3, 2), dtype=bool), np.full(3, 0.9)).tolist() == [-1] * 3


def test_the_walk_asks_the_other_player_and_applies_the_reaction(tmp_path: Path) -> None:
    """play_turns: a scripted (or automatic) activation is answered by the automatic opponent before it is applied;
    the engine applies Concusive Shells (the Zerglings' DEBUFF Speed: no skip report of a Reaction not triggered)."""
    sim, auto = _sim(tmp_path, "cautious", 2)
    games = np.arange(2)
    _state(sim, games, MARAUDER, LONG)
    act = _charge(sim)

    class Blue:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            return [Turn(games, act if state == 0 else None, state + 1)]

    class Idle:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            return [Turn(games, None, state)]

        react = auto.react

    applied: list[tuple[Activation, list[int]]] = []

    def activate(a: Activation, gs: np.ndarray) -> None:
        applied.append((a, gs.tolist()))
        sim.activate(a, gs)

    play_turns([Idle(), Blue()], 2, "assault", 1, None, games, activate)
    assert [(a.react, gs) for a, gs in applied] == [((SHELLS,), [0, 1])]
    assert not [k for k in sim.skipped if "not triggered" in k]


def test_a_trace_with_a_reaction_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where the automatic player declared a Reaction (``random`` red, ``aggressive`` blue: the Zerglings and
    Roaches charge), recorded alone: its trace holds the ``react`` entry, ``scenario check`` accepts it, and the trace
    replays to the same game for the same seed and game number."""
    table = data(tmp_path, red="random", blue="aggressive", length=3)
    scn = parse_scenario(table, "two.toml", tmp_path)
    seed, found, world = 5, None, None
    for g in range(40):  # on the first game's World: the menus built once (the same games)
        sim = Simulation(scn, 1, seed, offset=g, world=world)
        world = sim.world
        played = record(sim)
        if any(s.act.react and not s.void for s in played.steps):
            found = g, played
            break
    assert found is not None, "no game of 40 declared a Reaction"
    g, played = found
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(a.react for a in trace.plan)
