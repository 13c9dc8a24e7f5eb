"""A Charge's legs against each grown obstacle (8.7.7 step 2: "bypass impassable obstacles"; 8.5.3 step 1): the
compiled reading of one leg against one area of many (``fastways.pair_status``, the orientations of the leg and the
area's edges, each decided only where it is more than ``TOL`` from 0) gives shapely's ``intersects`` wherever it
decides, on random discs, tight discs, rounded boxes and areas with holes, with legs that cross, miss, start inside,
end on a vertex or run along an edge; it decides most legs and leaves the touching ones to shapely."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from mathhammer.board.cspace import SLACK, _buffer, _disc
from mathhammer.board.fastways import pack_each, pair_status


def _areas(rng: np.random.Generator) -> np.ndarray:
    out = []
    for _ in range(12):
        x, y, r = rng.uniform([2, 2, 0.3], [18, 18, 2.0])
        kind = int(rng.integers(4))
        if kind == 0:
            out.append(_disc((float(x), float(y)), float(r)))
        elif kind == 1:
            out.append(_buffer(_disc((float(x), float(y)), float(r)), -SLACK))
        elif kind == 2:
            out.append(shapely.box(x - r, y - r / 2, x + r, y + r / 2).buffer(float(r) / 3, quad_segs=8))
        else:
            out.append(
                shapely.box(x - 2 * r, y - 2 * r, x + 2 * r, y + 2 * r).difference(
                    shapely.box(x - r, y - r, x + r, y + r)
                )
            )
    return np.asarray(out, dtype=object)


@pytest.mark.parametrize("seed", range(3))
def test_a_decided_leg_is_shapelys_answer(seed: int) -> None:
    rng = np.random.default_rng(seed)
    decided = {0: 0, 1: 0, 2: 0}
    for _ in range(20):
        areas = _areas(rng)
        packed = pack_each(areas)
        assert packed is not None
        vertices = shapely.get_coordinates(areas[0])
        for a in [rng.uniform(0, 20, 2), vertices[0], shapely.get_coordinates(areas[1].centroid)[0]]:
            inner = shapely.get_coordinates(areas[1].centroid)[0] + rng.uniform(-0.1, 0.1, (5, 2))  # wholly inside
            ends = np.concatenate(
                [rng.uniform(0, 20, (40, 2)), vertices[1:4], shapely.get_coordinates(areas[2])[:3], inner]
            )
            k = np.repeat(np.arange(len(ends)), len(areas))
            p = np.tile(np.arange(len(areas)), len(ends))
            got = pair_status(packed, np.asarray(a, dtype=float), ends, k, p)
            lines = shapely.linestrings(np.stack([np.broadcast_to(a, (len(k), 2)), ends[k]], axis=1))
            want = shapely.intersects(areas[p], lines)
            sure = got < 2
            assert np.array_equal(got[sure].astype(bool), want[sure])
            for v in (0, 1, 2):
                decided[v] += int((got == v).sum())
    assert decided[2] < 0.05 * sum(decided.values()) and decided[0] > 1000 and decided[1] > 1000 and decided[2] > 0


def test_an_area_of_many_parts_is_left_to_shapely() -> None:
    two = shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(2, 2, 3, 3)])
    assert pack_each(np.asarray([shapely.box(0, 0, 1, 1), two], dtype=object)) is None
