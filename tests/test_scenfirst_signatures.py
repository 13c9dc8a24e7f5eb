"""Issue 28 point 2: the Close Ranks kernels compile each helper once, for the types a run passes.

A literal argument in compiled code (``f(x, 0)``) makes numba compile the callee again for ``Literal[int](0)``
(and every kernel it calls); the level's top was tested that way, which compiled the polygon tests twice in every
first run. The kernels are compiled in a child process with an empty numba cache (a kernel loaded from the cache
compiles none of its callees, so nothing would be seen).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import numpy as np
from numba import types
from shapely.geometry import Polygon
from mathhammer.scenario import fastranks

top_v, top_r, _, _ = fastranks.pack([Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])])
blk = fastranks.pack([Polygon([(4, 4), (6, 4), (6, 6), (4, 6)])])
bases = (np.array([[8.0, 8.0]]), np.array([0.5]), np.array([True]), np.array([False]))
ground = (12.0, 12.0, 1e-9, top_v, top_r, True)
free = [fastranks._free(x, x, 0.5, 0.1, 1.0, bases, ground, blk) for x in (2.0, 5.0, 11.0)]
print(free)  # on the top and clear; on the piece; off the top
for helper in (fastranks._inside, fastranks._boundary_dist):
    print(helper.py_func.__name__, len(helper.signatures),
          sum(any(isinstance(t, types.Literal) for t in s) for s in helper.signatures))
"""


def test_the_terrain_test_compiles_its_polygon_helpers_once_without_literal_types(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    lines = done.stdout.split("\n")
    assert lines[0] == "[True, False, False]"
    assert lines[1:3] == ["_inside 1 0", "_boundary_dist 1 0"]  # one signature each, no literal type
