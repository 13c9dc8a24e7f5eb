"""Hold entries with one ability that no card's plan check reads: the walk's verdict once a Round (issue 29 point 6).

:mod:`.legal` judges an entry with an ability in ``use`` by ``scenario check``'s walk (``_CheckAt.problems_of``) in
each state. For a Hold whose activation sets no other field (no ``react``, ``select``, ``options``, ``token_at``,
``extra_to``, ``place_to``, ``summon_to``, ``edge``, ``via`` or ``on``) and whose one ability is *inert* here (Stimpack:
NON-LETHAL DAMAGE on itself, BUFF Speed, a weapon keyword), the walk's verdict is the same in every state where the unit
is on the table (its placement set, a model left) and not BURROWED (``down``), in the same Round (the activation's
Round and Phase). What the walk reads, hook by hook, for such an activation of a unit that is neither a Structure nor
a Summoned Unit:

* ``activation_ok`` (only the Summon card's: a Structure or a Summoned Unit, left out): True;
* ``_reaction_discounts`` and ``_check_reactions`` read ``react``, empty; ``_check_select`` reads the abilities that
  select a unit (an effect with ``select``: none, by the definition below) and ``select``, empty; ``after_select``
  reads ``select``;
* ``_use``: the ability's own fields (found for the unit, its type, its Phase, its text's printed limit against an
  empty ``once``, its effects, its Combat Tag, its priced options against empty ``options``, the loadout with it), read
  alike in every state; the cards' ``use_ok`` (only the Burrowed Status's: an ability that changes it, excluded); and
  the payment: the cost less :func:`~mathhammer.scenario.check.common.cost_discount` (which reads the Friendly units on
  the table) from the player's cards, all Ready. A reduction only lowers a cost, and what pays a cost pays any lower
  one (``basics.pay``: a set of Ready cards whose total is at least the cost), so where the cost with no reduction is
  paid from the cards all Ready (checked once, :meth:`UseHolds.inert`), every state pays it;
* ``after_reactions`` (the Burrowed Status: no change by the ability, the unit not in ``down``, and a Hold is no action
  it refuses; the extra Move: no ``extra_to`` and no ``extra_move`` effect); ``_check_token`` (no ``token_at``: a
  warning at most, never an error); ``card_checks`` (``_stray_fields``: no ``edge`` or ``summon_to``; ``on_use`` only
  for a family whose effect kinds the ability uses: none, by the definition below); ``before_action`` (PLACE: no
  ``place_to``); ``instead_of_action`` (a return to Reserves: a ``to_reserves`` effect, a family's kind): nothing;
* the Hold itself: refused only off the table.

An ability is *inert* here where it is found for the unit, Active, its effects have no kind any card family checks
(``CardCheck.kinds`` of every family) and select no unit, it does not change the Burrowed Status, and its cost is paid
from the player's cards all Ready with no reduction. The verdict is then read by the walk in the first state asked and
kept per entry and Round; a test holds it to the walk's in the states of random games
(tests/test_autoplay_useholds.py).

The same reading judges a Move or Run with such an ability (:meth:`UseHolds.twin`: its Hold twin's verdict, then the
Move at the Speed with the ability) and a Charge or Shoot with one (:meth:`UseHolds.attack_twin`: the same activation
walked as a Hold once a Round, then the attack with the ability used: Metabolic Boost, Leap, Predation, Missile
Attacks).
"""

from __future__ import annotations

from typing import Any

from ..abilities import is_structure
from ..cards.burrow import burrow_change
from ..check.common import FAMILIES
from ..lookup import find
from ..simview import SimView
from .menu import UnitMenu

#: the effect kinds some card family checks (``CardCheck.kinds``)
CHECKED_KINDS = frozenset(k for fam in FAMILIES for k in fam.kinds)


