"""CLOSE RANKS (rulebook 8.8.1 step 1) in the scenario simulation.

8.8.1 step 1: "Before rolling the dice, the Unit may press into the fight: Choose a Leading Model and
move it up to 3" ... The Leading Model must end closer to the Unit(s) it is Engaged with than it
started. This move cannot bring the Unit into Engagement with new Enemy Units ... Set models in
Base-to-Base contact with Enemy models wherever possible ... Models already in Base-to-Base contact
at the start of this step are not moved". ``[policy] close_ranks`` (``always`` / ``never``) decides
whether the simulation makes the move; ``World.close_ranks`` is the reading (``world.py``).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, MM_PER_INCH, board_problems
from mathhammer.board.ranks import CONTACT
from mathhammer.cli import app
from mathhammer.scenario import ScenarioError, builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import CLOSE_RANKS_MOVE, horizontal_coherency

from .test_scenario import _toml
from .test_scenario_policy import base, scenario

runner = CliRunner()


def _charged(policy: str = "always", trials: int = 1, with_marine_2: bool = False) -> tuple[Simulation, dict[str, int]]:
    """Zergling-1 set Within 1" of Marine-1 in a block behind its Leading Model (the unit set as for a
    Move, then shifted 10" south onto the Marines): only some Zerglings touch a Marine, as where a
    Charge could set no more of them in Base-to-Base contact.

    ``with_marine_2``: Marine-2 stands 4.5" east of Marine-1, not Engaged (an enemy unit the move must
    not Engage)."""
    sim = Simulation(scenario(policy={"close_ranks": policy}), trials, 5)
    w, units = sim.world, sim.scn.units
    m1 = w.place(units["marine-1"], (10, 10), (0, -1), ())
    assert m1 is not None
    pids = {"marine-1": m1}
    if with_marine_2:
        m2 = w.place(units["marine-2"], (14.5, 10), (0, -1), (m1,))
        assert m2 is not None
        pids["marine-2"] = m2
    # 10" north: Marine-1's bases as a friendly unit's (no overlap, Engaged allowed), Marine-2's as itself
    up = {uid: w.placements[pid] for uid, pid in pids.items()}
    shadows = tuple(
        w._intern(
            dataclasses.replace(
                p, unit="zergling-2" if uid == "marine-1" else uid, centres=tuple((x, y + 10) for x, y in p.centres)
            )
        )
        for uid, p in up.items()
    )
    far = w.place(units["zergling-1"], (11, 22.5), (0, 1), shadows)
    assert far is not None
    p = w.placements[far]
    z = w._intern(dataclasses.replace(p, centres=tuple((x, y - 10.0) for x, y in p.centres)))
    pids["zergling-1"] = z
    for uid, pid in pids.items():
        sim.pos[sim.uids.index(uid)] = pid
    sim.sync_board()
    return sim, pids


def _state(sim: Simulation, t: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    pos = tuple(int(p) for p in sim.pos[:, t])
    alive = tuple(int(a) if p >= 0 else 0 for a, p in zip(sim.alive[:, t], pos, strict=True))
    return pos, alive


def _radius(sim: Simulation, uid: str) -> float:
    return sim.scn.units[uid].base_mm / MM_PER_INCH / 2


def _gap(sim: Simulation, a: tuple[float, float], ua: str, b: tuple[float, float], ub: str) -> float:
    return math.dist(a, b) - _radius(sim, ua) - _radius(sim, ub)


def _close(sim: Simulation, pids: dict[str, int], foes: tuple[str, ...] = ("marine-1",)) -> int:
    iz = sim.uids.index("zergling-1")
    others = tuple(p for u, p in pids.items() if u not in foes and u != "zergling-1")
    engaged = tuple((pids[f], int(sim.full[sim.uids.index(f)])) for f in foes)
    return sim.world.close_ranks(pids["zergling-1"], int(sim.full[iz]), engaged, others)


def test_close_ranks_brings_more_models_into_the_fight() -> None:
    """8.8.1 step 1 then step 2: after Close Ranks more Zerglings are in the Fighting or Supporting Rank
    than where the Charge set them; ``never`` leaves the unit where it stands."""
    sim, pids = _charged()
    before = sim.world.strikers(*_state(sim), "zergling-1")
    sim.close_ranks(sim.uids.index("zergling-1"), np.arange(1))
    after = sim.world.strikers(*_state(sim), "zergling-1")
    assert int(sim.pos[sim.uids.index("zergling-1"), 0]) != pids["zergling-1"]
    assert after > before
    assert sim.board_pos(int(sim.board[0])) == tuple(sim.pos[:, 0].tolist())  # board id kept right


def test_policy_always_strikes_harder_than_never() -> None:
    """8.8.1 step 1 then step 3: the same games, Close Ranks ``always`` vs ``never``: more Attack Dice, more
    Marines lost; no new random draws (a subset of the trials plays the same games)."""
    lost = {}
    for policy in ("always", "never"):
        sim, pids = _charged(policy, trials=400)
        sim.fight(sim.uids.index("zergling-1"), ("marine-1",), np.arange(400), 777)
        lost[policy] = 6 - sim.alive[sim.uids.index("marine-1")]
        iz = sim.uids.index("zergling-1")
        moved = sim.pos[iz] != pids["zergling-1"]
        assert moved.all() if policy == "always" else not moved.any()
    assert lost["always"].mean() > lost["never"].mean()
    part, _ = _charged("always", trials=400)
    part.fight(part.uids.index("zergling-1"), ("marine-1",), np.arange(100, 400), 777)
    assert np.array_equal(6 - part.alive[part.uids.index("marine-1")][100:], lost["always"][100:])


def test_pinned_models_do_not_move() -> None:
    """8.8.1 step 1: "Models already in Base-to-Base contact at the start of this step are not moved"."""
    sim, pids = _charged()
    foes = sim.world.placements[pids["marine-1"]].centres
    first = _close(sim, pids)  # a Close Ranks sets models in Base-to-Base contact; the next one starts there
    assert first != pids["zergling-1"]
    old = sim.world.placements[first].centres
    pinned = [c for c in old if min(_gap(sim, c, "zergling-1", f, "marine-1") for f in foes) <= CONTACT + EPS]
    assert pinned and len(pinned) < len(old)
    again = _close(sim, pids | {"zergling-1": first})
    assert set(pinned) <= set(sim.world.placements[again].centres)


def test_leading_model_ends_closer_moving_at_most_3_inches() -> None:
    """8.8.1 step 1: "move it up to 3"" and "The Leading Model must end closer to the Unit(s) it is Engaged
    with than it started". The Leading Model is the first model not in Base-to-Base contact; it moves
    straight at the nearest Marine."""
    sim, pids = _charged()
    old = sim.world.placements[pids["zergling-1"]].centres
    foes = sim.world.placements[pids["marine-1"]].centres

    def to_foes(c: tuple[float, float]) -> float:
        return min(_gap(sim, c, "zergling-1", f, "marine-1") for f in foes)

    lead = next(c for c in old if to_foes(c) > CONTACT + EPS)
    target = min(foes, key=lambda f: (_gap(sim, lead, "zergling-1", f, "marine-1"), f))
    new = sim.world.placements[_close(sim, pids)].centres
    on_way = []
    for c in new:
        d = math.dist(lead, c)
        cross = (c[0] - lead[0]) * (target[1] - lead[1]) - (c[1] - lead[1]) * (target[0] - lead[0])
        if 1e-9 < d <= CLOSE_RANKS_MOVE + 1e-9 and abs(cross) < 1e-6 and to_foes(c) < to_foes(lead):
            on_way.append(c)
    assert on_way, "the Leading Model did not move closer along its way"
    assert all(math.dist(lead, c) <= CLOSE_RANKS_MOVE + 1e-9 for c in on_way)


@pytest.mark.parametrize("alive", [4, 6, 8, 10])
def test_moved_models_wholly_within_the_horizontal_coherency_of_the_leading_model(alive: int) -> None:
    """8.8.1 step 1 "Reposition the rest of the Unit into Coherency" and 4.4 "set each remaining model one
    at a time, Wholly Within 3" of the Leading Model" (the Zerglings' Squadron: 4"): with up to ten Zerglings there
    is room, and every model the move sets anew is within 4" of one model of the unit (the Leading Model)."""
    sim, pids = _charged()
    w = sim.world
    new = w.close_ranks(pids["zergling-1"], alive, ((pids["marine-1"], 6),), ())
    assert new != pids["zergling-1"]
    before, after = w.placements[pids["zergling-1"]].centres[:alive], w.placements[new].centres[:alive]
    moved = [c for c in after if c not in before]
    assert moved
    reach = horizontal_coherency(w.scn.units["zergling-1"])
    assert reach == 4.0
    assert any(all(math.dist(lead, c) <= reach + EPS for c in moved) for lead in after)


def test_no_new_enemy_unit_becomes_engaged() -> None:
    """8.8.1 step 1: "This move cannot bring the Unit into Engagement with new Enemy Units not already
    Engaged"; no moved model ends Within 1" of Marine-2 (standing next to the fight)."""
    sim, pids = _charged(with_marine_2=True)
    pos, alive = _state(sim)
    before = {b for a, b in sim.world.engaged_pairs(pos, alive) if a == "zergling-1"}
    assert before == {"marine-1"}
    sim.close_ranks(sim.uids.index("zergling-1"), np.arange(1))
    pos2, alive2 = _state(sim)
    assert pos2 != pos
    after = {b for a, b in sim.world.engaged_pairs(pos2, alive2) if a == "zergling-1"}
    assert after == before
    old = set(sim.world.placements[pids["zergling-1"]].centres)
    m2 = sim.world.placements[pids["marine-2"]].centres
    for c in sim.world.placements[pos2[sim.uids.index("zergling-1")]].centres:
        if c not in old:
            assert min(_gap(sim, c, "zergling-1", f, "marine-2") for f in m2) > ENGAGEMENT_RANGE


def test_boards_after_close_ranks_stay_legal() -> None:
    """8.8.1 step 1 "following standard Move rules (Part 8.5.3)": no overlapping bases, on the table, off
    terrain; every board a whole game visits with a Close Ranks placement passes ``board_problems``."""
    sim, _ = _charged(with_marine_2=True)
    sim.close_ranks(sim.uids.index("zergling-1"), np.arange(1))
    assert board_problems(sim.world.board_for(*_state(sim))) == []
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    scn = load_scenario(path)
    scn = dataclasses.replace(scn, policy=scn.policy.model_copy(update={"close_ranks": "always"}))
    game = Simulation(scn, 100, 2)
    game.run()
    made = {v for cache in (game.world._close, game.world._close_grid) for k, v in cache.items() if v not in (-1, k[0])}
    assert made  # Close Ranks moved units in these games
    boards = [(k, b) for k, b in game.world._boards.items() if made & set(k[0])]
    assert boards
    for key, board in boards[:200]:
        assert board_problems(board) == [], key


def test_close_ranks_cache_keys_keep_every_unit_that_matters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulation reads Close Ranks with only the other units near the spots it looks at (with the
    grid fallback, near the grid around the Leading Model too), split per trial: every move of 150
    games of the 6-a-side example is the move computed afresh, in that trial, with every other unit
    on the table (and every unit it is Engaged with, 7.2.1, read on the whole board)."""
    moves: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    original = Simulation.close_ranks

    def spy(self: Simulation, u: int, trials: np.ndarray) -> None:
        pos, alive = self.pos[:, trials].copy(), self.alive[:, trials].copy()
        original(self, u, trials)
        moves.append((u, trials.copy(), pos, alive, self.pos[u, trials].copy()))

    monkeypatch.setattr(Simulation, "close_ranks", spy)
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    game = Simulation(load_scenario(path), 150, 4)
    game.run()
    w = game.world
    assert w._close_grid, "no move reached the grid fallback: the test would not look at it"
    assert not any(game.used.any(axis=1)), "an ability could keep a unit in place: the test does not look at it"
    fresh: dict[tuple[object, ...], int] = {}
    moved = 0
    for u, trials, pos, alive, after in moves:
        for j in range(trials.size):
            p = tuple(int(x) for x in pos[:, j])
            if p[u] < 0 or alive[u, j] <= 0:
                continue
            whole = tuple(int(game.full[v]) if p[v] >= 0 else 0 for v in range(game.U))
            pairs = w.engaged_pairs(p, whole)
            foes = sorted(game.uids.index(b) for a, b in pairs if a == game.uids[u])
            if not foes:
                assert after[j] == p[u]
                continue
            engaged = tuple((p[t], int(alive[t, j])) for t in foes if alive[t, j] > 0)
            others = tuple(q for v, q in enumerate(p) if q >= 0 and v != u and v not in foes)
            key = (p[u], int(alive[u, j]), engaged, others)
            if key not in fresh:
                fresh[key] = w._close_ranks(p[u], int(alive[u, j]), engaged, others, False)
            assert after[j] == fresh[key], key
            moved += after[j] != p[u]
    assert len(fresh) > 100 and moved > 100


@pytest.mark.parametrize("lead", [(0.0, 0.0), (10.3, 27.9), (53.5, 0.4)])
@pytest.mark.parametrize("step", [0.1, 1.084, 2.6])
def test_the_grid_fallback_box_holds_the_grid(lead: tuple[float, float], step: float) -> None:
    """The grid cache key keeps the units near ``close_ranks_grid_box``: it must hold every grid spot, whatever the
    unit's rear (the grid is laid in the unit's frame), with room to spare (0.01"); its outer spots touch it."""
    from mathhammer.scenario.world import close_ranks_grid, close_ranks_grid_box

    lo, hi = close_ranks_grid_box(lead, step)
    for ang in [0.0, 0.3, math.pi / 6, math.pi / 4, 1.0, math.pi / 2, 2.5, math.pi, 4.0, 5.9]:
        pts = close_ranks_grid(lead, step, (math.cos(ang), math.sin(ang)))
        assert len(pts) == 127  # a hexagon of 6 rings
        assert (pts >= lo + 0.009).all() and (pts <= hi - 0.009).all()
    pts = close_ranks_grid(lead, step, (0.0, -1.0))
    assert pts[:, 0].max() - lead[0] == pytest.approx(hi[0] - 0.01 - lead[0])


@pytest.mark.parametrize("mode", ["check", "run"])
def test_bogus_close_ranks_policy_is_rejected(mode: str, tmp_path: Path) -> None:
    """8.8.1 step 1 is optional: ``[policy] close_ranks`` is ``always`` or ``never``; anything else names
    ``policy.close_ranks`` and the CLI exits with status 2."""
    expected = "policy.close_ranks: got 'bogus'; allowed: 'always' or 'never'"
    with pytest.raises(ScenarioError) as err:
        scenario(policy={"close_ranks": "bogus"})
    assert expected in str(err.value)
    f = tmp_path / "bad_close_ranks.toml"
    f.write_text(_toml(base(policy={"close_ranks": "bogus"})))
    cmd = ["scenario", mode, str(f)] + (["--trials", "10"] if mode == "run" else [])
    res = runner.invoke(app, cmd)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert f"bad_close_ranks.toml: {expected}" in res.output


def test_the_close_ranks_memo_looks_at_every_base_that_can_change_a_test() -> None:
    """8.8.1 step 1 ("cannot bring the Unit into Engagement with new Enemy Units"; the moves and
    Coherency Links keep off other bases): the Close Ranks move of ``_charged`` beside Marine-2 set
    at 150 random points around the fight, one World keeping the memo (``World._close_memo``), equals
    the move computed afresh each time, and Marine-2 changed the move in many of them."""
    sim, pids = _charged()
    w, units = sim.world, sim.scn.units
    z, m1 = pids["zergling-1"], pids["marine-1"]
    alive = int(sim.full[sim.uids.index("zergling-1")])
    engaged = ((m1, int(sim.full[sim.uids.index("marine-1")])),)
    alone = w._close_ranks(z, alive, engaged, (), False)
    rng = np.random.default_rng(5)
    changed = tried = 0
    for _ in range(150):
        at = (float(rng.uniform(4, 18)), float(rng.uniform(4, 17)))
        m2 = w.place(units["marine-2"], at, (0, -1), (m1, z))
        if m2 is None:
            continue
        tried += 1
        got = w._close_memo(z, alive, engaged, (m2,), False)
        assert got == w._close_ranks(z, alive, engaged, (m2,), False), at
        changed += got != alone
    assert tried > 60 and changed > 10
