"""The straight Charge (8.7.7 step 2 "Measure along the actual path of travel - bypass impassable obstacles") read on
the obstacles near its line only, held to a naive reading of every obstacle on the board."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mathhammer.board import charge
from mathhammer.board.cspace import SLACK, _buffer, _disc, _off_table, _table, _zones
from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import Board
from tests.test_board_charge import _charge_or_none, _charger_targets_others, _walls


def _naive_straight(board: Board, engage: bool, max_length: float | None) -> charge.ChargePath | None:
    """The straight Charge of c1 at "targets" read on every obstacle made: each base's disc and each wall grown by
    the Leading Model's radius and shrunk by SLACK, and the four off-table strips, tested in full."""
    lead = board.model("c1")
    home = charge._level(board, lead, ["targets"], None)
    geoms = np.asarray([*(_buffer(p, -SLACK) for p in home.obstacles), *_off_table(board, lead.radius)], dtype=object)
    start = lead.centre
    xy0 = shapely.points(np.asarray([start], dtype=float))
    limit = math.inf if max_length is None else max_length + 1e-9
    if float(shapely.distance(xy0, home.goal)[0]) > limit:
        return charge.ChargePath(None, math.inf)
    if shapely.contains_xy(geoms, *start).any():
        return None
    end = tuple(shapely.get_coordinates(shapely.shortest_line(xy0, home.goal)).reshape(-1, 2, 2)[0, 1].tolist())
    if shapely.contains_xy(geoms, *end).any() or math.dist(start, end) > limit:
        return None
    if shapely.intersects(geoms, shapely.linestrings([start, end])).any():
        return None
    if engage and not charge._engages_all(board, lead, end, None, ["targets"]):
        return None
    return charge.ChargePath((start, end), float(np.hypot(end[0] - start[0], end[1] - start[1])), (None, None), 0.0)


_POINT = st.tuples(st.floats(3, 41), st.floats(3, 27))


@st.composite
def _cases(draw: st.DrawFn) -> tuple[Board, bool, float | None]:
    """A board of one level: the charger c1 (25, 32 or 40 mm), one to three target models, up to three bystanders set
    across the line to the first target (a fraction of the way and an offset across it) and up to three anywhere, up
    to two walls; Engaging or not, a longest length or not."""
    lead, targets = draw(_POINT), draw(st.lists(_POINT, min_size=1, max_size=3))
    tx, ty = targets[0]
    norm = math.hypot(tx - lead[0], ty - lead[1])
    assume(norm > 1.0)
    nx, ny = -(ty - lead[1]) / norm, (tx - lead[0]) / norm
    on_line = draw(st.lists(st.tuples(st.floats(0.1, 0.9), st.floats(-1.5, 1.5)), max_size=3))
    across = [(lead[0] + f * (tx - lead[0]) + o * nx, lead[1] + f * (ty - lead[1]) + o * ny) for f, o in on_line]
    others = [*across, *draw(st.lists(_POINT, max_size=3))]
    walls = draw(
        st.lists(st.tuples(st.floats(2, 38), st.floats(2, 24), st.floats(0.3, 6), st.floats(0.3, 6)), max_size=2)
    )
    units = _charger_targets_others(lead, targets, others, draw(st.sampled_from([25, 32, 40])))
    board, _ = _charge_or_none(_walls(walls), tuple(units))
    return board, draw(st.booleans()), draw(st.sampled_from([None, 6.0, 12.0]))


@settings(max_examples=150, deadline=None)
@given(_cases())
def test_the_straight_charge_reads_the_obstacles_near_its_line_as_every_one(
    case: tuple[Board, bool, float | None],
) -> None:
    """8.7.7 step 2 and 8.5.3 step 1 (the bases of other units and Size 2+ terrain are path obstacles, the table edge
    bounds the path): on a board of one level, the straight Charge tested only against the obstacles whose boxes meet
    its line's box (``_Level.tight_near``) gives the answer of the same test against every obstacle, bystanders set
    across the line (``on_line``: a fraction of the way to the first target and an offset across it) and anywhere.
    Reading only the obstacles near the start fails it (checked)."""
    board, engage, max_length = case
    assume(any(m.id == "c1" for m in board.models))  # else the board refused the units (bases overlapping)
    assume(not charge._level(board, board.model("c1"), ["targets"], None).goal.is_empty)
    assert _straight(board, engage, max_length) == _naive_straight(board, engage, max_length)


def _straight(board: Board, engage: bool, max_length: float | None) -> charge.ChargePath | None:
    lead = board.model("c1")
    home = charge._level(board, lead, ["targets"], None)
    return charge._straight_charge(board, lead, ["targets"], home, _off_table(board, lead.radius), engage, max_length)


def test_a_base_across_the_line_leaves_the_charge_to_the_search() -> None:
    """8.5.3 step 1 ("may not pass through Enemy models or Friendly models from other Units"): a bystander's base
    across the straight line from the charger to its target, halfway, blocks the straight Charge (the search goes
    round it); with the bystander beside the line instead, the straight Charge holds."""
    for beside, blocked in ((0.0, True), (2.5, False)):
        units = _charger_targets_others((5.0, 15.0), [(20.0, 15.0)], [(12.5, 15.0 + beside)], 25)
        board, _ = _charge_or_none((), tuple(units))
        got = _straight(board, True, None)
        assert got == _naive_straight(board, True, None)
        assert (got is None) == blocked


def test_a_level_makes_the_bases_discs_where_read_and_the_same_goal() -> None:
    """8.5.3 ("may not end overlapping ... another model's base") and 8.7.7 step 3 (not Within 1" of an undeclared
    enemy): the goal region made with only the discs whose boxes meet its own is the region made with every disc, and
    the path obstacles read are every other unit's base grown by the Leading Model's radius."""
    units = _charger_targets_others((5.0, 5.0), [(20.0, 12.0), (22.0, 13.0)], [(30.0, 25.0), (21.0, 9.5), (8, 20)], 32)
    board, _ = _charge_or_none(_walls([(12.0, 4.0, 1.0, 6.0)]), tuple(units))
    lead = board.model("c1")
    r = lead.radius
    home = charge._level(board, lead, ["targets"], None)
    assert home.made.count(None) == 5  # two target models and three bystanders, none made yet
    others = [m for m in board.models if m.id != "c1"]
    assert [p.equals(_disc(m.centre, m.radius + r)) for p, m in zip(home.obstacles[1:], others, strict=True)] == [
        True
    ] * 5
    naive = _table(board, r).intersection(
        _zones(tuple((m.centre, m.radius + ENGAGEMENT_RANGE + r) for m in board.unit("targets").models))
    )
    taken = [_buffer(t.polygon, r * charge.GROW) for t in board.terrain] + [
        _disc(m.centre, m.radius + r) for m in others
    ]
    if board.unit("others").side != board.unit("chargers").side:
        taken += [_disc(m.centre, m.radius + ENGAGEMENT_RANGE + r) for m in board.unit("others").models]
    naive = naive.difference(shapely.union_all(taken))
    assert home.goal.symmetric_difference(naive).area < 1e-9
    assert not home.goal.is_empty
