"""Lunge declared by an automatic player (issue 29 point 2; scenario/players/reactions.py) and moved by the engine the
maximum possible distance (FAQ v1.0; :meth:`World.toward_end`). Hydralisk (Zerg card sheet): "LUNGE: REACTION 1 BM
When another Friendly Unit Within 10\\" is the target of a Ranged Attack, after the attack is fully resolved, this
Unit, if Unengaged, may perform a Move action Directly Towards the attacking Unit."

Before session 56 the automatic players scored a Lunge as a Move to its full distance and the engine set it there or
nowhere: with a friendly unit at that point the Hydralisks paid 1 BM and stayed ("no room to set hydralisk-1 there").
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Reaction
from tests.autoplay_kit import place
from tests.test_autoplay_reactions_guard import TERRAN, ZERG, _said, _shoot, _sim

LUNGE = Reaction("hydralisk-1", "Lunge", "blue")
#: the Goliath shooting, the Roaches it shoots, the Hydralisks 2.4" (edge to edge) from the Roaches, their second model
#: set west of the Leading Model, the line from it east to the Goliath clear of the Frontier preset's terrain
#: (tests/test_autoplay_reactions_guard.py)
GOLIATH, ROACH, HYDRA = (28.0, 29.0), (10.0, 24.0), (8.0, 29.0)


def _state(sim: Simulation, games: np.ndarray, queen: tuple[float, float]) -> tuple[int, ...]:
    g = place(sim, "goliath-1", GOLIATH, games, ())
    r = place(sim, "roach-1", ROACH, games, (g,))
    h = sim.world.place(sim.scn.units["hydralisk-1"], HYDRA, (-1.0, 0.0), (g, r))
    assert h is not None and sim.world.placements[h].centres[1][0] < HYDRA[0]
    sim.set_pos(sim.uids.index("hydralisk-1"), games, h)
    q = place(sim, "queen-1", queen, games, (g, r, h))
    return g, r, h, q


def _on_the_line(s: float) -> tuple[float, float]:
    """The point ``s`` inches from the Hydralisks' Leading Model straight at the Goliath."""
    d = math.dist(HYDRA, GOLIATH)
    return HYDRA[0] + (GOLIATH[0] - HYDRA[0]) * s / d, HYDRA[1] + (GOLIATH[1] - HYDRA[1]) * s / d


def test_a_declared_lunge_blocked_at_its_full_distance_ends_short_instead_of_staying(tmp_path: Path) -> None:
    """The Queen stands where the Hydralisks' full 4" would end: ``random`` (blue) declares the Lunge in about half of
    40 games; in each of those the Hydralisks end on the line, short of the Queen (:meth:`World.toward_end`), and no
    game reports them unset; in the others they stay."""
    sim = _sim(tmp_path, TERRAN, ZERG, ("random", "random"), 40)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(40)
    g, r, h, q = _state(sim, games, _on_the_line(5.2))
    world, su = sim.world, sim.scn.units["hydralisk-1"]
    full = world.toward(h, 2, g, 1, 4.0)
    assert full is not None and world.place(su, full, world.rear_from(h, full), (g, r, q)) is None  # no room there
    end = world.toward_end(h, 2, g, 1, 4.0, (g, r, q))
    assert end is not None and 0 < math.dist(HYDRA, end) < 4.0 - 1.0
    act = _shoot(sim, "goliath-1", "roach-1", "red")
    parts = blue.react(games, act)
    said = _said(parts)
    lunged = np.asarray(sorted(k for k, v in said.items() if v == (LUNGE,)), dtype=np.int64)
    assert 10 <= lunged.size <= 30, said
    for gs, a in parts:
        sim.activate(a, gs)
    u = sim.uids.index("hydralisk-1")
    leads = [world.placements[int(p)].centres[0] for p in sim.pos[u]]
    assert {leads[i] for i in lunged.tolist()} == {end}
    assert {leads[i] for i in range(40) if i not in set(lunged.tolist())} == {HYDRA}
    assert not any("hydralisk-1" in k for k in sim.skipped), sim.skipped


def test_a_weighted_policy_never_declares_a_lunge_with_nowhere_to_go(tmp_path: Path) -> None:
    """The Queen's base right in front of the Hydralisks' Leading Model on the line: their way is blocked at once, so
    the Lunge can end nowhere (:meth:`World.toward_end` is None) though there is room short of the Goliath
    (:meth:`World.toward`: legal). Its score is 0, so ``aggressive`` and ``objective`` do not declare it."""
    for policy in ("aggressive", "objective"):
        folder = tmp_path / policy
        folder.mkdir()
        sim = _sim(folder, TERRAN, ZERG, ("random", policy), 4)
        blue = sim.players[1]
        assert isinstance(blue, Auto)
        games = np.arange(4)
        r_h, r_q = sim.scn.units["hydralisk-1"].base_mm / 50.8, sim.scn.units["queen-1"].base_mm / 50.8
        g, r, h, q = _state(sim, games, _on_the_line(r_h + r_q + 0.06))
        assert sim.world.toward(h, 2, g, 1, 4.0) is not None
        assert sim.world.toward_end(h, 2, g, 1, 4.0, (g, r, q)) is None
        assert _said(blue.react(games, _shoot(sim, "goliath-1", "roach-1", "red"))) == dict.fromkeys(range(4), ())


def test_the_lunge_follows_an_attack_that_destroys_the_unit_it_answered(tmp_path: Path) -> None:
    """10.4: the trigger ("When another Friendly Unit Within 10\\" is the target of a Ranged Attack") holds as the
    attack is declared; "after the attack is fully resolved" the Hydralisks Move even where it destroyed that unit.
    The Roaches down to one model with 2 Damage, the Goliath's attack with the Lunge declared in 200 games: in each
    game it destroyed them the Hydralisks stand at :meth:`World.toward_end`'s point (before session 56 the trigger was
    read after the attack, and they stayed: "not Within 10\\" of it, one of them not on the table")."""
    sim = _sim(tmp_path, TERRAN, ZERG, ("random", "random"), 200)
    games = np.arange(200)
    g, r, h, q = _state(sim, games, (30.0, 4.0))
    ri = sim.uids.index("roach-1")
    sim.alive[ri, games], sim.mark[ri, games] = 1, 2  # one left, 2 Damage on it: 1 more Damage kills it (3 HP)
    act = _shoot(sim, "goliath-1", "roach-1", "red")
    act = dataclasses.replace(act, react=(LUNGE,))
    sim.ordinal[act] = 7
    end = sim.world.toward_end(h, 2, g, 1, 4.0, (g, r, q))
    assert end is not None
    sim.activate(act, games)
    gone = games[sim.alive[ri, games] == 0]
    assert 20 <= gone.size <= 180, gone.size
    u = sim.uids.index("hydralisk-1")
    assert {sim.world.placements[int(p)].centres[0] for p in sim.pos[u, gone]} == {end}
    assert not [k for k in sim.skipped if "Lunge" in k], sim.skipped
