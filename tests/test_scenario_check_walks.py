"""``scenario check`` walks a plan twice where the First Player Marker's holder differs between games (8.2.2 Roll-Off,
8.9.6: red holding it in every such Phase, then blue; ``check.walk.PlanCheck.run``). The second walk reads the
first walk's World (the board's geometry: placements, Engagement, Line of Sight, Charge paths, the Worlds without
the Grass removed, part 11 GRASS), so the geometry is computed once for both: each walk must find what a walk on a
World of its own finds (the naive reference below), on every shipped scenario and on a plan that removes Grass."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.check import common
from mathhammer.scenario.check.order import merge_walks
from mathhammer.scenario.check.walk import PlanCheck
from mathhammer.scenario.spec import Scenario

from .test_scenario_abilities import write_armies
from .test_scenario_grass import BLUE, RED
from .test_scenario_grass2 import charge_rounds, scenario


def naive(scn: Scenario) -> list[str]:
    """Both walks, each on a World of its own."""
    one = PlanCheck(scn)
    one.walk()
    if not one.guessed:
        return one.problems
    other = PlanCheck(scn)
    other.lean = 1
    other.walk()
    assert other.world is not one.world
    return merge_walks(one.problems, other.problems)


def _both_walks(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    world = common.World

    def counted(s: Scenario) -> object:
        made.append(world(s))
        return made[-1]

    walk = PlanCheck(scn)
    monkeypatch.setattr(common, "World", counted)
    got = walk.run()
    monkeypatch.setattr(common, "World", world)
    assert walk.guessed  # the plan was walked twice
    assert made == []  # the second walk made no World: it read the first one's
    assert got == naive(scn)


@pytest.mark.parametrize("path", builtin_scenarios(), ids=lambda p: p.name)
def test_the_second_walk_reads_the_first_walks_world(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _both_walks(load_scenario(path), monkeypatch)


@pytest.mark.parametrize("cross", [False, True])
def test_the_second_walk_reads_the_worlds_without_the_removed_grass(
    cross: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Part 11 GRASS: the Charge of ``test_scenario_grass2`` needs the band removed by an earlier Move (``cross``) or
    is refused; each walk keeps its own removed pieces (``grass.Tracker``) over the shared Worlds."""
    scn = scenario(write_armies(tmp_path, RED, BLUE), charge_rounds(cross=cross))
    _both_walks(scn, monkeypatch)
    assert (naive(scn) == []) is cross
