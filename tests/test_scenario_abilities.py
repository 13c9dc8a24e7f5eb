"""Scenario abilities (issue 6, point 3): Ready cards, card abilities, Reactions (rulebook chapter 10)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario import ScenarioError, abilities, check_scenario, simulate
from mathhammer.scenario.cards.charge import charger_debuff
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.starcraft.loadout import as_target
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish, warnings

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"

RED = """
name = "Terran test"
scale = "Skirmish"
faction = "Terran Armed Forces"    # 1 CP
tactical = ["Barracks", "Engineering Bay"]   # 1 CP each; Go! Go! Go!, Infantry Armor, Infantry Weapons

[[units]]
unit = "Marine"
models = 6

[[units]]
unit = "Marine"
models = 6

[[units]]
unit = "Medic"
models = 3
"""

BLUE = """
name = "Zerg test"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Spawning Pool", "Overseer", "Accelerating Creep"]  # Overseer: Pneumatized Carapace; a Creep Card (9.1)

[[units]]
unit = "Zergling"
models = 12

[[units]]
unit = "Roach"
models = 3
"""


def write_armies(d: Path, red: str, blue: str) -> dict[str, str]:
    """The two army files in folder ``d``: the ``armies`` of :func:`scenario`."""
    (d / "red.toml").write_text(red)
    (d / "blue.toml").write_text(blue)
    return {"red": str(d / "red.toml"), "blue": str(d / "blue.toml")}


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("armies"), RED, BLUE)


def scenario(armies: dict[str, str], rounds: list[dict]) -> Scenario:
    return build(skirmish("abilities", armies=armies, rounds=rounds), "abilities.toml")


#: Rounds 1-2: Marines and a Medic walk north, the Roach and the Zerglings south.
APPROACH = [
    {
        "round": 1,
        "red": {
            "movement": [
                {"unit": "marine-1", "action": "deploy", "to": [18, 3.3]},
                {"unit": "medic-1", "action": "deploy", "to": [14, 3.3]},
            ],
            "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}],
        },
        "blue": {
            "movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
            "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}],
        },
    },
    {
        "round": 2,
        "red": {
            "movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
            "assault": [{"unit": "marine-1", "action": "run", "to": [18, 15.3]}],
        },
        "blue": {
            "movement": [
                {"unit": "roach-1", "action": "move", "to": [18, 25]},
                {"unit": "zergling-1", "action": "deploy", "to": [24, 32.7]},
            ],
            "assault": [{"unit": "zergling-1", "action": "run", "to": [24, 28.7]}],
        },
    },
]


def round3(blue_assault: list[dict], red: dict | None = None) -> list[dict]:
    return [
        *APPROACH,
        {
            "round": 3,
            "red": red or {},
            "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [24, 24.7]}], "assault": blue_assault},
        },
    ]


def shoot(react: list[dict]) -> dict:
    return {"unit": "roach-1", "action": "shoot", "targets": ["marine-1"], "react": react}


# ----------------------------------------------------------------- plan syntax
def test_react_names_a_known_unit_and_only_known_fields(armies: dict[str, str]) -> None:
    """The plan format: react = [{ unit, use }], each unit a unit of the scenario."""
    with pytest.raises(ScenarioError) as exc:
        scenario(armies, round3([shoot([{"unit": "marine-9", "use": "Infantry Armor"}])]))
    assert "rounds[2].blue.assault[0].react[0].unit: got 'marine-9'" in str(exc.value)
    with pytest.raises(ScenarioError) as exc:
        scenario(armies, round3([shoot([{"unit": "marine-1", "uses": "Infantry Armor"}])]))
    assert "uses" in str(exc.value)


def test_a_planned_reaction_checks_clean(armies: dict[str, str]) -> None:
    """10.4 / 10.5.2: Infantry Armor (Engineering Bay) answers the Roach's Ranged Attack on marine-1."""
    scn = scenario(armies, round3([shoot([{"unit": "marine-1", "use": "Infantry Armor"}])]))
    assert errors(scn) == []
    assert warnings(scn) == []
    assert scn.plan[-1].react[0].player == "red"


# ----------------------------------------------------------------- scenario check
def test_second_reaction_of_a_player_in_one_activation(armies: dict[str, str]) -> None:
    """10.4 Reaction Limit: one Reaction per player per Activation (the Marine/Medic example of 10.4)."""
    react = [{"unit": "marine-1", "use": "Infantry Armor"}, {"unit": "medic-1", "use": "Life Support"}]
    found = errors(scenario(armies, round3([shoot(react)])))
    assert len(found) == 1
    assert "rounds[2].blue.assault[0] (round 3, Assault Phase, blue, roach-1 shoot): react[1]" in found[0]
    assert "one Reaction per player per Activation" in found[0]


def test_each_player_may_react_once_in_the_same_activation(armies: dict[str, str]) -> None:
    """10.4: "If both players want to use a Reaction ... the Active Player resolves theirs first"."""
    charge = {
        "unit": "zergling-1",
        "action": "charge",
        "targets": ["marine-1"],
        "react": [
            {"unit": "zergling-1", "use": "Pneumatized Carapace"},
            {"unit": "marine-1", "use": "Infantry Armor"},
        ],
    }
    assert errors(scenario(armies, round3([charge]))) == []


def test_a_reaction_twice_in_a_round_on_one_unit(armies: dict[str, str]) -> None:
    """10.4 Frequency: once per Round per unit and name unless REPEATABLE (like 10.2)."""
    charge = {
        "unit": "zergling-1",
        "action": "charge",
        "targets": ["marine-1"],
        "react": [{"unit": "marine-1", "use": "Infantry Armor"}],
    }
    found = errors(scenario(armies, round3([shoot([{"unit": "marine-1", "use": "Infantry Armor"}]), charge])))
    assert any(
        "rounds[2].blue.assault[1] (round 3, Assault Phase, blue, zergling-1 charge)" in p
        and "'Infantry Armor' a second time this Round for 'marine-1'" in p
        for p in found
    )
    # 10.5.2: the Engineering Bay is Exhausted by the first use as well
    assert any("printed on 'Engineering Bay', Exhausted earlier this Round" in p for p in found)