class UseHolds:
    """Which Hold entries the walk judges alike in every state of a Round (the module text)."""

    def __init__(self, view: SimView, menus: dict[str, UnitMenu], check: Any) -> None:
        self.view = view
        self.menus = menus
        self.check = check  # the walk (``_CheckAt``): its Burrowed Status read live, its purses all Ready
        self._inert: dict[tuple[int, str, int], bool] = {}
        self._twins: dict[tuple[int, str, int], int | None] = {}
        self._attacks: dict[tuple[int, str, int], bool] = {}

    def applies(self, u: int, phase: str, index: int, state: tuple[int, ...]) -> bool:
        """Is the walk's verdict on entry ``index`` of unit ``u``'s ``phase`` menu in ``state`` the same as in any
        other state of the Round with the unit on the table and not BURROWED (the module text)?"""
        if not self.usable(u, state):
            return False
        key = (u, phase, index)
        hit = self._inert.get(key)
        if hit is None:
            hit = self._inert[key] = self.inert(u, phase, index)
        return hit

    def usable(self, u: int, state: tuple[int, ...]) -> bool:
        """Unit ``u`` is on the table in ``state`` (its placement set, a model left) and not BURROWED (``down``): where
        an inert ability's verdict is the same in every state of the Round (the module text)."""
        n = self.view.U
        return state[u] >= 0 and state[n + u] > 0 and self.view.uids[u] not in self.check.down

    def inert(self, u: int, phase: str, index: int) -> bool:
        """Entry ``index`` is a Hold with one inert ability and no other field (the module text), of a unit that is
        neither a Structure nor a Summoned Unit."""
        return self.menus[self.view.uids[u]][phase][index].action == "hold" and self._inert_use(u, phase, index)

    def _inert_use(self, u: int, phase: str, index: int) -> bool:
        """Entry ``index`` uses one inert ability and sets no other field (the module text), for a unit that is neither
        a Structure nor a Summoned Unit; its action is the caller's to read."""
        view = self.view
        uid = view.uids[u]
        menu = self.menus[uid]
        e = menu[phase][index]
        su = view.scn.units[uid]
        if len(e.use) != 1 or su.summoned or is_structure(su):
            return False
        act = e.activation(menu.unit, menu.player, view.round, phase)
        if not _no_other_field(act):
            return False
        found = find(view.scn, uid, act.use[0])
        if found is None or found.ability.type != "active" or burrow_change(found.ability):
            return False
        if any(x.kind in CHECKED_KINDS or x.select for x in found.ability.effects):
            return False
        return not self.check._ready(menu.player).pay(found, (), 0)  # paid with no reduction, all cards Ready

    def twin(self, u: int, phase: str, index: int) -> int | None:
        """For a Move or Run entry whose ``use`` names one ability and that sets no other field: the index of the Hold
        entry of the same menu with the same ``use`` where that Hold is inert (:meth:`inert`); else None.

        The walk reads such a Move as it reads its Hold twin up to the action (the hooks of the module text read the
        same fields, all empty, and the same ability: ``_use`` alike), then the Move itself (``PlanCheck._move``) with
        the ability in ``used``: its BUFF Speed. So the Move is legal exactly where the twin is and the Move's own
        reading at that Speed admits it (:meth:`MoveVerdicts.verdict_used
        <mathhammer.scenario.players.moveverdicts.MoveVerdicts.verdict_used>`)."""
        key = (u, phase, index)
        if key in self._twins:
            return self._twins[key]
        view = self.view
        menu = self.menus[view.uids[u]]
        entries = menu[phase]
        e = entries[index]
        hit: int | None = None
        one = e.action in ("move", "run") and len(e.use) == 1
        if one and _no_other_field(e.activation(menu.unit, menu.player, view.round, phase)):
            hit = next((j for j, h in enumerate(entries) if h.action == "hold" and h.use == e.use), None)
            if hit is not None and not self.inert(u, phase, hit):
                hit = None
        self._twins[key] = hit
        return hit

    def attack_twin(self, u: int, phase: str, index: int) -> bool:
        """A Charge or Shoot entry with one target whose ``use`` names one inert ability and that sets no other field.

        The walk reads it as it reads the same activation as a Hold (``hold`` for its action, no target) up to the
        action: the hooks of the module text read the same fields, all empty, and the same ability (``_use`` alike;
        an ability acting on a Charge only warns on a Hold, and warnings refuse nothing), ``after_reactions`` refuses
        neither a Hold nor an attack of a unit not in ``down``, and no card family checks the ability's effects. Then
        the action itself (``AttackChecks._check_charge`` or ``_check_shoot``) with the ability in ``used``: a Charge's
        Speed and Charge Roll additions (Metabolic Boost, Leap), a Shoot's loadout. So the entry is legal exactly
        where that Hold is (walked once a Round, :meth:`Legality.use_walk
        <mathhammer.scenario.players.legal.Legality.use_walk>`) and the action's own reading with the ability admits
        it (:meth:`AttackVerdicts.verdict_used
        <mathhammer.scenario.players.attackverdicts.AttackVerdicts.verdict_used>`)."""
        key = (u, phase, index)
        hit = self._attacks.get(key)
        if hit is None:
            e = self.menus[self.view.uids[u]][phase][index]
            hit = e.action in ("charge", "shoot") and e.target is not None and self._inert_use(u, phase, index)
            self._attacks[key] = hit
        return hit


def _no_other_field(act: Any) -> bool:
    """The activation sets none of the fields the module text names (``react``, ``select``, ``options``,
    ``token_at``, ``extra_to``, ``place_to``, ``summon_to``, ``edge``, ``via``, ``on``)."""
    fields = (act.token_at, act.extra_to, act.place_to, act.summon_to, act.edge, act.via, act.on)
    return not (act.react or act.select or act.options or any(f is not None for f in fields))


__all__ = ["CHECKED_KINDS", "UseHolds"]
