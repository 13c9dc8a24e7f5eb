"""A compiled kernel replayed: its calls from Python in random games captured, then timed with this checkout's code
and with another revision's, alternating, and their answers compared (issue 29 point 6: an exact, cheap test of a
kernel's change, without the noise of whole games).

    python benchmarks/replay_kernel.py mathhammer.board.fastsight _sight_kernel --games 1500 --against 075cb52

Prints the calls, whether the two codes answered every call alike, and per round the microseconds a call of each.
The revision's module is compiled afresh without numba's cache (on its first call, untimed). Only calls made from
Python are captured: a kernel called from another kernel is timed through its caller.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import re
import subprocess
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def capture(module: types.ModuleType, name: str, games: int, most: int) -> list[tuple[Any, ...]]:
    """The arguments of the first ``most`` calls of ``module.name`` in ``games`` random games (the issue's lists)."""
    import mathhammer.cli

    kernel, calls = getattr(module, name), []

    def kept(*args: Any) -> Any:
        if len(calls) < most:
            calls.append(args)
        return kernel(*args)

    setattr(module, name, kept)
    args = ["game", "profiles/armies/terran_six.toml", "profiles/armies/zerg_six.toml", "--mission", "Hold Position"]
    args += ["--deployment", "Gauntlet", "--seed", "1", "--json", "--trials", str(games), "--workers", "1"]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            mathhammer.cli.app(args, standalone_mode=False)
    finally:
        setattr(module, name, kernel)
    return calls


def revision_module(module: str, rev: str) -> types.ModuleType:
    """``module`` as it stood at ``rev``, its relative imports made absolute and its kernels compiled without the
    cache (its own copy)."""
    path = module.replace(".", "/") + ".py"
    text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    package = module.rpartition(".")[0]

    def absolute(m: re.Match[str]) -> str:
        return f"{m.group(1)}from {importlib.util.resolve_name(m.group(2), package)} import"

    text = re.sub(r"^(\s*)from (\.+[\w.]*) import", absolute, text, flags=re.M)
    flags = "\n".join(
        f'{n} = {{k: v for k, v in {n}.items() if k != "cache"}}'
        for n in ("INLINE", "JIT")
        if re.search(rf"\b{n}\b", text)
    )
    head, _, rest = text.partition("\n@njit")
    copy = types.ModuleType(f"{module}@{rev}")
    exec(compile(f"{head}\n{flags}\n@njit{rest}", f"<{rev}:{path}>", "exec"), copy.__dict__)
    return copy


def _plain(answer: Any) -> Any:
    """An answer as plain values (arrays as lists), to compare two codes' answers."""
    if isinstance(answer, tuple):
        return tuple(_plain(a) for a in answer)
    if isinstance(answer, np.ndarray):
        return answer.tolist()
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the kernel's module, e.g. mathhammer.board.fastsight")
    parser.add_argument("kernel", help="the kernel's name in it, e.g. _sight_kernel")
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--against", default="HEAD~1", help="the revision to time against")
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    mine = getattr(importlib.import_module(ns.module), ns.kernel)
    calls = capture(importlib.import_module(ns.module), ns.kernel, ns.games, ns.calls)
    theirs = getattr(revision_module(ns.module, ns.against), ns.kernel)
    same = all(_plain(mine(*a)) == _plain(theirs(*a)) for a in calls)
    print(f"{len(calls)} calls of {ns.kernel}, the same answers: {same}")
    for _ in range(ns.rounds):
        line = []
        for name, kernel in (("this checkout", mine), (ns.against, theirs)):
            t = time.perf_counter()
            for a in calls:
                kernel(*a)
            line.append(f"{name} {1e6 * (time.perf_counter() - t) / max(len(calls), 1):.2f} us")
        print(", ".join(line))


if __name__ == "__main__":
    main()
