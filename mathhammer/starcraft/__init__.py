"""StarCraft: Tabletop Miniatures Game, one game system behind :mod:`mathhammer.systems`.

Its modules load on first use, so ``mh.starcraft.army`` works after ``import mathhammer as mh``:

>>> import mathhammer as mh
>>> mh.starcraft.army.load_army.__name__, mh.starcraft.system.SYSTEM.name
('load_army', 'starcraft')
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
