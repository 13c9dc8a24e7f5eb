"""The batched ways of :class:`mathhammer.board.ways.WayGraph` held equal to the bit to the naive reference
(tests/ways_naive.py: the graph as it was at c405050, one point, one marker and one leg test at a time; issue 29
point 6, h-ways2). The way itself is 8.5.3 step 1's ("Measure the actual path travelled. ... The Leading Model
cannot move through terrain of Size 2 or larger") into 8.9.1's contest range; tests/test_ways.py holds it to a naive
grid. Here: random points of every terrain preset of every Deployment Card, with the graph's corners, points whose
base overlaps an obstacle (their legs leave it out) and points within the contest range, for three base radii and
Raptor Strain's ``through``, every marker of the card at once."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely

from mathhammer.board.pathing import clear_line, shortest_route
from mathhammer.board.ways import WayGraph
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards
from mathhammer.scenario.players import ways as players_ways
from mathhammer.scenario.players.menu import _step_ok
from mathhammer.scenario.world import CONTEST_RANGE
from tests.test_ways import doubled
from tests.ways_naive import NaiveWayGraph

PRESETS = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]


def probe_points(graph: WayGraph, markers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random points of the table, some of the graph's corners, points just inside the grown obstacles (a base
    overlapping them), points within and just outside each contest range."""
    board = graph.board
    spread = np.stack([rng.uniform(0, board.width, 50), rng.uniform(0, board.depth, 50)], axis=1)
    corners = graph.corners[rng.choice(len(graph.corners), min(12, len(graph.corners)), replace=False)]
    inner = []
    for g in graph.obs.tight[:8]:
        ring = shapely.get_coordinates(g)[:3]
        centre = np.asarray(g.centroid.coords[0])
        inner += [q * 0.97 + centre * 0.03 for q in ring]
    near = np.concatenate([markers + np.asarray([1.0, 0.5]), markers + np.asarray([0.0, CONTEST_RANGE + 0.2])])
    return np.concatenate([spread, corners.reshape(-1, 2), np.asarray(inner).reshape(-1, 2), near])


@pytest.mark.parametrize(("card", "preset"), PRESETS)
def test_batched_ways_equal_the_naive_graph_on_every_preset(card: str, preset: str) -> None:
    """8.5.3 / 8.9.1 (the way into a contest range): the batched graph's ``lengths`` and ``field`` are the naive
    graph's to the bit, for every marker of the card, on every kind of point (the module text)."""
    board, dep = preset_board(card, preset)
    markers = np.asarray([(float(m["x"]), float(m["y"])) for m in dep["markers"]])
    rng = np.random.default_rng(11)
    for radius, through in ((32 / 25.4 / 2, 0), (1.0, 0), (0.5, 3)):
        fast, naive = WayGraph(board, radius, through), NaiveWayGraph(board, radius, through)
        pts = probe_points(fast, markers, rng)
        ours = fast.lengths(pts, markers, CONTEST_RANGE)
        ref = naive.lengths(pts, markers, CONTEST_RANGE)
        assert np.array_equal(ours, ref), (card, preset, radius, np.argwhere(ours != ref)[:5])
        assert np.isfinite(ref).any() and (ref > 0).any()  # the probes reach some markers, not all at once
        for m in markers.tolist():
            assert np.array_equal(fast.field((m[0], m[1]), CONTEST_RANGE), naive.field((m[0], m[1]), CONTEST_RANGE))
        # one point at a time (the memo's misses one by one) is the same as all at once
        one = np.concatenate([fast.lengths(pts[k : k + 1], markers, CONTEST_RANGE) for k in range(0, len(pts), 7)])
        assert np.array_equal(one, ref[::7])


def test_points_overlapping_obstacles_are_probed() -> None:
    """The probes of the test above hold points whose legs leave obstacles out (a base overlapping a wall) and points
    that see no corner's leg through a wall: the cases the batched grouping must keep apart."""
    board, dep = preset_board(*PRESETS[0])
    markers = np.asarray([(float(m["x"]), float(m["y"])) for m in dep["markers"]])
    graph = WayGraph(board, 32 / 25.4 / 2)
    pts = probe_points(graph, markers, np.random.default_rng(11))
    geoms, of = graph._groups(pts)
    assert len(geoms) > 1 and (of != of[0]).any()
    k, n = len(pts), len(graph.corners)
    who = np.repeat(np.arange(k), n)
    seen = graph._clear_rows((geoms, of[who]), pts[who], np.tile(graph.corners, (k, 1))).reshape(k, n)
    assert (~seen).any() and seen.any()
    assert (~seen[of != of[0]]).any()  # a point overlapping a wall: some of its legs are blocked by the others


