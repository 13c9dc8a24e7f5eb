"""The battlefield model: golden boards for the worked examples of rulebook 7.1-7.2, and rule cases.

Each test cites the rule it checks. Golden boards live in tests/golden/board/*.toml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathhammer.board import (
    Board,
    BoardError,
    Model,
    Terrain,
    Unit,
    engaged,
    engagement,
    line_of_sight,
    load_board,
    parse_board,
    visibility,
)
from mathhammer.errors import InputError

GOLDEN = Path(__file__).parent / "golden" / "board"


def rect(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def board_of(*items: Terrain | Unit, width: float = 44, depth: float = 30) -> Board:
    terrain = tuple(i for i in items if isinstance(i, Terrain))
    units = tuple(i for i in items if isinstance(i, Unit))
    return Board(width, depth, terrain, units)


def solo(model_id: str, side: str, x: float, y: float, *, hidden: bool = False, **kw: object) -> Unit:
    return Unit(model_id, side, (Model(model_id, x, y, **kw),), hidden=hidden)  # type: ignore[arg-type]


def sees(board: Board, a: str, b: str) -> bool:
    return line_of_sight(board, board.model(a), board.model(b)).visible


# --- golden boards: the rulebook's worked examples ---------------------------------------------


def test_7_1_1_goliath_and_five_marines_behind_a_size_2_wall() -> None:
    """7.1.1: "two Marines are Within 1" of the wall ... not Visible to the Goliath, and the Goliath is not
    Visible to them. The remaining three Marines are too far from the wall and are Visible normally."""
    board = load_board(GOLDEN / "goliath_marines_wall.toml")
    vis = visibility(board, "goliath", "marines")
    assert vis.matrix().tolist() == [[False, False, True, True, True]]
    for m in ("marine-1", "marine-2"):
        assert vis.sights[("goliath", m)].rule == "direct-cover"
        assert [b.piece for b in vis.sights[("goliath", m)].blocks] == ["ruined-wall"]
        assert not sees(board, m, "goliath")  # mutual
    # Full Cover fails: the wall (Size 2) is lower than the Goliath (Size 3).
    back = visibility(board, "marines", "goliath")
    assert back.matrix().ravel().tolist() == [False, False, True, True, True]


def test_7_1_1_elevation_dead_zone_and_close_quarters() -> None:
    """7.1.1 ELEVATION DEAD ZONE: a Marine on HIGH GROUND and a Zergling at GROUND LEVEL Within 1" of the base of
    the same piece, more than 3" apart: blocked both ways. CLOSE QUARTERS: Within 3" of each other (and both Within
    1" of the piece): "standard Line of Sight rules would be used instead"."""
    board = load_board(GOLDEN / "dead_zone.toml")
    assert board.elevation(board.model("marine-far")) == "high"
    for marine, ling in [("marine-far", "zergling-a"), ("marine-far", "zergling-b"), ("marine-edge", "zergling-a")]:
        assert line_of_sight(board, board.model(marine), board.model(ling)).rule == "dead-zone"
        assert line_of_sight(board, board.model(ling), board.model(marine)).rule == "dead-zone"
    assert sees(board, "marine-edge", "zergling-b") and sees(board, "zergling-b", "marine-edge")
    # A Zergling away from the foot of the cliff is seen: the cliff the Marine stands on does not block (7.1.2).
    assert sees(board, "marine-far", "zergling-c") and sees(board, "zergling-c", "marine-edge")


def test_7_1_2_stacked_terrain_marauder_roach_hydralisk() -> None:
    """7.1.2 Stacking Terrain: wall (Size 2) on HIGH GROUND (Size 3) has Effective Size 5, like the Marauder on it;
    "The Roach ... cannot make a Line of Sight with the Marauder ... the Hydralisk ... can"."""
    board = load_board(GOLDEN / "stacked_terrain.toml")
    assert board.terrain_effective_size(board.pieces["ruined-wall"]) == 5
    assert board.effective_size(board.model("marauder")) == 5
    assert line_of_sight(board, board.model("roach"), board.model("marauder")).rule == "full-cover"
    assert not sees(board, "marauder", "roach")
    assert sees(board, "hydralisk", "marauder") and sees(board, "marauder", "hydralisk")


def test_7_1_2_goliath_on_size_4_high_ground() -> None:
    """7.1.2: "the Goliath (Size 3) stands on HIGH GROUND (Size 4), increasing the Goliath's Effective Size to 7.
    The wall (Size 2) set on HIGH GROUND has an Effective Size of 6." The Goliath sees over it (no Full Cover,
    and no Direct Cover to the Goliath although it is Within 1" of the wall); a Marine on the same HIGH GROUND
    (Effective Size 6) does not. "A Marine (Size 2) on HIGH GROUND (Size 4) has an Effective Size of 6. He can see
    over Size 5 walls that would blind him at GROUND LEVEL."""
    board = load_board(GOLDEN / "goliath_high_ground.toml")
    goliath = board.model("goliath")
    assert board.effective_size(goliath) == 7
    assert board.terrain_effective_size(board.pieces["wall-on-top"]) == 6
    assert board.within_terrain(goliath, board.pieces["wall-on-top"])
    assert sees(board, "goliath", "zergling-east") and sees(board, "zergling-east", "goliath")
    assert line_of_sight(board, board.model("marine-high"), board.model("zergling-east")).rule == "full-cover"
    assert board.effective_size(board.model("marine-high")) == 6
    assert sees(board, "marine-high", "zergling-north")  # over the Size 5 wall
    assert line_of_sight(board, board.model("marine-low"), board.model("zergling-north")).rule == "full-cover"


# --- more Line of Sight rules -------------------------------------------------------------------


def test_7_1_no_blocking_terrain_in_the_way_is_visible() -> None:
    """Part 11 LINE OF SIGHT: "If the trace does not pass through any Blocking Terrain ... the target is Visible"."""
    board = board_of(
        Terrain("tower", rect(10, 10, 12, 12), size=5), solo("a", "p1", 5, 5, size=1), solo("b", "p2", 30, 5, size=1)
    )
    assert sees(board, "a", "b")


def test_7_1_any_part_of_the_base_a_sliver_round_a_wall_end_is_enough() -> None:
    """7.1: "trace ... from any part of the acting model's base to any part of the target model's base": a wall that
    hides the centres but leaves the edge of the base in view does not block."""
    wall = Terrain("wall", rect(10, 0, 10.5, 15.3), size=5)
    board = board_of(wall, solo("a", "p1", 5, 15, size=1, base_mm=25), solo("b", "p2", 16, 15, size=1, base_mm=25))
    sight = line_of_sight(board, board.model("a"), board.model("b"))
    assert sight.visible and sight.trace is not None
    assert min(sight.trace[0][1], sight.trace[1][1]) >= 15.3 - 1e-6
    taller = board_of(
        Terrain("wall", rect(10, 0, 10.5, 15.6), size=5),
        solo("a", "p1", 5, 15, size=1, base_mm=25),
        solo("b", "p2", 16, 15, size=1, base_mm=25),
    )
    assert not sees(taller, "a", "b")


def test_7_1_1_pieces_do_not_combine() -> None:
    """7.1.1: "Terrain pieces do not combine their Effective Size or proximity": two Size 2 walls in a row do not
    hide a Size 3 model far from both."""
    board = board_of(
        Terrain("w1", rect(10, 0, 10.5, 30), size=2),
        Terrain("w2", rect(14, 0, 14.5, 30), size=2),
        solo("a", "p1", 3, 15, size=3),
        solo("b", "p2", 25, 15, size=3),
    )
    assert sees(board, "a", "b")


def test_7_1_1_direct_cover_from_any_part_of_the_same_piece_faq() -> None:
    """FAQ v1.0 (Polish digest, "Direct Cover - liczy się cały element terenu"): Within 1" of any part of the same
    piece is enough; the model need not be next to the part the trace crosses. An L-shaped wall: the target is
    near the long arm, the trace crosses only the short arm."""
    ell = Terrain("ell", ((10, 5), (10.5, 5), (10.5, 14), (20, 14), (20, 14.5), (10, 14.5)), size=2)
    board = board_of(ell, solo("gol", "p1", 5, 8, size=3, base_mm=50), solo("m", "p2", 15, 12.9, size=2))
    assert board.within_terrain(board.model("m"), ell)
    assert line_of_sight(board, board.model("gol"), board.model("m")).rule == "direct-cover"


def test_7_1_1_direct_cover_needs_the_piece_as_tall_as_the_near_model() -> None:
    """7.1.1 Direct Cover: "provided the terrain piece's Effective Size is equal to or greater than the Effective Size
    of the model that is Within 1"": a Size 3 model Within 1" of a Size 2 wall is still seen."""
    wall = Terrain("wall", rect(20, 5, 20.5, 25), size=2)
    board = board_of(wall, solo("far", "p1", 5, 15, size=2), solo("near", "p2", 21.5, 15, size=3, base_mm=40))
    assert sees(board, "far", "near")


def test_7_1_1_close_quarters_across_a_wall() -> None:
    """7.1.1 CLOSE QUARTERS: both Within 1" of the same piece and Within 3" of each other: Direct Cover does not
    apply ("Resolve Line of Sight normally"); Full Cover still does."""
    low = Terrain("wall", rect(10, 0, 10.3, 30), size=2)
    board = board_of(low, solo("a", "p1", 9.3, 15, size=3, base_mm=32), solo("b", "p2", 11.2, 15, size=2))
    assert sees(board, "a", "b")
    tall = Terrain("wall", rect(10, 0, 10.3, 30), size=4)
    board = board_of(tall, solo("a", "p1", 9.3, 15, size=3, base_mm=32), solo("b", "p2", 11.2, 15, size=2))
    assert line_of_sight(board, board.model("a"), board.model("b")).rule == "full-cover"


def test_7_1_4_flying_ignores_full_cover() -> None:
    """7.1.4: "When checking Line of Sight to or from a Flying model, ignore the Full Cover rule"."""
    tower = Terrain("tower", rect(14, 10, 16, 20), size=6)
    board = board_of(tower, solo("viking", "p1", 5, 15, size=3, flying=True), solo("ling", "p2", 25, 15, size=1))
    assert sees(board, "viking", "ling") and sees(board, "ling", "viking")
    grounded = board_of(tower, solo("goliath", "p1", 5, 15, size=3), solo("ling", "p2", 25, 15, size=1))
    assert line_of_sight(grounded, grounded.model("goliath"), grounded.model("ling")).rule == "full-cover"


def test_7_1_4_flying_gets_no_direct_cover_but_obeys_the_other_models() -> None:
    """7.1.4: terrain "can never provide Direct Cover to a Flying model as the model that is Within 1" of terrain.
    However, a Flying model still obeys any Direct Cover ... that applies to the other model"."""
    wall = Terrain("wall", rect(20, 5, 20.5, 25), size=2)
    flyer_near = board_of(wall, solo("marine", "p1", 5, 15, size=2), solo("mutalisk", "p2", 21.2, 15, flying=True))
    assert sees(flyer_near, "marine", "mutalisk")
    ground_near = board_of(wall, solo("mutalisk", "p1", 5, 15, flying=True), solo("marine", "p2", 21.2, 15, size=2))
    sight = line_of_sight(ground_near, ground_near.model("mutalisk"), ground_near.model("marine"))
    assert sight.rule == "direct-cover"


def test_7_1_4_flying_effective_size_is_above_any_terrain() -> None:
    """7.1.4 / part 11 FLYING: "Terrain does not contribute to a Flying model's Effective Size" (it is above all)."""
    board = board_of(solo("v", "p1", 5, 5, flying=True, size=3))
    assert board.effective_size(board.model("v")) > 1000


def test_dead_zone_reading_for_a_flying_model_at_ground_level() -> None:
    """7.1.4: "Direct Cover and the Elevation Dead Zone rules still apply" to Flying; 2.4 note: "A Flying Unit
    standing on the playmat is at GROUND LEVEL". Reading: a Flying model on the playmat at the foot of the cliff
    is in the Dead Zone of a model on top."""
    cliff = Terrain("cliff", rect(10, 10, 16, 20), size=3, surface=True)
    board = board_of(
        cliff, solo("marine", "p1", 12, 15, size=2, stands_on="cliff"), solo("muta", "p2", 17, 15, flying=True)
    )
    assert line_of_sight(board, board.model("muta"), board.model("marine")).rule == "dead-zone"


def test_dead_zone_with_stacked_high_ground_uses_the_piece_on_the_playmat() -> None:
    """7.1.1 Dead Zone "Within 1" of the base of the same terrain piece" with stacking (7.1.2): a crate (Size 1) on a
    platform (Size 2) is HIGH GROUND (3); the foot is the platform's, since the crate has no base on the playmat."""
    platform = Terrain("platform", rect(10, 10, 16, 20), size=2, surface=True)
    crate = Terrain("crate", rect(11, 11, 13, 13), size=1, surface=True, stands_on="platform")
    board = board_of(
        platform,
        crate,
        solo("marine", "p1", 12, 12, size=2, stands_on="crate"),
        solo("ling", "p2", 16.8, 18, size=1),
        solo("ling2", "p2", 12, 21.3, size=1),
    )
    assert board.elevation(board.model("marine")) == "high"
    assert board.effective_size(board.model("marine")) == 5
    assert line_of_sight(board, board.model("marine"), board.model("ling")).blocks[0].piece == "platform"
    assert line_of_sight(board, board.model("ling2"), board.model("marine")).rule == "dead-zone"


def test_grass_blocks_sight_as_size_2() -> None:
    """Part 11 GRASS: "Grass does not block movement but does block Line of Sight, following the standard Cover
    rules (Part 7.1.1)" (Size 2): Full Cover for two Size 2 models, not against a Size 3 model far from it."""
    grass = Terrain("grass", rect(14, 5, 18, 25), size=2, grass=True)
    board = board_of(grass, solo("a", "p1", 5, 15, size=2), solo("b", "p2", 25, 15, size=2))
    assert line_of_sight(board, board.model("a"), board.model("b")).rule == "full-cover"
    board = board_of(grass, solo("a", "p1", 5, 15, size=3, base_mm=40), solo("b", "p2", 25, 15, size=2))
    assert sees(board, "a", "b")
    with pytest.raises(InputError, match="GRASS"):
        Terrain("grass", rect(0, 0, 1, 1), size=3, grass=True)


def test_tokens_never_block() -> None:
    """7.3.1: Tokens are "Terrain (Size 0)"; BLOCKING TERRAIN is Effective Size 1 or greater."""
    tumor = Terrain("tumor", rect(14, 13, 16, 17), token=True)
    board = board_of(tumor, solo("a", "p1", 5, 15, size=0), solo("b", "p2", 25, 15, size=0))
    assert sees(board, "a", "b")


def test_hidden_not_visible_beyond_4_inches() -> None:
    """Part 11 VISIBLE / HIDDEN: "A model with the HIDDEN keyword is not Visible to any model more than 4" away,
    regardless of Line of Sight." The hidden model itself still sees."""
    board = board_of(solo("a", "p1", 5, 15), solo("dt", "p2", 10, 15, hidden=True), solo("c", "p1", 14, 15))
    assert line_of_sight(board, board.model("a"), board.model("dt")).rule == "hidden"  # 4.02" apart
    assert sees(board, "c", "dt")  # 3.02"
    assert sees(board, "dt", "a")


def test_visibility_matrix_shape_and_defaults() -> None:
    """The matrix is attacking models x target models; targets default to every model of the other sides."""
    board = load_board(GOLDEN / "goliath_marines_wall.toml")
    vis = visibility(board, "terran")
    assert vis.attackers == ("goliath",)
    assert len(vis.targets) == 5
    assert vis.visible_models("goliath") == ("marine-3", "marine-4", "marine-5")
    with pytest.raises(InputError):
        visibility(board, "protoss")


# --- Engagement (7.2) ---------------------------------------------------------------------------


def test_7_2_1_engaged_within_1_inch_and_unit_level() -> None:
    """ENGAGED: "A Ground Unit is Engaged when any of its models is Within 1" ... When any model in a Unit is Engaged,
    the entire Unit is considered Engaged."""
    marines = Unit("marines", "p1", (Model("m1", 10, 10), Model("m2", 10, 14)))
    board = board_of(marines, solo("ling", "p2", 10.9, 10.9), solo("far", "p2", 30, 10))
    result = engagement(board)
    assert result.pairs == (("ling", "m1"),)
    assert result.units == {"marines", "ling"}
    assert not result.is_engaged("far")


def test_7_2_1_no_engagement_through_size_2_wall_but_through_size_1() -> None:
    """7.2.1: "Size 0-1 terrain: Engagement is possible across it. Size 2+ terrain: Models cannot Engage through it.
    Even Within 1", a Size 2+ wall between them means they are not Engaged."""
    for size, expected in [(0, True), (1, True), (2, False), (4, False)]:
        wall = Terrain("wall", rect(10, 0, 10.3, 30), size=size)
        board = board_of(wall, solo("a", "p1", 9.4, 15), solo("b", "p2", 10.9, 15))
        assert engaged(board, board.model("a"), board.model("b")) is expected, size


def test_7_2_1_wall_not_between_the_models_does_not_stop_engagement() -> None:
    """A Size 2+ piece beside the models (not between them) does not prevent Engagement."""
    wall = Terrain("wall", rect(0, 0, 30, 9.4), size=3)
    board = board_of(wall, solo("a", "p1", 10, 10), solo("b", "p2", 11.2, 10))
    assert engaged(board, board.model("a"), board.model("b"))


def test_7_2_1_grass_is_size_2_for_engagement() -> None:
    """7.2.1 names no GRASS exception: Size 2+ terrain between the models prevents Engagement (our reading)."""
    grass = Terrain("grass", rect(10, 0, 10.3, 30), size=2, grass=True)
    board = board_of(grass, solo("a", "p1", 9.4, 15), solo("b", "p2", 10.9, 15))
    assert not engaged(board, board.model("a"), board.model("b"))


def test_7_2_1_flying_never_engaged() -> None:
    """7.2.1: "Ground models Engage only Ground models. Flying models cannot be Engaged by any model."""
    board = board_of(solo("a", "p1", 10, 10), solo("b", "p2", 11, 10, flying=True), solo("c", "p2", 10, 11.1))
    assert not engaged(board, board.model("a"), board.model("b"))
    assert engagement(board).pairs == (("a", "c"),)
    flyers = board_of(solo("a", "p1", 10, 10, flying=True), solo("b", "p2", 11, 10, flying=True))
    assert engagement(flyers).pairs == ()


def test_7_2_1_same_side_never_engaged() -> None:
    """ENGAGED: "any model in an Enemy Ground Unit"."""
    board = board_of(solo("a", "p1", 10, 10), solo("b", "p1", 11, 10))
    assert engagement(board).pairs == ()


def test_7_2_1_high_ground_never_engages_ground_level() -> None:
    """7.2.1: "Models on HIGH GROUND cannot Engage models on GROUND LEVEL, and vice versa."""
    cliff = Terrain("cliff", rect(10, 10, 16, 20), size=3, surface=True, access_points=(((16, 15),),))
    board = board_of(cliff, solo("a", "p1", 15.5, 15, stands_on="cliff"), solo("b", "p2", 16.6, 15))
    assert not engaged(board, board.model("a"), board.model("b"))


def test_7_2_1_mid_ground_engages_only_through_a_shared_access_point() -> None:
    """7.2.1 / MID GROUND: "can Engage models on HIGH GROUND or GROUND LEVEL only if both models are adjacent to the
    same ACCESS POINT connecting their respective elevations."""
    ladder = (((16, 15),),)
    with_ap = Terrain("deck", rect(10, 10, 16, 20), size=2, surface=True, access_points=ladder)
    without = Terrain("deck", rect(10, 10, 16, 20), size=2, surface=True)
    for piece, expected in [(with_ap, True), (without, False)]:
        board = board_of(piece, solo("a", "p1", 15.5, 15, stands_on="deck"), solo("b", "p2", 16.6, 15))
        assert board.elevation(board.model("a")) == "mid"
        assert engaged(board, board.model("a"), board.model("b")) is expected
    ramp_top = Terrain("deck", rect(10, 10, 16, 20), size=1, surface=True, access_points=(((16, 14), (16, 16)),))
    board = board_of(ramp_top, solo("a", "p1", 15.5, 15.8, stands_on="deck"), solo("b", "p2", 16.6, 14.4))
    assert engaged(board, board.model("a"), board.model("b"))  # an ACCESS POINT given as a segment
    far_ap = Terrain("deck", rect(10, 10, 16, 20), size=2, surface=True, access_points=(((16, 11),),))
    board = board_of(far_ap, solo("a", "p1", 15.5, 15, stands_on="deck"), solo("b", "p2", 16.6, 15))
    assert not engaged(board, board.model("a"), board.model("b"))


# --- the board model and its file ---------------------------------------------------------------


def test_effective_size_and_elevation_of_stacks() -> None:
    """ELEVATION LEVEL: MID GROUND on Size 1-2, HIGH GROUND on Size 3+; EFFECTIVE SIZE: stacked terrain adds up."""
    base = Terrain("base", rect(0, 0, 10, 10), size=1, surface=True)
    top = Terrain("top", rect(2, 2, 8, 8), size=2, surface=True, stands_on="base")
    board = board_of(
        base, top, solo("a", "p1", 1, 1, size=2, stands_on="base"), solo("b", "p1", 5, 5, size=2, stands_on="top")
    )
    assert board.elevation(board.model("a")) == "mid" and board.effective_size(board.model("a")) == 3
    assert board.elevation(board.model("b")) == "high" and board.effective_size(board.model("b")) == 5


def test_board_problems_are_reported_together_naming_items() -> None:
    """Overlapping bases, a base off the table, unknown or non-surface ``stands_on``: all at once."""
    wall = Terrain("wall", rect(5, 5, 6, 6), size=2)
    with pytest.raises(BoardError) as info:
        board_of(
            wall,
            solo("a", "p1", 10, 10),
            solo("b", "p2", 10.5, 10),
            solo("c", "p2", 0.2, 10),
            solo("d", "p2", 20, 20, stands_on="nowhere"),
            solo("e", "p2", 5.5, 5.5, stands_on="wall"),
        )
    text = str(info.value)
    assert "model 'a' and model 'b': bases overlap" in text
    assert "model 'c': base off the table" in text
    assert "model 'd'.stands_on: got 'nowhere'" in text
    assert "model 'e'.stands_on: got 'wall'; allowed: a piece with surface = true" in text
    assert len(info.value.problems) == 4


def test_malformed_polygon_names_the_piece() -> None:
    with pytest.raises(InputError, match=r"terrain 'bow'.footprint: .*crosses itself"):
        Terrain("bow", ((0, 0), (1, 1), (1, 0), (0, 1)), size=2)
    with pytest.raises(InputError, match="at least 3 corners"):
        Terrain("line", ((0, 0), (1, 1)), size=2)


def test_loader_reports_every_problem_with_file_and_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        """
[battlefield]
width = 44
depth = -3

[[terrain]]
id = "bow"
size = 2
footprint = [[0, 0], [1, 1], [1, 0], [0, 1]]
colour = "red"

[[units]]
id = "u"
side = "p1"
models = [{ id = "a", x = 1, y = 1, sise = 2 }]
""",
        encoding="utf-8",
    )
    with pytest.raises(BoardError) as info:
        load_board(path)
    problems = info.value.problems
    assert any(p.startswith("bad.toml: battlefield.depth: got -3") for p in problems)
    assert any("bad.toml: terrain[0].footprint" in p and "crosses itself" in p for p in problems)
    assert any("bad.toml: terrain[0].colour: unknown key" in p for p in problems)
    assert any("bad.toml: units[0].models[0].sise: unknown key (did you mean 'size'?)" in p for p in problems)
    assert len(problems) == 4