def test_no_reaction_from_reserves(armies: dict[str, str]) -> None:
    """10.4 / FAQ v1.0: "units in Reserves use no abilities" (marine-2 is never deployed)."""
    found = errors(scenario(armies, round3([shoot([{"unit": "marine-2", "use": "Infantry Armor"}])])))
    assert any("react[0] (red, marine-2 'Infantry Armor'): 'marine-2' is in Reserves" in p for p in found)
    assert all("round 3, Assault Phase" in p for p in found)


def test_ability_paid_twice_with_too_few_ready_cards(armies: dict[str, str]) -> None:
    """10.5.1 / 10.5.2: Actives and Reactions share the Ready cards; an Exhausted card gives nothing.

    Red has 3 CP cards (Terran Armed Forces, Barracks, Engineering Bay). Go! Go! Go! Exhausts
    Barracks; Stimpack on marine-1 and on marine-2 (1 CP each) Exhaust the two others;
    Restoration (a Reaction, 1 CP) then finds no Ready card.
    """
    approach = copy.deepcopy(APPROACH)
    approach[1]["red"]["movement"].append({"unit": "marine-2", "action": "deploy", "to": [26, 3.3]})
    rounds = [
        *approach,
        {
            "round": 3,
            "red": {"movement": [{"unit": "marine-1", "action": "hold", "use": ["Go! Go! Go!", "Stimpack"]}]},
        },
    ]
    assert errors(scenario(armies, rounds)) == []
    rounds[2]["red"]["movement"].append({"unit": "marine-2", "action": "hold", "use": ["Stimpack"]})
    assert errors(scenario(armies, rounds)) == []
    rounds[2]["blue"] = {"assault": [shoot([{"unit": "medic-1", "use": "Restoration"}])]}
    # (Restoration has no DEBUFF to answer here either: a second error, about its trigger)
    found = [p for p in errors(scenario(armies, rounds)) if "costs" in p]
    assert len(found) == 1
    assert "(round 3, Assault Phase, blue, roach-1 shoot): react[0] (red, medic-1 'Restoration')" in found[0]
    assert "'Restoration' costs 1 CP; the Ready cards give 0 CP" in found[0]
    # a third Stimpack in the Movement Phase: paid twice already, no card left
    rounds[2]["blue"] = {}
    rounds[2]["red"]["movement"].append({"unit": "medic-1", "action": "hold", "use": ["Medpack"]})
    # (Medpack names no Friendly Unit here: a second error, about its select)
    found = [p for p in errors(scenario(armies, rounds)) if "costs" in p]
    assert len(found) == 1 and "medic-1 hold): use: 'Medpack' costs 1 CP; the Ready cards give 0 CP" in found[0]


def test_tactical_card_active_ability_in_use(armies: dict[str, str]) -> None:
    """10.5 / 10.5.2 / FAQ v1.1: a card's Active ability is used by an activated unit and Exhausts the card."""
    rounds = [
        *APPROACH[:1],
        {
            "round": 2,
            "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3], "use": ["Go! Go! Go!"]}]},
        },
    ]
    assert errors(scenario(armies, rounds)) == []
    # a second use in the Round: once per Round per unit (10.2), and the card is Exhausted (10.5.2)
    rounds[1]["red"]["assault"] = [{"unit": "marine-1", "action": "hold", "use": ["Infantry Weapons"]}]
    assert errors(scenario(armies, rounds)) == []
    rounds[1]["red"]["movement"].append({"unit": "medic-1", "action": "hold", "use": ["Go! Go! Go!"]})
    found = errors(scenario(armies, rounds))
    assert any("medic-1 hold): use: 'Go! Go! Go!' is printed on 'Barracks', Exhausted earlier" in p for p in found)
    # a card ability is found only on the player's own cards
    bad = [
        *APPROACH[:1],
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "hold", "use": ["Carapace"]}]}},
    ]
    found = errors(scenario(armies, bad))
    assert any("use: got 'Carapace'; allowed: an Active ability of Marine or of red's cards" in p for p in found)


def test_reaction_rules_on_triggers(armies: dict[str, str]) -> None:
    """10.4: a Reaction is declared at the moment of its trigger; plans whose trigger cannot happen are errors."""
    own = round3(
        [],
        red={
            "assault": [
                {"unit": "marine-1", "action": "hold", "react": [{"unit": "marine-1", "use": "Infantry Armor"}]}
            ]
        },
    )
    found = errors(scenario(armies, own))
    assert any("an activation of its own player never attacks it" in p for p in found)
    # a Charge Roll reaction belongs to the charging unit's own activation
    wrong = round3([shoot([{"unit": "zergling-1", "use": "Pneumatized Carapace"}])])
    found = errors(scenario(armies, wrong))
    assert any("answers a Friendly Unit's Charge Roll" in p for p in found)
    # an Active ability is not a Reaction, and the other way round
    found = errors(scenario(armies, round3([shoot([{"unit": "marine-1", "use": "Stimpack"}])])))
    assert any("not a Reaction of 'marine-1' ('Stimpack' is Active)" in p for p in found)
    # a card's reaction for "a Friendly Biological Unit" only for such a unit: every unit here is Biological;
    # the rule is read from the text
    assert abilities.needs_tag(load_roster().card("Armory").abilities[0]) == "Mechanical"


