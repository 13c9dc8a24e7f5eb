"""Every compiled kernel's calls and time in random games (issue 29 point 6): where the compiled share of a game goes.

    python benchmarks/time_kernels.py --games 2000 --top 20

Each numba dispatcher named in a mathhammer module is wrapped by a ``perf_counter`` timer (the call from Python, its
argument checks included; a kernel called from another kernel is counted in its caller), then the issue's command is
played in one process. Prints the process CPU and per kernel its calls, seconds, microseconds a call and share of the
CPU. Run it with a warm kernel cache (a first run compiles, and its compile time is counted).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import pkgutil
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any


def wrap_kernels(stats: dict[str, list[float]]) -> int:
    """Wrap every dispatcher of the mathhammer modules in a timer adding to ``stats`` (name -> [calls, seconds]);
    how many kernels."""
    import numba

    import mathhammer

    found: dict[int, tuple[Any, list[tuple[Any, str]]]] = {}
    for info in pkgutil.walk_packages(mathhammer.__path__, "mathhammer."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in list(vars(module).items()):
            if isinstance(value, numba.core.dispatcher.Dispatcher):
                found.setdefault(id(value), (value, []))[1].append((module, name))

    def timed(name: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            t = time.perf_counter()
            try:
                return kernel(*args)
            finally:
                s = stats[name]
                s[0] += 1
                s[1] += time.perf_counter() - t

        return call

    for kernel, places in found.values():
        name = f"{kernel.py_func.__module__.split('.')[-1]}.{kernel.py_func.__name__}"
        wrapped = timed(name, kernel)
        for module, attr in places:
            setattr(module, attr, wrapped)
    return len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--top", type=int, default=20)
    ns = parser.parse_args()
    stats: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    kernels = wrap_kernels(stats)
    import mathhammer.cli

    args = ["game", "profiles/armies/terran_six.toml", "profiles/armies/zerg_six.toml", "--mission", "Hold Position"]
    args += ["--deployment", "Gauntlet", "--seed", "1", "--json", "--trials", str(ns.games), "--workers", "1"]
    t0 = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        mathhammer.cli.app(args, standalone_mode=False)
    cpu = time.process_time() - t0
    spent = sum(s[1] for s in stats.values())
    print(f"CPU {cpu:.2f} s; {kernels} kernels, {len(stats)} called: {spent:.2f} s ({100 * spent / cpu:.1f}%)")
    for name, (calls, seconds) in sorted(stats.items(), key=lambda kv: -kv[1][1])[: ns.top]:
        each, share = 1e6 * seconds / calls, 100 * seconds / cpu
        print(f"{name:45s} {int(calls):9d} calls {seconds:7.3f} s {each:9.2f} us {share:5.2f}%")


if __name__ == "__main__":
    main()
