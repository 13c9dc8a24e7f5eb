"""What a Grimdark Future attack reports, in the core rules' words: the system's declared outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..outcome import Outcome, Tally
from ..results import Result


@dataclass(frozen=True, eq=False, kw_only=True)
class Described:
    """What every compiled Grimdark Future attack carries for people.

    Attributes:
        label: a short description.
        notes: rules without effect here, weapons skipped, picks made.
        loadout: the units used, for JSON (empty for an ad-hoc attack).
        head: the first line of the text report.
    """

    label: str
    notes: tuple[str, ...] = ()
    loadout: dict[str, Any] = field(default_factory=dict)
    head: str = ""


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
    # a melee resolved both ways: the charger's side ([BG 3.4.1] Melee Winner, Morale from Melee)
    Outcome("melee_won", "P(the charger wins the melee)", "flag", "melee_won", optional=True),
    Outcome("melee_drawn", "P(the melee is a tie)", "flag", "melee_drawn", optional=True),
    Outcome("melee_lost", "P(the charger loses the melee)", "flag", "melee_lost", optional=True),
    Outcome(
        "attacker_wounds",
        "Wounds on the charger (strikes back)",
        "table",
        "attacker_wounds",
        unit="wounds",
        trim=True,
        optional=True,
    ),
    Outcome(
        "attacker_models_destroyed",
        "Charger's models destroyed",
        "table",
        "attacker_models_destroyed",
        unit="models",
        optional=True,
    ),
    Outcome("attacker_test_due", "P(the charger lost and tests morale)", "flag", "attacker_test_due", optional=True),
    Outcome("attacker_shaken", "P(the charger is Shaken)", "flag", "attacker_shaken", optional=True),
    Outcome("attacker_routed", "P(the charger Routs)", "flag", "attacker_routed", optional=True),
)


def result(tally: Tally, models: int, seed: int | None, label: str) -> Result:
    """A Grimdark Future Result of an engine's Tally; ``models`` counts a joined hero."""
    engine = "exact" if tally.exact else "monte-carlo"
    return Result(engine, tally, models, None if tally.exact else seed, label, OUTCOMES, SYSTEM)


def hero_json(hero: Any) -> dict[str, Any]:
    """A joined hero in an attack's loadout JSON (a Grimdark Future unit profile)."""
    return {
        "unit": hero.name, "tough": hero.tough, "defense": hero.defense, "quality": hero.quality,
        "points": hero.points, "source": hero.source,
    }  # fmt: skip
