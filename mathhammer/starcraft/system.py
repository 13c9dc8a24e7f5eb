"""StarCraft TMG behind the game-system contract (:class:`mathhammer.systems.GameSystem`).

Its roster is the unit cards of ``profiles/starcraft`` (and ``--profiles``),
a loadout a composition with upgrades and abilities switched on (9.1.7), an
attack the Batches of 8.7.3 against one unit, both engines 8.7.4's procedure
(:mod:`mathhammer.starcraft.exact`, :mod:`mathhammer.starcraft.montecarlo`),
and a Result speaks of Damage, the Damage Marker and SHIELDED.

>>> from mathhammer.engine.options import RunOptions
>>> from mathhammer.systems import Query, run
>>> roster = SYSTEM.load_roster()
>>> SYSTEM.loadout(roster, "Marine", 9, ["AGG-12"])
<Loadout 9 Marine (AGG-12), 220 minerals>
>>> r = run(SYSTEM, SYSTEM.compile(roster, Query("Marine", "Zergling", distance=10)), RunOptions())
>>> r.system, round(r.damage.mean, 4) > 0, "wounds" in dir(r)
('starcraft', True, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dice import SDice
from ..errors import InputError
from ..systems import Option, Query, ReportFigures, Words, register
from ..validate import number, target_number, whole
from .keywords import parse_keywords
from .model import Batch, ModelGroup, Target, Weapon, parse_surge, parse_tags
from .outcomes import OUTCOMES
from .query import OPTIONS, PHASES, StarCraftAttack, compile_query, reduction_note

if TYPE_CHECKING:  # pragma: no cover
    from ..cells import Plan
    from ..engine.options import RunOptions
    from ..outcome import Outcome, Tally
    from ..results import Result

#: The ad-hoc attack's parameters (``mathhammer attack --roa 2 ...``) and their defaults.
ADHOC_DEFAULTS: dict[str, Any] = {
    "models": "1",
    "roa": "1",
    "hit": "4",
    "damage": "1",
    "target_models": "1",
    "target_hp": "1",
    "target_shield": "0",
    "target_armour": "4",
    "target_evade": "6",
    "target_tags": "",
    "target_marker": "0",
    "damage_reduction": "0",
    "reduction_floor": "0",
}
ADHOC_PARAMS = frozenset(
    {
        "models", "roa", "hit", "damage", "surge", "keyword", "weapon_range", "name", "range", "target_models",
        "target_hp", "target_shield", "target_armour", "target_evade", "target_tags", "target_keyword",
        "target_marker", "target_visible", "evade_eligible", "target_stationary", "target_unshielded",
        "damage_reduction", "reduction_floor",
    }
)  # fmt: skip


def build_adhoc(params: Mapping[str, Any]) -> tuple[Batch, Target, list[str]]:
    """The ad-hoc Batch and target from raw parameter values (errors name the parameter); also notes."""
    unknown = sorted(set(params) - ADHOC_PARAMS)
    if unknown:
        raise InputError(
            unknown[0], params[unknown[0]], "an ad-hoc StarCraft TMG parameter: " + ", ".join(sorted(ADHOC_PARAMS))
        )
    v = {k: (params.get(k) if params.get(k) is not None else ADHOC_DEFAULTS.get(k)) for k in ADHOC_PARAMS}
    notes: list[str] = []
    surge_tags: tuple[str, ...] = ()
    surge_dice: SDice | None = None
    if v["surge"]:
        surge_tags, surge_dice = parse_surge(v["surge"], "surge")
    wr = v["weapon_range"]
    dist = None if v["range"] is None else number("range", v["range"], 0, 999, "distance in inches")
    weapon = Weapon(
        name=v["name"] or "weapon",
        roa=whole("roa", v["roa"], 0, 99, "Rate of Attack"),
        hit=target_number("hit", v["hit"], "Hit"),
        damage=whole("damage", v["damage"], 1, 99, "Damage"),
        range=None if wr is None else number("weapon_range", wr, 0, 999, "profile range in inches"),
        surge_tags=surge_tags,
        surge_dice=surge_dice,
        keywords=parse_keywords(v["keyword"] or [], "weapon", "keyword"),
    )
    if dist is not None and weapon.range is None and any(k.name == "LONG RANGE" for k in weapon.keywords):
        raise InputError("weapon_range", None, "the profile range in inches, needed with LONG RANGE and a range")
    if dist is None and any(k.name in ("BURST FIRE", "LONG RANGE") for k in weapon.keywords):
        notes.append("no range given: models are taken to be within profile range and beyond BURST FIRE distance")
    batch = Batch.at(weapon, whole("models", v["models"], 0, 999, "attacking models"), dist)
    visible = v["target_visible"]
    if params.get("reduction_floor") is not None and params.get("damage_reduction") is None:
        raise InputError(
            "reduction_floor", params["reduction_floor"], "with damage_reduction N (the reduction it bounds)"
        )
    target = Target(
        groups=(
            ModelGroup(
                whole("target_models", v["target_models"], 1, 999, "models in the target unit"),
                whole("target_hp", v["target_hp"], 1, 999, "Hit Points per model"),
            ),
        ),
        armour=target_number("target_armour", v["target_armour"], "Armour"),
        evade=target_number("target_evade", v["target_evade"], "Evade"),
        shield=whole("target_shield", v["target_shield"], 0, 99, "Shield"),
        tags=parse_tags(str(v["target_tags"] or ""), "target_tags"),
        keywords=parse_keywords(v["target_keyword"] or [], "target", "target_keyword"),
        marker=whole("target_marker", v["target_marker"], 0, 999, "Damage Marker"),
        shielded=False if v["target_unshielded"] else None,
        visible=None if visible is None else whole("target_visible", visible, 1, 999, "visible models"),
        evade_eligible=bool(v["evade_eligible"]),
        stationary=bool(v["target_stationary"]),
        damage_reduction=whole("damage_reduction", v["damage_reduction"], 0, 99, "Total Damage reduction"),
        reduction_floor=whole("reduction_floor", v["reduction_floor"], 0, 99, "minimum Total Damage"),
    )
    if target.damage_reduction:
        notes.append(reduction_note(target))
    return batch, target, notes


#: The army-efficiency report in StarCraft TMG's words: ranked by Supply removed per 100 minerals.
REPORT_FIGURES = ReportFigures(
    headline="supply_removed_per_100",
    phases={"assault": "Assault Phase (ranged)", "combat": "Combat Phase"},
    distance="Assault Phase distance",
    phases_note="each phase on its own (the Assault Phase's ranged attacks, the Combat Phase's close combat)",
    slot_removed="E[Supply(full) − Supply(models left)], from the card's Models/Supply brackets",
)


class StarCraft:
    """StarCraft: Tabletop Miniatures Game (see the module docstring)."""

    name = "starcraft"
    aliases: tuple[str, ...] = ("sc", "sctmg", "starcraft-tmg", "tmg")
    title = "StarCraft: Tabletop Miniatures Game"
    outcomes: tuple[Outcome, ...] = OUTCOMES
    words: Words = Words(cost="minerals", dealt="damage", slot="Supply", phases=PHASES)
    report_figures: ReportFigures = REPORT_FIGURES
    options: Mapping[str, Option] = OPTIONS
    adhoc_params: frozenset[str] = ADHOC_PARAMS
    unit_filters: frozenset[str] = frozenset({"race"})

    def __repr__(self) -> str:
        return f"<GameSystem {self.name}: {self.title}>"

    # --- units -----------------------------------------------------------------------------------------

    def load_roster(self, profiles: Sequence[str | Path] = ()) -> Any:
        from .roster import load_roster

        return load_roster(list(profiles), plain=True)

    def find_unit(self, roster: Any, name: str, field: str = "unit") -> Any:
        return roster.unit(name, field)

    def unit_names(self, roster: Any) -> list[str]:
        return sorted(roster.units)

    def loadout(
        self,
        roster: Any,
        name: str,
        models: int | None = None,
        upgrades: Sequence[str] = (),
        use: Sequence[str] = (),
        field: str = "unit",
    ) -> Any:
        from .loadout import make_loadout

        unit = roster.unit(name, field)
        n = None if models is None else whole("models", models, 1, 99, "models")
        return make_loadout(unit, n, tuple(upgrades), tuple(use), ("models", "upgrades", "use"))

    # --- attacks ---------------------------------------------------------------------------------------

    def compile(self, roster: Any, query: Query) -> StarCraftAttack:
        return compile_query(roster, query)

    def adhoc(self, params: Mapping[str, Any]) -> StarCraftAttack:
        """An ad-hoc Batch against an ad-hoc target (:func:`build_adhoc`)."""
        batch, target, notes = build_adhoc(params)
        return StarCraftAttack((batch,), target, batch.weapon.name, tuple(notes))

    def attack_of(self, batches: Sequence[Batch], target: Target, label: str | None = None) -> StarCraftAttack:
        """A chain of Batches against a Target, as an attack of this system."""
        return StarCraftAttack(tuple(batches), target, label or " + ".join(b.label for b in batches))

    def wrap(self, attack: Any, target: Any = None, label: str | None = None) -> StarCraftAttack | None:
        """The Python API's objects as an attack: a Batch, Batches or an Attack (with a Target); None for
        objects of another system."""
        from .model import Attack

        if isinstance(attack, StarCraftAttack):
            return attack
        if isinstance(attack, Attack):
            batches, target = attack.batches, target if target is not None else attack.target
        elif isinstance(attack, Batch):
            batches = (attack,)
        elif isinstance(attack, Sequence) and attack and all(isinstance(b, Batch) for b in attack):
            batches = tuple(attack)
        else:
            return None
        if not isinstance(target, Target):
            raise InputError("target", target, "a Target when the attack is given as Batches")
        return self.attack_of(batches, target, label)

    def exact(self, compiled: Any) -> Tally:
        from .engines import exact

        return exact(compiled)

    def simulate(self, compiled: Any, options: RunOptions, watch: str = "both") -> Tally:
        from .engines import simulate

        return simulate(compiled, options, watch)

    def render(self, compiled: Any, result: Result) -> str:
        """The text of ``mathhammer attack``: the loadout used, then the result."""
        from .present import render_loadout
        from .shown import not_applicable

        text = result.without(*not_applicable(*compiled.arrays)).text_report()
        return render_loadout(compiled.loadout) + "\n" + text if compiled.loadout else text

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
        """Every composition and upgrade combination of ``unit`` against each target (``NAME[:MODELS]``)."""
        from ..systems import check_options
        from . import compare as cmp

        check_options(self.options, query.options, self.title)
        attacker = roster.unit(unit, "unit")
        sizes = [whole("compositions", c, 1, 99, "models") for c in compositions]
        known = {c.models for c in attacker.card.compositions}
        for s in sizes:
            if s not in known:
                allowed = ", ".join(str(c.models) for c in attacker.card.compositions)
                raise InputError("compositions", s, f"a composition of {attacker.name}: {allowed}")
        phase = query.phase or "assault"
        if phase not in PHASES:
            raise InputError("phase", phase, "assault or combat")
        rows = cmp.compare(
            attacker,
            cmp.resolve_targets(roster, targets),
            phase=phase,
            compositions=sizes or None,
            upgrade_pool=upgrade_pool,
            use=query.use,
            distance=query.distance,
            rank_by=rank_by,
            options=options,
        )
        if not rows:
            raise InputError("phase", phase, f"a phase in which {attacker.name} can attack the targets")
        return rows

    def matchup(self, roster: Any, query: Query, options: RunOptions) -> list[dict[str, Any]]:
        """Both directions from full units: Assault Phase, Combat Phase, and both in sequence."""
        from ..systems import check_options
        from . import compare as cmp

        check_options(self.options, query.options, self.title)
        (ta,) = cmp.resolve_targets(roster, [query.attacker], "a")
        (tb,) = cmp.resolve_targets(roster, [query.target], "b")
        from .loadout import make_loadout

        lo_a = make_loadout(
            ta.unit, query.models or ta.models, query.upgrades, query.use, ("a_models", "a_upgrades", "a_use")
        )
        lo_b = make_loadout(
            tb.unit,
            query.target_models or tb.models,
            query.target_upgrades,
            query.target_use,
            ("b_models", "b_upgrades", "b_use"),
        )
        return cmp.matchup(lo_a, lo_b, query.distance, options=options)

    def report_plan(
        self, armies: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
    ) -> Plan:
        """Two army lists against each other, or the roster's units (smallest composition) against each other."""
        from .report import report_plan

        return report_plan(self, armies, roster, profiles, distance)

    # --- profiles --------------------------------------------------------------------------------------

    def describe_units(self, roster: Any, filters: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], str]:
        from .present import list_units

        return list_units(roster, **(filters or {}))

    def describe_unit(self, roster: Any, name: str) -> tuple[dict[str, Any], str]:
        from .present import show_unit

        return show_unit(roster.unit(name, "NAME"))

    def validate_dir(self, folder: str | Path) -> str:
        from ..profiles.loader import as_folder
        from .roster import load_roster

        roster = load_roster([as_folder(folder, "FOLDER")], builtin=False)
        n_cards = len(roster.factions) + len(roster.tactical) + len(roster.creep)
        return f"ok: {len(roster.files)} files, {len(roster.units)} units, {n_cards} other cards"


SYSTEM = register(StarCraft())
