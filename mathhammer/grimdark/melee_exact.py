"""Exact distribution of a Grimdark Future melee resolved both ways (:mod:`mathhammer.grimdark.melee`).

The state of each side is the ``(i, w)`` of :mod:`mathhammer.grimdark.exact`. The target's Counter
strikes give a distribution over the charger's states; the charge, which depends on the charger's
models left only, gives per charger state a distribution over the target's states (one chain per
distinct number of models left); the strikes back, which depend on the target's models left only,
are a transition matrix over the charger's states per distinct target state. The joint distribution
of both final states decides the melee result and the loser's morale test.

>>> from .model import Defender, Weapon, WeaponGroup
>>> from .melee import Fighter, Melee
>>> blades = (WeaponGroup(1, Weapon("Blade", attacks=1, melee=True)),)
>>> t = melee_exact(Melee(Fighter(blades, 4, Defender(1, defense=6)), Fighter(blades, 4, Defender(1, defense=6))))
>>> round(float(t.melee_won[1]), 6)   # hit on 4+ (1/2), not blocked on 6+ (5/6): the target is destroyed
0.416667
"""

from __future__ import annotations

import numpy as np

from ..outcome import Tally
from .compiled import CompiledGroup, CompiledTarget, tally_of
from .exact import apply_group
from .melee import CompiledSide, Melee, back_strikes, charge_strikes, compile_side, counter_strikes, fear_of, signature
from .morale import morale_due, morale_pass_probability

__all__ = ["melee_exact", "outcome_of"]

WON, DRAWN, LOST = 0, 1, 2


def _apply(v: np.ndarray, groups: tuple[CompiledGroup, ...], target: CompiledTarget) -> np.ndarray:
    for g in groups:
        v = apply_group(v, g, target)
    return v


def _start(target: CompiledTarget) -> np.ndarray:
    v = np.zeros((target.models + 1) * target.marker_size)
    v[0] = 1.0
    return v


def outcome_of(c: CompiledSide, t: CompiledSide, ic: int, wc: int, it: int, wt: int) -> int:
    """The melee result for the charger (WON, DRAWN or LOST) when both sides end in these states."""
    if it >= t.target.models:
        return WON  # "units that are destroyed in melee always count as having lost"
    if ic >= c.target.models:
        return LOST
    by_charger = int(t.target.cum[it]) + wt + fear_of(c, ic)
    by_target = int(c.target.cum[ic]) + wc + fear_of(t, it)
    return WON if by_charger > by_target else LOST if by_charger < by_target else DRAWN


def _test(target: CompiledTarget, i: int, w: int) -> tuple[float, bool]:
    """P(the loser's test is passed) and whether a failed test Routs (at half strength or less)."""
    q = float(morale_pass_probability(int(target.test_quality[i]), bool(target.test_fearless[i])))
    return q, morale_due(target, i, w)


