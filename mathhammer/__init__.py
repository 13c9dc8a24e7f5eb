"""mathhammer: exact and Monte Carlo combat maths for tabletop wargames.

Everything a notebook needs is here, flat, the same for every game system.
Values are immutable; every input error is an :class:`InputError` (a
``ValueError``) naming the argument, the value and what is allowed.

>>> import mathhammer as mh
>>> r = mh.attack("Zergling", "Marine", phase="combat")
>>> 0 < r.models_destroyed.mean < 6
True
>>> mh.attack("Robot Warriors", "Saurian Warriors", system="gf", cover=True).wounds.mean
1.25
>>> claws = mh.Weapon.build("Claws", roa=2, hit=4, surge="Light:D3")
>>> marines = mh.Target.build(6, 2, armour=5, evade=5, tags="Biological,Light,Ground")
>>> 0 < mh.run(mh.Batch(claws, models=8), marines).models_destroyed.mean < 6
True

Importing this package does not import numpy, pydantic, numba, pandas or
matplotlib: the names above load on first use, the Monte Carlo engine compiles
on first use, and tables and plots import their libraries when called.
"""

from typing import TYPE_CHECKING, Any

from .errors import InputError, MathhammerError

if TYPE_CHECKING:  # pragma: no cover
    from .api import attack, compare, matchup, roster, run, unit
    from .dice import SDice
    from .engine.options import RunOptions
    from .grimdark.model import Attacker, Defender, Hero, WeaponGroup
    from .results import Distribution, Result
    from .starcraft.model import Attack, Batch, ModelGroup, Target, Weapon

__all__ = [
    "Attack",
    "Attacker",
    "Batch",
    "Defender",
    "Distribution",
    "Hero",
    "InputError",
    "MathhammerError",
    "ModelGroup",
    "Result",
    "RunOptions",
    "SDice",
    "Target",
    "Weapon",
    "WeaponGroup",
    "attack",
    "compare",
    "matchup",
    "roster",
    "run",
    "unit",
]
__version__ = "0.1.0"

#: Subpackages reachable as attributes after ``import mathhammer as mh`` (``mh.report.sweep``,
#: ``mh.scenario.simulate``), imported on first use so that ``import mathhammer`` stays light.
_SUBPACKAGES = ("board", "engine", "grimdark", "profiles", "report", "scenario", "starcraft", "systems")

#: The flat names of the API and the module each comes from, imported on first use: ``import mathhammer``
#: (and so every ``mathhammer`` command, ``--help`` included) loads neither numpy nor pydantic by itself.
_FLAT = {
    **dict.fromkeys(("attack", "compare", "matchup", "roster", "run", "unit"), ".api"),
    "SDice": ".dice",
    "RunOptions": ".engine.options",
    "Distribution": ".results",
    "Result": ".results",
    **dict.fromkeys(("Attack", "Batch", "ModelGroup", "Target", "Weapon"), ".starcraft.model"),
    # Grimdark Future's ad-hoc objects, loaded with that system on first use.
    **dict.fromkeys(("Attacker", "Defender", "Hero", "WeaponGroup"), ".grimdark.model"),
}


def __getattr__(name: str) -> Any:
    import importlib

    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _FLAT:
        value = getattr(importlib.import_module(_FLAT[name], __name__), name)
        globals()[name] = value  # the next look-up is a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBPACKAGES})
