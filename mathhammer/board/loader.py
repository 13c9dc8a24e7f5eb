"""Read a board from a TOML file; every problem is reported at once, one line each, naming the item.

The format (inches; base diameters in mm)::

    [battlefield]
    width = 44
    depth = 30

    [[terrain]]
    id = "cliff"
    size = 3
    surface = true                 # models can stand on it
    footprint = [[0, 0], [6, 0], [6, 6], [0, 6]]
    access_points = [[[6, 2], [6, 3]]]   # each: one [x, y] or a segment of two
    # stands_on = "other piece"    # stacking; grass = true; token = true
    height = 3.5                   # inches, top above what it stands on (a Charge climbing it needs it)

    [[units]]
    id = "marines"
    side = "terran"
    size = 2                       # defaults for the unit's models
    base_mm = 25
    # flying = false; hidden = false
    models = [
        { id = "m1", x = 3, y = 3, stands_on = "cliff" },
        { id = "m2", x = 10, y = 3 },
    ]

>>> board = parse_board('''
... [battlefield]
... width = 20
... depth = 20
... [[units]]
... id = "u"
... side = "p1"
... models = [{ id = "a", x = 1, y = 1 }]
... ''')
>>> board.model("a").base_mm
25.0
>>> parse_board('[battlefield]\\nwidth = 20\\ndepth = 20\\nwidht = 3\\n')
Traceback (most recent call last):
...
mathhammer.board.model.BoardError: board: battlefield.widht: unknown key (did you mean 'width'?); allowed: depth, width
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from ..errors import InputError
from ..validate import no_bool_number, validation_problems
from .model import MAX_SIZE, Board, BoardError, Model, Terrain, Unit, polygon_problem


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return no_bool_number(cls.model_fields[info.field_name or ""].annotation, value)


class BattlefieldSpec(_Strict):
    width: float = Field(gt=0, le=1000)
    depth: float = Field(gt=0, le=1000)


Point2 = tuple[float, float]


class TerrainSpec(_Strict):
    id: str = Field(min_length=1)
    footprint: list[Point2]
    size: int = Field(default=0, ge=0, le=MAX_SIZE)
    surface: bool = False
    stands_on: str | None = None
    access_points: list[list[Point2]] = []
    grass: bool = False
    token: bool = False
    height: float | None = Field(default=None, ge=0, le=100)

    @field_validator("footprint")
    @classmethod
    def _polygon(cls, value: list[Point2]) -> list[Point2]:
        problem = polygon_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("access_points")
    @classmethod
    def _access(cls, value: list[list[Point2]]) -> list[list[Point2]]:
        for ap in value:
            if len(ap) not in (1, 2):
                raise ValueError("each ACCESS POINT one point [x, y] or a segment [[x, y], [x, y]]")
        return value


class ModelSpec(_Strict):
    id: str = Field(min_length=1)
    x: float
    y: float
    base_mm: float | None = Field(default=None, gt=0, le=500)
    size: int | None = Field(default=None, ge=0, le=MAX_SIZE)
    stands_on: str | None = None
    flying: bool | None = None


class UnitSpec(_Strict):
    id: str = Field(min_length=1)
    side: str = Field(min_length=1)
    hidden: bool = False
    flying: bool = False
    base_mm: float = Field(default=25.0, gt=0, le=500)
    size: int = Field(default=1, ge=0, le=MAX_SIZE)
    models: list[ModelSpec] = Field(min_length=1)


class BoardFile(_Strict):
    battlefield: BattlefieldSpec
    terrain: list[TerrainSpec] = []
    units: list[UnitSpec] = []


def _fields() -> list[str]:
    names: set[str] = set()
    for spec in (BattlefieldSpec, TerrainSpec, ModelSpec, UnitSpec, BoardFile):
        names.update(spec.model_fields)
    return sorted(names)


def _allowed_keys(loc: Any) -> list[str]:
    parts = [p for p in loc[:-1] if isinstance(p, str)]
    specs: dict[str, type[BaseModel]] = {"battlefield": BattlefieldSpec, "terrain": TerrainSpec, "units": UnitSpec}
    spec: type[BaseModel] = specs.get(parts[0], BoardFile) if parts else BoardFile
    if parts and parts[-1] == "models":
        spec = ModelSpec
    return sorted(spec.model_fields)


def build_board(spec: BoardFile, name: str = "board") -> Board:
    """Turn a validated file into a :class:`Board` (raises :class:`BoardError` prefixed with ``name``)."""
    problems: list[str] = []
    terrain = []
    for i, t in enumerate(spec.terrain):
        try:
            terrain.append(
                Terrain(
                    t.id,
                    tuple(t.footprint),
                    size=t.size,
                    surface=t.surface,
                    stands_on=t.stands_on,
                    access_points=tuple(tuple(ap) for ap in t.access_points),
                    grass=t.grass,
                    token=t.token,
                    height=t.height,
                )
            )
        except InputError as exc:
            problems.append(f"{name}: terrain[{i}]: {exc}")
    units = []
    for i, u in enumerate(spec.units):
        models = []
        for j, m in enumerate(u.models):
            try:
                models.append(
                    Model(
                        m.id,
                        m.x,
                        m.y,
                        base_mm=u.base_mm if m.base_mm is None else m.base_mm,
                        size=u.size if m.size is None else m.size,
                        stands_on=m.stands_on,
                        flying=u.flying if m.flying is None else m.flying,
                    )
                )
            except InputError as exc:
                problems.append(f"{name}: units[{i}].models[{j}]: {exc}")
        try:
            units.append(Unit(u.id, u.side, tuple(models), hidden=u.hidden))
        except InputError as exc:
            problems.append(f"{name}: units[{i}]: {exc}")
    if problems:
        raise BoardError(problems)
    try:
        return Board(spec.battlefield.width, spec.battlefield.depth, tuple(terrain), tuple(units))
    except BoardError as exc:
        raise BoardError([f"{name}: {p}" for p in exc.problems]) from None
    except InputError as exc:
        raise BoardError([f"{name}: {exc}"]) from None


def parse_board(text: str, name: str = "board") -> Board:
    """Parse TOML text into a :class:`Board`; raises :class:`BoardError` with every problem (the first
    :data:`~mathhammer.engine.budget.PROBLEMS_SHOWN` lines, then ``... and N more``)."""
    from ..engine.budget import shown_problems

    try:
        return _parse_board(text, name)
    except BoardError as exc:
        raise BoardError(shown_problems(exc.problems)) from None


def _parse_board(text: str, name: str) -> Board:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BoardError([f"{name}: not valid TOML: {exc}"]) from None
    try:
        spec = BoardFile.model_validate(data)
    except ValidationError as exc:
        raise BoardError(validation_problems(name, exc, _fields(), _allowed_keys)) from None
    return build_board(spec, name)


def load_board(path: str | Path) -> Board:
    """Read a board TOML file; raises :class:`BoardError` with every problem, each naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise BoardError([f"{path}: cannot read: {exc.strerror}"]) from None
    except UnicodeDecodeError:
        raise BoardError([f"{path.name}: not a UTF-8 text file; allowed: a TOML board"]) from None
    return parse_board(text, path.name)
