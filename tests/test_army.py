"""Army lists and army building (rulebook part 9.1): mathhammer.starcraft.army and ``mathhammer army``.

Most tests run against the small card set ``tests/fixtures/army_profiles``
(values from the reference catalog), loaded without the built-ins, so they do
not depend on the built-in card data; ``TestBuiltin`` checks the example lists
in ``profiles/armies/`` against the built-in cards once those exist.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.starcraft.army import Army, ArmyError, UnitEntry, check_army, load_army, validate_army
from mathhammer.starcraft.loadout import attack_batches, make_loadout
from mathhammer.starcraft.roster import Roster, load_roster

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
CARDS = FIXTURES / "army_profiles"
ARMIES = FIXTURES / "armies"
EXAMPLES = ROOT / "profiles" / "armies"


@pytest.fixture(scope="module")
def roster() -> Roster:
    return load_roster([CARDS], builtin=False)


def army(faction: str, *units: UnitEntry, scale: str | None = "Standard", **kw: object) -> Army:
    return Army("army.toml", faction, scale=scale, units=units, **kw)  # type: ignore[arg-type]


def write(tmp_path: Path, text: str, name: str = "army.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- 9.1.7 Purchasing Upgrades


def test_rulebook_917_six_marines_rocket_launcher_and_agg12(roster: Roster) -> None:
    """9.1.7 EXAMPLE: 6 Marines with Rocket Launcher (SPECIALIST) and AGG-12 (SPECIALIST, FOR C-14 Rifle):
    4 Marines keep C-14 Rifles, one carries the Rocket Launcher alongside the C-14 Rifle, one the AGG-12."""
    lo = make_loadout(roster.unit("Marine"), 6, ["Rocket Launcher", "AGG-12"])
    batches = attack_batches(lo, roster.unit("Roach"), "assault")
    assert [(b.name, b.models) for b in batches] == [("C-14 Rifle", 5), ("AGG-12", 1), ("Rocket Launcher", 1)]
    assert lo.minerals == 160 + 40 + 10
    entry = UnitEntry("Marine", 6, ("Rocket Launcher", "AGG-12"))
    report = check_army(army("Terran Armed Forces", entry), roster)
    assert report.problems == []
    assert report.totals.minerals == 210


def test_917_same_specialist_twice_refused(roster: Roster) -> None:
    """9.1.7: "A Unit may not purchase the same SPECIALIST upgrade more than once"."""
    entry = UnitEntry("Marine", 6, ("AGG-12", "AGG-12"))
    problems = validate_army(army("Terran Armed Forces", entry), roster)
    assert problems == [
        "army.toml: units[0] (Marine): upgrades[1] (AGG-12): bought twice; "
        "allowed: a SPECIALIST upgrade once per Unit (9.1.7: one nominated model each)"
    ]


def test_917_different_specialists_allowed_and_same_upgrade_twice_refused(roster: Roster) -> None:
    """9.1.7: "it can buy two or more different SPECIALIST upgrades"; "provided each is a different entry"."""
    ok = UnitEntry("Marine", 9, ("AGG-12", "Rocket Launcher", "Bayonet"))
    assert validate_army(army("Terran Armed Forces", ok), roster) == []
    twice = UnitEntry("Marine", 9, ("Bayonet", "bayonet"))
    (line,) = validate_army(army("Terran Armed Forces", twice), roster)
    assert "upgrades[1] (bayonet): bought twice; allowed: each upgrade once" in line


def test_917_unknown_upgrade_did_you_mean(roster: Roster) -> None:
    """9.1.7: only "upgrades listed for that Unit"."""
    (line,) = validate_army(army("Terran Armed Forces", UnitEntry("Marine", 6, ("AGG12",))), roster)
    assert line.startswith("army.toml: units[0] (Marine): upgrades[0] (AGG12): unknown; allowed: an upgrade of Marine")
    assert "did you mean 'AGG-12'?" in line


# ---------------------------------------------------------------- 9.1.6 Mustering Units


def test_rulebook_916_kerrigans_swarm_small_hydralisk_fits_two_elite_slots(roster: Roster) -> None:
    """9.1.6 EXAMPLE: Kerrigan's Swarm provides 2 Elite Army Slots; a small Hydralisk Unit occupies exactly 2."""
    report = check_army(load_army(ARMIES / "kerrigan_hydralisk.toml"), roster)
    assert report.problems == []
    assert report.totals.slots_used["Elite"] == 2
    assert report.totals.slots_available["Elite"] == 2


