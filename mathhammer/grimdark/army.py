"""Grimdark Future army lists: read a TOML list and check it against the v3.5 army-building rules.

The rules' wording, source and numbers are data: ``profiles/rules/grimdark_army_building.toml``
(shipped in the package), read by :func:`army_rules`; no limit is written here. The text
(Grimdark Future Beginner's Guide v3.5.1, force organisation):

    "Players may only bring up to 1 hero per 500pts, and only 1+X copies of the same unit, where
    X is 1 per 1000pts (combined units count as one). No single unit may be worth over 35% of
    total points, and armies may only have max. 1 unit per 200pts."

and, for the points: "... sum together their total point cost. There are no limitations as to
how many units you can take, as long as their point cost doesn't go over the agreed total game
size."

Format (``docs/army.md``, "Grimdark Future")::

    name = "Robot vanguard"          # optional, for display
    points = 1000                    # the points limit (the agreed game size)

    [[units]]
    unit = "Robot Warriors + Field Commander"   # a unit of the profiles; "Unit + Hero" joins a hero
    count = 2                        # copies of this entry (default 1)

Readings (this project's, where the text leaves it open):

- "per 500pts" counts full steps of the points limit (Army Forge: "Max 1 hero per full
  500pts"), so 999 pts allow 1 hero; "total points" is the points limit (the book's example:
  a 2000pts game allows no unit worth over 700pts).
- A joined hero is a hero and a copy of its own unit, its cost is part of its unit's worth,
  and it is not a unit of its own for "1 unit per 200pts" (Army Forge counts it so).
- Combined units are not part of this format.

>>> from mathhammer.grimdark.profiles import load_units
>>> army = GFArmy("army.toml", 1000, units=(GFEntry("Robot Warriors + Field Commander", 3),))
>>> for line in validate_gf_army(army, load_units()):
...     print(line)
army.toml: 3 heroes (units[0] Field Commander x3); allowed: at most 2 at 1000 pts; rule "1 hero per 500pts"
army.toml: 3 copies of Robot Warriors (units[0] x3); allowed: at most 2 at 1000 pts; rule "1+X copies ...
army.toml: 3 copies of Field Commander (units[0] x3); allowed: at most 2 at 1000 pts; rule "1+X copies ...
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputError, MathhammerError
from ..validate import read_toml, validation_problems
from .profiles import GFUnit, find_unit, join_hero, split_joined

FILE_NAME = "grimdark_army_building.toml"
ALLOWED = "a Grimdark Future army list TOML file (docs/army.md, Grimdark Future)"


class GFArmyError(MathhammerError):
    """An army list that cannot be read (bad TOML, unknown keys); ``problems`` holds one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# ------------------------------------------------------------------ the rules (data)


@dataclass(frozen=True)
class ArmyRules:
    """The army-building rules of the data file: names (quoted in every violation) and numbers."""

    version: str
    source: str
    text: str
    names: dict[str, str]
    hero_per_points: int
    copies_base: int
    copies_per_points: int
    share_percent: int
    unit_per_points: int


def data_path() -> Path:
    """The data file: the installed package's copy, else the repository's."""
    from ..profiles.loader import builtin_dir

    return builtin_dir() / "rules" / FILE_NAME


@cache
def army_rules(path: Path | None = None) -> ArmyRules:
    """Read the army-building rules; raises ``ValueError`` naming the file and key when one is missing."""
    p = path or data_path()
    data = tomllib.loads(p.read_text(encoding="utf-8-sig"))

    def get(*keys: str) -> Any:
        value: Any = data
        for k in keys:
            if not isinstance(value, dict) or k not in value:
                raise ValueError(f"{p.name}: {'.'.join(keys)}: missing")
            value = value[k]
        return value

    rules = ("points_limit", "heroes", "copies", "share", "units")
    return ArmyRules(
        version=str(get("version")),
        source=str(get("source")),
        text=str(get("text")),
        names={r: str(get("rules", r, "name")) for r in rules},
        hero_per_points=int(get("rules", "heroes", "per_points")),
        copies_base=int(get("rules", "copies", "base")),
        copies_per_points=int(get("rules", "copies", "per_points")),
        share_percent=int(get("rules", "share", "percent")),
        unit_per_points=int(get("rules", "units", "per_points")),
    )


# ------------------------------------------------------------------ reading


class _EntryFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=99)


class _ArmyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    points: int = Field(ge=1, le=1_000_000)
    units: list[_EntryFile] = []


_FIELDS = sorted(set(_ArmyFile.model_fields) | set(_EntryFile.model_fields))


def _allowed_keys(loc: Sequence[Any]) -> list[str]:
    model: type[BaseModel] = _EntryFile if loc and loc[0] == "units" and len(loc) > 2 else _ArmyFile
    return list(model.model_fields)


@dataclass(frozen=True)
class GFEntry:
    """One ``[[units]]`` entry as written: ``"Unit"`` or ``"Unit + Hero"``, and how many copies."""

    unit: str
    count: int = 1


@dataclass(frozen=True)
class GFArmy:
    """A Grimdark Future army list as written (names resolved by :func:`validate_gf_army`)."""

    file: str
    points: int
    name: str = ""
    units: tuple[GFEntry, ...] = ()


