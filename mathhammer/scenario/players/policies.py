"""The automatic players' policies, registered by name: how a player picks one activation per game among the legal
entries of its units' menus (:mod:`.menu`, :mod:`.legal`; the player that asks is :class:`~.auto.Auto`).

A policy is a class with a ``choose(decision)`` method (:class:`Decision`: the games deciding, the units that may
still activate, their legal entries, the game's own uniforms), registered under a name with :func:`policy`::

    @policy("mine")
    class Mine:
        def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
            ...  # per game: the unit's index in d.units (-1: Pass) and the entry's index in its menu

A choice must depend on each game alone (its state and its draws ``d.draw``), never on which other games are
deciding with it: then a game plays the same whatever the grouping or the number of workers.

Built in (step 4 of ``docs/dev/automatic-players.md``): ``random``, the floor any policy must beat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ...errors import InputError
from .menu import Entry


@dataclass(frozen=True)
class Decision:
    """One decision of a player in the games ``games`` (the same Round, Phase and slot in each).

    ``units``: the player's unit indices (World order); ``free``: games x units, the unit may still activate in this
    Phase (alive, not activated, on the table in the Assault Phase; a pre-filter: ``legal`` is the rule);
    ``legal(j, rows)``: games ``games[rows]`` x entries of unit ``units[j]``'s menu, the entries :mod:`.legal` admits
    (Pass left out); ``entries(j)``: that menu; ``draw(i, rows)``: the ``i``-th uniform of this decision in games
    ``games[rows]``, a function of (seed, game number, Round, Phase, slot, i) only.
    """

    games: np.ndarray
    units: list[int]
    free: np.ndarray
    legal: Callable[[int, np.ndarray], np.ndarray]
    entries: Callable[[int], tuple[Entry, ...]]
    draw: Callable[[int, np.ndarray], np.ndarray]


class Policy(Protocol):
    def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
        """Per game of ``d.games``: the index in ``d.units`` of the unit to activate (-1: Pass) and its entry."""
        ...


#: name -> policy class (:func:`policy`)
POLICIES: dict[str, type] = {}


def policy(name: str) -> Callable[[type], type]:
    """Register a policy class under ``name`` (a second class under the same name is refused)."""

    def register(cls: type) -> type:
        if name in POLICIES and POLICIES[name] is not cls:
            raise InputError("policy", name, f"a name not yet registered (taken: {', '.join(sorted(POLICIES))})")
        POLICIES[name] = cls
        return cls

    return register


def allowed() -> str:
    """What a policy name may be, for messages."""
    return f"a policy: {', '.join(sorted(POLICIES))}"


def make_policy(name: str, field: str = "policy") -> Policy:
    """The policy registered under ``name``; an unknown name is refused naming ``field``."""
    cls = POLICIES.get(name)
    if cls is None:
        raise InputError(field, name, allowed())
    made: Policy = cls()
    return made


def nth_true(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per row of ``mask``: the column of its ``k``-th True (0-based; ``k`` below the row's count).

    >>> nth_true(np.array([[True, False, True], [False, True, True]]), np.array([1, 0])).tolist()
    [2, 1]
    """
    return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)


@policy("random")
class Random:
    """A uniformly random legal action: the unit uniformly among the units with a legal entry (a random order of the
    free units, per game, the first with one), then its entry uniformly among its legal ones (Hold included, Pass
    only where no unit has any: 8.2.1). Each unit's menu is judged only where it is reached in a game's order."""

    def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
        n, width = d.games.size, len(d.units)
        unit = np.full(n, -1, dtype=np.int64)
        entry = np.full(n, -1, dtype=np.int64)
        if n == 0 or width == 0:
            return unit, entry
        every = np.arange(n)
        keys = np.stack([d.draw(1 + j, every) for j in range(width)], axis=1)
        keys[~d.free] = np.inf
        order = np.argsort(keys, axis=1, kind="stable")
        pick = d.draw(0, every)
        for col in range(width):
            cand = order[:, col]
            todo = (unit < 0) & d.free[every, cand]
            if not todo.any():
                break
            for j in np.unique(cand[todo]).tolist():
                rows = np.flatnonzero(todo & (cand == j))
                mask = d.legal(j, rows)
                count = mask.sum(axis=1)
                ok = count > 0
                if not ok.any():
                    continue
                rows, mask, count = rows[ok], mask[ok], count[ok]
                k = np.minimum((pick[rows] * count).astype(np.int64), count - 1)
                unit[rows] = j
                entry[rows] = nth_true(mask, k)
        return unit, entry


__all__ = ["POLICIES", "Decision", "Policy", "Random", "allowed", "make_policy", "nth_true", "policy"]
