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


class LazyModule(ModuleType):
    """A module imported on the first use of one of its attributes: ``np = LazyModule("numpy")`` at the top of a
    module lets it say ``np.zeros`` in its functions while importing it loads no numpy.

    On first use the real module's attributes are copied in, so later look-ups are plain module attribute
    look-ups, as fast as the real module's.

    >>> json = LazyModule("json")
    >>> json.dumps([1])
    '[1]'
    >>> json.loads is __import__("json").loads
    True
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_loaded"] = False

    def __getattr__(self, attr: str) -> object:
        real = importlib.import_module(self.__name__)
        if not self.__dict__["_lazy_loaded"]:
            self.__dict__.update({k: v for k, v in vars(real).items() if k not in ("__name__", "__spec__")})
            self.__dict__["_lazy_loaded"] = True
        return getattr(real, attr)


#: numpy, imported on first use (``from ..lazy import numpy as np``; type checkers are shown the real module).
numpy = LazyModule("numpy")
