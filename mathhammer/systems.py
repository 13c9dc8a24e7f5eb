"""Game systems behind one engine contract: a registry by name or alias.

A system says which ad-hoc ``attack`` flags it takes and how to run them; the
CLI dispatches on ``--system`` and refuses flags that belong to another
system. A third system joins by calling :func:`register` in its own module
(and importing that module in :func:`_load_builtin`); the others stay as
they are.

>>> get("sc").name, get("StarCraft").name
('starcraft', 'starcraft')
>>> get("starcarft")
Traceback (most recent call last):
...
mathhammer.errors.InputError: --system: got 'starcarft'; allowed: ... (did you mean 'starcraft'?)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InputError

#: Flags every system's ad-hoc attack shares (the run options are checked by the CLI).
COMMON_FLAGS = frozenset({"--models", "--target-models"})


@dataclass(frozen=True)
class GameSystem:
    """One game system.

    Attributes:
        name: canonical name (``starcraft``).
        aliases: other names accepted by ``--system``.
        title: the game's full name.
        adhoc_flags: the ad-hoc ``attack`` flags this system reads (besides
            :data:`COMMON_FLAGS` and the run options).
        run_adhoc: ``(flags, run_options, as_json) -> (json_dict, human_text, notes)``;
            ``flags`` maps every ad-hoc flag to its raw value (None when not given).
        named_flags, run_named, compare_rows, matchup_rows: named units from
            the system's own profiles (None: the CLI's StarCraft path).
        list_profiles: ``(profile_dirs) -> (json_rows, human_text)`` for
            ``profiles list --system NAME`` (None: the CLI's StarCraft path).
        show_profile: ``(name, profile_dirs) -> (json_dict, human_text)`` for
            ``profiles show NAME --system NAME`` (None: the CLI's StarCraft path).
    """

    name: str
    aliases: tuple[str, ...]
    title: str
    adhoc_flags: frozenset[str]
    run_adhoc: Callable[[dict[str, Any], dict[str, Any], bool], tuple[dict[str, Any], str, list[str]]]
    named_flags: frozenset[str] = frozenset()
    run_named: Callable[[str, str, dict[str, Any], dict[str, Any]], tuple[dict[str, Any], str, list[str]]] | None = None
    compare_rows: Callable[[str, list[str], dict[str, Any], dict[str, Any]], list[dict[str, Any]]] | None = None
    matchup_rows: Callable[[str, str, dict[str, Any], dict[str, Any]], list[dict[str, Any]]] | None = None
    list_profiles: Callable[[list[str]], tuple[list[dict[str, Any]], str]] | None = None
    show_profile: Callable[[str, list[str]], tuple[dict[str, Any], str]] | None = None


_REGISTRY: dict[str, GameSystem] = {}


def register(system: GameSystem) -> None:
    """Add a system; its name and aliases must be new."""
    for key in (system.name, *system.aliases):
        if key.lower() in _REGISTRY:
            raise ValueError(f"system name {key!r} is taken by {_REGISTRY[key.lower()].name!r}")
    for key in (system.name, *system.aliases):
        _REGISTRY[key.lower()] = system


def _load_builtin() -> None:
    # Always import both: a module imported first on its own (a doctest of grimdark/system.py) has
    # registered only itself; a second import is a no-op, so nothing registers twice.
    from .grimdark import system as _grimdark  # noqa: F401
    from .starcraft import system as _starcraft  # noqa: F401


def names() -> list[str]:
    """Canonical names of the registered systems."""
    _load_builtin()
    return sorted({s.name for s in _REGISTRY.values()})


def get(name: str) -> GameSystem:
    """Find a system by name or alias, case-insensitively."""
    _load_builtin()
    system = _REGISTRY.get(str(name).strip().lower())
    if system is None:
        allowed = ", ".join(
            f"{s.name} ({', '.join(s.aliases)})" for s in {id(s): s for s in _REGISTRY.values()}.values()
        )
        close = difflib.get_close_matches(str(name).lower(), list(_REGISTRY), n=1)
        raise InputError("--system", name, allowed, f"did you mean {_REGISTRY[close[0]].name!r}?" if close else "")
    return system
