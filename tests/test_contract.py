"""The game-system contract seen from outside: results in each system's words, the one-line API, one
validation of run options, and a command line that refuses what the chosen system does not use (issue 24)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import mathhammer as mh
from mathhammer import systems
from mathhammer.cli import app
from mathhammer.engine.options import SEED_MAX, TRIALS_MAX, RunOptions
from mathhammer.errors import InputError

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

SC_KEYS = [
    "engine",
    "trials",
    "seed",
    "damage",
    "models_destroyed",
    "unit_destroyed",
    "damage_marker",
    "shielded_after",
]
GF_KEYS = [
    "engine", "trials", "seed", "wounds", "models_destroyed", "unit_destroyed", "morale_test_due",
    # GF v3.5.1 core rules, Morale: the test's outcome (passed, Shaken, Routed)
    "morale_passed", "morale_shaken", "morale_routed",
]  # fmt: skip


def cli(*args: str) -> object:
    return runner.invoke(app, list(args))


def one_error(res: object, flag: str) -> str:
    """The single error line of a refused command (exit 2, no traceback, nothing on stdout)."""
    assert res.exit_code == 2, res.output  # type: ignore[attr-defined]
    lines = [line for line in res.stderr.splitlines() if line.strip()]  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}: "), res.stderr  # type: ignore[attr-defined]
    assert not res.stdout and "Traceback" not in res.output  # type: ignore[attr-defined]
    return lines[0]


# --- results in the system's words ----------------------------------------------------------------------


def test_starcraft_result_shows_exactly_its_outcomes() -> None:
    r = mh.attack("Marine", "Zergling", range=10)
    assert list(r.to_dict()) == SC_KEYS
    assert set(r.to_frame()["quantity"]) == {"damage", "models_destroyed", "damage_marker"}
    text = repr(r) + r._repr_html_() + r.text_report()
    assert "damage" in text and "SHIELDED" in text
    assert "wound" not in text.lower() and "morale" not in text.lower()
    with pytest.raises(AttributeError, match="wounds"):
        r.wounds  # noqa: B018


def test_grimdark_result_shows_exactly_its_outcomes() -> None:
    """A Grimdark Future result speaks of wounds and morale tests (GF core rules: Wounds, Morale), never of
    Damage, Damage Markers or SHIELDED."""
    g = mh.attack("Robot Warriors", "Saurian Warriors", system="grimdark", cover=True)
    assert list(g.to_dict()) == GF_KEYS
    assert set(g.to_frame()["quantity"]) == {"wounds", "models_destroyed"}
    text = repr(g) + g._repr_html_() + g.text_report()
    assert "wounds" in text and "morale test due" in text
    for word in ("damage", "shielded", "marker"):
        assert word not in text.lower()
    assert g.wounds.mean == 1.25  # seed 002's worked example
    with pytest.raises(AttributeError, match="it has wounds"):
        g.damage  # noqa: B018
    fig = g.plot()
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 2 and titles[0].startswith("wounds")


def test_a_joined_hero_gets_its_own_wounds() -> None:
    """Seed 002 "Bohater dołączony do oddziału": the hero takes wounds only after the rest of the unit. Two
    attacks at Quality 2+ against one model at Defense 6+ and a Tough(3) hero at Defense 2+: the hero takes one
    wound exactly when both attacks wound, both blocked at the unit's Defense 6+ (core rules, Hero: "must use
    the unit's Defense until all other models have been killed"; the group started while the model stood)."""
    from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup

    attacker = Attacker((WeaponGroup(1, Weapon(attacks=2)),), quality=2)
    defender = Defender(1, defense=6, hero=Hero(tough=3, defense=2))
    r = mh.run(attacker, defender)
    wound = Fraction(5, 6) * Fraction(5, 6)
    assert abs(r.hero_wounds.pmf[1] - float(wound * wound)) < 1e-12
    assert r.hero_wounds.pmf.size == 4 and "hero_wounds" in r.to_dict()
    plain = mh.run(attacker, Defender(2, defense=6))
    assert "hero_wounds" not in plain.to_dict()


