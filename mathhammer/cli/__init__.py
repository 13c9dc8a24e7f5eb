"""The ``mathhammer`` command line.

One command group per module, joined here. Importing this module is light:
no numba, pandas or matplotlib until a command needs them, and no command
module until typer reads the commands; ``mathhammer attack ...`` then imports
and builds the ``attack`` command alone (:data:`MODULES`), not all of them.
"""

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .common import UsageError, one_line, plain_text_values

plain_text_values()  # no pydantic to read an option's text

#: The command modules, each with the root commands (or groups) its ``register(app)`` adds, in help order.
MODULES: dict[str, tuple[str, ...]] = {
    "attack": ("attack",),
    "compare": ("compare", "matchup"),
    "profiles": ("profiles",),
    "army": ("army",),
    "import_opr": ("import-opr",),
    "board": ("board",),
    "scenario": ("scenario",),
    "game": ("game",),
    "report": ("report",),
    "warmup": ("warmup",),
}


class _Group(TyperGroup):
    """The root group: every usage error of any command (unknown option, missing argument) is one line."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except UsageError as exc:
            raise one_line(exc) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise one_line(exc) from None


class _Registered(list):  # type: ignore[type-arg]
    """A root's list of commands (or groups) that has the command modules register first when it is read
    (iterated, measured, indexed) but not when a command is added to it: a module registering at import
    (``x.register(app)``) loads no other module."""

    def __init__(self, root: "_Root", items: Any = ()) -> None:
        super().__init__(items)
        self.root = root

    def __iter__(self) -> Any:
        self.root._load()
        word = self.root.word
        if word is None:
            return super().__iter__()
        # the command line's command alone (typer builds every command it iterates: compare's module has two)
        return iter([c for c in super().__iter__() if getattr(c, "name", None) in (None, word)])

    def __len__(self) -> int:
        self.root._load()
        return super().__len__()

    def __getitem__(self, index: Any) -> Any:
        self.root._load()
        return super().__getitem__(index)


class _Root(typer.Typer):
    """The root Typer: the modules of :data:`MODULES` register their commands when typer first reads them
    (``registered_commands``), every module, or only those of :attr:`only` (set by :func:`main` from the
    command line). A command registered on ``app`` directly (``x.register(app)``) is there at once."""

    only: Sequence[str] | None = None
    #: the command of the command line (set by :func:`main` with :attr:`only`): the only command typer builds
    word: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: set[str] = set()
        self._loading = False
        super().__init__(*args, **kwargs)

    def _load(self) -> None:
        if self._loading:
            return
        self._loading = True
        try:
            for name in MODULES if self.only is None else self.only:
                if name not in self._loaded:
                    self._loaded.add(name)
                    importlib.import_module(f".{name}", __name__).register(self)
        finally:
            self._loading = False

    @property  # type: ignore[override]
    def registered_commands(self) -> list[Any]:
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list[Any]) -> None:
        self._commands = _Registered(self, value)

    @property  # type: ignore[override]
    def registered_groups(self) -> list[Any]:
        return self._groups

    @registered_groups.setter
    def registered_groups(self, value: list[Any]) -> None:
        self._groups = _Registered(self, value)


app = _Root(
    cls=_Group,
    name="mathhammer",
    help="Exact and Monte Carlo combat maths for StarCraft: Tabletop Miniatures Game and Grimdark Future.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def version() -> str:
    """mathhammer's version: the installed package's, else the source's ``__version__``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("mathhammer")
    except PackageNotFoundError:
        from .. import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mathhammer {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    """Exact and Monte Carlo combat maths for StarCraft: Tabletop Miniatures Game and Grimdark Future."""


def _modules_of(args: Sequence[str]) -> list[str] | None:
    """The command module of a command line (``attack ...``: ``["attack"]``); none for ``--version``; None (every
    module) when its first word is another option (``--help``) or no command of :data:`MODULES`."""
    if list(args[:1]) == ["--version"]:
        return []
    first = next((a for a in args if not a.startswith("-")), None)
    if first is None or (args and args[0].startswith("-")):
        return None
    return next(([m] for m, commands in MODULES.items() if first in commands), None)


#: The commands whose numpy work (StarCraft TMG's) gives BLAS nothing to share out among threads: a few dot
#: products of short vectors, which OpenBLAS computes on one thread at those sizes anyway. Grimdark Future's
#: exact engine multiplies matrices: a command line with ``--system`` keeps OpenBLAS's threads.
ONE_BLAS_THREAD = ("attack", "compare", "matchup", "profiles", "army")
#: The variables OpenBLAS reads for its number of threads: a user's choice is kept.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread(args: Sequence[str]) -> None:
    """Have OpenBLAS start no worker threads in a command of :data:`ONE_BLAS_THREAD` without ``--system`` (and
    numpy not yet loaded, no thread count set): it starts them when numpy loads, and they spin waiting for work
    that such a command never gives them, on cores the command itself runs on."""
    if not args or args[0] not in ONE_BLAS_THREAD or "numpy" in sys.modules:
        return
    if any(a == "--system" or a.startswith("--system=") for a in args) or any(v in os.environ for v in BLAS_THREADS):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main() -> None:
    """Entry point of the ``mathhammer`` script (library warnings, e.g. shapely's, are not printed to users)."""
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"(shapely|numpy)(\..*)?$")
    _one_blas_thread(sys.argv[1:])
    app.only = _modules_of(sys.argv[1:])
    app.word = sys.argv[1] if app.only else None
    try:
        app()
    finally:
        app.only = None
        app.word = None
