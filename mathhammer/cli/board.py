"""``mathhammer board los|template|charge|show FILE ...``: the battlefield's facts on the command line.

``board template`` (8.7.6) sets a Blast or Flamer Template (sizes are flags; defaults in
:mod:`mathhammer.board.templates`) on a target model of the Primary target and prints the affected
models per unit and the Batches (Main target: dice = affected models, Surge result = affected models if
the weapon has an S Dice; Spillover: one plain Batch per other unit). Without ``--at`` every target model
Visible to and Within Range of a firing model is tried (8.7.6 step 2 follows 8.7.3 step 1) and the one
affecting the most Primary target models is kept. No card in the profiles marks a weapon as a template
weapon, so the template is named by ``--template`` and the weapon (for Range, Surge Types, keywords) by
``--card`` and ``--weapon``. ``board charge`` (8.7.7) prints :func:`mathhammer.board.charge.charge_distance`
and P(Speed + 1D6 reaches it), for both numbers of a split Speed unless ``--speed`` is given.

``board los`` prints :func:`mathhammer.board.facts.attack_facts` for one weapon. With ``--json``
it prints one object (see :meth:`mathhammer.board.facts.AttackFacts.to_dict`):

* ``attacker``, ``target``: the unit ids; ``eligible`` (bool) and ``refusals`` (reasons, 8.7.3);
* ``models``: per attacking model ``model``, ``nearest`` (nearest target model it may shoot),
  ``distance`` (inches, base edge to base edge, or null), ``band`` (``normal``, ``long``, ``out``,
  ``no-target``), ``burst`` (Within BURST FIRE), ``contributes`` (rolls dice), ``sees`` (the target
  models Visible to it);
* ``distances``: the contributing models' distances, for ``Batch(distances=...)``;
  ``normal_range``, ``long_range``, ``burst``: model ids per group;
* ``removable`` (count, for ``Batch(visible=...)``) and ``removable_models``;
* ``evade_eligible`` and ``evade_reasons`` (``engaged``, ``high-ground``, ``indirect-out-of-sight``,
  ``hidden``, ``burrowed``);
* ``attacker_engaged``, ``target_engaged``, ``target_tag`` (``Ground`` or ``Flying``);
* ``casualty_tiers``: ``{"1": [...], "2": [...], "3": [...]}`` (8.7.5) and ``anchors``
  (enemy unit id -> the target models Engaged with it).

``board show`` writes the picture of :func:`mathhammer.board.plot.plot_board` to ``--out``
through a temporary file in the same folder and ``os.replace``: never a partial file.
Every bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from .board_presets import presets
from .common import PROFILES_HELP, fail, file_path, handle_errors

app = typer.Typer(
    help=(
        "Battlefield files (format and a complete example: docs/board.md). "
        "los: who rolls, range, Evade, what may be removed (7.1, 8.7.3); "
        "template: Blast/Flamer Template coverage, Main target and Spillover Batches (8.7.6); "
        "charge: Charge distance and P(Speed + 1D6 reaches it) (8.7.7); show: a picture; "
        "presets: the Deployment Cards' markers, Entry Edges and our terrain presets."
    ),
    no_args_is_help=True,
)

FileArg = Annotated[Path, typer.Argument(help="Board TOML file.", show_default=False, parser=file_path)]


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="board")


def _inches(name: str, value: str | None) -> float | None:
    from ..validate import number

    if value is None:
        return None
    return float(number(name, value, 0, 1000, "inches"))


#: ``board los --tag`` values: the target's Combat Tag for a Weapon Target, or a Status (8.7.3, 8.7.4).
LOS_TAGS = ("Flying", "Ground", "Hidden", "Burrowed")


def _target_tags(values: list[str] | None) -> tuple[str, ...]:
    """``--tag`` values, each one of :data:`LOS_TAGS` (any case); another is refused, naming the flag."""
    known = {t.lower(): t for t in LOS_TAGS}
    out = []
    for value in values or []:
        found = known.get(value.strip().lower())
        if found is None:
            raise InputError("--tag", value, ", ".join(LOS_TAGS))
        out.append(found)
    return tuple(out)


def _board_unit(board: Any, unit_id: str, flag: str) -> Any:
    """The board's unit ``unit_id``; an unknown id is refused naming ``flag`` (``--attacker``, ``--target``)."""
    try:
        return board.unit(unit_id)
    except InputError as exc:
        raise exc.with_field(flag) from None


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


