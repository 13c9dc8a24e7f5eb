"""The array passes of :class:`~.features.Features`' tables (issue 29 point 6: the feature tables cheaper), each the
same numbers as the per-enemy and per-marker loops they replace, bit for bit (``tests/test_autoplay_speed.py`` holds
every table of several games to the entry-by-entry loop):

* :class:`Ends`: the distances from a menu's end points to its cover spots, the markers and the enemy units' Leading
  Models, read once per point: the rows with a point of their own are the same in every state.
* :func:`threat_column`: the ``threat`` column at every end point, every enemy unit at once (the distances a matrix;
  the enemies' shares added one after another, in their order, as the loop did).
* :class:`Resolver`: an attack's states as :meth:`~.features.Features.outcome` reads them (and :func:`impact_batches`,
  the IMPACT of a Charge), through :func:`exact_outcomes`.
* :func:`exact_outcomes`: the exact engine's states after an attack, memoised by the attack's *content* (its Batches
  and the Target as built: equal inputs, the same answer to the bit), so the same attack met by another unit index,
  another Features or another Simulation of the process is resolved once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...starcraft.compiled import compile_attack
from ...starcraft.exact import exact_states
from ...starcraft.loadout import as_target, attack_batches
from ...starcraft.model import Attack, Batch, Target
from ..lookup import impact_of, use_bits

#: 8.7.7: a Charge moves up to Speed + the best Charge Roll (6), and ends Within 1" (Engagement) of the target
CHARGE_REACH = 6.0 + 1.0
#: the content memo is cleared past this many attacks (memory flat)
EXACT_LIMIT = 1 << 14
#: a menu's memo of points (:class:`Ends`) is cleared past this many (a column of about a hundred rows each)
POINTS_LIMIT = 1 << 12

#: an attack as :meth:`Resolver.states` reads it: (attacker, models attacking, target, models left, Damage Marker,
#: SHIELDED, phase, abilities used, the target's Reaction: bits, Total Damage reduction, its minimum)
AttackKey = tuple[int, int, int, int, int, int, str, tuple[str, ...], tuple[int, int, int]]

_EXACT: dict[tuple[tuple[Batch, ...], Target], tuple[tuple[tuple[int, ...], float], ...]] = {}


def exact_outcomes(batches: Sequence[Batch], target: Target) -> tuple[tuple[tuple[int, ...], float], ...]:
    """:func:`~mathhammer.starcraft.exact.exact_states` of the chain ``batches`` at ``target`` (its items, in its
    order), memoised by content: the frozen Batches and Target are the key, so an answer is only ever reused for the
    very same question."""
    key = (tuple(batches), target)
    hit = _EXACT.get(key)
    if hit is None:
        if len(_EXACT) > EXACT_LIMIT:
            _EXACT.clear()
        compiled, tc = compile_attack(Attack(key[0], target))
        hit = _EXACT[key] = tuple(exact_states(compiled, tc).items())
    return hit


def states_after(batches: Sequence[Batch], target: Target, k: int) -> list[tuple[tuple[int, int, int], float]]:
    """The target's states (models left, Damage Marker, SHIELDED; 0, 0 once none is left) after the chain ``batches``
    at ``target`` (``k`` models left), each with its probability, in the exact engine's order."""
    out = []
    for st, pr in exact_outcomes(batches, target):
        left = max(k - int(st[0]), 0)
        out.append(((left, int(st[1]) if left else 0, int(bool(st[2])) if left else 0), pr))
    return out


