"""From command-line flags to a game system's query, and the system's errors back to the flags.

A system speaks of arguments (``models``, ``cover``, ``roa``); the command line of
flags (``--attacker-comp``, ``--cover``, ``--roa``). A flag that the chosen
system or mode does not use is refused here, naming the flag, never ignored.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import InputError
from ..systems import GameSystem, Query

#: Flags of a named attack that set the query itself (compositions, upgrades, phase, range).
QUERY_FLAGS = {
    "--attacker-comp": "models",
    "--upgrade": "upgrades",
    "--use": "use",
    "--target-comp": "target_models",
    "--target-upgrade": "target_upgrades",
    "--target-use": "target_use",
    "--phase": "phase",
    "--range": "distance",
}

#: Flags of a named attack that set a situation option of the system (``GameSystem.options``).
OPTION_FLAGS = {
    "--attacker-models": "attacker_models",
    "--target-visible": "target_visible",
    "--evade-eligible": "evade_eligible",
    "--target-stationary": "stationary",
    "--target-unshielded": "target_shielded",
    "--on-creep": "on_creep",
    "--damage-reduction": "damage_reduction",
    "--reduction-floor": "reduction_floor",
    "--board": "board",
    "--attacker-unit": "attacker_unit",
    "--target-unit": "target_unit",
    "--cover": "cover",
    "--charging": "charging",
    "--moved": "moved",
    "--fatigued": "fatigued",
    "--target-fatigued": "target_fatigued",
    "--hit-mod": "hit_mod",
    "--versatile": "versatile",
    "--target-moved": "target_moved",
    "--snipe": "snipe",
    "--target-hero": "hero",
}

#: ``--target-state KEY=VALUE`` keys and the options they set.
STATE_KEYS = {"models": "target_left", "marker": "target_marker", "shielded": "target_shielded"}

#: How a named attack's errors name their flags.
NAMED_FIELDS = {
    "attacker": "ATTACKER",
    "target": "TARGET",
    "distance": "--range",
    "range": "--range",
    **{arg: flag for flag, arg in QUERY_FLAGS.items()},
    **{arg: flag for flag, arg in OPTION_FLAGS.items() if arg != "target_shielded"},
    **{arg: f"--target-state {key}" for key, arg in STATE_KEYS.items()},
}


@contextlib.contextmanager
def renamed(names: Mapping[str, str]) -> Iterator[None]:
    """Report an :class:`InputError` about argument ``x`` as one about flag ``names[x]``."""
    try:
        yield
    except InputError as exc:
        allowed = exc.allowed
        for arg, flag in names.items():  # "with damage_reduction N" -> "with --damage-reduction N"
            if "_" in arg and flag.startswith("--"):
                allowed = re.sub(rf"\b{arg}\b", flag, allowed)
        head, sep, rest = exc.field.partition(" ")  # "target (the hero after '+')"
        item = re.fullmatch(r"(\w+)\[\d+\]", exc.field)  # "rule[0]": the first value of a repeatable flag
        if exc.field in names:
            field = names[exc.field]
        elif item and item[1] in names:
            field = names[item[1]]
        else:
            field = names[head] + sep + rest if head in names else exc.field
        if field != exc.field or allowed != exc.allowed:
            raise InputError(field, exc.value, allowed, exc.hint) from None
        raise


def _state(text: str) -> dict[str, Any]:
    """``models=8,marker=1,shielded=no`` as options."""
    out: dict[str, Any] = {}
    for item in str(text).split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in STATE_KEYS:
            raise InputError("--target-state", item, "KEY=VALUE items, keys " + ", ".join(STATE_KEYS))
        if key == "shielded":
            v = value.strip().lower()
            if v not in ("yes", "no", "true", "false"):
                raise InputError("--target-state shielded", value, "yes or no")
            out[STATE_KEYS[key]] = v in ("yes", "true")
        else:
            out[STATE_KEYS[key]] = value.strip()
    return out


def melee_phase(game: GameSystem, phase: str | None) -> str:
    """``--melee``: the system's melee phase; refused for a system without one, or beside another ``--phase``."""
    if "melee" not in game.words.phases:
        allowed = f"not with --system {game.name}: its phases are {', '.join(game.words.phases)} (--phase)"
        raise InputError("--melee", True, allowed)
    if phase is not None and phase not in ("melee", "combat"):
        raise InputError("--melee", True, f"either --melee or --phase {phase}")
    return "melee"


def _refuse(flag: str, value: Any, why: str) -> InputError:
    shown = value[0] if isinstance(value, list) else value
    return InputError(flag, shown, why)


def named_query(game: GameSystem, attacker: str, target: str, given: Mapping[str, Any]) -> tuple[Any, dict[str, str]]:
    """The compiled named attack of ``given`` flags (those given only), and how its errors name the flags."""
    fields: dict[str, Any] = {}
    options: dict[str, Any] = {}
    profiles = list(given.get("--profiles") or [])
    for folder in profiles:
        if not str(folder).strip():  # "" would be the current folder, read whole
            raise InputError("--profiles", folder, "a folder of TOML profiles")
    for flag, value in given.items():
        if flag == "--profiles":
            continue
        if flag in QUERY_FLAGS:
            fields[QUERY_FLAGS[flag]] = value
        elif flag == "--target-state":
            for name, v in _state(value).items():
                if name not in game.options:
                    key = next(k for k, a in STATE_KEYS.items() if a == name)
                    raise InputError(
                        f"--target-state {key}", v, f"not with --system {game.name} (its units carry no {key} state)"
                    )
                options[name] = v
        elif flag == "--melee":
            fields["phase"] = melee_phase(game, given.get("--phase"))
        elif flag in OPTION_FLAGS:
            name = OPTION_FLAGS[flag]
            if name not in game.options:
                raise _refuse(flag, value, f"not with --system {game.name} ({game.title} has no such situation)")
            options[name] = False if flag == "--target-unshielded" else value
        else:
            raise _refuse(flag, value, "not with named units (ATTACKER TARGET): a flag of an ad-hoc attack")
    for key in ("upgrades", "use", "target_upgrades", "target_use"):
        fields[key] = tuple(fields.get(key) or ())
    query = Query(attacker, target, options=options, **fields)
    with renamed(NAMED_FIELDS):
        roster = game.load_roster(profiles)
        return game.compile(roster, query), NAMED_FIELDS


#: Flags of a named attack only (units bought, their state, a board): refused in an ad-hoc attack.
NAMED_ONLY = frozenset(QUERY_FLAGS) - {"--range"} | {
    "--target-state", "--profiles", "--board", "--attacker-unit", "--target-unit", "--attacker-models",
    "--on-creep", "--target-hero", "--target-fatigued",
}  # fmt: skip


def adhoc_query(game: GameSystem, given: Mapping[str, Any]) -> tuple[Any, dict[str, str]]:
    """The compiled ad-hoc attack of ``given`` flags, and how its errors name the flags."""
    params: dict[str, Any] = {}
    for flag, value in given.items():
        if flag in NAMED_ONLY:
            raise _refuse(flag, value, "not with an ad-hoc attack (no unit names)")
        param = flag[2:].replace("-", "_")
        if param not in game.adhoc_params:
            raise _refuse(flag, value, f"not with --system {game.name}")
        params[param] = value
    names = {p: "--" + p.replace("_", "-") for p in game.adhoc_params}
    with renamed(names):
        return game.adhoc(params), names
