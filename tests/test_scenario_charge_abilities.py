"""Abilities that act on a unit's own Charge (issue 6, point 3): the Charge Roll (8.7.7 step 2) and IMPACT
after a successful Charge (part 11 IMPACT (X) Y), through the ``charge_roll``, ``impact_hit`` and
``impact_dice`` effects of the profiles.

Each case plans one Charge: marine-1 stands at (18, 16) from Round 3's Movement Phase, the charging unit comes on in
Round 1 and moves to ``CHARGE_FROM`` in Round 3's Movement Phase, then Charges marine-1 in its Assault Phase. (8.5.5:
no part of a Deploying Leading Model's base ends farther than Speed from the Entry Edge, so both units Deploy short of
4" from their edges and take a Move more to reach these points.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mathhammer.scenario import abilities, check_scenario
from mathhammer.scenario.cards.impact import impact_with
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import RED, write_armies

ZERG = army(
    "Kerrigan's Swarm",  # 1 BM, and 1 BM a card; Overseer: Pneumatized Carapace; Evolution Chamber: Extended Claws
    ("Zergling", 12),
    ("Kerrigan Swarm Raptor (Zergling)", 6),
    tactical=("Spawning Pool", "Overseer", "Evolution Chamber"),
)
PROTOSS = army("Daelaam", ("Zealot", 3, ["My Life for Aiur"]), tactical=("Gateway",))  # 1 PE each
ZERGLING, RAPTOR, ZEALOT = "zergling-1", "kerrigan-swarm-raptor-1", "zealot-1"
CHARGE_FROM = (24, 24)
#: 8.5.5: where a charging unit Deploys, its base within Speed 4 of the north Entry Edge: the centre at most 4 - r from
#: it (32 mm bases, the default: 3.37", so 32.7; 40 mm: 3.21"; 50 mm, the Vile of test_scenario_creep: 3.02")
DEPLOY_Y = {ZEALOT: 32.8, "vile-1": 33.0}


@pytest.fixture(scope="module")
def zerg(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("zerg"), RED, ZERG)


@pytest.fixture(scope="module")
def protoss(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("protoss"), RED, PROTOSS)


def charge_plan(unit: str, use: list[str], react: list[dict], start: tuple[float, float] = CHARGE_FROM) -> list[dict]:
    red = [
        {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
         "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
        {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
         "assault": [{"unit": "marine-1", "action": "run", "to": [18, 15.3]}]},
        {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 16]}]},
    ]  # fmt: skip
    charge: dict[str, Any] = {"unit": unit, "action": "charge", "targets": ["marine-1"]}
    if use:
        charge["use"] = use
    if react:
        charge["react"] = react
    top = DEPLOY_Y.get(unit, 32.7)
    blue = [
        {"movement": [{"unit": unit, "action": "deploy", "to": [start[0], top]}],
         "assault": [{"unit": unit, "action": "run", "to": [start[0], 29]}]},
        {"movement": [{"unit": unit, "action": "move", "to": [start[0], max(start[1], 28)]}]},
        {"movement": [{"unit": unit, "action": "move", "to": list(start)}], "assault": [charge]},
    ]  # fmt: skip
    return [{"round": i + 1, "red": red[i], "blue": blue[i]} for i in range(3)]


def scenario(armies: dict[str, str], rounds: list[dict]) -> Scenario:
    scn = build(skirmish("charge abilities", armies=armies, rounds=rounds), "charge.toml")
    assert errors(scn) == []
    return scn


def short_share(armies: dict[str, str], plan: list[dict], n: int, seed: int) -> float:
    """The share of ``n`` games whose Charge Roll was too short (8.7.7)."""
    sim = Simulation(scenario(armies, plan), n, seed=seed)
    sim.run()
    return sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n


def assert_share(got: float, expected: float, n: int) -> None:
    se = max(np.sqrt(expected * (1 - expected) / n), 1 / n)
    assert abs(got - expected) < 5 * se, (got, expected)


PNEUMATIZED = {"unit": ZERGLING, "use": "Pneumatized Carapace"}


def test_charge_effects_are_in_the_profiles() -> None:
    """The card texts: "roll 2D6 instead of D6 and use the higher result" (Zergling, Raptor and Swarmling Metabolic
    Boost, Zealot and Praetor Guard Charge), "add 2 to the Charge Distance" (Leap), "+1 Modifier to all IMPACT
    Hit Rolls" (Adrenal Overload, Extended Claws; Malevolent Matriarch only ON CREEP), "each eligible model
    generates 1 additional IMPACT die" (My Life for Aiur), and the Reactions to a Charge Roll."""
    roster = load_roster()

    def effect(unit: str, name: str) -> tuple[str, int, int, bool]:
        a = next(a for a in roster.unit(unit).card.abilities if a.name == name)
        (e,) = a.effects
        return e.kind, e.value, e.dice, e.on_creep

    for unit in ("Zergling", "Raptor (Zergling)", "Swarmling (Zergling)"):
        assert effect(unit, "Metabolic Boost") == ("charge_roll", 0, 1, False)
    for unit in ("Zealot", "Praetor Guard (Zealot)"):
        assert effect(unit, "Charge") == ("charge_roll", 0, 1, False)
    assert effect("Kerrigan Swarm Raptor (Zergling)", "Leap") == ("charge_roll", 2, 0, False)
    assert effect("Raptor (Zergling)", "Adrenal Overload") == ("impact_hit", 1, 0, False)
    cards = {
        (card, a.name): a.effects[0]
        for card in ("Evolution Chamber", "Malignant Creep", "Overseer", "Observer")
        for a in roster.card(card).abilities
        if a.effects
    }
    assert (cards["Evolution Chamber", "Extended Claws"].kind, cards["Evolution Chamber", "Extended Claws"].value) == (
        "impact_hit",
        1,
    )
    assert cards["Malignant Creep", "Malevolent Matriarch"].on_creep
    assert cards["Overseer", "Pneumatized Carapace"].dice == 1
    assert cards["Observer", "Gravitic Boosters"].value == 1
    zealot = roster.unit("Zealot").card
    aiur = next(a for up in zealot.upgrades if up.name == "My Life for Aiur" for a in up.abilities)
    assert [(e.kind, e.value) for e in aiur.effects] == [("impact_dice", 1)]


