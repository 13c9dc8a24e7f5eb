"""Charges (rulebook 8.7.7) and close-combat ranks (8.8.1 step 2) on the battlefield model.

Each test cites the rule it checks. Golden boards live in tests/golden/board/charge_*.toml.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString

from mathhammer.board import Board, Model, Terrain, Unit, load_board
from mathhammer.board.charge import (
    charge_distance,
    charge_probability,
    charge_probability_exact,
    charge_probability_for,
)
from mathhammer.board.cspace import GOAL_STEP
from mathhammer.board.model import BoardError
from mathhammer.board.ranks import fighting_ranks
from mathhammer.errors import InputError

GOLDEN = Path(__file__).parent / "golden" / "board"
INCH = 25.4


def _two(a: Model, b: Model, terrain: tuple[Terrain, ...] = ()) -> Board:
    return Board(44, 30, terrain, (Unit("chargers", "p1", (a,)), Unit("targets", "p2", (b,))))


def _path_clear(board: Board, lead: Model, path: tuple[tuple[float, float], ...]) -> None:
    """Every segment keeps the base clear of Size 2+ non-GRASS terrain and other units' bases (8.5.3)."""
    line = LineString(path) if len(path) > 1 else None
    if line is None:
        return
    for piece in board.terrain:
        if piece.size >= 2 and not piece.grass:
            assert line.distance(piece.polygon) >= lead.radius - 1e-6, piece.id
    for m in board.models:
        if board.unit_of(m).id != board.unit_of(lead).id:
            assert line.distance(m.base.centroid) >= lead.radius + m.radius - 1e-6, m.id


# -- 8.7.7 step 2: Charge distance ------------------------------------------------------------


def test_open_table_straight_line() -> None:
    """8.7.7 step 3: end Within 1" of the target; open table: centre distance - radii - 1"."""
    a, b = Model("a", 5, 5, base_mm=25), Model("b", 17, 9, base_mm=50)
    got = charge_distance(_two(a, b), "a", ["targets"])
    want = math.dist(a.centre, b.centre) - a.radius - b.radius - 1.0
    assert got.reachable and got.length == pytest.approx(want, abs=0.01)
    assert len(got.path or ()) == 2
    end = Model("end", *got.end or (0, 0), base_mm=25)
    assert end.distance(b) <= 1.0 + 1e-6


@settings(max_examples=25, deadline=None)
@given(
    st.floats(2, 40),
    st.floats(2, 26),
    st.floats(2, 40),
    st.floats(2, 26),
    st.sampled_from([25, 32, 40, 50]),
    st.sampled_from([25, 32, 40, 60]),
)
def test_open_table_straight_line_any(ax: float, ay: float, bx: float, by: float, ma: int, mb: int) -> None:
    """8.7.7: on an open table the Charge distance is max(0, edge gap - 1") (to 0.01")."""
    a, b = Model("a", ax, ay, base_mm=ma), Model("b", bx, by, base_mm=mb)
    assume(math.dist(a.centre, b.centre) >= a.radius + b.radius and a.distance(b) > 1.0 + 1e-6)  # not Engaged
    got = charge_distance(_two(a, b), "a", ["targets"])
    assert got.length == pytest.approx(a.distance(b) - 1.0, abs=0.01)


def test_engaged_unit_cannot_charge() -> None:
    """8.7.7: "An Unengaged Ground Unit moves into the Engagement Range of Enemy Units"."""
    a, b = Model("a", 5, 5, base_mm=INCH), Model("b", 6.8, 5, base_mm=INCH)
    # 0.8" apart: Within 1" of an Enemy, so the unit is Engaged and cannot Charge (8.7.7: "An Unengaged Ground Unit")
    with pytest.raises(InputError):
        charge_distance(_two(a, b), "a", ["targets"])


def test_wall_forces_detour() -> None:
    """8.7.7 step 2 "bypass impassable obstacles", 8.5.3 "cannot move through terrain of Size 2 or larger"."""
    board = load_board(GOLDEN / "charge_wall.toml")
    open_board = Board(board.width, board.depth, (), board.units)
    straight = charge_distance(open_board, "z1", ["marines"])
    detour = charge_distance(board, "z1", ["marines"])
    assert straight.length == pytest.approx(8.0, abs=0.01)
    assert detour.reachable
    # exact: tangent to the r = 0.5" circle round corner (14, 10) (6.384"), arc 0.487", 0.5" along the wall's
    # end, arc 0.403" round (14.5, 10), then straight at the Marine until 2" from its centre (5.416"): 13.189"
    assert detour.length == pytest.approx(13.189, abs=0.01)
    _path_clear(board, board.model("z1"), detour.path or ())
    end = Model("end", *detour.end or (0, 0), base_mm=INCH)
    assert end.distance(board.model("m1")) <= 1.0 + 1e-6


def test_impassable_ring_unreachable() -> None:
    """IMPASSABLE TERRAIN: "Models cannot move through, onto, or across" it; a closed ring cannot be Charged into."""
    board = load_board(GOLDEN / "charge_ring.toml")
    got = charge_distance(board, "z1", ["marines"])
    assert not got.reachable and got.path is None and got.length == math.inf
    assert charge_probability_for(board, "z1", ["marines"], 8) == 0.0


def test_grass_does_not_block() -> None:
    """GRASS: "Unlike other Size 2 terrain, Grass does not block movement"; a GRASS ring is charged straight through."""
    board = load_board(GOLDEN / "charge_grass.toml")
    got = charge_distance(board, "z1", ["marines"])
    assert got.reachable and got.length == pytest.approx(18.0, abs=0.01)


