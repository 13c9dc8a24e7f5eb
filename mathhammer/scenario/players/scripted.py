"""The scripted player: the activations its scenario file plans, in order (8.2.1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..spec import Activation, Scenario
from . import Turn


@dataclass
class Planned:
    """What is left of the player's planned activations of a Phase, for a group of games."""

    acts: list[Activation]
    index: int = 0


class Scripted:
    """A player whose activations are its plan's (``[[rounds]]`` of the scenario file).

    A ``pass`` entry ends the player's activations of the Phase; the planned activations of units not in ``left``
    (destroyed, or off the table in the Assault Phase) are dropped, so a player with none left Passes at once. An
    activation that has a unit Activate right after it (``activates_next``: Bound by the Khala, SUMMON's Parent
    Unit) brings that unit's later activation forward, before the opponent's next one.
    """

    def __init__(
        self,
        scn: Scenario,
        player: str,
        uids: Sequence[str],
        activates_next: Sequence[Callable[[Activation], str | None]],
    ) -> None:
        self.scn = scn
        self.player = player
        self.index = {uid: i for i, uid in enumerate(uids)}
        self.activates_next = activates_next

    def begin(self, rnd: int, phase: str, left: set[int] | None) -> Planned:
        acts = list(self.scn.activations(rnd, phase, self.player))
        cut = next((j for j, a in enumerate(acts) if a.action == "pass"), None)
        if cut is not None:
            acts = acts[:cut]
        if left is not None:
            acts = [a for a in acts if self.index[a.unit] in left]
        return Planned(acts)

    def next(self, games: np.ndarray, state: Planned) -> list[Turn]:
        acts, i = state.acts, state.index
        if i >= len(acts):
            return [Turn(games, None, state)]
        act = acts[i]
        state = Planned(acts, i + 1)
        nxt = next((n for hook in self.activates_next if (n := hook(act)) is not None), None)
        if nxt is not None:
            j = next((k for k in range(i + 1, len(acts)) if acts[k].unit == nxt), None)
            if j is not None:
                later = list(acts)
                later.insert(i + 1, later.pop(j))
                return [Turn(games, act, Planned(later, i + 1), again=True)]
        return [Turn(games, act, state)]


__all__ = ["Planned", "Scripted"]
