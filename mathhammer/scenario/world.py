"""The scenario's battlefield: where each unit's models stand, and the facts read off the board.

Positions are *placements*: a unit's Leading Model at the planned point and the other models
set In Coherency around it (8.5.3 step 2: "Pick up all remaining models and set them In
Coherency around the Leading Model"), on one level: the playmat (GROUND LEVEL) or the top of one
terrain piece with a horizontal surface (the plan's ``on``; part 11 ELEVATION LEVEL). How the
models are set:

* models are set on a hexagonal grid of their base spacing (bases 0.1" apart), nearest to the
  Leading Model first, behind it (away from where it moves, or from the charged unit) before in
  front of it; never off the table, over another unit's base (on any level: bases are compared
  top-down, as the board layer does), or Within 1" of an enemy Ground unit (except the declared
  targets of a Charge, 8.7.7 step 4; ENGAGEMENT RANGE is "measured horizontally", so on any level).
* A charging unit is set by 8.7.7 step 4's Placement priority instead (:meth:`World._charge_spots`):
  each model in Base-to-Base contact with a live model of a declared target wherever there is room
  (Priority A), else Within 1" of one (Priority B), else beside a model of the unit that is (its
  Supporting Rank) or on the grid nearest the Leading Model (Priority C). The removed models' spots
  of the targets stay clear (as everywhere: boards read at full strength stay legal), so a target
  with few models left inside a ring of removed ones may leave little room to touch it. The
  models are set Wholly Within 3" of the Leading Model (4.4) where there is room; a model that finds
  no spot so is set by the same priorities without the 3" (4.4 would remove it as a casualty; not
  modelled). The Leading Model stays where the Charge path ended (Within 1" of every target), not moved on into
  Base-to-Base contact where the Charge Roll would allow ("Set it in Base-to-Base contact with the
  Charge target(s) if possible"): that would make a placement per Charge Roll.
* On the playmat: never over a terrain footprint ("may not end overlapping terrain").
* On a piece (``Placement.level``, the models' ``stands_on``): every model of the unit on the same
  piece, each base centre over the piece's top (FAQ v1.0, Wobbly Model Syndrome: "the centre of the
  base must stay over the High Ground piece", the base may overhang its edge a little), and no base
  over another piece's footprint, except the pieces under it (a piece set on the top is an obstacle
  like a wall on the playmat). Reading: a unit that does not fit on the top in this way is not
  placed there (the activation is refused) -- the FAQ lets models be set onto High Ground "through
  Coherency and an ACCESS POINT", but a unit split over two levels is not modelled.
* The level of a point: the plan names it (``on``); where a caller does not (the simulation, a
  Charge's end), it is the highest piece with a horizontal top whose footprint holds the point,
  else the playmat (:meth:`World.level_at`): a base centre over any other footprint could not stand
  there anyway. ``scenario check`` holds ``on`` to the same level, so the two always agree.

Casualties: the survivors of a unit with ``k`` models left are the first ``k`` centres of its
placement, so the order of the centres is the defender's choice that the rules leave open
(8.7.4 step 5: "The defending player removes models"). The number of models an attack may remove
still follows visibility (8.7.4 step 5). The order is the scenario's ``[policy] casualties``:

* ``keep-leader`` (default): the models set last go first (the farthest from the Leading Model,
  those set in front of it after those beside and behind it); the Leading Model goes last.
* ``keep-front``: the rearmost models go first, measured along the unit's facing (the way it moved
  or charged; for a Deploy, away from its Entry Edge), so the unit keeps the models nearest the
  front: the enemy it charged, the marker it moved to. The Leading Model still goes last (the plan
  measures Moves and Charges from it).

8.7.5 (Removing Models from Engaged Units) overrides the policy for a unit set Engaged (a Charge:
the only way a plan sets a unit Within 1" of an enemy). Reading: the casualties go in its strict
priority order, Priority 1 (models not Within the Engagement Range of any Enemy Unit) first, then
Priority 2 (Within the Engagement Range, not in Base-to-Base contact), then Priority 3 (Base-to-Base,
bases at most ``CONTACT`` = 0.05" apart); the policy orders the models within a tier. "cannot choose a
model if removing it would cause the Unit to stop being Engaged with a specific Enemy Unit":
the Leading Model (set Engaged with every declared target, 8.7.7 step 3) and, for an Enemy Unit
it is not Engaged with, that unit's best-placed Engaged model are removed last. The order is fixed
when the unit is set: a unit that is charged keeps the order it was set with (its casualties do
not look at where the charger stands), and walls between models are not looked at here.

CLOSE RANKS (8.8.1 step 1, :meth:`World.close_ranks`; ``[policy] close_ranks``): "Before rolling the dice,
the Unit may press into the fight". Reading:

* Models in Base-to-Base contact (bases at most ``CONTACT`` = 0.05" apart) with a model of an Engaged
  enemy unit stay ("physically pinned"); if every model is pinned, nothing moves.
* The Leading Model is the first other model (placement order) that can end closer to the Engaged units:
  it moves straight towards the nearest live model of those units, at most 3", stopping in Base-to-Base
  contact (bases 0.025" apart) or at the last free spot before its way is blocked (8.5.3: off the table
  or its level's top, a Size 2+ wall other than GRASS, an enemy model, another unit's Ground model, or
  Within 1" of an enemy Ground unit it is not Engaged with). It passes through its own unit's models.
* The other models that are not pinned are picked up and set one at a time, nearest to the Engaged
  units first: at the free spot nearest its old one in Base-to-Base contact with a live Engaged enemy
  model; else (a model not already Within 1" of an enemy) in Base-to-Base contact with a model of the
  unit set Within the Engagement Range; else at its old spot; else at the nearest free spot of a
  hexagonal grid around the Leading Model. If a model finds no spot, nothing moves.
* In Coherency, as :meth:`World.place` reads it: a spot at most one base spacing + 2" from a model of
  the unit already set, with a Coherency Link to it (4.4: the line crosses no Size 2+ wall and no other
  unit's Ground model; it may cross the Engaged enemy models), and Wholly Within 3" of the Leading
  Model (4.4: "set each remaining model one at a time, Wholly Within 3" of the Leading Model"; one
  base size, so centres at most 3" apart). A model that finds no such spot in any of the steps above
  is set by the same steps without the 3" (4.4 would remove it as a casualty: "Any model that cannot
  find a legal position maintaining the Coherency Link is immediately removed"; not modelled).
* A free spot: on the table, over the placement's level (``Placement.level`` is kept) and off the
  footprints a base there may not overlap (as ``place``), overlapping no base (every centre of the
  other placements and of the Engaged units, removed models included, so that boards read at full
  strength stay legal), and not Within 1" of an enemy Ground unit that is not Engaged ("cannot bring
  the Unit into Engagement with new Enemy Units").
* "Models cannot use this move to Disengage": if the unit would no longer be Engaged (7.2.1) with
  every unit it was Engaged with, nothing moves.
* The new placement's order follows the casualty policy and 8.7.5's tiers as ``place`` does (the
  unit's own order kept, the facing away from the nearest enemy model); its removed models keep their
  old centres at the end.

Mission Markers (8.9.1): a unit contests a marker only with a model "on the same elevation as the
marker". The markers are set on the battlefield (7.3.2) at the Deployment Card's points, read as on
the playmat (GROUND LEVEL), so a unit on a piece (MID or HIGH GROUND) never contests one.

Moves between levels (:meth:`World.route`, for ``scenario check``): 8.5.3 "The Leading Model cannot
change elevation unless it passes through an ACCESS POINT" and "Measure the actual path travelled".
Reading (simpler than the Charge's path search, :mod:`mathhammer.board.charge`): the Leading Model's
centre goes in straight lines on each level (walls and bases on the way are not looked at, as for a
Move on one level) and changes level only by passing an ACCESS POINT of the piece it climbs or
leaves (a point, or a segment sampled every ``PORTAL_STEP``), from there onto the nearest point of
the piece's top; each pass adds the piece's ``height`` (the climb counts, as in
:mod:`mathhammer.board.charge`; a piece without a ``height`` is refused, not guessed). A piece
without ACCESS POINTs is IMPASSABLE TERRAIN (part 11): no route onto or off it, but for a unit with Raptor
Strain ("change elevation without using ACCESS POINTS"), which climbs anywhere on a piece's edge. A Deploy starts at
the Entry Edge (8.5.5); FAQ v1.0: "If High Ground physically touches the player's Entry Edge, the
unit can be deployed directly on that terrain", read as: the top of a piece whose footprint touches
the Entry Edge is entered from the edge without an ACCESS POINT or a climb. A Flying unit "ignores
elevation. It does not use Access Points" and "moves point-to-point, measuring horizontally".

Every fact is cached by the placements and models left, so each board state is read once
(issue 5: geometry stays out of the Monte Carlo loop). Three computations are also kept with the
box of every point they tested against the other units' bases (a Charge path, the placement of a
charging unit, a Close Ranks move): a base farther than its radius + the unit's + 1" from that box
changes none of those tests, so a later board with the same bases near the box gets the same
answer without computing it again. A Charge is read first on the models near the Leading Model, for
paths up to 1, 2, 3, 4, 6 and 8 inches in turn (``World._charge_local``): a path that short stays near
its start, so its answer is kept under the content of those models alone, which many more board states
share.
"""

