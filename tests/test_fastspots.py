"""A charging unit's spots read compiled on the playmat (rulebook 8.7.7 step 4, Placement priority;
:mod:`mathhammer.scenario.fastspots`): the same spots, in the same order, and the same box of spots tested as the
Python reading of ``Charges._charge_spots``, whose own rule tests are in tests/test_scenario_charge_set.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from mathhammer.scenario import builtin_scenarios, fastspots, load_scenario
from mathhammer.scenario.geometry import charge
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import World

Spots = list[tuple[float, float]]


def _both(w: World, call: tuple[object, ...]) -> tuple[tuple[Spots, list[float]], tuple[Spots, list[float]]]:
    """The Python reading's and the compiled reading's answers to one call of ``_charge_spots``: (spots, box)."""
    out = []
    for compiled in (False, True):
        box = [math.inf, math.inf, -math.inf, -math.inf]
        old, charge.SPOTS_COMPILED = charge.SPOTS_COMPILED, compiled
        try:
            out.append((World._charge_spots(w, *call, box), box))  # type: ignore[arg-type]
        finally:
            charge.SPOTS_COMPILED = old
    return out[0], out[1]


def _clash(trials: int) -> Simulation:
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    return Simulation(load_scenario(path), trials, 6)


def test_the_compiled_spots_are_the_python_readings_in_a_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every charging unit set in 600 games of the 6-a-side example (6 terrain pieces): the compiled reading sets the
    same models on the same spots and tests the same spots (the box its memo keeps) as the Python reading, and it
    answered nearly all of them (a terrain test within ``TOL`` of its limit is left to Python)."""
    calls: list[tuple[World, tuple[object, ...]]] = []
    spots = World._charge_spots

    def spy(self: World, su, lead, r, level, others, live, back, box=None):  # type: ignore[no-untyped-def]
        calls.append((self, (su, lead, r, level, list(others), list(live), back)))
        return spots(self, su, lead, r, level, others, live, back, box)

    monkeypatch.setattr(World, "_charge_spots", spy)
    _clash(600).run()
    monkeypatch.undo()
    answered = 0
    kernel = fastspots.spots

    def count(*a, **k):  # type: ignore[no-untyped-def]
        nonlocal answered
        got = kernel(*a, **k)
        answered += not isinstance(got, int)
        return got

    monkeypatch.setattr(fastspots, "spots", count)
    assert len(calls) >= 100
    for w, call in calls:
        python, compiled = _both(w, call)
        assert compiled == python, call
    assert answered >= 0.95 * len(calls)
    # most set every model of the unit
    short = [len(_both(w, c)[0][0]) < c[0].models for w, c in calls[:50]]  # type: ignore[attr-defined]
    assert sum(short) < 50


def test_the_compiled_spots_are_the_python_readings_beside_terrain() -> None:
    """400 Charges set at random beside the terrain of the 6-a-side example (a Leading Model within 3" of a
    footprint, 1-6 live target models round it, 0-4 other bases, Enemy Ground or not): the same spots and box, a
    unit set whole in many and in part in some (4.4: a model that finds no spot is removed as a casualty, and the
    spots are those of the models set before it); each unit of the example in turn at random."""
    sim = _clash(1)
    w = sim.world
    units = list(sim.scn.units.values())
    rng = np.random.default_rng(29)
    pieces = [t for t in w.board.terrain if not t.token and not t.grass]
    set_, part = 0, 0
    for _ in range(400):
        piece = pieces[int(rng.integers(len(pieces)))]
        x0, y0, x1, y1 = piece.polygon.bounds
        lead = (float(rng.uniform(x0 - 3, x1 + 3)), float(rng.uniform(y0 - 3, y1 + 3)))
        r = float(rng.choice([0.25, 0.5, 0.63]))
        if shapely.distance(piece.polygon, shapely.Point(lead)) <= r:
            continue
        su = units[int(rng.integers(len(units)))]
        live = []
        for _ in range(int(rng.integers(1, 7))):
            a = rng.uniform(0, 2 * math.pi)
            d = 2 * r + rng.uniform(0.05, 0.9)
            live.append(((lead[0] + d * math.cos(a), lead[1] + d * math.sin(a)), r))
        others = [(c, g, True) for c, g in live]
        for _ in range(int(rng.integers(0, 5))):
            c = (lead[0] + rng.uniform(-4, 4), lead[1] + rng.uniform(-4, 4))
            others.append((c, float(rng.choice([0.25, 0.5])), bool(rng.random() < 0.5)))
        a = rng.uniform(0, 2 * math.pi)
        back = (math.cos(a), math.sin(a))
        python, compiled = _both(w, (su, lead, r, None, others, live, back))
        assert compiled == python, (lead, r, su.models, live, others, back)
        whole = len(python[0]) == su.models
        set_ += whole
        part += not whole
    assert set_ > 100 and part >= 3


