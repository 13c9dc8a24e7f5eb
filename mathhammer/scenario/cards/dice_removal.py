"""Dice taken out of the Attack Pool of a Ranged Attack (8.7.4 step 1): Guardian Shield (``attack_pool``, an Active
ability: "All Ranged Attacks targeting a Friendly Unit Within 4\\" (Line of Sight is not required) are made with 1
fewer die in the Attack Pool") and Point Defense Laser (``point_defense``, Point Defense Drone: "When another Friendly
Unit Within 4\\" is targeted by a Ranged Attack without the INSTANT keyword, remove up to 2 dice from the Attack Pool.
Then remove this Unit from the battlefield"). Both are read at the declaration of the attack (the ``attack_pool``
trigger) and applied by the Ranged Attack to each Batch's Attack Pool (:class:`~..simview.PoolCut`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..abilities import _givers as givers
from ..abilities import near_games
from ..basics import split_by as _split_by
from ..simview import PoolCut, SimView
from ..spec import Activation, Scenario
from .registry import Card, register


@register
class GuardianShield(Card):
    kinds = ("attack_pool",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def attack_pool(self, act: Activation, targets: list[int], trials: np.ndarray) -> list[PoolCut]:
        """One cut per planned target with such an ability on its side (:func:`pool_cuts`); it lasts the whole attack,
        INSTANT or not, and follows the attack where it is redirected."""
        return [PoolCut(t, c) for t in targets if (c := pool_cuts(self.sim, t, trials)) is not None]


def pool_cuts(sim: SimView, t: int, trials: np.ndarray) -> np.ndarray | None:
    """Per game (length ``sim.T``, set in ``trials``): the dice taken out of each Batch's Attack Pool of a Ranged
    Attack at unit ``t`` (``attack_pool``: Guardian Shield), from the abilities its side's units used this Round, in
    the games where that unit is Within ``within`` of ``t`` (itself included). Copies of one named ability do not add
    up (10.1), so the largest applies. None where no unit of the side has such an ability.

    This project's reading: each Batch builds its own Attack Pool (8.7.4 step 1), so each loses the die.
    """
    side = sim.units[t].player
    out: np.ndarray | None = None
    for r in (r for r in givers(sim, "attack_pool") if sim.units[r].player == side):
        here = trials[sim.pos[r, trials] >= 0]
        for mask, ts in _split_by(here, sim.used[r, here]):
            for e in sim.effects(r, mask, "attack_pool"):
                if e.against not in ("ranged", "all") or e.within is None:
                    continue
                hit = near_games(sim, ts, r, t, float(e.within))
                if out is None:
                    out = np.zeros(sim.T, dtype=np.int64)
                out[hit] = np.maximum(out[hit], e.value)
    return out


@register
class PointDefenseLaser(Card):
    kinds = ("point_defense",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def attack_pool(self, act: Activation, targets: list[int], trials: np.ndarray) -> list[PoolCut]:
        """One cut per planned target a drone protects (:func:`point_defense`): only a Batch without INSTANT at the
        target itself, spent where such a Batch resolves (:func:`laser_used`)."""
        sim = self.sim
        return [
            PoolCut(t, state[0], instant=False, redirected=False, spent=_spender(sim, state))
            for t, state in point_defense(sim, targets, trials).items()
        ]


def _spender(sim: SimView, laser: tuple[np.ndarray, np.ndarray]) -> Callable[[np.ndarray], None]:
    """:func:`laser_used` of ``laser`` as a :attr:`PoolCut.spent`."""
    return lambda games: laser_used(sim, games, laser)


def point_defense(sim: SimView, targets: Sequence[int], trials: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Point Defense Laser, per planned target with such a unit of its side on the table in some game of ``trials``:
    (per game, the dice taken out of the first Batch without INSTANT that resolves at it; per game, the drone that
    does it, the first in unit order Within ``within`` of the target). Read at the declaration of the attack
    (:func:`laser_used` spends it)."""
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for t in targets:
        side = sim.units[t].player
        for r in (r for r in givers(sim, "point_defense") if r != t and sim.units[r].player == side):
            e = next(x for x in sim.effects(r, 0, "point_defense"))
            here = trials[sim.pos[r, trials] >= 0]
            near = near_games(sim, here, r, t, float(e.within or 0))
            if not near[here].any():
                continue
            dice, drone = out.setdefault(t, (np.zeros(sim.T, dtype=np.int64), np.full(sim.T, -1, dtype=np.int64)))
            new = here[near[here] & (drone[here] < 0)]
            dice[new] = e.value
            drone[new] = r
    return out


def laser_used(sim: SimView, games: np.ndarray, laser: tuple[np.ndarray, np.ndarray]) -> None:
    """A Batch without INSTANT resolved at the protected unit in ``games``: the Point Defense Laser was spent on it
    (no dice for the later Batches), and the drone is removed from the battlefield (not Destroyed: 8.5.5, as a unit
    returned to Reserves; a Summoned Unit is not in Reserves)."""
    dice, drone = laser
    spent = games[dice[games] > 0]
    dice[spent] = 0
    for r in np.unique(drone[spent]).tolist():
        if r >= 0:
            sim.to_reserves(r, spent[drone[spent] == r])
