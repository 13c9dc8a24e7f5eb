"""The board table (`fasttables.BoardTable`) and `SimState.set_pos_many`, held to naive references.

A board id names one placement vector (every unit's placement, -1 off the table); the Engaged pairs (7.2.1) of
a board are read once per id, so the ids must stay exact as the table grows (its rows are not filled past the
boards interned) and as many parts of games are moved at once.
"""

from __future__ import annotations

import numpy as np

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS
from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.fastnear import Centres
from mathhammer.scenario.fasttables import BoardTable, PairTable
from mathhammer.scenario.sim import Simulation


def _naive_ids(vectors: list[tuple[int, ...]]) -> list[int]:
    """Ids in order of first sight, by a dict of the vectors."""
    seen: dict[tuple[int, ...], int] = {}
    return [seen.setdefault(v, len(seen)) for v in vectors]


def test_interned_ids_survive_every_growth() -> None:
    """3,000 vectors (2,000 distinct) through six doublings of the 64-row table: each id is the naive one, a
    vector met again is not new, and every interned row reads back its vector."""
    rng = np.random.default_rng(7)
    distinct = [tuple(int(x) for x in row) for row in rng.integers(-1, 40, size=(2000, 5))]
    distinct = list(dict.fromkeys(distinct))
    vectors = distinct + [distinct[i] for i in rng.integers(0, len(distinct), 1000).tolist()]
    tab = BoardTable(5)
    got = [tab.intern(v) for v in vectors]
    expect = _naive_ids(vectors)
    assert [g for g, _ in got] == expect
    assert [new for _, new in got] == [expect[i] == max(expect[:i], default=-1) + 1 for i in range(len(vectors))]
    assert tab.n == len(distinct) and tab.rows.shape[0] >= tab.n
    assert [tuple(r) for r in tab.rows[: tab.n].tolist()] == distinct


def test_moves_across_growth_match_a_dict_of_vectors() -> None:
    """Moving one unit in many games at once (`move`, which grows the table mid-call) gives each game the id of
    its new vector, as a dict of vectors does; the new ids and the boards they came from are those first met; the
    unit's placements written in the same pass (``placed``) are the vectors'."""
    rng = np.random.default_rng(11)
    units, games = 4, 5000
    tab = BoardTable(units)
    vecs: dict[tuple[int, ...], int] = {}

    def naive(v: tuple[int, ...]) -> int:
        return vecs.setdefault(v, len(vecs))

    start = tuple([-1] * units)
    assert tab.intern(start) == (naive(start), True)
    board = np.zeros(games, dtype=np.int64)
    pos = np.full((units, games), -1, dtype=np.int64)
    vec = [start] * games
    for step in range(6):
        u = step % units
        ts = np.sort(rng.choice(games, size=3000, replace=False))
        pids = rng.integers(-1, 30, size=ts.size)
        new, old = tab.move(board, ts, u, pids, pos[u]) if step % 2 else tab.move(board, ts, u, pids)
        fresh: list[tuple[int, int]] = []
        known = len(vecs)
        for t, p in zip(ts.tolist(), pids.tolist(), strict=True):
            before = naive(vec[t])
            v = list(vec[t])
            v[u] = p
            vec[t] = tuple(v)
            if naive(vec[t]) >= known + len(fresh):
                fresh.append((vecs[vec[t]], before))
        assert board.tolist() == [vecs[v] for v in vec]
        if not step % 2:  # the other steps write the unit's placements in the kernel's pass
            pos[u, ts] = pids
        assert pos.T.tolist() == [list(v) for v in vec]
        assert list(zip(new.tolist(), old.tolist(), strict=True)) == fresh
    assert tab.n == len(vecs) > 64 * 8  # grown several times
    assert [tuple(r) for r in tab.rows[: tab.n].tolist()] == list(vecs)


