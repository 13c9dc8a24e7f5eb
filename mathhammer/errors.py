"""Errors that say what went wrong, where, and what is allowed.

Every error a user can cause by bad input is a :class:`MathhammerError`
(a :class:`ValueError`). It carries the *field* (a CLI flag or a profile path),
the offending *value* and a description of what is *allowed*, so the CLI can
print one clear line and exit with status 2.

>>> e = InputError("--hit", "9", "an integer from 2 to 6 (the target number, 4 means 4+)")
>>> str(e)
"--hit: got '9'; allowed: an integer from 2 to 6 (the target number, 4 means 4+)"
"""

from __future__ import annotations


class MathhammerError(ValueError):
    """Base class of every error mathhammer raises on purpose."""


class InputError(MathhammerError):
    """A value given by the user is not allowed.

    Args:
        field: where the value came from: a CLI flag (``--hit``) or a path in a
            file (``terran.toml: units.Marine.weapons[0].hit``).
        value: the value as the user wrote it.
        allowed: what would have been accepted, written for a person.
        hint: optional extra advice ("did you mean 'PRECISION (1)'?").
    """

    def __init__(self, field: str, value: object, allowed: str, hint: str = "") -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self.hint = hint
        shown = value if isinstance(value, str) else repr(value)
        message = f"{field}: got {shown!r}; allowed: {allowed}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)

    def with_field(self, field: str) -> InputError:
        """The same error, reported under another field name (e.g. a CLI flag)."""
        return InputError(field, self.value, self.allowed, self.hint)
