"""StarCraft TMG's Monte Carlo engine, typed layer: pack a chain into arrays, run the kernels, build a Tally.

The kernels (:mod:`mathhammer.starcraft.kernels`) see only arrays and scalars;
this module validates the arguments, builds the tables once per call and runs
super-blocks of :data:`~mathhammer.config.SUPER_BLOCK` trials through the
system-neutral machinery of :mod:`mathhammer.engine` (histogram rows, alias
tables, adaptive stopping), so memory stays flat however many trials are asked
for: the only arrays are the per-slot histogram rows (int64) and the tables.

Two engines give the same counts for a seed, bit for bit: the numba kernels
(every method) and :mod:`mathhammer.starcraft.mcnumpy` (the count method, the
default), which needs no numba; :meth:`Run.engine` picks one (numpy while numba
is not loaded and the run is small next to numba's start), so a short run
in a new process neither loads nor compiles numba.

>>> from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
>>> from mathhammer.starcraft.compiled import compile_attack
>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1)
>>> batches, target = compile_attack(Attack((Batch(rifle, models=5),), Target.build(6, 1, armour=5)))
>>> tally = simulate(batches, target, trials=10_000, seed=1)
>>> tally.trials, int(tally.models_destroyed.sum())
(10000, 10000)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import config, jit
from ..engine.adaptive import until
from ..engine.alias import binomial_tables, packed_alias
from ..engine.histograms import Histograms, super_blocks
from ..engine.options import check_method, check_seed, check_tolerance, check_trials
from ..engine.streams import seed_stream
from ..errors import InputError
from ..outcome import Tally
from . import mcnumpy
from . import mcparams as mp
from .compiled import CompiledBatch, CompiledTarget, apply_damage, damage_bound, marker_bound

METHODS = {"count": mp.METHOD_COUNT, "die": mp.METHOD_DIE}

#: The histograms of a trial, in the order the kernel writes them (the kernels' ``L_*``).
HISTOGRAMS = ("damage", "models_destroyed", "marker", "shielded")


def transitions(
    batches: Sequence[CompiledBatch], target: CompiledTarget, marker_size: int, reduced: bool = False
) -> np.ndarray:
    """Casualty transitions ``trans[b, state, dice]`` of every Batch (8.7.4 step 5).

    ``state = (removed * marker_size + marker) * 2 + shielded``; each entry is
    :func:`~mathhammer.starcraft.compiled.apply_damage` itself, so the table
    cannot disagree with the contract. Markers beyond ``marker_size - 1``
    happen only from states no trial reaches (``marker_bound`` is an upper
    bound); they are clamped to keep every entry a valid state. ``reduced``:
    the Batch uses the target's Total Damage reduction (its ``reduce`` and
    ``floor``), as the first Batch dealing Damage does.
    """
    cut, floor = (target.reduce, target.floor) if reduced else (0, 0)
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
                            cb.nonlethal, cb.visible, cb.concentrated, cut, floor,
                        )  # fmt: skip
                        row[dice] = (r * marker_size + min(m, marker_size - 1)) * 2 + int(s)
    trans.flags.writeable = False
    return trans


def transition_entries(batches: Sequence[CompiledBatch], target: CompiledTarget, marker_size: int) -> int:
    """Size of :func:`transitions`' table."""
    return len(batches) * (target.models + 1) * marker_size * 2 * (max(cb.max_pool for cb in batches) + 1)


@dataclass(frozen=True)
class Packed:
    """A chain and its target as the kernels' arrays (see :mod:`~mathhammer.starcraft.kernels`)."""

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
    params = np.zeros((len(batches), mp.N_PARAMS), dtype=np.int64)
    g_dice: list[int] = []
    g_target: list[int] = []
    surge_size = max((b.surge_pmf.size for b in batches), default=1)
    surge_alias = np.zeros((len(batches), 1, surge_size), dtype=np.int64)
    pool = 0
    for b, cb in enumerate(batches):
        p = params[b]
        p[mp.P_GROUP_START] = len(g_dice)
        g_dice.extend(int(n) for n in cb.n_dice)
        g_target.extend(int(t) for t in cb.hit_target)
        p[mp.P_GROUP_STOP] = len(g_dice)
        p[mp.P_AUTO_HITS] = cb.auto_hits
        p[mp.P_PRECISION] = cb.precision
        row = packed_alias(cb.surge_pmf)
        p[mp.P_SURGE_SIZE] = row.size
        surge_alias[b, 0, : row.size] = row
        if cb.surge is not None:
            p[mp.P_SURGE_N] = cb.surge.n
            p[mp.P_SURGE_SIDES] = cb.surge.sides
            p[mp.P_SURGE_BONUS] = cb.surge.bonus
        p[mp.P_CRITICAL] = cb.critical
        p[mp.P_DODGE] = cb.dodge
        p[mp.P_ARMOUR] = cb.armour_target
        p[mp.P_TOUGH] = cb.tough
        p[mp.P_EVADE] = int(cb.evade)
        p[mp.P_EVADE_TARGET] = cb.evade_target
        p[mp.P_DAMAGE] = cb.damage
        p[mp.P_NONLETHAL] = cb.nonlethal
        p[mp.P_CONCENTRATED] = cb.concentrated
        p[mp.P_VISIBLE] = cb.visible
        p[mp.P_REDUCE] = target.reduce
        p[mp.P_FLOOR] = target.floor
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