from __future__ import annotations

from .geometry.charge import Charges
from .geometry.contest import Contest
from .geometry.core import (
    _ANGLES,
    _RING,
    AUTO,
    B_GAPS,
    CHARGE_STEPS,
    CLOSE_RANKS_MOVE,
    COHERENCY_SLACK,
    CONTEST_RANGE,
    EDGE_REAR,
    FIELD_RADIUS,
    GAP,
    GRID_SPAN,
    MARKER_MM,
    PLACE_NEAR,
    WHOLLY_WITHIN,
    Coord,
    Placement,
    Route,
    _Auto,
    _Base,
    _bases_near,
    _ChargeEntry,
    _CloseEntry,
    _edge_point,
    _grid_offsets,
    _GridFallbackError,
    _grow_box,
    _join_box,
    _SpotsEntry,
    close_ranks_grid,
    close_ranks_grid_box,
    edge_distance,
    force_field_piece,
    horizontal_coherency,
    mobility,
)
from .geometry.facts import Facts
from .geometry.placement import Placing
from .geometry.ranks import CloseRanks
from .geometry.routes import Routes


class World(Charges, CloseRanks, Placing, Contest, Facts, Routes):
    """Placements and board facts for one scenario, cached: one part per concern (:mod:`.geometry`)."""


__all__ = [
    "AUTO",
    "B_GAPS",
    "CHARGE_STEPS",
    "CLOSE_RANKS_MOVE",
    "COHERENCY_SLACK",
    "CONTEST_RANGE",
    "EDGE_REAR",
    "FIELD_RADIUS",
    "GAP",
    "GRID_SPAN",
    "MARKER_MM",
    "PLACE_NEAR",
    "WHOLLY_WITHIN",
    "_ANGLES",
    "_RING",
    "Coord",
    "Placement",
    "Route",
    "World",
    "_Auto",
    "_Base",
    "_ChargeEntry",
    "_CloseEntry",
    "_GridFallbackError",
    "_SpotsEntry",
    "_bases_near",
    "_edge_point",
    "_grid_offsets",
    "_grow_box",
    "_join_box",
    "close_ranks_grid",
    "close_ranks_grid_box",
    "edge_distance",
    "force_field_piece",
    "horizontal_coherency",
    "mobility",
]
