"""Force Field, Solid-Field Projectors (``force_field``): "Set a Force Field token Within 8\\" in an unoccupied
space. Units of Size 2 or lower cannot move across Force Fields" (Sentry; the effect's ``value`` is the largest Size
held back, ``within`` the reach). The token goes at the Cleanup (7.3)."""

from __future__ import annotations

import numpy as np

from ...board.model import EPS
from ..checkview import CardCheck, CheckView
from ..lookup import TOKEN_RADIUS, plan_tokens, token_gaps, used_effect
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


# ----------------------------------------------------------------------------------------------------------------------
# Force Field, Solid-Field Projectors.
class ForceFieldCheck(CardCheck):
    order = 40
    kinds = ("force_field",)

    @staticmethod
    def round_start(chk: CheckView, rnd: int) -> None:
        """No Force Field set yet this Round (they last until the End of the Round)."""
        chk.fields_now = []

    @staticmethod
    def sets_token(chk: CheckView, act: Activation) -> bool:
        return used_effect(chk.scn, act, "force_field") is not None

    @staticmethod
    def on_use(chk: CheckView, act: Activation) -> bool:
        """ "Set a Force Field token Within 8\" in an unoccupied space": ``token_at`` Within ``within`` of the unit and
        overlapping no base at this point of the plan (full strength). Kept in ``fields_now`` for the Round's Charges
        (with the Size of the units it stops)."""
        scn, world, pos = chk.scn, chk.world, chk.pos
        e = used_effect(scn, act, "force_field")
        if e is None or act.token_at is None or act.unit not in pos:
            return False
        xy = act.token_at
        gap = world.point_gap(pos[act.unit], scn.units[act.unit].models, xy, TOKEN_RADIUS)
        if gap > float(e.within or 0) + EPS:
            chk.say(act, f'token_at: the Force Field is {gap:.1f}" from {act.unit!r}; Within {e.within:g}" (its text)')
            return False
        on = [u for u, p in pos.items() if world.point_gap(p, scn.units[u].models, xy, TOKEN_RADIUS) < 0]
        if on:
            chk.say(
                act, f"token_at: the Force Field would overlap {on[0]!r}: it is set in an unoccupied space (its text)"
            )
            return False
        chk.fields_now.append((xy, e.value))
        return False

    @staticmethod
    def charge_walls(chk: CheckView, act: Activation) -> tuple[tuple[float, float], ...]:
        """The Force Fields set this Round that stop ``act``'s unit (a Size up to the one each stops)."""
        size = chk.scn.units[act.unit].unit.card.size
        return tuple(c for c, top in chk.fields_now if isinstance(size, int) and size <= top)


ForceField.plan_check = ForceFieldCheck
