"""What a card's plan check may read and call of the walk state of ``scenario check``: :class:`CheckView`, a Protocol
(the plan check's counterpart of :class:`~mathhammer.scenario.simview.SimView`).

Ability cards (``cards/``) type their checks with this Protocol, never with the check package's walk state, so a card
module imports nothing of ``check`` (no import cycle); the walk state satisfies it structurally. The Reaction check of
a card is a :class:`ReactionCheck` subclass, the plan check of its Active abilities and Statuses a :class:`CardCheck`
subclass (``Card.plan_check``), both found by the check package through the cards registry; with the pure helpers
their messages share (:func:`trigger`, :func:`too_far`, :func:`within_now`, :func:`available`, :func:`need`,
:func:`in_enemy_zone`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from ..starcraft.schema import Ability, Effect
from .abilities import is_structure
from .lookup import Found, Purse, counts_for_pool, used_effect
from .spec import Activation, Reaction, Scenario, ScenarioUnit
from .world import Coord, World

#: Reports a problem of one activation.
Say = Callable[[Activation, str], None]


class CheckView(Protocol):
    """The part of the plan walk's state (``check.common._State``) a card's check uses, at the activation checked."""

    scn: Scenario
    world: World
    #: the planned placement of each unit on the table at this point of the plan
    pos: dict[str, int]
    #: units with the Burrowed Status at this point of the plan (part 11 BURROWED)
    down: set[str]
    #: Creep Tumor tokens set so far: (centre, player)
    tumors: list[tuple[tuple[float, float], str]]
    #: detection's Faction Indicators this Round: (centre, player, inches)
    seen_by: list[tuple[tuple[float, float], str, float]]
    #: Summoned Units set by the plan: the (Round, Phase) each was set in
    summoned_at: dict[str, tuple[int, str]]
    #: this Round's Supply Pool (None: unlimited, 8.3.1 Final Round)
    pool: int | None
    #: activations with a token for the End of the Round this Round (Psionic Transfer, Ready for Dust-Off)
    ending: list[Activation]
    #: Force Fields set this Round: (centre, the largest Size they stop)
    fields_now: list[tuple[tuple[float, float], int]]
    #: (table edge, the player who closes it) this Round (Comsat Station)
    closed: list[tuple[str, str]]
    #: uses of each (unit, ability name) this Round
    used: dict[tuple[str, str], int]
    #: (unit, player) deployed so far this Round
    deployed: list[tuple[str, str]]
    #: per unit whose base is an Entry Edge: the Supply (or units) Deployed by it this Round
    via_used: dict[str, int]

    def say(self, act: Activation, msg: str) -> None:
        """Report a problem of ``act``."""

    def warn(self, act: Activation, msg: str) -> None:
        """Report a warning about ``act``."""

    def occupied(self, but: str) -> tuple[int, ...]:
        """The placements of the units on the table but ``but``."""
        ...

    def set_unit(self, act: Activation, to: tuple[float, float], level: str | None, field: str) -> bool:
        """Set ``act``'s unit with its Leading Model at ``to`` on ``level`` (8.5.3), a ``field`` error where it cannot
        be: True where it was set (``pos`` updated)."""
        ...

    def as_set(self, unit: str) -> ScenarioUnit:
        """``unit`` as a Move sets it in the walk's state: its models left only (``World.models_left``)."""
        ...


