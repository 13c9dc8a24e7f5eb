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
            raise fail(str(exc)) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]
