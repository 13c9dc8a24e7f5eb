"""Army lists: load a TOML army list and check it against army building (rulebook 9.1).

Format (``docs/army.md``)::

    name = "Raynor's strike force"   # optional, for display
    scale = "Standard"               # Skirmish | Standard | Grand Offensive
    minerals = 2000                  # optional with Skirmish/Standard; required with Grand Offensive
    faction = "Raynor's Raiders"     # a faction card
    tactical = ["Barracks", "Factory"]   # tactical cards (and Zerg creep cards); a name may repeat

    [[units]]
    unit = "Marine"                  # a unit card
    models = 9                       # a Composition Option of the card (may be left out if it has only one)
    upgrades = ["AGG-12", "Rocket Launcher"]   # upgrades of the card, each once

Give ``scale``, ``minerals`` or both. The Mineral limit is the scale's
(Skirmish 1,000, Standard 2,000) or ``minerals``; Grand Offensive (2,001+)
has no printed limit, so it needs ``minerals``. Vespene Gas is 10% of the
Mineral limit (9.1.1, 9.1.4), rounded down.

:func:`validate_army` returns every violation, one line each, naming the file
and the entry (``army.toml: units[2] (Marine): ...``):

- 9.1.1 / 9.1.3: Minerals spent (compositions + upgrades) <= the limit.
- 9.1.4 / 9.1.5: Vespene Gas is spent only on Tactical Cards; their cost <= 10% of the limit.
- 9.1.2: every Faction Tag of a Unit or Tactical Card appears on the Faction Card.
- 9.1.5 / 9.1.6 / ARMY SLOT: per slot type, the Units' starting Supply Values
  (the composition's supply) <= the Faction Card's slots + the Tactical Cards' slots.
- 9.1.6: a model count that is a Composition Option of the card.
- 9.1.7: upgrades listed on the card, each once (a SPECIALIST upgrade once per
  Unit), at most one SPECIALIST upgrade per model.
- 9.1.5 / Unique: a Unique Tactical Card (or Unit card) at most once.
- 9.1.9: Summoned Units are not in the Army List.
- 9.1 / ZERG CREEP (both Zerg Faction Cards): exactly one Creep Card among the Tactical Cards.
- Unknown names: the closest names ("did you mean ...?").

>>> from pathlib import Path
>>> from mathhammer.starcraft.roster import load_roster
>>> tests = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
>>> roster = load_roster([tests / "army_profiles"], builtin=False)
>>> report = check_army(load_army(tests / "armies" / "raiders_valid.toml"), roster)
>>> report.problems, report.totals.minerals, report.totals.gas
([], 1040, 60)
>>> army = Army("army.toml", "Kerrigan's Swarm", scale="Skirmish", units=(UnitEntry("Hydralisk", 4),))
>>> for line in validate_army(army, roster):
...     print(line)
army.toml: Elite slots: 3 used (units[0] Hydralisk 3); allowed: 2 from the Faction Card and Tactical Cards ...
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, MathhammerError
from ..profiles import cache
from ..validate import read_toml
from .loadout import Loadout, make_loadout
from .roster import Roster, Unit

if TYPE_CHECKING:  # pragma: no cover - the cards are the schema's or their plain copies (starcraft.cards)
    from .schema import FactionCard, TacticalCard

SLOT_TYPES = ("Core", "Elite", "Support", "Air", "Hero")
SCALES: dict[str, int | None] = {"Skirmish": 1000, "Standard": 2000, "Grand Offensive": None}
GRAND_OFFENSIVE_MINIMUM = 2001
GAS_DIVISOR = 10  # Vespene Gas: 10% of the Mineral limit, rounded down (9.1.1)


class ArmyError(MathhammerError):
    """An army list that cannot be read (bad TOML, unknown keys); ``problems`` holds one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def __getattr__(name: str) -> Any:
    """The file format's pydantic models (``_ArmyFile``, ``_UnitEntryFile``), loaded when asked for."""
    if name in ("_ArmyFile", "_UnitEntryFile"):
        from . import army_file

        return getattr(army_file, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class UnitEntry:
    """One ``[[units]]`` entry as written."""

    unit: str
    models: int | None = None
    upgrades: tuple[str, ...] = ()


@dataclass(frozen=True)
class Army:
    """An army list as written (names not yet resolved; see :func:`validate_army`)."""

    file: str
    faction: str
    name: str = ""
    scale: str | None = None
    minerals: int | None = None
    tactical: tuple[str, ...] = ()
    units: tuple[UnitEntry, ...] = ()


@dataclass
class Totals:
    """What the list spends and what it may spend."""

    scale: str | None
    minerals: int = 0
    mineral_limit: int | None = None
    gas: int = 0
    gas_limit: int | None = None
    slots_used: dict[str, int] = field(default_factory=dict)
    slots_available: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "minerals": self.minerals,
            "mineral_limit": self.mineral_limit,
            "gas": self.gas,
            "gas_limit": self.gas_limit,
            "slots": {
                s: {"used": self.slots_used.get(s, 0), "available": self.slots_available.get(s, 0)} for s in SLOT_TYPES
            },
        }

    def lines(self) -> list[str]:
        """The totals for a person, one line each."""
        limit = "?" if self.mineral_limit is None else str(self.mineral_limit)
        gas_limit = "?" if self.gas_limit is None else str(self.gas_limit)
        slots = ", ".join(
            f"{s} {self.slots_used.get(s, 0)}/{self.slots_available.get(s, 0)}"
            for s in SLOT_TYPES
            if self.slots_used.get(s, 0) or self.slots_available.get(s, 0)
        )
        return [
            f"scale: {self.scale or '?'}",
            f"minerals: {self.minerals} / {limit}",
            f"vespene gas: {self.gas} / {gas_limit}",
            f"army slots (used/available): {slots or 'none'}",
        ]