def test_rulebook_916_full_hydralisk_needs_an_elite_tactical_card(roster: Roster) -> None:
    """9.1.6 EXAMPLE: a full-strength Hydralisk Unit occupies 3 Elite slots, so the player must add a Tactical
    Card that provides an additional Elite Army Slot."""
    full = UnitEntry("Hydralisk", 4)
    problems = validate_army(army("Kerrigan's Swarm", full), roster)
    assert problems == [
        "army.toml: Elite slots: 3 used (units[0] Hydralisk 3); allowed: 2 from the Faction Card and Tactical "
        "Cards (9.1.6: a Unit occupies slots equal to its starting Supply)"
    ]
    report = check_army(army("Kerrigan's Swarm", full, tactical=("Hydralisk Den",)), roster)
    assert report.problems == []
    assert (report.totals.slots_used["Elite"], report.totals.slots_available["Elite"]) == (3, 4)
    assert report.totals.gas == 35


def test_916_too_many_core_slots(roster: Roster) -> None:
    """9.1.6 / ARMY SLOT: "Every Unit occupies a number of Army Slots of its designated type equal to its
    starting Supply Value"; 2 x 9 Marines (Supply 2 each) = 4 Core > 3 from Terran Armed Forces."""
    units = (UnitEntry("Marine", 9), UnitEntry("Marine", 9))
    (line,) = validate_army(army("Terran Armed Forces", *units), roster)
    assert line.startswith("army.toml: Core slots: 4 used (units[0] Marine 2; units[1] Marine 2); allowed: 3")
    assert validate_army(army("Terran Armed Forces", *units, tactical=("Barracks",)), roster) == []


def test_916_composition_not_an_option(roster: Roster) -> None:
    """9.1.6: "A player cannot field a Unit at a model count that does not appear as a Composition Option"."""
    problems = validate_army(army("Terran Armed Forces", UnitEntry("Marine", 7)), roster)
    assert problems == ["army.toml: units[0] (Marine): composition of 7 models; allowed: 6 or 9 (9.1.6)"]
    missing = validate_army(army("Terran Armed Forces", UnitEntry("Marine")), roster)
    assert missing == ["army.toml: units[0] (Marine): models: missing; allowed: 6 or 9 (a Composition Option, 9.1.6)"]
    # a card with one Composition Option needs no models
    assert validate_army(army("Raynor's Raiders", UnitEntry("Jim Raynor")), roster) == []


def test_916_unknown_unit_did_you_mean(roster: Roster) -> None:
    """9.1.6: units from the Army Reference only."""
    (line,) = validate_army(army("Terran Armed Forces", UnitEntry("Marien", 6)), roster)
    assert line.startswith("army.toml: units[0] (Marien): unknown; allowed: a unit of the roster")
    assert "did you mean 'Marine'?" in line


# ---------------------------------------------------------------- 9.1.2 Faction Tags


def test_rulebook_912_zerg_swarm_refuses_kerrigan_swarm_raptor(roster: Roster) -> None:
    """9.1.2 EXAMPLE: Zerg Swarm (tag Zerg): Zerglings eligible; Kerrigan Swarm Raptor (Zerg, Kerrigan's Swarm)
    not eligible."""
    assert validate_army(army("Zerg Swarm", UnitEntry("Zergling", 12)), roster) == []
    problems = validate_army(army("Zerg Swarm", UnitEntry("Kerrigan Swarm Raptor")), roster)
    assert problems == [
        "army.toml: units[0] (Kerrigan Swarm Raptor): Faction Tag Kerrigan's Swarm not on the Faction Card "
        "Zerg Swarm (Zerg); allowed: Units whose tags all appear on it (9.1.2)"
    ]
    # "Cards with fewer tags than the Faction Card are perfectly fine."
    both = army("Kerrigan's Swarm", UnitEntry("Kerrigan Swarm Raptor"), UnitEntry("Zergling", 12))
    assert validate_army(both, roster) == []


