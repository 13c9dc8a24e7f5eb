"""The game-system registry and `attack --system` (one CLI, one JSON contract, several games)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mathhammer import systems
from mathhammer.cli import app
from mathhammer.errors import InputError

runner = CliRunner()


def test_starcraft_is_registered_with_aliases() -> None:
    assert "starcraft" in systems.names()
    for alias in ("sc", "StarCraft", "sctmg", "tmg"):
        assert systems.get(alias).name == "starcraft"


def test_unknown_system_is_refused_with_advice() -> None:
    with pytest.raises(InputError, match="did you mean 'starcraft'"):
        systems.get("starcarft")


def test_a_name_cannot_be_registered_twice() -> None:
    sc = systems.get("starcraft")
    with pytest.raises(ValueError, match="taken"):
        systems.register(sc)


def test_default_system_is_starcraft_and_same_contract() -> None:
    a = json.loads(runner.invoke(app, ["attack", "--models", "3", "--roa", "2", "--json"]).stdout)
    b = json.loads(runner.invoke(app, ["attack", "--system", "sc", "--models", "3", "--roa", "2", "--json"]).stdout)
    assert a == b and a["engine"] == "exact"


def test_flags_of_another_system_are_refused() -> None:
    res = runner.invoke(app, ["attack", "--models", "3", "--quality", "4"])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: --quality: got '4'; allowed: not with --system starcraft")
    res = runner.invoke(app, ["attack", "--system", "warhammer"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --system: got 'warhammer'")


GF = ["attack", "--system", "grimdark"]


def test_grimdark_is_registered() -> None:
    for alias in ("grimdark", "gf", "OPR", "grimdark-future"):
        assert systems.get(alias).name == "grimdark"


def test_grimdark_seed_example_through_the_cli() -> None:
    """Seed 002 worked example: 5 Robot Warriors, Quality 4+, A1 AP(1), against 5 Saurian Warriors, Defense 4+
    in cover: expected wounds 1.25 exactly."""
    args = [*GF, "--models", "5", "--attacks", "1", "--quality", "4", "--rule", "AP(1)"]
    args += ["--target-models", "5", "--target-defense", "4", "--cover", "--exact", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    keys = {"engine", "trials", "seed", "wounds", "models_destroyed", "unit_destroyed", "morale_test_due"}
    keys |= {"morale_passed", "morale_shaken", "morale_routed"}  # GF v3.5.1 core rules, Morale: the test's outcome
    assert set(out) == keys
    assert set(out["wounds"]) == {"pmf", "mean", "stderr"} and set(out["morale_test_due"]) == {"p"}
    assert abs(out["wounds"]["mean"] - 1.25) < 1e-12
    assert abs(sum(out["models_destroyed"]["pmf"]) - 1) < 1e-12
    mc = json.loads(runner.invoke(app, [*args[:-2], "--trials", "200000", "--seed", "4", "--json"]).stdout)
    assert mc["engine"] == "monte-carlo" and abs(mc["wounds"]["mean"] - 1.25) < 5 * mc["wounds"]["stderr"]


def test_grimdark_human_output_and_tolerance() -> None:
    res = runner.invoke(app, [*GF, "--models", "10", "--attacks", "2", "--target-models", "5", "--target-tough", "3"])
    assert res.exit_code == 0, res.output
    assert "Wounds: mean" in res.stdout and "P(morale test due)" in res.stdout
    res = runner.invoke(app, [*GF, "--models", "10", "--target-models", "5", "--tolerance", "0.01", "--json"])
    out = json.loads(res.stdout)
    assert out["wounds"]["stderr"] <= 0.01 and out["unit_destroyed"]["stderr"] <= 0.01


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["--rule", "Rendng"], "error: "),
        (["--quality", "9"], "error: --quality: got '9'"),
        (["--target-defense", "1"], "error: --target-defense: got '1'"),
        (["--roa", "2"], "error: --roa: got '2'; allowed: not with --system grimdark"),
        (["--target-rule", "Fear"], "error: "),
    ],
)
def test_grimdark_bad_input(args: list[str], start: str) -> None:
    res = runner.invoke(app, [*GF, *args])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(start) and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Traceback" not in res.output


def test_grimdark_joined_hero_from_the_cli() -> None:
    """Seed 002: a joined hero takes wounds only after the rest of its unit; the CLI result equals the API's."""
    from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, grimdark_exact

    args = [*GF, "--models", "6", "--attacks", "2", "--quality", "3", "--target-models", "3"]
    args += ["--target-defense", "5", "--target-hero-tough", "3", "--target-hero-defense", "4", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    defender = Defender(models=3, defense=5, hero=Hero(tough=3, defense=4))
    tally = grimdark_exact(Attacker((WeaponGroup(6, Weapon("weapon", attacks=2)),), quality=3), defender)
    assert len(out["models_destroyed"]["pmf"]) == 5  # 3 models and the hero
    assert out["models_destroyed"]["pmf"] == pytest.approx(tally.models_destroyed.tolist(), abs=1e-12)
    res = runner.invoke(app, [*GF, "--target-hero-tough", "0"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --target-hero-tough: got '0'")
