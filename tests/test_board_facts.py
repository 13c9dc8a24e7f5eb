"""Attack facts read off the board (mathhammer.board.facts) and the ``board`` CLI group.

Each test cites the rule it checks (rulebook seed 003; FAQ v1.0 in /work/shared/rules/README.md).
Boards: tests/golden/board/facts_*.toml, or a few models built inline.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mathhammer.board import Board, Model, Unit, load_board
from mathhammer.board.facts import attack_facts
from mathhammer.cli.board import register
from mathhammer.errors import InputError
from mathhammer.starcraft.model import Batch

GOLDEN = Path(__file__).parent / "golden" / "board"


@pytest.fixture(scope="module")
def ranged() -> Board:
    return load_board(GOLDEN / "facts_range.toml")


@pytest.fixture(scope="module")
def melee() -> Board:
    return load_board(GOLDEN / "facts_engaged.toml")


@pytest.fixture(scope="module")
def cliff() -> Board:
    return load_board(GOLDEN / "facts_high_ground.toml")


# --- 8.7.3 step 1: only models Within Range of a Visible target model roll -----------------------
def test_only_in_range_models_with_a_visible_target_contribute(ranged: Board) -> None:
    # 8.7.3 step 1: "Only models Within Range to at least one Visible model from the target Unit
    # contribute dice". m3 cannot see z2 (Size 3 wall, Full Cover) and z1 is 22.34" away.
    facts = attack_facts(ranged, "marines", "zerglings", 12)
    by = {m.model: m for m in facts.models}
    assert by["m1"].nearest == "z1" and by["m1"].distance == pytest.approx(11.016)
    assert "z2" not in by["m3"].sees
    assert by["m3"].nearest == "z1" and by["m3"].band == "out" and not by["m3"].contributes
    assert by["m2"].band == "out"  # 14.636" > 12" without LONG RANGE
    assert facts.distances == (11.016,)
    assert facts.eligible


def test_distance_is_to_the_nearest_visible_model_not_the_nearest_model(ranged: Board) -> None:
    # 8.7.3 step 1 "Within Range to at least one ... Visible model": z2 is 11.016" from m3 but hidden.
    facts = attack_facts(ranged, "marines", "zerglings", 23)
    m3 = next(m for m in facts.models if m.model == "m3")
    assert m3.nearest == "z1" and m3.distance == pytest.approx(22.34) and m3.band == "normal"


def test_distances_feed_a_batch(ranged: Board) -> None:
    from mathhammer.starcraft.model import Weapon

    facts = attack_facts(ranged, "marines", "zerglings", 12, long_range=18)
    weapon = Weapon.build("C-14", range=12, roa=2, hit=4, damage=1)
    batch = Batch(weapon, models=len(facts.distances), distances=facts.distances, visible=facts.removable)
    assert batch.models == 2 and batch.visible == 2


def test_no_range_limit_means_every_seeing_model_rolls(ranged: Board) -> None:
    facts = attack_facts(ranged, "marines", "zerglings", None)
    assert [m.band for m in facts.models] == ["normal", "normal", "normal"]


# --- LONG RANGE (X) and BURST FIRE ------------------------------------------------------------------
def test_long_range_groups(ranged: Board) -> None:
    # LONG RANGE (X): "Measure each attacking model's distance to the target individually";
    # beyond profile Range but Within X": -1 to Hit, rolled as a separate group.
    facts = attack_facts(ranged, "marines", "zerglings", 12, long_range=18)
    assert facts.normal_range == ("m1",)
    assert facts.long_range == ("m2",)
    assert facts.distances == (11.016, 14.636)
    assert next(m for m in facts.models if m.model == "m3").band == "out"


def test_burst_fire_per_model(ranged: Board) -> None:
    # BURST FIRE Y" (X): "against a target Within Y" of the attacking model".
    facts = attack_facts(ranged, "marines", "zerglings", 12, long_range=18, burst_within=12)
    assert facts.burst == ("m1",)
    facts = attack_facts(ranged, "marines", "zerglings", 12, long_range=18, burst_within=15)
    assert facts.burst == ("m1", "m2")


# --- casualties: FAQ v1.0, 8.7.4 step 5 -----------------------------------------------------------
def test_removable_counts_models_visible_to_any_attacking_model(ranged: Board) -> None:
    # FAQ v1.0: "models out of a weapon's range may be removed as casualties if visible to any
    # attacking model"; 8.7.4 step 5: "cannot remove more models than the number of Visible models".
    facts = attack_facts(ranged, "marines", "zerglings", 12)
    assert [m.model for m in facts.contributing] == ["m1"]
    assert facts.removable_models == ("z1", "z2")  # z2 is 22.34" from m1, out of range, but Visible to it
    assert facts.removable == 2  # z3 is behind the rampart


# --- INDIRECT FIRE -------------------------------------------------------------------------------
def test_indirect_fire_one_visible_model_puts_the_whole_unit_in_sight(ranged: Board) -> None:
    # FAQ v1.0: "INDIRECT FIRE: one visible model puts the whole unit in line of sight (no Evade,
    # all models removable)"; part 11: "may ignore Line of Sight ... The target must still be Within Range".
    facts = attack_facts(ranged, "marines", "zerglings", 12, indirect=True)
    m3 = next(m for m in facts.models if m.model == "m3")
    assert m3.nearest == "z2" and m3.band == "normal"  # range to the unseen z2 counts
    assert facts.removable_models == ("z1", "z2", "z3")
    assert not facts.evade_eligible


def test_indirect_fire_out_of_sight() -> None:
    # INDIRECT FIRE: "If the target is not within Line of Sight, it may make an Evade Roll".
    board = load_board(GOLDEN / "facts_indirect.toml")
    direct = attack_facts(board, "tank", "marines", 24)
    assert not direct.eligible and direct.removable == 0
    assert any("Visible target model" in r for r in direct.refusals)
    facts = attack_facts(board, "tank", "marines", 24, indirect=True)
    assert facts.eligible
    assert facts.removable == 2
    assert facts.evade_reasons == ("indirect-out-of-sight",)
    assert not attack_facts(board, "tank", "marines", 5, indirect=True).eligible  # still needs range


# --- Evade: Engaged and shot at (8.7.4 step 4), HIDDEN, BURROWED ------------------------------------
def test_engaged_target_may_evade_and_ignores_visibility(melee: Board) -> None:
    # 8.7.4 step 4: "The target is Engaged and is suffering Damage from a Ranged Attack";
    # 8.7.5: "When the target Unit is Engaged, ignore standard Visibility rules".
    facts = attack_facts(melee, "marines", "hydras", 24, pinpoint=True)
    assert facts.target_engaged and facts.eligible
    assert facts.evade_reasons == ("engaged",)
    assert facts.removable == 4


def test_hidden_and_burrowed_evade() -> None:
    # HIDDEN: "cannot be selected as the target ... unless the acting model is Within 4"";
    # "may make an Evade Roll against every attack targeting it". BURROWED: "has the HIDDEN Status";
    # "may make an Evade Roll against every attack targeting them".
    a = Unit("a", "p1", (Model("a1", 5, 5), Model("a2", 20, 5)))
    t = Unit("t", "p2", (Model("t1", 8, 5),), hidden=True)
    board = Board(44, 30, units=(a, t))
    facts = attack_facts(board, "a", "t", 24)
    assert facts.evade_reasons == ("hidden",)
    assert [m.band for m in facts.models] == ["normal", "no-target"]  # a2 is 11" away: no sight
    plain = Board(44, 30, units=(a, Unit("t", "p2", (Model("t1", 8, 5),))))
    facts = attack_facts(plain, "a", "t", 24, target_tags=("Burrowed",))
    assert facts.evade_reasons == ("burrowed",)
    assert [m.band for m in facts.models] == ["normal", "no-target"]


def test_indirect_fire_does_not_lift_hidden() -> None:
    # HIDDEN: "cannot be selected as the target of a Ranged Attack ... unless the acting model is
    # Within 4"" -- any Ranged Attack, so INDIRECT FIRE (which only ignores Line of Sight) too.
    a = Unit("a", "p1", (Model("a1", 5, 5),))
    t = Unit("t", "p2", (Model("t1", 15, 5),), hidden=True)
    facts = attack_facts(Board(44, 30, units=(a, t)), "a", "t", 24, indirect=True)
    assert not facts.eligible and facts.models[0].band == "no-target"


# --- HIGH GROUND Cover (7.1.3) --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("attacker", "target", "evade"),
    [
        ("low", "up", True),  # all models on Size 3 terrain, shot from GROUND LEVEL
        ("high", "up", False),  # attackers on the HIGH GROUND too: not "from a lower elevation"
        ("mixed", "up", True),  # "at least one model of the attacking Unit isn't standing on the HIGH GROUND"
        ("vikings", "up", False),  # "Ranged Attacks made by Flying Units never originate from the lower elevation"
        ("low", "half-up", False),  # "If all models of a Unit are standing on HIGH GROUND"
        ("low", "mutas", False),  # "Flying Units never benefit from HIGH GROUND Cover"
        ("low", "ledge-unit", False),  # Size 2: MID GROUND, not HIGH GROUND
    ],
)
def test_high_ground_cover(cliff: Board, attacker: str, target: str, evade: bool) -> None:
    facts = attack_facts(cliff, attacker, target, None)
    assert ("high-ground" in facts.evade_reasons) is evade


# --- target eligibility refusals (8.7.3 step 1, PINPOINT, BULKY) ------------------------------------
def test_weapon_target_must_match_combat_tag(cliff: Board) -> None:
    # 8.7.3 step 1: "The target's Combat Tag matches the weapon's target characteristic".
    assert not attack_facts(cliff, "low", "mutas", None, weapon_target="Ground").eligible
    assert attack_facts(cliff, "low", "mutas", None, weapon_target="Flying").eligible
    assert not attack_facts(cliff, "low", "up", None, weapon_target="Flying").eligible
    assert not attack_facts(cliff, "low", "up", None, target_tags=("Flying",), weapon_target="Ground").eligible
    with pytest.raises(InputError):
        attack_facts(cliff, "low", "up", None, weapon_target="Space")


def test_unengaged_attacker_cannot_target_engaged_unit_without_pinpoint(melee: Board) -> None:
    # 8.7.3 step 1: "An Unengaged attacking Unit cannot select an Engaged Unit as a target";
    # PINPOINT: "may target Engaged Enemy Units".
    facts = attack_facts(melee, "marines", "hydras", 24)
    assert not facts.eligible and any("PINPOINT" in r for r in facts.refusals)
    assert attack_facts(melee, "marines", "hydras", 24, pinpoint=True).eligible


def test_engaged_attacker_only_targets_units_it_is_engaged_with(melee: Board) -> None:
    # 8.7.3 step 1: "An Engaged attacking Unit may only target the Unit(s) it is currently Engaged
    # with"; FAQ v1.0: "PINPOINT shoots into melee, not out of it".
    assert attack_facts(melee, "zealots", "hydras", 12).eligible
    out = attack_facts(melee, "zealots", "marines", 24, pinpoint=True)
    assert not out.eligible and out.attacker_engaged


def test_indomitable_shoots_out_of_melee_and_is_shot_into_it(melee: Board) -> None:
    # Goliath Indomitable (card sheet): "While Engaged, this Unit may target and be targeted by Unengaged Enemy
    # Units. In both cases, the defending Unit gains an Evade Roll against those attacks."
    out = attack_facts(melee, "zealots", "marines", 24, attacker_indomitable=True)
    assert out.eligible and out.attacker_engaged and "indomitable" in out.evade_reasons
    assert not attack_facts(melee, "zealots", "marines", 24, target_indomitable=True).eligible  # the other unit's
    into = attack_facts(melee, "marines", "hydras", 24, target_indomitable=True)
    assert into.eligible and {"engaged", "indomitable"} <= set(into.evade_reasons)
    assert not attack_facts(melee, "marines", "hydras", 24, attacker_indomitable=True).eligible
    # between two Engaged units (8.7.3 step 1 as before): nothing changes, no Evade from Indomitable
    both = attack_facts(melee, "zealots", "hydras", 12, attacker_indomitable=True, target_indomitable=True)
    assert both.eligible and "indomitable" not in both.evade_reasons
    assert "indomitable" not in attack_facts(melee, "marines", "hydras", 24, pinpoint=True).evade_reasons


def test_bulky_cannot_fire_while_engaged(melee: Board) -> None:
    # BULKY: "cannot be used to make a Ranged Attack while the Unit is currently Engaged".
    facts = attack_facts(melee, "zealots", "hydras", 12, bulky=True)
    assert not facts.eligible and any("BULKY" in r for r in facts.refusals)
    assert attack_facts(melee, "marines", "hydras", 24, bulky=True, pinpoint=True).eligible


def test_no_visible_model_in_range_and_own_side(ranged: Board) -> None:
    # 8.7.3 step 1: "At least one Visible model from the target Unit is Within the weapon's maximum Range".
    facts = attack_facts(ranged, "marines", "zerglings", 5)
    assert not facts.eligible and facts.distances == () and facts.removable == 0
    assert not attack_facts(ranged, "marines", "marines", 12).eligible
    with pytest.raises(InputError):
        attack_facts(ranged, "marines", "nobody", 12)
    with pytest.raises(InputError):
        attack_facts(ranged, "marines", "zerglings", -1)


# --- 8.7.5 casualty priority ---------------------------------------------------------------------
def test_casualty_priority_tiers(melee: Board) -> None:
    # 8.7.5: "Priority 1: Models not Within the Engagement Range of any Enemy Unit. Priority 2: Models
    # Within the Engagement Range but not in Base-to-Base contact. Priority 3: Models in Base-to-Base
    # contact with an Enemy model."
    facts = attack_facts(melee, "marines", "hydras", 24, pinpoint=True)
    assert facts.casualty_tiers == (("h3",), ("h2", "h4"), ("h1",))
    assert facts.anchors == {"stalker": ("h4",), "zealots": ("h1", "h2")}


def test_never_break_an_engagement_while_another_valid_casualty_exists(melee: Board) -> None:
    # 8.7.5: "cannot choose a model if removing it would cause the Unit to stop being Engaged with a
    # specific Enemy Unit - provided there is another valid casualty in any priority tier".
    facts = attack_facts(melee, "marines", "hydras", 24, pinpoint=True)
    assert facts.next_casualties() == ("h3",)
    assert facts.next_casualties(["h3"]) == ("h2",)  # h4 alone holds the Stalker
    # h1 now alone holds the Zealots, h4 the Stalker: "may choose either the last A or B".
    assert facts.next_casualties(["h3", "h2"]) == ("h4", "h1")
    assert facts.next_casualties(["h1", "h2", "h3", "h4"]) == ()


def test_unengaged_target_has_everything_in_tier_one(ranged: Board) -> None:
    facts = attack_facts(ranged, "marines", "zerglings", 12)
    assert facts.casualty_tiers == (("z1", "z2", "z3"), (), ())
    assert facts.next_casualties() == ("z1", "z2")


# --- CLI ------------------------------------------------------------------------------------------
runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """mathhammer"""

    register(app)
    return app


def test_cli_los_json() -> None:
    path = str(GOLDEN / "facts_range.toml")
    args = ["board", "los", path, "--attacker", "marines", "--target", "zerglings", "--range", "12"]
    result = runner.invoke(_app(), [*args, "--long-range", "18", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["distances"] == [11.016, 14.636]
    assert data["long_range"] == ["m2"] and data["removable"] == 2 and data["eligible"] is True
    result = runner.invoke(_app(), [*args, "--indirect", "--json"])
    assert json.loads(result.stdout)["removable_models"] == ["z1", "z2", "z3"]


def test_cli_los_text() -> None:
    path = str(GOLDEN / "facts_engaged.toml")
    result = runner.invoke(_app(), ["board", "los", path, "--attacker", "marines", "--target", "hydras"])
    assert result.exit_code == 0, result.output
    assert "not eligible" in result.stdout and "PINPOINT" in result.stdout
    assert "evade: yes (engaged)" in result.stdout
    assert "casualty priority 3: h1" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--attacker", "marines", "--target", "nobody"],
        ["--attacker", "marines", "--target", "zerglings", "--range", "far"],
        ["--attacker", "marines", "--target", "zerglings", "--weapon-target", "Space"],
    ],
)
def test_cli_los_bad_input(args: list[str]) -> None:
    result = runner.invoke(_app(), ["board", "los", str(GOLDEN / "facts_range.toml"), *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.output


def test_cli_los_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[battlefield\n")
    for path in (bad, tmp_path / "missing.toml"):
        result = runner.invoke(_app(), ["board", "los", str(path), "--attacker", "a", "--target", "b"])
        assert result.exit_code == 2 and result.stderr.startswith("error: ")
        assert result.exception is None or isinstance(result.exception, SystemExit)


HAS_PLOT = importlib.util.find_spec("mathhammer.board.plot") is not None
needs_plot = pytest.mark.skipif(not HAS_PLOT, reason="mathhammer.board.plot (plot_board) is not written yet")


@needs_plot
def test_cli_show_writes_png(tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    path = str(GOLDEN / "facts_range.toml")
    result = runner.invoke(
        _app(), ["board", "show", path, "--out", str(out), "--attacker", "marines", "--target", "zerglings"]
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.png"]  # no temporary file left


def test_cli_show_bad_input(tmp_path: Path) -> None:
    path = str(GOLDEN / "facts_range.toml")
    cases = [
        ["--out", str(tmp_path / "missing" / "b.png")],
        ["--out", str(tmp_path / "b.png"), "--attacker", "nobody", "--target", "zerglings"],
        ["--out", str(tmp_path / "b.png"), "--attacker", "marines"],
    ]
    for extra in cases:
        result = runner.invoke(_app(), ["board", "show", path, *extra])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: ") and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


@needs_plot
@pytest.mark.parametrize("name", ["taken", "board.notaformat"])
def test_cli_show_out_not_writable_leaves_nothing(tmp_path: Path, name: str) -> None:
    # --out names a folder (os.replace fails) or a format matplotlib cannot write: one error line.
    (tmp_path / "taken").mkdir()
    out = tmp_path / name
    result = runner.invoke(_app(), ["board", "show", str(GOLDEN / "facts_range.toml"), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --out") and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


@needs_plot
@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a read-only folder (not root)")
def test_cli_show_unwritable_out(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        result = runner.invoke(
            _app(), ["board", "show", str(GOLDEN / "facts_range.toml"), "--out", str(folder / "b.png")]
        )
        assert result.exit_code == 2 and result.stderr.startswith("error: --out")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)
