"""Whole games with two automatic players (issue 29 point 6): games/s and peak RSS of ``mathhammer game`` at two game
counts, so "memory flat in games" is a measured ratio (peak RSS at the larger count / at the smaller).

The command is the issue's: 6 units a side (``profiles/armies/terran_six.toml`` against ``zerg_six.toml``), Hold
Position on the Gauntlet card, 5 Rounds, ``random`` against ``random``. Each count runs in its own child process
(``python -m mathhammer game ... --trials N --seed 1 --json``; ``--workers`` passed through); CPU is the child's user
+ sys (``resource.getrusage(RUSAGE_CHILDREN)``, all its workers included), peak RSS the largest of the child and its
workers (``ru_maxrss`` of the children, read after each run: counts run in increasing order). A 1-game run first
compiles or loads the kernels (not counted). Prints one line per count and a markdown table for
``benchmarks/RESULTS.md``.

Games of automatic players are played in blocks of at most ``parallel.auto_block`` games (10,000 for ``random``,
``parallel.AUTO_BLOCK`` for the weighted policies; a World and players of their own each, counted and dropped when
the block ends), so memory is flat once the first blocks have filled the bounded memos: compare counts of one block
and of several (``--games 200 8000``), and see ``bench_game_memory.py`` for the memory after each block of one long
run. ``--policy`` sets both players' policy (default ``random``).

    python benchmarks/bench_game.py                      # 20 and 80 games, one process
    python benchmarks/bench_game.py --games 50 200 --workers 2
    python benchmarks/bench_game.py --games 200 1600 --workers 1 --policy objective
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import tempfile
from pathlib import Path

from bench_firstrun import _run

from mathhammer.scenario.parallel import AUTO_BLOCK
from mathhammer.scenario.players.policies import block_games

#: the command of issue 29 point 6, less ``--trials``
GAME = shlex.split(
    'game profiles/armies/terran_six.toml profiles/armies/zerg_six.toml --mission "Hold Position" '
    "--deployment Gauntlet --seed 1 --json"
)


def run(n: int, workers: int | None, policy: str = "random") -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of the command at ``n`` games (``bench_firstrun._run``: the child's CPU)."""
    args = [*GAME, "--trials", str(n), "--red-policy", policy, "--blue-policy", policy]
    args += [] if workers is None else ["--workers", str(workers)]
    wall, cpu, _, _ = _run(args, os.environ.get("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "mh-bench-game")))
    return wall, cpu, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs=2, default=[20, 80], metavar=("SMALL", "LARGE"))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--policy", default="random", help="both players' policy (profiles/policies.toml)")
    a = ap.parse_args()
    small, large = sorted(a.games)
    run(1, None)  # the kernels compiled or loaded from the numba cache: not counted
    rows = []
    for n in (small, large):
        wall, cpu, rss = run(n, a.workers, a.policy)
        rows.append((n, wall, cpu, rss))
        print(f"{n} games: wall {wall:.1f} s, CPU {cpu:.1f} s, {n / wall:.2f} games/s (wall), "
              f"{n / cpu:.2f} games/CPU s, peak RSS {rss:.0f} MB", flush=True)  # fmt: skip
    (n0, _, c0, r0), (n1, _, c1, r1) = rows
    print(f"CPU per game {c1 / n1:.3f} s at {n1} against {c0 / n0:.3f} s at {n0}; peak RSS {r1 / r0:.2f}x for "
          f"{n1 / n0:g}x the games (load {os.getloadavg()[0]:.1f})")  # fmt: skip
    block = block_games(a.policy, AUTO_BLOCK)
    if n0 < block * (a.workers or 1):
        print(f"(at {n0} games a process plays less than one block of {block} games: its peak RSS is below a long "
              f"run's; bench_game_memory.py gives the memory after each block of one)")  # fmt: skip
    print("\n| games | wall s | CPU s | games/s (wall) | games per CPU s | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for n, wall, cpu, rss in rows:
        print(f"| {n} | {wall:.1f} | {cpu:.1f} | {n / wall:.2f} | {n / cpu:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
