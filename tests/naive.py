"""A slow, plain, die-by-die reference for StarCraft TMG attacks.

Written from the rules (rulebook 8.7.3-8.7.4, part 11 keyword glossary, FAQ
v1.0), not from :mod:`mathhammer.starcraft.compiled`: it reads the user-level
:class:`~mathhammer.starcraft.model.Attack` and rolls every die with
``random.Random``. Readability over speed: use it for tens of thousands of
trials, not millions.

Readings this file makes (the project's, see ``/work/shared/rules/README.md``):

- HITS X (Y) and IMPACT (X) Y on a weapon are resolved as Batches of their
  own, before the weapon's own dice (HITS first, then IMPACT).
- DODGE (X) reduces the combined number of dice moved by Surge and CRITICAL
  HIT by X, once per Batch.
- NON-LETHAL DAMAGE (X) lands on the Damage Marker at the start of the Batch's
  casualty step, before the Batch's own damage.
- BUFF/DEBUFF RoA change the characteristic (minimum 0); BURST FIRE and
  LOCKED IN then add to it.
- ``Batch.visible`` (or else ``Target.visible``) is the number of the unit's
  models Visible to that Batch's attackers when the chain starts. Every
  removed model is a Visible one (8.7.4 step 5 "remove one Visible model"), so
  a Batch may remove at most that number minus the models already removed.
- A destroyed unit is no longer a target (8.7.3 step 1): later Batches of the
  chain are not resolved and deal no Damage. Nor is a unit none of whose
  models Visible to a Batch's attackers is left (8.7.3 step 1 TARGET
  ELIGIBILITY: "at least one Visible model ... Within the weapon's maximum
  Range"; BATCH SEQUENCE: each Batch is declared after the one before is
  resolved): that Batch rolls no dice.
"""

from __future__ import annotations

import random

import numpy as np

from mathhammer.outcome import Tally
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon


def keyword(keywords, name, tag=None):
    """The (X) of a keyword, or 0 when the keyword is absent.

    Keywords do not stack (part 11 intro; the parser keeps the highest value),
    so there is at most one keyword per (name, tag).
    """
    best = 0
    for kw in keywords:
        if kw.name == name and (tag is None or kw.tag == tag):
            best = max(best, kw.value or 0)
    return best


def has_keyword(keywords, name):
    return any(kw.name == name for kw in keywords)


def find_keyword(keywords, name):
    for kw in keywords:
        if kw.name == name:
            return kw
    return None


def clamp(target_number):
    """Part 11 MODIFIER: a Target Number is never below 2+ nor above 6+."""
    if target_number < 2:
        return 2
    if target_number > 6:
        return 6
    return target_number


def roll_d6(rng):
    return rng.randint(1, 6)


def succeeds(roll, target_number):
    """3.6: a natural 6 always succeeds, a natural 1 always fails."""
    if roll == 6:
        return True
    if roll == 1:
        return False
    return roll >= target_number


def roll_surge_die(weapon, rng):
    """The S Dice: N dice of M sides plus K (a fixed number when N is 0)."""
    sdice = weapon.surge_dice
    total = sdice.bonus
    for _ in range(sdice.n):
        total += rng.randint(1, sdice.sides)
    return total


def model_hit_points(target):
    """HP of each model in the order the defender removes them; Shield on the first (part 11 SHIELDED)."""
    hps = []
    for group in target.groups:
        for _ in range(group.count):
            hps.append(group.hp)
    if target.removal_order == "fewest-hp-first":
        hps = sorted(hps)
    elif target.removal_order == "most-hp-first":
        hps = sorted(hps, reverse=True)
    hps[0] = hps[0] + target.shield
    return hps


def starts_shielded(target):
    if target.shield <= 0:
        return False
    if target.shielded is not None:
        return bool(target.shielded)
    return target.marker <= target.shield


