"""The morale test of Grimdark Future: when it is due, its Quality and modifiers, and P(passed).

GF v3.5.1 core rules, Morale (quoted in :mod:`mathhammer.grimdark.compiled`); GF v3.5 common rules: Fearless,
Banner, Morale(X). Both engines and the melee read these; ``target`` is a
:class:`~mathhammer.grimdark.compiled.CompiledTarget` (duck-typed here, so that this module sits below it).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .model import Defender
from .rules import has, rating

#: Fearless (GF v3.5 common rules): "When a unit where all models have this rule fails a morale test, roll
#: one die. On a 4+ it counts as passed instead."
FEARLESS_PASS = 4


def morale_due(target: Any, i: int, w: int) -> bool:
    """A test when the unit ends with "half or less of its starting size or tough value (for units
    with a single model)" (GF v3.5.1 core rules, Morale): models left against the starting size,
    or one Tough model's wounds left against its Tough.

    >>> from .compiled import compile_target
    >>> t = compile_target(Defender(3, starting_models=5))
    >>> morale_due(t, 0, 0), morale_due(t, 1, 0)   # 3 of 5 left: above half; 2 of 5: half or less
    (False, True)
    """
    m = target.models
    if i >= m or not target.wounds_test:
        return False  # destroyed: no unit left to test; after melee, the melee result decides
    start = target.starting_size
    if target.single_tough:
        return 2 * (int(target.tough[0]) - w) <= start
    # the models not there at the start of the attack were lost before it
    return 2 * (m - i) <= start


def morale_pass_probability(quality: int, fearless: bool) -> Fraction:
    """P(a morale test is passed): "one regular Quality test" (GF v3.5.1 core rules, Morale), passed on a
    roll of ``quality`` or more (Quality 2+ to 6+: a 1 always fails, a 6 always passes); with Fearless, a
    failed test rolls one die more and "On a 4+ it counts as passed instead" (GF v3.5 common rules).

    >>> morale_pass_probability(4, False), morale_pass_probability(4, True), morale_pass_probability(3, True)
    (Fraction(1, 2), Fraction(3, 4), Fraction(5, 6))
    """
    p = Fraction(7 - quality, 6)
    if fearless:
        p += (1 - p) * Fraction(7 - FEARLESS_PASS, 6)
    return p


def morale_bonus(defender: Defender, unit: bool) -> int:
    """The modifier to the morale test roll (GF v3.5 common rules): Banner, "This model and its unit get +1
    to morale test rolls" (the unit's or its joined hero's), and Morale(X), "Gets +X to morale test rolls";
    ``unit``: while the unit's models stand (else the hero alone: its own). The total is capped at +1, as
    every roll's modifiers (seed: "łączna wartość modyfikatorów ... nie może przekroczyć +1 ani -1").

    >>> from .model import Hero
    >>> morale_bonus(Defender(5, hero=Hero(2, rules=("Banner",))), True), morale_bonus(Defender(5), True)
    (1, 0)
    """
    hero = defender.hero
    if unit:  # the unit's rules and its hero's (the hero takes the test on the unit's behalf)
        rules = tuple(defender.rules) + (tuple(hero.rules) if hero is not None else ())
    else:
        rules = tuple(hero.rules) if hero is not None else tuple(defender.rules)
    bonus = (1 if has(rules, "Banner") else 0) + max((rating((r,), "Morale") for r in rules), default=0)
    return min(1, bonus)


def _with_bonus(quality: int, bonus: int) -> int:
    """A Quality test's target with ``bonus`` added to the roll: a natural 1 always fails, a 6 always passes."""
    return max(2, min(6, quality - bonus))


def morale_quality(defender: Defender) -> int:
    """The Quality of the unit's morale test: a joined hero "may take morale tests on behalf of the unit"
    ([BG 3.4.1] Hero), so the better (lower) of the unit's and the hero's.

    >>> from .model import Hero
    >>> morale_quality(Defender(5, quality=5, hero=Hero(3, quality=3))), morale_quality(Defender(5, quality=4))
    (3, 4)
    """
    hero = defender.hero
    if hero is None or hero.quality is None:
        return defender.quality
    return min(defender.quality, hero.quality)
