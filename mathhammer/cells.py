"""The cells of a sweep: every (attacker, target, phase) of two armies or of a roster.

This module is the neutral side of the game-system contract's sweeps and knows no
game: each system builds the cells of its armies or roster
(:meth:`~mathhammer.systems.GameSystem.report_plan`, in ``mathhammer/<system>/report.py``)
from the data classes here (:func:`mathhammer.report.runner.plan` asks the system named).

A :class:`Cell` holds the system's compiled attack (what
:func:`mathhammer.systems.run` takes), the two :class:`Side` s as bought, and
a stable ``key`` naming the matchup. Its seed is derived from the sweep's seed
and that key (:func:`cell_seed`), so a cell's numbers do not depend on which
other cells run, in what order, or where.

>>> cell_seed(0, "starcraft|assault|6 Marine|8 Zergling") == cell_seed(0, "starcraft|assault|6 Marine|8 Zergling")
True
>>> cell_seed(0, "a") != cell_seed(1, "a") != cell_seed(0, "b")
True
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

#: The report's two phases: the ranged one and close combat (each system names them: ``ReportFigures.phases``).
PHASES = ("assault", "combat")


def cell_seed(seed: int, key: str) -> int:
    """The Monte Carlo seed of one cell: a 63-bit hash (BLAKE2b) of the sweep's seed and the cell's key."""
    digest = hashlib.blake2b(f"{int(seed)}\x1f{key}".encode(), digest_size=8, person=b"mh-report").digest()
    return int.from_bytes(digest, "little") >> 1


@dataclass(frozen=True)
class Side:
    """One unit as bought: how the tables show it, what it costs, its slot.

    Attributes:
        label: how the tables name it (``9 Marine (AGG-12)``).
        unit, models, upgrades: the unit's name, its models, its upgrades (``-``: none).
        cost: in the system's cost (``Words.cost``: minerals, points).
        slot: its starting slot (``Words.slot``: Supply); NaN for a system without slots.
        removed: the slot removed when k models are destroyed, k = 0..models; empty without slots.
        source: the profile file of the unit.
    """

    label: str
    unit: str
    models: int
    upgrades: str
    cost: int
    slot: float = float("nan")
    removed: tuple[float, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Cell:
    """One attacker against one target in one phase.

    Attributes:
        key: names the matchup (system, phase, both labels, distance); the seed comes from it.
        system: the system's name (``starcraft``).
        side: which way the armies face (``A → B``), or ``roster``.
        phase: ``"assault"`` (ranged) or ``"combat"`` (close).
        attacker, target: the two units as bought.
        compiled: the system's compiled attack (what :func:`mathhammer.systems.run` takes); None when
            the attacker has no weapon for this target in this phase.
        batches: the attack's parts (StarCraft's Batches, Grimdark's weapon groups): 0 without a weapon.
    """

    key: str
    system: str
    side: str
    phase: str
    attacker: Side
    target: Side
    compiled: Any
    batches: int = 0

    @property
    def removed(self) -> tuple[float, ...]:
        """The target's slot removed by k models destroyed (empty for a system without slots)."""
        return self.target.removed


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


# ----------------------------------------------------------------------------- helpers of the systems' plans


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


def toml_table(path: str | Path) -> dict[str, Any] | None:
    """A TOML file's top table; None when it cannot be read (the system's loader then says why)."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def labelled(sides: list[Side], units: list[Any]) -> list[tuple[Side, Any]]:
    """Number repeated labels (two identical units of one army): "12 Zergling #2"."""
    seen: dict[str, int] = {}
    out = []
    for s, unit in zip(sides, units, strict=True):
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s = replace(s, label=f"{s.label} #{seen[s.label]}")
        out.append((s, unit))
    return out


def facing(name_a: str, name_b: str) -> tuple[str, str, str]:
    """The second army's name (``B (2)`` when both have one name) and the two sides: ``A → B``, ``B → A``.

    >>> facing("Zerg", "Zerg")
    ('Zerg (2)', 'Zerg → Zerg (2)', 'Zerg (2) → Zerg')
    """
    if name_b == name_a:
        name_b += " (2)"
    return name_b, f"{name_a} → {name_b}", f"{name_b} → {name_a}"


__all__ = [
    "PHASES",
    "Cell",
    "Plan",
    "Side",
    "cell_seed",
    "facing",
    "file_source",
    "labelled",
    "toml_table",
]
