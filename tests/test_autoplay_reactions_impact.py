"""Reactions (10.4) an automatic player declares against a Charge's IMPACT and to take a Ranged Attack on another
unit (issue 29 point 2; scenario/players/reactions.py): the Total Damage reductions and the cards' TOUGH/DODGE on the
unit a Charge with IMPACT strikes (Life Support, Dae'Uhl, Ground Armor), and Hierarch's Stand (Artanis: the attack
redirected onto it, with an Evade Roll). Each is legal per game, scored by the exact engine against not reacting
(held to the engine's own games within 5 SE), and written in traces that ``scenario check`` accepts and ``scenario run
--game N`` replays."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.trace import record
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from tests.autoplay_kit import first_game, place, replays
from tests.test_autoplay_reactions_guard import (
    DAELAAM,
    TERRAN,
    ZERG,
    _data,
    _said,
    _shoot,
    _sim,
    life_support_held,
)

#: the hand-made states' Leading Models (Frontier's free ground): the Marines or Zealots charged, the Medics Within 4"
#: of them or far off, the Roaches 5" off (a Charge that always reaches), the Hydralisks
TARGET, MEDIC, FAR_OFF, ROACH, HYDRA = (6.0, 8.0), (9.0, 4.0), (24.0, 4.0), (6.0, 13.0), (6.0, 14.0)


def _charge(sim: Simulation, unit: str, target: str, player: str = "blue") -> Activation:
    act = Activation("test", 2, "assault", player, unit, "charge", targets=(target,))
    sim.ordinal[act] = 7
    return act


def _red(folder: Path, red_list: str, policy: str, n: int) -> tuple[Simulation, Auto, np.ndarray]:
    """``n`` games of ``red_list`` (red, automatic with ``policy``) against the Zerg list (``random``) in Round 2's
    Assault Phase: the Simulation, red's player and the games."""
    sim = _sim(folder, red_list, ZERG, (policy, "random"), n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    return sim, red, np.arange(n)


def _row_of(player: Auto, name: str, act: Activation, games: np.ndarray) -> tuple[Any, np.ndarray]:
    """The player's Features and the row of its Reaction ``name`` answering ``act`` in the state of ``games[0]``."""
    feats = player.features()
    states, _ = feats.states(games[:1])
    o = next(o for o in player.reactions.options if o.name == name)
    return feats, player.reactions._row(o, act, states[0])


def _held(sim: Simulation, t: int, full: int, parts: tuple[tuple[np.ndarray, float], ...]) -> None:
    """In each part's games, the mean share of unit ``t``'s ``full`` models lost is within 5 SE of the exact share."""
    for part, share in parts:
        lost = (full - sim.alive[t, part]) / float(full)
        se = lost.std() / math.sqrt(part.size)
        assert abs(lost.mean() - share) <= 5 * se + 1e-9, (lost.mean(), share, se)


def test_life_support_and_daeuhl_answer_the_impact_of_a_charge(tmp_path: Path) -> None:
    """Roach (Zerg card sheet): "DEVASTATING CHARGE: Immediately after this Unit completes a successful Charge,
    resolve the IMPACT (2) 4+ effect"; Medic: "LIFE SUPPORT: REACTION 1 CP Use when another Friendly Biological Unit
    suffers Damage Within 4\\"..."; 10.4 (a Reaction is declared when its trigger happens: the IMPACT's Damage).
    ``cautious`` red declares Life Support for the Marines the Roaches charge where the Medics stand Within 4", not
    where they are far off; a Charge without IMPACT (the Hydralisks': no Devastating Charge) makes no attack and gets
    none. Daelaam (Faction Card): "DAE'UHL: When a Friendly Unit receives Damage, reduce the Total Damage by 2 (to a
    minimum of 1)": ``cautious`` declares it for the Zealots the Roaches charge where the IMPACT can remove a model (one
    Zealot left with a Damage Marker; it saves more than Ground Armor's TOUGH (1) there; one Reaction per activation,
    10.4), none where it cannot (three whole Zealots: the share saved is 0, the price is paid)."""
    sim, red, games = _red(tmp_path, TERRAN, "cautious", 2)
    m = place(sim, "marine-1", TARGET, games, ())
    d0 = place(sim, "medic-1", MEDIC, games[:1], (m,))
    place(sim, "medic-1", FAR_OFF, games[1:], (m,))
    r = place(sim, "roach-1", ROACH, games, (m, d0))
    place(sim, "hydralisk-1", (16.0, 14.0), games, (m, d0, r))
    life = Reaction("medic-1", "Life Support", "red", "marine-1")
    assert _said(red.react(games, _charge(sim, "roach-1", "marine-1"))) == {0: (life,), 1: ()}
    red.begin(3, "assault", None)
    assert _said(red.react(games, _charge(sim, "hydralisk-1", "marine-1"))) == {0: (), 1: ()}

    sim, red, _ = _red(tmp_path, DAELAAM, "cautious", 1)
    z = place(sim, "zealot-1", TARGET, games[:1], ())
    place(sim, "roach-1", ROACH, games[:1], (z,))
    zi = sim.uids.index("zealot-1")
    act = _charge(sim, "roach-1", "zealot-1")
    rows = {o.name: red.reactions._row(o, act, red.features().states(games[:1])[0][0]) for o in red.reactions.options}
    assert rows["Dae'Uhl"][COL["threat"]] == 0.0  # three whole Zealots (4 HP, Shield 3): 6 dice of 1 Damage kill none
    assert _said(red.react(games[:1], act))[0] == ()
    sim.alive[zi, 0], sim.mark[zi, 0], sim.shielded[zi, 0] = 1, 2, 0  # one left, Damage Marker 2: 2 Damage kill it
    red.reactions._rows.clear()
    said = _said(red.react(games[:1], act))[0]
    assert said == (Reaction("zealot-1", "Dae'Uhl", "red"),)


def test_the_impact_score_is_the_share_the_reduction_saves_in_the_engine(tmp_path: Path) -> None:
    """The row of Life Support on the Roaches' Charge: ``threat`` = -(P(the Charge reaches) = 1 here) x (the expected
    share of the Marines the IMPACT (2) 4+ of the 3 Roaches removes less that with the Total Damage reduced by the
    Medics Within 4") x the Marines' full Supply. Held to the engine: 6,000 games of that Charge applied with and
    without the Reaction, the Marines' models lost within 5 SE of the exact shares."""
    n = 6000
    sim, red, games = _red(tmp_path, TERRAN, "cautious", n)
    m = place(sim, "marine-1", TARGET, games, ())
    d = place(sim, "medic-1", MEDIC, games, (m,))
    r = place(sim, "roach-1", ROACH, games, (m, d))
    act = _charge(sim, "roach-1", "marine-1")
    feats, row = _row_of(red, "Life Support", act, games)
    assert feats.reaches(sim.uids.index("roach-1"), r, 3, m, 6, ()) == 1.0
    assert int(sim.pos[sim.uids.index("medic-1"), 0]) == d
    life_support_held(sim, feats, row, act, (3, "impact"), 0.03)


#: the Daelaam list of tests/test_autoplay_reactions_guard.py with Artanis (Hierarch's Stand)
ARTANIS = DAELAAM.replace('"Zealots, Stalkers"', '"Zealots, Stalkers, Artanis"') + '\n[[units]]\nunit = "Artanis"\n'


#: Artanis Within 8" of the Zealots, or 20" off (centre to centre)
ARTANIS_NEAR, ARTANIS_FAR = (16.0, 8.0), (28.0, 8.0)


def _stand_state(sim: Simulation, games: np.ndarray, artanis: tuple[float, float]) -> None:
    z = place(sim, "zealot-1", TARGET, games, ())
    a = place(sim, "artanis-1", artanis, games, (z,))
    place(sim, "hydralisk-1", HYDRA, games, (z, a))


def test_hierarchs_stand_takes_the_attack_where_artanis_is_within_8(tmp_path: Path) -> None:
    """Artanis (Protoss card sheet): "HIERARCH'S STAND: REACTION 1 PE When another Friendly Unit Within 8\\" is
    declared as the target of a Ranged Attack and this Unit is a valid target, redirect the attack to this Unit. This
    Unit is eligible to make an Evade Roll against the redirected attack." ``cautious`` red declares it (``for`` = the
    Zealots) where Artanis stands Within 8" of the Zealots the Hydralisks shoot, not where it is 20" off (no trigger),
    never for Artanis itself ("another"), and not a second time in the Round (10.4); it is not legal where Artanis is
    not a valid target of the attacking unit (8.7.3 step 1: no weapon of it in range of a Visible model)."""
    sim, red, games = _red(tmp_path, ARTANIS, "cautious", 2)
    _stand_state(sim, games[:1], ARTANIS_NEAR)
    _stand_state(sim, games[1:], ARTANIS_FAR)
    stand = Reaction("artanis-1", "Hierarch's Stand", "red", "zealot-1")
    said = _said(red.react(games, _shoot(sim, "hydralisk-1", "zealot-1")))
    assert said[0] == (stand,) and stand not in said[1]
    for target in ("artanis-1", "zealot-1"):  # never for itself; once per Round
        said = _said(red.react(games, _shoot(sim, "hydralisk-1", target)))
        assert all(rx.use != "Hierarch's Stand" for rx in said[0])
    # "and this Unit is a valid target": the Roaches (Acid Saliva, Range 8") shoot the Zealots 5" off; Artanis Within
    # 8" of the Zealots is a valid target of theirs at (16, 8), not out of their range at (12, 2): not legal there
    sim, red, _ = _red(tmp_path, ARTANIS, "random", 2)
    for g, at in ((0, (16.0, 8.0)), (1, (12.0, 2.0))):
        z = place(sim, "zealot-1", TARGET, games[[g]], ())
        a = place(sim, "artanis-1", at, games[[g]], (z,))
        place(sim, "roach-1", ROACH, games[[g]], (z, a))
    o = next(o for o in red.reactions.options if o.name == "Hierarch's Stand")
    assert red.reactions._legal(o, _shoot(sim, "roach-1", "zealot-1"), games).tolist() == [True, False]


def test_the_redirect_score_is_the_zealots_saved_less_what_artanis_takes(tmp_path: Path) -> None:
    """The row of Hierarch's Stand: ``threat`` = -(the expected share of the Zealots the Hydralisks' Ranged Attack
    removes x their full Supply - that of Artanis, Evade Roll included, x its full Supply), both exact. Held to the
    engine: 6,000 games of the Shoot with the Reaction, the Zealots untouched and Artanis' share lost within 5 SE of
    the exact one (and the Evade Roll lowers it)."""
    n = 6000
    sim, red, games = _red(tmp_path, ARTANIS, "cautious", n)
    _stand_state(sim, games, ARTANIS_NEAR)
    act = _shoot(sim, "hydralisk-1", "zealot-1")
    feats, row = _row_of(red, "Hierarch's Stand", act, games)
    zi, ai, hi = (sim.uids.index(x) for x in ("zealot-1", "artanis-1", "hydralisk-1"))
    from mathhammer.scenario.lookup import use_bits

    plain = feats.attack(hi, 2, zi, 3, 0, 0, "assault")[2]
    bare = feats.attack(hi, 2, ai, 1, 0, 0, "assault")[2]
    taken = feats.attack(hi, 2, ai, 1, 0, 0, "assault", (), (use_bits(sim, ai, ("Hierarch's Stand",)), 0, 0))[2]
    worth = [float(sim.supply(v, np.asarray([sim.full[v]]))[0]) for v in (zi, ai)]
    assert row[COL["threat"]] == pytest.approx(-(plain * worth[0] - taken * worth[1]))
    assert row[COL["spend"]] == 1.0 and row[COL["threat"]] < 0
    answered = dataclasses.replace(act, react=(Reaction("artanis-1", "Hierarch's Stand", "red", "zealot-1"),))
    sim.ordinal[answered] = sim.ordinal[act]
    sim.activate(answered, games)
    assert (sim.alive[zi] == 3).all()
    lost = (1 - sim.alive[ai]).astype(float)
    se = max(lost.std() / math.sqrt(n), 1e-3)
    assert abs(lost.mean() - taken) <= 5 * se, (lost.mean(), taken, se)
    assert taken <= bare


def test_a_trace_with_hierarchs_stand_or_a_guard_on_impact_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where an automatic player declared Hierarch's Stand, or a reduction or keyword on a Charge with IMPACT
    (``random`` both sides), recorded alone: ``scenario check`` accepts its trace and it replays to the same game for
    the same seed and game number."""
    table = _data(tmp_path, ARTANIS, ZERG, "random", "random", length=3)
    scn = parse_scenario(table, "stand.toml", tmp_path)
    seed = 3

    def wanted(act: Activation) -> bool:
        return any(rx.use == "Hierarch's Stand" or act.action == "charge" for rx in act.react)

    # the first of 60 games with one (game 16 of seed 3), found in one batch: 3 s, not 8 s recording 17 games alone
    g, played = first_game(scn, seed, 60, wanted)
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(wanted(a) for a in trace.plan)


#: the Roaches and the Marines Engaged with each other (both orders, as ``Simulation.engaged_with`` gives the pairs)
ROACH_MARINES = frozenset({("roach-1", "marine-1"), ("marine-1", "roach-1")})


def _engaged(sim: Simulation, games: np.ndarray) -> tuple[int, int]:
    """The Marines at TARGET with the Medics Within 4", Engaged by the Roaches (their Charge from ROACH, set in every
    game of ``games``), the Marines whole again; returns the Roaches' and the Marines' indices."""
    m = place(sim, "marine-1", TARGET, games, ())
    d = place(sim, "medic-1", MEDIC, games, (m,))
    place(sim, "roach-1", ROACH, games, (m, d))
    ri, mi = sim.uids.index("roach-1"), sim.uids.index("marine-1")
    sim.activate(_charge(sim, "roach-1", "marine-1"), games[:1])
    sim.set_pos(ri, games, int(sim.pos[ri, 0]))
    sim.alive[mi, games], sim.mark[mi, games] = 6, 0
    assert all({("roach-1", "marine-1")} <= pairs for _, pairs in sim.engaged_with(games))
    return ri, mi


def test_the_combat_phase_asks_the_opponent_of_each_fight(tmp_path: Path) -> None:
    """8.8.1 (every Engaged unit fights) and 10.4: the Combat Phase gives the defender a Reaction to each fight.
    Medic: "LIFE SUPPORT: REACTION 1 CP Use when another Friendly Biological Unit suffers Damage Within 4\\"".
    ``cautious`` red declares it for the Marines the Roaches fight (``Simulation.fight_answers``: the fight written with
    its one target, the Marines); not on a fight of a unit Engaged with two enemy units (no one target: the
    ``fight_split`` shares the dice); a scripted opponent is not asked (its plan's Reactions only)."""
    from mathhammer.scenario.players import fight_act

    sim = _sim(tmp_path, TERRAN, ZERG, ("cautious", "random"), 2)
    games = np.arange(2)
    ri, _ = _engaged(sim, games)
    life = Reaction("medic-1", "Life Support", "red", "marine-1")
    parts = sim.fight_answers("roach-1", ROACH_MARINES, 10_000 + ri, None, games)
    assert [(g.tolist(), a.react if a else None) for g, a in parts] == [([0, 1], (life,))]
    assert parts[0][1] == dataclasses.replace(fight_act(2, "blue", "roach-1", ("marine-1",), None), react=(life,))
    both = ROACH_MARINES | {("roach-1", "goliath-1"), ("goliath-1", "roach-1"), ("goliath-1", "zergling-1")}
    assert sim.foes("roach-1", both) == tuple(v for v in sim.uids if v in ("marine-1", "goliath-1"))  # army order
    assert sim.foes("marine-1", both) == ("roach-1",)
    two = fight_act(2, "blue", "roach-1", ("marine-1", "goliath-1"), None)
    assert two.targets == ()
    red = sim.players[0]
    assert isinstance(red, Auto)
    red.begin(3, "assault", None)
    sim.ordinal[two] = 10_000 + ri
    assert _said(red.react(games, two)) == {0: (), 1: ()}
    table = _data(tmp_path, TERRAN, ZERG, "random", "random")
    del table["players"]["red"]["policy"]
    scripted = Simulation(parse_scenario(table, "guards.toml", tmp_path), 2, 3)
    assert [(g.tolist(), a) for g, a in scripted.fight_answers("marine-1", ROACH_MARINES, 10_005, None, games)] == [
        ([0, 1], None)
    ]


def test_the_fight_score_is_the_share_the_reduction_saves_in_the_engine(tmp_path: Path) -> None:
    """The row of Life Support on the Roaches' fight: ``threat`` = -(the expected share of the Marines the Roaches'
    Close Combat attack removes, every model striking, less that with the Total Damage reduced by the Medics Within
    4") x the Marines' full Supply. Held to the engine: 6,000 games of that fight (``Simulation.fight`` with the
    Reactions of the fight in effect, as ``combat_phase`` applies them), with and without it, within 5 SE."""
    from mathhammer.scenario.abilities import reacting
    from mathhammer.scenario.basics import stream

    n = 6000
    sim, red, games = _red(tmp_path, TERRAN, "cautious", n)
    ri, mi = _engaged(sim, games)
    parts = sim.fight_answers("roach-1", ROACH_MARINES, 10_000 + ri, None, games)
    assert len(parts) == 1 and parts[0][1] is not None
    answered = parts[0][1]
    feats, row = _row_of(red, "Life Support", dataclasses.replace(answered, react=()), games)
    di = sim.uids.index("medic-1")
    near = sim.world.models_within(int(sim.pos[di, 0]), 3, int(sim.pos[mi, 0]), 6, 4.0)
    plain = feats.attack(ri, 3, mi, 6, 0, 0, "combat")[2]
    cut = feats.attack(ri, 3, mi, 6, 0, 0, "combat", (), (0, near, 0))[2]
    worth = float(sim.supply(mi, np.asarray([6]))[0])
    assert row[COL["threat"]] == pytest.approx(-(plain - cut) * worth)
    assert plain - cut > 0.03
    half, rest = games[: n // 2], games[n // 2 :]
    key = stream(2, 2, 10_000 + ri)
    sim.fight(ri, (), half, key)
    with reacting(sim, answered, rest):
        sim.fight(ri, (), rest, key)
    _held(sim, mi, 6, ((half, plain), (rest, cut)))


def test_a_trace_with_a_reaction_to_a_fight_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where an automatic player declared a Reaction to a Combat Phase fight (``random`` both sides: the Daelaam
    list against Zerglings and Roaches), recorded alone: its trace writes every fight of the game in the order fought,
    each with its dice, the one answered with its ``react``; ``scenario check`` accepts it and it replays to the same
    game for the same seed and game number."""
    from tests.autoplay_kit import BLUE

    table = _data(tmp_path, DAELAAM, BLUE, "random", "random", length=3)
    scn = parse_scenario(table, "fights.toml", tmp_path)
    seed, found = 2, None
    for g in range(60):
        played = record(Simulation(scn, 1, seed, offset=g))
        if any(s.act.phase == "combat" and s.act.react for s in played.steps):
            found = g, played
            break
    assert found is not None, "no game of 60 declared one"
    g, played = found
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(a.phase == "combat" and a.react for a in trace.plan)
