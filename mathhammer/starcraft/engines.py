"""StarCraft TMG's two engines behind one call: an attack (Batches against a target) in, a Result out.

:func:`exact` is :mod:`mathhammer.starcraft.exact`; :func:`simulate` is
:mod:`mathhammer.starcraft.montecarlo`, with a number of trials or until a
standard error (the same doubling rule as every system); :func:`run` picks one
by the :class:`~mathhammer.engine.options.RunOptions` and names the outcomes
as StarCraft TMG does (:mod:`mathhammer.starcraft.outcomes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.options import RunOptions, use_threads
from .outcomes import result

if TYPE_CHECKING:  # pragma: no cover
    from ..outcome import Tally
    from ..results import Result
    from .query import StarCraftAttack


def exact(attack: StarCraftAttack) -> Tally:
    from .exact import exact_tally

    return exact_tally(*attack.arrays)


def simulate(attack: StarCraftAttack, options: RunOptions, watch: str = "both") -> Tally:
    """Monte Carlo with ``options.trials``, or until the standard errors ``watch``-ed (``both``, ``dealt``,
    ``p_destroy``) are at most ``options.tolerance``."""
    from . import montecarlo

    batches, target = attack.arrays
    if options.tolerance is not None:
        on = {"both": "both", "p_destroy": "p_destroy", "dealt": "damage"}[watch]
        return montecarlo.simulate_adaptive(
            batches, target, options.tolerance, seed=options.seed, method=options.method, on=on
        )
    assert options.trials is not None
    return montecarlo.simulate(batches, target, options.trials, seed=options.seed, method=options.method)


def run(attack: StarCraftAttack, options: RunOptions, label: str | None = None, watch: str = "both") -> Result:
    """The attack with the engine ``options`` choose: a Result in StarCraft TMG's words."""
    use_threads(options)
    tally = exact(attack) if options.exact else simulate(attack, options, watch)
    return result(tally, attack.models, options.seed, label or attack.label)
