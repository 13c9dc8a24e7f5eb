"""The Monte Carlo engine (:mod:`mathhammer.engine`): determinism, the two sampling methods, the kernels' rules.

Comparisons with the exact engine live elsewhere; here the engine is checked
against itself (count vs die, chunks, threads, seeds), against the contract's
:func:`~mathhammer.starcraft.compiled.apply_damage`, and against a slow
die-by-die reading of the compiled procedure written below.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from mathhammer import config as engine_config
from mathhammer.errors import InputError
from mathhammer.starcraft.compiled import apply_damage, compile_attack, damage_bound, marker_bound
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
from mathhammer.starcraft.montecarlo import simulate, simulate_adaptive

HISTOGRAMS = ("damage", "models_destroyed", "marker", "shielded")


def reference_attack():
    """The reference Batch of PERFORMANCE.md and the benchmarks."""
    weapon = Weapon.build(
        "ref", roa=1, hit=4, damage=2, surge="Light:D3", keywords=["PRECISION (1)", "CRITICAL HIT (1)"]
    )
    target = Target.build(5, 2, shield=2, armour=4, evade=5, tags="Light", keywords=["TOUGH (1)"], evade_eligible=True)
    return compile_attack(Attack((Batch(weapon, models=10),), target))


def zealots_chain():
    """Two Batches with NON-LETHAL, CONCENTRATED FIRE, a fixed Surge and DODGE against Zealots."""
    rifle = Weapon.build("rifle", roa=2, hit=3, damage=1, surge="Light:3", keywords=["NON-LETHAL DAMAGE (1)"])
    cannon = Weapon.build("cannon", roa=1, hit=4, damage=3, keywords=["CONCENTRATED FIRE (1)", "CRITICAL HIT (2)"])
    zealots = Target.build(4, 4, shield=3, armour=3, evade=6, tags="Light", keywords=["DODGE (1)"])
    return compile_attack(Attack((Batch(rifle, models=5), Batch(cannon, models=3)), zealots))


def mixed_chain():
    """HITS and IMPACT Batches, two Hit groups (LONG RANGE), 2D3+1 Surge, Evade, a visible cap."""
    claws = Weapon.build(
        "claws", roa=2, hit=3, damage=1, range=6, surge="Armoured:2D3+1",
        keywords=["HITS 2 (2)", "IMPACT (1) 4+", "LONG RANGE (12)", "PRECISION (2)"],
    )  # fmt: skip
    batch = Batch(claws, models=4, distances=(3.0, 3.0, 8.0, 10.0))
    target = Target.build(6, 3, armour=4, evade=4, tags="Armoured", evade_eligible=True, visible=4)
    return compile_attack(Attack((batch,), target))


def big_pool_chain():
    """A pool above the binomial table size (drawn in pieces by the count method)."""
    gun = Weapon.build("gatling", roa=30, hit=2, damage=1)
    target = Target.build(20, 8, armour=5)
    return compile_attack(Attack((Batch(gun, models=10),), target))


CHAINS = {
    "reference": reference_attack,
    "zealots": zealots_chain,
    "mixed": mixed_chain,
    "big_pool": big_pool_chain,
}


def assert_same(a, b):
    assert a.trials == b.trials
    for name in HISTOGRAMS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def two_sample_p(a: np.ndarray, b: np.ndarray, min_expected: float = 5.0) -> float:
    """G-test p-value that two count histograms come from one distribution (sparse bins merged)."""
    n = max(a.size, b.size)
    table = np.zeros((2, n))
    table[0, : a.size] = a
    table[1, : b.size] = b
    share = table.sum(axis=1, keepdims=True) / table.sum()
    merged: list[np.ndarray] = []
    acc = np.zeros(2)
    for column in table.T:
        acc = acc + column
        if (share[:, 0] * acc.sum()).min() >= min_expected:
            merged.append(acc)
            acc = np.zeros(2)
    if acc.sum() > 0:
        if merged:
            merged[-1] = merged[-1] + acc
        else:
            merged.append(acc)
    if len(merged) < 2:
        return 1.0
    return float(chi2_contingency(np.array(merged).T, lambda_="log-likelihood", correction=False).pvalue)


def assert_same_distribution(a, b, label: str, p_min: float = 1e-6) -> None:
    for name in HISTOGRAMS:
        p = two_sample_p(getattr(a, name), getattr(b, name))
        assert p > p_min, f"{label}: {name} differs (G-test p={p:.3g})"


# --- the casualty rules -------------------------------------------------------------------------------


def test_kernel_casualties_match_the_contract_on_every_small_input():
    from mathhammer.starcraft.kernels import _casualties as fast

    checked = 0  # (visible counts the models visible at the start of the chain)
    for hp_list in ([3], [7, 4, 4], [4, 2, 2, 2, 2], [1, 1], [5, 3, 6]):
        hp = np.array(hp_list, dtype=np.int64)
        cum = np.concatenate(([0], np.cumsum(hp))).astype(np.int64)
        for (
            removed, marker, shielded, shield, (dice, damage), nonlethal, visible, concentrated, (reduce, floor)
        ) in itertools.product(
            range(hp.size + 1),
            range(4),
            (False, True),
            (0, 3),
            [(d, 1) for d in range(13)] + [(d, m) for d in range(5) for m in (0, 2, 3)],
            (0, 2),
            (1, 2, 999),
            (0, 1, 2),
            ((0, 0), (2, 1), (3, 0)),  # a Total Damage reduction (Dae'Uhl: 2, at least 1)
        ):  # fmt: skip
            args = (removed, marker, shielded, shield, dice, damage, nonlethal, visible, concentrated, reduce, floor)
            expected = apply_damage(hp, *args)
            case = (hp_list, *args)
            got = fast(hp, cum, *args)
            assert (int(got[0]), int(got[1]), bool(got[2])) == expected, case
            checked += 1
    assert checked > 150_000


# --- determinism --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reference", "zealots", "mixed"])
@pytest.mark.parametrize("method", ["count", "die"])
def test_same_seed_same_tally_for_any_chunk_size(name, method):
    batches, target = CHAINS[name]()
    a = simulate(batches, target, 100_003, seed=7, method=method, chunk_size=1000)
    b = simulate(batches, target, 100_003, seed=7, method=method, chunk_size=65536)
    c = simulate(batches, target, 100_003, seed=7, method=method, chunk_size=7)
    assert_same(a, b)
    assert_same(a, c)


def test_super_blocks_do_not_change_the_result(monkeypatch):
    batches, target = reference_attack()
    a = simulate(batches, target, 50_000, seed=3)
    monkeypatch.setattr(engine_config, "SUPER_BLOCK", 4096)
    b = simulate(batches, target, 50_000, seed=3, chunk_size=1000)
    assert_same(a, b)


@pytest.mark.parametrize("name", ["reference", "zealots", "mixed"])
def test_casualty_table_and_casualty_function_give_the_same_tally(name, monkeypatch):
    """The transition table is apply_damage tabulated: with the same draws, the same counts."""
    from mathhammer.starcraft import montecarlo as driver

    batches, target = CHAINS[name]()
    packed = driver.pack(batches, target)
    assert driver.Run(packed, 5, "count", 1000, planned=50_000).casualties[0] is not None
    a = simulate(batches, target, 50_000, seed=5)
    monkeypatch.setattr(engine_config, "TRANSITIONS_ALWAYS", 0)
    assert driver.Run(packed, 5, "count", 1000, planned=50_000).casualties[0] is None
    b = simulate(batches, target, 50_000, seed=5)
    assert_same(a, b)


@pytest.mark.parametrize("method", ["count", "die"])
def test_serial_and_parallel_drivers_give_the_same_tally(method, monkeypatch):
    """Short runs use the single-thread kernel; forcing the prange driver must not change a count."""
    monkeypatch.setattr("mathhammer.starcraft.montecarlo.numba_loaded", lambda: True)  # numba's drivers, not numpy
    batches, target = CHAINS["mixed"]()
    a = simulate(batches, target, 70_001, seed=9, method=method, chunk_size=4096)
    monkeypatch.setattr(engine_config, "SERIAL_MAX", 0)
    b = simulate(batches, target, 70_001, seed=9, method=method, chunk_size=4096)
    assert_same(a, b)


def test_different_seeds_differ():
    batches, target = reference_attack()
    a = simulate(batches, target, 20_000, seed=1)
    b = simulate(batches, target, 20_000, seed=2)
    assert not np.array_equal(a.damage, b.damage)


_THREAD_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numba
    sys.path.insert(0, {tests!r})
    from test_engine import CHAINS
    from mathhammer import config
    from mathhammer.starcraft.montecarlo import simulate
    config.SERIAL_MAX = 0  # every run through the parallel driver, whatever its size
    runs = []
    for threads in (1, 2):  # one process (one start-up, kernels loaded once), the thread pool set for each run
        numba.set_num_threads(threads)
        out = {{"threads": numba.get_num_threads()}}
        for name in ("reference", "zealots"):
            for method in ("count", "die"):
                b, t = CHAINS[name]()
                tally = simulate(b, t, 60_001, seed=11, method=method, chunk_size=4096)
                hists = ("damage", "models_destroyed", "marker", "shielded")
                out[name + "/" + method] = [getattr(tally, h).tolist() for h in hists]
        runs.append(out)
    print(json.dumps(runs))
    """
)


