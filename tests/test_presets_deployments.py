"""Deployment Cards' layouts and our terrain presets (issue 29 point 1): every card in ``profiles/missions.toml``
has its picture's markers and zones, the engine's Entry Edges and at least one terrain preset; each preset is a
valid battlefield, symmetric under the card's own symmetry; a scenario may give the card alone; ``board show
--deployment`` draws it and ``board presets`` lists it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import Point, Polygon
from typer.testing import CliRunner

from mathhammer.board.cspace import blocks_path
from mathhammer.cli import app
from mathhammer.cli.board_presets import preset_board
from mathhammer.profiles.loader import builtin_dir
from mathhammer.scenario import check_scenario
from mathhammer.scenario.loader import deployment_cards, load_scenario
from mathhammer.scenario.missions import CatalogError, load
from mathhammer.scenario.missions.deployments import symmetry_map
from mathhammer.scenario.spec import MARKER_COLOUR, ScenarioError

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
CARDS = deployment_cards()
SWAP = {"red": "blue", "blue": "red", "neutral": "neutral"}


def card(name: str) -> dict[str, Any]:
    return next(c for c in CARDS if c["name"] == name)


def test_every_deployment_has_markers_edges_zones_and_a_standard_preset() -> None:
    assert len(CARDS) == 10
    for c in CARDS:
        assert c["markers"] and set(c["entry_edges"]) == {"red", "blue"}, c["name"]
        assert {z["player"] for z in c["zones"]} == {"red", "blue"}, c["name"]
        assert "standard" in [p["name"] for p in c["presets"]], c["name"]
        assert all("our layout, not the card's" in p["note"] for p in c["presets"]), c["name"]
        assert "SCENARIO CARDS" in c["source"] and "p. " in c["source"], c["name"]


def test_the_readings_of_the_pictures() -> None:
    """A few values read off the card pictures (docs/scenario.md, Deployment presets), pinned against a slip."""
    gauntlet = {m["number"]: (m["x"], m["y"]) for m in card("Gauntlet")["markers"]}
    assert gauntlet == {1: (12, 24), 2: (42, 12), 3: (36, 24), 4: (18, 12), 5: (27, 18)}
    proving = card("Proving Grounds")
    assert {(z["player"], z["x0"], z["x1"], z["y0"], z["y1"]) for z in proving["zones"]} == {
        ("red", 0, 6, 0, 36),
        ("red", 48, 54, 0, 36),
        ("blue", 18, 36, 30, 36),
    }
    assert [m["number"] for m in card("Char Plains")["markers"]] == [1, 2, 5]
    assert {m["number"]: (m["x"], m["y"]) for m in card("Char Plains")["markers"]}[5] == (24, 18)
    exact = sorted(c["name"] for c in CARDS if c["edges_exact"])
    assert exact == ["Abandoned Camp", "Breach", "Gauntlet"]


@pytest.mark.parametrize("name", [c["name"] for c in CARDS])
def test_every_preset_is_a_valid_board_around_the_markers(name: str) -> None:
    c = card(name)
    for preset in c["presets"]:
        board, _ = preset_board(name, preset["name"])
        assert (board.width, board.depth) == (c["width"], c["depth"])
        assert len(board.terrain) == len(preset["terrain"]) >= 3
        assert {t.size for t in board.terrain} <= {1, 2, 3}
        for m in c["markers"]:
            assert 0 <= m["x"] <= c["width"] and 0 <= m["y"] <= c["depth"]
            for t in board.terrain:
                if blocks_path(t):
                    assert not t.polygon.intersects(Point(m["x"], m["y"]).buffer(3)), (name, preset["name"], t.id)
        zones = [Polygon.from_bounds(z["x0"], z["y0"], z["x1"], z["y1"]) for z in c["zones"]]
        for t in board.terrain:
            assert t.polygon.within(Polygon.from_bounds(0, 0, c["width"], c["depth"]))
            assert all(t.polygon.distance(z) >= 1 for z in zones), (name, preset["name"], t.id)


def _corners(footprint: list[list[float]]) -> frozenset[tuple[float, float]]:
    return frozenset((round(x, 6), round(y, 6)) for x, y in footprint)


@pytest.mark.parametrize("name", [c["name"] for c in CARDS])
def test_markers_zones_and_presets_keep_the_cards_symmetry(name: str) -> None:
    """The card's symmetry maps its markers (red onto blue where it swaps the players) and zones onto themselves,
    and each terrain preset onto itself piece by piece (same Size): a mirror match on a preset is fair."""
    c = card(name)
    f = symmetry_map(c["symmetry"], c["width"], c["depth"])
    swap = SWAP if c["swaps_players"] else {k: k for k in SWAP}
    markers = {(MARKER_COLOUR[m["number"]], (m["x"], m["y"])) for m in c["markers"]}
    assert {(swap[col], f(*xy)) for col, xy in markers} == markers

    def box(z: dict[str, Any]) -> tuple[str, float, float, float, float]:
        (ax, ay), (bx, by) = f(z["x0"], z["y0"]), f(z["x1"], z["y1"])
        return (swap[z["player"]], min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))

    zones = {(z["player"], z["x0"], z["y0"], z["x1"], z["y1"]) for z in c["zones"]}
    assert {box(z) for z in c["zones"]} == zones
    for preset in c["presets"]:
        pieces = {(t["size"], _corners(t["footprint"])) for t in preset["terrain"]}
        mapped = {(s, frozenset(f(x, y) for x, y in corners)) for s, corners in pieces}
        assert mapped == pieces, (name, preset["name"])


def test_a_broken_symmetry_is_seen() -> None:
    """The symmetry check fails on a layout that is not symmetric (a piece moved by 1")."""
    c = card("Gauntlet")
    f = symmetry_map(c["symmetry"], c["width"], c["depth"])
    pieces = {(t["size"], _corners(t["footprint"])) for t in c["presets"][0]["terrain"]}
    size, corners = next(iter(pieces))
    moved = (pieces - {(size, corners)}) | {(size, frozenset((x + 1, y) for x, y in corners))}
    assert {(s, frozenset(f(x, y) for x, y in cs)) for s, cs in moved} != moved


# ---- scenario files --------------------------------------------------------------------------------------------

CARD_ONLY = """
[mission]
card = "Frontlines"

[deployment]
card = "Proving Grounds"

[players.red]
army = "terran_six.toml"

[players.blue]
army = "zerg_six.toml"
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_scenario_with_the_card_only_gets_the_cards_layout_and_the_standard_preset(tmp_path: Path) -> None:
    scn = load_scenario(write(tmp_path, CARD_ONLY))
    c = card("Proving Grounds")
    assert [(m.number, m.x, m.y) for m in scn.deployment.markers] == [
        (m["number"], m["x"], m["y"]) for m in c["markers"]
    ]
    assert dict(scn.deployment.entry_edges) == c["entry_edges"]
    standard = next(p for p in c["presets"] if p["name"] == "standard")
    assert sorted(t.id for t in scn.board.terrain) == sorted(t["id"] for t in standard["terrain"])
    assert "Proving Grounds" in scn.deployment.source
    assert check_scenario(scn) == []


def test_terrain_preset_by_name_and_with_markers_by_hand(tmp_path: Path) -> None:
    scn = load_scenario(write(tmp_path, 'terrain = "preset:open"\n' + CARD_ONLY))
    assert len(scn.board.terrain) == len(
        next(p for p in card("Proving Grounds")["presets"] if p["name"] == "open")["terrain"]
    )
    by_hand = CARD_ONLY.replace(
        'card = "Proving Grounds"',
        'card = "Proving Grounds"\nentry_edges = { red = "south", blue = "north" }\n'
        "markers = [{ number = 5, x = 27, y = 18 }]",
    )
    scn = load_scenario(write(tmp_path, 'terrain = "preset:open"\n' + by_hand))
    assert [(m.number, m.x, m.y) for m in scn.deployment.markers] == [(5, 27, 18)]
    assert scn.board.terrain  # the preset, with markers by hand
    assert not load_scenario(write(tmp_path, by_hand)).board.terrain  # by hand, no terrain key: none, as before
    assert not load_scenario(write(tmp_path, "terrain = []\n" + CARD_ONLY)).board.terrain


def test_shipped_scenarios_keep_their_own_layout() -> None:
    scn = load_scenario(builtin_dir() / "scenarios" / "standard_clash.toml")
    assert "crater-west" in {t.id for t in scn.board.terrain}
    assert (scn.deployment.markers[0].x, scn.deployment.markers[0].y) == (14, 11)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda t: t.replace('card = "Proving Grounds"', 'card = "Proving Grounds"\nzone_depth = 8'),
            "s.toml: deployment.zone_depth: got 8; allowed: only with markers and entry_edges by hand",
        ),
        (
            lambda t: t.replace(
                'card = "Proving Grounds"', 'card = "Proving Grounds"\nmarkers = [{ number = 1, x = 3, y = 3 }]'
            ),
            "s.toml: deployment.entry_edges: missing; required with deployment.markers (both by hand)",
        ),
        (
            lambda t: t.replace(
                'card = "Proving Grounds"', 'card = "Proving Grounds"\nentry_edges = { red = "south", blue = "north" }'
            ),
            "s.toml: deployment.markers: missing; required with deployment.entry_edges (both by hand)",
        ),
        (
            lambda t: 'terrain = "preset:dense"\n' + t,
            "s.toml: terrain: got 'preset:dense'; allowed: [[terrain]] tables, or a terrain preset of Proving Grounds: "
            '"preset:standard", "preset:open"',
        ),
        (lambda t: 'terrain = "standard"\n' + t, "s.toml: terrain: got 'standard'; allowed: [[terrain]] tables, or"),
    ],
)
def test_conflicting_or_unknown_layout_fields_are_refused_in_one_line(tmp_path: Path, edit: Any, expected: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, edit(CARD_ONLY)))
    assert len(err.value.problems) == 1, err.value.problems
    assert err.value.problems[0].startswith(expected), err.value.problems


def test_terrain_tables_and_a_preset_in_one_file_are_refused(tmp_path: Path) -> None:
    text = 'terrain = "preset:open"\n' + CARD_ONLY + '\n[[terrain]]\nid = "x"\nfootprint = [[1, 1], [2, 1], [2, 2]]\n'
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, text))])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: s.toml: not valid TOML"), lines


def test_scenario_check_accepts_the_card_only_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, CARD_ONLY))])
    assert result.exit_code == 0, result.output
    assert "Proving Grounds" in result.stdout


def test_the_docs_example_passes_scenario_check(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"^```toml card-only\n(.*?)^```$", text, flags=re.S | re.M)
    assert 'terrain = "preset:open"' in example
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, example))])
    assert result.exit_code == 0, result.output


# ---- the catalog's checks -----------------------------------------------------------------------------------------


def edited_catalog(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / "missions.toml"
    shutil.copy(builtin_dir() / "missions.toml", path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "{ number = 1, x = 6, y = 18 }",
            "{ number = 1, x = 40, y = 18 }",
            "missions.toml: deployments[0].markers[0]: got (40.0, 18.0); allowed: a point on the 36x36 battlefield",
        ),
        (
            '{ id = "ruin-1a", size = 3, footprint = [[16.5, 7.5]',
            '{ id = "ruin-1a", size = 3, footprint = [[5, 17], [7, 17], [7, 19], [5, 19]], x = [[16.5, 7.5]',
            "missions.toml: deployments[0].presets[0].terrain[0].x: unknown key",
        ),
        (
            '{ id = "ruin-1a", size = 3, footprint = [[16.5, 7.5], [19.5, 7.5], [19.5, 10.5], [16.5, 10.5]] }',
            '{ id = "ruin-1a", size = 3, footprint = [[5, 17], [7, 17], [7, 19], [5, 19]] }',
            "missions.toml: deployments[0].presets[0].terrain: 'ruin-1a' covers Mission Marker 1 at (6.0, 18.0)",
        ),
        ('name = "open"', 'name = "standard"', "missions.toml: deployments[0].presets[1].name: got 'standard' twice"),
        ('symmetry = "rotate-180"', 'symmetry = "spin"', "missions.toml: deployments[0].symmetry: got 'spin'"),
        (
            'entry_edges = { red = "south", blue = "north" }',
            'entry_edges = { red = "south", blue = "south" }',
            "missions.toml: deployments[0].entry_edges: got {'red': 'south', 'blue': 'south'}",
        ),
    ],
)
def test_a_bad_layout_in_the_catalog_is_one_line_naming_the_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    with pytest.raises(CatalogError) as err:
        load(edited_catalog(tmp_path, old, new))
    assert any(p.startswith(expected) for p in err.value.problems), err.value.problems


# ---- board show --deployment, board presets -------------------------------------------------------------------------


def test_board_show_draws_a_preset(tmp_path: Path) -> None:
    out = tmp_path / "pg.png"
    result = runner.invoke(
        app, ["board", "show", "--deployment", "proving grounds", "--terrain", "open", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--deployment", "Provng"], "error: --deployment: got 'Provng'; allowed: a Deployment Card: Abandoned Camp"),
        (["--deployment", "Breach", "--terrain", "dense"], "error: --terrain: got 'dense'; allowed: a terrain preset"),
        (["--terrain", "open"], "error: --terrain: got 'open'; allowed: only with --deployment CARD"),
        ([], "error: FILE: missing; required: a board FILE, or --deployment CARD"),
        (["--deployment", "Breach", "--attacker", "a", "--target", "b"], "error: --attacker/--target: got 'a'"),
        (["BOARD", "--deployment", "Breach"], "error: --deployment: got 'Breach'; allowed: a board FILE or"),
    ],
)
def test_board_show_refusals(tmp_path: Path, args: list[str], expected: str) -> None:
    board = ROOT / "tests" / "golden" / "board"
    args = [str(next(board.glob("*.toml"))) if a == "BOARD" else a for a in args]
    out = tmp_path / "x.png"
    result = runner.invoke(app, ["board", "show", *args, "--out", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), lines
    assert not out.exists()


def test_board_presets_lists_every_card_and_its_presets() -> None:
    result = runner.invoke(app, ["board", "presets"])
    assert result.exit_code == 0, result.output
    for c in CARDS:
        assert f"{c['name']} ({c['scale']}, {c['width']}x{c['depth']})" in result.stdout
    assert result.stdout.count("preset:standard") == len(CARDS)
    result = runner.invoke(app, ["board", "presets", "--deployment", "gauntlet", "--json"])
    assert result.exit_code == 0, result.output
    (dep,) = json.loads(result.stdout)["deployments"]
    assert dep["name"] == "Gauntlet" and dep["entry_edges"] == {"red": "north", "blue": "south"}


def test_the_engines_entry_edges_keep_the_cards_symmetry() -> None:
    """Where the card swaps the players, its symmetry maps red's engine Entry Edge onto blue's (a fair mirror
    match); Proving Grounds maps each player onto itself and is left out. Each edge is one the player's zones touch."""
    for c in CARDS:
        w, d = c["width"], c["depth"]
        mids = {"south": (w / 2, 0), "north": (w / 2, d), "west": (0, d / 2), "east": (w, d / 2)}
        edge_at = {xy: e for e, xy in mids.items()}
        f = symmetry_map(c["symmetry"], w, d)
        if c["swaps_players"]:
            assert edge_at[f(*mids[c["entry_edges"]["red"]])] == c["entry_edges"]["blue"], c["name"]
        for player, edge in c["entry_edges"].items():
            side = {"south": ("y0", 0), "north": ("y1", d), "west": ("x0", 0), "east": ("x1", w)}[edge]
            assert any(z[side[0]] == side[1] for z in c["zones"] if z["player"] == player), (c["name"], player)
