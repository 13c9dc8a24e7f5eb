"""Scenario policies (issue 6 point 4) and a game with no randomness left (issue 6 point 7).

The choices the rules leave to a player are named policies in a scenario's ``[policy]`` table
(``mathhammer/scenario/spec.py`` PolicySpec, ``profiles/scenarios/README.md`` "Policies"). Each
test builds its small scenario here and cites the rule section it exercises.
"""

from __future__ import annotations

import math
import typing
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, MM_PER_INCH
from mathhammer.cli import app
from mathhammer.scenario import ScenarioError, check_scenario, simulate
from mathhammer.scenario import mission as missions
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import POLICIES, PolicySpec
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import TWO_MARKERS, build, skirmish
from .test_scenario import _toml

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
runner = CliRunner()
ROSTER = load_roster()


def base(**over: object) -> dict:
    """A Skirmish scenario (Hold Position on Frontier, 36" x 36"): Terran patrol (red, south) vs Zerg vanguard."""
    data = skirmish("policy test", TWO_MARKERS)
    data.update(over)  # may rename it
    return data


def scenario(**over: object):
    return build(base(**over))


def sim_for(trials: int = 64, seed: int = 3, **over: object) -> Simulation:
    sim = Simulation(scenario(**over), trials, seed)
    missions.setup(sim)  # Mission Parameters: "All Mission Markers are Activated"
    return sim


