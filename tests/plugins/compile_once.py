"""Each numba kernel compiled once per test run, not once per pytest-xdist worker.

The workers share one ``NUMBA_CACHE_DIR`` (``tests/conftest.py``), yet from an empty cache both meet the same
kernel at nearly the same time, both miss the cache and both compile it (seconds each, CPU-bound: on 2 cores the
second compile costs the other worker's whole time). Here a worker takes a lock file per kernel around numba's
``Dispatcher.compile`` (it looks in the disk cache first, then compiles and saves): the second worker waits for
the first to save the kernel, then loads it from the cache, having spent the wait only on the part of the
compile still to run.

Only the test workers' own processes are patched (installed from ``tests/conftest.py`` when pytest-xdist runs the
tests); the commands the tests start in subprocesses compile as a user's would. Importing this module imports
no numba: the patch is applied when numba's dispatcher module is first imported (an import hook), so the tests
that check which modules a path loads see what they would without it.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

TARGET = "numba.core.dispatcher"
#: Kernels whose lock this process holds, with how deep (one thread compiles at a time: numba's global lock).
_held: dict[str, int] = {}


def _lock_path(folder: Path, key: str) -> Path:
    return folder / (hashlib.sha1(key.encode()).hexdigest()[:16] + ".lock")


def patch(dispatcher_module: Any, folder: Path) -> None:
    """Wrap ``Dispatcher.compile`` of ``dispatcher_module`` with a per-kernel lock file in ``folder``."""
    from numba.core.compiler_lock import global_compiler_lock

    cls = dispatcher_module.Dispatcher
    original: Callable[..., Any] = cls.compile
    if getattr(original, "_compile_once", False):
        return
    folder.mkdir(parents=True, exist_ok=True)

    def compile(self: Any, sig: Any) -> Any:
        if not getattr(self, "_cache", None) or type(self._cache).__name__ == "NullCache":
            return original(self, sig)  # not cached on disk: nothing another worker could share
        func = self.py_func
        key = f"{func.__module__}.{func.__qualname__}"
        # numba's own process-wide lock first, so that this process's threads never wait on each other's files
        with global_compiler_lock:
            if _held.get(key):
                _held[key] += 1
                try:
                    return original(self, sig)
                finally:
                    _held[key] -= 1
            with open(_lock_path(folder, key), "a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or when the process ends
                _held[key] = 1
                try:
                    return original(self, sig)
                finally:
                    _held[key] = 0

    compile._compile_once = True  # type: ignore[attr-defined]
    cls.compile = compile


class _Finder(importlib.abc.MetaPathFinder):
    """Patches numba's dispatcher module right after it is first executed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module
        folder = self.folder

        def exec_module(module: ModuleType) -> None:
            run(module)
            patch(module, folder)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install(folder: Path) -> None:
    """Patch numba's dispatcher now if it is loaded, else when it is first imported."""
    if TARGET in sys.modules:
        patch(sys.modules[TARGET], folder)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(folder))


def install_for_workers() -> None:
    """In a pytest-xdist worker with a ``NUMBA_CACHE_DIR`` shared by the workers: :func:`install`."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if os.environ.get("PYTEST_XDIST_WORKER") and cache:
        install(Path(cache) / "compile-locks")
