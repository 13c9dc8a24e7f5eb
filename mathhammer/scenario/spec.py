"""Scenario files: mission, deployment, board, two army lists and a plan of activations. This module holds the
file schema (the ``*Spec`` models) and the loaded scenario's plain types (:class:`Scenario`, :class:`ScenarioUnit`,
:class:`Activation`, :class:`Condition`), which the rest of the scenario engine names; reading and cross-checking a
file is :mod:`.loader` (:func:`~.loader.load_scenario`).

A scenario is a TOML file (format: ``docs/scenario.md``; examples: ``profiles/scenarios/``)::

    name = "Hold Position at the crossing"
    first_player = "red"                 # 8.2.2: the Roll-Off winner's choice for Round 1, "roll-off" or "alternate"

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
(``scenario.toml: rounds[0].red.movement[1].to: ...``; :mod:`.loader`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator

from ..board.loader import TerrainSpec
from ..board.model import Board
from ..errors import MathhammerError
from ..starcraft.army import Army
from ..starcraft.loadout import Loadout
from ..starcraft.roster import Roster, Unit
from ..starcraft.schema import Ability
from ..validate import no_bool_number
from .missions import MissionCard

PLAYERS = ("red", "blue")
PHASES = ("movement", "assault", "combat")
ACTIONS: dict[str, tuple[str, ...]] = {
    "movement": ("deploy", "move", "hold", "disengage", "pass"),
    "assault": ("run", "hold", "shoot", "charge", "gather", "pass"),
    "combat": ("fight", "hold", "pass"),
}
EDGES = ("south", "north", "west", "east")
#: a plan's ``headings`` (a move or run's rear rounded to the nearest of so many compass headings, north first): each a
#: multiple of 4, so every symmetry of a table maps the set onto itself
HEADINGS = (4, 8, 16, 32)
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

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return no_bool_number(cls.model_fields[info.field_name or ""].annotation, value)


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
    #: an automatic player (issue 29): the policy that chooses its activations in play (``players/policies.py``);
    #: such a player has no planned activations of its own
    policy: str | None = Field(default=None, min_length=1, max_length=40)


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
    #: a shoot's targets of the Batches that can shoot none of ``targets`` (8.7.3 step 2: a unit's Weapon Profiles may
    #: fire at different targets; part 11 SIDEARM): each fires at the first of these it may shoot
    then: list[str] = []
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
    #: a move or run's formation (8.5.3: the other models set behind the Leading Model, towards where it stood) with
    #: that direction rounded to the nearest of this many compass headings (:data:`HEADINGS`); the automatic players
    #: set it so their units' formations come from a finite set (docs/dev/compiled-game-loop.md)
    headings: int | None = None
    #: the number that keys the activation's dice (default: its place in the plan); a trace of an automatic player's
    #: game gives each activation the one it was played with (``players/trace.py``): every entry or none
    dice: int | None = Field(default=None, ge=0, le=10**9)


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
    first_player: Literal["red", "blue", "roll-off", "alternate"] = "roll-off"
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

    @cached_property
    def abilities(self) -> list[Ability]:
        """The abilities of the unit's card and of its upgrades (read once: a unit's loadout does not change; callers
        do not change the list)."""
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

    @cached_property
    def flying(self) -> bool:
        return "Flying" in self.unit.card.combat_tags

    @cached_property
    def base_mm(self) -> float:
        b = self.unit.card.base_mm
        return float(max(b) if isinstance(b, tuple) else b)

    @property
    def size(self) -> int:
        s = self.unit.card.size
        return 1 if s == "-" else s

    @property
    def set_key(self) -> str | tuple[str, int]:
        """How the placements' memos name the unit set: its id (every model; :class:`ModelsLeft` adds its count)."""
        return self.id


@dataclass(frozen=True)
class ModelsLeft(ScenarioUnit):
    """A unit with models removed, as its formation is set: only its ``left`` models are on the table (8.7.4 step 5:
    a removed model is taken off it), so a Move, Run or Deploy sets those (8.5.3 step 2: "set them In Coherency around
    the Leading Model"), not the removed ones' spots too. ``World.models_left`` makes it."""

    left: int = 0

    @property
    def models(self) -> int:
        return self.left

    @property
    def set_key(self) -> str | tuple[str, int]:
        return (self.id, self.left)


@dataclass(frozen=True)
class Condition:
    """One parsed condition of a plan entry's ``if`` or ``unless`` (the grammar: :mod:`.conditions`): ``kind`` is a
    unit state, ``marker``, ``ahead``, ``behind`` or ``tied``."""

    text: str
    kind: str
    subject: str = ""  # the unit id, the player (ahead / behind) or the controller (marker)
    marker: int = 0  # the marker number


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
    dice: int | None = None  # the number keying its dice (a trace's); None: its place in the plan
    headings: int | None = None  # a move or run's rear rounded to the nearest of so many compass headings
    #: a shoot's targets of the Batches that can shoot none of ``targets`` (the plan's ``then``): not planned targets
    #: (its legality and the Reactions read ``targets``)
    then: tuple[str, ...] = ()


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
    #: the automatic players: player -> the name of its policy (``[players.X] policy``); the others are scripted
    policies: dict[str, str] = field(default_factory=dict)

    def activations(self, round_no: int, phase: str, player: str) -> list[Activation]:
        return [a for a in self.plan if a.round == round_no and a.phase == phase and a.player == player]

    def player_units(self, player: str) -> list[ScenarioUnit]:
        return [u for u in self.units.values() if u.player == player]


__all__ = [
    "ACTIONS",
    "HEADINGS",
    "MARKER_COLOUR",
    "PHASES",
    "PLAYERS",
    "Activation",
    "Condition",
    "MissionCard",
    "Reaction",
    "Scenario",
    "ScenarioError",
    "ScenarioUnit",
]
