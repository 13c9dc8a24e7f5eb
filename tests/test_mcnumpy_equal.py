"""The numpy Monte Carlo engine (:mod:`mathhammer.starcraft.mcnumpy`) gives the numba kernel's counts, bit for bit.

Each case runs one chain twice with one seed: through the numba kernel (asked by name: ``extend(parallel=False)``)
and through the numpy engine (chosen by the typed layer's rule, told numba is not loaded), and compares every
histogram of the Tally. Then the choice rule itself: numpy for an ordinary attack in a fresh process, numba when
numba is loaded, for what numpy does not cover, and past the work budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer import config
from mathhammer.starcraft import mcnumpy
from mathhammer.starcraft import montecarlo as mc
from mathhammer.starcraft.compiled import CompiledTarget, compile_attack
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
from tests.chains import compiled_batches

ROOT = Path(__file__).resolve().parents[1]


def numba_tally(batches, target, trials, seed, chunk=4096):
    run = mc.Run(mc.pack(batches, target), seed, "count", chunk, planned=trials)
    run.extend(trials, parallel=False)
    return run


@pytest.fixture
def numpy_first(monkeypatch):
    """The typed layer's rule as in a fresh process: numba not loaded, the work budget not spent."""
    monkeypatch.setattr(mc, "numba_loaded", lambda: False)
    monkeypatch.setattr(mc, "_numpy_work", [0])
    monkeypatch.setattr(config, "NUMPY_WORK_MAX", 10**15)


def numpy_tally(batches, target, trials, seed, chunk=4096):
    run = mc.Run(mc.pack(batches, target), seed, "count", chunk, planned=trials)
    assert run.engine(trials) == "numpy"
    run.extend(trials)
    return run


def assert_same(a: mc.Run, b: mc.Run) -> None:
    assert a.trials == b.trials
    ta, tb = a.tally(), b.tally()
    for name in mc.HISTOGRAMS:
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)


def chain(*batches, target):
    return compile_attack(Attack(tuple(batches), target))


def reference():
    """Surge (D3), PRECISION, CRITICAL HIT, Shield, TOUGH, Evade."""
    w = Weapon.build("ref", roa=1, hit=4, damage=2, surge="Light:D3", keywords=["PRECISION (1)", "CRITICAL HIT (1)"])
    t = Target.build(5, 2, shield=2, armour=4, evade=5, tags="Light", keywords=["TOUGH (1)"], evade_eligible=True)
    return chain(Batch(w, models=10), target=t)


def zealots():
    """Two Batches: NON-LETHAL, a fixed Surge, CONCENTRATED FIRE, CRITICAL HIT (2), DODGE, Shield."""
    rifle = Weapon.build("rifle", roa=2, hit=3, damage=1, surge="Light:3", keywords=["NON-LETHAL DAMAGE (1)"])
    cannon = Weapon.build("cannon", roa=1, hit=4, damage=3, keywords=["CONCENTRATED FIRE (1)", "CRITICAL HIT (2)"])
    t = Target.build(4, 4, shield=3, armour=3, evade=6, tags="Light", keywords=["DODGE (1)"])
    return chain(Batch(rifle, models=5), Batch(cannon, models=3), target=t)


def mixed():
    """HITS and IMPACT (auto hits), two Hit groups (LONG RANGE), a 2D3+1 Surge, Evade, a Visible cap."""
    claws = Weapon.build(
        "claws", roa=2, hit=3, damage=1, range=6, surge="Armoured:2D3+1",
        keywords=["HITS 2 (2)", "IMPACT (1) 4+", "LONG RANGE (12)", "PRECISION (2)"],
    )  # fmt: skip
    t = Target.build(6, 3, armour=4, evade=4, tags="Armoured", evade_eligible=True, visible=4)
    return chain(Batch(claws, models=4, distances=(3.0, 3.0, 8.0, 10.0)), target=t)


def destroyed_mid_chain():
    """Three Batches against two models: the target is often destroyed by the first, so later ones draw nothing."""
    gun = Weapon.build("gun", roa=3, hit=3, damage=2)
    pistol = Weapon.build("pistol", roa=1, hit=4, damage=1, surge="Light:D3")
    t = Target.build(2, 2, armour=5, tags="Light")
    return chain(Batch(gun, models=3), Batch(pistol, models=2), Batch(gun, models=1), target=t)


def visible_then_all():
    """A Batch that sees one model of five, then one that sees them all: the first is skipped once it has removed
    the one it sees (8.7.3 step 1)."""
    gun = Weapon.build("gun", roa=2, hit=3, damage=2)
    first, rest = compile_attack(Attack((Batch(gun, models=4),), Target.build(5, 1, armour=5)))
    second, _ = compile_attack(Attack((Batch(gun, models=2),), Target.build(5, 1, armour=5)))
    return (replace(first[0], visible=1), replace(first[0], visible=1), second[0]), rest


