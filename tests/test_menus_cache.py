"""The automatic players' menus kept by the scenario's content (scenario/players/menucache.py): two loads of one file
share them, and a change to anything the menus read gives the menus built for it, never those of the other content
(docs/dev/automatic-players.md, "Menus, not free coordinates": the same scenario, the same menus)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from mathhammer.scenario.loader import load_scenario
from mathhammer.scenario.players import menu as menu_module
from mathhammer.scenario.players import menucache
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.menu import UnitMenu, build_menus
from mathhammer.scenario.players.menucache import content, menus_for, menus_key
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import World
from tests.autoplay_kit import scenario

FILE = Path(__file__).resolve().parents[1] / "profiles" / "scenarios" / "hold_position_crossing.toml"


@pytest.fixture(autouse=True)
def _empty() -> None:
    menucache.forget()


def _same_entries(a: dict[str, UnitMenu], b: dict[str, UnitMenu]) -> bool:
    """Every Phase's entries the very same tuple (kept, not built again)."""
    return list(a) == list(b) and all(a[u].phases[p] is b[u].phases[p] for u in a for p in a[u].phases)


def test_two_loads_of_one_file_share_the_menus() -> None:
    one, two = load_scenario(FILE), load_scenario(FILE)
    assert one is not two and menus_key(one) == menus_key(two) is not None
    first = menus_for(one, World(one))
    again = menus_for(two, World(two))
    assert again == build_menus(two, World(two))  # what a build gives
    assert _same_entries(first, again)  # and not built again
    # each caller has its own dicts: what one does to them reaches no other
    first["marine-1"].phases["movement"] = ()
    del first["zergling-1"]
    assert menus_for(two, World(two)) == again


def test_a_simulation_s_players_read_the_kept_menus(tmp_path: Path) -> None:
    """Two Simulations of the kit's scenario, another game length and policy (neither read by the menus): the
    automatic players of the second read the menus the first built."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    sims = [
        Simulation(scenario(tmp_path / "a", length=3), 2, 1),
        Simulation(scenario(tmp_path / "b", length=5, red="objective"), 2, 1),
    ]
    autos = [p for sim in sims for p in sim.players if isinstance(p, Auto)]
    assert len(autos) == 4
    menus = []
    for auto in autos:
        auto.legality  # noqa: B018 (builds or finds the menus)
        menus.append(auto._menus)
    assert all(_same_entries(menus[0], m) for m in menus[1:])
    assert menus[0] == build_menus(sims[1].scn, sims[1].world)


def _moved_piece(scn: Scenario) -> Scenario:
    """The first terrain piece of Size 2+ one inch east."""
    k = next(i for i, t in enumerate(scn.board.terrain) if t.size >= 2)
    t = scn.board.terrain[k]
    moved = dataclasses.replace(t, footprint=tuple((x + 1.0, y) for x, y in t.footprint))
    terrain = (*scn.board.terrain[:k], moved, *scn.board.terrain[k + 1 :])
    return dataclasses.replace(scn, board=dataclasses.replace(scn.board, terrain=terrain))


def _faster_card(scn: Scenario) -> Scenario:
    """The first unit's card with a Speed one more."""
    uid, su = next(iter(scn.units.items()))
    card = su.unit.card
    speed = (card.speed[0] + 1, *card.speed[1:])
    unit = dataclasses.replace(su.unit, card=card.model_copy(update={"speed": speed}))
    changed = dataclasses.replace(su, loadout=dataclasses.replace(su.loadout, unit=unit))
    assert changed.speed == su.speed + 1
    return dataclasses.replace(scn, units={**scn.units, uid: changed})


def _swapped_edges(scn: Scenario) -> Scenario:
    """The two players' Entry Edges swapped."""
    edges = scn.deployment.entry_edges
    dep = scn.deployment.model_copy(update={"entry_edges": {"red": edges["blue"], "blue": edges["red"]}})
    return dataclasses.replace(scn, deployment=dep)


def _moved_marker(scn: Scenario) -> Scenario:
    """Mission Marker 5 two inches east."""
    markers = [m.model_copy(update={"x": m.x + 2.0}) if m.number == 5 else m for m in scn.deployment.markers]
    return dataclasses.replace(scn, deployment=scn.deployment.model_copy(update={"markers": markers}))


CHANGES: dict[str, Callable[[Scenario], Scenario]] = {
    "terrain piece moved": _moved_piece,
    "unit card changed": _faster_card,
    "entry edges swapped": _swapped_edges,
    "marker moved": _moved_marker,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_the_menus_read_gives_its_own_menus(change: str) -> None:
    """Each change alters the menus a build gives; the menus handed out after the original's were kept are the
    changed scenario's own (a key that left the change out would hand out the original's)."""
    scn = load_scenario(FILE)
    before = menus_for(scn, World(scn))
    other = CHANGES[change](scn)
    built = build_menus(other, World(other))
    assert built != before  # the change reaches the menus
    assert menus_key(other) != menus_key(scn)
    assert menus_for(other, World(other)) == built
    assert menus_for(scn, World(scn)) == before  # both kept


def test_the_menu_settings_are_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """:data:`~mathhammer.scenario.players.menu.MOVE_ABILITIES` switched off (the tests' switch): the menus without
    the Movement Phase abilities, not the kept ones with them."""
    scn = load_scenario(FILE)
    on = menus_for(scn, World(scn))
    monkeypatch.setattr(menu_module, "MOVE_ABILITIES", False)
    off = menus_for(scn, World(scn))
    assert off == build_menus(scn, World(scn))
    assert any(e.use for m in on.values() for e in m["movement"])  # Stimpack on the Marines' Moves
    assert not any(e.use for m in off.values() for e in m["movement"])


def test_a_world_of_other_content_gets_menus_built_on_it() -> None:
    """A Simulation handed a World of another scenario: the menus are built on that World, and not kept under the
    scenario's key."""
    scn = load_scenario(FILE)
    other = _moved_piece(scn)
    world = World(other)
    got = menus_for(scn, world)
    assert got == build_menus(scn, world)
    assert menus_for(scn, World(scn)) == build_menus(scn, World(scn)) != got


def test_at_most_kept_menus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(menucache, "KEPT", 2)
    scn = load_scenario(FILE)
    for make in (lambda s: s, _moved_marker, _moved_piece):
        s = make(scn)
        menus_for(s, World(s))
    assert len(menucache._KEPT) == 2
    assert menus_key(scn) not in menucache._KEPT  # the least recently used dropped


def test_content_is_exact_and_refuses_what_it_cannot_read() -> None:
    assert content(1.0) != content(1.0 + 2**-52)  # the nearest other double
    assert content((1, "1")) != content(("1", 1))
    assert content({"a": 1.0}) != content({"a": 1}) != content({"a": True})

    class Slotted:
        __slots__ = ("x",)

    with pytest.raises(menucache.UnkeyedError):
        content(Slotted())
