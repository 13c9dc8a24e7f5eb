"""Move, Run and Hold entries of the automatic players' menus judged without the plan walk (issue 29 point 6).

:mod:`.legal` judges an entry by ``scenario check``'s walk (``_CheckAt.problems_of``): a whole activation each time,
every card's hook and every check. For a *plain* entry (its ``use`` empty: the menus then set no other field of the
Activation, no ``react``, ``select``, ``options``, ``token_at``, ``extra_to``, ``place_to``, ``summon_to``, ``edge``,
``via`` or ``on``) of a unit that is neither a Structure nor a Summoned Unit, the walk reads only the following, and
:class:`MoveVerdicts` reads the same, with the same World calls, in one state:

* the hooks before the action (``activation_ok``, ``after_select``, ``after_reactions``, ``_check_token``,
  ``card_checks``, ``before_action``, ``instead_of_action``) read ``use``, ``react``, ``select`` and the fields above,
  all empty; the Summon card's ``activation_ok`` refuses a Structure and orders a Summoned Unit (left to the walk);
  the Burrowed Status (``down``) refuses a Move of a BURROWED unit (a state with the unit in ``down`` is left to the
  walk: the menus' uses never set it);
* a Hold then has nothing more to check: legal for a unit on the table (the shortcuts refuse it off the table);
* a Move or Run (8.5.2-8.5.3, ``PlanCheck._move``): refused where the unit is Engaged (``World.engaged_pairs`` of the
  models left, read on the unit's own pairs, ``World.pair_engaged`` as that method calls it; no unit is taken as
  destroyed or set apart: the walk's ``attacked`` and ``loose`` are empty); where
  the Leading Model's point is over a terrain top (``World.level_at``: the menus name no ``on``); where the straight
  line is longer than Speed, or the way round the terrain it cannot cross is (``clear_line``, ``World.route``: the
  Speed of the loadout with no ability used, ON CREEP read by the cards' own ``on_creep`` hooks on the state's
  placements where it changes the Speed); and where the World cannot set the unit there (``World.place``, the
  other units' placements; :meth:`World.place_among`: :meth:`World.place_near_lead` first, whose answer
  :meth:`World.place` gives where it has one; kept, so that the Move in a game of the state reads it again). A
  Leading Model standing on a terrain top (a route between levels) is left to the walk. ``after_move`` is called only
  for a ``via`` (none).

A Move or Run whose ``use`` names one ability whose Hold twin is inert (:meth:`UseHolds.twin
<mathhammer.scenario.players.useholds.UseHolds.twin>`: Stimpack) is read the same way at the Speed of the loadout with
that ability (:meth:`MoveVerdicts.verdict_used`); the ability's own part of the verdict is the twin's.

A test holds every verdict given here to the walk's in the states of random games (tests/test_autoplay_moveverdicts.py,
tests/test_autoplay_useholds.py), and the games are the same with and without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import numpy as np

from ...board.model import EPS, MM_PER_INCH
from ...board.pathing import clear_line
from ...starcraft.loadout import Loadout
from ..abilities import is_structure
from ..check.common import CREEP_FAMILIES, _State
from ..check.moves import speed_of
from ..lookup import loadout_with, unit_effects
from ..simview import SimView
from ..spec import Scenario, ScenarioUnit
from ..world import World
from .menu import UnitMenu

#: the entry kinds answered here
KINDS = ("move", "run", "hold")
#: the memo of ways (per Grass mask, unit, Leading Model, point and Speed) is cleared past this many answers (a block
#: of 10,000 random games asks about 12,000)
WAY_LIMIT = 1 << 15
#: the memo of a unit's Engagement per state (:meth:`MoveVerdicts.engaged_in`) is cleared past this many answers
STATE_LIMIT = 1 << 12
#: the memo of ON CREEP (:meth:`MoveVerdicts.on_creep`) is cleared past this many answers
CREEP_LIMIT = 1 << 15
#: a decision of more states reads a unit's Engaged in every state at once, the first time that unit is asked (fewer: in
#: each state asked, one by one)
FEW_STATES = 8

#: per answered entry: its action, its point (None: a Hold), the unit's id, its ScenarioUnit, its Speed with no
#: ability used (off Creep, ON CREEP) and its ``headings`` (the rear rounded, :meth:`World.rear_from`)
_Plain = tuple[str, tuple[float, float] | None, str, ScenarioUnit, tuple[float, float], int | None]


def on_table(state: tuple[int, ...], n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The placements and models left of :meth:`Legality.states <mathhammer.scenario.players.legal.Legality.states>`'
    row ``state`` (``n`` units) as the walk reads them (``_CheckAt.problems_of``): a unit with no model left is off
    the table (-1, 0)."""
    pos, alive = state[:n], state[n : 2 * n]
    if min(pos) >= 0 and min(alive) > 0:  # every unit on the table (the rows are tuples: read as they are)
        return pos, alive
    p = tuple(pv if pv >= 0 and k > 0 else -1 for pv, k in zip(pos, alive, strict=True))
    a = tuple(k if pv >= 0 else 0 for pv, k in zip(p, alive, strict=True))
    return p, a