def test_size_one_terrain_passable() -> None:
    """8.5.3 TERRAIN INTERACTIONS: "Size 0 & Size 1: Pass through freely"."""
    low = Terrain("barricade", ((14, 10), (14.5, 10), (14.5, 20), (14, 20)), size=1)
    a, b = Model("a", 10, 15, base_mm=INCH), Model("b", 20, 15, base_mm=INCH)
    assert charge_distance(_two(a, b, (low,)), "a", ["targets"]).length == pytest.approx(8.0, abs=0.01)


def test_multi_charge_within_one_inch_of_both() -> None:
    """8.7.7 step 3: "Within the Engagement Range (1") of every declared Charge target"."""
    board = load_board(GOLDEN / "charge_multi.toml")
    one = charge_distance(board, "z1", ["marines-a"])
    both = charge_distance(board, "z1", ["marines-a", "marines-b"])
    assert one.length == pytest.approx(math.dist((10, 15), (20, 13.25)) - 2.0, abs=0.01)
    assert both.length == pytest.approx(10 - math.sqrt(4 - 1.75**2), abs=0.01)
    assert both.length > one.length
    end = Model("end", *both.end or (0, 0), base_mm=INCH)
    assert end.distance(board.model("a1")) <= 1.0 + 1e-6
    assert end.distance(board.model("b1")) <= 1.0 + 1e-6


def test_multi_charge_too_far_apart() -> None:
    """8.7.7 step 3 / Abathur's TIP: "if the targets don't line up just right, you'll have wasted your whole Charge"."""
    a = Model("a", 5, 15, base_mm=INCH)
    x, y = Model("x", 20, 10, base_mm=INCH), Model("y", 20, 20, base_mm=INCH)
    board = Board(44, 30, units=(Unit("c", "p1", (a,)), Unit("ux", "p2", (x,)), Unit("uy", "p2", (y,))))
    assert not charge_distance(board, "a", ["ux", "uy"]).reachable


def test_undeclared_enemy_range_avoided() -> None:
    """8.7.7 step 3: "Not Within the Engagement Range of any Enemy Unit that was not declared as a target"."""
    board = load_board(GOLDEN / "charge_multi.toml")
    hydra = Model("h1", 17.5, 15, base_mm=INCH)
    units = tuple(u if u.id != "hydras" else Unit("hydras", "terran", (hydra,)) for u in board.units)
    board = Board(board.width, board.depth, (), units)
    got = charge_distance(board, "z1", ["marines-a", "marines-b"])
    assert got.reachable and got.length > 9.1
    end = Model("end", *got.end or (0, 0), base_mm=INCH)
    assert end.distance(hydra) >= 1.0 - 1e-6
    assert end.distance(board.model("a1")) <= 1.0 + 1e-6 and end.distance(board.model("b1")) <= 1.0 + 1e-6
    _path_clear(board, board.model("z1"), got.path or ())


def test_other_units_block_but_own_unit_does_not() -> None:
    """8.5.3: "may pass through Friendly models in its own Unit"; "may not pass through ... Friendly models from
    other Units"."""
    a = Model("a", 10, 15, base_mm=INCH)
    t = Model("t", 20, 15, base_mm=INCH)
    screen = tuple(Model(f"s{i}", 14, 11 + i, base_mm=INCH) for i in range(9))  # a line of touching bases
    own = Board(44, 30, units=(Unit("c", "p1", (a, *screen)), Unit("t", "p2", (t,))))
    other = Board(44, 30, units=(Unit("c", "p1", (a,)), Unit("f", "p1", screen), Unit("t", "p2", (t,))))
    assert charge_distance(own, "a", ["t"]).length == pytest.approx(8.0, abs=0.01)
    assert charge_distance(other, "a", ["t"]).length > 8.5


def test_flying_cannot_charge_or_be_charged() -> None:
    """8.7.7 step 1 and FLYING: "Flying Units cannot Charge or be Charged"."""
    ground, flyer = Model("g", 5, 5, base_mm=INCH), Model("f", 15, 5, base_mm=INCH, flying=True)
    board = _two(ground, flyer)
    with pytest.raises(InputError, match="Charged"):
        charge_distance(board, "g", ["targets"])
    board = Board(44, 30, units=(Unit("flyers", "p1", (flyer,)), Unit("walkers", "p2", (ground,))))
    with pytest.raises(InputError, match="Charge"):
        charge_distance(board, "f", ["walkers"])


def test_bad_targets() -> None:
    """8.7.7: the targets are Enemy Units, at least one declared."""
    a, b = Model("a", 5, 5, base_mm=INCH), Model("b", 15, 5, base_mm=INCH)
    board = Board(44, 30, units=(Unit("u", "p1", (a,)), Unit("v", "p1", (b,))))
    with pytest.raises(InputError):
        charge_distance(board, "a", ["v"])
    with pytest.raises(InputError):
        charge_distance(board, "a", [])
    with pytest.raises(InputError):
        charge_distance(board, "a", ["nope"])


# -- 8.7.7 step 2: the Charge Roll ------------------------------------------------------------

#: hand-computed P(Speed + 1D6 >= d) in sixths, Speed 4..8 (rows) x distance 5..14 (columns).
TABLE = {
    4: [6, 5, 4, 3, 2, 1, 0, 0, 0, 0],
    5: [6, 6, 5, 4, 3, 2, 1, 0, 0, 0],
    6: [6, 6, 6, 5, 4, 3, 2, 1, 0, 0],
    7: [6, 6, 6, 6, 5, 4, 3, 2, 1, 0],
    8: [6, 6, 6, 6, 6, 5, 4, 3, 2, 1],
}


