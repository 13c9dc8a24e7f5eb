"""The suite's own scheduling helpers (tests/plugins): slowest tests first per xdist worker; kernels compiled once."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .plugins import compile_once, longest_first

ROOT = Path(__file__).resolve().parents[1]


def test_slices_are_worksteals_first_distribution() -> None:
    assert longest_first.slices(7, 2) == [3, 4]
    assert longest_first.slices(10, 3) == [3, 3, 4]
    assert sum(longest_first.slices(3351, 2)) == 3351


def test_slow_files_go_whole_to_the_heads_of_the_least_loaded_slices() -> None:
    ids = [f"{f}::t{i}" for f in "abcdef" for i in range(3)]  # 18 tests: slices of 9 and 9
    seconds = {"b::t2": 50.0, "e::t0": 40.0, "e::t1": 5.0, "c::t1": 30.0, "d::t0": 8.0, "a::t0": 0.5}
    out = longest_first.order(ids, str, seconds, 2)
    assert sorted(out) == ids
    first, second = out[:9], out[9:]
    # files b (50 s), e (45), c (30), d (8), each to the slice with less time so far, whole and in its own order
    assert first[:6] == ["b::t0", "b::t1", "b::t2", "d::t0", "d::t1", "d::t2"]  # 58 s
    assert second[:6] == ["e::t0", "e::t1", "e::t2", "c::t0", "c::t1", "c::t2"]  # 75 s
    # the others (a: under a second; f) keep their order, filling the slices
    assert first[6:] + second[6:] == ["a::t0", "a::t1", "a::t2", "f::t0", "f::t1", "f::t2"]


def test_a_file_too_big_for_any_slice_stays_in_place() -> None:
    ids = [f"a::t{i}" for i in range(6)] + ["b::t0", "b::t1"]
    out = longest_first.order(ids, str, {"a::t5": 60.0, "b::t1": 10.0}, 2)
    assert out == ["b::t0", "b::t1", "a::t0", "a::t1", "a::t2", "a::t3", "a::t4", "a::t5"]


def test_order_without_known_durations_is_the_collection_order() -> None:
    ids = [f"f{i % 3}::t{i}" for i in range(9)]
    assert longest_first.order(ids, str, {}, 2) == ids


def test_an_xdist_run_starts_each_worker_on_its_slowest_tests(tmp_path: Path) -> None:
    """A real ``-n 2 --dist worksteal`` run: the two files of the tests listed as slow, last in the collection,
    run first, one on each worker; the run's durations are written back in the durations file's format."""
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (tmp_path / "durations.json").write_text(json.dumps({"test_b.py::test_slow1": 50, "test_c.py::test_slow2": 40}))
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from pathlib import Path\nfrom tests.plugins import longest_first\n"
        "def pytest_configure(config):\n    longest_first.record(config)\n"
        "def pytest_configure_node(node):\n    longest_first.tell_worker(node.config, node)\n"
        "def pytest_collection_modifyitems(config, items):\n"
        "    longest_first.reorder(config, items, Path(__file__).with_name('durations.json'))\n"
    )
    log = tmp_path / "log"
    body = (
        "import os, time\n"
        "def _log(name):\n"
        f"    with open({str(log)!r}, 'a') as f:\n"
        "        f.write(os.environ['PYTEST_XDIST_WORKER'] + ' ' + name + '\\n')\n"
    )
    (tmp_path / "test_a.py").write_text(body + "".join(f"def test_q{i}():\n    _log('q{i}')\n" for i in range(8)))
    for name, slow in (("test_b.py", "slow1"), ("test_c.py", "slow2")):
        (tmp_path / name).write_text(body + f"def test_{slow}():\n    _log('{slow}'); time.sleep(1.1)\n")
    env = {**os.environ, "MATHHAMMER_TEST_DURATIONS": str(tmp_path / "out.json")}
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "worksteal", "-p", "xdist"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first: dict[str, str] = {}
    for line in log.read_text().splitlines():
        worker, name = line.split()
        first.setdefault(worker, name)
    assert sorted(first.values()) == ["slow1", "slow2"], log.read_text()
    written = json.loads((tmp_path / "out.json").read_text())
    assert set(written) == {"test_b.py::test_slow1", "test_c.py::test_slow2"} and min(written.values()) >= 1.0


KERNEL = """
import numba

@numba.njit(cache=True)
def twice(x):
    return 2 * x
"""

RUN = """
import sys
sys.path[:0] = [{root!r}, {here!r}]
from pathlib import Path
if {locked}:
    from tests.plugins import compile_once
    compile_once.install(Path({locks!r}))
import kernel
assert kernel.twice(21) == 42
print(kernel.twice.stats.cache_hits and "loaded" or "compiled")
"""


def _start(tmp_path: Path, locked: bool) -> subprocess.Popen[str]:
    code = RUN.format(root=str(ROOT), here=str(tmp_path), locked=locked, locks=str(tmp_path / "locks"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)


def test_a_kernel_another_worker_is_compiling_is_waited_for_and_loaded(tmp_path: Path) -> None:
    """While "another worker" holds the kernel's lock, a patched process waits; once that one has compiled and saved
    the kernel (an unpatched process here) and let go, the waiting one loads it from the cache. An unpatched
    process started in the same state compiles it itself."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    (tmp_path / "locks").mkdir()
    with open(compile_once._lock_path(tmp_path / "locks", "kernel.twice"), "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        plain, waiting = _start(tmp_path, locked=False), _start(tmp_path, locked=True)
        out, _ = plain.communicate(timeout=120)
        assert out.strip() == "compiled"  # nobody had compiled it: the unpatched process did, and saved it
        time.sleep(0.5)
        assert waiting.poll() is None  # still waiting for the lock
    out, _ = waiting.communicate(timeout=120)
    assert waiting.returncode == 0 and out.strip() == "loaded"


def test_only_xdist_workers_are_patched(monkeypatch: object) -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.plugins import compile_once; compile_once.install_for_workers()\n"
        "print(any(isinstance(f, compile_once._Finder) for f in sys.meta_path), 'numba' in sys.modules)\n"
    )
    for worker, expected in (("gw0", "True False"), (None, "False False")):
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
        if worker:
            env["PYTEST_XDIST_WORKER"] = worker
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert proc.stdout.strip() == expected
