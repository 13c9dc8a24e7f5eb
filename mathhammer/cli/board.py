"""``mathhammer board los FILE --attacker UNIT --target UNIT`` and ``mathhammer board show FILE --out PNG``.

``board los`` prints :func:`mathhammer.board.facts.attack_facts` for one weapon. With ``--json``
it prints one object (see :meth:`mathhammer.board.facts.AttackFacts.to_dict`):

* ``attacker``, ``target``: the unit ids; ``eligible`` (bool) and ``refusals`` (reasons, 8.7.3);
* ``models``: per attacking model ``model``, ``nearest`` (nearest target model it may shoot),
  ``distance`` (inches, base edge to base edge, or null), ``band`` (``normal``, ``long``, ``out``,
  ``no-target``), ``burst`` (Within BURST FIRE), ``contributes`` (rolls dice), ``sees`` (the target
  models Visible to it);
* ``distances``: the contributing models' distances, for ``Batch(distances=...)``;
  ``normal_range``, ``long_range``, ``burst``: model ids per group;
* ``removable`` (count, for ``Batch(visible=...)``) and ``removable_models``;
* ``evade_eligible`` and ``evade_reasons`` (``engaged``, ``high-ground``, ``indirect-out-of-sight``,
  ``hidden``, ``burrowed``);
* ``attacker_engaged``, ``target_engaged``, ``target_tag`` (``Ground`` or ``Flying``);
* ``casualty_tiers``: ``{"1": [...], "2": [...], "3": [...]}`` (8.7.5) and ``anchors``
  (enemy unit id -> the target models Engaged with it).

``board show`` writes the picture of :func:`mathhammer.board.plot.plot_board` to ``--out``
through a temporary file in the same folder and ``os.replace``: never a partial file.
Every bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .common import fail, handle_errors

app = typer.Typer(help="Battlefield: Line of Sight, range and Engagement facts; pictures.", no_args_is_help=True)

FileArg = Annotated[Path, typer.Argument(help="Board TOML file.", show_default=False)]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="board")


def _inches(name: str, value: str | None) -> float | None:
    from ..validate import number

    if value is None:
        return None
    return float(number(name, value, 0, 1000, "inches"))


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


@app.command("los")
@handle_errors
def los(
    file: FileArg,
    attacker: Annotated[str, typer.Option("--attacker", metavar="UNIT", help="Attacking unit id.")],
    target: Annotated[str, typer.Option("--target", metavar="UNIT", help="Target unit id.")],
    range_: Annotated[
        str | None, typer.Option("--range", metavar="IN", help="Weapon Range in inches (default: no limit).")
    ] = None,
    long_range: Annotated[str | None, typer.Option("--long-range", metavar="IN", help="LONG RANGE (X).")] = None,
    burst: Annotated[str | None, typer.Option("--burst", metavar="IN", help='BURST FIRE Y" distance.')] = None,
    indirect: Annotated[bool, typer.Option("--indirect", help="INDIRECT FIRE.")] = False,
    pinpoint: Annotated[bool, typer.Option("--pinpoint", help="PINPOINT.")] = False,
    bulky: Annotated[bool, typer.Option("--bulky", help="BULKY.")] = False,
    weapon_target: Annotated[
        str, typer.Option("--weapon-target", metavar="TAG", help="Weapon Target: All, Ground or Flying.")
    ] = "All",
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag", metavar="TAG", help="Target tag or status (Flying, Ground, Hidden, Burrowed); repeatable."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Who rolls, at what distance, how many models may be removed, Evade and target eligibility."""
    from ..board.facts import attack_facts
    from ..board.loader import load_board

    board = load_board(file)
    facts = attack_facts(
        board,
        attacker,
        target,
        _inches("--range", range_),
        long_range=_inches("--long-range", long_range),
        burst_within=_inches("--burst", burst),
        indirect=indirect,
        pinpoint=pinpoint,
        bulky=bulky,
        target_tags=tuple(tag or ()),
        weapon_target=weapon_target,
    )
    if as_json:
        typer.echo(json.dumps(facts.to_dict()))
        return
    typer.echo(f"{facts.attacker} -> {facts.target}: {'eligible' if facts.eligible else 'not eligible'}")
    for reason in facts.refusals:
        typer.echo(f"  refused: {reason}")
    typer.echo(f"{'model':<16} {'nearest':<16} {'distance':>8}  {'band':<9} burst")
    for m in facts.models:
        dist = "-" if m.distance is None else f"{m.distance:.3f}"
        typer.echo(f"{m.model:<16} {m.nearest or '-':<16} {dist:>8}  {m.band:<9} {_yes(m.burst)}")
    typer.echo(f"distances: {', '.join(f'{d:g}' for d in facts.distances) or '-'}")
    typer.echo(f"removable: {facts.removable} ({', '.join(facts.removable_models) or '-'})")
    typer.echo(
        f"evade: {_yes(facts.evade_eligible)}" + (f" ({', '.join(facts.evade_reasons)})" if facts.evade_reasons else "")
    )
    typer.echo(f"engaged: attacker {_yes(facts.attacker_engaged)}, target {_yes(facts.target_engaged)}")
    if facts.target_engaged:
        for i, tier in enumerate(facts.casualty_tiers, 1):
            typer.echo(f"casualty priority {i}: {', '.join(tier) or '-'}")


@app.command("show")
@handle_errors
def show(
    file: FileArg,
    out: Annotated[Path, typer.Option("--out", metavar="PNG", help="Picture file to write.")],
    attacker: Annotated[str | None, typer.Option("--attacker", metavar="UNIT", help="Attacking unit id.")] = None,
    target: Annotated[str | None, typer.Option("--target", metavar="UNIT", help="Target unit id.")] = None,
) -> None:
    """Draw the board (terrain, bases; with --attacker/--target the sight lines) to a picture file."""
    from ..board.loader import load_board

    board = load_board(file)
    for unit in (attacker, target):
        if unit is not None:
            board.unit(unit)
    if (attacker is None) != (target is None):
        raise InputError("--attacker/--target", attacker or target, "both --attacker and --target, or neither")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise fail(f"--out: got {str(out)!r}; allowed: a file in an existing folder")
    try:
        from ..board.plot import plot_board
    except ImportError as exc:
        raise fail(f"board pictures need matplotlib and mathhammer.board.plot ({exc})") from None
    figure = plot_board(board, attackers=attacker, targets=target)
    suffix = out.suffix or ".png"
    tmp_name = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=folder)
        with os.fdopen(fd, "wb") as fh:
            figure.savefig(fh, format=suffix.lstrip(".") or "png")
        os.replace(tmp_name, out)
        tmp_name = None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise fail(f"--out: cannot write {str(out)!r}: {reason}") from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    typer.echo(f"wrote {out}")
