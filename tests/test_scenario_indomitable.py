"""Goliath Indomitable in a scenario (issue 6, points 2-3): the board facts of the simulation and of
``scenario check`` read the ``engaged_targeting`` effect of the unit's card (8.7.3 step 1's Engaged refusals
lifted, the defending unit gains an Evade Roll)."""

from __future__ import annotations

import pytest

from mathhammer.scenario.world import World
from mathhammer.starcraft.loadout import attack_batches

from .scenario_kit import army, build, skirmish
from .test_scenario_abilities import write_armies

TERRAN = army("Terran Armed Forces", ("Marine", 6), ("Goliath", 1), tactical=("Supply Depot",))  # Elite +1: Goliath
ZERG = army("Kerrigan's Swarm", ("Zergling", 12), ("Roach", 3))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    armies = write_armies(tmp_path_factory.mktemp("indomitable"), TERRAN, ZERG)
    return World(build(skirmish("indomitable", armies=armies), "indomitable.toml"))


def test_indomitable_in_the_scenario_facts(world: World) -> None:
    """The Goliath, Engaged with the Zerglings, may shoot the Unengaged Roach (which gains an Evade Roll); the
    Roach may shoot the Engaged Goliath (Evade Roll: Engaged, and Indomitable); the Marines' plain rule stands: an
    Engaged unit is not a target for an Unengaged one without PINPOINT (the Zerglings)."""
    scn = world.scn
    g = world.place(scn.units["goliath-1"], (18, 16), (0, -1), ())
    z = world.place(scn.units["zergling-1"], (18, 13.6), (0, -1), (g,), ("goliath-1",))
    r = world.place(scn.units["roach-1"], (21.5, 19), (0, 1), (g, z))
    m = world.place(scn.units["marine-1"], (30, 6), (0, -1), (g, z, r))
    assert None not in (g, z, r, m)
    pos = tuple({"goliath-1": g, "zergling-1": z, "roach-1": r, "marine-1": m}.get(u, -1) for u in world.uids)
    alive = tuple(scn.units[u].models if p >= 0 else 0 for u, p in zip(world.uids, pos, strict=True))
    assert ("goliath-1", "zergling-1") in world.engaged_pairs(pos, alive) or (
        "zergling-1",
        "goliath-1",
    ) in world.engaged_pairs(pos, alive)

    def facts(a: str, t: str):  # type: ignore[no-untyped-def]
        b = attack_batches(scn.units[a].loadout, scn.units[t].unit, "assault")[0]
        return world.facts(pos, alive, a, t, b.weapon, tuple(scn.units[t].unit.card.combat_tags))

    out = facts("goliath-1", "roach-1")
    assert out.eligible and "indomitable" in out.evade_reasons, out.refusals
    into = facts("roach-1", "goliath-1")
    assert into.eligible and {"engaged", "indomitable"} <= set(into.evade_reasons), into.refusals
    assert not facts("marine-1", "zergling-1").eligible
