"""What an engine returns: named histograms of one attack's outcome, and how a system names them.

Both engines of every game system fill a :class:`Tally`: histograms keyed by
name. For the exact engine the entries are probabilities and ``trials == 0``;
for Monte Carlo they are counts (as floats, exact integers up to 2**53) over
``trials`` trials. Which histograms there are, and what they mean, is the game
system's to say: it declares them as :class:`Outcome` values, and a
:class:`~mathhammer.results.Result` shows exactly those, in its words.

>>> t = Tally(hits=np.array([0.25, 0.75]), models_destroyed=np.array([0.5, 0.5]))
>>> t.hits.tolist(), t.exact, sorted(t.hists)
([0.25, 0.75], True, ['hits', 'models_destroyed'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use: importing this module loads none
    from .lazy import numpy as np

#: How an outcome is read from its histogram, shown and written as JSON:
#:
#: - ``table``: a distribution: JSON ``{pmf, mean, stderr}``, a k / P(=k) / P(>=k) table, a plot panel;
#: - ``pmf``: a distribution shown by its mean: JSON ``{pmf}``;
#: - ``last``: the probability of the histogram's last value (every model destroyed): JSON ``{p, stderr}``;
#: - ``flag``: the probability of 1 in a 0/1 histogram: JSON ``{p}``.
Kind = Literal["table", "pmf", "last", "flag"]


@dataclass(frozen=True)
class Outcome:
    """One quantity a game system reports, in its own words.

    Attributes:
        name: the attribute of a Result and its JSON key (``damage``, ``wounds``, ``morale_test_due``).
        label: words for people (``Damage dealt``, ``P(morale test due)``).
        kind: see :data:`Kind`.
        source: the Tally histogram it is read from.
        unit: what one step of a distribution counts (``damage``, ``wounds``, ``models``).
        trim: JSON and tables leave out the values past the last possible one.
        optional: shown only when the Tally has the histogram (a joined hero's wounds).
    """

    name: str
    label: str
    kind: Kind
    source: str
    unit: str = ""
    trim: bool = False
    optional: bool = False

    @property
    def is_distribution(self) -> bool:
        return self.kind in ("table", "pmf")


@dataclass(frozen=True, eq=False, init=False, repr=False)
class Tally:
    """Histograms of an attack's outcome, by name (see the module docstring).

    Attributes:
        hists: float64 arrays by name; read one as ``tally.name`` or ``tally["name"]``.
        trials: Monte Carlo trials, 0 for exact probabilities.
    """

    hists: dict[str, np.ndarray]
    trials: int

    def __init__(self, trials: int = 0, **hists: np.ndarray) -> None:
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in hists.items()}
        if int(trials) == 0:  # exact: every engine's probabilities are clamped here, once
            arrays = {k: probabilities(v) for k, v in arrays.items()}
        object.__setattr__(self, "hists", arrays)
        object.__setattr__(self, "trials", int(trials))

    def __getattr__(self, name: str) -> np.ndarray:
        hists = self.__dict__.get("hists", {})
        if name in hists:
            return hists[name]
        raise AttributeError(f"this Tally has no histogram {name!r} (it has {', '.join(hists) or 'none'})")

    def __getitem__(self, name: str) -> np.ndarray:
        return self.hists[name]

    def __contains__(self, name: object) -> bool:
        return name in self.hists

    @property
    def exact(self) -> bool:
        return self.trials == 0

    def with_hists(self, **hists: np.ndarray) -> Tally:
        """The same Tally with histograms added (or replaced)."""
        return Tally(self.trials, **{**self.hists, **hists})

    def merged(self, other: Tally) -> Tally:
        """Add the counts of two Monte Carlo tallies of the same attack."""
        if self.exact or other.exact:
            raise ValueError("only Monte Carlo tallies can be merged")
        if set(self.hists) != set(other.hists):
            raise ValueError("only tallies of the same histograms can be merged")
        return Tally(self.trials + other.trials, **{k: _add(v, other.hists[k]) for k, v in self.hists.items()})

    def __repr__(self) -> str:
        sizes: dict[str, Any] = {k: v.size for k, v in self.hists.items()}
        return f"Tally(trials={self.trials}, sizes={sizes})"


def probabilities(pmf: np.ndarray) -> np.ndarray:
    """An exact pmf as reported: entries clamped to [0, 1], and divided by their sum when rounding made it
    exceed 1 (so P(>= k), P(all) and the mean stay in their ranges).

    >>> probabilities(np.array([3e-52, 1.0000000000000053, -1e-18])).tolist()
    [3e-52, 1.0, 0.0]
    """
    out = np.clip(pmf, 0.0, 1.0)
    total = float(out.sum())
    return out / total if total > 1.0 else out


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = max(a.size, b.size)
    out = np.zeros(n)
    out[: a.size] += a
    out[: b.size] += b
    return out
