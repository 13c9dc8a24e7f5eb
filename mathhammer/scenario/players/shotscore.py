"""The ``damage``, ``destroy`` and ``models`` columns of a Shoot entry (issue 29 point 2; :mod:`.features`), each
Ranged Weapon read with its own Range, as the engine fires it (``sim_shoot``):

* 8.7.3 step 1 ("Only models with a Visible target model Within Range contribute dice", each "at its distance to the
  target individually"): a weapon's Batch holds the unit's live models whose base is within the weapon's reach (its
  Range, or LONG RANGE (X) where longer: :func:`~mathhammer.board.facts.weapon_reach`) of a live model of the target,
  edge to edge, each at that least gap (3 decimals, banded as the engine bands them:
  :func:`~mathhammer.starcraft.compiled.banded_distances`; LONG RANGE, BURST FIRE and an ability's "Within X"" read
  it);
* 8.7.3 step 2 ("If a Unit has multiple Weapon Profiles, it may fire at different targets"; the entry's ``then``, part
  11 SIDEARM): each weapon, in the order the engine fires them, goes to the first of the entry's target and its
  ``then`` units that it may shoot (a Batch of it at that unit, with a model in reach), and the weapons at one unit
  are one chain there;
* the columns are summed over the units shot: the Supply destroyed, the probability of destroying each (the expected
  number of units destroyed), the share of each one's models removed.

Line of Sight is not read (a model out of sight contributes here; whether the entry may be taken at all is
:mod:`.legal`'s answer), nor elevation: the gaps are horizontal. Before session 57 every live model of the unit fired
every weapon at the entry's target, in range or not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...board.facts import weapon_reach
from ...board.model import EPS
from ...starcraft.compiled import banded_distances
from ...starcraft.loadout import attack_batches
from ...starcraft.model import Batch
from ..lookup import use_bits
from .fastfeatures import Resolver, distances, states_after

#: the memo of shots is cleared past this many
SHOTS_LIMIT = 1 << 14

#: a unit shot, as :meth:`ShotScore.shot` reads it: (unit, placement, models left, Damage Marker, SHIELDED)
Shot = tuple[int, int, int, int, int]


class ShotScore:
    """:meth:`shot`, for :class:`~.features.Features` (its ``sim``, ``resolver`` and ``_summary``)."""

    sim: Any
    resolver: Resolver
    _shots: dict[tuple[object, ...], tuple[float, float, float]]
    _weapons_at: dict[tuple[object, ...], dict[str, Batch]]
    _gaps_of: dict[tuple[int, int, int, int], np.ndarray]
    _chains: dict[tuple[object, ...], tuple[float, ...]]

    def shot_memos(self) -> None:
        """Make :meth:`shot`'s memos (empty)."""
        self._shots = {}
        self._weapons_at = {}
        self._gaps_of = {}
        self._chains = {}

    def _summary(self, t: int, k: int, states: Any) -> tuple[float, float, float, float]:  # pragma: no cover
        raise NotImplementedError

    def shot(
        self,
        u: int,
        pos: tuple[int, ...],
        alive: tuple[int, ...],
        mark: tuple[int, ...],
        shielded: tuple[int, ...],
        order: tuple[int, ...],
        use: tuple[str, ...] = (),
    ) -> tuple[float, float, float]:
        """A Shoot of unit ``u`` (abilities ``use`` on) at ``order[0]``, its other weapons at the first of ``order[1:]``
        they may shoot, in the state (``pos``, ``alive``, ``mark``, ``shielded``: per unit): the ``damage``,
        ``destroy`` and ``models`` columns (the module text; memoised by the units' own states)."""
        a = alive[u]
        if a <= 0 or pos[u] < 0:
            return 0.0, 0.0, 0.0
        live = tuple((x, pos[x], alive[x], mark[x], shielded[x]) for x in order if pos[x] >= 0 and alive[x] > 0)
        key = (u, pos[u], a, use, live)
        hit = self._shots.get(key)
        if hit is None:
            if len(self._shots) > SHOTS_LIMIT:
                self._shots.clear()
            hit = self._shots[key] = self._shot(u, pos[u], a, use, live)
        return hit

    def batches_at(
        self, u: int, pu: int, a: int, use: tuple[str, ...], live: tuple[Shot, ...]
    ) -> dict[int, list[Batch]]:
        """Per unit of ``live`` shot, the Batches of unit ``u`` (placement ``pu``, ``a`` models, ``use``) that go to it
        (the module text)."""
        per = [(x, px, kx, self._weapons(u, a, use, x)) for x, px, kx, _, _ in live]
        names: list[str] = []  # the weapons in the engine's order: the first target's Batches, then the others'
        for *_, bs in per:
            names += [n for n in bs if n not in names]
        gaps: dict[int, np.ndarray] = {}
        out: dict[int, list[Batch]] = {}
        for name in names:
            for x, px, kx, bs in per:
                b = bs.get(name)
                if b is None:
                    continue
                gap = gaps.get(x)
                if gap is None:
                    gap = gaps[x] = self._gaps(pu, a, px, kx)
                reach = weapon_reach(b.weapon)
                near = gap if reach is None else gap[gap <= reach + EPS]
                if near.size == 0:
                    continue
                d = banded_distances(b.weapon, tuple(np.round(np.sort(near)[: b.models], 3).tolist()))
                out.setdefault(x, []).append(Batch(b.weapon, models=len(d), distances=d, name=name))
                break
        return out

    def _gaps(self, pu: int, a: int, px: int, kx: int) -> np.ndarray:
        """Per live model of placement ``pu`` (its first ``a``), the least gap, edge to edge, to a live model of ``px``
        (its first ``kx``) (memoised)."""
        key = (pu, a, px, kx)
        hit = self._gaps_of.get(key)
        if hit is None:
            if len(self._gaps_of) > SHOTS_LIMIT:
                self._gaps_of.clear()
            world = self.sim.world
            mine = np.asarray(world.placements[pu].centres[:a], dtype=float).reshape(-1, 2)
            theirs = np.asarray(world.placements[px].centres[:kx], dtype=float).reshape(-1, 2)
            hit = self._gaps_of[key] = distances(mine, theirs).min(axis=1) - world._radius(pu) - world._radius(px)
        return hit

    def _weapons(self, u: int, a: int, use: tuple[str, ...], x: int) -> dict[str, Batch]:
        """Unit ``u``'s Assault Phase Batches (``a`` models, ``use``) at unit ``x``'s card, by weapon (memoised: the
        same in every state)."""
        key = (u, a, use, x)
        hit = self._weapons_at.get(key)
        if hit is None:
            sim = self.sim
            lo = sim.loadout(u, use_bits(sim, u, use) if use else 0)
            hit = self._weapons_at[key] = {b.name: b for b in attack_batches(lo, sim.units[x].unit, "assault", alive=a)}
        return hit

    def _shot(
        self, u: int, pu: int, a: int, use: tuple[str, ...], live: tuple[Shot, ...]
    ) -> tuple[float, float, float]:
        """:meth:`shot`, computed."""
        at = self.batches_at(u, pu, a, use, live)
        total = [0.0, 0.0, 0.0]
        for x, _, k, mark, shielded in live:
            if x in at:
                for i, v in enumerate(self._chain(x, k, mark, shielded, tuple(at[x]))):
                    total[i] += v
        return total[0], total[1], total[2]

    def _chain(self, x: int, k: int, mark: int, shielded: int, batches: tuple[Batch, ...]) -> tuple[float, ...]:
        """The three columns of the chain ``batches`` at unit ``x`` (``k`` models left, Damage Marker ``mark``,
        SHIELDED) (memoised by the Batches' content)."""
        key = (x, k, mark, shielded, batches)
        hit = self._chains.get(key)
        if hit is None:
            if len(self._chains) > SHOTS_LIMIT:
                self._chains.clear()
            target = self.resolver.target(x, k, mark, shielded, "assault", (0, 0, 0))
            hit = self._chains[key] = self._summary(x, k, states_after(batches, target, k))[:3]
        return hit


__all__ = ["SHOTS_LIMIT", "ShotScore"]
