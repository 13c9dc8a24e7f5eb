"""How an attack is run, validated once: :class:`RunOptions`, with one set of limits for every caller.

The command line, the Python API, the report and both engines of every game
system check engine, trials, seed, tolerance and threads here, against the same
limits; a message names the flag (``--trials``) for the command line and the
argument (``trials``) for Python.

>>> RunOptions.build(trials=1000, seed=3)
RunOptions(engine='monte-carlo', trials=1000, seed=3, tolerance=None, threads=None, method='count')
>>> RunOptions.build().engine
'exact'
>>> RunOptions.build(trials=0, names=CLI_NAMES)
Traceback (most recent call last):
...
mathhammer.errors.InputError: --trials: got '0'; allowed: Monte Carlo trials: a whole number from 1 to 274877906944
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..config import MAX_TRIALS
from ..errors import InputError
from ..validate import number, whole

ENGINES = ("exact", "monte-carlo")
ENGINE_ALIASES = {"exact": "exact", "monte-carlo": "monte-carlo", "mc": "monte-carlo", "montecarlo": "monte-carlo"}
METHODS = ("count", "die")

#: The largest seed (a seed is a whole number from 0 to this).
SEED_MAX = 2**63 - 1
#: The most Monte Carlo trials of one run: a seed's stream has this many trial blocks.
TRIALS_MAX = MAX_TRIALS
#: Tolerances (standard errors) allowed: below the smallest, no run would finish.
TOLERANCE_MIN = 1e-6
TOLERANCE_MAX = 100.0
#: Trials of the first check of a tolerance run.
MIN_TRIALS = 100_000

#: How the command line names the options.
CLI_NAMES = {
    "engine": "--engine",
    "trials": "--trials",
    "seed": "--seed",
    "tolerance": "--tolerance",
    "threads": "--threads",
    "method": "--method",
}


def check_seed(seed: object, field: str = "seed") -> int:
    """A seed from 0 to :data:`SEED_MAX`."""
    return whole(field, seed, 0, SEED_MAX, "seed")


def check_trials(trials: object, field: str = "trials") -> int:
    """Monte Carlo trials from 1 to :data:`TRIALS_MAX`."""
    return whole(field, trials, 1, TRIALS_MAX, "Monte Carlo trials")


def check_tolerance(tolerance: object, field: str = "tolerance") -> float:
    """A standard error from :data:`TOLERANCE_MIN` to :data:`TOLERANCE_MAX`."""
    return number(field, tolerance, TOLERANCE_MIN, TOLERANCE_MAX, "the standard error wanted")


def check_method(method: object, field: str = "method") -> str:
    if method not in METHODS:
        raise InputError(field, method, " or ".join(METHODS))
    return str(method)


def use_threads(options: RunOptions) -> None:
    """Run on ``options.threads`` numba threads, when given (the numbers are the same on any count)."""
    if options.threads is not None:
        import numba

        numba.set_num_threads(options.threads)


@dataclass(frozen=True)
class RunOptions:
    """Exact, or Monte Carlo with a number of trials or until a standard error, with a seed.

    Attributes:
        engine: ``"exact"`` or ``"monte-carlo"``.
        trials: Monte Carlo trials (None with a tolerance, or exact).
        seed: the Monte Carlo seed; the same seed gives the same numbers on any number of threads.
        tolerance: Monte Carlo until the standard errors watched are at most this.
        threads: numba threads for the run (None: as numba is set); never changes a number.
        method: ``"count"`` (binomial counts) or ``"die"`` (every die rolled; StarCraft's reference path).
    """

    engine: str = "exact"
    trials: int | None = None
    seed: int = 0
    tolerance: float | None = None
    threads: int | None = None
    method: str = "count"

    @classmethod
    def build(
        cls,
        engine: str | None = None,
        trials: object = None,
        seed: object = 0,
        tolerance: object = None,
        threads: object = None,
        method: object = "count",
        names: Mapping[str, str] | None = None,
    ) -> RunOptions:
        """Validate the options; errors name ``names[argument]`` (the argument itself by default)."""

        def name(arg: str) -> str:
            return (names or {}).get(arg, arg)

        n_trials = None if trials is None else check_trials(trials, name("trials"))
        tol = None if tolerance is None else check_tolerance(tolerance, name("tolerance"))
        n_seed = check_seed(seed, name("seed"))
        n_threads = None if threads is None else whole(name("threads"), threads, 1, os.cpu_count() or 1, "threads")
        how = check_method(method, name("method"))
        if n_trials is not None and tol is not None:
            raise InputError(name("tolerance"), tolerance, f"either {name('trials')} or {name('tolerance')}, not both")
        mc = n_trials is not None or tol is not None
        if engine is None:
            chosen = "monte-carlo" if mc else "exact"
        else:
            found = ENGINE_ALIASES.get(str(engine).lower())
            if found is None:
                raise InputError(name("engine"), engine, "exact or monte-carlo")
            chosen = found
        if chosen == "exact" and mc:
            given = name("trials") if n_trials is not None else name("tolerance")
            raise InputError(name("engine"), engine, f"monte-carlo with {given} (the exact engine takes neither)")
        if chosen == "monte-carlo" and not mc:
            n_trials = 1_000_000
        return cls(chosen, n_trials, n_seed, tol, n_threads, how)

    @property
    def exact(self) -> bool:
        return self.engine == "exact"

    def describe(self) -> str:
        """``exact``, or ``Monte Carlo, 1,000 trials, seed 3`` (or ``... to a standard error of 0.01``)."""
        if self.exact:
            return "exact"
        size = f"{self.trials:,} trials" if self.trials is not None else f"to a standard error of {self.tolerance:g}"
        return f"Monte Carlo, {size}, seed {self.seed}"
