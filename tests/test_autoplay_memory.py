"""Memory flat in the number of games (issue 29 point 6): automatic players' games are played in blocks of at most
``parallel.AUTO_BLOCK`` games, each block in a World of its own that is freed when the block ends, and the players'
memos are cleared past their limits. Neither changes a game: a game's dice and choices depend on (seed, game number)
only, and a memo only saves work."""

from __future__ import annotations

import gc
import multiprocessing
import sys
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.scenario import parallel, simulate
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import auto, fastfeatures, features, legal, moveverdicts, policies, reactions, ways
from mathhammer.scenario.result import ScenarioResult
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import BOARD_TABLES, renewed, retire
from tests.autoplay_kit import data, red_deploys, scenario

#: every limit of the players' memos (module, name)
LIMITS = [
    (legal, "MEMO_LIMIT"),
    (features, "MEMO_LIMIT"),
    (reactions, "ROWS_LIMIT"),
    (moveverdicts, "WAY_LIMIT"),
    (moveverdicts, "STATE_LIMIT"),
    (moveverdicts, "CREEP_LIMIT"),
    (fastfeatures, "EXACT_LIMIT"),
    (fastfeatures, "POINTS_LIMIT"),
    (auto, "BASES_LIMIT"),
    (ways, "MEMO_LIMIT"),
    (ways, "INTERNED_LIMIT"),
    (policies, "TWINS_LIMIT"),
]


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("memory"), red="objective", blue="random", length=2)


def assert_same(a: ScenarioResult, b: ScenarioResult) -> None:
    for x, y in zip(a.rounds, b.rounds, strict=True):
        assert x.keys() == y.keys()
        for k in x:
            assert np.array_equal(x[k], y[k]), k
    assert np.array_equal(a.end_round, b.end_round)
    assert np.array_equal(a.winner, b.winner)
    assert np.array_equal(a.instant, b.instant)
    assert a.skipped == b.skipped
    assert a.tally.keys() == b.tally.keys()
    for k in a.tally:
        assert np.array_equal(a.tally[k], b.tally[k]), k


def assert_same_snapshots(a: Simulation, b: Simulation) -> None:
    """Every Round's arrays of two Simulations equal."""
    for x, y in zip(a.snapshots, b.snapshots, strict=True):
        for k in x:
            assert np.array_equal(x[k], y[k]), k


def test_games_in_blocks_are_the_games_of_one_block(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """5 games in one Simulation, in blocks of 2 (three Simulations in turn, the progress counting the three blocks'
    Rounds), and on 2 forked workers in blocks of 1 (a 1-game pilot, then each worker's later blocks in a fresh World,
    no answers shared: both players automatic): the same arrays, the same per-unit tally."""
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 1000)
    one = simulate(scn, trials=5, seed=4, workers=1)
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 2)
    for most in (0, 1 << 40):  # each block in a renewed World; all in one World
        monkeypatch.setattr(parallel, "WORLD_ANSWERS", most)
        totals: set[int] = set()
        blocks = simulate(scn, trials=5, seed=4, workers=1, progress=lambda _done, total, seen=totals: seen.add(total))
        assert totals == {3 * scn.mission.game_length}
        assert_same(one, blocks)
    assert one.tally["acts"].sum() > 0  # activations counted: not an empty comparison
    if "fork" in multiprocessing.get_all_start_methods():  # (elsewhere every game runs in this process)
        monkeypatch.setattr(parallel, "AUTO_PARALLEL_MIN", 1)
        monkeypatch.setattr(parallel, "PILOT", 1)
        monkeypatch.setattr(parallel, "AUTO_BLOCK", 1)
        monkeypatch.setattr(parallel, "WORLD_ANSWERS", 0)
        assert parallel.forks(scn, 5, 2)
        assert_same(one, simulate(scn, trials=5, seed=4, workers=2))


