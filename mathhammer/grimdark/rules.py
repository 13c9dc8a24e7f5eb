"""Special rules of One Page Rules: Grimdark Future, parsed from text or objects.

A rule is written as on a unit card, ``"AP(1)"``, ``"Blast(3)"``,
``"Rending"``, or as an object ``{"name": "AP", "rating": 1}`` (the rating
may be a number or a digit string). Names are matched without regard to
case, spaces and hyphens (``"lock on"`` is ``Lock-On``). A rule this package
does not model is never ignored: it raises :class:`~mathhammer.errors.InputError`
naming the field, the rule and the known rules, with a "did you mean".

Scopes: ``weapon`` rules are written on a :class:`~mathhammer.grimdark.model.Weapon`
(Furious, Relentless and Impact are model rules in the core rules; here they
are written on the weapon of the models that have them, so that the number
of models is known); ``unit`` rules on a :class:`~mathhammer.grimdark.model.Defender`
or its :class:`~mathhammer.grimdark.model.Hero`.

>>> parse_rules(["AP(1)", {"name": "blast", "rating": "3"}, "Rending"], "weapon", "rules")
(Rule(name='AP', rating=1), Rule(name='Blast', rating=3), Rule(name='Rending', rating=None))
>>> parse_rule("Rendin", "weapon", "weapon.rules[0]")
Traceback (most recent call last):
...
mathhammer.errors.InputError: weapon.rules[0]: got 'Rendin'; allowed: ... (did you mean 'Rending'?)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError

#: Known rules: name -> (scope, takes a rating (X), smallest rating).
#: The wording each rule is modelled from, its source and version are quoted
#: where it is applied (:mod:`mathhammer.grimdark.compiled`). ``Bane`` is the
#: v3.5 name of ``Poison`` (the same effect).
KNOWN: dict[str, tuple[str, bool, int]] = {
    "AP": ("weapon", True, 0),
    "Blast": ("weapon", True, 1),
    "Deadly": ("weapon", True, 1),
    "Rending": ("weapon", False, 0),
    "Reliable": ("weapon", False, 0),
    "Lock-On": ("weapon", False, 0),
    "Indirect": ("weapon", False, 0),
    "Poison": ("weapon", False, 0),
    "Bane": ("weapon", False, 0),
    "Relentless": ("weapon", False, 0),
    "Furious": ("weapon", False, 0),
    "Impact": ("weapon", True, 1),
    "Destructive": ("weapon", False, 0),
    "Surge": ("weapon", False, 0),
    "Shred": ("weapon", False, 0),
    "Unstoppable": ("weapon", False, 0),
    "Precise": ("weapon", False, 0),
    "Counter": ("weapon", False, 0),
    "Thrust": ("weapon", False, 0),
    "Lance": ("weapon", False, 0),
    "Takedown": ("weapon", False, 0),
    "Sniper": ("weapon", False, 0),
    "Tough": ("unit", True, 1),
    "Regeneration": ("unit", False, 0),
    "Fear": ("unit", True, 1),
    "Banner": ("unit", False, 0),
    "Morale": ("unit", True, 1),
    "Stealth": ("unit", False, 0),
    "Artillery": ("unit", False, 0),
    "Entrenched": ("unit", False, 0),
    "Shielded": ("unit", False, 0),
    "Versatile Attack": ("unit", False, 0),
    "Slayer": ("unit", False, 0),
}

_RATING_MAX = 99


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


_BY_KEY = {_key(n): n for n in KNOWN}


@dataclass(frozen=True)
class Rule:
    """One special rule.

    Attributes:
        name: the rule's name as the core rules spell it (``"Lock-On"``).
        rating: the X of ``Rule(X)``, or None for rules without one.
    """

    name: str
    rating: int | None = None

    def __str__(self) -> str:
        return self.name if self.rating is None else f"{self.name}({self.rating})"


def known_rules(scope: str) -> str:
    """The known rules of a scope, written for an error message."""
    return ", ".join(n + ("(X)" if KNOWN[n][1] else "") for n in KNOWN if KNOWN[n][0] == scope)


def _unknown(field: str, value: object, name: str, scope: str) -> InputError:
    names = [n for n in KNOWN if KNOWN[n][0] == scope]
    close = difflib.get_close_matches(_key(name), [_key(n) for n in names], n=1, cutoff=0.6)
    others = [n for n in KNOWN if KNOWN[n][0] != scope and _key(n) == _key(name)]
    hint = f"did you mean {_BY_KEY[close[0]]!r}?" if close else ""
    if others:
        hint = f"{others[0]} is a {KNOWN[others[0]][0]} rule, not a {scope} rule"
    return InputError(field, value, f"a known {scope} rule: {known_rules(scope)}", hint)


def parse_rule(value: str | Mapping[str, object] | Rule, scope: str, field: str) -> Rule:
    """Parse one rule of ``scope`` (``"weapon"`` or ``"unit"``); errors name ``field``.

    >>> parse_rule("Deadly(3)", "weapon", "rules")
    Rule(name='Deadly', rating=3)
    >>> parse_rule({"name": "Tough", "rating": "6"}, "unit", "rules")
    Rule(name='Tough', rating=6)
    """
    rating: object
    if isinstance(value, Rule):
        name, rating = value.name, value.rating
    elif isinstance(value, Mapping):
        if "name" not in value or set(value) - {"name", "rating"}:
            raise InputError(field, value, 'a rule object {"name": ..., "rating": ...} (rating optional)')
        name, rating = str(value["name"]), value.get("rating")
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*([A-Za-z][A-Za-z \-_]*?)\s*(?:\(\s*([^)]*?)\s*\))?\s*", value)
        if not match:
            raise InputError(field, value, 'a rule written Name or Name(X), e.g. "AP(1)" or "Rending"')
        name, rating = match.group(1), match.group(2)
    else:
        raise InputError(field, value, 'a rule: text such as "AP(1)" or an object {"name": "AP", "rating": 1}')
    canonical = _BY_KEY.get(_key(name))
    if canonical is None or KNOWN[canonical][0] != scope:
        raise _unknown(field, value, name, scope)
    _, rated, lo = KNOWN[canonical]
    if not rated:
        if rating is not None:
            raise InputError(field, value, f"{canonical} without a rating (written {canonical})")
        return Rule(canonical)
    if rating is None:
        raise InputError(field, value, f"{canonical}(X) with a rating, e.g. {canonical}({max(lo, 1)})")
    allowed = f"{canonical}(X) with X a whole number from {lo} to {_RATING_MAX}"
    if isinstance(rating, bool):
        raise InputError(field, value, allowed)
    if isinstance(rating, float) and not rating.is_integer():
        raise InputError(field, value, allowed)
    try:
        number = int(rating) if isinstance(rating, int | float) else int(str(rating).strip())
    except ValueError:
        raise InputError(field, value, allowed) from None
    if not lo <= number <= _RATING_MAX:
        raise InputError(field, value, allowed)
    return Rule(canonical, number)


def parse_rules(values: Iterable[str | Mapping[str, object] | Rule] | str, scope: str, field: str) -> tuple[Rule, ...]:
    """Parse a list of rules (or one comma-separated string); a rule given twice is an error."""
    if isinstance(values, str):
        values = [v for v in re.split(r",(?![^()]*\))", values) if v.strip()]
    rules: list[Rule] = []
    for i, value in enumerate(values):
        rule = parse_rule(value, scope, f"{field}[{i}]")
        if any(r.name == rule.name for r in rules):
            raise InputError(f"{field}[{i}]", value, f"each rule at most once ({rule.name} is given twice)")
        rules.append(rule)
    return tuple(rules)


def rating(rules: Iterable[Rule], name: str, default: int = 0) -> int:
    """The rating of rule ``name`` in ``rules``, or ``default`` when absent."""
    for r in rules:
        if r.name == name:
            return default if r.rating is None else r.rating
    return default


def has(rules: Iterable[Rule], name: str) -> bool:
    """True when ``name`` is among ``rules``."""
    return any(r.name == name for r in rules)
