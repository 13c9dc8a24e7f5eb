"""A scenario result's figures read from its games' counts (scenario.counts: one compiled count a row, added block by
block): the numpy figures of the games' arrays (the naive reference below is the former ``ScenarioResult.unit_rows``),
the means and shares to the bit, the standard errors to 1e-12."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.counts import KEYS, Counts, Hist, mean_se
from mathhammer.scenario.result import ScenarioResult


def _naive_m(x: np.ndarray) -> tuple[float, float]:
    n = x.size
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0


def _naive_p(mask: np.ndarray) -> tuple[float, float]:
    n = mask.size
    p = float(mask.mean()) if n else 0.0
    return p, math.sqrt(max(p * (1 - p), 0.0) / n) if n else 0.0


def _naive_pmf(x: np.ndarray) -> dict[int, float]:
    values, counts = np.unique(x, return_counts=True)
    return {int(a): float(c) / x.size for a, c in zip(values, counts, strict=True)}


def _naive_unit_rows(res: ScenarioResult) -> list[dict[str, Any]]:
    rows = []
    for r, snap in enumerate(res.rounds, 1):
        for i, u in enumerate(res.units):
            alive = snap["alive"][i]
            models, models_se = _naive_m(alive.astype(float))
            supply, supply_se = _naive_m(snap["supply"][i].astype(float))
            marker, marker_se = _naive_m(snap["marker"][i].astype(float))
            destroyed, destroyed_se = _naive_p(alive == 0)
            rows.append(
                {
                    "round": r,
                    "unit": u["id"],
                    "player": u["player"],
                    "card": u["card"],
                    "models_mean": models,
                    "models_se": models_se,
                    "models_pmf": {
                        k: float(c) / alive.size
                        for k, c in enumerate(np.bincount(np.clip(alive, 0, None), minlength=u["models"] + 1))
                    },
                    "supply_mean": supply,
                    "supply_se": supply_se,
                    "supply_pmf": _naive_pmf(snap["supply"][i]),
                    "damage_marker_mean": marker,
                    "damage_marker_se": marker_se,
                    "damage_marker_pmf": _naive_pmf(snap["marker"][i]),
                    "p_destroyed": destroyed,
                    "p_destroyed_se": destroyed_se,
                    "p_on_table": _naive_p(snap["on_table"][i])[0],
                }
            )
    return rows


@pytest.mark.parametrize("n", [*range(1, 40), 255, 256, 257, 1000, 8193, 100_003])
@pytest.mark.parametrize("dtype", [np.int16, np.int64])
def test_mean_se_from_counts_is_numpys_mean_and_std(n: int, dtype: type) -> None:
    """The mean of the counted values is numpy's to the bit (an exact integer sum over the count); the standard error
    numpy's ``std(ddof=1) / sqrt(n)`` to 1e-12 (the squared deviations added per value, not per game)."""
    rng = np.random.default_rng(n)
    x = rng.integers(-2, 30, n).astype(dtype)
    found = Hist.of(x).row()
    mean, se = mean_se(found)
    want_mean, want_se = _naive_m(x.astype(float))
    assert mean == want_mean  # exact equality: the same float64 bits
    assert se == pytest.approx(want_se, rel=1e-12, abs=0.0)
    assert found == _naive_counts(x)


@pytest.mark.parametrize("n", [1, 2, 7, 129, 100_003])
@pytest.mark.parametrize("value", [-1, 0, 3, 300])
def test_mean_se_of_one_value_is_exact(n: int, value: int) -> None:
    """A row of one value (most rows of a run: a unit no attack reached that Round): its mean, no error."""
    mean, se = mean_se(Hist.of(np.full(n, value, dtype=np.int16)).row())
    assert (mean, se) == (float(value), 0.0)
    assert math.copysign(1.0, se) == 1.0


