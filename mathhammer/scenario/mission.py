"""Mission Cards in play: marker state, control (8.9.1), and the calls into the scoring kinds (8.9.2).

The cards' numbers are data (``profiles/missions.toml``); how each kind scores is one registered class of
:mod:`mathhammer.scenario.missions` quoting its card. This module keeps what every card shares and the seam the
simulation calls: :func:`setup`, :func:`start_of_round`, :func:`score` (control, then each kind of the card) and
:func:`gather`; it calls the card's kinds (``scn.mission.rules``), never a mission by name. Readings:

* Every marker on the battlefield is contested and controlled, Activated or Deactivated (FAQ v1.0:
  a Deactivated Mission Marker can still be controlled; the control rules apply to all Mission
  Markers on the battlefield); a removed (scored Supply Drop) marker is not.
* BURROWED units do not contest (part 11 BURROWED: "cannot Control or Contest Mission Markers"): a
  unit with a Status whose card answers the ``no_contest_bits`` trigger (the Burrowed Status of ``cards.burrow``:
  Burrow, Lie in Wait; it stays through Cleanup).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..board.model import MM_PER_INCH
from .basics import stream as _stream
from .fastcontrol import contest_rows, destroyed_supply, score_held, take_control
from .missions import KINDS
from .spec import PLAYERS
from .world import MARKER_MM

if TYPE_CHECKING:  # pragma: no cover
    from .simview import SimView
    from .world import World

#: :func:`contest`: a placement none of whose models contests a marker (its first contesting model, read as a count).
NEVER = 1 << 40

#: the registered scoring kinds (``scoring`` of ``profiles/missions.toml``)
SCORINGS = tuple(KINDS)


class Play:
    """The games ``live`` of one Round as the scoring kinds see them (:class:`~.missions.registry.Play`)."""

    def __init__(self, sim: SimView, live: np.ndarray, now: np.ndarray | None = None) -> None:
        self.sim = sim
        self.live = live
        self.round = sim.round
        self.now = now
        self.controlled = False  # after this Scoring Phase's control step (:attr:`table`)
        self._table: np.ndarray | None = None
        self._players = [PLAYERS.index(su.player) for su in sim.units]
        self._on: np.ndarray | None = None  # sim.on_table(), read once

    @property
    def table(self) -> np.ndarray:
        """contesting[u, m, t] after this Scoring Phase's control step (8.9.1; empty before it): read when a kind
        first asks (:func:`contest`; control itself needs no table, :func:`control`)."""
        if not self.controlled:
            return np.zeros((0, 0, 0), dtype=bool)
        if self._table is None:
            self._table = contest(self.sim, self.live)
        return self._table

    def player(self, u: int) -> int:
        """Unit ``u``'s player: 0 red, 1 blue."""
        return self._players[u]

    def colour(self, m: int) -> str:
        """The marker's colour: the scenario file's ``colour``, else 7.3.2 by number."""
        return str(self.sim.scn.deployment.markers[m].side)

    def holders(self) -> Iterator[tuple[int, int, np.ndarray]]:
        """Per marker and player: the games (of ``live``) where that player Controls the marker."""
        sim = self.sim
        for m in range(sim.M):
            held = sim.control[m, self.live]
            for p in (0, 1):
                mine = self.live[held == p]
                if mine.size:
                    yield m, p, mine

    def score_held(self, points: list[list[int]], bonus: list[list[int]] | None = None) -> None:
        """Per marker ``m`` and player ``p`` Controlling it in a game of ``live``: ``points[m][p]`` VP to ``p``, and
        ``bonus[m][p]`` more where ``p`` gained control of it from the Opponent this Round (one compiled pass,
        :func:`~mathhammer.scenario.fastcontrol.score_held`)."""
        sim = self.sim
        extra = np.zeros((sim.M, 2), dtype=np.int64) if bonus is None else np.array(bonus, dtype=np.int64)
        score_held(sim.control, sim.gained, self.live, np.array(points, dtype=np.int64), extra, sim.vp)

    def draw(self, salt: int) -> np.ndarray:
        """A uniform draw per game of ``live`` from this Round's stream ``salt``."""
        return self.sim.draw(_stream(self.round, salt), self.live)

    def destroyed_supply(self) -> np.ndarray:
        """Per player: the enemy Supply destroyed this Round in the games ``live``, 0 in the others
        (:func:`_destroyed_supply`)."""
        return _destroyed_supply(self.sim, self.live, self.now)

    def objective_supply(self) -> np.ndarray:
        """Each unit's Supply for Controlling Mission Markers and completing objectives (Commander ...)."""
        return contest_supply(self.sim, self.sim.current_supply(), self.live)

    def quarter_groups(self, u: int) -> Iterator[tuple[int, np.ndarray]]:
        """The battlefield quarter unit ``u`` is Wholly Within and the games (of ``live``, on the table) where it is."""
        sim = self.sim
        if self._on is None:
            self._on = sim.on_table()
        ts = self.live[self._on[u, self.live]]
        for (pid, k), group in sim.groups(ts, [sim.row_pos(u), sim.row_alive(u)]):
            q = sim.world.wholly_within(pid, k)
            if q is not None:
                yield q, group

    def marker_gaps(self, u: int, trials: np.ndarray) -> Iterator[tuple[np.ndarray, list[float]]]:
        """Per placement of unit ``u`` in ``trials``: its games and the gap in inches from its nearest base to each
        marker's edge (32 mm markers, 7.3.2), measured horizontally (glossary WITHIN: any part of a base)."""
        sim = self.sim
        radius = sim.units[u].base_mm / MM_PER_INCH / 2
        half = MARKER_MM / MM_PER_INCH / 2
        for (pid, k), group in sim.groups(trials, [sim.row_pos(u), sim.row_alive(u)]):
            centres = sim.world.placements[pid].centres[:k]
            gaps = [min(math.dist(c, (m.x, m.y)) for c in centres) - radius - half for m in sim.scn.deployment.markers]
            yield group, gaps


