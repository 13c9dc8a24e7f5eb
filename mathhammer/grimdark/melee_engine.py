"""Monte Carlo engine of a Grimdark Future melee resolved both ways (:mod:`mathhammer.grimdark.melee`).

Each trial rolls the target's Counter strikes, the charge, the strikes back (each with the groups
of the striking side's models left, looked up by its state), the melee result and the loser's
morale test, die by die, with :func:`mathhammer.grimdark.engine._apply`. Trial ``t`` draws from the
counter-based stream of ``(seed, t)``, so the same seed gives the same Tally for any thread count, and a
run goes in timed blocks of trials (:func:`~mathhammer.engine.histograms.super_blocks`): Ctrl-C stops it
between two.

>>> from .model import Defender, Weapon, WeaponGroup
>>> from .melee import Fighter, Melee
>>> blades = (WeaponGroup(3, Weapon("Blade", attacks=1, melee=True)),)
>>> t = melee_simulate(Melee(Fighter(blades, 4, Defender(3)), Fighter(blades, 4, Defender(3))), 1000, seed=1)
>>> t.trials, int(t.melee_won.sum())
(1000, 1000)
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import jit
from ..config import JIT, PARALLEL, SUPER_BLOCK
from ..engine.histograms import Histograms, super_blocks
from ..engine.options import check_seed, check_trials
from ..engine.rng import seed_stream, trial_state
from ..outcome import Tally
from . import compiled as cmp
from . import morale
from .engine import CHUNK, N_COLUMNS, _apply, _d6, own_arrays, pack_groups
from .melee import CompiledSide, Melee, back_strikes, charge_strikes, compile_side, counter_strikes, fear_of, signature
from .melee_exact import tally_from

__all__ = ["melee_simulate"]

FEARLESS_PASS = morale.FEARLESS_PASS


@njit(**JIT)
def _test(state, gamma, quality, fearless):
    """One morale test: a Quality test; Fearless passes a failed test on a 4+."""
    state, d = _d6(state, gamma)
    ok = d >= quality
    if not ok and fearless == 1:
        state, d = _d6(state, gamma)
        ok = d >= FEARLESS_PASS
    return state, ok


@njit(**JIT)
def _half(tough, single, start, i, w):
    """Half or less of the starting size (or a single Tough model's wounds) left."""
    m = tough.shape[0]
    left = tough[0] - w if single else m - i
    return i < m and 2 * left <= start


@njit(**JIT)
def _run_slot(slot, n_slots, key, gamma, first, n, natural, counter, charge, back, sides, ownc, ownt, row, layout):
    """Trials ``first .. first + n - 1``, of chunks ``slot, slot + n_slots, ...`` of them: the joint final
    state, then the morale tests."""
    (tc, dc, rc, qc, fc, cumc, fearc, sigc, morc, tt, dt, rt, qt, ft, cumt, feart, sigt, mort) = sides
    mc = tc.shape[0]
    mt = tt.shape[0]
    kc = 0
    for k in range(mc):
        kc = max(kc, tc[k])
    kt = 0
    for k in range(mt):
        kt = max(kt, tt[k])
    st_size = (mt + 1) * kt
    n_chunks = (n + CHUNK - 1) // CHUNK
    for c in range(slot, n_chunks, n_slots):
        for t in range(first + c * CHUNK, first + min(n, (c + 1) * CHUNK)):
            state = trial_state(key, gamma, t)
            state, ic, wc, xc = _apply(state, gamma, counter, natural, tc, dc, rc, ownc, 0, 0, 0)
            state, it, wt, _ = _apply(state, gamma, charge[sigc[ic]], natural, tt, dt, rt, ownt, 0, 0, 0)
            state, ic, wc, xc = _apply(state, gamma, back[sigt[it]], natural, tc, dc, rc, ownc, ic, wc, xc)
            row[layout[0] + (ic * kc + wc) * st_size + it * kt + wt] += 1
            if it >= mt:
                result = 0
            elif ic >= mc:
                result = 2
            else:
                by_c = cumt[it] + wt + fearc[ic]
                by_t = cumc[ic] + wc + feart[it]
                result = 0 if by_c > by_t else (2 if by_c < by_t else 1)
            # the loser's test: target (due, passed, shaken, routed), then charger (due, shaken, routed)
            t_due = t_pass = t_shaken = t_routed = a_due = a_shaken = a_routed = 0
            if result == 0 and it < mt:
                t_due = 1
                state, ok = _test(state, gamma, qt[it], ft[it])
                if ok:
                    t_pass = 1
                elif _half(tt, mort[0], mort[1], it, wt):
                    t_routed = 1
                else:
                    t_shaken = 1
            elif result == 2 and ic < mc:
                a_due = 1
                state, ok = _test(state, gamma, qc[ic], fc[ic])
                if not ok:
                    if _half(tc, morc[0], morc[1], ic, wc):
                        a_routed = 1
                    else:
                        a_shaken = 1
            row[layout[2] + t_due] += 1
            row[layout[4] + t_pass] += 1
            row[layout[6] + t_shaken] += 1
            row[layout[8] + t_routed] += 1
            row[layout[10] + a_due] += 1
            row[layout[12] + a_shaken] += 1
            row[layout[14] + a_routed] += 1


@njit(**PARALLEL)
def _run_block(key, gamma, first, n, natural, counter, charge, back, sides, ownc, ownt, hist, layout):
    n_slots = hist.shape[0]
    for slot in prange(n_slots):
        _run_slot(
            slot, n_slots, key, gamma, first, n, natural, counter, charge, back, sides, ownc, ownt, hist[slot], layout
        )


def _tables(side: CompiledSide, strike) -> tuple[np.ndarray, np.ndarray]:
    """The strikes of each state of ``side`` (int64[sig, G, N_COLUMNS]) and the state's index into it."""
    index: dict[tuple[int, int], int] = {}
    tables: list[np.ndarray] = []
    per_state = np.zeros(side.target.models + 1, dtype=np.int64)
    for i in range(side.target.models + 1):
        sig = signature(side, i)
        if sig not in index:
            index[sig] = len(tables)
            tables.append(pack_groups(strike(sig)))
        per_state[i] = index[sig]
    g = max(t.shape[0] for t in tables)
    out = np.zeros((len(tables), g, N_COLUMNS), dtype=np.int64)
    for k, t in enumerate(tables):
        out[k, : t.shape[0]] = t
    return out, per_state


def _side_arrays(side: CompiledSide, per_state: np.ndarray) -> tuple[np.ndarray, ...]:
    t = side.target
    fear = np.array([fear_of(side, i) for i in range(t.models + 1)], dtype=np.int64)
    morale = np.array([t.single_tough, t.starting_size], dtype=np.int64)
    return (t.tough, t.defense, t.regeneration, t.test_quality, t.test_fearless, t.cum, fear, per_state, morale)


def melee_simulate(melee: Melee, trials: int, seed: int = 0) -> Tally:
    """Simulate a melee ``trials`` times: the histograms of :func:`~mathhammer.grimdark.melee_exact.melee_exact`
    as counts. The same ``seed`` gives the same Tally for any number of threads."""
    trials = check_trials(trials)
    seed = check_seed(seed)
    c, t = compile_side(melee.charger), compile_side(melee.target)
    counter = pack_groups(counter_strikes(melee))
    charge, sig_c = _tables(c, lambda s: charge_strikes(melee, s))
    back, sig_t = _tables(t, lambda s: back_strikes(melee, s))
    states_c = (c.target.models + 1) * c.target.marker_size
    states_t = (t.target.models + 1) * t.target.marker_size
    names = ("due", "passed", "shaken", "routed", "a_due", "a_shaken", "a_routed")
    histograms = Histograms({"joint": states_c * states_t, **{k: 2 for k in names}})
    base, gamma = seed_stream(int(seed))
    sides = (*_side_arrays(c, sig_c), *_side_arrays(t, sig_t))
    ownc, ownt = own_arrays(c.target), own_arrays(t.target)
    # blocks of about BLOCK_SECONDS, timed and priced (super_blocks): Ctrl-C is noticed between them; the
    # counts are those of one call (trial t draws from the stream of (seed, t) whatever its block)
    jit.announce("grimdark-melee")
    for first, n in super_blocks(0, int(trials), SUPER_BLOCK):
        _run_block(
            np.uint64(base), np.uint64(gamma), first, n, int(cmp.NATURAL_DEFENSE), counter, charge, back, sides,
            ownc, ownt, histograms.rows, histograms.layout,
        )  # fmt: skip
    counts = {k: v.astype(np.float64) for k, v in histograms.counts().items()}
    joint = counts["joint"].reshape(states_c, states_t)
    tally = tally_from(joint, c, t, int(trials))
    return tally.with_hists(
        morale_test_due=counts["due"], morale_passed=counts["passed"], morale_shaken=counts["shaken"],
        morale_routed=counts["routed"], attacker_test_due=counts["a_due"], attacker_shaken=counts["a_shaken"],
        attacker_routed=counts["a_routed"],
    )  # fmt: skip
