"""``mathhammer attack``: an ad-hoc Batch, or named units from the profiles, against one target unit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .common import handle_errors, run_options

if TYPE_CHECKING:  # pragma: no cover
    pass

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
    profiles: Annotated[list[str] | None, _opt("--profiles", "Extra profile folder, repeatable.", N, "DIR")] = None,
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
    melee: Annotated[bool, _opt("--melee", "Grimdark: a melee attack (no cover).", G)] = False,
    charging: Annotated[bool, _opt("--charging", "Grimdark: the attacker charged (Furious, Impact).", G)] = False,
    target_hero_tough: Annotated[
        str | None, _opt("--target-hero-tough", "Grimdark: a joined hero's Tough(X) (takes wounds last).", G, "N")
    ] = None,
    target_hero_defense: Annotated[
        str | None, _opt("--target-hero-defense", "Grimdark: the joined hero's Defense [the unit's].", G, "N")
    ] = None,
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
    reduction = {"--damage-reduction": damage_reduction, "--reduction-floor": reduction_floor}
    if reduction_floor is not None and damage_reduction is None:
        from ..errors import InputError

        raise InputError("--reduction-floor", reduction_floor, "with --damage-reduction N (the reduction it bounds)")
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
        "--target-state": target_state, "--profiles": profiles, "--board": board_file,
        "--attacker-unit": attacker_unit, "--target-unit": target_unit,
    }  # fmt: skip
    if attacker is not None:
        _refuse(adhoc, "named units (ATTACKER TARGET)")
        if target is None:
            from ..errors import InputError

            raise InputError("TARGET", "", "a target unit by name after the attacker, e.g. attack Marine Zergling")
        from .. import systems

        game = systems.get(system)
        if game.run_named is not None:
            given = {
                **named, "--phase": None if phase == "assault" else phase, "--on-creep": on_creep or None,
                "--melee": melee or None, "--charging": charging or None, "--cover": cover or None,
                "--range": raw_distance, "--target-visible": target_visible, "--evade-eligible": evade_eligible or None,
                "--target-stationary": target_stationary or None, "--target-unshielded": target_unshielded or None,
                **reduction,
            }  # fmt: skip
            _refuse({k: v for k, v in given.items() if k not in game.named_flags}, f"--system {game.name} units")
            given["--phase"] = phase
            out, text, notes = game.run_named(attacker, target, given, opts)
            if not as_json:
                for note in notes:
                    typer.echo(f"note: {note}", err=True)
            typer.echo(json.dumps(out) if as_json else text)
            return
        from .named import named_attack

        board_args = _board_args(board_file, attacker_unit, target_unit)
        if board_args is not None and phase == "combat":
            batches, tgt, loadout = _board_combat(
                board_args, attacker, target, attacker_comp, upgrade or [], use or [], attacker_models, target_comp,
                target_upgrade or [], target_use or [], target_state, on_creep, profiles or [], dist, state_flags,
            )  # fmt: skip
        else:
            batches, tgt, loadout = named_attack(
                attacker, target, attacker_comp, upgrade or [], use or [], attacker_models, phase, target_comp,
                target_upgrade or [], target_use or [], target_state, on_creep, profiles or [], dist, state_flags,
                board_args,
            )  # fmt: skip
        label = loadout["attacker"]["unit"] + " vs " + loadout["target"]["unit"]
        if damage_reduction is not None:
            import dataclasses

            tgt = dataclasses.replace(
                tgt,
                damage_reduction=whole("--damage-reduction", damage_reduction, 0, 99, "Total Damage reduction"),
                reduction_floor=whole("--reduction-floor", reduction_floor or "0", 0, 99, "minimum Total Damage"),
            )
            if not as_json and tgt.damage_reduction:
                from ..starcraft.system import reduction_note

                typer.echo(f"note: {reduction_note(tgt)}", err=True)
    else:
        _refuse(named, "an ad-hoc attack (no unit names)")
        if phase != "assault" or on_creep:
            _refuse(
                {"--phase": phase if phase != "assault" else None, "--on-creep": on_creep or None}, "an ad-hoc attack"
            )
        from .. import systems

        game = systems.get(system)
        flags = {
            **adhoc,
            "--name": None if name == "weapon" else name, "--range": raw_distance, "--target-visible": target_visible,
            "--evade-eligible": evade_eligible or None, "--target-stationary": target_stationary or None,
            "--target-unshielded": target_unshielded or None, "--attacks": attacks, "--quality": quality,
            "--rule": rule, "--target-defense": target_defense, "--target-tough": target_tough,
            "--target-rule": target_rule, "--target-quality": target_quality, "--cover": cover or None,
            "--melee": melee or None, "--charging": charging or None,
            "--target-hero-tough": target_hero_tough, "--target-hero-defense": target_hero_defense,
            **reduction,
        }  # fmt: skip
        allowed = game.adhoc_flags | systems.COMMON_FLAGS
        _refuse({k: v for k, v in flags.items() if k not in allowed}, f"--system {game.name}")
        out, text, notes = game.run_adhoc(flags, opts, as_json)
        if not as_json:
            for note in notes:
                typer.echo(f"note: {note}", err=True)
        typer.echo(json.dumps(out) if as_json else text)
        return
    result = run(batches, tgt, label=label, **opts)
    if as_json:
        out = result.to_dict()
        if loadout is not None:
            out["loadout"] = loadout
        typer.echo(json.dumps(out))
    else:
        text = result.text_report()
        if loadout is not None:
            text = _render_loadout(loadout) + "\n" + text
        typer.echo(text)


def _board_args(path: str | None, attacker: str | None, target: str | None) -> tuple[str, str, str] | None:
    from ..errors import InputError

    if path is None:
        if attacker or target:
            raise InputError(
                "--attacker-unit" if attacker else "--target-unit", attacker or target, "with --board FILE"
            )
        return None
    if not attacker or not target:
        raise InputError("--board", path, "with --attacker-unit ID and --target-unit ID (unit ids of the board)")
    return path, attacker, target


def _board_combat(
    board_args: tuple[str, str, str],
    attacker: str,
    target: str,
    attacker_comp: str | None,
    upgrades: list[str],
    use: list[str],
    attacker_models: str | None,
    target_comp: str | None,
    target_upgrades: list[str],
    target_use: list[str],
    target_state: str | None,
    on_creep: bool,
    profiles: list[str],
    dist: float | None,
    state_flags: dict[str, Any],
) -> tuple[Any, Any, dict[str, Any]]:
    """``attack A B --board FILE --phase combat``: only the Fighting and Supporting Rank strike (8.8.1 step 2)
    with their Combat Phase weapons; every target model may be removed, in the 8.7.5 priority order.

    The board decides how many models strike (``--attacker-models`` is refused) and how many target models
    are left (``--target-state models=`` must agree with it). Which board models carry a SPECIALIST upgrade
    is not on the board: the striking models are taken to carry them first.
    """
    from ..board.combat import combat_facts
    from ..board.loader import load_board
    from ..errors import InputError
    from .named import named_attack

    path, attacker_id, target_id = board_args
    if dist is not None:
        raise InputError("--range", dist, "no --range with --board (the board gives the positions)")
    if attacker_models is not None:
        raise InputError("--attacker-models", attacker_models, "no --attacker-models with --board (the board decides)")
    if state_flags.get("visible") is not None:
        raise InputError(
            "--target-visible",
            state_flags["visible"],
            "no --target-visible with --board --phase combat (8.7.5: an Engaged unit ignores visibility)",
        )
    board = load_board(path)
    facts = combat_facts(board, attacker_id, target_id)
    if facts.refusals:
        raise InputError(
            "--board", path, "a board where the attacker can strike the target: " + "; ".join(facts.refusals)
        )
    left = len(board.unit(target_id).models)
    state = target_state or ""
    given = [item.partition("=")[2].strip() for item in state.split(",") if item.strip().lower().startswith("models")]
    if given and given[-1] != str(left):
        raise InputError(
            "--target-state",
            f"models={given[-1]}",
            f"models={left} (unit {target_id!r} has {left} models on the board)",
        )
    if not given:
        state = f"{state},models={left}" if state.strip() else f"models={left}"
    try:
        batches, tgt, loadout = named_attack(
            attacker, target, attacker_comp, upgrades, use, str(len(facts.strikers)), "combat", target_comp,
            target_upgrades, target_use, state, on_creep, profiles, None, state_flags, None,
        )  # fmt: skip
    except InputError as exc:
        if exc.field == "--attacker-models":
            raise InputError(
                "--attacker-unit", attacker_id, f"a unit whose striking models fit the composition ({exc.allowed})"
            ) from None
        if exc.field == "--target-state models":
            raise InputError(
                "--target-unit", target_id, f"a unit whose models fit the target composition ({exc.allowed})"
            ) from None
        raise
    info = facts.to_dict()
    info.update(
        file=path,
        attacker_unit=attacker_id,
        target_unit=target_id,
        models_rolling={b.label: b.models for b in batches},
        evade_eligible=False,
        evade_reasons=[],
        refusals=[],
    )
    loadout["board"] = info
    return batches, tgt, loadout


def _refuse(given: dict[str, Any], mode: str) -> None:
    from ..errors import InputError

    for flag, value in given.items():
        if value:
            raise InputError(flag, value if not isinstance(value, list) else value[0], f"not with {mode}")


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
    if "board" in loadout:
        bd = loadout["board"]
        rolling = ", ".join(f"{n} with {w}" for w, n in bd["models_rolling"].items())
        evade = "yes (" + ", ".join(bd["evade_reasons"]) + ")" if bd["evade_eligible"] else "no"
        lines.append(
            f"Board {bd['file']}: models rolling dice: {rolling}; models that may be removed: {bd['removable']}"
        )
        lines.append(f"  Evade Rolls: {evade}" + "".join(f"\n  not shooting: {r}" for r in bd["refusals"]))
        if "fighting_rank" in bd:
            lines.append(
                f"  Fighting Rank: {', '.join(bd['fighting_rank']) or '-'}; Supporting Rank: "
                f"{', '.join(bd['supporting_rank']) or '-'}; not striking: {', '.join(bd['not_striking']) or '-'}"
            )
            lines.append(f"  casualty order (8.7.5): {', '.join(bd['casualty_order'])}")
            lines.extend(f"  note: {n}" for n in bd["notes"])
    for b in loadout["batches"]:
        kws = ", ".join(b["keywords"])
        lines.append(f"  Batch: {b['models']} x {b['weapon']}" + (f" [{kws}]" if kws else ""))
    return "\n".join(lines)
