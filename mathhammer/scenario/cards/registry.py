"""The ability-card registry: each card (or effect family) is a :class:`Card` subclass registered by the effect kinds
it owns; a simulation keeps one instance of each card present in its scenario (:class:`CardSet`) and calls their
hooks at named trigger points (:class:`Trigger`), never a card by name.

A card holds in one place its per-game state (set in ``__init__`` from the simulation: arrays the card reads and
writes, instead of attributes of the Simulation), its simulation hooks, its schema checks (:meth:`Card.validate`,
called for every registered card when a scenario file is read: :func:`validate_all`) and its plan checks (the
:class:`~..checkview.CardCheck` of its Active abilities and Statuses, :attr:`Card.plan_check`, and the
:class:`~..checkview.ReactionCheck` of its Reactions, :attr:`Card.reaction_check`), which ``scenario check`` finds
through :func:`plan_checks` and :func:`reaction_checks`, never by name. See ``profiles/scenarios/README.md`` ("How to
add an ability").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np

from ...starcraft.schema import Ability
from ..checkview import CardCheck, ReactionCheck
from ..lookup import card_abilities, used_effects
from ..simview import PoolCut, SimView
from ..spec import Activation, Scenario


class Trigger(StrEnum):
    """The points of an activation and of a Round where the simulation calls the cards' hooks (method names).

    Arguments: ``u`` the active unit's index, ``act`` the plan's activation, games as arrays of game indices.
    """

    #: ``begin_phase()``: a new Phase begins (8.2.1): the cards' state "in this Phase" goes (counted as Activated,
    #: an Activation Marker removed)
    BEGIN_PHASE = "begin_phase"
    #: ``counts_activated(u, act, trials) -> trials``: the unit's activation comes up: the games where it does not
    #: count as Activated in this Phase already (Zealous Round, Crushing Grip; the card reports the others)
    COUNTS_ACTIVATED = "counts_activated"
    #: ``counted_as_activated(u, games) -> mask``: per game of ``games``, does unit ``u`` count as Activated in this
    #: Phase already (the state ``counts_activated`` reads, with no report; an automatic player's choice of its next
    #: unit reads it); the cards' are or-ed
    COUNTED_AS_ACTIVATED = "counted_as_activated"
    #: ``activate_again(u, act, games) -> mask``: the unit has activated in this Phase in ``games``: per game of
    #: ``games``, may it activate once more (its Activation Marker removed: Orders; spent by the answer)
    ACTIVATE_AGAIN = "activate_again"
    #: ``admit(u, act, trials) -> trials``: the unit is about to be Activated (its plan's conditions met): the games
    #: where it may be (a Structure never is)
    ADMIT = "admit"
    #: ``activates_next(act) -> unit``: the unit the activation has Activate right after it (the first hook's answer
    #: that is not None), read by the order of activations
    ACTIVATES_NEXT = "activates_next"
    #: ``begin_activation(u, act, here)``: the unit becomes Activated (on the table, in ``here``), before its ``use``
    BEGIN_ACTIVATION = "begin_activation"
    #: ``use(u, act, fresh)``: the activation's Active abilities are used; ``fresh``: the games of their first use
    #: this Round. Hooks run in ascending :attr:`Card.order`.
    USE = "use"
    #: ``before_deploy(u, act, reserve) -> reserve``: a Deploy from another table edge is about to be set: the games
    #: where it still may
    BEFORE_DEPLOY = "before_deploy"
    #: ``deploy(u, act, reserve) -> got``: the unit Deploys in the games ``reserve`` (Available Supply checked) in a
    #: card's own way (through a base, by PLACE, from another table edge): the games where it was set, or None where
    #: the activation uses no such ability (then the next card, else the player's Entry Edge). Ascending order.
    DEPLOY = "deploy"
    #: ``moved(u, act, placed)``: a Move, Run or Disengage set unit ``u`` in the games ``placed``
    MOVED = "moved"
    #: ``end_status(u, games)``: unit ``u``'s Statuses end in ``games``: a Move, Run or Disengage is about to set it
    #: (unless a ``keeps_status`` hook kept them), or it returns to Reserves (part 11 BURROWED)
    END_STATUS = "end_status"
    #: ``supply_for_mass(u, trials, supply) -> supply``: the Current Supply Values ``supply`` of unit ``u`` in
    #: ``trials``, as Disengage checks (8.5.4 Tactical Mass) count them: each card's change in turn (BURROWED: 0;
    #: Commander: +1)
    SUPPLY_FOR_MASS = "supply_for_mass"
    #: ``before_fight(u, trials) -> trials``: unit ``u`` is about to fight (8.8.1), before its CLOSE RANKS move: the
    #: games of ``trials`` where it attacks (the others: skip report; BURROWED without Close Ranks)
    BEFORE_FIGHT = "before_fight"
    #: ``select(u, act, here)``: the activation's Active abilities are used (``act.select`` names units): their
    #: effects on the units they select, in the games ``here`` (before the ``use`` hooks)
    SELECT = "select"
    #: ``before_action(u, act, here) -> done``: the abilities used resolve before the action (an extra Move, PLACE) or
    #: instead of it (True: the activation ends; Strap In!). Hooks run in ascending :attr:`Card.order`.
    BEFORE_ACTION = "before_action"
    #: ``may_act(u, act, here) -> here``: after the abilities used and before the Reactions: the games of ``here``
    #: where the unit may perform its planned action (the others: skip report; BURROWED)
    MAY_ACT = "may_act"
    #: ``before_attack(units, trials)``: a Charge, Ranged Attack, fight or RESPAWN of ``units[0]`` at the others is
    #: about to read their statuses (ON CREEP)
    BEFORE_ATTACK = "before_attack"
    #: ``hiders(units) -> {unit: tag}``: a Ranged Attack is declared at ``units``: those that can be HIDDEN (part 11),
    #: each with ``tag(mask) -> str | None``, its Visibility facts tag read from its ``sim.used`` bits ``mask``
    HIDERS = "hiders"
    #: ``before_targeting(units, trials)``: a Ranged Attack is about to read whether ``units`` (those that can be
    #: HIDDEN) are Visible (DETECTED)
    BEFORE_TARGETING = "before_targeting"
    #: ``attack_pool(act, targets, trials) -> cuts``: a Ranged Attack at ``targets`` is declared: the dice taken out of
    #: the Attack Pools of its Batches (:class:`~..simview.PoolCut`, per target and game)
    ATTACK_POOL = "attack_pool"
    #: ``redirect(act, trials) -> guards``: a Ranged Attack is declared: per planned target, the unit that takes the
    #: attack on itself and the games where it may (a Reaction)
    REDIRECT = "redirect"
    #: ``react_begin(act, trials)``: the opponent's Reactions to ``act`` take effect (before its action)
    REACT_BEGIN = "react_begin"
    #: ``react_end(trials)``: the activation is over: the Reactions' effects end
    REACT_END = "react_end"
    #: ``damage_reduction(t) -> (per game, minimum, counted) | None``: a chain of Batches is resolved at unit ``t``:
    #: its Total Damage reduction (8.7.4 step 5), the first card's that has one; ``counted``: None, or where its use
    #: counts the unit as Activated (Zealous Round) the card's row (per game) the games where it was used are set in
    DAMAGE_REDUCTION = "damage_reduction"
    #: ``impact(u, mask, imp) -> imp``: unit ``u`` (abilities ``mask``) resolves IMPACT (X) Y+ ``imp`` after a
    #: successful Charge: the IMPACT it resolves, each card's change in turn
    IMPACT = "impact"
    #: ``charge_again(act) -> unit | None``: the Charge succeeded in some games: the unit a second Charge declares
    #: there (without IMPACT), the first card's that names one
    CHARGE_AGAIN = "charge_again"
    #: ``armour(t, trials) -> steps | None``: a chain of Batches is resolved at unit ``t``: the steps its Armour is
    #: better, per game (length ``sim.T``; None: none from this card); the cards' add up
    ARMOUR = "armour"
    #: ``charge_roll(act, rolls, trials, stream)``: the Charge Roll (8.7.7 step 2) is rolled: change ``rolls`` (per
    #: game) in place
    CHARGE_ROLL = "charge_roll"
    #: ``stays_put(u, mask) -> bool``: unit ``u``, with the abilities ``mask`` used this Round, is about to make its
    #: CLOSE RANKS move (8.8.1 step 1): True where it does not move (SIEGE MODE); any card's True holds
    STAYS_PUT = "stays_put"
    #: ``keeps_status(u, act) -> bool``: a Move or Run of unit ``u`` is about to end its Statuses (part 11 BURROWED):
    #: True where it keeps them (Tunneling Claws); any card's True holds
    KEEPS_STATUS = "keeps_status"
    #: ``lifts_penalty(u, mask) -> bool``: unit ``u`` Disengaged without Tactical Mass (8.5.4) and is about to make a
    #: Ranged Attack or Charge, with the abilities ``mask`` used this Round: True where one lets it (Tactical Retreat)
    LIFTS_PENALTY = "lifts_penalty"
    #: ``charge_declared(act, trials) -> slow``: a Charge is declared: the DEBUFF Speed the charging unit gains, per
    #: game (length ``sim.T``); the largest of the cards' counts
    CHARGE_DECLARED = "charge_declared"
    #: ``after_action(u, act, trials)``: a Move, Run, Disengage, Deploy or Charge of unit ``u`` has ended
    AFTER_ACTION = "after_action"
    #: ``after_attack(u, act, trials)``: unit ``u``'s Ranged Attack is fully resolved and the activation has Reactions
    AFTER_ATTACK = "after_attack"
    #: ``end_of_round(live)``: effects "At the End of the Round" (8.9.4), before the Cleanup
    END_OF_ROUND = "end_of_round"
    #: ``kept_bits(u) -> bits``: 8.9.5 Cleanup is about to end the abilities used: the bits of ``sim.used`` unit ``u``
    #: keeps (a Status: "Statuses aren't removed during the Scoring and Cleanup Phase"); the cards' are or-ed
    KEPT_BITS = "kept_bits"
    #: ``no_contest_bits(u) -> bits``: 8.9.1 contest: the bits of ``sim.used`` whose holder cannot Contest or Control
    #: Mission Markers (part 11 BURROWED); the cards' are or-ed
    NO_CONTEST_BITS = "no_contest_bits"
    #: ``contest_supply(supply, live) -> supply``: 8.9.1: the Supply Values (units x games) for Controlling and
    #: Contesting Mission Markers in the games ``live``, from the Current Supply Values: each card's change in turn
    CONTEST_SUPPLY = "contest_supply"
    #: ``cleanup(live)``: 8.9.5 Cleanup: tokens and "until the End of the Round" effects go
    CLEANUP = "cleanup"


class Card:
    """One ability card or effect family. Subclass, set :attr:`kinds`, override the hooks it needs, and
    :func:`register` it. An instance lives for one simulation and holds that simulation's per-game state."""

    #: the effect kinds (``Effect.kind``) this card owns
    kinds: ClassVar[tuple[str, ...]] = ()
    #: a card whose rule is one value of a ``unit_keyword`` effect (SIEGE MODE: a Status with no kind of its own) owns
    #: no kind and names that keyword here instead
    keyword: ClassVar[str] = ""
    #: where its ``use`` hook runs among the others' (ascending; the order the rules resolve them in)
    order: ClassVar[int] = 100
    #: the plan check of the card's Reactions (10.4), found by ``scenario check`` through :func:`reaction_checks`
    reaction_check: ClassVar[type[ReactionCheck] | None] = None
    #: the plan check of the card's Active abilities and Statuses, found by ``scenario check`` through
    #: :func:`plan_checks` (set after the class, in the card's module)
    plan_check: ClassVar[type[CardCheck] | None] = None

    def __init__(self, sim: SimView) -> None:
        """The card's per-game state for ``sim`` (override, calling ``super().__init__(sim)``)."""
        self.sim = sim

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        """Is the card in play in ``scn`` (its hooks are called only then)? By default: an activation of the plan
        uses an ability with an effect of one of :attr:`kinds`."""
        return any(used_effects(scn, act, kind) for act in scn.plan if act.use for kind in cls.kinds)

    @staticmethod
    def anywhere(scn: Scenario, kinds: tuple[str, ...]) -> bool:
        """Has an ability of a unit or of a player's cards an effect of ``kinds`` (used, reacted with or given)?"""
        abilities = [a for su in scn.units.values() for a in su.abilities]
        abilities += [f.ability for player in scn.armies for f in card_abilities(scn, player)]
        return any(e.kind in kinds for a in abilities for e in a.effects)

    @classmethod
    def status_changer(cls, a: Ability) -> bool:
        """Does using ability ``a`` change a Status this card keeps, by its text and not by an effect of its own
        (Burrow: "it gains or loses the Burrowed Status")? Such an ability gives its unit nothing in its loadout: the
        Status does (``sim.burrowers``, read by :func:`~..lookup.loadout_for`). No by default."""
        return False

    @classmethod
    def validate(cls, scn: Scenario) -> list[str]:
        """Schema problems in ``scn`` of what only this card reads (its effects, the plan fields of its abilities), one
        message each naming the file, the field, the value and what is allowed; none by default. Called for every
        registered card by the loader (:func:`validate_all`): a problem refuses the file (``scenario check`` exits
        2)."""
        return []

    # hooks (see Trigger); the base ones do nothing and are not called
    def begin_phase(self) -> None: ...
    def counts_activated(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        return trials

    def counted_as_activated(self, u: int, games: np.ndarray) -> np.ndarray:
        return np.zeros(games.size, dtype=bool)

    def activate_again(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray:
        return np.zeros(games.size, dtype=bool)

    def admit(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        return trials

    def activates_next(self, act: Activation) -> str | None:
        return None

    def begin_activation(self, u: int, act: Activation, here: np.ndarray) -> None: ...
    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None: ...
    def before_deploy(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray:
        return reserve

    def deploy(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray | None:
        return None

    def moved(self, u: int, act: Activation, placed: np.ndarray) -> None: ...
    def end_status(self, u: int, games: np.ndarray) -> None: ...
    def supply_for_mass(self, u: int, trials: np.ndarray, supply: np.ndarray) -> np.ndarray:
        return supply

    def before_fight(self, u: int, trials: np.ndarray) -> np.ndarray:
        return trials

    def select(self, u: int, act: Activation, here: np.ndarray) -> None: ...
    def before_action(self, u: int, act: Activation, here: np.ndarray) -> bool:
        return False

    def may_act(self, u: int, act: Activation, here: np.ndarray) -> np.ndarray:
        return here

    def before_attack(self, units: list[int], trials: np.ndarray) -> None: ...
    def hiders(self, units: list[int]) -> dict[int, Callable[[int], str | None]]:
        return {}

    def before_targeting(self, units: list[int], trials: np.ndarray) -> None: ...
    def attack_pool(self, act: Activation, targets: list[int], trials: np.ndarray) -> list[PoolCut]:
        return []

    def redirect(self, act: Activation, trials: np.ndarray) -> dict[int, tuple[int, np.ndarray]]:
        return {}

    def react_begin(self, act: Activation, trials: np.ndarray) -> None: ...
    def react_end(self, trials: np.ndarray) -> None: ...
    def damage_reduction(self, t: int) -> tuple[np.ndarray, int, np.ndarray | None] | None:
        return None

    def impact(self, u: int, mask: int, imp: tuple[int, int]) -> tuple[int, int]:
        return imp

    def charge_again(self, act: Activation) -> int | None:
        return None

    def armour(self, t: int, trials: np.ndarray) -> np.ndarray | None:
        return None

    def charge_roll(self, act: Activation, rolls: np.ndarray, trials: np.ndarray, stream: int) -> None: ...
    def stays_put(self, u: int, mask: int) -> bool:
        return False

    def keeps_status(self, u: int, act: Activation) -> bool:
        return False

    def lifts_penalty(self, u: int, mask: int) -> bool:
        return False

    def charge_declared(self, act: Activation, trials: np.ndarray) -> np.ndarray:
        return np.zeros(self.sim.T, dtype=np.int64)

    def after_action(self, u: int, act: Activation, trials: np.ndarray) -> None: ...
    def after_attack(self, u: int, act: Activation, trials: np.ndarray) -> None: ...
    def end_of_round(self, live: np.ndarray) -> None: ...
    def kept_bits(self, u: int) -> int:
        return 0

    def no_contest_bits(self, u: int) -> int:
        return 0

    def contest_supply(self, supply: np.ndarray, live: np.ndarray) -> np.ndarray:
        return supply

    def cleanup(self, live: np.ndarray) -> None: ...

    def charge_walls(self, u: int) -> np.ndarray | None:
        """Per game (length ``sim.T``): bits of the tokens of this card unit ``u`` cannot move across in a Charge
        (None: none); :meth:`wall_centres` names them."""
        return None

    def wall_centres(self, bits: int) -> tuple[tuple[float, float], ...]:
        return ()


_REGISTRY: dict[str, type[Card]] = {}
_CARDS: list[type[Card]] = []


def register(card: type[Card]) -> type[Card]:
    """Register ``card`` under each of its effect kinds (a class decorator). A kind has one owner."""
    if not card.kinds and not card.keyword:
        raise ValueError(f"{card.__name__}: a card owns at least one effect kind (or a unit keyword)")
    for kind in card.kinds:
        if kind in _REGISTRY and _REGISTRY[kind] is not card:
            raise ValueError(f"effect kind {kind!r} is owned by {_REGISTRY[kind].__name__} already")
        _REGISTRY[kind] = card
    if card not in _CARDS:
        _CARDS.append(card)
    return card


def status_changers(abilities: list[Ability]) -> set[str]:
    """The names of the ``abilities`` a registered card reads as changing a Status it keeps
    (:meth:`Card.status_changer`: Burrow, Lie in Wait, Nasty Surprise)."""
    return {a.name for a in abilities if any(c.status_changer(a) for c in _CARDS)}


def card_for(kind: str) -> type[Card] | None:
    """The card registered for effect ``kind``, or None."""
    return _REGISTRY.get(kind)


def registered() -> list[type[Card]]:
    """Every registered card, in registration order."""
    return list(_CARDS)


def reaction_checks() -> list[type[ReactionCheck]]:
    """The Reaction checks of the registered cards (:attr:`Card.reaction_check`), in registration order."""
    return [c.reaction_check for c in _CARDS if c.reaction_check is not None]


def plan_checks() -> list[type[CardCheck]]:
    """The plan checks of the registered cards (:attr:`Card.plan_check`), in ascending ``CardCheck.order``."""
    return sorted((c.plan_check for c in _CARDS if c.plan_check is not None), key=lambda k: k.order)


def validate_all(scn: Scenario) -> list[str]:
    """The schema problems of every registered card in ``scn`` (:meth:`Card.validate`), in registration order."""
    return [msg for c in _CARDS for msg in c.validate(scn)]


def _overrides(card: Card, name: str) -> bool:
    return getattr(type(card), name) is not getattr(Card, name)


class CardSet:
    """The cards present in one simulation's scenario, and per trigger point the hooks to call (only the cards that
    define one), so a trigger no card in play uses costs one empty loop."""

    def __init__(self, sim: SimView) -> None:
        present = sorted((c for c in _CARDS if c.present(sim.scn)), key=lambda c: c.order)
        self.cards: list[Card] = [c(sim) for c in present]
        hooks: dict[str, list[Any]] = {
            t.value: [getattr(c, t.value) for c in self.cards if _overrides(c, t.value)] for t in Trigger
        }
        self.begin_phase: list[Callable[[], None]] = hooks["begin_phase"]
        self.counts_activated: list[Callable[[int, Activation, np.ndarray], np.ndarray]] = hooks["counts_activated"]
        self.counted_as_activated: list[Callable[[int, np.ndarray], np.ndarray]] = hooks["counted_as_activated"]
        self.activate_again: list[Callable[[int, Activation, np.ndarray], np.ndarray]] = hooks["activate_again"]
        self.admit: list[Callable[[int, Activation, np.ndarray], np.ndarray]] = hooks["admit"]
        self.activates_next: list[Callable[[Activation], str | None]] = hooks["activates_next"]
        self.begin_activation: list[Callable[[int, Activation, np.ndarray], None]] = hooks["begin_activation"]
        self.use: list[Callable[[int, Activation, np.ndarray], None]] = hooks["use"]
        self.before_deploy: list[Callable[[int, Activation, np.ndarray], np.ndarray]] = hooks["before_deploy"]
        self.deploy: list[Callable[[int, Activation, np.ndarray], np.ndarray | None]] = hooks["deploy"]
        self.moved: list[Callable[[int, Activation, np.ndarray], None]] = hooks["moved"]
        self.end_status: list[Callable[[int, np.ndarray], None]] = hooks["end_status"]
        self.supply_for_mass: list[Callable[[int, np.ndarray, np.ndarray], np.ndarray]] = hooks["supply_for_mass"]
        self.before_fight: list[Callable[[int, np.ndarray], np.ndarray]] = hooks["before_fight"]
        self.select: list[Callable[[int, Activation, np.ndarray], None]] = hooks["select"]
        self.before_action: list[Callable[[int, Activation, np.ndarray], bool]] = hooks["before_action"]
        self.may_act: list[Callable[[int, Activation, np.ndarray], np.ndarray]] = hooks["may_act"]
        self.before_attack: list[Callable[[list[int], np.ndarray], None]] = hooks["before_attack"]
        self.hiders: list[Callable[[list[int]], dict[int, Callable[[int], str | None]]]] = hooks["hiders"]
        self.before_targeting: list[Callable[[list[int], np.ndarray], None]] = hooks["before_targeting"]
        self.attack_pool: list[Callable[[Activation, list[int], np.ndarray], list[PoolCut]]] = hooks["attack_pool"]
        self.redirect: list[Callable[[Activation, np.ndarray], dict[int, tuple[int, np.ndarray]]]] = hooks["redirect"]
        self.react_begin: list[Callable[[Activation, np.ndarray], None]] = hooks["react_begin"]
        self.react_end: list[Callable[[np.ndarray], None]] = hooks["react_end"]
        self.damage_reduction: list[Callable[[int], tuple[np.ndarray, int, np.ndarray | None] | None]] = hooks[
            "damage_reduction"
        ]
        self.impact: list[Callable[[int, int, tuple[int, int]], tuple[int, int]]] = hooks["impact"]
        self.charge_again: list[Callable[[Activation], int | None]] = hooks["charge_again"]
        self.armour: list[Callable[[int, np.ndarray], np.ndarray | None]] = hooks["armour"]
        self.charge_roll: list[Callable[[Activation, np.ndarray, np.ndarray, int], None]] = hooks["charge_roll"]
        self.stays_put: list[Callable[[int, int], bool]] = hooks["stays_put"]
        self.keeps_status: list[Callable[[int, Activation], bool]] = hooks["keeps_status"]
        self.lifts_penalty: list[Callable[[int, int], bool]] = hooks["lifts_penalty"]
        self.charge_declared: list[Callable[[Activation, np.ndarray], np.ndarray]] = hooks["charge_declared"]
        self.after_action: list[Callable[[int, Activation, np.ndarray], None]] = hooks["after_action"]
        self.after_attack: list[Callable[[int, Activation, np.ndarray], None]] = hooks["after_attack"]
        self.end_of_round: list[Callable[[np.ndarray], None]] = hooks["end_of_round"]
        self.kept_bits: list[Callable[[int], int]] = hooks["kept_bits"]
        self.no_contest_bits: list[Callable[[int], int]] = hooks["no_contest_bits"]
        self.contest_supply: list[Callable[[np.ndarray, np.ndarray], np.ndarray]] = hooks["contest_supply"]
        self.cleanup: list[Callable[[np.ndarray], None]] = hooks["cleanup"]
        self._walls = [c for c in self.cards if _overrides(c, "charge_walls")]
        if len(self._walls) > 1:
            raise NotImplementedError("more than one card with Charge walls: their bits would need one numbering")

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def of(self, kind: str) -> Card | None:
        """The instance of the card owning effect ``kind`` in this simulation, or None where it is not in play."""
        owner = _REGISTRY.get(kind)
        return next((c for c in self.cards if type(c) is owner), None)

    def charge_walls(self, u: int) -> tuple[Card | None, np.ndarray | None]:
        """The card whose tokens unit ``u`` cannot move across in a Charge, and their bits per game (or None)."""
        for c in self._walls:
            bits = c.charge_walls(u)
            if bits is not None:
                return c, bits
        return None, None


__all__ = [
    "Card",
    "CardSet",
    "Trigger",
    "card_for",
    "plan_checks",
    "reaction_checks",
    "register",
    "registered",
    "status_changers",
    "validate_all",
]