def test_reaction_without_modelled_effect_is_a_warning(
    armies: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 6: a Reaction the simulation cannot apply is accepted and reported, never silently ignored. Every
    Reaction of the roster now has a machine-readable effect, so Artanis's Lightning Dash is read here as a profile
    without one would be (its effects taken away)."""
    from mathhammer.scenario.check import reactions as check  # the Reaction checks read abilities through find

    real = check.find

    def bare(scn: Scenario, unit: str, name: str) -> abilities.Found | None:
        found = real(scn, unit, name)
        if found is None or found.ability.name != "Lightning Dash":
            return found
        return abilities.Found(found.ability.model_copy(update={"effects": []}), found.card)

    monkeypatch.setattr(check, "find", bare)
    protoss = army("Daelaam", ("Zealot", 3), ("Artanis", 1), tactical=("Power Field",))
    dash = {"unit": "artanis-1", "action": "hold", "react": [{"unit": "artanis-1", "use": "Lightning Dash"}]}
    rounds = [
        {"round": 1, "red": {"movement": [{"unit": "artanis-1", "action": "deploy", "to": [18, 3]}]}},
        {"round": 2, "red": {"assault": [dash]}},
    ]
    scn = build(skirmish("dash", armies=write_armies(tmp_path, protoss, BLUE), rounds=rounds), "dash.toml")
    assert errors(scn) == []
    found = warnings(scn)
    assert len(found) == 1 and "'Lightning Dash' has no modelled effect" in found[0], found
    assert "round 2, Assault Phase" in found[0]
    # the Zerglings' Charge attacks (Devastating Charge: IMPACT), so a Reaction may answer it
    assert abilities.has_impact(scenario(armies, round3([])).units["zergling-1"])


# ----------------------------------------------------------------- simulation
def test_reaction_effect_reaches_the_target(armies: dict[str, str]) -> None:
    """10.4 + part 11 TOUGH: the Reaction's machine-readable effect is on the unit as a target, for that activation."""
    scn = scenario(armies, round3([shoot([{"unit": "marine-1", "use": "Infantry Armor"}])]))
    sim = Simulation(scn, 4, seed=1)
    m = sim.uids.index("marine-1")
    act = scn.plan[-1]
    trials = np.arange(4)
    sim.pos[m, trials] = 0
    sim.sync_board()
    abilities.react_begin(sim, act, trials)
    mask = int(sim.used[m, 0])
    kws = [str(k) for k in as_target(sim.loadout(m, mask), "assault").keywords]
    assert any("TOUGH" in k for k in kws), kws
    abilities.react_end(sim, trials)
    assert int(sim.used[m, 0]) == 0
    assert not any("TOUGH" in str(k) for k in as_target(sim.loadout(m, 0), "assault").keywords)


def test_tough_reaction_lowers_the_damage_received(armies: dict[str, str]) -> None:
    """10.4 / part 11 TOUGH (1): the same plan with Infantry Armor leaves more Marines (paired, 5 standard errors)."""
    n = 20000
    with_r = simulate(scenario(armies, round3([shoot([{"unit": "marine-1", "use": "Infantry Armor"}])])), n, seed=5)
    without = simulate(scenario(armies, round3([shoot([])])), n, seed=5)
    m = [u["id"] for u in with_r.units].index("marine-1")
    a = with_r.rounds[2]["alive"][m].astype(float)
    b = without.rounds[2]["alive"][m].astype(float)
    assert b.mean() < 6  # the Roach does hit
    diff = a - b
    se = diff.std() / np.sqrt(n)
    assert diff.mean() > 5 * se, (diff.mean(), se)
    # the Damage Marker carried over is never larger either on average
    assert with_r.rounds[2]["marker"][m].mean() <= without.rounds[2]["marker"][m].mean() + 0.05


def test_charge_roll_reaction_raises_the_charge_success(armies: dict[str, str]) -> None:
    """8.7.7 + Pneumatized Carapace: the higher of two D6 for Charge Distance never does worse (paired)."""

    def plan(react: list[dict]) -> list[dict]:
        charge = {"unit": "zergling-1", "action": "charge", "targets": ["marine-1"], "react": react}
        rounds = round3([charge])
        rounds[2]["blue"]["movement"] = [{"unit": "zergling-1", "action": "move", "to": [24, 26]}]
        return rounds

    n = 4000
    sims = []
    for react in ([{"unit": "zergling-1", "use": "Pneumatized Carapace"}], []):
        scn = scenario(armies, plan(react))
        assert errors(scn) == []
        sim = Simulation(scn, n, seed=8)
        sim.run()
        sims.append(sim)
    skipped = [sum(v for k, v in s.skipped.items() if "Charge Roll too short" in k) for s in sims]
    one = skipped[1] / n  # P(1D6 too short) = (r - 1) / 6 for the roll r needed
    short = round(one * 6)
    assert 1 <= short <= 5, "the plain Charge must sometimes fail and sometimes succeed"
    se1 = np.sqrt(one * (1 - one) / n)
    assert abs(one - short / 6) < 5 * se1
    two = skipped[0] / n  # the higher of two D6 too short: both dice too short
    expected = (short / 6) ** 2
    assert abs(two - expected) < 5 * np.sqrt(expected * (1 - expected) / n), (two, expected)


def test_card_active_ability_effects_in_the_simulation(armies: dict[str, str]) -> None:
    """10.5: a Tactical Card's Active ability acts through its machine-readable effects (Infantry Weapons)."""
    red = {"assault": [{"unit": "marine-1", "action": "shoot", "targets": ["roach-1"], "use": ["Infantry Weapons"]}]}
    scn = scenario(armies, round3([], red=red))
    assert errors(scn) == []
    sim = Simulation(scn, 8, seed=2)
    sim.run()
    m = sim.uids.index("marine-1")
    bits = abilities.use_bits(sim, m, ["Infantry Weapons"])
    assert bits and int(sim.snapshots[2]["alive"][sim.uids.index("roach-1")].min()) >= 0
    lo = sim.loadout(m, bits)
    assert any(e.keyword == "CRITICAL HIT (1)" for e in lo.effects())
    assert not any(e.keyword == "CRITICAL HIT (1)" for e in sim.loadout(m, 0).effects())


def fight_plan(react: list[dict]) -> list[dict]:
    """Round 3: the Zerglings Charge marine-1 and fight it in the Combat Phase, with ``react`` on the fight."""
    rounds = round3([{"unit": "zergling-1", "action": "charge", "targets": ["marine-1"]}])
    rounds[2]["blue"]["combat"] = [{"unit": "zergling-1", "action": "fight", "targets": ["marine-1"], "react": react}]
    return rounds


def test_tough_reaction_in_the_combat_phase(armies: dict[str, str]) -> None:
    """10.4 / 8.8.1 / part 11 TOUGH (1): Infantry Armor on the Zerglings' fight leaves more Marines (5 SE)."""
    scn = scenario(armies, fight_plan([{"unit": "marine-1", "use": "Infantry Armor"}]))
    assert check_scenario(scn) == []
    n = 20000
    with_r = simulate(scn, n, seed=6)
    without = simulate(scenario(armies, fight_plan([])), n, seed=6)
    m = [u["id"] for u in with_r.units].index("marine-1")
    a = with_r.rounds[2]["alive"][m].astype(float)
    b = without.rounds[2]["alive"][m].astype(float)
    assert b.mean() < 5.5
    diff = a - b
    assert diff.mean() > 5 * diff.std() / np.sqrt(n), (diff.mean(), diff.std() / np.sqrt(n))


# ----------------------------------------------------------------- Concusive Shells
RED_MARAUDER = RED.replace(
    '''[[units]]
unit = "Medic"''',
    '''[[units]]
unit = "Marauder"
models = 2

[[units]]
unit = "Medic"''',
)


@pytest.fixture(scope="module")
def marauder_armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("marauder"), RED_MARAUDER, BLUE)


