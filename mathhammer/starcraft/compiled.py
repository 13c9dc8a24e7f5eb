"""Compile StarCraft TMG Batches and targets into plain numbers for the engines.

This module is the contract between the rules and the two engines (exact and
Monte Carlo). After compiling, a Batch is resolved by this procedure, which
both engines implement and ``tests/naive.py`` implements die by die:

1. **Attack Pool** (8.7.4 step 1). For each group ``g``, roll ``n_dice[g]``
   d6 against ``hit_target[g]`` (already modified and clamped to 2..6).
   ``hits`` = successes. **PRECISION (X)**: ``hits += min(precision,
   failures)`` (part 11). Then ``hits += auto_hits`` (HITS X (Y): dice set
   straight into the Armour Pool). The Armour Pool holds ``A = hits`` dice.
2. **Resolve Surge** (8.7.4 step 2). ``S`` is one draw from ``surge_pmf``
   (all its mass at 0 when the weapon has no S Dice or the target has none of
   its Surge Types). Dice moved = ``min(S + critical, A)`` (Surge moves at
   most the pool, CRITICAL HIT moves up to X of what remains), then
   **DODGE (X)** reduces the combined number moved by ``dodge`` (minimum 0);
   the rest stay in the Armour Pool: ``moved = max(0, min(S + critical, A) -
   dodge)``, ``A -= moved``.
3. **Armour Rolls** (step 3). Roll ``A`` d6 against ``armour_target``;
   failures go to the Damage Pool, but **TOUGH (X)** turns up to ``tough``
   failures into successes: ``D = moved + max(0, failures - tough)``.
4. **Evade Rolls** (step 4), only when ``evade`` is true: roll ``D`` d6
   against ``evade_target`` (ANTI-EVADE and BUFF/DEBUFF folded in); each
   success removes a die (FAQ v1.0: Evade works against Surge dice too).
5. **Damage** (step 5). ``damage_dealt = D * damage`` (PIERCE folded in).
   Casualties follow :func:`apply_damage`. A target with a Total Damage
   reduction (``CompiledTarget.reduce``, a Reaction) uses it once in the
   chain: at the first Batch that deals Damage (``damage_dealt > 0``).

Everything about the target's models lives in :class:`CompiledTarget`; the
state carried from Batch to Batch of a chain (8.7.3, Batch sequence) is
``(removed, marker, shielded)``. Once every model is removed, the remaining
Batches of the chain are not resolved against the unit (no Damage is dealt:
a destroyed unit is no longer a target).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use: importing this module loads none
    from ..lazy import numpy as np

from ..dice import SDice, clamp_target
from .keywords import find, keyword_value
from .model import Attack, Batch, Target, Weapon

#: ``visible`` value meaning "every model may be removed".
ALL_VISIBLE = 999


@dataclass(frozen=True, eq=False, repr=False)
class CompiledBatch:
    """One Batch as plain numbers (see the module docstring for the procedure)."""

    label: str
    n_dice: np.ndarray  # int64[G]: dice per Hit group
    hit_target: np.ndarray  # int64[G]: clamped target numbers 2..6
    auto_hits: int
    precision: int
    surge: SDice | None  # None: no Surge applies against this target
    critical: int
    dodge: int
    armour_target: int
    tough: int
    evade: bool
    evade_target: int
    damage: int
    nonlethal: int
    concentrated: int  # 0: no limit
    visible: int  # max models this Batch may remove (ALL_VISIBLE: all)

    @property
    def surge_pmf(self) -> np.ndarray:
        """pmf of the Surge result as applied (``[1.0]`` when Surge does not apply)."""
        return self.surge.pmf() if self.surge is not None else np.array([1.0])

    @property
    def total_dice(self) -> int:
        return int(self.n_dice.sum())

    @property
    def max_pool(self) -> int:
        """The largest number of dice the Armour or Damage Pool can hold."""
        return self.total_dice + self.auto_hits

    def key(self) -> tuple[object, ...]:
        """A hashable identity: equal keys give identical results."""
        order = np.lexsort((self.n_dice, self.hit_target))
        groups: dict[int, int] = {}
        for t, n in zip(self.hit_target[order].tolist(), self.n_dice[order].tolist(), strict=True):
            if n:
                groups[t] = groups.get(t, 0) + n
        return (
            tuple(sorted(groups.items())),
            self.auto_hits,
            self.precision,
            tuple(self.surge_pmf.round(15).tolist()),
            self.critical,
            self.dodge,
            self.armour_target,
            self.tough,
            self.evade,
            self.evade_target if self.evade else 0,
            self.damage,
            self.nonlethal,
            self.concentrated,
            self.visible,
        )


@dataclass(frozen=True, eq=False, repr=False)
class CompiledTarget:
    """The target's models as numbers.

    Attributes:
        hp: int64[M], HP of each model in removal order; Shield already added
            to ``hp[0]``.
        shield: the Shield value (for the SHIELDED status).
        marker: the Damage Marker at the start.
        shielded: SHIELDED at the start.
        reduce: a reduction of the Total Damage the unit has for this chain (a
            Reaction), used once: at the first Batch that deals it Damage
            (:func:`apply_damage`'s ``reduce``); 0 for none.
        floor: that reduction's minimum (``apply_damage``'s ``floor``).
    """

    hp: np.ndarray
    shield: int
    marker: int
    shielded: bool
    reduce: int = 0
    floor: int = 0

    @property
    def models(self) -> int:
        return int(self.hp.size)


def expand(batch: Batch) -> list[Batch]:
    """Split the extra damage sources a weapon's keywords carry into their own Batches.

    HITS X (Y) and IMPACT (X) Y are separate damage sources (part 11): they are
    resolved as Batches of their own, before the weapon's dice.

    >>> from mathhammer.starcraft.model import Weapon
    >>> w = Weapon.build("Claws", roa=2, hit=4, keywords=["IMPACT (2) 4+"])
    >>> [b.kind for b in expand(Batch(w, models=3))]
    ['impact', 'weapon']
    """
    if batch.kind != "weapon":
        return [batch]
    out: list[Batch] = []
    hits = find(batch.weapon.keywords, "HITS")
    if hits is not None:
        out.append(
            Batch(
                Batch.hits(hits.value or 0, hits.extra or 1).weapon,
                models=hits.value or 0,
                kind="hits",
                visible=batch.visible,
                evade=batch.evade,
                name=f"{batch.label}: HITS {hits.value} ({hits.extra})",
            )
        )
    impact = find(batch.weapon.keywords, "IMPACT")
    if impact is not None:
        imp = Batch.impact(batch.models, impact.value or 0, impact.extra or 6)
        out.append(
            Batch(
                imp.weapon,
                models=batch.models,
                kind="impact",
                visible=batch.visible,
                evade=batch.evade,
                name=f"{batch.label}: IMPACT ({impact.value}) {impact.extra}+",
            )
        )
    if batch.weapon.roa > 0 or not out:
        out.append(batch)
    return out


def _signed(keywords: Sequence, characteristic: str) -> int:
    """BUFF minus DEBUFF of one characteristic."""
    return keyword_value(keywords, "BUFF", characteristic) - keyword_value(keywords, "DEBUFF", characteristic)


def compile_target(target: Target) -> CompiledTarget:
    return CompiledTarget(
        hp=np.asarray(target.model_hp(), dtype=np.int64),
        shield=int(target.shield),
        marker=int(target.marker),
        shielded=target.is_shielded,
        reduce=int(target.damage_reduction),
        floor=int(target.reduction_floor),
    )


def compile_batch(batch: Batch, target: Target) -> CompiledBatch:
    """Compile one Batch (of kind weapon, hits or impact) against ``target``."""
    w = batch.weapon
    wk = w.keywords
    tk = target.keywords
    visible = batch.visible or target.visible or ALL_VISIBLE
    evade = (
        batch.evade
        if batch.evade is not None
        else (target.evade_eligible or find(tk, "HIDDEN") is not None or find(tk, "BURROWED") is not None)
    )
    armour_target = clamp_target(target.armour - _signed(tk, "Armour"))
    evade_target = clamp_target(target.evade - _signed(tk, "Evade") + keyword_value(wk, "ANTI-EVADE"))
    tough = keyword_value(tk, "TOUGH")
    dodge = keyword_value(tk, "DODGE")
    empty = np.zeros(0, dtype=np.int64)

    if batch.kind == "hits":
        return CompiledBatch(
            batch.label, empty, empty, int(batch.models), 0, None, 0, dodge, armour_target, tough,
            bool(evade), evade_target, int(w.damage), 0, 0, int(visible),
        )  # fmt: skip
    if batch.kind == "impact":
        # Part 11 HIDDEN: "A HIDDEN Unit is immune to the IMPACT keyword" (BURROWED has HIDDEN).
        immune = find(tk, "HIDDEN") is not None or find(tk, "BURROWED") is not None
        return CompiledBatch(
            batch.label,
            np.array([0 if immune else batch.models * w.roa], dtype=np.int64),
            np.array([clamp_target(w.hit)], dtype=np.int64),
            0, 0, None, 0, dodge, armour_target, tough, bool(evade), evade_target, 1, 0, 0, int(visible),
        )  # fmt: skip

    roa = max(0, w.roa + _signed(wk, "RoA"))
    if target.stationary:
        roa += keyword_value(wk, "LOCKED IN")
    hit = w.hit - _signed(wk, "Hit")
    long_range = find(wk, "LONG RANGE")
    burst = find(wk, "BURST FIRE")
    groups: dict[int, int] = {}
    distances = batch.distances if batch.distances is not None else (None,) * batch.models
    for d in distances:
        dice = roa
        target_number = hit
        if d is not None:
            if w.range is not None and d > w.range:
                if long_range is not None and d <= (long_range.value or 0):
                    target_number += 1  # LONG RANGE (X): -1 to Hit beyond profile range
                else:
                    continue  # out of range: this model rolls no dice (8.7.3 step 1)
            if burst is not None and d <= (burst.extra or 0):
                dice += burst.value or 0
        t = clamp_target(target_number)
        groups[t] = groups.get(t, 0) + dice
    # 8.7.3 REMOVING DICE: the controller of the ability chooses; the defender takes out the best Hit target
    # number first (the dice most likely to hurt it), the attacker the worst (Batch.fewer_by)
    left = batch.fewer
    for t in sorted(groups, reverse=batch.fewer_by == "attacker"):
        take = min(left, groups[t])
        groups[t] -= take
        left -= take
    groups = {t: n for t, n in groups.items() if n > 0}
    targets = sorted(groups)
    surge_applies = w.surge_dice is not None and any(tag in target.tags for tag in w.surge_tags)
    damage = w.damage
    pierce = [kw.value or 0 for kw in wk if kw.name == "PIERCE" and kw.tag in target.tags]
    if pierce:
        damage = max(pierce)
    damage = max(0, damage + _signed(wk, "Damage"))
    return CompiledBatch(
        label=batch.label,
        n_dice=np.array([groups[t] for t in targets], dtype=np.int64),
        hit_target=np.array(targets, dtype=np.int64),
        auto_hits=0,
        precision=keyword_value(wk, "PRECISION"),
        surge=w.surge_dice if surge_applies else None,
        critical=keyword_value(wk, "CRITICAL HIT"),
        dodge=dodge,
        armour_target=armour_target,
        tough=tough,
        evade=bool(evade),
        evade_target=evade_target,
        damage=int(damage),
        nonlethal=keyword_value(wk, "NON-LETHAL DAMAGE"),
        concentrated=keyword_value(wk, "CONCENTRATED FIRE"),
        visible=int(visible),
    )


def banded_distances(weapon: Weapon, distances: Sequence[float]) -> tuple[float, ...]:
    """``distances`` as :func:`compile_batch` reads them for ``weapon``, one per model, in increasing order: each the
    least of the limits it compares them with (the Range, beyond which a model rolls no dice unless Within its LONG
    RANGE (X), 8.7.3 step 1; BURST FIRE's reach) that is at least the distance, and 1" beyond the farthest limit for
    a distance beyond every one (0 for every distance where the weapon has no limit). A Batch of the banded distances
    compiles to the same Batch (the models' order does not matter: their dice are summed per Hit target number), so
    the chains of many boards share one key.

    >>> from mathhammer.starcraft.model import Weapon
    >>> w = Weapon.build("Rifle", roa=1, hit=4, range=12, keywords=['LONG RANGE (18")', 'BURST FIRE 6" (1)'])
    >>> banded_distances(w, (13.2, 2.0, 20.0, 6.0, 12.0))
    (6.0, 6.0, 12.0, 18.0, 19.0)
    """
    wk = weapon.keywords
    limits = [] if weapon.range is None else [float(weapon.range)]
    long_range, burst = find(wk, "LONG RANGE"), find(wk, "BURST FIRE")
    if long_range is not None:
        limits.append(float(long_range.value or 0))
    if burst is not None:
        limits.append(float(burst.extra or 0))
    if not limits:
        return (0.0,) * len(distances)
    limits.sort()
    beyond = limits[-1] + 1.0
    return tuple(sorted(next((x for x in limits if d <= x), beyond) for d in distances))


def compile_attack(attack: Attack) -> tuple[tuple[CompiledBatch, ...], CompiledTarget]:
    """Compile a chain: every Batch (expanded for HITS/IMPACT) and the target."""
    batches = tuple(compile_batch(b, attack.target) for batch in attack.batches for b in expand(batch))
    return batches, compile_target(attack.target)


def attack_key(batches: Sequence[CompiledBatch], target: CompiledTarget) -> tuple[object, ...]:
    """Everything the engines read of a compiled chain and its target, as a hashable key (equal keys: equal
    results), for caches of attack results."""
    return (
        tuple(cb.key() for cb in batches),
        tuple(target.hp.tolist()),
        target.shield,
        target.marker,
        target.shielded,
        target.reduce,
        target.floor,
    )


def damage_bound(batches: Sequence[CompiledBatch]) -> int:
    """Largest Damage a chain can deal (size of the damage histogram - 1)."""
    return int(sum(b.max_pool * b.damage for b in batches))


def marker_bound(batches: Sequence[CompiledBatch], target: CompiledTarget) -> int:
    """An upper bound of the Damage Marker (size of the marker histogram - 1)."""
    return int(target.marker + int(target.hp.max()) + sum(b.nonlethal for b in batches))


def apply_damage(
    hp: np.ndarray,
    removed: int,
    marker: int,
    shielded: bool,
    shield: int,
    dice: int,
    damage: int,
    nonlethal: int,
    visible: int,
    concentrated: int,
    reduce: int = 0,
    floor: int = 0,
) -> tuple[int, int, bool]:
    """Step 5 of 8.7.4: casualties of one Batch. Returns ``(removed, marker, shielded)``.

    Args:
        hp: HP per model in removal order (Shield added to ``hp[0]``).
        removed: models already removed before this Batch.
        marker: the Damage Marker before this Batch.
        shielded: SHIELDED before this Batch.
        shield: the unit's Shield value.
        dice: dice left in the Damage Pool after step 4.
        damage: the Damage characteristic (PIERCE, BUFF/DEBUFF folded in; may be 0).
        nonlethal: NON-LETHAL DAMAGE (X) of this Batch.
        visible: the models of the unit visible to this Batch's attackers,
            counted at the start of the chain; every model removed so far was
            one of them, so this Batch may remove at most ``visible -
            removed`` (8.7.4 step 5: only Visible models are removed).
        concentrated: CONCENTRATED FIRE (X), 0 for none.
        reduce: a reduction of the Total Damage used on this Batch (0: none);
            it applies only where the Batch deals Damage (``dice x damage > 0``:
            the unit "suffers Damage").
        floor: the reduction never takes the Total Damage below this (Dae'Uhl:
            "to a minimum of 1"), nor raises it.

    The rules, in order:

    - NON-LETHAL DAMAGE (X) is added to the Damage Marker first and removes no
      model (part 11); the Batch's own damage then uses the combined total
      ("If the Unit subsequently suffers standard Damage, the combined Total
      Damage triggers casualty removal normally"). This project's reading: the
      Batch's non-lethal part lands before its lethal part.
    - No dice in the Damage Pool: step 5 is skipped (8.7.4 step 5). Dice with
      Damage 0 (DEBUFF Damage) still resolve step 5 with the marker alone.
    - Total Damage = ``dice x damage + marker``; then "Apply any Special Skills
      that reduce the Total Damage" (8.7.4 step 5): ``max(total - reduce,
      min(total, floor))``. SHIELDED is lost when the (reduced) Total Damage
      exceeds Shield (Shield 3 is lost at 4, FAQ v1.0) or when the first
      model is removed (part 11 SHIELDED).
    - While Total Damage >= the next model's HP, remove it; never more than
      the visible models left (``visible - removed``), nor more than
      CONCENTRATED FIRE allows.
    - All models removed, or every visible model removed: the rest of the
      damage is discarded. CONCENTRATED FIRE limit reached: discarded (part
      11). Otherwise the rest is the new Damage Marker.

    >>> hp = np.array([7, 4, 4])   # Zealots: 4 HP, Shield 3 on the first
    >>> apply_damage(hp, 0, 0, True, 3, 3, 1, 0, 999, 0)
    (0, 3, True)
    >>> apply_damage(hp, 0, 0, True, 3, 2, 2, 0, 999, 0)
    (0, 4, False)
    >>> apply_damage(hp, 0, 0, True, 3, 7, 1, 0, 999, 0)
    (1, 0, False)
    >>> apply_damage(hp, 0, 0, True, 3, 7, 1, 0, 999, 0, reduce=2)  # 7 - 2 = 5: no model, SHIELDED lost
    (0, 5, False)
    >>> apply_damage(hp, 0, 1, True, 3, 1, 2, 0, 999, 0, reduce=2, floor=1)  # 2 + marker 1 - 2, at least 1
    (0, 1, True)
    """
    models = int(hp.size)
    left = models - removed
    if left <= 0:
        return removed, 0, False
    if nonlethal:
        marker += nonlethal
        if shielded and marker > shield:
            shielded = False
    if dice <= 0:
        return removed, marker, shielded
    total = dice * damage + marker
    if reduce and dice * damage > 0:
        total = max(total - reduce, min(total, floor))
    if shielded and total > shield:
        shielded = False
    visible_left = max(0, min(visible, models) - removed)
    cap = min(visible_left, left)
    if concentrated:
        cap = min(cap, concentrated)
    killed = 0
    while killed < cap and total >= hp[removed + killed]:
        total -= int(hp[removed + killed])
        killed += 1
    if removed == 0 and killed > 0:
        shielded = False
    removed += killed
    if killed in (left, visible_left) or (concentrated and killed == concentrated):
        total = 0
    return removed, int(total), bool(shielded)
