"""Deploy, Move, Run and Disengage checks of the plan walk: levels and routes (8.5.3), Entry Edges and Deploy placements
(8.5.5), Available Supply (8.3.2), extra moves and unit placements, Speed now."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...board.model import EPS
from ...starcraft.loadout import Loadout
from ..abilities import (
    find,
    loadout_with,
)
from ..checkview import available as _available
from ..checkview import need as _need
from ..checkview import within_now as _within_now
from ..spec import Activation, ScenarioUnit
from ..world import EDGE_REAR, Zone
from .common import (
    CREEP_FAMILIES,
    FAMILIES,
    _in_enemy_zone,
    _State,
)
from .pathing import around_text, deploy_far_text, deploy_length, lead_size

if TYPE_CHECKING:
    from ...starcraft.schema import Effect


def speed_of(su: ScenarioUnit, effects: Sequence[Effect]) -> int:
    """A unit's Speed with the effects of its loadout now (``Loadout.effects``): its card's Speed and each BUFF Speed
    but the ON CREEP ones (read through ``CardCheck.on_creep``'s loadout). The walk's reading, and the automatic
    players' (``players/legal.py``, ``players/moveverdicts.py``): one sum, so their verdicts cannot part."""
    return int(su.speed + sum(e.value for e in effects if e.kind == "speed" and not e.on_creep))


class MoveChecks(_State):
    """Deploy, Move, Run and Disengage checks of the plan walk: methods of :class:`~.walk.PlanCheck`."""

    def _level_ok(self, act: Activation) -> bool:
        """The Leading Model's point is on the planned level: over the top of ``on``, or off every such top."""
        world, say = self.world, self.say
        assert act.to is not None
        here = world.level_at(act.to)
        if here == act.on:
            return True
        at = f"({act.to[0]:g}, {act.to[1]:g})"
        if act.on is None:
            say(
                act,
                f"the Leading Model's point {at} is over terrain piece {here!r}, which has a horizontal top: set "
                f'on = "{here}" to stand on it, or end off it (8.5.3: "may not end overlapping terrain")',
            )
        else:
            where = "the playmat" if here is None else f"terrain piece {here!r}"
            say(
                act,
                f"on = {act.on!r}: the Leading Model's point {at} is over {where}, not over the top of {act.on!r} "
                "(FAQ v1.0 Wobbly Model Syndrome: the centre of the base stays over the piece)",
            )
        return False

    def _route_ok(
        self, act: Activation, start: tuple[float, float] | None, start_level: str | None, limit: float
    ) -> None:
        """A Deploy (``start`` None) or a move that changes level: through ACCESS POINTs, the climb counted (8.5.3)."""
        world, say = self.world, self.say
        assert act.to is not None
        su = world.scn.units[act.unit]
        edge = world.edges[act.player]
        r, through = lead_size(world, act)
        rt = world.route(start, start_level, act.to, act.on, edge=edge, flying=su.flying,
                         free_climb=world.mobility[act.unit][1], radius=r, through=through)  # fmt: skip

        def level(lv: str | None) -> str:
            return "the playmat" if lv is None else f"the top of {lv!r}"

        source = f"the {edge} Entry Edge" if start is None else level(start_level)
        if start is not None and start_level == act.on:  # one level, the straight line blocked (8.5.3)
            if rt.length > limit + EPS:
                say(act, around_text(rt.length, limit))
            return
        if math.isinf(rt.length):
            say(
                act,
                f'no way from {source} to {level(act.on)} through an ACCESS POINT (8.5.3: "The Leading Model cannot '
                'change elevation unless it passes through an ACCESS POINT"; IMPASSABLE TERRAIN: "no Access Point '
                'connecting it to an adjacent elevation level")',
            )
            return
        for piece in rt.no_height:
            say(
                act,
                f"terrain {piece!r}.height: missing; needed to count the climb through its ACCESS POINT "
                '(8.5.3: "Measure the actual path travelled")',
            )
        if rt.no_height:
            return
        if rt.length > limit + EPS:
            via = ", then of ".join(repr(p) for p in rt.via)
            climb = f' through an ACCESS POINT of {via}, climbing {rt.climb:g}"' if rt.via else ""
            if start is None:
                say(
                    act,
                    f"the Leading Model's base ends {rt.length:.1f}\" from the {edge} Entry Edge along its path"
                    f"{climb}; "
                    f'at most Speed {su.speed}" (8.5.5, 8.5.3: "Measure the actual path travelled")',
                )
            else:
                say(
                    act,
                    f'moves {rt.length:.1f}" from {source} to {level(act.on)}{climb}; Speed is {su.speed}" '
                    '(8.5.3: "Measure the actual path travelled")',
                )

    def set_unit(self, act: Activation, to: tuple[float, float], level: str | None, field: str) -> bool:
        """Set ``act``'s unit with its Leading Model at ``to`` on ``level``, the others behind it (8.5.3), where the
        plan has it (``pos``); a ``field`` error where it cannot be set there. True where it was set."""
        world, say, pos, occupied, why_not = self.world, self.say, self.pos, self.occupied, self.why_not
        su = self.as_set(act.unit)
        pid = world.place(su, to, world.rear_from(pos[act.unit], to), occupied(act.unit), on=level)
        if pid is None:
            say(act, f"{field}: " + why_not(act, to))
            return False
        pos[act.unit] = pid
        return True

    def _place(
        self, act: Activation, rear: tuple[float, float], quiet: bool = False, arriving: Zone | None = None
    ) -> int | None:
        """Set ``act``'s unit at ``act.to`` (8.5.3, 8.5.5), its placement id; where the bases of units casualties may
        have destroyed stand in the way (:meth:`spared`), a warning with that condition; else None, and an error unless
        ``quiet`` (the caller says it). ``arriving``: the unit arrives from Reserves, its models set out of this Zone
        of Influence (8.3.3, :meth:`World.place`), as the games set it."""
        world, su = self.world, self.as_set(act.unit)
        assert act.to is not None
        pid = world.place(su, act.to, rear, self.occupied(act.unit), on=act.on, arriving=arriving)
        if pid is not None:
            return pid
        why = self._why_not(act, rear, arriving)
        gone, _, _ = self.spared((act.unit,))
        if gone:
            rest = tuple(p for u, p in self.pos.items() if u != act.unit and u not in gone)
            pid = world.place(su, act.to, rear, rest, on=act.on, arriving=arriving)
            if pid is not None:
                self.if_destroyed(act, why, self.near(pid, gone))
                return pid
        if act.unit in self.attacked:  # fewer models left may fit: the games set those only (8.5.3 step 2)
            for k in range(su.models - 1, 0, -1):
                fewer = world.models_left(su, k)
                pid = world.place(fewer, act.to, rear, self.occupied(act.unit), on=act.on, arriving=arriving)
                if pid is not None:
                    self.warn(
                        act,
                        f"{why} at the walk's full-strength placements; legal only in games where casualties left "
                        f"{act.unit!r} at most {k} model{'s' if k > 1 else ''} (8.7.4 step 5: removed models are off "
                        "the table; 8.5.3 step 2 sets the models left); the simulation skips it in the other games",
                    )
                    return pid
        if not quiet:
            self.say(act, why)
        return None

    def _why_not(self, act: Activation, rear: tuple[float, float], arriving: Zone | None) -> str:
        """Why ``act``'s unit cannot be set at ``act.to`` (:meth:`why_not`); an arriving unit that fits only with a
        model in the opponent's Zone of Influence: that (8.3.3)."""
        assert act.to is not None
        su = self.as_set(act.unit)
        if arriving is not None and self.world.place(su, act.to, rear, self.occupied(act.unit), on=act.on) is not None:
            return (
                "no formation In Coherency out of the opponent's Zone of Influence (8.3.3: \"If all models cannot be "
                'placed legally while maintaining Coherency, the Unit cannot be deployed in that location")'
            )
        return self.why_not(act, act.to)

    def _too_far(self, act: Activation, problem: str, over: float, targets: tuple[str, ...] = ()) -> bool:
        """A move (or a Charge at ``targets``) ``over`` inches longer than allowed from the walk's placements: an
        error, or a ``warning:`` where the game sets the Leading Models (:attr:`loose`: after a Charge or CLOSE RANKS)
        and they may stand that much nearer in some games. True where it is a warning (legal in some games)."""
        slack = self.loose_by((act.unit, *targets))
        if over > slack + EPS:
            self.say(act, problem)
            return False
        self.warn(
            act,
            f"{problem} from the walk's placement; the game set its Leading Model (a Charge's end, 8.7.7; CLOSE RANKS, "
            f'8.8.1 step 1), up to {slack:g}" from it: legal only in games where it stands near enough',
        )
        return True

    def _supply_ok(self, act: Activation, need: int) -> None:
        """8.3.2 for a Deploy needing ``need`` Supply. At full strength the Available Supply is the Supply Pool less the
        Supply of the player's units on the table; "Units Destroyed in battle (or reduced by casualties) free up
        Available Supply for new arrivals", so a Deploy over it is legal in the games where casualties freed enough
        first. It is an error only where no game can free enough: the Supply of the player's units that stood on the
        table in an Assault or Combat Phase so far (``exposed``: the only ones casualties can have reduced) is too
        small. Otherwise a ``warning:`` with the condition; the simulation reads the Available Supply per game and skips
        the Deploy in the other games (``Simulation.available``, the skip report)."""
        scn, say, warn, pos, exposed, pool = self.scn, self.say, self.warn, self.pos, self.exposed, self.pool
        if pool is None:
            return  # 8.3.1 Final Round: the Supply Pool becomes unlimited
        left = _available(scn, pos, act.player, pool)
        if need <= left:
            return
        free = sum(_need(scn.units[u]) for u in pos if u in exposed and scn.units[u].player == act.player)
        if need > left + free:
            say(
                act,
                f"needs Supply {need}; Available Supply is {left} (Supply Pool "
                f"{pool} - {pool - left} on the table) (8.3.2)",
            )
            return
        warn(
            act,
            f"needs Supply {need}; Available Supply at full strength is {left} (Supply Pool "
            f"{pool} - {pool - left} on the table): it fits only if casualties first free at "
            f"least {need - left} Supply of {act.player}'s units on the "
            'table (8.3.2: "Units Destroyed in battle (or reduced by casualties) free up Available Supply"); the '
            "simulation skips the Deploy in the other games",
        )

    def _speed_now(self, act: Activation) -> tuple[int, int]:
        """``act``'s unit's Speed at this point of the plan (BUFF Speed of the abilities used on it this Round:
        Stimpack, Glial Reconstitution; ON CREEP ones where a card puts it ON CREEP: ``CardCheck.on_creep``), and
        the additions to its Charge Distance (Leap: ``charge_roll`` ``value``). The Speed and Charge Roll sums are
        stat readers of the loadout, every card's alike."""
        creep = any(fam.on_creep(self, act.unit) for fam in CREEP_FAMILIES)
        su = self.scn.units[act.unit]
        effects = self._loadout_now(act.unit, creep).effects()
        return speed_of(su, effects), sum(e.value for e in effects if e.kind == "charge_roll")

    def _loadout_now(self, unit: str, on_creep: bool = False) -> Loadout:
        """``unit``'s loadout with the Active abilities used on it so far this Round (``used``; cards' too: Weapons of
        the Firstborn's BUFF Range) and an enemy's on its weapons (``on_unit``: Optical Flare's DEBUFF Range), as the
        simulation shoots with it (10.2: effects last until the end of the Round)."""
        scn, used, on_unit = self.scn, self.used, self.on_unit
        names = [n for (u, n), k in used.items() if u == unit and k > 0]
        found = [f for f in (find(scn, unit, n) for n in names) if f is not None and f.ability.type == "active"]
        enemy = {n: a for (u, n), a in on_unit.items() if u == unit}
        return loadout_with(scn, unit, [f.ability.name for f in found] + list(enemy), enemy, on_creep=on_creep)

    def _deploy(self, act: Activation, on: bool) -> None:
        """8.5.5 Deploy (8.3.2, 8.3.3)."""
        scn, world, pos, say = self.scn, self.world, self.pos, self.say
        deployed = self.deployed
        su, player = scn.units[act.unit], act.player
        if on:
            say(act, f"{act.unit!r} is already on the table (8.5.5: Deploy brings a unit from Reserves)")
            return
        assert act.to is not None
        self._supply_ok(act, _need(su))
        edge = next((e for fam in FAMILIES if (e := fam.deploy_edge(self, act)) is not None), None)  # Warp In
        edge = edge or world.edges[player]
        deployed.append((act.unit, player))
        reach = su.speed  # 8.5.5: no part of the base ends farther than Speed from the edge
        if not self._level_ok(act):
            return
        via_rear = None
        if act.via is not None:  # Warp Conduit, Omega Network
            via_rear = next((r for fam in FAMILIES if (r := fam.deploy_via(self, act)) is not None), None)
        if any(fam.deploy_start(self, act) for fam in FAMILIES):  # by PLACE: Burrow Ambush, Rapid Reinforcements
            pass
        elif act.via is not None:
            pass  # the distance from the base: ``deploy_via``
        elif act.on is not None:
            self._route_ok(act, None, None, reach)
        elif (d := deploy_length(world, act, edge)) > reach + EPS:
            which = "Entry Edge" if edge == world.edges[player] else "table edge it enters by"
            say(act, deploy_far_text(d, edge, which, su.speed))
        rear = EDGE_REAR[edge] if edge != world.edges[player] else world.rear_of(player)
        rear = via_rear or rear
        zone = world.arrival_zone(player)
        pid = self._place(act, rear, quiet=True, arriving=zone)
        far = next((f for fam in FAMILIES if (f := fam.keep_away(self, act)) is not None), None)
        if pid is not None and far is not None:
            enemies = [u for u in pos if scn.units[u].player != player]
            if any(_within_now(scn, world, pos | {act.unit: pid}, act.unit, f, far) for f in enemies):
                say(act, f'ends Within {far:g}" of an Enemy model (its ability asks for more)')
        if pid is not None:
            for fam in FAMILIES:
                fam.deploy_end(self, act, pid)
        if _in_enemy_zone(world, act, pid):  # its Leading Model: the others are set out of the zone (``_place``)
            say(act, "ends Within the opponent's Zone of Influence (8.3.3)")
        if pid is None:
            say(act, self._why_not(act, rear, zone))
        else:
            pos[act.unit] = pid
            self.formed.discard(act.unit)  # set from its Entry Edge: the walk's formation
