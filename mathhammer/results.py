"""Results: distributions with summaries and standard errors, tables and plots, in each system's words.

A :class:`Result` wraps an engine's :class:`~mathhammer.outcome.Tally` and the
:class:`~mathhammer.outcome.Outcome` values its game system declares: it shows
exactly those, under their names (``r.damage`` and ``r.shielded_after`` for
StarCraft TMG, ``r.wounds`` and ``r.morale_test_due`` for Grimdark Future).
Every Monte Carlo estimate carries its standard error; exact results report 0.

pandas and matplotlib are imported only by :meth:`Result.to_frame` and
:meth:`Result.plot`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use: importing this module loads none
    from .lazy import numpy as np

from .outcome import Outcome, Tally

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure


def _trim(pmf: np.ndarray) -> np.ndarray:
    nz = np.flatnonzero(pmf)
    return pmf[: (nz[-1] + 1 if nz.size else 1)]


@dataclass(frozen=True, eq=False)
class Distribution:
    """The distribution of a whole-number quantity.

    Attributes:
        name: what it measures ("damage", "models destroyed", ...).
        pmf: ``pmf[k]`` = P(value = k).
        trials: Monte Carlo trials behind the estimate (0: exact).

    >>> d = Distribution("damage", np.array([0.25, 0.5, 0.25]))
    >>> d.mean, d.sd, d.at_least(1), d.quantile(0.5)
    (1.0, 0.7071067811865476, 0.75, 1)
    """

    name: str
    pmf: np.ndarray
    trials: int = 0

    @cached_property
    def values(self) -> np.ndarray:
        return np.arange(self.pmf.size)

    @cached_property
    def mean(self) -> float:
        return float(np.dot(self.values, self.pmf))

    @cached_property
    def sd(self) -> float:
        var = float(np.dot((self.values - self.mean) ** 2, self.pmf))
        return math.sqrt(max(var, 0.0))

    @property
    def stderr(self) -> float:
        """Standard error of :attr:`mean` (0 for exact results)."""
        return self.sd / math.sqrt(self.trials) if self.trials else 0.0

    @cached_property
    def survival(self) -> np.ndarray:
        """``survival[k]`` = P(value >= k)."""
        return np.clip(np.cumsum(self.pmf[::-1])[::-1], 0.0, 1.0)

    def at_least(self, k: int) -> float:
        """P(value >= k)."""
        if k <= 0:
            return 1.0
        return float(self.survival[k]) if k < self.pmf.size else 0.0

    def prob_stderr(self, p: float) -> float:
        """Standard error of an estimated probability ``p`` (0 for exact)."""
        return math.sqrt(max(p * (1 - p), 0.0) / self.trials) if self.trials else 0.0

    def quantile(self, q: float) -> int:
        """Smallest k with P(value <= k) >= q."""
        cdf = np.cumsum(self.pmf)
        return min(int(np.searchsorted(cdf, q - 1e-12)), self.pmf.size - 1)

    def summary(self) -> dict[str, float]:
        return {
            "mean": self.mean,
            "stderr": self.stderr,
            "sd": self.sd,
            "q05": self.quantile(0.05),
            "median": self.quantile(0.5),
            "q95": self.quantile(0.95),
        }


@dataclass(frozen=True, eq=False, repr=False)
class Result:
    """The outcome of an attack on one unit, as its game system declares it.

    Attributes:
        engine: ``"exact"`` or ``"monte-carlo"``.
        tally: the engine's histograms.
        models: models in the target at the start.
        seed: the Monte Carlo seed (None for exact).
        label: a short description for tables and plots.
        outcomes: what the system reports (its :class:`~mathhammer.outcome.Outcome` list); those whose
            histogram the tally lacks and that are ``optional`` are left out.
        system: the game system's name.
        hidden: outcomes that cannot apply to this target (StarCraft's Damage Marker on 1-HP models,
            SHIELDED on a unit without Shield): text, HTML and repr leave them out; ``to_dict`` (the JSON)
            keeps every outcome, its value true but constant. See :meth:`without`.

    Each outcome is an attribute: a distribution outcome is a :class:`Distribution`
    (``r.damage.mean``), a probability a float (``r.unit_destroyed``), with
    ``r.<name>_stderr`` its standard error.
    """

    engine: str
    tally: Tally
    models: int
    seed: int | None = None
    label: str = "attack"
    outcomes: tuple[Outcome, ...] = ()
    system: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        shown = tuple(o for o in self.outcomes if not (o.optional and o.source not in self.tally))
        for o in shown:
            if o.source not in self.tally:
                raise ValueError(f"outcome {o.name!r} reads histogram {o.source!r}, which the tally lacks")
        object.__setattr__(self, "outcomes", shown)

    @property
    def trials(self) -> int:
        return self.tally.trials

    def without(self, *names: str) -> Result:
        """The same result with the outcomes ``names`` left out of its text, HTML and repr (not its JSON).

        >>> from mathhammer.outcome import Outcome, Tally
        >>> r = Result("exact", Tally(hit=np.array([0.5, 0.5])), 1, outcomes=(Outcome("hit", "P(hit)", "flag", "hit"),))
        >>> r.text_report().splitlines()[-1], r.without("hit").text_report().splitlines()[-1]
        ('P(hit): 0.5000', 'Engine: exact')
        """
        from dataclasses import replace

        for name in names:
            self.outcome(name)  # a name the system does not declare is a mistake
        return replace(self, hidden=tuple(dict.fromkeys((*self.hidden, *names))))

    @property
    def _shown(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.name not in self.hidden)

    @cached_property
    def _by_name(self) -> dict[str, Outcome]:
        return {o.name: o for o in self.outcomes}

    def outcome(self, name: str) -> Outcome:
        """The declared outcome called ``name``."""
        try:
            return self._by_name[name]
        except KeyError:
            raise AttributeError(
                f"a {self.system or 'this'} result has no {name!r}; it has {', '.join(self._by_name)}"
            ) from None

    @cached_property
    def _values(self) -> dict[str, Any]:
        total = self.trials or 1
        out: dict[str, Any] = {}
        for o in self.outcomes:
            counts = np.asarray(self.tally[o.source], dtype=float)
            if o.is_distribution:
                out[o.name] = Distribution(o.name.replace("_", " "), counts / total, self.trials)
            elif o.kind == "last":
                out[o.name] = float(counts[self.models] / total) if counts.size > self.models else 0.0
            else:
                out[o.name] = float(counts[1] / total)
        return out

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name.endswith("_stderr") and name[: -len("_stderr")] in self._by_name:
            return self.stderr(name[: -len("_stderr")])
        self.outcome(name)
        return self._values[name]

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._by_name})

    def stderr(self, name: str) -> float:
        """Standard error of an outcome's estimate: of the mean for a distribution, else of the probability."""
        o = self.outcome(name)
        value = self._values[name]
        if o.is_distribution:
            return float(value.stderr)
        return math.sqrt(max(value * (1 - value), 0.0) / self.trials) if self.trials else 0.0

    @property
    def distributions(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.is_distribution)

    @property
    def dealt(self) -> Distribution:
        """The system's first distribution: what the attack dealt (Damage, wounds)."""
        return self._values[self.distributions[0].name]

    @property
    def dealt_name(self) -> str:
        return self.distributions[0].name

    @cached_property
    def _wiped(self) -> Outcome:
        found = [o for o in self.outcomes if o.kind == "last"]
        if not found:
            raise ValueError(f"a {self.system or 'this'} result has no unit-destroyed outcome (kind 'last')")
        return found[0]

    @property
    def destroyed(self) -> Distribution:
        """The system's models-destroyed distribution (the histogram its unit-destroyed outcome reads)."""
        name = next(o.name for o in self.distributions if o.source == self._wiped.source)
        return self._dist(name)

    @property
    def p_destroyed(self) -> float:
        """P(every model of the unit removed), whatever the system calls it."""
        return float(self._values[self._wiped.name])

    @property
    def p_destroyed_stderr(self) -> float:
        return self.stderr(self._wiped.name)

    def _dist(self, name: str) -> Distribution:
        value = self._values[self.outcome(name).name]
        if not isinstance(value, Distribution):
            raise ValueError(f"{name!r} is a probability, not a distribution")
        return value

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``mathhammer attack --json``: engine, trials, seed, then every outcome."""
        out: dict[str, Any] = {"engine": self.engine, "trials": self.trials or None, "seed": self.seed}
        for o in self.outcomes:
            value = self._values[o.name]
            if o.kind == "table":
                pmf = _trim(value.pmf) if o.trim else value.pmf
                out[o.name] = {"pmf": pmf.tolist(), "mean": value.mean, "stderr": value.stderr}
            elif o.kind == "pmf":
                out[o.name] = {"pmf": (_trim(value.pmf) if o.trim else value.pmf).tolist()}
            elif o.kind == "last":
                out[o.name] = {"p": value, "stderr": self.stderr(o.name)}
            else:
                out[o.name] = {"p": value}
        return out

    def summary(self) -> dict[str, float]:
        """Headline figures: means with standard errors and key probabilities."""
        out: dict[str, float] = {}
        for o in self.outcomes:
            value = self._values[o.name]
            if o.kind == "table":
                out[f"{o.name}_mean"] = value.mean
                out[f"{o.name}_stderr"] = value.stderr
            elif o.kind == "last":
                out[f"p_{o.name}"] = value
                out[f"p_{o.name}_stderr"] = self.stderr(o.name)
            elif o.kind == "flag":
                out[f"p_{o.name}"] = value
        return out

    def table(self, which: str | None = None) -> list[tuple[int, float, float, float]]:
        """Rows ``(k, P(=k), P(>=k), stderr of P(>=k))`` of a distribution (the first one by default)."""
        o = self.outcome(which or self.dealt_name)
        dist = self._dist(o.name)
        pmf = _trim(dist.pmf) if o.trim else dist.pmf
        return [(k, float(pmf[k]), dist.at_least(k), dist.prob_stderr(dist.at_least(k))) for k in range(pmf.size)]

    def to_frame(self) -> pd.DataFrame:
        """A tidy pandas DataFrame of every distribution: quantity, k, p_eq, p_ge, p_ge_stderr."""
        import pandas as pd

        rows = []
        for o in self.distributions:
            for k, p_eq, p_ge, se in self.table(o.name):
                rows.append({"quantity": o.name, "k": k, "p_eq": p_eq, "p_ge": p_ge, "p_ge_stderr": se})
        return pd.DataFrame(rows)

    def plot(self, figsize: tuple[float, float] | None = None) -> Figure:
        """P(=k) bars and a P(>=k) step line, a panel for each tabled distribution."""
        from matplotlib.figure import Figure

        shown = [o for o in self.outcomes if o.kind == "table"]
        fig = Figure(figsize=figsize or (5 * len(shown), 4), layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, len(shown)))
        for ax, o in zip(axes, shown, strict=True):
            rows = self.table(o.name)
            ks = [r[0] for r in rows]
            ax.bar(ks, [r[1] for r in rows], color="#4c72b0", alpha=0.75, label="P(= k)")
            ax.step(ks, [r[2] for r in rows], where="mid", color="#dd8452", label="P(≥ k)")
            if self.trials:
                ax.errorbar(ks, [r[2] for r in rows], yerr=[r[3] for r in rows], fmt="none", ecolor="#dd8452")
            dist = self._dist(o.name)
            title = f"{o.label.lower()}: mean {dist.mean:.3f}"
            if self.trials:
                title += f" ± {dist.stderr:.3f}"
            ax.set_title(title)
            ax.set_xlabel(f"k ({o.unit})" if o.unit else "k")
            ax.set_ylim(0, 1.02)
            ax.legend()
        fig.suptitle(f"{self.label} ({self._engine_text()})")
        return fig

    def text_report(self, tail: list[str] | None = None) -> str:
        """A plain-text report: means ± standard errors, k / P(=k) / P(>=k) tables, then the probabilities.

        A Monte Carlo probability estimated as exactly 0 or 1 prints as its one-sided 95% bound
        (:func:`mathhammer.numbers.probability`: ``< 0.0030 (95%)`` from 1,000 trials), never ``± 0``.
        In a k table the numbers keep one format: where P(>=k) was never (or always) seen, the ± column
        shows ``-`` and one line under the table gives the bound (P(>=0) = 1 is no estimate: blank).
        Outcomes in :attr:`hidden` are left out.

        Args:
            tail: closing lines the system adds (P(morale test failed) at the target's Quality).
        """
        from .numbers import bound, probability

        mc = self.trials > 0
        n = self.trials if mc else None
        engine = (
            "exact" if not mc else f"Monte Carlo, {self.trials:,} trials, seed {self.seed}, ± is one standard error"
        )
        lines = [f"Engine: {engine}"]

        def pm(value: float, se: float, digits: int = 4) -> str:
            return f"{value:.{digits}f}" + (f" ± {se:.{digits}f}" if mc else "")

        flags: list[str] = []
        means: list[str] = []
        for o in self._shown:
            value = self._values[o.name]
            if o.kind == "table":
                lines.append("")
                lines.append(f"{o.label}: mean {pm(value.mean, value.stderr)}  (sd {value.sd:.3f})")
                lines.append(f"{'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}" + (f"  {'± P(>=k)':>9}" if mc else ""))
                skipped = never = False
                for k, p_eq, p_ge, se in self.table(o.name):
                    if o.trim and k > 0 and p_eq == 0.0:
                        skipped = True  # e.g. odd totals with Damage 2: P(>=k) is the next row's
                        continue
                    cell = ""
                    if mc:
                        edge = k > 0 and (p_ge <= 0.0 or p_ge >= 1.0)  # P(>=0) = 1 is no estimate
                        never = never or edge
                        cell = f"  {'' if k == 0 else '-' if edge else f'{se:.4f}':>9}"
                    lines.append(f"{k:>4}  {p_eq:8.4f}  {p_ge:8.4f}{cell}".rstrip())
                if skipped:
                    lines.append("      (values of k that cannot happen are left out)")
                if never:
                    b = bound(self.trials)
                    lines.append(
                        f"      -: never (or always) seen in {self.trials:,} trials: the true P(>=k) is within "
                        f"{b:.{max(0, 1 - math.floor(math.log10(b)))}f} of it (one-sided 95% bound)"
                    )
            elif o.kind == "last":
                lines.append("")
                lines.append(f"{o.label}: {probability(value, self.stderr(o.name), n)}")
            elif o.kind == "flag":
                flags.append(f"{o.label}: {probability(value, self.stderr(o.name), n)}")
            else:
                means.append(f"{o.label}: mean {pm(value.mean, value.stderr)}")
        lines.extend(flags + means)
        lines.extend(tail or [])
        return "\n".join(lines)

    def _engine_text(self) -> str:
        return "exact" if not self.trials else f"Monte Carlo, {self.trials:,} trials, seed {self.seed}"

    def _headline(self) -> list[tuple[str, str]]:
        """(words, value as printed) of the means of the tabled distributions and the probabilities: a mean
        ± its standard error, a Monte Carlo probability of exactly 0 or 1 as its one-sided 95% bound."""
        from .numbers import probability

        n = self.trials or None
        out = []
        for o in self._shown:
            value = self._values[o.name]
            if o.kind == "table":
                shown = f"{value.mean:.4f}" + (f" ± {value.stderr:.4f}" if n else "")
                out.append((o.label.lower(), shown))
            elif o.kind in ("last", "flag"):
                out.append((o.label, probability(value, self.stderr(o.name), n)))
        return out

    def __repr__(self) -> str:
        parts = [f"{words} {shown}" for words, shown in self._headline()]
        return f"<Result {self.label!r} ({self._engine_text()}): {', '.join(parts)}>"

    def _repr_html_(self) -> str:
        import html  # (notebooks only)

        def table(name: str, label: str) -> str:
            head = "<tr><th>k</th><th>P(=k)</th><th>P(≥k)</th></tr>"
            body = "".join(
                f"<tr><td>{k}</td><td>{p:.4f}</td><td>{ge:.4f}</td></tr>" for k, p, ge, _ in self.table(name)
            )
            return f"<table><caption>{html.escape(label)}</caption>{head}{body}</table>"

        items = [f"<li>{html.escape(words)}: {html.escape(shown)}</li>" for words, shown in self._headline()]
        tables = [table(o.name, o.label) for o in self._shown if o.kind == "table"]
        lines = [
            f"<b>{html.escape(self.label)}</b> ({html.escape(self._engine_text())})",
            "<ul>",
            *items,
            "</ul>",
            "<div style='display:flex;gap:2em'>" + "".join(tables) + "</div>",
        ]
        return "\n".join(lines)
