"""8.3.3 Deployment Restrictions in ``scenario check`` and the simulation, where casualties change the placement.

8.3.3: "When a Unit arrives from Reserves, that Unit cannot end its arrival during that Activation inside the
opponent's Zone of Influence"; ZONE OF INFLUENCE (part 11): "Units arriving from Reserves cannot end their deployment
Within the opponent's Zone of Influence". The models behind the Leading Model are set round the other units' bases
(8.5.3, 8.5.5), so an enemy unit standing by can push them into the zone; in a game where casualties destroyed it
first (8.7.5: destroyed models are removed) the same Deploy sets them elsewhere. Found in the trace of an automatic
game (raynors_strike_force against kerrigans_brood, seed 51, game 0, with the menus round the terrain): its
Hydralisks' Deploy, legal in the game (the Medics destroyed), was refused by the check's full-strength walk. The check
judges the plan over the games: an error where no game sets the unit out of the zone, a ``warning:`` with the
condition where the games that destroyed the units standing by do; the simulation skips the Deploy in the games where
it would end in the zone.
"""

from __future__ import annotations

from pathlib import Path

from mathhammer.scenario.checkview import in_enemy_zone
from mathhammer.scenario.sim import Simulation

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies


def _act(unit: str, action: str, to: list[float] | None = None, target: str | None = None) -> dict:
    out: dict = {"unit": unit, "action": action}
    if to is not None:
        out["to"] = to
    if target is not None:
        out["targets"] = [target]
    return out


def scenario(tmp_path: Path, shots: tuple[int, ...]):
    """Frontier, red from the south, blue from the east: red's Marines walk up to (29.5, 14.8), by blue's Entry Edge;
    blue's Roaches shoot them in the Rounds ``shots``; in Round 5 blue's Hydralisks deploy at (34, 12.5), their
    formation pushed south into red's Zone of Influence by the Marines' bases (out of it without them)."""
    red = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6))
    blue = army("Kerrigan's Swarm", ("Hydralisk", 4), ("Roach", 3), tactical=("Hydralisk Den",))
    armies = write_armies(tmp_path, red, blue)
    rounds: list[dict] = [
        {"round": 1,
         "red": {"movement": [_act("marine-1", "deploy", [28, 3.3]), _act("marine-2", "deploy", [6, 3])]},
         "blue": {"movement": [_act("roach-1", "deploy", [34, 22])]}},
        {"round": 2,
         "red": {"movement": [_act("marine-1", "move", [29, 7.1])]},
         "blue": {"movement": [_act("roach-1", "move", [33, 19])]}},
        {"round": 3, "red": {"movement": [_act("marine-1", "move", [30, 10.9])]}, "blue": {}},
        {"round": 4,
         "red": {"movement": [_act("marine-1", "move", [29.5, 14.8])]},
         "blue": {"movement": [_act("roach-1", "hold")]}},
        {"round": 5,
         "red": {"movement": [_act("marine-1", "hold")]},
         "blue": {"movement": [_act("hydralisk-1", "deploy", [34, 12.5])]}},
    ]  # fmt: skip
    for r in shots:
        rounds[r - 1]["blue"]["assault"] = [_act("roach-1", "shoot", target="marine-1")]
    data = skirmish("zone", armies=armies, rounds=rounds)
    data["deployment"]["entry_edges"] = {"red": "south", "blue": "east"}
    return build(data, "zone.toml")


def test_a_deploy_pushed_into_the_zone_by_a_unit_never_attacked_is_an_error(tmp_path: Path) -> None:
    """8.3.3: the Marines stand in every game, so the Hydralisks end in red's Zone of Influence in every game."""
    found = errors(scenario(tmp_path, ()))
    assert any("hydralisk-1 deploy" in p and "Zone of Influence (8.3.3)" in p for p in found), found


def test_a_deploy_in_the_zone_only_at_full_strength_is_a_warning_and_skipped_where_it_holds(tmp_path: Path) -> None:
    """8.3.3 with 8.7.5: out of the zone in the games where the Roaches destroyed the Marines (a warning naming them,
    not an error: the check refused this before); the simulation sets the Hydralisks in those games only, never in
    the zone, and skips the Deploy in the others."""
    scn = scenario(tmp_path, (3, 4))
    assert errors(scn) == []
    said = [p for p in warnings(scn) if "hydralisk-1 deploy" in p and "Zone of Influence (8.3.3)" in p]
    assert len(said) == 1 and "destroyed 'marine-1'" in said[0], said
    sim = Simulation(scn, 600, 1)
    sim.run()
    hydra, marines = sim.uids.index("hydralisk-1"), sim.uids.index("marine-1")
    set_ = sim.pos[hydra] >= 0
    gone = sim.alive[marines] == 0
    assert 0 < set_.sum() < 600
    assert (set_ == gone).all()  # set exactly where the Marines were destroyed
    assert not any(in_enemy_zone(sim.world, "hydralisk-1", "blue", int(p)) for p in sim.pos[hydra][set_])
    skipped = {k: v for k, v in sim.skipped.items() if "Zone of Influence" in k}
    assert list(skipped.values()) == [600 - set_.sum()], sim.skipped
