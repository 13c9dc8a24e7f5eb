"""``mathhammer import-opr FILE.json [--out FILE.toml] [--json]``: Army Forge export to Grimdark Future TOML."""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import handle_errors


def _read(given: str, field: str = "FILE") -> object:
    """The JSON of the file named ``given`` (as the user wrote it, as errors show it) by ``field``."""
    from ..errors import InputError

    path = _named(given, field, "an existing Army Forge JSON export, by name")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(field, given, "an existing Army Forge JSON export") from None
    except IsADirectoryError:
        raise InputError(field, given, "a file, not a folder") from None
    except OSError as exc:
        raise InputError(field, given, f"a readable file ({exc.strerror})") from None
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(field, given, "a UTF-8 JSON file") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            field, given, "valid JSON (an Army Forge export)", f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None


def _named(given: str, field: str, allowed: str) -> Path:
    """A file named on the command line, as a path; a blank name is refused as written (as a path it would be
    ``.``, the current folder)."""
    from ..errors import InputError

    if not given.strip():
        raise InputError(field, given, allowed)
    return Path(given)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through an :class:`~mathhammer.outputs.Outputs` transaction (a temporary
    next to it, renamed into place; ordinary permissions).

    Raises:
        InputError: the file cannot be written (nothing is left behind); WriteError (exit status 1): the disk
            is full.
    """
    from ..outputs import Outputs, Target

    target = Target(path, "--out", "file", "a writable file in an existing folder")
    with Outputs([target]) as tx, tx.writing(0) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def register(root: typer.Typer) -> None:
    """Add the ``import-opr`` command to ``root``."""
    root.command("import-opr")(import_opr)


def _system_check(path: Path, data: object, force: bool) -> list[str]:
    """Refuse a file of another game system than Grimdark Future, unless ``--force`` (then a warning)."""
    from ..errors import MathhammerError
    from ..grimdark.opr_saves import game_system

    found = game_system(data)
    if found is not None and found[0] != "gf" and not force:
        raise MathhammerError(
            f"{path}: an Army Forge file of {found[1]} (game system {found[0]!r}), not Grimdark Future; "
            "give --force to import it anyway"
        )
    if found is not None and found[0] != "gf":
        return [f"{path.name}: a file of {found[1]} ({found[0]!r}) imported as Grimdark Future (--force)"]
    return []


def _from_save(
    file: Path, data: dict[str, Any], books: list[str], force: bool
) -> tuple[list[Any], str, list[str], list[str], list[Any]]:
    """A list save's units resolved against the ``--book`` files, the units' ``source``, the header notes,
    the warnings and the books' own rule definitions (their ``specialRules``)."""
    from ..errors import MathhammerError
    from ..grimdark.opr_saves import book_id, resolve_save, save_army_ids

    ids = save_army_ids(data)
    shown = ", ".join(ids) or "?"
    if not books:
        raise MathhammerError(
            f"{file}: an Army Forge list save of army book ID {shown}; give --book BOOK.json, the army book "
            f"export of that id (one --book per book), to import its units"
        )
    forced: list[str] = []
    by_id: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for given in books:
        path = Path(given)
        book = _read(given, "--book")
        forced.extend(_system_check(path, book, force))
        key = book_id(book)
        if key is None or not isinstance(book, dict) or not isinstance(book.get("units"), list):
            raise MathhammerError(f"--book {path}: not an Army Forge army book export (no uid and units)")
        by_id.setdefault(key, book)
        names.setdefault(key, path.name)
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise MathhammerError(
            f"{file}: an Army Forge list save of army book ID {', '.join(missing)}, which no --book gives "
            f"(given: {', '.join(sorted(by_id)) or 'none'}); give --book BOOK.json, the army book export of that id"
        )
    units, warnings = resolve_save(data, by_id)
    inner = data["list"]
    total = _int_or_none(data.get("listPoints", inner.get("listPoints")))
    added = sum(_int_or_none(u.get("cost")) or 0 for u in units)
    name = inner.get("name") or data.get("armyName") or file.stem
    notes = [
        f"List {name!r}: {total if total is not None else added} points"
        + (
            f" (listPoints of the save; the units below add up to {added})"
            if total is not None
            else " (the units below)"
        )
        + (f", limit {inner['pointsLimit']}" if _int_or_none(inner.get("pointsLimit")) is not None else ""),
        f"Sources: {file.name} (Army Forge list save)"
        + "".join(f", {names[i]} (army book {by_id[i].get('name', i)}, ID {i})" for i in ids),
    ]
    if total is not None and total != added:
        warnings.append(f"{file.name}: the list save says {total} points; the units imported add up to {added}")
    used = " + ".join(names[i] for i in ids)
    definitions = [d for i in ids for d in (by_id[i].get("specialRules") or []) if isinstance(d, dict)]
    return units, f"Army Forge list save {file.name} with {used}", notes, forced + warnings, definitions


def _int_or_none(value: object) -> int | None:
    from ..grimdark.opr_import import _int

    return _int(value)


@handle_errors
def import_opr(
    file: Annotated[
        str, typer.Argument(metavar="FILE.json", help="Army Forge army-book export, share/TTS export or list save.")
    ],
    out: Annotated[
        str | None, typer.Option("--out", metavar="FILE.toml", help="Write the TOML here (atomically).")
    ] = None,
    book: Annotated[
        list[str] | None,
        typer.Option("--book", metavar="BOOK.json", help="Army book export a list save refers to (repeatable)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Import a file of another game system (Firefight, Age of Fantasy, ...).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: units, warnings, toml, out.")] = False,
) -> None:
    """Convert an Army Forge export into Grimdark Future unit profiles (TOML).

    Rules mathhammer does not model are left out and listed as warnings on stderr.
    """
    from ..errors import InputError, MathhammerError
    from ..grimdark.opr_import import convert
    from ..grimdark.opr_saves import is_list_save
    from ..grimdark.profiles import load_text

    out_path = None if out is None else _named(out, "--out", "a writable file in an existing folder, by name")
    books = list(book or [])
    data = _read(file)
    path = Path(file)
    if not isinstance(data, dict | list):
        raise InputError("FILE", file, 'an Army Forge export: a JSON list of units or an object with "units"')
    forced = _system_check(path, data, force)
    if isinstance(data, dict) and is_list_save(data):
        units, source, notes, pre, definitions = _from_save(path, data, books, force)
        text, warnings = convert(units, path.name, source=source, notes=notes, definitions=definitions)
    else:
        if books:
            raise MathhammerError(f"--book: {path} is not an Army Forge list save; --book is only for a list save")
        pre = []
        text, warnings = convert(data, path.name)
    warnings = forced + pre + warnings
    if out_path is not None:
        write_atomic(out_path, text)
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    if as_json:
        units_out = list(load_text(text, path.name))
        payload = {
            "units": units_out,
            "warnings": warnings,
            "out": None if out_path is None else str(out_path),
            "toml": text,
        }
        typer.echo(json.dumps(payload))
    elif out_path is None:
        typer.echo(text, nl=False)
    else:
        typer.echo(f"wrote {out_path}", err=True)