class CardCheck:
    """The plan check of one card or effect family's Active abilities and Statuses (``Card.plan_check``): its hooks at
    the walk's trigger points, each given the walk state ``chk`` (:class:`CheckView`). Every hook is optional (the
    defaults do nothing); ``scenario check`` calls them for every registered card's check, in ascending ``order``,
    and ``on_use`` only where ``act`` uses one of ``kinds``."""

    #: the effect kinds whose use calls :meth:`on_use`
    kinds: ClassVar[tuple[str, ...]] = ()
    #: where the hooks run among the other cards' (ascending; ``on_use``: the order the rules resolve them in)
    order: ClassVar[int] = 1000
    #: a Passive ability of the card that :meth:`deploys` is planned in ``use`` on the Deploy it resolves on
    passive_on_deploy: ClassVar[bool] = False

    @classmethod
    def used(cls, chk: CheckView, act: Activation) -> bool:
        """An ability of ``act``'s ``use`` has an effect of one of ``kinds``."""
        return any(used_effect(chk.scn, act, k) is not None for k in cls.kinds)

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """Start of Round ``rnd``, after the per-Round state is reset."""

    @staticmethod
    def activates_next(scn: Scenario, act: Activation) -> str | None:
        """The unit that Activates right after ``act`` (before the opponent's next activation, 8.2.1), or None: the
        walk's turn order (``check/order.py``)."""
        return None

    @staticmethod
    def claims_first(scn: Scenario, act: Activation) -> bool:
        """``act`` claims the First Player Marker for the rest of the Phase (the walk's turn order)."""
        return False

    @staticmethod
    def activation_ok(chk: CheckView, act: Activation) -> bool:
        """Start of an activation, before its abilities: False ends the check of ``act``."""
        return True

    @staticmethod
    def use_ok(chk: CheckView, act: Activation, found: Found) -> None:
        """One Active ability of ``use`` (after the chapter 10 checks of the walk)."""

    @staticmethod
    def picked(chk: CheckView, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
        """``select`` names ``unit`` for ``a`` (its effects that select: ``picks``; the side and tags are checked):
        True where this card has checked the pick (10.1's range and table checks are then skipped)."""
        return False

    @staticmethod
    def after_select(chk: CheckView, act: Activation, acted: set[str], again: set[str]) -> None:
        """After the ``select`` checks; ``acted``: the player's units activated so far in this Phase, ``again``: those
        whose Activation Marker an ability removed (add to it)."""

    @staticmethod
    def after_reactions(chk: CheckView, act: Activation, engaged: bool) -> bool:
        """Every activation, after its Reactions (``engaged``: the unit is Engaged at this point of the plan): True
        where it moved a unit."""
        return False

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        """An ability of ``use`` sets a token or Faction Indicator (at ``token_at``)."""
        return False

    @staticmethod
    def token(chk: CheckView, act: Activation, xy: tuple[float, float]) -> None:
        """The token of ``act`` at ``xy``, on the battlefield (:meth:`sets_token` is True)."""

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """``act`` uses one of ``kinds``, before its action: True ends the activation."""
        return False

    @staticmethod
    def before_action(chk: CheckView, act: Activation, engaged: bool) -> bool:
        """Every activation not ended by ``on_use``, before its action: True where it moved a unit."""
        return False

    @staticmethod
    def after_shoot(chk: CheckView, act: Activation) -> None:
        """After the checks of a Ranged Attack."""

    @staticmethod
    def instead_of_action(chk: CheckView, act: Activation, on: bool, engaged: bool) -> bool:
        """Before the action (``on``: the unit is on the table; ``engaged``: Engaged): True where an ability replaces
        the action (the activation ends there)."""
        return False

    # The questions the walk asks the cards (the first answer that is not None, or any True, in ``order``).
    @staticmethod
    def reads(chk: CheckView, act: Activation) -> frozenset[str]:
        """The plan fields of ``act`` this card reads (``edge``, ``summon_to``): one given with no card reading it is an
        error of the walk."""
        return frozenset()

    @staticmethod
    def hidden(chk: CheckView, unit: str) -> str | None:
        """The facts tag under which this card makes ``unit`` (a planned target on the table) HIDDEN at this point of
        the plan (``"Burrowed"``, ``"Hidden"``: not Visible beyond 4", part 11), or None."""
        return None

    @staticmethod
    def detected(chk: CheckView, unit: str) -> bool:
        """This card reveals the HIDDEN ``unit`` at this point of the plan (Detection)."""
        return False

    @staticmethod
    def on_creep(chk: CheckView, unit: str) -> bool:
        """``unit`` (on the table) is ON CREEP at this point of the plan, for its ON CREEP effects. A hook reads only
        ``chk.scn``, ``chk.world``, ``chk.pos`` and ``chk.tumors``: the automatic players' Move verdicts call it with
        those four alone (``players/moveverdicts.py``; tests/test_autoplay_moveverdicts.py holds them to the walk)."""
        return False

    @staticmethod
    def charge_only(e: Effect) -> str | None:
        """Effect ``e`` (of an ability used) is this card's and acts on a Charge only (8.7.7): ``"roll"`` (the Charge
        Roll, on every Charge) or ``"impact"`` (IMPACT, only for a unit that resolves IMPACT), else None."""
        return None

    @staticmethod
    def charge_walls(chk: CheckView, act: Activation) -> tuple[tuple[float, float], ...]:
        """The centres of this card's tokens that ``act``'s unit cannot move across in its Charge at this point of the
        plan (8.7.7; Force Field), or ()."""
        return ()

    @staticmethod
    def charge_again(chk: CheckView, act: Activation) -> str | None:
        """The Charge of ``act``, where it succeeds, is followed through this card by a second Charge against the Enemy
        unit returned (its Reaction check names a pick it refuses: then None), or None."""
        return None

    @staticmethod
    def cost_off(
        scn: Scenario, world: World, pos: dict[str, int], unit: str, found: Found, taken: set[tuple[str, str]]
    ) -> int:
        """How much less ``unit`` pays for ``found`` (an ability with a cost in a resource) through this card's
        effects at the placements ``pos``, each "Once per Round" reduction taken recorded in ``taken``
        (unit, ability)."""
        return 0

    @staticmethod
    def lifts_penalty(chk: CheckView, act: Activation, effects: Sequence[Effect]) -> bool:
        """An effect on ``act``'s unit now (``effects``: of its loadout this Round) lifts 8.5.4's Disengage penalty."""
        return False

    @staticmethod
    def has_end_of_round(chk: CheckView, pos: dict[str, int], player: str) -> bool:
        """``player`` has End of the Round effects of this card this Round (``pos``: the placements at its end)."""
        return False

    @staticmethod
    def end_of_round(chk: CheckView, say: Say, pos: dict[str, int], player: str) -> None:
        """``player``'s End of the Round effects of this card (8.9.4) on the placements ``pos`` (the walk's copy for
        the order of the players it tries), each problem through ``say``."""

    @staticmethod
    def deploys(a: Ability) -> bool:
        """``a`` is the unit's Deploy itself through this card (Warp In, Burrow Ambush): used from Reserves (8.5.5, FAQ
        v1.0: rules that handle the unit's own deployment)."""
        return False

    @staticmethod
    def deploy_edge(chk: CheckView, act: Activation) -> str | None:
        """A Deploy of ``act`` by another table edge through this card: the edge it enters by (checked here), or None
        (the player's Entry Edge)."""
        return None

    @staticmethod
    def keep_away(chk: CheckView, act: Activation) -> float | None:
        """A Deploy of ``act`` through this card sets no model Within this many inches of an Enemy model, or None."""
        return None

    @staticmethod
    def deploy_via(chk: CheckView, act: Activation) -> tuple[float, float] | None:
        """A Deploy through the base of the plan's ``via``: checked here; the direction the models behind the Leading
        Model are set in, or None."""
        return None

    @staticmethod
    def deploy_start(chk: CheckView, act: Activation) -> bool:
        """A Deploy of ``act`` sets the unit in this card's own way (PLACE), checked here before it is set: True where
        the distance from the Entry Edge is not the walk's to check."""
        return False

    @staticmethod
    def deploy_end(chk: CheckView, act: Activation, pid: int) -> None:
        """A Deploy of ``act`` set the unit at placement ``pid`` (not yet in ``pos``)."""

    @staticmethod
    def after_move(chk: CheckView, act: Activation) -> bool:
        """A Move, Run or Disengage of ``act`` has set the unit: True where this card returns it to Reserves."""
        return False


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


def available(scn: Scenario, pos: dict[str, int], player: str, pool: int) -> int:
    """8.3.2 Available Supply at this point of the plan: the Supply Pool less the Supply of the player's units on the
    table (full strength; a unit whose Supply "counts as 0 when calculating the Supply Pool" counts 0)."""
    return pool - sum(
        scn.units[u].supply(scn.units[u].models)
        for u in pos
        if scn.units[u].player == player and counts_for_pool(scn.units[u])
    )


def need(su: ScenarioUnit) -> int:
    """The Supply a unit needs to arrive (8.3.2): its Current Supply Value at full strength, 0 for a Structure or a
    unit that counts 0 for the Supply Pool (Advanced Medic Facilities)."""
    return 0 if is_structure(su) or not counts_for_pool(su) else su.supply(su.models)


def zone_gap(world: World, su: ScenarioUnit, player: str, centres: Sequence[Coord]) -> float:
    """8.3.3: how far the nearest base of ``su`` (of ``player``) at ``centres`` stands outside the opponent's Zone of
    Influence, less EPS (at most 0: Within it; :meth:`World.zone_gap`, the one reading of the zone)."""
    return world.zone_gap(su, world.arrival_zone(player), centres)


def in_enemy_zone(world: World, unit: str, player: str, pid: int) -> bool:
    """8.3.3: a model of ``unit`` (of ``player``) at placement ``pid`` is Within the opponent's Zone of Influence."""
    return zone_gap(world, world.scn.units[unit], player, world.placements[pid].centres) <= 0


__all__ = [
    "CardCheck",
    "CheckView",
    "ReactionCheck",
    "Say",
    "available",
    "in_enemy_zone",
    "need",
    "too_far",
    "trigger",
    "within_now",
    "zone_gap",
]