@dataclass
class ArmyReport:
    """The result of :func:`check_army`: every violation, the totals, the units bought."""

    army: Army
    problems: list[str]
    totals: Totals
    loadouts: list[Loadout] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.army.file,
            "name": self.army.name,
            "faction": self.army.faction,
            "tactical": list(self.army.tactical),
            "valid": self.valid,
            "problems": list(self.problems),
            "totals": self.totals.as_dict(),
            "units": [lo.describe() for lo in self.loadouts],
        }


# ------------------------------------------------------------------ reading


#: The modules whose code turns an army list's file into an :class:`Army`: a change to any is a new cache key.
_CODE = (__name__, "mathhammer.starcraft.army_file", "mathhammer.validate")


#: the end of :func:`grimdark_list`'s line, which a command reading Grimdark Future lists too extends with its flag
GRIMDARK_LIST = "it is a Grimdark Future army list (points)"


def grimdark_list(name: str, points: object) -> str:
    """The one line for a Grimdark Future army list (a ``points`` limit, no ``faction``, ``scale`` or ``minerals``)
    read as a StarCraft TMG one: its fields would each be refused, none of them the mistake."""
    return (
        f"{name}: points: got {points!r}; allowed: a StarCraft TMG army list (faction, scale or minerals, units: "
        f"docs/army.md); {GRIMDARK_LIST}"
    )


def load_army(path: str | Path, roster: Roster | None = None) -> Army:
    """Read an army list (TOML). Names are resolved by :func:`validate_army`.

    Args:
        path: the TOML file.
        roster: accepted for the call form ``load_army(path, roster)``; reading
            needs no cards (names are checked against the roster in
            :func:`validate_army`, so every problem is reported at once).

    Raises:
        ArmyError: the file cannot be read, is not TOML, or has unknown keys or
            wrong types (every problem, one line each).
    """
    del roster
    p = Path(path)
    name = p.name
    digest = cache.key("sc-army", [p], _CODE) if p.is_file() else None
    kept = cache.load(digest)
    if isinstance(kept, Army) and kept.file == name:  # validated before: the same bytes, the same code
        return kept
    data, problem = read_toml(p, "a TOML army list (docs/army.md)")
    if data is None:
        raise ArmyError([problem])
    if "points" in data and not {"faction", "scale", "minerals"} & set(data):  # one line, not every field's
        raise ArmyError([grimdark_list(name, data["points"])])
    from .army_file import parse

    af, problems = parse(name, data)
    if af is None:
        raise ArmyError(problems)
    army = Army(
        file=name,
        faction=af.faction,
        name=af.name,
        scale=af.scale,
        minerals=af.minerals,
        tactical=tuple(af.tactical),
        units=tuple(UnitEntry(u.unit, u.models, tuple(u.upgrades)) for u in af.units),
    )
    cache.store(digest, army)
    return army


