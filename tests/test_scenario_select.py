"""Active abilities that select a unit (10.1 "Select one Enemy Unit Within 12\""; issue 6, point 3): the plan's
``select``, checked by ``scenario check`` and applied per game (Crushing Grip: ``counts_activated``; Domineering
Presence: ``contest_supply`` for the selected unit).
"""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario import ScenarioError
from mathhammer.scenario import mission as missions
from mathhammer.scenario.cards import supply as supply_cards
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import RED, write_armies

ZERG = army(
    "Kerrigan's Swarm",  # 1 BM; Spawning Pool 1 BM; Overseer: Support +1 (the Queen)
    ("Zergling", 12),
    ("Kerrigan", 1),
    ("Queen", 1, ["Domineering Presence"]),
    tactical=("Spawning Pool", "Overseer"),
)
GRIP = "Crushing Grip"
PRESENCE = "Domineering Presence"
#: a Size 3 wall across the middle of the table, from x = 0 to 24 (Line of Sight over it is blocked)
WALL = [{"id": "wall", "footprint": [[0, 17.5], [24, 17.5], [24, 18.5], [0, 18.5]], "size": 3}]


@pytest.fixture(scope="module")
def armies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return write_armies(tmp_path_factory.mktemp("select"), RED, ZERG)


def grip_plan(kerrigan: tuple[float, float], select: dict | None = None) -> list[dict]:
    """marine-1 walks to (18, 15.3) by Round 2 (its Deploy 3.3" from the Entry Edge, the base within Speed: 8.5.5),
    Kerrigan comes on at (x, 30) and runs to ``kerrigan`` (x, y). In Round 3, blue first, Kerrigan uses Crushing
    Grip on marine-1 (``select``), then marine-1's planned Move back to (18, 11.3)."""
    grip = {"unit": "kerrigan-1", "action": "hold", "use": [GRIP], "select": select or {GRIP: "marine-1"}}
    rounds: list[dict] = [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "kerrigan-1", "action": "deploy", "to": [kerrigan[0], 30]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 15.3]}]},
         "blue": {}},
        {"round": 3,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}]},
         "blue": {"movement": [grip]}},
    ]  # fmt: skip
    if kerrigan[1] < 30:
        rounds[1]["blue"]["assault"] = [{"unit": "kerrigan-1", "action": "run", "to": list(kerrigan)}]
    return rounds


def scenario(armies: dict[str, str], rounds: list[dict], **over: object) -> Scenario:
    data = skirmish("select", armies=armies, rounds=rounds, first_player="blue", **over)
    return build(data, "select.toml")


def test_select_effects_are_in_the_profiles(armies: dict[str, str]) -> None:
    """Crushing Grip: "Select one Enemy Unit Within 12". That Unit counts as Activated in this Phase" (Line of
    Sight needed, 10.1); Domineering Presence: "Select another Friendly Unit Within 6" (Line of Sight is not
    required). That Unit's Supply characteristic is increased by 1 for Controlling and Contesting"."""
    scn = scenario(armies, grip_plan((30, 28)))
    (grip,) = [a for a in scn.roster.unit("Kerrigan").card.abilities if a.name == GRIP]
    assert [(e.kind, e.select, e.within, e.line_of_sight) for e in grip.effects] == [
        ("counts_activated", "enemy", 12, True)
    ]
    queen = scn.roster.unit("Queen").card
    (presence,) = [a for up in queen.upgrades if up.name == PRESENCE for a in up.abilities]
    assert [(e.kind, e.value, e.select, e.within, e.line_of_sight) for e in presence.effects] == [
        ("contest_supply", 1, "friendly", 6, False)
    ]


