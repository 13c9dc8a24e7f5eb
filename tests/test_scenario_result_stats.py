"""A scenario result's per-unit figures read in one compiled pass a row (faststats.summary): the very floats of the
numpy passes they replace (the naive reference below is the former ``ScenarioResult.unit_rows``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.faststats import summary
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


@pytest.mark.parametrize("n", [*range(1, 140), 255, 256, 257, 1000, 8191, 8193, 100_003])
@pytest.mark.parametrize("dtype", [np.int16, np.int64])
def test_summary_is_numpys_mean_std_and_counts_to_the_bit(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    x = rng.integers(-2, 30, n).astype(dtype)
    lo, counts, mean, sd = summary(x)
    f = x.astype(float)
    assert mean == f.mean()  # exact equality: the same float64 bits
    assert sd == (f.std(ddof=1) if n > 1 else 0.0)
    assert lo == x.min()
    assert counts.tolist() == np.bincount(x - x.min()).tolist()


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 129, 100_003])
@pytest.mark.parametrize("value", [-1, 0, 3, 300])
def test_summary_of_one_value_is_numpys_to_the_bit(n: int, value: int) -> None:
    """A row of one value (most rows of a run: a unit no attack reached that Round) is read in one pass."""
    x = np.full(n, value, dtype=np.int16)
    lo, counts, mean, sd = summary(x)
    f = x.astype(float)
    assert (lo, counts.tolist()) == (value, [n])
    assert mean == f.mean() and sd == (f.std(ddof=1) if n > 1 else 0.0)
    assert math.copysign(1.0, sd) == 1.0  # +0.0, as numpy's


def test_summary_of_a_million_games() -> None:
    x = np.random.default_rng(7).integers(0, 6, 1_000_003).astype(np.int16)
    _, _, mean, sd = summary(x)
    assert (mean, sd) == (x.astype(float).mean(), x.astype(float).std(ddof=1))


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("trials", [1, 2, 9, 1000, 40_001])
def test_unit_rows_equal_the_naive_numpy_rows(trials: int, threaded: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows read in turn and read on threads (result._m_counts_many, from THREADED_VALUES values) are the naive
    numpy rows to the bit."""
    import mathhammer.scenario.result as result_module

    monkeypatch.setattr(result_module, "THREADED_VALUES", 0 if threaded else 1 << 62)
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
    assert got == want
    assert [list(row) for row in got] == [list(row) for row in want]  # the JSON's key order
    assert [list(row["supply_pmf"]) for row in got] == [list(row["supply_pmf"]) for row in want]
    for r, snap in enumerate(rounds):
        for p in (0, 1):
            row = res.vp_rows()[2 * r + p]
            assert (row["vp_mean"], row["vp_se"]) == _naive_m(snap["vp"][p].astype(float))


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