def shells_plan(react: list[dict], marauder_to: tuple[float, float] = (13, 13.3)) -> list[dict]:
    """The Zerglings (Leading Model at (24, 24.7)) Charge marine-1 in Round 3, after marine-1 steps to (18.4, 16.4)
    in Round 3's Movement Phase: 10.0" between the Leading Models, as before the Deploys were kept within Speed of
    the Entry Edge (8.5.5); marauder-1 runs to ``marauder_to`` in Round 2."""
    charge = {"unit": "zergling-1", "action": "charge", "targets": ["marine-1"], "react": react}
    rounds = copy.deepcopy(
        round3([charge], red={"movement": [{"unit": "marine-1", "action": "move", "to": [18.4, 16.4]}]})
    )
    rounds[0]["red"]["movement"].append({"unit": "marauder-1", "action": "deploy", "to": [9, 3]})
    rounds[0]["red"]["assault"].append({"unit": "marauder-1", "action": "run", "to": [9, 7]})
    rounds[1]["red"]["movement"].append({"unit": "marauder-1", "action": "move", "to": [11, 10.3]})
    rounds[1]["red"]["assault"].append({"unit": "marauder-1", "action": "run", "to": list(marauder_to)})
    return rounds


SHELLS = [{"unit": "marauder-1", "use": "Concusive Shells"}]


def test_concusive_shells_effect_needs_its_distance(marauder_armies: dict[str, str]) -> None:
    """The profile vocabulary: ``charger_debuff_speed`` names X and the "Within" distance (Concusive Shells)."""
    from pydantic import ValidationError

    from mathhammer.starcraft.schema import Effect

    with pytest.raises(ValidationError, match="needs value >= 1 and within"):
        Effect(kind="charger_debuff_speed", value=2)
    shells = abilities.find(scenario(marauder_armies, shells_plan([])), "marauder-1", "Concusive Shells")
    assert shells is not None and abilities.target_effects(shells.ability) == []
    eff = charger_debuff(shells.ability)
    assert eff is not None and (eff.value, eff.within) == (2, 8)  # the card: DEBUFF Speed (2), Within 8"


def test_concusive_shells_answers_an_enemy_charge_within_8(marauder_armies: dict[str, str]) -> None:
    """10.4 + Concusive Shells ("When an Enemy declares a Charge against a Friendly Unit Within 8\""): planned on
    the opponent's Charge of a unit Within 8" it checks clean; anywhere else it is an error."""
    scn = scenario(marauder_armies, shells_plan(SHELLS))
    assert errors(scn) == [] and warnings(scn) == []
    # marine-1 beyond 8" of the Marauder
    found = errors(scenario(marauder_armies, shells_plan(SHELLS, marauder_to=(9, 8))))
    assert len(found) == 1 and "no Charge target is Within 8\" of 'marauder-1'" in found[0], found
    assert "round 3, Assault Phase" in found[0]
    # not a Charge: the Roach shoots marine-1
    rounds = shells_plan([])
    rounds[2]["blue"]["assault"] = [shoot(SHELLS)]
    found = errors(scenario(marauder_armies, rounds))
    assert any("answers an Enemy's Charge declaration" in p for p in found), found
    # its own player's activation
    rounds = shells_plan([])
    rounds[2]["red"] = {"assault": [{"unit": "marine-1", "action": "hold", "react": SHELLS}]}
    found = errors(scenario(marauder_armies, rounds))
    assert any("answers an Enemy's Charge declaration" in p for p in found), found


def test_concusive_shells_shortens_the_charge(marauder_armies: dict[str, str]) -> None:
    """Concusive Shells + part 11 DEBUFF Speed (2) ("decrease the value by X"): the Charge Roll is Speed - 2 + 1D6
    (8.7.7 step 2), so 2 more faces of the D6 fall short; with Pneumatized Carapace (the higher of two D6) on the
    same Charge, each player's one Reaction (10.4), both act. Frequencies within 5 standard errors."""
    n = 6000
    both = [{"unit": "zergling-1", "use": "Pneumatized Carapace"}, *SHELLS]
    short = []
    for react in ([], SHELLS, both):
        scn = scenario(marauder_armies, shells_plan(react))
        assert errors(scn) == []
        sim = Simulation(scn, n, seed=11)
        sim.run()
        assert not any("not triggered" in k for k in sim.skipped)
        short.append(sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n)
    faces = round(short[0] * 6)  # P(1D6 too short) = faces / 6
    assert 1 <= faces <= 3, "the plain Charge must fail on some faces, and on fewer than 4"
    for got, p in zip(short, (faces / 6, (faces + 2) / 6, ((faces + 2) / 6) ** 2), strict=True):
        assert abs(got - p) < 5 * np.sqrt(p * (1 - p) / n), (short, faces)


