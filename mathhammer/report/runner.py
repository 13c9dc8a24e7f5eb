"""Run every cell of a report, serially or on a Dask cluster, into a tidy table.

Every cell's Monte Carlo seed comes from the sweep's seed and the cell's key
(:func:`~mathhammer.cells.cell_seed`), and a cell's result depends on
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import systems
from ..cells import Cell, Plan, cell_seed
from ..errors import InputError, MathhammerError
from .columns import Columns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..engine.options import RunOptions

#: Trials per second of one core, for deciding whether a sweep is worth a cluster.
TRIALS_PER_SECOND = 15e6
#: Estimated serial seconds above which ``scheduler="auto"`` starts a local cluster.
DASK_WORTH_SECONDS = 20.0
#: How long to try to reach a scheduler given by address.
CONNECT_TIMEOUT = "10s"
#: Seconds a local cluster's worker processes may take to start; past it the sweep runs serially
#: (a cluster only makes a sweep faster: the table is the same either way).
LOCAL_START_TIMEOUT = 60.0
#: How ``scheduler`` reads when a local cluster did not start and the sweep ran serially.
SERIAL_FALLBACK = "serial: the local Dask cluster did not start"
#: What a tolerance watches in every cell: the standard error of P(destroy).
WATCH = "p_destroy"
#: The most trials a cell's run to a tolerance may go to in any system (StarCraft TMG's; Grimdark
#: Future's stop sooner): the cap of a sweep's price.
TOLERANCE_TRIALS_MAX = 1_000_000_000
#: A Monte Carlo sweep is piloted before it runs unless its most trials, at this many a second on one
#: core, fit its budget (a tenth of :data:`TRIALS_PER_SECOND`: slow cells and a slow machine).
UNPILOTED_TRIALS_PER_SECOND = TRIALS_PER_SECOND / 10
#: Seconds the second pilots of a sweep's costliest cells may take (:func:`pilots`).
PILOT_REFINE_SECONDS = 3.0

Progress = Callable[[int, int], None]


def _options(trials: int | None, tolerance: float | None, seed: int) -> RunOptions:
    """The sweep's run options, checked as every run's (:meth:`RunOptions.build`); the seed is the sweep's."""
    from ..engine.options import RunOptions

    return RunOptions.build(None, trials, seed, tolerance)


def plan(
    armies: Sequence[str | Path] = (),
    *,
    roster: bool = False,
    system: str = "starcraft",
    profiles: Sequence[str | Path] = (),
    distance: float | None = None,
) -> Plan:
    """The cells of a report: two armies (``armies=[A, B]``) or the whole roster (``roster=True``), as the
    system plans them (:meth:`~mathhammer.systems.GameSystem.report_plan`)."""
    game = systems.get(system)
    if roster and armies:
        raise InputError("--roster", "with army files", "either two army files or --roster, not both")
    if not roster and len(armies) != 2:
        raise InputError("ARMY", " ".join(map(str, armies)) or "(none)", "two army files (ARMY_A ARMY_B), or --roster")
    for army in armies:  # a Path of '' would be '.', the current folder
        if not str(army).strip():
            raise InputError("ARMY_A ARMY_B", str(army), "a file path (two army files)")
    return game.report_plan(list(armies), roster, list(profiles), distance)


# ----------------------------------------------------------------------------- one cell


