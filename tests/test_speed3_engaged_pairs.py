"""Engagement answers kept per pair of bases (:class:`~mathhammer.board.engagement.EngagedPairs`) and the Fighting
Ranks read through them give the rules' answers (rulebook 7.2.1 ENGAGED, 8.8.1 step 1 CLOSE RANKS "Models cannot
use this move to Disengage", 8.8.1 step 2 FIGHTING RANK / SUPPORTING RANK).

The naive readings here are the code these replace (issue 26: naive references live in ``tests/``): Engagement
asked of :func:`~mathhammer.board.engagement.engaged` on the whole board for every pair of models, distances by
the ``centre`` and ``radius`` of :class:`~mathhammer.board.model.Model`. Random boards (hypothesis) hold them
equal, and so does every question the examples' games ask.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from mathhammer.board.engagement import ENGAGEMENT_RANGE, EngagedPairs, engaged
from mathhammer.board.model import EPS, MM_PER_INCH, Board, BoardError, Model, Terrain, Unit
from mathhammer.board.ranks import CONTACT, Ranks, fighting_ranks
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario import world as world_mod
from mathhammer.scenario.sim import Simulation

W, D = 44.0, 30.0
BASES = (25.0, 32.0, 40.0)
#: the module (``mathhammer.board.engagement`` is also a function's name in ``mathhammer.board``)
engagement_mod = sys.modules[EngagedPairs.__module__]


# ---------------------------------------------------------------- naive readings (the code replaced)
def naive_distance(a: Model, b: Model) -> float:
    """Base edge to base edge, by the ``centre`` and ``radius`` of each model."""
    ra, rb = a.base_mm / MM_PER_INCH / 2, b.base_mm / MM_PER_INCH / 2
    return max(0.0, math.dist((float(a.x), float(a.y)), (float(b.x), float(b.y))) - ra - rb)


def naive_fighting_ranks(board: Board, unit_id: str) -> Ranks:
    """8.8.1 step 2, every pair of models asked of :func:`engaged` on the whole board."""
    unit = board.unit(unit_id)
    enemies = [m for m in board.models if board.unit_of(m).side != unit.side]
    engaged_with: dict[str, tuple[str, ...]] = {}
    if not unit.flying:
        for m in unit.models:
            hits = tuple(e.id for e in enemies if engaged(board, m, e))
            if hits:
                engaged_with[m.id] = hits
    supports: dict[str, tuple[str, ...]] = {}
    for m in unit.models:
        if m.id in engaged_with:
            continue
        if any(not e.flying and naive_distance(m, e) <= ENGAGEMENT_RANGE + EPS for e in enemies):
            continue
        touching = tuple(f.id for f in unit.models if f.id in engaged_with and naive_distance(m, f) <= CONTACT)
        if touching:
            supports[m.id] = touching
    rank: dict[str, Any] = {
        m.id: "fighting" if m.id in engaged_with else "supporting" if m.id in supports else "none" for m in unit.models
    }
    return Ranks(unit.id, rank, engaged_with, supports)


def naive_engaged_foes(
    world: world_mod.World, su: Any, centres: list, level: str | None, foes: tuple[tuple[int, int], ...]
) -> frozenset[str]:
    """The Engaged units of ``foes`` (7.2.1) for a unit with models at ``centres``: one board of the unit and the
    foes, :func:`engaged` asked of every pair of models."""
    mine = tuple(
        Model(f"{su.id}.{i + 1}", x, y, su.base_mm, su.size, stands_on=level) for i, (x, y) in enumerate(centres)
    )
    units = [Unit(su.id, su.player, mine)]
    for fpid, fk in foes:
        fu = world.scn.units[world.placements[fpid].unit]
        models = world._models_of(fpid)[:fk]
        if models:
            units.append(Unit(fu.id, fu.player, models))
    board = Board.trusted(world.board.width, world.board.depth, world.board.terrain, tuple(units))
    return frozenset(u.id for u in units[1:] if any(engaged(board, m, e) for m in mine for e in u.models))


def naive_pair_engaged(world: world_mod.World, pa: int, ka: int, pb: int, kb: int) -> bool:
    """7.2.1 for two units: a board of the two, every pair of models asked of :func:`engaged`."""
    ua, ub = world.placements[pa].unit, world.placements[pb].unit
    pos = tuple(pa if u == ua else pb if u == ub else -1 for u in world.uids)
    alive = tuple(ka if u == ua else kb if u == ub else 0 for u in world.uids)
    b = world.board_for(pos, alive)
    return any(engaged(b, ma, mb) for ma in b.unit(ua).models for mb in b.unit(ub).models)


# ---------------------------------------------------------------- random boards, models crowded together
def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


@st.composite
def crowded_boards(draw: st.DrawFn) -> Board:
    """Three units (two sides) of 1-4 models on a grid of 4 x 4 cells, among walls, GRASS, a plateau with an
    ACCESS POINT (MID GROUND or HIGH GROUND): many pairs Within 1", some across a wall or a level."""
    terrain = []
    for i in range(draw(st.integers(0, 3))):
        x, y = draw(st.floats(14, 20)), draw(st.floats(10, 16))
        w, h = draw(st.floats(0.2, 3)), draw(st.floats(0.2, 3))
        grass = draw(st.booleans()) and draw(st.booleans())
        terrain.append(
            Terrain(f"w{i}", _rect(x, y, x + w, y + h), size=2 if grass else draw(st.integers(0, 4)), grass=grass)
        )
    plateau = None
    if draw(st.booleans()):
        px, py = draw(st.floats(12, 18)), draw(st.floats(8, 14))
        ap = ((px, py + 2), (px, py + 3))
        plateau = Terrain(
            "plateau", _rect(px, py, px + 5, py + 5), size=draw(st.integers(1, 4)), surface=True, access_points=(ap,)
        )
        terrain.append(plateau)
    # models at the cells of a grid (pitch at least the widest base, jittered less than the slack): bases never overlap
    pitch = draw(st.floats(1.6, 2.6))
    slack = (pitch - max(BASES) / MM_PER_INCH) / 2
    cells = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=10, unique=True))
    units = []
    for u in range(3):
        models = []
        for k, (i, j) in enumerate(cells[u::3]):
            x = 13.5 + i * pitch + draw(st.floats(-slack, slack))
            y = 9.5 + j * pitch + draw(st.floats(-slack, slack))
            on = plateau is not None and draw(st.booleans()) and plateau.polygon.contains(Point(x, y))
            flying = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
            base = draw(st.sampled_from(BASES))
            models.append(Model(f"u{u}.{k}", x, y, base, stands_on="plateau" if on else None, flying=flying))
        units.append(Unit(f"u{u}", "red" if u == 0 else "blue", tuple(models)))
    try:
        return Board(W, D, tuple(terrain), tuple(units))
    except BoardError:
        assume(False)
        raise


