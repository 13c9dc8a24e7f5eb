"""Warp In (``deploy_edge``): a Deploy from another table edge (the plan's ``edge``), no model Within ``within`` of an
Enemy model; and the opponent's Reactions to a unit entering that way (Photon Overcharge, a Reaction's ``hits``: "That
Unit immediately suffers HITS 3 (1)"). An edge closed this Round (Comsat Station, ``cards/edge_block.py``) is read
before (``before_deploy``)."""

from __future__ import annotations

import numpy as np

from ...starcraft.model import Batch
from ..abilities import far_from_enemies
from ..basics import stream as _stream
from ..lookup import find, used_effect
from ..spec import Activation, Scenario
from ..world import EDGE_REAR
from .registry import Card, register


@register
class WarpIn(Card):
    kinds = ("deploy_edge",)
    order = 30  # after a Deploy through a base or by PLACE

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def deploy(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray | None:
        """Set unit ``u`` from the table edge ``act.edge`` (its rear that edge's way) in ``games``: which were set;
        then those Within ``within`` of an Enemy model go back to Reserves, and the opponent's Reactions hit it."""
        sim = self.sim
        away = used_effect(sim.scn, act, "deploy_edge")
        if away is None or not act.edge:
            return None
        assert act.to is not None
        got = games[sim.place(u, games, act.to, EDGE_REAR[act.edge], act)]
        if got.size:
            got = far_from_enemies(sim, u, act, got, float(away.within or 0))
            self._entered_elsewhere(u, act, got)
        return got

    def _entered_elsewhere(self, u: int, act: Activation, games: np.ndarray) -> None:
        """The opponent's Reactions to a unit entering the battlefield from Reserves other than by its own Entry Edge
        (Photon Overcharge: "That Unit immediately suffers HITS 3 (1)"; a ``hits`` effect of a Reaction), in
        ``games``."""
        sim = self.sim
        for i, rx in enumerate(act.react):
            found = find(sim.scn, rx.unit, rx.use) if rx.player != act.player else None
            if found is None or found.ability.type != "reaction":
                continue
            for e in found.ability.effects:
                if e.kind == "hits" and games.size:
                    batch = Batch.hits(e.value, e.damage, name=found.ability.name)
                    stream = _stream(sim.round, 7, sim.ordinal[act], i)  # its own draws
                    sim.resolve([batch], u, "assault", games, stream, None, False)