def setup(sim: SimView) -> None:
    """Mission Parameters: "All Mission Markers are Activated" (or "Deactivated": ``markers_activated``); a marker's
    ``activated`` in the scenario file overrides the card."""
    card = sim.scn.mission
    if card.markers_activated:
        sim.active[:] = True
        sim.activated_round[:] = 0
    for m, spec in enumerate(sim.scn.deployment.markers):
        if spec.activated is not None:
            sim.active[m] = spec.activated
            sim.activated_round[m] = 0
    play = Play(sim, np.arange(sim.T))
    for rule in card.rules:
        rule.setup(play)


def start_of_round(sim: SimView, live: np.ndarray) -> None:
    """START OF THE ROUND: each kind of the card (Supply Drop flips markers)."""
    play = Play(sim, live)
    for rule in sim.scn.mission.rules:
        rule.start_of_round(play)


def contest(sim: SimView, live: np.ndarray) -> np.ndarray:
    """contesting[u, m, t] (8.9.1): on the table, not Flying or BURROWED, a model Within 3" with LoS, same
    elevation (:meth:`World.contests`, read once per placement and marker; the games in compiled code,
    :func:`~mathhammer.scenario.fastcontrol.contest_rows`). The table is the simulation's scratch
    (``sim.contesting``, cleared here: no fresh pages each Round), valid until the next call."""
    out = sim.contesting
    out.fill(False)
    # part 11 GRASS: Line of Sight to a marker on the board without the pieces removed in a game (grass.py)
    for world, games, firsts, keep in sim.grass.contest_parts(live, sim.contest_firsts):
        keep(_contest_on(sim, world, games, firsts, out))
    return out


