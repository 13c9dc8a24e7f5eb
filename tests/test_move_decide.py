"""Plain Move/Run verdicts decided from arrays with the other units (scenario/players/movedecide.py; issue 29 point
6, step 2 of docs/dev/compiled-game-loop.md) held to the plan walk:

* 8.5.2 (an Engaged unit cannot Move or Run) and 8.5.3 (the way at most Speed, ON CREEP read as the walk reads it;
  not ending on terrain, on a base or Within 1" of an enemy; the unit set In Coherency at the point): in the states
  of random games and in states with the units set at random near the menus' Move points (Charges' ends, models left
  and Creep Tumors at random), every verdict ``MoveDecider.decide`` gives (not MISS) is the walk's
  (``Legality.walked``), given for many games at once as for one;
* each class occurs, with floors that can fail: admitted, refused on the unit's own parts or the way, refused
  Engaged, a MISS for a friendly base on the formation's spots, a decision ON CREEP changes;
* benchmarks/count_move_decide.py's tally on a small run: its counts add up, no contradiction.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.movedecide import (
    ADMIT,
    MISS,
    MISS_FRIEND,
    REFUSE,
    MoveDecider,
)
from mathhammer.scenario.players.movetables import build_tables
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from tests.autoplay_kit import before_each, counted, scenario

#: the kit's lists (Marines, Marauders against Zerglings, Roaches: Creep) on Gauntlet, random against random
GAUNTLET = "Gauntlet"


def _hold(
    leg: Legality, dec: MoveDecider, phase: str, states: list[tuple[int, ...]], seen: collections.Counter[str]
) -> None:
    """Each Move/Run entry of each unit on the table in ``states`` that no shortcut refuses: ``decide`` over all the
    states at once, each decision held to the walk's verdict on its state and to ``decide`` of that state alone;
    counted by class."""
    n = leg.view.U
    rows = np.asarray(states, dtype=np.int64).reshape(len(states), 2 * n + 1)
    pos, alive, gone = rows[:, :n], rows[:, n : 2 * n], rows[:, 2 * n]
    for u, uid in enumerate(leg.view.uids):
        for index, e in enumerate(leg.menus[uid][phase]):
            if e.action not in ("move", "run"):
                continue
            asked = [
                k for k, s in enumerate(states) if s[u] >= 0 and s[n + u] > 0 and not leg.shortcuts(u, phase, s)[index]
            ]
            if not asked:
                continue
            got, why = dec.decide(u, phase, index, pos[asked], alive[asked], gone[asked])
            for k, g, w in zip(asked, got.tolist(), why.tolist(), strict=True):
                alone, _ = dec.decide(u, phase, index, pos[k : k + 1], alive[k : k + 1], gone[k : k + 1])
                assert int(alone[0]) == g
                if g == MISS:
                    seen[f"miss {w}"] += 1
                    continue
                walked = leg.walked(u, phase, index, states[k])
                assert (g == ADMIT) == walked, (uid, e, states[k], g)
                if g == ADMIT:
                    seen["admit"] += 1
                    continue
                assert g == REFUSE
                whole = e.activation(uid, leg.menus[uid].player, 1, phase)
                text = " ".join(leg.check.problems_of(whole, states[k][:n], states[k][n : 2 * n], states[k][2 * n]))
                seen["refuse engaged" if "is Engaged" in text else "refuse"] += 1


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return scenario(tmp_path_factory.mktemp("decide"), card=GAUNTLET, length=2)


def test_decisions_are_the_walks_in_random_games(scn: Any) -> None:
    """8.5.2-8.5.3 in the states of 3 random games of 2 Rounds: before each activation, every decided Move/Run
    verdict of every unit on the table is the walk's; admitted and refused occur."""
    sim = Simulation(scn, 3, 11)
    decider: dict[int, MoveDecider] = {}
    seen: collections.Counter[str] = collections.Counter()

    def judge(act: Activation, games: np.ndarray, leg: Legality) -> None:
        dec = decider.get(id(leg))
        if dec is None:
            dec = decider[id(leg)] = MoveDecider(build_tables(leg), leg)
        if act.phase in ("movement", "assault"):
            table, _ = leg.states(games[~sim.over[games]])
            _hold(leg, dec, act.phase, table, seen)

    before_each(sim, judge)
    sim.run()
    assert seen["admit"] >= 20 and seen["refuse"] >= 20, seen


