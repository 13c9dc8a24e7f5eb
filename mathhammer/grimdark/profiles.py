"""Grimdark Future unit profiles from TOML (``docs/grimdark.md``).

A file holds ``[units."Name"]`` tables: models, Quality, Defense, Tough,
points, unit rules and weapons. Unknown keys are refused (with a "did you
mean"), rules are parsed by :func:`~mathhammer.grimdark.rules.parse_rule`,
and every problem of every file is reported at once as a
:class:`~mathhammer.profiles.ProfileError`, one line each::

    broken.toml: units."Robot Warriors".qualty: unknown key (did you mean 'quality'?)
    broken.toml: units."Robot Warriors".weapons[0].rules[0]: got 'Rendin'; allowed: ... (did you mean 'Rending'?)

A unit becomes an :class:`~mathhammer.grimdark.model.Attacker` with
:func:`unit_attacker` and a :class:`~mathhammer.grimdark.model.Defender` with
:func:`unit_defender`:

>>> from mathhammer.grimdark import grimdark_exact
>>> units = load_units()
>>> robots = find_unit(units, "robot warriors", "--attacker")
>>> saurians = find_unit(units, "Saurian Warriors", "--target")
>>> tally = grimdark_exact(unit_attacker(robots, melee=False), unit_defender(saurians, cover=True))
>>> round(float(tally.models_destroyed @ range(len(tally.models_destroyed))), 12)
1.25
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..errors import InputError
from ..profiles.loader import ProfileError, load_folders, lookup, parse
from ..validate import no_bool_number, whole
from .effects import Effect
from .model import MELEE_ONLY, SHOOTING_ONLY, Attacker, Defender, Hero, Weapon, WeaponGroup
from .rules import KNOWN, Rule, parse_rule, rating

#: Rules of models that the core rules write on the unit but this package
#: applies to its weapons: Furious and Impact(X) in melee, Relentless when shooting.
MODEL_RULES = ("Furious", "Relentless", "Impact")
#: Unit rules recorded on a profile without a rating, read from the unit rather than its weapons: Hero
#: (may join a unit) and Fearless (GF v3.5 common rules: a failed morale test passes on a 4+; the
#: ``fearless`` of :func:`unit_defender`'s Defender and Hero).
MARKER_RULES = ("Hero", "Fearless")
#: Unit rules of the target that change the numbers of an attack on it (GF v3.5 common rules and army
#: books): passed to :func:`unit_defender`'s Defender and joined Hero.
TARGET_RULES = ("Regeneration", "Stealth", "Artillery", "Entrenched", "Shielded", "Banner", "Morale")
#: Unit rules of the attacker that change its attacks: passed to :func:`unit_attacker`'s Attacker.
ATTACKER_RULES = ("Artillery", "Versatile Attack", "Slayer")
#: Every rule a unit's ``rules`` may hold (Fear(X): GF v3.5 common rules, counted in the melee result).
UNIT_RULES = ("Tough", *dict.fromkeys(TARGET_RULES + ATTACKER_RULES), "Fear", *MODEL_RULES, *MARKER_RULES)


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def _written(name: str) -> str:
    return name + ("(X)" if name in KNOWN and KNOWN[name][1] else "")


_UNIT_ALLOWED = "a unit rule: " + ", ".join(_written(n) for n in UNIT_RULES)
_RULE_NAME = re.compile(r"\s*([A-Za-z][A-Za-z \-_]*?)\s*(?:\(.*\))?\s*")


def _rule_name(value: object) -> str | None:
    if isinstance(value, dict):
        name = value.get("name")
        return str(name) if name is not None else None
    if isinstance(value, str):
        m = _RULE_NAME.fullmatch(value)
        return m.group(1) if m else None
    return None


def _unit_rule(value: object) -> Rule:
    """One unit rule (one of :data:`UNIT_RULES`)."""
    name = _rule_name(value)
    by_key = {_key(n): n for n in UNIT_RULES}
    canonical = by_key.get(_key(name)) if name else None
    if canonical is None:
        close = difflib.get_close_matches(_key(name or ""), list(by_key), n=1, cutoff=0.6)
        hint = f" (did you mean {by_key[close[0]]!r}?)" if close else ""
        if name and _key(name) in {_key(n) for n in KNOWN}:
            hint = f" ({name} is a weapon rule: write it on the weapon)"
        raise ValueError(f"allowed: {_UNIT_ALLOWED}{hint}")
    if canonical in MARKER_RULES:
        if not (isinstance(value, str) and _key(value) == _key(canonical)) and not (
            isinstance(value, dict) and value.get("rating") is None and set(value) <= {"name", "rating"}
        ):
            raise ValueError(f"allowed: {canonical} without a rating")
        return Rule(canonical)
    scope = "weapon" if canonical in MODEL_RULES else "unit"
    try:
        return parse_rule(value, scope, "rules")  # type: ignore[arg-type]
    except InputError as exc:
        raise ValueError(f"allowed: {exc.allowed}" + (f" ({exc.hint})" if exc.hint else "")) from None


def _weapon_rule(value: object) -> Rule:
    if not isinstance(value, str | dict):
        raise ValueError('allowed: a rule such as "AP(1)" or {name = "AP", rating = 1}')
    try:
        return parse_rule(value, "weapon", "rules")
    except InputError as exc:
        raise ValueError(f"allowed: {exc.allowed}" + (f" ({exc.hint})" if exc.hint else "")) from None


def _target_number(value: object) -> object:
    """``"4+"`` is 4; everything else goes to the integer check."""
    if isinstance(value, str) and value.strip().endswith("+"):
        return value.strip()[:-1]
    return value


def _in_range(value: int) -> int:
    if not 2 <= value <= 6:
        raise ValueError('allowed: a target number from 2 to 6 (4 or "4+" means 4+)')
    return value


TargetNumber = Annotated[int, BeforeValidator(_target_number), AfterValidator(_in_range)]
UnitRule = Annotated[Any, AfterValidator(_unit_rule)]
WeaponRule = Annotated[Any, AfterValidator(_weapon_rule)]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return no_bool_number(cls.model_fields[info.field_name or ""].annotation, value)


def _effect(value: object) -> Effect:
    """One ``effects`` entry: ``{effect = "regeneration", value = 6, rule = "Self-Repair"}``."""
    if not isinstance(value, dict) or "effect" not in value:
        raise ValueError('allowed: an effect such as {effect = "regeneration", value = 6, rule = "Self-Repair"}')
    args = {("kind" if k == "effect" else k): v for k, v in value.items()}
    try:
        return Effect(**args)
    except TypeError:
        raise ValueError("allowed: the keys effect, value, phase, charging, tough_min, tough_max, over, rule") from None
    except InputError as exc:
        raise ValueError(f"allowed: {exc.allowed}") from None


EffectEntry = Annotated[Any, AfterValidator(_effect)]


class WeaponSpec(_Frozen):
    """One weapon of a unit: ``{name = "Rifle", range = 24, attacks = 1, rules = ["AP(1)"]}``."""

    name: str = Field(min_length=1)
    count: int | None = Field(default=None, ge=1, le=999)
    range: float = Field(ge=0, le=999)
    attacks: int = Field(ge=1, le=99)
    rules: list[WeaponRule] = []
    effects: list[EffectEntry] = []

    @model_validator(mode="after")
    def _phase_rules(self) -> WeaponSpec:
        names = {r.name for r in self.rules}
        if len(names) < len(self.rules):
            raise ValueError("allowed: each rule at most once")
        melee = self.range == 0
        wrong = sorted(names & (set(SHOOTING_ONLY) if melee else set(MELEE_ONLY)))
        if wrong:
            kind = "shooting weapons (range > 0)" if melee else "melee weapons (range = 0)"
            raise ValueError(f"allowed: {', '.join(wrong)} only on {kind}")
        return self


class UnitSpec(_Frozen):
    """One unit (docs/grimdark.md)."""

    models: int = Field(ge=1, le=999)
    quality: TargetNumber
    defense: TargetNumber
    tough: int = Field(default=1, ge=1, le=99)
    points: int = Field(ge=0, le=99999)
    rules: list[UnitRule] = []
    weapons: list[WeaponSpec] = []
    source: str = Field(min_length=1)
    sample: bool = False
    hero: bool = False
    effects: list[EffectEntry] = []
    warnings: list[str] = []

    @model_validator(mode="after")
    def _consistent(self) -> UnitSpec:
        names = [r.name for r in self.rules]
        if len(set(names)) < len(names):
            raise ValueError("allowed: each unit rule at most once")
        if (self.hero or "Hero" in names) and self.models != 1:
            raise ValueError(f"allowed: a hero (hero = true or the Hero rule) of 1 model, not {self.models}")
        from_rules = rating(self.rules, "Tough", 0)
        if from_rules and self.tough not in (1, from_rules):
            raise ValueError(f"allowed: tough = {from_rules}, the same as the Tough({from_rules}) among the rules")
        for w in self.weapons:
            if w.count is not None and w.count > self.models:
                raise ValueError(f"allowed: weapon {w.name!r} carried by at most the unit's {self.models} models")
        return self


class UnitFile(_Frozen):
    """One TOML file of Grimdark Future units."""

    units: dict[str, UnitSpec] = {}


@dataclass(frozen=True)
class GFWeapon:
    """A weapon of a :class:`GFUnit`; ``count`` None means every model carries it, ``range`` 0 means melee."""

    name: str
    attacks: int
    range: float
    count: int | None = None
    rules: tuple[Rule, ...] = ()
    effects: tuple[Effect, ...] = ()

    @property
    def melee(self) -> bool:
        return self.range == 0


@dataclass(frozen=True, repr=False)
class GFUnit:
    """A Grimdark Future unit profile.

    Attributes:
        name: the unit's name.
        models: models in the unit.
        quality: Quality (4 means 4+).
        defense: Defense (4 means 4+).
        tough: Tough(X) of each model (from ``tough`` or a ``Tough(X)`` rule).
        points: the unit's cost.
        rules: unit rules (Tough, Regeneration, Furious, Relentless, Impact, Hero, Fearless, Stealth,
            Artillery, Entrenched, Shielded, Versatile Attack).
        weapons: its weapons.
        source: where the values come from.
        sample: True for our illustrative samples (not army-book data).
        hero: True for a hero (``hero = true`` or the ``Hero`` rule): it may join a
            multi-model unit as the target (:func:`join_hero`).
        effects: generic effects of army-book rules (:mod:`~mathhammer.grimdark.effects`): ``ap`` ones go
            on each weapon (their ``phase`` decides), the others on the unit as the target.
        warnings: what the import left out or changed (``mathhammer import-opr``), carried into reports.
    """

    name: str
    models: int
    quality: int
    defense: int
    tough: int
    points: int
    rules: tuple[Rule, ...]
    weapons: tuple[GFWeapon, ...]
    source: str
    sample: bool = False
    hero: bool = False
    effects: tuple[Effect, ...] = ()
    warnings: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"<Unit {self.name} [{self.models}]: Quality {self.quality}+, Defense {self.defense}+, "
            f"Tough({self.tough}), {self.points} pts>"
        )


_FIELDS = sorted(set(UnitFile.model_fields) | set(UnitSpec.model_fields) | set(WeaponSpec.model_fields))


def _weapon(spec: WeaponSpec) -> GFWeapon:
    rng = int(spec.range) if float(spec.range).is_integer() else spec.range
    return GFWeapon(spec.name, spec.attacks, rng, spec.count, tuple(spec.rules), tuple(spec.effects))


def _unit(name: str, spec: UnitSpec) -> GFUnit:
    tough = rating(spec.rules, "Tough", 0) or spec.tough
    return GFUnit(
        name=name,
        models=spec.models,
        quality=spec.quality,
        defense=spec.defense,
        tough=tough,
        points=spec.points,
        rules=tuple(spec.rules),
        weapons=tuple(_weapon(w) for w in spec.weapons),
        source=spec.source,
        sample=spec.sample,
        hero=spec.hero or any(r.name == "Hero" for r in spec.rules),
        effects=tuple(spec.effects),
        warnings=tuple(spec.warnings),
    )


def parse_units(data: Any, name: str) -> dict[str, GFUnit]:
    """Validate the parsed TOML ``data`` of the file ``name``; raises :class:`ProfileError` with every problem."""
    parsed = parse(name, data, UnitFile, _FIELDS)
    problems = [f"{name}: units: a unit name must not be empty" for n in parsed.units if not n.strip()]
    if problems:
        raise ProfileError(problems)
    return {n: _unit(n, spec) for n, spec in parsed.units.items()}


def load_text(text: str, name: str) -> dict[str, GFUnit]:
    """Load the units of a TOML text (``name`` is used in error lines)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError([f"{name}: not valid TOML: {exc}"]) from None
    return parse_units(data, name)


