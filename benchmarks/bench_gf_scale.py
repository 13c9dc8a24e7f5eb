"""Grimdark Future Monte Carlo against the exact engine on the same attack, at growing sizes, in one run.

    NUMBA_CACHE_DIR=/tmp/mh-numba python benchmarks/bench_gf_scale.py [--trials 100000] [--repeats 5] [--die]

Attacks: N models x A attacks, Quality 4+, no weapon rule, against M models of Defense 4+ (Tough(1)):
10 x A2 vs 10, 50 x A4 vs 100, 200 x A10 vs 500 (issue 27's case), and the last with a joined hero
(Tough(3), Defense 3+). Measures, warm (kernels compiled first), in this process: ``grimdark_exact``
and ``grimdark_simulate`` (``--trials`` trials, seed 1), medians of ``--repeats`` runs, and their
ratio (Monte Carlo / exact; issue 27 asks for at most 5 at scale); a run over 5 s is timed once.
``--die`` also times the die-by-die path the count sampling replaced (one run each: it takes seconds
at the largest size). Prints a markdown table; the figures go to benchmarks/RESULTS.md. Never run as a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, engine, grimdark_exact
from mathhammer.grimdark.engine import grimdark_simulate

SIZES = (
    ("10 x A2 vs 10", 10, 2, 10, None),
    ("50 x A4 vs 100", 50, 4, 100, None),
    ("200 x A10 vs 500", 200, 10, 500, None),
    ("200 x A10 vs 500 + hero", 200, 10, 500, Hero(3, 3)),
)


def median_seconds(run, repeats: int, long: float = 5.0) -> float:
    """Median of ``repeats`` runs; a first run over ``long`` seconds is not repeated."""
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        if times[0] > long:
            break
    return statistics.median(times)


def _die_by_die(attack, trials):
    return np.zeros(1), np.zeros((max(1, len(attack.groups)), 0, 4), dtype=np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--die", action="store_true", help="also time the die-by-die path (one run each)")
    args = parser.parse_args()
    small = Attacker((WeaponGroup(1, Weapon("w", 1)),), 4), Defender(2, defense=4)
    grimdark_simulate(*small, 10, seed=1)  # compile (or load) the kernels first
    head = "| attack | exact | Monte Carlo | MC / exact |"
    if args.die:
        head += " die by die (1 run) |"
    print(f"Monte Carlo: {args.trials:,} trials, medians of {args.repeats}\n")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for label, models, attacks, targets, hero in SIZES:
        attacker = Attacker((WeaponGroup(models, Weapon("w", attacks)),), 4)
        defender = Defender(targets, defense=4, hero=hero)
        exact = median_seconds(lambda a=attacker, d=defender: grimdark_exact(a, d), args.repeats)
        mc = median_seconds(lambda a=attacker, d=defender: grimdark_simulate(a, d, args.trials, 1), args.repeats)
        row = f"| {label} | {exact * 1000:.1f} ms | {mc * 1000:.1f} ms | {mc / exact:.2f} |"
        if args.die:
            saved = engine.count_tables
            engine.count_tables = _die_by_die
            try:
                die = median_seconds(lambda a=attacker, d=defender: grimdark_simulate(a, d, args.trials, 1), 1)
            finally:
                engine.count_tables = saved
            row += f" {die * 1000:.0f} ms |"
        print(row)


if __name__ == "__main__":
    main()
