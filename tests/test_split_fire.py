"""A shoot's ``then`` (8.7.3 step 2: "If a Unit has multiple Weapon Profiles, it may fire at different targets";
part 11 SIDEARM: "SIDEARM attacks may target a different Enemy Unit than the Unit's other weapons"): the Batches that
can shoot none of ``targets`` fire at the first of ``then`` they may shoot; the shoot's legality is its
``targets``'; the automatic players' Shoots name their other enemies there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mathhammer.scenario import ScenarioError, simulate
from mathhammer.scenario.players.menu import build_menus

from .scenario_kit import army, assert_same_games, build, errors, skirmish
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6, ["AGG-12"]))  # 5 C-14 Rifles (12"), one AGG-12 (LONG RANGE 18")
PLAIN = army("Terran Armed Forces", ("Marine", 6))  # C-14 Rifles only
BLUE = army("Kerrigan's Swarm", ("Roach", 3), ("Zergling", 12))


def scenario(tmp_path: Path, shoot: dict[str, Any], red: str = RED) -> Any:
    """Round 3: the Marines at (18, 12) shoot; the Roaches stand about 16.7" away (the AGG-12 only reaches them), the
    Zerglings about 9.8" (the C-14 Rifles reach them)."""
    rounds = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]},
                               {"unit": "zergling-1", "action": "deploy", "to": [12, 33]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 30]},
                              {"unit": "zergling-1", "action": "run", "to": [12, 29]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [12, 25]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [12, 21]}]}},
        {"round": 3, "red": {"assault": [{"unit": "marine-1", "action": "shoot", **shoot}]}},
    ]  # fmt: skip
    d = skirmish("then", armies=write_armies(tmp_path, red, BLUE), rounds=rounds)
    d["mission"]["game_length"] = 3
    return build(d, "then.toml")


def zerglings_left(result: Any) -> float:
    return next(u["models_mean"] for u in result.to_dict()["rounds"][-1]["units"] if u["unit"] == "zergling-1")


def test_the_batches_that_cannot_shoot_the_target_fire_at_then(tmp_path: Path) -> None:
    """8.7.3 step 2: the C-14 Rifles, out of range of the Roaches, fire at the Zerglings of ``then``; without it they
    do not fire (the skip report says so in every game). ``then`` fires as later ``targets`` would (the engine reads
    them in order): the same games."""
    split = scenario(tmp_path, {"targets": ["roach-1"], "then": ["zergling-1"]})
    assert errors(split) == []
    got = simulate(split, 300, 3)
    assert zerglings_left(got) < 11.0 and got.to_dict()["skipped"] == {}
    alone = simulate(scenario(tmp_path, {"targets": ["roach-1"]}), 300, 3)
    assert zerglings_left(alone) == 12.0
    assert alone.to_dict()["skipped"] == {"rounds[2].red.assault[0]: C-14 Rifle: no planned target it may shoot": 300}
    assert_same_games(got, simulate(scenario(tmp_path, {"targets": ["roach-1", "zergling-1"]}), 300, 3))


def test_a_shoot_is_legal_by_its_targets_not_by_then(tmp_path: Path) -> None:
    """Marines with C-14 Rifles only cannot shoot the Roaches: refused, though ``then``'s Zerglings are in range (its
    units are not planned targets)."""
    scn = scenario(tmp_path, {"targets": ["roach-1"], "then": ["zergling-1"]}, red=PLAIN)
    problems = errors(scn)
    assert len(problems) == 1 and "no planned target can be shot" in problems[0], problems


@pytest.mark.parametrize(
    ("shoot", "said"),
    [
        ({"targets": ["roach-1"], "then": ["marine-1"]}, "then: got 'marine-1'; allowed: an enemy unit: roach-1, "),
        ({"targets": ["roach-1"], "then": ["nobody"]}, "then: got 'nobody'; allowed: an enemy unit: "),
        ({"targets": ["roach-1"], "then": ["roach-1"]}, "then: got 'roach-1' twice; allowed: an enemy unit not among"),
        ({"targets": ["roach-1"], "then": ["zergling-1", "zergling-1"]}, "then: got 'zergling-1' twice"),
    ],
)
def test_then_names_other_enemy_units_once(tmp_path: Path, shoot: dict[str, Any], said: str) -> None:
    with pytest.raises(ScenarioError) as err:
        scenario(tmp_path, shoot)
    assert len(err.value.problems) == 1 and said in err.value.problems[0], err.value.problems


def test_then_only_on_a_shoot(tmp_path: Path) -> None:
    d = skirmish("then", armies=write_armies(tmp_path, RED, BLUE))
    d["rounds"] = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3], "then": ["roach-1"]}]},
        }
    ]
    with pytest.raises(ScenarioError) as err:
        build(d, "then.toml")
    assert err.value.problems == [
        "then.toml: rounds[0].red.movement[0].then: got ['roach-1']; allowed only on shoot (the targets of the Batches "
        "that can shoot none of targets, 8.7.3 step 2)"
    ]