def test_crushing_grip_takes_away_the_activation(armies: dict[str, str]) -> None:
    """Crushing Grip in Round 3's Movement Phase, blue first: marine-1 counts as Activated and its Move is lost in
    every game (it stays at (18, 15.3)); without the ability it moves back to (18, 11.3)."""
    n = 50
    got = []
    for use in (True, False):
        rounds = grip_plan((22, 24))
        if not use:
            rounds[2]["blue"]["movement"][0] = {"unit": "kerrigan-1", "action": "hold"}
        scn = scenario(armies, rounds)
        assert errors(scn) == []
        sim = Simulation(scn, n, seed=4)
        sim.run()
        m = sim.uids.index("marine-1")
        ys = {round(sim.world.placements[p].centres[0][1], 3) for p in sim.pos[m].tolist()}
        got.append((ys, sum(v for k, v in sim.skipped.items() if "an enemy's Crushing Grip" in k)))
    assert got == [({15.3}, n), ({11.3}, 0)]


def test_crushing_grip_needs_line_of_sight_in_each_game(armies: dict[str, str]) -> None:
    """10.1 "The target is in range and in Line of Sight (unless the ability says otherwise)": behind a Size 3 wall
    Kerrigan, Within 12", cannot select marine-1; the games are counted as not resolved and the Marines move."""
    n = 20
    scn = scenario(armies, grip_plan((12, 24)), terrain=WALL)
    assert errors(scn) == []
    sim = Simulation(scn, n, seed=4)
    sim.run()
    m = sim.uids.index("marine-1")
    assert {round(sim.world.placements[p].centres[0][1], 3) for p in sim.pos[m].tolist()} == {11.3}
    assert sum(v for k, v in sim.skipped.items() if "'Crushing Grip' not resolved" in k and "Line of Sight" in k) == n
    k, r = sim.uids.index("kerrigan-1"), sim.uids.index("marine-1")
    pk, pm = int(sim.pos[k, 0]), int(sim.pos[r, 0])
    assert sim.world.within(pk, 1, pm, 6, 12) and not sim.world.in_sight(pk, 1, pm, 6)


def test_select_is_checked(armies: dict[str, str]) -> None:
    """scenario check: the ability names its unit (an enemy for Crushing Grip, another Friendly Unit for
    Domineering Presence), on the table and Within range at this point of the plan; ``select`` only for an
    ability of ``use``."""
    no_select = grip_plan((22, 24))
    del no_select[2]["blue"]["movement"][0]["select"]
    said = errors(scenario(armies, no_select))
    assert any("select: 'Crushing Grip' selects an Enemy Unit" in p and "one of marine-1" in p for p in said), said
    said = errors(scenario(armies, grip_plan((22, 24), {GRIP: "zergling-1"})))
    assert any("select.Crushing Grip: got 'zergling-1'; allowed: marine-1, marine-2, medic-1" in p for p in said), said
    said = errors(scenario(armies, grip_plan((30, 30))))
    assert any("'marine-1' is not Within 12\" of 'kerrigan-1'" in p for p in said), said
    said = errors(scenario(armies, grip_plan((22, 24), {GRIP: "marine-2"})))
    assert any("'marine-2' is not on the table" in p for p in said), said
    with pytest.raises(ScenarioError, match=r"select: 'Leap' is not in use"):
        scenario(armies, grip_plan((22, 24), {GRIP: "marine-1", "Leap": "marine-1"}))
    with pytest.raises(ScenarioError, match=r"select.Crushing Grip: got 'nobody'"):
        scenario(armies, grip_plan((22, 24), {GRIP: "nobody"}))
    presence = grip_plan((22, 24))
    presence[2]["blue"]["movement"] = [
        {"unit": "queen-1", "action": "hold", "use": [PRESENCE], "select": {PRESENCE: "queen-1"}}
    ]
    presence[0]["blue"]["movement"].append({"unit": "queen-1", "action": "deploy", "to": [26, 33.6]})
    said = errors(scenario(armies, presence))
    assert any("select.Domineering Presence: got 'queen-1'; allowed: kerrigan-1, zergling-1" in p for p in said), said


SELECT = {PRESENCE: "zergling-1"}


