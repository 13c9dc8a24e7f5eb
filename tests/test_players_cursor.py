"""The Phase walk from per-game cursor arrays (issue 29 point 6 step 1: ``scenario/players/cursor.py``) against the
nodes' walk it replaces in ``Simulation.play_phase``, :func:`mathhammer.scenario.players.play_turns` (kept: the
reference, and the plan check's order).

8.2.1: "Players alternate activating units, starting with the player holding the First Player Marker"; "A player
must Pass if they have no eligible Units left"; 8.4.2 / 8.6.2: the first player to Pass takes the First Player Marker;
10.4: Reactions are asked before the activation is applied. Both walks must give every game the same activations in
the same order and the same first to Pass: with players that answer per game (hypothesis), and in whole games of the
automatic players (random, objective, aggressive, cautious; a scripted player against one; Reactions lists).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import Turn, play_turns
from mathhammer.scenario.players import cursor as cursor_mod
from mathhammer.scenario.players.cursor import Cursor, steps, walk
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from mathhammer.scenario.tally import COUNTED
from tests import autoplay_kit as kit


def act(unit: str) -> Activation:
    return Activation(where=unit, round=1, phase="movement", player="red", unit=unit, action="move", to=(0.0, 0.0))


def mix(*xs: int) -> int:
    h = 1469598103934665603
    for x in xs:
        h = ((h ^ (x & 0xFFFFFFFF)) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h >> 17


@dataclasses.dataclass
class Hashed:
    """Answers per game from (seed, side, game, count): Pass, or one of three units, sometimes with ``again`` (the
    same player next, Bound by the Khala); ``boxed``: its state is an object (a new one per answer, as the scripted
    player's), not an int."""

    seed: int
    side: int
    cap: int
    boxed: bool = False
    react_too: bool = False
    #: the int state of the first answer (the count is the state less it)
    base: int = 0

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> Any:
        return [0] if self.boxed else self.base

    def next(self, games: np.ndarray, state: Any) -> list[Turn]:
        k = state[0] if self.boxed else state - self.base
        out: dict[tuple[int, bool], list[int]] = {}
        for g in games.tolist():
            h = mix(self.seed, self.side, g, k)
            pick = -1 if k >= self.cap or h % 5 == 0 else h % 3
            out.setdefault((pick, pick >= 0 and h % 7 == 0), []).append(g)
        nxt = [k + 1] if self.boxed else self.base + k + 1
        return [
            Turn(np.asarray(gs, dtype=np.int64), None if p < 0 else act(f"{'rb'[self.side]}{p}"), nxt, again=a)
            for (p, a), gs in out.items()
        ]

    def react(self, games: np.ndarray, a: Activation) -> list[tuple[np.ndarray, Activation]]:
        """Splits the games: where (seed, game, the activation) says so, the activation carries a mark."""
        if not self.react_too:
            return [(games, a)]
        marked = np.asarray([mix(self.seed, 99, g, len(a.where)) % 3 == 0 for g in games.tolist()], dtype=bool)
        return [(games[~marked], a), (games[marked], dataclasses.replace(a, where=a.where + "!"))]


def recorder(log: dict[int, list[str]]) -> Any:
    """An ``activate`` that appends each activation's name to the list of every game it is applied to."""

    def activate(a: Activation, gs: np.ndarray) -> None:
        for g in gs.tolist():
            log.setdefault(g, []).append(a.where)

    return activate


def both(players: list[Any], starts: list[tuple[np.ndarray, int, set[int] | None]]) -> tuple[Any, Any]:
    """Each game's activations in order and its first to Pass, by the nodes' walk (one per start) and the cursor's."""
    ref: dict[int, list[str]] = {}
    got: dict[int, list[str]] = {}
    ref_pass: dict[int, int] = {}
    for games, first, left in starts:
        for gs, p in play_turns(players, 1, "movement", first, left, games, recorder(ref)):
            ref_pass.update({g: -1 if p is None else p for g in gs.tolist()})
    games, passers = walk(players, 1, "movement", starts, recorder(got))
    return (ref, ref_pass), (got, dict(zip(games.tolist(), passers.tolist(), strict=True)))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 40),
    caps=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    boxed=st.tuples(st.booleans(), st.booleans()),
    react=st.tuples(st.booleans(), st.booleans()),
    cuts=st.lists(st.integers(1, 39), max_size=3),
)
def test_the_cursor_walk_gives_every_game_the_nodes_walk(seed, n, caps, boxed, react, cuts) -> None:
    """8.2.1 / 10.4: per game, the same activations (Reactions' marks included) in the same order and the same first to
    Pass; the games start in groups of different First Players (``play_phase``'s groups), walked together."""
    players = [Hashed(seed, p, caps[p], boxed[p], react[p]) for p in (0, 1)]
    games = np.random.default_rng(seed).permutation(3 * n)[:n]
    parts = np.split(games, sorted({c for c in cuts if c < n}))
    starts = [(np.sort(g), i % 2, None) for i, g in enumerate(parts)]
    ref, got = both(players, starts)
    assert got == ref
    assert set(got[1]) == set(games.tolist())


