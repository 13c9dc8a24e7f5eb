"""A named Grimdark Future melee behind the game-system contract: the charge resolved both ways.

``attack --system gf --melee`` with two units (and ``run`` of the Python API) compiles to a
:class:`GrimdarkMelee`: the attacker charges the target, the target strikes back, the melee result
and the loser's morale test follow (:mod:`mathhammer.grimdark.melee`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .melee import Fighter, Melee, impact_dice
from .model import Attacker, Defender
from .outcomes import Described, hero_json


@dataclass(frozen=True, eq=False)
class GrimdarkMelee(Described):
    """A melee as the contract's compiled attack (``models``: the target's, a joined hero counted), with
    :class:`~mathhammer.grimdark.outcomes.Described`'s label, notes, loadout and head by keyword."""

    melee: Melee

    @property
    def models(self) -> int:
        return self.melee.target.side_models

    @property
    def defender(self) -> Defender:
        return self.melee.target.defender

    @property
    def batches(self) -> int:
        return len(self.melee.charger.groups) + len(self.melee.charger.hero_groups)


def _side(f: Fighter, who: str) -> str:
    d = f.defender
    fear = f.fear or f.hero_fear
    bits = [f"{who}: Quality {f.quality}+, Defense {d.defense}+"]
    if impact_dice(f):
        bits.append(f"Impact {impact_dice(f)} dice")
    counter = f.counter_models()
    if counter:
        bits.append(f"Counter on {counter} models")
    if fear:
        bits.append("Fear")
    if f.fatigued:
        bits.append("fatigued (hits only on 6s)")
    return ", ".join(bits)


def melee_lines(m: Melee) -> list[str]:
    """The text report's closing lines: who struck and how the result and morale are read."""
    return [
        "melee resolved both ways: Counter strikes first, then the charge, then the strikes back "
        "([BG 3.4.1] Melee; GF v3.5 common rules: Counter, Impact, Fear)",
        _side(m.charger, "charger"),
        _side(m.target, "target"),
        "the loser (fewer wounds caused, Fear counted; a destroyed unit) takes one morale test: failed at "
        "half strength or less it Routs, else it is Shaken; a tie: no test",
    ]


def notes_of(m: Melee) -> tuple[str, ...]:
    """Warnings of the strikes (rules without effect), each once."""
    from .compiled import compile_attack

    out: list[str] = list(m.notes)
    for f, charging, opponent in ((m.charger, True, m.target.defender), (m.target, False, m.charger.defender)):
        if not charging:
            no = "Versatile Attack"
            f = replace(
                f,
                rules=tuple(r for r in f.rules if r.name != no),
                hero_rules=tuple(r for r in f.hero_rules if r.name != no),
                versatile=None,
            )
        for groups, quality, rules in (
            (f.groups, f.quality, f.rules),
            (f.hero_groups, f.hero_quality or f.quality, f.hero_rules),
        ):
            if groups:
                a = f.attacker(groups, quality, rules, charging)
                out.extend(compile_attack(a, opponent).warnings)
    if not m.target.groups and not m.target.hero_groups:
        out.append("the target has no melee weapon: it does not strike back")
    return tuple(dict.fromkeys(out))


def _unit_json(loadout: Any, models: int) -> dict[str, Any]:
    u = loadout.unit if hasattr(loadout, "unit") else loadout
    return {"unit": u.name, "models": models, "points": u.points, "source": u.source}


def melee_attack(
    a: Any, t: Any, hero: Any, alive: int | None, t_models: int, o: Mapping[str, Any], attacker: Attacker
) -> GrimdarkMelee:
    """The attacker's unit (``a``, a loadout with an optional joined hero) charging the target's
    (``t``, with ``hero`` joined) with ``alive`` and ``t_models`` models left; options ``o``; ``attacker``:
    the unit's melee Attacker as the options made it (hit modifiers, Versatile Attack's pick, snipe)."""
    from ..errors import InputError
    from .profiles import unit_fighter

    if o.get("cover"):
        raise InputError("cover", True, "shooting only (cover gives +1 Defense against shooting, not melee)")
    if o.get("moved"):
        raise InputError("moved", True, "shooting only (Indirect's -1 after moving); a melee is a charge")
    if o.get("target_moved"):
        raise InputError("target_moved", True, "shooting only (Entrenched counts against shooting)")
    charger = unit_fighter(a.unit, models=alive, hero=a.hero, fatigued=bool(o.get("fatigued")))
    charger = replace(charger, hit_modifiers=attacker.hit_modifiers, versatile=attacker.versatile, snipe=attacker.snipe)
    if not charger.groups and not charger.hero_groups:
        raise InputError("phase", "melee", f"a phase in which {a.name} has a weapon")
    target = unit_fighter(t.unit, models=t_models, hero=hero, fatigued=bool(o.get("target_fatigued")))
    m = Melee(charger, target)
    n = alive or a.unit.models
    loadout: dict[str, Any] = {
        "attacker": _unit_json(a, n),
        "target": _unit_json(t, t_models),
        "phase": "melee",
        "charge": "both ways",
    }
    if a.hero is not None:
        loadout["attacker"]["hero"] = hero_json(a.hero)
    if hero is not None:
        loadout["target"]["hero"] = hero_json(hero)
    a_hero = f" + {a.hero.name}" if a.hero is not None else ""
    t_hero = f" + {hero.name} (Tough({hero.tough}), wounded last)" if hero is not None else ""
    head = f"{n} {a.name}{a_hero} ({a.points} pts) charge {t_models} {t.name}{t_hero}, melee both ways"
    return GrimdarkMelee(m, label=f"{a.name} vs {t.name}", notes=notes_of(m), loadout=loadout, head=head)
