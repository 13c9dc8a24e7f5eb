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
- equipment: a list export's ``loadout`` (weapons and items with the upgrades
  applied) when present, else an army book's ``weapons`` (or ``equipment``)
  and ``items``. A weapon has ``name``, ``count``, ``attacks``, ``range`` (0,
  ``null`` or absent: melee) and ``specialRules`` or ``rules``. ``count`` is
  how many of the weapon the unit has, as Army Forge writes it ("2x CCW" on a
  single model is count 2): up to the unit's size it is the models carrying
  one, more is spread over the models (A times ``count // size`` on every
  model, plus one more on ``count % size`` of them). Identical weapons listed
  twice are added up. An item (``ArmyBookItem``) with a ``content`` list
  contributes the weapons and rules it holds; a unit rule from an item that
  only some models carry is left out with a warning (Regeneration needs "a
  unit where all models have this rule").
- a list export's (Army Forge share/TTS shape: ``gameSystem``, ``units`` with
  ``selectionId``, ``joinToUnit``, ``combined``, ``selectedUpgrades``):
  the unit's ``cost`` is its base cost, so each ``selectedUpgrades[].option.cost``
  is added; the two halves of a combined unit (the second with ``"combined":
  true`` and ``"joinToUnit"``) become one unit; a hero joined to a unit
  (``joinToUnit``, not combined) is written as its own unit with a comment
  saying how to join it as a target (``"Unit + Hero"``).
- an Army Forge list save (``saveVersion``, ``list.units`` with ``selectedUpgrades`` of
  ``upgradeId``/``optionId``) holds no profiles: :func:`~mathhammer.grimdark.opr_saves.resolve_save`
  builds its units from the army book exports first, and the result is converted here.

Nothing is dropped silently: every rule this package does not model, every
unit or weapon that cannot be read, is left out of the TOML and named in a
warning (a rule it does not model is quoted from
``profiles/rules/grimdark_common_rules.toml`` when that file has its text), except
a rule that cannot change a number: one the data file classifies with
``changes = []`` (movement, deployment, transport, ...: Fast, Scout, Strider)
is left out without a warning. The TOML returned always loads with
:func:`~mathhammer.grimdark.profiles.load_units`.

>>> text, warnings = convert([{"name": "Grunts", "size": 5, "quality": "5+", "defense": 5, "cost": 60,
...     "rules": [{"name": "Fearless"}, {"name": "Ravage", "rating": 1}, {"name": "Scout"}],
...     "equipment": [{"name": "Rifle", "count": 5, "attacks": 1, "range": 24,
...                    "specialRules": [{"name": "AP", "rating": "1"}]}]}], "army.json")
>>> warnings  # Scout (deployment) cannot change a number: no warning; Fearless is modelled
['Grunts: rule Ravage(1) is not modelled by mathhammer (an unknown rule); left out']
>>> print(text.split("\\n\\n", 1)[1])
[units.Grunts]
source = "Army Forge export army.json"
models = 5
quality = 5
defense = 5
points = 60
rules = ["Fearless"]
weapons = [
  { name = "Rifle", range = 24, attacks = 1, rules = ["AP(1)"] },
]
warnings = [
  "Grunts: rule Ravage(1) is not modelled by mathhammer (an unknown rule); left out",
]
<BLANKLINE>
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..profiles.loader import ProfileError
from .army_rules import ArmyRule, load_table, match
from .common_rules import number_changing, rule
from .model import MELEE_ONLY, SHOOTING_ONLY
from .profiles import MARKER_RULES, UNIT_RULES, load_text
from .rules import KNOWN

#: Rules one model gives its whole unit: Banner, "This model and its unit get +1 to morale test rolls" (GF v3.5
#: common rules), so a banner carried by one model is the unit's.
ONE_MODEL_FOR_ALL = frozenset({"Banner"})

_UNIT_KEYS = ("units", "army", "list")
_WEAPON_KEYS = ("loadout", "weapons", "equipment")
_SHOOTING_ONLY = set(SHOOTING_ONLY)
_MELEE_ONLY = set(MELEE_ONLY)


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
    m = re.fullmatch(r"\s*[A-Za-z+]?\s*(\d+)\s*(\+|\"|''|in)?\s*", str(value))
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


def _name_of(value: object) -> str:
    return str(value.get("name")) if isinstance(value, Mapping) else str(value)


