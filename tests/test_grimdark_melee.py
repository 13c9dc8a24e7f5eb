"""Grimdark Future melee resolved both ways (issue 25 point 3): the charge, Counter, strikes back, fatigue,
the melee result with Fear, and the loser's morale test.

Rule texts: [BG 3.4.1] "Grimdark Future - Beginner's Guide v3.4.1", sections Melee, Striking Back, Fatigue,
Melee Winner, Morale from Melee (quoted in mathhammer/grimdark/melee.py); GF v3.5 common rules (Counter,
Fear, Impact, Fearless) in profiles/rules/grimdark_common_rules.toml. Exact values are checked against hand
computations; Monte Carlo against exact (G-test, fixed seeds); the naive reference against exact (5 SE).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.grimdark.melee import Fighter, Melee
from mathhammer.grimdark.melee_engine import melee_simulate
from mathhammer.grimdark.melee_exact import melee_exact
from mathhammer.grimdark.model import Defender, Hero, Weapon, WeaponGroup

from .grimdark_naive import one_melee
from .stats import assert_agree


def blades(models: int, attacks: int = 1, *rules: str) -> tuple[WeaponGroup, ...]:
    return (WeaponGroup(models, Weapon("Blade", attacks, melee=True, rules=rules)),)


def mean(pmf: np.ndarray) -> float:
    return float(pmf @ np.arange(pmf.size))


def test_target_strikes_back_with_its_models_left() -> None:
    """[BG 3.4.1] Striking Back: "Once all charging models have attacked, the defending unit may choose to
    strike back" - with the models the charge left. One charger (A1, Q4+) kills one of five Defense 2+ models
    with P = 1/2 x 1/6; the 5 or 4 left strike back (Q4+) at Defense 6+ (a hit wounds with P 5/6)."""
    charger = Fighter(blades(1), 4, Defender(1, defense=6, tough=20))
    target = Fighter(blades(5), 4, Defender(5, defense=2))
    t = melee_exact(Melee(charger, target))
    p_kill = Fraction(1, 12)
    expected = ((1 - p_kill) * 5 + p_kill * 4) * Fraction(1, 2) * Fraction(5, 6)
    assert mean(t.attacker_wounds) == pytest.approx(float(expected), abs=1e-12)
    assert mean(t.wounds) == pytest.approx(1 / 12, abs=1e-12)


def test_fatigued_target_hits_only_on_sixes() -> None:
    """[BG 3.4.1] Fatigue: "After attacking in melee for the first time during a round ... units only hit on
    unmodified rolls of 6 in melee until the end of that round." A target that already fought strikes back
    at 1/6 to hit, whatever its Quality."""
    charger = Fighter(blades(1), 4, Defender(1, defense=6, tough=20))
    target = Fighter(blades(5), 2, Defender(5, defense=2), fatigued=True)
    t = melee_exact(Melee(charger, target))
    expected = ((1 - Fraction(1, 12)) * 5 + Fraction(1, 12) * 4) * Fraction(1, 6) * Fraction(5, 6)
    assert mean(t.attacker_wounds) == pytest.approx(float(expected), abs=1e-12)


def test_fatigued_charger_has_no_impact_and_hits_on_sixes() -> None:
    """[BG 3.4.1] Fatigue and GF v3.5 common rules: Impact ("Roll X dice when attacking after charging,
    unless fatigued"): a fatigued charger with Impact(2) rolls no Impact dice and hits on 6s only."""
    impact = WeaponGroup(1, Weapon("Impact", 0, melee=True, rules=("Impact(2)",)))
    fresh = Fighter((impact, *blades(1, 3)), 2, Defender(1, tough=20))
    tired = Fighter((impact, *blades(1, 3)), 2, Defender(1, tough=20), fatigued=True)
    target = Fighter((), 4, Defender(10, defense=6, tough=1))
    # Defense 6+: a hit wounds with 5/6; fresh: 2 Impact dice at 2+ and 3 attacks at Q2+
    assert mean(melee_exact(Melee(fresh, target)).wounds) == pytest.approx((2 + 3) * 5 / 6 * 5 / 6, abs=1e-12)
    assert mean(melee_exact(Melee(tired, target)).wounds) == pytest.approx(3 / 6 * 5 / 6, abs=1e-12)


def test_counter_strikes_first_and_cuts_impact() -> None:
    """GF v3.5 common rules: Counter: "Strikes first with this weapon when charged, and the charging unit
    gets -1 total Impact rolls per model with Counter." A lone charger (Defense 6+, one wound) is killed
    before striking with P(hit 1/2 x unblocked 5/6); its Impact(3) drops to 2 dice against one Counter model."""
    impact = WeaponGroup(1, Weapon("Impact", 0, melee=True, rules=("Impact(3)",)))
    charger = Fighter((impact,), 4, Defender(1, defense=6))
    spear = (WeaponGroup(1, Weapon("Spear", 1, melee=True, rules=("Counter",))),)
    target = Fighter(spear, 4, Defender(1, defense=6, tough=10))
    t = melee_exact(Melee(charger, target))
    p_dead = 1 / 2 * 5 / 6
    assert t.attacker_models_destroyed[1] == pytest.approx(p_dead, abs=1e-12)
    assert mean(t.wounds) == pytest.approx((1 - p_dead) * 2 * 5 / 6 * 5 / 6, abs=1e-12)
    # the same spear without Counter strikes back after the charge instead, and Impact keeps 3 dice
    plain = Fighter(blades(1), 4, Defender(1, defense=6, tough=10))
    assert mean(melee_exact(Melee(charger, plain)).wounds) == pytest.approx(3 * 5 / 6 * 5 / 6, abs=1e-12)


def test_fear_breaks_a_tie() -> None:
    """GF v3.5 common rules: Fear: "This model counts as having dealt +X wounds when checking who won melee."
    Neither side can wound (no weapons): a tie without Fear ("If the units are tied ... neither unit must take a
    morale test"); with Fear(1) on the target's 2 models the charger loses and tests."""
    charger = Fighter(blades(1, 0), 4, Defender(2, quality=4))
    plain = melee_exact(Melee(charger, Fighter((), 4, Defender(2))))
    assert plain.melee_drawn[1] == 1.0 and plain.attacker_test_due[1] == 0.0 and plain.morale_test_due[1] == 0.0
    fear = melee_exact(Melee(charger, Fighter((), 4, Defender(2), fear=1)))
    assert fear.melee_lost[1] == 1.0 and fear.attacker_test_due[1] == 1.0
    # the loser at full strength: a failed test (Quality 4+: 1/2) is Shaken, never Routed
    assert fear.attacker_shaken[1] == pytest.approx(0.5) and fear.attacker_routed[1] == 0.0


def test_destroyed_unit_loses_and_the_winner_does_not_test() -> None:
    """[BG 3.4.1] Morale from Melee: "units that are destroyed in melee always count as having lost, and their
    opponent doesn't have to take a morale test"."""
    charger = Fighter(blades(4, 3), 2, Defender(4))
    target = Fighter(blades(1, 5), 2, Defender(1, defense=6), fear=3)
    t = melee_exact(Melee(charger, target))
    destroyed = t.models_destroyed[-1]
    assert destroyed > 0.99
    assert t.melee_won[1] == pytest.approx(destroyed + (1 - destroyed) * 0, abs=1e-3)
    assert t.attacker_test_due[1] < 1e-3 and t.morale_test_due[1] < 1e-3


def test_loser_at_half_strength_routs() -> None:
    """[BG 3.4.1] Morale from Melee: a failed test "and the unit only has half or less of its starting size ...
    the unit Routs"; over half: Shaken. A target of 2 models left of a starting 4 that loses tests at Quality
    5+ (fails 2/3): it Routs whenever it fails."""
    charger = Fighter((), 4, Defender(3), fear=1)
    half = Fighter((), 5, Defender(2, quality=5, starting_models=4))
    t = melee_exact(Melee(charger, half))
    assert t.melee_won[1] == 1.0 and t.morale_routed[1] == pytest.approx(2 / 3) and t.morale_shaken[1] == 0.0
    full = melee_exact(Melee(charger, Fighter((), 5, Defender(4, quality=5))))
    assert full.morale_shaken[1] == pytest.approx(2 / 3) and full.morale_routed[1] == 0.0


def test_fearless_loser() -> None:
    """GF v3.5 common rules: Fearless: "When a unit where all models have this rule fails a morale test, roll
    one die. On a 4+ it counts as passed instead." Quality 5+ fails 2/3, Fearless saves half of those."""
    charger = Fighter((), 4, Defender(3), fear=1)
    t = melee_exact(Melee(charger, Fighter((), 5, Defender(2, quality=5, starting_models=4, fearless=True))))
    assert t.morale_routed[1] == pytest.approx(1 / 3) and t.morale_passed[1] == pytest.approx(2 / 3)


def test_joined_hero_strikes_at_its_quality_and_is_wounded_last() -> None:
    """Core rules, Hero: a hero joined to the charger strikes with its own weapons at its own Quality; the
    strikes back wound the unit's models first."""
    unit = Defender(2, defense=6, hero=Hero(3, defense=2, quality=2))
    charger = Fighter(blades(2), 6, unit, hero_groups=blades(1, 2), hero_quality=2)
    target = Fighter(blades(1, 2), 4, Defender(5, defense=6, tough=5))
    t = melee_exact(Melee(charger, target))
    # unit: 2 attacks at 6+ (1/6); hero: 2 attacks at 2+ (5/6); Defense 6+ blocks 1/6
    assert mean(t.wounds) == pytest.approx((2 / 6 + 2 * 5 / 6) * 5 / 6, abs=1e-12)
    # the target's 2 attacks (1/2 x 5/6 each) never reach the hero
    assert t.attacker_models_destroyed[3] == 0.0


def test_fighter_refuses_shooting_weapons() -> None:
    rifle = (WeaponGroup(1, Weapon("Rifle", 1, range=24)),)
    with pytest.raises(InputError, match="groups"):
        Fighter(rifle, 4, Defender(1))


CASES = {
    "counter_impact_fear_hero": Melee(
        Fighter(
            (
                WeaponGroup(4, Weapon("Impact", 0, melee=True, rules=("Impact(1)",))),
                WeaponGroup(4, Weapon("Claws", 2, melee=True, rules=("AP(1)", "Furious"))),
                WeaponGroup(1, Weapon("Fist", 1, melee=True, rules=("Deadly(3)",))),
            ),
            4,
            Defender(4, defense=4, tough=2, starting_models=6, hero=Hero(3, defense=3, quality=3)),
            hero_groups=blades(1, 3, "Rending"),
            hero_quality=3,
            hero_fear=1,
        ),
        Fighter(
            (
                WeaponGroup(5, Weapon("Spear", 1, melee=True, rules=("Counter",))),
                WeaponGroup(5, Weapon("Blade", 2, melee=True, rules=("AP(1)",))),
            ),
            5,
            Defender(5, defense=5, quality=5, fearless=True),
            fear=1,
        ),
    ),
    "fatigued_both_regen_shred": Melee(
        Fighter(blades(6, 2, "Shred", "Bane"), 3, Defender(6, defense=4), fatigued=True),
        Fighter(
            blades(3, 3, "Blast(2)"),
            4,
            Defender(3, defense=3, tough=3, rules=("Regeneration",), starting_models=5),
            fatigued=True,
        ),
    ),
    # GF v3.5 common rules: Takedown in a melee (a model as a unit of 1) and a joined hero struck back
    "takedown_hero_banner": Melee(
        Fighter(
            (*blades(3, 2, "AP(1)"), WeaponGroup(1, Weapon("Duel Blade", 3, melee=True, rules=("Takedown", "AP(2)")))),
            4,
            Defender(3, defense=4, tough=2, hero=Hero(3, defense=3, quality=3, rules=("Banner",))),
        ),
        Fighter(blades(4, 2), 4, Defender(4, defense=3, tough=3, rules=("Shielded",), starting_models=6)),
    ),
    "single_monster": Melee(
        Fighter(blades(1, 6, "AP(2)", "Deadly(2)"), 3, Defender(1, defense=3, tough=6)),
        Fighter(blades(10, 1), 5, Defender(10, defense=5, quality=5)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_monte_carlo_agrees_with_exact(name: str) -> None:
    melee = CASES[name]
    exact = melee_exact(melee)
    mc = melee_simulate(melee, 60_000, seed=11)
    assert_agree(mc, exact, label=name)
    for k in ("attacker_wounds", "attacker_models_destroyed"):
        assert_agree(
            type(mc)(mc.trials, wounds=mc[k], models_destroyed=mc[k]),
            type(exact)(0, wounds=exact[k], models_destroyed=exact[k]),
            label=f"{name}: {k}",
        )


def random_melee(rng: random.Random) -> Melee:
    def weapons(models: int) -> tuple[WeaponGroup, ...]:
        pool = [
            "AP(1)",
            "Rending",
            "Deadly(2)",
            "Furious",
            "Counter",
            "Impact(1)",
            "Bane",
            "Shred",
            "Thrust",
            "Takedown",
        ]
        return tuple(
            WeaponGroup(rng.randint(1, models), Weapon(f"w{k}", rng.randint(1, 3), melee=True,
                                                       rules=tuple(rng.sample(pool, rng.randint(0, 2)))))
            for k in range(rng.randint(0, 2))
        )  # fmt: skip

    def fighter() -> Fighter:
        models = rng.randint(1, 5)
        hero = Hero(rng.randint(1, 3), rng.randint(2, 6), quality=rng.randint(2, 6)) if rng.random() < 0.3 else None
        d = Defender(
            models, rng.randint(2, 6), tough=rng.randint(1, 3), quality=rng.randint(2, 6), hero=hero,
            starting_models=models + rng.randint(0, 2), fearless=rng.random() < 0.3,
            rules=rng.choice([(), ("Banner",), ("Shielded",), ("Regeneration",)]),
        )  # fmt: skip
        return Fighter(
            weapons(models), rng.randint(2, 6), d, hero_groups=weapons(1) if hero else (),
            hero_quality=hero.quality if hero else None, fear=rng.randint(0, 1), fatigued=rng.random() < 0.2,
        )  # fmt: skip

    return Melee(fighter(), fighter())


@pytest.mark.parametrize("seed", range(6))
def test_random_melees_monte_carlo_and_naive_agree_with_exact(seed: int) -> None:
    rng = random.Random(seed)
    melee = random_melee(rng)
    exact = melee_exact(melee)
    assert_agree(melee_simulate(melee, 20_000, seed=seed), exact, label=f"random melee {seed}: {melee}")
    # the naive reference, written from the model values: means within 5 SE
    n = 3000
    runs = [one_melee(melee, rng) for _ in range(n)]
    for name, values in (
        ("wounds", [t[2] for _, t, _, _, _ in runs]),
        ("attacker_wounds", [c[2] for c, _, _, _, _ in runs]),
        ("melee_won", [r == "won" for _, _, r, _, _ in runs]),
        ("melee_lost", [r == "lost" for _, _, r, _, _ in runs]),
        ("morale_routed", [x == "routed" for _, _, _, x, _ in runs]),
        ("attacker_shaken", [y == "shaken" for _, _, _, _, y in runs]),
    ):
        pmf = exact[name]
        mu = mean(pmf)
        sd = float(np.sqrt(max(pmf @ np.arange(pmf.size) ** 2 - mu * mu, 0.0)))
        got = float(np.mean(values))
        assert abs(got - mu) <= 5 * sd / np.sqrt(n) + 1e-9, (name, got, mu, melee)


def test_cli_melee_both_ways_json() -> None:
    """``attack --system gf --melee`` with two units: both sides' wounds and P(win/draw/lose)."""
    from typer.testing import CliRunner

    from mathhammer.cli import app

    r = CliRunner().invoke(app, ["attack", "Frenzied Raiders", "Robot Warriors", "--system", "gf", "--melee", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    total = out["melee_won"]["p"] + out["melee_drawn"]["p"] + out["melee_lost"]["p"]
    assert total == pytest.approx(1.0) and out["attacker_wounds"]["mean"] > 0
    assert out["loadout"]["charge"] == "both ways"


def _cli(*args: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from mathhammer.cli import app

    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.output


def test_cli_fatigued_flags() -> None:
    """[BG 3.4.1] Fatigue on the command line: ``--fatigued`` (ad hoc and named) hits only on unmodified 6s;
    ``--target-fatigued`` makes the named target strike back on 6s; both refused when shooting."""
    code, out = _cli("attack", "--system", "gf", "--models", "6", "--attacks", "1", "--quality", "2", "--melee",
                     "--target-models", "10", "--target-defense", "6", "--fatigued", "--json")  # fmt: skip
    assert code == 0, out
    assert json.loads(out)["wounds"]["mean"] == pytest.approx(6 / 6 * 5 / 6)
    base = ("attack", "Frenzied Raiders", "Robot Warriors", "--system", "gf", "--melee", "--json")
    fresh = json.loads(_cli(*base)[1])
    tired = json.loads(_cli(*base, "--target-fatigued")[1])
    assert tired["attacker_wounds"]["mean"] < fresh["attacker_wounds"]["mean"]
    assert tired["wounds"]["mean"] == pytest.approx(fresh["wounds"]["mean"])
    code, out = _cli("attack", "Frenzied Raiders", "Robot Warriors", "--system", "gf", "--fatigued")
    assert code == 2 and "--fatigued" in out and "melee only" in out


def test_report_melee_cell_is_a_charge_both_ways() -> None:
    """Issue 25 point 8: a report's melee cell resolves the charge: the Swamp Behemoth's Impact(3) counts, and
    the target strikes back."""
    from mathhammer.grimdark.melee_attack import GrimdarkMelee
    from mathhammer.grimdark.report import cells
    from mathhammer.grimdark.system import SYSTEM

    roster = SYSTEM.load_roster()
    beast, robots = roster["Swamp Behemoth"], roster["Robot Warriors"]
    melee = [c for c in cells(SYSTEM, [beast], [robots], "roster", None) if c.phase == "combat"]
    assert len(melee) == 1 and isinstance(melee[0].compiled, GrimdarkMelee)
    t = SYSTEM.exact(melee[0].compiled)
    charged = mean(t.wounds)
    from mathhammer.grimdark import grimdark_exact
    from mathhammer.grimdark.profiles import unit_attacker, unit_defender

    standing = mean(grimdark_exact(unit_attacker(beast, True), unit_defender(robots)).wounds)
    assert charged > standing + 0.5 and mean(t.attacker_wounds) > 0


def test_charge_rules_read_the_opponent_and_who_charges() -> None:
    """GF v3.5 common rules: Thrust ("When charging, gets +1 to hit rolls and AP(+1) in melee") counts for the
    charger only; Slayer ("AP(+2) against units where most models have Tough(3) or higher") reads the unit
    struck: one attack at Quality 4+ against Defense 4+ and Tough(3)."""
    from mathhammer.grimdark.rules import Rule

    tough = Defender(2, defense=4, tough=3)
    spear = blades(1, 1, "Thrust")
    t = melee_exact(Melee(Fighter(spear, 4, Defender(1, tough=9)), Fighter(spear, 4, tough)))
    assert mean(t.wounds) == pytest.approx(4 / 6 * 4 / 6, abs=1e-12)  # hit on 3+, blocked on 5+
    assert mean(t.attacker_wounds) == pytest.approx(3 / 6 * 3 / 6, abs=1e-12)  # strikes back: no Thrust
    slayer = Fighter(blades(1), 4, Defender(1, tough=9), rules=(Rule("Slayer"),))
    t = melee_exact(Melee(slayer, Fighter((), 4, tough)))
    assert mean(t.wounds) == pytest.approx(3 / 6 * 5 / 6, abs=1e-12)  # AP(+2): blocked on 6 only


def test_versatile_attack_is_picked_by_the_charger_only() -> None:
    """GF v3.5 army books: Versatile Attack: "When this unit is activated, pick one effect": the charger picks
    (Quality 5+ against Defense 4+: +1 to hit, 3/6 x 3/6, beats AP(+1), 2/6 x 4/6) and says so; striking
    back is not the target's activation, so its Versatile Attack gives nothing."""
    from mathhammer.grimdark.melee_attack import notes_of
    from mathhammer.grimdark.rules import Rule

    rule = (Rule("Versatile Attack"),)
    m = Melee(Fighter(blades(1), 5, Defender(1, tough=9), rules=rule), Fighter(blades(1), 5, Defender(3), rules=rule))
    assert m.charger.versatile == "hit" and any("+1 to hit picked" in n for n in notes_of(m))
    t = melee_exact(m)
    assert mean(t.wounds) == pytest.approx(3 / 6 * 3 / 6, abs=1e-12)
    assert mean(t.attacker_wounds) == pytest.approx(2 / 6 * 3 / 6, abs=1e-12)  # Quality 5+, Defense 4+


def test_banner_and_morale_on_the_test_roll() -> None:
    """GF v3.5 common rules: Banner ("This model and its unit get +1 to morale test rolls") and Morale(X)
    ("Gets +X to morale test rolls"); the total capped at +1 like every roll's (seed). A loser at Quality 5+
    fails 4/6 without, 3/6 with a banner (on its joined hero too); Morale(2) with Banner still +1; Quality 2+
    still fails on a natural 1."""
    charger = Fighter((), 4, Defender(3), fear=1)

    def shaken(defender: Defender) -> float:
        return float(melee_exact(Melee(charger, Fighter((), 5, defender))).morale_shaken[1])

    assert shaken(Defender(4, quality=5)) == pytest.approx(4 / 6)
    assert shaken(Defender(4, quality=5, rules=("Banner",))) == pytest.approx(3 / 6)
    assert shaken(Defender(4, quality=5, hero=Hero(2, rules=("Banner",)))) == pytest.approx(3 / 6)
    assert shaken(Defender(4, quality=5, rules=("Banner", "Morale(2)"))) == pytest.approx(3 / 6)
    assert shaken(Defender(4, quality=2, rules=("Morale(1)",))) == pytest.approx(1 / 6)


def test_banner_from_a_profile_and_an_import() -> None:
    """Banner and Morale(X) are read from profiles (unit rules) and no longer warned by the importer."""
    from mathhammer.grimdark.opr_import import convert
    from mathhammer.grimdark.profiles import load_text, unit_defender

    book = {
        "uid": "t",
        "units": [
            {"id": "u", "name": "Flag Guard", "size": 5, "cost": 100, "quality": 5, "defense": 4,
             "rules": [{"name": "Banner"}, {"name": "Morale", "rating": 1}], "weapons": []},
        ],
    }  # fmt: skip
    text, warnings = convert(book, "book.json")
    unit = load_text(text, "book.toml")["Flag Guard"]
    assert not any("Banner" in w or "Morale" in w for w in warnings)
    d = unit_defender(unit)
    assert {r.name for r in d.rules} >= {"Banner", "Morale"}


def test_takedown_cannot_pick_a_hero_in_a_melee_yet() -> None:
    """GF v3.5 common rules: Takedown may pick the joined hero; single attacks model it, a melee refuses it
    with one error naming snipe (its strikes back would need the hero's wounds apart from the unit's)."""
    duel = (WeaponGroup(1, Weapon("Duel Blade", 2, melee=True, rules=("Takedown",))),)
    with pytest.raises(InputError) as e:
        melee_exact(Melee(Fighter(duel, 4, Defender(1), snipe="hero"), Fighter((), 4, Defender(3, hero=Hero(2)))))
    assert e.value.field == "snipe"


def test_matchup_melee_rows_say_who_wins() -> None:
    """`matchup --system gf`: each melee row is a charge resolved both ways, with the charger's
    P(win/draw/lose the melee) ([BG 3.4.1] Melee Winner) and the wounds it took; shooting rows have none."""
    code, out = _cli("matchup", "Frenzied Raiders", "Saurian Warriors", "--system", "gf", "--json")
    assert code == 0, out
    rows = json.loads(out)
    melee = [r for r in rows if r["phase"] == "melee"]
    assert len(melee) == 2 and all(r["p_win"] + r["p_draw"] + r["p_lose"] == pytest.approx(1.0) for r in melee)
    assert all("p_win" not in r for r in rows if r["phase"] == "shooting")
    code, text = _cli("matchup", "Frenzied Raiders", "Saurian Warriors", "--system", "gf")
    assert "P(win/draw/lose melee)" in text
