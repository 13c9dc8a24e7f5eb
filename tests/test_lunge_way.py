"""Lunge's Move Directly Towards the attacking unit: the maximum possible distance (FAQ v1.0: "W przypadku ruchu
Directly Towards lub Directly Away Leading Model musi natomiast wykorzystać maksymalny możliwy dystans ruchu", the
Leading Model must use the maximum possible distance), read by :meth:`World.toward_end`
(``mathhammer/scenario/geometry/toward.py``): the farthest point of the straight way, at most Speed and short of
Within 1" of the attacking unit (8.5.3), that the Leading Model's base reaches without passing through a Size 2+ wall
or another unit's Ground model (8.5.3 step 1) and where the unit can be set (8.5.3 step 2).

Before session 56 a Lunge went its full distance or nowhere: where that end was on terrain or on a friendly base, the
Hydralisks stayed. A naive reference below reads the way with shapely (the Leading Model's base swept along the
segment), every 0.01".
"""

from __future__ import annotations

import math
import random

import pytest
import shapely
from shapely.geometry import LineString, Point

from mathhammer.board.model import EPS
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.geometry.toward import TOWARD_STEP
from mathhammer.scenario.world import GAP, World


@pytest.fixture(scope="module")
def world() -> World:
    return World(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")))


def put(world: World, uid: str, at: tuple[float, float], occupied: tuple[int, ...] = ()) -> int:
    pid = world.place(world.scn.units[uid], at, world.rear_of(world.scn.units[uid].player), occupied)
    assert pid is not None, (uid, at)
    return pid


def naive_end(
    world: World, pid: int, qid: int, inches: float, occupied: tuple[int, ...], step: float = 0.01
) -> float | None:
    """The farthest distance (every ``step`` inches back from the full one) that the Leading Model of ``pid`` moves
    straight at the nearest model of ``qid`` (at most ``inches``, its base kept more than 1" from that model's) with
    its base swept along the segment clear of the walls (Size 2+, not Grass), inside the table and clear of every other
    unit's base, and where :meth:`World.place` sets the unit: a naive reading, or None."""
    p, q = world.placements[pid], world.placements[qid]
    su = world.scn.units[p.unit]
    r, rq = su.base_mm / 25.4 / 2, world.scn.units[q.unit].base_mm / 25.4 / 2
    lead = p.centres[0]
    aim = min(q.centres, key=lambda c: math.dist(lead, c))
    d = math.dist(lead, aim)
    full = min(inches, d - r - rq - 1.0 - GAP)  # the engine stops GAP short of Within 1"
    walls = [t.polygon for t in world.board.terrain if t.size >= 2 and not t.grass and not t.token]
    bases = [(c, world.scn.units[world.placements[o].unit].base_mm / 25.4 / 2) for o in occupied
             for c in world.placements[o].centres]  # fmt: skip
    k = math.floor(full / step + 1e-9)
    for s in [full] + [step * i for i in range(k, 0, -1)]:
        if s <= EPS or s > full + 1e-12:
            continue
        end = (lead[0] + (aim[0] - lead[0]) * s / d, lead[1] + (aim[1] - lead[1]) * s / d)
        seg = LineString([lead, end])
        if any(shapely.distance(seg, w) <= r + 1e-9 for w in walls):
            continue
        if any(seg.distance(Point(c)) < r + rc for c, rc in bases):
            continue
        x, y = end
        if x < r or y < r or x > world.board.width - r or y > world.board.depth - r:
            continue
        if world.place(su, end, world.rear_from(pid, end), occupied) is not None:
            return s
    return None


def test_an_open_way_goes_the_full_distance_to_the_bit(world: World) -> None:
    """No wall or base on the way: the end is :meth:`World.toward`'s, Speed (4") straight at the Goliath."""
    h = put(world, "hydralisk-1", (30.0, 30.0))
    g = put(world, "goliath-1", (30.0, 8.0), (h,))
    end = world.toward_end(h, 2, g, 1, 4.0, (g,))
    assert end == world.toward(h, 2, g, 1, 4.0) == (30.0, 26.0)


def test_a_wall_on_the_way_stops_the_lunge_at_it(world: World) -> None:
    """ridge-west (Size 3, y 18 to 19.5) between the Hydralisks (y 23.5) and the Goliath: the full 4" would end on the
    wall (where the unit cannot be set: before session 56 it stayed); the Leading Model's base (100 mm, r 1.97") stops
    where it would touch the wall, 23.5 - 19.5 - 1.97 = 2.03" on, within one step."""
    h = put(world, "hydralisk-1", (18.5, 23.5))
    g = put(world, "goliath-1", (18.5, 8.0), (h,))
    assert world.place(world.scn.units["hydralisk-1"], world.toward(h, 2, g, 1, 4.0), (0.0, 1.0), (g,)) is None
    end = world.toward_end(h, 2, g, 1, 4.0, (g,))
    assert end is not None and end[0] == pytest.approx(18.5)
    r = 100 / 25.4 / 2
    assert 23.5 - 19.5 - r - TOWARD_STEP <= 23.5 - end[1] <= 23.5 - 19.5 - r


def test_a_friendly_base_on_the_way_is_not_passed(world: World) -> None:
    """A Roach unit of the same player 3" down the line: the Hydralisks may not pass through it (8.5.3 step 1: "may
    not pass through ... Friendly models from other Units") nor end on it; they stop short of it, at the naive
    reading's distance within one step."""
    h = put(world, "hydralisk-1", (30.0, 30.0))
    g = put(world, "goliath-1", (30.0, 8.0), (h,))
    rc = put(world, "roach-1", (30.0, 25.0), (h, g))
    others = (g, rc)
    end = world.toward_end(h, 2, g, 1, 4.0, others)
    want = naive_end(world, h, g, 4.0, others)
    assert end is not None and want is not None
    got = math.dist((30.0, 30.0), end)
    assert want - TOWARD_STEP - 0.01 <= got <= want + 1e-6
    assert got < 4.0 - 1.0  # short of the Roaches' front model


def test_nowhere_to_go_is_none(world: World) -> None:
    """Already at the Goliath's Engagement Range (no closer point short of Within 1"): None, as :meth:`World.toward`."""
    g = put(world, "goliath-1", (30.0, 8.0))
    r_h, r_g = 100 / 25.4 / 2, 80 / 25.4 / 2
    h = put(world, "hydralisk-1", (30.0, 8.0 + r_g + r_h + 1.0005), (g,))
    assert world.toward(h, 2, g, 1, 4.0) is None
    assert world.toward_end(h, 2, g, 1, 4.0, (g,)) is None


def test_toward_end_agrees_with_the_naive_reading_on_random_boards(world: World) -> None:
    """300 random boards (seed 5): the Hydralisks, the Goliath and up to three other units set at random points of
    standard_clash (its walls included). ``toward_end`` is None where the naive reading finds no distance or none past
    one of its steps (``TOWARD_STEP``); elsewhere it is never farther than the naive maximum (plus 1e-6) and at most one
    step of each short of it. Of the boards, some must end short of the full distance (the reading is exercised)."""
    rng = random.Random(5)
    su = world.scn.units
    short = compared = 0
    for _ in range(300):
        occupied: list[int] = []
        pids: dict[str, int] = {}
        for uid in ("goliath-1", "hydralisk-1", "roach-1", "zergling-1", "marine-1"):
            for _try in range(20):
                at = (rng.uniform(3, 51), rng.uniform(3, 33))
                pid = world.place(su[uid], at, world.rear_of(su[uid].player), tuple(occupied))
                if pid is not None:
                    pids[uid] = pid
                    occupied.append(pid)
                    break
        if "goliath-1" not in pids or "hydralisk-1" not in pids:
            continue
        h, g = pids["hydralisk-1"], pids["goliath-1"]
        if math.dist(world.placements[h].centres[0], world.placements[g].centres[0]) > 14:
            continue
        others = tuple(p for p in occupied if p != h)
        end = world.toward_end(h, 2, g, 1, 4.0, others)
        want = naive_end(world, h, g, 4.0, others)
        compared += 1
        if end is None:  # nowhere, or nowhere past its first point
            assert want is None or want < TOWARD_STEP + 0.01, want
            continue
        assert want is not None, end
        got = math.dist(world.placements[h].centres[0], end)
        assert want - TOWARD_STEP - 0.01 <= got <= want + 1e-6, (got, want)
        full = world.toward(h, 2, g, 1, 4.0)
        short += full is not None and got < math.dist(world.placements[h].centres[0], full) - 1e-9
    assert compared >= 60 and short >= 10, (compared, short)
