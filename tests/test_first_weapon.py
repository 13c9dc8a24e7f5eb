"""Effects on a unit's first weapon used (issue 6, point 3): Infantry Weapons ("The active Biological Unit's first
Ranged Weapon used gains CRITICAL HIT (1)"), Weapons of the Firstborn, Quick Strikes, Feral Rage and the others:
the first Batch of the weapons they name, in Batch order (8.7.3: the attacking player orders the Batches), not every
weapon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer.scenario.abilities import ExtraLoadout
from mathhammer.scenario.sim import Simulation
from mathhammer.starcraft.keywords import keyword_value
from mathhammer.starcraft.loadout import attack_batches, make_loadout
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

ROSTER = load_roster()
WEAPONS = next(a for a in ROSTER.card("Engineering Bay").abilities if a.name == "Infantry Weapons")


def crits(first: str | None) -> dict[str, int]:
    base = make_loadout(ROSTER.unit("Marine"), 6, ["Rocket Launcher", "AGG-12"])
    lo = ExtraLoadout(base.unit, base.models, base.upgrades, base.use, base.minerals, (WEAPONS,))
    return {
        b.weapon.name: keyword_value(b.weapon.keywords, "CRITICAL HIT")
        for b in attack_batches(lo, ROSTER.unit("Roach"), "assault", first=first)
    }


def test_every_first_weapon_effect_is_marked() -> None:
    """Every weapon effect of an ability whose text says "first ... Weapon used" (or "first used Weapon") is a
    ``first_weapon`` effect, and no other."""
    found = []
    for card in [*ROSTER.factions.values(), *ROSTER.tactical.values(), *ROSTER.creep.values()]:
        found += [(a.text, e) for a in card.abilities for e in a.effects]
    for unit in ROSTER.units.values():
        abilities = list(unit.card.abilities) + [a for up in unit.card.upgrades for a in up.abilities]
        found += [(a.text, e) for a in abilities for e in a.effects]
    marked = [(t, e) for t, e in found if e.first_weapon]
    assert marked
    for text, e in found:
        low = text.lower()
        says = ("first" in low and "weapon used" in low) or "first used weapon" in low
        if e.kind == "weapon_keyword":
            assert e.first_weapon == says, text


def test_infantry_weapons_reach_the_first_weapon_only() -> None:
    """Marines with Rocket Launcher and AGG-12 (Batches C-14 Rifle, AGG-12, Rocket Launcher): CRITICAL HIT (1) on the
    C-14 Rifles (first in Batch order) only; on the AGG-12 only where it is fired first."""
    assert crits(None) == {"C-14 Rifle": 1, "AGG-12": 0, "Rocket Launcher": 0}
    assert crits("AGG-12") == {"C-14 Rifle": 0, "AGG-12": 1, "Rocket Launcher": 0}


@pytest.mark.parametrize(("weapons", "critical"), [(["AGG-12", "C-14 Rifle"], {"AGG-12"}), ([], {"C-14 Rifle"})])
def test_the_plans_first_weapon_gets_it(tmp_path: Path, seen: list, weapons: list[str], critical: set[str]) -> None:
    """In the simulation the first weapon is the plan's first (``weapons``), else the card's Batch order."""
    red = army("Terran Armed Forces", ("Marine", 6, ["Rocket Launcher", "AGG-12"]), tactical=("Engineering Bay",))
    blue = army("Kerrigan's Swarm", ("Roach", 3))
    shoot = {"unit": "marine-1", "action": "shoot", "targets": ["roach-1"], "use": ["Infantry Weapons"]}
    if weapons:
        shoot["weapons"] = weapons
    rounds = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}]}},
        {"round": 2,  # 8.5.5: Deployed with the base within Speed, both Run the rest on to 12" apart
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        {"round": 3, "red": {"assault": [shoot]}},
    ]  # fmt: skip
    scn = build(skirmish("first", armies=write_armies(tmp_path, red, blue), rounds=rounds), "first.toml")
    assert errors(scn) == []
    Simulation(scn, 50, seed=2).run()
    got = {cb.label: int(cb.critical) for batches, _ in seen for cb in batches}
    assert {name for name, c in got.items() if c} == critical, got
