"""Army Forge list saves and game systems, for :mod:`mathhammer.grimdark.opr_import`.

Shapes (from public Army Forge files and tools that read them, no official schema):

- an **army book export** (``GET /api/army-books/{uid}?gameSystem=N``): ``uid``, ``name``,
  ``versionString``, ``gameSystemId`` (2), ``gameSystemSlug`` (``"grimdark-future"``),
  ``gameSystemKey``/``aberration`` (``"GF"``), ``units`` (each ``id``, ``name``, ``size``, ``cost``,
  ``quality``, ``defense``, ``rules``, ``weapons``, ``items``, ``upgrades``: package uids) and
  ``upgradePackages`` (each ``uid`` and ``sections``; a section has ``uid``/``id``, ``label``,
  ``variant`` ``"replace"``/``"upgrade"``, ``affects`` ``{"type": "exactly"|"up to"|"any"|"all",
  "value"}``, ``targets`` (older books: ``replaceWhat``, a list of lists) and ``options``; an option
  has ``uid``/``id``, ``label``, ``cost`` and ``costs`` ``[{"unitId", "cost"}]`` (the cost for that
  unit) and ``gains``: ``ArmyBookWeapon``, ``ArmyBookItem`` (``content``) or ``ArmyBookRule``);
- a **list save** (the file Army Forge writes for a saved list): ``saveVersion``, ``gameSystem``
  (``"gf"``), ``armyId``/``armyIds``, ``armyName``, ``listPoints`` and ``list`` with ``name``,
  ``pointsLimit`` and ``units``, each ``id`` (the unit's id in its book), ``armyId``,
  ``selectionId``, ``selectedUpgrades`` ``[{"instanceId", "upgradeId", "optionId"}]`` (the section's
  and the option's ``uid``), ``combined``, ``joinToUnit`` and ``customName``; no profiles: they are
  in the book;
- a **share/TTS export** (``gameSystem``, ``units`` with the profiles and ``selectedUpgrades``
  holding the options): read by :func:`~mathhammer.grimdark.opr_import.convert` as it is.

Game systems: ``gf`` (id 2, ``grimdark-future``) is Grimdark Future; ``gff`` (3, Firefight),
``aof`` (4, Age of Fantasy), ``aofs`` (5, Skirmish) and ``aofr`` (6, Regiments) are others.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from .opr_import import _int

#: code -> (Army Forge game-system id, slug, name)
SYSTEMS: dict[str, tuple[int, str, str]] = {
    "gf": (2, "grimdark-future", "Grimdark Future"),
    "gff": (3, "grimdark-future-firefight", "Grimdark Future: Firefight"),
    "aof": (4, "age-of-fantasy", "Age of Fantasy"),
    "aofs": (5, "age-of-fantasy-skirmish", "Age of Fantasy: Skirmish"),
    "aofr": (6, "age-of-fantasy-regiments", "Age of Fantasy: Regiments"),
}
_BY_ID = {v[0]: k for k, v in SYSTEMS.items()}
_BY_SLUG = {v[1]: k for k, v in SYSTEMS.items()}


def game_system(data: object) -> tuple[str, str] | None:
    """``(code or slug, name)`` of the game system a file says it is for; None when it says nothing.

    Looks at ``gameSystem`` (a code such as ``"gff"``, or an id), ``gameSystemSlug``, ``gameSystemId``
    and ``gameSystemKey`` at the top level and in ``list``.

    >>> game_system({"gameSystemId": 3, "gameSystemSlug": "grimdark-future-firefight"})
    ('gff', 'Grimdark Future: Firefight')
    >>> game_system({"list": {"gameSystem": "gf"}})
    ('gf', 'Grimdark Future')
    >>> game_system([{"name": "Grunts"}]) is None
    True
    """
    if not isinstance(data, Mapping):
        return None
    places = [data]
    if isinstance(data.get("list"), Mapping):
        places.append(data["list"])
    for place in places:
        for key in ("gameSystemSlug", "gameSystem", "gameSystemKey", "gameSystemId"):
            value = place.get(key)
            if isinstance(value, str) and value.strip():
                text = value.strip().lower()
                if text in SYSTEMS:
                    return text, SYSTEMS[text][2]
                if text in _BY_SLUG:
                    return _BY_SLUG[text], SYSTEMS[_BY_SLUG[text]][2]
                if text.isdigit() and int(text) in _BY_ID:
                    return _BY_ID[int(text)], SYSTEMS[_BY_ID[int(text)]][2]
                return text, value.strip()
            if isinstance(value, int) and not isinstance(value, bool):
                if value in _BY_ID:
                    return _BY_ID[value], SYSTEMS[_BY_ID[value]][2]
                return str(value), f"game system id {value}"
    return None


def is_list_save(data: object) -> bool:
    """True for an Army Forge list save: ``saveVersion``, or a ``list`` whose units carry no profile."""
    if not isinstance(data, Mapping):
        return False
    inner = data.get("list")
    if not isinstance(inner, Mapping) or not isinstance(inner.get("units"), list):
        return False
    if "saveVersion" in data:
        return True
    units = [u for u in inner["units"] if isinstance(u, Mapping)]
    return bool(units) and all("quality" not in u and "defense" not in u for u in units)


def save_army_ids(save: Mapping[str, Any]) -> list[str]:
    """The army-book ids a list save refers to, in order of first use."""
    ids: list[str] = []
    raw = save.get("armyIds")
    for value in [*(raw if isinstance(raw, list) else []), save.get("armyId")]:
        if isinstance(value, str) and value and value not in ids:
            ids.append(value)
    for unit in save["list"]["units"]:
        if isinstance(unit, Mapping) and isinstance(unit.get("armyId"), str) and unit["armyId"] not in ids:
            ids.append(unit["armyId"])
    return ids


def book_id(book: object) -> str | None:
    """An army book export's id (``uid``; ``flavouredUid`` without its ``~N``; ``id``)."""
    if not isinstance(book, Mapping):
        return None
    for key in ("uid", "flavouredUid", "id"):
        value = book.get(key)
        if isinstance(value, str) and value:
            return value.split("~")[0]
    return None


