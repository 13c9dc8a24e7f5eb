"""Lunge (Hydralisk, a Reaction; issue 6, point 3): "When another Friendly Unit Within 10\" is the target of a Ranged
Attack, after the attack is fully resolved, this Unit, if Unengaged, may perform a Move action Directly Towards the
attacking Unit" (10.4; 8.5.3: a Move does not end Within 1\" of an Enemy Ground Unit).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mathhammer.scenario.geometry.toward import TOWARD_STEP
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import write_armies

RED = army("Terran Armed Forces", ("Marine", 6))
BLUE = army("Kerrigan's Swarm", ("Roach", 3), ("Hydralisk", 2), tactical=("Spawning Pool",))  # 2 BM: Lunge costs 1
LUNGE = {"unit": "hydralisk-1", "use": "Lunge"}


def plan(hydra_x: float, react: list[dict], hydra_y: float = 26) -> list[dict]:
    """The Marines come to (18, 12), the Roaches to (18, 24), the Hydralisks to (``hydra_x``, ``hydra_y``; the second
    model 4" west of the first: 100 mm bases); in Round 3 the
    Marines shoot the Roaches, ``react`` declared on that activation. 8.5.5: each base Deploys within Speed 4" of
    its Entry Edge (Marines 32 mm at 3.3", Roaches 50 mm at 33", the Hydralisks' 40x100 mm oval at 34"), so the
    Marines and the Roaches Run the last 0.7" / 1" in Round 2's Assault Phase and the shot comes in Round 3."""
    shoot: dict = {"unit": "marine-1", "action": "shoot", "targets": ["roach-1"]}
    if react:
        shoot["react"] = react
    x = hydra_x
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 3.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 7.3]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "deploy", "to": [18, 33]},
                               {"unit": "hydralisk-1", "action": "deploy", "to": [x, 34]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 29]},
                              {"unit": "hydralisk-1", "action": "run", "to": [x, 30]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 11.3]}],
                 "assault": [{"unit": "marine-1", "action": "run", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "roach-1", "action": "move", "to": [18, 25]},
                               {"unit": "hydralisk-1", "action": "move", "to": [x, hydra_y]}],
                  "assault": [{"unit": "roach-1", "action": "run", "to": [18, 24]}]}},
        {"round": 3, "red": {"assault": [shoot]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, rounds: list[dict]) -> Scenario:
    return build(skirmish("lunge", armies=write_armies(tmp_path, RED, BLUE), rounds=rounds), "lunge.toml")


def leads(scn: Scenario, n: int = 20) -> tuple[Simulation, set[tuple[float, float]]]:
    sim = Simulation(scn, n, seed=1)
    sim.run()
    h = sim.uids.index("hydralisk-1")
    return sim, {sim.world.placements[p].centres[0] for p in sim.pos[h].tolist()}


def test_lunge_moves_the_hydralisks_at_the_attacker(tmp_path: Path) -> None:
    """The Hydralisks at (24, 26), 4.6" from the Roaches: after the Marines' attack they Move their Speed (4") straight
    at the nearest Marine, in every game; without the Reaction they stay."""
    _, before = leads(scenario(tmp_path, plan(24, [])))
    assert before == {(24.0, 26.0)}
    scn = scenario(tmp_path, plan(24, [LUNGE]))
    assert errors(scn) == []
    sim, after = leads(scn)
    (end,) = after
    m = sim.uids.index("marine-1")
    aim = min(sim.world.placements[int(sim.pos[m, 0])].centres, key=lambda c: math.dist((24, 26), c))
    assert math.dist((24, 26), end) == pytest.approx(4.0)
    assert math.dist(end, aim) == pytest.approx(math.dist((24, 26), aim) - 4.0)


def test_lunge_too_far(tmp_path: Path) -> None:
    """The Hydralisks at (34, 31), more than 10" from the Roaches: not triggered (skip report; ``scenario check``
    says so), they stay."""
    scn = scenario(tmp_path, plan(34, [LUNGE], 31))
    assert any("'roach-1' is not Within 10\" of 'hydralisk-1'" in p for p in errors(scn))
    sim, after = leads(scn)
    assert after == {(34.0, 31.0)}
    assert sum(v for k, v in sim.skipped.items() if "'Lunge' not triggered" in k) == 20


def run_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused_at) -> Simulation:  # type: ignore[no-untyped-def]
    """The scenario with the Lunge, 20 games, the World's setting of the Hydralisks refused where
    ``refused_at(lead)`` (their own planned Deploy, Run and Move never)."""
    scn = scenario(tmp_path, plan(24, [LUNGE]))
    sim = Simulation(scn, 20, seed=1)
    world = sim.world
    planned = {(24.0, 34.0), (24.0, 30.0), (24.0, 26.0)}  # the Hydralisks' own Deploy, Run and Move
    near_lead, place, among = world.place_near_lead, world.place, world.place_among

    def refused(real):  # type: ignore[no-untyped-def]
        def ask(su, lead, *args, **kw):  # type: ignore[no-untyped-def]
            at = tuple(map(float, lead))
            if su.id == "hydralisk-1" and at not in planned and refused_at(at):
                return None
            return real(su, lead, *args, **kw)

        return ask

    monkeypatch.setattr(world, "place_near_lead", refused(near_lead))
    monkeypatch.setattr(world, "place", refused(place))
    monkeypatch.setattr(world, "place_among", refused(among))
    sim.run()
    return sim


