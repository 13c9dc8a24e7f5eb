"""Start-up (issue 28 point 1): each command loads only the libraries and command modules it uses.

Each case runs one ``mathhammer`` command in a new interpreter (as the script does) and lists the
modules it loaded that it must not: numba, pandas, matplotlib, shapely, dask and rich everywhere
here (none of these commands draws, runs Monte Carlo or shows a progress bar), numpy where no
distribution is computed, pydantic where no card is read, Grimdark Future for StarCraft, and the
modules of the other commands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARMY = str(ROOT / "profiles" / "armies" / "terran_six.toml")

#: Never loaded by the commands below.
HEAVY = ("numba", "pandas", "matplotlib", "shapely", "dask", "rich")
#: Nor these, by the commands below but ``--version`` (``importlib.metadata`` loads ``tempfile``): OpenSSL
#: (``hashlib``'s ``_hashlib``: the roster cache's key is hashed without it), ``html`` (notebooks only) and
#: ``tempfile`` (numba's cache folder check, made when a kernel reads its flags).
UNUSED = ("_hashlib", "html", "tempfile")
#: The other commands' modules: a StarCraft command loads none of them.
OTHERS = ("mathhammer.cli.board", "mathhammer.cli.scenario", "mathhammer.cli.report", "mathhammer.cli.import_opr")
NO_CARDS = ("numpy", "pydantic", "mathhammer.grimdark")  # no numbers computed, cards from the cache
NO_NUMPY = ("numpy", "mathhammer.grimdark")
STARCRAFT = ("mathhammer.grimdark",)
#: A command reading cards from the cache (plain cards: mathhammer.starcraft.cards) loads no pydantic.
CACHED = ("pydantic", "mathhammer.starcraft.schema", *STARCRAFT)

ADHOC = ["attack", "--models", "10", "--hit", "4", "--damage", "2", "--target-models", "5", "--target-hp", "2"]

CASES = [
    (["--help"], (*NO_CARDS, "mathhammer.starcraft")),  # every command module: the help lists them all
    (["--version"], (*NO_CARDS, *OTHERS, "mathhammer.starcraft")),
    (["profiles", "list"], (*NO_CARDS, *OTHERS, "mathhammer.cli.attack")),
    (["profiles", "show", "Marine"], (*NO_CARDS, *OTHERS)),
    (["army", "validate", ARMY], (*NO_CARDS, *OTHERS)),
    ([*ADHOC, "--json"], ("pydantic", *STARCRAFT, *OTHERS, "mathhammer.cli.compare")),
    (["attack", "Marine", "Zergling", "--json"], (*CACHED, *OTHERS)),
    (["compare", "Marine", "--vs", "Zergling", "--json"], (*CACHED, *OTHERS, "mathhammer.cli.attack")),
    (["matchup", "Marine", "Zergling"], (*CACHED, *OTHERS)),
]

DRIVER = """
import json, runpy, sys
forbidden = sys.argv[1].split(",")
sys.argv = ["mathhammer", *sys.argv[2:]]
try:
    runpy.run_module("mathhammer", run_name="__main__")
    code = 0
except SystemExit as exc:
    code = exc.code or 0
import os
threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
loaded = [m for m in forbidden if m in sys.modules]
print(json.dumps({"code": code, "loaded": loaded, "threads": threads, "blas": os.environ.get("OPENBLAS_NUM_THREADS")}),
      file=sys.stderr)
"""


@pytest.fixture(scope="module")
def cache_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A private roster cache, filled once (the commands below then read the roster and the army list from it)."""
    env = dict(os.environ, MATHHAMMER_CACHE_DIR=str(tmp_path_factory.mktemp("cache")), PYTHONPATH=str(ROOT))
    for args in (["profiles", "list"], ["army", "validate", ARMY]):
        subprocess.run([sys.executable, "-m", "mathhammer", *args], env=env, cwd=ROOT, check=True, capture_output=True)
    return env


@pytest.mark.parametrize(("args", "forbidden"), CASES, ids=[" ".join(a[:3]) for a, _ in CASES])
def test_a_command_loads_only_what_it_uses(args: list[str], forbidden: tuple[str, ...], cache_env: dict) -> None:
    forbidden = (*HEAVY, *(UNUSED if args != ["--version"] else ()), *forbidden)
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, ",".join(forbidden), *args],
        env=cache_env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    assert report["loaded"] == [], f"mathhammer {' '.join(args)} loaded {report['loaded']}"


