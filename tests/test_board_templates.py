"""Blast and Flamer templates on the board (rulebook 8.7.6 Template Weapons, part 11 SPILLOVER, FAQ v1.0 item 9)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from mathhammer.board import load_board
from mathhammer.board.model import Board, Model, Terrain, Unit
from mathhammer.board.templates import (
    BlastTemplate,
    FlamerTemplate,
    place_template,
    template_batches,
)
from mathhammer.dice import SDice
from mathhammer.errors import InputError
from mathhammer.starcraft.compiled import compile_batch
from mathhammer.starcraft.model import Target, Weapon

GOLDEN = Path(__file__).parent / "golden" / "board" / "template_zerglings.toml"
CANNON = Weapon.build(
    "Crucio Shock Cannon",
    roa=1,
    hit=4,
    damage=2,
    surge="Light:1",
    keywords=["BUFF RoA (1)", "PRECISION (1)", "CRITICAL HIT (1)"],
)
LINGS = "Light,Biological,Ground"


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board(GOLDEN)


def test_blast_over_zergling_cluster_affects_the_covered_models(board: Board) -> None:
    """8.7.6 step 1 (BT centred on the Target Point, the centre of the target base) and step 3 ("Its base is
    partially or fully covered"): a 3" Blast on z1 covers z1-z4; z5 (2.12") and z6 (3") are outside."""
    res = template_batches(board, "tank", "z1", CANNON, "blast", primary_tags=LINGS)
    assert res.primary == "lings" and res.level == "ground"
    assert res.affected["lings"] == ("z1", "z2", "z3", "z4")
    assert res.target_point == (20.0, 15.0)
    assert res.polygon.centroid.distance(Point(20, 15)) < 1e-9
    assert math.isclose(res.polygon.area, math.pi * 1.5**2, rel_tol=1e-3)


def test_blast_cover_is_exact_at_the_edge() -> None:
    """8.7.6 step 3, "partially or fully covered": overlap counts, touching the template edge does not."""
    r = 25 / 25.4 / 2
    attacker = Unit("a", "p1", (Model("a", 2, 2),))
    near = Model("near", 10 + 1.5 + r - 1e-3, 10)
    touch = Model("touch", 10, 10 - 1.5 - r)
    target = Unit("t", "p2", (Model("t", 10, 10), near, touch))
    res = template_batches(Board(30, 30, units=(attacker, target)), "a", "t", CANNON)
    assert res.affected["t"] == ("t", "near")


def test_main_target_batch_dice_and_fixed_surge(board: Board) -> None:
    """8.7.6 steps 4-5 and FAQ v1.0 item 9: Main target dice = affected models (4) + RoA modifiers (BUFF RoA 1);
    no Surge Die: the Surge result is fixed at the number of affected models (S Dice "4"), applied when the
    Surge Type (Light) matches; PRECISION and CRITICAL HIT stay on the Main target."""
    res = template_batches(board, "tank", "z1", CANNON, "blast", primary_tags=LINGS)
    main = res.main
    assert main is not None and main.models == 1
    assert main.weapon.roa == 4 and main.weapon.surge_dice == SDice(0, 1, 4) and main.weapon.surge_tags == ("Light",)
    assert {k.name for k in main.weapon.keywords} == {"BUFF", "PRECISION", "CRITICAL HIT"}
    compiled = compile_batch(main, Target.build(6, 1, armour=6, tags=LINGS))
    assert int(compiled.n_dice.sum()) == 5
    assert compiled.surge == SDice(0, 1, 4) and compiled.precision == 1 and compiled.critical == 1
    off_type = compile_batch(main, Target.build(6, 1, armour=6, tags="Armoured,Ground"))
    assert off_type.surge is None  # 8.7.4 step 2: no matching Surge Type, no Surge


def test_spillover_onto_a_unit_sharing_a_combat_tag_only(board: Board) -> None:
    """8.7.6 step 2 ("Every other model (Friendly or Enemy) covered ... is resolved under Spillover, provided they
    share the same elevation and Combat Tag as the Primary target") and FAQ v1.0 item 9 (one Batch per unit,
    sharing a Combat Tag): the Roaches share Biological; the friendly Widow Mine, tagged Mechanical only, shares
    none and takes no Spillover."""
    tags = {"roaches": "Armoured,Biological", "mine": "Mechanical"}
    res = template_batches(board, "tank", "z1", CANNON, "blast", primary_tags="Light,Biological", unit_tags=tags)
    assert set(res.spillover) == {"roaches"}
    assert res.affected == {"lings": ("z1", "z2", "z3", "z4"), "roaches": ("r1",)}
    assert res.unaffected == {"w1": "no-shared-tag"}
    assert any("'mine'" in n for n in res.notes)
    assert [b.label for b in res.batches] == [
        "Crucio Shock Cannon (Main target)",
        "Crucio Shock Cannon (Spillover: roaches)",
    ]


def test_friendly_spillover_when_tags_are_shared(board: Board) -> None:
    """Part 11 SPILLOVER: "Spillover may affect both Friendly and Enemy Units"; with no tags given every unit is
    Ground (a Combat Tag, part 11), so the friendly Widow Mine shares one with the Zerglings."""
    res = template_batches(board, "tank", "z1", CANNON, "blast")
    assert set(res.spillover) == {"roaches", "mine"}
    assert res.spillover["mine"].weapon.roa == 1


def test_spillover_batches_are_plain(board: Board) -> None:
    """8.7.6 step 4 ("Do not apply Rate of Attack modifiers. Do not apply Surge") and FAQ v1.0 item 9 (no
    PRECISION or CRITICAL HIT): the Roach Batch has one die, no S Dice, and keeps only the other keywords."""
    weapon = Weapon.build(
        "Cannon",
        hit=4,
        surge="Light,Armoured:D3",
        keywords=[
            "BUFF RoA (1)",
            "DEBUFF RoA (1)",
            "PRECISION (1)",
            "CRITICAL HIT (2)",
            "BUFF Hit (1)",
            'BURST FIRE 30" (2)',
        ],
    )
    res = template_batches(board, "tank", "z1", weapon, "blast")
    spill = res.spillover["roaches"]
    assert spill.weapon.roa == 1 and spill.weapon.surge_dice is None and spill.weapon.surge_tags == ()
    assert [str(k) for k in spill.weapon.keywords] == ["BUFF Hit (1)"]
    compiled = compile_batch(spill, Target.build(1, 2, armour=3, tags="Armoured,Biological,Ground"))
    assert int(compiled.n_dice.sum()) == 1
    assert compiled.surge is None and compiled.precision == 0 and compiled.critical == 0
    main = compile_batch(res.main, Target.build(6, 1, tags="Light,Ground"))  # type: ignore[arg-type]
    assert int(main.n_dice.sum()) == 4 + 1 - 1 + 2  # BUFF, DEBUFF, BURST FIRE (tank 13.4" away, Within 30")


def _wall_board(size: int) -> Board:
    wall = Terrain("wall", ((20.6, 12), (21.3, 12), (21.3, 18), (20.6, 18)), size=size)
    attacker = Unit("tank", "terran", (Model("tank", 5, 15, base_mm=60, size=3),))
    lings = Unit("lings", "zerg", (Model("z1", 20, 15), Model("z2", 21.9, 15), Model("z3", 20, 16.5)))
    return Board(44, 30, terrain=(wall,), units=(attacker, lings))


def test_size_2_wall_blocks_a_model_behind_it() -> None:
    """8.7.6 step 3: "A line traced from the target model's base (BT) ... to the model's base is not blocked by
    terrain piece (Size 2+)": z2 is covered (1.9" from the Target Point) but behind a Size 2 wall; a Size 1
    piece does not block."""
    res = template_batches(_wall_board(2), "tank", "z1", CANNON)
    assert res.affected["lings"] == ("z1", "z3") and res.unaffected == {"z2": "blocked"}
    assert res.main is not None and res.main.weapon.roa == 2
    low = template_batches(_wall_board(1), "tank", "z1", CANNON)
    assert low.affected["lings"] == ("z1", "z2", "z3")


def test_stacked_pieces_block_by_effective_size() -> None:
    """8.7.6 step 3 ("terrain piece (Size 2+)") read with 7.1.2 Stacking Terrain (Effective Size = own Size plus
    the pieces under it): a Size 1 crate on a Size 1 deck blocks the line to the Zergling behind it."""
    deck = Terrain("deck", ((20.55, 13), (21.35, 13), (21.35, 17), (20.55, 17)), size=1, surface=True)
    crate = Terrain("crate", ((20.6, 13.5), (21.3, 13.5), (21.3, 16.5), (20.6, 16.5)), size=1, stands_on="deck")
    attacker = Unit("tank", "terran", (Model("tank", 5, 15, base_mm=60, size=3),))
    lings = Unit("lings", "zerg", (Model("z1", 20, 15), Model("z2", 21.9, 15)))
    res = template_batches(Board(44, 30, terrain=(deck, crate), units=(attacker, lings)), "tank", "z1", CANNON)
    assert res.unaffected == {"z2": "blocked"}
    alone = template_batches(Board(44, 30, terrain=(deck,), units=(attacker, lings)), "tank", "z1", CANNON)
    assert alone.affected["lings"] == ("z1", "z2")


def test_target_beyond_range_is_noted() -> None:
    """8.7.3 step 1 (the target must be Within the weapon's Range, measured base to base): the engine rolls no
    Main target dice for a model beyond Range, and the result says so."""
    board = load_board(GOLDEN)
    short = Weapon.build("Short", hit=4, range=6, surge="Light:1")
    res = template_batches(board, "tank", "z1", short)
    assert any("beyond" in n for n in res.notes)
    assert res.main is not None and int(compile_batch(res.main, Target.build(6, 1)).n_dice.sum()) == 0


def _platform_board() -> Board:
    platform = Terrain("platform", ((21.5, 10), (28, 10), (28, 20), (21.5, 20)), size=2, surface=True)
    attacker = Unit("tank", "terran", (Model("tank", 5, 15, base_mm=60, size=3),))
    ground = Unit("lings", "zerg", (Model("z1", 20, 15), Model("z3", 20, 16.5)))
    up = Unit(
        "hydras", "zerg", (Model("h1", 21.9, 15, stands_on="platform"), Model("h2", 22.9, 15, stands_on="platform"))
    )
    return Board(44, 30, terrain=(platform,), units=(attacker, ground, up))


def test_same_elevation_rule() -> None:
    """8.7.6 step 1: "Templates affect only models at the same elevation level as the Target Point": a Blast on a
    GROUND LEVEL Zergling does not affect a Hydralisk on the Size 2 platform (MID GROUND) it covers, and a Blast on
    that Hydralisk affects only MID GROUND models."""
    board = _platform_board()
    low = template_batches(board, "tank", "z1", CANNON)
    assert low.affected == {"lings": ("z1", "z3")} and low.unaffected == {"h1": "level"}
    high = template_batches(board, "tank", "h1", CANNON)
    assert high.level == "mid" and high.affected == {"hydras": ("h1", "h2")}
    assert high.unaffected == {"z1": "level"}


def _air_board() -> Board:
    attacker = Unit("tank", "terran", (Model("tank", 5, 15, base_mm=60, size=3),))
    lings = Unit("lings", "zerg", (Model("z1", 20, 15), Model("z2", 21, 15)))
    mutas = Unit(
        "mutas",
        "zerg",
        (Model("m1", 20, 16.6, base_mm=40, flying=True), Model("m2", 21.6, 17, base_mm=40, flying=True)),
    )
    return Board(44, 30, units=(attacker, lings, mutas))


def test_flying_models_unaffected_by_a_ground_level_template() -> None:
    """8.7.6 step 1: "Flying models are not on any elevation level for template purposes. A template set at GROUND
    LEVEL does not affect Flying models": even with Target: All, the covered Mutalisk is not affected."""
    for target in ("All", "Ground"):
        res = template_batches(_air_board(), "tank", "z1", CANNON, weapon_target=target)
        assert res.affected == {"lings": ("z1", "z2")} and set(res.spillover) == set()
        assert res.unaffected["m1"] == "level"


def test_template_on_a_flying_model_needs_target_all_or_flying() -> None:
    """8.7.6 step 1: "a template cannot be set on a Flying model's elevation level, unless the template weapon has
    Target: ALL or Target: Flying"; set there, it affects Flying models only (not the Zerglings below)."""
    with pytest.raises(InputError, match="Flying model's level"):
        template_batches(_air_board(), "tank", "m1", CANNON, weapon_target="Ground")
    res = template_batches(_air_board(), "tank", "m1", CANNON, weapon_target="Flying")
    assert res.level == "flying" and res.affected == {"mutas": ("m1", "m2")}
    assert res.unaffected["z1"] == "level"
    with pytest.raises(InputError, match="Flying model"):
        template_batches(_air_board(), "tank", "z1", CANNON, weapon_target="Flying")


def test_flamer_narrow_end_flush_with_attacker_base_and_aimed_at_target() -> None:
    """8.7.6 step 1: "FT: The narrow end must be flush with the attacking model's base edge and aimed at the
    target": the narrow edge is tangent to the attacker's base at the point facing the target centre, the template
    touches but does not cover the attacker's base, and its axis runs through the Target Point."""
    hellion = Model("h", 5, 10, base_mm=50)
    target = Model("z", 11, 13)
    board = Board(44, 30, units=(Unit("hellion", "terran", (hellion,)), Unit("lings", "zerg", (target,))))
    ft = FlamerTemplate()
    poly = place_template(hellion, target, "flamer", flamer=ft)
    d = math.dist(hellion.centre, target.centre)
    u = ((target.x - hellion.x) / d, (target.y - hellion.y) / d)
    flush = (hellion.x + u[0] * hellion.radius, hellion.y + u[1] * hellion.radius)
    assert poly.distance(Point(flush)) < 1e-9
    assert math.isclose(poly.distance(Point(hellion.centre)), hellion.radius, abs_tol=1e-9)
    assert poly.intersection(hellion.base).area < 1e-9
    assert poly.contains(Point(target.centre))
    # the narrow edge: 0.75" wide, perpendicular to the aim, centred on the flush point
    corners = [c for c in poly.exterior.coords if Point(c).distance(Point(flush)) < ft.narrow / 2 + 1e-9]
    assert len({(round(x, 9), round(y, 9)) for x, y in corners}) == 2
    # 8" long along the aim; symmetric about the axis through the Target Point
    far = max(((x - flush[0]) * u[0] + (y - flush[1]) * u[1]) for x, y in poly.exterior.coords)
    assert math.isclose(far, ft.length, abs_tol=1e-3)
    c = poly.centroid
    assert abs((c.x - hellion.x) * u[1] - (c.y - hellion.y) * u[0]) < 1e-4
    res = template_batches(board, "h", "z", CANNON, "flamer")
    assert res.polygon.equals(poly) and res.affected == {"lings": ("z",)}


def test_flamer_traces_from_the_attacker_base() -> None:
    """8.7.6 step 3: for a Flamer the line is traced from the "Attacking Model's base": a Zergling behind a Size 2
    wall across the cone is not affected, one in front is."""
    wall = Terrain("wall", ((9, 8), (9.3, 8), (9.3, 12), (9, 12)), size=2)
    hellion = Unit("hellion", "terran", (Model("h", 5, 10, base_mm=50),))
    lings = Unit("lings", "zerg", (Model("z1", 7.5, 10), Model("z2", 11, 10)))
    board = Board(44, 30, terrain=(wall,), units=(hellion, lings))
    res = template_batches(board, "h", "z1", CANNON, "flamer")
    assert res.affected == {"lings": ("z1",)} and res.unaffected == {"z2": "blocked"}


def test_flamer_falling_short_has_no_main_batch() -> None:
    """8.7.6 step 4: the Main target gets "a number of Attack Dice equal to the number of Affected models": an 8"
    Flamer aimed at a model 12" away covers none of it, so there is no Main target Batch."""
    hellion = Unit("hellion", "terran", (Model("h", 5, 10, base_mm=50),))
    lings = Unit("lings", "zerg", (Model("z1", 18, 10),))
    res = template_batches(Board(44, 30, units=(hellion, lings)), "h", "z1", CANNON, "flamer")
    assert res.main is None and res.batches == () and res.notes


def test_refusals_and_sizes() -> None:
    """8.7.6 step 2: "select one Enemy Unit as the Primary target"; template sizes must be positive."""
    board = load_board(GOLDEN)
    with pytest.raises(InputError, match="Enemy"):
        template_batches(board, "tank", "w1", CANNON)
    with pytest.raises(InputError):
        template_batches(board, "tank", "z1", CANNON, "cone")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        template_batches(board, "tank", "z1", CANNON, weapon_target="Air")
    with pytest.raises(InputError):
        BlastTemplate(diameter=0)
    with pytest.raises(InputError):
        FlamerTemplate(narrow=3, wide=2)
    big = template_batches(board, "tank", "z1", CANNON, blast=BlastTemplate(diameter=5))
    assert big.affected["lings"] == ("z1", "z2", "z3", "z4", "z5")


@settings(max_examples=40, deadline=None)
@given(st.floats(0.5, 6), st.floats(-3, 3), st.floats(-3, 3))
def test_blast_affects_exactly_the_overlapping_bases(diameter: float, dx: float, dy: float) -> None:
    """8.7.6 step 3 on an open board: a Ground model is affected exactly when its base overlaps the circle."""
    r = 25 / 25.4 / 2
    other = Model("o", 20 + dx, 15 + dy)
    if math.dist(other.centre, (20, 15)) < 2 * r:
        return
    board = Board(44, 30, units=(Unit("a", "p1", (Model("a", 2, 2),)), Unit("t", "p2", (Model("t", 20, 15), other))))
    res = template_batches(board, "a", "t", CANNON, blast=BlastTemplate(diameter))
    gap = math.dist(other.centre, (20, 15)) - diameter / 2 - r
    if abs(gap) > 1e-6:
        assert ("o" in res.affected["t"]) == (gap < 0)
