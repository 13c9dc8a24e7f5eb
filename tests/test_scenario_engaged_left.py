"""Engaged on the models left (7.2.1: "Two units are Engaged while any model of one is Within 1\\" of a model of the
other"; 8.7.4 step 5: "The defending player removes models"): a pair of units Engaged only through models since removed
is not Engaged. The simulation reads its pairs per board on the placements, which hold the models left only (a removed
model leaves the table: ``SimState.trim``); the naive reference here is the World's own pair test on the models left
of the whole placements."""

from __future__ import annotations

import numpy as np

from mathhammer.scenario.geometry.core import Placement
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation

from .scenario_kit import build, skirmish

GAMES = np.arange(4)


def engaged_pair(models_left: list[int]) -> tuple[Simulation, int, int]:
    """marine-1 in a line west to east, its last model (the first removed) at the east end 0.5" from roach-1's Leading
    Model, the others farther than 1" from every Roach; per game of :data:`GAMES`, marine-1's models left."""
    sim = Simulation(build(skirmish("engaged-left"), "engaged-left.toml"), GAMES.size, seed=1)
    m, r = sim.uids.index("marine-1"), sim.uids.index("roach-1")
    rm, rr = (sim.units[v].base_mm / 25.4 / 2 for v in (m, r))
    east = 24.0
    line = (*((10.0 + 1.5 * i, 10.0) for i in range(5)), (east, 10.0))
    x = east + rm + rr + 0.5  # a 0.5" gap: Engaged (Within 1")
    roaches = ((x, 10.0), (x + 2 * rr + 0.3, 10.0), (x + 4 * rr + 0.6, 10.0))
    world = sim.world
    sim.set_pos(m, GAMES, world._intern(Placement("marine-1", line)))
    sim.set_pos(r, GAMES, world._intern(Placement("roach-1", roaches)))
    whole = int(sim.pos[m, 0])
    sim.alive[m, GAMES] = models_left
    sim.trim(m, GAMES)  # the removed models leave the table, as the engine removes them
    return sim, m, r, whole


def test_a_pair_engaged_only_through_removed_models_is_not_engaged() -> None:
    sim, m, r, whole = engaged_pair([6, 5, 6, 1])
    world = sim.world
    naive = [
        world.pair_engaged(whole, int(sim.alive[m, g]), int(sim.pos[r, g]), int(sim.alive[r, g]))
        for g in GAMES.tolist()
    ]
    assert naive == [True, False, True, False]  # the reference: only the east model Engages
    assert sim.engaged_mask(GAMES, m).tolist() == naive
    assert sim.engaged_mask(GAMES, r).tolist() == naive
    pairs = {tuple(ts.tolist()): p for ts, p in sim.engaged_with(GAMES)}
    assert pairs == {(0, 2): frozenset({("marine-1", "roach-1"), ("roach-1", "marine-1")}), (1, 3): frozenset()}


def test_a_unit_whose_engaging_models_were_removed_may_move() -> None:
    """8.5.2 / 8.7.1: an Engaged unit cannot Move; the games where marine-1 lost its east model (1 and 3) move."""
    sim, m, _, _ = engaged_pair([6, 5, 6, 5])
    act = Activation(where="t", round=1, phase="movement", player="red", unit="marine-1", action="move", to=(10, 16))
    start, short = int(sim.pos[m, 0]), int(sim.pos[m, 1])
    sim.move(m, act, GAMES)
    assert sim.skipped == {"t: the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1)": 2}
    assert (sim.pos[m, [0, 2]] == start).all() and (sim.pos[m, [1, 3]] != short).all()


def test_a_unit_engaged_only_through_an_enemy_s_removed_model_may_charge() -> None:
    """8.7.7 "An Unengaged Ground Unit": marine-1's Leading Model 0.5" from roach-1's last model (the first removed);
    where that model was removed (games 1 and 3) marine-1 may Charge zergling-1, 4" north, else it is refused as
    Engaged."""
    sim = Simulation(build(skirmish("engaged-left"), "engaged-left.toml"), GAMES.size, seed=1)
    m, r, z = (sim.uids.index(uid) for uid in ("marine-1", "roach-1", "zergling-1"))
    rm, rr = (sim.units[v].base_mm / 25.4 / 2 for v in (m, r))
    world = sim.world
    marines = tuple((10.0 - 1.5 * i, 10.0) for i in range(6))
    roaches = ((30.0, 30.0), (33.0, 30.0), (10.0 + rm + rr + 0.5, 10.0))
    zerglings = tuple((4.0 + 1.2 * i, 14.0) for i in range(12))
    sim.set_pos(m, GAMES, world._intern(Placement("marine-1", marines)))
    sim.set_pos(r, GAMES, world._intern(Placement("roach-1", roaches)))
    sim.set_pos(z, GAMES, world._intern(Placement("zergling-1", zerglings)))
    sim.alive[r, GAMES] = [3, 2, 3, 2]
    sim.trim(r, GAMES)  # the removed models leave the table, as the engine removes them
    assert sim.engaged_mask(GAMES, m).tolist() == [True, False, True, False]
    act = Activation(
        where="c", round=1, phase="assault", player="red", unit="marine-1", action="charge", targets=("zergling-1",)
    )
    sim.charge(m, act, GAMES, 77)
    assert sim.skipped.get("c: the unit is Engaged: it cannot Charge (8.7.7)") == 2
    moved = sim.pos[m] != sim.pos[m, 0]
    assert not moved[[0, 2]].any()  # refused where Engaged
    assert sum(sim.skipped.values()) - 2 + int(moved.sum()) == 2  # the other two Charged, or fell short (skipped)
