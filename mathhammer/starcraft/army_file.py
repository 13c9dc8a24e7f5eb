"""The army list's file format (``docs/army.md``) as pydantic models.

Read by :func:`mathhammer.starcraft.army.load_army` only when the list is not in the cache (a list once
validated is kept, keyed by its bytes), so ``army validate`` loads no pydantic on a second call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..validate import validation_problems


class _UnitEntryFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: str = Field(min_length=1)
    models: int | None = Field(default=None, ge=1, le=99)
    upgrades: list[str] = []


class _ArmyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    scale: Literal["Skirmish", "Standard", "Grand Offensive"] | None = None
    minerals: int | None = Field(default=None, ge=1, le=1_000_000)
    faction: str = Field(min_length=1)
    tactical: list[str] = []
    units: list[_UnitEntryFile] = []


_FIELDS = sorted(set(_ArmyFile.model_fields) | set(_UnitEntryFile.model_fields))


def _allowed_keys(loc: Sequence[Any]) -> list[str]:
    model: type[BaseModel] = _UnitEntryFile if loc and loc[0] == "units" and len(loc) > 2 else _ArmyFile
    return list(model.model_fields)


def parse(name: str, data: Any) -> tuple[_ArmyFile | None, list[str]]:
    """``data`` (the parsed TOML of the file ``name``) validated, or None and every problem, one line each."""
    try:
        return _ArmyFile.model_validate(data), []
    except ValidationError as exc:
        return None, validation_problems(name, exc, _FIELDS, _allowed_keys)