def test_reprs_are_one_line() -> None:
    for obj in (
        mh.unit("Marine", models=9, upgrades=["AGG-12"]),
        mh.unit("Saurian Warriors + Field Commander", system="gf"),
        mh.roster(),
        mh.roster("gf"),
        mh.roster().unit("Marine"),
        mh.roster("gf")["Robot Warriors"],
        systems.get("gf"),
        mh.attack("Marine", "Zergling"),
    ):
        text = repr(obj)
        assert "\n" not in text and len(text) < 240, text
    assert repr(mh.unit("Marine", models=9, upgrades=["AGG-12"])) == "<Loadout 9 Marine (AGG-12), 220 minerals>"


# --- the one-line API -------------------------------------------------------------------------------------


def test_api_and_cli_give_the_same_numbers() -> None:
    r = mh.attack("Marine", "Zergling", models=9, target_models=18, upgrades=["AGG-12"], use=["Stimpack"], range=10)
    out = json.loads(
        cli("attack", "Marine", "Zergling", "--attacker-comp", "9", "--target-comp", "18", "--upgrade", "AGG-12",
            "--use", "Stimpack", "--range", "10", "--json").stdout  # type: ignore[attr-defined]
    )  # fmt: skip
    assert out["damage"]["pmf"] == r.to_dict()["damage"]["pmf"]
    assert out["unit_destroyed"] == r.to_dict()["unit_destroyed"]
    mc = mh.attack("Marine", "Zergling", trials=50_000, seed=7)
    out = json.loads(cli("attack", "Marine", "Zergling", "--trials", "50000", "--seed", "7", "--json").stdout)  # type: ignore[attr-defined]
    assert out["damage"] == mc.to_dict()["damage"]
    g = mh.attack("Robot Warriors", "Saurian Warriors", system="gf", trials=20_000, seed=3, cover=True)
    out = json.loads(
        cli("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--cover", "--trials", "20000",
            "--seed", "3", "--json").stdout  # type: ignore[attr-defined]
    )  # fmt: skip
    assert out["wounds"] == g.to_dict()["wounds"]


def test_api_compare_and_matchup_are_dataframes() -> None:
    df = mh.compare("Marine", vs=["Zergling", "Roach"], range=10)
    assert {"unit", "models", "upgrades", "minerals", "target", "damage_mean", "p_destroy", "rank"} <= set(df.columns)
    assert set(df["target"].str.split().str[1]) == {"Zergling", "Roach"}
    m = mh.matchup("Marine", "Roach", a_models=9)
    assert set(m["phase"]) >= {"assault", "combat"} and (m["attacker"].str.startswith("9 Marine")).any()
    gf = mh.compare("Robot Warriors", vs=["Saurian Warriors"], system="gf", cover=True)
    assert "points" in gf.columns and "wounds_mean" in gf.columns
    assert not any("minerals" in c or "damage" in c for c in gf.columns)


@pytest.mark.parametrize(
    ("call", "field", "hint"),
    [
        (lambda: mh.attack("Marnie", "Zergling"), "attacker", "did you mean 'Marine'"),
        (lambda: mh.attack("Marine", "Zergling", cover=True), "cover", "not a StarCraft"),
        (
            lambda: mh.attack("Robot Warriors", "Saurian Warriors", system="gf", covr=True),
            "covr",
            "did you mean 'cover'",
        ),
        (lambda: mh.attack("Robot Warriors", "Saurian Warriors", system="gf", upgrades=["X"]), "upgrades", "none"),
        (lambda: mh.unit("Marine", models=7), "models", "a composition of Marine"),
        (lambda: mh.attack("Marine", "Zergling", system="warhamer"), "system", "allowed"),
    ],
)
def test_api_errors_name_the_argument(call: object, field: str, hint: str) -> None:
    with pytest.raises(InputError) as err:
        call()  # type: ignore[operator]
    assert err.value.field == field and hint in str(err.value)


