"""A Charge's search answered from the same search with another longest length (``World._other_reach``, 8.7.7 steps
2-3): the plan walk asks a Charge with ``reach`` Speed + 6 + EPS, the game the same Charge with Speed + its highest
roll. :func:`charge_distance` with ``max_length`` R finds the path of the search without it whenever that is at most
R long, and none otherwise; so an answer at most both lengths long is each one's, and no path within a length is no
path within a shorter one. The tests hold the searches to that, bit for bit, on random boards and the golden boards,
and the World's answers (shared or not) to the search on the board state, on the Charges of the shipped scenarios
and of automatic players' games."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mathhammer.board import load_board
from mathhammer.board.charge import ChargePath, charge_distance
from mathhammer.board.model import EPS
from mathhammer.errors import InputError, MathhammerError
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import World
from tests.test_board_charge import _charge_or_none, _charger_targets_others, _walls

GOLDEN = Path(__file__).parent / "golden" / "board"
LENGTHS = (3.0, 6.0, 9.0, 10.0, 10.0 + EPS, 12.0, None)


def _same(a: ChargePath, b: ChargePath) -> bool:
    return (a.path, a.length, a.levels, a.climb) == (b.path, b.length, b.levels, b.climb)


def _held(search: Any) -> int:
    """For each pair of longest lengths (R, R'), the answer at R' decides the answer at R as ``_other_reach`` reads
    it: a path at most both long is the same path; none within R' >= R is none within R. The number of pairs it
    decided."""
    answers = {}
    for r in LENGTHS:
        answers[r] = search(r)
    inf = float("inf")
    decided = 0
    for mine, theirs in itertools.permutations(LENGTHS, 2):
        a, b = answers[mine], answers[theirs]
        lim_a, lim_b = inf if mine is None else mine, inf if theirs is None else theirs
        if b.end is not None and b.length <= min(lim_a, lim_b):
            assert _same(a, b), (mine, theirs, a, b)
            decided += 1
        elif b.end is None and lim_b >= lim_a:
            assert a.end is None and a.length == inf, (mine, theirs, a)
            decided += 1
    return decided


@st.composite
def _boards(draw: st.DrawFn) -> tuple[Any, bool]:
    """A 44" x 30" board of the charger c1, its target unit and bystanders (an undeclared enemy unit or a friendly
    one) among Size 2 and 3 walls (``tests/test_board_charge.py``'s pieces), and whether it is a legal Charge."""
    xy = st.tuples(st.floats(3, 41), st.floats(3, 27))
    near = st.tuples(st.floats(-9, 9), st.floats(-9, 9))
    lead = draw(xy)
    units = _charger_targets_others(
        lead,
        [(lead[0] + a, lead[1] + b) for a, b in draw(st.lists(near, min_size=1, max_size=4))],
        draw(st.lists(xy, max_size=6)),
        draw(st.sampled_from([25, 32, 40])),
    )
    walls = draw(
        st.lists(st.tuples(st.floats(2, 38), st.floats(2, 24), st.floats(0.3, 6), st.floats(0.3, 6)), max_size=4)
    )
    board, found = _charge_or_none(_walls(walls), tuple(units))
    return board, found is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(_boards(), st.booleans())
def test_a_longer_search_decides_a_shorter_one_and_back(case: tuple[Any, bool], engage: bool) -> None:
    """8.7.7 step 2 (the shortest path, "bypass impassable obstacles") and step 3 (the end): on random boards (walls
    of Size 2 and 3, undeclared enemies or friendly models about), the search up to one length decides the search
    up to another as ``World._other_reach`` reads it, bit for bit (path, length, levels, climb)."""
    board, legal = case
    assume(legal)
    assert _held(lambda r: charge_distance(board, "c1", ["targets"], max_length=r, engage=engage)) > 0


@pytest.mark.parametrize(
    "name", ["charge_wall.toml", "charge_high_ground.toml", "charge_multi.toml", "stacked_terrain.toml"]
)
def test_a_longer_search_decides_a_shorter_one_on_the_golden_boards(name: str) -> None:
    """The same on the golden boards (walls; HIGH GROUND reached through ACCESS POINTs, the climb counted: 8.5.3,
    8.7.7 step 2), every unit's first model charging every enemy unit it may Charge."""
    board = load_board(GOLDEN / name)
    held = 0
    enemies = [(a, b) for a, b in itertools.permutations(board.units, 2) if a.side != b.side]
    for a, b in [(a.models[0].id, [b.id]) for a, b in enemies if not (a.flying or b.flying)]:
        try:
            charge_distance(board, a, b)
        except InputError:  # an Engaged charger, a climb with no height: no Charge to compare
            continue
        held += _held(lambda r, a=a, b=b: charge_distance(board, a, b, max_length=r))
    assert held


def _record(monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[Any, ...]], list[int]]:
    """Keep every whole-board Charge asked of a World (``_charge_memo``'s arguments) and count the answers read from
    another longest length (``_other_reach``)."""
    asked: list[tuple[Any, ...]] = []
    shared = [0]
    memo, other = World._charge_memo, World._other_reach

    def charge_memo(self, pos, alive, uid, targets, reach, fields=(), engaged_ok=False):  # type: ignore[no-untyped-def]
        asked.append((pos, alive, uid, targets, reach, fields, engaged_ok))
        return memo(self, pos, alive, uid, targets, reach, fields, engaged_ok)

    def other_reach(self, base, near):  # type: ignore[no-untyped-def]
        hit = other(self, base, near)
        shared[0] += hit is not None
        return hit

    monkeypatch.setattr(World, "_charge_memo", charge_memo)
    monkeypatch.setattr(World, "_other_reach", other_reach)
    return asked, shared


def _asked_again(world: World, asked: list[tuple[Any, ...]], k: int) -> int:
    """``k`` of the Charges ``asked`` asked again of ``world`` (its memo as the games left it) with other longest
    lengths first (the walk's Speed + 6 + EPS, 2" longer, 1" shorter, none) and then their own: each answer is the
    search on that board state with that length, bit for bit; one whose search raises on that board (a start Engaged
    by a removed model, which the game asks again with Engaged allowed: ``sim_combat``) raises from the memo too. The
    number of Charges compared."""
    calls = list(dict.fromkeys(asked))
    for pos, alive, uid, targets, reach, fields, dash in calls[:: max(1, len(calls) // k)]:
        try:
            world._search(world.board_for(pos, alive, fields), uid, targets, reach, dash)
        except MathhammerError:  # Engaged on this board by a removed model: the game asks again, Engaged allowed
            with pytest.raises(MathhammerError):
                world._charge_memo(pos, alive, uid, targets, reach, fields, dash)
            continue
        lengths = [None] if reach is None else [reach + EPS, reach + 2.0, reach - 1.0, None]
        for r in [*lengths, reach]:
            got = world._charge_memo(pos, alive, uid, targets, r, fields, dash)
            path = world._search(world.board_for(pos, alive, fields), uid, targets, r, dash)
            assert got == (path.length, path.end), (uid, targets, r)
    return len(calls)


def test_the_world_s_charges_are_the_search_on_their_board_whatever_was_asked_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole-board Charges of ``standard_clash.toml``'s games (8.7.7 steps 2-3; the other shipped scenarios' are
    all answered near the Leading Model), asked again with other longest lengths first and then their own
    (``_asked_again``): the search on their board state, shared or not."""
    asked, shared = _record(monkeypatch)
    sim = Simulation(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")), 300, 5)
    sim.run()
    assert _asked_again(sim.world, asked, 20) > 0
    assert shared[0] > 0


@pytest.mark.parametrize("card", ["Frontier", "Gauntlet", "Abandoned Camp"])
def test_an_automatic_game_s_charges_are_the_search_on_their_board(
    card: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Charges of automatic players' games on three Deployment Cards' terrain presets (the plan walk asks with
    Speed + 6 + EPS, the game the same Charge with Speed + its highest roll): each, asked again after other lengths
    (``_asked_again``), the search on its board state with its own length (8.7.7 steps 2-3), some answered from
    another length."""
    from mathhammer.scenario.loader import parse_scenario
    from tests.autoplay_kit import data

    asked, shared = _record(monkeypatch)
    table = data(tmp_path, red="objective", blue="aggressive", length=4)
    table["deployment"] = {"card": card}
    scn = parse_scenario(table, "auto.toml", tmp_path)
    sim = Simulation(scn, 12, 3)
    sim.run()
    assert _asked_again(sim.world, asked, 20) > 0
    assert shared[0] > 0


def test_a_start_in_the_goal_grown_by_1e_9_is_near_the_goal() -> None:
    """8.7.7 step 3 (a Leading Model already Within 1" of its targets moves 0"): ``charge_distance`` grows the goal
    by 1e-9 only where the start is within ``_NEAR_GOAL`` of it. On goals of one to four targets' zones less other
    bases (as ``_level`` makes them), every point the grown goal contains is that near: on the boundary's vertices and
    points between them, and those moved out by 1e-10 to 1e-3; the far ones are indeed outside."""
    import numpy as np
    import shapely

    from mathhammer.board import charge
    from mathhammer.board.cspace import _disc, _zones

    rng = np.random.default_rng(29)
    inside = outside = 0
    for _ in range(40):
        targets = tuple(((float(x), float(y)), 1.5 + float(rng.random())) for x, y in rng.uniform(10, 20, (4, 2)))
        goal = _zones(targets[: int(rng.integers(1, 5))])
        for x, y in rng.uniform(8, 22, (int(rng.integers(0, 4)), 2)):
            goal = goal.difference(_disc((float(x), float(y)), 0.9))
        grown = goal.buffer(1e-9)
        ring = shapely.get_coordinates(goal.boundary)
        mids = (ring[:-1] + ring[1:]) / 2
        for base in (ring[::7], mids[::7]):
            for step in (0.0, 1e-10, 1e-9, 2e-9, 1e-7, 1e-5, 1e-3):
                angle = rng.uniform(0, 2 * np.pi, len(base))
                pts = base + step * np.column_stack([np.cos(angle), np.sin(angle)])
                contained = shapely.contains_xy(grown, pts[:, 0], pts[:, 1])
                near = shapely.distance(goal, shapely.points(pts)) <= charge._NEAR_GOAL
                assert not (contained & ~near).any()
                inside += int(contained.sum())
                outside += int((~contained).sum())
    assert inside > 1000 and outside > 1000
