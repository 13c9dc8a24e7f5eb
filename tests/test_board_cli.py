"""The board on the command line: the Combat Phase (8.8.1, 8.7.5) and templates (8.7.6).

Golden boards: tests/golden/board/combat_*.toml and template_zerglings.toml (each cites its rule).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.board import load_board
from mathhammer.board.combat import combat_facts
from mathhammer.cli import app

runner = CliRunner()
GOLDEN = Path(__file__).parent / "golden" / "board"
COMBAT = str(GOLDEN / "combat_zealots_marines.toml")
WALL = str(GOLDEN / "combat_wall.toml")
TEMPLATE = str(GOLDEN / "template_zerglings.toml")
FIGHT = ["attack", "Zealot", "Marine", "--board", COMBAT, "--attacker-unit", "zealots", "--target-unit", "marines"]


# -- Combat Phase: 8.8.1 step 2 (ranks), 8.7.5 (casualties) -----------------------------------


def test_combat_facts_ranks_and_casualty_order() -> None:
    """8.8.1 step 2: z1 is in the Fighting Rank (Within 1" of m1 and m3), z3 in the Supporting Rank (touches z1),
    z2 in neither. 8.7.5: tier 1 (not Within Engagement Range) first, then tier 2 (m3), then tier 3 (m1,
    Base-to-Base); m1 and m3 both hold the engagement, so neither is a lone anchor."""
    f = combat_facts(load_board(COMBAT), "zealots", "marines")
    assert f.eligible and f.fighting == ("z1",) and f.supporting == ("z3",) and f.not_striking == ("z2",)
    assert f.casualty_tiers == (("m2", "m4", "m5", "m6"), ("m3",), ("m1",))
    assert f.casualty_order == ("m2", "m4", "m5", "m6", "m3", "m1")


def test_combat_on_the_board_only_ranks_strike() -> None:
    """8.8.1 step 2 ("Determine which models may strike: Fighting Rank ... Supporting Rank") and step 3 ("Use only
    Combat Phase weapons"): two of three Zealots strike with Psi Blades, the same numbers as two Zealots off the
    board; every Marine may be removed (8.7.5: an Engaged unit ignores visibility)."""
    res = runner.invoke(app, [*FIGHT, "--phase", "combat", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    board = out["loadout"]["board"]
    assert board["models_rolling"] == {"Psi Blades": 2}
    assert board["fighting_rank"] == ["z1"] and board["supporting_rank"] == ["z3"] and board["not_striking"] == ["z2"]
    assert board["striking"] == ["z1", "z3"] and board["removable"] == 6
    assert board["casualty_order"] == ["m2", "m4", "m5", "m6", "m3", "m1"]
    assert board["casualty_tiers"] == {"1": ["m2", "m4", "m5", "m6"], "2": ["m3"], "3": ["m1"]}
    off = runner.invoke(app, ["attack", "Zealot", "Marine", "--phase", "combat", "--attacker-models", "2", "--json"])
    assert off.exit_code == 0, off.output
    assert out["damage"] == json.loads(off.stdout)["damage"]
    text = runner.invoke(app, [*FIGHT, "--phase", "combat"])
    assert text.exit_code == 0 and "Fighting Rank: z1; Supporting Rank: z3; not striking: z2" in text.stdout


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["attack", "Zealot", "Marine", "--board", WALL, "--attacker-unit", "zealots", "--target-unit", "marines"],
         "--board"),  # 7.2.1: no Engagement through a Size 2+ wall, so no Close Combat Attack (8.8.1)
        ([*FIGHT, "--attacker-models", "2"], "--attacker-models"),
        ([*FIGHT, "--range", "3"], "--range"),
        ([*FIGHT, "--target-state", "models=4"], "--target-state models"),
        ([*FIGHT, "--target-visible", "2"], "--target-visible"),
    ],
)  # fmt: skip
def test_combat_board_bad_input(args: list[str], flag: str) -> None:
    res = runner.invoke(app, [*args, "--phase", "combat"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"error: {flag}:") and res.stderr.count("\n") == 1 and not res.stdout
    assert "Traceback" not in res.output


# -- Templates: 8.7.6 ----------------------------------------------------------------------------

TPL = ["board", "template", TEMPLATE, "--attacker", "tank", "--target", "lings"]


def test_template_blast_on_a_named_model() -> None:
    """8.7.6 steps 2-5: a 3" Blast on z1 covers z1-z4 (the Main target: 4 dice, Surge result 4), the Roach
    (Spillover, 1 die, no Surge) and the tank's own Friendly unit (Spillover may hit Friendly units)."""
    res = runner.invoke(app, [*TPL, "--template", "blast", "--at", "z1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["affected"] == {"lings": ["z1", "z2", "z3", "z4"], "roaches": ["r1"], "mine": ["w1"]}
    assert [(b["unit"], b["role"], b["dice"], b["surge_result"]) for b in out["batches"]] == [
        ("lings", "main", 4, 4),
        ("roaches", "spillover", 1, None),
        ("mine", "spillover", 1, None),
    ]
    assert out["target_point"] == {"model": "z1", "x": 20.0, "y": 15.0} and out["sizes"] == {"diameter": 3.0}


def test_template_best_placement_avoids_friendly_models() -> None:
    """Without --at, the placement affecting the most Primary target models wins, then the fewest Friendly
    models (8.7.6 step 1: the template is centred on a target model's base)."""
    res = runner.invoke(app, [*TPL, "--template", "blast", "--json"])
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["target_point"]["model"] == "z4"
    assert out["affected"]["lings"] == ["z1", "z2", "z3", "z4", "z5"] and "mine" not in out["affected"]
    text = runner.invoke(app, [*TPL, "--template", "blast"])
    assert text.exit_code == 0 and "lings (Main target): z1, z2, z3, z4, z5 -> 5 dice" in text.stdout


def test_template_weapon_from_a_card_and_range() -> None:
    """8.7.6 step 2 ("Follow standard Target Eligibility (Part 8.7.3)"): the target model must be Within Range;
    the Autocannon's LONG RANGE (18") lets the tank set it on z1 13.3" away; the 12" C-14 Rifle cannot.
    No S Dice on the Autocannon: no Surge result."""
    ok = runner.invoke(app, [*TPL, "--template", "blast", "--at", "z1", "--card", "Goliath", "--weapon", "Autocannon"])
    assert ok.exit_code == 0, ok.output
    assert "4 dice, no Surge" in ok.stdout and "LONG RANGE" in ok.stdout
    far = runner.invoke(app, [*TPL, "--template", "blast", "--at", "z1", "--card", "Marine", "--weapon", "C-14 Rifle"])
    assert far.exit_code == 2 and far.stderr.startswith("error: --at:") and "Within Range" in far.stderr


def test_template_flamer_sizes() -> None:
    """8.7.6 step 1 (FT: the narrow end flush with the attacker's base, aimed at the target); sizes are flags."""
    res = runner.invoke(app, [*TPL, "--template", "flamer", "--length", "20", "--at", "z1", "--json"])
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["sizes"] == {"length": 20.0, "narrow": 0.75, "wide": 2.0}
    assert out["attacker_model"] == "tank" and "z1" in out["affected"]["lings"]


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--template", "cone"], "--template"),
        (["--template", "blast", "--length", "3"], "--length"),
        (["--template", "flamer", "--diameter", "3"], "--diameter"),
        (["--template", "flamer", "--wide", "0.5"], "--wide"),
        (["--template", "blast", "--diameter", "0"], "--diameter"),
        (["--template", "blast", "--at", "w1"], "--at"),
        (["--template", "blast", "--attacker-model", "z1"], "--attacker-model"),
        (["--template", "blast", "--tags", "lings"], "--tags"),
        (["--template", "blast", "--weapon", "Autocannon"], "--card"),
        (["--template", "blast", "--card", "Marine", "--weapon", "Nope"], "--weapon"),
        (["--template", "blast", "--weapon-target", "Air"], "--weapon-target"),
    ],
)
def test_template_bad_input(extra: list[str], flag: str) -> None:
    res = runner.invoke(app, [*TPL, *extra])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"error: {flag}:") and res.stderr.count("\n") == 1 and not res.stdout
    assert "Traceback" not in res.output


def test_template_bad_units() -> None:
    """8.7.6 step 2: the Primary target is an Enemy unit."""
    res = runner.invoke(
        app, ["board", "template", TEMPLATE, "--attacker", "tank", "--target", "mine", "--template", "blast"]
    )
    assert res.exit_code == 2 and res.stderr.startswith("error: --target:")
    res = runner.invoke(
        app, ["board", "template", TEMPLATE, "--attacker", "tank", "--target", "x", "--template", "blast"]
    )
    assert res.exit_code == 2 and res.stderr.startswith("error: --target:")
    res = runner.invoke(
        app, ["board", "template", TEMPLATE, "--attacker", "x", "--target", "lings", "--template", "blast"]
    )
    assert res.exit_code == 2 and res.stderr.startswith("error: --attacker:")


def test_board_help_names_the_commands() -> None:
    res = runner.invoke(app, ["board", "--help"])
    assert res.exit_code == 0
    for word in ("los", "template", "charge", "show", "8.7.6"):
        assert word in res.stdout


def test_combat_facts_elevation_and_flying_refused() -> None:
    """7.2.1: "Models on HIGH GROUND cannot Engage models on GROUND LEVEL" (so no Close Combat Attack, 8.8.1);
    FLYING: "A Flying Unit cannot participate in the Combat Phase"."""
    from mathhammer.board import Board, Model, Terrain, Unit

    cliff = Terrain("cliff", ((20, 10), (26, 10), (26, 20), (20, 20)), size=3, surface=True)
    z = Unit("z", "protoss", (Model("z1", 19, 15, base_mm=25.4),))
    m = Unit("m", "terran", (Model("m1", 20.6, 15, base_mm=25.4, stands_on="cliff"),))
    f = combat_facts(Board(44, 30, (cliff,), (z, m)), "z", "m")
    assert not f.eligible and "not Engaged" in f.refusals[0] and f.strikers == ()
    air = Unit("m", "terran", (Model("m1", 20.1, 15, base_mm=25.4, flying=True),))
    f = combat_facts(Board(44, 30, (), (z, air)), "z", "m")
    assert not f.eligible and "Flying" in f.refusals[0]


def test_combat_facts_two_enemy_units_noted() -> None:
    """8.8.1 FIGHTING MULTIPLE UNITS: the player may split the dice; here all go to the asked target (a note)."""
    from mathhammer.board import Board, Model, Unit

    z = Unit("z", "protoss", (Model("z1", 10, 15, base_mm=25.4),))
    a = Unit("a", "terran", (Model("a1", 11.02, 15, base_mm=25.4),))
    b = Unit("b", "terran", (Model("b1", 8.98, 15, base_mm=25.4),))
    f = combat_facts(Board(44, 30, (), (z, a, b)), "z", "a")
    assert f.eligible and f.fighting == ("z1",) and any("also Engaged with b" in n for n in f.notes)
