"""Legality of the automatic players' menu entries (scenario/players/legal.py), held to ``scenario check``: an entry
admitted in a game's state passes the check when written into the plan at that point; an entry refused is refused by
the check, with the rule it breaks."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.check import check_scenario
from mathhammer.scenario.loader import load_scenario
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.menu import build_menus
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario

ROOT = Path(__file__).resolve().parents[1] / "profiles" / "scenarios"
#: entries checked against ``scenario check`` per scenario and state (a fixed sample: each is one whole plan check)
SAMPLE = 8
#: units whose menus are judged per state (each a few geometry reads per entry)
UNITS = 4
RULE = re.compile(r"\(?\b(8\.\d|7\.\d|4\.\d|part 11)", re.IGNORECASE)


def _errors(scn: Scenario, plan: tuple[Activation, ...], where: str, warnings: bool = False) -> list[str]:
    """The check's errors (``warnings``: its warnings) about the plan entry at ``where``."""
    scn2 = dataclasses.replace(scn, plan=plan)
    return [p for p in check_scenario(scn2) if p.startswith("warning") == warnings and f": {where} (" in p]


def _sample(items: list, k: int, seed: str) -> list:
    return items if len(items) <= k else random.Random(seed).sample(items, k)


def _judge_all(scn: Scenario, sim: Simulation, leg: Legality, menus, phase: str, before: tuple[Activation, ...],
               actions: set[str], seed: str, units: int | None = UNITS,
               k: int | None = SAMPLE) -> tuple[int, int]:  # fmt: skip
    """``k`` sampled entries of ``actions`` of ``units`` sampled units in game 0 (None: all): admitted <=> the check
    accepts it after ``before``."""
    games = np.arange(sim.T)
    todo = []
    some = [(u, uid) for u, uid in enumerate(sim.uids) if any(e.action in actions for e in menus[uid][phase])]
    for u, uid in some if units is None else _sample(some, units, seed):
        mask = leg.mask(u, phase, games)
        assert (mask == mask[0]).all()  # the games are in one state here: one answer
        for i, e in enumerate(menus[uid][phase]):
            if e.action in actions:
                todo.append((u, i, e, bool(mask[0, i])))
    admitted = refused = 0
    if k is not None:  # half admitted, half refused where there are enough of each (few points are in reach)
        yes, no = [t for t in todo if t[3]], [t for t in todo if not t[3]]
        take = min(len(yes), k // 2)
        todo = _sample(yes, take, seed) + _sample(no, k - take, seed)
    for u, i, e, ok in todo:
        menu = menus[sim.uids[u]]
        act = e.activation(menu.unit, menu.player, sim.round, phase, where="menu-entry")
        errs = _errors(scn, (*before, act), "menu-entry")
        if not ok and not errs:  # 8.3.2: the check reads the plan at full strength, where casualties of the Rounds
            # before may have freed Supply in some games: it warns; the game here has had none, its Supply is short
            errs = [w for w in _errors(scn, (*before, act), "menu-entry", warnings=True) if "Available Supply" in w]
            assert not sim.supply_fits(u, np.array([0]))[0]
        assert ok == (not errs), (e, errs, leg.why(u, phase, 0, i))
        if ok:
            admitted += 1
        else:
            refused += 1
            assert all(RULE.search(m) for m in errs), errs  # the check says which rule
    return admitted, refused


@pytest.mark.parametrize("name", sorted(p.name for p in ROOT.glob("*.toml")))
def test_round_one_deploys_admitted_are_the_ones_check_accepts(name: str) -> None:
    """Round 1, every unit in Reserves: every Deploy entry, as the scenario's whole plan, passes the check iff legal.py
    admits it; the menu's other entries (Move, Hold) are refused (not on the table, 8.5.5)."""
    scn = load_scenario(ROOT / name)
    sim = Simulation(scn, 3, 1)
    sim.round = 1
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    admitted, _ = _judge_all(scn, sim, leg, menus, "movement", (), {"deploy"}, name, units=None, k=None)
    assert admitted >= len(sim.uids)  # a few lanes per unit at least
    for u, uid in enumerate(sim.uids):
        mask = leg.mask(u, "movement", np.arange(3))
        kinds = [e.action for e in menus[uid]["movement"]]
        assert not any(ok for ok, k in zip(mask[0], kinds, strict=True) if k in ("move", "hold"))
        assert mask[0, kinds.index("pass")]


def _round_one_movement(scn: Scenario, sim: Simulation) -> tuple[Activation, ...]:
    """Apply the file's Round 1 Movement activations to every game, in the order ``scenario check`` walks them (red's,
    then blue's), and return them."""
    before = tuple(a for p in PLAYERS for a in scn.activations(1, "movement", p) if a.action != "pass")
    sim.round = 1
    for act in before:
        sim.activate(act, np.arange(sim.T))
    return before


@pytest.mark.parametrize("name", ["standard_clash.toml", "hold_position_crossing.toml"])
def test_after_round_one_movement_assault_entries_match_the_check(name: str) -> None:
    """After the file's Round 1 Movement: Run, Shoot, Charge, Hold entries of Round 1's Assault Phase, admitted <=> the
    check accepts them appended to that plan (refusals: not on the table, out of range or not Visible, too far to
    Charge, a route too long; each names its rule)."""
    scn = load_scenario(ROOT / name)
    sim = Simulation(scn, 2, 1)
    before = _round_one_movement(scn, sim)
    sim.new_phase(1, "assault")  # as play_phase does: nobody has activated in it
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    admitted, refused = _judge_all(scn, sim, leg, menus, "assault", before, {"run", "shoot", "charge", "hold"}, name)
    assert admitted + refused == SAMPLE


@pytest.mark.parametrize("name", ["standard_clash.toml", "frontlines_char_plains.toml"])
def test_round_two_moves_and_deploys_match_the_check(name: str) -> None:
    """Round 2 Movement after Round 1's: Moves of the units on the table and Deploys of those in Reserves (the Supply
    Pool of Round 2; a sample of every unit's), admitted <=> the check accepts them appended to the plan."""
    scn = load_scenario(ROOT / name)
    sim = Simulation(scn, 2, 1)
    before = _round_one_movement(scn, sim)
    sim.round = 2
    sim.new_phase(2, "movement")  # as play_phase does: nobody has activated in it
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    admitted, refused = _judge_all(
        scn, sim, leg, menus, "movement", before, {"move", "deploy"}, name, units=None, k=4 * SAMPLE
    )
    assert admitted >= 1 and refused >= 1
    marine = sim.uids.index("marine-1")  # on the table: some points in reach, most not (8.5.3: Speed)
    kinds = np.asarray([e.action for e in menus["marine-1"]["movement"]])
    row = leg.mask(marine, "movement", np.arange(2))[0]
    assert row[kinds == "move"].any() and not row[kinds == "move"].all()
    assert not row[kinds == "deploy"].any()  # already on the table (8.5.5)


def test_a_unit_that_activated_has_only_pass() -> None:
    """8.4.1: one activation per unit and Phase."""
    scn = load_scenario(ROOT / "standard_clash.toml")
    sim = Simulation(scn, 2, 1)
    _round_one_movement(scn, sim)
    sim.round = 1
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    on = next(u for u in range(sim.U) if sim.pos[u, 0] >= 0)
    uid = sim.uids[on]
    sim.new_phase(1, "assault")
    sim.acted[on, 0] = True  # it activated in game 0 (an unplanned activation has no dice stream yet: step 4)
    mask = leg.mask(on, "assault", np.arange(2))
    kinds = [e.action for e in menus[uid]["assault"]]
    assert mask[0].tolist() == [k == "pass" for k in kinds]
    assert mask[1].sum() > 1  # game 1: it has not activated


def test_deploy_needs_available_supply_per_game() -> None:
    """8.3.2: a Deploy whose unit's Supply exceeds the Available Supply of the game is refused in that game only."""
    scn = load_scenario(ROOT / "standard_clash.toml")
    sim = Simulation(scn, 2, 1)
    sim.round = 1
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    pool = scn.mission.supply_pool(1)
    assert pool is not None
    red = [u for u in range(sim.U) if sim.units[u].player == "red"]
    # in game 0, fill red's Supply Pool by setting units on the table in turn
    placed = 0
    for u in red:
        uid = sim.uids[u]
        mask = leg.mask(u, "movement", np.array([0]))
        i = next((i for i, e in enumerate(menus[uid]["movement"]) if e.action == "deploy" and mask[0, i]), None)
        if i is None:
            assert not sim.supply_fits(u, np.array([0]))[0]  # refused only for want of Supply
            break
        act = menus[uid]["movement"][i].activation(uid, "red", 1, "movement")
        sim.ordinal[act] = 1000 + placed  # its dice stream (slot ordinals for unplanned activations: step 4)
        sim.activate(act, np.array([0]))
        placed += 1
    else:
        raise AssertionError("a Deploy admitted for every red unit: red's army is over the Round 1 Supply Pool")
    assert placed >= 1
    left = next(u for u in red if sim.pos[u, 0] < 0)
    mask = leg.mask(left, "movement", np.arange(2))
    kinds = np.asarray([e.action for e in menus[sim.uids[left]]["movement"]])
    assert not mask[0, kinds == "deploy"].any() and mask[1, kinds == "deploy"].any()


def test_each_game_is_judged_in_its_own_state() -> None:
    """Games in different states get their own answers: after Round 1's Deploys no enemy is in range (game 0); in
    game 1 a blue unit stands 6" in front of marine-1, which may shoot it there (8.7.3: in range and Visible), and a
    destroyed one (its placement cleared, as the Simulation does) is no target."""
    scn = load_scenario(ROOT / "standard_clash.toml")
    sim = Simulation(scn, 3, 1)
    _round_one_movement(scn, sim)
    sim.new_phase(1, "assault")
    menus = build_menus(scn, sim.world)
    leg = Legality(sim, menus)
    red = sim.uids.index("marine-1")
    blue = next(u for u in range(sim.U) if sim.units[u].player == "blue" and sim.pos[u, 0] >= 0)
    x, y = sim.world.placements[sim.pos[red, 0]].centres[0]
    occupied = tuple(int(p) for v, p in enumerate(sim.pos[:, 1]) if v != blue and p >= 0)
    pid = sim.world.place(sim.units[blue], (x, y + 6.0), sim.world.rear_of("blue"), occupied)
    assert pid is not None
    sim.set_pos(blue, np.array([1, 2]), pid)
    sim.alive[blue, 2] = 0
    sim.pos[blue, 2] = -1
    i = next(
        i for i, e in enumerate(menus["marine-1"]["assault"]) if e.target == sim.uids[blue] and e.action == "shoot"
    )
    mask = leg.mask(red, "assault", np.arange(3))
    assert mask[:, i].tolist() == [False, True, False]
    assert "not on the table" in " ".join(leg.why(red, "assault", 2, i))
    assert leg.why(red, "assault", 0, i) and not leg.why(red, "assault", 1, i)
    # the shortcuts (a Charge or a Move past what any path allows) agree with the check's own walk (``why``: no
    # shortcut): every Charge and Run entry of marine-1, in both states
    entries = menus["marine-1"]["assault"]
    for g in (0, 1):
        for j, e in enumerate(entries):
            if e.action in ("charge", "run"):
                assert mask[g, j] == (not leg.why(red, "assault", g, j)), (g, e)
    c = next(j for j, e in enumerate(entries) if e.target == sim.uids[blue] and e.action == "charge")
    assert mask[:, c].tolist() == [False, True, False]  # 8.7.7: 6" away, Speed 4 + 6 reaches it
