"""Loadouts: a unit card + composition + upgrades + abilities, as Batches and targets (9.1.7).

- A purchased upgrade applies to every model unless it is SPECIALIST; "↑ FOR
  [Weapon]" replaces the named weapon on every model carrying it (9.1.7).
- A SPECIALIST upgrade goes to one nominated model; it resolves its attacks as
  a separate Batch (9.1.7, 8.7.3). Each SPECIALIST upgrade has its own model.
- Each model fires one of its weapons, plus every SIDEARM it carries in
  Batches of their own (part 11 SIDEARM). This module's choice of the one
  weapon: an upgrade's weapon before the card's, and only weapons whose
  Target characteristic allows the target (8.7.3 step 1).
- Passive abilities always act; active and reaction abilities only when the
  query switches them on (``use``). Their machine-readable effects
  (docs/profiles.md) change keywords, S Dice, Evade eligibility and target
  keywords; conditional ones (``within`` inches, On Creep) need the query's
  distance and state.
- Casualties from a unit with SPECIALIST models: the defender removes the
  plain models first (the default removal order keeps specialists last).

>>> from mathhammer.starcraft.roster import load_roster
>>> roster = load_roster()
>>> lo = make_loadout(roster.unit("Marine"), 6, upgrades=["AGG-12"])
>>> [(b.weapon.name, b.models) for b in attack_batches(lo, roster.unit("Roach"), "assault")]
[('C-14 Rifle', 5), ('AGG-12', 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .keywords import parse_keyword
from .model import Batch, Target, Weapon
from .roster import Unit

if TYPE_CHECKING:  # pragma: no cover - the cards are the schema's or their plain copies (starcraft.cards)
    from .schema import Ability, Effect, Upgrade, WeaponProfile

PHASES = ("assault", "combat")


@dataclass(frozen=True, repr=False)
class Loadout:
    """A unit as bought and as played: composition, upgrades, switched-on abilities."""

    unit: Unit
    models: int
    upgrades: tuple[Upgrade, ...] = ()
    use: tuple[str, ...] = ()
    minerals: int = 0

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def label(self) -> str:
        extras = [u.name for u in self.upgrades] + [f"use {a}" for a in self.use]
        return f"{self.models} {self.name}" + (f" ({', '.join(extras)})" if extras else "")

    def __repr__(self) -> str:
        return f"<Loadout {self.label}, {self.minerals} minerals>"

    def describe(self) -> dict[str, Any]:
        return {
            "unit": self.name,
            "models": self.models,
            "upgrades": [u.name for u in self.upgrades],
            "use": list(self.use),
            "minerals": self.minerals,
            "source": self.unit.source,
        }

    def abilities(self) -> list[Ability]:
        """Abilities acting now: every passive one, and the active/reaction ones switched on."""
        pool = list(self.unit.card.abilities) + [a for u in self.upgrades for a in u.abilities]
        chosen = {a.lower() for a in self.use}
        return [a for a in pool if a.type == "passive" or a.name.lower() in chosen]

    def effects(self) -> list[Effect]:
        return [e for a in self.abilities() for e in a.effects]


def make_loadout(
    unit: Unit,
    models: int | None = None,
    upgrades: Sequence[str] = (),
    use: Sequence[str] = (),
    flags: tuple[str, str, str] = ("--comp", "--upgrade", "--use"),
) -> Loadout:
    """Validate a loadout: a composition of the card, upgrades of the card, abilities of the unit.

    Args:
        unit: the unit card.
        models: the composition bought (its number of models); None: the smallest.
        upgrades: upgrade names as on the card.
        use: active or reaction abilities switched on (e.g. ``"Stimpack"``).
        flags: the names of the composition, upgrade and ability flags, for
            error messages (``("--attacker-comp", "--upgrade", "--use")``).
    """
    card = unit.card
    sizes = sorted(c.models for c in card.compositions)
    comp_flag, upgrade_flag, use_flag = flags
    if models is None:
        models = sizes[0]
    if models not in sizes:
        raise InputError(comp_flag, models, f"a composition of {unit.name}: {', '.join(map(str, sizes))} models")
    chosen: list[Upgrade] = []
    names = [u.name for u in card.upgrades]
    for name in upgrades:
        match = [u for u in card.upgrades if u.name.lower() == name.strip().lower()]
        if not match:
            import difflib

            close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
            allowed = f"an upgrade of {unit.name}: {', '.join(names) or 'none'}"
            raise InputError(upgrade_flag, name, allowed, f"did you mean {close[0]!r}?" if close else "")
        if match[0] in chosen:
            raise InputError(upgrade_flag, name, "each upgrade once (9.1.7: a different entry each)")
        chosen.append(match[0])
    specialists = [u for u in chosen if u.specialist]
    if len(specialists) > models:
        raise InputError(upgrade_flag, ", ".join(u.name for u in specialists), f"at most {models} SPECIALIST upgrades")
    abilities = [a.name for a in card.abilities] + [a.name for u in chosen for a in u.abilities]
    for name in use:
        if name.strip().lower() not in {a.lower() for a in abilities}:
            import difflib

            close = difflib.get_close_matches(name, abilities, n=1, cutoff=0.5)
            raise InputError(
                use_flag,
                name,
                f"an ability of this loadout: {', '.join(abilities) or 'none'}",
                f"did you mean {close[0]!r}?" if close else "",
            )
    comp = next(c for c in card.compositions if c.models == models)
    minerals = comp.minerals + sum(u.cost.get(str(models), 0) for u in chosen)
    return Loadout(unit, models, tuple(chosen), tuple(use), minerals)


@dataclass(eq=False)
class _ModelKit:
    """The weapons of one model, in the phase asked for."""

    weapons: list[WeaponProfile] = field(default_factory=list)
    upgraded: set[str] = field(default_factory=set)


def _kits(lo: Loadout, phase: str, alive: int) -> list[_ModelKit]:
    base = [w for w in lo.unit.card.weapons if w.phase == phase]
    for up in lo.upgrades:
        if up.specialist:
            continue
        if up.replaces:
            base = [w for w in base if w.name != up.replaces]
        base += [w for w in up.weapons if w.phase == phase]
    kits = []
    for up in [u for u in lo.upgrades if u.specialist][:alive]:
        kit = _ModelKit([w for w in base if w.name != up.replaces])
        gained = [w for w in up.weapons if w.phase == phase]
        kit.weapons += gained
        kit.upgraded = {w.name for w in gained}
        kits.append(kit)
    while len(kits) < alive:
        kits.append(_ModelKit(list(base), {w.name for u in lo.upgrades if not u.specialist for w in u.weapons}))
    return kits


def _can_target(w: WeaponProfile, tags: Sequence[str]) -> bool:
    if w.target == "All":
        return True
    return w.target in tags


def _is_sidearm(w: WeaponProfile) -> bool:
    return any(k.strip().upper() == "SIDEARM" for k in w.keywords)


def _applies(e: Effect, distance: float | None, target_tags: Sequence[str], on_creep: bool, size: int = 0) -> bool:
    # a ``select`` effect's ``within`` is the range the unit was selected in (the query's target is taken to be the
    # selected one: Target Lock), not the attack's distance
    if e.within is not None and not e.select and (distance is None or distance > e.within):
        return False
    if e.select == "friendly":  # for another Friendly Unit the ability selects (Orders), never this one's attack
        return False
    if e.vs_tags and not set(e.vs_tags) & set(target_tags):
        return False
    if e.min_size and size < e.min_size:  # Titan Killers: "the target is Size 3 or larger"
        return False
    return not (e.on_creep and not on_creep)


def _matches(e: Effect, w: WeaponProfile) -> bool:
    for name in e.weapons:
        key = name.strip().lower()
        if key == "*all" or key == f"*{w.phase}" or key == w.name.lower():
            return True
    return False


#: Weapons built by :func:`_to_weapon`, by the identity of the (immutable) profile and the effects that touch it,
#: with those objects kept (so an identity is never another's): ``compare`` builds the same weapon for many loadouts.
_WEAPONS: dict[tuple[int, ...], tuple[WeaponProfile, tuple[Effect, ...], Weapon]] = {}
_WEAPONS_MAX = 1024


def _to_weapon(w: WeaponProfile, effects: Sequence[Effect]) -> Weapon:
    relevant = tuple(e for e in effects if _matches(e, w))
    key = (id(w), *map(id, relevant))
    kept = _WEAPONS.get(key)
    if kept is not None and kept[0] is w and all(a is b for a, b in zip(kept[1], relevant, strict=True)):
        return kept[2]
    weapon = _build_weapon(w, relevant)
    if len(_WEAPONS) >= _WEAPONS_MAX:
        _WEAPONS.clear()
    _WEAPONS[key] = (w, relevant, weapon)
    return weapon


def _build_weapon(w: WeaponProfile, effects: Sequence[Effect]) -> Weapon:
    keywords = list(w.keywords)
    damage = w.damage
    s_dice = w.s_dice
    surge_types = list(w.surge_types)
    for e in effects:
        if not _matches(e, w):
            continue
        if e.kind == "weapon_keyword":
            keywords.append(e.keyword)
        elif e.kind == "weapon_drop":  # "That Unit cannot benefit from LONG RANGE" (Optical Flare)
            keywords = [k for k in keywords if parse_keyword(k, "weapon").name != e.keyword]
        elif e.kind == "weapon_s_dice":
            s_dice = e.s_dice
        elif e.kind == "weapon_damage":  # "the weapon's Damage characteristic is treated as 2"
            damage = e.value
        elif e.kind == "weapon_surge":
            surge_types = list(dict.fromkeys(surge_types + list(e.surge_types)))
            s_dice = e.s_dice
    surge = f"{','.join(surge_types)}:{s_dice}" if surge_types and s_dice else None
    return Weapon.build(
        w.name,
        roa=w.roa,
        hit=w.hit,
        damage=damage,
        range=None if w.range == "E" else float(w.range),
        surge=surge,
        keywords=keywords,
    )


def attack_batches(
    lo: Loadout,
    target: Unit,
    phase: str,
    distance: float | None = None,
    alive: int | None = None,
    on_creep: bool = False,
    first: str | None = None,
) -> list[Batch]:
    """The Batches ``lo`` makes against ``target`` in ``phase`` (8.7.3, 8.8.1, 9.1.7).

    Args:
        lo: the attacking loadout.
        target: the target unit card (for its Combat Tags).
        phase: ``"assault"`` (Ranged Attacks) or ``"combat"`` (Close Combat).
        distance: inches between the units (range, LONG RANGE, BURST FIRE and
            ``within`` effects); None: in range, beyond every ``within``.
        alive: attacking models left (None: the whole composition).
        on_creep: the attacker is On Creep.
        first: the weapon the unit uses first in this attack (a ``first_weapon`` effect, "first Ranged Weapon
            used", goes to it where it names it); None: the first weapon in Batch order it names.
    """
    if phase not in PHASES:
        raise InputError("--phase", phase, "assault or combat")
    alive = lo.models if alive is None else alive
    tags = target.card.combat_tags
    size = 0 if target.card.size == "-" else int(target.card.size)
    effects = [e for e in lo.effects() if _applies(e, distance, tags, on_creep, size)]
    counts: dict[str, int] = {}
    profiles: dict[str, WeaponProfile] = {}
    for kit in _kits(lo, phase, alive):
        usable = [w for w in kit.weapons if _can_target(w, tags)]
        main = [w for w in usable if not _is_sidearm(w)]
        main.sort(key=lambda w: w.name not in kit.upgraded)  # an upgrade's weapon first
        fired = main[:1] + [w for w in usable if _is_sidearm(w)]
        for w in fired:
            counts[w.name] = counts.get(w.name, 0) + 1
            profiles[w.name] = w
    # Batch order (8.7.3: the player's choice): the card's weapons in card order, then the
    # upgrades' weapons in upgrade order; SIDEARMs after the weapon they accompany.
    order = [w.name for w in lo.unit.card.weapons] + [w.name for u in lo.upgrades for w in u.weapons]
    ranked = sorted(counts, key=lambda n: (_is_sidearm(profiles[n]), order.index(n) if n in order else len(order)))
    batches = []
    for e in effects:
        if e.kind == "hits":
            batches.append(Batch.hits(e.value, e.damage, name=f"{lo.name}: HITS {e.value} ({e.damage})"))
    # "The active Unit's first Ranged Weapon used gains ...": each such effect goes to one weapon only
    plain = [e for e in effects if not e.first_weapon]
    owner: dict[int, str] = {}
    for i, e in enumerate(effects):
        if e.first_weapon:
            pick = [first] if first is not None else ranked
            hit = next((n for n in pick if n in profiles and _matches(e, profiles[n])), None)
            if hit is not None:
                owner[i] = hit
    for name in ranked:
        n = counts[name]
        weapon = _to_weapon(profiles[name], plain + [e for i, e in enumerate(effects) if owner.get(i) == name])
        batches.append(Batch.at(weapon, n, distance if weapon.range is not None else None, name=name))
    return batches


def indomitable(lo: Loadout) -> bool:
    """The unit has Indomitable (an ``engaged_targeting`` effect): the board facts lift 8.7.3's Engaged refusals
    for its attacks and the attacks at it (:func:`mathhammer.board.facts.attack_facts`)."""
    return any(e.kind == "engaged_targeting" for e in lo.effects())


def as_target(
    lo: Loadout,
    phase: str,
    alive: int | None = None,
    marker: int = 0,
    evade_eligible: bool = False,
    stationary: bool = False,
    shielded: bool | None = None,
    visible: int | None = None,
    on_creep: bool = False,
) -> Target:
    """``lo`` as the target of an attack in ``phase`` (its keywords and Evade eligibility from effects; an ``on_creep``
    effect only where the unit is ON CREEP: Lurking's BUFF Evade)."""
    card = lo.unit.card
    alive = lo.models if alive is None else alive
    against = "ranged" if phase == "assault" else "close"
    keywords: list[str] = []
    for e in lo.effects():
        # (a target effect's ``within`` names the Friendly Units within that distance it may be for: this one too)
        if (
            e.against not in (against, "all")
            or (e.within is not None and e.kind not in ("unit_keyword", "evade_eligible"))
            or (e.on_creep and not on_creep)
        ):
            continue
        if e.kind == "unit_keyword":
            keywords.append(e.keyword)
        elif e.kind == "evade_eligible":
            evade_eligible = True
    no_evade = card.evade == "-"  # no Evade characteristic: never an Evade Roll
    stats = {k: getattr(card, k) for k in ("hp", "shield", "armour")}
    stats["evade"] = 6 if no_evade else card.evade
    for up in lo.upgrades:
        for k, delta in up.stats.items():
            if k in stats:
                stats[k] += delta
    for kw in keywords:
        parse_keyword(kw, "target", "target keyword")
    return Target.build(
        alive,
        stats["hp"],
        armour=stats["armour"],
        evade=stats["evade"],
        shield=stats["shield"],
        tags=card.combat_tags,
        keywords=keywords,
        marker=marker,
        shielded=shielded,
        visible=visible,
        evade_eligible=evade_eligible and not no_evade,
        stationary=stationary,
        name=lo.label,
    )
