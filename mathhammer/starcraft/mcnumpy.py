"""StarCraft TMG's Monte Carlo count method in numpy: the numba kernel's very counts, without numba's start.

:func:`run_block` is :func:`mathhammer.starcraft.kernels.run_block` for the count method (the default path
of an ordinary attack) with casualties from transition tables, vectorised over the trials of a block instead of
looping over them: one uint64 state per trial (:func:`~mathhammer.engine.streams.trial_states`), advanced by
``gamma`` at each draw of the trials that make it, and the same integer alias draws
(:func:`~mathhammer.engine.alias.alias_draws`). A trial's numbers depend on the seed's stream and its index
only, and a trial that skips a draw in the kernel (a destroyed target, no model Visible to a Batch, no Surge)
keeps its state here too, so the same seed gives the same histograms, bit for bit (tested on every rule).

Loading numba and its cached kernels takes about a second (``benchmarks/RESULTS.md``); a run of a few
hundred thousand trials takes milliseconds here. The typed layer (:mod:`mathhammer.starcraft.montecarlo`)
chooses the engine. Like the kernels: plain arrays and scalars in, counts out. Importing this module imports
no numba.
"""

from __future__ import annotations

import numpy as np

from ..engine.alias import alias_draws
from ..engine.streams import mix64, trial_states
from . import mcparams as mp

#: Trials per vectorised step: arrays of this many int64 stay in the caches, and memory stays flat.
BLOCK = 4096

__all__ = ["BLOCK", "draws_per_trial", "run_block"]


def draws_per_trial(params: np.ndarray) -> int:
    """Most random draws and table look-ups one trial makes (the engine's work per trial, for the choice)."""
    groups = params[:, mp.P_GROUP_STOP] - params[:, mp.P_GROUP_START]
    surge = params[:, mp.P_SURGE_SIZE] > 1
    evade = params[:, mp.P_EVADE] != 0
    return int(np.sum(groups + surge + evade + 2))  # + the Armour Roll and the casualty look-up


def _successes(state: np.ndarray, gamma: np.uint64, n: np.ndarray | int, rows: np.ndarray) -> np.ndarray:
    """Successes of pools of ``n`` d6 (an int, or one per trial) from the binomial alias rows ``rows[n]`` of
    one target number; ``state`` advances in place. As the kernel's ``_binomial``: a pool within the table is
    one draw (also an empty pool), a larger one is drawn in pieces of the table's largest pool."""
    largest = rows.shape[0] - 1
    if np.max(n) <= largest:
        state += gamma
        return alias_draws(mix64(state), np.add(n, 1), rows, n)
    left = np.broadcast_to(n, state.shape).astype(np.int64)
    out = np.zeros(state.shape, dtype=np.int64)
    small = left <= largest
    if small.any():
        s = state[small] + gamma
        state[small] = s
        out[small] = alias_draws(mix64(s), left[small] + 1, rows, left[small])
        left[small] = 0
    while True:
        going = left > 0
        if not going.any():
            return out
        piece = np.minimum(left[going], largest)
        s = state[going] + gamma
        state[going] = s
        out[going] += alias_draws(mix64(s), piece + 1, rows, piece)
        left[going] -= piece


def _batch(
    state: np.ndarray,
    gamma: np.uint64,
    p: np.ndarray,
    g_dice: np.ndarray,
    g_target: np.ndarray,
    surge_row: np.ndarray,
    binom_alias: np.ndarray,
) -> np.ndarray:
    """Steps 1-4 of one Batch for the trials of ``state`` (advanced in place): the dice in the Damage Pool."""
    hits: np.ndarray | int = 0
    failures: np.ndarray | int = 0
    # 1. Attack Pool, PRECISION, HITS.
    for g in range(p[mp.P_GROUP_START], p[mp.P_GROUP_STOP]):
        n = int(g_dice[g])
        s = _successes(state, gamma, n, binom_alias[g_target[g] - 2])
        hits = hits + s
        failures = failures + (n - s)
    hits = np.minimum(p[mp.P_PRECISION], failures) + p[mp.P_AUTO_HITS] + hits
    hits = np.broadcast_to(hits, state.shape)
    # 2. Surge, CRITICAL HIT, DODGE.
    surge: np.ndarray | int = 0
    if p[mp.P_SURGE_SIZE] > 1:
        state += gamma
        surge = alias_draws(mix64(state), int(p[mp.P_SURGE_SIZE]), surge_row)
    moved = np.maximum(0, np.minimum(surge + p[mp.P_CRITICAL], hits) - p[mp.P_DODGE])
    pool = hits - moved
    # 3. Armour Rolls, TOUGH.
    saved = _successes(state, gamma, pool, binom_alias[p[mp.P_ARMOUR] - 2])
    dice = moved + np.maximum(0, pool - saved - p[mp.P_TOUGH])
    # 4. Evade Rolls.
    if p[mp.P_EVADE] != 0:
        dice = dice - _successes(state, gamma, dice, binom_alias[p[mp.P_EVADE_TARGET] - 2])
    return dice


