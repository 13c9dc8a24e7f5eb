"""The compiled Charge search (``mathhammer.board.fastcharge.charge_search``) held to the shapely search (8.7.7).

The compiled search reads bases as circles (the shapely search reads polygons around them) and samples the goal's edge
its own way, so its lengths are not the search's to the bit: they must agree within the search's own approximation
(half a goal sample spacing and some thousandths per base gone round: ``TOLERANCE``), reach the same Charges (both
within the bound, or neither, away from the bound by more than that), and its paths and ends must be legal by the rules
read exactly: 8.5.3 (no base passed through, no Size 2+ wall crossed, the base on the table), 8.7.7 step 3 (the end
Within 1" of every target and not Within 1" of an undeclared enemy, not overlapping a base or a non-GRASS footprint)
and 7.2.1 (no Size 2+ wall between the end and a target model it Engages).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import LineString, Point

from mathhammer.board import Board, Model, Terrain, Unit
from mathhammer.board.charge import _engages_all, charge_distance
from mathhammer.board.cspace import GOAL_STEP
from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.fastcharge import charge_search
from mathhammer.board.model import board_problems
from mathhammer.errors import InputError

#: how far the two searches' lengths may be apart (inches): the shapely search's goal samples are GOAL_STEP apart
TOLERANCE = GOAL_STEP
WIDTH, DEPTH = 44.0, 30.0


def _terrain(rng: np.random.Generator) -> tuple[Terrain, ...]:
    """A few walls (Size 2-3), a crater (Size 1) and a GRASS patch at random."""
    pieces = []
    for i in range(int(rng.integers(2, 5))):
        x, y = rng.uniform(4, WIDTH - 8), rng.uniform(4, DEPTH - 8)
        w, d = (rng.uniform(0.3, 1.0), rng.uniform(3, 8)) if i % 2 else (rng.uniform(3, 8), rng.uniform(0.3, 1.0))
        pieces.append(Terrain(f"w{i}", ((x, y), (x + w, y), (x + w, y + d), (x, y + d)), size=2 + i % 2))
    x, y = rng.uniform(4, WIDTH - 8), rng.uniform(4, DEPTH - 8)
    pieces.append(Terrain("crater", ((x, y), (x + 4, y), (x + 4, y + 3), (x, y + 3)), size=1))
    x, y = rng.uniform(4, WIDTH - 8), rng.uniform(4, DEPTH - 8)
    pieces.append(Terrain("grass", ((x, y), (x + 4, y), (x + 4, y + 4), (x, y + 4)), size=2, grass=True))
    return tuple(pieces)


def _board(seed: int) -> tuple[Board, list[str], float] | None:
    """A random board: the charger c.1, one or two target units, a friendly unit, an undeclared enemy unit and a
    Flying enemy, all near one another; None where the bases overlap or the charger is Engaged."""
    rng = np.random.default_rng(seed)
    cx, cy = rng.uniform(8, WIDTH - 8), rng.uniform(8, DEPTH - 8)

    def near(n: int, spread: float) -> list[tuple[float, float]]:
        return [(float(cx + rng.uniform(-spread, spread)), float(cy + rng.uniform(-spread, spread))) for _ in range(n)]

    mm = int(rng.choice([25, 32, 40, 50]))
    units = [Unit("c", "p1", (Model("c.1", cx, cy, base_mm=mm),))]
    n_targets = int(rng.integers(1, 3))
    for t in range(n_targets):
        models = tuple(
            Model(f"t{t}.{i}", x, y, base_mm=32) for i, (x, y) in enumerate(near(int(rng.integers(1, 5)), 9))
        )
        units.append(Unit(f"t{t}", "p2", models))
    units.append(Unit("f", "p1", tuple(Model(f"f.{i}", x, y, base_mm=25) for i, (x, y) in enumerate(near(3, 7)))))
    units.append(Unit("e", "p2", tuple(Model(f"e.{i}", x, y, base_mm=25) for i, (x, y) in enumerate(near(2, 8)))))
    units.append(
        Unit("v", "p2", tuple(Model(f"v.{i}", x, y, base_mm=40, flying=True) for i, (x, y) in enumerate(near(1, 6))))
    )
    try:
        board = Board(WIDTH, DEPTH, _terrain(rng), tuple(units))
    except Exception:
        return None
    if board_problems(board):
        return None
    return board, [f"t{t}" for t in range(n_targets)], float(rng.uniform(4, 14))


def _legal(board: Board, targets: list[str], path: tuple[tuple[float, float], ...], lead_id: str = "c.1") -> None:
    """The path and its end as the rules read them, with circles for the bases (8.5.3, 8.7.7 step 3, 7.2.1)."""
    lead = board.model(lead_id)
    own = board.unit_of(lead).id
    r = lead.radius
    end = path[-1]
    assert r - 1e-9 <= end[0] <= WIDTH - r + 1e-9 and r - 1e-9 <= end[1] <= DEPTH - r + 1e-9  # on the table
    line = LineString(path) if len(path) > 1 else Point(path[0])
    for piece in board.terrain:
        if piece.size >= 2 and not piece.grass:
            assert line.distance(piece.polygon) >= r - 1e-6, piece.id  # 8.5.3: through no Size 2+ piece
        if not piece.grass:
            assert Point(end).distance(piece.polygon) >= r - 1e-6, piece.id  # 8.5.3: not ending over a footprint
    for unit in board.units:
        if unit.id == own:
            continue
        for m in unit.models:
            gap = math.dist(end, m.centre) - r - m.radius
            assert gap >= -1e-9, m.id  # 8.5.3: no end overlapping another base
            if not m.flying:
                assert line.distance(Point(m.centre)) >= r + m.radius - 1e-6, m.id  # 8.5.3: through no base
            if unit.id not in targets and unit.side != "p1" and not m.flying:
                assert gap > ENGAGEMENT_RANGE - 1e-9, m.id  # 8.7.7 step 3: not Within 1" of an undeclared enemy
    for t in targets:  # 8.7.7 step 3: Within 1" of every target
        assert min(math.dist(end, m.centre) - r - m.radius for m in board.unit(t).models) <= ENGAGEMENT_RANGE + 1e-9
    assert _engages_all(board, lead, end, None, targets)  # 7.2.1: no wall between


def _both(seed: int) -> tuple[Board, list[str], float, object, object] | None:
    made = _board(seed)
    if made is None:
        return None
    board, targets, reach = made
    try:
        slow = charge_distance(board, "c.1", targets, max_length=reach)
    except InputError:
        return None
    return board, targets, reach, slow, charge_search(board, "c.1", targets, max_length=reach)


def test_the_compiled_search_agrees_with_the_shapely_search_on_random_boards() -> None:
    """8.7.7 steps 2-3 on random boards (600 drawn): the same Charges reach (away from the bound), the lengths within
    TOLERANCE and no bias, every compiled path and end legal read with circles."""
    diffs, reached, compiled = [], 0, 0
    for seed in range(600):
        got = _both(seed)
        if got is None:
            continue
        board, targets, reach, slow, fast = got
        if fast is None:  # the start touches a base or a wall: the search's alone
            continue
        compiled += 1
        if math.isinf(slow.length) or math.isinf(fast.length):
            near_bound = min(slow.length, fast.length) > reach - TOLERANCE
            assert near_bound or slow.length == fast.length, (seed, slow.length, fast.length)
            continue
        reached += 1
        diffs.append(fast.length - slow.length)
        assert abs(fast.length - slow.length) <= TOLERANCE, (seed, slow.length, fast.length)
        _legal(board, targets, fast.path)
        assert fast.length == pytest.approx(
            sum(math.dist(a, b) for a, b in zip(fast.path, fast.path[1:], strict=False)), abs=1e-9
        )
    assert compiled >= 150 and reached >= 90, (compiled, reached)
    assert abs(float(np.mean(diffs))) < 0.01, np.mean(diffs)


def test_an_open_table_charge_is_the_straight_distance() -> None:
    """8.7.7 step 2 on an empty table: the centre moves straight to 1" from the target's base (mathhammer.board.charge's
    example: 8.0")."""
    a, b = Model("a", 5, 5, base_mm=25.4), Model("b", 15, 5, base_mm=25.4)
    board = Board(44, 30, units=(Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    got = charge_search(board, "a", ["y"])
    assert got is not None
    assert got.length == pytest.approx(8.0, abs=1e-5)
    assert got.length >= 8.0 - 1e-12  # never shorter than the rule allows


def test_a_wall_between_is_gone_round() -> None:
    """8.5.3 "cannot move through terrain of Size 2 or larger": a wall across the straight line makes the path longer
    than the straight distance, as the shapely search finds."""
    a, b = Model("a", 5, 15, base_mm=32), Model("b", 15, 15, base_mm=32)
    wall = Terrain("wall", ((9.5, 10), (10, 10), (10, 20), (9.5, 20)), size=2)
    board = Board(44, 30, (wall,), (Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    fast, slow = charge_search(board, "a", ["y"]), charge_distance(board, "a", ["y"])
    assert fast is not None and len(fast.path) > 2
    assert fast.length > 10 - 2 * a.radius - ENGAGEMENT_RANGE + 1
    assert fast.length == pytest.approx(slow.length, abs=TOLERANCE)
    _legal(board, ["y"], fast.path, "a")


def test_out_of_reach_is_no_path() -> None:
    """``max_length``: a Charge needing more is no path (length inf), as the search answers."""
    a, b = Model("a", 5, 5, base_mm=25.4), Model("b", 15, 5, base_mm=25.4)
    board = Board(44, 30, units=(Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    got = charge_search(board, "a", ["y"], max_length=7.9)
    assert got is not None and got.path is None and math.isinf(got.length)


def test_boards_it_does_not_read_are_left_to_the_search() -> None:
    """A surface piece (8.5.3 ELEVATION: another level) or a start touching a wall (inside the search's grown footprint,
    whose first leg it reads on the inscribed one): None, the shapely search's."""
    a, b = Model("a", 5, 5, base_mm=25.4), Model("b", 15, 5, base_mm=25.4)
    top = Terrain("top", ((20, 20), (24, 20), (24, 24), (20, 24)), size=3, surface=True, height=3.0)
    board = Board(44, 30, (top,), (Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    assert charge_search(board, "a", ["y"]) is None
    wall = Terrain("wall", ((5.5, 0), (6.0, 0), (6.0, 10), (5.5, 10)), size=2)  # touching the Leading Model's base
    board = Board(44, 30, (wall,), (Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    assert charge_search(board, "a", ["y"]) is None
