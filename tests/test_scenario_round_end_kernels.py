"""The compiled passes of the end of a Round (fastsim.py) against the numpy readings they replaced, on random
states of the shipped standard_clash scenario: 8.9.3 End of Game Check (the VP lead, a wiped-out army's +10 VP, the
final Round; a Summoned unit off the table is in neither the battlefield nor Reserves) and 8.9.5 Cleanup's kept
Status bits (part 11 STATUS: "Statuses aren't removed")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario import load_scenario
from mathhammer.scenario.fastsim import _keep_bits
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS

SCENARIO = Path(__file__).resolve().parents[1] / "profiles" / "scenarios" / "standard_clash.toml"


def _naive_end_checks(sim: Simulation, live: np.ndarray, final: bool) -> None:
    """8.9.3 as numpy read it (whole rows, then the games ``live``)."""
    lead = sim.scn.mission.instant_win_lead
    diff = sim.vp[0, live] - sim.vp[1, live]
    instant = np.abs(diff) >= lead
    present = np.zeros((2, sim.T), dtype=bool)
    for u in range(sim.U):
        p = PLAYERS.index(sim.units[u].player)
        present[p] |= (sim.alive[u] > 0) & ((sim.pos[u] >= 0) if sim.summoned[u] else True)
    wiped = ~present[:, live]
    for p in (0, 1):
        sim.vp[p, live[wiped[1 - p] & ~wiped[p]]] += 10
    ended = instant | wiped.any(axis=0)
    sim.instant[live[instant]] = True
    if final:
        ended[:] = True
    sim.over[live[ended]] = True
    sim.end_round[live[ended]] = sim.round


@pytest.mark.parametrize("final", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_end_checks_are_the_numpy_reading(seed: int, final: bool) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    sims = [Simulation(load_scenario(SCENARIO), n, seed=1) for _ in range(2)]
    summoned = (rng.random(sims[0].U) < 0.3).tolist()
    alive = rng.integers(0, 3, (sims[0].U, n)) * (rng.random((sims[0].U, n)) < 0.7)
    for side in PLAYERS:  # each army wiped out in about a fifth of the games (both in some)
        units = [u for u in range(sims[0].U) if sims[0].units[u].player == side]
        alive[np.ix_(units, np.flatnonzero(rng.random(n) < 0.2))] = 0
    pos = rng.integers(-1, 3, (sims[0].U, n))
    vp = rng.integers(0, 14, (2, n))
    over = rng.random(n) < 0.1
    for sim in sims:
        sim.round = 3
        sim.summoned = list(summoned)
        sim.alive[:] = alive
        sim.pos[:] = pos
        sim.vp[:] = vp
        sim.over[:] = over
    live = np.flatnonzero(~over)
    sims[0].end_checks(live, final)
    _naive_end_checks(sims[1], live, final)
    for name in ("vp", "over", "end_round", "instant"):
        assert getattr(sims[0], name).tolist() == getattr(sims[1], name).tolist(), name
    assert sims[0].instant.any() and (sims[0].vp != vp).any()  # leads and wiped-out armies in the sample
    assert final or not sims[0].over.all()


def test_keep_bits_is_the_numpy_reading() -> None:
    rng = np.random.default_rng(5)
    used = rng.integers(0, 64, (12, 300))
    keep = rng.integers(0, 64, 12)
    live = np.sort(rng.choice(300, 200, replace=False))
    want = used.copy()
    want[:, live] &= keep[:, None]
    _keep_bits(used, keep, live)
    assert used.tolist() == want.tolist()


@pytest.mark.parametrize("final", [False, True])
def test_enemy_supply_destroyed_is_the_game_by_game_reading(final: bool) -> None:
    """Every Mission Card: "Score VPs equal to Enemy Supply destroyed this Round" (FAQ v1.0: any drop of a unit's
    Current Supply Value since its reference), and in the final Round "all Units still in Reserves that are not
    deployed are treated as Destroyed" (8.10): read game by game here, scored in the games ``live`` only."""
    from mathhammer.scenario import mission as missions

    rng = np.random.default_rng(11)
    n = 300
    sim = Simulation(load_scenario(SCENARIO), n, seed=1)
    sim.round = sim.scn.mission.game_length if final else 2
    sim.alive[:] = rng.integers(0, 4, (sim.U, n)) * (rng.random((sim.U, n)) < 0.8)
    sim.pos[:] = rng.integers(-1, 3, (sim.U, n))
    sim.ref_supply[:] = rng.integers(0, 4, (sim.U, n))
    sim.vp[:] = rng.integers(0, 9, (2, n))
    live = np.sort(rng.choice(n, 200, replace=False))
    now = sim.current_supply()
    want = np.zeros((2, n), dtype=np.int64)
    for t in live.tolist():
        for u in range(sim.U):
            enemy = 1 - PLAYERS.index(sim.units[u].player)
            want[enemy, t] += max(0, sim.ref_supply[u, t] - now[u, t])
            if final and sim.pos[u, t] < 0 and sim.alive[u, t] > 0:
                want[enemy, t] += sim.supply(u, np.array([sim.alive[u, t]]))[0]
    assert missions._destroyed_supply(sim, live).tolist() == want.tolist()
    vp = sim.vp.copy()
    kind = next(r for r in sim.scn.mission.rules if r.key == "enemy-supply-destroyed")
    kind.before_control(missions.Play(sim, live, now))
    assert sim.vp.tolist() == (vp + want).tolist()
    assert want[:, live].any() and (want.sum() > now.sum() // 4 if final else True)
