"""The cards' plan checks and schema checks through the registry (issue 26 point 1): each Active ability's plan check
is a ``checkview.CardCheck`` in its card's module (``Card.plan_check``), found by ``scenario check`` through the
registry; each card's ``Card.validate`` is called when a scenario file is read, and a bad value of a plan field only a
card reads (the ``via`` of Warp Conduit and Omega Network, 8.5.5) is refused naming the file, the field, the value and
what is allowed (``scenario check`` exits 2)."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import mathhammer.scenario.check as check_package
from mathhammer.cli import app
from mathhammer.scenario import ScenarioError
from mathhammer.scenario.cards import card_for, plan_checks, reaction_checks, registered
from mathhammer.scenario.cards.deploy_via import DeployVia
from mathhammer.scenario.cards.force_field import ForceFieldCheck
from mathhammer.scenario.cards.regeneration import Regeneration
from mathhammer.scenario.check.cards import FAMILIES
from mathhammer.scenario.check.reactions import REACTION_FAMILIES
from mathhammer.scenario.checkview import CardCheck, ReactionCheck
from mathhammer.starcraft.schema import Effect

from .scenario_kit import build, errors, skirmish
from .test_scenario import _toml
from .test_scenario_reaction_checks import REACTION_ORDER

runner = CliRunner()
DEPLOY = {"unit": "marine-1", "action": "deploy", "to": [9, 4]}


def plan(red_assault: list[dict]) -> list[dict]:
    return [
        {"round": 1, "red": {"movement": [DEPLOY]}},
        {"round": 2, "red": {"assault": red_assault}},
    ]


def test_each_plan_check_lives_in_its_cards_module() -> None:
    """The plan checks of the Active abilities and Statuses are the cards' (``plan_check``), defined in the card's own
    module, found through the registry in their order; the check package holds none (no ``card_families``)."""
    with_check = [c for c in registered() if c.plan_check is not None]
    assert len(with_check) >= 12
    for card in with_check:
        assert card.plan_check is not None and issubclass(card.plan_check, CardCheck)
        assert card.plan_check.__module__ == card.__module__, card
    assert list(FAMILIES) == plan_checks() == sorted(plan_checks(), key=lambda k: k.order)
    assert not (Path(inspect.getfile(check_package)).parent / "card_families.py").exists()
    # the order the plan walk always had (on_use: Comsat Station, End of the Round tokens, Force Field, summons,
    # Mass Recall, detection)
    names = [k.__name__ for k in FAMILIES]
    assert names.index("EdgeBlockCheck") < names.index("EndTokenCheck") < names.index("ForceFieldCheck")
    assert names.index("ForceFieldCheck") < names.index("SummonCheck") < names.index("ToReservesCheck")
    assert names.index("ToReservesCheck") < names.index("DetectorCheck") < names.index("BurrowCheck")
    assert names.index("BurrowCheck") < names.index("ExtraMoveCheck")


def test_every_cards_validate_is_called_when_the_file_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Card.validate`` of every registered card is called by the loader: a card's problem refuses the file."""
    data = skirmish(rounds=plan([{"unit": "marine-1", "action": "hold"}]))
    build(data)  # a legal file
    monkeypatch.setattr(Regeneration, "validate", classmethod(lambda cls, scn: [f"{scn.file}: regeneration says no"]))
    with pytest.raises(ScenarioError, match=r"test\.toml: regeneration says no"):
        build(data)


def test_via_on_a_shoot_is_refused_by_the_card() -> None:
    """8.5.5 (Warp Conduit, Omega Network): ``via`` is on a deploy (a base that counts as an Entry Edge) or a move, run
    or disengage (Omega Network's return); on a shoot the file is refused, naming the file, the field and the value."""
    shot = {"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"], "via": "marine-2"}
    with pytest.raises(ScenarioError) as info:
        build(skirmish(rounds=plan([shot])))
    assert info.value.problems == [
        "test.toml: rounds[1].red.assault[0].via: on a shoot; allowed on a deploy (through a base that counts as an "
        "Entry Edge) or a move, run or disengage (back to Reserves by Omega Network)"
    ]
    scn = build(skirmish(rounds=plan([{k: v for k, v in shot.items() if k != "via"}])))
    assert DeployVia.validate(scn) == []
    assert not any(".via" in p for p in errors(scn))


def test_via_names_a_unit_of_the_player() -> None:
    """``via`` names a unit of the activation's player (its base the Entry Edge): an enemy unit is refused with the
    player's units allowed."""
    move = {"unit": "marine-1", "action": "move", "to": [9, 8], "via": "zergling-1"}
    with pytest.raises(ScenarioError) as info:
        build(skirmish(rounds=[*plan([]), {"round": 3, "red": {"movement": [move]}}]))
    (msg,) = info.value.problems
    assert msg.startswith("test.toml: rounds[2].red.movement[0].via: got 'zergling-1'; allowed: a unit of red ")
    assert "marine-1, marine-2" in msg


