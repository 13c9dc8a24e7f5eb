"""Cost reductions (issue 6, point 3; 10.5 paying CP, BM and PE by Exhausting Ready cards): Advanced Training
(Academy: "Once per Round, when a Friendly Support Unit activates a Special Ability that costs CP, resolve that
ability with its CP cost reduced by 1 (to a minimum of 0). Do not Exhaust this card"), Psionic Link (Queen: "Once per
Round, if there are at least 7 Friendly models Within 6\\" of this Unit, it may resolve its Special Ability with the
BM cost reduced by 1") and Khalai Ingenuity (Pylon, a summoned unit: "when a Friendly Unit Within 4\\" of this Pylon
uses a Special Ability that costs Psionic Energy, that ability's PE cost is reduced by 1"). Only ``scenario check``
pays costs.
"""

from __future__ import annotations

from pathlib import Path

from mathhammer.scenario.world import World
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

ZERG = army("Kerrigan's Swarm", ("Zergling", 12))
TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Medic", 3), ("Medic", 3), tactical=("Academy",))
TRAINING = {"unit": "medic-1", "use": "Advanced Training"}


def deploy(unit: str, x: float, y: float) -> dict:
    return {"unit": unit, "action": "deploy", "to": [x, y]}


def medpack(unit: str, **more: object) -> dict:
    return {"unit": unit, "action": "hold", "use": ["Medpack"], "select": {"Medpack": "marine-1"}, **more}


def terran_plan(medic_1: dict) -> list[dict]:
    """Round 2: three Special Abilities that cost 1 CP each (two Medpacks, a Stimpack) against 2 CP (Terran Armed
    Forces and Academy give 1 each). 8.5.5: the 32 mm bases Deploy 3.3" from the Entry Edge (within Speed 4")."""
    return [
        {"round": 1, "red": {"movement": [deploy("marine-1", 18, 3.3), deploy("medic-1", 14, 3.3),
                                          deploy("medic-2", 22, 3.3)]}},
        {"round": 2, "red": {"movement": [medic_1, medpack("medic-2"),
                                          {"unit": "marine-1", "action": "hold", "use": ["Stimpack"]}]}},
    ]  # fmt: skip


def terran(tmp_path: Path, medic_1: dict, red: str = TERRAN) -> list[str]:
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("costs", armies=write_armies(tmp_path, red, ZERG), rounds=terran_plan(medic_1), mission=mission)
    return errors(build(data, "costs.toml"))


def test_advanced_training_pays_one_cp_less(tmp_path: Path) -> None:
    """Without Advanced Training the third 1-CP ability finds no Ready card (10.5.1); with it on medic-1's Medpack
    (the Medic is a Support Unit) the three cost 2 CP."""
    said = terran(tmp_path, medpack("medic-1"))
    assert len(said) == 1 and "'Stimpack' costs 1 CP; the Ready cards give 0 CP" in said[0], said
    assert terran(tmp_path, medpack("medic-1", react=[TRAINING])) == []


def test_advanced_training_only_for_the_support_unit_using_a_cp_ability(tmp_path: Path) -> None:
    """ "when a Friendly Support Unit activates a Special Ability that costs CP": planned by a Marine (Core), or on a
    Medic's activation that pays no CP, it is an error and lowers nothing."""
    stim = {"unit": "marine-1", "action": "hold", "use": ["Stimpack"]}
    stim["react"] = [{"unit": "marine-1", "use": "Advanced Training"}]
    plan = terran_plan(medpack("medic-1"))
    plan[1]["red"]["movement"][2] = stim
    mission = {"card": "Hold Position", "starting_supply": 20}
    said = errors(build(skirmish("costs", armies=write_armies(tmp_path, TERRAN, ZERG), rounds=plan,
                                 mission=mission), "costs.toml"))  # fmt: skip
    assert any("'Advanced Training' is for a Friendly Support Unit; 'marine-1' is Core" in s for s in said), said
    assert any("the Ready cards give 0 CP" in s for s in said), said
    idle = terran(tmp_path, {"unit": "medic-1", "action": "hold", "react": [TRAINING]})
    assert any("'Advanced Training' answers a Special Ability that costs CP; this activation uses none" in s
               for s in idle), idle  # fmt: skip


QUEEN = army("Kerrigan's Swarm", ("Queen", 1), ("Zergling", 12), ("Zergling", 12), tactical=("Hatchery",))


def zerg_plan(zerglings_at: float) -> list[dict]:
    """Round 2: the Queen's Spawn Creep Tumor (1 BM) and both Zergling units' Metabolic Boost (1 BM each) against
    2 BM (Kerrigan's Swarm and Hatchery); zergling-1 deployed ``zerglings_at`` inches west of the Queen. 8.5.5: all
    Deploy 2.4" from the Entry Edge (the Queen's 80 mm base within Speed 4"; the Zerglings on the same line)."""
    tumor = {"unit": "queen-1", "action": "hold", "use": ["Spawn Creep Tumor"], "token_at": [26.3, 33.6]}
    boost = [{"unit": z, "action": "hold", "use": ["Metabolic Boost"]} for z in ("zergling-1", "zergling-2")]
    return [
        {"round": 1, "blue": {"movement": [deploy("queen-1", 24, 33.6), deploy("zergling-1", 24 - zerglings_at, 33.6),
                                           deploy("zergling-2", 4, 33.6)]}},
        {"round": 2, "blue": {"movement": [tumor], "assault": boost}},
    ]  # fmt: skip


def test_psionic_link_with_seven_friendly_models_near(tmp_path: Path) -> None:
    """With zergling-1 beside the Queen (at least 7 of its models Within 6") the Queen's tumor costs 0 BM and the
    two Metabolic Boosts 2 BM; with it far (fewer than 7 near) the second Boost finds no Ready card."""
    mission = {"card": "Hold Position", "starting_supply": 20}
    for gap, ok in ((6.0, True), (14.0, False)):
        data = skirmish("link", armies=write_armies(tmp_path, army("Terran Armed Forces", ("Marine", 6)), QUEEN),
                        rounds=zerg_plan(gap), mission=mission)  # fmt: skip
        scn = build(data, "link.toml")
        world = World(scn)
        q = world.place(scn.units["queen-1"], (24, 33.6), world.rear_of("blue"), ())
        z = world.place(scn.units["zergling-1"], (24 - gap, 33.6), world.rear_of("blue"), (q,))
        assert q is not None and z is not None
        near = world.models_within(z, 12, q, 1, 6.0)
        assert (near >= 7) == ok, near
        said = errors(scn)
        assert said == [] if ok else (len(said) == 1 and "'Metabolic Boost' costs 1 BM" in said[0]), said


def test_khalai_ingenuity_is_read_for_a_pylon_on_the_table() -> None:
    """The Pylon's reduction is machine-readable (a Friendly Unit Within 4", PE, once per Round); the Pylon is a
    summoned unit (9.1.9) that no plan sets, so ``scenario check`` never meets it."""
    (e,) = [e for a in load_roster().units["Pylon"].card.abilities if a.name == "Khalai Ingenuity" for e in a.effects]
    assert (e.kind, e.value, e.resource, e.within, e.models_near) == ("cost_reduction", 1, "PE", 4.0, 0)
