"""Comsat Station (``edge_block``): "Until the End of the Round, Enemy Units cannot Deploy from that edge" (the
plan's ``edge``); read by a Deploy from another table edge (Warp In, ``deploy_edge``)."""

from __future__ import annotations

import numpy as np

from ..checkview import CardCheck, CheckView
from ..lookup import used_effect
from ..simview import SimView
from ..spec import PHASES, PLAYERS, Activation
from .registry import Card, register


@register
class EdgeBlock(Card):
    kinds = ("edge_block",)
    order = 30

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: (table edge, the player closing it) -> the games where Enemy Units cannot Deploy from it this Round
        self.closed: dict[tuple[str, int], np.ndarray] = {}

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        sim = self.sim
        if act.edge is not None and used_effect(sim.scn, act, "edge_block") is not None:
            key = (act.edge, PLAYERS.index(sim.units[u].player))
            self.closed.setdefault(key, np.zeros(sim.T, dtype=bool))[fresh] = True

    def before_deploy(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray:
        """The games of ``reserve`` where unit ``u`` may still Deploy from ``act.edge`` (others: skip report), where it
        Deploys from another table edge (``deploy_edge``: Warp In)."""
        if not act.edge or used_effect(self.sim.scn, act, "deploy_edge") is None:
            return reserve
        player = PLAYERS.index(self.sim.units[u].player)
        for (edge, closer), games in self.closed.items():
            if edge == act.edge and closer != player and games[reserve].any():
                shut = games[reserve]
                self.sim.skip(act, int(shut.sum()), f"the {edge} edge is closed to Deploys this Round (Comsat Station)")
                reserve = reserve[~shut]
        return reserve

    def cleanup(self, live: np.ndarray) -> None:
        self.closed.clear()  # "Until the End of the Round"


# ----------------------------------------------------------------------------------------------------------------------
# Comsat Station: "Select one table edge that is not a player's Entry Edge. Until the End of the Round, Enemy Units
# cannot Deploy from that edge".
class EdgeBlockCheck(CardCheck):
    order = 20
    kinds = ("edge_block",)

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """(table edge, the player who closes it) this Round, in any activation of the Round (the order of the two
        players' activations is read per game, 8.2.1); the enemy's Deploys by it: ``WarpInCheck.deploy_edge``."""
        scn = chk.scn
        chk.closed = [
            (a.edge, a.player)
            for ph in PHASES
            for p in PLAYERS
            for a in scn.activations(rnd, ph, p)
            if a.edge is not None and a.unit and used_effect(scn, a, "edge_block") is not None
        ]

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """The plan's ``edge`` names the closed edge. An ``edge`` without such an ability:
        :meth:`~..check.cards.CardChecks._stray_fields`."""
        entry = set(chk.world.edges.values())
        allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
        if act.edge is None or act.edge in entry:
            chk.say(
                act,
                f"edge: got {act.edge!r}; allowed: the table edge Comsat Station closes, not a player's Entry Edge: "
                f"{', '.join(allowed)}",
            )
        return False

    @staticmethod
    def reads(chk: CheckView, act: Activation) -> frozenset[str]:
        return frozenset({"edge"}) if used_effect(chk.scn, act, "edge_block") is not None else frozenset()


EdgeBlock.plan_check = EdgeBlockCheck
