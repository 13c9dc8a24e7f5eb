"""StarCraft TMG's roster: unit, faction, tactical and creep cards from TOML (``docs/profiles.md``).

Built-in cards ship in ``profiles/starcraft``; a user folder given with
``--profiles DIR`` or the ``MATHHAMMER_PROFILES`` environment variable extends
them, and a unit or card of the same name replaces the built-in one. Every
problem in every file is reported at once, one line each
(:mod:`mathhammer.profiles`, the generic loader, with this system's schema):

    terran.toml: units.Marine.weapons[0].hit: got 9; allowed: Input should be less than or equal to 6
    terran.toml: units.Marine.wepons: unknown key (did you mean 'weapons'?)

>>> roster = load_roster()
>>> roster.unit("marine").card.hp
2
>>> roster
<Roster 26 StarCraft TMG units, ...>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..profiles import cache
from ..profiles.loader import ENV_VAR, ProfileError, builtin_dir, load_folders, lookup, parse, toml_files, user_dirs
from ..validate import read_toml

if TYPE_CHECKING:  # pragma: no cover
    from .schema import FactionCard, ProfileFile, TacticalCard, UnitCard


def _all_field_names() -> list[str]:
    from . import schema

    names: set[str] = set()
    for obj in vars(schema).values():
        if isinstance(obj, type) and hasattr(obj, "model_fields"):
            names.update(obj.model_fields)
    return sorted(names)


def load_file(path: Path) -> ProfileFile:
    """Read and validate one TOML file; raises :class:`ProfileError` with every problem."""
    from .schema import ProfileFile

    data, problem = read_toml(path, "TOML profiles (docs/profiles.md)")
    if data is None:
        raise ProfileError([problem])
    return parse(path.name, data, ProfileFile, _all_field_names())


@dataclass(frozen=True, repr=False)
class Unit:
    """A unit card with its name, race (file) and source."""

    name: str
    race: str
    card: UnitCard
    source: str

    def __repr__(self) -> str:
        c = self.card
        return f"<Unit {self.name} ({self.race}, {c.army_slot}): HP {c.hp}, Armour {c.armour}, Evade {c.evade}>"


@dataclass(frozen=True, repr=False)
class Roster:
    """Every loaded unit, faction, tactical and creep card, by name."""

    units: dict[str, Unit] = field(default_factory=dict)
    factions: dict[str, FactionCard] = field(default_factory=dict)
    tactical: dict[str, TacticalCard] = field(default_factory=dict)
    creep: dict[str, TacticalCard] = field(default_factory=dict)
    files: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"<Roster {len(self.units)} StarCraft TMG units, {len(self.factions)} faction, "
            f"{len(self.tactical)} tactical and {len(self.creep)} creep cards from {len(self.files)} files>"
        )

    def unit(self, name: str, field_name: str = "unit") -> Unit:
        """Find a unit by name, case-insensitively; ``"Raptor"`` finds ``"Raptor (Zergling)"``.

        Raises:
            InputError: no such unit (with the closest names).
        """
        return lookup(self.units, name, field_name, "a unit of the roster (mathhammer profiles list)")

    def card(self, name: str, field_name: str = "card") -> FactionCard | TacticalCard:
        pool: dict[str, FactionCard | TacticalCard] = {**self.factions, **self.tactical, **self.creep}
        return lookup(pool, name, field_name, "a faction, tactical or creep card (mathhammer profiles list)")


#: The modules whose code turns profile files into a :class:`Roster`: a change to any of them is a new cache key.
_CODE = (
    __name__,
    "mathhammer.starcraft.schema",
    "mathhammer.starcraft.keywords",
    "mathhammer.profiles.loader",
    "mathhammer.validate",
    "mathhammer.dice",
)

_SKIP = ("scenarios", "armies")


def load_roster(extra: Sequence[str | Path] = (), builtin: bool = True, plain: bool = False) -> Roster:
    """Load the built-in profiles and the user's folders into one :class:`Roster`.

    A roster once validated is kept in the cache (:mod:`mathhammer.profiles.cache`), keyed by the bytes of
    every file it was read from and of the code that reads them: the next call with the same files reads
    it back instead of validating them again.

    ``plain``: the cards as plain frozen values (:mod:`mathhammer.starcraft.cards`: the same fields, values,
    equality and ``model_dump``/``model_copy``), kept in the cache beside the validated ones, so that a
    command that only reads cards (attack, compare, matchup, profiles, army validate) loads no pydantic on a
    cache hit; the default: the schema's pydantic models (for code that validates or builds cards).

    Raises:
        ProfileError: every problem of every file, one line each.
    """
    folders = ([builtin_dir() / "starcraft"] if builtin else []) + user_dirs(extra)
    missing = f"no such folder (--profiles / {ENV_VAR})"
    try:
        files = [path for folder in folders for path in toml_files(folder, missing, _SKIP)]
    except ProfileError:  # a folder missing, or too big: read below, which reports every problem
        checked = _validated(folders, missing)
        return as_plain(checked) if plain else checked
    names = [str(p) for p in files]
    if plain:  # (the validated roster's key is made only on a miss: each key reads and hashes every file)
        plain_digest = cache.key("sc-plain-roster", files, (*_CODE, "mathhammer.starcraft.cards"))
        kept = cache.load(plain_digest)
        if isinstance(kept, Roster) and list(kept.files) == names:
            return kept
    digest = cache.key("sc-roster", files, _CODE)
    kept = cache.load(digest)
    if isinstance(kept, Roster) and list(kept.files) == names:
        roster = kept
    else:
        roster = _validated(folders, missing)
        cache.store(digest, roster)
    if not plain:
        return roster
    plain_roster = as_plain(roster)
    cache.store(plain_digest, plain_roster)
    return plain_roster


def as_plain(roster: Roster) -> Roster:
    """``roster`` with every card a plain frozen value (:func:`mathhammer.starcraft.cards.plain`)."""
    from .cards import plain

    units = {name: Unit(u.name, u.race, plain(u.card), u.source) for name, u in roster.units.items()}
    return Roster(units, plain(roster.factions), plain(roster.tactical), plain(roster.creep), roster.files)


def _validated(folders: Sequence[Path], missing: str) -> Roster:
    """The roster of ``folders``, every file read and validated."""
    units: dict[str, Unit] = {}
    factions: dict[str, FactionCard] = {}
    tactical: dict[str, TacticalCard] = {}
    creep: dict[str, TacticalCard] = {}
    files: list[str] = []
    for path, pf in load_folders(folders, load_file, missing, skip=_SKIP):
        files.append(str(path))
        src = f"{pf.source.document} ({pf.source.version})"
        for name, card in pf.units.items():
            source = f"{src}, {card.source}" if card.source else src
            units[name] = Unit(name, path.stem, card, source)
        factions.update(pf.factions)
        tactical.update(pf.tactical)
        creep.update(pf.creep)
    return Roster(units, factions, tactical, creep, tuple(files))


def validate_dir(folder: str | Path) -> list[str]:
    """Check a user's folder; returns the problems (empty when all is well)."""
    try:
        load_roster([folder], builtin=False)
    except ProfileError as exc:
        return exc.problems
    return []
