"""Where the Charge search's CPU goes in random games (issue 29 point 6, step 4 of docs/dev/compiled-game-loop.md):
every ``board.charge.charge_distance`` call of ``mathhammer game`` run in this process, counted by how it was
answered, with its CPU seconds and those of its goal regions (``charge._level``, one per level). The World's compiled
search (``board.fastcharge``, its Charges on one level since session 35) is turned off: the games are the shapely
search's.

* **early**: answered before any path is looked for (no goal region on any level, or the Leading Model already in it);
* **straight**: one level, a straight move to the nearest point of the goal region with nothing in the way
  (``charge._straight_charge``);
* **search, found** / **search, none**: the A* over the obstacles' corners and the goal's samples, which found a path
  within the bound, or none.

The counters change no game: the JSON's md5 (keys sorted) is printed, to hold against the same command unpatched.

    python benchmarks/count_charge_searches.py --trials 1000 [any other ``mathhammer game`` options]

The command is bench_game's (terran_six against zerg_six, Hold Position, Gauntlet, seed 1, random against random,
one process); options after the script's name are added to it. Session 32's figures: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import collections
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mathhammer.board import charge as board_charge
from mathhammer.scenario.geometry import charge as scenario_charge

sys.path.insert(0, str(Path(__file__).resolve().parent))
from count_move_tables import run

KINDS = ("early", "straight", "search, found", "search, none")

calls: collections.Counter[str] = collections.Counter()
seconds: collections.Counter[str] = collections.Counter()  # CPU of the calls of each kind
levels: collections.Counter[str] = collections.Counter()  # CPU of their goal regions


def patch() -> Callable[[], None]:
    """Patch the counters onto the Charge search; returns the call that takes them off again."""
    search, straight = board_charge.charge_distance, board_charge._straight_charge
    level, samples = board_charge._level, board_charge._goal_samples
    now: dict[str, Any] = {}

    def counted_straight(*args: Any, **kwargs: Any) -> Any:
        got = straight(*args, **kwargs)
        now["straight"] = got is not None
        return got

    def counted_samples(*args: Any, **kwargs: Any) -> Any:
        now["searched"] = True  # the A*'s goal nodes: read only where it runs
        return samples(*args, **kwargs)

    def counted_level(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return level(*args, **kwargs)
        finally:
            now["level"] = now.get("level", 0.0) + time.process_time() - t0

    def counted_search(*args: Any, **kwargs: Any) -> Any:
        now.clear()
        t0 = time.process_time()
        got = search(*args, **kwargs)
        spent = time.process_time() - t0
        if now.get("straight"):
            kind = "straight"
        elif now.get("searched"):
            kind = "search, none" if math.isinf(got.length) else "search, found"
        else:
            kind = "early"
        calls[kind] += 1
        seconds[kind] += spent
        levels[kind] += now.get("level", 0.0)
        return got

    patched = [
        (board_charge, "charge_distance", search, counted_search),
        (board_charge, "_straight_charge", straight, counted_straight),
        (board_charge, "_level", level, counted_level),
        (board_charge, "_goal_samples", samples, counted_samples),
        (scenario_charge, "charge_distance", search, counted_search),  # the name the World's Charge search calls
        (scenario_charge, "COMPILED", scenario_charge.COMPILED, False),  # the shapely search, the compiled one off
    ]
    for owner, name, _, new in patched:
        setattr(owner, name, new)

    def off() -> None:
        for owner, name, old, _ in patched:
            setattr(owner, name, old)

    return off


def main() -> None:
    patch()
    md5, cpu = run(sys.argv[1:])
    print(f"json md5 (keys sorted): {md5}")
    print(f"CPU, whole command: {cpu:.2f} s; Charge searches {sum(seconds.values()):.2f} s")
    print("| answered | calls | CPU s | ms a call | of it the goal regions, s |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        n = calls[kind]
        each = 1000 * seconds[kind] / n if n else 0.0
        print(f"| {kind} | {n} | {seconds[kind]:.3f} | {each:.2f} | {levels[kind]:.3f} |")


if __name__ == "__main__":
    main()
