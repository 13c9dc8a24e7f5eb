"""Run every cell of a report, serially or on a Dask cluster, into a tidy table.

Every cell's Monte Carlo seed comes from the sweep's seed and the cell's key
(:func:`~mathhammer.report.cells.cell_seed`), and a cell's result depends on
that seed only (the engine's streams are keyed by seed and trial index). So a
seed gives the same table run serially, on a local Dask cluster, on a remote
one, or split into any number of tasks.

>>> df = sweep(roster=True, system="grimdark")
>>> sorted(df["phase"].unique()), df["engine"].iloc[0], bool((df["p_destroy_se"] == 0).all())
(['assault', 'combat'], 'exact', True)
>>> table = ranking(df)
>>> list(table.columns[:4])
['side', 'phase', 'phase_name', 'rank']
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import platform
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .cells import Cell, Plan, cell_seed, plan

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Figures with a per-100 (minerals or points) and a per-Supply-slot version: (value column, SE column).
FIGURES = {
    "damage": ("damage_mean", "damage_se"),
    "p_destroy": ("p_destroy", "p_destroy_se"),
    "supply_removed": ("supply_removed_mean", "supply_removed_se"),
}
#: Trials per second of one core, for deciding whether a sweep is worth a cluster.
TRIALS_PER_SECOND = 15e6
#: Estimated serial seconds above which ``scheduler="auto"`` starts a local cluster.
DASK_WORTH_SECONDS = 20.0
MIN_TRIALS = 100_000  # the first check of a --tolerance run (as the engines do)
#: How long to try to reach a scheduler given by address.
CONNECT_TIMEOUT = "10s"
#: Seconds a local cluster's worker processes may take to start; past it the sweep runs serially
#: (a cluster only makes a sweep faster: the table is the same either way).
LOCAL_START_TIMEOUT = 60.0
#: How ``scheduler`` reads when a local cluster did not start and the sweep ran serially.
SERIAL_FALLBACK = "serial: the local Dask cluster did not start"

Progress = Callable[[int, int], None]


def _options(trials: int | None, tolerance: float | None, seed: int) -> dict[str, Any]:
    from ..validate import number, whole

    if trials is not None and tolerance is not None:
        raise InputError("tolerance", tolerance, "either trials or tolerance, not both")
    seed = whole("seed", seed, 0, 2**63 - 1, "seed")
    if trials is not None:
        trials = whole("trials", trials, 1, 10**10, "Monte Carlo trials per cell")
    if tolerance is not None:
        tolerance = number("tolerance", tolerance, 1e-6, 100, "standard error of P(destroy) wanted")
    engine = "exact" if trials is None and tolerance is None else "monte-carlo"
    return {"engine": engine, "trials": trials, "tolerance": tolerance, "seed": seed}


# ----------------------------------------------------------------------------- one cell


def _gf_tally(attacker: Any, defender: Any, opts: dict[str, Any], seed: int) -> Any:
    from ..grimdark.exact import grimdark_exact

    if opts["engine"] == "exact":
        return grimdark_exact(attacker, defender)
    from ..grimdark.engine import grimdark_simulate

    if opts["trials"] is not None:
        return grimdark_simulate(attacker, defender, opts["trials"], seed=seed)
    n = MIN_TRIALS
    while True:  # doubling, as the StarCraft engine: the result depends on the seed and tolerance only
        tally = grimdark_simulate(attacker, defender, n, seed=seed)
        p = float(tally.models_destroyed[-1]) / tally.trials
        if math.sqrt(p * (1 - p) / tally.trials) <= opts["tolerance"] or n >= 100_000_000:
            return tally
        n *= 2


def compute(cell: Cell, opts: dict[str, Any]) -> dict[str, Any]:
    """The figures of one cell: engine, trials, seed, means and standard errors.

    ``opts`` holds ``engine`` (``"exact"`` or ``"monte-carlo"``), ``trials``,
    ``tolerance`` (on the standard error of P(destroy)) and the sweep's ``seed``.
    """
    seed = cell_seed(opts["seed"], cell.key)
    if cell.attack is None:
        zero = dict.fromkeys(("damage_mean", "damage_se", "destroyed_mean", "destroyed_se"), 0.0)
        return {
            "engine": "none", "trials": 0, "seed": None, **zero, "p_destroy": 0.0, "p_destroy_se": 0.0,
            "supply_removed_mean": 0.0 if not math.isnan(cell.removed[0]) else math.nan,
            "supply_removed_se": 0.0 if not math.isnan(cell.removed[0]) else math.nan,
        }  # fmt: skip
    if cell.system == "starcraft":
        from ..api import run

        batches, target = cell.attack
        if opts["engine"] == "exact":
            result = run(batches, target)
        elif opts["trials"] is not None:
            result = run(batches, target, trials=opts["trials"], seed=seed)
        else:
            result = run(batches, target, tolerance=opts["tolerance"], seed=seed, tolerance_on="p_destroy")
    else:
        attacker, defender = cell.attack
        from ..grimdark.outcomes import result as gf_result

        tally = _gf_tally(attacker, defender, opts, seed)
        result = gf_result(tally, defender.models + (1 if defender.hero else 0), seed, "")
    pmf = result.models_destroyed.pmf
    removed = [cell.removed[min(k, len(cell.removed) - 1)] for k in range(pmf.size)]
    mean = float(sum(p * r for p, r in zip(pmf, removed, strict=True)))
    var = float(sum(p * (r - mean) ** 2 for p, r in zip(pmf, removed, strict=True)))
    trials = result.trials
    return {
        "engine": result.engine,
        "trials": trials,
        "seed": seed if trials else None,
        "damage_mean": result.dealt.mean,
        "damage_se": result.dealt.stderr,
        "destroyed_mean": result.models_destroyed.mean,
        "destroyed_se": result.models_destroyed.stderr,
        "p_destroy": result.unit_destroyed,
        "p_destroy_se": result.unit_destroyed_stderr,
        "supply_removed_mean": mean,
        "supply_removed_se": math.sqrt(max(var, 0.0) / trials) if trials else (math.nan if math.isnan(mean) else 0.0),
    }


def compute_chunk(cells: Sequence[Cell], opts: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A Dask task: the figures of several cells, by key."""
    return [(c.key, compute(c, opts)) for c in cells]


