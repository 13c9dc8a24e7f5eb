"""Issue 28 point 5 in the text of ``attack`` and ``scenario run``: no Shield or Damage Marker line where it
cannot apply (the JSON keeps both), and a Monte Carlo estimate of exactly 0 or 1 printed as its one-sided 95%
bound, never as "± 0"."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.starcraft.engines import exact
from mathhammer.starcraft.model import Batch, Target, Weapon
from mathhammer.starcraft.shown import not_applicable
from mathhammer.starcraft.system import SYSTEM

runner = CliRunner()


def _text(*args: str) -> str:
    r = runner.invoke(app, ["attack", *args])
    assert r.exit_code == 0, r.stderr
    return r.stdout


def test_no_shield_or_marker_lines_for_single_hp_targets_without_shield() -> None:
    text = _text("Marine", "Zergling")
    assert "SHIELDED" not in text and "Damage Marker" not in text
    out = json.loads(_text("Marine", "Zergling", "--json"))  # the JSON stays as it was: both keys, true values
    assert out["shielded_after"] == {"p": 0.0} and out["damage_marker"]["pmf"] == [pytest.approx(1.0)]


def test_shield_and_marker_lines_where_they_apply() -> None:
    text = _text("Marine", "Zealot")  # Shield 1, HP 2
    assert "P(still SHIELDED): " in text and "Damage Marker: mean " in text
    roach = _text("Marine", "Roach")  # no Shield, HP 3: a marker but no SHIELDED
    assert "Damage Marker: mean " in roach and "SHIELDED" not in roach
    lost = _text("Marine", "Zealot", "--target-state", "shielded=no")
    assert "SHIELDED" not in lost and "Damage Marker" in lost


GUNS = [
    Weapon.build("gun", roa=2, hit=3),
    Weapon.build("big gun", roa=1, hit=4, damage=2),
    Weapon.build("stun", roa=2, hit=3, keywords=["NON-LETHAL DAMAGE (1)"]),
]
TARGETS = [
    Target.build(4, 1),
    Target.build(3, 1, shield=1),
    Target.build(2, 2),
    Target.build(3, 1, marker=1),
    Target.build(2, 1, shield=2, shielded=False),
]


@pytest.mark.parametrize(("gun", "target"), list(itertools.product(GUNS, TARGETS)))
def test_the_rule_agrees_with_the_exact_engine(gun: Weapon, target: Target) -> None:
    """Whatever the rule calls inapplicable is exactly 0 in the exact engine (a line left out hides nothing)."""
    attack = SYSTEM.attack_of((Batch(gun, models=3),), target)
    tally = exact(attack)
    hidden = not_applicable(*attack.arrays)
    if "damage_marker" in hidden:
        assert float(np.asarray(tally["marker"])[1:].sum()) == 0.0
    if "shielded_after" in hidden:
        assert float(np.asarray(tally["shielded"])[1:].sum()) == 0.0
    # and the rule does hide where it should: one-HP models with no Shield, marker or NON-LETHAL
    plain = target.shield == 0 and target.marker == 0 and max(target.model_hp()) == 1
    assert ("damage_marker" in hidden) == (plain and gun.name != "stun")
    assert ("shielded_after" in hidden) == (not target.is_shielded)


def test_monte_carlo_zero_and_one_print_bounds_not_plus_minus_zero() -> None:
    text = _text("Marine", "Roach", "--trials", "1000")
    assert "± 0.0000" not in text
    assert "P(unit destroyed): < 0.0030 (95%)" in text  # never seen in 1,000 trials: 1 - 0.05 ** (1/1000)
    assert "within 0.0030 of it (one-sided 95% bound)" in text
    rows = [line.split() for line in text.splitlines() if line[:4].strip().isdigit()]
    for k, _p_eq, p_ge, *se in rows:  # one format per table: 4 decimals, "-" where P(>=k) is 0 or 1
        if k != "0" and float(p_ge) in (0.0, 1.0):
            assert se == ["-"]
        elif k != "0":
            assert len(se) == 1 and len(se[0].split(".")[1]) == 4 and float(se[0]) > 0


def test_grimdark_text_speaks_no_starcraft_and_bounds_its_zeros() -> None:
    args = ["--system", "gf", "--attacks", "1", "--quality", "4", "--models", "5", "--target-models", "5"]
    for text in (_text(*args), _text(*args, "--trials", "1000")):
        assert not any(w in text for w in ("SHIELDED", "Shield", "Damage Marker", "minerals", "Supply"))
    assert "P(unit destroyed): < 0.0030 (95%)" in _text(*args, "--trials", "1000")


def test_scenario_text_prints_bounds_for_zero_and_one() -> None:
    from mathhammer.scenario.result import ScenarioResult

    n = 10
    one = np.ones((1, n), dtype=np.int64)
    res = ScenarioResult(
        scenario="s",
        file="s.toml",
        trials=n,
        seed=0,
        units=[{"id": "marine-1", "player": "red", "card": "Marine", "models": 6}],
        markers=[1],
        rounds=[
            {
                "alive": one * 6,
                "supply": one,
                "marker": one * 0,
                "on_table": one.astype(bool),
                "control": one * -1,
                "vp": np.zeros((2, n), dtype=np.int64),
                "over": np.ones(n, dtype=bool),
            }
        ],
        end_round=np.ones(n, dtype=np.int64),
        winner=np.zeros(n, dtype=np.int64),
        instant=np.zeros(n, dtype=bool),
    )
    text = res.text_report()
    assert "red wins > 74% (95%)" in text and "blue wins < 26% (95%)" in text and "draw < 26% (95%)" in text
    assert "± 0.0%" not in text
    assert text.splitlines()[-1].endswith("< 26% (95%)")  # P(destroyed) at end: never in 10 games


GF = ["--system", "gf", "--attacks", "2", "--quality", "3", "--models", "10"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--target-models", "5"],
        ["--target-models", "3", "--target-tough", "3", "--target-rule", "Morale(1)"],
        ["--target-models", "5", "--melee"],
        ["--target-models", "2", "--target-tough", "3", "--melee", "--charging"],
    ],
)
def test_grimdark_one_sided_attack_leaves_out_morale_lines_that_cannot_happen(extra: list[str]) -> None:
    """A test from wounds never Routs; after a one-sided melee attack there is no test from wounds at all
    (the melee result decides): those lines are left out, and the JSON (kept whole) shows they are 0."""
    melee = "--melee" in extra
    for engine in ([], ["--trials", "2000"]):
        text = _text(*GF, *extra, *engine)
        out = json.loads(_text(*GF, *extra, *engine, "--json"))
        assert "P(Routed)" not in text and out["morale_routed"]["p"] == 0.0
        gone = ("morale_test_due", "morale_passed", "morale_shaken")
        if melee:
            assert "morale test" not in text.split("morale after melee")[0]
            assert all(out[k]["p"] == 0.0 for k in gone)
        else:
            assert "P(morale test due): " in text
