"""``mathhammer attack``: an ad-hoc Batch, or named units from the profiles, against one target unit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .common import handle_errors, run_options

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result

W = "Ad-hoc weapon (the attacking Batch)"
T = "Ad-hoc target unit"
N = "Named units (ATTACKER TARGET from the profiles)"
S = "Both modes"
R = "Run"

_ADHOC_DEFAULTS = {
    "--models": "1",
    "--roa": "1",
    "--hit": "4",
    "--damage": "1",
    "--target-models": "1",
    "--target-hp": "1",
    "--target-shield": "0",
    "--target-armour": "4",
    "--target-evade": "6",
    "--target-tags": "",
    "--target-marker": "0",
}


def register(app: typer.Typer) -> None:
    app.command("attack", no_args_is_help=True)(attack)


def _opt(flag: str, help_: str, panel: str, metavar: str | None = None) -> Any:
    return typer.Option(flag, metavar=metavar, help=help_, rich_help_panel=panel, show_default=False)


@handle_errors
def attack(
    attacker: Annotated[str | None, typer.Argument(help="Attacking unit by name (named mode).")] = None,
    target: Annotated[str | None, typer.Argument(help="Target unit by name (named mode).")] = None,
    models: Annotated[str | None, _opt("--models", "Attacking models [1].", W, "N")] = None,
    roa: Annotated[str | None, _opt("--roa", "Rate of Attack per model [1].", W, "N")] = None,
    hit: Annotated[str | None, _opt("--hit", "Hit target, 4 = 4+ [4].", W, "N")] = None,
    damage: Annotated[str | None, _opt("--damage", "Damage per die [1].", W, "N")] = None,
    surge: Annotated[
        str | None, _opt("--surge", "Surge Types and S Dice, e.g. Light:D3.", W, "TYPE[,TYPE]:DICE")
    ] = None,
    keyword: Annotated[
        list[str] | None,
        _opt("--keyword", 'Weapon keyword in card syntax, repeatable: "PRECISION (1)".', W, '"KEYWORD (X)"'),
    ] = None,
    weapon_range: Annotated[
        str | None, _opt("--weapon-range", "Profile range in inches (for LONG RANGE).", W, "INCHES")
    ] = None,
    name: Annotated[str, _opt("--name", "Weapon name for the output.", W)] = "weapon",
    target_models: Annotated[str | None, _opt("--target-models", "Models in the target unit [1].", T, "N")] = None,
    target_hp: Annotated[str | None, _opt("--target-hp", "HP per model [1].", T, "N")] = None,
    target_shield: Annotated[
        str | None, _opt("--target-shield", "Shield, added to the first model [0].", T, "N")
    ] = None,
    target_armour: Annotated[str | None, _opt("--target-armour", "Armour target number [4].", T, "N")] = None,
    target_evade: Annotated[str | None, _opt("--target-evade", "Evade target number [6].", T, "N")] = None,
    target_tags: Annotated[str | None, _opt("--target-tags", "Combat Tags, e.g. Biological,Light.", T, "T1,T2")] = None,
    target_keyword: Annotated[
        list[str] | None,
        _opt("--target-keyword", 'Target keyword, repeatable: "TOUGH (1)", "DODGE (1)".', T, '"KEYWORD (X)"'),
    ] = None,
    target_marker: Annotated[str | None, _opt("--target-marker", "Damage Marker on the unit [0].", T, "N")] = None,
    attacker_comp: Annotated[str | None, _opt("--attacker-comp", "Composition bought (models).", N, "N")] = None,
    upgrade: Annotated[list[str] | None, _opt("--upgrade", "Attacker upgrade, repeatable.", N, "NAME")] = None,
    use: Annotated[list[str] | None, _opt("--use", "Attacker ability switched on, repeatable.", N, "NAME")] = None,
    attacker_models: Annotated[str | None, _opt("--attacker-models", "Attacking models left.", N, "N")] = None,
    phase: Annotated[str, _opt("--phase", "assault (ranged) or combat (close) [assault].", N)] = "assault",
    target_comp: Annotated[str | None, _opt("--target-comp", "Target composition (models).", N, "N")] = None,
    target_upgrade: Annotated[
        list[str] | None, _opt("--target-upgrade", "Target upgrade, repeatable.", N, "NAME")
    ] = None,
    target_use: Annotated[list[str] | None, _opt("--target-use", "Target ability switched on.", N, "NAME")] = None,
    target_state: Annotated[
        str | None, _opt("--target-state", "Target state: models=8,marker=1,shielded=no.", N, "K=V,...")
    ] = None,
    on_creep: Annotated[bool, _opt("--on-creep", "The attacker is On Creep.", N)] = False,
    profiles: Annotated[list[str] | None, _opt("--profiles", "Extra profile folder, repeatable.", N, "DIR")] = None,
    distance: Annotated[
        str | None, _opt("--range", "Distance to the target in inches (range, LONG RANGE, BURST FIRE).", S, "INCHES")
    ] = None,
    distance_alias: Annotated[str | None, _opt("--distance", "Same as --range.", S, "INCHES")] = None,
    target_visible: Annotated[str | None, _opt("--target-visible", "Models that may be removed.", S, "N")] = None,
    evade_eligible: Annotated[bool, _opt("--evade-eligible", "The target gets Evade Rolls (8.7.4 step 4).", S)] = False,
    target_stationary: Annotated[bool, _opt("--target-stationary", "The target is Stationary.", S)] = False,
    target_unshielded: Annotated[bool, _opt("--target-unshielded", "The target has lost SHIELDED.", S)] = False,
    exact: Annotated[bool, _opt("--exact", "Exact distributions (the default).", R)] = False,
    trials: Annotated[str | None, _opt("--trials", "Monte Carlo trials.", R, "N")] = None,
    seed: Annotated[str, _opt("--seed", "Monte Carlo seed [0].", R, "S")] = "0",
    tolerance: Annotated[
        str | None, _opt("--tolerance", "Monte Carlo until SE(mean damage) and SE(P(destroyed)) <= E.", R, "E")
    ] = None,
    method: Annotated[str, _opt("--method", "Monte Carlo sampling: count or die [count].", R)] = "count",
    as_json: Annotated[bool, _opt("--json", "Print only the JSON result.", R)] = False,
) -> None:
    """Resolve an attack on one target unit (rulebook 8.7.4), exactly or by Monte Carlo.

    Ad hoc: mathhammer attack --models 10 --hit 4 --damage 2 --surge Light:D3
    --keyword "PRECISION (1)" --target-models 5 --target-hp 2 --target-shield 2 --target-tags Light

    Named: mathhammer attack Marine Zergling --attacker-comp 9 --upgrade AGG-12 --use Stimpack --range 10
    """
    from ..api import run
    from ..validate import number, whole

    opts = run_options(exact, trials, seed, tolerance, method)
    if distance is not None and distance_alias is not None:
        from ..errors import InputError

        raise InputError("--distance", distance_alias, "either --range or --distance (the same thing)")
    raw_distance = distance if distance is not None else distance_alias
    dist = None if raw_distance is None else number("--range", raw_distance, 0, 999, "distance in inches")
    visible = None if target_visible is None else whole("--target-visible", target_visible, 1, 999, "visible models")
    state_flags = dict(
        evade_eligible=evade_eligible, stationary=target_stationary, unshielded=target_unshielded, visible=visible
    )
    adhoc = {
        "--models": models, "--roa": roa, "--hit": hit, "--damage": damage, "--surge": surge,
        "--keyword": keyword, "--weapon-range": weapon_range, "--target-models": target_models,
        "--target-hp": target_hp, "--target-shield": target_shield, "--target-armour": target_armour,
        "--target-evade": target_evade, "--target-tags": target_tags, "--target-keyword": target_keyword,
        "--target-marker": target_marker,
    }  # fmt: skip
    named = {
        "--attacker-comp": attacker_comp, "--upgrade": upgrade, "--use": use, "--attacker-models": attacker_models,
        "--target-comp": target_comp, "--target-upgrade": target_upgrade, "--target-use": target_use,
        "--target-state": target_state, "--profiles": profiles,
    }  # fmt: skip
    if attacker is not None:
        _refuse(adhoc, "named units (ATTACKER TARGET)")
        if target is None:
            from ..errors import InputError

            raise InputError("TARGET", "", "a target unit by name after the attacker, e.g. attack Marine Zergling")
        from .named import named_attack

        batches, tgt, loadout = named_attack(
            attacker, target, attacker_comp, upgrade or [], use or [], attacker_models, phase, target_comp,
            target_upgrade or [], target_use or [], target_state, on_creep, profiles or [], dist, state_flags,
        )  # fmt: skip
        label = loadout["attacker"]["unit"] + " vs " + loadout["target"]["unit"]
    else:
        _refuse(named, "an ad-hoc Batch (no unit names)")
        if phase != "assault" or on_creep:
            _refuse(
                {"--phase": phase if phase != "assault" else None, "--on-creep": on_creep or None}, "an ad-hoc Batch"
            )
        values = {k: (v if v is not None else _ADHOC_DEFAULTS.get(k)) for k, v in adhoc.items()}
        batches, tgt = _adhoc(values, name, dist, state_flags, as_json)
        loadout = None
        label = name
    result = run(batches, tgt, label=label, **opts)
    if as_json:
        out = result.to_dict()
        if loadout is not None:
            out["loadout"] = loadout
        typer.echo(json.dumps(out))
    else:
        text = render(result, batches, tgt)
        if loadout is not None:
            text = _render_loadout(loadout) + "\n" + text
        typer.echo(text)


def _refuse(given: dict[str, Any], mode: str) -> None:
    from ..errors import InputError

    for flag, value in given.items():
        if value:
            raise InputError(flag, value if not isinstance(value, list) else value[0], f"not with {mode}")


def _adhoc(values: dict[str, Any], name: str, dist: float | None, flags: dict[str, Any], quiet: bool) -> tuple:
    from ..dice import SDice
    from ..errors import InputError
    from ..starcraft.keywords import parse_keywords
    from ..starcraft.model import Batch, ModelGroup, Target, Weapon, parse_surge, parse_tags
    from ..validate import number, target_number, whole

    surge_tags: tuple[str, ...] = ()
    surge_dice: SDice | None = None
    if values["--surge"]:
        surge_tags, surge_dice = parse_surge(values["--surge"], "--surge")
    wr = values["--weapon-range"]
    weapon = Weapon(
        name=name,
        roa=whole("--roa", values["--roa"], 0, 99, "Rate of Attack"),
        hit=target_number("--hit", values["--hit"], "Hit"),
        damage=whole("--damage", values["--damage"], 1, 99, "Damage"),
        range=None if wr is None else number("--weapon-range", wr, 0, 999, "profile range in inches"),
        surge_tags=surge_tags,
        surge_dice=surge_dice,
        keywords=parse_keywords(values["--keyword"] or [], "weapon", "--keyword"),
    )
    if dist is not None and weapon.range is None and any(k.name == "LONG RANGE" for k in weapon.keywords):
        raise InputError("--weapon-range", None, "the profile range in inches, needed with LONG RANGE and --range")
    if not quiet and dist is None and any(k.name in ("BURST FIRE", "LONG RANGE") for k in weapon.keywords):
        typer.echo(
            "note: no --range given: models are taken to be within profile range and beyond BURST FIRE distance",
            err=True,
        )
    batch = Batch.at(weapon, whole("--models", values["--models"], 0, 999, "attacking models"), dist)
    target = Target(
        groups=(
            ModelGroup(
                whole("--target-models", values["--target-models"], 1, 999, "models in the target unit"),
                whole("--target-hp", values["--target-hp"], 1, 999, "Hit Points per model"),
            ),
        ),
        armour=target_number("--target-armour", values["--target-armour"], "Armour"),
        evade=target_number("--target-evade", values["--target-evade"], "Evade"),
        shield=whole("--target-shield", values["--target-shield"], 0, 99, "Shield"),
        tags=parse_tags(values["--target-tags"], "--target-tags"),
        keywords=parse_keywords(values["--target-keyword"] or [], "target", "--target-keyword"),
        marker=whole("--target-marker", values["--target-marker"], 0, 999, "Damage Marker"),
        shielded=False if flags["unshielded"] else None,
        visible=flags["visible"],
        evade_eligible=flags["evade_eligible"],
        stationary=flags["stationary"],
    )
    return [batch], target


def _render_loadout(loadout: dict[str, Any]) -> str:
    a, t = loadout["attacker"], loadout["target"]

    def one(d: dict[str, Any]) -> str:
        extras = d["upgrades"] + [f"use {u}" for u in d["use"]]
        return (
            f"{d['models']} {d['unit']}" + (f" ({', '.join(extras)})" if extras else "") + f", {d['minerals']} minerals"
        )

    lines = [f"Attacker: {one(a)}", f"Target:   {one(t)}, {loadout['target_models']} models left"]
    lines.append(
        f"Phase: {loadout['phase']}" + (f', range {loadout["distance"]:g}"' if loadout["distance"] is not None else "")
    )
    for b in loadout["batches"]:
        kws = ", ".join(b["keywords"])
        lines.append(f"  Batch: {b['models']} x {b['weapon']}" + (f" [{kws}]" if kws else ""))
    return "\n".join(lines)


def render(result: Result, batch: object, target: object) -> str:
    """The human-readable report: summaries and k / P(=k) / P(>=k) tables."""
    lines = []
    engine = (
        "exact"
        if not result.trials
        else f"Monte Carlo, {result.trials:,} trials, seed {result.seed}, ± is one standard error"
    )
    lines.append(f"Engine: {engine}")
    mc = result.trials > 0

    def pm(value: float, se: float, digits: int = 4) -> str:
        return f"{value:.{digits}f}" + (f" ± {se:.{digits}f}" if mc else "")

    for which, title in (("damage", "Damage dealt"), ("models_destroyed", "Models destroyed")):
        dist = getattr(result, which)
        lines.append("")
        lines.append(f"{title}: mean {pm(dist.mean, dist.stderr)}  (sd {dist.sd:.3f})")
        header = f"{'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}" + (f"  {'± P(>=k)':>9}" if mc else "")
        lines.append(header)
        skipped = False
        for k, p_eq, p_ge, se in result.table(which):
            if which == "damage" and k > 0 and p_eq == 0.0:
                skipped = True  # e.g. odd totals with Damage 2: P(>=k) is the next row's
                continue
            row = f"{k:>4}  {p_eq:8.4f}  {p_ge:8.4f}" + (f"  {se:9.4f}" if mc else "")
            lines.append(row)
        if skipped:
            lines.append("      (values of k that cannot happen are left out)")
    lines.append("")
    lines.append(f"P(unit destroyed): {pm(result.unit_destroyed, result.unit_destroyed_stderr)}")
    lines.append(f"P(still SHIELDED): {result.shielded_after:.4f}")
    lines.append(f"Damage Marker: mean {result.damage_marker.mean:.4f}")
    return "\n".join(lines)
