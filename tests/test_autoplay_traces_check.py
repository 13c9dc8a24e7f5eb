"""Issue 29 point 5, "every action an automatic player takes is legal (every trace of 200 random games passes
``scenario check``)", and point 4, a trace "``scenario run`` replays to the same result for the same dice".

Each game of two ``random`` players is played alone and recorded (``players/trace.py``), written back as a plan with
both players scripted, and judged by ``scenario check``: no error. Its Phases are walked in the game's turn order
(8.2.1 alternation from the First Player Marker, 8.4.2 / 8.6.2 the first to Pass takes it; 8.2.2 Roll-Off and 8.9.6
initiative, decided per game: both holders walked); what depends on the game's dice is judged per game, a warning
where it holds in some games: a unit casualties may have destroyed (8.3.2 Supply freed, 8.7.5; an enemy that was
Engaged with the unit, 8.5.2 / 8.7.1, blocking a placement, 8.5.3, or an Engaged target, 8.7.3 step 1), a Leading
Model the game set (a Charge's end, 8.7.7; CLOSE RANKS, 8.8.1 step 1). The trace then replays: the same game, Round by
Round, for the same seed and game number.

200 games of the two-unit lists (``tests/autoplay_kit.py``, 3 Rounds: 50 on each of four Mission and Deployment
Cards) and 4 games of the six-unit lists (``profiles/armies/terran_six.toml`` against ``zerg_six.toml``, 5 Rounds):
the 6-a-side lists take about 0.4 s a game here, too slow for 200 in the suite (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.cli.game import scenario_data
from mathhammer.scenario import check_scenario
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.trace import record, trace_data
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import data

ROOT = Path(__file__).resolve().parent.parent

#: (Mission Card, Deployment Card, seed, First Player): 50 small games each
SMALL = [
    ("Hold Position", "Frontier", 11, "roll-off"),
    ("Frontlines", "Char Plains", 12, "roll-off"),
    ("Supply Drop", "Typhoon", 13, "alternate"),
    ("Divide and Conquer", "Proving Grounds", 14, "roll-off"),
]
#: (red list, blue list, Mission Card on Frontier, blue's policy (red's: random), seed, games, abilities used on Shoots
#: and Charges, done and not): six-unit games whose traces the check once refused: a Charge with an ability used that
#: fell short (game 0: written as a Charge, the walk set the charger by its target), a Charge the walk judged too long
#: from a target the game had set (game 7: the charger left where it stood, in the way of a later Deploy), a Charge
#: round a base that casualties had destroyed (games 2 and 4 of seed 31; game 0 since Stimpack joined the menus: the
#: ability Shoot not done), a Ranged Attack at a unit moved from where
#: the game had set it (game 0 of seed 51: its models behind the Leading Model trail otherwise in the game), a Ranged
#: Attack at a unit Engaged only by a model casualties removed (terran_six against the objective player, game 2 of
#: seed 61)
SIX = [
    ("terran_six", "zerg_six", "Divide and Conquer", "random", 23, [0, 7], True),
    ("raynors_strike_force", "kerrigans_brood", "Hold Position", "random", 31, [0, 2, 4], True),
    ("raynors_strike_force", "kerrigans_brood", "Hold Position", "random", 51, [0], False),
    ("terran_six", "terran_six", "Gather the Resources", "objective", 61, [2], False),
]


def _traces_pass(table: dict[str, Any], folder: Path, games: int | list[int], seed: int) -> Counter[str]:
    """Play ``games`` games (a number: the first ones) of ``table`` one by one, recorded; each trace passes ``scenario
    check`` and replays to the same game. Returns how many activations the traces hold (``"acts"``), and of them the
    Shoots and Charges with abilities used (``use``) carried out (``"used"``) and not done in the game, written as
    Holds that keep the abilities paid for (``"void used"``)."""
    scn = parse_scenario(table, "game.toml", folder)
    acts: Counter[str] = Counter()
    world = None  # the first game's World, shared by the next (Simulation's ``world``): its menus built once
    for g in games if isinstance(games, list) else range(games):
        sim = Simulation(scn, 1, seed, offset=g, world=world)
        world = sim.world
        played = record(sim)
        trace = parse_scenario(trace_data(table, played), f"trace-{g}.toml", folder)
        assert trace.policies == {}
        plan = {(a.round, a.phase, a.dice): a for a in trace.plan}  # each entry's dice its own in its Phase
        assert len(plan) == len(played.steps)
        for step in played.steps:
            written = plan[step.act.round, step.act.phase, step.dice]
            assert written.use == step.act.use, (g, written.where)  # paid in the game: a Hold keeps them too
            assert written.action == ("hold" if step.void else step.act.action), (g, written.where)
            if step.act.use and step.act.action in ("shoot", "charge"):
                acts["void used" if step.void else "used"] += 1
            if step.act.react and not step.void:  # 10.4: the automatic player's Reactions, written as declared
                assert written.react == step.act.react, (g, written.where)
                acts["react"] += 1
        errors = [p for p in check_scenario(trace) if not p.startswith("warning")]
        assert errors == [], (g, errors)
        again = Simulation(trace, 1, seed, offset=g)
        again.run()
        for r, (a, b) in enumerate(zip(sim.snapshots, again.snapshots, strict=True)):
            for k in a:
                assert np.array_equal(a[k], b[k]), (g, r + 1, k)
        acts["acts"] += len(played.steps)
    return acts


@pytest.mark.parametrize(("mission", "deployment", "seed", "first"), SMALL, ids=[f"{m}-{d}" for m, d, *_ in SMALL])
def test_every_trace_of_random_two_unit_games_passes_check_and_replays(
    tmp_path: Path, mission: str, deployment: str, seed: int, first: str
) -> None:
    table = data(tmp_path, length=3)
    table["mission"]["card"] = mission
    table["deployment"] = {"card": deployment}
    table["first_player"] = first  # "alternate": Round 1's First Player by game number, walked both ways
    assert _traces_pass(table, tmp_path, 50, seed)["acts"] > 50 * 3 * 2 * 2  # every Round, Phase and unit activated


@pytest.mark.parametrize(
    ("red", "blue", "mission", "policy", "seed", "games", "used"), SIX, ids=[f"{s[0]}-{s[4]}" for s in SIX]
)
def test_every_trace_of_random_six_unit_games_passes_check_and_replays(
    tmp_path: Path, red: str, blue: str, mission: str, policy: str, seed: int, games: list[int], used: bool
) -> None:
    armies = ROOT / "profiles" / "armies"
    table = scenario_data(
        armies / f"{red}.toml", armies / f"{blue}.toml", mission, "Frontier", "standard", "random", policy
    )
    counts = _traces_pass(table, tmp_path, games, seed)
    assert counts["acts"] > len(games) * 2 * 12
    if used:  # abilities on Shoots / Charges, done and not: a Hold that keeps them (issue 29)
        assert counts["used"] > 0 and counts["void used"] > 0
