"""Grimdark Future's cells of an army-efficiency report (``mathhammer report --system gf``): its hook of
the contract, :meth:`~mathhammer.systems.GameSystem.report_plan`.

Two unit files (``docs/grimdark.md`` format, e.g. from ``import-opr``) face each other, both
ways, or every unit of the profiles faces every unit: shooting (the report's ranged phase) and melee,
from full units. A unit's cost is its points; Grimdark Future has no slots, so a Side has none.

>>> from mathhammer.grimdark.system import SYSTEM
>>> side = side_of(SYSTEM.find_unit(SYSTEM.load_roster(), "Robot Warriors"))
>>> side.label, side.cost > 0, side.slot, side.removed
('5 Robot Warriors', True, nan, ())
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cells import PHASES, Cell, Plan, Side, facing, file_source, toml_table

if TYPE_CHECKING:  # pragma: no cover
    from ..systems import GameSystem

SYSTEM_NAME = "grimdark"


def other_system(path: str | Path) -> str | None:
    """A problem line when ``path`` is plainly a StarCraft TMG army list (else None: the loader reports)."""
    data = toml_table(path)
    if data is not None and "faction" in data and isinstance(data.get("units"), list):
        return (
            f"{Path(path).name}: a StarCraft TMG army list; allowed: a Grimdark Future unit file "
            "(docs/grimdark.md) (or leave out --system grimdark)"
        )
    return None


def side_of(unit: Any) -> Side:
    """A unit as a report's Side: its models and points (no slot)."""
    return Side(f"{unit.models} {unit.name}", unit.name, unit.models, "-", unit.points, source=unit.source)


def cells(
    game: GameSystem, attackers: Sequence[Any], targets: Sequence[Any], side: str, distance: float | None
) -> list[Cell]:
    """Every attacker against every target, shooting (at ``distance``) and melee, compiled by ``game``.

    A melee cell is a charge resolved both ways (:mod:`mathhammer.grimdark.melee`): Impact, Furious and
    the target's Counter apply, and the target strikes back."""
    from .melee import Melee
    from .profiles import unit_attacker, unit_defender, unit_fighter

    out = []
    for a in attackers:
        for t in targets:
            a_side, t_side = side_of(a), side_of(t)
            for phase in PHASES:
                melee = phase == "combat"
                attacker = unit_attacker(a, melee, distance=None if melee else distance)
                key = f"{SYSTEM_NAME}|{phase}|{a_side.label}|{t_side.label}|{distance}"
                if attacker is None:
                    compiled = None
                elif melee:
                    compiled = game.wrap(Melee(unit_fighter(a), unit_fighter(t)), label=f"{a.name} vs {t.name}")
                else:
                    compiled = game.wrap(attacker, unit_defender(t))
                batches = 0 if attacker is None else len(attacker.groups)
                out.append(Cell(key, SYSTEM_NAME, side, phase, a_side, t_side, compiled, batches))
    return out


def _files(profiles: Sequence[str | Path]) -> list[Path]:
    from ..profiles.loader import as_folder, toml_files
    from .profiles import builtin_dir

    files = sorted(builtin_dir().glob("*.toml"))
    for p in profiles:
        files += toml_files(as_folder(p), "no such file or folder")
    return files


def lists(
    game: GameSystem, a: str | Path, b: str | Path, profiles: Sequence[str | Path] = (), distance: float | None = None
) -> Plan:
    """Two unit files: every unit of one against every unit of the other, both directions, shooting and melee.

    Raises:
        ProfileError: a file is missing, is a StarCraft TMG army list, or cannot be read: every problem.
    """
    from ..profiles.loader import ProfileError
    from .profiles import load_file, load_units

    load_units(profiles)  # the user's --profiles are checked as for every command
    forces = []
    problems: list[str] = []
    for path in (a, b):
        p = Path(path)
        if not p.is_file():
            problems.append(f"{p}: no such file; allowed: a Grimdark Future unit file (TOML)")
            continue
        other = other_system(p)
        if other:
            problems.append(other)
            continue
        try:
            units = load_file(p)
        except ProfileError as exc:
            problems.extend(exc.problems)
            continue
        if not units:
            problems.append(f'{p.name}: units: none; allowed: at least one [units."Name"] table')
        forces.append((p, units))
    if problems:
        raise ProfileError(problems)
    (pa, ua), (pb, ub) = forces
    name_b, side_ab, side_ba = facing(pa.stem, pb.stem)
    both = cells(game, list(ua.values()), list(ub.values()), side_ab, distance)
    both += cells(game, list(ub.values()), list(ua.values()), side_ba, distance)
    described = [
        {**file_source(p), "name": n, "points": sum(u.points for u in us.values()), "valid": True, "problems": []}
        for p, n, us in ((pa, pa.stem, ua), (pb, name_b, ub))
    ]
    sources = [file_source(f) for f in _files(profiles)]
    return Plan(SYSTEM_NAME, "armies", both, [side_ab, side_ba], sources, described, import_warnings(forces))


def import_warnings(forces: Sequence[tuple[Path | None, Any]]) -> list[str]:
    """The warnings the import wrote on the units (``warnings = [...]``, ``mathhammer import-opr``), each
    once, with the file it is in."""
    out: list[str] = []
    for path, units in forces:
        for u in units.values():
            out.extend(f"{path.name}: {w}" if path is not None else w for w in u.warnings)
    return list(dict.fromkeys(out))


def roster_plan(game: GameSystem, profiles: Sequence[str | Path] = (), distance: float | None = None) -> Plan:
    """Every Grimdark Future unit of the profiles against every unit, shooting and melee."""
    from .profiles import load_units

    roster = load_units(profiles)
    units = list(roster.values())
    return Plan(
        SYSTEM_NAME,
        "roster",
        cells(game, units, units, "roster", distance),
        ["roster"],
        [file_source(f) for f in _files(profiles)],
        warnings=import_warnings([(None, roster)]),
    )


def report_plan(
    game: GameSystem, paths: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
) -> Plan:
    """The report's cells: the roster, or two unit files (``paths``); ``game`` (Grimdark Future) compiles them."""
    if roster:
        return roster_plan(game, profiles, distance)
    return lists(game, paths[0], paths[1], profiles, distance)


__all__ = ["cells", "import_warnings", "lists", "other_system", "report_plan", "roster_plan", "side_of"]
