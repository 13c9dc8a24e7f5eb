"""The price of a Reaction that counts its unit as Activated (Zealous Round: "When this Unit is not Activated and
receives Damage, the controlling player may count this Unit as Activated in this Phase (flip its Activation Marker)
to reduce the Total Damage by 2"; Protoss card sheet, Zealot upgrade; 10.4), for :mod:`.reactions`.

The unit gives up its own activation later in the Phase, but only where the reduction is used: the engine counts it
as Activated in the games where a Batch of the attack dealt it Damage (``starcraft.exact``'s "spent" flag, read by
``sim_shoot``), so the price is P(used) x what that activation is worth. Its worth, in the policy's own score: the
best legal entry of the unit's menu in the game's state now less a Hold where it stands (a unit counted as Activated
stays where it is and does nothing, as a Hold). Read before the attack: the state the attack leaves (fewer models)
is not read, so the worth is an upper bound where the attack removes models.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...starcraft.compiled import compile_attack
from ...starcraft.exact import exact_states
from ...starcraft.model import Attack


def p_used(
    resolver: Any, u: int, a: int, t: int, k: int, mark: int, shielded: int, chain: str, use: tuple[str, ...], cut: int
) -> float:
    """P(unit ``t``'s Total Damage reduction ``cut`` is used against unit ``u``'s attack) (the exact engine: a Batch
    of the chain deals ``t`` Damage, 8.7.4 step 5). ``a`` attacking models with their ``chain``: "assault" (its Ranged
    Weapons) or "impact" (its IMPACT after a Charge, every model striking: ``fastfeatures.impact_batches``); ``t`` with
    ``k`` models left, Damage Marker ``mark``, ``shielded``; the attack's abilities ``use`` on; the Batches and the
    Target those of ``resolver`` (a :class:`~.fastfeatures.Resolver`, as ``Features.attack`` reads them)."""
    if a <= 0 or k <= 0:
        return 0.0
    batches = resolver.batches(u, a, t, chain, use)
    if not batches:
        return 0.0
    phase = "combat" if chain == "impact" else chain  # IMPACT is resolved as a Close Combat attack (sim_combat)
    target = resolver.target(t, k, mark, shielded, phase, (0, cut, 0))
    compiled, tc = compile_attack(Attack(tuple(batches), target))
    return float(sum(p for key, p in exact_states(compiled, tc, spent=True).items() if key[3]))


def lost(rows: np.ndarray, legal: np.ndarray, w: np.ndarray, hold: int) -> np.ndarray:
    """Games x columns: what the unit's own activation is worth (the module text), per game: the feature row of its
    best legal entry by the weights ``w`` less that of its Hold (entry ``hold``); 0 where it has no legal entry or
    its best scores no more than the Hold. ``rows``: games x entries x columns; ``legal``: games x entries."""
    score = np.where(legal, rows @ w, -np.inf)
    best = score.argmax(axis=1)
    every = np.arange(rows.shape[0])
    out = rows[every, best] - rows[:, hold]
    out[~(score[every, best] > rows[:, hold] @ w)] = 0.0
    return out


__all__ = ["lost", "p_used"]