def test_games_counted_not_kept_give_the_same_figures(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """``per_game=False`` (the command line's runs): no array of all the games is made (``parallel._Out``), each block
    is counted as it ends and dropped; the figures (the JSON) are those of the games kept, in one block, in blocks of
    2 and on 2 forked workers in blocks of 1. The result holds no per-game arrays, and its counts are those of the
    games kept."""
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 1000)
    kept = simulate(scn, trials=6, seed=4, workers=1)
    want = kept.to_dict()
    assert kept.rounds is not None and kept.winner is not None

    def refuse(*_a: Any, **_k: Any) -> None:
        raise AssertionError("an array of every game made where the games are counted only")

    monkeypatch.setattr(parallel, "_Out", refuse)
    runs = [(1000, 1)]
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 2)
    runs.append((2, 1))
    if "fork" in multiprocessing.get_all_start_methods():  # (elsewhere every game runs in this process)
        monkeypatch.setattr(parallel, "AUTO_PARALLEL_MIN", 1)
        monkeypatch.setattr(parallel, "PILOT", 1)
        runs.append((1, 2))
    for block, workers in runs:
        monkeypatch.setattr(parallel, "AUTO_BLOCK", block)
        counted = simulate(scn, trials=6, seed=4, workers=workers, per_game=False)
        assert counted.rounds is None and counted.winner is None and counted.end_round is None
        assert counted.instant is None
        assert counted.to_dict() == want, (block, workers)
        assert counted.text_report() == kept.text_report()
    assert sum(v["p"] for v in want["outcome"].values()) == pytest.approx(1.0)
    assert want["rounds"][0]["units"][0]["models_pmf"]  # figures read: not an empty comparison


def test_the_command_lines_runs_count_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """``scenario run`` and ``game`` ask for the games counted only (memory flat in the number of games)."""
    import mathhammer.scenario as scenario_module
    from mathhammer.cli.scenario import _simulate

    asked: list[bool] = []
    monkeypatch.setattr(scenario_module, "simulate", lambda *_a, per_game=True, **_k: asked.append(per_game))
    _simulate(object(), 2, 1, 1, True)
    assert asked == [False]


def test_workers_share_answers_unless_both_players_are_automatic(
    scn: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two automatic players: the forked workers make no shared-answers logs (their games part ways at once; the logs
    only held memory); a scripted player against an automatic one: they do, one per worker."""
    from mathhammer.scenario import memo

    made: list[memo.SharedAnswers] = []
    init = memo.SharedAnswers.__init__

    def keep(self: memo.SharedAnswers, *a: Any, **k: Any) -> None:
        init(self, *a, **k)
        made.append(self)

    mixed = parse_scenario(red_deploys(tmp_path), "mixed.toml", tmp_path)
    assert not parallel._shares(scn) and parallel._shares(mixed)
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - every game in this process
        return
    monkeypatch.setattr(memo.SharedAnswers, "__init__", keep)
    monkeypatch.setattr(parallel, "AUTO_PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "PILOT", 1)
    simulate(scn, trials=3, seed=4, workers=2)
    assert made == []
    simulate(mixed, trials=3, seed=4, workers=2)
    assert len(made) == 1 and len(made[0].logs) == 2


def test_a_block_frees_its_world_before_the_next(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 of 5 games, Worlds renewed past 0 answers: three Simulations, each in its own World, made when the
    earlier block's World is freed (the last block's alone left, with the Simulation returned). Past 2**40 answers:
    one World for the three. One block of 5 makes one Simulation."""
    made: list[weakref.ref[Any]] = []
    alive_at_make: list[int] = []
    real = Simulation.__init__

    def init(self: Simulation, *args: Any, **kw: Any) -> None:
        alive_at_make.append(sum(r() is not None for r in made))
        real(self, *args, **kw)
        assert all(r() is not self.world for r in made)  # a World of its own
        made.append(weakref.ref(self.world))

    monkeypatch.setattr(Simulation, "__init__", init)
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 2)
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", 0)
    _, sim = parallel.play(scn, 5, 4, workers=1)
    gc.collect()
    assert len(made) == 3 and alive_at_make == [0, 0, 0]
    assert [r() for r in made if r() is not None] == [sim.world] and sim.T == 1
    made.clear()
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", 1 << 40)
    monkeypatch.setattr(Simulation, "__init__", real)
    worlds: list[Any] = []

    def kept(self: Simulation, *args: Any, **kw: Any) -> None:
        real(self, *args, **kw)
        worlds.append(self.world)

    monkeypatch.setattr(Simulation, "__init__", kept)
    parallel.play(scn, 5, 4, workers=1)
    assert len(worlds) == 3 and worlds[0] is worlds[1] is worlds[2]
    monkeypatch.setattr(Simulation, "__init__", init)
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 5)
    parallel.play(scn, 5, 4, workers=1)
    assert len(made) == 1


