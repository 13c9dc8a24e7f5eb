"""What a card's plan check may read and call of the walk state of ``scenario check``: :class:`CheckView`, a Protocol
(the plan check's counterpart of :class:`~mathhammer.scenario.simview.SimView`).

Ability cards (``cards/``) type their checks with this Protocol, never with the check package's walk state, so a card
module imports nothing of ``check`` (no import cycle); the walk state satisfies it structurally. The Reaction check of
a card is a :class:`ReactionCheck` subclass the check package finds through the cards registry, with the pure helpers
its messages share (:func:`trigger`, :func:`too_far`, :func:`within_now`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from ..starcraft.schema import Ability, Effect
from .lookup import Found, Purse
from .spec import Activation, Reaction, Scenario
from .world import World

#: Reports a problem of one activation.
Say = Callable[[Activation, str], None]


class CheckView(Protocol):
    """The part of the plan walk's state (``check.common._State``) a card's check uses, at the activation checked."""

    scn: Scenario
    world: World
    #: the planned placement of each unit on the table at this point of the plan
    pos: dict[str, int]

    def say(self, act: Activation, msg: str) -> None:
        """Report a problem of ``act``."""

    def warn(self, act: Activation, msg: str) -> None:
        """Report a warning about ``act``."""


class ReactionCheck:
    """One Reaction family's checks (10.4). ``match``: the effect of ``a`` the family answers for (None: not this
    family); ``check``: the trigger and target of Reaction ``rx`` in ``act`` (``at``: where it is planned, ``found``:
    its ability, ``own``: planned by the active player, ``e``: what ``match`` read). ``paid_at_use``: the family pays
    its cost in :meth:`before_use` (before the Active abilities), not with the other Reactions. ``order``: where the
    family is tried among the others (ascending; the first whose ``match`` reads an effect checks the Reaction)."""

    paid_at_use: ClassVar[bool] = False
    order: ClassVar[int] = 1000

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return None

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        """The Reaction's trigger and target."""

    @staticmethod
    def before_use(chk: CheckView, act: Activation, purse: Purse, off: dict[str, int]) -> None:
        """Before the Active abilities of ``act`` are paid: add to ``off`` the cost reductions per resource."""


def trigger(say: Say, act: Activation, at: str, a: Ability, what: str, where: str, text: bool = True) -> None:
    """Reaction ``a`` (``at``: where it is planned) answers a trigger the activation cannot produce (10.4: a Reaction
    is declared at the moment of its trigger)."""
    quoted = f" (its text: {a.text!r})" if text else ""
    say(act, f"{at}: {a.name!r} answers {what}{quoted}: plan it on {where} (10.4: declared at its trigger)")


def too_far(say: Say, act: Activation, at: str, a: Ability, unit: str, reacting: str, inches: float, who: str) -> None:
    """Reaction ``a`` answers ``who`` Within ``inches`` of ``reacting``; ``unit`` is not, where the plan has them."""
    say(
        act,
        f'{at}: {unit!r} is not Within {inches:g}" of {reacting!r} at this point of the plan ({a.name!r} answers '
        f'{who} Within {inches:g}", 10.4)',
    )


def within_now(scn: Scenario, world: World, pos: dict[str, int], a: str, b: str, inches: float) -> bool:
    """Are units ``a`` and ``b`` Within ``inches`` at this point of the plan (full strength, bases edge to edge)?
    True where either is not on the table (another check names that) or they are one unit."""
    if a == b or a not in pos or b not in pos:
        return True
    return world.within(pos[a], scn.units[a].models, pos[b], scn.units[b].models, float(inches))


__all__ = ["CheckView", "ReactionCheck", "Say", "too_far", "trigger", "within_now"]
