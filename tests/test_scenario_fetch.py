"""The compiled kernels that fetch the games ahead (:mod:`mathhammer.scenario.fastfetch`, a cache hint only) give the
answers of naive references at every count of games around the distance they fetch ahead (fewer games than it, as
many, one more, many), the games scattered over wide arrays."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario.fastfetch import AHEAD
from mathhammer.scenario.fasttables import BoardTable

COUNTS = [1, 2, AHEAD - 1, AHEAD, AHEAD + 1, 3 * AHEAD + 5, 700]


@pytest.mark.parametrize("n", COUNTS)
def test_the_outcome_draw_fetching_ahead_is_the_naive_draw(n: int) -> None:
    """sim_shoot.Draws.apply (fastsim._apply_kernel) against a game-by-game reading (8.7.4: each game's outcome
    drawn from its key's exact distribution): key (Damage Marker, SHIELDED, abilities used, Total Damage reduction,
    Armour steps), uniforms(seed, stream, game), searchsorted(side="right") clipped to the last row, models lost,
    Damage Marker and SHIELDED set (a Destroyed unit's marker cleared), the Hit Points lost added to taken and dealt;
    the Destroyed games key after key, in order of their key's first game."""
    from mathhammer.scenario.basics import draw_base
    from mathhammer.scenario.sim_shoot import Draws
    from mathhammer.scenario.sim_state import uniforms

    rng = np.random.default_rng(n)
    T, k, stream, offset = 5000, 3, 12345, 77
    health = np.array([0, 2, 4, 6], dtype=np.int64)
    games = np.sort(rng.choice(T, n, replace=False))
    state = np.stack(
        [rng.integers(1, 4, T), rng.integers(0, 2, T), rng.integers(0, 2, T), rng.integers(0, 2, T)]
    ).astype(np.int64)
    state[0, games] = k
    cut, better = rng.integers(0, 2, T).astype(np.int64), np.zeros(T, dtype=np.int64)
    taken0, dealt0 = rng.integers(0, 5, T).astype(np.int64), rng.integers(0, 5, T).astype(np.int64)
    tables: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, bool]] = {}

    def transition(key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
        if key not in tables:
            m = int(rng.integers(2, 6))
            arr = np.column_stack([rng.integers(0, 4, m), rng.integers(0, 2, m), rng.integers(0, 2, m), np.zeros(m)])
            cdf = np.cumsum(rng.random(m))
            tables[key] = (arr.astype(np.int64), cdf / cdf[-1], False)
        return tables[key]

    ref, taken, dealt = state.copy(), taken0.copy(), dealt0.copy()
    first: dict[tuple[int, ...], int] = {}
    dead: list[tuple[int, int]] = []
    for t in games.tolist():  # game by game
        key = (int(ref[1, t]), int(ref[2, t]), int(ref[3, t]), int(cut[t]), int(better[t]))
        rank = first.setdefault(key, len(first))
        arr, cdf, _ = transition(key)
        u = float(uniforms(9, stream, np.array([t + offset]))[0])
        pick = min(int(np.searchsorted(cdf, u, side="right")), cdf.size - 1)
        before = health[k] - ref[1, t]
        left = k - int(arr[pick, 0])
        ref[0, t], ref[1, t], ref[2, t] = left, arr[pick, 1] if left > 0 else 0, arr[pick, 2]
        after = health[max(left, 0)] - ref[1, t]
        taken[t] += max(before - after, 0)
        dealt[t] += max(before - after, 0)
        if left <= 0:
            dead.append((rank, t))
    got, tally = state.copy(), [taken0.copy(), dealt0.copy()]
    out = Draws().apply(
        got, np.arange(4), cut, better, games, draw_base(9, stream), offset, k, np.zeros(0, bool), health,
        *tally, True, transition,
    )  # fmt: skip
    assert got.tolist() == ref.tolist()
    assert out.tolist() == [t for _, t in sorted(dead, key=lambda d: d[0])]
    assert tally[0].tolist() == taken.tolist() and tally[1].tolist() == dealt.tolist()
    if n >= AHEAD:
        assert (taken != taken0).any()


@pytest.mark.parametrize("n", COUNTS)
def test_a_unit_moved_fetching_ahead_is_the_naive_move(n: int) -> None:
    """BoardTable.move (fasttables._move_kernel): each game's board is its old board with the unit at its new
    placement, interned (equal vectors, one id; the new ids those not there before, each with the board it came
    from), and the unit's placement written beside."""
    rng = np.random.default_rng(100 + n)
    U, T, u = 4, 3000, 2
    tab = BoardTable(U)
    olds = [tab.intern(tuple(rng.integers(-1, 6, U).tolist()))[0] for _ in range(20)]
    board = rng.choice(olds, T).astype(np.int64)
    before = [tuple(r) for r in tab.rows[: tab.n].tolist()]
    ts = np.sort(rng.choice(T, n, replace=False))
    pids = rng.integers(-1, 4, n).astype(np.int64)
    want = []
    for t, p in zip(ts.tolist(), pids.tolist(), strict=True):  # game by game
        vec = list(tab.rows[board[t]])
        vec[u] = p
        want.append(tuple(vec))
    placed = np.full(T, 99, dtype=np.int64)
    untouched = np.setdiff1d(np.arange(T), ts)
    board0 = board.copy()
    new, old = tab.move(board, ts, u, pids, placed)
    assert [tuple(tab.rows[b].tolist()) for b in board[ts].tolist()] == want
    assert board[untouched].tolist() == board0[untouched].tolist()
    assert placed[ts].tolist() == pids.tolist() and (placed[untouched] == 99).all()
    rows = [tuple(r) for r in tab.rows[: tab.n].tolist()]
    assert len(set(rows)) == len(rows)  # one id per vector
    assert sorted(new.tolist()) == list(range(len(before), len(rows)))
    assert {rows[b] for b in new.tolist()} == set(want) - set(before)
    for b, o in zip(new.tolist(), old.tolist(), strict=True):
        assert rows[b][:u] + rows[b][u + 1 :] == rows[o][:u] + rows[o][u + 1 :]


@pytest.mark.parametrize("n", COUNTS)
def test_the_board_split_fetching_ahead_is_the_naive_split(n: int) -> None:
    """IdGrouper.split (fast._by_id_kernel) and NearSplitter.split (fast._near_cells_kernel, _near_keys_kernel)
    against a game-by-game reading: the games by board id in order of first game (positions in the games), and by
    the placements of some units that pass a test (-1 otherwise), boards of one key board after board."""
    from mathhammer.scenario.fast import IdGrouper, NearSplitter

    rng = np.random.default_rng(200 + n)
    T, B, U = 4000, 900, 5
    rows = rng.integers(-1, 40, (B, U)).astype(np.int64)
    ids = rng.integers(0, B, T).astype(np.int64)
    games = np.sort(rng.choice(T, n, replace=False))
    by_id: dict[int, list[int]] = {}
    for i, t in enumerate(games.tolist()):
        by_id.setdefault(int(ids[t]), []).append(i)
    order, bounds, got_ids = IdGrouper().split(ids, games, B)
    assert got_ids.tolist() == list(by_id)
    assert [order[bounds[g] : bounds[g + 1]].tolist() for g in range(len(by_id))] == list(by_id.values())
    units = np.array([0, 2, 3], dtype=np.int64)
    near: dict[tuple[int, ...], list[int]] = {}
    for b, idx in by_id.items():
        key = tuple(int(p) if p >= 0 and p % 3 else -1 for p in rows[b, units].tolist())
        near.setdefault(key, []).extend(idx)
    keys, out, ends = NearSplitter().split(ids, games, rows, units, lambda ps: ps % 3 != 0, 40)
    assert [tuple(k) for k in keys.tolist()] == list(near)
    assert [out[(ends[g - 1] if g else 0) : ends[g]].tolist() for g in range(len(near))] == list(near.values())


def test_the_abilities_used_kept_row_after_row_are_the_naive_reading() -> None:
    """fastsim._keep_bits (Cleanup: the abilities used kept or cleared per unit, each game of ``live``) against
    ``used[u, t] & keep[u]`` game by game; a unit keeping every bit (-1) and the games not live untouched."""
    from mathhammer.scenario.fastsim import _keep_bits

    rng = np.random.default_rng(4)
    used = rng.integers(0, 64, (6, 500)).astype(np.int64)
    keep = np.array([-1, 5, 0, -1, 12, 1], dtype=np.int64)
    live = np.sort(rng.choice(500, 300, replace=False)).astype(np.int64)
    want = used.copy()
    for t in live.tolist():
        for u in range(6):
            want[u, t] = want[u, t] & keep[u]
    _keep_bits(used, keep, live)
    assert used.tolist() == want.tolist()


def test_the_kernels_fetch_ahead() -> None:
    """The hint is compiled into the kernels that read scattered games (the LLVM prefetch instruction; read from a
    fresh compilation: numba's cache keeps no LLVM text)."""
    from numba import njit

    from mathhammer.scenario.fast import _by_id_kernel, _near_cells_kernel
    from mathhammer.scenario.fastsim import _apply_kernel
    from mathhammer.scenario.fasttables import _move_kernel

    n = AHEAD + 1  # the kernels compiled in this process (a test worker may not have run the tests above)
    test_the_outcome_draw_fetching_ahead_is_the_naive_draw(n)
    test_a_unit_moved_fetching_ahead_is_the_naive_move(n)
    test_the_board_split_fetching_ahead_is_the_naive_split(n)
    for kernel in (_apply_kernel, _move_kernel, _by_id_kernel, _near_cells_kernel):
        assert kernel.signatures, kernel
        fresh = njit(cache=False)(kernel.py_func)
        fresh.compile(kernel.signatures[0])
        assert "llvm.prefetch" in fresh.inspect_llvm(fresh.signatures[0]), kernel


def test_the_hint_compiles_and_runs_under_the_names_llvmlite_gives() -> None:
    """fetch and fetch2 declare LLVM's prefetch intrinsic under llvmlite's own mangling for the pointer type they pass
    (typed ``i8*``: ``llvm.prefetch.p0i8``; an LLVM with opaque pointers renames it ``llvm.prefetch.p0``): a fresh
    kernel fetching 1-D and 2-D elements, some past the end, compiles, runs, returns the sums of a plain loop, and
    its optimised LLVM calls the intrinsic."""
    from numba import njit

    from mathhammer.scenario.fastfetch import fetch, fetch2

    def kernel(a: np.ndarray, b: np.ndarray) -> int:
        s = 0
        for i in range(a.size):
            fetch(a, i + AHEAD)
            fetch2(b, 1, i + AHEAD)
            s += a[i] * b[1, i]
        return s

    fresh = njit(cache=False)(kernel)
    a, b = np.arange(50, dtype=np.int64), np.arange(100, dtype=np.int64).reshape(2, 50)
    assert fresh(a, b) == int((a * b[1]).sum())
    text = fresh.inspect_llvm(fresh.signatures[0])
    assert "@llvm.prefetch." in text