@pytest.mark.parametrize("base", [1 << 23, 1 << 40])
def test_states_far_from_zero_are_grouped_all_the_same(base: int) -> None:
    """``Cursor.groups`` compares the states whole (no packed key, no bound on their size): the same games."""
    for seed in range(20):
        players = [Hashed(seed, p, 5, base=base) for p in (0, 1)]
        ref, got = both(players, [(np.arange(12), seed % 2, None)])
        assert got == ref


def test_the_cursor_groups_games_where_their_cursors_are_equal() -> None:
    """The decision is asked once per group of equal cursors (a player's int state as itself, an object by identity):
    two groups that stand at the same point after a split are asked as one."""
    asked: list[list[int]] = []

    class Split:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            asked.append(games.tolist())
            if state >= 1:
                return [Turn(games, None, state)]
            return [Turn(games[games % 2 == 0], act("e"), 1), Turn(games[games % 2 == 1], act("o"), 1)]

    walk([Split(), Split()], 1, "movement", [(np.arange(4), 0, None)], lambda a, g: None)
    assert asked[:3] == [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]  # red splits; blue and red asked once each after
    cur = Cursor(np.arange(3), np.zeros(3, dtype=np.int64), np.zeros((2, 3), dtype=np.int64))
    box = object()
    assert cur.code(0, 4) == 4 and cur.code(0, box) == cur.code(0, box) == -1 and cur.code(0, object()) == -2
    assert cur.value(0, -1) is box and cur.value(0, 4) == 4
    at = np.arange(3)
    assert steps(cur, at) is at  # step 1: the kernel steps none, every game escapes


def test_no_games_left_to_the_escape_path_make_no_group() -> None:
    """Where :func:`steps` steps every game (step 2 and later), the escape path gets no position: no group (no
    player asked), and the walk still ends with every game's first to Pass (8.2.1)."""
    cur = Cursor(np.arange(3), np.zeros(3, dtype=np.int64), np.zeros((2, 3), dtype=np.int64))
    assert cur.groups(np.arange(0)) == []
    assert [g.tolist() for g in cur.groups(np.array([2]))] == [[2]]


def test_a_walk_whose_kernel_steps_every_game_asks_no_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``steps`` that steps every game (each player whose turn it is Passes): the walk asks no player and ends,
    the first to Pass the First Player of each game's start group."""

    def passes(cur: Cursor, at: np.ndarray) -> np.ndarray:
        turn = cur.turn[at]
        cur.done[turn, at] = True
        cur.passer[at] = np.where(cur.passer[at] < 0, turn, cur.passer[at])
        cur.turn[at] = 1 - turn
        return at[:0]

    class Never:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            raise AssertionError("asked, though the kernel stepped every game")

    monkeypatch.setattr(cursor_mod, "steps", passes)
    starts = [(np.array([0, 2]), 1, None), (np.array([1, 3]), 0, None)]
    games, passers = walk([Never(), Never()], 1, "movement", starts, lambda a, g: None)
    assert games.tolist() == [0, 1, 2, 3] and passers.tolist() == [1, 0, 1, 0]


