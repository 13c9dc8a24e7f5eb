"""The Grimdark Future attack procedure, written once, and its compiled form.

:func:`compile_attack` turns an :class:`~mathhammer.grimdark.model.Attacker`
and a :class:`~mathhammer.grimdark.model.Defender` into plain numbers
(:class:`CompiledGroup` rows and a :class:`CompiledTarget`); both engines
read only those. The procedure, per weapon group in order (seed, "Procedura
ataku strzeleckiego", steps 5-8):

1. **Attacks**: models x A dice (seed: "5 modeli × A2 = 10 rzutów na
   trafienie"). Impact(X) adds its own group of models x X dice.
2. **Quality roll** per die: a hit on ``die + modifier >= Quality``, the
   total modifier capped at +1/-1, a natural 6 always hits and a natural 1
   always misses (seed, "Modyfikatory trafienia"). :func:`hit_mask`.
3. **Hits of one die**: a hit is ``b`` hits, ``b = min(X, models left)``
   with Blast(X) (fixed when the group starts), else 1. An unmodified 6 is a
   "six" hit (Rending); Relentless/Furious add ``b`` plain hits to a 6.
   The hits of one die are resolved before the next die is rolled, six hits
   first (this order matters only when the Defense changes inside a group,
   i.e. when a joined hero with another Defense is reached).
4. **Defense roll** per hit, against the Defense of the model next in line
   to take a wound (the unit's models first, the hero last; with a joined
   hero, the unit's Defense for every hit of a group that starts while another
   model stands): saved on
   ``die + cover - AP >= Defense``; :data:`NATURAL_DEFENSE` (6 always saves,
   1 always fails); with Poison/Bane a natural 6 is re-rolled once, the
   re-roll stands. :func:`save_mask`. The AP includes the army-book rules
   read as effects (:mod:`~mathhammer.grimdark.effects`): the weapon's
   AP(+X) whose conditions hold, less the target's AP(-X), at least AP(0).
5. **Regeneration** per unsaved hit (before Deadly's multiplication): on a
   5+ the wound is ignored (an army rule read as Regeneration: on its own roll).
6. **Wounds**: one wound, or X with Deadly(X), on the model next in line;
   they finish that model first and never carry over to the next model
   (:func:`take_wounds`). Plain wounds go one per hit, so they carry on to
   the next model hit by hit.

After the last group: morale test due when the unit (hero included) is at
half its starting size or below, the starting size being the unit's size at
the beginning of the game (``Defender.starting_models``), not the models left
when the attack starts; or, for a unit of one model with Tough(X), when it
has half its wounds or fewer left (:func:`~mathhammer.grimdark.morale.morale_due`); a destroyed unit takes
no test. The test is one Quality test (:func:`~mathhammer.grimdark.morale.morale_pass_probability`, Fearless
included): passed, or failed and the unit is Shaken; a test from wounds never
Routs. After a melee attack no test from wounds is due at all: the melee
result decides (not modelled here).

Sources, and the version this package follows
----------------------------------------------

The rules are those of the public Grimdark Future core rules, version 3:

- **[BG 3.4.1]** "Grimdark Future - Beginner's Guide v3.4.1" (OPR Games, 2024),
  as converted to text in the public repository ``Majawat/battlesync``, file
  ``docs/rules/OPR/GrimdarkFuture/bevinners-guide.md`` (commit
  ``d6c6d434ad04645bbcbf977177b4a91d5e14628c``): the sections "Modifiers",
  "Shooting", "Terrain / Cover", "Morale from Wounds" and "Special Rules".
- **[Wiki 2023]** OPR Community Wiki, "Grimdark Future Special Rules",
  revision of 28 September 2023 ("3.0 Updates"),
  https://wiki.onepagerules.com/index.php?oldid=3642&title=Grimdark_Future_Special_Rules
- **[3.5.1 core]** "GF - Core Rules v3.5.1" (OPR Games), section Morale, as
  quoted word for word in public notes found with the code index (the note
  names the PDF
  https://cdn.prod.website-files.com/636c3b6dcdb4eb2dce722889/692dd5132221284157f8fc82_GF%20-%20Core%20Rules%20v3.5.1.pdf;
  the same sentences in a second repository's rules summary); the PDF itself
  was not read.
- **[3.5]** the v3.5 common-rule texts shipped with Army Forge data (seen in
  several public repositories that bundle Army Forge's common rules,
  ``"system": "all"`` entries), and the r/onepagerules thread "AP
  clarification" (https://red2.klt.pw/r/onepagerules/comments/1q88363/ap_clarification)
  on how v3.5's ``AP(+X)`` adds up.

Where v3.4.1 and v3.5 differ, **v3.5 is followed** (it is what Army Forge
exports today); the difference is named below. Wordings, and what this
package does with them:

- **Modifiers** [BG 3.4.1]: "a roll of 6 always counts as a success and a roll
  of 1 always counts as a fail, regardless of how much it is being modified
  by" - for every roll, Quality and Defense alike (:data:`NATURAL_DEFENSE`).
  The cap of the total hit modifier at +1/-1 is the seed's.
- **AP(X)** [BG 3.4.1]: "Targets get -X to Defense rolls when blocking hits
  from weapons with this special rule."
- **Cover** [BG 3.4.1, Terrain]: units mostly in or behind cover terrain "get
  +1 to Defense rolls when blocking hits from shooting attacks" - never in
  melee; AP and cover add up (seed).
- **Blast(X)** [BG 3.4.1]: "Ignores cover, and after resolving other special
  rules, each hit is multiplied by X, where X is up to as many hits as models
  in the target unit" - extra hits of Relentless/Furious are multiplied too.
- **Deadly(X)** [BG 3.4.1]: "Assign each wound to one model, and multiply it by
  X. Hits from Deadly must be resolved first, and these wounds don't carry
  over to other models if the original target is killed."
- **Tough(X)** [BG 3.4.1]: "This model must take X wounds before being killed
  ... you must continue to put wounds on the tough model with most wounds in
  the unit until it is killed ... (heroes must be assigned wounds last)."
- **Hero** [BG 3.4.1]: a hero (up to Tough(6)) may join one multi-model unit;
  it "may take morale tests on behalf of the unit, but must use the unit's
  Defense until all other models have been killed", and the unit's size "is
  increased by 1". Here: the hero takes wounds last; blocks are rolled per
  weapon group ([BG 3.4.1] "Roll to Block"), so every hit of a group that
  starts while another model stands is blocked at the unit's Defense, the
  hits reaching the hero included (:attr:`CompiledTarget.block_defense`), and
  a group that starts with the hero alone at the hero's own; it
  counts in the starting size for morale, and the morale test uses the
  better of the unit's and the hero's Quality (:func:`~mathhammer.grimdark.morale.morale_quality`).
- **Morale** [3.5.1 core]: "At the end of any activation (whether it's their
  turn or another player's) in which a unit takes wounds that leave it with
  half or less of its starting size or tough value (for units with a single
  model), it must take a morale test. Note that starting size is counted at
  the beginning of the game. To take a morale test, the affected unit must
  simply take one regular Quality test ... If the test is passed, nothing
  happens. If the test is failed, the unit is Shaken." And: "Units that were
  in melee don't take morale tests from wounds at the end of an activation,
  but must compare the number of wounds each unit caused instead. The unit
  with the lowest total loses, and must take a morale test"; that test, failed
  "with half or less of its starting size or tough value", Routs the unit
  ("remove the entire unit from the game"). ([BG 3.4.1], Morale from Wounds,
  has the same half-strength wording.) Here: half strength is counted against
  ``Defender.starting_models`` (the joined hero included; a unit that started
  as one model with Tough(X): its wounds left against X), not the models left
  when the attack starts; the test is passed with P((7 - Quality) / 6) at the
  Quality :func:`~mathhammer.grimdark.morale.morale_quality` gives
  (:func:`~mathhammer.grimdark.morale.morale_pass_probability`); a
  failed test from wounds is Shaken, never Routed, so P(Routed) is 0 after
  shooting; after a melee attack (any weapon of the attack is a melee weapon)
  no test from wounds is reported: the melee result decides the test and
  Routed (:mod:`mathhammer.grimdark.melee`, a melee resolved both ways). Reading chosen: the test is rolled
  once, after the attack (the end of the activation), so its die is
  independent of the attack's dice given the unit's final state; the engines
  still roll it (Monte Carlo) or weight it per final state (exact), because
  its Quality and Fearless depend on which models are left (the hero alone
  tests at its own Quality, with its own Fearless).
- **Fearless** [3.5 AF]: "When a unit where all models have this rule fails a
  morale test, roll one die. On a 4+ it counts as passed instead." Active
  while every model left has it: ``Defender.fearless`` and, with a joined
  hero, ``Hero.fearless`` too; the hero alone, its own.
- **Rending** [3.5]: "Ignores Regeneration, and on unmodified results of 6 to
  hit, those hits get AP(+4)" - six hits get the weapon's AP plus 4. (v3.4.1:
  "unmodified rolls of 6 to hit get AP(4)", i.e. AP 4 whatever the weapon's.)
- **Reliable** [BG 3.4.1; 3.5 alike]: "attacks at Quality 2+ with this weapon
  ... Reliable only changes the Quality value, so the roll can still be
  modified" - Quality 2+, modifiers (capped) still apply.
- **Lock-On** [BG 3.4.1; 3.5 alike]: "Ignores cover and all negative modifiers
  to hit rolls and range." - every hit modifier is an entry of its own
  (``Attacker.hit_modifiers``, :mod:`~mathhammer.grimdark.modifiers`), so a +1 and a
  -1 are told apart: the negative entries are dropped, the positive ones kept.
- **Indirect** [BG 3.4.1; 3.5 alike]: "Gets -1 to hit rolls when shooting after
  moving. May target enemies that are not in line of sight as if in line of
  sight, and ignores cover from sight obstructions" - the -1 when ``moved``;
  ``cover`` is read as cover terrain the unit stands in, which Indirect does
  not ignore.
- **Poison** [BG 3.4.1]: "This weapon ignores Regeneration, and the target must
  re-roll unmodified Defense rolls of 6 when blocking hits. Note that a die
  roll may only be re-rolled once" - every hit of the weapon, not only six
  hits. v3.5 renamed it **Bane** ("Ignores Regeneration, and when attacking
  the target must re-roll unmodified Defense results of 6"); both names are
  accepted, with the same effect.
- **Relentless** [3.5]: "When this model shoots at enemies over 9\" away,
  unmodified results of 6 to hit deal 1 extra hit (only the original hit
  counts as a 6 for special rules)". (v3.4.1: "When this model uses a Hold
  action and shoots".)
- **Furious** [BG 3.4.1; 3.5 alike]: "When charging, unmodified rolls of 6 to
  hit in melee deal one extra hit (only the original hit counts as a 6 for
  special rules)" - the extra hit is a plain hit (no Rending AP).
- **Impact(X)** [BG 3.4.1; 3.5 alike]: "Roll X dice when attacking after
  charging, unless fatigued. For each 2+ the target takes one hit" - plain
  hits (AP 0, no weapon rules), in melee (no cover).
- **Regeneration** [3.5]: "When a unit where all models have this rule takes
  wounds, roll one die for each. On a 5+ it is ignored" - active while every
  model left (hero included) has it. (v3.4.1: "When taking a wound, roll one
  die", model by model.) Reading chosen where the text leaves room: one roll
  per unsaved hit, before Deadly multiplies it.

Army-book weapon rules of v3.5, shared by several factions: their texts are the
``"system": "all"`` entries of Army Forge's rules data, as bundled in public
repositories (each entry lists the army books that use it):

- **Destructive** [3.5 AF]: "On unmodified results of 6 to hit, those hits get
  AP(+4)." - six hits get the weapon's AP plus 4, like Rending's, but Regeneration
  still applies (the text does not ignore it). With Rending too, the two AP(+4)
  add up (v3.5's AP(+X) adds up, [3.5] thread above).
- **Surge** [3.5 AF]: "On unmodified results of 6 to hit, this weapon deals 1 extra
  hits (only the original hit counts as a 6 for special rules)." - always, with no
  condition: one extra plain hit per 6 (no Rending/Destructive AP), multiplied by
  Blast like the others. Reading chosen: with Relentless or Furious active as well,
  each rule deals its own extra hit (2 extra hits per 6).
- **Shred** [3.5 AF]: "On unmodified results of 1 to block hits, this weapon deals 1
  extra wound." - when the Defense die that stands (after Bane's re-roll) shows a
  natural 1 (always a fail), the hit deals 2 wounds instead of 1. Reading chosen: the
  extra wound is a wound of its own, resolved after the hit's wound like any other:
  Regeneration rolls for it too ("roll one die for each"), Deadly(X) multiplies it
  too ("Assign each wound to one model, and multiply it by X"), and it goes on the
  model next in line once the first wound is resolved (so a Deadly wound that
  finishes a model does not carry over, but the extra wound starts on the next one).
- **Unstoppable** [3.5 AF]: "Ignores Regeneration, and ignores all negative modifiers
  to this weapon." - the negative modifiers this package models are those to hit
  rolls (each negative entry of ``hit_modifiers``/``hit_modifier``, Indirect's -1 after
  moving, the target's Stealth, Artillery and Entrenched): they are dropped, positive
  ones stay (capped as ever), like Lock-On's. Reading
  chosen: the target's cover is not a modifier to the weapon (it is +1 to the
  target's Defense rolls; Lock-On names "cover" apart from "negative modifiers"), so
  Unstoppable does not ignore it.
- **Precise** [3.5 AF]: "Gets +1 to hit when attacking." - +1 to the weapon's hit
  rolls, added to the other modifiers after Lock-On/Unstoppable drop the negative
  ones (it is positive), then capped at +1/-1 in total as every hit modifier. Not to
  Impact's dice (a 2+ roll, not a hit roll of the weapon).

Common rules of v3.5 on hit rolls and Defense (texts of Army Forge's common rules,
[3.5 AF] as in ``profiles/rules/grimdark_common_rules.toml``, which names the files and
commits; Shielded and Versatile Attack from the army books' ``specialRules``):

- **Stealth** [3.5 AF]: "When units where all models have this rule are shot from over
  9\" away, enemy units get -1 to hit rolls." - a -1 entry for shooting weapons when
  ``Attacker.distance`` is over 9" and the target's unit and joined hero both have it.
  The distance unknown (None): not applied, with a warning (as Relentless).
- **Artillery** [3.5 AF]: "May only use Hold actions. When this model shoots at enemies
  over 9\" away, it gets +1 to hit rolls. When enemy units shoot at this model from over
  9\" away, they get -2 to hit rolls." - on the attacker (``Attacker.rules``): +1 when
  shooting over 9"; on the target (all its models, as Stealth): -2 to the shooter
  over 9". The total is capped at +1/-1 as ever, so the -2 differs from Stealth's -1
  only when other modifiers add up.
- **Entrenched** [3.5 AF]: "As long as a unit where all models have this rule hasn't
  moved during the round, enemy units shooting at it from over 9\" away get -2 to hit
  rolls." - -2 unless ``Defender.moved`` (the target moved this round; default not).
- **Shielded** [3.5 army books]: "Units where all models have this rule get +1 to
  defense rolls." - +1 to the Defense roll, in melee and shooting, adding up with cover;
  compiled as a Defense one better (the natural 1 and 6 unchanged). Reading chosen:
  active while every model left has it, as Regeneration (the hero alone, its own).
- **Thrust** [3.5 AF] and **Lance** [BG 3.4.1], the same words: "When charging, gets +1
  to hit rolls and AP(+1) in melee." - a +1 entry and AP(+1) on every hit of the weapon
  (six hits too) when the attacker is charging with it in melee; else a warning.
- **Versatile Attack** [3.5 army books]: "When this unit is activated, pick one effect:
  until the end of the activation all models with this rule in it either get AP(+1)
  when attacking, or get +1 to hit rolls when attacking." - ``Attacker.versatile``:
  ``"ap"`` or ``"hit"``, on every weapon of the attack (not on Impact's dice, which are
  not hit rolls of a weapon); with the rule and no choice, the choice with more
  expected wounds (exact engine) is picked and named in the warnings
  (:func:`~mathhammer.grimdark.exact.versatile_choice`). Reading chosen: every model of the unit has the rule.

- **Slayer** [3.5 army books]: "This model's weapons get AP(+2) against units where most
  models have Tough(3) or higher." - a unit rule of the attacker (``Attacker.rules``):
  AP(+2) on every hit of its weapons (not Impact's) when more than half of the target's
  models, the joined hero counted, have Tough(3) or more at the start of the attack
  (:func:`~mathhammer.grimdark.modifiers.most_tough`).
- **Takedown** [3.5 AF]: "This model may pick any model in the target unit as its
  individual target, which is resolved as if it was a unit of [1]. Takedown attacks
  must be resolved before other weapons." **Sniper** [3.5 AF, marked for removal
  there]: "Shoots at Quality 2+, and each model with Sniper may pick any model in the
  target unit as its individual target, which is resolved as if it was a unit of 1.
  Sniper shooting must be resolved before other weapons." - their groups go first
  (before Deadly's); all of a group's hits go to one picked model, "a unit of 1": its
  own Defense, Shielded and Regeneration, Blast capped at 1, the target's Stealth,
  Artillery and Entrenched as the unit's models have them; its wounds never carry over
  and once it is killed the group's other hits are lost (``exact._snipe_group``).
  Sniper's Quality 2+ is read as Reliable's (modifiers still apply). The picked model is
  a model of the unit, the one next in line (a wounded one first; the models of a unit
  are alike): ``Attacker.snipe = "model"``, the default (with a joined hero, said in
  the warnings); ``snipe="hero"`` picks the joined hero: its own Defense and rules,
  resolved first (:mod:`mathhammer.grimdark.snipe`: the hero's fate, then the rest of
  the attack against the unit with a wounded hero or without it). In a melee the hero
  cannot be picked yet (refused). Reading chosen: every model of a group picks the same model.

Reading chosen for the target's rules: the unit's rules count as the attack starts (the
hit rolls of a weapon are one roll against the whole unit), so a hero without Stealth
joined to a Stealth unit cancels Stealth for the whole attack.

>>> from .model import Attacker, Defender, Weapon, WeaponGroup
>>> attack = compile_attack(Attacker((WeaponGroup(5, Weapon(attacks=1, rules=("AP(1)",))),), quality=4),
...                         Defender(models=5, defense=4, cover=True))
>>> g = attack.groups[0]
>>> g.attacks, bin(g.hit_mask), g.ap_normal, g.cover
(5, '0b1110000', 1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import InputError
from .effects import ap_reduction, regeneration_targets, weapon_ap_bonus
from .model import Attacker, Defender, Weapon
from .modifiers import all_models, ap_bonus, hit_modifiers
from .morale import _with_bonus, morale_bonus, morale_quality
from .rules import has, rating

#: Natural 6 always saves and natural 1 always fails a Defense roll. The seed
#: states this for the Quality roll ("Naturalny wynik 6 jest zawsze sukcesem,
#: a naturalny wynik 1 zawsze porażką"); it is read here as the general
#: principle of every roll, so that Defense 2+ in cover is not immune.
NATURAL_DEFENSE = True

#: Regeneration ignores a wound on this roll or more.
REGENERATION_TARGET = 5

#: Rending [3.5]: six hits get AP(+4).
RENDING_AP = 4

#: Destructive [3.5 AF]: "On unmodified results of 6 to hit, those hits get AP(+4)."
DESTRUCTIVE_AP = 4

#: Relentless: "over 9\"".
RELENTLESS_DISTANCE = 9.0


@dataclass(frozen=True)
class CompiledGroup:
    """One weapon group as numbers.

    Attributes:
        label: for messages.
        attacks: dice rolled (models x A).
        hit_mask: bit ``f`` set when face ``f`` (1..6) hits.
        extra: extra plain hits an unmodified 6 deals: 1 with Relentless or Furious active, +1 with Surge.
        blast: X of Blast(X), 0 without Blast.
        ap_normal: AP of plain hits.
        ap_six: AP of hits from an unmodified 6 (Rending, Destructive: the weapon's AP + 4 each).
        poison: 1 when the target re-rolls unmodified Defense 6s (Poison/Bane, every hit).
        cover: 1 when the target's cover counts (+1 to Defense).
        deadly: wounds per unsaved hit (X of Deadly(X), else 1).
        regeneration: 1 when the target's Regeneration may apply.
        shred: 1 when an unsaved hit whose Defense die shows a natural 1 deals 1 extra wound (Shred).
        snipe: 1 for Takedown/Sniper: the model next in line is the group's target "as if it was a unit
            of 1" (its own Defense and Regeneration, Blast capped at 1); its wounds never carry over, and
            once it is killed the group's other hits are lost. 2: the joined hero is the target
            (:mod:`mathhammer.grimdark.snipe`).
    """

    label: str
    attacks: int
    hit_mask: int
    extra: int = 0
    blast: int = 0
    ap_normal: int = 0
    ap_six: int = 0
    poison: int = 0
    cover: int = 0
    deadly: int = 1
    regeneration: int = 1
    shred: int = 0
    snipe: int = 0


@dataclass(frozen=True)
class CompiledTarget:
    """The target unit as numbers; models in the order they take wounds (the hero last).

    Attributes:
        tough: int64[M], wounds of each model.
        defense: int64[M], Defense of each model.
        regeneration: int64[M], while model ``i`` is next in line: the roll that ignores a wound
            (5 for Regeneration, an army rule's own, e.g. 6 for Self-Repair), 0 when none is active.
        single_tough: 1 when the unit is one model with Tough(X > 1) (morale by wounds).
        hero: True when the last model is a joined hero.
        start: the starting size morale's half strength is counted against: the unit's starting
            models (the joined hero included), or a single Tough model's Tough; 0: ``models``
            (the unit at full strength), or the Tough for a single Tough model.
        wounds_test: 1: a morale test from wounds is due at half strength; 0: the attack is a
            melee attack, after which "Units that were in melee don't take morale tests from
            wounds" (GF v3.5.1 core rules, Morale).
        test_quality: int64[M], the Quality of the morale test while model ``i`` is next in line.
        test_fearless: int64[M], 1 when Fearless is active then (all models left have it).
        own_defense: int64[M], Defense of model ``i`` as a unit of 1 (Takedown, Sniper): its own
            Defense, one better with its own Shielded.
        own_regeneration: int64[M], the roll that ignores a wound for model ``i`` as a unit of 1 (its own
            Regeneration or army rule read as it; 0: none).
    """

    tough: np.ndarray
    defense: np.ndarray
    regeneration: np.ndarray
    single_tough: int
    hero: bool = False
    start: int = 0
    wounds_test: int = 1
    test_quality: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    test_fearless: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    own_defense: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    own_regeneration: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    unit_only: CompiledTarget | None = None

    @property
    def starting_size(self) -> int:
        """Morale's starting size: models, or a single model's Tough (see :attr:`start`)."""
        if self.start:
            return self.start
        return int(self.tough[0]) if self.single_tough else self.models

    @property
    def models(self) -> int:
        return int(self.tough.size)

    @property
    def block_defense(self) -> np.ndarray:
        """int64[M]: the Defense each model's hits are blocked at while the unit's other models stand: with
        a joined hero, the unit's for every model, the hero included (Hero: "must use the unit's Defense
        until all other models have been killed"); else :attr:`defense`."""
        if not self.hero or self.models < 2:
            return self.defense
        return np.full_like(self.defense, self.defense[0])

    @property
    def cum(self) -> np.ndarray:
        """``cum[i]``: wounds of the first ``i`` models."""
        return np.concatenate(([0], np.cumsum(self.tough))).astype(np.int64)

    @property
    def marker_size(self) -> int:
        return int(self.tough.max())

    @property
    def damage_size(self) -> int:
        return int(self.tough.sum()) + 1


@dataclass(frozen=True)
class CompiledAttack:
    """Groups in order, the target and warnings (rules that had no effect, skipped weapons)."""

    groups: tuple[CompiledGroup, ...]
    target: CompiledTarget
    warnings: tuple[str, ...] = ()


def hit_mask(quality: int, modifier: int, reliable: bool = False) -> int:
    """Faces that hit, as bits ``1 << face``.

    Reliable sets Quality 2+ and the modifiers still apply ([BG 3.4.1] "Reliable
    only changes the Quality value, so the roll can still be modified").

    >>> bin(hit_mask(4, 0)), bin(hit_mask(4, -5)), bin(hit_mask(2, 1)), bin(hit_mask(6, 0, reliable=True))
    ('0b1110000', '0b1100000', '0b1111100', '0b1111100')
    >>> bin(hit_mask(6, -1, reliable=True))
    '0b1111000'
    """
    if reliable:  # "attacks at Quality 2+"
        quality = 2
    modifier = max(-1, min(1, modifier))  # seed: the total is capped at +1/-1
    mask = 1 << 6  # a natural 6 always hits
    for face in range(2, 6):  # a natural 1 always misses
        if face + modifier >= quality:
            mask |= 1 << face
    return mask


def save_mask(defense: int, ap: int, cover: int) -> int:
    """Faces that save, as bits ``1 << face``: ``face + cover - AP >= Defense``.

    Seed example: Defense 4+ in cover against AP(2) saves on 5+.

    >>> bin(save_mask(4, 2, 1)), bin(save_mask(2, 0, 1)), bin(save_mask(2, 6, 0))
    ('0b1100000', '0b1111100', '0b1000000')
    """
    mask = 0
    for face in range(1, 7):
        if face + cover - ap >= defense:
            mask |= 1 << face
    if NATURAL_DEFENSE:
        mask = (mask | (1 << 6)) & ~(1 << 1)
    return mask


def faces(mask: int) -> int:
    """How many faces a mask holds."""
    return bin(mask).count("1")


def unsaved_probability(defense: int, ap: int, cover: int, poison: int) -> float:
    """P(a hit is not saved); with ``poison`` a natural 6 is re-rolled once."""
    m = save_mask(defense, ap, cover)
    saved = faces(m) / 6.0
    if poison and m & (1 << 6):
        saved = (faces(m) - 1) / 6.0 + saved / 6.0
    return 1.0 - saved


def natural_one_probability(defense: int, ap: int, cover: int, poison: int) -> float:
    """P(the Defense die that stands shows a natural 1 and the hit is not saved) (Shred).

    With ``poison`` a natural 6 is re-rolled once and the re-roll stands, so a 1 comes from
    the first roll or from the re-roll of a 6.

    >>> natural_one_probability(4, 0, 0, 0), round(natural_one_probability(4, 0, 0, 1), 6)
    (0.16666666666666666, 0.194444)
    """
    m = save_mask(defense, ap, cover)
    if m & (1 << 1):
        return 0.0
    p = 1.0 / 6.0
    if poison and m & (1 << 6):
        p += p / 6.0
    return p


def take_wounds(tough: np.ndarray, i: int, w: int, wounds: int) -> tuple[int, int, int]:
    """``wounds`` on model ``i`` carrying ``w``: ``(i, w, wounds taken)``; no carry-over to the next model.

    >>> take_wounds(np.array([3, 3]), 0, 1, 5)   # Deadly(5) on a model of Tough(3) with 1 wound
    (1, 0, 2)
    """
    if i >= tough.size:
        return i, w, 0
    taken = min(wounds, int(tough[i]) - w)
    w += taken
    if w >= tough[i]:
        return i + 1, 0, taken
    return i, w, taken


def tally_of(
    target: CompiledTarget,
    trials: int,
    wounds,
    models_destroyed,
    wounds_on_next,
    morale_test_due,
    morale_passed,
    morale_shaken,
    morale_routed,
):
    """The Tally of an attack from its four histograms, with a joined hero's wounds where there is one.

    The hero takes wounds last (seed 002), so its wounds are the wounds dealt past the other models'
    ``cum[M - 1]``, at most its Tough: read from the wounds histogram, no other count needed.
    """
    from ..outcome import Tally

    hists = {
        "wounds": wounds,
        "models_destroyed": models_destroyed,
        "wounds_on_next": wounds_on_next,
        "morale_test_due": morale_test_due,
        "morale_passed": morale_passed,
        "morale_shaken": morale_shaken,
        "morale_routed": morale_routed,
    }
    if target.hero:
        base = int(target.cum[-2])
        hero = np.zeros(int(target.tough[-1]) + 1)
        np.add.at(hero, np.clip(np.arange(np.size(wounds)) - base, 0, hero.size - 1), np.asarray(wounds, float))
        hists["hero_wounds"] = hero
    return Tally(trials, **hists)


def blast_multiplier(group: CompiledGroup, models_left: int) -> int:
    """Hits per hit: Blast(X) gives X, "at most the number of models in the target"."""
    return min(group.blast, models_left) if group.blast else 1


def compile_target(defender: Defender) -> CompiledTarget:
    """The defender's models in wound order, the joined hero last."""
    n = defender.models
    hero = defender.hero
    # "tough value (for units with a single model)": a unit that started as one model with Tough(X > 1)
    single = int(hero is None and (defender.starting_models or n) == 1 and defender.tough > 1)
    tough = [defender.tough] * n + ([hero.tough] if hero else [])
    # Shielded: "+1 to defense rolls" while every model left has it (the hero included), as Regeneration;
    # +1 to the roll is the same as a Defense one better (the roll's natural 1 and 6 unchanged)
    unit_shield = int(all_models(defender, "Shielded"))
    shield = [unit_shield] * n + ([int(has(hero.rules, "Shielded"))] if hero else [])
    defense = [d - s for d, s in zip([defender.defense] * n + ([hero.defense] if hero else []), shield, strict=True)]
    # Regeneration and the army rules read as Regeneration with another roll (effects), each "a unit where
    # all models have this rule": while the unit's models stand, the rules the hero has too; the hero
    # alone, its own. The number is the roll that ignores a wound (0: none); the best one counts.
    unit_regen = _regeneration(defender.rules, defender.effects)
    regen = [min(unit_regen.values(), default=0)] * n
    if hero is not None:
        hero_regen = _regeneration(hero.rules, hero.effects)
        regen = [min((v for k, v in unit_regen.items() if k in hero_regen), default=0)] * n
        regen.append(min(hero_regen.values(), default=0))
    # the morale test's Quality and Fearless while model i is next in line: with unit models left, the
    # better Quality of the unit and its hero, Fearless when both have it ("a unit where all models
    # have this rule"); the hero alone: its own
    # Banner ("This model and its unit get +1 to morale test rolls") and Morale(X) ("Gets +X to morale test
    # rolls"), GF v3.5 common rules: +1 to the test roll is a Quality one better (a natural 1 still fails)
    quality = [_with_bonus(morale_quality(defender), morale_bonus(defender, unit=True))] * n
    fearless = [int(defender.fearless and (hero is None or hero.fearless))] * n
    if hero is not None:
        own = defender.quality if hero.quality is None else hero.quality
        quality.append(_with_bonus(own, morale_bonus(defender, unit=False)))
        fearless.append(int(hero.fearless))
    n_start = (defender.starting_models or n) + (1 if hero else 0)
    # as a unit of 1 (Takedown, Sniper): the model's own Defense, Shielded and Regeneration
    own_defense = [defender.defense - int(has(defender.rules, "Shielded"))] * n
    own_regen = [min(unit_regen.values(), default=0)] * n
    if hero is not None:
        own_defense.append(hero.defense - int(has(hero.rules, "Shielded")))
        own_regen.append(min(hero_regen.values(), default=0))
    return CompiledTarget(
        tough=np.array(tough, dtype=np.int64),
        defense=np.array(defense, dtype=np.int64),
        regeneration=np.array(regen, dtype=np.int64),
        single_tough=single,
        hero=hero is not None,
        start=defender.tough if single else n_start,
        test_quality=np.array(quality, dtype=np.int64),
        test_fearless=np.array(fearless, dtype=np.int64),
        own_defense=np.array(own_defense, dtype=np.int64),
        own_regeneration=np.array(own_regen, dtype=np.int64),
        # the unit once its hero is killed first (Takedown/Sniper picking the hero): its starting size kept
        unit_only=None if hero is None else replace(compile_target(replace(defender, hero=None)), start=n_start),
    )


def _regeneration(rules, effects) -> dict[str, int]:
    found = {"Regeneration": REGENERATION_TARGET} if has(rules, "Regeneration") else {}
    return {**found, **regeneration_targets(effects)}


def target_effects(defender: Defender):
    """The target's effects active for a whole attack: the unit's, and with a joined hero those the hero
    has too ("units where all models have this rule")."""
    if defender.hero is None:
        return defender.effects
    return tuple(e for e in defender.effects if e in defender.hero.effects)


def _compile_weapon(attacker: Attacker, models: int, weapon: Weapon, defender: Defender, warnings: list[str]):
    rules = weapon.rules
    label = weapon.name
    shooting = not weapon.melee
    if shooting and attacker.charging:
        warnings.append(f"{label}: a shooting weapon resolved although the attacker is charging")
    if shooting and weapon.range is not None and attacker.distance is not None and attacker.distance > weapon.range:
        warnings.append(f'{label}: target at {attacker.distance:g}" is out of range {weapon.range:g}"; no dice')
        return []
    snipe = int(has(rules, "Takedown") or has(rules, "Sniper"))
    hero = defender.hero
    if snipe and attacker.snipe == "hero" and hero is not None:  # the joined hero, as a unit of 1
        snipe = 2
        defender = Defender(1, hero.defense, hero.tough, rules=hero.rules, cover=defender.cover,
                            moved=defender.moved, effects=hero.effects)  # fmt: skip
    elif snipe:  # "resolved as if it was a unit of 1": one model of the unit
        defender = Defender(1, defender.defense, defender.tough, rules=defender.rules, cover=defender.cover,
                            moved=defender.moved, effects=defender.effects)  # fmt: skip
    # each effect one entry; Lock-On/Unstoppable drop the negative ones (modifiers.hit_modifiers)
    modifier = sum(hit_modifiers(attacker, weapon, defender, warnings))
    extra = 0
    if has(rules, "Relentless"):
        if attacker.distance is None:
            warnings.append(f"{label}: Relentless needs the distance; no extra hits counted")
        elif attacker.distance > RELENTLESS_DISTANCE:
            extra = 1
    if has(rules, "Furious"):
        if attacker.charging:
            extra = 1
        else:
            warnings.append(f"{label}: Furious applies only when charging")
    if has(rules, "Surge"):
        # Surge [3.5 AF]: "On unmodified results of 6 to hit, this weapon deals 1 extra hits (only the
        # original hit counts as a 6 for special rules)" - on top of Relentless/Furious' own extra hit.
        extra += 1
    ap = rating(rules, "AP") + ap_bonus(attacker, weapon, defender)  # Thrust/Lance, Versatile Attack, Slayer
    ap_six = ap + (RENDING_AP if has(rules, "Rending") else 0)
    # Destructive [3.5 AF]: "On unmodified results of 6 to hit, those hits get AP(+4)."
    ap_six += DESTRUCTIVE_AP if has(rules, "Destructive") else 0
    # army-book rules read as effects (mathhammer.grimdark.effects): AP(+X) under conditions on the weapon;
    # the target's AP(-X), "to a min. of AP(0)"
    bonus = weapon_ap_bonus(
        weapon.effects, weapon.melee, attacker.charging, attacker.distance, defender.tough, label, warnings
    )
    less = ap_reduction(target_effects(defender), weapon.melee, attacker.charging, attacker.distance, warnings)
    ap, ap_six = max(0, ap + bonus - less), max(0, ap_six + bonus - less)
    poison = has(rules, "Poison") or has(rules, "Bane")
    ignores_cover = has(rules, "Blast") or has(rules, "Lock-On") or weapon.melee
    # Fatigue ([BG 3.4.1]): "units only hit on unmodified rolls of 6 in melee until the end of that round"
    fatigued = weapon.melee and attacker.fatigued
    reliable = has(rules, "Reliable") or has(rules, "Sniper")
    out = [
        CompiledGroup(
            label=label,
            attacks=models * weapon.attacks,
            # Sniper: "Shoots at Quality 2+", read as Reliable's Quality 2+ (still modified)
            hit_mask=1 << 6 if fatigued else hit_mask(attacker.quality, modifier, reliable),
            extra=extra,
            blast=rating(rules, "Blast"),
            ap_normal=ap,
            ap_six=ap_six,
            poison=int(poison),
            cover=int(defender.cover and not ignores_cover),
            deadly=rating(rules, "Deadly", 1),
            regeneration=int(not (has(rules, "Rending") or poison or has(rules, "Unstoppable"))),
            # Shred [3.5 AF]: "On unmodified results of 1 to block hits, this weapon deals 1 extra wound."
            shred=int(has(rules, "Shred")),
            snipe=snipe,
        )
    ]
    if has(rules, "Impact"):
        if attacker.charging and not attacker.fatigued:
            out.insert(0, CompiledGroup(f"{label}: Impact", models * rating(rules, "Impact"), 0b1111100))
        else:
            warnings.append(f"{label}: Impact applies only after charging, unless fatigued")
    return out


def compile_attack(attacker: Attacker, defender: Defender) -> CompiledAttack:
    """Compile an attack: one :class:`CompiledGroup` per weapon group (Impact dice first), in order.

    Groups with Takedown or Sniper ("must be resolved before other weapons") go first, then those with
    Deadly, before the others (stable otherwise): "Hits from Deadly must be
    resolved first, and these wounds don't carry over to other models if the target is killed"
    (Grimdark Future v3 Deadly(X), as quoted on the OPR community wiki, revision of September 2023).
    """
    if not isinstance(attacker, Attacker):
        raise InputError("attacker", attacker, "an Attacker")
    if not isinstance(defender, Defender):
        raise InputError("defender", defender, "a Defender")
    warnings: list[str] = []
    if attacker.versatile is None and has(attacker.rules, "Versatile Attack"):
        # the pick needs the exact engine: grimdark_exact, grimdark_simulate and the CLI make it first
        # (mathhammer.grimdark.exact.versatile_choice); compiled as it is, neither effect applies
        warnings.append("Versatile Attack: no pick given (versatile = 'ap' or 'hit'); neither effect applied")
    groups: list[CompiledGroup] = []
    # Takedown/Sniper weapons first ("must be resolved before other weapons"), then Deadly ones (a stable
    # sort: the rest keep their order; a weapon's Impact dice stay just before its own attacks).
    ordered = sorted(attacker.groups, key=lambda g: (not _snipes(g.weapon), not has(g.weapon.rules, "Deadly")))
    if any(_snipes(g.weapon) for g in ordered):
        _check_snipe(attacker, defender, warnings)
    for g in ordered:
        a = attacker if g.quality is None else replace(attacker, quality=g.quality)  # a joined hero's Quality
        groups.extend(_compile_weapon(a, g.models, g.weapon, defender, warnings))
    # GF v3.5.1 core rules, Morale: "Units that were in melee don't take morale tests from wounds at the
    # end of an activation, but must compare the number of wounds each unit caused instead."
    target = replace(compile_target(defender), wounds_test=int(not is_melee(attacker)))
    return CompiledAttack(tuple(groups), target, tuple(dict.fromkeys(warnings)))


def _snipes(weapon: Weapon) -> bool:
    return has(weapon.rules, "Takedown") or has(weapon.rules, "Sniper")


def _check_snipe(attacker: Attacker, defender: Defender, warnings: list[str]) -> None:
    """Takedown/Sniper's individual target: a model of the unit (the one next in line), or with
    ``snipe="hero"`` the joined hero (refused without one); by default a model of the unit, and said."""
    if attacker.snipe == "hero" and defender.hero is None:
        raise InputError("snipe", "hero", "model (the target has no joined hero to pick)")
    if attacker.snipe is None and defender.hero is not None:
        warnings.append("Takedown/Sniper: a model of the unit picked (snipe='hero' picks the joined hero)")


def is_melee(attacker: Attacker) -> bool:
    """True when the attack is a melee attack (a weapon group is a melee weapon): the units were in melee."""
    return any(g.weapon.melee for g in attacker.groups)
