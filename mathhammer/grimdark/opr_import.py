"""Turn a user's Army Forge export (JSON) into Grimdark Future TOML profiles.

Written from the shapes Army Forge is known to produce, without an official
schema; it accepts:

- units at the top level (a list of units, or one unit) or under ``"units"``
  (a list, or an object of units by name; also ``"army"``/``"list"`` holding
  such an object);
- a unit's name as ``customName`` or ``name``; models as ``size`` or ``models``;
  cost as ``cost`` or ``points``; Quality and Defense as numbers or ``"4+"``;
- rules as objects ``{"name": "Tough", "rating": 3}`` (the rating a number or
  a string) or as text ``"Tough(3)"``, under ``rules`` or ``specialRules``;
- weapons under ``loadout`` (a list export, preferred), ``weapons`` (an army
  book) or ``equipment``, each with ``name``, ``count``, ``attacks``, ``range``
  (0 or absent: melee) and ``specialRules`` or ``rules``; an item with a
  ``content`` list contributes the weapons and rules it holds.

Nothing is dropped silently: every rule this package does not model, every
unit or weapon that cannot be read, is left out of the TOML and named in a
warning. The TOML returned always loads with
:func:`~mathhammer.grimdark.profiles.load_units`.

>>> text, warnings = convert([{"name": "Grunts", "size": 5, "quality": "5+", "defense": 5, "cost": 60,
...     "rules": [{"name": "Fearless"}],
...     "equipment": [{"name": "Rifle", "count": 5, "attacks": 1, "range": 24,
...                    "specialRules": [{"name": "AP", "rating": "1"}]}]}], "army.json")
>>> warnings
['Grunts: rule Fearless is not modelled by mathhammer; left out']
>>> print(text.split("\\n\\n", 1)[1])
[units.Grunts]
source = "Army Forge export army.json"
models = 5
quality = 5
defense = 5
points = 60
weapons = [
  { name = "Rifle", range = 24, attacks = 1, rules = ["AP(1)"] },
]
<BLANKLINE>
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..profiles.loader import ProfileError
from .profiles import MARKER_RULES, UNIT_RULES, load_text
from .rules import KNOWN

_UNIT_KEYS = ("units", "army", "list")
_WEAPON_KEYS = ("loadout", "weapons", "equipment")
_SHOOTING_ONLY = {"Indirect", "Relentless", "Lock-On"}
_MELEE_ONLY = {"Furious", "Impact"}


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


_BY_KEY = {_key(n): n for n in [*KNOWN, *MARKER_RULES]}


def _q(text: str) -> str:
    """A TOML basic string."""
    return json.dumps(text, ensure_ascii=False)


def _bare_or_quoted(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_\-]+", name) else _q(name)


def _int(value: object) -> int | None:
    """A whole number from a number or text (``"4+"``, ``"A2"``, ``'24"'``); None when there is none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    m = re.fullmatch(r"\s*[A-Za-z]?\s*(\d+)\s*(\+|\"|''|in)?\s*", str(value))
    return int(m.group(1)) if m else None


def _rule(value: object) -> tuple[str, int | None, bool] | None:
    """``(name, rating, rated)`` of a rule object or text; None when it cannot be read."""
    if isinstance(value, Mapping):
        name = value.get("name")
        if not isinstance(name, str) or not name.strip():
            return None
        raw = value.get("rating")
        if raw in (None, ""):
            return name.strip(), None, False
        r = _int(raw)
        return (name.strip(), r, True) if r is not None else None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([^()]+?)\s*(?:\(\s*([^)]*?)\s*\))?\s*", value)
        if not m:
            return None
        if m.group(2) is None:
            return m.group(1), None, False
        r = _int(m.group(2))
        return (m.group(1), r, True) if r is not None else None
    return None


def _label(value: object) -> str:
    if isinstance(value, Mapping):
        if isinstance(value.get("label"), str):
            return str(value["label"])
        if value.get("rating") not in (None, ""):
            return f"{value.get('name')}({value.get('rating')})"
        return str(value.get("name"))
    return str(value)


