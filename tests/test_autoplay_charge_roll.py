"""The Charge Roll Reactions an automatic player declares on its own Charge (issue 29 point 2;
scenario/players/reactions.py). Overseer (Zerg card sheet): "PNEUMATIZED CARAPACE: REACTION Use after a Friendly Unit
rolls a D6 for Charge Distance. Roll an additional D6 and use the higher result to calculate the total Charge
Distance." Observer (Protoss card sheet): "GRAVITIC BOOSTERS: REACTION Use after a Friendly Unit rolls a D6 for Charge
Distance. Add 1 to the Charge Distance for this Unit." (10.4; 8.7.7; the card Exhausted, 10.5.2.) The engine applies a
Reaction to the roll as declared with the Charge (``cards/charge.py``), so it is declared with the Charge and paid
whether it is needed or not; it is scored by what it adds to P(the Charge reaches) x the Charge's Close Combat
attack, held to the engine within 5 SE, and written in traces that ``scenario check`` accepts and ``scenario run
--game N`` replays."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import OBSERVER, OVERSEER, RED, declared, place, replays
from tests.test_autoplay_reactions_guard import _data, _said, _sim

MARINE = (6.0, 8.0)
#: the chargers' Leading Models: a Charge that may fall short, one that reaches whatever the roll, one that never does
LONG, SHORT, NEVER = (6.0, 18.0), (6.0, 14.0), (6.0, 26.0)
CASES = [(OVERSEER, "zergling-1", "Pneumatized Carapace"), (OBSERVER, "zealot-1", "Gravitic Boosters")]


def _charge(sim: Simulation, unit: str) -> Activation:
    act = Activation("test", 2, "assault", "blue", unit, "charge", targets=("marine-1",))
    sim.ordinal[act] = 7
    return act


@pytest.mark.parametrize(("army", "unit", "name"), CASES)
def test_declared_on_its_own_charge_where_it_adds_to_the_reach(tmp_path: Path, army: str, unit: str, name: str) -> None:
    """``objective`` declares it on the unit's own Charge at the Marines where the roll may fall short (game 0), not
    where the Charge reaches whatever the roll or never does (games 1 and 2: it adds nothing, and costs the card), not
    to the opponent's Charge, and not twice in a Round (the card Exhausted)."""
    sim = _sim(tmp_path, RED, army, ("random", "objective"), 3)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(3)
    m = place(sim, "marine-1", MARINE, games, ())
    for g, at in enumerate((LONG, SHORT, NEVER)):
        place(sim, unit, at, games[[g]], (m,))
    assert [(o.name, sim.uids[o.u]) for o in blue.reactions.options] == [(name, unit)]
    act = _charge(sim, unit)
    rx = Reaction(unit, name, "blue")
    assert _said(blue.react(games, act)) == {0: (rx,), 1: (), 2: ()}
    assert _said(blue.react(games, act)) == {0: (), 1: (), 2: ()}  # Exhausted
    theirs = Activation("test", 2, "assault", "red", "marine-1", "charge", targets=(unit,))
    sim.ordinal[theirs] = 8
    blue.begin(3, "assault", None)
    blue.spending.begin(3)
    assert _said(blue.react(games, theirs)) == {0: (), 1: (), 2: ()}


