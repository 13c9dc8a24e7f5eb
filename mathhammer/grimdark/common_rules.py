"""Grimdark Future special rules as data: their texts, sources, and the numbers they change.

The data is ``profiles/rules/grimdark_common_rules.toml`` (shipped inside the
package; kept out of ``profiles/grimdark/``, whose TOML files are all unit profiles):
one table per rule with its verbatim ``text``, where it comes from (``source``,
``version``), and ``changes``, the numbers the rule can change, any of
``"hit"``, ``"block"``, ``"wound"``, ``"melee"``, ``"morale"``. A rule that
cannot change any of them (movement, deployment, ...) has ``changes = []`` and
says why in ``none_because``; a rule whose text was not found has ``text = ""``,
``not_found = true`` and no classification.

The file is read once, validated (unknown keys refused) and kept as frozen values.

>>> number_changing("Shred"), number_changing("scout"), number_changing("No Such Rule")
(True, False, None)
>>> rule("lock on").name, rule("AP").changes
('Lock-On', ('block',))
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

#: The numbers a rule can change.
NUMBERS = ("hit", "block", "wound", "melee", "morale")

FILE_NAME = "grimdark_common_rules.toml"


@dataclass(frozen=True)
class CommonRule:
    """One rule of the data file.

    Attributes:
        name: the rule's name as Army Forge spells it (``"Lock-On"``).
        text: the rule's verbatim text, or ``""`` when it was not found.
        source: where the text comes from (repository and path, commit, version).
        version: the Grimdark Future version of the text (``"3.5.3"``), ``""`` when not found.
        changes: the numbers the rule can change (empty: none, or not classified).
        none_because: why the rule cannot change a number (``"movement"``), when ``changes`` is empty.
        not_found: True when no text was found (the rule is then not classified).
        note: anything else about the entry.
    """

    name: str
    text: str
    source: str
    version: str
    changes: tuple[str, ...]
    none_because: str
    not_found: bool = False
    note: str = ""

    @property
    def classified(self) -> bool:
        """True when the data says whether the rule changes a number."""
        return not self.not_found


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def data_path() -> Path:
    """The data file: the installed package's copy, else the repository's."""
    from ..profiles.loader import builtin_dir

    return builtin_dir() / "rules" / FILE_NAME


def _schema() -> Any:
    from pydantic import BaseModel, ConfigDict, model_validator

    class _Entry(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)

        text: str
        source: str
        version: str
        changes: tuple[Literal["hit", "block", "wound", "melee", "morale"], ...]
        none_because: str
        not_found: bool = False
        note: str = ""

        @model_validator(mode="after")
        def _consistent(self) -> _Entry:
            if len(set(self.changes)) != len(self.changes):
                raise ValueError("changes lists a number twice")
            if self.not_found:
                if self.text or self.changes or self.none_because:
                    raise ValueError("a rule not found has text = '', changes = [] and none_because = ''")
            elif not self.text.strip() or not self.source.strip() or not self.version.strip():
                raise ValueError("text, source and version are required (or not_found = true)")
            elif bool(self.changes) == bool(self.none_because):
                raise ValueError("either changes (the numbers it changes) or none_because (why none), not both")
            return self

    class _File(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)

        rules: dict[str, _Entry]

    return _File


def parse(text: str, name: str = FILE_NAME) -> dict[str, CommonRule]:
    """The rules of a data file's ``text`` by name; :class:`ValueError` naming ``name`` when it is not valid.

    >>> parse('[rules.Fast]\\ntext = "Moves."\\nsource = "s"\\nversion = "3.5"\\nchanges = []\\n'
    ...       'none_because = "movement"\\n')["Fast"].none_because
    'movement'
    >>> parse('[rules.Fast]\\ntext = "x"\\nsorce = "s"\\n')
    Traceback (most recent call last):
    ...
    ValueError: grimdark_common_rules.toml: ...
    """
    from pydantic import ValidationError

    try:
        data = _schema().model_validate(tomllib.loads(text))
    except (ValidationError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{name}: {exc}") from None
    rules = {
        rule_name: CommonRule(
            rule_name, e.text, e.source, e.version, tuple(e.changes), e.none_because, e.not_found, e.note
        )
        for rule_name, e in data.rules.items()
    }
    keys = [_key(n) for n in rules]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{name}: two rules with the same name (case, spaces and hyphens ignored)")
    return rules


@cache
def load() -> dict[str, CommonRule]:
    """The rules of the data file by name (read once)."""
    path = data_path()
    return parse(path.read_text(encoding="utf-8-sig"), path.name)


@cache
def _by_key() -> dict[str, CommonRule]:
    return {_key(r.name): r for r in load().values()}


def rule(name: str) -> CommonRule | None:
    """The data of rule ``name`` (case, spaces and hyphens ignored), or None when the file has no such rule."""
    return _by_key().get(_key(name))


def number_changing(name: str) -> bool | None:
    """True when rule ``name`` can change a hit, block, wound, melee or morale number; False when it
    cannot (movement, deployment, ...); None when the rule is unknown or its text was not found."""
    found = rule(name)
    if found is None or not found.classified:
        return None
    return bool(found.changes)
