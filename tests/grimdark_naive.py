"""Slow, obviously-correct reference of a Grimdark Future attack: every die rolled in plain Python.

Written from the model values (not the compiled numbers), following the
seed (/work/shared/rules/seeds/002_2581754eb54f7632.txt) and the core-rule
wordings quoted in :mod:`mathhammer.grimdark.compiled`, with the same
conventions: a die's hits are resolved before the next die, six hits first;
Blast's cap is the models left when the weapon group starts; Regeneration is
rolled before Deadly's multiplication.
"""

from __future__ import annotations

import random

import numpy as np

from mathhammer.grimdark.model import Attacker, Defender
from mathhammer.outcome import Tally


def _rating(rules, name, default=0):
    for r in rules:
        if r.name == name:
            return r.rating if r.rating is not None else default
    return default


def _has(rules, name):
    return any(r.name == name for r in rules)


def _all(defender: Defender, name):
    """Every model of the unit has unit rule ``name``, the joined hero included."""
    hero = defender.hero
    return _has(defender.rules, name) and (hero is None or _has(hero.rules, name))


def _models(defender: Defender):
    """[tough, defense, regeneration, shielded] of each model, in the order they take wounds (hero last)."""
    hero = defender.hero
    out = []
    for _ in range(defender.models):
        out.append([defender.tough, defender.defense, _all(defender, "Regeneration"), _all(defender, "Shielded")])
    if hero is not None:
        out.append([hero.tough, hero.defense, _has(hero.rules, "Regeneration"), _has(hero.rules, "Shielded")])
    return out


