"""What an automatic player may still pay for in each game (10.2, 10.5): the Active abilities of its menu entries'
``use`` (:mod:`.menu`), read per game where :mod:`.legal`'s answer (per state: the plan check with every card Ready)
cannot be.

Per game, the player's cards Exhausted this Round (a bit per card of the Army List's Faction and Tactical Cards, in
:class:`~mathhammer.scenario.lookup.Purse` order), Readied at a new Round (10.5.2, 8.9.5 Cleanup), and what each
payment Exhausts: :meth:`Purse.pay <mathhammer.scenario.lookup.Purse.pay>` itself, the plan check's own payment (its
card first, then the cost with the least excess, 10.5.1), on the game's Ready cards. A use is refused in a game where
the payment fails, or where the unit used that ability earlier in the Round and it is not REPEATABLE (10.2: the bits
of ``sim.used`` the engine sets). Cost reductions (Advanced Training) are not read: an ability is paid at full cost,
which Exhausts at least the cards the plan check Exhausts (never fewer: a game the player thinks it can pay for, the
check can too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..lookup import Found, Purse, find, repeatable, use_bits


class Spending:
    """The Exhausted cards of ``player`` in each game of Simulation ``sim`` (the module text)."""

    def __init__(self, sim: Any, player: str) -> None:
        self.sim = sim
        self.player = player
        self.purse = Purse(sim.scn, player)
        self.out = np.zeros(sim.T, dtype=np.int64)  # per game: the Exhausted cards, a bit per card
        self.rnd = 0
        self._after: dict[tuple[int, tuple[str, ...], str], int] = {}  # (Exhausted, use, unit) -> after (-1: refused)
        self._found: dict[tuple[str, str], Found] = {}

    def begin(self, rnd: int) -> None:
        """A new Round readies every card (10.5.2: Cleanup, 8.9.5)."""
        if rnd != self.rnd:
            self.rnd = rnd
            self.out[:] = 0

    def found(self, unit: str, name: str) -> Found:
        key = (unit, name)
        hit = self._found.get(key)
        if hit is None:
            got = find(self.sim.scn, unit, name)
            assert got is not None, f"{name!r} is on {unit!r}'s menu: the menu finds it (menu.attack_abilities)"
            hit = self._found[key] = got
        return hit

    def after(self, out: int, unit: str, use: tuple[str, ...]) -> int:
        """The Exhausted cards after ``unit`` pays for ``use`` with ``out`` Exhausted, or -1 where it cannot."""
        key = (out, use, unit)
        hit = self._after.get(key)
        if hit is None:
            purse = self.purse
            purse.ready = [not (out >> i) & 1 for i in range(len(purse.names))]
            hit = 0
            for name in use:
                if purse.pay(self.found(unit, name)):
                    hit = -1
                    break
            if hit == 0:
                hit = sum(1 << i for i, r in enumerate(purse.ready) if not r)
            self._after[key] = hit
        return hit

    def affords(self, u: int, use: tuple[str, ...], games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: may unit ``u`` use ``use`` now (paid from the Ready cards, not used this Round
        unless REPEATABLE)?"""
        if not use:
            return np.ones(games.size, dtype=bool)
        sim = self.sim
        unit = sim.uids[u]
        once = tuple(n for n in use if not repeatable(self.found(unit, n).ability))
        ok = np.ones(games.size, dtype=bool)
        if once:
            ok &= (sim.used[u, games] & use_bits(sim, u, once)) == 0
        return ok & self.payable(u, use, games)

    def payable(self, u: int, use: tuple[str, ...], games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: can unit ``u`` pay for ``use`` from the Ready cards (10.5.1; the cost alone, not
        how often it was used: a Reaction's once per Round is its player's record, :mod:`.reactions`)?"""
        unit = self.sim.uids[u]
        out = self.out[games]
        ok = np.ones(games.size, dtype=bool)
        for value in np.unique(out).tolist():
            if self.after(int(value), unit, use) < 0:
                ok &= out != value
        return ok

    def spare(self, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: the resources the player's Ready cards give this Round (10.5.2; each card's per
        Round, whatever its kind), what the uses still to come this Round may be paid from."""
        per = np.asarray([n for _, n in self.purse.cards], dtype=np.int64)
        out = self.out[games]
        ready = ((out[:, None] >> np.arange(per.size, dtype=np.int64)[None, :]) & 1) == 0
        return (ready * per[None, :]).sum(axis=1).astype(float)

    def pay(self, u: int, use: tuple[str, ...], games: np.ndarray) -> None:
        """Unit ``u`` pays for ``use`` in ``games`` (each may: :meth:`affords`)."""
        if not use:
            return
        unit = self.sim.uids[u]
        out = self.out[games]
        for value in np.unique(out).tolist():
            after = self.after(int(value), unit, use)
            assert after >= 0, f"{unit} pays for {use} in a game where it cannot"
            self.out[games[out == value]] = after


__all__ = ["Spending"]