def test_set_pos_many_is_set_pos_part_after_part() -> None:
    """`set_pos_many` with empty parts, one part and many parts gives the placements, board ids and Engaged words
    of calling `set_pos` on each part in turn (the pairs of each board read whole)."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    scn = load_scenario(path)
    one, many = Simulation(scn, 300, 3), Simulation(scn, 300, 3)
    rng = np.random.default_rng(5)
    for sim in (one, many):
        sim.run()
    pids = {u: sorted({p for p in one.pos[u].tolist() if p >= 0}) for u in range(one.U)}
    for u in (0, 3, 7):
        if not pids[u]:
            continue
        games = rng.permutation(300)
        cuts = [games[:0], games[:40], games[40:41], games[41:41], games[41:200]]
        parts = [(np.sort(ts), int(rng.choice(pids[u] + [-1]))) for ts in cuts]
        for ts, pid in parts:
            one.set_pos(u, ts, pid)
        many.set_pos_many(u, parts)
        assert np.array_equal(one.pos, many.pos)
        assert np.array_equal(
            one._board_arr[one.board], many._board_arr[many.board]
        )  # the same vectors (ids may differ: parts met in another order)
        everyone = np.arange(300)
        assert np.array_equal(one.engaged_bits(everyone), many.engaged_bits(everyone))
        single = [(np.sort(games[200:260]), pids[u][0])]
        one.set_pos(u, *single[0])
        many.set_pos_many(u, single)
        assert np.array_equal(one.pos, many.pos)


def test_pair_words_read_each_missing_pair_once_in_order_of_sight() -> None:
    """`PairTable.words` over boards with many pairs not yet read (thousands in one call, the dedup table grown
    many times): each missing pair is read once, in the order the rows meet it, and every board's words are those
    of a naive reading of its pairs; a second call reads nothing."""
    rng = np.random.default_rng(13)
    rows = rng.integers(-1, 90, size=(4000, 4))
    others, firsts, bits = [1, 2, 3], [True, False, True], [0, 61, 62]

    def engaged(pa: int, pb: int) -> bool:
        return (pa * 7 + pb * 3) % 5 == 0

    asked: list[tuple[int, int]] = []

    def read(pairs: np.ndarray) -> np.ndarray:
        asked.extend(map(tuple, pairs.tolist()))
        return np.array([engaged(a, b) for a, b in pairs.tolist()], dtype=bool)

    expect_order: list[tuple[int, int]] = []
    expect = np.zeros((rows.shape[0], 2), dtype=np.int64)
    for k, row in enumerate(rows.tolist()):
        for other, first, bit in zip(others, firsts, bits, strict=True):
            if row[0] < 0 or row[other] < 0:
                continue
            pair = (row[0], row[other]) if first else (row[other], row[0])
            if pair not in expect_order:
                expect_order.append(pair)
            if engaged(*pair):
                expect[k, bit // 62] |= 1 << (bit % 62)
    tab = PairTable(read)
    got = tab.words(rows, 0, others, firsts, bits, 2)
    assert asked == expect_order and len(asked) > 1000
    assert np.array_equal(got, expect)
    assert np.array_equal(tab.words(rows[::-1], 0, others, firsts, bits, 2), expect[::-1])
    assert len(asked) == len(expect_order)  # nothing read again


def test_set_words_keeps_the_other_pairs_of_the_old_board() -> None:
    """`PairTable.set_words` (what `SimState.set_pos_many` writes for each new board, 7.2.1 Engaged pairs): each new
    board's column is its old board's words with only the bits of ``keep``, or'd with the moved unit's pairs on the new
    board (`PairTable.words`, held above to a naive reading); the other columns are left as they were, and the pairs
    not read yet are read once."""
    rng = np.random.default_rng(29)
    boards = 3000
    rows = rng.integers(-1, 60, size=(boards, 4))
    out = rng.integers(0, 1 << 62, size=(2, boards), dtype=np.int64)
    before = out.copy()
    new = rng.permutation(np.arange(1500, boards))[:900]
    old = rng.integers(-1, 1500, size=new.size)
    others, firsts, bits = np.array([1, 2, 3]), np.array([True, False, True]), np.array([0, 61, 62])
    keep = ~np.array([1 | (1 << 61), 1], dtype=np.int64)  # the moved unit's three bits cleared
    read_count = [0]

    def read(pairs: np.ndarray) -> np.ndarray:
        read_count[0] += pairs.shape[0]
        return (pairs[:, 0] * 7 + pairs[:, 1] * 3) % 5 == 0

    want_words = PairTable(read).words(rows[new], 0, others, firsts, bits, 2)
    asked = read_count[0]
    tab = PairTable(read)
    tab.set_words(out, rows, new, old, 0, others, firsts, bits, keep)
    assert read_count[0] == 2 * asked and asked > 300  # each pair read once, as by words()
    for k, (b, o) in enumerate(zip(new.tolist(), old.tolist(), strict=True)):
        base = before[:, o] & keep if o >= 0 else np.zeros(2, dtype=np.int64)
        assert np.array_equal(out[:, b], base | want_words[k]), (k, b, o)
    untouched = np.setdiff1d(np.arange(boards), new)
    assert np.array_equal(out[:, untouched], before[:, untouched])
    assert (want_words != 0).any() and ((before[:, old[old >= 0]] & ~keep[:, None]) != 0).any()


def test_pairs_not_near_are_false_and_never_read() -> None:
    """`PairTable(read, near)`: a pair of placements with no two bases within the gap (`Centres.near`, the first test
    of `World.pair_engaged`: units farther apart cannot be Engaged, 7.2.1 "Within 1\"") is False at once, neither read
    nor kept; a near pair is read once, as without ``near``."""
    c = Centres()
    # placement 0 at x 0; 1 exactly 1" away base to base (bases 1" across: near); 2 at 1.03" (not near); 3 far
    c.extend([((0.0, 0.0),), ((2.0, 0.0),), ((2.03, 0.0),), ((9.0, 0.0),)], [0.5] * 4)
    asked: list[tuple[int, int]] = []

    def read(pairs: np.ndarray) -> np.ndarray:
        asked.extend(map(tuple, pairs.tolist()))
        return np.ones(pairs.shape[0], dtype=bool)  # every pair asked "Engaged": only the near test says otherwise

    rows = np.array([[0, 1], [0, 2], [0, 3], [0, 1]], dtype=np.int64)
    with_near = PairTable(read, lambda: (*c.arrays(), float(ENGAGEMENT_RANGE)))
    assert with_near.words(rows, 0, [1], [True], [0], 1).tolist() == [[1], [0], [0], [1]]
    assert asked == [(0, 1)]
    assert with_near.words(rows, 0, [1], [True], [0], 1).tolist() == [[1], [0], [0], [1]] and asked == [(0, 1)]
    assert c.near(0, np.array([1, 2, 3]), ENGAGEMENT_RANGE).tolist() == [True, False, False]
    asked.clear()
    assert PairTable(read).words(rows, 0, [1], [True], [0], 1).tolist() == [[1], [1], [1], [1]]
    assert asked == [(0, 1), (0, 2), (0, 3)]


def test_every_boards_words_are_its_pairs_read_one_by_one() -> None:
    """The Engaged words the Simulation keeps per board (`SimState.set_pos_many` through `PairTable.set_words`, pairs
    not near answered False there) are those of each enemy pair read alone (`SimState._board_words`, 7.2.1), for every
    board the games made."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 300, 3)
    sim.run()
    n = sim._boards.n
    assert n > 50
    engaged = 0
    for b in range(n):
        row = tuple(sim._boards.rows[b].tolist())
        want = sim._board_words(row)
        assert sim._bits_arr[:, b].tolist() == want, b
        engaged += any(want)
    assert 0 < engaged < n


