"""Deploy, Move, Run and Disengage checks of the plan walk: levels and routes (8.5.3), Entry Edges and Deploy placements
(8.5.5), Available Supply (8.3.2), extra moves and unit placements, Speed now."""

from __future__ import annotations

import math

from ...board.model import EPS, MM_PER_INCH
from ...starcraft.loadout import Loadout
from ...starcraft.schema import Effect
from ..abilities import (
    TOKEN_CONTACT,
    TOKEN_RADIUS,
    base_entry,
    creeping,
    find,
    loadout_with,
    recall_base,
    unit_abilities,
    used_effect,
    used_effects,
)
from ..spec import Activation
from ..world import EDGE_REAR
from .common import (
    _ALREADY,
    _available,
    _in_enemy_zone,
    _need,
    _State,
    _within_now,
    entry_base_of,
)
from .pathing import around_text, deploy_far_text, deploy_length, lead_size


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

    def _set_unit(self, act: Activation, to: tuple[float, float], level: str | None, field: str) -> bool:
        """Set ``act``'s unit with its Leading Model at ``to`` on ``level``, the others behind it (8.5.3), where the
        plan has it (``pos``); a ``field`` error where it cannot be set there. True where it was set."""
        scn, world, say, pos, occupied, why_not = self.scn, self.world, self.say, self.pos, self.occupied, self.why_not
        su = scn.units[act.unit]
        pid = world.place(su, to, world.rear_from(pos[act.unit], to), occupied(act.unit), on=level)
        if pid is None:
            say(act, f"{field}: " + why_not(act, to))
            return False
        pos[act.unit] = pid
        return True

    def _deploy_edge_ok(self, act: Activation, away: Effect | None) -> str | None:
        """A deploy by another table edge (``edge``, with Warp In, Armed and Ready or Timing Push: "Deploys from any
        table edge that is not a player's Entry Edge"): the edge named and not an Entry Edge, and no other Friendly
        unit of the kind the text names deployed earlier this Round ("cannot use this ability if another Friendly
        Ground Unit has already Deployed this Round"). The edge it enters by, or None (the player's Entry Edge)."""
        scn, world, say, warn, deployed, closed = self.scn, self.world, self.say, self.warn, self.deployed, self.closed
        if away is None:
            return None  # (an edge without such an ability: ``card_families.EdgeBlockCheck``)
        entry = set(world.edges.values())
        if act.edge is None or act.edge in entry:
            allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
            say(
                act,
                f"edge: got {act.edge!r}; allowed: a table edge that is not a player's Entry Edge: "
                f"{', '.join(allowed)}",
            )
            return None
        if any(edge == act.edge and p != act.player for edge, p in closed):
            warn(
                act,
                f"edge: an enemy's Comsat Station closes the {act.edge} edge this Round: in the games where it "
                "resolves first (the order of activations, 8.2.1) the unit stays in Reserves",
            )
        for name in act.use:
            found = find(scn, act.unit, name)
            m = _ALREADY.search(found.ability.text) if found else None
            if m is None:
                continue
            tag = m.group(1).title()
            before = [u for u, p in deployed if p == act.player and tag in scn.units[u].unit.card.combat_tags]
            if before:
                say(
                    act,
                    f"use: {name!r}: another Friendly {tag} Unit ({before[0]}) "
                    "has already Deployed this Round (its text)",
                )
        return act.edge

    def _placer_source(self, act: Activation, placer: Effect) -> tuple[str, str | None]:
        """The name of the ability of ``placer`` (a ``deploy_place`` effect) and the unit it PLACEs from (``select``),
        None for the Entry Edge or a selection the select check names."""
        scn = self.scn
        name = next(a.name for a, e in used_effects(scn, act, "deploy_place") if e is placer)
        picked = next((u for n, u in act.select if n.strip().lower() == name.lower()), None) if placer.select else None
        return name, picked

    def _place_start(self, act: Activation, placer: Effect) -> None:
        """A Deploy by PLACE, before the unit is set: Phase Prism ("PLACE (0) effect from another Friendly Unit. That
        Friendly Unit is removed from the battlefield and returned to Reserves") sets the Leading Model where the
        selected unit's Leading Model stands (``to`` must be that spot), and that unit leaves the table (8.5.5)."""
        scn, world, say, pos = self.scn, self.world, self.say, self.pos
        name, picked = self._placer_source(act, placer)
        found = find(scn, act.unit, name)
        swap = found is not None and any(e.kind == "to_reserves" and e.select for e in found.ability.effects)
        if not swap or picked is None or picked not in pos:
            return  # (the select check names a unit not on the table)
        assert act.to is not None
        lead = world.placements[pos[picked]].centres[0]
        if math.dist(lead, act.to) > 0.05:
            say(
                act,
                f"to: {name!r} (PLACE (0)) sets {act.unit!r} where {picked!r}'s Leading Model stands at this point of "
                f"the plan: to = [{lead[0]:g}, {lead[1]:g}]",
            )
        del pos[picked]  # returned to Reserves: it may Deploy again

    def _place_end(self, act: Activation, placer: Effect, pid: int) -> None:
        """A Deploy by PLACE (X), once set: every model Wholly Within X of the Entry Edge (Burrow Ambush: "PLACE (18)
        effect from the controlling player's Entry Edge") or of the selected Friendly Unit (Rapid Reinforcements)."""
        scn, world, say, pos = self.scn, self.world, self.say, self.pos
        name, picked = self._placer_source(act, placer)
        su = scn.units[act.unit]
        if not placer.select:
            edge = world.edges[su.player]
            if not world.wholly_within_from(pid, su.models, placer.value, edge=edge):
                say(
                    act,
                    f'a model ends more than {placer.value}" from the {edge} Entry Edge ({name!r}: PLACE '
                    f"({placer.value}) "
                    "sets it Wholly Within)",
                )
        elif placer.value and picked is not None and picked in pos:
            src = (pos[picked], scn.units[picked].models)
            if not world.wholly_within_from(pid, su.models, placer.value, src=src):
                say(
                    act,
                    f'a model ends more than {placer.value}" from {picked!r} ({name!r}: PLACE ({placer.value}) sets it '
                    "Wholly Within)",
                )

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

    def _via_ok(self, act: Activation) -> tuple[float, float] | None:
        """A deploy through the base of ``via`` (Warp Conduit: "Once per Round, the controlling player may deploy a
        Ground Unit from Reserves using this Pylon base as the Entry Edge"; Omega Network: "Each Round, Friendly Units
        with a combined Supply cost of 2 or less may be Deployed via this Entry Edge"): that unit on the table with such
        an effect, the unit of the kind it names, within its Round's limit, no part of the Leading Model's base farther
        than Speed from the base (the cards' texts make that base the Entry Edge, so 8.5.5 applies as to an Entry Edge:
        the Leading Model starts outside it, touching it, and moves up to Speed). The direction the other models are
        set in (towards the base), or None."""
        scn, world, say, pos, via_used = self.scn, self.world, self.say, self.pos, self.via_used
        assert act.via is not None and act.to is not None
        su = scn.units[act.unit]
        e = entry_base_of(scn, act.via)
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

    def _contact_recall_ok(self, act: Activation) -> bool:
        """Omega Network's return (``via`` on a ``move``, ``run`` or ``disengage``: "If a Friendly Leading model
        finishes a Move, Disengage, or Run action in base-to-base contact with the Omega Worm, the controlling player
        may remove that Unit from the battlefield and return it to Reserves"): ``via`` has the ability and is on the
        table, and the Leading Model ends in Base-to-Base contact with one of its models (edges at most
        ``TOKEN_CONTACT`` apart). Whether the unit leaves the table."""
        scn, world, say, pos = self.scn, self.world, self.say, self.pos
        assert act.via is not None and act.to is not None
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

    def _speed_now(self, act: Activation) -> tuple[int, int]:
        """``act``'s unit's Speed at this point of the plan (BUFF Speed of the abilities used on it this Round:
        Stimpack, Glial Reconstitution; ON CREEP ones where a Creep Tumor of the plan or a Source of Creep is Within 6\"
        of it), and the additions to its Charge Distance (Leap: ``charge_roll`` ``value``)."""
        scn, world, pos, tumors = self.scn, self.world, self.pos, self.tumors
        su = scn.units[act.unit]
        creep = False
        if creeping(su) and act.unit in pos:
            creep = any(
                world.point_gap(pos[act.unit], su.models, xy, TOKEN_RADIUS) <= 6 + EPS for xy, _ in tumors
            ) or any(
                d in pos and _within_now(scn, world, pos, d, act.unit, float(e.within or 0))
                for d, other in scn.units.items()
                for a in unit_abilities(other)
                for e in a.effects
                if e.kind == "creep_source"
            )
        effects = self._loadout_now(act.unit, creep).effects()
        speed = su.speed + sum(e.value for e in effects if e.kind == "speed" and not e.on_creep)
        return speed, sum(e.value for e in effects if e.kind == "charge_roll")

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
        occupied, why_not, deployed = self.occupied, self.why_not, self.deployed
        su, player = scn.units[act.unit], act.player
        if on:
            say(act, f"{act.unit!r} is already on the table (8.5.5: Deploy brings a unit from Reserves)")
            return
        assert act.to is not None
        self._supply_ok(act, _need(su))
        away = used_effect(scn, act, "deploy_edge")
        placer = used_effect(scn, act, "deploy_place")  # Burrow Ambush, Rapid Reinforcements
        edge = self._deploy_edge_ok(act, away)
        edge = edge or world.edges[player]
        deployed.append((act.unit, player))
        reach = su.speed  # 8.5.5: no part of the base ends farther than Speed from the edge
        if not self._level_ok(act):
            return
        via_rear = self._via_ok(act) if act.via is not None else None
        if placer is not None:
            self._place_start(act, placer)
        elif act.via is not None:
            pass  # the distance from the base: _via_ok
        elif act.on is not None:
            self._route_ok(act, None, None, reach)
        elif (d := deploy_length(world, act, edge)) > reach + EPS:
            which = "Entry Edge" if edge == world.edges[player] else "table edge it enters by"
            say(act, deploy_far_text(d, edge, which, su.speed))
        rear = EDGE_REAR[edge] if edge != world.edges[player] else world.rear_of(player)
        rear = via_rear or rear
        pid = world.place(su, act.to, rear, occupied(act.unit), on=act.on)
        far = away or placer
        if pid is not None and far is not None and far.within is not None:
            enemies = [u for u in pos if scn.units[u].player != player]
            if any(_within_now(scn, world, pos | {act.unit: pid}, act.unit, f, far.within) for f in enemies):
                say(act, f'ends Within {far.within:g}" of an Enemy model (its ability asks for more)')
        if pid is not None and placer is not None:
            self._place_end(act, placer, pid)
        if _in_enemy_zone(world, act, pid):
            say(act, "ends Within the opponent's Zone of Influence (8.3.3)")
        if pid is None:
            say(act, why_not(act, act.to))
        else:
            pos[act.unit] = pid
