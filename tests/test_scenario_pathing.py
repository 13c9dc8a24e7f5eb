"""The Leading Model's path for Moves and Deploys (8.5.3 step 1, 8.5.5; ``mathhammer/board/pathing.py``).

8.5.3 step 1: "Measure the actual path travelled. ... The Leading Model cannot move through terrain of Size 2 or
larger. Follow Gap Clearance rules (Part 4.6)." GRASS "does not block movement"; FLYING "moves point-to-point".
8.5.5: "Set the Leading Model in contact with the player's Entry Edge outside of the battlefield, then move it up
to the Unit's Speed": no part of its base ends farther than Speed from the edge.
"""

from __future__ import annotations

import math

import pytest

from mathhammer.board.charge import charge_distance
from mathhammer.board.model import MM_PER_INCH, Board, Model, Terrain, Unit
from mathhammer.board.pathing import clear_line, shortest_route
from mathhammer.scenario import ScenarioError, simulate
from mathhammer.scenario.world import World

from .scenario_kit import build, skirmish
from .scenario_kit import errors as kit_errors

#: a Marine's base (32 mm), the Leading Model of the Terran test army
R = 32 / MM_PER_INCH / 2
#: a Size 3 wall across x = 10..11, y = 5..25
WALL = Terrain("wall", ((10, 5), (11, 5), (11, 25), (10, 25)), size=3)


def _board(*terrain: Terrain) -> Board:
    return Board(44, 30, terrain=terrain)


# ----------------------------------------------------------------- the path search (board layer)


def test_the_kept_corner_to_corner_legs_give_the_ways_of_legs_tested_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """8.5.3 (the way round the terrain): a level's corner-to-corner legs, kept after the first search on the level
    (``_Obstacles.corner_hits``, ``corner_lengths``), and the legs from a start and to an end, kept per point
    (``from_point``, ``hits_to``) and relaxed as arrays, give every search the way found with every leg tested afresh
    (``_KEEP_LEGS`` off),
    to the bit, on both levels of a board with a cliff climbed through its ACCESS POINT (the levels' corners follow
    one another in the search's nodes: an index read off by one level would change these ways)."""
    import numpy as np

    from mathhammer.board import pathing

    cliff = Terrain(
        "cliff", ((24, 10), (30, 10), (30, 20), (24, 20)), size=3, surface=True,
        access_points=(((27, 10), (28, 10)),), height=3.0,
    )  # fmt: skip
    crate = Terrain("crate", ((26, 14), (27, 14), (27, 16), (26, 16)), size=2, stands_on="cliff")
    board = _board(WALL, Terrain("block", ((16, 2), (19, 2), (19, 9), (16, 9)), size=3), cliff, crate)
    rng = np.random.default_rng(29)
    asked = []
    for _ in range(120):
        a, b = rng.choice(2, size=2)
        ends = [(float(rng.uniform(25, 29)), float(rng.uniform(11, 19))) if k else
                (float(rng.uniform(1, 43)), float(rng.uniform(1, 29))) for k in (a, b)]  # fmt: skip
        asked.append((ends[0], "cliff" if a else None, ends[1], "cliff" if b else None))
    pathing._LEVELS.clear()
    warm = [shortest_route(board, s, sl, e, el, radius=R) for s, sl, e, el in asked]
    kept = [(len(o.seen), len(o.starts), len(o.ends)) for _, o in pathing._LEVELS.values()]
    assert min(map(sum, zip(*kept, strict=True))) > 0  # the legs were kept and read
    monkeypatch.setattr(pathing, "_KEEP_LEGS", False)
    pathing._LEVELS.clear()
    fresh = [shortest_route(board, s, sl, e, el, radius=R) for s, sl, e, el in asked]
    assert sum(len(o.seen) + len(o.starts) + len(o.ends) for _, o in pathing._LEVELS.values()) == 0
    assert warm == fresh
    assert sum(math.isfinite(w.length) and w.via != () for w in warm) > 5  # climbs through the ACCESS POINT
    bent = [math.dist(a, b) + 1e-6 < w.length < math.inf for w, (a, _, b, _) in zip(warm, asked, strict=True)]
    assert sum(bent) > 20  # round the walls: ways through corners


