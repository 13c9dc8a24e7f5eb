"""Strength of the automatic players where the board once held them back (issue 29 point 5): on Frontier the markers
1 and 2 stand by their owners' Entry Edges and marker 5 in the centre behind terrain; before the menu's routes to
every marker (scenario/players/menu.py, ``marker_routes``) ``objective`` against ``random`` was mostly a draw (5
Rounds, 40 games, seeds 41/42: objective won 13, lost none; benchmarks/RESULTS.md, h-mirror). Sizes: the two-unit
lists of tests/autoplay_kit.py (Skirmish), 5 Rounds of Hold Position (markers score from Round 2), fixed seeds: the
same games every run."""

from __future__ import annotations

from pathlib import Path

from scipy import stats

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import data


def test_objective_beats_random_on_frontier(tmp_path: Path) -> None:
    """``objective`` against ``random`` on Frontier's standard preset, 20 games as red and 20 as blue (First Player by
    Roll-Off, 8.2.2): objective wins at least 90% of the 40 (a draw is not a win)."""
    wins = 0
    for red, blue, seed in (("objective", "random", 41), ("random", "objective", 42)):
        d = data(tmp_path, red=red, blue=blue, length=5)
        d["deployment"] = {"card": "Frontier"}
        sim = Simulation(parse_scenario(d, "frontier.toml", tmp_path), 20, seed)
        sim.run()
        mine, theirs = (0, 1) if red == "objective" else (1, 0)
        wins += int((sim.vp[mine] > sim.vp[theirs]).sum())
    low = float(stats.beta.ppf(0.05, wins, 40 - wins + 1)) if wins else 0.0  # exact one-sided 95% lower bound
    assert wins / 40 >= 0.9, (wins, low)
