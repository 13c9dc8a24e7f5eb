"""Numba kernels of the Monte Carlo engine: arrays and scalars in, counts out.

Three layers (see ``/work/shared/design/STYLE.md``): single-trial helpers
(the pool draws inlined in numba's IR; :func:`_casualties`, :func:`_dice`
and :func:`_surge` plain calls, which halves the cold compile at no
measured cost in speed); a
single-thread loop over the trials of one slot (:func:`_run_slot`); and the
``prange`` driver (:func:`run_block`) that gives every slot its own
histogram row. The typed
layer that builds the arrays is :mod:`mathhammer.starcraft.montecarlo`.

One trial follows the procedure of :mod:`mathhammer.starcraft.compiled`
exactly. Two ways to draw a pool's successes:

- ``METHOD_COUNT``: one 64-bit draw per pool, turned into a binomial count
  by Walker's alias method on the table ``binom_alias[target - 2, n]``
  (O(1) and branch-free, see :func:`_alias`); the Surge result from its own
  alias table.
- ``METHOD_DIE``: every d6 rolled (two per 64-bit draw) and tested with the
  bitmask ``(mask >> face) & 1``; the S Dice rolled as N dice of M sides + K.

The method is chosen by the *types* of two arguments: numba prunes a branch at
compile time only on a test ``x is None`` / ``x is not None`` where ``x`` *is*
``None`` (a test on an array is kept, and every call under it compiled). So
each path is under a test of an argument that is ``None`` when the path is not
taken: ``binom_alias`` (``None`` for die) and ``die`` (``None`` for count), and
for casualties ``trans`` (``None`` without the table) and ``cas`` (``None``
with it). Each method (and each way to take casualties) compiles only its own
code: the count kernel with the table compiles neither :func:`_dice` nor
:func:`_casualties`.

:func:`_casualties` is the contract's
:func:`~mathhammer.starcraft.compiled.apply_damage` with fewer unpredictable
branches, tested equal to it on every small input; the driver's transition
tables are that function tabulated.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..config import INLINE, JIT, PARALLEL
from ..engine.rng import below, high32, low32, mix64, next_u64, trial_state
from ..engine.tables import alias_draw as _alias
from .mcparams import (  # the methods and the parameter table's columns: one layout for both engines
    P_ARMOUR,
    P_AUTO_HITS,
    P_CONCENTRATED,
    P_CRITICAL,
    P_DAMAGE,
    P_DODGE,
    P_EVADE,
    P_EVADE_TARGET,
    P_FLOOR,
    P_GROUP_START,
    P_GROUP_STOP,
    P_NONLETHAL,
    P_PRECISION,
    P_REDUCE,
    P_SURGE_BONUS,
    P_SURGE_N,
    P_SURGE_SIDES,
    P_SURGE_SIZE,
    P_TOUGH,
    P_VISIBLE,
)

#: Units of at most this many models take casualties by a fixed-length count
#: (no data-dependent loop exit to mispredict); larger ones by the loop.
SMALL_UNIT = 16


@njit(**JIT)
def _casualties(
    hp, cum, removed, marker, shielded, shield, dice, damage, nonlethal, visible, concentrated, reduce, floor
):
    """The contract's ``apply_damage`` with fewer unpredictable branches.

    ``cum[i]`` is the HP of the first ``i`` models. Models removed = how many
    of the next ``cap`` models' cumulative HP fit in the Total Damage, counted
    over a fixed number of steps; "no dice in the Damage Pool" is a select,
    not an early return. Tested equal to the contract's ``apply_damage`` on every small
    input.
    """
    models = hp.shape[0]
    left = models - removed
    if left <= 0:
        return removed, 0, False
    if nonlethal != 0:
        marker += nonlethal
        shielded = shielded & (marker <= shield)
    total = dice * damage + marker
    # a reduction of the Total Damage, where the Batch deals Damage (``reduce`` 0: total unchanged)
    total = max(total - reduce * np.int64(dice * damage > 0), min(total, floor))
    kept_shield = shielded & (total <= shield)
    visible_left = max(0, min(visible, models) - removed)
    cap = min(visible_left, left)
    if concentrated != 0:
        cap = min(cap, concentrated)
    base = cum[removed]
    killed = 0
    if models <= SMALL_UNIT:
        for k in range(models):
            killed += (k < cap) & (cum[min(removed + k + 1, models)] - base <= total)
    else:
        while killed < cap and cum[removed + killed + 1] - base <= total:
            killed += 1
    rest = total - (cum[removed + killed] - base)
    kept_shield = kept_shield & ((removed != 0) | (killed == 0))
    wipe = (killed == left) | (killed == visible_left) | ((concentrated != 0) & (killed == concentrated))
    rest = 0 if wipe else rest
    # No dice in the Damage Pool: step 5 is skipped. Arithmetic, not a branch
    # (the pool is empty in a fair share of trials, so a branch mispredicts).
    lethal = np.int64(dice > 0)
    return (
        removed + killed * lethal,
        marker + (rest - marker) * lethal,
        (kept_shield & (lethal == 1)) | (shielded & (lethal == 0)),
    )


@njit(**INLINE)
def _binomial(state, gamma, n, target, binom_alias):
    """Successes of ``n`` d6 against ``target`` from the alias tables: ``(state, successes)``.

    Pools larger than the tables are drawn in pieces (a sum of binomials is
    binomial) by :func:`_binomial_pieces`, a plain call: the common case
    stays one inlined table draw (a ``while`` around it made it 7x slower,
    and an inlined loop at every pool doubles the cold compile).
    """
    if n < binom_alias.shape[1]:
        return _alias(state, gamma, n + 1, binom_alias, target - 2, n)
    return _binomial_pieces(state, gamma, n, target, binom_alias)


@njit(**JIT)
def _binomial_pieces(state, gamma, n, target, binom_alias):
    """Successes of a pool larger than the tables, drawn in table-sized pieces."""
    largest = binom_alias.shape[1] - 1
    successes = 0
    while n > 0:
        m = min(n, largest)
        state, s = _alias(state, gamma, m + 1, binom_alias, target - 2, m)
        successes += s
        n -= m
    return state, successes


@njit(**JIT)
def _dice(state, gamma, n, target):
    """Successes of ``n`` d6 rolled one by one against ``target``: ``(state, successes)``."""
    mask = np.int64(0x3F) >> (target - 1) << (target - 1)  # bit f set: face f + 1 succeeds
    successes = 0
    i = 0
    while i + 1 < n:
        state, x = next_u64(state, gamma)
        successes += (mask >> below(low32(x), 6)) & 1
        successes += (mask >> below(high32(x), 6)) & 1
        i += 2
    if i < n:
        state, x = next_u64(state, gamma)
        successes += (mask >> below(low32(x), 6)) & 1
    return state, successes


@njit(**INLINE)
def _successes(state, gamma, n, target, binom_alias, die):
    """Successes of a pool of ``n`` d6 (no test for ``n == 0``: row 0 of the tables gives 0).

    The count method has tables and ``die is None``; the die method ``binom_alias is None`` and any ``die``:
    each test is on an argument that is ``None`` where its path is not taken, so numba prunes it (the module
    text). The last line is never reached.
    """
    if binom_alias is not None:
        return _binomial(state, gamma, n, target, binom_alias)
    if die is not None:
        return _dice(state, gamma, n, target)
    return state, np.int64(0)


@njit(**JIT)
def _surge(state, gamma, params, b, surge_alias, die):
    """The Surge result of Batch ``b`` (0 when Surge does not apply); ``surge_alias is None``: die method
    (``die is None``: count method; each path compiles alone, the module text)."""
    m = params[b, P_SURGE_SIZE]
    if m <= 1:
        return state, 0
    if surge_alias is not None:
        state, j = _alias(state, gamma, m, surge_alias, b, 0)
        return state, j
    if die is None:
        return state, 0  # never reached: the count method has its alias table
    result = params[b, P_SURGE_BONUS]
    sides = params[b, P_SURGE_SIDES]
    for _ in range(params[b, P_SURGE_N]):
        state, x = next_u64(state, gamma)
        result += below(low32(x), sides) + 1
    return state, result


@njit(**INLINE)
def _trial(
    state,
    gamma,
    params,
    g_dice,
    g_target,
    surge_alias,
    binom_alias,
    hp,
    cum,
    shield,
    marker,
    shielded,
    trans,
    kmark,
    die,
    cas,
):
    """One trial of the chain: ``(damage dealt, removed, marker, shielded)``.

    Casualties come from the transition table ``trans[b, state, dice]`` when
    the driver built one (state ``(removed * kmark + marker) * 2 +
    shielded``; then ``cas is None``), else from :func:`_casualties` (``trans is None``, ``cas`` not): numba
    compiles only the path taken (the module text). ``die``: ``None`` with the count method.
    """
    dealt = 0
    removed = np.int64(0)  # not the literal 0: _casualties would compile for Literal[int](0) and for int64
    spent = 0  # the target's Total Damage reduction used (it has none: P_REDUCE 0 in every Batch)
    models = hp.shape[0]
    code = (marker * 2 + np.int64(shielded)) if trans is not None else 0
    dead = models * kmark * 2
    for b in range(params.shape[0]):
        # A destroyed unit is no longer a target: later Batches are not resolved. Nor is one with no model left
        # Visible to this Batch's attackers (8.7.3 step 1 TARGET ELIGIBILITY; every removed model was Visible).
        if cas is not None:
            if removed == models:
                break
            if removed >= params[b, P_VISIBLE]:
                continue
        if trans is not None:
            if code >= dead:
                break
            if code // (2 * kmark) >= params[b, P_VISIBLE]:
                continue
        # 1. Attack Pool, PRECISION, HITS.
        hits = 0
        failures = 0
        for g in range(params[b, P_GROUP_START], params[b, P_GROUP_STOP]):
            n = g_dice[g]
            state, s = _successes(state, gamma, n, g_target[g], binom_alias, die)
            hits += s
            failures += n - s
        hits += min(params[b, P_PRECISION], failures) + params[b, P_AUTO_HITS]
        # 2. Surge, CRITICAL HIT, DODGE.
        state, surge = _surge(state, gamma, params, b, surge_alias, die)
        moved = max(0, min(surge + params[b, P_CRITICAL], hits) - params[b, P_DODGE])
        pool = hits - moved
        # 3. Armour Rolls, TOUGH.
        state, saved = _successes(state, gamma, pool, params[b, P_ARMOUR], binom_alias, die)
        dice = moved + max(0, pool - saved - params[b, P_TOUGH])
        # 4. Evade Rolls.
        if params[b, P_EVADE] != 0:
            state, evaded = _successes(state, gamma, dice, params[b, P_EVADE_TARGET], binom_alias, die)
            dice -= evaded
        # 5. Damage and casualties.
        damage = dice * params[b, P_DAMAGE]
        dealt += damage
        if cas is not None:
            cut = params[b, P_REDUCE] * (1 - spent)
            removed, marker, shielded = _casualties(
                hp, cum, removed, marker, shielded, shield, dice, params[b, P_DAMAGE],
                params[b, P_NONLETHAL], params[b, P_VISIBLE], params[b, P_CONCENTRATED], cut, params[b, P_FLOOR],
            )  # fmt: skip
            spent |= np.int64(damage > 0)
        if trans is not None:
            code = np.int64(trans[b, code, dice])
    if trans is not None:
        removed = code // (2 * kmark)
        marker = (code >> 1) % kmark
        shielded = (code & 1) == 1
    return dealt, removed, marker, shielded


# Entries of ``layout``: where each histogram lives in a slot's row of ``hist``.
# Each histogram ends with an overflow bin that must stay empty.
L_DAMAGE = 0  # offset; the length is layout[L_DAMAGE + 1]
L_MODELS = 2
L_MARKER = 4
L_SHIELDED = 6


@njit(**INLINE)
def _count(row, start, size, value):
    """Add one to bin ``value`` of the histogram at ``row[start : start + size]`` (its last bin: overflow)."""
    row[start + min(value, size - 1)] += 1


@njit(**JIT)
def _run_slot(
    slot, n_slots, key, gamma, first, n, chunk, params, g_dice, g_target, surge_alias,
    binom_alias, die, hp, cum, shield, marker, shielded, trans, kmark, cas, layout, row,
):  # fmt: skip
    """Trials of chunks ``slot, slot + n_slots, ...`` of ``[first, first + n)``, counted into ``row``."""
    # Read the layout once: LLVM must assume ``row`` and ``layout`` alias and
    # would reload it after every count.
    d0, d1 = layout[L_DAMAGE], layout[L_DAMAGE + 1]
    m0, m1 = layout[L_MODELS], layout[L_MODELS + 1]
    k0, k1 = layout[L_MARKER], layout[L_MARKER + 1]
    s0 = layout[L_SHIELDED]
    n_chunks = (n + chunk - 1) // chunk
    for c in range(slot, n_chunks, n_slots):
        stop = min(n, (c + 1) * chunk)
        for i in range(c * chunk, stop):
            state = trial_state(key, gamma, first + i)
            dealt, removed, mark, sh = _trial(
                state, gamma, params, g_dice, g_target, surge_alias, binom_alias,
                hp, cum, shield, marker, shielded, trans, kmark, die, cas,
            )  # fmt: skip
            _count(row, d0, d1, dealt)
            _count(row, m0, m1, removed)
            _count(row, k0, k1, mark)
            row[s0 + np.int64(sh)] += 1


@njit(**PARALLEL)
def run_block(
    key, gamma, first, n, chunk, params, g_dice, g_target, surge_alias, binom_alias, die,
    hp, cum, shield, marker, shielded, trans, kmark, cas, layout, hist,
):  # fmt: skip
    """Run trials ``first .. first + n - 1``, adding counts to row ``slot`` of ``hist``.

    Chunk ``c`` (trials ``c * chunk ..``, relative to ``first``) goes to slot
    ``c % n_slots``; the numbers a trial draws depend on the seed's stream
    ``(key, gamma)`` and its index
    only, and integer counts add up the same in any order, so the summed rows
    do not depend on the number of slots, threads or the chunk size. Rows are
    padded by the driver so two slots never write to one cache line.
    """
    n_slots = hist.shape[0]
    for slot in prange(n_slots):
        _run_slot(
            slot, n_slots, key, gamma, first, n, chunk, params, g_dice, g_target, surge_alias,
            binom_alias, die, hp, cum, shield, marker, shielded, trans, kmark, cas, layout, hist[slot],
        )  # fmt: skip


@njit(**JIT)
def _d6_slot(key, gamma, first, n):
    total = 0
    state = trial_state(key, gamma, first)
    for _ in range(n // 2):
        state = state + gamma
        x = mix64(state)
        total += below(low32(x), 6) + below(high32(x), 6)
    return total


@njit(**PARALLEL)
def d6_limit(key, gamma, n_per_slot, out):
    """The generator's limit: every slot rolls ``n_per_slot`` d6 (two per draw) and sums them into ``out``."""
    for slot in prange(out.shape[0]):
        out[slot] = _d6_slot(key, gamma, slot * 64, n_per_slot)  # 64 trial blocks (2**32 draws) apart