def split_into_damage_sources(batch):
    """HITS X (Y) and IMPACT (X) Y are their own Batches, resolved before the weapon (part 11)."""
    if batch.kind != "weapon":
        return [batch]
    out = []
    hits = find_keyword(batch.weapon.keywords, "HITS")
    if hits is not None:
        # HITS X (Y): X automatic hits with Damage Y.
        weapon = Weapon(name="HITS", roa=0, hit=6, damage=hits.extra)
        out.append(Batch(weapon, models=hits.value, kind="hits", visible=batch.visible, evade=batch.evade))
    impact = find_keyword(batch.weapon.keywords, "IMPACT")
    if impact is not None:
        # IMPACT (X) Y: X Impact Dice per model, hitting on Y+, Damage 1.
        weapon = Weapon(name="IMPACT", roa=impact.value, hit=impact.extra, damage=1)
        out.append(Batch(weapon, models=batch.models, kind="impact", visible=batch.visible, evade=batch.evade))
    if batch.weapon.roa > 0 or not out:
        out.append(batch)  # the weapon's own dice (a RoA 0 carrier of HITS/IMPACT rolls nothing)
    return out


def attack_dice_groups(batch, target):
    """8.7.4 step 1: a list of (number of dice, Hit target number), one entry per attacking model."""
    weapon = batch.weapon
    kws = weapon.keywords
    if batch.kind == "impact":
        # IMPACT (X) Y: X Impact Dice per model, each result >= Y is a hit (part 11).
        return [(weapon.roa, clamp(weapon.hit)) for _ in range(batch.models)]
    roa = weapon.roa + keyword(kws, "BUFF", "RoA") - keyword(kws, "DEBUFF", "RoA")
    roa = max(0, roa)  # DEBUFF on a value characteristic: minimum 0 (part 11 DEBUFF)
    if target.stationary:
        roa += keyword(kws, "LOCKED IN")  # part 11 LOCKED IN
    hit = weapon.hit - keyword(kws, "BUFF", "Hit") + keyword(kws, "DEBUFF", "Hit")
    long_range = find_keyword(kws, "LONG RANGE")
    burst = find_keyword(kws, "BURST FIRE")
    groups = []
    for i in range(batch.models):
        distance = None if batch.distances is None else batch.distances[i]
        dice = roa
        hit_number = hit
        if distance is not None:
            if weapon.range is not None and distance > weapon.range:
                if long_range is not None and distance <= long_range.value:
                    hit_number += 1  # part 11 LONG RANGE: -1 Modifier to Hit
                else:
                    continue  # 8.7.3 step 1: a model out of Range adds no dice
            if burst is not None and distance <= burst.extra:
                dice += burst.value  # part 11 BURST FIRE Y" (X)
        groups.append((dice, clamp(hit_number)))
    # Guardian Shield: "made with 1 fewer die in the Attack Pool". 8.7.3 REMOVING DICE: "the player controlling
    # the Unit resolving that ability chooses which dice are removed": the defender takes out the best Hit target
    # number first, an attacker's own ability the worst
    left = batch.fewer
    sign = -1 if batch.fewer_by == "attacker" else 1
    for i in sorted(range(len(groups)), key=lambda i: sign * groups[i][1]):
        take = min(left, groups[i][0])
        groups[i] = (groups[i][0] - take, groups[i][1])
        left -= take
    return groups


