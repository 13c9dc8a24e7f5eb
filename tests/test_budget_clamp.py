"""Exact probabilities are clamped to [0, 1] at one place (issue 27 point 4): ``outcome.Tally``."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.outcome import Tally, probabilities


def test_a_pmf_past_one_by_rounding_is_brought_back():
    t = Tally(models_destroyed=np.array([3.2e-52, 1.0000000000000053]), damage=np.array([-1e-18, 0.5, 0.5]))
    assert t.models_destroyed[-1] == 1.0
    assert t.models_destroyed.sum() <= 1.0
    assert t.damage.tolist() == [0.0, 0.5, 0.5]


def test_monte_carlo_counts_are_left_alone():
    t = Tally(10, damage=np.array([3.0, 7.0]))
    assert t.damage.tolist() == [3.0, 7.0]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e-12, 1.5), min_size=1, max_size=20))
def test_probabilities_stay_in_range(values):
    out = probabilities(np.array(values))
    assert np.all((out >= 0.0) & (out <= 1.0))
    assert out.sum() <= 1.0 + 1e-15


def test_the_reported_attack_never_exceeds_one():
    """``attack --models 10 --roa 10 --hit 2 --target-armour 6`` reported P = 1.0000000000000053."""
    r = CliRunner().invoke(
        app, ["attack", "--models", "10", "--roa", "10", "--hit", "2", "--target-armour", "6", "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["unit_destroyed"]["p"] == 1.0
    for name in ("damage", "models_destroyed"):
        pmf = data[name]["pmf"]
        assert all(0.0 <= p <= 1.0 for p in pmf) and sum(pmf) <= 1.0 + 1e-15
        assert 0.0 <= data[name]["mean"] <= len(pmf) - 1
