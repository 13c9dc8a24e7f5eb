"""StarCraft TMG's card schema: the profile format (``docs/profiles.md``) as pydantic v2 models.

Unknown keys are refused (``extra="forbid"``), keywords are parsed with the
rules' own parser (:mod:`mathhammer.starcraft.keywords`), and every model is
frozen. The loader turns pydantic's errors into one line per problem naming
the file and the path (``terran.toml: units.Marine.weapons[0].hit``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..dice import SDice
from ..errors import InputError
from ..validate import no_bool_number
from .keywords import COMBAT_TAGS, KEYWORDS, normalise_tag, parse_keyword

Phase = Literal["assault", "combat"]
Slot = Literal["Core", "Elite", "Support", "Air", "Hero"]
Resource = Literal["CP", "BM", "PE", ""]
EffectKind = Literal[
    "weapon_keyword",
    "weapon_s_dice",
    "weapon_surge",
    "unit_keyword",
    "evade_eligible",
    "non_lethal_self",
    "speed",
    "hits",
    "charger_debuff_speed",
    "reduce_damage",
    "enemy_weapon_keyword",
    "remove_debuffs",
    "per_model_bonus",
    "charge_roll",
    "impact_hit",
    "impact_dice",
    "contest_supply",
    "disengage_supply",
    "counts_activated",
    "engaged_targeting",
    "armour_near_marker",
    "weapon_damage",
    "ignore_disengage_penalty",
    "attack_pool",
    "heal",
    "heal_when_burrowed",
    "weapon_drop",
    "enemy_weapon_drop",
    "select_range",
    "lose_status",
    "first_player",
    "activate_next",
    "extra_move",
    "creep_tumor",
    "creep_source",
    "creep_removal",
    "tokens_stay",
    "place",
    "heal_after_place",
    "redirect",
    "remove_activation",
    "lunge",
    "deploy_edge",
    "detector",
    "burrowed_moves",
    "to_reserves",
    "pool_free",
    "deploy_place",
    "respawn",
    "cost_reduction",
    "edge_block",
    "shade",
    "dust_off",
    "summon",
    "structure",
    "no_status",
    "entry_base",
    "coherency",
    "force_field",
    "point_defense",
    "second_charge",
    "move_through",
    "free_climb",
    "recall_contact",
]
EFFECT_KINDS: tuple[str, ...] = get_args(EffectKind)
#: the names a ``weapon_drop`` effect may take away (LONG RANGE, ...)
WEAPON_KEYWORD_NAMES: tuple[str, ...] = tuple(n for n, spec in KEYWORDS.items() if spec.scope in ("weapon", "both"))


class _Frozen(BaseModel):
    # defer_build: a class is defined without building its validator (built on the first validation), so
    # reading a cached roster (mathhammer.profiles.cache) does not pay for it.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        """The card as plain data, as pydantic's ``model_dump()``; called without arguments (``profiles show``), it
        reads the fields itself rather than build pydantic's serializer for a cached card (a test checks both
        give the same for every built-in card)."""
        if kwargs:
            return super().model_dump(**kwargs)
        return {name: _plain(getattr(self, name)) for name in type(self).model_fields}

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return no_bool_number(cls.model_fields[info.field_name or ""].annotation, value)


def _plain(value: Any) -> Any:
    """A field's value as ``model_dump()`` gives it: cards as dicts, lists, tuples and dicts copied."""
    if isinstance(value, _Frozen):
        return value.model_dump()
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _tags(values: list[str]) -> list[str]:
    out = []
    for v in values:
        try:
            out.append(normalise_tag(v, "tag"))
        except InputError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            raise ValueError(f"{v!r} is not a Combat Tag; allowed: {', '.join(COMBAT_TAGS)}{hint}") from None
    return out


def _keyword(text: str, scope: str) -> str:
    try:
        parse_keyword(text, scope, "keyword")
    except InputError as exc:
        raise ValueError(f"{text!r}: allowed: {exc.allowed}" + (f" ({exc.hint})" if exc.hint else "")) from None
    return text


