"""The architecture, checked: the import contracts of pyproject.toml (import-linter), one by one; no
import cycle inside a package (grimp); and a toy third game system (tests/toy_system.py) that works
through the Python API and the command line with one registration."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mathhammer"

#: Contracts broken today, by id, and why: each entry is removed when its fix lands (strict: a contract
#: that starts to hold fails the test until its entry goes).
BROKEN_TODAY: dict[str, str] = {}


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

#: Packages whose modules may import each other in a cycle, left out of the check that counts type-only imports
#: too: none (the scenario package's last cycles went with issue 26 point 4). A package added here needs its reason.
CYCLES_ALLOWED: set[str] = set()


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


class _Graph:
    """A stand-in for grimp's graph: ``edges`` maps a module to the modules it imports."""

    def __init__(self, edges: dict[str, list[str]]) -> None:
        self.edges = edges

    def find_modules_directly_imported_by(self, module: str) -> set[str]:
        return set(self.edges.get(module, []))


def test_cycle_finder_finds_a_cycle() -> None:
    """The finder itself, on a made-up graph: a -> b -> c -> a and d <-> e are cycles, f -> a and c -> g are not
    in one (and neither is an import from outside the modules asked about)."""
    edges = {"a": ["b"], "b": ["c"], "c": ["a", "g", "x"], "d": ["e"], "e": ["d"], "f": ["a"], "g": [], "x": ["a"]}
    modules = {"a", "b", "c", "d", "e", "f", "g"}
    assert sorted(_cycles(_Graph(edges), modules)) == [["a", "b", "c"], ["d", "e"]]
    assert _cycles(_Graph({**edges, "c": ["g"], "e": []}), modules) == []


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


