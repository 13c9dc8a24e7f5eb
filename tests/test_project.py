"""The project's own promises: README quick start, CI script, lint, format and types."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
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


def _pytest_options() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def test_the_suite_runs_on_every_core() -> None:
    """The README's test command runs with pytest-xdist on every core: the option is in addopts, the plugin in the
    test extras (CI installs only those)."""
    import tomllib

    opts = _pytest_options()["addopts"].split()
    assert opts[opts.index("-n") + 1] == "auto"
    assert opts[opts.index("--dist") + 1] == "worksteal"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert any(req.startswith("pytest-xdist") for req in extras)


def test_a_hang_in_a_worker_fails_its_test_and_shows_its_stack(tmp_path: Path) -> None:
    """The project's timeout settings under xdist, with the times cut to seconds: the hung test fails, the run
    goes on, and the hung test's stack reaches stderr (a worker's stdout is discarded)."""
    opts = _pytest_options()
    assert opts["timeout"] > opts["faulthandler_timeout"] >= opts["timeout"] - 30
    (tmp_path / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        f'addopts = "{" ".join(o for o in opts["addopts"].split() if "nbmake" not in o)}"\n'
        f'timeout_method = "{opts["timeout_method"]}"\n'
        "timeout = 4\nfaulthandler_timeout = 2\n"
    )
    (tmp_path / "test_hang.py").write_text(
        "import time\n\ndef test_hangs_here():\n    time.sleep(120)\n\ndef test_fine():\n    pass\n"
    )
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    out = proc.stdout + proc.stderr
    assert time.monotonic() - started < 100, out
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in proc.stdout and "test_hang.py::test_hangs_here" in proc.stdout, out
    assert "Timeout (0:00:02)!" in proc.stderr and "in test_hangs_here" in proc.stderr, out
