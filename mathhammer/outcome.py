"""What an engine returns: histograms of one attack's outcome.

Both engines fill the same :class:`Tally`. For the exact engine the entries
are probabilities and ``trials == 0``; for Monte Carlo they are counts (as
floats, exact integers up to 2**53) over ``trials`` trials.

The histograms are over *final* values after the whole chain of Batches:

- ``damage[k]``: the Damage dealt, summed over the chain's Batches (dice in
  the Damage Pool x Damage, before casualties; NON-LETHAL DAMAGE excluded);
- ``models_destroyed[k]``: models removed, ``k = 0..M`` (``M`` models at the
  start); the unit is destroyed when ``k == M``;
- ``marker[k]``: the Damage Marker at the end;
- ``shielded[s]``: ``s = 1`` when the unit is still SHIELDED at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .starcraft.compiled import CompiledBatch, CompiledTarget


def damage_bound(batches: Sequence[CompiledBatch]) -> int:
    """Largest Damage a chain can deal (size of the damage histogram - 1)."""
    return int(sum(b.max_pool * b.damage for b in batches))


def marker_bound(batches: Sequence[CompiledBatch], target: CompiledTarget) -> int:
    """An upper bound of the Damage Marker (size of the marker histogram - 1)."""
    return int(target.marker + int(target.hp.max()) + sum(b.nonlethal for b in batches))


@dataclass(frozen=True, eq=False)
class Tally:
    """Histograms of an attack's outcome (see the module docstring).

    Attributes:
        damage: float64[damage_bound + 1]
        models_destroyed: float64[M + 1]
        marker: float64[marker_bound + 1]
        shielded: float64[2]
        trials: Monte Carlo trials, 0 for exact probabilities.
    """

    damage: np.ndarray
    models_destroyed: np.ndarray
    marker: np.ndarray
    shielded: np.ndarray
    trials: int = 0

    @property
    def exact(self) -> bool:
        return self.trials == 0

    def merged(self, other: Tally) -> Tally:
        """Add the counts of two Monte Carlo tallies of the same attack."""
        if self.exact or other.exact:
            raise ValueError("only Monte Carlo tallies can be merged")
        return Tally(
            _add(self.damage, other.damage),
            _add(self.models_destroyed, other.models_destroyed),
            _add(self.marker, other.marker),
            _add(self.shielded, other.shielded),
            self.trials + other.trials,
        )


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = max(a.size, b.size)
    out = np.zeros(n)
    out[: a.size] += a
    out[: b.size] += b
    return out
