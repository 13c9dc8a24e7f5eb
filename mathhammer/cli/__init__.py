"""The ``mathhammer`` command line.

One command group per module, joined here. Importing this module is light:
no numba, pandas or matplotlib until a command needs them.
"""

from __future__ import annotations

import typer

from . import army, attack, board, compare, import_opr, profiles, report, scenario

app = typer.Typer(
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


@app.callback()
def _root() -> None:
    """Exact and Monte Carlo combat maths for StarCraft: Tabletop Miniatures Game and Grimdark Future."""


def main() -> None:
    """Entry point of the ``mathhammer`` script."""
    app()
