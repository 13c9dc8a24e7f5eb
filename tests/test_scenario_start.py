"""The serial start of ``scenario run`` (issue 26 point 6): what a run loads before its games. A scripted plan loads
no automatic player's modules (``players.auto``, ``legal``, ``spending``: ``Simulation.players`` imports them only
where a player has a policy; the loader reads the policies' names, ``players.policies``, for every file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUTOMATIC = (
    "mathhammer.scenario.players.auto",
    "mathhammer.scenario.players.legal",
    "mathhammer.scenario.players.spending",
)

DRIVER = """
import runpy, sys
sys.argv = ["mathhammer", "scenario", "run", sys.argv[1], "--trials", "20", "--seed", "1", "--json"]
try:
    runpy.run_module("mathhammer", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
print(",".join(sorted(m for m in sys.modules if m.startswith("mathhammer.scenario.players"))), file=sys.stderr)
"""


def test_a_scripted_run_loads_no_automatic_player() -> None:
    scn = ROOT / "profiles" / "scenarios" / "standard_clash.toml"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(scn)], cwd=ROOT, capture_output=True, text=True, check=True, timeout=600
    )
    loaded = done.stderr.strip().splitlines()[-1].split(",")
    assert "mathhammer.scenario.players.scripted" in loaded  # the plan's players were made
    assert not set(AUTOMATIC) & set(loaded), loaded
