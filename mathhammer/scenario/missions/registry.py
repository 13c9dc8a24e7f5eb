"""The registry of scoring kinds: one small class per way a Mission Card scores (8.9.2, 9.2.1).

A Mission Card in ``profiles/missions.toml`` names its kinds: ``every_round`` (the scoring done in every Round,
"Score VPs equal to Enemy Supply destroyed this Round") and ``scoring`` (the card's own, from the Round
``scoring_from_round``: "FROM THE START OF THE SECOND ROUND: ..."); the card's numbers for that kind are its
``[missions.points]`` table, validated by the kind's ``Points`` model when the file is read. The simulation calls
the kinds through :mod:`mathhammer.scenario.mission` (setup, start of the Round, scoring, the Gather Action),
never a mission by name.

A kind sees the games through a :class:`Play` (the Scoring step's view, written in ``mission.py``), so this module
and the kinds import nothing of the simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict


class Points(BaseModel):
    """A kind's numbers from the card (``[missions.points]``); none by default."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


_NoPoints = Points


class Play(Protocol):
    """What a scoring kind may read and change: the games ``live`` of one Round (see ``mission.Play``)."""

    sim: Any  # the Simulation: its per-game arrays (vp, control, gained, active, activated_round, removed_marker)
    live: np.ndarray
    round: int

    @property
    def table(self) -> np.ndarray: ...  # contesting[u, m, t] after this Scoring Phase's control step (8.9.1)
    def player(self, u: int) -> int: ...
    def colour(self, m: int) -> str: ...
    def holders(self) -> Iterator[tuple[int, int, np.ndarray]]: ...
    def score_held(self, points: list[list[int]], bonus: list[list[int]] | None = None) -> None: ...
    def draw(self, salt: int) -> np.ndarray: ...
    def destroyed_supply(self) -> np.ndarray: ...  # per player and game: 0 in the games not in ``live``
    def objective_supply(self) -> np.ndarray: ...
    def quarter_groups(self, u: int) -> Iterator[tuple[int, np.ndarray]]: ...
    def marker_gaps(self, u: int, trials: np.ndarray) -> Iterator[tuple[np.ndarray, list[float]]]: ...


class ScoringKind:
    """One scoring rule of a Mission Card; subclasses quote their card and register with :func:`register`.

    Hooks (each does nothing unless overridden): :meth:`setup` before Round 1, :meth:`start_of_round`,
    :meth:`before_control` (every Round, before 8.9.1 control changes anything), :meth:`score` (after control,
    every Round for an ``every_round`` kind, from ``scoring_from_round`` for the card's ``scoring``) and
    :meth:`gather` (the Gather Action, where :attr:`gather_action` is true).
    """

    key: ClassVar[str] = ""
    Points: ClassVar[type[_NoPoints]] = _NoPoints
    #: the card grants the Gather Action (Gather the Resources)
    gather_action: ClassVar[bool] = False

    def __init__(self, points: _NoPoints) -> None:
        self.points = points

    def setup(self, play: Play) -> None:
        """Before Round 1 (the Mission Parameters)."""

    def start_of_round(self, play: Play) -> None:
        """START OF THE ROUND."""

    def before_control(self, play: Play) -> None:
        """In the Scoring Phase, before 8.9.1 control."""

    def score(self, play: Play) -> None:
        """In the Scoring Phase, after 8.9.1 control (``play.table``)."""

    def gather(self, play: Play, u: int, trials: np.ndarray) -> None:
        """Unit ``u`` performs the Gather Action in the games ``trials``."""


#: the registered kinds by their ``scoring`` key
KINDS: dict[str, type[ScoringKind]] = {}

K = TypeVar("K", bound=type[ScoringKind])


def register(key: str) -> Callable[[K], K]:
    """Class decorator: register a scoring kind under ``key`` (the ``scoring`` of ``profiles/missions.toml``)."""

    def add(cls: K) -> K:
        if key in KINDS and KINDS[key] is not cls:
            raise ValueError(f"scoring kind {key!r} is registered twice ({KINDS[key].__name__}, {cls.__name__})")
        cls.key = key
        KINDS[key] = cls
        return cls

    return add


__all__ = ["KINDS", "Play", "Points", "ScoringKind", "register"]
