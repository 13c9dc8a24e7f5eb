"""Scenario files: mission, deployment, board, two army lists and a plan of activations.

A scenario is a TOML file (format and examples: ``profiles/scenarios/README.md``)::

    name = "Hold Position at the crossing"
    first_player = "red"                 # 8.2.2: the Roll-Off winner's choice for Round 1, or "roll-off"

    [mission]
    card = "Hold Position"               # a Mission Card (profiles/missions.toml), at the deployment's scale

    [deployment]
    card = "Frontier"                    # a Deployment Card: the battlefield size
    entry_edges = { red = "south", blue = "north" }
    markers = [{ number = 1, x = 9, y = 18 }, { number = 5, x = 18, y = 18 }]

    [[terrain]]                          # as in a board file (mathhammer board)
    id = "crate"
    footprint = [[16, 10], [20, 10], [20, 12], [16, 12]]
    size = 2

    [players.red]
    army = "../armies/terran_skirmish.toml"   # relative to the scenario file

    [players.blue]
    army = "../armies/kerrigans_brood.toml"

    [[rounds]]
    round = 1
    red.movement = [{ unit = "marine-1", action = "deploy", to = [9, 10] }]
    blue.movement = [{ unit = "zergling-1", action = "deploy", to = [10, 28] }]
    red.assault = [{ unit = "marine-1", action = "shoot", targets = ["zergling-1"] }]

The players are ``red`` and ``blue``, the colours of the Mission Markers (7.3.2: Markers 1 & 3
Red, 2 & 4 Blue, 5 Neutral). Units are named after their card and their place among the units
of that card in the army list: ``marine-1``, ``marine-2``, ``marauder-1``.

A ``deploy``, ``move``, ``run`` or ``disengage`` may end on a terrain piece: ``on = "<terrain id>"``
names a piece with a horizontal top (``surface = true``); the Leading Model's ``to`` is then on its
top and every model of the unit stands on it (``world.py``; ``check.py`` holds the move to the
ACCESS POINTs, 8.5.3).

Every problem of a file is reported at once, one line each, naming the file and the field
(``scenario.toml: rounds[0].red.movement[1].to: ...``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from ..board.loader import BattlefieldSpec, BoardFile, TerrainSpec, build_board
from ..board.model import Board, BoardError
from ..errors import MathhammerError
from ..profiles.loader import builtin_dir
from ..starcraft.army import Army, ArmyError, load_army, validate_army
from ..starcraft.loadout import Loadout, make_loadout
from ..starcraft.roster import Roster, Unit, load_roster
from ..starcraft.schema import Ability
from ..validate import read_toml, toml_path, validation_problems
from .conditions import Condition, parse_conditions
from .missions import Catalog, MissionCard
from .missions import load as load_missions

PLAYERS = ("red", "blue")
PHASES = ("movement", "assault", "combat")
ACTIONS: dict[str, tuple[str, ...]] = {
    "movement": ("deploy", "move", "hold", "disengage", "pass"),
    "assault": ("run", "hold", "shoot", "charge", "gather", "pass"),
    "combat": ("fight", "hold", "pass"),
}
EDGES = ("south", "north", "west", "east")
#: 7.3.2: "Markers 1 & 3 are Red, Markers 2 & 4 are Blue, and Marker 5 is Neutral".
MARKER_COLOUR = {1: "red", 2: "blue", 3: "red", 4: "blue", 5: "neutral"}
#: 9.2.1: "the Zone of Influence, which extends 6" inward from each player's Entry Edge".
ZONE_DEPTH = 6.0
#: The choices the rules leave to a player, one named policy each (``[policy]`` of a scenario file;
#: the first is the default). Their meanings: :class:`PolicySpec`.
POLICIES = {
    "casualties": ("keep-leader", "keep-front"),
    "fight_split": ("first-target", "even", "weakest"),
    "roll_off": ("random", "red", "blue"),
    "close_ranks": ("always", "never"),
}


class ScenarioError(MathhammerError):
    """Every problem found in a scenario file (or in its plan), one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Point = tuple[float, float]