def one_attack(attacker: Attacker, defender: Defender, rng: random.Random):
    """One attack: ``(damage, models removed, wounds on the next model, morale due, morale test passed)``."""
    models = _models(defender)
    m = len(models)
    # each model's own rules, as "a unit of 1" (Takedown, Sniper): Regeneration, Shielded
    own = [(_has(defender.rules, "Regeneration"), _has(defender.rules, "Shielded"))] * defender.models
    if defender.hero is not None:
        own.append((_has(defender.hero.rules, "Regeneration"), _has(defender.hero.rules, "Shielded")))
    # snipe: the model a Takedown/Sniper group picked (None: no such group being resolved)
    state = {"i": 0, "w": 0, "dealt": 0, "snipe": None}

    def d6():
        return rng.randint(1, 6)

    def wound(deadly, ignores_regen):
        """One wound on the model next in line: Regeneration's roll, then Deadly's X on that model."""
        if state["i"] >= m or state["snipe"] not in (None, state["i"]):
            return  # Takedown/Sniper: the picked model killed, nothing carries over
        tough, _, regen, _ = models[state["i"]]
        if state["snipe"] is not None:
            regen = own[state["i"]][0]
        if regen and not ignores_regen and d6() >= 5:  # Regeneration: "On a 5+ it is ignored"
            return
        taken = min(deadly, tough - state["w"])  # Deadly: no carry-over to the next model
        state["w"] += taken
        state["dealt"] += taken
        if state["w"] >= tough:
            state["i"] += 1
            state["w"] = 0

    def hit(ap, poison, cover, deadly, ignores_regen, shred=False):
        if state["i"] >= m or state["snipe"] not in (None, state["i"]):
            return
        defense = models[state["i"]][1]  # the Defense of the model next in line
        shielded = 1 if models[state["i"]][3] else 0  # Shielded: "+1 to defense rolls", all models left
        if state["snipe"] is not None:  # as a unit of 1: its own Shielded
            shielded = 1 if own[state["i"]][1] else 0
        roll = d6()

        def saves(r):
            if r == 6:  # natural 6 always saves, natural 1 always fails
                return True
            if r == 1:
                return False
            return r + cover + shielded - ap >= defense

        if poison and roll == 6:  # "the target must re-roll unmodified Defense results of 6"
            roll = d6()  # the re-roll stands
        if saves(roll):
            return
        wound(deadly, ignores_regen)
        # Shred: "On unmodified results of 1 to block hits, this weapon deals 1 extra wound."
        if shred and roll == 1:
            wound(deadly, ignores_regen)

    def snipes(rules):
        return _has(rules, "Takedown") or _has(rules, "Sniper")

    # Takedown/Sniper: "must be resolved before other weapons"; Deadly(X) (v3): "Hits from Deadly must be
    # resolved first".
    ordered = sorted(
        attacker.groups, key=lambda g: (not snipes(g.weapon.rules), _rating(g.weapon.rules, "Deadly", 1) == 1)
    )
    for group in ordered:
        weapon = group.weapon
        rules = weapon.rules
        state["snipe"] = None
        shooting = not weapon.melee
        if shooting and weapon.range is not None and attacker.distance is not None and attacker.distance > weapon.range:
            continue
        cover = 1 if (defender.cover and shooting and not _has(rules, "Blast") and not _has(rules, "Lock-On")) else 0
        if _has(rules, "Impact") and attacker.charging and not attacker.fatigued:
            for _ in range(group.models * _rating(rules, "Impact")):
                if d6() >= 2:  # "For each 2+ the target takes one hit"
                    hit(0, False, 0, 1, False)
        # "pick any model in the target unit as its individual target, which is resolved as if it was a unit
        # of 1": the model next in line (a model of the unit), its own Defense and rules
        state["snipe"] = state["i"] if snipes(rules) else None
        modifiers = [attacker.hit_modifier, *attacker.hit_modifiers]
        if _has(rules, "Indirect") and attacker.moved:
            modifiers.append(-1)
        far = attacker.distance is not None and attacker.distance > 9
        target = defender
        if state["snipe"] is not None:  # the target's rules: those of a unit of 1 model of the unit
            target = Defender(1, defender.defense, defender.tough, rules=defender.rules, moved=defender.moved)
        if shooting and far:
            if _has(attacker.rules, "Artillery"):  # "shoots at enemies over 9\" away, it gets +1 to hit rolls"
                modifiers.append(1)
            if _all(target, "Stealth"):  # "shot from over 9\" away, enemy units get -1 to hit rolls"
                modifiers.append(-1)
            if _all(target, "Artillery"):  # "shoot at this model from over 9\" away, they get -2"
                modifiers.append(-2)
            if _all(target, "Entrenched") and not defender.moved:  # "hasn't moved during the round"
                modifiers.append(-2)
        # Thrust / Lance: "When charging, gets +1 to hit rolls and AP(+1) in melee."
        thrust = (_has(rules, "Thrust") or _has(rules, "Lance")) and weapon.melee and attacker.charging
        if thrust:
            modifiers.append(1)
        if attacker.versatile == "hit":  # Versatile Attack: "+1 to hit rolls when attacking"
            modifiers.append(1)
        if _has(rules, "Lock-On"):
            modifiers = [x for x in modifiers if x > 0]
        if _has(rules, "Unstoppable"):  # "ignores all negative modifiers to this weapon"
            modifiers = [x for x in modifiers if x > 0]
        if _has(rules, "Precise"):  # "Gets +1 to hit when attacking."
            modifiers.append(1)
        modifier = max(-1, min(1, sum(modifiers)))
        ap = _rating(rules, "AP") + int(thrust) + int(attacker.versatile == "ap")  # AP(+1)s
        # Slayer: "AP(+2) against units where most models have Tough(3) or higher" (the hero counted)
        toughs = [target.tough] * target.models + ([target.hero.tough] if target.hero is not None else [])
        if _has(attacker.rules, "Slayer") and 2 * sum(t >= 3 for t in toughs) > len(toughs):
            ap += 2
        ap_six = ap + 4 if _has(rules, "Rending") else ap  # Rending (v3.5): six hits get AP(+4)
        if _has(rules, "Destructive"):  # "On unmodified results of 6 to hit, those hits get AP(+4)."
            ap_six += 4
        extra = (_has(rules, "Relentless") and attacker.distance is not None and attacker.distance > 9) or (
            _has(rules, "Furious") and attacker.charging
        )
        extra = int(extra)
        if _has(rules, "Surge"):  # "this weapon deals 1 extra hits" on an unmodified 6, no condition
            extra += 1
        deadly = _rating(rules, "Deadly", 1)
        poison = _has(rules, "Poison") or _has(rules, "Bane")  # every hit re-rolls a Defense 6
        ignores_regen = _has(rules, "Rending") or poison or _has(rules, "Unstoppable")  # "Ignores Regeneration"
        shred = _has(rules, "Shred")
        left = 1 if state["snipe"] is not None else m - state["i"]  # a unit of 1
        b = min(_rating(rules, "Blast"), left) if _has(rules, "Blast") else 1
        for _ in range(group.models * weapon.attacks):
            roll = d6()
            # Reliable: "attacks at Quality 2+"; Sniper: "Shoots at Quality 2+"
            quality = 2 if _has(rules, "Reliable") or _has(rules, "Sniper") else attacker.quality
            hits = roll == 6 or (roll != 1 and roll + modifier >= quality)
            if not hits:
                continue
            if roll == 6:
                for _ in range(b):
                    hit(ap_six, poison, cover, deadly, ignores_regen, shred)
                for _ in range(b * extra):  # extra hits: plain, "only the original hit counts as a 6"
                    hit(ap, poison, cover, deadly, ignores_regen, shred)
            else:
                for _ in range(b):
                    hit(ap, poison, cover, deadly, ignores_regen, shred)
    state["snipe"] = None
    i, w = state["i"], state["w"]
    # GF v3.5.1 core rules, Morale: "half or less of its starting size or tough value (for units with
    # a single model) ... starting size is counted at the beginning of the game"
    start = defender.starting_models + (1 if defender.hero is not None else 0)
    if i >= m:
        due = False
    elif start == 1 and models[0][0] > 1:
        due = 2 * (models[0][0] - w) <= models[0][0]
    else:
        due = 2 * (m - i) <= start
    # "Units that were in melee don't take morale tests from wounds" (GF v3.5.1 core rules, Morale)
    if any(g.weapon.melee for g in attacker.groups):
        due = False
    passed = False
    if due:
        hero = defender.hero
        if i < defender.models:  # unit models left: the hero tests on their behalf, the better Quality
            quality = defender.quality if hero is None or hero.quality is None else min(defender.quality, hero.quality)
            fearless = defender.fearless and (hero is None or hero.fearless)  # "all models have this rule"
        else:  # the hero alone
            assert hero is not None
            quality = defender.quality if hero.quality is None else hero.quality
            fearless = hero.fearless
        roll = d6()
        passed = roll != 1 and (roll == 6 or roll >= quality)  # "one regular Quality test"
        if not passed and fearless:
            passed = d6() >= 4  # Fearless: "roll one die. On a 4+ it counts as passed instead."
    return state["dealt"], i, w, due, passed


