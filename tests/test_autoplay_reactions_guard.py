"""Reactions (10.4) an automatic player declares to protect a Friendly Unit from an enemy's Ranged Attack (issue 29
point 2; scenario/players/reactions.py): the Total Damage reductions (8.7.4 step 5: Life Support, Transfusion,
Dae'Uhl) and the Tactical Cards giving TOUGH or DODGE for the Armour Roll (Ground Armor, Guardian Shell, Vehicle
Plating). Each is legal per game (the trigger, Within, the Combat Tag asked, once per Round per unit, paid from the
game's Ready cards, 10.5.1), scored by the exact share of the unit's models it saves against not reacting, and
written in traces that ``scenario check`` accepts and ``scenario run --game N`` replays."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import Turn, play_turns
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.trace import record
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import RED, place, replays

TERRAN = """name = "Marines, Medics, Goliath"
scale = "Skirmish"
faction = "Terran Armed Forces"
tactical = ["Barracks", "Armory"]

[[units]]
unit = "Marine"
models = 6

[[units]]
unit = "Medic"
models = 3

[[units]]
unit = "Goliath"
"""

ZERG = """name = "Hydralisks, Roaches, Queen"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Hydralisk Den", "Hatchery", "Accelerating Creep"]

[[units]]
unit = "Hydralisk"
models = 2

[[units]]
unit = "Roach"
models = 3

[[units]]
unit = "Queen"
"""

DAELAAM = """name = "Zealots, Stalkers"
scale = "Skirmish"
faction = "Daelaam"
tactical = ["Gateway", "Forge", "Power Field"]

[[units]]
unit = "Zealot"
models = 3

