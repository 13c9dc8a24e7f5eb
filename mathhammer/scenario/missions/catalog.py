"""``profiles/missions.toml``: the Mission and Deployment Cards (9.2.1), validated when read.

A bad value is refused with one line naming the file, the field, the value and what is allowed
(``missions.toml: missions[0].points.opponent: got -1; allowed: greater than or equal to 0``); the ``scoring``
and ``every_round`` keys must name a registered kind (:mod:`.registry`), whose ``Points`` model checks the
card's ``[missions.points]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from ...errors import MathhammerError
from ...validate import read_toml, validation_problems
from . import kinds as _kinds  # noqa: F401  (registers the card kinds)
from .deployments import CardMarker, Layout, Preset, Zone, check_layout
from .registry import KINDS, ScoringKind

ALLOWED = "the Mission and Deployment Cards file (profiles/scenarios/README.md, Mission Cards)"


class CatalogError(MathhammerError):
    """Every problem found in a missions file, one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class MissionEntry(_Strict):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    scale: Literal["skirmish", "standard"]
    scoring: str = Field(min_length=1)
    every_round: list[str] = Field(default_factory=list)
    scoring_from_round: int = Field(ge=1, le=10)
    markers_activated: StrictBool
    starting_supply: int = Field(ge=0, le=99)
    supply_escalation: int = Field(ge=0, le=99)
    game_length: int = Field(ge=1, le=10)
    instant_win_lead: int = Field(ge=1, le=99)
    points: dict[str, Any] = Field(default_factory=dict)
    parameters: str = ""
    scoring_text: str = ""
    additional: str = ""


class DeploymentEntry(Layout):
    """A Deployment Card: its name, scale and battlefield, and its picture's layout (:mod:`.deployments`)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    scale: Literal["skirmish", "standard"]
    width: int = Field(gt=0, le=120)
    depth: int = Field(gt=0, le=120)


class CatalogFile(_Strict):
    source: str = ""
    missions: list[MissionEntry] = Field(min_length=1)
    deployments: list[DeploymentEntry] = Field(min_length=1)


@dataclass(frozen=True)
class MissionCard:
    """A Mission Card (9.2.1) from ``profiles/missions.toml``, with the scenario's overrides.

    ``rules``: its scoring kinds, the ``every_round`` ones first, then ``scoring`` (built from the card's data).
    """

    id: str
    name: str
    scale: str
    scoring: str
    starting_supply: int
    supply_escalation: int
    game_length: int
    instant_win_lead: int
    parameters: str
    scoring_text: str
    additional: str
    scoring_from_round: int = 1
    markers_activated: bool = True
    every_round: tuple[str, ...] = ()
    rules: tuple[ScoringKind, ...] = field(default=(), compare=False, repr=False)

    def supply_pool(self, round_no: int) -> int | None:
        """8.3.1: the starting Supply in Round 1, + Escalation each later Round; unlimited (None) in the final Round."""
        if round_no >= self.game_length:
            return None
        return self.starting_supply + self.supply_escalation * (round_no - 1)

    @property
    def gather_action(self) -> bool:
        """The card grants the Gather Action (Gather the Resources)."""
        return any(r.gather_action for r in self.rules)

    def scores_now(self, rule: ScoringKind, round_no: int) -> bool:
        """``rule`` scores in Round ``round_no``: an ``every_round`` kind always, the card's own from its Round."""
        return rule.key in self.every_round or round_no >= self.scoring_from_round


@dataclass(frozen=True)
class Catalog:
    """The validated cards: the file's entries (as dicts, for lookup by name) and each Mission Card built."""

    missions: list[dict[str, Any]]
    deployments: list[dict[str, Any]]
    cards: dict[str, MissionCard]


class _Errors:
    """A ValidationError's problems with their place in the file put in front (for :func:`validation_problems`)."""

    def __init__(self, exc: ValidationError, prefix: tuple[Any, ...]) -> None:
        self._errors = [{**e, "loc": (*prefix, *e["loc"])} for e in exc.errors(include_url=False)]

    def errors(self, include_url: bool = False) -> list[Any]:
        return self._errors


def _fields() -> list[str]:
    names: set[str] = set()
    models: list[type[BaseModel]] = [CatalogFile, MissionEntry, DeploymentEntry, CardMarker, Zone, Preset]
    models += [k.Points for k in KINDS.values()]
    for model in models:
        names.update(model.model_fields)
    return sorted(names)


def _allowed_keys(loc: Any) -> list[str]:
    parts = [p for p in loc[:-1] if isinstance(p, str)]
    models: dict[str, type[BaseModel]] = {"missions": MissionEntry, "deployments": DeploymentEntry}
    model = models.get(parts[0] if parts else "", CatalogFile)
    inner: dict[str, type[BaseModel]] = {"markers": CardMarker, "zones": Zone, "presets": Preset}
    if len(parts) > 1 and parts[0] == "deployments" and parts[-1] in inner:
        model = inner[parts[-1]]
    return sorted(model.model_fields)


def _kind(name: str, where: str, key: str) -> tuple[type[ScoringKind] | None, str]:
    if key in KINDS:
        return KINDS[key], ""
    return None, f"{name}: {where}: got {key!r}; allowed: a registered scoring kind: {', '.join(sorted(KINDS))}"


def build(data: dict[str, Any], name: str) -> Catalog:
    """Validate the parsed file ``data`` (``name`` for the messages) and build its Mission Cards."""
    try:
        parsed = CatalogFile.model_validate(data)
    except ValidationError as exc:
        raise CatalogError(validation_problems(name, exc, _fields(), _allowed_keys)) from None
    problems: list[str] = []
    cards: dict[str, MissionCard] = {}
    for i, entry in enumerate(parsed.missions):
        rules: list[ScoringKind] = []
        keys = [*(("every_round", j, k) for j, k in enumerate(entry.every_round)), ("scoring", None, entry.scoring)]
        for what, j, key in keys:
            where = f"missions[{i}].{what}" + ("" if j is None else f"[{j}]")
            cls, msg = _kind(name, where, key)
            if cls is None:
                problems.append(msg)
                continue
            # the card's own kind reads [missions.points]; an every_round kind takes no numbers
            given = entry.points if what == "scoring" else {}
            try:
                rules.append(cls(cls.Points.model_validate(given)))
            except ValidationError as exc:
                problems += validation_problems(name, _Errors(exc, ("missions", i, "points")), _fields())
        if not problems:
            values = entry.model_dump(exclude={"points"})
            values["every_round"] = tuple(values["every_round"])
            cards[entry.id] = MissionCard(**values, rules=tuple(rules))
    for i, dep in enumerate(parsed.deployments):
        problems += check_layout(dep, i, name)
    ids = [e.id for e in parsed.missions] + [d.id for d in parsed.deployments]
    problems += [
        f"{name}: id: got {i!r} twice; allowed: one card per id" for i in sorted({i for i in ids if ids.count(i) > 1})
    ]
    if problems:
        raise CatalogError(problems)
    return Catalog(
        missions=[e.model_dump() for e in parsed.missions],
        deployments=[d.model_dump() for d in parsed.deployments],
        cards=cards,
    )


def load(path: Path) -> Catalog:
    """Read and validate a missions file (``profiles/missions.toml``, or a test's own)."""
    data, problem = read_toml(path, ALLOWED)
    if data is None:
        raise CatalogError([problem])
    return build(data, path.name)


__all__ = ["Catalog", "CatalogError", "MissionCard", "build", "load"]