def load_gf_army(path: str | Path) -> GFArmy:
    """Read a Grimdark Future army list (TOML).

    Raises:
        GFArmyError: the file cannot be read, is not TOML, or has unknown keys or wrong types
            (every problem, one line each, naming the file and the TOML path).
    """
    p = Path(path)
    data, problem = read_toml(p, ALLOWED)
    if data is None:
        raise GFArmyError([problem])
    try:
        af = _ArmyFile.model_validate(data)
    except ValidationError as exc:
        raise GFArmyError(validation_problems(p.name, exc, _FIELDS, _allowed_keys)) from None
    return GFArmy(p.name, af.points, af.name, tuple(GFEntry(u.unit, u.count) for u in af.units))


# ------------------------------------------------------------------ checking


@dataclass(frozen=True)
class _Resolved:
    index: int
    unit: GFUnit
    hero: GFUnit | None
    count: int

    @property
    def label(self) -> str:
        name = self.unit.name + (f" + {self.hero.name}" if self.hero else "")
        return f"units[{self.index}] {name}" + (f" x{self.count}" if self.count > 1 else "")

    @property
    def worth(self) -> int:
        """One copy's points, a joined hero included."""
        return self.unit.points + (self.hero.points if self.hero else 0)


@dataclass
class GFArmyReport:
    """The result of :func:`check_gf_army`: every violation and the totals."""

    army: GFArmy
    problems: list[str]
    points: int = 0
    units: int = 0
    heroes: int = 0
    entries: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": "grimdark",
            "file": self.army.file,
            "name": self.army.name,
            "points_limit": self.army.points,
            "valid": self.valid,
            "problems": list(self.problems),
            "points": self.points,
            "units": self.units,
            "heroes": self.heroes,
            "entries": list(self.entries),
        }


def _resolve(army: GFArmy, roster: dict[str, GFUnit], problems: list[str]) -> list[_Resolved]:
    out: list[_Resolved] = []
    for i, entry in enumerate(army.units):
        where = f"{army.file}: units[{i}].unit"
        unit_name, hero_name = split_joined(entry.unit)
        try:
            unit = find_unit(roster, unit_name, where)
            hero = find_unit(roster, hero_name, where) if hero_name else None
            if hero is not None:
                join_hero(unit, hero, where)
        except InputError as exc:
            problems.append(str(exc))
            continue
        out.append(_Resolved(i, unit, hero, entry.count))
    return out


def _rule(rules: ArmyRules, key: str) -> str:
    return f'rule "{rules.names[key]}"'


def check_gf_army(army: GFArmy, roster: dict[str, GFUnit], rules: ArmyRules | None = None) -> GFArmyReport:
    """Every violation of the army-building rules, one line each, naming the rule; and the totals."""
    rules = rules or army_rules()
    problems: list[str] = []
    resolved = _resolve(army, roster, problems)
    limit = army.points
    f = army.file
    report = GFArmyReport(army, problems)
    report.points = sum(r.worth * r.count for r in resolved)
    report.units = sum(r.count for r in resolved)
    report.entries = [r.label for r in resolved]

    if report.points > limit:
        problems.append(
            f"{f}: {report.points} pts; allowed: at most the points limit {limit}; {_rule(rules, 'points_limit')}"
        )

    hero_entries = [(r, r.hero or r.unit) for r in resolved if r.hero or r.unit.hero]
    report.heroes = sum(r.count for r, _ in hero_entries)
    max_heroes = limit // rules.hero_per_points
    if report.heroes > max_heroes:
        which = ", ".join(
            f"units[{r.index}] {h.name}" + (f" x{r.count}" if r.count > 1 else "") for r, h in hero_entries
        )
        problems.append(
            f"{f}: {report.heroes} heroes ({which}); allowed: at most {max_heroes} at {limit} pts; "
            + _rule(rules, "heroes")
        )

    max_copies = rules.copies_base + limit // rules.copies_per_points
    copies: dict[str, list[tuple[int, int]]] = {}
    for r in resolved:
        for u in (r.unit, r.hero):
            if u is not None:
                copies.setdefault(u.name, []).append((r.index, r.count))
    for name, where in copies.items():
        n = sum(c for _, c in where)
        if n > max_copies:
            at = ", ".join(f"units[{i}]" + (f" x{c}" if c > 1 else "") for i, c in where)
            problems.append(
                f"{f}: {n} copies of {name} ({at}); allowed: at most {max_copies} at {limit} pts; "
                + _rule(rules, "copies")
            )

    for r in resolved:
        if r.worth * 100 > rules.share_percent * limit:
            cap = rules.share_percent * limit / 100
            shown = f"{cap:g}"
            name = r.unit.name + (f" + {r.hero.name}" if r.hero else "")
            problems.append(
                f"{f}: units[{r.index}] {name}: worth {r.worth} pts, over {rules.share_percent}% of {limit} pts "
                f"({shown} pts); " + _rule(rules, "share")
            )

    max_units = limit // rules.unit_per_points
    if report.units > max_units:
        problems.append(
            f"{f}: {report.units} units (a joined hero is part of its unit); allowed: at most {max_units} at "
            f"{limit} pts; {_rule(rules, 'units')}"
        )
    return report


def validate_gf_army(army: GFArmy, roster: dict[str, GFUnit]) -> list[str]:
    """Every violation of :func:`check_gf_army`, one line each (empty: the list is legal)."""
    return check_gf_army(army, roster).problems