[[units]]
unit = "Stalker"
models = 2
"""

#: the hand-made states' Leading Models (the Frontier preset's free ground): the target, its Medics Within 4" or far
#: off, a second red unit, the Hydralisks and the Roaches shooting
TARGET, MEDIC, FAR_OFF, SECOND = (6.0, 8.0), (9.0, 4.0), (24.0, 4.0), (16.0, 8.0)
HYDRA, ROACH = (6.0, 14.0), (16.0, 18.0)


def _data(folder: Path, red: str, blue: str, red_policy: str, blue_policy: str, length: int = 3) -> dict[str, Any]:
    (folder / "red.toml").write_text(red)
    (folder / "blue.toml").write_text(blue)
    return {
        "name": "guards",
        "first_player": "roll-off",
        "mission": {"card": "Hold Position", "game_length": length},
        "deployment": {"card": "Frontier"},
        "terrain": "preset:standard",
        "players": {
            "red": {"army": str(folder / "red.toml"), "policy": red_policy},
            "blue": {"army": str(folder / "blue.toml"), "policy": blue_policy},
        },
    }


def _sim(folder: Path, red: str, blue: str, policies: tuple[str, str], games: int) -> Simulation:
    scn = parse_scenario(_data(folder, red, blue, *policies), "guards.toml", folder)
    sim = Simulation(scn, games, 3)
    for p in sim.players:
        assert isinstance(p, Auto)
        p.begin(2, "assault", None)
    sim.round = 2
    return sim


def _shoot(sim: Simulation, attacker: str, target: str, player: str = "blue") -> Activation:
    act = Activation("test", 2, "assault", player, attacker, "shoot", targets=(target,))
    sim.ordinal[act] = 7
    return act


def _said(parts: list[tuple[np.ndarray, Activation]]) -> dict[int, tuple[Reaction, ...]]:
    return {int(g): a.react for gs, a in parts for g in gs}


def z_index(sim: Simulation) -> int:
    return sim.uids.index("zealot-1")


def _terran_state(sim: Simulation, games: np.ndarray, medic: tuple[float, float]) -> None:
    m = place(sim, "marine-1", TARGET, games, ())
    d = place(sim, "medic-1", medic, games, (m,))
    g = place(sim, "goliath-1", SECOND, games, (m, d))
    place(sim, "hydralisk-1", HYDRA, games, (m, d, g))


def test_life_support_is_declared_where_it_pays_and_never_where_illegal_or_unpaid(tmp_path: Path) -> None:
    """10.4; Medic card (Terran card sheet): "LIFE SUPPORT: REACTION 1 CP Use when another Friendly Biological Unit
    suffers Damage Within 4\\". Reduce the Total Damage before allocation by 1 for each model in this Unit that is
    Within 4\\" of the damaged Unit." The Hydralisks shoot the Marines: ``cautious`` (threat -2, spend -0.05) declares
    it for the Marines where the Medics stand Within 4" (``for`` = the Marines), not where they stand 18" off (no
    trigger), not where the game's Ready cards are Exhausted (10.5.1: unpaid), and not a second time in the Round
    (once per Round per unit); a new Round allows it again. At the Goliath (Mechanical: not the Biological Unit it
    asks) it is not offered; Vehicle Plating (Armory: "Use before a Friendly Mechanical Unit makes an Armour Roll.
    That Unit gains TOUGH (1) for this roll.") is, on the Goliath itself."""
    sim = _sim(tmp_path, TERRAN, ZERG, ("cautious", "random"), 4)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(4)
    _terran_state(sim, games[[0, 2, 3]], MEDIC)
    _terran_state(sim, games[[1]], FAR_OFF)
    red.spending.out[2] = (1 << len(red.spending.purse.names)) - 1  # every card Exhausted in game 2
    life = Reaction("medic-1", "Life Support", "red", "marine-1")
    act = _shoot(sim, "hydralisk-1", "marine-1")
    assert _said(red.react(games, act)) == {0: (life,), 1: (), 2: (), 3: (life,)}
    assert red.spending.out[[0, 3]].tolist() != [0, 0] and red.spending.out[1] == 0
    red.spending.out[:] = 0  # the cards Readied: game 2 pays now; games 0 and 3 used it this Round
    assert _said(red.react(games, act)) == {0: (), 1: (), 2: (life,), 3: ()}  # once per Round
    red.begin(3, "assault", None)
    assert _said(red.react(games, act))[0] == (life,)  # a new Round
    plating = Reaction("goliath-1", "Vehicle Plating", "red")
    assert _said(red.react(games[[0]], _shoot(sim, "hydralisk-1", "goliath-1"))) == {0: (plating,)}
    assert [(o.name, sim.uids[o.u]) for o in red.reactions.options] == [
        ("Life Support", "medic-1"),
        ("Restoration", "medic-1"),
        ("Vehicle Plating", "goliath-1"),
    ]


def test_the_score_is_the_share_of_models_the_reduction_saves_in_the_engine(tmp_path: Path) -> None:
    """The row of Life Support: ``threat`` = -(the expected share of the Marines the Hydralisks' Ranged Attack removes
    less that with the Total Damage reduced by the Medics Within 4") x the Marines' full Supply, ``spend`` 1 (1 CP).
    Held to the engine itself: 6,000 games of that attack applied with and without the Reaction (the engine's
    Life Support, cards/damage_reduction.py), the models lost within 5 SE of the row's shares."""
    n = 6000
    sim = _sim(tmp_path, TERRAN, ZERG, ("cautious", "random"), n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(n)
    _terran_state(sim, games, MEDIC)
    feats = red.features()
    states, _ = feats.states(games[:1])
    o = red.reactions.options[0]
    act = _shoot(sim, "hydralisk-1", "marine-1")
    row = red.reactions._row(o, act, states[0])
    life_support_held(sim, feats, row, act, (2, "assault"), 0.05)


def life_support_held(
    sim: Simulation, feats: Any, row: np.ndarray, act: Activation, chain: tuple[int, str], least: float
) -> None:
    """Life Support's ``row`` (the Medics Within 4" of the whole Marines) answering ``act``, whose unit attacks the
    Marines with ``chain`` (its models, the exact engine's phase): ``threat`` = -(the exact share of the Marines removed
    less that with the Total Damage reduced by the Medics' models Within 4") x their full Supply, ``spend`` 1 (1 CP),
    a saving above ``least``; and the engine itself, ``act`` applied without the Reaction in half of the games and with
    it in the other half, loses the Marines' models within 5 SE of those shares."""
    m, a, d = (sim.uids.index(x) for x in ("marine-1", act.unit, "medic-1"))
    near = sim.world.models_within(int(sim.pos[d, 0]), 3, int(sim.pos[m, 0]), 6, 4.0)
    assert near >= 1
    plain = feats.attack(a, chain[0], m, 6, 0, 0, chain[1])[2]
    cut = feats.attack(a, chain[0], m, 6, 0, 0, chain[1], (), (0, near, 0))[2]
    worth = float(sim.supply(m, np.asarray([6]))[0])
    assert row[COL["threat"]] == pytest.approx(-(plain - cut) * worth)
    assert row[COL["spend"]] == 1.0
    assert plain - cut > least
    games = np.arange(sim.T)
    half = games[: sim.T // 2]
    answered = dataclasses.replace(act, react=(Reaction("medic-1", "Life Support", "red", "marine-1"),))
    sim.ordinal[answered] = sim.ordinal[act]
    sim.activate(act, half)
    sim.activate(answered, games[sim.T // 2 :])
    for part, share in ((half, plain), (games[sim.T // 2 :], cut)):
        lost = (6 - sim.alive[m, part]) / 6.0
        se = lost.std() / math.sqrt(part.size)
        assert abs(lost.mean() - share) <= 5 * se + 1e-9, (lost.mean(), share, se)


def test_card_reactions_take_the_best_one_and_none_where_it_cannot_change_the_outcome(tmp_path: Path) -> None:
    """Daelaam (Faction Card): "DAE'UHL: When a Friendly Unit receives Damage, reduce the Total Damage by 2 (to a
    minimum of 1)"; Forge: Ground Armor (TOUGH (1)); Power Field: Guardian Shell (DODGE (2), part 11: fewer dice moved
    by Surge). At most one Reaction per player per activation (10.4): ``objective`` declares the best scoring, Dae'Uhl,
    for the Zealots the Hydralisks shoot. The Roaches' weapons move no Surge dice against the Zealots' tags, so
    Guardian Shell changes nothing there: its row saves exactly 0, and ``cautious`` never declares it (it declares
    Ground Armor, which saves)."""
    games = np.arange(1)
    said = {}
    for policy in ("objective", "cautious"):
        sim = _sim(tmp_path, DAELAAM, ZERG, (policy, "random"), 1)
        red = sim.players[0]
        assert isinstance(red, Auto)
        z = place(sim, "zealot-1", TARGET, games, ())
        s = place(sim, "stalker-1", SECOND, games, (z,))
        h = place(sim, "hydralisk-1", HYDRA, games, (z, s))
        place(sim, "roach-1", ROACH, games, (z, s, h))
        by_roach = _shoot(sim, "roach-1", "zealot-1")
        said[policy] = (
            _said(red.react(games, _shoot(sim, "hydralisk-1", "zealot-1")))[0],
            _said(red.react(games, by_roach))[0],
        )
        states, _ = red.features().states(games)
        rows = {
            o.name: red.reactions._row(o, by_roach, states[0]) for o in red.reactions.options if o.u == z_index(sim)
        }
        assert rows["Guardian Shell"][COL["threat"]] == 0.0
        assert rows["Ground Armor"][COL["threat"]] < 0.0
    assert said["objective"][0] == (Reaction("zealot-1", "Dae'Uhl", "red"),)
    assert said["cautious"][0] and said["cautious"][1] and said["cautious"][1][0].use != "Guardian Shell"


def test_transfusion_protects_another_biological_unit_within_4(tmp_path: Path) -> None:
    """Queen (Zerg card sheet): "TRANSFUSION: REACTION 1 BM Use when another Friendly Biological Unit (including a
    Structure) suffers Damage Within 4\\". Reduce the Total Damage before allocation by 2." Blue (``cautious``)
    declares it for the Hydralisks the Marines shoot where the Queen stands Within 4" of them, not where it is far
    off; never for the Queen itself ("another")."""
    sim = _sim(tmp_path, TERRAN, ZERG, ("random", "cautious"), 2)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(2)
    h = place(sim, "hydralisk-1", HYDRA, games, ())
    place(sim, "queen-1", (6.0, 22.0), games[[0]], (h,))  # Within 4" of the Hydralisks (bases edge to edge)
    place(sim, "queen-1", (20.0, 14.0), games[[1]], (h,))  # 14" off
    place(sim, "marine-1", TARGET, games, (h,))
    tf = Reaction("queen-1", "Transfusion", "blue", "hydralisk-1")
    assert _said(blue.react(games, _shoot(sim, "marine-1", "hydralisk-1", "red"))) == {0: (tf,), 1: ()}
    assert _said(blue.react(games, _shoot(sim, "marine-1", "queen-1", "red"))) == {0: (), 1: ()}


def test_a_trace_with_a_protecting_reaction_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where an automatic player declared Life Support, Transfusion or Vehicle Plating (``random`` both sides),
    recorded alone: its trace holds the ``react`` entry (with ``for`` where it protects another unit), ``scenario
    check`` accepts it, and the trace replays to the same game for the same seed and game number."""
    table = _data(tmp_path, TERRAN, ZERG, "random", "random", length=3)
    scn = parse_scenario(table, "guards.toml", tmp_path)
    wanted = {"Life Support", "Transfusion", "Vehicle Plating"}
    seed, found = 5, None
    for g in range(40):
        played = record(Simulation(scn, 1, seed, offset=g))
        if any(rx.use in wanted for s in played.steps if not s.void for rx in s.act.react):
            found = g, played
            break
    assert found is not None, "no game of 40 declared one"
    g, played = found
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use in wanted for a in trace.plan for rx in a.react)


ZERGLINGS = """name = "Zerglings, Queen"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Spawning Pool", "Hatchery", "Accelerating Creep"]

[[units]]
unit = "Zergling"
models = 12

[[units]]
unit = "Queen"
"""

#: Concusive Shells' state (tests/test_autoplay_reactions.py): the Marines, the Marauders 5" off them, the Zerglings
#: at 10" (a Charge that reaches 5 in 6 times, 3 in 6 with DEBUFF Speed (2)) or 6" (it reaches either way), the Queen
#: Within 4" of them or far off
MARINE, MARAUDER, LONG, SHORT = (6.0, 8.0), (11.0, 4.0), (6.0, 18.0), (6.0, 14.0)
QUEEN_NEAR, QUEEN_FAR = (12.0, 22.0), (30.0, 30.0)
SHELLS = Reaction("marauder-1", "Concusive Shells", "red")
RESTORATION = Reaction("queen-1", "Restoration", "blue")


def _charge_state(
    sim: Simulation, games: np.ndarray, zerglings: tuple[float, float], queen: tuple[float, float]
) -> None:
    m = place(sim, "marine-1", MARINE, games, ())
    r = place(sim, "marauder-1", MARAUDER, games, (m,))
    z = place(sim, "zergling-1", zerglings, games, (m, r))
    place(sim, "queen-1", queen, games, (m, r, z))


def _charge(sim: Simulation, react: tuple[Reaction, ...] = ()) -> Activation:
    act = Activation("test", 2, "assault", "blue", "zergling-1", "charge", targets=("marine-1",), react=react)
    sim.ordinal[act] = 7
    return act


def _kit_red(folder: Path) -> str:
    """The two-unit Terran list of tests/autoplay_kit.py (Marines, Marauders: Concusive Shells)."""
    return RED


def test_restoration_answers_the_debuff_on_its_own_charge_where_it_pays(tmp_path: Path) -> None:
    """Queen (Zerg card sheet): "RESTORATION: REACTION 1 BM Use when a Friendly Unit Within 4\\" receives a DEBUFF.
    Remove all DEBUFFS from it." The Zerglings charge the Marines and red's Marauders answer with Concusive Shells
    (DEBUFF Speed (2)): blue (``cautious``) declares Restoration on its own Charge where the Queen stands Within 4" of
    the Zerglings and the Charge is long (it gives back the third of the chance that the Close Combat attack happens:
    the row is the Charge entry's ``damage``, ``destroy``, ``models`` at full Speed less with the DEBUFF), not where the
    Charge reaches either way (nothing to give back), not where the Queen is far off (no trigger), and not where no
    DEBUFF was given (10.4: its trigger is the DEBUFF)."""
    sim = _sim(tmp_path, _kit_red(tmp_path), ZERGLINGS, ("random", "cautious"), 4)
    blue = sim.players[1]
    assert isinstance(blue, Auto)
    games = np.arange(4)
    _charge_state(sim, games[[0]], LONG, QUEEN_NEAR)
    _charge_state(sim, games[[1]], SHORT, QUEEN_NEAR)
    _charge_state(sim, games[[2]], LONG, QUEEN_FAR)
    _charge_state(sim, games[[3]], LONG, QUEEN_NEAR)
    shelled = _charge(sim, (SHELLS,))
    said = _said(blue.react(games[:3], shelled))
    assert said == {0: (SHELLS, RESTORATION), 1: (SHELLS,), 2: (SHELLS,)}
    assert _said(blue.react(games[3:], _charge(sim))) == {3: ()}
    feats = blue.features()
    states, _ = feats.states(games[:1])
    o = next(o for o in blue.reactions.options if o.name == "Restoration")
    row = blue.reactions._row(o, shelled, states[0])
    z, m = sim.uids.index("zergling-1"), sim.uids.index("marine-1")
    hit = np.asarray(feats.attack(z, 12, m, 6, 0, 0, "combat"))
    np.testing.assert_allclose(row[[COL["damage"], COL["destroy"], COL["models"]]], (5 / 6 - 3 / 6) * hit)
    assert row[COL["spend"]] == 1.0


def test_the_walk_asks_the_active_player_after_the_opponent(tmp_path: Path) -> None:
    """play_turns: the Zerglings' Charge is answered by red (``cautious``: Concusive Shells), then by blue on its own
    activation (``cautious``: Restoration); the engine applies both: the Charge Roll is not slowed (no skip report of
    a Reaction not triggered), and ``scenario check`` of the two Reactions in one activation passes (one per player,
    10.4)."""
    sim = _sim(tmp_path, _kit_red(tmp_path), ZERGLINGS, ("cautious", "cautious"), 2)
    games = np.arange(2)
    _charge_state(sim, games, LONG, QUEEN_NEAR)
    act = _charge(sim)
    red, blue = sim.players
    assert isinstance(red, Auto) and isinstance(blue, Auto)
    answer_red, answer_blue = red.react, blue.react

    class Blue:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            return [Turn(games, act if state == 0 else None, state + 1)]

        react = answer_blue

    class Red:
        def begin(self, rnd: int, phase: str, left: set[int] | None) -> int:
            return 0

        def next(self, games: np.ndarray, state: int) -> list[Turn]:
            return [Turn(games, None, state)]

        react = answer_red

    applied: list[tuple[Activation, list[int]]] = []

    def activate(a: Activation, gs: np.ndarray) -> None:
        applied.append((a, gs.tolist()))
        sim.activate(a, gs)

    play_turns([Red(), Blue()], 2, "assault", 1, None, games, activate)
    assert [(a.react, gs) for a, gs in applied] == [((SHELLS, RESTORATION), [0, 1])]
    assert not [k for k in sim.skipped if "not triggered" in k]


def test_a_trace_with_restoration_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where blue declared Restoration to the DEBUFF red's Concusive Shells gave its charging unit, and the
    Charge reached (``random`` both sides; found in a batch of 60 games, then recorded alone: the same game whatever
    the grouping):
    ``scenario check`` accepts its trace, which replays to the same game for the same seed and game number."""
    table = _data(tmp_path, _kit_red(tmp_path), ZERGLINGS, "random", "random", length=3)
    scn = parse_scenario(table, "guards.toml", tmp_path)
    seed = 4  # a batch with Restoration declared on a Charge that reached (seed 1: none since session 13's menus)
    batch = Simulation(scn, 60, seed)
    restored: list[int] = []
    plain = batch.activate

    def activate(a: Activation, gs: np.ndarray) -> None:
        if any(rx.use == "Restoration" for rx in a.react):
            restored.extend(gs.tolist())
        plain(a, gs)

    batch.activate = activate  # type: ignore[method-assign, assignment]
    batch.run()
    assert restored, "no game of 60 declared Restoration"
    found = None
    for g in sorted(set(restored)):  # one whose Charge reached (a void one is written as a Hold, trace.entry)
        played = record(Simulation(scn, 1, seed, offset=g))
        if any(rx.use == "Restoration" for s in played.steps if not s.void for rx in s.act.react):
            found = g, played
            break
    assert found is not None, "no Charge with Restoration reached"
    g, played = found
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use == "Restoration" for a in trace.plan for rx in a.react)
