"""Charge and Shoot entries of the automatic players' menus judged without the plan walk (issue 29 point 6).

:mod:`.moveverdicts` reads a plain Move, Run or Hold as the walk reads it; this module does the same for a *plain*
Charge or Shoot (its ``use`` empty: the menus then set only its one ``target``; no ``react``, ``select``, ``options``,
``weapons``) of a unit that is neither a Structure nor a Summoned Unit, in a state where neither the unit nor its
target has the Burrowed Status (``down``) and no Force Field is set (``fields_now``: the walk's state, left to the
walk). The hooks before the action read the empty fields (the list in :mod:`.moveverdicts`); the automatic player's
own activation has no target of an automatic player to warn about (``_auto_targets``), and a walk starts with no unit
attacked, set apart or Disengaged (``attacked``, ``loose``, ``formed``, ``disengaged`` empty), so a refusal is an
error, never a warning. What remains, read with the same World calls in the same order:

* a Charge (8.7.7, ``AttackChecks._check_charge`` with ``bounded_charges``): refused for a Flying unit, a Flying
  target or one off the table, an Engaged unit (the unit's pairs, :meth:`MoveVerdicts.engaged_in`: a Move's
  reading, the decision's Engaged words where it has them), where
  ``World.charge_length`` (bounded at Speed + 6 + the Charge Roll additions, Speed and additions of the loadout with
  no ability used, ON CREEP by the cards' hooks) raises (an Engaged start) or finds no end, or a path longer than
  Speed + 6 + the additions (the walk's ``length > limit + EPS`` then ``_too_far``'s ``over > EPS``). The walk then
  sets the unit at the end (``World.place``): its answer is read only by a second Charge (Lightning Dash, an ability
  used: not plain), so it is not read here;
* a Ranged Attack (8.7.3, ``AttackChecks._check_shoot`` with ``verdicts_only``): refused where the target is off the
  table; else legal where one of the Assault Phase Batches of the loadout with no ability used
  (``attack_batches``) is eligible at the target (``World.eligible``: Line of Sight, Range, the Engaged
  restrictions; the target's Combat Tags, no HIDDEN tag: it is not BURROWED and no ability was used on it), the
  Batches asked in the walk's order, up to the first eligible. Where the entry is taken if admitted (a random
  player's first admitted entry: ``taken``), the whole facts are read instead (``World.facts(...).eligible``, the
  same answer): they are kept, and the Shoot that follows in the game reads them. A player that judges every entry
  (a weighted policy's masks) takes few of them: there the shorter reading is the cheaper.

A Charge or Shoot with one inert ability and no other field is read the same way with the loadout with that ability
used (:meth:`AttackVerdicts.used`), the ability's own part of the verdict read by the walk once a Round
(:mod:`.useholds`). A test holds every verdict given here to the walk's in the states of random games and of bases set
at random (tests/test_autoplay_attackverdicts.py, tests/test_autoplay_useholds.py), and the games are the same with and
without it.
"""

from __future__ import annotations

from ...board.model import EPS
from ...errors import MathhammerError
from ...starcraft.loadout import Batch, Loadout, attack_batches
from ..abilities import is_structure
from ..check.common import _State
from ..check.moves import speed_of
from ..lookup import loadout_with
from ..simview import SimView
from ..spec import ScenarioUnit
from .menu import UnitMenu
from .moveverdicts import MoveVerdicts, bare_loadout, on_table

#: the entry kinds answered here
KINDS = ("charge", "shoot")

#: per answered entry: its action, the unit's id and ScenarioUnit, the target's index, id and ScenarioUnit, and (a
#: Charge) its (Speed, Charge Roll additions) off Creep and ON CREEP with no ability used, (a Shoot) the Batches at
#: the target
_Plain = tuple[str, str, ScenarioUnit, int, str, ScenarioUnit, tuple[tuple[int, int], ...], tuple[Batch, ...]]