def _square() -> tuple[np.ndarray, ...]:
    """The table 48" x 48" (edges' margin 1e-7) with one footprint, the square 10-12" x 10-12"."""
    ring = np.array([[10.0, 10.0], [12.0, 10.0], [12.0, 12.0], [10.0, 12.0]])
    boxes = np.array([[10.0, 10.0, 12.0, 12.0]])
    return np.array([48.0, 48.0, 1e-7]), boxes, ring, np.array([0, 4], dtype=np.int64)


@pytest.mark.parametrize(
    ("x", "y", "want"),
    [
        (12.5 + 1e-9, 11.0, -1),  # at the limit (r + 1e-9 from the edge): left to shapely
        (12.5 + 1e-6, 11.0, 1),  # farther
        (12.5 - 1e-6, 11.0, 0),  # nearer: overlaps the footprint
        (11.0, 11.0, 0),  # inside
        (12.3, 12.3, 0),  # near the corner (0.42" from it)
        (12.4, 12.4, 1),  # clear of the corner (0.57")
        (0.4, 20.0, 0),  # off the table's edge
        (0.5, 20.0, 1),  # on the edge
    ],
)
def test_the_terrain_test_is_shapelys_or_unsure(x: float, y: float, want: int) -> None:
    """A base of radius 0.5" at (x, y) against the square footprint and the table's edges, as ``Routes._terrain_ok``
    reads it with ``shapely.distance`` (farther than r + 1e-9), within ``TOL`` of that limit unsure (-1)."""
    edges, boxes, ring, starts = _square()
    got = fastspots._terrain(x, y, 0.5, edges, boxes, ring, starts, fastspots.TOL)
    assert got == want
    if got >= 0:
        square = shapely.Polygon(ring)
        on = x - 0.5 >= -1e-7 and y - 0.5 >= -1e-7 and x + 0.5 <= 48 + 1e-7 and y + 0.5 <= 48 + 1e-7
        assert got == (on and shapely.distance(square, shapely.Point(x, y)) > 0.5 + 1e-9)


def test_spots_are_laid_in_lexsorts_order() -> None:
    """Spots nearest the Leading Model first, ties by the lateral then the ahead (rounded to 1e-6) then the index:
    ``np.lexsort`` of the Python reading, on rings round the Leading Model (many ties, spots a hair apart tied on all
    three: by the index) and on random spots."""
    rng = np.random.default_rng(5)
    lead, back = (20.0, 20.0), (0.6, -0.8)
    a = np.linspace(0, 2 * np.pi, 36, endpoint=False)
    rings = [
        20.0 + np.concatenate([d * np.cos(a) for d in (1.0, 1.5, 1.0 + 3e-9)]),  # the last: the first a hair out
        20.0 + np.concatenate([d * np.sin(a) for d in (1.0, 1.5, 1.0 + 3e-9)]),
    ]
    for px, py in (
        rings,
        [rng.uniform(15, 25, 300), rng.uniform(15, 25, 300)],
        [np.round(rng.uniform(19, 21, 200), 1), np.round(rng.uniform(19, 21, 200), 1)],
    ):
        for first in (1, -1):
            dx, dy = px - lead[0], py - lead[1]
            d = np.round(np.hypot(dx, dy), 6)
            side = np.round(-first * (dy * back[0] - dx * back[1]), 6)
            ahead = np.round(-(dx * back[0] + dy * back[1]), 6)
            want = np.lexsort((ahead, side, d))
            x, y = px.copy(), py.copy()
            fastspots._lay(x, y, 0, x.size, *lead, *back, float(-first))
            assert np.array_equal(x, px[want]) and np.array_equal(y, py[want])
