"""Which of a StarCraft TMG attack's outcomes can apply to its target (issue 28 point 5).

A Damage Marker is what a model keeps of a Total Damage short of its HP (8.7.4 step 5): a unit whose
models all have 1 HP (Shield added to the first model, part 11 SHIELDED) removes a model for every point
and carries none, unless the attack starts with one or adds NON-LETHAL DAMAGE, which removes no model.
SHIELDED is lost and never regained: a target that is not SHIELDED at the start (no Shield, or lost)
cannot be "still SHIELDED". The text of ``mathhammer attack`` leaves such lines out
(:meth:`~mathhammer.results.Result.without`); the JSON keeps them.

>>> from mathhammer.starcraft.compiled import compile_attack
>>> from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
>>> gun = Batch(Weapon.build("gun", roa=2, hit=4), models=3)
>>> not_applicable(*compile_attack(Attack((gun,), Target.build(12, 1))))
('damage_marker', 'shielded_after')
>>> not_applicable(*compile_attack(Attack((gun,), Target.build(2, 1, shield=1))))
()
>>> not_applicable(*compile_attack(Attack((gun,), Target.build(3, 2))))
('shielded_after',)
"""

from __future__ import annotations

from collections.abc import Sequence

from .compiled import CompiledBatch, CompiledTarget

__all__ = ["not_applicable"]


def not_applicable(batches: Sequence[CompiledBatch], target: CompiledTarget) -> tuple[str, ...]:
    """The outcomes (by name) that cannot apply to ``target`` under ``batches`` (a compiled chain, as
    ``StarCraftAttack.arrays``): ``damage_marker`` when no model can carry a Damage Marker,
    ``shielded_after`` when the target is not SHIELDED at the start."""
    t = target
    out: list[str] = []
    if int(t.hp.max()) <= 1 and t.marker == 0 and not any(b.nonlethal for b in batches):
        out.append("damage_marker")
    if not t.shielded:
        out.append("shielded_after")
    return tuple(out)
