"""Helpers shared by the CLI commands: one clear error line and exit status 2."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from ..errors import MathhammerError

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.options import RunOptions

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
            raise typer.Exit(getattr(exc, "exit_status", 2)) from None  # 1: the disk full (outputs.WriteError)
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def run_options(exact: bool, trials: str | None, seed: str, tolerance: str | None, method: str) -> RunOptions:
    """The engine flags, checked once (:class:`~mathhammer.engine.options.RunOptions`, errors naming the flags)."""
    from ..engine.options import CLI_NAMES
    from ..engine.options import RunOptions as Options
    from ..errors import InputError

    if exact and (trials is not None or tolerance is not None):
        raise InputError("--exact", "with --trials/--tolerance", "either --exact or --trials N or --tolerance E")
    return Options.build(None, trials, seed, tolerance, None, method, names=CLI_NAMES)
