"""The array passes of :class:`~.features.Features`' tables (issue 29 point 6: the feature tables cheaper), each the
same numbers as the per-enemy and per-marker loops they replace, bit for bit (``tests/test_autoplay_speed.py`` holds
every table of several games to the entry-by-entry loop):

* :func:`threat_column`: the ``threat`` column at every end point, every enemy unit at once (the distances a matrix;
  the enemies' shares added one after another, in their order, as the loop did).
* :func:`marker_moves`: the Moves from every end point to every marker at once (no loop over the markers).
* :func:`resolve`: an attack's states as :meth:`~.features.Features.outcome` reads them (and :func:`impact_batches`,
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


def resolve(
    sim: Any,
    u: int,
    a: int,
    t: int,
    k: int,
    mark: int,
    shielded: int,
    phase: str,
    use: tuple[str, ...],
    guard: tuple[int, int, int],
) -> list[tuple[tuple[int, int, int], float]]:
    """Unit ``t``'s states (models left, Damage Marker, SHIELDED; 0, 0 once none is left) after unit ``u``'s ``a``
    models attack it with their ``phase`` chain (the abilities ``use`` on; "impact": :func:`impact_batches`) from
    ``k`` models left, Damage Marker ``mark``, ``guard`` the Reaction's (:meth:`~.features.Features.attack`), each
    with its probability, in the exact engine's order (no attack: the state as it is)."""
    batches = []
    if a > 0 and k > 0:
        mask = use_bits(sim, u, use) if use else 0
        if phase == "impact":
            batches = impact_batches(sim, u, mask, a)
        else:
            batches = attack_batches(sim.loadout(u, mask), sim.units[t].unit, phase, alive=a)
    if not batches:
        return [((max(k, 0), mark if k > 0 else 0, shielded if k > 0 else 0), 1.0)]
    tmask, cut, floor = guard
    phase = "combat" if phase == "impact" else phase  # IMPACT is resolved as a Close Combat attack (sim_combat)
    target = as_target(sim.loadout(t, tmask), phase, alive=k, marker=mark, shielded=bool(shielded))
    if k < sim.full[t]:
        target = dataclasses.replace(target, shield=0, shielded=False)  # the SHIELDED model is gone (sim_shoot)
    if cut:  # as the engine's (sim_shoot._transition)
        target = dataclasses.replace(target, damage_reduction=cut, reduction_floor=floor)
    out = []
    for st, pr in exact_outcomes(batches, target):
        left = max(k - int(st[0]), 0)
        out.append(((left, int(st[1]) if left else 0, int(bool(st[2])) if left else 0), pr))
    return out


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


def threat_column(
    ends: np.ndarray,
    leads: np.ndarray,
    reach: np.ndarray,
    charge: np.ndarray,
    speed: np.ndarray,
    ranged: np.ndarray,
    melee: np.ndarray,
) -> np.ndarray:
    """The ``threat`` column (:mod:`.features`' module text) at end points ``ends`` (E x 2) of the enemy units whose
    Leading Models are ``leads`` (V x 2), with their longest Ranged Weapon's ``reach``, whether they can ``charge``,
    their ``speed`` (:meth:`~.features.Features._fast`) and what their ``ranged`` and ``melee`` chains destroy of the
    unit (share x Supply): each enemy's hits where the end point is within its reach, added in the enemies' order."""
    out = np.zeros(len(ends), dtype=float)
    if not len(leads):
        return out
    gap = np.hypot(ends[:, 0, None] - leads[None, :, 0], ends[:, 1, None] - leads[None, :, 1])
    hits = np.where(gap <= (speed + reach)[None, :], ranged[None, :], 0.0)
    melee_hits = np.where(gap <= (speed + CHARGE_REACH)[None, :], melee[None, :], 0.0)
    hits = np.where(charge[None, :], np.maximum(hits, melee_hits), hits)
    for j in range(hits.shape[1]):  # one after another, as the per-enemy loop (the same sum to the bit)
        out += hits[:, j]
    return out


def marker_moves(
    ends: np.ndarray, pts: np.ndarray, hops: np.ndarray, speed: float, gap: np.ndarray, far: int, contest: float
) -> np.ndarray:
    """End points x markers: the Moves a unit with Move points ``pts``, ``hops`` Moves from each to each marker
    (:meth:`~.features.Features._steps`) and Speed ``speed`` needs from each end point to contest each marker: 0 where
    ``gap`` (the end points' distances to the markers) is within ``contest``, else one to the nearest Move point within
    Speed and that point's count, at most ``far``."""
    out = np.full(gap.shape, float(far))
    if pts.size:
        near = np.hypot(ends[:, 0, None] - pts[None, :, 0], ends[:, 1, None] - pts[None, :, 1]) <= speed
        best = np.where(near[:, :, None], hops[None, :, :], far - 1).min(axis=1)
        out = np.minimum(best + 1, far)
    out[gap <= contest] = 0
    return out


__all__ = [
    "CHARGE_REACH",
    "EXACT_LIMIT",
    "exact_outcomes",
    "impact_batches",
    "marker_moves",
    "resolve",
    "threat_column",
]
