"""Force Field, Solid-Field Projectors (``force_field``): "Set a Force Field token Within 8\\" in an unoccupied
space. Units of Size 2 or lower cannot move across Force Fields" (Sentry; the effect's ``value`` is the largest Size
held back, ``within`` the reach). The token goes at the Cleanup (7.3)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ..lookup import plan_tokens, token_gaps
from ..simview import SimView
from ..spec import Activation
from .registry import Card, register


@register
class ForceField(Card):
    kinds = ("force_field",)
    order = 50

    def __init__(self, sim: SimView) -> None:
        super().__init__(sim)
        #: the tokens the plan sets (centre, player, effect) in plan order, and the activation setting each
        self.fields, self.field_of = plan_tokens(sim.scn, "force_field")
        #: per token and game: on the battlefield
        self.field = np.zeros((len(self.fields), sim.T), dtype=bool)

    @classmethod
    def present(cls, scn) -> bool:  # type: ignore[no-untyped-def]
        return bool(plan_tokens(scn, "force_field")[0])

    def use(self, u: int, act: Activation, fresh: np.ndarray) -> None:
        """At the plan's ``token_at``, in the games of ``fresh`` where it is Within ``within`` of a live model of the
        unit and no base on the battlefield overlaps it (other games: skip report)."""
        k = self.field_of.get(act)
        if k is None:
            return
        sim = self.sim
        xy, _, e = self.fields[k]
        ok = token_gaps(sim, u, fresh, xy) <= float(e.within or 0) + EPS
        for v in range(sim.U):
            ok &= token_gaps(sim, v, fresh, xy) >= 0  # "in an unoccupied space"
        sim.skip(act, int((~ok).sum()), f'the Force Field is not Within {e.within:g}" in an unoccupied space')
        self.field[k, fresh[ok]] = True

    def charge_walls(self, u: int) -> np.ndarray | None:
        """Per game (length ``sim.T``): the bits of the Force Fields on the battlefield that unit ``u`` cannot move
        across ("Units of Size 2 or lower cannot move across Force Fields"); None where it can cross them all (Size 3
        or more: "Models of Size 3 or more can move over it") or the plan sets none."""
        if not self.fields or len(self.fields) > 60:
            return None
        size = self.sim.units[u].unit.card.size
        limit = max(e.value for _, _, e in self.fields)
        if not isinstance(size, int) or size > limit:
            return None
        bits = np.zeros(self.sim.T, dtype=np.int64)
        for k in range(len(self.fields)):
            bits |= self.field[k].astype(np.int64) << k
        return bits

    def wall_centres(self, bits: int) -> tuple[tuple[float, float], ...]:
        """The centres of the Force Fields whose bits are set in ``bits`` (:meth:`charge_walls`)."""
        return tuple(self.fields[k][0] for k in range(len(self.fields)) if bits >> k & 1)

    def cleanup(self, live: np.ndarray) -> None:
        self.field[:, live] = False  # 8.9.5: Tokens and Markers go
