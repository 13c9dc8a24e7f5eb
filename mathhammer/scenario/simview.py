"""What ability code may read and change of a running simulation: :class:`SimView`, a Protocol.

Ability cards (``cards/``) and the ability helpers (``abilities.py``) name this Protocol, never
:class:`~mathhammer.scenario.sim.Simulation`, so they do not import the simulation (no import cycle). The
Simulation satisfies it structurally. Arrays are (units x games) unless said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..starcraft.loadout import Loadout
from ..starcraft.model import Batch
from ..starcraft.schema import Ability
from .grass import Grass
from .spec import Activation, Scenario, ScenarioUnit
from .world import World


@dataclass(frozen=True)
class PoolCut:
    """Dice a card takes out of the Attack Pool of the Batches of a Ranged Attack at unit ``target`` (8.7.4 step 1):
    ``dice`` per game (length ``sim.T``; 0 where none). ``instant``: it applies to a weapon with INSTANT too;
    ``redirected``: it applies too where the attack is redirected to ``target`` (Hierarch's Stand); ``spent``: called
    with the games where a Batch it applied to resolved (None: it lasts the whole attack)."""

    target: int
    dice: np.ndarray
    instant: bool = True
    redirected: bool = True
    spent: Callable[[np.ndarray], None] | None = None


class CardHooks(Protocol):
    """The hooks of the cards in play a card or ability code may call itself (``CardSet``)."""

    before_attack: list[Callable[[list[int], np.ndarray], None]]
    react_begin: list[Callable[[Activation, np.ndarray], None]]
    react_end: list[Callable[[np.ndarray], None]]
    end_status: list[Callable[[int, np.ndarray], None]]
    no_contest_bits: list[Callable[[int], int]]
    contest_supply: list[Callable[[np.ndarray, np.ndarray], np.ndarray]]


class SimView(Protocol):
    """The part of the simulation the rules of abilities use (see :class:`~mathhammer.scenario.sim.Simulation`)."""

    scn: Scenario
    world: World
    grass: Grass  # part 11 GRASS: the pieces removed per game, and the board without them
    T: int
    U: int
    M: int
    round: int
    uids: list[str]
    units: list[ScenarioUnit]
    full: np.ndarray
    pos: np.ndarray
    alive: np.ndarray
    mark: np.ndarray
    shielded: np.ndarray
    used: np.ndarray
    first: np.ndarray
    claimed: np.ndarray
    vp: np.ndarray
    control: np.ndarray
    gained: np.ndarray
    active: np.ndarray
    activated_round: np.ndarray
    removed_marker: np.ndarray
    contest_firsts: np.ndarray
    supply_now: np.ndarray
    contesting: np.ndarray
    ref_supply: np.ndarray
    marker_numbers: list[int]
    acted: np.ndarray
    summoned: list[bool]
    structure: list[bool]
    abilities: list[list[str]]
    skipped: dict[str, int]
    ordinal: dict[Activation, int]
    granted: list[Any]
    givers: dict[str, list[int]]
    inflicted: dict[str, Ability]
    burrowers: set[str]

    @property
    def cards(self) -> CardHooks:
        """The cards in play (their hooks)."""

    def skip(self, act: Activation, n: int, why: str) -> None:
        """Count ``n`` games where ``act`` (or part of it) was not done, with the reason, in the skip report."""

    def draw(self, stream: int, trials: np.ndarray) -> np.ndarray: ...
    def d6(self, stream: int, trials: np.ndarray) -> np.ndarray: ...
    def shield(self, u: ScenarioUnit) -> int: ...
    def supply(self, u: int, alive: np.ndarray) -> np.ndarray: ...
    def loadout(self, u: int, mask: int) -> Loadout: ...
    def effects(self, u: int, mask: int, kind: str) -> list[Any]: ...
    def row_pos(self, u: int) -> int: ...
    def row_alive(self, u: int) -> int: ...
    def row_used(self, u: int) -> int: ...
    def row_board(self) -> int: ...
    def board_pos(self, bid: int) -> tuple[int, ...]: ...
    def groups(
        self, trials: np.ndarray, cols: Sequence[np.ndarray | int]
    ) -> Iterator[tuple[tuple[int, ...], np.ndarray]]: ...
    def set_pos(self, u: int, ts: np.ndarray, pid: int) -> None: ...
    def trim(self, u: int, games: np.ndarray) -> None: ...
    def on_table(self) -> np.ndarray: ...
    def engaged_mask(self, trials: np.ndarray, u: int) -> np.ndarray: ...
    def engaged_one(self, t: int, u: int) -> bool: ...
    def current_supply(self, out: np.ndarray | None = None) -> np.ndarray: ...
    def available(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray: ...
    def supply_fits(self, u: int, reserve: np.ndarray) -> np.ndarray: ...
    def to_reserves(self, u: int, back: np.ndarray) -> None: ...
    def place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        allowed: tuple[str, ...] = (),
        targets_left: tuple[tuple[str, int], ...] = (),
        quiet: bool = False,
        *,
        arriving: bool = False,
    ) -> np.ndarray: ...
    def move_to(
        self,
        u: int,
        movers: np.ndarray,
        to: tuple[float, float],
        act: Activation,
        moving: bool = True,
        headings: int | None = None,
    ) -> np.ndarray: ...
    def resolve(
        self,
        batches: Sequence[Batch],
        t: int,
        phase: str,
        trials: np.ndarray,
        stream: int,
        visible: int | None,
        evade: bool,
        by: int = -1,
    ) -> None: ...


__all__ = ["CardHooks", "PoolCut", "SimView"]
