"""8.8.1 steps 3-4: a fight resolves its attacks once per (abilities used, models left of the targets, striking
models), not once per board state of the unit; the games are those of the reading that resolved each board state's
part on its own (``naive_fight`` below: the loop before the change), for every ``[policy] fight_split``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.scenario import builtin_scenarios, load_scenario, simulate
from mathhammer.scenario.basics import split_by
from mathhammer.scenario.sim_combat import Combat
from tests.scenario_kit import assert_same_games


def naive_fight(self: Combat, u: int, targets: Sequence[str], trials: np.ndarray, stream: int) -> None:
    """:meth:`Combat.fight` as it read before: per group of games by the unit's placement, models and abilities used
    and the targets' models left, the striking models read per board near, one ``_strike`` per part."""
    uid = self.uids[u]
    split = self.scn.policy.fight_split
    for ready in self.cards.before_fight:
        trials = ready(u, trials)
    if self.scn.policy.close_ranks == "always":
        self.close_ranks(u, trials)
    side = self.units[u].player
    enemies = [v for v in range(self.U) if self.units[v].player != side]
    for hook in self.cards.before_attack:
        hook([u, *enemies], trials)
    for ts, pairs in self.engaged_with(trials):
        engaged = {b for a, b in pairs if a == uid}
        if not engaged:
            continue
        ranked = [t for t in dict.fromkeys(targets) if t in engaged]
        ranked += sorted((t for t in engaged if t not in ranked), key=self.uids.index)
        foes = [self.uids.index(t) for t in (ranked[:1] if split == "first-target" else ranked)]
        cols = [self.row_pos(u), self.row_alive(u), self.row_used(u), *(self.row_alive(t) for t in foes)]
        for gkey, ts1 in self.groups(ts, cols):
            pu, a, mask, left = gkey[0], gkey[1], gkey[2], gkey[3:]
            if a <= 0:
                continue
            exact = dict(zip(foes, left, strict=True))
            strikers = np.zeros(ts1.size, dtype=np.int64)
            near = self._near_test(pu, ENGAGEMENT_RANGE + 2.0)
            for idx, near_pos, world in self._near_parts(ts1, enemies, near):
                pos, alive = self._local_state({u: (pu, a)}, enemies, near_pos, exact)
                strikers[idx] = min(world.strikers(pos, alive, uid), a)
            for n, ts2 in split_by(ts1, strikers):
                if n > 0:
                    self._strike(u, mask, foes, left, n, split, ts2, stream)


def _clash(fight_split: str):  # type: ignore[no-untyped-def]
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    scn = load_scenario(path)
    return dataclasses.replace(scn, policy=scn.policy.model_copy(update={"fight_split": fight_split}))


@pytest.mark.parametrize("fight_split", ["first-target", "even", "weakest"])
def test_one_resolve_per_strike_key_gives_the_same_games(monkeypatch: pytest.MonkeyPatch, fight_split: str) -> None:
    """8.8.1 steps 3-4 read the striking models, the abilities used and the targets' models left, and each game's
    dice are its own: resolving the games of many board states at once plays the same games, with fewer resolves."""
    scn = _clash(fight_split)
    calls: list[int] = []
    strike = Combat._strike

    def counted(self: Combat, *args: object) -> None:
        calls.append(1)
        strike(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Combat, "_strike", counted)
    shipped = simulate(scn, trials=600, seed=855, workers=1)
    merged = len(calls)
    calls.clear()
    monkeypatch.setattr(Combat, "fight", naive_fight)
    naive = simulate(scn, trials=600, seed=855, workers=1)
    assert_same_games(shipped, naive)
    assert 0 < merged < len(calls)  # the point of the change: parts of many board states resolved together