def compute(cell: Cell, options: RunOptions) -> dict[str, Any]:
    """The figures of one cell: engine, trials, seed, means and standard errors, in the system's words.

    The cell's attack runs with ``options`` (exact; ``trials``; or until the standard error of P(destroy)
    is at most ``tolerance``), seeded by :func:`cell_seed` of ``options.seed`` and the cell's key.
    """
    game = systems.get(cell.system)
    cols = Columns.of(game)
    dealt_mean, dealt_se = cols.figures[cols.dealt]
    removed = cols.removed_columns  # (mean, SE) of the slot removed; None without slots
    seed = cell_seed(options.seed, cell.key)
    if cell.compiled is None:
        zero = {dealt_mean: 0.0, dealt_se: 0.0, "destroyed_mean": 0.0, "destroyed_se": 0.0}
        out = {"engine": "none", "trials": 0, "seed": None, **zero, "p_destroy": 0.0, "p_destroy_se": 0.0}
        return out | dict.fromkeys(removed, 0.0) if removed else out
    result = systems.run(game, cell.compiled, replace(options, seed=seed), watch=WATCH)
    trials = result.trials
    out = {
        "engine": result.engine,
        "trials": trials,
        "seed": seed if trials else None,
        dealt_mean: result.dealt.mean,
        dealt_se: result.dealt.stderr,
        "destroyed_mean": result.destroyed.mean,
        "destroyed_se": result.destroyed.stderr,
        "p_destroy": result.p_destroyed,
        "p_destroy_se": result.p_destroyed_stderr,
    }
    if removed:  # the slot removed: its expectation over the models destroyed
        pmf = result.destroyed.pmf
        by_k = [cell.removed[min(k, len(cell.removed) - 1)] for k in range(pmf.size)]
        mean = float(sum(p * r for p, r in zip(pmf, by_k, strict=True)))
        var = float(sum(p * (r - mean) ** 2 for p, r in zip(pmf, by_k, strict=True)))
        out[removed[0]] = mean
        out[removed[1]] = math.sqrt(max(var, 0.0) / trials) if trials else (math.nan if math.isnan(mean) else 0.0)
    return out


class Refused:
    """A cell's refusal of the user's input (a :class:`~mathhammer.errors.MathhammerError`: a value out of
    range, a run past the budget) carried back from a Dask worker as the task's result, not raised there: a
    task that raises makes its worker log "Compute Failed" with a traceback on stderr, which a refusal must
    not (the command prints its one line). Any other exception (a bug) is raised on the worker as before:
    logged with its traceback there, and raised again here."""

    def __init__(self, exc: MathhammerError) -> None:
        self.kind = type(exc)
        self.args = exc.args
        self.state = dict(exc.__dict__)

    def error(self) -> MathhammerError:
        """The error as it was raised in the cell (its class, message and fields), without calling its
        ``__init__`` again (an InputError's arguments are not its ``args``)."""
        exc = self.kind.__new__(self.kind)
        exc.args = self.args
        exc.__dict__.update(self.state)
        return exc


def compute_chunk(cells: Sequence[Cell], opts: RunOptions) -> list[tuple[str, dict[str, Any]]] | Refused:
    """A Dask task: the figures of several cells, by key; or the first cell's :class:`Refused`. A worker prints no
    compile notice (every worker would print its own copy on the command's stderr)."""
    from ..jit import silence

    silence()
    try:
        return [(c.key, compute(c, opts)) for c in cells]
    except MathhammerError as exc:
        return Refused(exc)


# ----------------------------------------------------------------------------- where the work runs


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def estimate_seconds(cells: Sequence[Cell], opts: RunOptions) -> float:
    """A rough serial time: Monte Carlo trials at :data:`TRIALS_PER_SECOND`, 1 ms a cell."""
    from ..engine.options import MIN_TRIALS

    work = [c for c in cells if c.compiled is not None]
    if opts.exact:
        return 0.001 * len(work)
    trials = opts.trials or MIN_TRIALS
    return len(work) * (0.001 + trials / TRIALS_PER_SECOND)


def choose_scheduler(cells: Sequence[Cell], opts: RunOptions, scheduler: Any, seconds: float | None = None) -> Any:
    """``"auto"``: a local cluster when the sweep is long enough and the machine has 2+ cores, else serial.

    ``seconds``: the serial time of the sweep when it was priced (:func:`price`), else :func:`estimate_seconds`.
    """
    if scheduler is None or scheduler == "auto":
        serial = estimate_seconds(cells, opts) if seconds is None else seconds
        worth = serial >= DASK_WORTH_SECONDS and cpu_count() >= 2
        return "local" if worth else "serial"
    return scheduler


