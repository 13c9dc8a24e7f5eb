"""First run against warm run (issue 28 point 2): a Monte Carlo ``attack`` and a ``scenario run``.

Each repeat makes an empty ``NUMBA_CACHE_DIR``, runs the command there (the first run: it compiles its kernels),
then again in the same folder (warm: the kernels load from the cache). Prints wall and CPU (user + sys of the
child and its compile processes) seconds of each run, the CPU seconds of its critical path (its own and its longest
compile process's: its wall time on an idle machine with a core for each), their medians, the ratios first / warm,
whether the first run's stderr carried the one-line notice, and a markdown table for ``benchmarks/RESULTS.md``.
``--warmup`` also times ``mathhammer warmup`` twice in one empty folder.

    python benchmarks/bench_firstrun.py --repeat 3
    python benchmarks/bench_firstrun.py --only scenario --repeat 5
    python benchmarks/bench_firstrun.py --only none --warmup
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "attack": ["attack", "Marine", "Zergling", "--trials", "100000", "--seed", "1", "--json"],
    "scenario": ["scenario", "run", "profiles/scenarios/standard_clash.toml", "--trials", "2000", "--seed", "1"],
}


#: ``python -m mathhammer`` that also reports, on stderr, its own CPU seconds and those of each compile process of
#: :func:`mathhammer.jit.compile_ahead` (the bench reads them off and leaves the command's stderr as it was).
WRAPPER = """
import atexit, resource, sys
from mathhammer import jit
ahead = getattr(jit, "compile_ahead", None)  # None: a version that compiles in one process
def spy(*args, **kwargs):
    done = ahead(*args, **kwargs)
    print("bench-ahead", *done.cpu, file=sys.stderr)
    return done
if ahead is not None:
    jit.compile_ahead = spy
def own():
    use = resource.getrusage(resource.RUSAGE_SELF)
    print("bench-own", use.ru_utime + use.ru_stime, file=sys.stderr, flush=True)
atexit.register(own)
from mathhammer.cli import main
sys.argv[0] = "mathhammer"
main()
"""


def _run(args: list[str], cache: str) -> tuple[float, float, float, str]:
    """(wall s, CPU s of the child and its compile processes, the CPU of its critical path, stderr) of
    ``python -m mathhammer ARGS`` with this numba cache folder. The critical path is the command's own CPU and its
    longest compile process: its wall time on an idle machine with a core for each."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own, longest, stderr = 0.0, 0.0, []
    for line in done.stderr.splitlines(keepends=True):
        if line.startswith("bench-own "):
            own = float(line.split()[1])
        elif line.startswith("bench-ahead"):
            longest = max([longest, *map(float, line.split()[1:])])
        else:
            stderr.append(line)
    return wall, cpu, own + longest, "".join(stderr)


def _pairs(name: str, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {
        "first": [], "warm": [], "first_cpu": [], "warm_cpu": [], "first_path": [], "warm_path": [], "notice": [],
    }  # fmt: skip
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="mh-firstrun-") as cache:
            wall, cpu, path, err = _run(COMMANDS[name], cache)
            out["first"].append(wall)
            out["first_cpu"].append(cpu)
            out["first_path"].append(path)
            notes = [line for line in err.splitlines() if line.startswith("note: compiling")]
            out["notice"].append(float(bool(notes)))
            wall2, cpu2, path2, _ = _run(COMMANDS[name], cache)
            out["warm"].append(wall2)
            out["warm_cpu"].append(cpu2)
            out["warm_path"].append(path2)
        print(
            f"{name} #{i + 1}: first {wall:.2f} s (CPU {cpu:.2f} s, critical path {path:.2f} s), warm {wall2:.2f} s "
            f"(CPU {cpu2:.2f} s, critical path {path2:.2f} s), ratio {wall / wall2:.2f} (CPU {cpu / cpu2:.2f}, "
            f"critical path {path / path2:.2f}); load {os.getloadavg()[0]:.1f}; {' '.join(notes) or 'no notice'}",
            flush=True,
        )
    return out


def _warmup() -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="mh-warmup-") as cache:
        first, _, _, _ = _run(["warmup"], cache)
        second, _, _, _ = _run(["warmup"], cache)
    print(f"warmup: first {first:.1f} s, second {second:.1f} s", flush=True)
    return first, second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=[*COMMANDS, "none"], default=None)
    parser.add_argument("--warmup", action="store_true", help="also time `mathhammer warmup` twice")
    opts = parser.parse_args()
    names = [] if opts.only == "none" else [opts.only] if opts.only else list(COMMANDS)
    rows = []
    load = os.getloadavg()[0]
    for name in names:
        r = _pairs(name, opts.repeat)
        med = {k: statistics.median(v) for k, v in r.items() if k != "notice"}
        ratios = [f / w for f, w in zip(r["first"], r["warm"], strict=True)]
        cpu_ratios = [f / w for f, w in zip(r["first_cpu"], r["warm_cpu"], strict=True)]
        path_ratios = [f / w for f, w in zip(r["first_path"], r["warm_path"], strict=True)]
        rows.append(
            f"| `{' '.join(COMMANDS[name])}` | {med['first']:.2f} s (CPU {med['first_cpu']:.2f}, path "
            f"{med['first_path']:.2f}) | {med['warm']:.2f} s (CPU {med['warm_cpu']:.2f}, "
            f"path {med['warm_path']:.2f}) | "
            f"{min(ratios):.2f}-{max(ratios):.2f} (CPU {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}, path "
            f"{min(path_ratios):.2f}-{max(path_ratios):.2f}) | {int(sum(r['notice']))}/{opts.repeat} |"
        )
    print(f"\nload average at the start: {load:.2f}; medians of {opts.repeat}\n")
    if rows:
        print("| command | first run (empty NUMBA_CACHE_DIR) | warm | first / warm | notice on stderr |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))
    if opts.warmup:
        first, second = _warmup()
        print(f"\n`mathhammer warmup`: {first:.1f} s from an empty cache, {second:.1f} s the second time")


if __name__ == "__main__":
    main()
