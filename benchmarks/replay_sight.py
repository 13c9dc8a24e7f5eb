"""Line of Sight's compiled pass (``fastsight._sight_kernel``) replayed: its calls in random games captured, then
timed with this checkout's code and with another revision's, alternating, the answers compared (issue 29 point 6).

    python benchmarks/replay_sight.py --games 1500 --against 075cb52

Prints the calls, the answers (Visible, not, left to ``los``), whether the two codes agree on every call, and per
round the microseconds a call of each (no cache for the revision's copy: it compiles on its first call, untimed).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODULE = "mathhammer/board/fastsight.py"


def capture(games: int, most: int) -> list[tuple[object, ...]]:
    """The arguments of the first ``most`` calls of ``_sight_kernel`` in ``games`` random games (the issue's lists)."""
    import mathhammer.cli
    from mathhammer.board import fastsight

    kernel, calls = fastsight._sight_kernel, []

    def kept(*args: object) -> int:
        if len(calls) < most:
            calls.append(args)
        return kernel(*args)  # type: ignore[no-any-return]

    fastsight._sight_kernel = kept
    args = ["game", "profiles/armies/terran_six.toml", "profiles/armies/zerg_six.toml", "--mission", "Hold Position"]
    args += ["--deployment", "Gauntlet", "--seed", "1", "--json", "--trials", str(games), "--workers", "1"]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            mathhammer.cli.app(args, standalone_mode=False)
    finally:
        fastsight._sight_kernel = kernel
    return calls


def revision_kernel(rev: str) -> object:
    """``_sight_kernel`` of ``rev``'s module, compiled without numba's cache (its own copy)."""
    src = subprocess.run(["git", "show", f"{rev}:{MODULE}"], cwd=ROOT, check=True, capture_output=True, text=True)
    text = src.stdout.replace(
        "from ..config import INLINE, JIT", "from mathhammer.config import INLINE as _I, JIT as _J"
    )
    text = text.replace("from .", "from mathhammer.board.")
    flags = (
        'INLINE = {k: v for k, v in _I.items() if k != "cache"}\nJIT = {k: v for k, v in _J.items() if k != "cache"}\n'
    )
    head, _, rest = text.partition("\n@njit")
    module = types.ModuleType(f"fastsight_{rev}")
    exec(compile(head + "\n" + flags + "\n@njit" + rest, f"<{rev}:{MODULE}>", "exec"), module.__dict__)
    return module._sight_kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--against", default="HEAD~1", help="the revision to time against")
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    from mathhammer.board import fastsight

    calls = capture(ns.games, ns.calls)
    other = revision_kernel(ns.against)
    mine = [fastsight._sight_kernel(*a) for a in calls]
    theirs = [other(*a) for a in calls]  # type: ignore[operator]
    print(f"{len(calls)} calls, answers {np.bincount(mine, minlength=3).tolist()}, the same: {mine == theirs}")
    for _ in range(ns.rounds):
        line = []
        for name, kernel in (("this checkout", fastsight._sight_kernel), (ns.against, other)):
            t = time.perf_counter()
            for a in calls:
                kernel(*a)  # type: ignore[operator]
            line.append(f"{name} {1e6 * (time.perf_counter() - t) / len(calls):.2f} us")
        print(", ".join(line))


if __name__ == "__main__":
    main()
