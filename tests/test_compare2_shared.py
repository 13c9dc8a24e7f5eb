"""``compare`` shares the work of loadouts that make the same attack (issue 28 point 1: compare of one unit
each at most 2x ``python -c "import numpy"``), and prints what it printed before, to the byte.

The reference below is the sweep as it was before the sharing: every loadout made, its Batches compiled and
keyed, and its row built on its own. The rows of ``compare`` must be the same JSON text, for attackers with
upgrades for the other phase, SPECIALIST upgrades, Within-range abilities and switched-on abilities, at
several ranges and in both phases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mathhammer.engine.options import RunOptions
from mathhammer.errors import InputError
from mathhammer.results import Result
from mathhammer.starcraft import compare as cmp
from mathhammer.starcraft.compiled import attack_key, compile_attack
from mathhammer.starcraft.loadout import Loadout, as_target, attack_batches, make_loadout
from mathhammer.starcraft.model import Attack
from mathhammer.starcraft.roster import Roster, load_roster

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def roster() -> Roster:
    return load_roster()


def _reference_row(lo: Loadout, target: Loadout, result: Result, phase: str) -> dict[str, Any]:
    dmg = result.damage
    kills = result.models_destroyed
    per = 100.0 / lo.minerals if lo.minerals else float("nan")
    row: dict[str, Any] = {
        "unit": lo.name,
        "models": lo.models,
        "upgrades": " + ".join(u.name for u in lo.upgrades) or "-",
        "use": " + ".join(lo.use) or "-",
        "minerals": lo.minerals,
        "target": target.label,
        "phase": phase,
        "engine": result.engine,
        "trials": result.trials,
        "damage_mean": dmg.mean,
        "damage_se": dmg.stderr,
        "destroyed_mean": kills.mean,
        "destroyed_se": kills.stderr,
        "p_destroy": result.unit_destroyed,
        "p_destroy_se": result.unit_destroyed_stderr,
        "damage_per_100": dmg.mean * per,
        "kills_per_100": kills.mean * per,
    }
    for k in range(1, target.models + 1):
        row[f"p_ge_{k}"] = kills.at_least(k)
    return row


def _reference(
    unit: Any, specs: list[cmp.TargetSpec], phase: str, use: tuple[str, ...], distance: float | None
) -> list[dict[str, Any]]:
    """The sweep as it was: each loadout on its own (results shared by the compiled attack's key only)."""
    cache: dict[tuple[object, ...], Result] = {}
    rows: list[dict[str, Any]] = []
    for spec in specs:
        tlo = spec.loadout()
        target = as_target(tlo, phase)
        block = []
        ids: dict[tuple[object, ...], int] = {}
        state = cmp.target_state(target)
        for models in [c.models for c in unit.card.compositions]:
            for ups in cmp.upgrade_sets(unit):
                lo = make_loadout(unit, models, ups, use, ("compositions", "upgrades", "use"))
                batches = attack_batches(lo, spec.unit, phase, distance)
                if not batches:
                    continue
                compiled, tc = compile_attack(Attack(tuple(batches), target))
                key = attack_key(compiled, tc)
                if key not in cache:
                    cache[key] = cmp.run(batches, target, RunOptions(), lo.label, watch="p_destroy")
                seen = {"attack_id": ids.setdefault(key, len(ids)), "target_state": state}
                block.append(_reference_row(lo, tlo, cache[key], phase) | seen)
        block.sort(key=lambda r: (-r["kills_per_100"], r["minerals"]))
        for i, r in enumerate(block, 1):
            r["rank"] = i
        rows.extend(block)
    return rows


CASES = [
    # attacker, targets, phase, use, ranges
    ("Marine", ["Zergling", "Roach", "Zealot"], "assault", (), (None, 10.0, 20.0)),
    ("Marine", ["Zergling", "Roach", "Zealot"], "combat", (), (None,)),
    ("Marine", ["Zergling:18", "Stalker"], "assault", ("Stimpack",), (None, 3.0)),
    ("Marauder", ["Roach", "Marine"], "assault", (), (None, 4.0, 10.0)),
    ("Hydralisk", ["Marine", "Stalker"], "assault", (), (None, 10.0)),
    ("Hydralisk", ["Marine"], "combat", (), (None,)),
    ("Zealot", ["Marine", "Zergling"], "combat", (), (None,)),
    ("Stalker", ["Marine", "Roach"], "assault", (), (None, 4.0)),
    ("Roach", ["Marine", "Zealot"], "assault", (), (None, 4.0)),
    ("Goliath", ["Hydralisk", "Stalker"], "assault", (), (None, 10.0)),
]


@pytest.mark.parametrize(("unit", "targets", "phase", "use", "ranges"), CASES, ids=lambda v: str(v))
def test_compare_rows_are_the_reference_rows_to_the_byte(
    roster: Roster, unit: str, targets: list[str], phase: str, use: tuple[str, ...], ranges: tuple
) -> None:
    attacker = roster.unit(unit)
    specs = cmp.resolve_targets(roster, targets)
    for distance in ranges:
        got = cmp.compare(attacker, specs, phase=phase, use=use, distance=distance)
        want = _reference(attacker, specs, phase, use, distance)
        assert len(got) == len(want) > 0
        assert json.dumps(got) == json.dumps(want), (unit, targets, phase, use, distance)


def test_loadouts_that_make_the_same_attack_are_many_here(roster: Roster) -> None:
    """The case the sharing is for: 128 Marine loadouts, far fewer attacks (a test that the ids stay shared)."""
    rows = cmp.compare(roster.unit("Marine"), cmp.resolve_targets(roster, ["Zergling"]), distance=10.0)
    assert len(rows) == 128
    assert len({r["attack_id"] for r in rows}) < 20


def test_a_refused_target_is_still_named_before_a_refused_ability(roster: Roster) -> None:
    """The first target is made before the attacker's loadouts, as it always was: its error comes first."""
    specs = [cmp.TargetSpec(roster.unit("Zergling"), 5)]
    with pytest.raises(InputError) as err:
        cmp.compare(roster.unit("Marine"), specs, use=("Nope",))
    assert err.value.field == "vs"
    with pytest.raises(InputError) as err:
        cmp.compare(roster.unit("Marine"), cmp.resolve_targets(roster, ["Zergling"]), use=("Nope",))
    assert err.value.field == "use"


DRIVER = """
import runpy, sys
sys.argv = ["mathhammer", *sys.argv[1:]]
try:
    runpy.run_module("mathhammer", run_name="__main__")
except SystemExit:
    pass
print("mathhammer.outputs" in sys.modules, file=sys.stderr)
"""


def test_compare_without_files_does_not_load_the_file_writer(tmp_path: Path) -> None:
    """``compare --json`` writes no file: ``mathhammer.outputs`` (and its secrets, socket) stays unloaded."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MATHHAMMER_CACHE_DIR=str(tmp_path / "cache"))
    argv = [sys.executable, "-c", DRIVER, "compare", "Marine", "--vs", "Zergling", "--comp", "6", "--upgrades"]
    proc = subprocess.run([*argv, "AGG-12", "--json"], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)[0]["unit"] == "Marine"
    assert proc.stderr.strip().splitlines()[-1] == "False"


def test_an_idle_upgrade_changes_no_batch_of_any_loadout(roster: Roster) -> None:
    """Every unit of the roster, every composition and upgrade combination, both phases, three targets (Light
    and Size 1; Armoured, Mechanical and Size 3; Flying, no Size), ranges on either side of the effects'
    Within distances (3 to 10 inches), with each active ability switched on: the loadout's Batches are those
    of the loadout without its idle upgrades (what compare makes instead)."""
    from mathhammer.starcraft.loadout import PHASES

    names = [n for n in roster.units if roster.units[n].card.compositions]
    targets = [roster.unit(n) for n in ("Zergling", "Stalker", "Point Defense Drone")]
    checked = folded = 0
    for name in names:
        unit = roster.units[name]
        uses = [()] + [(a.name,) for a in unit.card.abilities if a.type != "passive"]
        for use in uses:
            for phase in PHASES:
                for target in targets:
                    for distance in (None, 3.0, 7.0, 30.0):
                        idle = cmp.idle_upgrades(unit, target, phase, distance, use)
                        if not idle:
                            continue
                        for comp in unit.card.compositions:
                            for ups in cmp.upgrade_sets(unit):
                                try:
                                    lo = make_loadout(unit, comp.models, ups, use)
                                except InputError:
                                    continue
                                acting = [u.name for u in lo.upgrades if id(u) not in idle]
                                if len(acting) == len(lo.upgrades):
                                    continue
                                bare = make_loadout(unit, comp.models, acting, use)
                                got = attack_batches(bare, target, phase, distance)
                                assert got == attack_batches(lo, target, phase, distance), (lo, target, phase)
                                folded += 1
                        checked += 1
    assert checked > 100
    assert folded > 1000


def test_an_upgrade_that_acts_here_is_not_idle(roster: Roster) -> None:
    """A test that the fold can fail: the Marine's AGG-12 (a SPECIALIST weapon) and Bayonet in the Combat Phase
    (it replaces the Strike) act; the Combat Shield (not switched on) and, at range, the Bayonet do not."""
    marine = roster.unit("Marine")
    by_name = {u.name: id(u) for u in marine.card.upgrades}
    at_range = cmp.idle_upgrades(marine, roster.unit("Zergling"), "assault", 10.0, ())
    assert {by_name["Combat Shield"], by_name["Bayonet"]} <= at_range
    assert by_name["AGG-12"] not in at_range
    close = cmp.idle_upgrades(marine, roster.unit("Zergling"), "combat", None, ())
    assert by_name["Bayonet"] not in close and by_name["AGG-12"] not in close


def test_an_upgrade_replacing_a_weapon_of_this_phase_is_not_idle(roster: Roster) -> None:
    """No card has one yet: a Marine upgrade that only takes the C-14 Rifle away acts at range (the rows are
    the reference's), and is idle in the Combat Phase, where the rifle is not used."""
    import dataclasses

    marine = roster.unit("Marine")
    base = marine.card.upgrades[0]
    drop = base.model_copy(update={"name": "Drop Rifle", "replaces": "C-14 Rifle", "weapons": [], "abilities": []})
    card = marine.card.model_copy(update={"upgrades": [*marine.card.upgrades[:2], drop]})
    unit = dataclasses.replace(marine, card=card)
    zergling = roster.unit("Zergling")
    assert id(drop) not in cmp.idle_upgrades(unit, zergling, "assault", 10.0, ())
    assert id(drop) in cmp.idle_upgrades(unit, zergling, "combat", None, ())
    specs = cmp.resolve_targets(roster, ["Zergling"])
    for phase in ("assault", "combat"):
        got = cmp.compare(unit, specs, phase=phase, distance=10.0 if phase == "assault" else None)
        want = _reference(unit, specs, phase, (), 10.0 if phase == "assault" else None)
        assert json.dumps(got) == json.dumps(want)
    assert any(r["upgrades"] == "Drop Rifle" for r in got)


def test_the_commands_annotations_are_objects_not_strings() -> None:
    """typer reads compare's and matchup's annotations at every start: as strings (``from __future__ import
    annotations``) it compiles each one, about 15 ms for the two commands' 40 options; as objects, none."""
    import inspect

    from mathhammer.cli import compare as cli

    for command in (cli.compare, cli.matchup):
        for name, p in inspect.signature(command).parameters.items():
            assert not isinstance(p.annotation, str), (command.__name__, name)


def test_the_sweeps_loadouts_are_make_loadouts_own(roster: Roster) -> None:
    """compare makes its loadouts without make_loadout's checks where they cannot fail: the same loadouts, for
    every unit and combination of the roster; with an ability switched on, make_loadout's own."""
    count = 0
    for unit in roster.units.values():
        make = cmp._maker(unit, ())
        for comp in unit.card.compositions:
            for ups in cmp.upgrade_sets(unit):
                try:
                    want = make_loadout(unit, comp.models, ups, (), ("compositions", "upgrades", "use"))
                except InputError as exc:
                    with pytest.raises(InputError) as got:
                        make(comp.models, ups)
                    assert str(got.value) == str(exc)
                    continue
                got = make(comp.models, ups)
                assert (got, got.label, got.minerals, got.upgrades) == (want, want.label, want.minerals, want.upgrades)
                count += 1
    assert count > 300
    marine = roster.unit("Marine")
    assert cmp._maker(marine, ("Stimpack",))(9, ("AGG-12",)) == make_loadout(marine, 9, ["AGG-12"], ["Stimpack"])


def test_a_combination_the_card_refuses_is_refused_as_before(roster: Roster) -> None:
    """One model cannot take two SPECIALIST upgrades (no card has the case yet): make_loadout's error, word
    for word, from compare too."""
    import dataclasses

    marine = roster.unit("Marine")
    one = marine.card.compositions[0].model_copy(update={"models": 1})
    unit = dataclasses.replace(marine, card=marine.card.model_copy(update={"compositions": [one]}))
    with pytest.raises(InputError) as want:
        make_loadout(unit, 1, ["AGG-12", "Rocket Launcher"], (), ("compositions", "upgrades", "use"))
    with pytest.raises(InputError) as got:
        cmp._maker(unit, ())(1, ("AGG-12", "Rocket Launcher"))
    assert str(got.value) == str(want.value) and got.value.field == "upgrades"
    with pytest.raises(InputError) as got:
        cmp.compare(unit, cmp.resolve_targets(roster, ["Zergling"]))
    assert str(got.value) == str(want.value)