def test_pairs_read_at_once_are_the_pairs_read_one_by_one() -> None:
    """`SimState._pairs_read` (the near test of every pair in one compiled call, then the pairs near read one by one)
    gives `World.pair_engaged`'s answer (7.2.1) for every pair of enemy placements the games made, read whole, in
    pieces of a move's few pairs and with the columns swapped; the near test alone is `World.near`'s both ways."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 300, 3)
    sim.run()
    pairs = sorted(
        {(int(sim.pos[a, t]), int(sim.pos[b, t])) for a, b in sim._enemy_pairs for t in range(300)}
        | {(pa, pb) for a, b in sim._enemy_pairs for pa in set(sim.pos[a].tolist()) for pb in set(sim.pos[b].tolist())}
    )
    pairs = [(a, b) for a, b in pairs if a >= 0 and b >= 0]
    arr = np.array(pairs, dtype=np.int64)
    naive = [sim._pair_read(a, b) for a, b in pairs]
    assert 0 < sum(naive) < len(naive)
    assert len(pairs) > 64
    assert sim._pairs_read(arr).tolist() == naive
    for k in (1, 5, 64):  # a move's few pairs
        for i in range(0, len(pairs), k):
            assert sim._pairs_read(arr[i : i + k]).tolist() == naive[i : i + k]
    assert sim._pairs_read(np.ascontiguousarray(arr[:, ::-1]))[: len(pairs)].tolist() == [
        sim._pair_read(b, a) for a, b in pairs
    ]
    world = sim.world
    for gap in (ENGAGEMENT_RANGE, 0.0, 3.0):
        near = [world.near(a, b, gap) for a, b in pairs]
        assert 0 < sum(near) < len(near)
        assert world.near_pairs(arr, gap).tolist() == near
        assert world.near_pairs(arr[:, ::-1], gap).tolist() == near


def test_centres_many_are_each_placements_centres_in_turn() -> None:
    """`World.centres_many` (one gather from the packed centres, as the Deploy refusals read the other bases) gives
    every centre of each placement asked, in order, as `World._centres` holds them, to the bit; repeated and empty
    asks too."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 50, 3)
    sim.run()
    world = sim.world
    pids = sorted({int(p) for p in sim.pos.reshape(-1).tolist() if p >= 0})
    assert len(pids) > 5 and len({len(world._centres(p)) for p in pids}) > 1  # placements of several sizes
    for ask in (pids, pids[::-1], [pids[0]] * 3 + pids[2:5], []):
        xy, counts = world.centres_many(np.asarray(ask, dtype=np.int64))
        assert counts.tolist() == [len(world._centres(p)) for p in ask]
        want = np.concatenate([world._centres(p) for p in ask]) if ask else np.zeros((0, 2))
        assert xy.shape == want.shape and np.array_equal(xy, want)


