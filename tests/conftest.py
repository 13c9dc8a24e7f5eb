"""Shared test setup: private numba and roster caches unless the caller chose them; the scenario tests' engine spy."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest

# Set once in the pytest-xdist controller (it loads this file before starting workers), so every worker inherits it:
# a kernel compiled by one worker is loaded from the cache by the others.
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mathhammer-numba-")
# The validated-roster cache of the tests lives in a folder of the run, not in the user's ~/.cache/mathhammer
# (a test that checks the cache itself sets its own).
if "MATHHAMMER_CACHE_DIR" not in os.environ:
    os.environ["MATHHAMMER_CACHE_DIR"] = tempfile.mkdtemp(prefix="mathhammer-cache-")


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Every (compiled Batches, compiled target) the simulation hands the exact engine, in order."""
    import mathhammer.scenario.sim_shoot as sim_module  # where the simulation calls the exact engine
    from mathhammer.starcraft.exact import exact_states

    calls: list[tuple[Any, Any]] = []

    def spy(batches: Any, target: Any, spent: bool = False) -> dict:
        calls.append((batches, target))
        return exact_states(batches, target, spent=spent)

    monkeypatch.setattr(sim_module, "exact_states", spy)
    return calls
