"""Review of the scenario simulation (issue 6) against the rule texts: one test per defect found.

Each test cites the rule and quotes it briefly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import ScenarioError, abilities, check_scenario
from mathhammer.scenario import mission as missions
from mathhammer.scenario.cards import burrow
from mathhammer.scenario.sim import Simulation
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import TWO_MARKERS, army, build, skirmish

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
ROSTER = load_roster()


def base(**over: object) -> dict:
    """A Skirmish scenario on Frontier (36" x 36"): Terran patrol (red, south) vs Zerg vanguard (blue, north)."""
    data = skirmish("review", TWO_MARKERS)
    data.update(over)  # may rename it
    return data


def scenario(**over: object):
    return build(base(**over), "review.toml")


def sim_for(trials: int = 16, **over: object) -> Simulation:
    sim = Simulation(scenario(**over), trials, 1)
    missions.setup(sim)
    return sim


def put(sim: Simulation, uid: str, lead: tuple[float, float], rear: tuple[float, float] = (0, -1)) -> int:
    """Set unit ``uid`` on the table in every trial, its Leading Model at ``lead``."""
    u = sim.uids.index(uid)
    occupied = tuple(int(p) for p in sim.pos[:, 0] if p >= 0)
    pid = sim.world.place(sim.scn.units[uid], lead, rear, occupied)
    assert pid is not None
    sim.pos[u] = pid
    sim.sync_board()
    return u


def errors(scn) -> list[str]:
    return [p for p in check_scenario(scn) if not p.startswith("warning")]


# ----------------------------------------------------------------- 8.9.1 marker control
def test_a_deactivated_marker_is_still_controlled() -> None:
    """FAQ v1.0 (Polish digest): "Nieaktywny znacznik misji nadal można kontrolować ... zasady określania
    kontroli dotyczą wszystkich Mission Markers znajdujących się aktualnie na polu bitwy" (a Deactivated
    Mission Marker can still be controlled). Supply Drop (skirmish): "All Mission Markers are Deactivated";
    Marines on Marker 1 in Round 1 take it, and control is sticky (8.9.1), so when the marker is Activated in
    Round 2 red scores it ("gain VPs equal to the Game Round number in which that Mission Marker was
    Activated") without a unit left on it."""
    sim = sim_for(mission={"card": "Supply Drop"})
    assert not sim.active.any()
    u = put(sim, "marine-1", (9, 11))
    everyone = np.arange(sim.T)
    sim.round = 1
    missions.control(sim, everyone)
    assert (sim.control[0] == 0).all()  # red controls the Deactivated Marker 1
    sim.pos[u] = -1  # the Marines leave (back to Reserves here: no Supply destroyed)
    sim.sync_board()
    sim.active[0] = True
    sim.activated_round[0] = 2
    sim.round = 2
    missions.score(sim, everyone)
    assert (sim.vp[0] == 2).all() and (sim.vp[1] == 0).all()
    assert sim.removed_marker[0].all() and (sim.control[0] == -1).all()  # "... and remove it"


def test_a_burrowed_unit_does_not_contest() -> None:
    """8.9.1 / part 11 BURROWED: "A BURROWED Unit cannot Control or Contest Mission Markers (overrides Parts
    6.2 and 8.9.1)"; 7.3.2: "Flying Units and BURROWED Units cannot Contest or Control Mission Markers".
    The Roach has the Burrowed Status and stands on Marker 2."""
    sim = sim_for()
    u = put(sim, "roach-1", (27, 32.5), (0, 1))
    everyone = np.arange(sim.T)
    sim.round = 1
    missions.control(sim, everyone)
    assert (sim.control[1] == 1).all()  # not burrowed: blue takes Marker 2
    sim.control[:] = -1
    burrow.set_burrowed(sim, u, everyone, True)
    missions.control(sim, everyone)
    assert (sim.control[1] == -1).all()


# ----------------------------------------------------------------- Gather the Resources
def test_gather_needs_only_a_unit_within_3_inches() -> None:
    """Gather the Resources: "If an Unengaged Unit is Within 3" of a Controlled Neutral Mission Marker or
    associated with the Opponent, this unit may perform the Gather Action ... GATHER ACTION: Gain 1 VP."
    The card asks no Line of Sight (contesting does, 8.9.1): Marines Within 3" of the blue Marker 2, which red
    Controls, behind a Size 3 wall, Gather 1 VP."""
    wall = {"id": "wall", "footprint": [[20, 28.5], [34, 28.5], [34, 28.8], [20, 28.8]], "size": 3}
    sim = sim_for(mission={"card": "Gather the Resources"}, terrain=[wall])
    u = put(sim, "marine-1", (27, 27.6))
    pid = int(sim.pos[u, 0])
    assert not sim.world.contests(pid, 6, 2)  # no LoS to the marker: it does not contest
    sim.control[1] = 0  # red Controls Marker 2 (Blue: the Opponent's colour)
    missions.gather(sim, u, np.arange(sim.T))
    assert (sim.vp[0] == 1).all()


# ----------------------------------------------------------------- 8.3.3 Zone of Influence
def test_deploy_with_a_base_inside_the_enemy_zone_of_influence() -> None:
    """8.3.3 / ZONE OF INFLUENCE: "Units arriving from Reserves cannot end their deployment Within the
    opponent's Zone of Influence"; WITHIN: "A model is Within a distance if any part of its base touches or
    crosses into that range. A Unit is Within a distance if at least one model in the Unit meets this
    condition." Blue enters from the west: its Zone is x <= 6". The Marines' Leading Model centre stands at
    x = 6.3", its 32 mm base reaches x = 5.67"."""
    dep = base()["deployment"] | {"entry_edges": {"red": "south", "blue": "west"}}
    rounds = [{"round": 1, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [6.3, 3]}]}}]
    found = errors(scenario(deployment=dep, rounds=rounds))
    assert any("rounds[0].red.movement[0]" in p and "Zone of Influence (8.3.3)" in p for p in found), found
    rounds[0]["red"]["movement"][0]["to"] = [8, 3]  # every base clear of the Zone
    assert errors(scenario(deployment=dep, rounds=rounds)) == []