class MissionSpec(_Strict):
    card: str = Field(min_length=1)
    starting_supply: int | None = Field(default=None, ge=0, le=99)
    supply_escalation: int | None = Field(default=None, ge=0, le=99)
    game_length: int | None = Field(default=None, ge=1, le=10)
    instant_win_lead: int | None = Field(default=None, ge=1, le=99)


class MarkerSpec(_Strict):
    """A Mission Marker: its number and point; ``colour`` and ``activated`` override the defaults.

    Defaults: 7.3.2 colours by number (1 and 3 Red, 2 and 4 Blue, 5 Neutral); Activated at the start
    as the Mission Card says (all Activated, except Supply Drop: all Deactivated).
    """

    number: int = Field(ge=1, le=5)
    x: float
    y: float
    colour: Literal["red", "blue", "neutral"] | None = None
    activated: StrictBool | None = None

    @property
    def side(self) -> str:
        """The marker's colour (``colour``, else 7.3.2 by number)."""
        return self.colour or MARKER_COLOUR[self.number]


class DeploymentSpec(_Strict):
    card: str = Field(min_length=1)
    source: str = ""
    entry_edges: dict[Literal["red", "blue"], Literal["south", "north", "west", "east"]]
    zone_depth: float = Field(default=ZONE_DEPTH, gt=0, le=36)
    markers: list[MarkerSpec] = Field(min_length=1, max_length=5)

    @field_validator("entry_edges")
    @classmethod
    def _sides(cls, v: dict[str, str]) -> dict[str, str]:
        if set(v) != set(PLAYERS) or v["red"] == v["blue"]:
            raise ValueError(
                f'an Entry Edge for red and another for blue, e.g. {{ red = "south", blue = "north" }} (got {v})'
            )
        return v

    @field_validator("markers")
    @classmethod
    def _numbers(cls, v: list[MarkerSpec]) -> list[MarkerSpec]:
        numbers = [m.number for m in v]
        if len(set(numbers)) != len(numbers):
            raise ValueError(f"each marker number once (numbers {numbers})")
        return v


class PlayerSpec(_Strict):
    army: str = Field(min_length=1)
    name: str = ""


class ReactionSpec(_Strict):
    """A Reaction (10.4) declared during an activation: ``unit`` uses (or, for a card, is given) ``use``;
    ``for``: the Friendly Unit it protects, where that is another unit (Life Support, Transfusion)."""

    unit: str = Field(min_length=1, max_length=80)
    use: str = Field(min_length=1, max_length=80)
    for_unit: str = Field(default="", alias="for", max_length=80)


class ActivationSpec(_Strict):
    unit: str = Field(default="", max_length=80)
    action: str
    to: Point | None = None
    #: the terrain piece (with a horizontal top) the unit stands on after a deploy/move/run/disengage
    on: str | None = Field(default=None, min_length=1)
    targets: list[str] = []
    weapons: list[str] = []
    use: list[str] = []
    #: the unit an ability of ``use`` selects (10.1: "Select one Enemy Unit Within 12\""), or the Enemy Unit of
    #: Lightning Dash's second Charge (a Reaction of ``react``): ability name -> unit
    select: dict[str, str] = {}
    #: where the extra Move of an ability of ``use`` ends (Go! Go! Go!, Leg Enhancements: "performs a 2\" Move
    #: action. This does not count towards its action limit"): the Leading Model's [x, y], before the action
    extra_to: Point | None = None
    #: where the token an ability of ``use`` sets goes (Creep Spread, Excrete Creep, Spawn Creep Tumor: the centre of
    #: a Creep Tumor token)
    token_at: Point | None = None
    #: where the Leading Model is set by the PLACE (X) effect of an ability of ``use`` (Blink, Phase, Ready for
    #: Pickup?), before the action
    place_to: Point | None = None
    #: where the Leading Model of the unit an ability of ``use`` summons "anywhere on the battlefield" is set (Pylon
    #: Warp-In, Omega Network, Rapid Ingress); a SUMMON in Base-to-Base contact with the Parent Unit needs none
    summon_to: Point | None = None
    #: a deploy through a Friendly unit whose base counts as an Entry Edge (Warp Conduit: "using this Pylon base as
    #: the Entry Edge"; Omega Network): that unit's id; on a move, run or disengage, the Friendly unit the moving unit
    #: returns to Reserves by, ending in Base-to-Base contact with it (Omega Network)
    via: str | None = Field(default=None, min_length=1, max_length=80)
    #: the options chosen for an ability of ``use`` that offers some (Orders: "critical hit", "disengage",
    #: "activate again"; REPEATABLE: several, each paid)
    options: list[str] = []
    #: the table edge a deploy enters from with an ability that allows another edge (Warp In, Armed and Ready,
    #: Timing Push: "Deploys from any table edge that is not a player's Entry Edge")
    edge: Literal["north", "south", "east", "west"] | None = None
    react: list[ReactionSpec] = []
    #: per-trial conditions (``if`` is a Python keyword): every ``if`` must hold, no ``unless`` (conditions.py)
    when: list[str] = Field(default=[], alias="if", max_length=20)
    unless: list[str] = Field(default=[], max_length=20)


