"""Time of a report sweep: the full StarCraft TMG roster against itself, serial and on Dask.

Every unit of the built-in roster (smallest composition, no upgrades) against
every unit, Assault Phase ranged and Combat Phase, Monte Carlo until the
standard error of P(destroy) is at most 0.01 in every cell (``mathhammer
report --roster --tolerance 0.01``). Measured in one run:

- serial (one process);
- a Dask LocalCluster sized to the machine, started for the sweep (what
  ``mathhammer report`` does), and the same sweep again on the running cluster;
- the exact engine for the same cells, for reference;
- optionally (``--trials N``) a heavier fixed-trials sweep, serial and on Dask.

Both Dask tables are checked to equal the serial one exactly. Prints a
markdown table.

Usage: ``NUMBA_CACHE_DIR=... python benchmarks/bench_report.py [--tolerance 0.01] [--trials 1000000]``
"""

from __future__ import annotations

import argparse
import os
import platform
import time


def _warm_worker() -> None:
    from mathhammer.profiles.loader import builtin_dir
    from mathhammer.report import sweep

    armies = builtin_dir() / "armies"
    sweep(armies / "terran_skirmish.toml", armies / "daelaam_vanguard.toml", trials=1000, scheduler="serial")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument("--trials", type=int, default=0, help="also a fixed-trials sweep (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import numba
    import pandas as pd
    from distributed import Client

    from mathhammer.report import sweep
    from mathhammer.report.runner import cpu_count, local_cluster

    # warm-up: load the kernels from the numba cache (or compile them) outside the timings
    _warm_worker()

    rows: list[tuple[str, float, str]] = []

    def timed(label: str, **kwargs: object) -> tuple[pd.DataFrame, float]:
        start = time.perf_counter()
        df = sweep(roster=True, seed=args.seed, **kwargs)  # type: ignore[arg-type]
        seconds = time.perf_counter() - start
        mc = df[df.engine == "monte-carlo"]
        note = f"{len(df)} cells ({df.attrs['report']['distinct_cells']} with a weapon)"
        if len(mc):
            note += f", {int(mc.trials.sum()):,} trials, max SE(P(destroy)) {mc.p_destroy_se.max():.4f}"
        rows.append((label, seconds, note))
        return df, seconds

    tol = {"tolerance": args.tolerance}
    serial, t_serial = timed(f"serial, tolerance {args.tolerance}", scheduler="serial", **tol)
    local, t_local = timed(
        f"Dask LocalCluster ({cpu_count()} workers, started for the sweep)", scheduler="local", **tol
    )
    with local_cluster() as cluster, Client(cluster) as client:
        client.run(_warm_worker)  # each worker imports mathhammer and loads the kernels once
        warm, t_warm = timed("Dask LocalCluster, already running (workers warm)", scheduler=client, **tol)
    pd.testing.assert_frame_equal(serial, local, check_exact=True)
    pd.testing.assert_frame_equal(serial, warm, check_exact=True)
    timed("exact engine, serial (reference)", scheduler="serial")
    ratios = [("serial / Dask (cluster started)", t_serial / t_local), ("serial / Dask (running)", t_serial / t_warm)]
    if args.trials:
        fixed = {"trials": args.trials}
        s, t_s = timed(f"serial, {args.trials:,} trials per cell", scheduler="serial", **fixed)
        d, t_d = timed(f"Dask LocalCluster, {args.trials:,} trials per cell (started)", scheduler="local", **fixed)
        pd.testing.assert_frame_equal(s, d, check_exact=True)
        ratios.append((f"serial / Dask, {args.trials:,} trials", t_s / t_d))

    load = os.getloadavg()[0]
    print(
        f"Machine: {platform.machine()}, {cpu_count()} cores, numba threads {numba.get_num_threads()}; "
        f"Python {platform.python_version()}; load average at the end {load:.2f}"
    )
    print()
    print("| sweep | seconds | cells |")
    print("|---|---|---|")
    for label, seconds, note in rows:
        print(f"| {label} | {seconds:.2f} | {note} |")
    for label, ratio in ratios:
        print(f"| {label} | {ratio:.2f}x | |")
    print()
    print("Dask tables equal the serial table exactly: yes")


if __name__ == "__main__":
    main()
