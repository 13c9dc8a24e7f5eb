"""Grimdark Future Monte Carlo at scale: count sampling (one draw per weapon group) against the exact engine
and against the die-by-die path it replaces for targets of alike models (issue 27, point 5).

The exact engine is the oracle (STYLE.md, point 3); nothing here is timed (benchmarks/bench_gf_scale.py is).
"""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, engine, grimdark_exact, grimdark_simulate
from mathhammer.grimdark.compiled import CompiledGroup, compile_attack

from .stats import assert_agree, assert_same_distribution


def group(models, attacks, *rules, melee=False):
    return WeaponGroup(models, Weapon("w", attacks, melee=melee, rules=rules))


def _die_by_die(attack, trials):
    """The tables :func:`engine.count_tables` returns when the trials must roll die by die."""
    return np.zeros(1), np.zeros((max(1, len(attack.groups)), 0, 4), dtype=np.int64)


def _mean(tally) -> float:
    return float(tally.wounds @ np.arange(tally.wounds.size)) / (tally.trials or 1.0)


def test_large_attack_within_5_se_of_exact():
    """200 models x A10 against 500 models (the issue's case): the mean wounds and P(unit destroyed)
    within 5 standard errors of the exact engine's, and every histogram passes the G-test."""
    attacker, defender = Attacker((group(200, 10),), 4), Defender(500, defense=4)
    attack = compile_attack(attacker, defender)
    assert engine.count_tables(attack, 100_000)[1].shape[1] > 0  # the count path is the one tested
    exact = grimdark_exact(attacker, defender)
    mc = grimdark_simulate(attacker, defender, 100_000, seed=31)
    k = np.arange(exact.wounds.size)
    mean = float(exact.wounds @ k)
    se = np.sqrt(float(exact.wounds @ (k * k)) - mean * mean) / np.sqrt(mc.trials)
    assert abs(_mean(mc) - mean) < 5 * se
    p = float(exact.models_destroyed[-1])
    assert abs(mc.models_destroyed[-1] / mc.trials - p) < 5 * np.sqrt(p * (1 - p) / mc.trials) + 1e-12
    assert_agree(mc, exact, label="200x10 vs 500")


