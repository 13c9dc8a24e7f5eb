"""Grimdark Future as a registered game system: ``mathhammer attack --system grimdark``.

The ad-hoc flags: ``--models N --attacks N --quality N --rule "AP(1)" [--rule ...]
--target-models N --target-defense N --target-tough N [--cover]
[--target-rule "Regeneration"] [--target-quality N] [--melee] [--charging]
[--range INCHES]``, with ``--exact | --trials N [--seed S] | --tolerance E``.

The JSON result has the keys ``engine, trials, seed, wounds {pmf, mean,
stderr}, models_destroyed {pmf, mean, stderr}, unit_destroyed {p, stderr},
morale_test_due {p}``; the text report adds P(morale test failed).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..outcome import Tally
from ..results import Result, _trim
from ..systems import GameSystem, register
from ..validate import number, target_number, whole
from .exact import grimdark_exact, morale_fail_probability
from .model import Attacker, Defender, Weapon, WeaponGroup

FLAGS = frozenset(
    {
        "--attacks", "--quality", "--rule", "--target-defense", "--target-tough", "--target-rule",
        "--target-quality", "--cover", "--melee", "--charging", "--range", "--name",
    }
)  # fmt: skip


def build_adhoc(flags: dict[str, Any]) -> tuple[Attacker, Defender]:
    """The attacker (one weapon group) and the defender from the flags."""

    def get(flag: str, default: Any) -> Any:
        value = flags.get(flag)
        return default if value is None else value

    distance = get("--range", None)
    weapon = Weapon(
        get("--name", "weapon"),
        attacks=whole("--attacks", get("--attacks", "1"), 0, 99, "attacks (A) per model"),
        melee=bool(get("--melee", False)),
        rules=tuple(get("--rule", [])),
    )
    attacker = Attacker(
        (WeaponGroup(whole("--models", get("--models", "1"), 0, 999, "attacking models"), weapon),),
        quality=target_number("--quality", get("--quality", "4"), "Quality"),
        charging=bool(get("--charging", False)),
        distance=None if distance is None else number("--range", distance, 0, 999, "distance in inches"),
    )
    defender = Defender(
        models=whole("--target-models", get("--target-models", "1"), 1, 999, "models in the target unit"),
        defense=target_number("--target-defense", get("--target-defense", "4"), "Defense"),
        tough=whole("--target-tough", get("--target-tough", "1"), 1, 99, "Tough(X) per model"),
        quality=target_number("--target-quality", get("--target-quality", "4"), "Quality"),
        rules=tuple(get("--target-rule", [])),
        cover=bool(get("--cover", False)),
    )
    return attacker, defender


def _tally(attacker: Attacker, defender: Defender, opts: dict[str, Any]) -> Tally:
    if opts["engine"] == "exact":
        return grimdark_exact(attacker, defender)
    from .engine import grimdark_simulate

    if opts.get("trials") is not None:
        return grimdark_simulate(attacker, defender, opts["trials"], seed=opts["seed"])
    tolerance = float(opts["tolerance"])
    n = 100_000
    while True:  # the same doubling rule as the StarCraft engine: the result depends on seed and tolerance only
        tally = grimdark_simulate(attacker, defender, n, seed=opts["seed"])
        result = Result("monte-carlo", tally, defender.models + (1 if defender.hero else 0), opts["seed"])
        worst = max(result.damage.stderr, result.unit_destroyed_stderr)
        if worst <= tolerance or n >= 100_000_000:
            return tally
        n *= 2


def run_adhoc(flags: dict[str, Any], opts: dict[str, Any], as_json: bool) -> tuple[dict[str, Any], str, list[str]]:
    if opts.get("method", "count") != "count":
        raise InputError("--method", opts["method"], "count (Grimdark Future rolls every die in either case)")
    attacker, defender = build_adhoc(flags)
    from .compiled import compile_attack

    notes = list(compile_attack(attacker, defender).warnings)
    tally = _tally(attacker, defender, opts)
    models = defender.models + (1 if defender.hero else 0)
    engine = "exact" if tally.trials == 0 else "monte-carlo"
    result = Result(engine, tally, models, None if engine == "exact" else opts["seed"], label="Grimdark Future")
    due = result.shielded_after  # the Tally's second flag holds "morale test due" for this system
    fails = morale_fail_probability(tally, defender.quality)
    out = {
        "engine": engine,
        "trials": result.trials or None,
        "seed": result.seed,
        "wounds": {
            "pmf": _trim(result.damage.pmf).tolist(),
            "mean": result.damage.mean,
            "stderr": result.damage.stderr,
        },
        "models_destroyed": {
            "pmf": result.models_destroyed.pmf.tolist(),
            "mean": result.models_destroyed.mean,
            "stderr": result.models_destroyed.stderr,
        },
        "unit_destroyed": {"p": result.unit_destroyed, "stderr": result.unit_destroyed_stderr},
        "morale_test_due": {"p": due},
    }
    tail = [
        f"P(morale test due): {due:.4f}",
        f"P(morale test failed, Quality {defender.quality}+): {fails:.4f}",
    ]
    return out, result.text_report("Wounds", tail), notes


SYSTEM = GameSystem(
    name="grimdark",
    aliases=("grimdark-future", "gf", "opr", "onepagerules"),
    title="One Page Rules: Grimdark Future",
    adhoc_flags=FLAGS,
    run_adhoc=run_adhoc,
)
register(SYSTEM)
