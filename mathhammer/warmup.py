"""``mathhammer warmup``: compile every numba kernel the command line can use, ahead of the first real run.

Each step runs a small real computation through the same code as the commands, so numba compiles (and caches
on disk) exactly the signatures they use: StarCraft TMG's Monte Carlo counts (single-thread and parallel drivers;
count and die methods; with and without the casualty table), Grimdark Future's Monte Carlo attacks (both
drivers) and melee, and the scenario engine's kernels (the battlefield geometry included) by a few games of
each built-in scenario. Reports (``mathhammer report``) and ``compare``/``matchup`` run these same kernels.
A second warmup loads everything from the cache and is quick.
"""

from __future__ import annotations

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


def warmup() -> Iterator[tuple[str, int, float]]:
    """Run every step; yields (what, kernels that were not in the cache before, seconds) after each."""
    jit.silence()
    for what, groups, step in STEPS:
        missing = len({k for g in groups for k in jit.missing(g)})
        start = time.perf_counter()
        step()
        yield what, missing, time.perf_counter() - start


__all__ = ["STEPS", "warmup"]