# Each case exercises, on the count path, the rules named in its key.
CASES = {
    # Shred's extra wound, each wound its own Regeneration roll, Deadly's wounds on Tough models
    "shred_regen_deadly_tough": (
        Attacker((group(20, 3, "Shred", "Deadly(2)"),), 4),
        Defender(15, defense=4, tough=3, rules=("Regeneration",)),
    ),
    # a Deadly group leaves a wound count that is not a multiple of the next group's Deadly
    "deadly_then_plain_on_tough": (
        Attacker((group(10, 2, "Deadly(2)", "AP(1)"), group(15, 2)), 4),
        Defender(12, defense=4, tough=3),
    ),
    # Blast's multiplier capped by the models left when each group starts
    "blast_near_the_end": (
        Attacker((group(6, 2, "AP(1)"), group(3, 1, "Blast(3)")), 4),
        Defender(6, defense=5, tough=1),
    ),
    # Rending's six hits, Bane's re-roll and Relentless' extra hits
    "rending_bane_relentless": (
        Attacker((group(30, 2, "Rending", "Bane", "Relentless"),), 4, distance=12),
        Defender(40, defense=3, tough=2, rules=("Regeneration",)),
    ),
    # Surge and Furious: two extra plain hits per six, multiplied by Blast
    "surge_furious_blast": (
        Attacker((group(8, 2, "Surge", "Furious", "Blast(2)", melee=True),), 4, charging=True),
        Defender(10, defense=4, tough=2),
    ),
    # a joined hero: wounded last, hits blocked at the unit's Defense while the unit stands, its own
    # Defense for a group that starts with the hero alone; Regeneration on both
    "hero_joined_regen": (
        Attacker((group(12, 2, "AP(1)"), group(4, 1, "Blast(3)", "Deadly(2)")), 4),
        Defender(8, defense=5, tough=1, rules=("Regeneration",), hero=Hero(3, 3, rules=("Regeneration",))),
    ),
    # Takedown/Sniper groups roll die by die on the model next in line, the other groups count
    "sniper_then_counted": (
        Attacker((group(3, 1, "Sniper", "AP(1)"), group(10, 2, "Shred")), 4),
        Defender(6, defense=4, tough=2, hero=Hero(3, 3)),
    ),
    # a single Tough model: morale by wounds
    "single_monster": (Attacker((group(40, 2, "AP(2)"),), 3), Defender(1, defense=3, tough=12)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_count_path_agrees_with_exact_and_with_die_by_die(name, monkeypatch):
    attacker, defender = CASES[name]
    assert engine.count_tables(compile_attack(attacker, defender), 60_000)[1].shape[1] > 0
    seed = sorted(CASES).index(name) + 500
    counted = grimdark_simulate(attacker, defender, 60_000, seed=seed)
    assert_agree(counted, grimdark_exact(attacker, defender), label=name)
    monkeypatch.setattr(engine, "count_tables", _die_by_die)
    rolled = grimdark_simulate(attacker, defender, 60_000, seed=seed + 1000)
    assert_same_distribution(counted, rolled, label=name)


def test_die_events_by_hand():
    """One die, Quality 4+, Defense 4+, Shred, Regeneration (5+): a hit on 4-6 (1/2); the Defense die
    fails on 2-3 (1/3: one wound) or a natural 1 (1/6: two wounds); each wound ignored on 5+ (1/3)."""
    g = CompiledGroup("w", 1, 0b1110000, shred=1)
    kept = 2 / 3
    one = 1 / 3 * kept + 1 / 6 * 2 * kept * (1 - kept)
    two = 1 / 6 * kept * kept
    want = [1 - 0.5 * (one + two), 0.5 * one, 0.5 * two]
    assert engine.die_events(g, 4, 5, 1) == pytest.approx(want, abs=1e-15)
    # Blast(2): a hit is two hits; Relentless: a six adds 2 more (b x extra)
    plain = engine.die_events(CompiledGroup("w", 1, 0b1110000), 4, 0, 2)
    assert plain == pytest.approx([0.5 + 0.5 * 0.25, 0.5 * 0.5, 0.5 * 0.25])
    fatigued = CompiledGroup("w", 1, 0b1000000, extra=1, ap_normal=5, ap_six=5)  # hits on 6s only
    six = engine.die_events(fatigued, 2, 0, 2)
    assert six.size == 5 and six[4] == pytest.approx(1 / 6 * (5 / 6) ** 4)  # only a natural 6 saves


def test_power_caps_the_tail_at_the_cap():
    pmf = np.array([0.5, 0.3, 0.2])
    full = np.ones(1)
    for _ in range(7):
        full = np.convolve(full, pmf)
    capped = engine._power(pmf, 7, 5)
    assert capped.size == 6
    assert capped[:5] == pytest.approx(full[:5], abs=1e-15)
    assert capped[5] == pytest.approx(full[5:].sum(), abs=1e-15)
    assert engine._power(pmf, 7, 100) == pytest.approx(full, abs=1e-15)


def test_die_by_die_where_regeneration_changes_or_the_tables_cost_more_than_the_dice():
    plain = Attacker((group(5, 2),), 4)
    # Regeneration "when all models have this rule": none while the unit stands, the hero's own after
    hero = Defender(4, defense=4, hero=Hero(3, 3, rules=("Regeneration",)))
    assert engine.count_tables(compile_attack(plain, hero), 100_000)[1].shape[1] == 0
    rending = Attacker((group(5, 2, "Rending"),), 4)  # ignores Regeneration: counted
    assert engine.count_tables(compile_attack(rending, hero), 100_000)[1].shape[1] > 0
    only_sniper = Attacker((group(2, 1, "Sniper"),), 4)
    assert engine.count_tables(compile_attack(only_sniper, Defender(5, defense=4)), 100_000)[1].shape[1] == 0
    # 400 models of Tough(10): a table of 4,001 entries costs more than 10 trials of 4,000 dice
    big = compile_attack(Attacker((group(400, 10),), 4), Defender(400, defense=4, tough=10))
    assert engine.count_tables(big, 10)[1].shape[1] == 0


@pytest.mark.parametrize("counted", [True, False])
def test_parallel_and_single_thread_kernels_count_the_same(counted, monkeypatch):
    """Small runs go to the single-thread kernel (SERIAL_MAX): the parallel one gives the same tally."""
    attacker, defender = CASES["hero_joined_regen"]
    if not counted:
        monkeypatch.setattr(engine, "count_tables", _die_by_die)
    serial = grimdark_simulate(attacker, defender, 30_001, seed=9)
    monkeypatch.setattr(engine, "SERIAL_MAX", 0)
    parallel = grimdark_simulate(attacker, defender, 30_001, seed=9)
    for name in serial.hists:
        assert np.array_equal(getattr(serial, name), getattr(parallel, name)), name
