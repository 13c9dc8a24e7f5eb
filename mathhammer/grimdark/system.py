"""Grimdark Future behind the game-system contract (:class:`mathhammer.systems.GameSystem`).

Its roster is the units of ``profiles/grimdark`` (and ``--profiles``), a
loadout a unit with its models (a hero joins a target written ``"Unit + Hero"``),
an attack one unit's weapons of a phase (shooting or melee) against one unit,
and a Result speaks of wounds and morale tests:

>>> from mathhammer.engine.options import RunOptions
>>> from mathhammer.systems import Query, run
>>> roster = SYSTEM.load_roster()
>>> query = Query("Robot Warriors", "Saurian Warriors", options={"cover": True})
>>> r = run(SYSTEM, SYSTEM.compile(roster, query), RunOptions())
>>> r.system, round(r.wounds.mean, 4), "damage" in dir(r)
('grimdark', 1.25, False)

The ad-hoc parameters: ``models, attacks, quality, rule (a list), target_models,
target_defense, target_tough, target_rule, target_quality, cover, melee,
charging, moved, range, name, target_hero_tough, target_hero_defense, hit_mod
(a number or a list, one entry per effect), versatile (ap, hit or best: the
attacker has Versatile Attack), target_moved, snipe (model or hero)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..systems import Option, Query, ReportFigures, Words, check_options, register
from ..validate import number, target_number, whole
from .compiled import is_melee
from .model import Attacker, Defender, Hero, Weapon, WeaponGroup
from .morale import morale_quality
from .outcomes import OUTCOMES, Described, hero_json
from .rules import Rule, parse_rules

if TYPE_CHECKING:  # pragma: no cover
    from ..cells import Plan
    from ..engine.options import RunOptions
    from ..outcome import Outcome, Tally
    from ..results import Result
    from .melee_attack import GrimdarkMelee

#: The phases of an attack (core rules: Shooting, Melee); ``assault``/``combat`` are read as these.
PHASES = {"shooting": "shooting", "melee": "melee"}
_PHASE_ALIASES = {"shooting": "shooting", "assault": "shooting", "melee": "melee", "combat": "melee"}

#: The situation switches of a named attack.
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("attacker_models", "attacking models left (at most the unit's)", "int"),
        Option("target_left", "target models left at the start of the attack", "int"),
        Option("cover", "the target is in cover: +1 to Defense rolls against shooting (core rules, Cover)"),
        Option("charging", "the attacker charged (Furious, Impact, Lance, Thrust)"),
        Option("moved", "the attacker moved before shooting (GF v3.5 common rules, Indirect: -1 to hit after moving)"),
        Option(
            "hit_mod",
            "modifiers to hit, one per effect (a number or a list: [1, -1]); Lock-On and Unstoppable drop the "
            "negative ones, the total is capped at +1/-1",
            "str",
        ),
        Option(
            "versatile",
            "Versatile Attack's pick (GF v3.5 army books): ap (AP(+1)) or hit (+1 to hit); default: the one with "
            "more expected wounds",
            "str",
        ),
        Option(
            "snipe",
            "Takedown/Sniper's individual target (GF v3.5 common rules): model (a model of the unit, the default) "
            "or hero (the joined hero; single attacks, not in a melee)",
            "str",
        ),
        Option("target_moved", "the target moved this round (GF v3.5 common rules, Entrenched: no -2 to hit then)"),
        Option("hero", "a hero joined to the target, wounded last (core rules, Hero)", "str"),
        Option("fatigued", "the attacker already fought a melee this round: hits only on unmodified 6s, no Impact"),
        Option("target_fatigued", "the target already fought a melee this round: strikes back hitting only on 6s"),
    )
}

ADHOC_PARAMS = frozenset(
    {
        "models", "attacks", "quality", "rule", "target_models", "target_defense", "target_tough", "target_rule",
        "target_quality", "cover", "melee", "charging", "moved", "fatigued", "range", "name", "target_hero_tough",
        "target_hero_defense", "hit_mod", "versatile", "target_moved", "snipe",
    }
)  # fmt: skip

#: Tolerance runs stop at this many trials at most (``min_trials`` doubled ten times).
MAX_ADAPTIVE_TRIALS = 100_000 * 2**10


@dataclass(frozen=True, eq=False)
class GrimdarkAttack(Described):
    """One Grimdark Future attack: the attacker's weapon groups against a defender.

    Attributes:
        attacker, defender: the attack's two sides (and :class:`~mathhammer.grimdark.outcomes.Described`'s
            label, notes, loadout and head, by keyword).
    """

    attacker: Attacker
    defender: Defender

    @property
    def models(self) -> int:
        return self.defender.models + (1 if self.defender.hero else 0)

    @property
    def batches(self) -> int:
        return len(self.attacker.groups)


def hit_mods(value: Any) -> tuple[int, ...]:
    """``hit_mod`` as separate entries: one number (``1``, ``"-1"``) or a sequence of them.

    >>> hit_mods(["1", "-1"]), hit_mods(-1), hit_mods(None)
    ((1, -1), (-1,), ())
    """
    if value is None:
        return ()
    items = value if isinstance(value, list | tuple) else [value]
    return tuple(whole("hit_mod", v, -9, 9, "a modifier to hit from -9 to 9, e.g. 1 or -1") for v in items)


def _versatile(value: Any) -> str | None:
    """Versatile Attack's pick: ``ap``, ``hit``, or ``best`` (None: the engine picks)."""
    v = str(value).strip().lower()
    if v not in ("ap", "hit", "best"):
        raise InputError("versatile", value, "ap (AP(+1)), hit (+1 to hit rolls) or best (the more expected wounds)")
    return None if v == "best" else v


