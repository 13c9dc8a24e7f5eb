"""A straight move's clearance compiled (board/fastline.py) against shapely's reading (board/pathing.py ``_clear`` and
``_touching``, the naive reference): the same answer wherever the kernel gives one, on the golden boards and every
deployment card's terrain presets, for segments across the table, near the obstacles' corners and edges, ending on
an outline or inside an obstacle, and of no length.

Rules read (rulebook 8.5.3 step 1 "The Leading Model cannot move through terrain of Size 2 or larger", Part 4.6 Gap
Clearance; pathing.py's module text: an obstacle a start or end already touches is left out for its own legs).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from mathhammer.board import fastline, load_board, pathing
from mathhammer.board.model import Board
from mathhammer.cli.board_presets import preset_board
from mathhammer.scenario.loader import deployment_cards
from tests.test_board_facts import GOLDEN

BOARDS = sorted(p.stem for p in GOLDEN.glob("*.toml"))
PRESETS = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]


def _shapely(obs: pathing._Obstacles, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """``clear_line``'s reading before the kernel (the reference)."""
    return pathing._clear(obs, a, b, pathing._touching(obs, a) | pathing._touching(obs, b))


def _point(rng: random.Random, board: Board, corners: np.ndarray) -> tuple[float, float]:
    """Anywhere on the table, near an outline's corner, on an edge, or on a corner itself."""
    pick = rng.random()
    if pick < 0.3 or corners.size == 0:
        return (rng.uniform(0, board.width), rng.uniform(0, board.depth))
    i = rng.randrange(len(corners))
    x, y = float(corners[i, 0]), float(corners[i, 1])
    if pick < 0.75:
        return (x + rng.uniform(-1.5, 1.5), y + rng.uniform(-1.5, 1.5))
    if pick < 0.9:  # on the edge to the next corner (inside its rounding)
        j = (i + 1) % len(corners)
        t = rng.random()
        return (x + t * (float(corners[j, 0]) - x), y + t * (float(corners[j, 1]) - y))
    return (x, y)


@pytest.mark.parametrize("where", [("board", b) for b in BOARDS] + [("preset", c, p) for c, p in PRESETS])
def test_clear_is_shapely_where_it_answers(where: tuple[str, ...]) -> None:
    """8.5.3 step 1: ``fastline.clear`` == shapely's ``_clear`` (the obstacles an end is inside left out) wherever it
    answers, and ``clear_line`` == shapely always; it answers for most segments and leaves those touching an outline
    to shapely."""
    board = load_board(GOLDEN / f"{where[1]}.toml") if where[0] == "board" else preset_board(where[1], where[2])[0]
    rng = random.Random(repr(where))
    met: Counter[bool | None] = Counter()
    for r in (0.49, 0.63, 0.79, 0.98):
        obs = pathing._obstacles(board, None, r, 0)
        rings = obs.rings
        assert rings is not None  # the presets' and golden boards' obstacles are plain polygons
        xy, starts = rings
        for k in range(150):
            a = _point(rng, board, xy)
            b = a if k % 25 == 0 else _point(rng, board, xy)
            want = _shapely(obs, a, b)
            got = fastline.clear(a, b, xy, starts)
            assert got is None or got == want, (where, r, a, b)
            assert pathing.clear_line(board, a, b, None, r) == want, (where, r, a, b)
            met[got] += 1
    if len(starts) > 1:
        assert met[True] > 60 and met[False] > 60 and met[None] > 5, met