def test_the_freed_pages_go_back_between_blocks(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two blocks (after the earlier block's Simulation is freed, before the next is made), the serial path
    hands the heap's free pages back (``memo.release_freed_memory``: without it the resident size kept the freed
    fragments and rose with the blocks, benchmarks/RESULTS.md session 22): 3 blocks of 5 games, 2 releases, each with
    the earlier block's Simulation gone; one block, none. The games are the same with or without."""
    calls: list[int] = []
    made: list[weakref.ref[Any]] = []
    real = Simulation.__init__

    def init(self: Simulation, *args: Any, **kw: Any) -> None:
        real(self, *args, **kw)
        made.append(weakref.ref(self))

    def release() -> bool:
        calls.append(sum(r() is not None for r in made))  # the Simulations still held when the pages go back
        return True

    monkeypatch.setattr(Simulation, "__init__", init)
    monkeypatch.setattr(parallel, "release_freed_memory", release)
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 2)
    games, _ = parallel.play(scn, 5, 4, workers=1)
    assert calls == [0, 0] and len(made) == 3
    calls.clear()
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 5)
    whole, _ = parallel.play(scn, 5, 4, workers=1)
    assert calls == [] and np.array_equal(games.vp, whole.vp) and np.array_equal(games.end_round, whole.end_round)
    from mathhammer.scenario.memo import release_freed_memory

    assert release_freed_memory() is sys.platform.startswith("linux")  # glibc here: malloc_trim(0)


def test_a_renewed_world_keeps_the_board_answers_only(scn_ledge: Scenario) -> None:
    """``renewed``: no placement of the old World (ids start again), none of its answers about placements; its answers
    of the board alone (ways round the terrain, levels, routes) are the new World's, and a game played in either
    World is the same (on a board with a piece to stand on: the levels read and kept)."""
    scn = scn_ledge
    sim = Simulation(scn, 3, 2)
    sim.run()
    old = sim.world
    new = renewed(old)
    assert len(old.placements) > 10 and len(new.placements) == 0
    assert not new.memo.tables.get("pid") and not new.memo.tables.get("near_boxes")
    kept = {n for n in BOARD_TABLES if old.memo.tables.get(n)}
    assert kept >= {"radii", "levels"}, kept  # read in these games: not an empty comparison
    for name in kept:
        assert new.memo.tables[name] == old.memo.tables[name], name
    assert all(new.memo.tables[n] is not old.memo.tables[n] for n in kept)  # copies: the old World can be freed
    assert {k for k, t in new.memo.tables.items() if t} <= BOARD_TABLES
    again = Simulation(scn, 3, 2, world=new)
    again.run()
    assert_same_snapshots(sim, again)


def test_a_retired_world_is_emptied_and_its_renewal_keeps_the_board(scn: Scenario) -> None:
    """``retire`` (a forked worker's first World, still held by the pilot's frames it inherited): the old World keeps
    no answer and no placement; the renewed World's board answers are untouched (copies) and replay the same games."""
    sim = Simulation(scn, 3, 2)
    sim.run()
    old = sim.world
    new = renewed(old)
    kept = {n: dict(new.memo.tables[n]) for n in BOARD_TABLES if new.memo.tables.get(n)}
    assert kept
    retire(old)
    assert not old.placements and not any(old.memo.tables.values())
    assert {n: new.memo.tables[n] for n in kept} == kept
    again = Simulation(scn, 3, 2, world=new)
    again.run()
    assert_same_snapshots(sim, again)


