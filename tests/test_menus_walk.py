"""A random walk through the menus: Round 1 Deploys and Round 2 Moves and Deploys drawn among the entries legal.py
admits, applied to the Simulation one by one; the plan they make passes ``scenario check`` (the property the issue's
traces rest on: every action an automatic player takes is legal)."""

from __future__ import annotations

import dataclasses
import random
from functools import cache
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer.scenario.check import check_scenario
from mathhammer.scenario.loader import load_scenario
from mathhammer.scenario.players.auto import EntryLegality
from mathhammer.scenario.players.menu import UnitMenu, build_menus
from mathhammer.scenario.players.spending import Spending
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario
from mathhammer.scenario.world import World

ROOT = Path(__file__).resolve().parents[1] / "profiles" / "scenarios"


@cache
def _board(name: str) -> tuple[Scenario, World, dict[str, UnitMenu]]:
    scn = load_scenario(ROOT / name)
    world = World(scn)
    return scn, world, build_menus(scn, world)


def _walk(name: str, rng: random.Random) -> tuple[Scenario, list[Activation]]:
    """Rounds 1 and 2 of the Movement Phase, each player's units in army order (the order ``scenario check`` walks
    a Phase: red's activations, then blue's), each taking a random admitted entry, mostly a Move or Deploy rather
    than a Hold (none where only Pass is left)."""
    scn, world, menus = _board(name)
    sim = Simulation(scn, 1, 7, world=world)
    legs = {p: EntryLegality(sim, menus) for p in PLAYERS}  # with each player's Spending: abilities paid per game
    for p, leg in legs.items():
        leg.spending = Spending(sim, p)
    plan: list[Activation] = []
    game = np.array([0])
    for rnd in (1, 2):
        sim.round = rnd
        sim.new_phase(rnd, "movement")
        for player in PLAYERS:
            leg = legs[player]
            assert leg.spending is not None
            leg.spending.begin(rnd)
            for u, uid in enumerate(sim.uids):
                if sim.units[u].player != player:
                    continue
                entries = menus[uid]["movement"]
                legal = [i for i in np.flatnonzero(leg.mask(u, "movement", game)[0]) if entries[i].action != "pass"]
                if not legal:
                    continue
                moving = [i for i in legal if entries[i].action != "hold"]
                e = entries[rng.choice(moving if moving and rng.random() < 0.8 else legal)]  # mostly a move
                act = e.activation(uid, player, rnd, "movement", where=f"walk[{len(plan)}]")
                sim.ordinal[act] = len(plan)  # its dice stream (slot ordinals for unplanned activations: step 4)
                leg.spending.pay(u, act.use, game)
                sim.activate(act, game)
                plan.append(act)
    return scn, plan


@settings(max_examples=4, deadline=None)
@given(st.sampled_from(["standard_clash.toml", "frontlines_char_plains.toml"]), st.randoms(use_true_random=False))
def test_a_random_walk_of_admitted_entries_passes_the_check(name: str, rng: random.Random) -> None:
    scn, plan = _walk(name, rng)
    assert sum(a.action == "deploy" for a in plan) >= 2
    errs = [p for p in check_scenario(dataclasses.replace(scn, plan=tuple(plan))) if not p.startswith("warning")]
    assert errs == []