def joint(melee: Melee) -> tuple[np.ndarray, CompiledSide, CompiledSide]:
    """P(charger state, target state) at the end of the melee, and both compiled sides."""
    c, t = compile_side(melee.charger), compile_side(melee.target)
    tc, tt = c.target, t.target
    kc = tc.marker_size
    kt = tt.marker_size
    vc = _apply(_start(tc), counter_strikes(melee), tc)
    charge: dict[tuple[int, int], np.ndarray] = {}
    both = np.zeros((vc.size, (tt.models + 1) * kt))
    for s in np.flatnonzero(vc):
        sig = signature(c, int(s) // kc)
        if sig not in charge:
            groups = charge_strikes(melee, sig)
            charge[sig] = _apply(_start(tt), groups, tt)
        both[s] = vc[s] * charge[sig]
    back: dict[tuple[int, int], np.ndarray] = {}
    out = np.zeros_like(both)
    for s in np.flatnonzero(both.any(axis=0)):
        sig = signature(t, int(s) // kt)
        if sig not in back:
            back[sig] = _apply(np.eye(vc.size), back_strikes(melee, sig), tc)
        out[:, s] = both[:, s] @ back[sig]
    return out, c, t


def melee_exact(melee: Melee) -> Tally:
    """The exact :class:`~mathhammer.outcome.Tally` of a melee.

    The target's histograms are those of an attack (``wounds``: wounds the charger caused, counted
    as the target's models took them; ``models_destroyed``; ``wounds_on_next``; ``hero_wounds``);
    ``morale_test_due[1]`` is P(the target lost the melee and tests), ``morale_passed``,
    ``morale_shaken`` and ``morale_routed`` its test's outcomes. Then, for the charger:
    ``melee_won``, ``melee_drawn``, ``melee_lost`` (flags), ``attacker_wounds`` (wounds the target
    caused, Counter's included), ``attacker_models_destroyed``, ``attacker_test_due``,
    ``attacker_shaken`` and ``attacker_routed``.
    """
    p, c, t = joint(melee)
    return tally_from(p, c, t, 0)


def tally_from(p: np.ndarray, c: CompiledSide, t: CompiledSide, trials: int) -> Tally:
    """The Tally of a joint distribution (or joint counts, with ``trials``) of both final states."""
    tc, tt = c.target, t.target
    kc, kt = tc.marker_size, tt.marker_size
    h = {
        "wounds": np.zeros(tt.damage_size),
        "models_destroyed": np.zeros(tt.models + 1),
        "wounds_on_next": np.zeros(kt),
        "attacker_wounds": np.zeros(tc.damage_size),
        "attacker_models_destroyed": np.zeros(tc.models + 1),
    }
    flags = {
        name: np.zeros(2)
        for name in (
            "morale_test_due", "morale_passed", "morale_shaken", "morale_routed", "melee_won", "melee_drawn",
            "melee_lost", "attacker_test_due", "attacker_shaken", "attacker_routed",
        )
    }  # fmt: skip
    for sc, st in zip(*np.nonzero(p), strict=True):
        q = float(p[sc, st])
        ic, wc = divmod(int(sc), kc)
        it, wt = divmod(int(st), kt)
        h["wounds"][int(tt.cum[it]) + wt] += q
        h["models_destroyed"][it] += q
        h["wounds_on_next"][wt] += q
        h["attacker_wounds"][int(tc.cum[ic]) + wc] += q
        h["attacker_models_destroyed"][ic] += q
        result = outcome_of(c, t, ic, wc, it, wt)
        share = {"melee_won": result == WON, "melee_drawn": result == DRAWN, "melee_lost": result == LOST}
        tests = {"morale": (0.0, False, 0.0), "attacker": (0.0, False, 0.0)}
        if result == WON and it < tt.models:
            ok, half = _test(tt, it, wt)
            tests["morale"] = (q, half, ok)
        elif result == LOST and ic < tc.models:
            ok, half = _test(tc, ic, wc)
            tests["attacker"] = (q, half, ok)
        for name, yes in share.items():
            flags[name][int(yes)] += q
        for side, (due, half, ok) in tests.items():
            failed = due * (1.0 - ok)
            test = "morale_test_due" if side == "morale" else "attacker_test_due"
            flags[test][1] += due
            flags[test][0] += q - due
            shaken = failed if not half else 0.0
            routed = failed if half else 0.0
            names = ("morale_shaken", "morale_routed") if side == "morale" else ("attacker_shaken", "attacker_routed")
            flags[names[0]][1] += shaken
            flags[names[0]][0] += q - shaken
            flags[names[1]][1] += routed
            flags[names[1]][0] += q - routed
            if side == "morale":
                flags["morale_passed"][1] += due * ok
                flags["morale_passed"][0] += q - due * ok
    base = tally_of(
        tt, trials, h["wounds"], h["models_destroyed"], h["wounds_on_next"], flags["morale_test_due"],
        flags["morale_passed"], flags["morale_shaken"], flags["morale_routed"],
    )  # fmt: skip
    extra = {k: v for k, v in flags.items() if not k.startswith("morale_")}
    return base.with_hists(
        attacker_wounds=h["attacker_wounds"], attacker_models_destroyed=h["attacker_models_destroyed"], **extra
    )
