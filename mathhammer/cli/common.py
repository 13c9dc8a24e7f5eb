"""Helpers shared by the CLI commands: one clear error line and exit status 2."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ..errors import MathhammerError

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.options import RunOptions

F = TypeVar("F", bound=Callable[..., Any])

#: The help of every ``--profiles`` option.
PROFILES_HELP = "A folder of your own cards (format: docs/profiles.md), repeatable."

#: click's usage error (typer's own copy of click in typer >= 0.2x, click itself before): its subclasses say
#: which option or argument is wrong.
UsageError: type[Exception] = typer.BadParameter.__mro__[1]


class OneLineUsageError(UsageError):  # type: ignore[misc,valid-type]
    """A usage error printed as ``error: <line>`` alone (no usage block), exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        typer.echo(f"error: {self.args[0]}", err=True)


def one_line(exc: Exception) -> Exception:
    """``exc`` (a click usage error) as a :class:`OneLineUsageError`; the "no arguments: help" one unchanged."""
    if type(exc).__name__ == "NoArgsIsHelpError" or isinstance(exc, OneLineUsageError):
        return exc
    return OneLineUsageError(usage_line(exc))


def file_path(value: str) -> Path:
    """A FILE argument as written: an empty one is refused (a Path of ``''`` would be ``.``, the folder)."""
    if not str(value).strip():
        raise typer.BadParameter(f"got {value!r}; allowed: a file path")
    return Path(value)


def usage_line(exc: Any) -> str:
    """A click usage error as the project's one line: ``error: --trails: no such option ... (did you mean --trials?)``.

    The field is the option or argument as written on the command line; click's suggestions are kept.
    """
    command = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "mathhammer"
    option = getattr(exc, "option_name", None)
    if option is not None and hasattr(exc, "possibilities"):
        close = difflib.get_close_matches(option, list(exc.possibilities or ()), n=1, cutoff=0)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return f"{option}: no such option; allowed: the options of '{command}' (see --help){hint}"
    param = getattr(exc, "param", None)
    if param is not None:
        name = param.opts[0] if getattr(param, "param_type_name", "") == "option" else (param.metavar or param.name)
        name = name.upper() if name == param.name else name
        if type(exc).__name__ == "MissingParameter":
            return f"{name}: missing; required by '{command}' (see --help)"
        message = str(exc.message)
        return f"{name}: {message}" if message.startswith("got ") else f"{name}: {message} ('{command}' --help)"
    if option is not None:
        return f"{option}: {str(exc.message).replace(f'Option {option!r} ', '')}"
    return f"{command}: {exc.format_message()} (see --help)"


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


def plain_text_values() -> bool:
    """Let typer pass the text of ``str`` and ``list[str]`` options (and flags) through as it is, without pydantic.

    typer (0.2x) checks every option's value with a pydantic ``TypeAdapter`` built on first use, so any
    command with an option imported pydantic and built adapters before doing anything (pydantic is
    most of the start-up of ``profiles list``). The command line takes numbers as text and checks them
    itself (``--models``: ``got 'x'; allowed: ...``), so a text value needs no checking: it is passed on
    as typer's adapter would (bytes decoded), and anything else (a default that is not text, a ``Path``)
    still goes to typer's own coercion. A ``Path`` argument read by :func:`file_path` is that parser's
    result, as typer's adapter (which calls the parser) gives it. Returns whether typer has the hook (a
    typer without it, such as one on click, never imports pydantic for this).
    """
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer.core import _TyperParameter
    except ImportError:  # pragma: no cover - another typer
        return False
    if getattr(_TyperParameter.get_runtime_param, "_plain_text", False):
        return True
    typer_runtime_param = _TyperParameter.get_runtime_param

    class _Text(RuntimeParam):  # type: ignore[misc]
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if isinstance(value, str) and self.annotation is str:
                return value
            if isinstance(value, bool) and self.annotation is bool:
                return value
            if isinstance(value, str) and self.parameter_info.parser is file_path:  # as typer's adapter would
                return file_path(value)
            texts = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
            if texts and self.annotation == list[str]:
                return list(value)
            return build_runtime_param(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        d = self.type_descriptor
        if (
            self._runtime_param is None
            and (
                ((d.annotation in (str, bool) or d.annotation == list[str]) and d.parameter_info.parser is None)
                or (d.annotation is Path and d.parameter_info.parser is file_path)
            )
            and d.file_annotation is None
            and d.choices is None
        ):
            self._runtime_param = _Text(d.parameter_info, d.annotation)
        return typer_runtime_param(self)

    get_runtime_param._plain_text = True  # type: ignore[attr-defined]
    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]
    return True


#: The options ``scenario run`` and ``game`` share (one text for both).
GameSeed = Annotated[str, typer.Option("--seed", help="Seed: the same seed gives the same games.", metavar="S")]
Workers = Annotated[
    str | None,
    typer.Option(
        "--workers",
        help="Processes to play on (default: every core; the games are the same for any number).",
        metavar="K",
        show_default=False,
    ),
]