def test_run_takes_either_systems_objects() -> None:
    from mathhammer.grimdark import Attacker, Defender, Weapon, WeaponGroup

    sc = mh.run(mh.Batch(mh.Weapon.build("Rifle", roa=2, hit=3), models=6), mh.Target.build(8, 1, armour=6))
    gf = mh.run(Attacker((WeaponGroup(5, Weapon(attacks=1, rules=("AP(1)",))),), quality=4), Defender(5, cover=True))
    assert sc.system == "starcraft" and gf.system == "grimdark" and gf.wounds.mean == 1.25
    with pytest.raises(InputError, match="attack"):
        mh.run("Marine")


# --- one validation of run options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [("trials", 0), ("trials", TRIALS_MAX + 1), ("seed", -1), ("seed", SEED_MAX + 1), ("tolerance", 0)],
)
def test_run_options_have_one_set_of_limits(name: str, value: int) -> None:
    """The same limits for the command line (naming the flag), the API (naming the argument), both engines
    of both systems and the report."""
    from mathhammer.grimdark.engine import simulate_compiled
    from mathhammer.grimdark.system import SYSTEM as GF
    from mathhammer.starcraft import montecarlo

    with pytest.raises(InputError) as api:
        mh.attack("Marine", "Zergling", **{name: value})
    assert api.value.field == name
    flags = {"trials": "--trials", "seed": "--seed", "tolerance": "--tolerance"}
    extra = [] if name != "seed" else ["--trials", "100"]
    one_error(cli("attack", "Marine", "Zergling", flags[name], str(value), *extra), flags[name])
    if name == "tolerance":
        return
    sc = mh.systems.get("sc").compile(mh.roster(), systems.Query("Marine", "Zergling"))
    kwargs = {"trials": 100, "seed": 0, name: value}
    with pytest.raises(InputError):
        montecarlo.simulate(*sc.arrays, **kwargs)  # type: ignore[arg-type]
    gf = GF.compile(GF.load_roster(), systems.Query("Robot Warriors", "Saurian Warriors"))
    from mathhammer.grimdark.compiled import compile_attack

    with pytest.raises(InputError):
        simulate_compiled(compile_attack(gf.attacker, gf.defender), **kwargs)  # type: ignore[arg-type]
    assert RunOptions.build(trials=TRIALS_MAX, seed=SEED_MAX).trials == TRIALS_MAX


# --- the command line refuses what the system or mode does not use -----------------------------------------

GF_NAMED = ["attack", "Robot Warriors", "Saurian Warriors", "--system", "gf"]


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["attack", "Marine", "Zergling", "--cover"], "--cover"),
        (["attack", "Marine", "Zergling", "--melee"], "--melee"),
        (["attack", "Marine", "Zergling", "--charging"], "--charging"),
        ([*GF_NAMED, "--rule", "AP(3)"], "--rule"),
        ([*GF_NAMED, "--quality", "2"], "--quality"),
        ([*GF_NAMED, "--target-defense", "6"], "--target-defense"),
        ([*GF_NAMED, "--upgrade", "AGG-12"], "--upgrade"),
        ([*GF_NAMED, "--evade-eligible"], "--evade-eligible"),
        ([*GF_NAMED, "--target-state", "marker=1"], "--target-state marker"),
        (["attack", "--models", "3", "--cover"], "--cover"),
        (["attack", "--system", "gf", "--roa", "2"], "--roa"),
        (["compare", "Marine", "--vs", "Zergling", "--cover"], "--cover"),
        (["compare", "Marine", "--vs", "Zergling", "--melee"], "--melee"),
        (["compare", "Robot Warriors", "--vs", "Saurian Warriors", "--system", "gf", "--comp", "5"], "--comp"),
        (["matchup", "Marine", "Zergling", "--cover"], "--cover"),
        (["profiles", "list", "--system", "gf", "--race", "zerg"], "--race"),
    ],
)
def test_a_flag_the_system_does_not_use_is_refused(args: list[str], flag: str) -> None:
    one_error(cli(*args), flag)


