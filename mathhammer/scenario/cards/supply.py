"""Supply Values read by the rules besides the Supply Pool: for Controlling and Contesting Mission Markers
(``contest_supply``, 8.9.1; Commander, Additional Supply Depots, Domineering Presence, Freedom Fighters) and for
Disengage checks (``disengage_supply``, 8.5.4 Tactical Mass; Commander): read by the Mission's control through the
``contest_supply`` trigger (:class:`ContestSupply`), and by the Disengage through the ``supply_for_mass`` trigger
(:class:`Supply`)."""

from __future__ import annotations

import numpy as np

from ...starcraft.schema import Effect
from ..abilities import _givers, near_games
from ..basics import split_by as _split_by
from ..simview import SimView
from ..spec import Scenario
from .registry import Card, register


@register
class Supply(Card):
    """The Supply for Disengage checks, through the ``supply_for_mass`` trigger (:func:`disengage_supply`)."""

    kinds = ("disengage_supply",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """Where a unit or card has a ``disengage_supply`` effect (its only hook)."""
        return cls.anywhere(scn, ("disengage_supply",))

    def supply_for_mass(self, u: int, trials: np.ndarray, supply: np.ndarray) -> np.ndarray:
        """8.5.4 Tactical Mass: a Commander counts 1 more "when resolving Disengage checks" (after BURROWED's 0: the
        Burrow card's hook runs first)."""
        return supply + disengage_supply(self.sim, u)


@register
class ContestSupply(Card):
    """The Supply for Controlling and Contesting Mission Markers, through the ``contest_supply`` trigger
    (:func:`contest_supply`)."""

    kinds = ("contest_supply",)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """Where a unit or card has a ``contest_supply`` effect (its only hook)."""
        return cls.anywhere(scn, ("contest_supply",))

    def contest_supply(self, supply: np.ndarray, live: np.ndarray) -> np.ndarray:
        """8.9.1 with Commander, Additional Supply Depots, Domineering Presence, Freedom Fighters."""
        return contest_supply(self.sim, supply, live)


def contest_supply(sim: SimView, supply: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Every unit's Supply Value for Controlling and Contesting Mission Markers and completing objectives
    (8.9.1; units x games): ``supply`` (the Current Supply Values) with the ``contest_supply`` effects of the
    units on the table, in the games ``live``.

    ``value`` is added to the unit's own (Commander: "Treat this Unit's Supply characteristic as increased by 1";
    Additional Supply Depots, a card's Active ability used on the unit this Round: "The active Unit's Supply
    Value is improved by 1"), or, with ``select``, to the unit the ability selected this Round (Domineering
    Presence: "That Unit's Supply characteristic is increased by 1"). Then ``minimum`` is a floor for every
    Friendly Unit Within ``within`` of the unit, itself included (Freedom Fighters: "The Supply Value of all
    Friendly Units Within 8" of this Unit cannot be reduced below 1"), read in each game where both are on the
    table. ``supply`` is changed in place (callers pass a fresh :meth:`Simulation.current_supply`) and returned.
    """

    givers = _givers(sim, "contest_supply")
    if not givers and not sim.granted:
        return supply
    floors: list[tuple[int, Effect, np.ndarray]] = []
    for u in givers:  # each giver's rows read at ``live`` alone (not the whole table of who is on it)
        on = sim.pos[u, live] >= 0
        mask_of = sim.used[u, live]  # the abilities used; games with none: the passive ones only (mask 0)
        parts: list[tuple[int, np.ndarray]] = []
        if sim.effects(u, 0, "contest_supply"):
            parts.append((0, live[on & (mask_of == 0)]))
        active = on & (mask_of != 0)
        parts.extend(_split_by(live[active], mask_of[active]))
        for mask, ts in parts:
            if ts.size == 0:
                continue
            for e in sim.effects(u, mask, "contest_supply"):  # (a select effect is not here: sim.granted)
                supply[u, ts] += e.value
                if e.minimum:
                    floors.append((u, e, ts))
    for grant in sim.granted:  # given by another unit's ability this Round (cards/selected.py)
        if grant.effect.kind == "contest_supply":
            ts = grant.games[sim.pos[grant.unit, grant.games] >= 0]
            supply[grant.unit, ts] += grant.effect.value
    for r, e, ts in floors:  # after every addition: "cannot be reduced below"
        side = sim.units[r].player
        for q in range(sim.U):
            if sim.units[q].player != side or (e.within is None and q != r):
                continue
            hit = near_games(sim, ts, r, q, e.within if e.within is not None else 0.0)
            supply[q, hit] = np.maximum(supply[q, hit], e.minimum)
    return supply


def disengage_supply(sim: SimView, u: int) -> int:
    """What unit ``u`` adds to its Supply when Disengage checks are resolved (8.5.4 Tactical Mass; Commander)."""
    return sum(e.value for e in sim.effects(u, 0, "disengage_supply"))
