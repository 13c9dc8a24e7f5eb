"""``mathhammer report ARMY_A ARMY_B --out DIR`` and ``mathhammer report --roster --out DIR``."""

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import PROFILES_HELP, handle_errors, run_options

R = "Run"


def register(app: typer.Typer) -> None:
    app.command("report", no_args_is_help=True)(report)


class _Bar:
    """A rich progress bar on stderr: cells done, then the writing of the report."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.task = bar.add_task("cells", total=None)

    def __call__(self, done: int, total: int) -> None:
        self.bar.update(self.task, completed=done, total=total)

    def writing(self) -> None:
        self.bar.update(self.task, description="writing the report", total=None)


@contextmanager
def _progress(show: bool) -> Iterator[_Bar | None]:
    """A progress bar on stderr when ``show`` (None: silent)."""
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        yield _Bar(bar)


@handle_errors
def report(
    armies: Annotated[
        list[str] | None,
        typer.Argument(metavar="ARMY_A ARMY_B", help="Two army lists (Grimdark Future: two unit files)."),
    ] = None,
    out: Annotated[
        str,
        typer.Option("--out", metavar="DIR", help="The report folder (replaced atomically; only an earlier report)."),
    ] = "",
    roster: Annotated[bool, typer.Option("--roster", help="Every unit of the roster against every other.")] = False,
    system: Annotated[str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf).")] = (
        "starcraft"
    ),
    profiles: Annotated[
        list[str] | None,
        typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
    ] = None,
    distance: Annotated[
        str | None,
        typer.Option("--range", metavar="INCHES", help="Distance in the ranged phase (default: in range)."),
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact (the default).", rich_help_panel=R)] = False,
    trials: Annotated[
        str | None, typer.Option("--trials", metavar="N", help="Monte Carlo trials per cell.", rich_help_panel=R)
    ] = None,
    tolerance: Annotated[
        str | None,
        typer.Option("--tolerance", metavar="E", help="Monte Carlo until SE(P(destroy)) <= E.", rich_help_panel=R),
    ] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", help="Seed of the sweep.", rich_help_panel=R)] = "0",
    serial: Annotated[bool, typer.Option("--serial", help="No Dask: every cell in this process.")] = False,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler (tcp://host:8786).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
) -> None:
    """Army efficiency: every unit against every enemy unit, ranged and close combat, per 100 of the cost
    (minerals, points) and, in StarCraft TMG, per Supply.

    Writes DIR/report.html (self-contained), CSV files and PNG charts, in the system's words.

    Example: mathhammer report profiles/armies/terran_skirmish.toml profiles/armies/daelaam_vanguard.toml --out rep
    """
    from .. import systems
    from ..engine.options import CLI_NAMES
    from ..errors import InputError
    from ..validate import number

    game = systems.get(system, "--system")
    if not out:
        raise InputError("--out", "(none)", "the report folder, e.g. --out report")
    opts = run_options(exact, trials, seed, tolerance, "count")
    dist = None if distance is None else number("--range", distance, 0, 999, "distance in inches")
    if serial and scheduler:
        raise InputError("--scheduler", scheduler, "either --serial or --scheduler ADDRESS, not both")
    from ..report import sweep
    from ..report.columns import Columns
    from ..report.output import outputs_for, write_into

    show = not as_json and sys.stderr.isatty()
    # The output transaction begins before the sweep: a folder that cannot be replaced is refused now
    with outputs_for(out) as tx, _progress(show) as progress:
        try:
            df = sweep(
                *(armies or []),
                roster=roster,
                system=game.name,
                profiles=profiles or [],
                distance=dist,
                trials=opts.trials,
                tolerance=opts.tolerance,
                seed=opts.seed,
                scheduler="serial" if serial else (scheduler or "auto"),
                progress=progress,
                names=CLI_NAMES,
            )
        except InputError as exc:  # a cell's own run refused: named by the engine's argument, not the flag
            if exc.field not in ("trials", "tolerance"):
                raise
            raise exc.with_field(CLI_NAMES[exc.field]) from None
        if progress is not None:
            progress.writing()
        write_into(tx, df)
    folder = Path(out)
    meta = df.attrs["report"]
    for w in meta["warnings"]:
        typer.echo(f"warning: {w}", err=True)
    summary = _summary(df, str(folder))
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{folder / 'report.html'}: {summary['cells']} cells, {summary['engine']}, {summary['elapsed_s']} s")
    words = Columns.of_table(df).label  # "Supply removed per 100 minerals", not the CSV key
    for best in summary["best"]:
        figure = f"{words(best['figure'])} {best['value']:.4f}"
        typer.echo(f"  best {best['side']}, {best['phase']}: {best['attacker']} ({figure})")


def _summary(df: Any, folder: str) -> dict[str, Any]:
    from ..report import ranking

    meta = df.attrs["report"]
    head = meta["headline"]
    rank = ranking(df, head)
    best = []
    for (side, phase), block in rank.groupby(["side", "phase"], sort=False):
        top = block.iloc[0]
        value = float(top[head])
        best.append(
            {"side": side, "phase": phase, "attacker": top["attacker"], "figure": head,
             "value": value if value == value else None}
        )  # fmt: skip
    return {
        "out": folder,
        "files": sorted(p.name for p in Path(folder).iterdir()),
        **{k: meta[k] for k in ("system", "mode", "engine", "trials", "tolerance", "seed", "distance")},
        **{k: meta[k] for k in ("cells", "distinct_cells", "scheduler", "elapsed_s", "warnings")},
        "best": best,
    }
