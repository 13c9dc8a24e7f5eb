"""The Result layer: summaries, standard errors, pandas, plots and HTML."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mathhammer.outcome import Tally
from mathhammer.results import Distribution, Result
from mathhammer.starcraft.outcomes import result as starcraft_result

ROOT = Path(__file__).resolve().parents[1]


def mc_result() -> Result:
    # 1000 trials: damage 0 (250), 2 (500), 4 (250); 2 models, destroyed in 250 trials
    tally = Tally(
        damage=np.array([250.0, 0, 500, 0, 250]),
        models_destroyed=np.array([250.0, 500, 250]),
        marker=np.array([750.0, 250]),
        shielded=np.array([600.0, 400]),
        trials=1000,
    )
    return starcraft_result(tally, 2, 5, "test")


def test_distribution_summary_and_quantiles() -> None:
    d = Distribution("x", np.array([0.1, 0.2, 0.3, 0.4]))
    assert math.isclose(d.mean, 2.0)
    assert d.quantile(0.05) == 0 and d.quantile(0.3) == 1 and d.quantile(0.31) == 2 and d.quantile(1.0) == 3
    assert [d.at_least(k) for k in range(5)] == pytest.approx([1.0, 0.9, 0.7, 0.4, 0.0], abs=1e-15)
    assert d.stderr == 0.0


def test_monte_carlo_standard_errors() -> None:
    r = mc_result()
    assert math.isclose(r.damage.mean, 2.0)
    assert math.isclose(r.damage.sd, math.sqrt(2.0))
    assert math.isclose(r.damage.stderr, math.sqrt(2.0 / 1000))
    assert math.isclose(r.unit_destroyed, 0.25)
    assert math.isclose(r.unit_destroyed_stderr, math.sqrt(0.25 * 0.75 / 1000))
    assert math.isclose(r.shielded_after, 0.4)
    d = r.to_dict()
    assert d["damage"]["pmf"] == [0.25, 0.0, 0.5, 0.0, 0.25]
    assert d["damage_marker"]["pmf"] == [0.75, 0.25]
    assert d["trials"] == 1000 and d["seed"] == 5


def test_to_frame_is_tidy() -> None:
    df = mc_result().to_frame()
    assert list(df.columns) == ["quantity", "k", "p_eq", "p_ge", "p_ge_stderr"]
    dmg = df[df.quantity == "damage"]
    assert dmg.p_eq.sum() == 1.0 and dmg.p_ge.iloc[0] == 1.0
    assert set(df.quantity) == {"damage", "models_destroyed", "damage_marker"}


def test_plot_has_bars_and_step_lines(tmp_path: Path) -> None:
    fig = mc_result().plot()
    axes = fig.axes
    assert len(axes) == 2
    assert len(axes[0].patches) == 5 and len(axes[1].patches) == 3  # P(=k) bars
    assert len(axes[0].lines) >= 1  # P(>=k) step line
    out = tmp_path / "r.png"
    fig.savefig(out)
    assert out.stat().st_size > 1000


def test_repr_html_and_repr() -> None:
    r = mc_result()
    html = r._repr_html_()
    assert "<table>" in html and "P(unit destroyed)" in html and "±" in html
    assert "2.0000 ±" in repr(r)


def test_pandas_and_matplotlib_load_lazily() -> None:
    code = (
        "import sys, mathhammer\n"
        "from mathhammer import Weapon, Batch, Target, run\n"
        "r = run(Batch(Weapon.build(roa=2), models=3), Target.build(3, 1))\n"
        "assert not {'pandas', 'matplotlib', 'numba'} & set(sys.modules), sorted(sys.modules)\n"
        "r.to_frame(); assert 'pandas' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
