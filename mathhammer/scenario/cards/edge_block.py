"""Comsat Station (``edge_block``): "Until the End of the Round, Enemy Units cannot Deploy from that edge" (the
plan's ``edge``); read by a Deploy from another table edge (Warp In, ``deploy_edge``)."""

from __future__ import annotations

import numpy as np

from ..lookup import used_effect
from ..simview import SimView
from ..spec import PLAYERS, Activation
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
