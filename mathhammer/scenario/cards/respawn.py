"""RESPAWN (X) (part 11; ``respawn``): Zergling Reconstitution, "RESPAWN (2) effect, or RESPAWN (3) if the Unit is ON
CREEP" — Destroyed models return when the ability is used."""

from __future__ import annotations

import numpy as np

from ..lookup import used_effects
from ..spec import Activation
from .registry import Card, register


@register
class Respawn(Card):
    kinds = ("respawn",)
    order = 80  # after the other effects of the abilities used (ON CREEP where a tumor was just set)

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """In the games ``fresh``: X the largest ``respawn`` effect in force (read per game, ON CREEP read first); up to
        X of the Destroyed models return, as many as fit without raising the Current Supply Value ("Do not return a
        model if doing so would push the Unit into a higher Supply bracket"), each set in Base-to-Base contact with a
        model of the unit where the board allows (:meth:`World.respawn`). A unit with no model left returns none."""
        sim = self.sim
        if not used_effects(sim.scn, act, "respawn"):
            return
        for hook in sim.cards.before_attack:  # ON CREEP
            hook([u], fresh)
        cols = [sim.row_board(), sim.row_alive(u), sim.row_used(u)]
        short = 0
        for (bid, a, mask), ts in sim.groups(fresh, cols):
            pos = sim.board_pos(bid)
            if pos[u] < 0 or a <= 0:
                continue
            x = max((e.value for e in sim.effects(u, mask, "respawn")), default=0)
            k = min(x, int(sim.full[u]) - a)
            now = sim.supply(u, np.asarray(a))
            while k > 0 and sim.supply(u, np.asarray(a + k)) > now:
                k -= 1
            if k == 0:
                continue
            others = tuple(p for v, p in enumerate(pos) if v != u and p >= 0)
            pid, got = sim.world.respawn(pos[u], a, k, others)
            short += (k - got) * ts.size
            if got:
                sim.set_pos(u, ts, pid)
                sim.alive[u, ts] = a + got
        sim.skip(act, short, "RESPAWN: a model found no free spot in Base-to-Base contact, not returned")
