"""The simulation reads each board fact with the units near it, split per trial, not per whole board.

Engagement (7.2.1) is kept per pair of enemy units; Close Ranks (8.8.1 step 1), the Fighting and
Supporting Ranks (8.8.1 step 2), the facts of a Ranged Attack (8.7.3), a Charge (8.7.7: the Engaged
test, the path, IMPACT) and the setting of a unit (8.5.3, 8.7.7 step 4) group the trials by the
placements of the units that can matter to them. These tests hold that reading to the whole board:
the same games played with every unit on the table passed to the World give every array unchanged,
and the Engaged pairs equal those read on the whole board.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import World


def _clash() -> Simulation:
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    return Simulation(load_scenario(path), 200, 11)


def _play(sim: Simulation) -> tuple[np.ndarray, ...]:
    sim.run()
    cells = [sim.world.placements[p] if p >= 0 else None for p in sim.pos.ravel().tolist()]
    ids = {c: i for i, c in enumerate(dict.fromkeys(cells))}
    return sim.vp, sim.alive, sim.mark, np.array([ids[c] for c in cells]).reshape(sim.pos.shape)


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every unit on the table counts as near: the World gets the whole board and reduces it itself."""
    monkeypatch.setattr(Simulation, "_near_test", lambda self, pid, gap: lambda p: True)
    monkeypatch.setattr(Simulation, "_box_test", lambda self, lo, hi, reach: lambda p: True)
    # the Combat Phase's split of every group at once (compiled) reads its tests as those two, group after group
    monkeypatch.setattr(Simulation, "_near_parts_of", Simulation._near_parts_each)
    monkeypatch.setattr(Simulation, "_facts_test", lambda self, pu, side, pt, t: lambda p, player: True)
    monkeypatch.setattr(World, "place_test", lambda self, *a, **k: lambda p: True)
    monkeypatch.setattr(World, "lead_test", lambda self, *a, **k: lambda p: True)
    monkeypatch.setattr(World, "bases_test", lambda self, su, box: lambda p: True)
    monkeypatch.setattr(World, "bases_many", lambda self, su, box: lambda ps: np.ones(ps.size, dtype=bool))


