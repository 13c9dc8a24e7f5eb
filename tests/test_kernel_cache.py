"""The package's kernels are cached in a folder named by a digest of the files numba compiles into them
(:func:`mathhammer.config.kernel_cache_root`): numba checks only the stamp of a kernel's own file, so an edit of a
module it calls, inlines or reads a constant of would otherwise leave the old kernel in use."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mathhammer import config, jit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(config.PACKAGE_DIR)


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of each module-level ``from ... import name`` of the package's file ``path`` (not under
    ``if TYPE_CHECKING``), the module absolute; ("numba", "") for an import of numba or llvmlite."""
    out: list[tuple[str, str]] = []
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            out += [("numba", "") for a in node.names if a.name.split(".")[0] in ("numba", "llvmlite")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            if full.split(".")[0] in ("numba", "llvmlite"):
                out.append(("numba", ""))
            else:
                out += [(full, a.name) for a in node.names]
    return out


def test_the_digest_covers_the_kernels_and_what_they_compile_in() -> None:
    """KERNEL_SOURCES = the modules that import numba (they define the kernels) and the package's modules they
    import a constant (an upper-case name) or a module object from: a kernel reads those as frozen globals."""
    files = {_module(p): p for p in PACKAGE.rglob("*.py")}
    kernels = {m for m, p in files.items() if ("numba", "") in _imports(p)}
    wanted = set(kernels)
    for m in kernels:
        for full, name in _imports(files[m]):
            if f"{full}.{name}" in files:
                wanted.add(f"{full}.{name}")
            elif full in files and name.isupper():
                wanted.add(full)
    as_paths = {str(files[m].relative_to(PACKAGE)) for m in wanted}
    assert "scenario/fastfetch.py" in as_paths and "starcraft/mcparams.py" in as_paths  # the reading works
    assert sorted(as_paths) == list(config.KERNEL_SOURCES)


def _root(package: Path, cache: Path) -> str:
    """kernel_cache_root of the copy of the package under ``package``, in a new process."""
    code = "from mathhammer import config; print(config.PACKAGE_DIR); print(config.kernel_cache_root())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(package)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=package, capture_output=True, text=True, check=True)
    where, root = out.stdout.split()
    assert where == str(package / "mathhammer")  # the copy's, not the installed package
    return root


def test_editing_a_kernels_dependency_changes_the_folder(tmp_path: Path) -> None:
    """A copy of the package: the same sources, the same folder (under the user's NUMBA_CACHE_DIR); a constant of
    engine/rng.py (compiled into starcraft/kernels.py's kernels, whose own file is untouched) edited: another
    folder; a file no kernel reads edited: the same folder."""
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "mathhammer", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = _root(copy, cache)
    assert Path(first).parent == cache and Path(first).name.startswith(config.CACHE_PREFIX)
    assert Path(first).is_dir()
    assert _root(copy, cache) == first
    rng = copy / "mathhammer" / "engine" / "rng.py"
    text = rng.read_text()
    rng.write_text(text.replace("\nfrom ..config import JIT", "\nEDITED = 1\nfrom ..config import JIT", 1))
    assert rng.read_text() != text
    second = _root(copy, cache)
    assert second != first and Path(second).parent == cache
    other = copy / "mathhammer" / "scenario" / "players" / "menu.py"
    assert "scenario/players/menu.py" not in config.KERNEL_SOURCES
    other.write_text(other.read_text() + "\n# edited\n")
    assert _root(copy, cache) == second


def test_the_digest_reads_the_content(tmp_path: Path) -> None:
    """sources_digest: each file's content, so an edit changes it (also one keeping the size and the modification
    time), a touch does not, and a missing file does."""
    for name in config.KERNEL_SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    one = config.sources_digest(str(tmp_path))
    assert len(one) == 12 and one == config.sources_digest(str(tmp_path))
    target = tmp_path / "scenario" / "fastfetch.py"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert config.sources_digest(str(tmp_path)) == one  # touched, the same text
    target.write_text("x = 2\n")  # the same size
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same time
    two = config.sources_digest(str(tmp_path))
    assert two != one
    target.unlink()
    assert config.sources_digest(str(tmp_path)) not in (one, two)


def test_a_source_on_another_drive_is_left_to_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.path.commonpath raises ValueError for paths on different drives (Windows): such a file is not the package's,
    and the locator (tried first for every cached function of the process) must not raise."""

    def other_drive(paths: list[str]) -> str:
        raise ValueError("Paths don't have the same drive")

    monkeypatch.setattr(config.os.path, "commonpath", other_drive)
    assert config.kernel_cache_folder("D:/elsewhere/mine.py") is None


def test_files_outside_the_package_are_left_to_numba(tmp_path: Path) -> None:
    """Only the package's kernels get the digest folder (any other cached function is numba's own business), and
    jit's mirror of the folder is the locator's."""
    assert config.kernel_cache_folder(str(tmp_path / "mine.py")) is None
    source = str(PACKAGE / "scenario" / "fast.py")
    folder = config.kernel_cache_folder(source)
    root = config.kernel_cache_root()
    assert folder is not None and root is not None and Path(folder).parent == Path(root)
    assert jit.cache_folder(source) == folder
