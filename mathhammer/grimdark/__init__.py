"""One Page Rules: Grimdark Future, the second game system.

One attack of a unit's weapon groups against one target unit, exactly
(:func:`grimdark_exact`) or by Monte Carlo (:func:`grimdark_simulate`); both
return a :class:`~mathhammer.outcome.Tally` (see :func:`grimdark_exact` for
what its histograms mean). Values are immutable and validated
(:mod:`mathhammer.grimdark.model`); special rules are parsed by
:mod:`mathhammer.grimdark.rules`, and a rule not modelled is an error.

Importing this package does not import numba; :func:`grimdark_simulate`
loads the engine on first use.

>>> from mathhammer.grimdark import Attacker, Defender, Weapon, WeaponGroup, grimdark_exact
>>> robots = Attacker((WeaponGroup(5, Weapon("Rifle", attacks=1, range=24, rules=("AP(1)",))),), quality=4)
>>> tally = grimdark_exact(robots, Defender(models=5, defense=4, cover=True))
>>> round(float(tally.models_destroyed @ range(6)), 12)
1.25
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .compiled import CompiledAttack, compile_attack
from .exact import grimdark_exact, morale_fail_probability
from .melee import Fighter, Melee
from .model import Attacker, Defender, Hero, Weapon, WeaponGroup
from .rules import KNOWN, Rule, parse_rule, parse_rules

if TYPE_CHECKING:  # pragma: no cover
    from .engine import grimdark_simulate

__all__ = [
    "KNOWN",
    "Attacker",
    "CompiledAttack",
    "Defender",
    "Fighter",
    "Hero",
    "Melee",
    "Rule",
    "Weapon",
    "WeaponGroup",
    "compile_attack",
    "grimdark_exact",
    "grimdark_simulate",
    "morale_fail_probability",
    "parse_rule",
    "parse_rules",
]


def __getattr__(name: str) -> Any:
    """``grimdark_simulate`` (numba) and the package's modules (``mh.grimdark.profiles``) load on first use."""
    if name == "grimdark_simulate":
        from .engine import grimdark_simulate

        return grimdark_simulate
    from ..lazy import submodule

    return submodule(__name__, name)