@pytest.mark.parametrize("speed", sorted(TABLE))
def test_charge_probability_table(speed: int) -> None:
    """8.7.7 step 2: "Roll 1D6 and add it to the Unit's Speed. This is the Charge Roll Distance"."""
    for distance, sixths in zip(range(5, 15), TABLE[speed], strict=True):
        assert charge_probability_exact(distance, speed) == Fraction(sixths, 6), (speed, distance)
        assert charge_probability(distance, speed) == pytest.approx(sixths / 6)


def test_charge_probability_fractional_and_edges() -> None:
    """8.7.7: Speed 6 vs 9": P(1D6 >= 3) = 4/6; 8.2" needs a 3 too; unreachable (inf) is 0."""
    assert charge_probability(9, 6) == pytest.approx(4 / 6)
    assert charge_probability(8.2, 6) == pytest.approx(4 / 6)
    assert charge_probability(8.0, 6) == pytest.approx(5 / 6)
    assert charge_probability(0, 0) == 1.0
    assert charge_probability(math.inf, 8) == 0.0
    with pytest.raises(InputError):
        charge_probability(5, -1)
    with pytest.raises(InputError):
        charge_probability(-1, 5)


def test_charge_probability_for_board() -> None:
    """8.7.7: the wall detour (about 13.19") needs Speed 7 + a 7: impossible; Speed 8 needs a 6."""
    board = load_board(GOLDEN / "charge_wall.toml")
    assert charge_probability_for(board, "z1", ["marines"], 7) == 0.0
    assert charge_probability_for(board, "z1", ["marines"], 8) == pytest.approx(1 / 6)
    assert GOAL_STEP <= 0.1


# -- 8.8.1 step 2: Fighting Rank and Supporting Rank ------------------------------------------


def test_fighting_and_supporting_ranks() -> None:
    """8.8.1 step 2: Fighting Rank "Within the Engagement Range (1") of an Enemy model"; Supporting Rank "In
    Base-to-Base contact with a Friendly model from the same Unit that is in the Fighting Rank"."""
    board = load_board(GOLDEN / "charge_ranks.toml")
    ranks = fighting_ranks(board, "marines")
    assert ranks.rank == {"m1": "fighting", "m2": "supporting", "m3": "none", "m4": "none", "m5": "fighting"}
    assert ranks.fighting == ("m1", "m5") and ranks.supporting == ("m2",)
    assert ranks.attackers == ("m1", "m2", "m5")
    assert ranks.engaged_with["m1"] == ("z1",) and ranks.supports["m2"] == ("m1",)
    assert fighting_ranks(board, "zealots").rank == {"z1": "fighting"}


def test_ranks_wall_and_glossary_reading() -> None:
    """7.2.1 "Even Within 1", a Size 2+ wall between them means they are not Engaged"; SUPPORTING RANK "but is not
    itself Within the Engagement Range of an Enemy model" (read literally: a model Within 1" of an enemy across a
    wall supports nobody)."""
    wall = Terrain("wall", ((9.1, 9), (9.4, 9), (9.4, 13), (9.1, 13)), size=2)
    f, s = Model("f", 10, 10, base_mm=INCH), Model("s", 10, 11, base_mm=INCH)
    e1, e2 = Model("e1", 11.5, 9.5, base_mm=INCH), Model("e2", 8.5, 11, base_mm=INCH)
    board = Board(44, 30, (wall,), (Unit("u", "p1", (f, s)), Unit("v", "p2", (e1, e2))))
    ranks = fighting_ranks(board, "u")
    assert ranks.rank == {"f": "fighting", "s": "none"}
    assert ranks.engaged_with["f"] == ("e1",)
    open_board = Board(44, 30, (), board.units)
    assert fighting_ranks(open_board, "u").rank == {"f": "fighting", "s": "fighting"}


def test_flying_unit_has_no_ranks() -> None:
    """FLYING: "A Flying Unit cannot participate in the Combat Phase"; "Flying models cannot be Engaged"."""
    g, fl = Model("g", 10, 10, base_mm=INCH), Model("fl", 11.2, 10, base_mm=INCH, flying=True)
    board = Board(44, 30, units=(Unit("g", "p1", (g,)), Unit("fl", "p2", (fl,))))
    assert fighting_ranks(board, "g").rank == {"g": "none"}
    assert fighting_ranks(board, "fl").rank == {"fl": "none"}


def test_start_touching_wall() -> None:
    """8.5.3: a Leading Model in contact with a wall still moves away from it along the wall's face."""
    wall = Terrain("wall", ((9, 5), (9.5, 5), (9.5, 25), (9, 25)), size=3)
    a, b = Model("a", 10, 15, base_mm=INCH), Model("b", 20, 15, base_mm=INCH)  # a's base touches the wall
    got = charge_distance(_two(a, b, (wall,)), "a", ["targets"])
    assert got.length == pytest.approx(8.0, abs=0.01)


def test_target_across_wall_must_be_engaged() -> None:
    """7.2.1 "Even Within 1", a Size 2+ wall between them means they are not Engaged": by default the Charge
    must end Engaged, so it goes round the wall; ``engage=False`` is the bare 8.7.7 step 3 "Within 1" test."""
    wall = Terrain("wall", ((10.6, 10), (10.9, 10), (10.9, 20), (10.6, 20)), size=2)
    a, b = Model("a", 10, 15, base_mm=INCH), Model("b", 11.5, 15, base_mm=INCH)
    board = _two(a, b, (wall,))
    assert charge_distance(board, "a", ["targets"], engage=False).length == 0.0
    got = charge_distance(board, "a", ["targets"])
    assert got.reachable and got.length > 4.0
    _path_clear(board, a, got.path or ())
    end = Model("end", *got.end or (0, 0), base_mm=INCH)
    assert end.distance(b) <= 1.0 + 1e-6


