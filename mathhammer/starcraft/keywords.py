"""StarCraft TMG keywords, written as on the unit cards (rulebook part 11).

Parsing is strict: an unknown or misspelt keyword, or a value that is not a
whole number, is refused with a message saying what is allowed.

>>> parse_keyword("PRECISION (1)")
Keyword(name='PRECISION', value=1, tag=None, extra=None)
>>> parse_keyword('LONG RANGE (18")')
Keyword(name='LONG RANGE', value=18, tag=None, extra=None)
>>> parse_keyword("PIERCE Armoured (3)")
Keyword(name='PIERCE', value=3, tag='Armoured', extra=None)
>>> parse_keyword('BURST FIRE 8" (3)')
Keyword(name='BURST FIRE', value=3, tag=None, extra=8)
>>> parse_keyword("IMPACT (2) 4+")
Keyword(name='IMPACT', value=2, tag=None, extra=4)
>>> parse_keyword("BUFF Hit (1)")
Keyword(name='BUFF', value=1, tag='Hit', extra=None)
>>> parse_keyword("PRECISON (1)")
Traceback (most recent call last):
...
mathhammer.errors.InputError: keyword: got 'PRECISON (1)'; allowed: ... (did you mean 'PRECISION (X)'?)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InputError

#: The Combat Tags of part 11 (COMBAT TAGS): Type Tags.
COMBAT_TAGS: tuple[str, ...] = (
    "Armoured",
    "Biological",
    "Light",
    "Mechanical",
    "Psionic",
    "Flying",
    "Ground",
)
_TAG_ALIASES = {"armored": "armoured"}

#: Characteristics that BUFF / DEBUFF may name, and on which side they act.
ATTACKER_CHARACTERISTICS = ("Hit", "RoA", "Damage", "Range")
TARGET_CHARACTERISTICS = ("Armour", "Evade")
_CHAR_ALIASES = {
    "hit": "Hit",
    "roa": "RoA",
    "rate of attack": "RoA",
    "damage": "Damage",
    "dmg": "Damage",
    "range": "Range",
    "armour": "Armour",
    "armor": "Armour",
    "evade": "Evade",
}


@dataclass(frozen=True)
class Keyword:
    """One parsed keyword.

    Attributes:
        name: canonical name, e.g. ``"PRECISION"``.
        value: the (X) of the keyword, when it has one.
        tag: the Combat Tag of PIERCE, or the characteristic of BUFF/DEBUFF.
        extra: the second number: Y" of BURST FIRE, Y+ of IMPACT, (Y) of HITS.
    """

    name: str
    value: int | None = None
    tag: str | None = None
    extra: int | None = None

    def __str__(self) -> str:
        spec = KEYWORDS[self.name]
        return spec.render(self)

    @property
    def stack_key(self) -> tuple[str, str | None]:
        """Keywords with the same key do not stack: the highest value wins."""
        return (self.name, self.tag)


@dataclass(frozen=True, eq=False)
class _Spec:
    name: str
    form: str  # how it is written, shown in errors
    pattern: str  # regex for what follows the name
    scope: str  # "weapon", "target" or "both"
    rule: str  # the section that defines it
    fields: tuple[str, ...] = ()  # what the groups of `pattern` are

    def render(self, kw: Keyword) -> str:
        out = self.form
        if kw.value is not None:
            v = kw.value
            out = out.replace("(X)", f"({v})").replace('(X")', f'({v}")').replace("HITS X", f"HITS {v}")
        if kw.tag is not None:
            out = out.replace("[TAG]", kw.tag).replace("[Characteristic]", kw.tag)
        if kw.extra is not None:
            out = out.replace('Y"', f'{kw.extra}"').replace("Y+", f"{kw.extra}+").replace("(Y)", f"({kw.extra})")
        return out


_X = r"\(\s*(\d+)\s*\)"
_SPECS: tuple[_Spec, ...] = (
    # Weapon keywords that change the numbers of a Batch.
    _Spec("PRECISION", "PRECISION (X)", rf"^{_X}$", "weapon", "part 11 PRECISION; 8.7.4 step 1", ("value",)),
    _Spec("CRITICAL HIT", "CRITICAL HIT (X)", rf"^{_X}$", "weapon", "part 11 CRITICAL HIT; 8.7.4 step 2", ("value",)),
    _Spec("ANTI-EVADE", "ANTI-EVADE (X)", rf"^{_X}$", "weapon", "part 11 ANTI-EVADE; 8.7.4 step 4", ("value",)),
    _Spec(
        "CONCENTRATED FIRE",
        "CONCENTRATED FIRE (X)",
        rf"^{_X}$",
        "weapon",
        "part 11 CONCENTRATED FIRE; 8.7.4 step 5",
        ("value",),
    ),
    _Spec(
        "NON-LETHAL DAMAGE",
        "NON-LETHAL DAMAGE (X)",
        rf"^{_X}$",
        "weapon",
        "part 11 NON-LETHAL DAMAGE",
        ("value",),
    ),
    _Spec("LOCKED IN", "LOCKED IN (X)", rf"^{_X}$", "weapon", "part 11 LOCKED IN", ("value",)),
    _Spec(
        "LONG RANGE",
        'LONG RANGE (X")',
        r'^\(\s*(\d+)\s*(?:"|”|″|\'\'|in)?\s*\)$',
        "weapon",
        "part 11 LONG RANGE",
        ("value",),
    ),
    _Spec(
        "BURST FIRE",
        'BURST FIRE Y" (X)',
        r'^(\d+)\s*(?:"|”|″|\'\'|in)?\s*' + _X + "$",
        "weapon",
        "part 11 BURST FIRE",
        ("extra", "value"),
    ),
    _Spec(
        "PIERCE",
        "PIERCE [TAG] (X)",
        r"^\[?\s*([A-Za-z]+)\s*\]?\s*" + _X + "$",
        "weapon",
        "part 11 PIERCE",
        ("tag", "value"),
    ),
    _Spec("HITS", "HITS X (Y)", r"^(\d+)\s*\(\s*(\d+)\s*\)$", "weapon", "part 11 HITS", ("value", "extra")),
    _Spec("IMPACT", "IMPACT (X) Y+", rf"^{_X}\s*(\d)\s*\+?$", "weapon", "part 11 IMPACT", ("value", "extra")),
    # Keywords that change no number of the Batch itself (eligibility, batching).
    _Spec("SIDEARM", "SIDEARM", r"^$", "weapon", "part 11 SIDEARM"),
    _Spec("SPECIALIST", "SPECIALIST", r"^$", "weapon", "part 11 SPECIALIST; 9.1.7"),
    _Spec("PINPOINT", "PINPOINT", r"^$", "weapon", "part 11 PINPOINT"),
    _Spec("BULKY", "BULKY", r"^$", "weapon", "part 11 BULKY"),
    _Spec("INSTANT", "INSTANT", r"^$", "weapon", "part 11 INSTANT"),
    _Spec("INDIRECT FIRE", "INDIRECT FIRE", r"^$", "weapon", "part 11 INDIRECT FIRE"),
    # Target keywords.
    _Spec("TOUGH", "TOUGH (X)", rf"^{_X}$", "target", "part 11 TOUGH; 8.7.4 step 3", ("value",)),
    _Spec("DODGE", "DODGE (X)", rf"^{_X}$", "target", "part 11 DODGE; 8.7.4 step 2", ("value",)),
    _Spec("HIDDEN", "HIDDEN", r"^$", "target", "part 11 HIDDEN (Evade Roll against every attack)"),
    _Spec("BURROWED", "BURROWED", r"^$", "target", "part 11 BURROWED (Evade Roll against every attack)"),
    # Both sides: the characteristic decides which side it acts on.
    _Spec(
        "BUFF",
        "BUFF [Characteristic] (X)",
        r"^\[?\s*([A-Za-z ]+?)\s*\]?\s*" + _X + "$",
        "both",
        "part 11 BUFF",
        ("tag", "value"),
    ),
    _Spec(
        "DEBUFF",
        "DEBUFF [Characteristic] (X)",
        r"^\[?\s*([A-Za-z ]+?)\s*\]?\s*" + _X + "$",
        "both",
        "part 11 DEBUFF",
        ("tag", "value"),
    ),
)
KEYWORDS: dict[str, _Spec] = {s.name: s for s in _SPECS}
# Longest names first, so that "DEBUFF" is not read as "BUFF"-something.
_NAMES_BY_LENGTH = sorted(KEYWORDS, key=len, reverse=True)


def allowed_keywords(scope: str) -> str:
    forms = [s.form for s in _SPECS if s.scope in (scope, "both")]
    return "one of " + ", ".join(forms)


def normalise_tag(text: str, field: str) -> str:
    """Return the Combat Tag spelled as the rulebook spells it.

    >>> normalise_tag("light", "--target-tags")
    'Light'
    """
    key = text.strip().lower()
    key = _TAG_ALIASES.get(key, key)
    for tag in COMBAT_TAGS:
        if tag.lower() == key:
            return tag
    close = difflib.get_close_matches(text.strip().title(), COMBAT_TAGS, n=1)
    hint = f"did you mean {close[0]!r}?" if close else ""
    raise InputError(field, text, "Combat Tags " + ", ".join(COMBAT_TAGS), hint)


def _normalise_characteristic(text: str, scope: str, field: str, raw: str) -> str:
    key = " ".join(text.lower().split())
    name = _CHAR_ALIASES.get(key)
    allowed = ATTACKER_CHARACTERISTICS if scope == "weapon" else TARGET_CHARACTERISTICS
    if name is None or name not in allowed:
        side = "an attacker" if scope == "weapon" else "a target"
        raise InputError(
            field,
            raw,
            f"BUFF/DEBUFF on {side} names one of {', '.join(allowed)}, e.g. BUFF {allowed[0]} (1)",
        )
    return name


def parse_keyword(text: str, scope: str = "weapon", field: str = "keyword") -> Keyword:
    """Parse one keyword written in card syntax.

    Args:
        text: e.g. ``"CRITICAL HIT (1)"``.
        scope: ``"weapon"`` for keywords of an attacking weapon, ``"target"``
            for keywords of the target unit.
        field: where the text came from, for error messages.
    """
    raw = str(text)
    norm = " ".join(raw.strip().split())
    upper = norm.upper()
    spec = None
    for name in _NAMES_BY_LENGTH:
        if upper == name or upper.startswith(name + " ") or upper.startswith(name + "("):
            spec = KEYWORDS[name]
            break
    allowed = allowed_keywords(scope)
    if spec is None:
        head = re.split(r"[\s(\[\d]", upper + " ", maxsplit=1)[0]
        words = upper.split("(")[0].strip()
        candidates = [s.name for s in _SPECS if s.scope in (scope, "both")]
        close = difflib.get_close_matches(words, candidates, n=1, cutoff=0.6) or difflib.get_close_matches(
            head, candidates, n=1, cutoff=0.6
        )
        hint = f"did you mean {KEYWORDS[close[0]].form!r}?" if close else ""
        raise InputError(field, raw, allowed, hint)
    if spec.scope not in (scope, "both"):
        other = "target (--target-keyword)" if spec.scope == "target" else "weapon (--keyword)"
        raise InputError(field, raw, allowed, f"{spec.name} is a keyword of the {other}")
    rest = norm[len(spec.name) :].strip()
    m = re.match(spec.pattern, rest, flags=re.IGNORECASE)
    if not m:
        raise InputError(field, raw, f"{spec.name} is written {spec.form!r} with whole numbers ({spec.rule})")
    values: dict[str, object] = {}
    for key, group in zip(spec.fields, m.groups(), strict=True):
        values[key] = group if key == "tag" else int(group)
    tag = values.get("tag")
    if spec.name == "PIERCE":
        try:
            tag = normalise_tag(str(tag), field)
        except InputError as exc:
            raise InputError(field, raw, f"PIERCE [TAG] (X) with TAG one of the {exc.allowed}", exc.hint) from None
    elif spec.name in ("BUFF", "DEBUFF"):
        tag = _normalise_characteristic(str(tag), scope, field, raw)
    kw = Keyword(
        spec.name,
        value=values.get("value"),  # type: ignore[arg-type]
        tag=tag,  # type: ignore[arg-type]
        extra=values.get("extra"),  # type: ignore[arg-type]
    )
    _check_ranges(kw, raw, field)
    return kw


def _check_ranges(kw: Keyword, raw: str, field: str) -> None:
    if kw.name == "IMPACT" and not (2 <= (kw.extra or 0) <= 6):
        raise InputError(field, raw, "IMPACT (X) Y+ with Y from 2 to 6")
    if kw.name in ("HITS", "PIERCE") and (kw.extra == 0 or kw.value == 0):
        if kw.name == "PIERCE":
            raise InputError(field, raw, "PIERCE [TAG] (X) with X at least 1")
        raise InputError(field, raw, "HITS X (Y) with X and Y at least 1")
    if kw.name == "BURST FIRE" and not kw.extra:
        raise InputError(field, raw, 'BURST FIRE Y" (X) with Y at least 1')
    for number in (kw.value, kw.extra):
        if number is not None and number > 99:
            raise InputError(field, raw, f"{KEYWORDS[kw.name].form} with numbers up to 99")


def parse_keywords(items: Iterable[str | Keyword], scope: str, field: str) -> tuple[Keyword, ...]:
    """Parse several keywords; repeated keywords keep the highest value.

    "Keywords do not stack" (part 11 MODIFIER: the same keyword twice does not
    add up; FAQ v1.0, Raptor IMPACT example: BUFFs of one named effect do not
    stack): of two ``PRECISION`` the higher value is kept.

    >>> [str(k) for k in parse_keywords(["PRECISION (1)", "PRECISION (2)"], "weapon", "k")]
    ['PRECISION (2)']
    """
    best: dict[tuple[str, str | None], Keyword] = {}
    for item in items:
        kw = item if isinstance(item, Keyword) else parse_keyword(item, scope, field)
        key = kw.stack_key
        if kw.name in ("HITS", "IMPACT", "BURST FIRE"):
            key = (kw.name, None)
        old = best.get(key)
        if old is None or (kw.value or 0, kw.extra or 0) > (old.value or 0, old.extra or 0):
            best[key] = kw
    return tuple(best.values())


def keyword_value(keywords: Iterable[Keyword], name: str, tag: str | None = None) -> int:
    """The (X) of keyword ``name`` (0 when absent)."""
    for kw in keywords:
        if kw.name == name and (tag is None or kw.tag == tag):
            return kw.value or 0
    return 0


def find(keywords: Iterable[Keyword], name: str) -> Keyword | None:
    for kw in keywords:
        if kw.name == name:
            return kw
    return None
