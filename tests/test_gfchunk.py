"""Grimdark Future Monte Carlo in blocks of trials (issue 27 point 3): Ctrl-C stops a long run.

A run goes in consecutive blocks ``[first, first + n)`` (:func:`~mathhammer.engine.histograms.super_blocks`);
trial ``t`` draws from the stream of ``(seed, t)`` whatever its block, so the counts equal those of one
kernel call over all the trials, exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mathhammer.engine import budget
from mathhammer.engine.histograms import super_blocks
from mathhammer.grimdark import Attacker, Defender, Hero, Weapon, WeaponGroup, engine, melee_engine
from mathhammer.grimdark.compiled import compile_attack
from mathhammer.grimdark.exact import versatile_choice
from mathhammer.grimdark.melee import Fighter, Melee


def group(models, attacks, *rules, melee=False):
    return WeaponGroup(models, Weapon("w", attacks, melee=melee, rules=rules))


def one_call(first, stop, block, field="trials"):
    """All the trials in one block: the kernel call of a run before blocks."""
    yield first, stop - first


def ragged(first, stop, block, field="trials"):
    """Blocks that cut the kernel's chunks (``engine.CHUNK`` trials) anywhere: 1, 4095, 4097, 777, ..."""
    for size in itertools.cycle((1, engine.CHUNK - 1, engine.CHUNK + 1, 777, 3 * engine.CHUNK)):
        if first >= stop:
            return
        n = min(size, stop - first)
        yield first, n
        first += n


def die_by_die(attack, trials):
    """The tables :func:`engine.count_tables` returns when the trials must roll die by die."""
    return np.zeros(1), np.zeros((max(1, len(attack.groups)), 0, 4), dtype=np.int64)


CASES = {
    "plain": (Attacker((group(10, 2, "AP(1)"),), 4), Defender(10, defense=4)),
    "shred_regen_deadly_tough": (
        Attacker((group(20, 3, "Shred", "Deadly(2)"),), 4),
        Defender(15, defense=4, tough=3, rules=("Regeneration",)),
    ),
    "hero_joined_regen": (
        Attacker((group(12, 2, "AP(1)"), group(4, 1, "Blast(3)", "Deadly(2)")), 4),
        Defender(8, defense=5, tough=1, rules=("Regeneration",), hero=Hero(3, 3, rules=("Regeneration",))),
    ),
    "takedown_then_rifles": (
        Attacker((group(3, 2, "AP(1)"), group(2, 2, "Takedown", "Shred", "Deadly(2)")), 3),
        Defender(3, defense=3, tough=3, rules=("Regeneration",), hero=Hero(2, 5, rules=("Regeneration",))),
    ),
    "sniper_picks_the_hero": (
        Attacker((group(3, 2, "AP(1)", "Blast(2)"), group(2, 2, "Sniper", "Shred")), 4, snipe="hero"),
        Defender(3, defense=4, tough=2, rules=("Regeneration",), hero=Hero(3, 3, rules=("Shielded",))),
    ),
}


def simulate(monkeypatch, blocks, attacker, defender, trials, seed, die=False):
    monkeypatch.setattr(engine, "super_blocks", blocks)
    if die:
        monkeypatch.setattr(engine, "count_tables", die_by_die)
    attack = compile_attack(versatile_choice(attacker, defender), defender)
    try:
        return engine.simulate_compiled(attack, trials, seed)
    finally:
        monkeypatch.undo()


def assert_same(a, b):
    assert a.trials == b.trials and a.hists.keys() == b.hists.keys()
    for k in a.hists:
        assert np.array_equal(a.hists[k], b.hists[k]), k


@pytest.mark.parametrize("die", [False, True], ids=["count", "die"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize(("trials", "seed"), [(1, 3), (20_011, 0), (50_000, 12345)])
def test_blocks_give_the_one_call_counts(monkeypatch, name, die, trials, seed):
    attacker, defender = CASES[name]
    whole = simulate(monkeypatch, one_call, attacker, defender, trials, seed, die)
    assert whole.trials == trials
    assert_same(simulate(monkeypatch, ragged, attacker, defender, trials, seed, die), whole)


@pytest.mark.parametrize("die", [False, True], ids=["count", "die"])
def test_the_parallel_kernel_in_blocks_gives_the_one_call_counts(monkeypatch, die):
    """Past config.SERIAL_MAX random numbers the run uses the parallel kernel: 200 x A10 against 500 models."""
    attacker, defender = Attacker((group(200, 10),), 4), Defender(500, defense=4)
    trials = 600 if die else 1_500_000
    whole = simulate(monkeypatch, one_call, attacker, defender, trials, 7, die)
    assert_same(simulate(monkeypatch, ragged, attacker, defender, trials, 7, die), whole)


def test_a_run_goes_in_timed_blocks(monkeypatch):
    """The real blocks (super_blocks, a small first block): several of them, the same counts."""
    seen: list[tuple[int, int]] = []

    def spy(first, stop, block, field="trials"):
        for first_n in super_blocks(first, stop, block, field):
            seen.append(first_n)
            yield first_n

    attacker, defender = CASES["hero_joined_regen"]
    whole = simulate(monkeypatch, one_call, attacker, defender, 100_000, 5)
    monkeypatch.setattr(budget, "FIRST_BLOCK", 100)
    blocks = simulate(monkeypatch, spy, attacker, defender, 100_000, 5)
    assert len(seen) >= 3 and seen[0] == (0, 100) and sum(n for _, n in seen) == 100_000
    assert_same(blocks, whole)


def test_every_block_of_a_run_uses_one_kernel(monkeypatch):
    """The first block (untimed) loads the kernel of the whole run: a later block's time never holds a compile,
    which would price the run far above its rate."""
    attacker, defender = CASES["plain"]
    attack = compile_attack(attacker, defender)
    engine.simulate_compiled(attack, 2_000_000, 1)  # both kernels compiled before _run_slot is wrapped
    calls: list[str] = []

    def spy(name):
        kernel = getattr(engine, name)

        def call(*args):
            calls.append(name)
            return kernel(*args)

        monkeypatch.setattr(engine, name, call)

    spy("_run_slot")
    spy("_run_block")
    monkeypatch.setattr(budget, "FIRST_BLOCK", 64)
    for trials, kernel in ((1_000, "_run_slot"), (2_000_000, "_run_block")):
        calls.clear()
        assert engine.simulate_compiled(attack, trials, 1).trials == trials
        assert len(calls) > 1 and set(calls) == {kernel}


def test_melee_in_blocks_gives_the_one_call_counts(monkeypatch):
    blades = (group(5, 2, "AP(1)", melee=True),)
    melee = Melee(
        Fighter(blades, 4, Defender(5, defense=4, tough=2)), Fighter((group(6, 1, melee=True),), 5, Defender(6, 5))
    )
    monkeypatch.setattr(melee_engine, "super_blocks", one_call)
    whole = melee_engine.melee_simulate(melee, 30_001, seed=9)
    monkeypatch.setattr(melee_engine, "super_blocks", ragged)
    assert_same(melee_engine.melee_simulate(melee, 30_001, seed=9), whole)
