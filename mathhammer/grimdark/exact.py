"""Exact distribution of a Grimdark Future attack: a Markov chain over the target's state.

The state is ``(i, w)``: ``i`` models removed (the hero, last in line, counts
as a model) and ``w`` wounds on the model next in line. Everything the
procedure of :mod:`mathhammer.grimdark.compiled` needs is in it: the damage
dealt is ``cum[i] + w`` (wounds the models took), the Defense and
Regeneration of the next hit are model ``i``'s, and Blast's cap is the
``M - i`` models left.

Per group, with ``H_N`` and ``H_S`` the transition matrices of one plain hit
and one six hit (Defense roll, Regeneration, wounds), one die is the matrix
``A_b = P(miss) I + P(plain hit) H_N^b + P(six) H_S^b H_N^(b * extra)``; the
group applies ``A_b^attacks`` to the states whose Blast multiplier is ``b``.

>>> from .model import Attacker, Defender, Weapon, WeaponGroup
>>> robots = Attacker((WeaponGroup(5, Weapon(attacks=1, rules=("AP(1)",))),), quality=4)
>>> t = grimdark_exact(robots, Defender(models=5, defense=4, cover=True))
>>> float(t.wounds @ range(6))   # the seed's worked example: 5 x 1/2 x 1/2
1.25
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..outcome import Tally
from .compiled import (
    CompiledAttack,
    CompiledGroup,
    CompiledTarget,
    blast_multiplier,
    compile_attack,
    faces,
    natural_one_probability,
    take_wounds,
    tally_of,
    unsaved_probability,
)
from .model import Attacker, Defender
from .morale import morale_due, morale_pass_probability

__all__ = [
    "EXACT_MEMORY_MAX",
    "MATMUL_FLOPS_PER_SECOND",
    "VECTOR_FLOPS_PER_SECOND",
    "DieCache",
    "check_exact_cost",
    "exact_compiled",
    "exact_cost",
    "grimdark_exact",
    "groups_seconds",
    "morale_fail_probability",
    "versatile_choice",
]

#: Floating-point operations a second the estimate of an exact run assumes, for ``S x S`` matrix products and for
#: vector-matrix products (memory-bound), measured on the 2-core machine of ``benchmarks/RESULTS.md`` under load
#: (1.4e10-4.1e10 and 2.3e9-3.5e9); 999 x A10 Blast(3) against 400 models of Tough(10) (4,010 states) is estimated
#: at about 510 s and took 275 s (the estimate errs long).
MATMUL_FLOPS_PER_SECOND = 1.5e10
VECTOR_FLOPS_PER_SECOND = 3e9
#: The most bytes the exact engine's state matrices may take (about 8 of (states)^2 doubles at once).
EXACT_MEMORY_MAX = 2 * 1024**3
#: Die matrices by (group without its attacks, Blast multiplier, hero's unit standing), on one target.
DieCache = dict[tuple[CompiledGroup, int, bool], np.ndarray]


def _index(target: CompiledTarget, i: int, w: int) -> int:
    return i * target.marker_size + w


def _hit_matrix(group: CompiledGroup, target: CompiledTarget, ap: int, poison: int) -> np.ndarray:
    """Transition matrix of one hit of this class (Defense roll, Regeneration, wounds)."""
    k = target.marker_size
    size = (target.models + 1) * k
    h = np.zeros((size, size))
    h[target.models * k, target.models * k] = 1.0
    for i in range(target.models):
        p_unsaved = unsaved_probability(int(target.defense[i]), ap, group.cover, poison)
        if target.regeneration[i] and group.regeneration:
            p_unsaved *= (int(target.regeneration[i]) - 1) / 6.0
        for w in range(int(target.tough[i])):
            s = i * k + w
            ni, nw, _ = take_wounds(target.tough, i, w, group.deadly)
            h[s, s] += 1.0 - p_unsaved
            h[s, ni * k + nw] += p_unsaved
    return h


def _shred_hit_matrix(group: CompiledGroup, target: CompiledTarget, ap: int, poison: int) -> np.ndarray:
    """One hit of a Shred weapon: ``H = D_saved + D_other W + D_one W W``.

    ``W`` is one wound (Regeneration's roll, then Deadly's wounds on the model next in line); the
    diagonal ``D`` hold, per state, P(saved), P(unsaved on a 2-5) and P(unsaved natural 1) of the
    Defense roll against the model next in line. A natural 1 deals the extra wound (two ``W``).
    """
    k = target.marker_size
    size = (target.models + 1) * k
    dead = _index(target, target.models, 0)
    wound = np.zeros((size, size))
    wound[dead, dead] = 1.0
    p_saved, p_other, p_one = np.zeros(size), np.zeros(size), np.zeros(size)
    p_saved[dead] = 1.0
    for i in range(target.models):
        p_unsaved = unsaved_probability(int(target.defense[i]), ap, group.cover, poison)
        one = natural_one_probability(int(target.defense[i]), ap, group.cover, poison)
        kept = (int(target.regeneration[i]) - 1) / 6.0 if target.regeneration[i] and group.regeneration else 1.0
        for w in range(int(target.tough[i])):
            s = i * k + w
            ni, nw, _ = take_wounds(target.tough, i, w, group.deadly)
            wound[s, s] += 1.0 - kept
            wound[s, ni * k + nw] += kept
            p_saved[s], p_other[s], p_one[s] = 1.0 - p_unsaved, p_unsaved - one, one
    return np.diag(p_saved) + p_other[:, None] * wound + p_one[:, None] * (wound @ wound)


def _extra_hits(hn: np.ndarray, extra: int, size: int) -> np.ndarray:
    """The ``extra`` plain hits (each multiplied by Blast, ``hn = H_N^b``) that follow a six."""
    if extra == 0:
        return np.eye(size)
    return hn if extra == 1 else np.linalg.matrix_power(hn, extra)


def _die(group: CompiledGroup, target: CompiledTarget, b: int, stands: bool) -> np.ndarray:
    """The matrix of one die of ``group`` on states whose Blast multiplier is ``b`` (``stands``: the joined
    hero's unit still stands)."""
    size = (target.models + 1) * target.marker_size
    hit_matrix = _shred_hit_matrix if group.shred else _hit_matrix
    # Hero: "must use the unit's Defense until all other models have been killed": a group that starts
    # while they stand has every hit blocked at the unit's Defense (the hero's wounds included)
    t = replace(target, defense=target.block_defense) if stands else target
    plain, six = hit_matrix(group, t, group.ap_normal, group.poison), hit_matrix(group, t, group.ap_six, group.poison)
    p_six = 1.0 / 6.0  # a natural 6 always hits
    p_plain = (faces(group.hit_mask) - 1) / 6.0
    p_miss = 1.0 - p_six - p_plain
    hn = np.linalg.matrix_power(plain, b)
    return (
        p_miss * np.eye(size)
        + p_plain * hn
        + p_six * np.linalg.matrix_power(six, b) @ _extra_hits(hn, group.extra, size)
    )


def _group(v: np.ndarray, group: CompiledGroup, target: CompiledTarget, dice: DieCache | None = None) -> np.ndarray:
    """One group applied to a distribution over states ``v``, or to each row of a matrix of them. ``dice``:
    die matrices already built on this ``target`` (a group's die does not depend on its number of attacks)."""
    k = target.marker_size
    out = np.zeros_like(v)
    by_b: dict[tuple[int, bool], list[int]] = {}
    for i in range(target.models + 1):
        stands = target.hero and i < target.models - 1
        by_b.setdefault((blast_multiplier(group, target.models - i), stands), []).append(i)
    for (b, stands), rows in by_b.items():
        part = np.zeros_like(v)
        for i in rows:
            part[..., i * k : (i + 1) * k] = v[..., i * k : (i + 1) * k]
        if not part.any():
            continue
        key = (replace(group, attacks=0, label=""), b, stands)
        die = dice.get(key) if dice is not None else None
        if die is None:
            die = _die(group, target, b, stands)
            if dice is not None:
                dice[key] = die
        size = die.shape[0]
        if group.attacks > 4 * size:
            part = part @ np.linalg.matrix_power(die, group.attacks)
        else:
            for _ in range(group.attacks):
                part = part @ die
        out += part
    return out


def _snipe_group(v: np.ndarray, group: CompiledGroup, target: CompiledTarget) -> np.ndarray:
    """A Takedown/Sniper group: from each ``(i, w)``, model ``i`` alone is the target, "as if it was a unit
    of 1": the group runs on a one-model target (its Tough, own Defense and Regeneration; Blast capped at
    1), whose destroyed state ``(1, 0)`` is ``(i + 1, 0)`` here, so nothing carries over to model ``i + 1``."""
    k = target.marker_size
    out = np.zeros_like(v)
    out[..., target.models * k :] = v[..., target.models * k :]  # the unit destroyed: nothing to snipe
    for i in range(target.models):
        rows = v[..., i * k : (i + 1) * k]
        if not rows.any():
            continue
        tough = int(target.tough[i])
        one = CompiledTarget(
            tough=target.tough[i : i + 1],
            defense=target.own_defense[i : i + 1],
            regeneration=target.own_regeneration[i : i + 1],
            single_tough=0,
        )
        small = np.zeros((*v.shape[:-1], 2 * tough))
        small[..., :tough] = rows[..., :tough]
        small = _group(small, group, one)
        out[..., i * k : i * k + tough] += small[..., :tough]
        out[..., (i + 1) * k] += small[..., tough]  # the model killed: the next model untouched
    return out


def apply_group(
    v: np.ndarray, group: CompiledGroup, target: CompiledTarget, dice: DieCache | None = None
) -> np.ndarray:
    """One compiled group applied to a distribution over the target's states (or to each row of a matrix);
    ``dice``: a cache of die matrices on this ``target``, kept by the caller across groups and calls."""
    return _snipe_group(v, group, target) if group.snipe else _group(v, group, target, dice)


def exact_cost(attack: CompiledAttack) -> tuple[float, float]:
    """An estimate of what :func:`exact_compiled` costs: seconds (at :data:`MATMUL_FLOPS_PER_SECOND` and
    :data:`VECTOR_FLOPS_PER_SECOND`) and bytes.

    The chain has ``S = (models + 1) x marker_size`` states; per group and Blast multiplier ``b``, the hit
    matrices' powers and the six's extra hits are ``S x S`` matrix products (2 S^3 operations each: about
    2 log2(b) + 1 + extra of them), the die is applied ``attacks`` times as a vector-matrix product (2 S^2 each)
    or, past ``4 S`` attacks, by squaring (2 log2(attacks) matrix products); about 8 ``S x S`` matrices live at
    once. A Takedown/Sniper group picking the joined hero runs the rest once per wound the hero may have taken.

    >>> from .model import Attacker, Defender, Weapon, WeaponGroup
    >>> big = Attacker((WeaponGroup(999, Weapon(attacks=10, rules=("Blast(3)",))),), quality=4)
    >>> seconds, size = exact_cost(compile_attack(big, Defender(models=400, defense=4, tough=10)))
    >>> f"{seconds:.0f} s", f"{size / 2**20:.0f} MiB"
    ('514 s', '981 MiB')
    """
    target = attack.target
    seconds = groups_seconds(attack.groups, target)
    if any(g.snipe == 2 for g in attack.groups):
        seconds *= target.marker_size + 1
    states = float((target.models + 1) * target.marker_size)
    return seconds, 8 * 8 * states**2


def groups_seconds(groups: Sequence[CompiledGroup], target: CompiledTarget) -> float:
    """The estimated seconds of :func:`apply_group` for each of ``groups`` on ``target``'s chain, applied to a
    distribution (see :func:`exact_cost`)."""
    states = float((target.models + 1) * target.marker_size)
    matmuls = vector = 0.0
    for group in groups:
        combos = {
            (blast_multiplier(group, target.models - i), bool(target.hero and i < target.models - 1))
            for i in range(target.models + 1)
        }
        for b, _stands in combos:
            power = max(1, b).bit_length() - 1 + bin(max(1, b)).count("1") - 1  # products in a matrix power
            matmuls += 2 * power + 1 + group.extra
            if group.attacks > 4 * states:
                matmuls += 2 * max(1, group.attacks).bit_length()
            else:
                vector += group.attacks
    return matmuls * 2 * states**3 / MATMUL_FLOPS_PER_SECOND + vector * 2 * states**2 / VECTOR_FLOPS_PER_SECOND


def check_exact_cost(attack: CompiledAttack, field: str = "--exact") -> None:
    """Refuse an exact run whose :func:`exact_cost` is past the time budget
    (:func:`~mathhammer.engine.budget.budget_seconds`) or :data:`EXACT_MEMORY_MAX`, with the estimate and what to
    do instead (Monte Carlo)."""
    refuse_past_budget(field, "this attack", *exact_cost(attack))


def refuse_past_budget(field: str, what: str, seconds: float, size: float) -> None:
    """Refuse an exact run (``what``: "this attack", "this melee") estimated at ``seconds`` and ``size`` bytes when
    past the time budget or :data:`EXACT_MEMORY_MAX`, naming ``field``, the estimate and Monte Carlo instead."""
    from ..engine.budget import BudgetError, budget_seconds, duration

    budget = budget_seconds()
    if seconds <= budget and size <= EXACT_MEMORY_MAX:
        return
    raise BudgetError(
        field,
        what,
        "an exact run within the budget; for this one use --trials N or --tolerance E (Monte Carlo)",
        f"needs about {duration(seconds)} here and {size / 2**30:.1f} GiB; the budget is {duration(budget)} and "
        f"{EXACT_MEMORY_MAX / 2**30:.0f} GiB, MATHHAMMER_BUDGET_SECONDS to change the time",
    )


def exact_compiled(attack: CompiledAttack) -> Tally:
    """The exact :class:`~mathhammer.outcome.Tally` of a compiled attack (see :func:`grimdark_exact`)."""
    target = attack.target
    if any(g.snipe == 2 for g in attack.groups):  # Takedown/Sniper picking the joined hero
        from .snipe import branch, combine, hero_alone, hero_groups

        first, rest = hero_groups(attack)
        fate = exact_compiled(CompiledAttack(first, hero_alone(target))).wounds  # P(the hero took h wounds)
        parts = [
            (h, float(p), exact_compiled(CompiledAttack(rest, branch(target, h)))) for h, p in enumerate(fate) if p > 0
        ]
        return combine(target, parts, 0)
    k = target.marker_size
    v = np.zeros((target.models + 1) * k)
    v[0] = 1.0
    for group in attack.groups:
        v = apply_group(v, group, target)
    cum = target.cum
    damage = np.zeros(target.damage_size)
    destroyed = np.zeros(target.models + 1)
    marker = np.zeros(k)
    due = np.zeros(2)
    passed = np.zeros(2)
    shaken = np.zeros(2)
    routed = np.zeros(2)
    for i in range(target.models + 1):
        for w in range(k):
            p = v[_index(target, i, w)]
            if p == 0.0:
                continue
            damage[cum[i] + w] += p
            destroyed[i] += p
            marker[w] += p
            routed[0] += p  # a test from wounds never Routs (GF v3.5.1 core rules, Morale)
            if not morale_due(target, i, w):
                due[0] += p
                passed[0] += p
                shaken[0] += p
                continue
            # the test's die is rolled after the attack: independent of it, given the final state
            q = float(morale_pass_probability(int(target.test_quality[i]), bool(target.test_fearless[i])))
            due[1] += p
            passed[1] += p * q
            passed[0] += p * (1.0 - q)
            shaken[1] += p * (1.0 - q)
            shaken[0] += p * q
    return tally_of(target, 0, damage, destroyed, marker, due, passed, shaken, routed)


def versatile_choice(attacker: Attacker, defender: Defender, warnings: list[str] | None = None) -> Attacker:
    """The attacker with Versatile Attack's effect picked when the unit has the rule and no pick is given:
    the one with more expected wounds against ``defender`` (this engine), AP(+1) on a tie; the choice and
    both figures go to ``warnings``. Any other attacker is returned as it is."""
    from .model import VERSATILE
    from .rules import has

    if attacker.versatile is not None or not has(attacker.rules, "Versatile Attack"):
        return attacker
    means = {}
    for choice in VERSATILE:
        tally = exact_compiled(compile_attack(replace(attacker, versatile=choice), defender))
        means[choice] = float(tally.wounds @ np.arange(tally.wounds.size))
    best = max(VERSATILE, key=lambda c: (means[c], c == "ap"))
    words = {"ap": "AP(+1)", "hit": "+1 to hit"}
    other = next(c for c in VERSATILE if c != best)
    if warnings is not None:
        warnings.append(
            f"Versatile Attack: {words[best]} picked ({means[best]:.4g} expected wounds against {means[other]:.4g} "
            f"with {words[other]}); give versatile to choose"
        )
    return replace(attacker, versatile=best)


def grimdark_exact(attacker: Attacker, defender: Defender) -> Tally:
    """Exact distribution of one Grimdark Future attack (probabilities, ``trials == 0``).

    Histograms (a :class:`~mathhammer.outcome.Tally`):

    - ``wounds[k]``: P(the defender's models took ``k`` wounds in total):
      wounds after Regeneration and Deadly, counted as the models took them,
      so a Deadly(X) wound on a model with fewer than X wounds left counts
      only the wounds it had left, and nothing counts once the unit is
      destroyed. Equals the wounds of the removed models plus ``wounds_on_next``.
    - ``models_destroyed[k]``: P(``k`` models removed), the joined hero
      counted as a model, removed last.
    - ``wounds_on_next[w]``: P(the model next in line carries ``w`` wounds).
    - ``morale_test_due[1]``: P(a morale test is due) (seed: at half the starting
      size or below; a single Tough model at half its wounds or fewer; a
      destroyed unit takes none; none after a melee attack, where the melee result
      decides); ``morale_test_due[0]`` the rest.
    - ``morale_passed[1]``: P(a test is due and passed) at the unit's Quality
      (:func:`~mathhammer.grimdark.morale.morale_pass_probability`, Fearless
      included); ``morale_shaken[1]``: P(a test is due and failed: the unit is
      Shaken); ``morale_routed[1]``: P(the unit Routs), 0 here: a test from
      wounds never Routs, only a lost melee at half strength does (not modelled).
    - ``hero_wounds[k]`` (with a joined hero only): P(the hero took ``k`` wounds).

    Raises:
        InputError: an invalid attacker or defender.
        BudgetError: the run is estimated past the time budget or :data:`EXACT_MEMORY_MAX`
            (:func:`check_exact_cost`).
    """
    attack = compile_attack(versatile_choice(attacker, defender), defender)
    check_exact_cost(attack)  # priced before it runs (refused past the budget, with what to do instead)
    return exact_compiled(attack)


def morale_fail_probability(tally: Tally, quality: int) -> float:
    """P(a morale test is due and fails): a Quality test fails on a roll below Quality.

    A natural 1 always fails and a natural 6 always passes, so it fails with
    probability ``(quality - 1) / 6``.

    >>> import numpy as np
    >>> morale_fail_probability(Tally(morale_test_due=np.array([0.5, 0.5])), 4)
    0.25
    """
    from ..validate import target_number

    q = target_number("quality", quality, "Quality")
    total = float(tally.morale_test_due.sum())
    return float(tally.morale_test_due[1]) / total * (q - 1) / 6.0
