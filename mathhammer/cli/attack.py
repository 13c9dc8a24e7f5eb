"""``mathhammer attack``: one ad-hoc Batch against one target unit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from .common import fail, handle_errors

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result

W = "Weapon (the attacking Batch)"
T = "Target unit"
R = "Run"


def register(app: typer.Typer) -> None:
    app.command("attack", no_args_is_help=True)(attack)


@handle_errors
def attack(
    models: Annotated[str, typer.Option("--models", metavar="N", help="Attacking models.", rich_help_panel=W)] = "1",
    roa: Annotated[str, typer.Option("--roa", metavar="N", help="Rate of Attack per model.", rich_help_panel=W)] = "1",
    hit: Annotated[
        str, typer.Option("--hit", metavar="N", help="Hit target number (4 = 4+).", rich_help_panel=W)
    ] = "4",
    damage: Annotated[str, typer.Option("--damage", metavar="N", help="Damage per die.", rich_help_panel=W)] = "1",
    surge: Annotated[
        str | None,
        typer.Option(
            "--surge", metavar="TYPE[,TYPE]:DICE", help="Surge Types and S Dice, e.g. Light:D3.", rich_help_panel=W
        ),
    ] = None,
    keyword: Annotated[
        list[str] | None,
        typer.Option(
            "--keyword",
            metavar='"KEYWORD (X)"',
            help='Weapon keyword in card syntax, repeatable: "PRECISION (1)", \'LONG RANGE (18")\'.',
            rich_help_panel=W,
        ),
    ] = None,
    weapon_range: Annotated[
        str | None,
        typer.Option("--range", metavar="INCHES", help="Profile range (for LONG RANGE).", rich_help_panel=W),
    ] = None,
    distance: Annotated[
        str | None,
        typer.Option(
            "--distance",
            metavar="INCHES",
            help="Distance of every attacking model to the target (BURST FIRE, LONG RANGE).",
            rich_help_panel=W,
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="Weapon name for the output.", rich_help_panel=W)] = "weapon",
    target_models: Annotated[
        str, typer.Option("--target-models", metavar="N", help="Models in the target unit.", rich_help_panel=T)
    ] = "1",
    target_hp: Annotated[str, typer.Option("--target-hp", metavar="N", help="HP per model.", rich_help_panel=T)] = "1",
    target_shield: Annotated[
        str, typer.Option("--target-shield", metavar="N", help="Shield (added to the first model).", rich_help_panel=T)
    ] = "0",
    target_armour: Annotated[
        str, typer.Option("--target-armour", metavar="N", help="Armour target number.", rich_help_panel=T)
    ] = "4",
    target_evade: Annotated[
        str, typer.Option("--target-evade", metavar="N", help="Evade target number.", rich_help_panel=T)
    ] = "6",
    target_tags: Annotated[
        str,
        typer.Option("--target-tags", metavar="T1,T2", help="Combat Tags, e.g. Biological,Light.", rich_help_panel=T),
    ] = "",
    target_keyword: Annotated[
        list[str] | None,
        typer.Option(
            "--target-keyword",
            metavar='"KEYWORD (X)"',
            help='Target keyword, repeatable: "TOUGH (1)", "DODGE (1)", "BUFF Armour (1)".',
            rich_help_panel=T,
        ),
    ] = None,
    target_marker: Annotated[
        str, typer.Option("--target-marker", metavar="N", help="Damage Marker already on the unit.", rich_help_panel=T)
    ] = "0",
    target_visible: Annotated[
        str | None,
        typer.Option(
            "--target-visible", metavar="N", help="Models that may be removed (default all).", rich_help_panel=T
        ),
    ] = None,
    evade_eligible: Annotated[
        bool, typer.Option("--evade-eligible", help="The target gets Evade Rolls (8.7.4 step 4).", rich_help_panel=T)
    ] = False,
    target_stationary: Annotated[
        bool, typer.Option("--target-stationary", help="The target is Stationary (LOCKED IN).", rich_help_panel=T)
    ] = False,
    target_unshielded: Annotated[
        bool,
        typer.Option("--target-unshielded", help="The unit has already lost SHIELDED.", rich_help_panel=T),
    ] = False,
    exact: Annotated[bool, typer.Option("--exact", help="Exact distributions (default).", rich_help_panel=R)] = False,
    trials: Annotated[
        str | None, typer.Option("--trials", metavar="N", help="Monte Carlo trials.", rich_help_panel=R)
    ] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", help="Monte Carlo seed.", rich_help_panel=R)] = "0",
    tolerance: Annotated[
        str | None,
        typer.Option(
            "--tolerance",
            metavar="E",
            help="Monte Carlo until the standard errors of mean damage and P(destroyed) are <= E.",
            rich_help_panel=R,
        ),
    ] = None,
    method: Annotated[
        str, typer.Option("--method", help="Monte Carlo sampling: count or die.", rich_help_panel=R)
    ] = "count",
    as_json: Annotated[bool, typer.Option("--json", help="Print only the JSON result.", rich_help_panel=R)] = False,
) -> None:
    """Resolve one Batch against one target unit (rulebook 8.7.4), exactly or by Monte Carlo.

    Example: mathhammer attack --models 10 --hit 4 --damage 2 --surge Light:D3
    --keyword "PRECISION (1)" --target-models 5 --target-hp 2 --target-shield 2 --target-tags Light
    """
    from ..api import run
    from ..dice import SDice
    from ..errors import InputError
    from ..starcraft.keywords import parse_keywords
    from ..starcraft.model import Batch, ModelGroup, Target, Weapon, parse_surge, parse_tags
    from ..validate import number, target_number, whole

    def opt_whole(flag: str, value: str | None, lo: int, hi: int, what: str) -> int | None:
        return None if value is None else whole(flag, value, lo, hi, what)

    def opt_number(flag: str, value: str | None, lo: float, hi: float, what: str) -> float | None:
        return None if value is None else number(flag, value, lo, hi, what)

    n_models = whole("--models", models, 0, 999, "attacking models")
    surge_tags: tuple[str, ...] = ()
    surge_dice: SDice | None = None
    if surge:
        surge_tags, surge_dice = parse_surge(surge, "--surge")
    weapon = Weapon(
        name=name,
        roa=whole("--roa", roa, 0, 99, "Rate of Attack"),
        hit=target_number("--hit", hit, "Hit"),
        damage=whole("--damage", damage, 1, 99, "Damage"),
        range=opt_number("--range", weapon_range, 0, 999, "profile range in inches"),
        surge_tags=surge_tags,
        surge_dice=surge_dice,
        keywords=parse_keywords(keyword or [], "weapon", "--keyword"),
    )
    dist = opt_number("--distance", distance, 0, 999, "distance in inches")
    has_ranged_kw = any(k.name in ("BURST FIRE", "LONG RANGE") for k in weapon.keywords)
    if dist is not None and weapon.range is None and any(k.name == "LONG RANGE" for k in weapon.keywords):
        raise InputError("--range", None, "the weapon's profile range in inches, needed with LONG RANGE and --distance")
    batch = Batch.at(weapon, n_models, dist)
    n_target = whole("--target-models", target_models, 1, 999, "models in the target unit")
    hp = whole("--target-hp", target_hp, 1, 999, "Hit Points per model")
    target = Target(
        groups=(ModelGroup(n_target, hp),),
        armour=target_number("--target-armour", target_armour, "Armour"),
        evade=target_number("--target-evade", target_evade, "Evade"),
        shield=whole("--target-shield", target_shield, 0, 99, "Shield"),
        tags=parse_tags(target_tags, "--target-tags"),
        keywords=parse_keywords(target_keyword or [], "target", "--target-keyword"),
        marker=whole("--target-marker", target_marker, 0, 999, "Damage Marker"),
        shielded=False if target_unshielded else None,
        visible=opt_whole("--target-visible", target_visible, 1, 999, "visible models"),
        evade_eligible=evade_eligible,
        stationary=target_stationary,
    )
    if method not in ("count", "die"):
        raise InputError("--method", method, "count or die")
    n_trials = opt_whole("--trials", trials, 1, 10**12, "Monte Carlo trials")
    tol = opt_number("--tolerance", tolerance, 1e-6, 100, "standard error wanted")
    n_seed = whole("--seed", seed, 0, 2**63 - 1, "seed")
    if exact and (n_trials is not None or tol is not None):
        raise fail("--exact: got it with --trials/--tolerance; allowed: either --exact or --trials N/--tolerance E")
    if n_trials is not None and tol is not None:
        raise fail("--tolerance: got it with --trials; allowed: either --trials N or --tolerance E")
    if has_ranged_kw and dist is None and not as_json:
        typer.echo(
            "note: no --distance given: models are taken to be within profile range and beyond BURST FIRE distance",
            err=True,
        )
    result = run(
        batch,
        target,
        engine="monte-carlo" if (n_trials is not None or tol is not None) else "exact",
        trials=n_trials,
        seed=n_seed,
        tolerance=tol,
        method=method,
        label=name,
    )
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
    else:
        typer.echo(render(result, batch, target))


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
