"""Grimdark Future in words: units listed and shown.

>>> from mathhammer.grimdark.system import SYSTEM
>>> data, text = show_unit(SYSTEM.find_unit(SYSTEM.load_roster(), "Robot Warriors"))
>>> data["quality"], text.splitlines()[0].startswith("Robot Warriors")
(4, True)
"""

from __future__ import annotations

from typing import Any


def _weapon_text(w: Any) -> str:
    rng = "melee" if w.melee else f'{w.range:g}"'
    rules = "".join(f", {r}" for r in w.rules)
    count = f"{w.count}x " if w.count is not None else ""
    return f"{count}{w.name} ({rng}, A{w.attacks}{rules})"


def _unit_dict(u: Any) -> dict[str, Any]:
    return {
        "name": u.name,
        "models": u.models,
        "quality": u.quality,
        "defense": u.defense,
        "tough": u.tough,
        "points": u.points,
        "hero": u.hero,
        "sample": u.sample,
        "source": u.source,
        "rules": [str(r) for r in u.rules],
        "weapons": [
            {
                "name": w.name,
                "count": w.count,
                "range": w.range,
                "melee": w.melee,
                "attacks": w.attacks,
                "rules": [str(r) for r in w.rules],
            }
            for w in u.weapons
        ],
    }


def list_units(units: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """``profiles list --system grimdark``: every unit (built-in samples and ``--profiles`` folders)."""
    rows = [_unit_dict(u) for _, u in sorted(units.items())]
    lines = [f"{'unit':<30} {'models':>6} {'Q':>3} {'D':>3} {'Tough':>5} {'pts':>5}  rules"]
    for r in rows:
        rules = ", ".join(r["rules"]) or "-"
        stats = f"{r['models']:>6} {r['quality']:>2}+ {r['defense']:>2}+ {r['tough']:>5} {r['points']:>5}"
        lines.append(f"{r['name']:<30} {stats}  {rules}")
    return rows, "\n".join(lines)


def show_unit(u: Any) -> tuple[dict[str, Any], str]:
    """``profiles show NAME --system grimdark``: one unit in full."""
    data = _unit_dict(u)
    kind = ", hero" if u.hero else ""
    out = [
        f"{u.name} [{u.models}]{kind}{' (sample, not army-book data)' if u.sample else ''}",
        f"  source: {u.source}",
        f"  Quality {u.quality}+  Defense {u.defense}+  Tough({u.tough})  {u.points} pts",
        "  Rules: " + (", ".join(data["rules"]) or "-"),
        "  Weapons:",
    ]
    out += [f"    {_weapon_text(w)}" for w in u.weapons] or ["    -"]
    return data, "\n".join(out)
