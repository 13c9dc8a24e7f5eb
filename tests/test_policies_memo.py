"""Issue 29 point 6 ("memory flat in the number of games"): :func:`ability_gain`'s memo of a menu's ability twins
stays bounded however many menus (Worlds) a process builds, and answers the same after it is cleared."""

from __future__ import annotations

import numpy as np

from mathhammer.scenario.players import policies
from mathhammer.scenario.players.menu import Entry


def _menu(x: float) -> tuple[Entry, ...]:
    plain = Entry("Shoot", target=f"enemy-{x}")
    return (Entry("Move", to=(x, 1.0)), plain, Entry("Shoot", target=f"enemy-{x}", use=("Stimpack",)))


def test_the_twins_memo_stays_bounded_and_answers_the_same() -> None:
    s = np.array([[0.0, 1.0, 3.0], [0.0, 2.0, 1.5]])
    cost = np.array([0.0, 0.0, 1.0])
    kept = [_menu(float(i)) for i in range(3 * policies.TWINS_LIMIT)]  # alive together: no id is reused
    for menu in kept:
        top, paid = policies.ability_gain(menu, s, cost)
        assert len(policies._TWINS) <= policies.TWINS_LIMIT
        assert top.tolist() == [2.0, 0.0]  # the ability's entry less its twin, at least 0
        assert paid.tolist() == [1.0, 0.0]
