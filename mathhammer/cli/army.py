"""``mathhammer army validate FILE [--profiles DIR] [--json]``: check an army list (rulebook 9.1)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import handle_errors

app = typer.Typer(help="Army lists: check one against the army-building rules (9.1).", no_args_is_help=True)

ProfilesOpt = Annotated[
    list[str] | None, typer.Option("--profiles", metavar="DIR", help="Extra profile folder, repeatable.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="army")


@app.command("validate")
@handle_errors
def validate(
    file: Annotated[str, typer.Argument(metavar="FILE", help="An army list (TOML, profiles/armies/README.md).")],
    profiles: ProfilesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check an army list: Minerals, Vespene Gas, Army Slots, Faction Tags, compositions, upgrades.

    Prints the totals and "valid", or every violation as an ``error:`` line on
    stderr with exit status 2.
    """
    from ..starcraft.army import ArmyError, check_army, load_army
    from ..starcraft.roster import load_roster

    army = load_army(file)
    roster = load_roster(profiles or [])
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
