"""8.9.1 CALCULATE CONTROL and STICKY CONTROL in one compiled pass (fastcontrol.take_control) against a naive loop over
games, markers and units in this file."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario.fastcontrol import CONTROL_BLOCK, UNREAD, destroyed_supply, score_held, take_control


def _naive(pos, alive, used, bits, contests, ts, first, supply, players, removed, control, gained) -> None:
    """8.9.1 read game by game: a unit contests a marker where it may (not Flying/Structure, not BURROWED), is on the
    table and its first contesting model is one of those left; the player alone contesting, or with the higher summed
    Supply, takes control; a tie or nobody keeps it (sticky); a removed marker is not controlled."""
    for t in ts:
        for m in range(control.shape[0]):
            sums, there = [0, 0], [False, False]
            for u in range(pos.shape[0]):
                pid = pos[u, t]
                if contests[u] and pid >= 0 and not used[u, t] & bits[u] and first(pid, m) < alive[u, t]:
                    sums[players[u]] += supply[u, t]
                    there[players[u]] = True
            gained[m, t] = False
            w = -1
            if there[0] and (not there[1] or sums[0] > sums[1]):
                w = 0
            elif there[1] and (not there[0] or sums[1] > sums[0]):
                w = 1
            if w >= 0 and not removed[m, t]:
                gained[m, t] = control[m, t] == 1 - w
                control[m, t] = w


@pytest.mark.parametrize("games", [2, 9, 500, 5 * CONTROL_BLOCK + 777])  # `ts` (half): a game or a few (buffers
# of their size), one block; three, the last part
@pytest.mark.parametrize("seed", range(6))
def test_take_control_equals_the_naive_loop(seed: int, games: int) -> None:
    rng = np.random.default_rng(seed)
    units, markers, placements = 7, 5, 40
    pos = rng.integers(-1, placements, (units, games))
    alive = rng.integers(0, 4, (units, games))
    used = rng.integers(0, 4, (units, games))
    bits = np.array([0, 2, 0, 0, 1, 0, 0], dtype=np.int64)  # BURROWED bits of units 1 and 4
    contests = np.array([True, True, False, True, True, True, False])  # 2 and 6: Flying or a Structure
    players = np.array([0, 0, 0, 1, 1, 1, 1], dtype=np.int64)
    supply = rng.integers(0, 5, (units, games))
    removed = rng.random((markers, games)) < 0.1
    table = rng.integers(0, 5, (placements, markers))  # first contesting model (4 and up: none of 3 left)
    ts = np.sort(rng.choice(games, games // 2, replace=False))
    control = rng.integers(-1, 2, (markers, games))
    gained = rng.random((markers, games)) < 0.5
    want_control, want_gained = control.copy(), gained.copy()
    _naive(
        pos,
        alive,
        used,
        bits,
        contests,
        ts,
        lambda p, m: table[p, m],
        supply,
        players,
        removed,
        want_control,
        want_gained,
    )
    asked: list[tuple[int, int]] = []

    def read(pid: int, m: int) -> int:
        asked.append((pid, m))
        return int(table[pid, m])

    firsts = np.full((3, markers), UNREAD, dtype=np.int64)
    firsts = take_control(pos, alive, used, bits, contests, ts, firsts, supply, players, removed, control, gained, read)
    assert control.tolist() == want_control.tolist()
    assert gained.tolist() == want_gained.tolist()
    assert len(asked) == len(set(asked))  # each placement read once
    read_pids = {p for p, _ in asked}
    assert (firsts[sorted(read_pids)] == table[sorted(read_pids)]).all()
    # a second Round reads nothing again and gives the same answer as the naive loop
    asked.clear()
    control2, gained2 = want_control.copy(), want_gained.copy()
    _naive(pos, alive, used, bits, contests, ts, lambda p, m: table[p, m], supply, players, removed, control2, gained2)
    take_control(pos, alive, used, bits, contests, ts, firsts, supply, players, removed, control, gained, read)
    assert asked == []  # every placement it needs was read in the first Round
    assert control.tolist() == control2.tolist() and gained.tolist() == gained2.tolist()


def test_destroyed_supply_equals_the_numpy_drops() -> None:
    """ "Score VPs equal to Enemy Supply destroyed this Round" (every Mission Card; FAQ v1.0: any drop in Current
    Supply Value): each unit's drop from its reference, to the enemy, in the games asked only."""
    rng = np.random.default_rng(3)
    ref, now = rng.integers(0, 6, (5, 300)), rng.integers(0, 6, (5, 300))
    players = np.array([0, 1, 1, 0, 1], dtype=np.int64)
    live = np.sort(rng.choice(300, 120, replace=False))
    want = np.zeros((2, 300), dtype=np.int64)
    for u in range(5):
        want[1 - players[u]] += np.maximum(0, ref[u] - now[u])
    got = destroyed_supply(ref, now, players, live)
    assert got[:, live].tolist() == want[:, live].tolist()
    assert not got[:, np.setdiff1d(np.arange(300), live)].any()


def test_score_held_equals_the_naive_loop() -> None:
    """Hold Position, Frontlines, Gather the Resources: VP per Controlled Mission Marker by marker and player, more
    where control was gained from the Opponent this Round (Frontlines)."""
    rng = np.random.default_rng(5)
    control, gained = rng.integers(-1, 2, (5, 400)), rng.random((5, 400)) < 0.3
    points, bonus = rng.integers(0, 3, (5, 2)), rng.integers(0, 3, (5, 2))
    live = np.sort(rng.choice(400, 250, replace=False))
    want = np.zeros((2, 400), dtype=np.int64)
    for m in range(5):
        for t in live:
            p = control[m, t]
            if p >= 0:
                want[p, t] += points[m, p] + bonus[m, p] * gained[m, t]
    vp = np.zeros((2, 400), dtype=np.int64)
    score_held(control, gained, live, points, bonus, vp)
    assert vp.tolist() == want.tolist()