def numba_loaded() -> bool:
    """Has this process loaded numba yet (another run, a report sweep, a scenario)?"""
    return "numba" in sys.modules


#: Work (trials x :func:`~mathhammer.starcraft.mcnumpy.draws_per_trial`) the numpy engine did in this
#: process so far: past :data:`~mathhammer.config.NUMPY_WORK_MAX`, loading numba costs less than going on.
_numpy_work = [0]


class Run:
    """Histogram rows of one simulation, filled super-block by super-block, by the engine :meth:`engine` picks.

    Two engines give the same counts, bit for bit: the numba kernels (:mod:`~mathhammer.starcraft.kernels`,
    every method, with or without the casualty table) and the numpy engine
    (:mod:`~mathhammer.starcraft.mcnumpy`: the count method, casualties from tables, no numba to load).
    One int64 row per slot (one, or the numba thread count for the parallel driver), holding the four
    histograms, each with an overflow bin that must stay empty
    (:class:`~mathhammer.engine.histograms.Histograms`).
    """

    def __init__(self, packed: Packed, seed: int, method: str, chunk_size: int, planned: int = 0) -> None:
        self.packed = packed
        base, gamma = seed_stream(seed)
        self.key, self.gamma = np.uint64(base), np.uint64(gamma)
        self.method = METHODS[method]
        # The die method passes None for both tables, the count method None for ``die``: numba compiles each
        # method as its own kernel (kernels' module text).
        count = self.method == mp.METHOD_COUNT
        self.tables = (packed.surge_alias, packed.binom_alias, None) if count else (None, None, np.int64(1))
        # Casualties by table lookup when building the table (about 2 us an
        # entry, in Python) costs little next to the run (about 20 ns a trial);
        # otherwise by the kernel's casualty function. The die method, the
        # reference path, always uses the function.
        trans = None
        #: Does the numpy engine cover this run (the count method, its tables not too large)?
        self.numpy_covers = False
        if self.method == mp.METHOD_COUNT and packed.target is not None:
            # (a Total Damage reduction is used once a chain: numpy carries that state, the kernel's table not)
            entries = transition_entries(packed.batches, packed.target, packed.marker_size)
            entries *= 2 if packed.target.reduce else 1
            if entries <= max(config.TRANSITIONS_ALWAYS, planned // 200):
                self.numpy_covers = True
                if packed.target.reduce == 0:
                    trans = transitions(packed.batches, packed.target, packed.marker_size)
        # ``cas`` (after the marker size) is None with the table: only one casualty path compiles
        self.casualties = (trans, packed.marker_size, None if trans is not None else np.int64(1))
        self._numpy_tables: tuple[np.ndarray, np.ndarray | None] | None = None  # built on numpy's first run
        self.draws = mcnumpy.draws_per_trial(packed.params)
        self.chunk = int(chunk_size)
        self.sizes = dict(zip(HISTOGRAMS, (packed.damage_size, packed.models_size, packed.marker_size, 2), strict=True))
        self.histograms = Histograms(self.sizes, overflow=True, slots=1)
        self.layout = self.histograms.layout
        self.hist = self.histograms.rows
        self.trials = 0

    def engine(self, trials: int, parallel: bool | None = None) -> str:
        """The engine of the next ``trials`` trials: ``"numpy"``, ``"numba"`` (one thread) or
        ``"numba-parallel"``; every one gives the same counts.

        numpy when it covers the run (the count method, its casualty tables not too large), numba is not loaded yet
        and the numpy work of this process stays within :data:`~mathhammer.config.NUMPY_WORK_MAX` (about
        numba's start); otherwise numba, on one thread up to :data:`~mathhammer.config.SERIAL_MAX` trials.
        ``parallel`` (True or False) asks for a numba driver by name (``mathhammer warmup``).
        """
        if parallel is not None:
            return "numba-parallel" if parallel else "numba"
        work = trials * self.draws
        if self.numpy_covers and not numba_loaded() and _numpy_work[0] + work <= config.NUMPY_WORK_MAX:
            return "numpy"
        return "numba" if trials <= config.SERIAL_MAX else "numba-parallel"

    def numpy_tables(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The numpy engine's casualty tables: without the target's Total Damage reduction, and with it (None
        when it has none)."""
        if self._numpy_tables is None:
            pk = self.packed
            assert pk.target is not None
            trans = self.casualties[0]
            if trans is None:
                trans = transitions(pk.batches, pk.target, pk.marker_size)
            reduced = transitions(pk.batches, pk.target, pk.marker_size, reduced=True) if pk.target.reduce else None
            self._numpy_tables = (trans, reduced)
        return self._numpy_tables

    def extend(self, stop: int, parallel: bool | None = None) -> None:
        """Run trials ``self.trials .. stop - 1`` on the engine :meth:`engine` picks (a numba driver when
        ``parallel`` is True or False)."""
        pk = self.packed
        which = self.engine(stop - self.trials, parallel)
        if which == "numpy":
            trans, reduced = self.numpy_tables()
            for first, n in super_blocks(self.trials, stop, config.SUPER_BLOCK):
                mcnumpy.run_block(
                    self.key, self.gamma, first, n, pk.params, pk.g_dice, pk.g_target, pk.surge_alias,
                    pk.binom_alias, pk.hp.size, pk.marker, pk.shielded, trans, pk.marker_size, self.layout,
                    self.hist[0], reduced=reduced,
                )  # fmt: skip
                _numpy_work[0] += n * self.draws
                self.trials = first + n
            return
        from . import kernels as kn

        short = which == "numba"
        jit.announce("starcraft" if short else "starcraft-parallel")
        if not short and self.histograms.rows.shape[0] == 1:  # one row per numba thread, the counts so far kept
            rows = self.histograms.rows
            self.histograms = Histograms(self.sizes, overflow=True)
            self.histograms.rows[0] += rows[0]
            self.hist = self.histograms.rows
        for first, n in super_blocks(self.trials, stop, config.SUPER_BLOCK):
            args = (
                self.key, self.gamma, first, n, self.chunk, pk.params, pk.g_dice, pk.g_target,
                *self.tables, pk.hp, pk.cum, pk.shield, pk.marker, pk.shielded, *self.casualties, self.layout,
            )  # fmt: skip
            if short:
                # A short run on one thread: the same counts (every trial's numbers come from its own
                # index), and no compile of the parallel driver on a first run.
                kn._run_slot(0, 1, *args, self.hist[0])
            else:
                kn.run_block(*args, self.hist)
            self.trials = first + n

    def counts(self) -> tuple[np.ndarray, ...]:
        """Summed int64 histograms ``(damage, models destroyed, marker, shielded)``."""
        counts = self.histograms.counts()
        return tuple(counts[name] for name in HISTOGRAMS)

    def tally(self) -> Tally:
        return Tally(self.trials, **{k: v.astype(np.float64) for k, v in self.histograms.counts().items()})

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
        trials: number of trials (:func:`~mathhammer.engine.options.check_trials`).
        seed: :func:`~mathhammer.engine.options.check_seed`; the same seed gives the same Tally.
        method: ``"count"`` (binomial draws from tables, fast) or ``"die"``
            (every d6 rolled; the reference path). Same distribution, different
            random numbers.
        chunk_size: trials per scheduling chunk; does not change the result.

    Raises:
        InputError: a bad ``trials``, ``seed``, ``method`` or ``chunk_size``.
    """
    trials = check_trials(trials)
    chunk_size = _whole("chunk_size", chunk_size, 1, "trials per chunk")
    seed = check_seed(seed)
    method = check_method(method)
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
    The stopping rule is :func:`mathhammer.engine.adaptive.until`: the errors
    are checked at ``min_trials``, then at every doubling (capped at
    ``max_trials``), so the result equals ``simulate(batches, target,
    tally.trials, seed)``. Stops at ``max_trials`` even when the tolerance is not met.

    Raises:
        InputError: a bad tolerance, trial counts, seed or method.
    """
    tolerance = check_tolerance(tolerance)
    min_trials = check_trials(min_trials, "min_trials")
    max_trials = check_trials(max_trials, "max_trials")
    if max_trials < min_trials:
        raise InputError("max_trials", max_trials, f"at least min_trials ({min_trials})")
    chunk_size = _whole("chunk_size", chunk_size, 1, "trials per chunk")
    seed = check_seed(seed)
    method = check_method(method)
    if on not in ("both", "damage", "p_destroy"):
        raise InputError("on", on, "both, damage or p_destroy")
    run = Run(pack(batches, target), seed, method, chunk_size, planned=min_trials)

    def run_to(n: int) -> Run:
        run.extend(n)
        return run

    def watched(r: Run) -> float:
        se_damage, se_destroy = r.standard_errors()
        return {"both": max(se_damage, se_destroy), "damage": se_damage, "p_destroy": se_destroy}[on]

    return until(run_to, watched, tolerance, min_trials, max_trials).tally()
