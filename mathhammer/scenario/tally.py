"""Why, not only who (issue 29 point 4): per unit, how often it was activated for each action, and the damage it dealt
and took, summed over the games a Simulation plays.

* An activation counts for its action in the games where the unit was activated for it on the table (after the
  conditions, the cards that bar an activation and the unit being on the table; a Deploy where the unit was set):
  what it then did may still fail (a Charge short of its target, a shot with no target it may shoot). The Combat
  Phase's fights count for every unit that fought (8.8.1: every Engaged unit fights, planned or not).
* Damage is Hit Points lost (Shield included) by Ranged Attacks, fights and IMPACT: each resolved chain of Batches
  adds the target's lost Hit Points to its ``taken`` and to its attacker's ``dealt`` (an attack without an attacker,
  such as a Warp In mishap, only to ``taken``). A unit's Hit Points with ``k`` models left and Damage Marker ``m`` are
  the Hit Points of its last ``k`` models in removal order (the first carries the Shield) less ``m``.

The sums merge by addition (:meth:`Tally.merge`), so the workers' blocks add up to the serial run's figures.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: the actions counted, in the order of the report (spec.ACTIONS without pass: a Pass is no unit's activation)
COUNTED = ("deploy", "move", "disengage", "run", "hold", "shoot", "charge", "gather", "fight")


def health_table(model_hp: list[int], full: int) -> np.ndarray:
    """Hit Points of a unit by models left (index 0 .. full), before any Damage Marker: the last ``k`` models of the
    removal order ``model_hp``.

    >>> health_table([3, 2, 2], 3).tolist()
    [0, 2, 4, 7]
    """
    hp = np.asarray(model_hp[:full], dtype=np.int64)
    out = np.zeros(full + 1, dtype=np.int64)
    out[1:] = np.cumsum(hp[::-1])
    return out


def _moments(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``a`` (units x games): the sum and the sum of squares, in float64 (the same bits as
    ``a.astype(np.float64).sum(axis=1)`` and of its squares), one row's float copy at a time: a block of a million
    games would otherwise make 3 copies of the whole array at its end (~96 MB each for 12 units), memory the heap
    then faults in for nothing else.

    >>> s, s2 = _moments(np.array([[1, 2, 3], [0, 4, 0]]))
    >>> s.tolist(), s2.tolist()
    ([6.0, 4.0], [14.0, 16.0])
    """
    s, s2 = np.empty(a.shape[0]), np.empty(a.shape[0])
    for u in range(a.shape[0]):
        row = a[u].astype(np.float64)
        s[u] = row.sum()
        row *= row
        s2[u] = row.sum()
    return s, s2


class Tally:
    """The per-unit figures of ``units`` units over ``trials`` games: activations by action (sums), damage dealt and
    taken per game (arrays, summed at the end: their mean and standard error). The damage is added where a chain of
    Batches resolves, in the same compiled pass (``fastsim._apply_kernel``, by each unit's :attr:`health`)."""

    def __init__(self, units: int, trials: int, health: list[np.ndarray]) -> None:
        self.acts = np.zeros((units, len(COUNTED)), dtype=np.int64)
        self.dealt = np.zeros((units, trials), dtype=np.int64)
        self.taken = np.zeros((units, trials), dtype=np.int64)
        self.health = health

    def count(self, u: int, action: str, games: int) -> None:
        """Unit ``u`` was activated for ``action`` in ``games`` games."""
        if games and action in COUNTED:
            self.acts[u, COUNTED.index(action)] += games

    def sums(self) -> dict[str, np.ndarray]:
        """What a block of games leaves (added up across blocks by :meth:`merge`)."""
        dealt, dealt2 = _moments(self.dealt)
        taken, taken2 = _moments(self.taken)
        return {"acts": self.acts.copy(), "dealt": dealt, "dealt2": dealt2, "taken": taken, "taken2": taken2}

    @staticmethod
    def merge(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if not a:
            return {k: v.copy() for k, v in b.items()}
        return {k: a[k] + b[k] for k in a}


def unit_figures(sums: dict[str, np.ndarray], units: list[dict[str, Any]], trials: int) -> list[dict[str, Any]]:
    """Per unit: mean activations per game for each action, mean damage dealt and taken per game with standard
    errors (the JSON's ``unit_actions``)."""
    out = []
    for i, u in enumerate(units):
        row: dict[str, Any] = {"unit": u["id"], "player": u["player"]}
        row["activations"] = {a: float(sums["acts"][i, j]) / trials for j, a in enumerate(COUNTED)}
        for key in ("dealt", "taken"):
            mean = float(sums[key][i]) / trials
            var = float(sums[f"{key}2"][i]) / trials - mean * mean
            se = math.sqrt(max(var, 0.0) * trials / max(trials - 1, 1) / trials) if trials > 1 else 0.0
            row[f"damage_{key}_mean"] = mean
            row[f"damage_{key}_se"] = se
        out.append(row)
    return out


__all__ = ["COUNTED", "Tally", "health_table", "unit_figures"]
