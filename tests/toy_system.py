"""Coin Duel: a toy third game system, proof that a system is one module and one registration.

The whole game: each attacking model flips its ``coins``; every heads is one wound on the target unit,
whose models have ``tough`` wounds each and are wounded one at a time, so ``heads // tough`` of them fall
(at most the unit). A weighted coin (the ``weighted`` option) comes up heads 2 times in 3.

It implements all of :class:`mathhammer.systems.GameSystem` in its own words (heads, models fallen,
wiped out, crowns) with nothing of StarCraft's or Grimdark's, and registers nothing by itself:
``tests/test_architecture.py`` calls ``systems.register(SYSTEM)`` and unregisters it after.

Unit files (``--profiles DIR``) are TOML::

    [units.Pikemen]
    models = 6
    coins = 1
    tough = 1
    crowns = 30
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mathhammer.cells import Cell, Plan, Side
from mathhammer.engine.adaptive import until
from mathhammer.engine.options import MIN_TRIALS, RunOptions
from mathhammer.errors import InputError
from mathhammer.outcome import Outcome, Tally
from mathhammer.profiles import ProfileError, load_folders, lookup, parse, toml_files
from mathhammer.results import Result
from mathhammer.systems import Option, Query, ReportFigures, Words, check_options, run
from mathhammer.validate import read_toml, whole

#: What a duel reports.
OUTCOMES = (
    Outcome("heads", "Heads", "table", "heads", unit="coins"),
    Outcome("fallen", "Models fallen", "table", "fallen", unit="models"),
    Outcome("wiped_out", "P(wiped out)", "last", "fallen"),
    Outcome("all_heads", "P(every coin heads)", "flag", "all_heads"),
)

OPTIONS = {"weighted": Option("weighted", "the attacker's coins are weighted: heads 2 times in 3")}
ADHOC_PARAMS = frozenset({"models", "coins", "weighted", "target_models", "target_tough"})
PHASES = {"duel": "The duel"}


@dataclass(frozen=True)
class Duelist:
    """A Coin Duel unit: ``models`` models of ``coins`` coins and ``tough`` wounds each, costing ``crowns``."""

    name: str
    models: int
    coins: int
    tough: int
    crowns: int
    source: str = "built-in"


#: The built-in roster.
DUELISTS = {
    u.name: u
    for u in (
        Duelist("Archers", models=5, coins=2, tough=1, crowns=50),
        Duelist("Brutes", models=3, coins=1, tough=3, crowns=45),
        Duelist("Champion", models=1, coins=4, tough=5, crowns=60),
    )
}


class _UnitSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    models: int = Field(ge=1, le=99)
    coins: int = Field(ge=1, le=20)
    tough: int = Field(ge=1, le=20)
    crowns: int = Field(ge=0, le=10_000)


class _UnitFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    units: dict[str, _UnitSpec]


def _load_file(path: Path) -> dict[str, Duelist]:
    data, problem = read_toml(path, "Coin Duel units ([units.NAME] models, coins, tough, crowns)")
    if data is None:
        raise ProfileError([problem])
    parsed = parse(path.name, data, _UnitFile, ["units", "models", "coins", "tough", "crowns"])
    return {n: Duelist(n, s.models, s.coins, s.tough, s.crowns, path.name) for n, s in parsed.units.items()}


# --- the attack, compiled, and its two engines ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CoinAttack:
    """``coins`` coins flipped at ``models`` models of ``tough`` wounds each; heads with probability ``p``."""

    coins: int
    p: Fraction
    tough: int
    models: int
    label: str = "Coin Duel"
    notes: tuple[str, ...] = ()
    loadout: dict[str, Any] = field(default_factory=dict)
    head: str = ""


@dataclass(frozen=True)
class Coins:
    """Ad-hoc attackers for ``mh.run``: ``models`` models flipping ``coins`` each."""

    models: int
    coins: int
    weighted: bool = False


@dataclass(frozen=True)
class Defenders:
    """An ad-hoc target for ``mh.run``: ``models`` models of ``tough`` wounds each."""

    models: int
    tough: int = 1


def exact_tally(attack: CoinAttack) -> Tally:
    """The binomial pmf of heads, and what it fells."""
    n, p = attack.coins, float(attack.p)
    heads = np.array([math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])
    fallen = np.zeros(attack.models + 1)
    np.add.at(fallen, np.minimum(np.arange(n + 1) // attack.tough, attack.models), heads)
    return Tally(heads=heads, fallen=fallen, all_heads=np.array([1 - heads[n], heads[n]]))


def simulate_tally(attack: CoinAttack, trials: int, seed: int) -> Tally:
    """``trials`` duels with numpy's generator seeded by ``seed``: counts of each outcome."""
    rng = np.random.default_rng(seed)
    heads = rng.binomial(attack.coins, float(attack.p), size=trials)
    fallen = np.minimum(heads // attack.tough, attack.models)
    return Tally(
        trials,
        heads=np.bincount(heads, minlength=attack.coins + 1),
        fallen=np.bincount(fallen, minlength=attack.models + 1),
        all_heads=np.bincount((heads == attack.coins).astype(np.int64), minlength=2),
    )


@dataclass(frozen=True)
class CoinLoadout:
    unit: Duelist
    models: int

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def label(self) -> str:
        return f"{self.models} {self.unit.name}"

    @property
    def crowns(self) -> int:
        """The unit's cost for the models fielded."""
        return round(self.unit.crowns * self.models / self.unit.models)

    def __repr__(self) -> str:
        return f"<Loadout {self.label}, {self.crowns} crowns>"


def _unit_row(u: Duelist) -> dict[str, Any]:
    return {
        "name": u.name,
        "models": u.models,
        "coins": u.coins,
        "tough": u.tough,
        "crowns": u.crowns,
        "source": u.source,
    }


class CoinDuel:
    """Coin Duel (see the module docstring)."""

    name = "coin"
    aliases: tuple[str, ...] = ("coin-duel", "coins")
    title = "Coin Duel"
    outcomes: tuple[Outcome, ...] = OUTCOMES
    words = Words(cost="crowns", dealt="heads", slot=None, phases=PHASES)
    report_figures = ReportFigures(
        headline="heads_per_100", phases={"assault": "duel", "combat": "no second duel"}, distance="distance",
        phases_note="one duel a pair",
    )  # fmt: skip
    options: Mapping[str, Option] = OPTIONS
    adhoc_params: frozenset[str] = ADHOC_PARAMS
    unit_filters: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return f"<GameSystem {self.name}: {self.title}>"

    # --- units ------------------------------------------------------------------------------------------

    def load_roster(self, profiles: Sequence[str | Path] = ()) -> dict[str, Duelist]:
        roster = dict(DUELISTS)
        for _, found in load_folders([Path(p) for p in profiles], _load_file, "no such file or folder"):
            roster.update(found)
        return roster

    def find_unit(self, roster: Any, name: str, field: str = "unit") -> Duelist:
        found: Duelist = lookup(roster, name, field, "a Coin Duel unit")
        return found

    def unit_names(self, roster: Any) -> list[str]:
        return sorted(roster)

    def loadout(
        self,
        roster: Any,
        name: str,
        models: int | None = None,
        upgrades: Sequence[str] = (),
        use: Sequence[str] = (),
        field: str = "unit",
    ) -> CoinLoadout:
        if upgrades:
            raise InputError("upgrades", next(iter(upgrades)), "none (Coin Duel units have no upgrades)")
        if use:
            raise InputError("use", next(iter(use)), "none (Coin Duel units have no abilities)")
        unit = self.find_unit(roster, name, field)
        n = unit.models if models is None else whole("models", models, 1, unit.models, f"models of {unit.name}")
        return CoinLoadout(unit, n)

    # --- attacks ----------------------------------------------------------------------------------------

    def compile(self, roster: Any, query: Query) -> CoinAttack:
        check_options(self.options, query.options, self.title)
        for key in ("upgrades", "use", "target_upgrades", "target_use"):
            if getattr(query, key):
                raise InputError(key, getattr(query, key)[0], "none (Coin Duel units have no upgrades or abilities)")
        if query.phase is not None and query.phase not in PHASES:
            raise InputError("phase", query.phase, "duel (the only phase of Coin Duel)")
        if query.distance is not None:
            raise InputError("distance", query.distance, "none (Coin Duel has no range)")
        a = self.loadout(roster, query.attacker, query.models, field="attacker")
        t = self.find_unit(roster, query.target, "target")
        left = (
            t.models
            if query.target_models is None
            else whole("target_models", query.target_models, 1, t.models, f"models of {t.name}")
        )
        p = Fraction(2, 3) if query.options.get("weighted") else Fraction(1, 2)
        loadout = {
            "attacker": {"unit": a.name, "models": a.models, "crowns": a.crowns},
            "target": {"unit": t.name, "models": left, "crowns": t.crowns},
        }
        head = f"{a.label} ({a.models * a.unit.coins} coins) vs {left} {t.name} (tough {t.tough})"
        return CoinAttack(a.models * a.unit.coins, p, t.tough, left, f"{a.name} vs {t.name}", (), loadout, head)

    def adhoc(self, params: Mapping[str, Any]) -> CoinAttack:
        unknown = sorted(set(params) - ADHOC_PARAMS)
        if unknown:
            raise InputError(
                unknown[0], params[unknown[0]], "a Coin Duel parameter: " + ", ".join(sorted(ADHOC_PARAMS))
            )
        models = whole("models", params.get("models", 1), 1, 99, "attacking models")
        coins = whole("coins", params.get("coins", 1), 1, 20, "coins per model")
        target = Defenders(
            whole("target_models", params.get("target_models", 1), 1, 99, "target models"),
            whole("target_tough", params.get("target_tough", 1), 1, 20, "wounds per target model"),
        )
        attack = self.wrap(Coins(models, coins, bool(params.get("weighted", False))), target)
        assert attack is not None
        return attack

    def wrap(self, attack: Any, target: Any = None, label: str | None = None) -> CoinAttack | None:
        if isinstance(attack, CoinAttack):
            return attack
        if not isinstance(attack, Coins):
            return None
        if not isinstance(target, Defenders):
            raise InputError("target", target, "Coin Duel Defenders for Coins")
        p = Fraction(2, 3) if attack.weighted else Fraction(1, 2)
        return CoinAttack(attack.models * attack.coins, p, target.tough, target.models, label or "Coin Duel")

    def exact(self, compiled: Any) -> Tally:
        return exact_tally(compiled)

    def simulate(self, compiled: Any, options: RunOptions, watch: str = "both") -> Tally:
        def run_to(n: int) -> Tally:
            return simulate_tally(compiled, n, options.seed)

        if options.tolerance is None:
            assert options.trials is not None
            return run_to(options.trials)

        def watched(tally: Tally) -> float:
            r = Result("monte-carlo", tally, compiled.models, options.seed, "", OUTCOMES, self.name)
            se = {"dealt": r.heads.stderr, "p_destroy": r.wiped_out_stderr}
            return max(se.values()) if watch == "both" else se[watch]

        return until(run_to, watched, options.tolerance, MIN_TRIALS, MIN_TRIALS * 2**6)

    def render(self, compiled: Any, result: Result) -> str:
        text = result.text_report()
        return compiled.head + "\n" + text if compiled.head else text

    # --- sweeps -----------------------------------------------------------------------------------------

    def _row(self, attack: CoinAttack, r: Result, crowns: int) -> dict[str, Any]:
        per = 100.0 / crowns if crowns else float("nan")
        row = {
            "engine": r.engine,
            "trials": r.trials,
            "heads_mean": r.heads.mean,
            "heads_se": r.heads.stderr,
            "destroyed_mean": r.fallen.mean,
            "destroyed_se": r.fallen.stderr,
            "p_destroy": r.wiped_out,
            "p_destroy_se": r.wiped_out_stderr,
            "heads_per_100": r.heads.mean * per,
            "kills_per_100": r.fallen.mean * per,
        }
        for k in range(1, attack.models + 1):
            row[f"p_ge_{k}"] = r.fallen.at_least(k)
        return row

    def compare(
        self,
        roster: Any,
        unit: str,
        targets: Sequence[str],
        query: Query,
        options: RunOptions,
        compositions: Sequence[int] = (),
        upgrade_pool: Sequence[str] | None = None,
        rank_by: str = "kills-per-100",
    ) -> list[dict[str, Any]]:
        """Every size of ``unit`` (``compositions``, else the full unit) against each target."""
        keys = {"kills-per-100": "kills_per_100", "heads-per-100": "heads_per_100", "p-destroy": "p_destroy"}
        if rank_by not in keys:
            raise InputError("rank_by", rank_by, ", ".join(keys))
        if upgrade_pool:
            raise InputError("upgrades", upgrade_pool[0], "none (Coin Duel units have no upgrades)")
        base = self.find_unit(roster, unit, "unit")
        rows: list[dict[str, Any]] = []
        for name in targets:
            target, _, left = name.partition(":")
            block = []
            for size in compositions or [base.models]:
                q = Query(unit, target.strip(), size, int(left) if left else None, options=query.options)
                attack = self.compile(roster, q)
                r = run(self, attack, options, attack.label, watch="p_destroy")
                crowns = self.loadout(roster, unit, size).crowns
                block.append(
                    {
                        "unit": base.name,
                        "models": size,
                        "upgrades": "-",
                        "use": "-",
                        "crowns": crowns,
                        "target": f"{attack.models} {attack.loadout['target']['unit']}",
                        "phase": "duel",
                        **self._row(attack, r, crowns),
                    }
                )
            block.sort(key=lambda row: -row[keys[rank_by]])
            rows.extend({**row, "rank": i + 1} for i, row in enumerate(block))
        return rows

    def matchup(self, roster: Any, query: Query, options: RunOptions) -> list[dict[str, Any]]:
        """Both directions, full units."""
        check_options(self.options, query.options, self.title)
        rows = []
        a = self.loadout(roster, query.attacker.split(":")[0].strip(), field="a")
        b = self.loadout(roster, query.target.split(":")[0].strip(), field="b")
        for att, dfn in ((a, b), (b, a)):
            attack = self.compile(roster, Query(att.name, dfn.name, options=query.options))
            r = run(self, attack, options, att.name)
            rows.append(
                {
                    "attacker": att.label,
                    "target": dfn.label,
                    "phase": "duel",
                    "batches": 1,
                    **self._row(attack, r, att.crowns),
                }
            )
        return rows

    # --- profiles ---------------------------------------------------------------------------------------

    def report_plan(
        self, armies: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
    ) -> Plan:
        """Every duelist of the roster against every other: one duel (the report's ranged phase) a pair."""
        if armies or not roster:
            raise InputError("armies", list(armies), "none: Coin Duel reports its roster only")
        units = self.load_roster(profiles)
        cells = []
        for a in units.values():
            for t in units.values():
                sides = [Side(f"{u.models} {u.name}", u.name, u.models, "-", u.crowns) for u in (a, t)]
                attack = self.compile(units, Query(a.name, t.name))
                for phase in ("assault", "combat"):
                    key = f"coin|{phase}|{a.name}|{t.name}"
                    live = attack if phase == "assault" else None
                    cells.append(Cell(key, self.name, "roster", phase, *sides, live, int(live is not None)))
        return Plan(self.name, "roster", cells, ["roster"], [])

    def describe_units(self, roster: Any, filters: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], str]:
        for key, value in (filters or {}).items():
            raise InputError(key, value, "no filter with Coin Duel")
        rows = [_unit_row(u) for _, u in sorted(roster.items())]
        lines = [f"{'unit':<20} {'models':>6} {'coins':>5} {'tough':>5} {'crowns':>6}"]
        lines += [f"{r['name']:<20} {r['models']:>6} {r['coins']:>5} {r['tough']:>5} {r['crowns']:>6}" for r in rows]
        return rows, "\n".join(lines)

    def describe_unit(self, roster: Any, name: str) -> tuple[dict[str, Any], str]:
        u = self.find_unit(roster, name, "NAME")
        text = f"{u.name}: {u.models} models, {u.coins} coins and {u.tough} wounds each, {u.crowns} crowns"
        return _unit_row(u), text

    def validate_dir(self, folder: str | Path) -> str:
        found = load_folders([Path(folder)], _load_file, "no such file or folder")
        units = sum(len(units) for _, units in found)
        return f"ok: {len(toml_files(Path(folder), 'no such file or folder'))} files, {units} units"


SYSTEM = CoinDuel()
