"""Exact distributions of StarCraft TMG attacks: no sampling, pure numpy.

The engine follows the 5-step procedure of :mod:`mathhammer.starcraft.compiled`
in two stages:

1. :func:`batch_dice_pmf` gives, for one :class:`CompiledBatch`, the exact pmf
   of ``D``, the number of dice left in the Damage Pool after the Evade Rolls
   (8.7.4 steps 1-4). It does not depend on the target's state, so it is
   cached by :meth:`CompiledBatch.key`.
2. :func:`exact_tally` runs a Markov chain over the unit's state ``(removed,
   marker, shielded)`` carried from Batch to Batch (8.7.3, Batch sequence; with
   whether a Total Damage reduction is spent, where the target has one),
   with the cumulative Damage dealt kept as a vector per state. Casualties are
   :func:`~mathhammer.starcraft.compiled.apply_damage` itself (8.7.4 step 5).
   A Batch whose target has no model left that its attackers see (destroyed,
   or every Visible model removed) is not resolved (8.7.3 step 1).

Binomial pmfs are computed per pool size in O(n) memory (:func:`binomial_pmf`), never as an (n+1)^2
table: a batch's memory grows with its pool, not with its square (1,000 models x RoA 99: one pool of
99,000 dice). The mixtures of binomials of steps 3 and 4 run Pascal's rule over the window of the pool's
pmf that holds its mass (:func:`_thinned`).

>>> from mathhammer.starcraft.model import Weapon, Batch, Target, Attack
>>> from mathhammer.starcraft.compiled import compile_attack
>>> attack = Attack((Batch(Weapon.build(roa=1, hit=4), models=1),), Target.build(1, 1, armour=4))
>>> batches, target = compile_attack(attack)
>>> batch_dice_pmf(batches[0]).tolist()
[0.75, 0.25]
>>> exact_tally(batches, target).models_destroyed.tolist()
[0.75, 0.25]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from ..outcome import Tally
from .compiled import CompiledBatch, CompiledTarget, apply_damage, damage_bound, marker_bound

__all__ = ["batch_dice_pmf", "binomial_pmf", "binomial_table", "exact_states", "exact_tally"]

_K = TypeVar("_K", bound=Hashable)


#: Probabilities at most this small are dropped from the two ends of a pmf while it is built: every result
#: moves by less than (dice in the pool) x this, far below the 1e-12 the exact engine promises.
TINY = 1e-300
#: Binomial pmfs of up to this many dice are built by Pascal's rule (the sums of the old table, bit for bit);
#: larger ones from the mode outwards by the ratio of neighbouring terms, in O(n) time and memory.
PASCAL_MAX = 1024
#: :func:`binomial_table` (a whole table, for tests and small pools) is refused beyond this many dice.
TABLE_MAX = 1024


@lru_cache(maxsize=64)
def _binomial_pmf(sixths: int, n: int) -> np.ndarray:
    """The Binomial(n, sixths/6) pmf, float64[n + 1], read-only: O(n) memory, never a table."""
    p = sixths / 6.0
    q = (6 - sixths) / 6.0
    if n <= PASCAL_MAX or sixths in (0, 6):
        row = np.ones(1)
        for k in range(1, n + 1):
            nxt = np.empty(k + 1)
            nxt[:k] = row * q
            nxt[k] = 0.0
            nxt[1:] += row * p
            row = nxt
    else:
        mode = min(n, int((n + 1) * p))
        up = np.arange(mode, n, dtype=np.float64)  # k -> k + 1
        down = np.arange(mode, 0, -1, dtype=np.float64)  # k -> k - 1
        row = np.empty(n + 1)
        row[mode] = 1.0
        row[mode + 1 :] = np.cumprod((n - up) / (up + 1) * (p / q))
        row[:mode][::-1] = np.cumprod(down / (n - down + 1) * (q / p))
        row /= row.sum()
    row.flags.writeable = False
    return row


def binomial_pmf(sixths: int, n: int) -> np.ndarray:
    """P(Binomial(n, sixths/6) = j) for ``j = 0..n``: float64[n + 1], read-only (cached).

    O(n) memory whatever ``n``: Pascal's rule row by row up to :data:`PASCAL_MAX` dice, beyond it from the
    mode outwards (normalised to sum 1).

    >>> binomial_pmf(3, 2).tolist()
    [0.25, 0.5, 0.25]
    """
    if not 0 <= sixths <= 6:
        raise ValueError(f"sixths must be 0..6, got {sixths}")
    return _binomial_pmf(int(sixths), int(n))


def binomial_table(sixths: int, n: int) -> np.ndarray:
    """``table[k, j]`` = P(Binomial(k, sixths/6) = j) for ``0 <= j <= k <= n``, for tests and small pools.

    The engine never builds one (it uses :func:`binomial_pmf` rows); refused beyond :data:`TABLE_MAX` dice.

    Args:
        sixths: the success probability in sixths of a d6 (``7 - target`` for
            a ``target+`` roll), 0..6.
        n: the largest number of dice.

    >>> binomial_table(3, 2).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.25, 0.5, 0.25]]
    """
    if not 0 <= n <= TABLE_MAX:
        raise ValueError(f"n must be 0..{TABLE_MAX}, got {n}")
    table = np.zeros((n + 1, n + 1))
    for k in range(n + 1):
        table[k, : k + 1] = binomial_pmf(sixths, k)
    return table


def _window(pmf: np.ndarray) -> tuple[int, np.ndarray]:
    """``(first, values)``: the pmf without the entries at most :data:`TINY` at either end."""
    big = np.flatnonzero(pmf > TINY)
    if big.size == 0:
        return 0, pmf[:0]
    return int(big[0]), pmf[big[0] : big[-1] + 1]


def _thinned(w: np.ndarray, sixths: int) -> np.ndarray:
    """pmf of the successes of ``R`` dice at ``sixths`` in 6 each, ``R`` drawn from ``w``: same length as ``w``.

    ``sum_r w[r] Binomial(r, sixths/6)``, the rows made one from the next by Pascal's rule over the
    window of ``w`` that holds its mass: O(len(w)) memory.
    """
    out = np.zeros(w.size)
    lo, vals = _window(w)
    if vals.size == 0:
        return out
    if sixths == 0:
        out[0] = vals.sum()
        return out
    if sixths == 6:
        out[lo : lo + vals.size] = vals
        return out
    p = sixths / 6.0
    q = (6 - sixths) / 6.0
    first, row = _window(binomial_pmf(sixths, lo))
    for i, weight in enumerate(vals.tolist()):
        if weight > 0.0:
            out[first : first + row.size] += weight * row
        if i == vals.size - 1:
            break
        nxt = np.empty(row.size + 1)
        nxt[:-1] = row * q
        nxt[-1] = 0.0
        nxt[1:] += row * p
        if nxt[0] <= TINY or nxt[-1] <= TINY:
            shift, nxt = _window(nxt)
            first += shift
        row = nxt
    return out


def _successes_pmf(cb: CompiledBatch) -> np.ndarray:
    """pmf of Hit successes over all groups (8.7.4 step 1), length total_dice + 1."""
    first, acc = 0, np.ones(1)
    for n, t in zip(cb.n_dice.tolist(), cb.hit_target.tolist(), strict=True):
        if n > 0:
            shift, row = _window(binomial_pmf(7 - int(t), n))
            acc = np.convolve(acc, row)
            first += shift
    out = np.zeros(cb.total_dice + 1)
    out[first : first + acc.size] = acc
    return out


def _armour_pool_pmf(cb: CompiledBatch) -> np.ndarray:
    """pmf of A, the dice in the Armour Pool after step 1 (PRECISION and HITS included)."""
    total = cb.total_dice
    succ = _successes_pmf(cb)
    s = np.arange(total + 1)
    hits = s + np.minimum(cb.precision, total - s) + cb.auto_hits
    return np.bincount(hits, weights=succ, minlength=cb.max_pool + 1)


def _moved_left(cb: CompiledBatch, p_a: np.ndarray) -> np.ndarray:
    """``w[m, r]`` = P(m dice moved by Surge + CRITICAL HIT - DODGE, r left in the Armour Pool) (8.7.4 step 2).

    O(pool x Surge values) memory: ``m`` is at most the largest Surge result + CRITICAL HIT.
    """
    pool = p_a.size - 1
    surge = cb.surge_pmf
    m_top = max(0, min(surge.size - 1 + cb.critical - cb.dodge, pool))
    a = np.arange(pool + 1)
    w = np.zeros((m_top + 1) * (pool + 1))
    for s, ps in enumerate(surge.tolist()):
        if ps > 0.0:
            moved = np.maximum(0, np.minimum(s + cb.critical, a) - cb.dodge)
            w += np.bincount(moved * (pool + 1) + (a - moved), weights=p_a * ps, minlength=w.size)
    return w.reshape(m_top + 1, pool + 1)


def _dice_pmf(cb: CompiledBatch) -> np.ndarray:
    pool = cb.max_pool
    p_a = _armour_pool_pmf(cb)
    dice = np.zeros(pool + 1)
    for m, left in enumerate(_moved_left(cb, p_a)):
        if not left.any():
            continue
        # Step 3: Armour Rolls; failures (armour_target - 1 in 6) go to the Damage Pool,
        # TOUGH (X) turns up to X of them into successes.
        fail = _thinned(left, cb.armour_target - 1)
        if cb.tough > 0:
            fail = np.concatenate(([fail[: cb.tough + 1].sum()], fail[cb.tough + 1 :]))
        # D = m + f (m + f <= A <= pool, so nothing falls beyond the pool).
        size = min(fail.size, pool + 1 - m)
        dice[m : m + size] += fail[:size]
    # Step 4: Evade Rolls; each die survives on a failed roll (evade_target - 1 in 6).
    if cb.evade:
        dice = _thinned(dice, cb.evade_target - 1)
    return dice


#: Dice pmfs by :meth:`CompiledBatch.key` (oldest dropped first beyond the limit).
_PMF_CACHE: dict[tuple[object, ...], np.ndarray] = {}
_PMF_CACHE_MAX = 1024


def batch_dice_pmf(cb: CompiledBatch) -> np.ndarray:
    """pmf over D = number of dice left in the Damage Pool after step 4 (Evade), D = 0..cb.max_pool.

    Batches with the same :meth:`CompiledBatch.key` share one cached,
    read-only result.

    Args:
        cb: the compiled Batch.

    Returns:
        float64[cb.max_pool + 1], summing to 1.

    >>> from mathhammer.starcraft.model import Weapon, Batch, Target
    >>> from mathhammer.starcraft.compiled import compile_batch
    >>> cb = compile_batch(Batch(Weapon.build(roa=1, hit=4, keywords=["PRECISION (1)"])), Target.build(armour=4))
    >>> batch_dice_pmf(cb).tolist()
    [0.5, 0.5]
    """
    key = cb.key()
    out = _PMF_CACHE.get(key)
    if out is None:
        out = _dice_pmf(cb)
        out.flags.writeable = False
        if len(_PMF_CACHE) >= _PMF_CACHE_MAX:
            _PMF_CACHE.pop(next(iter(_PMF_CACHE)))
        _PMF_CACHE[key] = out
    return out


def _chain(
    batches: Sequence[CompiledBatch], target: CompiledTarget, keep_spent: bool = False
) -> tuple[dict[Any, np.ndarray], int]:
    """The Markov chain of :func:`exact_tally`: final states, each with its pmf of Damage dealt.

    While the chain runs, a state also says whether the target's Total Damage reduction
    (``target.reduce``) is spent: it is used at the first Batch that deals Damage. ``keep_spent``: the final
    states keep it (a fourth key element) instead of merging it away.
    """
    hp = target.hp
    dmg_size = damage_bound(batches) + 1
    start = np.zeros(dmg_size)
    start[0] = 1.0
    states: dict[tuple[int, int, bool, bool], np.ndarray] = {
        (0, int(target.marker), bool(target.shielded), target.reduce == 0): start,
    }
    reach = 0  # largest damage index with mass so far
    for cb in batches:
        pmf = batch_dice_pmf(cb)
        dice = [(d, float(p)) for d, p in enumerate(pmf.tolist()) if p > 0.0]
        step = int(cb.damage)
        new: dict[tuple[int, int, bool, bool], np.ndarray] = {}
        for (removed, marker, shielded, spent), vec in states.items():
            if removed >= min(cb.visible, target.models):
                # The unit is destroyed, or none of its models Visible to this Batch's attackers is left (every
                # removed model was a Visible one): it is no valid target (8.7.3 step 1 TARGET ELIGIBILITY, BATCH
                # SEQUENCE), so the Batch is not resolved: no dice, no Damage, no NON-LETHAL DAMAGE.
                _accumulate(new, (removed, marker, shielded, spent), vec, dmg_size)
                continue
            head = vec[: reach + 1]
            cut = 0 if spent else target.reduce
            for d, p in dice:
                nxt = (
                    *apply_damage(
                        hp, removed, marker, shielded, target.shield, d, step, cb.nonlethal, cb.visible,
                        cb.concentrated, cut, target.floor,
                    ),
                    spent or d * step > 0,
                )  # fmt: skip
                acc = new.get(nxt)
                if acc is None:
                    acc = new[nxt] = np.zeros(dmg_size)
                off = d * step
                acc[off : off + reach + 1] += p * head
        reach += (len(pmf) - 1) * step
        states = new
    if keep_spent:  # (with no reduction at all, never used)
        return {(*key[:3], bool(key[3] and target.reduce > 0)): vec for key, vec in states.items()}, dmg_size
    out: dict[tuple[int, int, bool], np.ndarray] = {}
    for (removed, marker, shielded, _spent), vec in states.items():
        _accumulate(out, (removed, marker, shielded), vec, dmg_size)
    return out, dmg_size


def exact_tally(batches: Sequence[CompiledBatch], target: CompiledTarget) -> Tally:
    """Exact distributions after a chain of Batches (trials=0, entries are probabilities).

    The state carried from Batch to Batch is ``(removed, marker, shielded)``
    (8.7.3, Batch sequence); each state keeps the pmf of the Damage dealt so
    far (dice in the Damage Pool x Damage, summed over the chain).

    Args:
        batches: the chain, in order.
        target: the target unit at the start.

    Returns:
        A :class:`~mathhammer.outcome.Tally` with probabilities.
    """
    states, dmg_size = _chain(batches, target)
    models = target.models
    destroyed_h = np.zeros(models + 1)
    marker_h = np.zeros(marker_bound(batches, target) + 1)
    shielded_h = np.zeros(2)
    damage_h = np.zeros(dmg_size)
    for (removed, mark, shield), vec in states.items():
        mass = float(vec.sum())
        destroyed_h[removed] += mass
        marker_h[mark] += mass
        shielded_h[int(shield)] += mass
        damage_h += vec
    return Tally(damage=damage_h, models_destroyed=destroyed_h, marker=marker_h, shielded=shielded_h, trials=0)


def exact_states(
    batches: Sequence[CompiledBatch], target: CompiledTarget, spent: bool = False
) -> dict[tuple[int, ...], float]:
    """The joint distribution of the unit's state after the chain: ``(removed, marker, shielded) -> P``.

    This is what a scenario carries from one attack to the next (models left, Damage Marker,
    SHIELDED), so a whole game can be sampled from exact per-attack transitions.

    >>> from mathhammer.starcraft.model import Weapon, Batch, Target, Attack
    >>> from mathhammer.starcraft.compiled import compile_attack
    >>> bs, t = compile_attack(Attack((Batch(Weapon.build(roa=1, hit=4), models=1),), Target.build(1, 2, armour=4)))
    >>> exact_states(bs, t)
    {(0, 0, False): 0.75, (0, 1, False): 0.25}

    ``spent``: the keys end with whether the target's Total Damage reduction was used (a Reaction whose use
    costs something: Zealous Round), ``(removed, marker, shielded, spent)``:

    >>> from dataclasses import replace
    >>> exact_states(bs, replace(t, reduce=1), spent=True)
    {(0, 0, False, False): 0.75, (0, 0, False, True): 0.25}
    """
    states, _ = _chain(batches, target, spent)
    return {key: float(vec.sum()) for key, vec in sorted(states.items())}


def _accumulate(states: dict[_K, np.ndarray], key: _K, vec: np.ndarray, size: int) -> None:
    acc = states.get(key)
    if acc is None:
        states[key] = vec.copy()
    else:
        acc += vec
