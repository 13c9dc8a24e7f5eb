"""Another unit's base as an Entry Edge (``entry_base``; Warp Conduit, Omega Network: the plan's ``via`` on a
``deploy``), and Omega Network's return to Reserves from Base-to-Base contact (``recall_contact``; the plan's ``via``
on a ``move``, ``run`` or ``disengage``). The Deploys through a base this Round are the card's
(:attr:`DeployVia.via_used`: "Once per Round"; emptied at Cleanup)."""

from __future__ import annotations

import math

import numpy as np

from ...board.model import EPS, MM_PER_INCH
from ...starcraft.schema import Effect
from ..checkview import CardCheck, CheckView
from ..lookup import TOKEN_CONTACT, unit_effect
from ..simview import SimView
from ..spec import Activation, Scenario
from ..world import Coord, World
from .registry import Card, register


def base_entry(world: World, pid: int, alive: int, to: Coord) -> tuple[float, Coord | None]:
    """A Deploy through the base of placement ``pid`` (its first ``alive`` models) to ``to``: how far ``to`` is from
    that base's edge (8.5.5, as from an Entry Edge), and the way back towards its nearest model, where the other
    models are set (None where ``to`` is that model's centre)."""
    c = min(world.placements[pid].centres[:alive], key=lambda p: math.dist(p, to))
    back = (c[0] - to[0], c[1] - to[1])
    return math.dist(c, to) - world._radius(pid), (back if any(back) else None)


def recall_base(scn: Scenario, unit: str) -> Effect | None:
    """The ``recall_contact`` effect of ``unit`` (Omega Network: "If a Friendly Leading model finishes a Move,
    Disengage, or Run action in base-to-base contact with the Omega Worm, the controlling player may remove that Unit
    from the battlefield and return it to Reserves"), or None."""
    return unit_effect(scn.units[unit], "recall_contact")