def _sections(book: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    packages = book.get("upgradePackages")
    for package in packages if isinstance(packages, list) else []:
        sections = package.get("sections") if isinstance(package, Mapping) else None
        for section in sections if isinstance(sections, list) else []:
            if isinstance(section, Mapping):
                for key in ("uid", "id"):
                    if isinstance(section.get(key), str):
                        out.setdefault(section[key], section)
    return out


def _option(section: Mapping[str, Any], option_id: object) -> Mapping[str, Any] | None:
    options = section.get("options")
    for option in options if isinstance(options, list) else []:
        if isinstance(option, Mapping) and option_id in (option.get("uid"), option.get("id")):
            return option
    return None


def _option_cost(option: Mapping[str, Any], unit_id: object) -> int | None:
    costs = option.get("costs")
    for entry in costs if isinstance(costs, list) else []:
        if isinstance(entry, Mapping) and entry.get("unitId") == unit_id:
            return _int(entry.get("cost"))
    if "cost" in option:
        return _int(option.get("cost"))
    return None


def _targets(section: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("targets", "replaceWhat"):
        value = section.get(key)
        stack = list(value) if isinstance(value, list) else []
        while stack:
            item = stack.pop(0)
            if isinstance(item, list):
                stack[0:0] = item
            elif isinstance(item, str) and item.strip():
                out.append(item.strip())
    return out


def _same_name(a: str, b: str) -> bool:
    a, b = a.strip().lower(), b.strip().lower()
    return a == b or a.rstrip("s") == b.rstrip("s")


def _apply(
    unit: dict[str, Any], section: Mapping[str, Any], option: Mapping[str, Any], who: str, warnings: list[str]
) -> None:
    """One chosen option on the unit (in place): the targets replaced, the gains added."""
    size = _int(unit.get("size")) or 1
    raw = section.get("affects")
    affects: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    kind = str(affects.get("type", "")).lower()
    value = _int(affects.get("value"))
    label = option.get("label") or option.get("uid")
    removed = 0
    if str(section.get("variant", "")).lower() == "replace":
        for target in _targets(section):
            for key in ("weapons", "items"):
                found = next((w for w in unit[key] if _same_name(str(w.get("name", "")), target)), None)
                if found is not None:
                    have = _int(found.get("count"))
                    have = size if have is None else have
                    take = have if kind == "all" else min(have, value if value else 1)
                    found["count"] = have - take
                    removed = max(removed, take)
                    if found["count"] <= 0:
                        unit[key].remove(found)
                    break
            else:
                warnings.append(f"{who}: upgrade {label!r} replaces {target}, which the unit does not have")
    gains = option.get("gains")
    for gain in gains if isinstance(gains, list) else []:
        if not isinstance(gain, Mapping):
            continue
        item = copy.deepcopy(dict(gain))
        per = _int(gain.get("count")) or 1
        if kind == "all":
            item["count"] = per * (removed or size)
        elif removed > 1:
            item["count"] = per * removed
        else:
            item["count"] = per
        kind_of = str(gain.get("type", ""))
        if kind_of == "ArmyBookRule" or ("attacks" not in gain and "content" not in gain):
            unit["rules"].append(item)
        elif "content" in gain:
            unit["items"].append(item)
        else:
            unit["weapons"].append(item)


def resolve_save(
    save: Mapping[str, Any], books: Mapping[str, Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The units of a list save with their profiles from ``books`` (army-book id -> book export), each
    chosen option applied (replaced weapons removed, gains added) and its cost added to ``cost``; and
    the warnings (a unit or an upgrade the book lacks is left out and named)."""
    warnings: list[str] = []
    out: list[dict[str, Any]] = []
    default_army = save.get("armyId")
    sections = {army: _sections(book) for army, book in books.items()}
    for i, lu in enumerate(save["list"]["units"]):
        if not isinstance(lu, Mapping):
            warnings.append(f"list.units[{i}]: not a unit object; left out")
            continue
        army = lu.get("armyId") or default_army
        book = books.get(str(army))
        where = f"list.units[{i}] (unit id {lu.get('id')!r}, army book {army})"
        if book is None:
            warnings.append(f"{where}: no army book of id {army} given; unit left out")
            continue
        units = book.get("units")
        bu = next(
            (
                u
                for u in (units if isinstance(units, list) else [])
                if isinstance(u, Mapping) and u.get("id") == lu.get("id")
            ),
            None,
        )
        if bu is None:
            warnings.append(f"{where}: not in army book {book.get('name', army)}; unit left out")
            continue
        unit: dict[str, Any] = {
            k: copy.deepcopy(bu[k]) for k in ("name", "size", "cost", "quality", "defense") if k in bu
        }
        for key in ("rules", "weapons", "items"):
            value = bu.get(key)
            unit[key] = (
                [dict(x) if isinstance(x, Mapping) else x for x in copy.deepcopy(value)]
                if isinstance(value, list)
                else []
            )
        for key in ("customName", "selectionId", "joinToUnit", "combined"):
            if lu.get(key) not in (None, ""):
                unit[key] = lu[key]
        who = str(lu.get("customName") or bu.get("name") or where)
        cost = _int(bu.get("cost")) or 0
        chosen = lu.get("selectedUpgrades")
        for su in chosen if isinstance(chosen, list) else []:
            up = su.get("upgradeId") if isinstance(su, Mapping) else None
            opt_id = su.get("optionId") if isinstance(su, Mapping) else None
            section = sections[str(army)].get(str(up))
            option = _option(section, opt_id) if section is not None else None
            if section is None or option is None:
                what = "upgrade" if section is None else "option"
                warnings.append(
                    f"{who}: {what} {up if section is None else opt_id} (upgradeId {up}, optionId {opt_id}) is not in "
                    f"army book {book.get('name', army)}; left out (its cost and gains not counted)"
                )
                continue
            extra = _option_cost(option, lu.get("id"))
            if extra is None:
                warnings.append(f"{who}: the cost of upgrade {option.get('label')!r} cannot be read; not counted")
            else:
                cost += extra
            _apply(unit, section, option, who, warnings)
        unit["cost"] = cost
        out.append(unit)
    return out, warnings


def books_by_id(books: Sequence[tuple[str, object]]) -> dict[str, Mapping[str, Any]]:
    """``{army-book id: book}`` of the ``(file name, data)`` given with ``--book``."""
    out: dict[str, Mapping[str, Any]] = {}
    for _name, data in books:
        key = book_id(data)
        if key is not None and isinstance(data, Mapping):
            out.setdefault(key, data)
    return out
