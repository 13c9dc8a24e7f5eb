"""The automatic players' menus on the Deployment Cards' presets (scenario/players/menu.py, issue 29 point 5): every
Mission Marker reached by Moves between menu points (Frontier's centre marker was not: objective against random was
mostly a draw), and, on every card whose symmetry swaps the players (``swaps_players``), each player's menu the image of
the other's under that symmetry, so that a mirror match (the same list both sides) gives neither side other choices.

"Reached" is 8.5.3's test of a Move on an empty table: the way of the Leading Model round the terrain
(``World.route``, the path the plan check measures) at most Speed, from a Deploy point (8.5.5), step by step through
the unit's Move points to a contest spot of the marker (``menu.unreached_markers``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from mathhammer.scenario.geometry.core import nearest_heading
from mathhammer.scenario.loader import deployment_cards, parse_scenario
from mathhammer.scenario.missions.deployments import symmetry_map
from mathhammer.scenario.players import menu as menu_mod
from mathhammer.scenario.players.menu import HEADINGS, build_menus, unreached_markers
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import World
from tests.autoplay_kit import data

CARDS = deployment_cards()
PRESETS = [(c["name"], p["name"]) for c in CARDS for p in c["presets"]]
MIRRORED = [(c, p) for c, p in PRESETS if next(x for x in CARDS if x["name"] == c)["swaps_players"]]
ROOT = Path(__file__).resolve().parents[1]


def board(folder: Path, card: str, preset: str, army: str | None = None, terrain: Any = None) -> Scenario:
    """The two-unit lists of tests/autoplay_kit.py (or ``army`` both sides) on ``card`` with its preset ``preset``
    (or the ``terrain`` pieces)."""
    d = data(folder)
    d["deployment"] = {"card": card}
    d["terrain"] = terrain if terrain is not None else f"preset:{preset}"
    if army is not None:
        d["players"]["red"]["army"] = d["players"]["blue"]["army"] = str(ROOT / "profiles" / "armies" / army)
    return parse_scenario(d, "menus.toml", folder)


#: (card, preset, army) -> its scenario, World and menus: built once for the two tests that read the same list both
#: sides on a mirrored preset (test_a_mirror_matchs_menus_map_onto_each_other with terran_six, then
#: test_formations_map_onto_each_other; the same scenario, the same menus: tests/test_menus_build.py)
_BUILT: dict[tuple[str, str, str], tuple[Scenario, World, dict[str, Any]]] = {}


def built(folder: Path, card: str, preset: str, army: str) -> tuple[Scenario, World, dict[str, Any]]:
    """``board(folder, card, preset, army)``, its World and the menus built on it, kept for the module."""
    key = (card, preset, army)
    if key not in _BUILT:
        scn = board(folder, card, preset, army)
        world = World(scn)
        _BUILT[key] = scn, world, build_menus(scn, world)
    return _BUILT[key]


@pytest.mark.parametrize(("card", "preset"), PRESETS)
def test_every_marker_is_reached_from_the_entry_edge(tmp_path: Path, card: str, preset: str) -> None:
    """Every unit of both lists reaches a contest spot of every Mission Marker through its own menu's Move points, on
    every preset of every card."""
    scn = board(tmp_path, card, preset)
    world = World(scn)
    for uid, m in build_menus(scn, world).items():
        spots = [(e.label, e.to) for e in m["movement"] if e.action == "move" and e.to is not None]
        assert unreached_markers(scn, world, scn.units[uid], spots) == [], (card, preset, uid)


def test_frontiers_centre_marker_needed_a_route(tmp_path: Path) -> None:
    """Frontier's standard preset: without the route points the Marauders (Speed 4, a 40 mm base) cannot reach the
    centre marker 5 (the ridge in the lane); with them they do, and every step of the route is a way of at most Speed
    round the terrain (8.5.3)."""
    scn = board(tmp_path, "Frontier", "standard")
    world = World(scn)
    su = scn.units["marauder-1"]
    spots = menu_mod.move_spots(scn, world, su) + menu_mod.lane_steps(scn, world, su)
    assert unreached_markers(scn, world, su, spots) == [5]
    routes = menu_mod.marker_routes(scn, world, su, spots)
    assert routes and {lab for lab, _ in routes} == {"route-5"}
    assert unreached_markers(scn, world, su, spots + routes) == []
    starts = [p for _, p in menu_mod.deploy_spots(scn, world, su)]
    for _, p in routes:  # each route point is one Move from a Deploy point or another route point
        assert any(menu_mod._step_ok(world, su, q, p) for q in starts + [r for _, r in routes if r != p]), p


def test_tied_ways_are_all_taken() -> None:
    """Two ways of the same length round a square (above and below it): both, whatever the order of the corners."""
    nodes = [(0.0, 0.0), (1.0, 1.0), (1.0, -1.0), (2.0, 0.0)]

    def clear(i: int, j: int) -> bool:  # the straight leg 0-3 crosses the square
        return {i, j} != {0, 3}

    ways = menu_mod._shortest_ways(nodes, 1, {3}, clear)
    assert sorted(ways) == [[(0.0, 0.0), (1.0, -1.0), (2.0, 0.0)], [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0)]]
    assert menu_mod._shortest_ways(nodes, 1, {3}, lambda i, j: False) == []


def _image(
    scn: Scenario, world: World, card: dict[str, Any], menus: dict[str, Any] | None = None
) -> list[tuple[str, str, list[Any], list[Any]]]:
    """Per red unit and Phase, the red menu's (action, point) mapped by the card's symmetry against the blue
    counterpart's (the same list both sides): the ones that differ (``menus``: built on ``world`` if not given)."""
    f = symmetry_map(card["symmetry"], card["width"], card["depth"])
    menus = build_menus(scn, world) if menus is None else menus
    bad = []
    for uid, m in menus.items():
        if m.player != "red":
            continue
        other = menus[f"blue-{uid}"]
        for phase in m.phases:
            a = sorted((e.action, None if e.to is None else tuple(round(v, 2) for v in f(*e.to))) for e in m[phase])
            b = sorted((e.action, None if e.to is None else tuple(round(v, 2) for v in e.to)) for e in other[phase])
            if a != b:
                bad.append((uid, phase, sorted(set(a) - set(b))[:3], sorted(set(b) - set(a))[:3]))
    return bad


