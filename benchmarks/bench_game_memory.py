"""Memory of one long run of whole games with two automatic players (issue 29 point 6: memory flat in the number of
games): the resident memory (VmRSS) of the process after each block of ``parallel.auto_block`` games (10,000 for
``random``, ``parallel.AUTO_BLOCK`` for the weighted policies), and its rise per 10,000 games, fitted (least squares)
over the second half of the blocks, once the kernels, the tables built ahead and the board's answers are in memory.

The command is the issue's (``bench_game.GAME``: 6 units a side, Hold Position on the Gauntlet card, 5 Rounds),
``random`` against ``random`` by default, played in this process (``--workers 1``: a forked worker plays its blocks
the same way, one after the other). Also printed every ``--every`` blocks: what malloc has in use and the free
memory in its heap (glibc's ``mallinfo2``, where there is one) and Python's allocated blocks.

    python benchmarks/bench_game_memory.py --games 20000
    python benchmarks/bench_game_memory.py --games 5000 --policy objective
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_game import GAME


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (f, ctypes.c_size_t)
        for f in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo() -> tuple[int, int] | None:
    """(MB malloc has in use, MB free in its heap), or None without glibc's ``mallinfo2``."""
    from mathhammer.scenario.memo import _glibc

    fn = _glibc("mallinfo2")
    if fn is None:
        return None
    fn.restype = _MallInfo2
    m = fn()
    return (m.uordblks + m.hblkhd) >> 20, m.fordblks >> 20


def _rss() -> float:
    """This process's resident memory, MB (``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (Linux only)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--policy", default="random", help="both players' policy (profiles/policies.toml)")
    ap.add_argument("--every", type=int, default=10, help="print one line every so many blocks")
    a = ap.parse_args()

    from mathhammer.scenario import parallel
    from mathhammer.scenario.players.policies import block_games
    from mathhammer.scenario.sim import Simulation

    block = block_games(a.policy, parallel.AUTO_BLOCK)  # parallel.auto_block of the run's scenario
    report = sys.stdout  # the run's own JSON goes to /dev/null
    samples: list[tuple[int, float]] = []
    run = Simulation.run
    start = time.process_time()

    def measured(self: Simulation, *args: object, **kwargs: object) -> object:
        out = run(self, *args, **kwargs)
        samples.append((len(samples) + 1, _rss()))
        k, rss = samples[-1]
        if k % a.every == 0 or k == 1:
            m = _mallinfo()
            heap = "" if m is None else f"; malloc in use {m[0]} MB, free in its heap {m[1]} MB"
            print(
                f"block {k} ({k * block:,} games): VmRSS {rss:.0f} MB{heap}; "
                f"Python blocks {sys.getallocatedblocks():,}; CPU {time.process_time() - start:.0f} s",
                file=report,
                flush=True,
            )
        return out

    Simulation.run = measured  # type: ignore[method-assign]
    from mathhammer.cli import main as cli

    args = [*GAME, "--trials", str(a.games), "--workers", "1", "--red-policy", a.policy, "--blue-policy", a.policy]
    sys.argv = ["mathhammer", *args]
    out = sys.stdout
    try:
        sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - the run's JSON is not the benchmark's
        cli()
    except SystemExit as stop:
        if stop.code:
            raise
    finally:
        sys.stdout.close()
        sys.stdout = out
    blocks, rss = np.array([k for k, _ in samples]), np.array([r for _, r in samples])
    half = blocks.size // 2
    slope = np.polyfit(blocks[half:] * block, rss[half:], 1)[0] * 10_000 if blocks.size - half >= 2 else float("nan")
    print(
        f"{a.games:,} games in {blocks.size} blocks of {block}: VmRSS {rss[min(half, rss.size - 1)]:.0f} MB at block"
        f" {blocks[min(half, rss.size - 1)]}, {rss[-1]:.0f} MB at the end (highest {rss.max():.0f}); rise over the"
        f" second half {slope:+.2f} MB per 10,000 games"
    )


if __name__ == "__main__":
    main()
