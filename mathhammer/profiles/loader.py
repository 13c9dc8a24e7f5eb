"""The generic profile loader: a game system's schema in, validated values out, every problem at once.

A system reads its own files (its schema, a pydantic model); this module finds
the files, reads the TOML, turns pydantic's errors into one line per problem
naming the file and the path, and collects the problems of every file, so a
user sees them all at once::

    terran.toml: units.Marine.weapons[0].hit: got 9; allowed: Input should be less than or equal to 6
    robots.toml: units."Robot Warriors".qualty: unknown key (did you mean 'quality'?)

Built-in profiles ship inside the package (``mathhammer/builtin_profiles``,
mapped from the repository's ``profiles/`` folder), a folder per system.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError, MathhammerError
from ..validate import validation_problems

ENV_VAR = "MATHHAMMER_PROFILES"

T = TypeVar("T")


class ProfileError(MathhammerError):
    """One or more problems in profile files; ``problems`` holds one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def builtin_dir() -> Path:
    """The folder of the built-in profiles (a folder per system inside).

    An installed package carries them as ``mathhammer/builtin_profiles`` (the
    repository's ``profiles/``, mapped by pyproject.toml); a source checkout or
    an editable install reads the repository's ``profiles/`` itself.
    """
    installed = Path(__file__).resolve().parents[1] / "builtin_profiles"
    if (installed / "starcraft").is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "profiles"


def parse(name: str, data: Any, schema: type[T], fields: Sequence[str]) -> T:
    """``data`` (parsed TOML of the file ``name``) validated by a system's pydantic ``schema``; a
    :class:`ProfileError` with one line per problem (unknown keys get a "did you mean" among ``fields``)."""
    from pydantic import ValidationError

    try:
        return schema.model_validate(data)  # type: ignore[attr-defined, no-any-return]
    except ValidationError as exc:
        raise ProfileError(validation_problems(name, exc, list(fields))) from None


def load_folders(
    folders: Sequence[Path], load_file: Callable[[Path], T], missing: str, skip: Sequence[str] = ()
) -> list[tuple[Path, T]]:
    """Every TOML file of ``folders`` (in order) read by a system's ``load_file``; the problems of every
    file at once as one :class:`ProfileError` (``missing``: the problem of a folder that does not exist), at
    most :data:`~mathhammer.engine.budget.PROBLEMS_SHOWN` lines a folder (:func:`capped`)."""
    problems: list[str] = []
    out: list[tuple[Path, T]] = []
    for folder in folders:
        try:
            paths = toml_files(folder, missing, skip)
        except ProfileError as exc:
            problems.extend(exc.problems)
            continue
        found: list[str] = []
        for path in paths:
            try:
                out.append((path, load_file(path)))
            except ProfileError as exc:
                found.extend(exc.problems)
        problems.extend(capped(found, folder))
    if problems:
        raise ProfileError(problems)
    return out


def capped(problems: list[str], folder: Path) -> list[str]:
    """The first :data:`~mathhammer.engine.budget.PROBLEMS_SHOWN` problem lines of a profile folder, then
    ``... and K more problems in DIR`` (a folder of other TOML files would print hundreds of lines).

    >>> capped([f"f{i}.toml: foo: unknown key" for i in range(30)], Path("cards"))[-2:]
    ['f19.toml: foo: unknown key', '... and 10 more problems in cards']
    >>> len(capped(["one", "two"], Path("cards")))
    2
    """
    from ..engine.budget import PROBLEMS_SHOWN

    if len(problems) <= PROBLEMS_SHOWN + 1:
        return problems
    return [*problems[:PROBLEMS_SHOWN], f"... and {len(problems) - PROBLEMS_SHOWN:,} more problems in {folder}"]


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
    return sorted(_walk(folder, skip))


def _walk(folder: Path, skip: Sequence[str]) -> list[Path]:
    """The ``.toml`` files below ``folder``, refused (without reading the rest) past the budget's
    :data:`~mathhammer.engine.budget.PROFILE_FILES_MAX` files, ``PROFILE_DIRS_MAX`` folders or
    ``PROFILE_DEPTH_MAX`` levels: ``--profiles /`` is a mistake, not thousands of files to parse."""
    from ..engine.budget import PROFILE_DEPTH_MAX, PROFILE_DIRS_MAX, PROFILE_FILES_MAX

    def refuse(got: str) -> ProfileError:
        allowed = (
            f"a profile folder of at most {PROFILE_FILES_MAX} .toml files in at most {PROFILE_DIRS_MAX:,} "
            f"folders, {PROFILE_DEPTH_MAX} levels deep (--profiles and {ENV_VAR} name folders of profiles)"
        )
        return ProfileError([f"{folder}: got {got}; allowed: {allowed}"])

    found: list[Path] = []
    skipped = set(skip)
    top = len(folder.parts)
    for count, (root, dirnames, filenames) in enumerate(os.walk(folder), start=1):
        here = Path(root)
        dirnames[:] = sorted(d for d in dirnames if d not in skipped)
        if count > PROFILE_DIRS_MAX:
            raise refuse(f"more than {PROFILE_DIRS_MAX:,} folders")
        if dirnames and len(here.parts) - top >= PROFILE_DEPTH_MAX:
            raise refuse(f"folders more than {PROFILE_DEPTH_MAX} levels deep ({here / dirnames[0]})")
        found += [here / name for name in filenames if name.endswith(".toml")]
        if len(found) > PROFILE_FILES_MAX:
            raise refuse(f"more than {PROFILE_FILES_MAX} .toml files")
    return [p for p in found if not skipped & set(p.parts)]


def as_folder(given: str | Path, field: str = "--profiles") -> Path:
    """A user's profile folder (or file) as given by ``field``; a blank name is refused (it would be the current
    folder, read whole).

    >>> as_folder("my_cards").name
    'my_cards'
    >>> as_folder(" ")
    Traceback (most recent call last):
    ...
    mathhammer.errors.InputError: --profiles: got ' '; allowed: a folder (or file) of TOML profiles, by name
    """
    if not str(given).strip():
        raise InputError(field, str(given), "a folder (or file) of TOML profiles, by name")
    return Path(given)


def user_dirs(extra: Sequence[str | Path] = ()) -> list[Path]:
    """The user's folders: ``MATHHAMMER_PROFILES`` first, then ``extra`` (later ones win)."""
    env = [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    return env + [as_folder(p) for p in extra]
