"""The mypy settings that keep its clean run short lose no check of mathhammer's own code."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _skipped() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    out = set()
    for override in config.get("overrides", []):
        if override.get("follow_imports") == "skip":
            out |= {m.removesuffix(".*") for m in override["module"]}
    return out


def test_mypy_skips_only_packages_mathhammer_does_not_import() -> None:
    """A package mypy does not follow is one no mathhammer module imports (else its types there would turn Any)."""
    skipped = _skipped()
    assert "IPython" in skipped  # the setting the check is about is there
    imported = set()
    for path in (ROOT / "mathhammer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                imported.add(node.module.split(".")[0])
    assert {"numpy", "pandas", "typer"} <= imported  # the walk sees the package's imports
    assert not skipped & imported
