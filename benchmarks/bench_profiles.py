"""Speed goals of the profiles issue, measured in one run.

- Loading every built-in profile (TOML parse + validation) in a new process:
  goal under 0.3 s (the import of the loader included, not Python's start).
- ``compare`` of a unit with every upgrade combination against 3 targets at a
  standard error of 0.005 on P(destroy unit), warm JIT cache: goal under 3 s;
  and the same comparison exactly.

Usage: ``python benchmarks/bench_profiles.py [--unit Marine] [--vs Zergling Roach Hydralisk]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

LOAD = (
    "import time; t = time.perf_counter()\n"
    "from mathhammer.starcraft.roster import load_roster\n"
    "r = load_roster()\n"
    "print(time.perf_counter() - t, len(r.units))\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--unit", default="Marine")
    parser.add_argument("--vs", nargs="+", default=["Zergling", "Roach", "Hydralisk"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", tempfile.mkdtemp()))
    loads = []
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True, env=env)
        seconds, units = out.stdout.split()
        loads.append(float(seconds))

    from mathhammer.starcraft.compare import compare, resolve_targets
    from mathhammer.starcraft.roster import load_roster

    roster = load_roster()
    unit = roster.unit(args.unit)
    targets = resolve_targets(roster, args.vs)
    compare(unit, targets[:1], tolerance=0.05, seed=1)  # warm the JIT cache
    t = time.perf_counter()
    rows = compare(unit, targets, tolerance=0.005, seed=1)
    mc = time.perf_counter() - t
    t = time.perf_counter()
    exact_rows = compare(unit, targets)
    exact = time.perf_counter() - t
    worst = max(r["p_destroy_se"] for r in rows)
    print(f"built-in profiles: {units} units")
    print("| measure | result | goal |")
    print("|---|---|---|")
    load = statistics.median(loads)
    n = len(rows) // len(targets)
    print(f"| load every built-in profile (median of {args.repeat} new processes) | {load:.3f} s | < 0.3 s |")
    print(
        f"| compare {args.unit}: {n} loadouts x {len(targets)} targets, SE(P(destroy)) <= 0.005 "
        f"(largest {worst:.4f}), warm JIT | {mc:.2f} s | < 3 s |"
    )
    print(f"| the same comparison, exact engine | {exact:.3f} s ({len(exact_rows)} rows) | |")


if __name__ == "__main__":
    main()
