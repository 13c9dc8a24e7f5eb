"""``mathhammer army validate FILE [--system gf] [--profiles DIR] [--json]``: check an army list.

StarCraft (the default): rulebook 9.1. Grimdark Future (``--system gf``): the v3.5 army-building
rules of ``profiles/rules/grimdark_army_building.toml`` (``mathhammer.grimdark.army``).
"""

import json
from pathlib import Path
from typing import Annotated

import typer

from .common import PROFILES_HELP, file_path, handle_errors

app = typer.Typer(
    help="Army lists: check one against the army-building rules (StarCraft 9.1, Grimdark Future v3.5).",
    no_args_is_help=True,
)

ProfilesOpt = Annotated[
    list[str] | None,
    typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
SystemOpt = Annotated[
    str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf, opr) [starcraft].")
]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="army")


@app.command("validate")
@handle_errors
def validate(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="An army list (TOML; format for both systems: docs/army.md).",
            parser=file_path,
        ),
    ],
    profiles: ProfilesOpt = None,
    as_json: JsonOpt = False,
    system: SystemOpt = "starcraft",
) -> None:
    """Check an army list: Minerals, Vespene Gas, Army Slots, Faction Tags, compositions, upgrades.

    With ``--system gf``: a Grimdark Future list against the points limit, heroes per points,
    copies of a unit, the share of points in one unit and units per points (v3.5). Prints the
    totals and "valid" (``ok: ...`` for Grimdark Future), or every violation as an ``error:``
    line on stderr with exit status 2.
    """
    from .. import systems

    game = systems.get(system, "--system")
    if game.name == "grimdark":
        _validate_gf(file, profiles or [], as_json)
        return
    if game.name != "starcraft":
        from ..errors import InputError

        raise InputError("--system", system, "starcraft (sc) or grimdark (gf, opr): the systems with army lists")
    from ..starcraft.army import GRIMDARK_LIST, ArmyError, check_army, load_army
    from ..starcraft.roster import load_roster

    try:
        army = load_army(file)
    except ArmyError as exc:  # a Grimdark Future list: the flag that reads it
        raise ArmyError([p + " (--system gf)" if p.endswith(GRIMDARK_LIST) else p for p in exc.problems]) from None
    roster = load_roster(profiles or [], plain=True)
    report = check_army(army, roster)
    if as_json:
        typer.echo(json.dumps(report.as_dict()))
    else:
        title = f"{army.name} ({army.file})" if army.name else army.file
        typer.echo(f"{title}: faction {army.faction}")
        for line in report.totals.lines():
            typer.echo(f"  {line}")
        if report.valid:
            typer.echo("valid")
    if not report.valid:
        raise ArmyError(report.problems)


def _validate_gf(file: Path, profiles: list[str], as_json: bool) -> None:
    """``army validate --system gf``: every violation naming its rule, or ``ok: ...``."""
    from ..grimdark.army import GFArmyError, check_gf_army, load_gf_army
    from ..grimdark.profiles import load_units

    army = load_gf_army(file)
    report = check_gf_army(army, load_units(profiles))
    if as_json:
        typer.echo(json.dumps(report.as_dict()))
    elif report.valid:
        title = f"{army.name} ({army.file})" if army.name else army.file
        typer.echo(
            f"ok: {title}: {report.points}/{army.points} pts, {report.units} units, {report.heroes} heroes "
            "(Grimdark Future v3.5 army building)"
        )
    if not report.valid:
        raise GFArmyError(report.problems)
