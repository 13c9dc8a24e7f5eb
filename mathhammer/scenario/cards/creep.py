"""Creep (part 11 ON CREEP, 7.3 Tokens): Creep Tumor tokens (``creep_tumor``: Creep Spread, Spawn Creep Tumor), the
units that are a Source of Creep (``creep_source``: Omega Worm), Creep Removal (``creep_removal``: a Creep Card)
and Living Glob of Tissue (``tokens_stay``). ON CREEP is a bit of ``sim.used`` read again before each Charge,
attack, fight and RESPAWN."""

from __future__ import annotations

import math

import numpy as np

from ...board.model import EPS
from ..abilities import card_effect, mark_near
from ..checkview import CardCheck, CheckView, within_now
from ..lookup import CREEP_STATUS, TOKEN_CONTACT, TOKEN_RADIUS, plan_tokens, unit_effects, used_effect
from ..simview import SimView
from ..spec import Activation, Scenario, ScenarioUnit
from ..world import edge_distance as edge_gap
from .registry import Card, register


def _sources(scn: Scenario, units: list) -> list[int]:  # type: ignore[type-arg]
    """The indices in ``units`` of the units that are a Source of Creep (:func:`~..lookup.unit_effects`)."""
    ids = {d for d, _ in unit_effects(scn, "creep_source")}
    return [u for u, su in enumerate(units) if su.id in ids]


def creeping(su: ScenarioUnit) -> bool:
    """Can ``su`` be ON CREEP: "A Friendly or Enemy Ground Zerg Unit"?"""
    card = su.unit.card
    return "Zerg" in card.faction_tags and "Ground" in card.combat_tags and not su.flying


