"""Where a Charge's Leading Model may stand when the unit is set (8.7.7 step 3: "The Charge succeeds only if the Leading
Model can be legally set in a position that is: ... Within the Engagement Range (1") of every declared Charge target.
Not overlapping other bases or impassable terrain. Not Within the Engagement Range of any Enemy Unit that was not
declared as a target"; step 4: "Set it in Base-to-Base contact with the Charge target(s) if possible").

The Charge path (``World.charge_length``) may end touching another base, and over the spot of a target's removed model
(the path reads the models left). Before session 56 the setting (``World.charge_place``) kept the Leading Model
``GAP / 2`` off every base, the targets' removed ones included, and refused such ends: in 100 games of the issue 29
lists (``objective`` against ``aggressive``) 153 of 550 Charges that reached were "no room to set the unit there", 17
after.
"""

from __future__ import annotations

import math

import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.world import World

R_MARINE, R_ZERGLING = 32 / 25.4 / 2, 32 / 25.4 / 2


@pytest.fixture
def world() -> World:
    return World(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")))


def put(world: World, uid: str, at: tuple[float, float], rear: tuple[float, float], occupied: tuple[int, ...]) -> int:
    pid = world.place(world.scn.units[uid], at, rear, occupied)
    assert pid is not None, (uid, at)
    return pid


def test_the_leading_model_may_stand_over_a_removed_model_of_its_target(world: World) -> None:
    """Zerglings (18 models, 6 left: their first 6 centres) charged by Marines: the Leading Model set where a removed
    Zergling stood, Within 1" of the live ones, is set; the same spot with that Zergling alive (18 left) is not (it
    would overlap it)."""
    z = put(world, "zergling-1", (30.0, 20.0), (0.0, 1.0), ())
    centres = world.placements[z].centres
    live = centres[:6]
    spot = next(
        c
        for c in centres[6:]
        if min(math.dist(c, x) for x in live) - 2 * R_ZERGLING <= 1.0
        and all(math.dist(c, x) >= R_MARINE + R_ZERGLING for x in live)
    )
    marines = world.scn.units["marine-1"]
    rear = (0.0, -1.0)
    got = world.charge_place(marines, spot, rear, (z,), ("zergling-1",), (("zergling-1", 6),))
    assert got is not None and world.placements[got].centres[0] == spot
    assert world.charge_place(marines, spot, rear, (z,), ("zergling-1",), (("zergling-1", 18),)) is None


def _south_of_zerglings(world: World, gap: float) -> tuple[int, tuple[float, float]]:
    """Zerglings (18) set north of (30, 20), and a spot ``gap`` inches (edge to edge) south of their southmost model."""
    z = put(world, "zergling-1", (30.0, 20.0), (0.0, 1.0), ())
    zc = min(world.placements[z].centres, key=lambda c: c[1])
    return z, (zc[0], zc[1] - 2 * R_ZERGLING - gap)


def test_the_leading_model_may_touch_a_friendly_base_but_not_overlap_it(world: World) -> None:
    """The Leading Model 0.8" from the Zerglings, in Base-to-Base contact with the Leading Model of another Marine unit
    (an edge gap of 0: no overlap): set; 0.01" into it: not."""
    z, lead = _south_of_zerglings(world, 0.8)
    m2 = put(world, "marine-2", (lead[0], lead[1] - 2 * R_MARINE), (0.0, -1.0), (z,))
    marines = world.scn.units["marine-1"]
    args = ((z, m2), ("zergling-1",), (("zergling-1", 18),))
    assert world.charge_place(marines, lead, (0.0, -1.0), *args) is not None
    assert world.charge_place(marines, (lead[0], lead[1] - 0.01), (0.0, -1.0), *args) is None


def test_a_leading_model_within_1_of_an_undeclared_enemy_is_refused(world: World) -> None:
    """Step 3: not Within the Engagement Range of an Enemy Unit not declared: a second Zergling unit 0.85" off the
    Leading Model (set where Roaches standing at the spot leave it room) refuses the setting; declared too, it is
    set."""
    z1, lead = _south_of_zerglings(world, 0.8)
    roaches = put(world, "roach-1", lead, (-1.0, 0.0), (z1,))  # only to keep the second unit's models off the spot
    z2 = put(world, "zergling-2", (lead[0] + 50 / 25.4 / 2 + R_ZERGLING + 0.5, lead[1]), (1.0, 0.0), (z1, roaches))
    assert 0 < min(math.dist(lead, c) for c in world.placements[z2].centres) - 2 * R_ZERGLING <= 1.0
    marines = world.scn.units["marine-1"]
    assert world.charge_place(marines, lead, (0.0, -1.0), (z1, z2), ("zergling-1",), ()) is None
    both = ("zergling-1", "zergling-2")
    assert world.charge_place(marines, lead, (0.0, -1.0), (z1, z2), both, ()) is not None
