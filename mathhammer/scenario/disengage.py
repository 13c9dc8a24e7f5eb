"""8.5.4 Disengage: where the models end, which are Destroyed, and when the Disengage fails.

The rule (8.5.4): "Move it following the standard Move rules (Part 8.5.3). Any individual model that cannot end its
movement strictly outside the Engagement Range of all Enemy Units is immediately removed and considered Destroyed.
Other models in the Unit that successfully clear the Engagement Range remain unaffected - the Unit continues with its
remaining models. If the Leading Model itself cannot end its movement outside the Engagement Range of all Enemy
Units, the Disengage fails. The Unit does not move, the Leading Model is removed, and the Unit's activation ends."

A plan gives one destination for the Leading Model; the enemies stand differently from game to game, so each game
reads its own board:

* The unit is not Engaged in that game: the Disengage is a plain Move there (the World's Move placement; a unit that
  is not Engaged has nothing to withdraw from).
* The Leading Model's destination is Within 1" (edge to edge, horizontally, 7.2.1) of a live model of an Enemy Ground
  Unit (a Flying model is never Engaged): the Disengage fails. The unit stays where it is and loses one model: the
  controlling player nominates the Leading Model (glossary: "the Controlling Player selects one model"), and the model
  removed is the unit's next one in its removal order (so the others keep their places); a unit of one model is
  Destroyed. Counted in the skip report.
* Otherwise the unit is set as by a Move (:meth:`World.place`: every model on a free spot of the grid around the
  Leading Model, strictly outside 1" of every Enemy Ground model). Where that finds no room, the live models are set
  on the same grid with only the spots clear of the enemies' Engagement Range (:func:`clear_spots`): if all of them
  fit once the Engagement Range is ignored (the room is there) but only some fit outside it, the others cannot end
  their move outside it and are Destroyed (their Supply is lost, which the mission scores as any Supply destroyed).
  Where even that finds no room, the unit stays (as a Move: "no room to set the unit there").

Engagement here is distance alone, as in :meth:`World.place` (terrain that would keep two models from being Engaged,
7.2.1, is not read). The Disengage penalty (Tactical Mass) is read before the move, as before, also where the
Disengage fails.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..board.engagement import ENGAGEMENT_RANGE
from ..board.model import EPS, MM_PER_INCH
from .world import GAP, Placement, World

if TYPE_CHECKING:
    from .simview import SimView
    from .spec import Activation, ScenarioUnit

__all__ = ["FAILED", "LOST", "clear_spots", "lead_engaged", "move"]

Coord = tuple[float, float]

#: Skip-report reasons (the rule cited).
FAILED = (
    "Disengage failed: the Leading Model cannot end outside the Engagement Range of all Enemy Units; it is removed "
    "and the unit does not move (8.5.4)"
)
LOST = "Disengage: models that cannot end strictly outside the Engagement Range of all Enemy Units, Destroyed (8.5.4)"
NO_ROOM = "no room to set the unit there"


def _enemy_ground(sim: SimView, u: int) -> list[int]:
    """The units that can Engage unit ``u`` (7.2.1: Ground models Engage only Ground models, of the other player)."""
    mine = sim.units[u]
    if mine.flying:
        return []
    return [v for v in range(sim.U) if sim.units[v].player != mine.player and not sim.units[v].flying]


def lead_engaged(world: World, su: ScenarioUnit, lead: Coord, foes: list[tuple[int, int]]) -> bool:
    """Is a base of ``su`` centred at ``lead`` Within the Engagement Range (1", edge to edge) of a live model of the
    placements ``foes`` ((placement id, models left))? The same measure as :meth:`World.place` (1" plus EPS)."""
    r = su.base_mm / MM_PER_INCH / 2
    return any(world.point_gap(pid, k, lead, r) <= ENGAGEMENT_RANGE + EPS for pid, k in foes if pid >= 0 and k > 0)


def clear_spots(
    world: World,
    su: ScenarioUnit,
    lead: Coord,
    rear: Coord,
    others: list[tuple[Coord, float, bool]],
    n: int,
    enemy_free: bool,
) -> list[Coord]:
    """Up to ``n`` centres for ``su``'s live models with the Leading Model at ``lead``: the grid and tests of a Move
    (:meth:`World.place` for a Move: the same spots in the same order, kept together), against the live bases
    ``others`` ((centre, radius, an enemy Ground model)); ``enemy_free``: no spot Within 1" of an enemy. Empty when
    the Leading Model's own spot is not free."""
    level = world.level_at(lead)
    r = su.base_mm / MM_PER_INCH / 2
    if world._blocked(lead, r, others, enemy_free, level):
        return []
    step = 2 * r + GAP
    norm = math.hypot(*rear) or 1.0
    back = (rear[0] / norm, rear[1] / norm)
    centres = [lead]
    mine: list[tuple[Coord, float, bool]] = [(lead, r, False)]
    for dx, dy in world._grid_order(su.models, step, back, lead, su.player):
        if len(centres) >= n:
            break
        c = (lead[0] + dx, lead[1] + dy)
        if world._blocked(c, r, others + mine, enemy_free, level):
            continue
        if min(math.dist(c, m[0]) for m in mine) > step + 2.0:  # kept together, as a Move sets them
            continue
        centres.append(c)
        mine.append((c, r, False))
    return centres


def _live_bases(
    sim: SimView, u: int, pos: tuple[int, ...], alive: tuple[int, ...]
) -> tuple[list[tuple[Coord, float, bool]], list[tuple[str, Coord, float]]]:
    """The live bases of the other units on the table (centre, radius, an enemy Ground model) and the enemy Ground
    models (unit id, centre, radius) for the casualty order."""
    world = sim.world
    foes = set(_enemy_ground(sim, u))
    others: list[tuple[Coord, float, bool]] = []
    enemies: list[tuple[str, Coord, float]] = []
    for v, (pid, k) in enumerate(zip(pos, alive, strict=True)):
        if v == u or pid < 0 or k <= 0:
            continue
        p = world.placements[pid]
        orad = sim.units[v].base_mm / MM_PER_INCH / 2
        others.extend((c, orad, v in foes) for c in p.centres[:k])
        if v in foes:
            enemies.extend((p.unit, c, orad) for c in p.centres[:k])
    return others, enemies


def _fail(sim: SimView, u: int, act: Activation, games: np.ndarray) -> None:
    """The Disengage fails in ``games``: the unit stays and loses its Leading Model (one model)."""
    if games.size == 0:
        return
    sim.skip(act, games.size, FAILED)
    sim.alive[u, games] -= 1
    sim.shielded[u, games] = False  # part 11 SHIELDED: lost when the first model is removed
    gone = games[sim.alive[u, games] <= 0]
    if gone.size:
        sim.mark[u, gone] = 0
        sim.set_pos(u, gone, -1)
    sim.trim(u, games)  # the model removed leaves the table; the others stay where they stand


def move(sim: SimView, u: int, act: Activation, trials: np.ndarray, engaged: np.ndarray) -> np.ndarray:
    """Unit ``u``'s Disengage to ``act.to`` in ``trials`` (``engaged``: per trial, is it Engaged); which were set
    (the module text)."""
    assert act.to is not None
    to = act.to
    placed = np.zeros(sim.T, dtype=bool)
    free = trials[~engaged]
    placed[sim.move_to(u, free, to, act)] = True  # not Engaged in that game: a plain Move
    mine = trials[engaged]
    if mine.size == 0:
        return trials[placed[trials]]
    world, su = sim.world, sim.units[u]
    enemies = _enemy_ground(sim, u)
    fails = np.zeros(sim.T, dtype=bool)
    cols: list[np.ndarray | int] = [*(sim.row_pos(v) for v in enemies), *(sim.row_alive(v) for v in enemies)]
    for key, ts in sim.groups(mine, cols):
        n = len(enemies)
        if lead_engaged(world, su, to, list(zip(key[:n], key[n:], strict=True))):
            fails[ts] = True
    _fail(sim, u, act, mine[fails[mine]])
    going = mine[~fails[mine]]
    for end in sim.cards.end_status:  # part 11 BURROWED: a Disengage removes it
        end(u, going)
    for (at,), ts in sim.groups(going, [sim.row_pos(u)]):
        got = sim.place(u, ts, to, world.rear_from(at, to), act, quiet=True)
        placed[ts[got]] = True
    rest = going[~placed[going]]
    cols = [sim.row_board(), *(sim.row_alive(v) for v in range(sim.U))]
    for key, ts in sim.groups(rest, cols):
        pos, alive = sim.board_pos(key[0]), tuple(key[1:])
        others, foes = _live_bases(sim, u, pos, alive)
        rear = world.rear_from(pos[u], to)
        k = alive[u]
        if len(clear_spots(world, su, to, rear, others, k, enemy_free=False)) < k:
            sim.skip(act, ts.size, NO_ROOM)  # no room even where the Engagement Range is ignored: as a Move
            continue
        spots = clear_spots(world, su, to, rear, others, k, enemy_free=True)
        norm = math.hypot(*rear) or 1.0
        order = world._casualty_order(spots, (rear[0] / norm, rear[1] / norm), su.base_mm / MM_PER_INCH / 2, foes)
        pid = world._intern(Placement(su.id, tuple(order), world.level_at(to)))
        sim.set_pos(u, ts, pid)
        placed[ts] = True
        if len(spots) < k:
            sim.skip(act, ts.size, LOST)
            sim.alive[u, ts] = len(spots)
            sim.shielded[u, ts] = False  # part 11 SHIELDED: lost when the first model is removed
    return trials[placed[trials]]
