"""The cells of a sweep: every (attacker, target, phase) of two armies or of a roster.

A :class:`Cell` holds what an engine needs (the Batches and the target, or a
Grimdark Future attacker and defender), the Supply each number of models
destroyed removes, and a stable ``key`` naming the matchup. Its seed is
derived from the sweep's seed and that key (:func:`cell_seed`), so a cell's
numbers do not depend on which other cells run, in what order, or where.

>>> cell_seed(0, "starcraft|assault|6 Marine|8 Zergling") == cell_seed(0, "starcraft|assault|6 Marine|8 Zergling")
True
>>> cell_seed(0, "a") != cell_seed(1, "a") != cell_seed(0, "b")
True
>>> supply_left([((1, 3), 0), ((4, 6), 1), ((7, 9), 2)], 9, 2, 5)
1
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import InputError

PHASES = ("assault", "combat")
#: How each system names the two phases in tables.
PHASE_NAMES = {
    "starcraft": {"assault": "Assault Phase (ranged)", "combat": "Combat Phase"},
    "grimdark": {"assault": "shooting", "combat": "melee"},
}


def cell_seed(seed: int, key: str) -> int:
    """The Monte Carlo seed of one cell: a 63-bit hash (BLAKE2b) of the sweep's seed and the cell's key."""
    digest = hashlib.blake2b(f"{int(seed)}\x1f{key}".encode(), digest_size=8, person=b"mh-report").digest()
    return int.from_bytes(digest, "little") >> 1


def supply_left(brackets: Sequence[tuple[tuple[int, int], int]], full: int, full_supply: int, alive: int) -> int:
    """A unit's Supply with ``alive`` models left: the card's Models/Supply bracket holding ``alive``.

    The whole unit has its composition's Supply; no models left, no Supply.
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


@dataclass(frozen=True)
class Side:
    """One unit as bought: how the tables show it, what it costs, its Supply."""

    label: str  # "9 Marine (AGG-12)"
    unit: str
    models: int
    upgrades: str
    cost: int  # minerals (StarCraft TMG) or points (Grimdark Future)
    supply: float  # starting Supply (NaN in Grimdark Future)
    removed: tuple[float, ...]  # Supply removed when k models are destroyed, k = 0..models
    source: str = ""


