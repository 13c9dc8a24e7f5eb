"""``scenario check``'s reading of a Move's and a Deploy's path (8.5.3 step 1, 8.5.5).

The path itself is :func:`mathhammer.board.pathing.shortest_route` (through :meth:`World.route`): the shortest way
of the Leading Model's base around the terrain it cannot cross, the same pathing as a Charge's. Here:

* a Move, Run or Disengage on one level whose straight line meets such terrain (:func:`clear_line`) is measured
  along that way (8.5.3: "Measure the actual path travelled"; "cannot move through terrain of Size 2 or
  larger"); no way, or one longer than Speed, is refused. A Flying unit measures straight (FLYING: "moves
  point-to-point").
* a Deploy (8.5.5) is measured from outside the table: its length is the centre's path from the Entry Edge plus
  the base radius, at most Speed, so no part of the base ends farther than Speed from the edge
  (:mod:`mathhammer.board.pathing`).
"""

from __future__ import annotations

import math

from ...board.model import MM_PER_INCH
from ...board.pathing import clear_line
from ..spec import Activation
from ..world import World

__all__ = ["around_text", "blocked_line", "deploy_far_text", "deploy_length", "lead_size"]


def lead_size(world: World, act: Activation) -> tuple[float, int]:
    """The Leading Model's base radius (inches) and the Size of IMPASSABLE TERRAIN it moves through (Raptor
    Strain; 0: none)."""
    su = world.scn.units[act.unit]
    return su.base_mm / MM_PER_INCH / 2, world.mobility[act.unit][0]


def blocked_line(world: World, act: Activation, lead: tuple[float, float]) -> bool:
    """Does the straight line of a Ground unit's Move on one level from ``lead`` to the plan's ``to`` meet terrain it
    cannot cross (8.5.3; then it is measured along the way around, :meth:`World.route`)?"""
    assert act.to is not None
    if world.scn.units[act.unit].flying:
        return False
    return not clear_line(world.board, lead, act.to, act.on, *lead_size(world, act))


def deploy_length(world: World, act: Activation, edge: str) -> float:
    """How far a Deploy onto the playmat moves the Leading Model's base from the table edge ``edge`` to the plan's
    ``to`` (8.5.5: the centre's path from the edge, round the terrain it cannot cross, plus the base radius;
    ``inf``: no way round)."""
    assert act.to is not None
    r, through = lead_size(world, act)
    su = world.scn.units[act.unit]
    return world.route(None, None, act.to, None, edge=edge, flying=su.flying, radius=r, through=through).length


def deploy_far_text(d: float, edge: str, which: str, speed: int) -> str:
    """The check's message for a Deploy of length ``d`` beyond Speed (or with no way, ``inf``)."""
    if math.isinf(d):
        return (
            f"no way from the {edge} {which} to the planned point around the terrain the Leading Model cannot cross "
            '(8.5.5, 8.5.3: "The Leading Model cannot move through terrain of Size 2 or larger"; Gap Clearance)'
        )
    return (
        f'the Leading Model\'s base ends {d:.1f}" from the {edge} {which}; at most Speed {speed}" '
        '(8.5.5: "move it up to the Unit\'s Speed"; 8.5.3: "No part of a base of the Leading Model can move more '
        'than its unit Speed value")'
    )


def around_text(length: float, speed: float) -> str:
    """The check's message for a Move on one level whose way around the terrain is longer than Speed (or none)."""
    if math.isinf(length):
        return (
            'no way to the planned point around the terrain the Leading Model cannot cross (8.5.3: "The Leading '
            'Model cannot move through terrain of Size 2 or larger. Follow Gap Clearance rules")'
        )
    return (
        f'moves {length:.1f}" around the terrain it cannot cross; Speed is {speed:g}" (8.5.3: "Measure the actual '
        'path travelled"; "cannot move through terrain of Size 2 or larger")'
    )
