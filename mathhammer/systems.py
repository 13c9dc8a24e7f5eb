"""The game-system contract: what every system provides, and the registry that finds one by name.

A game system is one package (``mathhammer/starcraft/``, ``mathhammer/grimdark/``)
that provides a :class:`GameSystem`: its roster, loadouts and situations, the
compiled attack both engines read, its exact and Monte Carlo engines, and the
outcomes it reports, in its own words. The command line, the report and
``import mathhammer as mh`` work through this contract only; they know no
game's words. A third system is one more package and one :func:`register` call
(or a line of :data:`BUILTIN`).

>>> get("sc").name, get("Grimdark").name
('starcraft', 'grimdark')
>>> get("starcarft")
Traceback (most recent call last):
...
mathhammer.errors.InputError: system: got 'starcarft'; allowed: ... (did you mean 'starcraft'?)
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from .errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from .cells import Plan
    from .engine.options import RunOptions
    from .outcome import Outcome, Tally
    from .results import Result

S = TypeVar("S", bound="GameSystem")

#: The systems that ship with mathhammer: name -> the module whose ``SYSTEM`` is registered on first use.
BUILTIN: dict[str, str] = {
    "starcraft": "mathhammer.starcraft.system",
    "grimdark": "mathhammer.grimdark.system",
}

#: Every name and alias of the built-in systems, by the :data:`BUILTIN` system it names: ``get("sc")`` imports
#: StarCraft TMG alone, not every system (a test checks this against the systems' own aliases).
BUILTIN_NAMES: dict[str, str] = {
    **dict.fromkeys(("starcraft", "sc", "sctmg", "starcraft-tmg", "tmg"), "starcraft"),
    **dict.fromkeys(("grimdark", "grimdark-future", "gf", "opr", "onepagerules"), "grimdark"),
}


@dataclass(frozen=True, eq=False)
class Words:
    """How a system names the things every report shows.

    Attributes:
        cost: the unit of a unit's cost (``minerals``, ``points``).
        dealt: what an attack deals, for column headings (``damage``, ``wounds``).
        slot: a unit's slot in an army, when the system has one (``Supply``), else None.
        phases: the system's phases by key, in its words (``assault`` -> ``Assault Phase (ranged)``).
    """

    cost: str
    dealt: str
    slot: str | None
    phases: Mapping[str, str]


@dataclass(frozen=True, eq=False)
class ReportFigures:
    """What the army-efficiency report (``mathhammer report``) says in a system's words, beyond :class:`Words`.

    The report's columns come from :class:`Words`: ``<dealt>_mean`` (``damage_mean``, ``wounds_mean``),
    figures per 100 of the cost, and, when the system has a slot (``Words.slot``), the slot removed
    (``supply_removed_mean``) and figures per slot (``damage_per_supply``).

    Attributes:
        headline: the column a report ranks by (``supply_removed_per_100``, ``wounds_per_100``).
        phases: the report's two phases, ``assault`` (ranged) and ``combat`` (close), as its tables name them.
        distance: how the settings name the distance of the ranged phase (``Assault Phase distance``).
        phases_note: how the page's introduction names the two phases.
        slot_removed: how the slot removed is reckoned (when the system has a slot).
    """

    headline: str
    phases: Mapping[str, str]
    distance: str
    phases_note: str
    slot_removed: str = ""


@dataclass(frozen=True, eq=False)
class Option:
    """A situation switch of an attack that a system understands (``cover``, ``evade_eligible``).

    Attributes:
        name: the keyword argument (``mh.attack(..., cover=True)``).
        help: what it means, in the system's words.
        kind: ``bool``, ``int``, ``float`` or ``str``.
    """

    name: str
    help: str
    kind: str = "bool"


@dataclass(frozen=True)
class Query:
    """One named attack, in neutral terms: who attacks whom, how they are bought, and the situation.

    Attributes:
        attacker, target: unit names (the system finds them, with "did you mean").
        models, target_models: models bought (a composition); None: the unit's default.
        upgrades, use, target_upgrades, target_use: upgrades bought and abilities switched on.
        phase: a key of the system's :attr:`Words.phases`; None: its first.
        distance: inches between the units; None: in range.
        options: the system's situation switches (:attr:`GameSystem.options`), by name.
    """

    attacker: str
    target: str
    models: int | None = None
    target_models: int | None = None
    upgrades: tuple[str, ...] = ()
    use: tuple[str, ...] = ()
    target_upgrades: tuple[str, ...] = ()
    target_use: tuple[str, ...] = ()
    phase: str | None = None
    distance: float | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Compiled(Protocol):
    """An attack as a system compiled it: what both of its engines read."""

    @property
    def models(self) -> int:
        """Models of the target at the start (a joined hero counted)."""
        ...

    @property
    def label(self) -> str: ...

    @property
    def notes(self) -> tuple[str, ...]:
        """What the user should know about how the attack was read (rules without effect, ranges)."""
        ...


@runtime_checkable
class GameSystem(Protocol):
    """The contract of a game system (see the module docstring).

    Attributes:
        name: the canonical name (``starcraft``); aliases: other names accepted.
        title: the game's full name.
        outcomes: what an attack reports (:class:`~mathhammer.outcome.Outcome`), in order.
        words: how reports name costs, phases and what is dealt.
        report_figures: what the army-efficiency report ranks by and says, beyond ``words``.
        options: the situation switches :meth:`compile` accepts, by name.
        adhoc_params: the parameters :meth:`adhoc` accepts.
        unit_filters: the filters :meth:`describe_units` accepts (StarCraft's ``race``).
    """

    name: str
    aliases: tuple[str, ...]
    title: str
    outcomes: tuple[Outcome, ...]
    words: Words
    report_figures: ReportFigures
    options: Mapping[str, Option]
    adhoc_params: frozenset[str]
    unit_filters: frozenset[str]

    def load_roster(self, profiles: Sequence[str | Path] = ()) -> Any:
        """The built-in units and those of the ``profiles`` folders (a later one replaces a built-in)."""
        ...

    def find_unit(self, roster: Any, name: str, field: str = "unit") -> Any:
        """A unit by name, case-insensitively; an :class:`InputError` naming ``field`` with the closest names."""
        ...

    def unit_names(self, roster: Any) -> list[str]: ...

    def loadout(
        self,
        roster: Any,
        name: str,
        models: int | None = None,
        upgrades: Sequence[str] = (),
        use: Sequence[str] = (),
        field: str = "unit",
    ) -> Any:
        """A unit as bought: its models, upgrades and abilities switched on; a one-line ``repr``."""
        ...

    def compile(self, roster: Any, query: Query) -> Compiled:
        """The attack ``query`` describes, compiled; unknown options are refused by name."""
        ...

    def exact(self, compiled: Compiled) -> Tally: ...

    def simulate(self, compiled: Compiled, options: RunOptions, watch: str = "both") -> Tally:
        """Monte Carlo with ``options.trials`` trials, or until the standard errors watched are at most
        ``options.tolerance`` (``watch``: ``both`` the mean dealt and P(unit destroyed), ``p_destroy``
        or ``dealt`` one of them), seeded by ``options.seed``."""
        ...

    def wrap(self, attack: Any, target: Any = None, label: str | None = None) -> Compiled | None:
        """The system's own ad-hoc objects (``mh.run(Batch(...), Target(...))``) as an attack; None when
        they belong to another system."""
        ...

    def adhoc(self, params: Mapping[str, Any]) -> Compiled:
        """An attack from raw ad-hoc values by parameter name (``roa``, ``quality``); errors name the parameter."""
        ...

    def render(self, compiled: Compiled, result: Result) -> str:
        """The text of ``mathhammer attack``: what was attacked, then the result."""
        ...

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
        """Every loadout of ``unit`` against each target (``NAME[:MODELS]``): one row per (loadout, target),
        ranked per target; a system without compositions or upgrades refuses them.

        A row holds ``unit, models, upgrades, use, target, phase, engine, trials, rank``, the cost under
        ``words.cost``, ``<dealt>_mean``, ``<dealt>_se`` and ``<dealt>_per_100`` (``dealt`` from
        :attr:`words`), ``destroyed_mean``, ``destroyed_se``, ``p_destroy``, ``p_destroy_se``,
        ``kills_per_100`` and ``p_ge_<k>`` (P(at least k models destroyed)) for k = 1 .. the target's models."""
        ...

    def matchup(self, roster: Any, query: Query, options: RunOptions) -> list[dict[str, Any]]:
        """Both directions (``query.attacker`` and ``query.target``), every phase: one row each, holding
        ``attacker, target, phase, batches`` (the attacks resolved; 0: no weapon, and no figures) and
        ``<dealt>_mean``, ``<dealt>_se``, ``destroyed_mean``, ``destroyed_se``, ``p_destroy``, ``p_destroy_se``."""
        ...

    def report_plan(
        self, armies: Sequence[str | Path], roster: bool, profiles: Sequence[str | Path], distance: float | None
    ) -> Plan:
        """The cells of ``mathhammer report``: every unit of one army against every unit of the other
        (``armies``: two of the system's army files), both directions, or every unit of the roster against
        every unit (``roster``); each in the ranged phase (``distance`` inches apart, None: in range) and in
        close combat. A cell holds the compiled attack (None when the attacker has no weapon for it) and
        the Sides in the system's words; a file of another system is refused with one line naming it."""
        ...

    def describe_units(self, roster: Any, filters: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], str]:
        """``profiles list``: a row per unit, and the text table; ``filters`` the system knows (StarCraft's
        ``race``), others refused."""
        ...

    def describe_unit(self, roster: Any, name: str) -> tuple[dict[str, Any], str]:
        """``profiles show NAME``: one unit in full, as data and text."""
        ...

    def validate_dir(self, folder: str | Path) -> str:
        """``profiles validate DIR``: a one-line summary of the system's files in ``folder``; a
        :class:`~mathhammer.profiles.ProfileError` with every problem, one line each."""
        ...


