"""The Charge Roll and the chance it covers a Charge distance (rulebook 8.7.7 step 2).

The Charge Roll (8.7.7 step 2): "Roll 1D6 and add it to the Unit's Speed. This is the Charge Roll
Distance" (Abathur's TIP: "The Charge Roll is your Speed plus 1D6"). :func:`charge_probability` is
P(Speed + 1D6 >= distance).

Split Speed values. The cards print one Speed ("7": Goliath, Jim Raynor, Artanis, Kerrigan; "4":
Queen), none ("-": Pylon, Omega Worm, Point Defense Drone) or two ("4/7": Marine, Zealot, Roach ...;
"4/8", "5/8", "5/9"); the profiles store them as printed (``[7]``, ``"-"``, ``[4, 7]``). The card sheets
print no legend for the two numbers, and the rule for them is in Part 5.1 (8.5.3: "move it up to the
Unit's Speed (see Part 5.1 for split Speed values)"), which is not in the rulebook seed. What the text
and cards do support: 8.7.7 adds the D6 to "the Unit's Speed", the same words as for a Move, and cards
name one "Speed characteristic" (Zealot CHARGE: "use the higher result to add to the Unit's Speed
characteristic"); a ground/flying reading is refuted by the cards (every unit with a split Speed is a
Ground unit; the only Flying unit prints "-"). So :func:`speed_values` returns both printed numbers
and :func:`charge_probabilities` gives the chance under each, labelled; nothing here picks one of the
two silently (``mathhammer board charge --card`` prints both unless ``--speed N`` is given). A unit
printing "-" never moves and cannot Charge (refused).

>>> charge_probability(8.0, 6)
0.8333333333333334
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import InputError


def _check_speed(speed: int) -> int:
    if isinstance(speed, bool) or not isinstance(speed, int) or speed < 0:
        raise InputError("speed", speed, "the Unit's Speed, a whole number of inches, 0 or more")
    return speed


def charge_probability_exact(distance: float, speed: int) -> Fraction:
    """P(Speed + 1D6 >= distance) as a fraction (8.7.7 step 2: "Roll 1D6 and add it to the Unit's Speed").

    >>> charge_probability_exact(9, 6)
    Fraction(2, 3)
    """
    speed = _check_speed(speed)
    if isinstance(distance, bool) or not isinstance(distance, int | float) or math.isnan(distance) or distance < 0:
        raise InputError("distance", distance, "a distance in inches, 0 or more (inf when unreachable)")
    need = distance - speed  # the die must show at least this
    if need <= 1:
        return Fraction(1)
    if need > 6:
        return Fraction(0)
    return Fraction(6 - math.ceil(need - 1e-9) + 1, 6)


def charge_probability(distance: float, speed: int) -> float:
    """P(Speed + 1D6 >= distance): the chance a Charge Roll Distance covers ``distance`` inches (8.7.7)."""
    return float(charge_probability_exact(distance, speed))


def speed_values(speed: object, where: str = "speed") -> tuple[int, ...]:
    """The Speed numbers a card prints: ``(7,)`` for "7", ``(4, 7)`` for "4/7" (see the module text).

    >>> speed_values([4, 7]), speed_values([7]), speed_values(6)
    ((4, 7), (7,), (6,))

    Raises:
        InputError: ``"-"`` (no Speed: the unit never moves, so it cannot Charge) or not a Speed.
    """
    if speed == "-":
        raise InputError(where, "-", "a unit with a Speed: a card printing Speed '-' never moves, so it cannot Charge")
    values = [speed] if isinstance(speed, int) else list(speed) if isinstance(speed, list | tuple) else None
    if not values or len(values) > 2 or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise InputError(where, speed, 'a Speed as printed: a whole number, or two for a split Speed ("4/7")')
    return tuple(dict.fromkeys(values))


def charge_probabilities(distance: float, speed: object) -> dict[int, float]:
    """P(Speed + 1D6 >= distance) for every Speed number the card prints (a split "4/7" gives two).

    >>> charge_probabilities(10.5, [4, 7])
    {4: 0.0, 7: 0.5}
    """
    return {v: charge_probability(distance, v) for v in speed_values(speed)}


__all__ = ["charge_probabilities", "charge_probability", "charge_probability_exact", "speed_values"]
