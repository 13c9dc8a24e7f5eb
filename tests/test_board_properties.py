"""Property tests of Line of Sight (rulebook 7.1) and of the exact "any trace" search.

Monotonicity. The naive claim "moving a blocking wall further away never hides a model" is false under the
rules, for two reasons (both shown by the counterexamples at the end):

* Direct Cover is about *either* model: moving a wall away from the target can bring it Within 1" of the attacker,
  and then it blocks if it is as tall as the attacker (7.1.1).
* Close Quarters (7.1.1) switches Direct Cover *off* when both models are Within 1" of the piece and Within 3" of
  each other: moving or shrinking the wall away from one model can switch Close Quarters off while the other model
  still gets Direct Cover.

What is true, and tested:

1. Shrinking a wall (a footprint that is a subset of the old one) never hides a model from one more than 3" away:
   Close Quarters cannot apply beyond 3"; Full Cover does not depend on geometry; Direct Cover needs a model Within
   1", and distances to a subset never decrease; and every trace that crosses the subset crossed the old footprint.
   So the set of blocked traces can only shrink, and the Dead Zone (surface pieces only) is untouched.
2. A wall spanning the whole lane between two models more than 3" apart, kept more than 1" from the attacker, moved
   further from the target never hides it: every trace crosses the wall in both positions, Full Cover and the
   attacker's Direct Cover are unchanged, and the target's Direct Cover (Within 1") can only be lost.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box

from mathhammer.board import Board, BoardError, Model, Terrain, Unit, line_of_sight
from mathhammer.board.model import EPS
from mathhammer.board.trace import free_trace

W, D = 44.0, 30.0
BASES = (25.0, 32.0, 40.0, 50.0)


def rect(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


@st.composite
def walls(draw: st.DrawFn, n_max: int = 4) -> list[Terrain]:
    out = []
    for i in range(draw(st.integers(0, n_max))):
        x = draw(st.floats(2, W - 8))
        y = draw(st.floats(2, D - 8))
        w = draw(st.floats(0.2, 6))
        h = draw(st.floats(0.2, 6))
        grass = draw(st.booleans())
        size = 2 if grass else draw(st.integers(0, 5))
        out.append(Terrain(f"w{i}", rect(x, y, x + w, y + h), size=size, grass=grass))
    return out


@st.composite
def boards(draw: st.DrawFn) -> Board:
    terrain = draw(walls())
    plateau = None
    if draw(st.booleans()):
        px, py = draw(st.floats(2, W - 12)), draw(st.floats(2, D - 12))
        plateau = Terrain("plateau", rect(px, py, px + 8, py + 8), size=draw(st.integers(1, 4)), surface=True)
        terrain.append(plateau)
    units = []
    for i in range(draw(st.integers(2, 4))):
        x, y = draw(st.floats(1.2, W - 1.2)), draw(st.floats(1.2, D - 1.2))
        on = plateau is not None and draw(st.booleans()) and plateau.polygon.contains(Point(x, y))
        model = Model(
            f"m{i}",
            x,
            y,
            base_mm=draw(st.sampled_from(BASES)),
            size=draw(st.integers(0, 4)),
            stands_on="plateau" if on else None,
            flying=draw(st.booleans()) and draw(st.booleans()),
        )
        units.append(Unit(f"u{i}", f"p{i % 2}", (model,)))
    try:
        return Board(W, D, tuple(terrain), tuple(units))
    except BoardError:
        assume(False)
        raise


@settings(max_examples=120, deadline=None)
@given(boards())
def test_7_1_line_of_sight_is_mutual(board: Board) -> None:
    """Part 11 LINE OF SIGHT: "Line of Sight is mutual: if Model A can see Model B, Model B can see Model A"."""
    models = list(board.models)
    for a in models:
        for b in models:
            ab, ba = line_of_sight(board, a, b), line_of_sight(board, b, a)
            assert ab.visible == ba.visible, (a.id, b.id, ab, ba)
            assert ab.rule == ba.rule


@st.composite
def trace_cases(draw: st.DrawFn) -> tuple[tuple[float, float], float, tuple[float, float], float, list]:
    ca = (draw(st.floats(0, 4)), draw(st.floats(0, 10)))
    cb = (draw(st.floats(12, 16)), draw(st.floats(0, 10)))
    ra, rb = draw(st.floats(0.3, 1.2)), draw(st.floats(0.3, 1.2))
    obstacles = []
    for _ in range(draw(st.integers(1, 3))):
        x, y = draw(st.floats(2, 13)), draw(st.floats(-2, 11))
        piece = box(x, y, x + draw(st.floats(0.1, 3)), y + draw(st.floats(0.1, 6)))
        obstacles.append(affinity.rotate(piece, draw(st.floats(0, 180))))
    return ca, ra, cb, rb, obstacles


def _sample_free(ca, ra, cb, rb, obstacles) -> bool:  # type: ignore[no-untyped-def]
    angles = np.linspace(0, 2 * math.pi, 48, endpoint=False)
    pa = [(ca[0] + ra * math.cos(t), ca[1] + ra * math.sin(t)) for t in angles] + [ca]
    pb = [(cb[0] + rb * math.cos(t), cb[1] + rb * math.sin(t)) for t in angles] + [cb]
    solid = shapely.union_all([o.buffer(1e-4) for o in obstacles])  # sampled traces must clear by a margin
    segs = shapely.linestrings([[p, q] for p in pa for q in pb])
    return not bool(np.all(shapely.intersects(segs, solid)))


@settings(max_examples=200, deadline=None)
@given(trace_cases())
def test_trace_search_is_sound_and_never_misses_a_sampled_trace(case) -> None:  # type: ignore[no-untyped-def]
    """7.1 "any part ... to any part": the exact search finds a free trace whenever dense sampling finds one, and a
    trace it returns really joins the two bases without passing through an obstacle."""
    ca, ra, cb, rb, obstacles = case
    found = free_trace(ca, ra, cb, rb, obstacles)
    if _sample_free(ca, ra, cb, rb, obstacles):
        assert found is not None
    if found is not None:
        p, q = found
        assert math.dist(p, ca) <= ra + 1e-6 and math.dist(q, cb) <= rb + 1e-6
        seg = LineString([p, q]) if p != q else Point(p)
        for o in obstacles:
            assert not seg.intersects(o.buffer(-10 * EPS))


@settings(max_examples=120, deadline=None)
@given(boards(), st.data())
def test_shrinking_a_wall_never_hides_a_model_more_than_3_inches_away(board: Board, data: st.DataObject) -> None:
    """Monotonicity 1 (module text): a subset footprint never turns a visible pair (> 3" apart) into a hidden one."""
    walls_ = [t for t in board.terrain if not t.surface]
    assume(walls_)
    wall = data.draw(st.sampled_from(walls_))
    (x0, y0), _, (x1, y1), _ = wall.footprint
    fx0, fx1 = sorted(data.draw(st.tuples(st.floats(0, 1), st.floats(0, 1))))
    fy0, fy1 = sorted(data.draw(st.tuples(st.floats(0, 1), st.floats(0, 1))))
    assume(fx1 - fx0 > 0.05 and fy1 - fy0 > 0.05)
    nx0, nx1 = x0 + fx0 * (x1 - x0), x0 + fx1 * (x1 - x0)
    ny0, ny1 = y0 + fy0 * (y1 - y0), y0 + fy1 * (y1 - y0)
    smaller = Terrain(wall.id, rect(nx0, ny0, nx1, ny1), size=wall.size, grass=wall.grass)
    after = Board(W, D, tuple(smaller if t.id == wall.id else t for t in board.terrain), board.units)
    for a in board.models:
        for b in board.models:
            if a.id != b.id and a.distance(b) > 3 + 1e-6 and line_of_sight(board, a, b).visible:
                assert line_of_sight(after, after.model(a.id), after.model(b.id)).visible


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 6),
    st.integers(0, 4),
    st.integers(0, 4),
    st.booleans(),
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 8),
)
def test_moving_a_lane_wall_away_from_the_target_never_hides_it(
    wall_size: int, att_size: int, tgt_size: int, flying: bool, f1: float, f2: float, ty: float
) -> None:
    """Monotonicity 2 (module text): attacker at x=4, target at x=30; a wall spanning the table depth between them,
    kept more than 1" from the attacker, moved further from the target, never hides it."""
    att = Model("att", 4, 15, base_mm=32, size=att_size, flying=flying)
    tgt = Model("tgt", 30, 11 + ty, base_mm=25, size=tgt_size)
    lo, hi = 4 + att.radius + 1.01, 30 - tgt.radius - 0.3  # wall's near-attacker edge range
    near_x = lo + max(f1, f2) * (hi - lo)  # closer to the target
    far_x = lo + min(f1, f2) * (hi - lo)  # further from the target

    def board(x: float) -> Board:
        wall = Terrain("wall", rect(x, 0, x + 0.3, D), size=wall_size)
        return Board(W, D, (wall,), (Unit("a", "p1", (att,)), Unit("t", "p2", (tgt,))))

    if line_of_sight(board(near_x), att, tgt).visible:
        assert line_of_sight(board(far_x), att, tgt).visible


