"""StarCraft TMG in words: the loadout of an attack, the unit cards listed and shown.

>>> from mathhammer.starcraft.system import SYSTEM
>>> rows, text = list_units(SYSTEM.load_roster())
>>> text.splitlines()[0].split()[:3]
['unit', 'race', 'slot']
"""

from __future__ import annotations

from typing import Any


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


def list_units(roster: Any, race: str | None = None) -> tuple[list[dict[str, Any]], str]:
    """``profiles list``: a row per unit card (by race, then name; only ``race``'s) and the text table."""
    from ..errors import InputError

    rows = [_row(n, u) for n, u in sorted(roster.units.items(), key=lambda kv: (kv[1].race, kv[0]))]
    if race is not None:
        races = sorted({r["race"] for r in rows})
        if race.lower() not in races:
            raise InputError("race", race, ", ".join(races))
        rows = [r for r in rows if r["race"] == race.lower()]
    return rows, table(rows)


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'unit':<30} {'race':<8} {'slot':<8} {'HP':>3} {'Sh':>3} {'Arm':>4} {'Ev':>3}  compositions"]
    for r in rows:
        comps = ", ".join(f"{c['models']}: {c['minerals']}m" for c in r["compositions"])
        lines.append(
            f"{r['name']:<30} {r['race']:<8} {r['slot']:<8} {r['hp']:>3} {r['shield']:>3} "
            f"{_tn(r['armour']):>4} {_tn(r['evade']):>3}  {comps}"
        )
    return "\n".join(lines)


def show_unit(unit: Any) -> tuple[dict[str, Any], str]:
    """``profiles show NAME``: the card in full, as data and text."""
    data = {"name": unit.name, "race": unit.race, "source": unit.source, **unit.card.model_dump()}
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
    return data, "\n".join(out)


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


def render_loadout(loadout: dict[str, Any]) -> str:
    a, t = loadout["attacker"], loadout["target"]

    def one(d: dict[str, Any]) -> str:
        extras = d["upgrades"] + [f"use {u}" for u in d["use"]]
        return (
            f"{d['models']} {d['unit']}" + (f" ({', '.join(extras)})" if extras else "") + f", {d['minerals']} minerals"
        )

    lines = [f"Attacker: {one(a)}", f"Target:   {one(t)}, {loadout['target_models']} models left"]
    lines.append(
        f"Phase: {loadout['phase']}" + (f', range {loadout["distance"]:g}"' if loadout["distance"] is not None else "")
    )
    if "board" in loadout:
        bd = loadout["board"]
        rolling = ", ".join(f"{n} with {w}" for w, n in bd["models_rolling"].items())
        evade = "yes (" + ", ".join(bd["evade_reasons"]) + ")" if bd["evade_eligible"] else "no"
        lines.append(
            f"Board {bd['file']}: models rolling dice: {rolling}; models that may be removed: {bd['removable']}"
        )
        lines.append(f"  Evade Rolls: {evade}" + "".join(f"\n  not shooting: {r}" for r in bd["refusals"]))
        if "fighting_rank" in bd:
            lines.append(
                f"  Fighting Rank: {', '.join(bd['fighting_rank']) or '-'}; Supporting Rank: "
                f"{', '.join(bd['supporting_rank']) or '-'}; not striking: {', '.join(bd['not_striking']) or '-'}"
            )
            lines.append(f"  casualty order (8.7.5): {', '.join(bd['casualty_order'])}")
            lines.extend(f"  note: {n}" for n in bd["notes"])
    for b in loadout["batches"]:
        kws = ", ".join(b["keywords"])
        lines.append(
            f"  Batch: {b['models']} x {b['weapon']}"
            + (f" [{kws}]" if kws else "")
            + (f": {b['out_of_range']}, no dice" if "out_of_range" in b else "")
        )
    return "\n".join(lines)
