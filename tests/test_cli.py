"""The ``mathhammer attack`` command: documented examples, JSON contract, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

REFERENCE = [
    "attack",
    "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2",
    "--surge", "Light:D3", "--keyword", "PRECISION (1)", "--keyword", "CRITICAL HIT (1)",
    "--target-models", "5", "--target-hp", "2", "--target-shield", "2",
    "--target-armour", "4", "--target-evade", "5", "--target-tags", "Light",
    "--target-keyword", "TOUGH (1)", "--evade-eligible",
]  # fmt: skip
KEYS = {"engine", "trials", "seed", "damage", "models_destroyed", "unit_destroyed", "damage_marker", "shielded_after"}


def invoke(args: list[str]):
    return runner.invoke(app, args)


def test_exact_json_contract() -> None:
    res = invoke([*REFERENCE, "--exact", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert set(out) == KEYS
    assert out["engine"] == "exact" and out["trials"] is None and out["seed"] is None
    assert set(out["damage"]) == {"pmf", "mean", "stderr"}
    assert set(out["models_destroyed"]) == {"pmf", "mean", "stderr"}
    assert set(out["unit_destroyed"]) == {"p", "stderr"}
    assert set(out["damage_marker"]) == {"pmf"} and set(out["shielded_after"]) == {"p"}
    assert out["damage"]["stderr"] == 0 and out["unit_destroyed"]["stderr"] == 0
    assert len(out["models_destroyed"]["pmf"]) == 6
    for key in ("damage", "models_destroyed", "damage_marker"):
        assert abs(sum(out[key]["pmf"]) - 1) < 1e-12
    pmf = out["damage"]["pmf"]
    assert abs(sum(k * p for k, p in enumerate(pmf)) - out["damage"]["mean"]) < 1e-12
    # damage is dice x Damage: Damage 2 means odd totals never happen
    assert all(p == 0 for p in pmf[1::2])
    assert out["unit_destroyed"]["p"] == out["models_destroyed"]["pmf"][5]


def test_monte_carlo_json_agrees_with_exact() -> None:
    exact = json.loads(invoke([*REFERENCE, "--json"]).stdout)
    res = invoke([*REFERENCE, "--trials", "400000", "--seed", "3", "--json"])
    assert res.exit_code == 0, res.output
    mc = json.loads(res.stdout)
    assert mc["engine"] == "monte-carlo" and mc["trials"] == 400000 and mc["seed"] == 3
    for key in ("damage", "models_destroyed"):
        assert mc[key]["stderr"] > 0
        assert abs(mc[key]["mean"] - exact[key]["mean"]) < 5 * mc[key]["stderr"]
    assert abs(mc["unit_destroyed"]["p"] - exact["unit_destroyed"]["p"]) < 5 * mc["unit_destroyed"]["stderr"] + 1e-9
    again = json.loads(invoke([*REFERENCE, "--trials", "400000", "--seed", "3", "--json"]).stdout)
    assert again == mc, "the same seed must give the same answer"


def test_tolerance_mode_reaches_tolerance() -> None:
    res = invoke([*REFERENCE, "--tolerance", "0.01", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["damage"]["stderr"] <= 0.01 and out["unit_destroyed"]["stderr"] <= 0.01


def test_human_output_has_tables() -> None:
    res = invoke([*REFERENCE, "--trials", "100000"])
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "Damage dealt: mean" in text and "±" in text
    assert "Models destroyed: mean" in text
    assert "P(>=k)" in text and "P(unit destroyed)" in text
    rows = [line.split() for line in text.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert len(rows) >= 6


@pytest.mark.parametrize(
    ("args", "flag", "allowed"),
    [
        (["--hit", "9"], "--hit", "2 to 6"),
        (["--hit", "x"], "--hit", "2 to 6"),
        (["--target-armour", "1"], "--target-armour", "2 to 6"),
        (["--target-evade", "7+"], "--target-evade", "2 to 6"),
        (["--models", "-1"], "--models", "0 to 999"),
        (["--target-models", "0"], "--target-models", "1 to 999"),
        (["--roa", "two"], "--roa", "whole number"),
        (["--target-hp", "-2"], "--target-hp", "1 to 999"),
        (["--target-marker", "-1"], "--target-marker", "0 to 999"),
        (["--keyword", "PRECISON (1)"], "--keyword", "did you mean 'PRECISION (X)'"),
        (["--keyword", "PRECISION (x)"], "--keyword", "PRECISION (X)"),
        (["--keyword", "TOUGH (1)"], "--keyword", "keyword of the target"),
        (["--target-keyword", "TUOGH (1)"], "--target-keyword", "did you mean 'TOUGH (X)'"),
        (["--surge", "Light:D"], "--surge", "NdM+K"),
        (["--surge", "Light:3D"], "--surge", "NdM+K"),
        (["--surge", "Light:D0"], "--surge", "NdM+K"),
        (["--surge", "D3"], "--surge", "TYPE[,TYPE]:DICE"),
        (["--surge", "Lihgt:D3"], "--surge", "did you mean 'Light'"),
        (["--target-tags", "Heroic"], "--target-tags", "Combat Tags Armoured"),
        (["--trials", "0"], "--trials", "1 to"),
        (["--seed", "-4", "--trials", "10"], "--seed", "0 to"),
        (["--tolerance", "0"], "--tolerance", "standard error"),
        (["--method", "fast", "--trials", "10"], "--method", "count or die"),
        (["--exact", "--trials", "10"], "--exact", "either --exact"),
    ],
)
def test_bad_input_one_clear_message(args: list[str], flag: str, allowed: str) -> None:
    res = invoke(["attack", *args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"error: {flag}: got ")
    assert allowed in lines[0]
    assert "Traceback" not in res.output
    assert res.stdout == ""


def test_unknown_flag_is_a_usage_error() -> None:
    res = invoke(["attack", "--hitt", "4"])
    assert res.exit_code == 2
    assert "--hitt" in res.output


def test_installed_script_bad_input_no_traceback() -> None:
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-m", "mathhammer", "attack", "--keyword", "PRECISION (x)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: --keyword: got 'PRECISION (x)'")


def test_help_path_stays_light() -> None:
    """pandas, matplotlib and numba never load on --help (developers' guide: Clean)."""
    code = (
        "import sys\n"
        "from mathhammer.cli import app\n"
        "from typer.testing import CliRunner\n"
        "r = CliRunner().invoke(app, ['attack', '--help'])\n"
        "assert r.exit_code == 0, r.output\n"
        "bad = [m for m in ('pandas', 'matplotlib', 'numba') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert proc.stdout.strip() == ""


# --- Total Damage reduction (8.7.4 step 5) --------------------------------------------------------------


def test_damage_reduction_flag_matches_the_exact_engine() -> None:
    """--damage-reduction N: the target's Total Damage reduction (a Reaction), used once at the first Batch that
    deals Damage. 3 dice Hit 3+ against Armour 4+: D ~ Bin(3, 1/3) dice of Damage 3 on 2 models of 4 HP; less 2,
    a model falls only from D = 2 (4) or D = 3 (7, one model: 4 + 3 left): P(1 destroyed) = 7/27, never 2."""
    from mathhammer.starcraft.compiled import compile_attack
    from mathhammer.starcraft.exact import exact_tally
    from mathhammer.starcraft.model import Attack, Batch, Target, Weapon

    base = ["attack", "--models", "3", "--hit", "3", "--damage", "3", "--target-models", "2", "--target-hp", "4"]
    res = invoke([*base, "--damage-reduction", "2", "--json"])
    assert res.exit_code == 0, res.output
    pmf = json.loads(res.stdout)["models_destroyed"]["pmf"]
    assert pmf == pytest.approx([20 / 27, 7 / 27, 0.0], abs=1e-12)
    target = Target.build(2, 4, damage_reduction=2)
    want = exact_tally(*compile_attack(Attack((Batch(Weapon.build(roa=1, hit=3, damage=3), models=3),), target)))
    assert pmf == pytest.approx(want.models_destroyed.tolist(), abs=1e-12)
    plain = json.loads(invoke([*base, "--json"]).stdout)["models_destroyed"]["pmf"]
    assert plain[2] == pytest.approx(1 / 27, abs=1e-12)  # without it, D = 3 (9) destroys both
    text = invoke([*base, "--damage-reduction", "2", "--reduction-floor", "1"])
    assert text.exit_code == 0 and "reduced once by 2 (to a minimum of 1)" in text.stderr


def test_damage_reduction_on_named_units() -> None:
    """Named units: Marines shoot Zerglings whose Total Damage is reduced by 1: fewer fall on average (both exact)."""
    with_r = json.loads(invoke(["attack", "Marine", "Zergling", "--damage-reduction", "1", "--json"]).stdout)
    plain = json.loads(invoke(["attack", "Marine", "Zergling", "--json"]).stdout)
    assert with_r["models_destroyed"]["mean"] < plain["models_destroyed"]["mean"] - 0.05


@pytest.mark.parametrize(
    ("args", "flag", "allowed"),
    [
        (["--damage-reduction", "-1"], "--damage-reduction", "0 to 99"),
        (["--reduction-floor", "1"], "--reduction-floor", "with --damage-reduction N"),
        (
            ["--system", "gf", "--attacks", "2", "--quality", "4", "--target-defense", "4", "--damage-reduction", "1"],
            "--damage-reduction",
            "not with --system grimdark",
        ),
    ],
)
def test_damage_reduction_bad_input(args: list[str], flag: str, allowed: str) -> None:
    res = invoke(["attack", *args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}: got ") and allowed in lines[0], res.stderr


def test_hallucination_used_by_the_target_itself() -> None:
    """Hallucination ("... the targeted Friendly Unit is eligible to make an Evade Roll"): the Sentries' own
    Reaction, used for themselves, gives them Evade Rolls (its Within 4" names the units it may be for)."""
    base = ["attack", "Marine", "Sentry", "--target-upgrade", "Hallucination", "--json"]
    with_r = json.loads(invoke([*base, "--target-use", "Hallucination"]).stdout)["models_destroyed"]["mean"]
    plain = json.loads(invoke(base).stdout)["models_destroyed"]["mean"]
    assert with_r < plain - 0.1