class PlayerRound(_Strict):
    movement: list[ActivationSpec] = []
    assault: list[ActivationSpec] = []
    combat: list[ActivationSpec] = []


class RoundSpec(_Strict):
    round: int = Field(ge=1, le=10)
    red: PlayerRound = PlayerRound()
    blue: PlayerRound = PlayerRound()


class PolicySpec(_Strict):
    """``[policy]``: how the simulation makes the choices the rules leave to a player.

    * ``casualties`` (8.7.4 step 5 "The defending player removes models"; the order is set with
      the unit, see :mod:`mathhammer.scenario.world`):
      ``keep-leader`` (default) removes the models set farthest from the Leading Model first;
      ``keep-front`` removes the rearmost models first (behind the Leading Model, along the way the
      unit moved or charged), keeping the models nearest the front: the enemy, the marker it went to.
      Either way the Leading Model goes last, and a unit set Engaged follows 8.7.5's priority.
    * ``fight_split`` (8.8.1 "Declare how Attack Dice are split between eligible targets"):
      ``first-target`` (default) puts every die on the first planned Engaged target (else the first
      Engaged enemy in army order); ``even`` splits the striking models as evenly as possible over
      every Engaged enemy unit (planned targets first, then army order; the earlier ones get the
      odd models and the Surge Die); ``weakest`` puts every die on the Engaged enemy with the fewest
      models left (ties: planned targets first, then army order).
    * ``roll_off`` (3.2 / 8.2.2 / 8.9.6 Roll-Offs): ``random`` (default) is a fair Roll-Off;
      ``red`` / ``blue``: that player wins every Roll-Off (deterministic tests and what-ifs).
    * ``close_ranks`` (8.8.1 step 1 CLOSE RANKS (Optional), "Before rolling the dice, the Unit may press
      into the fight"): ``always`` (default; Abathur's TIP: "Use it freely") makes the move before every
      Engaged Ground unit counts its striking models (see :meth:`mathhammer.scenario.world.World.close_ranks`);
      ``never`` fights from where the models stand. ``never`` is much faster where many units fight over
      several Rounds (each new placement, models left and foes is a geometry read of a few ms, and the
      moved units make new board states), but it changes the answer: on ``frontlines_char_plains.toml``
      it lowers red's win chance by 3.5 points (78.1% -> 74.6%, ``benchmarks/RESULTS.md``).
    """

    casualties: Literal["keep-leader", "keep-front"] = "keep-leader"
    fight_split: Literal["first-target", "even", "weakest"] = "first-target"
    roll_off: Literal["random", "red", "blue"] = "random"
    close_ranks: Literal["always", "never"] = "always"


class ScenarioFile(_Strict):
    name: str = ""
    description: str = ""
    first_player: Literal["red", "blue", "roll-off"] = "roll-off"
    mission: MissionSpec
    deployment: DeploymentSpec
    terrain: list[TerrainSpec] = []
    players: dict[Literal["red", "blue"], PlayerSpec]
    policy: PolicySpec = PolicySpec()
    rounds: list[RoundSpec] = []

    @field_validator("players")
    @classmethod
    def _players(cls, v: dict[str, PlayerSpec]) -> dict[str, PlayerSpec]:
        if set(v) != set(PLAYERS):
            raise ValueError(f"both [players.red] and [players.blue] (got {', '.join(sorted(v)) or 'neither'})")
        return v