@settings(max_examples=300, deadline=None)
@given(crowded_boards())
def test_7_2_1_engaged_pairs_answer_as_engaged(board: Board) -> None:
    """7.2.1: an answer kept by the two bases is :func:`engaged`'s on the whole board, for every pair of models of
    different sides, asked first and again (kept); and on the board of the same terrain without the other units."""
    pairs = EngagedPairs(Board.trusted(board.width, board.depth, board.terrain, ()))
    models = list(board.models)
    for a in models:
        for b in models:
            if board.unit_of(a).side == board.unit_of(b).side:
                continue
            want = engaged(board, a, b)
            assert pairs.models(a, b) == want, (a, b)
            assert pairs.models(a, b) == want, (a, b)
    assert pairs.fits(board)


@settings(max_examples=300, deadline=None)
@given(crowded_boards())
def test_8_8_1_fighting_ranks_as_the_naive_reading(board: Board) -> None:
    """8.8.1 step 2: Fighting Rank, Supporting Rank and the Enemy models each Fighting Rank model is Engaged with,
    as the naive reading gives them, with and without the kept answers."""
    pairs = EngagedPairs(board)
    for unit in board.units:
        want = naive_fighting_ranks(board, unit.id)
        assert fighting_ranks(board, unit.id) == want
        assert fighting_ranks(board, unit.id, pairs) == want


