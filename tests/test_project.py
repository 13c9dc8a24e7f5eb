"""The project's own promises: README quick start, CI script, lint, format and types."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section, flags=re.S)


def test_readme_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "mathhammer compare" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert quick_start_commands()[1] in ci.splitlines()
    assert "NUMBA_CACHE_DIR" in ci and "mktemp -d" in ci


def test_every_subpackage_is_listed_in_pyproject() -> None:
    """pyproject.toml lists the packages explicitly (profiles/ is mapped in): a new one must not be left out."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "mathhammer").rglob("__init__.py")} | {
        "mathhammer.builtin_profiles"
    }
    assert found == listed, found ^ listed


def _tool(name: str) -> list[str]:
    if shutil.which(name):
        return [name]
    pytest.skip(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return []


def test_ruff_lint() -> None:
    proc = subprocess.run([*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = subprocess.run(
        [*_tool("ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_typed_layer() -> None:
    _tool("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "mathhammer"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
