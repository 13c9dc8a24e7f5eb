"""StarCraft TMG values a user builds: weapons, Batches and target units.

Instances are immutable and validated on construction; every problem is an
:class:`~mathhammer.errors.InputError` naming the field.

>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1, range=12, surge="Light:D3")
>>> marines = Target.build(models=6, hp=2, armour=5, evade=5, tags="Biological,Light,Ground")
>>> Batch(rifle, models=9).weapon.surge_dice
SDice(n=1, sides=3, bonus=0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..dice import SDice
from ..errors import InputError
from ..validate import number, target_number, whole
from .keywords import Keyword, normalise_tag, parse_keywords

REMOVAL_ORDERS = ("listed", "fewest-hp-first", "most-hp-first")


def parse_tags(text: str | Iterable[str], field: str) -> tuple[str, ...]:
    """Parse ``"Light,Biological"`` (or a list) into Combat Tags."""
    items = text.split(",") if isinstance(text, str) else list(text)
    tags = [normalise_tag(t, field) for t in items if str(t).strip()]
    return tuple(dict.fromkeys(tags))


def parse_surge(text: str, field: str = "--surge") -> tuple[tuple[str, ...], SDice]:
    """Parse ``TYPE[,TYPE]:DICE`` as on a card: ``"Light,Armoured:D3+1"``.

    >>> parse_surge("Light,Armoured:D3+1")
    (('Light', 'Armoured'), SDice(n=1, sides=3, bonus=1))
    """
    if ":" not in str(text):
        raise InputError(field, text, "Surge written TYPE[,TYPE]:DICE, e.g. Light:D3 or Light,Armoured:D3+1")
    types, dice = str(text).rsplit(":", 1)
    tags = parse_tags(types, field)
    if not tags:
        raise InputError(field, text, "at least one Surge Type (a Combat Tag) before the colon, e.g. Light:D3")
    return tags, SDice.parse(dice, field)


@dataclass(frozen=True)
class Weapon:
    """A weapon profile (one row of a unit card).

    Attributes:
        name: the weapon's name.
        roa: Rate of Attack, dice per attacking model.
        hit: Hit target number (3 means 3+).
        damage: Damage per die in the Damage Pool.
        range: profile range in inches (None: not checked).
        surge_tags: the Surge Types (Combat Tags) that trigger Surge.
        surge_dice: the S Dice, or None (Surge result 0, 8.7.4 step 1).
        keywords: parsed weapon keywords.
    """

    name: str = "weapon"
    roa: int = 1
    hit: int = 4
    damage: int = 1
    range: float | None = None
    surge_tags: tuple[str, ...] = ()
    surge_dice: SDice | None = None
    keywords: tuple[Keyword, ...] = ()

    def __post_init__(self) -> None:
        whole("roa", self.roa, 0, 99, "Rate of Attack")
        target_number("hit", self.hit, "Hit")
        whole("damage", self.damage, 1, 99, "Damage")
        if self.range is not None:
            number("range", self.range, 0, 999, "a range in inches")
        if (self.surge_dice is None) != (not self.surge_tags):
            raise InputError("surge", self.surge_tags, "Surge Types and S Dice given together (or neither)")

    @classmethod
    def build(
        cls,
        name: str = "weapon",
        *,
        roa: int | str = 1,
        hit: int | str = 4,
        damage: int | str = 1,
        range: float | None = None,
        surge: str | None = None,
        keywords: Iterable[str | Keyword] = (),
    ) -> Weapon:
        """Build a weapon from card-style text.

        >>> Weapon.build(roa=3, hit="3+", surge="Light,Armoured:D3+1", keywords=["PRECISION (1)"]).hit
        3

        BUFF / DEBUFF Range (X) (part 11: "increase / decrease the value by X", a value characteristic never below
        0) change the range here, once (Weapons of the Firstborn):

        >>> Weapon.build(range=12, keywords=["BUFF Range (4)"]).range
        16.0
        >>> Weapon.build(range=3, keywords=["DEBUFF Range (4)"]).range
        0.0
        """
        tags, dice = parse_surge(surge) if surge else ((), None)
        kws = parse_keywords(keywords, "weapon", "keyword")
        if range is not None:
            shift = sum((1 if k.name == "BUFF" else -1) * (k.value or 0) for k in kws if k.tag == "Range")
            range = float(max(0.0, range + shift)) if shift else range
        return cls(
            name=name,
            roa=whole("roa", roa, 0, 99, "Rate of Attack"),
            hit=target_number("hit", hit, "Hit"),
            damage=whole("damage", damage, 1, 99, "Damage"),
            range=range,
            surge_tags=tags,
            surge_dice=dice,
            keywords=kws,
        )


@dataclass(frozen=True)
class Batch:
    """All models firing one weapon profile at one target (8.7.3).

    Attributes:
        weapon: the weapon profile.
        models: number of attacking models (those with the target in range
            and visible; 8.7.3 step 1).
        distances: per-model distance to the target in inches; None means
            every model is within the profile range and beyond any BURST FIRE
            distance. Models beyond range (and LONG RANGE) roll no dice.
        visible: how many models of the target are visible to this Batch's
            attackers at the start of the chain (8.7.4 step 5: only Visible
            models are removed; models removed earlier in the chain count as
            visible ones); None: the target's own ``visible`` setting.
        evade: force the target's Evade eligibility for this Batch (None: the
            target's setting).
        kind: ``"weapon"``; ``"hits"`` for HITS X (Y) (X dice straight into
            the Armour Pool, no Surge); ``"impact"`` for IMPACT (X) Y.
        fewer: dice taken out of this Batch's Attack Pool before the Hit roll
            (Guardian Shield: "made with 1 fewer die in the Attack Pool"; Point
            Defense Laser: "remove up to 2 dice from the Attack Pool").
        fewer_by: who controls the ability that takes them out, and so
            chooses which dice go (8.7.3 REMOVING DICE: "the player
            controlling the Unit resolving that ability chooses which dice are
            removed"). ``"defender"`` (the default: Guardian Shield and Point
            Defense Laser are the target side's abilities) removes the dice
            most likely to hurt it, the best Hit target number first;
            ``"attacker"`` (an ability of the attacking side) removes the worst
            first. Reading: within one Batch every die shares Damage, Armour,
            Surge, CRITICAL HIT and PRECISION, and the only per-die difference
            is the Hit target number (LONG RANGE; BURST FIRE only adds dice),
            so a die with a lower target number hurts at least as much as one
            with a higher one for every face rolled: "most likely to hurt" is
            "best Hit target number".
    """

    weapon: Weapon
    models: int = 1
    distances: tuple[float, ...] | None = None
    visible: int | None = None
    evade: bool | None = None
    kind: str = "weapon"
    name: str = ""
    fewer: int = 0
    fewer_by: str = "defender"

    def __post_init__(self) -> None:
        whole("models", self.models, 0, 999, "attacking models")
        whole("fewer", self.fewer, 0, 999, "dice taken out of the Attack Pool")
        if self.distances is not None:
            if len(self.distances) != self.models:
                raise InputError("distances", self.distances, f"one distance per attacking model ({self.models})")
            for d in self.distances:
                number("distances", d, 0, 999, "distances in inches")
        if self.visible is not None:
            whole("visible", self.visible, 1, 999, "visible target models")
        if self.kind not in ("weapon", "hits", "impact"):
            raise InputError("kind", self.kind, "weapon, hits or impact")
        if self.fewer_by not in ("defender", "attacker"):
            raise InputError("fewer_by", self.fewer_by, "defender or attacker (who removes the dice, 8.7.3)")

    @classmethod
    def at(cls, weapon: Weapon, models: int, distance: float | None = None, **kw: object) -> Batch:
        """A Batch whose models all stand ``distance`` inches from the target."""
        dist = None if distance is None else (float(distance),) * int(models)
        return cls(weapon, models=models, distances=dist, **kw)  # type: ignore[arg-type]

    @classmethod
    def hits(cls, x: int, damage: int, name: str = "HITS") -> Batch:
        """HITS X (Y): X dice straight into the Armour Pool, Damage Y, no Surge (part 11)."""
        whole("HITS X", x, 1, 999, "automatic hits")
        return cls(Weapon(name=name, roa=0, hit=6, damage=damage), models=int(x), kind="hits", name=name)

    @classmethod
    def impact(cls, models: int, dice: int, threshold: int, name: str = "IMPACT") -> Batch:
        """IMPACT (X) Y: X Impact Dice per model; each Y+ puts a die in the Armour Pool; Damage 1 (part 11)."""
        weapon = Weapon(name=name, roa=dice, hit=threshold, damage=1)
        return cls(weapon, models=models, kind="impact", name=name)

    @property
    def label(self) -> str:
        return self.name or self.weapon.name


@dataclass(frozen=True)
class ModelGroup:
    """``count`` models of ``hp`` Hit Points each, in removal order."""

    count: int
    hp: int
    name: str = "model"

    def __post_init__(self) -> None:
        whole("models", self.count, 1, 999, "models")
        whole("hp", self.hp, 1, 999, "Hit Points")


@dataclass(frozen=True)
class Target:
    """The target unit as it stands when the attack begins.

    Attributes:
        groups: the models, as groups in the order the defender removes them
            (see ``removal_order``); Shield is added to the first model.
        armour: Armour target number.
        evade: Evade target number.
        shield: the Shield value (0: none).
        tags: the unit's Combat Tags.
        keywords: target keywords (TOUGH, DODGE, HIDDEN, BUFF Armour …).
        marker: the Damage Marker already on the unit.
        shielded: whether the unit is still SHIELDED (None: Shield > 0 and the
            marker does not exceed Shield).
        visible: how many models are visible to the attackers (None: all);
            attacks remove only visible models, at most this many over a chain.
        evade_eligible: the target gets Evade Rolls (Engaged and shot at,
            HIGH GROUND cover, INDIRECT FIRE out of sight … 8.7.4 step 4).
        stationary: the unit has Stationary Status (LOCKED IN).
        removal_order: ``listed`` (default), ``fewest-hp-first`` or
            ``most-hp-first``.
        damage_reduction: a Reaction that reduces the Total Damage (8.7.4 step
            5: "Apply any Special Skills that reduce the Total Damage": Life
            Support, Transfusion, Dae'Uhl), used once for the attack: at the
            first Batch that deals the unit Damage (10.4: one Reaction, declared
            when its trigger happens). 0: none.
        reduction_floor: that reduction never takes the Total Damage below this
            (Dae'Uhl: "to a minimum of 1").
    """

    groups: tuple[ModelGroup, ...]
    armour: int = 4
    evade: int = 6
    shield: int = 0
    tags: tuple[str, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    marker: int = 0
    shielded: bool | None = None
    visible: int | None = None
    evade_eligible: bool = False
    stationary: bool = False
    removal_order: str = "listed"
    name: str = "target"
    damage_reduction: int = 0
    reduction_floor: int = 0

    def __post_init__(self) -> None:
        if not self.groups:
            raise InputError("target models", 0, "at least one model")
        target_number("armour", self.armour, "Armour")
        target_number("evade", self.evade, "Evade")
        whole("shield", self.shield, 0, 99, "Shield")
        whole("marker", self.marker, 0, 999, "Damage Marker")
        if self.visible is not None:
            whole("visible", self.visible, 1, 999, "visible models")
        if self.removal_order not in REMOVAL_ORDERS:
            raise InputError("removal_order", self.removal_order, ", ".join(REMOVAL_ORDERS))
        whole("damage_reduction", self.damage_reduction, 0, 99, "Total Damage reduction")
        whole("reduction_floor", self.reduction_floor, 0, 99, "minimum Total Damage after the reduction")

    @classmethod
    def build(
        cls,
        models: int = 1,
        hp: int = 1,
        *,
        armour: int | str = 4,
        evade: int | str = 6,
        shield: int = 0,
        tags: str | Sequence[str] = (),
        keywords: Iterable[str | Keyword] = (),
        marker: int = 0,
        shielded: bool | None = None,
        visible: int | None = None,
        evade_eligible: bool = False,
        stationary: bool = False,
        groups: Sequence[ModelGroup] | None = None,
        removal_order: str = "listed",
        name: str = "target",
        damage_reduction: int = 0,
        reduction_floor: int = 0,
    ) -> Target:
        """Build a target from card-style values.

        >>> Target.build(5, 2, shield=2, armour="4+", keywords=["TOUGH (1)"]).model_hp()
        [4, 2, 2, 2, 2]
        """
        if groups is None:
            groups = (ModelGroup(whole("models", models, 1, 999, "models"), whole("hp", hp, 1, 999, "Hit Points")),)
        return cls(
            groups=tuple(groups),
            armour=target_number("armour", armour, "Armour"),
            evade=target_number("evade", evade, "Evade"),
            shield=shield,
            tags=parse_tags(tags, "tags"),
            keywords=parse_keywords(keywords, "target", "target keyword"),
            marker=marker,
            shielded=shielded,
            visible=visible,
            evade_eligible=evade_eligible,
            stationary=stationary,
            removal_order=removal_order,
            name=name,
            damage_reduction=damage_reduction,
            reduction_floor=reduction_floor,
        )

    @property
    def models(self) -> int:
        return sum(g.count for g in self.groups)

    def model_hp(self) -> list[int]:
        """HP of each model in removal order, with Shield added to the first (SHIELDED)."""
        hps = [g.hp for g in self.groups for _ in range(g.count)]
        if self.removal_order == "fewest-hp-first":
            hps.sort()
        elif self.removal_order == "most-hp-first":
            hps.sort(reverse=True)
        hps[0] += self.shield
        return hps

    @property
    def is_shielded(self) -> bool:
        if self.shielded is not None:
            return bool(self.shielded) and self.shield > 0
        return self.shield > 0 and self.marker <= self.shield


@dataclass(frozen=True)
class Attack:
    """A chain of Batches resolved in order against one target (8.7.3, Batch sequence)."""

    batches: tuple[Batch, ...]
    target: Target
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.batches:
            raise InputError("batches", 0, "at least one Batch")
