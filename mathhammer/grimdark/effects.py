"""Generic, parameterised effects: the modelled effects an army book's own rules have with other numbers.

An army book's rule (Self-Repair, Guardian, Tear, ...) is read through the data table
``profiles/grimdark/army_rules.toml`` (:mod:`mathhammer.grimdark.army_rules`) into one of these
effects; a profile carries them as ``effects`` entries (``docs/grimdark.md``), and the
compile step resolves them into the numbers the engines read (:func:`weapon_ap_bonus`,
:func:`ap_reduction`, :func:`regeneration_targets`). Kinds:

- ``regeneration`` (a unit): "When a unit where all models have this rule takes wounds, roll one die
  for each. On a ``value``+ it is ignored" - Regeneration with another target; like Regeneration,
  ignored by Rending, Bane/Poison and Unstoppable.
- ``ap`` (a weapon; on a unit: each of its weapons, or those of ``phase``): the weapon gets
  AP(+``value``) when its conditions hold: ``phase`` (``"melee"``, ``"shooting"``), ``charging``,
  ``tough_min``/``tough_max`` (the target's unit models' Tough: "units where most models have
  Tough(N)"), ``over`` (the attacker more than ``over`` inches away).
- ``ap_reduction`` (a unit, as the target): hits "count as having AP(-``value``), to a min. of AP(0)";
  with ``over``, only when the unit is shot or charged from over ``over`` inches away.

>>> e = Effect("ap", 4, tough_min=3, tough_max=9, rule="Tear")
>>> e.applies(melee=True, charging=False, distance=None, tough=3), e.applies(False, False, 12.0, 10)
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError

#: The kinds of effect and what their ``value`` is.
KINDS = {
    "regeneration": "the roll that ignores a wound, 2 to 6",
    "ap": "the AP added to the weapon, 1 to 9",
    "ap_reduction": "the AP taken from hits, 1 to 9",
}
PHASES = ("melee", "shooting")


@dataclass(frozen=True)
class Effect:
    """One generic effect (see the module).

    Attributes:
        kind: ``"regeneration"``, ``"ap"`` or ``"ap_reduction"``.
        value: the target (regeneration) or the AP (ap, ap_reduction).
        phase: ``"melee"`` or ``"shooting"``: only then (``ap``); None: both.
        charging: only when the attacker charged (``ap``).
        tough_min: only against a target whose unit models have at least Tough(N) (``ap``); 0: any.
        tough_max: only against at most Tough(N) (``ap``); 0: no limit.
        over: only from more than this many inches away (``ap``: the attacker's distance; ``ap_reduction``:
            shot or charged from over it); None: at any distance.
        rule: the army book's rule it comes from, for messages.
    """

    kind: str
    value: int
    phase: str | None = None
    charging: bool = False
    tough_min: int = 0
    tough_max: int = 0
    over: float | None = None
    rule: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError("effect", self.kind, "one of " + ", ".join(KINDS))
        lo, hi = (2, 6) if self.kind == "regeneration" else (1, 9)
        if isinstance(self.value, bool) or not isinstance(self.value, int) or not lo <= self.value <= hi:
            raise InputError(f"{self.kind}.value", self.value, KINDS[self.kind])
        if self.phase is not None and self.phase not in PHASES:
            raise InputError(f"{self.kind}.phase", self.phase, '"melee", "shooting" or none')
        for name in ("tough_min", "tough_max"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 99:
                raise InputError(f"{self.kind}.{name}", v, "a Tough from 0 (no limit) to 99")
        if self.over is not None and not (isinstance(self.over, int | float) and 0 <= self.over <= 999):
            raise InputError(f"{self.kind}.over", self.over, "a distance in inches")
        conditions = self.phase or self.charging or self.tough_min or self.tough_max or self.over is not None
        if self.kind == "regeneration" and conditions:
            raise InputError("regeneration", self, "a regeneration effect without conditions")

    def applies(self, melee: bool, charging: bool, distance: float | None, tough: int) -> bool | None:
        """Whether an ``ap`` effect's conditions hold; None when the distance it needs is unknown."""
        if self.phase is not None and (self.phase == "melee") != melee:
            return False
        if self.charging and not charging:
            return False
        if tough < self.tough_min or (self.tough_max and tough > self.tough_max):
            return False
        if self.over is not None:
            if distance is None:
                return None
            return distance > self.over
        return True


def parse_effects(values: Iterable[Effect | Mapping[str, object]] | None, field: str) -> tuple[Effect, ...]:
    """Effects from :class:`Effect` or mappings ``{"effect": kind, "value": X, ...}`` (errors name ``field``)."""
    out: list[Effect] = []
    for i, v in enumerate(values or ()):
        if isinstance(v, Effect):
            out.append(v)
            continue
        if not isinstance(v, Mapping) or "effect" not in v:
            raise InputError(f"{field}[{i}]", v, 'an effect {"effect": ..., "value": ...}')
        args = {("kind" if k == "effect" else k): x for k, x in v.items()}
        try:
            out.append(Effect(**args))  # type: ignore[arg-type]
        except TypeError:
            allowed = "effect, value, phase, charging, tough_min, tough_max, over, rule"
            raise InputError(f"{field}[{i}]", v, f"an effect with the keys {allowed}") from None
    return tuple(out)


def weapon_ap_bonus(
    effects: Iterable[Effect], melee: bool, charging: bool, distance: float | None, tough: int, label: str, warnings
) -> int:
    """The AP the weapon's ``ap`` effects add against this target (they add up, as v3.5's AP(+X) does)."""
    bonus = 0
    for e in effects:
        if e.kind != "ap":
            continue
        ok = e.applies(melee, charging, distance, tough)
        if ok is None:
            warnings.append(f'{label}: {e.rule or "AP effect"} needs the distance (over {e.over:g}"); not counted')
        elif ok:
            bonus += e.value
    return bonus


def ap_reduction(effects: Iterable[Effect], melee: bool, charging: bool, distance: float | None, warnings) -> int:
    """The AP the target's ``ap_reduction`` effects take from every hit (the largest one; hits keep AP(0) at least).

    With ``over``: only when "shot or charged from over" that distance: a shooting attack, or a melee attack
    of a charging attacker, from more than ``over`` inches.
    """
    best = 0
    for e in effects:
        if e.kind != "ap_reduction":
            continue
        if e.over is not None:
            if melee and not charging:
                continue
            if distance is None:
                rule = e.rule or "AP reduction"
                warnings.append(f'target: {rule} needs the distance (over {e.over:g}"); not counted')
                continue
            if distance <= e.over:
                continue
        best = max(best, e.value)
    return best


def regeneration_targets(effects: Iterable[Effect]) -> dict[str, int]:
    """The ``regeneration`` effects by rule name: the roll that ignores a wound."""
    return {e.rule or "regeneration": e.value for e in effects if e.kind == "regeneration"}
