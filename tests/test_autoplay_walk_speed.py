"""The automatic players' plan walk made cheaper, its verdicts the same (scenario/players/legal.py ``_CheckAt``):

* 8.7.3 step 1 TARGET ELIGIBILITY read alone (board/facts.py ``attack_eligible``, ``World.eligible``, the walk's
  ``verdicts_only``): the same answer as the full attack facts' ``eligible`` (``attack_facts``, the naive reference:
  Line of Sight traced for every model pair), on random boards with terrain (Range, LONG RANGE, INDIRECT FIRE,
  PINPOINT, BULKY, HIDDEN and BURROWED, Combat Tags, Indomitable, Engaged units) and in the states of random automatic
  games; the Shoot verdicts with ``verdicts_only`` are the plan check's own;
* 8.5.3 / 8.5.5 the Leading Model's routes kept by their arguments (``World.route``): each kept answer is the route
  computed again;
* 8.9.5 / 10.5.2 every walk starts with every card Ready (the purses copied, not read again).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from mathhammer.board import Model, Unit, load_board
from mathhammer.board.facts import attack_eligible, attack_facts, weapon_facts
from mathhammer.board.model import BoardError
from mathhammer.scenario.players import menucache
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario
from mathhammer.starcraft.loadout import attack_batches
from tests.autoplay_kit import scenario
from tests.test_board_facts import GOLDEN

BOARDS = ("facts_range", "stacked_terrain", "dead_zone", "facts_high_ground", "goliath_marines_wall", "charge_wall")


def _unit(rng: random.Random, uid: str, side: str, centre: tuple[float, float], spread: float) -> Unit:
    models = []
    while len(models) < rng.randint(1, 5):
        m = Model(
            f"{uid}{len(models)}",
            centre[0] + rng.uniform(-spread, spread),
            centre[1] + rng.uniform(-spread, spread),
            base_mm=rng.choice((25.0, 32.0, 40.0)),
            flying=rng.random() < 0.1,
        )
        if all(m.distance(o) > 0 for o in models):
            models.append(m)
    return Unit(uid, side, tuple(models), hidden=rng.random() < 0.1)


def test_eligible_alone_is_the_facts_eligible_on_random_boards() -> None:
    """``attack_eligible`` == ``attack_facts(...).eligible`` for random attacks on the golden boards' terrain (1,200
    attacks: both answers met, refusals by Line of Sight alone met, and a third unit Engaging one side)."""
    rng = random.Random(29)
    seen = {"eligible": 0, "refused": 0, "refused by Range or Line of Sight alone": 0}
    for k in range(1200):
        board = load_board(GOLDEN / f"{BOARDS[k % len(BOARDS)]}.toml")
        a = _unit(rng, "a", "red", (rng.uniform(4, 40), rng.uniform(4, 26)), 3)
        t = _unit(rng, "t", "blue", (rng.uniform(4, 40), rng.uniform(4, 26)), 3)
        units = [a, t]
        if rng.random() < 0.3:  # an enemy next to one of them (8.7.3 step 1: Engaged restrictions)
            near = rng.choice((a, t)).models[0]
            side = "blue" if near.id.startswith("a") else "red"
            units.append(_unit(rng, "e", side, (near.x + rng.uniform(-1.5, 1.5), near.y + 1.3), 0.3))
        if not all(
            m.distance(o) > 0 for i, u in enumerate(units) for v in units[i + 1 :] for m in u.models for o in v.models
        ):
            continue
        try:
            board = replace(board, units=tuple(units))
        except BoardError:  # a base off the table or on a piece it cannot stand on: no board
            continue
        rg = rng.choice((None, 6.0, 12.0, 18.0, 24.0))
        kw = {
            "long_range": rng.choice((None, None, 30.0)),
            "indirect": rng.random() < 0.2,
            "pinpoint": rng.random() < 0.2,
            "bulky": rng.random() < 0.2,
            "target_tags": rng.choice(((), (), ("Hidden",), ("Burrowed",), ("Flying",), ("Ground",))),
            "weapon_target": rng.choice(("All", "All", "Ground", "Flying")),
            "attacker_indomitable": rng.random() < 0.2,
            "target_indomitable": rng.random() < 0.2,
        }
        full = attack_facts(board, "a", "t", rg, **kw)  # type: ignore[arg-type]
        fast = attack_eligible(board, "a", "t", rg, **kw)  # type: ignore[arg-type]
        assert fast == full.eligible, (k, rg, kw, full.refusals)
        seen["eligible" if fast else "refused"] += 1
        alone = len(full.refusals) == 1 and full.refusals[0].startswith("no Visible")
        seen["refused by Range or Line of Sight alone"] += alone
    assert min(seen.values()) > 50, seen


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("attack-eligible"), length=4)


def test_world_eligible_and_the_shoot_verdicts_in_random_games(scn: Scenario) -> None:
    """Before each activation of random automatic games (4 Rounds): for every attacker, enemy target on the table and
    Batch, ``World.eligible`` == ``weapon_facts`` on the state's board (no memo); and every Shoot entry's verdict of
    the legality's walk (``verdicts_only``) == the plan check's full walk (both verdicts met)."""
    sim = Simulation(scn, 4, 17)
    apply = sim.activate
    counts = {"eligible": 0, "refused": 0, "shoot admitted": 0, "shoot refused": 0}

    def judged(act: Activation, games: np.ndarray) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        leg = Legality(sim, auto.legality.menus)
        world = sim.world
        n = sim.U
        for g in games[~sim.over[games]].tolist():
            state = leg.states(np.array([g]))[0][0]
            pos, alive, gone = tuple(state[:n]), tuple(state[n : 2 * n]), int(state[-1])
            on = [u for u in range(n) if pos[u] >= 0 and alive[u] > 0]
            for u in on:
                lo = sim.loadout(u, 0)
                for v in on:
                    if sim.units[v].player == sim.units[u].player:
                        continue
                    tags = tuple(sim.units[v].unit.card.combat_tags)
                    for b in attack_batches(lo, sim.units[v].unit, "assault"):
                        fast = world.eligible(pos, alive, sim.uids[u], sim.uids[v], b.weapon, tags)
                        full = weapon_facts(world.board_for(pos, alive), sim.uids[u], sim.uids[v], b.weapon, tags)
                        assert fast == full.eligible, (g, u, v, b.name, full.refusals)
                        counts["eligible" if fast else "refused"] += 1
            if act.phase != "assault":
                continue
            check = leg.check
            for u, uid in enumerate(sim.uids):
                menu = leg.menus[uid]
                for e in menu["assault"]:
                    if e.action != "shoot" or pos[u] < 0 or alive[u] <= 0:
                        continue
                    whole = e.activation(menu.unit, menu.player, sim.round, "assault")
                    check.verdicts_only = False
                    slow = check.problems_of(whole, list(pos), list(alive), gone)
                    check.verdicts_only = True
                    quick = check.problems_of(whole, list(pos), list(alive), gone)
                    assert bool(quick) == bool(slow), (uid, e.target, g, quick, slow)
                    counts["shoot refused" if slow else "shoot admitted"] += 1
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    assert min(counts.values()) > 0, counts


def test_each_walk_starts_with_every_card_ready(scn: Scenario) -> None:
    """8.9.5 (every card Ready at the start of the Round) and 10.5.2: the legality's walk starts each verdict with the
    purses ``Purse(scn, player)`` gives, whatever an earlier walk Exhausted (its copies of the cards read once)."""
    from mathhammer.scenario.lookup import Purse

    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    check = leg.check
    uid = sim.uids[0]
    menu = leg.menus[uid]
    act = menu["movement"][0].activation(menu.unit, menu.player, 1, "movement")
    check.problems_of(act, [-1] * sim.U, [0] * sim.U, 0)
    for p in PLAYERS:  # as a walk paying for abilities leaves them
        check.purses[p].ready = [False] * len(check.purses[p].names)
    check.problems_of(act, [-1] * sim.U, [0] * sim.U, 0)
    for p in PLAYERS:
        fresh = Purse(scn, p)
        got = check.purses[p]
        assert (got.names, got.cards, got.ready) == (fresh.names, fresh.cards, fresh.ready) and fresh.ready
        assert got is not check._base_purses[p] and got.ready is not check._base_purses[p].ready


def test_kept_routes_are_the_routes_computed_again(scn: Scenario) -> None:
    """8.5.3 "Measure the actual path travelled", 8.5.5 a Deploy from the Entry Edge: every route a random game's walks
    and menus asked (``World.route``, kept by its arguments) equals ``_route`` computed afresh (no memo) on a new World
    of the same board, Deploys and moves both met, some asked more than once."""
    from mathhammer.scenario.geometry import routes as routes_module

    asked: list[tuple[object, tuple[object, ...], object]] = []
    plain = routes_module.Routes.route

    def route(self: Any, *a: Any, **kw: Any) -> Any:
        got = plain(self, *a, **kw)
        asked.append((self, (*a, *sorted(kw.items())), got))
        return got

    routes_module.Routes.route = route  # type: ignore[method-assign]
    menucache.forget()  # the menus built in this game (kept by content, another test's may be there): their routes too
    try:
        Simulation(scn, 6, 5).run()
    finally:
        routes_module.Routes.route = plain  # type: ignore[method-assign]
    fresh = Simulation(scn, 1, 5).world
    deploys = moves = 0
    for world, args, got in asked:
        start, start_level, end, end_level, *kw = args
        k = {"edge": None, "flying": False, "free_climb": False, "radius": 0.0, "through": 0, **dict(kw)}  # type: ignore[arg-type]
        again = fresh._route(
            start, start_level, end, end_level, k["edge"], k["flying"], k["free_climb"], k["radius"], k["through"]
        )
        assert again == got and world.board == fresh.board, (args, got, again)
        deploys += start is None
        moves += start is not None
    assert deploys > 10 and moves > 10 and len({a for _, a, _ in asked}) < len(asked), (deploys, moves)


def test_a_kept_loadout_is_the_walks_own(scn: Scenario) -> None:
    """10.2 (effects of the abilities used last until the end of the Round), 10.5: the legality's ``_loadout_now``
    (kept per unit and ON CREEP where no ability was used on the unit in the walk) is the plan walk's own reading,
    with no ability used and with one used on the unit (then read again, not kept)."""
    from mathhammer.scenario.check import PlanCheck

    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    check = Legality(sim, auto.legality.menus).check
    used = 0
    for uid in sim.uids:
        for creep in (False, True):
            for _ in range(2):
                assert check._loadout_now(uid, creep) == PlanCheck._loadout_now(check, uid, creep)
        names = sorted({a for e in auto.legality.menus[uid].phases.values() for x in e for a in x.use})
        for name in names:
            check.used = {(uid, name): 1}
            assert check._loadout_now(uid) == PlanCheck._loadout_now(check, uid)
            assert check._loadout_now(uid) != check._bare[(uid, False)] or not name
            used += 1
        check.used = {}
    assert used > 0