def test_grimdark_named_attack_takes_its_situation_flags() -> None:
    base = json.loads(cli(*GF_NAMED, "--json").stdout)  # type: ignore[attr-defined]
    cover = json.loads(cli(*GF_NAMED, "--cover", "--json").stdout)  # type: ignore[attr-defined]
    melee = json.loads(cli(*GF_NAMED, "--melee", "--json").stdout)  # type: ignore[attr-defined]
    assert cover["wounds"]["mean"] < base["wounds"]["mean"]  # GF core rules, Cover: +1 to Defense rolls
    assert melee["loadout"]["phase"] == "melee" and melee["wounds"] != base["wounds"]
    one_error(cli(*GF_NAMED, "--melee", "--cover"), "--cover")  # cover is against shooting only


def test_profiles_validate_reads_the_chosen_systems_format(tmp_path: Path) -> None:
    """A Grimdark folder (as import-opr writes it) is checked as Grimdark Future, with its own field names."""
    folder = tmp_path / "gf"
    folder.mkdir()
    (folder / "army.toml").write_text((ROOT / "profiles" / "grimdark" / "samples.toml").read_text())
    res = cli("profiles", "validate", str(folder), "--system", "gf")
    assert res.exit_code == 0 and res.stdout.startswith("ok: 1 files, ")  # type: ignore[attr-defined]
    (folder / "bad.toml").write_text('[units."X"]\nmodels = 5\nqualty = 4\n')
    res = cli("profiles", "validate", str(folder), "--system", "gf")
    assert res.exit_code == 2 and "qualty: unknown key (did you mean 'quality'?)" in res.stderr  # type: ignore[attr-defined]


BOARD = """
[battlefield]
width = 30
depth = 30

[[units]]
id = "marines"
side = "terran"
size = 2
models = [{ id = "m1", x = 10, y = 10 }, { id = "m2", x = 11.5, y = 10 }]

[[units]]
id = "roaches"
side = "zerg"
size = 2
models = [{ id = "r1", x = 10, y = 16 }, { id = "r2", x = 11.5, y = 16 }, { id = "r3", x = 13, y = 16 }]
"""


def test_attack_on_a_board_uses_the_target_models_on_it(tmp_path: Path) -> None:
    """8.7.3 step 1 and 8.7.4 step 5: the unit attacked is the one standing on the battlefield. Two Marines left
    of a unit of 6 are a two-model target in the Assault Phase as in the Combat Phase."""
    board = tmp_path / "two_marines.toml"
    board.write_text(BOARD)
    args = [
        "attack",
        "Roach",
        "Marine",
        "--board",
        str(board),
        "--attacker-unit",
        "roaches",
        "--target-unit",
        "marines",
    ]
    out = json.loads(cli(*args, "--json").stdout)  # type: ignore[attr-defined]
    assert out["loadout"]["target_models"] == 2 and len(out["models_destroyed"]["pmf"]) == 3
    same = mh.attack("Roach", "Marine", target_left=2, range=6.0)
    assert out["unit_destroyed"]["p"] == pytest.approx(same.unit_destroyed, abs=1e-12)
    assert out["unit_destroyed"]["p"] > 0.5
    one_error(cli(*args, "--target-state", "models=6"), "--target-state models")


def test_an_out_of_range_batch_says_so() -> None:
    """8.7.3 step 1: a model with no target Within Range rolls no dice; the text says why the numbers are 0."""
    res = cli("attack", "Marine", "Zergling", "--range", "16")
    assert res.exit_code == 0 and 'C-14 Rifle: out of range: 16" > 12", no dice' in res.stdout  # type: ignore[attr-defined]
    long = cli("attack", "Marine", "Zergling", "--upgrade", "AGG-12", "--range", "16")
    assert 'out of range: 16" > 12"' in long.stdout and "AGG-12 [" in long.stdout  # type: ignore[attr-defined]
    assert 'AGG-12 [LONG RANGE (18"), SPECIALIST]: out' not in long.stdout  # type: ignore[attr-defined]


def test_tally_histograms_are_named() -> None:
    t = mh.attack("Marine", "Zergling").tally
    assert sorted(t.hists) == ["damage", "marker", "models_destroyed", "shielded"]
    g = mh.attack("Robot Warriors", "Saurian Warriors", system="gf").tally
    assert sorted(g.hists) == [
        "models_destroyed", "morale_passed", "morale_routed", "morale_shaken", "morale_test_due", "wounds",
        "wounds_on_next",
    ]  # fmt: skip
    assert np.isclose(g.wounds.sum(), 1.0)