def test_busy_board_is_quick() -> None:
    """Performance guard: 40 models and 6 walls, a Charge in well under a few seconds of CPU (process time: on a
    machine shared with other test workers the wall clock measures the load, not the search)."""
    import time

    walls = tuple(
        Terrain(f"w{i}", ((6 + 6 * i, 8), (6.5 + 6 * i, 8), (6.5 + 6 * i, 22), (6 + 6 * i, 22)), size=3)
        for i in range(6)
    )
    ours = tuple(Model(f"o{i}", 2, 2 + 1.2 * i, base_mm=25) for i in range(20))
    theirs = tuple(Model(f"t{i}", 42, 2 + 1.2 * i, base_mm=25) for i in range(20))
    board = Board(44, 30, walls, (Unit("ours", "p1", ours), Unit("theirs", "p2", theirs)))
    t0 = time.process_time()
    got = charge_distance(board, "o10", ["theirs"])
    assert time.process_time() - t0 < 5.0
    assert got.reachable and got.length >= 40 - 2 * (25 / INCH / 2) - 1 - 0.01


def _walls(walls: list[tuple[float, float, float, float]]) -> tuple[Terrain, ...]:
    """Rectangles (x, y, width, depth) as Size 2 and Size 3 walls, alternately."""
    return tuple(
        Terrain(f"w{i}", ((x, y), (x + w, y), (x + w, y + d), (x, y + d)), size=2 + i % 2)
        for i, (x, y, w, d) in enumerate(walls)
    )


def _charge_or_none(terrain: tuple[Terrain, ...], units: tuple[Unit, ...], **kwargs: object) -> tuple[Board, object]:
    """The 44" x 30" board and ``charge_distance`` of c1 at ``targets`` on it, or None where the board is no
    legal Charge (overlapping bases, the charger Engaged)."""
    from mathhammer.board.model import board_problems

    board = Board(44, 30, terrain, ())
    try:
        board = Board(44, 30, terrain, units)
        if board_problems(board):
            return board, None
        return board, charge_distance(board, "c1", ["targets"], **kwargs)  # type: ignore[arg-type]
    except (InputError, BoardError):
        return board, None


def _charger_targets_others(
    lead: tuple[float, float], targets: list[tuple[float, float]], bystanders: list[tuple[float, float]], mm: int
) -> list[Unit]:
    """The charger c1 (base ``mm``), the target unit, and the bystanders as an undeclared enemy unit (odd count)
    or a friendly one."""
    units = [
        Unit("chargers", "p1", (Model("c1", *lead, base_mm=mm),)),
        Unit("targets", "p2", tuple(Model(f"t{i}", x, y, base_mm=32) for i, (x, y) in enumerate(targets))),
    ]
    if bystanders:
        side = "p2" if len(bystanders) % 2 else "p1"
        units.append(
            Unit("others", side, tuple(Model(f"o{i}", x, y, base_mm=25) for i, (x, y) in enumerate(bystanders)))
        )
    return units


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(st.floats(3, 41), st.floats(3, 27)),
    st.lists(st.tuples(st.floats(3, 41), st.floats(3, 27)), min_size=1, max_size=3),
    st.lists(st.tuples(st.floats(3, 41), st.floats(3, 27)), max_size=3),
    st.lists(st.tuples(st.floats(2, 38), st.floats(2, 24), st.floats(0.3, 6), st.floats(0.3, 6)), max_size=3),
    st.sampled_from([25, 32, 40]),
    st.sampled_from([None, 4.0, 9.0]),
    st.booleans(),
)
# found by this test in CI (2026-11-30): the goal's vertex nearest the start, 1.2e-14" from the shortcut's end
@example((19.0, 21.5), [(3.0, 3.0), (3.0, 8.0), (5.0, 23.0)], [], [], 25, None, False)
def test_straight_charges_match_the_search(
    lead: tuple[float, float],
    targets: list[tuple[float, float]],
    bystanders: list[tuple[float, float]],
    walls: list[tuple[float, float, float, float]],
    mm: int,
    max_length: float | None,
    engage: bool,
) -> None:
    """8.7.7 step 2 (the shortest path): on a board of one level, the straight-line shortcut
    (``_straight_charge``) gives the search's answer (path, length, levels), with walls,
    undeclared enemies and friendly bases in the way or not, Engaging or not, with a longest
    length or not: the same levels and climb, every point and the length within 1e-9" (where a
    vertex of the goal lies within rounding of the shortcut's end, the search may end at the vertex)."""
    from unittest import mock

    from mathhammer.board import charge

    units = _charger_targets_others(lead, targets, bystanders, mm)
    board, fast = _charge_or_none(_walls(walls), tuple(units), engage=engage, max_length=max_length)
    assume(fast is not None)
    assert isinstance(fast, charge.ChargePath)
    with mock.patch.object(charge, "_straight_charge", return_value=None):
        search = charge_distance(board, "c1", ["targets"], engage=engage, max_length=max_length)
    assert (fast.levels, fast.climb) == (search.levels, search.climb)
    assert (fast.path is None) == (search.path is None)
    if fast.path is not None and search.path is not None:
        assert len(fast.path) == len(search.path)
        for p, q in zip(fast.path, search.path, strict=True):
            assert math.dist(p, q) <= 1e-9
    assert fast.length == search.length or abs(fast.length - search.length) <= 1e-9


