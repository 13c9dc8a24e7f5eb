"""Debilitating Saliva, the DEBUFF an automatic player gives an attacking Enemy Unit, and Restoration of it on the
player's own Ranged Attack (issue 29 point 2; scenario/players/reactions.py). Vile (Roach) (Zerg card sheet):
"DEBILITATING SALIVA: REACTION 1 BM Use when an Enemy Unit Within 8\\" of this Unit declares a Ranged Attack. Apply
DEBUFF Hit (1) to each of that Unit's Ranged Weapons." Medic (Terran card sheet): "RESTORATION: REACTION 1 CP Use when
a Friendly Unit Within 4\\" receives a DEBUFF. Remove all DEBUFFS from it." (10.4.) Each legal per game, scored by the
exact share of models the DEBUFF saves (or gives back), held to the engine within 5 SE, and written in traces that
``scenario check`` accepts and ``scenario run --game N`` replays."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.policies import Weighted
from mathhammer.scenario.players.reactions import debuff_name
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import VILE, declared, place, replays
from tests.test_autoplay_reactions_guard import HYDRA, MEDIC, TARGET, TERRAN, _data, _said, _shoot, _sim

SALIVA = Reaction("vile-1", "Debilitating Saliva", "blue")
RESTORATION = Reaction("medic-1", "Restoration", "red")
FAR = (30.0, 30.0)  # the Vile Roaches out of 8" of the Marines


class Gains(Weighted):
    """A policy weighing the attack's columns heavily (Restoration's row: what the Marines' attack gets back)."""

    weights: ClassVar[dict[str, float]] = {"damage": 10.0, "models": 10.0, "threat": -1.0, "spend": -0.05}


def _state(sim: Simulation, games: np.ndarray, vile: tuple[float, float]) -> None:
    m = place(sim, "marine-1", TARGET, games, ())
    d = place(sim, "medic-1", MEDIC, games, (m,))
    place(sim, "vile-1", vile, games, (m, d))


def test_saliva_is_declared_at_an_attacker_within_8_once_a_round_where_paid(tmp_path: Path) -> None:
    """Blue (``cautious``) declares it to the Marines' Ranged Attack at the Vile Roaches where the Marines stand
    Within 8" of them (game 0), not where the Roaches are far off (game 1: no trigger), not where the game's Ready
    cards are Exhausted (game 2: 1 BM unpaid, 10.5.1), and not a second time in the Round."""
    sim = _sim(tmp_path, TERRAN, VILE, ("cautious", "cautious"), 3)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(3)
    _state(sim, games[[0, 2]], HYDRA)
    _state(sim, games[[1]], FAR)
    blue.spending.out[2] = (1 << len(blue.spending.purse.names)) - 1
    act = _shoot(sim, "marine-1", "vile-1", "red")
    assert _said(blue.react(games, act)) == {0: (SALIVA,), 1: (), 2: ()}
    assert _said(blue.react(games, act)) == {0: (), 1: (), 2: ()}  # once per Round


def _held(sim: Simulation, act: Activation, answered: Activation, t: str, shares: tuple[float, float]) -> None:
    """``act`` applied in the first half of the games and ``answered`` in the other: the share of ``t``'s models lost
    in each within 5 SE of ``shares``."""
    games = np.arange(sim.T)
    half = sim.T // 2
    sim.ordinal[answered] = sim.ordinal[act]
    sim.activate(act, games[:half])
    sim.activate(answered, games[half:])
    u = sim.uids.index(t)
    full = sim.full[u]
    for part, share in ((games[:half], shares[0]), (games[half:], shares[1])):
        lost = (full - sim.alive[u, part]) / full
        se = lost.std() / math.sqrt(part.size)
        assert abs(lost.mean() - share) <= 5 * se + 1e-9, (lost.mean(), share, se)


