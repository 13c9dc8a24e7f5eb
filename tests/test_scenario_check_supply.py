"""8.3.2 / 8.5.5 Available Supply freed by casualties, judged per game by ``scenario check``.

8.3.2: "Available Supply equals the Current Supply Pool minus the Total Supply of Friendly Units on the Battlefield.
A Unit can only be fielded if its Current Supply Value is less than or equal to the Available Supply. Units
Destroyed in battle (or reduced by casualties) free up Available Supply for new arrivals." 8.5.5 Deploy: "Confirm the
Unit's Current Supply Value fits within the Available Supply."

A Deploy over the Available Supply at full strength is an error only where no casualty can have freed Supply yet;
otherwise it is a ``warning:`` with the condition, and ``simulate`` plays the plan, skipping the Deploy in the games
where the Supply is still taken (skip report).
"""

from __future__ import annotations

from mathhammer.scenario import simulate

from .scenario_kit import build, errors, skirmish, warnings

#: Supply Pool 2 in every Round but the final (5th, unlimited)
MISSION = {"card": "Hold Position", "starting_supply": 2, "supply_escalation": 0, "game_length": 5}


def plan(roach_round: int, shoot: bool = True) -> list[dict]:
    """Red's Marines walk north and shoot Zergling-1 in Round 3; blue fills its pool of 2 with two Zergling units
    in Round 1 and Deploys Roach-1 (Supply 1 at 3 models) in ``roach_round``. 8.5.5: the 32 mm bases Deploy 3.3" from
    their Entry Edges (within Speed 4") and Run 0.7" on in Round 1, so the Round 3 shot is over the same 12" as
    before."""
    rounds: list[dict] = [
        {
            "round": 1,
            "red": {
                "movement": [{"unit": "marine-1", "action": "deploy", "to": [16, 3.3]}],
                "assault": [{"unit": "marine-1", "action": "run", "to": [16, 4]}],
            },
            "blue": {
                "movement": [
                    {"unit": "zergling-1", "action": "deploy", "to": [16, 32.7]},
                    {"unit": "zergling-2", "action": "deploy", "to": [30, 32.7]},
                ],
                "assault": [{"unit": "zergling-1", "action": "run", "to": [16, 32]}],
            },
        },
        {
            "round": 2,
            "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [16, 8]}]},
            "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [16, 28]}]},
        },
        {
            "round": 3,
            "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [16, 12]}]},
            "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [16, 24]}]},
        },
    ]
    if shoot:
        rounds[2]["red"]["assault"] = [{"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"]}]
    deploy = {"unit": "roach-1", "action": "deploy", "to": [4, 33]}
    if roach_round <= 3:
        rounds[roach_round - 1]["blue"]["movement"].append(deploy)
    else:
        rounds.append({"round": roach_round, "blue": {"movement": [deploy]}})
    return rounds


def scenario(roach_round: int, shoot: bool = True):
    return build(skirmish(mission=MISSION, rounds=plan(roach_round, shoot)))


def test_a_deploy_before_any_casualty_is_an_error() -> None:
    """8.3.2: in Round 1, before any Assault Phase, nothing can have freed Supply: illegal in every game."""
    scn = scenario(1)
    found = errors(scn)
    assert len(found) == 1 and "rounds[0].blue.movement[2]" in found[0], found
    assert "needs Supply 1; Available Supply is 0 (Supply Pool 2 - 2 on the table) (8.3.2)" in found[0]


def test_a_deploy_that_fits_once_casualties_freed_supply_is_a_warning() -> None:
    """8.3.2 "Units Destroyed in battle (or reduced by casualties) free up Available Supply": in Round 4 the
    Zerglings have stood on the table through Assault Phases, so the Deploy fits in the games where they lost
    Supply: a warning naming the condition, no error."""
    scn = scenario(4)
    assert errors(scn) == []
    said = [w for w in warnings(scn) if "roach-1" in w]
    assert len(said) == 1 and "rounds[3].blue.movement[0]" in said[0], said
    assert "fits only if casualties first free at least 1 Supply of blue's units on the table" in said[0]


def test_simulate_plays_the_plan_and_skips_the_deploy_where_no_supply_was_freed() -> None:
    """8.3.2 per game: ``simulate`` no longer refuses the plan; Zergling-1 (12 models, Supply 1 at 7+) drops to
    Supply 0 where the Marines' Round 3 shots kill 6 or more, and only there does Roach-1 Deploy in Round 4; the
    other games count a skip "not enough Available Supply"."""
    res = simulate(scenario(4), trials=400, seed=3)
    skipped = sum(n for why, n in res.skipped.items() if "not enough Available Supply (8.3.2)" in why)
    assert 0 < skipped < 400, res.skipped
    # the run's report names the skipped Deploy and how often (``scenario run``)
    line = next(x for x in res.text_report().splitlines() if "not enough Available Supply (8.3.2)" in x)
    assert f": {skipped:,}" in line and "rounds[3].blue.movement[0]" in line, line


def test_without_casualties_the_deploy_is_skipped_in_every_game() -> None:
    """The same plan without the Marines' shots: no game frees Supply (the warning stays, since the check does
    not read who can hurt whom), and the simulation skips the Deploy in all 200 games."""
    res = simulate(scenario(4, shoot=False), trials=200, seed=3)
    skipped = sum(n for why, n in res.skipped.items() if "not enough Available Supply (8.3.2)" in why)
    assert skipped == 200, res.skipped