def test_import_mathhammer_is_light_and_the_flat_names_still_load() -> None:
    code = (
        "import sys, mathhammer as mh\n"
        "before = [m for m in ('numpy', 'pydantic', 'typer', 'mathhammer.api') if m in sys.modules]\n"
        "names = [n for n in mh.__all__ if getattr(mh, n, None) is None]\n"
        "print(before, names, set(mh.__all__) <= set(dir(mh)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["[]", "[]", "True"]


def test_a_system_by_name_or_alias_loads_that_system_alone() -> None:
    code = (
        "import sys\nfrom mathhammer import systems\n"
        "assert systems.get('SC').name == 'starcraft'\n"
        "print('mathhammer.grimdark' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"


def test_the_table_of_builtin_names_is_every_name_and_alias_of_the_systems() -> None:
    from mathhammer import systems

    want = {}
    for name in systems.BUILTIN:
        game = systems.get(name)
        want.update(dict.fromkeys((game.name, *game.aliases), game.name))
    assert want == systems.BUILTIN_NAMES


def test_the_root_lists_every_command_module() -> None:
    """Every command module is in the table, and the app as tests and the API use it has every command."""
    import typer.main

    import mathhammer.cli as cli

    folder = ROOT / "mathhammer" / "cli"
    modules = {p.stem for p in folder.glob("*.py") if "\ndef register(" in p.read_text(encoding="utf-8")}
    assert modules <= set(cli.MODULES), "a command module missing from mathhammer.cli.MODULES"
    root = typer.main.get_command(cli.app)
    assert {c for commands in cli.MODULES.values() for c in commands} <= set(root.commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("argv", "modules"),
    [
        (["attack", "Marine", "Zergling"], ["attack"]),
        (["matchup", "--help"], ["compare"]),
        (["profiles", "list"], ["profiles"]),
        (["import-opr", "x.json"], ["import_opr"]),
        (["--help"], None),
        ([], None),
        (["--version"], []),
        (["no-such-command"], None),
    ],
)
def test_the_command_line_picks_its_module(argv: list[str], modules: list[str] | None) -> None:
    from mathhammer.cli import _modules_of

    assert _modules_of(argv) == modules


def test_version_prints_the_package_version() -> None:
    from importlib.metadata import version

    from typer.testing import CliRunner

    from mathhammer.cli import app

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"mathhammer {version('mathhammer')}\n"


def test_version_falls_back_to_the_source_version(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    import mathhammer
    from mathhammer.cli import version

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    monkeypatch.setattr(mathhammer, "__version__", "9.8.7")
    assert version() == "9.8.7"


def test_a_command_registered_on_the_app_loads_no_other_module() -> None:
    """``x.register(app)`` at import (a new command's one line) adds its command without loading the others;
    typer then reads every command, or only the one asked for."""
    code = (
        "import sys, typer.main\n"
        "from mathhammer.cli import app\n"
        "app.command('extra')(lambda: None)\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('mathhammer.cli.') and m != 'mathhammer.cli.common')\n"
        "app.only = ['profiles']\n"
        "some = sorted(typer.main.get_command(app).commands)\n"
        "app.only = None\n"
        "every = sorted(typer.main.get_command(app).commands)\n"
        "from mathhammer.cli import MODULES\n"
        "print(loaded, some, len(every) == 1 + sum(len(v) for v in MODULES.values()))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[] ['extra', 'profiles'] True"


def test_the_kernel_flags_are_made_when_first_read(tmp_path: Path) -> None:
    """``config.CACHE`` and the kernels' flags: made (numba's cache folder checked) on first read, not at import."""
    folder = tmp_path / "numba"
    code = (
        "import sys\nfrom mathhammer import config\n"
        "print('tempfile' in sys.modules, 'CACHE' in vars(config))\n"
        "from mathhammer.config import INLINE, JIT, PARALLEL\n"
        "print(config.CACHE, JIT['cache'], INLINE['inline'], PARALLEL['parallel'], INLINE['nogil'])\n"
        "print(JIT is config.JIT, hasattr(config, 'NO_SUCH_FLAG'))\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert proc.stdout.split("\n")[:3] == ["False False", "True True always True True", "True False"]
    assert folder.is_dir()  # the check made the folder


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
@pytest.mark.parametrize(
    ("args", "env", "one"),
    [
        (["attack", "Marine", "Zergling", "--json"], {}, True),
        (["compare", "Marine", "--vs", "Zergling", "--json"], {}, True),
        (["attack", "Marine", "Zergling", "--json", "--system", "sc"], {}, False),  # any --system: kept
        (["attack", "Marine", "Zergling", "--json"], {"OPENBLAS_NUM_THREADS": "2"}, False),  # the user's choice
    ],
)
def test_a_starcraft_command_starts_no_blas_threads(args: list[str], env: dict, one: bool, cache_env: dict) -> None:
    """OpenBLAS's worker threads (started when numpy loads) are not started for a StarCraft command line."""
    import numpy as np

    config = np.show_config(mode="dicts") if hasattr(np, "show_config") else {}
    blas = str(config.get("Build Dependencies", {}).get("blas", {}).get("name", "")).lower()
    if "openblas" not in blas or (os.cpu_count() or 1) < 2:
        pytest.skip("numpy's BLAS is not a threaded OpenBLAS on a machine of 2 or more cores")
    clean = {
        k: v for k, v in cache_env.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    }
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "", *args], env={**clean, **env}, cwd=ROOT, capture_output=True, text=True
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    assert (report["threads"] == 1, report["blas"] == "1") == (one, one), report


def test_a_dataclass_with_its_own_repr_does_not_have_one_made() -> None:
    """``@dataclass`` compiles a ``__repr__`` (Python source, at import) even for a class that writes its own, then
    throws it away: such a class says ``repr=False`` (the repr is the class's own either way)."""
    import ast

    offenders, seen = [], 0
    for path in sorted((ROOT / "mathhammer").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            own = any(isinstance(f, ast.FunctionDef) and f.name == "__repr__" for f in node.body)
            for d in node.decorator_list:
                name = d.func if isinstance(d, ast.Call) else d
                if own and ast.unparse(name).split(".")[-1] == "dataclass":
                    seen += 1
                    keywords = {k.arg: ast.unparse(k.value) for k in d.keywords} if isinstance(d, ast.Call) else {}
                    if keywords.get("repr") != "False":
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert offenders == []
    assert seen >= 5  # Result, Unit, Roster, Tally, Loadout on 2026-12-02