def test_concusive_shells_trigger_is_read_in_each_game(marauder_armies: dict[str, str]) -> None:
    """10.4: the trigger (a declared target Within 8" of the Marauder, the Marauder on the table) is read per game:
    a game without it gets no DEBUFF, and the skip report counts it."""
    scn = scenario(marauder_armies, shells_plan(SHELLS))
    act = scn.plan[-1]
    assert act.action == "charge"

    class StopError(Exception):
        pass

    def stop(rnd: int, _length: int) -> None:
        if rnd == 2:
            raise StopError

    sim = Simulation(scn, 4, seed=1)
    with pytest.raises(StopError):
        sim.run(stop)
    r = sim.uids.index("marauder-1")
    near = int(sim.pos[r, 0])
    assert near >= 0 and (sim.pos[r] == near).all()
    far = sim.world.place(sim.units[r], (4.0, 30.0), (0.0, -1.0), ())
    assert far is not None
    sim.pos[r, 1] = -1  # Destroyed (or in Reserves)
    sim.pos[r, 2] = far  # more than 8" from every Marine
    sim.sync_board()
    card = sim.cards.of("charger_debuff_speed")
    assert card is not None and card.charge_declared in sim.cards.charge_declared
    slow = card.charge_declared(act, np.arange(4))
    assert slow.tolist() == [2, 0, 0, 2]
    assert sum(v for k, v in sim.skipped.items() if "'Concusive Shells' not triggered" in k) == 2


# ----------------------------------------------------------------- Total Damage reduction (Life Support)
LIFE_SUPPORT = [{"unit": "medic-1", "use": "Life Support"}]


def medic_plan(react: list[dict], medic_to: tuple[float, float] = (15.5, 14)) -> list[dict]:
    """The Roach shoots marine-1 (Leading Model at (18, 15.3)) in Round 3; the Medics run to ``medic_to`` in Round 2."""
    rounds = copy.deepcopy(round3([shoot(react)]))
    rounds[0]["red"]["assault"].append({"unit": "medic-1", "action": "run", "to": [14, 7.3]})
    rounds[1]["red"]["movement"].append({"unit": "medic-1", "action": "move", "to": [15, 11]})
    rounds[1]["red"]["assault"].append({"unit": "medic-1", "action": "run", "to": list(medic_to)})
    return rounds


def test_life_support_checks(armies: dict[str, str]) -> None:
    """10.4 + Life Support ("Use when another Friendly Biological Unit suffers Damage Within 4\""): on the Roach's
    attack on marine-1 with the Medics close it checks clean; far, for itself, for a unit not attacked, or on
    its own player's activation it is an error."""
    assert errors(scenario(armies, medic_plan(LIFE_SUPPORT))) == []
    assert warnings(scenario(armies, medic_plan(LIFE_SUPPORT))) == []
    found = errors(scenario(armies, medic_plan(LIFE_SUPPORT, medic_to=(14, 8))))
    assert len(found) == 1 and "'marine-1' is not Within 4\" of 'medic-1'" in found[0], found
    for react, says in (
        ([{"unit": "medic-1", "use": "Life Support", "for": "medic-1"}], "is not a planned target"),
        ([{"unit": "medic-1", "use": "Life Support", "for": "marine-2"}], "is not a planned target"),
    ):
        found = errors(scenario(armies, medic_plan(react)))
        assert any(says in p for p in found), found
    rounds = medic_plan([])
    rounds[2]["red"] = {"assault": [{"unit": "marine-1", "action": "hold", "react": LIFE_SUPPORT}]}
    found = errors(scenario(armies, rounds))
    assert any("its own player's activation never attacks it" in p for p in found), found
    with pytest.raises(ScenarioError, match=r"react\[0\]\.for: got 'roach-1'; allowed: a unit of red"):
        scenario(armies, medic_plan([{"unit": "medic-1", "use": "Life Support", "for": "roach-1"}]))


def test_life_support_reduces_the_total_damage_exactly(armies: dict[str, str], seen: list[tuple[Any, Any]]) -> None:
    """8.7.4 step 5 ("Apply any Special Skills that reduce the Total Damage") + Life Support ("by 1 for each model
    in this Unit that is Within 4\" of the damaged Unit"): the Roach's attack on marine-1 is resolved with a
    reduction of 1 per Medic model Within 4" of the Marines, and the Marines left after Round 3 follow the exact
    distribution of that attack (G-test); without the Reaction fewer are left (paired, 5 SE)."""
    from mathhammer.starcraft.exact import exact_states

    from .stats import g_test

    n = 20000
    runs = []
    for react in (LIFE_SUPPORT, []):
        seen.clear()
        sim = Simulation(scenario(armies, medic_plan(react)), n, seed=21)
        sim.run()
        runs.append((sim, list(seen)))
    (sim, calls), (plain, plain_calls) = runs
    m, md = sim.uids.index("marine-1"), sim.uids.index("medic-1")
    medics = sim.world.models_within(int(sim.pos[md, 0]), 3, int(sim.pos[m, 0]), 6, 4.0)
    assert medics >= 1 and (sim.pos[md] == sim.pos[md, 0]).all()
    assert [t.reduce for _, t in calls] == [medics]  # one attack on marine-1, reduced by 1 a Medic
    assert [t.reduce for _, t in plain_calls] == [0]
    assert not any("not triggered" in k for k in sim.skipped)
    states = exact_states(*calls[0])  # type: ignore[arg-type]
    probs = np.zeros(7)
    for (removed, _mark, _sh), p in states.items():
        probs[6 - removed] += p
    counts = np.bincount(sim.snapshots[2]["alive"][m], minlength=7).astype(float)
    assert g_test(counts, probs) > 1e-6, (counts, probs)
    diff = sim.snapshots[2]["alive"][m].astype(float) - plain.snapshots[2]["alive"][m]
    assert diff.mean() > 5 * diff.std() / np.sqrt(n)


# ----------------------------------------------------------------- Debilitating Saliva
BLUE_VILE = (
    BLUE
    + """
[[units]]
unit = "Vile (Roach)"
models = 3
"""
)


@pytest.fixture(scope="module")
def vile_armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("vile"), RED, BLUE_VILE)


SALIVA = [{"unit": "vile-1", "use": "Debilitating Saliva"}]


