"""The shape of the scenario geometry (issue 26 points 3 and 4): ``World`` is composed of one module per concern
under ``mathhammer/scenario/geometry/``, each under 800 lines, importing each other without a cycle and answering
through one memo (``mathhammer/scenario/memo.py``); the naive references live in the tests."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from .test_architecture import _cycles

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "mathhammer" / "scenario"
GEOMETRY = SCENARIO / "geometry"
MAX_LINES = 800
PARTS = {"core", "routes", "placement", "charge", "ranks", "facts", "contest", "toward"}


def test_one_module_per_concern() -> None:
    assert {p.stem for p in GEOMETRY.glob("*.py")} == PARTS | {"__init__"}


@pytest.mark.parametrize("path", [*sorted(GEOMETRY.glob("*.py")), SCENARIO / "world.py", SCENARIO / "memo.py"])
def test_no_geometry_module_over_800_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES, path.name


def test_no_import_cycle_inside_the_geometry() -> None:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extras)")
    graph: Any = grimp.build_graph("mathhammer", cache_dir=None)
    package = "mathhammer.scenario.geometry"
    modules = {package, *graph.find_descendants(package)}
    assert len(modules) == len(PARTS) + 1
    assert not _cycles(graph, modules)


#: What the geometry may import of the scenario engine, directly or not (type-only imports too): the scenario's plain
#: types (spec, with the Mission Card catalog a Scenario holds), the memo and the compiled kernels.
GEOMETRY_READS = {
    "spec",
    "missions",
    "memo",
    "fast",
    "fastnear",
    "fastplace",
    "fastspots",
    "fastranks",
    "fasttables",
    "fastcontrol",
}


def test_the_geometry_reads_only_the_spec_the_memo_and_the_kernels() -> None:
    """The geometry and the World facade are below every rule of play: all they import of the scenario engine, through
    any chain, is :data:`GEOMETRY_READS` (the World: and the geometry); the memo imports nothing of it."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extras)")
    graph: Any = grimp.build_graph("mathhammer", cache_dir=None)

    def reads(module: str) -> set[str]:
        up = graph.find_upstream_modules(f"mathhammer.scenario.{module}", as_package=True)
        return {m.split(".")[2] for m in up if m.startswith("mathhammer.scenario.")}

    geometry = reads("geometry")
    assert "spec" in geometry and geometry <= GEOMETRY_READS, geometry - GEOMETRY_READS
    assert reads("world") - {"geometry"} <= GEOMETRY_READS
    assert reads("memo") == set()


def test_the_world_is_composed_of_the_parts() -> None:
    """Every part is a base of World, and World itself adds nothing (a facade); each method is defined by one part
    (but ``charge_place``, which the placement part names and the Charge part gives)."""
    import importlib

    from mathhammer.scenario.world import World

    parts = {importlib.import_module(f"mathhammer.scenario.geometry.{p}") for p in PARTS}
    classes = {c for c in World.__mro__ if c.__module__.startswith("mathhammer.scenario.geometry.")}
    assert {importlib.import_module(c.__module__) for c in classes} == parts
    assert not [k for k in vars(World) if not k.startswith("__")]
    defined: dict[str, list[str]] = {}
    for c in classes:
        for k, v in vars(c).items():
            if callable(v) and not k.startswith("__"):
                defined.setdefault(k, []).append(c.__name__)
    assert {k: sorted(v) for k, v in defined.items() if len(v) > 1} == {"charge_place": ["Charges", "Placing"]}
    assert World.charge_place.__qualname__.startswith("Charges.")


def _dict_displays(path: Path) -> list[str]:
    """The attributes set to an empty dict display (``self._x = {}``) in a module: caches outside the memo."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(value, ast.Dict) and not value.keys:
                out += [ast.unparse(t) for t in targets if isinstance(t, ast.Attribute)]
    return out


@pytest.mark.parametrize("path", sorted(GEOMETRY.glob("*.py")), ids=lambda p: p.stem)
def test_every_table_is_the_memos(path: Path) -> None:
    """No geometry part keeps a cache dictionary of its own: its tables come from the World's memo
    (``Memo.table``), the box memos from ``Memo.boxed``."""
    assert _dict_displays(path) == []


def test_the_box_memos_are_the_memos() -> None:
    from mathhammer.scenario import builtin_scenarios, load_scenario
    from mathhammer.scenario.sim import Simulation

    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))
    sim = Simulation(scn, 300, 2)
    sim.run()
    memo = sim.world.memo
    for name in ("box:spots", "box:charge", "box:close"):
        assert memo.tables[name], name  # each box memo answered through the memo in these games
    assert memo.tables["box:charge"] is sim.world._charge_entries
    assert all(isinstance(t, dict) for t in memo.tables.values())


def test_no_reference_search_in_production_code() -> None:
    """The naive Close Ranks search lives in tests/scenario_naive.py; production code has only the hook."""
    text = (GEOMETRY / "ranks.py").read_text()
    assert "def search(" not in text and "compiled_ranks" not in text
    from .scenario_naive import close_ranks_search

    assert callable(close_ranks_search)