def build_adhoc(params: Mapping[str, Any]) -> tuple[Attacker, Defender]:
    """The attacker (one weapon group) and the defender from raw values by parameter name."""
    unknown = sorted(set(params) - ADHOC_PARAMS)
    if unknown:
        allowed = "an ad-hoc Grimdark Future parameter: " + ", ".join(sorted(ADHOC_PARAMS))
        raise InputError(unknown[0], params[unknown[0]], allowed)

    def get(name: str, default: Any) -> Any:
        value = params.get(name)
        return default if value is None else value

    distance = get("range", None)
    weapon = Weapon(
        get("name", "weapon"),
        attacks=whole("attacks", get("attacks", "1"), 0, 99, "attacks (A) per model"),
        melee=bool(get("melee", False)),
        rules=parse_rules(get("rule", []), "weapon", "rule"),
    )
    attacker = Attacker(
        (WeaponGroup(whole("models", get("models", "1"), 0, 999, "attacking models"), weapon),),
        quality=target_number("quality", get("quality", "4"), "Quality"),
        charging=bool(get("charging", False)),
        moved=bool(get("moved", False)),
        fatigued=bool(get("fatigued", False)),
        distance=None if distance is None else number("range", distance, 0, 999, "distance in inches"),
        hit_modifiers=hit_mods(params.get("hit_mod")),
        # an ad-hoc --versatile: the attacker has Versatile Attack; "best" lets the engine pick
        rules=(Rule("Versatile Attack"),) if params.get("versatile") is not None else (),
        versatile=None if params.get("versatile") is None else _versatile(params["versatile"]),
        snipe=None if params.get("snipe") is None else str(params["snipe"]).strip().lower(),
    )
    defense = target_number("target_defense", get("target_defense", "4"), "Defense")
    hero = None
    if params.get("target_hero_tough") is not None or params.get("target_hero_defense") is not None:
        hero = Hero(
            tough=whole("target_hero_tough", get("target_hero_tough", "1"), 1, 99, "the hero's Tough(X)"),
            defense=target_number("target_hero_defense", get("target_hero_defense", defense), "Defense"),
        )
    defender = Defender(
        models=whole("target_models", get("target_models", "1"), 1, 999, "models in the target unit"),
        defense=defense,
        hero=hero,
        tough=whole("target_tough", get("target_tough", "1"), 1, 99, "Tough(X) per model"),
        quality=target_number("target_quality", get("target_quality", "4"), "Quality"),
        rules=parse_rules(get("target_rule", []), "unit", "target_rule"),
        cover=bool(get("cover", False)),
        moved=bool(get("target_moved", False)),
    )
    return attacker, defender


