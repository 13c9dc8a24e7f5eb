"""Takedown and Sniper picking a joined hero: both engines, by the hero's fate first.

GF v3.5 common rules: Takedown, "This model may pick any model in the target unit as its individual
target, which is resolved as if it was a unit of [1]. Takedown attacks must be resolved before other
weapons"; Sniper, "... may pick any model in the target unit as its individual target ... Sniper shooting
must be resolved before other weapons". With ``snipe="hero"`` those groups (compiled with ``snipe=2``,
first in the attack) strike the joined hero alone, at its own Defense and rules.

The engines' state holds wounds on the model next in line only (the hero last), so the attack is taken
in two steps, each exact or simulated: the hero groups against the hero as a one-model unit give its
wounds ``h`` (or its death); then the other groups run against the unit whose hero has ``h`` wounds
already (its Tough less ``h``), or, the hero killed, against the unit alone (its starting size kept).
Every state of the second step is one of the whole attack (wounds dealt map one-to-one to the state),
so :func:`combine` shifts the branches' histograms back: ``h`` more wounds, the hero's marker and
wounds, the hero counted among the models removed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..outcome import Tally
from .compiled import CompiledAttack, CompiledGroup, CompiledTarget

HISTOGRAMS = ("morale_test_due", "morale_passed", "morale_shaken", "morale_routed")


def hero_groups(attack: CompiledAttack) -> tuple[tuple[CompiledGroup, ...], tuple[CompiledGroup, ...]]:
    """The groups that pick the joined hero (first in the attack, plain groups now) and the others."""
    first = [replace(g, snipe=0) for g in attack.groups if g.snipe == 2]
    return tuple(first), tuple(g for g in attack.groups if g.snipe != 2)


def hero_alone(target: CompiledTarget) -> CompiledTarget:
    """The joined hero as a unit of 1: its Tough, own Defense and Regeneration."""
    return CompiledTarget(
        tough=target.tough[-1:],
        defense=target.own_defense[-1:],
        regeneration=target.own_regeneration[-1:],
        single_tough=0,
        wounds_test=0,
        test_quality=target.test_quality[-1:],
        test_fearless=target.test_fearless[-1:],
        own_defense=target.own_defense[-1:],
        own_regeneration=target.own_regeneration[-1:],
    )


def branch(target: CompiledTarget, h: int) -> CompiledTarget:
    """The target after the hero took ``h`` wounds (its Tough less ``h``), or, ``h`` its Tough, the unit alone."""
    tough = int(target.tough[-1])
    if h >= tough:
        assert target.unit_only is not None
        return replace(target.unit_only, wounds_test=target.wounds_test)
    t = target.tough.copy()
    t[-1] = tough - h
    return replace(target, tough=t)


def _state(cum: np.ndarray, wounds: int) -> tuple[int, int]:
    """``(models removed, wounds on the next)`` of ``wounds`` dealt (wounds fill the models in order)."""
    i = int(np.searchsorted(cum, wounds, side="right")) - 1
    return i, wounds - int(cum[i])


def combine(target: CompiledTarget, parts: list[tuple[int, float, Tally]], trials: int) -> Tally:
    """The whole attack's Tally from its branches ``(hero wounds h, weight, Tally of the second step)``:
    weights are probabilities (exact) or 1 with tallies of counts (Monte Carlo, ``trials`` in all)."""
    m = target.models
    tough = int(target.tough[-1])
    unit_total = int(target.cum[m - 1])
    out = {
        "wounds": np.zeros(target.damage_size),
        "models_destroyed": np.zeros(m + 1),
        "wounds_on_next": np.zeros(target.marker_size),
        "hero_wounds": np.zeros(tough + 1),
        **{k: np.zeros(2) for k in HISTOGRAMS},
    }
    for h, weight, t in parts:
        dead = h >= tough
        cum = branch(target, h).cum
        for k in HISTOGRAMS:
            out[k] += weight * t[k]
        for d, p in enumerate(t.wounds):
            if p == 0.0:
                continue
            p *= weight
            i, w = _state(cum, d)
            out["wounds"][d + h] += p
            out["models_destroyed"][i + int(dead)] += p
            hero_next = not dead and i == m - 1
            out["wounds_on_next"][w + h if hero_next else w] += p
            hero = tough if dead or i >= m else h + (d - unit_total if hero_next else 0)
            out["hero_wounds"][hero] += p
    return Tally(trials, **out)
