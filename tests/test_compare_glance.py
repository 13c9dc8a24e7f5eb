"""``mathhammer compare`` at a glance (issue 28 point 4): ``--top``, whole and unique labels, a header line per
target, the ranking column's standard error, and loadouts that make the same attack folded into one row."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mathhammer import systems
from mathhammer.cli import app
from mathhammer.cli.compare_table import TOP_DEFAULT, annotate, compare_table, label, range_text
from mathhammer.engine.options import RunOptions
from mathhammer.errors import InputError
from mathhammer.starcraft.compare import upgrade_sets
from mathhammer.systems import Query

runner = CliRunner()

#: Marine at 10": Combat Shield and Bayonet (the other phases), Slugthrower and Grenades - Frag ("Within 8"")
#: change nothing, so each of the 8 distinct loadouts stands for 16 (2 compositions x 2**6 upgrade sets).
QUICK = ["compare", "Marine", "--vs", "Zergling", "--vs", "Zealot", "--range", "10"]


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def _json(*args: str) -> list[dict[str, Any]]:
    return json.loads(_ok(*args, "--json"))


#: A printed row: its rank (or "=" for a folded loadout), its label's first line, its cost.
ROW = re.compile(r"^ *(\d+|=)  (\S.*?)  +(\d+)  ")


def _printed(text: str) -> dict[str, list[tuple[str, str]]]:
    """The table's rows per target: (rank or "=", whole label text, wrapped lines joined)."""
    out: dict[str, list[tuple[str, str]]] = {}
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("vs "):
            rows = out.setdefault(line[3:].split(":")[0], [])  # type: ignore[assignment]
        elif m := ROW.match(line):
            rows.append([m[1], m[2]])
        elif line.startswith(" ") and rows:
            rows[-1][1] += " " + line.strip()
    return {t: [(r[0], r[1]) for r in rs] for t, rs in out.items()}  # type: ignore[misc]


def _own(text: str) -> str:
    """A printed label without its "(= N more)" or "= <base>" note."""
    return re.sub(r" \(= \d+ more\)$", "", text).split(" = ")[0]


# ---------------------------------------------------------------------------------------------------- --top


def test_quick_start_folds_384_rows_into_24() -> None:
    text = _ok(*QUICK[:4], "--vs", "Roach", *QUICK[4:])
    printed = _printed(text)
    assert [len(rows) for rows in printed.values()] == [8, 8, 8]
    assert sum(len(rows) for rows in printed.values()) < 30  # was 384
    assert text.splitlines()[-1] == (
        "Left out: 360 equal to a cheaper loadout, folded into its row (--all-loadouts lists them); "
        "--json and --csv hold every row."
    )


def test_top_limits_the_table_per_target_and_says_what_was_left_out() -> None:
    text = _ok(*QUICK, "--top", "3")
    printed = _printed(text)
    assert [[r for r, _ in rows] for rows in printed.values()] == [["1", "2", "3"]] * 2
    last = text.splitlines()[-1]
    assert last.startswith("Left out: 10 rows below the top 3 per target (--top N or --top all shows them); ")
    assert "--all-loadouts" in last
    for every in ("0", "ALL"):
        assert [len(rows) for rows in _printed(_ok(*QUICK, "--top", every)).values()] == [8, 8]
    assert len(_json(*QUICK, "--top", "2")) == 2 * 2 * 16  # two distinct per target, with their 15 equals
    assert len(_json(*QUICK)) == 2 * 128  # --json: every row unless --top says otherwise


def _fake_rows(n: int) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        row = {"models": 5, "unit": "Unit", "upgrades": f"Upgrade {i}", "minerals": 100 + i, "target": "3 T"}
        row |= {"phase": "assault", "trials": 0, "rank": i + 1, "same_as": None, "damage_mean": 1.0}
        row |= {"damage_se": 0.0, "destroyed_mean": 1.0, "destroyed_se": 0.0, "p_destroy": 0.5, "p_destroy_se": 0.0}
        row |= {"damage_per_100": 1.0, "damage_per_100_se": 0.0, "kills_per_100": 1.0, "kills_per_100_se": 0.0}
        rows.append(row | {"label": label(row)})
    return rows


def test_top_is_15_by_default() -> None:
    class Words:
        dealt, cost = "damage", "minerals"

    situation = {"range": 'range 8"', "use": "no ability used", "options": ""}
    text = compare_table(_fake_rows(20), Words(), situation, 15, False, None)
    assert [r for r, _ in _printed(text)["3 T"]] == [str(i) for i in range(1, 16)]
    assert text.splitlines()[-1].startswith("Left out: 5 rows below the top 15 per target")


@pytest.mark.parametrize("value", ["-1", "many", "1.5", ""])
def test_top_refused(value: str) -> None:
    res = runner.invoke(app, [*QUICK, "--top", value])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: --top: got '{value}'; allowed: rows per target (0 or all: every row)")
    assert res.stdout == "" and "Traceback" not in res.output


# ---------------------------------------------------------------------------------------------------- labels


