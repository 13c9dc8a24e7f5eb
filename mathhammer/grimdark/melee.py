"""A Grimdark Future melee resolved both ways: the charge, the strikes back, the melee result and morale.

The core rules' melee, as both engines follow it (:mod:`mathhammer.grimdark.melee_exact`,
:mod:`mathhammer.grimdark.melee_engine`; naive reference ``tests/grimdark_naive.py``):

1. **Counter** (GF v3.5 common rules): "Strikes first with this weapon when charged, and the
   charging unit gets -1 total Impact rolls per model with Counter." The target's Counter weapons
   strike the charger first, with all its models; the charger's Impact dice are reduced by one per
   target model carrying a Counter weapon (at most its Impact dice).
2. **The charge** ([BG 3.4.1] Melee): the charger's models left strike with all their melee weapons;
   Impact(X) ("Roll X dice when attacking after charging, unless fatigued. For each 2+ the target
   takes one hit"), Furious, Thrust and Lance apply (charging).
3. **Striking back** ([BG 3.4.1] Striking Back): "Once all charging models have attacked, the
   defending unit may choose to strike back"; here it always does, with its models left and its
   weapons other than Counter ones (those struck first).
4. **Fatigue** ([BG 3.4.1] Fatigue): "After attacking in melee for the first time during a round,
   either by charging or by striking back, units only hit on unmodified rolls of 6 in melee until
   the end of that round." A side already fatigued (it fought a melee earlier in the round:
   :attr:`Fighter.fatigued`) hits only on unmodified 6s, and its Impact is lost. Reading chosen:
   the target's Counter strikes and its strikes back are one attack, so striking first with Counter
   does not fatigue its other weapons.
5. **The melee result** ([BG 3.4.1] Melee Winner, Morale from Melee): "Sum the total number of
   wounds that each unit caused, and compare the two. If one unit caused more wounds than the other,
   then it counts as the winner, and the opposing unit must take a morale test ... If the units are
   tied ... neither unit must take a morale test." "units that are destroyed in melee always count as
   having lost, and their opponent doesn't have to take a morale test". **Fear(X)** (GF v3.5 common
   rules): "This model counts as having dealt +X wounds when checking who won melee" - X per model
   with Fear still in the unit when the winner is checked.
6. **The loser's morale test** ([BG 3.4.1] Morale from Melee; the same words in the v3.5.1 core
   rules): one Quality test (the hero's Quality when better, Fearless as in
   :func:`~mathhammer.grimdark.morale.morale_pass_probability`); "If the test is failed, and the
   unit still has over half ... of its starting size or tough value ... Shaken"; "half or less ...
   Routs". Only the loser tests, whatever its casualties.

Which models strike: a weapon carried by ``count`` models is used by ``min(count, models left)``
(special weapons lost last, as :func:`~mathhammer.grimdark.profiles.unit_attacker`); a joined hero
strikes with its own weapons at its own Quality while it stands, and it is wounded last.

>>> from .model import Weapon, WeaponGroup
>>> claws = (WeaponGroup(5, Weapon("Claws", attacks=2, melee=True)),)
>>> m = Melee(Fighter(claws, 4, Defender(5)), Fighter(claws, 4, Defender(5)))
>>> m.charger.side_models
5
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import InputError
from ..validate import target_number, whole
from .compiled import CompiledGroup, CompiledTarget, compile_attack, compile_target
from .exact import versatile_choice
from .model import Attacker, Defender, WeaponGroup
from .rules import Rule, has, rating


@dataclass(frozen=True)
class Fighter:
    """One unit in a melee: how it strikes and how it takes hits.

    Attributes:
        groups: the melee weapons of the unit's models, each group with the models carrying it at
            full strength (an ``Impact`` group of ``Impact(X)`` dice per model as
            :func:`~mathhammer.grimdark.profiles.unit_attacker` writes it).
        quality: the unit's Quality (its hit rolls).
        defender: the unit as a target: models left at the start, Defense, Tough, starting size,
            morale Quality, Fearless, a joined hero (:class:`~mathhammer.grimdark.model.Hero`).
        hero_groups: the joined hero's melee weapons (one model each); they strike while it stands.
        hero_quality: the hero's Quality for its hit rolls (None: the unit's).
        fear: X of Fear(X) of each of the unit's models.
        hero_fear: X of the hero's Fear(X).
        fatigued: the unit already fought a melee this round (hits only on unmodified 6s, no Impact).
        rules: the unit's rules that change its attacks (Versatile Attack, Slayer; as
            :attr:`~mathhammer.grimdark.model.Attacker.rules`).
        hero_rules: the hero's.
        versatile: Versatile Attack's pick (``"ap"``, ``"hit"``); None: the one with more expected wounds
            against the opponent at the start of the melee (:func:`~mathhammer.grimdark.exact.versatile_choice`).
        hit_modifiers: other modifiers to its hit rolls, one entry per effect (as the Attacker's).
        snipe: Takedown's individual target (as :attr:`~mathhammer.grimdark.model.Attacker.snipe`).
    """

    groups: tuple[WeaponGroup, ...]
    quality: int
    defender: Defender
    hero_groups: tuple[WeaponGroup, ...] = ()
    hero_quality: int | None = None
    fear: int = 0
    hero_fear: int = 0
    fatigued: bool = False
    rules: tuple[Rule, ...] = ()
    hero_rules: tuple[Rule, ...] = ()
    versatile: str | None = None
    hit_modifiers: tuple[int, ...] = ()
    snipe: str | None = None

    def __post_init__(self) -> None:
        for name in ("groups", "hero_groups"):
            groups = tuple(getattr(self, name))
            if not all(isinstance(g, WeaponGroup) and g.weapon.melee for g in groups):
                raise InputError(name, getattr(self, name), "WeaponGroups of melee weapons (melee=True)")
            object.__setattr__(self, name, groups)
        object.__setattr__(self, "quality", target_number("quality", self.quality, "Quality"))
        if self.hero_quality is not None:
            object.__setattr__(self, "hero_quality", target_number("hero_quality", self.hero_quality, "Quality"))
        if not isinstance(self.defender, Defender):
            raise InputError("defender", self.defender, "a Defender (the unit as a target)")
        if self.defender.cover:
            raise InputError("defender.cover", True, "False (cover counts against shooting, not in melee)")
        if self.hero_groups and self.defender.hero is None:
            raise InputError("hero_groups", self.hero_groups, "none without a hero joined to the defender")
        object.__setattr__(self, "fear", whole("fear", self.fear, 0, 99, "X of Fear(X)"))
        object.__setattr__(self, "hero_fear", whole("hero_fear", self.hero_fear, 0, 99, "X of the hero's Fear(X)"))
        if not isinstance(self.fatigued, bool):
            raise InputError("fatigued", self.fatigued, "True or False")

    def attacker(
        self, groups: tuple[WeaponGroup, ...], quality: int, rules: tuple[Rule, ...], charging: bool
    ) -> Attacker:
        """An Attacker of some of its weapons, with its situation (fatigue, modifiers, picks)."""
        return Attacker(
            groups, quality=quality, charging=charging, fatigued=self.fatigued, rules=rules,
            versatile=self.versatile, hit_modifiers=self.hit_modifiers, snipe=self.snipe,
        )  # fmt: skip

    @property
    def side_models(self) -> int:
        """Models at the start of the melee, a joined hero counted."""
        return self.defender.models + (1 if self.defender.hero is not None else 0)

    def counter_models(self) -> int:
        """Models carrying a Counter weapon (at full strength, at most the unit's models)."""
        n = sum(g.models for g in self.groups if has(g.weapon.rules, "Counter"))
        n = min(n, self.defender.models) + sum(1 for g in self.hero_groups if has(g.weapon.rules, "Counter"))
        return min(n, self.side_models)


@dataclass(frozen=True)
class Melee:
    """A charge: ``charger`` charges ``target``; both strike (see the module docstring)."""

    charger: Fighter
    target: Fighter
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("charger", "target"):
            if not isinstance(getattr(self, name), Fighter):
                raise InputError(name, getattr(self, name), "a Fighter")
        # Versatile Attack: "When this unit is activated, pick one effect": the charger picks once, as it
        # charges (the one with more expected wounds against the target as it stands); the target's strikes
        # back are not its activation, so its Versatile Attack gives nothing (see :func:`strikes`)
        c = self.charger
        if c.versatile is None and has(c.rules, "Versatile Attack") and c.groups:
            notes: list[str] = []
            picked = versatile_choice(c.attacker(c.groups, c.quality, c.rules, True), self.target.defender, notes)
            object.__setattr__(self, "charger", replace(c, versatile=picked.versatile))
            object.__setattr__(self, "notes", (*self.notes, *notes))


@dataclass(frozen=True)
class CompiledSide:
    """One side as numbers: its target form, and what :func:`signature` and :func:`fear_of` read from a
    state of it (its unit's models, a joined hero, their Fear(X)). What it strikes with in a state is
    :func:`charge_strikes` or :func:`back_strikes` of that state's signature."""

    target: CompiledTarget
    unit_models: int
    hero: bool
    fear: int
    hero_fear: int


def signature(side: CompiledSide, i: int) -> tuple[int, int]:
    """(unit models left, hero left) with ``i`` models removed (the hero last)."""
    m = side.target.models
    unit_left = max(0, side.unit_models - i)
    hero_left = int(side.hero and i < m)
    return unit_left, hero_left


def fear_of(side: CompiledSide, i: int) -> int:
    """Fear counted for the melee result: X per model with Fear(X) still there."""
    n, h = signature(side, i)
    return n * side.fear + h * side.hero_fear


def compile_side(f: Fighter) -> CompiledSide:
    """A fighter as numbers (:class:`CompiledSide`)."""
    d = f.defender
    return CompiledSide(
        target=compile_target(d),
        unit_models=d.models,
        hero=d.hero is not None,
        fear=f.fear,
        hero_fear=f.hero_fear,
    )


def strikes(
    f: Fighter,
    unit_left: int,
    hero_left: int,
    *,
    charging: bool,
    which: str,
    opponent: Defender,
    impact_cut: int = 0,
) -> tuple[CompiledGroup, ...]:
    """The compiled groups ``f`` strikes ``opponent`` with: ``which`` is ``"counter"`` (its Counter weapons),
    ``"other"`` (the rest) or ``"all"``; ``impact_cut`` Impact dice fewer (Counter). Each part (the unit's
    models, the hero) is compiled as an attack of its own (:func:`~mathhammer.grimdark.compiled.compile_attack`:
    Thrust, Slayer, Versatile Attack, army-rule effects), then Takedown first, Deadly next, as one attack."""
    out: list[CompiledGroup] = []

    if not charging:  # striking back is not the unit's activation: no Versatile Attack pick
        f = replace(
            f,
            rules=tuple(r for r in f.rules if r.name != "Versatile Attack"),
            hero_rules=tuple(r for r in f.hero_rules if r.name != "Versatile Attack"),
            versatile=None,
        )

    def wanted(g: WeaponGroup) -> bool:
        counter = has(g.weapon.rules, "Counter")
        return which == "all" or (which == "counter") == counter

    parts = [
        (f.groups, f.quality, unit_left, True, f.rules),
        (f.hero_groups, f.hero_quality or f.quality, hero_left, False, f.hero_rules),
    ]
    for groups, quality, left, scaled, rules in parts:
        if not left:
            continue
        chosen = tuple(WeaponGroup(min(g.models, left) if scaled else 1, g.weapon) for g in groups if wanted(g))
        if not chosen:
            continue
        groups_out = compile_attack(f.attacker(chosen, quality, rules, charging), opponent).groups
        if any(g.snipe == 2 for g in groups_out):
            raise InputError("snipe", "hero", "model in a melee (a Takedown picking the joined hero: single attacks)")
        out.extend(groups_out)
    if impact_cut:
        cut: list[CompiledGroup] = []
        for cg in out:
            if cg.label.endswith(": Impact") and cg.hit_mask == 0b1111100:
                take = min(impact_cut, cg.attacks)
                impact_cut -= take
                cg = replace(cg, attacks=cg.attacks - take)
            cut.append(cg)
        out = cut
    # Takedown first, then Deadly, as compile_attack orders one unit's weapons
    return tuple(sorted(out, key=lambda g: (not g.snipe, g.deadly == 1)))


def counter_strikes(m: Melee) -> tuple[CompiledGroup, ...]:
    """The target's Counter weapons, all its models striking first (Counter)."""
    t = compile_side(m.target)
    return strikes(m.target, *signature(t, 0), charging=False, which="counter", opponent=m.charger.defender)


def charge_strikes(m: Melee, sig: tuple[int, int]) -> tuple[CompiledGroup, ...]:
    """The charger's strikes with ``sig`` = (unit models, hero) left; Impact cut by Counter."""
    cut = m.target.counter_models()
    return strikes(m.charger, *sig, charging=True, which="all", opponent=m.target.defender, impact_cut=cut)


def back_strikes(m: Melee, sig: tuple[int, int]) -> tuple[CompiledGroup, ...]:
    """The target's strikes back (its weapons other than Counter) with ``sig`` left."""
    return strikes(m.target, *sig, charging=False, which="other", opponent=m.charger.defender)


def impact_dice(f: Fighter) -> int:
    """Impact dice of a fighter at full strength (for the text report)."""
    n = sum(g.models * rating(g.weapon.rules, "Impact") for g in f.groups if has(g.weapon.rules, "Impact"))
    return n + sum(rating(g.weapon.rules, "Impact") for g in f.hero_groups if has(g.weapon.rules, "Impact"))
