"""Ctrl-C during a report on a local Dask cluster: exit 130 promptly, one line, no process left.

The sweep's worker processes hold nothing to save (a report is written only after the sweep), so the
interrupt kills them at once instead of waiting for their running cells; a Ctrl-C while they start up
is not lost either.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mathhammer.report.runner import cpu_count
from tests.signals import AS_FROM_A_TERMINAL

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or cpu_count() < 2, reason="needs /proc and 2+ cores (a local cluster)"
)


#: Seconds from SIGINT to exit allowed here: generous for a loaded machine (about 1 s on a quiet one).
STOP_WITHIN = 15.0


def _session(sid: int) -> dict[int, str]:
    """Live (not zombie) processes of session ``sid``, by pid: their state and command line."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                out[int(stat.parent.name)] = f"{fields[0]} {cmd}"
        except (OSError, ValueError, IndexError):
            continue
    return out


def _workers(sid: int) -> list[int]:
    return [pid for pid, cmd in _session(sid).items() if "spawn_main" in cmd]


@pytest.mark.parametrize("after", [0.3, 3.0], ids=["while-workers-start", "during-sweep"])
def test_ctrl_c_on_a_local_cluster_is_prompt_and_leaves_no_process(tmp_path: Path, after: float) -> None:
    out = tmp_path / "r"
    args = ["report", "--roster", "--trials", "3000000", "--out", str(out)]
    env = {**os.environ, "MATHHAMMER_BUDGET_SECONDS": "1e9"}
    proc = subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group and session: what the terminal's Ctrl-C reaches
        env=env,
    )
    try:
        deadline = time.monotonic() + 90
        while len(_workers(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(_workers(proc.pid)) >= 2, proc.communicate()
        time.sleep(after)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    left = _session(proc.pid)
    settle = time.monotonic() + 5  # a helper exiting on its own as the run ends (the resource tracker) is not left
    while left and time.monotonic() < settle:
        time.sleep(0.1)
        left = _session(proc.pid)
    for pid in left:  # never leave them running, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert (proc.returncode, stderr.strip(), stdout) == (130, "interrupted", "")
    assert left == {}
    assert took < STOP_WITHIN, f"{took:.1f} s from SIGINT to exit"
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
