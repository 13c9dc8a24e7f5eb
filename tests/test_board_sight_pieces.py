"""Line of Sight's pieces read once per terrain (7.1.1 Cover, 7.1.2 Stacking Terrain, 7.3.1 Tokens): each board's own
pieces and Effective Sizes, whatever another board of equal ids read before it."""

from __future__ import annotations

import random

import numpy as np

from mathhammer.board.fastsight import rings as _rings
from mathhammer.board.los import blocking
from mathhammer.board.model import Board, BoardError, Model, Terrain, Unit
from tests.test_board import board_of, rect, solo


def _stacked(crate_size: int, lift: float) -> tuple[Terrain, ...]:
    platform = Terrain("platform", rect(10, 10, 16, 20), size=2, surface=True)
    crate = Terrain("crate", rect(11 + lift, 11, 13 + lift, 13), size=crate_size, surface=True, stands_on="platform")
    token = Terrain("token", rect(30, 5, 31, 6), token=True)
    flat = Terrain("flat", rect(30, 20, 34, 24), size=0)
    wall = Terrain("wall", rect(22, 2, 23, 28), size=3)
    return (platform, crate, token, flat, wall)


def test_sight_pieces_are_each_board_s_own() -> None:
    """7.1.2: a piece's Effective Size is its own Size plus the Sizes it is set on; 7.3.1: a Token never blocks, nor
    does a Size 0 piece (7.1.2: only pieces that rise). Two boards whose pieces have the same ids but other Sizes and
    footprints each read their own, in board order."""
    first = board_of(*_stacked(1, 0.0), solo("a", "p1", 5, 15))
    second = board_of(*_stacked(2, 1.5), solo("a", "p1", 5, 15))
    for board, crate in ((first, 3), (second, 4), (first, 3)):
        read = [(p.id, size) for p, size in board.sight_pieces()]
        assert read == [("platform", 2), ("crate", crate), ("wall", 3)]
        assert all(p is board.pieces[p.id] for p, _ in board.sight_pieces())


def test_blocking_reads_the_board_s_pieces_as_the_pieces_given() -> None:
    """7.1.1 (Full Cover, Direct Cover, Close Quarters), 7.1.2 and the Elevation Dead Zone: the pieces blocking a trace
    between two models, read from the board's own list (``sight_pieces``), are those read from the pieces given one by
    one, on boards with models on the playmat, on the platform and on the crate, of Sizes 1 to 3 and Flying."""
    rng = random.Random(7)
    read: list[int] = []
    for crate_size, lift in ((1, 0.0), (2, 1.5)):
        terrain = _stacked(crate_size, lift)
        for _ in range(60):
            models = []
            for i in range(2):
                where = rng.choice([None, "platform", "crate"])
                x, y = (
                    (rng.uniform(1, 43), rng.uniform(1, 29))
                    if where is None
                    else (11.9 + lift, 12.0)
                    if where == "crate"
                    else (rng.uniform(14.5, 15.5), rng.uniform(15, 19))
                )
                flying = where is None and rng.random() < 0.2
                models.append(Model(f"m{i}", x, y, size=rng.randint(1, 3), stands_on=where, flying=flying))
            try:
                board = Board(44, 30, terrain, (Unit("u0", "p1", (models[0],)), Unit("u1", "p2", (models[1],))))
            except BoardError:  # the two bases overlap (both on the crate): no board
                continue
            a, b = board.model("m0"), board.model("m1")
            assert blocking(board, a, b) == blocking(board, a, b, board.terrain)
            read.append(len(blocking(board, a, b)))
    assert len(read) > 80 and 0 in read and max(read) >= 2


def test_rings_are_each_pieces_own() -> None:
    """The footprints' corners read for a trace (7.1) are those of the pieces given, not of other pieces with the same
    ids read before."""
    one = (Terrain("w", rect(0, 0, 1, 1), size=2), Terrain("v", rect(5, 5, 7, 6), size=3))
    two = (Terrain("w", rect(2, 0, 3, 4), size=2), Terrain("v", rect(5, 5, 7, 6), size=3))
    for pieces in (one, two, one):
        xy, starts = _rings(pieces)
        want = [np.asarray(p.polygon.exterior.coords)[:-1] for p in pieces]
        assert starts.tolist() == [0, len(want[0]), len(want[0]) + len(want[1])]
        assert np.array_equal(xy, np.concatenate(want))