def _label(value: object) -> str:
    if isinstance(value, Mapping):
        if isinstance(value.get("label"), str):
            return str(value["label"])
        if value.get("rating") not in (None, ""):
            return f"{value.get('name')}({value.get('rating')})"
        return str(value.get("name"))
    return str(value)


class _Book:
    """The army book's own rule definitions (its top-level ``specialRules``) and the table that maps them."""

    def __init__(self, definitions: object, table: dict[str, ArmyRule]) -> None:
        self.table = table
        self.texts: dict[str, tuple[str, str]] = {}
        for d in definitions if isinstance(definitions, list) else ():
            if isinstance(d, Mapping) and isinstance(d.get("name"), str):
                text = d.get("description", d.get("text"))
                if isinstance(text, str) and text.strip():
                    self.texts.setdefault(_key(d["name"]), (d["name"].strip(), text.strip()))

    def army_rule(self, value: object) -> ArmyRule | None:
        """The table's entry for a rule the book defines with the entry's text; None otherwise."""
        parsed = _rule(value)
        if parsed is None or parsed[2] or _BY_KEY.get(_key(parsed[0])) is not None:
            return None
        found = self.texts.get(_key(parsed[0]))
        return match(self.table, parsed[0], found[1]) if found else None

    def text(self, name: str) -> tuple[str, str] | None:
        return self.texts.get(_key(name))


_NO_BOOK = _Book(None, {})


def _effect_toml(e) -> str:
    """An effect as a TOML inline table, default keys left out."""
    parts = [f"effect = {_q(e.kind)}", f"value = {e.value}"]
    if e.phase is not None:
        parts.append(f"phase = {_q(e.phase)}")
    if e.charging:
        parts.append("charging = true")
    for k in ("tough_min", "tough_max"):
        if getattr(e, k):
            parts.append(f"{k} = {getattr(e, k)}")
    if e.over is not None:
        parts.append(f"over = {e.over:g}")
    parts.append(f"rule = {_q(e.rule)}")
    return "{ " + ", ".join(parts) + " }"


def _not_modelled(name: str, value: object, who: str, warnings: list[str], book: _Book = _NO_BOOK) -> None:
    """Warn about a rule mathhammer does not model, unless the rules data says it cannot change a number
    (movement, deployment, ...: ``changes = []`` in ``grimdark_common_rules.toml``); the warning quotes the rule's
    text when the data has it, and says so when the rule is unknown to the data."""
    changing = number_changing(name)
    if changing is False:
        return
    data = rule(name)
    if changing:
        assert data is not None
        warnings.append(
            f'{who}: rule {_label(value)} is not modelled by mathhammer; left out ({data.name}: "{data.text.strip()}")'
        )
    elif data is not None:
        warnings.append(
            f"{who}: rule {_label(value)} is not modelled by mathhammer (its text is not known to it); left out"
        )
    elif book.text(name) is not None:
        # an army book's own rule that the table (profiles/grimdark/army_rules.toml) does not map
        own, text = book.text(name)  # type: ignore[misc]
        mapped = _key(name) in book.table
        warnings.append(
            f'{who}: rule {_label(value)} is not modelled by mathhammer; left out ({own}: "{text}")'
            + ("; army_rules.toml maps another text under this name" if mapped else "")
        )
    else:
        warnings.append(f"{who}: rule {_label(value)} is not modelled by mathhammer (an unknown rule); left out")


def _canonical(value: object, who: str, warnings: list[str], book: _Book = _NO_BOOK) -> str | None:
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
        _not_modelled(name, value, who, warnings, book)
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
    """The unit's equipment: a list export's ``loadout`` (weapons and items, upgrades applied) when it has
    one, else an army book's ``weapons`` (or ``equipment``) followed by its ``items`` (wargear such as
    shields, whose ``content`` holds rules and sometimes weapons)."""
    loadout = unit.get("loadout")
    if isinstance(loadout, list) and loadout:
        return loadout
    out: list[Any] = []
    for key in ("weapons", "equipment"):
        value = unit.get(key)
        if isinstance(value, list) and value:
            out.extend(value)
            break
    items = unit.get("items")
    if isinstance(items, list):
        out.extend(items)
    return out


