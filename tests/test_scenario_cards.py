"""The ability-card registry (issue 26 point 1, ``mathhammer/scenario/cards/``): every card owns effect kinds of the
schema, a kind has one owner, a simulation keeps only the cards its scenario uses and calls their hooks at the
named trigger points. The rules of each card are tested in its own file (Force Field: test_scenario_force_field.py;
Regeneration: test_scenario_heal.py; ...)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer.scenario.cards import Card, Trigger, card_for, register, registered
from mathhammer.scenario.cards.force_field import ForceField
from mathhammer.scenario.cards.registry import CardSet
from mathhammer.scenario.sim import Simulation
from mathhammer.starcraft.schema import EFFECT_KINDS

from .test_scenario_force_field import FIELD, scenario


def test_every_card_owns_schema_kinds_one_owner_each() -> None:
    cards = registered()
    assert len(cards) >= 8
    owners: dict[str, type[Card]] = {}
    for card in cards:
        assert card.kinds or card.keyword, card  # SIEGE MODE: a unit keyword, no kind of its own
        for kind in card.kinds:
            assert kind in EFFECT_KINDS, (card, kind)  # a kind the schema validates
            assert kind not in owners, (kind, owners.get(kind), card)
            owners[kind] = card
            assert card_for(kind) is card
    assert card_for("no such kind") is None


def test_a_kind_cannot_have_two_owners() -> None:
    class Twin(Card):
        kinds = ("force_field",)

    with pytest.raises(ValueError, match="owned by ForceField"):
        register(Twin)
    assert card_for("force_field") is ForceField


def test_trigger_points_are_card_hooks() -> None:
    """Each trigger point names a hook of :class:`Card` and a list of :class:`CardSet`."""
    for t in Trigger:
        assert callable(getattr(Card, t.value)), t


def test_the_readme_names_every_trigger_point() -> None:
    """profiles/scenarios/README.md "How to add an ability" names every trigger point a card can hook (a new
    :class:`Trigger` without a word there fails here)."""
    readme = (Path(__file__).parents[1] / "profiles" / "scenarios" / "README.md").read_text(encoding="utf-8")
    start = readme.index("## How to add an ability")
    section = readme[start : readme.index("\n## ", start + 1)] if "\n## " in readme[start + 1 :] else readme[start:]
    missing = [t.value for t in Trigger if f"`{t.value}`" not in section and f"/`{t.value}`" not in section]
    assert missing == []


def test_only_the_cards_of_the_scenario_are_in_play(tmp_path: Path) -> None:
    """A plan with a Force Field has the Force Field card in play and its hooks at their trigger points; a plan with
    none has no card of it, so its triggers cost nothing."""
    with_field = Simulation(scenario(tmp_path, FIELD), 2, seed=1)
    card = with_field.cards.of("force_field")
    assert isinstance(card, ForceField)
    assert card.use in with_field.cards.use and card.cleanup in with_field.cards.cleanup
    assert all(getattr(h, "__self__", None) is not card for h in with_field.cards.before_attack)
    card.field[:] = True
    with_field.cleanup(np.arange(2))  # 7.3 / 8.9.5: the token goes at the Cleanup, through the registry
    assert not card.field.any()
    without = Simulation(scenario(tmp_path, None), 2, seed=1)
    assert without.cards.of("force_field") is None
    assert not any(isinstance(c, ForceField) for c in without.cards)
    assert isinstance(without.cards, CardSet)
