"""Line of Sight's verdict compiled (board/fastsight.py) against the shapely search (board/trace.py, board/los.py), the
naive reference: the same answers on random footprints, on the golden boards and on every deployment card's terrain
presets, and the attack facts of 8.7.3 (Target Eligibility, casualties, Evade) the same with either.

Rules read (rulebook 7.1 LINE OF SIGHT "trace an imaginary straight line from any part of the acting model's base to
any part of the target model's base", 7.1.1 Close Quarters and Elevation Dead Zone, 7.1.2 stacking and the surface a
model stands on, 7.1.3 Full and Direct Cover, 7.1.4 Flying, part 11 HIDDEN "not Visible to any model more than 4"
away", 8.7.3 step 1 TARGET ELIGIBILITY, 8.7.4 Evade, FAQ v1.0 INDIRECT FIRE).
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import zlib
from dataclasses import replace

import numpy as np
import pytest
from shapely.geometry import Polygon

from mathhammer.board import Model, Unit, facts, fastsight, load_board
from mathhammer.board.facts import attack_eligible, attack_facts
from mathhammer.board.los import COVER_RANGE, blocking, line_of_sight
from mathhammer.board.model import EPS, Board, Terrain
from mathhammer.board.trace import free_trace
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards
from tests.test_board_facts import GOLDEN

BOARDS = sorted(p.stem for p in GOLDEN.glob("*.toml"))
PRESETS = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]


def _rings(polys: list[Polygon]) -> tuple[np.ndarray, np.ndarray]:
    rings = [np.asarray(p.exterior.coords, dtype=np.float64)[:-1] for p in polys]
    starts = np.zeros(len(rings) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(r) for r in rings])
    return np.ascontiguousarray(np.concatenate(rings)), starts


def _footprint(rng: random.Random) -> Polygon:
    cx, cy = rng.uniform(2, 18), rng.uniform(-4, 4)
    kind = rng.randrange(4)
    if kind == 0:  # a box, sometimes a thin wall
        w, h = rng.choice((rng.uniform(0.05, 0.5), rng.uniform(0.5, 3))), rng.uniform(0.2, 6)
        return Polygon([(cx, cy), (cx + w, cy), (cx + w, cy + h), (cx, cy + h)])
    if kind == 1:  # an L (a reflex corner)
        w, h, t = rng.uniform(1, 3), rng.uniform(1, 3), rng.uniform(0.2, 0.9)
        return Polygon([(cx, cy), (cx + w, cy), (cx + w, cy + t), (cx + t, cy + t), (cx + t, cy + h), (cx, cy + h)])
    if kind == 2:  # a turned box
        a, w, h = rng.uniform(0, np.pi), rng.uniform(0.3, 3), rng.uniform(0.3, 3)
        c, s = np.cos(a), np.sin(a)
        return Polygon([(cx + c * x - s * y, cy + s * x + c * y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    n = rng.randint(5, 9)  # a star (many reflex corners)
    pts = []
    for i in range(n):
        r = rng.uniform(0.4, 2.0)
        a = 2 * np.pi * i / n
        pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return Polygon(pts)


def test_hull_near_is_the_golden_search_verdict() -> None:
    """7.1 (the trace's features): ``_hull_near`` (the least gap to the hull of two discs in closed form) gives the
    golden-section search's verdict ``_hull_gap(...) <= limit`` on 20,000 random discs and points, a third of them
    within 1e-6 of the limit, discs holding each other and points inside the hull among them."""
    rng = random.Random(29)
    met = {True: 0, False: 0}
    for k in range(20_000):
        ax, ay, bx, by = (rng.uniform(0, 20) for _ in range(4))
        ra, rb = rng.uniform(0.3, 3), rng.choice((rng.uniform(0.3, 3), rng.uniform(5, 30)))
        if k % 7 == 0:
            bx, by = ax + rng.uniform(-0.5, 0.5), ay + rng.uniform(-0.5, 0.5)  # one disc may hold the other
        px, py = rng.uniform(-5, 25), rng.uniform(-5, 25)
        gap = fastsight._hull_gap(px, py, ax, ay, ra, bx, by, rb)
        limit = rng.uniform(0.0, 0.05) if k % 3 else gap + rng.uniform(-1e-6, 1e-6)  # at the limit: the search
        want = gap <= limit
        assert fastsight._hull_near(px, py, ax, ay, ra, bx, by, rb, limit) == want, (k, px, py, ax, ay, ra, bx, by, rb)
        met[want] += 1
    assert min(met.values()) > 2000, met


def test_free_exists_is_free_trace_on_random_footprints() -> None:
    """7.1: ``free_exists`` == ``free_trace(...) is not None`` on 3,000 random pairs of bases and 1-4 footprints
    (boxes, thin walls, L shapes, turned boxes, stars), a fifth of them with the bases grazing a corner or an edge
    (the traces the search tests run along edges and through corners); both answers met."""
    rng = random.Random(7)
    met = {True: 0, False: 0}
    for k in range(3000):
        polys = [_footprint(rng) for _ in range(rng.randint(1, 4))]
        ra, rb = rng.choice((0.49, 0.63, 0.79, 0.98)), rng.choice((0.49, 0.63, 0.79, 0.98))
        ca = (rng.uniform(-1, 1), rng.uniform(-4, 4))
        cb = (20 + rng.uniform(-1, 1), rng.uniform(-4, 4))
        if k % 5 == 0:  # a base whose edge touches a corner of a footprint, or two bases level with an edge
            x, y = rng.choice(list(polys[0].exterior.coords))
            if rng.random() < 0.5:
                cb = (x + rb, y)
            else:
                ca, cb = (ca[0], y + ra), (cb[0], y + rb)
        xy, starts = _rings(polys)
        want = free_trace(ca, ra, cb, rb, polys) is not None
        assert fastsight.free_exists(ca, ra, cb, rb, xy, starts) == want, (k, ca, ra, cb, rb, [p.wkt for p in polys])
        met[want] += 1
    assert min(met.values()) > 300, met


def _random_models(rng: random.Random, board: Board, n: int, tag: str) -> list[Model]:
    """Models anywhere on the table (some over a footprint, some standing on a surface, some Flying)."""
    from shapely.geometry import Point

    out = []
    surfaces = [p for p in board.terrain if p.surface]
    for i in range(n):
        x, y = rng.uniform(0, board.width), rng.uniform(0, board.depth)
        on = [p.id for p in surfaces if p.polygon.contains(Point(x, y))]
        out.append(
            Model(
                f"{tag}{i}",
                x,
                y,
                base_mm=rng.choice((25.0, 32.0, 40.0, 50.0, 60.0)),
                size=rng.randint(1, 4),
                stands_on=on[-1] if on and rng.random() < 0.7 else None,
                flying=rng.random() < 0.08,
            )
        )
    return out


@pytest.mark.parametrize("where", [("board", b) for b in BOARDS] + [("preset", c, p) for c, p in PRESETS])
def test_sees_is_line_of_sight_on_golden_boards_and_presets(where: tuple[str, ...]) -> None:
    """7.1-7.1.4, part 11 HIDDEN: ``fastsight.sees`` (and its unmemoised ``_sees``) == ``line_of_sight(...).visible``
    for 600 model pairs on the board's terrain (random bases, Sizes, surfaces, Flying, HIDDEN units)."""
    board = load_board(GOLDEN / f"{where[1]}.toml") if where[0] == "board" else preset_board(where[1], where[2])[0]
    rng = random.Random(zlib.crc32(repr(where).encode()))
    met = {True: 0, False: 0}
    for k in range(20):
        a = Unit("a", "red", tuple(_random_models(rng, board, 5, "a")))
        t = Unit("t", "blue", tuple(_random_models(rng, board, 6, "t")), hidden=k % 4 == 0)
        b = Board.trusted(board.width, board.depth, board.terrain, (a, t))
        for x in a.models:
            for y in t.models:
                fast = fastsight._sees(b, x, y)
                want = line_of_sight(b, x, y).visible
                assert fast == want, (where, x, y, t.hidden)
                assert fastsight.sees(b, x, y) == want
                met[want] += 1
    assert min(met.values()) > (20 if board.terrain else -1), met


def test_attack_facts_the_same_with_the_compiled_sight() -> None:
    """8.7.3 step 1 and 8.7.4 (distances, bands, Visible models, removable casualties, Evade, refusals):
    ``attack_facts`` and ``attack_eligible`` with ``visible=fastsight.sees`` equal to the shapely search's on 1,500
    random attacks on the golden boards and the presets (Range, LONG RANGE, INDIRECT FIRE, HIDDEN)."""
    rng = random.Random(87)
    boards = [load_board(GOLDEN / f"{b}.toml") for b in BOARDS] + [preset_board(c, p)[0] for c, p in PRESETS]
    eligible = 0
    for k in range(1500):
        board = boards[k % len(boards)]
        cx, cy = rng.uniform(3, board.width - 3), rng.uniform(3, board.depth - 3)
        a = Unit("a", "red", tuple(_near(rng, board, cx, cy, "a")))
        tx, ty = cx + rng.uniform(-14, 14), cy + rng.uniform(-14, 14)
        t = Unit("t", "blue", tuple(_near(rng, board, tx, ty, "t")), hidden=rng.random() < 0.15)
        b = Board.trusted(board.width, board.depth, board.terrain, (a, t))
        kw = {
            "long_range": rng.choice((None, None, 30.0)),
            "indirect": rng.random() < 0.15,
            "target_tags": rng.choice(((), (), ("Hidden",), ("Burrowed",))),
        }
        rg = rng.choice((None, 6.0, 12.0, 18.0))
        fastsight._SEES.clear()
        fast = attack_facts(b, "a", "t", rg, visible=fastsight.sees, **kw)  # type: ignore[arg-type]
        assert attack_eligible(b, "a", "t", rg, visible=fastsight.sees, **kw) == fast.eligible  # type: ignore[arg-type]
        assert fast.to_dict() == attack_facts(b, "a", "t", rg, **kw).to_dict(), (k, kw)  # type: ignore[arg-type]
        many = attack_facts(b, "a", "t", rg, visible=fastsight.sees, visible_many=fastsight.sees_many, **kw)  # type: ignore[arg-type]
        assert many == fast, (k, kw)
        eligible += fast.eligible
    assert 300 < eligible < 1200, eligible


def test_attack_facts_read_the_kept_sight_as_afresh() -> None:
    """8.7.3 step 1, 8.7.4, 8.7.5: what ``attack_facts`` keeps per board and unit pair (``facts._sight_of``: Line of
    Sight of each pair, each model's nearest Visible target, the Engaged links, HIGH GROUND, the casualty tiers) gives
    the facts it gives afresh, for each of a unit's weapons at one target in turn (Range, LONG RANGE, BURST FIRE,
    INDIRECT FIRE, PINPOINT, BULKY; the target HIDDEN or BURROWED from one weapon to the next), on 300 random boards
    of the golden boards and presets, some of them Engaged; and a board new at the id of one gone is read afresh."""
    rng = random.Random(88)
    boards = [load_board(GOLDEN / f"{b}.toml") for b in BOARDS] + [preset_board(c, p)[0] for c, p in PRESETS]
    kept = engaged = 0
    for k in range(300):
        board = boards[k % len(boards)]
        cx, cy = rng.uniform(3, board.width - 3), rng.uniform(3, board.depth - 3)
        a = Unit("a", "red", tuple(_near(rng, board, cx, cy, "a")))
        reach = rng.choice((2.0, 14.0))
        tx, ty = cx + rng.uniform(-reach, reach), cy + rng.uniform(-reach, reach)
        t = Unit("t", "blue", tuple(_near(rng, board, tx, ty, "t")), hidden=rng.random() < 0.15)
        b = Board.trusted(board.width, board.depth, board.terrain, (a, t))
        tags = rng.choice(((), (), ("Hidden",), ("Burrowed",)))
        for _ in range(4):  # a unit's weapons at one target, one after the other (the target BURROWED or not)
            tags = rng.choice((tags, tags, ("Burrowed",), ()))
            kw = {
                "long_range": rng.choice((None, None, 30.0)),
                "burst_within": rng.choice((None, 4.0)),
                "indirect": rng.random() < 0.2,
                "pinpoint": rng.random() < 0.2,
                "bulky": rng.random() < 0.2,
                "target_tags": tags,
            }
            rg = rng.choice((None, 6.0, 12.0, 18.0))
            warm = attack_facts(b, "a", "t", rg, visible=fastsight.sees, visible_many=fastsight.sees_many, **kw)  # type: ignore[arg-type]
            kept += len(facts._SIGHT) > 0
            facts._SIGHT.clear()
            afresh = attack_facts(b, "a", "t", rg, visible=fastsight.sees, visible_many=fastsight.sees_many, **kw)  # type: ignore[arg-type]
            assert warm.to_dict() == afresh.to_dict(), (k, kw)
            assert attack_facts(b, "a", "t", rg, **kw).to_dict() == afresh.to_dict(), (k, kw)  # type: ignore[arg-type]
            engaged += afresh.target_engaged
    assert kept == 1200 and engaged > 20, (kept, engaged)
    # the same id, another board: the kept answer is the old board's, never read for the new one
    facts._SIGHT.clear()
    a = Unit("a", "red", (Model("a.1", 5, 5, 32),))
    near = Board.trusted(30, 30, (), (a, Unit("t", "blue", (Model("t.1", 10, 5, 32),))))
    attack_facts(near, "a", "t", 12, visible=fastsight.sees)
    (key,) = facts._SIGHT
    far = Board.trusted(30, 30, (), (a, Unit("t", "blue", (Model("t.1", 25, 5, 32),))))
    facts._SIGHT[(id(far), *key[1:])] = facts._SIGHT.pop(key)  # as if ``far`` took ``near``'s id
    assert attack_facts(far, "a", "t", 12, visible=fastsight.sees).refusals


@pytest.mark.parametrize("where", [("board", b) for b in BOARDS] + [("preset", c, p) for c, p in PRESETS])
def test_sees_many_is_known_only_where_line_of_sight_sees(where: tuple[str, ...]) -> None:
    """7.1, 7.1.1, part 11 HIDDEN: ``sees_many`` answers True only for pairs ``line_of_sight`` finds Visible (the
    shapely search), on 60 random unit pairs per golden board and preset, HIDDEN targets among them; and it knows most
    of the Visible pairs at once (the shortest piece of the centre line crossing no piece that blocks sight), all of
    them on the open table but those of a HIDDEN target beyond 4"."""
    rng = random.Random(zlib.crc32("/".join(where).encode()))
    board = load_board(GOLDEN / f"{where[1]}.toml") if where[0] == "board" else preset_board(where[1], where[2])[0]
    known = visible = 0
    for _ in range(60):
        cx, cy = rng.uniform(3, board.width - 3), rng.uniform(3, board.depth - 3)
        a = Unit("a", "red", tuple(_near(rng, board, cx, cy, "a")))
        t = Unit("t", "blue", tuple(_near(rng, board, cx + rng.uniform(-14, 14), cy + rng.uniform(-14, 14), "t")),
                 hidden=rng.random() < 0.2)  # fmt: skip
        for terrain in (board.terrain, ()):
            b = Board.trusted(board.width, board.depth, terrain, (a, t))
            rows = fastsight.sees_many(b, a.models, t.models)
            for am, row in zip(a.models, rows, strict=True):
                for tm, surely in zip(t.models, row, strict=True):
                    seen = line_of_sight(b, am, tm).visible
                    assert seen or not surely, (where, am, tm)
                    if not terrain:  # the open table: known wherever Visible
                        assert surely == seen, (where, am, tm)
                    else:
                        known += surely
                        visible += seen
    assert known >= 0.5 * visible, (known, visible)  # (a board with no piece blocking sight: both 0)


def test_unit_apart_is_every_pair_apart() -> None:
    """7.2.1 (Engaged: Within 1"): ``Unit.apart`` is True only where every pair of bases is more than the reach
    apart (:meth:`Model.distance`), on 3,000 random unit pairs; and True for most pairs that far apart."""
    rng = random.Random(11)
    said = far = 0
    for _ in range(3000):
        units = []
        for tag in "ab":
            cx, cy = rng.uniform(0, 20), rng.uniform(0, 20)
            units.append(Unit(tag, tag, tuple(
                Model(f"{tag}{i}", cx + rng.uniform(-2, 2), cy + rng.uniform(-2, 2), base_mm=rng.choice((25, 32, 50)))
                for i in range(rng.randint(1, 6))
            )))  # fmt: skip
        reach = rng.choice((1.0, 1.0 + EPS, 3.0))
        gap = min(m.distance(o) for m in units[0].models for o in units[1].models)
        apart = units[0].apart(units[1], reach)
        assert apart == units[1].apart(units[0], reach)
        assert not apart or gap > reach, (gap, reach)
        far += gap > reach + 3.0
        said += apart and gap > reach + 3.0
    assert far > 500 and said > 0.5 * far, (said, far)


def _near(rng: random.Random, board: Board, cx: float, cy: float, tag: str) -> list[Model]:
    out: list[Model] = []
    for _ in range(40):
        if len(out) == 5:
            break
        m = Model(
            f"{tag}{len(out)}",
            min(max(cx + rng.uniform(-2.5, 2.5), 1), board.width - 1),
            min(max(cy + rng.uniform(-2.5, 2.5), 1), board.depth - 1),
            base_mm=rng.choice((25.0, 32.0, 40.0)),
        )
        if all(m.distance(o) > 0 for o in out):
            out.append(replace(m))
    return out


def _naive_piece_blocks(board: Board, a: Model, b: Model, piece: Terrain) -> str | None:
    """7.1.1-7.1.4 per piece, as written before ``blocking`` read the pair's values once (the reference)."""
    if not piece.blocks_sight:
        return None
    under = {p.id for p in board.stack(a.stands_on)} | {p.id for p in board.stack(b.stands_on)}
    if piece.id in under:
        return None
    size = board.terrain_effective_size(piece)
    ea, eb = board.effective_size(a), board.effective_size(b)
    if not (a.flying or b.flying) and size >= ea and size >= eb:
        return "full-cover"
    if (
        a.distance(b) <= 3.0 + EPS
        and board.within_terrain(a, piece, COVER_RANGE)
        and board.within_terrain(b, piece, COVER_RANGE)
    ):
        return None
    for m, e in ((a, ea), (b, eb)):
        if size >= e and board.within_terrain(m, piece, COVER_RANGE):
            return "direct-cover"
    return None


def test_blocking_is_each_piece_judged_alone() -> None:
    """7.1 "Terrain pieces do not combine", 7.1.1 Close Quarters, 7.1.2 the surface stood on, 7.1.3 Full and Direct
    Cover, 7.1.4 Flying: ``blocking`` (each pair's values read once) == the per-piece reading, on pairs of bases near
    each other (Close Quarters met) on the golden boards and the presets."""
    rng = random.Random(11)
    boards = [load_board(GOLDEN / f"{b}.toml") for b in BOARDS] + [preset_board(c, p)[0] for c, p in PRESETS]
    rules: dict[str | None, int] = {}
    for k in range(4000):
        board = boards[k % len(boards)]
        a = _random_models(rng, board, 1, "a")[0]
        b = _random_models(rng, board, 1, "b")[0]
        if k % 2:  # near each other: Close Quarters and Direct Cover
            b = replace(b, x=a.x + rng.uniform(-3.5, 3.5), y=a.y + rng.uniform(-3.5, 3.5), stands_on=None)
        units = (Unit("a", "red", (a,)), Unit("b", "blue", (b,)))
        pair = Board.trusted(board.width, board.depth, board.terrain, units)
        got = dict(blocking(pair, a, b))
        for piece in board.terrain:
            want = _naive_piece_blocks(pair, a, b, piece)
            assert got.get(piece) == want, (k, piece.id, a, b)
            rules[want] = rules.get(want, 0) + 1
    assert min(rules.get(r, 0) for r in (None, "full-cover", "direct-cover")) > 100, rules


def test_free_exists_has_room_for_every_feature() -> None:
    """The search's features (the two bases, each corner by their hull, each edge's crossings with each base) fit
    its buffer: bases crossing every edge of a triangle twice (12 features of one triangle). Run as Python
    (``NUMBA_DISABLE_JIT``) so a write past the buffer raises instead of going unseen, and held to ``free_trace``."""
    code = """
import numpy as np
from shapely.geometry import Polygon
from mathhammer.board import fastsight
from mathhammer.board.trace import free_trace
tri = [(-2.1329330357692378, 1.5027360439455197), (-0.3043638422290158, -0.48689220196528105),
       (2.0895515319709626, -2.84224054368759)]
ca, ra = (-2.871944052859956, -0.3202801684847225), 1.9586475107793546
cb, rb = (2.1682848959388323, -0.5596351673498443), 2.161485524731847
got = fastsight.free_exists(ca, ra, cb, rb, np.array(tri), np.array([0, 3]))
assert got == (free_trace(ca, ra, cb, rb, [Polygon(tri)]) is not None), got
"""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    cmd = [sys.executable, "-c", code]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_sight_kernel_reads_each_rule_as_blocking_at_its_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """7.1.1 Close Quarters, 7.1.3 Full and Direct Cover (Within 1" of any part of the piece, FAQ v1.0), 7.1.4 Flying:
    the compiled pass of a pair on the playmat (``_sight_kernel``: each piece's rule, then the trace) gives
    ``line_of_sight``'s verdict with a base set 1" from a piece's edge and a hair either side of it (2**-40" to 0.5"),
    the other base within 3" of it or anywhere, on the golden boards and the presets; a gap within ``SIGHT_TOL`` of its
    limit is left to ``los`` (the kernel says 2)."""
    from collections import Counter

    from shapely.geometry import Point

    answers: Counter[int] = Counter()
    real = fastsight._sight_kernel

    def spy(*args: object) -> int:
        got = int(real(*args))
        answers[got] += 1
        return got

    monkeypatch.setattr(fastsight, "_sight_kernel", spy)
    rng = random.Random(29)
    boards = [load_board(GOLDEN / f"{b}.toml") for b in BOARDS] + [preset_board(c, p)[0] for c, p in PRESETS]
    boards = [b for b in boards if b.sight_pieces()]
    met: Counter[bool] = Counter()
    for k in range(1600):
        board = boards[k % len(boards)]
        piece = rng.choice(board.sight_pieces())[0]
        ring = list(piece.polygon.exterior.coords)[:-1]
        i = rng.randrange(len(ring))
        (x0, y0), (x1, y1) = ring[i], ring[(i + 1) % len(ring)]
        length = math.hypot(x1 - x0, y1 - y0)
        if length < 0.1:
            continue
        t = rng.uniform(0.2, 0.8)
        px, py, nx, ny = x0 + t * (x1 - x0), y0 + t * (y1 - y0), (y1 - y0) / length, -(x1 - x0) / length
        base = rng.choice((25.0, 32.0, 40.0, 50.0))
        gap = base / 25.4 / 2 + COVER_RANGE + EPS + rng.choice((0.0, 2**-40, -(2**-40), 1e-8, -1e-8, 1e-3, -1e-3, 0.5))
        side = 1.0 if not piece.polygon.contains(Point(px + nx * gap, py + ny * gap)) else -1.0
        cx, cy = px + side * nx * gap, py + side * ny * gap
        edge = Model("e0", cx, cy, base_mm=base, size=rng.randint(1, 4), flying=rng.random() < 0.1)
        if k % 2:  # Close Quarters: the other base within 3" or a little more
            ox, oy = cx + rng.uniform(-3.5, 3.5), cy + rng.uniform(-3.5, 3.5)
        else:
            ox, oy = rng.uniform(0, board.width), rng.uniform(0, board.depth)
        other = Model("o0", ox, oy, base_mm=rng.choice((25.0, 32.0, 40.0)), size=rng.randint(1, 4),
                      flying=rng.random() < 0.1)  # fmt: skip
        if edge.distance(other) <= 0 or any(p.polygon.contains(Point(ox, oy)) for p in board.terrain if p.surface):
            continue
        a, b = (edge, other) if k % 3 else (other, edge)
        pair = Board.trusted(board.width, board.depth, board.terrain, (Unit("a", "red", (a,)), Unit("b", "blue", (b,))))
        want = line_of_sight(pair, a, b).visible
        assert fastsight._sees(pair, a, b) == want, (k, piece.id, a, b)
        met[want] += 1
    assert min(met.values()) > 100, met
    assert answers[2] > 20 and answers[0] > 100 and answers[1] > 500, answers
