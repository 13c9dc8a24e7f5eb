"""``mathhammer scenario check FILE`` and ``mathhammer scenario run FILE --trials N --seed S [--json] [--plot DIR]``.

Both take ``--profiles DIR`` (repeatable): the armies' cards are read from the built-in profiles and DIR; and
``--policies FILE`` (repeatable): the automatic players' policies of the user's own (:mod:`.policyfiles`).

``check`` walks the plan (:func:`mathhammer.scenario.check_scenario`) and prints every illegal
activation, one ``error:`` line each (exit status 2), or ``ok``. ``run`` simulates N games and
prints the outcome (P(win / draw / loss) with standard errors, the game-ending Round, VP and
marker control per Round, models left per unit), or with ``--json`` one object (see
:meth:`mathhammer.scenario.ScenarioResult.to_dict`). ``--plot DIR`` writes ``vp.png`` and
``markers.png`` (and ``units.png`` with an automatic player) into DIR, all or none (:mod:`mathhammer.outputs`; a
new DIR appears whole).
``--workers K`` plays on K processes (default: every core; :mod:`mathhammer.scenario.parallel`),
with the same games for any K. ``--game N`` plays only game N of the seed (a trace's replay; not with ``--trials``
or ``--workers``). With an automatic player, ``--trace K`` writes K sampled games as scenario files into
``--trace-dir DIR`` (default ``traces``) with pictures of the first one's Rounds
(:mod:`mathhammer.scenario.players.trace`).
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
from .policyfiles import PoliciesOpt, check_played, read_files

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


def _load(file: Path, profiles: list[str] | None, policies: list[str] | None = None) -> Any:
    """The scenario, its armies checked against the built-in cards and those of ``--profiles`` folders, its
    automatic players' policies among the built-in ones and those of ``--policies`` files."""
    from ..scenario import load_scenario
    from ..starcraft.roster import load_roster

    folders = list(profiles or [])
    for folder in folders:
        if not str(folder).strip():  # "" would be the current folder, read whole
            raise InputError("--profiles", folder, "a folder of TOML profiles")
    read = read_files(policies)
    scn = load_scenario(file, load_roster(folders) if folders else None)
    check_played(read, list(dict.fromkeys(scn.policies.values())))
    return scn


@app.command("check")
@handle_errors
def check(file: FileArg, profiles: ProfilesOpt = None, policies: PoliciesOpt = None) -> None:
    """Validate a scenario file and its plan: every problem with its round, phase and activation."""
    from ..jit import announce
    from ..scenario import ScenarioError, check_scenario

    scn = _load(file, profiles, policies)
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


TraceOpt = Annotated[
    str | None,
    typer.Option(
        "--trace",
        metavar="K",
        help="Write K sampled games as scenario files (with pictures of the first one's Rounds) into --trace-dir.",
        show_default=False,
    ),
]
TraceDirOpt = Annotated[
    Path | None,
    typer.Option("--trace-dir", metavar="DIR", help="Folder for --trace [default: traces].", show_default=False),
]


@app.command("run")
@handle_errors
def run(
    file: FileArg,
    trials: Annotated[
        str | None, typer.Option("--trials", help="Games to simulate [default: 10000].", metavar="N")
    ] = None,
    seed: GameSeed = "0",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    workers: Workers = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Folder for vp.png and markers.png (and units.png with an automatic player).",
            metavar="DIR",
            show_default=False,
        ),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            "--game", help="Play only game N of the seed (a trace's replay).", metavar="N", show_default=False
        ),
    ] = None,
    trace: TraceOpt = None,
    trace_dir: TraceDirOpt = None,
    profiles: ProfilesOpt = None,
    policies: PoliciesOpt = None,
) -> None:
    """Simulate N games of the scenario's plan."""
    from ..engine.options import check_seed
    from ..scenario import MAX_TRIALS
    from ..validate import whole
    from .traces import check_apart, trace_files

    one = None
    if game is not None:
        one = whole("--game", game, 0, MAX_TRIALS - 1, "a game number, 0 or more")
        for flag, value in (("--trials", trials), ("--workers", workers), ("--trace", trace)):
            if value is not None:
                raise InputError(flag, value, "nothing: --game N plays one chosen game")
    n = 1 if one is not None else whole("--trials", trials or "10000", 1, MAX_TRIALS, "a number of games")
    s = check_seed(seed, "--seed")
    k = None if workers is None else whole("--workers", workers, 1, 256, "a number of processes")
    check_plot(plot)
    scn = _load(file, profiles, policies)
    traces = trace_plan(trace, trace_dir, n, bool(scn.policies), "a scenario with an automatic player")
    check_apart(traces, plot)
    # begun before the games: a folder that cannot be written is found now
    # with an automatic player the report has each unit's actions and damage: drawn too, as ``game`` draws them
    names = (*PLOTS, "units.png") if scn.policies else PLOTS
    with _plot_outputs(plot, names) as tx, trace_files(scn, s, traces) as written:
        result = _simulate(scn, n, s, k, as_json, one)
        write_plots(result, plot, tx, names)
        if written is not None:
            from ..scenario.loader import raw_with_paths

            written.write(raw_with_paths(file), f"scenario run {file.name}")
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        typer.echo(result.text_report())
        if plot is not None:
            typer.echo(f"\nplots: {', '.join(str(plot / name) for name in names)}")
        if written is not None:
            typer.echo(written.listing())