@pytest.mark.parametrize(("card", "preset"), MIRRORED)
@pytest.mark.parametrize("army", ["terran_six.toml", "zerg_six.toml"])
def test_a_mirror_matchs_menus_map_onto_each_other(tmp_path: Path, card: str, preset: str, army: str) -> None:
    """The same list both sides on a card that swaps the players: blue's menu (Deploy lanes, contest spots, cover
    spots, lane steps, routes to the markers) is red's mapped by the card's symmetry, entry for entry."""
    scn, world, menus = built(tmp_path, card, preset, army)
    c = next(x for x in CARDS if x["name"] == card)
    assert _image(scn, world, c, menus) == []


def test_a_lopsided_board_is_seen(tmp_path: Path) -> None:
    """The check fails where the board is not symmetric: Abandoned Camp with one ruin only (on red's side)."""
    ruin = {"id": "ruin", "size": 3, "footprint": [[15.0, 9.0], [21.0, 9.0], [21.0, 11.0], [15.0, 11.0]]}
    scn = board(tmp_path, "Abandoned Camp", "", "terran_six.toml", terrain=[ruin])
    c = next(x for x in CARDS if x["name"] == "Abandoned Camp")
    assert _image(scn, World(scn), c) != []


def _placements_differ(
    scn: Scenario, card: dict[str, Any], world: World | None = None, menus: dict[str, Any] | None = None
) -> tuple[int, int, int, int]:
    """How red's formations (8.5.3 step 2: the models set round the Leading Model, ``World.place`` on an empty
    table) mapped by the card's symmetry compare with blue's at the image point with the image rear: at every Move
    point of red's menu with the player's rear (a Deploy), and for every Move from one menu point to another within
    Speed with the rear towards where the Leading Model stood (``World.rear_from``). Returns (the points and Moves
    looked at, those that differ, the Moves along a mirror line among them, the Moves along a mirror line in all).

    Along a mirror line: a Move whose both ends are fixed by the symmetry (on a card that mirrors). There blue's unit
    at the image point with the image rear stands exactly where red's stands, so no rule of the unit's frame alone
    maps its formation (a tied pair of spots, one on each side of the line, and one model left to set): the tie goes
    to the side of the player's own Entry Edge (``Placing._lateral_first``), which the card maps onto the other
    player's. ``world``, ``menus``: a World of ``scn`` and the menus built on it (built here if not given)."""
    world = World(scn) if world is None else world
    menus = build_menus(scn, world) if menus is None else menus
    f = symmetry_map(card["symmetry"], card["width"], card["depth"])

    def fixed(p: tuple[float, float]) -> bool:
        return math.dist(f(*p), p) < 1e-6

    looked = differ = irreducible = irreducible_all = 0
    for uid, m in menus.items():
        if m.player != "red":
            continue
        su, sb = scn.units[uid], scn.units[f"blue-{uid}"]
        points = sorted({e.to for e in m["movement"] if e.to is not None})
        cases = [(q, world.rear_of("red"), world.rear_of("blue"), False) for q in points]
        for q in points:
            for p in points:
                if p != q and math.dist(p, q) <= su.speed:
                    fp, fq = f(*p), f(*q)
                    rb = (fp[0] - fq[0], fp[1] - fq[1])
                    ra = (p[0] - q[0], p[1] - q[1])
                    cases.append((q, ra, rb, fixed(p) and fixed(q)))
                    # the automatic players' Moves: the rear rounded to a compass heading (the plan's ``headings``)
                    heads = (nearest_heading(ra, HEADINGS), nearest_heading(rb, HEADINGS))
                    cases.append((q, *heads, fixed(p) and fixed(q)))
        for q, ra, rb, stuck in cases:
            a = world.place(su, q, ra, ())
            b = world.place(sb, f(*q), rb, ())
            if a is None or b is None:
                bad = (a is None) != (b is None)
            else:
                mapped = sorted(tuple(round(v, 3) for v in f(*c)) for c in world.placements[a].centres)
                bad = mapped != sorted(tuple(round(v, 3) for v in c) for c in world.placements[b].centres)
            looked += 1
            differ += bad
            irreducible += bad and stuck
            irreducible_all += stuck
    return looked, differ, irreducible, irreducible_all