def test_912_tactical_card_tags_and_faction_card(roster: Roster) -> None:
    """9.1.2: the Faction Tag rule applies to Tactical Cards as well; the faction must be a Faction Card."""
    (line,) = validate_army(army("Zerg Swarm", tactical=("Barracks",)), roster)
    assert "tactical[0] (Barracks): Faction Tag Terran not on the Faction Card Zerg Swarm" in line
    (line,) = validate_army(army("Barracks"), roster)
    assert line == "army.toml: faction (Barracks): not a Faction Card; allowed: a Faction Card (9.1.2)"
    (line,) = validate_army(army("Raynors Raiders"), roster)
    assert line.startswith("army.toml: faction (Raynors Raiders): unknown; allowed: a Faction Card")
    assert 'did you mean "Raynor\'s Raiders"?' in line


def test_912_tags_compare_without_case_or_curly_apostrophe(roster: Roster) -> None:
    """9.1.2: tags are printed in capitals (KERRIGAN'S SWARM) and with typographic apostrophes."""
    assert validate_army(army("kerrigan\u2019s swarm", UnitEntry("Kerrigan Swarm Raptor")), roster) == []


# ---------------------------------------------------------------- 9.1.1 / 9.1.3 / 9.1.4


def test_913_over_the_mineral_limit(roster: Roster) -> None:
    """9.1.3: "The total Mineral cost must not exceed the Engagement Scale limit" (Skirmish: 1,000, 9.1.1);
    upgrades count."""
    units = (
        UnitEntry("Marine", 9, ("AGG-12", "Rocket Launcher", "Bayonet")),  # 210 + 10 + 40 + 30 = 290
        UnitEntry("Jim Raynor"),  # 250
        UnitEntry("Goliath"),  # 190
        UnitEntry("Marine", 6, ("Bayonet",)),  # 180
        UnitEntry("Marine", 6),  # 160
    )
    report = check_army(army("Raynor's Raiders", *units, scale="Skirmish", tactical=("Factory", "Barracks")), roster)
    assert report.totals.minerals == 1070
    assert report.problems == [
        "army.toml: minerals: 1070 spent on Units and upgrades; allowed: up to 1000 at Skirmish (9.1.3, by 70)"
    ]
    # the same list at Standard, and at an agreed limit of exactly 1070
    assert validate_army(army("Raynor's Raiders", *units, tactical=("Factory", "Barracks")), roster) == []
    exact = army("Raynor's Raiders", *units, scale=None, minerals=1070, tactical=("Factory", "Barracks"))
    assert validate_army(exact, roster) == []


def test_914_over_the_gas(roster: Roster) -> None:
    """9.1.4: Vespene Gas buys Tactical Cards only; 10% of the Minerals (Skirmish: 100)."""
    report = check_army(
        army("Terran Armed Forces", scale="Skirmish", tactical=("Factory", "Factory", "Barracks")), roster
    )
    assert report.totals.gas == 95
    assert report.problems == []
    over = army("Terran Armed Forces", scale="Skirmish", tactical=("Factory", "Factory", "Factory"))
    assert validate_army(over, roster) == [
        "army.toml: vespene gas: 105 spent on Tactical Cards; allowed: up to 100 (9.1.4: 10% of 1000 Minerals, by 5)"
    ]


def test_914_rulebook_standard_has_200_gas(roster: Roster) -> None:
    """9.1.4 EXAMPLE: "At Standard scale (2,000 Minerals), players have 200 Vespene Gas (10%)"."""
    totals = check_army(army("Terran Armed Forces"), roster).totals
    assert (totals.mineral_limit, totals.gas_limit) == (2000, 200)