def saliva_plan(react: list[dict], vile_to: tuple[float, float] = (14, 22)) -> list[dict]:
    """marine-1 (Leading Model at (18, 15.3)) shoots roach-1 (at (18, 25)) in Round 3; vile-1 runs to ``vile_to``."""
    rounds = copy.deepcopy(round3([], red={"assault": [{"unit": "marine-1", "action": "shoot", "targets": ["roach-1"],
                                                       "react": react}]}))  # fmt: skip
    rounds[0]["blue"]["movement"].append({"unit": "vile-1", "action": "deploy", "to": [12, 33]})
    rounds[0]["blue"]["assault"].append({"unit": "vile-1", "action": "run", "to": [12, 29]})
    rounds[1]["blue"]["movement"].append({"unit": "vile-1", "action": "move", "to": [13, 25.2]})
    rounds[1]["blue"]["assault"].append({"unit": "vile-1", "action": "run", "to": list(vile_to)})
    return rounds


def test_debilitating_saliva_checks(vile_armies: dict[str, str]) -> None:
    """10.4 + Debilitating Saliva ("Use when an Enemy Unit Within 8\" of this Unit declares a Ranged Attack"): on
    the Marines' shot with the Vile close it checks clean; far, or on anything but the opponent's shot, an error."""
    scn = scenario(vile_armies, saliva_plan(SALIVA))
    assert errors(scn) == [] and warnings(scn) == []
    found = errors(scenario(vile_armies, saliva_plan(SALIVA, vile_to=(10.5, 27))))
    assert len(found) == 1 and "'marine-1' is not Within 8\" of 'vile-1'" in found[0], found
    rounds = saliva_plan([])
    rounds[2]["red"] = {"assault": [{"unit": "marine-1", "action": "hold", "react": SALIVA}]}
    found = errors(scenario(vile_armies, rounds))
    assert any("answers an Enemy Unit's Ranged Attack declaration" in p for p in found), found


def test_debilitating_saliva_debuffs_the_shooters_weapons(
    vile_armies: dict[str, str], seen: list[tuple[Any, Any]]
) -> None:
    """Debilitating Saliva + part 11 DEBUFF Hit (1) ("Target Number characteristic: increase the value by X"): the
    Marines' C-14 Rifles shoot the Roach at Hit 4+ instead of 3+ (every Batch the engines get), so the Roach keeps
    more of itself (paired, 5 SE); far from the Vile the games are counted as not triggered and unchanged."""
    n = 20000
    hits: list[set[int]] = []
    snaps = []
    for react, to in ((SALIVA, (14, 22)), ([], (14, 22))):
        seen.clear()
        sim = Simulation(scenario(vile_armies, saliva_plan(react, to)), n, seed=31)
        sim.run()
        r = sim.uids.index("roach-1")
        rifles = [cb for batches, _ in seen for cb in batches if cb.label.startswith("C-14 Rifle")]
        assert rifles
        hits.append({int(t) for cb in rifles for t in cb.hit_target})
        snaps.append(sim.snapshots[2]["alive"][r].astype(float) * 100 - sim.snapshots[2]["marker"][r])
        assert not any("not triggered" in k for k in sim.skipped)
    assert hits == [{4}, {3}]
    diff = snaps[0] - snaps[1]  # Roach models and Damage Marker: more left with the Reaction
    assert diff.mean() > 5 * diff.std() / np.sqrt(n)
    far = Simulation(scenario(vile_armies, saliva_plan(SALIVA, (10.5, 27))), 2000, seed=31)
    far.run()
    assert sum(v for k, v in far.skipped.items() if "'Debilitating Saliva' not triggered" in k) == 2000


# ----------------------------------------------------------------- Restoration
RESTORE_MEDIC = [{"unit": "medic-1", "use": "Restoration"}]


def restored_saliva_plan(react: list[dict], medic_to: tuple[float, float] = (15.5, 14)) -> list[dict]:
    """:func:`saliva_plan` with the Medics run to ``medic_to`` in Round 2 (marine-1's Leading Model at (18, 15.3))."""
    rounds = saliva_plan(react)
    rounds[0]["red"]["assault"].append({"unit": "medic-1", "action": "run", "to": [14, 7.3]})
    rounds[1]["red"]["movement"].append({"unit": "medic-1", "action": "move", "to": [15, 11]})
    rounds[1]["red"]["assault"].append({"unit": "medic-1", "action": "run", "to": list(medic_to)})
    return rounds


def test_restoration_checks(vile_armies: dict[str, str]) -> None:
    """10.4 + Restoration ("Use when a Friendly Unit Within 4\" receives a DEBUFF"): on the Marines' shot answered by
    Debilitating Saliva, with the Medics close, it checks clean; without a DEBUFF to answer, or far, an error."""
    scn = scenario(vile_armies, restored_saliva_plan([*SALIVA, *RESTORE_MEDIC]))
    assert errors(scn) == [] and warnings(scn) == []
    found = errors(scenario(vile_armies, restored_saliva_plan(RESTORE_MEDIC)))
    assert any("answers a DEBUFF on a Friendly Unit" in p for p in found), found
    found = errors(scenario(vile_armies, restored_saliva_plan([*SALIVA, *RESTORE_MEDIC], medic_to=(14, 8))))
    assert len(found) == 1 and "'marine-1' is not Within 4\" of 'medic-1'" in found[0], found


def test_restoration_removes_the_debuff_it_answers(vile_armies: dict[str, str], seen: list[tuple[Any, Any]]) -> None:
    """Restoration ("Remove all DEBUFFS from it") after Debilitating Saliva: the Rifles shoot at Hit 3+ again, so
    the games equal those without either Reaction; with the Medics out of reach (``scenario check`` refuses that
    plan, the simulation still plays it) the DEBUFF stays and the skip report counts every game."""
    n = 3000
    out = []
    for react, medic_to in (
        ([*SALIVA, *RESTORE_MEDIC], (15.5, 14)),
        ([], (15.5, 14)),
        ([*SALIVA, *RESTORE_MEDIC], (14, 8)),
    ):
        seen.clear()
        sim = Simulation(scenario(vile_armies, restored_saliva_plan(react, medic_to)), n, seed=41)
        sim.run()
        rifles = {
            int(t) for batches, _ in seen for cb in batches if cb.label.startswith("C-14 Rifle") for t in cb.hit_target
        }
        missed = sum(v for k, v in sim.skipped.items() if "'Restoration' not triggered" in k)
        out.append((rifles, missed, sim.snapshots[2]["alive"].copy()))
    assert out[0][:2] == ({3}, 0)
    np.testing.assert_array_equal(out[0][2], out[1][2])  # the DEBUFF went: the very games of no Reaction at all
    assert out[2][:2] == ({4}, n)


