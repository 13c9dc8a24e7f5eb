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
from dataclasses import replace

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


def _regen(rules, effects):
    """Regeneration ("On a 5+ it is ignored") and army rules read as it with another roll, by rule name."""
    out = {"Regeneration": 5} if _has(rules, "Regeneration") else {}
    out.update({e.rule: e.value for e in effects if e.kind == "regeneration"})
    return out


def _all(defender: Defender, name):
    """Every model of the unit has unit rule ``name``, the joined hero included."""
    hero = defender.hero
    return _has(defender.rules, name) and (hero is None or _has(hero.rules, name))


def _models(defender: Defender):
    """[tough, defense, regeneration roll (0: none), shielded] of each model, in the order they take wounds
    (hero last)."""
    unit = _regen(defender.rules, defender.effects)
    hero = defender.hero
    if hero is not None:  # "a unit where all models have this rule": the rules the hero has too
        mine = _regen(hero.rules, hero.effects)
        unit = {k: v for k, v in unit.items() if k in mine}
    out = []
    for _ in range(defender.models):
        out.append([defender.tough, defender.defense, min(unit.values(), default=0), _all(defender, "Shielded")])
    if hero is not None:
        out.append([hero.tough, hero.defense, min(mine.values(), default=0), _has(hero.rules, "Shielded")])
    return out


def _ap_change(weapon, attacker: Attacker, defender: Defender) -> tuple[int, int]:
    """(AP added by the weapon's army-rule effects, AP taken by the target's) for this attack."""
    bonus = 0
    for e in weapon.effects:
        if e.kind != "ap" or (e.phase is not None and (e.phase == "melee") != weapon.melee):
            continue
        if e.charging and not attacker.charging:
            continue
        if defender.tough < e.tough_min or (e.tough_max and defender.tough > e.tough_max):
            continue
        if e.over is not None and (attacker.distance is None or attacker.distance <= e.over):
            continue
        bonus += e.value
    less = 0
    hero = defender.hero
    for e in defender.effects:
        if e.kind != "ap_reduction" or (hero is not None and e not in hero.effects):
            continue
        if e.over is not None:  # "shot or charged from over 9\" away"
            if weapon.melee and not attacker.charging:
                continue
            if attacker.distance is None or attacker.distance <= e.over:
                continue
        less = max(less, e.value)
    return bonus, less


def _test_bonus(defender, unit_stands):
    """Banner ("This model and its unit get +1 to morale test rolls") and Morale(X) ("Gets +X to morale test
    rolls") of the models taking the test (the unit with its hero, or the hero alone), capped at +1."""
    hero = defender.hero
    rules = list(hero.rules) if hero is not None else []
    if unit_stands:
        rules += list(defender.rules)
    elif hero is None:
        rules = list(defender.rules)
    bonus = (1 if _has(rules, "Banner") else 0) + max([_rating([r], "Morale") for r in rules] or [0])
    return min(1, bonus)


