"""Results: distributions with summaries and standard errors, tables and plots.

A :class:`Result` wraps an engine's :class:`~mathhammer.outcome.Tally`. Every
Monte Carlo estimate carries its standard error; exact results report 0.

pandas and matplotlib are imported only by :meth:`Result.to_frame` and
:meth:`Result.plot`.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .outcome import Tally

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


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of an attack (one Batch or a chain of Batches) on one unit.

    Attributes:
        engine: ``"exact"`` or ``"monte-carlo"``.
        tally: the engine's histograms.
        models: models in the target at the start.
        seed: the Monte Carlo seed (None for exact).
        label: a short description for tables and plots.
    """

    engine: str
    tally: Tally
    models: int
    seed: int | None = None
    label: str = "attack"
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def trials(self) -> int:
        return self.tally.trials

    def _dist(self, name: str, counts: np.ndarray) -> Distribution:
        total = self.trials or 1
        return Distribution(name, np.asarray(counts, dtype=float) / total, self.trials)

    @cached_property
    def damage(self) -> Distribution:
        """Damage dealt: dice in the Damage Pool x Damage, summed over the Batches."""
        return self._dist("damage", self.tally.damage)

    @cached_property
    def models_destroyed(self) -> Distribution:
        return self._dist("models destroyed", self.tally.models_destroyed)

    @cached_property
    def damage_marker(self) -> Distribution:
        return self._dist("damage marker", self.tally.marker)

    @property
    def unit_destroyed(self) -> float:
        """P(every model of the unit removed)."""
        return float(self.models_destroyed.pmf[self.models])

    @property
    def unit_destroyed_stderr(self) -> float:
        return self.models_destroyed.prob_stderr(self.unit_destroyed)

    @property
    def shielded_after(self) -> float:
        total = self.trials or 1
        return float(self.tally.shielded[1] / total)

    def json_head(self, damage_key: str = "damage") -> dict[str, Any]:
        """The keys every game system's JSON shares: engine, trials, seed, the damage (or wounds)
        and models-destroyed distributions, and P(unit destroyed)."""
        return {
            "engine": self.engine,
            "trials": self.trials or None,
            "seed": self.seed,
            damage_key: {
                "pmf": _trim(self.damage.pmf).tolist(),
                "mean": self.damage.mean,
                "stderr": self.damage.stderr,
            },
            "models_destroyed": {
                "pmf": self.models_destroyed.pmf.tolist(),
                "mean": self.models_destroyed.mean,
                "stderr": self.models_destroyed.stderr,
            },
            "unit_destroyed": {"p": self.unit_destroyed, "stderr": self.unit_destroyed_stderr},
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``mathhammer attack --json``."""
        return {
            **self.json_head(),
            "damage_marker": {"pmf": _trim(self.damage_marker.pmf).tolist()},
            "shielded_after": {"p": self.shielded_after},
        }

    def summary(self) -> dict[str, float]:
        """Headline figures: means with standard errors and key probabilities."""
        return {
            "damage_mean": self.damage.mean,
            "damage_stderr": self.damage.stderr,
            "models_destroyed_mean": self.models_destroyed.mean,
            "models_destroyed_stderr": self.models_destroyed.stderr,
            "p_unit_destroyed": self.unit_destroyed,
            "p_unit_destroyed_stderr": self.unit_destroyed_stderr,
            "p_shielded_after": self.shielded_after,
        }

    def table(self, which: str = "damage") -> list[tuple[int, float, float, float]]:
        """Rows ``(k, P(=k), P(>=k), stderr of P(>=k))``."""
        dist = {"damage": self.damage, "models_destroyed": self.models_destroyed}[which]
        pmf = dist.pmf if which == "models_destroyed" else _trim(dist.pmf)
        return [(k, float(pmf[k]), dist.at_least(k), dist.prob_stderr(dist.at_least(k))) for k in range(pmf.size)]

    def to_frame(self) -> pd.DataFrame:
        """A tidy pandas DataFrame: quantity, k, p_eq, p_ge, p_ge_stderr."""
        import pandas as pd

        rows = []
        for which in ("damage", "models_destroyed"):
            for k, p_eq, p_ge, se in self.table(which):
                rows.append({"quantity": which, "k": k, "p_eq": p_eq, "p_ge": p_ge, "p_ge_stderr": se})
        marker = _trim(self.damage_marker.pmf)
        for k in range(marker.size):
            p_ge = self.damage_marker.at_least(k)
            rows.append(
                {
                    "quantity": "damage_marker",
                    "k": k,
                    "p_eq": float(marker[k]),
                    "p_ge": p_ge,
                    "p_ge_stderr": self.damage_marker.prob_stderr(p_ge),
                }
            )
        return pd.DataFrame(rows)

    def plot(self, figsize: tuple[float, float] = (10, 4)) -> Figure:
        """P(=k) bars and a P(>=k) step line, for damage and for models destroyed."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, which in zip(axes, ("damage", "models_destroyed"), strict=True):
            rows = self.table(which)
            ks = [r[0] for r in rows]
            ax.bar(ks, [r[1] for r in rows], color="#4c72b0", alpha=0.75, label="P(= k)")
            ax.step(ks, [r[2] for r in rows], where="mid", color="#dd8452", label="P(≥ k)")
            if self.trials:
                ax.errorbar(ks, [r[2] for r in rows], yerr=[r[3] for r in rows], fmt="none", ecolor="#dd8452")
            dist = getattr(self, which)
            title = f"{which.replace('_', ' ')}: mean {dist.mean:.3f}"
            if self.trials:
                title += f" ± {dist.stderr:.3f}"
            ax.set_title(title)
            ax.set_xlabel("k")
            ax.set_ylim(0, 1.02)
            ax.legend()
        fig.suptitle(f"{self.label} ({self._engine_text()})")
        return fig

    def text_report(self, damage_title: str = "Damage dealt", tail: list[str] | None = None) -> str:
        """A plain-text report: means ± standard errors and k / P(=k) / P(>=k) tables.

        Args:
            damage_title: what the damage histogram counts ("Wounds" in Grimdark Future).
            tail: closing lines; by default P(unit destroyed), P(still SHIELDED) and the Damage Marker.
        """
        mc = self.trials > 0
        engine = (
            "exact" if not mc else f"Monte Carlo, {self.trials:,} trials, seed {self.seed}, ± is one standard error"
        )
        lines = [f"Engine: {engine}"]

        def pm(value: float, se: float, digits: int = 4) -> str:
            return f"{value:.{digits}f}" + (f" ± {se:.{digits}f}" if mc else "")

        for which, title in (("damage", damage_title), ("models_destroyed", "Models destroyed")):
            dist = getattr(self, which)
            lines.append("")
            lines.append(f"{title}: mean {pm(dist.mean, dist.stderr)}  (sd {dist.sd:.3f})")
            lines.append(f"{'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}" + (f"  {'± P(>=k)':>9}" if mc else ""))
            skipped = False
            for k, p_eq, p_ge, se in self.table(which):
                if which == "damage" and k > 0 and p_eq == 0.0:
                    skipped = True  # e.g. odd totals with Damage 2: P(>=k) is the next row's
                    continue
                lines.append(f"{k:>4}  {p_eq:8.4f}  {p_ge:8.4f}" + (f"  {se:9.4f}" if mc else ""))
            if skipped:
                lines.append("      (values of k that cannot happen are left out)")
        lines.append("")
        lines.append(f"P(unit destroyed): {pm(self.unit_destroyed, self.unit_destroyed_stderr)}")
        if tail is None:
            tail = [
                f"P(still SHIELDED): {self.shielded_after:.4f}",
                f"Damage Marker: mean {self.damage_marker.mean:.4f}",
            ]
        lines.extend(tail)
        return "\n".join(lines)

    def _engine_text(self) -> str:
        return "exact" if not self.trials else f"Monte Carlo, {self.trials:,} trials, seed {self.seed}"

    def __repr__(self) -> str:
        pm = f" ± {self.damage.stderr:.4f}" if self.trials else ""
        return (
            f"<Result {self.label!r} ({self._engine_text()}): damage {self.damage.mean:.4f}{pm}, "
            f"models destroyed {self.models_destroyed.mean:.4f}, P(unit destroyed) {self.unit_destroyed:.4f}>"
        )

    def _repr_html_(self) -> str:
        def table(which: str) -> str:
            head = "<tr><th>k</th><th>P(=k)</th><th>P(≥k)</th></tr>"
            body = "".join(
                f"<tr><td>{k}</td><td>{p:.4f}</td><td>{ge:.4f}</td></tr>" for k, p, ge, _ in self.table(which)
            )
            return f"<table><caption>{which.replace('_', ' ')}</caption>{head}{body}</table>"

        s = self.summary()
        pm = self.trials > 0
        lines = [
            f"<b>{html.escape(self.label)}</b> ({html.escape(self._engine_text())})",
            "<ul>",
            f"<li>damage: {s['damage_mean']:.4f}" + (f" ± {s['damage_stderr']:.4f}" if pm else "") + "</li>",
            f"<li>models destroyed: {s['models_destroyed_mean']:.4f}"
            + (f" ± {s['models_destroyed_stderr']:.4f}" if pm else "")
            + "</li>",
            f"<li>P(unit destroyed): {s['p_unit_destroyed']:.4f}"
            + (f" ± {s['p_unit_destroyed_stderr']:.4f}" if pm else "")
            + "</li>",
            f"<li>P(still SHIELDED): {s['p_shielded_after']:.4f}</li>",
            "</ul>",
            "<div style='display:flex;gap:2em'>" + table("damage") + table("models_destroyed") + "</div>",
        ]
        return "\n".join(lines)
