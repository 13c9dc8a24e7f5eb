"""``mathhammer warmup``: compile every numba kernel the command line can use, ahead of the first real run.

Each step runs a small real computation through the same code as the commands, so numba compiles (and caches
on disk) exactly the signatures they use: StarCraft TMG's Monte Carlo counts (single-thread and parallel drivers;
count and die methods; with and without the casualty table), Grimdark Future's Monte Carlo attacks (both
drivers) and melee, and the scenario engine's kernels (the battlefield geometry included) by a few games of
each built-in scenario. Reports (``mathhammer report``) and ``compare``/``matchup`` run these same kernels.
A second warmup loads everything from the cache and is quick. The kernels missing from the cache are first compiled
in one process a core (:func:`mathhammer.jit.compile_ahead`); the steps then load them.

``python -m mathhammer.warmup --signatures`` runs ``mathhammer warmup``, then the steps again in this process, and
prints the argument types Python called each kernel with: the contents of ``mathhammer/kernel_signatures.toml``.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from . import jit


def _starcraft(parallel: bool) -> None:
    from .starcraft import montecarlo as mc
    from .starcraft.compiled import compile_attack
    from .starcraft.model import Attack, Batch, Target, Weapon

    rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1)
    batches, target = compile_attack(Attack((Batch(rifle, models=5),), Target.build(6, 1, armour=5)))
    # count with the casualty table, count without it (a Total Damage reduction), die
    for tgt, method in ((target, "count"), (replace(target, reduce=1), "count"), (target, "die")):
        run = mc.Run(mc.pack(batches, tgt), 0, method, 64, planned=256)
        run.extend(256, parallel=parallel)


def _grimdark(parallel: bool) -> None:
    from .config import SERIAL_MAX
    from .grimdark.engine import grimdark_simulate
    from .grimdark.model import Attacker, Defender, Weapon, WeaponGroup

    robots = Attacker((WeaponGroup(5, Weapon(attacks=1)),), quality=4)
    # past SERIAL_MAX random numbers a run takes the parallel driver
    grimdark_simulate(robots, Defender(models=5, defense=4), trials=SERIAL_MAX + 1 if parallel else 256, seed=0)


def _melee() -> None:
    from .grimdark.melee import Fighter, Melee
    from .grimdark.melee_engine import melee_simulate
    from .grimdark.model import Defender, Weapon, WeaponGroup

    blades = (WeaponGroup(3, Weapon("Blade", attacks=1, melee=True)),)
    melee_simulate(Melee(Fighter(blades, 4, Defender(3)), Fighter(blades, 4, Defender(3))), 256, seed=0)


#: Games of each built-in scenario played to compile the scenario kernels.
SCENARIO_GAMES = 20


def _scenarios() -> None:
    from .scenario import simulate
    from .scenario.loader import builtin_scenarios

    for path in builtin_scenarios():
        simulate(Path(path), trials=SCENARIO_GAMES, seed=0, workers=1)


#: (what is compiled, the kernel groups of :data:`mathhammer.jit.KERNELS` it fills, the step)
STEPS: tuple[tuple[str, tuple[str, ...], Callable[[], None]], ...] = (
    ("StarCraft TMG Monte Carlo, single thread", ("starcraft",), lambda: _starcraft(False)),
    ("StarCraft TMG Monte Carlo, parallel driver", ("starcraft-parallel",), lambda: _starcraft(True)),
    ("Grimdark Future Monte Carlo, single thread", ("grimdark",), lambda: _grimdark(False)),
    ("Grimdark Future Monte Carlo, parallel driver", ("grimdark-parallel",), lambda: _grimdark(True)),
    ("Grimdark Future melee Monte Carlo", ("grimdark-melee",), _melee),
    ("scenario engine and battlefield geometry", ("scenario-check", "scenario"), _scenarios),
)


def warmup(processes: int | None = None) -> Iterator[tuple[str, int, float]]:
    """Compile the missing kernels in ``processes`` processes at once (default: every core), then run every step;
    yields (what, kernels that were not in the cache before, seconds): the compile ahead (when it compiled any),
    then each step."""
    jit.silence()
    start = time.perf_counter()
    ahead = jit.compile_ahead([g for _, groups, _ in STEPS for g in groups], processes)
    if ahead.kernels:
        what = f"every kernel, {ahead.processes} processes at once"
        yield what, ahead.kernels, time.perf_counter() - start
    for what, groups, step in STEPS:
        missing = len({k for g in groups for k in jit.missing(g)})
        start = time.perf_counter()
        step()
        yield what, missing, time.perf_counter() - start


def signatures() -> dict[str, list[str]]:
    """Run every step in this process (no compile ahead); the argument types each kernel of
    :data:`mathhammer.jit.KERNELS` was called with, as numba's type reprs.

    Run it where numba's cache already holds the kernels (after ``mathhammer warmup``): a kernel loaded from the
    cache compiles none of the kernels it calls, so each kernel lists only the types Python calls it with (one that
    a kernel calls is compiled into it, in the process that compiles the caller).
    """
    jit.silence()
    for _, _, step in STEPS:
        step()
    table: dict[str, list[str]] = {}
    for group in jit.KERNELS.values():
        for module, function in group:
            dispatcher = getattr(importlib.import_module(jit.module_name(module)), function)
            table[f"{module}:{function}"] = [repr(sig) for sig in dispatcher.signatures]
    return table


HEADER = """\
# The argument types numba compiles each kernel of mathhammer/jit.py's KERNELS for, as `mathhammer warmup`'s steps
# call them (numba's type reprs, read back by mathhammer.jit.compile_ahead, which compiles them in one process a
# core before a first run): the types Python calls them with. Written by `python -m mathhammer.warmup --signatures >
# mathhammer/kernel_signatures.toml`; tests/test_compile_ahead.py holds the scenario kernels' to a run.

[signatures]
"""


def signatures_toml(table: dict[str, list[str]]) -> str:
    """:data:`HEADER` and ``table`` in TOML (the reprs hold no double quote)."""
    lines = [HEADER.rstrip("\n")]
    for kernel, sigs in table.items():
        lines += [f'"{kernel}" = [', *(f'    "{sig}",' for sig in sigs), "]"]
    return "\n".join(lines) + "\n"


__all__ = ["STEPS", "signatures", "signatures_toml", "warmup"]

if __name__ == "__main__" and sys.argv[1:] == ["--signatures"]:
    import subprocess

    subprocess.run([sys.executable, "-m", "mathhammer", "warmup"], stdout=subprocess.DEVNULL, check=True)
    print(signatures_toml(signatures()), end="")
