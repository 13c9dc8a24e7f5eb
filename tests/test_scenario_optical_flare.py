"""Optical Flare (Medic): "Select one Enemy Unit Within 12\". Until the End of the Round, apply DEBUFF Range (4) to
that Unit's Ranged Weapons. That Unit cannot benefit from LONG RANGE." and the A-13 Flash Grenade Launcher upgrade
("Increase the Optical Flare special ability's Range to 16\"") (issue 6, point 3; 10.1 selection, part 11 DEBUFF
and LONG RANGE).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mathhammer.scenario import abilities
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.starcraft.loadout import attack_batches
from mathhammer.starcraft.schema import Effect

from .scenario_kit import army, build, errors, roster, skirmish
from .test_scenario_abilities import write_armies

FLARE = "Optical Flare"
A13 = "A-13 Flash Grenade Launcher"
BLUE = army("Kerrigan's Swarm", ("Hydralisk", 2, ["Grooved Spines"]))  # Needle Spines: Range 12, LONG RANGE (16")


def red(a13: bool) -> str:
    return army("Terran Armed Forces", ("Marine", 6), ("Medic", 3, [A13] if a13 else []), tactical=("Supply Depot",))


def flare_plan(medic_y: float, use: bool, shots: int = 1) -> list[dict]:
    """Red first. The Marines stand at (18, 8), the Medics at (12, ``medic_y``); the Hydralisks come to (18, 20) by
    Round 3 (Needle Spines, Range 12, reach the Marines 8.2" away, bases edge to edge; the second Hydralisk is set
    west of the first, at (14, 20)). In Round 4 the Medics hold, with Optical
    Flare on the Hydralisks where ``use``; then the Hydralisks shoot the Marines in the Assault Phase of Round 4
    (and of Round 5 with ``shots = 2``). 8.5.5: each base Deploys within Speed 4" of its Entry Edge (32 mm at 3.3",
    the Hydralisks' 40x100 mm oval at 34"), so the Hydralisks need Round 3's Move for their last 2" (the Flare and
    the shots come a Round later than before)."""
    flare: dict = {"unit": "medic-1", "action": "hold"}
    if use:
        flare |= {"use": [FLARE], "select": {FLARE: "hydralisk-1"}}
    shoot = {"assault": [{"unit": "hydralisk-1", "action": "shoot", "targets": ["marine-1"]}]}
    rounds = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]},
                              {"unit": "medic-1", "action": "deploy", "to": [12, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]},
                             {"unit": "medic-1", "action": "run", "to": [12, 7.3]}]},
         "blue": {"movement": [{"unit": "hydralisk-1", "action": "deploy", "to": [18, 34]}],
                  "assault": [{"unit": "hydralisk-1", "action": "run", "to": [18, 30]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]},
                              {"unit": "medic-1", "action": "move", "to": [12, medic_y]}]},
         "blue": {"movement": [{"unit": "hydralisk-1", "action": "move", "to": [18, 26]}],
                  "assault": [{"unit": "hydralisk-1", "action": "run", "to": [18, 22]}]}},
        {"round": 3, "red": {}, "blue": {"movement": [{"unit": "hydralisk-1", "action": "move", "to": [18, 20]}]}},
        {"round": 4, "red": {"movement": [flare]}, "blue": shoot},
    ]  # fmt: skip
    if shots == 2:
        rounds.append({"round": 5, "red": {}, "blue": shoot})
    return rounds


def scenario(tmp_path_factory: pytest.TempPathFactory, rounds: list[dict], a13: bool = False) -> Scenario:
    armies = write_armies(tmp_path_factory.mktemp("flare"), red(a13), BLUE)
    return build(skirmish("flare", armies=armies, rounds=rounds, first_player="red"), "flare.toml")


def shots_lost(scn: Scenario, n: int = 40) -> dict[int, int]:
    """Per Round: the games where the Hydralisks had no planned target they could shoot, less those where the
    Marines were destroyed before (no target left is not the Flare's doing)."""
    sim = Simulation(scn, n, seed=3)
    sim.run()
    m = sim.uids.index("marine-1")
    out: dict[int, int] = {}
    for k, v in sim.skipped.items():
        if "Needle Spines: no planned target it may shoot" in k:
            rnd = int(k.split("]")[0].removeprefix("rounds[")) + 1
            gone = int((sim.snapshots[rnd - 2]["alive"][m] == 0).sum())
            if v > gone:
                out[rnd] = v - gone
    return out


def test_optical_flare_effects_are_in_the_profiles() -> None:
    """The card: a DEBUFF Range (4) and no LONG RANGE on the selected enemy's Ranged Weapons, selected Within 12"
    in Line of Sight (10.1); A-13 makes that 16"."""
    medic = roster().unit("Medic").card
    (flare,) = [a for a in medic.abilities if a.name == FLARE]
    assert [(e.kind, e.keyword, e.weapons, e.select, e.within, e.line_of_sight) for e in flare.effects] == [
        ("enemy_weapon_keyword", "DEBUFF Range (4)", ["*assault"], "enemy", 12, True),
        ("enemy_weapon_drop", "LONG RANGE", ["*assault"], "enemy", 12, True),
    ]
    (a13,) = [a for up in medic.upgrades if up.name == A13 for a in up.abilities]
    assert [(e.kind, e.ability, e.value) for e in a13.effects] == [("select_range", FLARE, 16)]


def test_flared_weapons_lose_four_inches_and_long_range() -> None:
    """Part 11 DEBUFF "decrease the value by X": Needle Spines, Range 12, shoot at Range 8 under Optical Flare, and
    (Grooved Spines) without the LONG RANGE (16") they have otherwise."""
    scn_roster = roster()
    medic = scn_roster.unit("Medic").card
    (flare,) = [a for a in medic.abilities if a.name == FLARE]
    on_hydra = abilities.on_selected_weapons(abilities.Found(flare), "medic-1")
    assert on_hydra is not None and on_hydra.name == "Optical Flare (from medic-1)"
    marine = scn_roster.unit("Marine")

    def spines(with_flare: bool) -> tuple[float | None, list[str]]:
        from mathhammer.starcraft.loadout import make_loadout

        base = make_loadout(scn_roster.unit("Hydralisk"), 2, ["Grooved Spines"])
        lo = abilities.ExtraLoadout(base.unit, base.models, base.upgrades, base.use, base.minerals, (on_hydra,))
        (b,) = [b for b in attack_batches(lo if with_flare else base, marine, "assault") if b.name == "Needle Spines"]
        return b.weapon.range, [k.name for k in b.weapon.keywords]

    assert spines(False) == (12.0, ["LONG RANGE"])
    assert spines(True)[0] == 8.0 and "LONG RANGE" not in spines(True)[1]


def test_optical_flare_in_play(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Hydralisks, 8.2" from the Marines, shoot them in every game without the Flare; with it (Range 8) in
    none in Round 4, and again in Round 5 ("Until the End of the Round", 10.2). ``scenario check`` reads the Flare
    too: the Round 4 shot is an error naming the file, the Round 5 one is not."""
    plain = scenario(tmp_path_factory, flare_plan(10, use=False, shots=2))
    assert errors(plain) == []
    assert shots_lost(plain) == {}
    flared = scenario(tmp_path_factory, flare_plan(10, use=True, shots=2))
    (said,) = errors(flared)
    assert said.startswith("flare.toml: rounds[3].blue.assault[0] (round 4") and "no planned target" in said, said
    assert shots_lost(flared) == {4: 40}


def test_a13_flash_grenade_launcher_selects_within_16_inches(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Medics at (12, 4), 12.5" from the Hydralisks: beyond Optical Flare's 12" (an error, and not resolved in any
    game: the Hydralisks shoot), within A-13's 16" (resolved in every game: they cannot)."""
    far = flare_plan(4, use=True)
    without = scenario(tmp_path_factory, far)
    said = errors(without)
    assert any("select.Optical Flare: 'hydralisk-1' is not Within 12\"" in p for p in said), said
    sim = Simulation(without, 30, seed=3)
    sim.run()
    assert sum(v for k, v in sim.skipped.items() if "'Optical Flare' not resolved" in k and 'Within 12"' in k) == 30
    assert shots_lost(without, 30) == {}
    with_a13 = scenario(tmp_path_factory, far, a13=True)
    assert [p for p in errors(with_a13) if "select" in p] == []
    assert shots_lost(with_a13, 30) == {4: 30}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "enemy_weapon_drop", "keyword": "LONG RANGE", "weapons": ["*assault"]}, 'select = "enemy"'),
        ({"kind": "weapon_drop", "keyword": "LONG SHOT", "weapons": ["*assault"]}, "allowed: PRECISION"),
        ({"kind": "weapon_drop", "keyword": "LONG RANGE"}, "needs keyword"),
        ({"kind": "select_range", "value": 16}, "select_range needs ability"),
    ],
)
def test_new_effect_fields_are_validated(data: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Effect(**data)