def test_911_scales(roster: Roster) -> None:
    """9.1.1: Skirmish up to 1,000, Standard up to 2,000, Grand Offensive 2,001+ (needs the agreed limit)."""
    go = check_army(army("Terran Armed Forces", scale="Grand Offensive", minerals=3000), roster)
    assert (go.problems, go.totals.mineral_limit, go.totals.gas_limit) == ([], 3000, 300)
    (line,) = validate_army(army("Terran Armed Forces", scale="Grand Offensive"), roster)
    assert line.startswith("army.toml: minerals: missing; allowed: the agreed Mineral limit, 2001 or more")
    (line,) = validate_army(army("Terran Armed Forces", scale="Grand Offensive", minerals=1500), roster)
    assert line == "army.toml: minerals: got 1500; allowed: 2001 or more at Grand Offensive (9.1.1)"
    (line,) = validate_army(army("Terran Armed Forces", scale="Skirmish", minerals=1500), roster)
    assert line == "army.toml: minerals: got 1500; allowed: up to 1000 at Skirmish (9.1.1)"
    (line,) = validate_army(army("Terran Armed Forces", scale=None), roster)
    assert line.startswith("army.toml: scale: missing; allowed: Skirmish, Standard, Grand Offensive, or minerals")
    inferred = check_army(army("Terran Armed Forces", scale=None, minerals=1500), roster).totals
    assert (inferred.scale, inferred.mineral_limit, inferred.gas_limit) == ("Standard", 1500, 150)


# ---------------------------------------------------------------- 9.1.5 Unique, 9.1.9 Summoned


def test_915_unique_tactical_card_twice(roster: Roster) -> None:
    """9.1.5: "If a Tactical Card is marked as Unique, only one copy may be included"; others may repeat."""
    problems = validate_army(
        army("Terran Armed Forces", tactical=("Academy", "Academy", "Barracks", "Barracks")), roster
    )
    assert problems == [
        "army.toml: tactical[1] (Academy): Unique card already in the list (tactical[0]); allowed: one copy (9.1.5)"
    ]


def test_915_unique_unit_twice(roster: Roster) -> None:
    """9.1.5 Unique, applied to Unique Unit cards (heroes): one copy."""
    units = (UnitEntry("Jim Raynor"), UnitEntry("jim raynor"))
    problems = validate_army(army("Raynor's Raiders", *units, tactical=("Supply Depot",)), roster)
    assert problems == [
        "army.toml: units[1] (jim raynor): Unique card already in the list (units[0]); allowed: one copy"
    ]


def test_919_summoned_unit_not_in_the_list(roster: Roster) -> None:
    """9.1.9: Summoned Units "are not included in the Army List during army building"."""
    problems = validate_army(army("Terran Armed Forces", UnitEntry("Point Defense Drone")), roster)
    assert problems == [
        "army.toml: units[0] (Point Defense Drone): a Summoned Unit; allowed: Units with a Mineral Cost "
        "(9.1.9: Summoned Units are not included in the Army List)"
    ]


def test_915_creep_cards_bought_with_gas(roster: Roster) -> None:
    """9.1.4/9.1.5: Zerg creep cards cost Vespene Gas and are Unique like Tactical Cards."""
    report = check_army(army("Zerg Swarm", tactical=("Malignant Creep", "Malignant Creep")), roster)
    assert report.totals.gas == 20
    assert len(report.problems) == 1 and "Unique card already in the list" in report.problems[0]


# ---------------------------------------------------------------- every violation at once