class WeaponProfile(_Frozen):
    """One weapon row of a card."""

    name: str
    phase: Phase
    range: Annotated[int, Field(ge=0, le=999)] | Literal["E"]
    target: Literal["Ground", "Flying", "All"]
    roa: int = Field(ge=0, le=99)
    hit: int = Field(ge=2, le=6)
    surge_types: list[str] = []
    s_dice: str = ""
    damage: int = Field(ge=1, le=99)
    keywords: list[str] = []

    @field_validator("surge_types")
    @classmethod
    def _surge_tags(cls, v: list[str]) -> list[str]:
        return _tags(v)

    @field_validator("s_dice")
    @classmethod
    def _s_dice(cls, v: str) -> str:
        if v:
            try:
                SDice.parse(v)
            except InputError as exc:
                raise ValueError(f"{v!r}: allowed: {exc.allowed}") from None
        return v

    @field_validator("keywords")
    @classmethod
    def _keywords(cls, v: list[str]) -> list[str]:
        return [_keyword(k, "weapon") for k in v]

    @model_validator(mode="after")
    def _surge_pair(self) -> WeaponProfile:
        if bool(self.surge_types) != bool(self.s_dice):
            raise ValueError("surge_types and s_dice go together: both given, or both empty for '-'")
        return self


class Effect(_Frozen):
    """A machine-readable effect of an ability or upgrade (docs/profiles.md, Effects)."""

    kind: EffectKind
    keyword: str = ""
    surge_types: list[str] = []
    weapons: list[str] = []
    within: float | None = Field(default=None, ge=0, le=999)
    vs_tags: list[str] = []
    s_dice: str = ""
    against: Literal["ranged", "close", "all"] = "all"
    value: int = Field(default=0, ge=0, le=99)
    damage: int = Field(default=0, ge=0, le=99)
    on_creep: bool = False
    #: reduce_damage: ``value`` for each model of the unit Within ``within`` of the damaged unit (Life Support)
    per_model: bool = False
    #: reduce_damage: the Total Damage is never reduced below this (Dae'Uhl: "to a minimum of 1"); contest_supply:
    #: the Supply Value is never below this (Freedom Fighters)
    minimum: int = Field(default=0, ge=0, le=99)
    #: reduce_damage on the unit itself, while it is not Activated, paid by counting it as Activated in the Phase
    #: (Zealous Round)
    costs_activation: bool = False
    #: charge_roll: roll this many more D6 for the Charge Distance and use the highest (Metabolic Boost: 1)
    dice: int = Field(default=0, ge=0, le=9)
    #: the effect is for a unit the ability selects (10.1; the plan's ``select``): "friendly" ("Select another
    #: Friendly Unit"), "enemy" ("Select one Enemy Unit"), Within ``within`` of the unit using it
    select: Literal["", "friendly", "enemy"] = ""
    #: weapon_damage: only against a target of this Size or larger (Titan Killers: 3)
    min_size: int = Field(default=0, ge=0, le=10)
    #: with ``select``: the selected unit must be in Line of Sight (10.1) unless the text says "Line of Sight is
    #: not required"
    line_of_sight: bool = True
    #: select_range: the ability (of the same unit) whose selection range becomes ``value`` inches (A-13 Flash
    #: Grenade Launcher: "Increase the Optical Flare special ability's Range to 16\"")
    ability: str = ""
    #: a weapon effect for the unit's first weapon used only ("The active Unit's first Ranged Weapon used gains
    #: CRITICAL HIT (1)"): the first Batch, in Batch order, of the weapons it names
    first_weapon: bool = False
    #: one option of an ability that lets the player choose ("apply one of the following effects: 1 CP: ...";
    #: Orders): its name, for a plan's ``options``, and its cost in the ability's resource
    option: str = ""
    option_cost: int = Field(default=0, ge=0, le=9)
    #: cost_reduction: the resource whose cost it lowers ("CP", "BM", "PE")
    resource: Literal["", "CP", "BM", "PE"] = ""
    #: cost_reduction: only with at least this many Friendly models Within ``within`` of the unit (Psionic Link: 7)
    models_near: int = Field(default=0, ge=0, le=99)
    #: cost_reduction: only for a unit of this Army Slot (Advanced Training: "a Friendly Support Unit")
    slot: str = ""
    #: summon: the Summoned Unit's card (9.1.9: "Roachling", "Pylon", "Omega Worm", "Point Defense Drone")
    unit: str = ""
    #: summon: the unit is removed at the End of the Round (Rapid Ingress: "Remove this Unit at the End of the Round")
    leaves: bool = False

    @field_validator("vs_tags", "surge_types")
    @classmethod
    def _vs(cls, v: list[str]) -> list[str]:
        return _tags(v)

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Effect:
        k = self.kind
        if k == "weapon_keyword":
            if not self.keyword or not self.weapons:
                raise ValueError("weapon_keyword needs keyword and weapons")
            _keyword(self.keyword, "weapon")
        elif k == "weapon_s_dice":
            if not self.s_dice or not self.weapons:
                raise ValueError("weapon_s_dice needs s_dice and weapons")
            WeaponProfile._s_dice(self.s_dice)
        elif k == "weapon_surge":
            if not self.s_dice or not self.weapons or not self.surge_types:
                raise ValueError("weapon_surge needs surge_types, s_dice and weapons")
            WeaponProfile._s_dice(self.s_dice)
        elif k == "unit_keyword":
            if not self.keyword:
                raise ValueError("unit_keyword needs keyword")
            _keyword(self.keyword, "target")
        elif k in ("non_lethal_self", "speed") and self.value <= 0:
            raise ValueError(f"{k} needs value >= 1")
        elif k == "hits" and (self.value <= 0 or self.damage <= 0):
            raise ValueError("hits needs value >= 1 and damage >= 1")
        elif k == "charger_debuff_speed" and (self.value <= 0 or self.within is None):
            raise ValueError("charger_debuff_speed needs value >= 1 and within (inches)")
        elif k == "enemy_weapon_keyword":
            if not self.keyword or not self.weapons or self.within is None:
                raise ValueError("enemy_weapon_keyword needs keyword, weapons and within (inches)")
            _keyword(self.keyword, "weapon")
        elif k in ("weapon_drop", "enemy_weapon_drop"):
            if not self.keyword or not self.weapons:
                raise ValueError(f"{k} needs keyword (a weapon keyword's name) and weapons")
            if self.keyword not in WEAPON_KEYWORD_NAMES:
                raise ValueError(f"{self.keyword!r}: allowed: {', '.join(WEAPON_KEYWORD_NAMES)}")
            if k == "enemy_weapon_drop" and (self.select != "enemy" or self.within is None):
                raise ValueError('enemy_weapon_drop needs select = "enemy" and within (inches)')
        elif k == "lose_status" and self.keyword != "BURROWED":
            raise ValueError("lose_status needs keyword: allowed: BURROWED (the one Status modelled)")
        elif k == "select_range" and (self.value <= 0 or not self.ability):
            raise ValueError("select_range needs ability (the ability's name) and value >= 1 (inches)")
        elif k == "per_model_bonus" and self.value <= 0:
            raise ValueError("per_model_bonus needs value >= 1")
        elif k == "remove_debuffs" and self.within is None:
            raise ValueError("remove_debuffs needs within (inches)")
        elif k == "charge_roll" and self.value <= 0 and self.dice <= 0:
            raise ValueError("charge_roll needs value >= 1 (added to the Charge Distance) or dice >= 1 (more D6)")
        elif k == "contest_supply" and self.value <= 0 and self.minimum <= 0:
            raise ValueError("contest_supply needs value >= 1 (added) or minimum >= 1 (a floor)")
        elif k == "counts_activated" and (self.select != "enemy" or self.within is None):
            raise ValueError('counts_activated needs select = "enemy" and within (inches)')
        elif k == "weapon_damage" and (self.value <= 0 or not self.weapons):
            raise ValueError(
                "weapon_damage needs value >= 1 (the Damage the weapons are treated as having) and weapons"
            )
        elif k == "heal" and (self.value <= 0 or (self.per_model and self.within is None)):
            raise ValueError("heal needs value >= 1 (and within, with per_model)")
        elif k == "attack_pool" and (self.value <= 0 or self.within is None):
            raise ValueError("attack_pool needs value >= 1 (dice taken out) and within (inches)")
        elif k == "armour_near_marker" and (self.value <= 0 or self.within is None):
            raise ValueError("armour_near_marker needs value >= 1 and within (inches)")
        elif k in ("impact_hit", "impact_dice", "disengage_supply", "heal_when_burrowed") and self.value <= 0:
            raise ValueError(f"{k} needs value >= 1")
        elif k == "reduce_damage" and (self.value <= 0 or (self.per_model and self.within is None)):
            raise ValueError("reduce_damage needs value >= 1 (and within, with per_model)")
        elif k == "remove_activation" and self.select != "friendly":
            raise ValueError('remove_activation needs select = "friendly" (the unit activated again)')
        elif (
            k in ("creep_source", "creep_removal", "redirect", "lunge", "deploy_edge", "detector")
            and self.within is None
        ):
            raise ValueError(f"{k} needs within (inches)")
        elif k in ("place", "heal_after_place") and self.value <= 0:
            raise ValueError(f"{k} needs value >= 1 (PLACE (X): inches; HEAL (X))")
        elif k == "move_through" and self.value < 2:
            raise ValueError("move_through needs value >= 2 (the largest Size of IMPASSABLE TERRAIN moved through)")
        elif k == "extra_move" and self.value <= 0:
            raise ValueError("extra_move needs value >= 1 (inches)")
        elif k == "activate_next" and self.select != "friendly":
            raise ValueError('activate_next needs select = "friendly" (the unit Activated next)')
        elif k == "deploy_place" and self.select not in ("", "friendly"):
            raise ValueError(
                'deploy_place: select is "friendly" (PLACE from another Friendly Unit) or none (the Entry Edge)'
            )
        elif k == "to_reserves" and self.select not in ("", "friendly"):
            raise ValueError('to_reserves: select is "friendly" (the unit a Deploy takes the place of) or none')
        if k == "cost_reduction" and (self.value <= 0 or not self.resource):
            raise ValueError('cost_reduction needs value >= 1 and resource ("CP", "BM" or "PE")')
        if k == "summon" and not self.unit:
            raise ValueError("summon needs unit (the Summoned Unit's card name)")
        if k == "dust_off" and (self.select != "friendly" or self.within is None):
            raise ValueError('dust_off needs select = "friendly" (the unit Deployed) and within (inches from enemies)')
        if k == "shade" and self.within is None:
            raise ValueError("shade needs within (inches: the token Wholly Within it of a model of the unit)")
        if self.select and self.within is None and k not in ("activate_next", "deploy_place", "to_reserves"):
            raise ValueError("select needs within (inches): the range the unit is selected in")
        return self


