"""Blast and Flamer templates on the battlefield (rulebook 8.7.6 Template Weapons, part 11 SPILLOVER, FAQ v1.0).

:func:`template_batches` sets a template, finds the models it affects and returns the Batches the
engine resolves: one Main target Batch and one Spillover Batch per other unit. Readings:

* Sizes. The rulebook excerpt gives no template dimensions, so they are parameters. Defaults (our
  choice, not from the rulebook): :class:`BlastTemplate` a 3" diameter circle (the usual "small
  blast" marker of tabletop wargames); :class:`FlamerTemplate` 8" long, 0.75" wide at the narrow
  end and 2" at the wide end, the wide end rounded (a teardrop: the convex hull of the narrow edge
  and a circle of the wide end's diameter), the usual flamer template proportions.
* Alignment (step 1). "BT: The template must cover as much of the target model's base as possible.
  The centre of the target model's base is the Target Point": the circle is centred on that point
  (concentric covers the most). "FT: The narrow end must be flush with the attacking model's base
  edge and aimed at the target": the straight narrow edge touches the attacker's base at the point
  facing the target model's centre, perpendicular to the line between the two centres (tangent to
  the base), and the template runs along that line. A Flamer may fall short of the target model;
  then the Main target may have no affected model (``notes`` says so).
* Elevation (step 1): "Templates affect only models at the same elevation level as the Target
  Point. Flying models are not on any elevation level for template purposes. A template set at
  GROUND LEVEL does not affect Flying models, and a template cannot be set on a Flying model's
  elevation level, unless the template weapon has Target: ALL or Target: Flying." Read as: a
  model's template level is its board elevation (ground / mid / high), or ``"flying"`` for a
  Flying model; only models on the Target Point's level are affected; a Flying target model puts
  the template on the ``"flying"`` level, allowed only with ``weapon_target`` All or Flying (else
  :class:`~mathhammer.errors.InputError`). The "unless" is read as binding the last clause only:
  even a Target: All template set at GROUND LEVEL does not affect Flying models.
* Hits (step 3): covered ("Its base is partially or fully covered": the base and the template
  overlap with a positive area, touching is not covering), on the Target Point's level, "A line
  traced from the target model's base (BT) or Attacking Model's base (FT) to the model's base is
  not blocked by terrain piece (Size 2+)" (some straight trace from any part of one base to any
  part of the other misses every rising piece of Effective Size 2+, :func:`~.trace.free_trace`;
  pieces either model stands on never block, 7.1.2), and "an eligible target type" (the weapon's
  Target: Ground never affects Flying models, Target: Flying never affects Ground ones). The
  attacking model itself is never affected.
* Declaring targets (step 2): the Primary target is the unit of the target model and must be an
  Enemy unit. "Every other model (Friendly or Enemy) covered by the template is resolved under
  Spillover, provided they share the same elevation and Combat Tag as the Primary target" (FAQ:
  at least one Combat Tag in common). Combat Tags come from ``primary_tags`` / ``unit_tags``; a
  unit without given tags gets ``Flying`` or ``Ground`` from the board (Ground and Flying are
  Combat Tags, part 11, so two Ground units given no tags always share one).
* Attack Pool (steps 4-5, FAQ v1.0 item 9): Main target: "a number of Attack Dice equal to the
  number of Affected models in the target Unit, plus any weapon Rate of Attack modifiers" and "Do
  not roll a Surge Die. For the Main target, the Surge Result equals the number of Affected
  models". Built as one attacking model whose RoA is the affected count, with the weapon's
  keywords kept (so BUFF/DEBUFF RoA, LOCKED IN and BURST FIRE, measured attacker base to target
  base, are added once, by the engine), and a fixed-result S Dice (``SDice(n=0, bonus=affected)``)
  on the weapon's own Surge Types: the engine applies it only when a Surge Type matches the
  target's Combat Tags. Spillover: "Generate a number of Attack Dice equal to the number of
  Affected models in that Unit only. Do not apply Rate of Attack modifiers. Do not apply Surge",
  and FAQ "no PRECISION or CRITICAL HIT": the Spillover weapon has RoA = affected count, no S
  Dice, and loses PRECISION, CRITICAL HIT, BUFF/DEBUFF RoA, LOCKED IN and BURST FIRE.

>>> from mathhammer.board.model import Board, Model, Unit
>>> from mathhammer.starcraft.model import Weapon
>>> hellion = Unit("hellion", "terran", (Model("h", 5, 10, base_mm=50),))
>>> lings = Unit("lings", "zerg", tuple(Model(f"z{i}", 10 + i, 10) for i in range(4)))
>>> board = Board(44, 30, units=(hellion, lings))
>>> res = template_batches(board, "h", "z1", Weapon.build("Infernal Flame Thrower", hit=3, surge="Light:1"), "flamer")
>>> res.affected["lings"], res.main.weapon.roa, res.main.weapon.surge_dice
(('z0', 'z1', 'z2', 'z3'), 4, SDice(n=0, sides=1, bonus=4))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from shapely.geometry import LineString, Point, Polygon

from ..dice import SDice
from ..errors import InputError
from ..starcraft.keywords import Keyword, normalise_tag
from ..starcraft.model import Batch, Weapon
from .model import EPS, Board, Coord, Model
from .trace import free_trace

TemplateKind = Literal["blast", "flamer"]
#: a model's level for templates: its elevation, or "flying" (8.7.6 step 1).
Level = Literal["ground", "mid", "high", "flying"]
WEAPON_TARGETS = ("All", "Ground", "Flying")
#: terrain of Effective Size 2+ blocks the template's line (8.7.6 step 3).
BLOCKING_SIZE = 2
#: keywords a Spillover Batch loses (8.7.6 step 4: no RoA modifiers, no Surge; FAQ v1.0: no PRECISION/CRITICAL HIT).
SPILLOVER_STRIPPED = ("PRECISION", "CRITICAL HIT", "BURST FIRE", "LOCKED IN")
_QUAD_SEGS = 64


def _positive(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100 or math.isnan(value):
        raise InputError(name, value, "a size in inches, above 0 and at most 100")
    return float(value)


@dataclass(frozen=True)
class BlastTemplate:
    """A Blast Template (BT): a circle of ``diameter`` inches (3" by default: our choice, see the module text)."""

    diameter: float = 3.0

    def __post_init__(self) -> None:
        _positive("blast diameter", self.diameter)

    @property
    def radius(self) -> float:
        return self.diameter / 2

    def place(self, target_point: Coord) -> Polygon:
        """The template centred on the Target Point (8.7.6 step 1: covers as much of the target base as possible)."""
        return Point(target_point).buffer(self.radius, quad_segs=_QUAD_SEGS)


@dataclass(frozen=True)
class FlamerTemplate:
    """A Flamer Template (FT): ``length`` inches long, ``narrow`` wide at the narrow end, ``wide`` at the wide end.

    The narrow end is a straight edge; the wide end is rounded (a circle of diameter ``wide`` whose far
    edge is ``length`` from the narrow edge); the sides are straight. Defaults 8", 0.75", 2" are our choice.
    """

    length: float = 8.0
    narrow: float = 0.75
    wide: float = 2.0

    def __post_init__(self) -> None:
        _positive("flamer length", self.length)
        _positive("flamer narrow end", self.narrow)
        _positive("flamer wide end", self.wide)
        if self.wide < self.narrow:
            raise InputError("flamer wide end", self.wide, f'at least the narrow end ({self.narrow:g}")')
        if self.length < self.wide / 2:
            raise InputError("flamer length", self.length, f'at least half the wide end ({self.wide / 2:g}")')

    def place(self, origin: Coord, direction: Coord) -> Polygon:
        """The template with its narrow edge centred on ``origin``, running along the unit vector ``direction``."""
        ux, uy = direction
        nx, ny = -uy, ux
        h = self.narrow / 2
        edge = LineString([(origin[0] + nx * h, origin[1] + ny * h), (origin[0] - nx * h, origin[1] - ny * h)])
        reach = self.length - self.wide / 2
        cap = Point(origin[0] + ux * reach, origin[1] + uy * reach).buffer(self.wide / 2, quad_segs=_QUAD_SEGS)
        hull = edge.union(cap).convex_hull
        assert isinstance(hull, Polygon)
        return hull


@dataclass(frozen=True)
class TemplateResult:
    """A template set on the board and what it does.

    Attributes:
        kind: ``"blast"`` or ``"flamer"``.
        polygon: the template as placed (inches; for pictures).
        target_point: the centre of the target model's base.
        level: the Target Point's level (``ground``, ``mid``, ``high`` or ``flying``).
        primary: the Primary target unit id.
        main: the Main target Batch, or None if no model of the Primary target is affected.
        spillover: one Spillover Batch per other unit with affected models that shares a Combat Tag.
        affected: affected model ids per unit (the Primary target and every Spillover unit).
        unaffected: covered models that are not affected, with the reason (``level``, ``blocked``,
            ``target-type``, ``no-shared-tag``).
        notes: readings worth telling the user about.
    """

    kind: TemplateKind
    polygon: Polygon
    target_point: Coord
    level: Level
    primary: str
    main: Batch | None
    spillover: dict[str, Batch] = field(default_factory=dict)
    affected: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unaffected: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def batches(self) -> tuple[Batch, ...]:
        """The Main target Batch (if any), then the Spillover Batches."""
        return ((self.main,) if self.main else ()) + tuple(self.spillover.values())


def template_level(board: Board, model: Model) -> Level:
    """The model's level for templates: ``"flying"`` for a Flying model (8.7.6 step 1), else its elevation."""
    return "flying" if model.flying else board.elevation(model)


def place_template(
    attacker: Model,
    target: Model,
    kind: TemplateKind,
    blast: BlastTemplate | None = None,
    flamer: FlamerTemplate | None = None,
) -> Polygon:
    """The template polygon, aligned as in 8.7.6 step 1."""
    if kind == "blast":
        return (blast or BlastTemplate()).place(target.centre)
    if kind != "flamer":
        raise InputError("template kind", kind, "blast or flamer")
    dx, dy = target.x - attacker.x, target.y - attacker.y
    d = math.hypot(dx, dy)
    if d < 1e-9:
        raise InputError("flamer target", target.id, "a model whose centre is not the attacker's centre")
    ux, uy = dx / d, dy / d
    origin = (attacker.x + ux * attacker.radius, attacker.y + uy * attacker.radius)
    return (flamer or FlamerTemplate()).place(origin, (ux, uy))


def _covered(polygon: Polygon, model: Model, blast_centre: Coord | None, blast_radius: float) -> bool:
    """Base and template overlap with a positive area (touching is not covering)."""
    if blast_centre is not None:  # exact for the circle
        return math.dist(blast_centre, model.centre) < blast_radius + model.radius - EPS
    return bool(polygon.distance(Point(model.centre)) < model.radius - EPS)


def _tags(value: Iterable[str] | str | None, unit_flying: bool, where: str) -> frozenset[str]:
    if value is None:
        return frozenset({"Flying" if unit_flying else "Ground"})
    items = value.split(",") if isinstance(value, str) else list(value)
    return frozenset(normalise_tag(str(t), where) for t in items if str(t).strip())


def _is_roa_modifier(kw: Keyword) -> bool:
    return kw.name in ("BUFF", "DEBUFF") and kw.tag == "RoA"


def template_batches(
    board: Board,
    attacker_model_id: str,
    target_model_id: str,
    weapon: Weapon,
    kind: TemplateKind = "blast",
    primary_tags: Iterable[str] | str | None = None,
    unit_tags: Mapping[str, Iterable[str] | str] | None = None,
    weapon_target: str = "Ground",
    blast: BlastTemplate | None = None,
    flamer: FlamerTemplate | None = None,
) -> TemplateResult:
    """Set a template (8.7.6) and build the Main target and Spillover Batches (see the module text).

    Args:
        board: the battlefield.
        attacker_model_id: the model firing the template weapon.
        target_model_id: a model of the Primary target (an Enemy unit); its base centre is the Target Point.
        weapon: the template weapon profile (its ``roa`` is not used: dice come from affected models).
        kind: ``"blast"`` (BT) or ``"flamer"`` (FT).
        primary_tags: the Primary target's Combat Tags (default: Ground or Flying from the board).
        unit_tags: Combat Tags of other units by unit id (default: Ground or Flying from the board).
        weapon_target: the weapon's Target characteristic: ``All``, ``Ground`` or ``Flying``.
        blast, flamer: template sizes (defaults: :class:`BlastTemplate`, :class:`FlamerTemplate`).

    Raises:
        InputError: unknown model ids, a friendly or own target, a bad ``kind`` or ``weapon_target``,
            a Flying target model with a Target: Ground weapon (8.7.6 step 1), a Ground target model
            with a Target: Flying weapon, unknown Combat Tags.
    """
    attacker = board.model(attacker_model_id)
    target = board.model(target_model_id)
    if kind not in ("blast", "flamer"):
        raise InputError("template kind", kind, "blast or flamer")
    wanted = {t.lower(): t for t in WEAPON_TARGETS}.get(str(weapon_target).strip().lower())
    if wanted is None:
        raise InputError("weapon target", weapon_target, ", ".join(WEAPON_TARGETS))
    own_unit, primary_unit = board.unit_of(attacker), board.unit_of(target)
    if primary_unit.side == own_unit.side:
        raise InputError("template target", target.id, "a model of an Enemy unit (8.7.6 step 2: 'one Enemy Unit')")
    level = template_level(board, target)
    if level == "flying" and wanted == "Ground":
        raise InputError(
            "template target",
            target.id,
            "a Ground model: a template cannot be set on a Flying model's level unless Target: All or Flying (8.7.6)",
        )
    if not target.flying and wanted == "Flying":
        raise InputError("template target", target.id, "a Flying model for a Target: Flying weapon (8.7.3 step 1)")

    polygon = place_template(attacker, target, kind, blast, flamer)
    blast_t = blast or BlastTemplate()
    blast_centre = target.centre if kind == "blast" else None
    source = target if kind == "blast" else attacker
    tags_given = unit_tags or {}
    prim_tags = _tags(primary_tags, primary_unit.flying, "primary tags")

    affected: dict[str, list[str]] = {}
    unaffected: dict[str, str] = {}
    notes: list[str] = []
    for unit in board.units:
        for m in unit.models:
            if m.id == attacker.id or not _covered(polygon, m, blast_centre, blast_t.radius):
                continue
            if template_level(board, m) != level:
                unaffected[m.id] = "level"
            elif (wanted == "Ground" and m.flying) or (wanted == "Flying" and not m.flying):
                unaffected[m.id] = "target-type"
            elif m.id != source.id and _blocked(board, source, m):
                unaffected[m.id] = "blocked"
            else:
                affected.setdefault(unit.id, []).append(m.id)

    main_ids = affected.get(primary_unit.id, [])
    if not main_ids:
        notes.append(f"no model of the Primary target {primary_unit.id!r} is affected: no Main target Batch")
    distance = attacker.distance(target)
    if weapon.range is not None and distance > weapon.range + EPS:
        lr = next((k for k in weapon.keywords if k.name == "LONG RANGE"), None)
        if lr is not None and lr.value and distance <= float(lr.value) + EPS:
            notes.append(
                f'the target model is {distance:.2f}" away, beyond the {weapon.range:g}" Range but Within LONG RANGE '
                f'({float(lr.value):g}"): the Main target Batch rolls at -1 to Hit (LONG RANGE)'
            )
        else:
            notes.append(
                f'the target model is {distance:.2f}" away, beyond the {weapon.range:g}" Range: the Main target Batch '
                "rolls no dice (8.7.3 step 1)"
            )
    main = _main_batch(weapon, len(main_ids), distance) if main_ids else None
    spill: dict[str, Batch] = {}
    kept: dict[str, tuple[str, ...]] = {primary_unit.id: tuple(main_ids)} if main_ids else {}
    for unit in board.units:
        ids = affected.get(unit.id)
        if unit.id == primary_unit.id or not ids:
            continue
        tags = _tags(tags_given.get(unit.id), unit.flying, f"unit_tags[{unit.id!r}]")
        if not tags & prim_tags:
            unaffected.update(dict.fromkeys(ids, "no-shared-tag"))
            notes.append(f"unit {unit.id!r} shares no Combat Tag with {primary_unit.id!r}: no Spillover")
            continue
        kept[unit.id] = tuple(ids)
        spill[unit.id] = _spillover_batch(weapon, len(ids), unit.id)
    return TemplateResult(
        kind=kind,
        polygon=polygon,
        target_point=target.centre,
        level=level,
        primary=primary_unit.id,
        main=main,
        spillover=spill,
        affected=kept,
        unaffected=unaffected,
        notes=tuple(notes),
    )


def _blocked(board: Board, source: Model, model: Model) -> bool:
    """No trace from ``source``'s base to ``model``'s base misses every rising piece of Effective Size 2+."""
    under = {p.id for p in board.stack(source.stands_on)} | {p.id for p in board.stack(model.stands_on)}
    obstacles = [
        t.polygon
        for t in board.terrain
        if t.blocks_sight and t.id not in under and board.terrain_effective_size(t) >= BLOCKING_SIZE
    ]
    return free_trace(source.centre, source.radius, model.centre, model.radius, obstacles) is None


def _main_batch(weapon: Weapon, count: int, distance: float) -> Batch:
    """One attacking model with RoA = affected models; the weapon's RoA modifiers added once by the engine."""
    surge = SDice(0, 1, count) if weapon.surge_tags else None
    w = replace(weapon, roa=count, surge_dice=surge)
    return Batch(w, models=1, distances=(distance,), name=f"{weapon.name} (Main target)")


def _spillover_batch(weapon: Weapon, count: int, unit_id: str) -> Batch:
    """A plain Batch: RoA = affected models, no RoA modifiers, no Surge, no PRECISION or CRITICAL HIT."""
    keywords = tuple(k for k in weapon.keywords if k.name not in SPILLOVER_STRIPPED and not _is_roa_modifier(k))
    w = replace(weapon, roa=count, surge_tags=(), surge_dice=None, keywords=keywords)
    return Batch(w, models=1, name=f"{weapon.name} (Spillover: {unit_id})")
