"""Mission Markers in the scenario file: colour and Activated state (issue 6 point 1).

"mission (... marker positions, colours and Activated state ...)": a marker's colour defaults to
7.3.2 (1 and 3 Red, 2 and 4 Blue, 5 Neutral) and its starting state to the Mission Card (all
Activated; Supply Drop: all Deactivated); ``colour`` and ``activated`` on a marker override them.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario import ScenarioError
from mathhammer.scenario import mission as missions
from mathhammer.scenario.sim import Simulation

from .test_scenario import DEPLOY, base, scenario


def _markers(**marker1: object) -> list[dict]:
    return [
        {"number": 1, "x": 9, "y": 10, **marker1},
        {"number": 2, "x": 9, "y": 26},
        {"number": 5, "x": 18, "y": 18},
    ]


def _red_on_marker_1(**marker1: object) -> Simulation:
    """Round 2 of Hold Position with marine-1 alone on marker 1, scored once."""
    dep = dict(base()["deployment"], markers=_markers(**marker1))
    sim = Simulation(scenario([DEPLOY], deployment=dep), 3, 1)
    missions.setup(sim)
    red = sim.uids.index("marine-1")
    pid = sim.world.place(sim.scn.units["marine-1"], (9, 11), (0, -1), ())
    assert pid is not None
    sim.set_pos(red, np.arange(sim.T), pid)
    sim.round = 2
    missions.score(sim, np.arange(sim.T))
    return sim


def test_colour_defaults_to_the_marker_number() -> None:
    """7.3.2: marker 1 is Red; Hold Position: "Gain 1 VP for each Controlled Mission Marker that is Neutral or
    associated with your colour" -> red scores 1."""
    sim = _red_on_marker_1()
    assert sim.control[0].tolist() == [0, 0, 0]
    assert sim.vp[0].tolist() == [1, 1, 1]


def test_colour_override_changes_the_score() -> None:
    """Hold Position: "Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour": marker 1
    set Blue in the file -> red scores 2 for it."""
    sim = _red_on_marker_1(colour="blue")
    assert sim.vp[0].tolist() == [2, 2, 2]


def test_activated_state_overrides_the_card() -> None:
    """Mission Parameters: all markers Activated unless the file says ``activated = false``."""
    dep = dict(base()["deployment"], markers=_markers(activated=False))
    sim = Simulation(scenario([DEPLOY], deployment=dep), 2, 1)
    missions.setup(sim)
    assert sim.active[:, 0].tolist() == [False, True, True]


@pytest.mark.parametrize(("field", "value"), [("colour", "green"), ("activated", "yes")])
def test_bad_marker_fields_name_the_field(field: str, value: object) -> None:
    dep = dict(base()["deployment"], markers=_markers(**{field: value}))
    with pytest.raises(ScenarioError) as err:
        scenario([DEPLOY], deployment=dep)
    assert f"deployment.markers[0].{field}" in str(err.value)
