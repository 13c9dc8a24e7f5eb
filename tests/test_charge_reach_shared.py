"""A Charge's search answered from the same search with another longest length (``World._other_reach``, 8.7.7 steps
2-3): the plan walk asks a Charge with ``reach`` Speed + 6 + EPS, the game the same Charge with Speed + its highest
roll. :func:`charge_distance` with ``max_length`` R finds the path of the search without it whenever that is at most
R long, and none otherwise; so an answer at most both lengths long is each one's, and no path within a length is no
path within a shorter one. The tests hold the searches to that, bit for bit, on random boards and the golden boards,
and the World's answers (shared or not) to the search on the board state, on the Charges of the shipped scenarios
and of automatic players' games."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mathhammer.board import Board, Model, Terrain, Unit, load_board
from mathhammer.board.charge import ChargePath, charge_distance
from mathhammer.board.model import EPS, BoardError
from mathhammer.errors import InputError
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import World

GOLDEN = Path(__file__).parent / "golden" / "board"
LENGTHS = (3.0, 6.0, 9.0, 10.0, 10.0 + EPS, 12.0, None)


def _same(a: ChargePath, b: ChargePath) -> bool:
    return (a.path, a.length, a.levels, a.climb) == (b.path, b.length, b.levels, b.climb)


def _held(search: Any) -> int:
    """For each pair of longest lengths (R, R'), the answer at R' decides the answer at R as ``_other_reach`` reads
    it: a path at most both long is the same path; none within R' >= R is none within R. The number of pairs it
    decided."""
    answers = {}
    for r in LENGTHS:
        answers[r] = search(r)
    inf = float("inf")
    decided = 0
    for mine, theirs in itertools.permutations(LENGTHS, 2):
        a, b = answers[mine], answers[theirs]
        lim_a, lim_b = inf if mine is None else mine, inf if theirs is None else theirs
        if b.end is not None and b.length <= min(lim_a, lim_b):
            assert _same(a, b), (mine, theirs, a, b)
            decided += 1
        elif b.end is None and lim_b >= lim_a:
            assert a.end is None and a.length == inf, (mine, theirs, a)
            decided += 1
    return decided


def _walls(walls: list[tuple[float, float, float, float]]) -> tuple[Terrain, ...]:
    return tuple(
        Terrain(f"w{i}", ((x, y), (x + w, y), (x + w, y + d), (x, y + d)), size=2 + i % 2)
        for i, (x, y, w, d) in enumerate(walls)
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.tuples(st.floats(3, 41), st.floats(3, 27)),
    st.lists(st.tuples(st.floats(-9, 9), st.floats(-9, 9)), min_size=1, max_size=4),
    st.lists(st.tuples(st.floats(-8, 8), st.floats(-8, 8)), max_size=8),
    st.lists(st.tuples(st.floats(-7, 7), st.floats(-7, 7), st.floats(0.3, 5), st.floats(0.3, 5)), max_size=4),
    st.sampled_from([25, 32, 40]),
    st.booleans(),
    st.booleans(),
)
def test_a_longer_search_decides_a_shorter_one_and_back(
    lead: tuple[float, float],
    targets: list[tuple[float, float]],
    others: list[tuple[float, float]],
    walls: list[tuple[float, float, float, float]],
    mm: int,
    enemy: bool,
    engage: bool,
) -> None:
    """8.7.7 step 2 (the shortest path, "bypass impassable obstacles") and step 3 (the end): on random boards (walls
    of Size 2 and 3, undeclared enemies or friendly models around the targets), the search up to one length decides
    the search up to another as ``World._other_reach`` reads it, bit for bit (path, length, levels, climb)."""
    x, y = lead
    spec = [
        ("chargers", "p1", (Model("c1", x, y, base_mm=mm),)),
        ("targets", "p2", tuple(Model(f"t{i}", x + a, y + b, base_mm=32) for i, (a, b) in enumerate(targets))),
        (
            "others",
            "p2" if enemy else "p1",
            tuple(Model(f"o{i}", x + a, y + b, base_mm=25) for i, (a, b) in enumerate(others)),
        ),
    ]
    units = tuple(Unit(i, side, models) for i, side, models in spec if models)
    on_table = [(min(max(x + a, 0.1), 43.9 - w), min(max(y + b, 0.1), 29.9 - d), w, d) for a, b, w, d in walls]
    from mathhammer.board.model import board_problems

    try:
        board = Board(44, 30, _walls(on_table), units)
        ok = not board_problems(board)
        if ok:
            charge_distance(board, "c1", ["targets"])
    except (InputError, BoardError):
        ok = False
    assume(ok)
    assert _held(lambda r: charge_distance(board, "c1", ["targets"], max_length=r, engage=engage)) > 0


@pytest.mark.parametrize(
    "name", ["charge_wall.toml", "charge_high_ground.toml", "charge_multi.toml", "stacked_terrain.toml"]
)
def test_a_longer_search_decides_a_shorter_one_on_the_golden_boards(name: str) -> None:
    """The same on the golden boards (walls; HIGH GROUND reached through ACCESS POINTs, the climb counted: 8.5.3,
    8.7.7 step 2), every unit's first model charging every enemy unit it may Charge."""
    board = load_board(GOLDEN / name)
    compared = 0
    for a in board.units:
        for b in board.units:
            if a.side == b.side or a.flying or b.flying:
                continue
            try:
                charge_distance(board, a.models[0].id, [b.id])
            except InputError:  # an Engaged charger, a climb with no height: no Charge to compare
                continue
            compared += _held(lambda r, a=a, b=b: charge_distance(board, a.models[0].id, [b.id], max_length=r))
    assert compared


def _record(monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[Any, ...]], list[int]]:
    """Keep every whole-board Charge asked of a World (``_charge_memo``'s arguments) and count the answers read from
    another longest length (``_other_reach``)."""
    asked: list[tuple[Any, ...]] = []
    shared = [0]
    memo, other = World._charge_memo, World._other_reach

    def charge_memo(self, pos, alive, uid, targets, reach, fields=(), engaged_ok=False):  # type: ignore[no-untyped-def]
        asked.append((pos, alive, uid, targets, reach, fields, engaged_ok))
        return memo(self, pos, alive, uid, targets, reach, fields, engaged_ok)

    def other_reach(self, base, near):  # type: ignore[no-untyped-def]
        hit = other(self, base, near)
        shared[0] += hit is not None
        return hit

    monkeypatch.setattr(World, "_charge_memo", charge_memo)
    monkeypatch.setattr(World, "_other_reach", other_reach)
    return asked, shared


