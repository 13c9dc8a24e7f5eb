"""Exact distribution of a Grimdark Future melee resolved both ways (:mod:`mathhammer.grimdark.melee`).

The state of each side is the ``(i, w)`` of :mod:`mathhammer.grimdark.exact`. The target's Counter
strikes give a distribution over the charger's states; the charge, which depends on the charger's
models left only, gives per charger state a distribution over the target's states (one chain per
distinct number of models left); the strikes back, which depend on the target's models left only,
are applied to the charger's distribution in each target state (the states with the same models left at
once, a row each). The joint distribution
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
from .exact import DieCache, apply_group
from .melee import CompiledSide, Melee, back_strikes, charge_strikes, compile_side, counter_strikes, fear_of, signature
from .morale import morale_due, morale_pass_probability

__all__ = ["melee_exact", "outcome_of"]

WON, DRAWN, LOST = 0, 1, 2


def _apply(
    v: np.ndarray, groups: tuple[CompiledGroup, ...], target: CompiledTarget, dice: DieCache | None = None
) -> np.ndarray:
    for g in groups:
        v = apply_group(v, g, target, dice)
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
    dice_c: DieCache = {}  # the die matrices of each side's chain, shared by its strikes of every state
    dice_t: DieCache = {}
    vc = _apply(_start(tc), counter_strikes(melee), tc, dice_c)
    charge: dict[tuple[int, int], np.ndarray] = {}
    both = np.zeros((vc.size, (tt.models + 1) * kt))
    for s in np.flatnonzero(vc):
        sig = signature(c, int(s) // kc)
        if sig not in charge:
            groups = charge_strikes(melee, sig)
            charge[sig] = _apply(_start(tt), groups, tt, dice_t)
        both[s] = vc[s] * charge[sig]
    # the strikes back of the target's states with the same models left, applied at once to the charger's
    # distributions in those states (a row each): a vector-matrix product a die and state, no S x S matrix
    by_sig: dict[tuple[int, int], list[int]] = {}
    for s in np.flatnonzero(both.any(axis=0)):
        by_sig.setdefault(signature(t, int(s) // kt), []).append(int(s))
    out = np.zeros_like(both)
    for sig, states in by_sig.items():
        out[:, states] = _apply(both[:, states].T, back_strikes(melee, sig), tc, dice_c).T
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

    Raises:
        BudgetError: the run is estimated past the time budget or the exact engine's memory
            (:func:`~mathhammer.grimdark.melee_cost.check_melee_cost`).
    """
    from .melee_cost import check_melee_cost

    check_melee_cost(melee)  # priced before it runs (refused past the budget, with what to do instead)
    p, c, t = joint(melee)
    return tally_from(p, c, t, 0)


def _total(x: np.ndarray) -> float:
    """The sum of ``x`` added up in order (as a loop over it would: no pairwise summation)."""
    return float(np.bincount(np.zeros(x.size, dtype=np.intp), weights=x, minlength=1)[0])


def _side_tables(side: CompiledSide) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per state of ``side`` (``i * marker_size + w``): Fear counted (:func:`fear_of`), P(the loser's test is
    passed) and whether a failed one Routs (:func:`_test`); the destroyed states' tests are never read."""
    target = side.target
    k = target.marker_size
    fear = np.array([fear_of(side, i) for i in range(target.models + 1)], dtype=np.int64)
    passed = np.zeros((target.models + 1) * k)
    half = np.zeros((target.models + 1) * k, dtype=bool)
    for i in range(target.models):
        for w in range(k):
            passed[i * k + w], half[i * k + w] = _test(target, i, w)
    return fear, passed, half


def tally_from(p: np.ndarray, c: CompiledSide, t: CompiledSide, trials: int) -> Tally:
    """The Tally of a joint distribution (or joint counts, with ``trials``) of both final states.

    Every figure adds up the nonzero entries of ``p`` in row order (as :func:`outcome_of` and
    :func:`_test` read them, a state pair at a time), vectorised."""
    tc, tt = c.target, t.target
    kc, kt = tc.marker_size, tt.marker_size
    cum_c, cum_t = tc.cum, tt.cum
    sc, st = np.nonzero(p)
    q = p[sc, st]
    ic, wc = np.divmod(sc, kc)
    it, wt = np.divmod(st, kt)

    def hist(index: np.ndarray, size: int, weights: np.ndarray = q) -> np.ndarray:
        return np.bincount(index, weights=weights, minlength=size)[:size].astype(np.float64)

    fear_c, pass_c, half_c = _side_tables(c)
    fear_t, pass_t, half_t = _side_tables(t)
    by_charger = cum_t[it] + wt + fear_c[ic]
    by_target = cum_c[ic] + wc + fear_t[it]
    result = np.where(by_charger > by_target, WON, np.where(by_charger < by_target, LOST, DRAWN))
    result = np.where(ic >= tc.models, LOST, result)
    result = np.where(it >= tt.models, WON, result)  # "units that are destroyed in melee always count as having lost"
    flags = {
        "melee_won": hist((result == WON).astype(np.intp), 2),
        "melee_drawn": hist((result == DRAWN).astype(np.intp), 2),
        "melee_lost": hist((result == LOST).astype(np.intp), 2),
    }
    sides = (
        ("morale", (result == WON) & (it < tt.models), pass_t[st], half_t[st]),
        ("attacker", (result == LOST) & (ic < tc.models), pass_c[sc], half_c[sc]),
    )
    for side, tests, ok, half in sides:
        due = np.where(tests, q, 0.0)
        ok = np.where(tests, ok, 0.0)
        failed = due * (1.0 - ok)
        shaken = np.where(half, 0.0, failed)
        routed = np.where(half, failed, 0.0)
        test = "morale_test_due" if side == "morale" else "attacker_test_due"
        flags[test] = np.array([_total(q - due), _total(due)])
        flags[f"{side}_shaken"] = np.array([_total(q - shaken), _total(shaken)])
        flags[f"{side}_routed"] = np.array([_total(q - routed), _total(routed)])
        if side == "morale":
            flags["morale_passed"] = np.array([_total(q - due * ok), _total(due * ok)])
    base = tally_of(
        tt, trials, hist(cum_t[it] + wt, tt.damage_size), hist(it, tt.models + 1), hist(wt, kt),
        flags["morale_test_due"], flags["morale_passed"], flags["morale_shaken"], flags["morale_routed"],
    )  # fmt: skip
    extra = {k: v for k, v in flags.items() if not k.startswith("morale_")}
    return base.with_hists(
        attacker_wounds=hist(cum_c[ic] + wc, tc.damage_size),
        attacker_models_destroyed=hist(ic, tc.models + 1),
        **extra,
    )
