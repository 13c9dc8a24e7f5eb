"""Grimdark Future values a user builds: weapons, attackers and defenders.

Instances are immutable and validated on construction; every problem is an
:class:`~mathhammer.errors.InputError` naming the field. Rules may be given
as text (``"AP(1)"``) or objects (``{"name": "AP", "rating": 1}``); they are
stored parsed (:class:`~mathhammer.grimdark.rules.Rule`).

>>> rifle = Weapon("Rifle", attacks=1, range=24, rules=("AP(1)",))
>>> robots = Attacker((WeaponGroup(5, rifle),), quality=4)
>>> saurians = Defender(models=5, defense=4, cover=True)
>>> rifle.rules
(Rule(name='AP', rating=1),)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError
from ..validate import number, target_number, whole
from .effects import Effect, parse_effects
from .rules import Rule, parse_rules, rating

RuleInput = str | Mapping[str, object] | Rule

#: Weapon rules that act only in melee (Furious, Impact; Thrust and Lance: "AP(+1) in melee").
MELEE_ONLY = ("Furious", "Impact", "Thrust", "Lance", "Counter")

#: Weapon rules that act only when shooting.
SHOOTING_ONLY = ("Indirect", "Relentless", "Lock-On", "Sniper")

#: Who Takedown and Sniper pick as their individual target: the joined hero, or a model of the unit.
SNIPE = ("hero", "model")

#: The choices of Versatile Attack (GF v3.5 army books): AP(+1), or +1 to hit rolls.
VERSATILE = ("ap", "hit")


def _rules(value: Iterable[RuleInput] | str, scope: str, field: str) -> tuple[Rule, ...]:
    if value is None:
        return ()
    return parse_rules(value, scope, field)


def _flag(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InputError(field, value, "True or False")
    return value


def _tough(field: str, tough: object, rules: tuple[Rule, ...]) -> int:
    """``tough`` merged with a ``Tough(X)`` among the rules (they must agree when both are given)."""
    t = whole(field, tough, 1, 99, "Tough(X) wounds per model")
    from_rules = rating(rules, "Tough", 0)
    if from_rules and t not in (1, from_rules):
        raise InputError(field, tough, f"the same value as the Tough({from_rules}) among the rules")
    return from_rules or t


@dataclass(frozen=True)
class Weapon:
    """A weapon profile, e.g. ``Plasma Rifle (24", A2, AP(2))``.

    Attributes:
        name: the weapon's name.
        attacks: A, dice per model.
        range: range in inches; None for melee or when not checked.
        melee: True for a melee weapon (no cover, Furious and Impact apply).
        rules: weapon special rules (see :data:`~mathhammer.grimdark.rules.KNOWN`).
        effects: generic effects of army-book rules (:mod:`~mathhammer.grimdark.effects`: ``ap``).
    """

    name: str = "weapon"
    attacks: int = 1
    range: float | None = None
    melee: bool = False
    rules: tuple[Rule, ...] = ()
    effects: tuple[Effect, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "attacks", whole("attacks", self.attacks, 0, 99, "A, attacks per model"))
        if self.range is not None:
            object.__setattr__(self, "range", number("range", self.range, 0, 999, "a range in inches"))
        _flag("melee", self.melee)
        object.__setattr__(self, "rules", _rules(self.rules, "weapon", "rules"))
        object.__setattr__(self, "effects", parse_effects(self.effects, "effects"))
        shooting_only = [r.name for r in self.rules if r.name in SHOOTING_ONLY]
        melee_only = [r.name for r in self.rules if r.name in MELEE_ONLY]
        if self.melee and shooting_only:
            raise InputError("rules", shooting_only[0], "rules of shooting weapons on a shooting weapon (melee=False)")
        if not self.melee and melee_only:
            raise InputError("rules", melee_only[0], "rules of melee weapons on a melee weapon (melee=True)")


@dataclass(frozen=True)
class WeaponGroup:
    """All models of the attacking unit that use one weapon profile (seed: "grouped by identical profile").

    Attributes:
        models: how many models use the weapon (in range and line of sight).
        weapon: the profile.
        quality: the Quality of these models when it is not the attacker's (a joined hero's weapons);
            None: :attr:`Attacker.quality`.
    """

    models: int
    weapon: Weapon
    quality: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", whole("models", self.models, 0, 999, "models using the weapon"))
        if not isinstance(self.weapon, Weapon):
            raise InputError("weapon", self.weapon, "a Weapon")
        if self.quality is not None:
            object.__setattr__(self, "quality", target_number("quality", self.quality, "Quality"))


@dataclass(frozen=True)
class Attacker:
    """The attacking unit.

    Attributes:
        groups: its weapon groups, resolved in order.
        quality: Quality (4 means 4+), the hit roll's target.
        hit_modifier: one more modifier to hit (0: none); kept for the API, it is one
            entry of :attr:`hit_modifiers` more. The total of all modifiers (with
            Indirect's -1 and the rules') is capped at +1/-1 (seed: "łączna wartość
            modyfikatorów ... nie może przekroczyć +1 ani -1").
        charging: the unit charged this activation (Furious, Impact).
        fatigued: the unit already attacked in melee this round: its melee weapons hit only on unmodified
            6s and it has no Impact hits ([BG 3.4.1] Fatigue; GF v3.5 common rules, Impact).
        moved: the unit moved before shooting (Indirect's -1).
        distance: distance to the target in inches (Relentless, Stealth, Artillery, Entrenched:
            over 9"); None: unknown (no such rule applied, a warning; ranges unchecked).
        hit_modifiers: other modifiers to hit, one entry per effect (``(1, -1)``: a +1 and a -1),
            kept apart so that Lock-On and Unstoppable drop only the negative ones.
        rules: unit rules of the attacking unit that change its attacks: Artillery (+1 to hit
            shooting over 9"), Versatile Attack (see :attr:`versatile`).
        versatile: the effect picked for Versatile Attack this activation: ``"ap"`` (AP(+1)) or
            ``"hit"`` (+1 to hit rolls), applied to every weapon of the attack; None: with the
            Versatile Attack rule among :attr:`rules`, the one giving more expected wounds is
            picked (and said in the warnings), else none.
        snipe: the individual target of Takedown and Sniper weapons: ``"hero"`` (the joined hero;
            refused without one) or ``"model"`` (a model of the unit, the one next in line); None: a
            model (said in the warnings when a hero is joined).
    """

    groups: tuple[WeaponGroup, ...]
    quality: int = 4
    hit_modifier: int = 0
    charging: bool = False
    moved: bool = False
    distance: float | None = None
    fatigued: bool = False
    hit_modifiers: tuple[int, ...] = ()
    rules: tuple[Rule, ...] = ()
    versatile: str | None = None
    snipe: str | None = None

    def __post_init__(self) -> None:
        groups = tuple(self.groups)
        if not groups or not all(isinstance(g, WeaponGroup) for g in groups):
            raise InputError("groups", self.groups, "at least one WeaponGroup")
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "quality", target_number("quality", self.quality, "Quality"))
        if isinstance(self.hit_modifier, bool) or not isinstance(self.hit_modifier, int):
            raise InputError("hit_modifier", self.hit_modifier, "a whole number, e.g. -1, 0 or 1")
        if not -9 <= self.hit_modifier <= 9:
            raise InputError("hit_modifier", self.hit_modifier, "a whole number from -9 to 9")
        if isinstance(self.hit_modifiers, str | int) or self.hit_modifiers is None:
            raise InputError("hit_modifiers", self.hit_modifiers, "a sequence of whole numbers, e.g. (1, -1)")
        mods = tuple(self.hit_modifiers)
        for k, m in enumerate(mods):
            if isinstance(m, bool) or not isinstance(m, int) or not -9 <= m <= 9:
                raise InputError(f"hit_modifiers[{k}]", m, "a whole number from -9 to 9, e.g. -1, 0 or 1")
        object.__setattr__(self, "hit_modifiers", mods)
        object.__setattr__(self, "rules", _rules(self.rules, "unit", "rules"))
        if self.versatile is not None and self.versatile not in VERSATILE:
            raise InputError("versatile", self.versatile, "ap (AP(+1)), hit (+1 to hit rolls) or None")
        if self.snipe is not None and self.snipe not in SNIPE:
            raise InputError("snipe", self.snipe, "model (a model of the unit), hero (the joined hero) or None")
        for name in ("charging", "moved", "fatigued"):
            _flag(name, getattr(self, name))
        if self.distance is not None:
            object.__setattr__(self, "distance", number("distance", self.distance, 0, 999, "a distance in inches"))


@dataclass(frozen=True)
class Hero:
    """A hero joined to the defending unit; it takes wounds only after the rest of its unit (seed).

    Hero ([BG 3.4.1], see :mod:`mathhammer.grimdark.compiled`): it "must use the unit's Defense until
    all other models have been killed" (here: it takes no wound before then, and its own Defense after)
    and "may take morale tests on behalf of the unit".

    Attributes:
        tough: its Tough(X).
        defense: its Defense (4 means 4+), rolled for hits it would take.
        rules: unit special rules of the hero (Regeneration, Tough(X), Stealth, Shielded, ...).
        quality: its Quality, for the unit's morale test (the better of the two is used); None: the unit's.
        fearless: the hero has Fearless (see :class:`Defender`); the unit's Fearless needs it too.
        effects: generic effects of army-book rules (``regeneration``, ``ap_reduction``); the unit's need
            the hero's too ("a unit where all models have this rule").
    """

    tough: int = 1
    defense: int = 4
    rules: tuple[Rule, ...] = ()
    quality: int | None = None
    fearless: bool = False
    effects: tuple[Effect, ...] = ()

    def __post_init__(self) -> None:
        rules = _rules(self.rules, "unit", "hero.rules")
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "tough", _tough("hero.tough", self.tough, rules))
        object.__setattr__(self, "defense", target_number("hero.defense", self.defense, "Defense"))
        if self.quality is not None:
            object.__setattr__(self, "quality", target_number("hero.quality", self.quality, "Quality"))
        _flag("hero.fearless", self.fearless)
        object.__setattr__(self, "effects", parse_effects(self.effects, "hero.effects"))


@dataclass(frozen=True)
class Defender:
    """The target unit.

    Attributes:
        models: models left in the unit at the start of the attack, the joined hero not counted.
        defense: Defense (4 means 4+).
        tough: Tough(X) of each model (1: one wound removes a model).
        quality: Quality for its morale test.
        rules: unit special rules (Tough(X), Regeneration, Stealth, Artillery, Entrenched,
            Shielded); a rule of "units where all models have this rule" needs the joined hero's too.
        cover: the unit is in cover (+1 to Defense rolls against shooting).
        hero: an optional joined :class:`Hero`.
        starting_models: the unit's starting size, the joined hero not counted; None: ``models``
            (a unit at full strength). Morale's half strength is counted against it: "half or less
            of its starting size ... Note that starting size is counted at the beginning of the
            game" (GF v3.5.1 core rules, Morale; see :mod:`mathhammer.grimdark.compiled`).
        fearless: the unit has Fearless (GF v3.5 common rules: "When a unit where all models have
            this rule fails a morale test, roll one die. On a 4+ it counts as passed instead."); with
            a joined hero, the hero must have it too (``Hero.fearless``).
        effects: generic effects of army-book rules (:mod:`~mathhammer.grimdark.effects`:
            ``regeneration``, ``ap_reduction``), active while all models left have them.
        moved: the unit moved during this round (Entrenched then gives nothing).
    """

    models: int = 1
    defense: int = 4
    tough: int = 1
    quality: int = 4
    rules: tuple[Rule, ...] = ()
    cover: bool = False
    hero: Hero | None = None
    starting_models: int | None = None
    fearless: bool = False
    effects: tuple[Effect, ...] = ()
    moved: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", whole("models", self.models, 1, 999, "models in the target unit"))
        start = self.models if self.starting_models is None else self.starting_models
        start = whole("starting_models", start, self.models, 999, f"the unit's starting size, at least {self.models}")
        object.__setattr__(self, "starting_models", start)
        object.__setattr__(self, "defense", target_number("defense", self.defense, "Defense"))
        rules = _rules(self.rules, "unit", "rules")
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "tough", _tough("tough", self.tough, rules))
        object.__setattr__(self, "quality", target_number("quality", self.quality, "Quality"))
        _flag("cover", self.cover)
        _flag("fearless", self.fearless)
        object.__setattr__(self, "effects", parse_effects(self.effects, "effects"))
        _flag("moved", self.moved)
        if self.hero is not None and not isinstance(self.hero, Hero):
            raise InputError("hero", self.hero, "a Hero or None")
        if self.models * self.tough + (self.hero.tough if self.hero else 0) > 4000:
            raise InputError("models", self.models, "at most 4000 wounds in the whole unit")