def roll_damage_pool(batch, target, rng):
    """8.7.4 steps 1-4 for one Batch: the number of dice left in the Damage Pool."""
    weapon = batch.weapon
    wk = weapon.keywords
    tk = target.keywords

    # Step 1: Attack Pool.
    armour_pool = 0
    if batch.kind == "hits":
        armour_pool = batch.models  # HITS X (Y): X dice straight into the Armour Pool
    elif batch.kind == "impact" and (has_keyword(tk, "HIDDEN") or has_keyword(tk, "BURROWED")):
        armour_pool = 0  # part 11 HIDDEN: immune to IMPACT (BURROWED has HIDDEN)
    else:
        failures = 0
        for dice, hit_number in attack_dice_groups(batch, target):
            for _ in range(dice):
                if succeeds(roll_d6(rng), hit_number):
                    armour_pool += 1
                else:
                    failures += 1
        if batch.kind == "weapon":
            # PRECISION (X): up to X failed dice count as hits, Surge included.
            armour_pool += min(keyword(wk, "PRECISION"), failures)

    # Step 2: Resolve Surge (HITS and IMPACT never generate Surge).
    moved = 0
    if batch.kind == "weapon":
        surge = 0
        if weapon.surge_dice is not None:
            surge_result = roll_surge_die(weapon, rng)
            if any(tag in target.tags for tag in weapon.surge_tags):
                surge = surge_result
        by_surge = min(surge, armour_pool)
        by_critical = min(keyword(wk, "CRITICAL HIT"), armour_pool - by_surge)
        moved = by_surge + by_critical
        moved = max(0, moved - keyword(tk, "DODGE"))  # DODGE (X): combined, minimum 0
        armour_pool -= moved
    damage_pool = moved

    # Step 3: Armour Rolls.
    armour_number = clamp(target.armour - keyword(tk, "BUFF", "Armour") + keyword(tk, "DEBUFF", "Armour"))
    failed = 0
    for _ in range(armour_pool):
        if not succeeds(roll_d6(rng), armour_number):
            failed += 1
    failed = max(0, failed - keyword(tk, "TOUGH"))  # TOUGH (X): X failures become successes
    damage_pool += failed

    # Step 4: Evade Rolls, only if eligible. The whole pool, Surge dice included (FAQ v1.0).
    if batch.evade is not None:
        eligible = batch.evade
    else:
        eligible = target.evade_eligible or has_keyword(tk, "HIDDEN") or has_keyword(tk, "BURROWED")
    if eligible:
        evade_number = target.evade - keyword(tk, "BUFF", "Evade") + keyword(tk, "DEBUFF", "Evade")
        evade_number = clamp(evade_number + keyword(wk, "ANTI-EVADE"))
        kept = 0
        for _ in range(damage_pool):
            if not succeeds(roll_d6(rng), evade_number):
                kept += 1
        damage_pool = kept
    return damage_pool


def damage_per_die(batch, target):
    """Damage characteristic (PIERCE [TAG] (X): treat it as X against that tag; BUFF/DEBUFF Damage)."""
    weapon = batch.weapon
    if batch.kind != "weapon":
        return weapon.damage  # HITS: Y; IMPACT: 1
    damage = weapon.damage
    pierce = [kw.value for kw in weapon.keywords if kw.name == "PIERCE" and kw.tag in target.tags]
    if pierce:
        damage = max(pierce)  # keywords do not stack: the highest value wins
    damage = damage + keyword(weapon.keywords, "BUFF", "Damage") - keyword(weapon.keywords, "DEBUFF", "Damage")
    return max(0, damage)


