"""ON CREEP (part 11: "A Friendly or Enemy Ground Zerg Unit is considered to be ON CREEP while it is Within 6\" of any
Creep Tumor Token or any model designated as a Source of Creep"): effects marked ``on_creep`` apply only then
(issue 6, point 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mathhammer.scenario import abilities
from mathhammer.scenario.cards import creep
from mathhammer.scenario.sim import Simulation
from mathhammer.starcraft.loadout import as_target, make_loadout
from mathhammer.starcraft.roster import load_roster

from .scenario_kit import army, build, errors, skirmish
from .test_scenario_abilities import RED, write_armies
from .test_scenario_charge_abilities import ZERGLING, assert_share, charge_plan, impact_batches


def _creep(sim: Simulation) -> creep.Creep:
    """The Creep card in play in ``sim`` (its Creep Tumor tokens, per game)."""
    card = sim.cards.of("creep_tumor")
    assert isinstance(card, creep.Creep)
    return card


def test_an_on_creep_target_effect_needs_creep() -> None:
    """Lurking (Hydralisk upgrade): "If this Unit is ON CREEP, it gains BUFF Evade (1)" against Ranged Attacks:
    not in the target profile off creep, there on creep."""
    lo = make_loadout(load_roster().unit("Hydralisk"), 2, ["Lurking"])
    off, on = as_target(lo, "assault"), as_target(lo, "assault", on_creep=True)
    assert [k.name for k in off.keywords] == []
    assert [(k.name, k.tag, k.value) for k in on.keywords] == [("BUFF", "Evade", 1)]


def test_glial_reconstitution_is_speed_2_on_creep_not_3() -> None:
    """Glial Reconstitution: "This Unit gains BUFF SPEED (1), or BUFF SPEED (2) if the Unit is ON CREEP"."""
    roster = load_roster()
    for unit in ("Roach", "Corpser (Roach)", "Vile (Roach)"):
        card = roster.unit(unit).card
        (glial,) = [a for up in card.upgrades for a in up.abilities if a.name == "Glial Reconstitution"]
        off = sum(e.value for e in glial.effects if e.kind == "speed" and not e.on_creep)
        assert (off, off + sum(e.value for e in glial.effects if e.kind == "speed" and e.on_creep)) == (1, 2)


def test_glial_reconstitution_off_creep_adds_1_to_the_charge(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Glial Reconstitution used in the Movement Phase, off creep: BUFF SPEED (1) for the Round, so the Charge Roll
    needed, r, becomes r - 1: the share of short Charges goes from (r - 1) / 6 to (r - 2) / 6 (5 SE; with the
    ON CREEP +1 as well, it would be (r - 3) / 6)."""
    zerg = army("Kerrigan's Swarm", ("Vile (Roach)", 3, ["Glial Reconstitution"]), tactical=("Spawning Pool",))
    armies = write_armies(tmp_path_factory.mktemp("glial"), RED, zerg)
    n = 3000
    shares = []
    for use in (False, True):
        plan = charge_plan("vile-1", [], [])
        for act in (a for r in plan for a in r["blue"].get("movement", []) if a["action"] == "deploy"):
            act["to"][1] = 33.0  # 8.5.5: the Vile's 50 mm base within Speed 4" of the north Entry Edge
        if use:
            plan[2]["blue"]["movement"][0]["use"] = ["Glial Reconstitution"]
        scn = build(skirmish("glial", armies=armies, rounds=plan), "glial.toml")
        assert errors(scn) == []
        sim = Simulation(scn, n, seed=5)
        sim.run()
        shares.append(sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n)
    short = round(shares[0] * 6)
    assert 2 <= short <= 5, shares
    assert_share(shares[0], short / 6, n)
    assert_share(shares[1], (short - 1) / 6, n)


# ----------------------------------------------------------------- Creep Tumor tokens
SPREAD = "Creep Spread"  # Hatchery: "Set a Creep Tumor token on the battlefield Within 6\" ... of either a Friendly
# Entry Edge or an existing Friendly Creep Tumor token"


