"""Shared test setup: private numba and roster caches unless the caller chose them; the scenario tests' engine spy."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest

from .plugins import compile_once, longest_first, precompile

# Set once in the pytest-xdist controller (it loads this file before starting workers), so every worker inherits it:
# a kernel compiled by one worker is loaded from the cache by the others.
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mathhammer-numba-")
# The validated-roster cache of the tests lives in a folder of the run, not in the user's ~/.cache/mathhammer
# (a test that checks the cache itself sets its own).
# No first-compile notice on stderr in the tests' commands (whether a kernel is compiled yet depends on the order
# the workers run the tests in); tests/test_firstrun_notice.py sets its own threshold.
os.environ.setdefault("MATHHAMMER_COMPILE_NOTICE", "inf")
if "MATHHAMMER_CACHE_DIR" not in os.environ:
    os.environ["MATHHAMMER_CACHE_DIR"] = tempfile.mkdtemp(prefix="mathhammer-cache-")
# In an xdist worker: a kernel another worker is compiling is waited for and loaded, not compiled again.
compile_once.install_for_workers()


def pytest_configure(config: pytest.Config) -> None:
    longest_first.record(config)
    # a whole-suite xdist run: warmup's kernels compiled in the background from the start (plugins/precompile.py)
    precompile.begin(config)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    precompile.report(config, terminalreporter)


def pytest_unconfigure(config: pytest.Config) -> None:
    precompile.end(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    longest_first.tell_worker(node.config, node)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a worksteal worker: the slowest tests at the head of the workers' slices (tests/plugins/longest_first.py)."""
    longest_first.reorder(config, items)


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
