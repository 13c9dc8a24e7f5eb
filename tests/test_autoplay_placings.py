"""The Deploy refusals read for many states at once (scenario/players/placings.py, legal.py's ``Legality.rows``) held
to the World and to the plan walk: in the states of random games on every deployment card's every terrain preset, a
Deploy entry (8.5.5) is refused in one pass exactly where ``World.place`` cannot set the unit at its point (8.5.3 step
2: off the table, on terrain, over a base, Within 1" of an Enemy Ground unit) or the point is over a terrain top, and
the plan walk refuses every entry refused so and admits every entry admitted so (the World can set it, its point, length
and spots clear of the walk's other reads: 8.3.3, 8.5.5); the legality's masks and the games are the same with and
without it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation
from tests.autoplay_kit import data, masks_alike

ROOT = Path(__file__).resolve().parents[1]
CARDS = [
    (d["name"], p["name"])
    for d in tomllib.loads((ROOT / "profiles" / "missions.toml").read_text())["deployments"]
    for p in d["presets"]
]


def _compare(sim: Simulation, counts: dict[str, int]) -> None:
    """Before each Movement activation of ``sim``: every Deploy entry of every unit in Reserves, in each live game's
    state, refused in one pass (``DeployRefusals.judged`` of all the states at once) == ``World.place`` cannot set it
    (an arrival: its models out of the opponent's Zone of Influence, 8.3.3) or its point is over a terrain top; each
    refused entry refused by the plan walk too, each admitted entry admitted by it."""
    apply = sim.activate

    def judged(act: Activation, games: np.ndarray) -> None:
        if act.phase == "movement":
            auto = sim.players[PLAYERS.index(act.player)]
            assert isinstance(auto, Auto)
            leg = Legality(sim, auto.legality.menus)  # fresh: no memo
            live = games[~sim.over[games]]
            table, _ = leg.states(live)
            n = sim.U
            for u, uid in enumerate(sim.uids):
                off = [s for s in table if s[u] < 0 or s[n + u] <= 0]
                if not off:
                    continue
                menu = leg.menus[uid]
                idx, refused, admitted = leg.deploys.judged(u, "movement", off)
                assert sorted(idx.tolist()) == [
                    i for i, e in enumerate(menu["movement"]) if e.action == "deploy" and not e.use
                ]
                su = sim.scn.units[uid]
                zoned = leg.deploys._grid(u, "movement", int(off[0][2 * n]))[5]  # a grid spot Within the zone
                for state, row, yes_row in zip(off, refused, admitted, strict=True):
                    world = leg.check.grass.worlds.world_for(int(state[2 * n]))
                    occupied = tuple(
                        p
                        for v, (p, k) in enumerate(zip(state[:n], state[n : 2 * n], strict=True))
                        if v != u and p >= 0 and k > 0
                    )
                    for k, (i, no, yes) in enumerate(zip(idx.tolist(), row.tolist(), yes_row.tolist(), strict=True)):
                        e = menu["movement"][i]
                        assert e.to is not None
                        zone = world.arrival_zone(su.player)  # 8.3.3: an arrival's models out of the zone
                        pid = world.place(su, e.to, world.rear_of(su.player), occupied, on=None, arriving=zone)
                        cannot = pid is None or world.level_at(e.to) is not None
                        if not no and cannot and zoned[k] and not yes:
                            # the grid out of the zone failed: the World chained the models (``Placing._chain``),
                            # which the one pass does not read: left to the walk
                            counts["left"] += 1
                            continue
                        assert no == cannot, (uid, e, state)
                        counts["refused" if no else "set"] += 1
                        if no or yes:
                            whole = e.activation(menu.unit, menu.player, sim.round, "movement")
                            errors = leg.check.problems_of(whole, list(state[:n]), list(state[n : 2 * n]), state[2 * n])
                            assert bool(errors) == no, (uid, e, state, "judged in one pass, not as the walk")
                            counts["admitted"] += yes
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()


@pytest.mark.parametrize(("card", "preset"), CARDS)
def test_deploys_refused_at_once_are_the_worlds_and_the_walks(tmp_path: Path, card: str, preset: str) -> None:
    """8.5.5 / 8.5.3: the one-pass Deploy refusals and admissions (8.3.3: the models set out of the opponent's Zone of
    Influence, the Leading Model's point out of it; 8.5.5: the length at most Speed) in the states of two random games
    (2 Rounds) of the two-unit lists on ``card``'s ``preset``; both answers occur."""
    table: dict[str, Any] = data(tmp_path, length=2)
    table["deployment"] = {"card": card}
    table["terrain"] = f"preset:{preset}"
    scn = parse_scenario(table, "two.toml", tmp_path)
    counts = {"refused": 0, "set": 0, "admitted": 0, "left": 0}
    _compare(Simulation(scn, 2, 5), counts)
    assert counts["set"] > 0 and counts["refused"] > 0 and counts["admitted"] > 0, counts


def test_deploys_refused_at_once_six_units_a_side(tmp_path: Path) -> None:
    """The issue's lists (terran_six against zerg_six, Gauntlet, Hold Position): the same in two random games of 2
    Rounds, many states at once."""
    table: dict[str, Any] = data(tmp_path, length=2)
    table["deployment"] = {"card": "Gauntlet"}
    table["players"]["red"]["army"] = str(ROOT / "profiles" / "armies" / "terran_six.toml")
    table["players"]["blue"]["army"] = str(ROOT / "profiles" / "armies" / "zerg_six.toml")
    scn = parse_scenario(table, "six.toml", tmp_path)
    counts = {"refused": 0, "set": 0, "admitted": 0, "left": 0}
    _compare(Simulation(scn, 3, 11), counts)
    assert counts["set"] > 20 and counts["refused"] > 20 and counts["admitted"] > 20, counts


def test_the_legality_is_the_same_without_the_one_pass_refusals(tmp_path: Path) -> None:
    """``Legality.mask`` with the one-pass Deploy refusals == with them switched off (every Deploy judged by the walk),
    before each activation of two random games of 2 Rounds (the issue's lists)."""
    table: dict[str, Any] = data(tmp_path, length=2)
    table["deployment"] = {"card": "Gauntlet"}
    table["players"]["red"]["army"] = str(ROOT / "profiles" / "armies" / "terran_six.toml")
    table["players"]["blue"]["army"] = str(ROOT / "profiles" / "armies" / "zerg_six.toml")
    scn = parse_scenario(table, "six.toml", tmp_path)

    def switch_off(leg: Legality) -> None:
        leg._refuse_deploys = lambda *a: None  # type: ignore[method-assign]

    assert masks_alike(Simulation(scn, 2, 13), switch_off) > 50


@pytest.mark.parametrize("card", ["Frontier", "Gauntlet", "Breach"])
def test_deploys_refused_at_once_among_bases_set_at_random(tmp_path: Path, card: str) -> None:
    """8.5.3 step 2 (no base over another; "cannot end Within 1" (Engagement Range) of an Enemy Ground Unit"): 300
    states with the other units set at random points near the deploying player's Entry Edge (where the Deploys end),
    all read in one pass per unit == ``World.place`` per state and entry, each admitted one admitted by the walk; each
    reason occurs (an enemy base Within 1", a friendly base in the way, room, admitted)."""
    table: dict[str, Any] = data(tmp_path, length=2)
    table["deployment"] = {"card": card}
    table["players"]["red"]["army"] = str(ROOT / "profiles" / "armies" / "terran_six.toml")
    table["players"]["blue"]["army"] = str(ROOT / "profiles" / "armies" / "zerg_six.toml")
    scn = parse_scenario(table, "six.toml", tmp_path)
    sim = Simulation(scn, 1, 3)
    world, n = sim.world, sim.U
    rng = np.random.default_rng(17)
    reasons = {"enemy": 0, "friend": 0, "set": 0, "admitted": 0}
    for u, uid in enumerate(sim.uids):
        auto = sim.players[PLAYERS.index(scn.units[uid].player)]
        assert isinstance(auto, Auto)
        leg = Legality(sim, auto.legality.menus)
        su = scn.units[uid]
        points = [e.to for e in leg.menus[uid]["movement"] if e.action == "deploy" and e.to is not None]
        if not points:
            continue
        states = []
        for _ in range(300 // n):
            pos, alive = [-1] * n, [0] * n
            for v, vid in enumerate(sim.uids):
                if v == u or rng.random() < 0.4:
                    continue
                near = points[int(rng.integers(len(points)))]
                at = (near[0] + float(rng.normal(0, 3)), near[1] + float(rng.normal(0, 3)))
                others = tuple(p for p in pos if p >= 0)
                pid = world.place(scn.units[vid], at, world.rear_of(scn.units[vid].player), others)
                if pid is not None:
                    pos[v], alive[v] = pid, int(rng.integers(1, scn.units[vid].models + 1))
            states.append((*pos, *alive, 0))
        idx, refused, admitted = leg.deploys.judged(u, "movement", states)
        zoned = leg.deploys._grid(u, "movement", 0)[5]  # a grid spot Within the opponent's zone
        zone = world.arrival_zone(su.player)  # 8.3.3: an arrival's models out of the zone
        menu = leg.menus[uid]
        for state, row, yes_row in zip(states, refused, admitted, strict=True):
            occupied = tuple(p for v, p in enumerate(state[:n]) if v != u and p >= 0)
            for k, (i, no, yes) in enumerate(zip(idx.tolist(), row.tolist(), yes_row.tolist(), strict=True)):
                to = menu["movement"][i].to
                assert to is not None
                pid = world.place(su, to, world.rear_of(su.player), occupied, on=None, arriving=zone)
                cannot = pid is None or world.level_at(to) is not None
                if not no and not yes and cannot and zoned[k]:
                    continue  # the grid out of the zone failed: the World's chain, left to the walk
                assert no == cannot, (uid, to, state)
                if yes:  # admitted in one pass: the walk admits it (8.3.3, 8.5.5 read as the walk reads them)
                    whole = menu["movement"][i].activation(menu.unit, menu.player, 1, "movement")
                    assert not leg.check.problems_of(whole, list(state[:n]), list(state[n : 2 * n]), 0), (uid, to)
                    reasons["admitted"] += 1
                if not no:
                    reasons["set"] += 1
                    continue
                if world.place(su, to, world.rear_of(su.player), (), on=None, arriving=zone) is None:
                    continue  # refused by the table or terrain alone
                foes = tuple(p for p in occupied if scn.units[world.placements[p].unit].player != su.player)
                enemy = not su.flying and world.place(su, to, world.rear_of(su.player), foes, on=None) is None
                reasons["enemy" if enemy else "friend"] += 1
    assert min(reasons.values()) > 5, reasons


def _grid_order_naive(models: int, step: float, back: tuple[float, float], first: int) -> list[tuple[float, float]]:
    """``Placing._grid_order`` as it was written before its frame order was kept (sorted afresh per direction)."""
    import math

    bx, by = back
    lx, ly = -by, bx
    cands = []
    rings = math.ceil(math.sqrt(models)) + 3
    for i in range(-rings, rings + 1):
        for j in range(-rings, rings + 1):
            if (i == 0 and j == 0) or abs(i + j) > rings:
                continue
            lat = step * (i + 0.5 * j)
            fwd = step * (math.sqrt(3) / 2) * j
            score = math.hypot(lat, fwd) + 0.6 * max(0.0, fwd)
            tie = (round(score, 6), round(-first * lat, 6), round(fwd, 6))
            cands.append((tie, (lat * lx - fwd * bx, lat * ly - fwd * by)))
    cands.sort(key=lambda c: c[0])
    return [d for _, d in cands]


def test_the_grid_order_kept_per_frame_is_the_order_sorted_afresh(tmp_path: Path) -> None:
    """8.5.3 step 2 (the models set around the Leading Model): the grid order of 400 random units, spacings,
    directions and points, read through the frame order kept per (models, spacing, side) == sorted afresh, float for
    float."""
    scn = parse_scenario(data(tmp_path, length=2), "two.toml", tmp_path)
    world = Simulation(scn, 1, 3).world
    rng = np.random.default_rng(23)
    for _ in range(400):
        models = int(rng.integers(1, 21))
        step = float(rng.choice([0.63, 0.73, 0.98, 1.28, 1.6])) * 2 + 0.1
        a = float(rng.uniform(0, 2 * np.pi))
        back = (float(np.cos(a)), float(np.sin(a)))
        lead = (float(rng.uniform(0, 44)), float(rng.uniform(0, 30)))
        player = str(rng.choice(["red", "blue"]))
        first = world._lateral_first(lead, back, player)
        assert world._grid_order(models, step, back, lead, player) == _grid_order_naive(models, step, back, first)
