"""Mission Cards in play: marker state, control (8.9.1) and Victory Points (8.9.2).

The cards' texts are in ``profiles/missions.toml``; each ``scoring`` rule set is written here,
quoting the card. Readings:

* Every card scores "VPs equal to Enemy Supply destroyed this Round": the drop of each enemy
  unit's Current Supply Value since the start of the Round (or since it was deployed), FAQ v1.0:
  "Morph and any other drop in Current Supply Value scores Victory Points for the opponent".
* "Controlled Mission Marker ... associated with your colour": the players are red and blue, the
  colours of Markers 1 & 3 (Red) and 2 & 4 (Blue); Marker 5 is Neutral (7.3.2).
* Every marker on the battlefield is contested and controlled, Activated or Deactivated (FAQ v1.0:
  a Deactivated Mission Marker can still be controlled; the control rules apply to all Mission
  Markers on the battlefield); only Activated ones score (Supply Drop: "For each activated
  Controlled Mission Marker"). A scored Supply Drop marker is removed ("and remove it"): no longer
  controlled.
* BURROWED units do not contest (part 11 BURROWED: "cannot Control or Contest Mission Markers"): a
  unit with the Burrowed Status (``abilities.BURROWED_STATUS``: Burrow, Lie in Wait; it stays through Cleanup).
* Gather the Resources, GATHER ACTION: an Unengaged unit Within 3" of a marker its player
  Controls that is Neutral or of the Opponent's colour ("a Controlled Neutral Mission Marker or
  associated with the Opponent"): 1 VP. "Within 3"" only (glossary WITHIN: any part of a base):
  the card asks neither the Line of Sight nor the same elevation that contesting asks (8.9.1).
* Divide and Conquer: "If a Unit controls a Mission Marker" is read as: the unit contests a
  marker its player Controls after this Scoring Phase's control step.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..board.model import EPS, MM_PER_INCH
from . import abilities
from .basics import stream as _stream
from .fast import contest_rows, control_winners
from .spec import PLAYERS
from .world import CONTEST_RANGE, MARKER_MM

if TYPE_CHECKING:  # pragma: no cover
    from .sim import Simulation

#: :func:`contest`: a placement none of whose models contests a marker (its first contesting model, read as a count).
NEVER = 1 << 40

SCORINGS = ("hold-position", "frontlines", "gather-the-resources", "divide-and-conquer", "supply-drop")


def _colour(sim: Simulation, m: int) -> str:
    """The marker's colour: the scenario file's ``colour``, else 7.3.2 by number."""
    return str(sim.scn.deployment.markers[m].side)


def setup(sim: Simulation) -> None:
    """Mission Parameters: "All Mission Markers are Activated" except Supply Drop ("All ... Deactivated");
    a marker's ``activated`` in the scenario file overrides the card."""
    if sim.scn.mission.scoring != "supply-drop":
        sim.active[:] = True
        sim.activated_round[:] = 0
    for m, spec in enumerate(sim.scn.deployment.markers):
        if spec.activated is not None:
            sim.active[m] = spec.activated
            sim.activated_round[m] = 0


def start_of_round(sim: Simulation, live: np.ndarray) -> None:
    """Supply Drop: "START OF THE ROUND (1-4): Randomly determine one Deactivated Mission Marker (1-4) and flip it
    to its Activated side. START OF THE ROUND 5: Mission Marker 5 is automatically Activated." (Skirmish: Rounds
    2-4, markers 1, 2, 5.)"""
    mission = sim.scn.mission
    if mission.scoring != "supply-drop" or live.size == 0:
        return

    rnd = sim.round
    rounds: tuple[int, ...]
    pool: tuple[int, ...]
    if mission.scale == "skirmish":
        rounds, pool, fixed = (2, 3, 4), (1, 2, 5), None
    else:
        rounds, pool, fixed = (1, 2, 3, 4), (1, 2, 3, 4), 5
    idx = [i for i, n in enumerate(sim.marker_numbers) if n in pool]
    if rnd in rounds and idx:
        u = sim.draw(_stream(rnd, 7), live)
        dormant = np.stack([~sim.active[i, live] & ~sim.removed_marker[i, live] for i in idx])
        count = dormant.sum(axis=0)
        choice = (u * np.maximum(count, 1)).astype(np.int64)
        rank = np.cumsum(dormant, axis=0) - 1
        for j, i in enumerate(idx):
            hit = dormant[j] & (rank[j] == choice) & (count > 0)
            sim.active[i, live[hit]] = True
            sim.activated_round[i, live[hit]] = rnd
    if fixed is not None and rnd == mission.game_length:
        for i, n in enumerate(sim.marker_numbers):
            if n == fixed:
                fresh = live[~sim.active[i, live] & ~sim.removed_marker[i, live]]
                sim.active[i, fresh] = True
                sim.activated_round[i, fresh] = rnd