def _most_trials(opts: RunOptions) -> float:
    """The most trials one cell may run: ``trials``, or for a tolerance as many as a standard error of
    P(destroy) (at most 0.5 / sqrt(trials)) may need, doubled (the runs check at doublings), capped."""
    from ..engine.options import MIN_TRIALS

    if opts.tolerance is None:
        return float(opts.trials or 0)
    return min(TOLERANCE_TRIALS_MAX, max(MIN_TRIALS, 0.5 / opts.tolerance**2))


def _timed(cell: Cell, opts: RunOptions, small: int, big: int, fastest: float) -> tuple[int, float, float]:
    """A pilot of ``cell``: (``big``, the standard error of P(destroy) after ``big`` trials, seconds of ``big``
    trials at the rate of the ``big - small`` trials of the difference of two timed runs), at most
    ``fastest`` trials a second (a difference of two short times is partly noise)."""
    start = time.perf_counter()
    compute(cell, replace(opts, trials=small, tolerance=None))
    middle = time.perf_counter()
    figures = compute(cell, replace(opts, trials=big, tolerance=None))
    rate = max((time.perf_counter() - middle) - (middle - start), 0.0) / (big - small)
    return big, float(figures["p_destroy_se"]), big * max(rate, 1 / fastest)


def _value_bounds(opts: RunOptions) -> tuple[float, tuple[int, int] | None]:
    """What :func:`~mathhammer.engine.budget.sweep_cost` prices: ``trials`` a cell, or a tolerance
    within the trials a run to a tolerance goes to."""
    from ..engine.options import MIN_TRIALS

    if opts.tolerance is None:
        return float(opts.trials or 0), None
    return opts.tolerance, (MIN_TRIALS, TOLERANCE_TRIALS_MAX)