def test_a_lunge_whose_full_distance_has_no_room_ends_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FAQ v1.0 (a Directly Towards move: "the maximum possible distance"): where the unit cannot be set at the end of
    its full 4" (refused there, as on a friendly base), the Hydralisks end at the farthest point short of it where they
    can, one step (``TOWARD_STEP``, 0.1") back along the same line; before session 56 they stayed."""
    sim = run_refused(tmp_path, monkeypatch, lambda at: math.dist(at, (24.0, 26.0)) > 4.0 - 1e-6)
    h, m = sim.uids.index("hydralisk-1"), sim.uids.index("marine-1")
    ends = {sim.world.placements[p].centres[0] for p in sim.pos[h].tolist()}
    (end,) = ends
    aim = min(sim.world.placements[int(sim.pos[m, 0])].centres, key=lambda c: math.dist((24, 26), c))
    assert math.dist((24, 26), end) == pytest.approx(4.0 - TOWARD_STEP)
    assert math.dist(end, aim) == pytest.approx(math.dist((24, 26), aim) - math.dist((24, 26), end))  # on the line
    assert not any("Lunge" in k or "no room" in k for k in sim.skipped), sim.skipped


def test_a_lunge_with_nowhere_to_go_names_the_reacting_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the unit can be set at no point of its way (every one refused), the Hydralisks stay, and the skip report,
    keyed by the Marines' Shoot it answers, names the unit and its Lunge (not "the unit": the Marines are not the ones
    set)."""
    sim = run_refused(tmp_path, monkeypatch, lambda at: True)
    h = sim.uids.index("hydralisk-1")
    assert {sim.world.placements[p].centres[0] for p in sim.pos[h].tolist()} == {(24.0, 26.0)}  # they stayed
    lunged = {k.split(": ", 1)[1]: v for k, v in sim.skipped.items() if "Directly Towards" in k}
    why = "hydralisk-1's 'Lunge': no point Directly Towards marine-1 it can move to and be set at (8.5.3, FAQ v1.0)"
    assert lunged == {why: 20}, sim.skipped


def test_a_traced_lunge_is_drawn_in_the_round_picture(tmp_path: Path) -> None:
    """The trace records the Hydralisks' Lunge in the Marines' Shoot (``Step.moved``: another unit the activation
    moved) and the Round's picture draws it as a ``react`` arrow from where their Leading Model stood to where it
    ended, in blue's colour (before session 56 it was not drawn: the Hydralisks stood elsewhere with no line)."""
    from matplotlib.colors import to_hex

    from mathhammer.scenario.players.trace import record, round_figure

    scn = scenario(tmp_path, plan(24, [LUNGE]))
    sim = Simulation(scn, 1, 1)
    game = record(sim)
    (shot,) = [s for s in game.steps if s.act.action == "shoot"]
    h = sim.uids.index("hydralisk-1")
    assert [(t, sim.world.placements[b].centres[0]) for t, b, _ in shot.moved] == [(h, (24.0, 26.0))]
    end = sim.world.placements[shot.moved[0][2]].centres[0]
    fig = round_figure(scn, game, sim.world, 3)
    (arrow,) = [t for t in fig.axes[0].texts if t.get_gid() == "react"]
    assert tuple(arrow.xyann) == (24.0, 26.0) and tuple(arrow.xy) == end
    assert to_hex(arrow.arrow_patch.get_edgecolor()) == "#1f77b4"
