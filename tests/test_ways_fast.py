"""The batched ways of :class:`mathhammer.board.ways.WayGraph` held equal to the bit to the naive reference
(tests/ways_naive.py: the graph as it was at c405050, one point, one marker and one leg test at a time; issue 29
point 6, h-ways2). The way itself is 8.5.3 step 1's ("Measure the actual path travelled. ... The Leading Model
cannot move through terrain of Size 2 or larger") into 8.9.1's contest range; tests/test_ways.py holds it to a naive
grid. Here: random points of every terrain preset of every Deployment Card, with the graph's corners, points whose
base overlaps an obstacle (their legs leave it out) and points within the contest range, for three base radii and
Raptor Strain's ``through``, every marker of the card at once."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from mathhammer.board.ways import WayGraph
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards
from mathhammer.scenario.world import CONTEST_RANGE
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
    near = np.concatenate([markers + (1.0, 0.5), markers + (0.0, CONTEST_RANGE + 0.2)])
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
