"""Lightning Dash (Artanis, a Reaction; issue 6, point 3): "After this Unit resolves a successful Charge action, it may
declare a second Charge action against a different Enemy Unit, ignoring the restriction on Charging while Engaged. The
Devastating Charge ability does not trigger a second time."

Read as a new Charge action (8.7.7): a new Charge Roll (Speed + 1D6), and the first target, now not declared, keeps the
end out of its Engagement Range (8.7.7 step 3: "Not Within the Engagement Range of any Enemy Unit that was not
declared as a target"); no IMPACT.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.board.charge import charge_distance
from mathhammer.board.model import Board, Model, Unit
from mathhammer.errors import InputError
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies
from .test_scenario_charge_abilities import assert_share

RED = army("Terran Armed Forces", ("Goliath", 1), ("Marine", 6), tactical=("Factory",))
BLUE = army("Khalai", ("Zealot", 3), ("Artanis", 1))  # Khalai: a Hero slot, 1 PE (Lightning Dash costs 1)
DASH = {"unit": "artanis-1", "use": "Lightning Dash"}


def plan(charge: dict) -> list[dict]:
    """The Goliath walks to (18, 12), the Marines to (30, 11.3), Artanis to (18, 20); in Round 2 Artanis charges the
    Goliath (4.6" away: every Charge Roll reaches), the plan's ``charge`` entry. 8.5.5: the Marines' 32 mm base
    Deploys 3.3" from the Entry Edge, the Zealots' 40 mm 3.2" (within Speed 4"), so the Marines end 0.7" short of
    (30, 12), where they stood before."""
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "goliath-1", "action": "deploy", "to": [18, 4]},
                              {"unit": "marine-1", "action": "deploy", "to": [30, 3.3]}],
                 "assault": [{"unit": "goliath-1", "action": "run", "to": [18, 8]},
                             {"unit": "marine-1", "action": "run", "to": [30, 7.3]}]},
         "blue": {"movement": [{"unit": "zealot-1", "action": "deploy", "to": [6, 32.8]},
                               {"unit": "artanis-1", "action": "deploy", "to": [18, 32]}],
                  "assault": [{"unit": "artanis-1", "action": "run", "to": [18, 26]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "goliath-1", "action": "move", "to": [18, 12]},
                              {"unit": "marine-1", "action": "move", "to": [30, 11.3]}]},
         "blue": {"movement": [{"unit": "artanis-1", "action": "move", "to": [18, 20]}],
                  "assault": [{"unit": "artanis-1", "action": "charge"} | charge]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, charge: dict) -> Scenario:
    return build(skirmish("dash", armies=write_armies(tmp_path, RED, BLUE), rounds=plan(charge)), "dash.toml")


DASHING = {"targets": ["goliath-1"], "react": [DASH], "select": {"Lightning Dash": "marine-1"}}


def after_assault(scn: Scenario, n: int) -> Simulation:
    """The games played to the end of Round 2's Assault Phase."""
    sim = Simulation(scn, n, seed=5)
    for rnd in (1, 2):
        sim.round = rnd
        for phase in ("movement", "assault") if rnd == 2 else ("movement", "assault", "combat"):
            sim.first[:] = 0
            sim.play_phase(rnd, phase, np.arange(n))
    return sim


def engaged_share(sim: Simulation, a: str, b: str) -> float:
    hit = 0
    for ts, pairs in sim.engaged_with(np.arange(sim.T)):
        hit += ts.size if (a, b) in pairs else 0
    return hit / sim.T


def test_artanis_dashes_on_to_the_marines(tmp_path: Path) -> None:
    """After the first Charge (every roll reaches the Goliath) a second Charge Roll, 7 + 1D6, against the distance the
    path from there needs (the Goliath's Engagement Range kept out of the end): in that share of the games, within
    5 SE, Artanis ends Engaged with the Marines and no longer with the Goliath; in the others it stays on the
    Goliath. Without the Reaction it stays on the Goliath in every game."""
    n = 3000
    plain = after_assault(scenario(tmp_path, {"targets": ["goliath-1"]}), n)
    assert engaged_share(plain, "artanis-1", "goliath-1") == 1.0
    assert engaged_share(plain, "artanis-1", "marine-1") == 0.0
    pos = tuple(int(p) for p in plain.pos[:, 0])
    alive = tuple(int(a) for a in plain.alive[:, 0])
    with pytest.raises(InputError, match="Unengaged"):  # 8.7.7: "An Unengaged Ground Unit"
        plain.world.charge_length(pos, alive, "artanis-1", ("marine-1",))
    length, end = plain.world.charge_length(pos, alive, "artanis-1", ("marine-1",), engaged_ok=True)
    assert end is not None
    goliath = plain.world.placements[pos[plain.uids.index("goliath-1")]].centres[0]
    assert math.dist(end, goliath) > 1.575 + 0.787 + 1.0  # not Within 1" of the Goliath (its base 80 mm, Artanis 40)
    need = math.ceil(length - 7 - 1e-9)
    assert 2 <= need <= 6, length
    scn = scenario(tmp_path, DASHING)
    assert errors(scn) == []
    sim = after_assault(scn, n)
    share = engaged_share(sim, "artanis-1", "marine-1")
    assert_share(share, (7 - need) / 6, n)
    assert engaged_share(sim, "artanis-1", "goliath-1") == pytest.approx(1 - share)
    short = sum(v for k, v in sim.skipped.items() if "second Charge Roll too short" in k)
    assert short == round((1 - share) * n)


def test_devastating_charge_does_not_trigger_a_second_time(tmp_path: Path) -> None:
    """IMPACT (6) 4+ after the first Charge damages the Goliath in some games; the Marines, charged second, keep all
    their models in every game (the second Charge resolves no IMPACT)."""
    sim = after_assault(scenario(tmp_path, DASHING), 400)
    g, m = sim.uids.index("goliath-1"), sim.uids.index("marine-1")
    assert (sim.mark[g] > 0).mean() > 0.5
    assert engaged_share(sim, "artanis-1", "marine-1") > 0.2
    assert (sim.alive[m] == 6).all() and (sim.mark[m] == 0).all()


@pytest.mark.parametrize(
    ("charge", "said"),
    [
        ({"targets": ["goliath-1"], "react": [DASH]}, "name the Enemy Unit of the second Charge"),
        ({"targets": ["goliath-1"], "react": [DASH], "select": {"Lightning Dash": "goliath-1"}}, "a different Enemy"),
        ({"targets": ["goliath-1"], "react": [DASH], "select": {"Lightning Dash": "zealot-1"}}, "a different Enemy"),
    ],
)
def test_scenario_check_asks_for_a_different_enemy(tmp_path: Path, charge: dict, said: str) -> None:
    """``select`` names the second Charge's target: a different Enemy Unit (8.7.7 step 1)."""
    found = errors(scenario(tmp_path, charge))
    assert any(said in e for e in found), found


def test_scenario_check_reads_the_second_charge(tmp_path: Path) -> None:
    """The second Charge must reach its target from where the first ended, at most Speed 7 + 6: Marines moved to
    (34, 4) are out of reach; and a Lightning Dash on another unit's activation is refused (its trigger is this
    unit's own Charge)."""
    rounds = plan(DASHING)
    rounds[1]["red"]["movement"][1]["to"] = [34, 6]
    far = build(skirmish("dash", armies=write_armies(tmp_path, RED, BLUE), rounds=rounds), "dash.toml")
    assert any("Lightning Dash's second Charge: cannot reach" in e for e in errors(far)), errors(far)
    rounds = plan({"targets": ["goliath-1"]})
    rounds[1]["red"]["assault"] = [{"unit": "marine-1", "action": "shoot", "targets": ["artanis-1"], "react": [DASH]}]
    wrong = build(skirmish("dash", armies=write_armies(tmp_path, RED, BLUE), rounds=rounds), "dash.toml")
    assert any("Lightning Dash" in e and "trigger" in e.lower() for e in errors(wrong)), errors(wrong)


def test_charge_distance_from_an_engaged_start() -> None:
    """charge_distance: an Engaged charger is refused (8.7.7: "An Unengaged Ground Unit") unless ``engaged_ok``; then
    the end keeps out of the Engagement Range of the enemy it does not declare (8.7.7 step 3), so the path to a
    target just past that enemy bends round its 1" zone."""
    a = Model("a", 10, 10, base_mm=25.4)
    x = Model("x", 11.0, 10, base_mm=25.4)  # touching a
    y = Model("y", 16.0, 10, base_mm=25.4)
    board = Board(30, 20, units=(Unit("A", "p1", (a,)), Unit("X", "p2", (x,)), Unit("Y", "p2", (y,))))
    with pytest.raises(InputError, match="Unengaged"):
        charge_distance(board, "a", ["Y"])
    path = charge_distance(board, "a", ["Y"], engaged_ok=True)
    assert path.end is not None
    assert math.dist(path.end, x.centre) >= 1.0 + 1.0 - 1e-6  # Artanis-sized gap: not Within 1" of X
    assert math.dist(path.end, y.centre) <= 1.0 + 1.0 + 1e-6  # Within 1" of Y
    assert path.length > math.dist(a.centre, y.centre) - 2.0  # longer than the straight line through X's base


def test_a_second_charge_read_near_the_leading_model(tmp_path: Path) -> None:
    """Lightning Dash's second Charge starts Engaged ("ignoring the restriction on Charging while Engaged"): read on
    the models near Artanis (what ``World._charge_local`` reads, here with a box of 20") it is not refused, and it
    is the whole board's answer; the steps of ``_charge_local`` give it or leave it to the whole board."""
    plain = after_assault(scenario(tmp_path, {"targets": ["goliath-1"]}), 50)
    pos = tuple(int(p) for p in plain.pos[:, 0])
    alive = tuple(int(a) for a in plain.alive[:, 0])
    world = plain.world
    u = world.index["artanis-1"]
    whole = world.charge_length(pos, alive, "artanis-1", ("marine-1",), engaged_ok=True)
    near = world.models_near_lead(pos, alive, u, 20.0, ("marine-1",))
    assert near is not None and any(world.uids[v] == "goliath-1" for v, _, _ in near)  # Engaged with the Goliath
    assert world._charge_near(pos[u], "artanis-1", ("marine-1",), 20.0, near, (), True) == whole
    for reach in (9.0, 13.0, 20.0):
        local = world._charge_local(pos, alive, "artanis-1", ("marine-1",), reach, (), True, 0.0)
        assert local is None or local == whole, (reach, local, whole)