# ------------------------------------------------------------------ checking


def _tag_key(tag: str) -> str:
    return " ".join(tag.replace("\u2019", "'").casefold().split())


def _missing_tags(tags: Sequence[str], faction: FactionCard) -> list[str]:
    """The tags of a card that are not on the Faction Card (9.1.2)."""
    have = {_tag_key(t) for t in faction.tags}
    return [t for t in tags if _tag_key(t) not in have]


def _lookup_error(exc: InputError) -> str:
    hint = f" ({exc.hint})" if exc.hint else ""
    return f"unknown; allowed: {exc.allowed}{hint}"


def _limits(army: Army, problems: list[str]) -> tuple[str | None, int | None]:
    """The scale and the Mineral limit (9.1.1)."""
    f = army.file
    scale, minerals = army.scale, army.minerals
    if scale is None and minerals is None:
        problems.append(f"{f}: scale: missing; allowed: Skirmish, Standard, Grand Offensive, or minerals = N (9.1.1)")
        return None, None
    if scale is None:
        assert minerals is not None
        inferred = "Skirmish" if minerals <= 1000 else "Standard" if minerals <= 2000 else "Grand Offensive"
        return inferred, minerals
    printed = SCALES[scale]
    if printed is None:  # Grand Offensive: 2,001+
        if minerals is None:
            problems.append(
                f"{f}: minerals: missing; allowed: the agreed Mineral limit, {GRAND_OFFENSIVE_MINIMUM} or more, "
                "with scale = 'Grand Offensive' (9.1.1: 2,001+)"
            )
            return scale, None
        if minerals < GRAND_OFFENSIVE_MINIMUM:
            problems.append(
                f"{f}: minerals: got {minerals}; allowed: {GRAND_OFFENSIVE_MINIMUM} or more at Grand Offensive (9.1.1)"
            )
        return scale, minerals
    if minerals is None:
        return scale, printed
    if minerals > printed:
        problems.append(f"{f}: minerals: got {minerals}; allowed: up to {printed} at {scale} (9.1.1)")
    return scale, minerals


