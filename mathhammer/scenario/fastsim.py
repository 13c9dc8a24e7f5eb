"""The simulation's own small kernels (:mod:`.sim_state`, :mod:`.sim_round`, :mod:`.sim_shoot`, :mod:`.sim`): a
game's uniform of a draw, the games live, entered or placed in an activation, the Cleanup of the abilities used, the
units planned, the Batches' outcomes applied game by game, the end of a Round's checks. Plain arrays and scalars in and
out; kept apart from the simulation's Python so that an edit there compiles no kernel again
(:data:`mathhammer.kernelcache.KERNEL_SOURCES`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT
from ..engine.rng import mix64
from .fastfetch import AHEAD, fetch, fetch2


@njit(**JIT)
def _uniform(base, t):  # pragma: no cover - compiled
    """The uniform of game number ``t`` in the draw keyed ``base`` (:func:`~mathhammer.scenario.basics.draw_base`)."""
    z = mix64(base + np.uint64(t) * np.uint64(0x9E3779B97F4A7C15))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**JIT)
def _uniforms_kernel(base, trials):  # pragma: no cover - compiled
    out = np.empty(trials.size)
    for i in range(trials.size):
        out[i] = _uniform(base, trials[i])
    return out


@njit(**JIT)
def _uniforms_rows_kernel(bases, trials):  # pragma: no cover - compiled
    """Row ``k``: :func:`_uniform` of the draw keyed ``bases[k]`` for each game number of ``trials``."""
    out = np.empty((bases.size, trials.size))
    for k in range(bases.size):
        for i in range(trials.size):
            out[k, i] = _uniform(bases[k], trials[i])
    return out


@njit(**JIT)
def _keep_bits(used, keep, live):  # pragma: no cover - compiled
    """``used[u, t] &= keep[u]`` for every unit and each game of ``live``, in place (row after row: each row read
    in the games' order). ``keep`` is what the cards keep (``kept_bits``: a Status bit or 0), never every bit."""
    for u in range(used.shape[0]):
        k = keep[u]
        for t in live:
            used[u, t] &= k


@njit(**JIT)
def _live_kernel(trials, over):  # pragma: no cover - compiled
    """The games of ``trials`` not ``over``, in order."""
    out = np.empty(trials.size, dtype=np.int64)
    n = 0
    for t in trials:
        if not over[t]:
            out[n] = t
            n += 1
    return out[:n]


@njit(**JIT)
def _enter_kernel(trials, acted):  # pragma: no cover - compiled
    """``acted[t]`` set for every game of ``trials``; the positions in ``trials`` of those where it was set already.
    Two passes (count, then list and set): the list is made once at its size, not grown inside the loop."""
    n = 0
    for i in range(trials.size):
        n += acted[trials[i]]
    again = np.empty(n, dtype=np.int64)
    n = 0
    for i in range(trials.size):
        t = trials[i]
        if acted[t]:
            again[n] = i
            n += 1
        acted[t] = True
    return again


@njit(**JIT)
def _placed_kernel(trials, pos):  # pragma: no cover - compiled
    """The games of ``trials`` where ``pos`` (a unit's placement) is on the table (>= 0), in order."""
    out = np.empty(trials.size, dtype=np.int64)
    n = 0
    for t in trials:
        if pos[t] >= 0:
            out[n] = t
            n += 1
    return out[:n]


@njit(**JIT)
def _planned_bits(alive, pos, planned, on_table, live):  # pragma: no cover - compiled
    """Per game of ``live`` (others 0): bit ``i`` set where unit ``planned[i]`` has models left (and, with
    ``on_table``, is on the table)."""
    out = np.zeros(alive.shape[1], dtype=np.int64)
    for t in live:
        b = 0
        for i in range(planned.size):
            u = planned[i]
            if alive[u, t] > 0 and (not on_table or pos[u, t] >= 0):
                b |= 1 << i
        out[t] = b
    return out


#: The fields of a game's key in :func:`_apply_kernel`'s table: Damage Marker, SHIELDED, the abilities used, the Total
#: Damage reduction, the steps its Armour is better.
DRAW_KEY = 5


@njit(**JIT)
def _apply_kernel(
    state,
    rows,
    cut,
    better,
    trials,
    i,
    nd,
    dead,
    rank,
    keys,
    n_keys,
    lo,
    nrows,
    costs,
    arrs,
    cdfs,
    base,
    offset,
    k,
    counted,
    health,
    taken,
    dealt,
    by,
):  # pragma: no cover - compiled
    """Games ``trials[i:]`` of unit ``t``, each with ``k`` models left, one after the other: the game's key (Damage
    Marker, SHIELDED and abilities used: ``state`` rows ``rows[1:4]``; ``cut[t]`` and ``better[t]``, 0 where those
    are empty) looked up among the ``n_keys`` rows of ``keys``; its outcome drawn from that key's transition (rows
    ``arrs[lo[e]:lo[e] + nrows[e]]``, cumulative ``cdfs``): the uniform of :func:`.sim_state.uniforms`,
    numpy's ``searchsorted(side="right")`` clipped to the last row; models lost (row ``rows[0]``), Damage Marker and
    SHIELDED set, ``counted[t]`` set where a key that ``costs`` used the Reaction (Zealous Round). The Hit Points lost
    (before less after: ``health[models left]`` less the Damage Marker, :mod:`.tally`) are added to ``taken[t]``, and
    to ``dealt[t]`` where ``by`` (an attacker). A game's rows are written only where its outcome changes them.

    A key met for the first time in this call gets the next ``rank`` (its order of first game); a key not in
    ``keys`` is added (row ``n_keys``, room for it given) and the pass stops there, before its game, for its
    transition (``nrows`` -1: none yet); ``rank[-1]``: the next rank. The Destroyed games go to ``dead[0, nd:]``
    with their key's rank beside (``dead[1]``). Returns (the game it stopped at, or ``trials.size``; games
    Destroyed; keys)."""
    nk = n_keys
    last = -1
    top = health.size - 1
    whole = health[min(max(k, 0), top)]
    rm, rs, ru = rows[1], rows[2], rows[3]
    last_i = trials.size - 1
    while i < trials.size:
        # the rows of the game AHEAD places on fetched now (scattered games: a cache miss each, overlapped)
        tn = trials[min(i + AHEAD, last_i)]
        fetch2(state, rm, tn)
        fetch2(state, rs, tn)
        fetch2(state, ru, tn)
        fetch2(state, rows[0], tn)
        fetch(taken, tn)
        if by:
            fetch(dealt, tn)
        t = trials[i]
        m0, s0, u0 = state[rm, t], state[rs, t], state[ru, t]
        c0 = cut[t] if cut.size else 0
        b0 = better[t] if better.size else 0
        e = last
        if e < 0 or not (
            keys[e, 0] == m0 and keys[e, 1] == s0 and keys[e, 2] == u0 and keys[e, 3] == c0 and keys[e, 4] == b0
        ):
            e = -1
            for q in range(nk):
                if keys[q, 0] == m0 and keys[q, 1] == s0 and keys[q, 2] == u0 and keys[q, 3] == c0 and keys[q, 4] == b0:
                    e = q
                    break
            if e < 0:  # a new key: its transition first
                keys[nk, 0], keys[nk, 1], keys[nk, 2], keys[nk, 3], keys[nk, 4] = m0, s0, u0, c0, b0
                nrows[nk] = -1
                e = nk
                nk += 1
            if rank[e] < 0:
                rank[e] = rank[-1]
                rank[-1] += 1
            last = e
        n = nrows[e]
        if n < 0:
            break
        lo_e = lo[e]
        u = _uniform(base, t + offset)
        a, b = 0, n  # the first row whose cumulative probability exceeds u
        while a < b:
            mid = (a + b) // 2
            if cdfs[lo_e + mid] > u:
                b = mid
            else:
                a = mid + 1
        pick = lo_e + min(a, n - 1)
        left = k - arrs[pick, 0]
        m = arrs[pick, 1] if left > 0 else 0
        if left != k:
            state[rows[0], t] = left
        if m != m0:
            state[rm, t] = m
        if arrs[pick, 2] != s0:
            state[rs, t] = arrs[pick, 2]
        if costs[e] and arrs[pick, 3] == 1 and counted.size:
            counted[t] = True  # counted as Activated in this Phase
        if left <= 0:
            dead[0, nd] = t
            dead[1, nd] = rank[e]
            nd += 1
        lost = whole - (m0 if k > 0 else 0) - (health[min(max(left, 0), top)] - m)
        if lost > 0:
            taken[t] += lost
            if by:
                dealt[t] += lost
        i += 1
    return i, nd, nk


@njit(**JIT)
def _end_kernel(
    alive, pos, summoned, players, vp, live, lead, final, rnd, over, end_round, instant
):  # pragma: no cover - compiled
    """:meth:`RoundEnd.end_checks` in one pass over the games ``live``: the VP lead read before the +10 VP; a player
    is present where one of its units has models left, on the table or in Reserves (a Summoned unit only on it)."""
    for t in live:
        won = abs(vp[0, t] - vp[1, t]) >= lead
        red = blue = False
        for u in range(alive.shape[0]):
            if alive[u, t] > 0 and (not summoned[u] or pos[u, t] >= 0):
                if players[u] == 0:
                    red = True
                else:
                    blue = True
                if red and blue:
                    break
        if red and not blue:
            vp[0, t] += 10
        elif blue and not red:
            vp[1, t] += 10
        if won:
            instant[t] = True
        if final or won or not (red and blue):
            over[t] = True
            end_round[t] = rnd
