"""Loading a scenario file (format: :mod:`.spec` and ``docs/scenario.md``): read the TOML, validate it
against the file schema of :mod:`.spec`, resolve the cards, armies and unit ids, and cross-check the plan.

Every problem of a file is reported at once, one line each, naming the file and the field
(``scenario.toml: rounds[0].red.movement[1].to: ...``).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..board.loader import BattlefieldSpec, BoardFile, TerrainSpec, build_board
from ..board.model import Board, BoardError
from ..profiles.loader import builtin_dir
from ..starcraft.army import Army, ArmyError, load_army, validate_army
from ..starcraft.loadout import make_loadout
from ..starcraft.roster import Roster, load_roster
from ..starcraft.schema import Ability
from ..validate import read_toml, toml_path, validation_problems
from .cards import validate_all
from .conditions import parse_conditions
from .missions import Catalog, MissionCard
from .missions import load as load_missions
from .missions.deployments import DEFAULT_PRESET, PRESET_PREFIX, find_preset
from .spec import (
    ACTIONS,
    HEADINGS,
    PHASES,
    PLAYERS,
    Activation,
    ActivationSpec,
    DeploymentSpec,
    MarkerSpec,
    MissionSpec,
    PlayerRound,
    PlayerSpec,
    PolicySpec,
    Reaction,
    ReactionSpec,
    RoundSpec,
    Scenario,
    ScenarioError,
    ScenarioFile,
    ScenarioUnit,
)


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


def deployment_card(name: str) -> tuple[dict[str, Any] | None, str]:
    """The Deployment Card called ``name`` (any case, with or without spaces; or its id) with its layout and terrain
    presets (:mod:`.missions.deployments`), or None and what is allowed (the cards' names)."""
    return _find_card(deployment_cards(), name, None, "a Deployment Card")


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


def _card_layout(data: dict[str, Any], name: str) -> tuple[dict[str, Any], list[str]]:
    """The file's ``data`` with the Deployment Card's layout filled in where the file leaves it out, and the problems.

    ``[deployment]`` with neither ``markers`` nor ``entry_edges`` takes the card's (``profiles/missions.toml``) and,
    when the file has no ``terrain``, the card's ``standard`` terrain preset; ``terrain = "preset:NAME"`` takes the
    card's preset NAME. Refused: one of ``markers``/``entry_edges`` without the other, and ``zone_depth`` with the
    card's zones (the card draws them 6" deep): a value that would mix with the card's is never ignored.
    """
    dep_in = data.get("deployment")
    card_name = dep_in.get("card") if isinstance(dep_in, dict) else None
    terrain = data.get("terrain")
    card = None
    if isinstance(card_name, str) and card_name.strip():
        card, _ = _find_card(deployment_cards(), card_name, None, "a Deployment Card")
    if card is None or not isinstance(dep_in, dict):
        if isinstance(terrain, str):  # the card is unknown (reported with the rest): no preset to take
            data = {**data, "terrain": []}
        return data, []
    problems: list[str] = []
    given = [k for k in ("markers", "entry_edges") if k in dep_in]
    from_card = not given
    if len(given) == 1:
        other = "entry_edges" if given == ["markers"] else "markers"
        problems.append(
            f"{name}: deployment.{other}: missing; required with deployment.{given[0]} (both by hand), or leave "
            f"both out for the card's (the {card['name']} card's markers and Entry Edges)"
        )
    if from_card and "zone_depth" in dep_in:
        problems.append(
            f"{name}: deployment.zone_depth: got {dep_in['zone_depth']!r}; allowed: only with markers and "
            f"entry_edges by hand (the {card['name']} card's Zones of Influence are 6\" deep)"
        )
        dep_in = {k: v for k, v in dep_in.items() if k != "zone_depth"}
    # one given alone (refused above) takes the card's other, so that the rest of the file is checked
    layout = {
        "markers": [{k: m[k] for k in ("number", "x", "y")} for m in card["markers"]],
        "entry_edges": dict(card["entry_edges"]),
    }
    dep_in = {**layout, **dep_in}
    if from_card and "source" not in dep_in:
        dep_in["source"] = f"the {card['name']} card ({card['source']})"
    data = {**data, "deployment": dep_in}
    if terrain is None and from_card:
        terrain = PRESET_PREFIX + DEFAULT_PRESET
    if isinstance(terrain, str):
        tables, allowed = find_preset(card, terrain)
        if tables is None:
            problems.append(f"{name}: terrain: got {terrain!r}; allowed: {allowed}")
        data["terrain"] = tables or []
    return data, problems


def _then(
    where: str, action: str, targets: list[str], then: list[str], units: dict[str, Any], player: str
) -> list[str]:
    """A shoot's ``then`` (8.7.3 step 2, part 11 SIDEARM): enemy units, none of them twice or among ``targets``."""
    if not then:
        return []
    if action != "shoot":
        return [
            f"{where}.then: got {then!r}; allowed only on shoot (the targets of the Batches that can shoot none of "
            "targets, 8.7.3 step 2)"
        ]
    enemy = sorted(k for k, v in units.items() if v.player != player)
    out = []
    for i, t in enumerate(then):
        tu = units.get(t)
        if tu is None or tu.player == player:
            out.append(f"{where}.then: got {t!r}; allowed: an enemy unit: {', '.join(enemy)}")
        elif t in targets or t in then[:i]:
            out.append(f"{where}.then: got {t!r} twice; allowed: an enemy unit not among targets nor named before")
    return out


def _policies(sf: ScenarioFile, name: str, problems: list[str]) -> dict[str, str]:
    """The automatic players (``[players.X] policy``, issue 29): a registered policy, and no planned activations of
    that player (its activations are chosen in play)."""
    from .players.policies import allowed, resolve

    out: dict[str, str] = {}
    for player in PLAYERS:
        chosen = sf.players[player].policy  # type: ignore[index]
        if chosen is None:
            continue
        registered = resolve(chosen)  # "auto": the default policy
        if registered is None:
            problems.append(f"{name}: players.{player}.policy: got {chosen!r}; allowed: {allowed()}")
            continue
        out[player] = registered
        for ri, rnd in enumerate(sf.rounds):
            planned = sum(len(getattr(getattr(rnd, player), phase)) for phase in PHASES)
            if planned:
                problems.append(
                    f"{name}: rounds[{ri}].{player}: got {planned} planned activations; allowed: none for an automatic "
                    f'player (players.{player}.policy = "{chosen}": its activations are chosen in play)'
                )
    return out


def parse_scenario(data: dict[str, Any], name: str, base: Path, roster: Roster | None = None) -> Scenario:
    """Validate a scenario read from TOML (``name`` labels messages; army paths are relative to ``base``)."""
    bad = _non_finite(data)
    if bad:
        raise ScenarioError([f"{name}: {p}; allowed: a finite number" for p in bad])
    data, problems = _card_layout(data, name)
    try:
        sf = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(problems + validation_problems(name, exc, _fields(), _allowed_keys)) from None
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
        if not army.units:  # a valid list (9.1 sets no least), but no game: nothing of that player's to play
            bad = [*bad, f"{army.file}: units: got none; allowed: at least one unit (a game needs units on both sides)"]
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
    policies = _policies(sf, name, problems)

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
                    if act.headings is not None and (act.action not in ("move", "run") or act.headings not in HEADINGS):
                        problems.append(
                            f"{where}.headings: got {act.headings!r}; allowed only on move, run (the rear of the "
                            f"formation, 8.5.3): one of {', '.join(map(str, HEADINGS))}"
                        )
                    if act.action in ("shoot", "charge") and not act.targets:
                        problems.append(f"{where}.targets: missing; required for {act.action}: enemy unit ids")
                    for t in act.targets:
                        tu = units.get(t)
                        if tu is None or tu.player == player:
                            enemy = sorted(k for k, v in units.items() if v.player != player)
                            problems.append(f"{where}.targets: got {t!r}; allowed: an enemy unit: {', '.join(enemy)}")
                    problems += _then(where, act.action, act.targets, act.then, units, player)
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
                            dice=act.dice,
                            headings=act.headings,
                            then=tuple(act.then),
                        )
                    )
    problems += _dice_keys(name, plan)
    if mission is None or board is None:
        raise ScenarioError(problems or [f"{name}: cannot be read"])
    scn = Scenario(
        file=name,
        name=sf.name or Path(name).stem,
        description=sf.description,
        first_player=sf.first_player,
        mission=mission,
        deployment=sf.deployment,
        deployment_card={k: v for k, v in dep.items() if k != "presets"},  # the terrain is in board
        board=board,
        armies=armies,
        units=units,
        plan=tuple(plan),
        policy=sf.policy,
        policies=policies,
        roster=roster,
    )
    if len(armies) == len(PLAYERS):
        # each card's schema checks of the plan fields only it reads (Card.validate: the plan's ``via``, ...)
        problems += validate_all(scn)
    if problems:
        raise ScenarioError(problems)
    return scn


