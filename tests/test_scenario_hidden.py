"""HIDDEN in the simulation's Ranged Attacks (part 11 HIDDEN: "A model with the HIDDEN keyword is not Visible to any
model more than 4\" away"; BURROWED: "A BURROWED Unit has the HIDDEN Status") and detection (Scanner Sweep: "Set a
Faction Indicator anywhere on the battlefield. While Enemy Units are Within 6\" of this Faction Indicator, they lose
HIDDEN Status"; issue 6, point 3).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer.scenario.sim import Simulation

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6), tactical=("Orbital Command",))  # Scanner Sweep
BLUE = army("Kerrigan's Swarm", ("Roach", 3), tactical=("Spawning Pool",))  # 2 BM: Burrow


def plan(burrow: bool, sweep: tuple[float, float] | None) -> list[dict]:
    """The Marines come to (18, 12), the Roaches to (18, 24), 10.4" away; in Round 3 the Roaches hold (with Burrow),
    the Marines hold (with Scanner Sweep, its Faction Indicator at ``sweep``), then shoot the Roaches. 8.5.5: the
    Marines Deploy 3.3" and the Roaches 33" from their Entry Edges (bases within Speed 4") and Run the 0.7" / 1" on in
    Round 2's Assault Phase, so both stand where they did."""
    roach: dict = {"unit": "roach-1", "action": "hold"}
    if burrow:
        roach["use"] = ["Burrow"]
    marine: dict = {"unit": "marine-1", "action": "hold"}
    if sweep is not None:
        marine |= {"use": ["Scanner Sweep"], "token_at": list(sweep)}
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        {"round": 3,
         "red": {"movement": [marine], "assault": [{"unit": "marine-1", "action": "shoot", "targets": ["roach-1"]}]},
         "blue": {"movement": [roach]}},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("burrow", "sweep", "lost"),
    [(False, None, 0), (True, None, 20), (True, (18, 28), 0), (True, (18, 34), 20)],
)
def test_a_burrowed_unit_is_not_visible_beyond_4_inches(
    tmp_path: Path, burrow: bool, sweep: tuple[float, float] | None, lost: int
) -> None:
    """The Marines shoot the Roaches 10.4" away in every game; BURROWED, in none (HIDDEN: not Visible beyond 4"; an
    error of ``scenario check`` too);
    with Scanner Sweep's Faction Indicator at (18, 28), Within 6" of them, in every game again; at (18, 34), 6.7"
    from them, in none."""
    scn = build(skirmish("hidden", armies=write_armies(tmp_path, RED, BLUE), rounds=plan(burrow, sweep)), "h.toml")
    said = errors(scn)  # scenario check reads HIDDEN as the simulation does
    assert said == [] if not lost else len(said) == 1 and "no planned target can be shot" in said[0], said
    sim = Simulation(scn, 20, seed=1)
    sim.run()
    assert (
        sum(v for k, v in sim.skipped.items() if "rounds[2].red.assault[0]" in k and "no planned target" in k) == lost
    )