def _tables(game: Any, roster: Any, name: str) -> tuple[str, str] | None:
    """What ``compare NAME --vs Zergling --vs Zealot`` prints in the first phase NAME can attack in (the command's
    own steps, the roster loaded once): the table of every loadout (``--top all --all-loadouts``), the default."""
    for phase in ("assault", "combat"):
        query = Query(name, "Zergling", phase=phase)
        try:
            rows = game.compare(roster, name, ["Zergling", "Zealot"], query, RunOptions())
        except InputError as exc:
            assert "a phase in which" in str(exc), exc
            continue
        annotate(rows, game.words.cost, game.words.dealt)
        situation = {"range": range_text(None), "use": "no ability used", "options": ""}
        every = compare_table(rows, game.words, situation, 0, True, None)
        return every, compare_table(rows, game.words, situation, TOP_DEFAULT, False, None)
    return None


def test_every_builtin_units_labels_are_whole_and_unique() -> None:
    """Every loadout of every built-in unit is printed once per target, its label whole: the unit, its models and
    every upgrade name as the card spells it (the old table cut them at 34 characters, and rows read the same)."""
    game = systems.get("starcraft")
    roster = game.load_roster([])
    seen = 0
    for name, unit in roster.units.items():
        got = _tables(game, roster, name)
        if got is None:
            continue
        every, default = got
        sizes = [c.models for c in unit.card.compositions]
        expected = {f"{m} {unit.name}" + "".join(f" + {u}" for u in ups) for m in sizes for ups in upgrade_sets(unit)}
        shown = _printed(default)
        for target, lines in _printed(every).items():
            labels = [_own(t) for _, t in lines]
            assert len(labels) == len(set(labels)) == len(expected), (name, target, labels)
            assert set(labels) == expected, (name, target)
            distinct = [_own(t) for _, t in shown[target]]  # the default table: distinct loadouts only
            assert len(distinct) == len(set(distinct)) and set(distinct) <= expected
        seen += 1
    assert seen >= 20


def test_a_long_label_wraps_whole() -> None:
    text = _ok("compare", "Marine", "--vs", "Zergling", "--comp", "9", "--top", "all", "--all-loadouts")
    wrapped = [line for line in text.splitlines() if line.startswith("   ")]
    assert wrapped, text  # some label needed two lines
    assert "9 Marine + Combat Shield + AGG-12 + Rocket Launcher + Slugthrower + Grenades - Frag + Bayonet" in {
        _own(t) for _, t in _printed(text)["12 Zergling"]
    }
    assert max(len(line) for line in text.splitlines()[2:-2]) < 150


# ---------------------------------------------------------------------------------------------------- header


def test_header_says_phase_range_use_target_state_and_engine() -> None:
    lines = _ok(*QUICK, "--use", "Stimpack", "--trials", "2000", "--seed", "3").splitlines()
    heads = [line for line in lines if line.startswith("vs ")]
    assert heads == [
        'vs 12 Zergling: assault phase; range 10"; using Stimpack; '
        "target: 12 models, no Damage Marker, no Shield; Monte Carlo, 2,000 trials, seed 3",
        'vs 3 Zealot: assault phase; range 10"; using Stimpack; '
        "target: 3 models, no Damage Marker, Shield 3 (SHIELDED); Monte Carlo, 2,000 trials, seed 3",
    ]
    head = _ok("compare", "Marine", "--vs", "Zergling", "--phase", "combat").splitlines()[0]
    assert head == (
        'vs 12 Zergling: combat phase; no --range (in range, beyond every "Within"); no ability used; '
        "target: 12 models, no Damage Marker, no Shield; exact"
    )