def big_pool():
    """A pool above the binomial table's largest (drawn in pieces), against a small unit."""
    gun = Weapon.build("gatling", roa=30, hit=2, damage=1)
    return chain(Batch(gun, models=10), target=Target.build(2, 1, armour=5))


def reduce_floor():
    """A Total Damage reduction with a floor (a Reaction; the kernel takes it by its casualty function, numpy by a
    second table used until the first Batch dealing Damage)."""
    batches, target = zealots()
    return batches, replace(target, reduce=2, floor=1)


def reduce_after_a_miss():
    """The reduction is used by the first Batch that deals Damage: often the second, when the first misses."""
    pistol = Weapon.build("pistol", roa=1, hit=5, damage=1)
    gun = Weapon.build("gun", roa=2, hit=3, damage=3, keywords=["NON-LETHAL DAMAGE (1)"])
    batches, target = chain(Batch(pistol, models=1), Batch(gun, models=2), target=Target.build(3, 3, armour=5))
    return batches, replace(target, reduce=1)


CASES = {
    "reference": reference,
    "zealots": zealots,
    "mixed": mixed,
    "destroyed-mid-chain": destroyed_mid_chain,
    "visible-then-all": visible_then_all,
    "big-pool": big_pool,
    "reduce-floor": reduce_floor,
    "reduce-first-batch-misses": reduce_after_a_miss,
}


@pytest.mark.parametrize("name", CASES)
def test_numpy_gives_the_numba_kernels_tally(name, numpy_first):
    batches, target = CASES[name]()
    a = numba_tally(batches, target, 20_011, seed=7)
    assert a.numpy_covers
    b = numpy_tally(batches, target, 20_011, seed=7)
    assert_same(a, b)
    assert b.tally().damage.sum() == 20_011


def test_the_cases_exercise_what_they_name(numpy_first):
    """The destroyed target stops the chain and the Visible cap skips a Batch in some trials, not all."""
    batches, target = destroyed_mid_chain()
    assert 0 < numpy_tally(batches, target, 2000, seed=1).tally().models_destroyed[-1] < 2000
    batches, target = big_pool()
    assert mc.pack(batches, target).binom_alias.shape[1] - 1 < batches[0].max_pool


@pytest.mark.parametrize(("block", "trials"), [(1, 301), (7, 3001), (1000, 3001)])
def test_blocks_that_do_not_divide_the_trials_change_no_count(block, trials, monkeypatch, numpy_first):
    batches, target = zealots()
    a = numba_tally(batches, target, trials, seed=3)
    monkeypatch.setattr(mcnumpy, "BLOCK", block)
    assert_same(a, numpy_tally(batches, target, trials, seed=3))


def test_runs_in_steps_and_a_switch_to_numba_mid_run_change_no_count(monkeypatch, numpy_first):
    """extend() in steps, numpy first then numba past the work budget (the parallel driver's rows): one Tally."""
    batches, target = reference()
    a = numba_tally(batches, target, 30_000, seed=2)
    run = mc.Run(mc.pack(batches, target), 2, "count", 4096, planned=30_000)
    run.extend(1234)
    monkeypatch.setattr(config, "NUMPY_WORK_MAX", mc._numpy_work[0] + 5000 * run.draws)
    assert run.engine(5000) == "numpy" and run.engine(5001) == "numba"
    run.extend(6234)
    monkeypatch.setattr(config, "SERIAL_MAX", 0)
    assert run.engine(23_766) == "numba-parallel"
    run.extend(30_000)
    assert_same(a, run)


def test_adaptive_tolerance_stops_at_the_same_count_with_the_same_tally(monkeypatch):
    batches, target = zealots()
    a = mc.simulate_adaptive(batches, target, 0.02, seed=4, min_trials=2000)  # numba is loaded in this process
    import mathhammer.starcraft.kernels  # noqa: F401  (the line above ran numba)

    monkeypatch.setattr(mc, "numba_loaded", lambda: False)
    monkeypatch.setattr(mc, "_numpy_work", [0])
    monkeypatch.setattr(config, "NUMPY_WORK_MAX", 10**15)
    spy: list[int] = []
    real = mcnumpy.run_block
    monkeypatch.setattr(mcnumpy, "run_block", lambda *args, **kw: spy.append(args[3]) or real(*args, **kw))
    b = mc.simulate_adaptive(batches, target, 0.02, seed=4, min_trials=2000)
    assert sum(spy) == b.trials > 2000  # every trial by numpy, past the first check
    assert a.trials == b.trials
    for name in mc.HISTOGRAMS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


# --- random chains ------------------------------------------------------------------------------------------


