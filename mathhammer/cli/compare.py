"""``mathhammer compare UNIT --vs TARGET`` and ``mathhammer matchup A B``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import PROFILES_HELP, handle_errors, run_options
from .queries import renamed

R = "Run"


def register(app: typer.Typer) -> None:
    app.command("compare", no_args_is_help=True)(compare)
    app.command("matchup", no_args_is_help=True)(matchup)


def _check_output(flag: str, path: str | None, suffix: str) -> Path | None:
    """Refuse an output path before any work: wrong suffix or a folder that cannot be written."""
    from ..errors import InputError

    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() != suffix:
        raise InputError(flag, path, f"a file name ending in {suffix}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise InputError(flag, path, "a file in an existing folder you can write to")
    return p


def _outputs(paths: dict[str, Path | None]) -> Any:
    """The CSV and the picture as one :class:`~mathhammer.outputs.Outputs` transaction, begun before the work:
    both written or neither (a no-op context without them)."""
    from contextlib import nullcontext

    from ..outputs import Outputs, Target

    targets = [
        Target(p, flag, "file", f"a {p.suffix} file in an existing folder you can write to")
        for flag, p in paths.items()
        if p is not None
    ]
    return Outputs(targets) if targets else nullcontext()


@handle_errors
def compare(
    unit: Annotated[str, typer.Argument(help="The unit whose loadouts are compared.")],
    vs: Annotated[list[str], typer.Option("--vs", metavar="TARGET[:MODELS]", help="A target unit, repeatable.")],
    comp: Annotated[
        list[str] | None, typer.Option("--comp", metavar="N", help="Only these compositions (models).")
    ] = None,
    upgrades: Annotated[
        str | None, typer.Option("--upgrades", metavar="A,B", help="Combine only these upgrades.")
    ] = None,
    use: Annotated[list[str] | None, typer.Option("--use", metavar="NAME", help="Ability switched on.")] = None,
    phase: Annotated[str, typer.Option("--phase", help="assault or combat.")] = "assault",
    distance: Annotated[str | None, typer.Option("--range", metavar="INCHES", help="Distance to targets.")] = None,
    rank_by: Annotated[
        str, typer.Option("--rank-by", help="kills-per-100, damage-per-100, p-destroy or damage (gf: wounds).")
    ] = "kills-per-100",
    profiles: Annotated[
        list[str] | None,
        typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact (the default).", rich_help_panel=R)] = False,
    trials: Annotated[str | None, typer.Option("--trials", metavar="N", rich_help_panel=R)] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", rich_help_panel=R)] = "0",
    tolerance: Annotated[str | None, typer.Option("--tolerance", metavar="E", rich_help_panel=R)] = None,
    method: Annotated[str, typer.Option("--method", rich_help_panel=R)] = "count",
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    csv: Annotated[str | None, typer.Option("--csv", metavar="FILE", help="Write the rows as CSV.")] = None,
    plot: Annotated[
        str | None, typer.Option("--plot", metavar="FILE.png", help="P(>=k) step lines, a panel per target.")
    ] = None,
    plot_top: Annotated[
        str, typer.Option("--plot-top", metavar="N", help="Loadouts drawn per target, best ranked first.")
    ] = "10",
    system: Annotated[str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf).")] = (
        "starcraft"
    ),
    melee: Annotated[bool, typer.Option("--melee", help="Grimdark: melee, the charge resolved both ways.")] = False,
    charging: Annotated[bool, typer.Option("--charging", help="Grimdark: the attacker charged.")] = False,
    cover: Annotated[bool, typer.Option("--cover", help="Grimdark: targets in cover.")] = False,
) -> None:
    """Every composition and upgrade combination of UNIT against each target, ranked per target.

    Example: mathhammer compare Marine --vs Zergling --vs Roach --range 10
    """
    from .. import systems
    from ..validate import whole

    opts = run_options(exact, trials, seed, tolerance, method)
    top = whole("--plot-top", plot_top, 1, 50, "loadouts per panel")
    csv_path = _check_output("--csv", csv, ".csv")
    png_path = _check_output("--plot", plot, ".png")
    game = systems.get(system, "--system")
    given = {"--melee": melee or None, "--charging": charging or None, "--cover": cover or None}
    query, names = _query(game, unit, vs[0] if vs else "", phase, distance, use or [], given)
    sizes = [whole("--comp", c, 1, 99, "models") for c in comp or []]
    pool = [p for p in upgrades.split(",") if p.strip()] if upgrades is not None else None
    with _outputs({"--csv": csv_path, "--plot": png_path}) as tx:
        with renamed(names):
            roster = game.load_roster(profiles or [])
            rows = game.compare(roster, unit, vs, query, opts, sizes, pool, rank_by)
        _write(tx, rows, game.words, csv_path, png_path, top)
    _emit(rows, game.words, as_json)


#: How compare's and matchup's errors name their flags.
COMPARE_FIELDS = {
    "unit": "UNIT", "attacker": "UNIT", "target": "--vs", "vs": "--vs", "compositions": "--comp", "models": "--comp",
    "upgrades": "--upgrades", "use": "--use", "phase": "--phase", "distance": "--range", "range": "--range",
    "rank_by": "--rank-by", "cover": "--cover", "charging": "--charging", "a": "A", "b": "B",
    "a_models": "A", "b_models": "B", "a_upgrades": "--a-upgrade", "b_upgrades": "--b-upgrade",
    "target_upgrades": "--b-upgrade", "target_models": "B",
}  # fmt: skip


def _query(
    game: Any, unit: str, target: str, phase: str, distance: str | None, use: list[str], given: dict[str, Any]
) -> tuple[Any, dict[str, str]]:
    """A query of compare or matchup: the phase (``--melee`` for a system with a melee phase), the range and
    the situation flags the system knows; any other is refused, naming the flag."""
    from ..errors import InputError
    from ..systems import Query
    from ..validate import number
    from .queries import OPTION_FLAGS, melee_phase

    fields: dict[str, Any] = {"phase": None if phase == "assault" else phase}
    options: dict[str, Any] = {}
    for flag, value in given.items():
        if value is None:
            continue
        if flag == "--melee":
            fields["phase"] = melee_phase(game, fields["phase"])
        elif OPTION_FLAGS[flag] not in game.options:
            raise InputError(flag, value, f"not with --system {game.name} ({game.title} has no such situation)")
        else:
            options[OPTION_FLAGS[flag]] = value
    dist = None if distance is None else number("--range", distance, 0, 999, "distance in inches")
    return Query(unit, target, use=tuple(use), phase=fields["phase"], distance=dist, options=options), COMPARE_FIELDS


def _write(
    tx: Any, rows: list[dict[str, Any]], words: Any, csv_path: Path | None, png_path: Path | None, top: int
) -> None:
    """Write the CSV and the plot into the transaction's temporaries (committed together when it ends)."""
    i = 0
    if csv_path is not None:
        import pandas as pd

        with tx.writing(i) as tmp:
            pd.DataFrame(rows).to_csv(tmp, index=False)
        i += 1
    if png_path is not None:
        fig = _plot(rows, words, top)
        with tx.writing(i) as tmp:
            fig.savefig(tmp, dpi=110, format="png")


