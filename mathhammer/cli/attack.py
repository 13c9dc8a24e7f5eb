"""``mathhammer attack``: an ad-hoc Batch, or named units from the profiles, against one target unit."""

import json
from typing import Annotated, Any

import typer

from .common import PROFILES_HELP, handle_errors, run_options
from .queries import adhoc_query, named_query, renamed

W = "Ad-hoc weapon (the attacking Batch)"
T = "Ad-hoc target unit"
N = "Named units (ATTACKER TARGET from the profiles)"
S = "Both modes"
G = "Other game systems (--system)"
R = "Run"


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
    board_file: Annotated[str | None, _opt("--board", "A battlefield file (positions, terrain).", N, "FILE")] = None,
    attacker_unit: Annotated[
        str | None, _opt("--attacker-unit", "The attacker's unit id on the board.", N, "ID")
    ] = None,
    target_unit: Annotated[str | None, _opt("--target-unit", "The target's unit id on the board.", N, "ID")] = None,
    profiles: Annotated[
        list[str] | None,
        _opt("--profiles", PROFILES_HELP, N, "DIR"),
    ] = None,
    distance: Annotated[
        str | None, _opt("--range", "Distance to the target in inches (range, LONG RANGE, BURST FIRE).", S, "INCHES")
    ] = None,
    distance_alias: Annotated[str | None, _opt("--distance", "Same as --range.", S, "INCHES")] = None,
    target_visible: Annotated[str | None, _opt("--target-visible", "Models that may be removed.", S, "N")] = None,
    evade_eligible: Annotated[bool, _opt("--evade-eligible", "The target gets Evade Rolls (8.7.4 step 4).", S)] = False,
    target_stationary: Annotated[bool, _opt("--target-stationary", "The target is Stationary.", S)] = False,
    target_unshielded: Annotated[bool, _opt("--target-unshielded", "The target has lost SHIELDED.", S)] = False,
    damage_reduction: Annotated[
        str | None,
        _opt(
            "--damage-reduction",
            "Total Damage reduction, used once at the first Batch that deals Damage (a Reaction: Life Support, "
            "Transfusion, Dae'Uhl) [0].",
            S,
            "N",
        ),
    ] = None,
    reduction_floor: Annotated[
        str | None, _opt("--reduction-floor", "The reduction's minimum Total Damage (Dae'Uhl: 1) [0].", S, "N")
    ] = None,
    exact: Annotated[bool, _opt("--exact", "Exact distributions (the default).", R)] = False,
    trials: Annotated[str | None, _opt("--trials", "Monte Carlo trials.", R, "N")] = None,
    seed: Annotated[str, _opt("--seed", "Monte Carlo seed [0].", R, "S")] = "0",
    tolerance: Annotated[
        str | None, _opt("--tolerance", "Monte Carlo until SE(mean damage) and SE(P(destroyed)) <= E.", R, "E")
    ] = None,
    method: Annotated[str, _opt("--method", "Monte Carlo sampling: count or die [count].", R)] = "count",
    as_json: Annotated[bool, _opt("--json", "Print only the JSON result.", R)] = False,
    system: Annotated[str, _opt("--system", "Game system: starcraft (sc) or grimdark (gf, opr) [starcraft].", G)] = (
        "starcraft"
    ),
    attacks: Annotated[str | None, _opt("--attacks", "Grimdark: attacks (A) per model.", G, "N")] = None,
    quality: Annotated[str | None, _opt("--quality", "Grimdark: Quality, 4 = 4+.", G, "N")] = None,
    rule: Annotated[list[str] | None, _opt("--rule", 'Grimdark: weapon rule, repeatable: "AP(1)".', G, "RULE")] = None,
    target_defense: Annotated[str | None, _opt("--target-defense", "Grimdark: Defense, 4 = 4+.", G, "N")] = None,
    target_tough: Annotated[str | None, _opt("--target-tough", "Grimdark: Tough(X) of each model [1].", G, "N")] = None,
    target_rule: Annotated[list[str] | None, _opt("--target-rule", "Grimdark: target rule.", G, "RULE")] = None,
    target_quality: Annotated[str | None, _opt("--target-quality", "Grimdark: target Quality.", G, "N")] = None,
    cover: Annotated[bool, _opt("--cover", "Grimdark: the target is in cover (+1 Defense vs shooting).", G)] = False,
    melee: Annotated[
        bool, _opt("--melee", "Grimdark: melee; two named units: the charge resolved both ways (no cover).", G)
    ] = False,
    charging: Annotated[bool, _opt("--charging", "Grimdark: the attacker charged (Furious, Impact).", G)] = False,
    moved: Annotated[
        bool, _opt("--moved", "Grimdark: the attacker moved before shooting (Indirect: -1 to hit).", G)
    ] = (False),
    fatigued: Annotated[
        bool, _opt("--fatigued", "Grimdark: the attacker already fought a melee this round (hits on 6s).", G)
    ] = False,
    target_fatigued: Annotated[
        bool, _opt("--target-fatigued", "Grimdark: the target already fought a melee this round (named).", G)
    ] = False,
    hit_mod: Annotated[
        list[str] | None,
        _opt("--hit-mod", "Grimdark: a modifier to hit, repeatable, one per effect (Lock-On drops the -).", G, "N"),
    ] = None,
    versatile: Annotated[
        str | None, _opt("--versatile", "Grimdark: Versatile Attack's pick: ap, hit or best [best].", G, "PICK")
    ] = None,
    snipe: Annotated[
        str | None, _opt("--snipe", "Grimdark: Takedown/Sniper's target: model (hero: not modelled).", G, "WHO")
    ] = None,
    target_moved: Annotated[
        bool, _opt("--target-moved", "Grimdark: the target moved this round (no Entrenched).", G)
    ] = False,
    target_hero_tough: Annotated[
        str | None, _opt("--target-hero-tough", "Grimdark: a joined hero's Tough(X) (takes wounds last).", G, "N")
    ] = None,
    target_hero_defense: Annotated[
        str | None, _opt("--target-hero-defense", "Grimdark: the joined hero's Defense [the unit's].", G, "N")
    ] = None,
) -> None:
    """Resolve an attack on one target unit, exactly or by Monte Carlo (StarCraft TMG by default).

    Ad hoc: mathhammer attack --models 10 --hit 4 --damage 2 --surge Light:D3
    --keyword "PRECISION (1)" --target-models 5 --target-hp 2 --target-shield 2 --target-tags Light

    Named: mathhammer attack Marine Zergling --attacker-comp 9 --upgrade AGG-12 --use Stimpack --range 10
    """
    from .. import systems
    from ..engine.options import CLI_NAMES
    from ..errors import InputError

    opts = run_options(exact, trials, seed, tolerance, method)
    if distance is not None and distance_alias is not None:
        raise InputError("--distance", distance_alias, "either --range or --distance (the same thing)")
    game = systems.get(system, "--system")
    given = {
        "--models": models, "--roa": roa, "--hit": hit, "--damage": damage, "--surge": surge, "--keyword": keyword,
        "--weapon-range": weapon_range, "--name": None if name == "weapon" else name,
        "--target-models": target_models, "--target-hp": target_hp, "--target-shield": target_shield,
        "--target-armour": target_armour, "--target-evade": target_evade, "--target-tags": target_tags,
        "--target-keyword": target_keyword, "--target-marker": target_marker,
        "--attacker-comp": attacker_comp, "--upgrade": upgrade, "--use": use, "--attacker-models": attacker_models,
        "--phase": None if phase == "assault" else phase, "--target-comp": target_comp,
        "--target-upgrade": target_upgrade, "--target-use": target_use, "--target-state": target_state,
        "--on-creep": on_creep or None, "--board": board_file, "--attacker-unit": attacker_unit,
        "--target-unit": target_unit, "--profiles": profiles,
        "--range": distance if distance is not None else distance_alias,
        "--target-visible": target_visible, "--evade-eligible": evade_eligible or None,
        "--target-stationary": target_stationary or None, "--target-unshielded": target_unshielded or None,
        "--damage-reduction": damage_reduction, "--reduction-floor": reduction_floor,
        "--attacks": attacks, "--quality": quality, "--rule": rule, "--target-defense": target_defense,
        "--target-tough": target_tough, "--target-rule": target_rule, "--target-quality": target_quality,
        "--cover": cover or None, "--melee": melee or None, "--charging": charging or None,
        "--moved": moved or None, "--fatigued": fatigued or None, "--target-fatigued": target_fatigued or None,
        "--hit-mod": hit_mod, "--versatile": versatile, "--target-moved": target_moved or None, "--snipe": snipe,
        "--target-hero-tough": target_hero_tough, "--target-hero-defense": target_hero_defense,
    }  # fmt: skip
    given = {k: v for k, v in given.items() if v is not None and v != []}
    if attacker is not None and target is None:
        raise InputError("TARGET", "", "a target unit by name after the attacker, e.g. attack Marine Zergling")
    with renamed({"--range": "--distance"} if distance_alias is not None else {}):  # the flag as written
        if attacker is not None and target is not None:
            compiled, names = named_query(game, attacker, target, given)
        else:
            compiled, names = adhoc_query(game, given)
        with renamed({**CLI_NAMES, **names}):  # a budget refusal names --trials / --tolerance
            result = systems.run(game, compiled, opts)
            text = None if as_json else game.render(compiled, result)
    if as_json:
        out = result.to_dict()
        if getattr(compiled, "loadout", None):
            out["loadout"] = compiled.loadout
        typer.echo(json.dumps(out))
        return
    for note in compiled.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(text)