def test_the_saliva_row_is_the_share_it_saves_held_to_the_engine(tmp_path: Path) -> None:
    """Its row: ``threat`` = -(the exact share of the Vile Roaches' models the Marines' attack removes less that with
    DEBUFF Hit (1) on the Marines' Ranged Weapons) x their full Supply, ``spend`` 1 (1 BM); held to the engine: 6,000
    games of the attack without and with the Reaction, the Roaches' models lost within 5 SE of the two shares."""
    n = 6000
    sim = _sim(tmp_path, TERRAN, VILE, ("cautious", "cautious"), n)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    _state(sim, np.arange(n), HYDRA)
    feats = blue.features()
    states, _ = feats.states(np.arange(1))
    o = next(o for o in blue.reactions.options if o.name == "Debilitating Saliva")
    act = _shoot(sim, "marine-1", "vile-1", "red")
    row = blue.reactions._row(o, act, states[0])
    m, v = sim.uids.index("marine-1"), sim.uids.index("vile-1")
    plain = feats.attack(m, 6, v, 3, 0, 0, "assault")[2]
    slowed = feats.attack(m, 6, v, 3, 0, 0, "assault", (debuff_name(sim, "vile-1", o.name),))[2]
    worth = float(sim.supply(v, np.asarray([3]))[0])
    assert plain - slowed > 0.01
    assert row[COL["threat"]] == pytest.approx(-(plain - slowed) * worth)
    assert row[COL["spend"]] == 1.0
    _held(sim, act, dataclasses.replace(act, react=(SALIVA,)), "vile-1", (plain, slowed))


def test_restoration_gives_the_attack_back_on_its_own_shot(tmp_path: Path) -> None:
    """Red's Marines shoot and blue answers with Debilitating Saliva: red (a policy weighing the attack) declares
    Restoration on its own Ranged Attack where the Medics stand Within 4" of the Marines; its row is the Marines'
    attack columns without the DEBUFF less with it (exact). Held to the engine: with the two Reactions the Roaches lose
    the share of the plain attack (the DEBUFF removed), within 5 SE. Not declared where no DEBUFF was given."""
    n = 6000
    sim = _sim(tmp_path, TERRAN, VILE, ("cautious", "cautious"), n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    red.policy = Gains()
    games = np.arange(n)
    _state(sim, games, HYDRA)
    act = _shoot(sim, "marine-1", "vile-1", "red")
    salivated = dataclasses.replace(act, react=(SALIVA,))
    sim.ordinal[salivated] = sim.ordinal[act]
    assert _said(red.react(games[:2], act)) == {0: (), 1: ()}
    assert _said(red.react(games[:2], salivated)) == {0: (SALIVA, RESTORATION), 1: (SALIVA, RESTORATION)}
    feats = red.features()
    states, _ = feats.states(games[:1])
    o = next(o for o in red.reactions.options if o.name == "Restoration")
    row = red.reactions._row(o, salivated, states[0])
    m, v = sim.uids.index("marine-1"), sim.uids.index("vile-1")
    plain = np.asarray(feats.attack(m, 6, v, 3, 0, 0, "assault"))
    slowed = np.asarray(feats.attack(m, 6, v, 3, 0, 0, "assault", (debuff_name(sim, "vile-1", SALIVA.use),)))
    np.testing.assert_allclose(row[[COL["damage"], COL["destroy"], COL["models"]]], plain - slowed)
    assert row[COL["spend"]] == 1.0
    both = dataclasses.replace(act, react=(SALIVA, RESTORATION))
    _held(sim, salivated, both, "vile-1", (slowed[2], plain[2]))


def test_a_trace_with_saliva_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where blue (``random``) declared Debilitating Saliva (found in a batch of 40 games, then recorded
    alone): ``scenario check`` accepts its trace, which replays to the same game for the same seed and game number."""
    table = _data(tmp_path, TERRAN, VILE, "random", "random", length=3)
    scn = parse_scenario(table, "saliva.toml", tmp_path)
    seed = 7
    g, played = declared(scn, "Debilitating Saliva", seed, 40)
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use == "Debilitating Saliva" for a in trace.plan for rx in a.react)