def test_a_size_3_wall_is_gone_round() -> None:
    """8.5.3: "The Leading Model cannot move through terrain of Size 2 or larger": the way around the wall's end,
    at least the tangent path past its grown corner, at most the path through the grown corner's box."""
    way = shortest_route(_board(WALL), (5, 15), None, (16, 15), None, radius=R)
    # the centre passes below y = 5 - R: from (5, 15) to (10 - R, 5 - R), across, to (16, 15)
    square = math.hypot(5 - R, 10 + R) * 2 + 1 + 2 * R
    assert 11 < way.length <= square + 1e-6
    assert way.length > math.hypot(5 - R, 10) * 2 + 1  # longer than any path not round the base
    assert not clear_line(_board(WALL), (5, 15), (16, 15), None, R)


def test_grass_does_not_lengthen_a_path() -> None:
    """Part 11 GRASS: "does not block movement" (Size 2 for Line of Sight only)."""
    grass = Terrain("grass", WALL.footprint, size=2, grass=True)
    assert shortest_route(_board(grass), (5, 15), None, (16, 15), None, radius=R).length == pytest.approx(11.0)
    assert clear_line(_board(grass), (5, 15), (16, 15), None, R)


def test_size_1_terrain_and_tokens_do_not_block() -> None:
    """8.5.3 step 1 names terrain "of Size 2 or larger"; a Token never blocks."""
    low = Terrain("low", WALL.footprint, size=1)
    token = Terrain("tok", WALL.footprint, size=0, token=True)
    for piece in (low, token):
        assert shortest_route(_board(piece), (5, 15), None, (16, 15), None, radius=R).length == pytest.approx(11.0)


def test_a_gap_narrower_than_the_base_is_closed() -> None:
    """Part 4.6 Gap Clearance (8.5.3 "Follow Gap Clearance rules"): the base must fit through a gap."""

    def walls(gap: float) -> Board:
        lo = Terrain("lo", ((10, 0), (11, 0), (11, 15 - gap / 2), (10, 15 - gap / 2)), size=3)
        hi = Terrain("hi", ((10, 15 + gap / 2), (11, 15 + gap / 2), (11, 30), (10, 30)), size=3)
        return _board(lo, hi)

    assert shortest_route(walls(2 * R + 0.1), (5, 15), None, (16, 15), None, radius=R).length == pytest.approx(11)
    assert math.isinf(shortest_route(walls(2 * R - 0.1), (5, 15), None, (16, 15), None, radius=R).length)


def test_a_deploy_is_measured_from_the_edge_round_the_walls() -> None:
    """8.5.5 ("move it up to the Unit's Speed following standard Move rules (Part 8.5.3)"): the centre's path from
    the Entry Edge (plus ``edge_offset``), at right angles where nothing is in the way, round a wall in front."""
    b = _board()
    assert shortest_route(b, None, None, (12, 3), None, radius=R, edge="south").length == pytest.approx(3)
    assert shortest_route(b, None, None, (40, 12), None, radius=R, edge="east", edge_offset=R).length == (
        pytest.approx(4 + R)
    )
    front = Terrain("front", ((8, 1.5), (16, 1.5), (16, 2), (8, 2)), size=3)
    way = shortest_route(_board(front), None, None, (12, 3), None, radius=R, edge="south")
    assert way.length > 3 + 4
    w = World(build(skirmish("pathing test", rounds=[]), "path.toml"))  # 8.5.5: the base starts outside the edge
    assert w.route(None, None, (12, 3), None, edge="south", radius=R).length == pytest.approx(3 + R)