class UnitState:
    """The target unit as Batches resolve (8.7.3 Batch sequence)."""

    def __init__(self, target: Target):
        self.hit_points = model_hit_points(target)
        self.removed = 0
        self.marker = target.marker
        self.shield = target.shield
        self.shielded = starts_shielded(target)
        self.target_visible = target.visible  # None: every model is Visible
        # a Reaction reducing the Total Damage (Life Support, Transfusion, Dae'Uhl): one use for the attack
        self.reduction = target.damage_reduction
        self.reduction_floor = target.reduction_floor

    def models_left(self):
        return len(self.hit_points) - self.removed

    def visible_left(self, batch):
        """Models of the unit still standing that ``batch``'s attackers see (every removed one was Visible)."""
        visible = batch.visible if batch.visible is not None else self.target_visible
        if visible is None:
            return self.models_left()
        return max(0, min(visible, len(self.hit_points)) - self.removed)

    def suffer(self, dice, damage, batch):
        """8.7.4 step 5 (and part 11 NON-LETHAL DAMAGE, CONCENTRATED FIRE, SHIELDED)."""
        if self.models_left() == 0:
            return  # a Destroyed unit takes nothing more
        nonlethal = keyword(batch.weapon.keywords, "NON-LETHAL DAMAGE") if batch.kind == "weapon" else 0
        if nonlethal > 0:
            self.marker += nonlethal  # added to the marker, no model removed
            if self.marker > self.shield:
                self.shielded = False
        if dice == 0:
            return  # "If there are no dice left in the Damage Pool, ignore this phase."
        total = dice * damage + self.marker
        if self.reduction > 0 and dice * damage > 0:
            # "Apply any Special Skills that reduce the Total Damage" (8.7.4 step 5), when the unit suffers Damage;
            # the Reaction is used here, at the first Batch that deals Damage
            total = max(total - self.reduction, min(total, self.reduction_floor))
            self.reduction = 0
        if total > self.shield:
            self.shielded = False  # Shield 3 is lost at 4 Total Damage (FAQ v1.0)

        # How many models this Batch may remove.
        limit = self.models_left()
        visible = batch.visible if batch.visible is not None else self.target_visible
        visible_limit = None
        if visible is not None:
            # Visible models still standing: every model removed so far was a Visible one.
            visible_limit = max(0, min(visible, len(self.hit_points)) - self.removed)
            limit = min(limit, visible_limit)
        concentrated = keyword(batch.weapon.keywords, "CONCENTRATED FIRE") if batch.kind == "weapon" else 0
        if concentrated > 0:
            limit = min(limit, concentrated)

        removed_now = 0
        while removed_now < limit and total >= self.hit_points[self.removed]:
            total -= self.hit_points[self.removed]
            if self.removed == 0:
                self.shielded = False  # the first model is removed
            self.removed += 1
            removed_now += 1

        if self.models_left() == 0:
            total = 0  # unit Destroyed
        elif visible_limit is not None and removed_now == visible_limit:
            total = 0  # all Visible models Destroyed: the rest does not carry over
        elif concentrated > 0 and removed_now == concentrated:
            total = 0  # CONCENTRATED FIRE: discard, no Damage Marker
        self.marker = total


def naive_trial(attack: Attack, rng: random.Random) -> tuple[int, int, int, bool]:
    """Resolve the attack once. Returns (damage dealt, models destroyed, Damage Marker, SHIELDED)."""
    target = attack.target
    unit = UnitState(target)
    damage_dealt = 0
    for user_batch in attack.batches:
        for batch in split_into_damage_sources(user_batch):
            if unit.models_left() == 0:
                break  # a Destroyed unit is no longer a target (8.7.3 step 1)
            if unit.visible_left(batch) == 0:
                continue  # 8.7.3 step 1 TARGET ELIGIBILITY: no Visible model left, not a valid target
            dice = roll_damage_pool(batch, target, rng)
            damage = damage_per_die(batch, target)
            damage_dealt += dice * damage
            unit.suffer(dice, damage, batch)
    if unit.models_left() == 0:
        unit.marker = 0
        unit.shielded = False
    return damage_dealt, unit.removed, unit.marker, unit.shielded


def naive_tally(attack: Attack, trials: int, seed: int) -> Tally:
    """Counts of ``trials`` naive trials (a Monte Carlo :class:`Tally`)."""
    rng = random.Random(seed)
    outcomes = [naive_trial(attack, rng) for _ in range(trials)]
    models = attack.target.models
    damage = np.zeros(max(o[0] for o in outcomes) + 1)
    destroyed = np.zeros(models + 1)
    marker = np.zeros(max(o[2] for o in outcomes) + 1)
    shielded = np.zeros(2)
    for dealt, removed, mark, shield in outcomes:
        damage[dealt] += 1
        destroyed[removed] += 1
        marker[mark] += 1
        shielded[int(shield)] += 1
    return Tally(trials, damage=damage, models_destroyed=destroyed, marker=marker, shielded=shielded)
