"""A package's modules loaded on first use: what its ``__getattr__`` calls (``mh.grimdark.profiles``), so that
importing the package loads none of them.

>>> submodule("mathhammer", "no_such_module")
Traceback (most recent call last):
...
AttributeError: module 'mathhammer' has no attribute 'no_such_module'
"""

from __future__ import annotations

import importlib
from types import ModuleType


def submodule(package: str, name: str) -> ModuleType:
    """The module ``package.name``, imported now; AttributeError, as for any missing attribute, when there is
    none (an import error inside the module is raised as it is)."""
    try:
        return importlib.import_module(f".{name}", package)
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.{name}":
            raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