def test_domineering_presence_adds_supply_to_the_selected_unit(armies: dict[str, str]) -> None:
    """Domineering Presence on zergling-1 (6 models: Supply 0), Within 6" of the Queen (Line of Sight not
    required, across the wall): the Zerglings count Supply 1 for marker control until the end of the Round, the
    Queen herself not; in the games where they are farther than 6" nothing changes."""
    rounds = [
        {
            "round": 1,
            "red": {},
            "blue": {
                "movement": [
                    # 8.5.5: the bases within Speed 4 of the Entry Edge (the Queen's 80 mm: 2.4"; 32 mm: 3.3")
                    {"unit": "queen-1", "action": "deploy", "to": [14, 33.6]},
                    {"unit": "zergling-1", "action": "deploy", "to": [9, 32.7]},
                ]
            },
        },
        {
            "round": 2,
            "red": {},
            "blue": {"movement": [{"unit": "queen-1", "action": "hold", "use": [PRESENCE], "select": SELECT}]},
        },
    ]  # fmt: skip
    scn = scenario(armies, rounds)
    assert errors(scn) == []
    sim = Simulation(scn, 4, seed=2)
    missions.setup(sim)
    trials = np.arange(4)
    sim.round = 1
    for act in scn.activations(1, "movement", "blue"):
        sim.activate(act, trials)
    q, z = sim.uids.index("queen-1"), sim.uids.index("zergling-1")
    far = sim.world.place(scn.units["zergling-1"], (30, 28), (0, 1), (int(sim.pos[q, 0]),))
    assert far is not None
    sim.pos[z, 2:] = far  # games 2 and 3: the Zerglings more than 6" away
    sim.alive[z] = 6
    sim.sync_board()
    sim.round = 2
    (act,) = scn.activations(2, "movement", "blue")
    sim.activate(act, trials)
    supply = supply_cards.contest_supply(sim, sim.current_supply(), trials)
    assert supply[z].tolist() == [1, 1, 0, 0]
    assert supply[q].tolist() == sim.current_supply()[q].tolist()
    assert sum(v for k, v in sim.skipped.items() if "'Domineering Presence' not resolved" in k) == 2
    sim.cleanup(trials)  # 10.2: "effects end at the end of the Round"
    assert supply_cards.contest_supply(sim, sim.current_supply(), trials)[z].tolist() == [0, 0, 0, 0]


GOLIATH = army("Terran Armed Forces", ("Goliath", 1), tactical=("Supply Depot",))  # 1 CP; Elite +1
ZERG_TWO = army("Kerrigan's Swarm", ("Zergling", 12), ("Roach", 3))
LOCK = "Target Lock"


def lock_plan(target: str) -> list[dict]:
    """The Goliath walks to (18, 13), the Roach to (18, 25) and the Zerglings to (22, 24.7) (Deploys within Speed of the
    Entry Edge, 8.5.5: 12" between the Goliath and the Roach as before); in Round 3 the Goliath uses Target Lock on the
    Roach, then shoots ``target`` with its Autocannon."""
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "goliath-1", "action": "deploy", "to": [18, 4]}],
                 "assault": [{"unit": "goliath-1", "action": "run", "to": [18, 8]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]},
                               {"unit": "zergling-1", "action": "deploy", "to": [22, 32.7]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "goliath-1", "action": "move", "to": [18, 13]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 29]},
                               {"unit": "zergling-1", "action": "move", "to": [22, 28.7]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 25]},
                              {"unit": "zergling-1", "action": "run", "to": [22, 24.7]}]}},
        {"round": 3,
         "red": {"movement": [{"unit": "goliath-1", "action": "hold", "use": [LOCK], "select": {LOCK: "roach-1"}}],
                 "assault": [{"unit": "goliath-1", "action": "shoot", "targets": [target], "weapons": ["Autocannon"]}]},
         "blue": {}},
    ]  # fmt: skip