@dataclass(frozen=True)
class ScenarioUnit:
    """One unit of a player's army on the scenario: its id, card, loadout and Supply Profile."""

    id: str
    player: str
    loadout: Loadout
    #: a Summoned Unit (9.1.9: not in the Army List, not in Reserves at the start, set only by its ability): the
    #: ability that sets it, and the Parent Unit's id ("" for a card's ability)
    summoned_by: str = ""
    parent: str = ""

    @property
    def summoned(self) -> bool:
        return bool(self.summoned_by)

    @property
    def unit(self) -> Unit:
        return self.loadout.unit

    @property
    def models(self) -> int:
        return self.loadout.models

    @property
    def abilities(self) -> list[Ability]:
        """The abilities of the unit's card and of its upgrades."""
        return list(self.unit.card.abilities) + [a for up in self.loadout.upgrades for a in up.abilities]

    def supply(self, alive: int) -> int:
        """Current Supply Value (glossary): the Supply Profile bracket of ``alive`` models; 0 when none left."""
        if alive <= 0:
            return 0
        for b in self.unit.card.supply:
            if b.models[0] <= alive <= b.models[1]:
                return b.supply
        below = [b for b in self.unit.card.supply if b.models[1] < alive]
        return max((b.supply for b in below), default=0)

    @property
    def speed(self) -> int:
        sp = self.unit.card.speed
        base = 0 if sp == "-" else sp[0]
        return base + sum(up.stats.get("speed", 0) for up in self.loadout.upgrades)

    @property
    def flying(self) -> bool:
        return "Flying" in self.unit.card.combat_tags

    @property
    def base_mm(self) -> float:
        b = self.unit.card.base_mm
        return float(max(b) if isinstance(b, tuple) else b)

    @property
    def size(self) -> int:
        s = self.unit.card.size
        return 1 if s == "-" else s


@dataclass(frozen=True)
class Reaction:
    """A planned Reaction (10.4): the player owning ``unit`` uses ability ``use`` for it in an activation;
    ``for_unit``: the plan's ``for`` (a Friendly Unit it protects), "" where not given."""

    unit: str
    use: str
    player: str
    for_unit: str = ""


