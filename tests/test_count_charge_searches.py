"""benchmarks/count_charge_searches.py (issue 29 point 6: where the Charge search's CPU goes, 8.7.7) on random games:
every ``charge_distance`` call is counted once under the way it was answered, each kind's goal regions take part of
its own CPU, and the counters change no game (the same end state as the same games played without them)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

from mathhammer.board import charge as board_charge
from mathhammer.scenario.geometry import charge as scenario_charge
from mathhammer.scenario.sim import Simulation
from tests.test_autoplay_moveverdicts import SIX, _scenario

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "count_charge_searches.py"


def test_every_charge_search_is_counted_once_and_no_game_changes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("count_charge_searches", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    scn = _scenario(tmp_path, "Gauntlet", "standard", *SIX, length=5)
    plain = Simulation(scn, 150, 3)
    compiled = scenario_charge.COMPILED
    scenario_charge.COMPILED = False  # the script counts the shapely search's calls: its games are that search's
    try:
        plain.run()
    finally:
        scenario_charge.COMPILED = compiled
    real = board_charge.charge_distance
    asked: list[object] = []

    def asking(*args: object, **kwargs: object) -> object:
        asked.append(args)
        return real(*args, **kwargs)

    board_charge.charge_distance = scenario_charge.charge_distance = asking  # the calls, counted apart
    off = mod.patch()
    try:
        counted = Simulation(scn, 150, 3)
        counted.run()
    finally:
        off()
        board_charge.charge_distance = scenario_charge.charge_distance = real
    calls, seconds, levels = mod.calls, mod.seconds, mod.levels
    assert set(calls) <= set(mod.KINDS), dict(calls)
    assert sum(calls.values()) == len(asked), (dict(calls), len(asked))
    assert calls["straight"] > 10 and calls["search, found"] > 0, dict(calls)
    for kind in calls:
        assert 0.0 <= levels[kind] <= seconds[kind] + 1e-9, (kind, levels[kind], seconds[kind])
    for name in ("pos", "alive", "vp"):  # the same games
        assert np.array_equal(getattr(counted, name), getattr(plain, name)), name


def test_a_refused_option_is_the_game_s_one_message() -> None:
    """The counters' command with an option the game refuses: the game's own message, its exit status 2, no traceback
    (the scripts read the game's JSON only where it printed one); ``--help`` prints the game's help, status 0."""
    bad = subprocess.run(
        [sys.executable, str(SCRIPT), "--trials", "0"], capture_output=True, text=True, timeout=120, check=False
    )
    assert bad.returncode == 2, bad.stderr[-2000:]
    assert "--trials" in bad.stderr and "Traceback" not in bad.stderr + bad.stdout, bad.stderr[-2000:]
    shown = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "--trials" in shown.stdout and "Traceback" not in shown.stderr, shown.stderr
