"""mathhammer: exact and Monte Carlo combat maths for tabletop wargames.

Everything a notebook needs is here, flat. Values are immutable; every input
error is an :class:`InputError` (a ``ValueError``) naming the field, the value
and what is allowed.

>>> from mathhammer import Weapon, Batch, Target, run
>>> claws = Weapon.build("Claws", roa=2, hit=4, surge="Light:D3")
>>> marines = Target.build(6, 2, armour=5, evade=5, tags="Biological,Light,Ground")
>>> r = run(Batch(claws, models=8), marines)
>>> 0 < r.models_destroyed.mean < 6
True

Importing this package does not import numba, pandas or matplotlib: the
Monte Carlo engine compiles on first use, and tables and plots import their
libraries when called.
"""

from .api import run
from .dice import SDice
from .errors import InputError, MathhammerError
from .results import Distribution, Result
from .starcraft.model import Attack, Batch, ModelGroup, Target, Weapon

__all__ = [
    "Attack",
    "Batch",
    "Distribution",
    "InputError",
    "MathhammerError",
    "ModelGroup",
    "Result",
    "SDice",
    "Target",
    "Weapon",
    "run",
]
__version__ = "0.1.0"