# ----------------------------------------------------------------- 8.9.2 Supply destroyed
def test_a_deploy_that_finds_no_room_scores_nothing() -> None:
    """Mission Cards: "Score VPs equal to Enemy Supply destroyed this Round"; FAQ v1.0: VP when a unit's
    Current Supply Value is reduced. A unit that could not be set on the table (no room: the spot is taken)
    stays in Reserves; nothing of it is destroyed, so blue scores nothing in Round 1. (The plan check refuses
    this plan; in a checked plan the same happens when the spot is free in the check's walk but taken in
    some games, e.g. by an enemy whose Charge failed there.)"""
    deploy = [
        {"unit": "marine-1", "action": "deploy", "to": [9, 4]},
        {"unit": "marine-2", "action": "deploy", "to": [9, 4]},  # the same spot: no room
    ]
    sim = Simulation(scenario(rounds=[{"round": 1, "red": {"movement": deploy}}]), 8, 1)
    sim.run()
    assert sim.skipped.get("rounds[0].red.movement[1]: no room to set the unit there") == 8
    assert (sim.snapshots[0]["vp"][1] == 0).all()


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("change", "where"),
    [
        (
            {
                "rounds": [
                    {
                        "round": 1,
                        "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [float("nan"), 4]}]},
                    }
                ]
            },
            "rounds[0].red.movement[0].to[0]: got nan",
        ),
        (
            {"terrain": [{"id": "w", "footprint": [[float("nan"), 1], [4, 1], [4, 2]], "size": 2}]},
            "terrain[0].footprint[0][0]: got nan",
        ),
    ],
)
def test_non_finite_numbers_are_file_errors(change: dict, where: str) -> None:
    """A NaN or infinite number (TOML ``nan``, ``inf``) is no point or length on a battlefield: one line naming
    the field, not an accepted plan (a NaN ``to`` passed the check) nor a traceback (a NaN footprint)."""
    with pytest.raises(ScenarioError) as err:
        scenario(**change)
    text = str(err.value)
    assert f"review.toml: {where}; allowed: a finite number" in text, text


def test_a_broken_army_list_is_reported_once(tmp_path: Path) -> None:
    """A bad army file is one problem (its own lines), not one more per plan entry naming its units."""
    bad = tmp_path / "bad_army.toml"
    bad.write_text('name = "x"\nfaction = 3\n[[units]]\nunit = "Marine"\nmodels = 6\n', encoding="utf-8")
    players = {"red": {"army": str(bad)}, "blue": {"army": str(ARMIES / "zerg_skirmish.toml")}}
    rounds = [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [9, 4]}]},
            "blue": {"assault": [{"unit": "roach-1", "action": "shoot", "targets": ["marine-1"]}]},
        }
    ]
    with pytest.raises(ScenarioError) as err:
        scenario(players=players, rounds=rounds)
    lines = err.value.problems
    assert lines and all("players.red.army" in p for p in lines), lines