def test_an_automatic_players_shoot_names_its_other_enemies_in_then(tmp_path: Path) -> None:
    """The menus: each Shoot (and its twins with an ability) at one enemy unit names the others, in army-list order,
    in ``then``; the activation the player plays carries it."""
    d = skirmish("then", armies=write_armies(tmp_path, RED, BLUE))
    d["players"] = {"red": {"army": d["players"]["red"]["army"], "policy": "random"}, "blue": d["players"]["blue"]}
    scn = build(d, "then.toml")
    shots = [e for e in build_menus(scn)["marine-1"]["assault"] if e.action == "shoot"]
    assert {(e.target, e.then) for e in shots} == {("roach-1", ("zergling-1",)), ("zergling-1", ("roach-1",))}
    assert shots[0].activation("marine-1", "red", 2, "assault").then == shots[0].then


def test_a_traced_split_shot_is_drawn_to_each_unit_it_struck(tmp_path: Path) -> None:
    """The Round's picture draws the Shoot to the Roaches (the AGG-12) and to the Zerglings (the C-14 Rifles)."""
    from mathhammer.scenario.players.trace import record, round_figure
    from mathhammer.scenario.sim import Simulation

    scn = scenario(tmp_path, {"targets": ["roach-1"], "then": ["zergling-1"]})
    sim = Simulation(scn, 1, 3)
    game = record(sim)
    (shot,) = [s for s in game.steps if s.act.action == "shoot"]
    assert [sim.uids[t] for t in shot.struck] == ["zergling-1", "roach-1"]  # Batch order: the C-14 Rifles first
    fig = round_figure(scn, game, sim.world, 3)
    assert [t.get_gid() for t in fig.axes[0].texts].count("shoot") == 2


def test_a_weapons_reach_is_its_range_or_long_range() -> None:
    """8.7.3 step 1 (Within the weapon's Range) and part 11 LONG RANGE (X): how far a weapon may shoot, bases edge to
    edge; a Close Combat weapon's Range E has none."""
    from mathhammer.board.facts import weapon_reach
    from mathhammer.starcraft.loadout import attack_batches, make_loadout
    from mathhammer.starcraft.roster import load_roster

    roster = load_roster()
    lo = make_loadout(roster.unit("Marine"), 6, ["AGG-12"])
    ranged = {b.name: b.weapon for b in attack_batches(lo, roster.unit("Roach"), "assault")}
    assert weapon_reach(ranged["C-14 Rifle"]) == pytest.approx(12.0)
    assert weapon_reach(ranged["AGG-12"]) == pytest.approx(18.0)
    (strike,) = [b.weapon for b in attack_batches(lo, roster.unit("Roach"), "combat")]
    assert weapon_reach(strike) is None
    profile = next(w for w in roster.unit("Marine").card.weapons if w.name == "C-14 Rifle")  # a file's: unhashable
    assert weapon_reach(profile) == pytest.approx(12.0)


def test_a_weapon_skipped_for_a_unit_out_of_reach_was_never_eligible(tmp_path: Path) -> None:
    """The engine does not ask the facts of a weapon at a unit with no base within its reach (``World.near``, a
    superset test): in the end states of random games, every pair and weapon the facts find eligible is near."""
    from mathhammer.board.facts import weapon_reach
    from mathhammer.scenario.sim import Simulation
    from mathhammer.starcraft.loadout import attack_batches

    d = skirmish("then", armies=write_armies(tmp_path, RED, BLUE))
    d["players"] = {p: {"army": d["players"][p]["army"], "policy": "random"} for p in ("red", "blue")}
    d["mission"]["game_length"] = 3
    scn = build(d, "then.toml")
    sim = Simulation(scn, 30, 5)
    sim.run()
    world, eligible = sim.world, 0
    for g in range(30):
        pos, alive = tuple(sim.pos[:, g].tolist()), tuple(sim.alive[:, g].tolist())
        for u, su in enumerate(sim.units):
            for t, tu in enumerate(sim.units):
                if su.player == tu.player or min(pos[u], pos[t]) < 0 or min(alive[u], alive[t]) <= 0:
                    continue
                for b in attack_batches(sim.loadout(u, 0), tu.unit, "assault"):
                    tags = tuple(tu.unit.card.combat_tags)
                    if world.facts(pos, alive, sim.uids[u], sim.uids[t], b.weapon, tags).eligible:
                        eligible += 1
                        assert world.near(pos[u], pos[t], weapon_reach(b.weapon))
    assert eligible > 0
