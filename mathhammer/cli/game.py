"""``mathhammer game ARMY_A.toml ARMY_B.toml --mission CARD --deployment CARD [--terrain PRESET|FILE]
[--red-policy NAME] [--blue-policy NAME] [--first-player WHO] --trials N --seed S [--json] [--plot DIR]
[--trace K [--trace-dir DIR]] [--policies FILE]``: whole games of two army lists with no plan (issue 29).

The scenario is built from the flags as a scenario file would give it (docs/scenario.md, Automatic players):
ARMY_A is red, ARMY_B blue; the Deployment Card's markers and Entry Edges, its terrain preset (``standard`` unless
``--terrain`` names another: ``mathhammer board presets``; or a board file, whose ``[[terrain]]`` pieces are taken);
both players automatic, each choosing by its policy (``random`` unless named); Round 1's First Player by
``--first-player`` (a Roll-Off unless named; ``alternate``: by game number, half the games each way, an even
``--trials``). The results are printed as
``scenario run`` prints them, with each unit's activations by action and damage dealt and taken; ``--plot DIR``
writes ``vp.png``, ``markers.png`` and ``units.png``; ``--trace K`` writes K sampled games as scenario files that
``scenario run --game N`` replays, with pictures of the first one's Rounds (:mod:`mathhammer.scenario.players.trace`).
``--policies FILE`` reads policies of the user's own (:mod:`.policyfiles`). A bad flag is one line naming it.
"""

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from .common import PROFILES_HELP, GameSeed, Workers, file_path, handle_errors
from .policyfiles import PoliciesOpt, check_played, read_files
from .scenario import TraceDirOpt, TraceOpt

ArmyA = Annotated[
    Path,
    typer.Argument(
        help="Red's army list (TOML; examples: profiles/armies/).",
        metavar="ARMY_A",
        show_default=False,
        parser=file_path,
    ),
]
ArmyB = Annotated[
    Path,
    typer.Argument(help="Blue's army list (TOML).", metavar="ARMY_B", show_default=False, parser=file_path),
]

#: the loader's fields of the scenario built here -> the command line's names for them
FIELDS = {
    "mission.card": "--mission",
    "deployment.card": "--deployment",
    "terrain": "--terrain",
    "first_player": "--first-player",
    "players.red.policy": "--red-policy",
    "players.blue.policy": "--blue-policy",
    "players.red.army": "ARMY_A",
    "players.blue.army": "ARMY_B",
}
LABEL = "game"
#: the ``--red-policy`` and ``--blue-policy`` help: the built-in policies (weights: profiles/policies.toml; a test holds
#: the names to the registry's)
POLICY_HELP = (
    "{}'s policy: objective (markers first), aggressive (damage first), cautious (cover and threat first), or random "
    "(a uniformly random legal action: the floor the others must beat; fastest; also named auto); or one of a "
    "--policies file."
)
#: the pictures of ``--plot DIR``
PLOTS = ("vp.png", "markers.png", "units.png")


def register(root: typer.Typer) -> None:
    root.command("game", no_args_is_help=True)(game)


def scenario_data(
    army_a: Path,
    army_b: Path,
    mission: str,
    deployment: str,
    terrain: str,
    red: str,
    blue: str,
    pieces: list[Any] | None = None,
    first: str = "roll-off",
) -> Any:
    """The scenario file's table of this game (both players automatic): the card's terrain preset ``terrain``, or
    the ``pieces`` of the board file ``terrain`` (:func:`terrain_file`)."""
    return {
        "name": f"{army_a.stem} vs {army_b.stem}",
        "description": describe(mission, deployment, terrain, pieces is not None, red, blue),
        "first_player": first,
        "mission": {"card": mission},
        "deployment": {"card": deployment},
        "terrain": f"preset:{terrain}" if pieces is None else pieces,
        "players": {
            "red": {"army": str(army_a.resolve()), "policy": red},
            "blue": {"army": str(army_b.resolve()), "policy": blue},
        },
    }


def describe(mission: str, deployment: str, terrain: str, from_file: bool, red: str, blue: str) -> str:
    """What a game plays, in one line (the scenario's ``description``: the report's second line)."""
    where = f"terrain of {terrain}" if from_file else f"terrain preset {terrain}"
    return f"{mission} on {deployment} ({where}), {red} vs {blue}"


def terrain_file(value: str, presets: str) -> list[Any]:
    """The ``[[terrain]]`` pieces of the board file ``value`` (docs/board.md; its units and battlefield are not
    read: the Deployment Card gives them), for ``--terrain FILE``; anything else is refused naming ``--terrain``."""
    import tomllib

    allowed = f"{presets}; or a board file (TOML with [[terrain]] tables, docs/board.md)"
    path = Path(value)
    if path.suffix != ".toml" or not path.is_file():
        raise InputError("--terrain", value, allowed)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError("--terrain", value, f"{allowed} ({type(exc).__name__}: {exc})") from None
    pieces = table.get("terrain", [])
    if not isinstance(pieces, list) or not all(isinstance(p, dict) for p in pieces):
        raise InputError("--terrain", value, allowed)
    return pieces


def _flags(lines: list[str], terrain_path: str | None = None) -> list[str]:
    """The loader's problems with the scenario's fields named as the flags that gave them (the pieces of
    ``--terrain FILE`` as that file's)."""
    out = []
    for line in lines:
        line = line.removeprefix(f"{LABEL}: ")
        if terrain_path is not None and line.startswith("terrain["):
            out.append(f"--terrain {terrain_path}: {line}")
            continue
        for field, flag in FIELDS.items():
            if line.startswith(f"{field}: "):
                rest = line[len(field) + 2 :]
                line = rest if flag.startswith("ARMY") and not rest.startswith("got ") else f"{flag}: {rest}"
                break
        out.append(line)
    return list(dict.fromkeys(out))  # ARMY_A and ARMY_B the same file: its problems once


