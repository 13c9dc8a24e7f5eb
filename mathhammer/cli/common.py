"""Helpers shared by the CLI commands: one clear error line and exit status 2."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ..errors import MathhammerError

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit(2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def handle_errors(func: F) -> F:
    """Turn a :class:`MathhammerError` into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MathhammerError as exc:
            problems = getattr(exc, "problems", None)
            for line in problems or [str(exc)]:
                typer.echo(f"error: {line}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def run_options(exact: bool, trials: str | None, seed: str, tolerance: str | None, method: str) -> dict[str, Any]:
    """The engine flags, checked: keyword arguments for :func:`mathhammer.run`."""
    from ..errors import InputError
    from ..validate import number, whole

    if method not in ("count", "die"):
        raise InputError("--method", method, "count or die")
    n_trials = None if trials is None else whole("--trials", trials, 1, 10**12, "Monte Carlo trials")
    tol = None if tolerance is None else number("--tolerance", tolerance, 1e-6, 100, "standard error wanted")
    n_seed = whole("--seed", seed, 0, 2**63 - 1, "seed")
    if exact and (n_trials is not None or tol is not None):
        raise InputError("--exact", "with --trials/--tolerance", "either --exact or --trials N or --tolerance E")
    if n_trials is not None and tol is not None:
        raise InputError("--tolerance", tolerance, "either --trials N or --tolerance E, not both")
    mc = n_trials is not None or tol is not None
    return {
        "engine": "monte-carlo" if mc else "exact",
        "trials": n_trials,
        "seed": n_seed,
        "tolerance": tol,
        "method": method,
    }
