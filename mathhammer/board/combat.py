"""The Combat Phase on the battlefield: who strikes, and which target models die first (8.8.1, 8.7.5).

:func:`combat_facts` reads one unit's Close Combat Attack on another off the board. Readings
(rulebook seed 003):

* 8.8.1: "An Engaged Ground Unit attacks Enemy Units it is Engaged with." The attack is refused
  (``refusals``) when the target is not an Enemy unit, when either unit is Flying (FLYING: "A Flying
  Unit cannot participate in the Combat Phase") or when no model of the attacker is Engaged with a
  model of the target (:func:`~mathhammer.board.engagement.engaged`: Within 1", both Ground, no
  Size 2+ terrain between them, the elevation rules of 7.2.1).
* 8.8.1 step 2, DECLARE ATTACKERS: "Fighting Rank: Within the Engagement Range (1") of an Enemy
  model. Supporting Rank: In Base-to-Base contact with a Friendly model from the same Unit that is
  in the Fighting Rank. [...] Eligible models strike the Enemy Unit as a whole." The ranks come from
  :func:`~mathhammer.board.ranks.fighting_ranks` (its readings are in that module); every model in
  either rank strikes, with its Combat Phase weapons (8.8.1 step 3: "Use only Combat Phase weapons
  listed on the Unit Card"). When the attacker is Engaged with more than one Enemy unit, 8.8.1
  lets the player split the dice ("FIGHTING MULTIPLE UNITS"); this reading puts every striking
  model's dice on the one target asked for, and ``notes`` says so.
* 8.8.1 step 4, CASUALTY REMOVAL: "Follow the Engaged Unit rules (Part 8.7.5)": visibility is
  ignored (every target model may be removed) and the defender removes models in the priority
  tiers of 8.7.5 without breaking an engagement while another valid casualty exists
  (:meth:`~mathhammer.board.facts.AttackFacts.next_casualties`). ``casualty_order`` is one removal
  order the rules allow: at each step the first model (in board order) the defender may remove.
* Evade: "Evade Rolls are only available in the Combat Phase if the Unit has a Special Ability or
  keyword that explicitly grants an Evade Roll against Close Combat attacks": the board never
  grants one here (the unit's cards may, through their abilities).

>>> from mathhammer.board.model import Board, Model, Unit
>>> a = Unit("a", "p1", (Model("a1", 5, 5, base_mm=25.4), Model("a2", 4, 5, base_mm=25.4), Model("a3", 5, 9)))
>>> t = Unit("t", "p2", (Model("t1", 6.5, 5, base_mm=25.4), Model("t2", 9, 5, base_mm=25.4)))
>>> f = combat_facts(Board(44, 30, units=(a, t)), "a", "t")
>>> f.fighting, f.supporting, f.not_striking, f.casualty_order
(('a1',), ('a2',), ('a3',), ('t2', 't1'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engagement import engaged
from .facts import attack_facts
from .model import Board
from .ranks import fighting_ranks


@dataclass(frozen=True)
class CombatFacts:
    """What the board says about one Close Combat Attack (see the module text).

    Attributes:
        attacker, target: the unit ids.
        fighting: attacking models in the Fighting Rank.
        supporting: attacking models in the Supporting Rank.
        not_striking: attacking models in neither rank.
        engaged_with: per Fighting Rank model, the Enemy models it is Engaged with.
        target_models: every model of the target unit (all may be removed, 8.7.5).
        casualty_tiers: the target's 8.7.5 priority tiers 1, 2 and 3.
        anchors: per Enemy unit Engaged with the target, the target models Engaged with it.
        casualty_order: one removal order the rules allow.
        refusals: why the attack cannot be made (empty: it can).
        notes: readings worth telling the user.
    """

    attacker: str
    target: str
    fighting: tuple[str, ...]
    supporting: tuple[str, ...]
    not_striking: tuple[str, ...]
    engaged_with: dict[str, tuple[str, ...]]
    target_models: tuple[str, ...]
    casualty_tiers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    anchors: dict[str, tuple[str, ...]]
    casualty_order: tuple[str, ...]
    refusals: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def strikers(self) -> tuple[str, ...]:
        """The models that strike (8.8.1 step 2), Fighting Rank first."""
        return self.fighting + self.supporting

    @property
    def eligible(self) -> bool:
        return not self.refusals

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "attacker": self.attacker,
            "target": self.target,
            "eligible": self.eligible,
            "refusals": list(self.refusals),
            "fighting_rank": list(self.fighting),
            "supporting_rank": list(self.supporting),
            "striking": list(self.strikers),
            "not_striking": list(self.not_striking),
            "engaged_with": {k: list(v) for k, v in self.engaged_with.items()},
            "removable": len(self.target_models),
            "removable_models": list(self.target_models),
            "casualty_tiers": {str(i): list(t) for i, t in enumerate(self.casualty_tiers, 1)},
            "anchors": {k: list(v) for k, v in self.anchors.items()},
            "casualty_order": list(self.casualty_order),
            "notes": list(self.notes),
        }


def combat_facts(board: Board, attacker_unit_id: str, target_unit_id: str) -> CombatFacts:
    """The facts of a Close Combat Attack by ``attacker_unit_id`` on ``target_unit_id`` (8.8.1, 8.7.5).

    Raises:
        InputError: an unknown unit id.
    """
    attacker = board.unit(attacker_unit_id)
    target = board.unit(target_unit_id)
    ranks = fighting_ranks(board, attacker.id)
    refusals: list[str] = []
    notes: list[str] = []
    if attacker.side == target.side:
        refusals.append(f"{target.id!r} is not an enemy unit of {attacker.id!r}")
    if attacker.flying or target.flying:
        flyer = attacker.id if attacker.flying else target.id
        refusals.append(f"{flyer!r} is Flying: 'A Flying Unit cannot participate in the Combat Phase' (FLYING)")
    engaged_pairs = [(a.id, t.id) for a in attacker.models for t in target.models if engaged(board, a, t)]
    if not engaged_pairs and not refusals:
        refusals.append(
            f"{attacker.id!r} is not Engaged with {target.id!r}: 'An Engaged Ground Unit attacks Enemy Units it "
            "is Engaged with' (8.8.1; Within 1\", no Size 2+ terrain between, elevation rules of 7.2.1)"
        )
    if not ranks.attackers and not refusals:
        refusals.append(f"no model of {attacker.id!r} is in the Fighting Rank or Supporting Rank (8.8.1 step 2)")
    others = sorted(
        {board.unit_of(board.model(e)).id for ids in ranks.engaged_with.values() for e in ids} - {target.id}
    )
    if others:
        notes.append(
            f"{attacker.id!r} is also Engaged with {', '.join(others)}: every striking model's dice go to "
            f"{target.id!r} here (8.8.1 FIGHTING MULTIPLE UNITS lets the player split them)"
        )
    # the 8.7.5 tiers and anchors are the same as for a Ranged Attack on an Engaged unit
    tiers_facts = attack_facts(board, attacker.id, target.id, None)
    order: list[str] = []
    while len(order) < len(target.models):
        nxt = tiers_facts.next_casualties(order)
        if not nxt:  # pragma: no cover - every model is in a tier
            break
        order.append(nxt[0])
    if not tiers_facts.target_engaged:
        order = [m.id for m in target.models]
    return CombatFacts(
        attacker=attacker.id,
        target=target.id,
        fighting=ranks.fighting,
        supporting=ranks.supporting,
        not_striking=tuple(k for k, v in ranks.rank.items() if v == "none"),
        engaged_with=dict(ranks.engaged_with),
        target_models=tuple(m.id for m in target.models),
        casualty_tiers=tiers_facts.casualty_tiers,
        anchors=dict(tiers_facts.anchors),
        casualty_order=tuple(order),
        refusals=tuple(refusals),
        notes=tuple(notes),
    )


__all__ = ["CombatFacts", "combat_facts"]
