"""ON CREEP (part 11: "A Friendly or Enemy Ground Zerg Unit is considered to be ON CREEP while it is Within 6\" of any
Creep Tumor Token or any model designated as a Source of Creep"): effects marked ``on_creep`` apply only then
(issue 6, point 3).
"""

from __future__ import annotations

import pytest

from mathhammer.profiles import load_roster
from mathhammer.scenario.sim import Simulation
from mathhammer.starcraft.loadout import as_target, make_loadout

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import RED, write_armies
from .test_scenario_charge_abilities import assert_share, charge_plan


def test_an_on_creep_target_effect_needs_creep() -> None:
    """Lurking (Hydralisk upgrade): "If this Unit is ON CREEP, it gains BUFF Evade (1)" against Ranged Attacks:
    not in the target profile off creep, there on creep."""
    lo = make_loadout(load_roster().unit("Hydralisk"), 2, ["Lurking"])
    off, on = as_target(lo, "assault"), as_target(lo, "assault", on_creep=True)
    assert [k.name for k in off.keywords] == []
    assert [(k.name, k.tag, k.value) for k in on.keywords] == [("BUFF", "Evade", 1)]


def test_glial_reconstitution_is_speed_2_on_creep_not_3() -> None:
    """Glial Reconstitution: "This Unit gains BUFF SPEED (1), or BUFF SPEED (2) if the Unit is ON CREEP"."""
    roster = load_roster()
    for unit in ("Roach", "Corpser (Roach)", "Vile (Roach)"):
        card = roster.unit(unit).card
        (glial,) = [a for up in card.upgrades for a in up.abilities if a.name == "Glial Reconstitution"]
        off = sum(e.value for e in glial.effects if e.kind == "speed" and not e.on_creep)
        assert (off, off + sum(e.value for e in glial.effects if e.kind == "speed" and e.on_creep)) == (1, 2)


def test_glial_reconstitution_off_creep_adds_1_to_the_charge(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Glial Reconstitution used in the Movement Phase, off creep: BUFF SPEED (1) for the Round, so the Charge Roll
    needed, r, becomes r - 1: the share of short Charges goes from (r - 1) / 6 to (r - 2) / 6 (5 SE; with the
    ON CREEP +1 as well, it would be (r - 3) / 6)."""
    zerg = army("Kerrigan's Swarm", ("Vile (Roach)", 3, ["Glial Reconstitution"]), tactical=("Spawning Pool",))
    armies = write_armies(tmp_path_factory.mktemp("glial"), RED, zerg)
    n = 3000
    shares = []
    for use in (False, True):
        plan = charge_plan("vile-1", [], [])
        if use:
            plan[2]["blue"]["movement"][0]["use"] = ["Glial Reconstitution"]
        scn = build(skirmish("glial", armies=armies, rounds=plan), "glial.toml")
        assert errors(scn) == []
        sim = Simulation(scn, n, seed=5)
        sim.run()
        shares.append(sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n)
    short = round(shares[0] * 6)
    assert 2 <= short <= 5, shares
    assert_share(shares[0], short / 6, n)
    assert_share(shares[1], (short - 1) / 6, n)