def test_local_reading_plays_the_same_games_as_the_whole_board(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 games of the 6-a-side example (Close Ranks on): VP, models left, Damage Markers and every
    unit's placement (compared by where its models stand) equal those read with the whole board."""
    local = _play(_clash())
    _whole(monkeypatch)
    whole = _play(_clash())
    for a, b in zip(local, whole, strict=True):
        assert np.array_equal(a, b)


def test_a_filter_that_drops_a_unit_that_matters_changes_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: reading the Ranged Attack facts without the enemies near either
    unit (8.7.3: a unit Engaged with the shooter may be shot only by it, an Engaged target's casualties
    follow 8.7.5) changes the games."""
    local = _play(_clash())
    monkeypatch.setattr(Simulation, "_facts_test", lambda self, pu, side, pt, t: lambda p, player: False)
    monkeypatch.setattr(Simulation, "_near_test", lambda self, pid, gap: lambda p: False)
    dropped = _play(_clash())
    assert not all(np.array_equal(a, b) for a, b in zip(local, dropped, strict=True))


def test_a_placement_filter_that_drops_the_units_near_the_leading_model_changes_the_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparison can fail for the setting of units too: passing :meth:`World.place` none of the
    other units (but the Charge targets) sets models over their bases and Within 1" of enemies. (A
    Charge's setting is held to the units near it in ``test_scenario_charge_set.py``.)"""
    local = _play(_clash())
    monkeypatch.setattr(World, "place_test", lambda self, *a, **k: lambda p: False)
    monkeypatch.setattr(World, "lead_test", lambda self, *a, **k: lambda p: False)
    dropped = _play(_clash())
    assert not all(np.array_equal(a, b) for a, b in zip(local, dropped, strict=True))


def test_engaged_pairs_are_those_of_the_models_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """7.2.1, 8.7.4 step 5: at the start of every Combat Phase of 200 games, the Engaged pairs kept per pair of units
    equal :meth:`World.engaged_pairs` read on each trial's board with its models left (a removed model Engages
    nobody), in many trials with a unit short of its models. Since session 58 a placement holds its models left only
    (``SimState.trim``): the pairs read on the placements whole are the same (before, some were Engaged only through
    removed models)."""
    checked = [0, 0, 0]
    original = Simulation.combat_phase

    def spy(self: Simulation, live: np.ndarray) -> None:
        for ts, pairs in self.engaged_with(live):
            for t in ts.tolist():
                pos = tuple(int(p) for p in self.pos[:, t])
                left = tuple(int(self.alive[u, t]) if p >= 0 else 0 for u, p in enumerate(pos))
                whole = tuple(int(self.full[u]) if p >= 0 else 0 for u, p in enumerate(pos))
                assert self.world.engaged_pairs(pos, left) == pairs
                checked[0] += 1
                checked[1] += bool(pairs)
                assert self.world.engaged_pairs(pos, whole) == pairs
                checked[2] += left != whole
        original(self, live)

    monkeypatch.setattr(Simulation, "combat_phase", spy)
    _clash().run()
    assert checked[0] > 500 and checked[1] > 100 and checked[2] > 100, checked


def test_engaged_pairs_follow_placements_written_directly() -> None:
    """``sync_board`` re-reads the Engaged pairs after ``pos`` is written other than by ``set_pos``."""
    sim = _clash()
    sim.run()
    pairs = sim.engaged_bits(np.arange(sim.T)).copy()
    assert pairs.any()
    sim.pos[:] = -1
    sim.sync_board()
    assert not sim.engaged_bits(np.arange(sim.T)).any()


def test_charges_read_through_the_memo_equal_those_computed_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """8.7.7 steps 2-3: every Charge distance of 1,000 games of the 6-a-side example, read through
    ``World._charge_memo`` (kept with the box the path examined), equals the World's search on the
    same board, and the memo saved most of the reads (the Charges read near the Leading Model first,
    ``World._charge_local``, left off: they have tests of their own in test_scenario_geometry.py)."""
    from mathhammer.scenario.geometry import charge as charge_mod
    from mathhammer.scenario.world import World

    monkeypatch.setattr(charge_mod, "CHARGE_STEPS", ())

    calls: list[tuple[object, ...]] = []
    memo = World._charge_memo

    def spy(self: World, pos, alive, uid, targets, reach, fields=(), engaged_ok=False):  # type: ignore[no-untyped-def]
        assert fields == () and not engaged_ok  # no Force Field, no Lightning Dash in the example
        got = memo(self, pos, alive, uid, targets, reach, fields, engaged_ok)
        calls.append((self, pos, alive, uid, targets, reach, got))
        return got

    monkeypatch.setattr(World, "_charge_memo", spy)
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    Simulation(load_scenario(path), 1000, 8).run()
    w = calls[0][0]
    computed = sum(len(e) for e in w._charge_entries.values())  # type: ignore[attr-defined]
    assert len(calls) > 200 and computed < 0.8 * len(calls)
    for w, pos, alive, uid, targets, reach, got in calls:
        fresh = w._search(w.board_for(pos, alive), uid, targets, reach)  # type: ignore[attr-defined]
        assert (fresh.length, fresh.end) == got


def test_charge_placements_kept_equal_those_computed_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """8.7.7 step 4: every placement of a charging unit in 1,000 games of the 6-a-side example, read through
    ``World.charge_place_kept`` (kept with the other bases near the box it looked at), equals ``World.charge_place``
    on the same board, and the memo saved most of the reads."""
    calls: list[tuple[object, ...]] = []
    kept = World.charge_place_kept
    computed = [0]
    fresh = World.charge_place

    def spy(self: World, su, lead, rear, occupied, allowed, targets_left=()):  # type: ignore[no-untyped-def]
        got = kept(self, su, lead, rear, occupied, allowed, targets_left)
        calls.append((self, su, lead, rear, occupied, allowed, targets_left, got[0]))
        return got

    def counted(self: World, *a, **k):  # type: ignore[no-untyped-def]
        computed[0] += 1
        return fresh(self, *a, **k)

    monkeypatch.setattr(World, "charge_place_kept", spy)
    monkeypatch.setattr(World, "charge_place", counted)
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    Simulation(load_scenario(path), 1000, 8).run()
    assert len(calls) > 100 and computed[0] < 0.8 * len(calls)
    for w, su, lead, rear, occupied, allowed, left, got in calls:
        assert fresh(w, su, lead, rear, occupied, allowed, left) == got  # type: ignore[arg-type]


def _near_cols_naive(
    sim: Simulation, trials: np.ndarray, units: list[int], near
) -> list[tuple[tuple[int, ...], list[int]]]:  # type: ignore[no-untyped-def]
    """The reference of ``Simulation._near_cols_by``: a loop over the boards of ``trials`` (in order of first trial),
    each unit's placement tested one at a time; the boards of one key joined, board after board."""
    if not units:
        return [((), list(range(trials.size)))]
    boards: dict[int, list[int]] = {}
    for i, t in enumerate(trials.tolist()):
        boards.setdefault(int(sim.board[t]), []).append(i)
    parts: dict[tuple[int, ...], list[int]] = {}
    for b, positions in boards.items():
        pos = sim.board_pos(b)
        key = tuple(pos[v] if pos[v] >= 0 and near(pos[v], sim.units[v].player) else -1 for v in units)
        parts.setdefault(key, []).extend(positions)
    return list(parts.items())


def test_the_split_by_near_units_is_the_loop_over_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Simulation._near_cols_by`` splits the trials of many boards in two compiled passes (``fast.NearSplitter``):
    in every call of 200 games, its parts (keys, trial indices, their order) equal those of the loop over boards
    (:func:`_near_cols_naive`)."""
    real = Simulation._near_cols_by
    calls = []

    def both(self, trials, units, near):  # type: ignore[no-untyped-def]
        got = [(k, i.tolist()) for k, i in real(self, trials, units, near)]
        assert got == _near_cols_naive(self, trials, list(units), near)
        calls.append(len(got))
        yield from ((k, np.asarray(i, dtype=np.int64)) for k, i in got)

    monkeypatch.setattr(Simulation, "_near_cols_by", both)
    _play(_clash())
    assert len(calls) > 100 and max(calls) > 1


@pytest.mark.parametrize("sharing", [None, False, True])
def test_the_split_of_every_group_at_once_is_the_split_of_each(monkeypatch: pytest.MonkeyPatch, sharing) -> None:  # type: ignore[no-untyped-def]
    """Close Ranks and the striking models (8.8.1 steps 1-2) split the games of every group at once
    (``fastcombat.GroupsNearSplitter``): in every call of 200 games, the parts (group, placements near, games and
    their order, World) equal those of ``_near_parts`` group after group, also in the order of content that forked
    workers sharing answers read them in (ascending and descending: ``sharing`` True is descending)."""
    real = Simulation._near_parts_of
    calls: list[int] = []

    def both(self, groups, units, tests, pids):  # type: ignore[no-untyped-def]
        if sharing is not None:
            self.sharing, self.reverse = True, sharing
        got = [(g, k, ts.tolist(), w) for g, k, ts, w in real(self, groups, units, tests, pids)]
        each = [(g, k, ts.tolist(), w) for g, k, ts, w in Simulation._near_parts_each(self, groups, units, tests, pids)]
        assert got == each
        calls.append(len(got))
        yield from ((g, k, np.asarray(ts, dtype=np.int64), w) for g, k, ts, w in got)

    monkeypatch.setattr(Simulation, "_near_parts_of", both)
    _play(_clash())
    assert len(calls) > 20 and max(calls) > 5  # many groups, split into many parts


def test_alike_is_a_naive_comparison_of_the_units_that_matter() -> None:
    """`Movement._alike` (the Charge setting's reuse of one answer, 8.7.7 step 4): per game, are the placements of
    the units that matter (the others read as off the table) those of the first game? Held to a game-by-game loop,
    for tests keeping every placement, none, and about half."""
    sim = _clash()
    sim.run()
    rng = np.random.default_rng(3)
    units = [0, 2, 3, 5, 7, 8, 11]
    trials = np.sort(rng.choice(200, 120, replace=False))
    same = sim._alike(trials, units)
    placed = sorted({int(p) for p in sim.pos.ravel().tolist() if p >= 0})
    half = set(rng.choice(placed, len(placed) // 2, replace=False).tolist())
    seen_false = False
    for keep in (lambda p: True, lambda p: False, lambda p: p in half):
        idx = np.sort(rng.choice(trials.size, 60, replace=False))

        def key(t: int, keep: Callable[[int], bool] = keep) -> tuple[int, ...]:
            return tuple(int(sim.pos[v, t]) if sim.pos[v, t] >= 0 and keep(int(sim.pos[v, t])) else -1 for v in units)

        def matters(ps: np.ndarray, keep: Callable[[int], bool] = keep) -> np.ndarray:
            return np.array([keep(p) for p in ps.tolist()], dtype=bool)

        first = key(int(trials[idx[0]]))
        naive = [key(int(trials[i])) == first for i in idx.tolist()]
        got = same(idx, matters)
        assert got.tolist() == naive
        seen_false |= not all(naive)
    assert seen_false