def morale_lines(attacker: Attacker, defender: Defender) -> list[str]:
    """The text report's closing lines on morale (GF v3.5.1 core rules, Morale; GF v3.5 common rules, Fearless).

    >>> from .model import Weapon, WeaponGroup
    >>> morale_lines(Attacker((WeaponGroup(1, Weapon("Claws", melee=True)),)), Defender(5))[0].split(";")[0]
    'morale after melee: no test from wounds, the melee result decides'
    """
    if is_melee(attacker):
        return [
            "morale after melee: no test from wounds, the melee result decides; this one-sided attack has no "
            "strikes back: name both units (attack A B --system gf --melee) or run a Melee to resolve it"
        ]
    quality = morale_quality(defender)
    fearless = defender.fearless and (defender.hero is None or defender.hero.fearless)
    how = f"one test at Quality {quality}+" + (" (Fearless: a fail passes on a 4+)" if fearless else "")
    return [f"morale test from wounds: {how}; failed: Shaken (a test from wounds never Routs)"]


def _picked(attacker: Attacker, defender: Defender) -> tuple[Attacker, tuple[str, ...]]:
    """The attacker with Versatile Attack's pick made (when it has the rule and no pick), and the attack's
    notes (the pick included)."""
    from .compiled import compile_attack
    from .exact import versatile_choice

    notes: list[str] = []
    attacker = versatile_choice(attacker, defender, notes)
    return attacker, tuple(notes) + tuple(compile_attack(attacker, defender).warnings)


def _phase(phase: str | None) -> str:
    found = _PHASE_ALIASES.get(str(phase or "shooting").lower())
    if found is None:
        raise InputError("phase", phase, "shooting (assault) or melee (combat)")
    return found


@dataclass(frozen=True, repr=False)
class GFLoadout:
    """A Grimdark Future unit as fielded: its models and a joined hero (either side)."""

    unit: Any
    models: int
    hero: Any = None

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def points(self) -> int:
        return int(self.unit.points) + (int(self.hero.points) if self.hero is not None else 0)

    @property
    def label(self) -> str:
        return f"{self.models} {self.unit.name}" + (f" + {self.hero.name}" if self.hero is not None else "")

    def __repr__(self) -> str:
        return f"<Loadout {self.label}, {self.points} pts>"


#: The army-efficiency report in Grimdark Future's words: ranked by wounds per 100 points.
REPORT_FIGURES = ReportFigures(
    headline="wounds_per_100",
    phases={"assault": "shooting", "combat": "melee"},
    distance="shooting distance",
    phases_note="shooting and melee on their own",
)


def _figures(r: Result) -> dict[str, float]:
    """The figures every compare and matchup row holds: mean wounds, models destroyed and P(destroy), each
    with its standard error; a melee's also P(win/draw/lose) for the charger and the wounds it took."""
    figures = {
        "wounds_mean": r.wounds.mean,
        "wounds_se": r.wounds.stderr,
        "destroyed_mean": r.models_destroyed.mean,
        "destroyed_se": r.models_destroyed.stderr,
        "p_destroy": r.unit_destroyed,
        "p_destroy_se": r.unit_destroyed_stderr,
    }
    if hasattr(r, "melee_won"):  # a melee resolved both ways: who wins it, and the charger's losses
        figures.update(
            p_win=r.melee_won, p_draw=r.melee_drawn, p_lose=r.melee_lost, wounds_taken=r.attacker_wounds.mean
        )
    return figures


