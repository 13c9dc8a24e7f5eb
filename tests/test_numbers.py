"""Issue 28 point 5: an estimate of 0 or 1 prints a one-sided 95% bound, never '0.0% ± 0.0%'."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.numbers import bound, probability, share


@pytest.mark.parametrize("n", [1, 10, 137, 10_000])
def test_the_bound_is_exact_clopper_pearson(n: int) -> None:
    # P(no success in n trials | p = bound) is exactly 5%: the 95% one-sided bound
    assert (1.0 - bound(n)) ** n == pytest.approx(0.05, rel=1e-9)


def test_bound_covers_95_percent_by_simulation() -> None:
    # a true p just above the bound gives zero successes in 10 trials less than 5% of the time
    rng = np.random.default_rng(1)
    p = bound(10) * 1.02
    zero = (rng.random((200_000, 10)) < p).sum(axis=1) == 0
    assert zero.mean() < 0.05


def test_zero_and_one_print_as_bounds() -> None:
    assert share(0.0, 0.0, 10) == "< 26% (95%)"
    assert share(1.0, 0.0, 10) == "> 74% (95%)"
    assert "±" not in share(0.0, 0.0, 1_000_000)
    assert probability(0.0, 0.0, 10) == "< 0.26 (95%)"
    assert share(0.3, 0.01, 2000) == "30.0% ± 1.0%"


def test_no_trials_is_refused() -> None:
    with pytest.raises(ValueError, match="n: got 0"):
        bound(0)
