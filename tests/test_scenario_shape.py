"""The shape of the scenario engine (issue 26 point 4): no module of ``mathhammer/scenario/`` over 800 lines.
(No import cycle inside the package, type-only imports counted: ``tests/test_architecture.py``; its layering:
the ``scenario-layers`` contract of pyproject.toml.)"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "mathhammer" / "scenario"
MAX_LINES = 800


def _modules() -> list[Path]:
    return sorted(SCENARIO.rglob("*.py"))


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def _name(path: Path) -> str:
    return path.relative_to(SCENARIO).as_posix()


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_no_scenario_module_over_800_lines(path: Path) -> None:
    assert _lines(path) <= MAX_LINES, f"{_name(path)}: {_lines(path)} lines; split it by concern"


def test_the_modules_are_found() -> None:
    """The walk sees the package's modules, its subpackages' too (so the limit is not checked on nothing)."""
    names = {_name(p) for p in _modules()}
    assert {"spec.py", "loader.py", "fast.py", "geometry/core.py", "cards/registry.py", "check/walk.py"} <= names
