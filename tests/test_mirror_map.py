"""A Charge's end and a RESPAWN map under a Deployment Card's symmetry (issue 29 point 5, the mirror match).

On every card whose symmetry swaps the players (``swaps_players``) and each of its presets, a board state and its
image (each unit's models at the image points, owned by the other player: the same list both sides) must give
results that are images of each other, or a mirror match gives one side other games than the other:

* 8.7.7 steps 2-4: the Charge path's length and the Leading Model's end (``World.charge_length``), and the
  charging unit's models set by the Placement priority (``World.charge_place``, :mod:`mathhammer.scenario.geometry.
  charge`), in order (the order is 8.7.5's casualty order): ties among spots equally near the Leading Model were broken
  by the table's x then y (8-18 of 14-34 random Charges per preset differed on every card but Char Plains, whose
  mirror keeps x); now in the unit's own frame, towards the table's centre (``Placing._grid_order``'s rule).
* RESPAWN (part 11): the returned models' spots (``World.respawn``): the 36 directions round each live model were
  tried from due east (each of the 36 cases below failed); now from the player's rear, turning away from it, the
  side of the table's centre first (``Placing._ring_order``). The rules say which spots are legal, not which of
  equal ones is taken.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mathhammer.scenario.geometry.core import Placement
from mathhammer.scenario.missions.deployments import symmetry_map
from mathhammer.scenario.world import World
from tests.test_menus_mirror import CARDS, MIRRORED, board

Point = tuple[float, float]


class Mirror:
    """A mirror match's World on ``card``/``preset`` (``army`` both sides) and the card's symmetry ``f``."""

    def __init__(self, folder: Path, card: str, preset: str, army: str) -> None:
        self.scn = board(folder, card, preset, army)
        self.card: dict[str, Any] = next(x for x in CARDS if x["name"] == card)
        self.f: Callable[[float, float], Point] = symmetry_map(
            self.card["symmetry"], self.card["width"], self.card["depth"]
        )
        self.world = World(self.scn)
        self.reds = [u for u, su in self.scn.units.items() if su.player == "red"]

    def image(self, pid: int, uid: str) -> int:
        """Placement ``pid``'s models at their image points, as unit ``uid``'s."""
        p = self.world.placements[pid]
        return self.world._intern(Placement(uid, tuple(self.f(*c) for c in p.centres), p.level))

    def mapped(self, a: int, b: int) -> bool:
        """Are placement ``b``'s centres (in order) the images of ``a``'s?"""
        pl = self.world.placements
        one = [tuple(round(v, 4) for v in self.f(*c)) for c in pl[a].centres]
        return one == [tuple(round(v, 4) for v in c) for c in pl[b].centres]

    def pair(self, rng: random.Random, near: float) -> tuple[str, str, int, int] | None:
        """A red unit and a blue one set (each facing its own edge) with Leading Models at most ``near`` apart."""
        w, c = self.world, self.card
        a, b = rng.choice(self.reds), rng.choice(self.reds)
        la = (rng.uniform(2, c["width"] - 2), rng.uniform(2, c["depth"] - 2))
        ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(1.5, near)
        pa = w.place(self.scn.units[a], la, w.rear_of("red"), ())
        if pa is None:
            return None
        lb = (la[0] + dist * math.cos(ang), la[1] + dist * math.sin(ang))
        pb = w.place(self.scn.units[f"blue-{b}"], lb, w.rear_of("blue"), (pa,))
        return None if pb is None else (a, b, pa, pb)

    def pairs(self, rng: random.Random, tries: int, near: float) -> Iterator[tuple[str, str, int, int]]:
        """The pairs of :meth:`pair` set in ``tries`` tries."""
        for _ in range(tries):
            got = self.pair(rng, near)
            if got is not None:
                yield got

    def pos(self, at: dict[str, int]) -> tuple[int, ...]:
        return tuple(at.get(u, -1) for u in self.world.uids)


@pytest.mark.parametrize(("card", "preset"), MIRRORED)
@pytest.mark.parametrize("army", ["terran_six.toml", "zerg_six.toml"])
def test_a_charge_maps_onto_its_image(tmp_path: Path, card: str, preset: str, army: str) -> None:
    """8.7.7 on a card that swaps the players: random Charges (a red unit at a blue one up to Speed + 6" away, both set
    by ``World.place``) and their images (blue's unit of the same list at the image points charging red's): the same
    Charge distance, the image end, and the charging unit's models (8.7.7 step 4's Placement priority, in casualty
    order) at the images of each other's spots, every one."""
    m = Mirror(tmp_path, card, preset, army)
    w, rng = m.world, random.Random(7)
    alive = tuple(m.scn.units[u].models for u in w.uids)
    charged = placed = 0
    for a, b, pa, pb in m.pairs(rng, 40, 10.0):
        ia, ib = m.image(pa, f"blue-{a}"), m.image(pb, b)
        length, end = w.charge_length(m.pos({a: pa, f"blue-{b}": pb}), alive, a, (f"blue-{b}",))
        length2, end2 = w.charge_length(m.pos({f"blue-{a}": ia, b: ib}), alive, f"blue-{a}", (b,))
        assert (end is None) == (end2 is None)
        if end is None or end2 is None:
            continue
        charged += 1
        assert length == pytest.approx(length2, abs=1e-6)
        assert math.dist(m.f(*end), end2) < 1e-6, (a, b, end, end2)
        one = w.charge_place(m.scn.units[a], end, w.rear_from(pa, end), (pb,), (f"blue-{b}",))
        two = w.charge_place(m.scn.units[f"blue-{a}"], end2, w.rear_from(ia, end2), (ib,), (b,))
        assert (one is None) == (two is None)
        if one is not None and two is not None:
            placed += 1
            assert m.mapped(one, two), (card, preset, a, b, end)
    assert placed >= 8, (charged, placed)