def test_straight_charge_shortcut_is_taken_and_refused() -> None:
    """The shortcut answers an open-table Charge by itself, and leaves a Charge round a wall to the search
    (8.7.7 step 2 "bypass impassable obstacles")."""
    from mathhammer.board import charge

    board = _two(Model("a", 5, 5, base_mm=25), Model("b", 17, 9, base_mm=50))
    wall = load_board(GOLDEN / "charge_wall.toml")
    calls: list[object] = []
    real = charge._straight_charge

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(out := real(*args, **kwargs))  # type: ignore[arg-type]
        return out

    from unittest import mock

    with mock.patch.object(charge, "_straight_charge", spy):
        charge_distance(board, "a", ["targets"])
        charge_distance(wall, "z1", ["marines"])
    assert calls[0] is not None and calls[1] is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.tuples(st.floats(3, 41), st.floats(3, 27)),
    st.lists(st.tuples(st.floats(3, 41), st.floats(3, 27)), min_size=1, max_size=3),
    st.lists(st.tuples(st.floats(-8, 8), st.floats(-8, 8)), min_size=1, max_size=6),
    st.lists(st.tuples(st.floats(2, 38), st.floats(2, 24), st.floats(0.3, 6), st.floats(0.3, 6)), max_size=2),
    st.sampled_from([25, 32, 40]),
    st.sampled_from([None, 6.0, 12.0]),
    st.booleans(),
)
def test_models_away_from_the_examined_box_do_not_change_a_charge(
    lead: tuple[float, float],
    targets: list[tuple[float, float]],
    bystanders: list[tuple[float, float]],
    walls: list[tuple[float, float, float, float]],
    mm: int,
    max_length: float | None,
    enemy: bool,
) -> None:
    """8.7.7 steps 2-3: ``charge_distance`` reports the box it examined; taking away every model of an
    undeclared enemy unit (8.7.7 step 3: not Within 1" of it) or of a friendly unit that
    ``examined_near`` says cannot meet that box leaves the answer (path, length) unchanged. The
    simulation keeps Charges under that box (``World._charge_memo``)."""
    from mathhammer.board.charge import ChargePath
    from mathhammer.board.cspace import examined_near

    terrain = _walls(walls)
    base_units = (
        Unit("chargers", "p1", (Model("c1", *lead, base_mm=mm),)),
        Unit("targets", "p2", tuple(Model(f"t{i}", x, y, base_mm=32) for i, (x, y) in enumerate(targets))),
    )
    # the other unit's models near the first target, where they may or may not matter (none overlapping)
    tx, ty = targets[0]
    placed = [m for u in base_units for m in u.models]
    others: tuple[Model, ...] = ()
    for i, (dx, dy) in enumerate(bystanders):
        m = Model(f"o{i}", tx + dx, ty + dy, base_mm=25)
        inside = 1 < m.centre[0] < 43 and 1 < m.centre[1] < 29
        if inside and all(m.distance(o) > 0.1 for o in placed):
            placed.append(m)
            others += (m,)
    assume(others)
    box = [0.0, 0.0, 0.0, 0.0]
    board, full = _charge_or_none(
        terrain, (*base_units, Unit("others", "p2" if enemy else "p1", others)), max_length=max_length, examined=box
    )
    assume(full is not None)
    assert isinstance(full, ChargePath)
    r = board.model("c1").radius
    kept = tuple(m for m in others if examined_near(box, m.centre, m.radius, r))
    assume(len(kept) < len(others))  # some model is away from the box
    units = (*base_units, Unit("others", "p2" if enemy else "p1", kept)) if kept else base_units
    fewer = charge_distance(Board(44, 30, terrain, units), "c1", ["targets"], max_length=max_length)
    assert (fewer.path, fewer.length) == (full.path, full.length)


def test_the_base_prefilter_of_the_path_search_gives_shapely_s_answer() -> None:
    """The path search decides most segment-base tests from the circle of the base (``_segments_hit``) and
    asks shapely for the rest: on 20,000 random segments passing at 0-2 radii from a base (8,000 within a
    hair of its polygon, where a circle-only test would err: 4,000 along an edge, within a few SLACK of it),
    every decided answer equals ``shapely.intersects`` with the tight polygon the search tests, and most
    are decided."""
    from mathhammer.board.cspace import GROW, QUAD_SEGS, SLACK, _buffer, _disc, _segments_hit

    rng = np.random.default_rng(11)
    decided = 0
    for _ in range(200):
        c = (float(rng.uniform(5, 40)), float(rng.uniform(5, 40)))
        rad = float(rng.choice([0.5, 0.79, 1.1, 1.6]))
        poly = _buffer(_disc(c, rad), -SLACK)
        # segments tangent to a circle of radius rad * f, f around the band [1 - SLACK/rad, GROW]
        # and 20 parallel to an edge of the polygon, within a few SLACK of it (a circle of radius rad errs there)
        f = np.concatenate(
            [
                rng.uniform(0.0, 2.0, 60),
                rng.uniform(1 - 3e-6 / rad, GROW + 1e-6, 20),
                1 + rng.uniform(-3e-6, 1e-6, 20) / rad,
            ]
        )
        mid = (rng.integers(0, 4 * QUAD_SEGS, 20) + 0.5) * 2 * np.pi / (4 * QUAD_SEGS)
        ang = np.concatenate([rng.uniform(0, 2 * np.pi, 80), mid])
        foot = np.asarray(c) + (rad * f)[:, None] * np.stack([np.cos(ang), np.sin(ang)], axis=1)
        along = np.stack([-np.sin(ang), np.cos(ang)], axis=1) * rng.uniform(0.5, 6, (100, 1))
        a = foot - along * rng.uniform(0, 1.5, (100, 1))
        b = foot + along
        box = np.asarray([poly.bounds])
        for k in range(100):
            _, _, hit = _segments_hit(a[k], b[k][None, :], box, np.asarray([[c[0], c[1], rad]]))
            got = int(hit[0]) if hit.size else 0  # no pair: the boxes do not meet or the circle says no
            if got < 0:
                continue
            decided += 1
            want = shapely.intersects(poly, shapely.LineString([a[k], b[k]]))
            assert bool(got) == want, (c, rad, a[k], b[k])
    assert decided > 10_000
    k, p, hit = _segments_hit(
        np.zeros(2), np.ones((1, 2)), np.array([[0.0, 0.0, 2.0, 2.0]] * 3), np.full((3, 3), np.nan)
    )
    assert k.tolist() == [0, 0, 0] and p.tolist() == [0, 1, 2] and (hit == -1).all()  # not bases: shapely decides
    # disjoint boxes: no pair, even where the circle would be crossed
    k, _, _ = _segments_hit(np.zeros(2), np.ones((1, 2)), np.array([[3.0, 3.0, 4.0, 4.0]]), np.array([[0.5, 0.5, 1.0]]))
    assert k.size == 0