def load_file(path: Path) -> dict[str, GFUnit]:
    """Load the units of one TOML file; raises :class:`ProfileError` with every problem."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise ProfileError([f"{path}: cannot read: {exc.strerror}"]) from None
    except UnicodeDecodeError:
        raise ProfileError([f"{path.name}: not a UTF-8 text file; allowed: TOML unit profiles"]) from None
    return load_text(text, path.name)


def builtin_dir() -> Path:
    """The folder of the built-in Grimdark Future profiles (installed package, else the repository's)."""
    installed = Path(__file__).resolve().parents[1] / "builtin_profiles" / "grimdark"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "profiles" / "grimdark"


class GFRoster(dict[str, "GFUnit"]):
    """Grimdark Future units by name (a dict), with a one-line repr."""

    def __repr__(self) -> str:
        return f"<Roster {len(self)} Grimdark Future units>"


def load_units(extra: Sequence[str | Path] = (), builtin: bool = True) -> GFRoster:
    """The built-in units, then those of the user's files or folders ``extra`` (a later unit of the same name wins).

    Raises:
        ProfileError: every problem of every file, one line each.
    """
    from ..profiles.loader import as_folder

    folders = ([builtin_dir()] if builtin and builtin_dir().is_dir() else []) + [as_folder(p) for p in extra]
    units = GFRoster()
    # army_rules.toml is the table of army-book rules (mathhammer.grimdark.army_rules), not units
    for _, found in load_folders(folders, load_file, "no such file or folder", skip=("army_rules.toml",)):
        units.update(found)
    return units


def find_unit(units: dict[str, GFUnit], name: str, field: str = "unit") -> GFUnit:
    """A unit by name, without regard to case and spacing.

    Raises:
        InputError: no such unit (naming ``field``, with the closest names).
    """
    return cast(GFUnit, lookup(units, name, field, "a Grimdark Future unit of the profiles"))


def _models(unit: GFUnit, models: int | None) -> int:
    if models is None:
        return unit.models
    return whole("models", models, 1, unit.models, f"models of {unit.name} still fighting")


def unit_attacker(
    unit: GFUnit,
    melee: bool,
    models: int | None = None,
    charging: bool = False,
    distance: float | None = None,
) -> Attacker | None:
    """The unit attacking in melee (``melee=True``) or shooting: one weapon group per weapon of that phase.

    ``models`` is how many models fight (default: all). A weapon carried by
    ``count`` models is used by ``min(count, models)`` of them (special weapons
    are assumed to be lost last). Furious (melee) and Relentless (shooting)
    among the unit rules go on each weapon of the phase; Impact(X) adds a group
    of its own, one per model. Returns None when the unit has nothing to attack with.
    """
    n = _models(unit, models)
    groups: list[WeaponGroup] = []
    extra = [r for r in unit.rules if r.name == ("Furious" if melee else "Relentless")]
    for w in unit.weapons:
        if w.melee != melee:
            continue
        rules = w.rules + tuple(r for r in extra if all(x.name != r.name for x in w.rules))
        effects = w.effects + tuple(e for e in unit.effects if e.kind == "ap" and e not in w.effects)
        weapon = Weapon(w.name, w.attacks, range=None if melee else w.range, melee=melee, rules=rules, effects=effects)
        groups.append(WeaponGroup(n if w.count is None else min(w.count, n), weapon))
    impact = [r for r in unit.rules if r.name == "Impact"]
    if melee and impact:
        groups.insert(0, WeaponGroup(n, Weapon("Impact", attacks=0, melee=True, rules=(impact[0],))))
    if not groups:
        return None
    rules = tuple(r for r in unit.rules if r.name in ATTACKER_RULES)
    return Attacker(tuple(groups), quality=unit.quality, charging=charging, distance=distance, rules=rules)


def unit_defender(unit: GFUnit, models: int | None = None, cover: bool = False, hero: GFUnit | None = None) -> Defender:
    """The unit as the target (its Tough, Regeneration, Defense and Quality for morale), with an optional
    joined ``hero`` (see :func:`join_hero`), which takes wounds only after the rest of the unit."""
    n = _models(unit, models)
    rules = tuple(r for r in unit.rules if r.name in ("Tough", *TARGET_RULES))
    joined = None
    if hero is not None:
        joined = Hero(
            tough=hero.tough,
            defense=hero.defense,
            rules=tuple(r for r in hero.rules if r.name in TARGET_RULES),
            quality=hero.quality,
            fearless=any(r.name == "Fearless" for r in hero.rules),
            effects=tuple(e for e in hero.effects if e.kind != "ap"),
        )
    return Defender(
        models=n,
        defense=unit.defense,
        tough=unit.tough,
        quality=unit.quality,
        rules=rules,
        cover=cover,
        hero=joined,
        starting_models=unit.models,  # morale's half strength: against the unit's full size
        fearless=any(r.name == "Fearless" for r in unit.rules),
        effects=tuple(e for e in unit.effects if e.kind != "ap"),
    )


def unit_fighter(unit: GFUnit, models: int | None = None, hero: GFUnit | None = None, fatigued: bool = False) -> Any:
    """The unit (with an optional joined ``hero``) as one side of a melee resolved both ways
    (:class:`~mathhammer.grimdark.melee.Fighter`): its melee weapons at full strength, its Fear(X), and
    the unit as a target with ``models`` of its models left."""
    from .melee import Fighter

    full = unit_attacker(unit, melee=True)
    hero_weapons = unit_attacker(hero, melee=True) if hero is not None else None
    return Fighter(
        groups=full.groups if full is not None else (),
        quality=unit.quality,
        defender=unit_defender(unit, models=models, hero=hero),
        hero_groups=hero_weapons.groups if hero_weapons is not None else (),
        hero_quality=hero.quality if hero is not None else None,
        fear=rating(unit.rules, "Fear"),
        hero_fear=rating(hero.rules, "Fear") if hero is not None else 0,
        fatigued=fatigued,
        rules=tuple(r for r in unit.rules if r.name in ATTACKER_RULES),
        hero_rules=tuple(r for r in hero.rules if r.name in ATTACKER_RULES) if hero is not None else (),
    )


#: Hero [BG 3.4.1]: "Heroes with up to Tough(6) may deploy as part of one multi-model unit without another Hero."
HERO_MAX_TOUGH = 6


def split_joined(text: str) -> tuple[str, str | None]:
    """``"Unit + Hero"`` into ``("Unit", "Hero")``; a name without ``+`` into ``(name, None)``.

    >>> split_joined("Saurian Warriors + Saurian Captain"), split_joined("Saurian Warriors")
    (('Saurian Warriors', 'Saurian Captain'), ('Saurian Warriors', None))
    """
    unit, sep, hero = str(text).partition("+")
    return (unit.strip(), hero.strip() if sep else None)


def join_hero(unit: GFUnit, hero: GFUnit, field: str) -> GFUnit:
    """Check that ``hero`` may join ``unit`` ([BG 3.4.1] Hero) and return the hero.

    Raises:
        InputError: naming ``field``: the hero is not a hero (``hero = true`` or the ``Hero`` rule), has
            more than Tough(6), or the unit is a single model or a hero itself.
    """
    if not hero.hero:
        raise InputError(field, hero.name, "a hero unit to join (a profile with hero = true or the Hero rule)")
    if hero.models != 1 or hero.tough > HERO_MAX_TOUGH:
        raise InputError(field, hero.name, f"a hero of one model with up to Tough({HERO_MAX_TOUGH}) (core rules, Hero)")
    if unit.hero or unit.models < 2:
        raise InputError(field, unit.name, "a multi-model unit that is not a hero for the hero to join")
    return hero