class Resolver:
    """An attack's states as :meth:`~.features.Features.outcome` reads them, for the Simulation ``sim`` (a
    :class:`~mathhammer.scenario.simview.SimView`): :meth:`states`. Its parts are memoised apart, each by what it
    reads: the attacker's Batches by (attacker, abilities, target, phase, models attacking), the Target by (target,
    its Reaction's bits, phase, models left, Damage Marker, SHIELDED, reduction), the exact answer by their content
    (:func:`exact_outcomes`)."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self._batches: dict[tuple[object, ...], list[Batch]] = {}
        self._targets: dict[tuple[object, ...], Target] = {}

    def states(self, key: AttackKey) -> list[tuple[tuple[int, int, int], float]]:
        """Unit ``t``'s states (models left, Damage Marker, SHIELDED; 0, 0 once none is left) after unit ``u``'s ``a``
        models attack it with their ``phase`` chain (the abilities ``use`` on; "impact": :func:`impact_batches`) from
        ``k`` models left, Damage Marker ``mark``, ``guard`` the Reaction's (:meth:`~.features.Features.attack`), each
        with its probability, in the exact engine's order (no attack: the state as it is); ``key``: (u, a, t, k,
        mark, shielded, phase, use, guard)."""
        u, a, t, k, mark, shielded, phase, use, guard = key
        batches = self.batches(u, a, t, phase, use) if a > 0 and k > 0 else []
        if not batches:
            return [((max(k, 0), mark if k > 0 else 0, shielded if k > 0 else 0), 1.0)]
        phase = "combat" if phase == "impact" else phase  # IMPACT is resolved as a Close Combat attack (sim_combat)
        return states_after(batches, self.target(t, k, mark, shielded, phase, guard), k)

    def batches(self, u: int, a: int, t: int, phase: str, use: tuple[str, ...]) -> list[Batch]:
        """The Batches of unit ``u``'s ``a`` models at unit ``t`` in ``phase`` with the abilities ``use`` on."""
        key = (u, a, t, phase, use)
        hit = self._batches.get(key)
        if hit is None:
            if len(self._batches) > EXACT_LIMIT:
                self._batches.clear()
            sim = self.sim
            mask = use_bits(sim, u, use) if use else 0
            if phase == "impact":
                hit = impact_batches(sim, u, mask, a)
            else:
                hit = attack_batches(sim.loadout(u, mask), sim.units[t].unit, phase, alive=a)
            self._batches[key] = hit
        return hit

    def target(self, t: int, k: int, mark: int, shielded: int, phase: str, guard: tuple[int, int, int]) -> Target:
        """Unit ``t`` as the target (``k`` models left, Damage Marker ``mark``, SHIELDED; ``guard``: its Reaction's)."""
        key = (t, k, mark, shielded, phase, guard)
        hit = self._targets.get(key)
        if hit is None:
            if len(self._targets) > EXACT_LIMIT:
                self._targets.clear()
            sim = self.sim
            tmask, cut, floor = guard
            hit = as_target(sim.loadout(t, tmask), phase, alive=k, marker=mark, shielded=bool(shielded))
            if k < sim.full[t]:
                hit = dataclasses.replace(hit, shield=0, shielded=False)  # the SHIELDED model is gone (sim_shoot)
            if cut:  # as the engine's (sim_shoot._transition)
                hit = dataclasses.replace(hit, damage_reduction=cut, reduction_floor=floor)
            self._targets[key] = hit
        return hit


def impact_batches(sim: Any, u: int, mask: int, a: int) -> list[Batch]:
    """The IMPACT unit ``u`` resolves after a successful Charge with the abilities of ``mask`` (``sim_combat._impact``:
    IMPACT (X) Y+ of its card as the cards change it, My Life for Aiur, Adrenal Overload), ``a`` models striking (the
    engine counts the Fighting and Supporting Ranks once the Charge has set the unit: every model is an upper bound
    that each small unit's Charge into base contact reaches); none where it has no IMPACT."""
    imp = impact_of(sim.scn.units[sim.uids[u]])
    if imp is None:
        return []
    for change in sim.cards.impact:
        imp = change(u, mask, imp)
    return [Batch.impact(a, imp[0], imp[1], name="IMPACT")]


def distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Points ``a`` (A x 2) x points ``b`` (B x 2): their straight distances (``np.hypot`` of the differences, as the
    per-point loops had them)."""
    return np.hypot(a[:, 0, None] - b[None, :, 0], a[:, 1, None] - b[None, :, 1])


class Ends:
    """What a menu's rows read of their end points alone: the distances to its cover spots (``cover``: within
    ``cover_at`` of one), to the Mission Markers, and to a point (an enemy unit's Leading Model). The entries with a
    point of their own (Move, Run, Deploy: the same in every state) are read once; the others (where the unit stands,
    a Charge's target) once per end point they meet (memoised by the point): the same numbers as reading every row in
    every state."""

    def __init__(self, to: np.ndarray, covers: np.ndarray, markers: np.ndarray, cover_at: float) -> None:
        self.fixed = ~np.isnan(to[:, 0])
        self.free = np.flatnonzero(~self.fixed)
        self.covers, self.markers, self.cover_at = covers, markers, cover_at
        self._fx = to[self.fixed]
        self._cover, self._gap = self._read(self._fx)
        self._points: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}
        self._cols: dict[tuple[float, float], np.ndarray] = {}

    def _read(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cover = np.zeros(len(pts), dtype=bool)
        if self.covers.size:
            cover = distances(pts, self.covers).min(axis=1) <= self.cover_at
        return cover, distances(pts, self.markers)

    def at(self, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of the rows' end points ``ends`` (the fixed ones the menu's own): on a cover spot, and the distances to
        the markers (rows x markers)."""
        cover = np.empty(len(ends), dtype=bool)
        gap = np.empty((len(ends), len(self.markers)), dtype=float)
        cover[self.fixed], gap[self.fixed] = self._cover, self._gap
        if self.free.size:
            seen: dict[tuple[float, float], int] = {}
            inv = [seen.setdefault((x, y), len(seen)) for x, y in ends[self.free].tolist()]
            parts = [self._point(pt) for pt in seen]
            cover[self.free] = np.concatenate([c for c, _ in parts])[inv]
            gap[self.free] = np.concatenate([g for _, g in parts])[inv]
        return cover, gap

    def _point(self, pt: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        hit = self._points.get(pt)
        if hit is None:
            if len(self._points) > POINTS_LIMIT:
                self._points.clear()
            hit = self._points[pt] = self._read(np.asarray([pt], dtype=float))
        return hit

    def to(self, ends: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
        """Rows x ``points``: the distances from the rows' end points ``ends`` to each point."""
        out = np.empty((len(ends), len(points)), dtype=float)
        if not points:
            return out
        cols = []
        for pt in points:
            col = self._cols.get(pt)
            if col is None:
                if len(self._cols) > POINTS_LIMIT:
                    self._cols.clear()
                col = self._cols[pt] = distances(self._fx, np.asarray([pt], dtype=float))[:, 0]
            cols.append(col)
        out[self.fixed] = np.stack(cols, axis=1)
        if self.free.size:
            out[self.free] = distances(ends[self.free], np.asarray(points, dtype=float))
        return out


def threat_column(
    gap: np.ndarray,
    reach: np.ndarray,
    charge: np.ndarray,
    speed: np.ndarray,
    ranged: np.ndarray,
    melee: np.ndarray,
) -> np.ndarray:
    """The ``threat`` column (:mod:`.features`' module text) at end points ``gap`` (E x V: their distances to the
    Leading Models of the V enemy units) away from the enemies with their longest Ranged Weapon's ``reach``, whether
    they can ``charge``, their ``speed`` (:meth:`~.features.Features._fast`) and what their ``ranged`` and ``melee``
    chains destroy of the unit (share x Supply): each enemy's hits where the end point is within its reach, added in
    the enemies' order (a running sum: the per-enemy loop's, to the bit)."""
    if not gap.shape[1]:
        return np.zeros(gap.shape[0], dtype=float)
    hits = np.where(gap <= (speed + reach)[None, :], ranged[None, :], 0.0)
    melee_hits = np.where(gap <= (speed + CHARGE_REACH)[None, :], melee[None, :], 0.0)
    hits = np.where(charge[None, :], np.maximum(hits, melee_hits), hits)
    return np.cumsum(hits, axis=1)[:, -1]


__all__ = [
    "CHARGE_REACH",
    "EXACT_LIMIT",
    "POINTS_LIMIT",
    "AttackKey",
    "Ends",
    "Resolver",
    "distances",
    "exact_outcomes",
    "impact_batches",
    "threat_column",
]
