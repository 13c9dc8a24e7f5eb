"""The fill of the other-base misses of plain Move/Run verdicts (scenario/players/movefill.py; issue 29 point 6,
step 2 of docs/dev/compiled-game-loop.md) held to the plan walk and the engine:

* 8.5.3 (not ending on a base or Within 1" of an enemy, the unit set In Coherency behind its Leading Model): every
  verdict ``FilledDecider.decide`` gives (not MISS) is the walk's (``Legality.walked``), in the states of random games
  and in states with the units set at random near the menus' Move points; an ADMIT's placement id is the one the
  World gives with every other unit there (``World.place_near_lead`` / ``World.place``, as ``MoveVerdicts`` and the
  engine ask it), and where a Move or Run is applied it is the placement the engine sets;
* floors that can fail: misses for a friendly base filled (admitted and refused), ADMITs with the tables' own
  placement, applied Moves/Runs compared;
* benchmarks/count_move_masks.py's tally on a small run: no contradiction, no placement mismatch.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.movedecide import ADMIT, MISS, MISS_FOE, MISS_FRIEND, REFUSE, MoveDecider
from mathhammer.scenario.players.movefill import FilledDecider
from mathhammer.scenario.players.movetables import build_tables
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from tests.autoplay_kit import before_each, counted, scenario
from tests.test_move_decide import GAUNTLET, _states_on_points


def _engine_place(leg: Legality, u: int, phase: str, index: int, state: tuple[int, ...]) -> int | None:
    """The placement the World gives entry ``index`` with every other unit of ``state`` there (MoveVerdicts' and the
    engine's calls)."""
    n = leg.view.U
    e = leg.menus[leg.view.uids[u]][phase][index]
    world = leg.view.world
    to = e.to
    assert to is not None
    occupied = tuple(state[v] for v in range(n) if v != u and state[v] >= 0 and state[n + v] > 0)
    rear = world.rear_from(state[u], to, e.headings)
    su = leg.view.units[u]
    got = world.place_near_lead(su, to, rear, occupied)
    if got == -1:
        got = world.place(su, to, rear, occupied, on=None)
    return got


def _hold(leg: Legality, fill: FilledDecider, phase: str, states: list[tuple[int, ...]], seen: Any) -> None:
    """Each plain Move/Run entry of each unit on the table in ``states`` that no shortcut refuses: the plain and the
    filled decisions over all the states at once, each filled decision held to the walk's verdict and an ADMIT's
    placement to the World's with every unit there."""
    n = leg.view.U
    rows = np.asarray(states, dtype=np.int64).reshape(len(states), 2 * n + 1)
    pos, alive, gone = rows[:, :n], rows[:, n : 2 * n], rows[:, 2 * n]
    for u, uid in enumerate(leg.view.uids):
        for index, e in enumerate(leg.menus[uid][phase]):
            if e.action not in ("move", "run") or e.use:
                continue
            asked = [
                k for k, s in enumerate(states) if s[u] >= 0 and s[n + u] > 0 and not leg.shortcuts(u, phase, s)[index]
            ]
            if not asked:
                continue
            plain, why = fill.dec.decide(u, phase, index, pos[asked], alive[asked], gone[asked])
            got, _, pid = fill.decide(u, phase, index, pos[asked], alive[asked], gone[asked])
            for k, p, w, g, at in zip(asked, plain.tolist(), why.tolist(), got.tolist(), pid.tolist(), strict=True):
                if p != MISS:
                    assert g == p
                if g == MISS:
                    seen["miss"] += 1
                    continue
                walked = leg.walked(u, phase, index, states[k])
                assert (g == ADMIT) == walked, (uid, e, states[k], g)
                filled = p == MISS and w in (MISS_FRIEND, MISS_FOE)
                if g == REFUSE:
                    seen["filled refuse" if filled else "refuse"] += 1
                    continue
                assert at == _engine_place(leg, u, phase, index, states[k]), (uid, e, states[k])
                seen["filled admit" if filled else "admit"] += 1


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return scenario(tmp_path_factory.mktemp("fill"), card=GAUNTLET, length=2)


def test_filled_answers_are_the_walks_and_the_engines_in_random_games(scn: Any) -> None:
    """8.5.3 in 4 random games of 2 Rounds: before each activation every filled verdict is the walk's and an ADMIT's
    placement the World's; each applied plain Move/Run sets the placement the filled ADMIT names."""
    sim = Simulation(scn, 4, 5)
    fills: dict[int, FilledDecider] = {}
    seen: collections.Counter[str] = collections.Counter()

    def judge(act: Activation, games: np.ndarray, leg: Legality) -> Callable[[], None] | None:
        fill = fills.get(id(leg))
        if fill is None:
            fill = fills[id(leg)] = FilledDecider(MoveDecider(build_tables(leg), leg))
        live = games[~sim.over[games]]
        if act.phase in ("movement", "assault"):
            table, _ = leg.states(live)
            _hold(leg, fill, act.phase, table, seen)
        if not (act.action in ("move", "run") and not act.use and act.to is not None and live.size):
            return None
        u = sim.uids.index(act.unit)
        j = fill.dec.tables.point_of(u, tuple(act.to))
        points = fill.dec.tables.entry_point[(u, act.phase)]
        index = next(
            (
                i
                for i, e in enumerate(leg.menus[act.unit][act.phase])
                if e.action == act.action and not e.use and j >= 0 and int(points[i]) == j
            ),
            None,
        )
        if index is None:
            return None
        got, _, pid = fill.decide(u, act.phase, index, sim.pos[:, live].T, sim.alive[:, live].T)

        def applied() -> None:
            for g, v, at in zip(live.tolist(), got.tolist(), pid.tolist(), strict=True):
                if v == ADMIT:
                    assert int(sim.pos[u, g]) == at, (act, g)
                    seen["applied"] += 1

        return applied

    before_each(sim, judge)
    sim.run()
    assert seen["admit"] >= 20 and seen["refuse"] >= 20 and seen["applied"] >= 10, seen
    assert seen["filled admit"] >= 10 and seen["filled refuse"] >= 3, seen


def test_filled_answers_among_bases_set_at_random(scn: Any) -> None:
    """8.5.3 in states with the units' Leading Models set at random on their menu points near one another: every
    filled verdict is the walk's, an ADMIT's placement the World's with every unit there; fills admitted and refused
    occur."""
    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    fill = FilledDecider(MoveDecider(build_tables(leg), leg))
    seen: collections.Counter[str] = collections.Counter()
    for state in _states_on_points(sim, fill.dec, 31, 30, 8.0):
        for phase in ("movement", "assault"):
            _hold(leg, fill, phase, [state], seen)
    assert seen["filled admit"] >= 40 and seen["filled refuse"] >= 30, seen
    assert len(fill.fills) >= 5 and fill.placements == len(fill.fills), seen


def test_the_mask_counters_tally_adds_up(scn: Any) -> None:
    """benchmarks/count_move_masks.py on 3 random games of 2 Rounds: Movement steps are kept and counted, no decision
    (plain or filled) contradicts the walk's, the fill decides no fewer steps than the plain decision, and every
    applied plain Move/Run's filled placement is the engine's (or a named MISS)."""
    mod = counted("count_move_masks", scn, 3, 11)
    c: collections.Counter[str] = collections.Counter()
    judges = mod.tally(c)
    mod.check_applied(judges, c)
    assert not [k for k in c if "CONTRADICTION" in k or "MISMATCH" in k or "REFUSED" in k], dict(c)
    assert c["steps"] > 0 and c["steps decided"] <= c["steps decided with the fill"] <= c["steps"], dict(c)
    assert c["applied placement equal"] > 0, dict(c)
    misses = sum(v for k, v in c.items() if k.startswith("applied MISS: "))
    assert c["applied Move/Run"] == c["applied placement equal"] + misses, dict(c)
