"""How an estimated probability is printed: one format for every command (issue 28 point 5).

A proportion estimated from ``n`` Monte Carlo trials is printed with its standard error, except when
every trial went the same way: then the standard error is 0 and "0.0% ± 0.0%" would claim a certainty
ten games cannot give. Such an estimate prints as a one-sided 95% bound instead, the exact
(Clopper-Pearson) one: with no success in ``n`` trials, P < 1 - 0.05 ** (1 / n).

Standard library only: every command imports it.
"""

from __future__ import annotations

import math

__all__ = ["CONFIDENCE", "bound", "probability", "share"]

#: The confidence of the one-sided bound printed for an estimate of exactly 0 or 1.
CONFIDENCE = 0.95


def bound(n: int) -> float:
    """The exact one-sided 95% upper bound on a probability never seen in ``n`` trials.

    >>> round(bound(10), 4)
    0.2589
    >>> round(bound(1_000_000) * 1e6, 2)
    3.0
    """
    if n < 1:
        raise ValueError(f"n: got {n}; allowed: at least 1 trial")
    return 1.0 - (1.0 - CONFIDENCE) ** (1.0 / n)


def _digits(se: float) -> int:
    """Decimals (of a percentage) that show two significant digits of ``se``, 1 to 3."""
    if se <= 0 or not math.isfinite(se):
        return 1
    return min(3, max(1, 1 - math.floor(math.log10(se * 100))))


def share(p: float, se: float, n: int | None) -> str:
    """``p`` as a percentage with its standard error; an estimate of 0 or 1 from ``n`` trials as a bound.

    ``n`` None means exact (no error to print).

    >>> share(0.47812, 0.000353, 10_000)
    '47.812% ± 0.035%'
    >>> share(0.0, 0.0, 10)
    '< 26% (95%)'
    >>> share(1.0, 0.0, 10)
    '> 74% (95%)'
    >>> share(0.25, 0.0, None)
    '25.0%'
    """
    if n is None:
        return f"{p:.1%}"
    if p <= 0.0 or p >= 1.0:
        b = bound(n)
        d = 0 if b >= 0.1 else min(4, 1 - math.floor(math.log10(b * 100)))
        return f"< {b:.{d}%} (95%)" if p <= 0.0 else f"> {1.0 - b:.{d}%} (95%)"
    d = _digits(se)
    return f"{p:.{d}%} ± {se:.{d}%}"


def probability(p: float, se: float, n: int | None, digits: int = 4) -> str:
    """``p`` as a probability (``0.2867``) ± its standard error; an estimate of 0 or 1 as a bound.

    >>> probability(0.2867, 0.0045, 10_000)
    '0.2867 ± 0.0045'
    >>> probability(0.0, 0.0, 10)
    '< 0.26 (95%)'
    >>> probability(1.0, 0.0, 100_000)
    '> 0.999970 (95%)'
    >>> probability(0.5, 0.0, None)
    '0.5000'
    """
    if n is None:
        return f"{p:.{digits}f}"
    if p <= 0.0 or p >= 1.0:
        b = bound(n)
        d = max(0, 1 - math.floor(math.log10(b)))  # two significant digits of the bound
        return f"< {b:.{d}f} (95%)" if p <= 0.0 else f"> {1.0 - b:.{d}f} (95%)"
    return f"{p:.{digits}f} ± {se:.{digits}f}"