def one_attack(attacker: Attacker, defender: Defender, rng: random.Random, start=(0, 0, 0), impact_cut=0):
    """One attack: ``(damage, models removed, wounds on the next model, morale due, morale test passed)``.

    ``start``: ``(models removed, wounds on the next, wounds taken)`` before the attack (a melee's later
    strikes); ``impact_cut``: Impact dice fewer (Counter).
    """
    models = _models(defender)
    m = len(models)
    # each model's own rules, as "a unit of 1" (Takedown, Sniper): Regeneration's roll, Shielded
    own_regen = min(_regen(defender.rules, defender.effects).values(), default=0)
    own = [(own_regen, _has(defender.rules, "Shielded"))] * defender.models
    if defender.hero is not None:
        hero_regen = min(_regen(defender.hero.rules, defender.hero.effects).values(), default=0)
        own.append((hero_regen, _has(defender.hero.rules, "Shielded")))
    # snipe: the model a Takedown/Sniper group picked (None: no such group being resolved)
    state = {"i": start[0], "w": start[1], "dealt": start[2], "snipe": None, "block": False}
    # Takedown/Sniper picking the joined hero (snipe="hero"): its wounds while the unit's models stand
    state.update(hw=0, hero_dead=False)
    hero_at = m - 1  # the hero is the last model in line

    def d6():
        return rng.randint(1, 6)

    def wound(deadly, ignores_regen):
        """One wound on the model next in line: Regeneration's roll, then Deadly's X on that model."""
        if state["snipe"] == "hero":  # the picked hero as a unit of 1: its own Regeneration, no carry-over
            if state["hero_dead"]:
                return
            tough = models[hero_at][0]
            regen = own[hero_at][0]
            if regen and not ignores_regen and d6() >= regen:
                return
            taken = min(deadly, tough - state["hw"])
            state["hw"] += taken
            state["dealt"] += taken
            state["hero_dead"] = state["hw"] >= tough
            return
        if state["i"] >= m or state["snipe"] not in (None, state["i"]):
            return  # Takedown/Sniper: the picked model killed, nothing carries over
        tough, _, regen, _ = models[state["i"]]
        if state["snipe"] is not None or state["hero_dead"]:  # a unit of 1, or the unit without its hero
            regen = own[state["i"]][0]
        if regen and not ignores_regen and d6() >= regen:  # Regeneration: "On a 5+ it is ignored" (Self-Repair: 6+)
            return
        taken = min(deadly, tough - state["w"])  # Deadly: no carry-over to the next model
        state["w"] += taken
        state["dealt"] += taken
        if state["w"] >= tough:
            state["i"] += 1
            state["w"] = 0
            if defender.hero is not None and state["i"] == hero_at:  # the hero next: as the snipes left it
                if state["hero_dead"]:
                    state["i"] = m
                else:
                    state["w"] = state["hw"]

    def hit(ap, poison, cover, deadly, ignores_regen, shred=False):
        at_hero = state["snipe"] == "hero"
        if at_hero and state["hero_dead"]:
            return
        if not at_hero and (state["i"] >= m or state["snipe"] not in (None, state["i"])):
            return
        # the Defense of the model next in line; a joined hero "must use the unit's Defense until all other
        # models have been killed": while they stand when the group starts, the unit's (state["block"])
        blocker = models[hero_at] if at_hero else models[0] if state["block"] else models[state["i"]]
        defense = blocker[1]
        shielded = 1 if blocker[3] else 0  # Shielded: "+1 to defense rolls", all models left
        if state["snipe"] is not None or state["hero_dead"]:  # a unit of 1, or the unit without its hero
            shielded = 1 if own[hero_at if at_hero else state["i"]][1] else 0
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
        hero_joined = defender.hero is not None
        state["block"] = hero_joined and state["i"] < m - 1
        if _has(rules, "Impact") and attacker.charging and not attacker.fatigued:
            dice = group.models * _rating(rules, "Impact")
            cut = min(impact_cut, dice)  # Counter: "-1 total Impact rolls per model with Counter"
            impact_cut -= cut
            for _ in range(dice - cut):
                if d6() >= 2:  # "For each 2+ the target takes one hit"
                    hit(0, False, 0, 1, False)
        # "pick any model in the target unit as its individual target, which is resolved as if it was a unit
        # of 1": the model next in line (a model of the unit), its own Defense and rules
        state["snipe"] = state["i"] if snipes(rules) else None
        if snipes(rules) and attacker.snipe == "hero" and hero_joined:  # "pick any model": the hero
            state["snipe"] = "hero"
        state["block"] = hero_joined and state["i"] < m - 1 and state["snipe"] is None
        modifiers = [attacker.hit_modifier, *attacker.hit_modifiers]
        if _has(rules, "Indirect") and attacker.moved:
            modifiers.append(-1)
        far = attacker.distance is not None and attacker.distance > 9
        target = defender
        if state["snipe"] == "hero":  # the target's rules: the hero's, as a unit of 1
            h = defender.hero
            target = Defender(1, h.defense, h.tough, rules=h.rules, moved=defender.moved)
        elif state["snipe"] is not None:  # the target's rules: those of a unit of 1 model of the unit
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
        bonus, less = _ap_change(weapon, attacker, defender)  # hits "to a min. of AP(0)"
        ap, ap_six = max(0, ap + bonus - less), max(0, ap_six + bonus - less)
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
            group_quality = attacker.quality if group.quality is None else group.quality  # a joined hero's
            quality = 2 if _has(rules, "Reliable") or _has(rules, "Sniper") else group_quality
            hits = roll == 6 or (roll != 1 and roll + modifier >= quality)
            if attacker.fatigued and weapon.melee:  # Fatigue: "only hit on unmodified rolls of 6 in melee"
                hits = roll == 6
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
    if state["hero_dead"] and i < m:
        i += 1  # the hero, removed first, counts among the models removed
    hero_wounds = models[hero_at][0] if i >= m or state["hero_dead"] else (w if i == hero_at else state["hw"])
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
        if state["hero_dead"]:  # the unit alone: its own Quality and rules
            quality, fearless = defender.quality, defender.fearless
        elif i < defender.models:  # unit models left: the hero tests on their behalf, the better Quality
            quality = defender.quality if hero is None or hero.quality is None else min(defender.quality, hero.quality)
            fearless = defender.fearless and (hero is None or hero.fearless)  # "all models have this rule"
        else:  # the hero alone
            assert hero is not None
            quality = defender.quality if hero.quality is None else hero.quality
            fearless = hero.fearless
        roll = d6()
        bonus = _test_bonus(replace(defender, hero=None) if state["hero_dead"] else defender, i < defender.models)
        passed = roll != 1 and (roll == 6 or roll + bonus >= quality)  # "one regular Quality test"
        if not passed and fearless:
            passed = d6() >= 4  # Fearless: "roll one die. On a 4+ it counts as passed instead."
    return state["dealt"], i, w, due, passed, hero_wounds


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
    for _ in range(trials):
        d, i, w, u, ok, hw = one_attack(attacker, defender, rng)
        damage[d] += 1
        destroyed[i] += 1
        marker[w] += 1
        due[int(u)] += 1
        passed[int(u and ok)] += 1
        shaken[int(u and not ok)] += 1
        routed[0] += 1
        # the hero is the last model in line: its wounds, counted on the model itself
        if defender.hero is not None:
            hero[hw] += 1
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


