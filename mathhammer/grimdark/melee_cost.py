"""What an exact melee (:func:`~mathhammer.grimdark.melee_exact.melee_exact`) costs, estimated before it runs.

From table sizes only (no chain is run): each side's chain has ``S = (models + 1) x marker_size`` states. The
exact melee applies

- the target's Counter strikes to the charger's chain (one distribution);
- the charge to the target's chain, once per charger state the Counter strikes can reach (one distribution
  each; without Counter, only the charger at full strength);
- the strikes back to the charger's chain, once per target state the charge can reach, to the charger's
  distributions in the target's states with those models left (``rows``: the states of that model);
- then the joint table of ``S_charger x S_target`` final states is read
  (:func:`~mathhammer.grimdark.melee_exact.tally_from`).

A group's die matrix is built once per chain (:data:`~mathhammer.grimdark.exact.DieCache`): its matrix powers
are ``S x S`` products (:data:`~mathhammer.grimdark.exact.MATMUL_FLOPS_PER_SECOND`); each of its dice is a
product of ``rows x S`` by ``S x S`` (``2 rows S^2`` operations at
:data:`ROWS_FLOPS_PER_SECOND`, at least :data:`PRODUCT_SECONDS` each), or past
``4 S`` dice the die's power by squaring. States are read where strikes of the same models left share them; past
:data:`SAMPLED_SIGNATURES` distinct numbers of models left, the strikes of that many of them, evenly spread,
stand for the others.

>>> from .model import Defender, Weapon, WeaponGroup
>>> from .melee import Fighter, Melee
>>> claws = (WeaponGroup(100, Weapon("Claws", 4, melee=True, rules=("AP(1)",))),)
>>> m = Melee(Fighter(claws, 4, Defender(100, tough=3)), Fighter(claws, 4, Defender(100, tough=3)))
>>> seconds, size = melee_cost(m)
>>> 0.2 < seconds < 5, size < 2**30  # about 0.9 s on an idle 2-core machine
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .compiled import CompiledGroup, CompiledTarget, blast_multiplier
from .exact import MATMUL_FLOPS_PER_SECOND, refuse_past_budget
from .melee import CompiledSide, Melee, back_strikes, charge_strikes, compile_side, counter_strikes, signature

__all__ = [
    "DIE_SECONDS",
    "JOINT_BYTES_PER_ENTRY",
    "JOINT_SECONDS_PER_ENTRY",
    "PRODUCT_SECONDS",
    "ROWS_FLOPS_PER_SECOND",
    "SAMPLED_SIGNATURES",
    "SIGNATURE_SECONDS",
    "check_melee_cost",
    "melee_cost",
]

#: Seconds of one die's product however small (numpy's call and the loop around it). The five figures below are
#: an idle 2-core machine's (benchmarks/RESULTS.md, "The exact melee's price on an idle machine").
PRODUCT_SECONDS = 4.2e-7
#: Operations a second of a die's product on a few distributions (``rows x S`` by ``S x S``).
ROWS_FLOPS_PER_SECOND = 1.44e10
#: Seconds a die's matrix takes to build at least.
DIE_SECONDS = 1.7e-3
#: Seconds of one number of models left's strikes, compiled, and their states gathered.
SIGNATURE_SECONDS = 2.5e-4
#: Seconds and bytes of one entry of the joint table (its read into the Tally, vectorised, included).
JOINT_SECONDS_PER_ENTRY = 1.7e-8
JOINT_BYTES_PER_ENTRY = 8 * 20
#: Distinct numbers of models left whose strikes are compiled for the estimate (the rest interpolated).
SAMPLED_SIGNATURES = 24


def _states(target: CompiledTarget) -> int:
    return (target.models + 1) * target.marker_size


def _die_seconds(group: CompiledGroup, size: int, b: int) -> float:
    """Building a die's matrix: the hit matrices (a Python loop over the states) and the matrix powers."""
    power = max(1, b).bit_length() - 1 + bin(max(1, b)).count("1") - 1
    matmuls = 2 * power + 1 + group.extra
    return DIE_SECONDS + 4 * size * 2e-6 + matmuls * 2.0 * size**3 / MATMUL_FLOPS_PER_SECOND


def _dice_seconds(attacks: int, size: int, rows: int) -> float:
    """``attacks`` dice applied to ``rows`` distributions over ``size`` states."""
    if attacks > 4 * size:  # by squaring (exact.py: the die's power)
        squares = 2 * max(1, attacks).bit_length() * 2.0 * size**3 / MATMUL_FLOPS_PER_SECOND
        return squares + 2.0 * rows * size**2 / ROWS_FLOPS_PER_SECOND
    return attacks * (PRODUCT_SECONDS + 2.0 * rows * size**2 / ROWS_FLOPS_PER_SECOND)


