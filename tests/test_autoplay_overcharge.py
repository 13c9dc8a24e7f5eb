"""Photon Overcharge, the card Reaction an automatic player declares to an enemy entering by another table edge (issue
29 point 2; scenario/players/reactions.py). Overcharged Nexus (Protoss card sheet): "PHOTON OVERCHARGE: REACTION Use
when an Enemy Unit enters the battlefield from Reserves via a location other than its own Entry Edge. That Unit
immediately suffers HITS 3 (1)." (10.4; the card Exhausted, 10.5.2.) Legal per game, scored by the exact HITS at the
entering unit (held to the engine within 5 SE), and written in traces that ``scenario check`` accepts and ``scenario
run --game N`` replays."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.trace import record
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import NEXUS, PROXY, place, replays

#: the Marines by the west edge (Armed and Ready: no model Within 10" of an Enemy model) and by their Entry Edge
WEST = dict(to=(2.0, 20.0), use=("Armed and Ready",), edge="west")
NORTH = dict(to=(18.0, 32.7))


def _table(folder: Path, red: str, rounds: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    (folder / "red.toml").write_text(NEXUS)
    (folder / "blue.toml").write_text(PROXY)
    blue: dict[str, Any] = {"army": str(folder / "blue.toml")}
    return {
        "name": "overcharge",
        "first_player": "red",
        "mission": {"card": "Hold Position", "game_length": 2},
        "deployment": {"card": "Frontier"},
        "terrain": "preset:standard",
        "players": {"red": {"army": str(folder / "red.toml"), "policy": red}, "blue": blue},
        "rounds": rounds or [],
    }


def _sim(folder: Path, red: str, games: int) -> Simulation:
    table = _table(folder, red)
    table["players"]["blue"]["policy"] = "random"
    sim = Simulation(parse_scenario(table, "overcharge.toml", folder), games, 3)
    for p in sim.players:
        assert isinstance(p, Auto)
        p.begin(2, "movement", None)
    sim.round = 2
    return sim


def _deploy(sim: Simulation, unit: str, **kw: Any) -> Activation:
    act = Activation("test", 2, "movement", "blue", unit, "deploy", **kw)
    sim.ordinal[act] = 7
    return act


def _said(parts: list[tuple[np.ndarray, Activation]]) -> dict[int, tuple[Reaction, ...]]:
    return {int(g): a.react for gs, a in parts for g in gs}


def test_photon_overcharge_answers_an_entry_by_another_edge_once_a_round(tmp_path: Path) -> None:
    """Declared (``objective``) to the Marines entering by the west edge, written with the player's first unit on the
    table (the Stalkers, else the Zealots: a unit in Reserves uses no abilities, 10.4 / FAQ v1.0), not where no unit of
    the player is on the table, not to a Deploy by the Marines' own Entry Edge, not where the Marines are on the table
    already (nothing enters: game 3, where the second Marines' entry is answered), and not a second time in the Round
    (the card is Exhausted, 10.5.2)."""
    sim = _sim(tmp_path, "objective", 4)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(4)
    s = place(sim, "stalker-1", (18.0, 4.0), games[[0]], ())
    place(sim, "zealot-1", (26.0, 4.0), games[[1, 3]], (s,))
    place(sim, "marine-1", (18.0, 32.0), games[[3]], ())
    assert [(o.name, o.anyone) for o in red.reactions.options] == [("Photon Overcharge", True)]
    west = _deploy(sim, "marine-1", **WEST)
    assert _said(red.react(games, _deploy(sim, "marine-1", **NORTH))) == {0: (), 1: (), 2: (), 3: ()}
    said = _said(red.react(games, west))
    assert said == {
        0: (Reaction("stalker-1", "Photon Overcharge", "red"),),
        1: (Reaction("zealot-1", "Photon Overcharge", "red"),),
        2: (),
        3: (),
    }
    again = _said(red.react(games, _deploy(sim, "marine-2", **WEST)))  # Exhausted in games 0 and 1
    assert again == {0: (), 1: (), 2: (), 3: (Reaction("zealot-1", "Photon Overcharge", "red"),)}


def test_the_row_is_the_exact_hits_held_to_the_engine(tmp_path: Path) -> None:
    """The row: ``damage``, ``destroy``, ``models`` of HITS 3 (1) at the six Marines (3 dice into the Armour Pool,
    Damage 1: the dice the Armour Roll fails, one Damage each, remove a Marine of 2 HP per two), ``spend`` 1 (the
    card's PE, Exhausted); held to a naive binomial (the Marines' Armour) and to the engine: 4,000 games of the Deploy
    with the Reaction, the Marines lost within 5 SE of the row's share."""
    n = 4000
    sim = _sim(tmp_path, "objective", n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(n)
    place(sim, "stalker-1", (18.0, 4.0), games, ())
    o = red.reactions.options[0]
    act = _deploy(sim, "marine-1", **WEST)
    states, _ = red.features().states(games[:1])
    row = red.reactions._row(o, act, states[0])
    m = sim.uids.index("marine-1")
    card = sim.scn.units["marine-1"].unit.card
    fail = (card.armour - 1) / 6.0  # a die below the Armour fails the Armour Roll: 1 Damage, carried model to model
    share = sum(math.comb(3, f) * fail**f * (1 - fail) ** (3 - f) * (f // card.hp) for f in range(4)) / 6.0
    assert row[COL["models"]] == pytest.approx(share)
    assert row[COL["destroy"]] == 0.0  # three dice never remove six Marines
    assert row[COL["spend"]] == 1.0
    answered = Activation(
        "test", 2, "movement", "blue", "marine-1", "deploy", react=(Reaction("stalker-1", o.name, "red"),), **WEST
    )  # type: ignore[arg-type]
    sim.ordinal[answered] = 7
    sim.activate(answered, games)
    entered = games[sim.pos[m] >= 0]
    assert entered.size > n // 2
    lost = (6 - sim.alive[m, entered]) / 6.0
    se = lost.std() / math.sqrt(entered.size)
    assert abs(lost.mean() - share) <= 5 * se, (lost.mean(), share, se)


def test_a_trace_with_photon_overcharge_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where blue (scripted) brings the Marines in by the west edge in Round 2 and red (``objective``) answers
    with Photon Overcharge: the trace holds the ``react`` entry, ``scenario check`` accepts it, and it replays to the
    same game for the same seed and game number."""
    armed = {"unit": "marine-1", "action": "deploy", "to": [2, 20], "use": ["Armed and Ready"], "edge": "west"}
    table = _table(tmp_path, "objective", [{"round": 2, "blue": {"movement": [armed]}}])
    scn = parse_scenario(table, "overcharge.toml", tmp_path)
    seed = 7
    found = None
    for g in range(10):
        played = record(Simulation(scn, 1, seed, offset=g))
        if any(rx.use == "Photon Overcharge" for s in played.steps if not s.void for rx in s.act.react):
            found = g, played
            break
    assert found is not None, "no game of 10 declared Photon Overcharge"
    g, played = found
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use == "Photon Overcharge" for a in trace.plan for rx in a.react)


def test_the_row_at_a_shielded_unit_with_models_lost_is_the_engines_hits(tmp_path: Path) -> None:
    """Photon Overcharge's HITS 3 (1) at Zealots (Shield: rules digest 6, "SHIELDED until ... the first model is
    removed", FAQ v1.0) entering with fewer models than they began with: the row's ``models`` and ``destroy`` are
    those of the engine's own transition for that state (``Shooting._transition``: no SHIELDED model once one is lost),
    whatever the SHIELDED flag says, at every models left and Damage Marker; the last Zealot with 2 Damage on it dies
    where two of the three dice fail the Armour Roll (not where its Shield still counted: never)."""
    from mathhammer.starcraft.model import Batch
    from tests.autoplay_kit import OBSERVER

    table = _table(tmp_path, "objective")
    (tmp_path / "blue.toml").write_text(OBSERVER)
    table["players"]["blue"]["policy"] = "random"
    sim = Simulation(parse_scenario(table, "overcharge.toml", tmp_path), 4, 3)
    red = sim.players[0]
    assert isinstance(red, Auto)
    red.begin(2, "movement", None)
    o = red.reactions.options[0]
    assert o.name == "Photon Overcharge"
    z = sim.uids.index("blue-zealot-1")
    card = sim.scn.units["blue-zealot-1"].unit.card
    assert card.shield > 0 and sim.full[z] == 3
    act = _deploy(sim, "blue-zealot-1", **WEST)
    n = sim.U
    seen = set()
    for k in (1, 2, 3):
        for mark in range(card.hp):
            for shielded in (0, 1):
                state = [0] * (4 * n)
                state[n + z], state[2 * n + z], state[3 * n + z] = k, mark, shielded
                row = red.reactions._row(o, act, tuple(state))
                arr, cdf = sim._transition(
                    (Batch.hits(3, 1, name=o.name),), z, 0, k, mark, shielded, "assault", None, False, 0, 0, False, 0
                )
                p = np.diff(np.concatenate([[0.0], cdf]))
                lost = np.minimum(arr[:, 0], k)
                assert row[COL["models"]] == pytest.approx(float((p * lost).sum()) / 3), (k, mark, shielded)
                assert row[COL["destroy"]] == pytest.approx(float(p[lost >= k].sum())), (k, mark, shielded)
                seen.add(row[COL["destroy"]] > 0)
    fail = (card.armour - 1) / 6.0
    state = [0] * (4 * n)
    state[n + z], state[2 * n + z], state[3 * n + z] = 1, 2, 1
    killed = 3 * fail**2 * (1 - fail) + fail**3  # two failed dice of three: the last 2 HP (4 HP, 2 Damage on it)
    if card.hp == 4:
        assert red.reactions._row(o, act, tuple(state))[COL["destroy"]] == pytest.approx(killed)
    assert seen == {True, False}
