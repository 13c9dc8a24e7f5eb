"""What a StarCraft TMG attack reports, in the rulebook's words (8.7.4): the system's declared outcomes."""

from __future__ import annotations

from ..outcome import Outcome, Tally
from ..results import Result

SYSTEM = "starcraft"

#: The outcomes of an attack, in the order of ``mathhammer attack --json``.
OUTCOMES = (
    Outcome("damage", "Damage dealt", "table", "damage", unit="damage", trim=True),
    Outcome("models_destroyed", "Models destroyed", "table", "models_destroyed", unit="models"),
    Outcome("unit_destroyed", "P(unit destroyed)", "last", "models_destroyed"),
    Outcome("damage_marker", "Damage Marker", "pmf", "marker", trim=True),
    Outcome("shielded_after", "P(still SHIELDED)", "flag", "shielded"),
)


def result(tally: Tally, models: int, seed: int | None, label: str) -> Result:
    """A StarCraft Result of an engine's Tally (the seed is kept for Monte Carlo only)."""
    engine = "exact" if tally.exact else "monte-carlo"
    return Result(engine, tally, models, None if tally.exact else seed, label, OUTCOMES, SYSTEM)