def groups_cost(
    groups: Sequence[CompiledGroup], target: CompiledTarget, rows: int, built: set[tuple[object, ...]]
) -> float:
    """Seconds of ``groups`` applied to ``rows`` distributions over ``target``'s states; ``built``: the dice
    already built on this chain (updated)."""
    size = _states(target)
    seconds = 0.0
    for g in groups:
        if g.snipe:  # a one-model chain per model of the target (a handful of states each)
            one = _die_seconds(g, 2 * target.marker_size, 1) - DIE_SECONDS  # tiny: no stall
            seconds += target.models * (one + g.attacks * PRODUCT_SECONDS)
            continue
        combos = {
            (blast_multiplier(g, target.models - i), bool(target.hero and i < target.models - 1))
            for i in range(target.models + 1)
        }
        for b, stands in combos:
            key = (g.hit_mask, g.extra, g.blast, g.ap_normal, g.ap_six, g.poison, g.deadly, g.shred, b, stands)
            if key not in built:
                built.add(key)
                seconds += _die_seconds(g, size, b)
            seconds += _dice_seconds(g.attacks, size, rows)
    return seconds


def _max_wounds(groups: Iterable[CompiledGroup]) -> int:
    """The most wounds ``groups`` can cause: each die's hits (Blast, extra hits on a six) at Deadly's and
    Shred's wounds."""
    return sum(g.attacks * max(1, g.blast) * (1 + g.extra) * (max(1, g.deadly) + g.shred) for g in groups)


def _reachable(side: CompiledSide, wounds: int) -> list[int]:
    """The models removed (``i``) ``wounds`` wounds at most can reach on ``side``."""
    cum = side.target.cum
    return [i for i in range(side.target.models + 1) if cum[i] <= wounds]


def _by_signature(
    side: CompiledSide, removed: Sequence[int], rows_of: dict[int, int]
) -> list[tuple[tuple[int, int], int, int]]:
    """(signature, rows, how many signatures it stands for) of the states ``removed``, at most
    :data:`SAMPLED_SIGNATURES` of them (evenly spread, each standing for its neighbours)."""
    rows: dict[tuple[int, int], int] = {}
    for i in removed:
        sig = signature(side, i)
        rows[sig] = rows.get(sig, 0) + rows_of.get(i, 1)
    sigs = list(rows)
    if len(sigs) <= SAMPLED_SIGNATURES:
        return [(s, rows[s], 1) for s in sigs]
    picks = np.unique(np.linspace(0, len(sigs) - 1, SAMPLED_SIGNATURES).round().astype(int))
    bounds = np.concatenate(([0], (picks[1:] + picks[:-1] + 1) // 2, [len(sigs)]))
    return [(sigs[p], rows[sigs[p]], int(bounds[k + 1] - bounds[k])) for k, p in enumerate(picks)]


def melee_cost(melee: Melee) -> tuple[float, float]:
    """An estimate of what :func:`~mathhammer.grimdark.melee_exact.melee_exact` costs: seconds and bytes
    (see the module docstring)."""
    c, t = compile_side(melee.charger), compile_side(melee.target)
    tc, tt = c.target, t.target
    built_c: set[tuple[object, ...]] = set()
    built_t: set[tuple[object, ...]] = set()
    counter = counter_strikes(melee)
    seconds = groups_cost(counter, tc, 1, built_c)
    charger_at = _reachable(c, _max_wounds(counter)) if counter else [0]
    most = 0
    for sig, _rows, weight in _by_signature(c, charger_at, {}):
        groups = charge_strikes(melee, sig)
        most = max(most, _max_wounds(groups))
        seconds += weight * (SIGNATURE_SECONDS + groups_cost(groups, tt, 1, built_t))
    target_at = _reachable(t, most)
    rows_of = {i: int(tt.tough[i]) if i < tt.models else 1 for i in target_at}
    for sig, rows, weight in _by_signature(t, target_at, rows_of):
        seconds += weight * (SIGNATURE_SECONDS + groups_cost(back_strikes(melee, sig), tc, rows, built_c))
    entries = float(_states(tc)) * _states(tt)
    seconds += entries * JOINT_SECONDS_PER_ENTRY
    size = max(entries * JOINT_BYTES_PER_ENTRY, 8 * 8 * float(max(_states(tc), _states(tt))) ** 2)
    return seconds, size


def check_melee_cost(melee: Melee, field: str = "--exact") -> None:
    """Refuse an exact melee whose :func:`melee_cost` is past the time budget
    (:func:`~mathhammer.engine.budget.budget_seconds`) or :data:`~mathhammer.grimdark.exact.EXACT_MEMORY_MAX`,
    with the estimate and what to do instead (Monte Carlo), as :func:`~mathhammer.grimdark.exact.check_exact_cost`
    refuses an attack."""
    refuse_past_budget(field, "this melee", *melee_cost(melee))