def _states_on_points(sim: Simulation, dec: MoveDecider, seed: int, count: int, spread: float) -> list[tuple[int, ...]]:
    """``count`` states drawn from ``seed``: each unit's Leading Model set on one of its own menu points within
    ``spread`` inches of a hub point picked at random (so the tables hold its key), a base Within 1" of an enemy set
    as a Charge sets it (an Engaged pair), models left at random; Grass mask 0."""
    world, n, tb = sim.world, sim.U, dec.tables
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        pos, alive = [-1] * n, [0] * n
        u0 = int(rng.integers(n))
        hub = tb.points[u0, int(rng.integers(int(tb.counts[u0])))]
        for v in rng.permutation(n).tolist():
            su = sim.units[v]
            pts = tb.points[v, : int(tb.counts[v])]
            close = np.flatnonzero(tb.is_move[v, : pts.shape[0]] & (np.hypot(*(pts - hub).T) <= spread))
            if close.size == 0 or rng.random() < 0.2:
                continue
            at = tuple(float(x) for x in pts[int(rng.choice(close))])
            foes = tuple(sim.uids[w] for w in range(n) if pos[w] >= 0 and sim.units[w].player != su.player)
            pid = world.place(su, at, world.rear_of(su.player), tuple(p for p in pos if p >= 0), foes)
            if pid is not None and world.placements[pid].centres[0] == at:
                pos[v], alive[v] = pid, int(rng.integers(1, su.models + 1))
        out.append((*pos, *alive, 0))
    return out


def test_decisions_are_the_walks_among_bases_set_at_random(scn: Any) -> None:
    """8.5.2 and 8.5.3 in states with the units' Leading Models set at random on their menu points near one another
    (Charges' ends Within 1" of an enemy, models left at random, a Creep Tumor at random: ON CREEP read as the walk
    reads it): every decided verdict is the walk's; refused Engaged, admitted, refused otherwise, a MISS for a friendly
    base that can block a spot of the formation, and a decision ON CREEP changes all occur."""
    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    dec = MoveDecider(build_tables(leg), leg)
    seen: collections.Counter[str] = collections.Counter()
    rng = np.random.default_rng(37)
    tumors = leg.check.tumors  # the walk's Creep Tumors, set at random per state (none in a game without abilities)
    n = sim.U
    for state in _states_on_points(sim, dec, 31, 30, 8.0):
        some = [v for v in range(n) if state[v] >= 0]
        at = sim.world.placements[state[some[int(rng.integers(len(some)))]]].centres[0] if some else (0.0, 0.0)
        tumors[:] = [((at[0] + float(rng.normal(0, 4)), at[1] + float(rng.normal(0, 4))), "blue")]
        if rng.random() < 0.4:
            tumors.clear()
        for phase in ("movement", "assault"):
            _hold(leg, dec, phase, [state], seen)
            if tumors:  # ON CREEP (Accelerating Creep's Speed): the decisions it changes
                kept = list(tumors)
                for u in range(n):
                    for index, e in enumerate(leg.menus[sim.uids[u]][phase]):
                        if e.action not in ("move", "run") or state[u] < 0:
                            continue
                        rows = np.asarray([state], dtype=np.int64)
                        got, _ = dec.decide(u, phase, index, rows[:, :n], rows[:, n : 2 * n], rows[:, 2 * n])
                        tumors.clear()
                        bare, _ = dec.decide(u, phase, index, rows[:, :n], rows[:, n : 2 * n], rows[:, 2 * n])
                        tumors[:] = kept
                        seen["creep"] += int(got[0] != MISS and bare[0] != MISS and got[0] != bare[0])
    tumors.clear()
    assert seen["refuse engaged"] >= 5 and seen["admit"] >= 5 and seen["refuse"] >= 5, seen
    assert seen[f"miss {MISS_FRIEND}"] >= 5 and seen["creep"] >= 3, seen


def test_the_counters_tally_adds_up(scn: Any) -> None:
    """benchmarks/count_move_decide.py on 3 random games of 2 Rounds: every Move/Run verdict the legality computes is
    kept and counted once, decided or a named MISS; no decision contradicts the walk's answer (either test of the
    other units); plain Moves and Runs are decided, both admitted and refused."""
    mod = counted("count_move_decide", scn, 3, 11)
    c: collections.Counter[str] = collections.Counter()
    kept = 0
    for leg, _, asked in mod.seen.values():
        mod.tally(leg, asked, c)
        kept += len(asked)
    assert not [k for k in c if "CONTRADICTION" in k], dict(c)
    assert kept == sum(v for k, v in c.items() if k.endswith(" asked")) > 0
    for kind in ("move", "run"):
        misses = sum(v for k, v in c.items() if k.startswith(f"{kind} MISS: "))
        assert c[f"{kind} asked"] == c[f"{kind} decided"] + misses, kind
        assert c[f"{kind} decided admit"] > 0 and c[f"{kind} decided refuse"] > 0, dict(c)
