"""Monte Carlo (both sampling methods) and the die-by-die reference against the exact engine.

Every histogram (damage, models destroyed, Damage Marker, SHIELDED) must pass
a G-test at p > 1e-6 and the means of damage and models destroyed must lie
within 5 standard errors of the exact means. Seeds are fixed, so a failure is
reproducible; with ~100 comparisons at p > 1e-6 a false alarm is ~1e-4.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mathhammer.outcome import Tally
from mathhammer.starcraft.compiled import compile_attack
from mathhammer.starcraft.exact import exact_tally
from mathhammer.starcraft.keywords import parse_keyword
from mathhammer.starcraft.model import Attack, Batch, ModelGroup, Target, Weapon
from mathhammer.starcraft.montecarlo import simulate
from tests.naive import naive_tally
from tests.stats import assert_agree, assert_same_distribution, g_test

MC_TRIALS = 200_000
NAIVE_TRIALS = 20_000

# --------------------------------------------------------------------------- named cases

RIFLE = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=1, range=12, surge="Light:D3")
GRENADE = Weapon.build("Frag Grenade", roa=0, keywords=["HITS 3 (1)"])
ROCKET = Weapon.build(
    "Rocket", roa=1, hit=4, damage=2, range=18, surge="Armoured:D3+1", keywords=["PIERCE Armoured (4)"]
)
SPINES = Weapon.build(
    "Needle Spines", roa=2, hit=4, damage=1, range=10, surge="Light,Biological:D3", keywords=["PRECISION (1)"]
)
ZERGLINGS = Target.build(8, 1, armour=6, evade=5, tags="Biological,Light,Ground", name="Zerglings")
ZEALOTS = Target.build(3, 4, armour=4, evade=6, shield=3, tags="Biological,Light,Ground", name="Zealots")
MARINES = Target.build(6, 2, armour=5, evade=5, tags="Biological,Light,Ground", name="Marines")
STALKERS = Target.build(
    2, 5, armour=3, evade=5, shield=2, tags="Mechanical,Armoured,Ground", keywords=["DODGE (1)"], name="Stalkers"
)
SQUAD = (ModelGroup(1, 4, "sergeant"), ModelGroup(4, 1, "trooper"))


def w(name: str = "w", **kw: object) -> Weapon:
    return Weapon.build(name, **kw)  # type: ignore[arg-type]


CASES: dict[str, Attack] = {
    "marines_vs_zerglings": Attack((Batch(RIFLE, models=6),), ZERGLINGS),
    "precision_surge_armoured": Attack(
        (Batch(w(roa=3, hit=4, damage=2, surge="Armoured:D3+1", keywords=["PRECISION (2)"]), models=2),),
        Target.build(3, 3, armour=3, tags="Armoured"),
    ),
    "critical_hit_vs_dodge": Attack(
        (Batch(w(roa=3, hit=3, surge="Light:D6", keywords=["CRITICAL HIT (2)"]), models=3),),
        Target.build(6, 2, armour=3, tags="Light", keywords=["DODGE (2)"]),
    ),
    "tough": Attack((Batch(w(roa=4, hit=3), models=3),), Target.build(4, 3, armour=4, keywords=["TOUGH (2)"])),
    "evade_eligible_anti_evade": Attack(
        (Batch(w(roa=2, hit=3, surge="Light:D3", keywords=["ANTI-EVADE (1)"]), models=4),),
        Target.build(6, 1, armour=5, evade=4, tags="Light", evade_eligible=True),
    ),
    "hidden_evade": Attack((Batch(RIFLE, models=5),), Target.build(5, 1, armour=5, evade=3, keywords=["HIDDEN"])),
    "burrowed_anti_evade_clamp": Attack(
        (Batch(w(roa=2, hit=4, keywords=["ANTI-EVADE (4)"]), models=4),),
        Target.build(4, 2, armour=6, evade=3, keywords=["BURROWED"]),
    ),
    "pierce_armoured": Attack((Batch(ROCKET, models=3),), STALKERS),
    "hits_and_weapon": Attack(
        (Batch(w(roa=1, hit=4, damage=2, keywords=["HITS 3 (1)"]), models=2),), Target.build(5, 2, armour=5)
    ),
    "impact_charge": Attack(
        (Batch(w("Claws", roa=2, hit=3, damage=1, keywords=["IMPACT (2) 4+"]), models=4),),
        Target.build(6, 2, armour=5, evade=5),
    ),
    "non_lethal_then_rifle": Attack(
        (Batch(w("Stun", roa=1, hit=4, keywords=["NON-LETHAL DAMAGE (2)"]), models=2), Batch(RIFLE, models=3)),
        MARINES,
    ),
    "concentrated_fire": Attack(
        (Batch(w(roa=2, hit=3, damage=3, keywords=["CONCENTRATED FIRE (1)"]), models=3),), Target.build(5, 1, armour=5)
    ),
    "target_visible_2": Attack((Batch(RIFLE, models=6),), Target.build(6, 1, armour=6, tags="Light", visible=2)),
    "batch_visible_1": Attack((Batch(w(roa=3, hit=3, damage=2), models=3, visible=1),), Target.build(4, 2, armour=5)),
    "zealots_shield": Attack((Batch(w(roa=2, hit=3, damage=2), models=4),), ZEALOTS),
    "shield_with_marker": Attack((Batch(w(roa=2, hit=4), models=3),), Target.build(3, 2, armour=4, shield=2, marker=2)),
    "heterogeneous_listed": Attack((Batch(w(roa=3, hit=3), models=3),), Target.build(groups=SQUAD, armour=5)),
    "heterogeneous_fewest_first_shield": Attack(
        (Batch(w(roa=3, hit=3, damage=2), models=3),),
        Target.build(groups=SQUAD, armour=5, shield=2, removal_order="fewest-hp-first"),
    ),
    "long_range_burst_fire": Attack(
        (
            Batch(
                w(roa=1, hit=4, range=12, keywords=['LONG RANGE (24")', 'BURST FIRE 6" (1)']),
                models=5,
                distances=(3.0, 8.0, 16.0, 20.0, 30.0),
            ),
        ),
        Target.build(6, 1, armour=5),
    ),
    "locked_in_buff_debuff": Attack(
        (Batch(w(roa=1, hit=4, keywords=["LOCKED IN (1)", "BUFF RoA (1)", "DEBUFF Hit (1)"]), models=3),),
        Target.build(4, 2, armour=4, stationary=True, keywords=["BUFF Armour (1)", "DEBUFF Evade (1)"]),
    ),
    "chain_rifle_grenade_vs_zealots": Attack((Batch(RIFLE, models=4), Batch(GRENADE, models=1)), ZEALOTS),
    "chain_three_weapons": Attack(
        (
            Batch(RIFLE, models=3),
            Batch(w("Launcher", roa=1, hit=4, damage=3, keywords=["PIERCE Light (2)", "CONCENTRATED FIRE (1)"])),
            Batch(w("Pistol", roa=1, hit=4, keywords=["NON-LETHAL DAMAGE (1)", "CRITICAL HIT (1)"]), models=2),
        ),
        Target.build(groups=SQUAD, armour=5, shield=1, tags="Light", visible=3),
    ),
    "chain_spines_vs_stalkers_evade": Attack(
        (Batch(SPINES, models=4), Batch(ROCKET, models=2, evade=True)),
        STALKERS,
    ),
    "surge_2d3_plus_1": Attack(
        (Batch(w(roa=3, hit=4, surge="Mechanical,Psionic:2D3+1"), models=3),),
        Target.build(3, 3, armour=3, tags="Psionic"),
    ),
    "chain_overkill_destroyed_unit": Attack(
        (Batch(RIFLE, models=6), Batch(GRENADE, models=1), Batch(w(roa=2, hit=4, damage=2), models=2)),
        Target.build(2, 1, armour=6, tags="Light"),
    ),
    "chain_batch_visible": Attack(
        (Batch(w(roa=2, hit=3), models=2, visible=2), Batch(w(roa=2, hit=3), models=2, visible=3)),
        Target.build(5, 1, armour=5),
    ),
    "big_pool": Attack((Batch(w(roa=3, hit=4), models=10),), Target.build(10, 2, armour=4, evade=6)),
    # 8.7.4 step 5 "Apply any Special Skills that reduce the Total Damage": a Reaction (Transfusion: 2), used
    # once, at the first Batch that deals Damage
    "chain_damage_reduction_once": Attack(
        (
            Batch(w(roa=1, hit=3, damage=2), models=2),
            Batch(w(roa=2, hit=4), models=3),
            Batch(w(roa=1, hit=4, damage=3), models=1),
        ),
        Target.build(5, 2, armour=5, tags="Biological", damage_reduction=2),
    ),
    # Dae'Uhl: by 2, "to a minimum of 1", with a Damage Marker and a Shield
    "guardian_shield_fewer_dice": Attack(
        (
            Batch(
                w(roa=2, hit=3, range=12, keywords=['LONG RANGE (18")']), models=3, distances=(5.0, 15.0, 15.0), fewer=3
            ),
            Batch(RIFLE, models=2, fewer=1),
        ),
        Target.build(4, 1, armour=5),
    ),
    "chain_damage_reduction_floor": Attack(
        (Batch(w(roa=2, hit=4, damage=2, keywords=["NON-LETHAL DAMAGE (1)"]), models=2), Batch(GRENADE, models=1)),
        Target.build(3, 4, armour=4, shield=3, marker=1, damage_reduction=2, reduction_floor=1),
    ),
}

NAIVE_SUBSET = (
    "marines_vs_zerglings",
    "critical_hit_vs_dodge",
    "hits_and_weapon",
    "impact_charge",
    "non_lethal_then_rifle",
    "concentrated_fire",
    "heterogeneous_fewest_first_shield",
    "long_range_burst_fire",
    "chain_rifle_grenade_vs_zealots",
    "chain_spines_vs_stalkers_evade",
    "chain_three_weapons",
    "chain_overkill_destroyed_unit",
    "chain_batch_visible",
    "chain_damage_reduction_once",
    "chain_damage_reduction_floor",
    "guardian_shield_fewer_dice",
)


def exact(attack: Attack) -> Tally:
    return exact_tally(*compile_attack(attack))


def test_named_cases_cover_every_keyword() -> None:
    """The list above uses every weapon keyword that changes numbers, and every target keyword."""
    used = set()
    for attack in CASES.values():
        for b in attack.batches:
            used |= {k.name for k in b.weapon.keywords}
        used |= {k.name for k in attack.target.keywords}
    wanted = {
        "PRECISION", "CRITICAL HIT", "ANTI-EVADE", "CONCENTRATED FIRE", "NON-LETHAL DAMAGE", "LOCKED IN",
        "LONG RANGE", "BURST FIRE", "PIERCE", "HITS", "IMPACT", "TOUGH", "DODGE", "HIDDEN", "BURROWED",
        "BUFF", "DEBUFF",
    }  # fmt: skip
    assert wanted <= used, wanted - used
    assert len(CASES) >= 20


@pytest.mark.parametrize("method", ["count", "die"])
@pytest.mark.parametrize("name", list(CASES))
def test_monte_carlo_agrees_with_exact(name: str, method: str) -> None:
    batches, target = compile_attack(CASES[name])
    seed = 1000 + list(CASES).index(name) * 2 + (method == "die")
    mc = simulate(batches, target, MC_TRIALS, seed=seed, method=method)
    assert mc.trials == MC_TRIALS
    assert_agree(mc, exact_tally(batches, target), label=f"{name} ({method})")


@pytest.mark.parametrize("name", NAIVE_SUBSET)
def test_naive_agrees_with_exact_and_monte_carlo(name: str) -> None:
    """The per-die reference against the exact engine (G-test, means within 5 SE) and against the Monte Carlo
    engine directly, both sampling methods (two-sample G-test): one naive sample serves all three checks (the
    naive tally, pure Python, is most of the time)."""
    naive = naive_tally(CASES[name], NAIVE_TRIALS, 77 + NAIVE_SUBSET.index(name))
    assert_agree(naive, exact(CASES[name]), label=f"{name} (naive)")
    batches, target = compile_attack(CASES[name])
    for method in ("count", "die"):
        mc = simulate(batches, target, MC_TRIALS, seed=500 + NAIVE_SUBSET.index(name), method=method)
        assert_same_distribution(naive, mc, label=f"{name} (naive vs {method})")


def test_two_sample_test_detects_a_difference() -> None:
    """The two-sample check is not vacuous: a shifted sample fails it."""
    same = {"models_destroyed": np.array([500.0, 500]), "marker": np.array([1000.0]), "shielded": np.array([1000.0, 0])}
    a = Tally(1000, damage=np.array([500.0, 500]), **same)
    b = Tally(1000, damage=np.array([650.0, 350]), **same)
    with pytest.raises(AssertionError, match="damage"):
        assert_same_distribution(a, b)
    assert_same_distribution(a, a)


@pytest.mark.parametrize("name", list(CASES))
def test_exact_pmfs_sum_to_one(name: str) -> None:
    t = exact(CASES[name])
    for hist in (t.damage, t.models_destroyed, t.marker, t.shielded):
        assert abs(hist.sum() - 1.0) < 1e-12
        assert hist.min() >= 0.0


def test_stats_helpers_detect_a_wrong_distribution() -> None:
    """The G-test accepts a sample of the right distribution and rejects a slightly wrong one."""
    rng = np.random.default_rng(3)
    probs = np.array([0.1, 0.2, 0.3, 0.25, 0.15, 0.0])
    counts = np.bincount(rng.choice(6, size=100_000, p=probs), minlength=6).astype(float)
    assert g_test(counts, probs) > 1e-3
    assert g_test(counts, [0.11, 0.19, 0.3, 0.25, 0.15, 0.0]) < 1e-6
    assert g_test([*counts[:-1], 1.0], probs) == 0.0  # an impossible outcome observed
    assert g_test([10.0, 0.0], [1.0, 0.0]) == 1.0


# --------------------------------------------------------------------------- exact-engine properties


def mean(hist: np.ndarray) -> float:
    return float((np.arange(hist.size) * hist).sum())


@pytest.mark.parametrize(
    "extra",
    [(), ("PRECISION (1)",), ("CRITICAL HIT (1)",), ('LONG RANGE (24")',), ("PIERCE Light (2)",)],
)
def test_buff_hit_1_at_4_equals_hit_3(extra: tuple[str, ...]) -> None:
    """Part 11 BUFF [Hit] (X): a Target Number characteristic is reduced by X: BUFF Hit (1) at 4+ is 3+."""
    target = Target.build(5, 2, armour=4, evade=4, shield=1, tags="Light", evade_eligible=True)
    buffed = w(roa=2, hit=4, range=12, surge="Light:D3", keywords=["BUFF Hit (1)", *extra])
    plain = w(roa=2, hit=3, range=12, surge="Light:D3", keywords=list(extra))
    a = exact(Attack((Batch(buffed, models=3, distances=(4.0, 10.0, 20.0)),), target))
    b = exact(Attack((Batch(plain, models=3, distances=(4.0, 10.0, 20.0)),), target))
    for name in ("damage", "models_destroyed", "marker", "shielded"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


# --------------------------------------------------------------------------- random attacks

TAGS = ("Light", "Armoured", "Biological")
WEAPON_KEYWORDS = (
    st.sampled_from(["PRECISION (1)", "PRECISION (2)"]),
    st.sampled_from(["CRITICAL HIT (1)", "CRITICAL HIT (2)"]),
    st.sampled_from(["ANTI-EVADE (1)", "ANTI-EVADE (3)"]),
    st.sampled_from(["CONCENTRATED FIRE (1)", "CONCENTRATED FIRE (2)"]),
    st.sampled_from(["NON-LETHAL DAMAGE (1)", "NON-LETHAL DAMAGE (2)"]),
    st.just("LOCKED IN (1)"),
    st.just('LONG RANGE (18")'),
    st.just('BURST FIRE 6" (1)'),
    st.sampled_from(["PIERCE Armoured (3)", "PIERCE Light (2)"]),
    st.sampled_from(["HITS 1 (2)", "HITS 2 (1)"]),
    st.sampled_from(["IMPACT (1) 4+", "IMPACT (1) 3+"]),
    st.sampled_from(["BUFF Hit (1)", "DEBUFF Hit (1)", "BUFF RoA (1)", "DEBUFF RoA (1)"]),
    st.sampled_from(["BUFF Damage (1)", "DEBUFF Damage (1)"]),
)
TARGET_KEYWORDS = (
    st.sampled_from(["TOUGH (1)", "TOUGH (2)"]),
    st.sampled_from(["DODGE (1)", "DODGE (2)"]),
    st.sampled_from(["HIDDEN", "BURROWED"]),
    st.sampled_from(["BUFF Armour (1)", "DEBUFF Armour (1)"]),
    st.sampled_from(["BUFF Evade (1)", "DEBUFF Evade (2)"]),
)


@st.composite
def keyword_sets(draw: st.DrawFn, pool: tuple[st.SearchStrategy[str], ...], max_size: int) -> list[str]:
    chosen = draw(st.lists(st.integers(0, len(pool) - 1), max_size=max_size, unique=True))
    return [draw(pool[i]) for i in chosen]


@st.composite
def batches(draw: st.DrawFn) -> Batch:
    surge = None
    if draw(st.booleans()):
        types = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=2, unique=True))
        surge = ",".join(types) + ":" + draw(st.sampled_from(["D3", "D3+1", "D6", "2D3+1", "2"]))
    has_range = draw(st.booleans())
    weapon = Weapon.build(
        roa=draw(st.integers(0, 3)),
        hit=draw(st.integers(2, 6)),
        damage=draw(st.integers(1, 3)),
        range=12 if has_range else None,
        surge=surge,
        keywords=draw(keyword_sets(WEAPON_KEYWORDS, 4)),
    )
    models = draw(st.integers(1, 3))
    distances = None
    if has_range and draw(st.booleans()):
        distances = tuple(draw(st.lists(st.sampled_from([3.0, 10.0, 15.0, 25.0]), min_size=models, max_size=models)))
    return Batch(
        weapon,
        models=models,
        distances=distances,
        visible=draw(st.none() | st.integers(1, 3)),
        evade=draw(st.sampled_from([None, None, True, False])),
        fewer=draw(st.sampled_from([0, 0, 0, 1, 2])),
        fewer_by=draw(st.sampled_from(["defender", "attacker"])),
    )


@st.composite
def targets(draw: st.DrawFn) -> Target:
    sizes = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=2))
    groups = [ModelGroup(n, hp) for n, hp in sizes]
    assume(sum(g.count for g in groups) <= 6)
    shield = draw(st.sampled_from([0, 0, 1, 3]))
    return Target.build(
        groups=groups,
        armour=draw(st.integers(2, 6)),
        evade=draw(st.integers(2, 6)),
        shield=shield,
        tags=draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True)),
        keywords=draw(keyword_sets(TARGET_KEYWORDS, 3)),
        marker=draw(st.integers(0, 3)),
        visible=draw(st.none() | st.integers(1, 4)),
        evade_eligible=draw(st.booleans()),
        stationary=draw(st.booleans()),
        removal_order=draw(st.sampled_from(["listed", "fewest-hp-first", "most-hp-first"])),
        damage_reduction=draw(st.sampled_from([0, 0, 0, 1, 2])),
        reduction_floor=draw(st.sampled_from([0, 0, 1])),
    )


@st.composite
def attacks(draw: st.DrawFn) -> Attack:
    attack = Attack(tuple(draw(st.lists(batches(), min_size=1, max_size=3))), draw(targets()))
    compiled, _ = compile_attack(attack)
    assume(all(cb.max_pool <= 12 for cb in compiled))
    return attack


PROPERTY = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much]
)


@PROPERTY
@given(attacks(), st.sampled_from(["count", "die"]))
def test_random_attacks_monte_carlo_agrees_with_exact(attack: Attack, method: str) -> None:
    batches_, target = compile_attack(attack)
    t = exact_tally(batches_, target)
    for hist in (t.damage, t.models_destroyed, t.marker, t.shielded):
        assert abs(hist.sum() - 1.0) < 1e-12
    mc = simulate(batches_, target, 100_000, seed=len(attack.batches), method=method)
    assert_agree(mc, t, label=f"{attack} ({method})")


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(attacks())
def test_random_attacks_naive_agrees_with_exact(attack: Attack) -> None:
    assert_agree(naive_tally(attack, 4000, 5), exact(attack), label=f"{attack} (naive)")


def _with_target_keyword(target: Target, name: str, delta: int) -> Target:
    """The target with keyword ``name`` raised by ``delta`` (added when absent)."""
    kws = [k for k in target.keywords if k.name != name]
    old = next((k.value or 0 for k in target.keywords if k.name == name), 0)
    return dataclasses.replace(target, keywords=(*kws, parse_keyword(f"{name} ({old + delta})", "target")))


@PROPERTY
@given(attacks(), st.integers(0, 2))
def test_exact_monotonicity(attack: Attack, which: int) -> None:
    """More RoA or more models never lower mean damage; better Armour, TOUGH, DODGE never raise it.

    Against a unit that cannot be destroyed: once a unit is destroyed the rest of the chain is not
    resolved (8.7.3 step 1), so e.g. more dice in the first Batch can lower the Damage dealt in total.
    """
    attack = Attack(attack.batches, dataclasses.replace(attack.target, groups=(ModelGroup(1, 999),), visible=None))
    base = mean(exact(attack).damage)
    batches_ = list(attack.batches)
    b = batches_[which % len(batches_)]
    more_roa = dataclasses.replace(b, weapon=dataclasses.replace(b.weapon, roa=b.weapon.roa + 1))
    more_models = dataclasses.replace(b, models=b.models + 1, distances=None)
    for bigger in (more_roa, more_models):
        chain = [*batches_]
        chain[which % len(batches_)] = bigger
        assert mean(exact(Attack(tuple(chain), attack.target)).damage) >= base - 1e-9
    t = attack.target
    better = [_with_target_keyword(t, "TOUGH", 1), _with_target_keyword(t, "DODGE", 1)]
    if t.armour > 2:
        better.append(dataclasses.replace(t, armour=t.armour - 1))
    for target in better:
        assert mean(exact(Attack(attack.batches, target)).damage) <= base + 1e-9
