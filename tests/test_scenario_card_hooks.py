"""The Simulation reads the cards' per-game state only through trigger points (issue 26 point 1): the units counted
as Activated in a Phase (Zealous Round 10.4, Crushing Grip) and allowed a second activation (Orders), SIEGE MODE's
CLOSE RANKS (8.8.1 step 1), HIDDEN (part 11), SUMMON's order of activations (9.1.9). Each card's rules are tested in
its own file (test_scenario_select.py, test_scenario_abilities.py, test_scenario_hidden.py, ...); here: the
Simulation calls the hook of the trigger, and a card not in play costs nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from mathhammer.scenario.cards import Trigger
from mathhammer.scenario.cards.burrow import Burrow, burrowed, set_burrowed
from mathhammer.scenario.cards.hidden import Hidden
from mathhammer.scenario.cards.selected import Selected
from mathhammer.scenario.cards.siege_mode import SiegeMode
from mathhammer.scenario.cards.summon import Summon
from mathhammer.scenario.cards.supply import Supply
from mathhammer.scenario.lookup import use_bits
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation
from mathhammer.starcraft.schema import Ability, Effect

from . import test_scenario_hidden as hidden
from . import test_scenario_summon as summon
from .test_scenario_close_ranks import _charged
from .test_scenario_force_field import scenario as field_scenario
from .test_scenario_select import armies as armies
from .test_scenario_select import grip_plan
from .test_scenario_select import scenario as select_scenario

#: the triggers added for the per-Phase activation state and the rules that left Simulation (issue 26 point 1)
NEW = ("begin_phase", "counts_activated", "activate_again", "stays_put", "keeps_status", "lifts_penalty", "hiders")
#: the triggers through which the Burrow and Supply cards left sim_move.py and sim_combat.py
STATUS = ("end_status", "supply_for_mass", "before_fight")
SCENARIO = Path(__file__).resolve().parents[1] / "mathhammer" / "scenario"


def _move_of(sim: Simulation, unit: str, rnd: int) -> Activation:
    return next(a for a in sim.scn.plan if a.unit == unit and a.round == rnd and a.action == "move")


def _hidden_scenario(tmp_path: Path):
    """The scenario of tests/test_scenario_hidden.py (Roaches with Burrow against Marines), its plan with a Burrow."""
    armies = hidden.write_armies(tmp_path, hidden.RED, hidden.BLUE)
    return hidden.build(hidden.skirmish("hidden", armies=armies, rounds=hidden.plan(True, None)), "h.toml")


def test_the_new_triggers_are_card_hooks_and_card_set_lists(tmp_path: Path) -> None:
    for name in NEW:
        assert Trigger(name).value == name
    sim = Simulation(field_scenario(tmp_path, None), 2, seed=1)
    for name in NEW:
        assert isinstance(getattr(sim.cards, name), list), name


def test_the_simulation_keeps_no_card_state_of_its_own(tmp_path: Path) -> None:
    """Zealous Round's, Crushing Grip's and Orders' arrays are the cards' (none on the Simulation), and a plan that
    selects no unit has no Selected card: no "again" or "gripped" read at any activation."""
    sim = Simulation(field_scenario(tmp_path, None), 2, seed=1)
    for gone in ("flipped", "gripped", "again", "child_of"):
        assert not hasattr(sim, gone), gone
    assert not any(isinstance(c, Selected) for c in sim.cards)
    assert sim.cards.activate_again == [] and sim.cards.stays_put == [] and sim.cards.lifts_penalty == []


def test_crushing_grip_state_is_the_cards_and_ends_with_the_phase(armies: dict[str, str]) -> None:
    """Crushing Grip ("That Unit counts as Activated in this Phase"): the Selected card holds it per game; the unit's
    activation in that Phase is not made (skip report), and at the next Phase, also where activations are driven one
    by one (not by ``play_phase``), it is gone (8.2.1: the Phase's activations start afresh)."""
    scn = select_scenario(armies, grip_plan((22, 24)))
    sim = Simulation(scn, 4, seed=4)
    card = next(c for c in sim.cards if isinstance(c, Selected))
    assert card.counts_activated in sim.cards.counts_activated and card.begin_phase in sim.cards.begin_phase
    m = sim.uids.index("marine-1")
    act = _move_of(sim, "marine-1", 3)
    sim.round = 3
    sim.new_phase(3, "movement")
    card.gripped[m, [1, 3]] = True
    sim.activate(act, np.arange(4))
    assert sum(v for k, v in sim.skipped.items() if "an enemy's Crushing Grip" in k) == 2
    assert sim.acted[m].tolist() == [True, False, True, False]
    sim.round = 4  # a later Phase: the state is gone before the unit's activation is read
    card.gripped[m, :] = True
    sim.activate(act, np.arange(4))
    assert not card.gripped.any()
    assert sum(v for k, v in sim.skipped.items() if "an enemy's Crushing Grip" in k) == 2


def test_the_simulation_asks_the_counts_activated_hook(armies: dict[str, str]) -> None:
    """A hook at the ``counts_activated`` trigger decides the games where the unit activates; the others are not
    counted as activated by the Simulation (the card reports them)."""
    scn = select_scenario(armies, grip_plan((22, 24)))
    sim = Simulation(scn, 4, seed=4)
    seen: list[tuple[int, list[int]]] = []

    def hook(u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        seen.append((u, trials.tolist()))
        return trials[trials % 2 == 0]

    sim.cards.counts_activated.insert(0, hook)
    m = sim.uids.index("marine-1")
    sim.round = 3
    sim.activate(_move_of(sim, "marine-1", 3), np.arange(4))
    assert seen == [(m, [0, 1, 2, 3])]
    assert sim.acted[m].tolist() == [True, False, True, False]


def test_orders_second_activation_is_spent_through_activate_again(armies: dict[str, str]) -> None:
    """8.4.1: a unit activates once a Phase, unless a card removed its Activation Marker (Orders): the
    ``activate_again`` hook answers per game, once per removal."""
    scn = select_scenario(armies, grip_plan((22, 24)))
    sim = Simulation(scn, 3, seed=4)
    card = next(c for c in sim.cards if isinstance(c, Selected))
    m = sim.uids.index("marine-1")
    act = _move_of(sim, "marine-1", 3)
    sim.round = 3
    sim.activate(act, np.arange(3))
    card.again[m, [0, 2]] = True  # Orders: "Remove the Activation Marker from that Unit"
    sim.activate(act, np.arange(3))
    assert sum(v for k, v in sim.skipped.items() if "already activated" in k) == 1
    assert not card.again.any()  # spent
    sim.activate(act, np.arange(3))
    assert sum(v for k, v in sim.skipped.items() if "already activated" in k) == 4


def test_siege_mode_keeps_the_unit_out_of_close_ranks() -> None:
    """8.8.1 step 1 CLOSE RANKS: a unit with SIEGE MODE from an ability used this Round does not move (the
    ``stays_put`` trigger); the same unit without it presses into the fight. SIEGE MODE is in no card data (the
    schema does not take it as a unit keyword yet), so the effect is built unvalidated here."""
    siege = Effect.model_construct(kind="unit_keyword", keyword="SIEGE MODE", against="all", value=0)
    ability = Ability(name="Siege Mode (test)", phase="any", type="passive", text="SIEGE MODE", effects=[])
    ability.effects.append(siege)
    moved = []
    for on in (True, False):
        sim, pids = _charged()
        z = sim.uids.index("zergling-1")
        assert sim.cards.stays_put == []  # not in play: no scenario ability gives SIEGE MODE
        if on:
            sim.inflicted[ability.name] = ability
            sim.used[z, 0] |= use_bits(sim, z, [ability.name])
            card = SiegeMode(sim)
            assert card.stays_put(z, int(sim.used[z, 0]))
            sim.cards.stays_put.append(card.stays_put)
        sim.close_ranks(z, np.arange(1))
        moved.append(int(sim.pos[z, 0]) != pids["zergling-1"])
    assert moved == [False, True]


def test_hidden_names_only_units_that_can_hide(tmp_path: Path) -> None:
    """Part 11 HIDDEN ("A BURROWED Unit has the HIDDEN Status"): at a Ranged Attack the Hidden card names, of the
    targets, those that can be HIDDEN (the Roaches, with Burrow; not the Marines), each with its facts tag:
    "Burrowed" where the Status bit is set, None without it; with no such unit in the scenario the card is not in
    play and the trigger list is empty."""
    scn = _hidden_scenario(tmp_path)
    sim = Simulation(scn, 2, seed=1)
    card = next(c for c in sim.cards if isinstance(c, Hidden))
    assert sim.cards.hiders == [card.hiders]
    r, m = sim.uids.index("roach-1"), sim.uids.index("marine-1")
    tags = card.hiders([m, r])
    assert list(tags) == [r]
    set_burrowed(sim, r, np.arange(2), True)
    assert tags[r](int(sim.used[r, 0])) == "Burrowed" and tags[r](0) is None
    plain = Simulation(field_scenario(tmp_path, None), 2, seed=1)
    assert plain.cards.hiders == [] and not any(isinstance(c, Hidden) for c in plain.cards)


def test_summoned_unit_activates_after_its_parent_through_the_summon_card(tmp_path: Path) -> None:
    """SUMMON: the Summoned Unit is "Activated immediately after its Parent Unit" (the Summon card's
    ``activates_next``), in play wherever the scenario has a Summoned Unit; and 9.1.9: its planned Deploy is not
    made (the card's ``admit``, skip report)."""
    plan = summon.infest_plan(assault=[summon.hold("corpser-1"), summon.hold("marine-1")])
    plan[1]["red"] = {"assault": [summon.hold("marine-1")]}
    plan[1]["blue"]["assault"] = [summon.hold("corpser-1"), summon.hold("zergling-1"), summon.hold("roachling-1")]
    scn = summon.scenario(tmp_path, summon.TERRAN, summon.CORPSER, plan)
    sim = Simulation(scn, 1, seed=2)
    card = next(c for c in sim.cards if isinstance(c, Summon))
    assert sim.cards.activates_next == [card.activates_next] and card.admit in sim.cards.admit
    order, _ = sim.order(2, "assault", 1)
    assert [a.unit for a in order] == ["corpser-1", "roachling-1", "marine-1", "zergling-1"]
    deploy = Activation("test", 1, "movement", "blue", "roachling-1", "deploy", to=(18.0, 30.0))
    assert card.admit(sim.uids.index("roachling-1"), deploy, np.arange(1)).size == 0
    assert sum(v for k, v in sim.skipped.items() if "Summoned Unit is not Deployed" in k) == 1


def card_imports(source: str) -> list[str]:
    """The card modules (``cards/<module>.py`` other than the registry) a module of ``mathhammer/scenario/`` imports
    in ``source``: ``from .cards.<module> import ...`` or ``from .cards import <module>``."""
    cards = {p.stem for p in (SCENARIO / "cards").glob("*.py")} - {"__init__", "registry"}
    hits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom) or node.level not in (1, 2) or not node.module:
            continue
        parts = node.module.split(".")
        if parts[0] != "cards":
            continue
        if len(parts) > 1 and parts[1] in cards:
            hits.append(parts[1])
        elif len(parts) == 1:
            hits += [a.name for a in node.names if a.name in cards]
    return hits


def test_no_simulation_module_imports_a_card_by_name() -> None:
    """Issue 26 point 1: "Simulation and check call the registry, never a card by name": no ``sim*.py``, no module of
    ``check/`` and not ``mission.py`` imports a card module (the registry and the package's names are allowed); the
    test's reader finds such an import."""
    sims = sorted(SCENARIO.glob("sim*.py"))
    assert len(sims) >= 6  # sim, sim_combat, sim_move, sim_round, sim_shoot, sim_state, simview
    checks = sorted((SCENARIO / "check").glob("*.py"))
    assert len(checks) >= 5
    found = {p.name: card_imports(p.read_text()) for p in [*sims, *checks, SCENARIO / "mission.py"]}
    assert {k: v for k, v in found.items() if v} == {}
    assert card_imports("from .cards import CardSet\nfrom .cards.registry import status_changers\n") == []
    assert card_imports("from .cards.burrow import burrowed\n") == ["burrow"]
    assert card_imports("from .cards import supply, CardSet\n") == ["supply"]
    assert card_imports("from ..cards.selected import select_reach\n") == ["selected"]  # from check/


def test_the_status_triggers_are_the_burrow_cards(tmp_path: Path) -> None:
    """Part 11 BURROWED through the triggers: ``end_status`` (a Move, Run or Disengage or a return to Reserves ends
    the Status), ``supply_for_mass`` (0 Supply for Disengage checks, 8.5.4), ``before_fight`` (Close Ranks removes it,
    8.8.1); the Supply card answers ``supply_for_mass`` only where a unit has a ``disengage_supply`` effect."""
    for name in STATUS:
        assert Trigger(name).value == name
    scn = _hidden_scenario(tmp_path)
    sim = Simulation(scn, 4, seed=1)
    burrow = next(c for c in sim.cards if isinstance(c, Burrow))
    assert sim.cards.end_status == [burrow.end_status] and sim.cards.before_fight == [burrow.before_fight]
    assert sim.cards.supply_for_mass == [burrow.supply_for_mass]  # no Commander: no Supply card
    assert not any(isinstance(c, Supply) for c in sim.cards)
    r, games = sim.uids.index("roach-1"), np.arange(4)
    set_burrowed(sim, r, games[:2], True)
    assert sim._mass_supply(r, games).tolist() == [0, 0, *sim._mass_supply(r, games[2:]).tolist()]
    assert sim._mass_supply(r, games[2:]).min() > 0
    sim.to_reserves(r, games[:1])
    assert burrowed(sim, r, games).tolist() == [False, True, False, False]
