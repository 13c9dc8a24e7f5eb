"""Army-book rules read as modelled effects, from the data table ``profiles/grimdark/army_rules.toml``.

An army book defines its own rules (Army Forge exports them in the book's top-level ``specialRules``,
``{"name": ..., "description": ...}``). Many are a modelled effect with other numbers: Self-Repair is
Regeneration on a 6+, Guardian is AP(-1) on hits from over 9", Tear is AP(+4) against Tough(3) to
Tough(9). The table maps such a rule, by its name **and its text**, to generic effects
(:mod:`mathhammer.grimdark.effects`), to modelled weapon rules it grants (``Rending in Melee``:
Rending on the melee weapons) or to modelled unit rules it grants (a book's rule that is a modelled unit
rule under another name: ``unit_grants``), so that a new book needs a data entry, not code. An entry cites the
book text it reads (``text``, word for word, and ``source``); a book whose definition under the same
name says something else is not mapped (the importer warns it with its text).

Table format (one table per rule)::

    [rules."Self-Repair"]
    text = 'When a unit where all models have this rule takes wounds, roll one die for each. On a 6+ it is ignored.'
    source = "GF v3.5 Robot Legions ..."
    effects = [{ effect = "regeneration", value = 6 }]
    # or: grants = [{ rule = "Rending", phase = "melee" }]
    # or: unit_grants = [{ rule = "Shielded" }]  (a rated rule with its rating: { rule = "Fear", rating = 1 })

>>> table = load_table()
>>> entry = match(table, "self repair", "When a unit where all models have this rule takes wounds, "
...               "roll one die for each. On a 6+ it is ignored.")
>>> entry.effects[0].kind, entry.effects[0].value, entry.effects[0].rule
('regeneration', 6, 'Self-Repair')
>>> match(table, "Self-Repair", "Something else.") is None
True
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ..errors import InputError
from ..profiles.loader import ProfileError
from .effects import PHASES, Effect, parse_effects
from .rules import KNOWN

#: The table's file name in the built-in Grimdark Future profiles (not a file of units).
TABLE_NAME = "army_rules.toml"


@dataclass(frozen=True)
class ArmyRule:
    """One entry of the table.

    Attributes:
        name: the rule's name as the book spells it.
        text: the book's definition, word for word (whitespace aside, it must match).
        source: where the text was read (book, version, file, commit).
        effects: the generic effects it has (``rule`` set to :attr:`name`).
        grants: modelled weapon rules it gives the model's weapons: ``(rule, phase)``, phase None for all.
        unit_grants: modelled unit rules it gives the unit, written as in a profile (``"Shielded"``,
            ``"Fear(1)"``).
    """

    name: str
    text: str
    source: str
    effects: tuple[Effect, ...] = ()
    grants: tuple[tuple[str, str | None], ...] = ()
    unit_grants: tuple[str, ...] = ()


#: Unit rules an entry may not grant: Tough is the profile's wounds (``tough``), Hero what the unit is.
_NOT_GRANTED = frozenset({"Tough", "Hero"})


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def normal_text(text: str) -> str:
    """A definition compared without regard to spacing and the kind of quote marks."""
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'").replace("\u201d", '"')
    return " ".join(text.split())


def default_path() -> Path:
    from .profiles import builtin_dir

    return builtin_dir() / TABLE_NAME


def _entry(name: str, data: object, where: str) -> ArmyRule:
    if not isinstance(data, dict):
        raise ValueError("a table with text, source and effects or grants")
    unknown = set(data) - {"text", "source", "effects", "grants", "unit_grants", "books"}
    if unknown:
        allowed = "text, source, effects, grants, unit_grants, books"
        raise ValueError(f"unknown key {sorted(unknown)[0]!r}; allowed: {allowed}")
    text, source = data.get("text"), data.get("source")
    if not isinstance(text, str) or not text.strip() or not isinstance(source, str) or not source.strip():
        raise ValueError("text (the book's definition, word for word) and source (where it was read) are required")
    try:
        effects = parse_effects(data.get("effects", []), f"{where}.effects")
    except InputError as exc:
        raise ValueError(f"{exc.field}: {exc.allowed}") from None
    grants: list[tuple[str, str | None]] = []
    for g in data.get("grants", []):
        rule, phase = (g.get("rule"), g.get("phase")) if isinstance(g, dict) else (None, None)
        if rule not in KNOWN or KNOWN[str(rule)][0] != "weapon" or KNOWN[str(rule)][1]:
            raise ValueError(f"grants: {rule!r} is not a modelled weapon rule without a rating")
        if phase is not None and phase not in PHASES:
            raise ValueError(f'grants: phase {phase!r}; allowed: "melee", "shooting" or none')
        grants.append((str(rule), phase))
    unit_grants = [_unit_grant(g) for g in data.get("unit_grants", [])]
    if not effects and not grants and not unit_grants:
        raise ValueError("an entry needs effects, grants or unit_grants")
    return ArmyRule(
        name,
        text,
        source,
        tuple(replace(e, rule=e.rule or name) for e in effects),
        tuple(grants),
        tuple(unit_grants),
    )


def _unit_grant(g: object) -> str:
    """A ``unit_grants`` entry, ``{ rule = RULE }`` or ``{ rule = RULE, rating = X }``, as a profile writes it."""
    from .profiles import UNIT_RULES

    rule, rating = (g.get("rule"), g.get("rating")) if isinstance(g, dict) else (None, None)
    if rule not in UNIT_RULES or rule in _NOT_GRANTED or (isinstance(g, dict) and set(g) - {"rule", "rating"}):
        raise ValueError(f"unit_grants: {rule!r} is not a modelled unit rule ({{ rule = RULE, rating = X }})")
    rated = rule in KNOWN and KNOWN[str(rule)][1]
    if not rated:
        if rating is not None:
            raise ValueError(f"unit_grants: {rule} has no rating")
        return str(rule)
    if isinstance(rating, bool) or not isinstance(rating, int) or not KNOWN[str(rule)][2] <= rating <= 99:
        raise ValueError(f"unit_grants: {rule} needs a whole rating {KNOWN[str(rule)][2]}..99")
    return f"{rule}({rating})"


def load_table(path: str | Path | None = None) -> dict[str, ArmyRule]:
    """The table by rule name key (case, spaces and hyphens ignored); ``path`` None: the built-in one.

    Raises:
        ProfileError: every problem of the file, one line each.
    """
    return dict(_load(str(path) if path is not None else str(default_path())))


@lru_cache(maxsize=8)
def _load(path: str) -> tuple[tuple[str, ArmyRule], ...]:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ProfileError([f"{p}: cannot read: {exc.strerror}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError([f"{p.name}: not valid TOML: {exc}"]) from None
    rules = data.get("rules", {})
    problems = [f"{p.name}: {k}: unknown key; allowed: rules" for k in data if k != "rules"]
    out: list[tuple[str, ArmyRule]] = []
    for name, entry in rules.items() if isinstance(rules, dict) else ():
        try:
            out.append((_key(name), _entry(name, entry, f"rules.{name}")))
        except ValueError as exc:
            problems.append(f"{p.name}: rules.{name}: {exc}")
    if problems:
        raise ProfileError(problems)
    return tuple(out)


def match(table: dict[str, ArmyRule], name: str, text: str | None) -> ArmyRule | None:
    """The entry for a book's rule: the same name and the same text; None otherwise."""
    entry = table.get(_key(name))
    if entry is None or text is None or normal_text(text) != normal_text(entry.text):
        return None
    return entry