@dataclass(frozen=True)
class Activation:
    """One planned activation, with where it sits in the plan (for messages)."""

    where: str
    round: int
    phase: str
    player: str
    unit: str
    action: str
    to: Point | None = None
    targets: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    use: tuple[str, ...] = ()
    react: tuple[Reaction, ...] = ()
    #: (ability of ``use``, the unit it selects), from the plan's ``select``
    select: tuple[tuple[str, str], ...] = ()
    when: tuple[Condition, ...] = ()  # ``if``: every one must hold in a trial (conditions.py)
    unless: tuple[Condition, ...] = ()  # none may hold
    on: str | None = None  # the piece the unit stands on after the action (None: the playmat)
    extra_to: Point | None = None  # the end of an ability's extra Move, before the action (Go! Go! Go!)
    token_at: Point | None = None  # the centre of the token an ability sets (a Creep Tumor)
    place_to: Point | None = None  # where PLACE (X) sets the Leading Model (Blink)
    options: tuple[str, ...] = ()  # the options chosen for an ability that offers some (Orders)
    edge: str | None = None  # the table edge of a deploy by Warp In (not the player's Entry Edge)
    summon_to: Point | None = None  # where a unit summoned "anywhere" is set (Pylon Warp-In)
    via: str | None = None  # the Friendly unit whose base a deploy enters by (Warp Conduit, Omega Network)


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: every name resolved, ready to check and simulate."""

    file: str
    name: str
    description: str
    first_player: str
    mission: MissionCard
    deployment: DeploymentSpec
    deployment_card: dict[str, Any]
    board: Board
    armies: dict[str, Army]
    units: dict[str, ScenarioUnit]
    plan: tuple[Activation, ...]
    policy: PolicySpec
    roster: Roster = field(repr=False, compare=False, default_factory=Roster)

    def activations(self, round_no: int, phase: str, player: str) -> list[Activation]:
        return [a for a in self.plan if a.round == round_no and a.phase == phase and a.player == player]

    def player_units(self, player: str) -> list[ScenarioUnit]:
        return [u for u in self.units.values() if u.player == player]


@lru_cache(maxsize=1)
def _catalog() -> Catalog:
    """``profiles/missions.toml``, validated (:mod:`.missions.catalog`: a bad value raises one line per problem)."""
    return load_missions(builtin_dir() / "missions.toml")


def mission_cards() -> list[dict[str, Any]]:
    """The Mission Cards of ``profiles/missions.toml`` (both scales)."""
    return list(_catalog().missions)


def deployment_cards() -> list[dict[str, Any]]:
    """The Deployment Cards of ``profiles/missions.toml``."""
    return list(_catalog().deployments)


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().split("(")[0]).strip("-")


def _fields() -> list[str]:
    names: set[str] = set()
    for spec in (
        ScenarioFile,
        MissionSpec,
        DeploymentSpec,
        MarkerSpec,
        PlayerSpec,
        RoundSpec,
        PlayerRound,
        ActivationSpec,
        ReactionSpec,
        PolicySpec,
        TerrainSpec,
    ):
        names.update(f.alias or n for n, f in spec.model_fields.items())  # `if` for `when`
    return sorted(names)


def _allowed_keys(loc: Any) -> list[str]:
    parts = [p for p in loc[:-1] if isinstance(p, str)]
    specs: dict[str, type[BaseModel]] = {
        "mission": MissionSpec,
        "deployment": DeploymentSpec,
        "terrain": TerrainSpec,
        "players": PlayerSpec,
        "policy": PolicySpec,
        "rounds": RoundSpec,
    }
    spec: type[BaseModel] = specs.get(parts[0], ScenarioFile) if parts else ScenarioFile
    if parts and parts[-1] == "markers":
        spec = MarkerSpec
    elif parts and parts[-1] == "react":
        spec = ReactionSpec
    elif parts and parts[-1] in PHASES:
        spec = ActivationSpec
    elif parts and parts[-1] in PLAYERS and parts[0] == "rounds":
        spec = PlayerRound
    return sorted(f.alias or n for n, f in spec.model_fields.items())


def _find_card(
    cards: list[dict[str, Any]], name: str, scale: str | None, what: str
) -> tuple[dict[str, Any] | None, str]:
    wanted = _key(name)
    hits = [c for c in cards if wanted in (_key(c["name"]), _key(c["id"]))]
    if scale is not None:
        scaled = [c for c in hits if c["scale"] == scale]
        hits = scaled or hits
    if not hits:
        names = sorted({c["name"] for c in cards})
        return None, f"got {name!r}; allowed: {what}: {', '.join(names)}"
    return hits[0], ""


def _resolve_army(base: Path, text: str) -> Path:
    p = Path(text)
    if not p.is_absolute():
        local = base / p
        if local.exists():
            return local
        shipped = builtin_dir() / "armies" / p.name
        if shipped.exists() and not local.exists():
            return shipped
        return local
    return p


def _non_finite(value: Any, loc: tuple[Any, ...] = ()) -> list[str]:
    """Paths of the NaN and infinite numbers in ``value`` (TOML ``nan``, ``inf``): no point or length."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [f"{toml_path(loc)}: got {value!r}"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _non_finite(v, (*loc, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _non_finite(v, (*loc, i))]
    return []


def _new_id(name: str, player: str, units: dict[str, ScenarioUnit], counts: dict[str, int]) -> str:
    """The id of the player's next unit of card ``name``: its slug and a count (``marine-2``), with the player's
    name in front where the other player has that id already (``blue-marine-1``)."""
    slug = _slug(name)
    counts[slug] = counts.get(slug, 0) + 1
    uid = f"{slug}-{counts[slug]}"
    return f"{player}-{uid}" if uid in units else uid


