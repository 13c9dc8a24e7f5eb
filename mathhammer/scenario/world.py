"""The scenario's battlefield: where each unit's models stand, and the facts read off the board.

:class:`World` composes one part per concern of :mod:`mathhammer.scenario.geometry`, each with its reading of the
rules in its module text:

* :mod:`~mathhammer.scenario.geometry.placement`: placements (8.5.3 step 2: "set them In Coherency around the Leading
  Model"), levels of a placement, and the casualty order (8.7.4 step 5, 8.7.5);
* :mod:`~mathhammer.scenario.geometry.charge`: a Charge's path (8.7.7 steps 2-3) and Placement priority (step 4);
* :mod:`~mathhammer.scenario.geometry.ranks`: CLOSE RANKS (8.8.1 step 1);
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


class World(Charges, CloseRanks, Contest):
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
    "Zone",
    "_Auto",
    "_Base",
    "_GridFallbackError",
    "_bases_near",
    "_edge_point",
    "_grid_frame",
    "_grow_box",
    "_join_box",
    "close_ranks_grid",
    "close_ranks_grid_box",
    "edge_distance",
    "force_field_piece",
    "horizontal_coherency",
    "mobility",
]