def contest(sim: Simulation, live: np.ndarray) -> np.ndarray:
    """contesting[u, m, t] (8.9.1): on the table, not Flying or BURROWED, a model Within 3" with LoS, same
    elevation (:meth:`World.contests`, read once per placement and marker; the games in compiled code,
    :func:`~mathhammer.scenario.fast.contest_rows`)."""
    out = np.zeros((sim.U, sim.M, sim.T), dtype=bool)
    firsts = sim.contest_firsts

    def read(pid: int, m: int) -> int:
        first = sim.world.first_contesting(pid, sim.marker_numbers[m])
        return int(min(first, NEVER))

    for u in range(sim.U):
        if sim.units[u].flying or sim.structure[u]:
            continue  # "A Flying Unit cannot Contest or Control Mission Markers"; a Structure "can never" either
        names = sim.abilities[u]  # BURROWED: "cannot Control or Contest Mission Markers" (part 11)
        bit = 1 << names.index(abilities.BURROWED_STATUS) if abilities.BURROWED_STATUS in names else 0
        firsts = contest_rows(sim.pos[u], sim.alive[u], sim.used[u], bit, live, firsts, out[u], read)
    sim.contest_firsts = firsts
    return out


def control(sim: Simulation, live: np.ndarray, now: np.ndarray | None = None) -> np.ndarray:
    """8.9.1 CALCULATE CONTROL and STICKY CONTROL; returns the contest table. ``now``: the Current Supply Values
    (:meth:`Simulation.current_supply`), where the caller has them (they may be changed here: Commander ...)."""
    table = contest(sim, live)
    supply = abilities.contest_supply(sim, sim.current_supply() if now is None else now, live)  # Commander ...
    players = np.array([PLAYERS.index(su.player) for su in sim.units], dtype=np.int64)
    winner = control_winners(table, supply, players, live)  # per marker and game: 0 red, 1 blue, -1 neither
    sim.gained[:, live] = False
    for m in range(sim.M):
        # FAQ v1.0: a Deactivated marker is controlled too; a removed (scored) one is off the battlefield
        there = ~sim.removed_marker[m, live]
        for p in (0, 1):
            take = live[(winner[m, live] == p) & there]
            sim.gained[m, take] = sim.control[m, take] == 1 - p
            sim.control[m, take] = p
    return table


def _destroyed_supply(sim: Simulation, live: np.ndarray, now: np.ndarray | None = None) -> np.ndarray:
    """Per player: the enemy Supply destroyed this Round (drop of the Current Supply Values ``now``, read here where
    not given)."""
    out = np.zeros((2, sim.T), dtype=np.int64)
    if now is None:
        now = sim.current_supply()
    for u in range(sim.U):
        p = PLAYERS.index(sim.units[u].player)
        drop = np.maximum(0, sim.ref_supply[u] - now[u])
        out[1 - p] += drop
    if sim.round == sim.scn.mission.game_length:
        # 8.10 (read from the Reserves glossary): "In the final Round of the game, all Units still in Reserves that
        # are not deployed are treated as Destroyed for scoring purposes".
        for u in range(sim.U):
            if sim.summoned[u]:
                continue  # 9.1.9: never in Reserves (and "not used for The Final Score")
            p = PLAYERS.index(sim.units[u].player)
            reserve = (sim.pos[u] < 0) & (sim.alive[u] > 0)
            out[1 - p] += np.where(reserve, sim.supply(u, sim.alive[u]), 0)
    return out


