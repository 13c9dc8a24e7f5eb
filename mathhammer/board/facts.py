"""Attack facts from a board: who rolls, at what distance, what may be removed, Evade, eligibility.

:func:`attack_facts` reads one weapon's Ranged Attack by one unit at another off the
battlefield and returns the numbers the engine wants (``Batch(distances=..., visible=...,
evade=...)``) with the reason for each. Readings (rulebook seed 003 and FAQ v1.0):

* 8.7.3 step 1, TARGET ELIGIBILITY: "At least one Visible model from the target Unit is Within
  the weapon's maximum Range" and "Only models Within Range to at least one Visible model from
  the target Unit contribute dice". Per attacking model: the distance (base edge to base edge)
  to the nearest target model it sees; the model contributes when that distance is Within the
  profile Range (``normal``) or Within LONG RANGE (X) (``long``, -1 to Hit: "Measure each
  attacking model's distance to the target individually"). ``weapon_range=None`` is no limit.
  BURST FIRE Y" (X): "against a target Within Y" of the attacking model", read per model with
  the same distance.
* Casualties (8.7.4 step 5, FAQ v1.0 "models out of a weapon's range may be removed as casualties
  if visible to any attacking model"): ``removable`` counts target models Visible to at least one
  *contributing* model (the models making the attack). INDIRECT FIRE: "may ignore Line of Sight
  when selecting a target and resolving Damage. The target must still be Within Range" and FAQ
  "one visible model puts the whole unit in line of sight (no Evade, all models removable)": with
  INDIRECT FIRE every target model counts for range (a HIDDEN one only from Within 4": HIDDEN
  bars any Ranged Attack, not only Line of Sight) and every model is removable; Evade only when
  no contributing model sees any target model. An Engaged target ignores visibility for
  casualties (8.7.5 "When the target Unit is Engaged, ignore standard Visibility rules"): all
  its models are removable, in the priority tiers below.
* Evade (8.7.4 step 4, 7.1.3, part 11): "The target is Engaged and is suffering Damage from a
  Ranged Attack" (``engaged``); HIGH GROUND Cover, "If all models of a Unit are standing on HIGH
  GROUND (Size 3 or larger terrain) ... against all Ranged Attacks originating from a lower
  elevation. The attack originates from the lower elevation if at least one model of the
  attacking Unit isn't standing on the HIGH GROUND", never for a Flying target and never against
  a Flying attacker (``high-ground``; a model stands on HIGH GROUND when the terrain under its
  centre totals Size 3+, the board's ``elevation``); INDIRECT FIRE "If the target is not within
  Line of Sight, it may make an Evade Roll" (``indirect-out-of-sight``); HIDDEN "may make an Evade
  Roll against every attack targeting it" (``hidden``: the unit's ``hidden`` flag or a ``Hidden``
  entry in ``target_tags``); BURROWED "may make an Evade Roll against every attack targeting
  them" (``burrowed``: a ``Burrowed`` entry in ``target_tags``, the board has no such flag;
  BURROWED also gives HIDDEN, so it hides the unit beyond 4" too).
* Refusals (8.7.3 step 1, part 11): the Combat Tag must match the weapon's Target (``Ground``,
  ``Flying`` or ``All``; the target's tag is ``Flying`` or ``Ground`` from ``target_tags``, else
  from the board's ``flying`` flags); "An Unengaged attacking Unit cannot select an Engaged Unit as
  a target" unless PINPOINT ("may target Engaged Enemy Units"); "An Engaged attacking Unit may
  only target the Unit(s) it is currently Engaged with" (PINPOINT does not lift it: FAQ
  "PINPOINT shoots *into* melee, not *out of* it"); Indomitable (Goliath) lifts each of the two for
  an attack by or at the unit that has it, out of melee at an Unengaged unit or into melee from one,
  and the defending unit gains an Evade Roll (``indomitable``); BULKY "cannot be used to make a Ranged Attack
  while the Unit is currently Engaged"; no contributing model (no Visible target model Within
  Range); a target of the attacker's own side.
* 8.7.5 casualty priority for the target's models: tier 1 "Models not Within the Engagement
  Range of any Enemy Unit", tier 2 "Within the Engagement Range but not in Base-to-Base contact",
  tier 3 "in Base-to-Base contact with an Enemy model". "Within the Engagement Range" is read as
  Engaged with that enemy model (:func:`~mathhammer.board.engagement.engaged`: a Size 2+ wall or
  an elevation gap means no engagement); base-to-base is an Engaged pair whose bases touch (edges at most
  :data:`~mathhammer.board.ranks.CONTACT` apart, as for the 8.8.1 ranks).
  ``anchors``: per enemy unit Engaged with the target, the target models Engaged with it; the
  only such model of an enemy unit holds that engagement alone: "the
  defending player cannot choose a model if removing it would cause the Unit to stop being Engaged
  with a specific Enemy Unit - provided there is another valid casualty in any priority tier".
  :meth:`AttackFacts.next_casualties` applies both rules to a set of already removed models.

>>> from mathhammer.board.model import Board, Model, Unit
>>> a = Unit("a", "p1", (Model("a1", 2, 5), Model("a2", 2, 20)))
>>> t = Unit("t", "p2", (Model("t1", 12, 5),))
>>> facts = attack_facts(Board(44, 30, units=(a, t)), "a", "t", 12)
>>> facts.distances, facts.eligible, facts.removable
((9.016,), True, 1)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ..errors import InputError
from .engagement import ENGAGEMENT_RANGE, engaged
from .los import HIDDEN_RANGE, line_of_sight
from .model import EPS, Board, Model, Unit
from .ranks import CONTACT

Band = Literal["normal", "long", "out", "no-target"]
WEAPON_TARGETS = ("All", "Ground", "Flying")
#: Line of Sight's verdict for one model pair (``visible`` of :func:`attack_facts` and :func:`attack_eligible`).
Sees = Callable[[Board, Model, Model], bool]
#: Line of Sight known at once for many pairs (attacking models x target models): True where a pair surely sees,
#: False where ``visible`` must be asked (:func:`mathhammer.board.fastsight.sees_many`).
SeesMany = Callable[[Board, Sequence[Model], Sequence[Model]], list[list[bool]]]


def _sees(board: Board, attacker: Model, target: Model) -> bool:
    """``line_of_sight(...).visible`` (the shapely search; :func:`mathhammer.board.fastsight.sees` is the same
    verdict compiled)."""
    return line_of_sight(board, attacker, target).visible


@dataclass(frozen=True)
class ModelFacts:
    """One attacking model.

    Attributes:
        model: its id.
        nearest: the nearest target model it may shoot at (Visible, or any with INDIRECT FIRE), or None.
        distance: base edge to base edge to ``nearest``, inches (3 decimals), or None.
        band: ``normal`` (Within the profile Range), ``long`` (beyond it, Within LONG RANGE),
            ``out`` (beyond both) or ``no-target`` (sees no target model).
        burst: Within the BURST FIRE distance.
        sees: the target models Visible to it.
    """

    model: str
    nearest: str | None
    distance: float | None
    band: Band
    burst: bool
    sees: tuple[str, ...]

    @property
    def contributes(self) -> bool:
        """Rolls dice (8.7.3 step 1)."""
        return self.band in ("normal", "long")


@dataclass(frozen=True)
class AttackFacts:
    """What the board says about one weapon's Ranged Attack (see the module text)."""

    attacker: str
    target: str
    models: tuple[ModelFacts, ...]
    removable_models: tuple[str, ...]
    evade_reasons: tuple[str, ...]
    refusals: tuple[str, ...]
    attacker_engaged: bool
    target_engaged: bool
    target_tag: str
    casualty_tiers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    anchors: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def contributing(self) -> tuple[ModelFacts, ...]:
        return tuple(m for m in self.models if m.contributes)

    @property
    def distances(self) -> tuple[float, ...]:
        """Per contributing model, ready for ``Batch(distances=...)``."""
        return tuple(m.distance for m in self.contributing if m.distance is not None)

    @property
    def normal_range(self) -> tuple[str, ...]:
        return tuple(m.model for m in self.models if m.band == "normal")

    @property
    def long_range(self) -> tuple[str, ...]:
        return tuple(m.model for m in self.models if m.band == "long")

    @property
    def burst(self) -> tuple[str, ...]:
        return tuple(m.model for m in self.contributing if m.burst)

    @property
    def removable(self) -> int:
        """How many target models may be removed (``Batch(visible=...)``; 0 when none)."""
        return len(self.removable_models)

    @property
    def evade_eligible(self) -> bool:
        return bool(self.evade_reasons)

    @property
    def eligible(self) -> bool:
        return not self.refusals

    def next_casualties(self, removed: Iterable[str] = ()) -> tuple[str, ...]:
        """The target models the defender may remove next (8.7.5), after ``removed`` are gone.

        Not Engaged: any removable model. Engaged: the lowest non-empty priority tier, without the
        models that alone hold an engagement with an enemy unit; when only such models are left,
        any of them.
        """
        gone = set(removed)
        if not self.target_engaged:
            return tuple(m for m in self.removable_models if m not in gone)
        left = [tuple(m for m in tier if m not in gone) for tier in self.casualty_tiers]
        held: dict[str, set[str]] = {}
        for enemy, holders in self.anchors.items():
            alive = {m for m in holders if m not in gone}
            if alive:
                held[enemy] = alive
        lone = {next(iter(ms)) for ms in held.values() if len(ms) == 1}
        free = [tuple(m for m in tier if m not in lone) for tier in left]
        for tier in free:
            if tier:
                return tier
        # Every model left holds an engagement alone: no other valid casualty, the defender picks
        # any of them (8.7.5 example: "Once only one valid casualty remains, the controlling
        # player may choose either the last A or B").
        return tuple(m for tier in left for m in tier)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the keys of ``mathhammer board los --json``."""
        return {
            "attacker": self.attacker,
            "target": self.target,
            "eligible": self.eligible,
            "refusals": list(self.refusals),
            "models": [
                {
                    "model": m.model,
                    "nearest": m.nearest,
                    "distance": m.distance,
                    "band": m.band,
                    "burst": m.burst,
                    "contributes": m.contributes,
                    "sees": list(m.sees),
                }
                for m in self.models
            ],
            "distances": list(self.distances),
            "normal_range": list(self.normal_range),
            "long_range": list(self.long_range),
            "burst": list(self.burst),
            "removable": self.removable,
            "removable_models": list(self.removable_models),
            "evade_eligible": self.evade_eligible,
            "evade_reasons": list(self.evade_reasons),
            "attacker_engaged": self.attacker_engaged,
            "target_engaged": self.target_engaged,
            "target_tag": self.target_tag,
            "casualty_tiers": {
                "1": list(self.casualty_tiers[0]),
                "2": list(self.casualty_tiers[1]),
                "3": list(self.casualty_tiers[2]),
            },
            "anchors": {k: list(v) for k, v in self.anchors.items()},
        }


def _distance(value: float | None, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise InputError(name, value, "a distance in inches, 0 or more")
    return float(value)


def _engaged_with(board: Board, unit: Unit) -> dict[str, set[str]]:
    """Enemy unit id -> the models of ``unit`` Engaged with it."""
    out: dict[str, set[str]] = {}
    for other in board.units:
        if other.side == unit.side or unit.apart(other, ENGAGEMENT_RANGE + EPS):  # 7.2.1: no pair Within 1"
            continue
        for m in unit.models:
            if any(engaged(board, m, e) for e in other.models):
                out.setdefault(other.id, set()).add(m.id)
    return out


def _tiers(board: Board, unit: Unit) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    enemies = [
        e for u in board.units if u.side != unit.side and not unit.apart(u, ENGAGEMENT_RANGE + EPS) for e in u.models
    ]
    tiers: tuple[list[str], list[str], list[str]] = ([], [], [])
    for m in unit.models:
        pairs = [e for e in enemies if engaged(board, m, e)]
        if not pairs:
            tiers[0].append(m.id)
        elif any(m.distance(e) <= CONTACT for e in pairs):  # Base-to-Base contact, as in 8.8.1 ranks
            tiers[2].append(m.id)
        else:
            tiers[1].append(m.id)
    return (tuple(tiers[0]), tuple(tiers[1]), tuple(tiers[2]))


@dataclass(frozen=True)
class _Shot:
    """The arguments of one Ranged Attack read off the board (:func:`attack_facts`, :func:`attack_eligible`)."""

    attacker: Unit
    target: Unit
    rng: float | None
    long_rng: float | None
    wanted: str
    tags: frozenset[str]
    burrowed: bool
    hidden: bool
    target_tag: str

    @classmethod
    def read(
        cls,
        board: Board,
        attacker_unit_id: str,
        target_unit_id: str,
        weapon_range: float | None,
        long_range: float | None,
        weapon_target: str,
        target_tags: Iterable[str],
    ) -> _Shot:
        attacker = board.unit(attacker_unit_id)
        target = board.unit(target_unit_id)
        rng = _distance(weapon_range, "range")
        long_rng = _distance(long_range, "long range")
        wanted = {t.title(): t for t in WEAPON_TARGETS}.get(str(weapon_target).strip().title())
        if wanted is None:
            raise InputError("weapon target", weapon_target, ", ".join(WEAPON_TARGETS))
        tags = frozenset(str(t).strip().lower() for t in target_tags)
        burrowed = "burrowed" in tags
        hidden = target.hidden or "hidden" in tags or burrowed
        if "flying" in tags:
            target_tag = "Flying"
        elif "ground" in tags:
            target_tag = "Ground"
        else:
            target_tag = "Flying" if target.flying else "Ground"
        return cls(attacker, target, rng, long_rng, wanted, tags, burrowed, hidden, target_tag)

    def refusals(
        self,
        bulky: bool,
        pinpoint: bool,
        indomitable: tuple[bool, bool],
        attacker_links: dict[str, set[str]],
        target_links: dict[str, set[str]],
    ) -> tuple[list[str], bool]:
        """The refusals of 8.7.3 step 1 but the last (no contributing model), and whether Indomitable lifted an
        Engaged refusal (the defender's Evade Roll)."""
        attacker, target, wanted, target_tag = self.attacker, self.target, self.wanted, self.target_tag
        attacker_engaged, target_engaged = bool(attacker_links), bool(target_links)
        refusals: list[str] = []
        if attacker.id == target.id or attacker.side == target.side:
            refusals.append(f"{target.id!r} is not an enemy unit of {attacker.id!r}")
        if wanted != "All" and wanted != target_tag:
            refusals.append(f"weapon Target {wanted} cannot shoot a {target_tag} unit (8.7.3 step 1)")
        if bulky and attacker_engaged:
            refusals.append("BULKY: cannot make a Ranged Attack while the unit is Engaged")
        # Indomitable: an Engaged attacker with it at an Unengaged target; an Unengaged attacker at an Engaged target
        # with it. "In both cases, the defending Unit gains an Evade Roll against those attacks."
        out_of_melee = indomitable[0] and attacker_engaged and not target_engaged
        into_melee = indomitable[1] and target_engaged and not attacker_engaged
        if attacker_engaged and target.id not in attacker_links and not out_of_melee:
            refusals.append(
                f"{attacker.id!r} is Engaged: it may only target the units it is Engaged with "
                f"({', '.join(sorted(attacker_links))}) (8.7.3 step 1; PINPOINT does not shoot out of melee)"
            )
        if not attacker_engaged and target_engaged and not pinpoint and not into_melee:
            refusals.append(
                f"{target.id!r} is Engaged: an Unengaged unit cannot target it without PINPOINT (8.7.3 step 1)"
            )
        return refusals, out_of_melee or into_melee


#: :func:`_sight_of`'s answers per board (by ``id``, the board kept to check it), unit pair, HIDDEN and Line of Sight
#: functions; cleared past :data:`SIGHT_KEPT` (a unit's weapons at one target read the same board one after the other)
_SIGHT: dict[tuple[object, ...], tuple[Board, _Sight]] = {}
SIGHT_KEPT = 1 << 10


class _Sight(NamedTuple):
    """What :func:`attack_facts` reads off the board whatever the weapon (:func:`_sight_of`)."""

    #: per attacking model: it, the ids of the target models Visible to it, and the nearest of those (the distance and
    #: the id; the first id among the nearest) or None
    models: tuple[tuple[Model, tuple[str, ...], tuple[float, str] | None], ...]
    target_links: dict[str, set[str]]
    attacker_links: dict[str, set[str]]
    on_high: bool  # every target model on HIGH GROUND
    attacker_low: bool  # an attacking model not on HIGH GROUND
    tiers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    anchors: dict[str, tuple[str, ...]]


def _sight_of(
    board: Board, attacker: Unit, target: Unit, hidden: bool, visible: Sees, visible_many: SeesMany | None
) -> _Sight:
    """:func:`attack_facts`' reads of ``board`` that no weapon changes: Line of Sight of each model pair (``hidden``:
    the target HIDDEN, not Visible beyond 4"), each attacking model's nearest Visible target model, the Engaged links,
    HIGH GROUND and the casualty tiers; kept per board, units, ``hidden`` and the two Line of Sight functions."""
    key = (id(board), attacker.id, target.id, hidden, visible, visible_many)
    kept = _SIGHT.get(key)
    if kept is not None and kept[0] is board:
        return kept[1]

    def sees(a: Model, t: Model) -> bool:
        if hidden and a.distance(t) > HIDDEN_RANGE + EPS:
            return False
        return visible(board, a, t)

    known = visible_many(board, attacker.models, target.models) if visible_many is not None else None
    targets = target.models
    models = []
    for i, a in enumerate(attacker.models):
        if known is None:
            visible_to = [t for t in targets if sees(a, t)]
        elif hidden:  # a pair known to see is Visible unless HIDDEN beyond 4" (``sees``)
            visible_to = [
                t
                for t, surely in zip(targets, known[i], strict=True)
                if (a.distance(t) <= HIDDEN_RANGE + EPS if surely else sees(a, t))
            ]
        else:
            visible_to = [t for t, surely in zip(targets, known[i], strict=True) if surely or visible(board, a, t)]
        seen = tuple(t.id for t in visible_to)
        nearest = min((a.distance(t), t.id) for t in visible_to) if visible_to else None  # the nearest, the first id
        models.append((a, seen, nearest))
    target_links = _engaged_with(board, target)
    sight = _Sight(
        models=tuple(models),
        target_links=target_links,
        attacker_links=_engaged_with(board, attacker),
        on_high=all(board.elevation(m) == "high" for m in target.models),
        attacker_low=any(board.elevation(m) != "high" for m in attacker.models),
        tiers=_tiers(board, target),
        anchors={enemy: tuple(sorted(ms)) for enemy, ms in sorted(target_links.items())},
    )
    if len(_SIGHT) >= SIGHT_KEPT:
        _SIGHT.clear()
    _SIGHT[key] = (board, sight)
    return sight


def attack_facts(
    board: Board,
    attacker_unit_id: str,
    target_unit_id: str,
    weapon_range: float | None,
    long_range: float | None = None,
    burst_within: float | None = None,
    indirect: bool = False,
    pinpoint: bool = False,
    bulky: bool = False,
    target_tags: Iterable[str] = (),
    weapon_target: str = "All",
    attacker_indomitable: bool = False,
    target_indomitable: bool = False,
    visible: Sees = _sees,
    visible_many: SeesMany | None = None,
) -> AttackFacts:
    """The facts of a Ranged Attack by ``attacker_unit_id`` at ``target_unit_id`` (see the module text).

    ``attacker_indomitable`` / ``target_indomitable``: that unit has Indomitable ("While Engaged, this Unit may
    target and be targeted by Unengaged Enemy Units. In both cases, the defending Unit gains an Evade Roll
    against those attacks"): the two Engaged refusals of 8.7.3 step 1 are lifted for such an attack, and the
    target has the Evade Roll (``indomitable``). ``visible``: Line of Sight's verdict for a model pair (the shapely
    search by default; the simulation gives :func:`mathhammer.board.fastsight.sees`, the same answers);
    ``visible_many``: the pairs known to see at once (:data:`SeesMany`; the others asked of ``visible``).

    Raises:
        InputError: an unknown unit id, a negative range, an unknown ``weapon_target``.
    """
    shot = _Shot.read(board, attacker_unit_id, target_unit_id, weapon_range, long_range, weapon_target, target_tags)
    attacker, target, rng, long_rng, hidden = shot.attacker, shot.target, shot.rng, shot.long_rng, shot.hidden
    burst_rng = _distance(burst_within, "burst fire")
    tags, burrowed, target_tag = shot.tags, shot.burrowed, shot.target_tag

    sight = _sight_of(board, attacker, target, hidden, visible, visible_many)
    per_model: list[ModelFacts] = []
    targets = target.models
    for a, seen, nearest in sight.models:
        if indirect:  # ignores Line of Sight, not HIDDEN ("unless the acting model is Within 4""): any target model
            candidates = [t for t in targets if not hidden or a.distance(t) <= HIDDEN_RANGE + EPS]
            nearest = min((a.distance(t), t.id) for t in candidates) if candidates else None
        if nearest is None:
            per_model.append(ModelFacts(a.id, None, None, "no-target", False, seen))
            continue
        d, near_id = nearest
        band: Band
        if rng is None or d <= rng + EPS:
            band = "normal"
        elif long_rng is not None and d <= long_rng + EPS:
            band = "long"
        else:
            band = "out"
        burst = burst_rng is not None and d <= burst_rng + EPS
        per_model.append(ModelFacts(a.id, near_id, round(d, 3), band, burst, seen))

    contributing = [m for m in per_model if m.contributes]
    seen_by_any = {t for m in contributing for t in m.sees}

    target_links, attacker_links = sight.target_links, sight.attacker_links
    target_engaged = bool(target_links)
    attacker_engaged = bool(attacker_links)

    if indirect or target_engaged:
        removable = tuple(t.id for t in target.models) if contributing else ()
    else:
        removable = tuple(t.id for t in target.models if t.id in seen_by_any)

    evade: list[str] = []
    if target_engaged:
        evade.append("engaged")
    if sight.on_high and not target.flying and target_tag != "Flying" and not attacker.flying and sight.attacker_low:
        evade.append("high-ground")
    if indirect and contributing and not seen_by_any:
        evade.append("indirect-out-of-sight")
    if target.hidden or "hidden" in tags:
        evade.append("hidden")
    if burrowed:
        evade.append("burrowed")

    refusals, lifted = shot.refusals(
        bulky, pinpoint, (attacker_indomitable, target_indomitable), attacker_links, target_links
    )
    if lifted:
        evade.append("indomitable")
    if not contributing:
        what = "target model" if indirect else "Visible target model"
        refusals.append(f"no {what} Within Range of any model of {attacker.id!r} (8.7.3 step 1)")

    return AttackFacts(
        attacker=attacker.id,
        target=target.id,
        models=tuple(per_model),
        removable_models=removable,
        evade_reasons=tuple(evade),
        refusals=tuple(refusals),
        attacker_engaged=attacker_engaged,
        target_engaged=target_engaged,
        target_tag=target_tag,
        casualty_tiers=sight.tiers,
        anchors=dict(sight.anchors),
    )


def weapon_reach(weapon: Any) -> float | None:
    """The farthest a Ranged weapon may shoot, bases edge to edge (its Range, or LONG RANGE (X) where longer: 8.7.3
    step 1, part 11), with a margin; None where its Range is not a number of inches. A unit no base of which is
    within it of the attacker's is no target of the weapon (a superset test of the placements may skip its facts).
    Kept per weapon where the weapon is hashable (the engine's are)."""
    try:
        return _reach(weapon)
    except TypeError:  # unhashable (a profile file's model): read each time
        return _reach.__wrapped__(weapon)


@functools.lru_cache(maxsize=1024)
def _reach(weapon: Any) -> float | None:
    """:func:`weapon_reach`, kept."""
    from ..starcraft.keywords import find

    if isinstance(weapon.range, bool) or not isinstance(weapon.range, int | float):
        return None
    lr = find(weapon.keywords, "LONG RANGE")
    return max(float(weapon.range), 0.0 if lr is None else float(lr.value or 0)) + 1e-6


def _weapon_keywords(weapon: Any, target_tags: Iterable[str], indomitable: tuple[bool, bool]) -> dict[str, Any]:
    """The arguments of :func:`attack_facts` and :func:`attack_eligible` a weapon profile gives (its Range and the
    keywords that change the facts: LONG RANGE, INDIRECT FIRE, PINPOINT, BULKY; BURST FIRE apart, it changes no
    eligibility), with the target's tags and the two units' Indomitable."""
    from ..starcraft.keywords import find

    lr = find(weapon.keywords, "LONG RANGE")
    return {
        "weapon_range": weapon.range,
        "long_range": None if lr is None else float(lr.value or 0),
        "indirect": find(weapon.keywords, "INDIRECT FIRE") is not None,
        "pinpoint": find(weapon.keywords, "PINPOINT") is not None,
        "bulky": find(weapon.keywords, "BULKY") is not None,
        "target_tags": tuple(target_tags),
        "attacker_indomitable": indomitable[0],
        "target_indomitable": indomitable[1],
    }


def weapon_facts(
    board: Board,
    attacker_unit_id: str,
    target_unit_id: str,
    weapon: Any,
    target_tags: Iterable[str] = (),
    indomitable: tuple[bool, bool] = (False, False),
    visible: Sees = _sees,
    visible_many: SeesMany | None = None,
) -> AttackFacts:
    """:func:`attack_facts` for a :class:`~mathhammer.starcraft.model.Weapon`: its range and the keywords
    that change the facts (LONG RANGE, BURST FIRE, INDIRECT FIRE, PINPOINT, BULKY) read off the profile;
    ``indomitable``: the attacker's and the target's Indomitable; ``visible``, ``visible_many``: as there."""
    from ..starcraft.keywords import find

    burst = find(weapon.keywords, "BURST FIRE")
    burst_within = None if burst is None else float(burst.extra or 0)
    args = _weapon_keywords(weapon, target_tags, indomitable)
    return attack_facts(
        board,
        attacker_unit_id,
        target_unit_id,
        burst_within=burst_within,
        visible=visible,
        visible_many=visible_many,
        **args,
    )


def weapon_eligible(
    board: Board,
    attacker_unit_id: str,
    target_unit_id: str,
    weapon: Any,
    target_tags: Iterable[str] = (),
    indomitable: tuple[bool, bool] = (False, False),
    visible: Sees = _sees,
) -> bool:
    """:func:`weapon_facts` ``(...).eligible`` by :func:`attack_eligible` (Line of Sight traced only as far as it
    must be)."""
    return attack_eligible(
        board, attacker_unit_id, target_unit_id, visible=visible, **_weapon_keywords(weapon, target_tags, indomitable)
    )


def attack_eligible(
    board: Board,
    attacker_unit_id: str,
    target_unit_id: str,
    weapon_range: float | None,
    long_range: float | None = None,
    indirect: bool = False,
    pinpoint: bool = False,
    bulky: bool = False,
    target_tags: Iterable[str] = (),
    weapon_target: str = "All",
    attacker_indomitable: bool = False,
    target_indomitable: bool = False,
    visible: Sees = _sees,
) -> bool:
    """:func:`attack_facts` ``(...).eligible`` (8.7.3 step 1) without the rest of the facts: the refusals that read no
    Line of Sight first, then the model pairs nearest first, up to the longest Range (LONG RANGE included), until one
    attacking model has a target model it may shoot at (Visible, or any with INDIRECT FIRE; a HIDDEN one only from
    Within 4"). A model contributes when the nearest such model is Within that Range, so when any is: the same
    answer, with Line of Sight traced only as far as it must be (``attack_facts`` traces every pair)."""
    shot = _Shot.read(board, attacker_unit_id, target_unit_id, weapon_range, long_range, weapon_target, target_tags)
    refusals, _ = shot.refusals(
        bulky,
        pinpoint,
        (attacker_indomitable, target_indomitable),
        _engaged_with(board, shot.attacker),
        _engaged_with(board, shot.target),
    )
    if refusals:
        return False
    reach = math.inf if shot.rng is None else max(shot.rng, shot.long_rng if shot.long_rng is not None else shot.rng)
    if shot.hidden:
        reach = min(reach, HIDDEN_RANGE)
    pairs = sorted(
        (d, i, j)
        for i, a in enumerate(shot.attacker.models)
        for j, t in enumerate(shot.target.models)
        if (d := a.distance(t)) <= reach + EPS
    )
    return any(indirect or visible(board, shot.attacker.models[i], shot.target.models[j]) for _, i, j in pairs)


__all__ = [
    "AttackFacts",
    "ModelFacts",
    "Sees",
    "SeesMany",
    "attack_eligible",
    "attack_facts",
    "weapon_eligible",
    "weapon_facts",
    "weapon_reach",
]
