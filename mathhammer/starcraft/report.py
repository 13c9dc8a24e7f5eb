"""StarCraft TMG's cells of an army-efficiency report (``mathhammer report``): its hook of the contract,
:meth:`~mathhammer.systems.GameSystem.report_plan`.

Two army lists (``docs/army.md``) face each other, both ways, or every unit of the
roster (smallest composition, no upgrades) faces every unit: in the Assault Phase (ranged) and the
Combat Phase, from full units. A unit's slot is its Supply: the Supply a target loses when k of its
models are destroyed comes from its card's Models/Supply brackets (:func:`side_of`).

>>> from mathhammer.starcraft.system import SYSTEM
>>> marines = SYSTEM.loadout(SYSTEM.load_roster(), "Marine", 9)
>>> side_of(marines).removed
(0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cells import PHASES, Cell, Plan, Side, facing, file_source, labelled, toml_table

if TYPE_CHECKING:  # pragma: no cover
    from ..systems import GameSystem

SYSTEM_NAME = "starcraft"


def supply_left(brackets: Sequence[tuple[tuple[int, int], int]], full: int, full_supply: int, alive: int) -> int:
    """A unit's Supply with ``alive`` models left: the card's Models/Supply bracket holding ``alive``.

    The whole unit has its composition's Supply; no models left, no Supply.

    >>> supply_left([((1, 3), 0), ((4, 6), 1), ((7, 9), 2)], 9, 2, 5)
    1
    """
    if alive <= 0:
        return 0
    if alive >= full:
        return full_supply
    for (lo, hi), supply in brackets:
        if lo <= alive <= hi:
            return supply
    below = [s for (lo, _hi), s in brackets if lo <= alive]  # a gap between brackets: the one below
    return below[-1] if below else 0


def other_system(path: str | Path) -> str | None:
    """A problem line when ``path`` is plainly a Grimdark Future unit file (else None: the loader reports)."""
    data = toml_table(path)
    if data is not None and isinstance(data.get("units"), dict) and "faction" not in data:
        return (
            f'{Path(path).name}: a Grimdark Future unit file ([units."Name"] tables); allowed: a StarCraft TMG army '
            "list (docs/army.md) (or add --system grimdark)"
        )
    return None


def side_of(lo: Any) -> Side:
    """A loadout as a report's Side: minerals, Supply, and the Supply removed by k models destroyed."""
    card = lo.unit.card
    comp = next(c for c in card.compositions if c.models == lo.models)
    brackets = [(tuple(b.models), b.supply) for b in card.supply]
    removed = tuple(
        float(comp.supply - supply_left(brackets, lo.models, comp.supply, lo.models - k)) for k in range(lo.models + 1)
    )
    ups = " + ".join(u.name for u in lo.upgrades) or "-"
    return Side(lo.label, lo.name, lo.models, ups, lo.minerals, float(comp.supply), removed, lo.unit.source)


def cells(
    game: GameSystem,
    attackers: Sequence[tuple[Side, Any]],
    targets: Sequence[tuple[Side, Any]],
    side: str,
    distance: float | None,
) -> list[Cell]:
    """Every attacker against every target, both phases (the ranged one at ``distance``), compiled by ``game``."""
    from .loadout import as_target, attack_batches

    out = []
    for a_side, a_lo in attackers:
        for t_side, t_lo in targets:
            for phase in PHASES:
                batches = attack_batches(a_lo, t_lo.unit, phase, distance if phase == "assault" else None)
                key = f"{SYSTEM_NAME}|{phase}|{a_lo.label}|{t_lo.label}|{distance}"
                compiled = game.wrap(batches, as_target(t_lo, phase)) if batches else None
                out.append(Cell(key, SYSTEM_NAME, side, phase, a_side, t_side, compiled, len(batches)))
    return out


def armies(
    game: GameSystem, a: str | Path, b: str | Path, profiles: Sequence[str | Path] = (), distance: float | None = None
) -> Plan:
    """Both army lists' units against each other, both directions and both phases.

    Raises:
        ArmyError: a file cannot be read, or a unit entry cannot be bought (unknown unit,
            composition or upgrade): every such problem, one line each.
    """
    from .army import ArmyError, check_army, load_army
    from .roster import load_roster

    roster = load_roster(profiles)
    loaded = []
    problems: list[str] = []
    for path in (a, b):
        other = other_system(path)
        if other:
            problems.append(other)
            continue
        try:
            loaded.append((path, load_army(path)))
        except ArmyError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ArmyError(problems)
    described = []
    warnings: list[str] = []
    forces: list[tuple[str, list[tuple[Side, Any]]]] = []
    for path, army in loaded:
        report = check_army(army, roster)
        if len(report.loadouts) != len(army.units) or not army.units:
            unit_problems = [p for p in report.problems if p.startswith(f"{army.file}: units[")]
            if not army.units:
                unit_problems = [f"{army.file}: units: none; allowed: at least one [[units]] entry"]
            raise ArmyError(unit_problems or report.problems)
        warnings.extend(report.problems)  # army-building violations: reported, not fatal
        name = army.name or Path(path).stem
        sides = [side_of(lo) for lo in report.loadouts]
        forces.append((name, labelled(sides, report.loadouts)))
        described.append(
            {
                **file_source(path),
                "name": name,
                "faction": army.faction,
                "minerals": report.totals.minerals,
                "valid": report.valid,
                "problems": list(report.problems),
            }
        )
    (name_a, units_a), (name_b, units_b) = forces
    _, side_ab, side_ba = facing(name_a, name_b)
    both = cells(game, units_a, units_b, side_ab, distance) + cells(game, units_b, units_a, side_ba, distance)
    sources = [file_source(f) for f in roster.files]
    return Plan(SYSTEM_NAME, "armies", both, [side_ab, side_ba], sources, described, warnings)


def roster_plan(game: GameSystem, profiles: Sequence[str | Path] = (), distance: float | None = None) -> Plan:
    """Every unit of the roster (smallest composition, no upgrades) against every unit, both phases."""
    from .loadout import make_loadout
    from .roster import load_roster

    roster = load_roster(profiles)
    los = [make_loadout(u) for u in roster.units.values()]
    units = [(side_of(lo), lo) for lo in los]
    return Plan(
        SYSTEM_NAME,
        "roster",
        cells(game, units, units, "roster", distance),
        ["roster"],
        [file_source(f) for f in roster.files],
    )


def report_plan(
    game: GameSystem, paths: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
) -> Plan:
    """The report's cells: the roster, or two army lists (``paths``); ``game`` (StarCraft TMG) compiles them."""
    if roster:
        return roster_plan(game, profiles, distance)
    return armies(game, paths[0], paths[1], profiles, distance)


__all__ = ["armies", "cells", "other_system", "report_plan", "roster_plan", "side_of"]
