"""Army-efficiency reports: every unit against every enemy unit, as tables, charts and one HTML page.

The report knows no game: each system plans its cells (its ``report_plan``, in
``mathhammer/<system>/report.py``) and names the columns (its ``words`` and
``report_figures``, read by :class:`Columns`); every cell runs through
:func:`mathhammer.systems.run`.

- :func:`sweep` builds the cells (two army lists, or a whole roster), runs them
  (exactly, or by Monte Carlo with a seed per cell; serially or on Dask) and
  returns a pandas DataFrame, one row per (attacker, target, phase).
- :func:`ranking` averages each attacker over its targets and ranks them.
- :func:`write_report` writes the CSV files, PNG charts and a self-contained
  ``report.html`` into a folder, atomically.

pandas, matplotlib and dask are imported only when these run.
"""

from __future__ import annotations

from ..cells import Cell, Plan, Side, cell_seed
from .columns import Columns
from .output import write_report
from .runner import compute, execute, plan, ranking, sweep

__all__ = [
    "Cell",
    "Columns",
    "Plan",
    "Side",
    "cell_seed",
    "compute",
    "execute",
    "plan",
    "ranking",
    "sweep",
    "write_report",
]
