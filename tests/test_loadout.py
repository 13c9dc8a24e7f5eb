"""Loadouts from the built-in cards (9.1.7) and the named-unit CLI commands."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer import run
from mathhammer.cli import app
from mathhammer.errors import InputError
from mathhammer.starcraft.loadout import as_target, attack_batches, make_loadout
from mathhammer.starcraft.roster import load_roster

runner = CliRunner()
KEYS = {"engine", "trials", "seed", "damage", "models_destroyed", "unit_destroyed", "damage_marker", "shielded_after"}


@pytest.fixture(scope="module")
def roster():
    return load_roster()


def fired(batches) -> dict[str, int]:
    return {b.weapon.name: b.models for b in batches}


def test_specialists_fire_separate_batches_9_1_7(roster) -> None:
    """9.1.7 example: 6 Marines with Rocket Launcher and AGG-12 -> 4 C-14 Rifles, 1 C-14 Rifle + Rocket
    Launcher, 1 AGG-12: Batches C-14 Rifle x5, AGG-12 x1, Rocket Launcher x1 (SIDEARM, its own Batch)."""
    lo = make_loadout(roster.unit("Marine"), 6, ["Rocket Launcher", "AGG-12"])
    batches = attack_batches(lo, roster.unit("Roach"), "assault")
    assert fired(batches) == {"C-14 Rifle": 5, "AGG-12": 1, "Rocket Launcher": 1}
    assert batches[-1].weapon.name == "Rocket Launcher"  # the SIDEARM after the main weapons


def test_replacement_applies_to_every_model(roster) -> None:
    """9.1.7: '↑ FOR [Weapon]' - every model carrying the named weapon loses it and gains the upgrade."""
    lo = make_loadout(roster.unit("Marine"), 9, ["Bayonet"])
    assert fired(attack_batches(lo, roster.unit("Zergling"), "combat")) == {"Bayonet": 9}
    assert fired(attack_batches(make_loadout(roster.unit("Marine"), 9), roster.unit("Zergling"), "combat")) == {
        "Strike": 9
    }


def test_weapon_target_characteristic(roster) -> None:
    """8.7.3 step 1: the target's Combat Tag must match the weapon's Target (Ground, Flying or All)."""
    goliath = make_loadout(roster.unit("Goliath"))
    vs_ground = fired(attack_batches(goliath, roster.unit("Zergling"), "assault"))
    assert "Hellfire Missiles" not in vs_ground and "Autocannon" in vs_ground


def test_minerals_include_upgrades(roster) -> None:
    marine = roster.unit("Marine")
    base = make_loadout(marine, 6).minerals
    assert base == next(c.minerals for c in marine.card.compositions if c.models == 6)
    agg = next(u for u in marine.card.upgrades if u.name == "AGG-12")
    assert make_loadout(marine, 6, ["AGG-12"]).minerals == base + agg.cost["6"]


def test_effects_with_conditions(roster) -> None:
    """Profile effects: Stimpack gives the C-14 Rifle PRECISION (3) when used; Slugthrower's
    ANTI-EVADE (1) acts only within 8" (card text)."""
    marine, ling = roster.unit("Marine"), roster.unit("Zergling")
    stim = attack_batches(make_loadout(marine, 6, use=["Stimpack"]), ling, "assault", distance=10)
    assert "PRECISION (3)" in [str(k) for k in stim[0].weapon.keywords]
    slug = make_loadout(marine, 6, ["Slugthrower"])
    near = attack_batches(slug, ling, "assault", distance=6)
    far = attack_batches(slug, ling, "assault", distance=10)
    assert "ANTI-EVADE (1)" in [str(k) for k in near[0].weapon.keywords]
    assert "ANTI-EVADE (1)" not in [str(k) for k in far[0].weapon.keywords]