def _emit(rows: list[dict[str, Any]], words: Any, as_json: bool) -> None:
    """Print the rows."""
    if as_json:
        typer.echo(json.dumps(rows))
        return
    typer.echo(_table(rows, words))


def _table(rows: list[dict[str, Any]], words: Any) -> str:
    out = []
    mc = any(r["trials"] for r in rows)
    dealt = words.dealt
    for target in dict.fromkeys(r["target"] for r in rows):
        out.append(f"vs {target} ({rows[0]['phase']}; {'± one standard error' if mc else 'exact'})")
        out.append(
            f"{'#':>3} {'models':>6} {'upgrades':<34} {words.cost:>8} {dealt:>15} {'destroyed':>15} "
            f"{'P(destroy)':>16} {dealt + '/100':>11} {'kills/100':>10}"
        )
        for r in (x for x in rows if x["target"] == target):
            out.append(
                f"{r['rank']:>3} {r['models']:>6} {r['upgrades'][:34]:<34} {r[words.cost]:>8} "
                f"{_result_cells(r, mc, dealt)} {r[dealt + '_per_100']:>11.3f} {r['kills_per_100']:>10.3f}"
            )
        out.append("")
    return "\n".join(out).rstrip()


def _result_cells(row: dict[str, Any], mc: bool, dealt: str = "damage") -> str:
    """Mean dealt, mean models destroyed and P(destroy), each ± its standard error under Monte Carlo."""

    def pm(v: float, se: float, d: int = 3) -> str:
        return f"{v:.{d}f}" + (f" ±{se:.{d}f}" if mc else "")

    return (
        f"{pm(row[dealt + '_mean'], row[dealt + '_se']):>15} {pm(row['destroyed_mean'], row['destroyed_se']):>15} "
        f"{pm(row['p_destroy'], row['p_destroy_se'], 4):>16}"
    )


