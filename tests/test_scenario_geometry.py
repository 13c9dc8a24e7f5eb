"""The scenario simulation's shortcuts give the answers of the plain computation.

The simulation groups trials with a hash table (``scenario.fast``), reads geometry on boards that
hold only the units that can matter (``World.engaged_pairs``, ``strikers``, ``facts``,
``charge_length`` with a reach), builds boards without the validation pass (``Board.trusted``) and
gives equal placements one id. Each shortcut is held here to the naive computation on the full
board, on every board state a real game of the 6-a-side example visits.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from mathhammer.board.engagement import engaged
from mathhammer.board.facts import weapon_facts
from mathhammer.board.model import Board, board_problems
from mathhammer.board.ranks import fighting_ranks
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.fast import IdGrouper, group_rows, group_state, regroup
from mathhammer.scenario.fastnear import clear_of, near_any
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import AUTO, World


def _naive_groups(cols: np.ndarray, trials: np.ndarray) -> dict[tuple[int, ...], list[int]]:
    out: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for t in trials.tolist():
        out[tuple(cols[:, t].tolist())].append(t)
    return dict(out)


@pytest.mark.parametrize("seed", range(6))
def test_group_rows_matches_a_dictionary(seed: int) -> None:
    """Every trial lands in the group of its key, in trial order; groups in order of first trial."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 3000)), int(rng.integers(1, 9))
    cols = rng.integers(-2, int(rng.integers(2, 6)), size=(c, n))
    trials = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    order, bounds, keys = group_rows(cols, trials)
    want = _naive_groups(cols, trials)
    got = {tuple(keys[g].tolist()): order[bounds[g] : bounds[g + 1]].tolist() for g in range(len(keys))}
    assert got == want
    firsts = [order[bounds[g]] for g in range(len(keys))]
    assert firsts == sorted(firsts)
    rows = rng.permutation(c)[: max(1, c // 2)]
    o2, b2, k2 = group_state(np.ascontiguousarray(cols), rows.astype(np.int64), trials)
    assert {tuple(k2[g].tolist()): o2[b2[g] : b2[g + 1]].tolist() for g in range(len(k2))} == _naive_groups(
        cols[rows], trials
    )


@pytest.mark.parametrize("seed", range(6))
def test_group_state_packed_keys_equal_the_hashed_split(seed: int) -> None:
    """group_state with a field width per row (the trials' columns packed into one int64): the split of the
    hashing kernel, call after call, as values outgrow their fields (widened, that call hashed) or cannot be
    packed (below -1; more than 62 bits), and for tables of every code (<= 12 bits) and hashed codes."""
    rng = np.random.default_rng(seed)
    rows_n = 12
    bits = np.ones(rows_n, dtype=np.int64)
    for step in range(8):
        n = int(rng.integers(1, 2000))
        hi = int(rng.choice([2, 5, 40, 3000]))
        state = rng.integers(-1, hi, size=(rows_n, n))
        if step == 5:
            state[3, n // 2] = -7  # cannot be packed: row 3 is hashed from now on
        rows = rng.permutation(rows_n)[: int(rng.integers(1, 7))].astype(np.int64)
        trials = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        before = bits.copy()
        got = group_state(state, rows, trials, bits)
        want = group_state(state, rows, trials)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        assert (bits >= before).all()
        need = [int(state[r, trials].max() + 1).bit_length() for r in rows.tolist()]
        assert all(bits[r] >= w for r, w in zip(rows.tolist(), need, strict=True))
        again = group_state(state, rows, trials, bits)  # widths fit now: packed, unless more than 62 bits
        assert all(np.array_equal(a, b) for a, b in zip(again, want, strict=True))


@pytest.mark.parametrize("seed", range(4))
def test_group_state_scattered_games_and_one_group(seed: int) -> None:
    """group_state's packed keys where the games lie far apart (read row after row, ``fast._SPARSE``), where they
    are all alike (one group: the games as given), and unsorted: the hashing kernel's split, widths widened alike."""
    from mathhammer.scenario import fast

    rng = np.random.default_rng(100 + seed)
    rows_n, n = 6, 50_000
    bits = np.ones(rows_n, dtype=np.int64)
    for step in range(6):
        hi = int(rng.choice([1, 3, 9, 200]))
        state = rng.integers(-1, hi, size=(rows_n, n))
        if step == 3:
            state[:, :] = 2  # every game alike
        rows = rng.permutation(rows_n)[: int(rng.integers(2, 6))].astype(np.int64)
        size = int(rng.integers(2, n // (2 * fast._SPARSE)))
        trials = np.sort(rng.choice(n, size=size, replace=False))
        assert trials[-1] - trials[0] > fast._SPARSE * size  # scattered: read row after row
        if step == 5:
            trials = rng.permutation(trials)  # not in order: game after game
        widths = bits.copy()
        got = group_state(state, rows, trials, bits)
        want = group_state(state, rows, trials)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        need = [int(state[r, trials].max() + 1).bit_length() for r in rows.tolist()]
        assert all(bits[r] >= max(w, widths[r]) for r, w in zip(rows.tolist(), need, strict=True))
        again = group_state(state, rows, trials, bits)  # packed now
        assert all(np.array_equal(a, b) for a, b in zip(again, want, strict=True))
        if step == 3:
            assert again[1].tolist() == [0, size] and again[0].tolist() == trials.tolist()


def test_group_state_packs_only_the_rows_that_vary() -> None:
    """group_state reads which rows vary among the trials first: a row constant among them (whatever it holds in
    other games, however wide its value) is not packed, only widened to hold its one value, so the call stays
    packed where packing every row would not fit; no row varying: one group, the games as given; a varying row
    too wide is widened and that call hashed. The split is the hashing kernel's every time."""
    from mathhammer.scenario import fast

    rng = np.random.default_rng(11)
    n = 3000
    state = np.zeros((4, n), dtype=np.int64)
    state[0] = rng.integers(0, 3, size=n)  # varies: 2 bits
    state[1] = 1000  # constant among the trials, 10 bits
    state[1, ::2] = 5  # ... but not in the games left out
    state[2] = rng.integers(0, 2, size=n)
    state[3] = rng.integers(0, 70, size=n)
    trials = np.arange(1, n, 2, dtype=np.int64)
    rows = np.array([0, 1, 2], dtype=np.int64)
    bits = np.array([2, 1, 2, 1], dtype=np.int64)
    coded, order, bounds, keys = fast._coded_kernel(state, rows, trials, bits)
    want = group_state(state, rows, trials)
    assert coded and all(np.array_equal(a, b) for a, b in zip((order, bounds, keys), want, strict=True))
    assert bits.tolist() == [2, 10, 2, 1] and set(keys[:, 1].tolist()) == {1000}
    one = fast._coded_kernel(state, np.array([1], dtype=np.int64), trials, bits)
    assert one[0] and one[1].tolist() == trials.tolist() and one[2].tolist() == [0, trials.size]
    assert one[3].tolist() == [[1000]]
    rows = np.array([3, 0, 2], dtype=np.int64)  # row 3 outgrows its field: widened, hashed this call
    assert not fast._coded_kernel(state, rows, trials, bits)[0] and bits[3] == 7
    coded, order, bounds, keys = fast._coded_kernel(state, rows, trials, bits)
    want = group_state(state, rows, trials)
    assert coded and all(np.array_equal(a, b) for a, b in zip((order, bounds, keys), want, strict=True))
    wide = bits.copy()
    wide[[0, 2, 3]] = 30  # 90 bits of varying rows: hashed, the split the same
    assert not fast._coded_kernel(state, rows, trials, wide)[0]
    state[2, trials[7]] = -7  # below -1: no field holds it; the one row that varies is hashed as it is
    only = np.array([1, 2], dtype=np.int64)
    for _ in range(2):  # widened (to 63), then as it is again
        coded, *got = fast._coded_kernel(state, only, trials, bits)
        assert coded and all(np.array_equal(a, b) for a, b in zip(got, group_state(state, only, trials), strict=True))
    assert bits[2] == 63
    big = np.stack([state[0], state[0] * 2**40 + 3])  # group_rows: fields as wide as the values, 41 bits
    assert all(
        np.array_equal(a, b) for a, b in zip(group_rows(big, trials), group_state(big, only - 1, trials), strict=True)
    )


@pytest.mark.parametrize("scattered", [False, True])
def test_group_state_tables_of_every_code_and_many_rows(scattered: bool) -> None:
    """group_state's table of every code where the code has more than ``_DIRECT_BITS`` bits but no more entries
    than the games (read game after game in one pass, or row after row where the games lie far apart), and its
    many rows of games close together (every row packed, none read first): the hashing kernel's split."""
    from mathhammer.scenario import fast

    rng = np.random.default_rng(12)
    n = 200_000 if scattered else 40_000
    state = rng.integers(0, 100, size=(8, n))  # 7 bits a row
    state[5] = 3
    size = 20_000
    trials = np.sort(rng.choice(n, size=size, replace=False)).astype(np.int64)
    assert (trials[-1] - trials[0] > fast._SPARSE * size) == scattered
    rows = np.array([2, 5, 0], dtype=np.int64)  # 14 bits packed: more than _DIRECT_BITS, a table of 16,384
    assert fast._DIRECT_BITS < 14 <= fast._TABLE_BITS and size >= 1 << 14
    bits = np.full(8, 7, dtype=np.int64)
    coded, *got = fast._coded_kernel(state, rows, trials, bits)
    assert coded and all(np.array_equal(a, b) for a, b in zip(got, group_state(state, rows, trials), strict=True))
    if not scattered:
        many = np.array([5, 5, 5, 5, 5, 5, 5], dtype=np.int64)  # many rows, one group
        assert many.size >= fast._MANY_ROWS
        coded, order, bounds, keys = fast._coded_kernel(state, many, trials, bits)
        assert coded and order.tolist() == trials.tolist() and bounds.tolist() == [0, size]
        assert keys.tolist() == [[3] * 7]
        many = np.array([5, 1, 5, 5, 5, 5, 6], dtype=np.int64)  # many rows, hashed codes
        coded, *got = fast._coded_kernel(state, many, trials, bits)
        assert coded and all(np.array_equal(a, b) for a, b in zip(got, group_state(state, many, trials), strict=True))


def _naive_near_split(ids, trials, rows, units, keep):  # type: ignore[no-untyped-def]
    """NearSplitter's split by a loop: boards in order of first trial, keyed, grouped by key in order of first
    board; a group's positions board after board."""
    by_board: dict[int, list[int]] = {}
    for i, t in enumerate(trials.tolist()):
        by_board.setdefault(int(ids[t]), []).append(i)
    groups: dict[tuple[int, ...], list[int]] = {}
    for b, pos in by_board.items():
        key = tuple(int(p) if p >= 0 and keep(int(p)) else -1 for p in rows[b, units].tolist())
        groups.setdefault(key, []).extend(pos)
    return groups


@pytest.mark.parametrize("second", [None, 0, 1, 700, 1999])
def test_near_splitter_on_one_board_and_a_second_found_late(second: int | None) -> None:
    """NearSplitter where every trial is on one board (the trials as given, one group, read without the board
    marks) and where a second board comes first, second, after the first block of 512 trials, or last: the
    loop over boards every time."""
    from mathhammer.scenario.fast import NearSplitter

    rng = np.random.default_rng(5)
    rows = rng.integers(-1, 40, size=(6, 4))  # 6 boards, 4 units: placements 0..39, -1 off the table
    n = 6000
    ids = rng.integers(0, 6, size=n)
    trials = np.sort(rng.choice(n, size=2000, replace=False)).astype(np.int64)
    ids[trials] = 2
    if second is not None:
        ids[trials[second]] = 4
    units = np.array([3, 0, 1], dtype=np.int64)
    splitter = NearSplitter()
    for _ in range(2):  # marks kept between calls
        keys, out, ends = splitter.split(ids, trials, rows, units, lambda ps: ps % 3 != 0, 40)
        got = {tuple(k): out[(ends[g - 1] if g else 0) : ends[g]].tolist() for g, k in enumerate(keys.tolist())}
        assert list(got.items()) == list(_naive_near_split(ids, trials, rows, units, lambda p: p % 3 != 0).items())
        if second is None:
            assert out.tolist() == list(range(trials.size)) and ends.tolist() == [trials.size]


def test_id_grouper_equals_group_rows_and_regroup_concatenates() -> None:
    """The board-id split (no hashing, scratch kept between calls) gives group_rows' split of the ids, call after
    call with the ids growing; regroup lists each outer group's items group after group."""
    rng = np.random.default_rng(7)
    grouper = IdGrouper()
    for n_ids in (3, 50, 3000, 20):  # the scratch grows, then serves a smaller call (old marks never match)
        ids = rng.integers(0, n_ids, size=4000)
        trials = np.sort(rng.choice(4000, size=int(rng.integers(1, 4000)), replace=False))
        order, bounds, got_ids = grouper.split(ids, trials, n_ids)
        o2, b2, k2 = group_rows(ids[trials][None, :], np.arange(trials.size))
        assert (
            order.tolist() == o2.tolist() and bounds.tolist() == b2.tolist() and got_ids.tolist() == k2[:, 0].tolist()
        )
        outer = rng.integers(0, 3, size=got_ids.size)
        b_order, b_bounds, _ = group_rows(outer[None, :], np.arange(got_ids.size))
        items, ends = regroup(order, bounds, b_order, b_bounds)
        want = [
            i
            for g in range(len(b_bounds) - 1)
            for b in b_order[b_bounds[g] : b_bounds[g + 1]].tolist()
            for i in order[bounds[b] : bounds[b + 1]].tolist()
        ]
        sizes = [
            sum(int(bounds[b + 1] - bounds[b]) for b in b_order[b_bounds[g] : b_bounds[g + 1]].tolist())
            for g in range(len(b_bounds) - 1)
        ]
        assert items.tolist() == want and ends.tolist() == np.cumsum(sizes).tolist()
        assert ends[-1] == trials.size


@pytest.mark.parametrize("seed", range(4))
def test_group_rows_with_runs_of_one_key(seed: int) -> None:
    """Runs of trials with one key (the kernel reuses the previous trial's group without hashing), keys that
    differ from the previous trial's in one column only, and a key met again after another."""
    rng = np.random.default_rng(seed)
    n, c = 2000, int(rng.integers(1, 5))
    base = rng.integers(0, 3, size=(c, 40))
    cols = np.repeat(base, rng.integers(1, 100, 40), axis=1)[:, :n]
    cols = np.pad(cols, ((0, 0), (0, n - cols.shape[1])), mode="edge")
    cols[-1, rng.choice(n, 50)] += 1  # one column off, inside a run
    trials = np.sort(rng.choice(n, size=1500, replace=False))
    order, bounds, keys = group_rows(cols, trials)
    got = {tuple(keys[g].tolist()): order[bounds[g] : bounds[g + 1]].tolist() for g in range(len(keys))}
    assert got == _naive_groups(cols, trials)
    assert [order[bounds[g]] for g in range(len(keys))] == sorted(order[bounds[g]] for g in range(len(keys)))


@pytest.mark.parametrize("n", [1, 2, 500])
def test_group_rows_one_group(n: int) -> None:
    """All trials alike (the kernel's reading-only path), then one trial different at the end."""
    cols = np.tile(np.array([[3], [-1], [7]]), (1, n))
    order, bounds, keys = group_rows(cols, np.arange(n))
    assert order.tolist() == list(range(n)) and bounds.tolist() == [0, n] and keys.tolist() == [[3, -1, 7]]
    cols[2, -1] = 8
    got = group_rows(cols, np.arange(n))
    want = _naive_groups(cols, np.arange(n))
    assert {tuple(got[2][g].tolist()): got[0][got[1][g] : got[1][g + 1]].tolist() for g in range(len(got[2]))} == want


def test_group_rows_with_colliding_hashes() -> None:
    """Keys that differ only far from the first column still split (exact comparison, not the hash)."""
    cols = np.zeros((3, 1000), dtype=np.int64)
    cols[2] = np.arange(1000) % 7
    order, bounds, keys = group_rows(cols, np.arange(1000))
    assert len(keys) == 7 and sorted(keys[:, 2].tolist()) == list(range(7))
    assert all(bounds[g + 1] - bounds[g] in (142, 143) for g in range(7))
    assert sorted(order.tolist()) == list(range(1000))


@pytest.mark.parametrize("seed", range(8))
def test_clear_of_matches_the_numpy_gaps_to_the_last_bit(seed: int) -> None:
    """The compiled spot test of Close Ranks equals the numpy reading it replaced (edge gaps
    ``sqrt(((p - c) ** 2).sum()) - r - rs``, compared with ``>=``/``<=``), bases placed so that many gaps
    sit exactly on the limits (a base 0.05" or 1" away, as the moves set them)."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 60)), int(rng.integers(0, 40))
    r, apart, eng = float(rng.choice([0.49, 0.63, 0.98])), 0.024, 1.0 + 1e-9
    cs = rng.uniform(0, 10, (m, 2))
    rs = rng.choice([0.49, 0.63, 0.98, 1.57], m)
    solid, enemy = rng.random(m) < 0.8, rng.random(m) < 0.4
    # points at exactly apart / eng from a base (in the float sense of the numpy expression) and random ones
    pick = rng.integers(0, max(m, 1), n)
    ang = rng.uniform(0, 2 * np.pi, n)
    dist = r + (rs[pick] if m else 0.5) + rng.choice([apart, eng, 0.0, 0.3], n)
    base = cs[pick] if m else np.zeros((n, 2))
    pts = np.where(
        (rng.random(n) < 0.5)[:, None],
        base + dist[:, None] * np.stack([np.cos(ang), np.sin(ang)], axis=1),
        rng.uniform(0, 10, (n, 2)),
    )
    g = np.sqrt(((pts[:, None, :] - cs[None, :, :]) ** 2).sum(axis=2)) - r - rs
    want = ~((g < apart) & solid[None, :]).any(axis=1) & ~((g <= eng) & enemy[None, :]).any(axis=1)
    assert np.array_equal(clear_of(pts, cs, rs, r, apart, solid, eng, enemy), want)
    # the "keep them together" test of the same spots against the bases as set models
    if m:
        lim = float(rng.choice([2 * r + 2.1, 1.5]))
        d = np.sqrt(((pts[:, None, :] - cs[None, :, :]) ** 2).sum(axis=2))
        lim_hit = float(d[0, 0])  # a spot exactly at the limit
        for lim_ in (lim, lim_hit):
            assert np.array_equal(near_any(pts, cs, lim_), (d <= lim_).any(axis=1))


@pytest.mark.parametrize("step", [0.6, 1.0433070866141732, 1.3])
def test_the_close_ranks_grid_is_the_grid_computed_point_by_point(step: float) -> None:
    """The grid fallback's spots (the frame's offsets kept per spacing) equal the hexagonal grid laid in the unit's
    frame computed for each Leading Model and rear, to the last bit: (a + b / 2, b * sqrt(3) / 2) steps along the
    lateral (the rear turned counter-clockwise) and ahead (against the rear), a, b, a + b within GRID_SPAN."""
    from mathhammer.scenario.world import GRID_SPAN, close_ranks_grid

    span = range(-GRID_SPAN, GRID_SPAN + 1)
    for lead in [(0.0, 0.0), (17.31, 9.877), (3.3333333, 44.1)]:
        for bx, by in [(0.0, -1.0), (1.0, 0.0), (0.6, 0.8), (-math.sqrt(0.5), math.sqrt(0.5))]:
            want = np.asarray(
                [
                    (lead[0] + lat * -by - fwd * bx, lead[1] + lat * bx - fwd * by)
                    for a in span
                    for b in span
                    if abs(a + b) <= GRID_SPAN
                    for lat, fwd in [(step * (a + 0.5 * b), step * (math.sqrt(3) / 2) * b)]
                ]
            )
            assert np.array_equal(close_ranks_grid(lead, step, (bx, by)), want)


class _Recorder(World):
    """A World that keeps the arguments of every geometry question."""

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.calls: dict[str, list[tuple[Any, ...]]] = defaultdict(list)

    def pair_engaged(self, pa, ka, pb, kb):  # type: ignore[no-untyped-def]
        self.calls["pairs"].append((pa, ka, pb, kb))
        return super().pair_engaged(pa, ka, pb, kb)

    def strikers(self, pos, alive, uid):  # type: ignore[no-untyped-def]
        self.calls["strikers"].append((pos, alive, uid))
        return super().strikers(pos, alive, uid)

    def facts(self, pos, alive, uid, tid, weapon, tags):  # type: ignore[no-untyped-def]
        self.calls["facts"].append((pos, alive, uid, tid, weapon, tags))
        return super().facts(pos, alive, uid, tid, weapon, tags)

    def charge_length(self, pos, alive, uid, targets, reach=None, fields=(), engaged_ok=False):  # type: ignore[no-untyped-def]
        self.calls["charge"].append((pos, alive, uid, targets, reach))
        return super().charge_length(pos, alive, uid, targets, reach, fields, engaged_ok)

    def place(self, su, lead, rear, occupied, allowed_enemies=(), on=AUTO, targets_left=(), arriving=None):  # type: ignore[no-untyped-def]
        self.calls["place"].append((su.id, lead, rear, occupied, allowed_enemies, on, targets_left, arriving))
        return super().place(su, lead, rear, occupied, allowed_enemies, on, targets_left, arriving)

    def place_near_lead(self, su, lead, rear, occupied, arriving=None):  # type: ignore[no-untyped-def]
        self.calls["place_near_lead"].append((su.id, lead, rear, occupied, arriving))
        return super().place_near_lead(su, lead, rear, occupied, arriving)


@pytest.fixture(scope="module")
def visited() -> _Recorder:
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    scn = load_scenario(path)
    sim = Simulation(scn, 400, 3)
    sim.world = _Recorder(scn)
    sim.run()
    return sim.world


@pytest.fixture(scope="module")
def visited_far() -> _Recorder:
    """:func:`visited`'s games with the grid's first look cut to 1" (``near_limit``): almost every Move and Deploy
    looks beyond it, so :meth:`World.place` reads the units in reach of every spot (the fallback)."""
    from mathhammer.scenario.geometry import placement

    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    scn = load_scenario(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(placement, "near_limit", lambda models, base_mm: 1.0)
        sim = Simulation(scn, 200, 3)
        sim.world = _Recorder(scn)
        sim.run()
    return sim.world


def _full(world: World, pos: tuple[int, ...], alive: tuple[int, ...]) -> Board:
    """The whole board state, validated (the slow, plain way)."""
    b = world.board_for(pos, alive)
    return Board(b.width, b.depth, b.terrain, b.units)


def _sample(calls: list[tuple[Any, ...]], k: int) -> list[tuple[Any, ...]]:
    uniq = list(dict.fromkeys(calls))
    step = max(1, len(uniq) // k)
    return uniq[::step]


def test_the_game_visits_every_kind_of_question(visited: _Recorder) -> None:
    assert {k: len(v) > 0 for k, v in visited.calls.items()} == {
        "pairs": True,
        "strikers": True,
        "facts": True,
        "charge": True,
        "place_near_lead": True,
    }


def test_trusted_boards_are_legal_boards(visited: _Recorder) -> None:
    """Placements follow 8.5.3 (on the table, off terrain, bases apart): no board needs the validation pass."""
    for (pos, alive, fields), board in list(visited._boards.items())[:300]:
        assert board_problems(board) == [], (pos, alive, fields)


def test_equal_placements_share_one_id(visited: _Recorder) -> None:
    assert len(set(visited.placements)) == len(visited.placements)


def test_engaged_pairs_on_the_full_board(visited: _Recorder) -> None:
    """7.2.1: the pairwise reading equals every model pair on the whole board (the boards a Charge reads its
    Engaged test and path on)."""
    for pos, alive in _sample([c[:2] for c in visited.calls["charge"]], 120):
        b = _full(visited, pos, alive)
        want = {
            (ua.id, ub.id)
            for ua in b.units
            for ub in b.units
            if ua.side != ub.side and any(engaged(b, ma, mb) for ma in ua.models for mb in ub.models)
        }
        assert visited.engaged_pairs(pos, alive) == frozenset(want)


def test_strikers_on_the_full_board(visited: _Recorder) -> None:
    """8.8.1 step 2: Fighting and Supporting Ranks read with the near enemies only are the same."""
    for pos, alive, uid in _sample(visited.calls["strikers"], 120):
        want = len(fighting_ranks(_full(visited, pos, alive), uid).attackers)
        assert visited.strikers(pos, alive, uid) == want


def test_attack_facts_on_the_full_board(visited: _Recorder) -> None:
    """8.7.3 step 1 and 8.7.4 step 5: range, visibility, Engaged restrictions, casualty tiers unchanged."""
    for pos, alive, uid, tid, weapon, tags in _sample(visited.calls["facts"], 120):
        want = weapon_facts(_full(visited, pos, alive), uid, tid, weapon, tags)
        assert visited.facts(pos, alive, uid, tid, weapon, tags) == want


def test_charge_within_reach_on_the_full_board(visited: _Recorder) -> None:
    """8.7.7: the reduced board, and the board of the models near the Leading Model (``World._charge_local``, most
    answers here), give the same success for every Charge Distance up to the reach, and the same path end."""
    calls = [c for c in visited.calls["charge"] if c[4] is not None]
    assert calls
    assert any(length <= steps for (*_, steps, _, _, _, _), (length, _) in visited._local_charges.items())
    for pos, alive, uid, targets, reach in _sample(calls, 80):
        length, end = visited.charge_length(pos, alive, uid, targets, reach)
        path = visited._search(_full(visited, pos, alive), uid, targets, None)  # the World's search, unbounded
        for total in range(0, int(reach) + 1):
            assert (end is not None and total >= length - 1e-9) == (
                path.end is not None and total >= path.length - 1e-9
            ), (uid, targets, total, length, path.length)
        if path.end is not None and path.length <= reach:
            assert math.isclose(length, path.length, abs_tol=1e-9)
            assert end == path.end


def test_the_models_near_the_leading_model_are_the_plain_reading(visited: _Recorder) -> None:
    """``World.models_near_lead`` (what ``World._charge_local`` reads a Charge on) is, on the board states of the
    game, every live model of another unit that ``examined_near`` keeps for the box of each step around the
    Leading Model, read model by model on the whole board; and the answer read on them is the whole board's where
    it is within the step (8.7.7 steps 2-3)."""
    from mathhammer.board.cspace import examined_near
    from mathhammer.scenario.world import CHARGE_STEPS

    calls = [c for c in visited.calls["charge"] if c[4] is not None]
    compared = 0
    for pos, alive, uid, targets, reach in _sample(calls, 40):
        full = _full(visited, pos, alive)
        lead = full.model(f"{uid}.1")
        u = visited.index[uid]
        for rho in [s for s in CHARGE_STEPS if s < reach]:
            x, y = lead.centre
            box = [x - rho, y - rho, x + rho, y + rho]
            want = {
                (un.id, m.centre)
                for un in full.units
                if un.id != uid
                for m in un.models
                if examined_near(box, m.centre, m.radius, lead.radius)
            }
            near = visited.models_near_lead(pos, alive, u, rho, targets)
            if near is None:  # a target with no model near
                assert any(all((t, m.centre) not in want for m in full.unit(t).models) for t in targets)
                continue
            got = {(visited.uids[v], visited.placements[p].centres[i]) for v, p, idx in near for i in idx}
            assert got == want, (uid, rho)
            local = visited._charge_near(pos[u], uid, targets, rho, near, (), False)
            if local[0] <= rho:
                whole = visited._search(full, uid, targets, reach)
                assert (local[0], local[1]) == (whole.length, whole.end), (uid, targets, rho)
                compared += 1
    assert compared > 5


def test_charges_read_near_the_leading_model_change_no_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """``World._charge_local`` (8.7.7 steps 2-3 read on the models near the Leading Model) against the whole board
    (no steps): the same games, array for array, placements compared by where the models stand; most Charges are
    answered near the Leading Model."""
    from mathhammer.scenario.geometry import charge as charge_mod

    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))
    near = Simulation(scn, 1500, 8)
    near.run()
    monkeypatch.setattr(charge_mod, "CHARGE_STEPS", ())
    whole = Simulation(scn, 1500, 8)
    whole.run()
    assert not whole.world._local_charges
    answered = sum(1 for (*_, rho, _, _, _, _), (length, _) in near.world._local_charges.items() if length <= rho)
    assert answered > 20
    for a, b in zip(near.snapshots, whole.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    p1, p2 = near.world.placements, whole.world.placements
    assert [[p1[p] if p >= 0 else None for p in row] for row in near.pos.tolist()] == [
        [p2[p] if p >= 0 else None for p in row] for row in whole.pos.tolist()
    ]


def test_marker_contests_on_validated_boards(visited: _Recorder) -> None:
    """8.9.1 ("At least one model is Within 3", has LoS to the Marker, and is on the same elevation"): the first
    contesting model of a placement (``World.first_contesting``, read on boards built without the validation pass)
    is the one read model by model on validated boards of the model and the marker, for the placements of the game
    and every marker."""
    from mathhammer.board.los import line_of_sight
    from mathhammer.board.model import EPS, Model, Unit
    from mathhammer.scenario.world import CONTEST_RANGE, MARKER_MM

    scn = visited.scn
    read = 0
    for pid in range(0, len(visited.placements), max(1, len(visited.placements) // 60)):
        p = visited.placements[pid]
        su = scn.units[p.unit]
        for spec in scn.deployment.markers:
            mk = Model(f"marker-{spec.number}", spec.x, spec.y, MARKER_MM, 0)
            want = math.inf
            if p.level is None:
                for i, (x, y) in enumerate(p.centres):
                    m = Model(f"{su.id}.{i + 1}", x, y, su.base_mm, su.size)
                    if m.distance(mk) > CONTEST_RANGE + EPS:
                        continue
                    if math.dist(m.centre, mk.centre) < m.radius + mk.radius:
                        want = i
                        break
                    units = (Unit(su.id, su.player, (m,)), Unit("marker", "markers", (mk,)))
                    board = Board(visited.board.width, visited.board.depth, visited.board.terrain, units)
                    if line_of_sight(board, m, mk).visible:
                        want = i
                        break
            assert visited.first_contesting(pid, spec.number) == want, (p, spec.number)
            read += want < math.inf
    assert read > 5


def test_board_ids_follow_the_placements() -> None:
    """Grouping by one board id column stands for grouping by every unit's placement: after whole
    games (deploys, moves, charges, casualties) each game's id names exactly its placements."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 300, 7)
    sim.run()
    ids = {sim.board_pos(b) for b in sim.board.tolist()}
    assert len(ids) > 5  # the games differ
    for t in range(sim.T):
        assert sim.board_pos(int(sim.board[t])) == tuple(sim.pos[:, t].tolist())
    rows = sim._board_arr[: sim._boards.n]
    assert len(np.unique(rows, axis=0)) == len(rows)  # one id per vector
    # the Engaged pairs a board made by moving one unit carries (the others' kept) are the board's own
    for b in range(sim._boards.n):
        assert sim._bits_arr[:, b].tolist() == sim._board_words(sim.board_pos(b)), b


def test_moves_read_with_the_near_units_equal_moves_read_with_every_unit(visited_far: _Recorder) -> None:
    """8.5.3 placements of a Move or a Deploy, cached under the units within ``near_limit`` of the Leading
    Model (or, where the grid looks farther, under the units in reach of every spot), equal the
    placement made afresh with every unit on the table."""
    visited = visited_far
    calls = [c for c in visited.calls["place"] if not c[4]]
    assert calls
    assert -1 in visited._place_near.values(), "no Move looked beyond near_limit: the fallback is not tested"
    assert any(c[7] is not None for c in calls), "no arrival (8.3.3: formation out of the zone) was placed"
    for uid, lead, rear, occupied, _, on, _, arriving in _sample(calls, 150):
        su = visited.scn.units[uid]
        level = visited.level_at(lead) if on is AUTO else on
        want = visited._place_grid(su, lead, rear, occupied, level, math.inf, (), arriving)
        assert visited.place(su, lead, rear, occupied, (), on, (), arriving) == want


def test_moves_read_near_the_leading_model_equal_moves_read_with_every_unit(visited: _Recorder) -> None:
    """The placements :meth:`World.place_near_lead` gives from the units near the Leading Model alone (within
    ``near_limit`` of it: a unit of large bases, Hydralisks on 100 mm, looks farther than PLACE_NEAR) equal the
    placement made afresh with every unit on the table (8.5.3); -1 where it needs them."""
    calls = visited.calls["place_near_lead"]
    big = [c for c in calls if visited.scn.units[c[0]].base_mm >= 60]
    assert big, "no unit of large bases was placed: the per-unit limit is not tested"
    answered = 0
    for uid, lead, rear, occupied, arriving in _sample(calls, 100) + _sample(big, 50):
        su = visited.scn.units[uid]
        got = visited.place_near_lead(su, lead, rear, occupied, arriving)
        if got == -1:
            continue
        answered += 1
        want = visited._place_grid(su, lead, rear, occupied, visited.level_at(lead), math.inf, (), arriving)
        assert got == want, (uid, lead, rear, occupied)
    assert answered > 50


def test_compiled_near_tests_give_the_world_answers() -> None:
    """World.near_many and World.near_box_many (compiled, over every placement at once) give World.near and
    World._near_box's answers for every placement of 1,000 games of each example, against boxes and gaps around
    their edges (a tie in the other order would flip one)."""
    rng = np.random.default_rng(11)
    for path in builtin_scenarios():
        sim = Simulation(load_scenario(path), 1000, 3)
        sim.run()
        world = sim.world
        pids = np.arange(len(world.placements))
        for pa in rng.choice(pids, size=min(40, pids.size), replace=False).tolist():
            for gap in (0.0, 1.0, 3.0, 9.5):
                got = world.near_many(pa, pids, gap).tolist()
                assert got == [world.near(pa, p, gap) for p in pids.tolist()]
        seen = set()
        for _ in range(60):  # boxes by the models: some placements in reach, some not
            lo = np.asarray(world.placements[int(rng.choice(pids))].centres[0]) + rng.uniform(-3, 1, 2)
            hi = lo + rng.uniform(0, 4, 2)
            reach = float(rng.choice([0.5, 1.0, 2.0]))
            got = world.near_box_many(pids, lo, hi, reach).tolist()
            want = set(world._near_box(tuple(pids.tolist()), lo, hi, reach))
            assert got == [p in want for p in pids.tolist()]
            seen |= set(got)
        assert seen == {True, False}


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_outcome_draw_is_numpys(seed: int) -> None:
    """sim_shoot.Draws.apply (fastsim._apply_kernel: each game's key read, its outcome drawn and applied, in one pass
    over the games) against the numpy reading it replaced: the games split by key (Damage Marker, SHIELDED, abilities
    used, Total Damage reduction, Armour steps; keys in order of their first game), per key uniforms(seed, stream,
    games), searchsorted(side="right") clipped to the last row, models lost, Damage Marker and SHIELDED set, a costly
    row counted as Activated, Destroyed units' markers cleared; the Hit Points lost (tally.py: the health table by
    models left, less the Damage Marker) added to taken, and to dealt where there is an attacker; the Destroyed games
    key after key. Every game has the same models left (resolve's contract); other games' rows are left alone. The
    same Draws serves a second call (its keys known, new ones added)."""
    from mathhammer.scenario.basics import draw_base
    from mathhammer.scenario.sim_shoot import Draws
    from mathhammer.scenario.sim_state import uniforms

    rng = np.random.default_rng(seed)
    T, offset = 400, int(rng.integers(0, 10**6))
    health = np.array([0, 3, 5, 8, 10], dtype=np.int64)  # Hit Points by models left (tally.health_table)
    k = int(rng.integers(1, 5))
    tables: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, bool]] = {}

    def transition(key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
        if key not in tables:
            n = int(rng.integers(1, 6))
            arr = np.column_stack(
                [rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n)]
            ).astype(np.int64)
            cdf = np.cumsum(rng.random(n))
            tables[key] = (arr, cdf / cdf[-1], bool(rng.random() < 0.5))
        return tables[key]

    def hp(alive: np.ndarray, mark: np.ndarray) -> np.ndarray:
        return health[np.clip(alive, 0, health.size - 1)] - np.where(alive > 0, mark, 0)

    draws = Draws()
    rows = np.array([0, 1, 2, 3], dtype=np.int64)  # models left, Damage Marker, SHIELDED, abilities used
    for _call in range(2):
        stream = int(rng.integers(0, 2**40))
        games = np.sort(rng.choice(T, 300, replace=False))
        state = np.stack(
            [rng.integers(1, 5, T), rng.integers(0, 3, T), rng.integers(0, 2, T), rng.integers(0, 2, T) * 4]
        ).astype(np.int64)
        state[0, games] = k
        cut, better = rng.integers(0, 2, T).astype(np.int64), rng.integers(0, 2, T).astype(np.int64)
        taken0, dealt0 = rng.integers(0, 9, T).astype(np.int64), rng.integers(0, 9, T).astype(np.int64)
        # numpy, key after key
        keys = np.stack([state[1], state[2], state[3], cut, better])[:, games].T
        _, first, inv = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        ref, flipped, dead_ref = state.copy(), np.zeros(T, bool), []
        taken, dealt = taken0.copy(), dealt0.copy()
        for g in np.argsort(first):
            ts = games[inv.ravel() == g]
            arr, cdf, costly = transition(tuple(keys[first[g]].tolist()))
            before = hp(ref[0, ts], ref[1, ts])
            u = uniforms(7, stream, ts + offset)
            pick = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
            ref[0, ts] -= arr[pick, 0]
            ref[1, ts] = arr[pick, 1]
            ref[2, ts] = arr[pick, 2]
            if costly:
                flipped[ts[arr[pick, 3] == 1]] = True
            dead = ts[ref[0, ts] <= 0]
            ref[1, dead] = 0
            dead_ref += dead.tolist()
            lost = np.maximum(before - hp(ref[0, ts], ref[1, ts]), 0)
            taken[ts] += lost
            dealt[ts] += lost
        assert (taken != taken0).any() and len(dead_ref) > 0 and len(first) > 4  # the table grows past 4 keys
        for by in (True, False):  # with an attacker, and without (dealt untouched)
            got, counted = state.copy(), np.zeros(T, bool)
            tally = [taken0.copy(), dealt0.copy()]
            dead = draws.apply(
                got, rows, cut, better, games, draw_base(7, stream), offset, k, counted, health, *tally, by, transition
            )
            assert got.tolist() == ref.tolist() and counted.tolist() == flipped.tolist()
            assert dead.tolist() == dead_ref
            assert tally[0].tolist() == taken.tolist()
            assert tally[1].tolist() == (dealt if by else dealt0).tolist()
    assert draws.n == len(tables)


def test_group_state_packs_again_where_a_value_outgrows_its_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value wider than its row's field widens the field and the call packs again (the columns are not hashed:
    the hashing kernel is not called); the split is game by game's: groups in order of first game, games in order."""
    from mathhammer.scenario import fast

    rng = np.random.default_rng(3)
    state = rng.integers(0, 3, (8, 2000)).astype(np.int64)
    state[5, 1500:] = 900  # outgrows a 2-bit field
    trials = np.sort(rng.choice(2000, 1200, replace=False))
    rows = np.array([5, 1, 6, 0, 2, 7, 3], dtype=np.int64)  # many rows of close games: packed without the first read
    bits = np.full(8, 2, dtype=np.int64)
    want: dict[tuple[int, ...], list[int]] = {}
    for t in trials.tolist():
        want.setdefault(tuple(state[rows, t].tolist()), []).append(t)

    def hashed(*_: object) -> None:
        raise AssertionError("hashed")

    monkeypatch.setattr(fast, "_group_kernel", hashed)
    order, bounds, keys = fast.group_state(state, rows, trials, bits)
    assert bits[5] == 10  # widened to hold 901
    assert [tuple(k) for k in keys.tolist()] == list(want)
    assert [order[bounds[g] : bounds[g + 1]].tolist() for g in range(len(want))] == list(want.values())


def test_a_large_based_unit_reads_the_units_within_its_own_first_look() -> None:
    """8.5.3 ("may not end ... Within 1" of an Enemy model"): Hydralisks on 100 mm bases have the grid's first spot
    4.04" from the Leading Model, past PLACE_NEAR (3.5"), so their first look reaches ``near_limit`` (8.07"). An enemy
    Goliath whose base is Within 1" of that spot, but farther from the Leading Model than PLACE_NEAR's reach, moves
    the second Hydralisk elsewhere, and :meth:`World.place_near_lead` reads it among the units near the Leading
    Model."""
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))
    world = World(scn)
    hyd, gol = scn.units["hydralisk-1"], scn.units["goliath-1"]
    lead, rear = (24.0, 24.0), (0.0, 1.0)
    alone = world.place(hyd, lead, rear, ())
    assert alone is not None and math.isclose(world.placements[alone].centres[1][0], 28.037, abs_tol=1e-3)
    g = world.place(gol, (32.3, 24.0), rear, ())
    assert g is not None and world.placements[g].centres == ((32.3, 24.0),)
    want = world._place_grid(hyd, lead, rear, (g,), None, math.inf)
    assert want is not None and want != alone
    assert world.place_near_lead(hyd, lead, rear, (g,)) == want


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_foes_near_reads_near_of_every_enemy_pair(seed: int) -> None:
    """``Facts._foes_near`` (the units an attack's facts keep, 8.7.3, 8.7.5) is the set of enemy units on the table
    whose placement is :meth:`near` the unit's: its pairs not read yet asked in one compiled pass, read again from the
    table, and the same for any order in which the pairs were first read."""
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml"))
    rng = np.random.default_rng(seed)
    one, other = World(scn), World(scn)  # ``one`` asks _foes_near first, ``other`` near() pair by pair first
    pos, alive = [], []
    for uid in one.uids:
        su = one.scn.units[uid]
        lead = (float(rng.uniform(8.0, 16.0)), float(rng.uniform(8.0, 16.0)))  # a crowd: near and far pairs
        pa, pb = one.place(su, lead, (0.0, -1.0), ()), other.place(su, lead, (0.0, -1.0), ())
        assert pa == pb and pa is not None
        pos.append(pa if rng.random() < 0.9 else -1)
        alive.append(int(rng.integers(0, su.models + 1)))
    pos_t, alive_t = tuple(pos), tuple(alive)
    sides = [scn.units[uid].player for uid in one.uids]
    for u in range(len(pos)):
        if pos[u] < 0:
            continue
        want = {
            v
            for v in range(len(pos))
            if sides[v] != sides[u] and pos[v] >= 0 and alive[v] > 0 and other.near(pos[u], pos[v])
        }
        assert one._foes_near(pos_t, alive_t, u) == want
        assert one._foes_near(pos_t, alive_t, u) == want  # read again from the table
        assert other._foes_near(pos_t, alive_t, u) == want
    assert any(one._foes_near(pos_t, alive_t, u) for u in range(len(pos)) if pos[u] >= 0)  # some pair is near
