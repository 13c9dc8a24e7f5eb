"""Monte Carlo engine of Grimdark Future attacks: every die rolled, in numba.

Three layers, as :mod:`mathhammer.starcraft.kernels`: :func:`_trial` (one
attack, die by die, following :mod:`mathhammer.grimdark.compiled`),
:func:`_run_slot` (the trials of one slot's chunks into its histogram row)
and :func:`_run_block` (``prange`` over slots). Trial ``t`` draws its numbers
from the counter-based stream of ``(seed, t)``
(:mod:`mathhammer.engine.rng`), so the same seed gives the same Tally for any
thread count and chunk size, and a run goes in timed blocks of trials
(:func:`~mathhammer.engine.histograms.super_blocks`): Ctrl-C stops it between two.

Count sampling: a weapon group changes the target only through the number of *wound events* its
dice deal (one event: a wound that passed Regeneration, Deadly's wounds on the model next in line),
as long as the Defense its hits are blocked at and the Regeneration roll stay the same along the
models: the Defense is fixed when the group starts (a joined hero's: the unit's while other models
stand), the Regeneration roll must be the same for every model. The dice are independent and alike,
so that number is a sum of ``attacks`` independent draws of one small distribution
(:func:`die_events`); its distribution, capped at the events that destroy the unit, is computed once
per run (:func:`count_tables`) and each trial draws it with one random number: the distribution of
the die-by-die path, one draw per group instead of one per die. Takedown/Sniper groups, and targets
whose Regeneration changes along the models (a joined hero with another), roll die by die.

>>> from .model import Attacker, Defender, Weapon, WeaponGroup
>>> robots = Attacker((WeaponGroup(5, Weapon(attacks=1, rules=("AP(1)",))),), quality=4)
>>> t = grimdark_simulate(robots, Defender(models=5, defense=4, cover=True), trials=1000, seed=1)
>>> t.trials, int(t.wounds.sum())
(1000, 1000)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit, prange

from .. import jit
from ..config import INLINE, JIT, PARALLEL, SERIAL_MAX, SUPER_BLOCK, TRIAL_BITS
from ..engine.histograms import Histograms, super_blocks
from ..engine.options import SEED_MAX, check_seed, check_trials
from ..engine.rng import below, low32, next_u64, seed_stream, trial_state
from ..errors import InputError
from ..outcome import Tally
from .compiled import CompiledAttack, CompiledGroup, compile_attack
from .model import Attacker, Defender

__all__ = ["grimdark_simulate", "simulate_compiled"]

# Columns of the group table ``params[g, :]``.
G_ATTACKS = 0
G_HIT_MASK = 1
G_EXTRA = 2
G_BLAST = 3
G_AP_NORMAL = 4
G_AP_SIX = 5
G_POISON = 6
G_COVER = 7
G_DEADLY = 8
G_REGEN = 9
G_SHRED = 10
G_SNIPE = 11
N_COLUMNS = 12

CHUNK = 4096


@njit(**JIT)
def _d6(state, gamma):
    state, x = next_u64(state, gamma)
    return state, below(low32(x), 6) + 1


@njit(**JIT)
def _hits(state, gamma, count, ap, poison, cover, deadly, regen_ok, shred, natural, tough, defense, regen, i, w, dealt):
    """Resolve ``count`` hits of one class: Defense rolls, Regeneration, wounds. Returns the new state.

    Shred: a hit not saved on a natural 1 (the die that stands) deals one extra wound, resolved as
    a wound of its own (its own Regeneration roll, Deadly's multiplication, the model next in line).
    """
    m = tough.shape[0]
    for _ in range(count):
        if i >= m:
            break
        state, d = _d6(state, gamma)
        target = defense[i] + ap - cover
        saved = d >= target
        if natural:
            saved = (d == 6) or (d != 1 and saved)
        if poison and d == 6:
            state, d = _d6(state, gamma)
            saved = d >= target
            if natural:
                saved = (d == 6) or (d != 1 and saved)
        if saved:
            continue
        wounds = 2 if (shred and d == 1) else 1
        for _w in range(wounds):
            if i >= m:
                break
            if regen_ok and regen[i]:  # regen[i]: the roll that ignores the wound
                state, r = _d6(state, gamma)
                if r >= regen[i]:
                    continue
            taken = min(deadly, tough[i] - w)
            w += taken
            dealt += taken
            if w >= tough[i]:
                i += 1
                w = 0
    return state, i, w, dealt


@njit(**JIT)
def _snipe(state, gamma, params, g, natural, tough, own_defense, own_regen, i, w, dealt):
    """A Takedown/Sniper group on model ``i`` alone, "as if it was a unit of 1": its own Defense and
    Regeneration, one hit per hit (Blast capped at 1); once it is killed the group's other hits are lost."""
    one_t = tough[i : i + 1]
    one_d = own_defense[i : i + 1]
    one_r = own_regen[i : i + 1]
    mask = params[g, G_HIT_MASK]
    j = 0
    for _ in range(params[g, G_ATTACKS]):
        if j >= 1:
            break
        state, d = _d6(state, gamma)
        if (mask >> d) & 1 == 0:
            continue
        plain = 1
        if d == 6:
            state, j, w, dealt = _hits(
                state, gamma, 1, params[g, G_AP_SIX], params[g, G_POISON], params[g, G_COVER], params[g, G_DEADLY],
                params[g, G_REGEN], params[g, G_SHRED], natural, one_t, one_d, one_r, j, w, dealt,
            )  # fmt: skip
            plain = params[g, G_EXTRA]
        state, j, w, dealt = _hits(
            state, gamma, plain, params[g, G_AP_NORMAL], params[g, G_POISON], params[g, G_COVER], params[g, G_DEADLY],
            params[g, G_REGEN], params[g, G_SHRED], natural, one_t, one_d, one_r, j, w, dealt,
        )  # fmt: skip
    if j >= 1:
        return state, i + 1, 0, dealt
    return state, i, w, dealt


@njit(**JIT)
def _trial(state, gamma, params, natural, tough, defense, regen, own):
    """One attack: ``(state, models removed, marker, damage dealt)``."""
    return _apply(state, gamma, params, natural, tough, defense, regen, own, 0, 0, 0)


@njit(**JIT)
def _apply(state, gamma, params, natural, tough, defense, regen, own, i, w, dealt):
    """The groups of ``params`` against a target with ``i`` models removed, ``w`` wounds on the next
    and ``dealt`` wounds taken so far: ``(state, i, w, dealt)``. ``own``: int64[3, M], each model's Defense
    and Regeneration as a unit of 1 (Takedown, Sniper), and the Defense its hits are blocked at while the
    unit's other models stand (a joined hero: the unit's, :attr:`CompiledTarget.block_defense`)."""
    m = tough.shape[0]
    for g in range(params.shape[0]):
        if i >= m:
            break
        if params[g, G_SNIPE]:
            state, i, w, dealt = _snipe(state, gamma, params, g, natural, tough, own[0], own[1], i, w, dealt)
            continue
        # Hero: "must use the unit's Defense until all other models have been killed": every hit of a group
        # that starts while they stand is blocked at the unit's Defense (the hero's own after)
        blocks = own[2] if i < m - 1 else defense
        blast = params[g, G_BLAST]
        b = min(blast, m - i) if blast > 0 else 1
        mask = params[g, G_HIT_MASK]
        cover = params[g, G_COVER]
        deadly = params[g, G_DEADLY]
        regen_ok = params[g, G_REGEN]
        shred = params[g, G_SHRED]
        for _ in range(params[g, G_ATTACKS]):
            if i >= m:
                break
            state, d = _d6(state, gamma)
            if (mask >> d) & 1 == 0:
                continue
            if d == 6:
                state, i, w, dealt = _hits(
                    state, gamma, b, params[g, G_AP_SIX], params[g, G_POISON], cover, deadly, regen_ok, shred,
                    natural, tough, blocks, regen, i, w, dealt,
                )  # fmt: skip
                plain = b * params[g, G_EXTRA]  # Relentless / Furious / Surge: extra plain hits per 6
            else:
                plain = b
            state, i, w, dealt = _hits(
                state, gamma, plain, params[g, G_AP_NORMAL], params[g, G_POISON], cover, deadly, regen_ok, shred,
                natural, tough, blocks, regen, i, w, dealt,
            )  # fmt: skip
    return state, i, w, dealt


@njit(**INLINE)
def _uniform(state, gamma):
    """A double in [0, 1) from 53 random bits."""
    state, x = next_u64(state, gamma)
    return state, np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**INLINE)