def test_metabolic_boost_rolls_two_dice(zerg: dict[str, str]) -> None:
    """8.7.7 step 2 + Metabolic Boost ("roll 2D6 instead of D6 and use the higher result"): the Charge falls short
    only where both dice do, p ** 2 for the share p of plain Charges that fall short; with Pneumatized Carapace
    ("Roll an additional D6 and use the higher") the highest of three, p ** 3 (5 SE each)."""
    n = 6000
    plain = short_share(zerg, charge_plan(ZERGLING, [], []), n, 11)
    short = round(plain * 6)  # P(1D6 too short) = (r - 1) / 6 for the roll r needed
    assert 2 <= short <= 5, "the plain Charge must fall short in some games and not in others"
    assert_share(plain, short / 6, n)
    boost = short_share(zerg, charge_plan(ZERGLING, ["Metabolic Boost"], []), n, 11)
    assert_share(boost, (short / 6) ** 2, n)
    both = short_share(zerg, charge_plan(ZERGLING, ["Metabolic Boost"], [PNEUMATIZED]), n, 11)
    assert_share(both, (short / 6) ** 3, n)


def test_leap_adds_two_after_the_highest_die(zerg: dict[str, str]) -> None:
    """Leap ("add 2 to the Charge Distance"): a roll needed of r becomes r - 2. With Pneumatized Carapace the
    higher of two D6 is taken first and 2 added after (the other order, max(D6 + 2, D6), falls short more often:
    ((s - 2) / 6) * (s / 6) instead of ((s - 2) / 6) ** 2)."""
    n = 6000
    far = (CHARGE_FROM[0], CHARGE_FROM[1] + 3)
    plain = short_share(zerg, charge_plan(RAPTOR, [], [], far), n, 12)
    short = round(plain * 6)
    assert 4 <= short <= 5, "two shorter than the plain Charge must still fall short sometimes"
    assert_share(plain, short / 6, n)
    leap = short_share(zerg, charge_plan(RAPTOR, ["Leap"], [], far), n, 12)
    assert_share(leap, (short - 2) / 6, n)
    pneumatized = {"unit": RAPTOR, "use": "Pneumatized Carapace"}
    both = short_share(zerg, charge_plan(RAPTOR, ["Leap"], [pneumatized], far), n, 12)
    assert_share(both, ((short - 2) / 6) ** 2, n)


def impact_batches(seen: list[tuple[Any, Any]]) -> set[tuple[int, tuple[int, ...]]]:
    """(dice, hit target numbers) of every IMPACT Batch the engines were handed."""
    return {
        (int(cb.n_dice.sum()), tuple(int(h) for h in cb.hit_target))
        for batches, _ in seen
        for cb in batches
        if cb.label == "IMPACT"
    }