def test_moved_takes_indirects_minus_one() -> None:
    """GF v3.5 common rules, Indirect: "Gets -1 to hit rolls when shooting after moving." Quality 4+ against
    Defense 6+: 3/6 x 5/6 standing, 2/6 x 5/6 after moving; StarCraft TMG has no such situation."""
    gf = ["attack", "--system", "gf", "--models", "1", "--attacks", "1", "--quality", "4", "--rule", "Indirect"]
    gf += ["--target-defense", "6", "--json"]
    still = json.loads(cli(*gf).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    moved = json.loads(cli(*gf, "--moved").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert still == pytest.approx(float(Fraction(3, 6) * Fraction(5, 6)), abs=1e-12)
    assert moved == pytest.approx(float(Fraction(2, 6) * Fraction(5, 6)), abs=1e-12)
    one_error(cli("attack", "Marine", "Zergling", "--moved"), "--moved")
    one_error(cli("attack", "--models", "3", "--moved"), "--moved")


def test_moved_reaches_a_named_units_indirect_weapon() -> None:
    """GF v3.5 common rules, Indirect, on a named unit: the Mortar Team's Light Mortar hits worse after moving;
    `--moved` is the named attack's `moved` option (mh.attack(..., moved=True))."""
    args = ["attack", "Mortar Team", "Saurian Warriors", "--system", "gf", "--range", "24", "--json"]
    still = json.loads(cli(*args).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    moved = json.loads(cli(*args, "--moved").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    api = mh.attack("Mortar Team", "Saurian Warriors", system="gf", range=24, moved=True)
    assert moved < still and api.wounds.mean == moved


def test_hit_mod_entries_kept_apart_for_lock_on() -> None:
    """Lock-On (GF Beginner's Guide v3.4.1): "Ignores cover and all negative modifiers to hit rolls": `--hit-mod`
    is repeatable, one entry per effect, so Lock-On drops the -1 of a +1 and a -1 (Quality 4+ hits on 3+, 4/6)
    where the net 0 would hit on 4+; against Defense 6+ (5/6). StarCraft TMG has no such situation."""
    gf = ["attack", "--system", "gf", "--models", "1", "--attacks", "1", "--quality", "4", "--target-defense", "6"]
    both = ["--hit-mod", "1", "--hit-mod", "-1", "--json"]
    plain = json.loads(cli(*gf, *both).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    lock_on = json.loads(cli(*gf, "--rule", "Lock-On", *both).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert plain == pytest.approx(float(Fraction(3, 6) * Fraction(5, 6)), abs=1e-12)
    assert lock_on == pytest.approx(float(Fraction(4, 6) * Fraction(5, 6)), abs=1e-12)
    one_error(cli("attack", "Marine", "Zergling", "--hit-mod", "1"), "--hit-mod")
    one_error(cli("attack", "--models", "3", "--hit-mod", "1"), "--hit-mod")
    one_error(cli(*gf, "--hit-mod", "x"), "--hit-mod")


def test_hit_mod_reaches_a_named_attack() -> None:
    """A named attack's `hit_mod` option (`--hit-mod`, mh.attack(..., hit_mod=[...])): -1 to hit lowers the
    Robot Warriors' wounds from 1.25 (Quality 4+) to 5 x 2/6 x 1/2 (5+) against Saurian Warriors in cover."""
    args = ["attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--cover", "--json"]
    minus = json.loads(cli(*args, "--hit-mod", "-1").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert minus == pytest.approx(5 * 2 / 6 * 1 / 2, abs=1e-12)
    api = mh.attack("Robot Warriors", "Saurian Warriors", system="gf", cover=True, hit_mod=[1, -1])
    assert api.wounds.mean == pytest.approx(1.25, abs=1e-12)


def test_versatile_and_target_moved_flags(tmp_path: Path) -> None:
    """GF v3.5 army books: Versatile Attack ("pick one effect ... AP(+1) ... or +1 to hit rolls"), and GF v3.5
    common rules: Entrenched ("hasn't moved during the round ... -2 to hit rolls"), as flags and options.

    Quality 5+ against Defense 4+: `--versatile ap` 2/6 x 4/6, `hit` 3/6 x 3/6, `best` picks hit (noted); a
    named unit without the rule refuses `--versatile`. An Entrenched target from 12" with +1 to hit: 5+ (total
    -1); after `--target-moved`: 3+."""
    gf = ["attack", "--system", "gf", "--models", "1", "--attacks", "1", "--quality", "5", "--target-defense", "4"]
    ap = json.loads(cli(*gf, "--versatile", "ap", "--json").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    hit = json.loads(cli(*gf, "--versatile", "hit", "--json").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert (ap, hit) == (pytest.approx(8 / 36, abs=1e-12), pytest.approx(9 / 36, abs=1e-12))
    best = cli(*gf, "--versatile", "best")
    assert "note: Versatile Attack: +1 to hit picked" in best.stderr  # type: ignore[attr-defined]
    one_error(cli(*gf, "--versatile", "both"), "--versatile")
    one_error(cli("attack", "Robot Warriors", "Saurian Warriors", "--system", "gf", "--versatile", "ap"), "--versatile")
    ent = ["attack", "--system", "gf", "--quality", "4", "--target-defense", "6", "--target-rule", "Entrenched"]
    ent += ["--range", "12", "--hit-mod", "1", "--json"]
    still = json.loads(cli(*ent).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    moved = json.loads(cli(*ent, "--target-moved").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert (still, moved) == (pytest.approx(2 / 6 * 5 / 6, abs=1e-12), pytest.approx(4 / 6 * 5 / 6, abs=1e-12))
    one_error(cli("attack", "Marine", "Zergling", "--target-moved"), "--target-moved")
    (tmp_path / "v.toml").write_text(
        '[units.Duelists]\nsource = "test"\nmodels = 1\nquality = 5\ndefense = 4\npoints = 10\n'
        'rules = ["Versatile Attack"]\nweapons = [{ name = "Gun", range = 24, attacks = 1 }]\n'
        '[units.Dummies]\nsource = "test"\nmodels = 3\nquality = 4\ndefense = 4\npoints = 10\n',
        encoding="utf-8",
    )
    named = ["attack", "Duelists", "Dummies", "--system", "gf", "--profiles", str(tmp_path), "--json"]
    picked = json.loads(cli(*named, "--versatile", "ap").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    auto = json.loads(cli(*named).stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert (picked, auto) == (pytest.approx(8 / 36, abs=1e-12), pytest.approx(9 / 36, abs=1e-12))


def test_snipe_flag() -> None:
    """GF v3.5 common rules: Sniper ("may pick any model in the target unit as its individual target, which is
    resolved as if it was a unit of 1"): `--snipe model` (the default) picks a model of the unit: Quality 2+
    (Sniper) against Defense 6+, 5/6 x 5/6 for one shot whatever the hero; `--snipe hero` picks the joined
    hero (Defense 2+: only a natural 1 fails, 5/6 x 1/6); refused without a hero and with StarCraft TMG."""
    gf = ["attack", "--system", "gf", "--rule", "Sniper", "--target-models", "3", "--target-defense", "6"]
    gf += ["--target-hero-tough", "2", "--target-hero-defense", "2"]
    mean = json.loads(cli(*gf, "--snipe", "model", "--json").stdout)["wounds"]["mean"]  # type: ignore[attr-defined]
    assert mean == pytest.approx(25 / 36, abs=1e-12)
    hero = json.loads(cli(*gf, "--snipe", "hero", "--json").stdout)  # type: ignore[attr-defined]
    assert hero["hero_wounds"]["mean"] == pytest.approx(5 / 36, abs=1e-12)
    one_error(cli(*gf[:-4], "--snipe", "hero"), "--snipe")
    one_error(cli(*gf, "--snipe", "sideways"), "--snipe")
    one_error(cli("attack", "Marine", "Zergling", "--snipe", "model"), "--snipe")