def _weapon(
    item: Mapping[str, Any],
    who: str,
    models: int,
    warnings: list[str],
    book: _Book = _NO_BOOK,
    grants: Sequence[tuple[str, str | None, str]] = (),
) -> list[str]:
    name = str(item.get("name") or item.get("label") or "weapon").strip()
    here = f"{who}: weapon {name}"
    attacks = _int(item.get("attacks"))
    if attacks is None or not 1 <= attacks <= 99:
        warnings.append(f"{here}: attacks {item.get('attacks')!r} cannot be read; weapon left out")
        return []
    raw_range = item.get("range", 0)
    rng = 0 if raw_range in (None, "", "-") else _int(raw_range)
    if rng is None or not 0 <= rng <= 999:
        warnings.append(f"{here}: range {raw_range!r} cannot be read; weapon left out")
        return []
    count = _int(item["count"]) if "count" in item else None
    if "count" in item and count is None:
        warnings.append(f"{here}: count {item['count']!r} cannot be read; every model counted as carrying it")
    if count == 0:
        warnings.append(f"{here}: count 0; weapon left out")
        return []
    rules: list[str] = []
    effects: list[str] = []
    values = list(_rules_of(item))
    for granted, phase, _ in grants:  # a unit's army rule giving its weapons a rule ("Rending in Melee")
        if phase is None or (phase == "melee") == (rng == 0):
            if any(_key(str(_label(v)).split("(")[0]) == _key(granted) for v in values):
                continue
            values.append(granted)
    for value in values:
        army = book.army_rule(value)
        if army is not None:
            for e in army.effects:
                if e.kind == "ap":
                    effects.append(_effect_toml(e))
                else:
                    warnings.append(f"{here}: rule {army.name} ({e.kind}) is not a weapon's; left out")
            for granted, phase in army.grants:
                if phase is None or (phase == "melee") == (rng == 0):
                    values.append(granted)
            if army.unit_grants:
                granted = ", ".join(army.unit_grants)
                warnings.append(f"{here}: rule {army.name} (unit rules {granted}) is not a weapon's; left out")
            continue
        rule = _canonical(value, here, warnings, book)
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
    # Army Forge's ``count`` is how many of this weapon the unit has ("2x CCW" on one model is count 2):
    # ``count`` up to the unit's size is the models carrying one; more is spread over the models, every
    # model carrying ``count // models`` (A times as many attacks) and ``count % models`` carrying one more.
    groups: list[tuple[int | None, int]] = []
    if count is None or count == models:
        groups.append((None, attacks))
    elif count < models:
        groups.append((count, attacks))
    else:
        per, rest = divmod(count, models)
        groups.append((None, per * attacks))
        if rest:
            groups.append((rest, attacks))
        warnings.append(
            f"{here}: {count} weapons on {models} model{'s' if models > 1 else ''}; written as A{per * attacks} "
            "on every model" + (f" and A{attacks} more on {rest}" if rest else "")
        )
    lines = []
    for n, a in groups:
        if a > 99:
            warnings.append(f"{here}: {a} attacks per model is more than 99; weapon left out")
            return []
        parts = [f"name = {_q(name)}"]
        if n is not None:
            parts.append(f"count = {n}")
        parts += [f"range = {rng}", f"attacks = {a}"]
        if rules:
            parts.append("rules = [" + ", ".join(_q(r) for r in rules) + "]")
        if effects:
            parts.append("effects = [" + ", ".join(effects) + "]")
        lines.append("{ " + ", ".join(parts) + " }")
    return lines


def _upgrade_points(unit: Mapping[str, Any], name: str, warnings: list[str]) -> int:
    """The cost of a list export's ``selectedUpgrades`` (each ``option.cost``): Army Forge writes a unit's
    base ``cost`` and the upgrades bought separately."""
    chosen = unit.get("selectedUpgrades")
    if not isinstance(chosen, list):
        return 0
    total = 0
    for su in chosen:
        option = su.get("option") if isinstance(su, Mapping) else None
        cost = _int(option.get("cost")) if isinstance(option, Mapping) else None
        if cost is None:
            label = option.get("label") if isinstance(option, Mapping) else su
            warnings.append(f"{name}: the cost of upgrade {label!r} cannot be read; not counted")
            continue
        total += cost
    return total