# ----------------------------------------------------------------- the file
def test_policy_names_match_the_file_format() -> None:
    """Every policy named in ``POLICIES`` is accepted by ``[policy]``, the first one the default."""
    for fld, names in POLICIES.items():
        assert typing.get_args(PolicySpec.model_fields[fld].annotation) == names
        assert getattr(PolicySpec(), fld) == names[0]
    for fld, names in POLICIES.items():
        for name in names:
            assert getattr(scenario(policy={fld: name}).policy, fld) == name


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ({"casualties": "keep-back"}, "policy.casualties: got 'keep-back'; allowed: 'keep-leader' or 'keep-front'"),
        ({"fight_split": "all"}, "policy.fight_split: got 'all'; allowed: 'first-target', 'even' or 'weakest'"),
        ({"roll_off": "green"}, "policy.roll_off: got 'green'; allowed: 'random', 'red' or 'blue'"),
        ({"rolloff": "red"}, "policy.rolloff: unknown key (did you mean 'roll_off'?)"),
    ],
)
def test_bad_policy_is_rejected_naming_the_field(policy: dict, expected: str, tmp_path: Path) -> None:
    """A bad policy value names the file, the field and the allowed values; the CLI exits with status 2."""
    with pytest.raises(ScenarioError) as err:
        scenario(policy=policy)
    assert str(err.value).startswith("test.toml: ") and expected in str(err.value)
    f = tmp_path / "bad_policy.toml"
    f.write_text(_toml(base(policy=policy)))
    for cmd in (["scenario", "check", str(f)], ["scenario", "run", str(f), "--trials", "10"]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2, res.output
        assert "Traceback" not in res.output
        assert f"bad_policy.toml: {expected}" in res.output


# ----------------------------------------------------------------- casualties
def _contest_after_losses(policy: str) -> list[int]:
    """Marine-1 set with its Leading Model 5" short of Marker 1 (red): who controls it with 6 ... 1 models left."""
    sim = sim_for(trials=6, policy={"casualties": policy})
    red = sim.uids.index("marine-1")
    pid = sim.world.place(sim.units[red], (9, 8), (0, -1), ())  # faces north, towards the marker at (9, 13)
    assert pid is not None
    sim.pos[red] = pid
    sim.sync_board()
    sim.alive[red] = [6, 5, 4, 3, 2, 1]
    missions.control(sim, np.arange(6))
    return sim.control[0].tolist()


def test_keep_front_keeps_the_unit_on_the_marker() -> None:
    """8.7.4 step 5 "The defending player removes models"; 8.9.1 Contest: a model Within 3" of the marker.

    The unit is set around its Leading Model at (9, 8), one model in front of it at (8.32, 9.18): the only
    model Within 3" of Marker 1 at (9, 13) (the Leading Model's base is 3.7" from the marker's). With all six
    models both policies control the marker. ``keep-leader`` removes that front model first (it was set
    last), so from five models on the unit no longer contests; ``keep-front`` removes the rearmost models
    first and contests down to two models (the Leading Model and the front model).
    """
    assert _contest_after_losses("keep-leader") == [0, -1, -1, -1, -1, -1]
    assert _contest_after_losses("keep-front") == [0, 0, 0, 0, 0, -1]


def test_keep_front_orders_the_survivors_by_the_facing() -> None:
    """keep-front: the Leading Model first, then the rest from the front (away from ``rear``) to the back."""
    scn = scenario(policy={"casualties": "keep-front"})
    sim = Simulation(scn, 1, 0)
    for rear in ((0.0, -1.0), (1.0, 0.0)):
        pid = sim.world.place(scn.units["zergling-1"], (18, 18), rear, ())
        assert pid is not None
        lead, *rest = sim.world.placements[pid].centres
        assert lead == (18, 18)
        ahead = [-((x - lead[0]) * rear[0] + (y - lead[1]) * rear[1]) for x, y in rest]
        assert ahead == sorted(ahead, reverse=True)


@pytest.mark.parametrize("policy", POLICIES["casualties"])
def test_charged_unit_loses_the_models_out_of_engagement_first(policy: str) -> None:
    """8.7.5: an Engaged unit removes models not Within the Engagement Range of any Enemy Unit first
    (Priority 1), then those Within it (Priority 2 / 3), and never the one keeping it Engaged while another
    casualty is left. Zergling-1 is set by a Charge (8.7.7 step 4) at Marine-1 with 3 models left: the
    Placement priorities cannot bring all twelve Zerglings Within 1" of three Marines. Whatever the
    policy, as models are lost the unit keeps every model that is Within the Engagement Range, and it
    stays Engaged down to its last model."""
    scn = scenario(policy={"casualties": policy})
    sim = Simulation(scn, 1, 0)
    w = sim.world
    m = w.place(scn.units["marine-1"], (10, 10), (0, -1), ())
    assert m is not None
    r = scn.units["zergling-1"].base_mm / MM_PER_INCH / 2
    rm = scn.units["marine-1"].base_mm / MM_PER_INCH / 2
    left = 3
    foes = w.placements[m].centres[:left]
    z = None
    for deg in range(0, 360, 15):  # the Leading Model ends 0.3" from a live Marine, where there is room
        for c in foes:
            a = math.radians(deg)
            lead = (c[0] + (r + rm + 0.3) * math.cos(a), c[1] + (r + rm + 0.3) * math.sin(a))
            rear = (math.cos(a), math.sin(a))
            if z is None:
                z = w.place(
                    scn.units["zergling-1"], lead, rear, (m,), ("marine-1",), targets_left=(("marine-1", left),)
                )
    assert z is not None
    near = [any(math.dist(c, f) - r - rm <= ENGAGEMENT_RANGE + EPS for f in foes) for c in w.placements[z].centres]
    assert near[0] and any(near[1:]) and not all(near)  # a real choice: some models are out of reach
    assert near == sorted(near, reverse=True)  # every model Within 1" is kept before any that is not
    iz, im = sim.uids.index("zergling-1"), sim.uids.index("marine-1")
    for k in range(1, 13):
        alive = [0] * sim.U
        pos = [-1] * sim.U
        alive[iz], alive[im], pos[iz], pos[im] = k, left, z, m
        assert ("zergling-1", "marine-1") in w.engaged_pairs(tuple(pos), tuple(alive))


# ----------------------------------------------------------------- fight split
def _melee(policy: str, trials: int = 400, m2_left: int = 6, subset: slice = slice(None)) -> Simulation:
    """Zergling-1 set by a Charge Within 1" of Marine-1 and Marine-2 (two Engaged enemy units); it fights once
    with ``targets = ["marine-1"]``."""
    sim = sim_for(trials=trials, seed=4, policy={"fight_split": policy})
    w, units = sim.world, sim.scn.units
    m1 = w.place(units["marine-1"], (10, 10), (0, -1), ())
    assert m1 is not None
    m2 = w.place(units["marine-2"], (14.5, 10), (0, -1), (m1,))
    assert m2 is not None
    z = w.place(units["zergling-1"], (12.25, 11.3), (0, 1), (m1, m2), ("marine-1", "marine-2"))
    assert z is not None
    for uid, pid in (("marine-1", m1), ("marine-2", m2), ("zergling-1", z)):
        sim.pos[sim.uids.index(uid)] = pid
        sim.sync_board()
    sim.alive[sim.uids.index("marine-2")] = m2_left
    trials_run = np.arange(trials)[subset]
    sim.fight(sim.uids.index("zergling-1"), ("marine-1",), trials_run, 12345)
    return sim


def _left(sim: Simulation, uid: str) -> np.ndarray:
    return sim.alive[sim.uids.index(uid)]


def test_first_target_puts_every_die_on_the_planned_target() -> None:
    """8.8.1 FIGHTING MULTIPLE UNITS, policy first-target: all Attack Dice at the first planned Engaged target."""
    sim = _melee("first-target")
    assert (_left(sim, "marine-1") < 6).mean() > 0.5
    assert (_left(sim, "marine-2") == 6).all()


def test_even_split_spreads_the_damage_over_both_engaged_units() -> None:
    """8.8.1 "Declare how Attack Dice are split between eligible targets before rolling", policy even: the
    six striking Zerglings split 3 + 3, so both Marine units lose models, each fewer than under first-target.
    Each part has its own draw, a function of the trial only."""
    first, even = _melee("first-target"), _melee("even")
    lost = {uid: 6 - _left(even, uid) for uid in ("marine-1", "marine-2")}
    assert (lost["marine-1"] > 0).mean() > 0.3 and (lost["marine-2"] > 0).mean() > 0.3
    assert lost["marine-1"].mean() < (6 - _left(first, "marine-1")).mean()
    assert not np.array_equal(lost["marine-1"], lost["marine-2"])  # separate draws
    part = _melee("even", subset=slice(150, 400))  # the same trials alone: the same games
    for uid in ("marine-1", "marine-2"):
        assert np.array_equal(_left(part, uid)[150:], _left(even, uid)[150:])


def test_weakest_puts_every_die_on_the_unit_with_fewest_models() -> None:
    """8.8.1 split, policy weakest: all dice at the Engaged enemy with the fewest models left, here Marine-2
    (4 models) although Marine-1 is the planned target."""
    sim = _melee("weakest", m2_left=4)
    assert (_left(sim, "marine-1") == 6).all()
    assert (_left(sim, "marine-2") < 4).mean() > 0.5
    tie = _melee("weakest")  # 6 and 6: the planned target first
    assert (_left(tie, "marine-2") == 6).all() and (_left(tie, "marine-1") < 6).any()


# ----------------------------------------------------------------- roll-offs
@pytest.mark.parametrize(("policy", "winner"), [("red", 0), ("blue", 1)])
def test_fixed_roll_off_gives_that_player_the_first_player_marker(
    policy: str, winner: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3.2 Roll-Off; 8.2.2: the winner takes the First Player Marker for Round 1; 8.9.6: "If tied, conduct a
    Roll-Off. The winner takes the First Player Marker", else it goes to the player with fewer VP."""
    seen: list[np.ndarray] = []
    setup = missions.setup

    def spy(sim: Simulation) -> None:
        seen.append(sim.first.copy())
        setup(sim)

    monkeypatch.setattr(missions, "setup", spy)
    sim = Simulation(scenario(first_player="roll-off", policy={"roll_off": policy}), 100, 1)
    sim.run()
    assert (seen[0] == winner).all()  # Round 1
    sim.vp[:] = 0
    sim.vp[0, :50] = 3  # red ahead in half the trials, tied in the others
    sim.vp[1, :50] = 1
    sim.round = 2
    sim.cleanup(np.arange(100))
    assert (sim.first[:50] == 1).all()  # blue has fewer VP
    assert (sim.first[50:] == winner).all()  # tie: the Roll-Off


def test_random_roll_off_is_fair() -> None:
    """3.2 Roll-Off, policy random: either player, about half the time each."""
    sim = sim_for(trials=2000, first_player="roll-off")
    sim.round = 1
    sim.cleanup(np.arange(2000))  # 0 - 0: a Roll-Off in every trial
    assert 0.45 < sim.first.mean() < 0.55


# ----------------------------------------------------------------- no randomness left (issue 6 point 7)
FORCED = {
    "name": "forced",
    "first_player": "roll-off",
    "policy": {"roll_off": "red"},
    "deployment": {
        "card": "Frontier",
        "entry_edges": {"red": "south", "blue": "north"},
        "markers": [
            {"number": 1, "x": 10, "y": 6},  # Red
            {"number": 2, "x": 27, "y": 30},  # Blue
            {"number": 3, "x": 9, "y": 30},  # Red, never contested
            {"number": 4, "x": 27, "y": 6},  # Blue
            {"number": 5, "x": 18, "y": 6},  # Neutral
        ],
    },
    "rounds": [
        {
            "round": 1,
            "red": {"movement": [{"unit": "marine-2", "action": "deploy", "to": [9, 3]}]},
            "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [27, 33]}]},
        },
        {"round": 3, "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3]}]}},
        {
            "round": 4,
            "red": {
                "movement": [
                    {"unit": "marine-2", "action": "move", "to": [5, 3]},
                    {"unit": "marauder-1", "action": "deploy", "to": [27, 3]},
                ]
            },
        },
    ],
}


@pytest.mark.parametrize("seed", [0, 7])
def test_a_game_with_no_randomness_left_scores_the_hand_computed_vp(seed: int) -> None:
    """Hold Position (Skirmish): Supply 3, Escalation 1, 5 Rounds, wins at an 8+ VP lead. No unit ever has an
    enemy in range or Within 1", nothing shoots, charges or fights, and the Roll-Offs go to red (policy), so
    every trial is the same game. Mission Card: "Score VPs equal to Enemy Supply destroyed this Round. FROM
    THE START OF THE SECOND ROUND: Gain 1 VP for each Controlled Mission Marker that is Neutral or associated
    with your colour. Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour."
    8.9.1: a marker is Controlled by the player whose contesting units (a model Within 3") have more Current
    Supply; control is sticky. 8.9.2: VP per the card. Final Round: units still in Reserves count as Destroyed
    (Current Supply Value, every unit here 1: Marine 4-6 models, Marauder 2, Medic 2-3, Zergling 7-12, Roach
    2-3 are all Supply 1).

    Round 1 (pool 3): Marine-2 deploys on Marker 1 (red), Zergling-1 on Marker 2 (blue). Control M1 red,
        M2 blue; markers do not score in Round 1.                                 red 0, blue 0
    Round 2: red +1 (M1, own colour), blue +1 (M2, own colour).                   red 1, blue 1
    Round 3 (pool 5, 1 on the table): Marine-1 deploys on Marker 5 (Neutral).
        red +1 (M1) +1 (M5) = 2, blue +1 (M2).                                    red 3, blue 2
    Round 4 (pool 6, 2 on the table): Marine-2 moves off Marker 1 (sticky: still red); Marauder-1 deploys on
        Marker 4 (blue colour): red +1 (M1) +1 (M5) +2 (M4) = 4, blue +1.         red 7, blue 3
    Round 5 (final): red +4 as in Round 4, + 2 for blue's Reserves (Zergling-2, Roach-1) = 6;
        blue +1 (M2) + 2 for red's Reserves (Marauder-2, Medic-1) = 3.            red 13, blue 6
    Marker 3 is never contested and never scores. The lead never reaches 8.
    """
    scn = parse_scenario(base(**FORCED), "forced.toml", ROOT, ROSTER)
    assert [p for p in check_scenario(scn) if not p.startswith("warning")] == []
    assert {scn.units[u].supply(scn.units[u].models) for u in scn.units} == {1}
    res = simulate(scn, trials=40, seed=seed)
    expected = [(0, 0), (1, 1), (3, 2), (7, 3), (13, 6)]
    for r, (red, blue) in enumerate(expected):
        vp = res.rounds[r]["vp"]
        assert (vp[0] == red).all() and (vp[1] == blue).all(), (r + 1, vp[:, :3])
    assert res.outcome()["red"]["p"] == 1.0
    assert (res.end_round == 5).all()
    # Marker control after the game: M1 red (sticky: Marine-2 no longer contests it), M2 blue, M3 nobody,
    # M4 red, M5 red.
    sim = Simulation(scn, 4, seed)
    sim.run()
    assert sim.control.tolist() == [[0] * 4, [1] * 4, [-1] * 4, [0] * 4, [0] * 4]
    table = missions.contest(sim, np.arange(4))
    assert not table[sim.uids.index("marine-2"), 0].any()


# ----------------------------------------------------------------- supply arithmetic (8.3.1, 8.3.2)
def test_current_supply_value_from_the_supply_profile() -> None:
    """Glossary CURRENT SUPPLY VALUE: the Supply of the bracket that holds the models left (0 with none left).
    Marine 1-3: 0, 4-6: 1, 7-9: 2; Marauder 1: 0, 2: 1, 3-4: 2; Zergling 1-6: 0, 7-12: 1."""
    units = scenario().units
    assert [units["marine-1"].supply(k) for k in range(10)] == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [units["marauder-1"].supply(k) for k in range(5)] == [0, 0, 1, 2, 2]
    assert [units["zergling-1"].supply(k) for k in range(13)] == [0] * 7 + [1] * 6


@pytest.mark.parametrize(
    ("mission", "pools"),
    [
        ({"card": "Hold Position"}, [3, 4, 5, 6, None]),  # Skirmish card: 3 + 1 per Round, final unlimited
        ({"card": "Hold Position", "starting_supply": 2, "supply_escalation": 3, "game_length": 4}, [2, 5, 8, None]),
        ({"card": "Hold Position", "supply_escalation": 0, "game_length": 1}, [None]),  # the only Round is final
    ],
)
def test_supply_pool_with_escalation(mission: dict, pools: list[int | None]) -> None:
    """8.3.1: Supply Pool = Starting Supply + Escalation x (Round - 1); unlimited in the final Round."""
    m = scenario(mission=mission).mission
    assert [m.supply_pool(r) for r in range(1, m.game_length + 1)] == pools


def test_deploy_needs_available_supply_in_play() -> None:
    """8.3.2: Available Supply = Supply Pool - Current Supply on the table; a Deploy over it is skipped (the
    unit stays in Reserves). Pool 2 (override) in Round 1: Marine-1 and Marine-2 (Supply 1 each) fit; a third
    Supply 1 unit does not, but a Marine unit of 3 models (Supply 0) still does."""
    red = [
        {"unit": u, "action": "deploy", "to": [x, 3]}
        for u, x in (("marine-1", 4), ("marine-2", 12), ("marauder-1", 20), ("medic-1", 28))
    ]
    sim = sim_for(
        trials=3,
        mission={"card": "Hold Position", "starting_supply": 2},
        rounds=[{"round": 1, "red": {"movement": red}}],
    )
    sim.round = 1
    sim.alive[sim.uids.index("marine-2"), 2] = 3  # trial 2: Marine-2 at 3 models, Supply 0
    for act in sim.scn.activations(1, "movement", "red"):
        sim.activate(act, np.arange(3))
    on = sim.on_table()
    assert on[sim.uids.index("marine-1")].all() and on[sim.uids.index("marine-2")].all()
    # trials 0-1: 1 + 1 = 2 on the table, Available 0: Marauder-1 and Medic-1 wait; trial 2: 1 + 0, Available 1
    assert on[sim.uids.index("marauder-1")].tolist() == [False, False, True]
    assert on[sim.uids.index("medic-1")].tolist() == [False, False, False]
    assert any("not enough Available Supply (8.3.2)" in k for k in sim.skipped)