def test_cli_check_refuses_a_bad_via_exit_2(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    shot = {"unit": "marine-1", "action": "shoot", "targets": ["zergling-1"], "via": "marine-2"}
    f.write_text(_toml(skirmish(rounds=plan([shot]))))
    res = runner.invoke(app, ["scenario", "check", str(f)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "rounds[1].red.assault[0].via: on a shoot; allowed on a deploy" in res.output


#: Effect kinds a card owns that the walk still reads itself, as stats of the loadout (every card's alike, as
#: ``speed``): ``charge_roll``'s ``value`` (Leap) summed into the Charge Distance; ``disengage_supply`` (Commander)
#: summed into the Supply for Disengage checks (8.5.4).
WALK_READS = {"moves.py": {"charge_roll"}, "common.py": {"disengage_supply"}}

CHECK_DIR = Path(inspect.getfile(check_package)).parent


def _named_kinds(source: str) -> set[str]:
    """The effect kinds owned by a registered card that ``source`` names as a string literal."""
    owned = {kind for card in registered() for kind in card.kinds}
    return {kind for kind in owned if f'"{kind}"' in source or f"'{kind}'" in source}


def test_the_guard_sees_a_kind_named_in_a_check_file() -> None:
    """The guard below fails where a check file reads a card's kind by name (a Reaction's or an Active ability's)."""
    assert _named_kinds('if e.kind == "cost_reduction":') == {"cost_reduction"}
    assert _named_kinds("any(e.kind == 'heal_after_place' for e in a.effects)") == {"heal_after_place"}
    assert _named_kinds('e.kind in ("charger_debuff_speed", "hits")') == {"charger_debuff_speed"}
    assert _named_kinds('e.kind == "speed"') == set()  # a stat of every loadout, no card's


@pytest.mark.parametrize("module", sorted(p.name for p in CHECK_DIR.glob("*.py")))
def test_the_walk_names_no_cards_effect_kind(module: str) -> None:
    """Issue 26 point 1: no file of the check package (the plan walk and its Reactions) reads a card's effect kind by
    name (Deploy by another edge, by PLACE or through a base, HIDDEN and detection, ON CREEP, the Disengage penalty
    lifted, the plan fields only a card reads, the End of the Round's tokens and removals, the Reactions' triggers, an
    ability acting on a Charge only, the cost reductions): each is a hook of the card's plan check (``CardCheck``) or
    Reaction check (``ReactionCheck``)."""
    assert _named_kinds((CHECK_DIR / module).read_text()) == WALK_READS.get(module, set())


def test_every_check_file_is_guarded() -> None:
    """The files above are every module of the check package, Reactions included (no card's check left in it)."""
    names = {p.name for p in CHECK_DIR.glob("*.py")}
    assert {"reactions.py", "walk.py", "common.py", "cards.py", "moves.py", "attacks.py"} <= names
    assert "reaction_cards.py" not in names


def test_each_reaction_check_lives_in_its_cards_module() -> None:
    """10.4: every Reaction check is a card's (``Card.reaction_check``), defined in that card's module, and the walk
    tries them as the registry gives them, in ascending ``order`` (the order the walk always had)."""
    owners = {card.reaction_check: card for card in registered() if card.reaction_check is not None}
    assert list(REACTION_FAMILIES) == sorted(reaction_checks(), key=lambda f: f.order)
    assert set(REACTION_FAMILIES) == set(owners)
    for family, card in owners.items():
        assert issubclass(family, ReactionCheck)
        assert family.__module__ == card.__module__, (family, card)
    assert [f.__name__ for f in REACTION_FAMILIES] == list(REACTION_ORDER)
    kinds = {"charge_roll", "charger_debuff_speed", "heal_after_place", "cost_reduction", "deploy_edge"}
    for kind in kinds:  # the owners of the families moved out of the check package
        card = card_for(kind)
        assert card is not None and card.reaction_check in REACTION_FAMILIES, kind


def test_the_check_package_defines_no_cards_check() -> None:
    """No ``CardCheck`` or ``ReactionCheck`` subclass is defined in the check package: each is its card's."""
    for path in CHECK_DIR.glob("*.py"):
        source = path.read_text()
        assert "(ReactionCheck):" not in source and "(CardCheck):" not in source, path.name
        assert "second_charge" not in source, path.name  # Lightning Dash's lookup: its card's charge_again


@pytest.mark.parametrize(
    ("kind", "step"),
    [("charge_roll", "roll"), ("impact_hit", "impact"), ("impact_dice", "impact"), ("speed", None), ("place", None)],
)
def test_an_effect_acting_on_a_charge_only_is_its_cards_answer(kind: str, step: str | None) -> None:
    """8.7.7: the Charge Roll (``charge_roll``) and IMPACT (``impact_dice``, ``impact_hit``) act on a Charge only; the
    card owning the kind says so (``CardCheck.charge_only``), exactly one card answers, and no card for another kind."""
    e = Effect(kind=kind, value=1)
    answers = [s for fam in FAMILIES if (s := fam.charge_only(e)) is not None]
    assert answers == ([step] if step else [])
    if step:
        owner = card_for(kind)
        assert owner is not None and owner.plan_check is not None and owner.plan_check.charge_only(e) == step


def test_the_force_fields_a_charge_goes_round_are_the_cards_answer() -> None:
    """Force Field ("Units of Size 2 or lower cannot move across Force Fields"; the effect's ``value``: the largest
    Size held back): the plan walk's Charge (8.7.7) reads the walls from the card's ``charge_walls``, only the Force
    Fields set this Round that stop the charging unit's Size."""
    scn = build(skirmish(rounds=plan([{"unit": "marine-1", "action": "hold"}])))
    size = scn.units["marine-1"].unit.card.size
    assert isinstance(size, int)
    chk = SimpleNamespace(scn=scn, fields_now=[((5.0, 5.0), size), ((9.0, 9.0), size - 1)])
    act = SimpleNamespace(unit="marine-1")
    assert ForceFieldCheck.charge_walls(chk, act) == ((5.0, 5.0),)  # type: ignore[arg-type]
    walls = tuple(c for fam in FAMILIES for c in fam.charge_walls(chk, act))  # type: ignore[arg-type]
    assert walls == ((5.0, 5.0),)
