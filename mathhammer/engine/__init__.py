"""The Monte Carlo engine: numba kernels behind two functions, :func:`simulate` and :func:`simulate_adaptive`.

Importing this package is cheap: the functions live in
:mod:`mathhammer.engine.driver`, which is imported (with numba) on first use,
and the kernels are compiled or loaded from numba's cache on the first call.

Results depend only on the chain, the seed and the number of trials: the
random numbers of trial ``i`` come from ``(seed, i)``, so the same seed gives
bit-identical Tallies for any thread count and chunk size, and
``simulate_adaptive`` returns exactly ``simulate`` at the trial count where it
stopped.

>>> from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
>>> from mathhammer.starcraft.compiled import compile_attack
>>> from mathhammer.engine import simulate
>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1)
>>> batches, target = compile_attack(Attack((Batch(rifle, models=5),), Target.build(6, 1, armour=5)))
>>> tally = simulate(batches, target, trials=10_000, seed=1)
>>> tally.trials, int(tally.models_destroyed.sum())
(10000, 10000)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .driver import simulate, simulate_adaptive

__all__ = ["simulate", "simulate_adaptive"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import driver

        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
