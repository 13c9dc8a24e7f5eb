"""Mission Cards as data: ``profiles/missions.toml`` read and validated (:mod:`.catalog`), and one registered
class per scoring kind (:mod:`.registry`, :mod:`.kinds`). Marker control (8.9.1) and the calls into these kinds
are in :mod:`mathhammer.scenario.mission`.

Adding a scoring kind: a class in :mod:`.kinds` (or any module imported before the file is read) decorated with
``@register("my-kind")``, its numbers as a ``Points`` model, and a card in ``profiles/missions.toml`` with
``scoring = "my-kind"`` and those numbers under ``[missions.points]``.
"""

from __future__ import annotations

from .catalog import Catalog, CatalogError, MissionCard, build, load
from .registry import KINDS, Play, Points, ScoringKind, register

__all__ = [
    "KINDS",
    "Catalog",
    "CatalogError",
    "MissionCard",
    "Play",
    "Points",
    "ScoringKind",
    "build",
    "load",
    "register",
]