@st.composite
def targets(draw) -> CompiledTarget:
    hp = np.array(draw(st.lists(st.integers(1, 4), min_size=1, max_size=5)), dtype=np.int64)
    shield = draw(st.integers(0, 3))
    hp[0] += shield
    marker = draw(st.integers(0, 3))
    reduce, floor = draw(st.sampled_from([(0, 0), (0, 0), (1, 0), (2, 1)]))
    shielded = shield > 0 and marker <= shield
    return CompiledTarget(hp=hp, shield=shield, marker=marker, shielded=shielded, reduce=reduce, floor=floor)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(compiled_batches(min_groups=0, max_dice=6, casualties=True), min_size=1, max_size=3),
    targets(),
    st.integers(0, 2**64 - 1),
)
def test_random_chains_give_the_numba_kernels_tally(chain_, target, seed):
    a = numba_tally(chain_, target, 1500, seed)
    if not a.numpy_covers:  # a table too large for so few trials: numba's path alone
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mc, "numba_loaded", lambda: False)
        mp.setattr(mc, "_numpy_work", [0])
        mp.setattr(config, "NUMPY_WORK_MAX", 10**15)
        assert_same(a, numpy_tally(chain_, target, 1500, seed))


# --- the choice -------------------------------------------------------------------------------------------


def test_numpy_covers_only_the_count_method_with_the_table(numpy_first):
    batches, target = reference()
    assert mc.Run(mc.pack(batches, target), 0, "count", 64, planned=1000).engine(1000) == "numpy"
    assert mc.Run(mc.pack(batches, target), 0, "die", 64, planned=1000).engine(1000) == "numba"
    reduced = replace(target, reduce=1, floor=1)  # a Total Damage reduction: numpy's second table
    assert mc.Run(mc.pack(batches, reduced), 0, "count", 64, planned=1000).engine(1000) == "numpy"
    big = chain(Batch(Weapon.build(roa=30, hit=2), models=10), target=Target.build(40, 3))  # a table too large
    assert mc.Run(mc.pack(*big), 0, "count", 64, planned=1000).engine(1000) == "numba"


def test_numba_once_loaded_and_a_driver_asked_by_name(monkeypatch):
    batches, target = reference()
    run = mc.Run(mc.pack(batches, target), 0, "count", 64, planned=1000)
    monkeypatch.setattr(mc, "numba_loaded", lambda: True)
    assert run.engine(1000) == "numba"
    monkeypatch.setattr(mc, "numba_loaded", lambda: False)
    assert run.engine(1000, parallel=False) == "numba" and run.engine(1000, parallel=True) == "numba-parallel"


def test_the_work_budget_is_about_numbas_start(monkeypatch):
    """The ADHOC query (10 dice, 1 Batch) of 100,000 trials is numpy's, a hundred times that numba's; so is a
    run that would take the process's numpy work past the budget."""
    monkeypatch.setattr(mc, "numba_loaded", lambda: False)
    monkeypatch.setattr(mc, "_numpy_work", [0])
    batches, target = chain(Batch(Weapon.build(roa=1, hit=4, damage=2), models=10), target=Target.build(5, 2))
    run = mc.Run(mc.pack(batches, target), 0, "count", 64, planned=100_000)
    assert run.engine(100_000) == "numpy" and run.engine(10_000_000) == "numba-parallel"
    mc._numpy_work[0] = config.NUMPY_WORK_MAX - 99_999 * run.draws
    assert run.engine(100_000) == "numba"


ADHOC = [
    "attack", "--models", "10", "--roa", "1", "--hit", "4", "--damage", "2", "--target-models", "5",
    "--target-hp", "2", "--target-armour", "4", "--json", "--trials", "100000",
]  # fmt: skip

DRIVER = """
import json, runpy, sys
preload = sys.argv[1]
if preload:
    __import__(preload)
from mathhammer.starcraft import montecarlo as mc
engines = []
real = mc.Run.extend
def extend(self, stop, parallel=None):
    engines.append(self.engine(stop - self.trials, parallel))
    return real(self, stop, parallel)
mc.Run.extend = extend
sys.argv = ["mathhammer", *sys.argv[2:]]
try:
    runpy.run_module("mathhammer", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps({"engines": engines, "numba": "numba" in sys.modules}), file=sys.stderr)
"""


def _run(preload: str, args: list[str]) -> tuple[dict, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, preload, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def test_a_numpy_run_announces_no_compile(tmp_path: Path):
    """From an empty numba cache, every compile announced: the numpy engine compiles nothing, so no notice."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "MATHHAMMER_COMPILE_NOTICE": "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "mathhammer", *ADHOC], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout)["trials"] == 100_000


def test_a_fresh_process_runs_the_adhoc_query_on_numpy_without_numba_and_prints_the_same():
    """In a fresh process the ADHOC query runs on numpy and never loads numba; with numba loaded first it
    runs on the numba kernel; the JSON is the same."""
    fresh, out_numpy = _run("", ADHOC)
    assert fresh == {"engines": ["numpy"], "numba": False}
    loaded, out_numba = _run("numba", ADHOC)
    assert loaded == {"engines": ["numba"], "numba": True}
    assert json.loads(out_numpy) == json.loads(out_numba)
