"""Dice algebra shared by every game system: target numbers and S Dice.

A target number ``t`` (written ``t+``) succeeds on a d6 result ``>= t``. After
all modifiers it is clamped to 2..6 (rulebook part 11, MODIFIER), which folds
in "a natural 1 always fails, a natural 6 always succeeds":

>>> clamp_target(1), clamp_target(4), clamp_target(8)
(2, 4, 6)
>>> success_probability(4)
0.5

S Dice are written ``NdM+K`` (``D3``, ``D3+1``, ``2D3+1``, ``D6``); a bare
integer is a fixed result (a template's Surge result, 8.7.6):

>>> SDice.parse("D3+1").pmf().tolist()
[0.0, 0.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
>>> SDice.parse("2D3").mean
4.0
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use: importing this module loads none
    from .lazy import numpy as np

from .errors import InputError

SDICE_ALLOWED = "dice written NdM+K, e.g. D3, D3+1, D6, 2D3+1 (N 1-20, M 2-20, K 0-20), or a fixed integer 0-50"
_SDICE_RE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:\+\s*(\d+))?\s*$")


def clamp_target(target: int) -> int:
    """Clamp a modified target number to 2..6 (part 11, MODIFIER; 3.6)."""
    return min(6, max(2, int(target)))


def success_probability(target: int) -> float:
    """Probability that one d6 meets a (clamped) target number."""
    return (7 - clamp_target(target)) / 6.0


def success_mask(target: int) -> int:
    """Bitmask with bit ``r`` set when a d6 result ``r`` (1..6) succeeds.

    Used by the per-die kernels: ``(mask >> r) & 1`` is the success test.

    >>> bin(success_mask(4))
    '0b1110000'
    """
    t = clamp_target(target)
    return sum(1 << r for r in range(t, 7))


@dataclass(frozen=True)
class SDice:
    """An S Dice characteristic: ``n`` dice with ``sides`` faces, plus ``bonus``.

    ``n == 0`` means a fixed result equal to ``bonus``.
    """

    n: int
    sides: int
    bonus: int

    @classmethod
    def parse(cls, text: str, field: str = "S Dice") -> SDice:
        """Parse ``D3``, ``D3+1``, ``2D3+1``, ``D6`` or a fixed integer.

        >>> SDice.parse("2d3+1")
        SDice(n=2, sides=3, bonus=1)
        >>> SDice.parse("D0")
        Traceback (most recent call last):
        ...
        mathhammer.errors.InputError: S Dice: got 'D0'; allowed: dice written NdM+K, ...
        """
        raw = str(text).strip()
        if raw.isdigit():
            value = int(raw)
            if value > 50:
                raise InputError(field, text, SDICE_ALLOWED)
            return cls(0, 1, value)
        m = _SDICE_RE.match(raw)
        if not m:
            raise InputError(field, text, SDICE_ALLOWED)
        n = int(m.group(1)) if m.group(1) else 1
        sides = int(m.group(2))
        bonus = int(m.group(3)) if m.group(3) else 0
        if not (1 <= n <= 20 and 2 <= sides <= 20 and 0 <= bonus <= 20):
            raise InputError(field, text, SDICE_ALLOWED)
        return cls(n, sides, bonus)

    def __str__(self) -> str:
        if self.n == 0:
            return str(self.bonus)
        head = f"{self.n if self.n > 1 else ''}D{self.sides}"
        return head + (f"+{self.bonus}" if self.bonus else "")

    @property
    def max(self) -> int:
        return self.n * self.sides + self.bonus

    @property
    def mean(self) -> float:
        return self.n * (self.sides + 1) / 2 + self.bonus

    def pmf(self) -> np.ndarray:
        """``pmf[k]`` = P(result = k), for k = 0..max."""
        out = np.zeros(self.max + 1)
        if self.n == 0:
            out[self.bonus] = 1.0
            return out
        one = np.zeros(self.sides + 1)
        one[1:] = 1.0 / self.sides
        acc = np.array([1.0])
        for _ in range(self.n):
            acc = np.convolve(acc, one)
        out[self.bonus : self.bonus + acc.size] = acc
        return out