# ----------------------------------------------------------------- no abilities from Reserves
def test_an_ability_naming_reserves_is_not_used_from_reserves(tmp_path: Path) -> None:
    """8.5.5: "While in Reserves, the Unit keeps all its Active, Passive, and Reaction Abilities, but none of
    them function"; FAQ v1.0: abilities do not work in Reserves except rules that say they work there or
    handle the unit's own deployment. Dropship's "Strap In!" ("The active, Unengaged Ground Unit is returned to
    Reserves") names Reserves but is no such rule: used on a Deploy it is refused."""
    army = tmp_path / "dropship.toml"
    army.write_text(
        (ARMIES / "terran_skirmish.toml")
        .read_text(encoding="utf-8")
        .replace('tactical = ["Barracks"]', 'tactical = ["Barracks", "Dropship"]'),
        encoding="utf-8",
    )
    players = {"red": {"army": str(army)}, "blue": {"army": str(ARMIES / "zerg_skirmish.toml")}}
    deploy = {"unit": "marine-1", "action": "deploy", "to": [9, 4], "use": ["Strap In!"]}
    found = errors(scenario(players=players, rounds=[{"round": 1, "red": {"movement": [deploy]}}]))
    assert any("'Strap In!': a unit in Reserves uses no abilities" in p for p in found), found


def test_an_ability_its_unit_may_resolve_when_deployed_is_allowed() -> None:
    """Raynor's Raider, "Raiders Roll!": "When this Unit is nominated to deploy from Reserves, it may resolve its
    Stimpack ability" (FAQ v1.0: a rule that handles the unit's own deployment works): Stimpack on its Deploy
    is no "uses no abilities" error."""
    players = {
        "red": {"army": str(ARMIES / "raynors_strike_force.toml")},
        "blue": {"army": str(ARMIES / "zerg_six.toml")},
    }
    dep = base()["deployment"] | {"card": "Proving Grounds"}
    deploy = {"unit": "raynor-s-raider-1", "action": "deploy", "to": [9, 4], "use": ["Stimpack"]}
    found = check_scenario(
        scenario(players=players, deployment=dep, rounds=[{"round": 1, "red": {"movement": [deploy]}}])
    )
    assert not any("uses no abilities" in p for p in found), found


def test_an_ability_on_a_pass_is_an_error() -> None:
    """10.2: "A unit can use an Active ability only while it is activated"; 8.2.1: a Pass activates no unit.
    ``use`` on a ``pass`` entry was silently dropped; it is an error naming the entry, as ``react`` is."""
    entry = {"action": "pass", "use": ["Stimpack"]}
    found = errors(scenario(rounds=[{"round": 1, "red": {"assault": [entry]}}]))
    assert any("rounds[0].red.assault[0]" in p and "use:" in p and "Pass" in p for p in found), found


# ----------------------------------------------------------------- 10.5.2 card states
def test_an_exhausted_card_gives_no_reaction_even_one_that_does_not_exhaust_it() -> None:
    """10.5.2: an Exhausted card "cannot use its abilities until it is Readied" in the Cleanup; Spanish seed
    (FAQ): "Academy tiene la Reaction 'Advanced Training'. Si ya agotaste la Academy para pagar otra cosa, no
    puedes usar su Reaction hasta que se refresque." Advanced Training says "Do not Exhaust this card", which
    spares the card when it is used, not the need for a Ready card."""
    players = {
        "red": {"army": str(ARMIES / "raynors_strike_force.toml")},
        "blue": {"army": str(ARMIES / "zerg_six.toml")},
    }
    scn = scenario(players=players, deployment=base()["deployment"] | {"card": "Proving Grounds"})
    found = abilities.find(scn, "medic-1", "Advanced Training")
    assert found is not None and found.card == "Academy"
    purse = abilities.Purse(scn, "red")
    assert purse.pay(found) == ""  # Ready: usable, and the Academy stays Ready
    assert purse.ready[purse.names.index("Academy")]
    purse.ready[purse.names.index("Academy")] = False  # Exhausted to pay for something else
    assert "Exhausted" in purse.pay(found)