def _plain_and_bounded(board: Board, lead: str, targets: list[str], **kwargs: object) -> tuple[object, object]:
    """``charge_distance`` by the path search alone (no straight-line shortcut), with every move tested and with
    only the moves under the search's bound (``_BOUNDED``)."""
    from unittest import mock

    from mathhammer.board import charge

    with mock.patch.object(charge, "_straight_charge", return_value=None):
        with mock.patch.object(charge, "_BOUNDED", False):
            plain = charge_distance(board, lead, targets, **kwargs)  # type: ignore[arg-type]
        bounded = charge_distance(board, lead, targets, **kwargs)  # type: ignore[arg-type]
    return plain, bounded


@settings(max_examples=80, deadline=None)
@given(
    st.tuples(st.floats(3, 41), st.floats(3, 27)),
    st.lists(st.tuples(st.floats(3, 41), st.floats(3, 27)), min_size=1, max_size=3),
    st.lists(st.tuples(st.floats(3, 41), st.floats(3, 27)), max_size=4),
    st.lists(st.tuples(st.floats(2, 38), st.floats(2, 24), st.floats(0.3, 6), st.floats(0.3, 6)), max_size=3),
    st.sampled_from([25, 32, 40]),
    st.sampled_from([None, 4.0, 9.0]),
    st.booleans(),
)
def test_the_bounded_search_gives_the_plain_search_s_answer(
    lead: tuple[float, float],
    targets: list[tuple[float, float]],
    bystanders: list[tuple[float, float]],
    walls: list[tuple[float, float, float, float]],
    mm: int,
    max_length: float | None,
    engage: bool,
) -> None:
    """8.7.7 step 2 (the shortest path): the search tests only the moves whose estimate (distance so far, the
    move, the straight distance left) may come in under the estimate of an end already queued (or the longest
    length); it gives the answer of the search that tests every move, bit for bit (path, length, levels, climb),
    round walls, undeclared enemies and friendly bases, Engaging or not, with a longest length or not."""
    units = _charger_targets_others(lead, targets, bystanders, mm)
    board, found = _charge_or_none(_walls(walls), tuple(units), engage=engage, max_length=max_length)
    assume(found is not None)
    plain, bounded = _plain_and_bounded(board, "c1", ["targets"], engage=engage, max_length=max_length)
    assert bounded == plain


@pytest.mark.parametrize(
    ("name", "lead", "targets"),
    [
        ("charge_wall.toml", "z1", ["marines"]),
        ("charge_high_ground.toml", "z1", ["marines"]),
        ("charge_multi.toml", None, None),
        ("stacked_terrain.toml", None, None),
        ("goliath_high_ground.toml", None, None),
    ],
)
@pytest.mark.parametrize("max_length", [None, 6.0, 12.0])
def test_the_bounded_search_on_the_golden_boards(
    name: str, lead: str | None, targets: list[str] | None, max_length: float | None
) -> None:
    """The bounded search on the golden boards (walls; HIGH GROUND reached through ACCESS POINTs, the climb
    counted: 8.5.3, 8.7.7 step 2): the plain search's answer, bit for bit, for a Charge by every unit's first
    model at every enemy unit it may Charge."""
    board = load_board(GOLDEN / name)
    pairs = (
        [(lead, targets)]
        if lead is not None and targets is not None
        else [
            (a.models[0].id, [b.id])
            for a in board.units
            for b in board.units
            if a.side != b.side and not a.flying and not b.flying
        ]
    )
    compared = 0
    for who, at in pairs:
        try:
            plain, bounded = _plain_and_bounded(board, who, at, max_length=max_length)
        except InputError:  # an Engaged charger, a climb with no height: no Charge to compare
            continue
        assert bounded == plain, (who, at)
        compared += 1
    assert compared


