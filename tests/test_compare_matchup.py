"""``mathhammer matchup`` per side (issue 28 point 7): ``--a-use/--b-use`` and ``--a-upgrade/--b-upgrade`` applied
to side A or B, refused in one line when not that side's, and shown in the header; labels whole."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

runner = CliRunner()

BASE = ["matchup", "Marine:9", "Zergling:18", "--range", "8"]


def _rows(*args: str) -> list[dict[str, Any]]:
    res = runner.invoke(app, [*BASE, *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _row(rows: list[dict[str, Any]], attacker: str, phase: str) -> dict[str, Any]:
    return next(r for r in rows if r["attacker"].split(" (")[0] == attacker and r["phase"] == phase)


def test_use_and_upgrades_apply_to_their_own_side() -> None:
    plain = _rows()
    a = _rows("--a-use", "Stimpack", "--a-upgrade", "Bayonet", "--a-upgrade", "Combat Shield")
    marine = _row(a, "9 Marine", "assault")
    assert marine["attacker"] == "9 Marine (Bayonet, Combat Shield, use Stimpack)"
    assert marine["damage_mean"] > _row(plain, "9 Marine", "assault")["damage_mean"]  # Stimpack: PRECISION (3)
    assert _row(a, "9 Marine", "combat")["damage_mean"] > _row(plain, "9 Marine", "combat")["damage_mean"]  # Bayonet
    zerg = _row(a, "18 Zergling", "combat")
    assert zerg["attacker"] == "18 Zergling" and zerg["target"] == marine["attacker"]
    b = _rows("--b-use", "Metabolic Boost", "--b-use", "Devastating Charge")
    assert _row(b, "18 Zergling", "combat")["attacker"] == "18 Zergling (use Metabolic Boost, use Devastating Charge)"
    assert _row(b, "9 Marine", "assault")["attacker"] == "9 Marine"


def test_the_header_names_both_sides_range_and_engine() -> None:
    res = runner.invoke(app, [*BASE, "--a-use", "Stimpack", "--b-use", "Metabolic Boost", "--trials", "500"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == (
        'A: 9 Marine (use Stimpack) and B: 18 Zergling (use Metabolic Boost); range 8"; Monte Carlo, 500 trials, seed 0'
    )
    assert lines[1].split()[:3] == ["attacker", "target", "phase"]
    assert [line.split("  ")[0] for line in lines[2:]] == ["A: 9 Marine"] * 3 + ["B: 18 Zergling"] * 2
    exact = runner.invoke(app, BASE).stdout.splitlines()[0]
    assert exact == 'A: 9 Marine and B: 18 Zergling; range 8"; exact'


def test_long_labels_are_whole_in_the_header_and_the_rows_name_the_side() -> None:
    ups = ["AGG-12", "Rocket Launcher", "Grenades - Frag", "Combat Shield"]
    res = runner.invoke(app, [*BASE, *(x for u in ups for x in ("--a-upgrade", u)), "--a-use", "Stimpack"])
    assert res.exit_code == 0, res.output
    head, _, *lines = res.stdout.splitlines()
    assert head.startswith("A: 9 Marine (AGG-12, Rocket Launcher, Grenades - Frag, Combat Shield, use Stimpack) and ")
    assert [re.split("  +", line)[:2] for line in lines] == [["A: 9 Marine", "B: 18 Zergling"]] * 3 + [
        ["B: 18 Zergling", "A: 9 Marine"]
    ] * 2
    assert max(len(line) for line in lines) < 120


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--a-use", "Metabolic Boost"], "error: --a-use: got 'Metabolic Boost'; allowed: an ability of this loadout"),
        (["--b-use", "Stimpack"], "error: --b-use: got 'Stimpack'; allowed: an ability of this loadout"),
        (["--a-upgrade", "Adrenal Glands"], "error: --a-upgrade: got 'Adrenal Glands'; allowed: an upgrade of Marine"),
        (["--b-upgrade", "Bayonet"], "error: --b-upgrade: got 'Bayonet'; allowed: an upgrade of Zergling"),
    ],
)
def test_not_the_sides_own_is_refused_in_one_line(args: list[str], line: str) -> None:
    res = runner.invoke(app, [*BASE, *args])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith(line) and res.stderr.count("\n") == 1, res.stderr


@pytest.mark.parametrize("flag", ["--a-use", "--b-use", "--a-upgrade", "--b-upgrade"])
def test_grimdark_refuses_them_rather_than_drop_them(flag: str) -> None:
    res = runner.invoke(app, ["matchup", "Frenzied Raiders", "Saurian Warriors", "--system", "gf", flag, "X"])
    assert res.exit_code == 2 and res.stdout == ""
    assert (
        res.stderr
        == f"error: {flag}: got 'X'; allowed: none (Grimdark Future units have no upgrades or abilities to use)\n"
    )


def test_grimdark_melee_chances_carry_their_standard_errors_under_monte_carlo() -> None:
    args = ["matchup", "Frenzied Raiders", "Saurian Warriors", "--system", "gf", "--trials", "500"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    head, _, *lines = res.stdout.splitlines()
    assert head.startswith("A: 10 Frenzied Raiders and B: 5 Saurian Warriors; ") and head.endswith("500 trials, seed 0")
    melee = [line for line in lines if "  melee  " in line]
    assert len(melee) == 2
    for line in melee:
        cell = re.split(r"  +", line.strip())[-1]
        assert len(cell.split(" / ")) == 3 and all("±" in p or "(95%)" in p for p in cell.split(" / ")), cell