def test_every_violation_reported(roster: Roster) -> None:
    """9.1: validate_army reports every violation, one line each, naming the file and the entry."""
    problems = validate_army(load_army(ARMIES / "everything_wrong.toml"), roster)
    expected_parts = [
        "tactical[1] (Lair): Unique card",
        "tactical[4] (Spawnin Pool): unknown",
        "tactical[5] (Barracks): Faction Tag Terran",
        "units[0] (Kerrigan Swarm Raptor): Faction Tag Kerrigan's Swarm",
        "units[1] (Kerrigan Swarm Raptor): Faction Tag Kerrigan's Swarm",
        "units[1] (Kerrigan Swarm Raptor): Unique card",
        "units[2] (Zergling): composition of 7 models; allowed: 12 or 18",
        "units[3] (Hydralisk): upgrades[1] (Grooved Spines): bought twice",
        "units[3] (Hydralisk): upgrades[2] (Groovy Spines): unknown",
        "units[5] (Zerglin): unknown",
        "units[6] (Point Defense Drone): a Summoned Unit",
        "minerals: 1060 spent",
        "vespene gas: 155 spent",
        "Elite slots: 8 used",
    ]
    assert len(problems) == len(expected_parts)
    for line, part in zip(problems, expected_parts, strict=True):
        assert line.startswith("everything_wrong.toml: ")
        assert part in line


def test_valid_fixture_totals(roster: Roster) -> None:
    """9.1.3-9.1.6: the totals shown for a legal list."""
    report = check_army(load_army(ARMIES / "raiders_valid.toml"), roster)
    assert report.valid
    t = report.totals
    assert (t.scale, t.minerals, t.mineral_limit, t.gas, t.gas_limit) == ("Standard", 1040, 2000, 60, 200)
    assert t.slots_used == {"Core": 4, "Elite": 2, "Support": 0, "Air": 0, "Hero": 1}
    assert t.slots_available == {"Core": 4, "Elite": 2, "Support": 1, "Air": 1, "Hero": 1}
    assert [lo.minerals for lo in report.loadouts] == [260, 180, 160, 250, 190]


# ---------------------------------------------------------------- reading the file


def test_load_bad_toml() -> None:
    with pytest.raises(ArmyError) as info:
        load_army(ARMIES / "bad_toml.toml")
    (line,) = info.value.problems
    assert line.startswith("bad_toml.toml: not valid TOML:")


def test_load_unknown_keys_and_types() -> None:
    with pytest.raises(ArmyError) as info:
        load_army(ARMIES / "unknown_keys.toml")
    assert sorted(info.value.problems) == sorted(
        [
            "unknown_keys.toml: scale: got 'Huge'; allowed: 'Skirmish', 'Standard' or 'Grand Offensive'",
            "unknown_keys.toml: faction: missing; required",
            "unknown_keys.toml: units[0].upgrades: got 'AGG-12'; allowed: a valid list",
            "unknown_keys.toml: units[0].model: unknown key (did you mean 'models'?); allowed: unit, models, upgrades",
            "unknown_keys.toml: fraction: unknown key (did you mean 'faction'?); "
            "allowed: name, scale, minerals, faction, tactical, units",
        ]
    )


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ArmyError, match="no such file"):
        load_army(tmp_path / "nope.toml")


# ---------------------------------------------------------------- CLI: mathhammer army validate


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    """The CLI with no built-in cards (only --profiles), so the fixture cards are the whole roster."""
    import mathhammer.starcraft.roster as loader

    empty = tmp_path / "builtin"
    (empty / "starcraft").mkdir(parents=True)
    monkeypatch.setattr(loader, "builtin_dir", lambda: empty)
    monkeypatch.delenv("MATHHAMMER_PROFILES", raising=False)
    return CliRunner()


def run(runner: CliRunner, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["army", "validate", *args])


def test_cli_valid(cli: CliRunner) -> None:
    """9.1: a legal list prints its totals and "valid", exit 0."""
    res = run(cli, str(ARMIES / "raiders_valid.toml"), "--profiles", str(CARDS))
    assert res.exit_code == 0, res.output
    assert "minerals: 1040 / 2000" in res.stdout
    assert "vespene gas: 60 / 200" in res.stdout
    assert "Core 4/4" in res.stdout and "Hero 1/1" in res.stdout
    assert res.stdout.rstrip().endswith("valid")


