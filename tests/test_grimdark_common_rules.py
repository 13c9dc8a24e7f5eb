"""The Grimdark Future special rules data (``profiles/rules/grimdark_common_rules.toml``) and how the
Army Forge importer uses it: a rule that cannot change a number is not warned about."""

from __future__ import annotations

import tomllib

import pytest

from mathhammer.grimdark import common_rules
from mathhammer.grimdark.opr_import import convert
from mathhammer.grimdark.profiles import MARKER_RULES
from mathhammer.grimdark.rules import KNOWN


def test_file_parses_and_ships_with_the_package() -> None:
    path = common_rules.data_path()
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    rules = common_rules.load()
    assert set(rules) == set(raw["rules"]) and len(rules) >= 40
    assert path.parent.name == "rules" and path.parent.parent.joinpath("grimdark").is_dir()
    assert common_rules.load() is rules  # read once


@pytest.mark.parametrize("name", [*KNOWN, *MARKER_RULES])
def test_every_modelled_rule_is_present_and_changes_a_number(name: str) -> None:
    data = common_rules.rule(name)
    assert data is not None, name
    assert data.text and not data.not_found, name
    assert data.changes and common_rules.number_changing(name) is True, name


def test_every_entry_has_a_text_and_source_or_is_marked_not_found() -> None:
    for name, data in common_rules.load().items():
        if data.not_found:
            assert data.text == "" and data.changes == () and data.none_because == "", name
            assert common_rules.number_changing(name) is None, name
        else:
            assert data.text.strip() and data.source.strip() and data.version.startswith("3."), name
            assert set(data.changes) <= set(common_rules.NUMBERS), name
            assert bool(data.changes) != bool(data.none_because), name


def test_classification_of_some_rules() -> None:
    for name in ("Fast", "Scout", "Ambush", "Strider", "Flying", "Transport", "Caster", "Slow", "Immobile"):
        assert common_rules.number_changing(name) is False, name
    for name in ("Shred", "Surge", "Shielded", "Versatile Attack", "Fear", "Fearless", "Stealth", "Unstoppable"):
        assert common_rules.number_changing(name) is True, name
    assert common_rules.number_changing("lock on") is True  # case, spaces and hyphens ignored
    assert common_rules.number_changing("Not A Rule") is None
    assert common_rules.rule("Scout").none_because == "deployment"  # type: ignore[union-attr]
    assert common_rules.rule("Shred").changes == ("wound",)  # type: ignore[union-attr]


def test_the_file_is_validated() -> None:
    good = '[rules.Fast]\ntext = "t"\nsource = "s"\nversion = "3.5"\nchanges = []\nnone_because = "movement"\n'
    assert common_rules.parse(good)["Fast"].none_because == "movement"
    for bad in (
        good + 'colour = "red"\n',  # unknown key
        good.replace("changes = []", 'changes = ["range"]'),  # not a number the data knows
        good.replace('none_because = "movement"', 'none_because = ""'),  # neither changes nor none_because
        good.replace("changes = []", 'changes = ["hit"]'),  # both
        good.replace('text = "t"', 'text = ""'),  # no text, not marked not found
        good + "not_found = true\n",  # marked not found but has a text
        good + good.replace("Fast", "fast"),  # the same rule twice
    ):
        with pytest.raises(ValueError, match=r"grimdark_common_rules\.toml"):
            common_rules.parse(bad)


def _book(rules: list[dict[str, object]], weapon_rules: list[dict[str, object]]) -> dict[str, object]:
    """A tiny hand-made Army Forge-shaped army book (not real data)."""
    return {
        "uid": "hand-made",
        "name": "Hand-made Test Army (not real data)",
        "units": [
            {
                "id": "u1",
                "name": "Test Squad",
                "size": 5,
                "cost": 100,
                "quality": 4,
                "defense": 4,
                "rules": rules,
                "weapons": [
                    {"name": "Test Gun", "count": 5, "range": 24, "attacks": 1, "specialRules": weapon_rules},
                ],
            }
        ],
    }


def test_importer_warns_about_an_unmodelled_number_changing_rule_only() -> None:
    """GF v3.5 army books: Tear changes a number and is not modelled, so it is warned with its text; Shred and
    Takedown (modelled) come through; Scout, Fast, Strider and Limited cannot change a number: no warning."""
    data = _book(
        [{"name": "Scout"}, {"name": "Fast"}, {"name": "Strider"}, {"name": "Banner"}, {"name": "Odd Gift"}],
        [{"name": "AP", "rating": 1}, {"name": "Shred"}, {"name": "Takedown"}, {"name": "Tear"}, {"name": "Limited"}],
    )
    text, warnings = convert(data, "book.json")
    assert 'rules = ["AP(1)", "Shred", "Takedown"]' in text
    joined = "\n".join(warnings)
    # Banner (GF v3.5 common rules: +1 to morale test rolls) is modelled: on the unit, unwarned
    for quiet in ("Scout", "Fast", "Strider", "Limited", "Shred", "Takedown", "Banner"):
        assert f"rule {quiet} " not in joined, quiet
    assert 'rules = ["Banner"]' in text
    tear = [w for w in warnings if "rule Tear " in w]
    assert tear == [f'Test Squad: weapon Test Gun: rule Tear is not modelled by mathhammer; left out (Tear: "{TEAR}")']
    assert "Test Squad: rule Odd Gift is not modelled by mathhammer (an unknown rule); left out" in warnings
    assert len(warnings) == 2


#: The Tear text of the data file (profiles/rules/grimdark_common_rules.toml).
TEAR = "Against units where most models have Tough(3) to Tough(9), this weapon gets AP(+4)."


def test_importer_names_a_rule_whose_text_was_not_found() -> None:
    _, warnings = convert(_book([{"name": "Piercing"}], []), "book.json")
    assert warnings == [
        "Test Squad: rule Piercing is not modelled by mathhammer (its text is not known to it); left out"
    ]
    # GF v3.5 army books: Slayer (its text found in the DAO Union book) is modelled: kept on the unit, unwarned
    text, warnings = convert(_book([{"name": "Slayer"}], []), "book.json")
    assert 'rules = ["Slayer"]' in text and warnings == []


def test_importer_keeps_the_modelled_hit_and_defense_rules() -> None:
    """GF v3.5 common rules: Stealth, Artillery, Entrenched, Thrust; army books: Shielded, Versatile Attack -
    modelled, so the importer keeps them (unit rules on the unit, Thrust on a melee weapon) without a warning."""
    data = _book(
        [{"name": "Stealth"}, {"name": "Shielded"}, {"name": "Versatile Attack"}, {"name": "Entrenched"}],
        [{"name": "AP", "rating": 1}],
    )
    data["units"][0]["weapons"].append(
        {"name": "Spear", "range": None, "attacks": 1, "specialRules": [{"name": "Thrust"}]}
    )
    text, warnings = convert(data, "book.json")
    assert 'rules = ["Stealth", "Shielded", "Versatile Attack", "Entrenched"]' in text
    assert 'rules = ["Thrust"]' in text
    assert warnings == []