def test_titan_killers_damage_against_size_3(roster) -> None:
    # Praetor Guard Titan Killers: "When this Unit makes a Close Combat Attack, and the target is Size 3 or larger,
    # the weapon's Damage characteristic is treated as 2" (the Psi Blades print Damage 1).
    lo = make_loadout(roster.unit("Praetor Guard (Zealot)"))

    def damage(target: str, phase: str) -> set[int]:
        return {b.weapon.damage for b in attack_batches(lo, roster.unit(target), phase)}

    assert roster.unit("Goliath").card.size == 3 and roster.unit("Roach").card.size == 2
    assert damage("Goliath", "combat") == {2}
    assert damage("Roach", "combat") == {1}
    plain = make_loadout(roster.unit("Zealot"))
    assert {b.weapon.damage for b in attack_batches(plain, roster.unit("Goliath"), "combat")} == {1}


def test_bad_loadouts_name_the_flag(roster) -> None:
    marine = roster.unit("Marine")
    with pytest.raises(InputError, match="--comp: got '7'"):
        make_loadout(marine, 7)
    with pytest.raises(InputError, match="did you mean 'AGG-12'"):
        make_loadout(marine, 6, ["AG-12"])
    with pytest.raises(InputError, match="--use"):
        make_loadout(marine, 6, use=["Stimpak"])
    with pytest.raises(InputError, match="each upgrade once"):
        make_loadout(marine, 6, ["AGG-12", "agg-12"])


def test_target_from_card_carries_shield_and_tags(roster) -> None:
    zealot = roster.unit("Zealot")
    t = as_target(make_loadout(zealot), "combat")
    assert t.shield == zealot.card.shield > 0
    assert t.model_hp()[0] == zealot.card.hp + zealot.card.shield
    assert set(t.tags) == set(zealot.card.combat_tags)


def test_every_unit_can_build_its_default_loadout(roster) -> None:
    """Every card of the roster compiles: each composition, each upgrade alone, both phases, against a Zergling."""
    ling = roster.unit("Zergling")
    for unit in roster.units.values():
        for comp in unit.card.compositions:
            for ups in [[], *[[u.name] for u in unit.card.upgrades]]:
                lo = make_loadout(unit, comp.models, ups)
                for phase in ("assault", "combat"):
                    batches = attack_batches(lo, ling, phase, distance=6)
                    if batches:
                        r = run(batches, as_target(make_loadout(ling), phase))
                        assert abs(r.models_destroyed.pmf.sum() - 1) < 1e-9


# --- the CLI ---------------------------------------------------------------------------------------