def check_army(army: Army, roster: Roster) -> ArmyReport:
    """Check ``army`` against the army-building rules (9.1): every violation, and the totals."""
    f = army.file
    problems: list[str] = []
    scale, mineral_limit = _limits(army, problems)
    gas_limit = None if mineral_limit is None else mineral_limit // GAS_DIVISOR
    totals = Totals(scale, mineral_limit=mineral_limit, gas_limit=gas_limit)
    available = dict.fromkeys(SLOT_TYPES, 0)
    used = dict.fromkeys(SLOT_TYPES, 0)
    users: dict[str, list[str]] = {s: [] for s in SLOT_TYPES}

    # 9.1.2: the Faction Card
    faction: FactionCard | None = None
    if army.faction in roster.tactical or army.faction in roster.creep:
        problems.append(f"{f}: faction ({army.faction}): not a Faction Card; allowed: a Faction Card (9.1.2)")
    else:
        try:
            faction = _find(roster.factions, army.faction, "faction", "a Faction Card")
        except InputError as exc:
            problems.append(f"{f}: faction ({army.faction}): {_lookup_error(exc)}")
    if faction is not None:
        for slot, n in faction.slots.items():
            available[slot] += n

    # 9.1.4 / 9.1.5: Tactical Cards, bought with Vespene Gas
    cards: dict[str, TacticalCard] = {**roster.tactical, **roster.creep}
    seen_unique: dict[str, int] = {}
    for i, name in enumerate(army.tactical):
        where = f"{f}: tactical[{i}] ({name})"
        if name in roster.factions:
            problems.append(f"{where}: a Faction Card; allowed: Tactical Cards (one Faction Card, under faction)")
            continue
        try:
            key, card = _find_named(cards, name, "tactical", "a Tactical Card")
        except InputError as exc:
            problems.append(f"{where}: {_lookup_error(exc)}")
            continue
        totals.gas += card.vespene
        for slot, n in card.slots.items():
            available[slot] += n
        if faction is not None:
            missing = _missing_tags(card.tags, faction)
            if missing:
                problems.append(
                    f"{where}: Faction Tag {', '.join(missing)} not on the Faction Card {army.faction} "
                    f"({', '.join(faction.tags)}); allowed: cards whose tags all appear on it (9.1.2)"
                )
        if card.unique:
            if key in seen_unique:
                problems.append(
                    f"{where}: Unique card already in the list (tactical[{seen_unique[key]}]); "
                    "allowed: one copy (9.1.5)"
                )
            else:
                seen_unique[key] = i

    if faction is not None:
        _check_creep(army, faction, roster, problems)

    # 9.1.6 / 9.1.7 / 9.1.9: Units
    loadouts: list[Loadout] = []
    unique_units: dict[str, int] = {}
    for i, entry in enumerate(army.units):
        where = f"{f}: units[{i}] ({entry.unit})"
        try:
            unit = roster.unit(entry.unit, "unit")
        except InputError as exc:
            problems.append(f"{where}: {_lookup_error(exc)}")
            continue
        card = unit.card
        if card.summoned:
            problems.append(
                f"{where}: a Summoned Unit; allowed: Units with a Mineral Cost "
                "(9.1.9: Summoned Units are not included in the Army List)"
            )
            continue
        if faction is not None:
            missing = _missing_tags(card.faction_tags, faction)
            if missing:
                problems.append(
                    f"{where}: Faction Tag {', '.join(missing)} not on the Faction Card {army.faction} "
                    f"({', '.join(faction.tags)}); allowed: Units whose tags all appear on it (9.1.2)"
                )
        if card.unique:
            if unit.name in unique_units:
                problems.append(
                    f"{where}: Unique card already in the list (units[{unique_units[unit.name]}]); allowed: one copy"
                )
            else:
                unique_units[unit.name] = i
        comp_ok = _check_composition(where, unit, entry, problems)
        upgrades_ok = _check_upgrades(where, unit, entry, problems)
        if comp_ok is None:
            continue
        comp = next(c for c in card.compositions if c.models == comp_ok)
        used[card.army_slot] += comp.supply
        users[card.army_slot].append(f"units[{i}] {unit.name} {comp.supply}")
        if upgrades_ok:
            try:
                lo = make_loadout(unit, comp_ok, entry.upgrades)
            except InputError as exc:  # pragma: no cover - the checks above refuse the same
                problems.append(f"{where}: {exc}")
                upgrades_ok = False
            else:
                loadouts.append(lo)
                totals.minerals += lo.minerals
        if not upgrades_ok:  # the composition still costs its Minerals; count the valid upgrades too
            names = {u.strip().lower() for u in entry.upgrades}
            totals.minerals += comp.minerals + sum(
                u.cost.get(str(comp_ok), 0) for u in card.upgrades if u.name.lower() in names
            )

    # 9.1.3: Minerals
    if mineral_limit is not None and totals.minerals > mineral_limit:
        problems.append(
            f"{f}: minerals: {totals.minerals} spent on Units and upgrades; allowed: up to {mineral_limit} "
            f"at {scale} (9.1.3, by {totals.minerals - mineral_limit})"
        )
    # 9.1.4: Vespene Gas
    if gas_limit is not None and totals.gas > gas_limit:
        problems.append(
            f"{f}: vespene gas: {totals.gas} spent on Tactical Cards; allowed: up to {gas_limit} "
            f"(9.1.4: 10% of {mineral_limit} Minerals, by {totals.gas - gas_limit})"
        )
    # 9.1.5 / 9.1.6: Army Slots
    for kind in SLOT_TYPES:
        if used[kind] > available[kind]:
            problems.append(
                f"{f}: {kind} slots: {used[kind]} used ({'; '.join(users[kind])}); allowed: {available[kind]} "
                f"from the Faction Card and Tactical Cards (9.1.6: a Unit occupies slots equal to its starting Supply)"
            )
    totals.slots_used = used
    totals.slots_available = available
    return ArmyReport(army, problems, totals, loadouts)


#: the Faction Card ability that asks for a Creep Card (both Zerg Faction Cards: "During Army Building, you must
#: select exactly one Creep Card and add it to your Army List, paying its listed cost (if any)")
CREEP_RULE = "zerg creep"


