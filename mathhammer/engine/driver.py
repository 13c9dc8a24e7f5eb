"""Typed layer of the Monte Carlo engine: pack a chain into arrays, run the kernels, build a Tally.

The kernels (:mod:`mathhammer.engine.kernels`) see only arrays and scalars;
this module validates the arguments, builds the tables once per call and
loops over super-blocks of :data:`~mathhammer.engine.config.SUPER_BLOCK`
trials, so memory stays flat however many trials are asked for: the only
arrays are the per-slot histogram rows (int64) and the tables.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..outcome import Tally, damage_bound, marker_bound
from ..starcraft.compiled import CompiledBatch, CompiledTarget, apply_damage
from . import config
from . import kernels as kn
from .rng import MAX_TRIALS, seed_stream

METHODS = {"count": kn.METHOD_COUNT, "die": kn.METHOD_DIE}


def alias_table(pmf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table of a pmf (Vose's construction): ``(threshold, alias)``.

    Drawing from ``m`` cells with a uniform ``x`` on [0, m): ``j = floor(x)``;
    the result is ``j`` when ``x - j < threshold[j] / 2**53``, else
    ``alias[j]``. Thresholds are int64 (probability x 2**53) for the kernels'
    integer arithmetic; :func:`packed_alias` packs both into one int64.

    >>> threshold, alias = alias_table(np.array([0.25, 0.5, 0.25]))
    >>> (threshold / 2**53).tolist(), alias.tolist()
    ([0.75, 1.0, 0.75], [1, 1, 1])
    """
    m = pmf.size
    scaled = np.asarray(pmf, dtype=np.float64) * m / float(np.sum(pmf))
    prob = np.ones(m)
    alias = np.arange(m, dtype=np.int64)
    small = [i for i in range(m) if scaled[i] < 1.0]
    large = [i for i in range(m) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    # leftovers keep probability 1 (rounding residue)
    return np.round(np.clip(prob, 0.0, 1.0) * 2.0**53).astype(np.int64), alias


def packed_alias(pmf: np.ndarray) -> np.ndarray:
    """:func:`alias_table` packed as the kernels read it: ``threshold << ALIAS_BITS | alias``.

    >>> (packed_alias(np.array([0.5, 0.5])) >> kn.ALIAS_BITS).tolist() == [2**53, 2**53]
    True
    """
    threshold, alias = alias_table(pmf)
    if pmf.size > kn.ALIAS_MASK + 1:
        raise InputError("distribution size", pmf.size, f"at most {kn.ALIAS_MASK + 1} values")
    return (threshold << kn.ALIAS_BITS) | alias


@functools.lru_cache(maxsize=8)
def binomial_tables(n_max: int) -> np.ndarray:
    """Packed alias tables of the successes of ``n`` d6, for target numbers 2..6 and ``n <= n_max``.

    Returns int64 ``[5, n_max + 1, n_max + 1]``: row ``[t - 2, n]`` holds
    :func:`packed_alias` of Binomial(``n``, ``(7 - t) / 6``) in its first
    ``n + 1`` entries. Read-only (cached).

    >>> table = binomial_tables(2)
    >>> (table[2, 2, :3] >> kn.ALIAS_BITS) / 2**53, table[2, 2, :3] & kn.ALIAS_MASK   # 2 dice at 4+: 1/4, 1/2, 1/4
    (array([0.75, 1.  , 0.75]), array([1, 1, 1]))
    """
    size = n_max + 1
    table = np.zeros((5, size, size), dtype=np.int64)
    k = np.arange(size)
    for t in range(2, 7):
        p = (7 - t) / 6.0
        for n in range(size):
            pmf = np.array([math.comb(n, j) for j in range(n + 1)], dtype=np.float64)
            pmf *= p ** k[: n + 1] * (1 - p) ** (n - k[: n + 1])
            table[t - 2, n, : n + 1] = packed_alias(pmf)
    table.flags.writeable = False
    return table


def transitions(batches: Sequence[CompiledBatch], target: CompiledTarget, marker_size: int) -> np.ndarray:
    """Casualty transitions ``trans[b, state, dice]`` of every Batch (8.7.4 step 5).

    ``state = (removed * marker_size + marker) * 2 + shielded``; each entry is
    :func:`~mathhammer.starcraft.compiled.apply_damage` itself, so the table
    cannot disagree with the contract. Markers beyond ``marker_size - 1``
    happen only from states no trial reaches (``marker_bound`` is an upper
    bound); they are clamped to keep every entry a valid state.
    """
    models = target.models
    dmax = max(cb.max_pool for cb in batches)
    trans = np.zeros((len(batches), (models + 1) * marker_size * 2, dmax + 1), dtype=np.int32)
    for b, cb in enumerate(batches):
        for removed in range(models + 1):
            for marker in range(marker_size):
                for shielded in (0, 1):
                    row = trans[b, (removed * marker_size + marker) * 2 + shielded]
                    for dice in range(dmax + 1):
                        r, m, s = apply_damage(
                            target.hp, removed, marker, bool(shielded), target.shield, dice, cb.damage,
                            cb.nonlethal, cb.visible, cb.concentrated,
                        )  # fmt: skip
                        row[dice] = (r * marker_size + min(m, marker_size - 1)) * 2 + int(s)
    trans.flags.writeable = False
    return trans


def transition_entries(batches: Sequence[CompiledBatch], target: CompiledTarget, marker_size: int) -> int:
    """Size of :func:`transitions`' table."""
    return len(batches) * (target.models + 1) * marker_size * 2 * (max(cb.max_pool for cb in batches) + 1)


@dataclass(frozen=True)
class Packed:
    """A chain and its target as the kernels' arrays (see :mod:`~mathhammer.engine.kernels`)."""

    params: np.ndarray  # int64[B, N_PARAMS]
    g_dice: np.ndarray  # int64[G]
    g_target: np.ndarray  # int64[G]
    surge_alias: np.ndarray  # int64[B, 1, S]: Batch b's packed Surge alias table in [b, 0, :size]
    binom_alias: np.ndarray  # int64[5, N + 1, N + 1]: binomial_tables(N)
    hp: np.ndarray  # int64[M]
    cum: np.ndarray  # int64[M + 1]: HP of the first i models
    shield: int
    marker: int
    shielded: bool
    damage_size: int  # damage_bound + 1
    models_size: int  # M + 1
    marker_size: int  # marker_bound + 1
    batches: tuple[CompiledBatch, ...] = ()
    target: CompiledTarget | None = None


def pack(batches: Sequence[CompiledBatch], target: CompiledTarget) -> Packed:
    """Flatten a compiled chain into the kernels' arrays."""
    params = np.zeros((len(batches), kn.N_PARAMS), dtype=np.int64)
    g_dice: list[int] = []
    g_target: list[int] = []
    surge_size = max((b.surge_pmf.size for b in batches), default=1)
    surge_alias = np.zeros((len(batches), 1, surge_size), dtype=np.int64)
    pool = 0
    for b, cb in enumerate(batches):
        p = params[b]
        p[kn.P_GROUP_START] = len(g_dice)
        g_dice.extend(int(n) for n in cb.n_dice)
        g_target.extend(int(t) for t in cb.hit_target)
        p[kn.P_GROUP_STOP] = len(g_dice)
        p[kn.P_AUTO_HITS] = cb.auto_hits
        p[kn.P_PRECISION] = cb.precision
        row = packed_alias(cb.surge_pmf)
        p[kn.P_SURGE_SIZE] = row.size
        surge_alias[b, 0, : row.size] = row
        if cb.surge is not None:
            p[kn.P_SURGE_N] = cb.surge.n
            p[kn.P_SURGE_SIDES] = cb.surge.sides
            p[kn.P_SURGE_BONUS] = cb.surge.bonus
        p[kn.P_CRITICAL] = cb.critical
        p[kn.P_DODGE] = cb.dodge
        p[kn.P_ARMOUR] = cb.armour_target
        p[kn.P_TOUGH] = cb.tough
        p[kn.P_EVADE] = int(cb.evade)
        p[kn.P_EVADE_TARGET] = cb.evade_target
        p[kn.P_DAMAGE] = cb.damage
        p[kn.P_NONLETHAL] = cb.nonlethal
        p[kn.P_CONCENTRATED] = cb.concentrated
        p[kn.P_VISIBLE] = cb.visible
        p[kn.P_REDUCE] = target.reduce
        p[kn.P_FLOOR] = target.floor
        pool = max(pool, cb.max_pool, *(int(n) for n in cb.n_dice))
        for t in [*cb.hit_target.tolist(), cb.armour_target, cb.evade_target]:
            if not 2 <= t <= 6:
                raise InputError(f"{cb.label}: target number", t, "a clamped target number from 2 to 6")
    binom_alias = binomial_tables(min(pool, config.BINOMIAL_TABLE_MAX))
    hp = np.ascontiguousarray(target.hp, dtype=np.int64)
    if hp.size == 0:
        raise InputError("target models", 0, "at least one model")
    return Packed(
        params=params,
        g_dice=np.array(g_dice, dtype=np.int64),
        g_target=np.array(g_target, dtype=np.int64),
        surge_alias=surge_alias,
        binom_alias=binom_alias,
        hp=hp,
        cum=np.concatenate(([0], np.cumsum(hp))).astype(np.int64),
        shield=int(target.shield),
        marker=int(target.marker),
        shielded=bool(target.shielded),
        damage_size=damage_bound(batches) + 1,
        models_size=int(hp.size) + 1,
        marker_size=marker_bound(batches, target) + 1,
        batches=tuple(batches),
        target=target,
    )


class Run:
    """Histogram rows of one simulation, filled super-block by super-block.

    One int64 row per slot (the numba thread count), holding the four
    histograms, each with an overflow bin that must stay empty; rows are
    padded to whole cache lines so threads never share one.
    """

    def __init__(self, packed: Packed, seed: int, method: str, chunk_size: int, planned: int = 0) -> None:
        import numba  # already imported by the kernels module

        self.packed = packed
        base, gamma = seed_stream(seed)
        self.key, self.gamma = np.uint64(base), np.uint64(gamma)
        self.method = METHODS[method]
        # The die method passes None for both tables: numba compiles it as its own kernel.
        self.tables = (packed.surge_alias, packed.binom_alias) if self.method == kn.METHOD_COUNT else (None, None)
        # Casualties by table lookup when building the table (about 2 us an
        # entry, in Python) costs little next to the run (about 20 ns a trial);
        # otherwise by the kernel's casualty function. The die method, the
        # reference path, always uses the function.
        trans = None
        # (a Total Damage reduction is used once a chain: a state the table does not carry)
        if self.method == kn.METHOD_COUNT and packed.target is not None and packed.target.reduce == 0:
            entries = transition_entries(packed.batches, packed.target, packed.marker_size)
            if entries <= max(config.TRANSITIONS_ALWAYS, planned // 200):
                trans = transitions(packed.batches, packed.target, packed.marker_size)
        self.casualties = (trans, packed.marker_size)
        self.chunk = int(chunk_size)
        sizes = (packed.damage_size + 1, packed.models_size + 1, packed.marker_size + 1, 2)
        offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.layout = np.array([x for pair in zip(offsets[:-1], sizes, strict=True) for x in pair], dtype=np.int64)
        width = -(-int(offsets[-1]) // 8) * 8 + 8  # whole 64-byte lines, and one spare
        self.hist = np.zeros((numba.get_num_threads(), width), dtype=np.int64)
        self.trials = 0

    def extend(self, stop: int) -> None:
        """Run trials ``self.trials .. stop - 1``."""
        pk = self.packed
        while self.trials < stop:
            n = min(config.SUPER_BLOCK, stop - self.trials)
            args = (
                self.key, self.gamma, self.trials, n, self.chunk, pk.params, pk.g_dice, pk.g_target,
                *self.tables, pk.hp, pk.cum, pk.shield, pk.marker, pk.shielded, *self.casualties, self.layout,
            )  # fmt: skip
            if n <= config.SERIAL_MAX:
                # A short run on one thread: the same counts (every trial's numbers come from its own
                # index), and no compile of the parallel driver on a first run (about 2 s).
                kn._run_slot(0, 1, *args, self.hist[0])
            else:
                kn.run_block(*args, self.hist)
            self.trials += n

    def counts(self) -> tuple[np.ndarray, ...]:
        """Summed int64 histograms ``(damage, models destroyed, marker, shielded)``."""
        total = self.hist.sum(axis=0)
        out = []
        for name, which in (("damage", kn.L_DAMAGE), ("models destroyed", kn.L_MODELS), ("Damage Marker", kn.L_MARKER)):
            start, size = self.layout[which], self.layout[which + 1]
            h = total[start : start + size]
            if h[-1]:
                raise AssertionError(f"engine bug: {h[-1]} trials with the {name} past its bound")
            out.append(h[:-1])
        start = self.layout[kn.L_SHIELDED]
        out.append(total[start : start + 2])
        return tuple(out)

    def tally(self) -> Tally:
        d, m, mk, sh = (h.astype(np.float64) for h in self.counts())
        return Tally(d, m, mk, sh, self.trials)

    def standard_errors(self) -> tuple[float, float]:
        """Standard errors of the mean Damage and of P(unit destroyed) so far."""
        d, m, _, _ = self.counts()
        n = float(self.trials)
        k = np.arange(d.size, dtype=np.float64)
        mean = float(k @ d) / n
        var = max(0.0, float((k * k) @ d) / n - mean * mean) * n / max(1.0, n - 1)
        p = float(m[-1]) / n
        return math.sqrt(var / n), math.sqrt(p * (1 - p) / n)


def _whole(field: str, value: object, lo: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lo:
        raise InputError(field, value, f"{what}: a whole number of at least {lo}")
    return int(value)


def _check(seed: object, method: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**64:
        raise InputError("seed", seed, "a whole number from 0 to 2**64 - 1")
    if method not in METHODS:
        raise InputError("method", method, " or ".join(repr(m) for m in METHODS))
    return int(seed)


def simulate(
    batches: Sequence[CompiledBatch],
    target: CompiledTarget,
    trials: int,
    seed: int = 0,
    method: str = "count",
    chunk_size: int = config.CHUNK_SIZE,
) -> Tally:
    """Simulate a compiled chain ``trials`` times; a Monte Carlo :class:`~mathhammer.outcome.Tally`.

    Args:
        batches: the compiled Batches, resolved in order.
        target: the compiled target.
        trials: number of trials (at least 1).
        seed: 0 to 2**64 - 1; the same seed gives the same Tally.
        method: ``"count"`` (binomial draws from tables, fast) or ``"die"``
            (every d6 rolled; the reference path). Same distribution, different
            random numbers.
        chunk_size: trials per scheduling chunk; does not change the result.

    Raises:
        InputError: a bad ``trials``, ``seed``, ``method`` or ``chunk_size``.
    """
    trials = _whole("trials", trials, 1, "Monte Carlo trials")
    if trials > MAX_TRIALS:
        raise InputError("trials", trials, f"at most {MAX_TRIALS} trials per seed")
    chunk_size = _whole("chunk_size", chunk_size, 1, "trials per chunk")
    seed = _check(seed, method)
    run = Run(pack(batches, target), seed, method, chunk_size, planned=trials)
    run.extend(trials)
    return run.tally()


def simulate_adaptive(
    batches: Sequence[CompiledBatch],
    target: CompiledTarget,
    tolerance: float,
    seed: int = 0,
    method: str = "count",
    min_trials: int = 100_000,
    max_trials: int = 1_000_000_000,
    chunk_size: int = config.CHUNK_SIZE,
    on: str = "both",
) -> Tally:
    """Simulate until the standard errors of mean Damage and of P(unit destroyed) are both <= ``tolerance``.

    ``on="p_destroy"`` (or ``"damage"``) checks only that one standard error.

    The errors are checked only at ``min_trials``, then at every doubling
    (capped at ``max_trials``), so the result depends on the seed and the
    arguments only, and equals ``simulate(batches, target, tally.trials, seed)``.
    Stops at ``max_trials`` even when the tolerance is not met.

    Raises:
        InputError: ``tolerance`` not above 0, or bad trial counts, seed or method.
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not tolerance > 0:
        raise InputError("tolerance", tolerance, "a standard error greater than 0, e.g. 0.001")
    min_trials = _whole("min_trials", min_trials, 1, "Monte Carlo trials")
    max_trials = _whole("max_trials", max_trials, min_trials, "Monte Carlo trials (at least min_trials)")
    if max_trials > MAX_TRIALS:
        raise InputError("max_trials", max_trials, f"at most {MAX_TRIALS} trials per seed")
    chunk_size = _whole("chunk_size", chunk_size, 1, "trials per chunk")
    seed = _check(seed, method)
    if on not in ("both", "damage", "p_destroy"):
        raise InputError("on", on, "both, damage or p_destroy")
    run = Run(pack(batches, target), seed, method, chunk_size, planned=min_trials)
    stop = min_trials
    while True:
        run.extend(stop)
        se_damage, se_destroy = run.standard_errors()
        watched = {"both": max(se_damage, se_destroy), "damage": se_damage, "p_destroy": se_destroy}[on]
        if watched <= tolerance or stop >= max_trials:
            return run.tally()
        stop = min(2 * stop, max_trials)
