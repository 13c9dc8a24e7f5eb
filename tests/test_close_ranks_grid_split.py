"""8.8.1 step 1 CLOSE RANKS: the parts of a Close Ranks that reach the grid fallback (which looks farther) are split
by the units near the grid's box all at once (``Combat.close_ranks``), not part after part: every game is the one
of the reading that split each part on its own (``naive_close_ranks`` below: the loop before the change), with the
grid fallback reached."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.scenario import builtin_scenarios, load_scenario, simulate
from mathhammer.scenario.fastcombat import BOX, EVERY
from mathhammer.scenario.geometry.ranks import CloseRanks
from mathhammer.scenario.sim_combat import _NO_BOX, Combat, NearTest
from tests.scenario_kit import assert_same_games


def naive_close_ranks(self: Combat, u: int, trials: np.ndarray) -> None:
    """:meth:`Combat.close_ranks` as it read before: each part reaching the grid fallback split on its own."""
    if self.units[u].flying:
        return
    uid = self.uids[u]
    moves: list[tuple[np.ndarray, int]] = []
    old = self.grass.start(self.pos, u, trials)
    for ts, pairs in self.engaged_with(trials):
        foes = sorted({self.uids.index(b) for a, b in pairs if a == uid})
        if not foes:
            continue
        cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
        for t in foes:
            cols += [self.row_pos(t), self.row_alive(t)]
        rest = [v for v in range(self.U) if v != u and v not in foes]
        groups: list[tuple[tuple[int, ...], np.ndarray]] = []
        settings: list[tuple[int, int, tuple[tuple[int, int], ...], float]] = []
        tests: list[NearTest] = []
        for gkey, ts1 in self.groups(ts, cols):
            pu, a, mask = gkey[0], gkey[1], gkey[2]
            if a <= 0 or (mask and any(stay(u, mask) for stay in self.cards.stays_put)):  # SIEGE MODE
                continue
            engaged = tuple((gkey[3 + 2 * i], gkey[4 + 2 * i]) for i in range(len(foes)) if gkey[4 + 2 * i] > 0)
            # the other units on the table matter only near the move (World.close_box): split by those
            lo, hi, reach = self.world.close_box(pu, a, engaged)
            box = _NO_BOX if lo is None or hi is None else (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
            groups.append((gkey, ts1))
            settings.append((pu, a, engaged, reach))
            tests.append((EVERY if box is _NO_BOX else BOX, box, -1, reach))
        # part 11 GRASS: the move and the Engagement of its spots read on the board without the removed pieces
        pids = [0, *(3 + 2 * i for i in range(len(foes)))]
        for g, near_pos, ts2, world in self._near_parts_of(groups, rest, tests, pids):
            pu, a, engaged, reach = settings[g]
            new = world.close_ranks_near(pu, a, engaged, tuple(p for p in near_pos if p >= 0))
            if isinstance(new, tuple):  # the grid fallback looks farther: the units near its box
                glo, ghi = new
                for gpos, idx3 in self._near_cols(ts2, rest, self._box_test(glo, ghi, reach)):
                    ts3 = ts2[idx3]
                    moved = world.close_ranks_grid(pu, a, engaged, tuple(p for p in gpos if p >= 0))
                    if moved != pu:
                        moves.append((ts3, moved))
            elif new != pu:
                moves.append((ts2, new))
    self.set_pos_many(u, moves)  # in one pass: the loops read the other units' placements only
    self.grass.end(self.pos, self.alive, u, old, None, False)


@pytest.mark.parametrize("name", ["standard_clash.toml", "hold_position_crossing.toml"])
def test_the_grid_parts_split_at_once_give_the_same_games(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    scn = load_scenario(next(p for p in builtin_scenarios() if p.name == name))
    grid: list[int] = []
    kept = CloseRanks.close_ranks_grid

    def counted(self: CloseRanks, *args: object) -> int:
        grid.append(1)
        return kept(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(CloseRanks, "close_ranks_grid", counted)
    shipped = simulate(scn, trials=800, seed=855, workers=1)
    asked = len(grid)
    grid.clear()
    monkeypatch.setattr(Combat, "close_ranks", naive_close_ranks)
    naive = simulate(scn, trials=800, seed=855, workers=1)
    assert_same_games(shipped, naive)
    assert asked == len(grid)  # the same grid parts asked
    if name == "standard_clash.toml":
        assert asked > 10  # the grid fallback is reached
