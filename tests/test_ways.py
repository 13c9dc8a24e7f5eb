"""The way of a Leading Model to a Mission Marker's contest range round the terrain (issue 29; board/ways.py,
scenario/players/ways.py: the automatic players' ``marker_moves``).

8.5.3 step 1: "Measure the actual path travelled. ... The Leading Model cannot move through terrain of Size 2 or
larger." The visibility graph's ways are held against a naive reference: Dijkstra on a fine grid (every 0.25", each
node linked to its 16 neighbours where the leg's ends and middle keep the base clear of every Size 2+ footprint, the
same test a base's centre meets), from every grid node Within 3" of the marker (8.9.1), on random points of every
terrain preset of every Deployment Card. A grid's way is at least the shortest and at most about 2.7% longer (16
directions), give or take a grid step at each end."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from mathhammer.board.cspace import blocks_path
from mathhammer.board.model import MM_PER_INCH
from mathhammer.board.ways import WayGraph
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import Features
from mathhammer.scenario.players.ways import FAR_MOVES, EndRows, way_lengths
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import CONTEST_RANGE
from tests.autoplay_kit import place
from tests.test_policies import camp, played

PRESETS = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]
STEP = 0.25
#: a Marine's base (32 mm), the Leading Model of the lists' most common unit
RADIUS = 32 / MM_PER_INCH / 2
#: the 16 directions of the grid (and their opposites)
MOVES = [(1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1), (1, -2)]


def grid_ways(board: object, r: float, marker: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The naive reference: the grid's nodes, whether a base centred on each is clear, and each one's way into the
    contest range of ``marker`` (inf: none)."""
    walls = [t.polygon for t in board.terrain if blocks_path(t)]  # type: ignore[attr-defined]
    wall = shapely.union_all(walls) if walls else shapely.Polygon()
    w, d = board.width, board.depth  # type: ignore[attr-defined]
    xs, ys = np.arange(0.0, w + 1e-9, STEP / 2), np.arange(0.0, d + 1e-9, STEP / 2)
    hx, hy = np.meshgrid(xs, ys, indexing="ij")
    on = (hx >= r) & (hx <= w - r) & (hy >= r) & (hy <= d - r)
    clear = on & (shapely.distance(wall, shapely.points(hx, hy)) > r) if walls else on
    node = clear[::2, ::2]
    nx, ny = node.shape
    ids = np.arange(nx * ny).reshape(nx, ny)
    rows, cols, lens = [], [], []
    for dx, dy in MOVES:
        i0, i1 = max(0, -dx), nx - max(0, dx)
        j0, j1 = max(0, -dy), ny - max(0, dy)
        a = node[i0:i1, j0:j1] & node[i0 + dx : i1 + dx, j0 + dy : j1 + dy]
        a &= clear[2 * i0 + dx : 2 * i1 + dx : 2, 2 * j0 + dy : 2 * j1 + dy : 2]  # the leg's middle
        src, dst = ids[i0:i1, j0:j1][a], ids[i0 + dx : i1 + dx, j0 + dy : j1 + dy][a]
        rows += [src, dst]
        cols += [dst, src]
        lens += [np.full(src.size, STEP * math.hypot(dx, dy))] * 2
    n = nx * ny
    graph = coo_matrix((np.concatenate(lens), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()
    pts = np.stack([hx[::2, ::2].ravel(), hy[::2, ::2].ravel()], axis=1)
    inside = node.ravel() & (np.hypot(*(pts - np.asarray(marker)).T) <= CONTEST_RANGE)
    if not inside.any():
        return pts, node.ravel(), np.full(n, math.inf)
    return pts, node.ravel(), dijkstra(graph, indices=np.flatnonzero(inside), min_only=True)


@pytest.mark.parametrize(("card", "preset"), PRESETS)
def test_ways_match_a_naive_grid_on_every_preset(card: str, preset: str) -> None:
    """On 40 random points a base stands clear on (0.15" more than its radius from every Size 2+ footprint), the
    way into each marker's contest range is within the grid's error of the naive grid's, and none where it has none."""
    board, dep = preset_board(card, preset)
    graph = WayGraph(board, RADIUS)
    walls = [t.polygon for t in board.terrain if blocks_path(t)]
    wall = shapely.union_all(walls) if walls else shapely.Polygon()
    rng = np.random.default_rng(7)
    for m in dep["markers"]:
        centre = (float(m["x"]), float(m["y"]))
        pts, node, ref = grid_ways(board, RADIUS, centre)
        ok = node & (shapely.distance(wall, shapely.points(pts)) > RADIUS + 0.15 if walls else node)
        pick = rng.choice(np.flatnonzero(ok), 40, replace=False)
        ours = graph.lengths(pts[pick], np.asarray([centre]), CONTEST_RANGE)[:, 0]
        for p, a, b in zip(pts[pick].tolist(), ours.tolist(), ref[pick].tolist(), strict=True):
            assert math.isinf(a) == math.isinf(b), (card, preset, m["number"], p, a, b)
            if not math.isinf(a):
                assert b / 1.03 - 2 * STEP <= a <= b + 2 * STEP, (card, preset, m["number"], p, a, b)


# ---------------------------------------------------------------- the ridge (issue 29, session 10)
#: Abandoned Camp's standard preset: the red Size 3 ridge (x 3-8, y 8.25-9.75) and the menu's cover spots behind it
RIDGE_SPOTS = [(3.0, 7.22), (5.5, 7.22), (8.0, 7.22)]


def doubled(folder: Path, games: int = 1, seed: int = 52) -> tuple[Simulation, Auto]:
    sim = Simulation(camp(folder, "objective", "objective", length=5, double=True), games, seed)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    auto.legality  # noqa: B018 (builds the menus)
    return sim, auto


def test_behind_the_ridge_the_way_and_the_menu_go_round_it(tmp_path: Path) -> None:
    """8.5.3 ("cannot move through terrain of Size 2 or larger"): from the cover spots behind Abandoned Camp's red
    ridge the way to marker 1 (6, 18) goes round the ridge, longer than the straight line through it; and among the
    Moves the game admits from there (the Legality of the menu, on the table alone) one is a Move nearer: its
    ``marker_moves`` for marker 1 one less than the spot's, which is finite (session 11: the admitted Moves led only
    between the ridge's spots and a lane point beside them, ``marker_moves`` FAR_MOVES everywhere, and before the
    menu's points round the terrain a unit at a cover spot read as many Moves as a step along the way: it stayed)."""
    sim, auto = doubled(tmp_path)
    assert auto._menus is not None
    marker = np.asarray([(6.0, 18.0)])
    spots = np.asarray(RIDGE_SPOTS)
    straight = np.hypot(*(spots - marker).T) - CONTEST_RANGE
    way = way_lengths(sim.world, "marine-1", spots, marker)[:, 0]
    assert (way > straight + 0.3).all() and way[1] > straight[1] + 2.5, (way, straight)  # the middle: 2.9" more
    menu = auto._menus["marine-1"]["movement"]
    feats = Features(sim, auto._menus)
    u = sim.uids.index("marine-1")
    for spot in RIDGE_SPOTS:
        s2 = Simulation(sim.scn, 1, 52)
        leg = s2.players[0].legality  # type: ignore[attr-defined]
        place(s2, "marine-1", spot, np.array([0]), ())
        s2.new_phase(2, "movement")
        ok = leg.mask(u, "movement", np.array([0]))[0]
        moves = [e.to for e, o in zip(menu, ok, strict=True) if o and e.action == "move" and e.to != spot]
        ends = np.asarray([spot, *moves])
        gap = np.hypot(*(ends[:, None, :] - feats.markers[None, :, :]).transpose(2, 0, 1))
        first = feats.moves(u, ends, gap)[:, 0]  # marker 1
        assert 0 < first[0] < FAR_MOVES and first[1:].min() == first[0] - 1, (spot, first)


def test_the_moves_are_the_fewest_moves_between_the_menus_points(tmp_path: Path) -> None:
    """``marker_moves`` of every Move and Deploy point of a Marine's and a Marauder's menu (twice the minerals on
    Abandoned Camp) against a naive breadth-first count: one Move (8.5.3: the way round the terrain on the empty
    table, ``World.route``, at most Speed) to a Move point of the menu, then the fewest such Moves between them to one
    Within 3" of the marker (8.9.1); 0 Within 3" already, FAR_MOVES where none leads there. Every contest spot and
    cover spot leads to some marker (menu.stuck: the way round the terrain by a cover spot that leads nowhere); some
    lane points lead nowhere (the Deploy points at half depth, lane rows by the enemy's ruins: read FAR_MOVES, never
    chosen by ``objective``)."""
    sim, auto = doubled(tmp_path)
    assert auto._menus is not None
    feats = Features(sim, auto._menus)
    markers = [tuple(m) for m in feats.markers.tolist()]
    for uid in ("marine-1", "marauder-1"):
        su = sim.scn.units[uid]
        r = su.base_mm / MM_PER_INCH / 2
        menu = auto._menus[uid]["movement"]
        stops = sorted({e.to for e in menu if e.action == "move" and e.to is not None})
        points = [e.to for e in menu if e.to is not None]

        def one_move(a: tuple[float, float], b: tuple[float, float], su: Any = su, r: float = r) -> bool:
            return (
                0 < math.dist(a, b) <= su.speed and sim.world.route(a, None, b, None, radius=r).length <= su.speed - 0.1
            )

        nxt = {a: [b for b in stops if one_move(a, b)] for a in set(stops) | set(points)}
        u = sim.uids.index(uid)
        ends = np.asarray(points)
        gap = np.hypot(*(ends[:, None, :] - feats.markers[None, :, :]).transpose(2, 0, 1))
        got = feats.moves(u, ends, gap)
        for k, m in enumerate(markers):
            hops = {s: 0 for s in stops if math.dist(s, m) <= CONTEST_RANGE}
            queue = list(hops)
            while queue:  # breadth first, backwards from the contest range
                b = queue.pop(0)
                for a in stops:
                    if a not in hops and b in nxt[a]:
                        hops[a] = hops[b] + 1
                        queue.append(a)
            for i, p in enumerate(points):
                want = (
                    0
                    if math.dist(p, m) <= CONTEST_RANGE
                    else min([FAR_MOVES, *(1 + hops[b] for b in nxt[p] if b in hops)])
                )
                assert got[i, k] == want, (uid, p, m, got[i, k], want)
        kind = {e.to: e.label.split("-")[0] for e in menu if e.to is not None}
        stuck = [p for i, p in enumerate(points) if (got[i] == FAR_MOVES).all()]
        assert not [p for p in stuck if kind[p] in ("marker", "cover")], (uid, stuck)  # a cover spot leads on
        assert len(stuck) < len(points) / 3, (uid, stuck)  # the Marine: 22 of 84 (session 13)


def test_the_doubled_list_no_longer_stays_behind_the_ridge(tmp_path: Path) -> None:
    """Twice the minerals (tests/test_policies.py), 40 games of 5 Rounds, seed 52: no red unit ends a game at a cover
    spot behind the red ridge (before the way round the terrain: one did in 39 of the 40; benchmarks/RESULTS.md,
    session 11, h-ways)."""
    sim = played(camp(tmp_path, "objective", "objective", length=5, double=True), 40, 52)
    behind = 0
    for u, uid in enumerate(sim.uids):
        if sim.scn.units[uid].player != "red":
            continue
        for pid in sim.pos[u].tolist():
            if pid >= 0:
                lead = sim.world.placements[pid].centres[0]
                behind += min(math.dist(lead, s) for s in RIDGE_SPOTS) < 0.1
    assert behind == 0


def test_a_points_ways_are_computed_once_per_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ways are a function of the board, the base, Raptor Strain and the point: a second Simulation of the same
    World's scenario asks the graph for no point again (the World's memo), and the answers are the same."""
    sim, auto = doubled(tmp_path)
    assert auto._menus is not None
    calls: list[int] = []
    real = WayGraph.lengths

    def counted(self: WayGraph, points: Any, centres: Any, reach: float) -> Any:
        calls.append(len(points))
        return real(self, points, centres, reach)

    monkeypatch.setattr(WayGraph, "lengths", counted)
    feats = Features(sim, auto._menus)
    u = sim.uids.index("marine-1")
    ends = np.asarray([(12.0, 7.07), (20.0, 4.0)])
    gap = np.hypot(*(ends[:, None, :] - feats.markers[None, :, :]).transpose(2, 0, 1))
    first = feats.ways(u, ends, gap)
    asked = len(calls)
    assert asked > 0
    again = Features(sim, auto._menus).ways(u, ends, gap)
    assert len(calls) == asked and np.array_equal(first, again)


def test_the_kept_rows_of_end_points_are_the_rows_of_one_batch(tmp_path: Path) -> None:
    """A row of ``Features.ways`` is a function of its end point alone (the way and the Moves from it, 8.5.3, 8.9.1),
    so the rows ``EndRows`` keeps per (unit, end point) and hands back in other batches are, bit for bit, the rows of
    every end point read in one batch: menu points and points off the menu, asked in shuffled batches with repeats."""
    sim, auto = doubled(tmp_path)
    assert auto._menus is not None
    feats = Features(sim, auto._menus)
    u = sim.uids.index("marine-1")
    rng = np.random.default_rng(29)
    menu = [e.to for e in auto._menus["marine-1"]["movement"] if e.to is not None][:40]
    ends = np.asarray([*menu, *rng.uniform((1.0, 1.0), (43.0, 29.0), size=(20, 2)).tolist()])
    gap = np.hypot(*(ends[:, None, :] - feats.markers[None, :, :]).transpose(2, 0, 1))
    whole = feats.ways(u, ends, gap)
    kept, asked = EndRows(), []

    def rows(v: int, e: np.ndarray, g: np.ndarray) -> np.ndarray:
        asked.append(len(e))
        return feats.ways(v, e, g)

    for _ in range(6):
        pick = rng.choice(len(ends), size=15)
        assert np.array_equal(kept.of(u, ends[pick], gap[pick], rows), whole[pick])
    assert sum(asked) == len(kept.kept) < 6 * 15  # each end point read once, the repeats kept


def test_a_flying_units_way_is_the_straight_line(tmp_path: Path) -> None:
    """Part 11 FLYING ("moves point-to-point"): the way of a Flying unit is the straight gap less the contest range,
    through the ridge."""
    sim, _ = doubled(tmp_path)
    su = sim.scn.units["marine-1"]
    spots = np.asarray(RIDGE_SPOTS)
    marker = np.asarray([(6.0, 18.0)])

    class World:  # what way_lengths reads of a World, for the Marine made Flying
        scn = type("S", (), {"units": {"m": type("U", (), {"flying": True, "base_mm": su.base_mm})()}})()

    out = way_lengths(World(), "m", spots, marker)[:, 0]
    assert np.allclose(out, np.hypot(*(spots - marker).T) - CONTEST_RANGE)