def pilots(todo: Sequence[Cell], opts: RunOptions) -> list[tuple[int, float, float]]:
    """Each cell's pilot (trials, standard error of P(destroy), seconds those trials take; :func:`_timed`).

    First every cell with ``MIN_TRIALS / 16`` trials (as a run to a tolerance pilots itself; fewer when
    ``opts.trials`` is less) less :data:`~mathhammer.engine.adaptive.PILOT_MIN`: the difference leaves out
    what a cell costs whatever its trials and the compiled kernels' loading, which would make a long run
    look 5 to 20 times longer (at most :data:`TRIALS_PER_SECOND` a second: short times are noisy). Then the
    costliest cells again, ``MIN_TRIALS`` (as many as any run to a tolerance does; at most ``opts.trials``)
    less the first pilot, for a steadier rate and standard error, for at most :data:`PILOT_REFINE_SECONDS`
    (cells under 0.1% of the price are left). The pilots' figures
    are thrown away: the sweep's are the same with or without them."""
    from ..engine.adaptive import PILOT_MIN
    from ..engine.budget import sweep_cost
    from ..engine.options import MIN_TRIALS

    most = MIN_TRIALS if opts.tolerance is not None else min(opts.trials or 1, MIN_TRIALS)
    n = max(2 * PILOT_MIN, min(most, MIN_TRIALS // 16))
    out = [_timed(cell, opts, PILOT_MIN, n, TRIALS_PER_SECOND) for cell in todo]
    if most <= n:
        return out
    value, bounds = _value_bounds(opts)
    costs = [sweep_cost([p], value, bounds)[1] for p in out]
    until = time.perf_counter() + PILOT_REFINE_SECONDS
    for i in sorted(range(len(todo)), key=lambda i: -costs[i]):
        if costs[i] < 0.001 * sum(costs) or time.perf_counter() > until:
            break
        out[i] = _timed(todo[i], opts, n, most, 4 * TRIALS_PER_SECOND)
    return out


class _Price:
    """A Monte Carlo sweep's price: its cells' pilots, checked against the budget on some number of cores."""

    def __init__(self, todo: Sequence[Cell], opts: RunOptions, names: Mapping[str, str] | None = None) -> None:
        from ..engine.budget import sweep_cost

        self.value, self.bounds = _value_bounds(opts)
        field = "trials" if self.bounds is None else "tolerance"
        self.field = (names or {}).get(field, field)
        self.pilots = pilots(todo, opts)
        #: Serial seconds of the whole sweep.
        self.seconds = sweep_cost(self.pilots, self.value, self.bounds)[1]

    def check(self, cores: int) -> None:
        """Refuse the sweep (:func:`~mathhammer.engine.budget.check_sweep`) when it would not fit the budget
        on ``cores`` cores, or a cell its own (as its run would, later), naming ``trials`` or ``tolerance``
        (as ``names`` says)."""
        from ..engine.budget import check_sweep, check_tolerance_run, check_trials_left

        value = self.value if self.bounds else int(self.value)
        check_sweep(self.field, value, self.pilots, cores, self.bounds)
        for n, error, seconds in self.pilots:  # a cell's own price, as its run would find it (uncapped)
            if self.bounds is None:
                check_trials_left(self.field, int(value), int(value), seconds / n)
            else:
                check_tolerance_run(self.field, value, n, error, seconds)


def price(todo: Sequence[Cell], opts: RunOptions, names: Mapping[str, str] | None = None) -> _Price | None:
    """The price of a Monte Carlo sweep of the distinct cells ``todo`` (:func:`pilots`), or None when it
    needs none: exact, or its most trials (:func:`_most_trials`) fit the budget even at
    :data:`UNPILOTED_TRIALS_PER_SECOND` on one core."""
    from ..engine.budget import budget_seconds

    if opts.exact or not todo:
        return None
    if len(todo) * _most_trials(opts) / UNPILOTED_TRIALS_PER_SECOND <= budget_seconds():
        return None
    return _Price(todo, opts, names)


def _run_serial(todo: list[Cell], opts: RunOptions, progress: Progress | None) -> dict[str, dict[str, Any]]:
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
    of waiting for ever (the cluster closed). Ctrl-C while the workers start stops them and raises
    :class:`KeyboardInterrupt`.
    """
    import signal
    import threading

    import dask
    from distributed import LocalCluster

    n = workers or cpu_count()
    if dask.config.get("temporary-directory", None) is None:  # the scheduler's and the workers' (a user's own kept)
        dask.config.set({"temporary-directory": scratch_folder()})
    cluster = LocalCluster(
        n_workers=0,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=None,
        # the scheduler's metrics server would still take port 8787 (leaking a socket when that is busy)
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=logging.ERROR,
        death_timeout=LOCAL_START_TIMEOUT,
    )
    before = set(multiprocessing.active_children())
    deadline = time.monotonic() + LOCAL_START_TIMEOUT
    try:
        if processes and threading.current_thread() is threading.main_thread():
            # Ctrl-C in a terminal reaches the whole process group: worker processes started while SIGINT is
            # ignored keep ignoring it (and print no tracebacks); this process alone stops, and kills them.
            # Ignored only until the processes exist (well under a second), not while they start up.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                cluster.scale(n)
                while len(set(multiprocessing.active_children()) - before) < n and time.monotonic() < deadline:
                    time.sleep(0.005)
            finally:
                signal.signal(signal.SIGINT, previous)
        else:
            cluster.scale(n)
        cluster.wait_for_workers(n, timeout=max(0.1, deadline - time.monotonic()))
    except KeyboardInterrupt:
        stop_now(cluster, before)
        raise
    except Exception:
        _close_failed(cluster, before)
        raise
    return cluster


def scratch_folder() -> str:
    """The local cluster's scratch folder (Dask's ``temporary-directory``, where the user set none): one per OS user
    in the temporary folder, made private where it is made. Dask's default (``<tmp>/dask-scratch-space``) is shared by
    every user of the machine: another user's workers' lock files left there make the scheduler and each worker log
    permission errors as they start, dozens of lines on the command's stderr."""
    import tempfile

    who = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    path = os.path.join(tempfile.gettempdir(), f"mathhammer-dask-{who}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


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


#: Seconds the client and a local cluster may take to close after Ctrl-C (their workers are dead by then).
INTERRUPT_CLOSE_TIMEOUT = 2


def stop_now(cluster: Any, before: set[Any], client: Any = None) -> None:
    """On Ctrl-C: kill a local cluster's worker processes at once (they hold nothing to save: a report is
    written only after the sweep), their nannies told first not to restart them, then close the cluster
    briefly, so that stopping waits for no cell still running. ``before``: this process's children that are
    not the cluster's (any other started since, e.g. a worker still starting, is killed too); ``client``: one
    of the cluster's, closed briefly before it."""
    import contextlib

    # the killed workers' nannies (and the half-started cluster's callbacks) would log their deaths
    loggers = ("distributed", "tornado", "asyncio")
    for name in [*loggers, *logging.root.manager.loggerDict]:
        if name.split(".")[0] in loggers:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for nanny in list(getattr(cluster, "workers", {}).values()):
        close_gracefully = getattr(nanny, "close_gracefully", None)
        if close_gracefully is not None:  # a Nanny: no restart of its worker from now on
            close_gracefully(reason="interrupted")
    for child in set(multiprocessing.active_children()) - before:
        child.kill()
    for child in set(multiprocessing.active_children()) - before:
        child.join(INTERRUPT_CLOSE_TIMEOUT)
    for part in (client, cluster):
        if part is not None:
            with contextlib.suppress(Exception):
                part.close(timeout=INTERRUPT_CLOSE_TIMEOUT)


def _run_dask(
    todo: list[Cell], opts: RunOptions, scheduler: Any, progress: Progress | None, priced: _Price | None = None
) -> tuple[dict[str, dict[str, Any]], str]:
    from distributed import Client, as_completed

    cluster: Any = None
    client: Any = None
    before = set(multiprocessing.active_children())
    try:
        if scheduler == "local":
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
        if priced is not None and scheduler != "local":  # a cluster's cores are known once reached
            priced.check(workers)
        futures = client.map(compute_chunk, _chunks(todo, workers * 4), opts=opts, pure=False)
        out: dict[str, dict[str, Any]] = {}
        try:
            for _future, result in as_completed(futures, with_results=True):
                if isinstance(result, Refused):
                    raise result.error()  # the rest cancelled below
                out.update(result)
                if progress is not None:
                    progress(len(out), len(todo))
        except ImportError as exc:  # a remote worker without this package
            client.cancel(futures)
            allowed = "a cluster whose workers have mathhammer installed (pip install mathhammer)"
            raise InputError("--scheduler", str(scheduler), allowed, str(exc)) from None
        except BaseException:
            if cluster is None:  # a local one is stopped below
                client.cancel(futures)
            raise
        return out, where
    except BaseException:
        # Ctrl-C, a cell's refusal, any error: the workers this process started are killed now, not waited for,
        # and quietly (their scheduler and client would log the discarded tasks: "Couldn't gather keys")
        if scheduler == "local" and cluster is not None:
            stop_now(cluster, before, client)
            cluster = client = None
        raise
    finally:
        if client is not None and client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()


def exact_seconds(todo: Sequence[Cell]) -> float | None:
    """The serial seconds of the exact runs of the cells ``todo`` as their systems estimate them from table sizes
    (a system's ``exact_seconds``, e.g. Grimdark Future's chains), or None when no system of them prices its
    exact runs (StarCraft TMG's take milliseconds)."""
    total: float | None = None
    for cell in todo:
        cost = getattr(systems.get(cell.system), "exact_seconds", None)
        if cost is not None:
            total = (total or 0.0) + float(cost(cell.compiled))
    return total


def _execute_exact(
    todo: list[Cell], cells: Sequence[Cell], opts: RunOptions, scheduler: Any, progress: Progress | None
) -> tuple[dict[str, dict[str, Any]], str]:
    """:func:`execute` of an exact sweep: priced as a whole first (:func:`exact_seconds`) and refused past the
    budget on the cores it will use (:func:`~mathhammer.engine.budget.check_exact_sweep`; a remote cluster's are
    not known here: each cell still prices its own run there); a long one goes to a local cluster."""
    from ..engine.budget import check_exact_sweep

    seconds = exact_seconds(todo)
    mode = choose_scheduler(cells, opts, scheduler, seconds)
    if seconds is not None and mode in ("serial", "local"):
        check_exact_sweep(seconds, len(todo), 1 if mode == "serial" else cpu_count())
    if mode == "serial" or not todo:
        return _run_serial(todo, opts, progress), "serial"
    return _run_dask(todo, opts, mode, progress)


def execute(
    cells: Sequence[Cell],
    opts: RunOptions,
    scheduler: Any = "auto",
    progress: Progress | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[dict[str, dict[str, Any]], str]:
    """The figures of every distinct cell (by key), and where they were computed.

    ``scheduler``: ``"auto"``, ``"serial"``, ``"local"`` (a LocalCluster sized to the
    machine), a scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``.

    An exact sweep is priced from its systems' estimates (:func:`exact_seconds`), a Monte Carlo sweep that may
    be long from pilots (:func:`price`): past the budget on the cores it
    will use (one serially, the machine's for a local cluster, a cluster's workers once reached) it is
    refused (:class:`~mathhammer.engine.budget.BudgetError` naming ``trials`` or ``tolerance``, or
    ``names`` of them, e.g. :data:`~mathhammer.engine.options.CLI_NAMES`) before any cell runs.
    """
    todo = list({c.key: c for c in cells if c.compiled is not None}.values())
    if opts.exact:
        return _execute_exact(todo, cells, opts, scheduler, progress)
    priced = price(todo, opts, names)
    mode = choose_scheduler(cells, opts, scheduler, None if priced is None else priced.seconds)
    if mode == "serial" or not todo:
        if priced is not None:
            priced.check(1)
        return _run_serial(todo, opts, progress), "serial"
    if priced is not None and mode == "local":  # refused before a cluster starts
        priced.check(cpu_count())
    return _run_dask(todo, opts, mode, progress, priced)


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


def describe(cell: Cell, cols: Columns) -> dict[str, Any]:
    """A row's descriptive columns: the side, the phase, and both units as bought (with their slots, if any)."""
    a, t = cell.attacker, cell.target
    slots = cols.slot_columns
    return {
        "side": cell.side,
        "phase": cell.phase,
        "phase_name": cols.phases[cell.phase],
        "attacker": a.label,
        "attacker_unit": a.unit,
        "attacker_models": a.models,
        "attacker_upgrades": a.upgrades,
        "attacker_cost": a.cost,
        **({slots[0]: a.slot} if slots else {}),
        "target": t.label,
        "target_unit": t.unit,
        "target_models": t.models,
        "target_cost": t.cost,
        **({slots[1]: t.slot} if slots else {}),
    }


def frame(p: Plan, figures: dict[str, dict[str, Any]], opts: RunOptions) -> pd.DataFrame:
    """One row per cell, in plan order: descriptions, figures, per 100 of the cost and per slot (if any)."""
    import pandas as pd

    cols = Columns.of(p.system)
    rows = []
    for cell in p.cells:
        fig = figures[cell.key] if cell.compiled is not None else compute(cell, opts)
        row = {**describe(cell, cols), "cost_unit": cols.cost, "batches": cell.batches}
        row.update(fig)
        rows.append(row)
    df = pd.DataFrame(rows)
    cost = df["attacker_cost"].astype(float)
    per = {"100": (100.0 / cost).where(cost > 0)}
    if cols.slot_key:
        slot = df[cols.slot_columns[0]].astype(float)
        per[cols.slot_key] = (1.0 / slot).where(slot > 0)
    for name, (value, se) in cols.figures.items():
        for suffix, factor in per.items():
            df[f"{name}_per_{suffix}"] = df[value] * factor
            df[f"{name}_per_{suffix}_se"] = df[se] * factor
    # the seeds as whole numbers: a column of ints and None (cells without a weapon) would be float64,
    # and a 63-bit seed rounded to 53 bits is another seed
    df["seed"] = pd.array([row["seed"] for row in rows], dtype="Int64")
    return df


def headline(system: str) -> str:
    """The figure a report ranks by, as the system says (StarCraft TMG: Supply removed per 100 minerals;
    Grimdark Future: wounds per 100 points)."""
    return Columns.of(system).headline


def ranking(df: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Each attacker's figures averaged over the targets it faces, ranked within each side and phase.

    The standard error of a mean of independent cells is sqrt(sum of SE²) / n.
    ``by`` defaults to the headline of the table's system (:func:`headline`).
    """
    import numpy as np

    cols = Columns.of_table(df)
    by = by or cols.headline
    keys = ["side", "phase", "phase_name", "attacker", "attacker_unit", "attacker_cost", *cols.slot_columns[:1]]
    values = [c for n, (value, _se) in cols.figures.items() for c in (value, *(f"{n}_per_{p}" for p in cols.per))]
    se_of = cols.se_of

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
    names: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every unit against every enemy unit, in the ranged phase and in close combat: one row per cell.

    Args:
        armies: two of the system's army files (StarCraft TMG: army lists,
            ``docs/army.md``; Grimdark Future: unit files); or none with ``roster=True``.
        roster: every unit of the system's profiles (smallest composition, no upgrades)
            against every unit.
        system: a registered system's name or alias (``"starcraft"``, ``"gf"``, as ``--system``).
        profiles: extra profile folders or files.
        distance: inches between the units in the ranged phase (None: in range).
        trials: Monte Carlo trials per cell; ``tolerance``: Monte Carlo per cell until the
            standard error of P(destroy) is at most this. Neither: exact.
        seed: the sweep's seed; each cell's seed is derived from it and the cell's key.
        scheduler: ``"auto"`` (a local Dask cluster for long sweeps on 2+ cores, else
            serial), ``"serial"``, ``"local"``, a scheduler address or a ``distributed.Client``.
        progress: called with (cells done, cells to do).
        names: how errors name ``trials`` and ``tolerance`` (the command line's flags:
            :data:`~mathhammer.engine.options.CLI_NAMES`); a sweep past the budget is refused before it runs
            (:func:`execute`).

    Returns:
        A pandas DataFrame, one row per (side, attacker, target, phase), in the system's words
        (:class:`~mathhammer.report.columns.Columns`): the mean dealt (``damage_mean``,
        ``wounds_mean``), models destroyed, P(destroy) and, with slots, the expected slot removed
        (``supply_removed_mean``), each with its standard error, and per 100 of the cost
        (minerals, points) and per slot. ``df.attrs["report"]`` holds the settings, seed,
        sources, versions and the columns' words (for :func:`write_report`).

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
    figures, where = execute(p.cells, opts, scheduler, progress, names)
    df = frame(p, figures, opts)
    df.attrs["report"] = {
        "system": p.system,
        "mode": p.mode,
        "sides": p.sides,
        "engine": opts.engine,
        "trials": opts.trials,
        "tolerance": opts.tolerance,
        "seed": opts.seed,
        "distance": distance,
        "cells": len(p.cells),
        "distinct_cells": len({c.key for c in p.cells if c.compiled is not None}),
        "scheduler": where,
        "elapsed_s": round(time.perf_counter() - started, 3),
        "created": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "versions": _versions(),
        "sources": p.sources,
        "armies": p.armies,
        "warnings": p.warnings + ([f"ran on one core ({where})"] if where.startswith(SERIAL_FALLBACK) else []),
        "headline": headline(p.system),
        "words": Columns.of(p.system).as_dict(),
    }
    return df
