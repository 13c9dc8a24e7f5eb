"""Grimdark Future melee resolved both ways: the exact engine and 100,000 Monte Carlo trials (warm), medians of 5.

Run: ``python benchmarks/bench_melee.py``; the figures are in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import time

from mathhammer.grimdark import Defender, Fighter, Melee, Weapon, WeaponGroup
from mathhammer.grimdark.melee_engine import melee_simulate
from mathhammer.grimdark.melee_exact import melee_exact

SIZES = ((10, 1), (20, 1), (40, 1), (20, 3))


def median_seconds(run, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return sorted(times)[repeats // 2]


def main() -> None:
    blade = (WeaponGroup(1, Weapon("w", 1, melee=True)),)
    melee_simulate(Melee(Fighter(blade, 4, Defender(1)), Fighter((), 4, Defender(1))), 10)  # compile first
    print("| melee | exact | Monte Carlo, 100,000 trials |")
    print("|---|---|---|")
    for n, tough in SIZES:
        claws = (WeaponGroup(n, Weapon("Claws", 2, melee=True, rules=("AP(1)",))),)
        m = Melee(Fighter(claws, 4, Defender(n, tough=tough)), Fighter(claws, 4, Defender(n, tough=tough)))
        exact = median_seconds(lambda m=m: melee_exact(m))
        mc = median_seconds(lambda m=m: melee_simulate(m, 100_000, seed=1))
        print(f"| {n} x A2 vs {n} models, Tough({tough}) | {exact * 1000:.0f} ms | {mc * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
