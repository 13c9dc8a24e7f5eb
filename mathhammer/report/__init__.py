"""Army-efficiency reports: every unit against every enemy unit, as tables, charts and one HTML page.

- :func:`sweep` builds the cells (two army lists, or a whole roster), runs them
  (exactly, or by Monte Carlo with a seed per cell; serially or on Dask) and
  returns a pandas DataFrame, one row per (attacker, target, phase).
- :func:`ranking` averages each attacker over its targets and ranks them.
- :func:`write_report` writes the CSV files, PNG charts and a self-contained
  ``report.html`` into a folder, atomically.

pandas, matplotlib and dask are imported only when these run.
"""

from __future__ import annotations

from .cells import Cell, Plan, cell_seed, plan, supply_left
from .output import write_report
from .runner import compute, execute, ranking, sweep

__all__ = ["Cell", "Plan", "cell_seed", "compute", "execute", "plan", "ranking", "supply_left", "sweep", "write_report"]