def test_grimdark_header_names_the_situation() -> None:
    args = ["compare", "Robot Warriors", "--vs", "Saurian Warriors", "--system", "gf", "--cover"]
    head = _ok(*args).splitlines()[0]
    assert head.startswith("vs 5 Saurian Warriors: shooting phase; no --range")
    assert head.endswith("; target: 5 of 5 models left; cover; exact")
    joined = ["compare", "Robot Warriors", "--vs", "Saurian Warriors + Field Commander:3", "--system", "gf"]
    assert "; target: 3 of 5 models left, Field Commander joined; exact" in _ok(*joined)
    res = runner.invoke(app, [*args, "--use", "Stimpack"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --use: got 'Stimpack'; allowed: none"), res.output


# ---------------------------------------------------------------------------------------------------- ± and bounds


def test_ranking_columns_carry_their_standard_error_under_monte_carlo() -> None:
    args = ["compare", "Marine", "--vs", "Roach", "--comp", "6", "--upgrades", "AGG-12", "--trials", "2000"]
    rows = _json(*args)
    for r in rows:
        assert r["kills_per_100_se"] == pytest.approx(r["destroyed_se"] * 100 / r["minerals"]) and r["kills_per_100_se"]
        assert r["damage_per_100_se"] == pytest.approx(r["damage_se"] * 100 / r["minerals"])
    text = _ok(*args)
    for line in text.splitlines()[2:4]:
        cells = re.split(r"  +", line.strip())
        assert all(" ± " in c for c in cells[3:5] + cells[6:]), line  # every mean ± its standard error
        assert cells[5].startswith("< 0.15% (95%)"), line  # P(destroy) never seen: its one-sided bound
    assert not re.search(r"± 0\.0+(?![0-9])", text)  # no "± 0" claim of certainty
    exact = _ok(*args[:-2])
    assert "±" not in exact and "(95%)" not in exact
    chances = [re.split(r"  +", line.strip())[5] for line in exact.splitlines()[2:4]]
    # a small chance is not printed as 0: a percentage with 2 decimals, or "<0.01%" (one format per column)
    assert all(c == "<0.01%" or float(c.rstrip("%")) > 0 for c in chances), chances
    assert all(re.fullmatch(r"<0\.01%|\d+\.\d\d%", c) for c in chances), chances


# ---------------------------------------------------------------------------------------------------- folding


def _fields(r: dict[str, Any]) -> dict[str, Any]:
    skip = {"upgrades", "minerals", "rank", "label", "same_as", "damage_per_100", "kills_per_100"}
    return {k: v for k, v in r.items() if k not in skip and not k.endswith("_per_100_se")}


def test_equal_loadouts_fold_into_the_cheapest_with_the_whole_distribution_equal() -> None:
    rows = _json(*QUICK)
    by = {(r["target"], r["label"]): r for r in rows}
    zerg = {r["label"]: r for r in rows if r["target"] == "12 Zergling"}
    for other in ("Combat Shield", "Bayonet", "Slugthrower", "Grenades - Frag", "Slugthrower + Bayonet"):
        assert zerg[f"9 Marine + {other}"]["same_as"] == "9 Marine"
    assert zerg["9 Marine"]["same_as"] is None and zerg["9 Marine + AGG-12"]["same_as"] is None
    for r in rows:
        if r["same_as"] is None:
            continue
        base = by[(r["target"], r["same_as"])]
        assert base["same_as"] is None and base["attack_id"] == r["attack_id"]
        assert (base["minerals"], base["rank"]) < (r["minerals"], r["rank"])
        assert _fields(r) | {"use": 0} == _fields(base) | {"use": 0}  # every p_ge_k, mean, SE: the whole distribution
    text = _ok(*QUICK)
    assert "9 Marine (= 15 more)" in text and "Combat Shield" not in text


def test_what_equals_depends_on_the_situation() -> None:
    """Grenades - Frag acts Within 8": its own row at 5", folded into the base at 10"."""
    args = ["compare", "Marine", "--vs", "Zergling", "--comp", "9", "--upgrades", "Grenades - Frag,Bayonet"]
    near = {r["label"]: r["same_as"] for r in _json(*args, "--range", "5")}
    far = {r["label"]: r["same_as"] for r in _json(*args, "--range", "10")}
    assert near["9 Marine + Grenades - Frag"] is None and far["9 Marine + Grenades - Frag"] == "9 Marine"
    assert near["9 Marine + Bayonet"] == "9 Marine"


def test_monte_carlo_folds_by_the_compiled_attack_not_by_the_numbers() -> None:
    exact = {(r["target"], r["label"]): r["same_as"] for r in _json(*QUICK)}
    mc = {(r["target"], r["label"]): r["same_as"] for r in _json(*QUICK, "--trials", "300", "--comp", "9")}
    assert mc == {k: v for k, v in exact.items() if k[1].startswith("9 ")}


def test_all_loadouts_lists_the_folded_rows_under_their_base(tmp_path: Path) -> None:
    out = tmp_path / "c.csv"
    args = ["compare", "Marine", "--vs", "Zergling", "--comp", "9", "--upgrades", "Bayonet,AGG-12", "--range", "10"]
    text = _ok(*args, "--all-loadouts", "--csv", str(out))
    printed = _printed(text)["12 Zergling"]
    assert printed == [
        ("1", "9 Marine (= 1 more)"),
        ("=", "9 Marine + Bayonet = 9 Marine"),
        ("2", "9 Marine + AGG-12 (= 1 more)"),
        ("=", "9 Marine + AGG-12 + Bayonet = 9 Marine + AGG-12"),
    ]
    assert "Left out" not in text
    with out.open() as f:
        table = list(csv.DictReader(f))
    assert len(table) == 4
    assert {r["label"]: r["same_as"] for r in table}["9 Marine + AGG-12 + Bayonet"] == "9 Marine + AGG-12"
    assert {r["label"]: r["same_as"] for r in table}["9 Marine"] == ""


def test_the_plot_draws_distinct_loadouts_only(tmp_path: Path) -> None:
    png = tmp_path / "c.png"
    rows = _json(*QUICK, "--plot", str(png), "--plot-top", "5")
    assert png.stat().st_size > 5000
    from mathhammer.cli.compare import _plot

    fig = _plot(rows, systems.get("starcraft").words, 5)
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert [len(names) for names in legends] == [5, 5]
    assert legends[0][:2] == ["9 Marine (210 minerals)", "9 Marine + AGG-12 (220 minerals)"]