@register
class Creep(Card):
    kinds = ("creep_tumor", "creep_source", "creep_removal", "tokens_stay")
    order = 10

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: Creep Tumor tokens the plan sets (centre, player, the ability's effect) and the activation setting each
        self.tumors, self.tumor_of = plan_tokens(sim.scn, "creep_tumor")
        #: per token and game: on the battlefield
        self.tumor = np.zeros((len(self.tumors), sim.T), dtype=bool)
        #: the units that are a Source of Creep (Omega Worm)
        self.sources = _sources(sim.scn, sim.units)

    @classmethod
    def present(cls, scn: Scenario) -> bool:  # ON CREEP is read only where creep can be
        return bool(plan_tokens(scn, "creep_tumor")[0] or _sources(scn, list(scn.units.values())))

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """The Creep Tumor token the activation's ability sets at ``token_at`` (in the games ``fresh``, its first use
        this Round), where it may go: Within ``within`` of the player's Entry Edge or of a Friendly Creep Tumor on the
        battlefield in that game (Creep Spread: "Line of Sight is not required"), or, with no ``within``, in
        Base-to-Base contact with a live model of the unit (Spawn Creep Tumor). Other games: skip report."""
        k = self.tumor_of.get(act)
        if k is None or fresh.size == 0:
            return
        sim = self.sim
        (x, y), player, e = self.tumors[k]
        if e.within is not None:
            scn = sim.scn
            edge = sim.world.edges[player]
            if edge_gap(edge, (x, y), scn.board.width, scn.board.depth) - TOKEN_RADIUS <= e.within + 1e-9:
                ok = np.ones(fresh.size, dtype=bool)
            else:
                ok = np.zeros(fresh.size, dtype=bool)
                for j, ((xj, yj), pj, _) in enumerate(self.tumors):
                    if j != k and pj == player and math.dist((x, y), (xj, yj)) - 2 * TOKEN_RADIUS <= e.within + 1e-9:
                        ok |= self.tumor[j, fresh]
            why = f'not Within {e.within:g}" of the {edge} Entry Edge or of a Friendly Creep Tumor on the battlefield'
        else:
            ok = np.zeros(fresh.size, dtype=bool)
            for (pid, alive), ts in sim.groups(fresh, [sim.row_pos(u), sim.row_alive(u)]):
                if pid >= 0 and sim.world.point_gap(pid, alive, (x, y), TOKEN_RADIUS) <= TOKEN_CONTACT:
                    ok[np.isin(fresh, ts)] = True
            why = "not in Base-to-Base contact with the unit"
        self.tumor[k, fresh[ok]] = True
        sim.skip(act, int((~ok).sum()), f"Creep Tumor token at ({x:g}, {y:g}) not set: {why}")

    def before_attack(self, units: list[int], trials: np.ndarray) -> None:
        """Set the ON CREEP bit of each Ground Zerg unit of ``units`` in ``trials``: a live model Within 6" of a Creep
        Tumor token on the battlefield in that game (either player's; measured to the token's base edge), or Within
        ``within`` of a live model of a Source of Creep (Omega Worm)."""
        if trials.size == 0:
            return
        sim = self.sim
        tokens = [(self.tumor[k], xy, 6.0) for k, (xy, _, _) in enumerate(self.tumors)]
        sources = [(s, float(e.within or 0)) for s in self.sources for e in sim.effects(s, 0, "creep_source")]
        for v in units:
            if creeping(sim.units[v]):
                mark_near(sim, v, trials, CREEP_STATUS, tokens, sources)

    def after_action(self, u: int, act: Activation, trials: np.ndarray) -> None:
        """Creep Removal (a Creep Card): "If an Enemy Unit ends a Move, Deploy, Run, Charge or Disengage action
        Within 1\\" of a Friendly Creep Tumor token, remove that token" — after unit ``u``'s action, in ``trials``."""
        if not self.tumors or trials.size == 0:
            return
        sim = self.sim
        mine = sim.units[u].player
        for k, (xy, player, _) in enumerate(self.tumors):
            e = card_effect(sim.scn, player, "creep_removal") if player != mine else None
            if e is None or not self.tumor[k, trials].any():
                continue
            for (pid, alive), ts in sim.groups(trials[self.tumor[k, trials]], [sim.row_pos(u), sim.row_alive(u)]):
                if pid >= 0 and sim.world.point_gap(pid, alive, xy, TOKEN_RADIUS) <= float(e.within or 0) + 1e-9:
                    self.tumor[k, ts] = False

    def cleanup(self, live: np.ndarray) -> None:
        """7.3: "Tokens are removed at the end of the Game Round unless stated otherwise": a player's Creep Tumors stay
        with Living Glob of Tissue (``tokens_stay``: STAY IN PLAY)."""
        for k, (_, player, _) in enumerate(self.tumors):
            if card_effect(self.sim.scn, player, "tokens_stay") is None:
                self.tumor[k, live] = False


# ----------------------------------------------------------------------------------------------------------------------
# Creep Tumor tokens: Creep Spread, Excrete Creep, Spawn Creep Tumor; Living Glob of Tissue's STAY IN PLAY (7.3).
class CreepTumorCheck(CardCheck):
    order = 10
    kinds = ("creep_tumor",)

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """7.3: tokens go at the end of the Round, unless STAY IN PLAY (Living Glob of Tissue)."""
        chk.tumors[:] = [t for t in chk.tumors if card_effect(chk.scn, t[1], "tokens_stay") is not None]

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        return used_effect(chk.scn, act, "creep_tumor") is not None

    @staticmethod
    def token(chk: CheckView, act: Activation, xy: tuple[float, float]) -> None:
        """The Creep Tumor token an ability of ``use`` sets (``creep_tumor``) at ``xy``: Within the ability's
        ``within`` of the player's Entry Edge or of a Creep Tumor the player set earlier (Creep Spread), or in
        Base-to-Base contact with the unit (Spawn Creep Tumor: its base edge at most ``TOKEN_CONTACT`` from a
        model's). Kept in ``tumors``."""
        scn, world, say, pos = chk.scn, chk.world, chk.say, chk.pos
        e = used_effect(scn, act, "creep_tumor")
        assert e is not None
        x, y = xy
        if e.within is not None:
            edge = world.edges[act.player]
            near_edge = edge_gap(edge, (x, y), scn.board.width, scn.board.depth) - TOKEN_RADIUS <= e.within + EPS
            near_tumor = any(
                p == act.player and math.dist(c, (x, y)) - 2 * TOKEN_RADIUS <= e.within + EPS for c, p in chk.tumors
            )
            if not (near_edge or near_tumor):
                say(
                    act,
                    f'token_at: ({x:g}, {y:g}) is not Within {e.within:g}" of the {edge} Entry Edge or of a Creep '
                    f"Tumor {act.player} set earlier (its text)",
                )
                return
        elif act.unit in pos:
            gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, (x, y), TOKEN_RADIUS)
            if gap > TOKEN_CONTACT:
                say(
                    act,
                    f'token_at: the token is {gap:.2f}" from {act.unit!r}; Base-to-Base contact is at most '
                    f'{TOKEN_CONTACT}" (its text: "in base-to-base contact with this Unit")',
                )
                return
        chk.tumors.append(((x, y), act.player))

    @staticmethod
    def on_creep(chk: CheckView, unit: str) -> bool:
        """A unit with ON CREEP effects is ON CREEP where a Creep Tumor of the plan (``tumors``) or a Source of Creep
        (``creep_source``) is Within 6\" of it."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        su = scn.units[unit]
        if not creeping(su) or unit not in pos:
            return False
        return any(world.point_gap(pos[unit], su.models, xy, TOKEN_RADIUS) <= 6 + EPS for xy, _ in chk.tumors) or any(
            d in pos and within_now(scn, world, pos, d, unit, float(e.within or 0))
            for d, e in unit_effects(scn, "creep_source")
        )


Creep.plan_check = CreepTumorCheck
