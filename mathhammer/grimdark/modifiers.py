"""The rule modifiers of one Grimdark Future weapon: its hit modifiers, kept apart, and its AP bonus.

Each effect is one entry of a list (:func:`hit_modifiers`), so that Lock-On and
Unstoppable drop only the negative ones; the total is capped at +1/-1 later
(:func:`~mathhammer.grimdark.compiled.hit_mask`). The wordings and the sources
are quoted in :mod:`mathhammer.grimdark.compiled`.

>>> from .model import Attacker, Defender, Weapon, WeaponGroup
>>> rifle = Weapon("Rifle", rules=("Lock-On",))
>>> attacker = Attacker((WeaponGroup(1, rifle),), hit_modifiers=(1, -1), distance=12)
>>> hit_modifiers(attacker, rifle, Defender(5, rules=("Stealth",)), [])   # Stealth's -1 dropped too
[1]
"""

from __future__ import annotations

from .model import Attacker, Defender, Weapon
from .rules import has

#: Stealth, Artillery, Entrenched: "over 9\"".
FAR_DISTANCE = 9.0

#: Slayer: "against units where most models have Tough(3) or higher".
SLAYER_TOUGH = 3


def all_models(defender: Defender, name: str) -> bool:
    """True when every model of the target unit has unit rule ``name``: the unit and, with a joined hero,
    the hero too ("units where all models have this rule")."""
    return has(defender.rules, name) and (defender.hero is None or has(defender.hero.rules, name))


def _far(attacker: Attacker, label: str, rule: str, warnings: list[str]) -> bool:
    """True when the target is over 9" away; an unknown distance counts as not, with a warning."""
    if attacker.distance is None:
        warnings.append(f"{label}: {rule} needs the distance; not applied")
        return False
    return attacker.distance > FAR_DISTANCE


def charge_bonus(attacker: Attacker, weapon: Weapon, warnings: list[str]) -> int:
    """1 when Thrust or Lance applies: "When charging, gets +1 to hit rolls and AP(+1) in melee"."""
    rules = [r.name for r in weapon.rules if r.name in ("Thrust", "Lance")]
    if not rules:
        return 0
    if weapon.melee and attacker.charging:
        return 1
    warnings.append(f"{weapon.name}: {rules[0]} applies only when charging, in melee")
    return 0


def hit_modifiers(attacker: Attacker, weapon: Weapon, defender: Defender, warnings: list[str]) -> list[int]:
    """The modifiers to hit of ``weapon``'s rolls, one entry per effect, after Lock-On/Unstoppable.

    The target's rules are read from the unit at the start of the attack (all of its models, the joined
    hero included): the hit rolls of a weapon are one roll of the whole unit.
    """
    rules = weapon.rules
    label = weapon.name
    mods = ([attacker.hit_modifier] if attacker.hit_modifier else []) + list(attacker.hit_modifiers)
    if has(rules, "Indirect") and attacker.moved:
        mods.append(-1)  # Indirect: "Gets -1 to hit rolls when shooting after moving."
    if not weapon.melee:
        if has(attacker.rules, "Artillery") and _far(attacker, label, "Artillery", warnings):
            mods.append(1)  # Artillery: "When this model shoots at enemies over 9\" away, it gets +1"
        if all_models(defender, "Stealth") and _far(attacker, label, "Stealth (of the target)", warnings):
            mods.append(-1)  # Stealth: "shot from over 9\" away, enemy units get -1 to hit rolls"
        if all_models(defender, "Artillery") and _far(attacker, label, "Artillery (of the target)", warnings):
            mods.append(-2)  # Artillery: "shoot at this model from over 9\" away, they get -2 to hit rolls"
        entrenched = all_models(defender, "Entrenched") and not defender.moved
        if entrenched and _far(attacker, label, "Entrenched (of the target)", warnings):
            mods.append(-2)  # Entrenched: "hasn't moved during the round ... over 9\" ... -2 to hit rolls"
    if charge_bonus(attacker, weapon, warnings):
        mods.append(1)
    if attacker.versatile == "hit":
        mods.append(1)  # Versatile Attack: "get +1 to hit rolls when attacking"
    if has(rules, "Lock-On") or has(rules, "Unstoppable"):
        # Lock-On: "Ignores cover and all negative modifiers to hit rolls"; Unstoppable: "ignores all
        # negative modifiers to this weapon"
        mods = [m for m in mods if m > 0]
    if has(rules, "Precise"):
        mods.append(1)  # Precise [3.5 AF]: "Gets +1 to hit when attacking." (capped in hit_mask)
    return mods


def most_tough(defender: Defender, tough: int = SLAYER_TOUGH) -> bool:
    """True when most models of the target (more than half, the joined hero counted) have Tough(``tough``)
    or higher.

    >>> from .model import Hero
    >>> most_tough(Defender(1, tough=3)), most_tough(Defender(1, tough=1, hero=Hero(3)))
    (True, False)
    """
    hero = defender.hero
    tough_models = (defender.models if defender.tough >= tough else 0) + int(hero is not None and hero.tough >= tough)
    return 2 * tough_models > defender.models + (hero is not None)


def ap_bonus(attacker: Attacker, weapon: Weapon, defender: Defender) -> int:
    """AP(+X) the attack adds to every hit of ``weapon``: Thrust/Lance when charging in melee, Versatile
    Attack's AP(+1), Slayer's AP(+2) against a target where most models have Tough(3) or higher."""
    bonus = charge_bonus(attacker, weapon, [])
    if attacker.versatile == "ap":
        bonus += 1  # Versatile Attack: "get AP(+1) when attacking"
    if has(attacker.rules, "Slayer") and most_tough(defender):
        bonus += 2  # Slayer: "This model's weapons get AP(+2) against units where most models have Tough(3) or higher."
    return bonus
