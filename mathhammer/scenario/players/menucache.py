"""The automatic players' menus kept by the scenario's content: the same board, units and cards in one process give
the same menus (:func:`~.menu.build_menus`: "the same scenario, the same menus"), built once however many Scenarios,
Worlds and Simulations are made of them (a notebook running many commands, the test suite).

What :func:`~.menu.build_menus` reads, and so what :func:`menus_key` digests (the whole of each object named, every
field, nested cards and all):

* the units (``Scenario.units``, in order): each id, player, Summoned or not, and its loadout: the unit card (Speed,
  base, Combat Tags, weapons and their Phases, abilities), the models, the upgrades (their Speed, weapons, abilities)
  and the abilities switched on;
* the Faction and Tactical Cards' abilities of each player (:func:`~mathhammer.scenario.lookup.card_abilities`: the
  armies' ``faction`` and ``tactical`` names and those cards of the roster);
* the board (``Scenario.board``): its width and depth, every terrain piece (id, footprint, Size, surface, what it
  stands on, ACCESS POINTs, GRASS, Token, height) and the models on it;
* the deployment (``Scenario.deployment``): the Entry Edges (:attr:`World.edges`), the Zone depth, the Mission
  Markers (numbers and points), the card's name and source, and ``Scenario.deployment_card``;
* of the Mission Card (``Scenario.mission``) only whether it grants the Gather Action (its other fields, the game's
  length among them, change no menu);
* the menu's own settings (:data:`~.menu.MOVE_ABILITIES`, :data:`~.menu.HEADINGS`, :data:`~.menu.MARGIN` and the
  other constants of :mod:`.menu`, the path obstacles' growth :data:`~mathhammer.board.cspace.GROW`), read at each
  call (a test switches :data:`~.menu.MOVE_ABILITIES`);
Not read, not keyed: the plan, the scenario's name, file, description, first player, ``policy`` and ``policies``
(which players are automatic). The World's answers the menus read (a base on the terrain, the level of a point, a way
round the terrain on an empty table, the footprints a base may not overlap) are functions of the board alone; the
menus are kept only where the World's scenario has the same key as the scenario asked (a Simulation handed another's
World).

A key is a digest of a canonical form of those objects (:func:`content`: every dataclass field, pydantic field and
card attribute by name, the class named); an object of another kind makes no key, and the menus are then built as
before, not kept. At most :data:`KEPT` menus are kept, the least recently used dropped first. The menus handed out
are copies whose entries are the kept ones (:class:`~.menu.Entry` is frozen, each Phase's entries a tuple): nothing a
caller does to its dict reaches the next caller.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections import OrderedDict
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from ...board.cspace import GROW
from ..lookup import card_abilities
from ..spec import PLAYERS, Scenario
from ..world import World
from . import menu
from .menu import UnitMenu, build_menus

#: the most menus kept by content (a few scenarios in turn; the least recently used dropped first)
KEPT = 16
#: the menus by their scenario's key (:func:`menus_key`), the most recently used last
_KEPT: OrderedDict[str, dict[str, UnitMenu]] = OrderedDict()
#: the menus of a World (the same for every Simulation sharing it: the forked workers inherit the pilot's), so that a
#: World's scenario is digested once
_BY_WORLD: WeakKeyDictionary[World, dict[str, UnitMenu]] = WeakKeyDictionary()
#: the settings of :mod:`.menu` its menus depend on (read at each call)
SETTINGS = (
    "MARGIN",
    "CONTEST_SPOT",
    "COVER_GAP",
    "LANE_GAP",
    "ROUTE_CLEAR",
    "ROUTE_TIE",
    "ROUTE_WAYS",
    "ROUTE_BACK",
    "KINDS",
    "MOVE_ABILITIES",
    "HEADINGS",
    "ATTACK_USE",
)


class UnkeyedError(TypeError):
    """An object :func:`content` has no canonical form for: its menus are built, not kept."""


def content(obj: Any, seen: dict[int, Any] | None = None) -> Any:
    """A canonical form of ``obj`` made of tuples, strings, numbers and None: two objects with the same form have the
    same content (the class by module and name; a dataclass's every field, a pydantic model's every field, any
    other object's ``__dict__``; a dict's items in order, a set's sorted; a float by its ``repr``, exact). Raises
    :class:`UnkeyedError` for an object with state out of reach (``__slots__`` without ``__dict__``, a C type)."""
    if obj is None or isinstance(obj, bool | int | str | bytes):
        return (type(obj).__name__, obj)
    if isinstance(obj, float):
        return ("float", repr(obj))
    seen = {} if seen is None else seen
    hit = seen.get(id(obj))
    if hit is not None:
        return hit[1]
    out = _content(obj, seen)
    seen[id(obj)] = (obj, out)  # the object kept alive with its form: its id is not reused while ``seen`` lives
    return out


def _content(obj: Any, seen: dict[int, Any]) -> Any:
    kind = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if isinstance(obj, enum.Enum):
        return (kind, content(obj.value, seen))
    if isinstance(obj, list | tuple):
        return (kind, *(content(v, seen) for v in obj))
    if isinstance(obj, dict):
        return (kind, *((content(k, seen), content(v, seen)) for k, v in obj.items()))
    if isinstance(obj, set | frozenset):
        return (kind, *sorted((content(v, seen) for v in obj), key=repr))
    if isinstance(obj, np.ndarray):
        return (kind, obj.dtype.str, obj.shape, obj.tobytes())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (kind, *((f.name, content(getattr(obj, f.name), seen)) for f in dataclasses.fields(obj)))
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, dict) and hasattr(obj, "model_dump"):  # a pydantic model (a PlainCard has no model_fields)
        extra = getattr(obj, "__pydantic_extra__", None) or {}
        private = getattr(obj, "__pydantic_private__", None) or {}
        if extra or private:
            raise UnkeyedError(f"{kind} with extra or private attributes")
        return (kind, *((name, content(getattr(obj, name), seen)) for name in fields))
    state = getattr(obj, "__dict__", None)
    if isinstance(state, dict) and not hasattr(type(obj), "__slots__"):
        return (kind, *((name, content(v, seen)) for name, v in state.items()))
    raise UnkeyedError(kind)


def menus_key(scn: Scenario) -> str | None:
    """The digest of what :func:`~.menu.build_menus` reads of ``scn`` and of :mod:`.menu`'s settings (the module
    text); None where part of it has no canonical form (:class:`UnkeyedError`)."""
    try:
        form = content(
            (
                tuple(scn.units.items()),
                tuple((p, tuple(card_abilities(scn, p))) for p in PLAYERS if p in scn.armies),
                tuple((p, scn.armies[p].faction, tuple(scn.armies[p].tactical)) for p in PLAYERS if p in scn.armies),
                scn.board,
                scn.deployment,
                scn.deployment_card,
                ("gather_action", scn.mission.gather_action),
                tuple((name, getattr(menu, name)) for name in SETTINGS),
                ("GROW", GROW),
            )
        )
    except UnkeyedError:
        return None
    return hashlib.blake2b(repr(form).encode(), digest_size=20).hexdigest()


def _copy(menus: dict[str, UnitMenu]) -> dict[str, UnitMenu]:
    """Fresh dicts round the kept entries (the entries and their tuples are immutable)."""
    return {uid: UnitMenu(m.unit, m.player, dict(m.phases)) for uid, m in menus.items()}


def menus_for(scn: Scenario, world: World) -> dict[str, UnitMenu]:
    """The menus of ``scn`` on ``world`` (:func:`~.menu.build_menus`), built once per content (the module text):
    those of ``world`` if they were asked before of its own scenario, else those kept under the scenario's key, else
    built (and kept)."""
    own = world.scn is scn
    got = _BY_WORLD.get(world) if own else None
    if got is not None:
        return _copy(got)
    key = menus_key(scn)
    if key is not None and not own and menus_key(world.scn) != key:
        key = None  # a World of other content: its answers are not those the key stands for
    if key is None:
        got = build_menus(scn, world)
    else:
        got = _KEPT.get(key)
        if got is None:
            got = _KEPT[key] = build_menus(scn, world)
            while len(_KEPT) > KEPT:
                _KEPT.popitem(last=False)
        else:
            _KEPT.move_to_end(key)
    if own:
        _BY_WORLD[world] = got
    return _copy(got)


def forget() -> None:
    """Drop every kept menu (a test of a first build)."""
    _KEPT.clear()
    _BY_WORLD.clear()


__all__ = ["KEPT", "SETTINGS", "UnkeyedError", "content", "forget", "menus_for", "menus_key"]
