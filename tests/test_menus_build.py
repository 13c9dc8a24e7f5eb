"""The automatic players' menus (scenario/players/menu.py) of the example scenarios: built, deterministic, bounded."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario.loader import load_scenario
from mathhammer.scenario.players.menu import KINDS, build_menus, lanes
from mathhammer.scenario.world import World, edge_distance

SCENARIOS = sorted(Path(__file__).resolve().parents[1].glob("profiles/scenarios/*.toml"))


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda p: p.stem)
def built(request: pytest.FixtureRequest):
    scn = load_scenario(request.param)
    world = World(scn)
    return scn, world, build_menus(scn, world)


def test_the_four_examples_are_read() -> None:
    assert len(SCENARIOS) == 4


def test_same_scenario_same_menus(built) -> None:
    scn, _, menus = built
    path = next(p for p in SCENARIOS if p.name == Path(scn.file).name)
    again = build_menus(load_scenario(path))  # another load, another World: the same menus
    assert again == menus
    assert list(again) == list(menus)
    assert all(
        list(a.phases.values()) == list(b.phases.values()) for a, b in zip(again.values(), menus.values(), strict=True)
    )


def test_every_unit_has_tens_of_entries_not_thousands(built) -> None:
    scn, _, menus = built
    assert set(menus) == set(scn.units)
    for m in menus.values():
        assert set(m.phases) == set(KINDS)
        for phase, entries in m.phases.items():
            assert 2 <= len(entries) <= 150, (m.unit, phase, len(entries))  # with the abilities' entries
            assert {e.action for e in entries} <= set(KINDS[phase])
            assert entries[-1].action == "pass"
        deploys = [e for e in m["movement"] if e.action == "deploy"]
        moves = [e for e in m["movement"] if e.action == "move" and not e.use]
        assert len(deploys) >= 5 and len(moves) >= 5, m.unit  # a few lanes across the edge, spots on the board
        assert [e.to for e in m["assault"] if e.action == "run"] == [e.to for e in moves]


def test_deploy_points_within_speed_of_the_entry_edge(built) -> None:
    """8.5.5: no part of the Leading Model's base farther than Speed from the Entry Edge, the whole base on the table,
    and not Within the opponent's Zone of Influence (8.3.3)."""
    scn, world, menus = built
    b = scn.board
    for m in menus.values():
        su = scn.units[m.unit]
        r = su.base_mm / MM_PER_INCH / 2
        enemy = world.edges["blue" if su.player == "red" else "red"]
        for e in m["movement"]:
            if e.action != "deploy":
                continue
            assert e.to is not None
            assert r <= edge_distance(world.edges[su.player], e.to, b.width, b.depth) <= su.speed - r + 1e-9
            assert edge_distance(enemy, e.to, b.width, b.depth) - r > scn.deployment.zone_depth
            assert world.level_at(e.to) is None


def test_points_are_on_the_board_off_terrain(built) -> None:
    scn, world, menus = built
    for m in menus.values():
        r = scn.units[m.unit].base_mm / MM_PER_INCH / 2
        pts = [e.to for es in m.phases.values() for e in es if e.to is not None]
        assert world._terrain_ok(np.asarray(pts), r, None).all()


def test_contest_spots_are_within_contest_range_of_their_marker(built) -> None:
    """8.9.1: "At least one model is Within 3\"" of the marker: the Leading Model's centre 2" from it."""
    scn, _, menus = built
    markers = {m.number: (m.x, m.y) for m in scn.deployment.markers}
    for m in menus.values():
        spots = [e for e in m["movement"] if e.label.startswith("marker-")]
        assert spots
        for e in spots:
            assert e.to is not None
            assert math.dist(e.to, markers[int(e.label.split("-")[1])]) <= 3.0


def test_shoot_and_charge_name_each_enemy(built) -> None:
    scn, _, menus = built
    for m in menus.values():
        su = scn.units[m.unit]
        enemies = [u.id for u in scn.units.values() if u.player != su.player]
        uses = {e.use for e in m["assault"]}  # each ability's entries (menu.attack_abilities) name them all again
        for use in uses:
            shots = [e.target for e in m["assault"] if e.action == "shoot" and e.use == use]
            assert shots == (enemies if not use or shots else []), use
        ground = [u for u in enemies if not scn.units[u].flying]
        charges = [e.target for e in m["assault"] if e.action == "charge" and not e.use]
        assert charges == ([] if su.flying else ground)
        assert any(e.action == "gather" for e in m["assault"]) == scn.mission.gather_action


def test_lanes_include_the_markers_and_are_spread(built) -> None:
    scn, world, _ = built
    edge = world.edges["red"]
    got = lanes(scn, edge, 6.0)
    assert got == sorted(got)
    assert all(b - a >= 1.5 for a, b in itertools.pairwise(got))
    for m in scn.deployment.markers:
        assert min(abs(v - m.x) for v in got) < 1.5


def test_an_entry_makes_its_activation(built) -> None:
    _, _, menus = built
    m = next(iter(menus.values()))
    e = next(e for e in m["movement"] if e.action == "deploy")
    act = e.activation(m.unit, m.player, 1, "movement")
    assert (act.unit, act.player, act.action, act.to, act.round, act.phase) == (
        m.unit,
        m.player,
        "deploy",
        e.to,
        1,
        "movement",
    )
    shoot = next(e for e in m["assault"] if e.action == "shoot")
    assert shoot.activation(m.unit, m.player, 2, "assault").targets == (shoot.target,)
    assert m["assault"][-1].activation(m.unit, m.player, 2, "assault").unit == ""
