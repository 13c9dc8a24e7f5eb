"""``mathhammer scenario check FILE`` and ``mathhammer scenario run FILE --trials N --seed S [--json] [--plot DIR]``.

Both take ``--profiles DIR`` (repeatable): the armies' cards are read from the built-in profiles and DIR.

``check`` walks the plan (:func:`mathhammer.scenario.check_scenario`) and prints every illegal
activation, one ``error:`` line each (exit status 2), or ``ok``. ``run`` simulates N games and
prints the outcome (P(win / draw / loss) with standard errors, the game-ending Round, VP and
marker control per Round, models left per unit), or with ``--json`` one object (see
:meth:`mathhammer.scenario.ScenarioResult.to_dict`). ``--plot DIR`` writes ``vp.png`` and
``markers.png`` into DIR, both or neither (:mod:`mathhammer.outputs`; a new DIR appears whole).
``--workers K`` plays on K processes (default: every core; :mod:`mathhammer.scenario.parallel`),
with the same games for any K.
A progress bar goes to stderr when it is a terminal and ``--json`` is not given.
"""

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from .common import PROFILES_HELP, GameSeed, Workers, file_path, handle_errors

app = typer.Typer(
    help=(
        "Whole games (rulebook part 8): a mission, a deployment, a board, two army lists and a plan of "
        "activations (format: docs/scenario.md; examples: profiles/scenarios/). check: the plan's illegal activations; "
        "run: N simulated games."
    ),
    no_args_is_help=True,
)

FileArg = Annotated[
    Path,
    typer.Argument(help="Scenario TOML file (examples: profiles/scenarios/).", show_default=False, parser=file_path),
]


ProfilesOpt = Annotated[
    list[str] | None,
    typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP, show_default=False),
]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="scenario")


def _load(file: Path, profiles: list[str] | None) -> Any:
    """The scenario, its armies checked against the built-in cards and those of ``--profiles`` folders."""
    from ..scenario import load_scenario
    from ..starcraft.roster import load_roster

    folders = list(profiles or [])
    for folder in folders:
        if not str(folder).strip():  # "" would be the current folder, read whole
            raise InputError("--profiles", folder, "a folder of TOML profiles")
    return load_scenario(file, load_roster(folders) if folders else None)


@app.command("check")
@handle_errors
def check(file: FileArg, profiles: ProfilesOpt = None) -> None:
    """Validate a scenario file and its plan: every problem with its round, phase and activation."""
    from ..jit import announce
    from ..scenario import ScenarioError, check_scenario

    scn = _load(file, profiles)
    announce("scenario-check")
    problems = check_scenario(scn)
    errors = [p for p in problems if not p.startswith("warning")]
    for p in problems:
        if p.startswith("warning"):
            typer.echo(p, err=True)
    if errors:
        raise ScenarioError(errors)
    typer.echo(
        f"ok: {scn.name}: {scn.mission.name} ({scn.mission.scale}), {scn.deployment_card['name']}, "
        f"{len(scn.units)} units, {len(scn.plan)} planned activations"
        + "".join(f"; {p}: automatic (policy {n!r}), chosen in play" for p, n in scn.policies.items())
    )


@app.command("run")
@handle_errors
def run(
    file: FileArg,
    trials: Annotated[str, typer.Option("--trials", help="Games to simulate.", metavar="N")] = "10000",
    seed: GameSeed = "0",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    workers: Workers = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Folder for vp.png and markers.png.", metavar="DIR", show_default=False),
    ] = None,
    profiles: ProfilesOpt = None,
) -> None:
    """Simulate N games of the scenario's plan."""
    from ..engine.options import check_seed
    from ..scenario import MAX_TRIALS
    from ..validate import whole

    n = whole("--trials", trials, 1, MAX_TRIALS, "a number of games")
    s = check_seed(seed, "--seed")
    k = None if workers is None else whole("--workers", workers, 1, 256, "a number of processes, 1 to 256")
    if plot is not None:
        target = plot.resolve()
        parent = target.parent
        if not parent.is_dir():
            raise InputError("--plot", str(plot), "a folder whose parent folder exists")
        if target.exists() and not target.is_dir():
            raise InputError("--plot", str(plot), "a folder (this is a file)")
    scn = _load(file, profiles)
    with _plot_outputs(plot) as tx:  # begun before the games: a folder that cannot be written is found now
        result = _simulate(scn, n, s, k, as_json)
        if plot is not None and tx.scratch is None:
            with tx.writing(0) as folder:
                result.plot(folder)
        elif plot is not None:
            with tx.writing(0):
                result.plot(tx.scratch)
            for i, name in enumerate(PLOTS):
                with tx.writing(i) as new:
                    os.replace(tx.scratch / name, new)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        typer.echo(result.text_report())
        if plot is not None:
            typer.echo(f"\nplots: {plot / 'vp.png'}, {plot / 'markers.png'}")


def _plot_outputs(plot: Path | None) -> Any:
    """``--plot DIR`` as one :class:`~mathhammer.outputs.Outputs` transaction: a new DIR appears whole; in an
    existing DIR, vp.png and markers.png are replaced together (drawn in a scratch folder first)."""
    from contextlib import nullcontext

    from ..outputs import Outputs, Target

    if plot is None:
        return nullcontext()
    allowed = "a folder you may write to"
    if not plot.is_dir():
        return Outputs([Target(plot, "--plot", "dir", allowed)])
    files = [Target(plot / name, "--plot", "file", allowed) for name in PLOTS]
    return Outputs(files, scratch=True)


PLOTS = ("vp.png", "markers.png")


def _simulate(scn: Any, n: int, s: int, k: int | None, as_json: bool) -> Any:
    """The games, with a progress bar on a terminal."""
    from ..scenario import simulate

    progress = None
    bar = None
    if not as_json and sys.stderr.isatty():
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task(f"{scn.name}", total=scn.mission.game_length)
        bar.start()

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

    try:
        result = simulate(scn, trials=n, seed=s, progress=progress, workers=k)
    finally:
        if bar is not None:
            bar.stop()
    return result
