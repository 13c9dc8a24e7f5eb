"""A removed model leaves the table (8.7.4 step 5: "The defending player removes models"; a casualty is taken off the
battlefield): its base is no obstacle to any later placement, Charge or test. The engine keeps each unit's placement
to its models left (``SimState.trim``, where an attack's casualties or a failed Disengage remove models; a Charge's
4.4 casualties and a Move set only the models left). Before session 58 a placement kept every model's spot, and the
removed ones stayed in the way of every other unit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from tests.autoplay_kit import data, place
from tests.scenario_kit import army

ROOT = Path(__file__).resolve().parents[1]
SIX = (str(ROOT / "profiles" / "armies" / "terran_six.toml"), str(ROOT / "profiles" / "armies" / "zerg_six.toml"))


def six_a_side(folder: Path, red: str, blue: str, length: int = 5) -> Any:
    """Issue 29's lists on Gauntlet's preset, two automatic players."""
    table: dict[str, Any] = data(folder, red, blue, length=length)
    table["deployment"] = {"card": "Gauntlet"}
    table["terrain"] = "preset:standard"
    table["players"]["red"]["army"], table["players"]["blue"]["army"] = SIX
    return parse_scenario(table, "six.toml", folder)


@pytest.mark.parametrize(("red", "blue", "games"), [("random", "random", 300), ("aggressive", "objective", 40)])
def test_every_placement_holds_the_models_left_only(tmp_path: Path, red: str, blue: str, games: int) -> None:
    """After every activation of whole automatic games, every unit on the table has exactly as many models in its
    placement as it has models left, and models were removed in place (the invariant is read where it matters)."""
    sim = Simulation(six_a_side(tmp_path, red, blue), games, seed=3)
    apply = sim.activate
    seen = {"short": 0, "read": 0}
    full = np.asarray([su.models for su in sim.units])

    def checked(act: Activation, trials: np.ndarray) -> None:
        apply(act, trials)
        pos, alive = sim.pos[:, trials], sim.alive[:, trials]
        on = (pos >= 0) & (alive > 0)
        sizes = [len(sim.world.placements[p].centres) for p in pos[on].tolist()]
        assert sizes == alive[on].tolist()
        seen["read"] += int(on.sum())
        seen["short"] += int((on & (alive < full[:, None])).sum())

    sim.activate = checked  # type: ignore[method-assign]
    sim.run()
    assert seen["short"] > 100 and seen["read"] > seen["short"]


def test_a_removed_models_spot_is_free(tmp_path: Path) -> None:
    """Six Marines, two of them left: their placement holds the two, the casualty order's first, and another Marine
    unit can be set with its Leading Model on the spot of a removed Marine, which the whole placement blocks."""
    table = data(tmp_path)
    lists = tmp_path / "marines.toml"
    lists.write_text(army("Terran Armed Forces", ("Marine", 6), ("Marine", 6)))
    table["players"]["red"]["army"] = str(lists)
    scn = parse_scenario(table, "two.toml", tmp_path)
    sim = Simulation(scn, 4, seed=1)
    games = np.arange(4)
    whole = place(sim, "marine-1", (9.0, 3.0), games, ())
    m = sim.uids.index("marine-1")
    sim.alive[m, games[2:]] = 2
    sim.trim(m, games)
    w = sim.world
    assert sim.pos[m, 0] == whole and sim.pos[m, 1] == whole  # no model removed: the same placement
    pid = int(sim.pos[m, 2])
    assert sim.pos[m, 3] == pid and w.placements[pid].centres == w.placements[whole].centres[:2]
    one = w.models_left(scn.units["marine-2"], 1)  # one Marine left of the other unit: its base alone
    for spot in w.placements[whole].centres[2:]:
        assert w.place(one, spot, (0.0, -1.0), (whole,)) is None
        assert w.place(one, spot, (0.0, -1.0), (pid,)) is not None
