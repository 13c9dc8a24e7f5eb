"""The Deployment Cards' layouts in ``profiles/missions.toml``: what each card's picture draws (its Mission Markers,
each player's Zones of Influence) and our own terrain presets for it, validated when the file is read.

A card's ``[[deployments]]`` entry gives, besides its name, scale and battlefield size:

* ``markers``: the Mission Markers' centres in inches, ``x`` from the west edge and ``y`` from the south edge (the
  picture's top is north), read off the card picture (docs/scenario.md, Deployment presets);
* ``zones``: each player's Zones of Influence as drawn, rectangles ``[x0, y0, x1, y1]`` touching the Entry Edge;
* ``entry_edges``: the one Entry Edge per player the scenario engine models (a whole table edge, its Zone of
  Influence 6" deep); ``edges_exact`` says whether that is the card's drawing or the nearest whole edge to it;
* ``symmetry`` and ``swaps_players``: the map of the battlefield onto itself that the card keeps (its markers and
  zones), and whether it swaps red and blue (a fair mirror match) or maps each player onto itself;
* ``presets``: named terrain layouts of ours (``[[deployments.presets]]``, ``terrain`` as the ``[[terrain]]``
  tables of a board file, docs/board.md); the cards draw no terrain.

A bad value is one line naming the file and the field (``missions.toml: deployments[2].markers[0].x: got 40;
allowed: ...``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from ...validate import validation_problems

#: ``terrain = "preset:NAME"`` in a scenario file: the deployment's built-in terrain preset NAME.
PRESET_PREFIX = "preset:"
#: the preset a scenario gets when it gives the card only (no markers, Entry Edges or terrain).
DEFAULT_PRESET = "standard"
EDGES = ("south", "north", "west", "east")
SYMMETRIES = ("rotate-180", "mirror-x", "mirror-y", "mirror-antidiagonal")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class CardMarker(_Strict):
    number: int = Field(ge=1, le=5)
    x: float = Field(ge=0, le=120)
    y: float = Field(ge=0, le=120)


class Zone(_Strict):
    player: Literal["red", "blue"]
    x0: float = Field(ge=0, le=120)
    y0: float = Field(ge=0, le=120)
    x1: float = Field(ge=0, le=120)
    y1: float = Field(ge=0, le=120)


class Preset(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=40)
    note: str = Field(min_length=1)
    terrain: list[dict[str, Any]] = Field(min_length=1)


class Layout(_Strict):
    """The layout fields of a ``[[deployments]]`` entry (the catalog's DeploymentEntry adds them)."""

    source: str = Field(min_length=1)
    symmetry: Literal["rotate-180", "mirror-x", "mirror-y", "mirror-antidiagonal"]
    swaps_players: StrictBool
    entry_edges: dict[Literal["red", "blue"], Literal["south", "north", "west", "east"]]
    edges_exact: StrictBool
    markers: list[CardMarker] = Field(min_length=1, max_length=5)
    zones: list[Zone] = Field(min_length=2)
    presets: list[Preset] = Field(min_length=1)


class _Located:
    """A ValidationError's problems with their place in the file put in front (for :func:`validation_problems`)."""

    def __init__(self, exc: ValidationError, prefix: tuple[Any, ...]) -> None:
        self._errors = [{**e, "loc": (*prefix, *e["loc"])} for e in exc.errors(include_url=False)]

    def errors(self, include_url: bool = False) -> list[Any]:
        return self._errors


def _terrain_keys(_loc: Any) -> list[str]:
    """The keys of a preset's terrain piece: those of a board file's ``[[terrain]]`` table."""
    from ...board.loader import TerrainSpec

    return sorted(TerrainSpec.model_fields)


def symmetry_map(name: str, width: float, depth: float) -> Callable[[float, float], tuple[float, float]]:
    """The point map of a card's ``symmetry`` on a ``width`` x ``depth`` battlefield."""
    maps: dict[str, Callable[[float, float], tuple[float, float]]] = {
        "rotate-180": lambda x, y: (width - x, depth - y),
        "mirror-x": lambda x, y: (width - x, y),
        "mirror-y": lambda x, y: (x, depth - y),
        "mirror-antidiagonal": lambda x, y: (width - y, depth - x),
    }
    return maps[name]


#: The direction of the line of fixed points of a card's reflection (its mirror line, through the table's centre):
#: a formation tie on the centre line is broken along it (``World._grid_order``); a rotation has none.
MIRROR_AXES: dict[str, tuple[float, float]] = {
    "mirror-x": (0.0, 1.0),
    "mirror-y": (1.0, 0.0),
    "mirror-antidiagonal": (math.sqrt(0.5), -math.sqrt(0.5)),
}


def check_layout(entry: Any, i: int, name: str) -> list[str]:
    """The problems of deployment ``i`` (a validated DeploymentEntry) beyond its schema: markers on the battlefield
    and each number once, zones on it touching an edge, the Entry Edges two different edges, preset names once,
    each preset's terrain a valid board with no marker inside a piece that blocks movement."""
    from ...board.cspace import blocks_path
    from ...board.loader import BattlefieldSpec, BoardFile, TerrainSpec, build_board
    from ...board.model import BoardError

    where = f"{name}: deployments[{i}]"
    w, d = entry.width, entry.depth
    problems: list[str] = []
    numbers = [m.number for m in entry.markers]
    for j, m in enumerate(entry.markers):
        if m.x > w or m.y > d:
            problems.append(f"{where}.markers[{j}]: got ({m.x}, {m.y}); allowed: a point on the {w}x{d} battlefield")
        if numbers.count(m.number) > 1:
            problems.append(f"{where}.markers[{j}].number: got {m.number} twice; allowed: each marker number once")
    for j, z in enumerate(entry.zones):
        touches = z.x0 == 0 or z.y0 == 0 or z.x1 == w or z.y1 == d
        if not (z.x0 < z.x1 <= w and z.y0 < z.y1 <= d) or not touches:
            problems.append(
                f"{where}.zones[{j}]: got [{z.x0}, {z.y0}, {z.x1}, {z.y1}]; allowed: x0 < x1, y0 < y1, on the "
                f"{w}x{d} battlefield, touching a table edge"
            )
    players = {z.player for z in entry.zones}
    if players != {"red", "blue"}:
        problems.append(f"{where}.zones: got zones of {sorted(players)}; allowed: at least one zone per player")
    edges = entry.entry_edges
    if set(edges) != {"red", "blue"} or edges.get("red") == edges.get("blue"):
        problems.append(f"{where}.entry_edges: got {dict(edges)}; allowed: an Entry Edge for red and another for blue")
    names = [p.name for p in entry.presets]
    for k, preset in enumerate(entry.presets):
        at = f"{where}.presets[{k}]"
        if names.count(preset.name) > 1:
            problems.append(f"{at}.name: got {preset.name!r} twice; allowed: each preset name once per card")
        try:
            spec = BoardFile(
                battlefield=BattlefieldSpec(width=w, depth=d),
                terrain=[TerrainSpec.model_validate(t) for t in preset.terrain],
            )
        except ValidationError:
            for j, t in enumerate(preset.terrain):
                try:
                    TerrainSpec.model_validate(t)
                except ValidationError as exc:
                    loc = ("deployments", i, "presets", k, "terrain", j)
                    keys = _terrain_keys(loc)
                    problems += validation_problems(name, _Located(exc, loc), keys, _terrain_keys)
            continue
        try:
            board = build_board(spec, f"{at}.terrain")
        except BoardError as exc:
            problems += exc.problems
            continue
        from shapely.geometry import Point

        for piece in board.terrain:
            if not blocks_path(piece):
                continue
            for m in entry.markers:
                if piece.polygon.intersects(Point(m.x, m.y)):
                    problems.append(
                        f"{at}.terrain: {piece.id!r} covers Mission Marker {m.number} at ({m.x}, {m.y}); allowed: "
                        "no marker inside a piece that blocks movement (Size 2+, not GRASS)"
                    )
    return problems


def find_preset(card: dict[str, Any], text: str) -> tuple[list[dict[str, Any]] | None, str]:
    """The terrain tables of ``terrain = "preset:NAME"`` on ``card`` (a deployment of the catalog), or None and the
    ``allowed`` text of the refusal."""
    presets = {p["name"]: p for p in card.get("presets", [])}
    wanted = text.removeprefix(PRESET_PREFIX).strip() if text.startswith(PRESET_PREFIX) else None
    if wanted is not None and wanted in presets:
        return [dict(t) for t in presets[wanted]["terrain"]], ""
    names = ", ".join(f'"{PRESET_PREFIX}{n}"' for n in presets)
    return None, f"[[terrain]] tables, or a terrain preset of {card['name']}: {names}"


__all__ = [
    "DEFAULT_PRESET",
    "MIRROR_AXES",
    "PRESET_PREFIX",
    "SYMMETRIES",
    "CardMarker",
    "Layout",
    "Preset",
    "Zone",
    "check_layout",
    "find_preset",
    "symmetry_map",
]