class Ability(_Frozen):
    name: str
    phase: Literal["movement", "assault", "combat", "any", "scoring", "deployment"]
    type: Literal["active", "passive", "reaction"]
    cost: int | Literal["X"] = 0  # "X": the card lets the player choose (the text says how)
    resource: Resource = ""

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: int | str) -> int | str:
        if isinstance(v, int) and not 0 <= v <= 9:
            raise ValueError('a cost from 0 to 9, or "X"')
        return v

    text: str = ""
    effects: list[Effect] = []


class Upgrade(_Frozen):
    name: str
    cost: dict[str, int] = {}
    specialist: bool = False
    replaces: str = ""
    weapons: list[WeaponProfile] = []
    abilities: list[Ability] = []
    stats: dict[Literal["size", "hp", "shield", "evade", "armour", "speed"], Annotated[int, Field(ge=-99, le=99)]] = {}

    @field_validator("cost")
    @classmethod
    def _cost(cls, v: dict[str, int]) -> dict[str, int]:
        for models, minerals in v.items():
            if not models.isdigit() or not 0 <= minerals <= 9999:
                raise ValueError('cost maps a composition\'s models (as a string, e.g. "6") to minerals from 0 to 9999')
        return v


class SupplyBracket(_Frozen):
    models: tuple[Annotated[int, Field(ge=0, le=99)], Annotated[int, Field(ge=0, le=99)]]
    supply: int = Field(ge=0, le=20)


