"""Checks of single values, shared by the typed model and the CLI.

Each returns the parsed value or raises :class:`~mathhammer.errors.InputError`
naming the field (a CLI flag or a model field), the value and what is allowed.

>>> whole("--models", "9", 0, 999, "attacking models")
9
>>> target_number("--hit", "4+", "Hit")
4
>>> target_number("--hit", "7", "Hit")
Traceback (most recent call last):
...
mathhammer.errors.InputError: --hit: got '7'; allowed: Hit: a target number from 2 to 6 (4 or 4+ means 4+)
"""

from __future__ import annotations

import difflib
import re
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import InputError


def whole(field: str, value: object, lo: int, hi: int, what: str) -> int:
    """A whole number from ``lo`` to ``hi`` (ints, integral floats and digit strings)."""
    allowed = f"{what}: a whole number from {lo} to {hi}"
    if isinstance(value, bool):
        raise InputError(field, value, allowed)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InputError(field, value, allowed) from None
    if not lo <= number <= hi:
        raise InputError(field, value, allowed)
    return number


def target_number(field: str, value: object, what: str) -> int:
    """A target number 2..6, written ``4`` or ``4+``."""
    text = str(value).strip()
    text = text[:-1] if text.endswith("+") else text
    allowed = f"{what}: a target number from 2 to 6 (4 or 4+ means 4+)"
    try:
        number = int(text)
    except ValueError:
        raise InputError(field, value, allowed) from None
    if isinstance(value, bool) or not 2 <= number <= 6:
        raise InputError(field, value, allowed)
    return number


def number(field: str, value: object, lo: float, hi: float, what: str) -> float:
    """A number from ``lo`` to ``hi`` (inches may be written ``12"``)."""
    allowed = f"{what}: a number from {lo:g} to {hi:g}"
    try:
        result = float(str(value).strip().rstrip('"'))
    except ValueError:
        raise InputError(field, value, allowed) from None
    if not lo <= result <= hi:
        raise InputError(field, value, allowed)
    return result


def _takes_bool(annotation: Any) -> bool:
    """True when a bool may sit in ``annotation``: a bool, or something other than numbers and text."""
    if annotation is bool or annotation is Any:
        return True
    if isinstance(annotation, type) and not issubclass(annotation, int | float | str | type(None)):
        return True  # a model of its own (its fields check themselves)
    return any(_takes_bool(a) for a in typing.get_args(annotation))


def _has_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, dict):
        return any(_has_bool(v) for v in value.values())
    return isinstance(value, list | tuple) and any(_has_bool(v) for v in value)


def no_bool_number(annotation: Any, value: Any) -> Any:
    """``value`` unchanged, unless it holds ``true``/``false`` where ``annotation`` takes no bool.

    pydantic reads ``true`` as 1 in an ``int`` field; in a file of numbers it is a mistake, refused here
    (a ``field_validator("*", mode="before")`` of the schemas).

    >>> no_bool_number(int, 3)
    3
    >>> no_bool_number(list[int], [4, True])
    Traceback (most recent call last):
    ...
    ValueError: a number, not true or false
    """
    if _has_bool(value) and not _takes_bool(annotation):
        raise ValueError("a number, not true or false")
    return value


def toml_path(loc: Iterable[Any]) -> str:
    """A location in a TOML file as a person writes it: ``units."Raynor's Raider".weapons[0].hit``.

    >>> toml_path(["units", "Jim Raynor", "weapons", 0, "hit"])
    'units."Jim Raynor".weapons[0].hit'
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            if re.search(r"[^A-Za-z0-9_\-]", text) or not text:
                text = '"' + text.replace('"', '\\"') + '"'
            out += ("." if out else "") + text
    return out


#: pydantic's tags for the alternatives of a union in an error location (not keys of the file).
_UNION_TAG = re.compile(r"^(constrained-\w+|literal\[.*\]|function-.*|list\[.*\]|dict\[.*\]|int|str|float|bool|none)$")


def validation_problems(
    name: str,
    exc: Any,
    fields: Sequence[str],
    allowed_keys: Callable[[Sequence[Any]], Sequence[str]] | None = None,
) -> list[str]:
    """A pydantic ``ValidationError`` as one line per problem: ``file: path: got X; allowed: Y``.

    The alternatives of a union (``5`` or ``"-"``) fold into one line; an unknown key gets the
    closest of ``fields`` as "did you mean", and the keys allowed there when ``allowed_keys`` says.
    """
    lines: list[str] = []
    merged: dict[str, int] = {}
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and _UNION_TAG.match(p))]
        where = f"{name}: {toml_path(loc)}" if loc else name
        msg = str(err["msg"]).removeprefix("Value error, ").replace("Input should be ", "")
        kind = err["type"]
        if where in merged and kind not in ("extra_forbidden", "missing"):
            lines[merged[where]] += " or " + msg
            continue
        merged[where] = len(lines)
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            close = difflib.get_close_matches(key, list(fields), n=1)
            line = f"{where}: unknown key" + (f" (did you mean {close[0]!r}?)" if close else "")
            if allowed_keys is not None:
                line += f"; allowed: {', '.join(allowed_keys(loc))}"
            lines.append(line)
        elif kind == "missing":
            lines.append(f"{where}: missing; required")
        else:
            value = err.get("input")
            shown = "" if isinstance(value, dict) else f"got {value!r}; "
            lines.append(f"{where}: {shown}{msg}" if "allowed:" in msg else f"{where}: {shown}allowed: {msg}")
    return lines


def read_toml(path: Path, allowed: str) -> tuple[dict[str, Any] | None, str]:
    """Read a TOML file: ``(data, "")``, or ``(None, problem)`` with one line naming the file.

    ``allowed`` says what the file should be ("an army list TOML file (docs/army.md)").
    """
    import tomllib

    try:
        with path.open("rb") as fh:
            return tomllib.loads(fh.read().decode("utf-8-sig")), ""  # a UTF-8 BOM (Windows editors) is accepted
    except FileNotFoundError:
        return None, f"{path}: no such file; allowed: {allowed}"
    except IsADirectoryError:
        return None, f"{path}: a folder; allowed: {allowed}"
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror}"
    except tomllib.TOMLDecodeError as exc:
        return None, f"{path.name}: not valid TOML: {exc}"
    except UnicodeDecodeError:
        return None, f"{path.name}: not a UTF-8 text file; allowed: {allowed}"
