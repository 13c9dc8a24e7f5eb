"""The Charge and Shoot verdicts read without the plan walk (scenario/players/attackverdicts.py) held to the walk: in
the states of random games (two deployment cards; Terran, Zerg with Creep, Protoss lists) and of bases set at random,
every entry they answer is answered the same by ``scenario check``'s walk (8.7.7: an Unengaged Ground unit charges
Ground targets on the table, its path at most Speed + 6 + the Charge Roll additions; 8.7.3 step 1: a Batch eligible at
a target on the table, in Range and Line of Sight, the Engaged restrictions); and the legality's masks are the same
with and without them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathhammer.scenario.players.attackverdicts import AttackVerdicts
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.moveverdicts import MoveVerdicts
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import VILE, ZEALOTS
from tests.test_autoplay_moveverdicts import PROTOSS, SIX, _scenario, each_state, states_at_random

#: the counts kept: verdicts by kind and the walk's reason, and the entries of those kinds left to the walk
COUNTS = ("shot", "unseen", "charged", "far", "engaged", "flying", "off", "walk")


def _reason(action: str, errors: list[str]) -> str:
    """The walk's refusal of a Charge or Shoot, named."""
    text = " ".join(errors)
    if action == "shoot":
        return "off" if "not on the table" in text else "unseen"
    if "Engaged" in text:
        return "engaged"
    if "Flying" in text or "must be Ground units" in text:
        return "flying" if "Flying" in text else "off"
    return "far"


def _held(sim: Simulation, counts: dict[str, int]) -> None:
    """Before each activation of ``sim``: every entry of every unit on the table in each live game's state that
    :class:`AttackVerdicts` answers (a fresh one: no memo) and no shortcut refuses (where ``Legality`` asks it) has the
    walk's verdict (``Legality.walked``), counted by kind and the walk's reason."""

    def visit(leg: Legality, phase: str, state: tuple[int, ...], u: int) -> None:
        fast = AttackVerdicts(sim, leg.menus, leg.check, MoveVerdicts(sim, leg.menus, leg.check))
        _compare(leg, fast, phase, state, u, counts)

    each_state(sim, visit)


def _compare(
    leg: Legality, fast: AttackVerdicts, phase: str, state: tuple[int, ...], u: int, counts: dict[str, int]
) -> None:
    """Each Charge and Shoot entry of unit ``u`` no shortcut refuses in ``state``: ``fast``'s verdict, where it gives
    one, is the walk's; counted by kind and the walk's reason ("walk": left to it)."""
    n = leg.view.U
    menu = leg.menus[leg.view.uids[u]]
    cut = leg.shortcuts(u, phase, state)  # asked only where no shortcut refuses (``Legality._walk``)
    for i, e in enumerate(menu[phase]):
        if cut[i] or e.action not in ("charge", "shoot"):
            continue
        got = fast.verdict(u, phase, i, state)
        if got is None:
            counts["walk"] += 1
            continue
        assert got == leg.walked(u, phase, i, state), (menu.unit, e, state)
        if got:
            counts["shot" if e.action == "shoot" else "charged"] += 1
            continue
        whole = e.activation(menu.unit, menu.player, leg.view.round, phase)
        errors = leg.check.problems_of(whole, list(state[:n]), list(state[n : 2 * n]), state[2 * n])
        counts[_reason(e.action, errors)] += 1


@pytest.mark.parametrize(
    ("card", "preset", "red", "blue", "trials", "seed"),
    [
        ("Gauntlet", "standard", *SIX, 3, 5),  # the lists
        ("Frontier", "standard", None, None, 4, 7),  # the kit's Marines, Marauders against Zerglings, Roaches
        ("Frontier", "standard", ZEALOTS, VILE, 4, 3),  # Protoss against Zerg with Accelerating Creep
        ("Gauntlet", "standard", PROTOSS, SIX[1], 3, 9),
    ],
)
def test_charge_and_shoot_verdicts_are_the_walks(
    tmp_path: Path, card: str, preset: str, red: str | None, blue: str | None, trials: int, seed: int
) -> None:
    """8.7.3 and 8.7.7: in the states of random games (4 Rounds), each Charge or Shoot verdict given without the walk
    is the walk's; Shoots and Charges admitted, Charges refused (beyond Speed + 6, or Engaged)."""
    scn = _scenario(tmp_path, card, preset, red, blue, length=4)
    counts = dict.fromkeys(COUNTS, 0)
    _held(Simulation(scn, trials, seed), counts)
    assert counts["shot"] > 5 and counts["charged"] > 0 and counts["far"] + counts["engaged"] > 0, counts


@pytest.mark.parametrize(("card", "red", "blue"), [("Gauntlet", *SIX), ("Frontier", ZEALOTS, VILE)])
def test_attack_verdicts_among_bases_set_at_random(tmp_path: Path, card: str, red: str, blue: str) -> None:
    """8.7.7 (an Unengaged Ground unit; the path at most Speed + 6 + additions; Flying units neither charge nor are
    charged) and 8.7.3 step 1 (a Batch in Range and Line of Sight of a target on the table; the Engaged restrictions):
    states with the units set at random near the menus' points, models left at random, and Creep Tumors at random
    (Accelerating Creep: BUFF Speed ON CREEP): each verdict given without the walk where no shortcut refuses is the
    walk's, and each reason occurs (a Shoot and a Charge admitted, a Shoot refused, a Charge too far, one Engaged)."""
    counts = _at_random(tmp_path, card, red, blue, 31, 60)
    assert min(counts["shot"], counts["charged"], counts["unseen"], counts["far"], counts["engaged"]) > 0, counts


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), zerg=st.booleans())
def test_attack_verdicts_among_bases_over_seeds(tmp_path: Path, seed: int, zerg: bool) -> None:
    """8.7.3, 8.7.7: the same held in the states drawn from any seed (the issue's lists on the Gauntlet card, or
    Protoss against Zerg with Accelerating Creep on the Frontier card): every verdict given without the walk is the
    walk's."""
    card, red, blue = ("Frontier", ZEALOTS, VILE) if zerg else ("Gauntlet", *SIX)
    counts = _at_random(tmp_path, card, red, blue, seed, 12)
    assert sum(counts[k] for k in COUNTS if k != "walk") > 0, counts


def _at_random(tmp_path: Path, card: str, red: str, blue: str, seed: int, states: int) -> dict[str, int]:
    """``states`` states drawn from ``seed`` (the units set at random near a menu's Move point, models left and a
    Creep Tumor at random): each Charge and Shoot verdict given without the walk where no shortcut refuses is the
    walk's (asserted); the verdicts counted by kind and the walk's reason."""
    scn = _scenario(tmp_path, card, "standard", red, blue)
    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    counts = dict.fromkeys(COUNTS, 0)
    for pos, _, state in states_at_random(sim, leg, seed, states, 6.0, 0.15):
        for u in range(sim.U):
            if pos[u] >= 0:
                _compare(leg, leg.attacks, "assault", state, u, counts)
    return counts