class Grimdark:
    """One Page Rules: Grimdark Future (see the module docstring)."""

    name = "grimdark"
    aliases: tuple[str, ...] = ("grimdark-future", "gf", "opr", "onepagerules")
    title = "One Page Rules: Grimdark Future"
    outcomes: tuple[Outcome, ...] = OUTCOMES
    words: Words = Words(cost="points", dealt="wounds", slot=None, phases=PHASES)
    report_figures: ReportFigures = REPORT_FIGURES
    options: Mapping[str, Option] = OPTIONS
    adhoc_params: frozenset[str] = ADHOC_PARAMS
    unit_filters: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return f"<GameSystem {self.name}: {self.title}>"

    # --- units -----------------------------------------------------------------------------------------

    def load_roster(self, profiles: Sequence[str | Path] = ()) -> Any:
        from .profiles import load_units

        return load_units(list(profiles))

    def find_unit(self, roster: Any, name: str, field: str = "unit") -> Any:
        from .profiles import find_unit

        return find_unit(roster, name, field)

    def unit_names(self, roster: Any) -> list[str]:
        return sorted(u.name for u in roster.values())

    def loadout(
        self,
        roster: Any,
        name: str,
        models: int | None = None,
        upgrades: Sequence[str] = (),
        use: Sequence[str] = (),
        field: str = "unit",
    ) -> GFLoadout:
        """A unit with ``models`` of its models (all by default); ``"Unit + Hero"`` joins a hero to it."""
        from .profiles import find_unit, join_hero, split_joined

        if upgrades:
            raise InputError(
                "upgrades", next(iter(upgrades)), "none (Grimdark Future units here have no upgrade options)"
            )
        if use:
            raise InputError("use", next(iter(use)), "none (Grimdark Future units have no abilities to switch on)")
        unit_name, hero_name = split_joined(name)
        unit = find_unit(roster, unit_name, field)
        hero = None
        if hero_name is not None:
            if not hero_name:
                raise InputError(field, name, "'Unit + Hero' with a hero's name after '+'")
            hero_field = f"{field} (the hero after '+')"
            hero = join_hero(unit, find_unit(roster, hero_name, hero_field), hero_field)
        n = unit.models if models is None else whole("models", models, 1, unit.models, f"models of {unit.name}")
        return GFLoadout(unit, n, hero)

    # --- attacks ---------------------------------------------------------------------------------------

    def compile(self, roster: Any, query: Query) -> GrimdarkAttack | GrimdarkMelee:
        """A named attack; options: :data:`OPTIONS`."""
        from .profiles import find_unit, join_hero, unit_attacker, unit_defender

        check_options(self.options, query.options, self.title)
        o = query.options
        if query.upgrades or query.target_upgrades or query.use or query.target_use:
            which = next(k for k in ("upgrades", "use", "target_upgrades", "target_use") if getattr(query, k))
            raise InputError(which, next(iter(getattr(query, which))), "none (Grimdark Future units have no upgrades)")
        a = self.loadout(roster, query.attacker, field="attacker")
        melee = _phase(query.phase) == "melee"
        for name in ("fatigued", "target_fatigued"):
            if o.get(name) and not melee:
                raise InputError(name, True, "melee only (fatigue comes from fighting in melee)")
        t = self.loadout(roster, query.target, field="target")
        hero = t.hero
        if o.get("hero"):
            if hero is not None:
                raise InputError("hero", o["hero"], "either hero or a target written 'Unit + Hero'")
            hero = join_hero(t.unit, find_unit(roster, str(o["hero"]), "hero"), "hero")
        models = query.models if query.models is not None else o.get("attacker_models")
        if query.models is not None and o.get("attacker_models") is not None:
            raise InputError("attacker_models", o["attacker_models"], "either models or attacker_models")
        alive = None if models is None else whole("attacker_models", models, 1, a.unit.models, "attacking models left")
        left = query.target_models if query.target_models is not None else o.get("target_left")
        t_models = t.unit.models if left is None else whole("target_left", left, 1, t.unit.models, "models left")
        distance = None if query.distance is None else number("range", query.distance, 0, 999, "distance in inches")
        attacker = unit_attacker(a.unit, melee, models=alive, charging=bool(o.get("charging")), distance=distance)
        if a.hero is not None:  # a joined hero attacks with its own weapons at its own Quality (core rules, Hero)
            extra = unit_attacker(a.hero, melee, charging=bool(o.get("charging")), distance=distance)
            if extra is not None:
                own = tuple(dataclasses.replace(g, quality=a.hero.quality) for g in extra.groups)
                base = attacker if attacker is not None else dataclasses.replace(extra, quality=a.unit.quality)
                attacker = dataclasses.replace(base, groups=(attacker.groups if attacker else ()) + own)
        if attacker is not None and o.get("moved"):
            attacker = dataclasses.replace(attacker, moved=True)
        if attacker is None:
            raise InputError("phase", "melee" if melee else "shooting", f"a phase in which {a.name} has a weapon")
        snipe = None if o.get("snipe") is None else str(o["snipe"]).strip().lower()
        attacker = dataclasses.replace(attacker, hit_modifiers=hit_mods(o.get("hit_mod")), snipe=snipe)
        if o.get("versatile") is not None:
            if not any(r.name == "Versatile Attack" for r in a.unit.rules):
                raise InputError("versatile", o["versatile"], f"no versatile: {a.name} has no Versatile Attack rule")
            attacker = dataclasses.replace(attacker, versatile=_versatile(o["versatile"]))
        if melee and o.get("cover"):
            raise InputError("cover", True, "shooting only (cover gives +1 Defense against shooting, not melee)")
        if melee:
            from .melee_attack import melee_attack

            return melee_attack(a, t, hero, alive, t_models, o, attacker)
        defender = unit_defender(t.unit, models=t_models, cover=bool(o.get("cover")), hero=hero)
        if o.get("target_moved"):
            defender = dataclasses.replace(defender, moved=True)
        loadout: dict[str, Any] = {
            "attacker": {
                "unit": a.name,
                "models": alive or a.unit.models,
                "points": a.unit.points,
                "source": a.unit.source,
            },
            "target": {"unit": t.name, "models": t_models, "points": t.unit.points, "source": t.unit.source},
            "phase": "melee" if melee else "shooting",
        }
        for side, joined_hero in (("attacker", a.hero), ("target", hero)):
            if joined_hero is not None:
                loadout[side]["hero"] = hero_json(joined_hero)
        joined = f" + {hero.name} (Tough({hero.tough}), wounded last)" if hero is not None else ""
        a_hero = f" + {a.hero.name}" if a.hero is not None else ""
        head = (
            f"{alive or a.unit.models} {a.name}{a_hero} ({a.points} pts) vs {t_models} {t.name}{joined}, "
            f"{'melee' if melee else 'shooting'}"
        )
        attacker, notes = _picked(attacker, defender)
        return GrimdarkAttack(
            attacker, defender, label=f"{a.name} vs {t.name}", notes=notes, loadout=loadout, head=head
        )

    def adhoc(self, params: Mapping[str, Any]) -> GrimdarkAttack:
        attacker, defender = build_adhoc(params)
        attacker, notes = _picked(attacker, defender)
        return GrimdarkAttack(attacker, defender, label="Grimdark Future", notes=notes)

    def wrap(self, attack: Any, target: Any = None, label: str | None = None) -> GrimdarkAttack | GrimdarkMelee | None:
        """The Python API's objects as an attack: an Attacker with a Defender; None for another system's."""
        if isinstance(attack, GrimdarkAttack):
            return attack
        from .melee import Melee

        if isinstance(attack, Melee):
            from .melee_attack import GrimdarkMelee, notes_of

            if target is not None:
                raise InputError("target", target, "none with a Melee (it holds both sides)")
            return GrimdarkMelee(attack, label=label or "Grimdark Future melee", notes=notes_of(attack))
        if not isinstance(attack, Attacker):
            return None
        if not isinstance(target, Defender):
            raise InputError("target", target, "a Grimdark Future Defender for an Attacker")
        attack, notes = _picked(attack, target)
        return GrimdarkAttack(attack, target, label=label or "Grimdark Future", notes=notes)

    def exact_seconds(self, compiled: Any) -> float:
        """The estimated seconds of :meth:`exact`, from table sizes (a report prices an exact sweep with it)."""
        from .compiled import compile_attack
        from .exact import exact_cost
        from .melee_cost import melee_cost

        if hasattr(compiled, "melee"):
            return melee_cost(compiled.melee)[0]
        return exact_cost(compile_attack(compiled.attacker, compiled.defender))[0]

    def exact(self, compiled: Any) -> Tally:
        from .exact import grimdark_exact

        if hasattr(compiled, "melee"):
            from .melee_exact import melee_exact

            return melee_exact(compiled.melee)
        return grimdark_exact(compiled.attacker, compiled.defender)

    def simulate(self, compiled: Any, options: RunOptions, watch: str = "both") -> Tally:
        from ..engine.adaptive import until
        from ..engine.options import MIN_TRIALS
        from .engine import grimdark_simulate
        from .outcomes import result

        def run_to(n: int) -> Tally:
            if hasattr(compiled, "melee"):
                from .melee_engine import melee_simulate

                return melee_simulate(compiled.melee, n, seed=options.seed)
            return grimdark_simulate(compiled.attacker, compiled.defender, n, seed=options.seed)

        if options.tolerance is None:
            assert options.trials is not None
            return run_to(options.trials)  # in timed blocks, priced as it goes (super_blocks)

        def watched(tally: Tally) -> float:
            r = result(tally, compiled.models, options.seed, "")
            se = {"dealt": r.wounds.stderr, "p_destroy": r.unit_destroyed_stderr}
            return max(se.values()) if watch == "both" else se[watch]

        return until(run_to, watched, options.tolerance, MIN_TRIALS, MAX_ADAPTIVE_TRIALS)

    def render(self, compiled: Any, result: Result) -> str:
        if hasattr(compiled, "melee"):
            from .melee_attack import melee_lines

            text = result.text_report(melee_lines(compiled.melee))
        else:  # one-sided: a test from wounds never Routs; after a melee attack no test from wounds at all
            gone = ("morale_test_due", "morale_passed", "morale_shaken") if is_melee(compiled.attacker) else ()
            result = result.without(*gone, "morale_routed")
            text = result.text_report(morale_lines(compiled.attacker, compiled.defender))
        return compiled.head + "\n" + text if compiled.head else text

    # --- sweeps ----------------------------------------------------------------------------------------

    def compare(
        self,
        roster: Any,
        unit: str,
        targets: Sequence[str],
        query: Query,
        options: RunOptions,
        compositions: Sequence[int] = (),
        upgrade_pool: Sequence[str] | None = None,
        rank_by: str = "kills-per-100",
    ) -> list[dict[str, Any]]:
        """The unit against each target, per 100 points (a Grimdark unit has one loadout here)."""
        from ..systems import run

        if compositions:
            raise InputError("compositions", next(iter(compositions)), "none (Grimdark Future units have one size)")
        if upgrade_pool:
            raise InputError("upgrades", next(iter(upgrade_pool)), "none (Grimdark Future units have no upgrades)")
        if query.use:
            raise InputError("use", query.use[0], "none (Grimdark Future units have no abilities to use)")
        if rank_by not in ("kills-per-100", "wounds-per-100", "p-destroy", "wounds"):  # its words: wounds, not damage
            raise InputError("rank_by", rank_by, "kills-per-100, wounds-per-100, p-destroy or wounds")
        rows = []
        for name in targets:
            target, colon, models = name.partition(":")
            left = whole("vs", models, 1, 999, "NAME or NAME:MODELS (models left)") if colon else None
            q = Query(
                unit, target.strip(), query.models, left, phase=query.phase, distance=query.distance,
                options=query.options,
            )  # fmt: skip
            attack = self.compile(roster, q)
            r = run(self, attack, options, attack.label, watch="p_destroy")
            a = attack.loadout["attacker"]
            per = 100.0 / a["points"] if a["points"] else float("nan")
            d = attack.defender
            hero = attack.loadout["target"].get("hero")
            row: dict[str, Any] = {
                "unit": a["unit"],
                "models": a["models"],
                "upgrades": "-",
                "use": "-",
                "points": a["points"],
                "target": f"{d.models} {attack.loadout['target']['unit']}" + (f" + {hero['unit']}" if hero else ""),
                "phase": attack.loadout["phase"],
                "target_state": f"{d.models} of {d.starting_models} models left"
                + (f", {hero['unit']} joined" if hero else ""),
                "engine": r.engine,
                "trials": r.trials,
                **_figures(r),
                "wounds_per_100": r.wounds.mean * per,
                "kills_per_100": r.models_destroyed.mean * per,
                "morale_test_due": r.morale_test_due,
                "rank": 1,
            }
            for k in range(1, r.models + 1):
                row[f"p_ge_{k}"] = r.models_destroyed.at_least(k)
            rows.append(row)
        return rows

    def matchup(self, roster: Any, query: Query, options: RunOptions) -> list[dict[str, Any]]:
        """Both directions, shooting then melee, from full units (cover only against shooting)."""
        from ..systems import run

        check_options(self.options, query.options, self.title)
        sides = {"a_upgrades": query.upgrades, "b_upgrades": query.target_upgrades, "a_use": query.use}
        for field, given in (sides | {"b_use": query.target_use}).items():
            if given:  # a matchup would drop them unseen
                raise InputError(field, given[0], "none (Grimdark Future units have no upgrades or abilities to use)")
        o = query.options
        rows: list[dict[str, Any]] = []
        for field, text in (("a", query.attacker), ("b", query.target)):
            if ":" in text:  # a count would be dropped unseen
                raise InputError(field, text, "a unit's NAME: a Grimdark Future matchup is between whole units")
        names = (query.attacker.strip(), query.target.strip())
        a = self.loadout(roster, names[0], field="a")
        b = self.loadout(roster, names[1], field="b")
        for att, dfn in ((a, b), (b, a)):
            for phase in ("shooting", "melee"):
                label = {"attacker": att.label, "target": dfn.label}
                opts = {k: v for k, v in o.items() if not (phase == "melee" and k == "cover")}
                q = Query(
                    att.name, dfn.name, phase=phase, distance=None if phase == "melee" else query.distance, options=opts
                )
                try:
                    attack = self.compile(roster, q)
                except InputError as exc:
                    if exc.field != "phase":
                        raise
                    rows.append({**label, "phase": phase, "batches": 0})
                    continue
                r = run(self, attack, options, att.name)
                rows.append(
                    {
                        **label,
                        "phase": phase,
                        "batches": attack.batches,
                        "trials": r.trials,
                        **_figures(r),
                    }
                )
        return rows

    def report_plan(
        self, armies: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
    ) -> Plan:
        """Two unit files against each other, or every unit of the profiles against every unit."""
        from .report import report_plan

        return report_plan(self, armies, roster, profiles, distance)

    # --- profiles --------------------------------------------------------------------------------------

    def describe_units(self, roster: Any, filters: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], str]:
        from .present import list_units

        for key, value in (filters or {}).items():
            raise InputError(key, value, "no filter with Grimdark Future (its units have no race)")
        return list_units(roster)

    def describe_unit(self, roster: Any, name: str) -> tuple[dict[str, Any], str]:
        from .present import show_unit

        return show_unit(self.find_unit(roster, name, "NAME"))

    def validate_dir(self, folder: str | Path) -> str:
        from ..profiles.loader import as_folder, toml_files
        from .profiles import load_units

        path = as_folder(folder, "FOLDER")
        units = load_units([path], builtin=False)
        files = toml_files(path, "no such file or folder")
        return f"ok: {len(files)} files, {len(units)} units"


SYSTEM = register(Grimdark())