def _near_board(board: Board, lead: str, rho: float) -> Board | None:
    """The board of the Leading Model ``lead`` (its unit's other models left off) and the models of other units whose
    shapes may meet the box ``rho`` around it (``examined_near``; a plain reading of ``World._charge_local``); None
    where a unit ... has no such model and is a target (the caller checks)."""
    from mathhammer.board.cspace import examined_near

    c = board.model(lead)
    x, y = c.centre
    box = [x - rho, y - rho, x + rho, y + rho]
    own = board.unit_of(c).id
    units = []
    for u in board.units:
        models = (c,) if u.id == own else tuple(m for m in u.models if examined_near(box, m.centre, m.radius, c.radius))
        if models:
            units.append(Unit(u.id, u.side, models))
    return Board(board.width, board.depth, board.terrain, tuple(units))


def _local_and_whole(board: Board, lead: str, targets: list[str], rho: float, reach: float) -> None:
    """A Charge read on the models near the Leading Model (paths up to ``rho``) is the whole board's (paths up to
    ``reach``) where it is ``rho`` or less, or the same approximation of it: a legal end on the whole board (a Charge
    from there needs no move) with a length within half a goal sample spacing (``GOAL_STEP``) of the whole board's
    (both sample their own goal's edge, a ring that far target models may join: charge.py module text); where it is
    more, so is the whole board's."""
    whole = charge_distance(board, lead, targets, max_length=reach)
    near = _near_board(board, lead, rho)
    assert near is not None
    if any(all(u.id != t for u in near.units) for t in targets):
        assert whole.length > rho  # a target with no model near: no path that short
        return
    local = charge_distance(near, lead, targets, max_length=rho)
    if local.length > rho:
        assert whole.length > rho - 1e-9
        return
    if (local.path, local.length, local.levels, local.climb) == (whole.path, whole.length, whole.levels, whole.climb):
        return
    assert abs(local.length - whole.length) <= GOAL_STEP / 2
    assert local.end is not None
    moved = _moved(board, lead, local.end, local.levels[-1])
    assert charge_distance(moved, lead, targets, max_length=reach, engaged_ok=True).length == 0.0  # a legal end


def _moved(board: Board, model_id: str, xy: tuple[float, float], level: str | None) -> Board:
    """``board`` with the model ``model_id`` set at ``xy`` on ``level``."""
    units = tuple(
        Unit(
            u.id,
            u.side,
            tuple(
                dataclasses.replace(m, x=xy[0], y=xy[1], stands_on=level) if m.id == model_id else m for m in u.models
            ),
        )
        for u in board.units
    )
    return Board(board.width, board.depth, board.terrain, units)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.tuples(st.floats(3, 41), st.floats(3, 27)),
    st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=1, max_size=4),
    st.lists(st.tuples(st.floats(-7, 7), st.floats(-7, 7)), max_size=8),
    st.lists(st.tuples(st.floats(-6, 6), st.floats(-6, 6), st.floats(0.3, 4), st.floats(0.3, 4)), max_size=3),
    st.sampled_from([25, 32, 40]),
    st.booleans(),
    st.sampled_from([1.0, 2.0, 3.0, 4.0, 6.0]),
)
# found by Hypothesis (session 26): the target unit's far model joins its goal disc to the near one's, so the whole
# board samples another ring; the local end is 0.0147" nearer, the same approximation
@example((3.0, 3.0), [(0.0, 4.0), (-1.0, 0.75)], [], [(-1.5, 0.0, 1.0, 1.0)], 25, False, 1.0)
def test_a_charge_read_on_the_models_near_the_leading_model(
    lead: tuple[float, float],
    targets: list[tuple[float, float]],
    others: list[tuple[float, float]],
    walls: list[tuple[float, float, float, float]],
    mm: int,
    enemy: bool,
    rho: float,
) -> None:
    """8.7.7 step 2 (the shortest path) and step 3 (the end): a path of length ``rho`` or less stays within
    ``rho`` of the Leading Model, so only the models whose shapes may meet that box can block it, end it or be
    Engaged at its end. The search on the board of those models alone (``World._charge_local``) gives the whole
    board's answer where it is ``rho`` or less (walls, undeclared enemies or friendly models around), bit for bit but
    where the whole board's goal is another ring (the @example: a far target model's disc joined to a near one's),
    and then the same approximation (``_local_and_whole``); where it is more, so is the whole board's. (Before it
    was used: 3,000 such boards, 1,975 answers within ``rho``, every one the same; session 27: 6,000 more, 1,320
    within ``rho``, every one the same.)"""
    x, y = lead
    spec = [
        ("chargers", "p1", (Model("c1", x, y, base_mm=mm),)),
        ("targets", "p2", tuple(Model(f"t{i}", x + a, y + b, base_mm=25) for i, (a, b) in enumerate(targets))),
        (
            "others",
            "p2" if enemy else "p1",
            tuple(Model(f"o{i}", x + a, y + b, base_mm=25) for i, (a, b) in enumerate(others)),
        ),
    ]
    units = tuple(Unit(i, side, models) for i, side, models in spec if models)
    on_table = [(min(max(x + a, 0.1), 43.9 - w), min(max(y + b, 0.1), 29.9 - d), w, d) for a, b, w, d in walls]
    board, found = _charge_or_none(_walls(on_table), units, max_length=10.0)
    assume(found is not None)
    _local_and_whole(board, "c1", ["targets"], rho, 10.0)