@app.command("los")
@handle_errors
def los(
    file: FileArg,
    attacker: Annotated[str, typer.Option("--attacker", metavar="UNIT", help="Attacking unit id.")],
    target: Annotated[str, typer.Option("--target", metavar="UNIT", help="Target unit id.")],
    range_: Annotated[
        str | None, typer.Option("--range", metavar="IN", help="Weapon Range in inches (default: no limit).")
    ] = None,
    long_range: Annotated[str | None, typer.Option("--long-range", metavar="IN", help="LONG RANGE (X).")] = None,
    burst: Annotated[str | None, typer.Option("--burst", metavar="IN", help='BURST FIRE Y" distance.')] = None,
    indirect: Annotated[bool, typer.Option("--indirect", help="INDIRECT FIRE.")] = False,
    pinpoint: Annotated[bool, typer.Option("--pinpoint", help="PINPOINT.")] = False,
    bulky: Annotated[bool, typer.Option("--bulky", help="BULKY.")] = False,
    weapon_target: Annotated[
        str, typer.Option("--weapon-target", metavar="TAG", help="Weapon Target: All, Ground or Flying.")
    ] = "All",
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag", metavar="TAG", help="Target tag or status (Flying, Ground, Hidden, Burrowed); repeatable."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Who rolls, at what distance, how many models may be removed, Evade and target eligibility."""
    from ..board.facts import attack_facts
    from ..board.loader import load_board

    inches = {
        flag: _inches(flag, v) for flag, v in (("--range", range_), ("--long-range", long_range), ("--burst", burst))
    }
    tags = _target_tags(tag)
    if weapon_target.strip().lower() not in ("all", "ground", "flying"):
        raise InputError("--weapon-target", weapon_target, "All, Ground or Flying")
    board = load_board(file)
    _board_unit(board, attacker, "--attacker")
    _board_unit(board, target, "--target")
    facts = attack_facts(
        board,
        attacker,
        target,
        inches["--range"],
        long_range=inches["--long-range"],
        burst_within=inches["--burst"],
        indirect=indirect,
        pinpoint=pinpoint,
        bulky=bulky,
        target_tags=tags,
        weapon_target=weapon_target,
    )
    if as_json:
        typer.echo(json.dumps(facts.to_dict()))
        return
    typer.echo(f"{facts.attacker} -> {facts.target}: {'eligible' if facts.eligible else 'not eligible'}")
    for reason in facts.refusals:
        typer.echo(f"  refused: {reason}")
    typer.echo(f"{'model':<16} {'nearest':<16} {'distance':>8}  {'band':<9} burst")
    for m in facts.models:
        dist = "-" if m.distance is None else f"{m.distance:.3f}"
        typer.echo(f"{m.model:<16} {m.nearest or '-':<16} {dist:>8}  {m.band:<9} {_yes(m.burst)}")
    typer.echo(f"distances: {', '.join(f'{d:g}' for d in facts.distances) or '-'}")
    typer.echo(f"removable: {facts.removable} ({', '.join(facts.removable_models) or '-'})")
    typer.echo(
        f"evade: {_yes(facts.evade_eligible)}" + (f" ({', '.join(facts.evade_reasons)})" if facts.evade_reasons else "")
    )
    typer.echo(f"engaged: attacker {_yes(facts.attacker_engaged)}, target {_yes(facts.target_engaged)}")
    if facts.target_engaged:
        for i, tier in enumerate(facts.casualty_tiers, 1):
            typer.echo(f"casualty priority {i}: {', '.join(tier) or '-'}")


@app.command("show")
@handle_errors
def show(
    file: Annotated[
        Path | None,
        typer.Argument(help="Board TOML file (or --deployment).", show_default=False, parser=file_path),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", metavar="PNG", help="Picture file to write.")] = None,
    attacker: Annotated[str | None, typer.Option("--attacker", metavar="UNIT", help="Attacking unit id.")] = None,
    target: Annotated[str | None, typer.Option("--target", metavar="UNIT", help="Target unit id.")] = None,
    deployment: Annotated[
        str | None,
        typer.Option("--deployment", metavar="CARD", help="A Deployment Card instead of FILE (board presets)."),
    ] = None,
    terrain: Annotated[
        str | None,
        typer.Option("--terrain", metavar="NAME", help="With --deployment: its terrain preset (default standard)."),
    ] = None,
) -> None:
    """Draw the board (terrain, bases; with --attacker/--target the sight lines) to a picture file; with
    --deployment CARD instead of FILE, the card's markers and zones on a terrain preset of ours."""
    if out is None:
        raise fail("--out: missing; required: the picture file to write")
    if terrain is not None and deployment is None:
        raise InputError("--terrain", terrain, "only with --deployment CARD (a board FILE has its own terrain)")
    if file is None and deployment is None:
        raise fail("FILE: missing; required: a board FILE, or --deployment CARD")
    if file is not None and deployment is not None:
        raise InputError("--deployment", deployment, "a board FILE or --deployment CARD, not both")
    dep = None
    if deployment is not None:
        from .board_presets import preset_board

        if attacker is not None or target is not None:
            raise InputError(
                "--attacker/--target", attacker or target, "only with a board FILE (a preset has no units)"
            )
        board, dep = preset_board(deployment, terrain or "standard")
    else:
        from ..board.loader import load_board

        assert file is not None
        board = load_board(file)
    for unit, flag in ((attacker, "--attacker"), (target, "--target")):
        if unit is not None:
            _board_unit(board, unit, flag)
    if (attacker is None) != (target is None):
        raise InputError("--attacker/--target", attacker or target, "both --attacker and --target, or neither")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise fail(f"--out: got {str(out)!r}; allowed: a file in an existing folder")
    try:
        from ..board.plot import plot_board
    except ImportError as exc:
        raise fail(f"board pictures need matplotlib and mathhammer.board.plot ({exc})") from None
    if dep is not None:
        from .board_presets import draw_layout, title

        figure = plot_board(board, attackers=None, targets=None, title=title(dep, terrain or "standard"))
        draw_layout(figure.axes[0], dep)
    else:
        figure = plot_board(board, attackers=attacker, targets=target)
    suffix = out.suffix or ".png"
    from ..outputs import Outputs, Target  # a transaction: never a partial file, ordinary permissions

    try:
        picture = Target(out, "--out", "file", "a picture file in an existing folder you can write to")
        with Outputs([picture]) as tx, tx.writing(0) as tmp:
            figure.savefig(tmp, format=suffix.lstrip(".") or "png")
    except InputError:
        raise
    except ValueError as exc:
        raise fail(f"--out: cannot write {str(out)!r}: {exc}") from None
    typer.echo(f"wrote {out}")


_FLAMER_FLAGS = {"flamer length": "--length", "flamer narrow end": "--narrow", "flamer wide end": "--wide"}


def _unit_tags(items: list[str] | None, board_units: list[str]) -> dict[str, str]:
    """``--tags UNIT=T1,T2`` (repeatable) into {unit id: "T1,T2"}."""
    from ..errors import InputError

    out: dict[str, str] = {}
    for item in items or []:
        unit, sep, tags = item.partition("=")
        unit = unit.strip()
        if not sep or not tags.strip() or unit not in board_units:
            raise InputError("--tags", item, "UNIT=TAG[,TAG] with a unit id of the board: " + ", ".join(board_units))
        out[unit] = tags
    return out


@app.command("template")
@handle_errors
def template(
    file: FileArg,
    attacker: Annotated[str, typer.Option("--attacker", metavar="UNIT", help="Attacking unit id.")],
    target: Annotated[str, typer.Option("--target", metavar="UNIT", help="Primary target unit id (an Enemy unit).")],
    kind: Annotated[str, typer.Option("--template", metavar="KIND", help="blast (BT) or flamer (FT).")],
    at: Annotated[
        str | None,
        typer.Option("--at", metavar="MODEL", help="Target model: its base centre is the Target Point [the best one]."),
    ] = None,
    attacker_model: Annotated[
        str | None, typer.Option("--attacker-model", metavar="MODEL", help="The firing model [the best one].")
    ] = None,
    card: Annotated[
        str | None, typer.Option("--card", metavar="UNIT", help="Unit card carrying --weapon (profiles).")
    ] = None,
    weapon: Annotated[
        str | None, typer.Option("--weapon", metavar="NAME", help="The template weapon on --card (for the Batches).")
    ] = None,
    profiles: Annotated[
        list[str] | None,
        typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
    ] = None,
    weapon_target: Annotated[
        str | None,
        typer.Option(
            "--weapon-target", metavar="TAG", help="Weapon Target: All, Ground or Flying [card, else Ground]."
        ),
    ] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option("--tags", metavar="UNIT=T1,T2", help="A unit's Combat Tags (for Spillover), repeatable."),
    ] = None,
    diameter: Annotated[
        str | None, typer.Option("--diameter", metavar="IN", help='Blast Template diameter [3"].')
    ] = None,
    length: Annotated[str | None, typer.Option("--length", metavar="IN", help='Flamer length [8"].')] = None,
    narrow: Annotated[str | None, typer.Option("--narrow", metavar="IN", help='Flamer narrow end [0.75"].')] = None,
    wide: Annotated[str | None, typer.Option("--wide", metavar="IN", help='Flamer wide end [2"].')] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Set a Blast or Flamer Template (8.7.6): covered models per unit, the Main target and Spillover Batches.

    Without --at / --attacker-model every placement the rules allow is tried and the one affecting the
    most Primary target models is kept (ties: fewest Friendly models, then most Enemy Spillover models).
    Template sizes are not in the rulebook excerpt: the defaults are this project's choice
    (mathhammer/board/templates.py).
    """
    from ..board.loader import load_board
    from ..board.los import HIDDEN_RANGE, line_of_sight
    from ..board.templates import BlastTemplate, FlamerTemplate, TemplateResult, template_batches
    from ..validate import number

    kind_l = kind.strip().lower()
    if kind_l not in ("blast", "flamer"):
        raise InputError("--template", kind, "blast or flamer")
    sizes = {"--diameter": diameter, "--length": length, "--narrow": narrow, "--wide": wide}
    for flag, value in sizes.items():
        if value is not None and (flag == "--diameter") != (kind_l == "blast"):
            raise InputError(flag, value, f"only with --template {'blast' if flag == '--diameter' else 'flamer'}")
    dims = {k: number(k, v, 0.01, 100, "inches") for k, v in sizes.items() if v is not None}
    blast = BlastTemplate(dims.get("--diameter", 3.0))
    try:
        flamer = FlamerTemplate(dims.get("--length", 8.0), dims.get("--narrow", 0.75), dims.get("--wide", 2.0))
    except InputError as exc:
        raise exc.with_field(_FLAMER_FLAGS.get(exc.field, exc.field)) from None
    if (card is None) != (weapon is None):
        raise InputError("--card" if card is None else "--weapon", weapon or card, "both --card UNIT and --weapon NAME")
    w, w_target = _template_weapon(card, weapon, profiles or [])
    if weapon_target is not None:
        allowed = {t.lower(): t for t in ("All", "Ground", "Flying")}
        if weapon_target.strip().lower() not in allowed:
            raise InputError("--weapon-target", weapon_target, "All, Ground or Flying")
        w_target = allowed[weapon_target.strip().lower()]
    board = load_board(file)
    try:
        a_unit = board.unit(attacker)
    except InputError as exc:
        raise exc.with_field("--attacker") from None
    try:
        t_unit = board.unit(target)
    except InputError as exc:
        raise exc.with_field("--target") from None
    if attacker == target or a_unit.side == t_unit.side:
        raise InputError("--target", target, f"an Enemy unit of {attacker!r} (8.7.6 step 2)")
    a_ids, t_ids = [m.id for m in a_unit.models], [m.id for m in t_unit.models]
    if attacker_model is not None and attacker_model not in a_ids:
        raise InputError("--attacker-model", attacker_model, f"a model of unit {attacker!r}: " + ", ".join(a_ids))
    if at is not None and at not in t_ids:
        raise InputError("--at", at, f"a model of unit {target!r}: " + ", ".join(t_ids))
    unit_tags = _unit_tags(tags, [u.id for u in board.units])
    shooters = [attacker_model] if attacker_model else a_ids
    points = [at] if at else t_ids

    def score(res: TemplateResult) -> tuple[int, int, int]:
        friendly = sum(len(v) for u, v in res.affected.items() if board.unit(u).side == a_unit.side)
        enemy_spill = sum(len(v) for u, v in res.affected.items() if u != target and board.unit(u).side != a_unit.side)
        return (len(res.affected.get(target, ())), -friendly, enemy_spill)

    reach = _template_reach(w) if weapon else None

    def eligible(sid: str, pid: str) -> bool:
        # 8.7.6 step 2: "Follow standard Target Eligibility (Part 8.7.3)": the target model is Visible to the
        # firing model and Within the weapon's Range (LONG RANGE (X): Within X")
        s_model, p_model = board.model(sid), board.model(pid)
        if t_unit.hidden and s_model.distance(p_model) > HIDDEN_RANGE + 1e-7:
            return False
        if reach is not None and s_model.distance(p_model) > reach + 1e-7:
            return False
        return line_of_sight(board, s_model, p_model).visible

    best: tuple[tuple[int, int, int], float, TemplateResult, str, str] | None = None
    for pid in points:
        p_model = board.model(pid)
        firing = [sid for sid in shooters if eligible(sid, pid)]
        if kind_l == "blast":  # a Blast is set on the target model, whichever model fires it: the nearest one
            firing = sorted(firing, key=lambda m: (board.model(m).distance(p_model), m))[:1]
        for sid in firing:
            res = template_batches(
                board, sid, pid, w, kind_l, primary_tags=unit_tags.get(target), unit_tags=unit_tags,  # type: ignore[arg-type]
                weapon_target=w_target, blast=blast, flamer=flamer,
            )  # fmt: skip
            key = (score(res), -board.model(sid).distance(p_model), res, sid, pid)
            if best is None or key[:2] > best[:2]:
                best = key
    if best is None:
        where = f"--at {at}" if at else f"--target {target}"
        who = f"model {attacker_model!r}" if attacker_model else f"unit {attacker!r}"
        raise InputError(
            "--at" if at else "--target",
            at or target,
            f"a target model Visible to and Within Range of {who} (8.7.6 step 2 follows 8.7.3 step 1; "
            f"{where} has none)",
        )
    _, _, res, sid, pid = best
    out = _template_dict(res, board, sid, pid, kind_l, blast, flamer, w if weapon else None)
    if as_json:
        typer.echo(json.dumps(out))
        return
    size = f'{blast.diameter:g}" diameter' if kind_l == "blast" else (
        f'{flamer.length:g}" long, {flamer.narrow:g}" to {flamer.wide:g}" wide'
    )  # fmt: skip
    typer.echo(
        f"{kind_l.title()} Template ({size}) fired by {sid}, Target Point {pid} "
        f"({res.target_point[0]:g}, {res.target_point[1]:g}), level {res.level}; Primary target {res.primary}"
    )
    for b in out["batches"]:
        surge = f", Surge result {b['surge_result']}" if b["surge_result"] is not None else ", no Surge"
        role = "Main target" if b["role"] == "main" else "Spillover"
        dice = b["dice"]
        typer.echo(
            f"  {b['unit']} ({role}): {', '.join(b['models'])} -> {dice} {'die' if dice == 1 else 'dice'}{surge}"
        )
    for mid, why in out["unaffected"].items():
        typer.echo(f"  not affected: {mid} ({why})")
    for note in out["notes"]:
        typer.echo(f"  note: {note}")


def _template_reach(weapon: Any) -> float | None:
    """How far the target model may be: LONG RANGE (X) if the weapon has it, else its Range (None: no limit)."""
    from ..starcraft.keywords import find

    lr = find(weapon.keywords, "LONG RANGE")
    if lr is not None and lr.value:
        return float(lr.value)
    return None if weapon.range is None else float(weapon.range)


def _template_weapon(card: str | None, weapon: str | None, profiles: list[str]) -> tuple[Any, str]:
    """The template weapon from a unit card (the Batches use its Hit, Damage, Surge Types, keywords)."""
    from ..starcraft.model import Weapon

    if card is None or weapon is None:
        return Weapon.build("template weapon", hit=4, damage=1), "Ground"
    from ..starcraft.loadout import _to_weapon
    from ..starcraft.roster import load_roster

    unit = load_roster(profiles).unit(card, "--card")
    names = [w.name for w in unit.card.weapons if w.phase == "assault"]
    for w in unit.card.weapons:
        if w.phase == "assault" and w.name.lower() == weapon.strip().lower():
            return _to_weapon(w, []), w.target
    raise InputError("--weapon", weapon, f"an Assault Phase weapon of {unit.name}: " + (", ".join(names) or "none"))


def _template_dict(
    res: Any, board: Any, sid: str, pid: str, kind: str, blast: Any, flamer: Any, weapon: Any
) -> dict[str, Any]:
    sizes = {"diameter": blast.diameter} if kind == "blast" else {
        "length": flamer.length, "narrow": flamer.narrow, "wide": flamer.wide
    }  # fmt: skip
    batches = []
    if res.main is not None:
        n = res.main.weapon.roa
        batches.append(
            {
                "unit": res.primary, "role": "main", "models": list(res.affected[res.primary]), "dice": n,
                "surge_result": n if (weapon is None or weapon.surge_tags) else None,
                "keywords": [str(k) for k in res.main.weapon.keywords],
            }
        )  # fmt: skip
    for unit_id, b in res.spillover.items():
        batches.append(
            {
                "unit": unit_id, "role": "spillover", "models": list(res.affected[unit_id]), "dice": b.weapon.roa,
                "surge_result": None, "keywords": [str(k) for k in b.weapon.keywords],
            }
        )  # fmt: skip
    return {
        "template": kind,
        "sizes": sizes,
        "weapon": None if weapon is None else weapon.name,
        "attacker_model": sid,
        "target_point": {"model": pid, "x": res.target_point[0], "y": res.target_point[1]},
        "level": res.level,
        "primary": res.primary,
        "affected": {u: list(ids) for u, ids in res.affected.items()},
        "unaffected": dict(res.unaffected),
        "batches": batches,
        "notes": list(res.notes),
    }


@app.command("charge")
@handle_errors
def charge(
    file: FileArg,
    leading: Annotated[str, typer.Option("--leading", metavar="MODEL", help="The Leading Model (8.7.7 step 2).")],
    target: Annotated[
        list[str],
        typer.Option("--target", metavar="UNIT", help="A declared target unit id, repeatable (multi-charge)."),
    ],
    speed: Annotated[
        str | None, typer.Option("--speed", metavar="N", help="The Unit's Speed (overrides --card).")
    ] = None,
    card: Annotated[
        str | None, typer.Option("--card", metavar="UNIT", help="Unit card whose printed Speed is used (profiles).")
    ] = None,
    profiles: Annotated[
        list[str] | None,
        typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
    ] = None,
    no_climb: Annotated[
        bool, typer.Option("--no-climb", help="Measure top-down only (climbs through ACCESS POINTs cost nothing).")
    ] = False,
    within_only: Annotated[
        bool, typer.Option("--within-only", help='Only the literal 8.7.7 step 3 test (Within 1"), not Engaged.')
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Charge distance of the Leading Model around terrain, through ACCESS POINTs, and P(Speed + 1D6 reaches it).

    A split Speed ("4/7") is printed under both numbers unless --speed N is given: which one is the
    Unit's Speed is set in rulebook Part 5.1, which the rulebook excerpt does not hold
    (mathhammer/board/charge.py).
    """
    from ..board.charge import charge_distance, charge_probabilities, speed_values
    from ..board.loader import load_board
    from ..validate import whole

    if speed is None and card is None:
        raise InputError("--speed", "", "--speed N or --card UNIT (the Unit's Speed, 8.7.7 step 2)")
    printed: Any = None
    if card is not None:
        from ..starcraft.roster import load_roster

        printed = load_roster(profiles or []).unit(card, "--card").card.speed
        speed_values(printed, "--card")
    speeds: Any = whole("--speed", speed, 0, 99, "the Unit's Speed in inches") if speed is not None else printed
    board = load_board(file)
    try:
        board.model(leading)
    except InputError as exc:
        raise exc.with_field("--leading") from None
    for tid in target:
        try:
            board.unit(tid)
        except InputError as exc:
            raise exc.with_field("--target") from None
    try:
        path = charge_distance(board, leading, target, engage=not within_only, count_climb=not no_climb)
    except InputError as exc:
        field = {"targets": "--target", "leading model": "--leading"}.get(exc.field, exc.field)
        raise exc.with_field(field) from None
    odds = charge_probabilities(path.length, speeds)
    values = list(odds)
    out: dict[str, Any] = {
        "leading_model": leading,
        "targets": list(dict.fromkeys(target)),
        "reachable": path.reachable,
        "distance": None if not path.reachable else round(path.length, 3),
        "climb": round(path.climb, 3),
        "path": None if path.path is None else [[round(x, 3), round(y, 3)] for x, y in path.path],
        "levels": list(path.levels),
        "speed_printed": printed if card is not None else None,
        "probabilities": [
            {
                "speed": v,
                "printed": None if len(values) == 1 else ("first" if i == 0 else "second"),
                "p": p,
            }
            for i, (v, p) in enumerate(odds.items())
        ],
    }
    if as_json:
        typer.echo(json.dumps(out))
        return
    if not path.reachable:
        typer.echo(f"{leading}: no legal Charge end position can be reached (8.7.7 step 3)")
    else:
        climb = f' (climb {path.climb:g}")' if path.climb else ""
        typer.echo(f'{leading}: Charge distance {path.length:.2f}"{climb} to {", ".join(out["targets"])}')
    for row in out["probabilities"]:
        label = f" ({row['printed']} printed value)" if row["printed"] else ""
        typer.echo(f"  Speed {row['speed']}{label} + 1D6: P(success) = {row['p']:.4f}")
    if len(values) > 1:
        typer.echo(
            "  note: split Speed: which number is the Unit's Speed is set in rulebook Part 5.1 (not in the excerpt)"
        )


#: ``board presets``: the Deployment Cards' markers, Entry Edges and terrain presets (:mod:`.board_presets`).
app.command("presets")(presets)