BLUE_QUEEN = (
    BLUE
    + """
[[units]]
unit = "Queen"
models = 1
"""
)


def test_restoration_after_concusive_shells(tmp_path: Path) -> None:
    """Restoration on the Zerglings' own Charge, after the Marauders' Concusive Shells: the DEBUFF Speed (2) goes,
    so the Charge Rolls fall short exactly as with no Reaction at all (the same games)."""
    armies = write_armies(tmp_path, RED_MARAUDER, BLUE_QUEEN)
    restore = [{"unit": "queen-1", "use": "Restoration"}]
    short = []
    for react in ([*SHELLS, *restore], SHELLS, []):
        rounds = shells_plan(react)
        # 8.5.5: the Queen's 80 mm base within Speed 4 of the north Entry Edge (the centre 2.4" from it, clear of
        # the Zerglings deployed at (24, 32.7))
        rounds[1]["blue"]["movement"].append({"unit": "queen-1", "action": "deploy", "to": [30, 33.6]})
        rounds[1]["blue"]["assault"].append({"unit": "queen-1", "action": "run", "to": [30, 29.6]})
        rounds[2]["blue"]["movement"].append({"unit": "queen-1", "action": "move", "to": [29.2, 25.8]})
        scn = scenario(armies, rounds)
        assert errors(scn) == [], errors(scn)
        sim = Simulation(scn, 3000, seed=12)
        sim.run()
        assert not any("not triggered" in k for k in sim.skipped), sim.skipped
        short.append(sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k))
    assert short[0] == short[2] < short[1]


def test_stabilizer_medpacks_add_a_model_to_life_support(tmp_path: Path, seen: list[tuple[Any, Any]]) -> None:
    """Stabilizer Medpacks ("When this Unit resolves a Life Support ... treat it as having 1 additional model Within
    Range"): the Roach's attack on marine-1 is resolved with a reduction of the Medics Within 4" + 1."""
    red = RED.replace('unit = "Medic"\nmodels = 3', 'unit = "Medic"\nmodels = 3\nupgrades = ["Stabilizer Medpacks"]')
    assert red != RED
    armies = write_armies(tmp_path, red, BLUE)
    sim = Simulation(scenario(armies, medic_plan(LIFE_SUPPORT)), 500, seed=3)
    sim.run()
    m, md = sim.uids.index("marine-1"), sim.uids.index("medic-1")
    medics = sim.world.models_within(int(sim.pos[md, 0]), 3, int(sim.pos[m, 0]), 6, 4.0)
    assert medics >= 1 and [t.reduce for _, t in seen] == [medics + 1]


# ----------------------------------------------------------------- Zealous Round
PROTOSS = """
name = "Protoss test"
scale = "Skirmish"
faction = "Daelaam"
tactical = ["Gateway"]
"""
RED_ZEALOTS = (
    PROTOSS
    + """
[[units]]
unit = "Zealot"
models = 3
upgrades = ["Zealous Round"]

[[units]]
unit = "Zealot"
models = 3
"""
)


#: the Roach's step in Round 3 (from (18, 25)): 8" from zealot-1's Leading Model at (18, 15.2) when it shoots
ROACH_STEP = {"unit": "roach-1", "action": "move", "to": [18, 23.2]}


def zealot_plan(react: list[dict], red_assault: list[dict], blue_first: tuple[dict, ...] = ()) -> list[dict]:
    """zealot-1 walks to (18, 15.2), zealot-2 comes on in Round 2; in Round 3 the Roach steps to (18, 23.2) and shoots
    zealot-1 (8" between the Leading Models, as before the Deploys were kept within Speed of the Entry Edge, 8.5.5)."""
    red = {
        1: {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [18, 3.2]}],
            "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 7.2]}]},
        2: {"movement": [{"unit": "zealot-1", "action": "move", "to": [18, 11.2]},
                         {"unit": "zealot-2", "action": "deploy", "to": [26, 3.2]}],
            "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 15.2]},
                        {"unit": "zealot-2", "action": "run", "to": [26, 7.2]}]},
        3: {"assault": red_assault},
    }  # fmt: skip
    rounds = copy.deepcopy(APPROACH)
    for rnd in rounds:
        rnd["red"] = red[rnd["round"]]
    shot = {"unit": "roach-1", "action": "shoot", "targets": ["zealot-1"], "react": react}
    rounds.append({"round": 3, "red": red[3], "blue": {"movement": [ROACH_STEP], "assault": [*blue_first, shot]}})
    return rounds