def _dice_keys(name: str, plan: list[Activation]) -> list[str]:
    """A plan's ``dice`` (a trace's, ``players/trace.py``): on every entry or on none, and no two entries of one Round
    and Phase with the same (they would roll the same dice)."""
    given = [a for a in plan if a.dice is not None]
    if not given or len(given) == len(plan):
        seen: dict[tuple[int, str, int], str] = {}
        out = []
        for a in given:
            key = (a.round, a.phase, int(a.dice or 0))
            if key in seen:
                out.append(f"{name}: {a.where}.dice: got {a.dice}; allowed: a number not used by {seen[key]}")
            seen[key] = a.where
        return out
    missing = next(a for a in plan if a.dice is None)
    return [f"{name}: {missing.where}.dice: missing; allowed: dice on every plan entry or on none"]


def raw_with_paths(path: str | Path) -> dict[str, Any]:
    """The table of scenario file ``path`` as read, its players' army paths made absolute (a copy of it written in
    another folder reads the same armies: ``players/trace.py``)."""
    p = Path(path)
    data, problem = read_toml(p, "a scenario TOML file (docs/scenario.md)")
    if data is None:
        raise ScenarioError([problem])
    for spec in (data.get("players") or {}).values():
        if isinstance(spec, dict) and isinstance(spec.get("army"), str):
            spec["army"] = str(_resolve_army(p.resolve().parent, spec["army"]).resolve())
    return data


def load_scenario(path: str | Path, roster: Roster | None = None) -> Scenario:
    """Read and validate a scenario file (see the module text).

    Raises:
        ScenarioError: every problem, one line each, naming the file and the field.
    """
    p = Path(path)
    data, problem = read_toml(p, "a scenario TOML file (docs/scenario.md)")
    if data is None:
        raise ScenarioError([problem])
    return parse_scenario(data, p.name, p.resolve().parent, roster)


def builtin_scenarios() -> list[Path]:
    """The example scenarios shipped in ``profiles/scenarios/``."""
    return sorted((builtin_dir() / "scenarios").glob("*.toml"))


__all__ = [
    "builtin_scenarios",
    "deployment_card",
    "deployment_cards",
    "load_scenario",
    "mission_cards",
    "parse_scenario",
]
