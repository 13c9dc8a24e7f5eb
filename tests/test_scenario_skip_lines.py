"""The text report's skip lines (scenario/result.py ``skip_lines``): a planned activation's as keyed; an automatic
player's (its ``where`` names Round, player, Phase, slot, unit and action: players/auto.py) summed over its slots, which
are only its place in the Phase, by Round, Phase, unit and action."""

from __future__ import annotations

from mathhammer.scenario.result import skip_lines


def test_planned_keys_stay_and_automatic_slots_are_summed() -> None:
    skipped = {
        "rounds[1].red.assault[0]: Charge Roll too short (8.7.7)": 7,
        "r2.red.assault.auto[0] (goliath-1 shoot): Underbelly Machine Gun: no planned target it may shoot": 100,
        "r2.red.assault.auto[3] (goliath-1 shoot): Underbelly Machine Gun: no planned target it may shoot": 64,
        "r2.red.assault.auto[1] (goliath-1 shoot): no room to set hydralisk-1 there": 2,
        "r10.blue.movement.auto[0] (zergling-1 move): the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1)": 1,
        "r2.blue.movement.auto[2] (zergling-1 move): the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1)": 3,
    }
    planned, auto = skip_lines(skipped)
    assert planned == ["    rounds[1].red.assault[0]: Charge Roll too short (8.7.7): 7"]
    assert auto == [
        "    r2 movement zergling-1 move: the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1): 3",
        "    r2 assault goliath-1 shoot: Underbelly Machine Gun: no planned target it may shoot: 164",
        "    r2 assault goliath-1 shoot: no room to set hydralisk-1 there: 2",
        "    r10 movement zergling-1 move: the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1): 1",
    ]  # Round 2 before Round 10 (numbers, not text), the Movement Phase before the Assault Phase
