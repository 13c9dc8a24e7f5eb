"""Helpers shared by the CLI commands: one clear error line and exit status 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ..errors import InputError, MathhammerError

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


def parse_int(flag: str, text: str | None, lo: int, hi: int, what: str) -> int | None:
    """Parse a whole number given to ``flag``; refuse anything outside lo..hi."""
    if text is None:
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise InputError(flag, text, f"{what}: a whole number from {lo} to {hi}") from None
    if not lo <= value <= hi:
        raise InputError(flag, text, f"{what}: a whole number from {lo} to {hi}")
    return value


def parse_target_number(flag: str, text: str, what: str) -> int:
    """Parse a target number written ``4`` or ``4+``."""
    raw = str(text).strip()
    try:
        value = int(raw[:-1] if raw.endswith("+") else raw)
    except ValueError:
        value = 0
    if not 2 <= value <= 6:
        raise InputError(flag, text, f"{what}: a target number from 2 to 6 (4 or 4+ means 4+)")
    return value


def parse_float(flag: str, text: str | None, lo: float, hi: float, what: str) -> float | None:
    if text is None:
        return None
    try:
        value = float(str(text).strip().rstrip('"'))
    except ValueError:
        raise InputError(flag, text, f"{what}: a number from {lo:g} to {hi:g}") from None
    if not (lo <= value <= hi):
        raise InputError(flag, text, f"{what}: a number from {lo:g} to {hi:g}")
    return value


def rewrap(exc: InputError, flag: str) -> InputError:
    return exc.with_field(flag)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()
