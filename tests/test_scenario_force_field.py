"""Force Field (Sentry; Solid-Field Projectors alike): "Set a Force Field token Within 8\\" in an unoccupied space.
Units of Size 2 or lower cannot move across Force Fields. Models of Size 3 or more can move over it" (issue 6, point
3). The token (32 mm across, gone at the Cleanup, 7.3) is an obstacle to the Charge path search (8.7.7) of a unit of
Size 2 or lower.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mathhammer.scenario.cards.force_field import ForceField
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies
from .test_scenario_charge_abilities import assert_share

PROTOSS = army("Daelaam", ("Zealot", 3), ("Sentry", 2))
ZERG = army("Kerrigan's Swarm", ("Zergling", 12))
FIELD = (18.0, 17.7)


def plan(field: tuple[float, float] | None) -> list[dict]:
    """The Zerglings reach (18, 20.7) by Round 2 and charge the Zealots at (18, 12.4) in Round 3; with ``field`` the
    Sentries set a Force Field there first, in Round 3's Movement Phase. 8.5.5: every base Deploys within Speed of
    its Entry Edge (Zealots 40 mm at 3.2", Sentries 50 mm at 3", Zerglings 32 mm at 32.7"), so the whole
    picture stands 0.7" north of the old one (Zealots and Sentries Run again in Round 2 to keep the 8.3" gap)."""
    sentry = {"unit": "sentry-1", "action": "hold"}
    if field is not None:
        sentry |= {"use": ["Force Field"], "token_at": list(field)}
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [18, 3.2]},
                              {"unit": "sentry-1", "action": "deploy", "to": [14, 3]}],
                 "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 7.2]},
                             {"unit": "sentry-1", "action": "run", "to": [14, 7]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [18, 32.7]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 28.7]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "zealot-1", "action": "move", "to": [18, 11.2]},
                              {"unit": "sentry-1", "action": "move", "to": [14, 11]}],
                 "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 12.4]},
                             {"unit": "sentry-1", "action": "run", "to": [14, 12.7]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [18, 24.7]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 20.7]}]}},
        {"round": 3, "red": {"movement": [sentry]},
         "blue": {"assault": [{"unit": "zergling-1", "action": "charge", "targets": ["zealot-1"]}]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, field: tuple[float, float] | None) -> Scenario:
    data = skirmish("field", armies=write_armies(tmp_path, PROTOSS, ZERG), rounds=plan(field))
    return build(data, "field.toml")


def short_share(scn: Scenario, n: int) -> float:
    sim = Simulation(scn, n, seed=9)
    sim.run()
    return sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n


def lengths(scn: Scenario) -> tuple[float, float]:
    """The Charge Distance needed, without and with the Force Field, from the plan's spots (every game alike)."""
    sim = Simulation(scn, 1, seed=9)
    for rnd in (1, 2):
        sim.round = rnd
        for phase in ("movement", "assault", "combat"):
            sim.first[:] = 0
            sim.play_phase(rnd, phase, np.arange(1))
    pos, alive = tuple(int(p) for p in sim.pos[:, 0]), tuple(int(a) for a in sim.alive[:, 0])
    w = sim.world
    plain = w.charge_length(pos, alive, "zergling-1", ("zealot-1",))[0]
    walled = w.charge_length(pos, alive, "zergling-1", ("zealot-1",), fields=(FIELD,))[0]
    return plain, walled


def test_the_zerglings_charge_round_the_force_field(tmp_path: Path) -> None:
    """With the Force Field between them the Zerglings' Charge path goes round it: the distance needed grows, and
    the share of Charge Rolls too short (Speed 4 + 1D6 against it) follows, within 5 SE of (ceil(L - 4) - 1) / 6."""
    with_field, without = scenario(tmp_path, FIELD), scenario(tmp_path, None)
    assert errors(with_field) == [] and errors(without) == []
    plain, walled = lengths(with_field)
    need = [math.ceil(x - 4 - 1e-9) for x in (plain, walled)]
    assert walled > plain and need[1] > need[0] and need[0] >= 1 and need[1] <= 6, (plain, walled)
    n = 3000
    assert_share(short_share(without, n), (need[0] - 1) / 6, n)
    assert_share(short_share(with_field, n), (need[1] - 1) / 6, n)


def test_force_field_stops_size_2_or_lower_only(tmp_path: Path) -> None:
    """ "Models of Size 3 or more can move over it": the Force Fields stand against a Zergling unit (Size 1) and not
    against a Queen (Size 3)."""
    scn = scenario(tmp_path, FIELD)
    sim = Simulation(scn, 2, seed=1)
    card = sim.cards.of("force_field")
    assert isinstance(card, ForceField)
    card.field[0] = [True, False]
    z = sim.uids.index("zergling-1")
    bits = card.charge_walls(z)
    assert bits is not None and bits.tolist() == [1, 0]
    assert card.wall_centres(1) == (FIELD,)
    assert sim.cards.charge_walls(z)[0] is card
    queen = army("Kerrigan's Swarm", ("Queen", 1), tactical=("Hatchery",))
    data = skirmish("field", armies=write_armies(tmp_path, PROTOSS, queen), rounds=[])
    big = Simulation(build(data, "field.toml"), 2, seed=1)
    assert big.units[big.uids.index("queen-1")].unit.card.size == 3
    assert big.cards.of("force_field") is None  # no Force Field in its plan: the card is not in play
    queen_card = ForceField(big)  # the first plan's Force Field, on the battlefield in both games
    queen_card.fields, queen_card.field = card.fields, np.ones((1, 2), dtype=bool)
    assert queen_card.charge_walls(big.uids.index("queen-1")) is None


def test_force_field_within_8_in_an_unoccupied_space(tmp_path: Path) -> None:
    """ "Within 8\\" in an unoccupied space": a token 10" from the Sentries, or on a Zealot's base, is an error, and
    the simulation sets none (skip report)."""
    for spot, said_part in (((26.0, 20.7), "from 'sentry-1'; Within 8\""), ((18.0, 12.4), "would overlap")):
        scn = scenario(tmp_path, spot)
        said = errors(scn)
        assert any(said_part in s for s in said), (spot, said)
        sim = Simulation(scn, 4, seed=1)
        sim.run()
        assert sum(v for k, v in sim.skipped.items() if "the Force Field is not Within 8" in k) == 4