def bare_loadout(scn: Scenario, uid: str, creep: bool) -> Loadout:
    """The walk's ``_loadout_now`` of a unit no ability was used on (``used`` and ``on_unit`` empty: a plain entry's
    walk), ON CREEP or not."""
    return loadout_with(scn, uid, [], {}, on_creep=creep)


class MoveVerdicts:
    """The walk's verdict on plain Move, Run and Hold entries, read without the walk (the module text)."""

    def __init__(self, view: SimView, menus: dict[str, UnitMenu], check: _State) -> None:
        self.view = view
        self.menus = menus
        self.check = check  # the walk whose verdicts these are: its Burrowed Status and Creep Tumors read live
        self.worlds = check.grass.worlds  # Grass mask -> World (the walk's ``world_for``)
        self._plain: dict[tuple[int, str, int], _Plain | None] = {}
        self._used: dict[tuple[int, str, int], _Plain | None] = {}
        self._ways: dict[tuple[int, str, tuple[float, float], tuple[float, float], float], bool] = {}
        self._speeds: dict[int, tuple[float, float]] = {}
        self._states: dict[tuple[int, tuple[int, ...]], tuple[World, bool]] = {}
        self._creep_reads: dict[str, tuple[int, ...]] = {}  # per unit: it and the Sources of Creep (on_creep)
        self._creep: dict[tuple[object, ...], bool] = {}
        #: the decision being taken (:meth:`taking`): its games, their states and each game's; the game of each state
        self._taking: tuple[np.ndarray, list[tuple[int, ...]], np.ndarray] | None = None
        self._index_of: dict[tuple[int, ...], int] | None = None  # state -> its index in the decision's states
        self._firsts = np.zeros(0, dtype=np.int64)  # per state of the decision: its first game
        self._engaged_now: dict[int, np.ndarray] = {}  # per unit: Engaged in each state of the decision

    def taking(self, decision: tuple[np.ndarray, list[tuple[int, ...]], np.ndarray] | None) -> None:
        """A decision starts: its games, their distinct states and each game's (:meth:`Legality.states
        <.legal.Legality.states>`; no activation until it ends, so each state is a game's now); or it ends (None).
        Within it, :meth:`engaged_in` reads whether a unit is Engaged in a state from a game of that state
        (:meth:`SimView.engaged_one <mathhammer.scenario.simview.SimView.engaged_one>`: the engine's own words), in a
        decision of more than :data:`FEW_STATES` states for all its states at once the first time a unit is asked
        (:meth:`SimView.engaged_mask <mathhammer.scenario.simview.SimView.engaged_mask>` of their first games)."""
        self._taking = decision
        self._index_of = None
        self._engaged_now = {}

    def plain(self, u: int, phase: str, index: int) -> _Plain | None:
        """Entry ``index`` of unit ``u``'s ``phase`` menu as read here, or None where the walk judges it."""
        key = (u, phase, index)
        if key in self._plain:
            return self._plain[key]
        view = self.view
        uid = view.uids[u]
        e = self.menus[uid][phase][index]
        su = view.scn.units[uid]
        hit: _Plain | None = None
        plain = e.action in KINDS and not e.use and (e.action == "hold" or e.to is not None)
        if plain and not su.summoned and not is_structure(su):
            hit = (e.action, e.to, uid, su, self.bare_speeds(u), e.headings)
        self._plain[key] = hit
        return hit

    def bare_speeds(self, u: int) -> tuple[float, float]:
        """Unit ``u``'s Speed with no ability used (off Creep, ON CREEP), read once."""
        speeds = self._speeds.get(u)
        if speeds is None:
            uid = self.view.uids[u]
            su = self.view.scn.units[uid]
            speeds = self._speeds[u] = (self._speed(uid, su, False), self._speed(uid, su, True))
        return speeds

    def used(self, u: int, phase: str, index: int) -> _Plain | None:
        """A Move or Run entry whose ``use`` names one ability and sets no other field (:meth:`UseHolds.twin
        <mathhammer.scenario.players.useholds.UseHolds.twin>` has checked), read as :meth:`plain` reads a plain one but
        at the Speed of the loadout with that ability used: the walk's ``_speed_now`` after ``_use`` has put it in
        ``used`` (BUFF Speed: Stimpack). None for any other entry."""
        key = (u, phase, index)
        if key in self._used:
            return self._used[key]
        uid = self.view.uids[u]
        e = self.menus[uid][phase][index]
        su = self.view.scn.units[uid]
        hit: _Plain | None = None
        moving = e.action in ("move", "run") and e.to is not None and len(e.use) == 1
        if moving and not su.summoned and not is_structure(su):
            names = list(e.use)
            speeds = (self._speed(uid, su, False, names), self._speed(uid, su, True, names))
            hit = (e.action, e.to, uid, su, speeds, e.headings)
        self._used[key] = hit
        return hit

    def _speed(self, uid: str, su: ScenarioUnit, creep: bool, names: list[str] | None = None) -> float:
        """``MoveChecks._speed_now`` of a walk with no ability used on the unit but ``names`` (``used`` holding them,
        ``on_unit`` empty)."""
        scn = self.view.scn
        lo = bare_loadout(scn, uid, creep) if not names else loadout_with(scn, uid, names, {}, on_creep=creep)
        return float(speed_of(su, lo.effects()))

    def verdict(self, u: int, phase: str, index: int, state: tuple[int, ...]) -> bool | None:
        """The walk's verdict on entry ``index`` of unit ``u``'s ``phase`` menu in ``state`` (:meth:`Legality.states
        <mathhammer.scenario.players.legal.Legality.states>`' row: the placements, the models left, the Grass mask), the
        None where it is the walk's to give (the module text; the unit off the table: the shortcuts')."""
        return self.judge(self.plain(u, phase, index), u, state)

    def verdict_used(self, u: int, phase: str, index: int, state: tuple[int, ...]) -> bool | None:
        """:meth:`verdict` of a Move or Run entry with one ability (:meth:`used`): the Move's own part of the walk's
        verdict, the ability's part being its Hold twin's (:meth:`UseHolds.twin
        <mathhammer.scenario.players.useholds.UseHolds.twin>`)."""
        return self.judge(self.used(u, phase, index), u, state)

    def judge(self, plain: _Plain | None, u: int, state: tuple[int, ...]) -> bool | None:
        """:meth:`verdict` of the entry read as ``plain`` (None: the walk's)."""
        n = self.view.U
        if plain is None or state[u] < 0 or state[n + u] <= 0:
            return None
        action, to, uid, su, speeds, headings = plain
        if uid in self.check.down:
            return None
        if action == "hold":
            return True
        assert to is not None
        gone = int(state[2 * n])
        world = self.worlds.world_for(gone)
        pid = state[u]
        if world.placements[pid].level is not None:
            return None  # a route between levels: the walk's
        if world.level_at(to) is not None:  # the menus name no ``on`` (8.5.3: not ending on terrain)
            return False
        # each refusal below gives False whichever is read first: the cheaper first (a point beyond the Speed refuses
        # most entries, and needs neither the other units nor ON CREEP)
        if speeds[1] == speeds[0]:
            if self._too_far(world, gone, su, pid, to, speeds[0]):
                return False
        elif math.dist(world.placements[pid].centres[0], to) > max(speeds) + EPS:
            return False  # too far at either Speed: ``way_length`` is never shorter than the straight line
        if self.engaged_in(u, state, world):  # 8.5.2, 8.7.1: Engaged, it cannot Move or Run
            return False
        if speeds[1] != speeds[0]:
            speed = speeds[1] if self._on_creep_in(world, uid, state) else speeds[0]
            if self._too_far(world, gone, su, pid, to, speed):
                return False
        # the other units on the table (:func:`on_table`'s placements), read off the state in one pass
        occupied = tuple(pv for v, pv in enumerate(state[:n]) if v != u and pv >= 0 and state[n + v] > 0)
        rear = world.rear_from(pid, to, headings)
        unit = world.models_left(su, state[n + u])  # the models left are set (the engine's ``Movement.place``)
        return world.place_among(unit, to, rear, occupied) is not None  # ``to`` is on the playmat: place's level

    def engaged_in(self, u: int, state: tuple[int, ...], world: World) -> bool:
        """Is unit ``u`` :meth:`engaged` in ``state`` (read from a game of the state where a decision is being taken,
        :meth:`taking`: in a decision of many states, in all of them at once)? Else kept per (unit, state), at most
        :data:`STATE_LIMIT` (a policy asks one entry of many games' states, then the next entry of those it did not
        settle: a unit's entries in one state are not asked one after the other)."""
        s = self._state_index(state)
        if s is not None and self._firsts.size > FEW_STATES:  # every state of the decision at once
            now = self._engaged_now.get(u)
            if now is None:
                now = self._engaged_now[u] = self.view.engaged_mask(self._firsts, u)
            return bool(now[s])
        key = (u, state)
        kept = self._states.get(key)
        if kept is not None and kept[0] is world:
            return kept[1]
        if s is None:
            hit = self.engaged(world, u, *on_table(state, self.view.U))
        else:
            hit = self.view.engaged_one(int(self._firsts[s]), u)
        if len(self._states) >= STATE_LIMIT:
            self._states.clear()
        self._states[key] = (world, hit)
        return hit

    def _game(self, state: tuple[int, ...]) -> int | None:
        """A game whose state is ``state`` now (:meth:`taking`), or None (no decision, or none of its games)."""
        s = self._state_index(state)
        return None if s is None else int(self._firsts[s])

    def _state_index(self, state: tuple[int, ...]) -> int | None:
        """The index of ``state`` among the decision's states whose first games :attr:`_firsts` holds (:meth:`taking`),
        or None (no decision, or none of its games)."""
        taking = self._taking
        if taking is None:
            return None
        of = self._index_of
        if of is None:
            games, table, sid = taking
            if len(table) == 1:
                of, self._firsts = {table[0]: 0}, games[:1]
            else:  # the first game of each state
                states, first = np.unique(sid, return_index=True)
                of = dict(zip(map(table.__getitem__, states.tolist()), range(states.size), strict=True))
                self._firsts = games[first]
            self._index_of = of
        return of.get(state)

    def engaged(self, world: World, u: int, p: tuple[int, ...], a: tuple[int, ...]) -> bool:
        """Is unit ``u`` in a pair of ``World.engaged_pairs(p, a)`` (7.2.1)? Its pairs only, each read as that method
        reads it (``pair_engaged``, the unit first of the two in World order)."""
        return world.unit_engaged(p, a, u)

    def _on_creep_in(self, world: World, uid: str, state: tuple[int, ...]) -> bool:
        """:meth:`on_creep` at :func:`on_table`'s placements of ``state``, its key read off the state (the placements
        only of the units it reads)."""
        n = self.view.U
        reads = self._creep_reads.get(uid)
        if reads is not None:
            at = (state[v] if state[v] >= 0 and state[n + v] > 0 else -1 for v in reads)
            hit = self._creep.get(self._creep_key(world, uid, at))
            if hit is not None:
                return hit
        return self.on_creep(world, uid, on_table(state, n)[0])

    def on_creep(self, world: World, uid: str, p: tuple[int, ...]) -> bool:
        """The walk's ON CREEP of ``uid`` (``MoveChecks._speed_now``: the cards' ``on_creep`` hooks) at the placements
        ``p`` and the walk's Creep Tumors. The hooks read the unit's placement, the Sources of Creep's and the Creep
        Tumors alone (``Creep.on_creep``): the answer is kept per those, at most :data:`CREEP_LIMIT`."""
        reads = self._creep_reads.get(uid)
        if reads is None:
            scn, uids = self.view.scn, self.view.uids
            sources = (uids.index(d) for d, _ in unit_effects(scn, "creep_source") if d in uids)
            reads = self._creep_reads[uid] = (uids.index(uid), *dict.fromkeys(sources))
        key = self._creep_key(world, uid, (p[v] for v in reads))
        hit = self._creep.get(key)
        if hit is None:
            pos = {v: pv for v, pv in zip(self.view.uids, p, strict=True) if pv >= 0}
            chk: Any = SimpleNamespace(scn=self.view.scn, world=world, pos=pos, tumors=self.check.tumors)
            hit = any(fam.on_creep(chk, uid) for fam in CREEP_FAMILIES)
            if len(self._creep) >= CREEP_LIMIT:
                self._creep.clear()
            self._creep[key] = hit
        return hit

    def _creep_key(self, world: World, uid: str, at: Iterable[int]) -> tuple[object, ...]:
        """:meth:`on_creep`'s key: the World, the unit, the walk's Creep Tumors and the placements ``at`` of the units
        it reads (``_creep_reads``, in order)."""
        return (world, uid, tuple(self.check.tumors), *at)

    def _too_far(
        self, world: World, gone: int, su: ScenarioUnit, pid: int, to: tuple[float, float], speed: float
    ) -> bool:
        """8.5.3: the straight line from the Leading Model of placement ``pid`` to ``to`` is longer than ``speed``, or
        (a Ground unit whose line meets terrain it cannot cross) the way round it is (``PlanCheck._move``)."""
        lead = world.placements[pid].centres[0]
        key = (gone, su.id, lead, to, speed)  # the answer reads the unit, its Leading Model and the point alone
        hit = self._ways.get(key)
        if hit is None:
            hit = way_length(world, su, lead, to, speed) > speed + EPS
            if len(self._ways) > WAY_LIMIT:
                self._ways.clear()
            self._ways[key] = hit
        return hit


def way_length(
    world: World, su: ScenarioUnit, lead: tuple[float, float], to: tuple[float, float], reach: float
) -> float:
    """The length :meth:`MoveVerdicts._too_far` holds against a Speed of at most ``reach`` (8.5.3, ``PlanCheck._move``):
    the straight line from ``lead`` to ``to`` where it is longer than ``reach``, where the unit is Flying or where the
    line meets no terrain it cannot cross (``clear_line``); else the longer of it and the way round that terrain
    (``World.route``). For every Speed ``s`` up to ``reach``, the move is too far exactly where the length is more
    than ``s`` + EPS (the tables of :mod:`.movetables` keep it per pair of menu points)."""
    straight = math.dist(lead, to)
    if straight > reach + EPS or su.flying:
        return straight
    r, through = su.base_mm / MM_PER_INCH / 2, world.mobility[su.id][0]
    if clear_line(world.board, lead, to, None, r, through):
        return straight
    rt = world.route(lead, None, to, None, edge=world.edges[su.player], flying=su.flying,
                     free_climb=world.mobility[su.id][1], radius=r, through=through)  # fmt: skip
    return max(straight, rt.length)


__all__ = ["KINDS", "MoveVerdicts", "bare_loadout", "on_table", "way_length"]