@pytest.mark.parametrize(("card", "preset"), PRESETS)
def test_apart_is_the_routes_way_on_every_preset(card: str, preset: str) -> None:
    """8.5.3 step 1 (the actual path travelled round terrain of Size 2+): on a table without tops, the way through
    the corners (``WayGraph.apart``) is :func:`~mathhammer.board.pathing.shortest_route`'s length wherever the
    straight leg is blocked, to rounding (the Moves of ``players/ways.reached`` read it more than 1e-6 from their
    limit)."""
    board, _ = preset_board(card, preset)
    assert not any(t.surface for t in board.terrain)
    r = 32 / 25.4 / 2
    graph = WayGraph(board, r)
    rng = np.random.default_rng(5)
    pts = np.stack([rng.uniform(r, board.width - r, 400), rng.uniform(r, board.depth - r, 400)], axis=1)
    pts = pts[~shapely.contains_xy(graph.obs.solid, pts[:, 0], pts[:, 1])]
    blocked = 0
    for a, b in zip(pts[0::2][:100].tolist(), pts[1::2][:100].tolist(), strict=False):
        if clear_line(board, (a[0], a[1]), (b[0], b[1]), None, r):
            continue
        blocked += 1
        ours = float(graph.apart((a[0], a[1]), np.asarray([b]))[0])
        ref = shortest_route(board, (a[0], a[1]), None, (b[0], b[1]), None, radius=r).length
        assert math.isinf(ours) == math.isinf(ref), (a, b, ours, ref)
        if not math.isinf(ref):
            assert abs(ours - ref) < 1e-9, (a, b, ours, ref)
    assert blocked >= 3 or not graph.obs.tight, blocked


def test_the_reach_of_a_move_is_the_menus_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """8.5.3 (a Move at most Speed along the way round the terrain): ``reached``'s verdicts, decided by the straight
    leg or the corners' way, are :func:`.menu._step_ok`'s for random points and the Marine's menu Move points of
    Abandoned Camp's doubled list, some of them round the ridge; and they are decided there (the legs left to
    ``_step_ok`` itself are counted: few; and blocked legs read by the corners' way)."""
    falls = [0]
    step_ok = players_ways._step_ok

    def counted(*args: object) -> bool:
        falls[0] += 1
        return step_ok(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(players_ways, "_step_ok", counted)
    cornered = [0]
    apart = WayGraph.apart

    def counted_apart(self: WayGraph, a: tuple[float, float], ends: np.ndarray) -> np.ndarray:
        cornered[0] += len(ends)
        return apart(self, a, ends)

    monkeypatch.setattr(WayGraph, "apart", counted_apart)
    sim, auto = doubled(tmp_path)
    assert auto._menus is not None
    world, su = sim.world, sim.scn.units["marine-1"]
    stops = np.asarray(sorted({e.to for e in auto._menus["marine-1"]["movement"] if e.action == "move"}))
    rng = np.random.default_rng(9)
    board = world.board
    pts = np.stack([rng.uniform(0, board.width, 60), rng.uniform(0, board.depth, 60)], axis=1)
    round_, asked = 0, 0
    for a in [*pts.tolist(), *stops.tolist()]:
        a = (a[0], a[1])
        gap = np.hypot(*(stops - np.asarray(a)).T)
        ends = stops[(gap <= su.speed) & (gap > 0.0)]
        ours = players_ways._steps_ok(world, su, a, ends)
        ref = [_step_ok(world, su, a, (b[0], b[1])) for b in ends.tolist()]
        assert ours == ref, a
        round_ += sum(not clear_line(board, a, (b[0], b[1]), None, players_ways._radius(su)) for b in ends.tolist())
        asked += len(ends)
    assert asked > 100 and round_ > 5, (asked, round_)
    assert falls[0] < asked // 4 and cornered[0] > 5, (falls, cornered, asked, round_)