def _merge_same_weapons(items: list[Any]) -> list[Any]:
    """Weapons listed more than once with the same profile (the two halves of a combined unit, a list
    repeating a weapon) become one entry whose ``count`` is the sum."""
    out: list[Any] = []
    index: dict[str, int] = {}
    for item in items:
        if not (isinstance(item, Mapping) and "attacks" in item and "content" not in item):
            out.append(item)
            continue
        key = json.dumps(
            [item.get("name"), item.get("range"), item.get("attacks"), item.get("specialRules"), item.get("rules")],
            sort_keys=True,
            default=str,
        )
        if key in index:
            prev = out[index[key]]
            a, b = _int(prev.get("count")), _int(item.get("count"))
            if a is not None and b is not None:
                out[index[key]] = {**prev, "count": a + b}
                continue
        index[key] = len(out)
        out.append(item)
    return out


def _fold_combined(units: list[Any], warnings: list[str]) -> list[Any]:
    """Army Forge lists a combined unit as two halves; the second has ``"combined": true`` and
    ``"joinToUnit"`` naming the first's ``selectionId``. The two become one unit (sizes, costs and
    equipment added up)."""
    by_sel: dict[str, int] = {}
    for i, u in enumerate(units):
        if isinstance(u, Mapping):
            for key in ("selectionId", "id"):
                if isinstance(u.get(key), str) and u[key] not in by_sel:
                    by_sel[u[key]] = i
    out = list(units)
    dropped: set[int] = set()
    for i, u in enumerate(units):
        if not (isinstance(u, Mapping) and u.get("combined") and u.get("joinToUnit")):
            continue
        host_i = by_sel.get(str(u["joinToUnit"]))
        if host_i is None or host_i == i or host_i in dropped or not isinstance(out[host_i], Mapping):
            continue
        host = dict(out[host_i])
        sizes = [_int(x.get("size", x.get("models", 1))) for x in (host, u)]
        if None in sizes:
            continue
        host["size"] = sum(s for s in sizes if s is not None)
        costs = [_int(x.get("cost", x.get("points", 0))) for x in (host, u)]
        if None not in costs:
            host["cost"] = sum(c for c in costs if c is not None)
        for key in ("loadout", "weapons", "equipment", "items", "selectedUpgrades"):
            if isinstance(host.get(key), list) and isinstance(u.get(key), list):
                host[key] = list(host[key]) + list(u[key])
        host["combined"] = False
        host["_combined"] = True
        out[host_i] = host
        dropped.add(i)
        warnings.append(
            f"{host.get('customName') or host.get('name')}: a combined unit; its two halves are imported as "
            f"one unit of {host['size']} models"
        )
    return [u for i, u in enumerate(out) if i not in dropped]


def _unit(unit: Mapping[str, Any], name: str, source: str, warnings: list[str], book: _Book = _NO_BOOK) -> str | None:
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
    points += _upgrade_points(unit, name, warnings)
    if not 0 <= points <= 99999:
        warnings.append(f"{name}: points {points} (with upgrades) is not 0..99999; 0 written")
        points = 0
    if unit.get("combined"):
        warnings.append(f"{name}: a combined unit; check its size ({models}) against your list")
    rules: list[str] = []
    weapon_lines: list[str] = []
    weapon_items: list[Mapping[str, Any]] = []  # built after the unit rules (an army rule may grant them one)
    pending: list[Any] = list(_rules_of(unit))
    for item in _merge_same_weapons(_items(unit)):
        if not isinstance(item, Mapping):
            warnings.append(f"{name}: equipment {item!r} cannot be read; left out")
            continue
        content = item.get("content")
        if isinstance(content, list):
            carried = _int(item["count"]) if "count" in item else None
            for part in content:
                if isinstance(part, Mapping) and "attacks" in part:
                    inner = dict(part)
                    if "count" not in inner and "count" in item:
                        inner["count"] = item["count"]  # a weapon inside an item: as many as the item
                    weapon_items.append(inner)
                elif carried is not None and carried < models and _name_of(part) not in ONE_MODEL_FOR_ALL:
                    # a unit rule needs every model ("a unit where all models have this rule"); an army
                    # rule the table maps is named as such, not as an unknown rule
                    army = book.army_rule(part)
                    rule = army.name if army is not None else _canonical(part, name, warnings, book)
                    if rule is not None:
                        warnings.append(
                            f"{name}: rule {rule} of item {item.get('name', '?')} is carried by {carried} of "
                            f"{models} models; left out"
                        )
                else:
                    pending.append(part)
            pending.extend(_rules_of(item))
            continue
        if "attacks" not in item:
            pending.extend(_rules_of(item))
            if not _rules_of(item):
                warnings.append(f"{name}: item {item.get('name', '?')} is not a weapon and has no rules; left out")
            continue
        weapon_items.append(item)
    effects: list[str] = []
    grants: list[tuple[str, str | None, str]] = []
    for value in pending:
        army = book.army_rule(value)
        if army is not None:  # an army book's own rule, mapped by profiles/grimdark/army_rules.toml
            effects.extend(_effect_toml(e) for e in army.effects if _effect_toml(e) not in effects)
            grants.extend((r, phase, army.name) for r, phase in army.grants)
            pending.extend(army.unit_grants)  # read below as the unit's own rules ("Shielded", "Fear(1)")
            continue
        rule = _canonical(value, name, warnings, book)
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
    for item in weapon_items:
        weapon_lines.extend(_weapon(item, name, models, warnings, book, grants))
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
    if effects:
        lines.append("effects = [" + ", ".join(effects) + "]")
    if weapon_lines:
        lines.append("weapons = [")
        lines.extend(f"  {w}," for w in weapon_lines)
        lines.append("]")
    return "\n".join(lines) + "\n"