def test_8_8_1_the_kept_answers_of_another_terrain_are_not_used() -> None:
    """8.8.1 step 2 / 7.2.1 ("Even Within 1", a Size 2+ wall between them means they are not Engaged"): answers
    kept for an open table are not read on a board with a wall between the models."""
    a, e = Model("a", 9.5, 5), Model("e", 10.8, 5)
    units = (Unit("u", "red", (a,)), Unit("v", "blue", (e,)))
    wall = Terrain("wall", ((10, 0), (10.3, 0), (10.3, 30), (10, 30)), size=2)
    open_table, walled = Board(44, 30, (), units), Board(44, 30, (wall,), units)
    pairs = EngagedPairs(open_table)
    assert fighting_ranks(open_table, "u", pairs).rank == {"a": "fighting"}
    assert not pairs.fits(walled)
    assert fighting_ranks(walled, "u", pairs).rank == {"a": "none"}


def test_7_2_1_a_pair_of_bases_is_traced_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """7.2.1: the wall trace of a pair Within 1" (``engaged``) is run once for the pair of bases, whatever the models'
    ids and units; a pair farther than 1" is never traced."""
    traced: list[object] = []
    real = engagement_mod.engaged

    def counting(*args: Any, **kwargs: Any) -> Any:
        traced.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(engagement_mod, "engaged", counting)
    wall = Terrain("wall", ((20, 0), (20.3, 0), (20.3, 30), (20, 30)), size=2)  # a piece on the table, not between
    pairs = EngagedPairs(Board(44, 30, (wall,)))
    near, far = Model("a", 9.5, 5), Model("b", 5.0, 5)
    for k in range(3):
        assert pairs.models(Model(f"x{k}", 10.8, 5), near)
        assert not pairs.models(Model(f"y{k}", 10.8, 5), far)
    assert len(traced) == 1


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(-50, 50), st.floats(-50, 50)),
    st.one_of(st.integers(-50, 50), st.floats(-50, 50)),
    st.floats(0.5, 200),
    st.one_of(st.integers(-50, 50), st.floats(-50, 50)),
    st.one_of(st.integers(-50, 50), st.floats(-50, 50)),
    st.floats(0.5, 200),
)
def test_model_distance_is_the_centre_and_radius_reading(
    ax: float, ay: float, am: float, bx: float, by: float, bm: float
) -> None:
    """Part 11 WITHIN ("any part of its base"), base edge to base edge: the same double as by ``centre`` and
    ``radius``, whole-number coordinates included."""
    a, b = Model("a", ax, ay, am), Model("b", bx, by, bm)
    assert a.distance(b) == naive_distance(a, b)
    assert a.radius == am / MM_PER_INCH / 2
    assert a.centre == (float(ax), float(ay))