def _asked_again(world: World, asked: list[tuple[Any, ...]], k: int) -> int:
    """``k`` of the Charges ``asked`` asked again of ``world`` (its memo as the games left it) with other longest
    lengths first (the walk's Speed + 6 + EPS, 2" longer, 1" shorter, none) and then their own: each answer is the
    search on that board state with that length, bit for bit. The number of Charges compared."""
    calls = list(dict.fromkeys(asked))
    for pos, alive, uid, targets, reach, fields, dash in calls[:: max(1, len(calls) // k)]:
        lengths = [None] if reach is None else [reach + EPS, reach + 2.0, reach - 1.0, None]
        for r in [*lengths, reach]:
            got = world._charge_memo(pos, alive, uid, targets, r, fields, dash)
            path = world._search(world.board_for(pos, alive, fields), uid, targets, r, dash)
            assert got == (path.length, path.end), (uid, targets, r)
    return len(calls)


def test_the_world_s_charges_are_the_search_on_their_board_whatever_was_asked_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole-board Charges of ``standard_clash.toml``'s games (8.7.7 steps 2-3; the other shipped scenarios' are
    all answered near the Leading Model), asked again with other longest lengths first and then their own
    (``_asked_again``): the search on their board state, shared or not."""
    asked, shared = _record(monkeypatch)
    sim = Simulation(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")), 300, 5)
    sim.run()
    assert _asked_again(sim.world, asked, 20) > 0
    assert shared[0] > 0


def test_an_automatic_game_s_charges_are_the_search_on_their_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Charges of automatic players' games (the plan walk asks with Speed + 6 + EPS, the game the same Charge
    with Speed + its highest roll): some answered from the other length in play; each, asked again, the search on
    its board state with its own length (8.7.7 steps 2-3)."""
    from mathhammer.scenario.loader import parse_scenario
    from tests.autoplay_kit import data

    asked, shared = _record(monkeypatch)
    scn = parse_scenario(data(tmp_path, red="objective", blue="aggressive", length=4), "auto.toml", tmp_path)
    sim = Simulation(scn, 12, 3)
    sim.run()
    in_play = shared[0]
    assert in_play > 0
    assert _asked_again(sim.world, asked, 20) > 0


def test_a_start_in_the_goal_grown_by_1e_9_is_near_the_goal() -> None:
    """8.7.7 step 3 (a Leading Model already Within 1" of its targets moves 0"): ``charge_distance`` grows the goal
    by 1e-9 only where the start is within ``_NEAR_GOAL`` of it. On goals of one to four targets' zones less other
    bases (as ``_level`` makes them), every point the grown goal contains is that near: on the boundary's vertices and
    points between them, and those moved out by 1e-10 to 1e-3; the far ones are indeed outside."""
    import numpy as np
    import shapely

    from mathhammer.board import charge
    from mathhammer.board.cspace import _disc, _zones

    rng = np.random.default_rng(29)
    inside = outside = 0
    for _ in range(40):
        targets = tuple(((float(x), float(y)), 1.5 + float(rng.random())) for x, y in rng.uniform(10, 20, (4, 2)))
        goal = _zones(targets[: int(rng.integers(1, 5))])
        for x, y in rng.uniform(8, 22, (int(rng.integers(0, 4)), 2)):
            goal = goal.difference(_disc((float(x), float(y)), 0.9))
        grown = goal.buffer(1e-9)
        ring = shapely.get_coordinates(goal.boundary)
        mids = (ring[:-1] + ring[1:]) / 2
        for base in (ring[::7], mids[::7]):
            for step in (0.0, 1e-10, 1e-9, 2e-9, 1e-7, 1e-5, 1e-3):
                angle = rng.uniform(0, 2 * np.pi, len(base))
                pts = base + step * np.column_stack([np.cos(angle), np.sin(angle)])
                contained = shapely.contains_xy(grown, pts[:, 0], pts[:, 1])
                near = shapely.distance(goal, shapely.points(pts)) <= charge._NEAR_GOAL
                assert not (contained & ~near).any()
                inside += int(contained.sum())
                outside += int((~contained).sum())
    assert inside > 1000 and outside > 1000