def test_counterexample_moving_a_wall_away_from_the_target_towards_the_attacker() -> None:
    """7.1.1 Direct Cover applies to "either the attacker or the target": moved next to the attacker, it blocks."""
    att, tgt = Model("att", 4, 15, size=2), Model("tgt", 30, 15, size=3)
    units = (Unit("a", "p1", (att,)), Unit("t", "p2", (tgt,)))
    mid = Board(W, D, (Terrain("wall", rect(16, 0, 16.3, D), size=2),), units)
    near_attacker = Board(W, D, (Terrain("wall", rect(5, 0, 5.3, D), size=2),), units)
    assert line_of_sight(mid, att, tgt).visible  # Size 2 < the target's 3: no Full Cover
    assert line_of_sight(near_attacker, att, tgt).rule == "direct-cover"


def test_counterexample_close_quarters_lost_by_moving_the_wall() -> None:
    """7.1.1 CLOSE QUARTERS: both Within 1" of the wall and Within 3": visible. Move the wall 0.6" away from the
    attacker (still Within 1" of the target and still between them): Close Quarters is lost, Direct Cover hides."""
    att, tgt = Model("att", 8, 15, size=3, base_mm=32), Model("tgt", 10.9, 15, size=2)
    units = (Unit("a", "p1", (att,)), Unit("t", "p2", (tgt,)))
    before = Board(W, D, (Terrain("wall", rect(9.3, 0, 9.6, D), size=2),), units)
    after = Board(W, D, (Terrain("wall", rect(9.9, 0, 10.2, D), size=2),), units)
    assert line_of_sight(before, att, tgt).visible
    assert line_of_sight(after, att, tgt).rule == "direct-cover"
