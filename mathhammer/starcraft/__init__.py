"""StarCraft: Tabletop Miniatures Game, one game system behind :mod:`mathhammer.systems`.

Its modules load on first use, so ``mh.starcraft.army`` works after ``import mathhammer as mh``:

>>> import mathhammer as mh
>>> mh.starcraft.army.load_army.__name__, mh.starcraft.system.SYSTEM.name
('load_army', 'starcraft')
"""

from __future__ import annotations

from typing import Any

from ..lazy import submodule


def __getattr__(name: str) -> Any:
    return submodule(__name__, name)