def test_counts_of_a_million_games() -> None:
    x = np.random.default_rng(7).integers(0, 6, 1_000_003).astype(np.int16)
    mean, se = mean_se(Hist.of(x).row())
    want_mean, want_se = _naive_m(x.astype(float))
    assert mean == want_mean and se == pytest.approx(want_se, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("seed", range(12))
def test_counts_add_up_over_any_split_of_the_games(seed: int) -> None:
    """Counts of blocks of games, added in any order, are the counts of all the games at once (a run counted block
    by block, on any number of workers, gives the same figures): rows of several values, of one value, booleans,
    rows whose values do not overlap from one block to the next."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    rounds = _rounds(rng, n, 3)
    winner, end_round = rng.integers(-1, 2, n), rng.integers(1, 4, n)
    instant = rng.random(n) < 0.1
    rounds[1]["supply"][0] += np.arange(n, dtype=np.int16) // max(1, n // 3)  # late games: values the first lack
    whole = Counts.of(rounds, winner, end_round, instant)
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, int(rng.integers(1, 6))), replace=False))
    parts = [
        Counts.of(
            [{k: a[..., lo:hi] for k, a in snap.items()} for snap in rounds],
            winner[lo:hi],
            end_round[lo:hi],
            instant[lo:hi],
        )
        for lo, hi in zip([0, *cuts], [*cuts, n], strict=True)
    ]
    order = rng.permutation(len(parts))
    added = parts[order[0]]
    for i in order[1:]:
        added = added + parts[i]
    assert added.games == whole.games == n
    for mine, theirs in zip(
        (*added.rounds, added.winner, added.end_round, added.instant),
        (*whole.rounds, whole.winner, whole.end_round, whole.instant),
        strict=True,
    ):
        for a, b in ((mine, theirs),) if isinstance(mine, Hist) else ((mine[k], theirs[k]) for k in KEYS):
            assert [a.row(i) for i in range(a.counts.shape[0])] == [b.row(i) for i in range(b.counts.shape[0])]


def _rounds(rng: np.random.Generator, trials: int, count: int) -> list[dict[str, np.ndarray]]:
    return [
        {
            "alive": rng.integers(-1, 6, (2, trials)).astype(np.int16),
            "on_table": rng.random((2, trials)) < 0.7,
            "supply": rng.integers(0, 9, (2, trials)).astype(np.int16),
            "marker": np.zeros((2, trials), dtype=np.int16),
            "control": rng.integers(-1, 2, (1, trials)).astype(np.int8),
            "vp": rng.integers(0, 20, (2, trials)).astype(np.int16),
            "over": rng.random(trials) < 0.1,
        }
        for _ in range(count)
    ]


def _naive_counts(x: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(x, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


def _close(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    """The rows equal, each standard error to 1e-12 (:func:`mean_se`), every other figure to the bit."""
    assert [list(row) for row in got] == [list(row) for row in want]  # the JSON's key order
    for a, b in zip(got, want, strict=True):
        for k, v in a.items():
            if k.endswith("_se"):
                assert v == pytest.approx(b[k], rel=1e-12, abs=0.0), k
            else:
                assert v == b[k], k


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("trials", [1, 2, 9, 1000, 40_001])
def test_unit_rows_equal_the_naive_numpy_rows(trials: int, threaded: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows counted in turn and counted on threads (counts._read, from THREADED_VALUES values) are the naive
    numpy rows (the standard errors to 1e-12)."""
    import mathhammer.scenario.counts as counts_module

    monkeypatch.setattr(counts_module, "THREADED_VALUES", 0 if threaded else 1 << 62)
    rng = np.random.default_rng(trials)
    units = [
        {"id": "a", "player": "red", "card": "A", "models": 5},
        {"id": "b", "player": "blue", "card": "B", "models": 1},
    ]
    rounds = []
    for _ in range(3):
        alive = rng.integers(-1, 6, (2, trials)).astype(np.int16)  # a unit below 0 models counts as 0 in the pmf
        alive[1] = np.clip(alive[1], 0, 1)
        if not rounds:  # Round 1: unit b untouched, no Damage Marker on either (rows of one value)
            alive[1] = 1
        rounds.append(
            {
                "alive": alive,
                "on_table": rng.random((2, trials)) < 0.7,
                "supply": rng.integers(0, 9, (2, trials)).astype(np.int16),
                "marker": rng.integers(0, 3 if rounds else 1, (2, trials)).astype(np.int16),
                "control": rng.integers(-1, 2, (1, trials)).astype(np.int8),
                "vp": rng.integers(0, 20, (2, trials)).astype(np.int16),
                "over": rng.random(trials) < 0.1,
            }
        )
    res = ScenarioResult(
        scenario="s",
        file="f",
        trials=trials,
        seed=1,
        units=units,
        markers=[1],
        rounds=rounds,
        end_round=np.full(trials, 3),
        winner=np.zeros(trials, dtype=np.int64),
        instant=np.zeros(trials, dtype=bool),
    )
    got, want = res.unit_rows(), _naive_unit_rows(res)
    _close(got, want)
    assert [list(row["supply_pmf"]) for row in got] == [list(row["supply_pmf"]) for row in want]
    for r, snap in enumerate(rounds):
        for p in (0, 1):
            row = res.vp_rows()[2 * r + p]
            mean, se = _naive_m(snap["vp"][p].astype(float))
            assert row["vp_mean"] == mean and row["vp_se"] == pytest.approx(se, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("trials", [1, 2, 9, 1000, 40_001])
def test_shares_equal_the_naive_numpy_means(trials: int) -> None:
    """P(win), P(the game ends in Round r), P(a marker's controller), P(over) and P(on the table) read as a count
    over the games: the bits of numpy's mean of the mask (its float sum of ones is the exact count)."""
    rng = np.random.default_rng(trials + 1)
    rounds = [
        {
            "alive": rng.integers(0, 3, (1, trials)).astype(np.int16),
            "on_table": rng.random((1, trials)) < 0.3,
            "supply": rng.integers(0, 3, (1, trials)).astype(np.int16),
            "marker": rng.integers(0, 3, (1, trials)).astype(np.int16),
            "control": rng.integers(-1, 2, (2, trials)).astype(np.int8),
            "vp": rng.integers(0, 9, (2, trials)).astype(np.int16),
            "over": rng.random(trials) < 0.2,
        }
        for _ in range(2)
    ]
    winner = rng.integers(-1, 2, trials)
    res = ScenarioResult(
        scenario="s",
        file="f",
        trials=trials,
        seed=1,
        units=[{"id": "a", "player": "red", "card": "A", "models": 2}],
        markers=[1, 2],
        rounds=rounds,
        end_round=rng.integers(1, 3, trials),
        winner=winner,
        instant=rng.random(trials) < 0.5,
    )
    for name, code in (("red", 0), ("blue", 1), ("draw", -1)):
        p, se = _naive_p(winner == code)
        assert res.outcome()[name] == {"p": p, "stderr": se}
    assert res.end_rounds() == {r: float((res.end_round == r).mean()) for r in (1, 2)}
    assert res.to_dict()["instant_win"] == float(res.instant.mean())
    rows = iter(res.marker_rows())
    for snap in rounds:
        for m in (0, 1):
            row = next(rows)
            for name, code in (("red", 0), ("blue", 1), ("none", -1)):
                assert (row[f"p_{name}"], row[f"p_{name}_se"]) == _naive_p(snap["control"][m] == code)
    assert [row["p_over"] for row in res.vp_rows()] == [float(s["over"].mean()) for s in rounds for _ in (0, 1)]
    assert [row["p_on_table"] for row in res.unit_rows()] == [float(s["on_table"][0].mean()) for s in rounds]
    for p, player in enumerate(("red", "blue")):
        assert res.vp_pmf(player) == _naive_pmf(rounds[-1]["vp"][p])
        assert list(res.vp_pmf(player, 1)) == sorted(_naive_pmf(rounds[0]["vp"][p]))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1000, 40_001])
def test_counts_are_numpys_unique_counts(dtype: type, n: int) -> None:
    from mathhammer.scenario.faststats import counts

    rng = np.random.default_rng(n)
    for x in (rng.integers(-1, 6, n).astype(dtype), np.full(n, -1, dtype=dtype)):
        lo, found = counts(x)
        values, want = np.unique(x, return_counts=True)
        assert lo == values[0]
        assert {lo + int(v): int(found[v]) for v in np.flatnonzero(found)} == dict(
            zip(values.tolist(), want.tolist(), strict=True)
        )