@handle_errors
def game(
    army_a: ArmyA,
    army_b: ArmyB,
    mission: Annotated[str, typer.Option("--mission", metavar="CARD", help="Mission Card (profiles/missions.toml).")],
    deployment: Annotated[
        str, typer.Option("--deployment", metavar="CARD", help="Deployment Card: its markers and Entry Edges.")
    ],
    terrain: Annotated[
        str,
        typer.Option(
            "--terrain",
            metavar="PRESET|FILE",
            help="The card's terrain preset (board presets), or a board file's [[terrain]] (docs/board.md).",
        ),
    ] = "standard",
    red_policy: Annotated[str, typer.Option("--red-policy", metavar="NAME", help=POLICY_HELP.format("Red"))] = "random",
    blue_policy: Annotated[
        str, typer.Option("--blue-policy", metavar="NAME", help=POLICY_HELP.format("Blue"))
    ] = "random",
    first_player: Annotated[
        str,
        typer.Option(
            "--first-player",
            metavar="WHO",
            help="Round 1's First Player (8.2.2): red, blue, roll-off, or alternate (by game number: half each way).",
        ),
    ] = "roll-off",
    trials: Annotated[str, typer.Option("--trials", help="Games to play.", metavar="N")] = "1000",
    seed: GameSeed = "0",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    workers: Workers = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Folder for vp.png, markers.png and units.png.", metavar="DIR", show_default=False),
    ] = None,
    trace: TraceOpt = None,
    trace_dir: TraceDirOpt = None,
    profiles: Annotated[
        list[str] | None, typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP, show_default=False)
    ] = None,
    policies: PoliciesOpt = None,
) -> None:
    """Whole games of two army lists on a mission, both players automatic (no plan): who wins, how often."""
    import json

    from ..engine.options import check_seed
    from ..scenario import MAX_TRIALS, ScenarioError
    from ..scenario.loader import parse_scenario
    from ..scenario.players.policies import allowed, resolve
    from ..starcraft.roster import load_roster
    from ..validate import whole
    from .board_presets import find_deployment
    from .scenario import _plot_outputs, _simulate, check_plot, trace_plan, write_plots
    from .traces import check_apart, trace_files

    n = whole("--trials", trials, 1, MAX_TRIALS, "a number of games")
    s = check_seed(seed, "--seed")
    k = None if workers is None else whole("--workers", workers, 1, 256, "a number of processes")
    read = read_files(policies)  # the user's own policies, named below
    chosen = []
    for flag, name in (("--red-policy", red_policy), ("--blue-policy", blue_policy)):
        registered = resolve(name)  # "auto": the default policy
        if registered is None:
            raise InputError(flag, name, allowed(), "your own: --policies FILE")
        chosen.append(registered)
    check_played(read, chosen)
    red_policy, blue_policy = chosen
    for label, path in (("ARMY_A", army_a), ("ARMY_B", army_b)):
        if not path.is_file():
            raise InputError(label, str(path), "an army list TOML file (examples: profiles/armies/)")
    dep = find_deployment(deployment)
    names = [p["name"] for p in dep["presets"]]
    pieces = None
    if terrain not in names:
        pieces = terrain_file(terrain, f"a terrain preset of {dep['name']}: {', '.join(names)}")
    folders = list(profiles or [])
    for folder in folders:
        if not str(folder).strip():
            raise InputError("--profiles", folder, "a folder of TOML profiles")
    check_plot(plot)
    traces = trace_plan(trace, trace_dir, n, True, "automatic players")
    check_apart(traces, plot)
    data = scenario_data(army_a, army_b, mission, deployment, terrain, red_policy, blue_policy, pieces, first_player)
    try:
        scn = parse_scenario(data, LABEL, Path.cwd(), load_roster(folders) if folders else None)
    except ScenarioError as exc:
        raise ScenarioError(_flags(exc.problems, terrain if pieces is not None else None)) from None
    # the cards named as they are printed, not as typed ("frontier"), in the report and the trace files
    data["description"] = describe(scn.mission.name, dep["name"], terrain, pieces is not None, red_policy, blue_policy)
    scn = dataclasses.replace(scn, description=data["description"])
    # begun before the games: a folder that cannot be written is found now
    with _plot_outputs(plot, PLOTS) as tx, trace_files(scn, s, traces) as written:
        result = _simulate(scn, n, s, k, as_json)
        write_plots(result, plot, tx, PLOTS)
        if written is not None:
            written.write(data, "mathhammer game")
    if as_json:
        out = result.to_dict()
        out["setup"] = {  # what was played: the JSON says it by itself
            "red": {"army": str(army_a), "policy": red_policy},
            "blue": {"army": str(army_b), "policy": blue_policy},
            "mission": scn.mission.name,
            "deployment": dep["name"],
            "terrain": terrain if pieces is not None else f"preset:{terrain}",
            "first_player": first_player,
        }
        typer.echo(json.dumps(out, indent=2))
    else:
        typer.echo(result.text_report())
        if plot is not None:
            typer.echo(f"\nplots: {', '.join(str(plot / name) for name in PLOTS)}")
        if written is not None:
            typer.echo(written.listing())


__all__ = ["describe", "game", "register", "scenario_data", "terrain_file"]
