"""The Python API: resolve an attack exactly or by Monte Carlo.

>>> from mathhammer import Weapon, Batch, Target, run
>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, surge="Light:D3")
>>> lings = Target.build(8, 1, armour=6, evade=5, tags="Biological,Light,Ground")
>>> r = run(Batch(rifle, models=6), lings)
>>> round(r.damage.mean, 4), r.engine
(7.0, 'exact')
>>> mc = run(Batch(rifle, models=6), lings, trials=200_000, seed=1)
>>> abs(mc.damage.mean - r.damage.mean) < 5 * mc.damage.stderr
True
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InputError
from .results import Result
from .starcraft.compiled import compile_attack
from .starcraft.model import Attack, Batch, Target

ENGINES = ("exact", "monte-carlo")
_ENGINE_ALIASES = {"exact": "exact", "monte-carlo": "monte-carlo", "mc": "monte-carlo", "montecarlo": "monte-carlo"}


def run(
    attack: Attack | Batch | Sequence[Batch],
    target: Target | None = None,
    *,
    engine: str | None = None,
    trials: int | None = None,
    seed: int = 0,
    tolerance: float | None = None,
    method: str = "count",
    label: str | None = None,
    tolerance_on: str = "both",
) -> Result:
    """Resolve one Batch, or a chain of Batches in order, against one target.

    Args:
        attack: an :class:`Attack`, a :class:`Batch`, or a sequence of Batches
            resolved in order (8.7.3, Batch sequence); then ``target`` is needed.
        target: the target unit.
        engine: ``"exact"`` or ``"monte-carlo"``; by default exact unless
            ``trials`` or ``tolerance`` is given.
        trials: Monte Carlo trials.
        seed: Monte Carlo seed (the same seed gives the same result on any
            number of threads).
        tolerance: Monte Carlo until the standard errors of mean damage and of
            P(unit destroyed) are both at most this.
        tolerance_on: ``"both"``, or only ``"damage"`` or ``"p_destroy"``.
        method: Monte Carlo sampling, ``"count"`` (binomial counts, fast) or
            ``"die"`` (per die, the reference path).
        label: a name for tables and plots.
    """
    if not isinstance(attack, Attack):
        if target is None:
            raise InputError("target", None, "a Target when the attack is given as Batches")
        batches = (attack,) if isinstance(attack, Batch) else tuple(attack)
        attack = Attack(batches, target)
    elif target is not None:
        attack = Attack(attack.batches, target)
    if engine is None:
        engine = "monte-carlo" if (trials is not None or tolerance is not None) else "exact"
    engine_name = _ENGINE_ALIASES.get(str(engine).lower())
    if engine_name is None:
        raise InputError("engine", engine, "exact or monte-carlo")
    if method not in ("count", "die"):
        raise InputError("method", method, "count or die")
    batches_c, target_c = compile_attack(attack)
    name = label or " + ".join(b.label for b in attack.batches)
    if engine_name == "exact":
        if trials is not None or tolerance is not None:
            raise InputError("engine", "exact", "no trials or tolerance with the exact engine")
        from .exact import exact_tally

        return Result("exact", exact_tally(batches_c, target_c), target_c.models, None, name)

    from . import engine as mc

    if not isinstance(seed, int) or seed < 0 or seed >= 2**63:
        raise InputError("seed", seed, "a whole number from 0 to 2**63-1")
    if tolerance is not None:
        if not (0 < float(tolerance) < 1e3):
            raise InputError("tolerance", tolerance, "a positive standard error, e.g. 0.01")
        tally = mc.simulate_adaptive(batches_c, target_c, float(tolerance), seed=seed, method=method, on=tolerance_on)
    else:
        n = 1_000_000 if trials is None else trials
        if not isinstance(n, int) or n < 1 or n > 10**12:
            raise InputError("trials", trials, "a whole number of trials from 1 to 10**12")
        tally = mc.simulate(batches_c, target_c, n, seed=seed, method=method)
    return Result("monte-carlo", tally, target_c.models, seed, name)