def naive_tally(attacker: Attacker, defender: Defender, trials: int, seed: int = 0) -> Tally:
    """A Monte Carlo Tally of counts from :func:`one_attack`."""
    rng = random.Random(seed)
    models = _models(defender)
    damage = np.zeros(sum(m[0] for m in models) + 1)
    destroyed = np.zeros(len(models) + 1)
    marker = np.zeros(max(m[0] for m in models))
    due = np.zeros(2)
    passed = np.zeros(2)
    shaken = np.zeros(2)
    routed = np.zeros(2)  # a test from wounds fails into Shaken, never Routed
    hero_tough = models[-1][0] if defender.hero is not None else 0
    hero = np.zeros(hero_tough + 1)
    last = len(models) - 1
    for _ in range(trials):
        d, i, w, u, ok = one_attack(attacker, defender, rng)
        damage[d] += 1
        destroyed[i] += 1
        marker[w] += 1
        due[int(u)] += 1
        passed[int(u and ok)] += 1
        shaken[int(u and not ok)] += 1
        routed[0] += 1
        # the hero is the last model in line: its wounds, counted on the model itself
        if defender.hero is not None:
            hero[hero_tough if i > last else (w if i == last else 0)] += 1
    hists = {
        "wounds": damage,
        "models_destroyed": destroyed,
        "wounds_on_next": marker,
        "morale_test_due": due,
        "morale_passed": passed,
        "morale_shaken": shaken,
        "morale_routed": routed,
    }
    if defender.hero is not None:
        hists["hero_wounds"] = hero
    return Tally(trials, **hists)