def run(
    system: GameSystem, compiled: Compiled, options: RunOptions, label: str | None = None, watch: str = "both"
) -> Result:
    """Run a compiled attack with either engine; the Result in the system's words."""
    from .engine.options import use_threads
    from .results import Result

    use_threads(options)
    tally = system.exact(compiled) if options.exact else system.simulate(compiled, options, watch)
    seed = None if options.exact else options.seed
    engine = "exact" if options.exact else "monte-carlo"
    return Result(engine, tally, compiled.models, seed, label or compiled.label, system.outcomes, system.name)


def check_options(known: Mapping[str, Option], given: Mapping[str, Any], title: str) -> None:
    """Refuse a situation switch that a system (``title``, whose options are ``known``) does not use,
    naming it and the ones it does."""
    for name, value in given.items():
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"did you mean {close[0]!r}?" if close else ""
            raise InputError(name, value, f"not a {title} option; its options: {', '.join(known) or 'none'}", hint)


_REGISTRY: dict[str, GameSystem] = {}


def register(system: S) -> S:
    """Add a system under its name and aliases (which must be new); returns it."""
    keys = [k.lower() for k in (system.name, *system.aliases)]
    for key in keys:
        if key in _REGISTRY:
            raise ValueError(f"system name {key!r} is taken by {_REGISTRY[key].name!r}")
    for key in keys:
        _REGISTRY[key] = system
    return system


