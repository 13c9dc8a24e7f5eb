"""Compare loadouts of a unit against targets, and two units against each other.

Rows are plain dicts (one per loadout and target), ready for pandas, CSV
and plots. Every figure carries its standard error (0 for exact results).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.options import RunOptions
from ..errors import InputError
from ..results import Result
from .compiled import attack_key, compile_attack
from .loadout import Loadout, _applies, as_target, attack_batches, make_loadout
from .model import Attack, Batch, Target
from .roster import Roster, Unit


def run(batches: Sequence[Batch], target: Target, options: RunOptions, label: str, watch: str = "both") -> Result:
    """One chain of Batches against ``target``, with the run ``options``."""
    from .engines import run as run_attack
    from .query import StarCraftAttack

    return run_attack(StarCraftAttack(tuple(batches), target, label), options, label, watch)


RANK_BY = ("kills-per-100", "damage-per-100", "p-destroy", "damage")


@dataclass(frozen=True, eq=False)
class TargetSpec:
    """A target of a comparison: a unit, its composition and upgrades."""

    unit: Unit
    models: int | None = None
    upgrades: tuple[str, ...] = ()

    def loadout(self) -> Loadout:
        return make_loadout(self.unit, self.models, self.upgrades, (), ("vs", "vs", "use"))


def upgrade_sets(unit: Unit, pool: Sequence[str] | None = None) -> list[tuple[str, ...]]:
    """Every combination of the card's upgrades (or of ``pool``), the empty one first.

    >>> from mathhammer.starcraft.roster import load_roster
    >>> len(upgrade_sets(load_roster().unit("Marine"))) == 2 ** len(load_roster().unit("Marine").card.upgrades)
    True
    """
    names = [u.name for u in unit.card.upgrades]
    if pool is not None:
        for p in pool:
            if p.strip().lower() not in {n.lower() for n in names}:
                raise InputError("upgrades", p, f"upgrades of {unit.name}: {', '.join(names) or 'none'}")
        names = [n for n in names if n.lower() in {p.strip().lower() for p in pool}]
    return [c for k in range(len(names) + 1) for c in itertools.combinations(names, k)]


def idle_upgrades(unit: Unit, target: Unit, phase: str, distance: float | None, use: Sequence[str]) -> set[int]:
    """The ``id`` of each upgrade of ``unit`` that changes none of its Batches against ``target`` in ``phase`` at
    ``distance`` (:func:`~mathhammer.starcraft.loadout.attack_batches`), whatever else the loadout holds: not
    SPECIALIST, no weapon of this phase and no weapon named like one, replacing none of this phase's weapons,
    and no ability effect that acts here (a passive one, or one switched on by ``use``, that applies at this
    distance against this target). Combat Shield, or a Bayonet at range, for instance."""
    card = unit.card
    here = {w.name for w in card.weapons if w.phase == phase}
    here |= {w.name for u in card.upgrades for w in u.weapons if w.phase == phase}
    tags = target.card.combat_tags
    size = 0 if target.card.size == "-" else int(target.card.size)
    chosen = {a.lower() for a in use}
    idle = set()
    for up in card.upgrades:
        if up.specialist or (up.replaces and up.replaces in here):
            continue
        if any(w.phase == phase or w.name in here for w in up.weapons):
            continue
        acting = [a for a in up.abilities if a.type == "passive" or a.name.lower() in chosen]
        if any(_applies(e, distance, tags, False, size) for a in acting for e in a.effects):
            continue
        idle.add(id(up))
    return idle


def _maker(unit: Unit, use: Sequence[str]) -> Any:
    """``make_loadout(unit, models, upgrades, use)`` for compare's sweep, where the upgrade names are the card's
    own: a combination its checks cannot refuse (no ability switched on, the card's upgrade names distinct,
    a composition of the card, no more SPECIALIST upgrades than models) is made without them; any other goes
    through :func:`~mathhammer.starcraft.loadout.make_loadout` and its errors."""
    card = unit.card
    by_name = {u.name: u for u in card.upgrades}
    keys = {u.name.strip().lower() for u in card.upgrades}
    plain = not use and len(keys) == len(by_name) == len(card.upgrades)
    plain = plain and all(n == n.strip() for n in by_name)
    comps = {c.models: c for c in card.compositions}
    flags = ("compositions", "upgrades", "use")

    def make(models: int, names: Sequence[str]) -> Loadout:
        comp = comps.get(models)
        if not plain or comp is None or any(n not in by_name for n in names):
            return make_loadout(unit, models, names, use, flags)
        chosen = tuple(by_name[n] for n in names)
        if sum(1 for u in chosen if u.specialist) > models:
            return make_loadout(unit, models, names, use, flags)
        minerals = comp.minerals + sum(u.cost.get(str(models), 0) for u in chosen)
        return Loadout(unit, models, chosen, (), minerals)

    return make


def _loadout_part(lo: Loadout, target: Loadout, phase: str) -> dict[str, Any]:
    """The columns of a row that name the loadout, the target and the phase (before the figures)."""
    return {
        "unit": lo.name,
        "models": lo.models,
        "upgrades": " + ".join(u.name for u in lo.upgrades) or "-",
        "use": " + ".join(lo.use) or "-",
        "minerals": lo.minerals,
        "target": target.label,
        "phase": phase,
    }


def _figures(target: Loadout, result: Result) -> tuple[dict[str, Any], dict[str, Any]]:
    """The columns of a row that depend on the result alone, before and after the two per-100 columns: loadouts
    that make the same attack share them (computed once)."""
    dmg = result.damage
    kills = result.models_destroyed
    head: dict[str, Any] = {
        "engine": result.engine,
        "trials": result.trials,
        "damage_mean": dmg.mean,
        "damage_se": dmg.stderr,
        "destroyed_mean": kills.mean,
        "destroyed_se": kills.stderr,
        "p_destroy": result.unit_destroyed,
        "p_destroy_se": result.unit_destroyed_stderr,
    }
    tail = {f"p_ge_{k}": kills.at_least(k) for k in range(1, target.models + 1)}
    return head, tail


def _per_100(minerals: int, head: dict[str, Any]) -> dict[str, Any]:
    per = 100.0 / minerals if minerals else float("nan")
    return {"damage_per_100": head["damage_mean"] * per, "kills_per_100": head["destroyed_mean"] * per}


def compare(
    unit: Unit,
    targets: Sequence[TargetSpec],
    phase: str = "assault",
    compositions: Sequence[int] | None = None,
    upgrade_pool: Sequence[str] | None = None,
    use: Sequence[str] = (),
    distance: float | None = None,
    rank_by: str = "kills-per-100",
    options: RunOptions | None = None,
) -> list[dict[str, Any]]:
    """Every loadout of ``unit`` (compositions x upgrade combinations) against every target.

    Returns rows ranked within each target by ``rank_by`` (best first), with
    a ``rank`` column. ``options`` says how to run (exact by default); a
    ``tolerance`` applies to the standard error of P(destroy unit).

    Loadouts whose Batches are the same in this phase (an upgrade that acts
    in the other phase, say) are resolved once and share one result, and
    their rows one ``attack_id`` (numbered per target): equal ids, equal
    compiled attacks, equal distributions of results in either engine.
    """
    options = options or RunOptions()
    cache: dict[tuple[object, ...], Result] = {}
    if rank_by not in RANK_BY:
        raise InputError("rank_by", rank_by, ", ".join(RANK_BY))
    sizes = [c.models for c in unit.card.compositions] if not compositions else list(compositions)
    loadouts: list[Loadout] = []  # made (and refused) once, in the order of the first target's sweep
    rows: list[dict[str, Any]] = []
    for spec in targets:
        tlo = spec.loadout()
        target = as_target(tlo, phase)
        block = []
        ids: dict[tuple[object, ...], int] = {}  # a number per distinct compiled attack against this target
        keys: dict[tuple[Batch, ...], tuple[object, ...]] = {}  # equal Batches (a pure input) compile alike
        figures: dict[tuple[object, ...], tuple[dict[str, Any], dict[str, Any]]] = {}  # by attack
        parts: dict[tuple[tuple[object, ...], int], dict[str, Any]] = {}  # by attack and cost
        state = target_state(target)
        idle = idle_upgrades(unit, spec.unit, phase, distance, use)
        made: dict[tuple[int, ...], tuple[Batch, ...]] = {}  # by the composition and the upgrades that act
        plan = [(models, ups) for models in sizes for ups in upgrade_sets(unit, upgrade_pool)]
        make = _maker(unit, use)
        for i, (models, ups) in enumerate(plan):
            if i == len(loadouts):
                loadouts.append(make(models, ups))
            lo = loadouts[i]
            acting = (lo.models, *(id(u) for u in lo.upgrades if id(u) not in idle))
            batches = made.get(acting)  # an idle upgrade changes no Batch: made once without it
            if batches is None:
                batches = made[acting] = tuple(attack_batches(lo, spec.unit, phase, distance))
            if not batches:
                continue
            key = keys.get(batches)
            if key is None:
                compiled, tc = compile_attack(Attack(batches, target))
                key = keys[batches] = attack_key(compiled, tc)
            if key not in cache:
                cache[key] = run(batches, target, options, lo.label, watch="p_destroy")
            part = parts.get((key, lo.minerals))
            if part is None:
                if key not in figures:
                    figures[key] = _figures(tlo, cache[key])
                head, tail = figures[key]
                part = parts[key, lo.minerals] = head | _per_100(lo.minerals, head) | tail
            seen = {"attack_id": ids.setdefault(key, len(ids)), "target_state": state}
            block.append(_loadout_part(lo, tlo, phase) | part | seen)
        columns = {"kills-per-100": "kills_per_100", "damage-per-100": "damage_per_100", "p-destroy": "p_destroy"}
        col = columns.get(rank_by, "damage_mean")
        block.sort(key=lambda r: (-r[col], r["minerals"]))
        for i, r in enumerate(block, 1):
            r["rank"] = i
        rows.extend(block)
    return rows


def target_state(target: Target) -> str:
    """How the target stands when the attack begins, in the rulebook's words.

    >>> target_state(Target.build(12, 1))
    '12 models, no Damage Marker, no Shield'
    """
    marker = f"Damage Marker {target.marker}" if target.marker else "no Damage Marker"
    up = "SHIELDED" if target.is_shielded else "not SHIELDED"
    shield = f"Shield {target.shield} ({up})" if target.shield else "no Shield"
    return f"{target.models} models, {marker}, {shield}"


def matchup(
    a: Loadout, b: Loadout, distance: float | None = None, options: RunOptions | None = None
) -> list[dict[str, Any]]:
    """Both directions: Assault Phase ranged, then Combat Phase, and both in sequence on one unit.

    Each direction starts from full units; ``assault+combat`` resolves the
    ranged Batches and then the close-combat Batches as one chain against the
    same target (8.7.3 Batch sequence, the attacker at full strength).
    """
    options = options or RunOptions()
    rows = []
    for att, dfn in ((a, b), (b, a)):
        ranged = attack_batches(att, dfn.unit, "assault", distance)
        close = attack_batches(att, dfn.unit, "combat", None)
        for phase, batches, tphase in (
            ("assault", ranged, "assault"),
            ("combat", close, "combat"),
            ("assault+combat", ranged + close, "combat"),
        ):
            if not batches:
                rows.append({"attacker": att.label, "target": dfn.label, "phase": phase, "batches": 0})
                continue
            if phase == "assault+combat" and not (ranged and close):
                continue
            res = run(batches, as_target(dfn, tphase), options, att.label)
            rows.append(
                {
                    "attacker": att.label,
                    "target": dfn.label,
                    "phase": phase,
                    "batches": len(batches),
                    "trials": res.trials,
                    "damage_mean": res.damage.mean,
                    "damage_se": res.damage.stderr,
                    "destroyed_mean": res.models_destroyed.mean,
                    "destroyed_se": res.models_destroyed.stderr,
                    "p_destroy": res.unit_destroyed,
                    "p_destroy_se": res.unit_destroyed_stderr,
                }
            )
    return rows


def resolve_targets(roster: Roster, names: Sequence[str], field: str = "vs") -> list[TargetSpec]:
    """``NAME`` or ``NAME:MODELS`` into target specs (errors name ``field``)."""
    out = []
    for text in names:
        name, colon, models = text.partition(":")
        unit = roster.unit(name.strip(), field)
        n = None
        if colon:  # "Zergling:" with no count is refused, not read as the full unit
            from ..validate import whole

            n = whole(field, models, 1, 99, "NAME:MODELS with a composition's models")
        out.append(TargetSpec(unit, n))
    return out
