"""The Python API: one line per question, the same for every game system.

>>> import mathhammer as mh
>>> r = mh.attack("Marine", "Zergling", models=9, target_models=18, range=10)
>>> r.damage.mean > 0, 0 <= r.unit_destroyed <= 1
(True, True)
>>> g = mh.attack("Robot Warriors", "Saurian Warriors", system="grimdark", cover=True)
>>> round(g.wounds.mean, 4), round(g.morale_test_due, 4) >= 0
(1.25, True)
>>> mh.unit("Marine", models=9, upgrades=["AGG-12"])
<Loadout 9 Marine (AGG-12), 220 minerals>

The ad-hoc objects of either system go to :func:`run`:

>>> from mathhammer import Weapon, Batch, Target, run
>>> rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, surge="Light:D3")
>>> lings = Target.build(8, 1, armour=6, evade=5, tags="Biological,Light,Ground")
>>> r = run(Batch(rifle, models=6), lings)
>>> round(r.damage.mean, 4), r.engine
(7.0, 'exact')
>>> mc = run(Batch(rifle, models=6), lings, trials=200_000, seed=1)
>>> abs(mc.damage.mean - r.damage.mean) < 5 * mc.damage.stderr
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import systems
from .engine.options import RunOptions
from .errors import InputError
from .results import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["attack", "compare", "matchup", "roster", "run", "unit"]

Profiles = Sequence[str | Path] | str | Path


def _profiles(profiles: Profiles) -> list[str | Path]:
    return [profiles] if isinstance(profiles, str | Path) else list(profiles)


def roster(system: str = "starcraft", profiles: Profiles = ()) -> Any:
    """The units of a system: the built-in ones and those of ``profiles`` (folders or files)."""
    game = systems.get(system)
    return game.load_roster(_profiles(profiles))


def run(
    attack: Any,
    target: Any = None,
    *,
    engine: str | None = None,
    trials: int | None = None,
    seed: int = 0,
    tolerance: float | None = None,
    threads: int | None = None,
    method: str = "count",
    label: str | None = None,
    tolerance_on: str = "both",
) -> Result:
    """Resolve an attack made of a system's own objects, exactly or by Monte Carlo.

    Args:
        attack: StarCraft TMG: a ``Batch``, a sequence of Batches resolved in order (8.7.3) or an
            ``Attack``; Grimdark Future: an ``Attacker``, or a ``Melee`` (a charge resolved both ways, no
            ``target``). Or an attack a system compiled.
        target: the target: a StarCraft ``Target`` or a Grimdark ``Defender``.
        engine: ``"exact"`` or ``"monte-carlo"``; by default exact unless ``trials`` or ``tolerance``.
        trials, seed, tolerance, threads, method: the run (:class:`~mathhammer.engine.options.RunOptions`).
        label: a name for tables and plots.
        tolerance_on: ``"both"``, or only ``"dealt"`` (``"damage"``) or ``"p_destroy"``.
    """
    options = RunOptions.build(engine, trials, seed, tolerance, threads, method)
    watch = {"both": "both", "damage": "dealt", "dealt": "dealt", "p_destroy": "p_destroy"}.get(tolerance_on)
    if watch is None:
        raise InputError("tolerance_on", tolerance_on, "both, dealt or p_destroy")
    for name in systems.names():
        game = systems.get(name)
        compiled = game.wrap(attack, target, label)
        if compiled is not None:
            return systems.run(game, compiled, options, label, watch)
    raise InputError(
        "attack",
        type(attack).__name__,
        "a StarCraft Batch, Batches or Attack (with a Target), or a Grimdark Attacker (with a Defender) or Melee",
    )


def attack(
    attacker: str,
    target: str,
    *,
    system: str = "starcraft",
    profiles: Profiles = (),
    models: int | None = None,
    target_models: int | None = None,
    upgrades: Sequence[str] = (),
    use: Sequence[str] = (),
    target_upgrades: Sequence[str] = (),
    target_use: Sequence[str] = (),
    phase: str | None = None,
    range: float | None = None,
    engine: str | None = None,
    trials: int | None = None,
    seed: int = 0,
    tolerance: float | None = None,
    threads: int | None = None,
    **options: Any,
) -> Result:
    """One named unit attacks another: the Result in the system's words.

    Args:
        attacker, target: unit names (case-insensitive; an unknown name gets a suggestion).
        system: ``"starcraft"`` (``"sc"``) or ``"grimdark"`` (``"gf"``).
        profiles: extra profile folders or files.
        models, target_models: the models bought (a composition) or fielded.
        upgrades, use, target_upgrades, target_use: upgrades bought and abilities switched on.
        phase: StarCraft ``"assault"`` or ``"combat"``; Grimdark ``"shooting"`` or ``"melee"``.
        range: inches between the units.
        engine, trials, seed, tolerance, threads: the run; exact by default.
        options: the system's situation switches (``mathhammer.systems.get(system).options``):
            StarCraft ``evade_eligible=True``, ``target_left=4``, ...; Grimdark ``cover=True``,
            ``charging=True``, ``hero="Field Commander"``. Any other is refused.
    """
    game = systems.get(system)
    run_options = RunOptions.build(engine, trials, seed, tolerance, threads)
    query = systems.Query(
        attacker, target, models, target_models, tuple(upgrades), tuple(use), tuple(target_upgrades),
        tuple(target_use), phase, range, options,
    )  # fmt: skip
    compiled = game.compile(game.load_roster(_profiles(profiles)), query)
    return systems.run(game, compiled, run_options)


def unit(
    name: str,
    *,
    system: str = "starcraft",
    profiles: Profiles = (),
    models: int | None = None,
    upgrades: Sequence[str] = (),
    use: Sequence[str] = (),
) -> Any:
    """A unit as bought (a loadout): its models, upgrades and abilities switched on; a one-line repr."""
    game = systems.get(system)
    return game.loadout(game.load_roster(_profiles(profiles)), name, models, tuple(upgrades), tuple(use), "name")


def compare(
    unit: str,
    vs: Sequence[str] | str,
    *,
    system: str = "starcraft",
    profiles: Profiles = (),
    compositions: Sequence[int] = (),
    upgrades: Sequence[str] | None = None,
    use: Sequence[str] = (),
    phase: str | None = None,
    range: float | None = None,
    rank_by: str = "kills-per-100",
    engine: str | None = None,
    trials: int | None = None,
    seed: int = 0,
    tolerance: float | None = None,
    threads: int | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Every loadout of ``unit`` (compositions x upgrade combinations) against each target of ``vs``
    (``"NAME"`` or ``"NAME:MODELS"``): a pandas DataFrame, one row per loadout and target, ranked per target."""
    import pandas as pd

    game = systems.get(system)
    run_options = RunOptions.build(engine, trials, seed, tolerance, threads)
    targets = [vs] if isinstance(vs, str) else list(vs)
    query = systems.Query(
        unit, targets[0] if targets else "", use=tuple(use), phase=phase, distance=range, options=options
    )
    rows = game.compare(
        game.load_roster(_profiles(profiles)), unit, targets, query, run_options, tuple(compositions),
        None if upgrades is None else list(upgrades), rank_by,
    )  # fmt: skip
    return pd.DataFrame(rows)


def matchup(
    a: str,
    b: str,
    *,
    system: str = "starcraft",
    profiles: Profiles = (),
    a_models: int | None = None,
    b_models: int | None = None,
    a_upgrades: Sequence[str] = (),
    b_upgrades: Sequence[str] = (),
    a_use: Sequence[str] = (),
    b_use: Sequence[str] = (),
    range: float | None = None,
    engine: str | None = None,
    trials: int | None = None,
    seed: int = 0,
    tolerance: float | None = None,
    threads: int | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Both directions, every phase: a pandas DataFrame, one row per (attacker, target, phase)."""
    import pandas as pd

    game = systems.get(system)
    run_options = RunOptions.build(engine, trials, seed, tolerance, threads)
    query = systems.Query(
        a, b, a_models, b_models, tuple(a_upgrades), tuple(a_use), tuple(b_upgrades), tuple(b_use),
        None, range, options,
    )  # fmt: skip
    return pd.DataFrame(game.matchup(game.load_roster(_profiles(profiles)), query, run_options))
