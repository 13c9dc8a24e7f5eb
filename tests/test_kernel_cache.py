"""The package's kernels are cached in a folder named by a digest of the files numba compiles into them
(:func:`mathhammer.kernelcache.kernel_cache_root`): numba checks only the stamp of a kernel's own file, so an edit of a
module it calls, inlines or reads a constant of would otherwise leave the old kernel in use."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mathhammer import jit, kernelcache

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(kernelcache.PACKAGE_DIR)


class Sources:
    """The package's files under ``package`` (the folder named ``mathhammer``) read for what numba compiles: a kernel
    module imports numba (or llvmlite) at module level; its kernels are the functions a numba name decorates or wraps
    (``njit(...)(f)``); a kernel reads the names in its text (its decorator's flags too). A name read is followed to
    where it is bound at the top level of its module: an import from a package module (that module, and the name
    followed there), a module object of the package (that module, and the attributes read of it), an assignment, a
    function or a class of the module itself (the names in its text). Anything else (numpy, a local) is not the
    package's. Conservative where a local shares a global's name; imports under ``if`` (TYPE_CHECKING) are not
    read by kernels."""

    def __init__(self, package: Path) -> None:
        self.package = package
        self.files = {self.module(p): p for p in package.rglob("*.py")}
        self._trees: dict[str, ast.Module] = {}

    def module(self, path: Path) -> str:
        return ".".join(path.relative_to(self.package.parent).with_suffix("").parts).removesuffix(".__init__")

    def tree(self, m: str) -> ast.Module:
        if m not in self._trees:
            self._trees[m] = ast.parse(self.files[m].read_text())
        return self._trees[m]

    def bindings(self, m: str) -> dict[str, tuple[str, str | None] | ast.AST]:
        """Each top-level name of ``m``: (module, name or None for a module object) where imported, else the
        statement binding it."""
        here = m.split(".")
        package = here if self.files[m].name == "__init__.py" else here[:-1]
        out: dict[str, tuple[str, str | None] | ast.AST] = {}
        for node in self.tree(m).body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    out[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - (node.level - 1)] if node.level else []
                full = ".".join(base + ([node.module] if node.module else []))
                out.update({a.asname or a.name: (full, a.name) for a in node.names})
            elif isinstance(node, ast.FunctionDef | ast.ClassDef):
                out[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    out.update({n.id: node for n in ast.walk(target) if isinstance(n, ast.Name)})
        return out

    def numba_names(self, m: str) -> set[str]:
        return {
            k
            for k, v in self.bindings(m).items()
            if isinstance(v, tuple) and v[0].split(".")[0] in ("numba", "llvmlite")
        }

    def kernels(self, m: str) -> list[ast.AST]:
        """The functions of ``m`` numba compiles: decorated by a numba name, or wrapped by one at the top level."""
        numba = self.numba_names(m)

        def uses(node: ast.AST) -> bool:
            return any(isinstance(n, ast.Name) and n.id in numba for n in ast.walk(node))

        def compiled(node: ast.stmt) -> bool:
            if isinstance(node, ast.FunctionDef):
                return any(uses(d) for d in node.decorator_list)
            return isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and uses(node.value.func)

        return [node for node in self.tree(m).body if compiled(node)]

    def read_by(self, m: str, node: ast.AST, seen: set[tuple[str, str, str | None]]) -> set[str]:
        """The package's modules the text ``node`` of module ``m`` reads (see the class)."""
        out: set[str] = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                out |= self.resolve(m, n.id, None, seen)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                out |= self.resolve(m, n.value.id, n.attr, seen)
        return out

    def resolve(self, m: str, name: str, attr: str | None, seen: set[tuple[str, str, str | None]]) -> set[str]:
        """The package's modules ``name`` of module ``m`` (its attribute ``attr`` where read so) comes from."""
        if (m, name, attr) in seen:
            return set()
        seen.add((m, name, attr))
        bound = self.bindings(m).get(name)
        if bound is None:
            return set()
        if not isinstance(bound, tuple):
            return self.read_by(m, bound, seen)
        full, what = bound
        target = full if what is None else f"{full}.{what}"
        if target in self.files:  # a module object
            return {target} | (self.resolve(target, attr, None, seen) if attr else set())
        if what is not None and full in self.files:
            return {full} | self.resolve(full, what, None, seen)
        return set()

    def kernel_sources(self) -> list[str]:
        """The files numba compiles into the package's kernels, as paths under the package, sorted."""
        wanted = {m for m in self.files if self.numba_names(m)}
        for m in list(wanted):
            seen: set[tuple[str, str, str | None]] = set()
            for node in self.kernels(m):
                wanted |= self.read_by(m, node, seen)
        return sorted(str(self.files[m].relative_to(self.package)) for m in wanted)


def test_the_digest_covers_the_kernels_and_what_they_compile_in() -> None:
    """KERNEL_SOURCES = the modules that import numba (they define the kernels) and the package's modules whose names
    their kernels read (:class:`Sources`): a kernel reads those as frozen globals, and numba's own cache checks only
    the kernel's file."""
    found = Sources(PACKAGE).kernel_sources()
    # the reading works: a kernel module; constants imported (mcparams, the tolerance); a module's constant read
    # through a top-level name of the kernel module (grimdark/melee_engine.py's FEARLESS_PASS = morale.FEARLESS_PASS)
    for name in ("scenario/fastfetch.py", "starcraft/mcparams.py", "board/tolerance.py", "grimdark/morale.py"):
        assert name in found
    # and leaves out what only the Python beside the kernels reads
    for name in ("scenario/sim_state.py", "jit.py", "board/model.py", "scenario/spec.py", "engine/options.py"):
        assert name not in found
    assert found == list(kernelcache.KERNEL_SOURCES)


def test_the_reading_follows_names_kernels_read(tmp_path: Path) -> None:
    """:class:`Sources` on a small package: a constant a kernel reads through a name of its own module and an import
    chain counts (its modules, not the ones only Python reads); a module object's attribute read by a kernel counts;
    a function wrapped by ``njit(...)(f)`` is read; a kernel module's own numba import makes it a source."""
    pkg = tmp_path / "mathhammer"
    pkg.mkdir()
    files = {
        "__init__.py": "",
        "deep.py": "BASE = 3\n",
        "consts.py": "from .deep import BASE\nWIDTH = BASE + 1\nOTHER = 7\n",
        "pyonly.py": "LIMIT = 9\n",
        "objs.py": "FLAG = 1\n",
        "wrapped.py": "SHIFT = 2\n",
        "kern.py": (
            "from numba import njit\n"
            "from .consts import WIDTH, OTHER\n"
            "from .pyonly import LIMIT\n"
            "from . import objs\n"
            "from .wrapped import SHIFT\n"
            "SIZE = WIDTH * 2\n"
            "@njit\n"
            "def k(x):\n    return x + SIZE + objs.FLAG\n"
            "def plain(x):\n    return x << SHIFT\n"
            "fast_plain = njit(plain)\n"
            "def python(x):\n    return x + LIMIT + OTHER\n"
        ),
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    assert Sources(pkg).kernel_sources() == ["consts.py", "deep.py", "kern.py", "objs.py", "wrapped.py"]
    (pkg / "kern.py").write_text(files["kern.py"].replace("fast_plain = njit(plain)\n", ""))
    assert "wrapped.py" not in Sources(pkg).kernel_sources()


def _root(package: Path, cache: Path) -> str:
    """kernel_cache_root of the copy of the package under ``package``, in a new process."""
    code = "from mathhammer import kernelcache; print(kernelcache.PACKAGE_DIR); print(kernelcache.kernel_cache_root())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(package)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=package, capture_output=True, text=True, check=True)
    where, root = out.stdout.split()
    assert where == str(package / "mathhammer")  # the copy's, not the installed package
    return root


def test_editing_a_kernels_dependency_changes_the_folder(tmp_path: Path) -> None:
    """A copy of the package: the same sources, the same folder (under the user's NUMBA_CACHE_DIR); a constant of
    engine/rng.py (compiled into starcraft/kernels.py's kernels, whose own file is untouched) edited: another
    folder; a file no kernel reads edited (the players, the simulation's state): the same folder."""
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "mathhammer", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = _root(copy, cache)
    assert Path(first).parent == cache and Path(first).name.startswith(kernelcache.CACHE_PREFIX)
    assert Path(first).is_dir()
    assert _root(copy, cache) == first
    rng = copy / "mathhammer" / "engine" / "rng.py"
    text = rng.read_text()
    rng.write_text(text.replace("\nfrom ..config import JIT", "\nEDITED = 1\nfrom ..config import JIT", 1))
    assert rng.read_text() != text
    second = _root(copy, cache)
    assert second != first and Path(second).parent == cache
    for name in ("scenario/players/menu.py", "scenario/sim_state.py"):  # the simulation's Python, beside its kernels
        other = copy / "mathhammer" / name
        assert name not in kernelcache.KERNEL_SOURCES
        other.write_text(other.read_text() + "\n# edited\n")
        assert _root(copy, cache) == second


DAY = 86400.0


def _aged(folder: Path, days: float, now: float, files: dict[str, float] | None = None) -> Path:
    """A cache folder with ``files`` (path under it: age in days, sub-folders made as needed, aged as their folder),
    the folder itself ``days`` old (set last: making a file sets its folder's time)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, age in (files or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
        os.utime(path, (now - age * DAY, now - age * DAY))
        if path.parent != folder:
            os.utime(path.parent, (now - days * DAY, now - days * DAY))
    os.utime(folder, (now - days * DAY, now - days * DAY))
    return folder


def test_old_cache_folders_are_pruned(tmp_path: Path) -> None:
    """prune_cache_folders: a sibling ``mathhammer-<12 hex digits>`` folder is deleted where its own time (its last
    use: made, or marked by kernel_cache_root) is older than CACHE_KEEP_DAYS, whatever is inside (a recent file does
    not keep it); one marked used lately is kept; the folder kept by name is kept however old; other names, a plain
    file of the name and a symbolic link are left alone."""
    import time

    now = time.time()
    old, keep = kernelcache.CACHE_KEEP_DAYS + 0.1, kernelcache.CACHE_KEEP_DAYS - 0.1
    name = {c: kernelcache.CACHE_PREFIX + c * 12 for c in "abcdef"}
    _aged(tmp_path / name["a"], old, now, {"sub_1/x.nbi": old, "sub_1/x.nbc": old, "sub_2/y.nbi": old})
    _aged(tmp_path / name["b"], old, now, {"sub_1/x.nbi": old, "sub_2/y.nbc": keep})  # a recent file inside only
    _aged(tmp_path / name["c"], keep, now, {"sub_1/x.nbi": old})  # marked used lately (kernel_cache_root)
    _aged(tmp_path / name["d"], old, now, {"sub_1/x.nbi": old})  # the current one
    _aged(tmp_path / "mathhammer-notes", old, now, {"x": old})
    _aged(tmp_path / "numba-other", old, now, {"x": old})
    (tmp_path / name["e"]).write_bytes(b"x")
    os.utime(tmp_path / name["e"], (now - old * DAY, now - old * DAY))
    (tmp_path / name["f"]).symlink_to(_aged(tmp_path / "elsewhere", old, now, {"x": old}))
    assert kernelcache.prune_cache_folders(str(tmp_path), name["d"], now=now) == [name["a"], name["b"]]
    left = {p.name for p in tmp_path.iterdir()}
    assert left == set(name.values()) - {name["a"], name["b"]} | {"mathhammer-notes", "numba-other", "elsewhere"}
    assert (tmp_path / "elsewhere" / "x").exists()
    assert kernelcache.prune_cache_folders(str(tmp_path), name["d"], now=now + 2 * DAY) == [name["c"]]


def test_only_the_most_recently_used_folders_are_kept(tmp_path: Path) -> None:
    """prune_cache_folders keeps at most CACHE_KEEP_FOLDERS other folders, the most recently used (of equal times,
    the later name), deleting the rest however recent; the folder kept by name is kept and not counted."""
    import time

    now = time.time()
    n = kernelcache.CACHE_KEEP_FOLDERS
    assert n >= 1
    names = [kernelcache.CACHE_PREFIX + f"{k:012x}" for k in range(n + 4)]
    for k, name in enumerate(names):  # names[k] used k hours before the last, the last two at the same time
        _aged(tmp_path / name, min(k, n + 2) / 24, now, {"s/x.nbi": 0.0})
    current = kernelcache.CACHE_PREFIX + "f" * 12
    _aged(tmp_path / current, 30.0, now)
    assert kernelcache.prune_cache_folders(str(tmp_path), current, now=now) == names[n:]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names[:n], current])
    assert kernelcache.prune_cache_folders(str(tmp_path), current, now=now) == []
    # two more used when names[n - 1] was last: of the three equal times at the cut, the later name is kept
    _aged(tmp_path / names[n], (n - 1) / 24, now)
    _aged(tmp_path / names[n + 1], (n - 1) / 24, now)
    assert kernelcache.prune_cache_folders(str(tmp_path), current, now=now) == [names[n - 1], names[n]]


def test_the_readme_gives_the_days_and_the_count() -> None:
    """The README's paragraph on the cache states CACHE_KEEP_DAYS and CACHE_KEEP_FOLDERS."""
    text = " ".join((ROOT / "README.md").read_text().split())
    days, folders = kernelcache.CACHE_KEEP_DAYS, kernelcache.CACHE_KEEP_FOLDERS
    assert f"no run has used for {days:g} days (`mathhammer.kernelcache.CACHE_KEEP_DAYS`" in text
    assert f"all but the {folders} most recently used (`mathhammer.kernelcache.CACHE_KEEP_FOLDERS`" in text


def test_pruning_never_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No base folder, a base that is a file, a folder that cannot be deleted or read: nothing deleted, no error."""
    import time

    now = time.time()
    assert kernelcache.prune_cache_folders(str(tmp_path / "none"), "x", now=now) == []
    (tmp_path / "file").write_bytes(b"x")
    assert kernelcache.prune_cache_folders(str(tmp_path / "file"), "x", now=now) == []
    stale = _aged(tmp_path / (kernelcache.CACHE_PREFIX + "a" * 12), kernelcache.CACHE_KEEP_DAYS + 1, now, {"s/x": 30.0})

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)
    assert kernelcache.prune_cache_folders(str(tmp_path), "x", now=now) == []
    monkeypatch.undo()
    real_stat = os.stat

    def vanished(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if str(path) == str(stale):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(kernelcache.os, "stat", vanished)
    assert kernelcache.prune_cache_folders(str(tmp_path), "x", now=now) == []
    monkeypatch.undo()
    assert stale.is_dir()
    assert kernelcache.prune_cache_folders(str(tmp_path), "x", now=now) == [stale.name]


def test_a_new_folder_prunes_its_old_siblings(tmp_path: Path) -> None:
    """kernel_cache_root, in a new process: making its folder deletes a sibling unused for CACHE_KEEP_DAYS (not a
    recent one); finding its folder marks it used (its time now) and deletes nothing."""
    import time

    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "mathhammer", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    now = time.time()
    old, recent = kernelcache.CACHE_PREFIX + "a" * 12, kernelcache.CACHE_PREFIX + "b" * 12
    _aged(cache / old, kernelcache.CACHE_KEEP_DAYS + 1, now, {"s/x.nbi": kernelcache.CACHE_KEEP_DAYS + 1})
    _aged(cache / recent, 1.0, now, {"s/x.nbi": 1.0})
    root = Path(_root(copy, cache))
    assert {p.name for p in cache.iterdir()} == {root.name, recent}
    os.utime(root, (now - 30 * DAY, now - 30 * DAY))
    _aged(cache / old, kernelcache.CACHE_KEEP_DAYS + 1, now, {"s/x.nbi": kernelcache.CACHE_KEEP_DAYS + 1})
    assert _root(copy, cache) == str(root)
    assert root.stat().st_mtime > now - DAY
    assert {p.name for p in cache.iterdir()} == {root.name, recent, old}


def test_the_digest_reads_the_content(tmp_path: Path) -> None:
    """sources_digest: each file's content, so an edit changes it (also one keeping the size and the modification
    time), a touch does not, and a missing file does."""
    for name in kernelcache.KERNEL_SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    one = kernelcache.sources_digest(str(tmp_path))
    assert len(one) == 12 and one == kernelcache.sources_digest(str(tmp_path))
    target = tmp_path / "scenario" / "fastfetch.py"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert kernelcache.sources_digest(str(tmp_path)) == one  # touched, the same text
    target.write_text("x = 2\n")  # the same size
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same time
    two = kernelcache.sources_digest(str(tmp_path))
    assert two != one
    target.unlink()
    assert kernelcache.sources_digest(str(tmp_path)) not in (one, two)


def test_a_source_on_another_drive_is_left_to_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.path.commonpath raises ValueError for paths on different drives (Windows): such a file is not the package's,
    and the locator (tried first for every cached function of the process) must not raise."""

    def other_drive(paths: list[str]) -> str:
        raise ValueError("Paths don't have the same drive")

    monkeypatch.setattr(kernelcache.os.path, "commonpath", other_drive)
    assert kernelcache.kernel_cache_folder("D:/elsewhere/mine.py") is None


def test_files_outside_the_package_are_left_to_numba(tmp_path: Path) -> None:
    """Only the package's kernels get the digest folder (any other cached function is numba's own business), and
    jit's mirror of the folder is the locator's."""
    assert kernelcache.kernel_cache_folder(str(tmp_path / "mine.py")) is None
    source = str(PACKAGE / "scenario" / "fast.py")
    folder = kernelcache.kernel_cache_folder(source)
    root = kernelcache.kernel_cache_root()
    assert folder is not None and root is not None and Path(folder).parent == Path(root)
    assert jit.cache_folder(source) == folder