def unregister(name: str) -> None:
    """Remove a system and its aliases (for tests of toy systems)."""
    system = _REGISTRY.get(name.lower())
    for key in [k for k, v in _REGISTRY.items() if v is system]:
        del _REGISTRY[key]


def _load_builtin() -> None:
    for module in BUILTIN.values():
        importlib.import_module(module)


def names() -> list[str]:
    """Canonical names of the registered systems."""
    _load_builtin()
    return sorted({s.name for s in _REGISTRY.values()})


def get(name: str | GameSystem, field: str = "system") -> GameSystem:
    """Find a system by name or alias, case-insensitively; a system passes through."""
    if not isinstance(name, str):
        return name
    key = name.strip().lower()
    if key not in _REGISTRY and key in BUILTIN_NAMES:  # the one built-in system asked for
        importlib.import_module(BUILTIN[BUILTIN_NAMES[key]])
    if key not in _REGISTRY:  # every system, for the list of those allowed
        _load_builtin()
    system = _REGISTRY.get(key)
    if system is None:
        unique = {id(s): s for s in _REGISTRY.values()}.values()
        allowed = ", ".join(f"{s.name} ({', '.join(s.aliases)})" for s in unique)
        close = difflib.get_close_matches(name.lower(), list(_REGISTRY), n=1)
        raise InputError(field, name, allowed, f"did you mean {_REGISTRY[close[0]].name!r}?" if close else "")
    return system
