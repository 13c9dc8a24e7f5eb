"""A Move's formation read from the empty table's (scenario/geometry/placement.py, ``Placing._bare_holds``): where no
base of the units near the Leading Model blocks a spot of the formation the grid takes with no unit there, the grid
takes the same spots with them (8.5.3 step 2: the models set In Coherency around the Leading Model, never over another
base or Within 1" of an enemy Ground unit, 8.7.7). Held to the grid read afresh with those units in random games'
placements, and on hand-set boards: an enemy base Within 1" of a spot and a friendly base nearer than the bases'
spacing refuse the reading, a base just outside either limit does not, a gap within 1e-9 of a limit is read as the grid
reads it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, MM_PER_INCH
from mathhammer.scenario import fastplace
from mathhammer.scenario.geometry.core import GAP, Placement
from mathhammer.scenario.geometry.placement import Placing, near_limit
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import scenario
from tests.test_autoplay_moveverdicts import SIX, _scenario


def _grid(world: Any, su: Any, lead: Any, rear: Any, small: tuple[int, ...], level: Any, arriving: Any) -> Any:
    """The grid's own answer with the units ``small`` (what ``_placed_near`` computes without the reading)."""
    return world._place_grid(su, lead, rear, small, level, near_limit(su.models, su.base_mm), (), arriving)


def test_the_empty_tables_formation_is_the_grids_in_random_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every formation read from the empty table's in 30 random games of the issue's lists (Gauntlet) is the one the
    grid takes with the units near the Leading Model; the reading answers hundreds and leaves hundreds to the grid."""
    scn = _scenario(tmp_path, "Gauntlet", "standard", *SIX, length=3)
    holds = Placing._bare_holds
    counts = {"read": 0, "left": 0}

    def checked(self: Any, su: Any, lead: Any, rear: Any, small: Any, level: Any, arriving: Any) -> Any:
        got = holds(self, su, lead, rear, small, level, arriving)
        if small:
            if got == -2:
                counts["left"] += 1
            else:
                assert got == _grid(self, su, lead, rear, small, level, arriving), (su.id, lead, rear, small)
                counts["read"] += 1
        return got

    monkeypatch.setattr(Placing, "_bare_holds", checked)
    Simulation(scn, 30, 5).run()
    assert counts["read"] > 300 and counts["left"] > 100, counts


def test_place_among_is_the_grids_walk_in_random_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """8.5.3 step 2: every answer of ``place_among`` (the automatic players' Moves and their verdicts: the empty
    table's formation where no base of any other unit blocks one of its spots, else the reading near the Leading
    Model) in 20 random games of the issue's lists is the grid's walk read afresh with every other unit (no reading, no
    limit); most are read at once from the empty table's."""
    scn = _scenario(tmp_path, "Gauntlet", "standard", *SIX, length=3)
    among, holds = Placing.place_among, Placing._bare_holds
    counts = {"asked": 0, "bare": 0}

    def bare(self: Any, su: Any, lead: Any, rear: Any, small: Any, level: Any, arriving: Any) -> Any:
        got = holds(self, su, lead, rear, small, level, arriving)
        counts["bare"] += got is not None and got >= 0
        return got

    def checked(self: Any, su: Any, lead: Any, rear: Any, occupied: Any) -> Any:
        got = among(self, su, lead, rear, occupied)
        want = self._place_grid(su, lead, rear, occupied, None, math.inf, (), None)  # the grid's walk, no reading
        assert got == want or self.placements[got] == self.placements[want], (su.id, lead, rear, occupied)
        counts["asked"] += 1
        return got

    monkeypatch.setattr(Placing, "place_among", checked)
    monkeypatch.setattr(Placing, "_bare_holds", bare)
    Simulation(scn, 20, 5).run()
    assert counts["asked"] > 300 and counts["bare"] > counts["asked"] // 2, counts


