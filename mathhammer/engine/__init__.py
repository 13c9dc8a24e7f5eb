"""System-neutral Monte Carlo machinery: every game system's kernels use it, none of it knows a game.

- :mod:`~mathhammer.engine.rng`: counter-based random streams, one per (seed, trial);
- :mod:`~mathhammer.engine.tables`: alias and binomial tables, and the alias draw;
- :mod:`~mathhammer.engine.histograms`: per-slot histogram rows and the super-block loop;
- :mod:`~mathhammer.engine.adaptive`: Monte Carlo until a standard error is small enough;
- :mod:`~mathhammer.engine.options`: :class:`RunOptions`, the run settings validated once.

Numba flags and tuning sizes are in :mod:`mathhammer.config`. Importing this
package imports neither numba nor any game system.
"""

from .options import RunOptions

__all__ = ["RunOptions"]
