"""The Monte Carlo engine: numba kernels behind two functions.

Importing this package is cheap: numba is imported and the kernels are
compiled (or loaded from numba's cache) on the first call.

Results depend only on the chain, the seed and the number of trials: the
random numbers of trial ``i`` come from ``(seed, i)``, so the same seed gives
bit-identical Tallies for any thread count and chunk size, and
``simulate_adaptive`` returns exactly ``simulate`` at the trial count where it
stopped.

>>> from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
>>> from mathhammer.starcraft.compiled import compile_attack
>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1)
>>> batches, target = compile_attack(Attack((Batch(rifle, models=5),), Target.build(6, 1, armour=5)))
>>> tally = simulate(batches, target, trials=10_000, seed=1)
>>> tally.trials, int(tally.models_destroyed.sum())
(10000, 10000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..outcome import Tally
    from ..starcraft.compiled import CompiledBatch, CompiledTarget

__all__ = ["simulate", "simulate_adaptive"]


def simulate(
    batches: Sequence[CompiledBatch],
    target: CompiledTarget,
    trials: int,
    seed: int = 0,
    method: str = "count",
    chunk_size: int = 65536,
) -> Tally:
    """Simulate a compiled chain ``trials`` times; a Monte Carlo :class:`~mathhammer.outcome.Tally`.

    Args:
        batches: the compiled Batches, resolved in order.
        target: the compiled target.
        trials: number of trials (at least 1).
        seed: 0 to 2**64 - 1; the same seed gives the same Tally.
        method: ``"count"`` (binomial draws from tables, fast) or ``"die"``
            (every d6 rolled; the reference path). Same distribution, different
            random numbers.
        chunk_size: trials per scheduling chunk; does not change the result.

    Raises:
        InputError: a bad ``trials``, ``seed``, ``method`` or ``chunk_size``.
    """
    from .driver import simulate as run

    return run(batches, target, trials, seed=seed, method=method, chunk_size=chunk_size)


def simulate_adaptive(
    batches: Sequence[CompiledBatch],
    target: CompiledTarget,
    tolerance: float,
    seed: int = 0,
    method: str = "count",
    min_trials: int = 100_000,
    max_trials: int = 1_000_000_000,
) -> Tally:
    """Simulate until the standard errors of mean Damage and of P(unit destroyed) are both <= ``tolerance``.

    The errors are checked only at ``min_trials``, then at every doubling
    (capped at ``max_trials``), so the result depends on the seed and the
    arguments only, and equals ``simulate(batches, target, tally.trials, seed)``.
    Stops at ``max_trials`` even when the tolerance is not met.

    Raises:
        InputError: ``tolerance`` not above 0, or bad trial counts, seed or method.
    """
    from .driver import simulate_adaptive as run

    return run(batches, target, tolerance, seed=seed, method=method, min_trials=min_trials, max_trials=max_trials)