def test_a_worker_retires_the_world_it_renews(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers' path (parallel._block) renews with ``retire``: the old World is emptied, not left whole beside the
    new one; the serial path needs no retiring (its old Simulation, the World's last holder, is freed)."""
    sim = Simulation(scn, 2, 2)
    sim.run()
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", 0)
    assert parallel._next_world(sim.world, 0) is not sim.world and sim.world.placements  # serial: left to the collector
    new = parallel._next_world(sim.world, 0, retire=True)
    assert new is not sim.world and not sim.world.placements and not any(sim.world.memo.tables.values())
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", 1 << 40)
    assert parallel._next_world(new, 0, retire=True) is new and new.memo.tables.get("radii")  # under the limit: kept


def test_a_world_is_kept_only_where_the_next_block_keeps_it_within_the_limit(
    scn: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A World that the last block grew by ``g`` answers is kept for the next block only where ``g`` more answers
    keep it within ``WORLD_ANSWERS`` (a block's growth counted ahead: the answers held stay near the limit whatever
    the block's length); a block that added none (or a negative count) is counted as adding none."""
    sim = Simulation(scn, 2, 2)
    sim.run()
    held = parallel._answers(sim.world)
    assert held > 100
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", held + 40)
    assert parallel._next_world(sim.world, 40) is sim.world
    assert parallel._next_world(sim.world, 41) is not sim.world
    assert parallel._next_world(sim.world, -(10**6)) is sim.world
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", held - 1)
    assert parallel._next_world(sim.world, 0) is not sim.world


def test_the_serial_blocks_renew_by_the_growth_of_the_last(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """The serial path passes ``_next_world`` what the block added to its World: the answers after it less those
    before it (the first block's counted from its new World). Blocks of 2 of 6 games: the growths passed are those
    measured around each block, and with them past the limit every block after the first has a World of its own,
    the games unchanged."""
    seen: list[tuple[int, int]] = []
    before: list[int] = []
    real_next, real_run = parallel._next_world, Simulation.run

    def run(self: Simulation, *args: Any, **kw: Any) -> None:
        before.append(parallel._answers(self.world))
        real_run(self, *args, **kw)

    def spy(world: Any, grown: int, retire: bool = False) -> Any:
        seen.append((parallel._answers(world), grown))
        return real_next(world, grown, retire)

    monkeypatch.setattr(Simulation, "run", run)
    monkeypatch.setattr(parallel, "_next_world", spy)
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 2)
    games, _ = parallel.play(scn, 6, 4, workers=1)
    assert len(seen) == 2 and all(g > 0 for _, g in seen)
    assert [g for _, g in seen] == [after - start for (after, _), start in zip(seen, before, strict=False)]
    monkeypatch.setattr(parallel, "WORLD_ANSWERS", min(a for a, _ in seen))
    worlds: list[Any] = []

    def kept(self: Simulation, *args: Any, **kw: Any) -> None:
        worlds.append(self.world)
        real_run(self, *args, **kw)

    monkeypatch.setattr(Simulation, "run", kept)
    again, _ = parallel.play(scn, 6, 4, workers=1)
    assert len(worlds) == 3 and len({id(w) for w in worlds}) == 3
    assert np.array_equal(games.vp, again.vp) and np.array_equal(games.end_round, again.end_round)


def memos(sim: Any) -> dict[str, int]:
    """The sizes of the players' bounded memos (and their parts' own)."""
    out: dict[str, int] = {}
    for p, player in enumerate(sim.players):
        parts = [player, player._features, player._legal]
        for part in parts:
            if part is None:
                continue
            for name, value in vars(part).items():
                if isinstance(value, dict) and name in BOUNDED.get(type(part).__name__, ()):
                    # Legality's rows are kept per (unit, Phase), then per state: counted by the states
                    nested = name == "_memo" and isinstance(part, legal.Legality)
                    out[f"{p}.{type(part).__name__}.{name}"] = sum(map(len, value.values())) if nested else len(value)
    return out


#: the per-state memos of the players, Features and Legality, which their limit bounds (Legality's ``_reaches``, per
#: pair of units and action, needs none)
BOUNDED = {
    "Auto": {"_bases"},
    "Features": {"_rows", "_threats", "_later", "_after", "_moves_to", "_reaches", "_states_of"},
    "EntryLegality": {"_memo", "_far", "_gaps"},
}


def test_the_memos_cleared_past_tiny_limits_play_the_same_games(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every limit of the players' memos set to 2: each memo the limits bound holds a few answers at most after the
    games, and the games are the ones played with the default limits (which these games do not reach)."""
    wide = Simulation(scn, 4, 6)
    wide.run()
    big = memos(wide)
    assert big and max(big.values()) > 40, big  # the default limits keep many answers here
    for module, name in LIMITS:
        monkeypatch.setattr(module, name, 2)
    tight = Simulation(scn, 4, 6)
    tight.run()
    small = memos(tight)
    assert small.keys() == big.keys()
    assert max(small.values()) <= 2 + tight.T, str(small)  # cleared past 2 (a decision's own states are kept whole)
    assert_same_snapshots(wide, tight)
    assert np.array_equal(wide.vp, tight.vp)


def test_the_ways_tables_hold_each_point_set_once(scn: Scenario) -> None:
    """The keys of the ways tables (``ways:reach``, ``ways:length``, ``ways:ahead``: kept across renewed Worlds) hold
    one object per point set, not one per call that added a key: their memory grew with the games before."""
    sim = Simulation(scn, 4, 6)
    sim.run()
    tables = sim.world.memo.tables
    keys = [key for name in ("ways:reach", "ways:length", "ways:ahead") for key in tables.get(name, {})]
    sets = [part for key in keys for part in key if isinstance(part, bytes)]
    assert len(sets) > 40  # many keys read: a real test
    assert len({id(part) for part in sets}) == len(set(sets)) < 20


@pytest.fixture(scope="module")
def scn_ledge(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    """:func:`scn` with a piece to stand on (``surface``: a ledge off the lanes) beside the card's standard terrain:
    ``World.level_at`` reads and keeps levels only on such a board (on the presets' it answers the playmat at once)."""
    from mathhammer.scenario.loader import _find_card, deployment_cards, find_preset

    folder = tmp_path_factory.mktemp("ledge")
    table = data(folder, red="objective", blue="random", length=2)
    card, _ = _find_card(deployment_cards(), "Frontier", None, "a Deployment Card")
    tables, _ = find_preset(card, "preset:standard")
    ledge = {"id": "ledge", "footprint": [[28, 6], [31, 6], [31, 9], [28, 9]], "size": 3, "surface": True}
    table["terrain"] = [*(tables or []), ledge]
    return parse_scenario(table, "ledge.toml", folder)


@pytest.mark.parametrize(
    ("limit", "table"), [("DISCS_KEPT", "_discs"), ("ON_TERRAIN_KEPT", "_terrain_answers"), ("LEVELS_KEPT", "_levels")]
)
def test_the_worlds_terrain_caches_cleared_past_a_tiny_limit_play_the_same_games(
    scn: Scenario, scn_ledge: Scenario, monkeypatch: pytest.MonkeyPatch, limit: str, table: str
) -> None:
    """What a World keeps for its terrain tests (the discs, ``World._base_disc``; the answers per spot,
    ``World._on_terrain``; the levels per point, ``World.level_at``, on a board with a piece to stand on) past a limit
    of 2: the same games as with the default limit, and no more than 2 kept."""
    from mathhammer.scenario.geometry import routes

    scn = scn_ledge if table == "_levels" else scn

    wide = Simulation(scn, 4, 6)
    wide.run()
    assert len(getattr(wide.world, table)) > 4  # kept: a real comparison
    monkeypatch.setattr(routes, limit, 2)
    tight = Simulation(scn, 4, 6)
    tight.run()
    assert 0 < len(getattr(tight.world, table)) <= 2
    assert_same_snapshots(wide, tight)
    assert np.array_equal(wide.vp, tight.vp)


def test_the_process_caches_of_shapes_cleared_past_tiny_limits_play_the_same_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board's process-wide caches (Line of Sight answers, buffers, bounds, Charge goals) kept to 2 entries: the
    same games as with their limits (8,192 each; 1,024 for the Charge goals), and none holds more than its limit (+1:
    cleared before the next is kept)."""
    from functools import lru_cache

    from mathhammer.board import charge, cspace, fastsight, los, model
    from mathhammer.scenario.geometry import charge as world_charge

    # the shapely Charge search's caches: the compiled search (off here) reads the goal without them
    monkeypatch.setattr(world_charge, "COMPILED", False)
    scn = scenario(tmp_path, red="aggressive", blue="aggressive", length=3)  # Charges declared in 3 games
    cspace._zone.cache_clear()
    cspace._zones.cache_clear()
    wide = Simulation(scn, 3, 7)
    wide.run()
    assert sum(len(t) for _, t in fastsight._SEES.values()) + len(los._SIGHTS) > 4  # sight read: a real comparison
    assert len(cspace._BUFFERS) > 4 and len(model._BOUNDS) > 4
    assert cspace._zones.cache_info().misses > 2  # Charge goals made: more than the tight caches keep
    assert cspace._zone.cache_info().maxsize == cspace._zones.cache_info().maxsize == cspace.ZONES_CACHED
    monkeypatch.setattr(fastsight, "_SEES_MAX", 2)
    monkeypatch.setattr(los, "_SIGHTS_MAX", 2)
    monkeypatch.setattr(cspace, "CACHED", 2)
    monkeypatch.setattr(model, "BOUNDS_KEPT", 2)
    zone, zones = (lru_cache(maxsize=2)(f.__wrapped__) for f in (cspace._zone, cspace._zones))
    monkeypatch.setattr(cspace, "_zone", zone)
    monkeypatch.setattr(cspace, "_zones", zones)
    monkeypatch.setattr(charge, "_zones", zones)
    for table in (fastsight._SEES, los._SIGHTS, cspace._BUFFERS, model._BOUNDS):
        table.clear()
    tight = Simulation(scn, 3, 7)
    tight.run()
    assert all(len(t) <= 2 for _, t in fastsight._SEES.values()) and len(los._SIGHTS) <= 2
    assert len(cspace._BUFFERS) <= 3 and len(model._BOUNDS) <= 3
    assert zones.cache_info().misses > 2 and zone.cache_info().currsize <= 2 and zones.cache_info().currsize <= 2
    assert_same_snapshots(wide, tight)
    assert np.array_equal(wide.vp, tight.vp)


def test_a_blocks_length_is_the_least_its_policies_allow(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parallel.auto_block``: the least ``block_games`` of the scenario's policies' classes, ``AUTO_BLOCK`` (read when
    asked) for a class that sets none: ``random`` against ``random`` 10,000 (a random game adds about a quarter of the
    board answers a weighted one does: benchmarks/RESULTS.md, sessions 24 and 31); with a weighted player
    ``AUTO_BLOCK``."""
    from types import SimpleNamespace

    def block(**players: str) -> int:
        return parallel.auto_block(SimpleNamespace(policies=players))  # type: ignore[arg-type]

    assert block(red="random", blue="random") == block(red="random") == policies.Random.block_games == 10000
    assert block(red="objective", blue="random") == block(blue="cautious") == parallel.AUTO_BLOCK == 500
    monkeypatch.setattr(parallel, "AUTO_BLOCK", 7)
    assert block(red="objective", blue="random") == 7 and block(red="random", blue="random") == 10000

    class Short:
        block_games = 3

    monkeypatch.setitem(policies.POLICIES, "short", Short)
    assert block(red="short", blue="random") == 3 and block(red="short", blue="aggressive") == 3
    for bad in (0, -2, 2.5, True, "9"):
        monkeypatch.setattr(Short, "block_games", bad)
        with pytest.raises(InputError, match=r"Short\.block_games") as err:
            block(red="short")
        assert "a whole number of games, at least 1" in str(err.value)
