"""Engagement's wall test (rulebook 7.2.1: "Size 2+ terrain: Models cannot Engage through it. Even Within 1", a Size 2+
wall between them means they are not Engaged") read by the compiled trace (board/fastsight.py ``free_exists``) held to
the shapely trace search (board/trace.py ``free_trace``), the naive reference: the same verdicts for bases Within 1"
with thin walls, boxes and turned boxes between, beside and under them, a fifth of them grazing a corner or an edge,
and on every deployment card's terrain presets."""

from __future__ import annotations

import math
import random

from mathhammer.board import Model, Unit
from mathhammer.board.engagement import ENGAGEMENT_RANGE, _access_ok, engaged
from mathhammer.board.model import EPS, Board, Terrain
from mathhammer.board.trace import free_trace
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards

PRESETS = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]
BASES = (25.0, 32.0, 40.0, 50.0)


def _reference(board: Board, a: Model, b: Model) -> bool:
    """engaged() as it read the walls before the compiled trace: free_trace of every Size 2+ piece under neither."""
    if a.flying or b.flying or board.unit_of(a).side == board.unit_of(b).side:
        return False
    if a.distance(b) > ENGAGEMENT_RANGE + EPS or not _access_ok(board, a, b):
        return False
    under = {p.id for p in board.stack(a.stands_on)} | {p.id for p in board.stack(b.stands_on)}
    walls = [p.polygon for p in board.terrain if p.size >= 2 and p.id not in under]
    return free_trace(a.centre, a.radius, b.centre, b.radius, walls) is not None


def _wall(rng: random.Random, k: int, mx: float, my: float) -> Terrain:
    """A piece near (mx, my): a thin wall (most), a box or a turned box; Size 1-3 (Size 1 never blocks)."""
    kind = rng.randrange(3)
    if kind == 0:
        w, h = rng.uniform(0.02, 0.3), rng.uniform(0.3, 4)
        x0, y0 = mx + rng.uniform(-0.6, 0.4), my + rng.uniform(-h, 0.3)
        pts = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    elif kind == 1:
        w, h = rng.uniform(0.2, 2), rng.uniform(0.2, 2)
        x0, y0 = mx + rng.uniform(-1.5, 1), my + rng.uniform(-1.5, 1)
        pts = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    else:
        a, w, h = rng.uniform(0, 3.14), rng.uniform(0.05, 1.5), rng.uniform(0.3, 3)
        cs, sn = math.cos(a), math.sin(a)
        x0, y0 = mx + rng.uniform(-0.8, 0.8), my + rng.uniform(-0.8, 0.8)
        pts = [(x0 + cs * x - sn * y, y0 + sn * x + cs * y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    return Terrain(f"t{k}", tuple(pts), size=rng.choice((1, 2, 2, 3)))


def test_engaged_reads_walls_as_the_shapely_trace_on_random_close_bases() -> None:
    """7.2.1: 3,000 pairs of enemy bases Within 1" (or just beyond), 1-3 pieces about them: ``engaged`` gives the
    shapely trace's verdict; both verdicts met many times, walls part some pairs Within 1", and pairs standing on one
    Size 2+ surface are Engaged on it."""
    rng = random.Random(29)
    met = {True: 0, False: 0}
    walled = raised = 0
    for k in range(3000):
        da, db = rng.choice(BASES), rng.choice(BASES)
        ra, rb = da / 25.4 / 2, db / 25.4 / 2
        ax, ay = rng.uniform(5, 10), rng.uniform(5, 10)
        gap = rng.uniform(0.0, 1.05)
        ang = rng.uniform(0, 6.283)
        d = ra + rb + gap
        bx, by = ax + d * math.cos(ang), ay + d * math.sin(ang)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        pieces = [_wall(rng, i, mx, my) for i in range(rng.randint(1, 3))]
        if k % 5 == 0:  # a base whose edge touches a corner of a piece
            x, y = rng.choice(pieces[0].polygon.exterior.coords[:-1])
            bx, by = x + rb * math.cos(ang), y + rb * math.sin(ang)
        on_a = on_b = None
        if k % 7 == 3:  # the first piece a surface (Size 2-3) under both: the piece stood on never parts them (7.2.1)
            x0, x1, y0, y1 = min(ax, bx) - 1.2, max(ax, bx) + 1.2, min(ay, by) - 1.2, max(ay, by) + 1.2
            box = Terrain(pieces[0].id, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), size=rng.choice((2, 3)), surface=True)
            pieces[0], on_a, on_b = box, box.id, box.id
        elif k % 7 == 5:  # a alone on a surface: MID or HIGH GROUND against GROUND LEVEL (7.2.1 elevation)
            box = Terrain(pieces[0].id, ((ax - 1, ay - 1), (ax + 1, ay - 1), (ax + 1, ay + 1), (ax - 1, ay + 1)),
                          size=rng.choice((2, 3)), surface=True)  # fmt: skip
            pieces[0], on_a = box, box.id
        a = Model("a", ax, ay, base_mm=da, stands_on=on_a)
        b = Model("b", bx, by, base_mm=db, stands_on=on_b)
        board = Board.trusted(20, 20, tuple(pieces), (Unit("u1", "p1", (a,)), Unit("u2", "p2", (b,))))  # may overlap
        want = _reference(board, a, b)
        assert engaged(board, a, b) == want, (k, (ax, ay, da), (bx, by, db), [p.polygon.wkt for p in pieces])
        met[want] += 1
        if not want and a.distance(b) <= ENGAGEMENT_RANGE and on_a == on_b:
            walled += 1
        raised += want and on_a is not None and on_b is not None
    assert min(met.values()) > 300 and walled > 100 and raised > 100, (met, walled, raised)


def test_engaged_reads_walls_as_the_shapely_trace_on_every_preset() -> None:
    """7.2.1 on each deployment card's terrain presets: pairs of enemy bases Within 1" near the pieces' corners (the
    presets have no surfaces: the random test stands bases on some) give the shapely trace's verdict."""
    rng = random.Random(5)
    met = {True: 0, False: 0}
    for card, preset in PRESETS:
        table = preset_board(card, preset)[0]
        for k in range(150):
            da, db = rng.choice(BASES), rng.choice(BASES)
            ra, rb = da / 25.4 / 2, db / 25.4 / 2
            # near a piece's edge, where walls may stand between
            piece = rng.choice(table.terrain) if table.terrain else None
            if piece is not None:
                x, y = rng.choice(piece.polygon.exterior.coords[:-1])
                ax, ay = x + rng.uniform(-1.2, 1.2), y + rng.uniform(-1.2, 1.2)
            else:
                ax, ay = rng.uniform(2, table.width - 2), rng.uniform(2, table.depth - 2)
            ang, gap = rng.uniform(0, 6.283), rng.uniform(0, 1.0)
            bx, by = ax + (ra + rb + gap) * math.cos(ang), ay + (ra + rb + gap) * math.sin(ang)
            a = Model("a", ax, ay, base_mm=da)
            b = Model("b", bx, by, base_mm=db)
            units = (Unit("u1", "p1", (a,)), Unit("u2", "p2", (b,)))
            board = Board.trusted(table.width, table.depth, table.terrain, units)
            want = _reference(board, a, b)
            assert engaged(board, a, b) == want, (card, preset, k, (ax, ay, da), (bx, by, db))
            met[want] += 1
    assert min(met.values()) > 200, met
