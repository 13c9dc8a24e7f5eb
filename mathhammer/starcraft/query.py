"""A named StarCraft TMG attack compiled from a neutral :class:`~mathhammer.systems.Query`.

The units come from the roster, bought as the query says (9.1.7); the
situation switches (:data:`OPTIONS`) set the target's state and the facts of
a battlefield file when one is given (8.7.3 step 1, 8.7.5). The result is a
:class:`StarCraftAttack`: the Batches and the target, ready for both engines.

>>> from mathhammer.starcraft.system import SYSTEM
>>> from mathhammer.systems import Query
>>> roster = SYSTEM.load_roster()
>>> a = compile_query(roster, Query("Marine", "Zergling", models=9, distance=10))
>>> a.models, [b.label for b in a.batches]
(12, ['C-14 Rifle'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..systems import Option, Query
from ..validate import number, whole
from .compiled import CompiledBatch, CompiledTarget, compile_attack
from .model import Attack, Batch, Target

if TYPE_CHECKING:  # pragma: no cover
    from .loadout import Loadout

# (the loadout module, with the card schema's pydantic models, loads only for a named attack: an ad-hoc
# attack never builds those classes)

#: The phases of a named attack (8.6, 8.8).
PHASES = {"assault": "Assault Phase (ranged)", "combat": "Combat Phase (close)"}

#: The situation switches of a named attack, by keyword.
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("attacker_models", "attacking models left (at most the composition)", "int"),
        Option("target_left", "target models left at the start of the attack", "int"),
        Option("target_marker", "the target's Damage Marker", "int"),
        Option("target_shielded", "whether the target is still SHIELDED (None: as its card)", "bool"),
        Option("target_visible", "target models visible to the attackers, which may be removed (FAQ v1.0)", "int"),
        Option("evade_eligible", "the target makes Evade Rolls (8.7.4 step 4)"),
        Option("stationary", "the target is Stationary"),
        Option("on_creep", "the attacker (and a Lurking target) is ON CREEP"),
        Option("damage_reduction", "a Total Damage reduction used once, at the first Batch dealing Damage", "int"),
        Option("reduction_floor", "the reduction's minimum Total Damage (Dae'Uhl: 1)", "int"),
        Option("board", "a battlefield file: who rolls and who may be removed come from it", "str"),
        Option("attacker_unit", "the attacker's unit id on the board", "str"),
        Option("target_unit", "the target's unit id on the board", "str"),
    )
}


@dataclass(frozen=True, eq=False, repr=False)
class StarCraftAttack:
    """A named (or ad-hoc) StarCraft TMG attack: Batches in order against one target.

    Attributes:
        batches: the Batches (8.7.3), resolved in order.
        target: the target unit with its state.
        label: a short description.
        notes: what the user should know about how the attack was read.
        loadout: the loadout used (units, upgrades, phase, board facts), for JSON and text.
    """

    batches: tuple[Batch, ...]
    target: Target
    label: str
    notes: tuple[str, ...] = ()
    loadout: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def arrays(self) -> tuple[tuple[CompiledBatch, ...], CompiledTarget]:
        """The compiled chain both engines read (:func:`~mathhammer.starcraft.compiled.compile_attack`)."""
        return compile_attack(Attack(self.batches, self.target))

    @property
    def models(self) -> int:
        return self.arrays[1].models


def reduction_note(target: Target) -> str:
    """How a Total Damage reduction was applied (for the user)."""
    floor = f" (to a minimum of {target.reduction_floor})" if target.reduction_floor else ""
    return (
        f"the Total Damage is reduced once by {target.damage_reduction}{floor}, at the first Batch that deals "
        "Damage (8.7.4 step 5; a Reaction is used once)"
    )


def out_of_range(batch: Batch) -> str | None:
    """``out of range: 16" > 12"`` when no model of ``batch`` is within its weapon's range (8.7.3 step 1;
    LONG RANGE (X) reaches X), else None."""
    from .keywords import find

    w = batch.weapon
    if batch.distances is None or w.range is None or not batch.distances:
        return None
    long_range = find(w.keywords, "LONG RANGE")
    reach = max(w.range, float(long_range.value or 0)) if long_range is not None else w.range
    nearest = min(batch.distances)
    if nearest <= reach:
        return None
    how = f' (LONG RANGE ({reach:g}"))' if long_range is not None else ""
    return f'out of range: {nearest:g}" > {reach:g}"{how}'


def describe_batches(batches: Sequence[Batch]) -> list[dict[str, Any]]:
    out = []
    for b in batches:
        row: dict[str, Any] = {"weapon": b.label, "models": b.models, "keywords": [str(k) for k in b.weapon.keywords]}
        reason = out_of_range(b)
        if reason is not None:
            row["out_of_range"] = reason
        out.append(row)
    return out


def _option(options: Mapping[str, Any], name: str, default: Any = None) -> Any:
    value = options.get(name)
    return default if value is None else value


def compile_query(roster: Any, q: Query) -> StarCraftAttack:
    """The attack ``q`` describes (see the module docstring); every option refused unless in :data:`OPTIONS`."""
    from ..systems import check_options

    check_options(OPTIONS, q.options, "StarCraft: Tabletop Miniatures Game")
    o = q.options
    phase = q.phase or "assault"
    if phase not in PHASES:
        raise InputError("phase", phase, "assault or combat")
    if o.get("reduction_floor") is not None and o.get("damage_reduction") is None:
        raise InputError("reduction_floor", o["reduction_floor"], "with damage_reduction N (the reduction it bounds)")
    board = _board(o)
    attack = _board_combat(roster, q, board) if board is not None and phase == "combat" else _named(roster, q, board)
    reduction = o.get("damage_reduction")
    if reduction is not None:
        target = dataclasses.replace(
            attack.target,
            damage_reduction=whole("damage_reduction", reduction, 0, 99, "Total Damage reduction"),
            reduction_floor=whole("reduction_floor", _option(o, "reduction_floor", 0), 0, 99, "minimum Total Damage"),
        )
        notes = attack.notes + ((reduction_note(target),) if target.damage_reduction else ())
        attack = dataclasses.replace(attack, target=target, notes=notes)
    return attack


def _board(o: Mapping[str, Any]) -> tuple[str, str, str] | None:
    path, attacker, target = o.get("board"), o.get("attacker_unit"), o.get("target_unit")
    if path is None:
        if attacker or target:
            raise InputError("attacker_unit" if attacker else "target_unit", attacker or target, "with board")
        return None
    if not attacker or not target:
        raise InputError("board", path, "with attacker_unit and target_unit (unit ids of the board)")
    return str(path), str(attacker), str(target)


def _loadouts(roster: Any, q: Query) -> tuple[Loadout, Loadout]:
    from .loadout import make_loadout

    a_unit = roster.unit(q.attacker, "attacker")
    t_unit = roster.unit(q.target, "target")
    a_comp = None if q.models is None else whole("models", q.models, 1, 99, "models")
    t_comp = None if q.target_models is None else whole("target_models", q.target_models, 1, 99, "models")
    lo_a = make_loadout(a_unit, a_comp, q.upgrades, q.use, ("models", "upgrades", "use"))
    lo_t = make_loadout(
        t_unit, t_comp, q.target_upgrades, q.target_use, ("target_models", "target_upgrades", "target_use")
    )
    return lo_a, lo_t


def _named(roster: Any, q: Query, board: tuple[str, str, str] | None) -> StarCraftAttack:
    from .loadout import as_target, attack_batches, indomitable

    o = q.options
    phase = q.phase or "assault"
    lo_a, lo_t = _loadouts(roster, q)
    distance = None if q.distance is None else number("range", q.distance, 0, 999, "distance in inches")
    alive = o.get("attacker_models")
    alive = None if alive is None else whole("attacker_models", alive, 1, lo_a.models, "models")
    left = o.get("target_left")
    left = lo_t.models if left is None else whole("target_left", left, 1, lo_t.models, "models left")
    marker = whole("target_marker", _option(o, "target_marker", 0), 0, 999, "Damage Marker")
    on_creep = bool(o.get("on_creep"))
    batches = attack_batches(lo_a, lo_t.unit, phase, distance, alive, on_creep)
    if not batches:
        raise InputError(
            "phase",
            phase,
            f"a phase in which {lo_a.name} has a weapon that can target {lo_t.name} "
            f"({', '.join(lo_t.unit.card.combat_tags)})",
        )
    facts: dict[str, Any] | None = None
    visible = o.get("target_visible")
    visible = None if visible is None else whole("target_visible", visible, 1, 999, "visible models")
    evade_eligible = bool(o.get("evade_eligible"))
    if board is not None:
        if distance is not None or phase != "assault":
            raise InputError("board", board[0], "a board for Ranged Attacks (the Assault Phase), without range")
        both = (indomitable(lo_a), indomitable(lo_t))
        batches, facts = board_batches(batches, board, lo_t.unit.card.combat_tags, both)
        visible = facts["removable"] if visible is None else min(visible, facts["removable"])
        evade_eligible = evade_eligible or facts["evade_eligible"]
    if facts is not None:
        on_board = facts["target_models"]
        if o.get("target_left") is not None and left != on_board:
            unit = facts["target_unit"]
            raise InputError("target_left", left, f"{on_board} (unit {unit!r} has {on_board} models on the board)")
        if on_board > lo_t.models:
            allowed = f"a unit whose models fit the target composition ({lo_t.models})"
            raise InputError("target_unit", facts["target_unit"], allowed)
        left = on_board
    shielded = o.get("target_shielded")
    target = as_target(
        lo_t,
        phase,
        alive=left,
        marker=marker,
        evade_eligible=evade_eligible,
        stationary=bool(o.get("stationary")),
        shielded=None if shielded is None else bool(shielded),
        visible=max(1, visible) if visible is not None else None,
    )
    loadout = {
        "attacker": lo_a.describe(),
        "target": lo_t.describe(),
        "target_models": left,
        "phase": phase,
        "distance": distance,
        "batches": describe_batches(batches),
    }
    if facts is not None:
        loadout["board"] = facts
    return StarCraftAttack(tuple(batches), target, f"{lo_a.name} vs {lo_t.name}", (), loadout)


def board_batches(
    batches: Sequence[Batch],
    board: tuple[str, str, str],
    target_tags: Sequence[str],
    indomitable: tuple[bool, bool] = (False, False),
) -> tuple[list[Batch], dict[str, Any]]:
    """Each Batch with the board's facts (8.7.3 step 1): only the models with a Visible target
    model Within Range roll, at their own distances; only Visible models may be removed (FAQ v1.0);
    ``indomitable``: the attacker's and the target's Indomitable (Goliath).

    The models carrying a weapon are taken to be the unit's first contributing models, in the order
    the board file lists them. Returns the Batches that still roll dice and the facts used.
    """
    from ..board.facts import weapon_facts
    from ..board.loader import load_board

    path, attacker_id, target_id = board
    b = load_board(path)
    out: list[Batch] = []
    rolled: dict[str, int] = {}
    removable = 0
    evade = False
    reasons: set[str] = set()
    refusals: list[str] = []
    for batch in batches:
        w = batch.weapon
        f = weapon_facts(b, attacker_id, target_id, w, target_tags, indomitable)
        if not f.eligible:
            refusals.extend(f"{batch.label}: {r}" for r in f.refusals)
            continue
        distances = tuple(f.distances[: batch.models]) if batch.kind == "weapon" else None
        n = len(distances) if distances is not None else batch.models
        rolled[batch.label] = n
        removable = max(removable, f.removable)
        evade = evade or f.evade_eligible
        reasons.update(f.evade_reasons)
        if n:
            out.append(Batch(w, models=n, distances=distances, kind=batch.kind, name=batch.name))
    if not out:
        raise InputError("board", path, "a board where some model can shoot: " + "; ".join(refusals or ["none"]))
    facts = {
        "file": path,
        "attacker_unit": attacker_id,
        "target_unit": target_id,
        "models_rolling": rolled,
        "removable": removable,
        "evade_eligible": evade,
        "evade_reasons": sorted(reasons),
        "refusals": refusals,
        "target_models": len(b.unit(target_id).models),
    }
    return out, facts


def _board_combat(roster: Any, q: Query, board: tuple[str, str, str]) -> StarCraftAttack:
    """A board in the Combat Phase: only the Fighting and Supporting Rank strike (8.8.1 step 2) with their
    Combat Phase weapons; every target model may be removed, in the 8.7.5 priority order.

    The board decides how many models strike (``attacker_models`` is refused) and how many target models
    are left (``target_left`` must agree with it). Which board models carry a SPECIALIST upgrade
    is not on the board: the striking models are taken to carry them first.
    """
    from ..board.combat import combat_facts
    from ..board.loader import load_board

    o = q.options
    path, attacker_id, target_id = board
    if q.distance is not None:
        raise InputError("range", q.distance, "no range with a board (the board gives the positions)")
    if o.get("attacker_models") is not None:
        raise InputError("attacker_models", o["attacker_models"], "no attacker_models with a board (the board decides)")
    if o.get("target_visible") is not None:
        raise InputError(
            "target_visible",
            o["target_visible"],
            "no target_visible with a board in the Combat Phase (8.7.5: an Engaged unit ignores visibility)",
        )
    b = load_board(path)
    facts = combat_facts(b, attacker_id, target_id)
    if facts.refusals:
        raise InputError(
            "board", path, "a board where the attacker can strike the target: " + "; ".join(facts.refusals)
        )
    left = len(b.unit(target_id).models)
    given = o.get("target_left")
    if given is not None and str(given).strip() != str(left):
        raise InputError("target_left", given, f"{left} (unit {target_id!r} has {left} models on the board)")
    options = {k: v for k, v in o.items() if k not in ("board", "attacker_unit", "target_unit")}
    inner = dataclasses.replace(q, options={**options, "attacker_models": len(facts.strikers), "target_left": left})
    try:
        attack = _named(roster, inner, None)
    except InputError as exc:
        if exc.field == "attacker_models":
            raise InputError(
                "attacker_unit", attacker_id, f"a unit whose striking models fit the composition ({exc.allowed})"
            ) from None
        if exc.field == "target_left":
            raise InputError(
                "target_unit", target_id, f"a unit whose models fit the target composition ({exc.allowed})"
            ) from None
        raise
    info = facts.to_dict()
    info.update(
        file=path,
        attacker_unit=attacker_id,
        target_unit=target_id,
        models_rolling={b.label: b.models for b in attack.batches},
        evade_eligible=False,
        evade_reasons=[],
        refusals=[],
    )
    attack.loadout["board"] = info
    return attack
