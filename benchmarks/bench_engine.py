"""Benchmark of the Monte Carlo engine on the reference Batch, in one run.

    NUMBA_CACHE_DIR=/tmp/mh-numba python benchmarks/bench_engine.py [--quick] [--rss-trials 1e9]

The reference Batch (``/work/shared/design/PERFORMANCE.md``): 10 dice Hit 4+,
PRECISION (1), Surge D3 matching, CRITICAL HIT (1), Armour 4+, TOUGH (1),
Evade 5+ (eligible), Damage 2, against 5 models of 2 HP with Shield 2.

Measures (medians of several runs, all in this process unless noted):
``simulate`` count method at 1e7 trials on 2 threads and on 1 thread; the die
method; the plain numpy baseline (``numpy_baseline.py``); the ratio; the
generator's limit (d6 per second); the exact engine's time per Batch when
``mathhammer.starcraft.exact.exact_tally`` exists; and the peak RSS of child processes
running 1e7, 2e8 and ``--rss-trials`` trials. Prints a markdown table. Never
run as a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numba
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from numpy_baseline import numpy_tally  # noqa: E402

from mathhammer.starcraft.compiled import compile_attack  # noqa: E402
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon  # noqa: E402
from mathhammer.starcraft.montecarlo import simulate  # noqa: E402


def reference_chain():
    weapon = Weapon.build(
        "ref", roa=1, hit=4, damage=2, surge="Light:D3", keywords=["PRECISION (1)", "CRITICAL HIT (1)"]
    )
    batch = Batch(weapon, models=10)
    target = Target.build(5, 2, shield=2, armour=4, evade=5, tags="Light", keywords=["TOUGH (1)"], evade_eligible=True)
    return compile_attack(Attack((batch,), target))


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


_RSS_SCRIPT = """
import sys, time
sys.path.insert(0, {here!r})
from bench_engine import reference_chain
from mathhammer.starcraft.montecarlo import simulate
b, t = reference_chain()
simulate(b, t, 1000)
t0 = time.perf_counter()
tally = simulate(b, t, {trials})
seconds = time.perf_counter() - t0
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0].split()[1]
print(seconds, tally.trials, int(hwm) / 1024)
"""


def child_peak_rss(trials: int) -> tuple[float, float]:
    """``(peak RSS in MB, seconds)`` of a new process running ``trials`` trials.

    The peak is the child's own ``VmHWM``: ``ru_maxrss`` from ``wait4`` keeps
    the high-water mark of the parent at fork time across ``exec``.
    """
    done = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT.format(here=HERE, trials=trials)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    seconds, _, mb = done.stdout.split()
    return float(mb), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, no 1e9 RSS run")
    parser.add_argument("--rss-trials", type=float, default=1e9, help="trials of the largest RSS run")
    args = parser.parse_args()
    runs = 3 if args.quick else 5
    trials = 10_000_000

    batches, target = reference_chain()
    threads = numba.get_num_threads()
    t0 = time.perf_counter()
    simulate(batches, target, 1000)
    first_call = time.perf_counter() - t0
    simulate(batches, target, 1000, method="die")

    rows: list[tuple[str, str]] = []
    numba.set_num_threads(threads)
    t2 = median_time(lambda: simulate(batches, target, trials), runs)
    numba.set_num_threads(1)
    t1 = median_time(lambda: simulate(batches, target, trials), runs)
    numba.set_num_threads(threads)
    td = median_time(lambda: simulate(batches, target, trials, method="die"), runs)
    np_trials = 1_000_000 if args.quick else trials
    tn = median_time(lambda: numpy_tally(batches, target, np_trials, seed=1), max(1, runs - 2))

    from mathhammer.engine.rng import seed_stream
    from mathhammer.starcraft import kernels

    key, gamma = (np.uint64(x) for x in seed_stream(12345))
    out = np.zeros(threads, dtype=np.int64)
    per_slot = 200_000_000
    kernels.d6_limit(key, gamma, 1000, out)
    tr = median_time(lambda: kernels.d6_limit(key, gamma, per_slot, out), runs)
    dice_per_s = threads * (per_slot // 2 * 2) / tr

    rate2, rate1, rated, raten = trials / t2, trials / t1, trials / td, np_trials / tn
    rows.append((f"`simulate` count, {trials:.0e} trials, {threads} threads", f"{rate2 / 1e6:.1f} M trials/s"))
    rows.append((f"`simulate` count, {trials:.0e} trials, 1 thread", f"{rate1 / 1e6:.1f} M trials/s"))
    rows.append((f"`simulate` die, {trials:.0e} trials, {threads} threads", f"{rated / 1e6:.1f} M trials/s"))
    rows.append((f"numpy baseline (per die), {np_trials:.0e} trials", f"{raten / 1e6:.2f} M trials/s"))
    rows.append((f"ratio count ({threads} threads) / numpy", f"{rate2 / raten:.1f}x"))
    rows.append(("ratio count (1 thread) / numpy", f"{rate1 / raten:.1f}x"))
    rows.append((f"RNG limit: SplitMix64 d6 only, {threads} threads", f"{dice_per_s / 1e9:.2f} G dice/s"))
    rows.append(("first call in this process (compile or cache load)", f"{first_call:.2f} s"))

    try:
        from mathhammer.starcraft.exact import exact_tally
    except ImportError:
        rows.append(("exact engine", "skipped: mathhammer.starcraft.exact.exact_tally not found"))
    else:
        t0 = time.perf_counter()
        exact_tally(batches, target)
        cold = time.perf_counter() - t0
        te = median_time(lambda: exact_tally(batches, target), max(runs, 20))
        rows.append(("exact engine `exact_tally`, per Batch", f"{te * 1e3:.3f} ms (first call {cold * 1e3:.2f} ms)"))

    rss_runs = [10_000_000, 200_000_000]
    if not args.quick:
        rss_runs.append(int(args.rss_trials))
    for n in rss_runs:
        mb, secs = child_peak_rss(n)
        rows.append(
            (f"peak RSS of a process running {n:.0e} trials", f"{mb:.0f} MB ({secs:.1f} s, {n / secs / 1e6:.1f} M/s)")
        )

    print(
        f"\nMachine: {platform.machine()}, nproc {os.cpu_count()}, numba threads {threads}; "
        f"Python {platform.python_version()}, numba {numba.__version__}, numpy {np.__version__}; "
        f"load average at the end {os.getloadavg()[0]:.2f}\n"
    )
    print("| measure | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