def _canonical(value: object, who: str, warnings: list[str]) -> str | None:
    """The rule written as in our TOML (``"AP(1)"``), or None with a warning."""
    if isinstance(value, Mapping) and value.get("modify"):
        warnings.append(f"{who}: rule {_label(value)} modifies another rule (an upgrade); left out")
        return None
    parsed = _rule(value)
    if parsed is None:
        warnings.append(f"{who}: rule {_label(value)!r} cannot be read; left out")
        return None
    name, r, rated = parsed
    canonical = _BY_KEY.get(_key(name))
    if canonical is None:
        warnings.append(f"{who}: rule {_label(value)} is not modelled by mathhammer; left out")
        return None
    wants = canonical in KNOWN and KNOWN[canonical][1]
    if wants != rated or (r is not None and not KNOWN[canonical][2] <= r <= 99):
        warnings.append(f"{who}: rule {_label(value)} has an unexpected rating; left out")
        return None
    return canonical if r is None else f"{canonical}({r})"


def _find_units(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        for key in _UNIT_KEYS:
            inner = data.get(key)
            if isinstance(inner, list):
                return inner
            if isinstance(inner, Mapping):
                if inner and all(isinstance(v, Mapping) and ("quality" in v or "defense" in v) for v in inner.values()):
                    return [{"name": k, **v} for k, v in inner.items()]  # units by name: {"Name": {unit}}
                found = _find_units(inner)
                if found is not None:
                    return found
        if "quality" in data or "defense" in data:
            return [data]
    return None


def _rules_of(obj: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for key in ("rules", "specialRules"):
        value = obj.get(key)
        if isinstance(value, list):
            out.extend(value)
        elif isinstance(value, str) and value.strip():
            out.extend(v.strip() for v in re.split(r",(?![^()]*\))", value) if v.strip())
    return out


def _items(unit: Mapping[str, Any]) -> list[Any]:
    for key in _WEAPON_KEYS:
        value = unit.get(key)
        if isinstance(value, list) and value:
            return value
    return []


def _weapon(item: Mapping[str, Any], who: str, models: int, warnings: list[str]) -> str | None:
    name = str(item.get("name") or item.get("label") or "weapon").strip()
    here = f"{who}: weapon {name}"
    attacks = _int(item.get("attacks"))
    if attacks is None or not 1 <= attacks <= 99:
        warnings.append(f"{here}: attacks {item.get('attacks')!r} cannot be read; weapon left out")
        return None
    raw_range = item.get("range", 0)
    rng = 0 if raw_range in (None, "", "-") else _int(raw_range)
    if rng is None or not 0 <= rng <= 999:
        warnings.append(f"{here}: range {raw_range!r} cannot be read; weapon left out")
        return None
    count = _int(item["count"]) if "count" in item else None
    if "count" in item and count is None:
        warnings.append(f"{here}: count {item['count']!r} cannot be read; every model counted as carrying it")
    if count == 0:
        warnings.append(f"{here}: count 0; weapon left out")
        return None
    if count is not None and count > models:
        warnings.append(f"{here}: count {count} is more than the unit's {models} models; counted as {models}")
        count = models
    rules: list[str] = []
    for value in _rules_of(item):
        rule = _canonical(value, here, warnings)
        if rule is None:
            continue
        base = rule.split("(")[0]
        if base in MARKER_RULES or KNOWN[base][0] != "weapon":
            warnings.append(f"{here}: rule {rule} is not a weapon rule; left out")
        elif base in (_SHOOTING_ONLY if rng == 0 else _MELEE_ONLY):
            warnings.append(
                f"{here}: rule {rule} does not apply to a {'melee' if rng == 0 else 'shooting'} weapon; left out"
            )
        elif any(r.split("(")[0] == base for r in rules):
            warnings.append(f"{here}: rule {rule} given twice; the first kept")
        else:
            rules.append(rule)
    parts = [f"name = {_q(name)}"]
    if count is not None and count != models:
        parts.append(f"count = {count}")
    parts += [f"range = {rng}", f"attacks = {attacks}"]
    if rules:
        parts.append("rules = [" + ", ".join(_q(r) for r in rules) + "]")
    return "{ " + ", ".join(parts) + " }"


def _unit(unit: Mapping[str, Any], name: str, source: str, warnings: list[str]) -> str | None:
    models = _int(unit.get("size", unit.get("models", 1)))
    if "size" not in unit and "models" not in unit:
        warnings.append(f"{name}: no size given; 1 model assumed")
    if models is None or not 1 <= models <= 999:
        warnings.append(f"{name}: size {unit.get('size', unit.get('models'))!r} cannot be read; unit left out")
        return None
    stats: dict[str, int] = {}
    for stat in ("quality", "defense"):
        value = _int(unit.get(stat))
        if value is None or not 2 <= value <= 6:
            warnings.append(f"{name}: {stat} {unit.get(stat)!r} is not a target number 2..6; unit left out")
            return None
        stats[stat] = value
    points = _int(unit.get("cost", unit.get("points", 0)))
    if points is None or points < 0:
        warnings.append(f"{name}: cost {unit.get('cost', unit.get('points'))!r} cannot be read; 0 written")
        points = 0
    if unit.get("combined"):
        warnings.append(f"{name}: a combined unit; check its size ({models}) against your list")
    rules: list[str] = []
    weapon_lines: list[str] = []
    pending: list[Any] = list(_rules_of(unit))
    for item in _items(unit):
        if not isinstance(item, Mapping):
            warnings.append(f"{name}: equipment {item!r} cannot be read; left out")
            continue
        content = item.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, Mapping) and "attacks" in part:
                    line = _weapon(part, name, models, warnings)
                    if line:
                        weapon_lines.append(line)
                else:
                    pending.append(part)
            continue
        if "attacks" not in item:
            pending.extend(_rules_of(item))
            if not _rules_of(item):
                warnings.append(f"{name}: item {item.get('name', '?')} is not a weapon and has no rules; left out")
            continue
        line = _weapon(item, name, models, warnings)
        if line:
            weapon_lines.append(line)
    for value in pending:
        rule = _canonical(value, name, warnings)
        if rule is None:
            continue
        base = rule.split("(")[0]
        if base not in UNIT_RULES:
            warnings.append(f"{name}: rule {rule} is a weapon rule on the unit; left out")
        elif any(r.split("(")[0] == base for r in rules):
            if rule not in rules:
                warnings.append(f"{name}: rule {rule} given twice with different ratings; the first kept")
        else:
            rules.append(rule)
    lines = [
        f"[units.{_bare_or_quoted(name)}]",
        f"source = {_q(source)}",
        f"models = {models}",
        f"quality = {stats['quality']}",
        f"defense = {stats['defense']}",
        f"points = {points}",
    ]
    if rules:
        lines.append("rules = [" + ", ".join(_q(r) for r in rules) + "]")
    if weapon_lines:
        lines.append("weapons = [")
        lines.extend(f"  {w}," for w in weapon_lines)
        lines.append("]")
    return "\n".join(lines) + "\n"


def convert(data: dict[str, Any] | list[Any], source_name: str) -> tuple[str, list[str]]:
    """The TOML text of the units of an Army Forge export, and the warnings.

    Raises:
        InputError: no units found in ``data``.
    """
    found = _find_units(data)
    if found is None:
        raise InputError(
            source_name, type(data).__name__, 'an Army Forge export: a list of units or an object with "units"'
        )
    warnings: list[str] = []
    blocks: list[str] = []
    seen: dict[str, int] = {}
    source = f"Army Forge export {source_name}"
    for i, unit in enumerate(found):
        if not isinstance(unit, Mapping):
            warnings.append(f"units[{i}]: not a unit object; left out")
            continue
        raw = unit.get("customName") or unit.get("name")
        name = " ".join(str(raw).split()) if raw else f"Unit {i + 1}"
        if not raw:
            warnings.append(f"units[{i}]: no name; called {name!r}")
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
            warnings.append(f"{name}: the same name again; numbered")
        block = _unit(unit, name, source, warnings)
        if block is None:
            continue
        try:
            load_text(block, source_name)
        except ProfileError as exc:  # pragma: no cover - a bug of this module
            warnings.extend(f"{name}: left out: {p}" for p in exc.problems)
            continue
        blocks.append(block)
    header = (
        f"# Grimdark Future units imported from {source_name} by `mathhammer import-opr`.\n"
        "# Your own Army Forge export: check the values against your army book.\n"
        "# Format: profiles/grimdark/README.md.\n"
    )
    text = header + "".join("\n" + b for b in blocks)
    load_text(text, source_name)
    return text, warnings
