"""``mathhammer scenario check``: walk the plan at full strength and report every illegal activation.

The walk assumes every planned activation happens as written (every unit at full strength,
every Charge successful), which is the plan the player wrote, in the game's turn order (``order.py``:
8.2.1 alternation from the First Player Marker, 8.4.2 / 8.6.2 the first to Pass takes it; where the
game decides its holder, 8.2.2 Roll-Off and 8.9.6, the plan is walked with each player holding it).
Legality that depends on the game's state is judged per game: a plan illegal in every game is an
error, one illegal in some games a ``warning:`` line with the condition (the simulation skips it in
those games and reports how often): illegal with one First Player only; legal only once casualties
destroyed units the plan attacked (``_State.spared``: an enemy the unit is Engaged with, a base in
the way, an Engaged target) or removed their models (a Ranged Attack's target Engaged by those
models only); too long only from the walk's placement of a unit the game set (a Charge's end,
CLOSE RANKS: ``_State.loose``); a Ranged Attack refused only at the walk's formation of a unit the
plan moved from such a placement (its models behind the Leading Model: ``_State.formed``).
Each problem names the round, the phase, the player and the activation (``rounds[0].red.movement[2]``)
and cites the rule:

* Deploy: the unit still in Reserves; its Supply within Available Supply (8.3.2: "A Unit can only
  be fielded if its Current Supply Value is less than or equal to the Available Supply"; a Deploy
  that fits only once casualties freed Supply is a warning, ``MoveChecks._supply_ok``); the
  Leading Model within Speed of its Entry Edge (8.5.5); no model Within the opponent's Zone of
  Influence (8.3.3; WITHIN: any part of a base); no abilities from Reserves (8.5.5, FAQ v1.0).
* Move, Run, Disengage: on the table; within Speed (straight line, 8.5.3); not Within 1" of an
  enemy Ground unit (8.5.3); Move and Run only Unengaged (8.5.2, 8.7.1), Disengage only Engaged.
* Levels (``on``; ``world.py``): the Leading Model's point over the top of the piece named by ``on``
  (FAQ v1.0 Wobbly Model Syndrome), or off every piece with a horizontal top without ``on``; every
  model of the unit fits on that top. A Deploy, Move, Run or Disengage onto, off or between pieces
  passes an ACCESS POINT (8.5.3 "The Leading Model cannot change elevation unless it passes through an
  ACCESS POINT"; a piece without one is IMPASSABLE TERRAIN), and its length counts the climb (8.5.3
  "Measure the actual path travelled"): ``World.route``, straight lines on each level plus the
  ``height`` of each piece climbed (a piece without ``height`` is an error).
* Ranged Attack: weapons of the unit; at least one planned target it may shoot (8.7.3 step 1:
  range, visibility, Combat Tag, Engaged restrictions).
* Charge: Ground units (8.7.7 "Flying Units cannot Charge or be Charged"), a reachable end
  position within Speed + 6". One within reach only past bases casualties may have destroyed, or only
  from where the game set a unit's Leading Model, is a warning, and the walk goes on with the Charge
  made (its end by the walk's placement of the target; the charger then ``loose`` too).
* Abilities (chapter 10, 10.5; ``abilities.py``): an Active ability (``use``) of the unit, its
  upgrades or its player's Faction and Tactical Cards, in its phase, once per Round per unit
  unless REPEATABLE (and within a limit its text starts with: "Once per Game", a card's "Once per
  Round" for the player), its cost paid by Exhausting Ready cards of the resource (excess lost,
  10.5.1); a card's own ability Exhausts that card (10.5.2); a card ability for "a Friendly
  Biological Unit" only for such a unit.
* Reactions (10.4; ``react``): a Reaction of the reacting unit, its upgrades or its player's cards;
  the unit on the table (none from Reserves, FAQ v1.0); at most one per player per Activation;
  once per Round per unit and name unless REPEATABLE; paid from the same Ready cards as the
  Active abilities. A Reaction whose trigger the plan cannot produce is an error (an attack on a
  unit of the Active Player, a Charge Roll of another unit); one whose effect the simulation does
  not model is accepted with a ``warning:`` line.
* One activation per unit and phase (8.4.1, 8.6.1); the Gather Action only in Gather the Resources.
* Conditions (``if`` / ``unless``, :mod:`mathhammer.scenario.conditions`): a conditional activation is
  checked as written, as if it happens; a condition naming an unknown unit or marker is a file error
  (reported when the file is read); one that cannot hold at full strength is not flagged.
* Disengage (8.5.4): a Ranged Attack or Charge in the Assault Phase after a Disengage needs Tactical
  Mass: an error where the unit can never have it, a warning with the condition where it depends on
  casualties (``common._tactical_mass``), nothing where an ability lifts the penalty (Tactical Retreat).
* End of the Round (8.9.4): the First Player's effects first; where both players have some, both
  orders are walked (``cards.CardChecks._end_of_round``).

The package: :class:`~.walk.PlanCheck` walks rounds -> phases -> activations over the walk state
(``common._State``: placements, Statuses, tokens, purses, uses, messages); its checks are methods by
concern, one base class a module, each module importing only the one before it: ``moves``
(Deploy, Move, levels, routes, Supply), ``attacks`` (Ranged Attack, Charge, the Disengage penalty),
``cards`` (the trigger points of the card families, and what they share: tokens, ``select``, the End
of the Round), ``reactions`` (10.4). The walk names no card and no effect kind: each card's plan check is a
``checkview.CardCheck`` in its own module under ``cards/`` (``Card.plan_check``), found through the registry
(``cards.plan_checks``, in ``common.FAMILIES``), with hooks at named trigger points (start of a Round, start of an
activation, each ability used, after ``select``, after the Reactions, on use of its kinds, before and instead of the
action, after a Ranged Attack) and the questions the walk asks (a target HIDDEN or detected, a unit ON CREEP, the
Disengage penalty lifted, a Deploy by another edge, by PLACE or through a base, an ability that is the Deploy
itself, the End of the Round's effects); its Reaction check is a
``checkview.ReactionCheck`` in its card's module (``Card.reaction_check``, found through ``cards.reaction_checks``
in ``reactions.REACTION_FAMILIES``: a Reaction's trigger and target, the first family that reads an effect of it).
Shared pure helpers live in ``common``.
"""

from __future__ import annotations

from ..spec import Scenario
from .common import cost_discount
from .walk import PlanCheck


def check_scenario(scn: Scenario) -> list[str]:
    """Every problem of the plan, one line each (an empty list: the plan is legal as written)."""
    return PlanCheck(scn).run()


__all__ = ["PlanCheck", "check_scenario", "cost_discount"]
