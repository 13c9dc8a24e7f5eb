"""The compiled grid walk of a formation (``Routes._walk_grid``, ``fastplace._walk_kernel``) held to the Python walk
(``Placing._place_grid``): 8.5.3 step 2 (the models set In Coherency around the Leading Model, never off the table,
over a footprint a base may not overlap, over another base or Within 1" of an enemy Ground unit, 8.7.7) and 8.3.3 (an
arriving unit's models never Within the opponent's Zone of Influence). Every answer the kernel gives in random games is
the Python walk's; its terrain test (``fastplace._off_terrain``) is ``Routes._blocked``'s with no base wherever it
answers, on random points of the table and points near the footprints' edges."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario import fastplace
from mathhammer.scenario.geometry import placement, routes
from mathhammer.scenario.geometry.placement import Placing
from mathhammer.scenario.sim import Simulation
from tests.test_autoplay_moveverdicts import PROTOSS, SIX, _scenario


@pytest.mark.parametrize(
    ("red", "blue", "card", "unbounded"),
    [(*SIX, "Gauntlet", False), (PROTOSS, SIX[1], "Frontier", False), (*SIX, "Gauntlet", True)],
)
def test_the_compiled_walk_is_the_python_walk_in_random_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, red: str, blue: str, card: str, unbounded: bool
) -> None:
    """Each grid walk of 20 random games the kernel answers (Moves and Deploys: placements, -1 past the limit or an
    arriving unit's grid short of spots out of the zone, no placement) is the one the Python walk gives with the kernel
    switched off; ``unbounded``: with no spot near the Leading Model read alone (``near_limit`` 0), so that every
    Move's grid is walked with every unit and no limit (``place``)."""
    if unbounded:
        monkeypatch.setattr(placement, "near_limit", lambda models, base_mm: 0.0)
    scn = _scenario(tmp_path, card, "standard", red, blue, length=3)
    walk, grid = Placing._walk_grid, Placing._place_grid
    counts: dict[str, int] = {}

    def counted(*a: Any) -> Any:
        got = walk(*a)
        kind = "set" if isinstance(got, list) else "unsure" if got == routes.UNSURE else "refused"
        kind += (" arriving" if a[-1] is not None else "") + (" unbounded" if a[-2] == math.inf else "")
        counts[kind] = counts.get(kind, 0) + 1
        return got

    def checked(self: Any, su: Any, lead: Any, rear: Any, occupied: Any, level: Any, limit: Any, *rest: Any) -> Any:
        got = grid(self, su, lead, rear, occupied, level, limit, *rest)
        monkeypatch.setattr(Placing, "_walk_grid", lambda *a: routes.UNSURE)
        try:
            assert grid(self, su, lead, rear, occupied, level, limit, *rest) == got, (su.id, lead, rear, occupied)
        finally:
            monkeypatch.setattr(Placing, "_walk_grid", counted)
        return got

    monkeypatch.setattr(Placing, "_walk_grid", counted)
    monkeypatch.setattr(Placing, "_place_grid", checked)
    Simulation(scn, 20, 3).run()
    if unbounded:
        assert counts.get("set unbounded", 0) > 150 and counts.get("refused unbounded", 0) > 0, counts
        return
    refused = sum(v for k, v in counts.items() if k.startswith("refused"))
    assert counts.get("set", 0) > 150 and counts.get("set arriving", 0) > 50 and refused > 10, counts
    # a Deploy set with every unit and no limit (``place``: an arriving unit's grid, its zone's chain the Python's)
    assert counts.get("set arriving unbounded", 0) > 5, counts


def test_the_terrain_test_is_the_bases_disc_against_the_footprints(tmp_path: Path) -> None:
    """``_off_terrain`` of a base at 20,000 random points of the Gauntlet table and 20,000 points near the footprints'
    edges (a base's radius off them, give or take a little), for three base sizes: where it answers (0 or 1), the answer
    is ``Routes._blocked``'s with no other base (off the table, or the base's disc meeting a footprint); it leaves only
    points where a footprint lies between the disc's inner and outer radius to Python."""
    world = Simulation(_scenario(tmp_path, "Gauntlet", "standard", *SIX), 1, 1).world
    pack = world._playmat_pack()
    assert pack is not None
    edges, boxes, rings, starts = pack
    polys = [g for *_, g in world._blocker_boxes(None)]
    rng = np.random.default_rng(7)
    counts = {"clear": 0, "blocked": 0, "unsure": 0}
    for base_mm in (25.0, 32.0, 50.0):
        r = base_mm / MM_PER_INCH / 2
        inner = r * math.cos(math.pi / (4 * routes.QUAD_SEGS))
        spread = rng.uniform([0, 0], [world.board.width, world.board.depth], size=(20_000, 2))
        edge_pts = []
        for g in polys:  # points a radius off each footprint's edge, within 0.02" either way
            for d in rng.uniform(0, g.exterior.length, 1_000):
                p = g.exterior.interpolate(d)
                a = rng.uniform(0, 2 * math.pi)
                off = r + rng.uniform(-0.02, 0.02)
                edge_pts.append((p.x + off * math.cos(a), p.y + off * math.sin(a)))
        for x, y in [*spread.tolist(), *edge_pts]:
            got = fastplace._off_terrain(x, y, r, edges, boxes, rings, starts, inner, fastplace.TOL)
            if got == -1:
                counts["unsure"] += 1
                continue
            assert (got == 1) == world._blocked((x, y), r, [], True, None), (x, y, base_mm, got)
            counts["blocked" if got == 1 else "clear"] += 1
    assert counts["blocked"] > 10_000 and counts["clear"] > 50_000, counts
    assert 0 < counts["unsure"] < counts["blocked"] // 20, counts