# ---------------------------------------------------------------- every question of the examples' games
@pytest.fixture(scope="module")
def asked() -> dict[str, list[tuple[Any, ...]]]:
    """The Engaged-foes tests of Close Ranks, the striking models' boards and the Engaged unit pairs of 600 games
    of each example, each with its answer."""
    got: dict[str, list[tuple[Any, ...]]] = {"foes": [], "ranks": [], "pairs": [], "strikers": []}
    read_foes = world_mod.World._read_engaged_foes
    pair_engaged = world_mod.World.pair_engaged
    ranks = world_mod.World._ranks
    striker_count = world_mod.World._striker_count

    def foes(self: world_mod.World, su: Any, centres: list, level: str | None, f: tuple) -> frozenset[str]:
        answer = read_foes(self, su, centres, level, f)
        got["foes"].append((self, su, list(centres), level, f, answer))
        return answer

    def pair(self: world_mod.World, pa: int, ka: int, pb: int, kb: int) -> bool:
        answer = pair_engaged(self, pa, ka, pb, kb)
        got["pairs"].append((self, pa, ka, pb, kb, answer))
        return answer

    def rank(self: world_mod.World, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> Ranks:
        answer = ranks(self, pos, alive, uid)
        got["ranks"].append((self.board_for(pos, alive), uid, answer))
        return answer

    def count(self: world_mod.World, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        answer = striker_count(self, pos, alive, uid)
        got["strikers"].append((self.board_for(pos, alive), uid, answer))
        return answer

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(world_mod.World, "_read_engaged_foes", foes)
        mp.setattr(world_mod.World, "pair_engaged", pair)
        mp.setattr(world_mod.World, "_ranks", rank)
        mp.setattr(world_mod.World, "_striker_count", count)
        for path in builtin_scenarios():
            Simulation(load_scenario(path), 600, 3).run()
    return got


def test_8_8_1_close_ranks_engaged_foes_as_the_naive_reading(asked: dict[str, list[tuple[Any, ...]]]) -> None:
    """8.8.1 step 1 ("Models cannot use this move to Disengage"): the Engaged units before and after a Close Ranks
    move, as one board of the unit and its foes gives them, question by question."""
    assert len(asked["foes"]) >= 200
    kinds = set()
    for world, su, centres, level, foes, answer in asked["foes"]:
        assert answer == naive_engaged_foes(world, su, centres, level, foes), (su.id, centres, foes)
        kinds.add(len(answer) - len(foes))
    assert len(kinds) >= 2, kinds  # units Engaged with every foe and with fewer, both compared


def test_8_8_1_striking_models_as_the_naive_reading(asked: dict[str, list[tuple[Any, ...]]]) -> None:
    """8.8.1 step 2: the Fighting and Supporting Ranks read in the games, as the naive reading of the same board."""
    assert len(asked["strikers"]) >= 200  # counted (World._striker_count), the ranks read whole where asked
    counts = set()
    for board, uid, answer in asked["ranks"]:
        assert answer == naive_fighting_ranks(board, uid), uid
    for board, uid, n in asked["strikers"]:
        naive = naive_fighting_ranks(board, uid)
        assert n == len(naive.fighting) + len(naive.supporting), uid
        counts.add((len(naive.fighting) > 0, len(naive.supporting) > 0))
    assert {(True, True), (True, False)} <= counts, counts


def test_7_2_1_engaged_unit_pairs_as_the_naive_reading(asked: dict[str, list[tuple[Any, ...]]]) -> None:
    """7.2.1: every Engaged question on two units in the games, as one board of the two gives it."""
    seen = {(id(w), pa, ka, pb, kb): a for w, pa, ka, pb, kb, a in asked["pairs"]}
    worlds = {id(w): w for w, *_ in asked["pairs"]}
    assert len(seen) >= 200
    assert set(seen.values()) == {True, False}
    for (wid, pa, ka, pb, kb), answer in seen.items():
        assert answer == naive_pair_engaged(worlds[wid], pa, ka, pb, kb), (pa, ka, pb, kb)


def test_naive_distance_reads_whole_numbers() -> None:
    """The naive reading itself: 1" between two 25.4 mm bases 3" apart centre to centre; never below 0."""
    a, b = Model("a", 0, 0, 25.4), Model("b", 3, 0, 25.4)
    assert naive_distance(a, b) == pytest.approx(2.0)
    assert naive_distance(a, Model("c", 0.5, 0, 25.4)) == 0.0
    assert np.isclose(a.distance(b), 2.0)
