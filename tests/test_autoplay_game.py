"""Whole games with two automatic (random) players (scenario/players/auto.py, policies.py): every Round is played,
every activation taken is an entry legal.py admits in that game's state, and a game's choices depend on (seed, game
number) only: the same for any grouping, any offset and any number of workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import parallel, simulate
from mathhammer.scenario.players.auto import SLOT_BASE, Auto, EntryLegality
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario
from tests.autoplay_kit import judged as judge
from tests.autoplay_kit import scenario


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("autoplay"), length=2)


def test_random_players_play_every_round_taking_only_admitted_entries(scn: Scenario) -> None:
    """Each automatic activation, before it is applied, is judged again by a fresh Legality (no memo) in the games it is
    applied to: its entry is admitted in every one of them; and the one-entry answers the random policy reads
    (EntryLegality.admits, fresh too) are the mask's columns for every entry of that unit."""
    sim = Simulation(scn, 4, 11)
    players = sim.players
    assert all(isinstance(p, Auto) for p in players)
    taken: list[tuple[Activation, np.ndarray]] = []
    apply = sim.activate

    def judged(act: Activation, games: np.ndarray) -> None:
        assert ".auto[" in act.where and sim.ordinal[act] >= SLOT_BASE  # an unplanned slot, outside the plan's range
        assert act.where.endswith(f"] ({act.unit} {act.action})"), act.where  # the skip report names unit and action
        live, mask, cols, u = judge(sim, act, games)
        assert any(mask[:, i].all() for i in cols), act
        menus = players[PLAYERS.index(act.player)]._menus
        assert menus is not None
        entries = menus[act.unit][act.phase]
        one = EntryLegality(sim, menus)
        assert all(np.array_equal(one.admits(u, act.phase, i, live), mask[:, i]) for i in range(len(entries))), act
        taken.append((act, live))
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    length = scn.mission.game_length
    assert len(sim.snapshots) == length  # every Round scored
    assert sim.round == length
    actions = {a.action for a, _ in taken}
    assert "deploy" in actions and actions & {"move", "run", "hold", "shoot", "charge"}
    came = {(a.player, int(g)) for a, games in taken if a.action == "deploy" for g in games}
    assert came == {(p, g) for p in PLAYERS for g in range(sim.T)}  # both lists came on in every game
    assert (sim.vp >= 0).all() and sim.vp.sum() > 0  # markers scored
    last = sim.snapshots[-1]
    assert set(last) >= {"vp", "alive"}


def test_the_same_seed_plays_the_same_games_for_any_workers(monkeypatch: pytest.MonkeyPatch, scn: Scenario) -> None:
    """Serial, and 2 forked workers (a 1-game pilot, then two blocks): the same arrays; another seed other games."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "PILOT", 1)
    one = simulate(scn, trials=3, seed=5, workers=1)
    two = simulate(scn, trials=3, seed=5, workers=2)
    for a, b in zip(one.rounds, two.rounds, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    assert np.array_equal(one.end_round, two.end_round)
    assert np.array_equal(one.winner, two.winner)
    assert one.skipped == two.skipped
    other = simulate(scn, trials=3, seed=6, workers=1)
    assert any(not np.array_equal(a[k], b[k]) for a, b in zip(one.rounds, other.rounds, strict=True) for k in a)


def test_a_game_is_the_same_alone_or_among_others(scn: Scenario) -> None:
    """Game 2 played alone (offset 2) and among games 0-2: the same game (the choices do not depend on the group)."""
    many = Simulation(scn, 3, 9)
    many.run()
    alone = Simulation(scn, 1, 9, offset=2)
    alone.run()
    for a, b in zip(many.snapshots, alone.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k][..., 2], b[k][..., 0]), k


def test_a_scripted_player_and_a_random_one_share_a_game(tmp_path: Path) -> None:
    """Red scripted (its file rounds), blue random: red's planned Deploys happen, blue's units come on by themselves."""
    from mathhammer.scenario.loader import parse_scenario
    from mathhammer.scenario.players.scripted import Scripted
    from tests.autoplay_kit import red_deploys

    d = red_deploys(tmp_path)
    d["rounds"].append({"round": 2, "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [9, 6]}]}})
    mixed = parse_scenario(d, "mixed.toml", tmp_path)
    assert mixed.policies == {"blue": "random"}
    sim = Simulation(mixed, 4, 2)
    assert isinstance(sim.players[0], Scripted) and isinstance(sim.players[1], Auto)
    sim.run()
    red = [sim.uids.index(u) for u in ("marine-1", "marauder-1")]
    blue = [u for u, su in enumerate(sim.units) if su.player == "blue"]
    assert (sim.pos[red] >= 0).all()
    assert (sim.pos[blue] >= 0).any(axis=0).all()  # blue came on in every game
    assert len(sim.snapshots) == 2