def _contest_on(sim: SimView, world: World, live: np.ndarray, firsts: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`contest` in the games ``live`` read on ``world`` (``firsts``: its table, returned grown)."""

    def read(pid: int, m: int) -> int:
        first = world.first_contesting(pid, sim.marker_numbers[m])
        return int(min(first, NEVER))

    barred = sim.cards.no_contest_bits  # the Statuses whose holder cannot Contest (part 11 BURROWED)
    for u in range(sim.U):
        if sim.units[u].flying or sim.structure[u]:
            continue  # "A Flying Unit cannot Contest or Control Mission Markers"; a Structure "can never" either
        bit = 0
        for hook in barred:
            bit |= hook(u)
        firsts = contest_rows(sim.pos[u], sim.alive[u], sim.used[u], bit, live, firsts, out[u], read)
    return firsts


def contest_supply(sim: SimView, supply: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The Supply Values for Controlling and Contesting Mission Markers (units x games, 8.9.1) in the games ``live``:
    the Current Supply Values ``supply`` with each card's ``contest_supply`` change (Commander, Domineering
    Presence ...: ``cards/supply.py``)."""
    for hook in sim.cards.contest_supply:
        supply = hook(supply, live)
    return supply


def control(sim: SimView, live: np.ndarray, now: np.ndarray | None = None) -> None:
    """8.9.1 CALCULATE CONTROL and STICKY CONTROL in the games ``live``, each in one compiled pass over the units
    (:func:`~mathhammer.scenario.fastcontrol.take_control`: who contests as :func:`contest` reads it, no table).
    ``now``: the Current Supply Values (:meth:`SimView.current_supply`), where the caller has them (they may be
    changed here: Commander ...)."""
    supply = contest_supply(sim, sim.current_supply() if now is None else now, live)  # Commander ...
    supply = np.ascontiguousarray(supply, dtype=np.int64)
    players = np.array([PLAYERS.index(su.player) for su in sim.units], dtype=np.int64)
    # "A Flying Unit cannot Contest or Control Mission Markers"; a Structure "can never" either
    contests = np.array([not (su.flying or sim.structure[u]) for u, su in enumerate(sim.units)], dtype=np.bool_)
    bits = np.zeros(sim.U, dtype=np.int64)  # the Statuses whose holder cannot Contest (part 11 BURROWED)
    for u in range(sim.U):
        for hook in sim.cards.no_contest_bits:
            bits[u] |= hook(u)
    # part 11 GRASS: Line of Sight to a marker on the board without the pieces removed in a game (grass.py)
    for world, games, firsts, keep in sim.grass.contest_parts(live, sim.contest_firsts):

        def read(pid: int, m: int, world: World = world) -> int:
            return int(min(world.first_contesting(pid, sim.marker_numbers[m]), NEVER))

        # FAQ v1.0: a Deactivated marker is controlled too; a removed (scored) one is off the battlefield
        keep(
            take_control(
                sim.pos,
                sim.alive,
                sim.used,
                bits,
                contests,
                games,
                firsts,
                supply,
                players,
                sim.removed_marker,
                sim.control,
                sim.gained,
                read,
            )
        )


def _destroyed_supply(sim: SimView, live: np.ndarray, now: np.ndarray | None = None) -> np.ndarray:
    """Per player: the enemy Supply destroyed this Round (drop of the Current Supply Values ``now``, read here where
    not given), in the columns of the games ``live`` (0 in the others)."""
    if now is None:
        now = sim.current_supply()
    players = np.array([PLAYERS.index(su.player) for su in sim.units], dtype=np.int64)
    out = destroyed_supply(sim.ref_supply, now, players, live)  # one compiled pass over the games ``live``
    if sim.round == sim.scn.mission.game_length:
        # 8.10 (read from the Reserves glossary): "In the final Round of the game, all Units still in Reserves that
        # are not deployed are treated as Destroyed for scoring purposes".
        for u in range(sim.U):
            if sim.summoned[u]:
                continue  # 9.1.9: never in Reserves (and "not used for The Final Score")
            p = PLAYERS.index(sim.units[u].player)
            reserve = live[(sim.pos[u, live] < 0) & (sim.alive[u, live] > 0)]
            out[1 - p, reserve] += sim.supply(u, sim.alive[u, reserve])
    return out


def score(sim: SimView, live: np.ndarray) -> None:
    """8.9.1 control, then 8.9.2 Victory Points per the Mission Card: each kind reads what it must before control
    (Supply destroyed), then scores after it (``every_round`` kinds every Round, the card's own from
    ``scoring_from_round``)."""
    card = sim.scn.mission
    now = sim.current_supply(out=sim.supply_now)  # control changes no unit: one reading for both
    play = Play(sim, live, now)
    for rule in card.rules:
        rule.before_control(play)
    control(sim, live, now)  # (which may change ``now``: read before)
    play.controlled = True
    for rule in card.rules:
        if card.scores_now(rule, sim.round):
            rule.score(play)


def gather(sim: SimView, u: int, trials: np.ndarray) -> None:
    """The Gather Action of unit ``u`` in the games ``trials``, scored by the card's kind that grants it."""
    play = Play(sim, trials)
    for rule in sim.scn.mission.rules:
        if rule.gather_action:
            rule.gather(play, u, trials)


__all__ = ["NEVER", "SCORINGS", "Play", "contest", "control", "gather", "score", "setup", "start_of_round"]
