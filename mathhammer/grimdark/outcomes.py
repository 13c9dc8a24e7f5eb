"""What a Grimdark Future attack reports, in the core rules' words: the system's declared outcomes."""

from __future__ import annotations

from ..outcome import Outcome, Tally
from ..results import Result

SYSTEM = "grimdark"

#: The outcomes of an attack, in the order of ``mathhammer attack --system gf --json``.
OUTCOMES = (
    Outcome("wounds", "Wounds", "table", "wounds", unit="wounds", trim=True),
    Outcome("models_destroyed", "Models destroyed", "table", "models_destroyed", unit="models"),
    Outcome("unit_destroyed", "P(unit destroyed)", "last", "models_destroyed"),
    Outcome("morale_test_due", "P(morale test due)", "flag", "morale_test_due"),
    Outcome("morale_passed", "P(morale test passed)", "flag", "morale_passed"),
    Outcome("morale_shaken", "P(Shaken: morale test failed)", "flag", "morale_shaken"),
    Outcome("morale_routed", "P(Routed)", "flag", "morale_routed"),
    Outcome("hero_wounds", "Wounds on the joined hero", "table", "hero_wounds", unit="wounds", optional=True),
)


def result(tally: Tally, models: int, seed: int | None, label: str) -> Result:
    """A Grimdark Future Result of an engine's Tally; ``models`` counts a joined hero."""
    engine = "exact" if tally.exact else "monte-carlo"
    return Result(engine, tally, models, None if tally.exact else seed, label, OUTCOMES, SYSTEM)