def _check_creep(army: Army, faction: FactionCard, roster: Roster, problems: list[str]) -> None:
    """9.1 and the Faction Card's ZERG CREEP: exactly one Creep Card in ``tactical`` where the Faction Card asks for
    it (one line: the file, the field, what the list has and what is allowed)."""
    rule = next((a for a in faction.abilities if a.name.strip().casefold() == CREEP_RULE), None)
    if rule is None:
        return
    keys = {_tag_key(n) for n in roster.creep}
    got = [f"tactical[{i}] {name}" for i, name in enumerate(army.tactical) if _tag_key(name) in keys]
    if len(got) == 1:
        return
    fits = [f"{n} ({c.vespene} gas)" for n, c in roster.creep.items() if not _missing_tags(c.tags, faction)]
    has = "no Creep Card" if not got else f"{len(got)} Creep Cards ({', '.join(got)})"
    problems.append(
        f"{army.file}: tactical: {has}; allowed: exactly one Creep Card, one of {', '.join(fits) or 'none loaded'} "
        f'(9.1; {army.faction}, {rule.name.upper()}: "{rule.text}")'
    )


def validate_army(army: Army, roster: Roster) -> list[str]:
    """Every violation of the army-building rules (9.1), one line each; empty when the list is legal."""
    return check_army(army, roster).problems


def _check_composition(where: str, unit: Unit, entry: UnitEntry, problems: list[str]) -> int | None:
    """The composition's model count, or None (a violation added) (9.1.6)."""
    sizes = sorted(c.models for c in unit.card.compositions)
    allowed = " or ".join(map(str, sizes))
    if entry.models is None:
        if len(sizes) == 1:
            return sizes[0]
        problems.append(f"{where}: models: missing; allowed: {allowed} (a Composition Option, 9.1.6)")
        return None
    if entry.models not in sizes:
        problems.append(f"{where}: composition of {entry.models} models; allowed: {allowed} (9.1.6)")
        return None
    return entry.models


def _check_upgrades(where: str, unit: Unit, entry: UnitEntry, problems: list[str]) -> bool:
    """Upgrades of the card, each once; at most one SPECIALIST upgrade per model (9.1.7)."""
    card = unit.card
    names = [u.name for u in card.upgrades]
    ok = True
    seen: set[str] = set()
    specialists = 0
    for j, name in enumerate(entry.upgrades):
        match = [u for u in card.upgrades if u.name.lower() == name.strip().lower()]
        if not match:
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(
                f"{where}: upgrades[{j}] ({name}): unknown; allowed: an upgrade of {unit.name}: "
                f"{', '.join(names) or 'none'}{hint}"
            )
            ok = False
            continue
        up = match[0]
        if up.name in seen:
            if up.specialist:
                rule = "a SPECIALIST upgrade once per Unit (9.1.7: one nominated model each)"
            else:
                rule = "each upgrade once (9.1.7: each a different entry on the card)"
            problems.append(f"{where}: upgrades[{j}] ({name}): bought twice; allowed: {rule}")
            ok = False
            continue
        seen.add(up.name)
        specialists += up.specialist
    models = entry.models if entry.models is not None else min(c.models for c in card.compositions)
    if specialists > models:
        problems.append(
            f"{where}: {specialists} SPECIALIST upgrades for {models} models; "
            "allowed: one model each (9.1.7: each assigned to a different nominated model)"
        )
        ok = False
    return ok


def _find(pool: dict[str, Any], name: str, field_name: str, what: str) -> Any:
    return _find_named(pool, name, field_name, what)[1]


def _find_named(pool: dict[str, Any], name: str, field_name: str, what: str) -> tuple[str, Any]:
    """A card by name, case- and apostrophe-insensitively, with "did you mean" when unknown."""
    if name in pool:
        return name, pool[name]
    key = _tag_key(name)
    for k in pool:
        if _tag_key(k) == key:
            return k, pool[k]
    close = difflib.get_close_matches(name, list(pool), n=3, cutoff=0.5)
    hint = "did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""
    listing = ", ".join(sorted(pool)) if len(pool) <= 12 else "mathhammer profiles list"
    raise InputError(field_name, name, f"{what} ({listing})", hint)