def _add_summoned(
    roster: Roster,
    army: Army,
    player: str,
    units: dict[str, ScenarioUnit],
    counts: dict[str, int],
    used: set[tuple[str, str]],
) -> None:
    """The Summoned Units ``player``'s plan sets (9.1.9), after the army's: one for each ability with a ``summon``
    effect that the plan uses (``used``: (unit, ability name) of its ``use`` lists), of a unit (its Parent Unit;
    Roachling Infestation, "Once Per Game") or of the player's Faction and Tactical Cards (Pylon Warp-In, Omega
    Network, Rapid Ingress: the same unit set again once removed). Ids as the army's: ``roachling-1``, ``pylon-1``,
    ``point-defense-drone-1``."""
    sources: list[tuple[str, list[Ability]]] = []
    for uid, su in list(units.items()):
        if su.player == player and not su.summoned:
            sources.append((uid, [*su.unit.card.abilities, *(a for up in su.loadout.upgrades for a in up.abilities)]))
    for card in (army.faction, *dict.fromkeys(army.tactical)):
        sources.append(("", list(roster.card(card).abilities)))
    for parent, abilities in sources:
        for a in abilities:
            name = a.name.strip().lower()
            if not any(n == name and (not parent or u == parent) for u, n in used):
                continue
            for e in a.effects:
                if e.kind != "summon":
                    continue
                unit = roster.unit(e.unit)
                uid = _new_id(unit.name, player, units, counts)
                models = max(c.models for c in unit.card.compositions)
                units[uid] = ScenarioUnit(uid, player, make_loadout(unit, models, []), a.name, parent)


