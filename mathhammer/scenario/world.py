"""The scenario's battlefield: where each unit's models stand, and the facts read off the board.

:class:`World` composes one part per concern of :mod:`mathhammer.scenario.geometry`, each with its reading of the
rules in its module text:

* :mod:`~mathhammer.scenario.geometry.placement`: placements (8.5.3 step 2: "set them In Coherency around the Leading
  Model"), levels of a placement, and the casualty order (8.7.4 step 5, 8.7.5);
* :mod:`~mathhammer.scenario.geometry.charge`: a Charge's path (8.7.7 steps 2-3) and Placement priority (step 4);
* :mod:`~mathhammer.scenario.geometry.ranks`: CLOSE RANKS (8.8.1 step 1);
* :mod:`~mathhammer.scenario.geometry.toward`: a Move Directly Towards a unit (Lunge, FAQ v1.0);
* :mod:`~mathhammer.scenario.geometry.contest`: Mission Markers contested (8.9.1);
* :mod:`~mathhammer.scenario.geometry.routes`: the level of a point and moves between levels (8.5.3, part 11);
* :mod:`~mathhammer.scenario.geometry.facts`: Engagement, Line of Sight, distances, Fighting Ranks, attack facts;
* :mod:`~mathhammer.scenario.geometry.core`: the board state they share; every answer goes through its one memo
  (:mod:`mathhammer.scenario.memo`), shared with forked workers.

This module keeps the names the rest of the engine imports (``World``, ``Placement``, the constants).
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
    Zone,
    _Auto,
    _Base,
    _bases_near,
    _edge_point,
    _grid_frame,
    _GridFallbackError,
    _grow_box,
    _join_box,
    close_ranks_grid,
    close_ranks_grid_box,
    edge_distance,
    force_field_piece,
    horizontal_coherency,
    mobility,
)
from .geometry.ranks import CloseRanks
from .geometry.toward import Toward


class World(Charges, CloseRanks, Toward, Contest):
    """Placements and board facts for one scenario, cached: one part per concern (:mod:`.geometry`)."""


#: the memo's tables whose answers are functions of the board alone (no placement, no game state): a piece's top, the
#: level of a point, the footprints a base may not overlap, a unit's base radius, the ways round the terrain on the
#: empty table (:mod:`.players.ways`)
BOARD_TABLES = frozenset(
    {"tops", "levels", "blockers", "radii", "ways:graph", "ways:length", "ways:reach", "ways:ahead", "ways:points"}
)
#: the cached properties that are such answers too: :meth:`World.route` by its arguments
BOARD_PROPERTIES = ("surfaces", "_routes")


def answers(world: World) -> int:
    """How many answers ``world`` keeps: the entries of its memo's tables and its placements (what its memory grows
    with; :mod:`.parallel` renews a World past :data:`~.parallel.WORLD_ANSWERS`)."""
    return sum(len(t) for t in world.memo.tables.values()) + len(world.placements)


def renewed(old: World) -> World:
    """A World of ``old``'s scenario with nothing read of any placement (its placement ids start again), keeping
    ``old``'s answers that depend on the board alone (:data:`BOARD_TABLES`, :data:`BOARD_PROPERTIES`) and its answers
    shared with forked workers: the next block of games of a long run (:mod:`.parallel`) in a World whose memory does
    not grow with the games played before."""
    new = World(old.scn)
    for name in BOARD_TABLES & old.memo.tables.keys():
        new.memo.table(name).update(old.memo.tables[name])  # the dicts the new World's parts already hold
    for name in BOARD_PROPERTIES:
        if name in old.__dict__:
            new.__dict__[name] = old.__dict__[name]
    new.shared = old.shared
    return new


def retire(old: World) -> None:
    """Empty ``old``'s answers and placements in place, once :func:`renewed` has taken what it keeps: a forked
    worker's first World is still held by the frames it inherited from its parent (the pilot's Simulation), so
    dropping the worker's own reference would not free it."""
    for table in old.memo.tables.values():
        table.clear()
    old.placements.clear()


__all__ = [
    "AUTO",
    "BOARD_PROPERTIES",
    "BOARD_TABLES",
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
    "Zone",
    "_Auto",
    "_Base",
    "_GridFallbackError",
    "_bases_near",
    "_edge_point",
    "_grid_frame",
    "_grow_box",
    "_join_box",
    "answers",
    "close_ranks_grid",
    "close_ranks_grid_box",
    "edge_distance",
    "force_field_piece",
    "horizontal_coherency",
    "mobility",
    "renewed",
    "retire",
]
