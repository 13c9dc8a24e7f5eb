"""Two versions of mathhammer playing the same whole games side by side (issue 29 point 6): the CPU of each, the ratio,
and whether they played the same games.

    python benchmarks/bench_game_versions.py OLD_TREE [NEW_TREE] [--games 2000] [--pairs 3] [-- GAME ARGS...]

Each tree is a checkout of this repository (``git worktree add /tmp/old 226c0dc``); its ``mathhammer`` package is
imported through ``PYTHONPATH`` in a new process with the running interpreter (the same numpy, numba and Python), so
only the package differs. NEW_TREE defaults to this checkout. The command is ``bench_game.py``'s (the issue's random
against random on Gauntlet, ``--workers 1``) unless arguments follow ``--`` (``--red-policy objective``, another
``--seed``: added to it). Each tree has its own ``NUMBA_CACHE_DIR``, warmed first by a 20-game run (not counted).

A pair runs the two trees at once, one process each (the machine's two cores, each version meeting the same minutes
of load), and the next pair starts them in the other order; CPU is each child's user + sys (``os.wait4``). Runs on
different minutes spread by a few percent; side by side, the same code gave 0.988 and 1.012 (300 games): a change of
about 1% needs several pairs and their median. The two outputs (``--json``, compared by md5) must be the same
games: a pair that differs is reported and the run exits with status 1. Prints a markdown table for
``benchmarks/RESULTS.md``: each pair's user + sys CPU, the new/old ratio, the median ratio. ``bench_versions.py``
compares two trees the same way on the engine and the command line's latency.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GAME = shlex.split(
    'game profiles/armies/terran_six.toml profiles/armies/zerg_six.toml --mission "Hold Position" '
    "--deployment Gauntlet --seed 1 --json --workers 1"
)


def _start(tree: Path, cache: Path, args: list[str], out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache)}
    with out.open("wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "mathhammer", *args], cwd=tree, env=env, stdout=sink)


def _finish(proc: subprocess.Popen[bytes], out: Path, tag: str) -> tuple[float, str]:
    """(user + sys CPU s, md5 of the JSON) of a finished child."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{tag}: the game command failed with status {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, hashlib.md5(out.read_bytes()).hexdigest()[:8]


def pair(trees: list[Path], caches: list[Path], args: list[str], first: int, work: Path) -> list[tuple[float, str]]:
    """Both trees' runs of ``args`` at once (``first`` started first): (CPU s, md5) per tree, old then new."""
    outs = [work / f"out{i}.json" for i in range(2)]
    order = [first, 1 - first]
    procs = {i: _start(trees[i], caches[i], args, outs[i]) for i in order}
    return [_finish(procs[i], outs[i], ("old", "new")[i]) for i in range(2)]


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="a checkout of the older version")
    ap.add_argument("new", type=Path, nargs="?", default=HERE.parent, help="a checkout of the newer (this one)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=3)
    a = ap.parse_args(argv)
    trees = [a.old.resolve(), a.new.resolve()]
    for t in trees:
        if not (t / "mathhammer" / "__init__.py").is_file():
            ap.error(f"{t}: not a checkout (no mathhammer/__init__.py); allowed: a tree of this repository")
    if a.games < 1 or a.pairs < 1:
        ap.error(f"--games {a.games}, --pairs {a.pairs}: allowed: whole numbers of at least 1")
    with tempfile.TemporaryDirectory(prefix="mh-versions-") as tmp:
        work = Path(tmp)
        caches = [work / "numba-old", work / "numba-new"]
        pair(trees, caches, [*GAME, *extra, "--trials", "20"], 0, work)  # the kernels compiled: not counted
        rows = []
        for k in range(a.pairs):
            (c_old, m_old), (c_new, m_new) = pair(trees, caches, [*GAME, *extra, "--trials", str(a.games)], k % 2, work)
            rows.append((c_old, c_new, m_old, m_new))
            print(f"pair {k + 1}: old {c_old:.2f} s ({m_old}), new {c_new:.2f} s ({m_new}), "
                  f"{100 * (c_new / c_old - 1):+.1f}%", flush=True)  # fmt: skip
    ratios = [n / o for o, n, _, _ in rows]
    print(f"\n{a.games} games a run: python -m mathhammer {shlex.join(GAME + extra)}")
    print("\n| pair | old CPU s | new CPU s | new / old | same games |")
    print("|---|---|---|---|---|")
    for k, (o, n, mo, mn) in enumerate(rows, 1):
        print(f"| {k} | {o:.2f} | {n:.2f} | {n / o:.3f} | {'yes' if mo == mn else f'no ({mo}, {mn})'} |")
    print(f"| median | | | {statistics.median(ratios):.3f} | |")
    if any(mo != mn for _, _, mo, mn in rows):
        sys.exit("the two versions played different games (the JSON differs)")


if __name__ == "__main__":
    main()
