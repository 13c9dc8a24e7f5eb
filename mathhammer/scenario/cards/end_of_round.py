"""Effects "At the End of the Round" (8.9.4): Psionic Transfer's Shade token (``shade``), Ready for Dust-Off's and
Ventral Sacs' Faction Indicator (``dust_off``), and Rapid Ingress's "Remove this Unit at the End of the Round" (a
``summon`` effect with ``leaves``, on the Summoned Unit)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...board.model import EPS, MM_PER_INCH
from ...starcraft.schema import Ability, Effect
from ..checkview import CardCheck, CheckView, Say, available, in_enemy_zone, need
from ..lookup import TOKEN_CONTACT, TOKEN_RADIUS, find, plan_tokens, token_gaps, used_effect, used_effects
from ..simview import SimView
from ..spec import PLAYERS, Activation, Scenario, ScenarioUnit
from ..world import Coord
from .registry import Card, register
from .summon import summoning


def _leaving(scn: Scenario, units: list) -> list[int]:  # type: ignore[type-arg]
    return [
        v
        for v, su in enumerate(units)
        if su.summoned and any(e.kind == "summon" and e.leaves for e in summoning(scn, su))
    ]


def token_contact_lead(xy: Coord, su: ScenarioUnit, rear: Coord) -> Coord:
    """Where ``su``'s Leading Model is set "in base-to-base contact with this Faction Indicator" (centre ``xy``;
    Ready for Dust-Off): touching it on the side ``rear`` points to (bases :data:`TOKEN_CONTACT` / 2 apart)."""
    gap = TOKEN_RADIUS + su.base_mm / MM_PER_INCH / 2 + TOKEN_CONTACT / 2
    norm = math.hypot(*rear)
    return (xy[0] + gap * rear[0] / norm, xy[1] + gap * rear[1] / norm)


@register
class EndOfRound(Card):
    kinds = ("shade", "dust_off")
    order = 60

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: the tokens the plan sets (centre, player, effect) and the activation setting each
        self.shades, self.shade_of = plan_tokens(sim.scn, "shade")
        self.drops, self.drop_of = plan_tokens(sim.scn, "dust_off")
        #: the tokens set this Round (the activation setting each, the games)
        self.pending: list[tuple[Activation, np.ndarray]] = []
        #: the Summoned Units that leave At the End of the Round (Rapid Ingress)
        self.leaving = _leaving(sim.scn, sim.units)

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return bool(
            plan_tokens(scn, "shade")[0] or plan_tokens(scn, "dust_off")[0] or _leaving(scn, list(scn.units.values()))
        )

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """A token for the End of the Round, at the plan's ``token_at``, in the games ``fresh`` where it may be set:
        Psionic Transfer's Shade ("Set a Shade token Wholly Within 12\\" of any model in this Unit"), Ready for
        Dust-Off's and Ventral Sacs' Faction Indicator ("anywhere on the battlefield more than 10\\" away from any
        Enemy model"). The other games are counted in the skip report; :meth:`end_of_round` resolves the rest."""
        shade = act in self.shade_of
        if not shade and act not in self.drop_of:
            return
        sim = self.sim
        xy, player, e = self.shades[self.shade_of[act]] if shade else self.drops[self.drop_of[act]]
        within = float(e.within or 0)
        if shade:
            ok = token_gaps(sim, u, fresh, xy) + 2 * TOKEN_RADIUS <= within + EPS
            why = f'the Shade token is not Wholly Within {within:g}" of a model of the unit'
        else:
            ok = np.ones(fresh.size, dtype=bool)
            for v in range(sim.U):
                if sim.units[v].player != player:
                    ok &= token_gaps(sim, v, fresh, xy) > within + EPS
            why = f'the Faction Indicator would be Within {within:g}" of an Enemy model: not set (its text)'
        sim.skip(act, int((~ok).sum()), why)
        self.pending.append((act, fresh[ok]))

    def end_of_round(self, live: np.ndarray) -> None:
        """The effects "At the End of the Round" of the tokens set this Round (:meth:`use`) and of Rapid Ingress, in
        the games of ``live`` where each was set. 8.9.4: "The holder of the First Player Marker resolves their first.
        If a player has multiple "End of the Round" effects to resolve, that player chooses the order [...]. Each
        effect is fully resolved before the next begins": per game, every effect of the First Player (``sim.first``)
        before any of the other player's; a player's own in the order the plan chooses (Rapid Ingress's removals
        first, then the tokens in plan order).

        Rapid Ingress: "Remove this Unit at the End of the Round" (removed, not Destroyed: it may be set again).
        Psionic Transfer: "the controlling player may set all models of this Unit in Coherency, treating the Shade
        token as the Leading Model": where the unit is on the table its Leading Model is set at the token's centre,
        the others around it (``sim.move_to``, not a Move: the Burrowed Status stays). Ready for Dust-Off, Ventral
        Sacs: "the controlling player may Deploy one Ground Unit from Reserves in base-to-base contact with this
        Faction Indicator": the unit the plan selects, where it is in Reserves and its Supply fits the Available Supply
        (8.3.2), its Leading Model touching the Indicator on the side of the player's Entry Edge, the others behind
        it. The player always takes the "may" (the plan asked for it)."""
        sim = self.sim
        pending, self.pending = self.pending, []
        if not self.leaving and not pending:
            return
        for first in (0, 1):
            group = live[sim.first[live] == first]
            if group.size == 0:
                continue
            in_group = np.zeros(sim.T, dtype=bool)
            in_group[group] = True
            for player in (PLAYERS[first], PLAYERS[1 - first]):
                for v in self.leaving:
                    if sim.units[v].player == player:
                        sim.to_reserves(v, group[sim.pos[v, group] >= 0])
                for act, games in pending:
                    if act.player == player:
                        self._token(act, games[in_group[games]])

    def _token(self, act: Activation, games: np.ndarray) -> None:
        """The End of the Round of the token ``act`` set (:meth:`end_of_round`), in ``games``."""
        if games.size == 0:
            return
        sim = self.sim
        u = sim.uids.index(act.unit)
        if act in self.shade_of:
            xy = self.shades[self.shade_of[act]][0]
            here = games[(sim.pos[u, games] >= 0) & (sim.alive[u, games] > 0)]
            sim.move_to(u, here, xy, act, moving=False)
            return
        xy, player, e = self.drops[self.drop_of[act]]
        found = next(f for n in act.use if (f := find(sim.scn, act.unit, n)) and e in f.ability.effects)
        picked = next(unit for n, unit in act.select if n.strip().lower() == found.ability.name.lower())
        v = sim.uids.index(picked)
        ready = games[(sim.pos[v, games] < 0) & (sim.alive[v, games] > 0)]
        sim.skip(act, games.size - ready.size, f"{picked!r} is not in Reserves at the End of the Round: no Deploy")
        ready = sim.available(v, act, ready)
        rear = sim.world.rear_of(player)
        got = ready[sim.place(v, ready, token_contact_lead(xy, sim.units[v], rear), rear, act, arriving=True)]
        sim.ref_supply[v, got] += sim.supply(v, sim.alive[v, got])


# ----------------------------------------------------------------------------------------------------------------------
# Tokens for the End of the Round: Psionic Transfer's Shade, Ready for Dust-Off's and Ventral Sacs' Faction Indicator.
class EndTokenCheck(CardCheck):
    order = 30
    kinds = ("shade", "dust_off")

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        return used_effect(chk.scn, act, "shade") is not None or used_effect(chk.scn, act, "dust_off") is not None

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """A token for the End of the Round at ``token_at`` (kept in ``ending``): Psionic Transfer's Shade "Wholly
        Within 12\" of any model in this Unit", Ready for Dust-Off's and Ventral Sacs' Faction Indicator "more than
        10\" away from any Enemy model" (at this point of the plan, full strength)."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        shade, drop = used_effect(scn, act, "shade"), used_effect(scn, act, "dust_off")
        if act.token_at is None or (shade is None and drop is None):
            return False
        xy = act.token_at
        if shade is not None:
            if act.unit not in pos:
                return False  # (named by the other checks)
            gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
            if gap + 2 * TOKEN_RADIUS > float(shade.within or 0) + EPS:
                say(act, f'token_at: the Shade token is not Wholly Within {shade.within:g}" of a model of {act.unit!r}')
                return False
        else:
            assert drop is not None
            for uid, pid in pos.items():
                if scn.units[uid].player != act.player:
                    gap = world.point_gap(pid, scn.units[uid].models, xy, TOKEN_RADIUS)
                    if gap <= float(drop.within or 0) + EPS:
                        say(
                            act,
                            f'token_at: the Faction Indicator is {gap:.1f}" from {uid!r}; more than {drop.within:g}" '
                            "from any Enemy model (its text)",
                        )
                        return False
        chk.ending.append(act)
        return False

    @staticmethod
    def picked(chk: CheckView, act: Activation, a: Ability, picks: Sequence[Effect], unit: str) -> bool:
        """Ready for Dust-Off selects a unit in Reserves, Deployed at the End of the Round: a Ground Unit."""
        if not any(e.kind == "dust_off" for e in picks):
            return False
        su = chk.scn.units[unit]
        if "Ground" not in su.unit.card.combat_tags or su.flying:
            chk.say(act, f"select.{a.name}: {unit!r} is not a Ground Unit (its text: Deploy one Ground Unit)")
        return True

    @staticmethod
    def _leaving_now(chk: CheckView, pos: dict[str, int], player: str) -> list[str]:
        """The units of ``player`` Rapid Ingress removes at the End of the Round: "Remove this Unit at the End of the
        Round"."""
        scn = chk.scn
        return [
            uid
            for uid, su in scn.units.items()
            if uid in pos
            and su.player == player
            and su.summoned
            and any(e.kind == "summon" and e.leaves for e in summoning(scn, su))
        ]

    @staticmethod
    def has_end_of_round(chk: CheckView, pos: dict[str, int], player: str) -> bool:
        return any(a.player == player for a in chk.ending) or bool(EndTokenCheck._leaving_now(chk, pos, player))

    @staticmethod
    def end_of_round(chk: CheckView, say: Say, pos: dict[str, int], player: str) -> None:
        """``player``'s End of the Round effects on the placements ``pos``: Rapid Ingress removes its units; Psionic
        Transfer sets the unit with its Leading Model at the Shade; Ready for Dust-Off and Ventral Sacs Deploy the
        selected unit, in Reserves, touching the Faction Indicator on the side of the player's Entry Edge (Available
        Supply, 8.3.2; not Within the opponent's Zone of Influence, 8.3.3)."""
        scn, world, pool = chk.scn, chk.world, chk.pool

        def occupied(but: str) -> tuple[int, ...]:
            return tuple(p for u, p in pos.items() if u != but)

        for uid in EndTokenCheck._leaving_now(chk, pos, player):
            del pos[uid]
        for act in chk.ending:
            if act.player != player:
                continue
            assert act.token_at is not None
            xy = act.token_at
            if used_effect(scn, act, "shade") is not None:
                if act.unit in pos:
                    su = chk.as_set(act.unit)
                    pid = world.place(su, xy, world.rear_from(pos[act.unit], xy), occupied(act.unit))
                    if pid is None:
                        say(act, f"token_at: at the End of the Round {act.unit!r} finds no room around the Shade token")
                    else:
                        pos[act.unit] = pid
                continue
            name = next(a.name for a, _ in used_effects(scn, act, "dust_off"))
            picked = next((u for n, u in act.select if n.strip().lower() == name.lower()), None)
            if picked is None:
                continue  # (the select check names it)
            su = scn.units[picked]
            if picked in pos:
                say(act, f"select.{name}: {picked!r} is on the table at the End of the Round: it Deploys from Reserves")
                continue
            if pool is not None and need(su) > (left := available(scn, pos, act.player, pool)):
                say(act, f"select.{name}: {picked!r} needs Supply {need(su)} at the End of the Round; Available Supply "
                    f"is {left} (8.3.2)")  # fmt: skip
                continue
            rear = world.rear_of(act.player)
            zone = world.arrival_zone(act.player)  # 8.3.3: the models set out of it (``Movement.place``)
            pid = world.place(su, token_contact_lead(xy, su, rear), rear, occupied(picked), arriving=zone)
            if pid is None:
                say(
                    act,
                    f"select.{name}: {picked!r} finds no room touching the Faction Indicator at the End of the Round",
                )
                continue
            if in_enemy_zone(world, picked, act.player, pid):
                say(act, f"select.{name}: {picked!r} would end Within the opponent's Zone of Influence (8.3.3)")
            pos[picked] = pid


EndOfRound.plan_check = EndTokenCheck
