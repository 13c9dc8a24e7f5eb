"""The slowest tests first in each pytest-xdist worker's queue, so that no long test is left for the end.

``--dist worksteal`` hands worker k a contiguous slice of the collection (``len // workers`` tests each), each
worker runs its slice in order, and an idle worker steals the *end* of the longest queue. A 20-60 s test near
the end of a slice keeps one core busy while the other has nothing left to take. Here every worker reorders the
collection alike (xdist checks that the workers' collections are equal): the test files holding the tests of
``durations.json`` (seconds, from a whole run) are dealt to the slices longest first, each to the slice with the
least time so far, and run whole at the head of their slice (a module fixture is still set up once); the other
tests keep their order and fill the slices.

``MATHHAMMER_TEST_DURATIONS=FILE python -m pytest`` writes the run's tests of at least one second (setup, call and
teardown) to FILE, in this file's format, to refresh ``durations.json``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

DURATIONS = Path(__file__).with_name("durations.json")
#: Tests shorter than this are not moved (they cannot keep a core busy at the end).
MIN_SECONDS = 1.0

T = TypeVar("T")


def load(path: Path = DURATIONS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()}


def slices(total: int, workers: int) -> list[int]:
    """The slice sizes worksteal's first distribution gives ``workers`` idle workers of ``total`` tests."""
    sizes, left = [], total
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    return sizes


def order(ids: Sequence[T], key: Any, seconds: dict[str, float], workers: int) -> list[T]:
    """``ids`` reordered: the files of the known slow tests dealt longest first to the least loaded slice, at its
    head, each file whole and in its own order (its module fixtures set up once); the other tests keep their
    order and fill the slices up to worksteal's sizes."""
    sizes = slices(len(ids), workers)
    files: dict[str, list[T]] = {}
    for t in ids:
        files.setdefault(key(t).split("::")[0], []).append(t)
    cost = {f: sum(seconds.get(key(t), 0.0) for t in tests) for f, tests in files.items()}
    heads: list[list[T]] = [[] for _ in sizes]
    load = [0.0] * workers
    moved: set[str] = set()
    for f in sorted((f for f in files if cost[f] >= MIN_SECONDS), key=lambda f: -cost[f]):
        fits = [w for w in range(workers) if len(heads[w]) + len(files[f]) <= sizes[w]]
        if fits:
            w = min(fits, key=lambda w: (load[w], w))
            heads[w] += files[f]
            load[w] += cost[f]
            moved.add(f)
    rest = iter([t for t in ids if key(t).split("::")[0] not in moved])
    out: list[T] = []
    for w, size in enumerate(sizes):
        out += heads[w]
        out += [next(rest) for _ in range(size - len(heads[w]))]
    return out


def tell_worker(config: pytest.Config, node: Any) -> None:
    """In the controller, for each worker it starts: the ``--dist`` mode (a worker's own option reads "no")."""
    node.workerinput[DIST] = config.getvalue("dist")


DIST = "mathhammer_dist"


def workers_of(config: pytest.Config) -> int:
    """How many workers share the run (this is a worker of a ``--dist worksteal`` run), else 0."""
    info = getattr(config, "workerinput", None)
    if not info or info.get(DIST) != "worksteal":
        return 0
    return int(info.get("workercount", 0))


def reorder(config: pytest.Config, items: list[pytest.Item], durations: Path = DURATIONS) -> None:
    workers = workers_of(config)
    if workers > 1:
        items[:] = order(items, lambda item: item.nodeid, load(durations), workers)


class Recorder:
    """Sums each test's setup, call and teardown seconds; writes those of at least one second at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        slow = {k: round(v, 1) for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1]) if v >= MIN_SECONDS}
        self.path.write_text(json.dumps(slow, indent=0) + "\n")


def record(config: pytest.Config) -> None:
    """In the controller (or a run without xdist), with ``MATHHAMMER_TEST_DURATIONS`` set: a :class:`Recorder`."""
    out = os.environ.get("MATHHAMMER_TEST_DURATIONS")
    if out and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(Path(out)), "mathhammer-durations")
