"""Every built-in unit value against a second, independent transcription of the card sheets.

`tests/golden/card_values.py` was written from the official card sheets only
(May 2026 v1.0, print v 1.04.26), without reading the TOML profiles; each row
cites its card. A disagreement means one of the two transcriptions is wrong.
"""

from __future__ import annotations

import pytest

from mathhammer.starcraft.roster import load_roster
from tests.golden.card_values import UNITS, UPGRADES, WEAPONS

ROSTER = load_roster()


def _unit(name: str):
    return ROSTER.unit(name)


def _profile_value(card, field: str):
    if field == "speed":
        return card.speed if card.speed == "-" else tuple(card.speed)
    if field == "combat_tags":
        return tuple(sorted(card.combat_tags))
    if field == "supply":
        return tuple(((b.models[0], b.models[1]), b.supply) for b in card.supply)
    if field == "compositions_minerals":
        return tuple((c.models, c.minerals) for c in card.compositions)
    return getattr(card, field)


def _norm(field: str, value):
    """One spelling for both transcriptions: a printed "-" is None or () in the table, "-" in the TOML."""
    if value is None or value == () or value == "-":
        return "-"
    if field == "combat_tags":
        return tuple(sorted(value))
    if field == "supply":
        return tuple((tuple(m), s) for m, s in value)
    if field == "compositions_minerals":
        return tuple(tuple(x) for x in (value.items() if isinstance(value, dict) else value))
    if isinstance(value, list):
        return tuple(value)
    return value


@pytest.mark.parametrize(("race", "unit", "field", "value", "cite"), UNITS, ids=lambda v: str(v)[:24])
def test_unit_value(race: str, unit: str, field: str, value, cite: str) -> None:
    u = _unit(unit)
    assert u.race == race, cite
    assert _norm(field, _profile_value(u.card, field)) == _norm(field, value), f"{unit}.{field} ({cite})"


def _weapon(unit: str, name: str):
    card = _unit(unit).card
    pool = list(card.weapons) + [w for up in card.upgrades for w in up.weapons]
    matches = [w for w in pool if w.name.lower() == name.lower()]
    assert matches, f"{unit}: no weapon {name!r} in the profile (has {[w.name for w in pool]})"
    return matches


@pytest.mark.parametrize(("race", "unit", "weapon", "field", "value", "cite"), WEAPONS, ids=lambda v: str(v)[:24])
def test_weapon_value(race: str, unit: str, weapon: str, field: str, value, cite: str) -> None:
    candidates = _weapon(unit, weapon)
    got = [getattr(w, field) for w in candidates]
    if field in ("surge_types", "keywords"):
        got = [tuple(sorted(g)) for g in got]
        value = tuple(sorted(value))
    assert value in got, f"{unit} {weapon}.{field}: profile {got}, independent {value!r} ({cite})"


@pytest.mark.parametrize(("race", "unit", "upgrade", "field", "value", "cite"), UPGRADES, ids=lambda v: str(v)[:24])
def test_upgrade_value(race: str, unit: str, upgrade: str, field: str, value, cite: str) -> None:
    ups = [u for u in _unit(unit).card.upgrades if u.name.lower() == upgrade.lower()]
    assert ups, f"{unit}: no upgrade {upgrade!r} ({cite})"
    got = getattr(ups[0], field)
    if field == "cost":
        got = {int(k): v for k, v in got.items()}
        value = {int(k): v for k, v in value.items()}
    assert got == value, f"{unit} {upgrade}.{field}: profile {got!r}, independent {value!r} ({cite})"


def test_every_unit_card_is_covered() -> None:
    covered = {u for _, u, *_ in UNITS}
    assert covered == set(ROSTER.units), sorted(covered ^ set(ROSTER.units))
