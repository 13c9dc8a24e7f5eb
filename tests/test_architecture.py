"""The architecture, checked: the import contracts of pyproject.toml (import-linter), one by one, and no
import cycle inside a package (grimp)."""

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


# --- no import cycle inside a package ------------------------------------------------------------------

#: Packages whose modules still import each other in a cycle, and why they are left out of the check.
#: mathhammer.scenario (abilities, check, conditions, mission, sim, spec, world): its cycle goes with the
#: scenario engine's plug-in rewrite (a later issue); remove it from here then.
CYCLES_ALLOWED = {"mathhammer.scenario"}


@pytest.fixture(scope="module")
def graph() -> Any:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extras)")
    return grimp.build_graph("mathhammer", cache_dir=None)


def _cycles(graph: Any, modules: set[str]) -> list[list[str]]:
    """The strongly connected components of more than one module among ``modules`` (Tarjan, iterative),
    counting every import grimp sees (function-level and TYPE_CHECKING ones too)."""
    succ = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i in modules) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def _subpackages() -> list[str]:
    found = sorted("mathhammer." + p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    return ["mathhammer", *(p for p in found if p not in CYCLES_ALLOWED)]


def test_cycle_finder_finds_a_cycle(graph: Any) -> None:
    """The finder itself: the scenario package's known cycle is found."""
    scenario = {"mathhammer.scenario", *graph.find_descendants("mathhammer.scenario")}
    assert any("mathhammer.scenario.sim" in c for c in _cycles(graph, scenario))


@pytest.mark.parametrize("package", _subpackages())
def test_no_import_cycle_inside(graph: Any, package: str) -> None:
    """The modules of a package (``mathhammer``: its own modules, not those of its subpackages) import each
    other without a cycle."""
    if package == "mathhammer":
        modules = {m for m in graph.modules if m.count(".") == 1 and not graph.find_children(m)} | {package}
    else:
        modules = {package, *graph.find_descendants(package)}
    cycles = _cycles(graph, modules)
    assert not cycles, "modules importing each other in a cycle: " + "; ".join(", ".join(c) for c in cycles)


def test_no_import_cycle_across_packages(graph: Any) -> None:
    """No cycle of modules anywhere in mathhammer either, but for one inside a package of
    :data:`CYCLES_ALLOWED` (a cycle through it and another package is not allowed)."""

    def allowed(cycle: list[str]) -> bool:
        return any(all(m == p or m.startswith(p + ".") for m in cycle) for p in CYCLES_ALLOWED)

    cycles = [c for c in _cycles(graph, set(graph.modules)) if not allowed(c)]
    assert not cycles, "modules importing each other in a cycle: " + "; ".join(", ".join(c) for c in cycles)