def test_impact_modifiers_from_named_sources_add_up(zerg: dict[str, str], seen: list[tuple[Any, Any]]) -> None:
    """Part 11 IMPACT (X) Y and MODIFIER ("+X Modifier: reducing the Target Number by X"; "from different named
    sources are cumulative", the FAQ's Raptor example): the Kerrigan Swarm Raptors' IMPACT (2) 5+ is rolled at 5+
    plain, 4+ with Adrenal Overload, 3+ with Extended Claws as well; the Zerglings' IMPACT (1) 5+ at 4+ with
    Extended Claws (a Tactical Card's Active ability)."""
    got = []
    for unit, use in ((RAPTOR, []), (RAPTOR, ["Adrenal Overload"]), (RAPTOR, ["Adrenal Overload", "Extended Claws"])):
        seen.clear()
        Simulation(scenario(zerg, charge_plan(unit, use, [], (22, 24))), 400, seed=13).run()
        got.append({h for _, h in impact_batches(seen)})
    assert got == [{(5,)}, {(4,)}, {(3,)}]
    seen.clear()
    Simulation(scenario(zerg, charge_plan(ZERGLING, ["Extended Claws"], [], (22, 24))), 400, seed=13).run()
    assert {h for _, h in impact_batches(seen)} == {(4,)}


def test_impact_target_number_is_never_below_2(zerg: dict[str, str]) -> None:
    """Part 11 MODIFIER: "A Target Number can never be modified below 2+" (an IMPACT ... 2+ with +2)."""
    scn = scenario(zerg, charge_plan(RAPTOR, ["Adrenal Overload", "Extended Claws"], [], (22, 24)))
    sim = Simulation(scn, 4, seed=1)
    u = sim.uids.index(RAPTOR)
    bits = abilities.use_bits(sim, u, ["Adrenal Overload", "Extended Claws"])
    assert impact_with(sim, u, bits, (2, 5)) == (2, 3)
    assert impact_with(sim, u, bits, (2, 3)) == (2, 2)
    assert impact_with(sim, u, bits, (2, 2)) == (2, 2)
    assert impact_with(sim, u, 0, (2, 5)) == (2, 5)


def test_my_life_for_aiur_and_zealot_charge(protoss: dict[str, str], seen: list[tuple[Any, Any]]) -> None:
    """My Life for Aiur ("each eligible model generates 1 additional IMPACT die"): the Zealots' IMPACT (3) 4+ is
    4 dice a model (3 models in the Fighting or Supporting Rank: 12 dice, at 4+); Zealot Charge ("roll 2D6 instead
    of D6 and use the higher result") squares the share of Charges that fall short (5 SE)."""
    n = 6000
    plain = short_share(protoss, charge_plan(ZEALOT, [], []), n, 14)
    short = round(plain * 6)
    assert 2 <= short <= 5
    assert_share(plain, short / 6, n)
    seen.clear()
    boosted = short_share(protoss, charge_plan(ZEALOT, ["Charge"], []), n, 14)
    assert_share(boosted, (short / 6) ** 2, n)
    assert impact_batches(seen) == {(12, (4,))}


def test_charge_abilities_off_a_charge_are_warned(zerg: dict[str, str]) -> None:
    """An Active ability that acts on a Charge, used on an activation that makes none, is accepted with a warning
    (10.2: it may be used; it changes nothing)."""
    plan = charge_plan(ZERGLING, [], [])
    plan[2]["blue"]["assault"] = [
        {"unit": ZERGLING, "action": "hold", "use": ["Metabolic Boost"]},
        {"unit": RAPTOR, "action": "hold", "use": ["Adrenal Overload"]},
    ]
    plan[1]["blue"]["movement"].append({"unit": RAPTOR, "action": "deploy", "to": [30, 32.7]})
    scn = build(skirmish("charge abilities", armies=zerg, rounds=plan), "charge.toml")
    assert errors(scn) == []
    said = warnings(scn)
    assert any("'Metabolic Boost' acts on a Charge (8.7.7); this hold makes none" in w for w in said), said
    assert any("'Adrenal Overload' acts on a Charge (8.7.7); this hold makes none" in w for w in said), said
    assert not any("no modelled effect" in w and "Metabolic Boost" in w for w in check_scenario(scn))