def test_no_import_cycle_when_running() -> None:
    """Counting every import that runs (module level and inside functions) and only those, no modules of
    mathhammer import each other in a cycle, in any package, scenario included."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extras)")
    running = grimp.build_graph("mathhammer", cache_dir=None, exclude_type_checking_imports=True)
    cycles = _cycles(running, set(running.modules))
    assert not cycles, "modules importing each other in a cycle: " + "; ".join(", ".join(c) for c in cycles)


def test_no_import_cycle_across_packages(graph: Any) -> None:
    """No cycle of modules anywhere in mathhammer either, but for one inside a package of
    :data:`CYCLES_ALLOWED` (a cycle through it and another package is not allowed)."""

    def allowed(cycle: list[str]) -> bool:
        return any(all(m == p or m.startswith(p + ".") for m in cycle) for p in CYCLES_ALLOWED)

    cycles = [c for c in _cycles(graph, set(graph.modules)) if not allowed(c)]
    assert not cycles, "modules importing each other in a cycle: " + "; ".join(", ".join(c) for c in cycles)


# --- a third game system: one module (tests/toy_system.py) and one registration ----------------------


@pytest.fixture(scope="module")
def coin() -> Iterator[Any]:
    from mathhammer import systems

    from .toy_system import SYSTEM

    systems.register(SYSTEM)
    try:
        yield SYSTEM
    finally:
        systems.unregister(SYSTEM.name)


def _other_outcome_words() -> set[str]:
    """The outcome names and labels of the built-in systems that Coin Duel does not share."""
    from mathhammer import systems

    from .toy_system import OUTCOMES

    ours = {w for o in OUTCOMES for w in (o.name, o.label)}
    theirs = {w for s in ("starcraft", "grimdark") for o in systems.get(s).outcomes for w in (o.name, o.label)}
    return theirs - ours


def test_every_system_meets_the_contract(coin: Any) -> None:
    from mathhammer import systems

    assert isinstance(coin, systems.GameSystem)
    assert all(isinstance(systems.get(n), systems.GameSystem) for n in ("starcraft", "grimdark"))
    assert {"coin", "grimdark", "starcraft"} <= set(systems.names())
    assert systems.get("Coin-Duel") is coin


def test_toy_attack_is_exact(coin: Any) -> None:
    """5 Archers flip 2 coins each at 3 Brutes of 3 wounds: heads ~ Binomial(10, 1/2), a Brute falls
    per 3 heads, all three at 9 or 10 heads."""
    import mathhammer as mh

    r = mh.attack("archers", "Brutes", system="coin")
    pmf = [Fraction(math.comb(10, k), 2**10) for k in range(11)]
    assert r.engine == "exact" and r.system == "coin"
    assert r.heads.pmf.tolist() == pytest.approx([float(p) for p in pmf], abs=1e-15)
    assert r.heads.mean == pytest.approx(5.0, abs=1e-12)
    at_least = {k: sum(pmf[k:]) for k in (3, 6, 9)}
    assert at_least == {3: Fraction(968, 1024), 6: Fraction(386, 1024), 9: Fraction(11, 1024)}
    assert r.fallen.mean == pytest.approx(float(sum(at_least.values())), abs=1e-12)  # 1365/1024
    assert r.wiped_out == pytest.approx(11 / 1024, abs=1e-15)
    assert r.all_heads == pytest.approx(1 / 1024, abs=1e-15)
    weighted = mh.attack("Champion", "Archers", system="coin", weighted=True, target_models=2)
    assert weighted.heads.mean == pytest.approx(4 * 2 / 3, abs=1e-12)
    assert weighted.wiped_out == pytest.approx(float(1 - Fraction(1, 3) ** 4 - 4 * Fraction(2, 3) / 27), abs=1e-12)


def test_toy_monte_carlo_agrees_with_exact(coin: Any) -> None:
    import mathhammer as mh

    exact = mh.attack("Archers", "Brutes", system="coin")
    mc = mh.attack("Archers", "Brutes", system="coin", trials=200_000, seed=7)
    assert mc.engine == "monte-carlo" and mc.trials == 200_000
    for name in ("heads", "fallen"):
        assert abs(getattr(mc, name).mean - getattr(exact, name).mean) < 5 * getattr(mc, name).stderr
    for name in ("wiped_out", "all_heads"):
        assert abs(getattr(mc, name) - getattr(exact, name)) < 5 * max(mc.stderr(name), 1e-4)
    again = mh.attack("Archers", "Brutes", system="coin", trials=200_000, seed=7)
    assert again.heads.pmf.tolist() == mc.heads.pmf.tolist()
    tol = mh.attack("Archers", "Brutes", system="coin", tolerance=0.005)
    assert tol.heads.stderr <= 0.005 and tol.wiped_out_stderr <= 0.005


def test_toy_result_speaks_only_its_own_words(coin: Any) -> None:
    import mathhammer as mh

    r = mh.attack("Archers", "Brutes", system="coin", trials=10_000)
    out = r.to_dict()
    assert list(out) == ["engine", "trials", "seed", "heads", "fallen", "wiped_out", "all_heads"]
    assert set(r.to_frame()["quantity"]) == {"heads", "fallen"}
    text = repr(r)
    assert "heads" in text and "models fallen" in text and "P(wiped out)" in text
    for word in _other_outcome_words():
        assert word not in text and word not in out
    assert not hasattr(r, "damage") and not hasattr(r, "wounds")


def test_toy_ad_hoc_objects_run(coin: Any) -> None:
    import mathhammer as mh

    from .toy_system import Coins, Defenders

    r = mh.run(Coins(models=5, coins=2), Defenders(models=3, tough=3))
    assert r.wiped_out == pytest.approx(11 / 1024, abs=1e-15)
    with pytest.raises(mh.InputError, match="target"):
        mh.run(Coins(1, 1), "Brutes")


def test_toy_sweeps_and_units(coin: Any) -> None:
    import mathhammer as mh

    frame = mh.compare("Archers", ["Brutes", "Champion"], system="coin", compositions=[2, 5])
    assert len(frame) == 4 and set(frame["rank"]) == {1, 2}
    assert mh.matchup("Archers", "Brutes", system="coin")["attacker"].tolist() == ["5 Archers", "3 Brutes"]
    assert repr(mh.unit("Brutes", system="coin", models=2)) == "<Loadout 2 Brutes, 30 crowns>"
    with pytest.raises(mh.InputError, match="did you mean 'Champion'"):
        mh.attack("Archers", "Champoin", system="coin")
    with pytest.raises(mh.InputError, match="not a Coin Duel option"):
        mh.attack("Archers", "Brutes", system="coin", cover=True)


def test_toy_report_in_its_own_words(coin: Any, tmp_path: Path) -> None:
    """The army-efficiency report runs a third system through the contract: its columns in the toy's words
    (heads, crowns), none of StarCraft's or Grimdark's, and the exact figures of its own engine."""
    import mathhammer as mh

    df = mh.report.sweep(roster=True, system="coin", scheduler="serial")
    words = " ".join(df.columns)
    assert "heads_mean" in words and "heads_per_100" in words
    for other in ("damage", "wounds", "supply", "minerals", "points"):
        assert other not in words
    cell = df[(df["attacker_unit"] == "Archers") & (df["target_unit"] == "Brutes") & (df["phase"] == "assault")]
    assert cell["heads_mean"].item() == pytest.approx(mh.attack("Archers", "Brutes", system="coin").heads.mean)
    assert (df[df["phase"] == "combat"]["batches"] == 0).all()
    mh.report.write_report(df, tmp_path / "out")
    page = (tmp_path / "out" / "report.html").read_text()
    assert "heads" in page and "Supply" not in page and "wounds" not in page


def test_toy_through_the_command_line(coin: Any) -> None:
    from typer.testing import CliRunner

    from mathhammer.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["attack", "Archers", "Brutes", "--system", "coin", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["wiped_out"]["p"] == pytest.approx(11 / 1024, abs=1e-15)
    assert out["loadout"]["attacker"] == {"unit": "Archers", "models": 5, "crowns": 50}
    res = runner.invoke(app, ["attack", "Archers", "Brutes", "--system", "coin"])
    assert res.exit_code == 0 and "Models fallen: mean 1.3330" in res.stdout, res.output
    res = runner.invoke(app, ["attack", "--system", "coin", "--models", "3", "--target-models", "2", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["heads"]["mean"] == pytest.approx(1.5), res.output
    for flag in (["--upgrade", "X"], ["--evade-eligible"], ["--cover"]):
        res = runner.invoke(app, ["attack", "Archers", "Brutes", "--system", "coin", *flag])
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {flag[0]}: "), res.stderr
    res = runner.invoke(app, ["profiles", "list", "--system", "coin"])
    assert res.exit_code == 0 and all(n in res.stdout for n in ("Archers", "Brutes", "Champion")), res.output
    res = runner.invoke(app, ["profiles", "list", "--system", "coin", "--race", "zerg"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --race: got 'zerg'"), res.output
    res = runner.invoke(app, ["profiles", "show", "champion", "--system", "coin", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["tough"] == 5, res.output
    res = runner.invoke(app, ["compare", "Archers", "--vs", "Brutes", "--system", "coin"])
    assert res.exit_code == 0 and "vs 3 Brutes" in res.stdout, res.output
    res = runner.invoke(app, ["matchup", "Archers", "Brutes", "--system", "coin"])
    assert res.exit_code == 0 and "3 Brutes" in res.stdout, res.output


def test_toy_profile_files(coin: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import mathhammer as mh
    from mathhammer.cli import app

    (tmp_path / "units.toml").write_text("[units.Pikemen]\nmodels = 6\ncoins = 1\ntough = 1\ncrowns = 30\n")
    r = mh.attack("Pikemen", "Champion", system="coin", profiles=tmp_path)
    assert r.heads.mean == pytest.approx(3.0)
    runner = CliRunner()
    res = runner.invoke(app, ["profiles", "validate", str(tmp_path), "--system", "coin"])
    assert res.exit_code == 0 and res.stdout.strip() == "ok: 1 files, 1 units", res.output
    (tmp_path / "units.toml").write_text("[units.Pikemen]\nmodels = 0\ncoinz = 1\ntough = 1\ncrowns = 30\n")
    res = runner.invoke(app, ["profiles", "validate", str(tmp_path), "--system", "coin"])
    assert res.exit_code == 2, res.output
    assert "units.Pikemen.coinz: unknown key (did you mean 'coins'?)" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 3  # models, coinz, the missing coins
