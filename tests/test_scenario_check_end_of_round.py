"""8.9.4 in ``scenario check``: "Resolve all "End of the Round" abilities. The holder of the First Player Marker
resolves their first. If a player has multiple "End of the Round" effects to resolve, that player chooses the order
in which their effects resolve." The holder of the Marker is read per game, so the check walks the End of the Round
with each player first where both have effects: a problem in both orders is an error, one in a single order a
warning naming it (the simulation resolves the First Player's first, ``abilities.end_of_round``)."""

from __future__ import annotations

from pathlib import Path

from mathhammer.scenario.abilities import TOKEN_CONTACT, TOKEN_RADIUS

from .scenario_kit import build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies
from .test_scenario_end_of_round import DROPS_BLUE, DROPS_RED, both_drops_plan


def scenario(tmp_path: Path, apart: bool):
    """Red's Indicator at (18, 22); blue's just south of it, where both Leading Models would stand on one spot, or
    (``apart``) far away."""
    data = skirmish(
        "end",
        armies=write_armies(tmp_path, DROPS_RED, DROPS_BLUE),
        rounds=[],
        mission={"card": "Hold Position", "starting_supply": 20},
    )
    probe = build(data, "end.toml")
    half_m = probe.units["marine-2"].base_mm / 25.4 / 2
    half_z = probe.units["zergling-2"].base_mm / 25.4 / 2
    red_at = (18.0, 22.0)
    spot = red_at[1] - TOKEN_RADIUS - half_m - TOKEN_CONTACT / 2
    blue_at = (30.0, 20.0) if apart else (18.0, spot - TOKEN_RADIUS - half_z - TOKEN_CONTACT / 2)
    data["rounds"] = both_drops_plan(red_at, blue_at)
    return build(data, "end.toml")


def test_a_clash_that_depends_on_the_first_player_is_a_warning_each_way(tmp_path: Path) -> None:
    """8.9.4: where red holds the First Player Marker zergling-2 finds no room (marine-2 stands on its spot), where
    blue does marine-2 finds none: two warnings, each naming the order, and no error (in plan order the check used
    to report blue's as an error)."""
    scn = scenario(tmp_path, apart=False)
    assert errors(scn) == []
    said = [w for w in warnings(scn) if "Faction Indicator at the End of the Round" in w]
    assert len(said) == 2, said
    blue, red = sorted(said, key=lambda w: "marine-2" in w)
    assert "'zergling-2' finds no room" in blue and "when red holds the First Player Marker" in blue
    assert "'marine-2' finds no room" in red and "when blue holds the First Player Marker" in red


def test_effects_apart_check_clean_in_both_orders(tmp_path: Path) -> None:
    """Two Indicators apart: both Deploys fit whoever resolves first: nothing to report."""
    scn = scenario(tmp_path, apart=True)
    assert errors(scn) == []
    assert not [w for w in warnings(scn) if "End of the Round" in w]