def test_counts_are_off_by_default_and_count_steps_by_kind_when_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATHHAMMER_STEP_COUNTS", raising=False)
    monkeypatch.setattr(cursor_mod, "counts", None)
    cursor_mod.switches(False)
    walk([Hashed(1, 0, 2), Hashed(1, 1, 0)], 1, "movement", [(np.arange(5), 0, None)], lambda a, g: None)
    assert cursor_mod.counts is None  # off: nothing kept
    monkeypatch.setattr(cursor_mod, "counts", {})
    walk([Hashed(1, 0, 2), Hashed(1, 1, 0)], 1, "movement", [(np.arange(5), 0, None)], lambda a, g: None)
    counts = cursor_mod.counts
    assert counts is not None
    assert counts["pass"] == 10  # each player Passes once in each game
    assert counts.get("move", 0) == counts["escapes"] - counts["pass"]  # every other step activated (a Move)
    assert counts.get("kernel", 0) == 0


def activations(sim: Simulation) -> dict[int, list[tuple[object, ...]]]:
    """Run ``sim`` recording, per game, every activation applied to it (with its dice ordinal) in order."""
    seen: dict[int, list[tuple[object, ...]]] = {}
    plain = sim.activate

    def activate(a: Activation, gs: np.ndarray) -> None:
        for g in np.asarray(gs).tolist():
            seen.setdefault(g, []).append((a, sim.ordinal[a]))
        plain(a, gs)

    sim.activate = activate  # type: ignore[method-assign]
    sim.run()
    return seen