@pytest.mark.parametrize(("card", "preset"), MIRRORED)
@pytest.mark.parametrize("army", ["terran_six.toml", "zerg_six.toml"])
def test_a_respawn_maps_onto_its_image(tmp_path: Path, card: str, preset: str, army: str) -> None:
    """RESPAWN (part 11) on a card that swaps the players: a red unit with some models Destroyed, a blue unit near it
    (its Engagement Range closes spots), up to X models returned; the image state (the units of the same list at the
    image points, the owners swapped) returns as many models, at the image spots, in the same order."""
    m = Mirror(tmp_path, card, preset, army)
    m.reds = [u for u in m.reds if m.scn.units[u].models > 1]
    w, rng = m.world, random.Random(11)
    looked = returned = 0
    for a, b, pa, pb in m.pairs(rng, 60, 5.0):
        models = m.scn.units[a].models
        left = rng.randint(1, models - 1)
        k = rng.randint(1, models - left)
        one, n1 = w.respawn(pa, left, k, (pb,))
        two, n2 = w.respawn(m.image(pa, f"blue-{a}"), left, k, (m.image(pb, b),))
        looked += 1
        returned += n1 > 0
        assert n1 == n2 and m.mapped(one, two), (card, preset, a, left, k)
    assert returned >= 2, (looked, returned)


@pytest.mark.parametrize(("card", "preset"), MIRRORED)
@pytest.mark.parametrize("army", ["terran_six.toml", "zerg_six.toml"])
def test_close_ranks_maps_onto_its_image(tmp_path: Path, card: str, preset: str, army: str) -> None:
    """8.8.1 step 1 CLOSE RANKS on a card that swaps the players: random Engaged pairs (a red unit's Charge at a blue
    one, set as :func:`test_a_charge_maps_onto_its_image` sets it, some models of each removed at random) and their
    images: the unit that Closes Ranks (the charged one, or the charger) ends at the images of each other's spots, in
    the same order (8.7.5's casualty order), every one; the grid fallback's spots included."""
    m = Mirror(tmp_path, card, preset, army)
    w, rng = m.world, random.Random(13)
    alive = tuple(m.scn.units[u].models for u in w.uids)
    looked = moved = 0
    differ: list[tuple[str, str, int, int]] = []
    for a, b, pa, pb in m.pairs(rng, 60, 10.0):
        ia, ib = m.image(pa, f"blue-{a}"), m.image(pb, b)
        _, end = w.charge_length(m.pos({a: pa, f"blue-{b}": pb}), alive, a, (f"blue-{b}",))
        if end is None:
            continue
        _, end2 = w.charge_length(m.pos({f"blue-{a}": ia, b: ib}), alive, f"blue-{a}", (b,))
        assert end2 is not None
        one = w.charge_place(m.scn.units[a], end, w.rear_from(pa, end), (pb,), (f"blue-{b}",))
        two = w.charge_place(m.scn.units[f"blue-{a}"], end2, w.rear_from(ia, end2), (ib,), (b,))
        if one is None or two is None:
            continue
        assert m.mapped(one, two)
        ka = rng.randint(1, len(w.placements[one].centres))  # models left of each (a Charge may set fewer: 4.4)
        kb = rng.randint(1, m.scn.units[b].models)
        # the charged unit presses in (its foe: the charger), and the charger (its foe: the charged unit)
        for mine, kmine, foe, kfoe, mine2, foe2 in ((pb, kb, one, ka, ib, two), (one, ka, pb, kb, two, ib)):
            got = w.close_ranks(mine, kmine, ((foe, kfoe),), ())
            got2 = w.close_ranks(mine2, kmine, ((foe2, kfoe),), ())
            looked += 1
            moved += got != mine
            if (got == mine) != (got2 == mine2) or not m.mapped(got, got2):
                differ.append((a, b, kmine, kfoe))
    assert not differ, (card, preset, looked, moved, len(differ), differ[:3])
    assert moved >= 8, (looked, moved)