@dataclass(frozen=True)
class Cell:
    """One attacker against one target in one phase.

    Attributes:
        key: names the matchup (system, phase, both labels, distance); the seed comes from it.
        system: ``"starcraft"`` or ``"grimdark"``.
        phase: ``"assault"`` or ``"combat"``.
        attack: the engine's input: ``(batches, target)`` or ``(attacker, defender)``; None
            when the attacker has no weapon for this target in this phase.
        removed: Supply removed by k models destroyed (k = 0..models of the target).
        meta: the row's descriptive columns.
    """

    key: str
    system: str
    phase: str
    attack: Any
    removed: tuple[float, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def batches(self) -> int:
        if self.attack is None:
            return 0
        return len(self.attack[0]) if self.system == "starcraft" else len(self.attack[0].groups)


@dataclass
class Plan:
    """The cells of a sweep and what the report says about where they came from."""

    system: str
    mode: str  # "armies" or "roster"
    cells: list[Cell]
    sides: list[str]
    sources: list[dict[str, Any]]
    armies: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- sources


def file_source(path: str | Path) -> dict[str, Any]:
    """A profile or army file: its name, SHA-256 (first 12 hex digits) and its ``[source]`` table if any."""
    p = Path(path)
    data = p.read_bytes()
    out: dict[str, Any] = {"file": str(p), "sha256": hashlib.sha256(data).hexdigest()[:12]}
    try:
        src = tomllib.loads(data.decode("utf-8")).get("source", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):  # pragma: no cover - loaded already
        src = {}
    if isinstance(src, dict):
        out.update({k: str(v) for k, v in src.items() if k in ("document", "version")})
    return out


# ----------------------------------------------------------------------------- StarCraft TMG


def _other_system(path: str | Path, system: str) -> str | None:
    """A problem line when ``path`` is plainly a file of the other system (else None: the loader reports)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    name = Path(path).name
    if system == "starcraft" and isinstance(data.get("units"), dict) and "faction" not in data:
        return (
            f'{name}: a Grimdark Future unit file ([units."Name"] tables); allowed: a StarCraft TMG army list '
            "(profiles/armies/README.md) (or add --system grimdark)"
        )
    if system == "grimdark" and "faction" in data and isinstance(data.get("units"), list):
        return (
            f"{name}: a StarCraft TMG army list; allowed: a Grimdark Future unit file (profiles/grimdark/README.md) "
            "(or leave out --system grimdark)"
        )
    return None


def _sc_side(lo: Any, prefix: str = "") -> Side:
    card = lo.unit.card
    comp = next(c for c in card.compositions if c.models == lo.models)
    brackets = [(tuple(b.models), b.supply) for b in card.supply]
    removed = tuple(
        float(comp.supply - supply_left(brackets, lo.models, comp.supply, lo.models - k)) for k in range(lo.models + 1)
    )
    ups = " + ".join(u.name for u in lo.upgrades) or "-"
    return Side(prefix + lo.label, lo.name, lo.models, ups, lo.minerals, float(comp.supply), removed, lo.unit.source)


def _sc_cells(
    attackers: Sequence[tuple[Side, Any]],
    targets: Sequence[tuple[Side, Any]],
    side: str,
    distance: float | None,
) -> list[Cell]:
    from ..starcraft.loadout import as_target, attack_batches

    cells = []
    for a_side, a_lo in attackers:
        for t_side, t_lo in targets:
            for phase in PHASES:
                batches = attack_batches(a_lo, t_lo.unit, phase, distance if phase == "assault" else None)
                target = as_target(t_lo, phase)
                key = f"starcraft|{phase}|{a_lo.label}|{t_lo.label}|{distance}"
                cells.append(
                    Cell(
                        key,
                        "starcraft",
                        phase,
                        (tuple(batches), target) if batches else None,
                        t_side.removed,
                        _meta(side, phase, "starcraft", a_side, t_side),
                    )
                )
    return cells


def _meta(side: str, phase: str, system: str, a: Side, t: Side) -> dict[str, Any]:
    return {
        "side": side,
        "phase": phase,
        "phase_name": PHASE_NAMES[system][phase],
        "attacker": a.label,
        "attacker_unit": a.unit,
        "attacker_models": a.models,
        "attacker_upgrades": a.upgrades,
        "attacker_cost": a.cost,
        "attacker_supply": a.supply,
        "target": t.label,
        "target_unit": t.unit,
        "target_models": t.models,
        "target_cost": t.cost,
        "target_supply": t.supply,
    }


def _labelled(sides: list[Side], los: list[Any]) -> list[tuple[Side, Any]]:
    """Number repeated labels (two identical units of one army): "12 Zergling #2"."""
    seen: dict[str, int] = {}
    out = []
    for s, lo in zip(sides, los, strict=True):
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s = replace(s, label=f"{s.label} #{seen[s.label]}")
        out.append((s, lo))
    return out


def starcraft_armies(
    a: str | Path, b: str | Path, profiles: Sequence[str | Path] = (), distance: float | None = None
) -> Plan:
    """Both army lists' units against each other, both directions and both phases.

    Raises:
        ArmyError: a file cannot be read, or a unit entry cannot be bought (unknown unit,
            composition or upgrade): every such problem, one line each.
    """
    from ..starcraft.army import ArmyError, check_army, load_army
    from ..starcraft.roster import load_roster

    roster = load_roster(profiles)
    loaded = []
    problems: list[str] = []
    for path in (a, b):
        other = _other_system(path, "starcraft")
        if other:
            problems.append(other)
            continue
        try:
            loaded.append((path, load_army(path)))
        except ArmyError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ArmyError(problems)
    armies = []
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
        sides = [_sc_side(lo) for lo in report.loadouts]
        forces.append((name, _labelled(sides, report.loadouts)))
        armies.append(
            {
                **file_source(path),
                "name": name,
                "faction": army.faction,
                "minerals": report.totals.minerals,
                "valid": report.valid,
                "problems": list(report.problems),
            }
        )
    if forces[0][0] == forces[1][0]:
        forces[1] = (forces[1][0] + " (2)", forces[1][1])
    (name_a, units_a), (name_b, units_b) = forces
    side_ab, side_ba = f"{name_a} → {name_b}", f"{name_b} → {name_a}"
    cells = _sc_cells(units_a, units_b, side_ab, distance) + _sc_cells(units_b, units_a, side_ba, distance)
    sources = [file_source(f) for f in roster.files]
    return Plan("starcraft", "armies", cells, [side_ab, side_ba], sources, armies, warnings)


def starcraft_roster(profiles: Sequence[str | Path] = (), distance: float | None = None) -> Plan:
    """Every unit of the roster (smallest composition, no upgrades) against every unit, both phases."""
    from ..starcraft.loadout import make_loadout
    from ..starcraft.roster import load_roster

    roster = load_roster(profiles)
    los = [make_loadout(u) for u in roster.units.values()]
    units = [(_sc_side(lo), lo) for lo in los]
    cells = _sc_cells(units, units, "roster", distance)
    return Plan("starcraft", "roster", cells, ["roster"], [file_source(f) for f in roster.files])


# ----------------------------------------------------------------------------- Grimdark Future


def _gf_side(u: Any) -> Side:
    nan = float("nan")
    return Side(f"{u.models} {u.name}", u.name, u.models, "-", u.points, nan, (nan,) * (u.models + 1), u.source)


def _gf_cells(attackers: Sequence[Any], targets: Sequence[Any], side: str, distance: float | None) -> list[Cell]:
    from ..grimdark.profiles import unit_attacker, unit_defender

    cells = []
    for a in attackers:
        for t in targets:
            a_side, t_side = _gf_side(a), _gf_side(t)
            for phase in PHASES:
                melee = phase == "combat"
                att = unit_attacker(a, melee, distance=None if melee else distance)
                key = f"grimdark|{phase}|{a_side.label}|{t_side.label}|{distance}"
                attack = None if att is None else (att, unit_defender(t))
                cells.append(
                    Cell(key, "grimdark", phase, attack, t_side.removed, _meta(side, phase, "grimdark", a_side, t_side))
                )
    return cells


def _gf_files(profiles: Sequence[str | Path]) -> list[Path]:
    from ..grimdark.profiles import builtin_dir
    from ..profiles.loader import toml_files

    files = sorted(builtin_dir().glob("*.toml"))
    for p in profiles:
        files += toml_files(Path(p), "no such file or folder")
    return files


def grimdark_lists(
    a: str | Path, b: str | Path, profiles: Sequence[str | Path] = (), distance: float | None = None
) -> Plan:
    """Two Grimdark Future unit files (``profiles/grimdark/README.md`` format, e.g. from ``import-opr``):
    every unit of one against every unit of the other, both directions, shooting and melee."""
    from ..grimdark.profiles import load_file, load_units
    from ..profiles.loader import ProfileError

    load_units(profiles)  # the user's --profiles are checked as for every command
    forces = []
    problems: list[str] = []
    for path in (a, b):
        p = Path(path)
        if not p.is_file():
            problems.append(f"{p}: no such file; allowed: a Grimdark Future unit file (TOML)")
            continue
        other = _other_system(p, "grimdark")
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
    name_a, name_b = pa.stem, pb.stem if pb.stem != pa.stem else pb.stem + " (2)"
    side_ab, side_ba = f"{name_a} → {name_b}", f"{name_b} → {name_a}"
    cells = _gf_cells(list(ua.values()), list(ub.values()), side_ab, distance)
    cells += _gf_cells(list(ub.values()), list(ua.values()), side_ba, distance)
    armies = [
        {**file_source(p), "name": n, "points": sum(u.points for u in us.values()), "valid": True, "problems": []}
        for p, n, us in ((pa, name_a, ua), (pb, name_b, ub))
    ]
    sources = [file_source(f) for f in _gf_files(profiles)]
    return Plan("grimdark", "armies", cells, [side_ab, side_ba], sources, armies)


def grimdark_roster(profiles: Sequence[str | Path] = (), distance: float | None = None) -> Plan:
    """Every Grimdark Future unit of the profiles against every unit, shooting and melee."""
    from ..grimdark.profiles import load_units

    units = list(load_units(profiles).values())
    cells = _gf_cells(units, units, "roster", distance)
    return Plan("grimdark", "roster", cells, ["roster"], [file_source(f) for f in _gf_files(profiles)])


def plan(
    armies: Sequence[str | Path] = (),
    *,
    roster: bool = False,
    system: str = "starcraft",
    profiles: Sequence[str | Path] = (),
    distance: float | None = None,
) -> Plan:
    """The cells of a report: two armies (``armies=[A, B]``) or the whole roster (``roster=True``)."""
    from .. import systems

    name = systems.get(system).name
    if roster and armies:
        raise InputError("--roster", "with army files", "either two army files or --roster, not both")
    if not roster and len(armies) != 2:
        raise InputError("ARMY", " ".join(map(str, armies)) or "(none)", "two army files (ARMY_A ARMY_B), or --roster")
    if name not in PHASE_NAMES:  # pragma: no cover - a third system
        raise InputError("--system", system, ", ".join(PHASE_NAMES))
    if name == "starcraft":
        return (
            starcraft_roster(profiles, distance)
            if roster
            else starcraft_armies(armies[0], armies[1], profiles, distance)
        )
    return grimdark_roster(profiles, distance) if roster else grimdark_lists(armies[0], armies[1], profiles, distance)


__all__ = ["Cell", "Plan", "Side", "cell_seed", "plan", "supply_left"]