def test_loader_semantic_problems_name_the_file() -> None:
    text = """
[battlefield]
width = 10
depth = 10
[[units]]
id = "u"
side = "p1"
models = [{ id = "a", x = 1, y = 1 }, { id = "b", x = 1.5, y = 1 }, { id = "c", x = 9.9, y = 5 }]
"""
    with pytest.raises(BoardError) as info:
        parse_board(text, "mine.toml")
    assert info.value.problems[0].startswith("mine.toml: model 'c': base off the table")
    assert "mine.toml: model 'a' and model 'b': bases overlap" in info.value.problems[1]


def test_7_1_each_trace_is_judged_per_piece_two_walls_can_cover_the_lane_together() -> None:
    """7.1 / 7.1.1: a trace is blocked when a single piece it passes through meets Full or Direct Cover; the target
    is Visible when *some* trace is unblocked. Two tall walls, each hiding half of the view, leave no trace."""
    board = board_of(
        Terrain("upper", rect(14, 15, 15, 30), size=5),
        Terrain("lower", rect(18, 0, 19, 16), size=5),
        solo("a", "p1", 5, 15, size=2),
        solo("b", "p2", 28, 15, size=2),
    )
    sight = line_of_sight(board, board.model("a"), board.model("b"))
    assert sight.rule == "full-cover"
    assert {b.piece for b in sight.blocks} == {"upper", "lower"}
    vis = visibility(board, "p1")
    assert vis.seen_by_any() == ()


