"""Issue 28 point 5 in the army-efficiency report: figures named in words wherever a person reads them
("Supply removed per 100 minerals", "Wounds per 100 points"; CSV headers keep the keys and the page says
so), one number format per heatmap and per table, and P(destroy) estimated as exactly 0 or 1 printed as its
one-sided 95% bound."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pandas as pd
import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.report.columns import Columns
from mathhammer.report.output import _bound_trials, _table, heatmap

matplotlib.use("Agg")
runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
TERRAN = ROOT / "profiles" / "armies" / "terran_skirmish.toml"
ZERG = ROOT / "profiles" / "armies" / "zerg_skirmish.toml"


@pytest.mark.parametrize(
    ("system", "headline", "words"),
    [
        ("starcraft", "supply_removed_per_100", "Supply removed per 100 minerals"),
        ("gf", "wounds_per_100", "Wounds per 100 points"),
    ],
)
def test_every_figure_has_words_and_the_headline_reads_as_the_issue_asks(
    system: str, headline: str, words: str
) -> None:
    cols = Columns.of(system)
    assert cols.headline == headline and cols.label(headline) == words
    for column in cols.figure_columns():
        label = cols.label(column)
        assert "_" not in label and "/" not in label and label[0].isupper(), (column, label)


def _block(values: list[float]) -> pd.DataFrame:
    rows = [
        {"attacker": f"a{i}", "target": "t", "p_destroy": v, "side": "x", "phase": "assault", "cost_unit": "minerals"}
        for i, v in enumerate(values)
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("values", [[4.8e-05, 0.31, 0.0], [12.5, 3.0, 0.25], [0.98, 1.0, 0.0]])
def test_a_heatmap_prints_one_number_format(values: list[float]) -> None:
    fig = heatmap(_block(values), "p_destroy", "title", Columns.of("starcraft"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == len(values)
    assert not any("e" in t for t in texts)  # no "4.8e-05" next to "0.31"
    assert len({len(t.split(".")[1]) if "." in t else 0 for t in texts}) == 1, texts


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = html.split(f"id='{table_id}'")[1].split("</table>")[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in body.split("<tr>")[2:]]


def test_table_figures_keep_four_decimals_and_bound_zero_and_one() -> None:
    frame = pd.DataFrame(
        {
            "attacker": ["a", "b", "c"],
            "trials": [1000, 1000, 0],
            "p_destroy": [0.0, 1.0, 0.0],
            "p_destroy_se": [0.0, 0.0, 0.0],
            "damage_mean": [0.0, 2.0, 1.25],
            "damage_se": [0.0, 0.1, 0.0],
        }
    )
    cols = [("attacker", "attacker", None), ("trials", "trials", None)]
    cols += [("p_destroy", "P(destroy)", "p_destroy_se"), ("damage_mean", "Damage", "damage_se")]
    rows = _cells(_table(frame, cols, "t", "trials"), "t")
    assert rows[0][2:] == ["&lt; 0.0030 (95%)", "0.0000"]  # never seen in 1,000 trials; a mean of 0 is a mean
    assert rows[1][2:] == ["&gt; 0.9970 (95%)", "2.0000 ± 0.1000"]  # was "1" and "2 ± 0.1000"
    assert rows[2][2:] == ["0.0000", "1.2500"]  # exact: no bound, no ±
    assert rows[0][1] == "1000"  # counts stay whole numbers


def test_the_bound_of_a_ranked_mean_counts_every_target() -> None:
    df = pd.DataFrame({"side": ["s"] * 3, "phase": ["assault"] * 3, "attacker": ["a"] * 3, "trials": [100, 50, 80]})
    ranked = pd.DataFrame({"side": ["s"], "phase": ["assault"], "attacker": ["a"], "targets": [3]})
    assert _bound_trials(ranked, df)["bound_trials"].tolist() == [150]  # 3 targets x the fewest trials, 50


def test_report_in_words_on_the_page_and_the_command_line(tmp_path: Path) -> None:
    """One Monte Carlo report: the CLI's "best" lines and the page name the headline in words; the CSV files
    keep the keys and the page says what each key means; no "± 0.0000"; some P(destroy) is a bound."""
    out = tmp_path / "r"
    r = runner.invoke(app, ["report", str(TERRAN), str(ZERG), "--out", str(out), "--serial", "--trials", "200"])
    assert r.exit_code == 0, r.stderr
    best = [line for line in r.stdout.splitlines() if line.startswith("  best ")]
    assert best and all("(Supply removed per 100 minerals " in line for line in best)
    assert "supply_removed_per_100" not in r.stdout

    page = (out / "report.html").read_text()
    assert "Ranked by Supply removed per 100 minerals" in page
    assert "<th class=''>Supply removed per 100 minerals</th>" in page
    visible = re.sub(r"<script>.*?</script>|<[^>]+>|data:image/png;base64,[^']*", " ", page, flags=re.S)
    before, legend = visible.split("Columns of the CSV files")
    assert "supply_removed_per_100" in legend and "supply_removed_per_100" not in before
    assert " ± 0.0000" not in page and re.search(r">\d+\.\d{4} ± \d+\.\d{4}<", page)
    assert "(95%)" in page  # some P(destroy) was never seen in 200 trials
    assert "supply_removed_per_100" in pd.read_csv(out / "ranking.csv").columns  # CSV headers keep the keys