@pytest.fixture()
def board(tmp_path: Path) -> Any:
    """A World with the Marines' empty-table formation at (24, 18) facing south, and a Zergling's and a Marauder's
    radius."""
    sim = Simulation(scenario(tmp_path, length=1), 1, 1)
    world = sim.world
    su = sim.scn.units["marine-1"]
    lead, rear = (24.0, 18.0), (0.0, -1.0)
    bare = world.place_near_lead(su, lead, rear, ())
    assert bare is not None and bare >= 0
    return world, su, lead, rear, bare


def _base_at(world: Any, unit: str, spot: Any, gap: float, r: float) -> int:
    """A placement of one base of ``unit`` due east of ``spot`` (a Marine's), ``gap`` edge to edge."""
    orad = world.scn.units[unit].base_mm / MM_PER_INCH / 2
    return int(world._intern(Placement(unit, ((spot[0] + r + orad + gap, spot[1]),), None)))


@pytest.mark.parametrize(
    ("unit", "gap", "holds"),
    [
        ("zergling-1", ENGAGEMENT_RANGE - 0.05, False),  # an enemy Within 1" (8.7.7)
        ("zergling-1", ENGAGEMENT_RANGE + 0.05, True),
        ("marauder-1", GAP / 2 - 0.01, False),  # a friendly base nearer than the spacing's half
        ("marauder-1", GAP / 2 + 0.01, True),
        ("marauder-1", 0.5, True),  # a friendly base Within 1": no limit
    ],
)
def test_a_base_near_a_spot_refuses_the_reading_where_it_blocks_the_spot(
    board: Any, unit: str, gap: float, holds: bool
) -> None:
    """8.5.3 step 2, 8.7.7: a base by the formation's easternmost spot, ``gap`` from it: the reading gives the empty
    table's formation where that base blocks no spot, else leaves it to the grid (which then sets another)."""
    world, su, lead, rear, bare = board
    r = su.base_mm / MM_PER_INCH / 2
    spot = max(world.placements[bare].centres, key=lambda c: c[0])
    other = _base_at(world, unit, spot, gap, r)
    got = world._bare_holds(su, lead, rear, (other,), None, None)
    grid = _grid(world, su, lead, rear, (other,), None, None)
    if holds:
        assert got == bare == grid
    else:
        assert got == -2 and grid != bare


@pytest.mark.parametrize("unit", ["zergling-1", "marauder-1"])
@pytest.mark.parametrize("ulps", [-2, 0, 2])
def test_a_gap_at_its_limit_is_read_as_the_grid_reads_it(board: Any, unit: str, ulps: int) -> None:
    """A base whose gap to a spot is the blocking limit itself (an enemy's 1" + EPS, a friendly base's ``GAP / 2``) to a
    few ulps: the compiled gaps cannot tell, so the reading reads each gap as the grid does (``math.dist``)."""
    world, su, lead, rear, bare = board
    r = su.base_mm / MM_PER_INCH / 2
    spot = max(world.placements[bare].centres, key=lambda c: c[0])
    enemy = unit.startswith("zergling")
    limit = ENGAGEMENT_RANGE + EPS if enemy else GAP / 2
    orad = world.scn.units[unit].base_mm / MM_PER_INCH / 2
    x = spot[0] + r + orad + limit
    for _ in range(abs(ulps)):
        x = math.nextafter(x, math.inf if ulps > 0 else -math.inf)
    other = int(world._intern(Placement(unit, ((x, spot[1]),), None)))
    foe = np.zeros(other + 1, dtype=bool)
    foe[other] = enemy
    packed = world._centres_packed()
    status = fastplace.clear(world._centres(bare), r, np.asarray([other]), foe, packed, GAP / 2, ENGAGEMENT_RANGE + EPS)
    assert status == 2
    got = world._bare_holds(su, lead, rear, (other,), None, None)
    grid = _grid(world, su, lead, rear, (other,), None, None)
    assert got in (-2, grid) and (got == -2) == (grid != bare)
