"""Load and validate profile files: built-ins, then the user's folders.

Every problem in every file is collected and reported at once, one line each:

    terran.toml: units.Marine.weapons[0].hit: got 9; allowed: Input should be less than or equal to 6
    terran.toml: units.Marine.wepons: unknown key (did you mean 'weapons'?)

Built-in profiles ship inside the package (``mathhammer/builtin_profiles``,
mapped from the repository's ``profiles/`` folder). A user folder given with
``--profiles DIR`` or the ``MATHHAMMER_PROFILES`` environment variable (paths
separated by ``os.pathsep``) extends them; a unit or card of the same name
replaces the built-in one.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, MathhammerError
from ..validate import read_toml, validation_problems
from .schema import FactionCard, ProfileFile, TacticalCard, UnitCard

ENV_VAR = "MATHHAMMER_PROFILES"


class ProfileError(MathhammerError):
    """One or more problems in profile files; ``problems`` holds one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def builtin_dir() -> Path:
    """The folder of the built-in profiles.

    An installed package carries them as ``mathhammer/builtin_profiles`` (the
    repository's ``profiles/``, mapped by pyproject.toml); a source checkout or
    an editable install reads the repository's ``profiles/`` itself.
    """
    installed = Path(__file__).resolve().parents[1] / "builtin_profiles"
    if (installed / "starcraft").is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "profiles"


def _all_field_names() -> set[str]:
    from . import schema

    names: set[str] = set()
    for obj in vars(schema).values():
        if isinstance(obj, type) and hasattr(obj, "model_fields"):
            names.update(obj.model_fields)
    return names


def load_file(path: Path) -> ProfileFile:
    """Read and validate one TOML file; raises :class:`ProfileError` with every problem."""
    from pydantic import ValidationError

    name = path.name
    data, problem = read_toml(path, "TOML profiles (profiles/README.md)")
    if data is None:
        raise ProfileError([problem])
    try:
        return ProfileFile.model_validate(data)
    except ValidationError as exc:
        raise ProfileError(validation_problems(name, exc, sorted(_all_field_names()))) from None


@dataclass(frozen=True)
class Unit:
    """A unit card with its name, race (file) and source."""

    name: str
    race: str
    card: UnitCard
    source: str


@dataclass(frozen=True)
class Roster:
    """Every loaded unit, faction, tactical and creep card, by name."""

    units: dict[str, Unit] = field(default_factory=dict)
    factions: dict[str, FactionCard] = field(default_factory=dict)
    tactical: dict[str, TacticalCard] = field(default_factory=dict)
    creep: dict[str, TacticalCard] = field(default_factory=dict)
    files: tuple[str, ...] = ()

    def unit(self, name: str, field_name: str = "unit") -> Unit:
        """Find a unit by name, case-insensitively; ``"Raptor"`` finds ``"Raptor (Zergling)"``.

        Raises:
            InputError: no such unit (with the closest names).
        """
        return lookup(self.units, name, field_name, "a unit of the roster (mathhammer profiles list)")

    def card(self, name: str, field_name: str = "card") -> FactionCard | TacticalCard:
        pool: dict[str, FactionCard | TacticalCard] = {**self.factions, **self.tactical, **self.creep}
        return lookup(pool, name, field_name, "a faction, tactical or creep card (mathhammer profiles list)")


def lookup(pool: dict[str, Any], name: str, field_name: str, what: str) -> Any:
    """An entry by name, without regard to case and spacing; ``"Raptor"`` finds ``"Raptor (Zergling)"``
    when only one name starts so.

    Raises:
        InputError: no such entry, naming ``field_name`` and ``what`` is allowed, with the closest names.
    """
    if name in pool:
        return pool[name]
    key = " ".join(name.lower().split())
    exact = [k for k in pool if " ".join(k.lower().split()) == key]
    if exact:
        return pool[exact[0]]
    short = [k for k in pool if k.lower().split(" (")[0] == key]
    if len(short) == 1:
        return pool[short[0]]
    close = difflib.get_close_matches(name, list(pool), n=3, cutoff=0.5)
    hint = "did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""
    raise InputError(field_name, name, what, hint)


def toml_files(folder: Path, missing: str, skip: Sequence[str] = ()) -> list[Path]:
    """The TOML files of a folder (or the file itself); ``missing`` is the problem when it does not exist."""
    if folder.is_file():
        return [folder]
    if not folder.is_dir():
        raise ProfileError([f"{folder}: {missing}"])
    return sorted(p for p in folder.rglob("*.toml") if not set(skip) & set(p.parts))


def user_dirs(extra: Sequence[str | Path] = ()) -> list[Path]:
    """The user's folders: ``MATHHAMMER_PROFILES`` first, then ``extra`` (later ones win)."""
    env = [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    return env + [Path(p) for p in extra]


def load_roster(extra: Sequence[str | Path] = (), builtin: bool = True) -> Roster:
    """Load the built-in profiles and the user's folders into one :class:`Roster`.

    Raises:
        ProfileError: every problem of every file, one line each.
    """
    folders = ([builtin_dir() / "starcraft"] if builtin else []) + user_dirs(extra)
    problems: list[str] = []
    roster = Roster()
    files: list[str] = []
    for folder in folders:
        try:
            paths = toml_files(folder, f"no such folder (--profiles / {ENV_VAR})", skip=("scenarios", "armies"))
        except ProfileError as exc:
            problems.extend(exc.problems)
            continue
        for path in paths:
            try:
                pf = load_file(path)
            except ProfileError as exc:
                problems.extend(exc.problems)
                continue
            files.append(str(path))
            src = f"{pf.source.document} ({pf.source.version})"
            for name, card in pf.units.items():
                source = f"{src}, {card.source}" if card.source else src
                roster.units[name] = Unit(name, path.stem, card, source)
            roster.factions.update(pf.factions)
            roster.tactical.update(pf.tactical)
            roster.creep.update(pf.creep)
    if problems:
        raise ProfileError(problems)
    return Roster(roster.units, roster.factions, roster.tactical, roster.creep, tuple(files))


def validate_dir(folder: str | Path) -> list[str]:
    """Check a user's folder; returns the problems (empty when all is well)."""
    try:
        load_roster([folder], builtin=False)
    except ProfileError as exc:
        return exc.problems
    return []
