"""``mathhammer profiles list | show NAME | validate DIR``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from .common import handle_errors

app = typer.Typer(help="Unit, faction and tactical cards from the profiles.", no_args_is_help=True)

ProfilesOpt = Annotated[
    list[str] | None, typer.Option("--profiles", metavar="DIR", help="Extra profile folder, repeatable.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
SystemOpt = Annotated[
    str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf, opr) [starcraft].")
]


def _other_system(name: str, hook: str) -> Any:
    """The registered system ``name`` when it is not StarCraft TMG (whose cards this module shows itself),
    with its ``hook``; None for StarCraft."""
    from .. import systems
    from ..errors import InputError

    game = systems.get(name)
    if game.name == "starcraft":
        return None
    fn = getattr(game, hook)
    if fn is None:
        with_hook = [n for n in systems.names() if n == "starcraft" or getattr(systems.get(n), hook) is not None]
        raise InputError("--system", name, ", ".join(with_hook) + " (systems with profiles)")
    return fn


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="profiles")


def _row(name: str, unit: Any) -> dict[str, Any]:
    c = unit.card
    return {
        "name": name,
        "race": unit.race,
        "slot": c.army_slot,
        "tags": c.combat_tags,
        "hp": c.hp,
        "shield": c.shield,
        "armour": c.armour,
        "evade": c.evade,
        "size": c.size,
        "speed": _speed(c.speed),
        "compositions": [{"models": x.models, "minerals": x.minerals, "supply": x.supply} for x in c.compositions],
        "upgrades": [u.name for u in c.upgrades],
    }


@app.command("list")
@handle_errors
def list_(
    profiles: ProfilesOpt = None,
    race: Annotated[str | None, typer.Option("--race", help="Only this race (terran, zerg, protoss).")] = None,
    as_json: JsonOpt = False,
    system: SystemOpt = "starcraft",
) -> None:
    """List every unit card: race, slot, HP, Shield, Armour, Evade, compositions (Grimdark Future:
    models, Quality, Defense, Tough, points, rules)."""
    from ..errors import InputError
    from ..profiles import load_roster

    other = _other_system(system, "list_profiles")
    if other is not None:
        if race is not None:
            raise InputError("--race", race, "only with --system starcraft (races are StarCraft TMG's)")
        rows_, text = other(list(profiles or []))
        typer.echo(json.dumps(rows_) if as_json else text)
        return

    roster = load_roster(profiles or [])
    rows = [_row(n, u) for n, u in sorted(roster.units.items(), key=lambda kv: (kv[1].race, kv[0]))]
    if race is not None:
        races = sorted({r["race"] for r in rows})
        if race.lower() not in races:
            raise InputError("--race", race, ", ".join(races))
        rows = [r for r in rows if r["race"] == race.lower()]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    header = f"{'unit':<30} {'race':<8} {'slot':<8} {'HP':>3} {'Sh':>3} {'Arm':>4} {'Ev':>3}  compositions"
    typer.echo(header)
    for r in rows:
        comps = ", ".join(f"{c['models']}: {c['minerals']}m" for c in r["compositions"])
        typer.echo(
            f"{r['name']:<30} {r['race']:<8} {r['slot']:<8} {r['hp']:>3} {r['shield']:>3} "
            f"{_tn(r['armour']):>4} {_tn(r['evade']):>3}  {comps}"
        )


@app.command("show")
@handle_errors
def show(
    name: Annotated[str, typer.Argument(help="Unit name (case-insensitive).")],
    profiles: ProfilesOpt = None,
    as_json: JsonOpt = False,
    system: SystemOpt = "starcraft",
) -> None:
    """Show one unit card in full: profile, weapons, abilities, upgrades, source."""
    from ..profiles import load_roster

    other = _other_system(system, "show_profile")
    if other is not None:
        data_, text = other(name, list(profiles or []))
        typer.echo(json.dumps(data_) if as_json else text)
        return

    roster = load_roster(profiles or [])
    unit = roster.unit(name, "NAME")
    data = {"name": unit.name, "race": unit.race, "source": unit.source, **unit.card.model_dump()}
    if as_json:
        typer.echo(json.dumps(data))
        return
    c = unit.card
    out = [
        f"{unit.name} ({unit.race}, {c.army_slot}{', Unique' if c.unique else ''})",
        f"  source: {unit.source}",
        f"  Combat Tags: {', '.join(c.combat_tags)}; Faction Tags: {', '.join(c.faction_tags)}",
        f"  Size {c.size}  HP {c.hp}  Shield {c.shield}  Evade {_tn(c.evade)}  Armour {_tn(c.armour)}  "
        f"Speed {_speed(c.speed)}  base {c.base_mm} mm",
        "  Models/Supply: " + ", ".join(f"{b.models[0]}-{b.models[1]}: {b.supply}" for b in c.supply),
        "  Compositions: "
        + ", ".join(f"{x.models} models {x.minerals} minerals (supply {x.supply})" for x in c.compositions),
        "  Weapons:",
    ]
    for w in c.weapons:
        out.append("    " + _weapon_line(w))
    if c.abilities:
        out.append("  Abilities:")
        for a in c.abilities:
            cost = f" {a.cost} {a.resource}" if a.cost else ""
            out.append(f"    {a.name} ({a.phase}, {a.type}{cost}): {a.text}")
    if c.upgrades:
        out.append("  Upgrades:")
        for u in c.upgrades:
            cost = ", ".join(f"{k}: {v}m" for k, v in u.cost.items())
            flags = (" SPECIALIST" if u.specialist else "") + (f" FOR {u.replaces}" if u.replaces else "")
            out.append(f"    {u.name} [{cost}]{flags}")
            for w in u.weapons:
                out.append("      " + _weapon_line(w))
            for a in u.abilities:
                out.append(f"      {a.name} ({a.phase}, {a.type}): {a.text}")
    typer.echo("\n".join(out))


def _speed(speed: Any) -> str:
    return speed if isinstance(speed, str) else "/".join(map(str, speed))


def _tn(value: Any) -> str:
    return value if isinstance(value, str) else f"{value}+"


def _weapon_line(w: Any) -> str:
    rng = "E" if w.range == "E" else f'{w.range}"'
    surge = f"{'/'.join(w.surge_types)} {w.s_dice}" if w.s_dice else "-"
    kws = ", ".join(w.keywords) or "-"
    return (
        f"{w.name} ({w.phase}): RNG {rng} Target {w.target} RoA {w.roa} Hit {w.hit}+ Surge {surge} "
        f"Dmg {w.damage} Keywords {kws}"
    )


@app.command("validate")
@handle_errors
def validate(folder: Annotated[str, typer.Argument(help="A folder (or file) of TOML profiles.")]) -> None:
    """Check a user's profile folder: every problem on its own line, exit status 2 if any."""
    from ..profiles import ProfileError, load_roster

    try:
        roster = load_roster([folder], builtin=False)
    except ProfileError:
        raise
    n_cards = len(roster.factions) + len(roster.tactical) + len(roster.creep)
    typer.echo(f"ok: {len(roster.files)} files, {len(roster.units)} units, {n_cards} other cards")
