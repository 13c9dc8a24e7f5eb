"""Two versions of mathhammer side by side, in one run: Monte Carlo throughput, exact time, warm CLI latency.

    python benchmarks/bench_versions.py OLD_TREE [NEW_TREE] [--repeat 7]

Each tree is a checkout of this repository (``git worktree add /tmp/old 54347c8``);
its ``mathhammer`` package is imported through ``PYTHONPATH`` in a new process,
with the running interpreter (the same numpy, numba and Python), so only the
package differs. The measurements alternate between the trees, and each has
its own warm ``NUMBA_CACHE_DIR``. Prints a markdown table: the medians, the
new/old ratio, and the ratio to ``python -c "import numpy"`` of this run.

- Monte Carlo: the reference Batch of ``bench_engine.py`` (10 dice Hit 4+,
  PRECISION (1), Surge D3, CRITICAL HIT (1), TOUGH (1), Evade, Damage 2,
  against 5 models of 2 HP with Shield 2), 1e7 trials, count method, every
  thread, in the process (kernel time, compile excluded);
- exact: the same Batch, time per call (median of 200 calls, cache cleared);
- the command line: ``attack`` ad hoc exact and Monte Carlo 1e5 trials,
  ``attack Marine Zergling`` (named, exact), ``profiles list``, ``--help``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

ENGINE = r"""
import json, statistics, sys, time
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
from mathhammer.starcraft.compiled import compile_attack
try:
    from mathhammer.starcraft.montecarlo import simulate
    from mathhammer.starcraft.exact import exact_tally
except ImportError:  # the layout before the game-system contract
    from mathhammer.engine import simulate
    from mathhammer.exact import exact_tally
w = Weapon.build("ref", roa=1, hit=4, damage=2, surge="Light:D3", keywords=["PRECISION (1)", "CRITICAL HIT (1)"])
t = Target.build(5, 2, armour=4, evade=5, shield=2, tags="Light", keywords=["TOUGH (1)"], evade_eligible=True)
b, tc = compile_attack(Attack((Batch(w, models=10),), t))
simulate(b, tc, 2**23 + 1, seed=1)  # compile or load both kernels
mc = []
for _ in range(int(sys.argv[1])):
    s = time.perf_counter(); simulate(b, tc, 10_000_000, seed=2); mc.append(time.perf_counter() - s)
ex = []
for _ in range(200):
    s = time.perf_counter(); exact_tally(b, tc); ex.append(time.perf_counter() - s)
print(json.dumps({"mc_trials_per_s": 1e7 / statistics.median(mc), "exact_ms": 1e3 * statistics.median(ex)}))
"""

QUERY = [
    "attack", "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2", "--surge", "Light:D3",
    "--keyword", "PRECISION (1)", "--keyword", "CRITICAL HIT (1)", "--target-models", "5", "--target-hp", "2",
    "--target-shield", "2", "--target-armour", "4", "--target-evade", "5", "--target-tags", "Light",
    "--target-keyword", "TOUGH (1)", "--evade-eligible", "--json",
]  # fmt: skip
COMMANDS = {
    "attack (ad hoc, exact)": QUERY,
    "attack (ad hoc, Monte Carlo 1e5)": [*QUERY, "--trials", "100000", "--seed", "1"],
    "attack Marine Zergling (exact)": ["attack", "Marine", "Zergling", "--json"],
    "profiles list": ["profiles", "list", "--json"],
    "--help": ["--help"],
}


def env_for(tree: str, cache: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=tree, NUMBA_CACHE_DIR=cache)


def timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=env, cwd=tempfile.gettempdir(), check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new", nargs="?", default=os.path.dirname(HERE))
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    trees = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    caches = {k: tempfile.mkdtemp(prefix=f"mh-bench-{k}-") for k in trees}
    envs = {k: env_for(trees[k], caches[k]) for k in trees}
    cli = {k: [sys.executable, "-m", "mathhammer"] for k in trees}
    for k in trees:  # warm the JIT caches
        subprocess.run([*cli[k], *COMMANDS["attack (ad hoc, Monte Carlo 1e5)"]], env=envs[k], check=True,
                       capture_output=True, cwd=tempfile.gettempdir())  # fmt: skip
    engine: dict[str, list[dict[str, float]]] = {k: [] for k in trees}
    for _ in range(2):
        for k in trees:
            out = subprocess.run([sys.executable, "-c", ENGINE, "5"], env=envs[k], check=True, capture_output=True,
                                 text=True, cwd=tempfile.gettempdir())  # fmt: skip
            engine[k].append(json.loads(out.stdout.strip().splitlines()[-1]))
    times: dict[str, dict[str, list[float]]] = {k: {c: [] for c in COMMANDS} for k in trees}
    numpy_times: list[float] = []
    for _ in range(args.repeat):
        numpy_times.append(timed([sys.executable, "-c", "import numpy"], os.environ.copy()))
        for name, command in COMMANDS.items():
            for k in trees:
                times[k][name].append(timed([*cli[k], *command], envs[k]))
    base = statistics.median(numpy_times)
    rows = []
    for metric in ("mc_trials_per_s", "exact_ms"):
        old = statistics.median(e[metric] for e in engine["old"])
        new = statistics.median(e[metric] for e in engine["new"])
        unit = "trials/s (1e7, count)" if metric == "mc_trials_per_s" else "ms per exact Batch"
        rows.append((f"engine: {unit}", f"{old:,.4g}", f"{new:,.4g}", f"{new / old:.3f}", ""))
    for name in COMMANDS:
        old, new = statistics.median(times["old"][name]), statistics.median(times["new"][name])
        rows.append((f"`mathhammer {name}`, s", f"{old:.3f}", f"{new:.3f}", f"{new / old:.3f}",
                     f"{old / base:.2f} / {new / base:.2f}"))  # fmt: skip
    print(f'`python -c "import numpy"`: {base:.3f} s (median of {args.repeat})\n')
    print("| measure | old | new | new / old | x import numpy (old / new) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