@pytest.mark.parametrize(("card", "preset"), MIRRORED)
def test_formations_map_onto_each_other(tmp_path: Path, card: str, preset: str) -> None:
    """8.5.3 step 2 on a mirror match, every card that swaps the players and its presets: a unit's models set round
    its Leading Model (a Deploy at a menu point; a Move between menu points) are, mapped by the card's symmetry, the
    other player's at the image point (the grid and its ties laid in the unit's own frame, towards the table's
    centre; on a centre line, along the card's mirror line; on the mirror line itself, along it, the side of the
    player's Entry Edge: ``Placing._grid_order``). None differs, the Moves along a mirror line included
    (``_placements_differ``: 12 of 1,288-3,116 Moves per preset on Char Plains, Acropolis and Breach, which differed
    before session 12; none on a rotate-180 card)."""
    scn, world, menus = built(tmp_path, card, preset, "terran_six.toml")
    c = next(x for x in CARDS if x["name"] == card)
    looked, differ, on_line, on_line_all = _placements_differ(scn, c, world, menus)
    assert differ == 0, (looked, differ, on_line)
    if c["symmetry"] == "rotate-180":
        assert on_line_all == 0
    if card in ("Char Plains", "Acropolis", "Breach"):
        assert on_line_all > 0, looked  # the Moves along the mirror line were looked at
    assert looked > 1000


def test_a_formation_on_a_mirror_line_maps_by_the_players_side(tmp_path: Path) -> None:
    """On Char Plains (mirror-y) a unit moving along the mirror line y = 18 is its own image, and its formation (the
    Marines' six models: a tied pair of spots, one on each side of the line, for the last model) is not its own
    mirror image: the tie goes to the side of the player's own Entry Edge, so red's formation maps onto blue's at the
    same point (before session 12 it went to the unit's left-hand side, the same for both, and did not); the Leading
    Model off the line by a tenth of an inch, or the unit crossing the line, map as before."""
    scn = board(tmp_path, "Char Plains", "open", "terran_six.toml")
    world = World(scn)
    f = symmetry_map("mirror-y", 36, 36)
    uid = next(u for u, su in scn.units.items() if su.player == "red" and su.models % 2 == 0)
    su, sb = scn.units[uid], scn.units[f"blue-{uid}"]

    def mapped(lead: tuple[float, float], rear: tuple[float, float]) -> bool:
        a, b = world.place(su, lead, rear, ()), world.place(sb, f(*lead), (rear[0], -rear[1]), ())
        assert a is not None and b is not None
        mine = sorted(tuple(round(v, 3) for v in f(*c)) for c in world.placements[a].centres)
        return mine == sorted(tuple(round(v, 3) for v in c) for c in world.placements[b].centres)

    assert mapped((12.0, 18.0), (-1.0, 0.0))
    assert mapped((12.0, 18.0), (1.0, 0.0))
    a = world.place(su, (12.0, 18.0), (-1.0, 0.0), ())
    assert a is not None
    ys = sorted(round(c[1] - 18.0, 3) for c in world.placements[a].centres)
    assert sum(ys) != 0  # not its own mirror image: the tie was broken, to one side
    assert mapped((12.0, 18.1), (-1.0, 0.0))
    assert mapped((12.0, 18.0), (0.0, -1.0))  # across the line: the tie goes along the mirror line
