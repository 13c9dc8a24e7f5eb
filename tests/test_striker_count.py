"""8.8.1 step 2: the striking models (Fighting Rank and Supporting Rank, part 11 FIGHTING RANK, SUPPORTING RANK)
counted by :func:`~mathhammer.board.ranks.striker_count` (no ranks named) are those of
:func:`~mathhammer.board.ranks.ranks_of`: on every board state a Combat Phase asks of each shipped scenario, and on
random boards whose gaps sit on the limits (1" + EPS Within, 0.05" Base-to-Base contact) to the last bit."""

from __future__ import annotations

import math
import random

import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, Model
from mathhammer.board.ranks import CONTACT, ranks_of, striker_count
from mathhammer.scenario import builtin_scenarios, load_scenario, simulate
from mathhammer.scenario.geometry.facts import Facts


@pytest.mark.parametrize("name", [p.name for p in builtin_scenarios()])
def test_the_count_is_ranks_of_on_every_state_a_fight_asks(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[Facts, tuple[int, ...], tuple[int, ...], str, int]] = []
    count = Facts._striker_count

    def spy(self: Facts, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        got = count(self, pos, alive, uid)
        asked.append((self, pos, alive, uid, got))
        return got

    monkeypatch.setattr(Facts, "_striker_count", spy)
    simulate(load_scenario(next(p for p in builtin_scenarios() if p.name == name)), trials=300, seed=3, workers=1)
    for world, pos, alive, uid, got in asked:
        assert got == len(world._ranks(pos, alive, uid).attackers), (name, pos, alive, uid)
    if name == "standard_clash.toml":  # (no striker at all: tests below; a fight needs an Engaged pair of models left)
        assert len(asked) > 50 and any(got for *_, got in asked)


def _on_limit(rng: random.Random, anchor: Model, r: float, gap: float) -> tuple[float, float]:
    """A centre whose gap to ``anchor`` (radius ``r`` for the new base) is ``gap`` give or take a few ulps."""
    a = rng.uniform(0, 2 * math.pi)
    d = anchor.radius + r + gap + rng.choice([-2e-15, -1e-15, 0.0, 1e-15, 2e-15, 1e-12, -1e-12])
    return anchor.x + d * math.cos(a), anchor.y + d * math.sin(a)


def test_the_count_is_ranks_of_on_boards_at_the_limits() -> None:
    rng = random.Random(11)
    engaged_pairs = 0
    for case in range(400):
        r, er = rng.choice([0.49, 0.63]), rng.choice([0.49, 0.63, 0.98])
        models = [Model(f"u.{i}", rng.uniform(10, 14), rng.uniform(10, 14), base_mm=r * 2 * 25.4) for i in range(6)]
        for i in range(1, 4):  # some in Base-to-Base contact with another, to the last bit
            x, y = _on_limit(rng, models[i - 1], r, CONTACT)
            models[i] = Model(f"u.{i}", x, y, base_mm=r * 2 * 25.4)
        enemies = []
        for j in range(5):
            x, y = _on_limit(rng, rng.choice(models), er, ENGAGEMENT_RANGE + EPS)
            if j == 4:
                x, y = rng.uniform(8, 16), rng.uniform(8, 16)
            enemies.append(Model(f"e.{j}", x, y, base_mm=er * 2 * 25.4, flying=case % 7 == 0 and j == 0))
        # an Engagement test that says no to some pairs within 1" (as a Size 2+ wall would)
        blocked = {(m.id, e.id) for m in models for e in enemies if rng.random() < 0.3}

        def is_engaged(m: Model, e: Model, blocked: set[tuple[str, str]] = blocked) -> bool:
            return not e.flying and (m.id, e.id) not in blocked

        want = len(ranks_of("u", models, enemies, is_engaged).attackers)
        engaged_pairs += want
        assert striker_count(models, enemies, is_engaged) == want, case
    assert engaged_pairs > 100  # the boards do put models in the ranks


def test_no_enemy_or_no_model_counts_as_ranks_of() -> None:
    models = [Model("u.1", 5, 5), Model("u.2", 6, 5)]
    never = lambda m, e: True  # noqa: E731
    assert striker_count(models, [], never) == 0
    assert striker_count([], models, never) == 0
    flying = [Model("u.1", 5, 5, flying=True)]
    enemy = [Model("e.1", 5.5, 6)]
    assert striker_count(flying, enemy, never) == 0 == len(ranks_of("u", flying, enemy, never).attackers)
