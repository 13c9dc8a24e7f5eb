"""A unit with models removed sets its models left, not the removed ones' spots too (8.7.4 step 5: "The defending
player removes models"; a removed model is off the table; 8.5.3 step 2: "set them In Coherency around the Leading
Model", the models of the unit on the table).

The board: a clearing 3" x 1.5" at the south edge of Frontier, behind a strip of Size 1 rubble (a base may not stand
on it; a Move crosses it, 8.5.3 step 1 stops only at Size 2+). Twelve Zerglings come from the north and, in Round 5,
Move into the clearing, where two of them fit. Six Marines shoot them in Rounds 3 and 4. Before session 58 a Move set
every model of the unit, removed or not: the Move was "no room" in every game, and ``scenario check`` refused it.
Now it is set where two Zerglings or fewer are left, with those models only.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario.disengage import NO_ROOM
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.sim_move import Movement
from mathhammer.scenario.spec import ModelsLeft, Scenario

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6))
BLUE = army("Kerrigan's Swarm", ("Zergling", 12))
X0, X1, DEPTH, STRIP = 16.5, 19.5, 1.5, 3.0  # the clearing; the rubble round it ends STRIP north of the edge
R = 32 / MM_PER_INCH / 2  # both units' bases
LEAD = (17.2, 0.75)  # the Leading Model's point in the clearing: room for one more Zergling east of it
TRIALS = 400
MOVE = "rounds[4].blue.movement[0]: "


def scenario(tmp_path: Path) -> Scenario:
    terrain = [
        {"id": "rubble-west", "footprint": [[X0 - 4, 0], [X0, 0], [X0, STRIP], [X0 - 4, STRIP]], "size": 1},
        {"id": "rubble-east", "footprint": [[X1, 0], [X1 + 4, 0], [X1 + 4, STRIP], [X1, STRIP]], "size": 1},
        {"id": "rubble-north", "footprint": [[X0, DEPTH], [X1, DEPTH], [X1, STRIP], [X0, STRIP]], "size": 1},
    ]

    def zerglings(move: list[float], run: list[float] | None) -> dict:
        action = "move" if move[1] < 32 else "deploy"
        phases: dict = {"movement": [{"unit": "zergling-1", "action": action, "to": move}]}
        if run is not None:
            phases["assault"] = [{"unit": "zergling-1", "action": "run", "to": run}]
        return phases

    shoot = {"assault": [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}]}
    rounds = [
        {"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [25.5, 2]}]},
         "blue": zerglings([LEAD[0], 32.75], [LEAD[0], 28.75])},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [25.5, 6]}]},
         "blue": zerglings([LEAD[0], 24.75], [LEAD[0], 20.75])},
        {"round": 3, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [25.5, 10]}]},
         "blue": zerglings([LEAD[0], 16.75], [LEAD[0], 12.75])},
        {"round": 4, "red": shoot, "blue": zerglings([LEAD[0], 8.75], [LEAD[0], 4.75])},
        {"round": 5, "blue": zerglings(list(LEAD), None)},
    ]  # fmt: skip
    return build(skirmish("models-left", armies=write_armies(tmp_path, RED, BLUE), rounds=rounds, terrain=terrain))


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("models_left"))


def moved(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> tuple[Simulation, dict[int, tuple[int, bool]]]:
    """The games played; per game where the Zerglings were on the table when the Round 5 Move came up: (their models
    left, whether they were set)."""
    sim = Simulation(scn, TRIALS, seed=1)
    z = sim.uids.index("zergling-1")
    seen: dict[int, tuple[int, bool]] = {}
    real = Movement.move_to

    def spy(self, u, movers, to, act, moving=True, headings=None):  # type: ignore[no-untyped-def]
        left = self.alive[u, movers].copy()
        placed = real(self, u, movers, to, act, moving, headings)
        if u == z and act.round == 5:
            for t, k in zip(movers.tolist(), left.tolist(), strict=True):
                seen[t] = (k, bool(np.isin(t, placed)))
        return placed

    monkeypatch.setattr(Movement, "move_to", spy)
    sim.run()
    return sim, seen


def test_the_models_left_are_set_where_they_fit(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Move is set in exactly the games where at most two Zerglings are left, with those models only, in the
    clearing; in the others it is "no room" (the skip report)."""
    sim, seen = moved(scn, monkeypatch)
    z = sim.uids.index("zergling-1")
    fits = [t for t, (k, _) in seen.items() if k <= 2]
    crowded = [t for t, (k, _) in seen.items() if k > 2]
    assert len(fits) >= 20 and len(crowded) >= 20  # both kinds of game are there
    assert all(seen[t][1] for t in fits) and not any(seen[t][1] for t in crowded)
    assert sim.skipped[MOVE + NO_ROOM] == len(crowded)
    for t in fits:
        spots = sim.world.placements[int(sim.pos[z, t])].centres
        assert len(spots) == seen[t][0] == int(sim.alive[z, t])
        assert spots[0] == LEAD
        for c in spots:
            assert X0 + R <= c[0] <= X1 - R and R <= c[1] <= DEPTH - R  # in the clearing


def test_the_world_sets_only_the_models_left() -> None:
    """On the World: the full unit has no room at the point, two models left have (two centres), and the Zerglings
    with two models left are a unit of two to every placement memo (not the full unit's answer)."""
    scn = scenario_for_world()
    w = Simulation(scn, 1, seed=1).world
    su = scn.units["zergling-1"]
    two = w.models_left(su, 2)
    assert isinstance(two, ModelsLeft) and two.models == 2 and two.id == su.id and w.models_left(su, 12) is su
    assert w.place(su, LEAD, (0.0, 1.0), ()) is None
    pid = w.place(two, LEAD, (0.0, 1.0), ())
    assert pid is not None and len(w.placements[pid].centres) == 2
    assert math.dist(*w.placements[pid].centres) >= 2 * R
    assert w.place(w.models_left(su, 3), LEAD, (0.0, 1.0), ()) is None
    assert w.place(su, LEAD, (0.0, 1.0), ()) is None  # the full unit's answer is its own


def scenario_for_world() -> Scenario:
    return scenario(Path(tempfile.mkdtemp(prefix="models_left")))


def test_the_check_warns_instead_of_refusing(scn: Scenario) -> None:
    """``scenario check`` walks the plan at full strength: the Move has no room for twelve, but the Marines shot the
    Zerglings, so it is a warning naming how many models may be left, not an error."""
    assert errors(scn) == []
    said = [w for w in warnings(scn) if "rounds[4].blue.movement[0]" in w]
    assert len(said) == 1 and "at most 2 models" in said[0] and "8.5.3 step 2" in said[0]
