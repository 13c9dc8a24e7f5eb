"""Zealous Round, the Reaction an automatic player declares at the price of its unit's activation (issue 29 point 2;
scenario/players/reactions.py, activation_cost.py). Protoss card sheet, Zealot upgrade: "ZEALOUS ROUND: REACTION 0 PE
When this Unit is not Activated and receives Damage, the controlling player may count this Unit as Activated in this
Phase (flip its Activation Marker) to reduce the Total Damage by 2." (Assault Phase.) Legal per game (the unit itself,
not activated nor counted as Activated in the Phase, once per Round), scored by the share of its models saved less
P(used) x its own activation's worth, and the automatic player's choice of its next unit reads the engine's counted
as Activated state; written in traces that ``scenario check`` accepts and ``scenario run --game N`` replays."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario.cards.damage_reduction import DamageReduction
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Reaction
from mathhammer.starcraft.compiled import compile_attack
from mathhammer.starcraft.exact import exact_states
from mathhammer.starcraft.loadout import as_target, attack_batches
from mathhammer.starcraft.model import Attack
from tests.autoplay_kit import ZEALOTS, declared, place, replays
from tests.test_autoplay_reactions_guard import HYDRA, ROACH, SECOND, TARGET, ZERG, _data, _said, _shoot, _sim

ZEALOUS = Reaction("zealot-1", "Zealous Round", "red")


def _state(sim: Simulation, games: np.ndarray) -> None:
    z = place(sim, "zealot-1", TARGET, games, ())
    s = place(sim, "zealot-2", SECOND, games, (z,))
    h = place(sim, "hydralisk-1", HYDRA, games, (z, s))
    place(sim, "roach-1", ROACH, games, (z, s, h))


def _table(folder: Path, red: str) -> dict[str, Any]:
    """Whole games: the Zealots (``red``) against the Zerg (``aggressive``, First Player: it shoots before the
    Zealots activate), four Rounds."""
    table = _data(folder, ZEALOTS, ZERG, red, "aggressive", length=4)
    table["first_player"] = "blue"
    return table


def _card(sim: Simulation) -> DamageReduction:
    return next(c for c in sim.cards.cards if isinstance(c, DamageReduction))


def test_zealous_round_is_legal_for_the_unit_itself_while_it_is_not_activated(tmp_path: Path) -> None:
    """10.4 and the Zealot's upgrade: offered on zealot-1 only (zealot-2 has not the upgrade), for itself ("this Unit":
    written without ``for``) where the activation attacks it; not where zealot-1 has activated in the Phase ("When
    this Unit is not Activated"), nor where it counts as Activated already (its Zealous Round used earlier in the
    Phase: the card's state), nor a second time in the Round (once per Round per unit); not for zealot-2 attacked."""
    sim = _sim(tmp_path, ZEALOTS, ZERG, ("cautious", "random"), 4)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(4)
    _state(sim, games)
    z = sim.uids.index("zealot-1")
    assert [(o.name, sim.uids[o.u], o.costs) for o in red.reactions.options] == [("Zealous Round", "zealot-1", True)]
    sim.acted[z, 1] = True
    _card(sim).counted[z, 2] = True
    act = _shoot(sim, "hydralisk-1", "zealot-1")
    assert _said(red.react(games, act)) == {0: (ZEALOUS,), 1: (), 2: (), 3: (ZEALOUS,)}
    assert _said(red.react(games, act)) == {0: (), 1: (), 2: (), 3: ()}  # once per Round
    red.begin(3, "assault", None)
    assert _said(red.react(games[[0]], _shoot(sim, "hydralisk-1", "zealot-2"))) == {0: ()}  # "this Unit" only
    assert _said(red.react(games[[0]], act)) == {0: (ZEALOUS,)}  # a new Round


def _p_used(sim: Simulation, a: str, t: str, k: int, models: int) -> float:
    """A naive reference: P(the Total Damage reduction 2 is used), the exact engine's spent flag on the attack of
    ``a``'s ``k`` models' Ranged Weapons at ``t`` (``models`` left, no marker, SHIELDED as the card is)."""
    u, q = sim.uids.index(a), sim.uids.index(t)
    batches = attack_batches(sim.loadout(u, 0), sim.units[q].unit, "assault", alive=k)
    target = dataclasses.replace(as_target(sim.loadout(q, 0), "assault", alive=models), damage_reduction=2)
    compiled, tc = compile_attack(Attack(tuple(batches), target))
    return sum(p for key, p in exact_states(compiled, tc, spent=True).items() if key[3])


def test_the_row_is_the_share_saved_less_the_lost_activation_held_to_the_engine(tmp_path: Path) -> None:
    """The row of Zealous Round: ``threat`` = -(the exact share of zealot-1's models the Hydralisks' attack removes
    less that with the Total Damage reduced by 2) x its full Supply, less P(used) x (the row of zealot-1's best legal
    entry by the policy's weights less its Hold's: a naive loop over a fresh Legality's mask). Held to the engine:
    6,000 games of the attack with the Reaction and without, the models lost within 5 SE of the shares and the games
    where zealot-1 counts as Activated (the engine's ``counted``) within 5 SE of P(used)."""
    n = 6000
    sim = _sim(tmp_path, ZEALOTS, ZERG, ("objective", "random"), n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(n)
    _state(sim, games)
    feats = red.features()
    states, inv = feats.states(games[:1])
    o = red.reactions.options[0]
    act = _shoot(sim, "hydralisk-1", "zealot-1")
    z, h = sim.uids.index("zealot-1"), sim.uids.index("hydralisk-1")
    row = red.reactions._row(o, act, states[0])
    plain = feats.attack(h, 2, z, 3, 0, 0, "assault")[2]
    cut = feats.attack(h, 2, z, 3, 0, 0, "assault", (), (0, 2, 0))[2]
    worth = float(sim.supply(z, np.asarray([3]))[0])
    assert row[COL["threat"]] == pytest.approx(-(plain - cut) * worth)
    assert row[COL["spend"]] == 0.0  # 0 PE
    p = _p_used(sim, "hydralisk-1", "zealot-1", 2, 3)
    assert red.reactions._p_used(o, act, states[0]) == pytest.approx(p)
    w = red.policy.w  # type: ignore[attr-defined]
    menu = feats.menus["zealot-1"]["assault"]
    mask = Legality(sim, feats.menus).mask(z, "assault", games[:1])[0]
    f = feats.table(z, "assault", states[0])
    hold = next(i for i, e in enumerate(menu) if e.action == "hold")
    best = max((i for i, e in enumerate(menu) if mask[i] and e.action != "pass"), key=lambda i: float(f[i] @ w))
    want = p * (f[best] - f[hold]) if f[best] @ w > f[hold] @ w else np.zeros(len(w))
    got = red.reactions._lost(o, act, games[:1], states, inv, w)[0]
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert got @ w > 0  # its own activation is worth something
    half = games[: n // 2]
    answered = dataclasses.replace(act, react=(ZEALOUS,))
    sim.ordinal[answered] = sim.ordinal[act]
    sim.activate(act, half)
    sim.activate(answered, games[n // 2 :])
    counted = _card(sim).counted[z]
    assert not counted[half].any()
    used = counted[n // 2 :].mean()
    assert abs(used - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-4) / (n // 2)), (used, p)
    for part, share in ((half, plain), (games[n // 2 :], cut)):
        removed = (3 - sim.alive[z, part]) / 3.0
        se = removed.std() / math.sqrt(part.size)
        assert abs(removed.mean() - share) <= 5 * se + 1e-9, (removed.mean(), share, se)


def test_the_policy_declares_it_where_the_saving_outweighs_the_activation(tmp_path: Path) -> None:
    """``objective`` declares Zealous Round against the Hydralisks (its score: the share saved, 0.064, above the
    activation's worth, 0.054) and not against the Roaches (it saves 0.008: without the price of the activation it
    would be declared); ``aggressive`` never (zealot-1's own Charge is worth more); ``cautious`` (threat -2) declares
    it against both."""
    said = {}
    for policy in ("objective", "aggressive", "cautious"):
        sim = _sim(tmp_path, ZEALOTS, ZERG, (policy, "random"), 1)
        red = sim.players[0]
        assert isinstance(red, Auto)
        games = np.arange(1)
        _state(sim, games)
        got = []
        for attacker in ("hydralisk-1", "roach-1"):
            act = _shoot(sim, attacker, "zealot-1")
            got.append(_said(red.react(games, act))[0])
            red.reactions.taken[:] = False
            if policy == "objective" and attacker == "roach-1":
                states, _ = red.features().states(games)
                saved = red.reactions._row(red.reactions.options[0], act, states[0]) @ red.policy.w  # type: ignore
                assert saved > 0
        said[policy] = got
    assert said == {
        "objective": [(ZEALOUS,), ()],
        "aggressive": [(), ()],
        "cautious": [(ZEALOUS,), (ZEALOUS,)],
    }


def test_the_next_unit_is_never_one_counted_as_activated(tmp_path: Path) -> None:
    """8.4.1 and Zealous Round ("count this Unit as Activated in this Phase"): where zealot-1 counts as Activated (the
    card's state, set in the even games), the automatic player (``random``) never picks it in the Assault Phase;
    in the odd games it does in some."""
    n = 200
    sim = _sim(tmp_path, ZEALOTS, ZERG, ("random", "random"), n)
    red = sim.players[0]
    assert isinstance(red, Auto)
    games = np.arange(n)
    _state(sim, games)
    place(sim, "stalker-1", (30.0, 4.0), games, tuple(int(sim.pos[sim.uids.index(u), 0]) for u in sim.uids[:2]))
    z = sim.uids.index("zealot-1")
    _card(sim).counted[z, games[::2]] = True
    picked = np.zeros(n, dtype=bool)
    for turn in red.next(games, 0):
        if turn.act is not None and turn.act.unit == "zealot-1":
            picked[turn.games] = True
    assert not picked[::2].any()
    assert picked[1::2].any()


def test_games_with_zealous_round_never_lose_an_activation_to_it(tmp_path: Path) -> None:
    """Whole games (``cautious`` red, ``aggressive`` blue, blue First Player, 30 games, seed 7): Zealous Round is
    declared, and the engine never refuses an automatic activation of a unit counted as Activated (no skip report of
    it)."""
    scn = parse_scenario(_table(tmp_path, "cautious"), "zealous.toml", tmp_path)
    sim = Simulation(scn, 30, 7)
    said = []
    plain = sim.activate

    def activate(a: Activation, gs: np.ndarray) -> None:
        if any(rx.use == "Zealous Round" for rx in a.react):
            said.extend(gs.tolist())
        plain(a, gs)

    sim.activate = activate  # type: ignore[method-assign, assignment]
    sim.run()
    assert said, "no game of 30 declared Zealous Round"
    assert not [k for k in sim.skipped if "counts as Activated" in k], sim.skipped


def test_a_trace_with_zealous_round_passes_check_and_replays(tmp_path: Path) -> None:
    """A game where red (``random``) declared Zealous Round and the attack was made (found in a batch of 30 games,
    then recorded alone: the same game whatever the grouping): its trace holds the ``react`` entry, ``scenario check``
    accepts it, and it replays to the same game for the same seed and game number."""
    table = _table(tmp_path, "random")
    scn = parse_scenario(table, "zealous.toml", tmp_path)
    seed = 7
    g, played = declared(scn, "Zealous Round", seed, 30)
    trace = replays(table, scn, played, seed, g, tmp_path)
    assert any(rx.use == "Zealous Round" for a in trace.plan for rx in a.react)