def test_zealous_round_costs_the_activation_where_it_is_used(tmp_path: Path, seen: list[tuple[Any, Any]]) -> None:
    """Zealous Round ("When this Unit is not Activated and receives Damage, the controlling player may count this
    Unit as Activated in this Phase (flip its Activation Marker) to reduce the Total Damage by 2"): red activates
    zealot-2 before zealot-1, so the Roach shoots zealot-1 before its own activation whoever goes first. The
    attack is resolved with a reduction of 2, and zealot-1's activation is lost exactly in the games where the
    Roach dealt it Damage (the exact probability, 5 SE). Where zealot-1 activated before the shot, the Reaction
    is not triggered."""
    from mathhammer.starcraft.exact import exact_states

    armies = write_armies(tmp_path, RED_ZEALOTS, BLUE)
    zealous = [{"unit": "zealot-1", "use": "Zealous Round"}]
    later = [{"unit": "zealot-2", "action": "hold"}, {"unit": "zealot-1", "action": "hold"}]
    scn = scenario(armies, zealot_plan(zealous, later))
    assert errors(scn) == [], errors(scn)
    other = [{"unit": "zealot-1", "use": "Zealous Round", "for": "zealot-2"}]  # "this Unit" only
    found = errors(scenario(armies, zealot_plan(other, later)))
    assert any("protects 'zealot-1' itself (its text: this Unit), not 'zealot-2'" in p for p in found), found
    n = 20000
    sim = Simulation(scn, n, seed=17)
    sim.run()
    assert [t.reduce for _, t in seen] == [2]
    used = exact_states(*seen[0], spent=True)
    p = sum(v for (_r, _m, _s, spent), v in used.items() if spent)
    assert 0.2 < p < 0.99
    lost = sum(v for k, v in sim.skipped.items() if "counts as Activated in this Phase (Zealous Round" in k)
    assert abs(lost / n - p) < 5 * np.sqrt(p * (1 - p) / n), (lost / n, p)
    # zealot-1 activates before the Roach shoots (the Zerglings hold first, whoever has the First Player Marker):
    # Activated already, so no Zealous Round
    earlier = [{"unit": "zealot-1", "action": "hold"}, {"unit": "zealot-2", "action": "hold"}]
    seen.clear()
    plan = zealot_plan(zealous, earlier, ({"unit": "zergling-1", "action": "hold"},))
    sim = Simulation(scenario(armies, plan), 2000, seed=17)
    sim.run()
    assert [t.reduce for _, t in seen] == [0]
    assert sum(v for k, v in sim.skipped.items() if "'Zealous Round' not triggered" in k) == 2000
    assert not any("counts as Activated" in k for k in sim.skipped)


# ----------------------------------------------------------------- Hallucination
RED_SENTRY = (
    PROTOSS
    + """
[[units]]
unit = "Zealot"
models = 3

[[units]]
unit = "Sentry"
models = 2
upgrades = ["Hallucination"]
"""
)
HALLUCINATION = [{"unit": "sentry-1", "use": "Hallucination"}]


def sentry_plan(react: list[dict], sentry_to: tuple[float, float] = (15, 11)) -> list[dict]:
    """The Roach (stepping to (18, 23.2)) shoots zealot-1 (at (18, 15.2)) in Round 3; the Sentries (50 mm bases,
    deployed 3" from the Entry Edge, 8.5.5) move to ``sentry_to`` first."""
    red = {
        1: {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [18, 3.2]}],
            "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 7.2]}]},
        2: {"movement": [{"unit": "zealot-1", "action": "move", "to": [18, 11.2]},
                         {"unit": "sentry-1", "action": "deploy", "to": [sentry_to[0], 3]}],
            "assault": [{"unit": "zealot-1", "action": "run", "to": [18, 15.2]},
                        {"unit": "sentry-1", "action": "run", "to": [sentry_to[0], 7]}]},
        3: {"movement": [{"unit": "sentry-1", "action": "move", "to": list(sentry_to)}]},
    }  # fmt: skip
    rounds = copy.deepcopy(APPROACH)
    for rnd in rounds:
        rnd["red"] = red[rnd["round"]]
    shot = {"unit": "roach-1", "action": "shoot", "targets": ["zealot-1"], "react": react}
    rounds.append({"round": 3, "red": red[3], "blue": {"movement": [ROACH_STEP], "assault": [shot]}})
    return rounds


def test_hallucination_is_for_the_targeted_friendly_unit(tmp_path: Path, seen: list[tuple[Any, Any]]) -> None:
    """Hallucination ("When an Enemy Unit declares a Ranged Attack against a Friendly Unit Within 4\", the targeted
    Friendly Unit is eligible to make an Evade Roll against that attack"): the Sentries' Reaction makes the Roach's
    attack on zealot-1 (not on the Sentries) one the Zealots Evade (8.7.4 step 4: every Batch evade-eligible);
    without it they do not; with the Sentries beyond 4" the check refuses it and no game has it."""
    arm = write_armies(tmp_path, RED_SENTRY, BLUE)
    assert errors(scenario(arm, sentry_plan(HALLUCINATION))) == []
    found = errors(scenario(arm, sentry_plan(HALLUCINATION, sentry_to=(8, 11))))
    assert len(found) == 1 and "'zealot-1' is not Within 4\" of 'sentry-1'" in found[0], found
    evade = []
    for react, to in ((HALLUCINATION, (15, 11)), ([], (15, 11)), (HALLUCINATION, (8, 11))):
        seen.clear()
        sim = Simulation(scenario(arm, sentry_plan(react, to)), 500, seed=5)
        sim.run()
        evade.append({bool(cb.evade) for batches, _ in seen for cb in batches})
        skipped = sum(v for k, v in sim.skipped.items() if "'Hallucination' not triggered" in k)
        assert skipped == (500 if to == (8, 11) else 0)
    assert evade == [{True}, {False}, {False}]


def test_guardian_shield_takes_a_die_from_each_batch(tmp_path: Path, seen: list[tuple[Any, Any]]) -> None:
    """Guardian Shield ("All Ranged Attacks targeting a Friendly Unit Within 4" (Line of Sight is not required) are
    made with 1 fewer die in the Attack Pool"), used by the Sentries as they move in Round 3's Movement Phase: the
    Roach's Acid Saliva at zealot-1 reaches the engines with one die fewer where the Sentries end 3.4" from the
    Zealots, all its dice where they end 9" away (the effect lasts the Round; the distance is read at the attack)."""
    armies = write_armies(tmp_path, RED_SENTRY, BLUE)
    dice = {}
    for to in ((15, 11), (8, 11)):
        rounds = sentry_plan([], to)
        rounds[2]["red"]["movement"][0]["use"] = ["Guardian Shield"]
        scn = scenario(armies, rounds)
        assert check_scenario(scn) == []
        seen.clear()
        Simulation(scn, 50, seed=3).run()
        saliva = [cb for batches, _ in seen for cb in batches if cb.label.startswith("Acid Saliva")]
        assert saliva
        dice[to] = {int(cb.n_dice.sum()) for cb in saliva}
    (near,), (far,) = dice[(15, 11)], dice[(8, 11)]
    assert near == far - 1, dice