def convert(
    data: dict[str, Any] | list[Any],
    source_name: str,
    *,
    source: str | None = None,
    notes: Sequence[str] = (),
    definitions: Sequence[Any] | None = None,
    table: str | Path | None = None,
) -> tuple[str, list[str]]:
    """The TOML text of the units of an Army Forge export, and the warnings.

    ``source`` is each unit's ``source`` (default ``"Army Forge export SOURCE_NAME"``); ``notes`` are
    comment lines added to the header (a list save's total points and files). ``definitions`` are the army
    books' own rule definitions (``{"name": ..., "description": ...}``; default: the export's top-level
    ``specialRules``), read through the table of army rules ``table`` (default: the built-in
    ``profiles/grimdark/army_rules.toml``, :mod:`~mathhammer.grimdark.army_rules`). Each unit's warnings are
    also written on it (``warnings = [...]``), so that reports on the imported units carry them.

    Raises:
        InputError: no units found in ``data``.
    """
    found = _find_units(data)
    if found is None:
        raise InputError(
            source_name, type(data).__name__, 'an Army Forge export: a list of units or an object with "units"'
        )
    warnings: list[str] = []
    if definitions is None and isinstance(data, Mapping):
        definitions = data.get("specialRules") if isinstance(data.get("specialRules"), list) else None
    book = _Book(list(definitions or ()), load_table(table))
    blocks: list[str] = []
    seen: dict[str, int] = {}
    source = source or f"Army Forge export {source_name}"
    found = _fold_combined(found, warnings)
    names: dict[int, str] = {}
    by_sel: dict[str, str] = {}
    for i, unit in enumerate(found):
        if not isinstance(unit, Mapping):
            continue
        raw = unit.get("customName") or unit.get("name")
        name = " ".join(str(raw).split()) if raw else f"Unit {i + 1}"
        if not raw:
            warnings.append(f"units[{i}]: no name; called {name!r}")
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
            warnings.append(f"{name}: the same name again; numbered")
        names[i] = name
        for key in ("selectionId", "id"):
            if isinstance(unit.get(key), str):
                by_sel.setdefault(unit[key], name)
    for i, unit in enumerate(found):
        if not isinstance(unit, Mapping):
            warnings.append(f"units[{i}]: not a unit object; left out")
            continue
        name = names[i]
        start = len(warnings)
        block = _unit(unit, name, source, warnings, book)
        if block is not None and len(warnings) > start:
            block += "warnings = [\n" + "".join(f"  {_q(w)},\n" for w in warnings[start:]) + "]\n"
        if block is not None and unit.get("joinToUnit") and not unit.get("combined"):
            host = by_sel.get(str(unit["joinToUnit"]))
            if host is not None and host != name:
                # a hero joined to a unit (Army Forge "joinToUnit"): it is wounded only after that unit's
                # models; mathhammer joins it when the target is written "Unit + Hero"
                block = (
                    f"# {name} is joined to {host} in the list: as a target write {_q(host + ' + ' + name)}\n" + block
                )
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
        + "".join(f"# {' '.join(line.split())}\n" for line in notes)
        + "# Your own Army Forge export: check the values against your army book.\n"
        "# Format: docs/grimdark.md.\n"
    )
    text = header + "".join("\n" + b for b in blocks)
    load_text(text, source_name)
    return text, warnings
