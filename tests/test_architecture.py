"""The architecture, checked: the import contracts of pyproject.toml (import-linter), one by one."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mathhammer"

#: Contracts broken today, by id, and why: each entry is removed when its fix lands (strict: a contract
#: that starts to hold fails the test until its entry goes).
BROKEN_TODAY = {
    "report-neutral": "mathhammer.report still imports starcraft and grimdark; the report refactor (branch "
    "h-report) removes that: then delete this entry",
}


def _config() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return config


def _contracts() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in _config()["contracts"]}


def _lint_imports() -> str:
    """The venv's ``lint-imports`` (next to this Python), else the one on PATH; skip if neither."""
    here = Path(sys.executable).parent / "lint-imports"
    found = str(here) if here.exists() else shutil.which("lint-imports")
    if found is None:
        pytest.skip("lint-imports is not installed; install the test extras: pip install -e '.[test]'")
    return str(found)


def _param(contract: str) -> Any:
    if contract in BROKEN_TODAY:
        return pytest.param(contract, marks=pytest.mark.xfail(strict=True, reason=BROKEN_TODAY[contract]))
    return contract


@pytest.mark.parametrize("contract", [_param(c) for c in _contracts()])
def test_import_contract(contract: str) -> None:
    proc = subprocess.run(
        [_lint_imports(), "--no-cache", "--contract", contract], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_broken_contracts_are_contracts() -> None:
    assert set(BROKEN_TODAY) <= set(_contracts())


def _top_level() -> set[str]:
    """The modules and subpackages directly in mathhammer."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return modules | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}


def test_every_module_but_the_cli_is_forbidden_the_cli() -> None:
    """A new module or subpackage is in the "nothing below the command line imports it" contract too
    (``__main__`` is above the CLI: it runs it)."""
    sources = {m.removeprefix("mathhammer.") for m in _contracts()["cli-on-top"]["source_modules"]}
    assert sources == _top_level() - {"cli", "__main__"}