def test_target_lock_is_for_the_selected_enemy_only(tmp_path_factory: pytest.TempPathFactory, seen: list) -> None:
    """Target Lock ("Select one Enemy Unit Within 12". Whenever a Friendly Goliath Unit targets that enemy with an
    Autocannon, that weapon gains Surge Type: Light, Armoured, and S Dice: D3+1"): the Autocannon reaches the
    engines with its Surge against the Roach it selected (Armoured), without one against the Zerglings (Light:
    the Surge would apply to them too were the effect on every target)."""
    armies = write_armies(tmp_path_factory.mktemp("lock"), GOLIATH, ZERG_TWO)
    surges = {}
    for target in ("roach-1", "zergling-1"):
        scn = scenario(armies, lock_plan(target))
        assert errors(scn) == []
        seen.clear()
        Simulation(scn, 200, seed=5).run()
        cannon = [cb for batches, _ in seen for cb in batches if cb.label.startswith("Autocannon")]
        assert cannon
        surges[target] = {str(cb.surge) for cb in cannon}
    assert surges["zergling-1"] == {"None"}
    assert surges["roach-1"] != {"None"} and "None" not in surges["roach-1"], surges


def test_target_lock_in_a_single_attack_query() -> None:
    """``attack``/``compare`` with ``--use "Target Lock"``: the query's target is taken to be the selected unit,
    whatever the distance (the 12" is where it is selected, not a range for the attack)."""
    from mathhammer.starcraft.loadout import attack_batches, make_loadout
    from mathhammer.starcraft.roster import load_roster

    roster = load_roster()
    lo = make_loadout(roster.unit("Goliath"), use=[LOCK])
    (cannon,) = [
        b for b in attack_batches(lo, roster.unit("Roach"), "assault", distance=20.0) if b.name == "Autocannon"
    ]
    assert cannon.weapon.surge_dice is not None and set(cannon.weapon.surge_tags) == {"Light", "Armoured"}


def test_weapons_of_the_firstborn_reach_four_inches_farther(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Twilight Council, Weapons of the Firstborn ("The active Ground Unit's first Ranged Weapon used gains BUFF
    Range (4)"; part 11 BUFF: "increase the value by X"): the Stalkers' Particle Disruptors (Range 12) reach the
    Roach 13.45" away (bases edge to edge) with it, not without: the plan checks clean only with it, and in the
    simulation every game shoots with it, none without. (8.5.5: the Deploys end with the bases within Speed of the
    Entry Edges, so the Stalkers run in Round 1 and the pair stands at (18, 9) and (18, 25), 16" apart as before.)"""
    protoss = army("Daelaam", ("Stalker", 2), tactical=("Twilight Council",))
    armies = write_armies(tmp_path_factory.mktemp("firstborn"), protoss, ZERG_TWO)
    shots = {}
    for use in ([], ["Weapons of the Firstborn"]):
        shoot = {"unit": "stalker-1", "action": "shoot", "targets": ["roach-1"], "use": use}
        rounds = [
            {"round": 1,
             "red": {"movement": [{"unit": "stalker-1", "action": "deploy", "to": [18, 2.4]}],
                     "assault": [{"unit": "stalker-1", "action": "run", "to": [18, 6.4]}]},
             "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]}],
                      "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]}]}},
            {"round": 2,
             "red": {"movement": [{"unit": "stalker-1", "action": "move", "to": [18, 9]}], "assault": [shoot]},
             "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]}]}},
        ]  # fmt: skip
        scn = scenario(armies, rounds)
        said = errors(scn)  # scenario check shoots with the abilities used so far this Round too
        assert said == [] if use else len(said) == 1 and "no planned target can be shot" in said[0], said
        sim = Simulation(scn, 20, seed=3)
        sim.run()
        shots[bool(use)] = sum(v for k, v in sim.skipped.items() if "no planned target it may shoot" in k)
    assert shots == {False: 20, True: 0}