def test_beyond_many_reads_each_placements_leading_model() -> None:
    """`World.beyond_many` (one compiled pass over the packed centres, as the Move shortcuts read where each unit
    stands: 8.5.3, a point farther than the Speed in a straight line from the Leading Model) reads each placement's
    Leading Model (``centres[0]``) as numpy's ``hypot`` does, to the bit; repeated and empty asks too."""
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    sim = Simulation(load_scenario(path), 50, 3)
    sim.run()
    world = sim.world
    pids = sorted({int(p) for p in sim.pos.reshape(-1).tolist() if p >= 0})
    assert len(pids) > 5
    rng = np.random.default_rng(1)
    pts = np.vstack([rng.uniform(0, 44, (40, 2)), [[np.inf, np.inf]]])
    caps = rng.choice([4.0, 6.0, 8.0, 12.0], pts.shape[0])
    for ask in (pids, pids[::-1], [pids[0]] * 3 + pids[2:5], []):
        got = world.beyond_many(np.asarray(ask, dtype=np.int64), pts, caps, EPS)
        lead = np.array([world.placements[p].centres[0] for p in ask], dtype=float).reshape(-1, 2)
        d = np.hypot(pts[None, :, 0] - lead[:, :1], pts[None, :, 1] - lead[:, 1:])
        want = (d > caps[None, :] + EPS) & np.isfinite(d)
        assert got.shape == want.shape and np.array_equal(got, want)
        assert not ask or (want.any() and (~want).any())
