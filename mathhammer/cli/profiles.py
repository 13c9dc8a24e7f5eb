"""``mathhammer profiles list | show NAME | validate DIR``."""

import json
from typing import Annotated

import typer

from .common import PROFILES_HELP, handle_errors
from .queries import renamed

app = typer.Typer(help="Unit, faction and tactical cards from the profiles.", no_args_is_help=True)

ProfilesOpt = Annotated[
    list[str] | None,
    typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
SystemOpt = Annotated[
    str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf, opr) [starcraft].")
]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="profiles")


@app.command("list")
@handle_errors
def list_(
    profiles: ProfilesOpt = None,
    race: Annotated[
        str | None, typer.Option("--race", help="StarCraft TMG: only this race (terran, zerg, protoss).")
    ] = None,
    as_json: JsonOpt = False,
    system: SystemOpt = "starcraft",
) -> None:
    """List every unit (StarCraft TMG: race, slot, HP, Shield, Armour, Evade, compositions; Grimdark Future:
    models, Quality, Defense, Tough, points, rules)."""
    from .. import systems
    from ..errors import InputError

    game = systems.get(system, "--system")
    if race is not None and "race" not in game.unit_filters:
        having = [n for n in systems.names() if "race" in systems.get(n).unit_filters]
        raise InputError("--race", race, f"only with --system {' or '.join(having)} (races of its units)")
    with renamed({"race": "--race"}):
        rows, text = game.describe_units(game.load_roster(profiles or []), {} if race is None else {"race": race})
    typer.echo(json.dumps(rows) if as_json else text)


@app.command("show")
@handle_errors
def show(
    name: Annotated[str, typer.Argument(help="Unit name (case-insensitive).")],
    profiles: ProfilesOpt = None,
    as_json: JsonOpt = False,
    system: SystemOpt = "starcraft",
) -> None:
    """Show one unit in full: profile, weapons, abilities, upgrades, source."""
    from .. import systems

    game = systems.get(system, "--system")
    data, text = game.describe_unit(game.load_roster(profiles or []), name)
    typer.echo(json.dumps(data) if as_json else text)


@app.command("validate")
@handle_errors
def validate(
    folder: Annotated[str, typer.Argument(help="A folder (or file) of TOML profiles.")],
    system: SystemOpt = "starcraft",
) -> None:
    """Check a user's profile folder of the system's format: every problem on its own line, exit status 2 if any."""
    from .. import systems

    typer.echo(systems.get(system, "--system").validate_dir(folder))
