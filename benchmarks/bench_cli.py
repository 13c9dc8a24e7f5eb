"""End-to-end time of ``mathhammer`` commands, each in a new process, as ratios to ``python -c "import numpy"``.

Measures, in one run:

- start-up (issue 28 point 1): ``python -c "import numpy"`` (the yardstick), ``--help``, ``profiles list``,
  ``profiles show``, ``army validate``, an exact ``attack`` ad hoc and named, ``compare`` and ``matchup`` of
  one unit each (goal: at most 2x the yardstick), and a warm Monte Carlo ``attack --trials 100000`` (goal:
  at most 3x); the medians of ``--repeat`` rounds, the commands taking turns in each round so that the
  machine's load falls on all of them alike, with the validated roster already cached (the first call
  after install, which validates and caches it, is the row "profiles list, empty roster cache");
- the first Monte Carlo run after install: a new, empty ``NUMBA_CACHE_DIR``, 1e6 trials (the count method
  runs on the numpy engine, so nothing compiles) and the same command again; the same with ``--method die``
  (numba's kernels: the first run compiles them) and with a warm JIT cache; the exact engine on the same attack.

The checkout's modules are byte-compiled first (``compileall``), as ``pip install`` does: with
``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__``, every command would compile mathhammer's sources
anew (about a third of its start-up), which no installed copy does.

Usage: ``python benchmarks/bench_cli.py [--repeat 7] [--skip-first-run]``; prints a markdown table.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

QUERY = [
    "attack",
    "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2",
    "--surge", "Light:D3", "--keyword", "PRECISION (1)", "--keyword", "CRITICAL HIT (1)",
    "--target-models", "5", "--target-hp", "2", "--target-shield", "2",
    "--target-armour", "4", "--target-evade", "5", "--target-tags", "Light",
    "--target-keyword", "TOUGH (1)", "--evade-eligible", "--json",
]  # fmt: skip

ADHOC = [
    "attack", "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2",
    "--target-models", "5", "--target-hp", "2", "--target-armour", "4", "--json",
]  # fmt: skip

#: The start-up rows: label, arguments of ``mathhammer`` (None: the yardstick), the goal as a ratio.
STARTUP: list[tuple[str, list[str] | None, float | None]] = [
    ('python -c "import numpy"', None, None),
    ("--help", ["--help"], 2),
    ("profiles list", ["profiles", "list"], 2),
    ("profiles show Marine", ["profiles", "show", "Marine"], 2),
    ("army validate terran_six.toml", ["army", "validate", str(ROOT / "profiles/armies/terran_six.toml")], 2),
    ("attack ad hoc --json (exact)", ADHOC, 2),
    ("attack Marine Zergling --json (exact)", ["attack", "Marine", "Zergling", "--json"], 2),
    ("compare Marine --vs Zergling --json", ["compare", "Marine", "--vs", "Zergling", "--json"], 2),
    ("matchup Marine Zergling", ["matchup", "Marine", "Zergling"], 2),
    ("attack ad hoc --trials 100000 --json (Monte Carlo, warm)", [*ADHOC, "--trials", "100000"], 3),
]


def command() -> list[str]:
    exe = shutil.which("mathhammer")
    return [exe] if exe else [sys.executable, "-m", "mathhammer"]


def timed(args: list[str] | None, env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Wall seconds of one run; its CPU seconds (user + system) appended to ``cpu`` when given."""
    argv = [sys.executable, "-c", "import numpy"] if args is None else command() + args
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def startup(env: dict[str, str], repeat: int) -> list[str]:
    """The start-up rows: every command once per round (after one untimed round that warms the caches)."""
    cold = timed(["profiles", "list"], env)  # an empty roster cache: validates, then caches
    times: dict[str, list[float]] = {label: [] for label, _, _ in STARTUP}
    cpus: dict[str, list[float]] = {label: [] for label, _, _ in STARTUP}
    for r in range(repeat + 1):
        for label, args, _ in STARTUP:
            cpu: list[float] = []
            t = timed(args, env, cpu)
            if r:  # round 0 warms the JIT and roster caches and the OS's file cache
                times[label].append(t)
                cpus[label] += cpu
    base = statistics.median(times[STARTUP[0][0]])
    base_cpu = statistics.median(cpus[STARTUP[0][0]])
    rows = []
    for label, _, goal in STARTUP:
        med, med_cpu = statistics.median(times[label]), statistics.median(cpus[label])
        verdict = "" if goal is None else ("yes" if med / base <= goal else "**no**")
        rows.append(
            f"| {label} | {med:.3f} | {med / base:.2f} | {med_cpu:.3f} | {med_cpu / base_cpu:.2f} "
            f"| {'' if goal is None else f'<= {goal}x'} | {verdict} |"
        )
    rows.append(f"| profiles list, empty roster cache (once) | {cold:.3f} | {cold / base:.2f} | | | | |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7, help="rounds (medians of this many; at least 5)")
    parser.add_argument("--skip-first-run", action="store_true", help="only the start-up rows")
    args = parser.parse_args()
    if args.repeat < 5:
        parser.error("--repeat: at least 5 (medians of at least 5 runs)")
    compileall.compile_dir(str(ROOT / "mathhammer"), quiet=1)
    numba_cache = tempfile.mkdtemp(prefix="mh-bench-numba-")
    roster_cache = tempfile.mkdtemp(prefix="mh-bench-roster-")
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, MATHHAMMER_CACHE_DIR=roster_cache)
    try:
        first_run: list[str] = []
        if not args.skip_first_run:
            mc = [*QUERY, "--trials", "1000000", "--seed", "1"]
            first = timed(mc, env)  # the numpy engine: nothing to compile (the NUMBA_CACHE_DIR stays empty)
            warm = statistics.median(timed(mc, env) for _ in range(args.repeat))
            die = [*mc, "--method", "die"]  # numba's kernels: compiled on the first run
            first_die = timed(die, env)
            warm_die = statistics.median(timed(die, env) for _ in range(args.repeat))
            exact = statistics.median(timed([*QUERY, "--exact"], env) for _ in range(args.repeat))
            first_run = [
                f"| attack --trials 1e6 --json, first run (empty NUMBA_CACHE_DIR) | {first:.2f} | | | | < 6 s | |",
                f"| attack --trials 1e6 --json, again | {warm:.3f} | | | | < 0.8 s | |",
                f"| attack --trials 1e6 --method die --json, first run (numba compiles) | {first_die:.2f} | | | | | |",
                f"| attack --trials 1e6 --method die --json, warm JIT cache | {warm_die:.3f} | | | | | |",
                f"| attack --exact --json, 10 keywords and tags | {exact:.3f} | | | | < 0.8 s | |",
            ]
        rows = startup(env, args.repeat)
    finally:
        shutil.rmtree(numba_cache, ignore_errors=True)
        shutil.rmtree(roster_cache, ignore_errors=True)
    print(f'Medians of {args.repeat} runs; ratios to python -c "import numpy" in the same run; CPU: user + system')
    print("seconds of the process (steadier than wall time on a loaded machine; the goals are on wall time).\n")
    print("| command | wall s | ratio | CPU s | CPU ratio | goal | met |")
    print("|---|---|---|---|---|---|---|")
    for row in rows + first_run:
        print(row)


if __name__ == "__main__":
    main()