def _plot(rows: list[dict[str, Any]], words: Any, top: int) -> Any:
    """P(>= k models destroyed) step lines: the ``top`` best-ranked loadouts, one panel per target."""
    from matplotlib.figure import Figure

    targets = list(dict.fromkeys(r["target"] for r in rows))
    fig = Figure(figsize=(6 * len(targets), 4.5), layout="constrained")
    axes = fig.subplots(1, len(targets), squeeze=False)[0]
    for ax, target in zip(axes, targets, strict=True):
        for r in [x for x in rows if x["target"] == target and x["rank"] <= top]:
            ks = sorted(int(k[5:]) for k in r if k.startswith("p_ge_"))
            ax.step([0, *ks], [1.0] + [r[f"p_ge_{k}"] for k in ks], where="post", label=_label(r, words))
        ax.set_title(f"vs {target} (best {top} by rank)")
        ax.set_xlabel("models destroyed, k")
        ax.set_ylabel("P(≥ k)")
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=7)
    return fig


def _label(r: dict[str, Any], words: Any) -> str:
    upgrades = "" if r["upgrades"] == "-" else f" + {r['upgrades']}"
    return f"{r['models']} {r['unit']}{upgrades} ({r[words.cost]} {words.cost})"


@handle_errors
def matchup(
    a: Annotated[str, typer.Argument(help="First unit (NAME or NAME:MODELS).")],
    b: Annotated[str, typer.Argument(help="Second unit (NAME or NAME:MODELS).")],
    a_upgrade: Annotated[list[str] | None, typer.Option("--a-upgrade", metavar="NAME")] = None,
    b_upgrade: Annotated[list[str] | None, typer.Option("--b-upgrade", metavar="NAME")] = None,
    distance: Annotated[str | None, typer.Option("--range", metavar="INCHES", help="Distance between units.")] = None,
    profiles: Annotated[list[str] | None, typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP)] = None,
    exact: Annotated[bool, typer.Option("--exact", rich_help_panel=R)] = False,
    trials: Annotated[str | None, typer.Option("--trials", metavar="N", rich_help_panel=R)] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", rich_help_panel=R)] = "0",
    tolerance: Annotated[str | None, typer.Option("--tolerance", metavar="E", rich_help_panel=R)] = None,
    method: Annotated[str, typer.Option("--method", rich_help_panel=R)] = "count",
    as_json: Annotated[bool, typer.Option("--json")] = False,
    system: Annotated[str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf).")] = (
        "starcraft"
    ),
    cover: Annotated[bool, typer.Option("--cover", help="Grimdark: both units in cover against shooting.")] = False,
) -> None:
    """Both directions, side by side, in every phase (StarCraft TMG: Assault Phase ranged, Combat Phase).

    Example: mathhammer matchup Marine:9 Zergling:18 --range 8
    """
    import dataclasses

    from .. import systems

    opts = run_options(exact, trials, seed, tolerance, method)
    game = systems.get(system, "--system")
    query, names = _query(game, a, b, "assault", distance, [], {"--cover": cover or None})
    query = dataclasses.replace(query, upgrades=tuple(a_upgrade or ()), target_upgrades=tuple(b_upgrade or ()))
    with renamed(names):
        rows = game.matchup(game.load_roster(profiles or []), query, opts)
    _print_matchup(rows, game.words.dealt, not opts.exact, as_json)


def _print_matchup(rows: list[dict[str, Any]], dealt: str, mc: bool, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(rows))
        return
    melee = any("p_win" in row for row in rows)  # a melee resolved both ways: who wins it
    head = f"{'attacker':<28} {'target':<28} {'phase':<15} {dealt:>15} {'destroyed':>15} {'P(destroy)':>16}"
    lines = [head + (f" {'P(win/draw/lose melee)':>24}" if melee else "")]
    for row in rows:
        if not row["batches"]:
            lines.append(f"{row['attacker']:<28} {row['target']:<28} {row['phase']:<15} {'(no weapon)':>15}")
            continue
        cells = _result_cells(row, mc, dealt)
        if "p_win" in row:
            cells += f" {row['p_win']:>8.3f}/{row['p_draw']:.3f}/{row['p_lose']:.3f}"
        lines.append(f"{row['attacker'][:28]:<28} {row['target'][:28]:<28} {row['phase']:<15} {cells}")
    typer.echo("\n".join(lines))