class Composition(_Frozen):
    models: int = Field(ge=1, le=99)
    minerals: int = Field(ge=0, le=9999)
    supply: int = Field(ge=0, le=20)


class UnitCard(_Frozen):
    """A unit card (docs/profiles.md)."""

    faction_tags: list[str]
    combat_tags: list[str]
    army_slot: Slot | Literal["-"]  # "-": the card prints none (a summoned unit)
    combat_role: str = ""
    base_mm: Annotated[int, Field(ge=10, le=200)] | tuple[int, int]  # an oval base: [40, 100]
    size: Annotated[int, Field(ge=0, le=10)] | Literal["-"]  # "-": printed as such
    hp: int = Field(ge=1, le=99)
    shield: int = Field(default=0, ge=0, le=99)
    evade: Annotated[int, Field(ge=2, le=6)] | Literal["-"]  # "-": no Evade characteristic, never an Evade Roll
    armour: int = Field(ge=2, le=6)
    speed: list[int] | Literal["-"]  # [4, 7] for "4/7", [7] for "7", "-" for none
    unique: bool = False
    summoned: bool = False
    supply: list[SupplyBracket]
    compositions: list[Composition]
    weapons: list[WeaponProfile] = []
    abilities: list[Ability] = []
    upgrades: list[Upgrade] = []
    source: str = ""

    @field_validator("combat_tags")
    @classmethod
    def _combat(cls, v: list[str]) -> list[str]:
        return _tags(v)

    @field_validator("speed")
    @classmethod
    def _speed(cls, v: list[int] | str) -> list[int] | str:
        if isinstance(v, list) and not (1 <= len(v) <= 2 and all(0 <= x <= 30 for x in v)):
            raise ValueError('speed as printed: [4, 7] for "4/7", [7] for "7", or "-"')
        return v

    @model_validator(mode="after")
    def _consistent(self) -> UnitCard:
        sizes = {c.models for c in self.compositions}
        for up in self.upgrades:
            unknown = set(up.cost) - {str(s) for s in sizes}
            if unknown:
                raise ValueError(
                    f"upgrade {up.name!r} has costs for {sorted(unknown)} models; compositions have {sorted(sizes)}"
                )
            names = {w.name for w in self.weapons}
            if up.replaces and up.replaces not in names:
                raise ValueError(f"upgrade {up.name!r} replaces {up.replaces!r}, not a weapon of this card: {names}")
        for c in self.compositions:
            if not any(b.models[0] <= c.models <= b.models[1] for b in self.supply):
                raise ValueError(f"composition of {c.models} models is in no Models/Supply bracket")
        return self


class FactionCard(_Frozen):
    tags: list[str]
    slots: dict[Slot, Annotated[int, Field(ge=0, le=99)]]
    unique: bool = False
    resource: Resource = ""
    resource_per_round: int = Field(default=0, ge=0, le=9)
    abilities: list[Ability] = []
    source: str = ""


class TacticalCard(_Frozen):
    tags: list[str]
    vespene: int = Field(ge=0, le=999)
    slots: dict[Slot, Annotated[int, Field(ge=0, le=99)]] = {}
    unique: bool = False
    resource: Resource = ""
    resource_per_round: int = Field(default=0, ge=0, le=9)
    abilities: list[Ability] = []
    source: str = ""


class Source(_Frozen):
    document: str
    version: str


class ProfileFile(_Frozen):
    """One TOML file of profiles."""

    source: Source
    units: dict[str, UnitCard] = {}
    factions: dict[str, FactionCard] = {}
    tactical: dict[str, TacticalCard] = {}
    creep: dict[str, TacticalCard] = {}