def test_an_ability_used_on_a_deploy_acts_in_the_simulation() -> None:
    """Raiders Roll!: "When this Unit is nominated to deploy from Reserves, it may resolve its Stimpack
    ability"; Stimpack: "This Unit suffers NON-LETHAL DAMAGE (2)" (the Damage Marker shows 2 after Round 1)."""
    players = {
        "red": {"army": str(ARMIES / "raynors_strike_force.toml")},
        "blue": {"army": str(ARMIES / "zerg_six.toml")},
    }
    dep = base()["deployment"] | {"card": "Proving Grounds"}
    deploy = {"unit": "raynor-s-raider-1", "action": "deploy", "to": [9, 4], "use": ["Stimpack"]}
    sim = Simulation(
        scenario(players=players, deployment=dep, rounds=[{"round": 1, "red": {"movement": [deploy]}}]), 4, 1
    )
    sim.run()
    u = sim.uids.index("raynor-s-raider-1")
    assert (sim.snapshots[0]["on_table"][u]).all()
    assert (sim.snapshots[0]["marker"][u] == 2).all()


# ----------------------------------------------------------------- limits printed on the cards
def test_a_once_per_game_card_ability_is_used_once() -> None:
    """Terran Armed Forces, "Terran Tenacity": "Once per Game. Immediately claim the First Player Marker." The
    card's own limit spans the game (card sheets override the rulebook, rules README): a second use in a later
    Round, by another unit, is an error; 10.2's once per Round per unit alone would allow it."""
    deploy = [  # 8.5.5: 32 mm bases within Speed 4" of the Entry Edge
        {"unit": "marine-1", "action": "deploy", "to": [9, 3.3]},
        {"unit": "marine-2", "action": "deploy", "to": [20, 3.3]},
    ]
    rounds = [
        {"round": 1, "red": {"movement": deploy}},
        {"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "hold", "use": ["Terran Tenacity"]}]}},
        {"round": 3, "red": {"movement": [{"unit": "marine-2", "action": "hold", "use": ["Terran Tenacity"]}]}},
    ]
    found = errors(scenario(rounds=rounds))
    assert len(found) == 1 and "rounds[2].red.movement[0]" in found[0] and "Once per Game" in found[0], found


def test_a_once_per_round_card_reaction_is_used_once_a_round() -> None:
    """Academy, "Advanced Training": "Once per Round, when a Friendly Support Unit activates a Special Ability
    that costs CP ... Do not Exhaust this card." The card stays Ready, so only its printed limit stops a second
    use in the Round, for another unit."""
    players = {
        "red": {"army": str(ARMIES / "raynors_strike_force.toml")},
        "blue": {"army": str(ARMIES / "zerg_six.toml")},
    }
    dep = base()["deployment"] | {"card": "Proving Grounds"}
    rounds = [
        {
            "round": 1,
            "red": {
                "movement": [
                    # 8.5.5: 32 mm bases within Speed 4" of the Entry Edge
                    {"unit": "medic-1", "action": "deploy", "to": [9, 3.3]},
                    {"unit": "medic-2", "action": "deploy", "to": [20, 3.3]},
                    {"unit": "marine-1", "action": "deploy", "to": [14.5, 3.3]},
                ]
            },
        },
        {
            "round": 2,
            "red": {
                "movement": [
                    {"unit": m, "action": "hold", "use": ["Medpack"], "select": {"Medpack": "marine-1"},
                     "react": [{"unit": m, "use": "Advanced Training"}]}
                    for m in ("medic-1", "medic-2")
                ]
            },
        },
    ]  # fmt: skip
    found = errors(scenario(players=players, deployment=dep, rounds=rounds))
    assert len(found) == 1 and "rounds[1].red.movement[1]" in found[0] and "Once per Round" in found[0], found


def test_an_active_ability_the_simulation_ignores_is_warned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An Active ability with no machine-readable effect gets a ``warning:`` line, not silence, like a Reaction
    without a modelled effect. Every Active ability of the roster now has one, so the Sentries' Force Field is read
    here with its effects taken away."""
    from mathhammer.scenario import abilities
    from mathhammer.scenario.check import attacks, cards, common, moves, reactions, walk

    real = abilities.find

    def bare(scn: object, unit: str, name: str) -> abilities.Found | None:
        found = real(scn, unit, name)  # type: ignore[arg-type]
        if found is not None and found.ability.name == "Force Field":
            return abilities.Found(found.ability.model_copy(update={"effects": []}), found.card)
        return found

    for module in (common, moves, attacks, cards, reactions, walk):  # the check modules read abilities through find
        if hasattr(module, "find"):
            monkeypatch.setattr(module, "find", bare)
    (tmp_path / "red.toml").write_text(army("Daelaam", ("Zealot", 3), ("Sentry", 2)))
    players = {"red": {"army": str(tmp_path / "red.toml")}, "blue": {"army": str(ARMIES / "zerg_skirmish.toml")}}
    rounds = [
        # 8.5.5: the Sentries' 50 mm base within Speed 4" of the Entry Edge
        {"round": 1, "red": {"movement": [{"unit": "sentry-1", "action": "deploy", "to": [9, 3]}]}},
        {"round": 2, "red": {"movement": [{"unit": "sentry-1", "action": "hold", "use": ["Force Field"]}]}},
    ]
    found = check_scenario(scenario(rounds=rounds, players=players))
    assert [p for p in found if not p.startswith("warning")] == []
    assert any(p.startswith("warning") and "'Force Field'" in p and "no modelled effect" in p for p in found)


# ----------------------------------------------------------------- 8.2.1 passing
def test_a_player_without_eligible_units_passes_at_once() -> None:
    """8.2.1: "A player must Pass if they have no eligible Units left. The first player to Pass in a Phase
    takes the First Player Marker for the next Phase." Every red unit is Destroyed; blue holds the First
    Player Marker and activates first in the Assault Phase; red, with nothing left, must Pass at its first turn
    and so holds the marker in the Combat Phase (the plan still lists two red entries, one blue)."""
    rounds = [
        {
            "round": 1,
            "red": {"assault": [{"unit": "marine-1", "action": "hold"}, {"unit": "marine-2", "action": "hold"}]},
            "blue": {"assault": [{"unit": "roach-1", "action": "hold"}]},
        }
    ]
    sim = Simulation(scenario(rounds=rounds, first_player="blue"), 4, 1)
    sim.alive[[u for u, su in enumerate(sim.units) if su.player == "red"]] = 0
    roach = sim.uids.index("roach-1")  # on the table: blue has an eligible unit (a unit in Reserves has none)
    pid = sim.world.place(sim.units[roach], (18, 30), (0, 1), ())
    assert pid is not None
    sim.set_pos(roach, np.arange(sim.T), pid)
    seen: list[np.ndarray] = []
    combat = sim.combat_phase

    def spy(live: np.ndarray) -> None:
        seen.append(sim.first[live].copy())
        combat(live)

    sim.combat_phase = spy  # type: ignore[method-assign]
    sim.run()
    assert (seen[0] == 0).all()  # red holds the First Player Marker in the Combat Phase


# ----------------------------------------------------------------- outputs
def test_per_round_distributions_of_supply_and_damage_marker() -> None:
    """Issue 6 point 5: "per round, the distribution of each unit's models, Current Supply and Damage Marker"
    (the result gave the models' distribution but only the mean Current Supply and Damage Marker)."""
    import json

    from mathhammer.scenario import builtin_scenarios, load_scenario, simulate

    res = simulate(load_scenario(builtin_scenarios()[0]), trials=300, seed=2, workers=1)
    for row in res.unit_rows():
        for name in ("models_pmf", "supply_pmf", "damage_marker_pmf"):
            pmf = row[name]
            assert pmf and abs(sum(pmf.values()) - 1) < 1e-9, (row["unit"], name)
        mean = sum(k * p for k, p in row["supply_pmf"].items())
        assert abs(mean - row["supply_mean"]) < 1e-9
        mean = sum(k * p for k, p in row["damage_marker_pmf"].items())
        assert abs(mean - row["damage_marker_mean"]) < 1e-9
    unit = json.loads(json.dumps(res.to_dict()))["rounds"][-1]["units"][0]
    assert set(unit["supply_pmf"]) and all(isinstance(k, str) for k in unit["damage_marker_pmf"])
    assert "supply_pmf" not in res.units_frame().columns


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            {"deployment": base()["deployment"] | {"entry_edges": {"red": "south"}}},
            "review.toml: deployment.entry_edges: allowed: ",
        ),
        (
            {"deployment": base()["deployment"] | {"entry_edges": {"red": "south", "blue": "south"}}},
            "review.toml: deployment.entry_edges: allowed: ",
        ),
        (
            {"rounds": [{"round": 1}, {"round": 2}, {"round": 1}]},
            "review.toml: rounds[2].round: got 1; allowed: each round once",
        ),
        ({"players": {"red": {"army": "x.toml"}}}, "review.toml: players: allowed: "),
    ],
)
def test_file_level_rules_name_their_field(change: dict, line: str) -> None:
    """A rule over several entries names the field it is about ("one clear message naming file, field and
    allowed values"): before, "review.toml: allowed: each round once: [1, 2, 1]" named none."""
    with pytest.raises(ScenarioError) as err:
        scenario(**change)
    assert any(p.startswith(line) for p in err.value.problems), err.value.problems
