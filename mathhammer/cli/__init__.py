"""The ``mathhammer`` command line.

One command group per module, joined here. Importing this module is light:
no numba, pandas or matplotlib until a command needs them.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from . import army, attack, board, compare, import_opr, profiles, report, scenario
from .common import UsageError, one_line


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


app = typer.Typer(
    cls=_Group,
    name="mathhammer",
    help="Exact and Monte Carlo combat maths for StarCraft: Tabletop Miniatures Game and Grimdark Future.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
attack.register(app)
compare.register(app)
profiles.register(app)
army.register(app)
import_opr.register(app)
board.register(app)
scenario.register(app)
report.register(app)
__import__(f"{__name__}.warmup", fromlist=["register"]).register(app)


@app.callback()
def _root() -> None:
    """Exact and Monte Carlo combat maths for StarCraft: Tabletop Miniatures Game and Grimdark Future."""


def main() -> None:
    """Entry point of the ``mathhammer`` script (library warnings, e.g. shapely's, are not printed to users)."""
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"(shapely|numpy)(\..*)?$")
    app()
