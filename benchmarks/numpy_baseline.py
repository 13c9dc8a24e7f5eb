"""A plain numpy, vectorised, die-by-die Monte Carlo of a compiled chain (no numba).

The baseline the numba engine must beat: every d6 is an element of an array,
trials are processed in blocks so memory stays bounded, and casualties follow
:func:`mathhammer.starcraft.compiled.apply_damage` with array operations.

    python benchmarks/numpy_baseline.py   # prints the reference Batch's distribution
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mathhammer.outcome import Tally
from mathhammer.starcraft.compiled import CompiledBatch, CompiledTarget, damage_bound, marker_bound


def _successes(rng: np.random.Generator, pool: np.ndarray, target: int) -> np.ndarray:
    """Successes of ``pool[i]`` d6 against ``target`` for every trial ``i``."""
    width = int(pool.max(initial=0))
    if width == 0:
        return np.zeros_like(pool)
    rolls = rng.integers(1, 7, size=(pool.size, width), dtype=np.int8)
    used = np.arange(width) < pool[:, None]
    return ((rolls >= target) & used).sum(axis=1)


def _apply_damage(hp, removed, marker, shielded, shield, dice, damage, nonlethal, visible, concentrated):
    """:func:`~mathhammer.starcraft.compiled.apply_damage` on arrays of trials."""
    models = hp.size
    left = models - removed
    active = left > 0
    if nonlethal:
        marker = np.where(active, marker + nonlethal, marker)
        shielded = shielded & ~(active & (marker > shield))
    lethal = active & (dice > 0)
    total = dice * damage + marker
    shielded = shielded & ~(lethal & (total > shield))
    visible_left = np.maximum(0, min(visible, models) - removed)
    cap = np.minimum(visible_left, left)
    if concentrated:
        cap = np.minimum(cap, concentrated)
    killed = np.zeros_like(removed)
    for _ in range(models):
        idx = removed + killed
        next_hp = hp[np.minimum(idx, models - 1)]
        can = lethal & (killed < cap) & (idx < models) & (total >= next_hp)
        if not can.any():
            break
        total = total - np.where(can, next_hp, 0)
        killed = killed + can
    shielded = shielded & ~(lethal & (removed == 0) & (killed > 0))
    wipe = (killed == left) | (killed == visible_left)
    if concentrated:
        wipe |= killed == concentrated
    total = np.where(wipe, 0, total)
    marker = np.where(lethal, total, marker)
    marker = np.where(active, marker, 0)
    shielded = shielded & active
    return removed + killed, marker, shielded


def _block(batches, target, n, rng):
    hp = np.asarray(target.hp, dtype=np.int64)
    models = hp.size
    removed = np.zeros(n, dtype=np.int64)
    marker = np.full(n, target.marker, dtype=np.int64)
    shielded = np.full(n, bool(target.shielded))
    dealt = np.zeros(n, dtype=np.int64)
    for cb in batches:
        alive = removed < models  # a destroyed unit is no longer a target
        hits = np.zeros(n, dtype=np.int64)
        failures = np.zeros(n, dtype=np.int64)
        for dice, t in zip(cb.n_dice.tolist(), cb.hit_target.tolist(), strict=True):
            if dice:
                s = (rng.integers(1, 7, size=(n, dice), dtype=np.int8) >= t).sum(axis=1)
                hits += s
                failures += dice - s
        pool = hits + np.minimum(cb.precision, failures) + cb.auto_hits
        surge = np.zeros(n, dtype=np.int64)
        if cb.surge is not None:
            surge += cb.surge.bonus
            if cb.surge.n:
                surge += rng.integers(1, cb.surge.sides + 1, size=(n, cb.surge.n)).sum(axis=1)
        moved = np.maximum(0, np.minimum(surge + cb.critical, pool) - cb.dodge)
        pool = pool - moved
        failed = pool - _successes(rng, pool, cb.armour_target)
        dice = moved + np.maximum(0, failed - cb.tough)
        if cb.evade:
            dice = dice - _successes(rng, dice, cb.evade_target)
        dice = np.where(alive, dice, 0)
        dealt += dice * cb.damage
        new = _apply_damage(
            hp, removed, marker, shielded, target.shield, dice, cb.damage, cb.nonlethal, cb.visible, cb.concentrated
        )
        removed = np.where(alive, new[0], removed)
        marker = np.where(alive, new[1], marker)
        shielded = np.where(alive, new[2], shielded)
    return dealt, removed, marker, shielded


def numpy_tally(
    batches: Sequence[CompiledBatch], target: CompiledTarget, trials: int, seed: int = 0, block: int = 2**20
) -> Tally:
    """Monte Carlo :class:`~mathhammer.outcome.Tally` of ``trials`` trials, numpy only."""
    rng = np.random.default_rng(seed)
    sizes = (damage_bound(batches) + 1, target.models + 1, marker_bound(batches, target) + 1, 2)
    hists = [np.zeros(s, dtype=np.int64) for s in sizes]
    done = 0
    while done < trials:
        n = min(block, trials - done)
        for h, values in zip(hists, _block(batches, target, n, rng), strict=True):
            h += np.bincount(np.asarray(values, dtype=np.int64), minlength=h.size)[: h.size]
        done += n
    names = ("damage", "models_destroyed", "marker", "shielded")
    return Tally(trials, **{k: h.astype(np.float64) for k, h in zip(names, hists, strict=True)})


if __name__ == "__main__":
    import sys

    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from bench_engine import reference_chain

    batches, target = reference_chain()
    tally = numpy_tally(batches, target, 1_000_000)
    print("models destroyed:", np.round(tally.models_destroyed / tally.trials, 4).tolist())