def check_plot(plot: Path | None) -> None:
    """``--plot DIR``: a folder, or a new one in an existing folder."""
    if plot is not None:
        target = plot.resolve()
        if not target.parent.is_dir():
            raise InputError("--plot", str(plot), "a folder whose parent folder exists")
        if target.exists() and not target.is_dir():
            raise InputError("--plot", str(plot), "a folder (this is a file)")


def trace_plan(
    trace: str | None, folder: Path | None, trials: int, automatic: bool, needs: str
) -> tuple[list[int], Path] | None:
    """``--trace K`` and ``--trace-dir DIR``: the game numbers to trace and the folder (None: no trace)."""
    from ..validate import whole

    if trace is None:
        if folder is not None:
            raise InputError("--trace-dir", str(folder), "only with --trace K")
        return None
    if not automatic:
        raise InputError("--trace", trace, f"only for {needs} (a scripted plan is its own trace)")
    k = whole("--trace", trace, 1, 100, "a number of games to trace, 1 to 100")
    if k > trials:  # K sampled games of fewer: not what was asked
        raise InputError("--trace", trace, f"a number of games to trace, at most --trials ({trials})")
    out = Path("traces") if folder is None else folder
    target = out.resolve()
    if not target.parent.is_dir() or (target.exists() and not target.is_dir()):
        from .traces import ALLOWED

        raise InputError("--trace-dir", str(out), ALLOWED)
    from ..scenario.players.trace import sample

    return sample(trials, k), out


def write_plots(result: Any, plot: Path | None, tx: Any, names: tuple[str, ...] | None = None) -> None:
    """Draw ``result``'s pictures ``names`` (default :data:`PLOTS`) into ``--plot DIR`` inside the transaction
    ``tx`` of :func:`_plot_outputs`."""
    if plot is None:
        return
    names = PLOTS if names is None else names

    def draw(folder: Path) -> None:
        result.plot(folder)
        if "units.png" in names:
            result.plot_units(folder)

    if tx.scratch is None:
        with tx.writing(0) as folder:
            draw(folder)
        return
    with tx.writing(0):
        draw(tx.scratch)
    for i, name in enumerate(names):
        with tx.writing(i) as new:
            os.replace(tx.scratch / name, new)


def _plot_outputs(plot: Path | None, names: tuple[str, ...] | None = None) -> Any:
    """``--plot DIR`` as one :class:`~mathhammer.outputs.Outputs` transaction: a new DIR appears whole; in an
    existing DIR, the pictures ``names`` (default :data:`PLOTS`) are replaced together (drawn in a scratch folder
    first)."""
    from contextlib import nullcontext

    from ..outputs import Outputs, Target

    if plot is None:
        return nullcontext()
    allowed = "a folder you may write to"
    if not plot.is_dir():
        return Outputs([Target(plot, "--plot", "dir", allowed)])
    files = [Target(plot / name, "--plot", "file", allowed) for name in (PLOTS if names is None else names)]
    return Outputs(files, scratch=True)


PLOTS = ("vp.png", "markers.png")


def _simulate(scn: Any, n: int, s: int, k: int | None, as_json: bool, game: int | None = None) -> Any:
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
        result = simulate(scn, trials=n, seed=s, progress=progress, workers=k, game=game, per_game=False)
    finally:
        if bar is not None:
            bar.stop()
    return result