def test_loader_format_example_in_the_docstring_parses() -> None:
    from mathhammer.board import loader

    block = (loader.__doc__ or "").split("::")[1].split(">>>")[0]
    board = parse_board("\n".join(line[4:] for line in block.splitlines()))
    assert board.elevation(board.model("m1")) == "high"
    assert board.pieces["cliff"].access_points == (((6.0, 2.0), (6.0, 3.0)),)


def test_golden_boards_load() -> None:
    for path in sorted(GOLDEN.glob("*.toml")):
        assert load_board(path).units, path


def test_7_1_2_effective_sizes_and_terrain_distances_are_each_boards_own() -> None:
    """7.1.2 Stacking Terrain and FAQ v1.0 (Within a piece: any part of it): the Effective Size of a piece and a
    footprint's distance to a model, which the board keeps per terrain and per footprint, are read on each board's own
    pieces (by id): a wall set on HIGH GROUND (Size 3 + 2) and a wall of the same id on the playmat (2), a footprint
    moved 5" with the model where it was, and a model 15" further along the wall, read in turn and again."""
    high = Terrain("hill", rect(0, 0, 20, 20), size=3, surface=True)
    on_hill = board_of(high, Terrain("wall", rect(5, 5, 6, 15), size=2, stands_on="hill"))
    on_mat = board_of(high, Terrain("wall", rect(5, 5, 6, 15), size=2))
    moved = board_of(high, Terrain("wall", rect(10, 5, 11, 15), size=2))
    marine, far = Model("m", 3.0, 10.0, base_mm=25.4), Model("f", 3.0, 25.0, base_mm=25.4)
    for _ in range(2):
        assert on_hill.terrain_effective_size(on_hill.pieces["wall"]) == 5
        assert on_mat.terrain_effective_size(on_mat.pieces["wall"]) == 2
        assert on_hill.terrain_effective_size(on_mat.pieces["wall"]) == 5  # read by its id on the board asked
        assert on_mat.distance_to_terrain(marine, on_mat.pieces["wall"]) == pytest.approx(1.5)
        assert moved.distance_to_terrain(marine, moved.pieces["wall"]) == pytest.approx(6.5)
        assert on_mat.within_terrain(marine, on_mat.pieces["wall"], 1.5)
        assert not moved.within_terrain(marine, moved.pieces["wall"], 1.5)
        assert on_mat.distance_to_terrain(far, on_mat.pieces["wall"]) == pytest.approx(104**0.5 - 0.5)
