"""A Batch's distances banded by the limits its weapon reads (``starcraft.compiled.banded_distances``) compile to the
same Batch as the distances themselves, so the simulation's Ranged Attacks (``Shooting._shoot_at``) share one chain
per band instead of one per board.

Rules read: 8.7.3 step 1 (a model beyond its weapon's Range rolls no dice), LONG RANGE (X) ("-1 to Hit beyond the
profile's Range, up to X"), BURST FIRE X" (Y) (Y more dice for a model Within X"), 8.7.3 REMOVING DICE (the dice an
ability takes out, by Hit target number).
"""

from __future__ import annotations

import random
from dataclasses import fields

import numpy as np

from mathhammer.starcraft.compiled import attack_key, banded_distances, compile_attack, compile_batch
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon


def _weapon(rng: random.Random) -> Weapon:
    rg = rng.choice((None, 4, 6, 8, 12, 18))
    keywords = []
    if rg is not None and rng.random() < 0.5:
        keywords.append(f'LONG RANGE ({rg + rng.choice((2, 4, 6, 12))}")')
    if rng.random() < 0.5:
        keywords.append(f'BURST FIRE {rng.choice((2, 4, 6, 8, 12))}" ({rng.randint(1, 3)})')
    return Weapon.build("w", roa=rng.randint(1, 4), hit=rng.randint(2, 5), range=rg, keywords=keywords)


def _distances(rng: random.Random, w: Weapon, n: int) -> tuple[float, ...]:
    limits = [float(k.value or 0) for k in w.keywords if k.name == "LONG RANGE"]
    limits += [float(k.extra or 0) for k in w.keywords if k.name == "BURST FIRE"]
    limits += [] if w.range is None else [float(w.range)]
    out = []
    for _ in range(n):
        if limits and rng.random() < 0.4:  # at a limit, or a thousandth of an inch either side (facts round to 0.001)
            out.append(round(rng.choice(limits) + rng.choice((-0.001, 0.0, 0.0, 0.001)), 3))
        else:
            out.append(round(rng.uniform(0, 30), 3))
    return tuple(out)


def _same(a: object, b: object) -> bool:
    for f in fields(a):  # type: ignore[arg-type]
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def test_banded_distances_compile_to_the_same_batch() -> None:
    """8.7.3 step 1, LONG RANGE, BURST FIRE, REMOVING DICE: on 4,000 random weapons (Range or none, LONG RANGE, BURST
    FIRE), 1-6 models at random distances (a third at a limit or 0.001" either side) and dice taken out by either
    side, the banded distances compile to the same Batch, field by field, and the same chain key."""
    rng = random.Random(29)
    for _ in range(4000):
        w = _weapon(rng)
        d = _distances(rng, w, rng.randint(1, 6))
        kw = {"fewer": rng.choice((0, 0, 1, 3)), "fewer_by": rng.choice(("attacker", "defender"))}
        target = Target.build(rng.randint(1, 5), rng.randint(1, 3), armour=rng.randint(2, 6))
        b = banded_distances(w, d)
        assert len(b) == len(d) and list(b) == sorted(b)
        one, two = Batch(w, models=len(d), distances=d, **kw), Batch(w, models=len(d), distances=b, **kw)
        assert _same(compile_batch(one, target), compile_batch(two, target)), (w.range, w.keywords, d, b)
        assert attack_key(*compile_attack(Attack((one,), target))) == attack_key(
            *compile_attack(Attack((two,), target))
        )


def test_banded_distances_are_few_per_weapon() -> None:
    """The point of banding: 1,000 random boards' distances of five models with one weapon (Range, LONG RANGE, BURST
    FIRE: four bands) make 1,000 chains; banded, at most the 56 multisets of five of four bands."""
    rng = random.Random(7)
    w = Weapon.build("Rifle", roa=2, hit=4, range=12, keywords=['LONG RANGE (18")', 'BURST FIRE 6" (1)'])
    boards = [tuple(round(rng.uniform(0, 24), 3) for _ in range(5)) for _ in range(1000)]
    assert len(set(boards)) == 1000
    assert len({banded_distances(w, d) for d in boards}) <= 56


def test_banded_distances_at_each_limit() -> None:
    """8.7.3 step 1 and LONG RANGE (a model at exactly its Range rolls at its Hit; at exactly its LONG RANGE at -1;
    beyond, none), BURST FIRE (Within X": at exactly X" too): each distance banded onto the limit at or above it."""
    w = Weapon.build("Rifle", roa=2, hit=4, range=12, keywords=['LONG RANGE (18")', 'BURST FIRE 6" (1)'])
    assert banded_distances(w, (0.0, 6.0, 6.001, 12.0, 12.001, 18.0, 18.001, 40.0)) == (
        6.0, 6.0, 12.0, 12.0, 18.0, 18.0, 19.0, 19.0,
    )  # fmt: skip
    assert banded_distances(Weapon.build("Claws", roa=2, hit=4), (3.0, 0.5)) == (0.0, 0.0)  # no Range: no limit