def creep_zerg(*cards: str) -> str:
    return army("Kerrigan's Swarm", ("Zergling", 12), tactical=("Hatchery", *cards))


def creep_scenario(tmp_path_factory: pytest.TempPathFactory, zerg: str, token: tuple[float, float] | None):
    """The Zerglings charge the Marines from (24, 24) in Round 3 (``charge_plan``); with ``token`` they use Creep
    Spread on their Round 3 Move, the token's centre there (blue's Entry Edge is the north one, y = 36)."""
    plan = charge_plan(ZERGLING, [], [])
    if token is not None:
        plan[2]["blue"]["movement"][0] |= {"use": [SPREAD], "token_at": list(token)}
    armies = write_armies(tmp_path_factory.mktemp("tumor"), RED, zerg)
    return build(skirmish("tumor", armies=armies, rounds=plan), "tumor.toml")


def short_share(scn, n: int) -> float:
    sim = Simulation(scn, n, seed=11)
    sim.run()
    return sum(v for k, v in sim.skipped.items() if "Charge Roll too short" in k) / n


def test_a_creep_tumor_puts_the_zerglings_on_creep(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Creep Spread sets a Creep Tumor at (24, 30), 5.4" from the north Entry Edge; the Zerglings at (24, 24) are
    Within 6" of it, ON CREEP, and Accelerating Creep's Speed on Creep ("increase its Speed characteristic by 1")
    reaches their Charge: the share of short Charges goes from s / 6 to (s - 1) / 6 (5 SE). With the other Creep Card,
    Malignant Creep (no Speed on Creep), the tumor changes nothing (the same games fall short)."""
    n = 3000
    plain = creep_scenario(tmp_path_factory, creep_zerg("Accelerating Creep"), None)
    tumor = creep_scenario(tmp_path_factory, creep_zerg("Accelerating Creep"), (24, 30))
    assert errors(plain) == [] and errors(tumor) == []
    p0 = short_share(plain, n)
    s = round(p0 * 6)
    assert 2 <= s <= 5, p0
    assert_share(p0, s / 6, n)
    assert_share(short_share(tumor, n), (s - 1) / 6, n)
    other_card = creep_scenario(tmp_path_factory, creep_zerg("Malignant Creep"), (24, 30))
    assert short_share(other_card, n) == p0


def test_creep_spread_needs_an_entry_edge_or_a_tumor_near(tmp_path_factory: pytest.TempPathFactory) -> None:
    """At (24, 26), 9.4" from the north Entry Edge and no tumor near: an error of ``scenario check``, and in the
    simulation the token is not set in any game (skip report); the Zerglings are not ON CREEP."""
    scn = creep_scenario(tmp_path_factory, creep_zerg("Accelerating Creep"), (24, 26))
    said = errors(scn)
    assert any('token_at: (24, 26) is not Within 6" of the north Entry Edge' in p for p in said), said
    sim = Simulation(scn, 20, seed=1)
    sim.run()
    assert sum(v for k, v in sim.skipped.items() if "Creep Tumor token at (24, 26) not set" in k) == 20
    assert not _creep(sim).tumor.any()


def test_tokens_go_at_the_end_of_the_round_unless_they_stay_in_play(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """7.3 "Tokens are removed at the end of the Game Round unless stated otherwise"; Living Glob of Tissue (both
    Creep Cards): "Creep Tumor tokens have STAY IN PLAY". A Zerg list always has one Creep Card (9.1), so the tumors
    always stay; the 7.3 default is read with the card's ``tokens_stay`` hidden."""
    found = abilities.card_effect

    def no_stay(scn: Any, player: str, kind: str) -> Any:
        return None if kind == "tokens_stay" else found(scn, player, kind)

    for card in ("Malignant Creep", "Accelerating Creep", None):
        sim = Simulation(creep_scenario(tmp_path_factory, creep_zerg(card or "Malignant Creep"), (24, 30)), 4, seed=1)
        tumors = _creep(sim)
        assert len(tumors.tumors) == 1
        tumors.tumor[0] = True
        if card is None:
            monkeypatch.setattr(creep, "card_effect", no_stay)
        sim.cleanup(np.arange(4))
        assert tumors.tumor[0].tolist() == [card is not None] * 4


def test_creep_removal_takes_the_tumor_an_enemy_ends_near(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Creep Removal (Malignant Creep): "If an Enemy Unit ends a Move, Deploy, Run, Charge or Disengage action
    Within 1\\" of a Friendly Creep Tumor token, remove that token": the Marines' Move ends 0.5" from it in the
    first two games, 3" from it in the other two."""
    sim = Simulation(creep_scenario(tmp_path_factory, creep_zerg("Malignant Creep"), (24, 30)), 4, seed=1)
    world = sim.world
    m = sim.uids.index("marine-1")
    r = 16 / 25.4 + 32 / 25.4 / 2  # the token's radius and a Marine's
    near = world.place(sim.scn.units["marine-1"], (24, 30 - r - 0.5), (0, -1), ())
    far = world.place(sim.scn.units["marine-1"], (24, 30 - r - 3.0), (0, -1), ())
    assert near is not None and far is not None
    sim.pos[m, :2], sim.pos[m, 2:] = near, far
    sim.sync_board()
    tumors = _creep(sim)
    tumors.tumor[0] = True
    tumors.after_action(m, sim.scn.plan[0], np.arange(4))
    assert tumors.tumor[0].tolist() == [False, False, True, True]


def test_spawn_creep_tumor_is_set_in_base_contact(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Spawn Creep Tumor (Queen): "Set a Creep Tumor token in base-to-base contact with this Unit": ``scenario check``
    takes a token touching the Queen's base, not one 2" away."""
    zerg = army("Kerrigan's Swarm", ("Queen", 1), tactical=("Spawning Pool", "Overseer"))  # Overseer: Support +1
    armies = write_armies(tmp_path_factory.mktemp("queen"), RED, zerg)
    queen_r = load_roster().unit("Queen").card.base_mm
    r = (queen_r if isinstance(queen_r, int) else queen_r[0]) / 25.4 / 2 + 16 / 25.4

    def said(dx: float) -> list[str]:
        rounds = [
            # 8.5.5: the Queen's 80 mm base within Speed 4" of the north Entry Edge
            {"round": 1, "blue": {"movement": [{"unit": "queen-1", "action": "deploy", "to": [18, 33.6]}]}},
            {"round": 2, "blue": {"movement": [
                {"unit": "queen-1", "action": "hold", "use": ["Spawn Creep Tumor"], "token_at": [18 + r + dx, 33.6]}]}},
        ]  # fmt: skip
        return [p for p in errors(build(skirmish("queen", armies=armies, rounds=rounds), "q.toml")) if "token" in p]

    assert said(0.02) == []
    assert any("Base-to-Base contact is at most" in p for p in said(2.0))


def test_malevolent_matriarch_needs_creep_at_the_charge(
    tmp_path_factory: pytest.TempPathFactory, seen: list[tuple[Any, Any]]
) -> None:
    """Malignant Creep, Malevolent Matriarch: "If the active Friendly Zerg Unit declares a Charge action while ON
    CREEP, it gains +1 Modifier to IMPACT Hit Rolls": the Zerglings' IMPACT (1) 5+ reaches the engines at 4+ with the
    tumor at (24, 30), at 5+ without it."""
    got = []
    for token in (None, (24, 30)):
        scn = creep_scenario(tmp_path_factory, creep_zerg("Malignant Creep"), token)
        assert errors(scn) == []
        seen.clear()
        Simulation(scn, 400, seed=13).run()
        got.append({h for _, h in impact_batches(seen)})
    assert got == [{(5,)}, {(4,)}]
