"""End-to-end time of ``mathhammer attack ... --json`` in a new process.

Measures, in one run:

- the first run after install: a new, empty ``NUMBA_CACHE_DIR`` (the kernels
  compile), Monte Carlo, 1e6 trials;
- the same command with a warm JIT cache (median of ``--repeat`` runs);
- the exact engine (no numba at all);
- ``mathhammer --help``.

Usage: ``python benchmarks/bench_cli.py [--repeat 7]``; prints a markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

QUERY = [
    "attack",
    "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2",
    "--surge", "Light:D3", "--keyword", "PRECISION (1)", "--keyword", "CRITICAL HIT (1)",
    "--target-models", "5", "--target-hp", "2", "--target-shield", "2",
    "--target-armour", "4", "--target-evade", "5", "--target-tags", "Light",
    "--target-keyword", "TOUGH (1)", "--evade-eligible", "--json",
]  # fmt: skip


def command() -> list[str]:
    exe = shutil.which("mathhammer")
    return [exe] if exe else [sys.executable, "-m", "mathhammer"]


def timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command() + args, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="mh-bench-cache-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    mc = [*QUERY, "--trials", "1000000", "--seed", "1"]
    first = timed(mc, env)
    warm = statistics.median(timed(mc, env) for _ in range(args.repeat))
    exact = statistics.median(timed([*QUERY, "--exact"], env) for _ in range(args.repeat))
    helps = statistics.median(timed(["--help"], env) for _ in range(args.repeat))
    shutil.rmtree(cache, ignore_errors=True)
    print("| command | seconds | goal |")
    print("|---|---|---|")
    print(f"| attack --trials 1e6 --json, first run (empty NUMBA_CACHE_DIR) | {first:.2f} | < 6 |")
    print(f"| attack --trials 1e6 --json, warm JIT cache (median of {args.repeat}) | {warm:.3f} | < 0.8 |")
    print(f"| attack --exact --json (median of {args.repeat}) | {exact:.3f} | < 0.8 |")
    print(f"| --help (median of {args.repeat}) | {helps:.3f} | |")


if __name__ == "__main__":
    main()