def _run_on_one_and_two_threads() -> list[dict]:
    env = dict(os.environ, NUMBA_NUM_THREADS="2")  # the pool's size; each run sets how many of it it uses
    script = _THREAD_SCRIPT.format(tests=os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_same_tally_on_one_and_two_threads():
    one, two = _run_on_one_and_two_threads()
    assert one.pop("threads") == 1
    assert two.pop("threads") == 2
    assert one == two
    b, t = CHAINS["reference"]()
    here = simulate(b, t, 60_001, seed=11, chunk_size=65536)
    assert one["reference/count"] == [getattr(here, h).tolist() for h in HISTOGRAMS]


def test_importing_the_engine_does_not_import_numba():
    code = "import sys, mathhammer.engine; print('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- the two sampling methods -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_count_and_die_methods_agree(name):
    batches, target = CHAINS[name]()
    trials = 40_000 if name == "big_pool" else 200_000
    count = simulate(batches, target, trials, seed=5, method="count")
    die = simulate(batches, target, trials, seed=6, method="die")
    assert_same_distribution(count, die, name)


# --- a slow reading of the compiled procedure ---------------------------------------------------------


def _successes(rng: random.Random, n: int, target: int) -> int:
    return sum(rng.randint(1, 6) >= target for _ in range(n))


def naive_tally_counts(batches, target, trials: int, seed: int):
    """Die-by-die, straight from the steps in the ``compiled`` module docstring."""
    rng = random.Random(seed)
    damage = np.zeros(damage_bound(batches) + 1)
    models = np.zeros(target.models + 1)
    marker_h = np.zeros(marker_bound(batches, target) + 1)
    shielded_h = np.zeros(2)
    for _ in range(trials):
        removed, marker, shielded, dealt = 0, target.marker, target.shielded, 0
        for cb in batches:
            if removed == target.models:
                break  # a destroyed unit is no longer a target
            hits = failures = 0
            for n, t in zip(cb.n_dice.tolist(), cb.hit_target.tolist(), strict=True):
                s = _successes(rng, n, t)
                hits, failures = hits + s, failures + n - s
            pool = hits + min(cb.precision, failures) + cb.auto_hits
            surge = 0
            if cb.surge is not None:
                surge = cb.surge.bonus + sum(rng.randint(1, cb.surge.sides) for _ in range(cb.surge.n))
            moved = max(0, min(surge + cb.critical, pool) - cb.dodge)
            pool -= moved
            dice = moved + max(0, pool - _successes(rng, pool, cb.armour_target) - cb.tough)
            if cb.evade:
                dice -= _successes(rng, dice, cb.evade_target)
            dealt += dice * cb.damage
            removed, marker, shielded = apply_damage(
                target.hp, removed, marker, shielded, target.shield, dice, cb.damage,
                cb.nonlethal, cb.visible, cb.concentrated,
            )  # fmt: skip
        damage[dealt] += 1
        models[removed] += 1
        marker_h[marker] += 1
        shielded_h[int(shielded)] += 1
    return damage, models, marker_h, shielded_h


@pytest.mark.parametrize("name", ["reference", "zealots", "mixed"])
def test_engine_matches_a_die_by_die_reading_of_the_contract(name):
    batches, target = CHAINS[name]()
    naive = naive_tally_counts(batches, target, 15_000, seed=1)
    mc = simulate(batches, target, 300_000, seed=9)
    for label, ours, theirs in zip(
        HISTOGRAMS, (mc.damage, mc.models_destroyed, mc.marker, mc.shielded), naive, strict=True
    ):
        p = two_sample_p(ours, theirs)
        assert p > 1e-6, f"{name}: {label} G-test p={p:.3g}"


# --- adaptive mode, shapes, edge cases ----------------------------------------------------------------


def _errors(tally):
    n = tally.trials
    k = np.arange(tally.damage.size)
    mean = (k * tally.damage).sum() / n
    var = (k * k * tally.damage).sum() / n - mean**2
    p = tally.models_destroyed[-1] / n
    return np.sqrt(var * n / (n - 1) / n), np.sqrt(p * (1 - p) / n)


def test_adaptive_stops_below_the_tolerance_at_a_doubling():
    batches, target = reference_attack()
    tally = simulate_adaptive(batches, target, tolerance=0.004, seed=4, min_trials=10_000)
    se_damage, se_destroyed = _errors(tally)
    assert se_damage <= 0.004 and se_destroyed <= 0.004
    doublings = np.log2(tally.trials / 10_000)
    assert doublings == int(doublings) and doublings >= 1
    half = simulate(batches, target, tally.trials // 2, seed=4)
    assert max(_errors(half)) > 0.004  # it did not stop late
    assert_same(tally, simulate(batches, target, tally.trials, seed=4))


def test_adaptive_stops_at_max_trials():
    batches, target = reference_attack()
    tally = simulate_adaptive(batches, target, tolerance=1e-6, min_trials=1000, max_trials=5000)
    assert tally.trials == 5000


def test_trials_not_a_multiple_of_the_chunk_size():
    batches, target = reference_attack()
    tally = simulate(batches, target, 12_345, seed=2, chunk_size=1000)
    assert tally.trials == 12_345
    for name in HISTOGRAMS:
        assert getattr(tally, name).sum() == 12_345


def test_histogram_sizes_follow_the_bounds():
    batches, target = zealots_chain()
    tally = simulate(batches, target, 1000)
    assert tally.damage.size == damage_bound(batches) + 1
    assert tally.models_destroyed.size == target.models + 1
    assert tally.marker.size == marker_bound(batches, target) + 1
    assert tally.shielded.size == 2
    assert tally.damage.dtype == np.float64 and not tally.exact


@pytest.mark.parametrize("method", ["count", "die"])
def test_zero_dice(method):
    nothing = Weapon.build("nothing", roa=0, hit=4)
    target = Target.build(3, 2, shield=1)
    for batch in (Batch(nothing, models=5), Batch(Weapon.build("gun", roa=2), models=0)):
        batches, compiled = compile_attack(Attack((batch,), target))
        tally = simulate(batches, compiled, 999, method=method)
        assert tally.damage.tolist()[0] == 999 and tally.damage.sum() == 999
        assert tally.models_destroyed[0] == 999
        assert tally.shielded.tolist() == [0, 999]


def test_every_shot_kills_when_nothing_can_fail():
    gun = Weapon.build("laser", roa=1, hit=2, damage=2, keywords=["HITS 3 (2)"])
    target = Target.build(3, 2, armour=6)
    batches, compiled = compile_attack(Attack((Batch(gun, models=1),), target))
    tally = simulate(batches, compiled, 5000, seed=1)
    # HITS 3 (2): 3 dice straight into the Armour Pool; Armour 6+ saves 1/6 each.
    mean_destroyed = (np.arange(4) * tally.models_destroyed).sum() / 5000
    assert 2.2 < mean_destroyed < 3.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"trials": 0}, "trials"),
        ({"trials": 10, "seed": -1}, "seed"),
        ({"trials": 10, "method": "dice"}, "method"),
        ({"trials": 10, "chunk_size": 0}, "chunk_size"),
    ],
)
def test_bad_arguments_name_the_field(kwargs, field):
    batches, target = reference_attack()
    with pytest.raises(InputError) as err:
        simulate(batches, target, **kwargs)
    assert err.value.field == field


def test_bad_tolerance():
    batches, target = reference_attack()
    with pytest.raises(InputError, match="tolerance"):
        simulate_adaptive(batches, target, tolerance=0)
