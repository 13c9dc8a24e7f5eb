"""StarCraft TMG as a registered game system: the ad-hoc ``attack`` flags and how they run.

The flags arrive as the CLI parsed them (strings, booleans, lists; None when
not given); this module applies the defaults, validates each flag by name and
resolves the Batch with :func:`mathhammer.run`.
"""

from __future__ import annotations

from typing import Any

from ..api import run
from ..dice import SDice
from ..errors import InputError
from ..systems import GameSystem, register
from ..validate import number, target_number, whole
from .keywords import parse_keywords
from .model import Batch, ModelGroup, Target, Weapon, parse_surge, parse_tags

DEFAULTS = {
    "--models": "1",
    "--roa": "1",
    "--hit": "4",
    "--damage": "1",
    "--target-models": "1",
    "--target-hp": "1",
    "--target-shield": "0",
    "--target-armour": "4",
    "--target-evade": "6",
    "--target-tags": "",
    "--target-marker": "0",
    "--damage-reduction": "0",
    "--reduction-floor": "0",
}
FLAGS = frozenset(
    {
        "--roa", "--hit", "--damage", "--surge", "--keyword", "--weapon-range", "--name", "--range",
        "--target-hp", "--target-shield", "--target-armour", "--target-evade", "--target-tags", "--target-keyword",
        "--target-marker", "--target-visible", "--evade-eligible", "--target-stationary", "--target-unshielded",
        "--damage-reduction", "--reduction-floor",
    }
)  # fmt: skip


def build_adhoc(flags: dict[str, Any]) -> tuple[Batch, Target, list[str]]:
    """The ad-hoc Batch and target from the flags; also notes for the user."""
    v = {k: (flags.get(k) if flags.get(k) is not None else DEFAULTS.get(k)) for k in FLAGS | DEFAULTS.keys()}
    notes: list[str] = []
    surge_tags: tuple[str, ...] = ()
    surge_dice: SDice | None = None
    if v["--surge"]:
        surge_tags, surge_dice = parse_surge(v["--surge"], "--surge")
    wr = v["--weapon-range"]
    dist = None if v["--range"] is None else number("--range", v["--range"], 0, 999, "distance in inches")
    weapon = Weapon(
        name=v["--name"] or "weapon",
        roa=whole("--roa", v["--roa"], 0, 99, "Rate of Attack"),
        hit=target_number("--hit", v["--hit"], "Hit"),
        damage=whole("--damage", v["--damage"], 1, 99, "Damage"),
        range=None if wr is None else number("--weapon-range", wr, 0, 999, "profile range in inches"),
        surge_tags=surge_tags,
        surge_dice=surge_dice,
        keywords=parse_keywords(v["--keyword"] or [], "weapon", "--keyword"),
    )
    if dist is not None and weapon.range is None and any(k.name == "LONG RANGE" for k in weapon.keywords):
        raise InputError("--weapon-range", None, "the profile range in inches, needed with LONG RANGE and --range")
    if dist is None and any(k.name in ("BURST FIRE", "LONG RANGE") for k in weapon.keywords):
        notes.append("no --range given: models are taken to be within profile range and beyond BURST FIRE distance")
    batch = Batch.at(weapon, whole("--models", v["--models"], 0, 999, "attacking models"), dist)
    visible = v["--target-visible"]
    target = Target(
        groups=(
            ModelGroup(
                whole("--target-models", v["--target-models"], 1, 999, "models in the target unit"),
                whole("--target-hp", v["--target-hp"], 1, 999, "Hit Points per model"),
            ),
        ),
        armour=target_number("--target-armour", v["--target-armour"], "Armour"),
        evade=target_number("--target-evade", v["--target-evade"], "Evade"),
        shield=whole("--target-shield", v["--target-shield"], 0, 99, "Shield"),
        tags=parse_tags(str(v["--target-tags"] or ""), "--target-tags"),
        keywords=parse_keywords(v["--target-keyword"] or [], "target", "--target-keyword"),
        marker=whole("--target-marker", v["--target-marker"], 0, 999, "Damage Marker"),
        shielded=False if v["--target-unshielded"] else None,
        visible=None if visible is None else whole("--target-visible", visible, 1, 999, "visible models"),
        evade_eligible=bool(v["--evade-eligible"]),
        stationary=bool(v["--target-stationary"]),
        damage_reduction=whole("--damage-reduction", v["--damage-reduction"], 0, 99, "Total Damage reduction"),
        reduction_floor=whole("--reduction-floor", v["--reduction-floor"], 0, 99, "minimum Total Damage"),
    )
    if target.damage_reduction:
        notes.append(reduction_note(target))
    return batch, target, notes


def reduction_note(target: Target) -> str:
    """How a Total Damage reduction was applied (for the user)."""
    floor = f" (to a minimum of {target.reduction_floor})" if target.reduction_floor else ""
    return (
        f"the Total Damage is reduced once by {target.damage_reduction}{floor}, at the first Batch that deals "
        "Damage (8.7.4 step 5; a Reaction is used once)"
    )


def run_adhoc(flags: dict[str, Any], opts: dict[str, Any], as_json: bool) -> tuple[dict[str, Any], str, list[str]]:
    batch, target, notes = build_adhoc(flags)
    result = run(batch, target, label=batch.weapon.name, **opts)
    return result.to_dict(), result.text_report(), notes


SYSTEM = GameSystem(
    name="starcraft",
    aliases=("sc", "sctmg", "starcraft-tmg", "tmg"),
    title="StarCraft: Tabletop Miniatures Game",
    adhoc_flags=FLAGS,
    run_adhoc=run_adhoc,
)
register(SYSTEM)