def _unit_left(fighter, i):
    """(unit models left, hero left) of a side with ``i`` models removed (the hero last)."""
    d = fighter.defender
    return max(0, d.models - i), int(d.hero is not None and i < d.models + 1)


def _striking(fighter, i, charging, counter):
    """The Attackers of a side's models left: its weapons with (``counter``) or without Counter."""
    from mathhammer.grimdark.model import WeaponGroup

    unit_left, hero_left = _unit_left(fighter, i)
    out = []
    for groups, quality, left, scaled, rules in (
        (fighter.groups, fighter.quality, unit_left, True, fighter.rules),
        (fighter.hero_groups, fighter.hero_quality or fighter.quality, hero_left, False, fighter.hero_rules),
    ):
        if not charging:  # Versatile Attack: "When this unit is activated": not when striking back
            rules = tuple(r for r in rules if r.name != "Versatile Attack")
        for g in groups:
            if left and (counter is None or _has(g.weapon.rules, "Counter") == counter):
                one = WeaponGroup(min(g.models, left) if scaled else 1, g.weapon)
                out.append(
                    Attacker(
                        (one,), quality, charging=charging, fatigued=fighter.fatigued, rules=rules,
                        versatile=fighter.versatile if charging else None, hit_modifiers=fighter.hit_modifiers,
                        snipe=fighter.snipe,
                    )
                )  # fmt: skip
    # Takedown: "must be resolved before other weapons"; Deadly(X): "Hits from Deadly must be resolved first"
    # - across the unit's and the hero's weapons
    return sorted(
        out,
        key=lambda a: (
            not (_has(a.groups[0].weapon.rules, "Takedown") or _has(a.groups[0].weapon.rules, "Sniper")),
            not _has(a.groups[0].weapon.rules, "Deadly"),
        ),
    )


def _morale(fighter, i, w, rng):
    """The loser's test ([BG 3.4.1] Morale from Melee): "passed", "shaken" or "routed"."""
    d = fighter.defender
    hero = d.hero
    models = _models(d)
    m = len(models)
    if i < d.models:
        quality = d.quality if hero is None or hero.quality is None else min(d.quality, hero.quality)
        fearless = d.fearless and (hero is None or hero.fearless)
    else:
        quality = d.quality if hero.quality is None else hero.quality
        fearless = hero.fearless
    roll = rng.randint(1, 6)
    if roll != 1 and (roll == 6 or roll + _test_bonus(d, i < d.models) >= quality):
        return "passed"
    if fearless and rng.randint(1, 6) >= 4:
        return "passed"
    start = d.starting_models + (1 if hero is not None else 0)
    single = hero is None and d.starting_models == 1 and d.tough > 1
    half = 2 * (d.tough - w) <= d.tough if single else 2 * (m - i) <= start
    return "routed" if half else "shaken"


def one_melee(melee, rng: random.Random):
    """One melee both ways, from the model values: ``(charger (i, w, wounds taken), target (i, w, wounds
    taken), result for the charger, target's test, charger's test)``."""
    charger, target = melee.charger, melee.target
    mc, mt = len(_models(charger.defender)), len(_models(target.defender))
    c = (0, 0, 0)
    for a in _striking(target, 0, False, True):  # Counter: "Strikes first with this weapon when charged"
        dealt, i, w, *_ = one_attack(a, charger.defender, rng, start=c)
        c = (i, w, dealt)
    counter = sum(g.models for g in target.groups if _has(g.weapon.rules, "Counter"))
    cut = min(counter, target.defender.models) + sum(1 for g in target.hero_groups if _has(g.weapon.rules, "Counter"))
    t = (0, 0, 0)
    for a in _striking(charger, c[0], True, None):
        dealt, i, w, *_ = one_attack(a, target.defender, rng, start=t, impact_cut=cut)
        if _has(a.groups[0].weapon.rules, "Impact") and a.charging and not a.fatigued:
            cut = max(0, cut - a.groups[0].models * _rating(a.groups[0].weapon.rules, "Impact"))
        t = (i, w, dealt)
    for a in _striking(target, t[0], False, False):
        dealt, i, w, *_ = one_attack(a, charger.defender, rng, start=c)
        c = (i, w, dealt)

    def fear(f, i):
        unit_left, hero_left = _unit_left(f, i)
        return unit_left * f.fear + hero_left * f.hero_fear

    if t[0] >= mt:
        result = "won"
    elif c[0] >= mc:
        result = "lost"
    else:
        by_c, by_t = t[2] + fear(charger, c[0]), c[2] + fear(target, t[0])
        result = "won" if by_c > by_t else "lost" if by_c < by_t else "drawn"
    t_test = _morale(target, t[0], t[1], rng) if result == "won" and t[0] < mt else None
    c_test = _morale(charger, c[0], c[1], rng) if result == "lost" and c[0] < mc else None
    return c, t, result, t_test, c_test
