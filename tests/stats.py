"""Statistical checks of Monte Carlo tallies against exact distributions."""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2_contingency, power_divergence

from mathhammer.outcome import Tally

HISTOGRAMS = ("damage", "models_destroyed", "marker", "shielded")
#: Grimdark Future's histograms (its engines' Tally).
GF_HISTOGRAMS = ("wounds", "models_destroyed", "wounds_on_next", "morale_test_due")


def _pad(a: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n)
    out[: a.size] = a
    return out


def g_test(observed_counts, expected_probs, min_expected: float = 5.0) -> float:
    """p-value of a G-test of ``observed_counts`` against ``expected_probs``.

    Adjacent bins are merged until each holds an expected count of at least
    ``min_expected`` (a short last run joins its neighbour). A count in a bin
    the exact distribution calls impossible gives p = 0. One bin left: p = 1.
    """
    observed = np.asarray(observed_counts, dtype=float)
    expected = np.asarray(expected_probs, dtype=float)
    n = max(observed.size, expected.size)
    observed, expected = _pad(observed, n), _pad(expected, n)
    total = observed.sum()
    if total <= 0:
        raise ValueError("no observations")
    expected = expected / expected.sum() * total
    if np.any((expected < 1e-9 * total) & (observed > 0)):
        return 0.0
    obs_bins: list[float] = []
    exp_bins: list[float] = []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= min_expected:
            obs_bins.append(o_acc)
            exp_bins.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:
        if exp_bins:
            obs_bins[-1] += o_acc
            exp_bins[-1] += e_acc
        else:
            obs_bins.append(o_acc)
            exp_bins.append(e_acc)
    if len(exp_bins) < 2:
        return 1.0
    result = power_divergence(np.array(obs_bins), np.array(exp_bins), lambda_="log-likelihood")
    return float(result.pvalue)


def _mean_var(probs: np.ndarray) -> tuple[float, float]:
    k = np.arange(probs.size)
    p = probs / probs.sum()
    mean = float((k * p).sum())
    return mean, float((k * k * p).sum() - mean * mean)


def assert_agree(mc: Tally, exact: Tally, p_min: float = 1e-6, se_max: float = 5.0, label: str = "") -> None:
    """Assert that a Monte Carlo tally (counts) agrees with exact probabilities.

    Every histogram passes the G-test at ``p_min``; the means of damage and of
    models destroyed are within ``se_max`` standard errors of the exact means.
    """
    assert mc.trials > 0, "first argument: a Monte Carlo tally (counts)"
    assert exact.trials == 0, "second argument: an exact tally (probabilities)"
    problems = []
    assert set(mc.hists) == set(exact.hists), f"{label}: different histograms {sorted(mc.hists)} {sorted(exact.hists)}"
    for name in mc.hists:
        counts = getattr(mc, name)
        probs = getattr(exact, name)
        if abs(counts.sum() - mc.trials) > 0.5:
            problems.append(f"{name}: counts sum to {counts.sum()}, not {mc.trials} trials")
            continue
        p = g_test(counts, probs)
        if p < p_min:
            n = max(counts.size, probs.size)
            problems.append(
                f"{name}: G-test p={p:.3g}\n  observed freq {np.round(_pad(counts, n) / mc.trials, 4).tolist()}"
                f"\n  exact probs   {np.round(_pad(probs, n), 4).tolist()}"
            )
    for name in ("damage" if "damage" in mc else "wounds", "models_destroyed"):
        counts = getattr(mc, name)
        mean, var = _mean_var(getattr(exact, name))
        k = np.arange(counts.size)
        mc_mean = float((k * counts).sum() / mc.trials)
        se = np.sqrt(var / mc.trials)
        if se == 0:
            if abs(mc_mean - mean) > 1e-9:
                problems.append(f"{name}: mean {mc_mean} vs exact {mean} (no variance)")
        elif abs(mc_mean - mean) > se_max * se:
            problems.append(f"{name}: mean {mc_mean:.5f} vs exact {mean:.5f} ({(mc_mean - mean) / se:.1f} SE)")
    assert not problems, f"{label}: Monte Carlo disagrees with exact:\n" + "\n".join(problems)


def two_sample_p(a_counts: np.ndarray, b_counts: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value of a G-test that two histograms of counts come from one distribution.

    Adjacent bins are merged until each column's smaller expected count is at
    least ``min_expected``. One column left: p = 1.
    """
    n = max(a_counts.size, b_counts.size)
    a, b = _pad(np.asarray(a_counts, float), n), _pad(np.asarray(b_counts, float), n)
    share = min(a.sum(), b.sum()) / (a.sum() + b.sum())
    cols: list[tuple[float, float]] = []
    acc_a = acc_b = 0.0
    for x, y in zip(a, b, strict=True):
        acc_a += x
        acc_b += y
        if (acc_a + acc_b) * share >= min_expected:
            cols.append((acc_a, acc_b))
            acc_a = acc_b = 0.0
    if acc_a or acc_b:
        if cols:
            cols[-1] = (cols[-1][0] + acc_a, cols[-1][1] + acc_b)
        else:
            cols.append((acc_a, acc_b))
    if len(cols) < 2:
        return 1.0
    table = np.array(cols).T
    return float(chi2_contingency(table, lambda_="log-likelihood").pvalue)


def assert_same_distribution(x: Tally, y: Tally, p_min: float = 1e-6, label: str = "") -> None:
    """Assert that two Monte Carlo tallies (counts) agree on every histogram (two-sample G-test)."""
    assert x.trials > 0 and y.trials > 0, "both arguments: Monte Carlo tallies (counts)"
    problems = []
    for name in x.hists:
        p = two_sample_p(getattr(x, name), getattr(y, name))
        if p < p_min:
            problems.append(f"{name}: two-sample G-test p={p:.3g}")
    assert not problems, f"{label}: the two samples disagree:\n" + "\n".join(problems)
