"""``mathhammer import-opr FILE.json [--out FILE.toml] [--json]``: Army Forge export to Grimdark Future TOML."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from .common import handle_errors


def _read(path: Path) -> object:
    from ..errors import InputError

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("FILE", str(path), "an existing Army Forge JSON export") from None
    except IsADirectoryError:
        raise InputError("FILE", str(path), "a file, not a folder") from None
    except OSError as exc:
        raise InputError("FILE", str(path), f"a readable file ({exc.strerror})") from None
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError("FILE", str(path), "a UTF-8 JSON file") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            "FILE", str(path), "valid JSON (an Army Forge export)", f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and :func:`os.replace`.

    Raises:
        InputError: the file cannot be written (nothing is left behind).
    """
    from ..errors import InputError

    folder = path.parent if str(path.parent) else Path(".")
    tmp: str | None = None
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputError("--out", str(path), f"a writable file in an existing folder ({reason})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def register(root: typer.Typer) -> None:
    """Add the ``import-opr`` command to ``root``."""
    root.command("import-opr")(import_opr)


@handle_errors
def import_opr(
    file: Annotated[Path, typer.Argument(metavar="FILE.json", help="Army Forge army-book or list export (JSON).")],
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE.toml", help="Write the TOML here (atomically).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: units, warnings, toml, out.")] = False,
) -> None:
    """Convert an Army Forge export into Grimdark Future unit profiles (TOML).

    Rules mathhammer does not model are left out and listed as warnings on stderr.
    """
    from ..errors import InputError
    from ..grimdark.opr_import import convert
    from ..grimdark.profiles import load_text

    data = _read(file)
    if not isinstance(data, dict | list):
        raise InputError("FILE", str(file), 'an Army Forge export: a JSON list of units or an object with "units"')
    text, warnings = convert(data, file.name)
    if out is not None:
        write_atomic(out, text)
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    if as_json:
        units = list(load_text(text, file.name))
        payload = {"units": units, "warnings": warnings, "out": None if out is None else str(out), "toml": text}
        typer.echo(json.dumps(payload))
    elif out is None:
        typer.echo(text, nl=False)
    else:
        typer.echo(f"wrote {out}", err=True)
