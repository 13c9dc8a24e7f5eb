"""The Reaction checks of the cards (10.4; issue 26 point 1): a card holds its plan check (``Card.reaction_check``, a
:class:`~mathhammer.scenario.checkview.ReactionCheck` typed with the ``CheckView`` Protocol), and ``scenario check``
finds it through the cards registry, tried in each family's ``order`` (the first whose ``match`` reads an effect of
the Reaction checks it). The rules of each family are tested in its own file (Life Support and Debilitating Saliva:
test_scenario_abilities.py; Hierarch's Stand: test_scenario_redirect.py; Lightning Dash:
test_scenario_lightning_dash.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from mathhammer.scenario import cards
from mathhammer.scenario.cards import card_for, reaction_checks
from mathhammer.scenario.check.reactions import REACTION_FAMILIES
from mathhammer.starcraft.schema import Ability, Effect

#: the Reaction check families in the order the walk tries them (their ``order``), wherever they live
REACTION_ORDER = (
    "ChargeRollReaction",
    "ChargerDebuffReaction",
    "AttackerDebuffReaction",
    "DebuffRemoverReaction",
    "ReductionReaction",
    "RedirectReaction",
    "EntryHitsReaction",
    "HealAfterPlaceReaction",
    "TargetReaction",
    "CostReductionReaction",
    "SecondChargeReaction",
)


def test_the_cards_reaction_checks_are_found_in_their_order() -> None:
    """The families moved into cards keep their place among check's own (the order the walk tried them in)."""
    names = [f.__name__ for f in REACTION_FAMILIES]
    assert names == list(REACTION_ORDER)
    for kind in ("reduce_damage", "redirect", "second_charge", "enemy_weapon_keyword", "remove_debuffs"):
        card = card_for(kind)
        assert card is not None and card.reaction_check in REACTION_FAMILIES, kind
        assert card.reaction_check in reaction_checks()
        assert card.reaction_check.__module__.startswith("mathhammer.scenario.cards."), kind


def test_each_family_matches_its_own_effect() -> None:
    """``match`` picks the effect its family answers for and nothing else (a Reaction of one family is checked by
    it, not by the next one in order)."""
    effects = {
        "reduce_damage": Effect(kind="reduce_damage", value=1),
        "redirect": Effect(kind="redirect", within=8),
        "second_charge": Effect(kind="second_charge"),
        "remove_debuffs": Effect(kind="remove_debuffs", within=4),
    }
    for kind, e in effects.items():
        a = Ability(name=kind, phase="any", type="reaction", text="", effects=[e])
        matching = [f for f in REACTION_FAMILIES if f.match(a) is not None]
        owner = card_for(kind)
        assert owner is not None and matching[0] is owner.reaction_check, (kind, matching)


_WALKS = ("check", "sim", "sim_shoot", "sim_combat", "sim_state", "sim_move", "sim_round")


def test_card_modules_import_neither_the_simulation_nor_the_check() -> None:
    """A card reaches the walk state only through the Protocols (simview, checkview): no import cycle."""
    for path in Path(cards.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                top = node.module.split(".")[0]
                assert top not in ("check", "sim", "sim_shoot", "sim_combat", "sim_state", "sim_move"), (
                    path,
                    node.module,
                )
