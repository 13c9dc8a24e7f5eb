"""What a scenario simulation returns: per-round distributions, marker control, VP, who wins.

Every probability carries its standard error ``sqrt(p (1 - p) / N)`` and every mean its
``sd / sqrt(N)``. Frames are built on demand (pandas is imported only then).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..jit import cores
from ..numbers import share
from .spec import PHASES, PLAYERS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _share(count: int, n: int) -> tuple[float, float]:
    """``count`` games of ``n`` as a probability and its standard error (the bits of numpy's mean of the mask: its
    float sum of ones is the exact count)."""
    p = count / n if n else 0.0
    return p, math.sqrt(max(p * (1 - p), 0.0) / n) if n else 0.0


def _p(mask: np.ndarray) -> tuple[float, float]:
    return _share(int(np.count_nonzero(mask)), mask.size)


def _counts(x: np.ndarray) -> dict[int, int]:
    """How many games have each value of an integer array (values that occur only, ascending): one compiled
    reading (:func:`~mathhammer.scenario.faststats.counts`)."""
    if not x.size:
        return {}
    from .faststats import counts  # numba: compiled where a result is summed, not where one is imported

    lo, found = counts(x)
    return {lo + int(v): int(found[v]) for v in np.flatnonzero(found)}


def _pmf(x: np.ndarray) -> dict[int, float]:
    """The distribution of an integer array: value -> probability (values that occur only)."""
    return {v: c / x.size for v, c in _counts(x).items()}


def _shares(x: np.ndarray, codes: tuple[int, ...]) -> list[tuple[float, float]]:
    """:func:`_p` of ``x == code`` for each code, from one reading of ``x`` (the same bits: a count over ``n``)."""
    found = _counts(x)
    return [_share(found.get(code, 0), x.size) for code in codes]


def _with_se(label: str, p: float, se: float, n: int) -> str:
    """``label P% ± SE%`` with as many decimals as the standard error needs (two significant digits, 1 to 3);
    an estimate of 0 or 1 from ``n`` games as its one-sided 95% bound (:func:`mathhammer.numbers.share`).

    >>> _with_se("red wins", 0.47812, 0.000353, 2_000_000)
    'red wins 47.812% ± 0.035%'
    >>> _with_se("draw", 0.5, 0.011, 2000)
    'draw 50.0% ± 1.1%'
    >>> _with_se("draw", 0.0, 0.0, 10)
    'draw < 26% (95%)'
    """
    return f"{label} {share(p, se, n)}"


def _m(x: np.ndarray) -> tuple[float, float]:
    mean, se, _ = _m_counts(x)
    return mean, se


def _m_counts(x: np.ndarray) -> tuple[float, float, dict[int, int]]:
    """The mean of an integer array (one value a game), its standard error and each value's count (values that
    occur only, ascending): one compiled reading, the same bits as ``x.astype(float).mean()`` and
    ``.std(ddof=1) / sqrt(n)`` (:func:`~mathhammer.scenario.faststats.summary`)."""
    from .faststats import summary  # numba: compiled where a result is summed, not where one is imported

    n = x.size
    lo, counts, mean, sd = summary(x)
    return mean, sd / math.sqrt(n) if n > 1 else 0.0, {lo + int(v): int(counts[v]) for v in np.flatnonzero(counts)}


#: :func:`_m_counts_many` reads its arrays on threads (the compiled summary releases the GIL) from this many values in
#: all; fewer are read in turn.
THREADED_VALUES = 1 << 22


def _m_counts_many(xs: list[np.ndarray]) -> list[tuple[float, float, dict[int, int]]]:
    """:func:`_m_counts` of each array, in order: each array read whole by the same kernel, so the same bits; many
    values are read on as many threads as there are cores (up to 4): after a forked run's workers are done, the
    summaries are otherwise the only work on one core."""
    threads = min(cores(), 4)
    if threads < 2 or len(xs) < 2 or sum(x.size for x in xs) < THREADED_VALUES:
        return [_m_counts(x) for x in xs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(_m_counts, xs))


#: a skip report key of an automatic player's activation (its ``where``, :meth:`Auto.activation
#: <mathhammer.scenario.players.auto.Auto.activation>`: Round, player, Phase, slot, unit, action), then the reason
_AUTO_SKIP = re.compile(
    rf"r(\d+)\.(?:{'|'.join(PLAYERS)})\.({'|'.join(PHASES)})\.auto\[\d+\] \((\S+) (\S+)\): (.*)", re.DOTALL
)


def skip_lines(skipped: dict[str, int]) -> tuple[list[str], list[str]]:
    """The text report's lines of the skip report ``skipped`` (key: where, then the reason; value: games): a planned
    activation's as keyed (its place in the plan names it), sorted; and an automatic player's summed over its slots
    (a slot is only its place in the Phase, which differs from game to game), as ``r2 assault goliath-1 shoot:
    reason: games``, by Round, Phase, unit and reason."""
    planned: list[str] = []
    auto: dict[tuple[int, int, str, str, str], int] = {}
    for key, n in sorted(skipped.items()):
        hit = _AUTO_SKIP.fullmatch(key)
        if hit is None:
            planned.append(f"    {key}: {n:,}")
            continue
        rnd, phase, uid, action, why = hit.groups()
        at = (int(rnd), PHASES.index(phase), phase, f"{uid} {action}", why)
        auto[at] = auto.get(at, 0) + n
    lines = [f"    r{r} {phase} {who}: {why}: {n:,}" for (r, _, phase, who, why), n in sorted(auto.items())]
    return planned, lines


@dataclass
class ScenarioResult:
    """The outcome of ``trials`` games of a scenario.

    Attributes:
        scenario: the scenario's name; ``file`` its file.
        trials, seed: the run.
        units: unit ids with their player and card.
        markers: marker numbers in file order.
        rounds: per round (after its Scoring Phase), arrays over trials: ``alive`` (units x trials),
            ``supply``, ``marker`` (Damage Marker), ``on_table``, ``control`` (markers x trials: -1
            nobody, 0 red, 1 blue), ``vp`` (2 x trials), ``over``.
        end_round: the Round each game ended in.
        winner: per trial 0 red, 1 blue, -1 draw.
        instant: the game ended by a Special Winning Condition.
        skipped: planned activations that could not happen, with the number of trials.
        tally: per unit, activations by action and damage dealt and taken, summed over the games
            (:mod:`~mathhammer.scenario.tally`; empty: not counted).
        game: the one game number played (``scenario run --game N``), or None: games ``0 .. trials - 1``.
        why: the reports show :meth:`action_rows` (a game with an automatic player; a scripted plan's figures are
            counted too, read them with :meth:`action_rows`).
    """

    scenario: str
    file: str
    trials: int
    seed: int
    units: list[dict[str, Any]]
    markers: list[int]
    rounds: list[dict[str, np.ndarray]]
    end_round: np.ndarray
    winner: np.ndarray
    instant: np.ndarray
    skipped: dict[str, int] = field(default_factory=dict)
    tally: dict[str, np.ndarray] = field(default_factory=dict)
    game: int | None = None
    why: bool = False

    # ------------------------------------------------------------- summaries
    def outcome(self) -> dict[str, dict[str, float]]:
        """P(red wins), P(blue wins), P(draw), each with its standard error."""
        names = ("red", "blue", "draw")
        shares = _shares(self.winner, (0, 1, -1))
        return {name: {"p": p, "stderr": se} for name, (p, se) in zip(names, shares, strict=True)}

    def end_rounds(self) -> dict[int, float]:
        """P(the game ends in Round r)."""
        rounds = range(1, len(self.rounds) + 1)
        return dict(zip(rounds, (p for p, _ in _shares(self.end_round, tuple(rounds))), strict=True))

    def vp_pmf(self, player: str, round_no: int | None = None) -> dict[int, float]:
        """Distribution of a player's VP after ``round_no`` (default: the end of the game)."""
        snap = self.rounds[(round_no or len(self.rounds)) - 1]
        return _pmf(snap["vp"][PLAYERS.index(player)])

    def unit_rows(self) -> list[dict[str, Any]]:
        rows = []
        fields = ("alive", "supply", "marker")
        arrays = [snap[k][i] for snap in self.rounds for i in range(len(self.units)) for k in fields]
        read = iter(_m_counts_many(arrays))
        for r, snap in enumerate(self.rounds, 1):
            for i, u in enumerate(self.units):
                n = snap["alive"][i].size
                models, models_se, by_models = next(read)
                supply, supply_se, by_supply = next(read)
                marker, marker_se, by_marker = next(read)
                left = [0] * (u["models"] + 1)  # models left (none below 0), every count from 0 to the full unit
                for k, c in by_models.items():
                    k = max(k, 0)
                    left.extend([0] * (k + 1 - len(left)))
                    left[k] += c
                destroyed = by_models.get(0, 0) / n
                on_p, _ = _p(snap["on_table"][i])
                rows.append(
                    {
                        "round": r,
                        "unit": u["id"],
                        "player": u["player"],
                        "card": u["card"],
                        "models_mean": models,
                        "models_se": models_se,
                        "models_pmf": {k: float(c) / n for k, c in enumerate(left)},
                        "supply_mean": supply,
                        "supply_se": supply_se,
                        "supply_pmf": {v: float(c) / n for v, c in by_supply.items()},
                        "damage_marker_mean": marker,
                        "damage_marker_se": marker_se,
                        "damage_marker_pmf": {v: float(c) / n for v, c in by_marker.items()},
                        "p_destroyed": destroyed,
                        "p_destroyed_se": math.sqrt(max(destroyed * (1 - destroyed), 0.0) / n),
                        "p_on_table": on_p,
                    }
                )
        return rows

    def action_rows(self) -> list[dict[str, Any]]:
        """Per unit: mean activations per game for each action, mean damage (Hit Points) dealt and taken per game
        with their standard errors (:func:`~mathhammer.scenario.tally.unit_figures`)."""
        from .tally import unit_figures

        return unit_figures(self.tally, self.units, self.trials) if self.tally else []

    def marker_rows(self) -> list[dict[str, Any]]:
        rows = []
        for r, snap in enumerate(self.rounds, 1):
            for m, number in enumerate(self.markers):
                row: dict[str, Any] = {"round": r, "marker": number}
                shares = _shares(snap["control"][m], (0, 1, -1))
                for name, (p, se) in zip(("red", "blue", "none"), shares, strict=True):
                    row[f"p_{name}"] = p
                    row[f"p_{name}_se"] = se
                rows.append(row)
        return rows

    def vp_rows(self) -> list[dict[str, Any]]:
        rows = []
        for r, snap in enumerate(self.rounds, 1):
            over, _ = _p(snap["over"])
            for p, name in enumerate(PLAYERS):
                mean, se = _m(snap["vp"][p])
                rows.append({"round": r, "player": name, "vp_mean": mean, "vp_se": se, "p_over": over})
        return rows

    def units_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([{k: v for k, v in row.items() if not k.endswith("_pmf")} for row in self.unit_rows()])

    def markers_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.marker_rows())

    def vp_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.vp_rows())

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``mathhammer scenario run --json``."""
        vp, units, markers = self.vp_rows(), self.unit_rows(), self.marker_rows()
        return {
            "scenario": self.scenario,
            "file": self.file,
            "engine": "exact-transition sampling",
            "trials": self.trials,
            "seed": self.seed,
            **({"game": self.game} if self.game is not None else {}),
            "outcome": self.outcome(),
            "end_round": {str(k): v for k, v in self.end_rounds().items()},
            "instant_win": _p(self.instant)[0],
            "vp": {p: {str(k): v for k, v in self.vp_pmf(p).items()} for p in PLAYERS},
            "rounds": [
                {
                    "round": r,
                    "vp": [row for row in vp if row["round"] == r],
                    "units": [
                        {k: {str(a): b for a, b in v.items()} if k.endswith("_pmf") else v for k, v in row.items()}
                        for row in units
                        if row["round"] == r
                    ],
                    "markers": [row for row in markers if row["round"] == r],
                }
                for r in range(1, len(self.rounds) + 1)
            ],
            **({"unit_actions": self.action_rows()} if self.why else {}),
            "skipped": dict(sorted(self.skipped.items())),  # the same order whatever the grouping of games
        }

    def text_report(self) -> str:
        o = self.outcome()
        lines = [
            f"{self.scenario} ({self.file}): "
            + (
                f"game {self.game} of seed {self.seed}"
                if self.game is not None
                else f"{self.trials:,} games, seed {self.seed}"
            ),
            "  "
            + "   ".join(
                _with_se(f"{who} wins" if who != "draw" else "draw", o[who]["p"], o[who]["stderr"], self.trials)
                for who in ("red", "blue", "draw")
            ),
            "  game ends in round: " + "  ".join(f"{r}: {p:.1%}" for r, p in self.end_rounds().items() if p > 0),
            "",
            "  round   VP red         VP blue        " + "  ".join(f"M{n} red/blue" for n in self.markers),
        ]
        vp_rows, marker_rows = self.vp_rows(), self.marker_rows()
        for r in range(1, len(self.rounds) + 1):
            vp = [row for row in vp_rows if row["round"] == r]
            mk = [row for row in marker_rows if row["round"] == r]
            cells = "  ".join(f"{m['p_red']:>4.0%}/{m['p_blue']:<4.0%}  " for m in mk)
            red, blue = vp[0], vp[1]
            lines.append(
                f"  {r:>5}   {red['vp_mean']:5.2f} ± {red['vp_se']:.2f}   "
                f"{blue['vp_mean']:5.2f} ± {blue['vp_se']:.2f}   {cells}"
            )
        lines += ["", "  unit                      player  models left (round 1 .. end)        P(destroyed) at end"]
        rows = self.unit_rows()
        last = len(self.rounds)
        for u in self.units:
            mine = [row for row in rows if row["unit"] == u["id"]]
            track = " ".join(f"{row['models_mean']:.1f}" for row in mine)
            end = mine[last - 1]
            destroyed = share(end["p_destroyed"], end["p_destroyed_se"], self.trials)
            lines.append(f"  {u['id']:<25} {u['player']:<6}  {track:<35} {destroyed}")
        lines += self._action_lines() if self.why else []
        planned, auto = skip_lines(self.skipped)
        if planned:
            lines += ["", "  planned activations that could not happen (trials):", *planned]
        if auto:
            head = "  automatic players' activations not done in full (games; by Round, Phase, unit and action):"
            lines += ["", head, *auto]
        return "\n".join(lines)

    def _action_lines(self) -> list[str]:
        """The text report's per-unit activations by action (mean per game) and damage dealt and taken."""
        from .tally import COUNTED

        rows = self.action_rows()
        if not rows:
            return []
        used = [a for a in COUNTED if any(r["activations"][a] > 0 for r in rows)]
        head = "".join(f"{a:>9}" for a in used)
        out = [
            "",
            "  activations per game by action; damage (Hit Points) dealt and taken per game",
            f"  unit                      player{head}   dealt           taken",
        ]
        for r in rows:
            cells = "".join(f"{r['activations'][a]:>9.2f}" for a in used)
            out.append(
                f"  {r['unit']:<25} {r['player']:<6}{cells}   "
                f"{r['damage_dealt_mean']:5.2f} ± {r['damage_dealt_se']:<5.2f}  "
                f"{r['damage_taken_mean']:5.2f} ± {r['damage_taken_se']:.2f}"
            )
        return out

    def plot_units(self, folder: str | Path) -> Path:
        """Write ``units.png``: per unit, its mean activations per game by action (stacked) and its mean damage
        dealt and taken per game (with standard errors)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from .tally import COUNTED

        rows = self.action_rows()
        names = [r["unit"] for r in rows]
        y = np.arange(len(rows))
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.45 * len(rows) + 1.8), sharey=True)
        start = np.zeros(len(rows))
        cmap = plt.get_cmap("tab10")
        for j, a in enumerate(COUNTED):
            width = np.array([r["activations"][a] for r in rows])
            if width.any():
                left.barh(y, width, left=start, color=cmap(j), label=a)
                start += width
        left.set_yticks(y, names)
        left.invert_yaxis()
        left.set_xlabel("activations per game")
        left.legend(fontsize=7, loc="lower right")
        for dy, key, colour in ((-0.2, "dealt", "#2ca02c"), (0.2, "taken", "#7f7f7f")):
            right.barh(
                y + dy,
                [r[f"damage_{key}_mean"] for r in rows],
                height=0.4,
                xerr=[r[f"damage_{key}_se"] for r in rows],
                color=colour,
                label=key,
            )
        right.set_xlabel("damage per game (Hit Points, mean ± SE)")
        right.legend(fontsize=7, loc="lower right")
        fig.suptitle(self.scenario)
        fig.tight_layout()
        path = Path(folder) / "units.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def plot(self, folder: str | Path) -> list[Path]:
        """Write ``vp.png`` (VP over rounds, with error bars) and ``markers.png`` (P(control) per marker)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(folder)
        rounds = list(range(1, len(self.rounds) + 1))
        fig, ax = plt.subplots(figsize=(6, 4))
        for name, colour in (("red", "#d62728"), ("blue", "#1f77b4")):
            rows = [r for r in self.vp_rows() if r["player"] == name]
            ax.errorbar(
                rounds,
                [r["vp_mean"] for r in rows],
                yerr=[r["vp_se"] for r in rows],
                label=name,
                color=colour,
                marker="o",
                capsize=3,
            )
        ax.set_xlabel("round")
        ax.set_ylabel("Victory Points (mean ± SE)")
        ax.set_title(self.scenario)
        ax.legend()
        fig.tight_layout()
        paths = [out / "vp.png", out / "markers.png"]
        fig.savefig(paths[0], dpi=110)
        plt.close(fig)
        fig, axes = plt.subplots(1, len(self.markers), figsize=(3 * len(self.markers), 3.2), squeeze=False, sharey=True)
        rows = self.marker_rows()
        for ax, number in zip(axes[0], self.markers, strict=True):
            mine = [r for r in rows if r["marker"] == number]
            ax.stackplot(
                rounds,
                [r["p_red"] for r in mine],
                [r["p_none"] for r in mine],
                [r["p_blue"] for r in mine],
                colors=["#d62728", "#dddddd", "#1f77b4"],
                labels=["red", "nobody", "blue"],
            )
            ax.set_title(f"marker {number}")
            ax.set_xlabel("round")
        axes[0][0].set_ylabel("P(control)")
        axes[0][-1].legend(loc="lower right", fontsize=7)
        fig.tight_layout()
        fig.savefig(paths[1], dpi=110)
        plt.close(fig)
        return paths


__all__ = ["ScenarioResult"]