# ----------------------------------------------------------------------------- where the work runs


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def estimate_seconds(cells: Sequence[Cell], opts: dict[str, Any]) -> float:
    """A rough serial time: Monte Carlo trials at :data:`TRIALS_PER_SECOND`, 1 ms a cell."""
    work = [c for c in cells if c.attack is not None]
    if opts["engine"] == "exact":
        return 0.001 * len(work)
    trials = opts["trials"] or MIN_TRIALS
    return len(work) * (0.001 + trials / TRIALS_PER_SECOND)


def choose_scheduler(cells: Sequence[Cell], opts: dict[str, Any], scheduler: Any) -> Any:
    """``"auto"``: a local cluster when the sweep is long enough and the machine has 2+ cores, else serial."""
    if scheduler is None or scheduler == "auto":
        worth = estimate_seconds(cells, opts) >= DASK_WORTH_SECONDS and cpu_count() >= 2
        return "local" if worth else "serial"
    return scheduler


def _run_serial(todo: list[Cell], opts: dict[str, Any], progress: Progress | None) -> dict[str, dict[str, Any]]:
    out = {}
    for i, cell in enumerate(todo, 1):
        out[cell.key] = compute(cell, opts)
        if progress is not None:
            progress(i, len(todo))
    return out


def _chunks(todo: list[Cell], parts: int) -> list[list[Cell]]:
    size = max(1, math.ceil(len(todo) / max(1, parts)))
    return [todo[i : i + size] for i in range(0, len(todo), size)]