def _casualties(
    b: int,
    code: np.ndarray,
    dice: np.ndarray,
    damage: int,
    trans: np.ndarray,
    reduced: np.ndarray | None,
    spent: np.ndarray | None,
) -> np.ndarray:
    """Step 5 of Batch ``b``: the casualty states after ``dice`` in the Damage Pool (int64). With a Total Damage
    reduction (``reduced``: its table), trials whose reduction is not ``spent`` use it; ``spent`` is updated in
    place (used at the first Batch that deals Damage, as the kernel's ``spent``)."""
    flat = code * trans.shape[2] + dice
    after = trans[b].take(flat).astype(np.int64)
    if reduced is None or spent is None:
        return after
    after = np.where(spent, after, reduced[b].take(flat))
    spent |= dice * damage > 0
    return after


def _trials(
    key: np.uint64, gamma: np.uint64, first: int, n: int, params: np.ndarray, g_dice: np.ndarray,
    g_target: np.ndarray, surge_alias: np.ndarray, binom_alias: np.ndarray, models: int, marker: int,
    shielded: bool, trans: np.ndarray, kmark: int, reduced: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Trials ``first .. first + n - 1``: ``(damage dealt, final casualty state)`` of each (int64 arrays)."""
    state = trial_states(int(key), int(gamma), first, n)
    code = np.full(n, marker * 2 + int(shielded), dtype=np.int64)
    dealt = np.zeros(n, dtype=np.int64)
    dead = models * kmark * 2
    spent = np.zeros(n, dtype=bool) if reduced is not None else None  # the reduction used (a Batch dealt Damage)
    for b in range(params.shape[0]):
        p = params[b]
        # A destroyed unit is no longer a target (later Batches are not resolved), nor one with no model
        # left Visible to this Batch: those trials draw nothing here, as in the kernel.
        active = (code < dead) & (code // (2 * kmark) < p[mp.P_VISIBLE])
        if active.all():
            dice = _batch(state, gamma, p, g_dice, g_target, surge_alias[b, 0], binom_alias)
            code = _casualties(b, code, dice, p[mp.P_DAMAGE], trans, reduced, spent)
            dealt += dice * p[mp.P_DAMAGE]
            continue
        which = np.flatnonzero(active)
        if which.size == 0:
            continue
        s = state[which]
        dice = _batch(s, gamma, p, g_dice, g_target, surge_alias[b, 0], binom_alias)
        state[which] = s
        spent_which = None if spent is None else spent[which]
        code[which] = _casualties(b, code[which], dice, p[mp.P_DAMAGE], trans, reduced, spent_which)
        if spent is not None:
            spent[which] = spent_which
        dealt[which] += dice * p[mp.P_DAMAGE]
    return dealt, code


def _count(row: np.ndarray, start: int, size: int, values: np.ndarray) -> None:
    """Add the values to the histogram at ``row[start : start + size]`` (its last bin: overflow)."""
    row[start : start + size] += np.bincount(np.minimum(values, size - 1), minlength=size)


def run_block(
    key: np.uint64, gamma: np.uint64, first: int, n: int, params: np.ndarray, g_dice: np.ndarray,
    g_target: np.ndarray, surge_alias: np.ndarray, binom_alias: np.ndarray, models: int, marker: int,
    shielded: bool, trans: np.ndarray, kmark: int, layout: np.ndarray, row: np.ndarray, block: int | None = None,
    reduced: np.ndarray | None = None,
) -> None:  # fmt: skip
    """Run trials ``first .. first + n - 1``, adding counts to the histogram row ``row``.

    The arguments are the kernel's (:func:`mathhammer.starcraft.kernels.run_block`, count method, with the
    transition table ``trans[b, state, dice]`` over states ``(removed * kmark + marker) * 2 + shielded``), and
    so are the counts. ``layout``: ``[start, size]`` of the damage, models destroyed, marker and shielded
    histograms in ``row``; ``block``: trials per vectorised step (:data:`BLOCK` by default; changes no count);
    ``reduced``: the transitions with the target's Total Damage reduction, used by each trial at its first Batch
    dealing Damage (None: the target has none). The kernel takes such a target by its casualty function instead;
    the tables are that function tabulated, so the counts are the same.
    """
    block = BLOCK if block is None else block
    for start in range(0, n, block):
        m = min(block, n - start)
        dealt, code = _trials(
            key, gamma, first + start, m, params, g_dice, g_target, surge_alias, binom_alias, models, marker,
            shielded, trans, kmark, reduced,
        )  # fmt: skip
        _count(row, int(layout[0]), int(layout[1]), dealt)
        _count(row, int(layout[2]), int(layout[3]), code // (2 * kmark))
        _count(row, int(layout[4]), int(layout[5]), (code >> 1) % kmark)
        _count(row, int(layout[6]), int(layout[7]), code & 1)