@pytest.mark.parametrize("name", ["charge_high_ground.toml", "stacked_terrain.toml", "goliath_high_ground.toml"])
@pytest.mark.parametrize("rho", [1.0, 3.0, 6.0])
def test_a_charge_read_near_the_leading_model_on_the_golden_boards(name: str, rho: float) -> None:
    """The same on the golden boards of several levels (HIGH GROUND reached through ACCESS POINTs, the climb
    counted: 8.5.3, 8.7.7 step 2), for every unit's first model charging every enemy unit it may Charge."""
    board = load_board(GOLDEN / name)
    compared = 0
    for a in board.units:
        for b in board.units:
            if a.side == b.side or a.flying or b.flying:
                continue
            try:
                _local_and_whole(board, a.models[0].id, [b.id], rho, 12.0)
            except InputError:  # an Engaged charger, a climb with no height: no Charge to compare
                continue
            compared += 1
    assert compared


@pytest.mark.parametrize("seed", range(4))
def test_points_outside_each_obstacle_are_the_points_outside_their_union(seed: int) -> None:
    """charge_distance's nodes (8.7.7 step 2: the path bypasses the grown obstacles) keep the corners and goal points
    inside no tight obstacle: read per obstacle (``_outside_each``, box first) as the union reads them (``contains``),
    for the corners of the union of the circumscribed obstacles (just outside the tight ones), points on their edges,
    random points and the obstacles' centres (inside)."""
    from mathhammer.board.cspace import SLACK, _buffer, _disc, _off_table, _outside_each

    rng = np.random.default_rng(seed)
    board = Board(44, 30)
    for _ in range(25):
        n = int(rng.integers(1, 40))
        xy = rng.uniform([0, 0], [44, 30], size=(n, 2))
        r = rng.uniform(0.3, 1.5, size=n)
        discs = [_disc((float(x), float(y)), float(rad)) for (x, y), rad in zip(xy, r, strict=True)]
        wall = shapely.box(*sorted(rng.uniform(5, 39, 2)), *sorted(rng.uniform(5, 25, 2))).buffer(0.7)
        obstacles = [*discs, wall]
        geoms = np.asarray([*(_buffer(p, -SLACK) for p in obstacles), *_off_table(board, 0.5)], dtype=object)
        shapely.prepare(geoms)
        boxes = np.ascontiguousarray(shapely.bounds(geoms), dtype=np.float64).reshape(-1, 4)
        union = shapely.union_all(list(geoms))
        shapely.prepare(union)
        corners = [tuple(c) for c in shapely.get_coordinates(shapely.union_all(obstacles)).tolist()]
        edges = shapely.get_coordinates(
            shapely.line_interpolate_point(shapely.union_all(obstacles).boundary, np.linspace(0, 50, 80))
        )
        points = [
            *corners,
            *map(tuple, edges.tolist()),
            *map(tuple, rng.uniform([-1, -1], [45, 31], (200, 2)).tolist()),
        ]
        points += [(float(x), float(y)) for x, y in xy]
        kept = _outside_each(geoms, boxes, points)
        inside = shapely.contains_xy(union, *np.asarray(points).T)  # the naive reading: the union's own test
        assert kept == [p for p, hit in zip(points, inside.tolist(), strict=True) if not hit]
        assert len(points) - len(kept) >= n  # the centres at least are inside


def test_a_disc_box_is_the_bounds_of_its_disc() -> None:
    """charge_distance's goal (8.7.7 step 3: not Within 1" of an undeclared enemy) takes away the discs whose boxes meet
    it, read without making the others (``_disc_box``): the box is the disc polygon's own bounds, to the bit."""
    from mathhammer.board.cspace import GROW, _disc, _disc_box

    rng = np.random.default_rng(5)
    for x, y, rad in rng.uniform([-2.0, -2.0, 0.2], [46.0, 32.0, 4.0], size=(3000, 3)).tolist():
        for grow in (GROW, 1.0):
            assert _disc_box((x, y), rad, grow) == _disc((x, y), rad, grow).bounds


@pytest.mark.parametrize("seed", range(3))
def test_points_along_a_goals_edge_are_shapelys_to_the_bit(seed: int) -> None:
    """charge_distance samples the goal region's edge every GOAL_STEP inches (8.7.7 step 3's legal ends):
    ``_interpolate`` gives ``shapely.line_interpolate_point``'s points to the bit, on the edges of random unions of
    discs less other discs (rings, holes, many parts), at evenly spaced distances, at each part's end's running total
    (GEOS then takes that part's end, not the next part's start), at 0, past the end and at random distances."""
    from mathhammer.board.cspace import _disc, _interpolate, _zone

    rng = np.random.default_rng(seed)
    for _ in range(60):
        shapes = [
            _zone((x, y), rad) for x, y, rad in rng.uniform([0, 0, 0.5], [20, 20, 3], (int(rng.integers(1, 6)), 3))
        ]
        region = shapely.union_all(shapes)
        holes = [
            _disc((x, y), rad) for x, y, rad in rng.uniform([0, 0, 0.2], [20, 20, 1.5], (int(rng.integers(0, 4)), 3))
        ]
        if holes:
            region = region.difference(shapely.union_all(holes))
        if region.is_empty:
            continue
        edge = region.boundary
        length = edge.length
        xy = [shapely.get_coordinates(p) for p in shapely.get_parts(edge)]
        steps = [np.sqrt(((c[1:] - c[:-1]) ** 2).sum(axis=1)) for c in xy]
        totals = np.cumsum(np.concatenate(steps))[np.cumsum([len(st) for st in steps]) - 1]
        d = np.concatenate(
            [
                np.linspace(0, length, 200, endpoint=False),
                totals,
                [0.0, length, length + 1.0],
                rng.uniform(0, length, 50),
            ]
        )
        want = shapely.get_coordinates(shapely.line_interpolate_point(edge, d))
        assert np.array_equal(_interpolate(edge, d), want)