def _events(tough, alike, d, e, i, w, dealt):
    """``e`` wound events of Deadly(``d``) from model ``i`` carrying ``w`` wounds, each on the model next in
    line with no carry-over; models ``0 .. alike - 1`` share ``tough[0]``: ``(i, w, dealt)``."""
    m = tough.shape[0]
    while e > 0 and i < m:
        t = tough[i]
        first = (t - w + d - 1) // d  # the events that finish the model next in line
        if e < first:
            w += e * d
            dealt += e * d
            break
        dealt += t - w
        e -= first
        i += 1
        w = 0
        if i < alike and e > 0:
            per = (tough[0] + d - 1) // d
            full = min(e // per, alike - i)
            i += full
            dealt += full * tough[0]
            e -= full * per
    return i, w, dealt


@njit(**INLINE)
def _counted(state, gamma, params, natural, tough, own, cdf, where, i, w, dealt):
    """The groups of ``params`` drawing their wound events at once: ``where[g, b]`` holds the start and
    length in ``cdf`` of the capped CDF of group ``g``'s events with Blast multiplier ``b``, while the
    unit's other models stand (hits blocked at the unit's Defense), then with the last model alone.
    Takedown/Sniper groups roll die by die (:func:`_snipe`). Returns ``(state, i, w, dealt)``."""
    m = tough.shape[0]
    alike = m - 1 if m > 1 and tough[m - 1] != tough[0] else m
    for g in range(params.shape[0]):
        if i >= m:
            break
        if params[g, G_SNIPE]:
            state, i, w, dealt = _snipe(state, gamma, params, g, natural, tough, own[0], own[1], i, w, dealt)
            continue
        blast = params[g, G_BLAST]
        b = min(blast, m - i) if blast > 0 else 1
        k = 0 if i < m - 1 else 2
        start = where[g, b, k]
        size = where[g, b, k + 1]
        state, u = _uniform(state, gamma)
        lo = start  # the first entry above u (binary search): that many events
        hi = start + size - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cdf[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        e = lo - start
        i, w, dealt = _events(tough, alike, params[g, G_DEADLY], e, i, w, dealt)
    return state, i, w, dealt


@njit(**JIT)
def _run_slot(
    slot, n_slots, key, gamma, first, n, params, natural, tough, defense, regen, own, morale, test_q, test_f, row, cdf,
    where,
):  # fmt: skip
    """Trials ``first .. first + n - 1``, of chunks ``slot, slot + n_slots, ...`` of them, counted into ``row``:
    damage | models | marker | due."""
    m = tough.shape[0]
    total = 0
    for k in range(m):
        total += tough[k]
    tmax = 0
    for k in range(m):
        tmax = max(tmax, tough[k])
    d0 = 0
    m0 = total + 1
    k0 = m0 + m + 1
    s0 = k0 + tmax
    p0 = s0 + 2
    h0 = p0 + 2
    r0 = h0 + 2
    single = morale[0]
    start = morale[1]
    wounds_test = morale[2]
    counted = where.shape[1] > 0
    n_chunks = (n + CHUNK - 1) // CHUNK
    for c in range(slot, n_chunks, n_slots):
        for t in range(first + c * CHUNK, first + min(n, (c + 1) * CHUNK)):
            state = trial_state(key, gamma, t)
            if counted:
                state, i, w, dealt = _counted(state, gamma, params, natural, tough, own, cdf, where, 0, 0, 0)
            else:
                state, i, w, dealt = _trial(state, gamma, params, natural, tough, defense, regen, own)
            row[d0 + dealt] += 1
            row[m0 + i] += 1
            row[k0 + w] += 1
            # half the starting size or less (start: models at the beginning of the game, or one
            # Tough model's Tough): GF v3.5.1 core rules, Morale
            left = tough[0] - w if single else m - i
            # after melee no test from wounds ("the melee result decides", not modelled)
            due = 1 if (wounds_test == 1 and i < m and 2 * left <= start) else 0
            row[s0 + due] += 1
            # the test, rolled after the attack's dice: one Quality test; Fearless re-rolls a fail on 4+;
            # a failed test from wounds leaves the unit Shaken, it never Routs
            passed = 0
            shaken = 0
            if due == 1:
                state, d = _d6(state, gamma)
                ok = d >= test_q[i]
                if not ok and test_f[i] == 1:
                    state, d = _d6(state, gamma)
                    ok = d >= 4
                if ok:
                    passed = 1
                else:
                    shaken = 1
            row[p0 + passed] += 1
            row[h0 + shaken] += 1
            row[r0] += 1


@njit(**PARALLEL)
def _run_block(
    key, gamma, first, n, params, natural, tough, defense, regen, own, morale, test_q, test_f, hist, cdf, where
):
    """Trials ``first .. first + n - 1``; slot ``s`` of ``hist`` counts chunks ``s, s + n_slots, ...`` of them;
    with count tables (``where`` not empty, :func:`count_tables`) every group draws its wound events at once."""
    n_slots = hist.shape[0]
    for slot in prange(n_slots):
        _run_slot(
            slot, n_slots, key, gamma, first, n, params, natural, tough, defense, regen, own, morale, test_q, test_f,
            hist[slot], cdf, where,
        )  # fmt: skip


def own_arrays(target) -> np.ndarray:
    """int64[3, M]: each model's own Defense and Regeneration (a unit of 1), and its block Defense
    (:func:`_apply`)."""
    return np.stack((target.own_defense, target.own_regeneration, target.block_defense)).astype(np.int64)


def pack_groups(groups: Sequence[CompiledGroup]) -> np.ndarray:
    """The group table of the kernel (int64[G, N_COLUMNS]); one empty row when there is no group."""
    params = np.zeros((max(1, len(groups)), N_COLUMNS), dtype=np.int64)
    for g, cg in enumerate(groups):
        params[g] = (
            cg.attacks, cg.hit_mask, cg.extra, cg.blast, cg.ap_normal, cg.ap_six,
            cg.poison, cg.cover, cg.deadly, cg.regeneration, cg.shred, cg.snipe,
        )  # fmt: skip
    return params


#: Count tables are always built up to this many multiply-adds (a few milliseconds); past it, only
#: when they cost less than rolling the run's dice (:func:`count_tables`).
COUNT_ALWAYS = 2**24


def _power(pmf: np.ndarray, n: int, cap: int) -> np.ndarray:
    """The distribution of the sum of ``n`` independent draws of ``pmf``, values past ``cap`` counted at ``cap``."""

    def times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        full = np.convolve(a, b)
        if full.size <= cap + 1:
            return full
        return np.concatenate((full[:cap], [full[cap:].sum()]))

    out = np.ones(1)
    base = times(pmf, np.ones(1))
    while n:
        if n & 1:
            out = times(out, base)
        n >>= 1
        if n:
            base = times(base, base)
    return out


def _hit_events(group: CompiledGroup, defense: int, regen: int, ap: int) -> np.ndarray:
    """P(0, 1, 2 wound events) of one hit of this class: its Defense roll, Shred's extra wound on a
    natural 1, and each wound's Regeneration roll (``regen``: the roll that ignores it, 0: none)."""
    from . import compiled as cmp

    unsaved = cmp.unsaved_probability(defense, ap, group.cover, group.poison)
    one = cmp.natural_one_probability(defense, ap, group.cover, group.poison) if group.shred else 0.0
    kept = (regen - 1) / 6.0 if regen and group.regeneration else 1.0
    lost = 1.0 - kept
    other = unsaved - one
    return np.array([1.0 - unsaved + other * lost + one * lost * lost, other * kept + 2 * one * kept * lost,
                     one * kept * kept])  # fmt: skip


def die_events(group: CompiledGroup, defense: int, regen: int, b: int) -> np.ndarray:
    """P(k wound events) of one die of ``group`` with Blast multiplier ``b``, every hit blocked at
    ``defense`` and every wound's Regeneration roll ``regen``: a plain hit is ``b`` hits, a six ``b``
    six hits and ``b * extra`` plain hits.

    >>> from .compiled import CompiledGroup
    >>> die_events(CompiledGroup("w", 1, 0b1110000), 4, 0, 1).tolist()
    [0.75, 0.25]
    """
    plain = _hit_events(group, defense, regen, group.ap_normal)
    six = _hit_events(group, defense, regen, group.ap_six)
    p_six = ((group.hit_mask >> 6) & 1) / 6.0
    p_plain = bin(group.hit_mask & 0b0111110).count("1") / 6.0
    on_plain = _power(plain, b, 2**62)
    on_six = np.convolve(_power(six, b, 2**62), _power(plain, b * group.extra, 2**62))
    out = np.zeros(on_six.size)
    out[0] = 1.0 - p_six - p_plain
    out[: on_plain.size] += p_plain * on_plain
    out += p_six * on_six
    return np.trim_zeros(out, "b") if out.any() else np.ones(1)


def count_tables(attack: CompiledAttack, trials: int) -> tuple[np.ndarray, np.ndarray]:
    """The capped CDFs of the wound events of each group (:func:`die_events` summed over its dice), flat,
    and ``where[g, b] = (start, length)`` twice: while the unit's other models stand (hits blocked at
    the unit's Defense, :attr:`~mathhammer.grimdark.compiled.CompiledTarget.block_defense`), and with
    the last model alone (its own Defense). ``where`` has no column when the trials roll die by die:
    a Regeneration roll that changes along the models (a joined hero's), or tables that cost more than
    :data:`COUNT_ALWAYS` multiply-adds and than the ``trials`` x dice they replace. Takedown/Sniper
    groups have no table (they roll die by die)."""
    target = attack.target
    groups = [g for g in attack.groups if not g.snipe]
    none = (np.zeros(1), np.zeros((max(1, len(attack.groups)), 0, 4), dtype=np.int64))
    if not groups:
        return none
    m = target.models
    regen = target.regeneration
    if any(g.regeneration for g in groups) and np.any(regen != regen[0]):
        return none
    if np.any(target.tough[:-1] != target.tough[0]):  # _events skips over alike models, the last apart
        return none
    variants = (int(target.block_defense[0]), int(target.defense[-1]))  # the unit standing; the last alone
    events: dict[tuple[int, int, int], tuple[np.ndarray, int]] = {}
    cost = 0
    for k, g in enumerate(attack.groups):
        if g.snipe:
            continue
        cap = int(sum(-(-int(t) // g.deadly) for t in target.tough))  # the events that destroy the unit
        for b in range(1, (min(g.blast, m) if g.blast else 1) + 1):
            for v, defense in enumerate(variants):
                if v and variants[1] == variants[0]:
                    events[k, b, v] = events[k, b, 0]
                    continue
                pmf = die_events(g, defense, int(regen[0]), b)
                size = min(cap, g.attacks * (pmf.size - 1)) + 1
                cost += 2 * size * size * max(1, g.attacks.bit_length())  # the doublings' convolutions
                events[k, b, v] = (pmf, cap)
    if cost > COUNT_ALWAYS and cost > trials * sum(g.attacks for g in groups):
        return none
    where = np.zeros((len(attack.groups), 1 + max(b for _, b, _ in events), 4), dtype=np.int64)
    parts: list[np.ndarray] = []
    done: dict[int, tuple[int, int]] = {}
    start = 0
    for (k, b, v), (pmf, cap) in events.items():
        if id(pmf) not in done:
            cdf = np.cumsum(_power(pmf, attack.groups[k].attacks, cap))
            done[id(pmf)] = (start, cdf.size)
            parts.append(cdf)
            start += cdf.size
        where[k, b, 2 * v : 2 * v + 2] = done[id(pmf)]
    return np.concatenate(parts), where


def _branch_seed(seed: int, h: int) -> int:
    """The seed of a hero-snipe branch (:mod:`mathhammer.grimdark.snipe`): its own stream, fixed by the seed."""
    return (seed + 7919 * (h + 1)) % (SEED_MAX + 1)


def simulate_compiled(attack: CompiledAttack, trials: int, seed: int = 0) -> Tally:
    """Monte Carlo :class:`~mathhammer.outcome.Tally` of a compiled attack (see :func:`grimdark_simulate`)."""
    from . import compiled as cmp

    trials = check_trials(trials)
    seed = check_seed(seed)
    target = attack.target
    if any(g.snipe == 2 for g in attack.groups):  # Takedown/Sniper picking the joined hero
        from .snipe import branch, combine, hero_alone, hero_groups

        first, rest = hero_groups(attack)
        fate = simulate_compiled(CompiledAttack(first, hero_alone(target)), trials, seed).wounds  # trials per h
        parts = [
            (h, 1.0, simulate_compiled(CompiledAttack(rest, branch(target, h)), int(n), _branch_seed(seed, h)))
            for h, n in enumerate(fate)
            if n > 0
        ]
        return combine(target, parts, trials)
    longest = sum(cg.attacks * (1 + 4 * max(1, cg.blast) * (1 + cg.extra)) for cg in attack.groups)
    if longest >= 2**TRIAL_BITS:
        raise InputError("attacks", longest, f"fewer than {2**TRIAL_BITS} dice per trial")
    base, gamma = seed_stream(int(seed))
    params = pack_groups(attack.groups)
    if not attack.groups:
        params[0, G_ATTACKS] = 0
    m = target.models
    # the kernel writes wounds | models destroyed | wounds on the next model | morale test due
    sizes = {
        "wounds": target.damage_size, "models_destroyed": m + 1, "wounds_on_next": target.marker_size, "due": 2,
        "passed": 2, "shaken": 2, "routed": 2,
    }  # fmt: skip
    morale = np.array([target.single_tough, target.starting_size, target.wounds_test], dtype=np.int64)
    histograms = Histograms(sizes)
    hist = histograms.rows
    own = own_arrays(target)
    cdf, where = count_tables(attack, int(trials))
    args = (
        params, int(cmp.NATURAL_DEFENSE), target.tough, target.defense, target.regeneration, own, morale,
        target.test_quality, target.test_fearless,
    )  # fmt: skip
    # random numbers per trial: one per group (and a Takedown/Sniper group's dice) with count tables, else
    # every die; a run of at most SERIAL_MAX of them takes tens of milliseconds on one thread, less than
    # waking the parallel kernel's threads (the counts are the same either way)
    draws = len(attack.groups) + 2 if where.shape[1] else longest
    serial = int(trials) * draws <= SERIAL_MAX
    jit.announce("grimdark" if serial else "grimdark-parallel")
    # blocks of about BLOCK_SECONDS, timed and priced (super_blocks): Ctrl-C is noticed between them; the
    # counts are those of one call (trial t draws from the stream of (seed, t) whatever its block). One kernel for
    # every block: the first (untimed) block loads it, so no later block's time includes a compile
    for begin, n in super_blocks(0, int(trials), SUPER_BLOCK):
        if serial:
            _run_slot(0, 1, np.uint64(base), np.uint64(gamma), begin, n, *args, hist[0], cdf, where)
        else:
            _run_block(np.uint64(base), np.uint64(gamma), begin, n, *args, hist, cdf, where)
    out = [h.astype(np.float64) for h in histograms.counts().values()]
    return cmp.tally_of(target, int(trials), *out)


def grimdark_simulate(attacker: Attacker, defender: Defender, trials: int, seed: int = 0) -> Tally:
    """Simulate one Grimdark Future attack ``trials`` times: a Monte Carlo Tally of counts.

    The histograms mean what :func:`~mathhammer.grimdark.exact.grimdark_exact`
    says, as counts over ``trials``. The same ``seed`` gives the same Tally
    for any number of threads.

    Raises:
        InputError: an invalid attacker, defender, ``trials`` or ``seed``.
    """
    from .exact import versatile_choice

    return simulate_compiled(compile_attack(versatile_choice(attacker, defender), defender), trials, seed)
