"""Board files with thousands of models are checked in bounded time and memory (issue 27 point 3)."""

from __future__ import annotations

import itertools
import math
import random
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mathhammer.board.loader import parse_board
from mathhammer.board.model import BoardError
from mathhammer.board.overlaps import TOUCH, overlapping_pairs
from mathhammer.cli import app
from mathhammer.engine.budget import PROBLEMS_SHOWN


def board_text(points: list[tuple[float, float]]) -> str:
    models = ",\n".join(f'  {{ id = "m{i}", x = {x}, y = {y} }}' for i, (x, y) in enumerate(points))
    return f'[battlefield]\nwidth = 44\ndepth = 30\n[[units]]\nid = "u"\nside = "p"\nmodels = [\n{models}\n]\n'


def naive_pairs(centres: np.ndarray, radii: np.ndarray) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, j in itertools.combinations(range(len(radii)), 2)
        if math.dist(centres[i], centres[j]) < radii[i] + radii[j] - TOUCH
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 10), st.floats(0, 10), st.floats(0.1, 2)),
        min_size=0,
        max_size=40,
    ),
    st.integers(0, 30),
)
def test_the_sweep_finds_the_pairs_every_pair_check_finds(models, keep):
    centres = np.array([(x, y) for x, y, _ in models], dtype=float).reshape(-1, 2)
    radii = np.array([r for _, _, r in models], dtype=float)
    expected = naive_pairs(centres, radii)
    pairs, total = overlapping_pairs(centres, radii, keep)
    assert total == len(expected)
    assert pairs == expected[:keep]


def test_touching_bases_are_allowed():
    r = 25 / 25.4 / 2
    pairs, total = overlapping_pairs(np.array([[1.0, 1.0], [1.0 + 2 * r, 1.0]]), np.array([r, r]), 5)
    assert (pairs, total) == ([], 0)


def test_five_thousand_stacked_models_give_twenty_lines_in_little_memory():
    """1,000 stacked models printed 499,501 lines; 5,000 needed over 6 GiB."""
    text = board_text([(5.0, 5.0)] * 5000)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(BoardError) as info:
            parse_board(text, "stack.toml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    took = time.perf_counter() - start
    problems = info.value.problems
    assert len(problems) <= PROBLEMS_SHOWN + 1
    assert problems[0] == "stack.toml: model 'm0' and model 'm1': bases overlap; allowed: touching at most"
    assert problems[-1] == f"stack.toml: ... and {5000 * 4999 // 2 - PROBLEMS_SHOWN:,} more overlapping pairs"
    assert peak < 300 * 2**20, peak
    assert took < 60


def test_many_problems_of_any_kind_end_with_how_many_more():
    text = board_text([(100.0 + i, 5.0) for i in range(50)])  # every base off the table
    with pytest.raises(BoardError) as info:
        parse_board(text, "off.toml")
    problems = info.value.problems
    assert len(problems) == PROBLEMS_SHOWN + 1 and problems[-1] == "... and 30 more"


def test_a_legal_board_of_many_models_loads():
    rng = random.Random(1)
    grid = [(1 + 1.05 * (i % 40), 1 + 1.05 * (i // 40)) for i in range(1000)]
    rng.shuffle(grid)
    board = parse_board(board_text(grid))
    assert len(list(board.models)) == 1000


def test_the_command_line_prints_the_bounded_list(tmp_path):
    path = tmp_path / "stack.toml"
    path.write_text(board_text([(5.0, 5.0)] * 1000))
    r = CliRunner().invoke(app, ["board", "los", str(path), "--attacker", "a", "--target", "b"])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == PROBLEMS_SHOWN + 1
    assert lines[-1] == "error: stack.toml: ... and 499,480 more overlapping pairs"