class AttackVerdicts:
    """The walk's verdict on plain Charge and Shoot entries, read without the walk (the module text)."""

    def __init__(self, view: SimView, menus: dict[str, UnitMenu], check: _State, moves: MoveVerdicts) -> None:
        self.view = view
        self.menus = menus
        self.check = check  # the walk whose verdicts these are: its Burrowed Status and Force Fields read live
        self.moves = moves  # its Engagement and ON CREEP readings, shared
        self.worlds = check.grass.worlds
        self._plain: dict[tuple[int, str, int], _Plain | None] = {}
        self._used: dict[tuple[int, str, int], _Plain | None] = {}

    def plain(self, u: int, phase: str, index: int) -> _Plain | None:
        """Entry ``index`` of unit ``u``'s ``phase`` menu as read here, or None where the walk judges it."""
        return self._read(self._plain, u, phase, index, False)

    def used(self, u: int, phase: str, index: int) -> _Plain | None:
        """A Charge or Shoot entry whose ``use`` names one ability and sets no other field (:meth:`UseHolds.attack_twin
        <mathhammer.scenario.players.useholds.UseHolds.attack_twin>` has checked), read as :meth:`plain` reads a plain
        one but with the loadout with that ability used: the walk's ``_speed_now`` and ``_loadout_now`` after ``_use``
        has put it in ``used`` (a Charge's Speed and Charge Roll additions, a Shoot's Batches). None for any other
        entry."""
        return self._read(self._used, u, phase, index, True)

    def _read(
        self, kept: dict[tuple[int, str, int], _Plain | None], u: int, phase: str, index: int, used: bool
    ) -> _Plain | None:
        """:meth:`plain` (``used`` False: no ability) or :meth:`used` (one), kept in ``kept``."""
        key = (u, phase, index)
        if key in kept:
            return kept[key]
        view = self.view
        scn = view.scn
        uid = view.uids[u]
        e = self.menus[uid][phase][index]
        su = scn.units[uid]
        hit: _Plain | None = None
        auto = self.menus[uid].player in scn.policies  # the walk's ``_auto_targets``: none for an automatic player
        ok = e.action in KINDS and (len(e.use) == 1 if used else not e.use) and e.target is not None and auto
        if ok and e.target is not None and not su.summoned and not is_structure(su):
            tid = e.target
            tsu = scn.units[tid]
            speeds: tuple[tuple[int, int], ...] = ()
            batches: tuple[Batch, ...] = ()
            names = list(e.use)
            if e.action == "charge":
                speeds = tuple(self._speed(uid, su, creep, names) for creep in (False, True))
            else:
                batches = tuple(attack_batches(self._loadout(uid, False, names), tsu.unit, "assault"))
            hit = (e.action, uid, su, view.uids.index(tid), tid, tsu, speeds, batches)
        kept[key] = hit
        return hit

    def _loadout(self, uid: str, creep: bool, names: list[str]) -> Loadout:
        """The walk's ``_loadout_now`` with the abilities ``names`` used on the unit (``used``; ``on_unit`` empty)."""
        scn = self.view.scn
        return bare_loadout(scn, uid, creep) if not names else loadout_with(scn, uid, names, {}, on_creep=creep)

    def _speed(self, uid: str, su: ScenarioUnit, creep: bool, names: list[str] | None = None) -> tuple[int, int]:
        """``MoveChecks._speed_now`` of a walk with no ability used on the unit but ``names``: its Speed and Charge
        Roll additions."""
        effects = self._loadout(uid, creep, names or []).effects()
        return speed_of(su, effects), sum(e.value for e in effects if e.kind == "charge_roll")

    def verdict(self, u: int, phase: str, index: int, state: tuple[int, ...], taken: bool = False) -> bool | None:
        """The walk's verdict on entry ``index`` of unit ``u``'s ``phase`` menu in ``state`` (:meth:`Legality.states
        <mathhammer.scenario.players.legal.Legality.states>`' row), or None where it is the walk's to give (the module
        text; the unit off the table: the shortcuts'). ``taken``: the entry is taken where admitted (a random
        player's first admitted entry): a Shoot's verdict then reads the whole facts its Shoot will read."""
        return self.judge(self.plain(u, phase, index), u, state, taken)

    def verdict_used(self, u: int, phase: str, index: int, state: tuple[int, ...]) -> bool | None:
        """:meth:`verdict` of a Charge or Shoot entry with one ability (:meth:`used`): the action's own part of the
        walk's verdict, the ability's part being read by the walk of the same activation as a Hold
        (:meth:`UseHolds.attack_twin <mathhammer.scenario.players.useholds.UseHolds.attack_twin>`)."""
        return self.judge(self.used(u, phase, index), u, state)

    def judge(self, plain: _Plain | None, u: int, state: tuple[int, ...], taken: bool = False) -> bool | None:
        """:meth:`verdict` of the entry read as ``plain`` (None: the walk's)."""
        n = self.view.U
        if plain is None or state[u] < 0 or state[n + u] <= 0:
            return None
        action, uid, su, t, tid, tsu, speeds, batches = plain
        down = self.check.down
        if uid in down or tid in down or self.check.fields_now:
            return None
        gone = int(state[2 * n])
        world = self.worlds.world_for(gone)
        p, a = on_table(state, n)
        if action == "shoot":
            if a[t] <= 0:  # 8.7.3: a target on the table
                return False
            tags = tuple(tsu.unit.card.combat_tags)
            if taken:  # the whole facts, kept: the Shoot that follows reads them
                return any(world.facts(p, a, uid, tid, b.weapon, tags).eligible for b in batches)
            return any(world.eligible(p, a, uid, tid, b.weapon, tags) for b in batches)
        if su.flying or tsu.flying or p[t] < 0:  # 8.7.7: a Ground unit charges Ground units on the table
            return False
        if self.moves.engaged_in(u, state, world):  # 8.7.7: "An Unengaged Ground Unit" (the decision's reading)
            return False
        speed, more = speeds[0]
        if speeds[1] != speeds[0] and self.moves.on_creep(world, uid, p):
            speed, more = speeds[1]
        limit = speed + 6 + more
        try:
            length, end = world.charge_length(p, a, uid, (tid,), limit + EPS, fields=(), engaged_ok=False)
        except MathhammerError:
            return False
        return end is not None and not (length > limit + EPS and length - limit > EPS)


__all__ = ["KINDS", "AttackVerdicts"]
