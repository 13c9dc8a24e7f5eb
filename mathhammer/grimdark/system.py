"""Grimdark Future as a registered game system: ``mathhammer attack --system grimdark``.

The ad-hoc flags: ``--models N --attacks N --quality N --rule "AP(1)" [--rule ...]
--target-models N --target-defense N --target-tough N [--cover]
[--target-rule "Regeneration"] [--target-quality N] [--melee] [--charging]
[--range INCHES]``, with ``--exact | --trials N [--seed S] | --tolerance E``.

The JSON result has the keys ``engine, trials, seed, wounds {pmf, mean,
stderr}, models_destroyed {pmf, mean, stderr}, unit_destroyed {p, stderr},
morale_test_due {p}``; the text report adds P(morale test failed).

Named units (``attack A T``, ``compare``, ``matchup``) come from
``profiles/grimdark`` and ``--profiles``; a target written ``"Unit + Hero"``
(or given ``--target-hero NAME`` by a CLI that passes that flag) has the hero
joined to it, wounded last. ``profiles list/show --system grimdark`` are the
:func:`list_profiles` and :func:`show_profile` hooks.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..outcome import Tally
from ..results import Result
from ..systems import GameSystem, register
from ..validate import number, target_number, whole
from .compiled import morale_quality
from .exact import grimdark_exact, morale_fail_probability
from .model import Attacker, Defender, Hero, Weapon, WeaponGroup

FLAGS = frozenset(
    {
        "--attacks", "--quality", "--rule", "--target-defense", "--target-tough", "--target-rule",
        "--target-quality", "--cover", "--melee", "--charging", "--range", "--name", "--target-hero-tough",
        "--target-hero-defense",
    }
)  # fmt: skip


def build_adhoc(flags: dict[str, Any]) -> tuple[Attacker, Defender]:
    """The attacker (one weapon group) and the defender from the flags."""

    def get(flag: str, default: Any) -> Any:
        value = flags.get(flag)
        return default if value is None else value

    distance = get("--range", None)
    weapon = Weapon(
        get("--name", "weapon"),
        attacks=whole("--attacks", get("--attacks", "1"), 0, 99, "attacks (A) per model"),
        melee=bool(get("--melee", False)),
        rules=tuple(get("--rule", [])),
    )
    attacker = Attacker(
        (WeaponGroup(whole("--models", get("--models", "1"), 0, 999, "attacking models"), weapon),),
        quality=target_number("--quality", get("--quality", "4"), "Quality"),
        charging=bool(get("--charging", False)),
        distance=None if distance is None else number("--range", distance, 0, 999, "distance in inches"),
    )
    defense = target_number("--target-defense", get("--target-defense", "4"), "Defense")
    hero = None
    if flags.get("--target-hero-tough") is not None or flags.get("--target-hero-defense") is not None:
        hero = Hero(
            tough=whole("--target-hero-tough", get("--target-hero-tough", "1"), 1, 99, "the hero's Tough(X)"),
            defense=target_number("--target-hero-defense", get("--target-hero-defense", defense), "Defense"),
        )
    defender = Defender(
        models=whole("--target-models", get("--target-models", "1"), 1, 999, "models in the target unit"),
        defense=defense,
        hero=hero,
        tough=whole("--target-tough", get("--target-tough", "1"), 1, 99, "Tough(X) per model"),
        quality=target_number("--target-quality", get("--target-quality", "4"), "Quality"),
        rules=tuple(get("--target-rule", [])),
        cover=bool(get("--cover", False)),
    )
    return attacker, defender


def _tally(attacker: Attacker, defender: Defender, opts: dict[str, Any]) -> Tally:
    if opts["engine"] == "exact":
        return grimdark_exact(attacker, defender)
    from .engine import grimdark_simulate

    if opts.get("trials") is not None:
        return grimdark_simulate(attacker, defender, opts["trials"], seed=opts["seed"])
    tolerance = float(opts["tolerance"])
    n = 100_000
    while True:  # the same doubling rule as the StarCraft engine: the result depends on seed and tolerance only
        tally = grimdark_simulate(attacker, defender, n, seed=opts["seed"])
        result = Result("monte-carlo", tally, defender.models + (1 if defender.hero else 0), opts["seed"])
        worst = max(result.damage.stderr, result.unit_destroyed_stderr)
        if worst <= tolerance or n >= 100_000_000:
            return tally
        n *= 2


def run_adhoc(flags: dict[str, Any], opts: dict[str, Any], as_json: bool) -> tuple[dict[str, Any], str, list[str]]:
    if opts.get("method", "count") != "count":
        raise InputError("--method", opts["method"], "count (Grimdark Future rolls every die in either case)")
    attacker, defender = build_adhoc(flags)
    from .compiled import compile_attack

    notes = list(compile_attack(attacker, defender).warnings)
    result = _result(_tally(attacker, defender, opts), defender, opts["seed"], "Grimdark Future")
    out = _json(result)
    return out, result.text_report("Wounds", _tail(result, morale_quality(defender))), notes


# --- named units from profiles/grimdark -------------------------------------------------------------

NAMED_FLAGS = frozenset(
    {
        "--attacker-models", "--target-state", "--profiles", "--melee", "--charging", "--cover", "--range", "--phase",
        "--target-hero",
    }
)  # fmt: skip


def _target_and_hero(units: dict[str, Any], text: str, field: str, hero_flag: Any = None) -> tuple[Any, Any]:
    """The target unit and its joined hero: ``"Unit + Hero"`` (or ``--target-hero NAME``); the hero takes
    wounds only after the rest of its unit (seed 002; core rules, Hero)."""
    from .profiles import find_unit, join_hero, split_joined

    name, hero_name = split_joined(text)
    hero_field = f"{field} (the hero after '+')"
    if hero_flag:
        if hero_name is not None:
            raise InputError("--target-hero", hero_flag, f"either --target-hero or {field} written 'Unit + Hero'")
        hero_name, hero_field = str(hero_flag), "--target-hero"
    unit = find_unit(units, name, field)
    if hero_name is None:
        return unit, None
    if not hero_name:
        raise InputError(field, text, "'Unit + Hero' with a hero's name after '+'")
    hero = find_unit(units, hero_name, hero_field)
    return unit, join_hero(unit, hero, hero_field)


def _attacker_unit(units: dict[str, Any], text: str, field: str) -> Any:
    from .profiles import find_unit, split_joined

    name, hero = split_joined(text)
    if hero is not None:
        raise InputError(field, text, "one unit (a joined hero is modelled on the target side: TARGET 'Unit + Hero')")
    return find_unit(units, name, field)


def _result(tally: Tally, defender: Defender, seed: int | None, label: str) -> Result:
    engine = "exact" if tally.trials == 0 else "monte-carlo"
    models = defender.models + (1 if defender.hero else 0)
    return Result(engine, tally, models, None if engine == "exact" else seed, label=label)


def _tail(result: Result, quality: int) -> list[str]:
    """The closing lines of the text report: the morale test (seed 002: a Quality test)."""
    fails = morale_fail_probability(result.tally, quality)
    return [
        f"P(morale test due): {result.shielded_after:.4f}",
        f"P(morale test failed, Quality {quality}+): {fails:.4f}",
    ]


def _json(result: Result) -> dict[str, Any]:
    """The Grimdark Future JSON contract: the shared keys with "wounds", and P(morale test due)."""
    return {**result.json_head("wounds"), "morale_test_due": {"p": result.shielded_after}}


def _melee(flags: dict[str, Any]) -> bool:
    phase = flags.get("--phase") or "assault"
    if phase not in ("assault", "combat", "shooting", "melee"):
        raise InputError("--phase", phase, "assault (shooting) or combat (melee)")
    return bool(flags.get("--melee")) or phase in ("combat", "melee")


def run_named(
    attacker_name: str, target_name: str, flags: dict[str, Any], opts: dict[str, Any]
) -> tuple[dict[str, Any], str, list[str]]:
    """``attack ATTACKER TARGET --system grimdark``: units from profiles/grimdark (and --profiles)."""
    from .profiles import load_units, unit_attacker, unit_defender

    units = load_units(flags.get("--profiles") or [])
    a = _attacker_unit(units, attacker_name, "ATTACKER")
    t, hero = _target_and_hero(units, target_name, "TARGET", flags.get("--target-hero"))
    melee = _melee(flags)
    alive = flags.get("--attacker-models")
    models = None if alive is None else whole("--attacker-models", alive, 1, a.models, "attacking models left")
    t_models = t.models
    state = flags.get("--target-state")
    if state:
        key, _, value = str(state).partition("=")
        if key.strip() != "models" or not value:
            raise InputError("--target-state", state, "models=N (Grimdark Future units carry no other state)")
        t_models = whole("--target-state models", value, 1, t.models, "models left")
    distance = flags.get("--range")
    attacker = unit_attacker(
        a,
        melee,
        models=models,
        charging=bool(flags.get("--charging")),
        distance=None if distance is None else number("--range", distance, 0, 999, "distance in inches"),
    )
    if attacker is None:
        raise InputError("--phase", "combat" if melee else "assault", f"a phase in which {a.name} has a weapon")
    defender = unit_defender(t, models=t_models, cover=bool(flags.get("--cover")), hero=hero)
    from .compiled import compile_attack

    notes = list(compile_attack(attacker, defender).warnings)
    result = _result(_tally(attacker, defender, opts), defender, opts["seed"], f"{a.name} vs {t.name}")
    out = _json(result)
    out["loadout"] = {
        "attacker": {"unit": a.name, "models": models or a.models, "points": a.points, "source": a.source},
        "target": {"unit": t.name, "models": t_models, "points": t.points, "source": t.source},
        "phase": "melee" if melee else "shooting",
    }
    if hero is not None:
        out["loadout"]["target"]["hero"] = {
            "unit": hero.name, "tough": hero.tough, "defense": hero.defense, "quality": hero.quality,
            "points": hero.points, "source": hero.source,
        }  # fmt: skip
    tail = _tail(result, morale_quality(defender))
    joined = f" + {hero.name} (Tough({hero.tough}), wounded last)" if hero is not None else ""
    head = (
        f"{models or a.models} {a.name} ({a.points} pts) vs {t_models} {t.name}{joined}, "
        f"{'melee' if melee else 'shooting'}"
    )
    return out, head + "\n" + result.text_report("Wounds", tail), notes


def compare_rows(
    unit_name: str, targets: list[str], flags: dict[str, Any], opts: dict[str, Any]
) -> list[dict[str, Any]]:
    """``compare UNIT --vs T --system grimdark``: the unit against each target, per 100 points."""
    from .profiles import load_units, unit_attacker, unit_defender

    units = load_units(flags.get("--profiles") or [])
    a = _attacker_unit(units, unit_name, "UNIT")
    melee = _melee(flags)
    distance = flags.get("--range")
    attacker = unit_attacker(
        a,
        melee,
        charging=bool(flags.get("--charging")),
        distance=None if distance is None else number("--range", distance, 0, 999, "distance in inches"),
    )
    if attacker is None:
        raise InputError("--phase", "combat" if melee else "assault", f"a phase in which {a.name} has a weapon")
    rows = []
    for name in targets:
        t, hero = _target_and_hero(units, name.split(":")[0], "--vs")
        defender = unit_defender(t, cover=bool(flags.get("--cover")), hero=hero)
        result = _result(_tally(attacker, defender, opts), defender, opts["seed"], a.name)
        per = 100.0 / a.points if a.points else float("nan")
        row: dict[str, Any] = {
            "unit": a.name,
            "models": a.models,
            "upgrades": "-",
            "use": "-",
            "minerals": a.points,
            "target": f"{defender.models} {t.name}" + (f" + {hero.name}" if hero is not None else ""),
            "phase": "melee" if melee else "shooting",
            "engine": result.engine,
            "trials": result.trials,
            "damage_mean": result.damage.mean,
            "damage_se": result.damage.stderr,
            "destroyed_mean": result.models_destroyed.mean,
            "destroyed_se": result.models_destroyed.stderr,
            "p_destroy": result.unit_destroyed,
            "p_destroy_se": result.unit_destroyed_stderr,
            "damage_per_100": result.damage.mean * per,
            "kills_per_100": result.models_destroyed.mean * per,
            "morale_test_due": result.shielded_after,
            "rank": 1,
        }
        for k in range(1, result.models + 1):
            row[f"p_ge_{k}"] = result.models_destroyed.at_least(k)
        rows.append(row)
    return rows


def matchup_rows(a_name: str, b_name: str, flags: dict[str, Any], opts: dict[str, Any]) -> list[dict[str, Any]]:
    """``matchup A B --system grimdark``: both directions, shooting then melee."""
    from .profiles import load_units, unit_attacker, unit_defender

    units = load_units(flags.get("--profiles") or [])
    a = _attacker_unit(units, a_name.split(":")[0], "A")
    b = _attacker_unit(units, b_name.split(":")[0], "B")
    distance = flags.get("--range")
    dist = None if distance is None else number("--range", distance, 0, 999, "distance in inches")
    rows: list[dict[str, Any]] = []
    for att, dfn in ((a, b), (b, a)):
        for melee in (False, True):
            attacker = unit_attacker(att, melee, distance=None if melee else dist)
            label = {"attacker": f"{att.models} {att.name}", "target": f"{dfn.models} {dfn.name}"}
            phase = "melee" if melee else "shooting"
            if attacker is None:
                rows.append({**label, "phase": phase, "batches": 0})
                continue
            defender = unit_defender(dfn, cover=bool(flags.get("--cover")) and not melee)
            r = _result(_tally(attacker, defender, opts), defender, opts["seed"], att.name)
            rows.append(
                {
                    **label,
                    "phase": phase,
                    "batches": len(attacker.groups),
                    "damage_mean": r.damage.mean,
                    "damage_se": r.damage.stderr,
                    "destroyed_mean": r.models_destroyed.mean,
                    "destroyed_se": r.models_destroyed.stderr,
                    "p_destroy": r.unit_destroyed,
                    "p_destroy_se": r.unit_destroyed_stderr,
                }
            )
    return rows


# --- profiles list / show ----------------------------------------------------------------------------


def _weapon_text(w: Any) -> str:
    rng = "melee" if w.melee else f'{w.range:g}"'
    rules = "".join(f", {r}" for r in w.rules)
    count = f"{w.count}x " if w.count is not None else ""
    return f"{count}{w.name} ({rng}, A{w.attacks}{rules})"


def _unit_dict(u: Any) -> dict[str, Any]:
    return {
        "name": u.name,
        "models": u.models,
        "quality": u.quality,
        "defense": u.defense,
        "tough": u.tough,
        "points": u.points,
        "hero": u.hero,
        "sample": u.sample,
        "source": u.source,
        "rules": [str(r) for r in u.rules],
        "weapons": [
            {
                "name": w.name,
                "count": w.count,
                "range": w.range,
                "melee": w.melee,
                "attacks": w.attacks,
                "rules": [str(r) for r in w.rules],
            }
            for w in u.weapons
        ],
    }


def list_profiles(profiles: list[str]) -> tuple[list[dict[str, Any]], str]:
    """``profiles list --system grimdark``: every unit (built-in samples and ``--profiles`` folders)."""
    from .profiles import load_units

    units = load_units(profiles)
    rows = [_unit_dict(u) for _, u in sorted(units.items())]
    lines = [f"{'unit':<30} {'models':>6} {'Q':>3} {'D':>3} {'Tough':>5} {'pts':>5}  rules"]
    for r in rows:
        rules = ", ".join(r["rules"]) or "-"
        stats = f"{r['models']:>6} {r['quality']:>2}+ {r['defense']:>2}+ {r['tough']:>5} {r['points']:>5}"
        lines.append(f"{r['name']:<30} {stats}  {rules}")
    return rows, "\n".join(lines)


def show_profile(name: str, profiles: list[str]) -> tuple[dict[str, Any], str]:
    """``profiles show NAME --system grimdark``: one unit in full."""
    from .profiles import find_unit, load_units

    u = find_unit(load_units(profiles), name, "NAME")
    data = _unit_dict(u)
    kind = ", hero" if u.hero else ""
    out = [
        f"{u.name} [{u.models}]{kind}{' (sample, not army-book data)' if u.sample else ''}",
        f"  source: {u.source}",
        f"  Quality {u.quality}+  Defense {u.defense}+  Tough({u.tough})  {u.points} pts",
        "  Rules: " + (", ".join(data["rules"]) or "-"),
        "  Weapons:",
    ]
    out += [f"    {_weapon_text(w)}" for w in u.weapons] or ["    -"]
    return data, "\n".join(out)


SYSTEM = GameSystem(
    name="grimdark",
    aliases=("grimdark-future", "gf", "opr", "onepagerules"),
    title="One Page Rules: Grimdark Future",
    adhoc_flags=FLAGS,
    run_adhoc=run_adhoc,
    named_flags=NAMED_FLAGS,
    run_named=run_named,
    compare_rows=compare_rows,
    matchup_rows=matchup_rows,
    list_profiles=list_profiles,
    show_profile=show_profile,
)
register(SYSTEM)