def score(sim: Simulation, live: np.ndarray) -> None:
    """8.9.1 control, then 8.9.2 Victory Points per the Mission Card."""
    mission = sim.scn.mission
    rnd = sim.round
    now = sim.current_supply(out=sim.supply_now)  # control changes no unit: one reading for both
    destroyed = _destroyed_supply(sim, live, now)
    table = control(sim, live, now)  # (which may change ``now``: read before)
    sim.vp[:, live] += destroyed[:, live]
    kind = mission.scoring
    from_round = 1 if kind in ("divide-and-conquer",) else 2
    if kind == "supply-drop":
        from_round = 2 if mission.scale == "skirmish" else 1
    if rnd < from_round:
        return
    for m in range(sim.M):
        colour = _colour(sim, m)
        held = sim.control[m, live]
        for p in (0, 1):
            mine = live[held == p]
            if mine.size == 0:
                continue
            other = PLAYERS[1 - p]
            if kind == "hold-position":
                # "Gain 1 VP for each Controlled Mission Marker that is Neutral or associated with your colour.
                # Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour."
                sim.vp[p, mine] += 2 if colour == other else 1
            elif kind == "frontlines":
                # "Gain 1 VP for each Controlled Mission Marker. Gain an additional 2 VPs for a Marker if you gained
                # Control of it from the Opponent this Round."
                sim.vp[p, mine] += 1 + 2 * sim.gained[m, mine]
            elif kind == "gather-the-resources":
                # "Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour."
                if colour == other:
                    sim.vp[p, mine] += 2
            elif kind == "divide-and-conquer":
                # "Gain 2 VP for Controlling Mission Marker 5."
                if sim.marker_numbers[m] == 5:
                    sim.vp[p, mine] += 2
            elif kind == "supply-drop":
                # "For each activated Controlled Mission Marker, gain VPs equal to the Game Round number in which
                # that Mission Marker was Activated and remove it."
                scored = mine[sim.active[m, mine]]
                sim.vp[p, scored] += sim.activated_round[m, scored]
                sim.active[m, scored] = False
                sim.removed_marker[m, scored] = True
                sim.control[m, scored] = -1
    if kind == "divide-and-conquer":
        _quarters(sim, live, table)


def _quarters(sim: Simulation, live: np.ndarray, table: np.ndarray) -> None:
    """Divide and Conquer: "Gain 1 VP for each quarter where your Total Current Supply is higher than the
    Opponent's. Only Units Wholly Within a quarter contribute ... If a Unit controls a Mission Marker, that Unit
    is worth 1 extra Supply for controlling quarters." """
    supply = abilities.contest_supply(sim, sim.current_supply(), live)  # "completing objectives"
    totals = np.zeros((2, 4, sim.T), dtype=np.int64)
    on = sim.on_table()
    for u in range(sim.U):
        p = PLAYERS.index(sim.units[u].player)
        ts = live[on[u, live]]
        controls = np.zeros(sim.T, dtype=bool)
        for m in range(sim.M):
            controls |= table[u, m] & (sim.control[m] == p)
        for (pid, k), group in sim.groups(ts, [sim.row_pos(u), sim.row_alive(u)]):
            q = sim.world.wholly_within(pid, k)
            if q is not None:
                totals[p, q, group] += supply[u, group] + controls[group]
    for p in (0, 1):
        wins = (totals[p] > totals[1 - p]).sum(axis=0)
        sim.vp[p, live] += wins[live]


def gather(sim: Simulation, u: int, trials: np.ndarray) -> None:
    """Gather the Resources, ASSAULT PHASE: "If an Unengaged Unit is Within 3" of a Controlled Neutral Mission
    Marker or associated with the Opponent, this unit may perform the Gather Action ... GATHER ACTION: Gain 1 VP." """
    if sim.scn.mission.scoring != "gather-the-resources":
        return
    p = PLAYERS.index(sim.units[u].player)
    other = PLAYERS[1 - p]
    free = trials[~sim.engaged_mask(trials, u)]
    earned = np.zeros(sim.T, dtype=bool)
    radius = sim.units[u].base_mm / MM_PER_INCH / 2
    for (pid, k), group in sim.groups(free, [sim.row_pos(u), sim.row_alive(u)]):
        centres = sim.world.placements[pid].centres[:k]
        for m, spec in enumerate(sim.scn.deployment.markers):
            if _colour(sim, m) not in ("neutral", other):
                continue
            # 'Within 3"' of the marker (32 mm, 7.3.2): any part of a base, measured horizontally (glossary WITHIN)
            gap = min(math.dist(c, (spec.x, spec.y)) for c in centres) - radius - MARKER_MM / MM_PER_INCH / 2
            if gap <= CONTEST_RANGE + EPS:
                earned[group[(sim.control[m, group] == p) & sim.active[m, group]]] = True
    sim.vp[p, earned] += 1


__all__ = ["SCORINGS", "control", "gather", "score", "setup", "start_of_round"]
