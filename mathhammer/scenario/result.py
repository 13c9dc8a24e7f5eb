"""What a scenario simulation returns: per-round distributions, marker control, VP, who wins.

Every probability carries its standard error ``sqrt(p (1 - p) / N)`` and every mean its
``sd / sqrt(N)``. Frames are built on demand (pandas is imported only then).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..numbers import share
from .counts import Counts, mean_se
from .spec import PHASES, PLAYERS

#: each player's colour in the pictures (as the board pictures draw a side named so: board.plot.NAMED_SIDE_COLOURS)
PLAYER_COLOURS = {"red": "#d62728", "blue": "#1f77b4"}

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


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
        counts: the games counted (:class:`~mathhammer.scenario.counts.Counts`): every figure below is read from
            them. Counted from the arrays below where not given.
        rounds: per round (after its Scoring Phase), arrays over trials: ``alive`` (units x trials),
            ``supply``, ``marker`` (Damage Marker), ``on_table``, ``control`` (markers x trials: -1
            nobody, 0 red, 1 blue), ``vp`` (2 x trials), ``over``; None where the games were not kept
            (``simulate(..., per_game=False)``: the command line's runs), as for the three below.
        end_round: the Round each game ended in.
        winner: per trial 0 red, 1 blue, -1 draw.
        instant: the game ended by a Special Winning Condition.
        skipped: planned activations that could not happen, with the number of trials.
        tally: per unit, activations by action and damage dealt and taken, summed over the games
            (:mod:`~mathhammer.scenario.tally`; empty: not counted).
        game: the one game number played (``scenario run --game N``), or None: games ``0 .. trials - 1``.
        why: the reports show :meth:`action_rows` (a game with an automatic player; a scripted plan's figures are
            counted too, read them with :meth:`action_rows`).
        description: the scenario's ``description`` (``mathhammer game``: the mission, deployment, terrain and
            policies), the reports' second line; empty: none.
    """

    scenario: str
    file: str
    trials: int
    seed: int
    units: list[dict[str, Any]]
    markers: list[int]
    rounds: list[dict[str, np.ndarray]] | None = None
    end_round: np.ndarray | None = None
    winner: np.ndarray | None = None
    instant: np.ndarray | None = None
    counts: Counts | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    tally: dict[str, np.ndarray] = field(default_factory=dict)
    game: int | None = None
    why: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if self.counts is None:
            if self.rounds is None or self.end_round is None or self.winner is None or self.instant is None:
                raise ValueError("a scenario result needs its games' counts or their arrays")
            self.counts = Counts.of(self.rounds, self.winner, self.end_round, self.instant)

    @property
    def _counted(self) -> Counts:
        assert self.counts is not None  # set by __post_init__
        return self.counts

    # ------------------------------------------------------------- summaries
    def outcome(self) -> dict[str, dict[str, float]]:
        """P(red wins), P(blue wins), P(draw), each with its standard error."""
        c = self._counted
        names = ("red", "blue", "draw")
        return {
            name: dict(zip(("p", "stderr"), c.share(c.winner, code), strict=True))
            for name, code in zip(names, (0, 1, -1), strict=True)
        }

    def end_rounds(self) -> dict[int, float]:
        """P(the game ends in Round r)."""
        c = self._counted
        return {r: c.share(c.end_round, r)[0] for r in range(1, len(c.rounds) + 1)}

    def vp_pmf(self, player: str, round_no: int | None = None) -> dict[int, float]:
        """Distribution of a player's VP after ``round_no`` (default: the end of the game)."""
        c = self._counted
        found = c.rounds[(round_no or len(c.rounds)) - 1]["vp"].row(PLAYERS.index(player))
        return {v: n / c.games for v, n in found.items()}

    def unit_rows(self) -> list[dict[str, Any]]:
        c = self._counted
        n = c.games
        rows = []
        for r, snap in enumerate(c.rounds, 1):
            for i, u in enumerate(self.units):
                by_models, by_supply, by_marker = (snap[k].row(i) for k in ("alive", "supply", "marker"))
                models, models_se = mean_se(by_models)
                supply, supply_se = mean_se(by_supply)
                marker, marker_se = mean_se(by_marker)
                left = [0] * (u["models"] + 1)  # models left (none below 0), every count from 0 to the full unit
                for k, m in by_models.items():
                    k = max(k, 0)
                    left.extend([0] * (k + 1 - len(left)))
                    left[k] += m
                destroyed, destroyed_se = c.share(snap["alive"], 0, i)
                rows.append(
                    {
                        "round": r,
                        "unit": u["id"],
                        "player": u["player"],
                        "card": u["card"],
                        "models_mean": models,
                        "models_se": models_se,
                        "models_pmf": {k: float(m) / n for k, m in enumerate(left)},
                        "supply_mean": supply,
                        "supply_se": supply_se,
                        "supply_pmf": {v: float(m) / n for v, m in by_supply.items()},
                        "damage_marker_mean": marker,
                        "damage_marker_se": marker_se,
                        "damage_marker_pmf": {v: float(m) / n for v, m in by_marker.items()},
                        "p_destroyed": destroyed,
                        "p_destroyed_se": destroyed_se,
                        "p_on_table": c.share(snap["on_table"], 1, i)[0],
                    }
                )
        return rows

    def action_rows(self) -> list[dict[str, Any]]:
        """Per unit: mean activations per game for each action, mean damage (Hit Points) dealt and taken per game
        with their standard errors (:func:`~mathhammer.scenario.tally.unit_figures`)."""
        from .tally import unit_figures

        return unit_figures(self.tally, self.units, self.trials) if self.tally else []

    def marker_rows(self) -> list[dict[str, Any]]:
        c = self._counted
        rows = []
        for r, snap in enumerate(c.rounds, 1):
            for m, number in enumerate(self.markers):
                row: dict[str, Any] = {"round": r, "marker": number}
                for name, code in (("red", 0), ("blue", 1), ("none", -1)):
                    row[f"p_{name}"], row[f"p_{name}_se"] = c.share(snap["control"], code, m)
                rows.append(row)
        return rows

    def vp_rows(self) -> list[dict[str, Any]]:
        c = self._counted
        rows = []
        for r, snap in enumerate(c.rounds, 1):
            over, _ = c.share(snap["over"], 1)
            for p, name in enumerate(PLAYERS):
                mean, se = mean_se(snap["vp"].row(p))
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
            **({"description": self.description} if self.description else {}),
            "engine": "exact-transition sampling",
            "trials": self.trials,
            "seed": self.seed,
            **({"game": self.game} if self.game is not None else {}),
            "outcome": self.outcome(),
            "end_round": {str(k): v for k, v in self.end_rounds().items()},
            "instant_win": self._counted.share(self._counted.instant, 1)[0],
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
                for r in range(1, len(self._counted.rounds) + 1)
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
                else f"{self.trials:,} game{'s' if self.trials != 1 else ''}, seed {self.seed}"
            ),
            *([f"  {self.description}"] if self.description else []),
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
        for r in range(1, len(self._counted.rounds) + 1):
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
        last = len(self._counted.rounds)
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
        """Write ``units.png``: :meth:`units_figure`."""
        return _save(folder, {"units.png": self.units_figure()})[0]

    def units_figure(self) -> Any:
        """Per unit (named in its player's colour), its mean activations per game by action (stacked) and its mean
        damage dealt and taken per game (with standard errors): a matplotlib Figure."""
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
        for label, r in zip(left.get_yticklabels(), rows, strict=True):
            label.set_color(PLAYER_COLOURS.get(r["player"], "black"))
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
        return fig

    def plot(self, folder: str | Path) -> list[Path]:
        """Write ``vp.png`` (VP over rounds, with error bars) and ``markers.png`` (P(control) per marker):
        :meth:`figures`."""
        return _save(folder, self.figures())

    def figures(self) -> dict[str, Any]:
        """The pictures :meth:`plot` writes, by file name (matplotlib Figures): VP at the end of each Round (mean ±
        SE) and P(control) of each marker, one tick per Round."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rounds = list(range(1, len(self._counted.rounds) + 1))
        fig, ax = plt.subplots(figsize=(6, 4))
        for name, colour in PLAYER_COLOURS.items():
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
        ax.set_xticks(rounds)
        ax.set_ylabel("Victory Points (mean ± SE)")
        ax.set_title(self.scenario)
        ax.legend()
        fig.tight_layout()
        vp = fig
        fig, axes = plt.subplots(1, len(self.markers), figsize=(3 * len(self.markers), 3.2), squeeze=False, sharey=True)
        rows = self.marker_rows()
        for ax, number in zip(axes[0], self.markers, strict=True):
            mine = [r for r in rows if r["marker"] == number]
            ax.stackplot(
                rounds,
                [r["p_red"] for r in mine],
                [r["p_none"] for r in mine],
                [r["p_blue"] for r in mine],
                colors=[PLAYER_COLOURS["red"], "#dddddd", PLAYER_COLOURS["blue"]],
                labels=["red", "nobody", "blue"],
            )
            ax.set_title(f"marker {number}")
            ax.set_xlabel("round")
            ax.set_xticks(rounds)
        axes[0][0].set_ylabel("P(control)")
        axes[0][-1].legend(loc="lower right", fontsize=7)
        fig.tight_layout()
        return {"vp.png": vp, "markers.png": fig}


def _save(folder: str | Path, figures: dict[str, Any]) -> list[Path]:
    """Write each Figure of ``figures`` into ``folder`` under its name, then close it; the paths, in order."""
    import matplotlib.pyplot as plt

    paths = []
    for name, fig in figures.items():
        paths.append(Path(folder) / name)
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


__all__ = ["ScenarioResult"]
