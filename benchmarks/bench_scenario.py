"""Speed of whole-scenario simulation (issue 6, goal: a 5-round, 6-units-a-side scenario at 100 k games/s).

For each built-in scenario, measured in one run (one process, warm JIT cache):

- games per second at ``--small`` and ``--large`` games in one process (whole ``simulate``: plan
  check, board geometry, every Round, the result arrays);
- the per-game rate between the two sizes ((large - small) / (t_large - t_small)), which leaves
  out the board geometry read once per distinct board state, and that fixed cost;
- ``--large`` games on every core (``workers=None``: a pilot block, then forked workers), measured
  first, and its ratio to one process;
- the ratio of the best to the 100 k games/s goal;
- the grouping kernel against ``np.unique(axis=0)`` (what it replaced) on the 6-a-side example's
  state matrix, as a ratio.

Prints a markdown table.

Usage: ``NUMBA_CACHE_DIR=... python benchmarks/bench_scenario.py [--small 100000] [--large 2000000]
[--only standard_clash.toml] [--policy close_ranks=never] [--skip-kernel]``

``--only`` (repeatable) measures those scenarios alone; ``--policy FIELD=VALUE`` (repeatable) overrides
the ``[policy]`` of every scenario measured (the default: each file's own, so Close Ranks is made).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mathhammer.scenario.spec import Scenario

GOAL = 100_000.0


def with_policy(scn: Scenario, override: dict[str, str]) -> Scenario:
    """``scn`` with ``[policy]`` fields replaced, checked like the file's own (a bad value is an error)."""
    if not override:
        return scn
    return dataclasses.replace(scn, policy=type(scn.policy).model_validate({**scn.policy.model_dump(), **override}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", default=[], help="scenario file name (repeatable)")
    parser.add_argument("--policy", action="append", default=[], help="FIELD=VALUE (repeatable)")
    parser.add_argument("--skip-kernel", action="store_true", help="leave out the grouping-kernel ratio")
    args = parser.parse_args()
    override = dict(item.split("=", 1) for item in args.policy)

    from mathhammer.scenario import builtin_scenarios, load_scenario, simulate
    from mathhammer.scenario.fast import group_state
    from mathhammer.scenario.parallel import workers_available
    from mathhammer.scenario.sim import Simulation

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
        f"({workers_available()} usable), python {platform.python_version()}, load average "
        f"{os.getloadavg()[0]:.2f} at the start"
    )
    print()
    print(f"policy overrides: {override or 'none (each file its own [policy])'}")
    print()
    print(
        "| scenario | units | 1 process, small | 1 process, large | per-game rate | fixed cost "
        "| every core, large | cores / 1 | best / goal |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for path in builtin_scenarios():
        if args.only and path.name not in args.only:
            continue
        scn = with_policy(load_scenario(path), override)
        simulate(scn, trials=200, seed=0)  # JIT and imports
        # every core first: a process that has just played millions of games in itself plays the next batch on
        # every core 1-2 s slower (2026-11-30, standard_clash.toml, 2,000,000 games: 23.5 s after the two runs in
        # one process, 21.3 s without them), and the command line plays one batch per process
        t0 = time.perf_counter()
        simulate(scn, trials=args.large, seed=args.seed)
        t_par = time.perf_counter() - t0
        times = []
        for n in (args.small, args.large):
            t0 = time.perf_counter()
            simulate(scn, trials=n, seed=args.seed, workers=1)
            times.append(time.perf_counter() - t0)
        rate = (args.large - args.small) / max(times[1] - times[0], 1e-9)
        fixed = times[0] - args.small / rate
        best = args.large / min(times[1], t_par)
        print(
            f"| {path.name} | {len(scn.units)} | {args.small / times[0]:,.0f}/s ({times[0]:.1f} s) "
            f"| {args.large / times[1]:,.0f}/s ({times[1]:.1f} s) | {rate:,.0f}/s | {fixed:.1f} s "
            f"| {args.large / t_par:,.0f}/s ({t_par:.1f} s) | {times[1] / t_par:.2f}x | {best / GOAL:.2f} |",
            flush=True,
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    if args.skip_kernel:
        return

    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(with_policy(load_scenario(path), override), args.small, args.seed)
    sim.run()
    rows = np.arange(2 * sim.U, dtype=np.int64)  # placements and models left of every unit
    trials = np.arange(sim.T, dtype=np.int64)
    group_state(sim.state, rows, trials)
    t0 = time.perf_counter()
    for _ in range(5):
        group_state(sim.state, rows, trials)
    t_kernel = (time.perf_counter() - t0) / 5
    t0 = time.perf_counter()
    np.unique(sim.state[rows].T, axis=0, return_inverse=True)
    t_unique = time.perf_counter() - t0
    print()
    print(
        f"grouping {args.small:,} trials by {len(rows)} columns: kernel {t_kernel * 1e3:.1f} ms, "
        f"np.unique(axis=0) {t_unique * 1e3:.1f} ms ({t_unique / t_kernel:.0f}x)"
    )


if __name__ == "__main__":
    main()