def test_cli_json(cli: CliRunner) -> None:
    res = run(cli, str(ARMIES / "raiders_valid.toml"), "--profiles", str(CARDS), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["valid"] is True and data["problems"] == []
    assert data["totals"]["minerals"] == 1040
    assert data["totals"]["slots"]["Elite"] == {"used": 2, "available": 2}
    assert [u["unit"] for u in data["units"]] == ["Marine", "Marine", "Marine", "Jim Raynor", "Goliath"]


def test_cli_violations_exit_2(cli: CliRunner) -> None:
    """9.1: every violation as an ``error:`` line on stderr, exit status 2, no traceback."""
    res = run(cli, str(ARMIES / "everything_wrong.toml"), "--profiles", str(CARDS))
    assert res.exit_code == 2
    errors = res.stderr.splitlines()
    assert len(errors) == 14
    assert all(line.startswith("error: everything_wrong.toml: ") for line in errors)
    assert "minerals: 1060 / 1000" in res.stdout
    assert "valid" not in res.stdout.split()
    assert "Traceback" not in res.output


def test_cli_violations_json_exit_2(cli: CliRunner) -> None:
    res = run(cli, str(ARMIES / "everything_wrong.toml"), "--profiles", str(CARDS), "--json")
    assert res.exit_code == 2
    data = json.loads(res.stdout)
    assert data["valid"] is False and len(data["problems"]) == 14


@pytest.mark.parametrize(
    ("name", "first"),
    [
        ("bad_toml.toml", "error: bad_toml.toml: not valid TOML:"),
        ("unknown_keys.toml", "error: unknown_keys.toml: "),
        ("missing.toml", "error: "),
    ],
)
def test_cli_unreadable_file_exit_2(cli: CliRunner, name: str, first: str) -> None:
    """Bad TOML, unknown keys, a missing file: ``error:`` lines, exit status 2, no traceback."""
    res = run(cli, str(ARMIES / name), "--profiles", str(CARDS))
    assert res.exit_code == 2
    assert res.stderr.startswith(first)
    assert res.stdout == ""
    assert "Traceback" not in res.output


def test_cli_unknown_key_lists_every_problem(cli: CliRunner) -> None:
    res = run(cli, str(ARMIES / "unknown_keys.toml"), "--profiles", str(CARDS))
    assert res.exit_code == 2
    assert len(res.stderr.splitlines()) == 5
    assert "fraction: unknown key (did you mean 'faction'?)" in res.stderr


def test_cli_bad_profiles_folder_exit_2(cli: CliRunner, tmp_path: Path) -> None:
    res = run(cli, str(ARMIES / "raiders_valid.toml"), "--profiles", str(tmp_path / "nope"))
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ")
    assert "no such folder" in res.stderr


def test_cli_written_list(cli: CliRunner, tmp_path: Path) -> None:
    """9.1.6 EXAMPLE through the CLI: the full-strength Hydralisk needs another Elite slot."""
    path = write(
        tmp_path, 'scale = "Skirmish"\nfaction = "Kerrigan\'s Swarm"\n[[units]]\nunit = "Hydralisk"\nmodels = 4\n'
    )
    res = run(cli, str(path), "--profiles", str(CARDS))
    assert res.exit_code == 2
    assert res.stderr.startswith("error: army.toml: Elite slots: 3 used (units[0] Hydralisk 3); allowed: 2")
    fixed = write(tmp_path, 'tactical = ["Hydralisk Den"]\n' + path.read_text(), "fixed.toml")
    res = run(cli, str(fixed), "--profiles", str(CARDS))
    assert res.exit_code == 0, res.output
    assert "Elite 3/4" in res.stdout


# ---------------------------------------------------------------- the built-in cards and example lists


@functools.cache
def _builtin_roster() -> Roster | None:
    from mathhammer.profiles import ProfileError, builtin_dir

    folder = builtin_dir() / "starcraft"
    if not folder.is_dir() or not any(folder.glob("*.toml")):
        return None
    try:
        return load_roster([], builtin=True)
    except ProfileError:
        return None


def _need(roster: Roster | None, *names: str) -> Roster:
    """The built-in roster, or skip while its cards are still being transcribed."""
    if roster is None:
        pytest.skip("built-in card data not (yet) present")
    pools = {**roster.units, **roster.factions, **roster.tactical, **roster.creep}
    missing = [n for n in names if n not in pools]
    if missing:
        pytest.skip(f"built-in cards not (yet) present: {', '.join(missing)}")
    return roster


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_builtin_example_lists_are_valid(path: Path) -> None:
    """profiles/armies/*.toml: the example lists are legal with the built-in cards (9.1)."""
    example = load_army(path)
    roster = _need(_builtin_roster(), example.faction)
    report = check_army(example, roster)
    assert report.problems == []
    assert report.totals.minerals > 0


def test_builtin_917_six_marines_rocket_launcher_and_agg12() -> None:
    """9.1.7 EXAMPLE with the built-in Marine card: 4 C-14 Rifles, 1 C-14 Rifle + Rocket Launcher, 1 AGG-12."""
    roster = _need(_builtin_roster(), "Marine", "Marauder")
    lo = make_loadout(roster.unit("Marine"), 6, ["Rocket Launcher", "AGG-12"])
    batches = attack_batches(lo, roster.unit("Marauder"), "assault")
    assert [(b.name, b.models) for b in batches] == [("C-14 Rifle", 5), ("AGG-12", 1), ("Rocket Launcher", 1)]
    twice = UnitEntry("Marine", 6, ("Rocket Launcher", "Rocket Launcher"))
    (line,) = validate_army(army("Terran Armed Forces", twice), roster)
    assert "upgrades[1] (Rocket Launcher): bought twice; allowed: a SPECIALIST upgrade once per Unit" in line


def test_builtin_916_kerrigans_swarm_hydralisk() -> None:
    """9.1.6 EXAMPLE with the built-in cards: small Hydralisk fits Kerrigan's Swarm's 2 Elite slots; full does not."""
    roster = _need(_builtin_roster(), "Kerrigan's Swarm", "Hydralisk", CREEP)
    assert validate_army(army("Kerrigan's Swarm", UnitEntry("Hydralisk", 2), tactical=(CREEP,)), roster) == []
    (line,) = validate_army(army("Kerrigan's Swarm", UnitEntry("Hydralisk", 4), tactical=(CREEP,)), roster)
    assert line.startswith("army.toml: Elite slots: 3 used (units[0] Hydralisk 3); allowed: 2")


def test_builtin_912_zerg_swarm_refuses_kerrigan_swarm_raptor() -> None:
    """9.1.2 EXAMPLE with the built-in cards."""
    roster = _need(_builtin_roster(), "Zerg Swarm", "Zergling", CREEP)
    raptor = [n for n in roster.units if n.lower().startswith("kerrigan swarm raptor")]
    if not raptor:
        pytest.skip("built-in Kerrigan Swarm Raptor not (yet) present")
    assert validate_army(army("Zerg Swarm", UnitEntry("Zergling", 12), tactical=(CREEP,)), roster) == []
    (line,) = validate_army(army("Zerg Swarm", UnitEntry(raptor[0]), tactical=(CREEP,)), roster)
    assert "Faction Tag Kerrigan's Swarm not on the Faction Card Zerg Swarm" in line


#: the Creep Card of 0 Vespene Gas (card sheet p. 15; gas from catalog/zerg.json), Faction Tag Zerg: both Zerg factions
CREEP = "Accelerating Creep"
ZERG_CREEP = '"During Army Building, you must select exactly one Creep Card and add it to your Army List'


def test_builtin_91_zerg_creep_exactly_one_creep_card() -> None:
    """9.1 and the Zerg Faction Cards' ZERG CREEP ("During Army Building, you must select exactly one Creep Card and
    add it to your Army List, paying its listed cost (if any)"): a Zerg list with no Creep Card, or with two, is
    refused in one line naming the file, the field, what the list has and what is allowed; one is legal."""
    roster = _need(_builtin_roster(), "Kerrigan's Swarm", "Zerg Swarm", "Zergling", CREEP, "Malignant Creep")
    zerglings = UnitEntry("Zergling", 12)
    assert validate_army(army("Kerrigan's Swarm", zerglings, tactical=("Malignant Creep",)), roster) == []
    (none,) = validate_army(army("Kerrigan's Swarm", zerglings, tactical=("Spawning Pool",)), roster)
    assert none.startswith(
        "army.toml: tactical: no Creep Card; allowed: exactly one Creep Card, one of Malignant Creep (10 gas), "
        "Accelerating Creep (0 gas) (9.1; Kerrigan's Swarm, ZERG CREEP: " + ZERG_CREEP
    ), none
    (two,) = validate_army(army("Kerrigan's Swarm", zerglings, tactical=("Malignant Creep", CREEP)), roster)
    assert two.startswith(
        "army.toml: tactical: 2 Creep Cards (tactical[0] Malignant Creep, tactical[1] Accelerating Creep); allowed: "
        "exactly one Creep Card"
    ), two
    # Zerg Swarm (tag Zerg only): Malignant Creep (Zerg, Kerrigan's Swarm) is not among the allowed
    (swarm,) = validate_army(army("Zerg Swarm", zerglings), roster)
    assert "allowed: exactly one Creep Card, one of Accelerating Creep (0 gas) (9.1; Zerg Swarm, ZERG CREEP" in swarm
    # a non-Zerg Faction Card asks for none
    assert not any("Creep Card" in p for p in validate_army(army("Terran Armed Forces"), roster))


def test_builtin_91_cli_refuses_a_zerg_list_without_a_creep_card(tmp_path: Path) -> None:
    """9.1 / ZERG CREEP with ``mathhammer army validate``: exit 2, one ``error:`` line naming the file and the
    field."""
    _need(_builtin_roster(), "Kerrigan's Swarm", "Zergling", CREEP)
    text = (EXAMPLES / "zerg_skirmish.toml").read_text(encoding="utf-8").replace(f'  "{CREEP}",', "")
    assert CREEP not in text.split("[[units]]")[0]
    path = write(tmp_path, text, "zerg_no_creep.toml")
    res = CliRunner().invoke(app, ["army", "validate", str(path)])
    assert res.exit_code == 2, res.output
    (line,) = [x for x in res.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith("error: zerg_no_creep.toml: tactical: no Creep Card; allowed: exactly one Creep Card")


def test_builtin_919_summoned_units_refused() -> None:
    """9.1.9 with the built-in cards: every summoned unit is refused."""
    roster = _need(_builtin_roster())
    summoned = [n for n, u in roster.units.items() if u.card.summoned]
    if not summoned:
        pytest.skip("no built-in summoned unit yet")
    for name in summoned:
        report = check_army(army("Terran Armed Forces", UnitEntry(name)), roster)
        assert any("a Summoned Unit" in line for line in report.problems)


GF_LIST = 'name = "Robot vanguard"\npoints = 1000\n\n[[units]]\nunit = "Robot Warriors"\ncount = 2\n'


def test_a_grimdark_future_list_read_as_starcraft_is_one_line_naming_it(tmp_path: Path) -> None:
    """docs/army.md: a Grimdark Future list (``points``, ``count``) given where a StarCraft TMG list is read is one
    line saying so, not a refusal of each of its fields (faction missing, points and count unknown); ``army
    validate`` names the flag that reads it, and ``game`` (StarCraft TMG only) names it once for two such lists."""
    path = write(tmp_path, GF_LIST, "gf.toml")
    line = (
        "gf.toml: points: got 1000; allowed: a StarCraft TMG army list (faction, scale or minerals, units: "
        "docs/army.md); it is a Grimdark Future army list (points)"
    )
    with pytest.raises(ArmyError) as err:
        load_army(path)
    assert err.value.problems == [line]
    result = CliRunner().invoke(app, ["army", "validate", str(path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"error: {line} (--system gf)\n"
    assert CliRunner().invoke(app, ["army", "validate", str(path), "--system", "gf"]).exit_code == 0
    game = ["game", str(path), str(path), "--mission", "Hold Position", "--deployment", "Gauntlet", "--trials", "1"]
    result = CliRunner().invoke(app, game)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"error: {line}\n"