LISTS = {
    "two": (kit.RED, kit.BLUE),
    "zealots-vile": (kit.ZEALOTS, kit.VILE),
    "nexus-proxy": (kit.NEXUS, kit.PROXY),
    "overseer-observer": (kit.OVERSEER, kit.OBSERVER),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cursor")


def game_table(folder: Path, lists: str, red: str, blue: str) -> dict[str, Any]:
    """The small game of ``tests/autoplay_kit.py`` (2 Rounds), lists ``lists``, policies ``red`` and ``blue``."""
    d = kit.data(folder, red=red, blue=blue, length=2)
    for side, text in zip(("red", "blue"), LISTS[lists], strict=True):
        path = folder / f"{lists}-{side}.toml"
        path.write_text(text)
        d["players"][side]["army"] = str(path)
    return d


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    lists=st.sampled_from(sorted(LISTS)),
    red=st.sampled_from(["random", "objective", "aggressive", "cautious"]),
    blue=st.sampled_from(["random", "objective", "aggressive", "cautious"]),
)
def test_whole_games_are_the_same_by_either_walk(folder: Path, monkeypatch: pytest.MonkeyPatch, seed, lists, red, blue):
    """Automatic players on the small lists (Reactions among them: Zealous Round, Debilitating Saliva, Photon
    Overcharge, the Charge Roll's): every game's activations, with their dice ordinals, in the same order by either
    walk, and the same state after every Round (``snapshots``: VP, models left, placements, the First Player)."""
    scn = parse_scenario(game_table(folder, lists, red, blue), "cursor.toml", folder)
    runs = []
    for how in ("turns", "cursor"):
        monkeypatch.setenv("MATHHAMMER_WALK", how)
        sim = Simulation(scn, 3, seed)
        runs.append((activations(sim), sim.snapshots))
    (ref, ref_snaps), (got, snaps) = runs
    assert got == ref
    assert sum(map(len, got.values())) > 0
    for a, b in zip(ref_snaps, snaps, strict=True):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_a_scripted_player_and_a_random_one_by_either_walk(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scripted player (its state an object: the plan's place) against a random one: the same games."""
    d = kit.red_deploys(folder, length=2)
    scn = parse_scenario(d, "mixed.toml", folder)
    runs = []
    for how in ("turns", "cursor"):
        monkeypatch.setenv("MATHHAMMER_WALK", how)
        sim = Simulation(scn, 4, 2)
        runs.append((activations(sim), sim.snapshots))
    assert runs[0][0] == runs[1][0]
    assert any(a.unit == "marine-1" for a, _ in runs[1][0][0])
    for a, b in zip(runs[0][1], runs[1][1], strict=True):
        assert all(np.array_equal(a[k], b[k]) for k in a)


def test_the_switches_choose_the_walk_and_refuse_a_value_they_do_not_know(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MATHHAMMER_WALK`` unset: the nodes where both players are scripted, the cursor otherwise; ``turns`` and
    ``cursor`` force one. Honest interfaces: either switch takes its listed values only."""
    from mathhammer.errors import InputError

    monkeypatch.delenv("MATHHAMMER_WALK", raising=False)
    assert cursor_mod.switches(True) is True and cursor_mod.switches(False) is False
    monkeypatch.setenv("MATHHAMMER_WALK", "turns")
    assert cursor_mod.switches(True) is True and cursor_mod.switches(False) is True
    monkeypatch.setenv("MATHHAMMER_WALK", "cursor")
    assert cursor_mod.switches(True) is False and cursor_mod.switches(False) is False
    monkeypatch.setenv("MATHHAMMER_WALK", "nodes")
    with pytest.raises(InputError, match="MATHHAMMER_WALK: got 'nodes'"):
        cursor_mod.switches(False)
    monkeypatch.delenv("MATHHAMMER_WALK")
    monkeypatch.setenv("MATHHAMMER_STEP_COUNTS", "yes")
    with pytest.raises(InputError, match="MATHHAMMER_STEP_COUNTS: got 'yes'"):
        cursor_mod.switches(False)


def test_scripted_games_are_the_same_by_either_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both players scripted (a shipped scenario, Bound by the Khala's ``again`` among its plans or not): the cursor's
    walk, forced, plays the nodes' games."""
    from mathhammer.scenario.loader import load_scenario

    root = Path(__file__).resolve().parents[1] / "profiles" / "scenarios"
    for name in ("hold_position_crossing.toml", "gather_dirt_side.toml"):
        scn = load_scenario(root / name)
        runs = []
        for how in ("turns", "cursor"):
            monkeypatch.setenv("MATHHAMMER_WALK", how)
            sim = Simulation(scn, 64, 5)
            runs.append((activations(sim), sim.snapshots))
        assert runs[0][0] == runs[1][0] and runs[0][0]
        for a, b in zip(runs[0][1], runs[1][1], strict=True):
            assert all(np.array_equal(a[k], b[k]) for k in a)


def test_forked_workers_count_the_steps_one_process_counts(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``MATHHAMMER_STEP_COUNTS``: the workers' counts come back with their games and are added to the pilot's, so
    ``--workers 2`` counts what ``--workers 1`` does (the same games, the same steps; ``calls``, one per group of
    games asked at once, grows where the games are split in blocks)."""
    import multiprocessing

    from mathhammer.scenario import parallel

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("workers are forked (serial elsewhere)")
    monkeypatch.setattr(parallel, "AUTO_PARALLEL_MIN", 6)
    monkeypatch.setattr(parallel, "PILOT", 2)
    scn = parse_scenario(game_table(folder, "two", "random", "objective"), "counts.toml", folder)
    got = []
    for workers in (1, 2):
        monkeypatch.setattr(cursor_mod, "counts", {})
        assert parallel.forks(scn, 10, workers) is (workers == 2)
        games, _ = parallel.play(scn, 10, 3, workers=workers)
        got.append(cursor_mod.counts)
        assert got[-1] is not None and got[-1]["fight"] == games.tally["acts"][:, COUNTED.index("fight")].sum()
    one, two = ({k: v for k, v in c.items() if k != "calls"} for c in got)
    assert one == two  # the per-game counts; the decisions asked are per group, and blocks split the groups
    assert got[1]["calls"] >= got[0]["calls"] > 0
    assert got[0]["pass"] >= 2 * 10 and got[0]["fight"] > 0  # 8.8.1: the fights the tally counts, counted once


def test_the_switches_are_read_once_per_simulation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Simulation.by_nodes``: the environment read at the first Phase walked and kept (not read every Phase)."""
    scn = parse_scenario(kit.data(tmp_path, length=1), "once.toml", tmp_path)
    monkeypatch.setenv("MATHHAMMER_WALK", "turns")
    sim = Simulation(scn, 2, 1)
    sim.run()
    assert sim.by_nodes is True
    monkeypatch.setenv("MATHHAMMER_WALK", "nodes")  # refused where it is read; this Simulation read it already
    assert sim.by_nodes is True
    monkeypatch.setenv("MATHHAMMER_WALK", "cursor")
    assert Simulation(scn, 2, 1).by_nodes is False