def local_cluster(workers: int | None = None, processes: bool = True) -> Any:
    """A Dask LocalCluster sized to the machine: one single-threaded worker per core, quiet, no dashboard.

    A worker that has not started within :data:`LOCAL_START_TIMEOUT` seconds makes this raise instead
    of waiting for ever.
    """
    import signal
    import threading

    from distributed import LocalCluster

    # Ctrl-C in a terminal reaches the whole process group: worker processes started while SIGINT
    # is ignored keep ignoring it (and print no tracebacks); this process alone stops, and closes them.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return LocalCluster(
            n_workers=workers or cpu_count(),
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
            # the scheduler's metrics server would still take port 8787 (leaking a socket when that is busy)
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
            death_timeout=LOCAL_START_TIMEOUT,
        )
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _close_failed(cluster: Any, before: set[Any]) -> None:
    """After a local cluster failed to start: close it, kill its worker processes still starting, and
    collect the half-built cluster now, quietly (it would warn of itself as unclosed whenever collected)."""
    import gc
    import warnings

    if cluster is not None:
        cluster.close()
    for stray in set(multiprocessing.active_children()) - before:
        stray.kill()
        stray.join(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def _run_dask(
    todo: list[Cell], opts: dict[str, Any], scheduler: Any, progress: Progress | None
) -> tuple[dict[str, dict[str, Any]], str]:
    from distributed import Client, as_completed

    cluster: Any = None
    client: Any = None
    try:
        if scheduler == "local":
            before = set(multiprocessing.active_children())
            reason = ""
            try:
                cluster = local_cluster()
                client = Client(cluster, timeout=LOCAL_START_TIMEOUT)
            except Exception as exc:  # any failure to start: the same table comes serially
                reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
            if reason:
                _close_failed(cluster, before)
                cluster = None
                return _run_serial(todo, opts, progress), f"{SERIAL_FALLBACK} ({reason})"
            where = f"Dask LocalCluster, {len(cluster.workers)} worker processes"
        elif isinstance(scheduler, str):
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                allowed = "the address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786"
                raise InputError("--scheduler", scheduler, allowed, str(exc)) from None
            where = f"Dask scheduler {scheduler}"
        else:  # a distributed.Client
            client = scheduler
            where = f"Dask client {client.scheduler.address}"
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        futures = client.map(compute_chunk, _chunks(todo, workers * 4), opts=opts, pure=False)
        out: dict[str, dict[str, Any]] = {}
        try:
            for _future, result in as_completed(futures, with_results=True):
                out.update(result)
                if progress is not None:
                    progress(len(out), len(todo))
        except ImportError as exc:  # a remote worker without this package
            client.cancel(futures)
            allowed = "a cluster whose workers have mathhammer installed (pip install mathhammer)"
            raise InputError("--scheduler", str(scheduler), allowed, str(exc)) from None
        except BaseException:
            client.cancel(futures)
            raise
        return out, where
    finally:
        if client is not None and client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()


def execute(
    cells: Sequence[Cell], opts: dict[str, Any], scheduler: Any = "auto", progress: Progress | None = None
) -> tuple[dict[str, dict[str, Any]], str]:
    """The figures of every distinct cell (by key), and where they were computed.

    ``scheduler``: ``"auto"``, ``"serial"``, ``"local"`` (a LocalCluster sized to the
    machine), a scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``.
    """
    todo = list({c.key: c for c in cells if c.attack is not None}.values())
    mode = choose_scheduler(cells, opts, scheduler)
    if mode == "serial" or not todo:
        return _run_serial(todo, opts, progress), "serial"
    return _run_dask(todo, opts, mode, progress)


# ----------------------------------------------------------------------------- the table


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("mathhammer", "numpy", "numba", "pandas", "dask"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover
            out[dist] = "?"
    return out


def frame(p: Plan, figures: dict[str, dict[str, Any]], opts: dict[str, Any]) -> pd.DataFrame:
    """One row per cell, in plan order: descriptions, figures, per 100 minerals (points) and per Supply slot."""
    import pandas as pd

    rows = []
    for cell in p.cells:
        fig = figures[cell.key] if cell.attack is not None else compute(cell, opts)
        row = {**cell.meta, "cost_unit": "minerals" if p.system == "starcraft" else "points", "batches": cell.batches}
        row.update(fig)
        rows.append(row)
    df = pd.DataFrame(rows)
    cost = df["attacker_cost"].astype(float)
    per_100 = (100.0 / cost).where(cost > 0)
    supply = df["attacker_supply"].astype(float)
    per_supply = (1.0 / supply).where(supply > 0)
    for name, (value, se) in FIGURES.items():
        df[f"{name}_per_100"] = df[value] * per_100
        df[f"{name}_per_100_se"] = df[se] * per_100
        df[f"{name}_per_supply"] = df[value] * per_supply
        df[f"{name}_per_supply_se"] = df[se] * per_supply
    df["seed"] = df["seed"].astype("Int64")
    return df


def headline(system: str) -> str:
    """The figure a report ranks by: Supply removed per 100 minerals, or wounds per 100 points."""
    return "supply_removed_per_100" if system == "starcraft" else "damage_per_100"


def ranking(df: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Each attacker's figures averaged over the targets it faces, ranked within each side and phase.

    The standard error of a mean of independent cells is sqrt(sum of SE²) / n.
    ``by`` defaults to :func:`headline` of the table's system.
    """
    import numpy as np

    system = "starcraft" if (df["cost_unit"] == "minerals").all() else "grimdark"
    by = by or headline(system)
    keys = ["side", "phase", "phase_name", "attacker", "attacker_unit", "attacker_cost", "attacker_supply"]
    values = [f"{n}{s}" for n in FIGURES for s in ("", "_per_100", "_per_supply")]
    values = [v if v != "damage" else "damage_mean" for v in values]
    values = [v if v != "supply_removed" else "supply_removed_mean" for v in values]

    def se_of(v: str) -> str:
        return {"damage_mean": "damage_se", "supply_removed_mean": "supply_removed_se"}.get(v, f"{v}_se")

    grouped = df.groupby(keys, sort=False, dropna=False)
    out = grouped[values].mean().reset_index()
    for v in values:
        se = grouped[se_of(v)].apply(lambda s: float(np.sqrt((s.astype(float) ** 2).sum()) / max(len(s), 1)))
        out[se_of(v)] = se.to_numpy()
    out["targets"] = grouped.size().to_numpy()
    out = out.sort_values(["side", "phase", by], ascending=[True, True, False], na_position="last", kind="stable")
    out.insert(3, "rank", out.groupby(["side", "phase"]).cumcount() + 1)
    order = ["side", "phase", "phase_name", "rank", *keys[3:], "targets"]
    order += [c for v in values for c in (v, se_of(v))]
    return out[order].reset_index(drop=True)


def sweep(
    *armies: str | Path,
    roster: bool = False,
    system: str = "starcraft",
    profiles: Sequence[str | Path] = (),
    distance: float | None = None,
    trials: int | None = None,
    tolerance: float | None = None,
    seed: int = 0,
    scheduler: Any = "auto",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Every unit against every enemy unit, Assault Phase ranged and Combat Phase: one row per cell.

    Args:
        armies: two army lists (StarCraft TMG, ``profiles/armies/README.md``) or two
            Grimdark Future unit files; or none with ``roster=True``.
        roster: every unit of the system's profiles (smallest composition, no upgrades)
            against every unit.
        system: ``"starcraft"`` or ``"grimdark"`` (aliases as ``--system``).
        profiles: extra profile folders or files.
        distance: inches between the units in the Assault Phase (None: in range).
        trials: Monte Carlo trials per cell; ``tolerance``: Monte Carlo per cell until the
            standard error of P(destroy) is at most this. Neither: exact.
        seed: the sweep's seed; each cell's seed is derived from it and the cell's key.
        scheduler: ``"auto"`` (a local Dask cluster for long sweeps on 2+ cores, else
            serial), ``"serial"``, ``"local"``, a scheduler address or a ``distributed.Client``.
        progress: called with (cells done, cells to do).

    Returns:
        A pandas DataFrame, one row per (side, attacker, target, phase): mean damage,
        models destroyed, P(destroy) and expected Supply removed, each with its standard
        error, and per 100 minerals (points) and per Supply slot. ``df.attrs["report"]``
        holds the settings, seed, sources and versions (for :func:`write_report`).

    >>> from mathhammer.profiles.loader import builtin_dir
    >>> armies = builtin_dir() / "armies"
    >>> df = sweep(armies / "terran_skirmish.toml", armies / "daelaam_vanguard.toml")
    >>> len(df), sorted(df["side"].unique())
    (120, ['Daelaam vanguard → Terran patrol', 'Terran patrol → Daelaam vanguard'])
    >>> cell = (df.attacker == "6 Marine (AGG-12, Rocket Launcher)") & (df.target == "2 Stalker")
    >>> df[cell][["phase", "attacker_cost", "damage_mean", "supply_removed_per_100"]].round(4).values.tolist()
    [['assault', 210, 5.9259, 0.0415], ['combat', 210, 1.0, 0.0]]
    """
    opts = _options(trials, tolerance, seed)
    started = time.perf_counter()
    p = plan(armies, roster=roster, system=system, profiles=profiles, distance=distance)
    figures, where = execute(p.cells, opts, scheduler, progress)
    df = frame(p, figures, opts)
    df.attrs["report"] = {
        "system": p.system,
        "mode": p.mode,
        "sides": p.sides,
        **opts,
        "distance": distance,
        "cells": len(p.cells),
        "distinct_cells": len({c.key for c in p.cells if c.attack is not None}),
        "scheduler": where,
        "elapsed_s": round(time.perf_counter() - started, 3),
        "created": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "versions": _versions(),
        "sources": p.sources,
        "armies": p.armies,
        "warnings": p.warnings + ([f"ran on one core ({where})"] if where.startswith(SERIAL_FALLBACK) else []),
        "headline": headline(p.system),
    }
    return df