@pytest.mark.parametrize(("army", "unit", "name"), CASES)
def test_the_row_is_the_reach_it_adds_to_the_charge(tmp_path: Path, army: str, unit: str, name: str) -> None:
    """The row: ``damage``, ``destroy``, ``models`` = (P(the Charge reaches with it) - without) x the Close Combat
    attack at the Marines (exact), ``spend`` 1 (the card's resource); the probability with it held to a naive count of
    the dice (the higher of two D6; one D6 plus 1) from the least face that reaches without it."""
    sim = _sim(tmp_path, RED, army, ("random", "objective"), 1)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(1)
    m = place(sim, "marine-1", MARINE, games, ())
    place(sim, unit, LONG, games, (m,))
    feats = blue.features()
    states, _ = feats.states(games)
    row = blue.reactions._row(blue.reactions.options[0], _charge(sim, unit), states[0])
    u, t = sim.uids.index(unit), sim.uids.index("marine-1")
    k = int(sim.alive[u, 0])
    plain = feats.reaches(u, int(sim.pos[u, 0]), k, int(sim.pos[t, 0]), 6, ())
    boosted = feats.reaches(u, int(sim.pos[u, 0]), k, int(sim.pos[t, 0]), 6, (name,))
    need = round(6 * (1 - plain)) + 1  # the least face that reaches without it
    assert 1 < need <= 6
    naive = 1 - ((need - 1) / 6) ** 2 if name == "Pneumatized Carapace" else (7 - (need - 1)) / 6
    assert boosted == pytest.approx(min(naive, 1.0))
    hit = np.asarray(feats.attack(u, k, t, 6, 0, 0, "combat"))
    np.testing.assert_allclose(row[[COL["damage"], COL["destroy"], COL["models"]]], (boosted - plain) * hit)
    assert row[COL["spend"]] == 1.0


@pytest.mark.parametrize(
    ("army", "unit", "name", "odds"),
    [
        (OBSERVER, "zealot-1", "Gravitic Boosters", (4 / 6, 5 / 6)),
        (OVERSEER, "zergling-1", "Pneumatized Carapace", (4 / 6, 32 / 36)),
    ],
)
def test_the_reach_with_and_without_the_reaction_is_the_engines(
    tmp_path: Path, army: str, unit: str, name: str, odds: tuple[float, float]
) -> None:
    """Held to the engine: 6,000 games of the unit's Charge at the Marines, the Leading Models 10" apart (it needs a 3
    on the die: 8.7.7, Speed + D6 at least the Leading Model's way into 1" of a target model), without and with the
    Reaction, the share that reached within 5 SE of the row's P(reaches): the Zealots 2/3 and 5/6 (one D6 plus 1), the
    Zerglings 2/3 and 1 - (2/6)^2 (the higher of two D6). The Charge is the Leading Model's (8.7.7 step 2: the engine
    moves the placement's first model): the Zerglings' formation stands a model an inch nearer the Marines, which the
    row read as the charger before (5/6 and 35/36 against the engine's 2/3 and 8/9)."""
    n = 6000
    sim = _sim(tmp_path, RED, army, ("random", "objective"), n)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(n)
    m = place(sim, "marine-1", MARINE, games, ())
    place(sim, unit, LONG, games, (m,))
    feats = blue.features()
    u, t = sim.uids.index(unit), sim.uids.index("marine-1")
    at = (u, int(sim.pos[u, 0]), int(sim.alive[u, 0]), int(sim.pos[t, 0]), 6)
    plain, boosted = feats.reaches(*at, ()), feats.reaches(*at, (name,))
    assert (plain, boosted) == pytest.approx(odds)
    act = _charge(sim, unit)
    answered = dataclasses.replace(act, react=(Reaction(unit, name, "blue"),))
    sim.ordinal[answered] = sim.ordinal[act]
    half = n // 2
    for part, a, p in ((games[:half], act, plain), (games[half:], answered, boosted)):
        before = sum(v for key, v in sim.skipped.items() if "Charge Roll too short" in key)
        sim.activate(a, part)
        short = sum(v for key, v in sim.skipped.items() if "Charge Roll too short" in key) - before
        got = 1 - short / part.size
        assert abs(got - p) <= 5 * math.sqrt(p * (1 - p) / part.size), (got, p)


def test_a_trace_with_pneumatized_carapace_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where blue (``aggressive``) declared Pneumatized Carapace on a Charge that reached (found in a batch of 40
    games, then recorded alone): ``scenario check`` accepts its trace, which replays to the same game."""
    table = _data(tmp_path, RED, OVERSEER, "random", "aggressive", length=3)
    scn = parse_scenario(table, "roll.toml", tmp_path)
    seed = 7
    g, played = declared(scn, "Pneumatized Carapace", seed, 40)
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use == "Pneumatized Carapace" for a in trace.plan for rx in a.react)