@register
class DeployVia(Card):
    kinds = ("entry_base", "recall_contact")
    order = 10  # before the other ways to Deploy

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: per unit whose base is an Entry Edge (Warp Conduit, Omega Network): the Supply (or units) Deployed by it
        #: this Round, per game
        self.via_used: dict[int, np.ndarray] = {}

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return any(act.via is not None for act in scn.plan)

    def deploy(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray | None:
        """Deploy unit ``u`` through the base of the plan's ``via`` (an ``entry_base`` effect: Warp Conduit, Omega
        Network) in ``games``: which were set (None: no ``via``). Per game: that unit on the table, the Round's limit
        not reached ("Once per Round ... a Ground Unit"; "Friendly Units with a combined Supply cost of 2 or less"),
        the Leading Model at the plan's ``to`` at most Speed from its base (8.5.5, as from an Entry Edge), the others
        set towards it. Other games: skip report; the unit stays in Reserves."""
        sim = self.sim
        if act.via is None:
            return None
        assert act.via is not None and act.to is not None
        su = sim.units[u]
        q = sim.uids.index(act.via)
        e = unit_effect(sim.units[q], "entry_base")
        if e is None or (e.vs_tags and not set(e.vs_tags) & set(su.unit.card.combat_tags)):
            sim.skip(act, games.size, f"{act.via!r}'s base is no Entry Edge for this unit (its text)")
            return games[:0]
        there = games[(sim.pos[q, games] >= 0) & (sim.alive[q, games] > 0)]
        sim.skip(act, games.size - there.size, f"{act.via!r} is not on the battlefield: no Deploy by its base")
        used = self.via_used.setdefault(q, np.zeros(sim.T, dtype=np.int64))
        need = sim.supply(u, sim.alive[u, there]) if e.value else np.ones(there.size, dtype=np.int64)
        ok = used[there] + need <= (e.value or 1)
        sim.skip(act, int((~ok).sum()), f"{act.via!r}'s Entry Edge has let its limit Deploy this Round (its text)")
        there = there[ok]
        r = su.base_mm / MM_PER_INCH / 2
        got_l: list[np.ndarray] = []
        for (pq, kq), ts in sim.groups(there, [sim.row_pos(q), sim.row_alive(q)]):
            d, back = base_entry(sim.world, pq, kq, act.to)
            if d + r > su.speed + EPS:  # 8.5.5: the Leading Model starts outside the base (its card: the Entry Edge)
                sim.skip(act, ts.size, f"the Leading Model ends more than Speed from {act.via!r}'s base (8.5.5)")
                continue
            got_l.append(ts[sim.place(u, ts, act.to, back or sim.world.rear_of(su.player), act, arriving=True)])
        got = np.sort(np.concatenate(got_l)) if got_l else games[:0]
        used[got] += sim.supply(u, sim.alive[u, got]) if e.value else 1
        return got

    def moved(self, u: int, act: Activation, games: np.ndarray) -> None:
        """Omega Network's return (the plan's ``via`` on a ``move``, ``run`` or ``disengage``): in the games
        ``games`` (where unit ``u`` was set with its Leading Model at ``act.to``), those where that model's base is in
        Base-to-Base contact with a live model of ``via`` (edges at most :data:`TOKEN_CONTACT` apart) return the unit
        to Reserves (8.5.5, ``sim.to_reserves``); the others are counted in the skip report."""
        sim = self.sim
        if act.via is None:
            return
        assert act.via is not None and act.to is not None
        q = sim.uids.index(act.via)
        if recall_base(sim.scn, act.via) is None:
            sim.skip(act, games.size, f"{act.via!r} returns no unit to Reserves (its abilities)")
            return
        r = sim.units[u].base_mm / MM_PER_INCH / 2
        back: list[np.ndarray] = []
        for (pq, kq), ts in sim.groups(games, [sim.row_pos(q), sim.row_alive(q)]):
            if pq >= 0 and kq > 0 and sim.world.point_gap(pq, kq, act.to, r) <= TOKEN_CONTACT + 1e-9:
                back.append(ts)
        there = np.sort(np.concatenate(back)) if back else games[:0]
        sim.skip(
            act, games.size - there.size, f"not in Base-to-Base contact with {act.via!r}: not returned to Reserves"
        )
        sim.to_reserves(u, there)

    def cleanup(self, live: np.ndarray) -> None:
        self.via_used.clear()  # "Once per Round", "Each Round"

    @classmethod
    def validate(cls, scn: Scenario) -> list[str]:
        """The plan's ``via`` (read by this card only): on a deploy (through a base that counts as an Entry Edge) or a
        move, run or disengage (back to Reserves by Omega Network), naming a unit of the activation's player. Whether
        that unit's base is an Entry Edge, or returns units, is for the plan check (it reads its abilities)."""
        problems: list[str] = []
        for act in scn.plan:
            if act.via is None:
                continue
            where = f"{scn.file}: {act.where}.via"
            if act.action not in ("deploy", "move", "run", "disengage"):
                problems.append(
                    f"{where}: on a {act.action}; allowed on a deploy (through a base that counts as an Entry Edge) "
                    "or a move, run or disengage (back to Reserves by Omega Network)"
                )
            if act.via not in scn.units or scn.units[act.via].player != act.player:
                own = sorted(u for u, su in scn.units.items() if su.player == act.player)
                problems.append(
                    f"{where}: got {act.via!r}; allowed: a unit of {act.player} whose base counts as an Entry Edge "
                    f"(a Pylon, an Omega Worm): {', '.join(own)}"
                )
        return problems


# ----------------------------------------------------------------------------------------------------------------------
# The plan's ``via``: a Deploy through a base that counts as an Entry Edge, Omega Network's return to Reserves.
class DeployViaCheck(CardCheck):
    order = 160

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """ "Once per Round", "Each Round": nothing Deployed through a base yet this Round."""
        chk.via_used = {}

    @staticmethod
    def deploy_via(chk: CheckView, act: Activation) -> tuple[float, float] | None:
        """A deploy through the base of ``via`` (Warp Conduit: "Once per Round, the controlling player may deploy a
        Ground Unit from Reserves using this Pylon base as the Entry Edge"; Omega Network: "Each Round, Friendly Units
        with a combined Supply cost of 2 or less may be Deployed via this Entry Edge"): that unit on the table with such
        an effect, the unit of the kind it names, within its Round's limit, no part of the Leading Model's base farther
        than Speed from the base (the cards' texts make that base the Entry Edge, so 8.5.5 applies as to an Entry Edge:
        the Leading Model starts outside it, touching it, and moves up to Speed). The direction the other models are
        set in (towards the base), or None."""
        scn, world, say, pos, via_used = chk.scn, chk.world, chk.say, chk.pos, chk.via_used
        if act.via is None or act.to is None:
            return None
        su = scn.units[act.unit]
        e = unit_effect(scn.units[act.via], "entry_base")
        if e is None:
            say(act, f"via: {act.via!r}'s base does not count as an Entry Edge (Warp Conduit, Omega Network)")
            return None
        if act.via not in pos:
            say(act, f"via: {act.via!r} is not on the battlefield at this point of the plan")
            return None
        if e.vs_tags and not set(e.vs_tags) & set(su.unit.card.combat_tags):
            say(act, f"via: {act.via!r} lets a {'/'.join(e.vs_tags)} Unit Deploy; {act.unit!r} is not one")
        need = su.supply(su.models) if e.value else 1
        used = via_used.get(act.via, 0)
        if used + need > (e.value or 1):
            what = f"a combined Supply of {e.value}" if e.value else "one unit"
            say(act, f"via: {act.via!r} lets {what} Deploy each Round; {used} already (its text)")
        via_used[act.via] = used + need
        d, back = base_entry(world, pos[act.via], scn.units[act.via].models, act.to)
        d += su.base_mm / MM_PER_INCH / 2  # the Leading Model starts outside the base, touching it (8.5.5)
        if d > su.speed + EPS:
            say(
                act,
                f"the Leading Model's base ends {d:.1f}\" from {act.via!r}'s base; at most Speed {su.speed}\" (8.5.5: "
                '"Treat the Entry Edge as a base of a Leading Model, then move it up to the unit\'s speed")',
            )
        return back

    @staticmethod
    def after_move(chk: CheckView, act: Activation) -> bool:
        """Omega Network's return (``via`` on a ``move``, ``run`` or ``disengage``: "If a Friendly Leading model
        finishes a Move, Disengage, or Run action in base-to-base contact with the Omega Worm, the controlling player
        may remove that Unit from the battlefield and return it to Reserves"): ``via`` has the ability and is on the
        table, and the Leading Model ends in Base-to-Base contact with one of its models (edges at most
        ``TOKEN_CONTACT`` apart). Whether the unit leaves the table."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        if act.via is None or act.to is None:
            return False
        if recall_base(scn, act.via) is None:
            ok = sorted(u for u in scn.units if scn.units[u].player == act.player and recall_base(scn, u) is not None)
            say(
                act,
                f"via: {act.via!r} returns no unit to Reserves; allowed on a {act.action}: a Friendly unit with Omega "
                f"Network: {', '.join(ok) or 'none in the army'}",
            )
            return False
        if act.via not in pos:
            say(act, f"via: {act.via!r} is not on the battlefield at this point of the plan")
            return False
        r = scn.units[act.unit].base_mm / MM_PER_INCH / 2
        gap = world.point_gap(pos[act.via], scn.units[act.via].models, act.to, r)
        if gap > TOKEN_CONTACT + EPS:
            say(
                act,
                f"via: the Leading Model's base ends {gap:.2f}\" from "
                f"{act.via!r}'s; Base-to-Base contact returns the unit "
                f'to Reserves (Omega Network; at most {TOKEN_CONTACT:g}" apart)',
            )
            return False
        return True


DeployVia.plan_check = DeployViaCheck
