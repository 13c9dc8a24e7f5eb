"""The Movement tables built ahead from the menus (scenario/players/movetables.py; issue 29 point 6, step 2 of
docs/dev/compiled-game-loop.md) held to the engine and to the plan walk on an empty table, key by key for a sample:

* 8.5.3 "Moving a Unit", step 2 ("set them In Coherency around the Leading Model"), with the plan field ``headings``
  (the rear rounded to 8 compass headings, ``World.rear_from``): the tables' placement at (unit, point, heading) is
  the one the engine's Move sets there (``Movement.move_to``) from a point of that heading, no other unit on the table;
* 8.5.3 (the way at most Speed, not ending on terrain, the unit set there) and 8.5.2: ``MoveTables.move_alone`` is the
  plan walk's verdict on the plain Move or Run with the unit alone on the table;
* 8.5.5 Deploy and 8.3.3 (the opponent's Zone of Influence): the tables' Deploy placement is the engine's, and it is
  legal alone exactly where the engine sets the unit;
* benchmarks/count_move_tables.py's classification on a small run: its counts add up, and no verdict contradicts
  what it says the tables decide alone.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.board.model import EPS
from mathhammer.scenario.geometry.core import nearest_heading
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.movetables import (
    NO_ROOM,
    NOT_BUILT,
    MoveTables,
    build_tables,
    heading_index,
    heading_vectors,
)
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from tests.autoplay_kit import counted, scenario

#: the kit's lists (Marines, Marauders against Zerglings, Roaches: Creep) on Gauntlet, random against random
GAUNTLET = "Gauntlet"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Simulation, Any, MoveTables]:
    scn = scenario(tmp_path_factory.mktemp("tables"), card=GAUNTLET, length=2)
    sim = Simulation(scn, 1, 1)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = auto.legality
    return scn, sim, leg, build_tables(leg)


def test_headings_are_the_worlds() -> None:
    """The plan field ``headings``: each table heading is ``nearest_heading``'s own vector (index 0 north, then
    clockwise), every rear maps to the heading ``nearest_heading`` gives it, and a player's rear (an Entry Edge's
    axis) is one of the 8."""
    vectors = heading_vectors(8)
    assert vectors[0] == (0.0, 1.0) and vectors[2] == (1.0, 0.0) and len(set(vectors)) == 8
    rng = np.random.default_rng(3)
    for _ in range(200):
        rear = (float(rng.normal()), float(rng.normal()))
        assert vectors[heading_index(rear)] == nearest_heading(rear, 8)
    for axis in ((0.0, -1.0), (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)):
        assert vectors[heading_index(axis)] == axis


def test_the_tables_placements_are_the_engines_moves(built: tuple[Any, Simulation, Any, MoveTables]) -> None:
    """8.5.3 step 2 with ``headings``: for a sample of (unit, from point, to point), a fresh one-game Simulation (its
    own World) with the unit alone on the table, its Leading Model at the from point, Moves it to the to point; the
    placement it sets (its models' centres and level) is the tables' at (unit, to point, heading of the from point),
    and where the tables have no room the engine sets none."""
    scn, _sim, _leg, tb = built
    world = _sim.world
    rng = np.random.default_rng(5)
    checked = moved = 0
    for _ in range(60):
        u = int(rng.integers(len(tb.uids)))
        n = int(tb.counts[u])
        i, j = (int(x) for x in rng.integers(n, size=2))
        if not tb.is_move[u, j] or i == j:
            continue
        h = tb.heading_from(u, i, j)
        fresh = Simulation(scn, 1, 1)
        su = fresh.units[u]
        at = (float(tb.points[u, i, 0]), float(tb.points[u, i, 1]))
        start = fresh.world.place(su, at, fresh.world.rear_of(su.player), ())
        if start is None:
            continue
        fresh.set_pos(u, np.array([0]), start)
        act = Activation(where="test", round=1, phase="movement", player=su.player, unit=su.id, action="move",
                         to=tuple(tb.points[u, j].tolist()), headings=8)  # fmt: skip
        assert act.to is not None
        got = fresh.move_to(u, np.array([0]), act.to, act, headings=8)
        want = int(tb.place[u, j, h])
        assert want != NOT_BUILT
        checked += 1
        if want == NO_ROOM:
            assert got.size == 0, (tb.uids[u], act.to, h)
            continue
        assert got.tolist() == [0], (tb.uids[u], act.to, h)
        new = fresh.world.placements[int(fresh.pos[u, 0])]
        assert new.centres == world.placements[want].centres and new.level == world.placements[want].level
        moved += 1
    assert checked >= 20 and moved >= 20, (checked, moved)


def test_move_alone_is_the_walks_verdict(built: tuple[Any, Simulation, Any, MoveTables]) -> None:
    """8.5.2-8.5.3: for each unit, every pair of its points whose straight line is within Speed but whose way round
    the terrain is not, and a sample of the others within its reach, the unit alone on the table (its Leading Model at
    the from point, full strength): the tables' verdict on the plain Move or Run to the to point (``move_alone``: the
    point on the playmat, the way within Speed, room at the heading; ON CREEP as the walk reads it) is the plan walk's
    (``Legality.walked``); admitted, refused for the way round the terrain and refused otherwise all occur."""
    _scn, sim, leg, tb = built
    n = sim.U
    rng = np.random.default_rng(7)
    seen = {"admitted": 0, "around": 0, "refused": 0}
    for u, uid in enumerate(tb.uids):
        su = sim.units[u]
        entry: dict[int, tuple[str, int]] = {}  # point index -> a plain Move or Run entry to it (phase, index)
        for phase in ("assault", "movement"):
            for k, e in enumerate(leg.menus[uid][phase]):
                if e.action in ("move", "run") and not e.use and e.to is not None:
                    entry.setdefault(tb.point_of(u, e.to), (phase, k))
        m = int(tb.counts[u])
        pts = tb.points[u, :m]
        straight = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
        way = tb.way[u, :m, :m]
        speed = float(tb.speeds[u, 0])
        around = np.argwhere((straight <= speed + EPS) & (way > speed + EPS) & np.isfinite(way)).tolist()
        near = np.argwhere((straight <= tb.reach[u] + 1.0) & np.isfinite(way)).tolist()
        picked = around + [near[k] for k in rng.permutation(len(near))[:40].tolist()]
        for i, j in picked:
            at = (float(pts[i, 0]), float(pts[i, 1]))
            start = sim.world.place(su, at, sim.world.rear_of(su.player), ())
            if start is None or j not in entry:
                continue
            state = (*(start if v == u else -1 for v in range(n)), *(s.models for s in sim.units), 0)
            creep = leg.moves.on_creep(sim.world, uid, tuple(state[:n]))
            phase, k = entry[j]
            walked = leg.walked(u, phase, k, state)
            assert tb.move_alone(u, i, j, creep) == walked, (uid, at, tuple(pts[j]))
            if walked:
                seen["admitted"] += 1
            elif [i, j] in around and not creep:
                seen["around"] += 1
            else:
                seen["refused"] += 1
    assert seen["admitted"] > 30 and seen["around"] > 10 and seen["refused"] > 30, seen


def test_the_ways_hold_for_every_speed_up_to_the_reach(built: tuple[Any, Simulation, Any, MoveTables]) -> None:
    """8.5.3 ("No part of a base of the Leading Model can move more than its unit Speed value"): the way length kept
    per (unit, from, to) is at least the straight line, and Inf only where the to point is no Move or Run point."""
    _scn, _sim, _leg, tb = built
    for u in range(len(tb.uids)):
        n = int(tb.counts[u])
        pts = tb.points[u, :n]
        straight = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
        way = tb.way[u, :n, :n]
        assert np.all(np.isfinite(way) == tb.is_move[u, :n][None, :])
        fin = np.isfinite(way)
        assert np.all(way[fin] >= straight[fin] - 1e-9)
        assert math.isfinite(float(tb.reach[u])) and tb.reach[u] >= tb.speeds[u].max()


def test_the_tables_deploys_are_the_engines(built: tuple[Any, Simulation, Any, MoveTables]) -> None:
    """8.5.5 Deploy (and 8.3.3: not ending Within the opponent's Zone of Influence): each Deploy point's placement in
    the tables is the one the engine sets in a fresh game with no other unit on the table, and ``deploy_ok`` holds
    exactly where the engine sets the unit."""
    scn, sim, _leg, tb = built
    world = sim.world
    checked = 0
    for u in range(len(tb.uids)):
        for j in np.flatnonzero(tb.is_deploy[u]).tolist():
            fresh = Simulation(scn, 1, 1)
            fresh.round = 1
            su = fresh.units[u]
            to = (float(tb.points[u, j, 0]), float(tb.points[u, j, 1]))
            act = Activation(where="test", round=1, phase="movement", player=su.player, unit=su.id, action="deploy",
                             to=to)  # fmt: skip
            got = fresh.deploy(u, act, np.array([0]))
            assert (got.size == 1) == (tb.deploy_ok[u, j] == 1), (su.id, to)
            if got.size:
                want = world.placements[int(tb.deploy_place[u, j])]
                assert fresh.world.placements[int(fresh.pos[u, 0])].centres == want.centres
            checked += 1
    assert checked >= 10


def test_the_counters_classification_adds_up(tmp_path: Path) -> None:
    """benchmarks/count_move_tables.py on 3 random games of 2 Rounds (the kit's lists on Gauntlet): every Move, Run
    and Deploy placement set is counted once, as a hit (the tables' placement: no other unit changed it) or a miss
    with its class; every verdict asked is in the tables or a named miss; and no verdict contradicts the tables where
    they decide alone (a point refused on an empty table is refused with other units there; with none near and the
    unit not Engaged, the answer is the tables')."""
    mod = counted("count_move_tables", scenario(tmp_path, card=GAUNTLET, length=2), 3, 11)
    c = mod.count
    assert not [k for k in c if "CONTRADICTION" in k], dict(c)
    for kind in ("placement deploy", "placement move", "placement run"):
        assert c[f"{kind} set"] > 0, kind
        key = c[f"{kind} (a) key in tables"]
        assert c[f"{kind} set"] == key + sum(v for k, v in c.items() if k.startswith(f"{kind} miss: no"))
        changed = sum(v for k, v in c.items() if k.startswith(f"{kind} miss: formation changed"))
        assert key == c[f"{kind} (b) placement is the tables'"] + changed
    for kind in ("verdict deploy", "verdict move", "verdict run"):
        asked = c[f"{kind} asked"]
        assert asked > 0, kind
        keyed = c[f"{kind} (a) key in tables"]
        missed = sum(v for k, v in c.items() if k.startswith(f"{kind} miss: from") or k.startswith(f"{kind} miss: Gr"))
        assert asked == keyed + missed, kind
        changed = sum(v for k, v in c.items() if k.startswith(f"{kind} miss: answer changed"))
        assert keyed == c[f"{kind} (b) answer is the tables' alone"] + changed, kind
    assert (
        c["placement move (b) placement is the tables'"] > 0 and c["verdict move (b) answer is the tables' alone"] > 0
    )
