"""StarCraft TMG's cards as plain frozen values: what the read-only commands read, without pydantic loaded.

A card validated by the schema (:mod:`mathhammer.starcraft.schema`, pydantic) is turned by :func:`plain` into
an object of the same class name with the same fields, in the same order, with the same values (nested cards
as plain cards, lists as lists): the attributes the engines read (``card.hp``, ``weapon.keywords``), equality
and hashing as pydantic's (same class and same fields), ``model_dump()`` and ``model_copy(update=...)``.
Importing this module loads no pydantic, so a cached roster of plain cards
(:func:`mathhammer.starcraft.roster.load_roster` with ``plain=True``) costs nothing but unpickling; code that
validates or builds cards (scenarios) keeps the pydantic ones.

>>> from mathhammer.starcraft.roster import load_roster
>>> marine = load_roster(plain=True).unit("Marine").card
>>> type(marine).__name__, marine.hp, marine.weapons[0].name
('UnitCard', 2, 'C-14 Rifle')
>>> marine.model_copy(update={"hp": 3}).hp, marine.hp
(3, 2)
"""

from __future__ import annotations

from typing import Any


class PlainCard:
    """A card's fields as attributes, frozen; the subclasses differ only by name (as the schema's models)."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: {name} cannot be set")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: {name} cannot be deleted")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    def model_dump(self, *, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The card as plain data, as pydantic's ``model_dump()`` (``include``/``exclude``: top-level field names)."""
        return {
            k: _dump(v)
            for k, v in self.__dict__.items()
            if (include is None or k in include) and (exclude is None or k not in exclude)
        }

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy with ``update``'s fields replaced (not validated, as pydantic's ``model_copy``)."""
        fields = dict(self.__dict__)
        if deep:
            import copy

            fields = copy.deepcopy(fields)
        fields.update(update or {})
        return type(self)(**fields)


def _dump(value: Any) -> Any:
    if isinstance(value, PlainCard):
        return value.model_dump()
    if isinstance(value, list | tuple):
        return type(value)(_dump(v) for v in value)
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


class WeaponProfile(PlainCard):
    pass


class Effect(PlainCard):
    pass


class Ability(PlainCard):
    pass


class Upgrade(PlainCard):
    pass


class SupplyBracket(PlainCard):
    pass


class Composition(PlainCard):
    pass


class UnitCard(PlainCard):
    pass


class FactionCard(PlainCard):
    pass


class TacticalCard(PlainCard):
    pass


class Source(PlainCard):
    pass


#: The plain class of each schema model, by name.
CLASSES: dict[str, type[PlainCard]] = {
    c.__name__: c
    for c in (
        WeaponProfile,
        Effect,
        Ability,
        Upgrade,
        SupplyBracket,
        Composition,
        UnitCard,
        FactionCard,
        TacticalCard,
        Source,
    )
}


def plain(value: Any) -> Any:
    """``value`` with every validated card in it (a pydantic model of the schema) as its plain card: fields read
    in the model's order, lists, tuples and dicts rebuilt, other values as they are."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:
        return CLASSES[type(value).__name__](**{name: plain(getattr(value, name)) for name in fields})
    if isinstance(value, list | tuple):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