def test_named_attack_json_contract_and_loadout() -> None:
    args = ["attack", "Marine", "Zergling", "--attacker-comp", "9", "--upgrade", "AGG-12", "--use", "Stimpack"]
    args += ["--phase", "assault", "--range", "10", "--target-state", "models=8,marker=0", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert set(out) == KEYS | {"loadout"}
    lo = out["loadout"]
    assert lo["attacker"]["upgrades"] == ["AGG-12"] and lo["attacker"]["use"] == ["Stimpack"]
    assert lo["target_models"] == 8 and len(out["models_destroyed"]["pmf"]) == 9
    assert {b["weapon"]: b["models"] for b in lo["batches"]} == {"C-14 Rifle": 8, "AGG-12": 1}
    mc = json.loads(runner.invoke(app, [*args, "--trials", "200000", "--seed", "2"]).stdout)
    assert abs(mc["damage"]["mean"] - out["damage"]["mean"]) < 5 * mc["damage"]["stderr"]


def test_named_attack_human_output() -> None:
    res = runner.invoke(app, ["attack", "Zergling", "Marine", "--phase", "combat", "--attacker-comp", "18"])
    assert res.exit_code == 0, res.output
    assert "Attacker: 18 Zergling" in res.stdout and "Batch: 18 x Claws" in res.stdout


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["attack", "Marnie", "Zergling"], "error: ATTACKER: got 'Marnie'"),
        (["attack", "Marine", "Zergling", "--attacker-comp", "7"], "error: --attacker-comp: got '7'"),
        (["attack", "Marine", "Zergling", "--upgrade", "AG-12"], "error: --upgrade: got 'AG-12'"),
        (["attack", "Marine", "Zergling", "--phase", "melee"], "error: --phase: got 'melee'"),
        (["attack", "Marine", "Zergling", "--roa", "3"], "error: --roa: got '3'; allowed: not with named units"),
        (["attack", "Marine", "Zergling", "--target-state", "hp=3"], "error: --target-state: got 'hp=3'"),
        (["attack", "Marine"], "error: TARGET: got ''"),
        (["attack", "--upgrade", "AGG-12"], "error: --upgrade: got 'AGG-12'; allowed: not with an ad-hoc attack"),
    ],
)
def test_named_attack_bad_input(args: list[str], start: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(start), res.stderr
    assert "Traceback" not in res.output


def test_compare_ranks_every_upgrade_combination(tmp_path: Path) -> None:
    csv, png = tmp_path / "c.csv", tmp_path / "c.png"
    res = runner.invoke(
        app,
        [
            "compare",
            "Marine",
            "--vs",
            "Zergling",
            "--vs",
            "Roach",
            "--comp",
            "6",
            "--json",
            "--csv",
            str(csv),
            "--plot",
            str(png),
        ],
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    n_up = len(load_roster().unit("Marine").card.upgrades)
    assert len(rows) == 2 * 2**n_up
    for target in {r["target"] for r in rows}:
        block = [r for r in rows if r["target"] == target]
        assert [r["rank"] for r in block] == list(range(1, len(block) + 1))
        assert all(a["kills_per_100"] >= b["kills_per_100"] for a, b in itertools.pairwise(block))
    assert csv.read_text().startswith("unit,models,upgrades") and png.stat().st_size > 5000


def test_compare_bad_output_leaves_nothing(tmp_path: Path) -> None:
    res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", "--csv", str(tmp_path / "no" / "x.csv")])
    assert res.exit_code == 2 and "--csv" in res.stderr
    res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", "--plot", str(tmp_path / "x.jpg")])
    assert res.exit_code == 2 and "ending in .png" in res.stderr
    res = runner.invoke(app, ["compare", "Marine", "--vs", "Zerglin", "--csv", str(tmp_path / "x.csv")])
    assert res.exit_code == 2 and "did you mean 'Zergling'" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_matchup_both_directions() -> None:
    res = runner.invoke(app, ["matchup", "Marine:9", "Zergling:18", "--range", "8", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert {(r["attacker"].split()[1], r["phase"]) for r in rows} >= {("Marine", "assault"), ("Zergling", "combat")}


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["matchup", "Marine:7", "Zergling"], "error: A: got '7'; allowed: a composition of Marine"),
        (["matchup", "Marine", "Zergling", "--b-upgrade", "Nope"], "error: --b-upgrade: got 'Nope'"),
        (["matchup", "Marine", "Zerglinx"], "error: B: got 'Zerglinx'"),
        (["matchup", "Marine", "Zergling", "--range", "far"], "error: --range: got 'far'"),
        (["compare", "Marine", "--vs", "Zergling:5"], "error: --vs: got '5'"),
        (["compare", "Marine", "--vs", "Zergling", "--upgrades", "Nope"], "error: --upgrades: got 'Nope'"),
        (["compare", "Marine", "--vs", "Zergling", "--rank-by", "cost"], "error: --rank-by: got 'cost'"),
        (["compare", "Marine", "--vs", "Zergling", "--comp", "7"], "error: --comp: got '7'"),
        (["compare", "Marine", "--vs", "Zergling", "--trials", "10", "--tolerance", "0.1"], "error: --tolerance"),
    ],
)
def test_compare_and_matchup_bad_input(args: list[str], start: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(start), res.stderr
    assert "Traceback" not in res.output
