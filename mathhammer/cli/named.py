"""Named units on the command line: the roster, loadouts and target states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InputError
from ..profiles import Roster, load_roster
from ..starcraft.loadout import Loadout, as_target, attack_batches, indomitable, make_loadout
from ..starcraft.model import Batch, Target
from ..validate import whole

STATE_KEYS = ("models", "marker", "shielded")


def roster(profiles: Sequence[str]) -> Roster:
    return load_roster(profiles)


def parse_state(text: str | None, loadout: Loadout) -> dict[str, Any]:
    """``models=8,marker=1,shielded=no`` into the target's state at the start of the attack."""
    state: dict[str, Any] = {"models": loadout.models, "marker": 0, "shielded": None}
    if not text:
        return state
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in STATE_KEYS:
            raise InputError("--target-state", item, "KEY=VALUE items, keys " + ", ".join(STATE_KEYS))
        if key == "models":
            state["models"] = whole("--target-state models", value, 1, loadout.models, "models left")
        elif key == "marker":
            state["marker"] = whole("--target-state marker", value, 0, 999, "Damage Marker")
        else:
            v = value.strip().lower()
            if v not in ("yes", "no", "true", "false"):
                raise InputError("--target-state shielded", value, "yes or no")
            state["shielded"] = v in ("yes", "true")
    return state


def describe_batches(batches: Sequence[Batch]) -> list[dict[str, Any]]:
    return [{"weapon": b.label, "models": b.models, "keywords": [str(k) for k in b.weapon.keywords]} for b in batches]


def named_attack(
    attacker: str,
    target: str,
    attacker_comp: str | None,
    upgrades: Sequence[str],
    use: Sequence[str],
    attacker_models: str | None,
    phase: str,
    target_comp: str | None,
    target_upgrades: Sequence[str],
    target_use: Sequence[str],
    target_state: str | None,
    on_creep: bool,
    profiles: Sequence[str],
    distance: float | None,
    flags: dict[str, Any],
    board: tuple[str, str, str] | None = None,
) -> tuple[list[Batch], Target, dict[str, Any]]:
    """Resolve ``attack ATTACKER TARGET`` flags into Batches, a Target and the loadout used."""
    if phase not in ("assault", "combat"):
        raise InputError("--phase", phase, "assault or combat")
    r = roster(profiles)
    a_unit = r.unit(attacker, "ATTACKER")
    t_unit = r.unit(target, "TARGET")
    a_comp = None if attacker_comp is None else whole("--attacker-comp", attacker_comp, 1, 99, "models")
    t_comp = None if target_comp is None else whole("--target-comp", target_comp, 1, 99, "models")
    lo_a = make_loadout(a_unit, a_comp, upgrades, use, ("--attacker-comp", "--upgrade", "--use"))
    lo_t = make_loadout(
        t_unit, t_comp, target_upgrades, target_use, ("--target-comp", "--target-upgrade", "--target-use")
    )
    alive = None if attacker_models is None else whole("--attacker-models", attacker_models, 1, lo_a.models, "models")
    state = parse_state(target_state, lo_t)
    batches = attack_batches(lo_a, t_unit, phase, distance, alive, on_creep)
    if not batches:
        raise InputError(
            "--phase",
            phase,
            f"a phase in which {a_unit.name} has a weapon that can target {t_unit.name} "
            f"({', '.join(t_unit.card.combat_tags)})",
        )
    facts: dict[str, Any] | None = None
    visible = flags["visible"]
    evade_eligible = flags["evade_eligible"]
    if board is not None:
        if distance is not None or phase != "assault":
            raise InputError("--board", board[0], "a board for Ranged Attacks (the Assault Phase), without --range")
        both = (indomitable(lo_a), indomitable(lo_t))
        batches, facts = board_batches(batches, board, t_unit.card.combat_tags, both)
        visible = facts["removable"] if visible is None else min(visible, facts["removable"])
        evade_eligible = evade_eligible or facts["evade_eligible"]
    tgt = as_target(
        lo_t,
        phase,
        alive=state["models"],
        marker=state["marker"],
        evade_eligible=evade_eligible,
        stationary=flags["stationary"],
        shielded=False if flags["unshielded"] else state["shielded"],
        visible=max(1, visible) if visible is not None else None,
    )
    loadout = {
        "attacker": lo_a.describe(),
        "target": lo_t.describe(),
        "target_models": state["models"],
        "phase": phase,
        "distance": distance,
        "batches": describe_batches(batches),
    }
    if facts is not None:
        loadout["board"] = facts
    return batches, tgt, loadout


def board_batches(
    batches: Sequence[Batch],
    board: tuple[str, str, str],
    target_tags: Sequence[str],
    indomitable: tuple[bool, bool] = (False, False),
) -> tuple[list[Batch], dict[str, Any]]:
    """Each Batch with the board's facts (issue 5, 8.7.3 step 1): only the models with a Visible target
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
        raise InputError("--board", path, "a board where some model can shoot: " + "; ".join(refusals or ["none"]))
    facts = {
        "file": path,
        "attacker_unit": attacker_id,
        "target_unit": target_id,
        "models_rolling": rolled,
        "removable": removable,
        "evade_eligible": evade,
        "evade_reasons": sorted(reasons),
        "refusals": refusals,
    }
    return out, facts