def parse_scenario(data: dict[str, Any], name: str, base: Path, roster: Roster | None = None) -> Scenario:
    """Validate a scenario read from TOML (``name`` labels messages; army paths are relative to ``base``)."""
    bad = _non_finite(data)
    if bad:
        raise ScenarioError([f"{name}: {p}; allowed: a finite number" for p in bad])
    try:
        sf = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(validation_problems(name, exc, _fields(), _allowed_keys)) from None
    problems: list[str] = []
    roster = roster or load_roster()

    dep, msg = _find_card(deployment_cards(), sf.deployment.card, None, "a Deployment Card")
    if dep is None:
        problems.append(f"{name}: deployment.card: {msg}")
        # go on checking the rest on the largest battlefield of the cards (standard, 54" x 36")
        widest = max(deployment_cards(), key=lambda d: d["width"] * d["depth"])
        dep = {**widest, "id": "?", "name": sf.deployment.card}
    card, msg = _find_card(mission_cards(), sf.mission.card, dep["scale"], "a Mission Card")
    mission: MissionCard | None = None
    if card is None:
        problems.append(f"{name}: mission.card: {msg}")
    else:
        overrides = {}
        for k in ("starting_supply", "supply_escalation", "game_length", "instant_win_lead"):
            override = getattr(sf.mission, k)
            if override is not None:
                overrides[k] = override
        mission = replace(_catalog().cards[card["id"]], **overrides)
    for i, m in enumerate(sf.deployment.markers):
        if not (0 <= m.x <= dep["width"] and 0 <= m.y <= dep["depth"]):
            problems.append(
                f"{name}: deployment.markers[{i}]: got ({m.x}, {m.y}); allowed: a point on the "
                f"{dep['width']}x{dep['depth']} battlefield of {dep['name']}"
            )

    board: Board | None = None
    try:
        board = build_board(
            BoardFile(battlefield=BattlefieldSpec(width=dep["width"], depth=dep["depth"]), terrain=sf.terrain), name
        )
    except BoardError as exc:
        problems.extend(exc.problems)

    armies: dict[str, Army] = {}
    units: dict[str, ScenarioUnit] = {}
    for player in PLAYERS:
        spec = sf.players[player]  # type: ignore[index]
        path = _resolve_army(base, spec.army)
        try:
            army = load_army(path)
        except ArmyError as exc:
            problems.extend(f"{name}: players.{player}.army: {p}" for p in exc.problems)
            continue
        bad = validate_army(army, roster)
        if bad:
            problems.extend(f"{name}: players.{player}.army: {p}" for p in bad)
            continue
        armies[player] = army
        counts: dict[str, int] = {}
        for entry in army.units:
            unit = roster.unit(entry.unit)
            uid = _new_id(unit.name, player, units, counts)
            units[uid] = ScenarioUnit(uid, player, make_loadout(unit, entry.models, entry.upgrades))
        used = {
            (act.unit, n.strip().lower())
            for rnd in sf.rounds
            for phase in PHASES
            for act in getattr(getattr(rnd, player), phase)
            for n in act.use
        }
        _add_summoned(roster, army, player, units, counts, used)

    first_entry: dict[int, int] = {}
    for ri, rnd in enumerate(sf.rounds):
        if first_entry.setdefault(rnd.round, ri) != ri:
            problems.append(
                f"{name}: rounds[{ri}].round: got {rnd.round}; allowed: each round once "
                f"(round {rnd.round} is rounds[{first_entry[rnd.round]}])"
            )
    plan: list[Activation] = []
    for ri, rnd in enumerate(sf.rounds):
        if mission is not None and rnd.round > mission.game_length:
            problems.append(
                f"{name}: rounds[{ri}].round: got {rnd.round}; allowed: 1 to {mission.game_length} "
                f"(the Game Length of {mission.name})"
            )
        for player in PLAYERS:
            pr: PlayerRound = getattr(rnd, player)
            for phase in PHASES:
                for ai, act in enumerate(getattr(pr, phase)):
                    where = f"{name}: rounds[{ri}].{player}.{phase}[{ai}]"
                    if act.action not in ACTIONS[phase]:
                        problems.append(
                            f"{where}.action: got {act.action!r}; allowed in the {phase.title()} Phase: "
                            f"{', '.join(ACTIONS[phase])}"
                        )
                        continue
                    if len(armies) < len(PLAYERS):
                        continue  # an army list could not be read (reported above): its unit ids are unknown
                    if act.action != "pass":
                        u = units.get(act.unit)
                        if u is None or u.player != player:
                            own = sorted(k for k, v in units.items() if v.player == player)
                            problems.append(
                                f"{where}.unit: got {act.unit!r}; allowed: a unit of {player}: {', '.join(own)}"
                            )
                            continue
                    needs_to = act.action in ("deploy", "move", "run", "disengage")
                    if needs_to and act.to is None:
                        problems.append(f"{where}.to: missing; required for {act.action}: the Leading Model's [x, y]")
                    if act.on is not None and board is not None:
                        tops = sorted(t.id for t in board.terrain if t.surface)
                        if not needs_to:
                            problems.append(
                                f"{where}.on: got {act.on!r}; allowed only on deploy, move, run, disengage "
                                "(where the Leading Model ends)"
                            )
                        elif act.on not in tops:
                            what = "unknown terrain id" if act.on not in board.pieces else "no horizontal top"
                            problems.append(
                                f"{where}.on: got {act.on!r} ({what}); allowed: a terrain piece with surface = true: "
                                f"{', '.join(tops) or 'none on this battlefield'}"
                            )
                    if act.action in ("shoot", "charge") and not act.targets:
                        problems.append(f"{where}.targets: missing; required for {act.action}: enemy unit ids")
                    for t in act.targets:
                        tu = units.get(t)
                        if tu is None or tu.player == player:
                            enemy = sorted(k for k, v in units.items() if v.player != player)
                            problems.append(f"{where}.targets: got {t!r}; allowed: an enemy unit: {', '.join(enemy)}")
                    reactions: list[Reaction] = []
                    for xi, rx in enumerate(act.react):
                        ru = units.get(rx.unit)
                        if ru is None:
                            problems.append(
                                f"{where}.react[{xi}].unit: got {rx.unit!r}; allowed: a unit of either player: "
                                f"{', '.join(sorted(units))}"
                            )
                            continue
                        fu = units.get(rx.for_unit) if rx.for_unit else None
                        if rx.for_unit and (fu is None or fu.player != ru.player):
                            mine = sorted(k for k, v in units.items() if v.player == ru.player)
                            problems.append(
                                f"{where}.react[{xi}].for: got {rx.for_unit!r}; allowed: a unit of {ru.player} "
                                f"(the Friendly Unit the Reaction protects): {', '.join(mine)}"
                            )
                            continue
                        reactions.append(Reaction(rx.unit, rx.use, ru.player, rx.for_unit))
                    named = [*act.use, *(rx.use for rx in act.react)]
                    used = {n.strip().lower() for n in named}
                    for ability, chosen in act.select.items():  # (``name`` is the file's)
                        if ability.strip().lower() not in used:
                            problems.append(
                                f"{where}.select: {ability!r} is not in use or react; allowed: an ability of use or "
                                f"a Reaction of react: {', '.join(repr(n) for n in named) or '(both are empty)'}"
                            )
                        elif chosen not in units:
                            problems.append(
                                f"{where}.select.{ability}: got {chosen!r}; allowed: a unit of either player: "
                                f"{', '.join(sorted(units))}"
                            )
                    if act.via is not None and act.action not in ("deploy", "move", "run", "disengage"):
                        problems.append(
                            f"{where}.via: on a {act.action}; allowed on a deploy (through a base that counts as an "
                            "Entry Edge) or a move, run or disengage (back to Reserves by Omega Network)"
                        )
                    if act.via is not None and (act.via not in units or units[act.via].player != player):
                        own = sorted(u for u, su in units.items() if su.player == player)
                        problems.append(
                            f"{where}.via: got {act.via!r}; allowed: a unit of {player} whose base counts as an Entry "
                            f"Edge (a Pylon, an Omega Worm): {', '.join(own)}"
                        )
                    owners = {k: v.player for k, v in units.items()}
                    numbers = [m.number for m in sf.deployment.markers]
                    when, bad_if = parse_conditions(f"{where}.if", act.when, owners, numbers)
                    unless, bad_unless = parse_conditions(f"{where}.unless", act.unless, owners, numbers)
                    problems += bad_if + bad_unless
                    for key, given in (("if", act.when), ("unless", act.unless)):
                        if given and (phase == "combat" or act.action == "pass"):
                            problems.append(
                                f"{where}.{key}: got {given!r}; allowed: conditions on a Movement or Assault Phase "
                                "activation (a pass is none; every Engaged unit fights, 8.8.1)"
                            )
                    plan.append(
                        Activation(
                            where.removeprefix(f"{name}: "),
                            rnd.round,
                            phase,
                            player,
                            act.unit,
                            act.action,
                            act.to,
                            tuple(act.targets),
                            tuple(act.weapons),
                            tuple(act.use),
                            tuple(reactions),
                            select=tuple(act.select.items()),
                            when=when,
                            unless=unless,
                            on=act.on,
                            extra_to=act.extra_to,
                            token_at=act.token_at,
                            place_to=act.place_to,
                            options=tuple(act.options),
                            edge=act.edge,
                            summon_to=act.summon_to,
                            via=act.via,
                        )
                    )
    if problems or mission is None or board is None:
        raise ScenarioError(problems or [f"{name}: cannot be read"])
    return Scenario(
        file=name,
        name=sf.name or Path(name).stem,
        description=sf.description,
        first_player=sf.first_player,
        mission=mission,
        deployment=sf.deployment,
        deployment_card=dep,
        board=board,
        armies=armies,
        units=units,
        plan=tuple(plan),
        policy=sf.policy,
        roster=roster,
    )


def load_scenario(path: str | Path, roster: Roster | None = None) -> Scenario:
    """Read and validate a scenario file (see the module text).

    Raises:
        ScenarioError: every problem, one line each, naming the file and the field.
    """
    p = Path(path)
    data, problem = read_toml(p, "a scenario TOML file (profiles/scenarios/README.md)")
    if data is None:
        raise ScenarioError([problem])
    return parse_scenario(data, p.name, p.resolve().parent, roster)


def builtin_scenarios() -> list[Path]:
    """The example scenarios shipped in ``profiles/scenarios/``."""
    return sorted((builtin_dir() / "scenarios").glob("*.toml"))


__all__ = [
    "ACTIONS",
    "MARKER_COLOUR",
    "PHASES",
    "PLAYERS",
    "Activation",
    "MissionCard",
    "Reaction",
    "Scenario",
    "ScenarioError",
    "ScenarioUnit",
    "builtin_scenarios",
    "deployment_cards",
    "load_scenario",
    "mission_cards",
    "parse_scenario",
]