def test_charge_results_unchanged_by_the_shared_obstacle_test() -> None:
    """8.7.7 step 2 ("bypass impassable obstacles") uses the same obstacles as a Move (8.5.3): a Charge round the
    wall is as long as the Move round it to the same end, and GRASS lengthens neither."""
    a = Model("a", 5, 15, base_mm=32)
    b = Model("b", 16 + 2 * R + 1 - 1e-3, 15, base_mm=32)
    board = Board(44, 30, terrain=(WALL,), units=(Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
    charge = charge_distance(board, "a", ["y"], engage=False)
    move = shortest_route(_board(WALL), (5, 15), None, charge.end, None, radius=R)
    assert charge.length == pytest.approx(move.length, abs=0.01)


# ----------------------------------------------------------------- scenario check and the simulation
def _errors(terrain: list[dict], rounds: list[dict]) -> list[str]:
    return kit_errors(build(skirmish("pathing test", terrain=terrain, rounds=rounds), "path.toml"))


def _run(to: list[float], deploy: list[float] | None = None) -> list[dict]:
    return [
        {
            "round": 1,
            "red": {
                "movement": [{"unit": "marine-1", "action": "deploy", "to": deploy or [12, 3]}],
                "assault": [{"unit": "marine-1", "action": "run", "to": to}],
            },
        }
    ]


#: a short Size 3 wall straight across the Marines' Run from (12, 3) to (12, 6.5)
SHORT = {"id": "short", "footprint": [[11.8, 4.7], [12.2, 4.7], [12.2, 4.9], [11.8, 4.9]], "size": 3}
#: a long one: the way round is far longer than Speed 4
LONG = {"id": "long", "footprint": [[4, 4.7], [20, 4.7], [20, 4.9], [4, 4.9]], "size": 3}


def test_a_move_through_a_wall_is_refused_when_the_way_round_exceeds_speed() -> None:
    """8.5.3: a Run straight through a Size 3 wall; the way round it is longer than Speed 4."""
    problems = _errors([LONG], _run([12, 6.5]))
    assert len(problems) == 1
    assert "marine-1 run" in problems[0] and "around the terrain it cannot cross" in problems[0]
    assert "8.5.3" in problems[0]
    with pytest.raises(ScenarioError, match="around the terrain"):  # the simulation: refused by the check
        simulate(build(skirmish("pathing test", terrain=[LONG], rounds=_run([12, 6.5])), "path.toml"), trials=4)


def test_a_move_round_a_short_wall_within_speed_is_accepted() -> None:
    """8.5.3: the same Run past a short wall: the way round it (3.5" straight, 3.92" round) is within Speed 4; a
    wider wall (0.8") makes it 4.13", refused."""
    scn = build(skirmish("pathing test", terrain=[SHORT], rounds=_run([12, 6.5])), "path.toml")
    assert kit_errors(scn) == []
    w = World(scn)
    way = w.route((12, 3), None, (12, 6.5), None, radius=R)
    assert 3.9 < way.length <= 4
    wider = dict(SHORT, footprint=[[11.6, 4.7], [12.4, 4.7], [12.4, 4.9], [11.6, 4.9]])
    problems = _errors([wider], _run([12, 6.5]))
    assert len(problems) == 1 and 'moves 4.1" around the terrain' in problems[0]


def test_grass_and_flying_measure_straight_in_the_check() -> None:
    """GRASS does not block movement; FLYING "moves point-to-point, measuring horizontally" (World.route)."""
    grass = dict(LONG, id="grass", size=2, grass=True)
    assert _errors([grass], _run([12, 6.5])) == []
    scn = build(skirmish("pathing test", terrain=[LONG], rounds=[]), "path.toml")
    w = World(scn)
    assert w.route((12, 3), None, (12, 6.5), None, flying=True, radius=R).length == pytest.approx(3.5)
    assert w.route((12, 3), None, (12, 6.5), None, radius=R).length > 4


def test_a_deploy_behind_a_wall_at_the_edge_goes_round_it() -> None:
    """8.5.5 ("following standard Move rules (Part 8.5.3)"): a wall between the Entry Edge and the planned point is
    gone round; here that is farther than Speed."""
    front = {"id": "front", "footprint": [[6, 1.6], [18, 1.6], [18, 1.8], [6, 1.8]], "size": 3}
    plan = [{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [12, 3]}]}}]
    assert _errors([], plan) == []
    problems = _errors([front], plan)
    assert len(problems) == 1 and "marine-1 deploy" in problems[0] and "8.5.5" in problems[0]


def test_a_deploy_ends_with_no_part_of_the_base_beyond_speed() -> None:
    """8.5.5: "move it up to the Unit's Speed"; 8.5.3: "No part of a base of the Leading Model can move more than
    its unit Speed value": a Marine (Speed 4, 32 mm base) deployed with its centre 4 - R from the edge is legal,
    one 0.1" farther is not (the check names the Deploy and 8.5.5)."""
    ok = [{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [12, 4 - R]}]}}]
    far = [{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [12, 4 - R + 0.1]}]}}]
    assert _errors([], ok) == []
    problems = _errors([], far)
    assert len(problems) == 1 and "marine-1 deploy" in problems[0] and "8.5.5" in problems[0]
    assert 'base ends 4.1" from the south Entry Edge' in problems[0]
